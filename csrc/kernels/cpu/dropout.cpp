// CPU dropout: Philox4x32 per chunk of elements, so the mask depends on the seed only, not on threads.
#include <cmath>
#include <cstring>
#include <vector>

#include "core/Exception.h"
#include "core/Generator.h"
#include "core/Parallel.h"
#include "core/ScalarType.h"
#include "ops/nn.h"

namespace mt {
namespace {

constexpr int64_t kDropChunk = 4096;  // elements per Philox subsequence: values do not depend on threads
constexpr int kLanes4 = 16;  // Philox counters run side by side (64 elements), so the rounds vectorize

// Philox4x32-10 (core/Generator.h) for counters base .. base + kLanes4 - 1 of one subsequence, in lockstep:
// out[w][j] is word w of counter base + j.
inline void philox_lanes(uint64_t seed, uint64_t subseq, uint64_t base, uint32_t out[4][kLanes4]) {
  uint32_t c0[kLanes4], c1[kLanes4], c2[kLanes4], c3[kLanes4];
  for (int j = 0; j < kLanes4; ++j) {
    uint64_t ctr = base + static_cast<uint64_t>(j);
    c0[j] = static_cast<uint32_t>(ctr);
    c1[j] = static_cast<uint32_t>(ctr >> 32);
    c2[j] = static_cast<uint32_t>(subseq);
    c3[j] = static_cast<uint32_t>(subseq >> 32);
  }
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    for (int j = 0; j < kLanes4; ++j) {
      uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0[j];
      uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2[j];
      uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[j] ^ k0;
      uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[j] ^ k1;
      c0[j] = n0;
      c1[j] = static_cast<uint32_t>(p1);
      c2[j] = n2;
      c3[j] = static_cast<uint32_t>(p0);
    }
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  for (int j = 0; j < kLanes4; ++j) {
    out[0][j] = c0[j];
    out[1][j] = c1[j];
    out[2][j] = c2[j];
    out[3][j] = c3[j];
  }
}

void dropout_cpu(const Tensor& y, const Tensor& mask, const Tensor& x, double p, uint64_t seed,
                 uint64_t offset) {
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "dropout", [&] {
    using op_t = opmath_t<scalar_t>;
    const scalar_t* px = x.data<scalar_t>();
    scalar_t* py = y.data<scalar_t>();
    bool* pm = mask.data<bool>();
    int64_t n = x.numel();
    // keep when a 24-bit uniform u < 1 - p: Bernoulli(1 - p) as PyTorch draws it; compared as integers
    uint32_t keep_below = static_cast<uint32_t>(std::ceil((1.0 - p) * 16777216.0));
    op_t scale = static_cast<op_t>(1.0 / (1.0 - p));
    int64_t nchunks = (n + kDropChunk - 1) / kDropChunk;
    parallel_for(0, nchunks, 4, [&](int64_t b, int64_t e) {
      uint32_t r[4][kLanes4];
      for (int64_t ch = b; ch < e; ++ch) {
        int64_t lo = ch * kDropChunk, hi = std::min(n, lo + kDropChunk);
        uint64_t base = offset << 20;
        for (int64_t i0 = lo; i0 < hi; i0 += 4 * kLanes4, base += kLanes4) {
          philox_lanes(seed, static_cast<uint64_t>(ch), base, r);
          int64_t stop = std::min(hi, i0 + 4 * kLanes4);
          for (int64_t i = i0; i < stop; ++i) {
            int64_t k = i - i0;
            bool keep = (r[k / kLanes4][k % kLanes4] >> 8) < keep_below;
            pm[i] = keep;
            py[i] = keep ? static_cast<scalar_t>(static_cast<op_t>(px[i]) * scale) : static_cast<scalar_t>(0);
          }
        }
      }
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(dropout_stub, CPU, &dropout_cpu);

}  // namespace mt
