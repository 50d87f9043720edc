// copy_, to, contiguous, clone, fill_, item: the device-independent half of moving and converting data.
#include "ops/copy.h"

#include <cmath>
#include <complex>

#include "core/FreshWrites.h"
#include "core/GradMode.h"
#include "core/StorageAlias.h"
#include "core/TensorIterator.h"
#include "core/TypeMeta.h"
#include "cuda/CUDAHooks.h"
#include "generated/native.h"
#include "ops/factory.h"
#include "ops/kernels.h"
#include "ops/shape.h"

namespace mt {

Device resolve_device(Device d) {
  if (d.is_cpu()) return Device(DeviceType::CPU);
  if (d.is_meta()) return Device(DeviceType::Meta);
  cuda_hooks().lazy_init();  // raises the clear "no GPU" / "not compiled with CUDA" errors
  int n = cuda_hooks().device_count();
  int idx = d.index < 0 ? cuda_hooks().current_device() : d.index;
  MT_CHECK(idx < n, "CUDA error: invalid device ordinal (device cuda:", idx, " requested, ", n,
           " CUDA device(s) available)");
  return Device(DeviceType::CUDA, idx);
}

void check_writable(const Tensor& self) {
  MT_CHECK(
      !self.is_inference() || tls_inference_mode,
      "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
      "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
      "details.");
  for (int64_t d = 0; d < self.dim() && self.numel() > 0; ++d)  // an empty tensor writes no element twice
    MT_CHECK(
        self.stride(d) != 0 || self.size(d) <= 1,
        "unsupported operation: more than one element of the written-to tensor refers to a single memory "
        "location. Please clone() the tensor before performing the operation.");
}

Tensor unaliased_input(const Tensor& self, const Tensor& src) {
  if (!src.defined() || !same_memory(src, self)) return src;
  if (src.storage_offset() * int64_t(src.itemsize()) == self.storage_offset() * int64_t(self.itemsize()) &&
      src.sizes() == self.sizes() && src.strides() == self.strides())
    return src;
  return clone(src);
}

const Tensor& native::copy_(const Tensor& self, const Tensor& src_, bool non_blocking) {
  if (self.is_same(src_)) {
    wrote(self);
    return self;
  }
  check_writable(self);
  // src broadcasts to self, never the other way (PyTorch's texts; the iterator below assumes it)
  if (!IntArrayRef(src_.sizes()).equals(self.sizes())) {
    DimVector shape = broadcast_shapes(self.sizes(), src_.sizes());
    MT_CHECK(IntArrayRef(shape).equals(self.sizes()), "output with shape ", shape_str(self.sizes()),
             " doesn't match the broadcast shape ", shape_str(shape));
  }
  Tensor src = unaliased_input(self, src_);
  if (self.numel() == 0) {
    broadcast_strides(src, self.sizes());  // still validates shapes
    wrote(self);
    return self;
  }
  if (is_complex(src.dtype()) && !is_complex(self.dtype()) && self.dtype() != ScalarType::Bool)
    warn("Casting complex values to real discards the imaginary part");
  if (self.device() != src.device()) {
    // Into a meta tensor there is nothing to write; out of one there is nothing to read.
    MT_CHECK_NOT_IMPLEMENTED(!src.is_meta() || self.is_meta(), "Cannot copy out of meta tensor; no data!");
    if (self.is_meta()) {
      broadcast_strides(src, self.sizes());
      wrote(self);
      return self;
    }
    if (src.dtype() != self.dtype())
      return mt::copy_(self, to(src, self.dtype(), src.device()), non_blocking);
    if (src.sizes() != self.sizes())
      src = mt::expand(src, self.sizes());  // broadcasting, as same-device copy_
    cross_device_copy_stub.get(self.is_cuda() ? self.device() : src.device())(self, src, non_blocking);
  } else {
    TensorIter it = TensorIter::make({self, src});
    copy_stub.get(self.device())(it);
  }
  wrote(self);
  return self;
}

void copy_into_fresh(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  TensorIter it = TensorIter::make({dst, src});
  copy_stub.get(dst.device())(it);
}

namespace {
// clone's and to's output. PyTorch's preserve_format keeps the strides of an empty tensor (NumPy gives an
// empty array zero strides, and PyTorch's copies keep them); any other layout becomes contiguous here.
Tensor fresh_like(const Tensor& self, ScalarType dtype, Device device) {
  if (self.numel() == 0) return make_view(make_empty({0}, dtype, device), self.sizes(), self.strides(), 0);
  return make_empty(self.sizes(), dtype, device);
}
}  // namespace

Tensor contiguous(const Tensor& self) {
  if (self.is_contiguous()) return self;
  return clone(self);
}

Tensor native::clone(const Tensor& self) {
  Tensor out = fresh_like(self, self.dtype(), self.device());
  FreshWrites fresh;
  copy_(out, self);
  return out;
}

Tensor native::to(const Tensor& self, ScalarType dtype, Device device, bool copy, bool non_blocking) {
  if (dtype == ScalarType::Undefined) dtype = self.dtype();
  device = resolve_device(device);
  if (!copy && dtype == self.dtype() && device == self.device()) return self;
  Tensor out;
  // D2H with non_blocking lands in pinned memory, so the copy can really overlap (PyTorch does the same).
  if (non_blocking && device.is_cpu() && self.is_cuda())
    out = make_empty_with(self.sizes(), dtype, device, cuda_hooks().pinned_allocator());
  else
    out = fresh_like(self, dtype, device);
  FreshWrites fresh;
  if (self.dtype() != dtype && self.device() != device) {
    // convert on the source device, then move: one cross-device transfer of the final bytes
    Tensor converted = make_empty(self.sizes(), dtype, self.device());
    copy_(converted, self);
    mt::copy_(out, converted, non_blocking);
  } else {
    mt::copy_(out, self, non_blocking);
  }
  return out;
}

Tensor pin_memory(const Tensor& self) {
  MT_CHECK(self.device().is_cpu(), "cannot pin '", self.is_cuda() ? "torch.cuda." : "torch.",
           "Tensor' only dense CPU tensors can be pinned");
  if (is_pinned(self)) return self;
  Tensor out = make_empty_with(self.sizes(), self.dtype(), self.device(), cuda_hooks().pinned_allocator());
  copy_(out, self);
  return out;
}

bool is_pinned(const Tensor& self) {
  return self.device().is_cpu() && self.storage()->data && cuda_hooks().is_pinned(self.storage()->data);
}

// The type names PyTorch's checked Scalar conversion prints ("uint8_t", "int64_t": its dispatch macros'
// names, not cpp_type_name's "unsigned char"/"long int").
static const char* checked_convert_name(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
      return "uint8_t";
    case ScalarType::Char:
      return "int8_t";
    case ScalarType::Short:
      return "int16_t";
    case ScalarType::Long:
      return "int64_t";
    default:
      return cpp_type_name(t);
  }
}

void check_scalar_fits(const Scalar& v, ScalarType t) {
  if (v.is_bool() || t == ScalarType::Bool || t == ScalarType::ComplexDouble) return;
  if (t == ScalarType::ComplexFloat) {  // each part into float's range (inf and nan pass)
    const std::complex<double> c = v.to_complex();
    const double m = 3.4028234663852886e38;
    MT_CHECK(!(std::abs(c.real()) > m && std::isfinite(c.real())) &&
                 !(std::abs(c.imag()) > m && std::isfinite(c.imag())),
             "value cannot be converted to type ", checked_convert_name(t), " without overflow");
    return;
  }
  // a complex number goes into a real dtype only with a zero imaginary part (PyTorch's wording: "overflow")
  if (v.is_complex() && v.to_complex().imag() != 0) {
    MT_ERROR("value cannot be converted to type ", checked_convert_name(t), " without overflow");
  }
  if (t == ScalarType::Double) return;
  double lo = 0, hi = 0;
  switch (t) {
    case ScalarType::Byte:
      lo = -255, hi = 255;
      break;
    case ScalarType::Char:
      lo = -128, hi = 127;
      break;
    case ScalarType::Short:
      lo = -32768, hi = 32767;
      break;
    case ScalarType::Int:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    case ScalarType::Long:
      lo = -9223372036854775808.0, hi = 9223372036854775807.0;
      break;
    case ScalarType::Half:
      lo = -65504, hi = 65504;
      break;
    case ScalarType::BFloat16:
      lo = -3.3895313892515355e38, hi = 3.3895313892515355e38;
      break;
    case ScalarType::Float:
      lo = -3.4028234663852886e38, hi = 3.4028234663852886e38;
      break;
    default:
      return;
  }
  bool ok;
  if (v.is_integral()) {
    int64_t i = v.to_long();
    // exact for the integer dtypes (a double bound of int64 is 2**63, past its max)
    ok = t == ScalarType::Long || is_floating(t)
             ? static_cast<double>(i) >= lo && static_cast<double>(i) <= hi
             : i >= static_cast<int64_t>(lo) && i <= static_cast<int64_t>(hi);
  } else {
    double d = v.to_double();
    if (is_floating(t)) {
      ok = !(d < lo || d > hi) || std::isinf(d);
    } else {
      // a float truncates into an integer dtype: PyTorch takes [lowest, max + 1) (255.9 is 255 in uint8),
      // with no wrap of negatives into uint8; nan fails (for int64, hi + 1 rounds to 2**63 itself)
      if (t == ScalarType::Byte) lo = 0;
      ok = d >= lo && d < hi + 1;
    }
  }
  MT_CHECK(ok, "value cannot be converted to type ", checked_convert_name(t), " without overflow");
}

const Tensor& native::fill_(const Tensor& self, const Scalar& value) {
  check_writable(self);
  // PyTorch's fill of one CPU element stores a float16/bfloat16 value unchecked (1e30 fills inf; only a
  // complex value's imaginary part is refused there); every other fill is checked (its kernel's conversion)
  const bool one_half = (self.dtype() == ScalarType::Half || self.dtype() == ScalarType::BFloat16) &&
                        self.device().is_cpu() && self.numel() == 1;
  check_scalar_fits(value, one_half ? ScalarType::Double : self.dtype());
  if (self.numel() == 0) {
    wrote(self);
    return self;
  }
  TensorIter it = TensorIter::make({self});
  fill_stub.get(self.device())(it, value);
  wrote(self);
  return self;
}

const Tensor& zero_(const Tensor& self) {
  return fill_(self, Scalar(int64_t(0)));
}

// (a template, so that each dtype's branch is only compiled for that dtype)
template <typename T>
static Scalar scalar_of(T v) {
  if constexpr (is_complex_v<T>)
    return Scalar(std::complex<double>(v));
  else if constexpr (std::is_same<T, bool>::value)
    return Scalar(v);
  else if constexpr (std::is_integral<T>::value)
    return Scalar(static_cast<int64_t>(v));
  else
    return Scalar(static_cast<double>(v));
}

Scalar item(const Tensor& self) {
  MT_CHECK(self.numel() == 1, "a Tensor with ", self.numel(), " elements cannot be converted to Scalar");
  MT_CHECK(!self.is_meta(), "Tensor.item() cannot be called on meta tensors");
  Tensor host = self.is_cuda() ? to(self, self.dtype(), Device(DeviceType::CPU)) : self;
  Scalar out;
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(host.dtype(), "item",
                                    [&] { out = scalar_of<scalar_t>(*host.data<scalar_t>()); });
  return out;
}

}  // namespace mt
