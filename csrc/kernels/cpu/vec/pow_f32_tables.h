// The tables and polynomials of float32 pow computed in float64, shared by AVX-512's kernel (avx512_pow.h)
// and AVX2's (pow_f32_avx2.h) so that both widths give the same bits (scripts/fit_pow_tables.py fits them).
// Internal linkage.
#pragma once

namespace {

// log2: |x| (exact as a double, float subnormals included) = 2^k z with z in [OFF, 2 OFF), OFF = 0.703125 =
// 0x3FE6800000000000: bits(x) - OFF has k in its top 12 bits and the interval index in the next 4 (the
// AVX-512 permute reads only bits 3:0 of bits >> 48; AVX2 masks them for its gather). The 16 intervals of z
// are 1/32 wide below 1 and 1/16 above; entry 9 is [1 - 1/64, 1 + 1/32) with invc = 1 and log2 c = 0, so near
// x = 1, r = z - 1 is exact and log2 x = r q(r) keeps its relative accuracy (y can be large there). Elsewhere
// invc = 2 / (a + b) of its interval [a, b), r = z invc - 1 rounded once (FMA), |r| <= 1/32, and kPowLogC =
// -log2(invc) of the rounded invc (scripts/fit_pow_tables.py).
alignas(64) static const double kPowInvC[16] = {
    1.391304347826087,
    1.3333333333333333,
    1.28,
    1.2307692307692308,
    1.1851851851851851,
    1.1428571428571428,
    1.103448275862069,
    1.0666666666666667,
    1.032258064516129,
    1.0,
    0.9411764705882353,
    0.8888888888888888,
    0.8421052631578947,
    0.8,
    0.7619047619047619,
    0.7272727272727273,
};
alignas(64) static const double kPowLogC[16] = {
    -0.4764380439429871,   -0.41503749927884376,
    -0.35614381022527536,  -0.29956028185890793,
    -0.24511249783653138,  -0.19264507794239583,
    -0.14201900487242786,  -0.09310940439148145,
    -0.045803689613124754, 0.0,
    0.08746284125033943,   0.16992500144231246,
    0.24792751344358557,   0.3219280948873623,
    0.39231742277876036,   0.4594316186372972,
};
// log2(1 + r) / r, degree 5 on [-0.0295, 0.0313], highest coefficient first: relative error 2^-38.1
// (fit_pow_tables.py, Lawson minimax)
static constexpr double kPowLog2Q[6] = {-0.23959858079816657, 0.28882075122951434, -0.36067467399574266,
                                        0.48089825037634515,  -0.7213475202792075, 1.4426950408938863};
// (2^s - 1) / s, degree 3 on [-1/32, 1/32], highest first: 1 + s p(s) is within 2^-38.5 of 2^s
static constexpr double kPowExp2P[4] = {0.009618058198509203, 0.055505734791466796, 0.2402265071253391,
                                        0.6931471801638148};

}  // namespace
