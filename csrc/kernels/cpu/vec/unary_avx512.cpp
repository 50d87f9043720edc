// SLEEF's AVX-512 loops for the float unary ops (compiled with -mavx512f; chosen at run time).
#include <immintrin.h>
#include <sleef.h>

#define VF __m512
#define VD __m512d
#define NF 16
#define ND 8
#define SLEEF_F(fn) Sleef_##fn##f16_u10avx512f
#define SLEEF_D(fn) Sleef_##fn##d8_u10avx512f
#define MT_VEC_FILL fill_table_avx512
#include "kernels/cpu/vec/unary_impl.h"
