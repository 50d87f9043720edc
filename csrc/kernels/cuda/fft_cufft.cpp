// CUDA FFT kernels through cuFFT: the transformed dims are moved last and made contiguous, one batched plan
// (cufftPlanMany, up to 3 dims; c2c over more runs in passes) runs on the current stream, and the result is
// scaled and copied into the contiguous output. Plans are cached per (kind, sizes, batch, device), as
// PyTorch's plan cache does: creating one costs far more than running it.
#if defined(MINITORCH_WITH_CUDA) && defined(MINITORCH_WITH_CUFFT)
#include "ops/fft.h"

#include <cufft.h>

#include <map>
#include <mutex>
#include <vector>

#include "cuda/CUDAContext.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/shape.h"

namespace mt {
namespace cuda {
namespace {

void check(cufftResult r, const char* what) {
  MT_CHECK(r == CUFFT_SUCCESS, "cuFFT error ", static_cast<int>(r), " in ", what);
}

std::mutex g_plan_mutex;
std::map<std::vector<int64_t>, cufftHandle> g_plans;

cufftHandle plan_for(cufftType type, const std::vector<int>& n, int64_t batch, int device) {
  std::vector<int64_t> key{static_cast<int64_t>(type), batch, device};
  key.insert(key.end(), n.begin(), n.end());
  std::lock_guard<std::mutex> lock(g_plan_mutex);
  auto it = g_plans.find(key);
  if (it != g_plans.end()) return it->second;
  MT_CHECK(batch <= INT32_MAX, "cuFFT: a batch of ", batch, " transforms does not fit its 32-bit count");
  cufftHandle plan;
  check(cufftPlanMany(&plan, static_cast<int>(n.size()), const_cast<int*>(n.data()), nullptr, 1, 0, nullptr,
                      1, 0, type, static_cast<int>(batch)),
        "cufftPlanMany");
  g_plans.emplace(key, plan);
  return plan;
}

// in, with the dims in `dims` moved last (in order) and made dense; `perm` receives the permutation.
Tensor dims_last(const Tensor& in, IntArrayRef dims, DimVector& perm, bool own_copy) {
  perm.clear();
  for (int64_t d = 0; d < in.dim(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) perm.push_back(d);
  for (int64_t d : dims) perm.push_back(d);
  Tensor p = contiguous(permute(in, perm));
  // cuFFT's c2r overwrites its input: a tensor the caller still holds gets copied first
  if (own_copy && p.storage() == in.storage()) p = clone(p);
  return p;
}

DimVector inverse(const DimVector& perm) {
  DimVector inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

std::vector<int> signal(IntArrayRef sizes, size_t rank) {
  std::vector<int> n;
  for (size_t i = sizes.size() - rank; i < sizes.size(); ++i) {
    MT_CHECK(sizes[i] <= INT32_MAX, "cuFFT: a signal of ", sizes[i], " points does not fit its 32-bit sizes");
    n.push_back(static_cast<int>(sizes[i]));
  }
  return n;
}

int64_t batch_of(IntArrayRef sizes, size_t rank) {
  int64_t b = 1;
  for (size_t i = 0; i + rank < sizes.size(); ++i) b *= sizes[i];
  return b;
}

void finish(const Tensor& out, const Tensor& y, const DimVector& perm, double scale) {
  Tensor r = permute(y, inverse(perm));
  if (scale != 1.0) r = mul(r, wrapped_scalar(Scalar(scale)));
  copy_(out, r);
}

void c2c_pass(Tensor& x, IntArrayRef dims, bool forward, int device) {
  // x: complex, any layout; transforms `dims` (at most 3) and leaves the result in x
  DimVector perm;
  Tensor p = dims_last(x, dims, perm, false);
  Tensor y = make_empty(p.sizes(), p.dtype(), p.device());
  const bool dbl = p.dtype() == ScalarType::ComplexDouble;
  cufftHandle plan = plan_for(dbl ? CUFFT_Z2Z : CUFFT_C2C, signal(p.sizes(), dims.size()),
                              batch_of(p.sizes(), dims.size()), device);
  check(cufftSetStream(plan, current_stream(device)), "cufftSetStream");
  const int dir = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  if (dbl)
    check(cufftExecZ2Z(plan, static_cast<cufftDoubleComplex*>(p.data_ptr()),
                       static_cast<cufftDoubleComplex*>(y.data_ptr()), dir),
          "cufftExecZ2Z");
  else
    check(cufftExecC2C(plan, static_cast<cufftComplex*>(p.data_ptr()),
                       static_cast<cufftComplex*>(y.data_ptr()), dir),
          "cufftExecC2C");
  x = permute(y, inverse(perm));
}

void fft_c2c_cuda(const Tensor& out, const Tensor& in, IntArrayRef dims, bool forward, double scale) {
  DeviceGuard g(in.device());
  Tensor x = in;
  for (size_t b = 0; b < dims.size(); b += 3) {  // cuFFT plans cover at most 3 dims
    size_t e = std::min(dims.size(), b + 3);
    c2c_pass(x, IntArrayRef(dims.data() + b, e - b), forward, in.device().index);
  }
  if (scale != 1.0) x = mul(x, wrapped_scalar(Scalar(scale)));
  copy_(out, x);
}

void fft_r2c_cuda(const Tensor& out, const Tensor& in, IntArrayRef dims, double scale) {
  MT_CHECK_NOT_IMPLEMENTED(dims.size() <= 3, "rfftn over more than 3 dims is not implemented on CUDA");
  DeviceGuard g(in.device());
  DimVector perm;
  Tensor p = dims_last(in, dims, perm, false);
  DimVector ysizes(p.sizes());
  ysizes.back() = ysizes.back() / 2 + 1;
  Tensor y = make_empty(ysizes, out.dtype(), p.device());
  const bool dbl = p.dtype() == ScalarType::Double;
  int dev = in.device().index;
  cufftHandle plan = plan_for(dbl ? CUFFT_D2Z : CUFFT_R2C, signal(p.sizes(), dims.size()),
                              batch_of(p.sizes(), dims.size()), dev);
  check(cufftSetStream(plan, current_stream(dev)), "cufftSetStream");
  if (dbl)
    check(cufftExecD2Z(plan, static_cast<cufftDoubleReal*>(p.data_ptr()),
                       static_cast<cufftDoubleComplex*>(y.data_ptr())),
          "cufftExecD2Z");
  else
    check(cufftExecR2C(plan, static_cast<cufftReal*>(p.data_ptr()), static_cast<cufftComplex*>(y.data_ptr())),
          "cufftExecR2C");
  finish(out, y, perm, scale);
}

void fft_c2r_cuda(const Tensor& out, const Tensor& in, IntArrayRef dims, double scale) {
  MT_CHECK_NOT_IMPLEMENTED(dims.size() <= 3, "irfftn over more than 3 dims is not implemented on CUDA");
  DeviceGuard g(in.device());
  DimVector perm;
  Tensor p = dims_last(in, dims, perm, true);
  DimVector ysizes;
  for (int64_t d : perm) ysizes.push_back(out.size(d));
  Tensor y = make_empty(ysizes, out.dtype(), p.device());
  const bool dbl = out.dtype() == ScalarType::Double;
  int dev = in.device().index;
  cufftHandle plan =
      plan_for(dbl ? CUFFT_Z2D : CUFFT_C2R, signal(ysizes, dims.size()), batch_of(ysizes, dims.size()), dev);
  check(cufftSetStream(plan, current_stream(dev)), "cufftSetStream");
  if (dbl)
    check(cufftExecZ2D(plan, static_cast<cufftDoubleComplex*>(p.data_ptr()),
                       static_cast<cufftDoubleReal*>(y.data_ptr())),
          "cufftExecZ2D");
  else
    check(cufftExecC2R(plan, static_cast<cufftComplex*>(p.data_ptr()), static_cast<cufftReal*>(y.data_ptr())),
          "cufftExecC2R");
  finish(out, y, perm, scale);
}

}  // namespace
}  // namespace cuda

MT_REGISTER_KERNEL(fft_c2c_stub, CUDA, &cuda::fft_c2c_cuda);
MT_REGISTER_KERNEL(fft_r2c_stub, CUDA, &cuda::fft_r2c_cuda);
MT_REGISTER_KERNEL(fft_c2r_stub, CUDA, &cuda::fft_c2r_cuda);

}  // namespace mt
#endif
