// heat1d: the 1D heat equation u_t = kappa u_xx on [0, L], explicit, implicit
// (backward Euler) or Crank-Nicolson, each implicit step solved by CG, weighted
// Jacobi or a tridiagonal direct solver, on the GPU or the CPU. Reports the
// error against the exact solution when one is known; writes the final profile,
// snapshots, a JSON summary and an SVG plot; has a benchmark mode.
#include "solvers/heat1d.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/common/app.hpp"
#include "apps/common/progress.hpp"
#include "apps/common/svg_plot.hpp"
#include "apps/common/timer.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/spmv.hpp"

namespace po = boost::program_options;

namespace perron::app {
namespace {

// A bad option value: reported like every other command-line error (exit 64).
struct usage_error : po::error {
  using po::error::error;
};

const char* usage_text =
    "Usage: heat1d [options]\n"
    "\n"
    "Solves the heat equation u_t = kappa u_xx on [0, L] for 0 <= t <= T on a grid of N\n"
    "points x_i = i L / (N - 1) (second-order central differences), and prints a summary.\n"
    "With no options: N = 101, sin:1 initial profile, zero Dirichlet ends, T = 0.1,\n"
    "Crank-Nicolson with CG, 100 steps; the error against the exact solution\n"
    "exp(-kappa pi^2 t / L^2) sin(pi x / L) is reported.\n"
    "\n"
    "Methods (r = kappa dt / dx^2):\n"
    "  explicit  u' = u + r S u (forward Euler); stable only for r <= 1/2: larger steps\n"
    "            are refused with the largest stable dt, unless --force\n"
    "  implicit  (I - r S) u' = u (backward Euler), first order in time\n"
    "  cn        (I - r/2 S) u' = (I + r/2 S) u (Crank-Nicolson), second order in time\n"
    "Each implicit step is a symmetric positive definite tridiagonal system (the\n"
    "half-cell weights at Neumann ends keep it symmetric), solved by --solver:\n"
    "  cg        conjugate gradients, warm-started from u, to ||b - A u|| <= rtol ||b||\n"
    "  jacobi    weighted Jacobi (--omega), warm-started, same criterion\n"
    "  direct    tridiagonal elimination: Thomas on the CPU, cuSPARSE gtsv2 on the GPU\n"
    "\n"
    "Boundary conditions (--left, --right, or --bc for both):\n"
    "  dirichlet[:V]   u = V at that end (default V = 0)\n"
    "  neumann[:G]     outward normal derivative du/dn = G (-u_x at x = 0, u_x at x = L);\n"
    "                  G > 0 lets heat in; default 0 (insulated); 'insulated' = neumann:0\n"
    "Initial conditions (--ic):\n"
    "  sin:K           sin(K pi x / L), K = 1, 2, ...\n"
    "  gauss:X0:W      exp(-(x - X0)^2 / (2 W^2))\n"
    "  step:X0         1 for x < X0, 0 for x > X0 (1/2 at X0)\n"
    "  file:PATH       N numbers (whitespace separated, '#' comments), one per grid point\n"
    "Dirichlet ends override the initial value there.\n"
    "\n"
    "Options";

const char* trailer_text =
    "\n"
    "Time: give --dt or --steps (not both); the step count is ceil(T / dt) and dt is then\n"
    "adjusted down to T / steps so that the run ends exactly at T. Without either: 100\n"
    "steps for implicit / cn, and 0.9 of the largest stable dt for explicit.\n"
    "--steady runs until max |u' - u| < --steady-tol (at most --max-steps steps) instead\n"
    "of to T; it needs a steady state to exist (not two Neumann ends with net inflow).\n"
    "\n"
    "Outputs: --output FILE: the final profile, lines 'x<TAB>u' (no header).\n"
    "--snapshot FILE with --snapshot-every K: lines 't<TAB>x<TAB>u' every K steps from step\n"
    "0 (and the last step), a blank line between snapshots (gnuplot 'index').\n"
    "--json FILE ('-' = stdout instead of the text summary): N, steps, method, solver,\n"
    "iterations per step (mean, max), host syncs, max error vs the exact solution when\n"
    "known (sin:K with zero Dirichlet ends; the linear steady state with --steady),\n"
    "timings. --plot FILE.svg: u(x) at --plot-curves times, with the exact solution.\n"
    "A progress bar with ETA is drawn on stderr when it is a terminal.\n"
    "\n"
    "GPU details: the host does not wait for the device every CG iteration: the device\n"
    "keeps the convergence flag and the iteration count; the host looks after the number\n"
    "of iterations the previous step needed, then every max(--check-interval, done/8)\n"
    "iterations (host syncs per step are reported). --kernel picks the SpMV kernel of\n"
    "the CSR operators; --operator stencil uses the solver's own 3-point stencil kernel\n"
    "instead (reads only the vectors). --bench times steps with CUDA events after\n"
    "warm-up, measures the device copy bandwidth in the same process, and reports bytes\n"
    "per step / per CG iteration against that bandwidth.\n"
    "\n"
    "Exit codes: 0 ok; 2 a step's linear solve did not converge or the steady state was\n"
    "not reached (outputs up to the last good step are still written); 64 bad command\n"
    "line or option value; 65 bad initial-condition file content; 66 unreadable file;\n"
    "70 CUDA failure or no GPU for --device cuda; 71 internal error.\n";

struct settings {
  long n = 101;
  double length = 1.0, kappa = 1.0, final_time = 0.1;
  std::optional<double> dt;
  std::optional<long> steps;
  std::string method = "cn", solver = "cg", kernel = "auto", form = "csr", precision = "double",
              device = "auto";
  std::string bc, left, right, ic = "sin:1";
  std::optional<double> rtol;
  double atol = 0, omega = 1.0;
  int max_iter = 1000, check_interval = 4;
  bool steady = false, force = false, bench = false, no_progress = false;
  double steady_tol = 1e-8;
  long max_steps = 1000000;
  std::string output, snapshot, json, plot;
  long snapshot_every = 0;
  int plot_curves = 6;
  int bench_steps = 100, bench_warmup = 5;
};

po::options_description make_options(settings& s) {
  po::options_description o(usage_text);
  // clang-format off
  o.add_options()
    ("help,h", "print this help and exit")
    ("N,n", po::value<long>(&s.n)->default_value(101), "grid points, >= 3 (both ends included)")
    ("L", po::value<double>(&s.length)->default_value(1.0, "1"), "domain length, > 0")
    ("kappa", po::value<double>(&s.kappa)->default_value(1.0, "1"), "diffusivity, >= 0")
    ("T", po::value<double>(&s.final_time)->default_value(0.1, "0.1"), "final time, >= 0")
    ("dt", po::value<double>(), "time step, > 0")
    ("steps", po::value<long>(), "number of steps to reach T, >= 1")
    ("method,m", po::value<std::string>(&s.method)->default_value("cn"), "explicit | implicit | cn")
    ("solver,s", po::value<std::string>(&s.solver)->default_value("cg"), "cg | jacobi | direct (implicit and cn)")
    ("kernel,k", po::value<std::string>(&s.kernel)->default_value("auto"),
     ("SpMV kernel on the GPU: " + spmv_kernel_names() + " (cpu forces the CPU path)").c_str())
    ("operator", po::value<std::string>(&s.form)->default_value("csr"),
     "csr (assembled matrix through --kernel) | stencil (GPU 3-point stencil kernel)")
    ("precision,p", po::value<std::string>(&s.precision)->default_value("double"), "double | float")
    ("device,d", po::value<std::string>(&s.device)->default_value("auto"), "auto | cpu | cuda; auto: the GPU when usable")
    ("bc", po::value<std::string>(&s.bc), "boundary condition at both ends (see above)")
    ("left", po::value<std::string>(&s.left), "boundary condition at x = 0 (default dirichlet:0)")
    ("right", po::value<std::string>(&s.right), "boundary condition at x = L (default dirichlet:0)")
    ("ic", po::value<std::string>(&s.ic)->default_value("sin:1"), "initial condition (see above)")
    ("rtol", po::value<double>(), "relative residual per step for cg / jacobi (default 1e-10 double; float: max(1e-5, 5e-7 (1 + 4 theta r)), near what float rounding allows; past 1e-3 the run is refused)")
    ("atol", po::value<double>(&s.atol)->default_value(0.0, "0"), "absolute residual: a step is solved when ||b - A u|| <= max(rtol ||b||, atol)")
    ("max-iter", po::value<int>(&s.max_iter)->default_value(1000), "iterations per step for cg / jacobi")
    ("omega", po::value<double>(&s.omega)->default_value(1.0, "1"), "Jacobi weight, in (0, 2)")
    ("check-interval", po::value<int>(&s.check_interval)->default_value(4), "GPU: fewest iterations between two host looks at the convergence flag")
    ("steady", po::bool_switch(&s.steady), "run to the steady state instead of to T")
    ("steady-tol", po::value<double>(&s.steady_tol)->default_value(1e-8, "1e-8"), "--steady stops when max |u' - u| < this")
    ("max-steps", po::value<long>(&s.max_steps)->default_value(1000000), "--steady gives up after this many steps")
    ("force", po::bool_switch(&s.force), "run explicit steps even when r > 1/2 (unstable)")
    ("output,o", po::value<std::string>(&s.output)->value_name("FILE"), "final profile as TSV 'x<TAB>u'")
    ("snapshot", po::value<std::string>(&s.snapshot)->value_name("FILE"), "snapshots as TSV 't<TAB>x<TAB>u'")
    ("snapshot-every", po::value<long>(&s.snapshot_every)->default_value(0), "steps between snapshots (needs --snapshot)")
    ("json", po::value<std::string>(&s.json)->value_name("FILE"), "JSON summary to FILE ('-': stdout)")
    ("plot", po::value<std::string>(&s.plot)->value_name("FILE.svg"), "SVG plot of u(x) at several times")
    ("plot-curves", po::value<int>(&s.plot_curves)->default_value(6), "profiles in the plot (2 .. 12)")
    ("bench", po::bool_switch(&s.bench), "GPU benchmark: time --bench-steps steps after --bench-warmup")
    ("bench-steps", po::value<int>(&s.bench_steps)->default_value(100), "timed steps for --bench")
    ("bench-warmup", po::value<int>(&s.bench_warmup)->default_value(5), "untimed steps before --bench timing")
    ("no-progress", po::bool_switch(&s.no_progress), "never draw the progress bar");
  // clang-format on
  return o;
}

std::string num(double v, int digits = 6) {
  std::ostringstream o;
  o.precision(digits);
  o << v;
  return o.str();
}

std::string json_num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string format_seconds(double s) {
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.1fs", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) / 60 % 60);
  return buf;
}

// Everything decided from the command line, validated (usage errors otherwise).
struct plan {
  heat::grid_problem problem;
  heat::initial_condition ic;
  heat::step_options step;
  long steps = 0;  // to T (not --steady)
  bool is_float = false;
};

plan make_plan(const settings& s) {
  plan p;
  try {
    if (s.n < 3) throw invalid_argument("N must be at least 3 grid points (got " + std::to_string(s.n) + ")");
    if (s.n > long(max_index))
      throw invalid_argument("N = " + std::to_string(s.n) + " exceeds the 32-bit index limit");
    p.problem.n = static_cast<index_t>(s.n);
    p.problem.length = s.length;
    p.problem.kappa = s.kappa;
    const std::string both = s.bc.empty() ? "dirichlet" : s.bc;
    p.problem.left = heat::parse_boundary(s.left.empty() ? both : s.left);
    p.problem.right = heat::parse_boundary(s.right.empty() ? both : s.right);
    p.problem.validate();
    p.ic = heat::parse_initial_condition(s.ic);

    auto& o = p.step;
    o.scheme = heat::parse_method(s.method);
    o.solver = heat::parse_step_solver(s.solver);
    o.form = heat::parse_operator_form(s.form);
    if (s.precision != "double" && s.precision != "float")
      throw invalid_argument("unknown precision '" + s.precision + "' (valid: double, float)");
    p.is_float = s.precision == "float";
    const spmv_kernel kernel = parse_spmv_kernel(s.kernel);
    if (s.device == "cpu" || kernel == spmv_kernel::cpu) {
      if (s.device == "cuda") throw invalid_argument("--kernel cpu contradicts --device cuda");
      o.where = heat::device::cpu;
    } else if (s.device == "cuda") {
      o.where = heat::device::cuda;
    } else if (s.device == "auto") {
      o.where = cuda::available() ? heat::device::cuda : heat::device::cpu;
    } else {
      throw invalid_argument("unknown device '" + s.device + "' (valid: auto, cpu, cuda)");
    }
    if (o.where == heat::device::cpu) {
      if (kernel != spmv_kernel::cpu && kernel != spmv_kernel::automatic)
        throw invalid_argument("--kernel " + s.kernel + " runs on the GPU, but the CPU path was chosen" +
                               (s.device == "auto" ? " (no usable CUDA device)" : ""));
      if (o.form == heat::operator_form::stencil)
        throw invalid_argument("--operator stencil is a GPU path (no GPU in use)");
      o.kernel = spmv_kernel::cpu;
    } else {
      o.kernel = kernel;
    }
    if (s.bench && o.where != heat::device::cuda)
      throw invalid_argument("--bench times the GPU: no CUDA device in use");

    o.stop.abs_tol = s.atol;
    o.stop.max_iterations = s.max_iter;
    if (s.max_iter < 1) throw invalid_argument("--max-iter must be >= 1");
    if (!(s.atol >= 0) || !std::isfinite(s.atol))
      throw invalid_argument("--atol must be a finite number >= 0");
    o.omega = s.omega;
    if (!(s.omega > 0 && s.omega < 2))
      throw invalid_argument("--omega must be in (0, 2) (got " + num(s.omega) + ")");
    o.check_interval = s.check_interval;
    if (s.check_interval < 1) throw invalid_argument("--check-interval must be >= 1");
    o.force = s.force;

    if (!(s.final_time >= 0) || !std::isfinite(s.final_time))
      throw invalid_argument("final time T must be a finite number >= 0 (got " + num(s.final_time) + ")");
    if (s.dt && s.steps) throw invalid_argument("give --dt or --steps, not both");
    const double dt_max = heat::max_stable_dt(p.problem);
    if (s.dt) {
      if (!(*s.dt > 0) || !std::isfinite(*s.dt))
        throw invalid_argument("time step dt must be a finite number > 0 (got " + num(*s.dt) + ")");
      if (s.steady) {
        o.dt = *s.dt;
      } else {
        const double k = std::ceil(s.final_time / *s.dt * (1 - 1e-12));
        if (k > 1e15) throw invalid_argument("T / dt = " + num(s.final_time / *s.dt) + " steps is too many");
        p.steps = static_cast<long>(k);
        o.dt = p.steps > 0 ? s.final_time / double(p.steps) : *s.dt;
      }
    } else if (s.steps) {
      if (*s.steps < 1) throw invalid_argument("--steps must be >= 1 (got " + std::to_string(*s.steps) + ")");
      p.steps = *s.steps;
      if (s.final_time == 0) throw invalid_argument("--steps with T = 0 gives no step size; give --dt");
      o.dt = s.final_time / double(p.steps);
    } else {
      const double target = o.scheme == heat::method::explicit_euler ? 0.9 * dt_max : s.final_time / 100;
      const double base =
          target > 0 && std::isfinite(target) ? target : (s.final_time > 0 ? s.final_time / 100 : 1e-3);
      if (s.steady) {
        o.dt = base;
      } else {
        p.steps = s.final_time > 0 ? static_cast<long>(std::ceil(s.final_time / base * (1 - 1e-12))) : 0;
        o.dt = p.steps > 0 ? s.final_time / double(p.steps) : base;
      }
    }
    if (o.scheme == heat::method::explicit_euler && o.dt > dt_max * (1 + 1e-12) && !s.force)
      throw invalid_argument("explicit steps are unstable here: r = kappa dt / dx^2 = " +
                             num(p.problem.kappa * o.dt / (p.problem.dx() * p.problem.dx())) +
                             " > 1/2. The largest stable dt is " + num(dt_max, 10) +
                             " (use --dt <= that, fewer grid points, --method implicit or cn, or --force)");
    // Default rtol: 1e-10 in double; in float max(1e-5, 5e-7 (1 + 4 theta r)): a
    // row of A = W - theta r K sums 1 + 2 theta r against 2 theta r, so float
    // rounding alone puts ||b - A x|| near eps_float (1 + 4 theta r) ||x||.
    // Past a floor of 1e-3 a float solve would accept the warm start itself
    // (its residual is about kappa dt pi^2 ||b||): refuse instead of returning
    // an unchanged profile with exit 0.
    const double r = p.problem.kappa * o.dt / (p.problem.dx() * p.problem.dx());
    const double float_floor = 5e-7 * (1 + 4 * heat::theta(o.scheme) * r);
    const bool iterative = o.scheme != heat::method::explicit_euler && o.solver != heat::step_solver::direct;
    if (p.is_float && iterative && !s.rtol && float_floor > 1e-3)
      throw invalid_argument(
          "float cannot resolve implicit steps at r = kappa dt / dx^2 = " + num(r) +
          ": rounding alone leaves a relative residual near " + num(float_floor) +
          " (use --precision double, --solver direct, a smaller --dt, or set --rtol yourself)");
    o.stop.rel_tol =
        s.rtol ? *s.rtol
               : (p.is_float ? std::max(default_rel_tol<float>(), float_floor) : default_rel_tol<double>());
    if (!(o.stop.rel_tol >= 0) || !std::isfinite(o.stop.rel_tol))
      throw invalid_argument("--rtol must be a finite number >= 0");
    if (s.steady) {
      if (!(s.steady_tol > 0) || !std::isfinite(s.steady_tol))
        throw invalid_argument("--steady-tol must be > 0");
      if (s.max_steps < 1) throw invalid_argument("--max-steps must be >= 1");
      const std::string why = heat::steady_state_obstacle(p.problem);
      if (!why.empty()) throw invalid_argument("--steady: " + why);
    }
    if (s.snapshot_every < 0) throw invalid_argument("--snapshot-every must be >= 0");
    if (s.snapshot_every > 0 && s.snapshot.empty())
      throw invalid_argument("--snapshot-every needs --snapshot FILE");
    if (!s.snapshot.empty() && s.snapshot_every == 0)
      throw invalid_argument("--snapshot needs --snapshot-every K");
    if (s.plot_curves < 2 || s.plot_curves > 12) throw invalid_argument("--plot-curves must be in 2 .. 12");
    if (s.bench && (s.bench_steps < 1 || s.bench_warmup < 0))
      throw invalid_argument("--bench-steps must be >= 1, --bench-warmup >= 0");
  } catch (const invalid_argument& e) {
    throw usage_error(e.what());
  }
  return p;
}

std::ofstream open_output(const std::string& path) {
  std::ofstream f(path);
  if (!f) throw io_error(path, "cannot open for writing");
  f.precision(17);
  return f;
}

void write_profile(const std::string& path, const heat::grid_problem& p, const std::vector<double>& u) {
  std::ofstream f = open_output(path);
  for (index_t i = 0; i < p.n; ++i) f << p.x(i) << '\t' << u[i] << '\n';
  f.close();
  if (!f) throw io_error(path, "write error");
}

struct curve {
  double t;
  std::vector<double> x, u;  // decimated for the plot
};

curve make_curve(const heat::grid_problem& p, double t, const std::vector<double>& u) {
  curve c{t, std::vector<double>(u.size()), u};
  for (index_t i = 0; i < p.n; ++i) c.x[i] = p.x(i);
  decimate(c.x, c.u, 1000);
  return c;
}

struct run_stats {
  long steps = 0;
  long iterations = 0;
  int max_iterations = 0;
  long host_syncs = 0;
  double last_change = -1;
  bool failed = false;
  long failed_step = 0;  // 1-based step that failed
  heat::step_report failure;
  bool steady_reached = false;
};

template <class T>
int simulate(const settings& s, const plan& pl) {
  stopwatch total;
  const auto& p = pl.problem;
  const std::vector<double> u0 = heat::initial_profile(pl.ic, p);
  const std::vector<double> quad = heat::quadrature_weights(p);
  auto integral = [&](const std::vector<double>& u) {
    double v = 0;
    for (std::size_t i = 0; i < u.size(); ++i) v += quad[i] * u[i];
    return v;
  };

  stopwatch sw;
  heat::time_stepper<T> ts(p, pl.step, u0);
  const double setup_s = sw.lap();
  const bool on_gpu = pl.step.where == heat::device::cuda;
  const std::string kernel_name =
      on_gpu ? (pl.step.form == heat::operator_form::stencil ? std::string("stencil")
                                                             : std::string(name(ts.kernel())))
             : std::string("cpu");
  const bool iterative =
      pl.step.scheme != heat::method::explicit_euler && pl.step.solver != heat::step_solver::direct;

  std::optional<heat::bench_report> bench;
  run_stats st;
  std::vector<curve> curves;
  std::vector<double> u = u0;
  double run_s = 0;

  std::ofstream snap;
  auto write_snapshot = [&](double t, const std::vector<double>& v) {
    for (index_t i = 0; i < p.n; ++i) snap << t << '\t' << p.x(i) << '\t' << v[i] << '\n';
    snap << '\n';
  };

  if (s.bench) {
    bench = ts.bench(s.bench_warmup, s.bench_steps);
    run_s = sw.lap();
    st.steps = s.bench_warmup + s.bench_steps;
    // The summary's per-step figures are the timed steps' (the bench ran them).
    st.iterations = std::lround(bench->iterations_per_step * double(st.steps));
    st.host_syncs = std::lround(bench->host_syncs_per_step * double(st.steps));
    st.max_iterations = static_cast<int>(std::ceil(bench->iterations_per_step));
    u = ts.solution();
  } else {
    if (!s.snapshot.empty()) {
      snap = open_output(s.snapshot);
      write_snapshot(0, u0);
    }
    // Which steps feed the plot: evenly spaced to T, or 0, 1, 2, 4, ... when steady.
    const bool plotting = !s.plot.empty();
    std::vector<long> plot_at;
    if (plotting && !s.steady)
      for (int k = 1; k < s.plot_curves; ++k)
        plot_at.push_back(std::lround(double(pl.steps) * k / (s.plot_curves - 1)));
    if (plotting) curves.push_back(make_curve(p, 0, u0));
    long next_power = 1;

    progress_line progress(!s.no_progress && stderr_is_terminal());
    const long limit = s.steady ? s.max_steps : pl.steps;
    for (long k = 1; k <= limit; ++k) {
      const heat::step_report r = ts.step(s.steady);
      if (!r.converged) {
        st.failed = true;
        st.failed_step = k;
        st.failure = r;
        break;
      }
      st.steps = k;
      st.iterations += r.iterations;
      st.max_iterations = std::max(st.max_iterations, r.iterations);
      st.host_syncs += r.host_syncs;
      st.last_change = r.change;
      const bool done_steady = s.steady && r.change < s.steady_tol;
      const double t = ts.time();
      const bool last = k == limit || done_steady;
      if (snap.is_open() && (k % s.snapshot_every == 0 || last)) write_snapshot(t, ts.solution());
      if (plotting) {
        const bool take = s.steady ? (k == next_power || last)
                                   : std::find(plot_at.begin(), plot_at.end(), k) != plot_at.end();
        if (s.steady && k == next_power) next_power *= 2;
        if (take && (curves.empty() || curves.back().t != t))
          curves.push_back(make_curve(p, t, ts.solution()));
      }
      if (progress.enabled()) {
        const double el = sw.seconds();
        std::ostringstream line;
        if (s.steady) {
          line << "step " << k << "  t = " << num(t, 4) << "  max|du| = " << num(r.change, 3) << " (target "
               << num(s.steady_tol, 3) << ")  " << format_seconds(el);
        } else {
          const double f = double(k) / double(limit);
          const int width = 30, fill = static_cast<int>(f * width);
          line << '[' << std::string(fill, '#') << std::string(width - fill, ' ') << "] " << int(f * 100)
               << "%  step " << k << '/' << limit << "  t = " << num(t, 4) << "  ETA "
               << format_seconds(el / f * (1 - f));
        }
        if (iterative) line << "  it " << r.iterations;
        progress.update(line.str(), last);
      }
      if (done_steady) {
        st.steady_reached = true;
        break;
      }
    }
    progress.clear();
    u = ts.solution();  // also waits for the device
    run_s = sw.lap();
  }

  // Thin out the steady curves to plot_curves, keeping the first and the last.
  if (curves.size() > std::size_t(s.plot_curves)) {
    std::vector<curve> keep;
    for (int k = 0; k < s.plot_curves; ++k)
      keep.push_back(curves[std::size_t(std::lround(double(curves.size() - 1) * k / (s.plot_curves - 1)))]);
    curves.swap(keep);
  }

  // Error against the exact solution (or the steady state) where one is known.
  const double t_end = ts.time();
  std::optional<std::vector<double>> exact;
  std::string reference;
  if (s.steady && st.steady_reached) {
    exact = heat::exact_steady_state(p, u0);
    reference = "steady state";
  } else if (!s.steady) {
    exact = heat::exact_solution(p, pl.ic, t_end);
    reference = "exact solution at t = " + num(t_end);
  }
  double max_error = std::nan("");
  if (exact) {
    max_error = 0;
    for (index_t i = 0; i < p.n; ++i) max_error = std::max(max_error, std::abs(u[i] - (*exact)[i]));
  }

  if (!s.output.empty()) write_profile(s.output, p, u);
  if (snap.is_open()) {
    snap.close();
    if (!snap) throw io_error(s.snapshot, "write error");
  }
  if (!s.plot.empty()) {
    std::vector<plot_series> series;
    for (const auto& c : curves)
      series.push_back(plot_series{"t = " + num(c.t, 4), c.x, c.u, "", false, 1.8});
    if (exact && !curves.empty()) {
      curve e = make_curve(p, t_end, *exact);
      series.push_back(plot_series{s.steady ? "steady state (exact)" : "exact, t = " + num(t_end, 4), e.x,
                                   e.u, "#444444", true, 1.4});
    }
    plot_options po_;
    po_.title = "heat1d: " + std::string(heat::name(pl.step.scheme)) + ", N = " + std::to_string(p.n) +
                ", kappa = " + num(p.kappa) + ", " + heat::describe(pl.ic) + ", left " +
                heat::describe(p.left) + ", right " + heat::describe(p.right);
    po_.x_label = "x";
    po_.y_label = "u(x, t)";
    write_svg_line_plot(s.plot, series, po_);
  }

  const double total_s = total.seconds();
  const double mean_it = st.steps ? double(st.iterations) / double(st.steps) : 0;
  const double syncs_per_step = st.steps ? double(st.host_syncs) / double(st.steps) : 0;
  const double r = ts.r();
  const std::string precision = sizeof(T) == 4 ? "float" : "double";

  std::ostringstream js;
  if (!s.json.empty()) {
    js << "{\n"
       << "  \"N\": " << p.n << ",\n  \"L\": " << json_num(p.length)
       << ",\n  \"kappa\": " << json_num(p.kappa) << ",\n  \"dx\": " << json_num(p.dx())
       << ",\n  \"dt\": " << json_num(pl.step.dt) << ",\n  \"r\": " << json_num(r)
       << ",\n  \"T\": " << json_num(s.steady || s.bench ? t_end : s.final_time)
       << ",\n  \"t_final\": " << json_num(t_end) << ",\n  \"steps\": " << st.steps << ",\n  \"method\": \""
       << heat::name(pl.step.scheme) << "\",\n  \"solver\": \""
       << (pl.step.scheme == heat::method::explicit_euler ? std::string("none")
                                                          : std::string(heat::name(pl.step.solver)))
       << "\",\n  \"precision\": \"" << precision << "\",\n  \"device\": \"" << heat::name(pl.step.where)
       << "\",\n  \"kernel\": \"" << json_escape(kernel_name) << "\",\n  \"operator\": \""
       << heat::name(pl.step.form) << "\",\n  \"left\": \"" << json_escape(heat::describe(p.left))
       << "\",\n  \"right\": \"" << json_escape(heat::describe(p.right)) << "\",\n  \"ic\": \""
       << json_escape(heat::describe(pl.ic)) << "\",\n  \"rtol\": " << json_num(pl.step.stop.rel_tol)
       << ",\n  \"max_iter\": " << pl.step.stop.max_iterations
       << ",\n  \"iterations_per_step\": {\"mean\": " << json_num(mean_it)
       << ", \"max\": " << st.max_iterations << ", \"total\": " << st.iterations
       << "},\n  \"host_syncs\": {\"total\": " << st.host_syncs
       << ", \"per_step\": " << json_num(syncs_per_step)
       << "},\n  \"converged\": " << (st.failed ? "false" : "true")
       << ",\n  \"failed_step\": " << (st.failed ? std::to_string(st.failed_step) : "null")
       << ",\n  \"failure_residual\": " << (st.failed ? json_num(st.failure.residual) : "null");
    if (s.steady)
      js << ",\n  \"steady\": {\"tol\": " << json_num(s.steady_tol)
         << ", \"reached\": " << (st.steady_reached ? "true" : "false")
         << ", \"final_change\": " << json_num(st.last_change) << "}";
    js << ",\n  \"max_error\": " << json_num(max_error)
       << ",\n  \"error_reference\": " << (exact ? "\"" + json_escape(reference) + "\"" : std::string("null"))
       << ",\n  \"integral\": {\"initial\": " << json_num(integral(u0))
       << ", \"final\": " << json_num(integral(u)) << "},\n  \"timings\": {\"setup_s\": " << json_num(setup_s)
       << ", \"run_s\": " << json_num(run_s)
       << ", \"per_step_ms\": " << json_num(st.steps ? run_s / double(st.steps) * 1e3 : 0.0)
       << ", \"total_s\": " << json_num(total_s) << "}";
    if (bench) {
      const auto& b = *bench;
      js << ",\n  \"bench\": {\"copy_bandwidth_gbs\": " << json_num(b.copy_bandwidth_gbs)
         << ", \"step_ms_median\": " << json_num(b.step_ms_median)
         << ", \"step_ms_min\": " << json_num(b.step_ms_min) << ", \"steps_timed\": " << b.steps_timed
         << ", \"iterations_per_step\": " << json_num(b.iterations_per_step)
         << ", \"host_syncs_per_step\": " << json_num(b.host_syncs_per_step)
         << ", \"operator_bytes\": " << json_num(b.operator_bytes)
         << ", \"bytes_per_step\": " << json_num(b.bytes_per_step)
         << ", \"cg_iteration_ms\": " << json_num(b.cg_iteration_ms)
         << ", \"bytes_per_cg_iteration\": " << json_num(b.bytes_per_cg_iteration) << "}";
    }
    js << "\n}\n";
  }
  if (s.json == "-") {
    std::cout << js.str();
  } else {
    if (!s.json.empty()) {
      std::ofstream f = open_output(s.json);
      f << js.str();
      if (!f) throw io_error(s.json, "write error");
    }
    std::ostringstream o;
    o << "heat1d: N = " << p.n << ", L = " << num(p.length) << ", kappa = " << num(p.kappa)
      << ", dx = " << num(p.dx()) << "; left " << heat::describe(p.left) << ", right "
      << heat::describe(p.right) << "; initial " << heat::describe(pl.ic) << '\n';
    o << "method " << heat::name(pl.step.scheme);
    if (pl.step.scheme != heat::method::explicit_euler) {
      o << ", solver " << heat::name(pl.step.solver);
      if (iterative) o << " (rtol " << num(pl.step.stop.rel_tol) << ")";
    }
    o << ", " << precision << " on " << heat::name(pl.step.where);
    if (on_gpu)
      o << " (" << (pl.step.form == heat::operator_form::stencil ? "stencil operator" : "SpMV " + kernel_name)
        << ")";
    o << '\n';
    o << "time: dt = " << num(pl.step.dt) << ", r = kappa dt / dx^2 = " << num(r) << ", " << st.steps
      << " steps to t = " << num(t_end) << '\n';
    if (iterative && !bench)
      o << "iterations per step: mean " << num(mean_it, 4) << ", max " << st.max_iterations
        << "; host syncs per step " << num(syncs_per_step, 3) << '\n';
    if (s.steady)
      o << "steady state: " << (st.steady_reached ? "reached" : "NOT reached")
        << ", last max|du| = " << num(st.last_change, 3) << " (tol " << num(s.steady_tol) << ")\n";
    if (exact) o << "max error vs " << reference << ": " << num(max_error, 4) << '\n';
    o << "integral of u: " << num(integral(u0), 12) << " -> " << num(integral(u), 12) << '\n';
    o << "time: setup " << num(setup_s, 3) << " s, stepping " << num(run_s, 3) << " s";
    if (st.steps && !bench) o << " (" << num(run_s / double(st.steps) * 1e3, 3) << " ms/step)";
    o << '\n';
    if (bench) {
      const auto& b = *bench;
      const double floor_ms = b.bytes_per_step / (b.copy_bandwidth_gbs * 1e9) * 1e3;
      o << "bench (" << cuda::device_description() << "): device copy " << num(b.copy_bandwidth_gbs, 4)
        << " GB/s\n"
        << "  step: median " << num(b.step_ms_median, 4) << " ms, min " << num(b.step_ms_min, 4)
        << " ms over " << b.steps_timed << " steps";
      if (iterative)
        o << "; " << num(b.iterations_per_step, 4) << " iterations, " << num(b.host_syncs_per_step, 3)
          << " host syncs per step";
      o << '\n';
      if (b.bytes_per_step > 0)
        o << "  step bytes " << num(b.bytes_per_step / 1e9, 4) << " GB: floor " << num(floor_ms, 4)
          << " ms; achieved " << num(b.bytes_per_step / (b.step_ms_median * 1e-3) / 1e9, 4)
          << " GB/s = " << num(100 * floor_ms / b.step_ms_median, 3) << "% of copy bandwidth\n";
      if (b.cg_iteration_ms > 0) {
        const double it_floor = b.bytes_per_cg_iteration / (b.copy_bandwidth_gbs * 1e9) * 1e3;
        o << "  CG iteration: " << num(b.cg_iteration_ms, 4) << " ms; bytes "
          << num(b.bytes_per_cg_iteration / 1e9, 4) << " GB (operator " << num(b.operator_bytes / 1e9, 4)
          << " GB): floor " << num(it_floor, 4) << " ms; ratio " << num(b.cg_iteration_ms / it_floor, 3)
          << "x\n";
      }
    }
    std::cout << o.str();
  }

  if (st.failed) {
    std::cerr << "heat1d: error: step " << st.failed_step << " (t = " << num(t_end + pl.step.dt)
              << "): " << heat::name(pl.step.solver) << " did not converge: relative residual "
              << num(st.failure.residual, 3) << " > rtol " << num(pl.step.stop.rel_tol) << " after "
              << st.failure.iterations << " iterations (" << name(st.failure.status)
              << "); outputs hold the profile at t = " << num(t_end) << " (step " << st.steps << ")\n";
    return not_converged;
  }
  if (s.steady && !st.steady_reached) {
    std::cerr << "heat1d: error: steady state not reached in " << st.steps
              << " steps (last max|du| = " << num(st.last_change, 3) << ", --steady-tol " << num(s.steady_tol)
              << "); outputs hold the last profile\n";
    return not_converged;
  }
  return ok;
}

int main_body(int argc, char** argv) {
  settings s;
  po::options_description opts = make_options(s);
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, opts), vm);
  if (vm.count("help")) {
    std::cout << opts << trailer_text;
    return ok;
  }
  po::notify(vm);
  if (vm.count("dt")) s.dt = vm["dt"].as<double>();
  if (vm.count("steps")) s.steps = vm["steps"].as<long>();
  if (vm.count("rtol")) s.rtol = vm["rtol"].as<double>();
  const plan pl = make_plan(s);
  return pl.is_float ? simulate<float>(s, pl) : simulate<double>(s, pl);
}

}  // namespace
}  // namespace perron::app

int main(int argc, char** argv) {
  return perron::app::run("heat1d", [&] { return perron::app::main_body(argc, argv); });
}
