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
constexpr quadratic_weights quadratic_extrapolation(double a11, double a12, double a22, double b1, double b2,
                                                    double s0, double s1, double s2, double alpha) {
  quadratic_weights q;
  const double det = a11 * a22 - a12 * a12;
  double b0 = 0.0, bb1 = 0.0, bb2 = 1.0;
  if (det > 1e-10 * a11 * a22 && finite(det)) {
    const double g1 = (a12 * b2 - a22 * b1) / det;
    const double g2 = (a12 * b1 - a11 * b2) / det;
    b0 = g1 + g2 + 1.0;
    bb1 = g2 + 1.0;
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
  q.ok =
      finite(q.w0) && finite(q.w1) && abs_of(q.w0) <= bound && abs_of(q.w1) <= bound && abs_of(q.w2) <= bound;
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

// Which saved iterate the step `step` of a run of `every` plain steps (1 ..
// every; 0 for every, as a step count modulo every gives it) leaves: 0, 1, 2
// for x_{k-3}, x_{k-2}, x_{k-1} after steps every-3 .. every-1, none (-1)
// otherwise, nor x_{k-3} for aitken, which reads the last two. One rule for
// the CPU solver, the fused pull's save kernels and the spmv pull's update kernel.
constexpr int run_slot(int step, int every, bool aitken) {
  const int which = step - (every - 3);
  return which >= 0 && which < 3 && !(which == 0 && aitken) ? which : -1;
}

}  // namespace perron::accel
