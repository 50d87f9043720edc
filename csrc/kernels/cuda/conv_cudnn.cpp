// Convolution through cuDNN 9: forward, backward data, backward filter, as execution plans of its graph
// (backend) API, built once per (shapes, strides, alignments, dtype, params, flags, device) and cached, as
// PyTorch does. Each call then only binds its pointers and workspace (a variant pack) and executes. cuDNN 9's
// legacy entry points (cudnnConvolutionForward and kin) rebuild an operation graph and its engine configs on
// every call and for every workspace query, several times PyTorch's host time per forward with the same
// kernels (benchmarks/README.md has the measurement). The legacy path stays as the fallback for
// a configuration no engine finalizes, and behind MINITORCH_CUDNN_LEGACY=1 for comparison. Engines:
// benchmark=False takes cuDNN's heuristic order (mode A, then its fallback list); benchmark=True times the
// usable ones on the actual buffers. deterministic=True drops engines with the nondeterministic note; float32
// without TF32 drops tensor-core and down-converting engines. Workspaces come from the caching allocator on
// the current stream, so nothing synchronizes.
#if defined(MINITORCH_WITH_CUDA) && defined(MINITORCH_WITH_CUDNN)
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda/CUDAContext.h"
#include "cuda/CUDNNUtils.h"
#include "cuda/Exceptions.h"
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
// cores but no down-conversion, so float32 with it runs without TF32 even where TF32 is allowed.
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
  static constexpr cudnnBackendDescriptorType_t op = CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR;
  static constexpr cudnnBackendAttributeName_t a_alpha = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                                               a_beta = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
                                               a_conv = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                               a_x = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                                               a_w = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                                               a_y = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y;
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
  static constexpr cudnnBackendDescriptorType_t op =
      CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR;
  static constexpr cudnnBackendAttributeName_t a_alpha = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
                                               a_beta = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
                                               a_conv = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
                                               a_x = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                                               a_w = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                                               a_y = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY;
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
  static constexpr cudnnBackendDescriptorType_t op =
      CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR;
  static constexpr cudnnBackendAttributeName_t a_alpha = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
                                               a_beta = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
                                               a_conv = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
                                               a_x = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                                               a_w = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                                               a_y = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY;
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
void run_conv_legacy(const Tensor& x, const Tensor& w, const Tensor& y, const ConvArgs& a) {
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

// ---- the graph API: one execution plan per configuration, built once

// A backend descriptor owned for its life. The checks throw; building a plan catches them and falls back.
struct Desc {
  cudnnBackendDescriptor_t d = nullptr;
  explicit Desc(cudnnBackendDescriptorType_t type) { MT_CUDNN_CHECK(cudnnBackendCreateDescriptor(type, &d)); }
  ~Desc() {
    if (d) cudnnBackendDestroyDescriptor(d);
  }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t n, const void* v) {
    MT_CUDNN_CHECK(cudnnBackendSetAttribute(d, name, type, n, v));
  }
  void set(cudnnBackendAttributeName_t name, const Desc& other) {
    set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &other.d);
  }
};
using DescPtr = std::unique_ptr<Desc>;

// The tensors' ids in every graph and variant pack.
constexpr int64_t kUidX = 1, kUidW = 2, kUidY = 3;

// Pointer alignment in bytes, up to 16: engines pick vector widths from it, so it is part of the key (a
// contiguous slice of a batch can start anywhere).
int64_t alignment(const Tensor& t) {
  auto p = reinterpret_cast<uintptr_t>(t.data_ptr());
  int64_t a = 16;
  while (a > 1 && p % a) a /= 2;
  return a;
}

DescPtr tensor_desc(const Tensor& t, int64_t uid) {
  auto d = std::make_unique<Desc>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  cudnnDataType_t type = cudnn_data_type(t.dtype());
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end()), strides(sizes.size(), 1);
  for (size_t i = sizes.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * sizes[i];  // packed: contiguous
  int64_t align = alignment(t);
  d->set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
  d->set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, static_cast<int64_t>(sizes.size()), sizes.data());
  d->set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, static_cast<int64_t>(strides.size()), strides.data());
  d->set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  d->set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
  MT_CUDNN_CHECK(cudnnBackendFinalize(d->d));
  return d;
}

// The engine notes that rule an engine config out under the flags: nondeterminism when deterministic is set;
// tensor cores or down-conversion for float32 without TF32 (PyTorch filters the same notes); and engines that
// compile at run time (seconds at the first call).
bool usable(const Desc& cfg, ScalarType dt, const CudnnFlags& f) {
  Desc engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  int64_t n = 0;
  if (cudnnBackendGetAttribute(cfg.d, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                               &engine.d) != CUDNN_STATUS_SUCCESS)
    return false;
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  n = 0;
  if (cudnnBackendGetAttribute(engine.d, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                               CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes) != CUDNN_STATUS_SUCCESS)
    return false;
  for (int64_t i = 0; i < n; ++i) {
    if (f.deterministic && notes[i] == CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC) return false;
    if (dt == ScalarType::Float && !f.allow_tf32 &&
        (notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE ||
         notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS))
      return false;
  }
  cudnnBackendBehaviorNote_t behavior[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
  n = 0;
  if (cudnnBackendGetAttribute(engine.d, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                               CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &n, behavior) == CUDNN_STATUS_SUCCESS)
    for (int64_t i = 0; i < n; ++i)
      if (behavior[i] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) return false;
  return true;
}

// The engine configs cuDNN's heuristics propose for a graph in one mode, best first.
std::vector<DescPtr> engine_configs(const Desc& graph, cudnnBackendHeurMode_t mode) {
  Desc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heur.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
  heur.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  int64_t count = 0;
  if (cudnnBackendFinalize(heur.d) != CUDNN_STATUS_SUCCESS ||
      cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                               &count, nullptr) != CUDNN_STATUS_SUCCESS ||
      count <= 0)
    return {};
  std::vector<DescPtr> cfgs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < count; ++i) {
    cfgs.push_back(std::make_unique<Desc>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    raw.push_back(cfgs.back()->d);
  }
  int64_t got = 0;
  if (cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                               &got, raw.data()) != CUDNN_STATUS_SUCCESS)
    return {};
  cfgs.resize(static_cast<size_t>(std::min(got, count)));
  return cfgs;
}

// A finalized plan, what it was built from (kept alive with it), and its workspace.
struct Plan {
  std::vector<DescPtr> parts;
  DescPtr plan;
  int64_t workspace = 0;
};

// Binds the three buffers and the workspace and runs the plan on the handle's (current) stream.
void execute(cudnnHandle_t handle, const Desc& plan, void* x, void* w, void* y, void* ws) {
  Desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  void* ptrs[3] = {x, w, y};
  int64_t uids[3] = {kUidX, kUidW, kUidY};
  pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
  pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
  pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
  MT_CUDNN_CHECK(cudnnBackendFinalize(pack.d));
  MT_CUDNN_CHECK(cudnnBackendExecute(handle, plan.d, pack.d));
}

// Milliseconds one run of a plan takes on these buffers (the best of two, after one to warm up). The events
// are released also when a run throws (the caller skips that engine).
float time_plan(cudnnHandle_t handle, const Desc& plan, void* x, void* w, void* y, void* ws,
                cudaStream_t stream) {
  struct Events {
    cudaEvent_t start = nullptr, stop = nullptr;
    ~Events() {
      if (start) cudaEventDestroy(start);
      if (stop) cudaEventDestroy(stop);
    }
  } ev;
  MT_CUDA_CHECK(cudaEventCreate(&ev.start));
  MT_CUDA_CHECK(cudaEventCreate(&ev.stop));
  float best = -1.f;
  for (int i = 0; i < 3; ++i) {
    MT_CUDA_CHECK(cudaEventRecord(ev.start, stream));
    execute(handle, plan, x, w, y, ws);
    MT_CUDA_CHECK(cudaEventRecord(ev.stop, stream));
    MT_CUDA_CHECK(cudaEventSynchronize(ev.stop));
    float ms = 0.f;
    MT_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    if (i > 0 && (best < 0.f || ms < best)) best = ms;
  }
  return best;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // the HANDLE attributes: still the 9.x way
// The plan for direction D on these tensors, or nullptr when no engine finalizes one (then the legacy API
// runs). benchmark=False: the first usable config of heuristic mode A, then of the fallback list. True: every
// usable config (up to 16) is finalized and timed on the actual buffers, the fastest kept.
template <typename D>
std::shared_ptr<Plan> build_plan(const Tensor& x, const Tensor& w, const Tensor& y, const ConvArgs& a,
                                 const CudnnFlags& f, cudnnHandle_t handle) {
  auto p = std::make_shared<Plan>();
  ScalarType dt = x.dtype();
  bool dbl = dt == ScalarType::Double;
  p->parts.push_back(tensor_desc(x, kUidX));
  p->parts.push_back(tensor_desc(w, kUidW));
  p->parts.push_back(tensor_desc(y, kUidY));
  auto conv = std::make_unique<Desc>(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  cudnnDataType_t comp = dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  int64_t dims = 2, pad[2], stride[2], dil[2];
  for (int i = 0; i < 2; ++i) pad[i] = a.padding[i], stride[i] = a.stride[i], dil[i] = a.dilation[i];
  conv->set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
  conv->set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  conv->set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
  conv->set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
  conv->set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
  conv->set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride);
  conv->set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil);
  MT_CUDNN_CHECK(cudnnBackendFinalize(conv->d));
  auto op = std::make_unique<Desc>(D::op);
  op->set(D::a_x, *p->parts[0]);
  op->set(D::a_w, *p->parts[1]);
  op->set(D::a_y, *p->parts[2]);
  op->set(D::a_conv, *conv);
  double alpha_d = 1.0, beta_d = 0.0;
  float alpha_f = 1.f, beta_f = 0.f;
  op->set(D::a_alpha, dbl ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT, 1,
          dbl ? static_cast<const void*>(&alpha_d) : &alpha_f);
  op->set(D::a_beta, dbl ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT, 1,
          dbl ? static_cast<const void*>(&beta_d) : &beta_f);
  MT_CUDNN_CHECK(cudnnBackendFinalize(op->d));
  auto graph = std::make_unique<Desc>(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph->set(CUDNN_ATTR_OPERATIONGRAPH_OPS, *op);
  graph->set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  MT_CUDNN_CHECK(cudnnBackendFinalize(graph->d));

  std::vector<std::pair<DescPtr, DescPtr>> candidates;  // (engine config, finalized plan)
  size_t want = f.benchmark ? 16 : 1;
  for (cudnnBackendHeurMode_t hm : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    for (auto& cfg : engine_configs(*graph, hm)) {
      if (candidates.size() >= want) break;
      if (!usable(*cfg, dt, f)) continue;
      auto plan = std::make_unique<Desc>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      plan->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
      plan->set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, *cfg);
      if (cudnnBackendFinalize(plan->d) != CUDNN_STATUS_SUCCESS) continue;
      candidates.emplace_back(std::move(cfg), std::move(plan));
    }
  }
  if (candidates.empty()) return nullptr;
  auto workspace_of = [](const Desc& plan) {
    int64_t bytes = 0, n = 0;
    MT_CUDNN_CHECK(cudnnBackendGetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                            CUDNN_TYPE_INT64, 1, &n, &bytes));
    return bytes;
  };
  size_t best = 0;
  if (candidates.size() > 1) {  // benchmark: time each on the actual buffers
    int64_t max_ws = 0;
    for (auto& c : candidates) max_ws = std::max(max_ws, workspace_of(*c.second));
    size_t limit = 0;
    Tensor ws = search_workspace(static_cast<size_t>(max_ws), x.device(), limit);
    float best_ms = -1.f;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (static_cast<size_t>(workspace_of(*candidates[i].second)) > limit) continue;
      float ms = -1.f;
      try {
        ms = time_plan(handle, *candidates[i].second, x.data_ptr(), w.data_ptr(), y.data_ptr(), ptr(ws),
                       current_stream());
      } catch (const Error&) {
        ms = -1.f;  // an engine that fails to launch here is not a candidate
      }
      if (ms >= 0.f && (best_ms < 0.f || ms < best_ms)) best_ms = ms, best = i;
    }
    if (best_ms < 0.f) return nullptr;
  }
  p->workspace = workspace_of(*candidates[best].second);
  p->plan = std::move(candidates[best].second);
  p->parts.push_back(std::move(conv));
  p->parts.push_back(std::move(op));
  p->parts.push_back(std::move(graph));
  p->parts.push_back(std::move(candidates[best].first));
  return p;
}
#pragma GCC diagnostic pop

std::mutex g_plan_mutex;
// key -> plan; nullptr records a configuration no engine finalizes (the legacy API runs it). Plans live for
// the process, as PyTorch's: they are small and a training run reuses a handful of shapes; past kMaxPlans
// (PyTorch's default LRU limit) the cache starts over, so endlessly varying shapes cannot grow it without
// bound. Never destroyed: at exit, cuDNN's own teardown may already have run.
constexpr size_t kMaxPlans = 10000;
auto& g_plans = *new std::map<std::vector<int64_t>, std::shared_ptr<Plan>>();

bool legacy_only() {
  static const bool legacy = [] {
    const char* v = std::getenv("MINITORCH_CUDNN_LEGACY");
    return v && v[0] == '1';
  }();
  return legacy;
}

// One convolution in direction D over x (input), w (weight), y (output) or their gradients.
template <typename D>
void run_conv(const Tensor& x, const Tensor& w, const Tensor& y, const ConvArgs& a) {
  if (legacy_only() || !x.is_contiguous() || !w.is_contiguous() || !y.is_contiguous())
    return run_conv_legacy<D>(x, w, y, a);
  DeviceGuard guard(x.device());
  cudnnHandle_t handle = cudnn_handle(x.device().index);
  CudnnFlags f = cudnn_flags();
  auto key = cache_key(D::kind, x, w, y, a, f);
  for (const Tensor* t : {&x, &w, &y}) key.push_back(alignment(*t));
  std::shared_ptr<Plan> plan;
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(g_plan_mutex);
    auto it = g_plans.find(key);
    if (it != g_plans.end()) known = true, plan = it->second;
  }
  if (!known) {
    try {
      plan = build_plan<D>(x, w, y, a, f, handle);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::OutOfMemory) throw;
      plan = nullptr;  // a descriptor cuDNN refused: the legacy API takes this configuration
    }
    std::lock_guard<std::mutex> lock(g_plan_mutex);
    if (g_plans.size() >= kMaxPlans) g_plans.clear();  // plans in use are shared_ptrs: they stay alive
    g_plans[key] = plan;
  }
  if (!plan) return run_conv_legacy<D>(x, w, y, a);
  Tensor ws = workspace(static_cast<size_t>(plan->workspace), x.device());
  try {
    execute(handle, *plan->plan, x.data_ptr(), w.data_ptr(), y.data_ptr(), ptr(ws));
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::OutOfMemory) throw;
    {  // a plan that finalized but will not run here: the legacy API from now on (it rewrites all of y)
      std::lock_guard<std::mutex> lock(g_plan_mutex);
      g_plans[key] = nullptr;
    }
    run_conv_legacy<D>(x, w, y, a);
  }
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
