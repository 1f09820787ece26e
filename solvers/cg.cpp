// CPU conjugate gradients (declared in solvers/cg.hpp) on the CPU shell.
#include "solvers/cg.hpp"

#include <cmath>
#include <vector>

#include "core/memory.hpp"
#include "kernels/spmv.hpp"
#include "kernels/vector_ops.hpp"
#include "solvers/iterative_shell.hpp"

namespace perron {

namespace {

// One CG iteration per step; r, p, q = A p are the workspace.
template <class T>
struct cg_method : detail::csr_system<T> {
  using detail::csr_system<T>::a;
  using detail::csr_system<T>::x;
  std::size_t n;
  std::vector<T> r, p, q;

  cg_method(const csr_matrix<T>& m, const T* rhs, T* sol)
      : detail::csr_system<T>{m, rhs, sol}, n(this->size()), r(n), p(n), q(n) {}

  // r = b - A x: the start, and the verification of a recurrence-converged x.
  double true_residual() { return this->residual(r.data()); }

  double start() {
    const double rho = true_residual();
    copy(n, r.data(), p.data());
    return rho;
  }

  detail::step_outcome step(double rho, double tol) {
    spmv(a, T(1), p.data(), T(0), q.data());  // q = A p
    const double pq = dot(n, p.data(), q.data());
    if (!(pq > 0) || !std::isfinite(pq)) return {0, true};  // A is not SPD along p (or p == 0)
    const double alpha = rho / pq;
    axpby(n, T(alpha), p.data(), T(1), x);          // x += alpha p
    axpby(n, T(-alpha), q.data(), T(1), r.data());  // r -= alpha A p
    const double rho_next = dot(n, r.data(), r.data());
    if (std::sqrt(rho_next) <= tol) {
      // The recurrence says converged: b - A x itself decides; if it says no,
      // CG restarts from x (p = r).
      const double rho_true = true_residual();
      if (std::sqrt(rho_true) > tol) copy(n, r.data(), p.data());
      return {rho_true, false};
    }
    axpby(n, T(1), r.data(), T(rho_next / rho), p.data());  // p = r + beta p
    return {rho_next, false};
  }
};

}  // namespace

template <class T>
solve_result detail::cg_assembled(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop) {
  detail::check_system(a, std::size_t(a.rows), std::size_t(a.rows), "cg");
  const team_scope team(spmv_team(a));  // the SpMV's team for the vector updates too
  return detail::run_scaled(std::size_t(a.rows), b, x, stop,
                            [&a](const T* bs, T* xs, const stop_criterion& st, double rhs_norm) {
                              return detail::run_shell(rhs_norm, st, cg_method<T>(a, bs, xs));
                            });
}

template <class T>
solve_result cg(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop) {
  // A caller's corrupt CSR would be read out of bounds by every SpMV, which
  // checks sizes only: one O(nnz) pass before the O(nnz) per iteration.
  validate(a, "cg");
  detail::check_apart(b, x, std::size_t(a.rows), "cg");
  return detail::cg_assembled(a, b, x, stop);
}

template <class T>
solve_result cg(const csr_matrix<T>& a, const std::vector<T>& b, std::vector<T>& x,
                const stop_criterion& stop) {
  detail::check_system(a, b.size(), x.size(), "cg");
  return cg(a, b.data(), x.data(), stop);
}

#define PERRON_CG(T)                                                                                        \
  template solve_result detail::cg_assembled<T>(const csr_matrix<T>&, const T*, T*, const stop_criterion&); \
  template solve_result cg<T>(const csr_matrix<T>&, const T*, T*, const stop_criterion&);                   \
  template solve_result cg<T>(const csr_matrix<T>&, const std::vector<T>&, std::vector<T>&,                 \
                              const stop_criterion&);
PERRON_CG(float)
PERRON_CG(double)
#undef PERRON_CG

}  // namespace perron
