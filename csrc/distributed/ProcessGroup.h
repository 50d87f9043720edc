// Collective backends for minitorch.distributed: the store they rendezvous through and the Gloo/NCCL groups.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/Tensor.h"

namespace mt {
namespace distributed {

// Values as torch.distributed.ReduceOp's, so pickled/printed ops mean the same thing.
enum class ReduceOp : int { SUM = 0, AVG = 1, PRODUCT = 2, MIN = 3, MAX = 4 };

// The key-value store a group rendezvouses through; the Python TCPStore/FileStore implement it (bindings).
class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::vector<char>& value) = 0;
  // Blocks until the key exists or the store's timeout passes (then throws).
  virtual std::vector<char> get(const std::string& key) = 0;
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;
};

bool gloo_available();
bool nccl_available();

// A posted send or receive; wait() blocks until it completed (or the group's timeout passed) and returns the
// sender's rank for a receive.
class P2PWork {
 public:
  virtual ~P2PWork() = default;
  virtual int wait() = 0;
};

// Every tensor argument is contiguous and on the group's device; the Python layer copies the others.
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual void allreduce(const Tensor& t, ReduceOp op) = 0;
  virtual void broadcast(const Tensor& t, int root) = 0;
  // out holds size() * in.numel() elements, rank r's block at r * in.numel().
  virtual void allgather(const Tensor& out, const Tensor& in) = 0;
  // in holds size() * out.numel() elements; rank r receives the reduction of block r.
  virtual void reduce_scatter(const Tensor& out, const Tensor& in, ReduceOp op) = 0;
  // in and out hold size() equal blocks; block r of in goes to rank r, block r of out comes from rank r.
  virtual void alltoall(const Tensor& out, const Tensor& in) = 0;
  // Uneven blocks: in_counts[r] elements of in (after those for ranks below r) go to rank r; out receives
  // out_counts[r] elements from rank r, in rank order. Counts are elements, one entry per rank.
  virtual void alltoallv(const Tensor& out, const std::vector<int64_t>& out_counts, const Tensor& in,
                         const std::vector<int64_t>& in_counts) = 0;
  virtual void reduce(const Tensor& t, int root, ReduceOp op) = 0;
  // out (root only, undefined elsewhere) holds size() * in.numel() elements.
  virtual void gather(const Tensor& out, const Tensor& in, int root) = 0;
  // in (root only) holds size() * out.numel() elements.
  virtual void scatter(const Tensor& out, const Tensor& in, int root) = 0;
  // Post and return at once: two ranks that send to each other before receiving must not deadlock.
  virtual std::unique_ptr<P2PWork> isend(const Tensor& t, int dst, int tag) = 0;
  // src -1 receives from any rank.
  virtual std::unique_ptr<P2PWork> irecv(const Tensor& t, int src, int tag) = 0;
  virtual void barrier() = 0;
  int rank() const { return rank_; }
  int size() const { return size_; }

 protected:
  int rank_ = 0;
  int size_ = 1;
};

// hostname: the address peers reach this rank at (an address or a name that resolves to one); iface, when not
// empty, names the network interface to use instead (GLOO_SOCKET_IFNAME).
std::unique_ptr<ProcessGroup> make_gloo_group(std::shared_ptr<Store> store, int rank, int size,
                                              std::chrono::milliseconds timeout, const std::string& hostname,
                                              const std::string& iface);
std::unique_ptr<ProcessGroup> make_nccl_group(std::shared_ptr<Store> store, int rank, int size,
                                              std::chrono::milliseconds timeout, int device);

}  // namespace distributed
}  // namespace mt
