// An independent PageRank for the tests: double precision, adjacency lists
// built here from the COO triplets (no perron conversion, no SpMV), push-style
// power iteration to an L1 change below 1e-12. Shared by pagerank_test and
// gpu_pagerank_test; it deliberately reuses nothing from solvers/.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/formats.hpp"
#include "core/memory.hpp"
#include "io/load.hpp"
#include "tests/support/support.hpp"

namespace perron::test {

struct reference_graph {
  index_t n = 0;
  // out[i] = (j, w): the arc i -> j with weight w (unweighted: 1, each arc once;
  // weighted: parallel arcs summed).
  std::vector<std::vector<std::pair<index_t, double>>> out;
};

inline reference_graph reference_from_coo(const coo_matrix<double>& a, bool weighted) {
  std::vector<std::pair<std::pair<index_t, index_t>, double>> arcs;
  arcs.reserve(a.nnz());
  for (std::size_t k = 0; k < a.nnz(); ++k) arcs.push_back({{a.row_idx[k], a.col_idx[k]}, a.values[k]});
  std::sort(arcs.begin(), arcs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  reference_graph g;
  g.n = a.rows;
  g.out.resize(static_cast<std::size_t>(a.rows));
  for (std::size_t k = 0; k < arcs.size();) {
    std::size_t e = k;
    double w = 0;
    while (e < arcs.size() && arcs[e].first == arcs[k].first) w += arcs[e++].second;
    g.out[arcs[k].first.first].push_back({arcs[k].first.second, weighted ? w : 1.0});
    k = e;
  }
  return g;
}

// One step from r: alpha (P^T r + dangling(r) v) + (1 - alpha) v.
template <class R>
std::vector<double> reference_step(const reference_graph& g, double alpha, const std::vector<double>& v,
                                   const R& r) {
  std::vector<double> next(r.size(), 0.0);
  double dangling = 0;
  for (index_t i = 0; i < g.n; ++i) {
    double w = 0;
    for (const auto& [j, x] : g.out[i]) w += x;
    if (w == 0) {
      dangling += r[i];
      continue;
    }
    for (const auto& [j, x] : g.out[i]) next[j] += alpha * r[i] * (x / w);
  }
  for (index_t j = 0; j < g.n; ++j) next[j] += (alpha * dangling + (1 - alpha)) * v[j];
  return next;
}

// The true residual ||G(r) - r||_1 of a vector r, one exact step in double.
template <class R>
double reference_residual(const reference_graph& g, double alpha, const std::vector<double>& v, const R& r) {
  const std::vector<double> next = reference_step(g, alpha, v, r);
  double l1 = 0;
  for (std::size_t i = 0; i < r.size(); ++i) l1 += std::fabs(next[i] - r[i]);
  return l1;
}

inline std::vector<double> uniform(index_t n) {
  return std::vector<double>(static_cast<std::size_t>(n), 1.0 / n);
}

inline std::vector<double> normalized(std::vector<double> w) {
  const double s = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= s;
  return w;
}

// Power iteration to ||r_{k+1} - r_k||_1 < 1e-12 (FAILs the test if it does not get there).
inline std::vector<double> reference_pagerank(const reference_graph& g, double alpha,
                                              std::vector<double> v = {}, std::vector<double> r = {}) {
  if (v.empty()) v = uniform(g.n);
  if (r.empty()) r = uniform(g.n);
  for (int k = 0; k < 100000; ++k) {
    std::vector<double> next = reference_step(g, alpha, v, r);
    double l1 = 0;
    for (std::size_t i = 0; i < r.size(); ++i) l1 += std::fabs(next[i] - r[i]);
    r.swap(next);
    if (l1 < 1e-12) return r;
  }
  ADD_FAILURE() << "reference PageRank did not converge";
  return r;
}

// a, b: std::vector<double> or rank_vector (a result's ranks).
template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

template <class A, class B>
double l1_diff(const A& a, const B& b) {
  double s = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) s += std::fabs(a[i] - b[i]);
  return s;
}

// The real graphs of the verification list: bundled in data/ (any of a few
// layouts) or in ../shared/data/graphs; nullopt when absent (the test skips).
inline std::optional<std::string> find_graph(const std::string& file) {
  for (const std::string& p : {data_dir() + "/" + file, data_dir() + "/graphs/" + file})
    if (std::ifstream(p).good()) return p;
  return shared_file("graphs/" + file);
}

// Small graphs with known structure, as COO (arc i -> j = entry (i, j)).
inline coo_matrix<double> graph_from_arcs(index_t n, const std::vector<std::pair<index_t, index_t>>& arcs,
                                          const std::vector<double>& weights = {}) {
  coo_matrix<double> a;
  a.rows = a.cols = n;
  for (std::size_t k = 0; k < arcs.size(); ++k) {
    a.row_idx.push_back(arcs[k].first);
    a.col_idx.push_back(arcs[k].second);
    a.values.push_back(weights.empty() ? 1.0 : weights[k]);
  }
  return a;
}

inline coo_matrix<double> cycle_graph(index_t n) {
  std::vector<std::pair<index_t, index_t>> arcs;
  for (index_t i = 0; i < n; ++i) arcs.push_back({i, (i + 1) % n});
  return graph_from_arcs(n, arcs);
}

// `count` chains of `length` vertices, i -> i + 1 along each; the last of each dangling.
inline coo_matrix<double> chains_graph(index_t count, index_t length) {
  std::vector<std::pair<index_t, index_t>> arcs;
  for (index_t c = 0; c < count; ++c)
    for (index_t i = 0; i + 1 < length; ++i) arcs.push_back({c * length + i, c * length + i + 1});
  return graph_from_arcs(count * length, arcs);
}

// A side x side grid, each vertex linked both ways to its 2-4 neighbours.
inline coo_matrix<double> grid_graph(index_t side) {
  std::vector<std::pair<index_t, index_t>> arcs;
  for (index_t y = 0; y < side; ++y)
    for (index_t x = 0; x < side; ++x) {
      const index_t v = y * side + x;
      if (x + 1 < side) arcs.push_back({v, v + 1}), arcs.push_back({v + 1, v});
      if (y + 1 < side) arcs.push_back({v, v + side}), arcs.push_back({v + side, v});
    }
  return graph_from_arcs(side * side, arcs);
}

// Leaves 1..n-1 each link to the centre 0, which links nowhere (dangling).
inline coo_matrix<double> star_graph(index_t n) {
  std::vector<std::pair<index_t, index_t>> arcs;
  for (index_t i = 1; i < n; ++i) arcs.push_back({i, 0});
  return graph_from_arcs(n, arcs);
}

// Closed form for star_graph with uniform v: leaves a, centre b with
// a = (1 - alpha + alpha b) / n and b = a (1 + alpha (n - 1)), hence
// a = (1 - alpha) / (n - alpha - alpha^2 (n - 1)).
inline std::vector<double> star_exact(index_t n, double alpha) {
  const double a = (1 - alpha) / (n - alpha - alpha * alpha * (n - 1));
  std::vector<double> r(static_cast<std::size_t>(n), a);
  r[0] = a * (1 + alpha * (n - 1));
  return r;
}

// A seeded random directed graph with dangling vertices, self loops, parallel
// arcs and positive weights.
inline coo_matrix<double> random_graph(index_t n, std::size_t arcs, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<index_t> v(0, n - 1);
  std::uniform_real_distribution<double> w(0.1, 3.0);
  coo_matrix<double> a;
  a.rows = a.cols = n;
  for (std::size_t k = 0; k < arcs; ++k) {
    index_t i = v(gen);
    if (i % 5 == 0) continue;  // every fifth vertex is dangling
    a.row_idx.push_back(i);
    a.col_idx.push_back(k % 17 == 0 ? i : v(gen));
    a.values.push_back(w(gen));
    if (k % 13 == 0) {  // a parallel arc
      a.row_idx.push_back(a.row_idx.back());
      a.col_idx.push_back(a.col_idx.back());
      a.values.push_back(w(gen));
    }
  }
  return a;
}

// The verification graphs by name: small ones built here, real ones read from
// files (nullopt when the file is absent). Loaded once per process.
struct test_graph {
  coo_matrix<double> matrix;
  std::vector<std::int64_t> label;
  std::vector<double> reference;  // uniform v, alpha 0.85, unweighted
};

inline const std::vector<std::string>& test_graph_names() {
  static const std::vector<std::string> names{"cycle",     "star",           "dangling-only",
                                              "random",    "karate",         "harvard500",
                                              "wiki-Vote", "p2p-Gnutella05", "cnr-2000"};
  return names;
}

inline const test_graph* get_test_graph(const std::string& name) {
  static std::map<std::string, std::optional<test_graph>> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    std::optional<test_graph> g;
    const auto from_file = [&](const std::string& file) {
      if (auto path = find_graph(file)) {
        io::loaded_matrix m = io::load_matrix(*path);
        g = test_graph{std::move(m.matrix), std::move(m.label), {}};
      }
    };
    if (name == "cycle")
      g = test_graph{cycle_graph(7), {}, {}};
    else if (name == "star")
      g = test_graph{star_graph(9), {}, {}};
    else if (name == "dangling-only")
      g = test_graph{graph_from_arcs(6, {}), {}, {}};
    else if (name == "random")
      g = test_graph{random_graph(300, 2000, 42), {}, {}};
    else if (name == "karate")
      from_file("karate.mtx");
    else if (name == "harvard500")
      from_file("harvard500.mtx");
    else if (name == "wiki-Vote")
      from_file("wiki-Vote.txt");
    else if (name == "p2p-Gnutella05")
      from_file("p2p-Gnutella05.txt");
    else if (name == "cnr-2000")
      from_file("cnr-2000.mtx.gz");
    else
      ADD_FAILURE() << "unknown test graph " << name;
    if (g) g->reference = reference_pagerank(reference_from_coo(g->matrix, false), 0.85);
    it = cache.emplace(name, std::move(g)).first;
  }
  return it->second ? &*it->second : nullptr;
}

// Tolerances of a solve stopped at ||r_k - r_{k-1}||_1 < tol: the step
// contracts differences of zero sum by alpha in L1, so
// ||r_k - r*||_1 <= alpha / (1 - alpha) * tol. Rounding adds, per step, about
// (in-degree + 2) eps of relative error, i.e. an L1 perturbation delta of
// order 12 eps for these graphs (average in-degree ~10), and the fixed point
// moves by delta / (1 - alpha): 80 eps. The floors take 1e-5 for float
// (80 * 6e-8 = 4.8e-6, doubled) and 1e-11 for double.
template <class T>
struct solve_tolerance {
  // float stops at 1e-6: its rounding noise (above) keeps 1e-7 out of reach on
  // some graphs; double at 1e-10, far below the 1e-6 asked for.
  static constexpr double tol = std::is_same_v<T, float> ? 1e-6 : 1e-10;
  static constexpr double rounding_l1 = std::is_same_v<T, float> ? 1e-5 : 1e-11;
  static constexpr double max_abs = std::is_same_v<T, float> ? 1e-5 : 1e-6;  // the acceptance bounds
  static double l1(double alpha = 0.85) { return alpha / (1 - alpha) * tol + rounding_l1; }
};

// --accelerate's tests (pagerank_test, gpu_pagerank_test): the verification
// graphs plus R-MAT scale 16, each with its reference at alpha (0.85 or 0.99;
// 0.99 only up to about 10^6 links, where the plain reference iteration takes
// seconds, not minutes). Loaded once per (graph, alpha); nullptr when absent.
struct accel_graph {
  coo_matrix<double> matrix;
  reference_graph ref;
  std::vector<double> reference;
};

inline std::vector<std::string> accel_graph_names() {
  std::vector<std::string> names = test_graph_names();
  names.push_back("rmat:16:1048576");
  return names;
}

inline const accel_graph* get_accel_graph(const std::string& name, double alpha) {
  static std::map<std::pair<std::string, double>, std::optional<accel_graph>> cache;
  const auto key = std::make_pair(name, alpha);
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::optional<accel_graph> g;
    coo_matrix<double> m;
    bool found = true;
    if (name.rfind("rmat:", 0) == 0) {
      m = io::load_matrix(name).matrix;
    } else if (const test_graph* tg = get_test_graph(name)) {
      m = tg->matrix;
    } else {
      found = false;
    }
    if (found && (alpha < 0.9 || m.nnz() <= 1'100'000)) {
      g = accel_graph{std::move(m), {}, {}};
      g->ref = reference_from_coo(g->matrix, false);
      g->reference = reference_pagerank(g->ref, alpha);
    }
    it = cache.emplace(key, std::move(g)).first;
  }
  return it->second ? &*it->second : nullptr;
}

// Bounds for an accelerated solve stopped at tol (the plain solve's, since a
// plain step stops it), at any alpha: ||r - r*||_1 <= alpha / (1 - alpha) tol
// plus the rounding floor of solve_tolerance, which grows like 1 / (1 - alpha)
// (12 eps per step over 1 - alpha; written there for 0.85).
template <class T>
double accel_l1_bound(double alpha, double tol) {
  return alpha / (1 - alpha) * tol + solve_tolerance<T>::rounding_l1 * 0.15 / (1 - alpha);
}

// The true residual of a returned vector: the last plain step r_K = G(r_{K-1})
// had ||r_K - r_{K-1}||_1 < tol, and G contracts by alpha, so ||G(r_K) - r_K||_1
// <= alpha tol, plus the rounding of one step in T (about 12 eps, L1; 1e-6 in
// float, 1e-14 in double, with a margin).
template <class T>
double accel_residual_bound(double alpha, double tol) {
  return alpha * tol + (std::is_same_v<T, float> ? 1e-6 : 1e-14);
}

// An accelerated solve's vector against the fp64 reference at alpha (the
// --accelerate tests of pagerank_test and gpu_pagerank_test): its true
// residual within accel_residual_bound, its sum 1, its L1 error within
// accel_l1_bound and, below alpha 0.9, its largest error within the issue's
// 1e-6 (float) or 1e-9 (double). Returns the true residual and the largest
// error, for the tests' notes.
struct accel_errors {
  double truth = 0, max_err = 0;
};
template <class T>
accel_errors expect_accel_matches_reference(const accel_graph& ag, double alpha, double tol,
                                            const uninitialized_vector<double>& rank) {
  accel_errors e;
  e.truth = reference_residual(ag.ref, alpha, uniform(ag.ref.n), rank);
  EXPECT_LE(e.truth, accel_residual_bound<T>(alpha, tol));
  EXPECT_NEAR(std::accumulate(rank.begin(), rank.end(), 0.0), 1.0, 1e-6);
  e.max_err = max_abs_diff(rank, ag.reference);
  EXPECT_LE(l1_diff(rank, ag.reference), accel_l1_bound<T>(alpha, tol));
  if (alpha < 0.9) {
    EXPECT_LE(e.max_err, (std::is_same_v<T, float> ? 1e-6 : 1e-9));
  }
  return e;
}

}  // namespace perron::test
