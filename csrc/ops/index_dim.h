// The gather/scatter-along-dim kernel stubs (only index.cpp and the index kernels include this).
#pragma once
#include "ops/Dispatch.h"
#include "ops/index.h"

namespace mt {

// gather/scatter along dim, walking the index tensor in place (no host offsets). self, index, out/src have
// the same number of dims (>= 1) and self.size(dim) > 0, checked by the front end; the kernel checks each
// index value. Optional per device: a device without them goes through index_gather_stub/index_put_stub.
using GatherDimFn = void (*)(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
using ScatterDimFn = void (*)(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                              PutMode mode);
MT_STUBS_INDEX_DIM_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
