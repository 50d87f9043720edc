// Reductions over dims (int or tuple, keepdim), softmax family and scans.
#pragma once
#include <optional>
#include <tuple>

#include "core/Scalar.h"
#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

// dims empty = all dims. dtype Undefined = PyTorch's default (sum/prod of integers and bool -> int64).
Tensor sum(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype = ScalarType::Undefined);
Tensor mean(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype = ScalarType::Undefined);
// The mean var_mean/std_mean return: PyTorch's Welford pass, nan where an infinity is not the last element.
Tensor welford_mean(const Tensor& self, IntArrayRef dims, bool keepdim);
Tensor prod(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype = ScalarType::Undefined);
Tensor amax(const Tensor& self, IntArrayRef dims, bool keepdim);
Tensor amin(const Tensor& self, IntArrayRef dims, bool keepdim);
Tensor all(const Tensor& self, IntArrayRef dims = {}, bool keepdim = false);
// torch.count_nonzero: the int64 count of nonzero elements over dims (empty: all of them).
Tensor count_nonzero(const Tensor& self, IntArrayRef dims);
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim);  // nullopt: every dim
Tensor any(const Tensor& self, IntArrayRef dims = {}, bool keepdim = false);
// torch.equal: the same shape and elements (python/minitorch/_compare.py checks the arguments)
bool equal(const Tensor& a, const Tensor& b);
// correction: 1 = unbiased (Bessel), 0 = population
Tensor var(const Tensor& self, IntArrayRef dims, double correction, bool keepdim);
Tensor std(const Tensor& self, IntArrayRef dims, double correction, bool keepdim);
Tensor norm(const Tensor& self, double p, IntArrayRef dims, bool keepdim);
Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim);
// The sum with NaN counted as zero (integers and bool: sum); complex inputs are refused, as PyTorch's.
Tensor nansum(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype = ScalarType::Undefined);
// The sum of a matrix's main diagonal, read in place (integers and bool sum in int64).
Tensor trace(const Tensor& self);
// Whole-tensor max/min (no dim): a 0-dim tensor; errors on empty input as PyTorch.
Tensor max(const Tensor& self);
Tensor min(const Tensor& self);
// max/min along one dim: (values, indices)
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim);
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor cumsum(const Tensor& self, int64_t dim, ScalarType dtype = ScalarType::Undefined);
Tensor cumprod(const Tensor& self, int64_t dim, ScalarType dtype = ScalarType::Undefined);
// log(cumsum(exp(self))) along dim in one pass (CPU, float32/float64; python/minitorch/_composite_math.py
// checks PyTorch's arguments and takes the other dtypes and devices through its composite)
Tensor logcumsumexp(const Tensor& self, int64_t dim);
// cummax (is_max) / cummin along dim: (running extremum, int64 index where it was reached); no autograd
// (python/minitorch/_composite_math.py takes the values' gradient through gather at the indices)
std::tuple<Tensor, Tensor> cum_extreme(const Tensor& self, int64_t dim, bool is_max);
Tensor softmax(const Tensor& self, int64_t dim, ScalarType dtype = ScalarType::Undefined);
Tensor log_softmax(const Tensor& self, int64_t dim, ScalarType dtype = ScalarType::Undefined);

// ---- Kernel interface. The front ends bring every input to one layout: dense memory walked as
// outer x row x inner, the op working along `row` (reduced dims made one block, in place when the input's
// layout allows, else by a copy with them last). `out` is dense as well. A device backend registers these
// four kernels and gets every op above.
enum class ReduceOp : int {
  sum,
  mean,
  prod,
  amax,
  amin,
  all,
  any,
  norm,
  var,
  std,
  logsumexp,
  nansum,
  count_nonzero
};
// sum / mean / prod / amax / amin / logsumexp / var / std (arg: the correction) / nansum over dims with out=
// (bind_out.cpp): the op's checks, then the kernel writes straight into `out` when out_takes it (contiguous,
// the result's shape and dtype, no memory of self's; out is returned, its version bumped once), else the
// fresh result is returned for the binding's general dtype check, resize and copy. The default dtype only
// (no dtype=), except nansum, which computes in out's dtype as PyTorch's nansum_out does (an integer or bool
// input: sum into that dtype; a floating input and a dtype that is not floating: its NotImplementedError); no
// autograd.
Tensor reduce_into(const Tensor& out, ReduceOp op, const Tensor& self, IntArrayRef dims, bool keepdim,
                   double arg = 0);

// `in`'s memory from data_ptr() is dense outer x row x inner (its sizes/strides may be any permutation of
// that; read only the pointer), reduced over `row`; out is dense outer x inner (dtype of `in`, except
// all/any: bool or uint8). inner > 1 (a reduced block followed by kept dims, read in place without a
// transposing copy) is only passed for sum, nansum, mean, prod, amax and amin. nansum only reaches the
// kernels with floating inputs. arg: p for norm, correction for var/std. count_nonzero (the CPU kernel only;
// the front end sums `x != 0` on other devices): `in` of any dtype, complex too, inner 1, `out` int64.
using ReduceKernelFn = void (*)(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ReduceOp op,
                                double arg);
// `in` dense outer x row x inner, walked along `row`. values (undefined for argmax/argmin) and int64 indices,
// dense outer x inner; the first extremum wins and NaN beats everything, as in PyTorch.
using ArgReduceKernelFn = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t row,
                                   int64_t inner, bool is_max);
enum class ScanOp : int { cumsum, cumprod, logcumsumexp };  // logcumsumexp: CPU, float32/float64 only
// Scan and softmax take `in` contiguous as outer x row x inner and work along `row` (inner = 1: the dim is
// last; inner > 1: no transposing copy); out is contiguous with the shape and dtype of in.
using ScanKernelFn = void (*)(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ScanOp op);
// cummax/cummin: values (in's dtype) and int64 indices, both contiguous with in's shape (ReduceRules.h's
// cum_replaces decides)
using CumExtremeKernelFn = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in,
                                    int64_t row, int64_t inner, bool is_max);
using SoftmaxKernelFn = void (*)(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, bool log);
// torch.equal of two tensors of one shape, dtype and dense strides, in memory order: element by element with
// an early exit at the first difference (PyTorch's cpu_equal), comparing values (-0 == 0, NaN != NaN). CPU
// only: equal() on other devices is all(eq(a, b)).
using EqualFn = bool (*)(const Tensor& a, const Tensor& b);
MT_STUBS_REDUCE_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
