// CPU convolution kernels: oneDNN's (float, when built with it and backends.mkldnn.enabled, where it measured
// faster), else im2col (col2im for the input gradient) and GEMM (oneDNN's sgemm or OpenBLAS), per image and
// group; a 1x1 stride-1 unpadded conv is a GEMM on the input itself. float/double native, half/bfloat16 in
// float.
#include "ops/conv.h"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/Parallel.h"
#include "kernels/cpu/BlasGemm.h"
#include "kernels/cpu/ParallelRows.h"
#include "kernels/cpu/onednn_threads.h"
#include "ops/copy.h"

#ifdef MINITORCH_WITH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>

#include "kernels/cpu/onednn_common.h"
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif
#endif

namespace mt {
namespace {

using cpu_blas::gemm;
using cpu_blas::SingleThreadedBlas;

// Geometry of one conv: per image C x H x W in, O x oH x oW out, weight O x C/g x kH x kW.
struct Geo {
  int64_t C, H, W, O, oH, oW, kH, kW, sH, sW, pH, pW, dH, dW, g;
  int64_t Cg() const { return C / g; }
  int64_t Og() const { return O / g; }
  int64_t K() const { return Cg() * kH * kW; }  // rows of a group's columns
  int64_t L() const { return oH * oW; }         // columns: output positions
  bool direct() const {                         // columns == input: no copy needed
    return kH == 1 && kW == 1 && sH == 1 && sW == 1 && pH == 0 && pW == 0;
  }
};

Geo geometry(const Tensor& in, const Tensor& out, const Tensor& w, const ConvArgs& a) {
  return {in.sizes()[1],  in.sizes()[2], in.sizes()[3], out.sizes()[1], out.sizes()[2],
          out.sizes()[3], w.sizes()[2],  w.sizes()[3],  a.stride[0],    a.stride[1],
          a.padding[0],   a.padding[1],  a.dilation[0], a.dilation[1],  a.groups};
}

#ifdef MINITORCH_WITH_ONEDNN
// ---- oneDNN. Its direct kernels want blocked layouts (nChw16c) and beat oneDNN's own im2col + GEMM on plain
// NCHW, so each call reorders NCHW into the layout the primitive picks and back (PyTorch does the same).
// Plans (primitive descriptors, primitives, reorders) are cached per shape: building one costs a JIT
// compile.
namespace onednn {
using dnnl::memory;
using Dims = memory::dims;

enum Kind : int64_t { kForward, kBackwardData, kBackwardWeights };

using onednn_common::engine;
using onednn_common::user_scratchpad;

// One primitive and the layouts around it. Arguments: a and b read, c written; each has the caller's plain
// layout (user_*) and the primitive's (*_desc), with a reorder between them when they differ.
// Plans are shared by every Python thread (the cache below), and oneDNN allows a primitive to run in another
// thread than the one that made it, or in two threads at once, only with the scratchpad in user mode and a
// buffer per execution: the library's own scratchpad holds, e.g., the thread barrier of the reduction in
// backward-weights, and two threads sharing it spun there forever (four threads training conv nets hung).
// Each call passes its thread's buffer (scratch() slot 3).
struct Plan {
  dnnl::primitive prim;
  int arg_a, arg_b, arg_c;
  memory::desc user_a, user_b, user_c, a_desc, b_desc, c_desc, scratch_desc;
  std::optional<dnnl::reorder> ra, rb, rc;
};

using Key = std::array<int64_t, 19>;
using KeyHash = onednn_common::KeyHash<19>;

// Reorders between plain and blocked layouts need no scratchpad; user mode keeps them off the library's
// shared one all the same (a reorder that asked for one would fail to build, and the conv falls back to
// im2col).
std::optional<dnnl::reorder> reorder_if(const memory::desc& from, const memory::desc& to) {
  if (from == to) return std::nullopt;
  auto pd = dnnl::reorder::primitive_desc(engine(), from, engine(), to, user_scratchpad());
  if (pd.scratchpad_desc().get_size() != 0) throw dnnl::error(dnnl_unimplemented, "reorder with scratchpad");
  return dnnl::reorder(pd);
}

std::shared_ptr<Plan> make_plan(Kind kind, const Geo& g, int64_t N) {
  using tag = memory::format_tag;
  using dt = memory::data_type;
  auto pad_r = [](int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d) {
    // the padding that makes oneDNN's size rule (floor division) give `out`: symmetric where it does (as
    // PyTorch's), else exactly what the last window needs (a transposed conv's output_padding)
    int64_t ext = (k - 1) * d + 1;
    if ((in + 2 * p - ext) >= 0 && (in + 2 * p - ext) / s + 1 == out) return p;
    return (out - 1) * s + ext - in - p;
  };
  Dims src{N, g.C, g.H, g.W}, dst{N, g.O, g.oH, g.oW}, st{g.sH, g.sW}, dil{g.dH - 1, g.dW - 1},
      pl{g.pH, g.pW}, pr{pad_r(g.H, g.oH, g.kH, g.sH, g.pH, g.dH), pad_r(g.W, g.oW, g.kW, g.sW, g.pW, g.dW)};
  Dims wei = g.g == 1 ? Dims{g.O, g.C, g.kH, g.kW} : Dims{g.g, g.Og(), g.Cg(), g.kH, g.kW};
  tag wtag = g.g == 1 ? tag::oihw : tag::goihw;
  memory::desc src_any(src, dt::f32, tag::any), wei_any(wei, dt::f32, tag::any),
      dst_any(dst, dt::f32, tag::any);
  memory::desc src_u(src, dt::f32, tag::nchw), wei_u(wei, dt::f32, wtag), dst_u(dst, dt::f32, tag::nchw);
  auto alg = dnnl::algorithm::convolution_direct;
  const dnnl::primitive_attr attr = user_scratchpad();
  auto fwd = dnnl::convolution_forward::primitive_desc(engine(), dnnl::prop_kind::forward_training, alg,
                                                       src_any, wei_any, dst_any, st, dil, pl, pr, attr);
  auto p = std::make_shared<Plan>();
  if (kind == kForward) {
    p->prim = dnnl::convolution_forward(fwd);
    p->arg_a = DNNL_ARG_SRC, p->arg_b = DNNL_ARG_WEIGHTS, p->arg_c = DNNL_ARG_DST;
    p->user_a = src_u, p->user_b = wei_u, p->user_c = dst_u;
    p->a_desc = fwd.src_desc(), p->b_desc = fwd.weights_desc(), p->c_desc = fwd.dst_desc();
    p->scratch_desc = fwd.scratchpad_desc();
  } else if (kind == kBackwardData) {
    auto pd = dnnl::convolution_backward_data::primitive_desc(engine(), alg, src_any, wei_any, dst_any, st,
                                                              dil, pl, pr, fwd, attr);
    p->prim = dnnl::convolution_backward_data(pd);
    p->arg_a = DNNL_ARG_DIFF_DST, p->arg_b = DNNL_ARG_WEIGHTS, p->arg_c = DNNL_ARG_DIFF_SRC;
    p->user_a = dst_u, p->user_b = wei_u, p->user_c = src_u;
    p->a_desc = pd.diff_dst_desc(), p->b_desc = pd.weights_desc(), p->c_desc = pd.diff_src_desc();
    p->scratch_desc = pd.scratchpad_desc();
  } else {
    auto pd = dnnl::convolution_backward_weights::primitive_desc(engine(), alg, src_any, wei_any, dst_any, st,
                                                                 dil, pl, pr, fwd, attr);
    p->prim = dnnl::convolution_backward_weights(pd);
    p->arg_a = DNNL_ARG_DIFF_DST, p->arg_b = DNNL_ARG_SRC, p->arg_c = DNNL_ARG_DIFF_WEIGHTS;
    p->user_a = dst_u, p->user_b = src_u, p->user_c = wei_u;
    p->a_desc = pd.diff_dst_desc(), p->b_desc = pd.src_desc(), p->c_desc = pd.diff_weights_desc();
    p->scratch_desc = pd.scratchpad_desc();
  }
  p->ra = reorder_if(p->user_a, p->a_desc);
  p->rb = reorder_if(p->user_b, p->b_desc);
  p->rc = reorder_if(p->c_desc, p->user_c);
  return p;
}

// The plan for this shape and thread count (a primitive is built for the threads it will run on). A small
// cache, emptied when full: a training loop uses a handful of shapes.
std::shared_ptr<Plan> plan(Kind kind, const Geo& g, int64_t N, int threads) {
  static std::mutex mu;
  static std::unordered_map<Key, std::shared_ptr<Plan>, KeyHash> cache;
  Key k{kind, N,    g.C,  g.H,  g.W,  g.O,  g.oH, g.oW,    g.kH, g.kW,
        g.sH, g.sW, g.pH, g.pW, g.dH, g.dW, g.g,  threads, 0};
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(k);
    if (it != cache.end()) return it->second;
  }
  auto p = make_plan(kind, g, N);
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 256) cache.clear();
  cache.emplace(k, p);
  return p;
}

// The blocked copies live in per-thread buffers that only grow: fresh ones cost a page fault per 4 KiB each
// call (measured: the 100 MB output of ResNet's stem at batch 32 took longer to fault in than to compute).
// Past kMaxScratch a copy gets its own allocation, freed after the call.
constexpr size_t kMaxScratch = size_t(1) << 30;
memory scratch(int slot, const memory::desc& d) {
  struct Buf {
    void* p = nullptr;
    size_t n = 0;
    ~Buf() { std::free(p); }
  };
  thread_local Buf bufs[4];
  size_t bytes = d.get_size();
  if (bytes > kMaxScratch) return memory(d, engine());
  Buf& b = bufs[slot];
  if (b.n < bytes) {
    std::free(b.p);
    b.n = (bytes + 4095) / 4096 * 4096;
    b.p = std::aligned_alloc(4096, b.n);
    if (!b.p) throw std::bad_alloc();
  }
  return memory(d, engine(), b.p);
}

// Runs the plan on the caller's plain float buffers; false when oneDNN cannot take this conv (the caller
// falls back to im2col).
bool run(Kind kind, const Geo& g, int64_t N, const float* a, const float* b, float* c) try {
  std::shared_ptr<Plan> p = plan(kind, g, N, onednn_sync_threads());
  dnnl::stream s(engine());
  auto in = [&](int slot, const memory::desc& user, const memory::desc& want,
                const std::optional<dnnl::reorder>& r, const float* ptr) {
    memory m(user, engine(), const_cast<float*>(ptr));
    if (!r) return m;
    memory out = scratch(slot, want);
    r->execute(s, m, out);
    return out;
  };
  memory ma = in(0, p->user_a, p->a_desc, p->ra, a), mb = in(1, p->user_b, p->b_desc, p->rb, b);
  memory uc(p->user_c, engine(), c);
  memory mc = p->rc ? scratch(2, p->c_desc) : uc;
  if (p->scratch_desc.get_size() != 0)
    p->prim.execute(
        s,
        {{p->arg_a, ma}, {p->arg_b, mb}, {p->arg_c, mc}, {DNNL_ARG_SCRATCHPAD, scratch(3, p->scratch_desc)}});
  else
    p->prim.execute(s, {{p->arg_a, ma}, {p->arg_b, mb}, {p->arg_c, mc}});
  if (p->rc) p->rc->execute(s, mc, uc);
  s.wait();
  return true;
} catch (const dnnl::error&) {
  return false;
}

// Where im2col + GEMM beat oneDNN's conv (at one thread, bench_conv_cpu.py; the timings are in
// benchmarks/README.md): 1x1 convs, a GEMM on the input itself or on a subsampled copy, where oneDNN pays for
// its reorders; the input gradient of a conv with 1-3 input channels; and the forward of a conv with 1-3
// input channels and few outputs (LeNet's 5x5 1->6, CIFAR's 3x3 3->32; with 64 outputs, as ResNet's stem,
// oneDNN wins).
bool wins(int kind, const Geo& g) {
  if (g.kH == 1 && g.kW == 1 && g.pH == 0 && g.pW == 0) return false;
  if (kind == 1 && g.g == 1 && g.C < 4) return false;
  if (kind == 0 && g.g == 1 && g.C < 4 && g.O <= 32) return false;
  return true;
}

}  // namespace onednn
#endif

std::atomic<bool> g_onednn_enabled{true};

// oneDNN takes float convs when built with it and enabled (half/bfloat16 arrive here as float copies).
template <typename T>
bool try_onednn(int kind, const Geo& g, int64_t N, const T* a, const T* b, T* c) {
#ifdef MINITORCH_WITH_ONEDNN
  if constexpr (std::is_same_v<T, float>)
    if (g_onednn_enabled.load() && onednn::wins(kind, g))
      return onednn::run(onednn::Kind(kind), g, N, a, b, c);
#endif
  return false;
}

// Channels [c0, c1) of one image into columns: row (c, kh, kw), column (oh, ow); zeros where the window is in
// the padding.
template <typename T>
void im2col(const T* in, T* col, const Geo& g, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        T* row = col + ((c * g.kH + kh) * g.kW + kw) * g.L();
        const T* plane = in + c * g.H * g.W;
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          int64_t ih = oh * g.sH - g.pH + kh * g.dH;
          T* r = row + oh * g.oW;
          if (ih < 0 || ih >= g.H) {
            std::fill(r, r + g.oW, T(0));
            continue;
          }
          const T* src = plane + ih * g.W;
          int64_t off = kw * g.dW - g.pW;
          if (g.sW == 1) {
            // valid ow: 0 <= ow + off < W
            int64_t lo = std::clamp<int64_t>(-off, 0, g.oW), hi = std::clamp<int64_t>(g.W - off, lo, g.oW);
            std::fill(r, r + lo, T(0));
            std::memcpy(r + lo, src + lo + off, sizeof(T) * (hi - lo));
            std::fill(r + hi, r + g.oW, T(0));
          } else {
            for (int64_t ow = 0; ow < g.oW; ++ow) {
              int64_t iw = ow * g.sW + off;
              r[ow] = (iw >= 0 && iw < g.W) ? src[iw] : T(0);
            }
          }
        }
      }
}

// The adjoint: columns summed back into channels [c0, c1) of one image (which the caller zeroed).
template <typename T>
void col2im(const T* col, T* in, const Geo& g, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        const T* row = col + ((c * g.kH + kh) * g.kW + kw) * g.L();
        T* plane = in + c * g.H * g.W;
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          int64_t ih = oh * g.sH - g.pH + kh * g.dH;
          if (ih < 0 || ih >= g.H) continue;
          const T* r = row + oh * g.oW;
          T* dst = plane + ih * g.W;
          int64_t off = kw * g.dW - g.pW;
          for (int64_t ow = 0; ow < g.oW; ++ow) {
            int64_t iw = ow * g.sW + off;
            if (iw >= 0 && iw < g.W) dst[iw] += r[ow];
          }
        }
      }
}

// Channel-parallel im2col/col2im when the caller is not already inside a parallel region.
template <typename F>
void over_channels(int64_t C, int64_t per_channel, F&& f) {
  if (in_parallel_region() || C * per_channel < kGrainSize)
    f(0, C);
  else
    parallel_for(0, C, grain_for(per_channel), f);
}

// Images go to separate threads, each with its own columns and a single-threaded GEMM (as PyTorch's CPU
// conv): one fork/join per batch instead of two per image (im2col, then OpenBLAS's own threads), which on a
// busy machine cost a scheduler slice each (measured 17x slower under load). Fewer images than threads run
// in turn with OpenBLAS threaded.
template <typename F>
void over_images(int64_t N, F&& f) {
  if (N > 1 && N >= get_num_threads() && !in_parallel_region()) {
    SingleThreadedBlas one;
    parallel_for(0, N, 1, f);
  } else {
    f(0, N);
  }
}

template <typename T>
void forward(const Tensor& out, const Tensor& input, const Tensor& weight, const ConvArgs& a) {
  Geo g = geometry(input, out, weight, a);
  int64_t N = input.sizes()[0];
  const T* in = input.data<T>();
  const T* w = weight.data<T>();
  T* o = out.data<T>();
  if (try_onednn<T>(0, g, N, in, w, o)) return;
  over_images(N, [&](int64_t n0, int64_t n1) {
    std::vector<T> col(g.direct() ? 0 : static_cast<size_t>(g.C * g.kH * g.kW * g.L()));
    for (int64_t n = n0; n < n1; ++n) {
      const T* x = in + n * g.C * g.H * g.W;
      const T* cols = x;
      if (!g.direct()) {
        over_channels(g.C, g.kH * g.kW * g.L(),
                      [&](int64_t c0, int64_t c1) { im2col(x, col.data(), g, c0, c1); });
        cols = col.data();
      }
      for (int64_t gi = 0; gi < g.g; ++gi)
        gemm<T>(false, false, g.Og(), g.L(), g.K(), T(1), w + gi * g.Og() * g.K(), g.K(),
                cols + gi * g.K() * g.L(), g.L(), T(0), o + (n * g.O + gi * g.Og()) * g.L(), g.L());
    }
  });
}

template <typename T>
void backward_input(const Tensor& grad_in, const Tensor& grad_out, const Tensor& weight, const ConvArgs& a) {
  Geo g = geometry(grad_in, grad_out, weight, a);
  int64_t N = grad_in.sizes()[0];
  const T* go = grad_out.data<T>();
  const T* w = weight.data<T>();
  T* gi_ = grad_in.data<T>();
  if (try_onednn<T>(1, g, N, go, w, gi_)) return;
  over_images(N, [&](int64_t n0, int64_t n1) {
    std::vector<T> col(g.direct() ? 0 : static_cast<size_t>(g.C * g.kH * g.kW * g.L()));
    for (int64_t n = n0; n < n1; ++n) {
      T* dx = gi_ + n * g.C * g.H * g.W;
      // columns = W_g^T @ grad_out_g; for a direct conv the columns are the input gradient itself
      T* cols = g.direct() ? dx : col.data();
      for (int64_t gi = 0; gi < g.g; ++gi)
        gemm<T>(true, false, g.K(), g.L(), g.Og(), T(1), w + gi * g.Og() * g.K(), g.K(),
                go + (n * g.O + gi * g.Og()) * g.L(), g.L(), T(0), cols + gi * g.K() * g.L(), g.L());
      if (!g.direct()) {
        std::fill(dx, dx + g.C * g.H * g.W, T(0));
        over_channels(g.C, g.kH * g.kW * g.L(),
                      [&](int64_t c0, int64_t c1) { col2im(col.data(), dx, g, c0, c1); });
      }
    }
  });
}

template <typename T>
void backward_weight(const Tensor& grad_w, const Tensor& grad_out, const Tensor& input, const ConvArgs& a) {
  Geo g = geometry(input, grad_out, grad_w, a);
  int64_t N = input.sizes()[0];
  const T* in = input.data<T>();
  const T* go = grad_out.data<T>();
  T* gw = grad_w.data<T>();
  if (try_onednn<T>(2, g, N, go, in, gw)) return;
  int64_t wn = g.O * g.K();
  std::fill(gw, gw + wn, T(0));
  std::mutex mu;
  // grad_w_g += grad_out_g @ columns_g^T, over the images; threads sum into their own buffer, then into gw
  over_images(N, [&](int64_t n0, int64_t n1) {
    bool whole = n0 == 0 && n1 == N;
    std::vector<T> local(whole ? 0 : static_cast<size_t>(wn), T(0));
    T* acc = whole ? gw : local.data();
    std::vector<T> col(g.direct() ? 0 : static_cast<size_t>(g.C * g.kH * g.kW * g.L()));
    for (int64_t n = n0; n < n1; ++n) {
      const T* x = in + n * g.C * g.H * g.W;
      const T* cols = x;
      if (!g.direct()) {
        over_channels(g.C, g.kH * g.kW * g.L(),
                      [&](int64_t c0, int64_t c1) { im2col(x, col.data(), g, c0, c1); });
        cols = col.data();
      }
      for (int64_t gi = 0; gi < g.g; ++gi)
        gemm<T>(false, true, g.Og(), g.K(), g.L(), T(1), go + (n * g.O + gi * g.Og()) * g.L(), g.L(),
                cols + gi * g.K() * g.L(), g.L(), T(1), acc + gi * g.Og() * g.K(), g.K());
    }
    if (!whole) {
      std::lock_guard<std::mutex> lock(mu);
      for (int64_t i = 0; i < wn; ++i) gw[i] += local[i];
    }
  });
}

// The one dtype switch of the three entry points: float and double run their own instantiation; half and
// bfloat16 run the float kernel on float copies, rounded once into the output (opmath). `kernel` is called as
// kernel(T{}, out, a, b, args) so one generic lambda names the template to instantiate.
template <typename Kernel>
void by_dtype(const Tensor& out, const Tensor& a, const Tensor& b, const ConvArgs& args, Kernel kernel) {
  switch (out.dtype()) {
    case ScalarType::Float:
      return kernel(float{}, out, a, b, args);
    case ScalarType::Double:
      return kernel(double{}, out, a, b, args);
    default: {
      Tensor of = make_empty(out.sizes(), ScalarType::Float, out.device());
      kernel(float{}, of, contiguous(to(a, ScalarType::Float, a.device())),
             contiguous(to(b, ScalarType::Float, b.device())), args);
      copy_(out, of);
    }
  }
}

void conv_forward_cpu(const Tensor& out, const Tensor& input, const Tensor& weight, const ConvArgs& a) {
  by_dtype(out, input, weight, a, [](auto t, const auto&... xs) { forward<decltype(t)>(xs...); });
}
void conv_backward_input_cpu(const Tensor& gi, const Tensor& go, const Tensor& weight, const ConvArgs& a) {
  by_dtype(gi, go, weight, a, [](auto t, const auto&... xs) { backward_input<decltype(t)>(xs...); });
}
void conv_backward_weight_cpu(const Tensor& gw, const Tensor& go, const Tensor& input, const ConvArgs& a) {
  by_dtype(gw, go, input, a, [](auto t, const auto&... xs) { backward_weight<decltype(t)>(xs...); });
}

}  // namespace

#ifdef MINITORCH_WITH_ONEDNN
namespace {
// After fork, the parent's OpenMP threads do not exist in the child and libgomp would wait for them in its
// next parallel region (the hang core/Parallel.cpp avoids by not using OpenMP): a forked child runs oneDNN on
// one thread, which never enters a parallel region (PyTorch sets one thread in forked workers too).
std::atomic<bool> g_forked{false};
void mark_forked() {
  g_forked = true;
}
}  // namespace

int onednn_sync_threads(int most) {
  static bool registered = (pthread_atfork(nullptr, nullptr, mark_forked), true);
  (void)registered;
  int n = (g_forked.load() || in_parallel_region()) ? 1 : std::min(get_num_threads(), std::max(most, 1));
  // Our pool's workers may still be spinning after the last op: on 2 cores they would take a core from
  // oneDNN's OpenMP threads for their whole spin.
  if (n > 1) parallel_yield_cores();
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  if (omp_get_max_threads() != n) omp_set_num_threads(n);  // per calling thread (an OpenMP ICV)
#endif
  return n;
}
#endif

bool onednn_conv_available() {
#ifdef MINITORCH_WITH_ONEDNN
  return true;
#else
  return false;
#endif
}
bool onednn_conv_enabled() {
  return g_onednn_enabled.load();
}
void set_onednn_conv_enabled(bool on) {
  g_onednn_enabled.store(on);
}

MT_REGISTER_KERNEL(conv_forward_stub, CPU, &conv_forward_cpu);
MT_REGISTER_KERNEL(conv_backward_input_stub, CPU, &conv_backward_input_cpu);
MT_REGISTER_KERNEL(conv_backward_weight_stub, CPU, &conv_backward_weight_cpu);

}  // namespace mt
