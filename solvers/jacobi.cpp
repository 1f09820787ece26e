// CPU weighted Jacobi (declared in solvers/jacobi.hpp).
#include "solvers/jacobi.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "kernels/spmv.hpp"
#include "kernels/vector_ops.hpp"

namespace perron {

template <class T>
std::vector<T> jacobi_diagonal(const csr_matrix<T>& a) {
  if (a.rows != a.cols)
    throw dimension_error("jacobi: matrix must be square (got " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ")");
  std::vector<T> d(static_cast<std::size_t>(a.rows), T(0));
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      if (a.col_idx[k] == i) d[i] += a.values[k];
  for (index_t i = 0; i < a.rows; ++i)
    if (!(d[i] != T(0)) || !std::isfinite(static_cast<double>(d[i])))
      throw invalid_argument("jacobi: diagonal entry of row " + std::to_string(i + 1) +
                             " is zero, missing or not finite (Jacobi divides by it)");
  return d;
}

namespace {
void check_omega(double omega) {
  if (!(omega > 0 && omega < 2))
    throw invalid_argument("jacobi: weight omega must be in (0, 2) (got " + std::to_string(omega) + ")");
}
}  // namespace

template <class T>
solve_result jacobi(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop,
                    const jacobi_options& opt) {
  stop.validate();
  check_omega(opt.omega);
  const std::vector<T> d = jacobi_diagonal(a);
  const std::size_t n = d.size();
  const auto m = static_cast<std::int64_t>(n);
  std::vector<T> r(n);
  solve_result res;
  res.rhs_norm = nrm2(n, b);
  const double tol = stop.threshold(res.rhs_norm);
  const T omega = static_cast<T>(opt.omega);
  for (;;) {
    // r = b - A x_k: the residual of the current iterate decides first.
    copy(n, b, r.data());
    spmv(a, T(-1), static_cast<const T*>(x), T(1), r.data());
    const double rho = dot(n, r.data(), r.data());
    res.residual = std::sqrt(rho);
    if (!std::isfinite(rho)) {
      res.status = solve_status::diverged;
      return res;
    }
    if (res.residual <= tol) break;
    if (res.iterations >= stop.max_iterations) {
      res.status = solve_status::max_iterations;
      return res;
    }
    // x_{k+1} = x_k + omega D^{-1} r_k
#pragma omp parallel for schedule(static) if (m > (1 << 14))
    for (std::int64_t i = 0; i < m; ++i) x[i] += omega * r[i] / d[i];
    ++res.iterations;
  }
  res.converged = true;
  res.status = solve_status::converged;
  return res;
}

template <class T>
solve_result jacobi(const csr_matrix<T>& a, const std::vector<T>& b, std::vector<T>& x,
                    const stop_criterion& stop, const jacobi_options& opt) {
  if (b.size() != std::size_t(a.rows) || x.size() != std::size_t(a.rows) || a.rows != a.cols)
    throw dimension_error("jacobi: matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                          " but b has " + std::to_string(b.size()) + " and x " + std::to_string(x.size()) +
                          " entries");
  return jacobi(a, b.data(), x.data(), stop, opt);
}

#define PERRON_JACOBI(T)                                                                        \
  template std::vector<T> jacobi_diagonal<T>(const csr_matrix<T>&);                             \
  template solve_result jacobi<T>(const csr_matrix<T>&, const T*, T*, const stop_criterion&,    \
                                  const jacobi_options&);                                       \
  template solve_result jacobi<T>(const csr_matrix<T>&, const std::vector<T>&, std::vector<T>&, \
                                  const stop_criterion&, const jacobi_options&);
PERRON_JACOBI(float)
PERRON_JACOBI(double)
#undef PERRON_JACOBI

}  // namespace perron
