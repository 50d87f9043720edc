// The nccl backend: NCCL communicators on CUDA tensors, enqueued on the current stream; rank 0's unique id
// travels through the store.
#include <cstring>

#include "core/Exception.h"
#include "distributed/ProcessGroup.h"

#ifdef MINITORCH_WITH_NCCL
#include <nccl.h>

#include "cuda/CUDAContext.h"
#endif

namespace mt {
namespace distributed {

#ifndef MINITORCH_WITH_NCCL

bool nccl_available() {
  return false;
}
std::unique_ptr<ProcessGroup> make_nccl_group(std::shared_ptr<Store>, int, int, std::chrono::milliseconds,
                                              int) {
  MT_ERROR("NCCL backend is not available: minitorch was built without CUDA/NCCL");
}

#else

bool nccl_available() {
  return true;
}

namespace {

#define MT_NCCL_CHECK(expr)                                                                   \
  do {                                                                                        \
    ncclResult_t r_ = (expr);                                                                 \
    MT_CHECK(r_ == ncclSuccess, "NCCL error in: ", #expr, ": ", ncclGetErrorString(r_), " (", \
             static_cast<int>(r_), ")");                                                      \
  } while (0)

ncclDataType_t nccl_type(ScalarType st) {
  switch (st) {
    case ScalarType::Bool:
    case ScalarType::Byte:
      return ncclUint8;
    case ScalarType::Char:
      return ncclInt8;
    case ScalarType::Int:
      return ncclInt32;
    case ScalarType::Long:
      return ncclInt64;
    case ScalarType::Half:
      return ncclFloat16;
    case ScalarType::BFloat16:
      return ncclBfloat16;
    case ScalarType::Float:
      return ncclFloat32;
    case ScalarType::Double:
      return ncclFloat64;
    default:
      MT_ERROR("NCCL does not support dtype ", dtype_name(st));
  }
}

ncclRedOp_t nccl_op(ReduceOp op, ScalarType st) {
  switch (op) {
    case ReduceOp::SUM:
      return st == ScalarType::Bool ? ncclMax : ncclSum;
    case ReduceOp::AVG:
      MT_CHECK(st != ScalarType::Bool, "ReduceOp.AVG is not supported for bool tensors");
      return ncclAvg;
    case ReduceOp::PRODUCT:
      return st == ScalarType::Bool ? ncclMin : ncclProd;
    case ReduceOp::MIN:
      return ncclMin;
    case ReduceOp::MAX:
      return ncclMax;
  }
  MT_ERROR("unknown ReduceOp");
}

class DoneWork : public P2PWork {
 public:
  explicit DoneWork(int peer) : peer_(peer) {}
  int wait() override { return peer_; }

 private:
  int peer_;
};

class ProcessGroupNCCL : public ProcessGroup {
 public:
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout,
                   int device)
      : device_(device) {
    rank_ = rank;
    size_ = size;
    ncclUniqueId id;
    if (rank == 0) {
      MT_NCCL_CHECK(ncclGetUniqueId(&id));
      std::vector<char> bytes(reinterpret_cast<char*>(&id), reinterpret_cast<char*>(&id) + sizeof(id));
      store->set("nccl/unique_id", bytes);
    } else {
      store->wait({"nccl/unique_id"}, timeout);
      auto bytes = store->get("nccl/unique_id");
      MT_CHECK(bytes.size() == sizeof(id), "corrupt NCCL unique id in the store");
      std::memcpy(&id, bytes.data(), sizeof(id));
    }
    cuda::DeviceGuard g(device_);
    MT_NCCL_CHECK(ncclCommInitRank(&comm_, size, id, rank));
  }
  ~ProcessGroupNCCL() override {
    if (comm_) ncclCommDestroy(comm_);
    if (barrier_buf_) cudaFree(barrier_buf_);
  }

  void allreduce(const Tensor& t, ReduceOp op) override {
    cuda::DeviceGuard g(device_);
    MT_NCCL_CHECK(ncclAllReduce(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.dtype()),
                                nccl_op(op, t.dtype()), comm_, stream()));
  }
  void broadcast(const Tensor& t, int root) override {
    cuda::DeviceGuard g(device_);
    MT_NCCL_CHECK(
        ncclBroadcast(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.dtype()), root, comm_, stream()));
  }
  void allgather(const Tensor& out, const Tensor& in) override {
    cuda::DeviceGuard g(device_);
    MT_NCCL_CHECK(
        ncclAllGather(in.data_ptr(), out.data_ptr(), in.numel(), nccl_type(in.dtype()), comm_, stream()));
  }
  void reduce_scatter(const Tensor& out, const Tensor& in, ReduceOp op) override {
    cuda::DeviceGuard g(device_);
    MT_NCCL_CHECK(ncclReduceScatter(in.data_ptr(), out.data_ptr(), out.numel(), nccl_type(in.dtype()),
                                    nccl_op(op, in.dtype()), comm_, stream()));
  }
  void reduce(const Tensor& t, int root, ReduceOp op) override {
    cuda::DeviceGuard g(device_);
    MT_NCCL_CHECK(ncclReduce(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.dtype()),
                             nccl_op(op, t.dtype()), root, comm_, stream()));
  }
  void alltoall(const Tensor& out, const Tensor& in) override {
    cuda::DeviceGuard g(device_);
    auto ty = nccl_type(in.dtype());
    int64_t n = in.numel() / size_;
    size_t bytes = static_cast<size_t>(n) * in.itemsize();
    MT_NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < size_; ++r) {
      MT_NCCL_CHECK(ncclSend(static_cast<const char*>(in.data_ptr()) + r * bytes, n, ty, r, comm_, stream()));
      MT_NCCL_CHECK(ncclRecv(static_cast<char*>(out.data_ptr()) + r * bytes, n, ty, r, comm_, stream()));
    }
    MT_NCCL_CHECK(ncclGroupEnd());
  }
  void alltoallv(const Tensor& out, const std::vector<int64_t>& out_counts, const Tensor& in,
                 const std::vector<int64_t>& in_counts) override {
    cuda::DeviceGuard g(device_);
    auto ty = nccl_type(in.dtype());
    const size_t item = in.itemsize();
    size_t in_off = 0, out_off = 0;
    MT_NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < size_; ++r) {
      MT_NCCL_CHECK(ncclSend(static_cast<const char*>(in.data_ptr()) + in_off * item, in_counts[r], ty, r,
                             comm_, stream()));
      MT_NCCL_CHECK(ncclRecv(static_cast<char*>(out.data_ptr()) + out_off * item, out_counts[r], ty, r, comm_,
                             stream()));
      in_off += in_counts[r];
      out_off += out_counts[r];
    }
    MT_NCCL_CHECK(ncclGroupEnd());
  }
  // NCCL has no gather/scatter: grouped point-to-point, as PyTorch's ProcessGroupNCCL does.
  void gather(const Tensor& out, const Tensor& in, int root) override {
    cuda::DeviceGuard g(device_);
    auto ty = nccl_type(in.dtype());
    size_t bytes = static_cast<size_t>(in.numel()) * in.itemsize();
    MT_NCCL_CHECK(ncclGroupStart());
    if (rank_ == root) {
      for (int r = 0; r < size_; ++r) {
        char* dst = static_cast<char*>(out.data_ptr()) + r * bytes;
        if (r == root)
          cudaMemcpyAsync(dst, in.data_ptr(), bytes, cudaMemcpyDeviceToDevice, stream());
        else
          MT_NCCL_CHECK(ncclRecv(dst, in.numel(), ty, r, comm_, stream()));
      }
    } else {
      MT_NCCL_CHECK(ncclSend(in.data_ptr(), in.numel(), ty, root, comm_, stream()));
    }
    MT_NCCL_CHECK(ncclGroupEnd());
  }
  void scatter(const Tensor& out, const Tensor& in, int root) override {
    cuda::DeviceGuard g(device_);
    auto ty = nccl_type(out.dtype());
    size_t bytes = static_cast<size_t>(out.numel()) * out.itemsize();
    MT_NCCL_CHECK(ncclGroupStart());
    if (rank_ == root) {
      for (int r = 0; r < size_; ++r) {
        const char* src = static_cast<const char*>(in.data_ptr()) + r * bytes;
        if (r == root)
          cudaMemcpyAsync(out.data_ptr(), src, bytes, cudaMemcpyDeviceToDevice, stream());
        else
          MT_NCCL_CHECK(ncclSend(src, out.numel(), ty, r, comm_, stream()));
      }
    } else {
      MT_NCCL_CHECK(ncclRecv(out.data_ptr(), out.numel(), ty, root, comm_, stream()));
    }
    MT_NCCL_CHECK(ncclGroupEnd());
  }
  // Enqueued on the current stream: the stream orders what follows, so waiting has nothing left to do.
  std::unique_ptr<P2PWork> isend(const Tensor& t, int dst, int tag) override {
    cuda::DeviceGuard g(device_);
    MT_NCCL_CHECK(ncclSend(t.data_ptr(), t.numel(), nccl_type(t.dtype()), dst, comm_, stream()));
    return std::make_unique<DoneWork>(dst);
  }
  std::unique_ptr<P2PWork> irecv(const Tensor& t, int src, int tag) override {
    MT_CHECK(src >= 0, "NCCL cannot receive from any source: pass src");
    cuda::DeviceGuard g(device_);
    MT_NCCL_CHECK(ncclRecv(t.data_ptr(), t.numel(), nccl_type(t.dtype()), src, comm_, stream()));
    return std::make_unique<DoneWork>(src);
  }
  void barrier() override {
    // A one-element all-reduce, then wait for it: NCCL has no barrier of its own.
    cuda::DeviceGuard g(device_);
    if (!barrier_buf_) {
      void* p = nullptr;
      MT_CHECK(cudaMalloc(&p, sizeof(float)) == cudaSuccess, "cudaMalloc failed for the barrier buffer");
      barrier_buf_ = p;
    }
    MT_NCCL_CHECK(ncclAllReduce(barrier_buf_, barrier_buf_, 1, ncclFloat32, ncclSum, comm_, stream()));
    MT_CHECK(cudaStreamSynchronize(stream()) == cudaSuccess, "barrier: stream synchronize failed");
  }

 private:
  cudaStream_t stream() const { return cuda::current_stream(device_); }
  ncclComm_t comm_ = nullptr;
  int device_;
  void* barrier_buf_ = nullptr;
};

}  // namespace

std::unique_ptr<ProcessGroup> make_nccl_group(std::shared_ptr<Store> store, int rank, int size,
                                              std::chrono::milliseconds timeout, int device) {
  return std::make_unique<ProcessGroupNCCL>(std::move(store), rank, size, timeout, device);
}

#endif  // MINITORCH_WITH_NCCL

}  // namespace distributed
}  // namespace mt
