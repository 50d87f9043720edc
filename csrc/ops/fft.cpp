// FFT front ends (ops/fft.h): dims and dtypes checked, output allocated, the scale of the norm mode worked
// out, then the device's kernel. Derivatives are torch.fft's (python/minitorch/fft), over these primitives.
#include "ops/fft.h"

#include <algorithm>
#include <cmath>

#include "core/FreshWrites.h"
#include "core/TensorIterator.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/shape.h"

namespace mt {

namespace {

// The dims in the caller's order: r2c/c2r halve the last one listed (PyTorch's rule), whatever its position.
DimVector fft_dims(const Tensor& self, IntArrayRef dim) {
  DimVector ds;
  for (int64_t d : dim) ds.push_back(wrap_dim(d, self.dim()));
  DimVector sorted = ds;
  std::sort(sorted.begin(), sorted.end());
  MT_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), "FFT dims must be unique");
  return ds;
}

double scale_of(int64_t normalization, IntArrayRef signal_sizes, IntArrayRef dims) {
  MT_CHECK(normalization >= 0 && normalization <= 2, "Invalid normalization mode: ", normalization);
  if (normalization == 0) return 1.0;
  double n = 1.0;
  for (int64_t d : dims) n *= static_cast<double>(signal_sizes[d]);
  if (n == 0) return 1.0;
  return normalization == 1 ? 1.0 / std::sqrt(n) : 1.0 / n;
}

void check_complex_in(const Tensor& self, const char* what) {
  MT_CHECK(is_complex(self.dtype()), what, " expects a complex input tensor, but got ",
           dtype_short_name(self.dtype()));
}

}  // namespace

Tensor fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  check_complex_in(self, "_fft_c2c");
  DimVector ds = fft_dims(self, dim);
  Tensor out = make_empty(self.sizes(), self.dtype(), self.device());
  if (out.numel() == 0) return out;
  if (ds.empty()) {
    FreshWrites fresh;
    copy_(out, self);
    return out;
  }
  fft_c2c_stub.get(self.device())(out, self, ds, forward, scale_of(normalization, self.sizes(), ds));
  return out;
}

Tensor fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  ScalarType dt = self.dtype();
  MT_CHECK(dt == ScalarType::Float || dt == ScalarType::Double,
           "_fft_r2c expects a float or double input, got ", dtype_short_name(dt));
  DimVector ds = fft_dims(self, dim);
  MT_CHECK(!ds.empty(), "_fft_r2c needs at least one dim");
  if (!onesided)  // the full spectrum: the complex transform of the real signal
    return fft_c2c(to(self, to_complex_type(dt), self.device()), dim, normalization, true);
  DimVector sizes(self.sizes());
  sizes[ds.back()] = sizes[ds.back()] / 2 + 1;
  Tensor out = make_empty(sizes, to_complex_type(dt), self.device());
  if (out.numel() == 0) return out;
  if (self.numel() == 0) {
    FreshWrites fresh;
    fill_(out, Scalar(0.0));
    return out;
  }
  fft_r2c_stub.get(self.device())(out, self, ds, scale_of(normalization, self.sizes(), ds));
  return out;
}

Tensor fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  check_complex_in(self, "_fft_c2r");
  DimVector ds = fft_dims(self, dim);
  MT_CHECK(!ds.empty(), "_fft_c2r needs at least one dim");
  MT_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size, ") specified");
  MT_CHECK(self.size(ds.back()) >= last_dim_size / 2 + 1, "_fft_c2r: the input holds ", self.size(ds.back()),
           " frequencies along dim ", ds.back(), ", fewer than the ", last_dim_size / 2 + 1, " a signal of ",
           last_dim_size, " points needs");
  DimVector sizes(self.sizes());
  sizes[ds.back()] = last_dim_size;
  Tensor out = make_empty(sizes, to_real_type(self.dtype()), self.device());
  if (out.numel() == 0) return out;
  // pocketfft and cuFFT read exactly n/2+1 frequencies: narrow a longer input
  Tensor in = self.size(ds.back()) == last_dim_size / 2 + 1
                  ? self
                  : slice(self, ds.back(), 0, last_dim_size / 2 + 1, 1);
  fft_c2r_stub.get(self.device())(out, in, ds, scale_of(normalization, sizes, ds));
  return out;
}

}  // namespace mt
