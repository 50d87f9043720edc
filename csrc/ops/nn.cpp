// nn op front ends: PyTorch's checks and shape rules for linear, the norms, embedding and dropout, then the
// kernels (GEMM for linear; row/channel statistics and one fused affine pass for the norms).
#include "ops/nn.h"

#include <cmath>

#include "core/FreshWrites.h"
#include "core/Generator.h"
#include "core/GradMode.h"
#include "core/TypeMeta.h"
#include "cuda/CUDAGraph.h"
#include "generated/native.h"
#include "ops/autocast.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/index.h"
#include "ops/layout.h"
#include "ops/linalg.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace mt {

namespace {

// Statistics (and the affine parameters the kernels read) in float, or double for double input.
ScalarType stat_dtype(ScalarType t) {
  return t == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
}

Tensor Sc(double v) {
  return wrapped_scalar(Scalar(v));
}

void check_device(const Tensor& a, const OptTensor& b) {
  if (!b) return;
  MT_CHECK(a.device() == b->device(),
           "Expected all tensors to be on the same device, but found at least two devices, ",
           a.device().str(), " and ", b->device().str(), "!");
}

// PyTorch's normalization kernels refuse other dtypes with NotImplementedError naming the kernel.
void check_float_input(const Tensor& x, const char* kernel) {
  MT_CHECK_NOT_IMPLEMENTED(is_floating(x.dtype()), "\"", kernel, "\" not implemented for '",
                           dtype_short_name(x.dtype()), "'");
}

// A parameter (weight/bias) as the kernels read it: contiguous, flat, in the statistics dtype.
Tensor param(const OptTensor& p, ScalarType sd) {
  if (!p) return Tensor();
  return contiguous(reshape(to(*p, sd, p->device()), {-1}));
}

}  // namespace

// ---- linear ----

Tensor native::linear(const Tensor& input, const Tensor& weight, const OptTensor& bias) {
  MT_CHECK(input.dim() >= 1 && weight.dim() >= 1,
           "both arguments to linear need to be at least 1D, but they are ", input.dim(), "D and ",
           weight.dim(), "D");
  MT_CHECK(weight.dim() == 2, "linear(): weight must be a matrix, got ", weight.dim(), "-D tensor");
  int64_t in = input.sizes()[input.dim() - 1], out_f = weight.sizes()[0];
  int64_t rows = in == 0 ? compute_numel(IntArrayRef(input.sizes().data(), size_t(input.dim() - 1)))
                         : input.numel() / in;
  // the words of the GEMM PyTorch's linear runs: addmm with a bias, mm without
  MT_CHECK(in == weight.sizes()[1], bias ? "addmm" : "mm", ": mat1 and mat2 shapes cannot be multiplied (",
           rows, "x", in, " and ", weight.sizes()[1], "x", out_f, ")");
  MT_CHECK(input.dtype() == weight.dtype(), "mat1 and mat2 must have the same dtype, but got ",
           dtype_short_name(input.dtype()), " and ", dtype_short_name(weight.dtype()));
  check_device(input, weight);
  check_device(input, bias);
  MT_CHECK_NOT_IMPLEMENTED(input.dtype() != ScalarType::Bool, "\"",
                           input.is_cuda() ? "addmm_cuda" : "addmm_impl_cpu_",
                           "\" not implemented for 'Bool'");
  if (bias) {
    MT_CHECK(bias->dtype() == weight.dtype(), "self and mat2 must have the same dtype, but got ",
             dtype_short_name(bias->dtype()), " and ", dtype_short_name(weight.dtype()));
    MT_CHECK(bias->dim() <= 1 && (bias->numel() == out_f || bias->numel() == 1),
             "linear(): bias must be a vector of ", out_f, " elements, got shape ", shape_str(bias->sizes()));
  }
  DimVector shape(input.sizes().begin(), input.sizes().end() - 1);
  shape.push_back(out_f);
  Tensor out = make_empty(shape, input.dtype(), input.device());
  if (out.numel() == 0) return out;
  Tensor out3 = make_view(out, {1, rows, out_f}, {rows * out_f, out_f, 1}, 0);
  FreshWrites fresh;
  // the bias broadcast into the output, then GEMM with beta = 1 accumulates onto it (no separate add pass)
  if (bias) copy_(out3, mt::expand(*bias, {1, rows, out_f}));
  if (in == 0) {
    if (!bias) zero_(out);
    return out;
  }
  // 2-D input is read in place; other ranks fold their leading dims (a view when the layout allows)
  Tensor x2 = input.dim() == 2 ? input : mt::reshape(input, {rows, in});
  Tensor a = make_view(x2, {1, rows, in}, {rows * in, x2.strides()[0], x2.strides()[1]}, x2.storage_offset());
  // weight.T as a view: the GEMM reads it transposed, no copy
  Tensor b = make_view(weight, {1, in, out_f}, {in * out_f, weight.strides()[1], weight.strides()[0]},
                       weight.storage_offset());
  gemm_stub.get(out.device())(out3, a, b, Scalar(int64_t(1)), Scalar(int64_t(bias ? 1 : 0)));
  return out;
}

// ---- layer_norm ----

namespace {
void check_layer_norm(const Tensor& input, IntArrayRef ns, const OptTensor& weight, const OptTensor& bias) {
  MT_CHECK(
      !ns.empty(),
      "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but "
      "got normalized_shape = ",
      shape_str(ns));
  auto same = [&](const Tensor& t) {
    if (t.dim() != static_cast<int64_t>(ns.size())) return false;
    for (size_t i = 0; i < ns.size(); ++i)
      if (t.sizes()[i] != ns[i]) return false;
    return true;
  };
  MT_CHECK(!weight || same(*weight),
           "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
           shape_str(weight ? weight->sizes() : DimVector{}), " and normalized_shape = ", shape_str(ns));
  MT_CHECK(!bias || same(*bias),
           "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
           shape_str(bias ? bias->sizes() : DimVector{}), " and normalized_shape = ", shape_str(ns));
  int64_t nd = input.dim(), k = static_cast<int64_t>(ns.size());
  bool ok = nd >= k;
  for (int64_t i = 0; ok && i < k; ++i) ok = input.sizes()[nd - k + i] == ns[i];
  if (!ok) {
    std::string expect = "[*";
    for (int64_t s : ns) expect += ", " + std::to_string(s);
    expect += "]";
    MT_ERROR("Given normalized_shape=", shape_str(ns), ", expected input with shape ", expect,
             ", but got input of size", shape_str(input.sizes()));
  }
  check_float_input(input, "LayerNormKernelImpl");
  check_device(input, weight);
  check_device(input, bias);
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const OptTensor& weight, const OptTensor& bias,
                                                     double eps) {
  check_layer_norm(input, normalized_shape, weight, bias);
  int64_t N = compute_numel(normalized_shape);
  int64_t M =
      N == 0
          ? compute_numel(IntArrayRef(input.sizes().data(), input.sizes().size() - normalized_shape.size()))
          : input.numel() / N;
  ScalarType sd = stat_dtype(input.dtype());
  Tensor y = make_empty(input.sizes(), input.dtype(), input.device());
  Tensor mean = make_empty({M}, sd, input.device()), rstd = make_empty({M}, sd, input.device());
  if (M == 0) return {y, mean, rstd};
  if (N == 0) {  // nothing to normalize: statistics of an empty row, as PyTorch (NaN mean, 1/sqrt(eps))
    fill_(mean, Scalar(std::nan("")));
    fill_(rstd, Scalar(1.0 / std::sqrt(eps)));
    return {y, mean, rstd};
  }
  row_norm_stub.get(input.device())(y, mean, rstd, contiguous(input), param(weight, sd), param(bias, sd), M,
                                    N, eps);
  return {y, mean, rstd};
}

Tensor native::layer_norm(const Tensor& input, IntArrayRef normalized_shape, const OptTensor& weight,
                          const OptTensor& bias, double eps) {
  return std::get<0>(native_layer_norm(input, normalized_shape, weight, bias, eps));
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const Tensor& weight, int64_t M, int64_t N,
                                                              bool want_input, bool want_weight,
                                                              bool want_bias) {
  ScalarType sd = stat_dtype(input.dtype());
  Device dev = input.device();
  Tensor dx = want_input ? make_empty(input.sizes(), input.dtype(), dev) : Tensor();
  Tensor dw = want_weight ? make_empty({N}, sd, dev) : Tensor();
  Tensor db = want_bias ? make_empty({N}, sd, dev) : Tensor();
  Tensor g = grad.dtype() == input.dtype() ? grad : to(grad, input.dtype(), dev);
  row_norm_backward_stub.get(dev)(dx, dw, db, contiguous(g), contiguous(input), mean, rstd,
                                  weight.defined() ? param(weight, sd) : Tensor(), M, N);
  return {dx, dw, db};
}

// ---- group_norm ----

std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, int64_t G, const OptTensor& weight,
                                                     const OptTensor& bias, double eps) {
  MT_CHECK(input.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ", input.dim());
  int64_t N = input.sizes()[0], C = input.sizes()[1];
  MT_CHECK(G > 0, "Expected num groups to be greater than 0, got ", G);
  MT_CHECK(C % G == 0,
           "Expected number of channels in input to be divisible by num_groups, but got input of shape ",
           shape_str(input.sizes()), " and num_groups=", G);
  MT_CHECK(
      !weight || (weight->dim() == 1 && weight->numel() == C),
      "Expected weight to be a vector of size equal to the number of channels in input, but got weight of "
      "shape ",
      shape_str(weight ? weight->sizes() : DimVector{}), " and input of shape ", shape_str(input.sizes()));
  MT_CHECK(
      !bias || (bias->dim() == 1 && bias->numel() == C),
      "Expected bias to be a vector of size equal to the number of channels in input, but got bias of shape ",
      shape_str(bias ? bias->sizes() : DimVector{}), " and input of shape ", shape_str(input.sizes()));
  // the kernel's dtype dispatch: an empty input never reaches it (an integer or bool one is returned as it
  // is)
  if (input.numel() != 0) check_float_input(input, "GroupNormKernelImpl");
  check_device(input, weight);
  check_device(input, bias);
  ScalarType sd = stat_dtype(input.dtype());
  Tensor y = make_empty(input.sizes(), input.dtype(), input.device());
  Tensor mean = make_empty({N, G}, sd, input.device()), rstd = make_empty({N, G}, sd, input.device());
  if (input.numel() == 0) {
    if (mean.numel() > 0) {  // empty groups: PyTorch's statistics of nothing
      fill_(mean, Scalar(std::nan("")));
      fill_(rstd, Scalar(1.0 / std::sqrt(eps)));
    }
    return {y, mean, rstd};
  }
  int64_t S = input.numel() / (N * C), D = C / G * S;
  Tensor x = contiguous(input);
  if (!weight && !bias) {  // the row kernel normalizes each (n, group) block directly
    row_norm_stub.get(input.device())(y, mean, rstd, x, Tensor(), Tensor(), N * G, D, eps);
    return {y, mean, rstd};
  }
  row_norm_stub.get(input.device())(Tensor(), mean, rstd, x, Tensor(), Tensor(), N * G, D, eps);
  channel_affine_stub.get(input.device())(y, x, mean, rstd, param(weight, sd), param(bias, sd), N, C, S, G);
  return {y, mean, rstd};
}

// The front-end shape every op here has (autocast, then the autograd twin, then the native op), as
// layer_norm.
Tensor native::group_norm(const Tensor& input, int64_t num_groups, const OptTensor& weight,
                          const OptTensor& bias, double eps) {
  return std::get<0>(native_group_norm(input, num_groups, weight, bias, eps));
}

// ---- batch_norm ----

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const OptTensor& weight,
                                                     const OptTensor& bias, const OptTensor& running_mean,
                                                     const OptTensor& running_var, bool training,
                                                     double momentum, double eps) {
  MT_CHECK(input.dim() >= 2, "batch_norm(): expected input with at least 2 dimensions (N, C, ...), got ",
           input.dim(), "-D input");
  check_float_input(input, "batch_norm");
  int64_t N = input.sizes()[0], C = input.sizes()[1];
  auto check_numel = [&](const OptTensor& t, const char* name) {
    if (t) MT_CHECK(t->numel() == C, name, " should contain ", C, " elements not ", t->numel());
    check_device(input, t);
  };
  check_numel(weight, "weight");
  check_numel(bias, "bias");
  check_numel(running_mean, "running_mean");
  check_numel(running_var, "running_var");
  MT_CHECK(training || (running_mean && running_var),
           "running_mean and running_var must be defined in evaluation mode");
  ScalarType sd = stat_dtype(input.dtype());
  Device dev = input.device();
  Tensor y = make_empty(input.sizes(), input.dtype(), dev);
  int64_t S = N * C == 0 ? 0 : input.numel() / (N * C);
  if (training) {
    DimVector sz(input.sizes().begin(), input.sizes().end());
    MT_CHECK_VALUE(N * S != 1, "Expected more than 1 value per channel when training, got input size ",
                   shape_str(sz));
  }
  if (input.numel() == 0) {  // PyTorch leaves the running statistics alone for an empty batch
    return {y, zeros({C}, sd, dev), zeros({C}, sd, dev)};
  }
  Tensor x = contiguous(input);
  Tensor mean, rstd;
  if (training) {
    mean = make_empty({C}, sd, dev);
    Tensor var = make_empty({C}, sd, dev);
    rstd = make_empty({C}, sd, dev);
    channel_stats_stub.get(dev)(mean, var, rstd, x, N, C, S, eps);
    // PyTorch's rule: running = (1 - momentum) * running + momentum * batch statistic, with the unbiased
    // variance for running_var
    double unbiased = static_cast<double>(N * S) / static_cast<double>(N * S - 1);
    auto update = [&](const Tensor& run, const Tensor& stat, double factor) {
      if (run.dtype() == sd) {  // in place when the buffer has the statistics dtype (the usual float32)
        binary_(BinaryOp::mul, run, Sc(1 - momentum));
        binary_(BinaryOp::add, run, mul(stat, Sc(momentum * factor)));
      } else {
        copy_(run, add(mul(run, Sc(1 - momentum)), mul(stat, Sc(momentum * factor))));
      }
    };
    if (running_mean) update(*running_mean, mean, 1.0);
    if (running_var) update(*running_var, var, unbiased);
  } else {
    // copies, so the saved statistics never alias the running buffers the next training step overwrites
    mean = clone(contiguous(reshape(to(*running_mean, sd, dev), {-1})));
    rstd = rsqrt(add(reshape(to(*running_var, sd, dev), {-1}), Sc(eps)));
  }
  channel_affine_stub.get(dev)(y, x, mean, rstd, param(weight, sd), param(bias, sd), N, C, S, 0);
  return {in_layout_of(y, {&input}), mean, rstd};
}

Tensor native::batch_norm(const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                          const OptTensor& running_mean, const OptTensor& running_var, bool training,
                          double momentum, double eps) {
  return std::get<0>(
      native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(const Tensor& grad, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const Tensor& weight, bool training,
                                                              bool want_input, bool want_weight,
                                                              bool want_bias) {
  ScalarType sd = stat_dtype(input.dtype());
  Device dev = input.device();
  int64_t N = input.sizes()[0], C = input.sizes()[1];
  int64_t S = input.numel() / (N * C);
  Tensor x = contiguous(input);
  Tensor g = contiguous(grad.dtype() == input.dtype() ? grad : to(grad, input.dtype(), dev));
  Tensor sum_g, sum_gx;
  if (want_weight || want_bias || (want_input && training)) {
    sum_g = make_empty({C}, sd, dev);
    sum_gx = make_empty({C}, sd, dev);
    channel_grad_sums_stub.get(dev)(sum_g, sum_gx, g, x, mean, N, C, S);
  }
  Tensor dx, dw, db;
  if (want_input) {
    dx = make_empty(input.sizes(), input.dtype(), dev);
    Tensor w = weight.defined() ? param(OptTensor(weight), sd) : Tensor();
    channel_grad_input_stub.get(dev)(dx, g, x, mean, rstd, w, training ? sum_g : Tensor(),
                                     training ? sum_gx : Tensor(), N, C, S);
  }
  if (want_weight) dw = mul(sum_gx, rstd);
  if (want_bias) db = sum_g;
  return {dx, dw, db};
}

// ---- embedding ----

namespace {
void check_indices(const Tensor& indices, const char* op, int argno = 1) {
  MT_CHECK(indices.dtype() == ScalarType::Long || indices.dtype() == ScalarType::Int,
           "Expected tensor for argument #", argno,
           " 'indices' to have one of the following scalar types: Long, Int; but got ",
           error_type_name(indices.dtype(), indices.is_cuda()), " instead (while checking arguments for ", op,
           ")");
}
}  // namespace

Tensor embedding_forward(const Tensor& weight, const Tensor& indices) {
  // PyTorch's autograd node reads the table's length first (a table requiring grad)
  MT_CHECK_INDEX(weight.dim() > 0 || !weight.requires_grad(),
                 "Dimension specified as 0 but tensor has no dimensions");
  MT_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  check_indices(indices, "embedding");
  MT_CHECK(weight.device() == indices.device(),
           "Expected all tensors to be on the same device, but found at least two devices, ",
           weight.device().str(), " and ", indices.device().str(), "!");
  DimVector shape(indices.sizes().begin(), indices.sizes().end());
  shape.push_back(weight.sizes()[1]);
  Tensor out = make_empty(shape, weight.dtype(), weight.device());
  if (indices.numel() == 0) return out;
  // PyTorch's embedding is weight.index_select(0, indices): a weight without rows fails there first
  MT_CHECK(weight.sizes()[0] > 0, "index_select(): self indexing axis dim should be positive");
  // ...and a CPU table without columns bound-checks the indices in its own words (nothing to copy after)
  if (weight.numel() == 0 && weight.device().is_cpu()) {
    native::index_select(weight, 0, mt::reshape(indices, {-1}));
    return out;
  }
  embedding_stub.get(weight.device())(out, contiguous(weight), contiguous(indices));
  return out;
}

Tensor native::embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                         bool scale_grad_by_freq, bool sparse) {
  return embedding_forward(weight, indices);
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                          bool scale_grad_by_freq) {
  int64_t D = grad.sizes()[grad.dim() - 1], n = indices.numel();
  if (!(GradMode::is_enabled() && grad.requires_grad())) {
    // one accumulation kernel (no host round trip for the indices on CUDA); ops below only when the
    // gradient itself is being differentiated
    ScalarType sd = stat_dtype(grad.dtype());
    Tensor acc = zeros({num_weights, D}, sd, grad.device());
    if (n == 0 || D == 0) return to(acc, grad.dtype(), grad.device());
    Tensor counts = scale_grad_by_freq ? zeros({num_weights}, sd, grad.device()) : Tensor();
    embedding_backward_stub.get(grad.device())(acc, counts, contiguous(reshape(grad, {n, D})),
                                               contiguous(indices), padding_idx);
    return to(acc, grad.dtype(), grad.device());
  }
  Tensor gw = zeros({num_weights, D}, grad.dtype(), grad.device());
  if (n == 0 || D == 0) return gw;
  Tensor idx = reshape(to(indices, ScalarType::Long, indices.device()), {n});
  Tensor g2 = reshape(grad, {n, D});
  if (padding_idx >= 0)  // rows looked up at padding_idx contribute nothing
    g2 = mul(g2, unsqueeze(to(ne(idx, wrapped_scalar(Scalar(padding_idx))), grad.dtype(), grad.device()), 1));
  if (scale_grad_by_freq) {
    Tensor counts = zeros({num_weights}, grad.dtype(), grad.device());
    index_put_(counts, {idx}, ones({n}, grad.dtype(), grad.device()), true);
    g2 = div(g2, unsqueeze(index_select(counts, 0, idx), 1));
  }
  index_put_(gw, {idx}, g2, true);
  return gw;
}

const Tensor& embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                                double norm_type) {
  // PyTorch's order: autograd's refusal of a leaf (of an in-place op), then the kernel's checks
  MT_CHECK(!(GradMode::is_enabled() && weight.is_leaf_requiring_grad()),
           "a leaf Variable that requires grad is being used in an in-place operation.");
  MT_CHECK(weight.dim() == 2, "Expected 2-dimensional tensor, but got ", weight.dim(),
           "-dimensional tensor for argument #1 'self' (while checking arguments for embedding_renorm_)");
  check_indices(indices, "embedding_renorm_", 2);
  MT_CHECK_NOT_IMPLEMENTED(is_floating(weight.dtype()) || is_complex(weight.dtype()),
                           "norm(): input dtype should be either floating point or complex. Got ",
                           dtype_short_name(weight.dtype()), " instead.");
  NoGradGuard ng;  // F.embedding renormalizes the table in place, outside the graph
  if (indices.numel() == 0) return weight;
  Tensor idx = reshape(to(indices, ScalarType::Long, indices.device()), {-1});
  const int64_t n = weight.sizes()[0];
  if (idx.device().is_cpu()) {
    // the CPU kernel selects each row: a negative index counts from the end, one outside is select()'s
    // IndexError (PyTorch's CUDA kernel reads the rows unchecked)
    Tensor h = contiguous(idx);
    const int64_t* v = h.data<int64_t>();
    Tensor wrapped = empty({h.numel()}, ScalarType::Long, h.device());
    int64_t* w = wrapped.data<int64_t>();
    for (int64_t k = 0; k < h.numel(); ++k) {
      MT_CHECK_INDEX(v[k] >= -n && v[k] < n, "select(): index ", v[k], " out of range for tensor of size [",
                     n, ", ", weight.sizes()[1], "] at dimension 0");
      w[k] = v[k] < 0 ? v[k] + n : v[k];
    }
    idx = wrapped;
  }
  Tensor rows = embedding_forward(weight, idx);
  ScalarType sd = stat_dtype(weight.dtype());
  Tensor rows_f = to(rows, sd, rows.device());
  Tensor norms = norm(rows_f, norm_type, {1}, true);
  // PyTorch scales rows whose norm exceeds max_norm by max_norm / (norm + 1e-7); duplicate indices write the
  // same values, so their order does not matter
  Tensor scaled = mul(rows_f, div(Sc(max_norm), add(norms, Sc(1e-7))));
  Tensor fresh = where(gt(norms, Sc(max_norm)), scaled, rows_f);
  index_put_(weight, {idx}, to(fresh, weight.dtype(), weight.device()), false);
  return weight;
}

// ---- dropout ----

namespace {
void check_p(double p) {
  MT_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}
}  // namespace

std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p) {
  MT_CHECK(is_floating(input.dtype()), "result type Float can't be cast to the desired output type ",
           dtype_short_name(input.dtype()));
  // a dense input of any layout (channels-last) is one flat run for the kernel, in its own strides
  Tensor x = non_overlapping_and_dense(input) ? input : contiguous(input);
  DimVector st = x.is_contiguous() ? DimVector() : DimVector(x.strides());
  Tensor y = empty_strided_dense(input.sizes(), st, input.dtype(), input.device());
  Tensor mask = empty_strided_dense(input.sizes(), st, ScalarType::Bool, input.device());
  if (x.numel() == 0) return {y, mask};
  Generator& g = input.is_cuda() ? cuda_generator(input.device().index) : default_generator();
  uint64_t seed = 0, offset = 0;  // inside a CUDA graph capture: the call's number in the graph
  if (!(input.is_cuda() && graph_rng_offset(input.device().index, true, &offset))) {
    seed = g.seed();
    offset = g.reserve(1);
  }
  dropout_stub.get(input.device())(y, mask, x, p, seed, offset);
  return {y, mask};
}

Tensor dropout(const Tensor& input, double p, bool train) {
  check_p(p);
  // PyTorch hands the input itself back when nothing is dropped
  if (!train || p == 0 || input.numel() == 0) return input;
  if (p == 1) return mul(input, zeros({}, input.dtype(), input.device()));
  return dropout(input, p);
}

Tensor native::dropout(const Tensor& input, double p) {
  return std::get<0>(native_dropout(input, p));
}

namespace {
// One Bernoulli(1 - p) draw per (N, C) channel, shaped to broadcast over the feature dims.
Tensor channel_noise(const Tensor& input, double p) {
  MT_CHECK(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  DimVector shape(static_cast<size_t>(input.dim()), 1);
  shape[0] = input.sizes()[0];
  shape[1] = input.sizes()[1];
  Tensor noise = make_empty(shape, input.dtype(), input.device());
  bernoulli_(noise, 1 - p);
  return noise;
}
}  // namespace

Tensor feature_dropout(const Tensor& input, double p, bool train) {
  check_p(p);
  if (!train || p == 0 || input.numel() == 0) return input;
  if (p == 1) return mul(input, zeros({}, input.dtype(), input.device()));
  Tensor noise = channel_noise(input, p);
  return mul(input, mul(noise, Sc(1.0 / (1.0 - p))));
}

Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  check_p(p);
  if (!train || p == 0 || input.numel() == 0) return input;
  if (p == 1) return mul(input, zeros({}, input.dtype(), input.device()));
  // PyTorch's formula (SELU's fixed point): dropped units go to -alpha', then an affine map restores mean
  // and variance
  constexpr double alpha = 1.7580993408473766;
  double a = 1. / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  Tensor noise = make_empty(input.sizes(), input.dtype(), input.device());
  bernoulli_(noise, 1 - p);
  Tensor b = add(mul(sub(noise, Sc(1)), Sc(alpha * a)), Sc(alpha * a * p));
  return add(mul(input, mul(noise, Sc(a))), b);
}

// ---- pdist's kernel (the CPU's; F.pdist composes from ops on other devices)

static void check_pdist_input(const Tensor& input, double p) {
  MT_CHECK(input.dim() == 2, "pdist only supports 2D tensors, got: ", input.dim(), "D");
  MT_CHECK(p >= 0, "pdist only supports non-negative p values");
  MT_CHECK(input.device().is_cpu(), "_pdist: the fused kernel is the CPU's; got a tensor on ",
           input.device().str());
  MT_CHECK_NOT_IMPLEMENTED(input.dtype() == ScalarType::Float || input.dtype() == ScalarType::Double,
                           "\"_pdist_forward\" not implemented for '", dtype_short_name(input.dtype()), "'");
}

Tensor pdist_forward(const Tensor& input, double p) {
  check_pdist_input(input, p);
  const int64_t n = input.sizes()[0];
  Tensor out = make_empty({n > 1 ? n * (n - 1) / 2 : 0}, input.dtype(), input.device());
  if (n > 1 && input.sizes()[1] > 0) {
    pdist_stub.get(DeviceType::CPU)(out, Tensor(), contiguous(input), Tensor(), p);
  } else if (out.numel() > 0) {
    FreshWrites fresh;
    fill_(out, Scalar(0.0));
  }
  return out;
}

Tensor pdist_backward(const Tensor& grad, const Tensor& input, double p, const Tensor& pdist) {
  check_pdist_input(input, p);
  MT_CHECK(grad.dtype() == input.dtype() && pdist.dtype() == input.dtype() && grad.numel() == pdist.numel() &&
               pdist.numel() == (input.sizes()[0] > 1 ? input.sizes()[0] * (input.sizes()[0] - 1) / 2 : 0),
           "_pdist_backward: grad and pdist must be the forward's result shape and input's dtype");
  Tensor out = make_empty(input.sizes(), input.dtype(), input.device());
  if (input.numel() == 0) return out;
  if (pdist.numel() == 0) {  // one row: no pairs, a zero gradient
    FreshWrites fresh;
    fill_(out, Scalar(0.0));
    return out;
  }
  pdist_stub.get(DeviceType::CPU)(out, contiguous(grad), contiguous(input), contiguous(pdist), p);
  return out;
}

}  // namespace mt
