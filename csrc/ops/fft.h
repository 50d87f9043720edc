// The three FFT primitives torch.fft is built on (python/minitorch/fft): complex-to-complex, real-to-complex
// (the half spectrum, or the full one) and complex-to-real, over any set of dims, unnormalized or scaled by
// 1/sqrt(n) or 1/n. CPU through pocketfft (third_party/), CUDA through cuFFT.
#pragma once
#include "core/Tensor.h"
#include "ops/Dispatch.h"
#include "ops/op_table.h"

namespace mt {

// PyTorch's fft_norm_mode: none, 1/sqrt(n), 1/n.
enum class FftNorm : int { none = 0, by_root_n = 1, by_n = 2 };

Tensor fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward);
Tensor fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided);
// last_dim_size: the length of the real signal along dim's last entry (the input holds last_dim_size/2+1)
Tensor fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size);

// Kernels: out is contiguous and allocated; dims are wrapped and unique, in the caller's order (r2c/c2r halve
// the last); `scale` multiplies the result.
using FftC2CFn = void (*)(const Tensor& out, const Tensor& in, IntArrayRef dims, bool forward, double scale);
using FftR2CFn = void (*)(const Tensor& out, const Tensor& in, IntArrayRef dims, double scale);
using FftC2RFn = void (*)(const Tensor& out, const Tensor& in, IntArrayRef dims, double scale);
MT_STUBS_FFT_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
