// Philox4x32-10 counter-based generator: seeded, reproducible, and the same stream on host and device.
#pragma once
#include <cstdint>
#include <mutex>

#include "core/Macros.h"

namespace mt {

struct Philox {
  uint32_t key[2];
  uint32_t ctr[4];

  MT_HOST_DEVICE Philox(uint64_t seed, uint64_t subsequence, uint64_t offset) {
    key[0] = static_cast<uint32_t>(seed);
    key[1] = static_cast<uint32_t>(seed >> 32);
    ctr[0] = static_cast<uint32_t>(offset);
    ctr[1] = static_cast<uint32_t>(offset >> 32);
    ctr[2] = static_cast<uint32_t>(subsequence);
    ctr[3] = static_cast<uint32_t>(subsequence >> 32);
  }
  // Four 32-bit random words for the current counter, then advance it.
  MT_HOST_DEVICE void next4(uint32_t out[4]) {
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; ++r) {
      uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c[0];
      uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c[2];
      uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0;
      uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1;
      c[0] = n0;
      c[1] = static_cast<uint32_t>(p1);
      c[2] = n2;
      c[3] = static_cast<uint32_t>(p0);
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    for (int i = 0; i < 4; ++i) out[i] = c[i];
    if (++ctr[0] == 0 && ++ctr[1] == 0 && ++ctr[2] == 0) ++ctr[3];
  }
};

// A device's default generator state: seed plus how many counters earlier calls consumed.
class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull) : seed_(seed) {}
  void manual_seed(uint64_t seed) {
    std::lock_guard<std::mutex> g(mu_);
    seed_ = seed;
    offset_ = 0;
  }
  uint64_t seed() const { return seed_; }
  uint64_t offset() {
    std::lock_guard<std::mutex> g(mu_);
    return offset_;
  }
  // Generator.set_state: a (seed, offset) pair from get_state.
  void set_state(uint64_t seed, uint64_t offset) {
    std::lock_guard<std::mutex> g(mu_);
    seed_ = seed;
    offset_ = offset;
  }
  // Reserves `n` counter values; returns the first. Callers partition them across threads deterministically.
  uint64_t reserve(uint64_t n) {
    std::lock_guard<std::mutex> g(mu_);
    uint64_t o = offset_;
    offset_ += n;
    return o;
  }

 private:
  std::mutex mu_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The CPU generator, and one per CUDA device (PyTorch keeps the same split: torch.manual_seed seeds all of
// them, torch.cuda.manual_seed one device).
Generator& default_generator();
Generator& cuda_generator(int device);

// A user's minitorch.Generator for the random ops of one call (generator=...): set by the binding for the
// call's duration, read by the CPU and CUDA random fills in place of the default generators.
struct GeneratorOverride {
  Generator* gen = nullptr;
  int8_t device_type = -1;  // DeviceType of the Generator; checked against the tensor the op fills
};
inline thread_local GeneratorOverride tls_generator_override;
class ScopedGenerator {
 public:
  ScopedGenerator(Generator* g, int8_t device_type) : prev_(tls_generator_override) {
    if (g) tls_generator_override = {g, device_type};
  }
  ~ScopedGenerator() { tls_generator_override = prev_; }
  ScopedGenerator(const ScopedGenerator&) = delete;
  ScopedGenerator& operator=(const ScopedGenerator&) = delete;

 private:
  GeneratorOverride prev_;
};

}  // namespace mt
