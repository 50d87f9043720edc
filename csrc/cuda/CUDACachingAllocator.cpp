// CUDA caching allocator and pinned host-memory cache.
//
// Policy (PyTorch's, simplified; see docs/architecture.md):
// - cudaMalloc and cudaFree are slow and cudaFree synchronizes the device, so freed blocks are kept and
//   reused. A block belongs to the stream that was current when it was allocated; it is reused only by
//   allocations on that stream, so reuse is ordered after the previous user's kernels without any sync.
//   A tensor used on another stream must be announced with record_stream: its block then waits for an event
//   on that stream before going back to the pool.
// - Sizes round up to 512 bytes. Requests up to 1 MiB come from 2 MiB segments (the small pool); larger
//   ones from 20 MiB segments below 10 MiB, else from a segment of the request rounded to 2 MiB (large pool).
// - Best fit: the smallest cached block of the same stream that is large enough; the rest is split off
//   (small pool: when >= 512 bytes remain; large pool: when more than 1 MiB remains) and freed neighbours
//   inside one segment merge again.
// - When cudaMalloc fails: free one cached unsplit block large enough and retry; then free every cached
//   unsplit block and retry; only then raise OutOfMemoryError ("CUDA out of memory. Tried to allocate ...").
//   The process keeps working afterwards.
// - MINITORCH_NO_CUDA_MEMORY_CACHING=1: every allocation is a cudaMalloc and every free a cudaFree, so
//   compute-sanitizer sees each buffer's true bounds.
// - CUDA graphs (PyTorch's private pools): while a capture is underway, allocations on the capturing stream
//   come from the graph's private pool, whose blocks are never handed to non-graph code: a replay writes the
//   addresses the capture saw, so they stay the graph's until every graph sharing the pool is reset. Frees of
//   private blocks return them to that pool (later captures into it reuse them); frees of ordinary blocks
//   during a capture wait until no capture is underway (as do event records and queries, which are illegal
//   on a capturing stream). New segments are cudaMalloc'd in relaxed capture mode, and nothing is cudaFree'd
//   while a capture is underway. A released pool gives its segments back once all their blocks are free.
//   With no capture underway the only extra work is one test of an empty vector per malloc and free.
#ifdef MINITORCH_WITH_CUDA
#include "cuda/CUDACachingAllocator.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/Exception.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"

namespace mt {
namespace cuda {

namespace {

constexpr size_t kMinBlockSize = 512;
constexpr size_t kSmallSize = 1 << 20;     // largest request served by the small pool
constexpr size_t kSmallBuffer = 2 << 20;   // small-pool segment
constexpr size_t kLargeBuffer = 20 << 20;  // large-pool segment for requests below kMinLargeAlloc
constexpr size_t kMinLargeAlloc = 10 << 20;
constexpr size_t kRoundLarge = 2 << 20;

size_t round_up(size_t n, size_t m) {
  return (n + m - 1) / m * m;
}

std::atomic<int> g_captures{0};

struct PrivatePool;

struct Block {
  cudaStream_t stream;
  size_t size;
  void* ptr;
  bool small;
  bool allocated = false;
  int pending_events = 0;        // also counts a free deferred until no capture is underway
  PrivatePool* owner = nullptr;  // the CUDA graph pool the segment belongs to; nullptr: the general pools
  Block* prev = nullptr;         // neighbours inside one cudaMalloc'd segment
  Block* next = nullptr;
  std::unordered_set<cudaStream_t> stream_uses;
  Block(cudaStream_t s, size_t sz, void* p, bool sm) : stream(s), size(sz), ptr(p), small(sm) {}
  bool is_segment() const { return prev == nullptr && next == nullptr; }
};

struct BlockLess {
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream)
      return reinterpret_cast<uintptr_t>(a->stream) < reinterpret_cast<uintptr_t>(b->stream);
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};
using Pool = std::set<Block*, BlockLess>;

// A CUDA graph's memory: its own small and large pools, kept until no graph uses it and its blocks are free.
struct PrivatePool {
  Pool small, large;
  int use_count = 1;  // graphs (and captures underway) using it
  int64_t segments = 0;
};

struct Capture {
  MempoolId id;
  cudaStream_t stream;
  unsigned long long capture_id;
  PrivatePool* pool;
};

struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
  void add(int64_t n) {
    current += n;
    allocated += n;
    peak = std::max(peak, current);
  }
  void sub(int64_t n) {
    current -= n;
    freed += n;
  }
};

bool caching_disabled() {
  static const bool off = [] {
    const char* v = std::getenv("MINITORCH_NO_CUDA_MEMORY_CACHING");
    return v && *v && std::string(v) != "0";
  }();
  return off;
}

class DeviceCache {
 public:
  explicit DeviceCache(int device) : device_(device) {}

  void* malloc(size_t request, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    if (caching_disabled()) return malloc_uncached(request);
    PrivatePool* priv = nullptr;
    if (captures_.empty()) {
      process_events();
      if (!freeable_.empty()) free_released_pools();
    } else {
      priv = capture_pool_for(stream);
    }
    size_t size = request < kMinBlockSize ? kMinBlockSize : round_up(request, kMinBlockSize);
    bool small = size <= kSmallSize;
    Pool& pool = priv ? (small ? priv->small : priv->large) : (small ? small_ : large_);
    Block* b = best_fit(pool, stream, size);
    if (b) {
      pool.erase(b);
    } else {
      size_t seg = small ? kSmallBuffer : size < kMinLargeAlloc ? kLargeBuffer : round_up(size, kRoundLarge);
      void* p = cuda_malloc_with_retry(seg, request);
      b = new Block(stream, seg, p, small);
      b->owner = priv;
      if (priv) ++priv->segments;
      reserved_.add(static_cast<int64_t>(seg));
      segments_.add(1);
    }
    size_t rest = b->size - size;
    if (small ? rest >= kMinBlockSize : rest > kSmallSize) {
      Block* r = new Block(stream, rest, static_cast<char*>(b->ptr) + size, b->small);
      r->owner = b->owner;
      r->prev = b;
      r->next = b->next;
      if (b->next) b->next->prev = r;
      b->next = r;
      b->size = size;
      pool.insert(r);
    }
    b->allocated = true;
    active_[b->ptr] = b;
    allocated_.add(static_cast<int64_t>(b->size));
    requested_.add(static_cast<int64_t>(request));
    requested_of_[b->ptr] = request;
    allocations_.add(1);
    return b->ptr;
  }

  void free(void* ptr) {
    std::lock_guard<std::mutex> lock(mu_);
    if (caching_disabled()) return free_uncached(ptr);
    auto it = active_.find(ptr);
    if (it == active_.end()) return;  // not ours: never throw on a free path
    Block* b = it->second;
    active_.erase(it);
    b->allocated = false;
    allocated_.sub(static_cast<int64_t>(b->size));
    requested_.sub(static_cast<int64_t>(requested_of_[ptr]));
    requested_of_.erase(ptr);
    allocations_.sub(1);
    if (!captures_.empty() && (!b->owner || !b->stream_uses.empty())) {
      // an ordinary block goes back to the general pools only after the capture (a private block may be
      // reused by the capture itself); an event for another stream's use cannot be recorded or queried
      // meanwhile
      ++b->pending_events;
      deferred_.push_back(b);
      return;
    }
    free_block(b);
  }

  // A block no tensor uses any more: back to its pool, after events on the other streams that used it.
  void free_block(Block* b) {
    if (!b->stream_uses.empty()) {
      // Other streams may still read it: reuse waits for an event on each.
      DeviceGuard g(device_);
      for (cudaStream_t s : b->stream_uses) {
        cudaEvent_t ev;
        if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess ||
            cudaEventRecord(ev, s) != cudaSuccess) {
          cudaGetLastError();
          cudaStreamSynchronize(s);  // cannot record: wait instead, then the block is free to reuse
          continue;
        }
        pending_.emplace_back(ev, b);
        ++b->pending_events;
      }
      b->stream_uses.clear();
      if (b->pending_events > 0) return;
    }
    release_to_pool(b);
  }

  void record_stream(void* ptr, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = active_.find(ptr);
    if (it == active_.end()) return;
    if (it->second->stream != stream) it->second->stream_uses.insert(stream);
  }

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!captures_.empty()) return;  // cudaFree and event waits are illegal during a capture
    synchronize_events();
    release_cached(0, /*all=*/true);
    free_released_pools();
  }

  void begin_allocate_to_pool(MempoolId id, cudaStream_t stream, unsigned long long capture_id) {
    std::lock_guard<std::mutex> lock(mu_);
    PrivatePool*& p = pools_[id];
    if (p)
      ++p->use_count;
    else
      p = new PrivatePool();
    captures_.push_back(Capture{id, stream, capture_id, p});
    g_captures.fetch_add(1);
  }

  void end_allocate_to_pool(MempoolId id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find_if(captures_.begin(), captures_.end(), [&](const Capture& c) { return c.id == id; });
    if (it == captures_.end()) return;
    captures_.erase(it);
    g_captures.fetch_sub(1);
    if (!captures_.empty()) return;
    std::vector<Block*> deferred;
    deferred.swap(deferred_);
    for (Block* b : deferred) {
      --b->pending_events;
      if (!b->stream_uses.empty() || b->pending_events == 0) free_block(b);
    }
  }

  void release_pool(MempoolId id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(id);
    if (it == pools_.end()) return;
    if (--it->second->use_count > 0) return;
    freeable_.push_back(it->second);
    pools_.erase(it);
    if (captures_.empty()) free_released_pools();
  }

  std::map<std::string, int64_t> stats() {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<std::string, int64_t> m;
    auto put = [&](const std::string& name, const Stat& s) {
      m[name + ".all.current"] = s.current;
      m[name + ".all.peak"] = s.peak;
      m[name + ".all.allocated"] = s.allocated;
      m[name + ".all.freed"] = s.freed;
    };
    put("allocated_bytes", allocated_);
    put("active_bytes", allocated_);
    put("reserved_bytes", reserved_);
    put("requested_bytes", requested_);
    put("allocation", allocations_);
    put("active", allocations_);
    put("segment", segments_);
    m["num_alloc_retries"] = num_alloc_retries_;
    m["num_ooms"] = num_ooms_;
    return m;
  }

  void reset_peak() {
    std::lock_guard<std::mutex> lock(mu_);
    for (Stat* s : {&allocated_, &reserved_, &requested_, &allocations_, &segments_}) s->peak = s->current;
  }

 private:
  // The private pool an allocation on `stream` comes from while captures are underway (nullptr: none).
  PrivatePool* capture_pool_for(cudaStream_t stream) {
    for (const Capture& c : captures_)
      if (c.stream == stream) return c.pool;
    if (!stream) return nullptr;  // the legacy stream never captures
    // a stream joined to a capture by an event wait captures under the same id
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    if (cudaStreamGetCaptureInfo(stream, &status, &id) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    if (status != cudaStreamCaptureStatusActive) return nullptr;
    for (const Capture& c : captures_)
      if (c.capture_id == id) return c.pool;
    return nullptr;
  }

  // Gives back the segments of pools no graph uses any more whose blocks are all free.
  void free_released_pools() {
    for (auto it = freeable_.begin(); it != freeable_.end();) {
      PrivatePool* p = *it;
      for (Pool* pool : {&p->large, &p->small})
        for (auto bit = pool->begin(); bit != pool->end();) {
          Block* b = *bit++;
          if (b->is_segment()) {
            free_segment(*pool, b);
            --p->segments;
          }
        }
      if (p->segments == 0) {
        delete p;
        it = freeable_.erase(it);
      } else {
        ++it;
      }
    }
  }

  Block* best_fit(Pool& pool, cudaStream_t stream, size_t size) {
    Block key(stream, size, nullptr, false);
    auto it = pool.lower_bound(&key);
    if (it == pool.end() || (*it)->stream != stream) return nullptr;
    return *it;
  }

  bool try_cuda_malloc(void** p, size_t n) {
    DeviceGuard g(device_);
    // cudaMalloc is "potentially unsafe" in global capture mode (on any thread): allowed in relaxed mode
    cudaError_t err;
    {
      RelaxedCaptureGuard relax(g_captures.load(std::memory_order_relaxed) > 0);
      err = cudaMalloc(p, n);
    }
    if (err == cudaSuccess) return true;
    cudaGetLastError();  // clear the sticky allocation error
    if (err != cudaErrorMemoryAllocation) MT_CUDA_CHECK(err);
    return false;
  }

  void* cuda_malloc_with_retry(size_t seg, size_t request) {
    void* p = nullptr;
    if (try_cuda_malloc(&p, seg)) return p;
    ++num_alloc_retries_;
    if (!captures_.empty()) {  // freeing cached segments (cudaFree) would invalidate the capture
      ++num_ooms_;
      throw_oom(request);
    }
    if (release_cached(seg, /*all=*/false) && try_cuda_malloc(&p, seg)) return p;
    synchronize_events();
    free_released_pools();
    if (release_cached(0, /*all=*/true) && try_cuda_malloc(&p, seg)) return p;
    ++num_ooms_;
    throw_oom(request);
  }

  [[noreturn]] void throw_oom(size_t request) {
    size_t free_b = 0, total_b = 0;
    {
      DeviceGuard g(device_);
      if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
    }
    throw_error(ErrorKind::OutOfMemory,
                str("CUDA out of memory. Tried to allocate ", format_bytes(request), ". GPU ", device_,
                    " has a total capacity of ", format_bytes(total_b), " of which ", format_bytes(free_b),
                    " is free. Of the allocated memory ", format_bytes(allocated_.current),
                    " is allocated by minitorch, and ", format_bytes(reserved_.current - allocated_.current),
                    " is reserved by minitorch but unallocated. Free tensors you no longer need (del x) or "
                    "call minitorch.cuda.empty_cache() if reserved but unallocated memory is large."));
  }

  // Frees whole cached segments: all of them, or the smallest one of at least `need` bytes.
  bool release_cached(size_t need, bool all) {
    bool freed = false;
    for (Pool* pool : {&large_, &small_}) {
      if (!all) {
        Block* best = nullptr;
        for (Block* b : *pool)
          if (b->is_segment() && b->size >= need && (!best || b->size < best->size)) best = b;
        if (best) {
          free_segment(*pool, best);
          return true;
        }
        continue;
      }
      for (auto it = pool->begin(); it != pool->end();) {
        Block* b = *it++;
        if (b->is_segment()) {
          free_segment(*pool, b);
          freed = true;
        }
      }
    }
    return freed;
  }

  void free_segment(Pool& pool, Block* b) {
    pool.erase(b);
    {
      DeviceGuard g(device_);
      cudaFree(b->ptr);
      cudaGetLastError();
    }
    reserved_.sub(static_cast<int64_t>(b->size));
    segments_.sub(1);
    delete b;
  }

  Pool& pool_of(const Block* b) {
    if (b->owner) return b->small ? b->owner->small : b->owner->large;
    return b->small ? small_ : large_;
  }

  void release_to_pool(Block* b) {
    Pool& pool = pool_of(b);
    auto mergeable = [](Block* n) { return n && !n->allocated && n->pending_events == 0; };
    // a takes in the block after it, which is out of the pool by then (pools are ordered by size)
    auto absorb_next = [](Block* a) {
      Block* n = a->next;
      a->size += n->size;
      a->next = n->next;
      if (n->next) n->next->prev = a;
      delete n;
    };
    if (mergeable(b->prev)) {
      Block* p = b->prev;
      pool.erase(p);
      absorb_next(p);
      b = p;
    }
    if (mergeable(b->next)) {
      pool.erase(b->next);
      absorb_next(b);
    }
    pool.insert(b);
  }

  void process_events() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      cudaError_t q = cudaEventQuery(it->first);
      if (q == cudaErrorNotReady) {
        cudaGetLastError();
        ++it;
        continue;
      }
      cudaEventDestroy(it->first);
      Block* b = it->second;
      it = pending_.erase(it);
      if (--b->pending_events == 0) release_to_pool(b);
    }
  }

  void synchronize_events() {
    for (auto& [ev, b] : pending_) {
      cudaEventSynchronize(ev);
      cudaEventDestroy(ev);
      if (--b->pending_events == 0) release_to_pool(b);
    }
    pending_.clear();
  }

  void* malloc_uncached(size_t request) {
    void* p = nullptr;
    size_t n = round_up(std::max<size_t>(request, 1), 8);  // sub-word atomics touch the aligned word
    if (!try_cuda_malloc(&p, n)) {
      ++num_ooms_;
      throw_oom(request);
    }
    uncached_sizes_[p] = n;
    allocated_.add(static_cast<int64_t>(n));
    reserved_.add(static_cast<int64_t>(n));
    requested_.add(static_cast<int64_t>(request));
    allocations_.add(1);
    segments_.add(1);
    return p;
  }

  void free_uncached(void* ptr) {
    auto it = uncached_sizes_.find(ptr);
    if (it == uncached_sizes_.end()) return;
    int64_t n = static_cast<int64_t>(it->second);
    uncached_sizes_.erase(it);
    {
      DeviceGuard g(device_);
      cudaFree(ptr);  // synchronizes: kernels still using it finish first
      cudaGetLastError();
    }
    allocated_.sub(n);
    reserved_.sub(n);
    requested_.sub(n);
    allocations_.sub(1);
    segments_.sub(1);
  }

  int device_;
  std::mutex mu_;
  Pool small_, large_;
  std::unordered_map<void*, Block*> active_;
  std::unordered_map<void*, size_t> requested_of_;
  std::unordered_map<void*, size_t> uncached_sizes_;
  std::deque<std::pair<cudaEvent_t, Block*>> pending_;
  std::map<MempoolId, PrivatePool*> pools_;  // graph pools in use
  std::vector<PrivatePool*> freeable_;       // released pools whose segments are not all free yet
  std::vector<Capture> captures_;            // captures underway on this device
  std::vector<Block*> deferred_;             // freed during a capture, released after it
  Stat allocated_, reserved_, requested_, allocations_, segments_;
  int64_t num_alloc_retries_ = 0, num_ooms_ = 0;
};

// Leaked on purpose: tensors may be freed during interpreter shutdown, after static destructors ran.
DeviceCache& cache_for(int device) {
  static DeviceCache* caches[kMaxDevices] = {};
  static std::mutex mu;
  MT_CHECK(device >= 0 && device < kMaxDevices, "CUDA error: invalid device ordinal");
  std::lock_guard<std::mutex> g(mu);
  if (!caches[device]) caches[device] = new DeviceCache(device);
  return *caches[device];
}

class CachingAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device device) override {
    if (nbytes == 0) return nullptr;
    int idx = device.index < 0 ? current_device() : device.index;
    return cache_for(idx).malloc(nbytes, current_stream(idx));
  }
  void deallocate(void* ptr, Device device) override {
    if (ptr) cache_for(device.index < 0 ? 0 : device.index).free(ptr);
  }
};

// ---- pinned host memory
class PinnedCache final : public Allocator {
 public:
  void* allocate(size_t nbytes, Device) override {
    std::lock_guard<std::mutex> lock(mu_);
    process_events();
    size_t size = 4096;
    while (size < nbytes) size <<= 1;
    auto& bucket = free_[size];
    if (!bucket.empty()) {
      void* p = bucket.back();
      bucket.pop_back();
      blocks_[p].allocated = true;
      return p;
    }
    void* p = nullptr;
    cudaError_t err = cudaHostAlloc(&p, size, cudaHostAllocDefault);
    if (err != cudaSuccess) {
      cudaGetLastError();
      for (auto& [sz, ptrs] : free_)  // give cached pinned memory back and try once more
        for (void* q : ptrs) {
          cudaFreeHost(q);
          blocks_.erase(q);
        }
      free_.clear();
      err = cudaHostAlloc(&p, size, cudaHostAllocDefault);
      if (err != cudaSuccess) {
        cudaGetLastError();
        throw_error(ErrorKind::OutOfMemory,
                    str("CUDA out of memory. Tried to allocate ", format_bytes(nbytes),
                        " of pinned host memory (", cudaGetErrorString(err), ")"));
      }
    }
    blocks_[p] = HostBlock{size, true, 0};
    return p;
  }

  void deallocate(void* ptr, Device) override {
    if (!ptr) return;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = blocks_.find(ptr);
    if (it == blocks_.end()) return;
    it->second.allocated = false;
    if (it->second.pending == 0) free_[it->second.size].push_back(ptr);
  }

  bool owns(const void* ptr) {
    std::lock_guard<std::mutex> lock(mu_);
    if (blocks_.empty()) return false;
    auto it = blocks_.upper_bound(const_cast<void*>(ptr));
    if (it == blocks_.begin()) return false;
    --it;
    return static_cast<const char*>(ptr) < static_cast<char*>(it->first) + it->second.size;
  }

  void record(void* ptr, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = blocks_.upper_bound(ptr);
    if (it == blocks_.begin()) return;
    --it;
    if (static_cast<char*>(ptr) >= static_cast<char*>(it->first) + it->second.size) return;
    cudaEvent_t ev;
    if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess) {
      cudaGetLastError();
      cudaStreamSynchronize(stream);
      return;
    }
    cudaEventRecord(ev, stream);
    ++it->second.pending;
    pending_.emplace_back(ev, it->first);
  }

 private:
  struct HostBlock {
    size_t size;
    bool allocated;
    int pending;
  };
  void process_events() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (cudaEventQuery(it->first) == cudaErrorNotReady) {
        cudaGetLastError();
        ++it;
        continue;
      }
      cudaEventDestroy(it->first);
      HostBlock& b = blocks_[it->second];
      if (--b.pending == 0 && !b.allocated) free_[b.size].push_back(it->second);
      it = pending_.erase(it);
    }
  }

  std::mutex mu_;
  std::map<void*, HostBlock> blocks_;
  std::map<size_t, std::vector<void*>> free_;
  std::deque<std::pair<cudaEvent_t, void*>> pending_;
};

PinnedCache& pinned_cache() {
  static PinnedCache* c = new PinnedCache();
  return *c;
}

}  // namespace

Allocator* caching_allocator() {
  static CachingAllocator* a = new CachingAllocator();
  return a;
}

std::map<std::string, int64_t> memory_stats(int device) {
  return cache_for(device).stats();
}
void reset_peak_memory_stats(int device) {
  cache_for(device).reset_peak();
}
void empty_cache() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) cudaGetLastError();
  for (int d = 0; d < n && d < kMaxDevices; ++d) cache_for(d).empty_cache();
}
void record_stream(void* ptr, int device, cudaStream_t stream) {
  cache_for(device).record_stream(ptr, stream);
}

void begin_allocate_to_pool(int device, MempoolId pool, cudaStream_t stream, unsigned long long capture_id) {
  cache_for(device).begin_allocate_to_pool(pool, stream, capture_id);
}
void end_allocate_to_pool(int device, MempoolId pool) {
  cache_for(device).end_allocate_to_pool(pool);
}
void release_pool(int device, MempoolId pool) {
  cache_for(device).release_pool(pool);
}
bool caching_enabled() {
  return !caching_disabled();
}
int captures_underway() {
  return g_captures.load(std::memory_order_relaxed);
}
bool stream_is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return status != cudaStreamCaptureStatusNone;
}

Allocator* pinned_allocator() {
  return &pinned_cache();
}
bool is_pinned_ptr(const void* ptr) {
  return pinned_cache().owns(ptr);
}
void record_pinned_use(void* ptr, cudaStream_t stream) {
  pinned_cache().record(ptr, stream);
}

}  // namespace cuda
}  // namespace mt
#endif  // MINITORCH_WITH_CUDA
