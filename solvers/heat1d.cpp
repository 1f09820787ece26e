// The 1D heat equation: problem description, initial conditions, exact
// solutions, assembly of the step matrices (math in solvers/heat1d.hpp), the
// CPU backend and the time stepper.
#include "solvers/heat1d.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/convert.hpp"
#include "kernels/vector_ops.hpp"
#include "solvers/cg.hpp"
#include "solvers/jacobi.hpp"

namespace perron::heat {

namespace {

constexpr double pi = 3.14159265358979323846;

std::string num(double v) {
  std::ostringstream o;
  o.precision(6);
  o << v;
  return o.str();
}

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

}  // namespace

// ---- problem ------------------------------------------------------------------

boundary_condition parse_boundary(std::string_view spec) {
  const auto parts = split(spec, ':');
  const std::string where = "boundary condition '" + std::string(spec) + "'";
  boundary_condition bc;
  if (parts[0] == "dirichlet") {
    bc.kind = boundary_kind::dirichlet;
  } else if (parts[0] == "neumann") {
    bc.kind = boundary_kind::neumann;
  } else if (parts[0] == "insulated" && parts.size() == 1) {
    bc.kind = boundary_kind::neumann;
    return bc;
  } else {
    throw invalid_argument("unknown " + where + " (valid: dirichlet[:VALUE], neumann[:DU_DN], insulated)");
  }
  if (parts.size() > 2) throw invalid_argument(where + ": expected KIND or KIND:VALUE");
  if (parts.size() == 2) bc.value = parse_number(parts[1], where);
  return bc;
}

std::string describe(const boundary_condition& bc) {
  return std::string(bc.kind == boundary_kind::dirichlet ? "dirichlet:" : "neumann:") + num(bc.value);
}

void grid_problem::validate() const {
  if (n < 3) throw invalid_argument("N must be at least 3 grid points (got " + std::to_string(n) + ")");
  if (!(length > 0) || !std::isfinite(length))
    throw invalid_argument("length L must be a finite number > 0 (got " + num(length) + ")");
  if (!(kappa >= 0) || !std::isfinite(kappa))
    throw invalid_argument("diffusivity kappa must be a finite number >= 0 (got " + num(kappa) + ")");
  if (!std::isfinite(left.value) || !std::isfinite(right.value))
    throw invalid_argument("boundary values must be finite");
}

initial_condition parse_initial_condition(std::string_view spec) {
  const std::string where = "initial condition '" + std::string(spec) + "'";
  initial_condition ic;
  const std::size_t colon = spec.find(':');
  const std::string_view head = spec.substr(0, colon);
  if (head == "file") {
    if (colon == std::string_view::npos || colon + 1 == spec.size())
      throw invalid_argument(where + ": expected file:PATH");
    ic.type = initial_condition::kind::file;
    ic.path = std::string(spec.substr(colon + 1));
    return ic;
  }
  const auto parts = split(spec, ':');
  if (parts[0] == "sin") {
    ic.type = initial_condition::kind::sine;
    if (parts.size() > 2) throw invalid_argument(where + ": expected sin:K");
    if (parts.size() == 2) {
      const double k = parse_number(parts[1], where);
      if (k < 1 || k != std::floor(k) || k > 1e9)
        throw invalid_argument(where + ": the mode K must be a positive integer");
      ic.mode = static_cast<int>(k);
    }
  } else if (parts[0] == "gauss") {
    ic.type = initial_condition::kind::gauss;
    if (parts.size() != 3) throw invalid_argument(where + ": expected gauss:X0:WIDTH");
    ic.x0 = parse_number(parts[1], where);
    ic.width = parse_number(parts[2], where);
    if (!(ic.width > 0)) throw invalid_argument(where + ": WIDTH must be > 0");
  } else if (parts[0] == "step") {
    ic.type = initial_condition::kind::step;
    if (parts.size() != 2) throw invalid_argument(where + ": expected step:X0");
    ic.x0 = parse_number(parts[1], where);
  } else {
    throw invalid_argument("unknown " + where + " (valid: sin:K, gauss:X0:WIDTH, step:X0, file:PATH)");
  }
  return ic;
}

std::string describe(const initial_condition& ic) {
  switch (ic.type) {
    case initial_condition::kind::sine:
      return "sin:" + std::to_string(ic.mode);
    case initial_condition::kind::gauss:
      return "gauss:" + num(ic.x0) + ":" + num(ic.width);
    case initial_condition::kind::step:
      return "step:" + num(ic.x0);
    case initial_condition::kind::file:
      return "file:" + ic.path;
  }
  return "?";
}

namespace {
std::vector<double> read_profile_file(const std::string& path, index_t n) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw io_error(path, "is a directory, not an initial-condition file");
  std::ifstream in(path);
  if (!in) throw io_error(path, "cannot open the initial-condition file");
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(n));
  std::string line;
  std::uint64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string w;
    while (words >> w) {
      char* end = nullptr;
      const double x = std::strtod(w.c_str(), &end);
      if (end != w.c_str() + w.size() || !std::isfinite(x))
        throw parse_error(path, line_no, "'" + w + "' is not a finite number");
      if (v.size() == static_cast<std::size_t>(n))
        throw dimension_error(path + ": more than N = " + std::to_string(n) + " values (one per grid point)");
      v.push_back(x);
    }
  }
  if (in.bad()) throw io_error(path, "read error");
  if (v.size() != static_cast<std::size_t>(n))
    throw dimension_error(path + ": " + std::to_string(v.size()) + " values, but the grid has N = " +
                          std::to_string(n) + " points (one value per point)");
  return v;
}
}  // namespace

std::vector<double> initial_profile(const initial_condition& ic, const grid_problem& p) {
  p.validate();
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
      u = read_profile_file(ic.path, p.n);
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
           num(p.kappa * (p.left.value + p.right.value)) +
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

std::string_view name(method m) {
  switch (m) {
    case method::explicit_euler:
      return "explicit";
    case method::implicit_euler:
      return "implicit";
    case method::crank_nicolson:
      return "cn";
  }
  return "?";
}
method parse_method(std::string_view s) {
  if (s == "explicit") return method::explicit_euler;
  if (s == "implicit") return method::implicit_euler;
  if (s == "cn" || s == "crank-nicolson") return method::crank_nicolson;
  throw invalid_argument("unknown method '" + std::string(s) + "' (valid: explicit, implicit, cn)");
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

template <class T>
step_matrices<T> assemble_step(const grid_problem& p, method m, double dt) {
  p.validate();
  if (!(dt > 0) || !std::isfinite(dt))
    throw invalid_argument("time step dt must be a finite number > 0 (got " + num(dt) + ")");
  const index_t n = p.n;
  const double dx = p.dx();
  const double r = p.kappa * dt / (dx * dx);
  const bool dl = is_dirichlet(p.left), dr = is_dirichlet(p.right);

  // S (integer stencil with the boundary conditions) and g, as COO.
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
  std::vector<std::pair<index_t, double>> g;  // nonzeros of the forcing g
  auto add_g = [&](index_t i, double v) {
    if (v == 0) return;
    for (auto& e : g)
      if (e.first == i) {
        e.second += v;
        return;
      }
    g.emplace_back(i, v);
  };
  // Row 0.
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
  // Row n-1.
  if (dr) {
    put(n - 1, n - 1, 0.0);
  } else {
    put(n - 1, n - 1, -2.0);
    put(n - 1, n - 2, 2.0);
    add_g(n - 1, 2 * dx * p.right.value);
  }
  const csr_matrix<double> sc = to_csr(s);
  s = coo_matrix<double>{};

  // W: 1/2 on Neumann end rows (trapezoid weights), 1 elsewhere.
  auto w = [&](index_t i) { return ((i == 0 && !dl) || (i == n - 1 && !dr)) ? 0.5 : 1.0; };
  const double th = theta(m);
  const bool expl = m == method::explicit_euler;

  step_matrices<T> out;
  out.r = r;
  csr_matrix<T> a, b;
  a.rows = a.cols = b.rows = b.cols = n;
  b.row_ptr = sc.row_ptr;
  b.col_idx = sc.col_idx;
  b.values.resize(sc.nnz());
  if (!expl) {
    a.row_ptr = sc.row_ptr;
    a.col_idx = sc.col_idx;
    a.values.resize(sc.nnz());
  }
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
        const double kv = wi * sv;  // K = W S
        a.values[k] = static_cast<T>((diag ? wi : 0.0) - th * r * kv);
        b.values[k] = static_cast<T>((diag ? wi : 0.0) + (1 - th) * r * kv);
      }
    }
    if (!has_diag) ++missing_diagonals;
  }
  if (missing_diagonals)
    throw error("heat: internal error: the conversion layer dropped a diagonal entry of the stencil");
  for (const auto& [i, gv] : g) out.forcing.emplace_back(i, r * (expl ? 1.0 : w(i)) * gv);
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

std::string_view name(step_solver s) {
  switch (s) {
    case step_solver::cg:
      return "cg";
    case step_solver::jacobi:
      return "jacobi";
    case step_solver::direct:
      return "direct";
  }
  return "?";
}
step_solver parse_step_solver(std::string_view s) {
  if (s == "cg") return step_solver::cg;
  if (s == "jacobi") return step_solver::jacobi;
  if (s == "direct") return step_solver::direct;
  throw invalid_argument("unknown solver '" + std::string(s) + "' (valid: cg, jacobi, direct)");
}
std::string_view name(device d) { return d == device::cpu ? "cpu" : "cuda"; }
std::string_view name(operator_form f) { return f == operator_form::csr ? "csr" : "stencil"; }
operator_form parse_operator_form(std::string_view s) {
  if (s == "csr") return operator_form::csr;
  if (s == "stencil") return operator_form::stencil;
  throw invalid_argument("unknown operator form '" + std::string(s) + "' (valid: csr, stencil)");
}

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
  bench_report bench(int, int) override {
    throw invalid_argument("the benchmark mode times the GPU (use the cuda device)");
  }

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
  opt.stop.validate();
  if (!(opt.dt > 0) || !std::isfinite(opt.dt))
    throw invalid_argument("time step dt must be a finite number > 0 (got " + num(opt.dt) + ")");
  if (u0.size() != static_cast<std::size_t>(p.n))
    throw dimension_error("initial profile has " + std::to_string(u0.size()) +
                          " values for N = " + std::to_string(p.n));
  for (double v : u0)
    if (!std::isfinite(v)) throw invalid_argument("initial profile contains a non-finite value");
  const double dx = p.dx();
  r_ = p.kappa * opt.dt / (dx * dx);
  dt_ = opt.dt;
  if (opt.scheme == method::explicit_euler && r_ > max_stable_r * (1 + 1e-12) && !opt.force)
    throw invalid_argument("explicit (FTCS) steps are unstable for r = kappa dt / dx^2 = " + num(r_) +
                           " > 1/2: the largest stable dt is " + num(max_stable_dt(p)) +
                           " (use a smaller dt, an implicit method, or force)");
  if (opt.solver == step_solver::jacobi && !(opt.omega > 0 && opt.omega < 2))
    throw invalid_argument("Jacobi weight omega must be in (0, 2) (got " + num(opt.omega) + ")");
  if (opt.where == device::cpu) {
    if (opt.kernel != spmv_kernel::cpu && opt.kernel != spmv_kernel::automatic)
      throw invalid_argument("SpMV kernel '" + std::string(name(opt.kernel)) +
                             "' runs on the GPU, but the CPU path was chosen");
    if (opt.form == operator_form::stencil)
      throw invalid_argument("the stencil operator form is a GPU path (the CPU uses the CSR matrix)");
  } else if (opt.kernel == spmv_kernel::cpu) {
    throw invalid_argument("SpMV kernel 'cpu' cannot run on the GPU path");
  }
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
bench_report time_stepper<T>::bench(int warmup, int reps) {
  bench_report b = impl_->bench(warmup, reps);
  steps_ += warmup + reps;
  return b;
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
