// Indexing: basic (ints, slices, None, ...) is views in the bindings; here the ops that read or write
// through index tensors and masks.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/Tensor.h"

namespace mt {

// Advanced indexing: indices[d] (int64 or bool, undefined = full slice) applies to dim d of self,
// with NumPy/PyTorch placement rules for the broadcast index dimensions.
Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
const Tensor& index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                         const Tensor& values, bool accumulate);
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
// The out= fast paths of index_select and gather: the op's checks, then (true) its kernel writes straight
// into `out` when out_takes it (ops/out.h; CPU only for index_select); false leaves out untouched for the
// binding's general path (a temporary copied in, with the resize and dtype rules).
bool index_select_into(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
bool gather_into(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
// torch.take: elements of the flattened self at int64 `index` (negative ones count from the end), shaped like
// index; an index out of range is PyTorch's IndexError.
Tensor take(const Tensor& self, const Tensor& index);
// take with out= (bind_out.cpp): take's checks, then its CPU gather written straight into `out` when
// out_takes it (out returned, its version bumped), else the fresh result for the binding to copy in.
Tensor take_into(const Tensor& out, const Tensor& self, const Tensor& index);
// torch.take_along_dim: gather along dim of self and int64 `indices` broadcast against each other on the
// other dims, an index read modulo the dim's size (PyTorch 2.15's); dim nullopt: gather from both viewed
// flat.
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim);
// reduce: "" (assign), "add", "multiply"
const Tensor& scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                       const std::string& reduce = "");
const Tensor& scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// self[index] = max (amax) or min of itself and src along dim, NaN winning: scatter_reduce's amax/amin kernel
// (not recorded by autograd: the Python scatter_reduce gives it PyTorch's tie-splitting gradient).
const Tensor& scatter_extreme_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                               bool is_max);
// index_copy / index_fill (PyTorch's index_copy_, index_fill_): self's slices at the int64 vector `index`
// along dim written with source's slices / the 0-dim value, checked in PyTorch's order and words.
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
const Tensor& index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
const Tensor& index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
// The k-th True of the bool mask (broadcast, row-major) takes source's k-th element.
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
const Tensor& masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source);
// A clone of self with self[..., start:end:step] (along dim, Python's slice bounds) overwritten by src.
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t start, int64_t end,
                     int64_t step);
Tensor nonzero(const Tensor& self);  // (n, ndim) int64
Tensor masked_select(const Tensor& self, const Tensor& mask);
// IndexError in PyTorch's words unless t is an int64/int32/uint8/bool tensor.
void check_index_dtype(const Tensor& t);

// Kernels move elements addressed by host-computed element offsets (relative to data_ptr()):
//   element (i, j) of a contiguous [n, r] buffer <-> data[outer[i] + inner[j]].
enum class PutMode : int { assign, add, multiply, amax, amin };
using IndexGatherFn = void (*)(const Tensor& out, const Tensor& src, const int64_t* outer, int64_t n,
                               const int64_t* inner, int64_t r);
using IndexPutFn = void (*)(const Tensor& dst, const Tensor& values, const int64_t* outer, int64_t n,
                            const int64_t* inner, int64_t r, PutMode mode);
using NonzeroFn = Tensor (*)(const Tensor& self);

}  // namespace mt
