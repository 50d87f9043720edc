// CPU random fills (uniform, normal, integers, Bernoulli) behind random_fill_stub; the front end is
// ops/factory.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/Generator.h"
#include "core/Parallel.h"
#include "kernels/cpu/BoxMuller.h"
#include "kernels/cpu/VecUnary.h"
#include "kernels/functors.h"
#include "ops/kernels.h"

#if defined(__SSE2__)
// The fills of vec/random_impl.h at the baseline instruction set too (SSE2, two doubles a vector: every
// x86-64 CPU), for MINITORCH_CPU_CAPABILITY=default and CPUs without AVX2; the same bits as every path.
#include <emmintrin.h>
#define VD __m128d
#define ND 2
#define MT_MUL_EPU32(a, b) \
  reinterpret_cast<VU>(_mm_mul_epu32(reinterpret_cast<__m128i>(a), reinterpret_cast<__m128i>(b)))
#define MT_SQRT_PD _mm_sqrt_pd
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#include "kernels/cpu/vec/random_impl.h"
#pragma GCC pop_options
#undef VD
#undef ND
#undef MT_MUL_EPU32
#undef MT_SQRT_PD
#endif

namespace mt {
namespace {

// The random entries of the vector table: the CPU's (AVX2, AVX-512), else the baseline's (SSE2, above), else
// none (the scalar loops below).
const vec::Table* random_table() {
  if (const vec::Table* t = vec::unary_table()) return t;
#if defined(__SSE2__)
  static const vec::Table base = [] {
    vec::Table t{};
    t.normal_philox_f64 = &vec::normal_philox_lanes;
    t.uniform_philox_f64 = &vec::uniform_philox_lanes;
    t.philox_fill_f32 = &vec::philox_fill<float>;
    t.philox_fill_f64 = &vec::philox_fill<double>;
    t.philox_fill_i64 = &vec::philox_fill<int64_t>;
    return t;
  }();
  return &base;
#else
  return nullptr;
#endif
}

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
// path draws the same bits), compiled without FP contraction as they are; run where random_table() is null
// (a CPU without SSE2)
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

// Chunk c in one vectorized pass from the Philox words to the result (vec/random_impl.h's philox_fill, the
// mapping below lane by lane) where the CPU has the loops and the output is float32, float64 or int64
// (integers and Bernoulli); false where it is not, for fill_chunk's draws-then-map. Integer bounds beyond
// 2^50 keep the scalar mapping: the fused one floors and converts through double, exactly only below 2^52.
template <typename T>
bool fill_chunk_fused(T* out, uint64_t seed, uint64_t c, uint64_t offset, int64_t n,
                      const RandomFillArgs& args, double scale) {
  const vec::Table* table = random_table();
  if (!table) return false;
  if (args.kind == RandomKind::integers) {
    constexpr int64_t lim = int64_t(1) << 50;
    if (args.low < -lim || args.high > lim) {
      // float64's random_() ([0, 2^53]; its range 2^53 + 1 is 2^53 in double) and random_(2^53): the
      // mapping's floor(u 2^53) is u's 53-bit integer itself, which the uniform fill over [0, 2^53) keeping
      // all 53 bits writes (2^53 u, exact): the same bits, vectorized (the scalar mapping ran 2.2x
      // PyTorch's time)
      if constexpr (std::is_same<T, double>::value) {
        constexpr double two53 = 9007199254740992.0;
        if (args.low == 0 && static_cast<double>(args.high) == two53) {
          const vec::PhiloxFill u{static_cast<int>(RandomKind::uniform), 0.0, two53, two53, 0, 0};
          table->philox_fill_f64(out, n, seed, c, offset << 20, u);
          return true;
        }
      }
      return false;
    }
  }
  const vec::PhiloxFill f{static_cast<int>(args.kind), args.a, args.b, scale, args.low, args.high};
  if constexpr (std::is_same<T, float>::value) {
    table->philox_fill_f32(out, n, seed, c, offset << 20, f);
    return true;
  } else if constexpr (std::is_same<T, double>::value) {
    table->philox_fill_f64(out, n, seed, c, offset << 20, f);
    return true;
  } else if constexpr (std::is_same<T, int64_t>::value) {
    if (args.kind != RandomKind::integers && args.kind != RandomKind::bernoulli) return false;
    table->philox_fill_i64(out, n, seed, c, offset << 20, f);
    return true;
  }
  return false;
}

// Chunk c's draws: Philox(seed, c, offset << 20), through the vectorized loops where the CPU has them.
template <typename T>
void fill_chunk(T* out, double* u, uint64_t seed, uint64_t c, uint64_t offset, int64_t n,
                const RandomFillArgs& args, double scale) {
  const vec::Table* table = random_table();
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
    case RandomKind::binomial:  // binomial_fill's and cauchy_map's, never here
    case RandomKind::cauchy:
      break;
  }
}

// ---- Binomial(count, prob) draws, element by element (PyTorch's sample_binomial: inversion by geometric
// waiting times where count q < 10, Hormann's BTRS beyond, q = min(p, 1 - p) and the draw reflected),
// computed in double for float and double. Element i's first two uniforms are the chunk's pair 2i, 2i + 1 of
// Philox(seed, chunk, offset << 20) (vectorized with the uniform draws); more (inversion takes about count q
// + 1, BTRS about 1.2 pairs) come from its own Philox(seed, 2^62 + i, offset << 20), so a draw depends on the
// seed, the call and the element's index only.
class ElementUniforms {
 public:
  ElementUniforms(const double* first, uint64_t seed, uint64_t index, uint64_t counter)
      : first_(first), seed_(seed), index_(index), counter_(counter) {}
  double next() {
    if (used_ < 2) return first_[used_++];
    if (!ph_) {
      ph_storage_ = Philox(seed_, (uint64_t(1) << 62) + index_, counter_);
      ph_ = &ph_storage_;
    }
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    uint32_t r[4];
    ph_->next4(r);
    spare_ = u01(r[2], r[3]);
    has_spare_ = true;
    return u01(r[0], r[1]);
  }

 private:
  const double* first_;
  uint64_t seed_, index_, counter_;
  int used_ = 0;
  Philox ph_storage_{0, 0, 0};
  Philox* ph_ = nullptr;
  double spare_ = 0;
  bool has_spare_ = false;
};

// log k! - ((k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2), Stirling's remainder: exact for k <= 9 (a table;
// a fractional k takes its floor's, as PyTorch's), its series to 1/(k + 1)^5 beyond (error below 3e-11).
inline double stirling_tail(double k) {
  static const double kTail[10] = {0.08106146679532733,  0.04134069595540946,  0.027677925684997717,
                                   0.02079067210376584,  0.01664469118982126,  0.013876128823072875,
                                   0.011896709945893313, 0.010411265261973668, 0.00925546218270945,
                                   0.008330563433359472};
  if (k <= 9) return kTail[static_cast<int>(k)];
  const double kp1sq = (k + 1.0) * (k + 1.0);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1.0);
}

// log k! up to the terms log(k!) - log((n-k)!) ratios cancel: (k + 1/2) log(k + 1) + Stirling's remainder
// (the
// -(k + 1) and log(2 pi) / 2 of k and n - k sum to the same for every k).
inline double log_factorial_part(double k) {
  return (k + 0.5) * std::log(k + 1.0) + stirling_tail(k);
}

// Each sampler's constants depend on (count, q) only: kept for the next element, which often has the same
// pair (an expanded count or prob, Binomial(n, p).sample(shape)), so a run of equal parameters sets them up
// once.
struct InversionSetup {
  double m = -1, q = -1;
  double r = 0, p0 = 0;
  void set(double m_, double q_) {
    if (m_ == m && q_ == q) return;
    m = m_;
    q = q_;
    r = q_ / (1.0 - q_);
    p0 = std::exp(m * std::log1p(-q_));  // pmf(0) = (1 - q)^m, at least e^-10 here (m q < 10)
  }
};

// Binomial(floor(count), q) by sequential search of the cdf (about count q + 1 steps, one uniform, no log per
// step): the law of PyTorch's count of geometric(q) waiting times that fit in count (their sum is an integer,
// so a fractional count holds as many as its floor). Stops where the pmf no longer moves the cdf (u within
// rounding of 1).
double binomial_inversion(double count, double q, InversionSetup& s, ElementUniforms& u) {
  const double m = std::floor(count);
  if (m < 1) return 0;  // no waiting time fits: no draw, no setup
  s.set(m, q);
  double p = s.p0, cdf = s.p0, k = 0;
  const double v = u.next();
  while (cdf <= v && k < s.m) {
    k += 1;
    p *= s.r * (s.m - k + 1.0) / k;
    cdf += p;
    if (p <= 2.220446049250313e-16 * cdf) break;
  }
  return k;
}

struct BtrsSetup {
  double n = -1, q = -1;
  double spq = 0, b = 0, a = 0, c = 0, alpha = 0, vr = 0, mode = 0;
  bool ratio_terms = false;  // the two below, made at the first test that needs them
  double log_ratio = 0, log_pmf_mode = 0;
  void set(double n_, double q_) {
    if (n_ == n && q_ == q) return;
    n = n_;
    q = q_;
    spq = std::sqrt(n * q * (1.0 - q));
    b = 1.15 + 2.53 * spq;
    a = -0.0873 + 0.0248 * b + 0.01 * q;
    c = n * q + 0.5;
    alpha = (2.83 + 5.1 / b) * spq;
    vr = 0.92 - 4.2 / b;
    mode = std::floor((n + 1.0) * q);
    ratio_terms = false;
  }
};

// Hormann's BTRS (1993) for count q >= 10, q <= 1/2, accepting against the log pmf ratio to the mode through
// Stirling's series with its remainder (PyTorch's; lgamma per test cost a quarter of the time).
double binomial_btrs(BtrsSetup& s, ElementUniforms& u) {
  const double n = s.n;
  while (true) {
    const double U = u.next() - 0.5, V = u.next();
    const double us = 0.5 - std::fabs(U);
    const double k = std::floor((2.0 * s.a / us + s.b) * U + s.c);
    if (!(k >= 0 && k <= n)) continue;
    if (us >= 0.07 && V <= s.vr) return k;
    if (!s.ratio_terms) {
      s.log_ratio = std::log(s.q / (1.0 - s.q));
      s.log_pmf_mode = -log_factorial_part(s.mode) - log_factorial_part(n - s.mode);
      s.ratio_terms = true;
    }
    const double lhs = std::log(V * s.alpha / (s.a / (us * us) + s.b));
    const double rhs =
        (-log_factorial_part(k) - log_factorial_part(n - k)) - s.log_pmf_mode + (k - s.mode) * s.log_ratio;
    if (lhs <= rhs) return k;
  }
}

// A NaN count or prob, or an infinite count with 0 < prob < 1, has no draw: NaN (PyTorch's for the last two;
// its sampler would loop forever on a NaN count). A count <= 0 or prob <= 0 draws 0, prob >= 1 the count.
double binomial_one(double n, double p, ElementUniforms& u, InversionSetup& inv, BtrsSetup& btrs) {
  if (std::isnan(n) || std::isnan(p)) return std::numeric_limits<double>::quiet_NaN();
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (std::isinf(n)) return std::numeric_limits<double>::quiet_NaN();
  const bool flip = p > 0.5;
  const double q = flip ? 1.0 - p : p;
  double k;
  if (n * q >= 10.0) {
    btrs.set(n, q);
    k = binomial_btrs(btrs, u);
  } else {
    k = binomial_inversion(n, q, inv, u);
  }
  return flip ? n - k : k;
}

template <typename T>
void binomial_fill(T* out, const T* count, const T* prob, int64_t n, uint64_t seed, uint64_t offset) {
  const vec::Table* table = random_table();
  const int64_t nchunks = (n + kRandChunk - 1) / kRandChunk;
  parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
    // uninitialized and no longer than the call needs: zeroing 64 KB cost more than drawing 64 elements
    std::unique_ptr<double[]> u(new double[static_cast<size_t>(2 * std::min(n, kRandChunk))]);
    for (int64_t c = b; c < e; ++c) {
      const int64_t lo = c * kRandChunk, m = std::min(n, lo + kRandChunk) - lo;
      if (table) {
        table->uniform_philox_f64(u.get(), 2 * m, seed, static_cast<uint64_t>(c), offset << 20);
      } else {
        Philox ph(seed, static_cast<uint64_t>(c), offset << 20);
        uniform_draws(ph, u.get(), 2 * m);
      }
      InversionSetup inv;
      BtrsSetup btrs;
      for (int64_t i = 0; i < m; ++i) {
        ElementUniforms eu(u.get() + 2 * i, seed, static_cast<uint64_t>(lo + i), offset << 20);
        out[lo + i] = static_cast<T>(binomial_one(static_cast<double>(count[lo + i]),
                                                  static_cast<double>(prob[lo + i]), eu, inv, btrs));
      }
    }
  });
}

// cauchy_'s map of uniform draws in place: median + sigma * tan(pi * (u - 1/2)), each step rounded in T as
// the in-place ops cauchy_ was made of round it (the numbers in T first; sub, mul, tan, mul, add, no FMA),
// tan through the vector table's row where the unary op takes it (its tail padded: every element the same
// path), else the functor's. One pass a block, where the six ops cost about 0.9 us each at 8x8 (0.7 of
// PyTorch's speed there).
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
template <typename T>
void cauchy_map(T* x, int64_t n, double median, double sigma) {
  const vec::Table* t = vec::unary_table();
  const int k = static_cast<int>(vec::Fn::tan);
  void (*row)(T*, const T*, int64_t) = nullptr;
  if (t) {
    if constexpr (std::is_same<T, double>::value)
      row = t->f64[k];
    else
      row = t->f32[k];
  }
  const T half = T(0.5), pi = static_cast<T>(M_PI), s = static_cast<T>(sigma), m = static_cast<T>(median);
  parallel_for(0, n, 16384, [&](int64_t b, int64_t e) {
    constexpr int64_t kBlock = 1024;
    for (int64_t lo = b; lo < e; lo += kBlock) {
      T* p = x + lo;
      const int64_t len = std::min(kBlock, e - lo);
      for (int64_t i = 0; i < len; ++i) p[i] = (p[i] - half) * pi;
      if (row) {
        row(p, p, len);
      } else {
        const fn::Tan tan;
        for (int64_t i = 0; i < len; ++i) p[i] = tan(p[i]);
      }
      for (int64_t i = 0; i < len; ++i) p[i] = p[i] * s + m;
    }
  });
}
#pragma GCC pop_options

void random_fill_cpu(const Tensor& self, const RandomFillArgs& args, uint64_t seed, uint64_t offset) {
  const int64_t n = self.numel();
  const ScalarType dt = self.dtype();
  // a 53-bit draw near 1 would round up to `b` in float32, float16 or bfloat16 and break the half-open range
  const double scale = std::ldexp(1.0, dt == ScalarType::Double  ? 53
                                       : dt == ScalarType::Float ? 24
                                       : dt == ScalarType::Half  ? 11
                                                                 : 8);
  const int64_t nchunks = (n + kRandChunk - 1) / kRandChunk;
  if (args.kind == RandomKind::binomial) {
    MT_CHECK(dt == ScalarType::Float || dt == ScalarType::Double, "\"binomial_cpu\" not implemented for '",
             dtype_short_name(dt), "'");
    if (dt == ScalarType::Float)
      binomial_fill(self.data<float>(), args.count->data<float>(), args.prob->data<float>(), n, seed, offset);
    else
      binomial_fill(self.data<double>(), args.count->data<double>(), args.prob->data<double>(), n, seed,
                    offset);
    return;
  }
  if (args.kind == RandomKind::cauchy) {  // the uniform draws, then the map
    MT_CHECK(dt == ScalarType::Float || dt == ScalarType::Double, "\"cauchy_cpu\" not implemented for '",
             dtype_short_name(dt), "'");
    RandomFillArgs u = args;
    u.kind = RandomKind::uniform;
    u.a = 0.0;
    u.b = 1.0;
    random_fill_cpu(self, u, seed, offset);
    if (dt == ScalarType::Float)
      cauchy_map(self.data<float>(), n, args.a, args.b);
    else
      cauchy_map(self.data<double>(), n, args.a, args.b);
    return;
  }
  MT_DISPATCH_ALL_TYPES(dt, "random_fill_cpu", [&] {
    scalar_t* out = self.data<scalar_t>();
    parallel_for(0, nchunks, 4, [&](int64_t b, int64_t e) {
      std::vector<double> u;  // the draws-then-map path's buffer, made only where the fused pass does not run
      for (int64_t c = b; c < e; ++c) {
        int64_t lo = c * kRandChunk, hi = std::min(n, lo + kRandChunk);
        if (fill_chunk_fused(out + lo, seed, static_cast<uint64_t>(c), offset, hi - lo, args, scale))
          continue;
        if (u.empty()) u.resize(static_cast<size_t>(std::min(n, kRandChunk)));
        fill_chunk(out + lo, u.data(), seed, static_cast<uint64_t>(c), offset, hi - lo, args, scale);
      }
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(random_fill_stub, CPU, &random_fill_cpu);

}  // namespace mt
