// CPU kernels of the decompositions (ops/linalg_decomp.h): one LAPACK call per matrix of the batch, through
// the LAPACK that ships inside scipy-openblas32 (the OpenBLAS we already link for GEMM; its symbols carry the
// scipy_ prefix). Workspace sizes come from LAPACK's own query (lwork = -1), made once per batch.
#include "ops/linalg_decomp.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/Exception.h"

// The Fortran entry points; the trailing size_t arguments are the hidden lengths of the character arguments
// (gfortran's calling convention, which OpenBLAS's LAPACK is compiled with).
extern "C" {
void scipy_sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void scipy_dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void scipy_sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
                   const int* ipiv, float* b, const int* ldb, int* info, size_t);
void scipy_dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
                   const int* ipiv, double* b, const int* ldb, int* info, size_t);
void scipy_spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void scipy_dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void scipy_strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
                  const int* n, const float* alpha, const float* a, const int* lda, float* b, const int* ldb,
                  size_t, size_t, size_t, size_t);
void scipy_dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
                  const int* n, const double* alpha, const double* a, const int* lda, double* b,
                  const int* ldb, size_t, size_t, size_t, size_t);
void scipy_sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
                   const int* lwork, int* info);
void scipy_dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
                   const int* lwork, int* info);
void scipy_sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
                   float* work, const int* lwork, int* info);
void scipy_dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
                   double* work, const int* lwork, int* info);
void scipy_ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w,
                   float* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void scipy_dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
                   double* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void scipy_sgeev_(const char* jobvl, const char* jobvr, const int* n, float* a, const int* lda, float* wr,
                  float* wi, float* vl, const int* ldvl, float* vr, const int* ldvr, float* work,
                  const int* lwork, int* info, size_t, size_t);
void scipy_dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr,
                  double* wi, double* vl, const int* ldvl, double* vr, const int* ldvr, double* work,
                  const int* lwork, int* info, size_t, size_t);
void scipy_sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
                   const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork,
                   int* info, size_t);
void scipy_dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
                   double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
                   int* iwork, int* info, size_t);
void scipy_sgels_(const char* trans, const int* m, const int* n, const int* nrhs, float* a, const int* lda,
                  float* b, const int* ldb, float* work, const int* lwork, int* info, size_t);
void scipy_dgels_(const char* trans, const int* m, const int* n, const int* nrhs, double* a, const int* lda,
                  double* b, const int* ldb, double* work, const int* lwork, int* info, size_t);
void scipy_sgelsy_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
                   const int* ldb, int* jpvt, const float* rcond, int* rank, float* work, const int* lwork,
                   int* info);
void scipy_dgelsy_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
                   const int* ldb, int* jpvt, const double* rcond, int* rank, double* work, const int* lwork,
                   int* info);
void scipy_sgelsd_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
                   const int* ldb, float* s, const float* rcond, int* rank, float* work, const int* lwork,
                   int* iwork, int* info);
void scipy_dgelsd_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
                   const int* ldb, double* s, const double* rcond, int* rank, double* work, const int* lwork,
                   int* iwork, int* info);
void scipy_sgelss_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
                   const int* ldb, float* s, const float* rcond, int* rank, float* work, const int* lwork,
                   int* info);
void scipy_dgelss_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
                   const int* ldb, double* s, const double* rcond, int* rank, double* work, const int* lwork,
                   int* info);
}

namespace mt {
namespace {

// The routines for float and double under one name, so each kernel below is written once.
template <typename T>
struct Lapack;

template <>
struct Lapack<float> {
  static constexpr auto getrf = scipy_sgetrf_;
  static constexpr auto getrs = scipy_sgetrs_;
  static constexpr auto potrf = scipy_spotrf_;
  static constexpr auto trsm = scipy_strsm_;
  static constexpr auto geqrf = scipy_sgeqrf_;
  static constexpr auto orgqr = scipy_sorgqr_;
  static constexpr auto syevd = scipy_ssyevd_;
  static constexpr auto geev = scipy_sgeev_;
  static constexpr auto gesdd = scipy_sgesdd_;
  static constexpr auto gels = scipy_sgels_;
  static constexpr auto gelsy = scipy_sgelsy_;
  static constexpr auto gelsd = scipy_sgelsd_;
  static constexpr auto gelss = scipy_sgelss_;
};

template <>
struct Lapack<double> {
  static constexpr auto getrf = scipy_dgetrf_;
  static constexpr auto getrs = scipy_dgetrs_;
  static constexpr auto potrf = scipy_dpotrf_;
  static constexpr auto trsm = scipy_dtrsm_;
  static constexpr auto geqrf = scipy_dgeqrf_;
  static constexpr auto orgqr = scipy_dorgqr_;
  static constexpr auto syevd = scipy_dsyevd_;
  static constexpr auto geev = scipy_dgeev_;
  static constexpr auto gesdd = scipy_dgesdd_;
  static constexpr auto gels = scipy_dgels_;
  static constexpr auto gelsy = scipy_dgelsy_;
  static constexpr auto gelsd = scipy_dgelsd_;
  static constexpr auto gelss = scipy_dgelss_;
};

// A column-major batch [batch, cols, rows]: its matrix count, row count (the leading dimension) and columns.
struct Batch {
  int64_t count;
  int rows, cols;
  explicit Batch(const Tensor& t) : count(t.sizes()[0]), rows(int(t.sizes()[2])), cols(int(t.sizes()[1])) {}
  int64_t stride() const { return int64_t(rows) * cols; }
};

// LAPACK wants lda >= 1 even for an empty matrix.
int ld(int rows) {
  return std::max(rows, 1);
}

// The size LAPACK's workspace query wrote into work[0] (a float holding an integer).
template <typename T>
int query_size(T w) {
  return std::max(1, int(w));
}

// LAPACK's iterative drivers (gesdd, syevd, gelsd/gelss/gelsy) can loop without end on inf or NaN input, so
// such a matrix never reaches them: its results are NaN and its info is kNonFinite, for the caller to report.
constexpr int kNonFinite = -1000;

template <typename T>
bool all_finite(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

template <typename T>
void fill_nan(T* p, int64_t n) {
  std::fill(p, p + n, std::numeric_limits<T>::quiet_NaN());
}

template <typename F>
void dispatch_float(ScalarType dt, const char* name, F&& f) {
  if (dt == ScalarType::Float) return f(float{});
  if (dt == ScalarType::Double) return f(double{});
  MT_CHECK_NOT_IMPLEMENTED(false, "\"", name, "_cpu\" not implemented for '", dtype_short_name(dt), "'");
}

void lu_factor_cpu(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  dispatch_float(a.dtype(), "lu_factor", [&](auto tag) {
    using T = decltype(tag);
    Batch b(a);
    int k = std::min(b.rows, b.cols);
    for (int64_t i = 0; i < b.count; ++i) {
      int lda = ld(b.rows);
      Lapack<T>::getrf(&b.rows, &b.cols, a.data<T>() + i * b.stride(), &lda, pivots.data<int>() + i * k,
                       info.data<int>() + i);
    }
  });
}

void lu_solve_cpu(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool trans) {
  dispatch_float(b.dtype(), "lu_solve", [&](auto tag) {
    using T = decltype(tag);
    Batch l(lu), x(b);
    char tr = trans ? 'T' : 'N';
    for (int64_t i = 0; i < x.count; ++i) {
      int info = 0, lda = ld(l.rows), ldb = ld(x.rows);
      Lapack<T>::getrs(&tr, &l.rows, &x.cols, lu.data<T>() + i * l.stride(), &lda,
                       pivots.data<int>() + i * l.rows, b.data<T>() + i * x.stride(), &ldb, &info, 1);
      MT_INTERNAL_ASSERT(info == 0, "getrs: argument ", -info, " was invalid");
    }
  });
}

void cholesky_cpu(const Tensor& a, bool upper, const Tensor& info) {
  dispatch_float(a.dtype(), "cholesky", [&](auto tag) {
    using T = decltype(tag);
    Batch b(a);
    char uplo = upper ? 'U' : 'L';
    for (int64_t i = 0; i < b.count; ++i) {
      int lda = ld(b.rows);
      Lapack<T>::potrf(&uplo, &b.rows, a.data<T>() + i * b.stride(), &lda, info.data<int>() + i, 1);
    }
  });
}

void triangular_solve_cpu(const Tensor& a, const Tensor& b, bool upper, bool left, bool trans,
                          bool unitriangular) {
  dispatch_float(b.dtype(), "triangular_solve", [&](auto tag) {
    using T = decltype(tag);
    Batch m(a), x(b);
    char side = left ? 'L' : 'R', uplo = upper ? 'U' : 'L', tr = trans ? 'T' : 'N',
         diag = unitriangular ? 'U' : 'N';
    T one = 1;
    for (int64_t i = 0; i < x.count; ++i) {
      int lda = ld(m.rows), ldb = ld(x.rows);
      Lapack<T>::trsm(&side, &uplo, &tr, &diag, &x.rows, &x.cols, &one, a.data<T>() + i * m.stride(), &lda,
                      b.data<T>() + i * x.stride(), &ldb, 1, 1, 1, 1);
    }
  });
}

void geqrf_cpu(const Tensor& a, const Tensor& tau) {
  dispatch_float(a.dtype(), "geqrf", [&](auto tag) {
    using T = decltype(tag);
    Batch b(a);
    int k = std::min(b.rows, b.cols), lda = ld(b.rows), info = 0, lwork = -1;
    T w = 0;
    Lapack<T>::geqrf(&b.rows, &b.cols, nullptr, &lda, nullptr, &w, &lwork, &info);
    lwork = query_size(w);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < b.count; ++i) {
      Lapack<T>::geqrf(&b.rows, &b.cols, a.data<T>() + i * b.stride(), &lda, tau.data<T>() + i * k,
                       work.data(), &lwork, &info);
      MT_INTERNAL_ASSERT(info == 0, "geqrf: argument ", -info, " was invalid");
    }
  });
}

// a [batch, n, m] column-major holds the reflectors in its first k = tau.size(-1) columns; m >= n >= k.
void householder_product_cpu(const Tensor& a, const Tensor& tau) {
  dispatch_float(a.dtype(), "orgqr", [&](auto tag) {
    using T = decltype(tag);
    Batch b(a);
    int k = int(tau.sizes()[1]), lda = ld(b.rows), info = 0, lwork = -1;
    T w = 0;
    Lapack<T>::orgqr(&b.rows, &b.cols, &k, nullptr, &lda, nullptr, &w, &lwork, &info);
    lwork = query_size(w);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < b.count; ++i) {
      Lapack<T>::orgqr(&b.rows, &b.cols, &k, a.data<T>() + i * b.stride(), &lda, tau.data<T>() + i * k,
                       work.data(), &lwork, &info);
      MT_INTERNAL_ASSERT(info == 0, "orgqr: argument ", -info, " was invalid");
    }
  });
}

void eigh_cpu(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info) {
  dispatch_float(a.dtype(), "linalg_eigh", [&](auto tag) {
    using T = decltype(tag);
    Batch b(a);
    char jobz = compute_v ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    int lda = ld(b.rows), lwork = -1, liwork = -1, iw = 0, q = 0;
    T wq = 0;
    Lapack<T>::syevd(&jobz, &uplo, &b.rows, nullptr, &lda, nullptr, &wq, &lwork, &iw, &liwork, &q, 1, 1);
    lwork = query_size(wq);
    liwork = std::max(1, iw);
    std::vector<T> work(static_cast<size_t>(lwork));
    std::vector<int> iwork(static_cast<size_t>(liwork));
    for (int64_t i = 0; i < b.count; ++i) {
      T* ap = a.data<T>() + i * b.stride();
      if (!all_finite(ap, b.stride())) {
        fill_nan(ap, b.stride());
        fill_nan(w.data<T>() + i * b.rows, b.rows);
        info.data<int>()[i] = kNonFinite;
        continue;
      }
      Lapack<T>::syevd(&jobz, &uplo, &b.rows, ap, &lda, w.data<T>() + i * b.rows, work.data(), &lwork,
                       iwork.data(), &liwork, info.data<int>() + i, 1, 1);
    }
  });
}

// a [batch, n, n] real, column-major (destroyed); w [batch, n] and v [batch, n, n] (column-major) complex of
// a's precision. geev stores a conjugate pair's eigenvectors as two real columns (re, im): they become
// re + i im and its conjugate.
void eig_cpu(const Tensor& a, const Tensor& w, const Tensor& v, bool compute_v, const Tensor& info) {
  dispatch_float(a.dtype(), "linalg_eig", [&](auto tag) {
    using T = decltype(tag);
    using C = std::complex<T>;
    Batch b(a);
    const int n = b.rows;
    char jobvl = 'N', jobvr = compute_v ? 'V' : 'N';
    int lda = ld(n), ldv = ld(n), lwork = -1, q = 0;
    T wq = 0;
    Lapack<T>::geev(&jobvl, &jobvr, &b.rows, nullptr, &lda, nullptr, nullptr, nullptr, &ldv, nullptr, &ldv,
                    &wq, &lwork, &q, 1, 1);
    lwork = query_size(wq);
    std::vector<T> work(static_cast<size_t>(lwork)), wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
    std::vector<T> vr(compute_v ? static_cast<size_t>(n) * n : 1);
    for (int64_t i = 0; i < b.count; ++i) {
      T* ap = a.data<T>() + i * b.stride();
      C* wp = w.data<C>() + i * n;
      C* vp = compute_v ? v.data<C>() + i * b.stride() : nullptr;
      if (!all_finite(ap, b.stride())) {
        const T nan = std::numeric_limits<T>::quiet_NaN();
        std::fill(wp, wp + n, C(nan, nan));
        if (vp) std::fill(vp, vp + b.stride(), C(nan, nan));
        info.data<int>()[i] = kNonFinite;
        continue;
      }
      Lapack<T>::geev(&jobvl, &jobvr, &b.rows, ap, &lda, wr.data(), wi.data(), nullptr, &ldv, vr.data(), &ldv,
                      work.data(), &lwork, info.data<int>() + i, 1, 1);
      for (int j = 0; j < n; ++j) wp[j] = C(wr[j], wi[j]);
      if (!vp) continue;
      for (int j = 0; j < n; ++j) {
        const T* col = vr.data() + int64_t(j) * n;
        if (wi[j] != T(0) && j + 1 < n) {
          const T* next = col + n;
          for (int r = 0; r < n; ++r) {
            vp[int64_t(j) * n + r] = C(col[r], next[r]);
            vp[int64_t(j + 1) * n + r] = C(col[r], -next[r]);
          }
          ++j;
        } else {
          for (int r = 0; r < n; ++r) vp[int64_t(j) * n + r] = C(col[r], T(0));
        }
      }
    }
  });
}

// a [batch, n, m] column-major (destroyed); u [batch, ucols, m], vh [batch, n, vrows] column-major.
void svd_cpu(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, bool full_matrices,
             bool compute_uv, const Tensor& info) {
  dispatch_float(a.dtype(), "linalg_svd", [&](auto tag) {
    using T = decltype(tag);
    Batch b(a);
    int m = b.rows, n = b.cols, k = std::min(m, n);
    char jobz = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
    int lda = ld(m), ldu = ld(m), ldvt = ld(compute_uv ? int(vh.sizes()[2]) : 1), lwork = -1, q = 0;
    T wq = 0;
    std::vector<int> iwork(size_t(std::max(1, 8 * k)));
    T* up = compute_uv ? u.data<T>() : nullptr;
    T* vp = compute_uv ? vh.data<T>() : nullptr;
    Lapack<T>::gesdd(&jobz, &m, &n, nullptr, &lda, nullptr, up, &ldu, vp, &ldvt, &wq, &lwork, iwork.data(),
                     &q, 1);
    lwork = query_size(wq);
    std::vector<T> work(static_cast<size_t>(lwork));
    int64_t us = compute_uv ? u.sizes()[1] * u.sizes()[2] : 0,
            vs = compute_uv ? vh.sizes()[1] * vh.sizes()[2] : 0;
    for (int64_t i = 0; i < b.count; ++i) {
      T* ap = a.data<T>() + i * b.stride();
      if (!all_finite(ap, b.stride())) {
        fill_nan(s.data<T>() + i * k, k);
        if (up) fill_nan(up + i * us, us);
        if (vp) fill_nan(vp + i * vs, vs);
        info.data<int>()[i] = kNonFinite;
        continue;
      }
      Lapack<T>::gesdd(&jobz, &m, &n, ap, &lda, s.data<T>() + i * k, up ? up + i * us : nullptr, &ldu,
                       vp ? vp + i * vs : nullptr, &ldvt, work.data(), &lwork, iwork.data(),
                       info.data<int>() + i, 1);
    }
  });
}

// a [batch, n, m], b [batch, k, max(m, n)] column-major; s [batch, min(m, n)]; rank int64 [batch].
void lstsq_cpu(const Tensor& a, const Tensor& b, const Tensor& s, const Tensor& rank, double rcond,
               const std::string& driver, const Tensor& info) {
  dispatch_float(a.dtype(), "linalg_lstsq", [&](auto tag) {
    using T = decltype(tag);
    Batch ab(a), bb(b);
    int m = ab.rows, n = ab.cols, nrhs = bb.cols, lda = ld(m), ldb = ld(bb.rows), lwork = -1, q = 0, r = 0;
    int k = std::min(m, n);
    T rc = T(rcond), wq = 0;
    char tr = 'N';
    std::vector<int> jpvt(size_t(std::max(1, n)));
    std::vector<int> iwork(1);
    if (driver == "gels") {
      Lapack<T>::gels(&tr, &m, &n, &nrhs, nullptr, &lda, nullptr, &ldb, &wq, &lwork, &q, 1);
    } else if (driver == "gelsy") {
      Lapack<T>::gelsy(&m, &n, &nrhs, nullptr, &lda, nullptr, &ldb, jpvt.data(), &rc, &r, &wq, &lwork, &q);
    } else if (driver == "gelsd") {
      int iw = 0;
      lwork = -1;
      Lapack<T>::gelsd(&m, &n, &nrhs, nullptr, &lda, nullptr, &ldb, nullptr, &rc, &r, &wq, &lwork, &iw, &q);
      iwork.resize(size_t(std::max(1, iw)));
    } else {
      Lapack<T>::gelss(&m, &n, &nrhs, nullptr, &lda, nullptr, &ldb, nullptr, &rc, &r, &wq, &lwork, &q);
    }
    lwork = query_size(wq);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < ab.count; ++i) {
      T* ap = a.data<T>() + i * ab.stride();
      T* bp = b.data<T>() + i * bb.stride();
      T* sp = s.numel() ? s.data<T>() + i * k : nullptr;
      int* ip = info.data<int>() + i;
      r = k;
      if (!all_finite(ap, ab.stride()) || !all_finite(bp, bb.stride())) {
        fill_nan(bp, bb.stride());
        if (sp) fill_nan(sp, k);
        *ip = kNonFinite;
        rank.data<int64_t>()[i] = 0;
        continue;
      }
      if (driver == "gels") {
        Lapack<T>::gels(&tr, &m, &n, &nrhs, ap, &lda, bp, &ldb, work.data(), &lwork, ip, 1);
      } else if (driver == "gelsy") {
        std::fill(jpvt.begin(), jpvt.end(), 0);
        Lapack<T>::gelsy(&m, &n, &nrhs, ap, &lda, bp, &ldb, jpvt.data(), &rc, &r, work.data(), &lwork, ip);
      } else if (driver == "gelsd") {
        Lapack<T>::gelsd(&m, &n, &nrhs, ap, &lda, bp, &ldb, sp, &rc, &r, work.data(), &lwork, iwork.data(),
                         ip);
      } else {
        Lapack<T>::gelss(&m, &n, &nrhs, ap, &lda, bp, &ldb, sp, &rc, &r, work.data(), &lwork, ip);
      }
      rank.data<int64_t>()[i] = r;
    }
  });
}

}  // namespace

MT_REGISTER_KERNEL(lu_factor_stub, CPU, &lu_factor_cpu);
MT_REGISTER_KERNEL(lu_solve_stub, CPU, &lu_solve_cpu);
MT_REGISTER_KERNEL(cholesky_stub, CPU, &cholesky_cpu);
MT_REGISTER_KERNEL(triangular_solve_stub, CPU, &triangular_solve_cpu);
MT_REGISTER_KERNEL(geqrf_stub, CPU, &geqrf_cpu);
MT_REGISTER_KERNEL(householder_product_stub, CPU, &householder_product_cpu);
MT_REGISTER_KERNEL(eigh_stub, CPU, &eigh_cpu);
MT_REGISTER_KERNEL(eig_stub, CPU, &eig_cpu);
MT_REGISTER_KERNEL(svd_stub, CPU, &svd_cpu);
MT_REGISTER_KERNEL(lstsq_stub, CPU, &lstsq_cpu);

}  // namespace mt
