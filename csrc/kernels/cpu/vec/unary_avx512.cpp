// The AVX-512 loops for the float unary ops: our own kernels, and SLEEF's where the build has it (compiled
// with -mavx512f; chosen at run time). GCC 12 warns about the _mm512_undefined_ps() inside
// vgetmantps/vgetexpps/ vscalefps intrinsics (false positive; -Wuninitialized where the intrinsic is inlined
// into a function that is not, as pow's special path)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#ifdef MINITORCH_WITH_SLEEF
#include <sleef.h>
#define SLEEF_F(fn) Sleef_##fn##f16_u10avx512f
#define SLEEF_D(fn) Sleef_##fn##d8_u10avx512f
#endif

#define VF __m512
#define VD __m512d
#define NF 16
#define ND 8
#define MT_VEC_AVX512 1
#define MT_ANY(m) (_mm512_movepi32_mask(reinterpret_cast<__m512i>(m)) != 0)
#define MT_VEC_FILL fill_table_avx512
#define MT_MUL_EPU32(a, b) \
  reinterpret_cast<VU>(_mm512_mul_epu32(reinterpret_cast<__m512i>(a), reinterpret_cast<__m512i>(b)))
#define MT_SQRT_PD _mm512_sqrt_pd
#include "kernels/cpu/vec/unary_impl.h"
