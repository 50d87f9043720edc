// Complex numbers' own ops: the real/complex views (no copy), real/imag parts, conjugation, sgn/angle, and
// building complex tensors from parts. Arithmetic on complex tensors is the elementwise table's (ops/
// elementwise.h), whose CPU kernels take complex dtypes in kernels/cpu/complex.cpp.
#pragma once
#include "core/Tensor.h"

namespace mt {

// [..., 2] real view of a complex tensor and its inverse (last dim of size 2 and stride 1, even strides).
Tensor view_as_real(const Tensor& self);
Tensor view_as_complex(const Tensor& self);
// Views of the real and imaginary parts; real() of a real tensor is the tensor itself.
Tensor real(const Tensor& self);
Tensor imag(const Tensor& self);
// Conjugation is eager here (PyTorch sets a lazy bit): conj() of a real tensor is the tensor itself, of a
// complex one a new tensor; conj_physical() the same (PyTorch returns a real input itself there too).
Tensor conj(const Tensor& self);
Tensor conj_physical(const Tensor& self);
// z / |z| (0 at 0); sign() for real tensors.
Tensor sgn(const Tensor& self);
// The argument of a complex number; for real numbers 0 or pi (nan stays nan).
Tensor angle(const Tensor& self);
// real + i imag and abs * (cos angle + i sin angle), broadcasting, from two float tensors of one dtype.
Tensor complex(const Tensor& real, const Tensor& imag);
Tensor polar(const Tensor& abs, const Tensor& angle);

}  // namespace mt
