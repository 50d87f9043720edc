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
#include <utility>
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
// The complex forms (std::complex<T> is layout-compatible with Fortran's COMPLEX). Their eigen, SVD and
// least-squares drivers take an extra real workspace (rwork) that the real forms do not.
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;
void scipy_cgetrf_(const int* m, const int* n, cfloat* a, const int* lda, int* ipiv, int* info);
void scipy_zgetrf_(const int* m, const int* n, cdouble* a, const int* lda, int* ipiv, int* info);
void scipy_cgetrs_(const char* trans, const int* n, const int* nrhs, const cfloat* a, const int* lda,
                   const int* ipiv, cfloat* b, const int* ldb, int* info, size_t);
void scipy_zgetrs_(const char* trans, const int* n, const int* nrhs, const cdouble* a, const int* lda,
                   const int* ipiv, cdouble* b, const int* ldb, int* info, size_t);
// Bunch-Kaufman LDL^T (sytrf: symmetric; hetrf: Hermitian) and its solve
#define MT_DECLARE_LDL(name, T)                                                                        \
  void scipy_##name##trf_(const char* uplo, const int* n, T* a, const int* lda, int* ipiv, T* work,    \
                          const int* lwork, int* info, size_t);                                        \
  void scipy_##name##trs_(const char* uplo, const int* n, const int* nrhs, const T* a, const int* lda, \
                          const int* ipiv, T* b, const int* ldb, int* info, size_t);
MT_DECLARE_LDL(ssy, float)
MT_DECLARE_LDL(dsy, double)
MT_DECLARE_LDL(csy, cfloat)
MT_DECLARE_LDL(zsy, cdouble)
MT_DECLARE_LDL(che, cfloat)
MT_DECLARE_LDL(zhe, cdouble)
#undef MT_DECLARE_LDL
void scipy_cpotrf_(const char* uplo, const int* n, cfloat* a, const int* lda, int* info, size_t);
void scipy_zpotrf_(const char* uplo, const int* n, cdouble* a, const int* lda, int* info, size_t);
void scipy_ctrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
                  const int* n, const cfloat* alpha, const cfloat* a, const int* lda, cfloat* b,
                  const int* ldb, size_t, size_t, size_t, size_t);
void scipy_ztrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
                  const int* n, const cdouble* alpha, const cdouble* a, const int* lda, cdouble* b,
                  const int* ldb, size_t, size_t, size_t, size_t);
void scipy_cgeqrf_(const int* m, const int* n, cfloat* a, const int* lda, cfloat* tau, cfloat* work,
                   const int* lwork, int* info);
void scipy_zgeqrf_(const int* m, const int* n, cdouble* a, const int* lda, cdouble* tau, cdouble* work,
                   const int* lwork, int* info);
void scipy_cungqr_(const int* m, const int* n, const int* k, cfloat* a, const int* lda, const cfloat* tau,
                   cfloat* work, const int* lwork, int* info);
void scipy_zungqr_(const int* m, const int* n, const int* k, cdouble* a, const int* lda, const cdouble* tau,
                   cdouble* work, const int* lwork, int* info);
void scipy_cheevd_(const char* jobz, const char* uplo, const int* n, cfloat* a, const int* lda, float* w,
                   cfloat* work, const int* lwork, float* rwork, const int* lrwork, int* iwork,
                   const int* liwork, int* info, size_t, size_t);
void scipy_zheevd_(const char* jobz, const char* uplo, const int* n, cdouble* a, const int* lda, double* w,
                   cdouble* work, const int* lwork, double* rwork, const int* lrwork, int* iwork,
                   const int* liwork, int* info, size_t, size_t);
void scipy_cgeev_(const char* jobvl, const char* jobvr, const int* n, cfloat* a, const int* lda, cfloat* w,
                  cfloat* vl, const int* ldvl, cfloat* vr, const int* ldvr, cfloat* work, const int* lwork,
                  float* rwork, int* info, size_t, size_t);
void scipy_zgeev_(const char* jobvl, const char* jobvr, const int* n, cdouble* a, const int* lda, cdouble* w,
                  cdouble* vl, const int* ldvl, cdouble* vr, const int* ldvr, cdouble* work, const int* lwork,
                  double* rwork, int* info, size_t, size_t);
void scipy_cgesdd_(const char* jobz, const int* m, const int* n, cfloat* a, const int* lda, float* s,
                   cfloat* u, const int* ldu, cfloat* vt, const int* ldvt, cfloat* work, const int* lwork,
                   float* rwork, int* iwork, int* info, size_t);
void scipy_zgesdd_(const char* jobz, const int* m, const int* n, cdouble* a, const int* lda, double* s,
                   cdouble* u, const int* ldu, cdouble* vt, const int* ldvt, cdouble* work, const int* lwork,
                   double* rwork, int* iwork, int* info, size_t);
void scipy_cgels_(const char* trans, const int* m, const int* n, const int* nrhs, cfloat* a, const int* lda,
                  cfloat* b, const int* ldb, cfloat* work, const int* lwork, int* info, size_t);
void scipy_zgels_(const char* trans, const int* m, const int* n, const int* nrhs, cdouble* a, const int* lda,
                  cdouble* b, const int* ldb, cdouble* work, const int* lwork, int* info, size_t);
void scipy_cgelsy_(const int* m, const int* n, const int* nrhs, cfloat* a, const int* lda, cfloat* b,
                   const int* ldb, int* jpvt, const float* rcond, int* rank, cfloat* work, const int* lwork,
                   float* rwork, int* info);
void scipy_zgelsy_(const int* m, const int* n, const int* nrhs, cdouble* a, const int* lda, cdouble* b,
                   const int* ldb, int* jpvt, const double* rcond, int* rank, cdouble* work, const int* lwork,
                   double* rwork, int* info);
void scipy_cgelsd_(const int* m, const int* n, const int* nrhs, cfloat* a, const int* lda, cfloat* b,
                   const int* ldb, float* s, const float* rcond, int* rank, cfloat* work, const int* lwork,
                   float* rwork, int* iwork, int* info);
void scipy_zgelsd_(const int* m, const int* n, const int* nrhs, cdouble* a, const int* lda, cdouble* b,
                   const int* ldb, double* s, const double* rcond, int* rank, cdouble* work, const int* lwork,
                   double* rwork, int* iwork, int* info);
void scipy_cgelss_(const int* m, const int* n, const int* nrhs, cfloat* a, const int* lda, cfloat* b,
                   const int* ldb, float* s, const float* rcond, int* rank, cfloat* work, const int* lwork,
                   float* rwork, int* info);
void scipy_zgelss_(const int* m, const int* n, const int* nrhs, cdouble* a, const int* lda, cdouble* b,
                   const int* ldb, double* s, const double* rcond, int* rank, cdouble* work, const int* lwork,
                   double* rwork, int* info);
}

namespace mt {
namespace {

// The routines of one element type under one name, so each kernel below is written once. The complex drivers'
// extra real workspace is part of the common signature (R: the real type); the real forms ignore it.
template <typename T>
struct Lapack;

#define MT_LAPACK_COMMON(p, q)                      \
  static constexpr auto getrf = scipy_##p##getrf_;  \
  static constexpr auto getrs = scipy_##p##getrs_;  \
  static constexpr auto potrf = scipy_##p##potrf_;  \
  static constexpr auto trsm = scipy_##p##trsm_;    \
  static constexpr auto geqrf = scipy_##p##geqrf_;  \
  static constexpr auto orgqr = scipy_##p##q##gqr_; \
  static constexpr auto gels = scipy_##p##gels_;    \
  static constexpr auto sytrf = scipy_##p##sytrf_;  \
  static constexpr auto sytrs = scipy_##p##sytrs_;

#define MT_LAPACK_REAL(p, T)                                                                                 \
  using R = T;                                                                                               \
  MT_LAPACK_COMMON(p, or)                                                                                    \
  static constexpr auto hetrf = scipy_##p##sytrf_; /* a real Hermitian matrix is a symmetric one */          \
  static constexpr auto hetrs = scipy_##p##sytrs_;                                                           \
  static void heevd(const char* jobz, const char* uplo, const int* n, T* a, const int* lda, R* w, T* work,   \
                    const int* lwork, R*, const int*, int* iwork, const int* liwork, int* info) {            \
    scipy_##p##syevd_(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, 1, 1);                     \
  }                                                                                                          \
  static void gesdd(const char* jobz, const int* m, const int* n, T* a, const int* lda, R* s, T* u,          \
                    const int* ldu, T* vt, const int* ldvt, T* work, const int* lwork, R*, int* iwork,       \
                    int* info) {                                                                             \
    scipy_##p##gesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, 1);                 \
  }                                                                                                          \
  static void gelsy(const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b, const int* ldb, \
                    int* jpvt, const R* rcond, int* rank, T* work, const int* lwork, R*, int* info) {        \
    scipy_##p##gelsy_(m, n, nrhs, a, lda, b, ldb, jpvt, rcond, rank, work, lwork, info);                     \
  }                                                                                                          \
  static void gelsd(const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b, const int* ldb, \
                    R* s, const R* rcond, int* rank, T* work, const int* lwork, R*, int* iwork, int* info) { \
    scipy_##p##gelsd_(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info);                 \
  }                                                                                                          \
  static void gelss(const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b, const int* ldb, \
                    R* s, const R* rcond, int* rank, T* work, const int* lwork, R*, int* info) {             \
    scipy_##p##gelss_(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, info);                        \
  }

#define MT_LAPACK_COMPLEX(p, T, RT)                                                                          \
  using R = RT;                                                                                              \
  MT_LAPACK_COMMON(p, un)                                                                                    \
  static constexpr auto hetrf = scipy_##p##hetrf_;                                                           \
  static constexpr auto hetrs = scipy_##p##hetrs_;                                                           \
  static constexpr auto geev = scipy_##p##geev_;                                                             \
  static void heevd(const char* jobz, const char* uplo, const int* n, T* a, const int* lda, R* w, T* work,   \
                    const int* lwork, R* rwork, const int* lrwork, int* iwork, const int* liwork,            \
                    int* info) {                                                                             \
    scipy_##p##heevd_(jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, 1, 1);      \
  }                                                                                                          \
  static void gesdd(const char* jobz, const int* m, const int* n, T* a, const int* lda, R* s, T* u,          \
                    const int* ldu, T* vt, const int* ldvt, T* work, const int* lwork, R* rwork, int* iwork, \
                    int* info) {                                                                             \
    scipy_##p##gesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, 1);          \
  }                                                                                                          \
  static constexpr auto gelsy = scipy_##p##gelsy_;                                                           \
  static constexpr auto gelsd = scipy_##p##gelsd_;                                                           \
  static constexpr auto gelss = scipy_##p##gelss_;

template <>
struct Lapack<float> {
  MT_LAPACK_REAL(s, float)
  static constexpr auto geev = scipy_sgeev_;
};
template <>
struct Lapack<double> {
  MT_LAPACK_REAL(d, double)
  static constexpr auto geev = scipy_dgeev_;
};
template <>
struct Lapack<cfloat> {
  MT_LAPACK_COMPLEX(c, cfloat, float)
};
template <>
struct Lapack<cdouble> {
  MT_LAPACK_COMPLEX(z, cdouble, double)
};
#undef MT_LAPACK_REAL
#undef MT_LAPACK_COMPLEX
#undef MT_LAPACK_COMMON

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
template <typename T>
int query_size(std::complex<T> w) {
  return query_size(w.real());
}

// LAPACK's iterative drivers (gesdd, syevd, gelsd/gelss/gelsy) can loop without end on inf or NaN input, so
// such a matrix never reaches them: its results are NaN and its info is kNonFinite, for the caller to report.
constexpr int kNonFinite = -1000;

template <typename T>
bool finite(T x) {
  return std::isfinite(x);
}
template <typename T>
bool finite(std::complex<T> x) {
  return std::isfinite(x.real()) && std::isfinite(x.imag());
}

template <typename T>
bool all_finite(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!finite(p[i])) return false;
  return true;
}

template <typename T>
T nan_of() {
  return std::numeric_limits<T>::quiet_NaN();
}
template <>
cfloat nan_of<cfloat>() {
  return {nan_of<float>(), nan_of<float>()};
}
template <>
cdouble nan_of<cdouble>() {
  return {nan_of<double>(), nan_of<double>()};
}

template <typename T>
void fill_nan(T* p, int64_t n) {
  std::fill(p, p + n, nan_of<T>());
}

template <typename F>
void dispatch_float(ScalarType dt, const char* name, F&& f) {
  if (dt == ScalarType::Float) return f(float{});
  if (dt == ScalarType::Double) return f(double{});
  MT_CHECK_NOT_IMPLEMENTED(false, "\"", name, "_cpu\" not implemented for '", dtype_short_name(dt), "'");
}

// float, double, complex64 and complex128: the four element types LAPACK has.
template <typename F>
void dispatch_lapack(ScalarType dt, const char* name, F&& f) {
  if (dt == ScalarType::ComplexFloat) return f(cfloat{});
  if (dt == ScalarType::ComplexDouble) return f(cdouble{});
  dispatch_float(dt, name, std::forward<F>(f));
}

void lu_factor_cpu(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  dispatch_lapack(a.dtype(), "lu_factor", [&](auto tag) {
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

void lu_solve_cpu(const Tensor& lu, const Tensor& pivots, const Tensor& b, char trans) {
  dispatch_lapack(b.dtype(), "lu_solve", [&](auto tag) {
    using T = decltype(tag);
    Batch l(lu), x(b);
    char tr = trans;
    for (int64_t i = 0; i < x.count; ++i) {
      int info = 0, lda = ld(l.rows), ldb = ld(x.rows);
      Lapack<T>::getrs(&tr, &l.rows, &x.cols, lu.data<T>() + i * l.stride(), &lda,
                       pivots.data<int>() + i * l.rows, b.data<T>() + i * x.stride(), &ldb, &info, 1);
      MT_INTERNAL_ASSERT(info == 0, "getrs: argument ", -info, " was invalid");
    }
  });
}

// Bunch-Kaufman on the lower triangle, as PyTorch's ldl_factor: sytrf (symmetric) or hetrf (Hermitian).
void ldl_factor_cpu(const Tensor& a, const Tensor& pivots, const Tensor& info, bool hermitian) {
  dispatch_lapack(a.dtype(), "ldl_factor", [&](auto tag) {
    using T = decltype(tag);
    Batch b(a);
    const char uplo = 'L';
    int lda = ld(b.rows), lwork = -1, q = 0;
    T w = 0;
    (hermitian ? Lapack<T>::hetrf : Lapack<T>::sytrf)(&uplo, &b.rows, nullptr, &lda, nullptr, &w, &lwork, &q,
                                                      1);
    lwork = query_size(w);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < b.count; ++i)
      (hermitian ? Lapack<T>::hetrf : Lapack<T>::sytrf)(&uplo, &b.rows, a.data<T>() + i * b.stride(), &lda,
                                                        pivots.data<int>() + i * b.rows, work.data(), &lwork,
                                                        info.data<int>() + i, 1);
  });
}

void ldl_solve_cpu(const Tensor& ld_, const Tensor& pivots, const Tensor& b, bool hermitian) {
  dispatch_lapack(b.dtype(), "ldl_solve", [&](auto tag) {
    using T = decltype(tag);
    Batch l(ld_), x(b);
    const char uplo = 'L';
    for (int64_t i = 0; i < x.count; ++i) {
      int info = 0, lda = ld(l.rows), ldb = ld(x.rows);
      (hermitian ? Lapack<T>::hetrs : Lapack<T>::sytrs)(
          &uplo, &l.rows, &x.cols, ld_.data<T>() + i * l.stride(), &lda, pivots.data<int>() + i * l.rows,
          b.data<T>() + i * x.stride(), &ldb, &info, 1);
      MT_INTERNAL_ASSERT(info == 0, "sytrs: argument ", -info, " was invalid");
    }
  });
}

void cholesky_cpu(const Tensor& a, bool upper, const Tensor& info) {
  dispatch_lapack(a.dtype(), "cholesky", [&](auto tag) {
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
  dispatch_lapack(b.dtype(), "triangular_solve", [&](auto tag) {
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
  dispatch_lapack(a.dtype(), "geqrf", [&](auto tag) {
    using T = decltype(tag);
    Batch b(a);
    int k = std::min(b.rows, b.cols), lda = ld(b.rows), info = 0, lwork = -1;
    T w = 0;
    Lapack<T>::geqrf(&b.rows, &b.cols, nullptr, &lda, nullptr, &w, &lwork, &info);
    lwork = query_size(w);
    std::vector<T> work(static_cast<size_t>(lwork));
    // -0.0 becomes +0.0 first: the reflector's sign follows sign(alpha), which reference LAPACK takes as
    // negative for -0.0 and MKL (PyTorch's) as positive; both are valid QRs, this one is PyTorch's
    T* data = a.data<T>();
    for (int64_t i = 0, n = b.count * b.stride(); i < n; ++i) data[i] += T(0);
    for (int64_t i = 0; i < b.count; ++i) {
      Lapack<T>::geqrf(&b.rows, &b.cols, a.data<T>() + i * b.stride(), &lda, tau.data<T>() + i * k,
                       work.data(), &lwork, &info);
      MT_INTERNAL_ASSERT(info == 0, "geqrf: argument ", -info, " was invalid");
    }
  });
}

// a [batch, n, m] column-major holds the reflectors in its first k = tau.size(-1) columns; m >= n >= k.
void householder_product_cpu(const Tensor& a, const Tensor& tau) {
  dispatch_lapack(a.dtype(), "orgqr", [&](auto tag) {
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
  dispatch_lapack(a.dtype(), "linalg_eigh", [&](auto tag) {
    using T = decltype(tag);
    Batch b(a);
    using R = typename Lapack<T>::R;
    char jobz = compute_v ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    int lda = ld(b.rows), lwork = -1, lrwork = -1, liwork = -1, iw = 0, q = 0;
    T wq = 0;
    R rq = 0;
    Lapack<T>::heevd(&jobz, &uplo, &b.rows, nullptr, &lda, nullptr, &wq, &lwork, &rq, &lrwork, &iw, &liwork,
                     &q);
    lwork = query_size(wq);
    lrwork = query_size(rq);
    liwork = std::max(1, iw);
    std::vector<T> work(static_cast<size_t>(lwork));
    std::vector<R> rwork(static_cast<size_t>(lrwork));
    std::vector<int> iwork(static_cast<size_t>(liwork));
    for (int64_t i = 0; i < b.count; ++i) {
      T* ap = a.data<T>() + i * b.stride();
      if (!all_finite(ap, b.stride())) {
        fill_nan(ap, b.stride());
        fill_nan(w.data<R>() + i * b.rows, b.rows);
        info.data<int>()[i] = kNonFinite;
        continue;
      }
      Lapack<T>::heevd(&jobz, &uplo, &b.rows, ap, &lda, w.data<R>() + i * b.rows, work.data(), &lwork,
                       rwork.data(), &lrwork, iwork.data(), &liwork, info.data<int>() + i);
    }
  });
}

// a [batch, n, n] real, column-major (destroyed); w [batch, n] and v [batch, n, n] (column-major) complex of
// a's precision. geev stores a conjugate pair's eigenvectors as two real columns (re, im): they become
// re + i im and its conjugate.
// The same for a complex a: geev writes the eigenvalues and eigenvectors straight into w and v.
void eig_complex_cpu(const Tensor& a, const Tensor& w, const Tensor& v, bool compute_v, const Tensor& info) {
  auto run = [&](auto tag) {
    using C = decltype(tag);
    using R = typename Lapack<C>::R;
    Batch b(a);
    const int n = b.rows;
    char jobvl = 'N', jobvr = compute_v ? 'V' : 'N';
    int lda = ld(n), ldv = ld(n), lwork = -1, q = 0;
    C wq = 0;
    std::vector<R> rwork(static_cast<size_t>(std::max(1, 2 * n)));
    Lapack<C>::geev(&jobvl, &jobvr, &b.rows, nullptr, &lda, nullptr, nullptr, &ldv, nullptr, &ldv, &wq,
                    &lwork, rwork.data(), &q, 1, 1);
    lwork = query_size(wq);
    std::vector<C> work(static_cast<size_t>(lwork)), scratch(compute_v ? 0 : 1);
    for (int64_t i = 0; i < b.count; ++i) {
      C* ap = a.data<C>() + i * b.stride();
      C* wp = w.data<C>() + i * n;
      C* vp = compute_v ? v.data<C>() + i * b.stride() : scratch.data();
      if (!all_finite(ap, b.stride())) {
        fill_nan(wp, n);
        if (compute_v) fill_nan(vp, b.stride());
        info.data<int>()[i] = kNonFinite;
        continue;
      }
      Lapack<C>::geev(&jobvl, &jobvr, &b.rows, ap, &lda, wp, nullptr, &ldv, vp, &ldv, work.data(), &lwork,
                      rwork.data(), info.data<int>() + i, 1, 1);
    }
  };
  if (a.dtype() == ScalarType::ComplexFloat) return run(cfloat{});
  run(cdouble{});
}

void eig_cpu(const Tensor& a, const Tensor& w, const Tensor& v, bool compute_v, const Tensor& info) {
  if (is_complex(a.dtype())) return eig_complex_cpu(a, w, v, compute_v, info);
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
  dispatch_lapack(a.dtype(), "linalg_svd", [&](auto tag) {
    using T = decltype(tag);
    using R = typename Lapack<T>::R;
    Batch b(a);
    int m = b.rows, n = b.cols, k = std::min(m, n), mx = std::max(m, n);
    char jobz = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
    // The complex gesdd's real workspace (its documented minimum; it has no query). The real one takes none.
    const int64_t k64 = k, mx64 = mx;
    size_t lrwork = !is_complex(a.dtype()) ? 1
                    : compute_uv
                        ? size_t(std::max(5 * k64 * k64 + 5 * k64, 2 * mx64 * k64 + 2 * k64 * k64 + k64))
                        : size_t(std::max<int64_t>(1, 7 * k64));
    std::vector<R> rwork(lrwork);
    int lda = ld(m), ldu = ld(m), ldvt = ld(compute_uv ? int(vh.sizes()[2]) : 1), lwork = -1, q = 0;
    T wq = 0;
    std::vector<int> iwork(size_t(std::max(1, 8 * k)));
    T* up = compute_uv ? u.data<T>() : nullptr;
    T* vp = compute_uv ? vh.data<T>() : nullptr;
    Lapack<T>::gesdd(&jobz, &m, &n, nullptr, &lda, nullptr, up, &ldu, vp, &ldvt, &wq, &lwork, rwork.data(),
                     iwork.data(), &q);
    lwork = query_size(wq);
    std::vector<T> work(static_cast<size_t>(lwork));
    int64_t us = compute_uv ? u.sizes()[1] * u.sizes()[2] : 0,
            vs = compute_uv ? vh.sizes()[1] * vh.sizes()[2] : 0;
    for (int64_t i = 0; i < b.count; ++i) {
      T* ap = a.data<T>() + i * b.stride();
      if (!all_finite(ap, b.stride())) {
        fill_nan(s.data<R>() + i * k, k);
        if (up) fill_nan(up + i * us, us);
        if (vp) fill_nan(vp + i * vs, vs);
        info.data<int>()[i] = kNonFinite;
        continue;
      }
      Lapack<T>::gesdd(&jobz, &m, &n, ap, &lda, s.data<R>() + i * k, up ? up + i * us : nullptr, &ldu,
                       vp ? vp + i * vs : nullptr, &ldvt, work.data(), &lwork, rwork.data(), iwork.data(),
                       info.data<int>() + i);
    }
  });
}

// a [batch, n, m], b [batch, k, max(m, n)] column-major; s [batch, min(m, n)]; rank int64 [batch].
void lstsq_cpu(const Tensor& a, const Tensor& b, const Tensor& s, const Tensor& rank, double rcond,
               const std::string& driver, const Tensor& info) {
  dispatch_lapack(a.dtype(), "linalg_lstsq", [&](auto tag) {
    using T = decltype(tag);
    using R = typename Lapack<T>::R;
    Batch ab(a), bb(b);
    int m = ab.rows, n = ab.cols, nrhs = bb.cols, lda = ld(m), ldb = ld(bb.rows), lwork = -1, q = 0, r = 0;
    int k = std::min(m, n);
    R rc = R(rcond), rq = 0;
    T wq = 0;
    char tr = 'N';
    std::vector<int> jpvt(size_t(std::max(1, n)));
    std::vector<int> iwork(1);
    // The complex drivers' real workspace: gelsy 2n, gelss 5 min(m, n), gelsd by its query.
    std::vector<R> rwork(size_t(std::max(1, std::max(2 * n, 5 * k))));
    if (driver == "gels") {
      Lapack<T>::gels(&tr, &m, &n, &nrhs, nullptr, &lda, nullptr, &ldb, &wq, &lwork, &q, 1);
    } else if (driver == "gelsy") {
      Lapack<T>::gelsy(&m, &n, &nrhs, nullptr, &lda, nullptr, &ldb, jpvt.data(), &rc, &r, &wq, &lwork,
                       rwork.data(), &q);
    } else if (driver == "gelsd") {
      int iw = 0;
      lwork = -1;
      Lapack<T>::gelsd(&m, &n, &nrhs, nullptr, &lda, nullptr, &ldb, nullptr, &rc, &r, &wq, &lwork, &rq, &iw,
                       &q);
      iwork.resize(size_t(std::max(1, iw)));
      if (is_complex(a.dtype())) rwork.resize(std::max(rwork.size(), size_t(query_size(rq))));
    } else {
      Lapack<T>::gelss(&m, &n, &nrhs, nullptr, &lda, nullptr, &ldb, nullptr, &rc, &r, &wq, &lwork,
                       rwork.data(), &q);
    }
    lwork = query_size(wq);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < ab.count; ++i) {
      T* ap = a.data<T>() + i * ab.stride();
      T* bp = b.data<T>() + i * bb.stride();
      R* sp = s.numel() ? s.data<R>() + i * k : nullptr;
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
        Lapack<T>::gelsy(&m, &n, &nrhs, ap, &lda, bp, &ldb, jpvt.data(), &rc, &r, work.data(), &lwork,
                         rwork.data(), ip);
      } else if (driver == "gelsd") {
        Lapack<T>::gelsd(&m, &n, &nrhs, ap, &lda, bp, &ldb, sp, &rc, &r, work.data(), &lwork, rwork.data(),
                         iwork.data(), ip);
      } else {
        Lapack<T>::gelss(&m, &n, &nrhs, ap, &lda, bp, &ldb, sp, &rc, &r, work.data(), &lwork, rwork.data(),
                         ip);
      }
      rank.data<int64_t>()[i] = r;
    }
  });
}

}  // namespace

MT_REGISTER_KERNEL(lu_factor_stub, CPU, &lu_factor_cpu);
MT_REGISTER_KERNEL(lu_solve_stub, CPU, &lu_solve_cpu);
MT_REGISTER_KERNEL(ldl_factor_stub, CPU, &ldl_factor_cpu);
MT_REGISTER_KERNEL(ldl_solve_stub, CPU, &ldl_solve_cpu);
MT_REGISTER_KERNEL(cholesky_stub, CPU, &cholesky_cpu);
MT_REGISTER_KERNEL(triangular_solve_stub, CPU, &triangular_solve_cpu);
MT_REGISTER_KERNEL(geqrf_stub, CPU, &geqrf_cpu);
MT_REGISTER_KERNEL(householder_product_stub, CPU, &householder_product_cpu);
MT_REGISTER_KERNEL(eigh_stub, CPU, &eigh_cpu);
MT_REGISTER_KERNEL(eig_stub, CPU, &eig_cpu);
MT_REGISTER_KERNEL(svd_stub, CPU, &svd_cpu);
MT_REGISTER_KERNEL(lstsq_stub, CPU, &lstsq_cpu);

}  // namespace mt
