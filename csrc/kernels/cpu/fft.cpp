// CPU FFT kernels through pocketfft (third_party/pocketfft, the library NumPy, SciPy and PyTorch use): any
// strides in, contiguous out, plans cached by pocketfft itself.
#include <complex>
#include <vector>

#define POCKETFFT_NO_MULTITHREADING  // our pool owns the threads; pocketfft's would be a second one
#define POCKETFFT_CACHE_SIZE 16      // recent plans reused: a training loop repeats its shapes
#include "ops/fft.h"
#include "pocketfft/pocketfft_hdronly.h"

namespace mt {
namespace {

using pocketfft::shape_t;
using pocketfft::stride_t;

shape_t shape_of(IntArrayRef sizes) {
  return shape_t(sizes.begin(), sizes.end());
}
stride_t byte_strides(const Tensor& t) {
  stride_t s;
  for (int64_t st : t.strides()) s.push_back(static_cast<ptrdiff_t>(st * static_cast<int64_t>(t.itemsize())));
  return s;
}
shape_t axes_of(IntArrayRef dims) {
  return shape_t(dims.begin(), dims.end());
}

void fft_c2c_cpu(const Tensor& out, const Tensor& in, IntArrayRef dims, bool forward, double scale) {
  if (in.dtype() == ScalarType::ComplexFloat)
    pocketfft::c2c<float>(shape_of(in.sizes()), byte_strides(in), byte_strides(out), axes_of(dims), forward,
                          in.data<std::complex<float>>(), out.data<std::complex<float>>(), float(scale));
  else
    pocketfft::c2c<double>(shape_of(in.sizes()), byte_strides(in), byte_strides(out), axes_of(dims), forward,
                           in.data<std::complex<double>>(), out.data<std::complex<double>>(), scale);
}

void fft_r2c_cpu(const Tensor& out, const Tensor& in, IntArrayRef dims, double scale) {
  if (in.dtype() == ScalarType::Float)
    pocketfft::r2c<float>(shape_of(in.sizes()), byte_strides(in), byte_strides(out), axes_of(dims), true,
                          in.data<float>(), out.data<std::complex<float>>(), float(scale));
  else
    pocketfft::r2c<double>(shape_of(in.sizes()), byte_strides(in), byte_strides(out), axes_of(dims), true,
                           in.data<double>(), out.data<std::complex<double>>(), scale);
}

void fft_c2r_cpu(const Tensor& out, const Tensor& in, IntArrayRef dims, double scale) {
  // (pocketfft's multi-axis c2r runs the leading axes into a buffer of its own: the input is only read)
  const Tensor& src = in;
  if (out.dtype() == ScalarType::Float)
    pocketfft::c2r<float>(shape_of(out.sizes()), byte_strides(src), byte_strides(out), axes_of(dims), false,
                          src.data<std::complex<float>>(), out.data<float>(), float(scale));
  else
    pocketfft::c2r<double>(shape_of(out.sizes()), byte_strides(src), byte_strides(out), axes_of(dims), false,
                           src.data<std::complex<double>>(), out.data<double>(), scale);
}

}  // namespace

MT_REGISTER_KERNEL(fft_c2c_stub, CPU, &fft_c2c_cpu);
MT_REGISTER_KERNEL(fft_r2c_stub, CPU, &fft_r2c_cpu);
MT_REGISTER_KERNEL(fft_c2r_stub, CPU, &fft_c2r_cpu);

}  // namespace mt
