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
// Random ops inside a capture (PyTorch's graph-safe Philox): while the current stream of `device` captures
// into a CUDAGraph, a random call gets its number inside the graph (0, 1, ...) as its offset and returns
// true, and its kernel adds the graph's device word {seed, offset base}, which each replay sets from the
// device's generator (reserving as many offsets as the graph has calls), so a replay draws what the same
// eager calls would. False when not capturing: draw from the generator as usual. default_generator: false for
// a call given generator=, which a capture refuses.
bool graph_rng_offset(int device, bool default_generator, uint64_t* offset);
// The capturing graph's {seed, offset base} word for kernels on `device`'s current stream, or nullptr.
const uint64_t* graph_rng_state(int device);

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
  // for graph_rng_offset / graph_rng_state
  bool capturing_on(int device, uintptr_t stream) const {
    return capturing_ && device_ == device && capture_stream_ == stream;
  }
  uint64_t take_rng_call() { return rng_calls_++; }
  const uint64_t* rng_state() const { return rng_state_; }

 private:
  void stop_capturing();

  void* graph_ = nullptr;  // cudaGraph_t
  void* exec_ = nullptr;   // cudaGraphExec_t
  bool keep_graph_;
  bool capturing_ = false;
  bool capture_ended_ = false;  // the pool is held (released by reset)
  uintptr_t capture_stream_ = 0;
  int device_ = -1;
  unsigned long long capture_id_ = 0;
  GraphPoolId pool_{0, 0};
  uint64_t* rng_state_ = nullptr;  // device {seed, offset base}, from the caching allocator's general pool
  uint64_t rng_calls_ = 0;         // random calls captured
};

}  // namespace mt
