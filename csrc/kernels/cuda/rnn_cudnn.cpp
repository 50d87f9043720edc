// cuDNN 9's RNN (cudnnRNNForward, cudnnRNNBackwardData_v8, cudnnRNNBackwardWeights_v8) behind _cudnn_rnn.
// Our per-layer weight tensors are copied into a fresh cuDNN weight space at the addresses
// cudnnGetRNNWeightParams reports (and the weight gradients back out of a gradient space), so the modules
// keep PyTorch's parameters; the descriptors, sizes and those addresses are built once per configuration and
// cached (a forward built them all on every call: 6.7x PyTorch's time on a small LSTM, 2026-12-04, H200).
// The copies cost one kernel per weight when
// cuDNN keeps a weight's gate blocks adjacent (checked), one per gate block otherwise. Every buffer (weight
// space, workspace, reserve, device sequence lengths) comes from the caching allocator on the current stream,
// so nothing synchronizes. Standard algorithm, both bias vectors always (zero for layers without bias, as
// PyTorch does), no dropout (the front end refuses it), no projection, packed
// sequence-major layout with every sequence of full length, which is the dense [T, N, F] tensor.
#if defined(MINITORCH_WITH_CUDA) && defined(MINITORCH_WITH_CUDNN)
#include <array>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/Context.h"
#include "cuda/CUDAContext.h"
#include "cuda/CUDNNUtils.h"
#include "cuda/Exceptions.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/rnn.h"
#include "ops/shape.h"

namespace mt {
namespace cuda {
namespace {

struct RnnDescriptor {
  cudnnRNNDescriptor_t desc = nullptr;
  RnnDescriptor() { MT_CUDNN_CHECK(cudnnCreateRNNDescriptor(&desc)); }
  ~RnnDescriptor() { cudnnDestroyRNNDescriptor(desc); }
  RnnDescriptor(const RnnDescriptor&) = delete;
  RnnDescriptor& operator=(const RnnDescriptor&) = delete;
};
struct DropoutDescriptor {
  cudnnDropoutDescriptor_t desc = nullptr;
  DropoutDescriptor() { MT_CUDNN_CHECK(cudnnCreateDropoutDescriptor(&desc)); }
  ~DropoutDescriptor() { cudnnDestroyDropoutDescriptor(desc); }
  DropoutDescriptor(const DropoutDescriptor&) = delete;
  DropoutDescriptor& operator=(const DropoutDescriptor&) = delete;
};
struct DataDescriptor {
  cudnnRNNDataDescriptor_t desc = nullptr;
  DataDescriptor() { MT_CUDNN_CHECK(cudnnCreateRNNDataDescriptor(&desc)); }
  ~DataDescriptor() { cudnnDestroyRNNDataDescriptor(desc); }
  DataDescriptor(const DataDescriptor&) = delete;
  DataDescriptor& operator=(const DataDescriptor&) = delete;
};
struct NdDescriptor {
  cudnnTensorDescriptor_t desc = nullptr;
  NdDescriptor() { MT_CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc)); }
  ~NdDescriptor() { cudnnDestroyTensorDescriptor(desc); }
  NdDescriptor(const NdDescriptor&) = delete;
  NdDescriptor& operator=(const NdDescriptor&) = delete;
};

cudnnRNNMode_t cell_mode(RnnMode m) {
  switch (m) {
    case RnnMode::rnn_relu:
      return CUDNN_RNN_RELU;
    case RnnMode::rnn_tanh:
      return CUDNN_RNN_TANH;
    case RnnMode::lstm:
      return CUDNN_LSTM;
    case RnnMode::gru:
      return CUDNN_GRU;
  }
  MT_ERROR("cuDNN RNN: unknown mode");
}

// Math as PyTorch sets it: half computes in float on tensor cores; float uses TF32 only when allowed.
cudnnMathType_t math_type(ScalarType t, bool allow_tf32) {
  if (t == ScalarType::Half) return CUDNN_TENSOR_OP_MATH;
  if (t == ScalarType::Float && !allow_tf32) return CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}

Tensor bytes_buffer(size_t bytes, Device d) {
  return make_empty({static_cast<int64_t>(bytes)}, ScalarType::Byte, d);
}

void* ptr(const Tensor& t) {
  return t.defined() && t.numel() > 0 ? t.data_ptr() : nullptr;
}

// Everything one forward or backward needs: descriptors for x [T, N, in], y [T, N, D*H], h/c [L*D, N, H],
// the device copy of the sequence lengths, cuDNN's buffer sizes and (filled by cached_setup) where each
// weight lives in the weight space. Read-only once built, so calls on one handle may share it.
struct Setup {
  cudnnHandle_t handle;
  DropoutDescriptor dropout;
  RnnDescriptor rnn;
  DataDescriptor xd, yd;
  NdDescriptor hd;
  Tensor seq_lengths;
  size_t weight_bytes = 0, work_bytes = 0, reserve_bytes = 0;

  std::vector<std::vector<int64_t>> offsets;

  Setup(const RnnArgs& a, const Tensor& x, bool training) : handle(cudnn_handle(x.device().index)) {
    const int T = static_cast<int>(x.size(0)), N = static_cast<int>(x.size(1));
    const int in = static_cast<int>(a.input_size), H = static_cast<int>(a.hidden_size);
    const int L = static_cast<int>(a.num_layers), D = static_cast<int>(a.num_directions());
    const cudnnDataType_t dt = cudnn_data_type(x.dtype());
    // No dropout: no states, and the seed is never used (no random numbers are drawn at p = 0).
    MT_CUDNN_CHECK(cudnnSetDropoutDescriptor(dropout.desc, handle, 0.f, nullptr, 0, 0));
    MT_CUDNN_CHECK(cudnnSetRNNDescriptor_v8(
        rnn.desc, CUDNN_RNN_ALGO_STANDARD, cell_mode(a.mode), CUDNN_RNN_DOUBLE_BIAS,
        a.bidirectional ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, dt,
        x.dtype() == ScalarType::Half ? CUDNN_DATA_FLOAT : dt, math_type(x.dtype(), cudnn_flags().allow_tf32),
        in, H, /*projSize=*/H, L, dropout.desc, CUDNN_RNN_PADDED_IO_DISABLED));
    std::vector<int> lengths(static_cast<size_t>(N), T);
    MT_CUDNN_CHECK(cudnnSetRNNDataDescriptor(xd.desc, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, N, in,
                                             lengths.data(), nullptr));
    MT_CUDNN_CHECK(cudnnSetRNNDataDescriptor(yd.desc, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, N, D * H,
                                             lengths.data(), nullptr));
    int dims[3] = {L * D, N, H}, strides[3] = {N * H, H, 1};
    MT_CUDNN_CHECK(cudnnSetTensorNdDescriptor(hd.desc, dt, 3, dims, strides));
    // read by cuDNN's kernels after the calls return, so it lives on the device (stream-ordered fill)
    seq_lengths =
        full({static_cast<int64_t>(N)}, Scalar(static_cast<int64_t>(T)), ScalarType::Int, x.device());
    MT_CUDNN_CHECK(cudnnGetRNNWeightSpaceSize(handle, rnn.desc, &weight_bytes));
    MT_CUDNN_CHECK(cudnnGetRNNTempSpaceSizes(handle, rnn.desc,
                                             training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE,
                                             xd.desc, &work_bytes, &reserve_bytes));
  }
  const int32_t* lengths() const { return static_cast<const int32_t*>(seq_lengths.data_ptr()); }
};

// A weight space (or its gradient) as a flat tensor of the data's dtype.
Tensor weight_space(const Setup& s, const Tensor& x, bool zeroed) {
  const size_t item = x.itemsize();
  MT_INTERNAL_ASSERT(s.weight_bytes % item == 0, "cuDNN RNN weight space of ", s.weight_bytes,
                     " bytes is not a whole number of elements");
  const int64_t n = static_cast<int64_t>(s.weight_bytes / item);
  return zeroed ? zeros({n}, x.dtype(), x.device()) : make_empty({n}, x.dtype(), x.device());
}

// Where each weight lives in cuDNN's space: per pseudo-layer (layer and direction, the front end's order)
// weight_ih, weight_hh, bias_ih, bias_hh, each as the element offsets of its gate blocks of H rows.
// cuDNN numbers the blocks of pseudo-layer l*D+d as linLayerID 0..G-1 for the input GEMM and G..2G-1 for the
// recurrent one, in PyTorch's gate order (LSTM i, f, g, o; GRU r, z, n).
std::vector<std::vector<int64_t>> weight_offsets(const Setup& s, const Tensor& space, const RnnArgs& a) {
  const int64_t G = a.gates(), H = a.hidden_size, D = a.num_directions();
  const char* base = static_cast<const char*>(space.data_ptr());
  const int64_t item = static_cast<int64_t>(space.itemsize());
  auto offset_of = [&](const void* addr, int64_t want_numel, const NdDescriptor& desc, const char* what,
                       int64_t layer, int64_t id) {
    MT_INTERNAL_ASSERT(addr != nullptr, "cuDNN RNN reported no ", what, " for pseudo-layer ", layer,
                       ", linLayerID ", id);
    cudnnDataType_t dt;
    int nb = 0, dims[8] = {0}, strides[8] = {0};
    MT_CUDNN_CHECK(cudnnGetTensorNdDescriptor(desc.desc, 8, &dt, &nb, dims, strides));
    // dense: the innermost dimension longer than 1 has stride 1 (PyTorch views these blocks as row-major
    // [H, in] / [H] and so do we)
    int64_t numel = 1, inner_stride = 1;
    for (int i = 0; i < nb; ++i) {
      numel *= dims[i];
      if (dims[i] > 1) inner_stride = strides[i];
    }
    MT_INTERNAL_ASSERT(numel == want_numel && inner_stride == 1, "cuDNN RNN ", what, " of pseudo-layer ",
                       layer, ", linLayerID ", id, " has ", numel, " elements (innermost stride ",
                       inner_stride, "), expected ", want_numel, " dense");
    int64_t bytes = static_cast<const char*>(addr) - base;
    MT_INTERNAL_ASSERT(bytes >= 0 && bytes % item == 0 && bytes / item + want_numel <= space.numel(),
                       "cuDNN RNN ", what, " outside the weight space");
    return bytes / item;
  };
  std::vector<std::vector<int64_t>> offs(static_cast<size_t>(a.num_layers * D) * 4);
  NdDescriptor m, b;
  for (int64_t p = 0; p < a.num_layers * D; ++p) {
    const int64_t in = p < D ? a.input_size : D * H;
    for (int64_t id = 0; id < 2 * G; ++id) {
      void* maddr = nullptr;
      void* baddr = nullptr;
      MT_CUDNN_CHECK(cudnnGetRNNWeightParams(s.handle, s.rnn.desc, static_cast<int32_t>(p), s.weight_bytes,
                                             space.data_ptr(), static_cast<int32_t>(id), m.desc, &maddr,
                                             b.desc, &baddr));
      const bool recurrent = id >= G;
      const size_t w = static_cast<size_t>(p) * 4 + (recurrent ? 1 : 0);
      offs[w].push_back(offset_of(maddr, H * (recurrent ? H : in), m, "matrix", p, id));
      offs[w + 2].push_back(offset_of(baddr, H, b, "bias", p, id));
    }
  }
  return offs;
}

// A configuration's Setup: built on first use (its weight offsets from a scratch space: they are offsets, the
// same for every space of the descriptor), then shared. Keyed by everything the descriptors read; at most
// kMaxSetups kept (the oldest dropped), so shapes that vary without end cannot grow it. Never destroyed: its
// device buffers must not be freed after the CUDA runtime at exit.
constexpr size_t kMaxSetups = 64;

std::shared_ptr<const Setup> cached_setup(const RnnArgs& a, const Tensor& x, bool training) {
  using Key = std::array<int64_t, 13>;
  static auto* mutex = new std::mutex;
  static auto* cache = new std::deque<std::pair<Key, std::shared_ptr<const Setup>>>;
  const Key key{x.device().index,
                reinterpret_cast<int64_t>(cudnn_handle(x.device().index)),
                static_cast<int64_t>(a.mode),
                a.input_size,
                a.hidden_size,
                a.num_layers,
                a.bidirectional,
                a.has_bias,
                x.size(0),
                x.size(1),
                static_cast<int64_t>(x.dtype()),
                training,
                cudnn_flags().allow_tf32};
  {
    std::lock_guard<std::mutex> lock(*mutex);
    for (const auto& [k, s] : *cache)
      if (k == key) return s;
  }
  auto s = std::make_shared<Setup>(a, x, training);
  {
    const size_t item = x.itemsize();
    Tensor scratch = make_empty({static_cast<int64_t>(s->weight_bytes / item)}, x.dtype(), x.device());
    s->offsets = weight_offsets(*s, scratch, a);
    // the sequence lengths were filled on this stream; a later call may run on another one
    MT_CUDA_CHECK(cudaStreamSynchronize(current_stream(x.device().index)));
  }
  std::lock_guard<std::mutex> lock(*mutex);
  if (cache->size() >= kMaxSetups) cache->pop_front();
  cache->emplace_back(key, s);
  return s;
}

// Copies between our weights (each contiguous, G blocks of `block` elements) and the space: one copy per
// weight when its blocks are adjacent in the space, in order; one per block otherwise.
void copy_weights(const Tensor& space, const std::vector<Tensor>& weights,
                  const std::vector<std::vector<int64_t>>& offs, const RnnArgs& a, bool into_space) {
  const size_t per = a.has_bias ? 4 : 2;  // weights per pseudo-layer in the front end's list
  for (size_t i = 0; i < weights.size(); ++i) {
    const Tensor& w = weights[i];
    const std::vector<int64_t>& o = offs[i / per * 4 + i % per];
    const int64_t blocks = static_cast<int64_t>(o.size()), block = w.numel() / blocks;
    MT_INTERNAL_ASSERT(block * blocks == w.numel(), "cuDNN RNN weight blocks do not tile a weight");
    bool adjacent = true;
    for (int64_t k = 1; k < blocks; ++k) adjacent = adjacent && o[k] == o[0] + k * block;
    Tensor flat = view(w, {w.numel()});
    auto one = [&](int64_t at, int64_t start, int64_t n) {
      Tensor in_space = as_strided(space, {n}, {1}, at);
      Tensor ours = slice(flat, 0, start, start + n, 1);
      if (into_space)
        copy_(in_space, ours);
      else
        copy_(ours, in_space);
    };
    if (adjacent) {
      one(o[0], 0, w.numel());
    } else {
      for (int64_t k = 0; k < blocks; ++k) one(o[k], k * block, block);
    }
  }
}

void cudnn_rnn_forward_cuda(const RnnArgs& a, const Tensor& x, const std::vector<Tensor>& weights,
                            const Tensor& hx, const Tensor& cx, bool training, const Tensor& y,
                            const Tensor& hy, const Tensor& cy, Tensor& reserve) {
  DeviceGuard guard(x.device());
  const std::shared_ptr<const Setup> sp = cached_setup(a, x, training);
  const Setup& s = *sp;
  Tensor w = weight_space(s, x, /*zeroed=*/!a.has_bias);  // biases stay 0 without bias
  copy_weights(w, weights, s.offsets, a, /*into_space=*/true);
  Tensor work = bytes_buffer(s.work_bytes, x.device());
  if (training) reserve = bytes_buffer(s.reserve_bytes, x.device());
  MT_CUDNN_CHECK(
      cudnnRNNForward(s.handle, s.rnn.desc, training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE,
                      s.lengths(), s.xd.desc, x.data_ptr(), s.yd.desc, y.data_ptr(), s.hd.desc, hx.data_ptr(),
                      hy.data_ptr(), s.hd.desc, ptr(cx), ptr(cy), s.weight_bytes, w.data_ptr(), s.work_bytes,
                      ptr(work), training ? s.reserve_bytes : 0, training ? ptr(reserve) : nullptr));
}

// Data first, then weights (cuDNN's required order: the weight pass reads what the data pass left in the
// reserve); one workspace serves both. The weight pass only accumulates (CUDNN_WGRAD_MODE_ADD), hence the
// zeroed gradient space.
void cudnn_rnn_backward_cuda(const RnnArgs& a, const Tensor& x, const std::vector<Tensor>& weights,
                             const Tensor& hx, const Tensor& cx, const Tensor& y, const Tensor& reserve,
                             const Tensor& dy, const Tensor& dhy, const Tensor& dcy, const Tensor& dx,
                             const Tensor& dhx, const Tensor& dcx, const std::vector<Tensor>& dweights) {
  DeviceGuard guard(x.device());
  const std::shared_ptr<const Setup> sp = cached_setup(a, x, /*training=*/true);
  const Setup& s = *sp;
  MT_CHECK(static_cast<size_t>(reserve.numel()) == s.reserve_bytes,
           "cuDNN RNN backward: the reserve does not match this forward (", reserve.numel(),
           " bytes, expected ", s.reserve_bytes, ")");
  Tensor w = weight_space(s, x, /*zeroed=*/!a.has_bias);  // biases stay 0 without bias
  const auto& offs = s.offsets;
  copy_weights(w, weights, offs, a, /*into_space=*/true);
  Tensor work = bytes_buffer(s.work_bytes, x.device());
  // The data pass rewrites the reserve for the weight pass: both run on a copy, so that the saved reserve
  // stays as the forward left it and a second backward through the graph (retain_graph, gradcheck's one
  // output at a time) sees the same input as the first.
  Tensor scratch = bytes_buffer(s.reserve_bytes, x.device());
  if (s.reserve_bytes)
    MT_CUDA_CHECK(cudaMemcpyAsync(scratch.data_ptr(), reserve.data_ptr(), s.reserve_bytes,
                                  cudaMemcpyDeviceToDevice, current_stream(x.device().index)));
  MT_CUDNN_CHECK(cudnnRNNBackwardData_v8(
      s.handle, s.rnn.desc, s.lengths(), s.yd.desc, y.data_ptr(), dy.data_ptr(), s.xd.desc, dx.data_ptr(),
      s.hd.desc, hx.data_ptr(), dhy.data_ptr(), dhx.data_ptr(), s.hd.desc, ptr(cx), ptr(dcy), ptr(dcx),
      s.weight_bytes, w.data_ptr(), s.work_bytes, ptr(work), s.reserve_bytes, ptr(scratch)));
  Tensor dw = weight_space(s, x, /*zeroed=*/true);
  MT_CUDNN_CHECK(cudnnRNNBackwardWeights_v8(s.handle, s.rnn.desc, CUDNN_WGRAD_MODE_ADD, s.lengths(),
                                            s.xd.desc, x.data_ptr(), s.hd.desc, hx.data_ptr(), s.yd.desc,
                                            y.data_ptr(), s.weight_bytes, dw.data_ptr(), s.work_bytes,
                                            ptr(work), s.reserve_bytes, ptr(scratch)));
  copy_weights(dw, dweights, offs, a, /*into_space=*/false);
}

}  // namespace
}  // namespace cuda

MT_REGISTER_KERNEL(cudnn_rnn_forward_stub, CUDA, &cuda::cudnn_rnn_forward_cuda);
MT_REGISTER_KERNEL(cudnn_rnn_backward_stub, CUDA, &cuda::cudnn_rnn_backward_cuda);

}  // namespace mt
#endif
