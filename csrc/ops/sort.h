// The sort family (sort, argsort, topk, kthvalue, median, mode, multinomial) and the triangle ops (tril,
// triu and their index factories).
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

// Sorting is always stable (stable=False allows any order of ties, so the stable order is one of them);
// NaN sorts as the largest value, as in PyTorch.
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending);
Tensor argsort(const Tensor& self, int64_t dim, bool descending);
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted);
// topk(..., out=(values, indices)) written by the sort kernel into outs of the result's shape (values in
// self's dtype, indices int64), contiguous, sharing memory with nothing, along self's last dim on the CPU;
// false (before any write) for anything else, which the binding's general path then takes with its checks.
bool topk_into(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t k, int64_t dim,
               bool largest, bool sorted);
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim);
// Lower median; a row holding NaN gives NaN (its first NaN), as PyTorch's median (not nanmedian).
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim);
Tensor median(const Tensor& self);
// nanmedian of all elements: the lower median of the non-NaN ones (NaN when all are)
Tensor nanmedian(const Tensor& self);
// median (ignore_nan: nanmedian) of all elements, a 0-dim value; its gradient is shared evenly among the
// elements equal to it, as PyTorch's
Tensor median_all(const Tensor& self, bool ignore_nan);
// Most frequent value (the smallest among equally frequent ones) and the index of its last occurrence.
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim);
// Rows of `self` (1-d or 2-d) are unnormalized category weights; draws from the current generator.
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement);

Tensor tril(const Tensor& self, int64_t diagonal);
Tensor triu(const Tensor& self, int64_t diagonal);
// tril/triu's out= fast path (lower: tril): true when the kernel wrote straight into out (see
// index_select_into in ops/index.h)
bool triangle_into(const Tensor& out, const Tensor& self, int64_t diagonal, bool lower);
const Tensor& tril_(const Tensor& self, int64_t diagonal);
const Tensor& triu_(const Tensor& self, int64_t diagonal);
// 2 x N (row, col) coordinates of the lower/upper triangle of a row x col matrix, in row-major order.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset, ScalarType dtype, Device device);
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, ScalarType dtype, Device device);

// ---- Kernels. `in` is contiguous rows x n, sorted along n. values (dtype of in) and indices (int64) are
// contiguous rows x k (1 <= k <= n): the first k of each sorted row, ties in input order (stable).
// `sorted` false (topk(..., sorted=False)): the first k in any order (a kernel may sort them anyway).
using SortKernelFn = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t n,
                              int64_t k, bool descending, bool sorted);
// `sorted`/`sorted_idx` contiguous rows x n (a stable ascending sort): per row the value of the longest run
// of equal values (the first such run) and the last index of that run; values/indices hold rows elements.
// On the CPU `sorted_idx` is undefined and `sorted` holds the rows unsorted: its kernel sorts the values
// alone and finds the index in the row afterwards (PyTorch's mode sorts (value, index) pairs; our sort with
// indices cost more than its mode).
using ModeKernelFn = void (*)(const Tensor& values, const Tensor& indices, const Tensor& sorted,
                              const Tensor& sorted_idx, int64_t n);
// One element per row of `in` (contiguous rows x n): position k (0-based) of the stable ascending order, or
// with k < 0 PyTorch's median position (n - 1) / 2, moved to the row's first NaN (in input order) when it
// holds any. values (dtype of in) and indices (int64) hold rows elements. Optional per device (the CPU's is a
// selection, O(n) a row); without one, kthvalue and median sort and pick. With `indices` undefined: in is
// one row and values 0-dim, its median (k = -1: NaN when it holds a NaN) or nanmedian (k = -2) value alone.
using SelectKernelFn = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t n,
                                int64_t k);
// tril (lower) / triu of the last two dims of `self` (dim >= 2, numel > 0), any strides: out keeps the
// element at (row i, col j) where j - i <= diagonal (lower) / >= diagonal (upper) and holds zero elsewhere.
// out has self's sizes and dtype: either self itself (tril_/triu_, which then only writes the zeros) or a
// fresh contiguous tensor.
using TriangleFn = void (*)(const Tensor& out, const Tensor& self, int64_t diagonal, bool lower);
// searchsorted: seq contiguous (seq_rows, m), m >= 1, seq_rows 1 (one sequence for every row) or rows;
// values contiguous (rows, n) of seq's dtype; out int64 (rows, n): each value's insertion point into its
// row's sequence, the first position whose element is >= the value (> with right), by PyTorch's binary
// search (a NaN value lands at m). CPU only: torch.searchsorted composes from ops on other devices.
using SearchsortedFn = void (*)(const Tensor& out, const Tensor& seq, const Tensor& values, bool right);
// histogram (torch.histc, torch.histogram): hist (bins elements, in's dtype, contiguous) receives the count
// of the values of `in` (contiguous, any shape, read flat) in each bin, or the sum of their `weight`
// (undefined, or contiguous with in's numel and dtype). A value outside [lo, hi] (in's dtype; edges[0] and
// edges[bins] where edges is given) or NaN adds to no bin; the last bin holds hi. The bin: `linear` PyTorch's
// histc interpolation, trunc((x - lo) * bins / (hi - lo)) with every step rounded in in's dtype;
// `linear_search` that bin moved to the last of edges (bins + 1, in's dtype) <= x among its neighbours
// (torch.histogram's evenly spaced edges); `search` the last edge <= x by binary search (a tensor of edges).
// CPU only: the Python wrappers compose from ops on other devices.
enum class HistMode : int { linear, linear_search, search };
using HistogramFn = void (*)(const Tensor& hist, const Tensor& in, const Tensor& weight, const Tensor& edges,
                             double lo, double hi, HistMode mode);
// The kernel's front ends, after the Python wrappers' argument checks: torch.histc (_C._histc: the range of
// the data when min == max, widened by 1 when it is one point); torch.histogram with a bin count
// (_C._histogram_bin_ct: (hist, edges), the edges evenly spaced over range, or the data's min and max
// widened by 0.5 when equal, [0, 1] without data) and with a tensor of edges (_C._histogram_bin_edges: hist),
// density dividing by the total and the bin widths.
Tensor histc_counts(const Tensor& self, int64_t bins, double min, double max);
std::tuple<Tensor, Tensor> histogram_bin_ct(const Tensor& self, int64_t bins,
                                            const std::optional<std::vector<double>>& range,
                                            const std::optional<Tensor>& weight, bool density);
Tensor histogram_bin_edges(const Tensor& self, const Tensor& edges, const std::optional<Tensor>& weight,
                           bool density);
// The kernel's front end (_C._searchsorted): sorted_sequence 1-d or with values' leading dims, one real
// dtype, on the CPU; the int64 insertion points of values (Python's torch.searchsorted checks and promotes).
Tensor searchsorted_sorted(const Tensor& sorted_sequence, const Tensor& values, bool right);
// unique_consecutive's values: the first element of each run of equal values in `in` (contiguous, n >= 1
// elements; NaN equals nothing, -0.0 equals 0.0, as ne); with `out` undefined only the count of runs, else
// out (contiguous, that count long, in's dtype) receives them and the count is returned. CPU only:
// torch.unique_consecutive composes from ops on other devices.
using UniqueConsecutiveFn = int64_t (*)(const Tensor& out, const Tensor& in);
// The kernel's front end (_C._unique_consecutive_values): the run values of self flattened, a CPU tensor of
// any dtype (Python's torch.unique_consecutive takes it for the call without inverse, counts or dim).
Tensor unique_consecutive_values(const Tensor& self);
MT_STUBS_SORT_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
