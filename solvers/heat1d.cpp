// The 1D heat equation: problem description, initial conditions, exact
// solutions, the options' one validation and the time plan, assembly of the
// step matrices (math in solvers/heat1d.hpp), the CPU backend and the time
// stepper.
#include "solvers/heat1d.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>

#include "core/device.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/names.hpp"
#include "core/text.hpp"
#include "kernels/convert.hpp"
#include "kernels/spmv.hpp"
#include "kernels/vector_ops.hpp"
#include "solvers/cg.hpp"
#include "solvers/iterative_shell.hpp"
#include "solvers/jacobi.hpp"

namespace perron::heat {

namespace {

constexpr double pi = 3.14159265358979323846;

constexpr name_table<boundary_kind, 2> boundary_names{{
    {boundary_kind::dirichlet, "dirichlet"},
    {boundary_kind::neumann, "neumann"},
}};
constexpr name_table<initial_condition::kind, 4> initial_condition_names{{
    {initial_condition::kind::sine, "sin"},
    {initial_condition::kind::gauss, "gauss"},
    {initial_condition::kind::step, "step"},
    {initial_condition::kind::file, "file"},
}};
constexpr name_table<method, 3> method_names{{
    {method::explicit_euler, "explicit"},
    {method::implicit_euler, "implicit"},
    {method::crank_nicolson, "cn"},
}};
constexpr name_table<step_solver, 3> step_solver_names{{
    {step_solver::cg, "cg"},
    {step_solver::jacobi, "jacobi"},
    {step_solver::direct, "direct"},
}};
constexpr name_table<device, 2> device_names{{{device::cpu, "cpu"}, {device::cuda, "cuda"}}};
constexpr name_table<operator_form, 2> operator_form_names{{
    {operator_form::csr, "csr"},
    {operator_form::stencil, "stencil"},
}};

// Whole string as a finite double, or invalid_argument naming `what`.
double parse_number(std::string_view s, const std::string& what) {
  if (s.empty()) throw invalid_argument(what + ": missing number");
  double v = 0;
  if (!parse_real(s, v)) throw invalid_argument(what + ": '" + std::string(s) + "' is not a finite number");
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t k = s.find(sep, start);
    parts.push_back(s.substr(start, k == std::string_view::npos ? std::string_view::npos : k - start));
    if (k == std::string_view::npos) break;
    start = k + 1;
  }
  return parts;
}

// Runs f(begin, end) over [0, n) in contiguous chunks on the hardware threads
// (one chunk, on this thread, below 2^16 items).
template <class F>
void parallel_for(std::size_t n, const F& f) {
  const std::size_t most = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t parts = std::min(most, n / (std::size_t(1) << 16) + 1);
  if (parts <= 1) {
    f(std::size_t(0), n);
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < parts; ++k)
    pool.emplace_back([&, k] { f(n * k / parts, n * (k + 1) / parts); });
  f(0, n / parts);
  for (auto& t : pool) t.join();
}

// Combines f(i) over [0, n) with op on the hardware threads, in the chunks of
// parallel_for: each chunk in index order, then the chunks' results in chunk
// order (the same bits run to run on a machine).
template <class F, class Op>
double parallel_reduce(std::size_t n, double identity, const F& f, const Op& op) {
  const std::size_t most = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t parts = std::min(most, n / (std::size_t(1) << 16) + 1);
  std::vector<double> partial(parts, identity);
  auto run = [&](std::size_t k) {
    double v = identity;
    for (std::size_t i = n * k / parts, end = n * (k + 1) / parts; i < end; ++i) v = op(v, f(i));
    partial[k] = v;
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < parts; ++k) pool.emplace_back(run, k);
  run(0);
  for (auto& t : pool) t.join();
  double v = identity;
  for (double x : partial) v = op(v, x);
  return v;
}
// max that keeps a NaN (std::max would drop it, and a diverged run would look fine).
double max_nan(double a, double b) { return (a > b || a != a) ? a : b; }

bool is_neumann(const boundary_condition& b) { return b.kind == boundary_kind::neumann; }
bool is_dirichlet(const boundary_condition& b) { return b.kind == boundary_kind::dirichlet; }

bool finite_at_least(double v, double low) { return v >= low && std::isfinite(v); }
bool finite_above(double v, double low) { return v > low && std::isfinite(v); }

}  // namespace

// ---- problem ------------------------------------------------------------------

boundary_condition parse_boundary(std::string_view spec) {
  const auto parts = split(spec, ':');
  const std::string where = "boundary condition '" + std::string(spec) + "'";
  boundary_condition bc;
  if (parts[0] == "insulated" && parts.size() == 1) {
    bc.kind = boundary_kind::neumann;
    return bc;
  }
  const auto known = std::find_if(boundary_names.begin(), boundary_names.end(),
                                  [&](const auto& e) { return e.second == parts[0]; });
  if (known == boundary_names.end())
    throw invalid_argument("unknown " + where + " (valid: dirichlet[:VALUE], neumann[:DU_DN], insulated)");
  bc.kind = known->first;
  if (parts.size() > 2) throw invalid_argument(where + ": expected KIND or KIND:VALUE");
  if (parts.size() == 2) bc.value = parse_number(parts[1], where);
  return bc;
}

std::string describe(const boundary_condition& bc) {
  return std::string(name_in(boundary_names, bc.kind)) + ":" + format_g(bc.value);
}

void check_grid_points(long long n) {
  if (n < 3) throw invalid_argument("--N must be at least 3 grid points (got " + std::to_string(n) + ")");
}

void grid_problem::validate() const {
  check_grid_points(n);
  if (!finite_above(length, 0))
    throw invalid_argument("--L, the domain length, must be a finite number > 0 (got " + format_g(length) +
                           ")");
  if (!finite_at_least(kappa, 0))
    throw invalid_argument("--kappa, the diffusivity, must be a finite number >= 0 (got " + format_g(kappa) +
                           ")");
  if (!std::isfinite(left.value) || !std::isfinite(right.value))
    throw invalid_argument("--left / --right: boundary values must be finite");
  // The stencil divides by dx^2: --L 1e308 overflowed it and --L 1e-308 made it 0 (NaN steps).
  if (const double dx2 = dx() * dx(); !(std::isfinite(dx2) && dx2 >= 1e-290))
    throw invalid_argument("--L / (--N - 1) = dx = " + format_g(dx()) +
                           ": dx^2 is out of double precision's range");
}

initial_condition parse_initial_condition(std::string_view spec) {
  const std::string where = "initial condition '" + std::string(spec) + "'";
  initial_condition ic;
  const std::size_t colon = spec.find(':');
  const std::string_view head = spec.substr(0, colon);
  const auto known = std::find_if(initial_condition_names.begin(), initial_condition_names.end(),
                                  [&](const auto& e) { return e.second == head; });
  if (known == initial_condition_names.end())
    throw invalid_argument("unknown " + where + " (valid: sin:K, gauss:X0:WIDTH, step:X0, file:PATH)");
  ic.type = known->first;
  if (ic.type == initial_condition::kind::file) {  // the path may hold ':'
    if (colon == std::string_view::npos || colon + 1 == spec.size())
      throw invalid_argument(where + ": expected file:PATH");
    ic.path = std::string(spec.substr(colon + 1));
    return ic;
  }
  const auto parts = split(spec, ':');
  if (ic.type == initial_condition::kind::sine) {
    if (parts.size() > 2) throw invalid_argument(where + ": expected sin:K");
    if (parts.size() == 2) {
      const double k = parse_number(parts[1], where);
      if (k < 1 || k != std::floor(k) || k > 1e9)
        throw invalid_argument(where + ": the mode K must be an integer from 1 to 1e9 (got " +
                               std::string(parts[1]) + ")");
      ic.mode = static_cast<int>(k);
    }
  } else if (ic.type == initial_condition::kind::gauss) {
    if (parts.size() != 3) throw invalid_argument(where + ": expected gauss:X0:WIDTH");
    ic.x0 = parse_number(parts[1], where);
    ic.width = parse_number(parts[2], where);
    if (!(ic.width > 0)) throw invalid_argument(where + ": WIDTH must be > 0");
  } else {
    if (parts.size() != 2) throw invalid_argument(where + ": expected step:X0");
    ic.x0 = parse_number(parts[1], where);
  }
  return ic;
}

std::string describe(const initial_condition& ic) {
  const std::string head = std::string(name_in(initial_condition_names, ic.type)) + ":";
  switch (ic.type) {
    case initial_condition::kind::sine:
      return head + std::to_string(ic.mode);
    case initial_condition::kind::gauss:
      return head + format_g(ic.x0) + ":" + format_g(ic.width);
    case initial_condition::kind::step:
      return head + format_g(ic.x0);
    case initial_condition::kind::file:
      return head + ic.path;
  }
  return head;
}

void initial_condition::validate() const {
  const std::string where = "initial condition " + describe(*this);
  switch (type) {
    case kind::sine:
      if (mode < 1 || mode > 1'000'000'000)
        throw invalid_argument(where + ": the mode K must be an integer from 1 to 1e9");
      break;
    case kind::gauss:
      if (!(width > 0) || !std::isfinite(width))
        throw invalid_argument(where + ": WIDTH must be > 0 and finite");
      [[fallthrough]];
    case kind::step:
      if (!std::isfinite(x0)) throw invalid_argument(where + ": X0 must be finite");
      break;
    case kind::file:
      break;  // its values are checked against the grid (initial_profile, the stepper)
  }
}

std::vector<double> initial_profile(const initial_condition& ic, const grid_problem& p) {
  ic.validate();
  const auto n = static_cast<std::size_t>(p.n);
  std::vector<double> u(n);
  switch (ic.type) {
    case initial_condition::kind::sine:
      parallel_for(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) u[i] = std::sin(ic.mode * pi * p.x(index_t(i)) / p.length);
      });
      // sin(K pi) is ~1e-16, not 0: the ends are exactly zero.
      u[0] = 0;
      u[n - 1] = 0;
      break;
    case initial_condition::kind::gauss:
      parallel_for(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          const double d = (p.x(index_t(i)) - ic.x0) / ic.width;
          u[i] = std::exp(-0.5 * d * d);
        }
      });
      break;
    case initial_condition::kind::step:
      for (std::size_t i = 0; i < n; ++i) {
        const double x = p.x(index_t(i));
        u[i] = x < ic.x0 ? 1.0 : (x > ic.x0 ? 0.0 : 0.5);
      }
      break;
    case initial_condition::kind::file:
      if (ic.values.size() != n)
        throw dimension_error(ic.path + ": " + std::to_string(ic.values.size()) +
                              " values, but the grid has N = " + std::to_string(p.n) +
                              " points (one value per point)");
      u = ic.values;
      break;
  }
  if (is_dirichlet(p.left)) u[0] = p.left.value;
  if (is_dirichlet(p.right)) u[n - 1] = p.right.value;
  return u;
}

std::vector<double> evaluate(const closed_form& f, const grid_problem& p) {
  std::vector<double> u(static_cast<std::size_t>(p.n));
  parallel_for(u.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) u[i] = f.at(p, index_t(i));
  });
  return u;
}

std::optional<closed_form> exact_form(const grid_problem& p, const initial_condition& ic, double t) {
  if (ic.type != initial_condition::kind::sine) return std::nullopt;
  if (!is_dirichlet(p.left) || !is_dirichlet(p.right) || p.left.value != 0 || p.right.value != 0)
    return std::nullopt;
  closed_form f;
  f.wave = ic.mode * pi / p.length;
  f.amplitude = std::exp(-p.kappa * f.wave * f.wave * t);
  f.pin_left = f.pin_right = true;  // sin(K pi) is ~1e-16, not 0
  return f;
}

std::optional<std::vector<double>> exact_solution(const grid_problem& p, const initial_condition& ic,
                                                  double t) {
  const auto f = exact_form(p, ic, t);
  if (!f) return std::nullopt;
  return evaluate(*f, p);
}

std::string steady_state_obstacle(const grid_problem& p) {
  if (is_neumann(p.left) && is_neumann(p.right) && p.left.value + p.right.value != 0)
    return "no steady state exists: with two Neumann ends the net inflow kappa (G_left + G_right) = " +
           format_g(p.kappa * (p.left.value + p.right.value)) +
           " is not zero, so the integral of u changes forever";
  if (p.kappa == 0) return "no steady state is approached with kappa = 0";
  return "";
}

std::optional<closed_form> steady_form(const grid_problem& p, double integral_u0) {
  if (!steady_state_obstacle(p).empty()) return std::nullopt;
  const double len = p.length;
  // u = a + s x. du/dn = -s at x = 0, +s at x = L.
  double a = 0, s = 0;
  if (is_dirichlet(p.left) && is_dirichlet(p.right)) {
    a = p.left.value;
    s = (p.right.value - p.left.value) / len;
  } else if (is_dirichlet(p.left)) {
    s = p.right.value;
    a = p.left.value;
  } else if (is_dirichlet(p.right)) {
    s = -p.left.value;
    a = p.right.value - s * len;
  } else {
    // Zero net flux: slope G_right, level from the conserved trapezoid integral.
    s = p.right.value;
    a = integral_u0 / len - s * len / 2;
  }
  closed_form f;
  f.level = a;
  f.slope = s;
  f.pin_left = is_dirichlet(p.left);
  f.pin_right = is_dirichlet(p.right);
  f.left = p.left.value;
  f.right = p.right.value;
  return f;
}

std::optional<std::vector<double>> exact_steady_state(const grid_problem& p, const std::vector<double>& u0) {
  if (!steady_state_obstacle(p).empty()) return std::nullopt;
  const auto n = static_cast<std::size_t>(p.n);
  double integral = 0;
  if (is_neumann(p.left) && is_neumann(p.right)) {
    if (u0.size() != n) return std::nullopt;
    const auto q = quadrature_weights(p);
    for (std::size_t i = 0; i < n; ++i) integral += q[i] * u0[i];
  }
  return evaluate(*steady_form(p, integral), p);
}

std::vector<double> quadrature_weights(const grid_problem& p) {
  std::vector<double> q(static_cast<std::size_t>(p.n), p.dx());
  q.front() *= 0.5;
  q.back() *= 0.5;
  return q;
}

// ---- discretization ----------------------------------------------------------

std::string_view name(method m) { return name_in(method_names, m); }
method parse_method(std::string_view s) {
  if (s == "crank-nicolson") return method::crank_nicolson;
  return parse_in(method_names, s, "method");
}
double theta(method m) {
  switch (m) {
    case method::explicit_euler:
      return 0.0;
    case method::implicit_euler:
      return 1.0;
    case method::crank_nicolson:
      return 0.5;
  }
  return 0.0;
}

bool iterates(const step_options& o) {
  return o.scheme != method::explicit_euler && o.solver != step_solver::direct;
}

stop_criterion step_stop(const step_options& o) {
  stop_criterion s = o.stop;
  s.min_iterations = 1;
  return s;
}

double steady_contraction(const grid_problem& p, method m, double dt) {
  const double r = p.kappa * dt / (p.dx() * p.dx());
  if (!(r > 0)) return INFINITY;
  const double pi = std::acos(-1.0);
  const bool alike = is_neumann(p.left) == is_neumann(p.right);
  const double phi1 = alike ? pi / double(p.n - 1) : pi / (2.0 * double(p.n - 1));
  const double mu_low = 4 * std::pow(std::sin(phi1 / 2), 2);
  const double mu_high =
      is_neumann(p.left) && is_neumann(p.right) ? 4.0 : 4 * std::pow(std::cos(phi1 / 2), 2);
  const double th = theta(m);
  const auto g = [&](double mu) { return std::abs((1 - (1 - th) * r * mu) / (1 + th * r * mu)); };
  return std::max(g(mu_low), g(mu_high));
}

namespace {
// A bound of max|u_steady| from the data (steady_floor's comment).
double steady_scale(const grid_problem& p, double u0_bound) {
  const double g = p.length * ((is_neumann(p.left) ? std::abs(p.left.value) : 0) +
                               (is_neumann(p.right) ? std::abs(p.right.value) : 0));
  double v = is_neumann(p.left) && is_neumann(p.right) ? std::abs(u0_bound) : 0;
  if (is_dirichlet(p.left)) v = std::max(v, std::abs(p.left.value));
  if (is_dirichlet(p.right)) v = std::max(v, std::abs(p.right.value));
  return v + g;
}

}  // namespace

namespace {
// A step's own error as a fraction of max|u| (steady_floor's comment).
double step_error(const grid_problem& p, const step_options& o, double unit_roundoff) {
  return (iterates(o) ? o.stop.rel_tol * std::sqrt(double(p.n)) : 0) + 2 * unit_roundoff;
}
}  // namespace

double steady_floor(const grid_problem& p, const step_options& o, double unit_roundoff, double u0_bound) {
  const double rho = steady_contraction(p, o.scheme, o.dt);
  // What a step takes off the distance, less the rounding of the distance's part of u.
  const double room = 1 - rho - 2 * unit_roundoff * rho;
  if (!(rho < 1) || !(room > 0)) return INFINITY;
  return step_error(p, o, unit_roundoff) * steady_scale(p, u0_bound) * rho / room;
}

double steady_rel_tol(const grid_problem& p, const step_options& o, double given, double tol,
                      double unit_roundoff, double u0_bound) {
  if (!iterates(o)) return given;
  const double rho = steady_contraction(p, o.scheme, o.dt);
  const double scale = steady_scale(p, u0_bound);
  if (!(rho < 1) || scale == 0) return given;
  const double wanted = (tol / 10 / (scale * rho / (1 - rho)) - 2 * unit_roundoff) / std::sqrt(double(p.n));
  // What the solves reach: a row of A sums 1 + 2 theta r against 2 theta r,
  // so rounding leaves ||b - A x|| near u (1 + 4 theta r) ||b|| (measured:
  // 0.5-1.4 times that, N = 101-10001, r = 1-1e5); below it a solve stalls
  // and the run fails at its step (N = 1001, r = 1000 asked 3.2e-14 of CG,
  // which stopped at 3.9e-14).
  const double reached = 2 * unit_roundoff * (1 + 4 * theta(o.scheme) * (p.kappa * o.dt / (p.dx() * p.dx())));
  return std::min(given, std::max({wanted, 64 * unit_roundoff, reached}));
}

double steady_distance(double change, double rho) {
  if (!(rho < 1)) return INFINITY;
  return change * rho / (1 - rho);
}

double max_stable_dt(const grid_problem& p) {
  const double dx = p.dx();
  return p.kappa > 0 ? max_stable_r * dx * dx / p.kappa : INFINITY;
}

namespace {
double mesh_ratio(const grid_problem& p, double dt) { return p.kappa * dt / (p.dx() * p.dx()); }
}  // namespace

// ---- options ---------------------------------------------------------------------

std::string_view name(step_solver s) { return name_in(step_solver_names, s); }
step_solver parse_step_solver(std::string_view s) { return parse_in(step_solver_names, s, "solver"); }
std::string_view name(device d) { return name_in(device_names, d); }
std::string_view name(operator_form f) { return name_in(operator_form_names, f); }
operator_form parse_operator_form(std::string_view s) {
  return parse_in(operator_form_names, s, "operator form");
}

void step_options::validate(const grid_problem& p) const {
  if (!finite_above(dt, 0))
    throw invalid_argument("--dt, the time step, must be a finite number > 0 (got " + format_g(dt) + ")");
  if (stop.max_iterations < 1)
    throw invalid_argument("--max-iter must be >= 1 (got " + std::to_string(stop.max_iterations) + ")");
  if (!finite_at_least(stop.rel_tol, 0))
    throw invalid_argument("--rtol must be a finite number >= 0 (got " + format_g(stop.rel_tol) + ")");
  if (!finite_at_least(stop.abs_tol, 0))
    throw invalid_argument("--atol must be a finite number >= 0 (got " + format_g(stop.abs_tol) + ")");
  // ||b - A u|| <= rtol ||b|| with rtol >= 1 is met by u = 0, and by an iterate
  // further off than that: each step took whatever its first iteration gave
  // (step_stop), and '--rtol 2 -s jacobi' grew a Gaussian's integral from 0.25
  // to 1.8e30 between two zero Dirichlet ends, exit 0.
  if (iterates(*this) && stop.rel_tol >= 1)
    throw invalid_argument("--rtol must be below 1 (got " + format_g(stop.rel_tol) +
                           "): a relative residual of 1 or more is met by u = 0, so " +
                           std::string(name(solver)) + " would take any iterate as a step's solution");
  // Both zero ask for a residual of exactly 0, which rounding never gives: the
  // run went --max-iter iterations and failed at the first step.
  if (stop.rel_tol == 0 && stop.abs_tol == 0 && iterates(*this))
    throw invalid_argument("--rtol 0 with --atol 0 asks " + std::string(name(solver)) +
                           " for a residual of exactly 0, which rounding never gives; give one of them > 0");
  if (!(omega > 0 && omega < 2))
    throw invalid_argument("--omega, the Jacobi weight, must be in (0, 2) (got " + format_g(omega) + ")");
  if (check_interval < 1)
    throw invalid_argument("--check-interval must be >= 1 (got " + std::to_string(check_interval) + ")");
  if (where == device::cpu) {
    if (kernel != spmv_kernel::cpu && kernel != spmv_kernel::automatic)
      throw invalid_argument("--kernel " + std::string(name(kernel)) +
                             " runs on the GPU, but the CPU path was chosen (--device cpu, or no usable "
                             "CUDA device)");
  } else if (kernel == spmv_kernel::cpu) {
    throw invalid_argument("--kernel cpu cannot run on the GPU path");
  }
  const double r = mesh_ratio(p, dt);
  // Past 1e100, the squares in the solvers' norms overflow (NaN steps).
  if (!(r <= 1e100))
    throw invalid_argument("r = kappa dt / dx^2 = " + format_g(r) +
                           " is past 1e100 (--kappa, --dt or --T too large, or --L too small)");
  if (scheme == method::explicit_euler && r > max_stable_r * (1 + 1e-12) && !force)
    // Both to the digits that tell them apart: dt rounded to 10 digits came out
    // above the limit (1/72 as 0.01388888889), refused again as "r = 0.5 > 1/2";
    // the limit as the double it is, to pass back as --dt.
    throw invalid_argument("explicit steps are unstable here: r = kappa dt / dx^2 = " + format_g(r, 15) +
                           " > 1/2. The largest stable dt is " + format_shortest(max_stable_dt(p)) +
                           " (use --dt <= that, fewer grid points, --method implicit or cn, or --force)");
}

// A row of A = W - theta r K sums 1 + 2 theta r against 2 theta r, so float
// rounding alone puts ||b - A x|| near eps_float (1 + 4 theta r) ||x||. The
// warm start's own residual is about kappa dt pi^2 ||b||: past a floor of 1e-3
// a float solve would accept it and return an unchanged profile with exit 0.
double default_step_rel_tol(const grid_problem& p, const step_options& o, bool single_precision) {
  if (!single_precision) return default_rel_tol<double>();
  const double r = mesh_ratio(p, o.dt);
  const double floor = 5e-7 * (1 + 4 * theta(o.scheme) * r);
  const bool iterative = iterates(o);
  if (iterative && floor > 1e-3)
    throw invalid_argument("float cannot resolve implicit steps at r = kappa dt / dx^2 = " + format_g(r) +
                           ": rounding alone leaves a relative residual near " + format_g(floor) +
                           " (use --precision double, --solver direct, a smaller --dt, or set --rtol "
                           "yourself)");
  return std::max(default_rel_tol<float>(), floor);
}

namespace {
// Steps of dt to reach t (at least t / dt less a rounding allowance).
double steps_to(double t, double dt) { return std::ceil(t / dt * (1 - 1e-12)); }
// The most steps a run takes, however they are asked for (--dt, --steps,
// --max-steps): more than a machine steps in years, and within a long.
constexpr double most_steps = 1e15;
}  // namespace

void run_options::validate(const grid_problem& p) const {
  if (!finite_at_least(final_time, 0))
    throw invalid_argument("--T, the final time, must be a finite number >= 0 (got " + format_g(final_time) +
                           ")");
  if (dt && steps) throw invalid_argument("give --dt or --steps, not both");
  if (dt && !finite_above(*dt, 0))
    throw invalid_argument("--dt, the time step, must be a finite number > 0 (got " + format_g(*dt) + ")");
  if (dt && !steady && steps_to(final_time, *dt) > most_steps)
    throw invalid_argument("--T / --dt = " + format_g(final_time / *dt) + " steps is too many");
  if (steps && *steps < 1)
    throw invalid_argument("--steps must be >= 1 (got " + std::to_string(*steps) + ")");
  if (steps && double(*steps) > most_steps)
    throw invalid_argument("--steps " + std::to_string(*steps) + " is too many (at most " +
                           format_g(most_steps) + ")");
  if (steps && final_time == 0) throw invalid_argument("--steps with T = 0 gives no step size; give --dt");
  if (!steady) return;
  if (!finite_above(steady_tol, 0))
    throw invalid_argument("--steady-tol must be a finite number > 0 (got " + format_g(steady_tol) + ")");
  if (max_steps < 1)
    throw invalid_argument("--max-steps must be >= 1 (got " + std::to_string(max_steps) + ")");
  if (double(max_steps) > most_steps)
    throw invalid_argument("--max-steps " + std::to_string(max_steps) + " is too many (at most " +
                           format_g(most_steps) + ")");
  const std::string why = steady_state_obstacle(p);
  if (!why.empty()) throw invalid_argument("--steady: " + why);
}

time_plan plan_time(const grid_problem& p, method m, const run_options& r) {
  const double t = r.final_time;
  time_plan plan;
  if (r.steps) {
    if (*r.steps < 1) throw invalid_argument("--steps must be >= 1 (got " + std::to_string(*r.steps) + ")");
    plan.steps = *r.steps;
    plan.dt = t / double(plan.steps);
    return plan;
  }
  double dt = 0;
  if (r.dt) {
    dt = *r.dt;
  } else {
    const double target = m == method::explicit_euler ? 0.9 * max_stable_dt(p) : t / 100;
    dt = target > 0 && std::isfinite(target) ? target : (t > 0 ? t / 100 : 1e-3);
  }
  if (r.steady || t == 0) {
    plan.dt = dt;
    return plan;
  }
  // The automatic dt is checked as a given one is (run_options::validate): the
  // step count cast to long overflowed, and the run was refused for a negative --dt.
  if (!(steps_to(t, dt) <= most_steps))
    throw invalid_argument("--T / dt = " + format_g(t / dt) + " steps is too many (dt " + format_g(dt) +
                           (m == method::explicit_euler ? ", 0.9 of the largest stable dt" : "") + ")");
  plan.steps = static_cast<long>(steps_to(t, dt));
  plan.dt = t / double(plan.steps);
  return plan;
}

namespace {

// Row i of S, the integer stencil with the boundary conditions, and g_i:
// du/dt = kappa / dx^2 (S u + g). has[0] / has[2]: the lower / upper entry is
// in the pattern (an eliminated Dirichlet column is not); the diagonal always is.
struct s_row {
  double v[3] = {0, 0, 0};
  bool has[3] = {false, true, false};
  double g = 0;
  index_t nnz() const { return 1 + index_t(has[0]) + index_t(has[2]); }
};

s_row row_of_s(const grid_problem& p, index_t i) {
  const index_t n = p.n;
  const bool dl = is_dirichlet(p.left), dr = is_dirichlet(p.right);
  s_row r;
  if (i == 0 || i == n - 1) {
    // Dirichlet: the identity row of A and B (S row zero, diagonal kept).
    // Neumann: ghost point u_{-1} = u_1 + 2 dx G, so the row is [-2, 2] + 2 dx G.
    const bool left = i == 0;
    if (left ? dl : dr) return r;
    const int off = left ? 2 : 0;
    r.v[1] = -2;
    r.v[off] = 2;
    r.has[off] = true;
    r.g = 2 * p.dx() * (left ? p.left.value : p.right.value);
    return r;
  }
  r.v[1] = -2;
  if (i == 1 && dl)
    r.g += p.left.value;  // eliminated column: V_left / dx^2 moves to the right-hand side
  else
    r.v[0] = 1, r.has[0] = true;
  if (i == n - 2 && dr)
    r.g += p.right.value;
  else
    r.v[2] = 1, r.has[2] = true;
  return r;
}

// The entries of A = W - theta r K and B = W + (1 - theta) r K (K = W S) for
// an S entry sv (explicit: B = I + r S), w the row's weight.
struct step_coefficients {
  bool expl;
  double th, r;
  double weight_left, weight_right;  // W at rows 0 and n-1: 1/2 at a Neumann end
  index_t n;
  double w(index_t i) const { return i == 0 ? weight_left : (i == n - 1 ? weight_right : 1.0); }
  void entry(double sv, bool diag, double wi, double& a, double& b) const {
    if (expl) {
      a = 0;
      b = (diag ? 1.0 : 0.0) + r * sv;
      return;
    }
    const double kv = wi * sv;
    a = (diag ? wi : 0.0) - th * r * kv;
    b = (diag ? wi : 0.0) + (1 - th) * r * kv;
  }
  double forcing(index_t i, double g) const { return r * (expl ? 1.0 : w(i)) * g; }
};

step_coefficients coefficients_of(const grid_problem& p, method m, double dt) {
  const double r = mesh_ratio(p, dt);
  return {m == method::explicit_euler,       theta(m), r, is_dirichlet(p.left) ? 1.0 : 0.5,
          is_dirichlet(p.right) ? 1.0 : 0.5, p.n};
}

// Row i of A and B as stencil rows (absent entries 0) with their constants.
void step_rows(const grid_problem& p, const step_coefficients& k, index_t i, double a[3], double b[3],
               double& c) {
  const s_row s = row_of_s(p, i);
  const double wi = k.w(i);
  for (int j = 0; j < 3; ++j) {
    a[j] = b[j] = 0;
    if (s.has[j]) k.entry(s.v[j], j == 1, wi, a[j], b[j]);
  }
  c = s.g != 0 ? k.forcing(i, s.g) : 0.0;
}

}  // namespace

edge_pattern step_pattern(const grid_problem& p) {
  const index_t rows[4] = {0, 1, p.n - 2, p.n - 1};
  edge_pattern e;
  for (int k = 0; k < 4; ++k) {
    const s_row r = row_of_s(p, rows[k]);
    for (int j = 0; j < 3; ++j) e.has[k][j] = r.has[j];
  }
  return e;
}

step_stencils make_step_stencils(const grid_problem& p, method m, double dt) {
  const step_coefficients k = coefficients_of(p, m, dt);
  const index_t n = p.n;
  step_stencils out;
  out.r = k.r;
  out.lhs.n = out.rhs.n = n;
  const index_t rows[4] = {0, 1, n - 2, n - 1};
  double c = 0;
  for (int e = 0; e < 4; ++e) {
    step_rows(p, k, rows[e], out.lhs.edge[e], out.rhs.edge[e], c);
    out.rhs.edge_constant[e] = c;
  }
  if (n >= 5) {
    double a[3], b[3];
    step_rows(p, k, 2, a, b, c);
    out.lhs.lower = a[0], out.lhs.diag = a[1], out.lhs.upper = a[2];
    out.rhs.lower = b[0], out.rhs.diag = b[1], out.rhs.upper = b[2];
  }
  return out;
}

// A and B as CSR straight from the rows of S, in parallel: every row but the
// (at most four) edge rows has 3 entries, so row_ptr[i] = 3 i less the entries
// the edge rows before i lack.
template <class T>
step_matrices<T> assemble_step(const grid_problem& p, method m, double dt) {
  p.validate();  // (N = 0 threw std::length_error)
  const index_t n = p.n;
  const step_coefficients k = coefficients_of(p, m, dt);
  const index_t edge[4] = {0, 1, n - 2, n - 1};
  index_t lack[4] = {};
  for (int e = 0; e < 4; ++e)
    if (e == 0 || edge[e] != edge[e - 1]) lack[e] = 3 - row_of_s(p, edge[e]).nnz();
  auto row_start = [&](index_t i) {
    index_t start = 3 * i;
    for (int e = 0; e < 4; ++e)
      if (edge[e] < i) start -= lack[e];
    return start;
  };
  const index_t nnz = row_start(n);
  check_nnz_fits(std::size_t(3) * std::size_t(n), "heat: the step matrices");
  step_matrices<T> out;
  out.r = k.r;
  auto shape = [&](csr_matrix<T>& a) {
    a.rows = a.cols = n;
    a.row_ptr.resize(std::size_t(n) + 1);
    a.col_idx.resize(std::size_t(nnz));
    a.values.resize(std::size_t(nnz));
  };
  shape(out.rhs);
  if (!k.expl) shape(out.lhs);
  parallel_for(std::size_t(n) + 1, [&](std::size_t begin, std::size_t end) {
    for (auto i = index_t(begin); i < index_t(end); ++i) {
      const index_t start = row_start(i);
      out.rhs.row_ptr[i] = start;
      if (!k.expl) out.lhs.row_ptr[i] = start;
      if (i == n) break;
      const s_row s = row_of_s(p, i);
      index_t at = start;
      for (int j = 0; j < 3; ++j) {
        if (!s.has[j]) continue;
        double a = 0, b = 0;
        k.entry(s.v[j], j == 1, k.w(i), a, b);
        out.rhs.col_idx[at] = i - 1 + j;
        out.rhs.values[at] = static_cast<T>(b);
        if (!k.expl) {
          out.lhs.col_idx[at] = i - 1 + j;
          out.lhs.values[at] = static_cast<T>(a);
        }
        ++at;
      }
    }
  });
  // c = r W g (explicit: r g), in row order, one entry per row.
  for (int e = 0; e < 4; ++e) {
    if (e > 0 && edge[e] == edge[e - 1]) continue;
    const double g = row_of_s(p, edge[e]).g;
    if (g != 0) out.forcing.emplace_back(edge[e], k.forcing(edge[e], g));
  }
  return out;
}

template <class T>
tridiagonal_stencil stencil_of(const csr_matrix<T>& a,
                               const std::vector<std::pair<index_t, double>>& forcing) {
  const index_t n = a.rows;
  if (n < 3 || a.cols != n) throw dimension_error("stencil_of: need a square matrix with n >= 3");
  auto entry = [&](index_t i, index_t j) -> double {
    if (j < 0 || j >= n) return 0.0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      if (a.col_idx[k] == j) return static_cast<double>(a.values[k]);
    return 0.0;
  };
  tridiagonal_stencil st;
  st.n = n;
  const index_t rows[4] = {0, 1, n - 2, n - 1};
  for (int e = 0; e < 4; ++e) {
    const index_t i = rows[e];
    st.edge[e][0] = entry(i, i - 1);
    st.edge[e][1] = entry(i, i);
    st.edge[e][2] = entry(i, i + 1);
    for (const auto& [fi, fv] : forcing)
      if (fi == i) st.edge_constant[e] += fv;
  }
  for (const auto& [fi, fv] : forcing)
    if (fi != 0 && fi != 1 && fi != n - 2 && fi != n - 1)
      throw invalid_argument("stencil_of: forcing away from the two end rows of each side");
  if (n >= 5) {
    st.lower = entry(2, 1);
    st.diag = entry(2, 2);
    st.upper = entry(2, 3);
  }
  // The stencil path is only valid for a constant interior: check, do not assume.
  for (index_t i = 2; i + 2 < n; ++i) {
    const index_t len = a.row_ptr[i + 1] - a.row_ptr[i];
    const index_t k = a.row_ptr[i];
    if (len != 3 || a.col_idx[k] != i - 1 || a.col_idx[k + 2] != i + 1 ||
        static_cast<double>(a.values[k]) != st.lower || static_cast<double>(a.values[k + 1]) != st.diag ||
        static_cast<double>(a.values[k + 2]) != st.upper)
      throw invalid_argument("stencil_of: row " + std::to_string(i) +
                             " differs from the constant interior stencil");
  }
  return st;
}

template <class T>
tridiagonal<T> diagonals_of(const csr_matrix<T>& a) {
  const auto n = static_cast<std::size_t>(a.rows);
  tridiagonal<T> t{std::vector<T>(n, T(0)), std::vector<T>(n, T(0)), std::vector<T>(n, T(0))};
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j == i - 1)
        t.lower[i] = a.values[k];
      else if (j == i)
        t.diag[i] = a.values[k];
      else if (j == i + 1)
        t.upper[i] = a.values[k];
      else
        throw invalid_argument("diagonals_of: entry (" + std::to_string(i) + ", " + std::to_string(j) +
                               ") is off the three diagonals");
    }
  return t;
}

template <class T>
tridiagonal<T> diagonals_of(const tridiagonal_stencil& st) {
  const auto n = static_cast<std::size_t>(st.n);
  tridiagonal<T> t{std::vector<T>(n), std::vector<T>(n), std::vector<T>(n)};
  parallel_for(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      double l, d, u, c;
      stencil_row(st, index_t(i), l, d, u, c);
      t.lower[i] = T(l), t.diag[i] = T(d), t.upper[i] = T(u);
    }
  });
  return t;
}

namespace {
// LU of a tridiagonal matrix without pivoting (Thomas): c'_i = u_i / m_i,
// m_i = d_i - l_i c'_{i-1}; forward d_i = (d_i - l_i d_{i-1}) / m_i, back
// d_i -= c'_i d_{i+1}. Stable for diagonally dominant matrices. Row(i, l, d, u)
// gives row i in T; only c' is stored (n doubles: m_i is recomputed from it
// in the forward sweep, off its dependency chain, exactly as the factor
// computed it, so a float factor stays the float factor).
template <class T>
struct thomas_factor {
  std::vector<double> c_prime;
  template <class Row>
  thomas_factor(std::size_t n, const Row& row) : c_prime(n) {
    double c_prev = 0;
    for (std::size_t i = 0; i < n; ++i) {
      T l, d, u;
      row(i, l, d, u);
      const double m = double(d) - (i ? double(l) * c_prev : 0.0);
      if (m == 0 || !std::isfinite(m))
        throw invalid_argument("thomas: zero pivot at row " + std::to_string(i) +
                               " (matrix not diagonally dominant)");
      c_prev = double(u) / m;
      c_prime[i] = c_prev;
    }
  }
  template <class Row>
  void solve(T* x, const Row& row) const {
    const std::size_t n = c_prime.size();
    for (std::size_t i = 0; i < n; ++i) {
      T l, d, u;
      row(i, l, d, u);
      const double m = double(d) - (i ? double(l) * c_prime[i - 1] : 0.0);
      x[i] = (i ? x[i] - l * x[i - 1] : x[i]) * T(1.0 / m);
    }
    for (std::size_t i = n - 1; i-- > 0;) x[i] -= T(c_prime[i]) * x[i + 1];
  }
};

// The stencil with its coefficients rounded to T (the matrix the CSR would hold).
template <class T>
tridiagonal_stencil rounded(tridiagonal_stencil s) {
  for (double* v : {&s.lower, &s.diag, &s.upper}) *v = double(T(*v));
  for (auto& row : s.edge)
    for (double& v : row) v = double(T(v));
  return s;
}

}  // namespace

template <class T>
void thomas_solve(const tridiagonal<T>& a, T* d) {
  // Row i reads lower[i] and upper[i]: shorter diagonals were read past their end.
  if (a.lower.size() != a.diag.size() || a.upper.size() != a.diag.size())
    throw dimension_error("thomas_solve: the diagonals hold " + std::to_string(a.lower.size()) + ", " +
                          std::to_string(a.diag.size()) + " and " + std::to_string(a.upper.size()) +
                          " values (lower, diag, upper: n each)");
  if (a.diag.empty()) return;
  auto row = [&](std::size_t i, T& l, T& dd, T& u) { l = a.lower[i], dd = a.diag[i], u = a.upper[i]; };
  thomas_factor<T>(a.diag.size(), row).solve(d, row);
}

// ---- time stepping -------------------------------------------------------------

namespace detail {
namespace {

// y = M x (+ the constants when with_constant), M a stencil rounded to T, each
// row summed in double and rounded once; in parallel.
template <class T>
void apply_stencil(const tridiagonal_stencil& m, const T* x, T* y, bool with_constant) {
  const auto n = static_cast<std::size_t>(m.n);
  const auto count = static_cast<std::int64_t>(n);
  // On the step's team (cpu_backend::step): a region per step, no threads made.
#pragma omp parallel for schedule(static) num_threads(threads_for_work(n))
  for (std::int64_t k = 0; k < count; ++k) {
    const auto i = static_cast<std::size_t>(k);
    if (i >= 2 && i + 2 < n) {
      y[i] = T(m.lower * double(x[i - 1]) + m.diag * double(x[i]) + m.upper * double(x[i + 1]));
      continue;
    }
    double l, d, u, c;
    stencil_row(m, index_t(i), l, d, u, c);
    const double xl = i > 0 ? double(x[i - 1]) : 0.0, xr = i + 1 < n ? double(x[i + 1]) : 0.0;
    y[i] = T(l * xl + d * double(x[i]) + u * xr + (with_constant ? c : 0.0));
  }
}

// The CPU backend: B applied as the stencil; the direct solve factors A from
// its stencil (2 n values); cg / jacobi use the CSR of A.
template <class T>
class cpu_backend final : public backend<T> {
 public:
  explicit cpu_backend(setup<T> s)
      : s_(std::move(s)),
        rhs_(rounded<T>(s_.stencils.rhs)),
        lhs_(rounded<T>(s_.stencils.lhs)),
        u_(initial_state(s_)),
        next_(u_.size()),
        team_(s_.options.scheme != method::explicit_euler && s_.options.solver != step_solver::direct
                  ? spmv_team(s_.lhs)
                  : solve_team(u_.size())) {
    const auto& o = s_.options;
    if (o.scheme == method::explicit_euler) return;
    if (o.solver == step_solver::direct)
      thomas_.emplace(u_.size(), lhs_row());
    else
      b_.resize(u_.size());
  }

  step_report step(bool measure_change) override {
    step_report rep;
    const std::size_t n = u_.size();
    const auto& o = s_.options;
    // Every region of the step on one team: the warm start's copy on every
    // core and cg's regions on its SpMV's team made libgomp end and re-create
    // threads each step (20000 unknowns, H200 host: 0.82 ms a step on 16, 1.31
    // with the solve on 10 and the copy on 16), and a team of every core
    // beside one busy process waits a time slice at its barriers
    // (docs/PERFORMANCE.md, session 47).
    const team_scope team(team_);
    if (o.scheme == method::explicit_euler) {
      apply_stencil(rhs_, u_.data(), next_.data(), true);  // u' = (I + r S) u + r g
    } else if (o.solver == step_solver::direct) {
      apply_stencil(rhs_, u_.data(), next_.data(), true);  // b = B u + c, solved in place
      thomas_->solve(next_.data(), lhs_row());
    } else {
      apply_stencil(rhs_, u_.data(), b_.data(), true);  // b = B u + c
      copy(n, u_.data(), next_.data());                 // warm start from u^n
      const solve_result res =
          o.solver == step_solver::cg
              ? perron::detail::cg_assembled(s_.lhs, b_.data(), next_.data(), step_stop(o))
              : perron::detail::jacobi_assembled(s_.lhs, b_.data(), next_.data(), step_stop(o), o.omega);
      rep.iterations = res.iterations;
      rep.residual = res.relative_residual();
      rep.converged = res.converged;
      rep.status = res.status;
      if (!res.converged) return rep;  // u^n stays
    }
    if (measure_change) {
      double c = 0;
      for (std::size_t i = 0; i < n; ++i) c = std::max(c, std::abs(double(next_[i]) - double(u_[i])));
      rep.change = c;
    }
    u_.swap(next_);
    return rep;
  }

  std::vector<T> solution() const override { return u_; }
  double integral() const override {
    const grid_problem& p = s_.problem;
    const double dx = p.dx();
    const std::size_t last = u_.size() - 1;
    return parallel_reduce(
        u_.size(), 0.0, [&](std::size_t i) { return (i == 0 || i == last ? 0.5 * dx : dx) * double(u_[i]); },
        [](double a, double b) { return a + b; });
  }
  double max_error(const closed_form& f) const override {
    return parallel_reduce(
        u_.size(), 0.0, [&](std::size_t i) { return std::abs(double(u_[i]) - f.at(s_.problem, index_t(i))); },
        max_nan);
  }
  spmv_kernel kernel() const override { return spmv_kernel::cpu; }

 private:
  // u0 as given, or ic's profile evaluated here.
  static std::vector<T> initial_state(const setup<T>& s) {
    if (s.u0) return std::vector<T>(s.u0->begin(), s.u0->end());
    std::vector<double> u = initial_profile(*s.ic, s.problem);
    if constexpr (std::is_same_v<T, double>) {
      return u;
    } else {
      return std::vector<T>(u.begin(), u.end());
    }
  }
  auto lhs_row() const {
    return [this](std::size_t i, T& l, T& d, T& u) {
      double dl, dd, du, c;
      stencil_row(lhs_, index_t(i), dl, dd, du, c);
      l = T(dl), d = T(dd), u = T(du);
    };
  }
  setup<T> s_;
  tridiagonal_stencil rhs_, lhs_;
  std::vector<T> u_, next_, b_;
  std::optional<thomas_factor<T>> thomas_;
  int team_ = 1;  // every region of a step runs on it (step)
};

}  // namespace

template <class T>
std::unique_ptr<backend<T>> make_cpu_backend(setup<T> s) {
  return std::make_unique<cpu_backend<T>>(std::move(s));
}

}  // namespace detail

template <class T>
time_stepper<T>::time_stepper(const grid_problem& p, const step_options& opt, const std::vector<double>& u0) {
  build(p, opt, &u0, nullptr);
}

template <class T>
time_stepper<T>::time_stepper(const grid_problem& p, const step_options& opt, const initial_condition& ic) {
  p.validate();
  ic.validate();
  // Evaluated where the state lives, by the backend (finite by construction);
  // a file's values are checked and uploaded as given values are.
  if (ic.type != initial_condition::kind::file) {
    build(p, opt, nullptr, &ic);
  } else {
    const std::vector<double> u0 = initial_profile(ic, p);
    build(p, opt, &u0, nullptr);
  }
}

namespace {

// The largest sum_j |m_ij| x + |c_i| over the rows of a stencil: a bound on
// |(M u)_i + c_i| for |u| <= x.
double row_bound(const tridiagonal_stencil& m, double x) {
  double most = 0;
  for (index_t i : {index_t(0), index_t(1), index_t(2), m.n - 2, m.n - 1}) {
    double l, d, u, c;
    stencil_row(m, i, l, d, u, c);
    most = std::max(most, (std::abs(l) + std::abs(d) + std::abs(u)) * x + std::abs(c));
  }
  return most;
}

// Finite data whose arithmetic does not stay finite: dirichlet:1e308 with
// cg ended in 'relative residual -nan (diverged)', which does not say why.
// big: the largest |u| of the data (Dirichlet values, the initial profile;
// the maximum principle keeps u there unless a Neumann flux adds heat). A
// step forms b = B u + c (its rows bounded by row_bound), and cg / jacobi
// its residual b - A x and dot products of it in double (each term up to n
// of them, times A's row sum for (p, A p)); in float the vectors themselves
// must stay below FLT_MAX.
template <class T>
void check_step_range(const grid_problem& p, const step_options& opt, const step_stencils& st, double big) {
  const bool iterative = iterates(opt);
  const double lhs_sum = row_bound(st.lhs, 1.0);
  const double reach = row_bound(st.rhs, big) + (iterative ? lhs_sum * big : 0.0);
  const bool single = sizeof(T) < sizeof(double);
  const double limit =
      single      ? double(std::numeric_limits<float>::max())
      : iterative ? std::sqrt(std::numeric_limits<double>::max() / (double(p.n) * std::max(1.0, lhs_sum)))
                  : std::numeric_limits<double>::max();
  if (reach <= limit) return;
  const char* type = single ? "float" : "double";
  // A Neumann flux enters the step as forcing (c above), not through |u|:
  // name it where it is there, so neumann:1e308 is not blamed on the data.
  std::string fluxes;
  for (const auto& [side, bc] : {std::pair{"x = 0", &p.left}, std::pair{"x = L", &p.right}}) {
    if (bc->kind != boundary_kind::neumann || bc->value == 0) continue;
    fluxes += (fluxes.empty() ? "" : ", ") + std::string("neumann:") + format_g(bc->value) + " at " + side;
  }
  throw invalid_argument(
      std::string("the values overflow ") + type + ": |u| reaches " + format_g(big) +
      " (Dirichlet values, the initial profile), and a step with its boundary forcing (" +
      (fluxes.empty() ? std::string() : fluxes + "; ") + std::string(name(opt.scheme)) +
      (opt.scheme == method::explicit_euler ? std::string() : ", " + std::string(name(opt.solver))) +
      ", r = " + format_g(st.r, 3) + ", N = " + std::to_string(p.n) + ") can form values up to " +
      format_g(reach, 3) + ", past " +
      (iterative && !single ? "the " + format_g(limit, 3) + " where the sums of their squares overflow"
                            : std::string(type) + "'s largest, " + format_g(limit, 3)) +
      "; the equation is linear: scale the values down and the solution back up");
}

}  // namespace

template <class T>
void time_stepper<T>::build(const grid_problem& p, const step_options& opt, const std::vector<double>* u0,
                            const initial_condition* ic) {
  p.validate();
  opt.validate(p);
  if (u0) {
    if (u0->size() != static_cast<std::size_t>(p.n))
      throw dimension_error("initial profile has " + std::to_string(u0->size()) +
                            " values for N = " + std::to_string(p.n));
    const double bad = parallel_reduce(
        u0->size(), 0.0, [&](std::size_t i) { return std::isfinite((*u0)[i]) ? 0.0 : 1.0; },
        [](double a, double b) { return a + b; });
    if (bad > 0) throw invalid_argument("initial profile contains a non-finite value");
  }
  r_ = mesh_ratio(p, opt.dt);
  dt_ = opt.dt;
  options_ = opt;
  detail::setup<T> s;
  s.problem = p;
  s.options = opt;
  s.stencils = make_step_stencils(p, opt.scheme, opt.dt);
  {
    double big = 0;
    for (const boundary_condition& bc : {p.left, p.right})
      if (bc.kind == boundary_kind::dirichlet) big = std::max(big, std::abs(bc.value));
    const std::vector<double>* values = u0 ? u0 : (ic && !ic->values.empty() ? &ic->values : nullptr);
    if (values)
      big = std::max(big, parallel_reduce(
                              values->size(), 0.0, [&](std::size_t i) { return std::abs((*values)[i]); },
                              [](double a, double b) { return std::max(a, b); }));
    else
      big = std::max(big, 1.0);  // sin, gauss and step profiles lie in [0, 1] (sin: [-1, 1])
    check_step_range<T>(p, opt, s.stencils, big);
  }
  // Host CSR only where a method applies one (setup<T>): the CPU's cg /
  // jacobi, and the GPU's cg / jacobi with --operator csr (their solvers plan
  // a host CSR). The GPU's rhs with --operator csr is built on the device.
  const bool gpu_csr = opt.where == device::cuda && opt.form == operator_form::csr;
  const bool iterative = iterates(opt);
  // Before anything of size N: the state and the solver's vectors (about ten
  // of T a point), the profiles the caller keeps in double, and for cg /
  // jacobi the CSR of A (--N 300000000 filled a 24 GB host and ran on).
  if (opt.where == device::cpu)
    check_host_memory(double(p.n) * (10.0 * sizeof(T) + 16.0 + (iterative ? 3.0 * (4 + sizeof(T)) + 4 : 0.0)),
                      "heat1d on the CPU with --N " + std::to_string(p.n));
  if (iterative && (gpu_csr || opt.where == device::cpu))
    s.lhs = std::move(assemble_step<T>(p, opt.scheme, opt.dt).lhs);
  s.u0 = u0;
  s.ic = ic;
  impl_ = opt.where == device::cpu ? detail::make_cpu_backend<T>(std::move(s))
                                   : detail::make_cuda_backend<T>(std::move(s));
}

template <class T>
time_stepper<T>::~time_stepper() = default;
template <class T>
time_stepper<T>::time_stepper(time_stepper&&) noexcept = default;
template <class T>
time_stepper<T>& time_stepper<T>::operator=(time_stepper&&) noexcept = default;

template <class T>
step_report time_stepper<T>::step(bool measure_change) {
  step_report rep = impl_->step(measure_change);
  if (rep.converged) ++steps_;
  return rep;
}

template <class T>
step_report time_stepper<T>::advance(long k) {
  if (k < 0)
    throw invalid_argument("time_stepper::advance: a step count of " + std::to_string(k) + " (>= 0)");
  step_report last;
  steps_ += impl_->advance(k, last);
  return last;
}

template <class T>
std::vector<double> time_stepper<T>::solution() const {
  if constexpr (std::is_same_v<T, double>) {
    return impl_->solution();
  } else {
    const std::vector<T> u = impl_->solution();
    return std::vector<double>(u.begin(), u.end());
  }
}

template <class T>
double time_stepper<T>::integral() const {
  return impl_->integral();
}

template <class T>
double time_stepper<T>::max_error(const closed_form& f) const {
  return impl_->max_error(f);
}

template <class T>
spmv_kernel time_stepper<T>::kernel() const {
  return impl_->kernel();
}

template <class T>
device_probe& time_stepper<T>::probe() {
  device_probe* p = impl_->probe();
  if (!p) throw invalid_argument("the benchmark mode times the GPU (use the cuda device)");
  return *p;
}

#define PERRON_HEAT(T)                                                                        \
  template step_matrices<T> assemble_step<T>(const grid_problem&, method, double);            \
  template tridiagonal_stencil stencil_of<T>(const csr_matrix<T>&,                            \
                                             const std::vector<std::pair<index_t, double>>&); \
  template tridiagonal<T> diagonals_of<T>(const csr_matrix<T>&);                              \
  template void thomas_solve<T>(const tridiagonal<T>&, T*);                                   \
  template tridiagonal<T> diagonals_of<T>(const tridiagonal_stencil&);                        \
  template std::unique_ptr<detail::backend<T>> detail::make_cpu_backend<T>(detail::setup<T>); \
  template class time_stepper<T>;
PERRON_HEAT(float)
PERRON_HEAT(double)
#undef PERRON_HEAT

}  // namespace perron::heat
