// heat1d: the 1D heat equation u_t = kappa u_xx on [0, L], explicit, implicit
// (backward Euler) or Crank-Nicolson, each implicit step solved by CG, weighted
// Jacobi or a tridiagonal direct solver, on the GPU or the CPU. Reports the
// error against the exact solution when one is known; writes the final profile,
// snapshots, a JSON summary and an SVG plot; has a benchmark mode.
//
// The solver's options and their defaults are solvers/heat1d.hpp's structs
// (grid_problem, step_options, run_options); this file maps the command line
// onto them, and owns only what is the app's: precision, device choice,
// outputs, progress and the benchmark run.
#include "solvers/heat1d.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "apps/common/app.hpp"
#include "apps/common/command_line.hpp"
#include "apps/common/detached_exit.hpp"
#include "apps/common/progress.hpp"
#include "apps/common/svg_plot.hpp"
#include "apps/common/timer.hpp"
#include "apps/common/usage.hpp"
#include "bench/heat1d_bench.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/names.hpp"
#include "core/text.hpp"
#include "io/output_file.hpp"
#include "io/profile.hpp"
#include "kernels/spmv.hpp"

namespace po = boost::program_options;

namespace perron::app {
namespace {

// ---- the options --------------------------------------------------------------

enum class precision { double_precision, single_precision };
constexpr name_table<precision, 2> precision_names{{
    {precision::double_precision, "double"},
    {precision::single_precision, "float"},
}};
std::string_view name(precision p) { return name_in(precision_names, p); }
precision parse_precision(std::string_view s) { return parse_in(precision_names, s, "precision"); }

// auto: the GPU when one is usable (and no --kernel cpu), else the CPU.
enum class device_choice { automatic, cpu, cuda };
constexpr name_table<device_choice, 3> device_choice_names{{
    {device_choice::automatic, "auto"},
    {device_choice::cpu, "cpu"},
    {device_choice::cuda, "cuda"},
}};
std::string_view name(device_choice d) { return name_in(device_choice_names, d); }
device_choice parse_device_choice(std::string_view s) { return parse_in(device_choice_names, s, "device"); }

// What only the app decides; the solver's options are heat1d.hpp's structs.
struct app_options {
  precision prec = precision::double_precision;
  device_choice device = device_choice::automatic;
  std::string output, snapshot, json, plot;
  long snapshot_every = 0;
  int plot_curves = 6;
  bool bench = false, no_progress = false;
  int bench_steps = 100, bench_warmup = 5;

  // Throws invalid_argument naming the option.
  void validate() const {
    // (0, the default, is "no snapshots": -1 said ">= 0", and 0 then "needs
    // --snapshot-every K".)
    if (snapshot_every < 0)
      throw invalid_argument("--snapshot-every must be >= 1 (steps between snapshots), got " +
                             std::to_string(snapshot_every));
    if (!snapshot.empty() && snapshot_every == 0)
      throw invalid_argument("--snapshot needs --snapshot-every K, K >= 1 steps between snapshots");
    if (snapshot_every > 0 && snapshot.empty())
      throw invalid_argument("--snapshot-every needs --snapshot FILE");
    if (plot_curves < 2 || plot_curves > 12) throw invalid_argument("--plot-curves must be in 2 .. 12");
    if (bench && (bench_steps < 1 || bench_warmup < 0))
      throw invalid_argument("--bench-steps must be >= 1, --bench-warmup >= 0");
  }
};

struct settings {
  heat::grid_problem problem;
  heat::initial_condition ic;
  heat::step_options step;
  heat::run_options run;
  app_options app;
};

// The command line as given, before it is resolved into settings.
struct command_line {
  settings s;
  long n = s.problem.n;  // wider than index_t, to name a too-large N
  std::string bc, left, right;
  std::optional<double> rtol;
};

std::string usage_text(const settings& d) {
  return "Usage: heat1d [options]\n"
         "\n"
         "Solves the heat equation u_t = kappa u_xx on [0, L] for 0 <= t <= T on a grid of N\n"
         "points x_i = i L / (N - 1) (second-order central differences), and prints a summary.\n"
         "With no options: N = " +
         std::to_string(d.problem.n) + ", " + heat::describe(d.ic) +
         " initial profile, zero Dirichlet ends, T = " + format_g(d.run.final_time) +
         ",\n"
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
         "            after at least one iteration (a step smaller than rtol is still taken)\n"
         "  jacobi    weighted Jacobi (--omega), warm-started, same criterion\n"
         "  direct    tridiagonal elimination: Thomas on the CPU, a partitioned Thomas on the GPU\n"
         "\n"
         "Boundary conditions (--left, --right, or --bc for both):\n"
         "  dirichlet[:V]   u = V at that end (default V = 0)\n"
         "  neumann[:G]     outward normal derivative du/dn = G (-u_x at x = 0, u_x at x = L);\n"
         "                  G > 0 lets heat in; default 0 (insulated); 'insulated' = neumann:0\n"
         "Initial conditions (--ic):\n"
         "  sin:K           sin(K pi x / L), K = 1, 2, ...\n"
         "  gauss:X0:W      exp(-(x - X0)^2 / (2 W^2))\n"
         "  step:X0         1 for x < X0, 0 for x > X0 (1/2 at X0)\n"
         "  file:PATH       N numbers (whitespace separated, '#' comments), one per grid point;\n"
         "                  a file compressed by gzip, bzip2, xz or zstd is read as its text\n"
         "Dirichlet ends override the initial value there.\n"
         "\n"
         "Options";
}

const char* trailer_text =
    "\n"
    "Time: give --dt or --steps (not both); the step count is ceil(T / dt) and dt is then\n"
    "adjusted down to T / steps so that the run ends exactly at T. Without either: 100\n"
    "steps for implicit / cn, and 0.9 of the largest stable dt for explicit.\n"
    "--steady runs until the distance to the steady state a step's change implies,\n"
    "max |u' - u| rho / (1 - rho) (rho: how much the slowest mode shrinks a step at this\n"
    "dt), is below --steady-tol (at most --max-steps steps) instead of to T; it needs a\n"
    "steady state to exist (not two Neumann ends with net inflow). The profile is then\n"
    "checked against the steady state (linear in x): steps whose own errors (the solve's\n"
    "rtol, rounding) hold them farther off end the run with exit 2 and what to change.\n"
    "\n"
    "Outputs: --output FILE: the final profile, lines 'x<TAB>u' (no header). Any one output\n"
    "may be '-' (or /dev/stdout), standard output; the text summary then goes to stderr.\n"
    "A file name ending in .gz is written gzip-compressed.\n"
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
    "the CSR operators (naming one selects --operator csr); the default --operator stencil\n"
    "uses the solver's own 3-point stencil kernel (builds no matrix, reads only the\n"
    "vectors; explicit steps go several per pass over memory). --bench times steps with CUDA events after\n"
    "warm-up, measures the device copy bandwidth in the same process, and reports bytes\n"
    "per step / per CG iteration against that bandwidth.\n"
    "\n"
    "A run that may use the GPU (an NVIDIA device node exists) forks first; the\n"
    "process started ends with the run's code and output, the child tears the CUDA\n"
    "context down after that (PERRON_TEARDOWN=wait keeps one process).\n"
    "\n"
    "Exit codes: 0 ok; 2 a step's linear solve did not converge, the solution became\n"
    "NaN or inf (checked at steps 256, 512, 1024, ..., then every 65536, and at each\n"
    "snapshot and plotted step: the run stops at the first check that finds it), or the\n"
    "steady state was not reached (outputs are still written: snapshots up to the last\n"
    "good step, the profile where the run stopped); 64 bad command line or option\n"
    "value; 65 bad initial-condition file content, a grid larger than the memory free,\n"
    "or values whose steps would overflow; 66 unreadable file; 70 CUDA failure or no\n"
    "GPU for --device cuda; 71 internal error.\n";

// A numeric option stored straight into its field; --help prints the field's
// value, the struct's default.
std::string default_text(double v) {
  std::string s = format_g(v);  // "1e-08" prints as "1e-8"
  const std::size_t e = s.find("e-0");
  if (e != std::string::npos) s.erase(e + 2, 1);
  return s;
}
std::string default_text(long v) { return std::to_string(v); }
std::string default_text(int v) { return std::to_string(v); }
template <class V>
po::typed_value<V>* stored(V& field) {
  return po::value<V>(&field)->default_value(field, default_text(field));
}

// An enum option given by name: --help prints the default's name, the
// notifier parses into the field (invalid_argument on an unknown name).
template <class E, class Parse>
po::typed_value<std::string>* named(E& field, Parse parse) {
  return po::value<std::string>()
      ->default_value(std::string(name(field)))
      ->notifier([&field, parse](const std::string& s) { field = parse(s); });
}

// An option without a default: the notifier sets the optional field.
template <class V>
po::typed_value<V>* given(std::optional<V>& field) {
  return po::value<V>()->notifier([&field](const V& v) { field = v; });
}

po::options_description make_options(command_line& c) {
  settings& s = c.s;
  heat::step_options& st = s.step;
  app_options& a = s.app;
  po::options_description o(usage_text(s));
  const std::string default_end = " (default " + heat::describe(s.problem.left) + ")";
  const std::string rtol_help =
      "relative residual per step for cg / jacobi, below 1 (default " +
      default_text(default_rel_tol<double>()) + " double; float: max(" +
      default_text(default_rel_tol<float>()) +
      ", 5e-7 (1 + 4 theta r)), near what float rounding allows; past 1e-3 the run is "
      "refused)";
  // clang-format off
  o.add_options()
    ("help,h", "print this help and exit")
    ("N,n", stored(c.n), "grid points, >= 3 (both ends included)")
    ("L", stored(s.problem.length), "domain length, > 0")
    ("kappa", stored(s.problem.kappa), "diffusivity, >= 0")
    ("T", stored(s.run.final_time), "final time, >= 0")
    ("dt", given(s.run.dt), "time step, > 0")
    ("steps", given(s.run.steps), "number of steps to reach T, >= 1")
    ("method,m", named(st.scheme, heat::parse_method), "explicit | implicit | cn")
    ("solver,s", named(st.solver, heat::parse_step_solver), "cg | jacobi | direct (implicit and cn)")
    ("kernel,k", named(st.kernel, parse_spmv_kernel),
     ("SpMV kernel on the GPU: " + spmv_kernel_names() + " (cpu forces the CPU path)").c_str())
    ("operator", named(st.form, heat::parse_operator_form),
     "stencil (GPU 3-point stencil kernel, no matrix) | csr (assembled matrix through --kernel)")
    ("precision,p", named(a.prec, parse_precision), "double | float")
    ("device,d", named(a.device, parse_device_choice), "auto | cpu | cuda; auto: the GPU when usable")
    ("bc", po::value<std::string>(&c.bc), "boundary condition at both ends (see above)")
    ("left", po::value<std::string>(&c.left), ("boundary condition at x = 0" + default_end).c_str())
    ("right", po::value<std::string>(&c.right), ("boundary condition at x = L" + default_end).c_str())
    ("ic", po::value<std::string>()->default_value(heat::describe(s.ic))
               ->notifier([&s](const std::string& v) { s.ic = heat::parse_initial_condition(v); }),
     "initial condition (see above)")
    ("rtol", given(c.rtol), rtol_help.c_str())
    ("atol", stored(st.stop.abs_tol), "absolute residual: a step is solved when ||b - A u|| <= max(rtol ||b||, atol)")
    ("max-iter", stored(st.stop.max_iterations), "iterations per step for cg / jacobi")
    ("omega", stored(st.omega),
     "Jacobi weight, in (0, 2); it converges below 2 / lambda_max(D^-1 A), near 1 where r is large (1 always "
     "does)")
    ("check-interval", stored(st.check_interval), "GPU: fewest iterations between two host looks at the convergence flag")
    ("steady", po::bool_switch(&s.run.steady), "run to the steady state instead of to T")
    ("steady-tol", stored(s.run.steady_tol), "--steady stops when the implied distance to the steady state is below this")
    ("max-steps", stored(s.run.max_steps), "--steady gives up after this many steps")
    ("force", po::bool_switch(&st.force), "run explicit steps even when r > 1/2 (unstable)")
    ("output,o", po::value<std::string>(&a.output)->value_name("FILE"), "final profile as TSV 'x<TAB>u'")
    ("snapshot", po::value<std::string>(&a.snapshot)->value_name("FILE"), "snapshots as TSV 't<TAB>x<TAB>u'")
    ("snapshot-every", stored(a.snapshot_every), "steps between snapshots (needs --snapshot)")
    ("json", po::value<std::string>(&a.json)->value_name("FILE"), "JSON summary to FILE ('-': stdout)")
    ("plot", po::value<std::string>(&a.plot)->value_name("FILE.svg"), "SVG plot of u(x) at several times")
    ("plot-curves", stored(a.plot_curves), "profiles in the plot (2 .. 12)")
    ("bench", po::bool_switch(&a.bench), "GPU benchmark: time --bench-steps steps after --bench-warmup")
    ("bench-steps", stored(a.bench_steps), "timed steps for --bench")
    ("bench-warmup", stored(a.bench_warmup), "untimed steps before --bench timing")
    ("no-progress", po::bool_switch(&a.no_progress), "never draw the progress bar");
  // clang-format on
  return o;
}

// The settings resolved: the device and kernel chosen, the step size and
// count planned, the default tolerance applied, every option checked once
// (by its struct's validate()).
struct plan {
  settings s;
  long steps = 0;           // to T (not --steady)
  bool rtol_given = false;  // --rtol on the command line (--steady may tighten the default)
  bool is_float() const { return s.app.prec == precision::single_precision; }
};

// No output may be an input (the initial-condition file), nor two outputs one file.
void check_outputs(const settings& s) {
  const std::vector<std::string> inputs = {s.ic.path};
  const std::vector<std::pair<std::string_view, std::string>> outputs = {{"--output", s.app.output},
                                                                         {"--snapshot", s.app.snapshot},
                                                                         {"--json", s.app.json},
                                                                         {"--plot", s.app.plot}};
  for (const auto& [option, file] : outputs)
    if (!file.empty()) io::check_not_an_input(file, inputs, option);
  // By any spelling: '-o u.tsv --json ./u.tsv' wrote the JSON over the profile.
  io::check_distinct_outputs(outputs);
  // '-' at most once: '-o - --json -' printed the profile and the JSON into one stream.
  io::check_one_standard_output(outputs);
}

// The text summary's stream: stderr when an output goes to stdout ('-o -'
// printed the summary's lines after the profile's).
std::ostream& summary_stream(const app_options& a) {
  for (const std::string* f : {&a.output, &a.snapshot, &a.plot})
    if (*f == "-") return std::cerr;
  return std::cout;
}

heat::device resolve_device(device_choice d, spmv_kernel kernel) {
  if (d == device_choice::cpu || kernel == spmv_kernel::cpu) {
    if (d == device_choice::cuda) throw invalid_argument("--kernel cpu contradicts --device cuda");
    return heat::device::cpu;
  }
  if (d == device_choice::cuda) return heat::device::cuda;
  return cuda::available() ? heat::device::cuda : heat::device::cpu;
}

// Bad values are usage errors (exit 64): invalid_argument becomes usage_error.
plan make_plan(const command_line& c) {
  plan pl{c.s};
  settings& s = pl.s;
  try {
    if (c.n > long(max_index))
      throw invalid_argument("--N = " + std::to_string(c.n) + " exceeds the 32-bit index limit");
    heat::check_grid_points(c.n);  // as given: clamped to int, -3000000000 was named -2147483648
    s.problem.n = static_cast<index_t>(c.n);
    // --bc sets both ends, which --left and --right then both replaced: it went unread, without a word.
    if (!c.bc.empty() && !c.left.empty() && !c.right.empty())
      throw invalid_argument(
          "--bc sets both ends, and --left and --right set them again: give --bc, or --left and --right");
    if (!c.bc.empty()) s.problem.left = s.problem.right = heat::parse_boundary(c.bc);
    if (!c.left.empty()) s.problem.left = heat::parse_boundary(c.left);
    if (!c.right.empty()) s.problem.right = heat::parse_boundary(c.right);
    s.problem.validate();
    s.step.where = resolve_device(s.app.device, s.step.kernel);
    // Under --device auto, a GPU kernel or --bench with no GPU to run on is
    // the CUDA failure (exit 70, as pagerank's), not a bad command line.
    if (s.app.device == device_choice::automatic && s.step.where == heat::device::cpu) {
      const std::string why = cuda::why_unavailable();
      if (s.step.kernel != spmv_kernel::automatic && s.step.kernel != spmv_kernel::cpu)
        throw cuda_error("--kernel " + std::string(name(s.step.kernel)) + " runs on the GPU: " + why);
      if (s.app.bench) throw cuda_error("--bench times the GPU: " + why);
    }
    if (s.step.where == heat::device::cpu && s.step.kernel == spmv_kernel::automatic)
      s.step.kernel = spmv_kernel::cpu;
    // Naming a GPU SpMV kernel asks for the CSR operators it runs on.
    if (s.step.where == heat::device::cuda && s.step.kernel != spmv_kernel::automatic)
      s.step.form = heat::operator_form::csr;
    if (s.app.bench && s.step.where != heat::device::cuda)
      throw invalid_argument("--bench times the GPU: no CUDA device in use");
    s.run.validate(s.problem);
    const heat::time_plan tp = heat::plan_time(s.problem, s.step.scheme, s.run);
    s.step.dt = tp.dt;
    pl.steps = tp.steps;
    s.step.stop.rel_tol = c.rtol ? *c.rtol : heat::default_step_rel_tol(s.problem, s.step, pl.is_float());
    pl.rtol_given = c.rtol.has_value();
    s.step.validate(s.problem);
    s.app.validate();
    // '-o /dev/stdout' is '-o -': the text summary went after the profile in the same stream.
    for (std::string* f : {&s.app.output, &s.app.snapshot, &s.app.json, &s.app.plot})
      if (io::names_standard_output(*f)) *f = "-";
    check_outputs(s);
  } catch (const invalid_argument& e) {
    throw usage_error(e.what());
  }
  return pl;
}

// A run of 10^11 point updates or more (a minute or more on a CPU) says so
// before it starts, and an explicit one why: 'heat1d -m explicit -n 30001'
// planned 2 * 10^8 steps (dt under the stability limit, 0.5 dx^2 / kappa)
// and ran for hours with no word where stderr was no terminal (no progress bar).
// A step also costs a fixed time whatever N, counted here as the point updates
// it would buy: on the development machine's CPU (2 cores) a step of N = 3
// took 0.44 us explicit and 5.9 us implicit or cn (CG's regions), a point
// update about 1 ns, so '--N 3 -m explicit --T 1 --dt 1e-9' (10^9 steps,
// minutes) said nothing.
void note_long_run(const plan& pl) {
  const settings& s = pl.s;
  if (s.run.steady || s.app.bench) return;
  const double updates = double(pl.steps) * double(s.problem.n);
  const double per_step = s.step.scheme == heat::method::explicit_euler ? 500 : 5000;
  if (updates + double(pl.steps) * per_step < 1e11) return;
  std::cerr << "heat1d: " << pl.steps << " steps of dt = " << s.step.dt << " on " << s.problem.n
            << " points planned, " << updates << " point updates";
  if (s.step.scheme == heat::method::explicit_euler)
    std::cerr << " (explicit steps stay under the stability limit dt <= 0.5 dx^2 / kappa; --method cn "
                 "or implicit take any dt, --dt or --steps sets it)";
  std::cerr << "\n";
}

// ---- outputs ----------------------------------------------------------------------

// Every output goes through io::output_file: a temporary beside the target,
// renamed into place when complete, so a failed run leaves no truncated file
// and any earlier one intact. Numbers as "%.17g" (every bit of a double).
void write_profile(const std::string& path, const heat::grid_problem& p, const std::vector<double>& u) {
  io::output_file f(path);
  for (index_t i = 0; i < p.n; ++i) std::fprintf(f.get(), "%.17g\t%.17g\n", p.x(i), u[i]);
  f.commit();
}

// --snapshot: blocks of 't<TAB>x<TAB>u' lines, a blank line after each.
class snapshot_file {
 public:
  snapshot_file(const app_options& a, const heat::grid_problem& p)
      : path_(a.snapshot), every_(a.snapshot_every), p_(p) {
    if (!path_.empty()) f_.emplace(path_);
  }
  bool due(long k, bool last) const { return f_ && (k % every_ == 0 || last); }
  void write(double t, const std::vector<double>& u) {
    if (!f_) return;
    for (index_t i = 0; i < p_.n; ++i) std::fprintf(f_->get(), "%.17g\t%.17g\t%.17g\n", t, p_.x(i), u[i]);
    std::fputc('\n', f_->get());
  }
  void close() {
    if (f_) f_->commit();
    f_.reset();
  }

 private:
  std::string path_;
  long every_;
  const heat::grid_problem& p_;
  std::optional<io::output_file> f_;
};

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

// Which steps feed the plot: evenly spaced to T, or 0, 1, 2, 4, ... when steady.
class plot_sampler {
 public:
  explicit plot_sampler(const plan& pl) : enabled_(!pl.s.app.plot.empty()), steady_(pl.s.run.steady) {
    const int curves = pl.s.app.plot_curves;
    if (enabled_ && !steady_)
      for (int k = 1; k < curves; ++k) at_.push_back(std::lround(double(pl.steps) * k / (curves - 1)));
  }
  bool enabled() const { return enabled_; }
  bool take(long k, bool last) {
    if (!enabled_) return false;
    if (!steady_) return std::find(at_.begin(), at_.end(), k) != at_.end();
    const bool power = k == next_power_;
    if (power) next_power_ *= 2;
    return power || last;
  }

 private:
  bool enabled_, steady_;
  std::vector<long> at_;
  long next_power_ = 1;
};

// Keeps `count` of the curves, evenly spaced, the first and the last among them.
void thin_curves(std::vector<curve>& curves, int count) {
  if (curves.size() <= std::size_t(count)) return;
  std::vector<curve> keep;
  for (int k = 0; k < count; ++k)
    keep.push_back(curves[std::size_t(std::lround(double(curves.size() - 1) * k / (count - 1)))]);
  curves.swap(keep);
}

// ---- the run ----------------------------------------------------------------------

struct run_stats {
  long steps = 0;
  long iterations = 0;
  int max_iterations = 0;
  long host_syncs = 0;
  double last_change = -1;
  double contraction = 0;     // --steady: rho, the slowest mode's factor a step (heat::steady_contraction)
  double last_distance = -1;  // --steady: the distance to the steady state the last change implies
  bool failed = false;
  long failed_step = 0;  // 1-based step that failed
  heat::step_report failure;
  bool steady_reached = false;
  // --steady: where the last change said "reached" but the profile was this
  // far (max |u - u_steady|) off the steady state; -1 otherwise.
  double stalled_off = -1;
  // The last step checked finite (run_steps, next_check): a run that turns
  // NaN or inf stops at the first check after (it ran to T: 500 steps of NaN).
  long finite_step = 0;
};

// The step after `finite` (the last one checked finite) that is checked
// next: 256, 512, 1024, ... then every 65536. A check is a reduction and a
// host sync that drains the queue of launched steps: every 256 steps cost
// 7.8% of the explicit steps of N = 10^5 on an H100 (22 us a check), the
// doubling 0.1%; a blow-up runs at most as many steps again as it ran
// finite, or 65536.
long next_check(long finite) { return finite + std::clamp(finite, 256L, 65536L); }

// What a run produced: everything the summaries and the plot report. The
// profiles u0 and u come to the host only for the outputs that print them
// (snapshots, plot: u0; --output: u); integrals and errors are reduced where
// the state lives.
struct run_record {
  std::vector<double> u0;              // snapshots and plot only
  double integral0 = 0, integral = 0;  // trapezoid integrals of u at the start and the end
  run_stats st;
  std::vector<curve> curves;
  std::optional<bench::heat_bench_report> bench;
  double setup_s = 0, run_s = 0;
  double t_end = 0, r = 0;
  std::string kernel_name;
  std::optional<heat::closed_form> exact;
  std::string reference;
  double max_error = std::nan("");
  bool finite() const { return std::isfinite(integral); }  // a NaN or inf anywhere in u makes it so
};

std::string progress_text(const plan& pl, long k, long limit, double t, const heat::step_report& r,
                          double distance, double elapsed) {
  std::ostringstream line;
  if (pl.s.run.steady) {
    line << "step " << k << "  t = " << format_g(t, 4) << "  distance ~ " << format_g(distance, 3)
         << " (target " << format_g(pl.s.run.steady_tol, 3) << ")  " << format_duration(elapsed);
  } else {
    const double f = double(k) / double(limit);
    const int width = 30, fill = static_cast<int>(f * width);
    line << '[' << std::string(fill, '#') << std::string(width - fill, ' ') << "] " << int(f * 100)
         << "%  step " << k << '/' << limit << "  t = " << format_g(t, 4) << "  ETA "
         << format_duration(elapsed / f * (1 - f));
  }
  if (heat::iterates(pl.s.step)) line << "  it " << r.iterations;
  return line.str();
}

// --bench: bench/heat1d_bench times the steps; the summary's per-step figures are
// the timed steps'.
template <class T>
void run_bench(heat::time_stepper<T>& ts, const plan& pl, run_record& rec, stopwatch& sw) {
  const app_options& a = pl.s.app;
  rec.bench = bench::time_heat_steps(ts, a.bench_warmup, a.bench_steps);
  rec.run_s = sw.lap();
  for (const auto& [k, ms] : rec.bench->blocked_ms_per_step)
    std::cout << "bench: " << k << " steps per pass: " << format_g(ms, 4) << " ms per step ("
              << format_g(rec.bench->step_ms_median / ms, 3) << "x the one-step pass)\n";
  if (rec.bench->library_direct_step_ms > 0)
    std::cout << "bench: direct step, own partitioned solve " << format_g(rec.bench->step_ms_median, 4)
              << " ms, cuSPARSE gtsv2_nopivot " << format_g(rec.bench->library_direct_step_ms, 4) << " ms\n";
  run_stats& st = rec.st;
  st.steps = a.bench_warmup + a.bench_steps;
  st.iterations = std::lround(rec.bench->iterations_per_step * double(st.steps));
  st.host_syncs = std::lround(rec.bench->host_syncs_per_step * double(st.steps));
  st.max_iterations = static_cast<int>(std::ceil(rec.bench->iterations_per_step));
}

// Steps to T (or to the steady state), writing snapshots and sampling the plot.
template <class T>
void run_steps(heat::time_stepper<T>& ts, const plan& pl, run_record& rec, stopwatch& sw) {
  const heat::grid_problem& p = pl.s.problem;
  const heat::run_options& run = pl.s.run;
  snapshot_file snap(pl.s.app, p);
  snap.write(0, rec.u0);
  plot_sampler plot(pl);
  if (plot.enabled()) rec.curves.push_back(make_curve(p, 0, rec.u0));
  progress_line progress(!pl.s.app.no_progress && stderr_is_terminal());
  run_stats& st = rec.st;
  const long limit = run.steady ? run.max_steps : pl.steps;
  if (run.steady) st.contraction = heat::steady_contraction(p, pl.s.step.scheme, pl.s.step.dt);
  const auto steady_state = run.steady ? heat::steady_form(p, rec.integral0) : std::nullopt;
  double last_off = -1;  // --steady: max |u - u_steady| after the step before, where measured
  // Explicit steps with no snapshot or plot sample between go in batches
  // (time_stepper::advance: several per pass over memory on the GPU).
  const bool batch = !run.steady && pl.s.step.scheme == heat::method::explicit_euler && !snap.due(1, true) &&
                     !plot.enabled();
  for (long k = 1; k <= limit; ++k) {
    const long extra = batch ? std::min<long>(255, limit - k) : 0;
    if (extra) {
      const heat::step_report skipped = ts.advance(extra);
      if (!skipped.converged) throw error("heat1d: internal error: an explicit step failed");
      k += extra;
    }
    const heat::step_report r = ts.step(run.steady);
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
    st.last_distance = heat::steady_distance(r.change, st.contraction);
    // The change tells the distance only where the steps' own errors are
    // smaller (heat::steady_floor's model), and only about (a geometric
    // tail): the steady state is known in closed form (linear in x), so once
    // the change says reached, the profile is measured against it each step.
    // Reached where it is within --steady-tol; stalled where a step no longer
    // takes half the (1 - rho) of the distance that it should (-n 1001 --dt
    // 100, cg at rtol 1e-10: "distance ~ 4e-14" 1.3e-7 off, exit 0 before),
    // and more steps do not help. Otherwise the steps go on (the tail's
    // estimate said 9.9e-11 at 1.01e-10 off a tolerance of 1e-10).
    bool done_steady = false, stalled = false;
    if (run.steady && st.last_distance < run.steady_tol) {
      if (steady_state) {
        const double off = ts.max_error(*steady_state);
        if (off <= run.steady_tol) {
          done_steady = true;
        } else if (last_off >= 0 && last_off - off < 0.5 * (1 - st.contraction) * last_off) {
          st.stalled_off = off;
          stalled = true;
        }
        last_off = off;
      } else {
        done_steady = true;
      }
    } else {
      last_off = -1;
    }
    const double t = ts.time();
    const bool last = k == limit || done_steady || stalled;
    const bool snap_due = snap.due(k, last);
    const bool plot_due = plot.take(k, last) && (rec.curves.empty() || rec.curves.back().t != t);
    if (snap_due || plot_due) {
      // A profile on the host anyway: checked before it is written (the help's "snapshots up to
      // the last good step": those between two checks held NaN).
      const std::vector<double> u = ts.solution();
      if (!std::all_of(u.begin(), u.end(), [](double v) { return std::isfinite(v); }))
        break;  // the summary and error say where
      st.finite_step = k;
      if (snap_due) snap.write(t, u);
      if (plot_due) rec.curves.push_back(make_curve(p, t, u));
    }
    if (progress.enabled())
      progress.update(progress_text(pl, k, limit, t, r, st.last_distance, sw.seconds()), last);
    if (done_steady) {
      st.steady_reached = true;
      break;
    }
    if (stalled) break;
    if (!last && k >= next_check(st.finite_step)) {
      if (!std::isfinite(ts.integral())) break;  // the summary and error say where
      st.finite_step = k;
    }
  }
  progress.clear();
  rec.integral = ts.integral();  // also waits for the device
  rec.run_s = sw.lap();
  snap.close();
}

// The error against the exact solution (or the steady state) where one is
// known: max |u - exact| reduced where u lives, the exact solution evaluated
// there from its closed form.
template <class T>
void compare_with_exact(const plan& pl, const heat::time_stepper<T>& ts, run_record& rec) {
  const heat::grid_problem& p = pl.s.problem;
  if (pl.s.run.steady && (rec.st.steady_reached || rec.st.stalled_off >= 0)) {
    rec.exact = heat::steady_form(p, rec.integral0);
    rec.reference = "steady state";
  } else if (!pl.s.run.steady) {
    rec.exact = heat::exact_form(p, pl.s.ic, rec.t_end);
    rec.reference = "exact solution at t = " + format_g(rec.t_end);
  }
  if (rec.exact) rec.max_error = ts.max_error(*rec.exact);
}

void write_plot(const plan& pl, const run_record& rec) {
  const heat::grid_problem& p = pl.s.problem;
  std::vector<plot_series> series;
  for (const auto& c : rec.curves)
    series.push_back(plot_series{"t = " + format_g(c.t, 4), c.x, c.u, "", false, 1.8});
  if (rec.exact && !rec.curves.empty()) {
    curve e = make_curve(p, rec.t_end, heat::evaluate(*rec.exact, p));
    series.push_back(
        plot_series{pl.s.run.steady ? "steady state (exact)" : "exact, t = " + format_g(rec.t_end, 4), e.x,
                    e.u, "#444444", true, 1.4});
  }
  plot_options po_;
  po_.title = "heat1d: " + std::string(heat::name(pl.s.step.scheme)) + ", N = " + std::to_string(p.n) +
              ", kappa = " + format_g(p.kappa) + ", " + heat::describe(pl.s.ic) + ", left " +
              heat::describe(p.left) + ", right " + heat::describe(p.right);
  po_.x_label = "x";
  po_.y_label = "u(x, t)";
  write_svg_line_plot(pl.s.app.plot, series, po_);
}

// ---- summaries ----------------------------------------------------------------------

const char* precision_name(bool is_float) { return is_float ? "float" : "double"; }

std::string json_bench(const bench::heat_bench_report& b) {
  std::ostringstream js;
  js << ",\n  \"bench\": {\"copy_bandwidth_gbs\": " << json_number(b.copy_bandwidth_gbs)
     << ", \"step_ms_median\": " << json_number(b.step_ms_median)
     << ", \"step_ms_min\": " << json_number(b.step_ms_min) << ", \"steps_timed\": " << b.steps_timed
     << ", \"iterations_per_step\": " << json_number(b.iterations_per_step)
     << ", \"host_syncs_per_step\": " << json_number(b.host_syncs_per_step)
     << ", \"operator_bytes\": " << json_number(b.operator_bytes)
     << ", \"bytes_per_step\": " << json_number(b.bytes_per_step)
     << ", \"cg_iteration_ms\": " << json_number(b.cg_iteration_ms)
     << ", \"bytes_per_cg_iteration\": " << json_number(b.bytes_per_cg_iteration) << "}";
  return js.str();
}

std::string json_summary(const plan& pl, const run_record& rec, double total_s) {
  const heat::grid_problem& p = pl.s.problem;
  const heat::step_options& o = pl.s.step;
  const run_stats& st = rec.st;
  const double mean_it = st.steps ? double(st.iterations) / double(st.steps) : 0;
  const double syncs_per_step = st.steps ? double(st.host_syncs) / double(st.steps) : 0;
  std::ostringstream js;
  js << "{\n"
     << "  \"N\": " << p.n << ",\n  \"L\": " << json_number(p.length)
     << ",\n  \"kappa\": " << json_number(p.kappa) << ",\n  \"dx\": " << json_number(p.dx())
     << ",\n  \"dt\": " << json_number(o.dt) << ",\n  \"r\": " << json_number(rec.r)
     << ",\n  \"T\": " << json_number(pl.s.run.steady || rec.bench ? rec.t_end : pl.s.run.final_time)
     << ",\n  \"t_final\": " << json_number(rec.t_end) << ",\n  \"steps\": " << st.steps
     << ",\n  \"method\": \"" << heat::name(o.scheme) << "\",\n  \"solver\": \""
     << (o.scheme == heat::method::explicit_euler ? std::string("none") : std::string(heat::name(o.solver)))
     << "\",\n  \"precision\": \"" << precision_name(pl.is_float()) << "\",\n  \"device\": \""
     << heat::name(o.where) << "\",\n  \"kernel\": \"" << json_escape(rec.kernel_name)
     << "\",\n  \"operator\": \"" << heat::name(o.form) << "\",\n  \"left\": \""
     << json_escape(heat::describe(p.left)) << "\",\n  \"right\": \"" << json_escape(heat::describe(p.right))
     << "\",\n  \"ic\": \"" << json_escape(heat::describe(pl.s.ic))
     << "\",\n  \"rtol\": " << json_number(o.stop.rel_tol) << ",\n  \"max_iter\": " << o.stop.max_iterations
     << ",\n  \"iterations_per_step\": {\"mean\": " << json_number(mean_it)
     << ", \"max\": " << st.max_iterations << ", \"total\": " << st.iterations
     << "},\n  \"host_syncs\": {\"total\": " << st.host_syncs << ", \"per_step\": "
     << json_number(syncs_per_step)
     // A run whose values left the finite range did not converge either
     // (an explicit run has no solve to fail: it said true beside "finite": false).
     << "},\n  \"converged\": " << (st.failed || !rec.finite() ? "false" : "true")
     << ",\n  \"failed_step\": " << (st.failed ? std::to_string(st.failed_step) : "null")
     << ",\n  \"failure_residual\": " << (st.failed ? json_number(st.failure.residual) : "null");
  if (pl.s.run.steady)
    js << ",\n  \"steady\": {\"tol\": " << json_number(pl.s.run.steady_tol)
       << ", \"reached\": " << (st.steady_reached ? "true" : "false")
       << ", \"final_change\": " << json_number(st.last_change)
       << ", \"contraction\": " << json_number(st.contraction)
       << ", \"estimated_distance\": " << json_number(st.last_distance)
       << ", \"stalled_off\": " << (st.stalled_off >= 0 ? json_number(st.stalled_off) : "null") << "}";
  js << ",\n  \"max_error\": " << json_number(rec.max_error) << ",\n  \"error_reference\": "
     << (rec.exact ? "\"" + json_escape(rec.reference) + "\"" : std::string("null"))
     << ",\n  \"finite\": " << (rec.finite() ? "true" : "false")
     << ",\n  \"integral\": {\"initial\": " << json_number(rec.integral0)
     << ", \"final\": " << json_number(rec.integral)
     << "},\n  \"timings\": {\"setup_s\": " << json_number(rec.setup_s)
     << ", \"run_s\": " << json_number(rec.run_s)
     << ", \"per_step_ms\": " << json_number(st.steps ? rec.run_s / double(st.steps) * 1e3 : 0.0)
     << ", \"total_s\": " << json_number(total_s) << "}";
  if (rec.bench) js << json_bench(*rec.bench);
  js << "\n}\n";
  return js.str();
}

// Each step's bytes against the copy bandwidth: the floor a step (or a CG
// iteration) could reach if it only moved its minimum traffic.
std::string text_bench(const bench::heat_bench_report& b, bool iterative_steps) {
  std::ostringstream o;
  const double floor_ms = b.bytes_per_step / (b.copy_bandwidth_gbs * 1e9) * 1e3;
  o << "bench (" << cuda::device_description() << "): device copy " << format_g(b.copy_bandwidth_gbs, 4)
    << " GB/s\n"
    << "  step: median " << format_g(b.step_ms_median, 4) << " ms, min " << format_g(b.step_ms_min, 4)
    << " ms over " << b.steps_timed << " steps";
  if (iterative_steps)
    o << "; " << format_g(b.iterations_per_step, 4) << " iterations, " << format_g(b.host_syncs_per_step, 3)
      << " host syncs per step";
  o << '\n';
  if (b.bytes_per_step > 0)
    o << "  step bytes " << format_g(b.bytes_per_step / 1e9, 4) << " GB: floor " << format_g(floor_ms, 4)
      << " ms; achieved " << format_g(b.bytes_per_step / (b.step_ms_median * 1e-3) / 1e9, 4)
      << " GB/s = " << format_g(100 * floor_ms / b.step_ms_median, 3) << "% of copy bandwidth\n";
  if (b.cg_iteration_ms > 0) {
    const double it_floor = b.bytes_per_cg_iteration / (b.copy_bandwidth_gbs * 1e9) * 1e3;
    o << "  CG iteration: " << format_g(b.cg_iteration_ms, 4) << " ms; bytes "
      << format_g(b.bytes_per_cg_iteration / 1e9, 4) << " GB (operator "
      << format_g(b.operator_bytes / 1e9, 4) << " GB): floor " << format_g(it_floor, 4) << " ms; ratio "
      << format_g(b.cg_iteration_ms / it_floor, 3) << "x\n";
  }
  return o.str();
}

std::string text_summary(const plan& pl, const run_record& rec) {
  const heat::grid_problem& p = pl.s.problem;
  const heat::step_options& s = pl.s.step;
  const run_stats& st = rec.st;
  const bool it = heat::iterates(s);
  std::ostringstream o;
  o << "heat1d: N = " << p.n << ", L = " << format_g(p.length) << ", kappa = " << format_g(p.kappa)
    << ", dx = " << format_g(p.dx()) << "; left " << heat::describe(p.left) << ", right "
    << heat::describe(p.right) << "; initial " << heat::describe(pl.s.ic) << '\n';
  o << "method " << heat::name(s.scheme);
  if (s.scheme != heat::method::explicit_euler) {
    o << ", solver " << heat::name(s.solver);
    if (it) o << " (rtol " << format_g(s.stop.rel_tol) << ")";
  }
  o << ", " << precision_name(pl.is_float()) << " on " << heat::name(s.where);
  if (s.where == heat::device::cuda)
    o << " (" << (s.form == heat::operator_form::stencil ? "stencil operator" : "SpMV " + rec.kernel_name)
      << ")";
  o << '\n';
  o << "time: dt = " << format_g(s.dt) << ", r = kappa dt / dx^2 = " << format_g(rec.r) << ", " << st.steps
    << " steps to t = " << format_g(rec.t_end) << '\n';
  if (it && !rec.bench)
    o << "iterations per step: mean " << format_g(st.steps ? double(st.iterations) / double(st.steps) : 0, 4)
      << ", max " << st.max_iterations << "; host syncs per step "
      << format_g(st.steps ? double(st.host_syncs) / double(st.steps) : 0, 3) << '\n';
  if (pl.s.run.steady && st.last_distance < 0) {
    o << "steady state: NOT reached, no step completed\n";
  } else if (pl.s.run.steady && st.stalled_off >= 0) {
    o << "steady state: NOT reached, stalled " << format_g(st.stalled_off, 3) << " off it (tol "
      << format_g(pl.s.run.steady_tol) << "), where the last max|du| = " << format_g(st.last_change, 3)
      << " implied ~ " << format_g(st.last_distance, 3) << '\n';
  } else if (pl.s.run.steady) {
    o << "steady state: " << (st.steady_reached ? "reached" : "NOT reached") << ", distance ~ "
      << format_g(st.last_distance, 3) << " (tol " << format_g(pl.s.run.steady_tol)
      << ") from the last max|du| = " << format_g(st.last_change, 3)
      << " and rho = " << format_g(st.contraction, 10) << " a step\n";
  }
  if (rec.exact) o << "max error vs " << rec.reference << ": " << format_g(rec.max_error, 4) << '\n';
  o << "integral of u: " << format_g(rec.integral0, 12) << " -> " << format_g(rec.integral, 12) << '\n';
  o << "time: setup " << format_g(rec.setup_s, 3) << " s, stepping " << format_g(rec.run_s, 3) << " s";
  if (st.steps && !rec.bench) o << " (" << format_g(rec.run_s / double(st.steps) * 1e3, 3) << " ms/step)";
  o << '\n';
  if (rec.bench) o << text_bench(*rec.bench, it);
  return o.str();
}

// How many more steps the steady state needs at this rho, for the error
// message: the distance shrinks by rho a step. A larger --dt helps implicit
// steps (rho -> 0 as dt grows), not Crank-Nicolson's (its fast modes -> -1).
std::string steps_left(const run_stats& st, double tol) {
  if (!(st.contraction < 1)) return ": it does not decay at this dt";
  if (!(st.last_distance > tol) || !std::isfinite(st.last_distance)) return "";
  const double more = std::log(st.last_distance / tol) / -std::log(st.contraction);
  return ": about " + format_g(std::ceil(more), 3) + " more steps at this --dt";
}

// "a, b, or c": the remedies a message offers, as a list that reads.
std::string one_of(const std::vector<std::string>& fixes) {
  std::string use;
  for (std::size_t k = 0; k < fixes.size(); ++k)
    use += (k == 0 ? "" : k + 1 == fixes.size() ? ", or " : ", ") + fixes[k];
  return use;
}

// A failed step or an unreached steady state: one line on stderr, exit 2.
int report_end(const plan& pl, const run_record& rec) {
  const run_stats& st = rec.st;
  const heat::step_options& o = pl.s.step;
  if (st.failed) {
    std::cerr << "heat1d: error: step " << st.failed_step << " (t = " << format_g(rec.t_end + o.dt)
              << "): " << heat::name(o.solver) << " did not converge: relative residual "
              << format_g(st.failure.residual, 3) << " > rtol " << format_g(o.stop.rel_tol) << " after "
              << st.failure.iterations << " iterations (" << name(st.failure.status)
              << "); outputs hold the profile at t = " << format_g(rec.t_end) << " (step " << st.steps
              << ")\n";
    return not_converged;
  }
  if (!rec.finite()) {
    const bool blown = o.scheme == heat::method::explicit_euler && rec.r > heat::max_stable_r;
    std::cerr << "heat1d: error: the solution is not finite at t = " << format_g(rec.t_end) << " (step "
              << st.steps << (st.finite_step > 0 ? "; finite at step " + std::to_string(st.finite_step) : "")
              << "): its integral is " << format_g(rec.integral) << ", NaN or inf values ("
              << precision_name(pl.is_float()) << ", r = kappa dt / dx^2 = " << format_g(rec.r, 3) << ": "
              << (blown           ? "explicit steps with r > 1/2 are unstable"
                  : pl.is_float() ? "float cannot carry this step; use --precision double or a smaller --dt"
                                  : "use a smaller --dt")
              << "); the run stopped there, outputs hold that profile\n";
    return not_converged;
  }
  if (o.scheme == heat::method::explicit_euler && rec.r > heat::max_stable_r * (1 + 1e-12))
    std::cerr << "heat1d: warning: explicit steps with r = kappa dt / dx^2 = " << format_g(rec.r, 3)
              << " > 1/2 are unstable (--force): a mode's error grows up to |1 - 4r| = "
              << format_g(std::abs(1 - 4 * rec.r), 3) << " times a step, so this profile, finite as it is, "
              << "need not be the heat equation's\n";
  if (pl.s.run.steady && st.stalled_off >= 0) {
    // What lowers a step's own error: its solve's tolerance, the exact solve,
    // double's rounding; else a tolerance the steps reach.
    std::vector<std::string> fixes;
    if (heat::iterates(o)) {
      fixes.push_back("a smaller --rtol (it is " + format_g(o.stop.rel_tol) + ")");
      fixes.push_back("--solver direct");
    }
    if (pl.is_float()) fixes.push_back("--precision double");
    fixes.push_back("--steady-tol " + format_g(2 * st.stalled_off, 2));
    const std::string use = one_of(fixes);
    std::cerr << "heat1d: error: steady state not reached: the steps stalled " << format_g(st.stalled_off, 3)
              << " off it (max |u - u_steady|) > --steady-tol " << format_g(pl.s.run.steady_tol) << " after "
              << st.steps << " steps, where their change (last max|du| = " << format_g(st.last_change, 3)
              << ") implied ~ " << format_g(st.last_distance, 3) << ": each step's own error ("
              << (heat::iterates(o) ? "its solve's tolerance and " : "") << precision_name(pl.is_float())
              << " rounding) holds them there; use " << use << "; outputs hold the last profile\n";
    return not_converged;
  }
  if (pl.s.run.steady && !st.steady_reached) {
    std::cerr << "heat1d: error: steady state not reached in " << st.steps << " steps: distance ~ "
              << format_g(st.last_distance, 3) << " > --steady-tol " << format_g(pl.s.run.steady_tol)
              << " (last max|du| = " << format_g(st.last_change, 3)
              << ", the slowest mode shrinks by rho = " << format_g(st.contraction, 10) << " a step"
              << steps_left(st, pl.s.run.steady_tol) << "); outputs hold the last profile\n";
    return not_converged;
  }
  return ok;
}

// The summaries: JSON to stdout ('-'), or JSON to a file and the text to stdout.
// `files`, the run's other files, replace their targets with the JSON file's,
// before the summary says they were written.
void write_summaries(const plan& pl, const run_record& rec, double total_s, io::commit_together& files) {
  const std::string& json = pl.s.app.json;
  const std::string js = json.empty() ? std::string() : json_summary(pl, rec, total_s);
  if (!json.empty() && json != "-") {
    io::output_file f(json);
    f.write(js);
    f.commit();
  }
  files.commit();
  if (json == "-") {
    std::cout << js;
    return;
  }
  summary_stream(pl.s.app) << text_summary(pl, rec);
}

std::string kernel_label(const heat::step_options& o, spmv_kernel used) {
  if (o.where != heat::device::cuda) return "cpu";
  return o.form == heat::operator_form::stencil ? "stencil" : std::string(name(used));
}

// --steady in T once the initial profile is known: the step solves' default
// tolerance tightened (double) until their own errors leave the steps well
// inside --steady-tol, and a usage error where they cannot get there at all
// (heat::steady_floor): the change of a stalled step is 0 however far off it is.
template <class T>
plan steady_plan(plan pl, const heat::initial_condition& ic) {
  if (!pl.s.run.steady) return pl;
  heat::step_options& o = pl.s.step;
  const double u = std::numeric_limits<T>::epsilon() / 2;
  double u0_bound = 1;  // sin, gauss, step
  for (double v : ic.values) u0_bound = std::max(u0_bound, std::abs(v));
  const double tol = pl.s.run.steady_tol;
  if (!pl.rtol_given && !pl.is_float())
    o.stop.rel_tol = heat::steady_rel_tol(pl.s.problem, o, o.stop.rel_tol, tol, u, u0_bound);
  const double floor = heat::steady_floor(pl.s.problem, o, u, u0_bound);
  if (!(floor <= tol)) {
    const heat::grid_problem& p = pl.s.problem;
    const double rho = heat::steady_contraction(p, o.scheme, o.dt);
    // rho > 1: explicit steps past their stable r; rho near 1: steps too
    // small for their change to outweigh their error (r tiny), or
    // Crank-Nicolson's highest mode (r huge). The step that helps is the one
    // that lowers rho.
    const bool growing = rho > 1;
    const bool larger = heat::steady_contraction(p, o.scheme, 2 * o.dt) < rho;
    const bool smaller = !larger && heat::steady_contraction(p, o.scheme, o.dt / 2) < rho;
    std::vector<std::string> fixes;
    if (smaller) fixes.push_back("a smaller --dt");
    if (pl.is_float()) fixes.push_back("--precision double");
    if (heat::iterates(o) && pl.rtol_given) fixes.push_back("a smaller --rtol");
    if (larger)
      fixes.push_back(o.scheme == heat::method::explicit_euler
                          ? "a larger --dt (at most " + format_g(heat::max_stable_dt(p), 3) +
                                ", the stable limit) or --method implicit"
                          : std::string("a larger --dt"));
    if (std::isfinite(floor)) fixes.push_back("--steady-tol " + format_g(2 * floor, 2));
    // Steps so small that doubling them leaves rho at 1 exactly (--kappa 1e-16:
    // r = 1e-15) matched none of the above, and the message ended "; use ".
    if (fixes.empty())
      fixes.push_back("a much larger --dt or --kappa (r = kappa dt / dx^2 is " +
                      format_g(p.kappa * (o.dt / (p.dx() * p.dx())), 3) + ")");
    const std::string use = one_of(fixes);
    const std::string why =
        growing
            ? "the steps do not approach the steady state at this dt (rho = " + format_g(rho, 3) + " a step)"
        : std::isfinite(floor)
            ? "these steps stall about " + format_g(floor, 3) + " off the steady state, above --steady-tol " +
                  format_g(tol) + " (each step's own error, its solve's rtol and " +
                  precision_name(pl.is_float()) +
                  " rounding, adds up rho / (1 - rho) = " + format_g(rho / (1 - rho), 3) +
                  " times at rho = " + format_g(rho, 10) + " a step)"
            : std::string("a step's change rounds away in ") + precision_name(pl.is_float()) +
                  " before it reaches the steady state: it takes 1 - rho = " + format_g(1 - rho, 3) +
                  " of the distance a step at this dt";
    throw usage_error("--steady: " + why + "; use " + use);
  }
  return pl;
}

template <class T>
int simulate(const plan& given) {
  stopwatch total;
  const heat::grid_problem& p = given.s.problem;
  run_record rec;
  const app_options& a = given.s.app;
  heat::initial_condition ic = given.s.ic;
  if (ic.type == heat::initial_condition::kind::file) ic.values = io::read_profile(ic.path, std::size_t(p.n));
  const plan pl = steady_plan<T>(given, ic);

  stopwatch sw;
  // The profile is evaluated where the state lives (on the GPU: no host
  // vector); the host gets its own copy only for the outputs that print it.
  heat::time_stepper<T> ts(p, pl.s.step, ic);
  // After the stepper's own checks (memory, the initial file, the values'
  // range): '-n 2147483647' said "100 steps ... planned" above its refusal.
  note_long_run(pl);
  rec.integral0 = ts.integral();
  rec.setup_s = sw.lap();
  if (!a.snapshot.empty() || !a.plot.empty()) rec.u0 = heat::initial_profile(ic, p);
  rec.kernel_name = kernel_label(pl.s.step, ts.kernel());
  // The snapshot, profile, plot and JSON files replace their targets
  // together, once all are written (write_summaries): a failed --plot had
  // left the snapshot and profile files replaced.
  io::commit_together files;
  if (a.bench) {
    run_bench(ts, pl, rec, sw);
    rec.integral = ts.integral();
  } else {
    run_steps(ts, pl, rec, sw);
  }
  thin_curves(rec.curves, a.plot_curves);
  rec.t_end = ts.time();
  rec.r = ts.r();
  compare_with_exact(pl, ts, rec);

  if (!a.output.empty()) write_profile(a.output, p, ts.solution());
  if (!a.plot.empty()) write_plot(pl, rec);
  write_summaries(pl, rec, total.seconds(), files);
  // The whole run, outputs included (the JSON records it as timings.total_s).
  if (pl.s.app.json != "-") summary_stream(a) << "time: whole run " << format_g(total.seconds(), 3) << " s\n";
  return report_end(pl, rec);
}

int main_body(int argc, char** argv) {
  command_line c;
  po::options_description opts = make_options(c);
  po::variables_map vm;
  store_command_line(argc, argv, opts, vm);
  if (vm.count("help")) {
    std::cout << opts << trailer_text;
    return ok;
  }
  try {
    po::notify(vm);
  } catch (const invalid_argument& e) {
    throw usage_error(e.what());
  }
  // An option given an empty value ("--output $UNSET") is refused, not taken as left out.
  for (const char* o : {"output", "snapshot", "json", "plot", "bc", "left", "right"})
    if (vm.count(o) && vm[o].as<std::string>().empty())
      throw usage_error(std::string("--") + o + " needs a value, got an empty one");
  // Options only --steady reads are refused without it (they were ignored: a
  // run to T with --steady-tol given looked like a steady run).
  for (const char* o : {"steady-tol", "max-steps"})
    if (vm.count(o) && !vm[o].defaulted() && !c.s.run.steady)
      throw usage_error(std::string("--") + o + " applies to --steady runs; add --steady or leave it out");
  // So are those only another option reads: '--plot-curves 5' without --plot,
  // '--bench-steps 20' without --bench and '--omega 1.5' with cg ran as if
  // they were not given; so did a step solve's stop rule (--max-iter, --atol,
  // --rtol, and --check-interval, which only the GPU's iterations read) where
  // no step iterates, and the message names what ignored it.
  const bool jacobi_solves =
      c.s.step.solver == heat::step_solver::jacobi && c.s.step.scheme != heat::method::explicit_euler;
  const bool iterates = heat::iterates(c.s.step);
  const char* iterating = "--solver cg or jacobi (with --method implicit or cn)";
  const char* not_iterating =
      c.s.step.scheme == heat::method::explicit_euler
          ? ", not to --method explicit, whose steps solve no system"
          : ", not to --solver direct, which solves each step exactly, without iterating";
  for (const auto& [o, applies, needs, ignored_by] :
       {std::tuple<const char*, bool, const char*, const char*>{"plot-curves", !c.s.app.plot.empty(),
                                                                "--plot FILE.svg", ""},
        {"bench-steps", c.s.app.bench, "--bench", ""},
        {"bench-warmup", c.s.app.bench, "--bench", ""},
        {"omega", jacobi_solves, "--solver jacobi (with --method implicit or cn)", ""},
        {"solver", c.s.step.scheme != heat::method::explicit_euler, "--method implicit or cn",
         ", not to --method explicit, whose steps solve no system"},
        {"check-interval", iterates, iterating, not_iterating},
        {"check-interval", c.s.app.device != device_choice::cpu && c.s.step.kernel != spmv_kernel::cpu,
         "GPU runs (--device cuda or auto)",
         ", not to --device cpu or --kernel cpu, whose solves test every iteration"},
        {"operator", c.s.app.device != device_choice::cpu && c.s.step.kernel != spmv_kernel::cpu,
         "GPU runs (--device cuda or auto)", ", not to --device cpu or --kernel cpu, which never read it"},
        {"max-iter", iterates, iterating, not_iterating},
        {"atol", iterates, iterating, not_iterating},
        {"rtol", iterates, iterating, not_iterating}})
    if (vm.count(o) && !vm[o].defaulted() && !applies)
      throw usage_error(std::string("--") + o + " applies to " + needs + ignored_by + "; choose " + needs +
                        " too, or leave --" + o + " out");
  // A run that may start CUDA leaves the context's teardown to a child
  // (apps/common/detached_exit.hpp); before make_plan, which may start it.
  if (c.s.app.device != device_choice::cpu && c.s.step.kernel != spmv_kernel::cpu) detached_exit::split();
  const plan pl = make_plan(c);
  // Under --device auto with no usable GPU the steps run on the CPU, which
  // tests every iteration: --check-interval, accepted because a GPU might
  // have run them, is said to go unread rather than dropped in silence.
  if (vm.count("check-interval") && !vm["check-interval"].defaulted() &&
      pl.s.step.where != heat::device::cuda)
    std::cerr << "heat1d: note: --check-interval is read by GPU runs; with no usable CUDA device this run is "
                 "on the CPU, which tests every iteration\n";
  // Each output that cannot be written is named before the run: a missing
  // folder or a folder named as the file was found only when written, after
  // the last step, and the run's profile and summary were lost with it.
  for (const std::string* f : {&pl.s.app.output, &pl.s.app.snapshot, &pl.s.app.json, &pl.s.app.plot})
    if (!f->empty()) io::check_output_path(*f);
  if (!pl.s.app.plot.empty()) check_plot_name(pl.s.app.plot);
  return pl.is_float() ? simulate<float>(pl) : simulate<double>(pl);
}

}  // namespace
}  // namespace perron::app

int main(int argc, char** argv) {
  const int code = perron::app::run("heat1d", [&] { return perron::app::main_body(argc, argv); });
  perron::app::detached_exit::finish(code);  // a split run ends here
  return code;
}
