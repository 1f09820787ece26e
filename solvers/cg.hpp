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

#include "core/device.hpp"
#include "core/formats.hpp"
#include "kernels/spmv.hpp"
#include "solvers/linear_solver.hpp"

namespace perron {

// ---- CPU (solvers/cg.cpp) ---------------------------------------------------
template <class T>
solve_result cg(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop);
template <class T>
solve_result cg(const csr_matrix<T>& a, const std::vector<T>& b, std::vector<T>& x,
                const stop_criterion& stop);

namespace cuda {

// When the host looks at the device's convergence flag. Every iteration's
// kernels read their scalars from device memory and, once the device has
// flagged convergence, do nothing; so the host can enqueue several iterations
// blind and the iteration count stays exact. Checks (each one host sync) come
// after `first` iterations (or, with `predict`, after as many as the previous
// solve needed: warm-started time steps need about the same), then every
// max(min_interval, iterations so far / 8) iterations, capped at max_interval,
// so blind iterations past convergence cost at most ~1/8 of the work.
struct check_schedule {
  int first = 8;
  int min_interval = 4;
  int max_interval = 512;
  bool predict = true;
};

// GPU CG. All vectors live on the device; one solver object owns the
// workspace (r, p, A p, device scalars, reduction scratch) and reuses it for
// every solve (time steps, several right-hand sides). Per iteration: one
// operator application, and three streaming kernels (p.Ap; r update with
// (r,r); x and p update sharing one read of p).
template <class T>
class cg_solver {
 public:
  // Builds an spmv_plan of A (kernel from spmv_kernels(), `automatic` allowed).
  cg_solver(const csr_matrix<T>& a, spmv_kernel kernel, stream_t stream = nullptr);
  // Matrix-free: apply(d_x, d_y) enqueues y = A x on `stream`.
  cg_solver(index_t n, device_operator<T> apply, stream_t stream = nullptr);
  ~cg_solver();
  cg_solver(cg_solver&&) noexcept;
  cg_solver& operator=(cg_solver&&) noexcept;

  // Solves A x = b; d_x holds the initial guess. Throws dimension_error /
  // invalid_argument for bad sizes or criteria; never throws for
  // non-convergence (see the result).
  solve_result solve(const T* d_b, T* d_x, const stop_criterion& stop);

  check_schedule& schedule();
  index_t size() const;
  // The concrete SpMV kernel in use (automatic resolved); cpu when matrix-free.
  spmv_kernel kernel() const;
  stream_t stream() const;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace cuda
}  // namespace perron
