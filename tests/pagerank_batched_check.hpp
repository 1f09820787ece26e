// Shared by the CPU and GPU tests of batched PageRank: random source sets and
// the check that every batched column equals the single-source solve with the
// same personalization.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <type_traits>
#include <vector>

#include "solvers/pagerank.hpp"
#include "solvers/pagerank_batched.hpp"
#include "tests/pagerank_reference.hpp"

namespace perron::test {

// s sets over n vertices: single vertices, equal-weight pairs and weighted
// triples (a vertex may repeat inside a set: its weights add up).
inline std::vector<source_set> random_sources(index_t n, std::size_t s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<index_t> vertex(0, n - 1);
  std::uniform_real_distribution<double> weight(0.1, 2.0);
  std::vector<source_set> out(s);
  for (std::size_t c = 0; c < s; ++c) {
    const std::size_t size = 1 + c % 3;
    for (std::size_t j = 0; j < size; ++j) out[c].emplace_back(vertex(rng), size == 3 ? weight(rng) : 1.0);
  }
  return out;
}

// The options of the tests: tol, max_iter and the device; the rest default.
inline pagerank_batched_options batched_options(double tol, int max_iter, pagerank_device device) {
  pagerank_batched_options o;
  o.base.tol = tol;
  o.base.max_iter = max_iter;
  o.base.device = device;
  return o;
}

// Every column of r against pagerank_cpu with opt.base and v_c (max-abs <= tol).
template <class T>
void expect_columns_match(const pagerank_graph<T>& g, const std::vector<source_set>& sources,
                          const pagerank_batched_result& r, const pagerank_batched_options& opt, double tol) {
  ASSERT_EQ(r.sources, sources.size());
  ASSERT_EQ(r.vertices, g.vertices());
  for (std::size_t c = 0; c < sources.size(); ++c) {
    pagerank_options one = opt.base;
    one.device = pagerank_device::cpu;
    one.accelerate = pagerank_accel::none;  // the batched solver's plain steps
    one.personalization = detail::dense_personalization(sources[c], g.vertices());
    const pagerank_result single = pagerank_cpu(g, one);
    const std::vector<double> column(r.column(c), r.column(c) + g.vertices());
    EXPECT_LE(max_abs_diff(column, single.rank), tol) << "column " << c;
    // Step counts only in double: a float iterate can become exactly stationary
    // on the CPU (residual 0) while the GPU's atomically added row pieces keep
    // it moving in the last bit, so float columns are compared by their ranks.
    if (!std::is_same_v<T, double>) continue;
    EXPECT_EQ(r.converged[c] != 0, single.converged) << "column " << c;
    if (single.converged) {
      EXPECT_NEAR(r.iterations[c], single.iterations, 1) << "column " << c;
    }
  }
}

}  // namespace perron::test
