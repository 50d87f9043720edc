// Front ends of the sort family and the triangle ops: every selection op (topk, kthvalue, median, mode) is
// a stable sort along the dim followed by a pick, so one kernel per device serves them all; kthvalue and
// median use a device's selection kernel instead where it has one (the CPU). Values are
// differentiable through a gather of the input at the chosen indices (gradient scatters back, as PyTorch).
#include "ops/sort.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/FreshWrites.h"
#include "core/GradMode.h"
#include "core/NumberText.h"
#include "generated/native.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/index.h"
#include "ops/out.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace mt {

namespace {

const char* dev_suffix(const Tensor& t) {
  return t.is_cuda() ? "_cuda" : "_cpu";
}

// PyTorch's kernels for these take no bool ("kthvalue_cpu" not implemented for 'Bool').
void check_not_bool(const Tensor& self, const char* name, bool suffix = true) {
  MT_CHECK_NOT_IMPLEMENTED(self.dtype() != ScalarType::Bool, "\"", name, suffix ? dev_suffix(self) : "",
                           "\" not implemented for 'Bool'");
}

// `self` with `d` moved last, contiguous: the rows x n layout the kernels take.
Tensor as_rows(const Tensor& self, int64_t d) {
  int64_t last = self.dim() - 1;
  return contiguous(d == last ? self : movedim(self, d, last));
}

// The first k of each sorted row of `rows` (rows x n layout), still in that layout.
std::tuple<Tensor, Tensor> sort_rows(const Tensor& rows, int64_t k, bool descending, bool sorted = true) {
  DimVector shape(rows.sizes().begin(), rows.sizes().end());
  int64_t n = shape.back();
  shape.back() = k;
  Tensor values = make_empty(shape, rows.dtype(), rows.device());
  Tensor indices = make_empty(shape, ScalarType::Long, rows.device());
  if (values.numel() > 0) sort_stub.get(rows.device())(values, indices, rows, n, k, descending, sorted);
  return {values, indices};
}

// Back from the rows layout to self's dim order (contiguous, as PyTorch allocates its outputs).
Tensor from_rows(const Tensor& t, int64_t d) {
  int64_t last = t.dim() - 1;
  return d == last ? t : contiguous(movedim(t, last, d));
}

// Sorted (first k) along dim d of self, in self's dim order, computed without recording.
std::tuple<Tensor, Tensor> sort_along(const Tensor& self, int64_t d, int64_t k, bool descending,
                                      bool sorted = true) {
  NoGradGuard ng;
  auto [v, i] = sort_rows(as_rows(self, d), k, descending, sorted);
  return {from_rows(v, d), from_rows(i, d)};
}

// The values at `indices` along d, recorded when self requires grad (otherwise the kernel's values stand).
Tensor differentiable_values(const Tensor& self, int64_t d, const Tensor& values, const Tensor& indices) {
  if (!needs_grad(self)) return values;
  return gather(self, d, indices);
}

std::tuple<Tensor, Tensor> finish(const Tensor& self, int64_t d, Tensor values, Tensor indices,
                                  bool keepdim) {
  values = differentiable_values(self, d, values, indices);
  if (!keepdim && self.dim() > 0) {
    DimVector dims{d};
    return {squeeze(values, dims), squeeze(indices, dims)};
  }
  return {values, indices};
}

std::tuple<Tensor, Tensor> scalar_result(const Tensor& self) {
  return {clone(self), zeros({}, ScalarType::Long, self.device())};
}

// The selection kernel's pick along d (k < 0: the median), or nothing when the device has no such kernel.
std::optional<std::tuple<Tensor, Tensor>> select_along(const Tensor& self, int64_t d, int64_t k) {
  SelectKernelFn fn = select_stub.fns[static_cast<int>(self.device().type)];
  if (!fn) return std::nullopt;
  NoGradGuard ng;
  Tensor rows = as_rows(self, d);
  DimVector shape(rows.sizes().begin(), rows.sizes().end());
  int64_t n = shape.back();
  shape.back() = 1;
  Tensor values = make_empty(shape, rows.dtype(), rows.device());
  Tensor indices = make_empty(shape, ScalarType::Long, rows.device());
  if (values.numel() > 0) fn(values, indices, rows, n, k);
  return std::make_tuple(from_rows(values, d), from_rows(indices, d));
}

void check_nonempty_dim(const Tensor& self, int64_t d, const char* name) {
  MT_CHECK_INDEX(self.dim() == 0 || self.sizes()[d] > 0, name, "(): Expected reduction dim ", d,
                 " to have non-zero size.");
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  if (self.dim() == 0) return scalar_result(self);
  auto [v, i] = sort_along(self, d, self.sizes()[d], descending);
  return {differentiable_values(self, d, v, i), i};
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  if (self.dim() == 0) return zeros({}, ScalarType::Long, self.device());
  return std::get<1>(sort_along(self, d, self.sizes()[d], descending));
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  MT_CHECK(k >= 0 && k <= (self.dim() > 0 ? self.sizes()[d] : 1), "selected index k out of range");
  MT_CHECK_NOT_IMPLEMENTED(self.dtype() != ScalarType::Bool, "topk does not support bool dtypes on ",
                           self.is_cuda() ? "CUDA" : "CPU");
  // a 0-dim self gives itself for k = 0 as for k = 1 (PyTorch's kernel does not look at k there)
  if (self.dim() == 0) return scalar_result(self);
  // sorted=False leaves the order unspecified: the CPU kernel skips sorting the k it selected
  auto [v, i] = sort_along(self, d, k, largest, sorted);
  return {differentiable_values(self, d, v, i), i};
}

bool topk_into(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t k, int64_t dim,
               bool largest, bool sorted) {
  if (!self.device().is_cpu() || self.dim() == 0 || self.dtype() == ScalarType::Bool) return false;
  const int64_t last = self.dim() - 1;
  if (dim < -self.dim() || dim > last || (dim < 0 ? dim + self.dim() : dim) != last) return false;
  const int64_t n = self.sizes()[last];
  if (k < 0 || k > n) return false;
  DimVector shape(self.sizes().begin(), self.sizes().end());
  shape.back() = k;
  if (!out_takes(values, shape, self.dtype(), self.device(), false, {&self}) ||
      !out_takes(indices, shape, ScalarType::Long, self.device(), false, {&self, &values}))
    return false;
  sort_stub.get(self.device())(values, indices, contiguous(self), n, k, largest, sorted);
  wrote(values);
  wrote(indices);
  return true;
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  int64_t n = self.dim() > 0 ? self.sizes()[d] : 1;
  check_nonempty_dim(self, d, "kthvalue");
  MT_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", d);
  check_not_bool(self, "kthvalue");
  if (self.dim() == 0) return scalar_result(self);
  if (auto r = select_along(self, d, k - 1))
    return finish(self, d, std::get<0>(*r), std::get<1>(*r), keepdim);
  auto [v, i] = sort_along(self, d, k, false);
  return finish(self, d, narrow(v, d, k - 1, 1), narrow(i, d, k - 1, 1), keepdim);
}

std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  check_nonempty_dim(self, d, "median");  // before the kernel's dtype dispatch, as PyTorch's
  check_not_bool(self, "median_out", false);
  if (self.dim() == 0) return scalar_result(self);
  if (auto r = select_along(self, d, -1)) return finish(self, d, std::get<0>(*r), std::get<1>(*r), keepdim);
  int64_t n = self.sizes()[d];
  Tensor values, indices;
  {
    NoGradGuard ng;
    auto [v, i] = sort_along(self, d, n, false);
    // NaN sorts last, so a row's first NaN (in input order: the sort is stable) sits at n - nan_count
    Tensor pos = full({}, Scalar((n - 1) / 2), ScalarType::Long, self.device());
    if (is_floating(self.dtype())) {
      DimVector dims{d};
      Tensor nans = sum(isnan(self), dims, true, ScalarType::Long);
      pos = where(gt(nans, wrapped_scalar(int64_t(0))),
                  sub(wrapped_scalar(Scalar(n)), nans, Scalar(int64_t(1))), pos);
    } else {
      DimVector shape(self.sizes().begin(), self.sizes().end());
      shape[d] = 1;
      pos = expand(pos, shape);
    }
    values = gather(v, d, pos);
    indices = gather(i, d, pos);
  }
  return finish(self, d, values, indices, keepdim);
}

// PyTorch answers an empty input (its NaN in the input's dtype) before the kernel's dtype dispatch
Tensor median(const Tensor& self) {
  if (self.numel() != 0) check_not_bool(self, "median");
  return mt::median_all(self, false);
}

Tensor nanmedian(const Tensor& self) {
  if (self.numel() != 0) check_not_bool(self, "median");
  return mt::median_all(self, true);
}

Tensor native::median_all(const Tensor& self, bool ignore_nan) {
  if (self.numel() == 0) {
    // NaN, still a function of the input as PyTorch's (its gradient is the empty tensor); integer types get
    // PyTorch's NaN cast on x86: the lowest int64/int32, 0 when narrower; bool true (NaN is not zero)
    if (is_inexact(self.dtype()))
      return mt::add(mt::sum(self, {}, false), wrapped_scalar(Scalar(std::nan(""))));
    if (self.dtype() == ScalarType::Bool) return mt::full({}, Scalar(true), self.dtype(), self.device());
    const int64_t fill = self.dtype() == ScalarType::Long  ? std::numeric_limits<int64_t>::min()
                         : self.dtype() == ScalarType::Int ? std::numeric_limits<int32_t>::min()
                                                           : 0;
    return mt::full({}, Scalar(fill), self.dtype(), self.device());
  }
  SelectKernelFn fn = select_stub.fns[static_cast<int>(self.device().type)];
  if (fn) {
    // the value alone: the kernel partitions a copy of plain values, as PyTorch's median_impl (half the bytes
    // of the (value, index) pairs a pick along a dim moves)
    Tensor values = make_empty({}, self.dtype(), self.device());
    fn(values, Tensor(), mt::contiguous(mt::reshape(self, {-1})), self.numel(), ignore_nan ? -2 : -1);
    return values;
  }
  if (!ignore_nan) return std::get<0>(mt::median(mt::reshape(self, {-1}), 0, false));
  // nanmedian: NaN sorts last, so the lower median of the k non-NaN values sits at (k - 1) / 2
  Tensor flat = mt::reshape(self, {-1});
  Tensor sorted = std::get<0>(mt::sort(flat, 0, false));
  Tensor k = is_floating(self.dtype())
                 ? mt::sum(mt::logical_not(mt::isnan(flat)), {}, false, ScalarType::Long)
                 : mt::full({}, Scalar(self.numel()), ScalarType::Long, self.device());
  Tensor pos =
      mt::maximum(mt::floor_divide(mt::sub(k, wrapped_scalar(Scalar(int64_t(1))), Scalar(int64_t(1))),
                                   wrapped_scalar(Scalar(int64_t(2)))),
                  wrapped_scalar(Scalar(int64_t(0))));
  return mt::reshape(mt::gather(sorted, 0, mt::reshape(pos, {1})), {});
}

std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  check_nonempty_dim(self, d, "mode");
  if (self.dim() == 0) return scalar_result(self);
  Tensor values, indices;
  {
    NoGradGuard ng;
    Tensor rows = as_rows(self, d);
    int64_t n = rows.sizes().back();
    DimVector shape(rows.sizes().begin(), rows.sizes().end());
    shape.back() = 1;
    values = make_empty(shape, self.dtype(), self.device());
    indices = make_empty(shape, ScalarType::Long, self.device());
    if (values.numel() > 0) {
      if (self.device().is_cpu()) {  // the CPU's kernel sorts for itself (ops/sort.h)
        mode_stub.get(self.device())(values, indices, rows, Tensor(), n);
      } else {
        auto [sv, si] = sort_rows(rows, n, false);
        mode_stub.get(self.device())(values, indices, sv, si, n);
      }
    }
    values = from_rows(values, d);
    indices = from_rows(indices, d);
  }
  return finish(self, d, values, indices, keepdim);
}

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement) {
  MT_CHECK(self.dim() > 0 && self.dim() <= 2, "prob_dist must be 1 or 2 dim");
  MT_CHECK(is_floating(self.dtype()), "multinomial only supports floating-point dtypes for input, got: ",
           dtype_short_name(self.dtype()));
  MT_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  int64_t n = self.sizes().back();
  MT_CHECK(replacement || num_samples <= n,
           "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  MT_CHECK(n <= (int64_t(1) << 24), "number of categories cannot exceed 2^24");
  // PyTorch's value check (an aminmax over the categories) fails first on an empty category dim
  MT_CHECK(n > 0 || (self.dim() == 2 && self.sizes()[0] == 0),
           "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  NoGradGuard ng;
  // Validity needs the values, so this waits for a GPU (PyTorch asserts on the device instead).
  Tensor p = self.dim() == 1 ? unsqueeze(self, 0) : self;
  if (p.dtype() == ScalarType::Half || p.dtype() == ScalarType::BFloat16)
    p = to(p, ScalarType::Float, p.device());
  int64_t rows = p.sizes()[0];
  DimVector out_shape{rows, num_samples};
  Tensor out;
  if (rows == 0 || self.is_meta()) {  // (meta: the draw's shape; its checks read the weights)
    out = empty(out_shape, ScalarType::Long, self.device());
  } else if (!replacement || num_samples == 1) {
    // PyTorch's draw: argmax / top-k of p / q with q ~ Exp(1) (Gumbel-max, exponentiated): a draw without
    // replacement whose successive picks follow the renormalized weights.
    bool ok = item(all(logical_and(lt(amax(p, {}, false), wrapped_scalar(INFINITY)),
                                   ge(amin(p, {}, false), wrapped_scalar(0.0)))))
                  .to_bool();
    MT_CHECK(ok, "probability tensor contains either `inf`, `nan` or element < 0");
    DimVector last{1};
    bool zero_row = item(any(eq(sum(p, last, false), wrapped_scalar(0.0)))).to_bool();
    MT_CHECK(!zero_row, "invalid multinomial distribution (sum of probabilities <= 0)");
    Tensor q = neg(log1p(neg(rand(p.sizes(), p.dtype(), p.device()))));
    out = std::get<1>(topk(div(p, q), num_samples, 1, true, true));
  } else {
    // !(p >= 0): NaN counts as negative here, as in PyTorch's check
    bool neg_entry = item(any(logical_not(ge(p, wrapped_scalar(0.0))))).to_bool();
    MT_CHECK(!neg_entry, "invalid multinomial distribution (encountering probability entry < 0)");
    bool finite = item(all(isfinite(p))).to_bool();
    MT_CHECK(finite, "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
    Tensor cdf = cumsum(p, 1);
    Tensor total = narrow(cdf, 1, n - 1, 1);
    bool positive = item(all(gt(total, wrapped_scalar(0.0)))).to_bool();
    MT_CHECK(positive, "invalid multinomial distribution (sum of probabilities <= 0)");
    // normalized so the last entry is exactly 1 (x / x); u in (0, 1], so the count of cdf entries below u
    // is the drawn category and a zero-weight category (cdf equal to its predecessor's) is never drawn
    cdf = div(cdf, total);
    Tensor u = sub(wrapped_scalar(Scalar(1.0)), rand(out_shape, p.dtype(), p.device()), Scalar(int64_t(1)));
    // rows x samples x categories comparisons, in chunks of samples to bound the temporary
    int64_t chunk = std::max<int64_t>(1, (int64_t(1) << 24) / std::max<int64_t>(rows * n, 1));
    std::vector<Tensor> parts;
    Tensor c3 = unsqueeze(cdf, 1);
    DimVector last{2};
    for (int64_t s = 0; s < num_samples; s += chunk) {
      Tensor us = unsqueeze(narrow(u, 1, s, std::min(chunk, num_samples - s)), 2);
      parts.push_back(sum(lt(c3, us), last, false, ScalarType::Long));
    }
    out = parts.size() == 1 ? parts[0] : cat(parts, 1);
    out = clamp(out, std::nullopt, wrapped_scalar(n - 1));
  }
  return self.dim() == 1 ? squeeze(out, {0}) : out;
}

namespace {

// tril/triu of the last two dims: one kernel per device (triangle_stub), which copies the kept part of each
// row and zeroes the rest (it was a masked_fill with an r x c mask built by comparisons, ~2x slower).
void check_triangle(const Tensor& self, bool lower) {
  MT_CHECK(self.dim() >= 2, lower ? "tril" : "triu", ": input tensor must have at least 2 dimensions");
}

Tensor triangle(const Tensor& self, int64_t diagonal, bool lower) {
  check_triangle(self, lower);
  // contiguous whatever self's layout, as PyTorch's result
  Tensor out = make_empty(self.sizes(), self.dtype(), self.device());
  if (out.numel() > 0) triangle_stub.get(self.device())(out, self, diagonal, lower);
  return out;
}

}  // namespace

// the CPU kernel takes out's strides (it walks them as tril_'s self); other devices write a fresh tensor
bool triangle_into(const Tensor& out, const Tensor& self, int64_t diagonal, bool lower) {
  check_triangle(self, lower);
  if (!self.device().is_cpu() || !out_takes(out, self.sizes(), self.dtype(), self.device(), true, {&self}))
    return false;
  triangle_stub.get(self.device())(out, self, diagonal, lower);
  wrote(out);
  return true;
}

namespace {

const Tensor& triangle_(const Tensor& self, int64_t diagonal, bool lower) {
  check_triangle(self, lower);
  check_writable(self);
  if (self.numel() > 0) triangle_stub.get(self.device())(self, self, diagonal, lower);
  wrote(self);
  return self;
}

Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, ScalarType dtype, Device device,
                        bool lower) {
  MT_CHECK(row >= 0, "row must be non-negative, got", row);
  MT_CHECK(col >= 0, "col must be non-negative, got", col);
  MT_CHECK_NOT_IMPLEMENTED(dtype == ScalarType::Undefined || is_integral(dtype, false), "\"",
                           lower ? "tril" : "triu", "_indices\" not implemented for '",
                           dtype_short_name(dtype), "'");
  // lower: row i keeps columns [0, min(col, i + offset + 1)); upper: [max(0, i + offset), col). Counted
  // first and written in place (growing two vectors cost 10x PyTorch's time at 256 x 256).
  // a diagonal beyond the matrix clamped first, so i + k cannot overflow
  const int64_t k = std::clamp<int64_t>(offset, -row - 1, col + 1);
  auto span = [&](int64_t i) {
    const int64_t lo = lower ? 0 : std::clamp<int64_t>(i + k, 0, col);
    const int64_t hi = lower ? std::clamp<int64_t>(i + k + 1, 0, col) : col;
    return std::pair<int64_t, int64_t>(lo, std::max(lo, hi));
  };
  int64_t n = 0;
  for (int64_t i = 0; i < row; ++i) n += span(i).second - span(i).first;
  Tensor out = make_empty({2, n}, ScalarType::Long, Device());
  int64_t* rp = out.data<int64_t>();
  int64_t* cp = rp + n;
  for (int64_t i = 0; i < row; ++i) {
    const auto [lo, hi] = span(i);
    for (int64_t j = lo; j < hi; ++j) {
      *rp++ = i;
      *cp++ = j;
    }
  }
  return to(out, dtype == ScalarType::Undefined ? ScalarType::Long : dtype, device);
}

}  // namespace

Tensor native::tril(const Tensor& self, int64_t diagonal) {
  return triangle(self, diagonal, true);
}

Tensor native::triu(const Tensor& self, int64_t diagonal) {
  return triangle(self, diagonal, false);
}

const Tensor& native::tril_(const Tensor& self, int64_t diagonal) {
  return triangle_(self, diagonal, true);
}

const Tensor& native::triu_(const Tensor& self, int64_t diagonal) {
  return triangle_(self, diagonal, false);
}

// searchsorted's kernel: one binary search per value (it was a compare-and-sum, a gather per halving or a
// merge by sort, all in ops: 5-40x PyTorch's time on [8, 8] and [256, 256] rows).
Tensor searchsorted_sorted(const Tensor& sorted_sequence, const Tensor& values, bool right) {
  const Tensor& seq = sorted_sequence;
  MT_CHECK(seq.dim() >= 1 && values.dim() >= 1, "_searchsorted: sorted_sequence and values need a dim");
  bool lead = seq.dim() == 1 || seq.dim() == values.dim();
  for (int64_t d = 0; lead && seq.dim() > 1 && d < seq.dim() - 1; ++d)
    lead = seq.sizes()[d] == values.sizes()[d];
  MT_CHECK(lead, "_searchsorted: sorted_sequence must be 1-d or have values' leading dims, got ",
           shape_str(seq.sizes()), " and ", shape_str(values.sizes()));
  MT_CHECK(seq.dtype() == values.dtype(), "_searchsorted: sorted_sequence and values must share a dtype");
  MT_CHECK(seq.device().is_cpu() && values.device().is_cpu(), "_searchsorted: the kernel is the CPU's");
  MT_CHECK_NOT_IMPLEMENTED(seq.dtype() != ScalarType::Bool && !is_complex(seq.dtype()),
                           "\"searchsorted_out_cpu\" not implemented for '", dtype_short_name(seq.dtype()),
                           "'");
  Tensor out = make_empty(values.sizes(), ScalarType::Long, values.device());
  if (out.numel() == 0) return out;
  if (seq.sizes()[seq.dim() - 1] == 0) {
    FreshWrites fresh;
    fill_(out, Scalar(int64_t{0}));
    return out;
  }
  searchsorted_stub.get(seq.device())(out, contiguous(seq), contiguous(values), right);
  return out;
}

// ---- histogram: one pass over the values (kernels/cpu/sort.cpp's histogram_cpu), where the Python
// composites ran ~25 tensor calls (compare, interpolate, mask, scatter_add): 0.14-0.33 of PyTorch's speed on
// an 8x8 input.

namespace {

void check_hist_input(const Tensor& self, const char* name) {
  MT_CHECK(self.device().is_cpu(), name, ": the kernel is the CPU's");
  MT_CHECK_NOT_IMPLEMENTED(is_floating(self.dtype()), "\"", name, "\" not implemented for '",
                           dtype_short_name(self.dtype()), "'");
}

// the counts of the flattened self (the kernel reads its values in order) into a fresh hist
Tensor hist_count(const Tensor& self, int64_t bins, const std::optional<Tensor>& weight, const Tensor& edges,
                  double lo, double hi, HistMode mode) {
  Tensor hist = make_empty({bins}, self.dtype(), self.device());
  const Tensor x = contiguous(self);
  const Tensor w = weight ? contiguous(*weight) : Tensor();
  histogram_stub.get(self.device())(hist, x, w, edges, lo, hi, mode);
  return hist;
}

// torch.histogram's density: the counts over their total, over each bin's width (0 / 0 is NaN, as PyTorch's)
Tensor hist_density(const Tensor& hist, const Tensor& edges) {
  const int64_t bins = hist.numel();
  const Tensor widths = mt::sub(narrow(edges, 0, 1, bins), narrow(edges, 0, 0, bins));
  return mt::div(mt::div(hist, mt::sum(hist, {}, false)), widths);
}

}  // namespace

Tensor histc_counts(const Tensor& self, int64_t bins, double lo, double hi) {
  MT_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  check_hist_input(self, "histogram_cpu");
  if (lo == hi && self.numel()) {
    lo = item(amin(self, {}, false)).to_double();
    hi = item(amax(self, {}, false)).to_double();
  }
  // PyTorch's histc_select_outer_bin_edges: one point widens each side, by 1 or, for float and double, by
  // one step of the dtype where that is more (1 is lost on -1e30), then the checks
  if (lo == hi) {
    auto widen = [&](auto zero) {
      using T = decltype(zero);
      lo = std::min(static_cast<double>(std::nextafter(static_cast<T>(lo), std::numeric_limits<T>::lowest())),
                    lo - 1.);
      hi = std::max(static_cast<double>(std::nextafter(static_cast<T>(hi), std::numeric_limits<T>::max())),
                    hi + 1.);
    };
    if (self.dtype() == ScalarType::Float)
      widen(0.0f);
    else if (self.dtype() == ScalarType::Double)
      widen(0.0);
    else {
      lo -= 1;
      hi += 1;
    }
  }
  MT_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", g_str(lo), ", ", g_str(hi),
           "] is not finite");
  MT_CHECK(lo < hi, "torch.histc: max must be larger than min");
  return hist_count(self, bins, std::nullopt, Tensor(), lo, hi, HistMode::linear);
}

std::tuple<Tensor, Tensor> histogram_bin_ct(const Tensor& self, int64_t bins,
                                            const std::optional<std::vector<double>>& range,
                                            const std::optional<Tensor>& weight, bool density) {
  MT_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  check_hist_input(self, "histogramdd");
  double lo = 0, hi = 1;
  if (range) {
    MT_CHECK(range->size() == 2,
             "torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but got ",
             range->size());
    lo = (*range)[0];
    hi = (*range)[1];
  } else if (self.numel()) {
    // PyTorch's min/max kernel there lacks the half types
    MT_CHECK_NOT_IMPLEMENTED(self.dtype() != ScalarType::Half && self.dtype() != ScalarType::BFloat16,
                             "\"histogramdd\" not implemented for '", dtype_short_name(self.dtype()), "'");
    lo = item(amin(self, {}, false)).to_double();
    hi = item(amax(self, {}, false)).to_double();
  }
  MT_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histogramdd: dimension 0's range [", g_str(lo),
           ", ", g_str(hi), "] is not finite");
  MT_CHECK(!(lo > hi), "torch.histogramdd: min should not exceed max, but got min ", g_str(lo), " max ",
           g_str(hi), " for dimension 0");
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  Tensor edges = linspace(lo, hi, bins + 1, self.dtype(), self.device());
  Tensor hist = hist_count(self, bins, weight, edges, lo, hi, HistMode::linear_search);
  return {density ? hist_density(hist, edges) : hist, edges};
}

Tensor histogram_bin_edges(const Tensor& self, const Tensor& edges, const std::optional<Tensor>& weight,
                           bool density) {
  check_hist_input(self, "histogramdd");
  MT_CHECK(edges.dim() == 1 && edges.numel() >= 2 && edges.dtype() == self.dtype() && edges.device().is_cpu(),
           "_histogram_bin_edges: edges must be 1-d, of self's dtype, with 2 or more elements");
  const Tensor e = contiguous(edges);
  Tensor hist = hist_count(self, e.numel() - 1, weight, e, 0, 0, HistMode::search);
  return density ? hist_density(hist, e) : hist;
}

// One call where the composite's reshape, two narrows, ne, cat and masked_select were six (a small 2-D input
// ran at 0.82 of PyTorch's one C++ call): a counting pass, then the copy.
Tensor unique_consecutive_values(const Tensor& self) {
  MT_CHECK(self.device().is_cpu(), "_unique_consecutive_values: the kernel is the CPU's");
  const Tensor flat = contiguous(self);
  if (flat.numel() == 0) return make_empty({0}, self.dtype(), self.device());
  const int64_t k = unique_consecutive_stub.get(DeviceType::CPU)(Tensor(), flat);
  Tensor out = make_empty({k}, self.dtype(), self.device());
  unique_consecutive_stub.get(DeviceType::CPU)(out, flat);
  return out;
}

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, ScalarType dtype, Device device) {
  return triangle_indices(row, col, offset, dtype, device, true);
}

Tensor triu_indices(int64_t row, int64_t col, int64_t offset, ScalarType dtype, Device device) {
  return triangle_indices(row, col, offset, dtype, device, false);
}

}  // namespace mt
