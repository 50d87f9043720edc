// Matrix decompositions and solvers through LAPACK (torch.linalg's cholesky, lu, qr, eigh, svd, lstsq and the
// triangular solve): the front ends take batched [..., m, n] tensors, the kernels run one LAPACK call per
// matrix.
#pragma once
#include <optional>
#include <string>
#include <tuple>

#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

// Front ends (ops/linalg_decomp.cpp). Inputs are float32/float64/complex64/complex128 with at least 2 dims;
// the public Python functions (python/minitorch/linalg/_decomp.py) check shapes and dtypes with PyTorch's
// messages first, these re-check what a kernel relies on. Results are column-major ("Fortran") batches, as
// PyTorch's; info tensors are int32 with LAPACK's codes, left for the caller to turn into errors.
std::tuple<Tensor, Tensor, Tensor> _linalg_lu_factor_ex(const Tensor& A);  // (LU, 1-based pivots, info)
Tensor _linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint);
// Bunch-Kaufman A = P L D L^T P^T (L D L^H when hermitian) of A's lower triangle: (LD, sytrf's 1-based
// pivots, info); the solve takes the batch of B (the Python front end broadcasts).
std::tuple<Tensor, Tensor, Tensor> _linalg_ldl_factor_ex(const Tensor& A, bool hermitian);
Tensor _linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian);
std::tuple<Tensor, Tensor> _linalg_cholesky_ex(const Tensor& A, bool upper);  // (L or U, info)
Tensor _linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular);
std::tuple<Tensor, Tensor> _linalg_geqrf(const Tensor& A);  // (reflectors below the diagonal + R, tau)
Tensor _linalg_householder_product(const Tensor& A, const Tensor& tau);
std::tuple<Tensor, Tensor, Tensor> _linalg_eigh(const Tensor& A, bool upper, bool compute_v);  // (w, V, info)
// (eigenvalues [..., n], eigenvectors [..., n, n] (empty unless compute_v), info) of a real or complex
// matrix; both results complex of A's precision, eigenvectors of unit norm as LAPACK's geev gives them.
// eigh's eigenvalues, svd's and lstsq's singular values are real (float32 for complex64).
std::tuple<Tensor, Tensor, Tensor> _linalg_eig(const Tensor& A, bool compute_v);
std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_svd(const Tensor& A, bool full_matrices,
                                                       bool compute_uv);  // (U, S, Vh, info)
// (solution [.., max(m, n), k] (the caller keeps the first n rows), rank [...] int64, singular values [...,
// min], info); driver: gels | gelsy | gelsd | gelss; rcond < 0: LAPACK's machine-precision default.
std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_lstsq(const Tensor& A, const Tensor& B, double rcond,
                                                         const std::string& driver);

// Kernels (info -1000: the matrix held inf or NaN and was not given to LAPACK; its results are NaN). Every
// matrix argument is a contiguous column-major batch: a row-major [batch, cols, rows] buffer,
// each matrix's leading dimension its row count. Sizes fit LAPACK's 32-bit integers (front ends check).
using LuFactorFn = void (*)(const Tensor& a, const Tensor& pivots, const Tensor& info);
// trans: LAPACK's 'N', 'T' or 'C' (conjugate transpose).
using LuSolveFn = void (*)(const Tensor& lu, const Tensor& pivots, const Tensor& b, char trans);
using LdlFactorFn = void (*)(const Tensor& a, const Tensor& pivots, const Tensor& info, bool hermitian);
using LdlSolveFn = void (*)(const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian);
using CholeskyFn = void (*)(const Tensor& a, bool upper, const Tensor& info);
// b <- op(a)^-1 b (left) or b op(a)^-1 (right); a is [batch, n, n] with the batch of b.
using TriangularSolveFn = void (*)(const Tensor& a, const Tensor& b, bool upper, bool left, bool trans,
                                   bool unitriangular);
using GeqrfFn = void (*)(const Tensor& a, const Tensor& tau);
using HouseholderProductFn = void (*)(const Tensor& a, const Tensor& tau);
using EighFn = void (*)(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info);
using EigFn = void (*)(const Tensor& a, const Tensor& w, const Tensor& v, bool compute_v, const Tensor& info);
using SvdFn = void (*)(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh,
                       bool full_matrices, bool compute_uv, const Tensor& info);
using LstsqFn = void (*)(const Tensor& a, const Tensor& b, const Tensor& s, const Tensor& rank, double rcond,
                         const std::string& driver, const Tensor& info);
MT_STUBS_LINALG_DECOMP_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
