// Broadcasting and dimension merging for TensorIter.
#include "core/TensorIterator.h"

namespace mt {

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n, 1);
  // from the last dim, as PyTorch's infer_size: a mismatch is reported at the trailing-most dim
  for (size_t i = n; i-- > 0;) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      MT_ERROR("The size of tensor a (", da, ") must match the size of tensor b (", db,
               ") at non-singleton dimension ", static_cast<int64_t>(i));
    }
  }
  return out;
}

DimVector broadcast_strides(const Tensor& t, IntArrayRef shape) {
  size_t n = shape.size(), td = static_cast<size_t>(t.dim());
  MT_INTERNAL_ASSERT(td <= n);
  DimVector st(n, 0);
  for (size_t i = 0; i < td; ++i) {
    size_t o = n - td + i;
    int64_t s = t.sizes()[i];
    if (s == shape[o]) {
      st[o] = s == 1 ? 0 : t.strides()[i];
    } else {
      MT_CHECK(s == 1, "The expanded size of the tensor (", shape[o], ") must match the existing size (", s,
               ") at non-singleton dimension ", static_cast<int64_t>(o),
               ".  Target sizes: ", shape_str(shape), ".  Tensor sizes: ", shape_str(t.sizes()));
      st[o] = 0;
    }
  }
  return st;
}

// A channels-last or transposed output (and inputs of its layout) would otherwise be walked in the logical
// order: an inner stride of C elements and a strided loop per element. Sorting the dims by the output's
// strides, as TensorIterator's reorder_dimensions does, makes operands that share its layout merge into one
// flat dense run for the vectorized loops. An output with a zero stride (gather/scatter's restrided self,
// whose write order decides duplicates) keeps the logical order.
static void reorder_by_output(TensorIter& it) {
  auto& shape = it.shape;
  auto& strides = it.strides;
  const int64_t nd = it.ndim();
  for (int64_t d = 0; d < nd; ++d)
    if (shape[d] > 1 && strides[0][d] <= 0) return;
  DimVector perm(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) perm[d] = d;
  // insertion sort, stable: size-1 dims are dropped by the merge, so their place does not matter
  bool moved = false;
  for (int64_t i = 1; i < nd; ++i)
    for (int64_t j = i; j > 0 && strides[0][perm[j - 1]] > strides[0][perm[j]]; --j) {
      std::swap(perm[j - 1], perm[j]);
      moved = true;
    }
  if (!moved) return;
  DimVector s(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) s[d] = shape[perm[d]];
  shape = s;
  for (int k = 0; k < it.ntensors; ++k) {
    for (int64_t d = 0; d < nd; ++d) s[d] = strides[k][perm[d]];
    strides[k] = s;
  }
}

TensorIter TensorIter::make(std::initializer_list<Tensor> operands) {
  TensorIter it;
  it.ntensors = static_cast<int>(operands.size());
  MT_INTERNAL_ASSERT(it.ntensors >= 1 && it.ntensors <= kMaxOperands);
  const Tensor& out = *operands.begin();
  IntArrayRef full = out.sizes();
  it.numel = out.numel();
  it.device = out.device();
  // Every operand dense, of the output's shape, on its device: the walk below would merge everything into one
  // run of numel elements; built directly, since small ops are overhead-bound (a + b on 100 floats). One
  // element keeps the general path, which gives it stride 0.
  bool flat = it.numel > 1 && out.is_contiguous();
  for (const Tensor& t : operands)
    flat = flat && t.is_contiguous() && t.device() == it.device && full.equals(t.sizes());
  if (flat) {
    int k = 0;
    for (const Tensor& t : operands) {
      it.strides[k].assign(size_t{1}, static_cast<int64_t>(t.itemsize()));
      it.data[k] = static_cast<char*>(t.unchecked_data_ptr());
      it.dtypes[k] = t.dtype();
      ++k;
    }
    it.shape.assign(size_t{1}, it.numel);
    return it;
  }
  int k = 0;
  int64_t nd = static_cast<int64_t>(full.size());
  for (const Tensor& t : operands) {
    DimVector st = broadcast_strides(t, full);
    int64_t item = static_cast<int64_t>(t.itemsize());
    // reverse so dim 0 is innermost, and convert to bytes
    it.strides[k].resize(nd);
    for (int64_t d = 0; d < nd; ++d) it.strides[k][d] = st[nd - 1 - d] * item;
    it.data[k] = static_cast<char*>(t.unchecked_data_ptr());
    it.dtypes[k] = t.dtype();
    if (t.device() != it.device) {
      MT_INTERNAL_ASSERT(k > 0 && t.device().is_cpu() && t.numel() == 1,
                         "TensorIter: only a one-element CPU input may join a CUDA op");
      it.host_scalar[k] = true;
    }
    ++k;
  }
  it.shape.resize(nd);
  for (int64_t d = 0; d < nd; ++d) it.shape[d] = full[nd - 1 - d];
  if (!out.is_contiguous()) reorder_by_output(it);

  // Drop size-1 dims, then merge neighbours whose strides line up for every operand.
  DimVector shape;
  std::array<DimVector, kMaxOperands> strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (it.shape[d] == 1) continue;
    bool merged = false;
    if (!shape.empty()) {
      bool ok = true;
      for (int i = 0; i < it.ntensors; ++i) ok = ok && strides[i].back() * shape.back() == it.strides[i][d];
      if (ok) {
        shape.back() *= it.shape[d];
        merged = true;
      }
    }
    if (!merged) {
      shape.push_back(it.shape[d]);
      for (int i = 0; i < it.ntensors; ++i) strides[i].push_back(it.strides[i][d]);
    }
  }
  if (shape.empty()) {
    shape.push_back(it.numel == 0 ? 0 : 1);
    for (int i = 0; i < it.ntensors; ++i) strides[i].push_back(0);
  }
  it.shape = shape;
  for (int i = 0; i < it.ntensors; ++i) it.strides[i] = strides[i];
  if (it.numel == 0) it.shape[0] = 0;
  return it;
}

bool TensorIter::is_contiguous() const {
  if (shape.size() != 1) return false;
  for (int k = 0; k < ntensors; ++k)
    if (strides[k][0] != static_cast<int64_t>(element_size(dtypes[k]))) return false;
  return true;
}

}  // namespace mt
