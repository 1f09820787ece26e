// The 1D heat equation: problem description, initial conditions, exact
// solutions, the options' one validation and the time plan, assembly of the
// step matrices (math in solvers/heat1d.hpp), the CPU backend and the time
// stepper.
#include "solvers/heat1d.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/device.hpp"
#include "core/error.hpp"
#include "core/names.hpp"
#include "core/text.hpp"
#include "kernels/convert.hpp"
#include "kernels/vector_ops.hpp"
#include "solvers/cg.hpp"
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
  std::string str(s);
  if (str.empty()) throw invalid_argument(what + ": missing number");
  char* end = nullptr;
  const double v = std::strtod(str.c_str(), &end);
  if (end != str.c_str() + str.size() || !std::isfinite(v))
    throw invalid_argument(what + ": '" + str + "' is not a finite number");
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

void grid_problem::validate() const {
  if (n < 3) throw invalid_argument("--N must be at least 3 grid points (got " + std::to_string(n) + ")");
  if (!finite_above(length, 0))
    throw invalid_argument("--L, the domain length, must be a finite number > 0 (got " + format_g(length) +
                           ")");
  if (!finite_at_least(kappa, 0))
    throw invalid_argument("--kappa, the diffusivity, must be a finite number >= 0 (got " + format_g(kappa) +
                           ")");
  if (!std::isfinite(left.value) || !std::isfinite(right.value))
    throw invalid_argument("--left / --right: boundary values must be finite");
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
        throw invalid_argument(where + ": the mode K must be a positive integer");
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

std::vector<double> initial_profile(const initial_condition& ic, const grid_problem& p) {
  const auto n = static_cast<std::size_t>(p.n);
  std::vector<double> u(n);
  switch (ic.type) {
    case initial_condition::kind::sine:
      for (std::size_t i = 0; i < n; ++i) u[i] = std::sin(ic.mode * pi * p.x(index_t(i)) / p.length);
      // sin(K pi) is ~1e-16, not 0: the ends are exactly zero.
      u[0] = 0;
      u[n - 1] = 0;
      break;
    case initial_condition::kind::gauss:
      for (std::size_t i = 0; i < n; ++i) {
        const double d = (p.x(index_t(i)) - ic.x0) / ic.width;
        u[i] = std::exp(-0.5 * d * d);
      }
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

std::optional<std::vector<double>> exact_solution(const grid_problem& p, const initial_condition& ic,
                                                  double t) {
  if (ic.type != initial_condition::kind::sine) return std::nullopt;
  if (!is_dirichlet(p.left) || !is_dirichlet(p.right) || p.left.value != 0 || p.right.value != 0)
    return std::nullopt;
  const double k = ic.mode * pi / p.length;
  const double decay = std::exp(-p.kappa * k * k * t);
  std::vector<double> u(static_cast<std::size_t>(p.n));
  for (index_t i = 0; i < p.n; ++i) u[i] = decay * std::sin(k * p.x(i));
  u.front() = 0;
  u.back() = 0;
  return u;
}

std::string steady_state_obstacle(const grid_problem& p) {
  if (is_neumann(p.left) && is_neumann(p.right) && p.left.value + p.right.value != 0)
    return "no steady state exists: with two Neumann ends the net inflow kappa (G_left + G_right) = " +
           format_g(p.kappa * (p.left.value + p.right.value)) +
           " is not zero, so the integral of u changes forever";
  if (p.kappa == 0) return "no steady state is approached with kappa = 0";
  return "";
}

std::optional<std::vector<double>> exact_steady_state(const grid_problem& p, const std::vector<double>& u0) {
  if (!steady_state_obstacle(p).empty()) return std::nullopt;
  const auto n = static_cast<std::size_t>(p.n);
  std::vector<double> u(n);
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
    if (u0.size() != n) return std::nullopt;
    s = p.right.value;
    const auto q = quadrature_weights(p);
    double integral = 0;
    for (std::size_t i = 0; i < n; ++i) integral += q[i] * u0[i];
    a = integral / len - s * len / 2;
  }
  for (std::size_t i = 0; i < n; ++i) u[i] = a + s * p.x(index_t(i));
  if (is_dirichlet(p.left)) u.front() = p.left.value;
  if (is_dirichlet(p.right)) u.back() = p.right.value;
  return u;
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
  if (!(omega > 0 && omega < 2))
    throw invalid_argument("--omega, the Jacobi weight, must be in (0, 2) (got " + format_g(omega) + ")");
  if (check_interval < 1)
    throw invalid_argument("--check-interval must be >= 1 (got " + std::to_string(check_interval) + ")");
  if (where == device::cpu) {
    if (kernel != spmv_kernel::cpu && kernel != spmv_kernel::automatic)
      throw invalid_argument("--kernel " + std::string(name(kernel)) +
                             " runs on the GPU, but the CPU path was chosen (--device cpu, or no usable "
                             "CUDA device)");
    if (form == operator_form::stencil)
      throw invalid_argument("--operator stencil is a GPU path (the CPU applies the CSR matrix)");
  } else if (kernel == spmv_kernel::cpu) {
    throw invalid_argument("--kernel cpu cannot run on the GPU path");
  }
  const double r = mesh_ratio(p, dt);
  if (scheme == method::explicit_euler && r > max_stable_r * (1 + 1e-12) && !force)
    throw invalid_argument("explicit steps are unstable here: r = kappa dt / dx^2 = " + format_g(r) +
                           " > 1/2. The largest stable dt is " + format_g(max_stable_dt(p), 10) +
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
  const bool iterative = o.scheme != method::explicit_euler && o.solver != step_solver::direct;
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
}  // namespace

void run_options::validate(const grid_problem& p) const {
  if (!finite_at_least(final_time, 0))
    throw invalid_argument("--T, the final time, must be a finite number >= 0 (got " + format_g(final_time) +
                           ")");
  if (dt && steps) throw invalid_argument("give --dt or --steps, not both");
  if (dt && !finite_above(*dt, 0))
    throw invalid_argument("--dt, the time step, must be a finite number > 0 (got " + format_g(*dt) + ")");
  if (dt && !steady && steps_to(final_time, *dt) > 1e15)
    throw invalid_argument("--T / --dt = " + format_g(final_time / *dt) + " steps is too many");
  if (steps && *steps < 1)
    throw invalid_argument("--steps must be >= 1 (got " + std::to_string(*steps) + ")");
  if (steps && final_time == 0) throw invalid_argument("--steps with T = 0 gives no step size; give --dt");
  if (!steady) return;
  if (!finite_above(steady_tol, 0))
    throw invalid_argument("--steady-tol must be a finite number > 0 (got " + format_g(steady_tol) + ")");
  if (max_steps < 1)
    throw invalid_argument("--max-steps must be >= 1 (got " + std::to_string(max_steps) + ")");
  const std::string why = steady_state_obstacle(p);
  if (!why.empty()) throw invalid_argument("--steady: " + why);
}

time_plan plan_time(const grid_problem& p, method m, const run_options& r) {
  const double t = r.final_time;
  time_plan plan;
  if (r.steps) {
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
  plan.steps = static_cast<long>(steps_to(t, dt));
  plan.dt = t / double(plan.steps);
  return plan;
}

namespace {

// S (the integer stencil with the boundary conditions, as CSR) and the
// nonzeros of the forcing g: du/dt = kappa / dx^2 (S u + g).
struct stencil_system {
  csr_matrix<double> s;
  std::vector<std::pair<index_t, double>> g;
};

stencil_system assemble_stencil(const grid_problem& p) {
  const index_t n = p.n;
  const double dx = p.dx();
  const bool dl = is_dirichlet(p.left), dr = is_dirichlet(p.right);
  coo_matrix<double> s;
  s.rows = s.cols = n;
  const std::size_t nnz = 3 * static_cast<std::size_t>(n);
  s.row_idx.reserve(nnz);
  s.col_idx.reserve(nnz);
  s.values.reserve(nnz);
  auto put = [&](index_t i, index_t j, double v) {
    s.row_idx.push_back(i);
    s.col_idx.push_back(j);
    s.values.push_back(v);
  };
  stencil_system out;
  auto add_g = [&](index_t i, double v) {
    if (v == 0) return;
    for (auto& e : out.g)
      if (e.first == i) {
        e.second += v;
        return;
      }
    out.g.emplace_back(i, v);
  };
  // Row 0: Neumann ghost point u_{-1} = u_1 + 2 dx G_left.
  if (dl) {
    put(0, 0, 0.0);  // identity row of A and B; the diagonal stays in the pattern
  } else {
    put(0, 0, -2.0);
    put(0, 1, 2.0);
    add_g(0, 2 * dx * p.left.value);
  }
  // Interior rows (all of 1 .. n-2; the loop body is the hot part for n = 1e8).
  for (index_t i = 1; i < n - 1; ++i) {
    if (i - 1 == 0 && dl)
      add_g(i, p.left.value);  // eliminated column: V_left / dx^2 moves to the right-hand side
    else
      put(i, i - 1, 1.0);
    put(i, i, -2.0);
    if (i + 1 == n - 1 && dr)
      add_g(i, p.right.value);
    else
      put(i, i + 1, 1.0);
  }
  // Row n-1, mirrored.
  if (dr) {
    put(n - 1, n - 1, 0.0);
  } else {
    put(n - 1, n - 1, -2.0);
    put(n - 1, n - 2, 2.0);
    add_g(n - 1, 2 * dx * p.right.value);
  }
  out.s = to_csr(s);
  return out;
}

template <class T>
csr_matrix<T> same_pattern(const csr_matrix<double>& s) {
  csr_matrix<T> a;
  a.rows = s.rows;
  a.cols = s.cols;
  a.row_ptr = s.row_ptr;
  a.col_idx = s.col_idx;
  a.values.resize(s.nnz());
  return a;
}

}  // namespace

template <class T>
step_matrices<T> assemble_step(const grid_problem& p, method m, double dt) {
  const index_t n = p.n;
  const double r = mesh_ratio(p, dt);
  const bool dl = is_dirichlet(p.left), dr = is_dirichlet(p.right);
  const stencil_system sys = assemble_stencil(p);
  const csr_matrix<double>& sc = sys.s;

  // W: 1/2 on Neumann end rows (trapezoid weights), 1 elsewhere.
  auto w = [&](index_t i) { return ((i == 0 && !dl) || (i == n - 1 && !dr)) ? 0.5 : 1.0; };
  const double th = theta(m);
  const bool expl = m == method::explicit_euler;

  step_matrices<T> out;
  out.r = r;
  csr_matrix<T> a = expl ? csr_matrix<T>{} : same_pattern<T>(sc);
  csr_matrix<T> b = same_pattern<T>(sc);
  index_t missing_diagonals = 0;
#pragma omp parallel for schedule(static) reduction(+ : missing_diagonals) if (n > (1 << 16))
  for (index_t i = 0; i < n; ++i) {
    bool has_diag = false;
    const double wi = w(i);
    for (index_t k = sc.row_ptr[i]; k < sc.row_ptr[i + 1]; ++k) {
      const bool diag = sc.col_idx[k] == i;
      has_diag = has_diag || diag;
      const double sv = sc.values[k];
      if (expl) {
        b.values[k] = static_cast<T>((diag ? 1.0 : 0.0) + r * sv);  // I + r S
      } else {
        const double kv = wi * sv;                                            // K = W S
        a.values[k] = static_cast<T>((diag ? wi : 0.0) - th * r * kv);        // A = W - theta r K
        b.values[k] = static_cast<T>((diag ? wi : 0.0) + (1 - th) * r * kv);  // B = W + (1 - theta) r K
      }
    }
    if (!has_diag) ++missing_diagonals;
  }
  if (missing_diagonals)
    throw error("heat: internal error: the conversion layer dropped a diagonal entry of the stencil");
  // c = r W g (explicit: r g).
  for (const auto& [i, gv] : sys.g) out.forcing.emplace_back(i, r * (expl ? 1.0 : w(i)) * gv);
  if (!expl) out.lhs = std::move(a);
  out.rhs = std::move(b);
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

namespace {
// LU of a tridiagonal matrix without pivoting (Thomas): c'_i = u_i / m_i,
// m_i = d_i - l_i c'_{i-1}. Stable for diagonally dominant matrices.
template <class T>
struct thomas_factor {
  std::vector<T> lower, c_prime, inv_m;
  explicit thomas_factor(const tridiagonal<T>& a)
      : lower(a.lower), c_prime(a.diag.size()), inv_m(a.diag.size()) {
    const std::size_t n = a.diag.size();
    double c_prev = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double m = double(a.diag[i]) - (i ? double(a.lower[i]) * c_prev : 0.0);
      if (m == 0 || !std::isfinite(m))
        throw invalid_argument("thomas: zero pivot at row " + std::to_string(i) +
                               " (matrix not diagonally dominant)");
      inv_m[i] = T(1.0 / m);
      c_prev = double(a.upper[i]) / m;
      c_prime[i] = T(c_prev);
    }
  }
  void solve(T* d) const {
    const std::size_t n = inv_m.size();
    d[0] *= inv_m[0];
    for (std::size_t i = 1; i < n; ++i) d[i] = (d[i] - lower[i] * d[i - 1]) * inv_m[i];
    for (std::size_t i = n - 1; i-- > 0;) d[i] -= c_prime[i] * d[i + 1];
  }
};
}  // namespace

template <class T>
void thomas_solve(const tridiagonal<T>& a, T* d) {
  if (a.diag.empty()) return;
  thomas_factor<T>(a).solve(d);
}

// ---- time stepping -------------------------------------------------------------

namespace detail {
namespace {

template <class T>
class cpu_backend final : public backend<T> {
 public:
  explicit cpu_backend(setup<T> s) : s_(std::move(s)), u_(std::move(s_.u0)), next_(u_.size()), b_(u_.size()) {
    if (s_.options.scheme != method::explicit_euler && s_.options.solver == step_solver::direct)
      thomas_.emplace(diagonals_of(s_.mats.lhs));
  }

  step_report step(bool measure_change) override {
    step_report rep;
    const std::size_t n = u_.size();
    const auto& m = s_.mats;
    if (s_.options.scheme == method::explicit_euler) {
      spmv(m.rhs, T(1), u_.data(), T(0), next_.data());  // u' = (I + r S) u + r g
      add_forcing(next_.data());
    } else {
      spmv(m.rhs, T(1), u_.data(), T(0), b_.data());  // b = B u + c
      add_forcing(b_.data());
      switch (s_.options.solver) {
        case step_solver::direct:
          copy(n, b_.data(), next_.data());
          thomas_->solve(next_.data());
          break;
        case step_solver::cg:
        case step_solver::jacobi: {
          copy(n, u_.data(), next_.data());  // warm start from u^n
          const solve_result res =
              s_.options.solver == step_solver::cg
                  ? cg(m.lhs, b_.data(), next_.data(), s_.options.stop)
                  : jacobi(m.lhs, b_.data(), next_.data(), s_.options.stop, jacobi_options{s_.options.omega});
          rep.iterations = res.iterations;
          rep.residual = res.relative_residual();
          rep.converged = res.converged;
          rep.status = res.status;
          if (!res.converged) return rep;  // u^n stays
          break;
        }
      }
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
  spmv_kernel kernel() const override { return spmv_kernel::cpu; }

 private:
  void add_forcing(T* y) const {
    for (const auto& [i, v] : s_.mats.forcing) y[i] += static_cast<T>(v);
  }
  setup<T> s_;
  std::vector<T> u_, next_, b_;
  std::optional<thomas_factor<T>> thomas_;
};

}  // namespace

template <class T>
std::unique_ptr<backend<T>> make_cpu_backend(setup<T> s) {
  return std::make_unique<cpu_backend<T>>(std::move(s));
}

}  // namespace detail

template <class T>
time_stepper<T>::time_stepper(const grid_problem& p, const step_options& opt, const std::vector<double>& u0) {
  p.validate();
  opt.validate(p);
  if (u0.size() != static_cast<std::size_t>(p.n))
    throw dimension_error("initial profile has " + std::to_string(u0.size()) +
                          " values for N = " + std::to_string(p.n));
  for (double v : u0)
    if (!std::isfinite(v)) throw invalid_argument("initial profile contains a non-finite value");
  r_ = mesh_ratio(p, opt.dt);
  dt_ = opt.dt;
  options_ = opt;
  detail::setup<T> s;
  s.problem = p;
  s.options = opt;
  s.mats = assemble_step<T>(p, opt.scheme, opt.dt);
  s.u0.assign(u0.begin(), u0.end());
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
std::vector<double> time_stepper<T>::solution() const {
  const std::vector<T> u = impl_->solution();
  return std::vector<double>(u.begin(), u.end());
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
  template std::unique_ptr<detail::backend<T>> detail::make_cpu_backend<T>(detail::setup<T>); \
  template class time_stepper<T>;
PERRON_HEAT(float)
PERRON_HEAT(double)
#undef PERRON_HEAT

}  // namespace perron::heat
