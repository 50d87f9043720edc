// CPU kernels for indexing: gather/put through element offsets, gather/scatter along a dim, and nonzero.
#include "ops/index.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/CopyBytes.h"
#include "core/Parallel.h"
#include "core/TensorIterator.h"
#include "kernels/cpu/MaskScan.h"
#include "kernels/cpu/ParallelRows.h"
#include "ops/Dispatch.h"
#include "ops/copy.h"
#include "ops/index_dim.h"
#include "ops/kernels.h"
#include "ops/shape.h"

namespace mt {
namespace {

// The accumulate/reduce rules of index_put_ and scatter_: in the op's math type; on bool, + is OR and * is
// AND (written as logic: '*' on bools is a compiler warning)
template <typename T>
T put_add(T x, T y) {
  if constexpr (std::is_same_v<T, bool>)
    return x || y;
  else
    return static_cast<T>(static_cast<opmath_t<T>>(x) + static_cast<opmath_t<T>>(y));
}
template <typename T>
T put_mul(T x, T y) {
  if constexpr (std::is_same_v<T, bool>)
    return x && y;
  else
    return static_cast<T>(static_cast<opmath_t<T>>(x) * static_cast<opmath_t<T>>(y));
}

// inner[] is 0, 1, 2, ...: each index moves one dense row (index_select and x[idx] on a contiguous tensor)
bool dense_rows(const int64_t* inner, int64_t r) {
  for (int64_t j = 0; j < r; ++j)
    if (inner[j] != j) return false;
  return true;
}

template <typename T>
void gather_loop(T* out, const T* src, const int64_t* outer, int64_t n, const int64_t* inner, int64_t r) {
  const int64_t grain = grain_for(r);
  if (r == 1 && inner[0] == 0) {
    parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = src[outer[i]];
    });
  } else if (dense_rows(inner, r)) {
    parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) copy_bytes(out + i * r, src + outer[i], r * sizeof(T));
    });
  } else {
    parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* base = src + outer[i];
        T* o = out + i * r;
        for (int64_t j = 0; j < r; ++j) o[j] = base[inner[j]];
      }
    });
  }
}

void index_gather_cpu(const Tensor& out, const Tensor& src, const int64_t* outer, int64_t n,
                      const int64_t* inner, int64_t r) {
  dispatch_width(src.itemsize(), [&](auto w) {  // moving bytes: only the width matters
    using T = decltype(w);
    gather_loop(out.data<T>(), src.data<T>(), outer, n, inner, r);
  });
}

// scatter_reduce's amax/amin: NaN wins (once there, it stays; a NaN value replaces anything)
template <typename T>
T put_extreme(T x, T y, bool is_max) {
  if constexpr (std::is_same_v<T, bool>) {
    return is_max ? (x || y) : (x && y);
  } else {
    using op_t = opmath_t<T>;
    const op_t a = static_cast<op_t>(x), b = static_cast<op_t>(y);
    if (a != a) return x;
    if (b != b) return y;
    return (is_max ? b > a : b < a) ? y : x;
  }
}

template <typename T, typename Op>
void put_loop(T* d, const T* v, const int64_t* outer, int64_t n, const int64_t* inner, int64_t r,
              const Op& op) {
  if (r == 1 && inner[0] == 0) {  // one element per index (x[idx] = v, index_put_ on a 1-D tensor)
    for (int64_t i = 0; i < n; ++i) d[outer[i]] = op(d[outer[i]], v[i]);
  } else if (dense_rows(inner, r)) {  // one dense row per index (x[idx] = v on a contiguous tensor)
    for (int64_t i = 0; i < n; ++i) {
      T* row = d + outer[i];
      const T* src = v + i * r;
      for (int64_t j = 0; j < r; ++j) row[j] = op(row[j], src[j]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < r; ++j) {
        T& x = d[outer[i] + inner[j]];
        x = op(x, v[i * r + j]);
      }
  }
}

void index_put_cpu(const Tensor& dst, const Tensor& values, const int64_t* outer, int64_t n,
                   const int64_t* inner, int64_t r, PutMode mode) {
  // Sequential: duplicate indices must accumulate deterministically (and assign last-writer-wins).
  if (mode == PutMode::assign) {
    if (r > 1 && dense_rows(inner, r)) {
      const char* v = static_cast<const char*>(values.data_ptr());
      char* d = static_cast<char*>(dst.data_ptr());
      const int64_t item = dst.itemsize(), row = r * item;
      for (int64_t i = 0; i < n; ++i) copy_bytes(d + outer[i] * item, v + i * row, static_cast<size_t>(row));
      return;
    }
    auto take = [](auto, auto y) { return y; };
    return dispatch_width(dst.itemsize(), [&](auto w) {  // moving bytes: only the width matters
      using T = decltype(w);
      put_loop(dst.data<T>(), values.data<T>(), outer, n, inner, r, take);
    });
  }
  if (is_complex(dst.dtype()) &&
      (mode == PutMode::add || mode == PutMode::multiply)) {  // no order on complex
    MT_DISPATCH_COMPLEX_TYPES(dst.dtype(), "index_put_", [&] {
      scalar_t* d = dst.data<scalar_t>();
      const scalar_t* v = values.data<scalar_t>();
      if (mode == PutMode::add)
        put_loop(d, v, outer, n, inner, r, [](scalar_t x, scalar_t y) { return x + y; });
      else
        put_loop(d, v, outer, n, inner, r, [](scalar_t x, scalar_t y) { return x * y; });
    });
    return;
  }
  MT_DISPATCH_ALL_TYPES(dst.dtype(), "index_put_", [&] {
    scalar_t* d = dst.data<scalar_t>();
    const scalar_t* v = values.data<scalar_t>();
    if (mode == PutMode::add)
      put_loop(d, v, outer, n, inner, r, [](scalar_t x, scalar_t y) { return put_add(x, y); });
    else if (mode == PutMode::multiply)
      put_loop(d, v, outer, n, inner, r, [](scalar_t x, scalar_t y) { return put_mul(x, y); });
    else
      put_loop(d, v, outer, n, inner, r, [is_max = mode == PutMode::amax](scalar_t x, scalar_t y) {
        return put_extreme(x, y, is_max);
      });
  });
}

// ---- gather / scatter along dim: walk the index tensor with a TensorIter over (out or self, the other
// operand, index), where self is viewed with index's sizes and a zero stride along dim; the loop then adds
// index * stride(dim). No per-element offsets on the host, one pass, any layout.

[[noreturn]] void index_out_of_bounds(int64_t k, int64_t dim, int64_t size) {
  MT_ERROR("index ", k, " is out of bounds for dimension ", dim, " with size ", size);
}

Tensor restride(const Tensor& t, IntArrayRef sizes, int64_t dim) {
  DimVector st(t.strides().begin(), t.strides().end());
  if (dim >= 0) st[dim] = 0;
  return as_strided(t, sizes, st, t.storage_offset());
}

template <typename T>
void gather_dim_loop(const TensorIter& it, int64_t dim_stride, int64_t size, int64_t dim) {
  it.for_each([&](char** data, const int64_t* st, int64_t n) {
    char* o = data[0];
    const char* s = data[1];
    const char* ix = data[2];
    if (st[0] == sizeof(T) && st[1] == 0 && st[2] == sizeof(int64_t)) {  // along the innermost dim
      T* out = reinterpret_cast<T*>(o);
      const T* row = reinterpret_cast<const T*>(s);
      const int64_t* idx = reinterpret_cast<const int64_t*>(ix);
      for (int64_t i = 0; i < n; ++i) {  // one pass, as gather_last_dim_rows
        const int64_t j = idx[i];
        if (__builtin_expect(static_cast<uint64_t>(j) >= static_cast<uint64_t>(size), 0))
          index_out_of_bounds(j, dim, size);
        out[i] = row[j * dim_stride];
      }
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = *reinterpret_cast<const int64_t*>(ix + i * st[2]);
      if (static_cast<uint64_t>(k) >= static_cast<uint64_t>(size)) index_out_of_bounds(k, dim, size);
      *reinterpret_cast<T*>(o + i * st[0]) = reinterpret_cast<const T*>(s + i * st[1])[k * dim_stride];
    }
  });
}

// Dense self, index and out, gathering along the last dim with self's rows matching index's: row by row, the
// next row of self prefetched into L2 while this one is gathered. The reads are random within a row, which
// the hardware prefetcher cannot follow.
// idx_stride: the index's row stride, k, or 0 for one index row expanded over every row (index_select along
// the last dim).
template <typename T>
void gather_last_dim_rows(T* out, const T* self, const int64_t* idx, int64_t idx_stride, int64_t rows,
                          int64_t k, int64_t size, int64_t dim) {
  if (idx_stride == 0) {
    // One index row for every row: checked once here, then each index read serves four rows in a pass of
    // loads and stores alone (the per-element check and the index load each cost as much as the move).
    for (int64_t i = 0; i < k; ++i)
      if (static_cast<uint64_t>(idx[i]) >= static_cast<uint64_t>(size))
        index_out_of_bounds(idx[i], dim, size);
    parallel_rows(rows, k + 8, [&](int64_t r0, int64_t r1) {
      int64_t r = r0;
      for (; r + 4 <= r1; r += 4) {
        const T* a = self + r * size;
        T* o = out + r * k;
        for (int64_t i = 0; i < k; ++i) {
          const int64_t j = idx[i];
          o[i] = a[j];
          o[k + i] = a[size + j];
          o[2 * k + i] = a[2 * size + j];
          o[3 * k + i] = a[3 * size + j];
        }
      }
      for (; r < r1; ++r)
        for (int64_t i = 0; i < k; ++i) out[r * k + i] = self[r * size + idx[i]];
    });
    return;
  }
  parallel_rows(rows, k + 8, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* row = self + r * size;
      if (r + 1 < r1) {
        const char* next = reinterpret_cast<const char*>(row + size);
        for (int64_t b = 0; b < size * static_cast<int64_t>(sizeof(T)); b += 64)
          __builtin_prefetch(next + b, 0, 2);
      }
      const int64_t* ix = idx + r * idx_stride;
      T* o = out + r * k;
      // one pass: the check rides on the load of the index the gather needs anyway (a separate checking pass
      // read the index row twice: 25 % of the time)
      for (int64_t i = 0; i < k; ++i) {
        const int64_t j = ix[i];
        if (__builtin_expect(static_cast<uint64_t>(j) >= static_cast<uint64_t>(size), 0))
          index_out_of_bounds(j, dim, size);
        o[i] = row[j];
      }
    }
  });
}

template <typename T>
bool gather_last_dim_dense(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = self.dim() - 1;
  if (dim != d || d < 1 || !out.is_contiguous() || !self.is_contiguous()) return false;
  // the index dense, or one dense row expanded over the others (stride 0 in every leading dim)
  bool expanded = index.strides()[d] == 1 || index.sizes()[d] == 1;
  for (int64_t j = 0; j < d; ++j) {
    if (index.sizes()[j] != self.sizes()[j]) return false;
    expanded = expanded && (index.strides()[j] == 0 || index.sizes()[j] == 1);
  }
  if (!expanded && !index.is_contiguous()) return false;
  const int64_t size = self.sizes()[d], k = index.sizes()[d], rows = out.numel() / k;
  if (self.itemsize() != sizeof(T) || size * static_cast<int64_t>(sizeof(T)) > 16384)
    return false;  // prefetch whole rows only when small
  gather_last_dim_rows(out.data<T>(), self.data<T>(), index.data<int64_t>(), expanded ? 0 : k, rows, k, size,
                       dim);
  return true;
}

template <typename T>
void gather_dim_typed(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  if (gather_last_dim_dense<T>(out, self, dim, index)) return;
  TensorIter it = TensorIter::make({out, restride(self, index.sizes(), dim), index});
  gather_dim_loop<T>(it, self.strides()[dim], self.sizes()[dim], dim);
}

void gather_dim_cpu(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  dispatch_width(self.itemsize(), [&](auto w) {  // moving bytes: only the width matters
    gather_dim_typed<decltype(w)>(out, self, dim, index);
  });
}

template <typename T, typename Op>
void scatter_dim_loop(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Op& op) {
  const int64_t dim_stride = self.strides()[dim], size = self.sizes()[dim];
  // Dense self, src and index, scattering along the last dim with their rows matching: row by row in order.
  // The iterator below orders its dims by self's restrided strides (0 along dim), so it walks a column of
  // the index per inner loop, a row's stride apart (scatter ran at 0.7x PyTorch's time).
  const int64_t d = self.dim() - 1;
  bool dense = dim == d && d >= 1 && self.is_contiguous() && src.is_contiguous() && index.is_contiguous() &&
               src.sizes() == index.sizes();
  for (int64_t j = 0; dense && j < d; ++j) dense = index.sizes()[j] == self.sizes()[j];
  if (dense) {
    const int64_t k = index.sizes()[d], rows = index.numel() / k;
    T* base = self.data<T>();
    const T* sv = src.data<T>();
    const int64_t* idx = index.data<int64_t>();
    for (int64_t r = 0; r < rows; ++r) {  // serial, as below
      T* row = base + r * size;
      for (int64_t i = r * k, e = i + k; i < e; ++i) {
        const int64_t j = idx[i];
        if (__builtin_expect(static_cast<uint64_t>(j) >= static_cast<uint64_t>(size), 0))
          index_out_of_bounds(j, dim, size);
        row[j] = op(row[j], sv[i]);
      }
    }
    return;
  }
  TensorIter it =
      TensorIter::make({restride(self, index.sizes(), dim), restride(src, index.sizes(), -1), index});
  // Serial (a grain no size reaches): duplicate indices must accumulate deterministically (and assign
  // last-writer-wins).
  it.for_each(
      [&](char** data, const int64_t* st, int64_t n) {
        char* d = data[0];
        const char* s = data[1];
        const char* ix = data[2];
        if (st[0] == 0 && st[1] == sizeof(T) && st[2] == sizeof(int64_t)) {  // along the innermost dim
          T* row = reinterpret_cast<T*>(d);
          const T* sv = reinterpret_cast<const T*>(s);
          const int64_t* idx = reinterpret_cast<const int64_t*>(ix);
          for (int64_t i = 0; i < n; ++i) {
            const int64_t k = idx[i];
            if (__builtin_expect(static_cast<uint64_t>(k) >= static_cast<uint64_t>(size), 0))
              index_out_of_bounds(k, dim, size);
            T& x = row[k * dim_stride];
            x = op(x, sv[i]);
          }
          return;
        }
        for (int64_t i = 0; i < n; ++i) {
          int64_t k = *reinterpret_cast<const int64_t*>(ix + i * st[2]);
          if (static_cast<uint64_t>(k) >= static_cast<uint64_t>(size)) index_out_of_bounds(k, dim, size);
          T& x = reinterpret_cast<T*>(d + i * st[0])[k * dim_stride];
          x = op(x, *reinterpret_cast<const T*>(s + i * st[1]));
        }
      },
      std::numeric_limits<int64_t>::max());
}

void scatter_dim_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, PutMode mode) {
  if (index.numel() == 0) return;
  if (mode == PutMode::assign) {
    auto take = [](auto, auto y) { return y; };
    return dispatch_width(self.itemsize(), [&](auto w) {  // moving bytes: only the width matters
      scatter_dim_loop<decltype(w)>(self, dim, index, src, take);
    });
  }
  if (is_complex(self.dtype()) &&
      (mode == PutMode::add || mode == PutMode::multiply)) {  // no order on complex
    MT_DISPATCH_COMPLEX_TYPES(self.dtype(), "scatter_", [&] {
      if (mode == PutMode::add)
        scatter_dim_loop<scalar_t>(self, dim, index, src, [](scalar_t x, scalar_t y) { return x + y; });
      else
        scatter_dim_loop<scalar_t>(self, dim, index, src, [](scalar_t x, scalar_t y) { return x * y; });
    });
    return;
  }
  MT_DISPATCH_ALL_TYPES(self.dtype(), "scatter_", [&] {
    if (mode == PutMode::add)
      scatter_dim_loop<scalar_t>(self, dim, index, src, [](scalar_t x, scalar_t y) { return put_add(x, y); });
    else if (mode == PutMode::multiply)
      scatter_dim_loop<scalar_t>(self, dim, index, src, [](scalar_t x, scalar_t y) { return put_mul(x, y); });
    else
      scatter_dim_loop<scalar_t>(
          self, dim, index, src,
          [is_max = mode == PutMode::amax](scalar_t x, scalar_t y) { return put_extreme(x, y, is_max); });
  });
}

Tensor nonzero_cpu(const Tensor& self) {
  Tensor b = contiguous(to(self, ScalarType::Bool, self.device()));
  const bool* p = b.data<bool>();
  MaskScan scan(p, b.numel());
  int64_t nd = self.dim();
  Tensor out = make_empty({scan.count(), nd}, ScalarType::Long, self.device());
  int64_t* o = out.data<int64_t>();
  if (nd == 1) {
    const int64_t one = 1;  // a 1-D position is its offset in a unit-stride box
    scan.offsets(self.sizes().data(), &one, 1, o);
  } else if (nd > 1) {
    IntArrayRef sizes = self.sizes();
    scan.for_blocks([&](int64_t blk, int64_t lo, int64_t hi) {
      int64_t* q = o + scan.start(blk) * nd;
      if (scan.start(blk) == scan.start(blk + 1)) return;
      DimVector idx(nd, 0);
      for (int64_t d = nd - 1, r = lo; d >= 0; --d) {
        idx[d] = r % sizes[d];
        r /= sizes[d];
      }
      for (int64_t i = lo; i < hi; ++i) {
        if (p[i]) {
          for (int64_t d = 0; d < nd; ++d) q[d] = idx[d];
          q += nd;
        }
        for (int64_t d = nd - 1; d >= 0; --d) {
          if (++idx[d] < sizes[d]) break;
          idx[d] = 0;
        }
      }
    });
  }
  return out;
}

}  // namespace

MT_REGISTER_KERNEL(index_gather_stub, CPU, &index_gather_cpu);
MT_REGISTER_KERNEL(index_put_stub, CPU, &index_put_cpu);
MT_REGISTER_KERNEL(nonzero_stub, CPU, &nonzero_cpu);
MT_REGISTER_KERNEL(gather_dim_stub, CPU, &gather_dim_cpu);
MT_REGISTER_KERNEL(scatter_dim_stub, CPU, &scatter_dim_cpu);

}  // namespace mt
