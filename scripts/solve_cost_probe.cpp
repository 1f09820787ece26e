// Where a GPU solve's device time goes beyond its steps: for one graph and
// pull, the median device time (CUDA events, solve_phases) of solves of
// 1, 2, lo and hi steps with --accelerate none (tol out of reach), and of the
// solve at --tol with each --accelerate mode, against the marginal step.
// A probe, not built: its figures go to docs/PERFORMANCE.md.
//
//   c++ -O3 -std=c++17 -fopenmp -I. -I/usr/local/cuda/include -c scripts/solve_cost_probe.cpp
//   then link it as build-gpu links bin/pagerank (`ninja -C build-gpu -t commands
//   bin/pagerank | tail -1`, the probe's object for pagerank.cpp's)
//   solve_cost_probe GRAPH [fused|persistent|spmv] [float|double] [runs]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "io/load.hpp"
#include "io/synthetic.hpp"
#include "solvers/pagerank.hpp"

using namespace perron;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

template <class T>
void probe(const coo_matrix<double>& a, pagerank_pull pull, int runs) {
  const pagerank_graph<T> g = make_pagerank_graph<T>(a, false, {}, true);
  pagerank_cuda<T> s(g, std::nullopt, pull);
  std::printf("n %d links %lld pull %s layout '%s'\n", g.vertices(), static_cast<long long>(g.links()),
              s.kernel_name().c_str(), s.layout().c_str());
  const auto time = [&](pagerank_options o, const char* what) {
    std::vector<double> dev, wall;
    int it = 0, ex = 0;
    for (int r = 0; r < runs + 1; ++r) {
      const pagerank_result x = s.solve(o);
      if (r == 0) continue;
      dev.push_back(x.device_seconds * 1e6);
      wall.push_back(x.solve_seconds * 1e6);
      it = x.iterations;
      ex = x.extrapolations;
    }
    std::printf("  %-28s it %4d ex %2d device %9.1f us wall %9.1f us\n", what, it, ex, median(dev),
                median(wall));
    return median(dev);
  };
  pagerank_options o;
  o.accelerate = pagerank_accel::none;
  o.tol = 1e-300;
  double d[4];
  const int steps[4] = {1, 2, 10, 60};
  for (int i = 0; i < 4; ++i) {
    o.max_iter = steps[i];
    d[i] = time(o, ("none, max_iter " + std::to_string(steps[i])).c_str());
  }
  const double step = (d[3] - d[2]) / 50;
  std::printf("  marginal step %.2f us; fixed (1-step solve less a step) %.1f us\n", step, d[0] - step);
  // An extrapolation run's cost: quadratic (ungated) every E steps of 60,
  // tol out of reach, against the plain 60 steps; E = 1000: the X kernel, no saves.
  for (const int every : {4, 5, 10, 20, 1000}) {
    o.accelerate = pagerank_accel::quadratic;
    o.accelerate_every = every;
    o.max_iter = 60;
    const double t = time(o, ("quadratic every " + std::to_string(every) + ", 60").c_str());
    const int runs_in = every < 60 ? (60 - 1) / every : 0;
    if (runs_in)
      std::printf("    per run of %d: %.1f us = %.1f steps\n", every, (t - d[3]) / runs_in,
                  (t - d[3]) / runs_in / step);
  }
  o = pagerank_options{};
  for (const pagerank_accel m :
       {pagerank_accel::none, pagerank_accel::automatic, pagerank_accel::quadratic}) {
    o.accelerate = m;
    const double t = time(o, ("tol 1e-6, " + std::string(name(m))).c_str());
    (void)t;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string spec = argv[1];
  const std::string pull = argc > 2 ? argv[2] : "persistent";
  const std::string prec = argc > 3 ? argv[3] : "float";
  const int runs = argc > 4 ? std::atoi(argv[4]) : 11;
  const coo_matrix<double> a =
      io::is_synthetic_graph_spec(spec) ? io::generate_synthetic(spec) : io::load_matrix(spec).matrix;
  const pagerank_pull p = pull == "fused"  ? pagerank_pull::fused
                          : pull == "spmv" ? pagerank_pull::spmv
                                           : pagerank_pull::persistent;
  if (prec == "double")
    probe<double>(a, p, runs);
  else
    probe<float>(a, p, runs);
}
