// The CPU allocator and the allocator registry. The CUDA allocator registers itself from csrc/cuda/.
#include "core/Allocator.h"

#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
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
#include "core/FreshPages.h"

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
// Transparent huge pages let the TLB cover 2 MiB per entry: a steady loop over big blocks runs up to twice as
// fast. But a huge-page fault can be slow (~5 ms per 2 MiB on a VM whose free memory goes back to the host),
// and a program whose tensors outgrow the cache would pay it on every fresh block. So by default huge pages
// wait for a loop to settle: a block turns huge once the cache has handed it out again kHugeAfterReuses
// times (MADV_HUGEPAGE, then MADV_DONTNEED: a block handed out holds no values, and its pages fault back in
// as huge ones), and the big blocks that stayed live meanwhile are collapsed in place (MADV_COLLAPSE). Only
// where the kernel's THP mode is 'madvise': 'always' gives huge pages unasked, 'never' forbids them.
// THP_MEM_ALLOC_ENABLE is PyTorch's switch: 1 advises every block from kHugeThreshold on when it is mapped,
// as PyTorch's CPU allocator does; 0 turns huge pages off.
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugeThreshold = size_t(4) << 20;
// On that VM a block's turn to huge pages costs about what 50 to 100 passes over it gain, so only a block the
// cache has handed out this often, which usually has as many passes ahead, turns.
constexpr uint32_t kHugeAfterReuses = 64;
enum class HugePages { Off, OnReuse, OnMap };
#ifdef MADV_COLLAPSE
constexpr int kMadvCollapse = MADV_COLLAPSE;
#else
constexpr int kMadvCollapse = 25;  // Linux's value; older C libraries' headers lack it
#endif

HugePages thp_kernel_madvise_mode() {
  char buf[64] = {};
  FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return HugePages::Off;
  size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = 0;
  return std::strstr(buf, "[madvise]") ? HugePages::OnReuse : HugePages::Off;
}

HugePages huge_pages() {
  static const HugePages mode = [] {
    const char* v = std::getenv("THP_MEM_ALLOC_ENABLE");
    if (v && std::strcmp(v, "1") == 0) return HugePages::OnMap;
    if (v && std::strcmp(v, "0") == 0) return HugePages::Off;
    return thp_kernel_madvise_mode();
  }();
  return mode;
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
      std::unique_lock<std::mutex> g(mu_);
      auto it = cache_.lower_bound(size);
      if (it != cache_.end() && it->first - size <= (it->first >> kMaxWasteShift)) {
        Block b = *it->second;
        lru_.erase(it->second);
        cache_.erase(it);
        cached_bytes_ -= b.size;
        ++hits_;
        bool to_huge = !b.huge && b.reuses < kHugeAfterReuses && ++b.reuses == kHugeAfterReuses &&
                       huge_pages() == HugePages::OnReuse && b.size >= kHugeThreshold;
        if (to_huge) {
          b.huge = true;
          // A loop has settled: the blocks that stayed live through all those steps (since before this block
          // was mapped: the loop's inputs and weights) are read on every step too. Their values must stay:
          // collapsed in place, under the lock so that no other thread unmaps one meanwhile (once per block).
          for (auto& kv : live_) {
            Block& o = kv.second;
            if (!o.huge && o.size >= kHugeThreshold && o.size <= kCacheCap && o.born <= b.mapped) {
              o.huge = true;
              collapse(o.ptr, o.size);
            }
          }
        }
        b.born = hits_;
        // not fresh even when make_huge drops its pages below: that drop happens only where the kernel takes
        // the huge-page advice, and a block holding its old values must never skip a zero fill
        b.fresh = false;
        live_[b.ptr] = b;
        g.unlock();
        if (to_huge) make_huge(b.ptr, b.size);
        return b.ptr;
      }
    }
    void* p = map_block(size);
    if (!p) {
      release_cache();  // what the cache holds may be what this request lacks
      p = map_block(size);
      if (!p) out_of_memory(nbytes);
    }
    std::lock_guard<std::mutex> g(mu_);
    live_[p] =
        Block{size, p, hits_, hits_, 0, huge_pages() == HugePages::OnMap && size >= kHugeThreshold, true};
    return p;
  }

  bool take_fresh(const void* p) {
    if (reinterpret_cast<uintptr_t>(p) % kPage != 0) return false;
    std::lock_guard<std::mutex> g(mu_);
    auto it = live_.find(const_cast<void*>(p));
    if (it == live_.end() || !it->second.fresh) return false;
    it->second.fresh = false;
    return true;
  }

  void deallocate(void* ptr, Device) override {
    // Large blocks are page aligned; most small ones are not, and skip the lookup.
    if (reinterpret_cast<uintptr_t>(ptr) % kPage == 0) {
      std::unique_lock<std::mutex> g(mu_);
      auto it = live_.find(ptr);
      if (it != live_.end()) {
        Block b = it->second;
        size_t size = b.size;
        live_.erase(it);
        if (size > kCacheCap) {
          g.unlock();
          munmap(ptr, size);
          return;
        }
        std::vector<Block> evicted;
        while (cached_bytes_ + size > kCacheCap) {
          Block old = lru_.back();
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
        lru_.push_front(b);
        // first of its size: last in, first out
        cache_.emplace_hint(cache_.lower_bound(size), size, lru_.begin());
        cached_bytes_ += size;
        g.unlock();
        for (const Block& e : evicted) munmap(e.ptr, e.size);
        return;
      }
    }
    deallocate_small(ptr);
  }

  void release_cache() {
    std::list<Block> blocks;
    {
      std::lock_guard<std::mutex> g(mu_);
      blocks.swap(lru_);
      cache_.clear();
      cached_bytes_ = 0;
    }
    for (const Block& b : blocks) munmap(b.ptr, b.size);
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
    size_t unit = huge_pages() != HugePages::Off && n >= kHugeThreshold ? kHugePage : kPage;
    return (n + unit - 1) / unit * unit;
  }

  // Fresh zeroed pages from the kernel; blocks that may turn to huge pages start on a 2 MiB boundary (mmap
  // over-asks by 2 MiB and returns the slack on both sides), so that all of them can.
  static void* map_block(size_t size) {
    bool huge = huge_pages() != HugePages::Off && size >= kHugeThreshold;
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
    if (huge_pages() == HugePages::OnMap) madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
#endif
    return reinterpret_cast<void*>(aligned);
  }

  // A block the cache keeps handing out: drop its plain pages so that they fault back in as huge ones. The
  // advice first, so that no fault in between comes back as plain pages.
  static void make_huge(void* p, size_t size) {
#if defined(MADV_HUGEPAGE) && defined(MADV_DONTNEED)
    if (madvise(p, size, MADV_HUGEPAGE) == 0) madvise(p, size, MADV_DONTNEED);
#else
    (void)p;
    (void)size;
#endif
  }

  // A live block read on every step of a loop: its pages are copied into huge ones in place (Linux 6.1 and
  // later; before, khugepaged collapses the advised block in its own time).
  static void collapse(void* p, size_t size) {
#ifdef MADV_HUGEPAGE
    if (madvise(p, size, MADV_HUGEPAGE) == 0) madvise(p, size, kMadvCollapse);
#else
    (void)p;
    (void)size;
#endif
  }

  static CPUAllocator* g_self;
  std::mutex mu_;
  struct Block {
    size_t size;  // mapped
    void* ptr;
    uint64_t mapped;  // hits_ when it was mapped
    uint64_t born;    // hits_ when it was last handed out
    uint32_t reuses;  // times the cache handed it out again, counted up to kHugeAfterReuses
    bool huge;        // advised as huge pages
    bool fresh;       // untouched zero pages since it was handed out (cpu_take_fresh_zeroed)
  };
  std::unordered_map<void*, Block> live_;                    // large blocks in use
  std::list<Block> lru_;                                     // freed large blocks, most recently freed first
  std::multimap<size_t, std::list<Block>::iterator> cache_;  // the same blocks by size
  size_t cached_bytes_ = 0;
  uint64_t hits_ = 0;  // blocks the cache handed out again
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

bool cpu_take_fresh_zeroed(const void* p) {
  return p && g_allocators[static_cast<int>(DeviceType::CPU)] == &g_cpu_allocator &&
         g_cpu_allocator.take_fresh(p);
}

Allocator* get_allocator(DeviceType type) {
  Allocator* a = g_allocators[static_cast<int>(type)];
  MT_CHECK(a != nullptr, "no allocator registered for device type ", Device(type).str());
  return a;
}

void set_allocator(DeviceType type, Allocator* alloc) {
  g_allocators[static_cast<int>(type)] = alloc;
}

}  // namespace mt
