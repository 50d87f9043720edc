// The CPU allocator and the allocator registry. The CUDA allocator registers itself from csrc/cuda/.
#include "core/Allocator.h"

#include <pthread.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>

#include "core/Exception.h"

namespace mt {

namespace {
constexpr size_t kAlignment = 64;
constexpr size_t kPage = 4096;
// Blocks from this size on come from mmap and, once freed, wait in a cache for the next request of the same
// size: a loop that makes a fresh 8 MB output per step otherwise pays 2048 page faults (and the kernel's
// zeroing) on every call, about half of an elementwise op's time. PyTorch gets the same reuse from glibc,
// whose dynamic mmap threshold moves such sizes onto the heap after the first free.
constexpr size_t kLargeBlock = size_t(256) << 10;
// What the cache may hold in all; beyond it freed blocks go back to the OS at once (munmap).
constexpr size_t kCacheCap = size_t(256) << 20;
// A cached block serves a request at most this much smaller than itself (a quarter), so a small request
// never pins a big block.
constexpr size_t kMaxWasteShift = 2;
// Blocks from this size on are 2 MiB aligned and advised as transparent huge pages: with the cache their
// faults (and with THP defrag=madvise, the kernel's compaction) are paid once per block, and the TLB then
// covers 2 MiB per entry.
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugeThreshold = size_t(4) << 20;

[[noreturn]] void out_of_memory(size_t nbytes) {
  throw_error(ErrorKind::OutOfMemory,
              str("DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes, " bytes."));
}

class CPUAllocator final : public Allocator {
 public:
  CPUAllocator() {
    // A fork while another thread holds mu_ would leave the child's copy locked forever (DataLoader workers
    // fork): hold it across fork so the child's copy is consistent and unlocked.
    pthread_atfork([] { g_self->mu_.lock(); }, [] { g_self->mu_.unlock(); }, [] { g_self->mu_.unlock(); });
    g_self = this;
  }

  void* allocate(size_t nbytes, Device) override {
    size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded == 0) rounded = kAlignment;
    MT_CHECK(rounded >= nbytes, "Trying to create tensor with ", nbytes, " bytes: size overflows");
    if (rounded < kLargeBlock) {
      void* p = std::aligned_alloc(kAlignment, rounded);
      if (!p) out_of_memory(nbytes);
      return p;
    }
    size_t size = round_large(rounded);
    MT_CHECK(size >= rounded, "Trying to create tensor with ", nbytes, " bytes: size overflows");
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = cache_.lower_bound(size);
      if (it != cache_.end() && it->first - size <= (it->first >> kMaxWasteShift)) {
        void* p = it->second;
        size_t have = it->first;
        cache_.erase(it);
        cached_bytes_ -= have;
        live_[p] = have;
        return p;
      }
    }
    void* p = map_block(size);
    if (!p) {
      release_cache();  // what the cache holds may be what this request lacks
      p = map_block(size);
      if (!p) out_of_memory(nbytes);
    }
    std::lock_guard<std::mutex> g(mu_);
    live_[p] = size;
    return p;
  }

  void deallocate(void* ptr, Device) override {
    // Large blocks are page aligned; most small ones are not, and skip the lookup.
    if (reinterpret_cast<uintptr_t>(ptr) % kPage == 0) {
      std::unique_lock<std::mutex> g(mu_);
      auto it = live_.find(ptr);
      if (it != live_.end()) {
        size_t size = it->second;
        live_.erase(it);
        if (size <= kCacheCap && cached_bytes_ + size <= kCacheCap) {
          cache_.emplace_hint(cache_.lower_bound(size), size, ptr);  // first of its size: last in, first out
          cached_bytes_ += size;
          return;
        }
        g.unlock();
        munmap(ptr, size);
        return;
      }
    }
    std::free(ptr);
  }

  void release_cache() {
    std::multimap<size_t, void*> blocks;
    {
      std::lock_guard<std::mutex> g(mu_);
      blocks.swap(cache_);
      cached_bytes_ = 0;
    }
    for (auto& [size, p] : blocks) munmap(p, size);
  }

 private:
  static size_t round_large(size_t n) {
    size_t unit = n >= kHugeThreshold ? kHugePage : kPage;
    return (n + unit - 1) / unit * unit;
  }

  // Fresh zeroed pages from the kernel; huge-page sized blocks start on a 2 MiB boundary (mmap over-asks by
  // 2 MiB and returns the slack on both sides).
  static void* map_block(size_t size) {
    bool huge = size >= kHugeThreshold;
    size_t ask = huge ? size + kHugePage : size;
    if (ask < size) return nullptr;
    void* m = mmap(nullptr, ask, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return nullptr;
    if (!huge) return m;
    uintptr_t base = reinterpret_cast<uintptr_t>(m);
    uintptr_t aligned = (base + kHugePage - 1) & ~(uintptr_t(kHugePage) - 1);
    if (aligned > base) munmap(m, aligned - base);
    size_t tail = (base + ask) - (aligned + size);
    if (tail) munmap(reinterpret_cast<void*>(aligned + size), tail);
#ifdef MADV_HUGEPAGE
    madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
#endif
    return reinterpret_cast<void*>(aligned);
  }

  static CPUAllocator* g_self;
  std::mutex mu_;
  std::unordered_map<void*, size_t> live_;  // large blocks in use -> their mapped size
  std::multimap<size_t, void*> cache_;      // freed large blocks by size
  size_t cached_bytes_ = 0;
};

CPUAllocator* CPUAllocator::g_self = nullptr;
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
