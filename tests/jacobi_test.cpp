// CPU weighted Jacobi: convergence where theory promises it, and honest
// reports where it does not (diverged / not converged), on random diagonally
// dominant matrices and the real SPD matrices of the CG tests.
//
// What is true for the four SPD matrices (lambda_max(D^{-1} A) estimated by
// power iteration inside the test):
//  - bcsstk01, bcsstk06, bcsstk13: lambda_max(D^{-1} A) > 2, so plain Jacobi
//    (omega = 1) diverges (the error along that eigenvector grows by
//    |1 - lambda_max| > 1 each step): it must report `diverged`.
//  - 1138_bus: weakly diagonally dominant, lambda_max(D^{-1} A) < 2: omega = 1
//    converges, but at a rate near 1 (not to 1e-10 in any sensible count).
//  - For every SPD matrix, 0 < omega < 2 / lambda_max makes Jacobi a
//    contraction in the A-norm: ||x_k - x*||_A decreases monotonically. On
//    bcsstk01 that reaches rtol 1e-10 within ~7000 iterations; on the others
//    it is far too slow to reach it (the test checks the monotone decrease).
#include "solvers/jacobi.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/convert.hpp"
#include "kernels/spmv.hpp"
#include "tests/support/linear_system.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

// ||e||_A = sqrt(e' A e)
double a_norm_error(const csr_matrix<double>& a, const std::vector<double>& x,
                    const std::vector<double>& xt) {
  std::vector<double> e(x.size()), ae(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) e[i] = x[i] - xt[i];
  spmv(a, 1.0, e.data(), 0.0, ae.data());
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) s += e[i] * ae[i];
  return std::sqrt(s);
}

// Largest eigenvalue of D^{-1} A (similar to the SPD D^{-1/2} A D^{-1/2}):
// power iteration, 3000 steps from a seeded random start.
double lambda_max_jacobi(const csr_matrix<double>& a) {
  const auto d = jacobi_diagonal(a);
  auto x = test::random_vector(a.rows, 5, 0.5, 1.5);
  std::vector<double> y(x.size());
  double lambda = 0;
  for (int it = 0; it < 3000; ++it) {
    spmv(a, 1.0, x.data(), 0.0, y.data());
    for (std::size_t i = 0; i < y.size(); ++i) y[i] /= d[i];
    lambda = test::norm(y) / test::norm(x);
    const double ny = test::norm(y);
    for (std::size_t i = 0; i < y.size(); ++i) x[i] = y[i] / ny;
  }
  return lambda;
}

csr_matrix<double> random_dominant(index_t n, std::uint64_t seed, bool symmetric) {
  coo_matrix<double> c = test::random_coo(n, n, 5.0 / n, seed);
  std::vector<double> rowsum(n, 0.0);
  coo_matrix<double> s;
  s.rows = s.cols = n;
  for (std::size_t k = 0; k < c.nnz(); ++k) {
    if (c.row_idx[k] == c.col_idx[k]) continue;
    s.row_idx.push_back(c.row_idx[k]);
    s.col_idx.push_back(c.col_idx[k]);
    s.values.push_back(c.values[k]);
    rowsum[c.row_idx[k]] += std::abs(c.values[k]);
    if (symmetric) {
      s.row_idx.push_back(c.col_idx[k]);
      s.col_idx.push_back(c.row_idx[k]);
      s.values.push_back(c.values[k]);
      rowsum[c.col_idx[k]] += std::abs(c.values[k]);
    }
  }
  for (index_t i = 0; i < n; ++i) {
    s.row_idx.push_back(i);
    s.col_idx.push_back(i);
    s.values.push_back((i % 2 ? -1.0 : 1.0) * (1.25 * rowsum[i] + 0.1));  // any sign: D^{-1} handles it
  }
  return to_csr(s);
}

TEST(jacobi, DiagonallyDominantConvergesAndReportsTheResidualOfTheReturnedX) {
  for (bool symmetric : {false, true}) {
    const auto a = random_dominant(400, 3, symmetric);
    const auto b = test::random_vector(400, 4);
    std::vector<double> x(400, 0.0);
    const solve_result r = jacobi(a, b, x, stop_criterion{5000, 1e-10, 0});
    ASSERT_TRUE(r.converged) << r.relative_residual();
    EXPECT_EQ(r.status, solve_status::converged);
    EXPECT_GT(r.iterations, 5);
    EXPECT_NEAR(r.residual, test::true_residual(a, b, x), 1e-14 * test::norm(b));
    EXPECT_LE(r.residual, 1e-10 * test::norm(b));
    EXPECT_EQ(r.host_syncs, 0);
  }
}

// b of norm 1e160 or 1e-170 (the CG test's twin): before, "diverged" at
// iteration 0 and "converged" at x = 0; now the scaled system's solve, bit for
// bit where the scale is a power of two.
TEST(jacobi, HugeAndTinyRightHandSidesAreSolvedAsTheirScaledSystem) {
  const auto a = random_dominant(300, 3, false);
  const auto b0 = test::random_vector(300, 4);
  const stop_criterion stop{5000, 1e-10, 0};
  test::expect_scaled_solves(
      [&](const std::vector<double>& b, std::vector<double>& x) { return jacobi(a, b, x, stop); }, b0, stop,
      {{600, -600}, false, 5, -1});
}

TEST(jacobi, FloatConverges) {
  const auto ad = random_dominant(300, 9, false);
  const auto a = value_cast<float>(ad);
  const auto bd = test::random_vector(300, 10);
  const std::vector<float> b(bd.begin(), bd.end());
  std::vector<float> x(300, 0.0f);
  const solve_result r = jacobi(a, b, x, stop_criterion{5000, default_rel_tol<float>(), 0});
  EXPECT_TRUE(r.converged);
  EXPECT_LE(r.relative_residual(), 1e-5);
}

TEST(jacobi, IterationCountIsExactAndWarmStartsWork) {
  const auto a = random_dominant(100, 11, true);
  const auto b = test::random_vector(100, 12);
  std::vector<double> x(100, 0.0);
  solve_result r = jacobi(a, b, x, stop_criterion{7, 0.0, 0});
  EXPECT_EQ(r.iterations, 7);
  EXPECT_FALSE(r.converged);
  EXPECT_NEAR(r.residual, test::true_residual(a, b, x), 1e-14);
  // Continuing from x: the remaining iterations add up to a cold run's count.
  std::vector<double> cold(100, 0.0);
  const solve_result full = jacobi(a, b, cold, stop_criterion{5000, 1e-10, 0});
  r = jacobi(a, b, x, stop_criterion{5000, 1e-10, 0});
  EXPECT_EQ(r.iterations + 7, full.iterations);
  EXPECT_EQ(x, cold);
  // At the solution: no iteration, or min_iterations of them.
  r = jacobi(a, b, x, stop_criterion{5000, 1e-6, 0});
  EXPECT_EQ(r.iterations, 0);
  r = jacobi(a, b, x, stop_criterion{5000, 1e-6, 0, 2});
  EXPECT_EQ(r.iterations, 2);
  EXPECT_TRUE(r.converged);
}

TEST(jacobi, BadInput) {
  coo_matrix<double> c;
  c.rows = c.cols = 3;
  c.row_idx = {0, 1, 2, 2};
  c.col_idx = {0, 2, 1, 2};
  c.values = {1, 1, 1, 1};  // row 2 (1-based) has no diagonal entry
  const auto a = to_csr(c);
  std::vector<double> b(3, 1.0), x(3, 0.0);
  try {
    jacobi(a, b, x, stop_criterion{});
    FAIL();
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
  }
  const auto good = random_dominant(3, 1, false);
  EXPECT_THROW(jacobi(good, b, x, stop_criterion{}, jacobi_options{0.0}), invalid_argument);
  EXPECT_THROW(jacobi(good, b, x, stop_criterion{}, jacobi_options{2.0}), invalid_argument);
  std::vector<double> x2(2);
  EXPECT_THROW(jacobi(good, b, x2, stop_criterion{}), dimension_error);
}

// A corrupt CSR is refused before it is indexed: a column -3 was reported as
// a missing diagonal (and then read as x[-3]), a row_ptr past nnz was walked.
TEST(jacobi, CorruptMatrixIsRefusedNotRead) {
  csr_matrix<double> a;
  a.rows = a.cols = 2;
  a.row_ptr = {0, 1, 2};
  a.col_idx = {0, -3};
  a.values = {1, 1};
  std::vector<double> b(2, 1.0), x(2, 0.0);
  EXPECT_THROW(jacobi(a, b, x, stop_criterion{}), dimension_error);
  EXPECT_THROW(jacobi(a, b.data(), x.data(), stop_criterion{}), dimension_error);
  EXPECT_THROW(jacobi_diagonal(a), dimension_error);
  a.col_idx = {0, 1};
  a.row_ptr = {0, 1000, 2};
  EXPECT_THROW(jacobi_diagonal(a), dimension_error);
}

struct spd_case {
  const char* file;
  bool omega1_diverges;        // lambda_max(D^{-1} A) > 2
  bool weighted_reaches_rtol;  // 1.8 / lambda_max reaches 1e-10 within 20000 iterations
};

class jacobi_real : public ::testing::TestWithParam<spd_case> {};

TEST_P(jacobi_real, ConvergesWhereTheoryPromisesAndSaysSoWhereItDoesNot) {
  const spd_case c = GetParam();
  const auto system = test::shared_system(c.file);
  if (!system) GTEST_SKIP() << "shared data not present";
  const auto& [a, b, xt] = *system;
  const double lmax = lambda_max_jacobi(a);
  EXPECT_EQ(lmax > 2, c.omega1_diverges) << c.file << ": lambda_max(D^-1 A) ~ " << lmax;

  // omega = 1.
  std::vector<double> x(a.rows, 0.0);
  solve_result r = jacobi(a, b, x, stop_criterion{20000, 1e-10, 0});
  EXPECT_FALSE(r.converged && c.omega1_diverges);
  if (c.omega1_diverges) {
    EXPECT_EQ(r.status, solve_status::diverged) << c.file << " after " << r.iterations;
  }

  // omega = 1.8 / lambda_max: an A-norm contraction.
  const jacobi_options weighted{1.8 / lmax};
  std::fill(x.begin(), x.end(), 0.0);
  double previous = a_norm_error(a, x, xt);
  for (int chunk = 0; chunk < 10; ++chunk) {
    r = jacobi(a, b, x, stop_criterion{200, 0.0, 0}, weighted);
    const double e = a_norm_error(a, x, xt);
    EXPECT_LT(e, previous) << c.file << " after " << (chunk + 1) * 200 << " iterations";
    previous = e;
  }
  if (c.weighted_reaches_rtol) {
    std::fill(x.begin(), x.end(), 0.0);
    r = jacobi(a, b, x, stop_criterion{20000, 1e-10, 0}, weighted);
    ASSERT_TRUE(r.converged) << r.relative_residual();
    EXPECT_LE(test::true_residual(a, b, x), 1e-10 * test::norm(b));
  }
}

INSTANTIATE_TEST_SUITE_P(shared, jacobi_real,
                         ::testing::Values(spd_case{"bcsstk01.mtx", true, true},
                                           spd_case{"bcsstk06.mtx", true, false},
                                           spd_case{"1138_bus.mtx", false, false},
                                           spd_case{"bcsstk13.mtx", true, false}),
                         test::file_stem());

}  // namespace
}  // namespace perron
