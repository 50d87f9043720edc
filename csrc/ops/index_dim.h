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
MT_DECLARE_STUB(gather_dim_stub, GatherDimFn);
MT_DECLARE_STUB(scatter_dim_stub, ScatterDimFn);

}  // namespace mt
