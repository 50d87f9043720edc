// CUDA kernels of the fused class losses (cross_entropy, nll_loss); layout and formulas in ops/loss.h and
// kernels/cpu/loss.cpp. Forward: one launch. A group of threads per row (one thread per row for nll and for
// inner > 1, where neighbouring threads then read neighbouring samples) computes logsumexp, the picked and
// smoothed terms, and the row's loss; the block sums its rows, and for reductions over several blocks the
// last block to finish adds the blocks' partial sums in block order (deterministic, no second launch).
// Backward: one elementwise launch, softmax * A - a scaled by the incoming gradient.
// A target outside [0, classes) that is not ignore_index makes its row's loss and gradient NaN (raising
// would need a sync); nothing is read out of bounds.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "kernels/cuda/ReduceUtils.cuh"
#include "ops/loss.h"

namespace mt {
namespace {

using namespace cuda_reduce;

template <typename op_t>
struct Pair {
  op_t a, b;
};

template <typename T>
struct LossParams {
  using op_t = opmath_t<T>;
  const T* x;
  const int64_t* ti;  // class indices (nll, ce_index)
  const T* tp;        // probabilities (ce_prob)
  const T* w;         // class weights or null
  T* out;
  op_t* stats;           // rows x (max m, log of s = sum of exp(x - m), A / s) or null
  op_t* total_weight;    // 0-dim or null
  Pair<op_t>* partials;  // one per block when gridDim.x > 1
  unsigned* counter;     // blocks done, zeroed before the launch
  int64_t classes, inner, rows, ignore_index;
  op_t eps;
  ClassLossKind kind;
  Reduction reduction;
};

template <typename T>
__device__ __forceinline__ opmath_t<T> weight_of(const LossParams<T>& p, int64_t c) {
  return p.w ? static_cast<opmath_t<T>>(p.w[c]) : opmath_t<T>(1);
}

// Sum over the whole block, deterministic for a fixed block shape; thread 0 gets the result.
template <typename op_t>
__device__ __forceinline__ Pair<op_t> block_sum(Pair<op_t> v, Pair<op_t>* smem) {
  for (int m = kWarp / 2; m > 0; m /= 2) {
    Pair<op_t> o = shfl_xor(v, m);
    v.a += o.a;
    v.b += o.b;
  }
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int nw = blockDim.x * blockDim.y / kWarp;
  __syncthreads();  // smem may still be read by a group all-reduce
  if (tid % kWarp == 0) smem[tid / kWarp] = v;
  __syncthreads();
  if (tid == 0) {
    v = smem[0];
    for (int i = 1; i < nw; ++i) {
      v.a += smem[i].a;
      v.b += smem[i].b;
    }
  }
  return v;
}

template <typename T>
__global__ void class_loss_forward_kernel(LossParams<T> p) {
  using op_t = opmath_t<T>;
  using lse_t = LseAcc<op_t>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const LseOps<T> ops;
  const int tx = threadIdx.x, bx = blockDim.x;
  const int64_t C = p.classes, inner = p.inner;
  const op_t eps_c = C > 0 ? p.eps / static_cast<op_t>(C) : op_t(0);
  const bool prob = p.kind == ClassLossKind::ce_prob;
  const bool second_pass = prob || (p.kind == ClassLossKind::ce_index && p.eps > op_t(0));
  Pair<op_t> mine{0, 0};  // (loss, weight) summed over this thread's rows (tx == 0 only)
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.y; base < p.rows;
       base += static_cast<int64_t>(gridDim.x) * blockDim.y) {
    const int64_t r = base + threadIdx.y;
    const bool valid = r < p.rows;
    const int64_t off = valid ? (r / inner) * C * inner + r % inner : 0;
    const T* xr = p.x + off;
    int64_t t = 0;
    bool skip = !valid, bad = false;
    op_t wt = 0;
    if (!prob && valid) {
      t = p.ti[r];
      if (t == p.ignore_index)
        skip = true;
      else if (t < 0 || t >= C)
        bad = true;
      else
        wt = weight_of(p, t);
    }
    op_t loss = 0, A = 0, m = 0, ls = 0, acc_s = 1, row_w = 0;
    if (p.kind == ClassLossKind::nll) {
      // one thread per row (bx == 1)
      if (!skip) {
        loss = bad ? op_t(NAN) : -wt * static_cast<op_t>(xr[t * inner]);
        row_w = bad ? op_t(NAN) : wt;
      }
    } else {
      lse_t acc = ops.identity();
      if (valid)
        for (int64_t c = tx; c < C; c += bx) acc = ops.reduce(acc, xr[c * inner], c);
      acc = group_allreduce(
          acc, [&](const lse_t& a, const lse_t& b) { return ops.combine(a, b); },
          reinterpret_cast<lse_t*>(smem_raw));
      // lse - x_c as (m - x_c) + ls, never m + ls, which may round to m (kernels/cpu/loss.cpp)
      m = acc.m;
      acc_s = acc.s;
      ls = d_log(acc.s);
      // (sum of target weights u_c, sum of u_c ((m - x_c) + ls)), term by term as PyTorch's (an infinite
      // target gives inf, not ls * inf's NaN where ls = 0)
      Pair<op_t> s{0, 0};
      if (second_pass) {
        if (valid && !skip)
          for (int64_t c = tx; c < C; c += bx) {
            const op_t xv = static_cast<op_t>(xr[c * inner]);
            op_t wc = weight_of(p, c);
            if (prob) wc *= (op_t(1) - p.eps) * static_cast<op_t>(p.tp[off + c * inner]) + eps_c;
            s.a += wc;
            s.b += wc * ((m - xv) + ls);
          }
        s = group_allreduce(
            s, [](const Pair<op_t>& u, const Pair<op_t>& v) { return Pair<op_t>{u.a + v.a, u.b + v.b}; },
            reinterpret_cast<Pair<op_t>*>(smem_raw));
      }
      if (prob) {
        loss = s.b;
        A = s.a;
        row_w = valid ? op_t(1) : op_t(0);
      } else if (!skip) {
        if (bad) {
          loss = A = row_w = op_t(NAN);
        } else {
          loss = (op_t(1) - p.eps) * wt * ((m - static_cast<op_t>(xr[t * inner])) + ls) + eps_c * s.b;
          A = (op_t(1) - p.eps) * wt + eps_c * s.a;
          row_w = wt;
        }
      }
    }
    if (valid && tx == 0) {
      if (p.stats) {
        p.stats[3 * r] = m;
        p.stats[3 * r + 1] = ls;
        p.stats[3 * r + 2] = A / acc_s;
      }
      if (p.reduction == Reduction::None) p.out[r] = static_cast<T>(loss);
      mine.a += loss;
      mine.b += row_w;
    }
  }
  if (p.reduction == Reduction::None && !p.total_weight) return;
  Pair<op_t> tot = block_sum(mine, reinterpret_cast<Pair<op_t>*>(smem_raw));
  if (threadIdx.x != 0 || threadIdx.y != 0) return;
  if (gridDim.x > 1) {
    p.partials[blockIdx.x] = tot;
    __threadfence();
    if (atomicAdd(p.counter, 1u) != gridDim.x - 1) return;
    // the last block: every other block's partial is visible (fenced before its increment)
    const volatile Pair<op_t>* parts = p.partials;
    tot = Pair<op_t>{0, 0};
    for (unsigned b = 0; b < gridDim.x; ++b) {
      tot.a += parts[b].a;
      tot.b += parts[b].b;
    }
  }
  if (p.total_weight) *p.total_weight = tot.b;
  if (p.reduction == Reduction::Sum) *p.out = static_cast<T>(tot.a);
  if (p.reduction == Reduction::Mean) *p.out = static_cast<T>(tot.a / tot.b);
}

template <typename T>
__global__ void class_loss_backward_kernel(LossParams<T> p, T* __restrict__ gi, T* __restrict__ gt,
                                           const T* __restrict__ grad, int64_t n) {
  using op_t = opmath_t<T>;
  const int64_t C = p.classes, inner = p.inner;
  const op_t eps_c = C > 0 ? p.eps / static_cast<op_t>(C) : op_t(0);
  const bool prob = p.kind == ClassLossKind::ce_prob;
  op_t scale0 = static_cast<op_t>(grad[0]);
  if (p.reduction == Reduction::Mean) scale0 /= *p.total_weight;
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = idx % inner, oc = idx / inner;
    const int64_t c = oc % C, r = (oc / C) * inner + i;
    const op_t scale = p.reduction == Reduction::None ? static_cast<op_t>(grad[r]) : scale0;
    int64_t t = -1;
    bool ignored = false, bad = false;
    if (!prob) {
      t = p.ti[r];
      ignored = t == p.ignore_index;
      bad = !ignored && (t < 0 || t >= C);
    }
    if (p.kind == ClassLossKind::nll || ignored || bad) {
      if (gi)
        gi[idx] = static_cast<T>(bad ? op_t(NAN) : (c == t && !ignored) ? -scale * weight_of(p, t) : op_t(0));
      continue;
    }
    const op_t m = p.stats[3 * r], ls = p.stats[3 * r + 1], a_s = p.stats[3 * r + 2];
    const op_t xv = static_cast<op_t>(p.x[idx]);
    const op_t wc = weight_of(p, c);
    if (gi) {
      op_t a = prob ? wc * ((op_t(1) - p.eps) * static_cast<op_t>(p.tp[idx]) + eps_c)
                    : eps_c * wc + (c == t ? (op_t(1) - p.eps) * weight_of(p, t) : op_t(0));
      gi[idx] = static_cast<T>(scale * (d_exp(xv - m) * a_s - a));
    }
    if (gt) gt[idx] = static_cast<T>(scale * (op_t(1) - p.eps) * wc * ((m - xv) + ls));
  }
}

template <typename T>
LossParams<T> make_params(const Tensor& out, const Tensor& stats, const Tensor& total_weight,
                          const Tensor& input, const Tensor& target, const Tensor& weight,
                          const ClassLossGeometry& g, const ClassLossOptions& opt) {
  using op_t = opmath_t<T>;
  LossParams<T> p{};
  const bool prob = opt.kind == ClassLossKind::ce_prob;
  p.x = input.data<T>();
  p.ti = prob ? nullptr : target.data<int64_t>();
  p.tp = prob ? target.data<T>() : nullptr;
  p.w = weight.defined() ? weight.data<T>() : nullptr;
  p.out = out.defined() ? out.data<T>() : nullptr;
  p.stats = stats.defined() ? stats.data<op_t>() : nullptr;
  p.total_weight = total_weight.defined() ? total_weight.data<op_t>() : nullptr;
  p.classes = g.classes;
  p.inner = g.inner;
  p.rows = g.outer * g.inner;
  p.ignore_index = opt.ignore_index;
  p.eps = static_cast<op_t>(opt.label_smoothing);
  p.kind = opt.kind;
  p.reduction = opt.reduction;
  return p;
}

void class_loss_forward_cuda(const Tensor& out, const Tensor& stats, const Tensor& total_weight,
                             const Tensor& input, const Tensor& target, const Tensor& weight,
                             const ClassLossGeometry& g, const ClassLossOptions& opt) {
  const Device dev = input.device();
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev.index);
  MT_DISPATCH_FLOATING_TYPES(
      input.dtype(), opt.kind == ClassLossKind::nll ? "nll_loss_cuda" : "cross_entropy_cuda", [&] {
        using T = scalar_t;
        using op_t = opmath_t<T>;
        LossParams<T> p = make_params<T>(out, stats, total_weight, input, target, weight, g, opt);
        // a group of threads per row only where the classes are contiguous and there is work along them
        const int bx =
            (opt.kind == ClassLossKind::nll || g.inner > 1) ? 1 : pow2_at_least(ceil_div(g.classes, 4), 512);
        const int by = std::max(1, 256 / bx);
        const int64_t grid =
            std::min<int64_t>(ceil_div(p.rows, by), 4 * static_cast<int64_t>(cuda::sm_count(dev.index)));
        Tensor workspace;
        const bool reduced = opt.reduction != Reduction::None || p.total_weight;
        if (grid > 1 && reduced) {
          // the blocks' partial sums, then the completion counter
          const int64_t bytes = grid * static_cast<int64_t>(sizeof(Pair<op_t>)) + 16;
          workspace = make_empty({bytes}, ScalarType::Byte, dev);
          p.partials = reinterpret_cast<Pair<op_t>*>(workspace.data_ptr());
          p.counter = reinterpret_cast<unsigned*>(static_cast<char*>(workspace.data_ptr()) +
                                                  grid * sizeof(Pair<op_t>));
          MT_CUDA_CHECK(cudaMemsetAsync(p.counter, 0, sizeof(unsigned), stream));
        }
        const size_t smem = static_cast<size_t>(bx * by / kWarp + 1) * sizeof(Pair<op_t>);
        class_loss_forward_kernel<T><<<static_cast<unsigned>(grid), dim3(bx, by), smem, stream>>>(p);
        MT_CUDA_CHECK(cudaGetLastError());
      });
}

void class_loss_backward_cuda(const Tensor& grad_input, const Tensor& grad_target, const Tensor& grad,
                              const Tensor& input, const Tensor& target, const Tensor& weight,
                              const Tensor& stats, const Tensor& total_weight, const ClassLossGeometry& g,
                              const ClassLossOptions& opt) {
  const Device dev = input.device();
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev.index);
  const int64_t n = input.numel();
  if (n == 0) return;
  MT_DISPATCH_FLOATING_TYPES(
      input.dtype(),
      opt.kind == ClassLossKind::nll ? "nll_loss_backward_cuda" : "cross_entropy_backward_cuda", [&] {
        using T = scalar_t;
        LossParams<T> p = make_params<T>(Tensor(), stats, total_weight, input, target, weight, g, opt);
        constexpr int kThreads = 256;
        const int64_t grid = cuda::grid_size(n, kThreads, dev.index);
        class_loss_backward_kernel<T><<<static_cast<unsigned>(grid), kThreads, 0, stream>>>(
            p, grad_input.defined() ? grad_input.data<T>() : nullptr,
            grad_target.defined() ? grad_target.data<T>() : nullptr, grad.data<T>(), n);
        MT_CUDA_CHECK(cudaGetLastError());
      });
}

}  // namespace

MT_REGISTER_KERNEL(class_loss_forward_stub, CUDA, &class_loss_forward_cuda);
MT_REGISTER_KERNEL(class_loss_backward_stub, CUDA, &class_loss_backward_cuda);

}  // namespace mt
