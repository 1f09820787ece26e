// Helpers of the linear-solver tests (CPU and GPU CG and Jacobi): the true
// residual of a returned x, norms, a model SPD system, and the shared
// SuiteSparse systems.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/formats.hpp"
#include "io/matrix_market.hpp"
#include "kernels/convert.hpp"
#include "kernels/spmv.hpp"
#include "tests/support/support.hpp"

namespace perron::test {

// ||v||_2 in double.
template <class T>
double norm(const std::vector<T>& v) {
  double s = 0;
  for (T x : v) s += double(x) * double(x);
  return std::sqrt(s);
}

// ||b - A x||_2 computed in double, whatever T the solver ran in.
template <class T>
double true_residual(const csr_matrix<T>& a, const std::vector<T>& b, const std::vector<T>& x) {
  const auto ad = value_cast<double>(a);
  std::vector<double> r(b.begin(), b.end());
  const std::vector<double> xd(x.begin(), x.end());
  spmv(ad, -1.0, xd.data(), 1.0, r.data());
  return norm(r);
}

// tridiag(-1, 2 + shift, -1): SPD, condition ~ 4 / shift for small shifts.
inline csr_matrix<double> laplacian_1d(index_t n, double shift) {
  coo_matrix<double> c;
  c.rows = c.cols = n;
  for (index_t i = 0; i < n; ++i) {
    c.row_idx.push_back(i), c.col_idx.push_back(i), c.values.push_back(2 + shift);
    if (i > 0) c.row_idx.push_back(i), c.col_idx.push_back(i - 1), c.values.push_back(-1);
    if (i + 1 < n) c.row_idx.push_back(i), c.col_idx.push_back(i + 1), c.values.push_back(-1);
  }
  return to_csr(c);
}

// diag(1, -1): indefinite; with b = (1, 1) and x0 = 0, CG's first p'Ap is 0
// (a breakdown).
inline csr_matrix<double> indefinite_2x2() {
  coo_matrix<double> c;
  c.rows = c.cols = 2;
  c.row_idx = {0, 1};
  c.col_idx = {0, 1};
  c.values = {1, -1};
  return to_csr(c);
}

struct linear_system {
  csr_matrix<double> a;
  std::vector<double> b, x_true;
};

// The shared matrix matrices/<file> with b = A x_true for a random x_true
// (seed 42), or std::nullopt when the shared data is absent (then GTEST_SKIP).
inline std::optional<linear_system> shared_system(const std::string& file) {
  const auto path = shared_file("matrices/" + file);
  if (!path) return std::nullopt;
  linear_system s{to_csr(io::read_matrix_market(*path).matrix), {}, {}};
  s.x_true = random_vector(static_cast<std::size_t>(s.a.rows), 42);
  s.b.resize(s.x_true.size());
  spmv(s.a, 1.0, s.x_true.data(), 0.0, s.b.data());
  return s;
}

// The shared SPD matrices CG (CPU and GPU) is held to: b = A x_true for a
// random x_true, so ||A|| ||x|| / ||b|| stays moderate and the attainable
// residual is near eps. Unpreconditioned CG reaches 1e-10 on bcsstk01 (~150
// iterations), bcsstk06 (~4000) and 1138_bus (~2500); bcsstk13 (condition
// ~1e10) needs ~40000 for 1e-8 and ~95000 for 1e-9, so it is held to 1e-8.
struct cg_case {
  const char* file;
  double rtol;
  int max_iterations;
};
inline const cg_case cg_cases[] = {{"bcsstk01.mtx", 1e-10, 5000},
                                   {"bcsstk06.mtx", 1e-10, 40000},
                                   {"1138_bus.mtx", 1e-10, 40000},
                                   {"bcsstk13.mtx", 1e-8, 100000}};

// A parameterized test's name for a case with a `file`: the file's stem.
struct file_stem {
  template <class Info>
  std::string operator()(const Info& info) const {
    const std::string s = info.param.file;
    return s.substr(0, s.find('.'));
  }
};

}  // namespace perron::test
