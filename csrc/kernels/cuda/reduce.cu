// CUDA reductions and arg-reductions over the dense outer x row x inner layout of ops/reduce.h.
// One engine serves every op: an Ops struct says how to start, fold one element, merge two partial results
// and write the output. Rows (inner == 1) are reduced by a group of threads per row with 16-byte loads;
// inner > 1 maps threads to the contiguous inner columns. When there are too few outputs to fill the GPU,
// the row is split across blocks (gridDim.y) whose partial results a second, atomics-free pass merges, so a
// full reduction reaches memory bandwidth and the result does not depend on scheduling.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>

#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "kernels/ReduceRules.h"
#include "kernels/cuda/ReduceUtils.cuh"
#include "ops/reduce.h"

namespace mt {
namespace {

using namespace cuda_reduce;

// Sums and products: half/bfloat16 and float accumulate in float (as PyTorch on CUDA), double in double,
// integers and bool in int64.
template <typename T>
using sum_acc_t = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, opmath_t<T>, int64_t>;

// ---- the ops. `reduce` folds one input element (its position in the row is `idx`), `combine` merges two
// partial results (any grouping: the order threads finish in is not fixed), `write` stores output o.

// What a sum-like reduction adds up (norms, nansum) and what it does with the total (mean, norms).
enum class MapKind : int { identity, abs, square, nonzero, pow_abs, nan_zero };
enum class PostKind : int { identity, divide, sqrt, pow };

template <typename T, bool kMapped>
struct SumOps {
  using acc_t = sum_acc_t<T>;
  T* out;
  MapKind map = MapKind::identity;
  PostKind post = PostKind::identity;
  double arg = 0;  // the divisor (mean) or p (norm)
  __device__ __forceinline__ acc_t identity() const { return acc_t(0); }
  __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t) const {
    acc_t v = static_cast<acc_t>(x);
    if constexpr (kMapped) {
      switch (map) {
        case MapKind::abs:
          v = d_abs(v);
          break;
        case MapKind::square:
          v = v * v;
          break;
        case MapKind::nonzero:
          v = v != acc_t(0) ? acc_t(1) : acc_t(0);
          break;
        case MapKind::pow_abs:
          v = d_pow(d_abs(v), static_cast<acc_t>(arg));
          break;
        case MapKind::nan_zero:
          v = v != v ? acc_t(0) : v;
          break;
        default:
          break;
      }
    }
    return a + v;
  }
  __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const { return a + b; }
  __device__ __forceinline__ void write(int64_t o, acc_t a) const {
    if constexpr (std::is_floating_point_v<acc_t>) {
      switch (post) {
        case PostKind::divide:
          a = a / static_cast<acc_t>(arg);
          break;
        case PostKind::sqrt:
          a = d_sqrt(a);
          break;
        case PostKind::pow:
          a = d_pow(a, static_cast<acc_t>(1.0 / arg));
          break;
        default:
          break;
      }
    }
    out[o] = cast_out<T>(a);
  }
};

template <typename T>
struct ProdOps {
  using acc_t = sum_acc_t<T>;
  T* out;
  __device__ __forceinline__ acc_t identity() const { return acc_t(1); }
  __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t) const { return a * static_cast<acc_t>(x); }
  __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const { return a * b; }
  __device__ __forceinline__ void write(int64_t o, acc_t a) const { out[o] = cast_out<T>(a); }
};

// amax/amin (and the inf/-inf norms with kAbs): NaN wins, as in PyTorch.
template <typename T, bool kAbs>
struct ExtremumOps {
  using acc_t = opmath_t<T>;
  T* out;
  bool is_max;
  acc_t init;
  __device__ __forceinline__ acc_t identity() const { return init; }
  __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const {
    return reduce_rules::combine_extremum(a, b, is_max);
  }
  // the branch-free running form: combine's NaN tests as branches per element would leave amax well behind
  // sum, which runs the same loop
  __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t) const {
    acc_t v = static_cast<acc_t>(x);
    if constexpr (kAbs) v = d_abs(v);
    return reduce_rules::accumulate_extremum(a, v, is_max);
  }
  __device__ __forceinline__ void write(int64_t o, acc_t a) const { out[o] = cast_out<T>(a); }
};

// all/any of any dtype into bool or uint8 (both one byte holding 0 or 1).
template <typename T>
struct LogicalOps {
  using acc_t = bool;
  char* out;
  bool is_all;
  __device__ __forceinline__ acc_t identity() const { return is_all; }
  __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const { return is_all ? (a && b) : (a || b); }
  __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t) const {
    return combine(a, static_cast<opmath_t<T>>(x) != opmath_t<T>(0));
  }
  __device__ __forceinline__ void write(int64_t o, acc_t a) const { out[o] = a ? 1 : 0; }
};

// var/std by Welford's update, merged with Chan et al.'s formula: one pass, no E[x^2] - E[x]^2 cancellation.
template <typename op_t>
struct WelfordAcc {
  op_t mean, m2;
  int64_t n;
};

template <typename T>
struct WelfordOps {
  using op_t = opmath_t<T>;
  using acc_t = WelfordAcc<op_t>;
  T* out;
  double correction;
  bool take_sqrt;
  __device__ __forceinline__ acc_t identity() const { return {op_t(0), op_t(0), 0}; }
  __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t) const {
    const op_t v = static_cast<op_t>(x);
    const int64_t n = a.n + 1;
    const op_t d = v - a.mean;
    const op_t mean = a.mean + d / static_cast<op_t>(n);
    return {mean, a.m2 + d * (v - mean), n};
  }
  __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const op_t d = b.mean - a.mean;
    const op_t wb = static_cast<op_t>(b.n) / static_cast<op_t>(n);
    return {a.mean + d * wb, a.m2 + b.m2 + d * d * static_cast<op_t>(a.n) * wb, n};
  }
  __device__ __forceinline__ void write(int64_t o, acc_t a) const {
    op_t r = reduce_rules::var_from_m2(a.m2, a.n, correction);
    if (take_sqrt) r = d_sqrt(r);
    out[o] = cast_out<T>(r);
  }
};

// logsumexp: max + log(sum(exp(x - max))) in one pass; an infinite or NaN max is the answer.
template <typename T>
struct LogSumExpOps : LseOps<T> {
  using typename LseOps<T>::acc_t;
  using typename LseOps<T>::op_t;
  T* out;
  explicit LogSumExpOps(T* o) : out(o) {}
  __device__ __forceinline__ void write(int64_t o, acc_t a) const {
    out[o] = cast_out<T>(d_isfinite(a.m) ? a.m + d_log(a.s) : a.m);
  }
};

// argmax/argmin (and max/min along a dim): the first extremum wins and NaN beats everything. Ties are broken
// by index in combine, so the result does not depend on how threads grouped the elements.
template <typename A>
struct ArgAcc {
  A v;
  int64_t i;
};

template <typename T>
struct ArgOps {
  using op_t = opmath_t<T>;
  using acc_t = ArgAcc<op_t>;
  T* values;  // may be null (argmax/argmin)
  int64_t* indices;
  bool is_max;
  op_t init;
  __device__ __forceinline__ acc_t identity() const { return {init, INT64_MAX}; }
  __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const {
    const acc_t& first = a.i < b.i ? a : b;
    const acc_t& later = a.i < b.i ? b : a;
    return reduce_rules::arg_replaces(first.v, later.v, is_max) ? later : first;
  }
  __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t idx) const {
    return combine(a, acc_t{static_cast<op_t>(x), idx});
  }
  __device__ __forceinline__ void write(int64_t o, acc_t a) const {
    indices[o] = a.i;
    if (values) values[o] = cast_out<T>(a.v);
  }
};

// The second pass: folds the partial results of the split row with the op's own combine.
template <typename Ops>
struct CombineOps {
  using acc_t = typename Ops::acc_t;
  Ops ops;
  __device__ __forceinline__ acc_t identity() const { return ops.identity(); }
  __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const { return ops.combine(a, b); }
  __device__ __forceinline__ acc_t reduce(acc_t a, acc_t x, int64_t) const { return ops.combine(a, x); }
  __device__ __forceinline__ void write(int64_t o, acc_t a) const { ops.write(o, a); }
};

// ---- the kernels

// inner == 1: block (bx, by) reduces `by` rows, bx threads per row. With gridDim.y > 1 the row is split over
// the blocks along y (interleaved, so each split streams the whole row and every block has the same work);
// the result of split s for row r then goes to partial[s * outer + r] instead of the output.
template <typename Ops, typename In, int V>
__global__ void reduce_rows_kernel(Ops ops, const In* __restrict__ in, int64_t outer, int64_t row,
                                   typename Ops::acc_t* partial) {
  using acc_t = typename Ops::acc_t;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  acc_t* smem = reinterpret_cast<acc_t*>(smem_raw);
  const int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.y) + threadIdx.y;
  acc_t acc = ops.identity();
  if (r < outer) {
    const int64_t tid = static_cast<int64_t>(blockIdx.y) * blockDim.x + threadIdx.x;
    acc = thread_reduce<V>(ops, in + r * row, 0, row, tid, static_cast<int64_t>(gridDim.y) * blockDim.x);
  }
  acc = group_allreduce(acc, [&](const acc_t& a, const acc_t& b) { return ops.combine(a, b); }, smem);
  if (threadIdx.x == 0 && r < outer) {
    if (partial)
      partial[blockIdx.y * outer + r] = acc;
    else
      ops.write(r, acc);
  }
}

// inner > 1: thread x of column tile c owns column c * bx + x of outer slice o; the threads along y, and the
// blocks along gridDim.y, share the rows (interleaved), merged through shared memory and, with gridDim.y > 1,
// a second pass over partial[s * outer * inner + column]. Reads are coalesced along the contiguous inner dim.
template <typename Ops, typename In>
__global__ void reduce_cols_kernel(Ops ops, const In* __restrict__ in, int64_t outer, int64_t row,
                                   int64_t inner, int64_t col_blocks, typename Ops::acc_t* partial) {
  using acc_t = typename Ops::acc_t;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  acc_t* smem = reinterpret_cast<acc_t*>(smem_raw);
  const int64_t o = blockIdx.x / col_blocks;
  const int64_t j = (blockIdx.x % col_blocks) * blockDim.x + threadIdx.x;
  acc_t acc = ops.identity();
  if (j < inner) {
    const In* p = in + o * row * inner + j;
    const int64_t step = static_cast<int64_t>(gridDim.y) * blockDim.y;
#pragma unroll 4
    for (int64_t r = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; r < row; r += step)
      acc = ops.reduce(acc, p[r * inner], r);
  }
  acc = column_merge<false>(acc, [&](const acc_t& a, const acc_t& b) { return ops.combine(a, b); }, smem);
  if (threadIdx.y == 0 && j < inner) {
    const int64_t oi = o * inner + j;
    if (partial)
      partial[blockIdx.y * outer * inner + oi] = acc;
    else
      ops.write(oi, acc);
  }
}

template <typename T>
constexpr bool is_scalar_v =
    std::is_arithmetic_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Blocks of `kernel` that fit on the device at once (occupancy x SMs), cached per kernel (the template
// arguments name it) and block size: a split grid of exactly that many blocks runs in one wave, no tail.
template <typename Ops, typename In, bool kRows, typename Kernel>
int64_t resident_blocks(Kernel kernel, int threads, size_t smem, int device) {
  static std::atomic<int> cache[11];  // per log2(threads), 1..1024; 0 = not computed yet
  int slot = 0;
  while ((1 << slot) < threads) ++slot;
  int per_sm = cache[slot].load(std::memory_order_relaxed);
  if (per_sm == 0) {
    MT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    per_sm = std::max(per_sm, 1);
    cache[slot].store(per_sm, std::memory_order_relaxed);
  }
  return static_cast<int64_t>(per_sm) * cuda::sm_count(device);
}

// Launches ops over in (outer x row x inner) on the current stream of `device`. kSplit: a long row may be
// split across blocks when the outputs alone cannot fill the GPU (the second pass itself never splits).
template <bool kSplit, typename Ops, typename In>
void launch_reduce(const Ops& ops, const In* in, int64_t outer, int64_t row, int64_t inner, Device device) {
  using acc_t = typename Ops::acc_t;
  const int64_t nout = outer * inner;
  if (nout == 0) return;
  cudaStream_t stream = cuda::current_stream(device.index);
  constexpr int V = is_scalar_v<In> ? vec_width<In>() : 1;
  int64_t splits = 1;
  Tensor workspace;
  acc_t* partial = nullptr;
  // the partial buffer once the split count is known
  auto alloc_partials = [&] {
    if (splits <= 1) return;
    // stream-ordered caching allocator: freeing it after the second launch is safe on this stream
    workspace = make_empty({static_cast<int64_t>(splits * nout * sizeof(acc_t))}, ScalarType::Byte, device);
    partial = static_cast<acc_t*>(workspace.data_ptr());
  };
  if (inner == 1) {
    // ~2 vectors per thread before a row gets more threads; 512 threads for long rows, fewer when the rows
    // alone fill the GPU twice over (2048 resident threads per SM)
    const auto [bx, by, col_blocks, grid_x, smem] = block_shape<acc_t>(
        outer, row, inner, V, "reduction", int64_t{2} * 2048 * cuda::sm_count(device.index));
    auto kernel = reduce_rows_kernel<Ops, In, V>;
    if constexpr (kSplit) {
      // at least 4 vectors per thread per split, so the partials stay few
      const int64_t max_splits = ceil_div(row, static_cast<int64_t>(bx) * V * 4);
      if (max_splits > 1) {
        const int64_t resident = resident_blocks<Ops, In, true>(kernel, bx * by, smem, device.index);
        if (grid_x < resident) splits = std::min({resident / grid_x, max_splits, int64_t{65535}});
      }
    }
    alloc_partials();
    kernel<<<dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(splits)), dim3(bx, by), smem,
             stream>>>(ops, in, outer, row, partial);
  } else {
    const auto [bx, by, col_blocks, grid_x, smem] = block_shape<acc_t>(outer, row, inner, V, "reduction");
    auto kernel = reduce_cols_kernel<Ops, In>;
    if constexpr (kSplit) {
      // at least 16 rows per thread per split
      const int64_t max_splits = ceil_div(row, static_cast<int64_t>(by) * 16);
      if (max_splits > 1) {
        const int64_t resident = resident_blocks<Ops, In, false>(kernel, bx * by, smem, device.index);
        if (grid_x < resident) splits = std::min({resident / grid_x, max_splits, int64_t{65535}});
      }
    }
    alloc_partials();
    kernel<<<dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(splits)), dim3(bx, by), smem,
             stream>>>(ops, in, outer, row, inner, col_blocks, partial);
  }
  MT_CUDA_CHECK(cudaGetLastError());
  if constexpr (kSplit) {
    // partials are splits x nout: a row of `splits` per output, walked with the outputs as inner columns
    if (partial) launch_reduce<false>(CombineOps<Ops>{ops}, partial, 1, splits, nout, device);
  }
}

template <typename Ops, typename In>
void launch(const Ops& ops, const In* in, int64_t outer, int64_t row, int64_t inner, Device device) {
  launch_reduce<true>(ops, in, outer, row, inner, device);
}

void reduce_cuda(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ReduceOp op, double arg) {
  const Device dev = in.device();
  cuda::DeviceGuard guard(dev);
  const int64_t outer = out.numel() / std::max<int64_t>(inner, 1);
  if (op == ReduceOp::all || op == ReduceOp::any) {
    MT_DISPATCH_ALL_TYPES(in.dtype(), op == ReduceOp::all ? "all_cuda" : "any_cuda", [&] {
      LogicalOps<scalar_t> ops{static_cast<char*>(out.data_ptr()), op == ReduceOp::all};
      launch(ops, in.data<scalar_t>(), outer, row, inner, dev);
    });
    return;
  }
  MT_DISPATCH_ALL_TYPES(in.dtype(), "reduce_cuda", [&] {
    using T = scalar_t;
    using op_t = opmath_t<T>;
    T* o = out.data<T>();
    const T* p = in.data<T>();
    switch (op) {
      case ReduceOp::sum:
        launch(SumOps<T, false>{o}, p, outer, row, inner, dev);
        return;
      case ReduceOp::prod:
        launch(ProdOps<T>{o}, p, outer, row, inner, dev);
        return;
      case ReduceOp::amax:
      case ReduceOp::amin: {
        const bool is_max = op == ReduceOp::amax;
        launch(ExtremumOps<T, false>{o, is_max, reduce_rules::extremum_identity<op_t>(is_max)}, p, outer, row,
               inner, dev);
        return;
      }
      default:
        break;
    }
    if constexpr (std::is_floating_point_v<op_t>) {
      switch (op) {
        case ReduceOp::mean:
          launch(SumOps<T, false>{o, MapKind::identity, PostKind::divide, static_cast<double>(row)}, p, outer,
                 row, inner, dev);
          return;
        case ReduceOp::norm: {
          const double pn = arg;
          if (std::isinf(pn)) {
            launch(ExtremumOps<T, true>{o, pn > 0, reduce_rules::extremum_identity<op_t>(pn > 0)}, p, outer,
                   row, inner, dev);
          } else if (pn == 2) {
            launch(SumOps<T, true>{o, MapKind::square, PostKind::sqrt, pn}, p, outer, row, inner, dev);
          } else if (pn == 1) {
            launch(SumOps<T, true>{o, MapKind::abs, PostKind::identity, pn}, p, outer, row, inner, dev);
          } else if (pn == 0) {
            launch(SumOps<T, true>{o, MapKind::nonzero, PostKind::identity, pn}, p, outer, row, inner, dev);
          } else {
            launch(SumOps<T, true>{o, MapKind::pow_abs, PostKind::pow, pn}, p, outer, row, inner, dev);
          }
          return;
        }
        case ReduceOp::nansum:
          launch(SumOps<T, true>{o, MapKind::nan_zero, PostKind::identity, 0}, p, outer, row, inner, dev);
          return;
        case ReduceOp::var:
        case ReduceOp::std:
          launch(WelfordOps<T>{o, arg, op == ReduceOp::std}, p, outer, row, inner, dev);
          return;
        case ReduceOp::logsumexp:
          launch(LogSumExpOps<T>(o), p, outer, row, inner, dev);
          return;
        default:
          break;
      }
      MT_INTERNAL_ASSERT(false, "unexpected floating reduction");
    } else {
      MT_CHECK(false, "\"", op == ReduceOp::mean ? "mean" : "reduce", "_cuda\" not implemented for '",
               dtype_short_name(in.dtype()), "'");
    }
  });
}

void arg_reduce_cuda(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t row,
                     int64_t inner, bool is_max) {
  const Device dev = in.device();
  cuda::DeviceGuard guard(dev);
  const int64_t outer = indices.numel() / std::max<int64_t>(inner, 1);
  MT_DISPATCH_ALL_TYPES(in.dtype(), is_max ? "argmax_cuda" : "argmin_cuda", [&] {
    using op_t = opmath_t<scalar_t>;
    ArgOps<scalar_t> ops{values.defined() ? values.data<scalar_t>() : nullptr, indices.data<int64_t>(),
                         is_max, reduce_rules::extremum_identity<op_t>(is_max)};
    launch(ops, in.data<scalar_t>(), outer, row, inner, dev);
  });
}

}  // namespace

MT_REGISTER_KERNEL(reduce_stub, CUDA, &reduce_cuda);
MT_REGISTER_KERNEL(arg_reduce_stub, CUDA, &arg_reduce_cuda);

}  // namespace mt
