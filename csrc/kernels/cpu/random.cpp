// CPU random fills (uniform, normal, integers, Bernoulli) behind random_fill_stub; the front end is
// ops/factory.cpp.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/Generator.h"
#include "core/Parallel.h"
#include "kernels/cpu/BoxMuller.h"
#include "kernels/cpu/VecUnary.h"
#include "ops/kernels.h"

namespace mt {
namespace {

// Chunk c of the output draws from Philox(seed, c, offset << 20) alone, so the values depend on the seed and
// the call sequence, never on how chunks are spread over threads.
constexpr int64_t kRandChunk = 4096;

inline double u01(uint32_t hi, uint32_t lo) {  // 53 random bits in [0, 1)
  return static_cast<double>((static_cast<uint64_t>(hi >> 5) << 26) | (lo >> 6)) * (1.0 / 9007199254740992.0);
}

void uniform_draws(Philox& ph, double* out, int64_t n) {
  uint32_t r[4];
  for (int64_t i = 0; i < n; i += 2) {
    ph.next4(r);
    out[i] = u01(r[0], r[1]);
    if (i + 1 < n) out[i + 1] = u01(r[2], r[3]);
  }
}

// Box-Muller, two normals per draw, with BoxMuller.h's log and sincos (the vector paths' operations, so every
// path draws the same bits), compiled without FP contraction as they are
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
void normal_draws(Philox& ph, double* out, int64_t n) {
  uint32_t r[4];
  for (int64_t i = 0; i < n; i += 2) {
    ph.next4(r);
    const double u1 = 1.0 - u01(r[0], r[1]), u2 = u01(r[2], r[3]);
    const double rad = std::sqrt(-2.0 * bm::log_unit<double, int64_t>(u1));
    double s, c;
    bm::sincos_2pi<double, int64_t>(u2, s, c);
    out[i] = rad * c;
    if (i + 1 < n) out[i + 1] = rad * s;
  }
}
#pragma GCC pop_options

// Values are computed in double (int64 for integers) and stored with copy_'s conversion
// (kernels/cpu/copy.cpp: half and bfloat16 through float), so a draw into any dtype equals a float64 draw
// copied into it.
template <typename T, typename S>
inline T store_as(S v) {
  if constexpr (std::is_same<T, bool>::value)
    return v != S(0);
  else if constexpr (std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// Chunk c's draws: Philox(seed, c, offset << 20), through the vectorized loops where the CPU has them.
template <typename T>
void fill_chunk(T* out, double* u, uint64_t seed, uint64_t c, uint64_t offset, int64_t n,
                const RandomFillArgs& args, double scale) {
  const vec::Table* table = vec::unary_table();
  auto draws = !table                            ? nullptr
               : args.kind == RandomKind::normal ? table->normal_philox_f64
                                                 : table->uniform_philox_f64;
  if (draws) {
    draws(u, n, seed, c, offset << 20);
  } else {
    Philox ph(seed, c, offset << 20);
    if (args.kind == RandomKind::normal)
      normal_draws(ph, u, n);
    else
      uniform_draws(ph, u, n);
  }
  switch (args.kind) {
    case RandomKind::uniform:  // keep only the mantissa bits the dtype holds, as PyTorch does
      // u * scale is in [0, 2^53): the int64 conversion truncates, which is floor there, without the libm
      // call that std::floor is in the baseline (SSE2) build
      for (int64_t i = 0; i < n; ++i) {
        const double kept = static_cast<double>(static_cast<int64_t>(u[i] * scale)) / scale;
        out[i] = store_as<T>(args.a + (args.b - args.a) * kept);
      }
      break;
    case RandomKind::normal:
      for (int64_t i = 0; i < n; ++i) out[i] = store_as<T>(args.a + args.b * u[i]);
      break;
    case RandomKind::integers: {
      // high - low can exceed int64 (randint(-2**63, 2**62)): the width in double, the offset added in uint64
      double range = static_cast<double>(args.high) - static_cast<double>(args.low);
      for (int64_t i = 0; i < n; ++i) {
        auto off = static_cast<uint64_t>(std::floor(u[i] * range));
        out[i] =
            store_as<T>(std::min(args.high - 1, static_cast<int64_t>(static_cast<uint64_t>(args.low) + off)));
      }
      break;
    }
    case RandomKind::bernoulli:
      for (int64_t i = 0; i < n; ++i) out[i] = store_as<T>(u[i] < args.a ? 1.0 : 0.0);
      break;
  }
}

void random_fill_cpu(const Tensor& self, const RandomFillArgs& args, uint64_t seed, uint64_t offset) {
  const int64_t n = self.numel();
  const ScalarType dt = self.dtype();
  // a 53-bit draw near 1 would round up to `b` in float32, float16 or bfloat16 and break the half-open range
  const double scale = std::ldexp(1.0, dt == ScalarType::Double  ? 53
                                       : dt == ScalarType::Float ? 24
                                       : dt == ScalarType::Half  ? 11
                                                                 : 8);
  const int64_t nchunks = (n + kRandChunk - 1) / kRandChunk;
  MT_DISPATCH_ALL_TYPES(dt, "random_fill_cpu", [&] {
    scalar_t* out = self.data<scalar_t>();
    parallel_for(0, nchunks, 4, [&](int64_t b, int64_t e) {
      std::vector<double> u(static_cast<size_t>(kRandChunk));
      for (int64_t c = b; c < e; ++c) {
        int64_t lo = c * kRandChunk, hi = std::min(n, lo + kRandChunk);
        fill_chunk(out + lo, u.data(), seed, static_cast<uint64_t>(c), offset, hi - lo, args, scale);
      }
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(random_fill_stub, CPU, &random_fill_cpu);

}  // namespace mt
