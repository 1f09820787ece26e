// The CPU solver shell behind cg() and jacobi() (internal to solvers/): the
// stop rule and the result, around a method that supplies the residual of the
// initial guess and one step. The GPU shell is solvers/cuda/solver_common.cuh.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "../core/error.hpp"
#include "../core/memory.hpp"
#include "../kernels/spmv.hpp"
#include "../kernels/vector_ops.hpp"
#include "linear_solver.hpp"

namespace perron::detail {

// The system A x = b a CPU method works on, with r = b - A x and its (r, r):
// every method needs them (at the start, and whenever the true residual
// decides).
template <class T>
struct csr_system {
  const csr_matrix<T>& a;
  const T* b;
  T* x;

  std::size_t size() const { return static_cast<std::size_t>(a.rows); }
  double residual(T* r) const {
    copy(size(), b, r);
    spmv(a, T(-1), static_cast<const T*>(x), T(1), r);
    return dot(size(), r, r);
  }
};

// What a method's step reports: the new (r, r), or that it cannot go on.
struct step_outcome {
  double rho = 0;
  bool breakdown = false;
};

// Runs the stop rule of stop_criterion, for a right-hand side of norm
// rhs_norm (run_scaled's):
//   rho = m.start(tol)                     (r, r) of b - A x0
//   until sqrt(rho) <= tol (after min_iterations steps, or rho == 0): rho = m.step(rho, tol)
// diverged when rho is not finite, max_iterations at the limit, breakdown
// when the step says so. Each step is one update of x; `rho` is always the
// (r, r) of the x the step leaves behind (a method whose recurrence drifts
// must return the true residual when it claims convergence).
template <class Method>
solve_result run_shell(double rhs_norm, const stop_criterion& stop, Method&& m) {
  stop.validate();
  solve_result res;
  res.rhs_norm = rhs_norm;
  const double tol = stop.threshold(res.rhs_norm);
  double rho = m.start();
  for (;;) {
    res.residual = std::sqrt(rho);
    if (!std::isfinite(rho)) {
      res.status = solve_status::diverged;
      return res;
    }
    if (res.residual <= tol && (res.iterations >= stop.min_iterations || rho == 0)) break;
    if (res.iterations >= stop.max_iterations) {
      res.status = solve_status::max_iterations;
      return res;
    }
    const step_outcome o = m.step(rho, tol);
    if (o.breakdown) {
      res.status = solve_status::breakdown;
      return res;
    }
    rho = o.rho;
    ++res.iterations;
  }
  res.converged = true;
  res.status = solve_status::converged;
  return res;
}

// Calls solve(b, x, stop, ||b||_2) -> solve_result, on b and x scaled by
// s = 2^-e (e the exponent of ||b||_2) where ||b|| lies outside
// [2^-300, 2^301): there the methods' (r, r) overflows (||b|| = 1e160: inf
// at the start, "diverged" with x untouched) or underflows (||b|| = 1e-170:
// (r, r) = 0, "converged" at x0 = 0, a wrong answer). A x = b and
// A (s x) = s b are the same system, CG and Jacobi are linear in (b, x), and
// a power of two scales every operation of theirs exactly (short of
// subnormals), so the scaled solve takes the same steps; abs_tol is scaled
// with them, and x and the residual are scaled back by 2^e. A b of ordinary
// norm (and one with inf or NaN, which the shell reports as diverged) is
// solved as it is, with no copy.
template <class T, class Solve>
solve_result run_scaled(std::size_t n, const T* b, T* x, const stop_criterion& stop, Solve&& solve) {
  stop.validate();
  const double rhs_norm = nrm2(n, b);
  const int e = std::isfinite(rhs_norm) && rhs_norm > 0 ? std::ilogb(rhs_norm) : 0;
  if (e >= -300 && e <= 300) return solve(b, static_cast<T*>(x), stop, rhs_norm);
  // |e| <= 1000 keeps 2^-e a normal double and still brings ||s b|| within
  // [2^-74, 2^24) (a double norm lies in [2^-1074, 2^1024)).
  const int k = e < -1000 ? -1000 : e > 1000 ? 1000 : e;
  const double s = std::ldexp(1.0, -k), back = std::ldexp(1.0, k);
  std::vector<T> bs(n);
  copy(n, b, bs.data());
  scale(n, T(s), bs.data());
  scale(n, T(s), x);
  stop_criterion scaled = stop;
  scaled.abs_tol = stop.abs_tol * s;
  solve_result res = solve(static_cast<const T*>(bs.data()), x, scaled, rhs_norm * s);
  scale(n, T(back), x);
  res.residual *= back;
  res.rhs_norm = rhs_norm;
  return res;
}

// cg() and jacobi() less their validate(a), for a CSR that a solver assembled
// itself and solves again every time step (heat1d), where that pass would
// cost about one more SpMV a step. solvers/cg.cpp, solvers/jacobi.cpp.
template <class T>
solve_result cg_assembled(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop);
template <class T>
solve_result jacobi_assembled(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop,
                              double omega);

// Throws dimension_error unless a is square and b and x have its size.
template <class T>
void check_system(const csr_matrix<T>& a, std::size_t nb, std::size_t nx, const char* who) {
  if (a.rows != a.cols)
    throw dimension_error(std::string(who) + ": matrix must be square (got " + std::to_string(a.rows) +
                          " x " + std::to_string(a.cols) + ")");
  if (nb != std::size_t(a.rows) || nx != std::size_t(a.rows))
    throw dimension_error(std::string(who) + ": matrix is " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + " but b has " + std::to_string(nb) + " and x " +
                          std::to_string(nx) + " entries");
}

// Throws invalid_argument where b and x (n entries each) share memory: x is
// written while b is read (cg(a, b, b, ...) ran to its iteration bound with x
// at 1e57).
template <class T>
void check_apart(const T* b, const T* x, std::size_t n, const char* who) {
  if (arrays_overlap(b, n * sizeof(T), x, n * sizeof(T)))
    throw invalid_argument(std::string(who) +
                           ": b and x overlap (x is written while b is read): give x its own array");
}

}  // namespace perron::detail
