// CPU conjugate gradients (declared in solvers/cg.hpp).
#include "solvers/cg.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "kernels/spmv.hpp"
#include "kernels/vector_ops.hpp"

namespace perron {

namespace {
template <class T>
void check_square(const csr_matrix<T>& a, std::size_t nb, std::size_t nx, const char* who) {
  if (a.rows != a.cols)
    throw dimension_error(std::string(who) + ": matrix must be square (got " + std::to_string(a.rows) +
                          " x " + std::to_string(a.cols) + ")");
  if (nb != std::size_t(a.rows) || nx != std::size_t(a.rows))
    throw dimension_error(std::string(who) + ": matrix is " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + " but b has " + std::to_string(nb) + " and x " +
                          std::to_string(nx) + " entries");
}
}  // namespace

template <class T>
solve_result cg(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop) {
  stop.validate();
  if (a.rows != a.cols)
    throw dimension_error("cg: matrix must be square (got " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ")");
  const std::size_t n = static_cast<std::size_t>(a.rows);
  std::vector<T> r(n), p(n), q(n);
  solve_result res;
  res.rhs_norm = nrm2(n, b);
  const double tol = stop.threshold(res.rhs_norm);

  // r = b - A x  (also the verification of a recurrence-converged x)
  auto true_residual = [&] {
    copy(n, b, r.data());
    spmv(a, T(-1), x, T(1), r.data());
    return dot(n, r.data(), r.data());
  };

  double rho = true_residual();
  res.residual = std::sqrt(rho);
  if (!std::isfinite(rho)) {
    res.status = solve_status::diverged;
    return res;
  }
  copy(n, r.data(), p.data());
  while (res.residual > tol) {
    if (res.iterations >= stop.max_iterations) {
      res.status = solve_status::max_iterations;
      return res;
    }
    spmv(a, T(1), p.data(), T(0), q.data());  // q = A p
    const double pq = dot(n, p.data(), q.data());
    if (!(pq > 0) || !std::isfinite(pq)) {  // A is not SPD along p (or p == 0)
      res.status = solve_status::breakdown;
      return res;
    }
    const double alpha = rho / pq;
    axpby(n, T(alpha), p.data(), T(1), x);          // x += alpha p
    axpby(n, T(-alpha), q.data(), T(1), r.data());  // r -= alpha A p
    ++res.iterations;
    double rho_next = dot(n, r.data(), r.data());
    if (std::sqrt(rho_next) <= tol) {
      // The recurrence says converged: check b - A x itself; restart from x if not.
      rho_next = true_residual();
      res.residual = std::sqrt(rho_next);
      if (res.residual <= tol) break;
      copy(n, r.data(), p.data());
      rho = rho_next;
      continue;
    }
    res.residual = std::sqrt(rho_next);
    if (!std::isfinite(rho_next)) {
      res.status = solve_status::diverged;
      return res;
    }
    axpby(n, T(1), r.data(), T(rho_next / rho), p.data());  // p = r + beta p
    rho = rho_next;
  }
  res.converged = true;
  res.status = solve_status::converged;
  return res;
}

template <class T>
solve_result cg(const csr_matrix<T>& a, const std::vector<T>& b, std::vector<T>& x,
                const stop_criterion& stop) {
  check_square(a, b.size(), x.size(), "cg");
  return cg(a, b.data(), x.data(), stop);
}

template solve_result cg<float>(const csr_matrix<float>&, const float*, float*, const stop_criterion&);
template solve_result cg<double>(const csr_matrix<double>&, const double*, double*, const stop_criterion&);
template solve_result cg<float>(const csr_matrix<float>&, const std::vector<float>&, std::vector<float>&,
                                const stop_criterion&);
template solve_result cg<double>(const csr_matrix<double>&, const std::vector<double>&, std::vector<double>&,
                                 const stop_criterion&);

}  // namespace perron
