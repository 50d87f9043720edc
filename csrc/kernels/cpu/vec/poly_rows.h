// torch.special's orthogonal polynomials of (x, n) as dense rows (vec/poly_avx2.cpp, AVX2 lanes).
#pragma once
// Plain declarations only (this header is also compiled with AVX flags), as VecUnary.h
#include <cstdint>

namespace mt {
namespace vec {

// The polynomials in special_functors.h's order: Chebyshev T, U, V, W, the shifted T, U, V, W, Hermite H and
// He, Laguerre L, Legendre P.
enum class Poly : int { T, U, V, W, ShiftedT, ShiftedU, ShiftedV, ShiftedW, H, He, L, P };

// A row of the op (out dense; x and n dense, stride 1, or one value, stride 0); `scalar` is the functor's
// row, compiled at the baseline, which the lanes the vectors do not take go to (the ends, the trigonometric
// form, orders past 64).
using PolyScalarF = void (*)(float* out, const float* x, int64_t sx, const float* n, int64_t sn, int64_t len);
using PolyScalarD = void (*)(double* out, const double* x, int64_t sx, const double* n, int64_t sn,
                             int64_t len);
// The caller checks that a vector path is in use (unary_table() != nullptr): AVX-512 runs these AVX2 lanes.
void poly_row_f32(Poly p, PolyScalarF scalar, float* out, const float* x, int64_t sx, const float* n,
                  int64_t sn, int64_t len);
void poly_row_f64(Poly p, PolyScalarD scalar, double* out, const double* x, int64_t sx, const double* n,
                  int64_t sn, int64_t len);

}  // namespace vec
}  // namespace mt
