// CUDA graphs (torch.cuda.CUDAGraph): capture the work enqueued on a stream, replay it with one launch.
// Declared in every build (the binding is unconditional); without CUDA each entry point raises as the other
// CUDA calls do.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mt {

using GraphPoolId = std::pair<uint64_t, uint64_t>;  // PyTorch's MempoolId_t

// A fresh pool id {0, n} for sharing one private pool between captures (works without CUDA, as PyTorch's).
GraphPoolId graph_pool_handle();
// True while the current stream of the current device is capturing; False when CUDA was never initialized.
bool is_current_stream_capturing();
// Raises when a random op on CUDA `device` would be captured: the seed and offset are kernel arguments, so
// every replay would repeat the captured numbers.
void check_rng_not_capturing(int device);

class CUDAGraph {
 public:
  explicit CUDAGraph(bool keep_graph = false);
  ~CUDAGraph();
  CUDAGraph(const CUDAGraph&) = delete;
  CUDAGraph& operator=(const CUDAGraph&) = delete;

  // pool {0, 0}: a pool of its own. mode: "global", "thread_local" or "relaxed" (cudaStreamCaptureMode).
  void capture_begin(GraphPoolId pool, const std::string& capture_error_mode);
  // Ends the capture and, unless keep_graph, instantiates it. On a failed capture (an illegal call inside it)
  // the graph is left empty and the CUDA error raised.
  void capture_end();
  // Ends a capture whose body raised, discarding the graph and swallowing CUDA's errors (the body's error is
  // the one to report).
  void abort_capture();
  void instantiate();
  void replay();
  void reset();
  GraphPoolId pool() const;
  void enable_debug_mode() { keep_graph_ = true; }
  void debug_dump(const std::string& path, bool verbose = true) const;
  uintptr_t raw_cuda_graph() const;
  uintptr_t raw_cuda_graph_exec() const;
  bool has_graph_exec() const { return exec_ != nullptr; }

 private:
  void* graph_ = nullptr;  // cudaGraph_t
  void* exec_ = nullptr;   // cudaGraphExec_t
  bool keep_graph_;
  bool capturing_ = false;
  bool capture_ended_ = false;  // the pool is held (released by reset)
  uintptr_t capture_stream_ = 0;
  int device_ = -1;
  unsigned long long capture_id_ = 0;
  GraphPoolId pool_{0, 0};
};

}  // namespace mt
