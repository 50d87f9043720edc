// CPU kernels for cumsum/cumprod, complex included, and cummax/cummin (layout: see ops/reduce.h).
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Parallel.h"
#include "core/ScalarType.h"
#include "core/WrapMath.h"
#include "kernels/ReduceRules.h"
#include "kernels/cpu/ReduceUtils.h"
#include "ops/reduce.h"

namespace mt {
namespace {

using namespace cpu_reduce;

template <typename T>
void scan_typed(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ScanOp op) {
  using a_t = acc_t<T>;
  const T* base = in.data<T>();
  T* o = out.data<T>();
  const bool sum = op == ScanOp::cumsum;
  if (inner == 1) {
    for_rows(in.numel() / row, row, [&](int64_t i, bool) {
      const T* p = base + i * row;
      T* q = o + i * row;
      a_t a = sum ? a_t(0) : a_t(1);
      if (sum) {
        for (int64_t k = 0; k < row; ++k) {
          a = wrap_add(a, static_cast<a_t>(p[k]));
          q[k] = static_cast<T>(a);
        }
      } else {
        for (int64_t k = 0; k < row; ++k) {
          a = wrap_mul(a, static_cast<a_t>(p[k]));
          q[k] = static_cast<T>(a);
        }
      }
    });
    return;
  }
  // along a middle dim: running values for a strip of columns, rows streamed in order
  for_strips(in.numel() / (row * inner), row, inner, [&](int64_t oi, int64_t j0, int64_t w) {
    const T* p = base + oi * row * inner + j0;
    T* q = o + oi * row * inner + j0;
    a_t acc[kColumns];
    for (int64_t j = 0; j < w; ++j) acc[j] = sum ? a_t(0) : a_t(1);
    for (int64_t r = 0; r < row; ++r) {
      const T* pr = p + r * inner;
      T* qr = q + r * inner;
      if (sum) {
        for (int64_t j = 0; j < w; ++j) {
          acc[j] = wrap_add(acc[j], static_cast<a_t>(pr[j]));
          qr[j] = static_cast<T>(acc[j]);
        }
      } else {
        for (int64_t j = 0; j < w; ++j) {
          acc[j] = wrap_mul(acc[j], static_cast<a_t>(pr[j]));
          qr[j] = static_cast<T>(acc[j]);
        }
      }
    }
  });
}

void scan_cpu(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ScanOp op) {
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(in.dtype(), op == ScanOp::cumsum ? "cumsum" : "cumprod",
                                    [&] { scan_typed<scalar_t>(out, in, row, inner, op); });
}

template <typename T, bool IsMax>
void cum_extreme_typed(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t row,
                       int64_t inner) {
  using op_t = opmath_t<T>;
  const T* base = in.data<T>();
  T* vo = values.data<T>();
  int64_t* io = indices.data<int64_t>();
  if (inner == 1) {
    for_rows(in.numel() / row, row, [&](int64_t i, bool) {
      const T* p = base + i * row;
      T* v = vo + i * row;
      int64_t* ix = io + i * row;
      op_t best = static_cast<op_t>(p[0]);
      int64_t at = 0;
      for (int64_t k = 0; k < row; ++k) {
        const op_t x = static_cast<op_t>(p[k]);
        if (reduce_rules::cum_replaces<IsMax>(best, x)) {
          best = x;
          at = k;
        }
        v[k] = static_cast<T>(best);
        ix[k] = at;
      }
    });
    return;
  }
  // along a middle dim: running extrema for a strip of columns, rows streamed in order
  for_strips(in.numel() / (row * inner), row, inner, [&](int64_t oi, int64_t j0, int64_t w) {
    const int64_t off = oi * row * inner + j0;
    op_t best[kColumns];
    int64_t at[kColumns];
    for (int64_t j = 0; j < w; ++j) {
      best[j] = static_cast<op_t>(base[off + j]);
      at[j] = 0;
    }
    for (int64_t r = 0; r < row; ++r) {
      const T* pr = base + off + r * inner;
      T* vr = vo + off + r * inner;
      int64_t* ir = io + off + r * inner;
      for (int64_t j = 0; j < w; ++j) {
        const op_t x = static_cast<op_t>(pr[j]);
        if (reduce_rules::cum_replaces<IsMax>(best[j], x)) {
          best[j] = x;
          at[j] = r;
        }
        vr[j] = static_cast<T>(best[j]);
        ir[j] = at[j];
      }
    }
  });
}

void cum_extreme_cpu(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t row,
                     int64_t inner, bool is_max) {
  MT_DISPATCH_ALL_TYPES(in.dtype(), is_max ? "cummax_cpu" : "cummin_cpu", [&] {
    if (is_max)
      cum_extreme_typed<scalar_t, true>(values, indices, in, row, inner);
    else
      cum_extreme_typed<scalar_t, false>(values, indices, in, row, inner);
  });
}

}  // namespace

MT_REGISTER_KERNEL(scan_stub, CPU, &scan_cpu);
MT_REGISTER_KERNEL(cum_extreme_stub, CPU, &cum_extreme_cpu);

}  // namespace mt
