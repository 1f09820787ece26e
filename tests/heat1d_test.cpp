// The heat solver on the CPU: assembly properties, observed orders of accuracy
// against the exact solution, exact discrete amplitudes, conservation, the
// maximum principle, iterative vs direct, steady states, input errors.
#include "solvers/heat1d.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "kernels/convert.hpp"

namespace perron::heat {
namespace {

constexpr double pi = 3.14159265358979323846;

// A grid of n points with the given boundary conditions.
grid_problem problem(index_t n, const std::string& left, const std::string& right, double kappa = 1.0) {
  return grid_problem{n, 1.0, kappa, parse_boundary(left), parse_boundary(right)};
}

grid_problem dirichlet_problem(index_t n, double kappa = 1.0) {
  grid_problem p;
  p.n = n;
  p.kappa = kappa;
  return p;
}

step_options options(method m, step_solver s, double dt) {
  step_options o;
  o.scheme = m;
  o.solver = s;
  o.dt = dt;
  o.stop.rel_tol = 1e-12;
  o.stop.max_iterations = 100000;
  o.where = device::cpu;
  o.kernel = spmv_kernel::cpu;
  return o;
}

std::vector<double> run(const grid_problem& p, const step_options& o, std::vector<double> u0, long steps) {
  time_stepper<double> ts(p, o, u0);
  for (long k = 0; k < steps; ++k) {
    const step_report r = ts.step();
    EXPECT_TRUE(r.converged) << "step " << k;
  }
  return ts.solution();
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

double integral(const grid_problem& p, const std::vector<double>& u) {
  const auto q = quadrature_weights(p);
  return std::inner_product(q.begin(), q.end(), u.begin(), 0.0);
}

// Max error at T of the sin:1 Dirichlet problem.
double sine_error(index_t n, method m, double T, long steps, step_solver s = step_solver::direct) {
  const grid_problem p = dirichlet_problem(n);
  initial_condition ic;  // sin:1
  const auto u = run(p, options(m, s, T / double(steps)), initial_profile(ic, p), steps);
  return max_diff(u, *exact_solution(p, ic, T));
}

// ---- assembly --------------------------------------------------------------------

class assembly : public ::testing::TestWithParam<std::tuple<method, std::string, std::string>> {};

TEST_P(assembly, LhsIsSymmetricDiagonallyDominantAndBoundaryRowsAreRight) {
  const auto [m, left, right] = GetParam();
  const grid_problem p = problem(9, left, right, 0.7);
  const auto s = assemble_step<double>(p, m, 0.01);
  if (m == method::explicit_euler) {
    EXPECT_EQ(s.lhs.rows, 0);
    // Explicit rows of I + r S sum to 1 away from Dirichlet neighbours (constants are preserved).
    const auto d = to_dense(s.rhs);
    for (index_t i = 2; i < p.n - 2; ++i) {
      double sum = 0;
      for (index_t j = 0; j < p.n; ++j) sum += d[i * p.n + j];
      EXPECT_NEAR(sum, 1.0, 1e-14);
    }
    return;
  }
  const auto a = to_dense(s.lhs);
  const index_t n = p.n;
  for (index_t i = 0; i < n; ++i) {
    double off = 0;
    for (index_t j = 0; j < n; ++j) {
      EXPECT_EQ(a[i * n + j], a[j * n + i]) << "A(" << i << "," << j << ")";
      if (j != i) off += std::abs(a[i * n + j]);
    }
    EXPECT_GT(a[i * n + i], off) << "row " << i << " is not strictly diagonally dominant";
  }
  // Dirichlet rows are identity rows.
  if (p.left.kind == boundary_kind::dirichlet) {
    EXPECT_EQ(a[0], 1.0);
  }
  if (p.right.kind == boundary_kind::dirichlet) {
    EXPECT_EQ(a[n * n - 1], 1.0);
  }
  // With Neumann ends, the half weight: A(0,0) = 1/2 + theta r.
  const double th = theta(m);
  if (p.left.kind == boundary_kind::neumann) {
    EXPECT_NEAR(a[0], 0.5 + th * s.r, 1e-14);
  }
  // Two insulated ends: 1^T A = 1^T W, 1^T B = 1^T W (the integral is conserved).
  if (left == "insulated" && right == "insulated") {
    const auto b = to_dense(s.rhs);
    for (index_t j = 0; j < n; ++j) {
      double ca = 0, cb = 0;
      for (index_t i = 0; i < n; ++i) ca += a[i * n + j], cb += b[i * n + j];
      const double w = (j == 0 || j == n - 1) ? 0.5 : 1.0;
      EXPECT_NEAR(ca, w, 1e-13);
      EXPECT_NEAR(cb, w, 1e-13);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(all, assembly,
                         ::testing::Combine(::testing::Values(method::explicit_euler, method::implicit_euler,
                                                              method::crank_nicolson),
                                            ::testing::Values("dirichlet", "dirichlet:2", "neumann:0.5",
                                                              "insulated"),
                                            ::testing::Values("dirichlet:-1", "insulated", "neumann:-0.25")));

TEST(heat_assembly, StencilAndDiagonalsReproduceTheMatrix) {
  const grid_problem p = problem(12, "neumann:1", "dirichlet:3");
  const auto s = assemble_step<double>(p, method::crank_nicolson, 0.02);
  const tridiagonal_stencil st = stencil_of(s.rhs, s.forcing);
  const auto d = to_dense(s.rhs);
  const index_t n = p.n;
  std::vector<double> x(n);
  for (index_t i = 0; i < n; ++i) x[i] = std::cos(0.3 * i) + 0.1 * i;
  for (index_t i = 0; i < n; ++i) {
    double ref = 0;
    for (index_t j = 0; j < n; ++j) ref += d[i * n + j] * x[j];
    for (const auto& [fi, fv] : s.forcing)
      if (fi == i) ref += fv;
    const int e = i == 0 ? 0 : i == 1 ? 1 : i == n - 2 ? 2 : i == n - 1 ? 3 : -1;
    const double xl = i > 0 ? x[i - 1] : 0, xr = i + 1 < n ? x[i + 1] : 0;
    const double got =
        e < 0 ? st.lower * xl + st.diag * x[i] + st.upper * xr
              : st.edge[e][0] * xl + st.edge[e][1] * x[i] + st.edge[e][2] * xr + st.edge_constant[e];
    EXPECT_NEAR(got, ref, 1e-13) << "row " << i;
  }
  // Thomas solves A x = b.
  const auto t = diagonals_of(s.lhs);
  const auto a = to_dense(s.lhs);
  std::vector<double> b(n);
  for (index_t i = 0; i < n; ++i) {
    b[i] = 0;
    for (index_t j = 0; j < n; ++j) b[i] += a[i * n + j] * x[j];
  }
  thomas_solve(t, b.data());
  EXPECT_LT(max_diff(b, x), 1e-13);
  // Diagonals of other lengths than the main one's were read past their end.
  auto short_lower = t;
  short_lower.lower.pop_back();
  EXPECT_THROW(thomas_solve(short_lower, b.data()), dimension_error);
  auto short_upper = t;
  short_upper.upper.resize(1);
  EXPECT_THROW(thomas_solve(short_upper, b.data()), dimension_error);
}

// The stencils built straight from the problem equal those read off the
// assembled CSR, bit for bit, on tiny and odd grids and every end condition;
// the CSR has the three-diagonal pattern with sorted columns.
TEST(heat_assembly, StencilsFromTheProblemEqualTheAssembledMatrix) {
  for (index_t n : {3, 4, 5, 6, 7, 131})
    for (const char* left : {"dirichlet:2", "dirichlet", "neumann:0.5", "insulated"})
      for (const char* right : {"dirichlet:-1", "neumann:-0.25", "insulated"})
        for (method m : {method::explicit_euler, method::implicit_euler, method::crank_nicolson}) {
          const grid_problem p = problem(n, left, right);
          const double dt = m == method::explicit_euler ? 0.4 * max_stable_dt(p) : 0.02;
          const auto s = assemble_step<double>(p, m, dt);
          const step_stencils st = make_step_stencils(p, m, dt);
          const std::string where = std::to_string(n) + " " + left + " " + right + " " + std::string(name(m));
          for (index_t i = 0; i < n; ++i) {
            EXPECT_GE(s.rhs.row_ptr[i + 1] - s.rhs.row_ptr[i], 1) << where;
            for (index_t k = s.rhs.row_ptr[i]; k + 1 < s.rhs.row_ptr[i + 1]; ++k)
              EXPECT_LT(s.rhs.col_idx[k], s.rhs.col_idx[k + 1]) << where;
          }
          auto same = [&](const tridiagonal_stencil& a, const tridiagonal_stencil& b) {
            EXPECT_EQ(a.n, b.n) << where;
            for (index_t i = 0; i < n; ++i) {
              double al, ad, au, ac, bl, bd, bu, bc;
              stencil_row(a, i, al, ad, au, ac);
              stencil_row(b, i, bl, bd, bu, bc);
              EXPECT_EQ(al, bl) << where << " row " << i;
              EXPECT_EQ(ad, bd) << where << " row " << i;
              EXPECT_EQ(au, bu) << where << " row " << i;
              EXPECT_EQ(ac, bc) << where << " row " << i;
            }
          };
          same(st.rhs, stencil_of(s.rhs, s.forcing));
          if (m != method::explicit_euler) {
            same(st.lhs, stencil_of(s.lhs));
            const auto t1 = diagonals_of(s.lhs);
            const auto t2 = diagonals_of<double>(st.lhs);
            EXPECT_EQ(t1.lower, t2.lower) << where;
            EXPECT_EQ(t1.diag, t2.diag) << where;
            EXPECT_EQ(t1.upper, t2.upper) << where;
          }
        }
}

// ---- accuracy ------------------------------------------------------------------

// Space: Crank-Nicolson with dt so small that the time error (~ T lambda^3
// dt^2 / 12 ~ 1e-9) is far below the space error (~ T lambda (pi dx)^2 / 12
// e^{-lambda T} ~ 1e-4 .. 1e-6).
TEST(heat_accuracy, SecondOrderInSpace) {
  const double T = 0.1;
  std::vector<double> e;
  for (index_t n : {11, 21, 41, 81}) e.push_back(sine_error(n, method::crank_nicolson, T, 2000));
  for (std::size_t k = 1; k < e.size(); ++k) {
    const double order = std::log2(e[k - 1] / e[k]);  // dx halves from one grid to the next
    EXPECT_NEAR(order, 2.0, 0.2) << "errors " << e[k - 1] << " -> " << e[k];
  }
}

// Time: N = 2001 makes the space error ~1e-7, far below the time errors
// (implicit ~ 1.8 dt, CN ~ 3 dt^2 at T = 0.1). The steps are solved directly:
// r = kappa dt / dx^2 reaches 4e4 here, where a relative residual of 1e-12
// is below what any iterative solve can reach in double (~ eps cond(A)).
void expect_order_in_time(method m, double order) {
  const double T = 0.1;
  std::vector<double> e;
  for (long steps : {10, 20, 40, 80}) e.push_back(sine_error(2001, m, T, steps));
  for (std::size_t k = 1; k < e.size(); ++k)
    EXPECT_NEAR(std::log2(e[k - 1] / e[k]), order, 0.2) << e[k - 1] << " -> " << e[k];
}

TEST(heat_accuracy, FirstOrderInTimeImplicit) { expect_order_in_time(method::implicit_euler, 1.0); }

TEST(heat_accuracy, SecondOrderInTimeCrankNicolson) { expect_order_in_time(method::crank_nicolson, 2.0); }

// The discrete sine is an eigenvector of S with eigenvalue -mu, mu = 4 sin^2(pi dx / 2L):
// each scheme multiplies it by a known factor per step, so the computed
// solution must match amplitude * sin exactly (to rounding), and explicit and
// implicit differ by exactly the difference of their factors.
TEST(heat_accuracy, ExplicitAndImplicitMatchTheirDiscreteAmplitudesAndEachOther) {
  const grid_problem p = dirichlet_problem(51, 0.8);
  initial_condition ic;
  ic.mode = 2;
  const double dx = p.dx();
  const double dt = 0.4 * dx * dx / p.kappa;  // r = 0.4: stable explicit step
  const double r = p.kappa * dt / (dx * dx);
  const long steps = 400;
  const double mu = 4 * std::pow(std::sin(ic.mode * pi * dx / (2 * p.length)), 2);
  const auto u0 = initial_profile(ic, p);
  const auto fe = run(p, options(method::explicit_euler, step_solver::direct, dt), u0, steps);
  const auto be = run(p, options(method::implicit_euler, step_solver::direct, dt), u0, steps);
  const auto cn = run(p, options(method::crank_nicolson, step_solver::cg, dt), u0, steps);
  const double g_fe = std::pow(1 - r * mu, steps);
  const double g_be = std::pow(1 / (1 + r * mu), steps);
  const double g_cn = std::pow((1 - r * mu / 2) / (1 + r * mu / 2), steps);
  std::vector<double> a_fe(u0.size()), a_be(u0.size()), a_cn(u0.size());
  for (std::size_t i = 0; i < u0.size(); ++i) {
    a_fe[i] = g_fe * u0[i];
    a_be[i] = g_be * u0[i];
    a_cn[i] = g_cn * u0[i];
  }
  EXPECT_LT(max_diff(fe, a_fe), 1e-13);
  EXPECT_LT(max_diff(be, a_be), 1e-13);
  EXPECT_LT(max_diff(cn, a_cn), 1e-10);  // CG to rel_tol 1e-12 per step
  // Explicit vs implicit on a stable step: they agree to O(dt), by exactly
  // |g_fe - g_be| max|u0| (~ steps (r mu)^2 ~ 1e-3 here).
  const double u0_max = *std::max_element(u0.begin(), u0.end());
  EXPECT_NEAR(max_diff(fe, be), std::abs(g_fe - g_be) * u0_max, 1e-12);
  // And both are close to the continuous solution.
  const auto exact = *exact_solution(p, ic, steps * dt);
  EXPECT_LT(max_diff(fe, exact), 2e-3);
  EXPECT_LT(max_diff(be, exact), 2e-3);
}

// ---- conservation and flux ----------------------------------------------------------

// 1^T W u^{n+1} = 1^T (b - r) = 1^T W u^n - 1^T r: a direct or explicit step
// conserves the trapezoid integral to rounding, an iterative one to
// dx |1^T r| <= dx sqrt(N) rel_tol ||b||_2 per step. Checked both ways: the
// integral to 1e-10 relative (iterative solvers at rel_tol 1e-12), and the
// drift at the default 1e-10 within that bound.
class conservation : public ::testing::TestWithParam<std::tuple<method, step_solver>> {};

TEST_P(conservation, InsulatedEndsConserveTheIntegral) {
  const auto [m, s] = GetParam();
  const grid_problem p = problem(201, "insulated", "neumann");
  initial_condition ic = parse_initial_condition("gauss:0.3:0.05");
  const auto u0 = initial_profile(ic, p);
  const double dt = m == method::explicit_euler ? 0.5 * p.dx() * p.dx() : 1e-3;
  const long steps = 300;
  const bool iterative = m != method::explicit_euler && s != step_solver::direct;
  for (double rtol : {1e-12, 1e-10}) {
    step_options o = options(m, s, dt);
    o.stop.rel_tol = rtol;
    const auto u = run(p, o, u0, steps);
    const double i0 = integral(p, u0), i1 = integral(p, u);
    EXPECT_GT(max_diff(u, u0), 0.1);  // it did diffuse
    if (!iterative || rtol == 1e-12) {
      EXPECT_LE(std::abs(i1 - i0), 1e-10 * std::abs(i0)) << "integral " << i0 << " -> " << i1;
    } else {
      // ||b||_2 <= ||B||_inf ||u||_2 <= (1 + 2 r) ||u0||_2 (the max principle bounds ||u||).
      double u2 = 0;
      for (double v : u0) u2 += v * v;
      const double r = p.kappa * dt / (p.dx() * p.dx());
      const double bound = steps * p.dx() * std::sqrt(double(p.n)) * rtol * (1 + 2 * r) * std::sqrt(u2);
      EXPECT_LE(std::abs(i1 - i0), bound);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(all, conservation,
                         ::testing::Values(std::make_tuple(method::explicit_euler, step_solver::direct),
                                           std::make_tuple(method::implicit_euler, step_solver::direct),
                                           std::make_tuple(method::implicit_euler, step_solver::cg),
                                           std::make_tuple(method::crank_nicolson, step_solver::cg),
                                           std::make_tuple(method::crank_nicolson, step_solver::jacobi),
                                           std::make_tuple(method::crank_nicolson, step_solver::direct)));

// With fluxes G_left, G_right (outward derivative) the integral grows at
// exactly kappa (G_left + G_right) per unit time, discretely too.
TEST(heat_conservation, NeumannFluxChangesTheIntegralAtTheExactRate) {
  const grid_problem p = problem(101, "neumann:0.75", "neumann:-0.25", 0.5);
  const auto u0 = initial_profile(parse_initial_condition("step:0.5"), p);
  for (method m : {method::explicit_euler, method::implicit_euler, method::crank_nicolson}) {
    const double dt = m == method::explicit_euler ? 0.4 * p.dx() * p.dx() / p.kappa : 1e-3;
    const long steps = 200;
    const auto u = run(p, options(m, step_solver::direct, dt), u0, steps);
    const double expected = integral(p, u0) + p.kappa * (0.75 - 0.25) * dt * steps;
    EXPECT_NEAR(integral(p, u), expected, 1e-10 * std::abs(expected)) << name(m);
  }
}

// ---- maximum principle -----------------------------------------------------------

TEST(heat_maximum_principle, StepProfileStaysWithinItsInitialBounds) {
  const grid_problem p = dirichlet_problem(101);
  const auto u0 = initial_profile(parse_initial_condition("step:0.37"), p);
  const double dx = p.dx();
  // Explicit at r = 1/2, implicit at r = 50, CN at r = 1 (CN is monotone for r <= 1).
  const std::vector<std::pair<method, double>> cases = {
      {method::explicit_euler, 0.5}, {method::implicit_euler, 50.0}, {method::crank_nicolson, 1.0}};
  for (const auto& [m, r] : cases) {
    time_stepper<double> ts(p, options(m, step_solver::cg, r * dx * dx / p.kappa), u0);
    for (int k = 0; k < 200; ++k) {
      ASSERT_TRUE(ts.step().converged);
      const auto u = ts.solution();
      const auto [lo, hi] = std::minmax_element(u.begin(), u.end());
      ASSERT_GE(*lo, -1e-12) << name(m) << " step " << k;
      ASSERT_LE(*hi, 1 + 1e-12) << name(m) << " step " << k;
    }
  }
}

// ---- iterative vs direct ----------------------------------------------------------

// A = W - theta r K has eigenvalues >= 1/2 (Gershgorin: every row's diagonal
// exceeds its off-diagonal sum by w_i >= 1/2), so ||x - x*||_2 <= 2 ||b - A x||_2
// <= 2 rel_tol ||b||_2.
TEST(heat_solvers, CgAndJacobiAgreeWithDirectToTheSolverTolerance) {
  const grid_problem p = problem(301, "dirichlet:1", "neumann:0.5");
  const auto u0 = initial_profile(parse_initial_condition("gauss:0.6:0.1"), p);
  for (method m : {method::implicit_euler, method::crank_nicolson}) {
    for (double rtol : {1e-6, 1e-10}) {
      step_options od = options(m, step_solver::direct, 2e-4);
      time_stepper<double> direct(p, od, u0);
      direct.step();
      const auto ref = direct.solution();
      const auto s = assemble_step<double>(p, m, od.dt);
      std::vector<double> b(u0.size());
      spmv(s.rhs, 1.0, u0.data(), 0.0, b.data());
      for (const auto& [i, v] : s.forcing) b[i] += v;
      double bnorm = 0;
      for (double v : b) bnorm += v * v;
      bnorm = std::sqrt(bnorm);
      for (step_solver sv : {step_solver::cg, step_solver::jacobi}) {
        step_options o = options(m, sv, od.dt);
        o.stop.rel_tol = rtol;
        time_stepper<double> it(p, o, u0);
        const step_report rep = it.step();
        ASSERT_TRUE(rep.converged);
        EXPECT_LE(rep.residual, rtol);
        EXPECT_LE(max_diff(it.solution(), ref), 2 * rtol * bnorm + 1e-13) << name(sv) << " rtol " << rtol;
      }
    }
  }
}

// Steps whose change lies under rtol ||b||: the warm start alone met the
// criterion, the solve took no iteration and the steps changed nothing (--dt
// 1e-12 --T 1e-7: the whole change, 9.9e-7, lost). step_stop takes at least
// one iteration, which here is the change to O(r): the direct solve's result.
TEST(heat_solvers, StepsSmallerThanTheSolveToleranceAreTaken) {
  const grid_problem p = dirichlet_problem(101);
  const auto u0 = initial_profile(parse_initial_condition("sin:1"), p);
  step_options od = options(method::crank_nicolson, step_solver::direct, 1e-12);
  const auto ref = run(p, od, u0, 1000);
  ASSERT_GT(max_diff(ref, u0), 9e-9);  // 1000 steps of 1e-12 move u by about pi^2 1e-9
  for (step_solver sv : {step_solver::cg, step_solver::jacobi}) {
    step_options o = options(method::crank_nicolson, sv, od.dt);
    o.stop.rel_tol = 1e-10;  // the default, far above a step's change of about 1e-11
    time_stepper<double> ts(p, o, u0);
    for (int k = 0; k < 1000; ++k) {
      const step_report r = ts.step();
      ASSERT_TRUE(r.converged);
      ASSERT_EQ(r.iterations, 1) << name(sv) << " step " << k;
    }
    EXPECT_LT(max_diff(ts.solution(), ref), 1e-12) << name(sv);  // rounding of 1000 steps; the change is 1e-8
  }
  EXPECT_EQ(step_stop(od).min_iterations, 1);
  EXPECT_EQ(step_stop(od).rel_tol, od.stop.rel_tol);
}

// ---- steady state --------------------------------------------------------------

// Each kind of end against each: Dirichlet pairs, mixed both ways, two Neumann
// ends with zero net flux.
const std::vector<std::pair<const char*, const char*>> steady_ends = {{"dirichlet:1", "dirichlet:3"},
                                                                      {"dirichlet:2", "neumann:0.5"},
                                                                      {"neumann:1", "dirichlet:0"},
                                                                      {"neumann:0.3", "neumann:-0.3"}};

TEST(heat_steady, ReachesTheLinearSteadyState) {
  for (auto [l, r] : steady_ends) {
    const grid_problem p = problem(41, l, r);
    const auto u0 = initial_profile(parse_initial_condition("gauss:0.5:0.1"), p);
    const auto exact = exact_steady_state(p, u0);
    ASSERT_TRUE(exact.has_value()) << l << " " << r;
    time_stepper<double> ts(p, options(method::implicit_euler, step_solver::cg, 0.05), u0);
    double change = 1;
    for (int k = 0; k < 2000 && change >= 1e-13; ++k) change = ts.step(true).change;
    EXPECT_LT(change, 1e-13);
    // Each step is solved to rel_tol 1e-12: error <= 2e-12 ||b|| ~ 3e-11; the
    // steady iteration contracts by 1 / (1 + dt lambda_1) >= 0.89 per step, so
    // the fixed point can sit ~ 10x that off the exact one.
    EXPECT_LT(max_diff(ts.solution(), *exact), 1e-9) << l << " " << r;
  }
  grid_problem p;
  p.left = parse_boundary("neumann:1");
  p.right = parse_boundary("neumann:1");
  EXPECT_FALSE(steady_state_obstacle(p).empty());
  EXPECT_FALSE(exact_steady_state(p, std::vector<double>(p.n, 0.0)).has_value());
}

// steady_contraction is the factor the slowest mode of the steps shrinks by: the
// changes of steps from a profile with every mode in it fall by it at the end,
// for each kind of end and each scheme (Crank-Nicolson at r = 80 is held back by
// its fast modes, g(4) = -159 / 161; the others by mu_1).
TEST(heat_steady, ContractionIsTheChangesOwnRatio) {
  for (auto [l, r] : steady_ends) {
    const grid_problem p = problem(41, l, r);
    const auto u0 = initial_profile(parse_initial_condition("step:0.37"), p);
    for (auto [m, dt] : std::vector<std::pair<method, double>>{{method::explicit_euler, 0.45 / 1600},
                                                               {method::implicit_euler, 0.05},
                                                               {method::crank_nicolson, 0.05}}) {
      time_stepper<double> ts(
          p, options(m, m == method::explicit_euler ? step_solver::direct : step_solver::cg, dt), u0);
      const double rho = steady_contraction(p, m, dt);
      double before = ts.step(true).change, ratio = 0;
      // To well above the solves' noise (rel_tol 1e-12), where one mode is left.
      for (int k = 0; k < 20000 && before > 1e-7; ++k) {
        const double change = ts.step(true).change;
        ratio = change / before;
        before = change;
      }
      // Not above rho (but for the solves' noise); Crank-Nicolson's fastest modes lie close together
      // (|g| 0.98757, 0.98754, ...), so their mix falls short by 3% of 1 - rho.
      const double slack = (m == method::crank_nicolson ? 5e-2 : 2e-3) * (1 - rho);
      EXPECT_LE(ratio, rho + 2e-3 * (1 - rho)) << l << " " << r << " " << name(m);
      EXPECT_GE(ratio, rho - slack) << l << " " << r << " " << name(m);
    }
  }
  // No decay without kappa dt, and none past FTCS's limit.
  EXPECT_EQ(steady_contraction(problem(41, "dirichlet", "dirichlet", 0.0), method::implicit_euler, 0.1),
            INFINITY);
  EXPECT_GT(steady_contraction(problem(41, "dirichlet", "dirichlet"), method::explicit_euler, 0.6 / 1600), 1);
  EXPECT_EQ(steady_distance(1e-9, 1.0), INFINITY);
  EXPECT_NEAR(steady_distance(1e-9, 0.99), 99e-9, 1e-20);
}

// The change of a stalled step is 0 however far off it is: what the steps can
// reach is refused up front where it lies above the tolerance, and the default
// solve tolerance is tightened in double until it does not.
TEST(heat_steady, FloorAndTightenedSolveTolerance) {
  const grid_problem p = problem(101, "dirichlet:1", "dirichlet:1");
  step_options o = options(method::implicit_euler, step_solver::cg, 1e-3);
  const double rho = steady_contraction(p, o.scheme, o.dt);
  const double k = rho / (1 - rho);
  const double u_double = std::numeric_limits<double>::epsilon() / 2,
               u_float = std::numeric_limits<float>::epsilon() / 2;
  o.stop.rel_tol = 1e-10;
  EXPECT_NEAR(steady_floor(p, o, u_double, 1), (1e-10 * std::sqrt(101.0) + 2 * u_double) * k, 1e-12 * k);
  const double tight = steady_rel_tol(p, o, 1e-10, 1e-8, u_double, 1);
  EXPECT_LT(tight, 1e-10);
  o.stop.rel_tol = tight;
  EXPECT_LE(steady_floor(p, o, u_double, 1), 1.01e-9);
  // A tolerance nothing in double reaches keeps what the solves reach: at r =
  // 10 (implicit) 2 u (1 + 4 r) = 82 u; at small r, 64 u.
  const double r = p.kappa * o.dt / (p.dx() * p.dx());
  EXPECT_NEAR(steady_rel_tol(p, o, 1e-10, 1e-20, u_double, 1), 2 * u_double * (1 + 4 * r), 1e-30);
  step_options small = o;
  small.dt = 1e-5;
  EXPECT_EQ(steady_rel_tol(p, small, 1e-10, 1e-20, u_double, 1), 64 * u_double);
  // N = 1001, Crank-Nicolson at r = 1000: CG stalled near 3.9e-14, so the
  // planned tolerance stays above that (it was 3.2e-14, and step 2 failed),
  // and the steady floor it implies refuses --steady-tol 1e-8 up front.
  const grid_problem wide = problem(1001, "dirichlet:1", "dirichlet:1");
  step_options cn = options(method::crank_nicolson, step_solver::cg, 1e-3);
  cn.stop.rel_tol = steady_rel_tol(wide, cn, 1e-10, 1e-8, u_double, 1);
  EXPECT_GE(cn.stop.rel_tol, 1e-13);
  EXPECT_GT(steady_floor(wide, cn, u_double, 1), 1e-8);
  // Float's default at r = 10: the floor is far above 1e-8.
  o.stop.rel_tol = 2.05e-5;
  EXPECT_GT(steady_floor(p, o, u_float, 1), 1e-4);
  // Zero Dirichlet ends: the steady state is 0, the relative residuals shrink with u.
  EXPECT_EQ(steady_floor(problem(101, "dirichlet:0", "dirichlet:0"), o, u_float, 1), 0);
  // Two Neumann ends: the level is u0's mean, bounded by u0_bound; G L is added.
  const grid_problem nn = problem(101, "neumann:0.5", "neumann:-0.5");
  EXPECT_NEAR(steady_floor(nn, o, u_float, 3) / steady_floor(nn, o, u_float, 1), (3 + 1.0) / (1 + 1.0),
              1e-12);
  // Steps whose change rounds away before the steady state (1 - rho <= 2 u rho):
  // no floor reached from afar, whatever the ends.
  const grid_problem slow = problem(101, "dirichlet:0", "dirichlet:0", 1e-8);
  ASSERT_LT(1 - steady_contraction(slow, o.scheme, o.dt), 2 * u_float);
  EXPECT_EQ(steady_floor(slow, o, u_float, 1), INFINITY);
  EXPECT_LT(steady_floor(slow, o, u_double, 1), INFINITY);
  // Explicit and direct steps carry rounding only.
  step_options e = options(method::explicit_euler, step_solver::direct, 0.45e-4);
  e.stop.rel_tol = 1;
  EXPECT_NEAR(steady_floor(p, e, u_double, 1),
              steady_distance(2 * u_double, steady_contraction(p, e.scheme, e.dt)), 1e-20);
  EXPECT_EQ(steady_rel_tol(p, e, 1e-10, 1e-8, u_double, 1), 1e-10);
}

// ---- float -------------------------------------------------------------------

TEST(heat_float, CrankNicolsonInFloatTracksTheExactSolution) {
  const grid_problem p = dirichlet_problem(101);
  initial_condition ic;
  step_options o = options(method::crank_nicolson, step_solver::cg, 1e-3);
  o.stop.rel_tol = default_rel_tol<float>();
  time_stepper<float> ts(p, o, initial_profile(ic, p));
  for (int k = 0; k < 100; ++k) ASSERT_TRUE(ts.step().converged);
  // Double gives ~3e-5 here (space + time error); float adds rounding ~1e-5 relative.
  EXPECT_LT(max_diff(ts.solution(), *exact_solution(p, ic, 0.1)), 1e-4);
}

// ---- failures and input errors ----------------------------------------------------------

TEST(heat_errors, NonConvergenceLeavesTheStateAtTheLastGoodStep) {
  const grid_problem p = dirichlet_problem(101);
  const auto u0 = initial_profile(initial_condition{}, p);
  step_options o = options(method::implicit_euler, step_solver::jacobi, 0.1);  // r = 1000: Jacobi is slow
  o.stop.max_iterations = 3;
  time_stepper<double> ts(p, o, u0);
  const step_report rep = ts.step();
  EXPECT_FALSE(rep.converged);
  EXPECT_EQ(rep.status, solve_status::max_iterations);
  EXPECT_EQ(rep.iterations, 3);
  EXPECT_GT(rep.residual, o.stop.rel_tol);
  EXPECT_EQ(ts.steps(), 0);
  EXPECT_EQ(ts.solution(), u0);
}

// Forced explicit steps at r = 10 amplify the highest mode by |1 - 4 r| = 39
// a step: the state overflows to inf and then NaN, and the summaries that
// heat1d reduces anyway (the integral, the max error) say so.
TEST(heat_errors, ABlownUpStateShowsInItsIntegral) {
  const grid_problem p = dirichlet_problem(101);
  step_options o = options(method::explicit_euler, step_solver::direct, 10 * p.dx() * p.dx());
  o.force = true;
  const initial_condition ic;
  time_stepper<double> d(p, o, ic);
  time_stepper<float> f(p, o, ic);
  EXPECT_TRUE(std::isfinite(d.integral()));
  d.advance(1000);
  f.advance(1000);
  EXPECT_FALSE(std::isfinite(d.integral()));
  EXPECT_FALSE(std::isfinite(f.integral()));
  EXPECT_FALSE(std::isfinite(d.max_error(*exact_form(p, ic, d.time()))));
}

// The stepper from the initial condition starts from initial_profile; its
// integral is the trapezoid sum, its max error the host's max |u - exact|.
// x_i = i L / (N - 1) as the help writes it, rounded once (i * dx put
// 0.30000000000000004 for x_3 at N = 11, and step:0.3 then gave 0 there, not
// its documented 1/2).
TEST(heat_grid, PointsAreILOverNMinusOne) {
  const grid_problem p = problem(11, "dirichlet:0", "dirichlet:0");
  for (index_t i = 0; i < p.n; ++i) EXPECT_EQ(p.x(i), double(i) / 10.0) << i;
  grid_problem longer = p;
  longer.length = 2.5;
  EXPECT_EQ(longer.x(10), 2.5);
  EXPECT_EQ(longer.x(7), 2.5 * 7 / 10);
  const std::vector<double> u =
      initial_profile(parse_initial_condition("step:0.3"), problem(11, "neumann", "neumann"));
  EXPECT_EQ(u[3], 0.5);
  EXPECT_EQ(u[2], 1.0);
  EXPECT_EQ(u[4], 0.0);
}

TEST(heat_summaries, IntegralAndErrorOfTheState) {
  const char* ends[][2] = {
      {"dirichlet:1", "neumann:0.5"}, {"insulated", "insulated"}, {"dirichlet", "dirichlet"}};
  for (const auto& e : ends)
    for (const char* spec : {"sin:2", "gauss:0.4:0.1", "step:0.5"}) {
      const grid_problem p = problem(300001, e[0], e[1]);  // past one chunk of the parallel reduction
      const initial_condition ic = parse_initial_condition(spec);
      const auto u0 = initial_profile(ic, p);
      const step_options o = options(method::crank_nicolson, step_solver::direct, 1e-4);
      time_stepper<double> ts(p, o, ic);
      EXPECT_EQ(ts.solution(), u0) << spec;
      const auto q = quadrature_weights(p);
      const double i0 = std::inner_product(q.begin(), q.end(), u0.begin(), 0.0);
      // The serial sum's own rounding bound, (N - 1) eps sum q |u0| (a step's
      // equal terms make it systematic; sin:2 integrates to 0).
      double mass = 0;
      for (std::size_t i = 0; i < q.size(); ++i) mass += q[i] * std::abs(u0[i]);
      EXPECT_NEAR(ts.integral(), i0, double(p.n) * 1.2e-16 * mass) << spec << " " << e[0];
      ts.advance(3);
      const auto u = ts.solution();
      closed_form f;
      f.amplitude = 0.7, f.wave = 2, f.level = 0.1, f.slope = -0.3, f.pin_left = true, f.left = 1;
      EXPECT_EQ(ts.max_error(f), max_diff(u, evaluate(f, p))) << spec;
      if (const auto ef = exact_form(p, ic, ts.time())) {
        EXPECT_EQ(ts.max_error(*ef), max_diff(u, *exact_solution(p, ic, ts.time())));
      }
    }
}

// The closed forms evaluate to the exact solutions they stand for.
TEST(heat_summaries, ClosedFormsAreTheExactSolutions) {
  const grid_problem p = dirichlet_problem(101, 0.5);
  const initial_condition ic = parse_initial_condition("sin:3");
  const auto f = exact_form(p, ic, 0.01);
  ASSERT_TRUE(f);
  const auto u = evaluate(*f, p);
  EXPECT_EQ(u.front(), 0.0);
  EXPECT_EQ(u.back(), 0.0);
  for (index_t i = 1; i + 1 < p.n; ++i)
    EXPECT_DOUBLE_EQ(u[i], std::exp(-0.5 * 9 * pi * pi * 0.01) * std::sin(3 * pi * p.x(i)));
  EXPECT_FALSE(exact_form(problem(11, "insulated", "dirichlet"), ic, 0.1));
  EXPECT_FALSE(exact_form(p, parse_initial_condition("step:0.5"), 0.1));
  // Two insulated ends: the level is the mean of u0, from its integral.
  const grid_problem q = problem(11, "insulated", "insulated");
  const auto s = steady_form(q, 0.25);
  ASSERT_TRUE(s);
  for (double v : evaluate(*s, q)) EXPECT_DOUBLE_EQ(v, 0.25);
  const auto d = evaluate(*steady_form(problem(11, "dirichlet:1", "dirichlet:3"), 0), q);
  EXPECT_EQ(d.front(), 1.0);
  EXPECT_EQ(d.back(), 3.0);
  EXPECT_DOUBLE_EQ(d[5], 2.0);
}

TEST(heat_errors, ExplicitRefusesUnstableStepsUnlessForced) {
  const grid_problem p = dirichlet_problem(11);  // dx = 0.1: largest stable dt = 0.005
  const auto u0 = initial_profile(initial_condition{}, p);
  try {
    time_stepper<double> ts(p, options(method::explicit_euler, step_solver::direct, 0.006), u0);
    FAIL() << "accepted r = 0.6";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("0.005"), std::string::npos) << e.what();
  }
  step_options o = options(method::explicit_euler, step_solver::direct, 0.006);
  o.force = true;
  EXPECT_NO_THROW(time_stepper<double>(p, o, u0));
  EXPECT_NO_THROW(time_stepper<double>(p, options(method::explicit_euler, step_solver::direct, 0.005), u0));
  EXPECT_DOUBLE_EQ(max_stable_dt(p), 0.005);
}

// Scales past double's range, step counts past a long and grids past the
// host's memory are refused before any step: they gave NaN steps, a
// "negative --dt" (the step count overflowed) and a 24 GB host filled.
TEST(heat_errors, OutOfRangeScalesStepCountsAndMemoryAreRefusedFirst) {
  grid_problem p;
  p.length = 1e308;  // dx^2 overflows
  EXPECT_THROW(p.validate(), invalid_argument);
  p.length = 1e-308;  // dx^2 is 0
  EXPECT_THROW(p.validate(), invalid_argument);
  p.length = 1e-140;  // r = 1e281 at dt 1e-3
  const auto u0 = initial_profile(initial_condition{}, p);
  EXPECT_THROW(time_stepper<double>(p, options(method::crank_nicolson, step_solver::cg, 1e-3), u0),
               invalid_argument);
  p = grid_problem{};
  p.kappa = 1e300;  // the automatic explicit dt, 4.5e-305, takes 2e303 steps to T
  run_options r;
  EXPECT_THROW(plan_time(p, method::explicit_euler, r), invalid_argument);
  p.kappa = 1;
  EXPECT_GT(plan_time(p, method::explicit_euler, r).steps, 0);
  p.n = 1000000;
  ::setenv("PERRON_MEMORY_LIMIT", "1e6", 1);  // 1 MB: one vector of u alone is 8 MB
  try {
    time_stepper<double>(p, options(method::crank_nicolson, step_solver::cg, 1e-3), initial_condition{});
    ADD_FAILURE() << "N = 10^6 accepted under PERRON_MEMORY_LIMIT=1e6";
  } catch (const dimension_error& e) {
    EXPECT_NE(std::string(e.what()).find("--N 1000000"), std::string::npos) << e.what();
  }
  ::unsetenv("PERRON_MEMORY_LIMIT");
}

// Finite values whose arithmetic is not: --left dirichlet:1e308 --right
// dirichlet:-1e308 ended in 'cg did not converge: relative residual -nan
// (diverged)'. Refused up front, saying so; values whose steps stay finite
// still run (the direct solve at 1e153, where cg's squares overflow).
TEST(heat_errors, ValuesWhoseStepsOverflowAreRefusedSayingSo) {
  const auto message = [](auto&& make) {
    try {
      make();
    } catch (const invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  grid_problem p;
  p.left = parse_boundary("dirichlet:1e308");
  p.right = parse_boundary("dirichlet:-1e308");
  for (step_solver s : {step_solver::cg, step_solver::jacobi, step_solver::direct}) {
    const std::string m = message(
        [&] { time_stepper<double>(p, options(method::crank_nicolson, s, 1e-3), initial_condition{}); });
    EXPECT_NE(m.find("the values overflow double: |u| reaches 1e+308"), std::string::npos) << m;
  }
  p.left.value = 1e153;
  p.right.value = 0;
  EXPECT_NE(message([&] {
              time_stepper<double>(p, options(method::crank_nicolson, step_solver::cg, 1e-3),
                                   initial_condition{});
            }).find("where the sums of their squares overflow"),
            std::string::npos);
  time_stepper<double> direct(p, options(method::crank_nicolson, step_solver::direct, 1e-3),
                              initial_condition{});
  EXPECT_TRUE(direct.advance(10).converged);
  EXPECT_TRUE(std::isfinite(direct.integral()));
  p.left.value = 1e39;  // past float's range, in the profile itself
  EXPECT_NE(message([&] {
              time_stepper<float>(p, options(method::explicit_euler, step_solver::cg, 1e-5),
                                  initial_condition{});
            }).find("the values overflow float"),
            std::string::npos);
  std::vector<double> u0 = initial_profile(initial_condition{}, grid_problem{});
  u0[50] = 1e300;  // the initial profile counts too
  EXPECT_NE(message([&] {
              time_stepper<double>(grid_problem{}, options(method::implicit_euler, step_solver::cg, 1e-3),
                                   u0);
            }).find("|u| reaches 1e+300"),
            std::string::npos);
  // A Neumann flux is forcing, not data: the message names it (it blamed
  // "Dirichlet values, the initial profile" at |u| = 1).
  grid_problem flux;
  flux.right = parse_boundary("neumann:-1e300");
  const std::string m = message([&] {
    time_stepper<double>(flux, options(method::crank_nicolson, step_solver::cg, 1e-3), initial_condition{});
  });
  EXPECT_NE(m.find("boundary forcing (neumann:-1e+300 at x = L; cn"), std::string::npos) << m;
}

TEST(heat_errors, BadProblemsAndOptionsAreRefused) {
  grid_problem p;
  p.n = 2;
  EXPECT_THROW(p.validate(), invalid_argument);
  p = grid_problem{};
  p.kappa = -1;
  EXPECT_THROW(p.validate(), invalid_argument);
  p.kappa = std::nan("");
  EXPECT_THROW(p.validate(), invalid_argument);
  p = grid_problem{};
  p.length = 0;
  EXPECT_THROW(p.validate(), invalid_argument);
  p.length = INFINITY;
  EXPECT_THROW(p.validate(), invalid_argument);
  p = grid_problem{};
  const auto u0 = initial_profile(initial_condition{}, p);
  for (double dt : {0.0, -1e-3, std::nan("")})
    EXPECT_THROW(time_stepper<double>(p, options(method::crank_nicolson, step_solver::cg, dt), u0),
                 invalid_argument);
  EXPECT_THROW(
      time_stepper<double>(p, options(method::crank_nicolson, step_solver::cg, 1e-3), std::vector<double>(5)),
      dimension_error);
  step_options o = options(method::crank_nicolson, step_solver::cg, 1e-3);
  o.kernel = spmv_kernel::csr_vector;  // a GPU kernel on the CPU path
  EXPECT_THROW(time_stepper<double>(p, o, u0), invalid_argument);
  o = options(method::crank_nicolson, step_solver::jacobi, 1e-3);
  o.omega = 2.5;
  EXPECT_THROW(time_stepper<double>(p, o, u0), invalid_argument);
  // An initial condition filled by hand is checked as the parser checks it
  // (a NaN profile, or a sine of all zeros, ran without a word).
  const step_options ok = options(method::crank_nicolson, step_solver::cg, 1e-3);
  for (const auto& bad :
       {std::pair<double, double>{0.5, 0.0}, {0.5, -0.1}, {0.5, std::nan("")}, {NAN, 0.1}}) {
    initial_condition g;
    g.type = initial_condition::kind::gauss;
    g.x0 = bad.first;
    g.width = bad.second;
    EXPECT_THROW(time_stepper<double>(p, ok, g), invalid_argument) << bad.first << " " << bad.second;
    EXPECT_THROW(initial_profile(g, p), invalid_argument);
  }
  for (int mode : {0, -3}) {
    initial_condition s;
    s.mode = mode;
    EXPECT_THROW(time_stepper<double>(p, ok, s), invalid_argument) << mode;
  }
  time_stepper<double> ts(p, ok, initial_condition{});
  EXPECT_THROW(ts.advance(-5), invalid_argument);
  run_options r;
  r.steps = -3;
  EXPECT_THROW(plan_time(p, method::crank_nicolson, r), invalid_argument);
  p.n = 0;
  EXPECT_THROW(assemble_step<double>(p, method::implicit_euler, 0.01), invalid_argument);
}

// Each option is checked once, by its struct, and the message names the
// command-line option.
TEST(heat_options, ValidateNamesTheOption) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const grid_problem p;
  grid_problem bad_n;
  bad_n.n = 2;
  EXPECT_NE(message([&] { bad_n.validate(); }).find("--N must be at least 3"), std::string::npos);
  step_options o;
  o.stop.max_iterations = 0;
  EXPECT_NE(message([&] { o.validate(p); }).find("--max-iter must be >= 1"), std::string::npos);
  o = step_options{};
  o.stop.rel_tol = 1;  // met by u = 0: jacobi steps grew a decaying profile to 1e30
  for (step_solver sv : {step_solver::cg, step_solver::jacobi}) {
    o.solver = sv;
    EXPECT_NE(message([&] { o.validate(p); }).find("--rtol must be below 1 (got 1)"), std::string::npos);
  }
  o.solver = step_solver::direct;  // reads no tolerance
  EXPECT_EQ(message([&] { o.validate(p); }), "(accepted)");
  o = step_options{};
  o.omega = 2;
  EXPECT_NE(message([&] { o.validate(p); }).find("--omega"), std::string::npos);
  run_options r;
  r.dt = 0.01;
  r.steps = 5;
  EXPECT_NE(message([&] { r.validate(p); }).find("not both"), std::string::npos);
  r = run_options{};
  r.steps = 0;
  EXPECT_NE(message([&] { r.validate(p); }).find("--steps must be >= 1"), std::string::npos);
  r = run_options{};
  r.steady = true;
  grid_problem flux = p;
  flux.left = flux.right = parse_boundary("neumann:1");
  EXPECT_NE(message([&] { r.validate(flux); }).find("--steady: no steady state"), std::string::npos);
  EXPECT_EQ(message([&] { run_options{}.validate(p); }), "(accepted)");
  EXPECT_EQ(message([&] { step_options{}.validate(p); }), "(accepted)");
}

TEST(heat_options, TimePlanEndsExactlyAtT) {
  const grid_problem p;  // N = 101: dx = 0.01, largest stable dt 5e-5
  run_options r;         // T = 0.1
  time_plan t = plan_time(p, method::crank_nicolson, r);
  EXPECT_EQ(t.steps, 100);
  EXPECT_DOUBLE_EQ(t.dt, 1e-3);
  t = plan_time(p, method::explicit_euler, r);  // 0.9 of the stable step, rounded to reach T
  EXPECT_EQ(t.steps, static_cast<long>(std::ceil(0.1 / (0.9 * 5e-5) * (1 - 1e-12))));
  EXPECT_DOUBLE_EQ(t.dt * double(t.steps), 0.1);
  r.dt = 0.03;  // 4 steps of 0.025
  t = plan_time(p, method::implicit_euler, r);
  EXPECT_EQ(t.steps, 4);
  EXPECT_DOUBLE_EQ(t.dt, 0.025);
  r.dt.reset();
  r.steps = 7;
  EXPECT_DOUBLE_EQ(plan_time(p, method::implicit_euler, r).dt, 0.1 / 7);
}

TEST(heat_options, DefaultToleranceFollowsThePrecision) {
  const grid_problem p;
  step_options o;  // CN, CG, dt = 1e-3: r = 10
  EXPECT_EQ(default_step_rel_tol(p, o, false), 1e-10);
  EXPECT_DOUBLE_EQ(default_step_rel_tol(p, o, true), 5e-7 * (1 + 4 * 0.5 * 10));  // above 1e-5
  o.dt = 1.0;  // r = 1e4: the float floor passes 1e-3
  EXPECT_THROW(default_step_rel_tol(p, o, true), invalid_argument);
  o.solver = step_solver::direct;  // no iterative solve to refuse
  EXPECT_NO_THROW(default_step_rel_tol(p, o, true));
}

TEST(heat_parse, BoundaryConditions) {
  EXPECT_EQ(parse_boundary("dirichlet").kind, boundary_kind::dirichlet);
  EXPECT_EQ(parse_boundary("dirichlet:2.5").value, 2.5);
  EXPECT_EQ(parse_boundary("neumann").kind, boundary_kind::neumann);
  EXPECT_EQ(parse_boundary("neumann:-1e-2").value, -1e-2);
  EXPECT_EQ(parse_boundary("insulated").kind, boundary_kind::neumann);
  EXPECT_EQ(parse_boundary("insulated").value, 0.0);
  for (const char* bad : {"", "robin", "dirichlet:", "dirichlet:x", "neumann:1:2", "dirichlet:nan",
                          "insulated:1", "dirichlet:0x1p3", "neumann: 1", "dirichlet:1e999"})
    EXPECT_THROW(parse_boundary(bad), invalid_argument) << bad;
}

TEST(heat_parse, InitialConditions) {
  EXPECT_EQ(parse_initial_condition("sin:3").mode, 3);
  EXPECT_EQ(parse_initial_condition("sin").mode, 1);
  const auto g = parse_initial_condition("gauss:0.25:0.05");
  EXPECT_EQ(g.type, initial_condition::kind::gauss);
  EXPECT_EQ(g.x0, 0.25);
  EXPECT_EQ(g.width, 0.05);
  EXPECT_EQ(parse_initial_condition("step:0.5").x0, 0.5);
  EXPECT_EQ(parse_initial_condition("file:/tmp/a:b.txt").path, "/tmp/a:b.txt");
  for (const char* bad : {"", "cos:1", "sin:0", "sin:1.5", "sin:-2", "gauss:0.5", "gauss:0.5:0", "gauss:a:b",
                          "step", "step:", "file:", "file", "step:0x1p-1", "gauss:0.5:inf"})
    EXPECT_THROW(parse_initial_condition(bad), invalid_argument) << bad;
  EXPECT_THROW(parse_method("rk4"), invalid_argument);
  EXPECT_THROW(parse_step_solver("gmres"), invalid_argument);
  EXPECT_THROW(parse_operator_form("dense"), invalid_argument);
}

TEST(heat_parse, InitialProfilesImposeDirichletValuesAndShapes) {
  const grid_problem p = problem(5, "dirichlet:7", "insulated");
  const auto s = initial_profile(parse_initial_condition("step:0.5"), p);
  EXPECT_EQ(s, (std::vector<double>{7, 1, 0.5, 0, 0}));
  const auto g = initial_profile(parse_initial_condition("gauss:1:0.25"), p);
  EXPECT_DOUBLE_EQ(g[4], 1.0);
  EXPECT_NEAR(g[3], std::exp(-0.5), 1e-15);
}

TEST(heat_parse, FileProfilesAreTheGivenValuesOnePerPoint) {
  const grid_problem p = problem(4, "dirichlet:9", "insulated");
  initial_condition ic = parse_initial_condition("file:u0.txt");
  EXPECT_EQ(describe(ic), "file:u0.txt");
  ic.values = {1, 2, 3.5, -0.4};  // as io::read_profile reads them; the solver opens no file
  EXPECT_EQ(initial_profile(ic, p), (std::vector<double>{9, 2, 3.5, -0.4}));
  ic.values = {1, 2, 3};
  try {
    initial_profile(ic, p);
    FAIL() << "accepted 3 values for N = 4";
  } catch (const dimension_error& e) {
    EXPECT_NE(std::string(e.what()).find("u0.txt: 3 values"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace perron::heat
