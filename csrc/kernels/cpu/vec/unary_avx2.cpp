// The AVX2+FMA loops for the float unary ops: our own kernels, and SLEEF's where the build has it (compiled
// with -mavx2 -mfma; chosen at run time).
#include <immintrin.h>
#ifdef MINITORCH_WITH_SLEEF
#include <sleef.h>
#define SLEEF_F(fn) Sleef_##fn##f8_u10avx2
#define SLEEF_D(fn) Sleef_##fn##d4_u10avx2
#endif

#define VF __m256
#define VD __m256d
#define NF 8
#define ND 4
#define MT_ANY(m) (_mm256_movemask_ps(reinterpret_cast<__m256>(m)) != 0)
#define MT_VEC_FILL fill_table_avx2
#define MT_MUL_EPU32(a, b) \
  reinterpret_cast<VU>(_mm256_mul_epu32(reinterpret_cast<__m256i>(a), reinterpret_cast<__m256i>(b)))
#define MT_SQRT_PD _mm256_sqrt_pd
#include "kernels/cpu/vec/unary_impl.h"
