// The CPU allocator and the allocator registry. The CUDA allocator registers itself from csrc/cuda/.
#include "core/Allocator.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

#include "core/Exception.h"

namespace mt {

namespace {
constexpr size_t kAlignment = 64;
// Large buffers are 2 MiB aligned and advised as transparent huge pages (as NumPy does): a fresh 64 MiB
// output then costs 32 page faults instead of 16384, which otherwise dominate large elementwise ops.
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugeThreshold = size_t(4) << 20;

class CPUAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device) override {
    size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded == 0) rounded = kAlignment;
    MT_CHECK(rounded >= nbytes, "Trying to create tensor with ", nbytes, " bytes: size overflows");
    bool huge = rounded >= kHugeThreshold;
    if (huge) rounded = (rounded + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(huge ? kHugePage : kAlignment, rounded);
#ifdef MADV_HUGEPAGE
    if (p && huge) madvise(p, rounded, MADV_HUGEPAGE);
#endif
    if (!p)
      throw_error(ErrorKind::OutOfMemory, str("DefaultCPUAllocator: not enough memory: you tried to "
                                              "allocate ",
                                              nbytes, " bytes."));
    return p;
  }
  void deallocate(void* ptr, Device) override {
    std::free(ptr);
  }
};

CPUAllocator g_cpu_allocator;
Allocator* g_allocators[kNumDeviceTypes] = {&g_cpu_allocator, nullptr};
}  // namespace

Allocator* get_allocator(DeviceType type) {
  Allocator* a = g_allocators[static_cast<int>(type)];
  MT_CHECK(a != nullptr, "no allocator registered for device type ", Device(type).str());
  return a;
}

void set_allocator(DeviceType type, Allocator* alloc) {
  g_allocators[static_cast<int>(type)] = alloc;
}

}  // namespace mt
