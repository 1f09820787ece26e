// The heat solver on the GPU against the CPU path: every method, solver,
// operator form and GPU SpMV kernel, float and double; conservation; host
// syncs per step; non-convergence; the benchmark mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "bench/heat1d_bench.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/spmv.hpp"
#include "solvers/heat1d.hpp"
#include "tests/support/support.hpp"

namespace perron::heat {
namespace {

struct gpu_case {
  method scheme;
  step_solver solver;
  operator_form form;
  spmv_kernel kernel;
  bool is_float;
};

std::string case_name(const gpu_case& c) {
  std::string s = std::string(name(c.scheme)) + "_" + std::string(name(c.solver)) + "_" +
                  (c.form == operator_form::stencil ? std::string("stencil") : std::string(name(c.kernel))) +
                  (c.is_float ? "_float" : "_double");
  for (char& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

std::vector<gpu_case> all_cases() {
  std::vector<gpu_case> v;
  for (bool f : {false, true}) {
    for (spmv_kernel k : spmv_kernels()) {
      if (!on_gpu(k)) continue;
      v.push_back({method::explicit_euler, step_solver::direct, operator_form::csr, k, f});
      v.push_back({method::crank_nicolson, step_solver::cg, operator_form::csr, k, f});
    }
    v.push_back(
        {method::explicit_euler, step_solver::direct, operator_form::stencil, spmv_kernel::automatic, f});
    for (method m : {method::implicit_euler, method::crank_nicolson})
      for (step_solver s : {step_solver::cg, step_solver::jacobi, step_solver::direct})
        for (operator_form form : {operator_form::csr, operator_form::stencil})
          if (!(m == method::crank_nicolson && s == step_solver::cg &&
                form == operator_form::csr))  // listed above
            v.push_back({m, s, form, spmv_kernel::automatic, f});
  }
  return v;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}
// A grid of n points with the given boundary conditions.
grid_problem problem(index_t n, const std::string& left, const std::string& right, double kappa = 1.0) {
  return grid_problem{n, 1.0, kappa, parse_boundary(left), parse_boundary(right)};
}

// GPU steps solved to a relative residual of 1e-12.
step_options on_gpu(method m, step_solver s, double dt) {
  step_options o;
  o.scheme = m, o.solver = s, o.dt = dt, o.where = device::cuda;
  o.stop.rel_tol = 1e-12;
  return o;
}

double norm2(const std::vector<double>& a) {
  return std::sqrt(std::inner_product(a.begin(), a.end(), a.begin(), 0.0));
}

class gpu_heat : public test::gpu_test_with_param<gpu_case> {};

TEST_P(gpu_heat, AgreesWithTheCpuPath) {
  const gpu_case c = GetParam();
  const grid_problem p = problem(1001, "dirichlet:1", "neumann:0.5", 0.5);
  const auto u0 = initial_profile(parse_initial_condition("gauss:0.6:0.1"), p);
  step_options o;
  o.scheme = c.scheme;
  o.solver = c.solver;
  o.dt = c.scheme == method::explicit_euler ? 0.45 * p.dx() * p.dx() / p.kappa : 2e-4;  // r = 0.45 / 100
  // Float: r = 100 here, and the GPU SpMV kernels sum rows in float, so
  // b - A x cannot be formed better than ~eps_float (1 + 2 r) ||x|| ~ 1.2e-5 ||b||.
  o.stop.rel_tol = c.is_float ? 1e-4 : 1e-12;
  o.stop.max_iterations = 20000;
  const long steps = 40;
  auto run = [&](auto tag, device where) {
    using T = decltype(tag);
    step_options oo = o;
    oo.where = where;
    oo.kernel = where == device::cpu ? spmv_kernel::cpu : c.kernel;
    oo.form = where == device::cpu ? operator_form::csr : c.form;
    time_stepper<T> ts(p, oo, u0);
    int syncs = 0;
    for (long k = 0; k < steps; ++k) {
      const step_report r = ts.step();
      EXPECT_TRUE(r.converged) << "step " << k << " residual " << r.residual;
      if (where == device::cuda && c.solver != step_solver::direct && c.scheme != method::explicit_euler) {
        EXPECT_LE(r.residual, oo.stop.rel_tol);
      }
      syncs += r.host_syncs;
    }
    if (where == device::cuda && c.scheme != method::explicit_euler && c.solver != step_solver::direct) {
      // Warm-started steps: the predicted look is usually the only one.
      EXPECT_LE(double(syncs) / steps, 3.0);
    }
    return ts.solution();
  };
  std::vector<double> gpu, cpu;
  if (c.is_float) {
    gpu = run(float{}, device::cuda);
    cpu = run(float{}, device::cpu);
  } else {
    gpu = run(double{}, device::cuda);
    cpu = run(double{}, device::cpu);
  }
  // Explicit and direct: the same arithmetic up to summation order (a few ulps
  // of the row sums, ||B|| <= 1 + 2r, per step). Iterative: each side within
  // 2 rtol ||b|| of the exact step (eigenvalues of A >= 1/2), for the ||b|| of
  // every step (bounded here by 1.5x the largest of the first and last).
  const double eps = c.is_float ? 6e-8 : 1.1e-16;
  const double r = p.kappa * o.dt / (p.dx() * p.dx());
  // Rounding per step is relative to the largest |u| (a max-norm scale: the
  // 2-norm would be ~sqrt(N) times looser and hide real differences).
  const double scale = max_abs(u0) + max_abs(cpu);
  double bound = steps * 50 * eps * (1 + 2 * r) * scale;
  if (c.scheme != method::explicit_euler && c.solver != step_solver::direct) {
    const auto mats = assemble_step<double>(p, c.scheme, o.dt);
    auto rhs_norm = [&](const std::vector<double>& u) {
      std::vector<double> b(u.size());
      spmv(mats.rhs, 1.0, u.data(), 0.0, b.data());
      for (const auto& [i, v] : mats.forcing) b[i] += v;
      return norm2(b);
    };
    const double bmax = 1.5 * std::max(rhs_norm(u0), rhs_norm(cpu));
    bound += steps * 2 * 2 * o.stop.rel_tol * bmax;
  }
  EXPECT_LE(max_diff(gpu, cpu), bound) << case_name(c);
  EXPECT_GT(max_diff(gpu, u0), 1e-3);  // something happened
}

INSTANTIATE_TEST_SUITE_P(all, gpu_heat, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) { return case_name(info.param); });

class gpu_heat_misc : public test::gpu_test {};

TEST_F(gpu_heat_misc, InsulatedEndsConserveTheIntegralOnTheGpu) {
  const grid_problem p = problem(4001, "insulated", "insulated");
  const auto u0 = initial_profile(parse_initial_condition("step:0.3"), p);
  const auto q = quadrature_weights(p);
  const double i0 = std::inner_product(q.begin(), q.end(), u0.begin(), 0.0);
  for (operator_form form : {operator_form::csr, operator_form::stencil}) {
    for (auto [m, s] :
         std::vector<std::pair<method, step_solver>>{{method::explicit_euler, step_solver::direct},
                                                     {method::crank_nicolson, step_solver::cg},
                                                     {method::implicit_euler, step_solver::direct}}) {
      step_options o = on_gpu(m, s, m == method::explicit_euler ? 0.5 * p.dx() * p.dx() : 1e-4);
      o.form = form;
      time_stepper<double> ts(p, o, u0);
      for (int k = 0; k < 200; ++k) ASSERT_TRUE(ts.step().converged);
      const auto u = ts.solution();
      const double i1 = std::inner_product(q.begin(), q.end(), u.begin(), 0.0);
      EXPECT_LE(std::abs(i1 - i0), 1e-10 * i0) << name(m) << " " << name(form);
    }
  }
}

TEST_F(gpu_heat_misc, SteadyStateAndMeasuredChange) {
  const grid_problem p = problem(201, "dirichlet:2", "neumann:-1");
  const auto u0 = initial_profile(parse_initial_condition("sin:3"), p);
  const step_options o = on_gpu(method::implicit_euler, step_solver::cg, 0.05);
  time_stepper<double> ts(p, o, u0);
  double change = 1;
  for (int k = 0; k < 3000 && change >= 1e-12; ++k) {
    const step_report r = ts.step(true);
    ASSERT_TRUE(r.converged);
    ASSERT_GE(r.change, 0);
    change = r.change;
  }
  EXPECT_LT(change, 1e-12);
  EXPECT_LT(max_diff(ts.solution(), *exact_steady_state(p, u0)), 1e-8);
}

TEST_F(gpu_heat_misc, NonConvergenceKeepsTheLastGoodState) {
  grid_problem p;
  p.n = 1001;
  const auto u0 = initial_profile(initial_condition{}, p);
  step_options o;
  o.scheme = method::implicit_euler;
  o.solver = step_solver::cg;
  o.dt = 0.01;
  o.where = device::cuda;
  time_stepper<double> ts(p, o, u0);
  ASSERT_TRUE(ts.step().converged);
  const auto good = ts.solution();
  step_options tight = o;
  tight.stop.max_iterations = 2;
  time_stepper<double> ts2(p, tight, good);
  const step_report r = ts2.step();
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 2);
  EXPECT_GT(r.residual, tight.stop.rel_tol);
  EXPECT_EQ(ts2.solution(), good);
  EXPECT_EQ(ts2.steps(), 0);
}

TEST_F(gpu_heat_misc, BenchReportsConsistentFigures) {
  grid_problem p;
  p.n = 1 << 20;
  // A step: smooth profiles at this resolution need no CG iteration at all
  // (the warm start's residual r K u is below rtol).
  const auto u0 = initial_profile(parse_initial_condition("step:0.5"), p);
  step_options o;
  o.where = device::cuda;
  o.scheme = method::explicit_euler;
  o.form = operator_form::csr;  // the byte count below is the CSR's
  o.dt = 0.4 * p.dx() * p.dx();
  time_stepper<double> ex(p, o, u0);
  const bench::heat_bench_report b = bench::time_heat_steps(ex, 3, 20);
  EXPECT_EQ(ex.steps(), 23);  // the timed steps advance the state
  EXPECT_GT(b.copy_bandwidth_gbs, 10);
  EXPECT_GT(b.step_ms_median, 0);
  EXPECT_LE(b.step_ms_min, b.step_ms_median);
  EXPECT_GT(b.bytes_per_step, 40.0 * p.n);  // CSR: ~3 (8 + 4) + 4 + 16 bytes per row
  o.scheme = method::crank_nicolson;
  o.dt = 10 * p.dx() * p.dx();  // r = 10
  time_stepper<double> cn(p, o, u0);
  const bench::heat_bench_report c = bench::time_heat_steps(cn, 2, 10);
  EXPECT_GT(c.iterations_per_step, 0);
  EXPECT_GT(c.cg_iteration_ms, 0);
  EXPECT_GT(c.bytes_per_cg_iteration, c.operator_bytes);
}

// Explicit steps at r = 0.45 through the GPU stencil.
step_options explicit_stencil(const grid_problem& p) {
  step_options o;
  o.where = device::cuda;
  o.scheme = method::explicit_euler;
  o.form = operator_form::stencil;
  o.dt = 0.45 * p.dx() * p.dx() / p.kappa;
  return o;
}

// Temporal blocking (several explicit steps per pass) against one step per
// pass: 1000 steps, odd N (not multiples of the 2048-cell tile), N = 3, tiles
// at both ends, every kind of end condition, passes of 1 .. 32 steps.
TEST_F(gpu_heat_misc, BlockedExplicitStepsEqualOneStepPasses) {
  const char* ends[][2] = {
      {"dirichlet:1", "neumann:0.5"}, {"insulated", "insulated"}, {"neumann:-1", "dirichlet:2"}};
  for (index_t n : {3, 4, 5, 2047, 2049, 4099, 100003})
    for (const auto& e : ends) {
      const grid_problem p = problem(n, e[0], e[1], 0.5);
      const auto u0 = initial_profile(parse_initial_condition("gauss:0.3:0.05"), p);
      const step_options o = explicit_stencil(p);
      const long steps = 1000;
      time_stepper<double> one(p, o, u0);
      for (long k = 0; k < steps; ++k) one.step();
      const std::vector<double> ref = one.solution();
      const double scale = max_abs(ref);
      const std::string where = std::to_string(n) + " " + e[0] + " " + e[1];
      time_stepper<double> batched(p, o, u0);
      batched.advance(steps);
      EXPECT_EQ(batched.steps(), steps);
      EXPECT_LE(max_diff(batched.solution(), ref), 1e-12 * scale) << where;
      for (int per_pass : {1, 7, 32}) {
        time_stepper<double> blocked(p, o, u0);
        blocked.probe().advance_blocked(steps, per_pass);
        EXPECT_LE(max_diff(blocked.solution(), ref), 1e-12 * scale) << where << " per pass " << per_pass;
      }
    }
}

// The own partitioned direct solve against the CPU's Thomas and against
// cuSPARSE gtsv2 in the same process: N not a multiple of the 32-row chunk,
// N = 3 (a reduced system of one), a last chunk of one row (N = 65, 97),
// every end condition, implicit and CN at r = 1 and r = 10^4.
TEST_F(gpu_heat_misc, OwnDirectSolveMatchesThomasAndGtsv) {
  const char* ends[][2] = {
      {"dirichlet:1", "neumann:0.5"}, {"insulated", "insulated"}, {"neumann:-1", "dirichlet:2"}};
  for (index_t n : {3, 4, 5, 31, 32, 33, 65, 97, 1001, 100003})
    for (const auto& e : ends)
      for (method m : {method::implicit_euler, method::crank_nicolson})
        for (double r : {1.0, 1e4}) {
          const grid_problem p = problem(n, e[0], e[1]);
          const auto u0 = initial_profile(parse_initial_condition("gauss:0.4:0.1"), p);
          step_options o;
          o.scheme = m;
          o.solver = step_solver::direct;
          o.dt = r * p.dx() * p.dx();
          auto run = [&](device where, bool library) {
            step_options oo = o;
            oo.where = where;
            oo.kernel = where == device::cpu ? spmv_kernel::cpu : spmv_kernel::automatic;
            time_stepper<double> ts(p, oo, u0);
            if (library) ts.probe().use_library_direct(true);
            for (int k = 0; k < 5; ++k) ts.step();
            return ts.solution();
          };
          const auto cpu = run(device::cpu, false), own = run(device::cuda, false),
                     lib = run(device::cuda, true);
          const double scale = max_abs(cpu);
          const std::string where = std::to_string(n) + " " + e[0] + " " + e[1] + " " + std::string(name(m)) +
                                    " r " + std::to_string(r);
          // r = 1: well conditioned, 1e-12. r = 10^4: cond(A) ~ 4 r, so any
          // method's rounding reaches ~ 4 r eps per step (gtsv2's too).
          const double bound = (r <= 1 ? 1e-12 : 5 * 4 * r * 1.1e-16 * 5) * scale;
          EXPECT_LE(max_diff(own, cpu), bound) << where;
          EXPECT_LE(max_diff(lib, cpu), bound) << where;
        }
}

TEST_F(gpu_heat_misc, BlockedExplicitStepsInFloat) {
  const grid_problem p = problem(50001, "neumann:0.5", "dirichlet:1", 0.5);
  const auto u0 = initial_profile(parse_initial_condition("step:0.4"), p);
  const step_options o = explicit_stencil(p);
  time_stepper<float> one(p, o, u0), blocked(p, o, u0);
  for (int k = 0; k < 300; ++k) one.step();
  blocked.advance(300);
  EXPECT_LE(max_diff(blocked.solution(), one.solution()), 1e-5);
}

// The initial profile evaluated on the GPU (the stepper built from the
// initial condition) against initial_profile on the host, and the integral and
// max error reduced on the GPU against host sums: odd N, N = 3, every kind of
// end, float and double.
TEST_F(gpu_heat_misc, ProfileIntegralAndErrorOnTheGpu) {
  const char* ends[][2] = {
      {"dirichlet:1", "neumann:0.5"}, {"insulated", "insulated"}, {"dirichlet", "dirichlet"}};
  for (index_t n : {3, 4, 1001, 300007})
    for (const auto& e : ends)
      for (const char* spec : {"sin:3", "gauss:0.4:0.1", "step:0.5"}) {
        const grid_problem p = problem(n, e[0], e[1]);
        const initial_condition ic = parse_initial_condition(spec);
        const auto host = initial_profile(ic, p);
        const std::string where = std::to_string(n) + " " + e[0] + " " + e[1] + " " + spec;
        const step_options o = explicit_stencil(p);
        time_stepper<double> ts(p, o, ic);
        // Device sin / exp are within an ulp or two of the host's.
        EXPECT_LE(max_diff(ts.solution(), host), 1e-15) << where;
        const auto q = quadrature_weights(p);
        const double i0 = std::inner_product(q.begin(), q.end(), host.begin(), 0.0);
        // The host's serial sum rounds by up to (N - 1) eps sum q |u| (systematically
        // for a step's equal terms); the GPU's tree of partial sums far less.
        const double tol = double(n) * 1.2e-16 *
                           (std::inner_product(q.begin(), q.end(), host.begin(), 0.0, std::plus<>(),
                                               [](double a, double b) { return a * std::abs(b); }) +
                            1e-3);
        EXPECT_NEAR(ts.integral(), i0, tol) << where;
        closed_form f;
        f.amplitude = 0.7, f.wave = 2, f.level = 0.1, f.slope = -0.3, f.pin_right = true, f.right = 2;
        EXPECT_NEAR(ts.max_error(f), max_diff(host, evaluate(f, p)), 1e-15) << where;
        time_stepper<float> tf(p, o, ic);
        const auto uf = tf.solution();
        EXPECT_LE(max_diff(uf, host), 1e-7) << where;
        const double fi = std::inner_product(q.begin(), q.end(), uf.begin(), 0.0);
        EXPECT_NEAR(tf.integral(), fi, tol) << where;
        EXPECT_NEAR(tf.max_error(f), max_diff(uf, evaluate(f, p)), 1e-15) << where;
      }
}

// Forced explicit steps at r = 10 overflow to inf, then NaN: the integral
// and the max error reduced on the GPU show it (heat1d's check of a run).
TEST_F(gpu_heat_misc, ABlownUpStateShowsInItsIntegral) {
  const grid_problem p = problem(4097, "dirichlet", "dirichlet");
  step_options o = explicit_stencil(p);
  o.dt = 10 * p.dx() * p.dx();
  o.force = true;
  for (operator_form form : {operator_form::stencil, operator_form::csr}) {
    o.form = form;
    time_stepper<float> f(p, o, initial_condition{});
    time_stepper<double> d(p, o, initial_condition{});
    EXPECT_TRUE(std::isfinite(f.integral()));
    f.advance(1000);
    d.advance(1000);
    EXPECT_FALSE(std::isfinite(f.integral())) << name(form);
    EXPECT_FALSE(std::isfinite(d.integral())) << name(form);
    EXPECT_FALSE(std::isfinite(d.max_error(*exact_form(p, initial_condition{}, d.time())))) << name(form);
  }
}

// --operator csr builds B's CSR on the device: the same matrix as the host's
// assemble_step, entry for entry (the SpMV of every kernel, on a vector that
// tells the columns apart, equals the CPU SpMV of the host CSR).
TEST_F(gpu_heat_misc, DeviceCsrIsTheAssembledMatrix) {
  const char* ends[][2] = {
      {"dirichlet:1", "neumann:0.5"}, {"insulated", "insulated"}, {"neumann:-1", "dirichlet:2"}};
  for (index_t n : {3, 4, 5, 6, 1001})
    for (const auto& e : ends)
      for (method m : {method::explicit_euler, method::crank_nicolson}) {
        const grid_problem p = problem(n, e[0], e[1]);
        const double dt = (m == method::explicit_euler ? 0.4 : 3.0) * p.dx() * p.dx();
        const auto host = assemble_step<double>(p, m, dt);
        std::vector<double> u0(static_cast<std::size_t>(n));
        for (index_t i = 0; i < n; ++i) u0[std::size_t(i)] = 1.0 + 0.37 * i + 0.01 * i * i;
        std::vector<double> want(u0.size());
        spmv(host.rhs, 1.0, u0.data(), 0.0, want.data());
        for (const auto& [i, v] : host.forcing) want[std::size_t(i)] += v;
        for (spmv_kernel k : spmv_kernels()) {
          if (!on_gpu(k)) continue;
          step_options o = explicit_stencil(p);
          o.scheme = m, o.solver = step_solver::direct, o.dt = dt, o.form = operator_form::csr, o.kernel = k;
          time_stepper<double> ts(p, o, u0);
          if (m != method::explicit_euler) continue;  // CN: B feeds the direct solve (AgreesWithTheCpuPath)
          ts.step();
          EXPECT_LE(max_diff(ts.solution(), want), 1e-13 * max_abs(want))
              << n << " " << e[0] << " " << e[1] << " " << name(k);
        }
      }
}

TEST_F(gpu_heat_misc, RejectsTheCpuKernelOnTheGpuPath) {
  grid_problem p;
  step_options o;
  o.where = device::cuda;
  o.kernel = spmv_kernel::cpu;
  EXPECT_THROW(time_stepper<double>(p, o, initial_profile(initial_condition{}, p)), invalid_argument);
}

// A grid the GPU cannot hold is refused before anything of size N is
// allocated, with the bytes and the limit; the same grid under a larger limit runs.
TEST_F(gpu_heat_misc, GridTooLargeForTheGpuIsRefusedFirst) {
  const grid_problem p = problem(1000001, "dirichlet:0", "dirichlet:0");
  const auto u0 = initial_profile(parse_initial_condition("sin:1"), p);
  step_options o = on_gpu(method::crank_nicolson, step_solver::cg, 1e-4);
  o.form = operator_form::csr;
  ::setenv("PERRON_GPU_MEMORY_LIMIT", "16M", 1);  // 8 vectors of a million doubles alone are 64 MB
  try {
    time_stepper<double> refused(p, o, u0);
    ADD_FAILURE() << "heat1d of 10^6 points built under a 16 MB limit";
  } catch (const dimension_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("heat1d on the GPU with --N 1000001"), std::string::npos) << what;
    EXPECT_NE(what.find("PERRON_GPU_MEMORY_LIMIT"), std::string::npos) << what;
  }
  ::setenv("PERRON_GPU_MEMORY_LIMIT", "1G", 1);
  time_stepper<double> fits(p, o, u0);
  ::unsetenv("PERRON_GPU_MEMORY_LIMIT");
  EXPECT_EQ(fits.solution().size(), std::size_t(p.n));
}

}  // namespace
}  // namespace perron::heat
