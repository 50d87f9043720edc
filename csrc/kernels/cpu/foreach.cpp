// CPU multi-tensor kernels: every tensor of a call is cut into fixed chunks and one parallel loop walks all
// chunks of all tensors, so a step over many small parameters costs one dispatch, not one per tensor.
#include "ops/foreach.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/Parallel.h"
#include "kernels/cpu/Loops.h"
#include "kernels/foreach_functors.h"

namespace mt {
namespace {

// Elements per chunk: big enough to amortize the chunk bookkeeping, small enough to balance threads.
constexpr int64_t kChunk = 1 << 15;

struct Chunk {
  int32_t tensor;
  int64_t start, len;
};

std::vector<Chunk> make_chunks(const TensorList& ts, int64_t& total) {
  std::vector<Chunk> chunks;
  total = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const int64_t n = ts[i].numel();
    total += n;
    for (int64_t s = 0; s < n; s += kChunk)
      chunks.push_back(Chunk{static_cast<int32_t>(i), s, std::min(kChunk, n - s)});
  }
  return chunks;
}

void run_chunks(size_t nchunks, int64_t total, const std::function<void(int64_t, int64_t)>& body) {
  if (total < kGrainSize || nchunks < 2)
    body(0, static_cast<int64_t>(nchunks));
  else
    parallel_for(0, static_cast<int64_t>(nchunks), 1, body);
}

// One chunk of one tensor: every list's elements loaded as opmath, the functor applied, outputs stored.
// grad_scale (optimizers under GradScaler): list 1, the grads, divided by it and stored back first.
// Without grad_scale, through dense_for_ivdep: element j of every list is read and written at index j only
// (a list may be another one, as addcmul_(t, t)), which the compiler cannot prove from the pointers, so the
// plain loop stayed scalar (addcmul_ of 65536 floats ran at 0.6 of PyTorch's speed).
template <typename scalar_t, typename F>
void apply_chunk(const F& f, scalar_t* const* ptrs, int64_t len, const float* grad_scale) {
  using T = opmath_t<scalar_t>;
  constexpr int D = F::kDepth;
  if (!grad_scale) {
    struct Ptrs {
      scalar_t* p[D];
    } q;
    for (int k = 0; k < D; ++k) q.p[k] = ptrs[k];
    const F fn = f;
    return dense_for_ivdep(len, [=](int64_t j) {
      T v[D];
      for (int k = 0; k < D; ++k) v[k] = static_cast<T>(q.p[k][j]);
      fn(v);
      for (int k = 0; k < D; ++k)
        if (F::kOut & (1u << k)) q.p[k][j] = static_cast<scalar_t>(v[k]);
    });
  }
  for (int64_t j = 0; j < len; ++j) {
    T v[D];
    for (int k = 0; k < D; ++k) v[k] = static_cast<T>(ptrs[k][j]);
    if constexpr (D >= 2) {
      if (grad_scale) {
        v[1] = v[1] / static_cast<T>(*grad_scale);
        ptrs[1][j] = static_cast<scalar_t>(v[1]);
      }
    }
    f(v);
    for (int k = 0; k < D; ++k)
      if (F::kOut & (1u << k)) ptrs[k][j] = static_cast<scalar_t>(v[k]);
  }
}

template <typename scalar_t, typename F>
void cpu_multi_tensor_apply(const std::vector<TensorList>& lists, const TensorList& slots, const F& f,
                            const ForeachArgs& args) {
  constexpr int D = F::kDepth;
  if (args.skip_if && *args.skip_if != 0.0f) return;  // GradScaler found inf/nan: the step is skipped
  MT_INTERNAL_ASSERT(static_cast<int>(lists.size()) == D, "foreach: ", lists.size(), " lists for depth ", D);
  int64_t total = 0;
  const std::vector<Chunk> chunks = make_chunks(lists[0], total);
  run_chunks(chunks.size(), total, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const Chunk& ch = chunks[c];
      scalar_t* ptrs[D];
      for (int k = 0; k < D; ++k) ptrs[k] = lists[k][ch.tensor].template data<scalar_t>() + ch.start;
      const float step = slots.empty() ? 0.0f : *slots[ch.tensor].data<float>();
      apply_chunk<scalar_t>(foreach_fn::with_step(f, step), ptrs, ch.len, args.grad_scale);
    }
  });
}

void foreach_cpu(const std::vector<TensorList>& lists, const TensorList& slots, const ForeachArgs& args) {
  MT_DISPATCH_FLOATING_TYPES(lists[0][0].dtype(), "foreach_cpu", [&] {
    foreach_fn::visit<opmath_t<scalar_t>>(
        args, [&](const auto& f) { cpu_multi_tensor_apply<scalar_t>(lists, slots, f, args); });
  });
}

// One chunk's |x| sum (kind 0), sum of squares (1) or max |x| (2; NaN wins). Independent lanes let the
// compiler vectorize (a single accumulator is a chain of dependent additions: 6x slower than NumPy); lanes
// accumulate in opmath (float for float32/half/bfloat16: a chunk is only 32K elements) and fold in double.
template <int kKind, typename scalar_t>
double chunk_norm(const scalar_t* p, int64_t len) {
  using acc_t = opmath_t<scalar_t>;
  constexpr int L = 32;
  acc_t lanes[L] = {};
  auto fold = [](acc_t acc, acc_t x) {
    const acc_t a = std::abs(x);
    if constexpr (kKind == 0) return acc + a;
    if constexpr (kKind == 1) return acc + x * x;
    return (a > acc || a != a) ? a : acc;  // acc stays NaN once NaN: NaN > a and a != a are false
  };
  int64_t j = 0;
  for (; j + L <= len; j += L)
    for (int l = 0; l < L; ++l) lanes[l] = fold(lanes[l], static_cast<acc_t>(p[j + l]));
  for (; j < len; ++j) lanes[0] = fold(lanes[0], static_cast<acc_t>(p[j]));
  double acc = lanes[0];
  for (int l = 1; l < L; ++l) {
    const double v = lanes[l];
    if constexpr (kKind == 2)
      acc = (acc != acc || v != v) ? (acc != acc ? acc : v) : std::max(acc, v);
    else
      acc += v;
  }
  return acc;
}

// Partial results per chunk (folded in double), then one pass per
// tensor folds its chunks in order, so the result does not depend on the thread count.
void foreach_norm_cpu(const TensorList& outs, const TensorList& in, double ord) {
  int64_t total = 0;
  const std::vector<Chunk> chunks = make_chunks(in, total);
  std::vector<double> partial(chunks.size());
  const bool is_inf = std::isinf(ord);
  MT_DISPATCH_FLOATING_TYPES(in[0].dtype(), "foreach_norm_cpu", [&] {
    run_chunks(chunks.size(), total, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const Chunk& ch = chunks[c];
        const scalar_t* p = in[ch.tensor].data<scalar_t>() + ch.start;
        partial[c] = is_inf     ? chunk_norm<2>(p, ch.len)
                     : ord == 1 ? chunk_norm<0>(p, ch.len)
                                : chunk_norm<1>(p, ch.len);
      }
    });
    std::vector<double> per(in.size(), 0.0);
    for (size_t c = 0; c < chunks.size(); ++c) {
      double& r = per[chunks[c].tensor];
      const double v = partial[c];
      if (!is_inf)
        r += v;
      else if (r == r && (v != v || v > r))
        r = v;
    }
    for (size_t i = 0; i < in.size(); ++i) {
      const double r = ord == 2 ? std::sqrt(per[i]) : per[i];
      *outs[i].data<scalar_t>() = static_cast<scalar_t>(r);
    }
  });
}

// PyTorch's rule: on inf/nan back off and restart the count; after growth_interval clean steps, grow
// (unless the grown scale would be inf).
void amp_update_scale_cpu(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                          double growth_factor, double backoff_factor, int64_t growth_interval) {
  float* s = scale.data<float>();
  int32_t* tracker = growth_tracker.data<int32_t>();
  if (*found_inf.data<float>() != 0.0f) {
    *s = *s * static_cast<float>(backoff_factor);
    *tracker = 0;
    return;
  }
  const int32_t successful = *tracker + 1;
  if (successful == growth_interval) {
    const float grown = *s * static_cast<float>(growth_factor);
    if (std::isfinite(grown)) *s = grown;
    *tracker = 0;
  } else {
    *tracker = successful;
  }
}

}  // namespace

MT_REGISTER_KERNEL(foreach_stub, CPU, &foreach_cpu);
MT_REGISTER_KERNEL(foreach_norm_stub, CPU, &foreach_norm_cpu);
MT_REGISTER_KERNEL(amp_update_scale_stub, CPU, &amp_update_scale_cpu);

}  // namespace mt
