// Front ends of the decompositions (ops/linalg_decomp.h): flatten the batch, copy each operand into the
// column-major layout LAPACK and cuSOLVER read, call the kernel, give the results back as [..., rows, cols]
// column-major views. A CUDA operand stays on its device when the stub has a CUDA kernel
// (kernels/cuda/linalg_cusolver.cpp: cuSOLVER and cuBLAS); a stub without one (ldl, eig) and lstsq's drivers
// other than gels take host LAPACK with a copy each way, which keeps linalg correct on every device.
#include "ops/linalg_decomp.h"

#include <algorithm>
#include <climits>

#include "core/FreshWrites.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/shape.h"
#include "ops/sort.h"

namespace mt {
namespace {

const Device kCpu{DeviceType::CPU};

void check_operand(const Tensor& t, const char* fn) {
  MT_CHECK(t.dim() >= 2, fn, ": The input tensor A must have at least 2 dimensions.");
  MT_CHECK_NOT_IMPLEMENTED(
      t.dtype() == ScalarType::Float || t.dtype() == ScalarType::Double || is_complex(t.dtype()), fn,
      ": Expected a floating point or complex tensor as input. Got ", dtype_short_name(t.dtype()));
  MT_CHECK(t.size(-2) < INT_MAX && t.size(-1) < INT_MAX, fn, ": matrices of ", t.size(-2), " by ", t.size(-1),
           " exceed LAPACK's 32-bit sizes");
}

DimVector batch_of(const Tensor& t) {
  DimVector b;
  for (int64_t d = 0; d + 2 < t.dim(); ++d) b.push_back(t.sizes()[d]);
  return b;
}

int64_t count(const DimVector& batch) {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return n;
}

DimVector with(const DimVector& batch, std::initializer_list<int64_t> tail) {
  DimVector s = batch;
  for (int64_t x : tail) s.push_back(x);
  return s;
}

// Where a host-only kernel runs for operands on `d`: the host, or the meta device itself (whose stub is a
// no-op: the outputs get their shapes without a value read).
Device host_for(Device d) {
  return d.is_meta() ? d : kCpu;
}

// Where a stub's kernel runs for operands on `d`: on d when the stub has a kernel there, else on the host.
template <typename Fn>
Device kernel_device(const DispatchStub<Fn>& stub, Device d) {
  return d.is_cuda() && stub.fns[static_cast<int>(d.type)] ? d : host_for(d);
}

// A private column-major copy of t [..., r, c] on `dev` (t's device or the host) as a contiguous [batch, c,
// r] buffer.
Tensor colmajor(const Tensor& t, Device dev) {
  Tensor src = t.device() != dev && (t.is_cuda() || dev.is_cuda()) ? to(t, t.dtype(), dev) : t;
  DimVector s{count(batch_of(t)), t.size(-1), t.size(-2)};
  return reshape(clone(contiguous(transpose(src, -2, -1))), s);
}

// A [batch, c, r] column-major buffer as [..., r, c] on `device` (a Fortran-strided view where it already
// is).
Tensor from_colmajor(const Tensor& buf, const DimVector& batch, Device device) {
  Tensor t = transpose(reshape(buf, with(batch, {buf.sizes()[1], buf.sizes()[2]})), -2, -1);
  return device.is_cuda() ? to(t, t.dtype(), device) : t;
}

Tensor on(const Tensor& t, Device device) {
  return t.device() == device ? t : to(t, t.dtype(), device);
}

// An int32 [batch] info tensor as [...] on the input's device.
Tensor info_like(const Tensor& info, const DimVector& batch, Device device) {
  return on(reshape(info, batch), device);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _linalg_lu_factor_ex(const Tensor& A) {
  check_operand(A, "linalg.lu_factor");
  DimVector batch = batch_of(A);
  int64_t k = std::min(A.size(-2), A.size(-1));
  const Device dev = kernel_device(lu_factor_stub, A.device());
  Tensor a = colmajor(A, dev);
  Tensor piv = zeros(DimVector{a.sizes()[0], k}, ScalarType::Int, dev);
  Tensor info = zeros(DimVector{a.sizes()[0]}, ScalarType::Int, dev);
  if (a.numel()) lu_factor_stub.get(dev)(a, piv, info);
  return {from_colmajor(a, batch, A.device()), on(reshape(piv, with(batch, {k})), A.device()),
          info_like(info, batch, A.device())};
}

Tensor _linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  check_operand(LU, "linalg.lu_solve");
  check_operand(B, "linalg.lu_solve");
  MT_CHECK(LU.size(-1) == LU.size(-2), "linalg.lu_solve: A must be batches of square matrices");
  MT_CHECK(B.dtype() == LU.dtype(), "linalg.lu_solve: Expected LU and B to have the same dtype");
  MT_CHECK(batch_of(LU) == batch_of(B) && pivots.dim() == LU.dim() - 1 && pivots.size(-1) == LU.size(-1),
           "linalg.lu_solve: LU, pivots and B must share their batch dimensions");
  // X A = B is A^T X^T = B^T: solve the transposed system against B's transpose. X A^H = B is
  // conj(A) X^T = B^T, which LAPACK has no flag for: conjugated, A conj(X^T) = conj(B^T) (conj is free on
  // real tensors).
  bool conj_right = !left && adjoint && is_complex(LU.dtype());
  Tensor rhs = left ? B : conj_right ? conj(transpose(B, -2, -1)) : transpose(B, -2, -1);
  char trans = left ? (adjoint ? 'C' : 'N') : (adjoint ? 'N' : 'T');
  MT_CHECK(rhs.size(-2) == LU.size(-1), "linalg.lu_solve: Incompatible shapes of A and B for the equation ",
           left ? "AX = B" : "XA = B", " (", LU.size(-2), "x", LU.size(-1), " and ", B.size(-2), "x",
           B.size(-1), ")");
  const Device dev = kernel_device(lu_solve_stub, LU.device());
  Tensor lu = colmajor(LU, dev), b = colmajor(rhs, dev);
  MT_CHECK(pivots.dtype() == ScalarType::Int,
           "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
  Tensor piv = contiguous(to(reshape(pivots, DimVector{lu.sizes()[0], LU.size(-1)}), ScalarType::Int, dev));
  // getrs swaps rows by these indices without checking them: one out of [1, n] writes outside B. PyTorch
  // checks them on the CPU only, as here: on CUDA the check would wait on the device, and the kernel clamps
  // them instead.
  const int* pv = dev.is_cuda() || dev.is_meta() ? nullptr : piv.data<int>();
  for (int64_t i = 0, n = pv ? piv.numel() : 0; i < n; ++i) {
    MT_CHECK(
        pv[i] >= 1,
        "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the result of "
        "lu_factor?");
    MT_CHECK(
        pv[i] <= LU.size(-2),
        "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly pass the "
        "result of lu_factor?");
  }
  if (b.numel() && lu.numel()) lu_solve_stub.get(dev)(lu, piv, b, trans);
  Tensor x = from_colmajor(b, batch_of(B), B.device());
  if (conj_right) x = conj(x);
  return left ? x : transpose(x, -2, -1);
}

std::tuple<Tensor, Tensor, Tensor> _linalg_ldl_factor_ex(const Tensor& A, bool hermitian) {
  check_operand(A, "torch.linalg.ldl_factor_ex");
  MT_CHECK(A.size(-1) == A.size(-2), "torch.linalg.ldl_factor_ex: A must be batches of square matrices");
  DimVector batch = batch_of(A);
  const int64_t n = A.size(-1);
  const Device host = host_for(A.device());
  Tensor a = colmajor(A, host);
  Tensor piv = zeros(DimVector{a.sizes()[0], n}, ScalarType::Int, host);
  Tensor info = zeros(DimVector{a.sizes()[0]}, ScalarType::Int, host);
  if (a.numel()) ldl_factor_stub.get(host)(a, piv, info, hermitian);
  // sytrf leaves the upper triangle as it was; the buffer is [c, r] row-major, so its triu is A's tril
  return {from_colmajor(triu(a, 0), batch, A.device()), on(reshape(piv, with(batch, {n})), A.device()),
          info_like(info, batch, A.device())};
}

Tensor _linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  check_operand(LD, "torch.linalg.ldl_solve");
  check_operand(B, "torch.linalg.ldl_solve");
  const int64_t n = LD.size(-1);
  MT_CHECK(LD.size(-2) == n, "torch.linalg.ldl_solve: A must be batches of square matrices");
  MT_CHECK(B.dtype() == LD.dtype(), "torch.linalg.ldl_solve: Expected LD and B to have the same dtype");
  MT_CHECK(
      batch_of(LD) == batch_of(B) && B.size(-2) == n && pivots.dim() == LD.dim() - 1 && pivots.size(-1) == n,
      "torch.linalg.ldl_solve: LD, pivots and B must share their batch dimensions");
  const Device host = host_for(LD.device());
  Tensor ld = colmajor(LD, host), b = colmajor(B, host);
  Tensor piv = contiguous(to(reshape(pivots, DimVector{ld.sizes()[0], n}), ScalarType::Int, host));
  // sytrs swaps rows by |pivot| without checking it: one outside [1, n] would write outside B
  const int* pv = host.is_meta() ? nullptr : piv.data<int>();
  for (int64_t i = 0, m = pv ? piv.numel() : 0; i < m; ++i)
    MT_CHECK(pv[i] != 0 && pv[i] >= -n && pv[i] <= n,
             "torch.linalg.ldl_solve: pivots must be LAPACK's sytrf pivots, nonzero with |pivot| <= ", n,
             ", got ", pv[i], ". Did you pass the result of ldl_factor?");
  if (b.numel() && ld.numel()) ldl_solve_stub.get(host)(ld, piv, b, hermitian);
  return from_colmajor(b, batch_of(B), B.device());
}

std::tuple<Tensor, Tensor> _linalg_cholesky_ex(const Tensor& A, bool upper) {
  check_operand(A, "linalg.cholesky");
  MT_CHECK(A.size(-1) == A.size(-2), "linalg.cholesky: A must be batches of square matrices");
  DimVector batch = batch_of(A);
  const Device dev = kernel_device(cholesky_stub, A.device());
  Tensor a = colmajor(A, dev);
  Tensor info = zeros(DimVector{a.sizes()[0]}, ScalarType::Int, dev);
  if (a.numel()) cholesky_stub.get(dev)(a, upper, info);
  // LAPACK leaves the other triangle as it was; the buffer is [c, r] row-major, so its tril is A's triu.
  Tensor f = upper ? tril(a, 0) : triu(a, 0);
  return {from_colmajor(f, batch, A.device()), info_like(info, batch, A.device())};
}

Tensor _linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  check_operand(A, "linalg.solve_triangular");
  check_operand(B, "linalg.solve_triangular");
  MT_CHECK(A.size(-1) == A.size(-2), "linalg.solve_triangular: A must be batches of square matrices");
  MT_CHECK(A.dtype() == B.dtype(), "linalg.solve_triangular: Expected A and B to have the same dtype");
  MT_CHECK(batch_of(A) == batch_of(B), "linalg.solve_triangular: A and B must share their batch dimensions");
  MT_CHECK((left ? B.size(-2) : B.size(-1)) == A.size(-1),
           "linalg.solve_triangular: Incompatible shapes of A and B for the equation ",
           left ? "AX = B" : "XA = B", " (", A.size(-2), "x", A.size(-1), " and ", B.size(-2), "x",
           B.size(-1), ")");
  const Device dev = kernel_device(triangular_solve_stub, A.device());
  Tensor a = colmajor(A, dev), b = colmajor(B, dev);
  if (b.numel()) triangular_solve_stub.get(dev)(a, b, upper, left, false, unitriangular);
  return from_colmajor(b, batch_of(B), B.device());
}

std::tuple<Tensor, Tensor> _linalg_geqrf(const Tensor& A) {
  check_operand(A, "geqrf");
  DimVector batch = batch_of(A);
  int64_t k = std::min(A.size(-2), A.size(-1));
  const Device dev = kernel_device(geqrf_stub, A.device());
  Tensor a = colmajor(A, dev);
  Tensor tau = zeros(DimVector{a.sizes()[0], k}, A.dtype(), dev);
  if (a.numel()) geqrf_stub.get(dev)(a, tau);
  return {from_colmajor(a, batch, A.device()), on(reshape(tau, with(batch, {k})), A.device())};
}

Tensor _linalg_householder_product(const Tensor& A, const Tensor& tau) {
  check_operand(A, "torch.linalg.householder_product");
  MT_CHECK(
      A.size(-2) >= A.size(-1),
      "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to input.shape[-1]");
  MT_CHECK(
      A.size(-1) >= tau.size(-1),
      "torch.linalg.householder_product: input.shape[-1] must be greater than or equal to tau.shape[-1]");
  MT_CHECK(
      tau.dim() == A.dim() - 1 && batch_of(A) == DimVector(tau.sizes().begin(), tau.sizes().end() - 1),
      "torch.linalg.householder_product: Expected batch dimensions of tau to be equal to input.shape[:-2]");
  MT_CHECK(tau.dtype() == A.dtype(), "torch.linalg.householder_product: tau dtype ",
           dtype_short_name(tau.dtype()), " does not match input dtype ", dtype_short_name(A.dtype()));
  const Device dev = kernel_device(householder_product_stub, A.device());
  Tensor a = colmajor(A, dev);
  Tensor t = contiguous(on(reshape(tau, DimVector{a.sizes()[0], tau.size(-1)}), dev));
  if (a.numel()) householder_product_stub.get(dev)(a, t);
  return from_colmajor(a, batch_of(A), A.device());
}

std::tuple<Tensor, Tensor, Tensor> _linalg_eigh(const Tensor& A, bool upper, bool compute_v) {
  check_operand(A, "linalg.eigh");
  MT_CHECK(A.size(-1) == A.size(-2), "linalg.eigh: A must be batches of square matrices");
  DimVector batch = batch_of(A);
  int64_t n = A.size(-1);
  const Device dev = kernel_device(eigh_stub, A.device());
  Tensor a = colmajor(A, dev);
  // Hermitian matrices have real eigenvalues.
  Tensor w = zeros(DimVector{a.sizes()[0], n}, to_real_type(A.dtype()), dev);
  Tensor info = zeros(DimVector{a.sizes()[0]}, ScalarType::Int, dev);
  if (a.numel()) eigh_stub.get(dev)(a, w, upper, compute_v, info);
  Tensor v = compute_v ? from_colmajor(a, batch, A.device()) : empty(DimVector{0}, A.dtype(), A.device());
  return {on(reshape(w, with(batch, {n})), A.device()), v, info_like(info, batch, A.device())};
}

std::tuple<Tensor, Tensor, Tensor> _linalg_eig(const Tensor& A, bool compute_v) {
  check_operand(A, "linalg.eig");
  MT_CHECK(A.size(-1) == A.size(-2), "linalg.eig: A must be batches of square matrices");
  DimVector batch = batch_of(A);
  int64_t n = A.size(-1);
  ScalarType ct = to_complex_type(A.dtype());
  const Device host = host_for(A.device());
  Tensor a = colmajor(A, host);
  Tensor w = zeros(DimVector{a.sizes()[0], n}, ct, host);
  Tensor v = compute_v ? zeros(DimVector{a.sizes()[0], n, n}, ct, host) : Tensor();
  Tensor info = zeros(DimVector{a.sizes()[0]}, ScalarType::Int, host);
  if (a.numel()) eig_stub.get(host)(a, w, v, compute_v, info);
  Tensor vecs = compute_v ? from_colmajor(v, batch, A.device()) : empty(DimVector{0}, ct, A.device());
  return {on(reshape(w, with(batch, {n})), A.device()), vecs, info_like(info, batch, A.device())};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_svd(const Tensor& A, bool full_matrices, bool compute_uv) {
  check_operand(A, "linalg.svd");
  DimVector batch = batch_of(A);
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), nb = count(batch);
  int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  const Device dev = kernel_device(svd_stub, A.device());
  Tensor a = colmajor(A, dev);
  Tensor s = zeros(DimVector{nb, k}, to_real_type(A.dtype()), dev);
  Tensor info = zeros(DimVector{nb}, ScalarType::Int, dev);
  Tensor u, vh;
  if (compute_uv) {
    // Column-major [m, ucols] and [vrows, n]; an empty side gets the identity LAPACK does not write.
    u = zeros(DimVector{nb, ucols, m}, A.dtype(), dev);
    vh = zeros(DimVector{nb, n, vrows}, A.dtype(), dev);
  }
  if (k > 0 && nb > 0) {
    svd_stub.get(dev)(a, compute_uv ? u : Tensor(), s, compute_uv ? vh : Tensor(), full_matrices, compute_uv,
                      info);
  } else if (compute_uv && nb > 0) {
    if (ucols) u = contiguous(expand(eye(ucols, m, A.dtype(), dev), DimVector{nb, ucols, m}));
    if (vrows) vh = contiguous(expand(eye(n, vrows, A.dtype(), dev), DimVector{nb, n, vrows}));
  }
  Tensor none = empty(DimVector{0}, A.dtype(), A.device());
  return {compute_uv ? from_colmajor(u, batch, A.device()) : none,
          on(reshape(s, with(batch, {k})), A.device()),
          compute_uv ? from_colmajor(vh, batch, A.device()) : none, info_like(info, batch, A.device())};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_lstsq(const Tensor& A, const Tensor& B, double rcond,
                                                         const std::string& driver) {
  check_operand(A, "torch.linalg.lstsq");
  check_operand(B, "torch.linalg.lstsq");
  MT_CHECK(driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss",
           "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  MT_CHECK(A.size(-2) == B.size(-2), "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  MT_CHECK(batch_of(A) == batch_of(B), "torch.linalg.lstsq: A and B must share their batch dimensions");
  MT_CHECK(A.dtype() == B.dtype(), "torch.linalg.lstsq: Expected A and B to have the same dtype");
  DimVector batch = batch_of(A);
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), nb = count(batch), rows = std::max(m, n);
  // CUDA has 'gels' only (as PyTorch's CUDA lstsq); the other drivers take host LAPACK
  const Device dev = driver == "gels" ? kernel_device(lstsq_stub, A.device()) : host_for(A.device());
  Tensor a = colmajor(A, dev);
  // B padded to max(m, n) rows: LAPACK writes the n-row solution over the m-row right-hand side.
  Tensor b = zeros(DimVector{nb, B.size(-1), rows}, A.dtype(), dev);
  if (b.numel()) {
    FreshWrites fresh;
    copy_(narrow(b, 2, 0, m), colmajor(B, dev));
  }
  bool svd = driver == "gelsd" || driver == "gelss";
  Tensor s = zeros(DimVector{svd ? nb : 0, svd ? k : 0}, to_real_type(A.dtype()), dev);
  Tensor rank = zeros(DimVector{nb}, ScalarType::Long, dev);
  Tensor info = zeros(DimVector{nb}, ScalarType::Int, dev);
  if (nb > 0 && m > 0 && n > 0 && B.size(-1) > 0) lstsq_stub.get(dev)(a, b, s, rank, rcond, driver, info);
  Tensor sv = svd ? on(reshape(s, with(batch, {k})), A.device())
                  : empty(DimVector{0}, to_real_type(A.dtype()), A.device());
  return {from_colmajor(b, batch, B.device()), on(reshape(rank, batch), A.device()), sv,
          info_like(info, batch, A.device())};
}

}  // namespace mt
