// The GPU probes' graph (scripts/*_probe.cu): P^T's pattern as CSR, row t
// holding the sources of the links into t (sorted, distinct), from a generated
// spec (io/synthetic.hpp) or a file read as pagerank reads it (io/load.hpp:
// entry (i, j) is the arc i -> j). Header-only, since each probe is one file
// built by hand beside the GPU build (the build line is in its header).
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/formats.hpp"
#include "io/load.hpp"
#include "io/synthetic.hpp"

namespace perron::probe {

struct pattern {
  int n = 0;
  std::vector<int> rp, col;  // n + 1 row offsets; the links' sources
  std::vector<int> deg;      // out-degrees (0: dangling)
};

inline pattern with_degrees(pattern g) {
  g.deg.assign(g.n, 0);
  for (const int f : g.col) ++g.deg[f];
  return g;
}

inline pattern load_pattern(const std::string& spec) {
  pattern g;
  if (io::is_synthetic_graph_spec(spec)) {
    const csr_matrix<float> at = io::generate_graph_transpose<float>(spec);
    g.n = at.rows;
    g.rp.assign(at.row_ptr.begin(), at.row_ptr.end());
    g.col.assign(at.col_idx.begin(), at.col_idx.end());
    return with_degrees(std::move(g));
  }
  const coo_matrix<double> m = io::load_matrix(spec).matrix;
  g.n = std::max(m.rows, m.cols);
  std::vector<std::pair<int, int>> arcs;  // (target, source)
  arcs.reserve(m.row_idx.size());
  for (std::size_t k = 0; k < m.row_idx.size(); ++k) arcs.emplace_back(m.col_idx[k], m.row_idx[k]);
  std::sort(arcs.begin(), arcs.end());
  arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());
  g.rp.assign(g.n + 1, 0);
  g.col.reserve(arcs.size());
  for (const auto& [t, f] : arcs) {
    ++g.rp[t + 1];
    g.col.push_back(f);
  }
  for (int i = 0; i < g.n; ++i) g.rp[i + 1] += g.rp[i];
  return with_degrees(std::move(g));
}

// 1 / d_i in float, 0 for a dangling vertex (the pattern pulls' x = r / d).
inline std::vector<float> inverse_degrees(const pattern& g) {
  std::vector<float> inv(g.n);
  for (int i = 0; i < g.n; ++i) inv[i] = g.deg[i] ? 1.f / g.deg[i] : 0.f;
  return inv;
}

// The uniform start's dangling mass, 1/n summed in T over the dangling
// vertices in id order (each probe's first step reads it).
template <class T>
T uniform_dangling_mass(const pattern& g) {
  T mass = 0;
  for (int i = 0; i < g.n; ++i)
    if (!g.deg[i]) mass += T(1) / g.n;
  return mass;
}

// `steps` PageRank steps in double from the uniform start, r' = alpha P^T r
// + (1 - alpha + alpha * dangling mass) / n: what a probe's ranks are checked
// against.
inline std::vector<double> reference_ranks(const pattern& g, double alpha, int steps) {
  const int n = g.n;
  std::vector<double> ref(n, 1.0 / n), nx(n);
  for (int k = 0; k < steps; ++k) {
    double mass = 0;
#pragma omp parallel for reduction(+ : mass)
    for (int i = 0; i < n; ++i)
      if (!g.deg[i]) mass += ref[i];
    const double c0 = (1 - alpha + alpha * mass) / n;
#pragma omp parallel for schedule(dynamic, 4096)
    for (int i = 0; i < n; ++i) {
      double y = 0;
      for (int q = g.rp[i]; q < g.rp[i + 1]; ++q) y += ref[g.col[q]] / g.deg[g.col[q]];
      nx[i] = alpha * y + c0;
    }
    ref.swap(nx);
  }
  return ref;
}

}  // namespace perron::probe
