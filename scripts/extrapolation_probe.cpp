// Step counts of PageRank's extrapolations on the CPU, in double: plain
// power iteration, perron's `--accelerate auto` (quadratic every 10 behind
// its gates, solvers/pagerank_accel.hpp), reduced rank extrapolation (RRE,
// the solver's accel::rre_extrapolation) and minimal polynomial
// extrapolation (MPE, a ridge of --drop^2) with a window of m differences
// every E steps behind the same gates, and Anderson acceleration (type II,
// window 5) every step as the bound on what such a window can do. Counts matvecs until a plain step's ||G x -
// x||_1 is below tol. A probe, not built: its figures are in docs/PERFORMANCE.md.
//
//   g++ -O3 -std=c++17 -fopenmp -I. scripts/extrapolation_probe.cpp \
//       build-gpu/libperron_io.a build-gpu/libperron_core.a -lisal -lz \
//       -L/usr/local/cuda/lib64 -lcudart -o /tmp/extrapolation_probe
//   /tmp/extrapolation_probe [--float] [--alpha=A] [--tol=T] [--drop=D] [--idle-steps=S]
//       [--configs=m/every,...  (m > 0: RRE, m < 0: MPE, 0: quadratic)] GRAPH...
#include <cmath>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "scripts/probe_graph.hpp"
#include "solvers/pagerank_accel.hpp"

using namespace perron;
using vec = std::vector<double>;

namespace {

struct problem {
  probe::pattern g;
  std::vector<double> inv;
  double alpha = 0.85;
  bool single = false;  // iterates rounded to float, as the GPU's float solve keeps them
  long matvecs = 0;

  // y = G(x) for x summing to 1; returns ||y - x||_1.
  double step(const vec& x, vec& y) {
    ++matvecs;
    const int n = g.n;
    double mass = 0, total = 0;
#pragma omp parallel for reduction(+ : mass, total)
    for (int i = 0; i < n; ++i) {
      total += x[i];
      if (!g.deg[i]) mass += x[i];
    }
    const double c0 = ((1 - alpha) * total + alpha * mass) / n;
    double l1 = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : l1)
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int q = g.rp[i]; q < g.rp[i + 1]; ++q) s += x[g.col[q]] * inv[g.col[q]];
      y[i] = alpha * s + c0;
      if (single) y[i] = static_cast<float>(y[i]);
      l1 += std::fabs(y[i] - x[i]);
    }
    return l1;
  }
};

double dot(const vec& a, const vec& b) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Solves A z = b (k x k, A symmetric positive semidefinite) by Gaussian
// elimination with partial pivoting in long double; false if singular.
bool solve(std::vector<long double> a, std::vector<long double> b, int k, std::vector<long double>& z) {
  for (int c = 0; c < k; ++c) {
    int p = c;
    for (int r = c + 1; r < k; ++r)
      if (std::fabs(a[r * k + c]) > std::fabs(a[p * k + c])) p = r;
    if (!(std::fabs(a[p * k + c]) > 1e-30L)) return false;
    if (p != c) {
      for (int j = 0; j < k; ++j) std::swap(a[c * k + j], a[p * k + j]);
      std::swap(b[c], b[p]);
    }
    for (int r = c + 1; r < k; ++r) {
      const long double f = a[r * k + c] / a[c * k + c];
      for (int j = c; j < k; ++j) a[r * k + j] -= f * a[c * k + j];
      b[r] -= f * b[c];
    }
  }
  z.assign(k, 0);
  for (int r = k - 1; r >= 0; --r) {
    long double s = b[r];
    for (int j = r + 1; j < k; ++j) s -= a[r * k + j] * z[j];
    z[r] = s / a[r * k + r];
  }
  for (auto v : z)
    if (!std::isfinite(static_cast<double>(v))) return false;
  return true;
}

// RRE from iterates x_0..x_{m+1}: gamma minimizing ||sum gamma_j u_j||, sum
// gamma = 1, u_j = x_{j+1} - x_j; out = sum gamma_j x_{j+1} / its mass.
double drop = 1e-4;  // MPE's ridge: drop^2 of the trace

// RRE from iterates x_0..x_W: the solver's formula (accel::rre_extrapolation,
// with its quadratic fallback) on the differences' Gram matrix; out = sum
// w_j x_{j+1}.
bool rre(const std::deque<vec>& xs, vec& out, double alpha) {
  const int w = static_cast<int>(xs.size()) - 1;
  const std::size_t n = xs[0].size();
  std::vector<double> gram(accel::rre_sums(w)), mass(w);
  for (std::size_t i = 0; i < n; ++i) {
    double u[accel::rre_max_window];
    for (int j = 0; j < w; ++j) u[j] = xs[j + 1][i] - xs[j][i];
    int at = 0;
    for (int p = 0; p < w; ++p)
      for (int q = p; q < w; ++q) gram[at++] += u[p] * u[q];
    for (int j = 0; j < w; ++j) mass[j] += xs[j + 1][i];
  }
  const accel::rre_weights e = accel::rre_extrapolation(gram.data(), mass.data(), w, alpha);
  if (!e.ok) return false;
  out.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (int j = 0; j < w; ++j) out[i] += e.w[j] * xs[j + 1][i];
  return true;
}

// MPE from iterates x_0..x_{m}: c minimizing ||sum_{j<m-1} c_j u_j + u_{m-1}||,
// c_{m-1} = 1, gamma = c / sum c; out = sum gamma_j x_{j+1} / its mass.
bool mpe(const std::deque<vec>& xs, vec& out, double alpha) {
  const int k = static_cast<int>(xs.size()) - 1;
  const std::size_t n = xs[0].size();
  std::vector<vec> u(k, vec(n));
  for (int j = 0; j < k; ++j)
    for (std::size_t i = 0; i < n; ++i) u[j][i] = xs[j + 1][i] - xs[j][i];
  const int q = k - 1;
  std::vector<long double> a(q * q), b(q), z;
  long double tr = 0;
  for (int i = 0; i < q; ++i) {
    for (int j = i; j < q; ++j) a[i * q + j] = a[j * q + i] = dot(u[i], u[j]);
    b[i] = -dot(u[i], u[q]);
    tr += a[i * q + i];
  }
  for (int i = 0; i < q; ++i) a[i * q + i] += drop * drop * tr;
  if (!solve(a, b, q, z)) return false;
  z.push_back(1.0L);
  long double sz = 0;
  for (auto v : z) sz += v;
  if (!(std::fabs(sz) > 0)) return false;
  const double bound = 2.0 / ((1 - alpha) * (1 - alpha));
  std::vector<double> gm(k);
  for (int j = 0; j < k; ++j) {
    gm[j] = static_cast<double>(z[j] / sz);
    if (!(std::fabs(gm[j]) <= bound)) return false;
  }
  out.assign(n, 0);
  double mass = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < k; ++j) s += gm[j] * xs[j + 1][i];
    out[i] = s;
    mass += s;
  }
  if (!(mass > 0)) return false;
  for (auto& v : out) v /= mass;
  return true;
}

// Periodic extrapolation behind auto's gates; m = 0: perron's quadratic
// (the same formulas), m > 0: RRE over m differences. Prints steps:applied
// (plain steps, extrapolations made) per config.
// idle_steps > 0: an extrapolation is idle where it left the residual fewer
// than idle_steps plain steps below the plain course (and not above it by
// more than 2%), instead of within 2% of it. applied: the extrapolations made.
int idle_steps = 0;
long applied = 0;
long periodic(problem& p, int m, int every, double tol, int max_steps) {
  const int n = p.g.n;
  vec x(n, 1.0 / n), y(n), e;
  std::deque<vec> hist;  // the last iterates of the run
  const int keep = m == 0 ? 4 : std::abs(m) + 1;
  p.matvecs = 0;
  applied = 0;
  int run = 0, idle = 0;
  bool on = true, checking = false;
  double res_before = 0, rate1_before = 0, res1 = 0;
  hist.push_back(x);
  while (p.matvecs < max_steps) {
    const double r = p.step(x, y);
    x.swap(y);
    if (r < tol) break;
    if (!on) continue;
    ++run;
    hist.push_back(x);
    if (static_cast<int>(hist.size()) > keep) hist.pop_front();
    if (run == every - 1) res1 = r;
    if (run == every && checking) {
      checking = false;
      bool was_idle = accel::extrapolation_idle(r, res_before, rate1_before, every);
      if (idle_steps > 0 && rate1_before > 0 && rate1_before < 1) {
        const double plain = res_before * accel::power(rate1_before, every);
        was_idle = r <= 1.02 * plain && r >= plain * accel::power(rate1_before, idle_steps);
      }
      idle = was_idle ? idle + 1 : 0;
      if (idle >= accel::idle_to_stop) {
        on = false;
        continue;
      }
    }
    if (run != every) continue;
    run = 0;
    if (!accel::extrapolation_pays(r, res1, tol)) continue;
    bool ok = false;
    if (m > 0) ok = rre(hist, e, p.alpha);
    if (m < 0) ok = mpe(hist, e, p.alpha);
    if (!ok && static_cast<int>(hist.size()) >= 4) {  // quadratic, also where RRE is skipped
      const std::size_t z = hist.size() - 4;
      const vec &h0 = hist[z], &h1 = hist[z + 1], &h2 = hist[z + 2], &h3 = hist[z + 3];
      double a[8] = {};
      for (int i = 0; i < n; ++i) {
        const double y1 = h1[i] - h0[i], y2 = h2[i] - h0[i], y3 = h3[i] - h0[i];
        a[0] += y1 * y1, a[1] += y1 * y2, a[2] += y2 * y2, a[3] += y1 * y3, a[4] += y2 * y3;
        a[5] += h1[i], a[6] += h2[i], a[7] += h3[i];
      }
      const auto q = accel::quadratic_extrapolation(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], p.alpha,
                                                    accel::rounding_floor<double>());
      if (q.ok) {
        e.resize(n);
        for (int i = 0; i < n; ++i) e[i] = q.w0 * h1[i] + q.w1 * h2[i] + q.w2 * h3[i];
        ok = true;
      }
    }
    if (ok) {
      ++applied;
      x.swap(e);
      res_before = r;
      rate1_before = res1 > 0 ? r / res1 : 0;
      checking = true;
      hist.clear();
      hist.push_back(x);
    }
  }
  return p.matvecs;
}

// Anderson type II, window m, every step: x_{k+1} = G(x_k) - (dG) gamma with
// gamma the least squares of the residual differences.
long anderson(problem& p, int m, double tol, int max_steps) {
  const int n = p.g.n;
  vec x(n, 1.0 / n), gx(n);
  std::deque<vec> dx, df;  // differences of G(x) and of f = G(x) - x
  vec fprev, gprev;
  p.matvecs = 0;
  while (p.matvecs < max_steps) {
    const double r = p.step(x, gx);
    if (r < tol) break;
    vec f(n);
    for (int i = 0; i < n; ++i) f[i] = gx[i] - x[i];
    if (!fprev.empty()) {
      vec a(n), b(n);
      for (int i = 0; i < n; ++i) a[i] = f[i] - fprev[i], b[i] = gx[i] - gprev[i];
      df.push_back(a), dx.push_back(b);
      if (static_cast<int>(df.size()) > m) df.pop_front(), dx.pop_front();
    }
    fprev = f, gprev = gx;
    vec nx = gx;
    const int k = static_cast<int>(df.size());
    if (k > 0) {
      std::vector<long double> a(k * k), b(k), z;
      long double tr = 0;
      for (int i = 0; i < k; ++i) {
        for (int j = i; j < k; ++j) a[i * k + j] = a[j * k + i] = dot(df[i], df[j]);
        b[i] = dot(df[i], f);
        tr += a[i * k + i];
      }
      for (int i = 0; i < k; ++i) a[i * k + i] += 1e-13L * tr;
      if (solve(a, b, k, z))
        for (int j = 0; j < k; ++j)
          for (int i = 0; i < n; ++i) nx[i] -= static_cast<double>(z[j]) * dx[j][i];
    }
    double mass = 0;
    for (auto& v : nx) mass += (v = std::max(v, 0.0));
    for (auto& v : nx) v /= mass;
    x.swap(nx);
  }
  return p.matvecs;
}

}  // namespace

int main(int argc, char** argv) {
  double tol = 1e-6, alpha = 0.85;
  bool single = false;
  std::vector<std::pair<int, int>> configs = {{0, 10}, {3, 6}, {5, 8}, {5, 10}, {8, 10}, {8, 12}};
  std::vector<std::string> graphs;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s.rfind("--tol=", 0) == 0)
      tol = std::stod(s.substr(6));
    else if (s.rfind("--idle-steps=", 0) == 0)
      idle_steps = std::stoi(s.substr(13));
    else if (s == "--float")
      single = true;
    else if (s.rfind("--alpha=", 0) == 0)
      alpha = std::stod(s.substr(8));
    else if (s.rfind("--drop=", 0) == 0)
      drop = std::stod(s.substr(7));
    else if (s.rfind("--configs=", 0) == 0) {  // m/every,m/every,... (m 0: quadratic)
      configs.clear();
      std::size_t at = 10;
      while (at < s.size()) {
        const std::size_t comma = std::min(s.find(',', at), s.size());
        const std::string c = s.substr(at, comma - at);
        configs.emplace_back(std::stoi(c), std::stoi(c.substr(c.find('/') + 1)));
        at = comma + 1;
      }
    } else
      graphs.push_back(s);
  }
  std::printf("graph\tn\tlinks\tplain");
  for (auto [m, e] : configs)
    std::printf(m > 0 ? "\trre%d/%d" : m < 0 ? "\tmpe%d/%d" : "\tquad/%d", m ? std::abs(m) : e, e);
  std::printf("\tanderson5\n");
  for (const auto& spec : graphs) {
    problem p;
    p.single = single;
    p.alpha = alpha;
    p.g = probe::load_pattern(spec);
    p.inv.resize(p.g.n);
    for (int i = 0; i < p.g.n; ++i) p.inv[i] = p.g.deg[i] ? 1.0 / p.g.deg[i] : 0.0;
    const int cap = 3000;
    std::printf("%s\t%d\t%zu\t%ld", spec.c_str(), p.g.n, p.g.col.size(), periodic(p, 0, 1 << 30, tol, cap));
    for (auto [m, e] : configs) {
      const long steps = periodic(p, m, e, tol, cap);
      std::printf("\t%ld:%ld", steps, applied);
    }
    std::printf("\t%ld\n", anderson(p, 5, tol, cap));
    std::fflush(stdout);
  }
}
