// Vertex reordering (kernels/reorder.hpp): permutations of CSR matrices and
// vectors both ways, reverse Cuthill-McKee against a serial reference written
// here, the same order for every thread count, and PageRank solved in the new
// order equal to the plain solve in the caller's ids.
#include "kernels/reorder.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <numeric>
#include <random>

#include "core/error.hpp"
#include "kernels/convert.hpp"
#include "solvers/pagerank.hpp"
#include "tests/pagerank_reference.hpp"

namespace perron::test {
namespace {

csr_matrix<double> csr_of(index_t n, const std::vector<std::pair<index_t, index_t>>& arcs) {
  coo_matrix<double> a;
  a.rows = a.cols = n;
  for (std::size_t k = 0; k < arcs.size(); ++k) {
    a.row_idx.push_back(arcs[k].first);
    a.col_idx.push_back(arcs[k].second);
    a.values.push_back(1.0 + static_cast<double>(k));
  }
  return to_csr(a);
}

csr_matrix<double> random_csr(index_t n, std::size_t arcs, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<index_t> v(0, n - 1);
  std::vector<std::pair<index_t, index_t>> a;
  for (std::size_t k = 0; k < arcs; ++k) a.push_back({v(gen), v(gen)});
  return csr_of(n, a);
}

// An r x c grid (both directions), its vertices numbered in a random order.
csr_matrix<double> shuffled_grid(index_t r, index_t c, unsigned seed) {
  std::vector<index_t> id(static_cast<std::size_t>(r) * c);
  std::iota(id.begin(), id.end(), 0);
  std::shuffle(id.begin(), id.end(), std::mt19937(seed));
  std::vector<std::pair<index_t, index_t>> a;
  const auto at = [&](index_t i, index_t j) { return id[static_cast<std::size_t>(i) * c + j]; };
  for (index_t i = 0; i < r; ++i)
    for (index_t j = 0; j < c; ++j) {
      if (j + 1 < c) a.push_back({at(i, j), at(i, j + 1)}), a.push_back({at(i, j + 1), at(i, j)});
      if (i + 1 < r) a.push_back({at(i, j), at(i + 1, j)}), a.push_back({at(i + 1, j), at(i, j)});
    }
  return csr_of(r * c, a);
}

permutation random_permutation(index_t n, unsigned seed) {
  std::vector<index_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  return permutation::from_order(order);
}

void expect_equal(const csr_matrix<double>& a, const csr_matrix<double>& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(a.values, b.values);
}

// Serial Cuthill-McKee as the textbook states it, reversed: components from
// their least (degree, id) vertex, a FIFO queue, each vertex's unvisited
// neighbours in A + A^T appended by (degree, id); degree counts A's row and
// A^T's row (a pair linked both ways twice), as the parallel one does.
std::vector<index_t> serial_rcm(const csr_matrix<double>& a) {
  const csr_matrix<double> at = transpose(a);
  const index_t n = a.rows;
  std::vector<index_t> degree(static_cast<std::size_t>(n));
  for (index_t v = 0; v < n; ++v)
    degree[v] = a.row_ptr[v + 1] - a.row_ptr[v] + at.row_ptr[v + 1] - at.row_ptr[v];
  const auto less = [&](index_t x, index_t y) { return std::pair(degree[x], x) < std::pair(degree[y], y); };
  std::vector<index_t> start(static_cast<std::size_t>(n));
  std::iota(start.begin(), start.end(), 0);
  std::sort(start.begin(), start.end(), less);
  std::vector<bool> seen(static_cast<std::size_t>(n));
  std::vector<index_t> order;
  for (index_t s : start) {
    if (seen[s]) continue;
    seen[s] = true;
    std::deque<index_t> queue{s};
    while (!queue.empty()) {
      const index_t u = queue.front();
      queue.pop_front();
      order.push_back(u);
      std::vector<index_t> next;
      for (const csr_matrix<double>* m : {&a, &at})
        for (index_t k = m->row_ptr[u]; k < m->row_ptr[u + 1]; ++k)
          if (!seen[m->col_idx[k]]) seen[m->col_idx[k]] = true, next.push_back(m->col_idx[k]);
      std::sort(next.begin(), next.end(), less);
      queue.insert(queue.end(), next.begin(), next.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

// Degree-based grouping as the paper states it: a stable sort of the vertices
// by group, group g holding the counts in [32 d / 2^g, 32 d / 2^(g-1)) (d the
// mean count; group 0 unbounded above, group 7 down to 0).
std::vector<index_t> serial_dbg(const csr_matrix<double>& a) {
  std::vector<index_t> count(static_cast<std::size_t>(a.cols), 0);
  for (index_t j : a.col_idx) ++count[j];
  const double d = a.cols ? static_cast<double>(a.nnz()) / a.cols : 0.0;
  const auto group = [&](index_t v) {
    for (int g = 0; g < 7; ++g)
      if (count[v] >= 32 * d / (1 << g)) return g;
    return 7;
  };
  std::vector<index_t> order(static_cast<std::size_t>(a.cols));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return group(x) < group(y); });
  return order;
}

std::vector<index_t> serial_order(const csr_matrix<double>& a, vertex_order o) {
  if (o == vertex_order::rcm) return serial_rcm(a);
  if (o == vertex_order::dbg) return serial_dbg(a);
  std::vector<index_t> id(static_cast<std::size_t>(a.rows));
  std::iota(id.begin(), id.end(), 0);
  return id;
}

const std::vector<vertex_order> orders = {vertex_order::none, vertex_order::rcm, vertex_order::dbg};

// Runs f with t OpenMP threads, then restores the count.
template <class F>
auto with_threads(int t, F&& f) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(t);
  auto out = f();
  omp_set_num_threads(before);
  return out;
}

// ---- permutations ---------------------------------------------------------------

TEST(reorder, PermuteMovesRowsAndColumnsAndRoundTrips) {
  const csr_matrix<double> a = random_csr(200, 1500, 1);
  const permutation p = random_permutation(a.rows, 2);
  const csr_matrix<double> b = permute(a, p);
  validate(b, "b");
  const std::vector<double> da = to_dense(a), db = to_dense(b);
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t j = 0; j < a.cols; ++j)
      ASSERT_EQ(db[static_cast<std::size_t>(p.new_id[i]) * a.cols + p.new_id[j]],
                da[static_cast<std::size_t>(i) * a.cols + j]);
  for (index_t r = 0; r < b.rows; ++r)
    ASSERT_TRUE(std::is_sorted(b.col_idx.begin() + b.row_ptr[r], b.col_idx.begin() + b.row_ptr[r + 1]));
  expect_equal(permute(b, p.inverse()), a);

  std::vector<double> x(static_cast<std::size_t>(a.rows));
  std::iota(x.begin(), x.end(), 0.5);
  const std::vector<double> y = to_new(x, p);
  for (index_t i = 0; i < a.rows; ++i) EXPECT_EQ(y[p.new_id[i]], x[i]);
  EXPECT_EQ(to_old(y, p), x);
  EXPECT_EQ(to_new(x, p.inverse()), to_old(x, p));
}

TEST(reorder, BadInputsAreErrors) {
  EXPECT_THROW(permutation::from_order({0, 0, 1}), invalid_argument);
  EXPECT_THROW(permutation::from_order({0, 3, 1}), invalid_argument);
  EXPECT_THROW(permutation::from_order({-1, 0}), invalid_argument);
  const csr_matrix<double> a = random_csr(5, 10, 3);
  EXPECT_THROW(permute(a, random_permutation(4, 1)), dimension_error);
  EXPECT_THROW(to_new(std::vector<double>(3), random_permutation(4, 1)), dimension_error);
  EXPECT_THROW(to_old(std::vector<double>(5), random_permutation(4, 1)), dimension_error);
  csr_matrix<double> wide;
  wide.rows = 2;
  wide.cols = 3;
  wide.row_ptr = {0, 0, 0};
  EXPECT_THROW(locality_order(wide, vertex_order::rcm), dimension_error);
  EXPECT_THROW(parse_vertex_order("gorder"), invalid_argument);
  EXPECT_EQ(parse_vertex_order("rcm"), vertex_order::rcm);
}

// The fields are public: a permutation built by hand that is not one (an id
// out of range, a repeated id, arrays that do not undo each other) is an
// error in every function that relabels, never an index out of range or
// ranks of a graph that was not the caller's.
TEST(reorder, HandBuiltPermutationsAreChecked) {
  const csr_matrix<double> a = random_csr(4, 4, 5);
  const auto throws_naming = [&](const permutation& p, const std::string& what) {
    for (int f = 0; f < 3; ++f) {
      try {
        if (f == 0) permute(a, p);
        if (f == 1) to_new(std::vector<double>(4), p);
        if (f == 2) to_old(std::vector<double>(4), p);
        ADD_FAILURE() << what << ": no error from function " << f;
      } catch (const invalid_argument& e) {
        const std::string m = e.what();
        EXPECT_TRUE(m.find("not a permutation of 4 vertices") != std::string::npos ||
                    m.find("new_id has 4 entries and its old_id 3") != std::string::npos)
            << m;
      }
    }
  };
  throws_naming({{0, 1, 2, 1000000}, {0, 1, 2, 3}}, "an id out of range");
  throws_naming({{0, 1, 2, -1}, {0, 1, 2, 3}}, "a negative id");
  throws_naming({{0, 0, 1, 2}, {0, 2, 3, 3}}, "a repeated id");
  throws_naming({{1, 0, 2, 3}, {0, 1, 2, 3}}, "arrays that do not undo each other");
  throws_naming({{0, 1, 2, 3}, {0, 1, 2}}, "arrays of two lengths");
  const permutation q{{3, 2, 0, 1}, {2, 3, 1, 0}};
  EXPECT_EQ(to_old(to_new(std::vector<double>{1, 2, 3, 4}, q), q), (std::vector<double>{1, 2, 3, 4}));
}

// A graph too large for the host's memory is one clear error before anything large is allocated.
TEST(reorder, NoRoomIsOneClearError) {
  const csr_matrix<double> a = random_csr(1000, 5000, 8);
  const permutation p = random_permutation(a.rows, 9);
  ::setenv("PERRON_MEMORY_LIMIT", "1000", 1);
  EXPECT_THROW(permute(a, p), dimension_error);
  EXPECT_THROW(locality_order(a, vertex_order::rcm), dimension_error);
  ::unsetenv("PERRON_MEMORY_LIMIT");
  EXPECT_NO_THROW(permute(a, p));
}

// ---- reverse Cuthill-McKee ----------------------------------------------------------

// Each order equals its serial statement for every thread count: a random
// graph whose BFS levels exceed parallel_level (expanded by several threads)
// and whose vertices span several of dbg's blocks, a shuffled grid (thousands
// of narrow levels), small components with isolated vertices, a star.
TEST(reorder, OrdersAreTheSerialOnesForEveryThreadCount) {
  std::vector<std::pair<index_t, index_t>> star;
  for (index_t v = 1; v < 1000; ++v) star.push_back({v, 0});
  const std::vector<csr_matrix<double>> graphs = {random_csr(150000, 600000, 4), shuffled_grid(60, 90, 5),
                                                  random_csr(3000, 1200, 6), csr_of(1000, star)};
  for (const vertex_order o : orders)
    for (const auto& a : graphs) {
      const std::vector<index_t> want = serial_order(a, o);
      for (int t : {1, 2, 3}) {
        const permutation p = with_threads(t, [&] { return locality_order(a, o); });
        EXPECT_EQ(p.old_id, want) << name(o) << ", " << t << " threads, " << a.rows << " vertices";
      }
    }
}

TEST(reorder, OrdersOnEdgeCases) {
  const std::vector<std::pair<std::string, csr_matrix<double>>> cases = {
      {"no vertices", csr_of(0, {})},
      {"one vertex", csr_of(1, {})},
      {"one self loop", csr_of(1, {{0, 0}})},
      {"isolated only", csr_of(4, {})},
      {"self loops and empty rows", csr_of(5, {{0, 0}, {2, 2}, {2, 3}, {4, 4}})},
      {"two components", csr_of(6, {{0, 1}, {1, 2}, {3, 4}, {4, 5}, {5, 3}})},
      {"a star into 0", csr_of(5, {{1, 0}, {2, 0}, {3, 0}, {4, 0}})},
  };
  for (const vertex_order o : orders)
    for (const auto& [what, a] : cases) {
      const permutation p = locality_order(a, o);
      EXPECT_EQ(p.old_id, serial_order(a, o)) << name(o) << ", " << what;
      EXPECT_EQ(p.size(), a.rows) << what;
      expect_equal(permute(permute(a, p), p.inverse()), a);
    }
}

TEST(reorder, RcmBringsTheGridsNeighboursTogether) {
  const csr_matrix<double> a = shuffled_grid(100, 100, 7);
  const locality_stats before = locality_of(a, 200);
  const locality_stats after = locality_of(permute(a, locality_order(a, vertex_order::rcm)), 200);
  // A 100-wide grid in Cuthill-McKee order has bandwidth about 100-200 (anti-diagonal levels).
  EXPECT_GT(before.mean_gap, 2000);
  EXPECT_LT(after.mean_gap, 150);
  EXPECT_LT(before.within_window, 0.1);
  EXPECT_EQ(after.within_window, 1.0);
  EXPECT_GT(after.cache_hits, before.cache_hits);
}

TEST(reorder, LocalityOfAKnownMatrix) {
  // Entries (0,1) (1,0) (2,0) (3,3): gaps 1, 1, 2, 0.
  const locality_stats s = locality_of(csr_of(4, {{0, 1}, {1, 0}, {2, 0}, {3, 3}}), 2);
  EXPECT_DOUBLE_EQ(s.mean_gap, 1.0);
  EXPECT_DOUBLE_EQ(s.within_window, 0.75);
  EXPECT_EQ(locality_of(csr_of(3, {})).mean_gap, 0.0);
  // Every row gathers x[0] (one line): all but the first gather of each of
  // the 64 runs of rows hit.
  std::vector<std::pair<index_t, index_t>> same;
  for (index_t i = 0; i < 640; ++i) same.push_back({i, 0});
  EXPECT_DOUBLE_EQ(locality_of(csr_of(640, same)).cache_hits, 1.0 - 64.0 / 640.0);
}

TEST(reorder, LocalFractionSamplesWhatLocalityOfCounts) {
  // Small enough that every entry is sampled: exactly within_window, for the
  // CSR and for the same entries as a COO.
  const csr_matrix<double> known = csr_of(4, {{0, 1}, {1, 0}, {2, 0}, {3, 3}});
  EXPECT_DOUBLE_EQ(local_fraction(known, 2), 0.75);
  coo_matrix<double> coo;
  coo.rows = coo.cols = 4;
  coo.row_idx = {0, 1, 2, 3};
  coo.col_idx = {1, 0, 0, 3};
  coo.values = {1, 1, 1, 1};
  EXPECT_DOUBLE_EQ(local_fraction(coo, 2), 0.75);
  EXPECT_EQ(local_fraction(csr_of(3, {})), 0.0);
  EXPECT_EQ(local_fraction(coo_matrix<double>{}), 0.0);
  // Sampled (far more entries than samples): near the whole count, on a
  // random matrix and on a grid before and after its shuffle.
  for (const csr_matrix<double>& a : {random_csr(200000, 2000000, 3), shuffled_grid(300, 300, 5)}) {
    const double whole = locality_of(a, 20000).within_window;
    EXPECT_NEAR(local_fraction(a, 20000, 4096), whole, 0.03);
  }
  const csr_matrix<double> shuffled = shuffled_grid(300, 300, 5);
  EXPECT_EQ(local_fraction(permute(shuffled, locality_order(shuffled, vertex_order::rcm)), 1000, 4096), 1.0);
}

// ---- PageRank in the new order ----------------------------------------------------

class reorder_pagerank : public ::testing::TestWithParam<std::tuple<std::string, vertex_order>> {};

// The reordered solve, mapped back, against the plain one (double): each row's
// sum has its terms in another order, so they agree to rounding, far inside
// 1e-12, and after the same number of steps.
TEST_P(reorder_pagerank, EqualsThePlainSolveInTheCallersIds) {
  const auto& [graph, order] = GetParam();
  const test_graph* tg = get_test_graph(graph);
  if (!tg) GTEST_SKIP() << graph << " not found in data/ or ../shared/data";
  const pagerank_graph<double> g = make_pagerank_graph<double>(tg->matrix, false, tg->label);
  pagerank_options opt;
  opt.tol = 1e-10;
  const index_t n = g.vertices();
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> w(0.0, 1.0);
  // cnr-2000 (3.2 M links) once, the smaller graphs also personalized.
  for (bool personal : {false, true}) {
    if (personal && g.links() > 1'000'000) break;
    if (personal) {
      opt.personalization.resize(static_cast<std::size_t>(n));
      opt.initial.resize(static_cast<std::size_t>(n));
      for (auto& x : opt.personalization) x = w(gen);
      for (auto& x : opt.initial) x = w(gen);
    }
    const pagerank_result plain = pagerank_cpu(g, opt);
    const permutation p = locality_order(g.pt, order);
    const pagerank_graph<double> h = permuted(g, p);
    EXPECT_EQ(h.links(), g.links());
    EXPECT_EQ(h.dangling_count, g.dangling_count);
    EXPECT_EQ(h.pattern, g.pattern);
    const pagerank_result r = pagerank_cpu(h, permuted(opt, p));
    const rank_vector back = to_old(r.rank, p);
    EXPECT_EQ(r.iterations, plain.iterations) << "personalized: " << personal;
    EXPECT_LE(max_abs_diff(back, plain.rank), 1e-12) << "personalized: " << personal;
  }
}

INSTANTIATE_TEST_SUITE_P(all, reorder_pagerank,
                         ::testing::Combine(::testing::ValuesIn(test_graph_names()),
                                            ::testing::Values(vertex_order::rcm, vertex_order::dbg)),
                         [](const auto& info) {
                           std::string s =
                               std::get<0>(info.param) + "_" + std::string(name(std::get<1>(info.param)));
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

}  // namespace
}  // namespace perron::test
