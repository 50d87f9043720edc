// CPU kernels of the linalg family. GEMM: strided batched C = alpha * A @ B + beta * C through oneDNN's sgemm
// (float, when built with oneDNN, once the process has done enough float GEMM work: BlasGemm.h) or OpenBLAS
// (float/double/complex), float compute for half/bfloat16, and a plain loop for integers (BLAS has none;
// PyTorch CPU supports them). cross: a loop over the 3-vectors.
#include <algorithm>
#include <climits>
#include <vector>

#include "core/Parallel.h"
#include "core/WrapMath.h"
#include "kernels/cpu/BlasGemm.h"
#include "ops/copy.h"
#include "ops/linalg.h"

namespace mt {
namespace {

// Below this many multiply-adds per matrix, OpenBLAS stays on one thread, so we spread batches instead.
constexpr int64_t kSmallGemm = 64 * 64 * 64;

// float/double through BLAS. Operands BLAS cannot read become contiguous; c must be row-major.
template <typename T>
void gemm_blas(const Tensor& c, Tensor a, Tensor b, T alpha, T beta) {
  GemmLayout la = gemm_layout(a), lb = gemm_layout(b), lc = gemm_layout(c);
  if (!gemm_layout_fits_int(a, la)) a = contiguous(a), la = gemm_layout(a);
  if (!gemm_layout_fits_int(b, lb)) b = contiguous(b), lb = gemm_layout(b);
  MT_INTERNAL_ASSERT(lc.ok && !lc.trans, "gemm output must be row-major");
  int64_t batch = c.sizes()[0], m = c.sizes()[1], n = c.sizes()[2], k = a.sizes()[2];
  MT_CHECK(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX && lc.ld <= INT_MAX,
           "matmul: matrix dimensions must fit in a 32-bit BLAS integer, got ", m, "x", k, " and ", k, "x",
           n);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pc = c.data<T>();
  int64_t sa = a.strides()[0], sb = b.strides()[0], sc = c.strides()[0];
  // one answer for the whole op, here in the calling thread: batches on the pool must not race the switch
  bool onednn = false;
  if constexpr (std::is_same_v<T, float>) onednn = cpu_blas::sgemm_onednn_ready(batch * m * n * k);
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      cpu_blas::gemm<T>(la.trans, lb.trans, int(m), int(n), int(k), alpha, pa + i * sa, int(la.ld),
                        pb + i * sb, int(lb.ld), beta, pc + i * sc, int(lc.ld), onednn);
  };
  if (batch > 1 && m * n * k < kSmallGemm && !in_parallel_region())
    parallel_for(0, batch, std::max<int64_t>(1, kSmallGemm / (m * n * k)), run);
  else
    run(0, batch);
}

// Integers (and tiny float GEMMs): a direct loop in the tensor's own type (integers wrap like PyTorch's),
// any strides.
template <typename T>
void gemm_loop(const Tensor& c, const Tensor& a, const Tensor& b, T alpha, T beta) {
  int64_t batch = c.sizes()[0], m = c.sizes()[1], n = c.sizes()[2], k = a.sizes()[2];
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pc = c.data<T>();
  const int64_t *as = a.strides().data(), *bs = b.strides().data(), *cs = c.strides().data();
  // i-p-j order: the inner loop runs along a row of b and of the accumulator, so it vectorizes when b's
  // rows are contiguous (the common case).
  auto rows = [&](int64_t lo, int64_t hi) {
    std::vector<T> acc(static_cast<size_t>(n));
    for (int64_t r = lo; r < hi; ++r) {
      int64_t bi = r / m, i = r % m;
      const T* arow = pa + bi * as[0] + i * as[1];
      std::fill(acc.begin(), acc.end(), T(0));
      if (n == 1) {  // a matrix-vector row: a register sum (acc[0] through memory: a store-reload per step)
        const T* bcol = pb + bi * bs[0];
        T s(0);
        for (int64_t p = 0; p < k; ++p) s = wrap_add(s, wrap_mul(arow[p * as[2]], bcol[p * bs[1]]));
        acc[0] = s;
      }
      for (int64_t p = 0; p < k && n > 1; ++p) {
        T av = arow[p * as[2]];
        const T* brow = pb + bi * bs[0] + p * bs[1];
        T* ac = acc.data();
        if (bs[2] == 1)
          for (int64_t j = 0; j < n; ++j) ac[j] = wrap_add(ac[j], wrap_mul(av, brow[j]));
        else
          for (int64_t j = 0; j < n; ++j) ac[j] = wrap_add(ac[j], wrap_mul(av, brow[j * bs[2]]));
      }
      T* crow = pc + bi * cs[0] + i * cs[1];
      for (int64_t j = 0; j < n; ++j) {
        T& out = crow[j * cs[2]];
        out = beta == T(0) ? T(alpha * acc[j]) : T(alpha * acc[j] + beta * out);
      }
    }
  };
  // Waking the pool costs microseconds: only worth it for enough work.
  int64_t row_work = std::max<int64_t>(1, n * k);
  if (batch * m * row_work <= kGrainSize || in_parallel_region())
    rows(0, batch * m);
  else
    parallel_for(0, batch * m, std::max<int64_t>(1, kGrainSize / row_work), rows);
}

// Below this many multiply-adds per matrix a BLAS call costs more than the arithmetic (measured: a batch of
// 8x8x8 float GEMMs ran 2x slower through sgemm than through the plain loop).
constexpr int64_t kTinyGemm = 8 * 8 * 8;

void gemm_cpu(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& alpha, const Scalar& beta) {
  bool tiny = c.sizes()[1] * c.sizes()[2] * a.sizes()[2] <= kTinyGemm;
  if (tiny && c.dtype() == ScalarType::Float)
    return gemm_loop<float>(c, a, b, float(alpha.to_double()), float(beta.to_double()));
  if (tiny && c.dtype() == ScalarType::Double)
    return gemm_loop<double>(c, a, b, alpha.to_double(), beta.to_double());
  switch (c.dtype()) {
    case ScalarType::Float:
      return gemm_blas<float>(c, a, b, float(alpha.to_double()), float(beta.to_double()));
    case ScalarType::Double:
      return gemm_blas<double>(c, a, b, alpha.to_double(), beta.to_double());
    case ScalarType::ComplexFloat:
      return gemm_blas<std::complex<float>>(c, a, b, alpha.to<std::complex<float>>(),
                                            beta.to<std::complex<float>>());
    case ScalarType::ComplexDouble:
      return gemm_blas<std::complex<double>>(c, a, b, alpha.to<std::complex<double>>(),
                                             beta.to<std::complex<double>>());
    case ScalarType::Half:
    case ScalarType::BFloat16: {
      // Compute in float (opmath), round once at the end, as PyTorch does without native half GEMM.
      Tensor af = to(a, ScalarType::Float, a.device()), bf = to(b, ScalarType::Float, b.device());
      bool reads_c = beta.to_double() != 0.0;
      Tensor cf = reads_c ? contiguous(to(c, ScalarType::Float, c.device(), true))
                          : make_empty(c.sizes(), ScalarType::Float, c.device());
      gemm_blas<float>(cf, af, bf, float(alpha.to_double()), float(beta.to_double()));
      copy_(c, cf);
      return;
    }
    default:
      MT_DISPATCH_INTEGRAL_TYPES(c.dtype(), "addmm_impl_cpu_", [&] {
        gemm_loop<scalar_t>(c, a, b, scalar_t(alpha.to_long()), scalar_t(beta.to_long()));
      });
  }
}

// Each 3-vector's product in its dtype, each product rounded to it before the difference (the composite's
// mul then sub, and PyTorch's kernel in scalar_t); integers wrap.
template <typename T>
void cross_loop(const Tensor& out, const Tensor& a, const Tensor& b, int64_t dim) {
  DimVector sizes, so, sa, sb;  // the dims but `dim`
  for (int64_t i = 0; i < out.dim(); ++i)
    if (i != dim) {
      sizes.push_back(out.sizes()[i]);
      so.push_back(out.strides()[i]);
      sa.push_back(a.strides()[i]);
      sb.push_back(b.strides()[i]);
    }
  const int64_t nd = int64_t(sizes.size());
  const int64_t inner = nd ? sizes.back() : 1, io = nd ? so.back() : 0, ia = nd ? sa.back() : 0,
                ib = nd ? sb.back() : 0;
  const int64_t rows = out.numel() / 3 / inner;
  const int64_t od = out.strides()[dim], ad = a.strides()[dim], bd = b.strides()[dim];
  T* po = out.data<T>();
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  auto f = [](T x, T y, T z, T w) { return wrap_sub(T(wrap_mul(x, y)), T(wrap_mul(z, w))); };
  auto run = [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t oo = 0, oa = 0, ob = 0;
      for (int64_t k = nd - 2, rest = r; k >= 0; --k) {  // r unraveled over the outer dims
        const int64_t i = rest % sizes[k];
        rest /= sizes[k];
        oo += i * so[k];
        oa += i * sa[k];
        ob += i * sb[k];
      }
      for (int64_t j = 0; j < inner; ++j) {
        const T* x = pa + oa + j * ia;
        const T* y = pb + ob + j * ib;
        T* z = po + oo + j * io;
        const T x0 = x[0], x1 = x[ad], x2 = x[2 * ad], y0 = y[0], y1 = y[bd], y2 = y[2 * bd];
        z[0] = f(x1, y2, x2, y1);
        z[od] = f(x2, y0, x0, y2);
        z[2 * od] = f(x0, y1, x1, y0);
      }
    }
  };
  if (rows * inner * 3 <= kGrainSize || in_parallel_region())
    run(0, rows);
  else
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / (3 * inner)), run);
}

void cross_cpu(const Tensor& out, const Tensor& a, const Tensor& b, int64_t dim) {
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(out.dtype(), "cross", [&] { cross_loop<scalar_t>(out, a, b, dim); });
}

}  // namespace

MT_REGISTER_KERNEL(gemm_stub, CPU, &gemm_cpu);
MT_REGISTER_KERNEL(cross_stub, CPU, &cross_cpu);

}  // namespace mt
