// The CPU allocator and the allocator registry. The CUDA allocator registers itself from csrc/cuda/.
#include "core/Allocator.h"

#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <list>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

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
// What the cache may hold in all. A freed block that does not fit evicts the blocks freed longest ago
// (munmap): keeping the old ones instead would fill the cache with sizes a training loop no longer asks for,
// and every later step's activations would come from fresh pages.
constexpr size_t kCacheCap = size_t(256) << 20;
// A cached block serves a request at most this much smaller than itself (a quarter), so a small request
// never pins a big block.
constexpr size_t kMaxWasteShift = 2;
// With THP_MEM_ALLOC_ENABLE=1 (PyTorch's switch, off by default as there), blocks from this size on are 2 MiB
// aligned and advised as transparent huge pages, so the TLB covers 2 MiB per entry. Off by default: on the
// 2-vCPU VM a huge-page fault cost ~5 ms (the host backing 2 MiB at once), and per_sample_grads.py, whose
// 300 MB tensors outgrow the cache, spent 9.7 s in the kernel against PyTorch's 1.7 s (1,461 huge-page
// faults).
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugeThreshold = size_t(4) << 20;
bool huge_pages_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("THP_MEM_ALLOC_ENABLE");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

// Smaller blocks come from glibc (aligned_alloc), and, once freed, wait in a per-thread cache for the next
// request of their size class: a 64-byte aligned allocation skips glibc's per-thread cache (tcache) and took
// about 1,500 of the 5,000 instructions of a 100-element add (memalign + free). Classes are 64-byte steps up
// to 1 KiB, then four per power of two (a block serves requests up to a quarter smaller); a thread keeps at
// most kSmallCacheCap bytes, returns the rest to glibc, and hands everything back when it exits. Per thread,
// so the hot path takes no lock and a fork copies only the forking thread's own consistent lists. Off under
// AddressSanitizer, which must see each free to catch a use after it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSmallCache = false;
#else
constexpr bool kSmallCache = true;
#endif
constexpr size_t kSmallCacheCap = size_t(4) << 20;
constexpr int kFineClasses = 16;                     // 64, 128, ..., 1024
constexpr int kSmallClasses = kFineClasses + 4 * 8;  // then 4 per octave up to 256 KiB = kLargeBlock

constexpr size_t class_size(int c) {
  if (c < kFineClasses) return size_t(c + 1) * 64;
  int octave = 10 + (c - kFineClasses) / 4, quarter = (c - kFineClasses) % 4 + 1;
  return (size_t(1) << octave) + quarter * (size_t(1) << (octave - 2));
}
static_assert(class_size(kSmallClasses - 1) == kLargeBlock,
              "the last small class ends where large blocks begin");

// The smallest class that holds n (64 <= n <= kLargeBlock, n a multiple of 64).
inline int class_up(size_t n) {
  if (n <= 1024) return static_cast<int>(n / 64) - 1;
  int octave = 63 - __builtin_clzll(n - 1);  // 2^octave < n <= 2^(octave + 1)
  size_t quarter = size_t(1) << (octave - 2);
  int q = static_cast<int>((n - (size_t(1) << octave) + quarter - 1) / quarter);  // 1..4
  return kFineClasses + (octave - 10) * 4 + q - 1;
}

// The largest class a block of `usable` bytes can serve (-1: none).
inline int class_down(size_t usable) {
  if (usable < 64) return -1;
  if (usable >= kLargeBlock) return kSmallClasses - 1;
  int c = class_up(usable / 64 * 64);
  return class_size(c) <= usable ? c : c - 1;
}

// Trivially destructible and zero-initialized, so the hot path is one TLS address lookup and no guard; a
// second thread_local, touched once per thread, flushes it at the thread's exit. After that flush (tensors
// freed by later thread_local or static destructors) blocks go straight to glibc.
struct SmallCache {
  void* head[kSmallClasses];  // freed blocks, each holding the next one's address in its first bytes
  size_t bytes;
  int state;  // 0: not yet used by this thread, 1: in use, 2: flushed at thread exit
};
thread_local SmallCache t_small;

void release_small(SmallCache& sc) {
  for (void*& h : sc.head)
    while (void* p = h) {
      h = *static_cast<void**>(p);
      std::free(p);
    }
  sc.bytes = 0;
}

struct SmallCacheFlush {
  bool armed = false;
  ~SmallCacheFlush() {
    release_small(t_small);
    t_small.state = 2;
  }
};
thread_local SmallCacheFlush t_small_flush;

// This thread's cache, or null once its exit flushed it.
inline SmallCache* small_cache() {
  SmallCache* sc = &t_small;
  if (sc->state == 1) return sc;
  if (sc->state == 2) return nullptr;
  t_small_flush.armed = true;  // constructs it, which registers its destructor for this thread's exit
  sc->state = 1;
  return sc;
}

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
    if (rounded < kLargeBlock) return allocate_small(rounded, nbytes);
    size_t size = round_large(rounded);
    MT_CHECK(size >= rounded, "Trying to create tensor with ", nbytes, " bytes: size overflows");
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = cache_.lower_bound(size);
      if (it != cache_.end() && it->first - size <= (it->first >> kMaxWasteShift)) {
        void* p = it->second->ptr;
        size_t have = it->first;
        lru_.erase(it->second);
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
        if (size > kCacheCap) {
          g.unlock();
          munmap(ptr, size);
          return;
        }
        std::vector<CachedBlock> evicted;
        while (cached_bytes_ + size > kCacheCap) {
          CachedBlock old = lru_.back();
          auto [lo, hi] = cache_.equal_range(old.size);
          for (auto e = lo; e != hi; ++e) {
            if (e->second == std::prev(lru_.end())) {
              cache_.erase(e);
              break;
            }
          }
          lru_.pop_back();
          cached_bytes_ -= old.size;
          evicted.push_back(old);
        }
        lru_.push_front({size, ptr});
        // first of its size: last in, first out
        cache_.emplace_hint(cache_.lower_bound(size), size, lru_.begin());
        cached_bytes_ += size;
        g.unlock();
        for (const CachedBlock& b : evicted) munmap(b.ptr, b.size);
        return;
      }
    }
    deallocate_small(ptr);
  }

  void release_cache() {
    std::list<CachedBlock> blocks;
    {
      std::lock_guard<std::mutex> g(mu_);
      blocks.swap(lru_);
      cache_.clear();
      cached_bytes_ = 0;
    }
    for (const CachedBlock& b : blocks) munmap(b.ptr, b.size);
  }

 private:
  void* allocate_small(size_t rounded, size_t nbytes) {
    SmallCache* sc = kSmallCache ? small_cache() : nullptr;
    if (sc) {
      int c = class_up(rounded);
      if (void* p = sc->head[c]) {
        sc->head[c] = *static_cast<void**>(p);
        sc->bytes -= class_size(c);
        return p;
      }
      rounded = class_size(c);  // whole classes, so that the block can serve its class when it comes back
    }
    void* p = std::aligned_alloc(kAlignment, rounded);
    if (!p) {
      if (sc) release_small(*sc);
      release_cache();
      p = std::aligned_alloc(kAlignment, rounded);
      if (!p) out_of_memory(nbytes);
    }
    return p;
  }

  static void deallocate_small(void* ptr) {
    if (SmallCache* sc = kSmallCache ? small_cache() : nullptr) {
      int c = class_down(malloc_usable_size(ptr));
      if (c >= 0 && sc->bytes + class_size(c) <= kSmallCacheCap) {
        *static_cast<void**>(ptr) = sc->head[c];
        sc->head[c] = ptr;
        sc->bytes += class_size(c);
        return;
      }
    }
    std::free(ptr);
  }

  static size_t round_large(size_t n) {
    size_t unit = huge_pages_enabled() && n >= kHugeThreshold ? kHugePage : kPage;
    return (n + unit - 1) / unit * unit;
  }

  // Fresh zeroed pages from the kernel; huge-page sized blocks start on a 2 MiB boundary (mmap over-asks by
  // 2 MiB and returns the slack on both sides).
  static void* map_block(size_t size) {
    bool huge = huge_pages_enabled() && size >= kHugeThreshold;
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
  struct CachedBlock {
    size_t size;
    void* ptr;
  };
  std::unordered_map<void*, size_t> live_;  // large blocks in use -> their mapped size
  std::list<CachedBlock> lru_;              // freed large blocks, most recently freed first
  std::multimap<size_t, std::list<CachedBlock>::iterator> cache_;  // the same blocks by size
  size_t cached_bytes_ = 0;
};

CPUAllocator* CPUAllocator::g_self = nullptr;
CPUAllocator g_cpu_allocator;

// Meta tensors own no memory: their storage's data stays null (Tensor::data_ptr refuses to hand it out).
class MetaAllocator final : public Allocator {
 public:
  void* allocate(size_t, Device) override { return nullptr; }
  void deallocate(void*, Device) override {}
};
MetaAllocator g_meta_allocator;

Allocator* g_allocators[kNumDeviceTypes] = {&g_cpu_allocator, nullptr, &g_meta_allocator};
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
