"""One call per dispatch stub (csrc/ops/op_table.h), written against the PyTorch API so the same code runs on
minitorch and on PyTorch: scripts/classify_stub_dtypes.py runs it on PyTorch for every dtype and records what
happens in tests/ops/stub_dtype_oracle.py; tests/ops/test_op_table.py runs it on minitorch and compares, so every
(stub, dtype) pair has a value check or an expected error. Each case returns float64 NumPy values."""

import numpy as np

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]

A = [[0.5, -1.25, 2.0], [3.0, 1.5, -0.75]]  # exact in every float dtype; ints and bool round or test != 0
B = [[1.0, 2.0, -1.5], [0.25, -3.0, 1.0]]
X4 = np.linspace(-2.0, 2.0, 32).reshape(1, 2, 4, 4)  # (N, C, H, W)
GRID = [
    [[[-0.75, 0.5], [0.25, -1.0]], [[1.125, 0.375], [-0.5, -0.25]]]
]  # (N, Ho, Wo, 2), exact in every float dtype
SQ = [
    [2.0, -1.0, 0.5],
    [0.0, 1.5, 1.0],
    [1.0, 0.5, 3.0],
]  # the decompositions' square matrix (well conditioned)
CTC_LP = [
    [[-0.5, -1.25, -2.0], [-1.5, -0.75, -1.0]],
    [[-2.0, -0.5, -1.0], [-0.25, -1.5, -3.0]],
    [[-1.0, -1.0, -0.5], [-2.5, -0.5, -1.25]],
]
SPD = [[4.0, 1.0, 0.5], [1.0, 3.0, -0.5], [0.5, -0.5, 2.0]]  # symmetric positive-definite


def t(T, values, dtype, device="cpu"):
    """`values` as a tensor of `dtype` (a name), converted from float64 as copy_ converts."""
    return T.tensor(np.asarray(values, dtype=np.float64), dtype=T.float64).to(getattr(T, dtype)).to(device)


def flat(*ts):
    return np.concatenate(
        [np.asarray(x.detach().double().cpu().numpy(), dtype=np.float64).ravel() for x in ts]
    )


def leaf(T, values, dtype, device):
    return t(T, values, dtype, device).requires_grad_()


def private(T, name):
    """torch._foreach_mul_ and friends; minitorch keeps them on _C (its optimizers call them there)."""
    return getattr(T, name) if hasattr(T, name) else getattr(T._C, name)


def grad_of(fn, *xs):
    fn(*xs).double().sum().backward()
    return flat(*[x.grad for x in xs])


def _kth(T, dt, dev):
    x = t(T, A, dt, dev)
    # median/nanmedian of all elements: the kernel's value-only selection
    return flat(T.kthvalue(x, 2, 1).values, T.median(x).reshape(1), T.nanmedian(x).reshape(1))


def _equal(T, dt, dev):
    x = t(T, A, dt, dev)
    pairs = [(x, x.clone()), (x, t(T, B, dt, dev)), (x, x.flip(1).contiguous())]
    return np.array([float(T.equal(a, b)) for a, b in pairs], dtype=np.float64)


def _mode(T, dt, dev):
    return flat(T.mode(t(T, [[1, 2, 2, 0], [3, 3, 1, 1]], dt, dev), 1).values)


def _dropout(T, dt, dev):
    x = t(T, np.arange(1, 201).reshape(10, 20) % 7 + 1, dt, dev)
    y = T.nn.functional.dropout(x, 0.5, True)
    kept = y != 0
    return flat((y[kept] == x[kept] * 2).all(), kept.any(), (~kept).any())


def _batch_norm_train(T, dt, dev):
    return flat(T.nn.functional.batch_norm(t(T, X4, dt, dev), None, None, training=True))


def _batch_norm_eval(T, dt, dev):
    rm, rv = t(T, [0.5, -0.5], dt, dev), t(T, [2.0, 0.5], dt, dev)
    w, b = t(T, [1.5, -1.0], dt, dev), t(T, [0.25, 0.5], dt, dev)
    return flat(T.nn.functional.batch_norm(t(T, X4, dt, dev), rm, rv, w, b, training=False))


def _sdpa(T, dt, dev, grad):
    q = leaf(T, np.linspace(-1, 1, 12).reshape(1, 3, 4), dt, dev)
    k = leaf(T, np.linspace(1, -1, 20).reshape(1, 5, 4), dt, dev)
    v = leaf(T, np.linspace(-0.5, 2, 20).reshape(1, 5, 4), dt, dev)
    f = T.nn.functional.scaled_dot_product_attention
    return grad_of(f, q, k, v) if grad else flat(f(q, k, v))


def _foreach_mul(T, dt, dev):
    xs = [t(T, A, dt, dev), t(T, B, dt, dev)]
    private(T, "_foreach_mul_")(xs, 2)
    return flat(*xs)


def _amp(T, dt, dev):
    scale, tracker = t(T, [4.0], dt, dev), T.zeros(1, dtype=T.int32, device=dev)
    private(T, "_amp_update_scale_")(scale, tracker, t(T, [1.0], dt, dev), 2.0, 0.5, 3)
    return flat(scale, tracker)


# stub -> case(torch module, dtype name, device) -> float64 values. Stubs with no CPU kernel (ops/op_table.h,
# tests/ops/test_op_table.py CUDA_ONLY) are exercised by the CUDA tests of their op instead.
CASES = {
    "copy_stub": lambda T, dt, dev: flat(
        T.empty(6, dtype=getattr(T, dt), device=dev).copy_(t(T, range(6), "float64"))
    ),
    "fill_stub": lambda T, dt, dev: flat(T.full((2, 3), 3, dtype=getattr(T, dt), device=dev)),
    "random_fill_stub": lambda T, dt, dev: np.unique(
        flat(T.randint(0, 2 if dt == "bool" else 5, (400,), dtype=getattr(T, dt), device=dev))
    ),
    "unary_stub": lambda T, dt, dev: flat(T.neg(t(T, A, dt, dev))),
    "binary_stub": lambda T, dt, dev: flat(T.mul(t(T, A, dt, dev), t(T, B, dt, dev))),
    "where_stub": lambda T, dt, dev: flat(
        T.where(t(T, [[1, 0, 1], [0, 0, 1]], "bool", dev), t(T, A, dt, dev), t(T, B, dt, dev))
    ),
    "clamp_stub": lambda T, dt, dev: flat(
        T.clamp(t(T, A, dt, dev), t(T, [0, 1, 0], dt, dev), t(T, [1, 2, 2], dt, dev))
    ),
    "param_unary_stub": lambda T, dt, dev: flat(T.nn.functional.leaky_relu(t(T, A, dt, dev), 0.25)),
    "lerp_stub": lambda T, dt, dev: flat(
        T.lerp(t(T, A, dt, dev), t(T, B, dt, dev), t(T, [0.25, 0.75, 0.5], dt, dev)),
        T.lerp(t(T, A, dt, dev), t(T, B, dt, dev), 0.75),
    ),
    "addc_stub": lambda T, dt, dev: flat(
        T.addcmul(t(T, A, dt, dev), t(T, B, dt, dev), t(T, [0.5, -2.0, 1.0], dt, dev), value=0.5),
        T.addcdiv(t(T, A, dt, dev), t(T, B, dt, dev), t(T, [0.5, -2.0, 1.0], dt, dev), value=2),
    ),
    "index_gather_stub": lambda T, dt, dev: flat(t(T, A, dt, dev)[T.tensor([1, 0, 1], device=dev)]),
    "index_put_stub": lambda T, dt, dev: flat(
        t(T, A, dt, dev).index_put_((T.tensor([1, 0], device=dev),), t(T, B, dt, dev), accumulate=True)
    ),
    "nonzero_stub": lambda T, dt, dev: flat(T.nonzero(t(T, A, dt, dev))),
    "gather_dim_stub": lambda T, dt, dev: flat(
        T.gather(t(T, A, dt, dev), 1, T.tensor([[2, 0], [1, 1]], device=dev))
    ),
    "scatter_dim_stub": lambda T, dt, dev: flat(
        t(T, A, dt, dev).scatter_(1, T.tensor([[2, 0], [1, 0]], device=dev), t(T, B, dt, dev))
    ),
    "reduce_stub": lambda T, dt, dev: flat(T.sum(t(T, A, dt, dev), 1)),
    "arg_reduce_stub": lambda T, dt, dev: flat(T.argmax(t(T, A, dt, dev), 1)),
    "scan_stub": lambda T, dt, dev: flat(T.cumsum(t(T, A, dt, dev), 1)),
    "cum_extreme_stub": lambda T, dt, dev: flat(
        *T.cummax(t(T, A, dt, dev), 1), *T.cummin(t(T, A, dt, dev), 0)
    ),
    "softmax_stub": lambda T, dt, dev: flat(T.softmax(t(T, A, dt, dev), 1)),
    "equal_stub": _equal,
    "sort_stub": lambda T, dt, dev: flat(*T.sort(t(T, A, dt, dev), dim=1, stable=True)),
    "mode_stub": _mode,
    "select_stub": _kth,
    "triangle_stub": lambda T, dt, dev: flat(T.tril(t(T, SQ, dt, dev), -1), t(T, SQ, dt, dev).triu_(1)),
    # runs of equal values, a 2-D input flattened (values exact in every dtype; bool: runs of nonzero)
    "unique_consecutive_stub": lambda T, dt, dev: flat(
        T.unique_consecutive(t(T, [[1.0, 1.0, 2.5], [2.5, 0.0, 0.0], [3.0, 3.0, 1.0]], dt, dev))
    ),
    "searchsorted_stub": lambda T, dt, dev: flat(
        T.searchsorted(t(T, np.sort(A, 1), dt, dev), t(T, B, dt, dev)),
        T.searchsorted(t(T, np.sort(A, 1), dt, dev), t(T, A, dt, dev), right=True),
    ),
    # histc over the data's range, then histogram's evenly spaced edges over a range and a tensor of edges
    "histogram_stub": lambda T, dt, dev: flat(
        T.histc(t(T, A, dt, dev), 5),
        T.histogram(t(T, B, dt, dev), 3, range=(-2.0, 2.0))[0],
        T.histogram(t(T, A, dt, dev), t(T, [-1.0, 0.0, 0.5, 3.0], dt, dev))[0],
    ),
    # sparse @ dense and dense @ sparse (the transposed product); the values' gradient through to_sparse
    "csr_mm_stub": lambda T, dt, dev: flat(
        T.sparse.mm(t(T, A, dt, dev).to_sparse(), t(T, B, dt, dev).t()),
        T.mm(t(T, SQ, dt, dev), t(T, SQ, dt, dev).tril().to_sparse()),
    ),
    "csr_sddmm_stub": lambda T, dt, dev: grad_of(
        lambda x: T.sparse.mm(x.to_sparse(), t(T, B, dt, dev).t()) * t(T, SQ, dt, dev)[:2, :2],
        leaf(T, A, dt, dev),
    ),
    "gemm_stub": lambda T, dt, dev: flat(T.mm(t(T, A, dt, dev), t(T, B, dt, dev).t())),
    "cross_stub": lambda T, dt, dev: flat(T.linalg.cross(t(T, A, dt, dev), t(T, B, dt, dev))),
    "lu_factor_stub": lambda T, dt, dev: flat(*T.linalg.lu_factor(t(T, SQ, dt, dev))),
    "lu_solve_stub": lambda T, dt, dev: flat(
        T.linalg.lu_solve(*T.linalg.lu_factor(t(T, SQ, dt, dev)), t(T, np.transpose(A), dt, dev))
    ),
    "ldl_factor_stub": lambda T, dt, dev: flat(*T.linalg.ldl_factor(t(T, SPD, dt, dev))),
    "ldl_solve_stub": lambda T, dt, dev: flat(
        T.linalg.ldl_solve(*T.linalg.ldl_factor(t(T, SPD, dt, dev)), t(T, np.transpose(A), dt, dev))
    ),
    "cholesky_stub": lambda T, dt, dev: flat(T.linalg.cholesky(t(T, SPD, dt, dev))),
    "triangular_solve_stub": lambda T, dt, dev: flat(
        T.linalg.solve_triangular(t(T, SQ, dt, dev), t(T, np.transpose(A), dt, dev), upper=True)
    ),
    "geqrf_stub": lambda T, dt, dev: flat(*T.geqrf(t(T, np.transpose(A), dt, dev))),
    "householder_product_stub": lambda T, dt, dev: flat(
        T.linalg.householder_product(*T.geqrf(t(T, np.transpose(A), dt, dev)))
    ),
    "eigh_stub": lambda T, dt, dev: flat(T.linalg.eigvalsh(t(T, SPD, dt, dev))),
    # the eigenvalues sorted by parts: LAPACK builds may order a general matrix's eigenvalues differently
    "eig_stub": lambda T, dt, dev: flat(
        T.sort(T.linalg.eigvals(t(T, SQ, dt, dev)).real).values,
        T.sort(T.linalg.eigvals(t(T, SQ, dt, dev)).imag).values,
    ),
    "svd_stub": lambda T, dt, dev: flat(T.linalg.svdvals(t(T, A, dt, dev))),
    "lstsq_stub": lambda T, dt, dev: flat(
        T.linalg.lstsq(t(T, np.transpose(A), dt, dev), t(T, [[1.0], [2.0], [-1.0]], dt, dev)).solution
    ),
    "conv_forward_stub": lambda T, dt, dev: flat(
        T.nn.functional.conv2d(t(T, X4, dt, dev), t(T, np.linspace(-1, 1, 36).reshape(2, 2, 3, 3), dt, dev))
    ),
    "conv_backward_input_stub": lambda T, dt, dev: grad_of(
        lambda x: T.nn.functional.conv2d(x, t(T, np.linspace(-1, 1, 36).reshape(2, 2, 3, 3), dt, dev)),
        leaf(T, X4, dt, dev),
    ),
    "conv_backward_weight_stub": lambda T, dt, dev: grad_of(
        lambda w: T.nn.functional.conv2d(t(T, X4, dt, dev), w),
        leaf(T, np.linspace(-1, 1, 36).reshape(2, 2, 3, 3), dt, dev),
    ),
    "max_pool2d_stub": lambda T, dt, dev: flat(T.nn.functional.max_pool2d(t(T, X4, dt, dev), 2)),
    "avg_pool2d_stub": lambda T, dt, dev: flat(T.nn.functional.avg_pool2d(t(T, X4, dt, dev), 2)),
    "max_pool2d_backward_stub": lambda T, dt, dev: grad_of(
        lambda x: T.nn.functional.max_pool2d(x, 2), leaf(T, X4, dt, dev)
    ),
    "avg_pool2d_backward_stub": lambda T, dt, dev: grad_of(
        lambda x: T.nn.functional.avg_pool2d(x, 2), leaf(T, X4, dt, dev)
    ),
    "upsample_stub": lambda T, dt, dev: flat(
        T.nn.functional.interpolate(t(T, X4, dt, dev), scale_factor=2, mode="bilinear", align_corners=False)
    ),
    "upsample_backward_stub": lambda T, dt, dev: grad_of(
        lambda x: T.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
        leaf(T, X4, dt, dev),
    ),
    "upsample_aa_stub": lambda T, dt, dev: flat(
        T.nn.functional.interpolate(t(T, X4, dt, dev), size=(3, 5), mode="bicubic", antialias=True)
    ),
    "upsample_aa_backward_stub": lambda T, dt, dev: grad_of(
        lambda x: T.nn.functional.interpolate(x, size=(3, 5), mode="bicubic", antialias=True),
        leaf(T, X4, dt, dev),
    ),
    "grid_sampler_stub": lambda T, dt, dev: flat(
        T.nn.functional.grid_sample(t(T, X4, dt, dev), t(T, GRID, dt, dev), align_corners=False)
    ),
    "grid_sampler_backward_stub": lambda T, dt, dev: grad_of(
        lambda x, g: T.nn.functional.grid_sample(x, g, align_corners=False),
        leaf(T, X4, dt, dev),
        leaf(T, GRID, dt, dev),
    ),
    "row_norm_stub": lambda T, dt, dev: flat(T.nn.functional.layer_norm(t(T, A, dt, dev), (3,))),
    "row_norm_backward_stub": lambda T, dt, dev: grad_of(
        lambda x, w: T.nn.functional.layer_norm(x, (3,), w) * t(T, B, dt, dev),
        leaf(T, A, dt, dev),
        leaf(T, [1.5, -1, 2], dt, dev),
    ),
    "channel_stats_stub": _batch_norm_train,
    "channel_affine_stub": _batch_norm_eval,
    "channel_grad_sums_stub": lambda T, dt, dev: grad_of(
        lambda x, w: (
            T.nn.functional.batch_norm(x, None, None, w, None, training=True) * t(T, np.cos(3 * X4), dt, dev)
        ),
        leaf(T, X4, dt, dev),
        leaf(T, [1.5, -1], dt, dev),
    ),
    "channel_grad_input_stub": lambda T, dt, dev: grad_of(
        lambda x: T.nn.functional.batch_norm(x, None, None, training=True) * t(T, np.cos(3 * X4), dt, dev),
        leaf(T, X4, dt, dev),
    ),
    "embedding_stub": lambda T, dt, dev: flat(
        T.nn.functional.embedding(
            T.tensor([[2, 0], [1, 2]], device=dev), t(T, [[1, 2], [3, 4], [5, 6]], dt, dev)
        )
    ),
    "embedding_backward_stub": lambda T, dt, dev: grad_of(
        lambda w: (
            T.nn.functional.embedding(T.tensor([[2, 0], [2, 2]], device=dev), w)
            * t(T, [[1, 2], [3, 4]], dt, dev)
        ),
        leaf(T, [[1, 2], [3, 4], [5, 6]], dt, dev),
    ),
    "dropout_stub": _dropout,
    "class_loss_forward_stub": lambda T, dt, dev: flat(
        T.nn.functional.cross_entropy(t(T, A, dt, dev), T.tensor([2, 0], device=dev), reduction="none")
    ),
    "class_loss_backward_stub": lambda T, dt, dev: grad_of(
        lambda x: T.nn.functional.cross_entropy(x, T.tensor([2, 0], device=dev)), leaf(T, A, dt, dev)
    ),
    "huber_loss_stub": lambda T, dt, dev: np.concatenate(
        [
            flat(
                T.nn.functional.huber_loss(t(T, A, dt, dev), t(T, B, dt, dev), reduction="none", delta=0.8),
                T.nn.functional.smooth_l1_loss(t(T, A, dt, dev), t(T, B, dt, dev), reduction="sum", beta=0.6),
            ),
            grad_of(
                lambda x: T.nn.functional.huber_loss(x, t(T, B, dt, dev), delta=0.8), leaf(T, A, dt, dev)
            ),
        ]
    ),
    # CTC over log-probabilities (T=3, N=2, C=3 exact in every float dtype; not normalized, which the loss
    # does not need): sample 0 repeats a label (a blank must separate them), sample 1 is one frame shorter
    "ctc_loss_stub": lambda T, dt, dev: flat(
        T.nn.functional.ctc_loss(
            t(T, CTC_LP, dt, dev), T.tensor([[1, 1], [2, 0]], device=dev), [3, 2], [2, 1], reduction="none"
        )
    ),
    "ctc_loss_backward_stub": lambda T, dt, dev: grad_of(
        lambda x: T.nn.functional.ctc_loss(x, T.tensor([[1, 2], [2, 0]], device=dev), [3, 2], [2, 1]),
        leaf(T, CTC_LP, dt, dev),
    ),
    "pdist_stub": lambda T, dt, dev: grad_of(lambda x: T.nn.functional.pdist(x, 3.0), leaf(T, A, dt, dev)),
    "sdpa_forward_stub": lambda T, dt, dev: _sdpa(T, dt, dev, False),
    "sdpa_backward_stub": lambda T, dt, dev: _sdpa(T, dt, dev, True),
    "foreach_stub": _foreach_mul,
    "foreach_norm_stub": lambda T, dt, dev: flat(
        *private(T, "_foreach_norm")([t(T, A, dt, dev), t(T, B, dt, dev)])
    ),
    "amp_update_scale_stub": _amp,
    "fft_r2c_stub": lambda T, dt, dev: flat(T.view_as_real(T.fft.rfft(t(T, A, dt, dev), dim=1))),
    "fft_c2c_stub": lambda T, dt, dev: flat(
        T.view_as_real(T.fft.ifft(T.fft.rfft(t(T, A, dt, dev), dim=1), dim=1))
    ),
    "fft_c2r_stub": lambda T, dt, dev: flat(T.fft.irfft(T.fft.rfft(t(T, A, dt, dev), dim=1), n=3, dim=1)),
}


def run(T, stub, dtype, device="cpu"):
    """("ok", values) or ("err", exception class name, first line of the message)."""
    try:
        return ("ok", CASES[stub](T, dtype, device))
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        return ("err", type(e).__name__, str(e).strip().split("\n")[0])
