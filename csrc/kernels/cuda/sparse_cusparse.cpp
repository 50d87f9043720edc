// CUDA kernels for the CSR products of ops/sparse.h through cuSPARSE's generic API: SpMM for A @ dense and
// A^T @ dense (row-major dense operands, no transposed copies), SDDMM for the values' gradient. Descriptors
// are made per call (they only wrap pointers); the handle is per thread and device, bound to the current
// stream.
#if defined(MINITORCH_WITH_CUDA) && defined(MINITORCH_WITH_CUSPARSE)
#include "ops/sparse.h"

#include <cusparse.h>

#include "cuda/CUDAContext.h"
#include "cuda/HandlePool.h"

namespace mt {
namespace cuda {
namespace {

void check(cusparseStatus_t s, const char* what) {
  MT_CHECK(s == CUSPARSE_STATUS_SUCCESS, "cuSPARSE error ", static_cast<int>(s), " (",
           cusparseGetErrorString(s), ") in ", what);
}

void create_handle(cusparseHandle_t* h) {
  check(cusparseCreate(h), "cusparseCreate");
}
using SparsePool = HandlePool<cusparseHandle_t, &create_handle>;

cusparseHandle_t handle_for(const Tensor& t) {
  const int device = t.device().index;
  DeviceGuard guard(device);
  cusparseHandle_t h = SparsePool::get(device);
  check(cusparseSetStream(h, current_stream(device)), "cusparseSetStream");
  return h;
}

cudaDataType data_type(const Tensor& t) {
  return t.dtype() == ScalarType::Float ? CUDA_R_32F : CUDA_R_64F;
}

cusparseIndexType_t index_type(const Tensor& t) {
  return t.dtype() == ScalarType::Long ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
}

// The sparse matrix descriptor and dense ones, destroyed with the scope.
struct Descriptors {
  cusparseSpMatDescr_t sp = nullptr;
  cusparseDnMatDescr_t a = nullptr, b = nullptr;
  ~Descriptors() {
    if (sp) cusparseDestroySpMat(sp);
    if (a) cusparseDestroyDnMat(a);
    if (b) cusparseDestroyDnMat(b);
  }
};

void make_csr(Descriptors& d, const Tensor& crow, const Tensor& col, const Tensor& values, int64_t cols) {
  check(cusparseCreateCsr(&d.sp, crow.numel() - 1, cols, col.numel(), crow.data_ptr(), col.data_ptr(),
                          values.data_ptr(), index_type(crow), index_type(col), CUSPARSE_INDEX_BASE_ZERO,
                          data_type(values)),
        "cusparseCreateCsr");
}

void make_dense(cusparseDnMatDescr_t* m, const Tensor& t) {
  check(
      cusparseCreateDnMat(m, t.size(0), t.size(1), t.size(1), t.data_ptr(), data_type(t), CUSPARSE_ORDER_ROW),
      "cusparseCreateDnMat");
}

// cuSPARSE's alpha = 1 and beta = 0 on the host, in the compute type of `t`
struct OneZero {
  float one_f = 1.0f, zero_f = 0.0f;
  double one_d = 1.0, zero_d = 0.0;
  const void* one;
  const void* zero;
  explicit OneZero(const Tensor& t)
      : one(t.dtype() == ScalarType::Float ? static_cast<const void*>(&one_f) : &one_d),
        zero(t.dtype() == ScalarType::Float ? static_cast<const void*>(&zero_f) : &zero_d) {}
  OneZero(const OneZero&) = delete;  // one/zero point into this object
};

Tensor workspace(size_t bytes, Device dev) {
  return make_empty({static_cast<int64_t>(std::max<size_t>(bytes, 1))}, ScalarType::Byte, dev);
}

void csr_mm_cuda(const Tensor& out, const Tensor& crow, const Tensor& col, const Tensor& values,
                 const Tensor& dense, bool transpose) {
  cusparseHandle_t h = handle_for(out);
  Descriptors d;
  // A is rows x cols; under transpose the output has cols rows
  make_csr(d, crow, col, values, transpose ? out.size(0) : dense.size(0));
  make_dense(&d.a, dense);
  make_dense(&d.b, out);
  const cusparseOperation_t op = transpose ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
  const OneZero s(values);
  const void *alpha = s.one, *beta = s.zero;
  size_t bytes = 0;
  check(cusparseSpMM_bufferSize(h, op, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, d.sp, d.a, beta, d.b,
                                data_type(values), CUSPARSE_SPMM_ALG_DEFAULT, &bytes),
        "cusparseSpMM_bufferSize");
  Tensor ws = workspace(bytes, out.device());
  check(cusparseSpMM(h, op, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, d.sp, d.a, beta, d.b, data_type(values),
                     CUSPARSE_SPMM_ALG_DEFAULT, ws.data_ptr()),
        "cusparseSpMM");
}

// out (the values of the pattern) = (a @ b^T) sampled at the stored positions
void csr_sddmm_cuda(const Tensor& out, const Tensor& crow, const Tensor& col, const Tensor& a,
                    const Tensor& b) {
  cusparseHandle_t h = handle_for(out);
  Descriptors d;
  make_dense(&d.a, a);
  make_dense(&d.b, b);
  make_csr(d, crow, col, out, b.size(0));
  const OneZero s(a);
  const void *alpha = s.one, *beta = s.zero;
  size_t bytes = 0;
  check(cusparseSDDMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE, alpha,
                                 d.a, d.b, beta, d.sp, data_type(a), CUSPARSE_SDDMM_ALG_DEFAULT, &bytes),
        "cusparseSDDMM_bufferSize");
  Tensor ws = workspace(bytes, out.device());
  check(cusparseSDDMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE, alpha, d.a, d.b,
                      beta, d.sp, data_type(a), CUSPARSE_SDDMM_ALG_DEFAULT, ws.data_ptr()),
        "cusparseSDDMM");
}

}  // namespace
}  // namespace cuda

MT_REGISTER_KERNEL(csr_mm_stub, CUDA, &cuda::csr_mm_cuda);
MT_REGISTER_KERNEL(csr_sddmm_stub, CUDA, &cuda::csr_sddmm_cuda);

}  // namespace mt
#endif
