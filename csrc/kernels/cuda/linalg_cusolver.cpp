// CUDA kernels of the decompositions (ops/linalg_decomp.h) through cuSOLVER's 64-bit generic API (Xgetrf,
// Xgetrs, Xpotrf, Xgeqrf, Xsyevd, Xgesvd: one call per matrix, the element type a cudaDataType), the typed
// orgqr/ungqr and ormqr/unmqr, and cuBLAS's trsm; lstsq's gels is geqrf + ormqr + trsm. Batches of small
// matrices take the batched routines instead, by PyTorch's heuristics: cuSOLVER potrfBatched, cuBLAS
// getrfBatched/getrsBatched/trsmBatched (their matrices given as a device array of pointers). Buffers and
// info arrays stay on the device; nothing here waits on it. The handle is per thread and device, bound to the
// current stream; device workspace comes from the caching allocator, host workspace (the 64-bit API asks for
// some) lives until the kernel returns, as PyTorch's.
//
// Where this differs from the CPU kernels' contract:
// - no inf/NaN pre-check (info -1000): that would read the matrix on the host. cuSOLVER's drivers stop after
//   a bounded number of iterations, so a non-finite matrix gives NaN results or a positive info (reported by
//   the Python layer as "failed to converge", which is what PyTorch's CUDA path reports); linalg.svd checks
//   CUDA inputs for NaN itself (python/minitorch/linalg/_decomp.py _raise_if_nan).
// - geqrf does not turn -0.0 into +0.0 first: its reflectors are cuSOLVER's, as PyTorch's on CUDA.
// - lu_solve clamps pivots into [1, n] instead of rejecting them (the front end checks them on the CPU only).
// - svd runs gesvd (QR iteration) where PyTorch runs gesvdj and falls back to gesvd; for m < n it factors
//   A^H, as gesvd needs m >= n. Singular vectors may differ from the CPU's by their signs (phases).
// - lstsq has gels only and checks no rank (info stays 0; rank is set to min(m, n), which the Python layer
//   reads to give residuals and then drops, as PyTorch has no rank from gels).
#if defined(MINITORCH_WITH_CUDA) && defined(MINITORCH_WITH_CUSOLVER)
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/CUBLASCheck.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "cuda/HandlePool.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/linalg_decomp.h"
#include "ops/shape.h"

namespace mt {
namespace cuda {
namespace {

const char* status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_NOT_INITIALIZED:
      return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED:
      return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE:
      return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH:
      return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED:
      return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR:
      return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default:
      return "unknown status";
  }
}

void check(cusolverStatus_t s, const char* what) {
  MT_CHECK(s == CUSOLVER_STATUS_SUCCESS, "cuSOLVER error ", static_cast<int>(s), " (", status_name(s),
           ") in ", what);
}

void create_handle(cusolverDnHandle_t* h) {
  check(cusolverDnCreate(h), "cusolverDnCreate");
}
using SolverPool = HandlePool<cusolverDnHandle_t, &create_handle>;

// The handle for t's device (made current by the caller's DeviceGuard), bound to the current stream.
cusolverDnHandle_t handle_for(const Tensor& t) {
  const int device = t.device().index;
  cusolverDnHandle_t h = SolverPool::get(device);
  check(cusolverDnSetStream(h, current_stream(device)), "cusolverDnSetStream");
  return h;
}

// The 64-bit API's options (default algorithms), destroyed with the scope.
struct Params {
  cusolverDnParams_t p = nullptr;
  Params() { check(cusolverDnCreateParams(&p), "cusolverDnCreateParams"); }
  ~Params() {
    if (p) cusolverDnDestroyParams(p);
  }
  Params(const Params&) = delete;
  Params& operator=(const Params&) = delete;
};

// The workspace a *_bufferSize query asked for: device bytes from the caching allocator (stream-ordered, so
// reused by every matrix of the loop), host bytes in a vector.
struct Workspace {
  size_t device_bytes = 0, host_bytes = 0;
  Tensor device;
  std::vector<char> host;
  void allocate(Device dev) {
    device = make_empty({static_cast<int64_t>(std::max<size_t>(device_bytes, 1))}, ScalarType::Byte, dev);
    host.resize(std::max<size_t>(host_bytes, 1));
  }
  void* d() const { return device.data_ptr(); }
  void* h() { return host.data(); }
};

cudaDataType data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return CUDA_R_32F;
    case ScalarType::Double:
      return CUDA_R_64F;
    case ScalarType::ComplexFloat:
      return CUDA_C_32F;
    case ScalarType::ComplexDouble:
      return CUDA_C_64F;
    default:
      MT_CHECK_NOT_IMPLEMENTED(false, "cuSOLVER: linalg is not implemented for '", dtype_short_name(t), "'");
  }
  return CUDA_R_32F;
}

// A column-major batch [batch, cols, rows]: its matrix count, row count (the leading dimension) and columns.
struct Batch {
  int64_t count, rows, cols;
  explicit Batch(const Tensor& t) : count(t.sizes()[0]), rows(t.sizes()[2]), cols(t.sizes()[1]) {}
  int64_t stride() const { return rows * cols; }
};

// cuSOLVER wants lda >= 1 even for an empty matrix.
int64_t ld(int64_t rows) {
  return std::max<int64_t>(rows, 1);
}

// Element i * stride of t's data (stride in elements).
void* at(const Tensor& t, int64_t i, int64_t stride) {
  return static_cast<char*>(t.data_ptr()) + i * stride * static_cast<int64_t>(t.itemsize());
}

int* info_at(const Tensor& info, int64_t i) {
  return static_cast<int*>(info.data_ptr()) + i;
}

// An info array for routines whose info only reports an invalid argument (our bug, never the data's).
Tensor scratch_info(Device dev) {
  return make_empty({1}, ScalarType::Int, dev);
}

// cuBLAS's trsm, cuSOLVER's orgqr/ungqr and the batched routines have no generic form: one name per element
// type.
template <typename T>
struct Typed;
template <>
struct Typed<float> {
  static constexpr auto trsm = cublasStrsm;
  static constexpr auto orgqr_bufferSize = cusolverDnSorgqr_bufferSize;
  static constexpr auto orgqr = cusolverDnSorgqr;
  static constexpr auto potrfBatched = cusolverDnSpotrfBatched;
  static constexpr auto getrfBatched = cublasSgetrfBatched;
  static constexpr auto getrsBatched = cublasSgetrsBatched;
  static constexpr auto trsmBatched = cublasStrsmBatched;
  static constexpr auto ormqr_bufferSize = cusolverDnSormqr_bufferSize;
  static constexpr auto ormqr = cusolverDnSormqr;
};
template <>
struct Typed<double> {
  static constexpr auto trsm = cublasDtrsm;
  static constexpr auto orgqr_bufferSize = cusolverDnDorgqr_bufferSize;
  static constexpr auto orgqr = cusolverDnDorgqr;
  static constexpr auto potrfBatched = cusolverDnDpotrfBatched;
  static constexpr auto getrfBatched = cublasDgetrfBatched;
  static constexpr auto getrsBatched = cublasDgetrsBatched;
  static constexpr auto trsmBatched = cublasDtrsmBatched;
  static constexpr auto ormqr_bufferSize = cusolverDnDormqr_bufferSize;
  static constexpr auto ormqr = cusolverDnDormqr;
};
template <>
struct Typed<cuComplex> {
  static constexpr auto trsm = cublasCtrsm;
  static constexpr auto orgqr_bufferSize = cusolverDnCungqr_bufferSize;
  static constexpr auto orgqr = cusolverDnCungqr;
  static constexpr auto potrfBatched = cusolverDnCpotrfBatched;
  static constexpr auto getrfBatched = cublasCgetrfBatched;
  static constexpr auto getrsBatched = cublasCgetrsBatched;
  static constexpr auto trsmBatched = cublasCtrsmBatched;
  static constexpr auto ormqr_bufferSize = cusolverDnCunmqr_bufferSize;
  static constexpr auto ormqr = cusolverDnCunmqr;
};
template <>
struct Typed<cuDoubleComplex> {
  static constexpr auto trsm = cublasZtrsm;
  static constexpr auto orgqr_bufferSize = cusolverDnZungqr_bufferSize;
  static constexpr auto orgqr = cusolverDnZungqr;
  static constexpr auto potrfBatched = cusolverDnZpotrfBatched;
  static constexpr auto getrfBatched = cublasZgetrfBatched;
  static constexpr auto getrsBatched = cublasZgetrsBatched;
  static constexpr auto trsmBatched = cublasZtrsmBatched;
  static constexpr auto ormqr_bufferSize = cusolverDnZunmqr_bufferSize;
  static constexpr auto ormqr = cusolverDnZunmqr;
};

template <typename F>
void dispatch_typed(ScalarType dt, F&& f) {
  switch (dt) {
    case ScalarType::Float:
      return f(float{});
    case ScalarType::Double:
      return f(double{});
    case ScalarType::ComplexFloat:
      return f(cuComplex{});
    case ScalarType::ComplexDouble:
      return f(cuDoubleComplex{});
    default:
      data_type(dt);  // raises
  }
}

template <typename T>
T one() {
  return T(1);
}
template <>
cuComplex one<cuComplex>() {
  return make_cuComplex(1.0f, 0.0f);
}
template <>
cuDoubleComplex one<cuDoubleComplex>() {
  return make_cuDoubleComplex(1.0, 0.0);
}

// The device array of pointers to each matrix of a batch (stride elements apart) that the batched routines
// take, written on the current stream. Not through to(), which waits for a copy from pageable memory: a
// cudaMemcpyAsync from pageable memory stages the source before it returns (kernels/cuda/index.cu does the
// same), and the buffer is stream-ordered.
Tensor pointers(const Tensor& t, int64_t count, int64_t stride) {
  std::vector<void*> host(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) host[static_cast<size_t>(i)] = at(t, i, stride);
  Tensor buf = make_empty({count}, ScalarType::Long, t.device());
  MT_CUDA_CHECK(cudaMemcpyAsync(buf.data_ptr(), host.data(), host.size() * sizeof(void*),
                                cudaMemcpyHostToDevice, current_stream(t.device().index)));
  return buf;
}

template <typename T>
T* const* as_array(const Tensor& ptrs) {
  return static_cast<T* const*>(ptrs.data_ptr());
}

// The batched routines count matrices and sizes in int.
bool fits_int(int64_t count, int64_t rows, int64_t cols) {
  return count <= INT32_MAX && rows <= INT32_MAX && cols <= INT32_MAX;
}

void lu_factor_cuda(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  DeviceGuard g(a.device());
  Batch b(a);
  // PyTorch's choice without MAGMA: cuBLAS's batched LU for a batch of square matrices under 512
  if (b.count > 1 && b.rows == b.cols && b.rows < 512 && fits_int(b.count, b.rows, b.cols)) {
    cublasHandle_t h = cublas_handle(a.device().index);
    Tensor ptrs = pointers(a, b.count, b.stride());
    return dispatch_typed(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      MT_CUBLAS_CHECK(Typed<T>::getrfBatched(h, int(b.rows), as_array<T>(ptrs), int(ld(b.rows)),
                                             static_cast<int*>(pivots.data_ptr()), info_at(info, 0),
                                             int(b.count)));
    });
  }
  const int64_t k = std::min(b.rows, b.cols);
  const cudaDataType dt = data_type(a.dtype());
  cusolverDnHandle_t h = handle_for(a);
  Params p;
  Workspace ws;
  check(cusolverDnXgetrf_bufferSize(h, p.p, b.rows, b.cols, dt, a.data_ptr(), ld(b.rows), dt,
                                    &ws.device_bytes, &ws.host_bytes),
        "cusolverDnXgetrf_bufferSize");
  ws.allocate(a.device());
  // the 64-bit API's pivots are int64; the contract's are int32
  Tensor piv = make_empty({b.count, k}, ScalarType::Long, a.device());
  for (int64_t i = 0; i < b.count; ++i)
    check(cusolverDnXgetrf(h, p.p, b.rows, b.cols, dt, at(a, i, b.stride()), ld(b.rows),
                           static_cast<int64_t*>(piv.data_ptr()) + i * k, dt, ws.d(), ws.device_bytes, ws.h(),
                           ws.host_bytes, info_at(info, i)),
          "cusolverDnXgetrf");
  copy_(pivots, piv);
}

cublasOperation_t to_op(char trans) {
  return trans == 'C' ? CUBLAS_OP_C : trans == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N;
}

void lu_solve_cuda(const Tensor& lu, const Tensor& pivots, const Tensor& b, char trans) {
  DeviceGuard g(b.device());
  Batch l(lu), x(b);
  const cudaDataType dt = data_type(b.dtype());
  cusolverDnHandle_t h = handle_for(b);
  Params p;
  // getrs swaps rows by the pivots unchecked: clamped, a bad one gives a wrong answer, never a wild write
  // PyTorch's choice: cuSOLVER's loop for one or two large systems, cuBLAS's batched solve otherwise
  const bool batched = !(x.count <= 2 && l.rows >= 64) && fits_int(x.count, x.rows, x.cols);
  Tensor piv = contiguous(clamp(to(pivots, batched ? ScalarType::Int : ScalarType::Long, b.device()),
                                wrapped_scalar(Scalar(int64_t(1))),
                                wrapped_scalar(Scalar(int64_t(std::max<int64_t>(l.rows, 1))))));
  if (batched) {
    cublasHandle_t hb = cublas_handle(b.device().index);
    Tensor lp = pointers(lu, x.count, l.stride()), bp = pointers(b, x.count, x.stride());
    return dispatch_typed(b.dtype(), [&](auto tag) {
      using T = decltype(tag);
      int arg = 0;  // cuBLAS's getrsBatched reports an invalid argument on the host
      MT_CUBLAS_CHECK(Typed<T>::getrsBatched(hb, to_op(trans), int(l.rows), int(x.cols), as_array<T>(lp),
                                             int(ld(l.rows)), static_cast<const int*>(piv.data_ptr()),
                                             as_array<T>(bp), int(ld(x.rows)), &arg, int(x.count)));
      MT_INTERNAL_ASSERT(arg == 0, "cublas<t>getrsBatched: argument ", -arg, " was invalid");
    });
  }
  Tensor info = scratch_info(b.device());
  for (int64_t i = 0; i < x.count; ++i)
    check(cusolverDnXgetrs(h, p.p, to_op(trans), l.rows, x.cols, dt, at(lu, i, l.stride()), ld(l.rows),
                           static_cast<const int64_t*>(piv.data_ptr()) + i * l.rows, dt, at(b, i, x.stride()),
                           ld(x.rows), info_at(info, 0)),
          "cusolverDnXgetrs");
}

cublasFillMode_t fill_mode(bool upper) {
  return upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}

void cholesky_cuda(const Tensor& a, bool upper, const Tensor& info) {
  DeviceGuard g(a.device());
  Batch b(a);
  const cudaDataType dt = data_type(a.dtype());
  cusolverDnHandle_t h = handle_for(a);
  if (b.count > 1 && fits_int(b.count, b.rows, b.cols)) {  // PyTorch's choice for every batch
    Tensor ptrs = pointers(a, b.count, b.stride());
    return dispatch_typed(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      check(Typed<T>::potrfBatched(h, fill_mode(upper), int(b.rows), const_cast<T**>(as_array<T>(ptrs)),
                                   int(ld(b.rows)), info_at(info, 0), int(b.count)),
            "cusolverDn<t>potrfBatched");
    });
  }
  Params p;
  Workspace ws;
  check(cusolverDnXpotrf_bufferSize(h, p.p, fill_mode(upper), b.rows, dt, a.data_ptr(), ld(b.rows), dt,
                                    &ws.device_bytes, &ws.host_bytes),
        "cusolverDnXpotrf_bufferSize");
  ws.allocate(a.device());
  for (int64_t i = 0; i < b.count; ++i)
    check(cusolverDnXpotrf(h, p.p, fill_mode(upper), b.rows, dt, at(a, i, b.stride()), ld(b.rows), dt, ws.d(),
                           ws.device_bytes, ws.h(), ws.host_bytes, info_at(info, i)),
          "cusolverDnXpotrf");
}

void triangular_solve_cuda(const Tensor& a, const Tensor& b, bool upper, bool left, bool trans,
                           bool unitriangular) {
  DeviceGuard g(b.device());
  Batch m(a), x(b);
  cublasHandle_t h = cublas_handle(b.device().index);
  const cublasSideMode_t side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const cublasOperation_t op = trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasDiagType_t diag = unitriangular ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
  MT_CHECK(x.rows <= INT32_MAX && x.cols <= INT32_MAX, "linalg.solve_triangular: a right-hand side of ",
           x.rows, " by ", x.cols, " exceeds cuBLAS's 32-bit sizes");
  // PyTorch's choice: a loop for a few large matrices, the batched routine otherwise
  const bool batched = !(x.count <= 8 && m.rows >= 64) && x.count > 1 && x.count <= INT32_MAX;
  Tensor ap = batched ? pointers(a, x.count, m.stride()) : Tensor();
  Tensor bp = batched ? pointers(b, x.count, x.stride()) : Tensor();
  dispatch_typed(b.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T alpha = one<T>();  // cuBLAS's default pointer mode reads alpha on the host
    if (batched) {
      MT_CUBLAS_CHECK(Typed<T>::trsmBatched(h, side, fill_mode(upper), op, diag, int(x.rows), int(x.cols),
                                            &alpha, as_array<const T>(ap), int(ld(m.rows)), as_array<T>(bp),
                                            int(ld(x.rows)), int(x.count)));
      return;
    }
    for (int64_t i = 0; i < x.count; ++i)
      MT_CUBLAS_CHECK(Typed<T>::trsm(h, side, fill_mode(upper), op, diag, int(x.rows), int(x.cols), &alpha,
                                     static_cast<const T*>(at(a, i, m.stride())), int(ld(m.rows)),
                                     static_cast<T*>(at(b, i, x.stride())), int(ld(x.rows))));
  });
}

void geqrf_cuda(const Tensor& a, const Tensor& tau) {
  DeviceGuard g(a.device());
  Batch b(a);
  const int64_t k = std::min(b.rows, b.cols);
  const cudaDataType dt = data_type(a.dtype());
  cusolverDnHandle_t h = handle_for(a);
  Params p;
  Workspace ws;
  check(cusolverDnXgeqrf_bufferSize(h, p.p, b.rows, b.cols, dt, a.data_ptr(), ld(b.rows), dt, tau.data_ptr(),
                                    dt, &ws.device_bytes, &ws.host_bytes),
        "cusolverDnXgeqrf_bufferSize");
  ws.allocate(a.device());
  Tensor info = scratch_info(a.device());
  for (int64_t i = 0; i < b.count; ++i)
    check(cusolverDnXgeqrf(h, p.p, b.rows, b.cols, dt, at(a, i, b.stride()), ld(b.rows), dt, at(tau, i, k),
                           dt, ws.d(), ws.device_bytes, ws.h(), ws.host_bytes, info_at(info, 0)),
          "cusolverDnXgeqrf");
}

// a [batch, n, m] column-major holds the reflectors in its first k = tau.size(-1) columns; m >= n >= k.
void householder_product_cuda(const Tensor& a, const Tensor& tau) {
  DeviceGuard g(a.device());
  Batch b(a);
  const int64_t k = tau.sizes()[1];
  MT_CHECK(b.rows <= INT32_MAX && b.cols <= INT32_MAX,
           "torch.linalg.householder_product: sizes exceed cuSOLVER's 32-bit orgqr");
  cusolverDnHandle_t h = handle_for(a);
  dispatch_typed(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int m = int(b.rows), n = int(b.cols), kk = int(k), lda = int(ld(b.rows));
    int lwork = 0;
    check(Typed<T>::orgqr_bufferSize(h, m, n, kk, static_cast<const T*>(a.data_ptr()), lda,
                                     static_cast<const T*>(tau.data_ptr()), &lwork),
          "cusolverDn<t>orgqr_bufferSize");
    Tensor work =
        make_empty({std::max<int64_t>(lwork, 1) * int64_t(sizeof(T))}, ScalarType::Byte, a.device());
    Tensor info = scratch_info(a.device());
    for (int64_t i = 0; i < b.count; ++i)
      check(Typed<T>::orgqr(h, m, n, kk, static_cast<T*>(at(a, i, b.stride())), lda,
                            static_cast<const T*>(at(tau, i, k)), static_cast<T*>(work.data_ptr()), lwork,
                            info_at(info, 0)),
            "cusolverDn<t>orgqr");
  });
}

void eigh_cuda(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info) {
  DeviceGuard g(a.device());
  Batch b(a);
  const cudaDataType dt = data_type(a.dtype()), wt = data_type(w.dtype());
  const cusolverEigMode_t jobz = compute_v ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  cusolverDnHandle_t h = handle_for(a);
  Params p;
  Workspace ws;
  check(cusolverDnXsyevd_bufferSize(h, p.p, jobz, fill_mode(upper), b.rows, dt, a.data_ptr(), ld(b.rows), wt,
                                    w.data_ptr(), dt, &ws.device_bytes, &ws.host_bytes),
        "cusolverDnXsyevd_bufferSize");
  ws.allocate(a.device());
  for (int64_t i = 0; i < b.count; ++i)
    check(cusolverDnXsyevd(h, p.p, jobz, fill_mode(upper), b.rows, dt, at(a, i, b.stride()), ld(b.rows), wt,
                           at(w, i, b.rows), dt, ws.d(), ws.device_bytes, ws.h(), ws.host_bytes,
                           info_at(info, i)),
          "cusolverDnXsyevd");
}

// gesvd of a [batch, n, m] column-major with m >= n (destroyed): u [batch, ucols, m] and vt [batch, n, n]
// column-major (undefined unless compute_uv), s [batch, n].
void gesvd_tall(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vt, bool full_matrices,
                bool compute_uv, const Tensor& info) {
  Batch b(a);
  const cudaDataType dt = data_type(a.dtype()), st = data_type(s.dtype());
  const signed char job = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
  const int64_t ldu = ld(b.rows), ldvt = ld(b.cols);
  const int64_t us = compute_uv ? u.sizes()[1] * u.sizes()[2] : 0, vs = b.cols * b.cols;
  cusolverDnHandle_t h = handle_for(a);
  Params p;
  Workspace ws;
  check(cusolverDnXgesvd_bufferSize(h, p.p, job, job, b.rows, b.cols, dt, a.data_ptr(), ld(b.rows), st,
                                    s.data_ptr(), dt, compute_uv ? u.data_ptr() : nullptr, ldu, dt,
                                    compute_uv ? vt.data_ptr() : nullptr, ldvt, dt, &ws.device_bytes,
                                    &ws.host_bytes),
        "cusolverDnXgesvd_bufferSize");
  ws.allocate(a.device());
  for (int64_t i = 0; i < b.count; ++i)
    check(cusolverDnXgesvd(h, p.p, job, job, b.rows, b.cols, dt, at(a, i, b.stride()), ld(b.rows), st,
                           at(s, i, b.cols), dt, compute_uv ? at(u, i, us) : nullptr, ldu, dt,
                           compute_uv ? at(vt, i, vs) : nullptr, ldvt, dt, ws.d(), ws.device_bytes, ws.h(),
                           ws.host_bytes, info_at(info, i)),
          "cusolverDnXgesvd");
}

// a [batch, n, m] column-major (destroyed); u [batch, ucols, m], vh [batch, n, vrows] column-major.
void svd_cuda(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, bool full_matrices,
              bool compute_uv, const Tensor& info) {
  DeviceGuard g(a.device());
  Batch b(a);
  const int64_t m = b.rows, n = b.cols;
  if (m >= n) return gesvd_tall(a, u, s, vh, full_matrices, compute_uv, info);
  // A^H = U' S V'^H (n x m, tall) gives A = V' S U'^H: U = (V'^H)^H and Vh = U'^H
  Tensor ah = contiguous(conj(transpose(a, 1, 2)));  // [batch, m, n]: A^H column-major
  const int64_t vrows = compute_uv ? vh.sizes()[2] : 0;
  Tensor u2 = compute_uv ? make_empty({b.count, vrows, n}, a.dtype(), a.device()) : Tensor();
  Tensor vt2 = compute_uv ? make_empty({b.count, m, m}, a.dtype(), a.device()) : Tensor();
  gesvd_tall(ah, u2, s, vt2, full_matrices, compute_uv, info);
  if (!compute_uv) return;
  copy_(u, conj(transpose(vt2, 1, 2)));
  copy_(vh, conj(transpose(u2, 1, 2)));
}

// Q^H c (adjoint) or Q c in place, Q from geqrf's reflectors in qr [batch, k, rows] and tau [batch, k]; c is
// [batch, cols, ldc] column-major with its first `rows` rows used.
void apply_q(const Tensor& qr, const Tensor& tau, const Tensor& c, bool adjoint) {
  Batch q(qr), x(c);
  const int64_t k = tau.sizes()[1];
  MT_CHECK(q.rows <= INT32_MAX && x.rows <= INT32_MAX && x.cols <= INT32_MAX,
           "torch.linalg.lstsq: sizes exceed cuSOLVER's 32-bit ormqr");
  cusolverDnHandle_t h = handle_for(c);
  dispatch_typed(c.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // the real ormqr takes T for the transpose, the complex unmqr C
    const cublasOperation_t op = !adjoint ? CUBLAS_OP_N : is_complex(c.dtype()) ? CUBLAS_OP_C : CUBLAS_OP_T;
    const int m = int(q.rows), n = int(x.cols), kk = int(k), lda = int(ld(q.rows)), ldc = int(ld(x.rows));
    int lwork = 0;
    check(Typed<T>::ormqr_bufferSize(h, CUBLAS_SIDE_LEFT, op, m, n, kk, static_cast<const T*>(qr.data_ptr()),
                                     lda, static_cast<const T*>(tau.data_ptr()),
                                     static_cast<const T*>(c.data_ptr()), ldc, &lwork),
          "cusolverDn<t>ormqr_bufferSize");
    Tensor work =
        make_empty({std::max<int64_t>(lwork, 1) * int64_t(sizeof(T))}, ScalarType::Byte, c.device());
    Tensor info = scratch_info(c.device());
    for (int64_t i = 0; i < x.count; ++i)
      check(Typed<T>::ormqr(h, CUBLAS_SIDE_LEFT, op, m, n, kk, static_cast<const T*>(at(qr, i, q.stride())),
                            lda, static_cast<const T*>(at(tau, i, k)), static_cast<T*>(at(c, i, x.stride())),
                            ldc, static_cast<T*>(work.data_ptr()), lwork, info_at(info, 0)),
            "cusolverDn<t>ormqr");
  });
}

// b[:, :, :rows] <- R^-1 b (or R^-H b) with R the upper triangle of qr's first `n` rows and columns.
void solve_r(const Tensor& qr, const Tensor& b, int64_t n, bool adjoint) {
  Batch q(qr), x(b);
  cublasHandle_t h = cublas_handle(b.device().index);
  const cublasOperation_t op = !adjoint ? CUBLAS_OP_N : is_complex(b.dtype()) ? CUBLAS_OP_C : CUBLAS_OP_T;
  dispatch_typed(b.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T alpha = one<T>();
    for (int64_t i = 0; i < x.count; ++i)
      MT_CUBLAS_CHECK(Typed<T>::trsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, op, CUBLAS_DIAG_NON_UNIT,
                                     int(n), int(x.cols), &alpha,
                                     static_cast<const T*>(at(qr, i, q.stride())), int(ld(q.rows)),
                                     static_cast<T*>(at(b, i, x.stride())), int(ld(x.rows))));
  });
}

// The 'gels' driver (the only one PyTorch has on CUDA; the front end routes the others to host LAPACK), as
// PyTorch's linalg_lstsq_gels: m >= n: A = QR, X = R^-1 (Q^H B), whose rows n..m are the residual's, as
// LAPACK's gels leaves them; m < n: A^H = QR, the minimum-norm X = Q [R^-H B; 0]. a [batch, n, m]
// (destroyed), b [batch, k, max(m, n)] with rows m.. zero (the front end pads). No rank check: a
// rank-deficient A gives inf/NaN and info 0, as PyTorch's CUDA gels.
void lstsq_cuda(const Tensor& a, const Tensor& b, const Tensor& s, const Tensor& rank, double rcond,
                const std::string& driver, const Tensor& info) {
  MT_INTERNAL_ASSERT(driver == "gels", "lstsq_cuda: driver ", driver, " is not implemented on CUDA");
  DeviceGuard g(a.device());
  Batch ab(a);
  const int64_t m = ab.rows, n = ab.cols;
  fill_(rank, Scalar(std::min(m, n)));  // gels assumes full rank, as the CPU kernel reports it
  if (m >= n) {
    Tensor tau = make_empty({ab.count, n}, a.dtype(), a.device());
    geqrf_cuda(a, tau);
    apply_q(a, tau, b, true);
    solve_r(a, b, n, false);
    return;
  }
  Tensor ah = contiguous(conj(transpose(a, 1, 2)));  // [batch, m, n]: A^H column-major, n x m
  Tensor tau = make_empty({ab.count, m}, a.dtype(), a.device());
  geqrf_cuda(ah, tau);
  solve_r(ah, b, m, true);
  apply_q(ah, tau, b, false);
}

}  // namespace
}  // namespace cuda

MT_REGISTER_KERNEL(lu_factor_stub, CUDA, &cuda::lu_factor_cuda);
MT_REGISTER_KERNEL(lu_solve_stub, CUDA, &cuda::lu_solve_cuda);
MT_REGISTER_KERNEL(cholesky_stub, CUDA, &cuda::cholesky_cuda);
MT_REGISTER_KERNEL(triangular_solve_stub, CUDA, &cuda::triangular_solve_cuda);
MT_REGISTER_KERNEL(geqrf_stub, CUDA, &cuda::geqrf_cuda);
MT_REGISTER_KERNEL(householder_product_stub, CUDA, &cuda::householder_product_cuda);
MT_REGISTER_KERNEL(eigh_stub, CUDA, &cuda::eigh_cuda);
MT_REGISTER_KERNEL(svd_stub, CUDA, &cuda::svd_cuda);
MT_REGISTER_KERNEL(lstsq_stub, CUDA, &cuda::lstsq_cuda);

}  // namespace mt
#endif
