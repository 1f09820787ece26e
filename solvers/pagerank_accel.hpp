// PageRank's --accelerate: the extrapolation formulas, shared by the CPU
// solver (solvers/pagerank.cpp) and the GPU one (solvers/cuda/pagerank_accel.cuh;
// constexpr, so device code calls them under --expt-relaxed-constexpr).
//
// Power iteration's error falls like |lambda_2|^k with |lambda_2| <= alpha, so
// it is slow near alpha = 1. Every `accelerate_every` plain steps the last
// iterates x_{k-3}, ..., x_k are combined into an estimate of the limit and
// the iteration goes on from it (Kamvar, Haveliwala, Manning, Golub,
// "Extrapolation Methods for Accelerating PageRank Computations", WWW 2003).
// Only plain steps decide convergence: the solve stops at a step
// r_{k+1} = G(r_k) with ||r_{k+1} - r_k||_1 < tol, exactly as without
// acceleration, and an extrapolated vector is always followed by at least one
// plain step that measures its true residual. A bad extrapolation costs
// iterations, never the guarantee.
//
// quadratic (Kamvar et al., section 5): assume x_{k-3} lies in the span of the
// first three eigenvectors u_1, u_2, u_3 of G. Then the minimal polynomial
// g_0 + g_1 z + g_2 z^2 + g_3 z^3 of G on that span has the root 1, so
// g_0 = -(g_1 + g_2 + g_3), and with y_j = x_{k-3+j} - x_{k-3} (j = 1, 2, 3)
//     g_1 y_1 + g_2 y_2 + g_3 y_3 = 0.
// With g_3 = 1, (g_1, g_2) is the least-squares solution of [y_1 y_2] g = -y_3
// (here through the 2 x 2 normal equations, summed in double), and
//     u_1 ~ b_0 x_{k-2} + b_1 x_{k-1} + b_2 x_k,
//     b_0 = g_1 + g_2 + g_3,  b_1 = g_2 + g_3,  b_2 = g_3,
// divided by its sum b_0 s_{k-2} + b_1 s_{k-1} + b_2 s_k (s_j: the sum of x_j's
// entries, 1 up to rounding) so that it sums 1. The rounding of the iterates'
// masses decays only like alpha^k in the power iteration, and the weights
// reach 1 / (1 - alpha)^2: dividing by b_0 + b_1 + b_2 alone would leave the
// float solve's mass 2e-6 off at alpha 0.99 (harvard500).
//
// aitken (Kamvar et al., section 4): per vertex, as if its entry were one
// geometric mode x_j = L + c rho^j,
//     x* = x_{k-2} - g_1^2 / (g_2 - g_1) = x_k + g_2 rho / (1 - rho),
//     g_1 = x_{k-1} - x_{k-2},  g_2 = x_k - x_{k-1},  rho = g_2 / g_1,
// then the vector is divided by its sum.
//
// The safeguard (aitken only): at the end of the run of plain steps that
// started from an extrapolation, when its last residual is not below the
// residual of the last plain step before the extrapolation, the run is
// dropped: the iteration goes on from the x_k the extrapolation replaced
// (accelerate_every steps spent) and no later extrapolation runs in this
// solve. Checked a whole run later, not at once: after a good extrapolation
// the residual often rises for a few steps while the error falls (harvard500
// at alpha 0.99: 2-6x on the first step, then far below). Quadratic
// extrapolation runs without it: on the H100 it never stalled without one
// (docs/PERFORMANCE.md), and with it false alarms cost it up to 2.8x its
// steps (harvard500 in double at alpha 0.99: 865 instead of 309;
// wb-cs-stanford in float: 575 instead of 271; cnr-2000: 913 instead of 719).
// Without it Aitken stalled at alpha 0.99 on cnr-2000 and wb-cs-stanford
// (residual 0.3 and 5e-3 after 20000 steps: their sequences oscillate, which
// one real mode per vertex cannot follow).
//
// rre (reduced rank extrapolation: Eddy 1979, Mesina 1977; Sidi, "Vector
// Extrapolation Methods with Applications", SIAM 2017, ch. 1), the
// quadratic's idea over a window of W = min(8, every - 1) differences: keep
// x_{k-W}, ..., x_k, u_j = x_{k-W+j+1} - x_{k-W+j} (j = 0 .. W-1). If the
// error is a sum of W modes, x_j = x* + sum_i c_i lambda_i^j v_i, the
// minimal polynomial's coefficients, divided by its value at 1, are weights
// gamma with sum_j gamma_j = 1, sum_j gamma_j u_j = 0 and
// sum_j gamma_j x_{k-W+j+1} = x*. In general gamma minimizes
// ||sum_j gamma_j u_j||_2 subject to sum_j gamma_j = 1: with the Gram matrix
// G_pq = u_p . u_q, gamma = G^-1 1 / (1^T G^-1 1) where G is regular
// (rre_extrapolation solves it as a least-squares problem that leaves out
// the differences that add only rounding). No difference left, or a weight
// past the quadratic's bound, and the quadratic formula on the window's
// last four iterates runs instead. rre runs behind auto's gate and idle
// stop. Counted on 27 graphs (scripts/extrapolation_probe.cpp, CPU, float
// and double, docs/PERFORMANCE.md): at alpha 0.85 and tol 1e-6 10-40% fewer
// steps than auto's quadratic on the slowly mixing ones (cnr-2000 54 -> 39,
// wb-cs-stanford 51 -> 32, as-caida 31 -> 24, grid:500:500 19 -> 15), the
// same on the fast ones (random, power-law, dangling), a chain 61 -> 64.
// Its price: W saves a run instead of 3, and one pass over W + 1 iterates for
// the W (W + 1) / 2 sums.
#pragma once

namespace perron::accel {

// The weights (b_0, b_1, b_2) / (b_0 + b_1 + b_2) of x_{k-2}, x_{k-1}, x_k;
// ok false: skip this extrapolation.
struct quadratic_weights {
  double w0 = 0, w1 = 0, w2 = 1;
  bool ok = false;
};

constexpr double abs_of(double x) { return x < 0 ? -x : x; }
constexpr bool finite(double x) { return x - x == 0.0; }  // false for inf and NaN

// From the sums over the vertices (in double) a11 = y_1.y_1, a12 = y_1.y_2,
// a22 = y_2.y_2, b1 = y_1.y_3, b2 = y_2.y_3 and the iterates' masses s0 =
// s_{k-2}, s1 = s_{k-1}, s2 = s_k. Skipped when [y_1 y_2] is
// numerically rank deficient (the iterates no longer change beyond rounding,
// or only one mode is left), or when a weight exceeds 2 / (1 - alpha)^2: for
// the exact three-mode case the polynomial is (z - 1)(z - l_2)(z - l_3), so
// b = (l_2 l_3, -(l_2 + l_3), 1) and b_0 + b_1 + b_2 = (1 - l_2)(1 - l_3),
// and |l| <= alpha bounds every weight by 2 / (1 - alpha)^2; anything larger
// is noise amplified, not extrapolation.
//
// One mode left ([y_1 y_2] rank deficient: one hub holding most links; the
// system above has no solution): the run's last steps follow x_j = x* + c
// lambda^j u, so with d_k = x_k - x_{k-1} = y_3 - y_2 and d_{k-1} = y_2 - y_1,
// lambda = d_k.d_{k-1} / d_{k-1}.d_{k-1} (from the same five sums) and x* =
// (x_k - lambda x_{k-1}) / (1 - lambda): b = (0, -lambda, 1). Trusted for
// 0 < |lambda| <= alpha (every eigenvalue but 1 has |lambda| <= alpha); a
// negative one is the hub's: mass swinging between the hub and its leaves
// (hub:1000:200 at alpha 0.85: lambda = -0.77 in every run, 56 plain steps).
//
// The two-mode fit is trusted, as the one-mode one, only where its modes
// could be error modes: both roots l_2, l_3 of z^2 + b_1 z + b_0 within alpha,
// give or take a tenth of 1 - alpha for the fit's own error (modes at alpha
// exactly are common: every closed set of vertices has one). A root near 1 is
// the stationary vector read as an error mode, and the weights' 1 / ((1 -
// l_2)(1 - l_3)) then throws the iterate away: personalized solves at alpha
// 0.99 (two self-loops, one reached from the source and one not: a double
// root at alpha) went to ranks of +-1.7e13 after 99 such jumps, where plain
// steps converge in 809. Over 1500 random personalized graphs (3-60
// vertices, alpha 0.99 and 0.999, tol 1e-6; scripts/accel_fit_model.py, a
// model of the CPU solver) the test took the solves that ended off the answer
// from 21 to 0 and the mean steps from 110 to 84 (plain: 237); on 400 uniform
// ones at 0.85 and 0.99, 31.3 to 31.1 (docs/PERFORMANCE.md, session 109).
//
// Skipped too where the weights would magnify the iterates' rounding past a
// thousandth of their mass: floor (rounding_floor<T>() of the solve's
// precision) times |w_0| + |w_1| + |w_2| > 1e-3. The weights follow 1 /
// (1 - lambda), and where 1 - lambda is smaller than the rounding of the
// sums lambda is read from (float at alpha 0.99999: 1e-5 against about 3e-5),
// lambda, and with it the jump, is noise: two cycles at alpha 0.99999 in
// float ended at ranks of -110 and 74 after five such extrapolations, where
// plain steps kept 0.20 and 0.198. At alpha 0.85 the bound above keeps the
// weights' sum under 270 (3e-5 of float's rounding): never reached there.
// True where both roots of z^2 + b1 z + b0 (the fitted modes l_2, l_3: b0 =
// l_2 l_3, b1 = -(l_2 + l_3)) have modulus <= rho, without a square root
// (device code): a complex pair's |l|^2 = b0; real roots lie in [-rho, rho]
// where the parabola's vertex -b1 / 2 does and it is >= 0 at both ends.
constexpr bool modes_within(double b0, double b1, double rho) {
  if (b1 * b1 < 4.0 * b0) return b0 <= rho * rho;
  return abs_of(b1) <= 2.0 * rho && rho * rho + b1 * rho + b0 >= 0.0 && rho * rho - b1 * rho + b0 >= 0.0;
}

constexpr quadratic_weights quadratic_extrapolation(double a11, double a12, double a22, double b1, double b2,
                                                    double s0, double s1, double s2, double alpha,
                                                    double floor) {
  quadratic_weights q;
  const double det = a11 * a22 - a12 * a12;
  double b0 = 0.0, bb1 = 0.0, bb2 = 1.0;
  if (det > 1e-10 * a11 * a22 && finite(det)) {
    const double g1 = (a12 * b2 - a22 * b1) / det;
    const double g2 = (a12 * b1 - a11 * b2) / det;
    b0 = g1 + g2 + 1.0;
    bb1 = g2 + 1.0;
    if (!modes_within(b0, bb1, alpha + (1.0 - alpha) / 10)) return q;
  } else {
    const double cross = b2 - b1 - a22 + a12, last = a22 - 2.0 * a12 + a11;
    if (!(last > 0.0) || !finite(cross) || !finite(last)) return q;
    const double lambda = cross / last;
    if (!(abs_of(lambda) <= alpha) || lambda == 0.0) return q;
    bb1 = -lambda;
  }
  const double sum = b0 * s0 + bb1 * s1 + bb2 * s2;
  const double bound = 2.0 / ((1.0 - alpha) * (1.0 - alpha));
  if (!finite(sum) || sum == 0.0) return q;
  q.w0 = b0 / sum;
  q.w1 = bb1 / sum;
  q.w2 = bb2 / sum;
  q.ok = finite(q.w0) && finite(q.w1) && abs_of(q.w0) <= bound && abs_of(q.w1) <= bound &&
         abs_of(q.w2) <= bound && (abs_of(q.w0) + abs_of(q.w1) + abs_of(q.w2)) * floor <= 1e-3;
  return q;
}

// Aitken's x* for one vertex from x_{k-2}, x_{k-1}, x_k, not yet normalized.
// Trusted only where the entry moves like one mode of real ratio
// rho in (0, alpha] (every eigenvalue but 1 has |lambda| <= alpha): the same
// direction twice, shrinking; then the jump is at most |g_2| alpha / (1 - alpha).
// Elsewhere (sign changes: complex or negative modes; growth; rounding) x_k is kept.
constexpr double aitken_value(double x0, double x1, double x2, double alpha) {
  const double g1 = x1 - x0, g2 = x2 - x1;
  if (!(g1 * g2 > 0.0) || !(abs_of(g2) <= alpha * abs_of(g1))) return x2;
  const double rho = g2 / g1;
  return x2 + g2 * rho / (1.0 - rho);
}

// The safeguard's test at the end of the run after an extrapolation.
constexpr bool reject_extrapolation(double residual_after, double residual_before) {
  return !(residual_after <= residual_before);
}

// auto: quadratic extrapolation where it pays. Its price is about one or two
// steps of vector traffic a run (three saves, two passes over four iterates);
// it pays back only the plain steps it removes.
//
// The gate, at the end of a run: extrapolate only when plain steps at the
// rate of the run's last, rate1 = residual_k / residual_{k-1}, would not reach
// tol within two steps: residual_k rate1^2 >= tol. The extrapolated vector
// needs a plain step to measure it (and after a good extrapolation the
// residual often rises for a step or two before it falls), so where plain
// steps would stop within two steps a jump saves at most one, and it costs at
// least that much on every path (the CPU's passes above; a run's saves and
// end in the persistent kernel: 2-4 of its steps, docs/PERFORMANCE.md; the
// fused pull's launches more). A residual that does not fall (rate1 >= 1) is
// left to the extrapolation. Over the 49 shared and generated graphs up to 10^6
// links (CPU, float and double, alpha 0.85) the two-step gate took the one-step
// gate's step count on every graph and dropped one extrapolation that saved no
// step (powerlaw:100000:1000000, exponents 2.2 and 3: 12 steps either way); a
// three-step gate cost steps (rmat:16:1000000 11 -> 13, LFAT5 11 -> 13).
// (A gate three steps ahead, residual_k q >= tol with q the rate over the run's
// last three steps, kept rmat:16:1000000:0.45,0.15,0.15 from an extrapolation
// that cut its 21 steps to 15: the early steps' fast modes overstate the rate.)
constexpr bool extrapolation_pays(double residual, double residual_1_before, double tol) {
  if (!(residual_1_before > 0.0)) return true;
  const double rate1 = residual / residual_1_before;
  if (!(rate1 < 1.0)) return true;
  return residual * rate1 * rate1 >= tol;
}

// The iterates' rounding floor: x sums to 1, so a residual ||x_k - x_{k-1}||_1
// under T's epsilon is a change of less than one rounding unit an entry on
// average. Below it the differences an extrapolation combines are the
// iterates' rounding, not their error, and every method (auto, quadratic,
// aitken, rre) skips its extrapolation there: a float solve at --tol 1e-9
// (200 vertices, 6 links each) reached 8e-9 by step 20, where plain steps
// went on to an exact fixed point (4.7e-10 at step 29) and each extrapolation
// knocked the iterate back to 3e-8, every ten steps, to max_iter
// (auto's idle stop reads a rate of rounding, no verdict). In double the
// floor (2.2e-16) sits under any --tol a solve can reach.
template <class T>
constexpr double rounding_floor() {
  return sizeof(T) == sizeof(float) ? 1.1920928955078125e-07 : 2.220446049250313e-16;
}

// auto's solve read off the plain solve's first steps: residual[k - 1] =
// ||r_k - r_{k-1}||_1 of plain step k from the same start, k = 1 .. count.
// True where the solve stops (tol or max_iter) within those steps with no
// extrapolation on the way: every run's end before the stop is refused by
// the gate (extrapolation_pays, residual_1 = step k - 1's, as the solvers
// keep it), so auto's solve is the plain one, step for step, and can run
// without the extrapolating machinery (its saves, its run ends, the
// persistent kernel's extrapolating form). False where it extrapolates or
// the steps given do not reach the stop.
// floor: rounding_floor<T>() of the solve's precision (no extrapolation under it).
constexpr bool plain_steps_decide(const double* residual, int count, double tol, int max_iter, int every,
                                  double floor) {
  for (int k = 1; k <= count; ++k) {
    const double r = residual[k - 1];
    if (!(r >= 0.0)) return false;  // NaN: not a trace to trust
    if (r < tol || k >= max_iter) return true;
    if (every > 0 && k % every == 0 && r >= floor &&
        extrapolation_pays(r, k >= 2 ? residual[k - 2] : 0.0, tol))
      return false;
  }
  return false;
}

// x^k for k >= 0 (constexpr, for the device too).
constexpr double power(double x, int k) {
  double p = 1.0;
  for (; k > 0; k >>= 1, x *= x)
    if (k & 1) p *= x;
  return p;
}

// auto's stop, at the end of the run after an extrapolation: the extrapolation
// was idle when that run's residual ended where plain steps at the one-step
// rate before it would have put it, residual_before rate1^every, within 2%
// (two steps' worth at alpha 0.99, a tenth of one at 0.85; the float solve's
// rate1 is good to about 0.1%, which the tenth power makes 1%). Chains are
// the case: their error is a wave moving down each chain, which no
// combination of three iterates removes, so every extrapolation leaves the
// residual on its line to three or four digits while it costs two or three
// of their cheap steps (chain:1000000:1000, 755 steps either way, 1.16-1.33x
// the time on the CPU). idle_to_stop idle ones in a row end the
// extrapolations of the solve. The test is two-sided on purpose: a residual
// above the line is no verdict, since after a good jump the residual can stay
// above its level before it for a whole run while the error falls
// (harvard500 at alpha 0.99: stopping there cost 593 steps against 179).
constexpr bool extrapolation_idle(double residual_after, double residual_before, double rate1_before,
                                  int every) {
  if (!(rate1_before > 0.0 && rate1_before < 1.0)) return false;
  const double plain = residual_before * power(rate1_before, every);
  return abs_of(residual_after - plain) <= 0.02 * plain;
}
constexpr int idle_to_stop = 2;

// auto's (and rre's) second stop, cumulative where the idle stop looks at one
// run: plain steps contract the residual by alpha at least (for x, y of equal
// mass, ||G x - G y||_1 <= alpha ||x - y||_1), so from the iterate x_a that the
// solve's first extrapolation replaced, at step a with residual r_a, plain
// steps alone would have been at r_a alpha^(k - a) or below by step k. A run
// that ends, after an extrapolation, more than plain_line_slack times above
// that line ends the extrapolations, and the solve goes on with plain steps
// from its iterate: an extrapolating solve takes at most about the steps the
// contraction guarantees plain steps from x_a, ln(slack r_a / tol) /
// ln(1 / alpha), and its last iterate's excess over the line on top.
// The case: rre personalized to one vertex of wb-cs-stanford at alpha 0.999
// on the CPU (1999 extrapolations, each a little worse than the plain steps
// it replaced: a residual of 1.2e-5 after 20000 steps in float, 15963 steps
// in double, where plain steps converge in 7426; with the stop 12178 and
// 12146). The GPU's rre had taken 772-2672 steps there only because its sums
// read the extrapolated iterates' negative entries as 0 in the dangling mass,
// so its steps were not PageRank steps (core/cuda/reduce.cuh, session 112).
// The slack: a jump often raises the residual for a run or more while the
// error falls, up to 2.5 times this line in winning solves (netscience
// personalized at alpha 0.99: 255 steps against plain's 1043). With no
// slack the stop ended cnr-2000's extrapolations after the first, whose
// damage the later ones repair (uniform at alpha 0.99: 1043 steps against
// 709, plain 904). A line from the best run end so far (min_j r_j alpha^(k -
// j)) is no judge either: winning solves gain in jumps between long stretches
// above it, up to 12 times (harvard500 personalized at alpha 0.999: 319 steps
// against plain's 4131). docs/PERFORMANCE.md, session 111. anchor_residual 0:
// no extrapolation yet.
constexpr double plain_line_slack = 4.0;
constexpr bool behind_plain_line(double residual, int step, double anchor_residual, int anchor_step,
                                 double alpha) {
  return anchor_residual > 0.0 && step > anchor_step &&
         residual > plain_line_slack * anchor_residual * power(alpha, step - anchor_step);
}
// The line's anchor: the residual and step of the solve's first applied
// extrapolation (the x_k it replaced); later ones leave it.
constexpr void anchor_plain_line(double& anchor_residual, int& anchor_step, double residual, int step) {
  if (anchor_residual > 0.0) return;
  anchor_residual = residual;
  anchor_step = step;
}

// auto's and rre's two stops, at the end of the run that an extrapolation
// began (`residual` its last, at step `step`): `idle` counts idle
// extrapolations in a row; true ends the solve's extrapolations. One rule for
// the CPU loop, the GPU host loop's check_kernel and the persistent kernel's
// gate_run.
constexpr bool gated_stop(int& idle, double residual, int step, double residual_before, double rate1_before,
                          int every, double anchor_residual, int anchor_step, double alpha) {
  idle = extrapolation_idle(residual, residual_before, rate1_before, every) ? idle + 1 : 0;
  return idle >= idle_to_stop || behind_plain_line(residual, step, anchor_residual, anchor_step, alpha);
}

// Which saved iterate the step `step` of a run of `every` plain steps (1 ..
// every; 0 for every, as a step count modulo every gives it) leaves: 0, 1, 2
// for x_{k-3}, x_{k-2}, x_{k-1} after steps every-3 .. every-1, none (-1)
// otherwise, nor x_{k-3} for aitken, which reads the last two. One rule for
// the CPU solver, the fused pull's save kernels and the spmv pull's update kernel.
constexpr int run_slot(int step, int every, bool aitken) {
  const int which = step - (every - 3);
  return which >= 0 && which < 3 && !(which == 0 && aitken) ? which : -1;
}

// ---- rre ----------------------------------------------------------------------

constexpr int rre_max_window = 8;
constexpr double rre_drop = 1e-4;
// Differences in the window of a run of `every` plain steps (every >= 4: 3..8).
constexpr int rre_window(int every) { return every - 1 < rre_max_window ? every - 1 : rre_max_window; }
// The saved iterate the step `step` of a run (1 .. every; 0 for every) leaves:
// 0 .. W-1 for x_{k-W} .. x_{k-1} after steps every-W .. every-1, else -1.
constexpr int rre_slot(int step, int every) {
  const int w = rre_window(every);
  const int which = step - (every - w);
  return which >= 0 && which < w ? which : -1;
}
// Index of G_pq (p <= q) among the W (W + 1) / 2 sums, row by row.
constexpr int rre_pair(int p, int q, int w) { return p * w - p * (p - 1) / 2 + (q - p); }
constexpr int rre_sums(int w) { return w * (w + 1) / 2; }
// Sum k of a window of w's sums (the Gram matrix in rre_pair order, then the
// masses) as its factors: u_p u_q, or the mass of x_{k-w+p+1} where q < 0;
// p < 0 past the sums. The GPU's sums kernels take their terms from it.
struct rre_factors {
  int p, q;
};
constexpr rre_factors rre_factors_of(int k, int w) {
  if (k >= rre_sums(w)) return {k - rre_sums(w) < w ? k - rre_sums(w) : -1, -1};
  int p = 0;
  for (int row = w; k >= row; --row) {
    k -= row;
    ++p;
  }
  return {p, p + k};
}

// The weights of x_{k-W+1}, ..., x_k (w[0 .. W-1]), dividing by the
// combination's mass as the quadratic does; ok false: use the quadratic.
struct rre_weights {
  double w[rre_max_window] = {};
  int used = 0;  // differences kept
  bool ok = false;
};

// d_i . d_j with d_i = u_i - u_last, from the Gram matrix g of the u's.
template <int W>
constexpr double rre_h(const double (&g)[W][W], int i, int j, int last) {
  return g[i][j] - g[i][last] - g[last][j] + g[last][last];
}

// Loops over the window, unrolled in device code so that its small arrays
// stay in registers: a thread's dependent loads from local memory made the
// weights of one extrapolation cost tens of microseconds on the H200.
#if defined(__CUDA_ARCH__)
#define PERRON_ACCEL_UNROLL _Pragma("unroll")
#else
#define PERRON_ACCEL_UNROLL
#endif

// The quadratic extrapolation from the window's last four iterates, its sums
// taken from the differences' Gram matrix g: with a, b, c = W-3, W-2, W-1,
// y_1 = u_a, y_2 = u_a + u_b, y_3 = u_a + u_b + u_c. used = 0 marks it.
template <int W>
constexpr rre_weights rre_quadratic(const double (&g)[W][W], const double* mass, double alpha) {
  rre_weights out;
  constexpr int a = W - 3, b = W - 2, c = W - 1;
  const double a11 = g[a][a], a12 = g[a][a] + g[a][b], a22 = g[a][a] + 2.0 * g[a][b] + g[b][b];
  const double b1 = g[a][a] + g[a][b] + g[a][c];
  const double b2 = g[a][a] + 2.0 * g[a][b] + g[b][b] + g[a][c] + g[b][c];
  const quadratic_weights q = quadratic_extrapolation(a11, a12, a22, b1, b2, mass[a], mass[b], mass[c], alpha,
                                                      0.0);  // rre's own bound
  if (!q.ok) return out;
  out.w[a] = q.w0;
  out.w[b] = q.w1;
  out.w[c] = q.w2;
  out.ok = true;
  return out;
}

// From the sums G (rre_pair order) and the masses s_j of x_{k-W+j+1}; where
// no difference is left, or a weight is past the bound, the quadratic
// (rre_quadratic) instead.
//
// The constraint sum_j gamma_j = 1 is taken out with the last difference as
// the reference, L = W - 1: gamma_L = 1 - sum_{i<L} beta_i, gamma_i = beta_i,
// beta minimizing ||u_L + sum_{i<L} beta_i d_i||_2 with d_i = u_i - u_L, a
// least-squares problem whose normal equations H beta = -b have H_ij =
// d_i . d_j = G_ij - G_iL - G_Lj + G_LL and b_i = d_i . u_L = G_iL - G_LL.
// The columns are taken newest first (the last iterates carry the least of
// the fast modes), each only when its part orthogonal to those taken is at
// least rre_drop of its own length (L D L^T, a column at a time; a column
// left out keeps a zero row and a zero unknown): a column in the span of the
// others changes nothing in a least-squares problem, and with fewer modes
// than W (or a mode decayed to rounding) such columns are rounding only. On
// one hub's swing (one mode) this is the quadratic's one-mode fit on the last
// iterates; the oldest first took 17-22 steps where that takes 11
// (hub:1000:200).
template <int W>
constexpr rre_weights rre_extrapolation_of(const double* gram, const double* mass, double alpha) {
  static_assert(W >= 3 && W <= rre_max_window, "rre's window");
  rre_weights out;
  constexpr int last = W - 1, m = W - 1;
  double g[W][W] = {};
  bool finite_sums = true;
  PERRON_ACCEL_UNROLL
  for (int p = 0; p < W; ++p) PERRON_ACCEL_UNROLL
  for (int q = p; q < W; ++q) {
    g[p][q] = g[q][p] = gram[rre_pair(p, q, W)];
    finite_sums = finite_sums && finite(g[p][q]);
  }
  if (!finite_sums) return out;
  // Unknown t is difference last - 1 - t (newest first).
  double h[m][m] = {}, b[m] = {};
  PERRON_ACCEL_UNROLL
  for (int t = 0; t < m; ++t) {
    b[t] = g[last - 1 - t][last] - g[last][last];
    PERRON_ACCEL_UNROLL
    for (int s = 0; s < m; ++s) h[t][s] = rre_h(g, last - 1 - t, last - 1 - s, last);
  }
  double l[m][m] = {}, d[m] = {};
  bool kept[m] = {};
  int c = 0;
  PERRON_ACCEL_UNROLL
  for (int t = 0; t < m; ++t) {
    double v = h[t][t];
    const double own = v;
    PERRON_ACCEL_UNROLL
    for (int s = 0; s < t; ++s) {
      double u = h[t][s];
      PERRON_ACCEL_UNROLL
      for (int r = 0; r < s; ++r) u -= l[t][r] * l[s][r] * d[r];
      l[t][s] = kept[s] ? u / d[s] : 0.0;
      v -= l[t][s] * l[t][s] * d[s];
    }
    kept[t] = own > 0.0 && v >= rre_drop * rre_drop * own;
    d[t] = kept[t] ? v : 1.0;
    if (!kept[t]) PERRON_ACCEL_UNROLL
    for (int s = 0; s < t; ++s) l[t][s] = 0.0;
    c += kept[t] ? 1 : 0;
  }
  if (c == 0) return rre_quadratic<W>(g, mass, alpha);
  double z[m] = {};  // L y = -b, then z = D^-1 y, then L^T beta = z (in place)
  PERRON_ACCEL_UNROLL
  for (int t = 0; t < m; ++t) {
    double v = -b[t];
    PERRON_ACCEL_UNROLL
    for (int s = 0; s < t; ++s) v -= l[t][s] * z[s];
    z[t] = kept[t] ? v : 0.0;
  }
  PERRON_ACCEL_UNROLL
  for (int t = 0; t < m; ++t) z[t] /= d[t];
  PERRON_ACCEL_UNROLL
  for (int t = m - 1; t >= 0; --t) {
    PERRON_ACCEL_UNROLL
    for (int s = t + 1; s < m; ++s) z[t] -= l[s][t] * z[s];
    if (!kept[t]) z[t] = 0.0;
  }
  const double bound = 2.0 / ((1.0 - alpha) * (1.0 - alpha));
  double gamma[W] = {};
  gamma[last] = 1.0;
  bool bounded = true;
  PERRON_ACCEL_UNROLL
  for (int t = 0; t < m; ++t) {
    bounded = bounded && abs_of(z[t]) <= bound;
    gamma[last - 1 - t] = z[t];
    gamma[last] -= z[t];
  }
  if (!bounded || !(abs_of(gamma[last]) <= bound)) return rre_quadratic<W>(g, mass, alpha);
  double total = 0.0;
  PERRON_ACCEL_UNROLL
  for (int j = 0; j < W; ++j) total += gamma[j] * mass[j];
  if (!finite(total) || total == 0.0) return rre_quadratic<W>(g, mass, alpha);
  bool finite_weights = true;
  PERRON_ACCEL_UNROLL
  for (int j = 0; j < W; ++j) {
    out.w[j] = gamma[j] / total;
    finite_weights = finite_weights && finite(out.w[j]);
  }
  if (!finite_weights) return rre_quadratic<W>(g, mass, alpha);
  out.used = c + 1;
  out.ok = true;
  return out;
}

// The same for a window known at run time (W = 3 .. rre_max_window).
constexpr rre_weights rre_extrapolation(const double* gram, const double* mass, int w, double alpha) {
  switch (w) {
    case 3:
      return rre_extrapolation_of<3>(gram, mass, alpha);
    case 4:
      return rre_extrapolation_of<4>(gram, mass, alpha);
    case 5:
      return rre_extrapolation_of<5>(gram, mass, alpha);
    case 6:
      return rre_extrapolation_of<6>(gram, mass, alpha);
    case 7:
      return rre_extrapolation_of<7>(gram, mass, alpha);
    case 8:
      return rre_extrapolation_of<8>(gram, mass, alpha);
    default:
      return rre_weights{};
  }
}

#undef PERRON_ACCEL_UNROLL

}  // namespace perron::accel
