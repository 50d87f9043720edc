// The one list of primitive ops, as two X-macro tables: every DispatchStub (what a device backend implements)
// and every recording twin (what autograd records). Stub declarations (ops/kernels.h and the family headers),
// stub definitions and the count check (ops/op_table.cpp), the twins' declarations (autograd/record.h) and
// _C._op_table() all expand these tables, so a stub or a twin exists exactly when it has a row here.
// tests/ops/test_op_table.py and tests/autograd/test_autograd_table.py iterate _C._op_table() (kernels per
// device, a case per op and dtype, a gradcheck per twin).
#pragma once

// ---- dispatch stubs: _(stub, ops/ family of its front end, kernel signature), grouped by the header that
// declares them next to the signature's types (that header expands its group with MT_DECLARE_STUB_ROW).
// The kernel registered for <name>_stub is <name>_cpu / <name>_cuda (tests/project/test_layering.py checks).
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
  _(addc_stub, elementwise, AddcKernelFn) \
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
  _(cum_extreme_stub, reduce, CumExtremeKernelFn) \
  _(softmax_stub, reduce, SoftmaxKernelFn) \
  _(equal_stub, reduce, EqualFn)
#define MT_STUBS_SORT_H(_) \
  _(sort_stub, sort, SortKernelFn) \
  _(mode_stub, sort, ModeKernelFn) \
  _(select_stub, sort, SelectKernelFn) \
  _(triangle_stub, sort, TriangleFn) \
  _(searchsorted_stub, sort, SearchsortedFn) \
  _(histogram_stub, sort, HistogramFn) \
  _(unique_consecutive_stub, sort, UniqueConsecutiveFn)
#define MT_STUBS_LINALG_H(_) \
  _(gemm_stub, linalg, GemmKernelFn) \
  _(cross_stub, linalg, CrossKernelFn)
#define MT_STUBS_LINALG_DECOMP_H(_) \
  _(lu_factor_stub, linalg_decomp, LuFactorFn) \
  _(lu_solve_stub, linalg_decomp, LuSolveFn) \
  _(ldl_factor_stub, linalg_decomp, LdlFactorFn) \
  _(ldl_solve_stub, linalg_decomp, LdlSolveFn) \
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
#define MT_STUBS_SPARSE_H(_) \
  _(csr_mm_stub, sparse, CsrMmFn) \
  _(csr_sddmm_stub, sparse, CsrSddmmFn)
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
  _(upsample_backward_stub, upsample, UpsampleBackwardFn) \
  _(upsample_aa_stub, upsample, UpsampleAaFn) \
  _(upsample_aa_backward_stub, upsample, UpsampleAaBackwardFn)
#define MT_STUBS_GRID_SAMPLE_H(_) \
  _(grid_sampler_stub, grid_sample, GridSamplerFn) \
  _(grid_sampler_backward_stub, grid_sample, GridSamplerBackwardFn)
#define MT_STUBS_NN_H(_) \
  _(row_norm_stub, nn, RowNormFn) \
  _(row_norm_backward_stub, nn, RowNormBackwardFn) \
  _(channel_stats_stub, nn, ChannelStatsFn) \
  _(channel_affine_stub, nn, ChannelAffineFn) \
  _(channel_grad_sums_stub, nn, ChannelGradSumsFn) \
  _(channel_grad_input_stub, nn, ChannelGradInputFn) \
  _(embedding_stub, nn, EmbeddingFn) \
  _(embedding_backward_stub, nn, EmbeddingBackwardFn) \
  _(dropout_stub, nn, DropoutFn) \
  _(pdist_stub, nn, PdistFn)
#define MT_STUBS_LOSS_H(_) \
  _(class_loss_forward_stub, loss, ClassLossForwardFn) \
  _(class_loss_backward_stub, loss, ClassLossBackwardFn) \
  _(huber_loss_stub, loss, HuberLossFn) \
  _(ctc_loss_stub, loss, CtcLossFn) \
  _(ctc_loss_backward_stub, loss, CtcLossBackwardFn)
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
  MT_STUBS_LINALG_DECOMP_H(_) MT_STUBS_FFT_H(_) MT_STUBS_SPARSE_H(_) MT_STUBS_CONV_H(_) MT_STUBS_POOL_H(_) MT_STUBS_UPSAMPLE_H(_) MT_STUBS_GRID_SAMPLE_H(_) MT_STUBS_NN_H(_) \
  MT_STUBS_LOSS_H(_) MT_STUBS_ATTENTION_H(_) MT_STUBS_RNN_H(_) MT_STUBS_FOREACH_H(_)
// clang-format on
// How many rows each table has: ops/op_table.cpp checks both with a static_assert, so adding or removing a
// row is a visible change to this file (and the tests that iterate the table see it).
#define MT_NUM_DISPATCH_STUBS 86

// ---- recording twins: _(name, ops/ family, return type, parameters), generated from csrc/ops/ops.schema's
// `twin` rows; autograd/record.h declares them in mt::autograd, derivatives.cpp / views.cpp define them (a
// twin missing from the table does not compile at its call site). Overloads repeat the name.
#include <vector>

#include "core/Device.h"
#include "generated/twins.h"

namespace mt {
// One row of MT_DISPATCH_STUBS as the running binary has it: which device types registered a kernel.
struct StubRow {
  const char* name;
  const char* family;
  bool has_kernel[kNumDeviceTypes];
};
std::vector<StubRow> dispatch_stub_rows();  // ops/op_table.cpp, in table order
}  // namespace mt
