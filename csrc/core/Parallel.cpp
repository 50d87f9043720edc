// parallel_for for the CPU kernels: on OpenMP's threads where oneDNN runs on OpenMP (one set of worker
// threads for every kernel), else, and in a forked child, on a small pool of our own that a pthread_atfork
// handler forgets in the child (libgomp hangs in a child forked after the parent used its threads).
#include "core/Parallel.h"

#include <cblas.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/ParallelGuard.h"

#ifdef MINITORCH_PARALLEL_OPENMP
#include <omp.h>
#endif

namespace mt {

namespace {

// As PyTorch: OMP_NUM_THREADS, else MKL_NUM_THREADS, when it holds a positive integer (the usual way to keep
// several processes on one machine from oversubscribing it); else one thread per hardware thread.
// hardware_concurrency() reads sysfs (microseconds per call): ask once.
int default_threads() {
  static const int n = [] {
    for (const char* var : {"OMP_NUM_THREADS", "MKL_NUM_THREADS"}) {
      const char* v = std::getenv(var);
      if (v == nullptr || *v == '\0') continue;
      char* end = nullptr;
      long k = std::strtol(v, &end, 10);
      if (*end == '\0' && k > 0) return static_cast<int>(std::min(k, 1024L));
    }
    unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(hw);
  }();
  return n;
}

using Clock = std::chrono::steady_clock;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// The late-worker guard. A region's caller, done with its own chunks, waits for the others; on a machine with
// more runnable threads than cores a worker that was preempted (or not yet scheduled) comes back only after a
// scheduler slice of another process, milliseconds: a 40 us elementwise op took 1-2 ms at two threads beside
// other jobs (benchmarks/README.md, "Two threads on a loaded machine"). When the caller waited longer than
// kLate and longer than its own share took (the region was slower than running all of it on the caller),
// parallel_for runs on the calling thread alone for a while: kMinBackoff after the first late region, twice
// as long after each further one, up to kMaxBackoff, and half as long after each region that was not late. A
// worker's wake-up from sleep (tens of microseconds here) stays under kLate, so an idle machine never backs
// off for it. The chunks stay those of the parallel run, taken in order by the calling thread, so the bits
// do not depend on the load.
constexpr int64_t kLate = 200'000, kMinBackoff = 2'000'000, kMaxBackoff = 1'000'000'000;
std::atomic<int64_t> g_serial_until{0};  // steady-clock ns; 0 when no region was ever late
std::atomic<int64_t> g_backoff{0};

bool serial_for_now() {
  int64_t until = g_serial_until.load(std::memory_order_relaxed);
  return until != 0 && now_ns() < until;
}

// Records whether a region ran late, at time `end`.
void note_late(bool late, int64_t end) {
  int64_t backoff = g_backoff.load(std::memory_order_relaxed);
  if (late) {
    backoff = std::min(kMaxBackoff, std::max(kMinBackoff, 2 * backoff));
    g_backoff.store(backoff, std::memory_order_relaxed);
    g_serial_until.store(end + backoff, std::memory_order_relaxed);
  } else if (backoff != 0) {
    g_backoff.store(backoff / 2 < kMinBackoff ? 0 : backoff / 2, std::memory_order_relaxed);
  }
}

// start: the region's start; own_done: when the caller finished its own chunks; end: when all were done
void note_region(int64_t start, int64_t own_done, int64_t end) {
  int64_t wait = end - own_done;
  note_late(wait > kLate && wait > own_done - start, end);
}

class ThreadPool {
 public:
  explicit ThreadPool(int n) {
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_.store(true);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int size() const { return static_cast<int>(workers_.size()); }

  static constexpr int kMaxTasks = 0xffff;
  // Runs task(i) for i in [0, ntasks <= kMaxTasks) on the pool plus the calling thread; returns when all are
  // done.
  void run(int ntasks, const std::function<void(int)>& task) {
    // One parallel region at a time. Ops run with the GIL released, so another Python thread may already be
    // in a region: its region holds every worker, so this one runs its chunks on the calling thread rather
    // than wait idle.
    std::unique_lock<std::mutex> lk(run_mu_, std::try_to_lock);
    if (!lk.owns_lock()) {
      for (int i = 0; i < ntasks; ++i) task(i);
      return;
    }
    int64_t start = now_ns();
    task_.store(&task, std::memory_order_relaxed);
    pending_.store(ntasks, std::memory_order_relaxed);
    error_ = nullptr;
    uint64_t gen = (state_.load(std::memory_order_relaxed) >> 32) + 1;
    state_.store(gen << 32 | uint64_t(ntasks) << 16);  // publishes the region (seq_cst: pairs with sleepers_)
    if (sleepers_.load() > 0) {
      std::lock_guard<std::mutex> g(mu_);  // a worker between its last check and its sleep sees the region
      cv_.notify_all();
    }
    drain();
    int64_t own_done = now_ns();
    if (!spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> g(mu_);
      main_waiting_.store(true);
      done_cv_.wait(g, [&] { return pending_.load() == 0; });
      main_waiting_.store(false);
    }
    note_region(start, own_done, now_ns());
    if (error_) std::rethrow_exception(error_);
  }

  // Spinning workers go to sleep now: another runtime (oneDNN's OpenMP threads) is about to use the cores.
  void park() { park_.fetch_add(1, std::memory_order_relaxed); }

 private:
  // Claims chunks of the current region until none is left. One word holds the region's generation (high
  // 32 bits), its chunk count and the next chunk (16 bits each), so a worker that read an old region can
  // never claim a chunk of a newer one, nor one past the end, with one compare-and-swap.
  void drain() {
    for (;;) {
      uint64_t s = state_.load(std::memory_order_acquire);
      int i = static_cast<int>(s & 0xffffu), n = static_cast<int>((s >> 16) & 0xffffu);
      if (i >= n) return;
      if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acquire, std::memory_order_relaxed))
        continue;
      // The region cannot end (pending_ > 0) before this chunk is done, so task_ is this region's.
      try {
        (*task_.load(std::memory_order_relaxed))(i);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu_);
        if (!error_) error_ = std::current_exception();
      }
      if (pending_.fetch_sub(1) == 1 && main_waiting_.load()) {
        std::lock_guard<std::mutex> g(mu_);
        done_cv_.notify_one();
      }
    }
  }

  // Busy-waits (as OpenMP's spin-wait does) up to kSpin for `ready`: waking a sleeping thread through the
  // kernel costs tens of microseconds here (more in a VM, where the idle vCPU halts), which for a 200 us op
  // split in two ate the gain of the second thread. A spinner that finds it was preempted (a gap between two
  // of its clock reads) stops at once: the machine has more runnable threads than cores, and spinning would
  // only take the core from the thread it waits for. Returns whether `ready` came true.
  template <typename Ready>
  bool spin_until(Ready ready) {
    if (ready()) return true;
    uint64_t parked = park_.load(std::memory_order_relaxed);
    auto last = std::chrono::steady_clock::now(), until = last + kSpin;
    for (;;) {
      for (int k = 0; k < 64; ++k) {
        if (ready()) return true;
        cpu_relax();
      }
      auto now = std::chrono::steady_clock::now();
      if (park_.load(std::memory_order_relaxed) != parked || stop_.load(std::memory_order_relaxed) ||
          now > until || now - last > kPreempted)
        return ready();
      last = now;
    }
  }

  void work() {
    uint64_t seen = 0;
    auto fresh = [&] { return (state_.load(std::memory_order_acquire) >> 32) != seen; };
    for (;;) {
      if (!spin_until(fresh)) {
        std::unique_lock<std::mutex> lk(mu_);
        sleepers_.fetch_add(1);
        cv_.wait(lk, [&] { return stop_.load() || (state_.load() >> 32) != seen; });
        sleepers_.fetch_sub(1);
      }
      if (stop_.load()) return;
      seen = state_.load(std::memory_order_acquire) >> 32;
      drain();
    }
  }

  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  static constexpr std::chrono::microseconds kSpin{150}, kPreempted{20};
  std::vector<std::thread> workers_;
  std::mutex mu_, run_mu_;
  std::condition_variable cv_, done_cv_;
  // The fields the calling thread and the workers hit on every region, each on its own cache line.
  alignas(64) std::atomic<uint64_t> state_{0};
  alignas(64) std::atomic<int> pending_{0};
  alignas(64) std::atomic<const std::function<void(int)>*> task_{nullptr};
  alignas(64) std::atomic<int> sleepers_{0};
  std::atomic<bool> main_waiting_{false};
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> park_{0};
  std::exception_ptr error_;
};

std::atomic<int> g_num_threads{0};
ThreadPool* g_pool = nullptr;  // leaked on purpose: joining threads during interpreter exit can deadlock
std::mutex g_pool_mu;
thread_local bool t_in_parallel = false;

bool g_pools_stale = false;
std::atomic<bool> g_forked_child{false};

void forget_pool_in_child() {
  g_pool = nullptr;  // the parent's threads do not exist here; never touch them
  g_pools_stale = true;
  g_forked_child.store(true);
  new (&g_pool_mu) std::mutex();
}

void watch_forks() {
  static bool registered = (pthread_atfork(nullptr, nullptr, forget_pool_in_child), true);
  (void)registered;
}

ThreadPool* pool(int nthreads) {
  watch_forks();
  std::lock_guard<std::mutex> g(g_pool_mu);
  if (!g_pool || g_pool->size() != nthreads - 1) {
    // Pools are kept per size: a program that switches set_num_threads back and forth would otherwise leave
    // a pool of sleeping threads behind on every switch.
    static std::vector<ThreadPool*>* pools = new std::vector<ThreadPool*>();
    if (g_pools_stale) pools->clear(), g_pools_stale = false;
    g_pool = nullptr;
    for (ThreadPool* p : *pools)
      if (p->size() == nthreads - 1) g_pool = p;
    if (!g_pool) pools->push_back(g_pool = new ThreadPool(nthreads - 1));
  }
  return g_pool;
}

#ifdef MINITORCH_PARALLEL_OPENMP
// parallel_for runs on the OpenMP team that oneDNN (convs, float GEMM) uses, as PyTorch runs both. With our
// own pool beside it, every hand-off between a oneDNN call and our next kernel wakes our sleeping worker
// while OpenMP's spins on the second core, which makes a small conv net's training step slower and erratic
// (benchmarks/README.md has the LeNet timings). The cost: among other jobs at normal priority the caller
// waits at the region's barrier for a preempted worker, where our pool's caller takes the chunks a late
// worker has not started (measured 1.3-3x slower there, PyTorch slower still). MINITORCH_THREAD_POOL=own
// keeps our pool; a forked child always does (libgomp would wait there for the parent's threads; conv.cpp
// runs oneDNN on one thread there).
bool use_openmp() {
  watch_forks();
  static const bool own = [] {
    const char* e = std::getenv("MINITORCH_THREAD_POOL");
    return e && std::strcmp(e, "own") == 0;
  }();
  return !own && !g_forked_child.load(std::memory_order_relaxed);
}

// One region at a time, as in the pool: another Python thread's parallel_for meanwhile runs on its caller.
std::atomic<bool> g_omp_busy{false};

bool omp_run(int ntasks, const std::function<void(int)>& task) {
  bool idle = false;
  if (!g_omp_busy.compare_exchange_strong(idle, true, std::memory_order_acquire)) return false;
  std::exception_ptr error;
  std::mutex error_mu;
  int64_t start = now_ns(), own_done = start;
#pragma omp parallel num_threads(ntasks)
  {
    // the team may be smaller than asked (OMP_THREAD_LIMIT): each thread takes every nth task
    for (int i = omp_get_thread_num(); i < ntasks; i += omp_get_num_threads()) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> g(error_mu);
        if (!error) error = std::current_exception();
      }
    }
    if (omp_get_thread_num() == 0) own_done = now_ns();
  }
  note_region(start, own_done, now_ns());
  g_omp_busy.store(false, std::memory_order_release);
  if (error) std::rethrow_exception(error);
  return true;
}
#endif

}  // namespace

int get_num_threads() {
  int n = g_num_threads.load();
  return n > 0 ? n : default_threads();
}

void set_num_threads(int n) {
  g_num_threads.store(std::max(1, n));
  // OpenBLAS keeps a pool of its own: PyTorch's set_num_threads caps its BLAS too, and an uncapped one
  // spinning on a loaded machine made a small MLP step 70x slower than with one thread
  scipy_openblas_set_num_threads(std::max(1, n));
}

bool parallel_backing_off() {
  return serial_for_now();
}

void parallel_yield_cores() {
  std::lock_guard<std::mutex> g(g_pool_mu);
  if (g_pool) g_pool->park();
}

bool in_parallel_region() {
  return t_in_parallel;
}

void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
  int64_t n = end - begin;
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  int nthreads = get_num_threads();
  int64_t nchunks = std::min<int64_t>({nthreads, (n + grain - 1) / grain, ThreadPool::kMaxTasks});
  if (nchunks <= 1 || t_in_parallel) {
    f(begin, end);
    return;
  }
  int64_t chunk = (n + nchunks - 1) / nchunks;
  std::function<void(int)> task = [&](int i) {
    int64_t b = begin + i * chunk, e = std::min(end, b + chunk);
    if (b >= e) return;
    bool prev = t_in_parallel;
    t_in_parallel = true;
    try {
      f(b, e);
    } catch (...) {
      t_in_parallel = prev;
      throw;
    }
    t_in_parallel = prev;
  };
  // backing off: the same chunks in order on this thread, so a kernel whose chunks' results depend on their
  // bounds gives the bits of the parallel run
  if (serial_for_now()) {
    for (int i = 0; i < nchunks; ++i) task(i);
    return;
  }
#ifdef MINITORCH_PARALLEL_OPENMP
  if (use_openmp()) {
    if (!omp_run(static_cast<int>(nchunks), task))
      for (int i = 0; i < nchunks; ++i) task(i);
    return;
  }
#endif
  pool(nthreads)->run(static_cast<int>(nchunks), task);
}

}  // namespace mt
