// CPU conjugate gradients: hand-checked systems, the stopping criterion,
// breakdown on indefinite matrices, and real SPD matrices from SuiteSparse
// (bcsstk01, bcsstk06, bcsstk13, 1138_bus) with ||b - A x|| <= rtol ||b||.
#include "solvers/cg.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/convert.hpp"
#include "kernels/spmv.hpp"
#include "tests/support/linear_system.hpp"
#include "tests/support/support.hpp"
#include "tests/support/typed.hpp"

namespace perron {
namespace {

// Symmetric, strictly diagonally dominant with positive diagonal => SPD.
csr_matrix<double> random_spd(index_t n, std::uint64_t seed) {
  coo_matrix<double> c = test::random_coo(n, n, 4.0 / n, seed);
  coo_matrix<double> s;
  s.rows = s.cols = n;
  std::vector<double> rowsum(n, 0.0);
  for (std::size_t k = 0; k < c.nnz(); ++k) {
    if (c.row_idx[k] == c.col_idx[k]) continue;
    for (auto [i, j] : {std::pair{c.row_idx[k], c.col_idx[k]}, std::pair{c.col_idx[k], c.row_idx[k]}}) {
      s.row_idx.push_back(i);
      s.col_idx.push_back(j);
      s.values.push_back(c.values[k]);
      rowsum[i] += std::abs(c.values[k]);
    }
  }
  for (index_t i = 0; i < n; ++i) {
    s.row_idx.push_back(i);
    s.col_idx.push_back(i);
    s.values.push_back(rowsum[i] + 0.5);
  }
  return to_csr(s);
}

// [[4, 1], [1, 3]]: symmetric positive definite.
csr_matrix<double> two_by_two() {
  coo_matrix<double> c;
  c.rows = c.cols = 2;
  c.row_idx = {0, 0, 1, 1};
  c.col_idx = {0, 1, 0, 1};
  c.values = {4, 1, 1, 3};
  return to_csr(c);
}

TEST(cg, SolvesATwoByTwoSystemInTwoIterations) {
  const auto a = two_by_two();
  std::vector<double> b{1, 2}, x{2, 1};
  const solve_result r = cg(a, b, x, stop_criterion{10, 1e-14, 0});
  EXPECT_TRUE(r.converged);
  EXPECT_LE(r.iterations, 2);  // exact arithmetic: n iterations at most
  EXPECT_NEAR(x[0], 1.0 / 11, 1e-15);
  EXPECT_NEAR(x[1], 7.0 / 11, 1e-15);
  EXPECT_EQ(r.host_syncs, 0);
}

// b and x in one array: x written while b is read ran to the iteration bound
// with x at 1e57; refused.
TEST(cg, OverlappingBAndXAreRefused) {
  const auto a = two_by_two();
  std::vector<double> b{1, 2, 0};
  EXPECT_THROW(cg(a, b.data(), b.data(), stop_criterion{10, 1e-14, 0}), invalid_argument);
  EXPECT_THROW(cg(a, b.data(), b.data() + 1, stop_criterion{10, 1e-14, 0}), invalid_argument);
}

template <class T>
using cg_typed = test::typed<T>;
TYPED_TEST_SUITE(cg_typed, test::value_types);

TYPED_TEST(cg_typed, RandomSpdConvergesWithTheTrueResidualBelowTheThreshold) {
  using T = TypeParam;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto a = value_cast<T>(random_spd(500, seed));
    const auto bd = test::random_vector(500, seed + 100);
    const std::vector<T> b(bd.begin(), bd.end());
    std::vector<T> x(500, T(0));
    const stop_criterion stop{1000, default_rel_tol<T>(), 0};
    const solve_result r = cg(a, b, x, stop);
    ASSERT_TRUE(r.converged) << "seed " << seed << " residual " << r.relative_residual();
    EXPECT_EQ(r.status, solve_status::converged);
    EXPECT_GT(r.iterations, 0);
    EXPECT_NEAR(r.rhs_norm, test::norm(b), 1e-6 * test::norm(b));
    // The reported residual is b - A x of the returned x (recomputed in working precision).
    const double res = test::true_residual(a, b, x);
    EXPECT_LE(res, stop.rel_tol * r.rhs_norm * (sizeof(T) == 4 ? 1.5 : 1.0 + 1e-6));
    EXPECT_NEAR(r.residual, res, 1e-6 * r.rhs_norm + 0.1 * res);
  }
}

TEST(cg, StoppingCriterion) {
  const auto a = random_spd(200, 7);
  const auto b = test::random_vector(200, 8);
  // max_iterations = 0: nothing happens, the residual of x0 is reported.
  std::vector<double> x(200, 0.0);
  solve_result r = cg(a, b, x, stop_criterion{0, 1e-10, 0});
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.status, solve_status::max_iterations);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_NEAR(r.residual, test::norm(b), 1e-12);
  EXPECT_EQ(x, std::vector<double>(200, 0.0));
  // Limit reached: exactly max_iterations updates.
  r = cg(a, b, x, stop_criterion{3, 1e-14, 0});
  EXPECT_EQ(r.iterations, 3);
  EXPECT_FALSE(r.converged);
  EXPECT_NEAR(r.residual, test::true_residual(a, b, x), 1e-12);
  // Absolute tolerance wins when it is the larger threshold.
  std::fill(x.begin(), x.end(), 0.0);
  r = cg(a, b, x, stop_criterion{1000, 0.0, 1e-3});
  EXPECT_TRUE(r.converged);
  EXPECT_LE(test::true_residual(a, b, x), 1e-3);
  EXPECT_GT(test::true_residual(a, b, x), 1e-3 * 1e-3);  // stopped early, not at 1e-10
  // Warm start at the solution: zero iterations.
  r = cg(a, b, x, stop_criterion{1000, 1e-2, 0});
  EXPECT_EQ(r.iterations, 0);
  EXPECT_TRUE(r.converged);
  // ... unless min_iterations asks for some: the step is taken, and improves x.
  const double before = test::true_residual(a, b, x);
  r = cg(a, b, x, stop_criterion{1000, 1e-2, 0, 1});
  EXPECT_EQ(r.iterations, 1);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(test::true_residual(a, b, x), before);
  // b = 0, x = 0: converged at once, min_iterations or not (a zero residual: nothing to step along).
  std::vector<double> zero(200, 0.0), x0(200, 0.0);
  r = cg(a, zero, x0, stop_criterion{});
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations, 0);
  r = cg(a, zero, x0, stop_criterion{1000, 1e-10, 0, 1});
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(r.status, solve_status::converged);
  EXPECT_THROW(cg(a, b, x, stop_criterion{1000, 1e-10, 0, -1}), invalid_argument);
}

// b of norm 1e160 or 1e-170: (r, r) overflows or underflows in double. Before,
// the first was "diverged" at iteration 0 with x untouched, and the second
// "converged" at iteration 0 with x = 0 (a wrong answer: (r, r) was 0). Now
// the solve runs on b scaled by a power of two: with b = 2^k b0 the very
// steps of b0's solve (x = 2^k x0 bit for bit), with b = 1e160 b0 the same
// solution to the tolerance.
TEST(cg, HugeAndTinyRightHandSidesAreSolvedAsTheirScaledSystem) {
  const auto a = random_spd(300, 5);
  const auto b0 = test::random_vector(300, 6);
  const stop_criterion stop{1000, 1e-10, 0};
  test::expect_scaled_solves(
      [&](const std::vector<double>& b, std::vector<double>& x) { return cg(a, b, x, stop); }, b0, stop,
      {{600, -600, 1000, -1050}, true, 0, 1e-14});
  // abs_tol keeps its meaning: a b below it is solved by x0 = 0 at once.
  std::vector<double> tiny(b0), x(300, 0.0);
  for (double& v : tiny) v *= 1e-170;
  const solve_result r = cg(a, tiny, x, stop_criterion{1000, 1e-10, 1e-100});
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations, 0);
}

TEST(cg, IndefiniteMatrixBreaksDown) {
  const auto a = test::indefinite_2x2();
  std::vector<double> b{1, 1}, x{0, 0};  // p0 = b: p'Ap = 0
  const solve_result r = cg(a, b, x, stop_criterion{});
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.status, solve_status::breakdown);
}

TEST(cg, BadArguments) {
  const auto a = random_spd(10, 1);
  std::vector<double> b(10, 1.0), x(9, 0.0);
  EXPECT_THROW(cg(a, b, x, stop_criterion{}), dimension_error);
  x.resize(10);
  EXPECT_THROW(cg(a, b, x, stop_criterion{-1, 1e-10, 0}), invalid_argument);
  EXPECT_THROW(cg(a, b, x, stop_criterion{10, -1e-10, 0}), invalid_argument);
  EXPECT_THROW(cg(a, b, x, stop_criterion{10, std::nan(""), 0}), invalid_argument);
  EXPECT_THROW(cg(a, b, x, stop_criterion{10, 1e-10, -1}), invalid_argument);
  try {  // the value as given, not std::to_string's '-0.000000'
    cg(a, b, x, stop_criterion{10, -1e-12, 0});
    ADD_FAILURE() << "rtol -1e-12 accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(got -1e-12)"), std::string::npos) << e.what();
  }
  csr_matrix<double> rect;
  rect.rows = 2;
  rect.cols = 3;
  rect.row_ptr = {0, 0, 0};
  std::vector<double> b2(2), x2(2);
  EXPECT_THROW(cg(rect, b2, x2, stop_criterion{}), dimension_error);
}

// A corrupt CSR is refused before the first SpMV, which checks sizes only
// and read x[7] of a 2-vector (and past col_idx for a decreasing row_ptr).
TEST(cg, CorruptMatrixIsRefusedNotRead) {
  csr_matrix<double> a;
  a.rows = a.cols = 2;
  a.row_ptr = {0, 1, 2};
  a.col_idx = {0, 7};
  a.values = {1, 1};
  std::vector<double> b(2, 1.0), x(2, 0.0);
  EXPECT_THROW(cg(a, b, x, stop_criterion{}), dimension_error);
  EXPECT_THROW(cg(a, b.data(), x.data(), stop_criterion{}), dimension_error);
  a.col_idx = {0, 1};
  a.row_ptr = {0, 2, 2};  // row 1 empty: valid (singular, CG may break down, but reads nothing wrong)
  EXPECT_NO_THROW(cg(a, b, x, stop_criterion{}));
  a.rows = a.cols = 3;
  a.row_ptr = {0, 2, 1, 2};  // decreasing
  b.assign(3, 1.0);
  x.assign(3, 0.0);
  EXPECT_THROW(cg(a, b, x, stop_criterion{}), dimension_error);
}

// Real SPD matrices (test::cg_cases says which and why these tolerances).
class cg_real : public ::testing::TestWithParam<test::cg_case> {};

TEST_P(cg_real, ResidualBelowRtolTimesRhs) {
  const test::cg_case c = GetParam();
  const auto system = test::shared_system(c.file);
  if (!system) GTEST_SKIP() << "shared data not present";
  const auto& [a, b, xt] = *system;
  std::vector<double> x(a.rows, 0.0);
  const solve_result r = cg(a, b, x, stop_criterion{c.max_iterations, c.rtol, 0});
  ASSERT_TRUE(r.converged) << c.file << ": " << r.iterations << " iterations, residual "
                           << r.relative_residual();
  EXPECT_LE(test::true_residual(a, b, x), c.rtol * test::norm(b)) << c.file;
  EXPECT_LE(r.relative_residual(), c.rtol);
}

INSTANTIATE_TEST_SUITE_P(shared, cg_real, ::testing::ValuesIn(test::cg_cases), test::file_stem());

}  // namespace
}  // namespace perron
