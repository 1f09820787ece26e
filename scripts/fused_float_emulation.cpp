// Emulates, on the CPU, the float arithmetic of the fused pull's row sums on a
// hub:N:M graph (every vertex links to vertex 0; M random links), to study
// the rounding stall of docs/PERFORMANCE.md ("Persistent pull ... the fused
// pull's float stall"). The layout is the fused pull's (vertices by
// decreasing in-degree, the hub's row cut into virtual rows of at most W
// links, 32 per slice, a segmented scan per slice, the cut row's slice
// partials summed round-robin over 32 lanes then by a butterfly); the graph's
// random links are this program's own, not io/synthetic's.
//   g++ -O2 -o emu scripts/fused_float_emulation.cpp
//   QUIET=1 ./emu N M MODE W ITERS SEED   (MODE 0: every sum in float, as before;
//   1: lanes in float, scan and partials in double; 2: every sum in double)
// prints the residual's floor (its least value after step 80).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>
template <class A, bool LANE_D = true>
double hub_sum(const std::vector<float>& xp, const std::vector<std::vector<long>>& lanes) {
  const long v = lanes.size();
  std::vector<double> acc(v, 0.);
  for (long l = 0; l < v; ++l) {
    typename std::conditional<LANE_D, A, float>::type a = 0;
    for (long c : lanes[l]) a += xp[c];
    acc[l] = a;
  }
  const long nsl = (v + 31) / 32;
  std::vector<A> part(nsl);
  for (long q = 0; q < nsl; ++q) {
    A s[32];
    bool k[32];
    for (int l = 0; l < 32; ++l) {
      long g = q * 32 + l;
      k[l] = g < v;
      s[l] = k[l] ? A(acc[g]) : A(0);
    }
    for (int off = 1; off < 32; off <<= 1) {
      A o[32];
      for (int l = 0; l < 32; ++l) o[l] = l >= off ? s[l - off] : A(0);
      for (int l = 31; l >= off; --l)
        if (k[l] && k[l - off]) s[l] = A(s[l] + o[l]);
    }
    part[q] = s[q == nsl - 1 ? (v - 1) % 32 : 31];
  }
  if (nsl == 1) return part[0];
  A ys[32] = {};
  for (long t = 0; t + 1 < nsl; ++t) ys[t % 32] = A(ys[t % 32] + part[t]);
  for (int off = 16; off > 0; off >>= 1) {
    A o[32];
    for (int l = 0; l < 32; ++l) o[l] = ys[l ^ off];
    for (int l = 0; l < 32; ++l) ys[l] = A(ys[l] + o[l]);
  }
  return A(ys[0] + part[nsl - 1]);
}
int main(int argc, char** argv) {
  const long n = atol(argv[1]), m = atol(argv[2]);
  const long W = atol(argv[4]);
  const int iters = atoi(argv[5]);
  std::mt19937_64 rng(argc > 6 ? atol(argv[6]) : 7);
  std::vector<std::pair<long, long>> arcs;  // (dst, src)
  for (long i = 1; i < n; ++i) arcs.push_back({0, i});
  for (long e = 0; e < m; ++e) {
    long s = rng() % n, d = rng() % n;
    arcs.push_back({d, s});
  }
  std::sort(arcs.begin(), arcs.end());
  arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());
  std::vector<long> outdeg(n), indeg(n);
  for (auto& [d, s] : arcs) ++outdeg[s], ++indeg[d];
  std::vector<long> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](long a, long b) { return indeg[a] > indeg[b]; });
  std::vector<long> newid(n);
  for (long k = 0; k < n; ++k) newid[perm[k]] = k;
  std::vector<long> deg(n);
  for (long k = 0; k < n; ++k) deg[k] = outdeg[perm[k]];
  std::vector<std::vector<long>> rows(n);
  for (auto& [d, s] : arcs) rows[newid[d]].push_back(newid[s]);  // original column order
  const long L0 = rows[0].size();
  long nd = 0;
  for (long k = 0; k < n; ++k) nd += deg[k] == 0;
  printf("hub in-links %ld outdeg %ld dangling %ld\n", L0, deg[0], nd);
  const long v = (L0 + W - 1) / W, base = L0 / v, extra = L0 % v;
  std::vector<std::vector<long>> lanes(v);
  long b = 0;
  for (long i = 0; i < v; ++i) {
    long l = base + (i < extra);
    lanes[i].assign(rows[0].begin() + b, rows[0].begin() + b + l);
    b += l;
  }
  const double alpha = 0.85;
  std::vector<float> x(n), xs(n);
  for (long k = 0; k < n; ++k) x[k] = float(deg[k] > 0 ? (1.0 / n) / deg[k] : 1.0 / n);
  double dangling = 0;
  for (long k = 0; k < n; ++k)
    if (!deg[k]) dangling += x[k];
  double floor_ = 1e300;
  for (int it = 1; it <= iters; ++it) {
    const int mode = atoi(argv[3]);
    const double y0 = mode == 0   ? hub_sum<float>(x, lanes)
                      : mode == 1 ? hub_sum<double, false>(x, lanes)
                                  : hub_sum<double>(x, lanes);
    const double c = alpha * dangling + (1 - alpha);
    double res = 0, dn = 0;
    for (long k = 0; k < n; ++k) {
      double y;
      if (k == 0)
        y = y0;
      else {
        float a = 0;
        for (long cc : rows[k]) a += x[cc];
        y = a;
      }
      const double r = alpha * y + c / n;
      if (deg[k] > 0) {
        xs[k] = float(r / deg[k]);
        res += deg[k] * std::fabs(double(xs[k]) - x[k]);
      } else {
        xs[k] = float(r);
        res += std::fabs(double(xs[k]) - x[k]);
        dn += xs[k];
      }
    }
    dangling = dn;
    if (it > 80) floor_ = std::min(floor_, res);
    x.swap(xs);
    if (it % 10 == 0 || res < 1e-6 || it > 55)
      if (!getenv("QUIET")) printf("%d %.3e  hub %.9g y0 %.17g c %.17g\n", it, res, double(x[0]), y0, c);
    if (res < 1e-6 && getenv("STOP")) {
      printf("converged %d\n", it);
      break;
    }
  }
  printf("mode %s W %ld seed %s floor %.3e\n", argv[3], W, argc > 6 ? argv[6] : "7", floor_);
}
