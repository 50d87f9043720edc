// The one list of primitive ops, as two X-macro tables: every DispatchStub (what a device backend implements)
// and every recording twin (what autograd records). Stub declarations (ops/kernels.h and the family headers),
// stub definitions and the count check (ops/op_table.cpp), the twins' declarations (autograd/record.h) and
// _C._op_table() all expand these tables, so a stub or a twin exists exactly when it has a row here.
// tests/test_op_table.py and tests/test_autograd_table.py iterate _C._op_table() (kernels per device, a case
// per op and dtype, a gradcheck per twin).
#pragma once

// ---- dispatch stubs: _(stub, ops/ family of its front end, kernel signature), grouped by the header that
// declares them next to the signature's types (that header expands its group with MT_DECLARE_STUB_ROW).
// The kernel registered for <name>_stub is <name>_cpu / <name>_cuda (tests/test_layering.py checks).
// clang-format off
#define MT_STUBS_KERNELS_H(_) \
  _(copy_stub, copy, CopyKernelFn) \
  _(cross_device_copy_stub, copy, CrossDeviceCopyFn) \
  _(fill_stub, copy, FillKernelFn) \
  _(random_fill_stub, factory, RandomFillFn) \
  _(unary_stub, elementwise, UnaryKernelFn) \
  _(binary_stub, elementwise, BinaryKernelFn) \
  _(where_stub, elementwise, WhereKernelFn) \
  _(clamp_stub, elementwise, ClampKernelFn) \
  _(param_unary_stub, elementwise, ParamUnaryKernelFn) \
  _(lerp_stub, elementwise, LerpKernelFn) \
  _(index_gather_stub, index, IndexGatherFn) \
  _(index_put_stub, index, IndexPutFn) \
  _(nonzero_stub, index, NonzeroFn)
#define MT_STUBS_INDEX_DIM_H(_) \
  _(gather_dim_stub, index, GatherDimFn) \
  _(scatter_dim_stub, index, ScatterDimFn)
#define MT_STUBS_REDUCE_H(_) \
  _(reduce_stub, reduce, ReduceKernelFn) \
  _(arg_reduce_stub, reduce, ArgReduceKernelFn) \
  _(scan_stub, reduce, ScanKernelFn) \
  _(softmax_stub, reduce, SoftmaxKernelFn)
#define MT_STUBS_SORT_H(_) \
  _(sort_stub, sort, SortKernelFn) \
  _(mode_stub, sort, ModeKernelFn) \
  _(select_stub, sort, SelectKernelFn)
#define MT_STUBS_LINALG_H(_) \
  _(gemm_stub, linalg, GemmKernelFn)
#define MT_STUBS_LINALG_DECOMP_H(_) \
  _(lu_factor_stub, linalg_decomp, LuFactorFn) \
  _(lu_solve_stub, linalg_decomp, LuSolveFn) \
  _(cholesky_stub, linalg_decomp, CholeskyFn) \
  _(triangular_solve_stub, linalg_decomp, TriangularSolveFn) \
  _(geqrf_stub, linalg_decomp, GeqrfFn) \
  _(householder_product_stub, linalg_decomp, HouseholderProductFn) \
  _(eigh_stub, linalg_decomp, EighFn) \
  _(eig_stub, linalg_decomp, EigFn) \
  _(svd_stub, linalg_decomp, SvdFn) \
  _(lstsq_stub, linalg_decomp, LstsqFn)
#define MT_STUBS_FFT_H(_) \
  _(fft_c2c_stub, fft, FftC2CFn) \
  _(fft_r2c_stub, fft, FftR2CFn) \
  _(fft_c2r_stub, fft, FftC2RFn)
#define MT_STUBS_CONV_H(_) \
  _(conv_forward_stub, conv, ConvForwardFn) \
  _(conv_backward_input_stub, conv, ConvBackwardInputFn) \
  _(conv_backward_weight_stub, conv, ConvBackwardWeightFn) \
  _(cudnn_conv_forward_stub, conv, ConvForwardFn) \
  _(cudnn_conv_backward_input_stub, conv, ConvBackwardInputFn) \
  _(cudnn_conv_backward_weight_stub, conv, ConvBackwardWeightFn)
#define MT_STUBS_POOL_H(_) \
  _(max_pool2d_stub, pool, MaxPoolFn) \
  _(avg_pool2d_stub, pool, AvgPoolFn) \
  _(avg_pool2d_backward_stub, pool, AvgPoolBackwardFn) \
  _(max_pool2d_backward_stub, pool, MaxPoolBackwardFn)
#define MT_STUBS_UPSAMPLE_H(_) \
  _(upsample_stub, upsample, UpsampleFn) \
  _(upsample_backward_stub, upsample, UpsampleBackwardFn)
#define MT_STUBS_NN_H(_) \
  _(row_norm_stub, nn, RowNormFn) \
  _(row_norm_backward_stub, nn, RowNormBackwardFn) \
  _(channel_stats_stub, nn, ChannelStatsFn) \
  _(channel_affine_stub, nn, ChannelAffineFn) \
  _(channel_grad_sums_stub, nn, ChannelGradSumsFn) \
  _(channel_grad_input_stub, nn, ChannelGradInputFn) \
  _(embedding_stub, nn, EmbeddingFn) \
  _(embedding_backward_stub, nn, EmbeddingBackwardFn) \
  _(dropout_stub, nn, DropoutFn)
#define MT_STUBS_LOSS_H(_) \
  _(class_loss_forward_stub, loss, ClassLossForwardFn) \
  _(class_loss_backward_stub, loss, ClassLossBackwardFn)
#define MT_STUBS_ATTENTION_H(_) \
  _(sdpa_forward_stub, attention, SdpaForwardFn) \
  _(sdpa_backward_stub, attention, SdpaBackwardFn)
#define MT_STUBS_RNN_H(_) \
  _(cudnn_rnn_forward_stub, rnn, CudnnRnnForwardFn) \
  _(cudnn_rnn_backward_stub, rnn, CudnnRnnBackwardFn)
#define MT_STUBS_FOREACH_H(_) \
  _(foreach_stub, foreach, ForeachKernelFn) \
  _(foreach_norm_stub, foreach, ForeachNormFn) \
  _(amp_update_scale_stub, foreach, AmpUpdateScaleFn)

#define MT_DISPATCH_STUBS(_) \
  MT_STUBS_KERNELS_H(_) MT_STUBS_INDEX_DIM_H(_) MT_STUBS_REDUCE_H(_) MT_STUBS_SORT_H(_) MT_STUBS_LINALG_H(_) \
  MT_STUBS_LINALG_DECOMP_H(_) MT_STUBS_FFT_H(_) MT_STUBS_CONV_H(_) MT_STUBS_POOL_H(_) MT_STUBS_UPSAMPLE_H(_) MT_STUBS_NN_H(_) \
  MT_STUBS_LOSS_H(_) MT_STUBS_ATTENTION_H(_) MT_STUBS_RNN_H(_) MT_STUBS_FOREACH_H(_)
// clang-format on
// How many rows each table has: ops/op_table.cpp checks both with a static_assert, so adding or removing a
// row is a visible change to this file (and the tests that iterate the table see it).
#define MT_NUM_DISPATCH_STUBS 66

// ---- recording twins: _(name, ops/ family, return type, parameters); autograd/record.h declares them in
// mt::autograd, derivatives.cpp / views.cpp define them (a twin missing from the table does not compile at
// its call site). Overloads repeat the name.
// clang-format off
#define MT_AUTOGRAD_TWINS(_) \
  /* attention */ \
  _(sdpa, attention, Tensor, (const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, \
                              bool is_causal, double scale)) \
  /* complex */ \
  _(view_as_real, complex, Tensor, (const Tensor& self)) \
  _(view_as_complex, complex, Tensor, (const Tensor& self)) \
  /* conv */ \
  _(convolution, conv, Tensor, (const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, \
                                const ConvArgs& args)) \
  _(convolution_transpose, conv, Tensor, (const Tensor& input, const Tensor& weight, \
                                          const std::optional<Tensor>& bias, const ConvArgs& args, \
                                          IntArrayRef out_sizes)) \
  _(convolution_backward_weight, conv, Tensor, (const Tensor& grad_out, const Tensor& input, \
                                                IntArrayRef weight_sizes, const ConvArgs& args)) \
  /* copy */ \
  _(copy_, copy, const Tensor&, (const Tensor& self, const Tensor& src, bool non_blocking)) \
  _(clone, copy, Tensor, (const Tensor& self)) \
  _(to, copy, Tensor, (const Tensor& self, ScalarType dtype, Device device, bool copy, bool non_blocking)) \
  _(fill_, copy, const Tensor&, (const Tensor& self, const Scalar& value)) \
  /* elementwise */ \
  _(unary, elementwise, Tensor, (UnaryOp op, const Tensor& self)) \
  _(unary_, elementwise, const Tensor&, (UnaryOp op, const Tensor& self)) \
  _(binary, elementwise, Tensor, (BinaryOp op, const Tensor& a, const Tensor& b)) \
  _(binary_, elementwise, const Tensor&, (BinaryOp op, const Tensor& self, const Tensor& other)) \
  _(clamp, elementwise, Tensor, (const Tensor& self, const std::optional<Tensor>& min, \
                                 const std::optional<Tensor>& max)) \
  _(clamp_, elementwise, const Tensor&, (const Tensor& self, const std::optional<Tensor>& min, \
                                         const std::optional<Tensor>& max)) \
  _(where, elementwise, Tensor, (const Tensor& cond, const Tensor& a, const Tensor& b)) \
  _(masked_fill, elementwise, Tensor, (const Tensor& self, const Tensor& mask, const Tensor& value)) \
  _(masked_fill_, elementwise, const Tensor&, (const Tensor& self, const Tensor& mask, const Tensor& value)) \
  _(softplus, elementwise, Tensor, (const Tensor& self, double beta, double threshold)) \
  _(leaky_relu, elementwise, Tensor, (const Tensor& self, double negative_slope)) \
  _(polygamma, elementwise, Tensor, (int64_t n, const Tensor& self)) \
  /* index */ \
  _(index, index, Tensor, (const Tensor& self, const std::vector<std::optional<Tensor>>& indices)) \
  _(index_put_, index, const Tensor&, (const Tensor& self, const std::vector<std::optional<Tensor>>& indices, \
                                       const Tensor& values, bool accumulate)) \
  _(index_select, index, Tensor, (const Tensor& self, int64_t dim, const Tensor& index)) \
  _(gather, index, Tensor, (const Tensor& self, int64_t dim, const Tensor& index)) \
  _(scatter_, index, const Tensor&, (const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, \
                                     const std::string& reduce)) \
  /* linalg */ \
  _(mm, linalg, Tensor, (const Tensor& a, const Tensor& b)) \
  _(bmm, linalg, Tensor, (const Tensor& a, const Tensor& b)) \
  _(mv, linalg, Tensor, (const Tensor& a, const Tensor& v)) \
  _(dot, linalg, Tensor, (const Tensor& a, const Tensor& b)) \
  _(addmm, linalg, Tensor, (const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta, \
                            const Scalar& alpha)) \
  /* loss */ \
  _(class_loss, loss, Tensor, (const Tensor& input, const Tensor& target, const Tensor& weight, \
                               const ClassLossOptions& opt)) \
  _(mse_loss, loss, Tensor, (const Tensor& input, const Tensor& target, Reduction reduction)) \
  _(binary_cross_entropy, loss, Tensor, (const Tensor& input, const Tensor& target, const Tensor& weight, \
                                         Reduction reduction)) \
  /* nn */ \
  _(linear, nn, Tensor, (const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias)) \
  _(layer_norm, nn, Tensor, (const Tensor& input, IntArrayRef normalized_shape, \
                             const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, double eps)) \
  _(group_norm, nn, Tensor, (const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight, \
                             const std::optional<Tensor>& bias, double eps)) \
  _(batch_norm, nn, Tensor, (const Tensor& input, const std::optional<Tensor>& weight, \
                             const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean, \
                             const std::optional<Tensor>& running_var, bool training, double momentum, double eps)) \
  _(embedding, nn, Tensor, (const Tensor& weight, const Tensor& indices, int64_t padding_idx, \
                            bool scale_grad_by_freq, bool sparse)) \
  _(dropout, nn, Tensor, (const Tensor& input, double p)) \
  /* pool */ \
  _(max_pool2d_impl, pool, TensorPair, (const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow)) \
  _(avg_pool2d_impl, pool, Tensor, (const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow)) \
  _(avg_pool2d_backward, pool, Tensor, (const Tensor& grad_out, const PoolArgs& args, IntArrayRef input_sizes)) \
  _(max_pool2d_backward, pool, Tensor, (const Tensor& grad_out, const Tensor& indices, const PoolArgs& args, \
                                        IntArrayRef input_sizes)) \
  /* rnn */ \
  _(cudnn_rnn, rnn, TensorQuad, (const Tensor& x, const std::vector<Tensor>& weights, const Tensor& hx, \
                                 const Tensor& cx, const RnnArgs& args)) \
  /* upsample */ \
  _(upsample_impl, upsample, Tensor, (const Tensor& input, const UpsampleArgs& args)) \
  _(upsample_backward, upsample, Tensor, (const Tensor& grad_out, const UpsampleArgs& args, IntArrayRef input_sizes)) \
  /* reduce */ \
  _(sum, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype)) \
  _(mean, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype)) \
  _(prod, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype)) \
  _(amax, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim)) \
  _(amin, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim)) \
  _(var, reduce, Tensor, (const Tensor& self, IntArrayRef dims, double correction, bool keepdim)) \
  _(std, reduce, Tensor, (const Tensor& self, IntArrayRef dims, double correction, bool keepdim)) \
  _(norm, reduce, Tensor, (const Tensor& self, double p, IntArrayRef dims, bool keepdim)) \
  _(logsumexp, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim)) \
  _(max, reduce, Tensor, (const Tensor& self)) \
  _(min, reduce, Tensor, (const Tensor& self)) \
  _(max, reduce, TensorPair, (const Tensor& self, int64_t dim, bool keepdim)) \
  _(min, reduce, TensorPair, (const Tensor& self, int64_t dim, bool keepdim)) \
  _(cumsum, reduce, Tensor, (const Tensor& self, int64_t dim, ScalarType dtype)) \
  _(cumprod, reduce, Tensor, (const Tensor& self, int64_t dim, ScalarType dtype)) \
  _(softmax, reduce, Tensor, (const Tensor& self, int64_t dim, ScalarType dtype)) \
  _(log_softmax, reduce, Tensor, (const Tensor& self, int64_t dim, ScalarType dtype)) \
  /* shape */ \
  _(as_strided, shape, Tensor, (const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset)) \
  _(alias, shape, Tensor, (const Tensor& self)) \
  _(view, shape, Tensor, (const Tensor& self, IntArrayRef sizes)) \
  _(reshape, shape, Tensor, (const Tensor& self, IntArrayRef sizes)) \
  _(permute, shape, Tensor, (const Tensor& self, IntArrayRef dims)) \
  _(transpose, shape, Tensor, (const Tensor& self, int64_t d0, int64_t d1)) \
  _(squeeze, shape, Tensor, (const Tensor& self)) \
  _(squeeze, shape, Tensor, (const Tensor& self, IntArrayRef dims)) \
  _(unsqueeze, shape, Tensor, (const Tensor& self, int64_t dim)) \
  _(expand, shape, Tensor, (const Tensor& self, IntArrayRef sizes)) \
  _(select, shape, Tensor, (const Tensor& self, int64_t dim, int64_t index)) \
  _(slice, shape, Tensor, (const Tensor& self, int64_t dim, int64_t start, int64_t end, int64_t step)) \
  _(diagonal, shape, Tensor, (const Tensor& self, int64_t offset, int64_t d1, int64_t d2)) \
  _(split_with_sizes, shape, std::vector<Tensor>, (const Tensor& self, IntArrayRef sizes, int64_t dim)) \
  _(unbind, shape, std::vector<Tensor>, (const Tensor& self, int64_t dim)) \
  _(cat, shape, Tensor, (const std::vector<Tensor>& tensors, int64_t dim))
// clang-format on
#define MT_NUM_AUTOGRAD_TWINS 81

#include <vector>

#include "core/Device.h"

namespace mt {
// One row of MT_DISPATCH_STUBS as the running binary has it: which device types registered a kernel.
struct StubRow {
  const char* name;
  const char* family;
  bool has_kernel[kNumDeviceTypes];
};
std::vector<StubRow> dispatch_stub_rows();  // ops/op_table.cpp, in table order
}  // namespace mt
