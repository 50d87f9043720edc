// torch.special's modified Bessel functions of the second kind as dense rows (vec/bessel_k_avx2.cpp,
// AVX2+FMA).
#pragma once
// Plain declarations only (this header is also compiled with AVX flags), as VecUnary.h
#include "kernels/cpu/VecUnary.h"

namespace mt {
namespace vec {

// The dense row of K0 (n = 0) or K1 (n = 1), exp(x) K_n(x) when scaled, for both vector paths (AVX-512 runs
// the AVX2 lanes, as its i0/i1 rows); the caller checks that a vector path is in use (unary_table() !=
// nullptr).
LoopF bessel_k_row_f32(int n, bool scaled);
LoopD bessel_k_row_f64(int n, bool scaled);

}  // namespace vec
}  // namespace mt
