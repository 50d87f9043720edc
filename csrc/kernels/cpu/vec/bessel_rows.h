// torch.special's Bessel functions J0, J1, Y0, Y1, K0, K1 (and scaled K) as dense rows (vec/bessel_avx2.cpp,
// AVX2+FMA).
#pragma once
// Plain declarations only (this header is also compiled with AVX flags), as VecUnary.h
#include "kernels/cpu/VecUnary.h"

namespace mt {
namespace vec {

// The caller checks that a vector path is in use (unary_table() != nullptr): these rows are AVX2 lanes, which
// AVX-512 runs too (as its i0/i1 rows).
// K0 (n = 0) or K1 (n = 1), exp(x) K_n(x) when scaled
LoopF bessel_k_row_f32(int n, bool scaled);
LoopD bessel_k_row_f64(int n, bool scaled);
// J0/J1 (first kind) or Y0/Y1 (second = true)
LoopF bessel_jy_row_f32(int n, bool second);
LoopD bessel_jy_row_f64(int n, bool second);
// spherical j0 (sin(x) / x) and Airy's Ai
LoopF spherical_j0_row_f32();
LoopD spherical_j0_row_f64();
LoopF airy_ai_row_f32();
LoopD airy_ai_row_f64();

}  // namespace vec
}  // namespace mt
