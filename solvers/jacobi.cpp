// CPU weighted Jacobi (declared in solvers/jacobi.hpp) on the CPU shell.
#include "solvers/jacobi.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "kernels/spmv.hpp"
#include "kernels/vector_ops.hpp"
#include "solvers/iterative_shell.hpp"

namespace perron {

void jacobi_options::validate() const {
  if (!(omega > 0 && omega < 2))
    throw invalid_argument("Jacobi weight omega (--omega) must be in (0, 2) (got " + format_g(omega) + ")");
}

template <class T>
void check_jacobi_diagonal(const std::vector<T>& d) {
  for (std::size_t i = 0; i < d.size(); ++i)
    if (!(d[i] != T(0)) || !std::isfinite(static_cast<double>(d[i])))
      throw invalid_argument("jacobi: diagonal entry of row " + std::to_string(i + 1) +
                             " is zero, missing or not finite (Jacobi divides by it)");
}

namespace {

// jacobi_diagonal of a CSR known to be consistent.
template <class T>
std::vector<T> diagonal_of_valid(const csr_matrix<T>& a) {
  if (a.rows != a.cols)
    throw dimension_error("jacobi: matrix must be square (got " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ")");
  std::vector<T> d(static_cast<std::size_t>(a.rows), T(0));
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      if (a.col_idx[k] == i) d[i] += a.values[k];
  check_jacobi_diagonal(d);
  return d;
}

}  // namespace

template <class T>
std::vector<T> jacobi_diagonal(const csr_matrix<T>& a) {
  validate(a, "jacobi");  // before row_ptr and col_idx are indexed (and the SpMVs read them)
  return diagonal_of_valid(a);
}

namespace {

// x_{k+1} = x_k + omega D^{-1} r_k per step; r = b - A x_k is formed every
// step anyway, so the residual deciding the stop is always the true one.
template <class T>
struct jacobi_method : detail::csr_system<T> {
  std::vector<T> d, r;
  T omega;

  double start() { return this->residual(r.data()); }
  detail::step_outcome step(double, double) {
    const auto m = static_cast<std::int64_t>(d.size());
#pragma omp parallel for schedule(static) if (m > (1 << 14))
    for (std::int64_t i = 0; i < m; ++i) this->x[i] += omega * r[i] / d[i];
    return {this->residual(r.data()), false};
  }
};

}  // namespace

template <class T>
solve_result detail::jacobi_assembled(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop,
                                      double omega) {
  stop.validate();
  jacobi_options{omega}.validate();
  std::vector<T> d = diagonal_of_valid(a);
  const std::size_t n = d.size();
  const team_scope team(spmv_team(a));  // the residual's SpMV team for the update too
  return detail::run_scaled(
      n, b, x, stop, [&](const T* bs, T* xs, const stop_criterion& st, double rhs_norm) {
        return detail::run_shell(
            rhs_norm, st,
            jacobi_method<T>{{a, bs, xs}, std::move(d), std::vector<T>(n), static_cast<T>(omega)});
      });
}

template <class T>
solve_result jacobi(const csr_matrix<T>& a, const T* b, T* x, const stop_criterion& stop,
                    const jacobi_options& opt) {
  validate(a, "jacobi");  // the SpMVs check sizes only
  detail::check_apart(b, x, std::size_t(a.rows), "jacobi");
  return detail::jacobi_assembled(a, b, x, stop, opt.omega);
}

template <class T>
solve_result jacobi(const csr_matrix<T>& a, const std::vector<T>& b, std::vector<T>& x,
                    const stop_criterion& stop, const jacobi_options& opt) {
  detail::check_system(a, b.size(), x.size(), "jacobi");
  return jacobi(a, b.data(), x.data(), stop, opt);
}

#define PERRON_JACOBI(T)                                                                        \
  template solve_result detail::jacobi_assembled<T>(const csr_matrix<T>&, const T*, T*,         \
                                                    const stop_criterion&, double);             \
  template std::vector<T> jacobi_diagonal<T>(const csr_matrix<T>&);                             \
  template void check_jacobi_diagonal<T>(const std::vector<T>&);                                \
  template solve_result jacobi<T>(const csr_matrix<T>&, const T*, T*, const stop_criterion&,    \
                                  const jacobi_options&);                                       \
  template solve_result jacobi<T>(const csr_matrix<T>&, const std::vector<T>&, std::vector<T>&, \
                                  const stop_criterion&, const jacobi_options&);
PERRON_JACOBI(float)
PERRON_JACOBI(double)
#undef PERRON_JACOBI

}  // namespace perron
