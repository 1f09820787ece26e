// Probe (docs/PERFORMANCE.md, session 47): the CPU PageRank step
// (pagerank_step_rows) timed with whole blocks and with rows split by links +
// rows, alternating in one process on the solve's team, beside what
// pagerank_step_whole_blocks chooses and the busiest thread's share of whole
// blocks. Build it against a build tree's libraries (the link line of
// bin/pagerank in build.ninja), e.g.
//   L=$(grep -A3 "build bin/pagerank:" build/build.ninja | grep -o "LINK_LIBRARIES = .*" |
//       head -1 | sed 's/LINK_LIBRARIES = //')
//   (cd build && g++ -O3 -std=c++17 -fopenmp -I.. ../scripts/cpu_step_probe.cpp -o cpu_step_probe \
//       -Wl,--start-group $L -Wl,--end-group)
//   ./cpu_step_probe [-p double] rmat:20:10000000 graphs/cnr-2000.mtx.gz ...
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "core/memory.hpp"
#include "io/load.hpp"
#include "io/synthetic.hpp"
#include "solvers/pagerank.hpp"
#include "solvers/pagerank_step.hpp"

using namespace perron;

namespace {

template <class T>
void probe(const std::string& spec) {
  const bool generated = spec.find('/') == std::string::npos && spec.find(':') != std::string::npos;
  pagerank_graph<T> g;
  if (generated) {
    g = pagerank_graph_from_pattern<T>(io::generate_graph_transpose<T>(spec));
  } else {
    const io::loaded_matrix m = io::load_matrix(spec);
    g = make_pagerank_graph<T>(m.matrix, false, m.label, false);
  }
  const csr_matrix<T>& pt = g.pt;
  const index_t n = pt.rows;
  const index_t blocks = (n + pagerank_sum_block - 1) / pagerank_sum_block;
  const int team = pagerank_step_team(pt);
  const team_scope scope(team);
  std::vector<T> r(static_cast<std::size_t>(n), T(1.0 / n)), next(r.size());
  std::vector<double> sums(2 * static_cast<std::size_t>(blocks));
  const auto step = [&](step_split split) {
    const auto a = std::chrono::steady_clock::now();
    pagerank_step_rows(pt, 0, r.data(), next.data(), nullptr, 1.0 / n, g.dangling.data(), 0.85, 0.15,
                       sums.data(), split);
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count();
  };
  for (int w = 0; w < 5; ++w) step(step_split::whole_blocks), step(step_split::rows);
  std::vector<double> whole, rows;
  for (int k = 0; k < 41; ++k)
    whole.push_back(step(step_split::whole_blocks)), rows.push_back(step(step_split::rows));
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  // The busiest thread's share of whole blocks, split as pagerank_step_rows does.
  const std::size_t work = pt.nnz() + static_cast<std::size_t>(n);
  const auto at = [&](index_t b) {
    const index_t row = std::min<index_t>(n, b * pagerank_sum_block);
    return static_cast<std::size_t>(pt.row_ptr[row]) + static_cast<std::size_t>(row);
  };
  std::size_t busiest = 0;
  index_t b_lo = 0;
  for (int t = 0; t < team; ++t) {
    index_t b_hi = blocks;
    if (t + 1 < team) {
      const std::size_t target = work * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(team);
      b_hi = b_lo;
      while (b_hi < blocks && at(b_hi) < target) ++b_hi;
    }
    busiest = std::max(busiest, at(b_hi) - at(b_lo));
    b_lo = b_hi;
  }
  const double w = median(whole), rw = median(rows);
  std::printf(
      "%-34s %s n %9lld links %10zu blocks %5lld team %2d busiest/even %.3f rows/work %.3f | whole %9.1f us "
      "rows %9.1f us "
      "(whole/rows %.3f) auto %s\n",
      spec.substr(spec.rfind('/') + 1).c_str(), sizeof(T) == 4 ? "float " : "double",
      static_cast<long long>(n), pt.nnz(), static_cast<long long>(blocks), team,
      double(busiest) * team / double(work), double(n) / double(work), w, rw, w / rw,
      pagerank_step_whole_blocks(pt, team) ? "whole" : "rows");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  bool dbl = false;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s == "-p" && a + 1 < argc) {
      dbl = std::string(argv[++a]) == "double";
      continue;
    }
    try {
      dbl ? probe<double>(s) : probe<float>(s);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", s.c_str(), e.what());
    }
  }
}
