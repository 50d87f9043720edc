// Per-thread library handles (cuBLAS, cuDNN) lent from a process-wide free list, as PyTorch's
// DeviceThreadHandlePool: a handle must not be used by two threads at once, and ops run with the GIL
// released.
#pragma once
#include <mutex>
#include <vector>

#include "cuda/CUDAContext.h"

namespace mt {
namespace cuda {

// Handle: the library's handle type; Create: makes one for the current device. A thread's handles go back to
// the free list when it exits (DataParallel starts threads every step: they reuse handles instead of creating
// new ones); they are never destroyed, since destroying during interpreter teardown can touch a driver that
// is already gone.
template <typename Handle, void (*Create)(Handle*)>
class HandlePool {
 public:
  static Handle get(int device) {
    thread_local Lent lent;
    Handle& h = lent.h[device];
    if (!h) {
      Shared& s = shared();
      {
        std::lock_guard<std::mutex> g(s.mu);
        if (!s.free[device].empty()) {
          h = s.free[device].back();
          s.free[device].pop_back();
        }
      }
      if (!h) {
        DeviceGuard guard(device);
        Create(&h);
      }
    }
    return h;
  }

 private:
  struct Shared {
    std::mutex mu;
    std::vector<Handle> free[kMaxDevices];
  };
  static Shared& shared() {
    static Shared* s = new Shared();  // leaked: threads may exit after static destructors ran
    return *s;
  }
  struct Lent {
    Handle h[kMaxDevices] = {};
    ~Lent() {
      Shared& s = shared();
      std::lock_guard<std::mutex> g(s.mu);
      for (int d = 0; d < kMaxDevices; ++d)
        if (h[d]) s.free[d].push_back(h[d]);
    }
  };
};

}  // namespace cuda
}  // namespace mt
