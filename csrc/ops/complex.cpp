// Complex views, parts and constructors (ops/complex.h). Everything but the two views (and torch.complex
// without autograd on the CPU: one kernel pass) is composed from differentiable ops, so autograd follows
// PyTorch's convention (the gradient of a real loss with respect to z = x + iy is dL/dx + i dL/dy) without
// formulas of its own.
#include "ops/complex.h"

#include "core/GradMode.h"
#include "core/TensorIterator.h"
#include "generated/native.h"
#include "kernels/cpu/Complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/layout.h"
#include "ops/shape.h"

namespace mt {

Tensor native::view_as_real(const Tensor& self) {
  MT_CHECK_TYPE(is_complex(self.dtype()), "view_as_real is only supported for complex tensors");
  DimVector sizes(self.sizes()), strides;
  for (int64_t s : self.strides()) strides.push_back(s * 2);
  sizes.push_back(2);
  strides.push_back(1);
  return make_view(self, sizes, strides, self.storage_offset() * 2, to_real_type(self.dtype()));
}

Tensor native::view_as_complex(const Tensor& self) {
  ScalarType dt = self.dtype();
  MT_CHECK_NOT_IMPLEMENTED(dt == ScalarType::Float || dt == ScalarType::Double || dt == ScalarType::Half,
                           "view_as_complex is only supported for half, float and double tensors, but got a "
                           "tensor of scalar type: ",
                           dtype_short_name(dt));
  MT_CHECK_NOT_IMPLEMENTED(
      dt != ScalarType::Half,
      "view_as_complex of a half tensor would be complex32, which minitorch does not have: "
      "convert to float32 first");
  MT_CHECK(self.dim() > 0, "Input tensor must have one or more dimensions");
  MT_CHECK(self.sizes().back() == 2, "Tensor must have a last dimension of size 2");
  MT_CHECK(self.strides().back() == 1, "Tensor must have a last dimension with stride 1");
  for (int64_t d = 0; d + 1 < self.dim(); ++d)  // a size-1 dim never steps: its stride may be anything
    MT_CHECK(self.stride(d) % 2 == 0 || self.size(d) == 1,
             "Tensor must have a stride divisible by 2 for all but last dimension");
  MT_CHECK(self.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  DimVector sizes(self.sizes().begin(), self.sizes().end() - 1), strides;
  for (int64_t d = 0; d + 1 < self.dim(); ++d) strides.push_back(self.size(d) == 1 ? 1 : self.stride(d) / 2);
  return make_view(self, sizes, strides, self.storage_offset() / 2, to_complex_type(dt));
}

Tensor real(const Tensor& self) {
  if (!is_complex(self.dtype())) return self;
  return select(view_as_real(self), -1, 0);
}

Tensor imag(const Tensor& self) {
  MT_CHECK_TYPE(is_complex(self.dtype()), "imag is not implemented for tensors with non-complex dtypes.");
  return select(view_as_real(self), -1, 1);
}

Tensor conj_physical(const Tensor& self) {
  // a real tensor is its own conjugate: PyTorch returns it, not a copy (a 256x256 copy cost 5 us)
  if (!is_complex(self.dtype())) return self;
  // one broadcast multiply of the [..., 2] view by (1, -1): the real kernels' speed, and its gradient
  // (the conjugate of the incoming one) comes from the ops it is made of
  ScalarType rt = to_real_type(self.dtype());
  Tensor sign = make_empty({2}, rt, Device(DeviceType::CPU));
  fill_(select(sign, 0, 0), Scalar(1.0));
  fill_(select(sign, 0, 1), Scalar(-1.0));
  return view_as_complex(mul(view_as_real(self), to(sign, rt, self.device())));
}

Tensor conj(const Tensor& self) {
  return is_complex(self.dtype()) ? conj_physical(self) : self;
}

Tensor sgn(const Tensor& self) {
  if (!is_complex(self.dtype())) return sign(self);
  // z / |z| with |z| replaced by 1 where it is 0 (z is 0 there too): no 0/0, so no NaN gradient either
  Tensor a = abs(self);
  Tensor safe = masked_fill(a, eq(a, wrapped_scalar(Scalar(0.0))), wrapped_scalar(Scalar(1.0)));
  return div(self, safe);
}

Tensor angle(const Tensor& self) {
  if (is_complex(self.dtype())) return atan2(imag(self), real(self));
  return unary(UnaryOp::_angle_real, self);  // one pass (integers and bool give the default float)
}

namespace {
void check_parts(const Tensor& a, const Tensor& b) {
  ScalarType ta = a.dtype(), tb = b.dtype();
  auto ok = [](ScalarType t) {
    return t == ScalarType::Half || t == ScalarType::Float || t == ScalarType::Double;
  };
  MT_CHECK_NOT_IMPLEMENTED(ok(ta) && ok(tb),
                           "Expected both inputs to be Half, Float or Double tensors but got ",
                           dtype_short_name(ta), " and ", dtype_short_name(tb));
  MT_CHECK(ta == tb, "Expected object of scalar type ", dtype_short_name(ta), " but got scalar type ",
           dtype_short_name(tb), " for second argument");
  MT_CHECK_NOT_IMPLEMENTED(
      ta != ScalarType::Half,
      "a complex tensor from half parts would be complex32, which minitorch does not have: "
      "convert the parts to float32 first");
}
}  // namespace

Tensor complex(const Tensor& re, const Tensor& im) {
  check_parts(re, im);
  DimVector shape = broadcast_shapes(re.sizes(), im.sizes());
  // On the CPU without autograd: one pass into an output laid out as an elementwise op's (PyTorch's
  // TensorIterator result: a transposed pair gives a transposed complex tensor). The stack below wrote a
  // contiguous copy of each part (0.1-0.7 of PyTorch's time, the least for transposed parts).
  if (!needs_grad(re, im) && re.device().is_cpu() && im.device().is_cpu()) {
    Tensor out = empty_for_iter(shape, to_complex_type(re.dtype()), re.device(), {&re, &im});
    if (out.numel() > 0) complex_from_parts_cpu(TensorIter::make({out, re, im}));
    return out;
  }
  return view_as_complex(stack({expand(re, shape), expand(im, shape)}, -1));
}

Tensor polar(const Tensor& abs_, const Tensor& angle_) {
  check_parts(abs_, angle_);
  return complex(mul(abs_, cos(angle_)), mul(abs_, sin(angle_)));
}

}  // namespace mt
