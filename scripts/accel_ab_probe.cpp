// `--accelerate auto` against `none` on the pull auto takes, in one process:
// for each graph, float and double, solves at the default tol alternating
// the two (after one untimed of each), median device time (CUDA events,
// pagerank_result::device_seconds), steps and extrapolations. One line per
// graph and precision; auto / none > 1 where the extrapolations cost more
// than the steps they remove. A probe, not built: its figures go to
// docs/PERFORMANCE.md.
//
//   c++ -O3 -std=c++17 -fopenmp -I. -I/usr/local/cuda/include -c scripts/accel_ab_probe.cpp
//   then link it as build-gpu links bin/pagerank (`ninja -C build-gpu -t commands
//   bin/pagerank | tail -1`, the probe's object for pagerank.cpp's)
//   accel_ab_probe [--runs=N] [--every=E] [--pull=auto|persistent|fused|spmv] GRAPH...
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
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

struct outcome {
  std::vector<double> us;
  int steps = 0, extrapolations = 0;
};

template <class T>
void probe(const std::string& name, const coo_matrix<double>& a, pagerank_pull pull, int runs, int every) {
  const pagerank_graph<T> g = make_pagerank_graph<T>(a, false, {}, true);
  pagerank_cuda<T> s(g, std::nullopt, pull);
  const pagerank_accel modes[2] = {pagerank_accel::none, pagerank_accel::automatic};
  outcome o[2];
  for (int r = 0; r <= runs; ++r)
    for (int m = 0; m < 2; ++m) {
      pagerank_options opt;
      opt.accelerate = modes[m];
      if (every > 0) opt.accelerate_every = every;
      const pagerank_result x = s.solve(opt);
      if (r == 0) continue;
      o[m].us.push_back(x.device_seconds * 1e6);
      o[m].steps = x.iterations;
      o[m].extrapolations = x.extrapolations;
    }
  const double none = median(o[0].us), aut = median(o[1].us);
  std::printf("%s\t%s\t%s\t%d\t%lld\t%.1f\t%d\t%.1f\t%d\t%d\t%.3f\t%s\n", name.c_str(),
              sizeof(T) == 4 ? "float" : "double", s.kernel_name().c_str(), g.vertices(),
              static_cast<long long>(g.links()), none, o[0].steps, aut, o[1].steps, o[1].extrapolations,
              aut / none, s.layout().c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7, every = 0;
  pagerank_pull pull = pagerank_pull::automatic;
  std::vector<std::string> graphs;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s.rfind("--runs=", 0) == 0)
      runs = std::atoi(s.c_str() + 7);
    else if (s.rfind("--every=", 0) == 0)
      every = std::atoi(s.c_str() + 8);
    else if (s.rfind("--pull=", 0) == 0)
      pull = s == "--pull=persistent" ? pagerank_pull::persistent
             : s == "--pull=fused"    ? pagerank_pull::fused
             : s == "--pull=spmv"     ? pagerank_pull::spmv
                                      : pagerank_pull::automatic;
    else
      graphs.push_back(s);
  }
  std::printf(
      "graph\tprecision\tpull\tn\tlinks\tnone_us\tnone_steps\tauto_us\tauto_steps\tauto_ex\tauto/"
      "none\tlayout\n");
  for (const std::string& spec : graphs) {
    try {
      const coo_matrix<double> a =
          io::is_synthetic_graph_spec(spec) ? io::generate_synthetic(spec) : io::load_matrix(spec).matrix;
      const auto slash = spec.find_last_of('/');
      const std::string name = slash == std::string::npos ? spec : spec.substr(slash + 1);
      probe<float>(name, a, pull, runs, every);
      probe<double>(name, a, pull, runs, every);
    } catch (const std::exception& e) {
      std::printf("%s\terror: %s\n", spec.c_str(), e.what());
    }
  }
}
