// Weighted Jacobi for any CSR matrix with a nonzero diagonal D:
//
//   x_{k+1} = x_k + omega D^{-1} (b - A x_k)
//
// It converges when the iteration matrix I - omega D^{-1} A has spectral
// radius < 1: for omega = 1 when A is strictly (or irreducibly) diagonally
// dominant; for an SPD A whenever 0 < omega < 2 / lambda_max(D^{-1} A)
// (the eigenvalues of D^{-1} A are then real and positive), at rate
// 1 - omega lambda_min(D^{-1} A), hopelessly slow for ill-conditioned A.
// The residual of the returned x is the one the stop decision used, computed
// as b - A x (Jacobi forms it every iteration anyway).
#pragma once

#include <memory>
#include <vector>

#include "../core/device.hpp"
#include "../core/formats.hpp"
#include "../kernels/spmv.hpp"
#include "cg.hpp"
#include "linear_solver.hpp"

namespace perron {

struct jacobi_options {
  double omega = 1.0;  // weight, in (0, 2): --omega

  // Throws invalid_argument naming --omega when omega is outside (0, 2).
  void validate() const;
};

// The diagonal of a; throws dimension_error for a CSR that fails validate()
// or is not square, invalid_argument naming the first row whose diagonal
// entry is missing or zero (Jacobi cannot divide by it).
template <class T>
std::vector<T> jacobi_diagonal(const csr_matrix<T>& a);
// Throws that invalid_argument for the first zero or non-finite entry of d.
template <class T>
void check_jacobi_diagonal(const std::vector<T>& d);

// ---- CPU (solvers/jacobi.cpp) --------------------------------------------------
template <class T>
solve_result jacobi(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop,
                    const jacobi_options& opt = {});
template <class T>
solve_result jacobi(const csr_matrix<T>& a, const std::vector<T>& b, std::vector<T>& x,
                    const stop_criterion& stop, const jacobi_options& opt = {});

namespace cuda {

// GPU weighted Jacobi on the shell of linear_solver.hpp. Per iteration: q = A
// x_k (the operator), then one fused kernel r = b - q, x_{k+1} = x_k + omega r
// / d, (r, r) into device memory, writing x_{k+1} to the other of two buffers,
// so that when (r, r) shows x_k has converged, x_k is still there and is
// returned.
template <class T>
class jacobi_solver : public iterative_solver<T> {
 public:
  jacobi_solver(const csr_matrix<T>& a, spmv_kernel kernel, const jacobi_options& opt = {},
                stream_t stream = nullptr);
  // Matrix-free: the diagonal of A (host) and y = A x.
  jacobi_solver(const std::vector<T>& diagonal, device_operator<T> apply, const jacobi_options& opt = {},
                stream_t stream = nullptr);
};

}  // namespace cuda
}  // namespace perron
