// Helpers of the linear-solver tests (CPU and GPU CG and Jacobi): the true
// residual of a returned x, norms, a model SPD system, and the shared
// SuiteSparse systems.
#pragma once

#include <gtest/gtest.h>

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

// What expect_scaled_solves checks beyond the common part.
struct scaled_solve_checks {
  std::vector<int> powers{600, -600};  // b = 2^k b0: b0's very steps, x = 2^k x0 bit for bit
  bool rhs_norm_exact = false;         // and rhs_norm = 2^k that of b0 (where b holds no subnormal)
  int min_iterations = 0;              // for b = 1e160 b0 and 1e-170 b0: more steps than this
  double rhs_norm_tol = -1;            // and rhs_norm / scale within this of b0's (relative; < 0: unchecked)
};

// A b whose (b, b) overflows or underflows in double is solved as its system
// scaled by a power of two (detail::run_scaled on the CPU, the shell's
// solve_scaled on the GPU): solve(b, x) -> solve_result from x = 0, double.
// Then a b holding inf is diverged, not scaled.
template <class Solve>
void expect_scaled_solves(Solve solve, const std::vector<double>& b0, const stop_criterion& stop,
                          const scaled_solve_checks& c = {}) {
  const std::size_t n = b0.size();
  std::vector<double> x0(n, 0.0);
  const solve_result r0 = solve(b0, x0);
  ASSERT_TRUE(r0.converged);
  for (int k : c.powers) {
    SCOPED_TRACE(testing::Message() << "b = 2^" << k << " b0");
    std::vector<double> b(b0), x(n, 0.0);
    for (double& v : b) v = std::ldexp(v, k);
    const solve_result r = solve(b, x);
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, r0.iterations);
    if (k > -1000) {  // 2^-1050 b0 holds subnormals, which lose bits
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(x[i], std::ldexp(x0[i], k)) << i;
      EXPECT_EQ(r.residual, std::ldexp(r0.residual, k));
      if (c.rhs_norm_exact) {
        EXPECT_EQ(r.rhs_norm, std::ldexp(r0.rhs_norm, k));
      }
    }
  }
  for (double scale : {1e160, 1e-170}) {
    SCOPED_TRACE(testing::Message() << "b = " << scale << " b0");
    std::vector<double> b(b0), x(n, 0.0);
    for (double& v : b) v *= scale;
    const solve_result r = solve(b, x);
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.status, solve_status::converged);
    EXPECT_GT(r.iterations, c.min_iterations);
    if (c.rhs_norm_tol >= 0) {
      EXPECT_NEAR(r.rhs_norm / scale, r0.rhs_norm, c.rhs_norm_tol * r0.rhs_norm);
    }
    EXPECT_LE(r.residual, stop.rel_tol * r.rhs_norm);
    for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(x[i] / scale, x0[i], 1e-8) << i;
  }
  std::vector<double> bad(b0), xb(n, 0.0);
  bad[7] = INFINITY;
  EXPECT_EQ(solve(bad, xb).status, solve_status::diverged);
}

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
