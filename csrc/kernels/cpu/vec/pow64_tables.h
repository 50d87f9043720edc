// The tables of the float64 pow kernels (avx512_pow.h's pow64_core and its four-lane twin, avx2_pow.h): the
// log reduction's 1/c and log c. Internal linkage.
#pragma once

#include <cstdint>

namespace {

// log: x = 2^k z, z in [OFF, 2 OFF), OFF = 0x3FE6C00000000000 = 0.7109375: bits(x) - OFF has k in its top 12
// bits and the interval index j in the next 5 (32 intervals of z, 1/64 wide below 1, 1/32 above). Interval
// 18 is [1 - 1/128, 1 + 1/64) with invc = 1 and log c = 0, so near x = 1, r = z - 1 is exact and log x keeps
// its relative accuracy. Elsewhere invc = 1/c is a multiple of 2^-q with q <= 7, chosen so that z invc - 1 is
// a multiple of 2^-(52+q) or 2^-(53+q) smaller than 2^-(q-1) or 2^-q: r = z invc - 1 is exact in one FMA;
// r in [-0.0198, 0.0168]. -log(invc) = LogCHi + LogCLo with LogCHi a multiple of 2^-42, as is ln2_hi, so
// k ln2_hi + LogCHi is exact (|k| <= 1074, |sum| < 2^10). All from scripts/fit_pow64_tables.py.
alignas(64) static const uint32_t kPow64InvCHi[32] = {
    // high words; the low words are 0
    0x3FF64000, 0x3FF5C000, 0x3FF54000, 0x3FF50000, 0x3FF48000, 0x3FF40000, 0x3FF3C000, 0x3FF34000,
    0x3FF30000, 0x3FF28000, 0x3FF24000, 0x3FF20000, 0x3FF1C000, 0x3FF14000, 0x3FF10000, 0x3FF0C000,
    0x3FF08000, 0x3FF04000, 0x3FF00000, 0x3FEF0000, 0x3FEE0000, 0x3FED4000, 0x3FEC8000, 0x3FEB8000,
    0x3FEB0000, 0x3FEA4000, 0x3FE98000, 0x3FE90000, 0x3FE88000, 0x3FE7C000, 0x3FE74000, 0x3FE6C000,
};
alignas(64) static const double kPow64LogCHi[32] = {
    -0.32975328637257917,
    -0.30702503529482783,
    -0.28376817313073843,
    -0.2719337154835557,
    -0.2478361639045943,
    -0.22314355131425145,
    -0.21056476910735,
    -0.18492233849406148,
    -0.17185025692674571,
    -0.14518200984457508,
    -0.13157635778861732,
    -0.11778303565643,
    -0.10379679368156758,
    -0.07522342123752424,
    -0.06062462181648698,
    -0.0458095360313564,
    -0.03077165866670839,
    -0.015504186535963527,
    0.0,
    0.03174869831468641,
    0.0645385211375924,
    0.08985632912185793,
    0.11583181552509814,
    0.151549898127314,
    0.16989903679541385,
    0.19806991376208316,
    0.22705745063535687,
    0.2468600779316148,
    0.2670627852489815,
    0.29815337231912054,
    0.3194307707663029,
    0.3411707574027787,
};
alignas(64) static const double kPow64LogCLo[32] = {
    1.1118671389559323e-13,
    -8.403156304792425e-14,
    9.3834172236637e-14,
    -8.604306772808733e-14,
    1.3029797173308663e-14,
    4.169796584527195e-14,
    3.6507188831790577e-16,
    4.9485167661250996e-14,
    8.649239607212071e-14,
    7.718001336828099e-14,
    -1.0195735223708473e-13,
    4.654729747598445e-14,
    -7.598636597194141e-14,
    -6.329065958724544e-14,
    5.213620639136504e-14,
    6.219834199475792e-14,
    -4.529814257790929e-14,
    -1.7274567499706107e-15,
    0.0,
    -1.0610652735224087e-13,
    -2.1225608044809997e-14,
    3.1218748807418837e-15,
    2.3568822182038756e-14,
    -1.1307104809870373e-13,
    -1.6376276414097503e-14,
    1.0634128304268335e-14,
    -1.078736749871691e-14,
    -8.899851356560444e-14,
    6.371947269815667e-14,
    -4.4204083338755686e-14,
    5.834357420090924e-14,
    -1.156568624616423e-14,
};

}  // namespace
