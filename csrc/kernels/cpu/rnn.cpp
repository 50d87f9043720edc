// CPU kernel of the fused recurrent layers (_cudnn_rnn's stubs): oneDNN's LSTM primitive, float32, as
// PyTorch's CPU LSTM (mkldnn_rnn_layer). The per-step Python recurrence paid ~12 recorded ops a step; oneDNN
// runs the whole sequence of a layer in one call (forward_training keeps its workspace for lstm_backward).
// Layers run one primitive each (directions together, bidirectional_concat): oneDNN's multi-layer form needs
// every layer's input width equal to its output width. Builds without oneDNN register nothing (the Python
// recurrence runs).
#include "ops/rnn.h"

#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "kernels/cpu/onednn_threads.h"

#ifdef MINITORCH_WITH_ONEDNN
#include "kernels/cpu/onednn_common.h"

namespace mt {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using Dims = memory::dims;
constexpr auto f32 = memory::data_type::f32;

using onednn_common::engine;
using onednn_common::user_scratchpad;

// A weight reorder; its scratchpad (if it wants one) is the call's own too.
struct Reorder {
  dnnl::reorder prim;
  memory::desc scratch;
  void run(dnnl::stream& s, const memory& from, const memory& to) const {
    std::unordered_map<int, memory> args{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    if (scratch.get_size()) args.emplace(DNNL_ARG_SCRATCHPAD, memory(scratch, engine()));
    prim.execute(s, args);
  }
};

std::optional<Reorder> reorder_if(const memory::desc& from, const memory::desc& to) {
  if (from == to) return std::nullopt;
  auto pd = dnnl::reorder::primitive_desc(engine(), from, engine(), to, user_scratchpad());
  return Reorder{dnnl::reorder(pd), pd.scratchpad_desc()};
}

enum Kind : int64_t { kInference, kTraining, kBackward };

// One layer (both directions): T steps, N rows, `in` input features, H hidden. The caller's weights are
// PyTorch's [4H, in] per direction, i.e. oneDNN's ldgoi with the same gate order (i, f, g, o: oneDNN's
// vanilla_lstm gates are i, f, c~, o); the primitive picks its own weight layout (`any`) and the plan
// reorders into it and, for the gradients, back.
struct Plan {
  dnnl::primitive prim;
  memory::desc wl, wi, dwl, dwi, ws, scratch;  // the primitive's layouts
  memory::desc user_wl, user_wi;               // ldgoi
  std::optional<Reorder> r_wl, r_wi, r_dwl, r_dwi;
};

struct Geo {
  int64_t T, N, in, H, D;
};

// The memory descriptors of one layer's LSTM (weights in whatever layout the primitive picks)
struct Descs {
  memory::desc src, dst, st, wl, wi, b;
  dnnl::rnn_direction dir;
  explicit Descs(const Geo& g)
      : src(Dims{g.T, g.N, g.in}, f32, tag::tnc),
        dst(Dims{g.T, g.N, g.D * g.H}, f32, tag::tnc),
        st(Dims{1, g.D, g.N, g.H}, f32, tag::ldnc),
        wl(Dims{1, g.D, g.in, 4, g.H}, f32, tag::any),
        wi(Dims{1, g.D, g.H, 4, g.H}, f32, tag::any),
        b(Dims{1, g.D, 4, g.H}, f32, tag::ldgo),
        dir(g.D == 2 ? dnnl::rnn_direction::bidirectional_concat
                     : dnnl::rnn_direction::unidirectional_left2right) {}
};

dnnl::lstm_forward::primitive_desc forward_pd(const Descs& d, bool training) {
  return dnnl::lstm_forward::primitive_desc(
      engine(), training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference, d.dir,
      d.src, d.st, d.st, d.wl, d.wi, d.b, d.dst, d.st, d.st, user_scratchpad());
}

std::shared_ptr<Plan> make_plan(Kind kind, const Geo& g) {
  auto p = std::make_shared<Plan>();
  p->user_wl = memory::desc(Dims{1, g.D, g.in, 4, g.H}, f32, tag::ldgoi);
  p->user_wi = memory::desc(Dims{1, g.D, g.H, 4, g.H}, f32, tag::ldgoi);
  const Descs d(g);
  auto fwd = forward_pd(d, kind != kInference);
  if (kind != kBackward) {
    p->prim = dnnl::lstm_forward(fwd);
    p->wl = fwd.weights_layer_desc(), p->wi = fwd.weights_iter_desc();
    p->ws = fwd.workspace_desc(), p->scratch = fwd.scratchpad_desc();
  } else {
    auto bwd = dnnl::lstm_backward::primitive_desc(
        engine(), dnnl::prop_kind::backward, d.dir, d.src, d.st, d.st, d.wl, d.wi, d.b, d.dst, d.st, d.st,
        d.src, d.st, d.st, d.wl, d.wi, d.b, d.dst, d.st, d.st, fwd, user_scratchpad());
    p->prim = dnnl::lstm_backward(bwd);
    p->wl = bwd.weights_layer_desc(), p->wi = bwd.weights_iter_desc();
    p->dwl = bwd.diff_weights_layer_desc(), p->dwi = bwd.diff_weights_iter_desc();
    p->ws = bwd.workspace_desc(), p->scratch = bwd.scratchpad_desc();
    p->r_dwl = reorder_if(p->dwl, p->user_wl);
    p->r_dwi = reorder_if(p->dwi, p->user_wi);
  }
  p->r_wl = reorder_if(p->user_wl, p->wl);
  p->r_wi = reorder_if(p->user_wi, p->wi);
  return p;
}

using Key = std::array<int64_t, 7>;
using KeyHash = onednn_common::KeyHash<7>;

// The plan for this layer and thread count (a primitive is built for the threads it runs on; building one
// JIT-compiles). A small cache, emptied when full.
std::shared_ptr<Plan> plan(Kind kind, const Geo& g, int threads) {
  static std::mutex mu;
  static std::unordered_map<Key, std::shared_ptr<Plan>, KeyHash> cache;
  Key k{kind, g.T, g.N, g.in, g.H, g.D, threads};
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(k);
    if (it != cache.end()) return it->second;
  }
  auto p = make_plan(kind, g);
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 256) cache.clear();
  cache.emplace(k, p);
  return p;
}

// oneDNN 3.2 runs each step's recurrent GEMM and gate loop in OpenMP regions of their own: below about 64K
// multiply-adds a step (N x H by H x 4H; H=16 with a few rows, the benchmark's T=4096 case) a step is shorter
// than the barriers around it, and on a busy machine every barrier waits for a preempted thread (T=256 H=16
// took 327 ms at two threads against 0.17 ms at one, PyTorch's build 1.2 ms). Such recurrences run on one
// thread.
int rnn_threads(const RnnArgs& a, int64_t N) {
  const int64_t macs = N * a.hidden_size * 4 * a.hidden_size;
  return onednn_sync_threads(macs < (int64_t(1) << 16) ? 1 : 1 << 30);
}

size_t align64(size_t n) {
  return (n + 63) / 64 * 64;
}

// The forward's reserve, per layer: oneDNN's workspace, then the layer's output (all but the last layer: the
// next layer's input, which backward reads again), its final h and c (backward's dst_iter arguments).
struct ReserveLayout {
  std::vector<size_t> ws, y, hy, cy;
  size_t bytes = 0;
};

ReserveLayout reserve_layout(const RnnArgs& a, int64_t T, int64_t N, int threads) {
  ReserveLayout r;
  const int64_t D = a.num_directions(), H = a.hidden_size;
  for (int64_t l = 0; l < a.num_layers; ++l) {
    Geo g{T, N, l == 0 ? a.input_size : D * H, H, D};
    auto p = plan(kTraining, g, threads);
    r.ws.push_back(r.bytes);
    r.bytes += align64(p->ws.get_size());
    r.y.push_back(r.bytes);
    if (l + 1 < a.num_layers) r.bytes += align64(static_cast<size_t>(T * N * D * H) * sizeof(float));
    r.hy.push_back(r.bytes);
    r.bytes += align64(static_cast<size_t>(D * N * H) * sizeof(float));
    r.cy.push_back(r.bytes);
    r.bytes += align64(static_cast<size_t>(D * N * H) * sizeof(float));
  }
  return r;
}

const float* fptr(const Tensor& t) {
  return static_cast<const float*>(t.data_ptr());
}
float* fptr_mut(const Tensor& t) {
  return static_cast<float*>(t.data_ptr());
}

// One layer's weights as oneDNN wants them: the directions' [4H, in] matrices side by side (ldgoi), reordered
// into the primitive's layout; the bias b_ih + b_hh per direction (ldgo), zeros without bias.
struct LayerWeights {
  std::vector<float> wl_user, wi_user, bias;
  memory wl, wi;
};

LayerWeights layer_weights(const RnnArgs& a, const std::vector<Tensor>& weights, int64_t l, const Plan& p,
                           dnnl::stream& s) {
  const int64_t D = a.num_directions(), G = 4 * a.hidden_size;
  const size_t per = a.has_bias ? 4 : 2;
  LayerWeights w;
  auto gather = [&](int which, std::vector<float>& buf) {
    for (int64_t d = 0; d < D; ++d) {
      const Tensor& t = weights[static_cast<size_t>(l * D + d) * per + which];
      const float* src = fptr(t);
      buf.insert(buf.end(), src, src + t.numel());
    }
  };
  gather(0, w.wl_user);
  gather(1, w.wi_user);
  w.bias.assign(static_cast<size_t>(D * G), 0.f);
  if (a.has_bias) {
    for (int64_t d = 0; d < D; ++d) {
      const float* bi = fptr(weights[static_cast<size_t>(l * D + d) * per + 2]);
      const float* bh = fptr(weights[static_cast<size_t>(l * D + d) * per + 3]);
      for (int64_t k = 0; k < G; ++k) w.bias[static_cast<size_t>(d * G + k)] = bi[k] + bh[k];
    }
  }
  auto place = [&](const memory::desc& user, const memory::desc& want, const std::optional<Reorder>& r,
                   std::vector<float>& buf) {
    memory m(user, engine(), buf.data());
    if (!r) return m;
    memory out(want, engine());
    r->run(s, m, out);
    return out;
  };
  w.wl = place(p.user_wl, p.wl, p.r_wl, w.wl_user);
  w.wi = place(p.user_wi, p.wi, p.r_wi, w.wi_user);
  return w;
}

memory scratchpad(const Plan& p) {
  return memory(p.scratch, engine());
}

void cudnn_rnn_forward_cpu(const RnnArgs& a, const Tensor& x, const std::vector<Tensor>& weights,
                           const Tensor& hx, const Tensor& cx, bool training, const Tensor& y,
                           const Tensor& hy, const Tensor& cy, Tensor& reserve) {
  MT_CHECK_NOT_IMPLEMENTED(a.mode == RnnMode::lstm && x.dtype() == ScalarType::Float,
                           "_cudnn_rnn on the CPU: only float32 LSTM has a fused kernel (oneDNN's)");
  const int64_t T = x.size(0), N = x.size(1), D = a.num_directions(), H = a.hidden_size, L = a.num_layers;
  const int threads = rnn_threads(a, N);
  ReserveLayout rl;
  if (training) {
    rl = reserve_layout(a, T, N, threads);
    reserve = make_empty({static_cast<int64_t>(rl.bytes)}, ScalarType::Byte, x.device());
  }
  auto* res = training ? static_cast<char*>(reserve.data_ptr()) : nullptr;
  const size_t state = static_cast<size_t>(D * N * H);
  std::vector<float> ping, pong;  // inference: the layers between the first and the last
  try {
    dnnl::stream s(engine());
    const float* in = fptr(x);
    for (int64_t l = 0; l < L; ++l) {
      Geo g{T, N, l == 0 ? a.input_size : D * H, H, D};
      auto p = plan(training ? kTraining : kInference, g, threads);
      LayerWeights w = layer_weights(a, weights, l, *p, s);
      float* out;
      if (l + 1 == L) {
        out = fptr_mut(y);
      } else if (training) {
        out = reinterpret_cast<float*>(res + rl.y[static_cast<size_t>(l)]);
      } else {
        std::vector<float>& buf = l % 2 ? pong : ping;
        buf.resize(static_cast<size_t>(T * N * D * H));
        out = buf.data();
      }
      const Dims iter{1, D, N, H};
      memory::desc st(iter, f32, tag::ldnc);
      float* h_out = fptr_mut(hy) + l * state;
      float* c_out = fptr_mut(cy) + l * state;
      std::unordered_map<int, memory> args{
          {DNNL_ARG_SRC_LAYER, memory({Dims{T, N, g.in}, f32, tag::tnc}, engine(), const_cast<float*>(in))},
          {DNNL_ARG_SRC_ITER, memory(st, engine(), const_cast<float*>(fptr(hx) + l * state))},
          {DNNL_ARG_SRC_ITER_C, memory(st, engine(), const_cast<float*>(fptr(cx) + l * state))},
          {DNNL_ARG_WEIGHTS_LAYER, w.wl},
          {DNNL_ARG_WEIGHTS_ITER, w.wi},
          {DNNL_ARG_BIAS, memory({Dims{1, D, 4, H}, f32, tag::ldgo}, engine(), w.bias.data())},
          {DNNL_ARG_DST_LAYER, memory({Dims{T, N, D * H}, f32, tag::tnc}, engine(), out)},
          {DNNL_ARG_DST_ITER, memory(st, engine(), h_out)},
          {DNNL_ARG_DST_ITER_C, memory(st, engine(), c_out)},
      };
      if (training)
        args.emplace(DNNL_ARG_WORKSPACE, memory(p->ws, engine(), res + rl.ws[static_cast<size_t>(l)]));
      if (p->scratch.get_size()) args.emplace(DNNL_ARG_SCRATCHPAD, scratchpad(*p));
      p->prim.execute(s, args);
      s.wait();
      if (training) {
        std::memcpy(res + rl.hy[static_cast<size_t>(l)], h_out, state * sizeof(float));
        std::memcpy(res + rl.cy[static_cast<size_t>(l)], c_out, state * sizeof(float));
      }
      in = out;
    }
  } catch (const dnnl::error& e) {
    MT_ERROR("_cudnn_rnn: oneDNN's LSTM failed: ", e.what());
  }
}

// Layers last to first: the input gradient of layer l is the output gradient of layer l - 1. oneDNN
// accumulates into the weight gradients, which start at zero; the saved reserve is only read (a second
// backward through the graph sees what the first did).
void cudnn_rnn_backward_cpu(const RnnArgs& a, const Tensor& x, const std::vector<Tensor>& weights,
                            const Tensor& hx, const Tensor& cx, const Tensor& y, const Tensor& reserve,
                            const Tensor& dy, const Tensor& dhy, const Tensor& dcy, const Tensor& dx,
                            const Tensor& dhx, const Tensor& dcx, const std::vector<Tensor>& dweights) {
  MT_CHECK_NOT_IMPLEMENTED(a.mode == RnnMode::lstm && x.dtype() == ScalarType::Float,
                           "_cudnn_rnn on the CPU: only float32 LSTM has a fused kernel (oneDNN's)");
  const int64_t T = x.size(0), N = x.size(1), D = a.num_directions(), H = a.hidden_size, L = a.num_layers;
  const int threads = rnn_threads(a, N);
  ReserveLayout rl = reserve_layout(a, T, N, threads);
  MT_CHECK(static_cast<size_t>(reserve.numel()) == rl.bytes,
           "oneDNN LSTM backward: the reserve does not match this forward (", reserve.numel(),
           " bytes, expected ", rl.bytes, ")");
  auto* res = static_cast<char*>(reserve.data_ptr());
  const size_t state = static_cast<size_t>(D * N * H), per = a.has_bias ? 4 : 2;
  const int64_t G = 4 * H;
  std::vector<float> dlayer[2];  // gradient of a layer's output, written by the layer above
  try {
    dnnl::stream s(engine());
    const float* d_out = fptr(dy);
    for (int64_t l = L - 1; l >= 0; --l) {
      Geo g{T, N, l == 0 ? a.input_size : D * H, H, D};
      auto p = plan(kBackward, g, threads);
      LayerWeights w = layer_weights(a, weights, l, *p, s);
      const float* src =
          l == 0 ? fptr(x) : reinterpret_cast<const float*>(res + rl.y[static_cast<size_t>(l - 1)]);
      const float* dst =
          l + 1 == L ? fptr(y) : reinterpret_cast<const float*>(res + rl.y[static_cast<size_t>(l)]);
      float* d_in;
      if (l == 0) {
        d_in = fptr_mut(dx);
      } else {
        std::vector<float>& buf = dlayer[l % 2];
        buf.resize(static_cast<size_t>(T * N * D * H));
        d_in = buf.data();
      }
      memory dwl(p->dwl, engine()), dwi(p->dwi, engine());
      std::memset(dwl.get_data_handle(), 0, p->dwl.get_size());
      std::memset(dwi.get_data_handle(), 0, p->dwi.get_size());
      std::vector<float> dbias(static_cast<size_t>(D * G), 0.f);
      const Dims iter{1, D, N, H};
      memory::desc st(iter, f32, tag::ldnc), src_d({T, N, g.in}, f32, tag::tnc),
          dst_d({T, N, D * H}, f32, tag::tnc), bias_d({1, D, 4, H}, f32, tag::ldgo);
      auto m = [&](const memory::desc& d, const void* ptr) {
        return memory(d, engine(), const_cast<void*>(ptr));
      };
      std::unordered_map<int, memory> args{
          {DNNL_ARG_SRC_LAYER, m(src_d, src)},
          {DNNL_ARG_SRC_ITER, m(st, fptr(hx) + l * state)},
          {DNNL_ARG_SRC_ITER_C, m(st, fptr(cx) + l * state)},
          {DNNL_ARG_WEIGHTS_LAYER, w.wl},
          {DNNL_ARG_WEIGHTS_ITER, w.wi},
          {DNNL_ARG_BIAS, m(bias_d, w.bias.data())},
          {DNNL_ARG_DST_LAYER, m(dst_d, dst)},
          {DNNL_ARG_DST_ITER, m(st, res + rl.hy[static_cast<size_t>(l)])},
          {DNNL_ARG_DST_ITER_C, m(st, res + rl.cy[static_cast<size_t>(l)])},
          {DNNL_ARG_DIFF_SRC_LAYER, m(src_d, d_in)},
          {DNNL_ARG_DIFF_SRC_ITER, m(st, fptr(dhx) + l * state)},
          {DNNL_ARG_DIFF_SRC_ITER_C, m(st, fptr(dcx) + l * state)},
          {DNNL_ARG_DIFF_WEIGHTS_LAYER, dwl},
          {DNNL_ARG_DIFF_WEIGHTS_ITER, dwi},
          {DNNL_ARG_DIFF_BIAS, m(bias_d, dbias.data())},
          {DNNL_ARG_DIFF_DST_LAYER, m(dst_d, d_out)},
          {DNNL_ARG_DIFF_DST_ITER, m(st, fptr(dhy) + l * state)},
          {DNNL_ARG_DIFF_DST_ITER_C, m(st, fptr(dcy) + l * state)},
          {DNNL_ARG_WORKSPACE, m(p->ws, res + rl.ws[static_cast<size_t>(l)])},
      };
      if (p->scratch.get_size()) args.emplace(DNNL_ARG_SCRATCHPAD, scratchpad(*p));
      p->prim.execute(s, args);
      // back to PyTorch's layout: ldgoi, the directions one after the other
      std::vector<float> ul(static_cast<size_t>(D * G * g.in)), ui(static_cast<size_t>(D * G * H));
      auto back = [&](const memory& from, const memory::desc& user, const std::optional<Reorder>& r,
                      std::vector<float>& buf) {
        memory to(user, engine(), buf.data());
        if (r)
          r->run(s, from, to);
        else
          std::memcpy(buf.data(), from.get_data_handle(), user.get_size());
      };
      s.wait();
      back(dwl, p->user_wl, p->r_dwl, ul);
      back(dwi, p->user_wi, p->r_dwi, ui);
      s.wait();
      for (int64_t d = 0; d < D; ++d) {
        const Tensor* dw = &dweights[static_cast<size_t>(l * D + d) * per];
        std::memcpy(fptr_mut(dw[0]), ul.data() + d * G * g.in, static_cast<size_t>(G * g.in) * sizeof(float));
        std::memcpy(fptr_mut(dw[1]), ui.data() + d * G * H, static_cast<size_t>(G * H) * sizeof(float));
        if (a.has_bias) {
          std::memcpy(fptr_mut(dw[2]), dbias.data() + d * G, static_cast<size_t>(G) * sizeof(float));
          std::memcpy(fptr_mut(dw[3]), dbias.data() + d * G, static_cast<size_t>(G) * sizeof(float));
        }
      }
      d_out = d_in;
    }
  } catch (const dnnl::error& e) {
    MT_ERROR("_cudnn_rnn backward: oneDNN's LSTM failed: ", e.what());
  }
}

}  // namespace

MT_REGISTER_KERNEL(cudnn_rnn_forward_stub, CPU, &cudnn_rnn_forward_cpu);
MT_REGISTER_KERNEL(cudnn_rnn_backward_stub, CPU, &cudnn_rnn_backward_cpu);

}  // namespace mt
#endif
