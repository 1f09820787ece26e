// What the iterative linear solvers (solvers/cg.hpp, solvers/jacobi.hpp) share:
// the stopping criterion, the result value, the device-side operator type, and
// the one GPU solver shell (iterative_solver) whose method CG or Jacobi supplies.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "../core/device.hpp"
#include "../core/formats.hpp"
#include "../core/registry.hpp"

namespace perron {

// Stop at the first iterate x with ||b - A x||_2 <= max(rel_tol * ||b||_2, abs_tol)
// (converged), or after max_iterations updates (not converged). The residual
// the decision rests on is the true one, b - A x recomputed, not only the
// recurrence's estimate (which drifts from it in finite precision). With
// min_iterations, the first min_iterations updates are taken whatever the
// residual, unless it is exactly 0 (x solves the system; CG could not step):
// a warm-started time step whose change lies under rel_tol ||b|| is still
// taken (solvers/heat1d.hpp, step_stop).
struct stop_criterion {
  int max_iterations = 1000;  // --max-iter
  double rel_tol = 1e-10;     // --rtol
  double abs_tol = 0;         // --atol
  int min_iterations = 0;

  double threshold(double rhs_norm) const {
    const double rel = rel_tol * rhs_norm;
    return rel > abs_tol ? rel : abs_tol;
  }
  // Throws invalid_argument, naming the CLI option, for negative / NaN
  // tolerances or a negative limit.
  void validate() const;
};

// Default relative tolerance for the value type: 1e-10 in double; 1e-5 in
// float, whose residual cannot fall much below ~1e-6 relative.
template <class T>
constexpr double default_rel_tol() {
  return sizeof(T) >= 8 ? 1e-10 : 1e-5;
}

enum class solve_status {
  converged,       // residual at or below the threshold
  max_iterations,  // limit reached first
  breakdown,       // CG: p'Ap <= 0 (A not SPD) or a non-finite scalar
  diverged,        // residual became NaN or infinite (e.g. Jacobi on a matrix it does not suit)
};
std::string_view name(solve_status s);

// Results are values, not exceptions: not converging is an outcome to report.
struct solve_result {
  int iterations = 0;   // updates of x, counted exactly (also on the GPU)
  double residual = 0;  // ||b - A x||_2 of the returned x
  double rhs_norm = 0;  // ||b||_2
  bool converged = false;
  solve_status status = solve_status::max_iterations;
  int host_syncs = 0;  // times the host waited for the device (0 on the CPU)

  double relative_residual() const { return rhs_norm > 0 ? residual / rhs_norm : residual; }
};

// Applies y = A x to device vectors on the solver's stream: enqueue only, no
// synchronization, no allocation (an spmv_plan, or a matrix-free stencil).
template <class T>
using device_operator = std::function<void(const T* d_x, T* d_y)>;

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

// The GPU solver shell shared by cuda::cg_solver and cuda::jacobi_solver (the
// way Ginkgo separates a solver from its stopping criterion): the shell owns
// the stop rule, the host's check schedule, the workspace's lifetime and the
// result; the method (solvers/cuda/solver_common.cuh's shell<>, specialised by
// cg.cu and jacobi.cu) supplies the device kernels of one step. All vectors
// live on the device; one solver object reuses its workspace for every solve.
template <class T>
class iterative_solver {
 public:
  // The method behind the shell; defined in solvers/cuda/ (CPU-only builds
  // never make one: the constructors throw).
  class method {
   public:
    virtual ~method() = default;
    // Solves with a validated criterion.
    virtual solve_result solve(const T* d_b, T* d_x, const stop_criterion& stop) = 0;

    index_t n = 0;
    stream_t stream = nullptr;
    spmv_kernel kernel = spmv_kernel::cpu;  // concrete kernel (auto resolved); cpu when matrix-free
    check_schedule schedule;
  };

  // Solves A x = b; d_x holds the initial guess. Throws dimension_error /
  // invalid_argument for bad sizes or criteria; never throws for
  // non-convergence (see the result).
  solve_result solve(const T* d_b, T* d_x, const stop_criterion& stop) {
    stop.validate();
    return m_->solve(d_b, d_x, stop);
  }
  check_schedule& schedule() { return m_->schedule; }
  index_t size() const { return m_->n; }
  // The concrete SpMV kernel in use (automatic resolved); cpu when matrix-free.
  spmv_kernel kernel() const { return m_->kernel; }
  stream_t stream() const { return m_->stream; }

 protected:
  iterative_solver() = default;
  std::unique_ptr<method> m_;
};

}  // namespace cuda
}  // namespace perron
