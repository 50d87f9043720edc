// Convolution through cuDNN 9 (its legacy convolution API): forward, backward data, backward filter.
// Algorithms: benchmark=False takes cuDNN's heuristic order (Get_v7), benchmark=True times them on the actual
// buffers (Find*Ex); either way the choice is cached per (shapes, dtype, params, flags, device), as PyTorch's
// algorithm cache. deterministic=True keeps only deterministic algorithms; allow_tf32 picks the math type for
// float32. Workspaces come from the caching allocator on the current stream, so nothing synchronizes.
#if defined(MINITORCH_WITH_CUDA) && defined(MINITORCH_WITH_CUDNN)
#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "cuda/CUDAContext.h"
#include "cuda/CUDNNUtils.h"
#include "ops/conv.h"

namespace mt {
namespace cuda {
namespace {

enum class Kind : int { forward, backward_data, backward_filter };

struct Choice {
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

// Benchmark searches get at most this much workspace (the fastest algorithms rarely need more).
constexpr size_t kMaxSearchWorkspace = size_t(1) << 30;

std::mutex g_cache_mutex;
std::map<std::vector<int64_t>, Choice> g_cache;

std::vector<int64_t> cache_key(Kind kind, const Tensor& x, const Tensor& w, const Tensor& y,
                               const ConvArgs& a, const CudnnFlags& f) {
  std::vector<int64_t> k = {static_cast<int64_t>(kind),
                            x.device().index,
                            static_cast<int64_t>(x.dtype()),
                            a.groups,
                            f.benchmark,
                            f.deterministic,
                            f.allow_tf32};
  for (const Tensor* t : {&x, &w, &y})
    for (int64_t s : t->sizes()) k.push_back(s);
  for (int i = 0; i < 2; ++i) {
    k.push_back(a.stride[i]);
    k.push_back(a.padding[i]);
    k.push_back(a.dilation[i]);
  }
  return k;
}

// Math type per dtype, as PyTorch sets it (and as rnn_cudnn.cpp does): tensor cores for half; for float, TF32
// only when allowed. TF32 for float data comes with CUDNN_DEFAULT_MATH: CUDNN_TENSOR_OP_MATH permits tensor
// cores but no down-conversion, so float32 with it ran without TF32 (an H200 run, 2026-11-26: a 128->128 3x3
// forward 4.5x PyTorch's time, ResNet-18 steps slower with TF32 allowed than without).
cudnnMathType_t math_type(ScalarType t, bool allow_tf32) {
  if (t == ScalarType::Half) return CUDNN_TENSOR_OP_MATH;
  if (t == ScalarType::Float && !allow_tf32) return CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}

// The first usable result of a (sorted) perf list: it ran, it fits, and it is deterministic when asked.
template <typename Perf>
Choice pick(const Perf* perf, int n, bool deterministic, size_t max_ws, ScalarType dt, bool allow_tf32) {
  for (int i = 0; i < n; ++i) {
    const Perf& p = perf[i];
    if (p.status != CUDNN_STATUS_SUCCESS || p.memory > max_ws) continue;
    if (deterministic && p.determinism != CUDNN_DETERMINISTIC) continue;
    // without TF32, float32 never runs an algorithm found with tensor-op math
    if (dt == ScalarType::Float && !allow_tf32 && p.mathType == CUDNN_TENSOR_OP_MATH) continue;
    return {static_cast<int>(p.algo), p.mathType};
  }
  MT_ERROR("Unable to find a valid cuDNN algorithm to run convolution",
           deterministic ? " (torch.backends.cudnn.deterministic is set)" : "");
}

// A workspace from the caching allocator; nullptr-sized requests give an undefined tensor.
Tensor workspace(size_t bytes, Device d) {
  if (bytes == 0) return Tensor();
  return make_empty({static_cast<int64_t>(bytes)}, ScalarType::Byte, d);
}

// Search workspace: the largest any candidate wants (capped), less when the allocator cannot give it.
Tensor search_workspace(size_t want, Device d, size_t& got) {
  got = std::min(want, kMaxSearchWorkspace);
  while (true) {
    try {
      return workspace(got, d);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::OutOfMemory || got == 0) throw;
      got /= 4;
      if (got < (size_t(1) << 20)) got = 0;
    }
  }
}

// Everything one cuDNN call needs: device, handle, descriptors, flags, alpha/beta in the compute type.
struct Call {
  DeviceGuard guard;
  cudnnHandle_t handle;
  CudnnFlags flags;
  ScalarType dt;
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
  float alpha_f = 1.f, beta_f = 0.f;
  double alpha_d = 1.0, beta_d = 0.0;

  Call(const Tensor& x_, const Tensor& w_, const Tensor& y_, const ConvArgs& a, const int* pad,
       const int* stride, const int* dil)
      : guard(x_.device()),
        handle(cudnn_handle(x_.device().index)),
        flags(cudnn_flags()),
        dt(x_.dtype()),
        x(x_),
        y(y_),
        w(w_),
        conv(pad, stride, dil, static_cast<int>(a.groups),
             dt == ScalarType::Double ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT,
             math_type(dt, flags.allow_tf32)) {}
  const void* alpha() const {
    return dt == ScalarType::Double ? static_cast<const void*>(&alpha_d) : &alpha_f;
  }
  const void* beta() const { return dt == ScalarType::Double ? static_cast<const void*>(&beta_d) : &beta_f; }
  // the chosen algorithm's math type, except that float32 without TF32 stays on FMA math (as PyTorch)
  void set_math(const Choice& c) {
    cudnnMathType_t m = dt == ScalarType::Float && !flags.allow_tf32 ? CUDNN_FMA_MATH : c.math;
    MT_CUDNN_CHECK(cudnnSetConvolutionMathType(conv.desc, m));
  }
};

struct IntArgs {
  int pad[2], stride[2], dil[2];
  explicit IntArgs(const ConvArgs& a) {
    for (int i = 0; i < 2; ++i) {
      pad[i] = static_cast<int>(a.padding[i]);
      stride[i] = static_cast<int>(a.stride[i]);
      dil[i] = static_cast<int>(a.dilation[i]);
    }
  }
};

bool lookup(const std::vector<int64_t>& key, Choice& c) {
  std::lock_guard<std::mutex> lock(g_cache_mutex);
  auto it = g_cache.find(key);
  if (it == g_cache.end()) return false;
  c = it->second;
  return true;
}
void store(const std::vector<int64_t>& key, const Choice& c) {
  std::lock_guard<std::mutex> lock(g_cache_mutex);
  g_cache[key] = c;
}

template <typename Perf>
size_t max_memory(const Perf* perf, int n) {
  size_t m = 0;
  for (int i = 0; i < n; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS) m = std::max(m, perf[i].memory);
  return m;
}

// cuDNN's entry points of one direction, all called with the (x, w, y) buffers of the Call: in forward y is
// written, in backward data x, in backward filter w. The search and the run below are written once over them;
// the three structs look alike because cuDNN's three APIs do (same steps, other functions and argument
// order).
struct Forward {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  using Algo = cudnnConvolutionFwdAlgo_t;
  static constexpr Kind kind = Kind::forward;
  static constexpr int count = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static void get(const Call& c, int* n, Perf* perf) {
    MT_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(c.handle, c.x.desc, c.w.desc, c.conv.desc, c.y.desc,
                                                          count, n, perf));
  }
  static void find(const Call& c, void* x, void* w, void* y, int* n, Perf* perf, void* ws, size_t ws_bytes) {
    MT_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(c.handle, c.x.desc, x, c.w.desc, w, c.conv.desc,
                                                          c.y.desc, y, count, n, perf, ws, ws_bytes));
  }
  static size_t workspace_size(const Call& c, Algo algo) {
    size_t bytes = 0;
    MT_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(c.handle, c.x.desc, c.w.desc, c.conv.desc,
                                                           c.y.desc, algo, &bytes));
    return bytes;
  }
  static void run(const Call& c, Algo algo, void* x, void* w, void* y, void* ws, size_t ws_bytes) {
    MT_CUDNN_CHECK(cudnnConvolutionForward(c.handle, c.alpha(), c.x.desc, x, c.w.desc, w, c.conv.desc, algo,
                                           ws, ws_bytes, c.beta(), c.y.desc, y));
  }
};

// Forward, BackwardData and BackwardFilter wrap cuDNN's three parallel APIs (get/find/workspace/run) so one
// algorithm search serves all three; they differ in which descriptors each call takes first.
struct BackwardData {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  using Algo = cudnnConvolutionBwdDataAlgo_t;
  static constexpr Kind kind = Kind::backward_data;
  static constexpr int count = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static void get(const Call& c, int* n, Perf* perf) {
    MT_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(c.handle, c.w.desc, c.y.desc, c.conv.desc,
                                                               c.x.desc, count, n, perf));
  }
  static void find(const Call& c, void* x, void* w, void* y, int* n, Perf* perf, void* ws, size_t ws_bytes) {
    MT_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
        c.handle, c.w.desc, w, c.y.desc, y, c.conv.desc, c.x.desc, x, count, n, perf, ws, ws_bytes));
  }
  static size_t workspace_size(const Call& c, Algo algo) {
    size_t bytes = 0;
    MT_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(c.handle, c.w.desc, c.y.desc, c.conv.desc,
                                                                c.x.desc, algo, &bytes));
    return bytes;
  }
  static void run(const Call& c, Algo algo, void* x, void* w, void* y, void* ws, size_t ws_bytes) {
    MT_CUDNN_CHECK(cudnnConvolutionBackwardData(c.handle, c.alpha(), c.w.desc, w, c.y.desc, y, c.conv.desc,
                                                algo, ws, ws_bytes, c.beta(), c.x.desc, x));
  }
};

struct BackwardFilter {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  using Algo = cudnnConvolutionBwdFilterAlgo_t;
  static constexpr Kind kind = Kind::backward_filter;
  static constexpr int count = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static void get(const Call& c, int* n, Perf* perf) {
    MT_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(c.handle, c.x.desc, c.y.desc, c.conv.desc,
                                                                 c.w.desc, count, n, perf));
  }
  static void find(const Call& c, void* x, void* w, void* y, int* n, Perf* perf, void* ws, size_t ws_bytes) {
    MT_CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(
        c.handle, c.x.desc, x, c.y.desc, y, c.conv.desc, c.w.desc, w, count, n, perf, ws, ws_bytes));
  }
  static size_t workspace_size(const Call& c, Algo algo) {
    size_t bytes = 0;
    MT_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(c.handle, c.x.desc, c.y.desc, c.conv.desc,
                                                                  c.w.desc, algo, &bytes));
    return bytes;
  }
  static void run(const Call& c, Algo algo, void* x, void* w, void* y, void* ws, size_t ws_bytes) {
    MT_CUDNN_CHECK(cudnnConvolutionBackwardFilter(c.handle, c.alpha(), c.x.desc, x, c.y.desc, y, c.conv.desc,
                                                  algo, ws, ws_bytes, c.beta(), c.w.desc, w));
  }
};

void* ptr(const Tensor& t) {
  return t.defined() ? t.data_ptr() : nullptr;
}

// One convolution in direction D over x (input), w (weight), y (output) or their gradients: the cached
// algorithm, else cuDNN's heuristic order (benchmark=False) or a timed search on these buffers (True).
template <typename D>
void run_conv(const Tensor& x, const Tensor& w, const Tensor& y, const ConvArgs& a) {
  IntArgs ia(a);
  Call c(x, w, y, a, ia.pad, ia.stride, ia.dil);
  auto key = cache_key(D::kind, x, w, y, a, c.flags);
  Choice ch;
  if (!lookup(key, ch)) {
    typename D::Perf perf[D::count];
    int n = 0;
    D::get(c, &n, perf);
    size_t limit = SIZE_MAX;
    if (c.flags.benchmark) {
      Tensor ws = search_workspace(max_memory(perf, n), x.device(), limit);
      D::find(c, x.data_ptr(), w.data_ptr(), y.data_ptr(), &n, perf, ptr(ws), limit);
    }
    ch = pick(perf, n, c.flags.deterministic, limit, c.dt, c.flags.allow_tf32);
    store(key, ch);
  }
  c.set_math(ch);
  auto algo = static_cast<typename D::Algo>(ch.algo);
  size_t bytes = D::workspace_size(c, algo);
  Tensor ws = workspace(bytes, x.device());
  D::run(c, algo, x.data_ptr(), w.data_ptr(), y.data_ptr(), ptr(ws), bytes);
}

void cudnn_conv_forward_cuda(const Tensor& out, const Tensor& input, const Tensor& weight,
                             const ConvArgs& a) {
  run_conv<Forward>(input, weight, out, a);
}

void cudnn_conv_backward_input_cuda(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                                    const ConvArgs& a) {
  run_conv<BackwardData>(grad_input, weight, grad_out, a);
}

void cudnn_conv_backward_weight_cuda(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                                     const ConvArgs& a) {
  run_conv<BackwardFilter>(input, grad_weight, grad_out, a);
}

}  // namespace
}  // namespace cuda

MT_REGISTER_KERNEL(cudnn_conv_forward_stub, CUDA, &cuda::cudnn_conv_forward_cuda);
MT_REGISTER_KERNEL(cudnn_conv_backward_input_stub, CUDA, &cuda::cudnn_conv_backward_input_cuda);
MT_REGISTER_KERNEL(cudnn_conv_backward_weight_stub, CUDA, &cuda::cudnn_conv_backward_weight_cuda);

}  // namespace mt
#endif
