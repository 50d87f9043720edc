// When an in-place write bumps the version counter: once per in-place op of the user's, never for an op's own
// result.
#pragma once
#include <atomic>

#include "core/Tensor.h"

namespace mt {

// PyTorch bumps a tensor's version once per in-place op called on it (an empty tensor's too, nothing
// written), in its ADInplaceOrView layer; the kernels below that layer write the results they are building
// (masked_fill's clone, the zeros F.pad fills) without bumping, so every fresh result starts at version 0.
// Ours bump in the in-place kernel itself (wrote(), below); an op that builds its result by in-place writes
// opens a FreshWrites scope around them, and the writes inside bump nothing. Only writes into a tensor the op
// made itself belong in the scope: a write it hides from the counter is one autograd's saved-tensor check
// cannot see.
inline thread_local int tls_fresh_writes = 0;
// How many scopes are open in all threads: while none is (nearly always), wrote() reads this global alone,
// not the thread-local (a __tls_get_addr call in a shared library: 3-9 % of x.fill_(1) on 16 floats). A
// thread in no scope that sees another thread's count reads its own depth (0) and bumps, as it should.
inline std::atomic<int> g_fresh_scopes{0};

struct FreshWrites {
  FreshWrites() {
    ++tls_fresh_writes;
    g_fresh_scopes.fetch_add(1, std::memory_order_relaxed);
  }
  ~FreshWrites() {
    g_fresh_scopes.fetch_sub(1, std::memory_order_relaxed);
    --tls_fresh_writes;
  }
  FreshWrites(const FreshWrites&) = delete;
  FreshWrites& operator=(const FreshWrites&) = delete;
};

// What an in-place kernel calls once it wrote `t` (or found it empty): one bump outside a FreshWrites scope.
inline void wrote(const Tensor& t) {
  if (g_fresh_scopes.load(std::memory_order_relaxed) == 0 || tls_fresh_writes == 0) t.bump_version();
}

}  // namespace mt
