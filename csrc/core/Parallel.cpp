// A small thread pool for CPU kernels. Why not OpenMP: libgomp hangs in a child forked after the parent used
// its threads; here a pthread_atfork handler simply forgets the pool in the child, which rebuilds it on
// demand.
#include "core/Parallel.h"

#include <cblas.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace mt {

namespace {

// hardware_concurrency() reads sysfs (microseconds per call): ask once.
int default_threads() {
  static const int n = [] {
    unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(hw);
  }();
  return n;
}

class ThreadPool {
 public:
  explicit ThreadPool(int n) {
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int size() const { return static_cast<int>(workers_.size()); }

  // Runs task(i) for i in [0, ntasks) on the pool plus the calling thread; returns when all are done.
  void run(int ntasks, const std::function<void(int)>& task) {
    // One parallel region at a time. Ops run with the GIL released, so another Python thread may already be
    // in a region: its region holds every worker, so this one runs its chunks on the calling thread rather
    // than wait idle.
    std::unique_lock<std::mutex> lk(run_mu_, std::try_to_lock);
    if (!lk.owns_lock()) {
      for (int i = 0; i < ntasks; ++i) task(i);
      return;
    }
    {
      std::lock_guard<std::mutex> g(mu_);
      task_ = &task;
      ntasks_ = ntasks;
      next_ = 0;
      pending_ = ntasks;
      error_ = nullptr;
      ++generation_;
    }
    cv_.notify_all();
    drain();
    std::unique_lock<std::mutex> g(mu_);
    done_cv_.wait(g, [this] { return pending_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void drain() {
    for (;;) {
      int i;
      {
        std::lock_guard<std::mutex> g(mu_);
        if (!task_ || next_ >= ntasks_) return;
        i = next_++;
      }
      try {
        (*task_)(i);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu_);
        if (!error_) error_ = std::current_exception();
      }
      std::lock_guard<std::mutex> g(mu_);
      if (--pending_ == 0) done_cv_.notify_all();
    }
  }
  void work() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      drain();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mu_, run_mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* task_ = nullptr;
  int ntasks_ = 0, next_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

std::atomic<int> g_num_threads{0};
ThreadPool* g_pool = nullptr;  // leaked on purpose: joining threads during interpreter exit can deadlock
std::mutex g_pool_mu;
thread_local bool t_in_parallel = false;

void forget_pool_in_child() {
  g_pool = nullptr;  // the parent's threads do not exist here; never touch them
  new (&g_pool_mu) std::mutex();
}

ThreadPool* pool(int nthreads) {
  static bool registered = (pthread_atfork(nullptr, nullptr, forget_pool_in_child), true);
  (void)registered;
  std::lock_guard<std::mutex> g(g_pool_mu);
  if (!g_pool || g_pool->size() != nthreads - 1) g_pool = new ThreadPool(nthreads - 1);
  return g_pool;
}

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

bool in_parallel_region() {
  return t_in_parallel;
}

void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
  int64_t n = end - begin;
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  int nthreads = get_num_threads();
  int64_t nchunks = std::min<int64_t>(nthreads, (n + grain - 1) / grain);
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
  pool(nthreads)->run(static_cast<int>(nchunks), task);
}

}  // namespace mt
