// Output layouts: PyTorch's TensorIterator stride rule, preserve_format and suggest_memory_format.
#include "ops/layout.h"

#include <algorithm>
#include <array>
#include <numeric>

#include "ops/copy.h"

namespace mt {

bool non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  const int64_t n = t.dim();
  if (n == 1) return t.size(0) < 2 || t.stride(0) == 1;
  // PyTorch's order: dims of size < 2 last (they constrain nothing), the others by stride
  DimVector perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (t.size(a) < 2) return false;
    if (t.size(b) < 2) return true;
    return t.stride(a) < t.stride(b);
  });
  int64_t expected = 1;
  for (int64_t d : perm) {
    if (t.size(d) < 2) return true;
    if (t.stride(d) != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

DimVector channels_last_strides(IntArrayRef sizes) {
  // C fastest, then the spatial dims from the last, then N
  const size_t n = sizes.size();
  DimVector st(n, 1);
  int64_t acc = sizes[1];
  for (size_t d = n - 1; d >= 2; --d) {
    st[d] = acc;
    acc *= sizes[d];
  }
  st[0] = acc;
  return st;
}

namespace {

// PyTorch's is_channels_last_strides_2d_s4 / _3d_s5: the strides grow in the order C, W, H, (D,) N, with
// the ambiguous N111 and 1C1W cases taken as contiguous.
bool strides_like_channels_last(const Tensor& t) {
  const int64_t n = t.dim();
  if (n != 4 && n != 5) return false;
  if (t.stride(1) == 0) return false;
  static const int64_t k4[] = {1, 3, 2, 0}, k5[] = {1, 4, 3, 2, 0};
  const int64_t* order = n == 4 ? k4 : k5;
  int64_t min = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = order[i];
    if (t.size(d) == 0 || t.stride(d) < min) return false;
    if (d == 0 && min == t.stride(1)) return false;
    min = t.stride(d);
    if (t.size(d) > 1) min *= t.size(d);
  }
  return true;
}

// PyTorch's channels-last contiguity (size-1 dims skipped): the fast case of TensorIterator's rule.
bool channels_last_contiguous(const Tensor& t) {
  const int64_t n = t.dim();
  if (n != 4 && n != 5) return false;
  int64_t expected = 1;
  auto ok = [&](int64_t d) {
    if (t.size(d) == 1) return true;
    if (t.stride(d) != expected) return false;
    expected *= t.size(d);
    return true;
  };
  if (!ok(1)) return false;
  for (int64_t d = n - 1; d >= 2; --d)
    if (!ok(d)) return false;
  return ok(0);
}

}  // namespace

DimVector preserved_strides(const Tensor& t) {
  if (t.is_contiguous()) return {};
  if (non_overlapping_and_dense(t)) return t.strides();
  // PyTorch's infer_dense_strides: dense strides in t's stride order, the order TensorIterator would pick
  return iter_output_strides(t.sizes(), {&t});
}

DimVector iter_output_strides(IntArrayRef shape, std::initializer_list<const Tensor*> inputs) {
  const int64_t n = static_cast<int64_t>(shape.size());
  if (n <= 1) return {};
  // Contiguous inputs, broadcast or not (x + 1, x + bias), make a contiguous output: the order below would
  // keep every dim in place. Then the fast setups, for inputs that all have the output's shape.
  bool contiguous = true;
  for (const Tensor* t : inputs) contiguous = contiguous && (!t->defined() || t->is_contiguous());
  if (contiguous) return {};
  bool same_shape = true;
  for (const Tensor* t : inputs) same_shape = same_shape && (!t->defined() || shape.equals(t->sizes()));
  if (same_shape) {
    bool cl = true, dense = true;
    const Tensor* first = nullptr;
    for (const Tensor* t : inputs) {
      if (!t->defined()) continue;
      cl = cl && channels_last_contiguous(*t);
      dense = dense && non_overlapping_and_dense(*t);
      if (!first)
        first = t;
      else if (dense)
        dense = first->strides() == t->strides();
    }
    if (cl) return channels_last_strides(shape);
    if (dense) return first->strides();
  }
  // TensorIterator's reorder_dimensions: perm[0] is the fastest dim; each input's strides as broadcast to
  // `shape` (0 where broadcast, a size-1 dim keeps its own), compared input by input, skipping any input
  // broadcast in either dim; equal strides put the smaller dim first.
  std::array<DimVector, 4> st;
  size_t nst = 0;
  for (const Tensor* t : inputs) {
    if (!t->defined()) continue;
    MT_INTERNAL_ASSERT(nst < st.size());
    DimVector& s = st[nst++];
    s.assign(static_cast<size_t>(n), 0);
    const int64_t off = n - t->dim();
    for (int64_t i = 0; i < t->dim(); ++i)
      s[off + i] = t->sizes()[i] == 1 && shape[off + i] != 1 ? 0 : t->strides()[i];
  }
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (size_t k = 0; k < nst; ++k) {
      const DimVector& s = st[k];
      const int64_t s0 = s[d0], s1 = s[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  DimVector perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  for (int64_t i = 1; i < n; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  bool inverted = true;
  for (int64_t i = 0; i < n; ++i) inverted = inverted && perm[i] == n - 1 - i;
  if (inverted) return {};
  DimVector out(static_cast<size_t>(n));
  int64_t next = 1;
  for (int64_t i = 0; i < n; ++i) {
    out[perm[i]] = next;
    next *= shape[perm[i]];
  }
  return out;
}

Tensor empty_strided_dense(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  Tensor r = make_empty(sizes, dtype, device);
  if (!strides.empty()) r.impl()->set_sizes_strides(sizes, strides, 0);
  return r;
}

Tensor empty_for_iter(IntArrayRef shape, ScalarType dtype, Device device,
                      std::initializer_list<const Tensor*> inputs) {
  return empty_strided_dense(shape, iter_output_strides(shape, inputs), dtype, device);
}

Tensor with_strides(const Tensor& t, IntArrayRef strides) {
  if (strides.empty() ? t.is_contiguous() : IntArrayRef(t.strides()).equals(strides)) return t;
  Tensor r = empty_strided_dense(t.sizes(), strides, t.dtype(), t.device());
  copy_into_fresh(r, t);
  return r;
}

Tensor in_layout_of(const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  for (const Tensor* t : inputs)
    if (t->defined() && t->dim() == out.dim() && strides_like_channels_last(*t))
      return out.numel() == 0 ? out : with_strides(out, channels_last_strides(out.sizes()));
  return out;
}

}  // namespace mt
