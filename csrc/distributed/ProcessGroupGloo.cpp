// The gloo backend: Gloo's TCP transport and its collective algorithms on contiguous CPU tensors.
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "core/Exception.h"
#include "distributed/ProcessGroup.h"

#ifdef MINITORCH_WITH_GLOO
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/tcp/pair.h>
#include <gloo/transport/tcp/unbound_buffer.h>
#include <gloo/transport/unbound_buffer.h>
#endif

namespace mt {
namespace distributed {

#ifndef MINITORCH_WITH_GLOO

bool gloo_available() {
  return false;
}
std::unique_ptr<ProcessGroup> make_gloo_group(std::shared_ptr<Store>, int, int, std::chrono::milliseconds,
                                              const std::string&, const std::string&) {
  MT_ERROR(
      "Gloo backend is not available: minitorch was built without Gloo (install libgloo-dev and rebuild)");
}

#else

bool gloo_available() {
  return true;
}

namespace {

// Gloo's rendezvous calls back into our store (a Python TCPStore/FileStore behind the Store interface).
class GlooStore : public gloo::rendezvous::Store {
 public:
  GlooStore(std::shared_ptr<distributed::Store> s, std::chrono::milliseconds timeout)
      : store_(std::move(s)), timeout_(timeout) {}
  void set(const std::string& key, const std::vector<char>& data) override { store_->set(key, data); }
  std::vector<char> get(const std::string& key) override { return store_->get(key); }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
  std::chrono::milliseconds timeout_;
};

using Func = std::function<void(void*, const void*, const void*, size_t)>;

// Half and bfloat16 reduce in float, as the other ops compute them.
template <typename T>
using OpMath = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <typename T, typename F>
Func elementwise(F f) {
  return [f](void* c, const void* a, const void* b, size_t n) {
    T* out = static_cast<T*>(c);
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(f(OpMath<T>(x[i]), OpMath<T>(y[i])));
  };
}

template <typename T>
Func reduce_fn(ReduceOp op) {
  using A = OpMath<T>;
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG:
      return elementwise<T>([](A x, A y) { return x + y; });
    case ReduceOp::PRODUCT:
      return elementwise<T>([](A x, A y) { return x * y; });
    case ReduceOp::MIN:
      return elementwise<T>([](A x, A y) { return y < x ? y : x; });
    case ReduceOp::MAX:
      return elementwise<T>([](A x, A y) { return y > x ? y : x; });
  }
  MT_ERROR("unknown ReduceOp");
}

// AVG is SUM then a division by the world size (integers truncate, as an integer division does).
template <typename T>
void divide(void* p, size_t n, int size) {
  T* d = static_cast<T*>(p);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<T>(OpMath<T>(d[i]) / static_cast<OpMath<T> >(size));
}

Func reduce_fn_for(ScalarType st, ReduceOp op) {
  switch (st) {
#define MT_CASE(ct, name, s, l) \
  case ScalarType::name:        \
    return reduce_fn<ct>(op);
    MT_FORALL_SCALAR_TYPES(MT_CASE)
#undef MT_CASE
    default:
      MT_ERROR("unsupported dtype for a reduction");
  }
}

void divide_for(ScalarType st, void* p, size_t n, int size) {
  MT_CHECK(st != ScalarType::Bool, "ReduceOp.AVG is not supported for bool tensors");
  switch (st) {
#define MT_CASE(ct, name, s, l) \
  case ScalarType::name:        \
    return divide<ct>(p, n, size);
    MT_FORALL_SCALAR_TYPES(MT_CASE)
#undef MT_CASE
    default:
      MT_ERROR("unsupported dtype for a reduction");
  }
}

// Slots of point-to-point messages live apart from the collectives' (Gloo puts an algorithm prefix in the top
// byte of those).
constexpr uint64_t kP2PSlot = 0xffULL << 56;

// ---- a peer that dies mid-message

// When a peer's socket closes or fails, Gloo's TCP pair wakes the buffers of the operations it holds queued,
// but not the unbound buffer it is reading a message into (rx_) nor those of the sends it is writing (tx_): a
// rank waiting for a message that was half transferred when its peer died sleeps until the group's timeout,
// 30 minutes by default. So do Debian's Gloo (2022), upstream's (2025) and PyTorch 2.15's: a broadcast whose
// root is killed mid-send leaves the other ranks waiting out the whole timeout. The watchdog below, awake
// while this group waits on the transport, hands a failed pair's error to those buffers, so the waiter raises
// it at once (as when the peer dies between messages). It reads members Gloo's classes keep protected, named
// through a derived class (which C++ allows), under the pair's own lock.
namespace tcp = gloo::transport::tcp;

struct PairAccess : tcp::Pair {
  static std::mutex& mutex(tcp::Pair& p) { return p.*(&PairAccess::m_); }
  static const std::exception_ptr& error(tcp::Pair& p) { return p.*(&PairAccess::ex_); }
  static tcp::Op& reading(tcp::Pair& p) { return p.*(&PairAccess::rx_); }
  static std::deque<tcp::Op>& writing(tcp::Pair& p) { return p.*(&PairAccess::tx_); }
};

struct BufferAccess : tcp::UnboundBuffer {
  // wakes its waiters, who raise ex
  static void fail(tcp::UnboundBuffer* b, std::exception_ptr ex) {
    (b->*(&BufferAccess::signalException))(std::move(ex));
  }
};

class PeerFailureWatchdog {
 public:
  explicit PeerFailureWatchdog(std::shared_ptr<gloo::Context> ctx) : ctx_(std::move(ctx)), pid_(getpid()) {
    for (int r = 0; r < ctx_->size; ++r) {
      if (r == ctx_->rank) continue;
      if (auto* p = dynamic_cast<tcp::Pair*>(ctx_->getPair(r).get())) pairs_.push_back(p);
    }
    handled_.assign(pairs_.size(), false);
    if (!pairs_.empty()) thread_ = std::make_unique<std::thread>([this] { run(); });
  }

  ~PeerFailureWatchdog() {
    if (!thread_) return;
    if (getpid() != pid_) {
      // a fork()ed child: the thread (and maybe the lock's holder) stayed in the parent
      (void)thread_.release();
      return;
    }
    {
      std::lock_guard<std::mutex> g(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_->join();
  }

  // Held for as long as a thread waits on the transport (a collective, a point-to-point wait).
  class Waiting {
   public:
    explicit Waiting(PeerFailureWatchdog& w) : w_(w) { w_.enter(); }
    ~Waiting() { w_.active_.fetch_sub(1); }
    Waiting(const Waiting&) = delete;
    Waiting& operator=(const Waiting&) = delete;

   private:
    PeerFailureWatchdog& w_;
  };

 private:
  static constexpr auto kPoll = std::chrono::milliseconds(10);

  void enter() {
    // wakes the thread only from its idle sleep: a stream of short collectives costs no wake-up each
    if (active_.fetch_add(1) == 0 && idle_.load()) {
      std::lock_guard<std::mutex> g(m_);  // not between the thread's check and its sleep
      cv_.notify_one();
    }
  }

  void run() {
    std::unique_lock<std::mutex> lk(m_);
    while (!stop_) {
      if (active_.load() == 0) {
        idle_.store(true);
        cv_.wait(lk, [&] { return stop_ || active_.load() > 0; });
        idle_.store(false);
        continue;
      }
      lk.unlock();
      scan();
      lk.lock();
      cv_.wait_for(lk, kPoll, [&] { return stop_; });
    }
  }

  void scan() {
    for (size_t i = 0; i < pairs_.size(); ++i) {
      if (handled_[i]) continue;
      tcp::Pair& p = *pairs_[i];
      // try: Gloo's device thread skips a pair whose lock is taken and comes back on its next tick
      std::unique_lock<std::mutex> lk(PairAccess::mutex(p), std::try_to_lock);
      if (!lk.owns_lock()) continue;
      const std::exception_ptr& ex = PairAccess::error(p);
      if (!ex) continue;
      // failed for good: it reads and writes nothing more, so these ops never complete
      fail(PairAccess::reading(p), ex);
      for (tcp::Op& op : PairAccess::writing(p)) fail(op, ex);
      handled_[i] = true;
    }
  }

  static void fail(const tcp::Op& op, const std::exception_ptr& ex) {
    gloo::NonOwningPtr<tcp::UnboundBuffer> buf(op.ubuf);  // empty when none, or gone
    if (buf) BufferAccess::fail(buf.operator->(), ex);
  }

  std::shared_ptr<gloo::Context> ctx_;  // owns the pairs
  std::vector<tcp::Pair*> pairs_;
  std::vector<bool> handled_;  // the watchdog thread's own
  std::mutex m_;
  std::condition_variable cv_;
  std::atomic<int> active_{0};     // threads waiting on the transport
  std::atomic<bool> idle_{false};  // the thread sleeps until one does
  bool stop_ = false;
  pid_t pid_;
  std::unique_ptr<std::thread> thread_;
};

// PyTorch's Gloo follows the transport's word for a lost peer with a hint, which older Gloos (Debian's) lack.
[[noreturn]] void rethrow_with_hint(const gloo::IoException& e) {
  std::string msg = e.what();
  const char* hint = nullptr;
  if (msg.find("This is typically caused") == std::string::npos) {
    if (msg.find("Connection closed by peer") != std::string::npos)
      hint = "This is typically caused by a remote worker crashing. ";
    else if (msg.find("Read error ") != std::string::npos)
      hint = "This is typically caused by a remote worker hanging or bugs in the application. ";
  }
  if (!hint) throw;
  throw gloo::IoException(msg + ". " + hint +
                          "Check the logs of the remote worker before reporting an error. "
                          "GLHF! \xF0\x9F\x8F\x96\xEF\xB8\x8F");
}

// Runs f; a peer's failure comes out in PyTorch's words.
template <typename F>
void worded(F&& f) {
  try {
    f();
  } catch (const gloo::IoException& e) {
    rethrow_with_hint(e);
  }
}

// Runs f, a wait on the transport, with the watchdog awake.
template <typename F>
void waiting(PeerFailureWatchdog& w, F&& f) {
  PeerFailureWatchdog::Waiting awake(w);
  worded(std::forward<F>(f));
}

// Holds the tensor so its memory outlives the transfer.
class GlooP2PWork : public P2PWork {
 public:
  GlooP2PWork(std::unique_ptr<gloo::transport::UnboundBuffer> buf, Tensor t, bool is_send,
              std::chrono::milliseconds timeout, std::shared_ptr<PeerFailureWatchdog> watchdog)
      : buf_(std::move(buf)),
        tensor_(std::move(t)),
        is_send_(is_send),
        timeout_(timeout),
        watchdog_(std::move(watchdog)) {}
  int wait() override {
    if (done_) return peer_;
    waiting(*watchdog_, [&] {
      if (is_send_)
        buf_->waitSend(&peer_, timeout_);
      else
        buf_->waitRecv(&peer_, timeout_);
    });
    done_ = true;
    return peer_;
  }

 private:
  std::unique_ptr<gloo::transport::UnboundBuffer> buf_;
  Tensor tensor_;
  bool is_send_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<PeerFailureWatchdog> watchdog_;
  bool done_ = false;
  int peer_ = -1;
};

class ProcessGroupGloo : public ProcessGroup {
 public:
  ProcessGroupGloo(std::shared_ptr<distributed::Store> store, int rank, int size,
                   std::chrono::milliseconds timeout, const std::string& hostname, const std::string& iface)
      : timeout_(timeout) {
    rank_ = rank;
    size_ = size;
    gloo::transport::tcp::attr attr;
    if (iface.empty())
      attr.hostname = hostname;
    else
      attr.iface = iface;
    auto dev = gloo::transport::tcp::CreateDevice(attr);
    auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
    ctx->setTimeout(timeout);
    GlooStore gstore(std::move(store), timeout);
    ctx->connectFullMesh(gstore, dev);
    ctx_ = ctx;
    watchdog_ = std::make_shared<PeerFailureWatchdog>(ctx_);
  }

  void allreduce(const Tensor& t, ReduceOp op) override {
    if (t.numel() == 0) return;
    allreduce_raw(t.data_ptr(), t.numel(), t.dtype(), op);
  }

  void broadcast(const Tensor& t, int root) override {
    if (t.numel() == 0) return;
    gloo::BroadcastOptions o(ctx_);
    o.setOutput(static_cast<char*>(t.data_ptr()), nbytes(t));
    o.setRoot(root);
    o.setTag(next_tag());
    o.setTimeout(timeout_);
    waiting(*watchdog_, [&] { gloo::broadcast(o); });
  }

  void allgather(const Tensor& out, const Tensor& in) override {
    if (in.numel() == 0) return;
    gloo::AllgatherOptions o(ctx_);
    o.setInput(static_cast<char*>(in.data_ptr()), nbytes(in));
    o.setOutput(static_cast<char*>(out.data_ptr()), nbytes(out));
    o.setTag(next_tag());
    o.setTimeout(timeout_);
    waiting(*watchdog_, [&] { gloo::allgather(o); });
  }

  void reduce_scatter(const Tensor& out, const Tensor& in, ReduceOp op) override {
    if (out.numel() == 0) return;
    // Gloo's new-style API has no reduce-scatter: all-reduce a copy and keep this rank's block.
    std::vector<char> tmp(nbytes(in));
    std::memcpy(tmp.data(), in.data_ptr(), tmp.size());
    allreduce_raw(tmp.data(), in.numel(), in.dtype(), op);
    std::memcpy(out.data_ptr(), tmp.data() + rank_ * nbytes(out), nbytes(out));
  }

  void alltoall(const Tensor& out, const Tensor& in) override {
    if (in.numel() == 0) return;
    gloo::AlltoallOptions o(ctx_);
    o.setInput(static_cast<char*>(in.data_ptr()), nbytes(in));
    o.setOutput(static_cast<char*>(out.data_ptr()), nbytes(out));
    o.setTag(next_tag());
    o.setTimeout(timeout_);
    waiting(*watchdog_, [&] { gloo::alltoall(o); });
  }

  void alltoallv(const Tensor& out, const std::vector<int64_t>& out_counts, const Tensor& in,
                 const std::vector<int64_t>& in_counts) override {
    MT_CHECK(in_counts[rank_] == out_counts[rank_], "all_to_all: rank ", rank_, " sends itself ",
             in_counts[rank_], " elements but expects to receive ", out_counts[rank_]);
    // Every rank takes part even with nothing to move (Gloo exchanges empty messages too); byte counts, so
    // one instantiation serves every dtype. An empty tensor may have no memory: point Gloo at a dummy byte.
    const size_t item = in.itemsize();
    auto bytes = [item](const std::vector<int64_t>& c) {
      std::vector<int64_t> b(c.size());
      for (size_t i = 0; i < c.size(); ++i) b[i] = c[i] * static_cast<int64_t>(item);
      return b;
    };
    static uint8_t dummy_in = 0;
    uint8_t dummy_out = 0;
    auto* ip = in.numel() ? static_cast<uint8_t*>(in.data_ptr()) : &dummy_in;
    auto* outp = out.numel() ? static_cast<uint8_t*>(out.data_ptr()) : &dummy_out;
    gloo::AlltoallvOptions o(ctx_);
    o.setInput(ip, bytes(in_counts));
    o.setOutput(outp, bytes(out_counts));
    o.setTag(next_tag());
    o.setTimeout(timeout_);
    waiting(*watchdog_, [&] { gloo::alltoallv(o); });
  }

  void reduce(const Tensor& t, int root, ReduceOp op) override {
    if (t.numel() == 0) return;
    gloo::ReduceOptions o(ctx_);
    set_typed(o, t);
    o.setRoot(root);
    o.setReduceFunction(reduce_fn_for(t.dtype(), op));
    o.setTag(next_tag());
    o.setTimeout(timeout_);
    waiting(*watchdog_, [&] { gloo::reduce(o); });
    if (op == ReduceOp::AVG && rank_ == root) divide_for(t.dtype(), t.data_ptr(), t.numel(), size_);
  }

  void gather(const Tensor& out, const Tensor& in, int root) override {
    if (in.numel() == 0) return;
    gloo::GatherOptions o(ctx_);
    o.setInput(static_cast<char*>(in.data_ptr()), nbytes(in));
    if (rank_ == root) o.setOutput(static_cast<char*>(out.data_ptr()), nbytes(out));
    o.setRoot(root);
    o.setTag(next_tag());
    o.setTimeout(timeout_);
    waiting(*watchdog_, [&] { gloo::gather(o); });
  }

  void scatter(const Tensor& out, const Tensor& in, int root) override {
    if (out.numel() == 0) return;
    gloo::ScatterOptions o(ctx_);
    std::vector<char*> ptrs;
    if (rank_ == root) {
      for (int r = 0; r < size_; ++r) ptrs.push_back(static_cast<char*>(in.data_ptr()) + r * nbytes(out));
      o.setInputs(ptrs, nbytes(out));
    }
    o.setOutput(static_cast<char*>(out.data_ptr()), nbytes(out));
    o.setRoot(root);
    o.setTag(next_tag());
    o.setTimeout(timeout_);
    waiting(*watchdog_, [&] { gloo::scatter(o); });
  }

  std::unique_ptr<P2PWork> isend(const Tensor& t, int dst, int tag) override {
    auto buf = ctx_->createUnboundBuffer(t.data_ptr(), nbytes(t));
    worded([&] { buf->send(dst, kP2PSlot | static_cast<uint32_t>(tag)); });
    return std::make_unique<GlooP2PWork>(std::move(buf), t, true, timeout_, watchdog_);
  }

  std::unique_ptr<P2PWork> irecv(const Tensor& t, int src, int tag) override {
    auto buf = ctx_->createUnboundBuffer(t.data_ptr(), nbytes(t));
    uint64_t slot = kP2PSlot | static_cast<uint32_t>(tag);
    worded([&] {
      if (src >= 0) {
        buf->recv(src, slot);
      } else {
        std::vector<int> srcs;
        for (int r = 0; r < size_; ++r)
          if (r != rank_) srcs.push_back(r);
        buf->recv(srcs, slot);
      }
    });
    return std::make_unique<GlooP2PWork>(std::move(buf), t, false, timeout_, watchdog_);
  }

  void barrier() override {
    gloo::BarrierOptions o(ctx_);
    o.setTag(next_tag());
    o.setTimeout(timeout_);
    waiting(*watchdog_, [&] { gloo::barrier(o); });
  }

 private:
  static size_t nbytes(const Tensor& t) { return static_cast<size_t>(t.numel()) * t.itemsize(); }
  uint32_t next_tag() { return tag_++; }

  template <typename Opts>
  static void set_typed(Opts& o, const Tensor& t) {
    // Only the element size matters to Gloo's transport; the reduce function knows the real type.
    size_t n = t.numel();
    switch (t.itemsize()) {
      case 1:
        o.setOutput(static_cast<uint8_t*>(t.data_ptr()), n);
        break;
      case 2:
        o.setOutput(static_cast<uint16_t*>(t.data_ptr()), n);
        break;
      case 4:
        o.setOutput(static_cast<uint32_t*>(t.data_ptr()), n);
        break;
      case 8:
        o.setOutput(static_cast<uint64_t*>(t.data_ptr()), n);
        break;
      default:
        MT_ERROR("unsupported element size");
    }
  }

  void allreduce_raw(void* p, int64_t numel, ScalarType st, ReduceOp op) {
    gloo::AllreduceOptions o(ctx_);
    size_t n = numel;
    switch (element_size(st)) {
      case 1:
        o.setOutput(static_cast<uint8_t*>(p), n);
        break;
      case 2:
        o.setOutput(static_cast<uint16_t*>(p), n);
        break;
      case 4:
        o.setOutput(static_cast<uint32_t*>(p), n);
        break;
      case 8:
        o.setOutput(static_cast<uint64_t*>(p), n);
        break;
      default:
        MT_ERROR("unsupported element size");
    }
    o.setReduceFunction(reduce_fn_for(st, op));
    o.setTag(next_tag());
    o.setTimeout(timeout_);
    waiting(*watchdog_, [&] { gloo::allreduce(o); });
    if (op == ReduceOp::AVG) divide_for(st, p, n, size_);
  }

  std::shared_ptr<gloo::Context> ctx_;
  std::shared_ptr<PeerFailureWatchdog> watchdog_;  // shared with the point-to-point works
  std::chrono::milliseconds timeout_;
  uint32_t tag_ = 0;
};

}  // namespace

std::unique_ptr<ProcessGroup> make_gloo_group(std::shared_ptr<Store> store, int rank, int size,
                                              std::chrono::milliseconds timeout, const std::string& hostname,
                                              const std::string& iface) {
  return std::make_unique<ProcessGroupGloo>(std::move(store), rank, size, timeout, hostname, iface);
}

#endif  // MINITORCH_WITH_GLOO

}  // namespace distributed
}  // namespace mt
