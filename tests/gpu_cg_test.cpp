// GPU CG and Jacobi: the true residual criterion on random and real SPD
// matrices, every GPU SpMV kernel, exact iteration accounting however often the
// host looks, agreement with the CPU solvers, host syncs, reported outcomes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/convert.hpp"
#include "kernels/spmv.hpp"
#include "solvers/cg.hpp"
#include "solvers/jacobi.hpp"
#include "tests/support/linear_system.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

std::vector<spmv_kernel> gpu_kernels() {
  std::vector<spmv_kernel> k;
  for (spmv_kernel x : spmv_kernels())
    if (on_gpu(x)) k.push_back(x);
  return k;
}

// ---- every kernel, float and double ---------------------------------------------

class gpu_cg_kernels : public test::gpu_test_with_param<std::tuple<spmv_kernel, bool>> {};

TEST_P(gpu_cg_kernels, ConvergesToTheTrueResidualAndMatchesTheCpu) {
  const auto [kernel, is_float] = GetParam();
  const index_t n = 3001;
  const auto ad = test::laplacian_1d(n, 0.01);  // condition ~ 400
  const auto bd = test::random_vector(n, 17);
  auto check = [&](auto tag) {
    using T = decltype(tag);
    const auto a = value_cast<T>(ad);
    const std::vector<T> b(bd.begin(), bd.end());
    const stop_criterion stop{5000, default_rel_tol<T>(), 0};
    cuda::cg_solver<T> solver(a, kernel);
    EXPECT_NE(solver.kernel(), spmv_kernel::automatic);
    cuda::device_buffer<T> db(b), dx(std::vector<T>(n, T(0)));
    const solve_result r = solver.solve(db.data(), dx.data(), stop);
    ASSERT_TRUE(r.converged) << name(kernel) << " residual " << r.relative_residual();
    const auto x = dx.download();
    // float: the float-precision residual the solver saw vs the double one here differ by ~eps n.
    EXPECT_LE(test::true_residual(a, b, x),
              stop.rel_tol * test::norm(b) * (sizeof(T) == 4 ? 2.0 : 1.0 + 1e-6));
    EXPECT_GE(r.host_syncs, 1);
    EXPECT_LE(r.host_syncs, 4 + r.iterations / 4);
    // CPU CG on the same system: the same iteration count up to rounding-order effects.
    std::vector<T> xc(n, T(0));
    const solve_result rc = cg(a, b, xc, stop);
    ASSERT_TRUE(rc.converged);
    EXPECT_NEAR(r.iterations, rc.iterations, 2 + 0.02 * rc.iterations);
    // Jacobi with the same kernel (diagonally dominant: converges).
    cuda::jacobi_solver<T> jac(a, kernel);
    cuda::device_buffer<T> dxj(std::vector<T>(n, T(0)));
    const stop_criterion jstop{200000, sizeof(T) == 4 ? 1e-4 : 1e-8, 0};
    const solve_result rj = jac.solve(db.data(), dxj.data(), jstop);
    ASSERT_TRUE(rj.converged) << rj.relative_residual();
    EXPECT_LE(test::true_residual(a, b, dxj.download()),
              jstop.rel_tol * test::norm(b) * (sizeof(T) == 4 ? 2.0 : 1.0 + 1e-6));
  };
  if (is_float)
    check(float{});
  else
    check(double{});
}

INSTANTIATE_TEST_SUITE_P(all, gpu_cg_kernels,
                         ::testing::Combine(::testing::ValuesIn(gpu_kernels()), ::testing::Bool()),
                         [](const auto& info) {
                           std::string s(name(std::get<0>(info.param)));
                           for (char& c : s)
                             if (c == '-') c = '_';
                           return s + (std::get<1>(info.param) ? "_float" : "_double");
                         });

// ---- exact iteration accounting ------------------------------------------------------

class gpu_cg : public test::gpu_test {};

// The device stops itself; the host may look after every iteration or only
// after many: same iteration count, bit-identical solution.
TEST_F(gpu_cg, IterationCountAndResultDoNotDependOnHowOftenTheHostLooks) {
  const auto a = test::laplacian_1d(20000, 1e-3);
  const auto b = test::random_vector(20000, 5);
  cuda::device_buffer<double> db(b);
  const stop_criterion stop{10000, 1e-10, 0};
  std::vector<double> first;
  int iterations = -1;
  for (const cuda::check_schedule& s :
       {cuda::check_schedule{1, 1, 1, false}, cuda::check_schedule{7, 3, 3, false},
        cuda::check_schedule{5000, 5000, 5000, false}, cuda::check_schedule{}}) {
    cuda::cg_solver<double> solver(a, spmv_kernel::csr_vector);
    solver.schedule() = s;
    cuda::device_buffer<double> dx(std::vector<double>(b.size(), 0.0));
    const solve_result r = solver.solve(db.data(), dx.data(), stop);
    ASSERT_TRUE(r.converged);
    if (iterations < 0) {
      iterations = r.iterations;
      first = dx.download();
      EXPECT_GE(r.host_syncs, r.iterations);  // looked after every iteration
    } else {
      EXPECT_EQ(r.iterations, iterations) << "first check " << s.first;
      EXPECT_EQ(dx.download(), first);
    }
    if (s.first == 5000) {
      EXPECT_EQ(r.host_syncs, 1);  // one blind batch, one look
    }
  }
  // The limit is honoured exactly.
  cuda::cg_solver<double> solver(a, spmv_kernel::cusparse);
  solver.schedule() = cuda::check_schedule{100, 100, 100, false};
  cuda::device_buffer<double> dx(std::vector<double>(b.size(), 0.0));
  const solve_result r = solver.solve(db.data(), dx.data(), stop_criterion{37, 1e-14, 0});
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.status, solve_status::max_iterations);
  EXPECT_EQ(r.iterations, 37);
  EXPECT_NEAR(r.residual, test::true_residual(a, b, dx.download()), 1e-9 * test::norm(b));
}

// Issue 16: every residual, dot product and norm goes through the one
// deterministic reduction, so the same system solved twice (two solver
// objects, and the first one reused) gives the same bits: x, the residual and
// the iteration count. A fixed kernel (auto may time its candidates).
template <class Solver, class T>
void expect_bitwise_reproducible_solves(const csr_matrix<T>& a, const std::vector<T>& b,
                                        const stop_criterion& stop) {
  cuda::device_buffer<T> db(b);
  Solver first_solver(a, spmv_kernel::csr_vector), second_solver(a, spmv_kernel::csr_vector);
  auto solve = [&](Solver& solver, std::vector<T>& x) {
    cuda::device_buffer<T> dx(std::vector<T>(b.size(), T(0)));
    const solve_result r = solver.solve(db.data(), dx.data(), stop);
    x = dx.download();
    return r;
  };
  std::vector<T> x0, x1, x2;
  const solve_result r0 = solve(first_solver, x0);
  ASSERT_TRUE(r0.converged) << r0.relative_residual();
  const solve_result r1 = solve(second_solver, x1);
  const solve_result r2 = solve(first_solver, x2);
  for (const auto& [r, x] : {std::pair{r1, &x1}, std::pair{r2, &x2}}) {
    EXPECT_EQ(r.iterations, r0.iterations);
    EXPECT_EQ(std::memcmp(&r.residual, &r0.residual, sizeof(double)), 0)
        << r.residual << " vs " << r0.residual;
    ASSERT_EQ(x->size(), x0.size());
    EXPECT_EQ(std::memcmp(x->data(), x0.data(), x0.size() * sizeof(T)), 0);
  }
}

TEST_F(gpu_cg, RepeatedSolvesAreBitwiseIdentical) {
  // The systems of the tests above that converge in double and in float.
  const auto ad = test::laplacian_1d(20000, 1e-3);
  expect_bitwise_reproducible_solves<cuda::cg_solver<double>>(ad, test::random_vector(20000, 11),
                                                              stop_criterion{10000, 1e-10, 0});
  const auto bd = test::random_vector(3001, 11);
  expect_bitwise_reproducible_solves<cuda::cg_solver<float>>(
      value_cast<float>(test::laplacian_1d(3001, 0.01)), std::vector<float>(bd.begin(), bd.end()),
      stop_criterion{5000, 1e-5, 0});
}

// Warm-started repeated solves: the prediction makes one host look per solve.
TEST_F(gpu_cg, PredictedChecksCostOneSyncPerWarmSolve) {
  const auto a = test::laplacian_1d(5000, 0.5);
  cuda::cg_solver<double> solver(a, spmv_kernel::automatic);
  auto b = test::random_vector(5000, 6);
  cuda::device_buffer<double> db(b), dx(std::vector<double>(5000, 0.0));
  solver.solve(db.data(), dx.data(), stop_criterion{});
  int one_sync = 0;
  for (int k = 0; k < 10; ++k) {
    // The same system again from scratch: exactly the predicted count.
    dx.upload(std::vector<double>(5000, 0.0));
    const solve_result r = solver.solve(db.data(), dx.data(), stop_criterion{});
    ASSERT_TRUE(r.converged);
    one_sync += r.host_syncs == 1;
  }
  EXPECT_EQ(one_sync, 10);
}

TEST_F(gpu_cg, OutcomesAndBadInput) {
  // Indefinite: breakdown reported, not thrown.
  cuda::cg_solver<double> solver(test::indefinite_2x2(), spmv_kernel::csr_scalar);
  cuda::device_buffer<double> db(std::vector<double>{1, 1}), dx(std::vector<double>{0, 0});
  const solve_result r = solver.solve(db.data(), dx.data(), stop_criterion{});
  EXPECT_EQ(r.status, solve_status::breakdown);
  EXPECT_FALSE(r.converged);
  // Zero right-hand side and guess: converged with no iteration.
  const auto a = test::laplacian_1d(100, 0.1);
  cuda::cg_solver<double> s2(a, spmv_kernel::csr_vector);
  cuda::device_buffer<double> z(std::vector<double>(100, 0.0)), x(std::vector<double>(100, 0.0));
  const solve_result r2 = s2.solve(z.data(), x.data(), stop_criterion{});
  EXPECT_TRUE(r2.converged);
  EXPECT_EQ(r2.iterations, 0);
  // min_iterations: a zero residual still stops at once; a warm start that
  // meets the tolerance takes the iterations asked for (CG and Jacobi).
  EXPECT_EQ(s2.solve(z.data(), x.data(), stop_criterion{1000, 1e-10, 0, 1}).iterations, 0);
  {
    const std::vector<double> hb = test::random_vector(100, 3);
    cuda::device_buffer<double> b(hb), w(std::vector<double>(100, 0.0));
    ASSERT_TRUE(s2.solve(b.data(), w.data(), stop_criterion{1000, 1e-12, 0}).converged);
    EXPECT_EQ(s2.solve(b.data(), w.data(), stop_criterion{1000, 1e-3, 0}).iterations, 0);
    const solve_result warm = s2.solve(b.data(), w.data(), stop_criterion{1000, 1e-3, 0, 1});
    EXPECT_EQ(warm.iterations, 1);
    EXPECT_TRUE(warm.converged);
    cuda::jacobi_solver<double> j(a, spmv_kernel::csr_vector, jacobi_options{1.0});
    cuda::device_buffer<double> wj(std::vector<double>(100, 0.0));
    ASSERT_TRUE(j.solve(b.data(), wj.data(), stop_criterion{100000, 1e-12, 0}).converged);
    EXPECT_EQ(j.solve(b.data(), wj.data(), stop_criterion{1000, 1e-3, 0}).iterations, 0);
    EXPECT_EQ(j.solve(b.data(), wj.data(), stop_criterion{1000, 1e-3, 0, 2}).iterations, 2);
  }
  EXPECT_THROW(s2.solve(z.data(), x.data(), stop_criterion{-1, 1e-10, 0}), invalid_argument);
  EXPECT_THROW(cuda::cg_solver<double>(a, spmv_kernel::cpu), invalid_argument);
  csr_matrix<double> rect;
  rect.rows = 2;
  rect.cols = 3;
  rect.row_ptr = {0, 0, 0};
  EXPECT_THROW(cuda::cg_solver<double>(rect, spmv_kernel::csr_vector), dimension_error);
  EXPECT_THROW(cuda::jacobi_solver<double>(a, spmv_kernel::csr_vector, jacobi_options{2.0}),
               invalid_argument);
}

// A b whose (b, b) overflows or underflows in double is solved as its
// system scaled by a power of two (solver_common.cuh, as the CPU's
// run_scaled): before, 1e160 b0 was "diverged" at iteration 0 with x
// untouched and 1e-170 b0 "converged" at x = 0. CG and Jacobi alike.
TEST_F(gpu_cg, HugeAndTinyRightHandSidesAreSolvedAsTheirScaledSystem) {
  const index_t n = 500;
  const auto a = test::laplacian_1d(n, 0.1);
  const auto b0 = test::random_vector(n, 6);
  const stop_criterion stop{3000, 1e-10, 0};
  cuda::cg_solver<double> cg_gpu(a, spmv_kernel::csr_vector);
  cuda::jacobi_solver<double> jacobi_gpu(a, spmv_kernel::csr_vector, jacobi_options{1.0});
  for (int method = 0; method < 2; ++method) {
    SCOPED_TRACE(method == 0 ? "cg" : "jacobi");
    auto solve = [&](const std::vector<double>& b, std::vector<double>& x) {
      cuda::device_buffer<double> db(b), dx(x);
      const solve_result r = method == 0 ? cg_gpu.solve(db.data(), dx.data(), stop)
                                         : jacobi_gpu.solve(db.data(), dx.data(), stop);
      x = dx.download();
      return r;
    };
    test::expect_scaled_solves(solve, b0, stop, {{600, -600}, false, 0, 1e-12});
  }
}

// ---- real SPD matrices -------------------------------------------------------------

class gpu_cg_real : public test::gpu_test_with_param<test::cg_case> {};

TEST_P(gpu_cg_real, ResidualBelowRtolTimesRhs) {
  const test::cg_case c = GetParam();
  const auto system = test::shared_system(c.file);
  if (!system) GTEST_SKIP() << "shared data not present";
  const csr_matrix<double>& a = system->a;
  const std::vector<double>& b = system->b;
  cuda::cg_solver<double> solver(a, spmv_kernel::automatic);
  cuda::device_buffer<double> db(b), dx(std::vector<double>(a.rows, 0.0));
  const solve_result r = solver.solve(db.data(), dx.data(), stop_criterion{c.max_iterations, c.rtol, 0});
  ASSERT_TRUE(r.converged) << c.file << ": " << r.iterations << " iterations, residual "
                           << r.relative_residual();
  EXPECT_LE(test::true_residual(a, b, dx.download()), c.rtol * test::norm(b)) << c.file;
  // Host looks grow like log(iterations), not like iterations.
  EXPECT_LE(r.host_syncs, 8 + 8 * std::log2(1.0 + r.iterations)) << r.iterations << " iterations";
  // Jacobi on bcsstk01 with omega = 0.85 (< 2 / lambda_max(D^-1 A) ~ 0.95): converges.
  if (std::string(c.file) == "bcsstk01.mtx") {
    cuda::jacobi_solver<double> jac(a, spmv_kernel::automatic, jacobi_options{0.85});
    cuda::device_buffer<double> dxj(std::vector<double>(a.rows, 0.0));
    const solve_result rj = jac.solve(db.data(), dxj.data(), stop_criterion{20000, 1e-10, 0});
    ASSERT_TRUE(rj.converged) << rj.relative_residual();
    EXPECT_LE(test::true_residual(a, b, dxj.download()), 1e-10 * test::norm(b));
    // Plain Jacobi diverges there (lambda_max(D^-1 A) ~ 2.1 > 2): reported as such.
    cuda::jacobi_solver<double> plain(a, spmv_kernel::automatic);
    dxj.upload(std::vector<double>(a.rows, 0.0));
    EXPECT_EQ(plain.solve(db.data(), dxj.data(), stop_criterion{20000, 1e-10, 0}).status,
              solve_status::diverged);
  }
}

INSTANTIATE_TEST_SUITE_P(shared, gpu_cg_real, ::testing::ValuesIn(test::cg_cases), test::file_stem());

// ---- Jacobi specifics --------------------------------------------------------------

class gpu_jacobi : public test::gpu_test {};

TEST_F(gpu_jacobi, MatchesTheCpuIterationForIteration) {
  const auto a = test::laplacian_1d(10000, 0.3);
  const auto b = test::random_vector(10000, 8);
  for (int limit : {0, 1, 2, 25}) {
    std::vector<double> xc(b.size(), 0.0);
    const solve_result rc = jacobi(a, b, xc, stop_criterion{limit, 0.0, 0}, jacobi_options{0.9});
    cuda::jacobi_solver<double> jac(a, spmv_kernel::csr_vector, jacobi_options{0.9});
    cuda::device_buffer<double> db(b), dx(std::vector<double>(b.size(), 0.0));
    const solve_result r = jac.solve(db.data(), dx.data(), stop_criterion{limit, 0.0, 0});
    EXPECT_EQ(r.iterations, limit);
    EXPECT_EQ(rc.iterations, limit);
    const auto x = dx.download();
    double d = 0;
    for (std::size_t i = 0; i < x.size(); ++i) d = std::max(d, std::abs(x[i] - xc[i]));
    EXPECT_LT(d, 1e-12) << "limit " << limit;  // the returned buffer is the right one (odd and even counts)
    EXPECT_NEAR(r.residual, rc.residual, 1e-9 * rc.residual + 1e-12);
  }
  // Converged runs: counts agree.
  std::vector<double> xc(b.size(), 0.0);
  const solve_result rc = jacobi(a, b, xc, stop_criterion{100000, 1e-9, 0});
  cuda::jacobi_solver<double> jac(a, spmv_kernel::csr_vector);
  cuda::device_buffer<double> db(b), dx(std::vector<double>(b.size(), 0.0));
  const solve_result r = jac.solve(db.data(), dx.data(), stop_criterion{100000, 1e-9, 0});
  ASSERT_TRUE(r.converged);
  EXPECT_NEAR(r.iterations, rc.iterations, 2);
  EXPECT_LE(test::true_residual(a, b, dx.download()), 1e-9 * test::norm(b));
}

TEST_F(gpu_jacobi, RepeatedSolvesAreBitwiseIdentical) {
  const auto ad = test::laplacian_1d(10000, 0.3);
  const auto bd = test::random_vector(10000, 12);
  const std::vector<float> bf(bd.begin(), bd.end());
  expect_bitwise_reproducible_solves<cuda::jacobi_solver<double>>(ad, bd, stop_criterion{100000, 1e-9, 0});
  expect_bitwise_reproducible_solves<cuda::jacobi_solver<float>>(value_cast<float>(ad), bf,
                                                                 stop_criterion{100000, 1e-4, 0});
}

}  // namespace
}  // namespace perron
