// What the iterative linear solvers (solvers/cg.hpp, solvers/jacobi.hpp) share:
// the stopping criterion, the result value, and the device-side operator type.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace perron {

// Stop at the first iterate x with ||b - A x||_2 <= max(rel_tol * ||b||_2, abs_tol)
// (converged), or after max_iterations updates (not converged). The residual
// the decision rests on is the true one, b - A x recomputed, not only the
// recurrence's estimate (which drifts from it in finite precision).
struct stop_criterion {
  int max_iterations = 1000;
  double rel_tol = 1e-10;
  double abs_tol = 0;

  double threshold(double rhs_norm) const {
    const double rel = rel_tol * rhs_norm;
    return rel > abs_tol ? rel : abs_tol;
  }
  // Throws invalid_argument for negative / NaN tolerances or a negative limit.
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

}  // namespace perron
