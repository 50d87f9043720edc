// Reduction, scan and softmax front ends: dims, PyTorch's dtype rules and empty inputs, then the kernel.
// Every kernel (CPU or CUDA) sees one layout: dense outer x row x inner, working along row.
#include "ops/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/FreshWrites.h"
#include "generated/native.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/layout.h"
#include "ops/out.h"
#include "ops/shape.h"

namespace mt {

namespace {

// (row, inner) of a contiguous tensor walked along `dim`: the layout scan and softmax kernels take.
std::pair<int64_t, int64_t> row_inner(const Tensor& self, int64_t dim) {
  if (self.dim() == 0) return {1, 1};
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.sizes()[d];
  return {self.sizes()[dim], inner};
}

// Which dims a reduction covers; empty `dims` means all of them (PyTorch's dim=None and dim=()). PyTorch's
// reductions check a dim list in two orders: sum/mean/amax/amin/all/any/logsumexp wrap every dim before
// looking for a repeat, var/std/nansum/the norms check each dim's range and repeat in turn (in_order):
// sum(x, [0, 0, 3]) of a vector is the range's IndexError, std(x, [0, 0, 3]) the repeat's error.
SmallVector<bool, 8> dim_mask(const Tensor& self, IntArrayRef dims, bool in_order = false) {
  int64_t nd = self.dim();
  SmallVector<bool, 8> mask(static_cast<size_t>(std::max<int64_t>(nd, 1)), dims.empty());
  if (!in_order)
    for (int64_t d : dims) wrap_dim(d, nd);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, nd);
    MT_CHECK(!mask[w], "dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  return mask;
}

// Output shape of a reduction over `mask`.
DimVector reduced_shape(const Tensor& self, const SmallVector<bool, 8>& mask, bool keepdim) {
  DimVector out;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!mask[d])
      out.push_back(self.sizes()[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

// Rows layout: kept dims first (their order is the output's), reduced dims last, then dense. Reduced dims are
// ordered by decreasing stride because a reduction does not care about their order, so a transposed input
// reduced over everything needs no copy.
Tensor as_rows(const Tensor& self, const SmallVector<bool, 8>& mask, int64_t& row) {
  DimVector perm, red;
  row = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (mask[d]) {
      red.push_back(d);
      row *= self.sizes()[d];
    } else {
      perm.push_back(d);
    }
  }
  std::stable_sort(red.begin(), red.end(),
                   [&](int64_t a, int64_t b) { return self.strides()[a] > self.strides()[b]; });
  for (int64_t d : red) perm.push_back(d);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  return contiguous(identity ? self : permute(self, perm));
}

// In-place plan: when `in` is dense in some dim order (contiguous, transposed, permuted) and, in that order,
// the reduced dims form one block (kept outer, reduced, kept inner), the kernel reads it where it lies as
// outer x row x inner; no transposing copy. `out_p` is the result in that order; `out` views it in the
// caller's. Size-1 dims are ignored: they change no address. `into` (out=, contiguous, of the result's shape)
// is written in place of a fresh out_p when that order is the caller's (plan.into says it was).
struct InPlacePlan {
  int64_t row = 1, inner = 1;
  Tensor out_p, out;
  bool into = false;
};

bool plan_in_place(const Tensor& in, const SmallVector<bool, 8>& mask, bool keepdim, bool columns,
                   ScalarType out_dt, InPlacePlan& plan, const Tensor* into) {
  int64_t nd = in.dim();
  if (in.numel() == 0) return false;
  DimVector order;
  for (int64_t d = 0; d < nd; ++d)
    if (in.sizes()[d] != 1) order.push_back(d);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return in.strides()[a] > in.strides()[b]; });
  int64_t expect = 1;
  for (size_t i = order.size(); i-- > 0;) {
    if (in.strides()[order[i]] != expect) return false;  // overlapping (expanded) or gapped (sliced)
    expect *= in.sizes()[order[i]];
  }
  // kept* reduced* kept*: find the block
  size_t i = 0;
  while (i < order.size() && !mask[order[i]]) ++i;
  size_t j = i;
  while (j < order.size() && mask[order[j]]) ++j;
  for (size_t k = j; k < order.size(); ++k)
    if (mask[order[k]]) return false;
  plan.row = 1;
  plan.inner = 1;
  for (size_t k = i; k < j; ++k) plan.row *= in.sizes()[order[k]];
  for (size_t k = j; k < order.size(); ++k) plan.inner *= in.sizes()[order[k]];
  if (plan.inner > 1 && !columns) return false;
  // the result in `order`'s kept dims, then viewed with the caller's dim order
  DimVector kept_sizes, kept_dims;
  for (int64_t d : order)
    if (!mask[d]) {
      kept_sizes.push_back(in.sizes()[d]);
      kept_dims.push_back(d);
    }
  plan.into = into && std::is_sorted(kept_dims.begin(), kept_dims.end());
  if (plan.into) {
    plan.out_p = make_view(*into, kept_sizes, contiguous_strides(kept_sizes), into->storage_offset());
    plan.out = *into;
    return true;
  }
  plan.out_p = make_empty(kept_sizes, out_dt, in.device());
  DimVector pstride(static_cast<size_t>(nd), 0);
  int64_t st = 1;
  for (size_t k = kept_dims.size(); k-- > 0;) {
    pstride[kept_dims[k]] = st;
    st *= kept_sizes[k];
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (!mask[d]) {
      sizes.push_back(in.sizes()[d]);
      strides.push_back(in.sizes()[d] == 1 ? 1 : pstride[d]);
    } else if (keepdim) {
      sizes.push_back(1);
      strides.push_back(1);
    }
  }
  plan.out = make_view(plan.out_p, sizes, strides, 0);
  return true;
}

// IndexError in PyTorch's words when a reduction without an identity (max, min, ...) meets an empty dim.
void check_nonempty(const Tensor& self, const SmallVector<bool, 8>& mask, const char* name) {
  if (self.numel() != 0) return;
  if (self.dim() == 0) return;
  for (int64_t d = 0; d < self.dim(); ++d)
    MT_CHECK_INDEX(!mask[d] || self.sizes()[d] != 0, name, "(): Expected reduction dim ", d,
                   " to have non-zero size.");
}

// A reduction over dims of size 1 only (x.sum((2, 3)) of [N, C, 1, 1], a keepdim'd statistic reduced again):
// each result is its one element, so it is an elementwise pass in the result's dtype, where the kernels took
// a row of one element at a time (2 ns an element, 5x PyTorch's time). A product or an extremum is the value
// itself (1 * x, bit for bit); a float sum or mean is 0 + x, as the kernels' totals start at +0 (PyTorch's
// sum of [[-0.0]] over dim 1 is +0.0); an integer or bool sum is the value cast. nansum, the norms,
// var/std, logsumexp and all/any map their one element, so they keep the kernels. Undefined when the case
// does not apply. into: as run_reduce's.
Tensor unit_reduction(const Tensor& self, const SmallVector<bool, 8>& mask, bool keepdim, ReduceOp op,
                      ScalarType out_dt, const Tensor* into) {
  if (op != ReduceOp::sum && op != ReduceOp::mean && op != ReduceOp::prod && op != ReduceOp::amax &&
      op != ReduceOp::amin)
    return Tensor();
  // complex: the kernels refuse extrema (with PyTorch's error) and multiply prod's 1 through (inf * 0 is NaN)
  if (self.numel() == 0 || !(self.device().is_cpu() || self.is_cuda()) || is_complex(self.dtype()) ||
      is_complex(out_dt))
    return Tensor();
  DimVector sizes, strides;  // self's elements in the result's shape: a reduced dim (size 1) dropped or kept
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!mask[d]) {
      sizes.push_back(self.sizes()[d]);
      strides.push_back(self.strides()[d]);
    } else if (self.sizes()[d] != 1) {
      return Tensor();
    } else if (keepdim) {
      sizes.push_back(1);
      strides.push_back(self.strides()[d]);
    }
  }
  Tensor src = make_view(self, sizes, strides, self.storage_offset());
  const bool plus_zero = is_floating(out_dt) && (op == ReduceOp::sum || op == ReduceOp::mean);
  const bool in_into = into && out_takes(*into, sizes, out_dt, self.device(), false, {&self});
  // the usual case in one pass: the add's fresh result is laid out as its input, contiguous here
  if (plus_zero && !in_into && self.dtype() == out_dt && src.is_contiguous())
    return binary(BinaryOp::add, src, wrapped_scalar(Scalar(0.0)));
  Tensor out = in_into ? *into : make_empty(sizes, out_dt, self.device());
  copy_into_fresh(out, src);
  if (plus_zero) {
    FreshWrites fresh;  // out is ours, or into, whose version the caller bumps
    binary_(BinaryOp::add, out, wrapped_scalar(Scalar(0.0)));
  }
  return out;
}

// One reduction: output allocation, the layout, then the kernel; over zero elements, PyTorch's identity
// value. into: out= (reduce_into), the result's memory when out_takes it (contiguous, the result's shape and
// dtype, no memory shared with self); the caller bumps its version.
Tensor run_reduce(const Tensor& self, IntArrayRef dims, bool keepdim, ReduceOp op, double arg,
                  ScalarType out_dt, const char* name, const Tensor* into = nullptr) {
  if ((op == ReduceOp::amax || op == ReduceOp::amin) && self.numel() == 0) {
    // PyTorch's zero_numel_check_dims, before the dim list is read as a whole: over everything (no dims) it
    // asks for a dim, else it wraps each dim in turn and refuses the first empty one (naming it as given), so
    // amax(x, (0, 0)) of an empty dim 0 is this IndexError rather than the repeat's error, and (0, 5) rather
    // than the range's
    MT_CHECK(!dims.empty(), name,
             "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
             "with the 'dim' argument.");
    for (int64_t d : dims) {
      int64_t w = wrap_dim(d, self.dim());
      MT_CHECK_INDEX(self.sizes()[w] != 0, name, "(): Expected reduction dim ", d, " to have non-zero size.");
    }
  }
  auto mask =
      dim_mask(self, dims,
               op == ReduceOp::var || op == ReduceOp::std || op == ReduceOp::nansum || op == ReduceOp::norm);
  if (Tensor r = unit_reduction(self, mask, keepdim, op, out_dt, into); r.defined()) return r;
  Tensor in = self.dtype() == out_dt || op == ReduceOp::all || op == ReduceOp::any
                  ? self
                  : to(self, out_dt, self.device());
  DimVector shape = reduced_shape(self, mask, keepdim);
  if (compute_numel(shape) == 0) return make_empty(shape, out_dt, self.device());
  // PyTorch's max_values/min_values kernels have no complex case; no kernel runs on an empty result (above)
  MT_CHECK_NOT_IMPLEMENTED(!((op == ReduceOp::amax || op == ReduceOp::amin) && is_complex(self.dtype())),
                           "\"", op == ReduceOp::amax ? "max" : "min", "_values_",
                           self.is_cuda() ? "cuda" : "cpu", "\" not implemented for '",
                           dtype_short_name(self.dtype()), "'");
  if (into && !out_takes(*into, shape, out_dt, self.device(), false, {&self})) into = nullptr;
  bool columns = op == ReduceOp::sum || op == ReduceOp::nansum || op == ReduceOp::mean ||
                 op == ReduceOp::prod || op == ReduceOp::amax || op == ReduceOp::amin;
  InPlacePlan plan;
  if (plan_in_place(in, mask, keepdim, columns, out_dt, plan, into)) {
    reduce_stub.get(self.device())(plan.out_p, in, plan.row, plan.inner, op, arg);
    // a result laid out like a fresh tensor (a copy only when the input's dims were permuted)
    return plan.into ? plan.out : contiguous(plan.out);
  }
  // A gapped or overlapping input (a slice x[:, ::2], an expand) whose reduced dims are one block in its own
  // dim order: a dense copy in that order, then the columns kernel where a middle dim remains. as_rows below
  // would copy it with the reduced dims moved last, a transposing copy (sum(x[:, ::2], 0) of [512, 512]
  // float32 took 5x PyTorch's time).
  if (columns && !in.is_contiguous() && in.numel() > 0) {
    int phase = 0;  // kept*, reduced*, kept* over the dims of size > 1
    bool block = true;
    for (int64_t d = 0; d < in.dim(); ++d) {
      if (in.sizes()[d] == 1) continue;
      if (mask[d])
        block = block && phase != 2, phase = 1;
      else if (phase == 1)
        phase = 2;
    }
    Tensor dense = block ? contiguous(in) : Tensor();
    if (block && plan_in_place(dense, mask, keepdim, columns, out_dt, plan, into)) {
      reduce_stub.get(self.device())(plan.out_p, dense, plan.row, plan.inner, op, arg);
      return plan.into ? plan.out : contiguous(plan.out);
    }
  }
  // A float sum/mean over reduced* kept* reduced* (a conv bias gradient or BatchNorm's (0, 2, 3) of NCHW):
  // the trailing block first, in place along contiguous rows, then the leading one as columns of that
  // small result. The alternative, as_rows, copies the whole input into a permuted layout first (3x slower).
  // The partial sums round to the dtype once, as PyTorch's do; half/bfloat16 would lose too much there.
  if (in.device().is_cpu() && (op == ReduceOp::sum || op == ReduceOp::nansum || op == ReduceOp::mean) &&
      (out_dt == ScalarType::Float || out_dt == ScalarType::Double) && in.is_contiguous()) {
    int64_t last = in.dim() - 1;
    while (last >= 0 && in.sizes()[last] == 1) --last;
    DimVector tail;
    int64_t d = last;
    for (; d >= 0 && (mask[d] || in.sizes()[d] == 1); --d)
      if (in.sizes()[d] != 1) tail.push_back(d);
    bool lead = false;
    for (; d >= 0; --d) lead = lead || (mask[d] && in.sizes()[d] != 1);
    if (!tail.empty() && lead) {
      Tensor part = run_reduce(in, tail, /*keepdim=*/true, op, arg, out_dt, name);
      DimVector all;
      for (int64_t k = 0; k < in.dim(); ++k)
        if (mask[k]) all.push_back(k);
      return run_reduce(part, all, keepdim, op, arg, out_dt, name, into);
    }
  }
  Tensor out = into ? *into : make_empty(shape, out_dt, self.device());
  int64_t row = 1, inner = 1;
  Tensor rows = as_rows(in, mask, row);
  if (row == 0) {
    double v = 0;
    switch (op) {
      case ReduceOp::prod:
      case ReduceOp::all:
        v = 1;
        break;
      case ReduceOp::mean:
      case ReduceOp::var:
      case ReduceOp::std:
        v = std::numeric_limits<double>::quiet_NaN();
        break;
      case ReduceOp::logsumexp:
        v = -std::numeric_limits<double>::infinity();
        break;
      default:
        break;
    }
    FreshWrites fresh;
    if (is_floating(out_dt))
      fill_(out, Scalar(v));
    else
      fill_(out, Scalar(static_cast<int64_t>(v)));
    return out;
  }
  reduce_stub.get(self.device())(out, rows, row, inner, op, arg);
  return out;
}

// sum/prod/cumsum: bool and integers accumulate in int64 unless a dtype is given.
ScalarType int_to_long(const Tensor& self, ScalarType dtype) {
  if (dtype != ScalarType::Undefined) return dtype;
  return is_integral(self.dtype(), true) ? ScalarType::Long : self.dtype();
}

// PyTorch raises NotImplementedError for these dtype refusals
void check_float(const Tensor& self, const char* msg, bool name_dtype = true) {
  MT_CHECK_NOT_IMPLEMENTED(is_floating(self.dtype()), msg, name_dtype ? dtype_short_name(self.dtype()) : "");
}

}  // namespace

// sum/mean of a tensor in a complex dtype: the real reduction over its [..., 2] view (the kernels' speed, and
// the gradient through the views), keeping the trailing pair; a 0-dim tensor (dim 0 or -1 allowed, as for
// real ones) is its own sum. The mean is PyTorch's sum_out then div_ by the count, c10's complex division by
// n + 0i in the part's dtype: rat = 0, scl = 1 / n, re' = (re + im * rat) * scl, im' = (im - re * rat) * scl.
// So an infinite part makes the other NaN (inf * 0), which halving each part separately did not, and the
// quotient is a product with the reciprocal (5 / 3 is 1.6666666666666665 there, not the rounded 5 / 3).
static Tensor complex_reduce(const Tensor& x, IntArrayRef dims, bool keepdim, bool is_mean) {
  const SmallVector<bool, 8> mask = dim_mask(x, dims);
  DimVector ds;
  int64_t count = 1;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (mask[static_cast<size_t>(d)]) {
      ds.push_back(d);
      count *= x.sizes()[d];
    }
  Tensor s = x.dim() == 0
                 ? clone(x)
                 : view_as_complex(contiguous(sum(view_as_real(x), ds, keepdim, ScalarType::Undefined)));
  if (!is_mean) return s;
  const Tensor r = view_as_real(s), re = select(r, -1, 0), im = select(r, -1, 1);
  const Tensor rat = wrapped_scalar(Scalar(0.0)),
               scl = wrapped_scalar(Scalar(count == 0 ? std::numeric_limits<double>::infinity()
                                                      : 1.0 / static_cast<double>(count)));
  return view_as_complex(stack({mul(add(re, mul(im, rat)), scl), mul(sub(im, mul(re, rat)), scl)}, -1));
}

// into: out= (reduce_into below), the memory run_reduce writes when it can. A complex input with a real
// dtype sums its real parts (run_reduce's cast, with the cast's warning), as PyTorch's.
static Tensor sum_impl(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype,
                       const Tensor* into) {
  const ScalarType dt = int_to_long(self, dtype);
  if (is_complex(dt))
    return complex_reduce(dt == self.dtype() ? self : to(self, dt, self.device()), dims, keepdim, false);
  return run_reduce(self, dims, keepdim, ReduceOp::sum, 0, dt, "sum", into);
}

Tensor native::sum(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype) {
  return sum_impl(self, dims, keepdim, dtype, nullptr);
}

// A reduction of its own rather than sum over masked_fill: one pass, no mask and no copy. Integers and bool
// hold no NaN (sum); a float input with an integer dtype is converted element by element first (NaN as 0,
// the rest truncated), then summed, as PyTorch's: nansum([0.5, 3.9], dtype=int32) is 3, not 4.
Tensor native::nansum(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype) {
  const char* dev = self.is_cuda() ? "CUDA" : "CPU";
  // the dims in nansum's order (each one's range, then its repeat) before any dtype refusal, as PyTorch's
  (void)dim_mask(self, dims, true);
  MT_CHECK_NOT_IMPLEMENTED(!is_complex(self.dtype()), "nansum on ", dev, " does not support complex inputs");
  MT_CHECK_NOT_IMPLEMENTED(dtype == ScalarType::Undefined || !is_complex(dtype), "\"nansum_",
                           self.is_cuda() ? "cuda" : "cpu", "\" not implemented for '",
                           dtype_short_name(dtype), "'");
  // the dims in nansum's order (each one's range, then its repeat) before sum's, on every path
  dim_mask(self, dims, true);
  if (!is_floating(self.dtype())) return native::sum(self, dims, keepdim, dtype);
  if (dtype != ScalarType::Undefined && !is_floating(dtype))
    return native::sum(
        to(mt::masked_fill(self, isnan(self), wrapped_scalar(Scalar(0.0))), dtype, self.device()), dims,
        keepdim, dtype);
  return run_reduce(self, dims, keepdim, ReduceOp::nansum, 0, int_to_long(self, dtype), "nansum");
}

// The diagonal as a strided view, summed by the reduction kernels (no diagonal op, no autograd view).
Tensor native::trace(const Tensor& self) {
  // PyTorch's kernel refuses bool before it reads the rank
  MT_CHECK_NOT_IMPLEMENTED(self.dtype() != ScalarType::Bool, "\"trace\" not implemented for 'Bool'");
  MT_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  const int64_t n = std::min(self.sizes()[0], self.sizes()[1]);
  Tensor diag = make_view(self, {n}, {self.strides()[0] + self.strides()[1]}, self.storage_offset());
  return native::sum(diag, {}, false, ScalarType::Undefined);
}

Tensor native::prod(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype) {
  return run_reduce(self, dims, keepdim, ReduceOp::prod, 0, int_to_long(self, dtype), "prod");
}

static Tensor mean_impl(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype,
                        const Tensor* into) {
  ScalarType dt = dtype == ScalarType::Undefined ? self.dtype() : dtype;
  MT_CHECK_NOT_IMPLEMENTED(is_floating(dt) || is_complex(dt), "mean(): could not infer output dtype. ",
                           dtype == ScalarType::Undefined ? "Input dtype" : "Optional dtype",
                           " must be either a floating point or complex dtype. Got: ", dtype_short_name(dt));
  if (is_complex(dt))
    return complex_reduce(dt == self.dtype() ? self : to(self, dt, self.device()), dims, keepdim, true);
  // PyTorch's mean into float16/bfloat16 from another dtype sums in float32, the input cast to float32 (a
  // float64 one too: mean([1e5, -1e5, 3.0], dtype=float16) is 1, not inf - inf), and rounds only the result
  if ((dt == ScalarType::Half || dt == ScalarType::BFloat16) && self.dtype() != dt)
    return to(run_reduce(self, dims, keepdim, ReduceOp::mean, 0, ScalarType::Float, "mean"), dt,
              self.device());
  return run_reduce(self, dims, keepdim, ReduceOp::mean, 0, dt, "mean", into);
}

Tensor native::mean(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype) {
  return mean_impl(self, dims, keepdim, dtype, nullptr);
}

// var_mean/std_mean's mean. PyTorch's CPU kernel takes it from a Welford pass: once the running mean is
// infinite, the next element makes it inf - inf, so the mean is nan unless the only infinity is the last
// element in reduction order (the reduced dims moved last, in order). The fix-up runs only when a mean is
// infinite.
Tensor welford_mean(const Tensor& self, IntArrayRef dims, bool keepdim) {
  Tensor m = mean(self, dims, keepdim);
  if (self.is_cuda() || self.is_meta() || !is_floating(self.dtype()) || self.numel() < 2) return m;
  Tensor inf_mean = isinf(m);
  if (!item(any(inf_mean)).to_bool()) return m;
  const int64_t nd = self.dim();
  std::vector<bool> reduced(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims) reduced[static_cast<size_t>(wrap_dim(d, nd))] = true;
  DimVector perm, kept;
  for (int64_t d = 0; d < nd; ++d)
    if (!reduced[static_cast<size_t>(d)]) perm.push_back(d), kept.push_back(self.sizes()[d]);
  for (int64_t d = 0; d < nd; ++d)
    if (reduced[static_cast<size_t>(d)]) perm.push_back(d);
  kept.push_back(-1);
  Tensor rows = reshape(permute(self, perm), kept);
  const int64_t r = rows.sizes()[rows.dim() - 1];
  Tensor early_inf = reshape(any(isinf(narrow(rows, -1, 0, r - 1)), {-1}, false), m.sizes());
  Tensor nan = full({}, Scalar(std::numeric_limits<double>::quiet_NaN()), m.dtype(), m.device());
  return where(logical_and(inf_mean, early_inf), nan, m);
}

Tensor native::amax(const Tensor& self, IntArrayRef dims, bool keepdim) {
  return run_reduce(self, dims, keepdim, ReduceOp::amax, 0, self.dtype(), "amax");
}

Tensor native::amin(const Tensor& self, IntArrayRef dims, bool keepdim) {
  return run_reduce(self, dims, keepdim, ReduceOp::amin, 0, self.dtype(), "amin");
}

namespace {
// PyTorch keeps uint8 for all/any (a legacy rule); every other dtype gives bool.
Tensor all_any(const Tensor& self, IntArrayRef dims, bool keepdim, ReduceOp op) {
  ScalarType dt = self.dtype() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  // complex: the truth of each element first (the reduction kernels are real-only)
  const Tensor& x = is_complex(self.dtype()) ? ne(self, wrapped_scalar(Scalar(int64_t(0)))) : self;
  return run_reduce(x, dims, keepdim, op, 0, dt, op == ReduceOp::all ? "all" : "any");
}
}  // namespace

Tensor all(const Tensor& self, IntArrayRef dims, bool keepdim) {
  return all_any(self, dims, keepdim, ReduceOp::all);
}

Tensor count_nonzero(const Tensor& self, IntArrayRef dims) {
  if (self.device().is_cpu() && non_overlapping_and_dense(self)) {
    // Over every dim the order is free: the kernel counts the elements as they lie in memory, in one pass
    // without a bool mask (the compare, then the count, cost two ops' overhead: 1.2 us at 8x8 against
    // PyTorch's 1.0, and a transposed mask summed in row-major order 70 us at 256x256 against 31).
    const auto mask = dim_mask(self, dims);
    if (std::all_of(mask.begin(), mask.end(), [](bool m) { return m; })) {
      Tensor out = make_empty({}, ScalarType::Long, self.device());
      reduce_stub.get(self.device())(out, self, self.numel(), 1, ReduceOp::count_nonzero, 0);
      return out;
    }
  }
  return sum(ne(self, wrapped_scalar(Scalar(int64_t(0)))), dims, false);
}

Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  if (!dim) return count_nonzero(self, IntArrayRef());
  const int64_t d = *dim;
  return count_nonzero(self, IntArrayRef(&d, 1));
}

// Dense operands are compared a slice at a time, the first one small and each next one 16 times longer, so
// that tensors which differ early cost one small compare, as PyTorch's stops at the first difference (the
// whole-tensor eq and all ran 14x its time there), and equal ones at most a few extra dispatches.
bool equal(const Tensor& a, const Tensor& b) {
  if (!(a.sizes() == b.sizes())) return false;
  const int64_t n = a.numel();
  if (n == 0) return true;
  // the kernel compares in place with an early exit: eq, all and item cost 1.3 us where PyTorch's loop stops
  // at a first difference in 0.5
  EqualFn fn = equal_stub.fns[static_cast<int>(a.device().type)];
  // two tensors of one dense layout (both transposed, both channels-last) hold corresponding elements at the
  // same offsets: the kernel compares their memory as it lies, as PyTorch's TensorIterator order does
  const bool same_dense = a.is_contiguous() && b.is_contiguous();
  const bool one_layout = !same_dense && a.strides() == b.strides() && non_overlapping_and_dense(a);
  if (fn && a.device() == b.device() && a.dtype() == b.dtype() && (same_dense || one_layout)) return fn(a, b);
  auto same = [](const Tensor& x, const Tensor& y) { return item(all(eq(x, y))).to<bool>(); };
  constexpr int64_t kFirst = 2048;
  if (n <= kFirst) return same(a, b);
  if (!a.is_contiguous() || !b.is_contiguous()) {
    // other layouts: slabs along dim 0, growing, so that a difference near the start ends the comparison
    // early (eq, all and item over the whole tensor took 49 us on 256x256 floats where PyTorch's loop stopped
    // in 2)
    const int64_t rows = a.size(0), row = n / rows;
    for (int64_t s = 0, len = std::max<int64_t>(1, kFirst / row); s < rows; s += len, len *= 16) {
      const int64_t m = std::min(len, rows - s);
      if (!same(narrow(a, 0, s, m), narrow(b, 0, s, m))) return false;
    }
    return true;
  }
  const Tensor fa = view(a, {-1}), fb = view(b, {-1});
  for (int64_t s = 0, len = kFirst; s < n; s += len, len *= 16) {
    const int64_t m = std::min(len, n - s);
    if (!same(narrow(fa, 0, s, m), narrow(fb, 0, s, m))) return false;
  }
  return true;
}

Tensor any(const Tensor& self, IntArrayRef dims, bool keepdim) {
  return all_any(self, dims, keepdim, ReduceOp::any);
}

Tensor native::var(const Tensor& self, IntArrayRef dims, double correction, bool keepdim) {
  // complex: E|z - mean|^2 is the variance of the real part plus that of the imaginary part (a real result)
  if (is_complex(self.dtype()))
    return add(mt::var(real(self), dims, correction, keepdim),
               mt::var(imag(self), dims, correction, keepdim));
  check_float(self, "std and var only support floating point and complex dtypes", false);
  return run_reduce(self, dims, keepdim, ReduceOp::var, correction, self.dtype(), "var");
}

Tensor native::std(const Tensor& self, IntArrayRef dims, double correction, bool keepdim) {
  if (is_complex(self.dtype())) return sqrt(mt::var(self, dims, correction, keepdim));
  check_float(self, "std and var only support floating point and complex dtypes", false);
  return run_reduce(self, dims, keepdim, ReduceOp::std, correction, self.dtype(), "std");
}

Tensor native::norm(const Tensor& self, double p, IntArrayRef dims, bool keepdim) {
  if (is_complex(self.dtype())) return mt::norm(abs(self), p, dims, keepdim);  // a p-norm only reads |z|
  check_float(self, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ");
  // the orders without an identity (negative, inf) on no elements: PyTorch's linalg_vector_norm refuses every
  // dim when none is named, else only a named dim that is empty (a (0, 5) tensor's norm over its last dim is
  // an empty result)
  if ((p < 0 || std::isinf(p)) && self.numel() == 0) {
    MT_CHECK(!dims.empty(), "linalg.vector_norm cannot compute the ", p,
             " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d : dims) {
      const int64_t w = wrap_dim(d, self.dim());
      MT_CHECK(self.sizes()[w] != 0, "linalg.vector_norm cannot compute the ", p, " norm on the dimension ",
               w, "because this dimension is empty and the operation does not have an identity");
    }
  }
  // One element per result: its norm is |x| exactly (for p != 0), which the squaring p = 2 path would
  // overflow for float32 |x| > 1.8e19; PyTorch's kernel returns |x| there too, for every order, NaN included
  // (pairwise_distance of two numbers, found by the differential fuzzer). Except for a 0-dim tensor reduced
  // over an explicit dim, where PyTorch runs the reduction: (|x|^p)^(1/p) in the dtype, 0.2 % off |x| in
  // float32 for p = 1e-5, inf for p = 1e30, NaN for a NaN order (fuzz seeds 1603, 1701, 1902).
  if (p != 0 && self.numel() > 0 && !(self.dim() == 0 && !dims.empty())) {
    SmallVector<bool, 8> mask = dim_mask(self, dims, true);
    int64_t count = 1;
    DimVector out;
    for (int64_t d = 0; d < self.dim(); ++d) {
      if (mask[static_cast<size_t>(d)]) count *= self.sizes()[d];
      if (!mask[static_cast<size_t>(d)] || keepdim)
        out.push_back(mask[static_cast<size_t>(d)] ? 1 : self.sizes()[d]);
    }
    if (count == 1) return contiguous(mt::reshape(abs(self), out));
  }
  return run_reduce(self, dims, keepdim, ReduceOp::norm, p, self.dtype(), "norm");
}

static Tensor logsumexp_impl(const Tensor& self, IntArrayRef dims, bool keepdim, const Tensor* into) {
  // complex: the principal log of the sum, shifted by the largest real part (the imaginary parts need no
  // shift); composed of recorded ops, so autograd follows the parts (the twin's composite_if)
  if (is_complex(self.dtype())) {
    Tensor m = mt::amax(real(self), dims, true);
    const Tensor inf = wrapped_scalar(Scalar(std::numeric_limits<double>::infinity()));
    m = mt::where(eq(abs(m), inf), wrapped_scalar(Scalar(0.0)), m);
    Tensor r = add(mt::unary(UnaryOp::log, sum(mt::unary(UnaryOp::exp, sub(self, m)), dims, true)), m);
    if (!keepdim) {
      SmallVector<bool, 8> mask = dim_mask(self, dims);
      DimVector out;
      for (int64_t d = 0; d < self.dim(); ++d)
        if (!mask[static_cast<size_t>(d)]) out.push_back(self.sizes()[d]);
      r = mt::reshape(r, out);
    }
    return r;
  }
  // integers are promoted to the default float dtype, as PyTorch does
  ScalarType dt = is_floating(self.dtype()) ? self.dtype() : default_dtype();
  // The reduced dims leave the contiguous last dim alone (a softmax over a leading dim, a batch of scores):
  // PyTorch's composition, the max, exp of the shifted input, sum, log and the max added back, runs each step
  // along whole rows, where the row kernel gathers each short strided column and takes exp element by
  // element. Its special values are the kernel's: an infinite max is replaced by 0 so all -inf gives -inf and
  // any +inf gives +inf; NaN stays NaN.
  if ((dt == ScalarType::Float || dt == ScalarType::Double) && self.dtype() == dt && self.dim() >= 2 &&
      self.numel() >= 4096 && self.strides()[self.dim() - 1] == 1) {
    SmallVector<bool, 8> mask = dim_mask(self, dims);
    if (!mask[static_cast<size_t>(self.dim() - 1)]) {
      Tensor m = mt::amax(self, dims, true);
      const Tensor inf = wrapped_scalar(Scalar(std::numeric_limits<double>::infinity()));
      m = mt::where(eq(abs(m), inf), wrapped_scalar(Scalar(0.0)), m);
      Tensor e = sub(self, m);
      mt::unary_(UnaryOp::exp, e);
      Tensor r = sum(e, dims, true);
      mt::unary_(UnaryOp::log, r);
      r = add(r, m);
      if (!keepdim) {
        DimVector out;
        for (int64_t d = 0; d < self.dim(); ++d)
          if (!mask[static_cast<size_t>(d)]) out.push_back(self.sizes()[d]);
        r = mt::reshape(r, out);
      }
      return r;
    }
  }
  return run_reduce(self, dims, keepdim, ReduceOp::logsumexp, 0, dt, "logsumexp", into);
}

Tensor native::logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim) {
  return logsumexp_impl(self, dims, keepdim, nullptr);
}

Tensor reduce_into(const Tensor& out, ReduceOp op, const Tensor& self, IntArrayRef dims, bool keepdim,
                   double arg) {
  Tensor r;
  switch (op) {
    case ReduceOp::var:
    case ReduceOp::std:
      if (is_complex(self.dtype())) {
        r = op == ReduceOp::var ? native::var(self, dims, arg, keepdim)
                                : native::std(self, dims, arg, keepdim);
        break;
      }
      check_float(self, "std and var only support floating point and complex dtypes", false);
      r = run_reduce(self, dims, keepdim, op, arg, self.dtype(), op == ReduceOp::var ? "var" : "std", &out);
      break;
    case ReduceOp::nansum:
      if (!is_floating(self.dtype()) && !is_complex(self.dtype())) {
        (void)dim_mask(self, dims, true);  // the dims in nansum's order, as native::nansum
        r = sum_impl(self, dims, keepdim, out.dtype(), &out);
      } else if (is_complex(self.dtype())) {
        r = native::nansum(self, dims, keepdim, ScalarType::Undefined);  // its refusal
      } else if (!is_floating(out.dtype()) && self.numel() > 0) {
        // a float input summed into an integer, bool or complex dtype: PyTorch's kernel for that dtype
        // refuses it, after the dims (native::nansum converts NaN to 0 for the plain dtype= call, which
        // PyTorch takes)
        (void)dim_mask(self, dims, true);
        MT_CHECK_NOT_IMPLEMENTED(false, "\"nansum_", self.is_cuda() ? "cuda" : "cpu",
                                 "\" not implemented for '", dtype_short_name(out.dtype()), "'");
      } else if (!is_floating(out.dtype())) {
        r = sum_impl(self, dims, keepdim, out.dtype(), &out);  // no element: no kernel, zeros in any dtype
      } else {
        r = run_reduce(self, dims, keepdim, ReduceOp::nansum, 0, out.dtype(), "nansum", &out);
      }
      break;
    case ReduceOp::sum:
      r = sum_impl(self, dims, keepdim, ScalarType::Undefined, &out);
      break;
    case ReduceOp::mean:
      r = mean_impl(self, dims, keepdim, ScalarType::Undefined, &out);
      break;
    case ReduceOp::prod:
      r = run_reduce(self, dims, keepdim, op, 0, int_to_long(self, ScalarType::Undefined), "prod", &out);
      break;
    case ReduceOp::amax:
    case ReduceOp::amin:
      r = run_reduce(self, dims, keepdim, op, 0, self.dtype(), op == ReduceOp::amax ? "amax" : "amin", &out);
      break;
    case ReduceOp::logsumexp:
      r = logsumexp_impl(self, dims, keepdim, &out);
      break;
    default:
      MT_INTERNAL_ASSERT(false, "reduce_into: no out= writer for this reduction");
  }
  if (r.is_same(out)) wrote(out);
  return r;
}

Tensor native::max(const Tensor& self) {
  MT_CHECK(self.numel() > 0,
           "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  MT_CHECK_NOT_IMPLEMENTED(!is_complex(self.dtype()), "\"max_all\" not implemented for '",
                           dtype_short_name(self.dtype()), "'");
  return mt::amax(self, {}, false);
}

Tensor native::min(const Tensor& self) {
  MT_CHECK(self.numel() > 0,
           "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  MT_CHECK_NOT_IMPLEMENTED(!is_complex(self.dtype()), "\"min_all\" not implemented for '",
                           dtype_short_name(self.dtype()), "'");
  return mt::amin(self, {}, false);
}

namespace {

// max/min/argmax/argmin along one dim (dim None for arg*: the flattened tensor).
std::tuple<Tensor, Tensor> arg_reduce(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                                      bool is_max, bool want_values, const char* name) {
  MT_CHECK_NOT_IMPLEMENTED(self.dtype() != ScalarType::Bool || want_values, name,
                           "(): does not support bool input");
  // PyTorch's argmax/argmin refuse complex first; max/min along a dim after the dim's range and size
  MT_CHECK_TYPE(want_values || !is_complex(self.dtype()), name, "(): does not support complex input");
  SmallVector<bool, 8> mask;
  if (dim) {
    DimVector d{*dim};
    mask = dim_mask(self, d);
    check_nonempty(self, mask, name);
    MT_CHECK_TYPE(!is_complex(self.dtype()), name, "(): does not support complex input");
  } else {
    // an IndexError in PyTorch (its argmax/argmin check)
    MT_CHECK_INDEX(self.numel() > 0, name,
                   "(): Expected reduction dim to be specified for input.numel() == 0.");
    mask = dim_mask(self, {});
  }
  // dim=None with keepdim gives all-ones dims, as PyTorch does
  DimVector shape = reduced_shape(self, mask, keepdim);
  Tensor values = want_values ? make_empty(shape, self.dtype(), self.device()) : Tensor();
  Tensor indices = make_empty(shape, ScalarType::Long, self.device());
  if (indices.numel() == 0) return {values, indices};
  // walked in place along the dim (no transposing copy); dim=None: the row-major flattening
  Tensor c = contiguous(self);
  auto [row, inner] =
      dim ? row_inner(c, wrap_dim(*dim, self.dim())) : std::pair<int64_t, int64_t>(c.numel(), 1);
  arg_reduce_stub.get(self.device())(values, indices, c, row, inner, is_max);
  return {values, indices};
}

Tensor run_scan(const Tensor& self, int64_t dim, ScalarType dtype, ScanOp op) {
  int64_t d = wrap_dim(dim, self.dim());
  ScalarType dt = int_to_long(self, dtype);
  Tensor in = to(self, dt, self.device());
  if (self.numel() == 0) return make_empty(self.sizes(), dt, self.device());
  if (self.dim() == 0) {  // PyTorch fills a 0-dim result with self: no kernel, any dtype (bool too)
    Tensor out = make_empty({}, dt, self.device());
    native::copy_(out, in, false);
    return out;
  }
  // a bool result has no kernel in PyTorch (a bool input without dtype= sums in int64 above)
  MT_CHECK_NOT_IMPLEMENTED(dt != ScalarType::Bool, "\"", op == ScanOp::cumsum ? "cumsum" : "cumprod",
                           self.is_cuda() ? "_cuda" : "_out_cpu", "\" not implemented for 'Bool'");
  Tensor c = contiguous(in);
  Tensor out = make_empty(self.sizes(), dt, self.device());
  auto [row, inner] = row_inner(c, d);
  scan_stub.get(self.device())(out, c, row, inner, op);
  return out;
}

Tensor run_softmax(const Tensor& self, int64_t dim, ScalarType dtype, bool log) {
  int64_t d = wrap_dim(dim, self.dim());
  ScalarType dt = dtype == ScalarType::Undefined ? self.dtype() : dtype;
  if (self.numel() == 0) return make_empty(self.sizes(), dt, self.device());  // no kernel runs, any dtype
  // PyTorch's CPU kernel names: the last dim (or a 0-d tensor) has its own
  MT_CHECK_NOT_IMPLEMENTED(is_floating(dt), "\"", log ? "log_softmax" : "softmax",
                           d == std::max<int64_t>(self.dim(), 1) - 1 ? "_lastdim" : "",
                           "_kernel_impl\" not implemented for '", dtype_short_name(dt), "'");
  Tensor in = to(self, dt, self.device());
  Tensor c = contiguous(in);
  Tensor out = make_empty(self.sizes(), dt, self.device());
  auto [row, inner] = row_inner(c, d);
  softmax_stub.get(self.device())(out, c, row, inner, log);
  return out;
}

}  // namespace

std::tuple<Tensor, Tensor> native::max(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_reduce(self, dim, keepdim, true, true, "max");
}

std::tuple<Tensor, Tensor> native::min(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_reduce(self, dim, keepdim, false, true, "min");
}

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return std::get<1>(arg_reduce(self, dim, keepdim, true, false, "argmax"));
}

Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return std::get<1>(arg_reduce(self, dim, keepdim, false, false, "argmin"));
}

Tensor native::cumsum(const Tensor& self, int64_t dim, ScalarType dtype) {
  return run_scan(self, dim, dtype, ScanOp::cumsum);
}

Tensor native::cumprod(const Tensor& self, int64_t dim, ScalarType dtype) {
  return run_scan(self, dim, dtype, ScanOp::cumprod);
}

Tensor native::logcumsumexp(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  MT_CHECK_NOT_IMPLEMENTED(
      self.device().is_cpu() && (self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double),
      "logcumsumexp's kernel takes float32 and float64 CPU tensors");
  Tensor out = make_empty(self.sizes(), self.dtype(), self.device());
  if (self.numel() == 0) return out;
  if (self.dim() == 0) {  // PyTorch's: the value itself
    native::copy_(out, self, false);
    return out;
  }
  Tensor c = contiguous(self);
  auto [row, inner] = row_inner(c, d);
  scan_stub.get(self.device())(out, c, row, inner, ScanOp::logcumsumexp);
  return out;
}

std::tuple<Tensor, Tensor> cum_extreme(const Tensor& self, int64_t dim, bool is_max) {
  const char* name = is_max ? "cummax" : "cummin";
  int64_t d = wrap_dim(dim, self.dim());
  MT_CHECK_NOT_IMPLEMENTED(!is_complex(self.dtype()), "\"", name, self.is_cuda() ? "_cuda" : "_cpu",
                           "\" not implemented for '", dtype_short_name(self.dtype()), "'");
  Tensor values = make_empty(self.sizes(), self.dtype(), self.device());
  Tensor indices = make_empty(self.sizes(), ScalarType::Long, self.device());
  if (self.numel() == 0) return {values, indices};
  Tensor c = contiguous(self);
  auto [row, inner] = row_inner(c, d);
  cum_extreme_stub.get(self.device())(values, indices, c, row, inner, is_max);
  return {values, indices};
}

Tensor native::softmax(const Tensor& self, int64_t dim, ScalarType dtype) {
  return run_softmax(self, dim, dtype, false);
}

Tensor native::log_softmax(const Tensor& self, int64_t dim, ScalarType dtype) {
  return run_softmax(self, dim, dtype, true);
}

}  // namespace mt
