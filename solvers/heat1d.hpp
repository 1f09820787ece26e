// The 1D heat equation u_t = kappa u_xx on [0, L], solved by the method of lines.
//
// Grid: N points x_i = i dx, dx = L / (N - 1), both ends on the grid.
// Second-order central differences: (u_xx)_i ~ (u_{i-1} - 2 u_i + u_{i+1}) / dx^2.
//
// Boundary conditions, at each end independently:
//   dirichlet:V  u = V at that end. The end node is not an unknown: its row is
//                the identity (u stays V; the initial profile is overwritten
//                there), and its coupling V / dx^2 into the neighbouring row
//                moves to the right-hand side, so the column is eliminated too.
//   neumann:G    du/dn = G, the OUTWARD normal derivative (G = -u_x at x = 0,
//                G = u_x at x = L); G > 0 lets heat in at rate kappa G;
//                neumann:0 (= insulated) is the default Neumann value.
//                Ghost point: u_{-1} = u_1 + 2 dx G (second order), so row 0
//                reads (2 u_1 - 2 u_0 + 2 dx G) / dx^2 (likewise at x = L).
//
// Written as  du/dt = kappa / dx^2 (S u + g),  S the integer stencil matrix with
// the conditions above and g the boundary forcing (g_0 = 2 dx G_left at a
// Neumann end, g_1 = V_left next to a Dirichlet end; mirrored on the right).
// S is not symmetric at a Neumann end (row 0 is [-2, 2], row 1 starts [1, ...]),
// but W S is, for W = diag(1/2, 1, ..., 1, 1/2) at Neumann ends (1 elsewhere):
// K = W S is minus the weighted graph Laplacian of the path (rows sum to zero
// away from Dirichlet ends), symmetric negative semi-definite. W is the
// trapezoid rule's weight vector: this is the half-cell (finite-volume)
// treatment of the end cells.
//
// theta-scheme (theta = 0 explicit/FTCS, 1 implicit/backward Euler, 1/2
// Crank-Nicolson), r = kappa dt / dx^2, multiplied through by W:
//
//   (W - theta r K) u^{n+1} = (W + (1 - theta) r K) u^n + r W g
//         A (the lhs)                B (the rhs)          c
//
// A is symmetric positive definite (W > 0, -K >= 0), so CG applies, and it is
// strictly diagonally dominant with positive diagonal (an M-matrix), so
// Jacobi with omega = 1 converges and the implicit scheme obeys the discrete
// maximum principle. Conservation: with both ends insulated, 1^T K = 0, so
// 1^T W u^{n+1} = 1^T W u^n exactly: the trapezoid integral dx sum_i w_i u_i
// is conserved by every theta (up to the linear solver's residual).
// Explicit steps use the unscaled form u^{n+1} = (I + r S) u^n + r g, stable
// (and monotone) for r <= 1/2.
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/formats.hpp"
#include "../kernels/spmv.hpp"
#include "linear_solver.hpp"

namespace perron::heat {

// ---- the problem ----------------------------------------------------------
enum class boundary_kind { dirichlet, neumann };

struct boundary_condition {
  boundary_kind kind = boundary_kind::dirichlet;
  double value = 0;
};
// "dirichlet", "dirichlet:V", "neumann", "neumann:G", "insulated" (= neumann:0).
boundary_condition parse_boundary(std::string_view spec);
std::string describe(const boundary_condition& bc);

// The grid and the physics. Defaults are the command line's (--N, --L,
// --kappa, --left / --right); the app prints them from here.
struct grid_problem {
  index_t n = 101;
  double length = 1.0;
  double kappa = 1.0;
  boundary_condition left, right;

  double dx() const { return length / double(n - 1); }
  // x_i = i L / (N - 1) as written, rounded once: i * dx() rounds twice and
  // put 0.30000000000000004 for 0.3 at N = 11 (step:0.3 then missed its 1/2).
  double x(index_t i) const { return length * double(i) / double(n - 1); }
  // Throws invalid_argument naming the option: --N < 3, --L not finite > 0,
  // --kappa not finite >= 0, boundary values not finite.
  void validate() const;
};

// invalid_argument "--N must be at least 3 grid points (got N)" for n < 3:
// the app checks the count as given, before it is narrowed to index_t.
void check_grid_points(long long n);

// Initial conditions: "sin:K" (sin(K pi x / L), K >= 1), "gauss:x0:width"
// (exp(-(x - x0)^2 / (2 width^2))), "step:x0" (1 left of x0, 0 right, 1/2 at
// x0), "file:PATH" (one value per grid point, read by io::read_profile into
// `values`: the solver never opens the file).
struct initial_condition {
  enum class kind { sine, gauss, step, file };
  kind type = kind::sine;
  int mode = 1;
  double x0 = 0.5;
  double width = 0.1;
  std::string path;            // file: where the values came from (for messages and describe)
  std::vector<double> values;  // file: u(x_i, 0), one per grid point
  // invalid_argument where the fields are what parse_initial_condition
  // refuses (a mode outside 1..1e9, a width not > 0, X0 not finite): a struct
  // filled by hand gave a NaN profile, or a sine of all zeros, without a word.
  void validate() const;
};
initial_condition parse_initial_condition(std::string_view spec);
std::string describe(const initial_condition& ic);

// u(x_i, 0) on a valid grid (grid_problem::validate), with Dirichlet end
// values imposed. Throws dimension_error when a file profile's value count is
// not N.
std::vector<double> initial_profile(const initial_condition& ic, const grid_problem& p);

// A profile in closed form, u(x) = amplitude sin(wave x) + level + slope x,
// its end values pinned where pin_left / pin_right (Dirichlet ends, and the
// exact zeros of a sine there). Every exact solution heat1d knows has this
// form, so it can be evaluated where the state lives (the GPU) instead of as
// a host vector of N values.
struct closed_form {
  double amplitude = 0, wave = 0, level = 0, slope = 0;
  bool pin_left = false, pin_right = false;
  double left = 0, right = 0;  // the pinned values
  // u(x_i), as exact_solution / exact_steady_state evaluate it.
  double at(const grid_problem& p, index_t i) const {
    if (i == 0 && pin_left) return left;
    if (i == p.n - 1 && pin_right) return right;
    const double x = p.x(i);
    return amplitude * std::sin(wave * x) + level + slope * x;
  }
};
// The values at the N grid points.
std::vector<double> evaluate(const closed_form& f, const grid_problem& p);

// The exact solution at time t where one is known in closed form: sin:K with
// both ends dirichlet:0 gives exp(-kappa (K pi / L)^2 t) sin(K pi x / L).
std::optional<closed_form> exact_form(const grid_problem& p, const initial_condition& ic, double t);
std::optional<std::vector<double>> exact_solution(const grid_problem& p, const initial_condition& ic,
                                                  double t);
// The steady state where it exists: linear in x (satisfied exactly by the
// discrete scheme too). With two Neumann ends it exists only for zero net
// flux (G_left + G_right = 0) and is fixed by the conserved integral of u0
// (the trapezoid integral sum_i q_i u0_i, quadrature_weights).
std::optional<closed_form> steady_form(const grid_problem& p, double integral_u0);
std::optional<std::vector<double>> exact_steady_state(const grid_problem& p, const std::vector<double>& u0);
// Why there is no steady state ("" when there is one).
std::string steady_state_obstacle(const grid_problem& p);

// Trapezoid weights dx * w_i: integral of u ~ sum_i q_i u_i.
std::vector<double> quadrature_weights(const grid_problem& p);

// ---- the discretization ----------------------------------------------------
enum class method { explicit_euler, implicit_euler, crank_nicolson };
std::string_view name(method m);
method parse_method(std::string_view s);  // "explicit", "implicit", "cn"
double theta(method m);

// How fast steps of size dt approach the steady state: the largest |g(mu)|
// over the modes that decay, g(mu) = (1 - (1 - theta) r mu) / (1 + theta r mu)
// the theta-scheme's factor on a mode of S with eigenvalue -mu, r = kappa dt /
// dx^2. S's modes (ghost-point ends; Dirichlet ends are not unknowns) are
// sin or cos of i phi_k, mu_k = 4 sin^2(phi_k / 2):
//   both ends of one kind:  phi_k = k pi / (N - 1)
//   one of each:            phi_k = (2k - 1) pi / (2 (N - 1))
// (two Neumann ends: k = 0 is the conserved constant, which does not decay),
// so mu runs from mu_1 to 4 cos^2(phi_1 / 2) (4 with two Neumann ends), and
// |g| is largest at one of those ends. Infinite where kappa dt = 0.
double steady_contraction(const grid_problem& p, method m, double dt);
// The distance to the steady state a step's change implies: the error
// shrinks by at most rho a step, so after a step that moved u by `change`
// (max norm) the error is about rho / (1 - rho) change, the geometric tail.
// Infinite where rho >= 1. --steady stops where this is below --steady-tol:
// the change alone is 1 / (1 - rho) times too hopeful (kappa 1e-6 at the
// default dt: 10^8). It does not see a step's own error, which lands in u
// whole where rho is small (implicit, dt 100 at N = 1001, cg at rtol 1e-10:
// 4e-14 implied, 1.3e-7 off): heat1d checks the profile against steady_form
// where this says reached.
double steady_distance(double change, double rho);

// Largest r = kappa dt / dx^2 for which FTCS is stable (and monotone): 1/2.
constexpr double max_stable_r = 0.5;
double max_stable_dt(const grid_problem& p);

// One time step as  lhs u^{n+1} = rhs u^n + forcing  (explicit: lhs = I, not stored).
template <class T>
struct step_matrices {
  csr_matrix<T> lhs;  // A = W - theta r K (symmetric positive definite); empty for explicit
  csr_matrix<T> rhs;  // B = W + (1 - theta) r K; explicit: I + r S
  std::vector<std::pair<index_t, double>> forcing;  // the nonzeros of c (at most 4)
  double r = 0;
};
// S assembled as COO triplets and converted by the conversion layer (to_csr);
// A and B share its pattern (every row keeps its diagonal entry). p valid
// (grid_problem::validate), dt finite > 0 (step_options::validate).
template <class T>
step_matrices<T> assemble_step(const grid_problem& p, method m, double dt);

// A tridiagonal operator as the GPU stencil path and the direct solvers use it:
// constant interior coefficients, rows 0, 1, n-2, n-1 given in full, plus a
// constant added to those rows (the forcing). Extracted from the CSR, so the
// stencil path applies exactly the assembled matrix.
struct tridiagonal_stencil {
  index_t n = 0;
  double lower = 0, diag = 0, upper = 0;  // rows 2 .. n-3
  double edge[4][3] = {};                 // rows 0, 1, n-2, n-1: (lower, diag, upper)
  double edge_constant[4] = {};           // added to rows 0, 1, n-2, n-1
};
template <class T>
tridiagonal_stencil stencil_of(const csr_matrix<T>& a,
                               const std::vector<std::pair<index_t, double>>& forcing = {});

// The stencils of one step straight from the problem, no matrix built: rhs is
// B with the forcing c in its edge constants, lhs is A (all zero for explicit).
// Equal to stencil_of(assemble_step(p, m, dt)) in double, entry by entry: the
// same expressions in the same order. Costs O(1); the GPU path and the CPU
// direct path run on these alone.
struct step_stencils {
  tridiagonal_stencil lhs, rhs;
  double r = 0;
};
step_stencils make_step_stencils(const grid_problem& p, method m, double dt);
// Row i of a stencil: (lower, diag, upper) and the constant.
inline void stencil_row(const tridiagonal_stencil& s, index_t i, double& l, double& d, double& u, double& c) {
  const index_t n = s.n;
  if (i >= 2 && i < n - 2) {  // (not i + 2 < n: at n = 2^31 - 1 that overflows)
    l = s.lower, d = s.diag, u = s.upper, c = 0;
    return;
  }
  const int e = i == 0 ? 0 : (i == 1 ? 1 : (i == n - 2 ? 2 : 3));
  l = s.edge[e][0], d = s.edge[e][1], u = s.edge[e][2], c = s.edge_constant[e];
}

// Diagonals of a tridiagonal CSR (lower[0] = upper[n-1] = 0, as gtsv2 wants).
template <class T>
struct tridiagonal {
  std::vector<T> lower, diag, upper;
};
template <class T>
tridiagonal<T> diagonals_of(const csr_matrix<T>& a);
// Thomas algorithm (no pivoting: for diagonally dominant matrices), in place
// on d (n values); dimension_error unless the three diagonals hold n each.
template <class T>
void thomas_solve(const tridiagonal<T>& a, T* d);
// The three diagonals of a stencil, its coefficients rounded to T.
template <class T>
tridiagonal<T> diagonals_of(const tridiagonal_stencil& s);

// ---- time stepping ----------------------------------------------------------
enum class step_solver { cg, jacobi, direct };
std::string_view name(step_solver s);
step_solver parse_step_solver(std::string_view s);  // "cg", "jacobi", "direct"

enum class device { cpu, cuda };
std::string_view name(device d);

// How the GPU applies the tridiagonal operators: through an spmv_plan of the
// CSR (any kernel of spmv_kernels()), or the heat solver's own 3-point stencil
// kernel (reads only the vector: 2 s bytes per row instead of ~3 (s + 4) + 2 s;
// the default: no matrix is built). The CPU applies B as a stencil either way.
enum class operator_form { csr, stencil };
std::string_view name(operator_form f);
operator_form parse_operator_form(std::string_view s);

// How each step is taken. Defaults are the command line's (--method,
// --solver, --max-iter, --atol, --omega, --kernel, --operator,
// --check-interval); dt is the resolved step (plan_time), the relative
// tolerance a caller's choice or default_step_rel_tol.
struct step_options {
  method scheme = method::crank_nicolson;
  step_solver solver = step_solver::cg;
  double dt = 1e-3;
  stop_criterion stop;  // rel_tol: callers pick default_step_rel_tol
  double omega = 1.0;   // Jacobi weight
  device where = device::cpu;
  spmv_kernel kernel = spmv_kernel::automatic;  // GPU only; cpu on the CPU path
  operator_form form = operator_form::stencil;  // GPU: csr runs --kernel's SpMV
  bool force = false;                           // allow explicit steps with r > 1/2
  int check_interval = 4;                       // GPU solvers: minimum iterations between host checks

  // The one check of these options on grid p (valid itself): throws
  // invalid_argument naming the option (--dt, --max-iter, --rtol, --atol,
  // --omega, --check-interval, --kernel), and for explicit steps
  // with r > 1/2 without force, the largest stable dt.
  void validate(const grid_problem& p) const;
};

// Whether a step solves its system by iterations (cg, jacobi) that stop at
// stop.rel_tol / abs_tol: implicit or Crank-Nicolson steps not solved directly.
bool iterates(const step_options& o);

// The stop rule of an iterated step's solve: o.stop, with at least one
// iteration. The solve starts from u^n, whose residual b - A u^n is the step's
// change times A (theta r S u^n and the ends' terms): where that lies under
// rel_tol ||b||, the warm start alone passed and the step changed nothing, so
// runs of small r froze (--dt 1e-12 --T 1e-7: 9.9e-7 off the exact solution,
// its whole change, where the direct solve is 8e-11 off; --steady with --kappa
// 1e-10 said "reached" at the initial profile, 1 off). One iteration from u^n
// moves along that residual by the step's own Rayleigh quotient, the change
// to O(r) of itself (A = I - theta r S).
stop_criterion step_stop(const step_options& o);

// The default relative residual of a step's solve: 1e-10 in double; in float
// max(1e-5, 5e-7 (1 + 4 theta r)), near what float rounding allows. Throws
// invalid_argument where that floor passes 1e-3 (a float solve would then
// accept the warm start itself).
double default_step_rel_tol(const grid_problem& p, const step_options& o, bool single_precision);

// What --steady can reach. Each step carries an error of its own, a fraction
// e = rel_tol sqrt(N) + 2 u of max|u|: its linear solve's residual, up to
// rel_tol ||b||_2 ~ rel_tol sqrt(N) max|u| where the solver iterates, and a
// couple of units of rounding u of T. Near the steady state max|u| ~ s =
// max|u_steady|, and steps that contract by rho (steady_contraction) settle on
// a fixed point that error rho / (1 - rho) times over: they stall about
//     floor = e s rho / (1 - rho - 2 u rho)
// off the steady state, where a step's change no longer tells the distance (in
// float, heat1d --steady claimed a 1e-8 steady state 5e-3 off it). The
// denominator: at a distance d a step takes (1 - rho) d off it, and rounding
// may undo 2 u rho d of that (the solve's error on that part is a fraction of
// the step's change, as it iterates at least once: step_stop); INFINITY where
// 1 - rho <= 2 u rho, steps whose change rounds away at any distance (float
// with --kappa 1e-8: 1 - rho = 1e-10; "reached" was claimed at the initial
// profile, 1 off). Measured stalls: 0.1-1.1 of this floor at N = 101 and 1001
// (implicit, Dirichlet and mixed ends).
// max|u_steady| is bounded from the data: the Dirichlet values, |G| L at a
// Neumann end, and with two Neumann ends u0_bound, a bound of |u0| (the steady
// level is u0's mean).
double steady_floor(const grid_problem& p, const step_options& o, double unit_roundoff, double u0_bound);
// The step solves' relative tolerance for --steady to tol where the user gave
// none: `given` (the default), tightened until steady_floor is a tenth of tol,
// but not below what the solves reach: 64 u, or 2 u (1 + 4 theta r) where r
// is large (CG stalls near u (1 + 4 theta r), measured; steady_floor then
// refuses the run up front if that is not enough).
double steady_rel_tol(const grid_problem& p, const step_options& o, double given, double tol,
                      double unit_roundoff, double u0_bound);

// How long to run: to final_time in steps of dt (or a given number of
// steps), or with steady to the steady state. Defaults are the command
// line's (--T, --dt, --steps, --steady, --steady-tol, --max-steps).
struct run_options {
  double final_time = 0.1;
  std::optional<double> dt;
  std::optional<long> steps;
  bool steady = false;
  double steady_tol = 1e-8;
  long max_steps = 1000000;

  // The one check of these options on grid p (valid itself): throws
  // invalid_argument naming the option; --steady where no steady state
  // exists (steady_state_obstacle).
  void validate(const grid_problem& p) const;
};

// The step size and count a run takes (validated run_options):
// - dt given: steps = ceil(T / dt), then dt = T / steps, so that the run
//   ends exactly at T;
// - steps given: dt = T / steps;
// - neither: 100 steps for implicit / cn, 0.9 of the largest stable dt for
//   explicit.
// With steady the count is not a limit (the run stops on the steady state or
// at max_steps).
struct time_plan {
  double dt = 0;
  long steps = 0;
};
time_plan plan_time(const grid_problem& p, method m, const run_options& r);

// Which entries rows 0, 1, n-2, n-1 of the step matrices hold (the CSR
// pattern of assemble_step: an eliminated Dirichlet column has no entry), as
// (lower, diagonal, upper); the GPU builds the CSR from it and the stencils.
struct edge_pattern {
  bool has[4][3] = {};
};
edge_pattern step_pattern(const grid_problem& p);

struct step_report {
  int iterations = 0;
  double residual = 0;  // relative ||b - A u|| / ||b|| (0 for explicit/direct)
  bool converged = true;
  solve_status status = solve_status::converged;
  int host_syncs = 0;
  double change = -1;  // ||u^{n+1} - u^n||_inf when asked for, else -1
};

// What a timing harness (bench/heat1d_bench.hpp) needs of the GPU backend
// beyond step(): its stream, a device copy the size of the state, the bytes
// each operator moves, and CG runs of exactly k iterations. GPU path only.
struct step_traffic {
  double vector_bytes = 0;  // one n-vector: n sizeof(T)
  double rhs_bytes = 0;     // one application of B (CSR: row_ptr + col_idx + values + x + y; stencil: x + y)
  double lhs_bytes = 0;     // one application of A in the iterative solvers (0 for explicit / direct)
};
class device_probe {
 public:
  virtual ~device_probe() = default;
  virtual void* stream() const = 0;  // the cudaStream_t every step runs on
  // Enqueues a device-to-device copy of the state u into scratch (n values).
  virtual void copy_state() = 0;
  // Enqueues the copy back: u = scratch (what copy_state saved, if nothing
  // but blocked steps ran since).
  virtual void restore_state() = 0;
  virtual step_traffic traffic() const = 0;
  // CG only: begin sets b = B u + c (this step's system) and keeps the check
  // schedule; reset sets x = 0 (from x = 0, not the warm start, k iterations
  // stay far above underflow); blind(k) runs exactly k iterations (tolerance
  // 0: nothing but the limit stops them) and returns the count done; end
  // restores the schedule. The state u is untouched.
  // Explicit steps with --operator stencil only: advance the state by
  // `steps`, `per_pass` of them per pass over memory (temporal blocking).
  virtual bool can_block() const = 0;
  virtual void advance_blocked(long steps, int per_pass) = 0;
  // --solver direct only: the step's solve by cuSPARSE gtsv2_nopivot (on) or
  // the solver's own partitioned solve (off, the default).
  virtual bool has_direct() const = 0;
  virtual void use_library_direct(bool on) = 0;
  virtual bool has_cg() const = 0;
  virtual void begin_blind_cg() = 0;
  virtual void reset_blind_cg() = 0;
  virtual int blind_cg(int k) = 0;
  virtual void end_blind_cg() = 0;
};

namespace detail {
// A backend owns the state u^n and advances it; the CPU one lives in
// solvers/heat1d.cpp, the GPU one in solvers/cuda/heat1d.cu.
template <class T>
class backend {
 public:
  virtual ~backend() = default;
  // Advances one step unless the linear solver fails (then u is unchanged).
  virtual step_report step(bool measure_change) = 0;
  // k steps; stops after a failed one. Returns the steps done, `last` the
  // last step's report. The GPU's explicit stencil overrides it with several
  // steps per pass over memory.
  virtual long advance(long k, step_report& last) {
    for (long i = 0; i < k; ++i) {
      last = step(false);
      if (!last.converged) return i;
    }
    return k;
  }
  virtual std::vector<T> solution() const = 0;
  // The trapezoid integral sum_i q_i u_i and max_i |u_i - f(x_i)|, reduced
  // where u lives; NaN / inf when u holds one (max_error: NaN for a NaN).
  virtual double integral() const = 0;
  virtual double max_error(const closed_form& f) const = 0;
  virtual spmv_kernel kernel() const = 0;
  virtual device_probe* probe() { return nullptr; }  // GPU backends only
};
// What a backend starts from: the stencils always; the host CSR of A only
// where cg / jacobi apply it (on the CPU, or with --operator csr), otherwise
// empty. (The GPU's --operator csr builds B's CSR on the device.)
template <class T>
struct setup {
  grid_problem problem;
  step_options options;
  step_stencils stencils;
  csr_matrix<T> lhs;
  // The initial state: u0 values (the caller's, valid while the backend is
  // built), or, when null, ic's profile evaluated where the state lives (ic
  // not a file).
  const std::vector<double>* u0 = nullptr;
  const initial_condition* ic = nullptr;
};
template <class T>
std::unique_ptr<backend<T>> make_cpu_backend(setup<T> s);
template <class T>
std::unique_ptr<backend<T>> make_cuda_backend(setup<T> s);
}  // namespace detail

// Advances u^n step by step on the chosen device in precision T.
template <class T>
class time_stepper {
 public:
  // Validates p and opt (their validate(): invalid_argument naming the
  // option) and u0 (dimension_error for a count other than N, invalid_argument
  // for a non-finite value), assembles the operators and uploads u0.
  time_stepper(const grid_problem& p, const step_options& opt, const std::vector<double>& u0);
  // From the initial condition: initial_profile(ic, p), evaluated where the
  // state lives (on the GPU by a kernel: no host vector of N values, no
  // upload; a file profile's values are uploaded). dimension_error for a file
  // profile of the wrong length.
  time_stepper(const grid_problem& p, const step_options& opt, const initial_condition& ic);
  ~time_stepper();
  time_stepper(time_stepper&&) noexcept;
  time_stepper& operator=(time_stepper&&) noexcept;

  // One step. If the linear solver does not converge, the report says so and
  // u keeps its last good value (the caller stops and writes it).
  step_report step(bool measure_change = false);
  // k >= 1 steps in one call, the same as k calls of step() to rounding; the
  // GPU's explicit stencil takes several per pass over memory (temporal
  // blocking, solvers/cuda/heat1d.cu). Stops after a failed step; returns the
  // last step's report.
  step_report advance(long k);
  // The state u^n, copied to the host (N values: only for outputs that need them).
  std::vector<double> solution() const;
  // The trapezoid integral of u^n (sum_i q_i u_i, quadrature_weights) and its
  // max error against f, reduced where the state lives (GPU: the
  // deterministic reduction, one host sync each). A NaN or inf in u makes
  // integral() NaN or inf: heat1d's check that the run stayed finite.
  double integral() const;
  double max_error(const closed_form& f) const;
  long steps() const { return steps_; }
  double time() const { return double(steps_) * dt_; }
  double r() const { return r_; }
  const step_options& options() const { return options_; }
  spmv_kernel kernel() const;  // concrete kernel (GPU csr form); cpu otherwise
  // The GPU backend's hooks for benchmarks (bench/heat1d_bench.hpp); throws
  // invalid_argument on the CPU path.
  device_probe& probe();

 private:
  void build(const grid_problem& p, const step_options& opt, const std::vector<double>* u0,
             const initial_condition* ic);
  std::unique_ptr<detail::backend<T>> impl_;
  step_options options_;
  long steps_ = 0;
  double dt_ = 0;
  double r_ = 0;
};

}  // namespace perron::heat
