// Conjugate gradients for any symmetric positive definite CSR matrix (or any
// SPD operator on the GPU). Unpreconditioned, as in Hestenes & Stiefel:
//
//   r0 = b - A x0, p0 = r0
//   alpha_k = (r_k, r_k) / (p_k, A p_k)
//   x_{k+1} = x_k + alpha_k p_k,   r_{k+1} = r_k - alpha_k A p_k
//   beta_k  = (r_{k+1}, r_{k+1}) / (r_k, r_k),   p_{k+1} = r_{k+1} + beta_k p_k
//
// x holds the initial guess on entry (warm start) and the solution on exit.
// When the recurrence says converged, the true residual b - A x is computed;
// if it is still above the threshold, CG restarts from x (p = r), so a result
// marked converged always satisfies ||b - A x|| <= max(rel_tol ||b||, abs_tol).
#pragma once

#include <memory>
#include <vector>

#include "../core/device.hpp"
#include "../core/formats.hpp"
#include "../kernels/spmv.hpp"
#include "linear_solver.hpp"

namespace perron {

// ---- CPU (solvers/cg.cpp) ---------------------------------------------------
// a is validate()d (dimension_error for a corrupt CSR) and must be square,
// b and x of its size (the pointer form trusts their length).
template <class T>
solve_result cg(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop);
template <class T>
solve_result cg(const csr_matrix<T>& a, const std::vector<T>& b, std::vector<T>& x,
                const stop_criterion& stop);

namespace cuda {

// GPU CG on the shell of linear_solver.hpp. Per iteration: one operator
// application, and three streaming kernels (p.Ap; r update with (r,r); x and
// p update sharing one read of p). The workspace: r, p, A p, device scalars,
// reduction scratch.
template <class T>
class cg_solver : public iterative_solver<T> {
 public:
  // Builds an spmv_plan of A (kernel from spmv_kernels(), `automatic` allowed).
  cg_solver(const csr_matrix<T>& a, spmv_kernel kernel, stream_t stream = nullptr);
  // Matrix-free: apply(d_x, d_y) enqueues y = A x on `stream`.
  cg_solver(index_t n, device_operator<T> apply, stream_t stream = nullptr);
};

}  // namespace cuda
}  // namespace perron
