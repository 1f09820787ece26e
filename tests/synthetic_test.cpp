// The built-in generators the benchmarks name: shape, determinism, bad specs.
#include "io/synthetic.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"

using namespace perron;

namespace {
// Row-major order and no repeated (row, col) pair.
void expect_sorted_unique(const coo_matrix<double>& a) {
  for (std::size_t k = 1; k < a.nnz(); ++k) {
    const bool ordered = a.row_idx[k - 1] < a.row_idx[k] ||
                         (a.row_idx[k - 1] == a.row_idx[k] && a.col_idx[k - 1] < a.col_idx[k]);
    ASSERT_TRUE(ordered) << "entry " << k;
  }
  for (std::size_t k = 0; k < a.nnz(); ++k) {
    ASSERT_GE(a.row_idx[k], 0);
    ASSERT_LT(a.row_idx[k], a.rows);
    ASSERT_GE(a.col_idx[k], 0);
    ASSERT_LT(a.col_idx[k], a.cols);
  }
}

// In-degree (links into each vertex: the row lengths of P^T) and out-degree.
struct degrees {
  std::vector<int> in, out;
  explicit degrees(const coo_matrix<double>& a) : in(a.rows, 0), out(a.rows, 0) {
    for (std::size_t k = 0; k < a.nnz(); ++k) {
      ++out[a.row_idx[k]];
      ++in[a.col_idx[k]];
    }
  }
  static int max(const std::vector<int>& d) { return *std::max_element(d.begin(), d.end()); }
  static int zeros(const std::vector<int>& d) { return static_cast<int>(std::count(d.begin(), d.end(), 0)); }
};

void expect_pattern(const coo_matrix<double>& a) {
  expect_sorted_unique(a);
  for (double v : a.values) ASSERT_EQ(v, 1.0);
}
}  // namespace

TEST(Synthetic, SeededRandomRowsHoldZeroTo32DistinctColumns) {
  const auto a = io::generate_synthetic("synthetic:seed002:20000");
  EXPECT_EQ(a.rows, 20000);
  EXPECT_EQ(a.cols, 20000);
  expect_sorted_unique(a);
  std::vector<int> len(a.rows, 0);
  for (auto r : a.row_idx) ++len[r];
  int longest = 0, empty = 0;
  for (int l : len) {
    longest = std::max(longest, l);
    empty += l == 0;
  }
  EXPECT_LE(longest, 32);
  EXPECT_EQ(longest, 32);  // 20000 rows: P(no row of length 32) is negligible
  EXPECT_GT(empty, 0);
  // Mean row length of uniform{0..32} is 16.
  EXPECT_NEAR(static_cast<double>(a.nnz()) / a.rows, 16.0, 0.5);
  for (double v : a.values) {
    EXPECT_GE(v, -1.0);
    EXPECT_LT(v, 1.0);
  }
}

TEST(Synthetic, SameSpecSameMatrixOtherSeedOtherMatrix) {
  const auto a = io::generate_synthetic("synthetic:seed7:3000");
  const auto b = io::generate_synthetic("synthetic:seed7:3000");
  const auto c = io::generate_synthetic("synthetic:seed8:3000");
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(a.values, b.values);
  EXPECT_NE(a.col_idx, c.col_idx);
}

TEST(Synthetic, TinySeededMatrixStillHasDistinctColumns) {
  const auto a = io::generate_synthetic("synthetic:seed1:3");
  expect_sorted_unique(a);
  EXPECT_LE(a.nnz(), 9u);
}

TEST(Synthetic, RmatIsAPatternGraphWithoutDuplicates) {
  const auto a = io::generate_synthetic("rmat:12:40000");
  EXPECT_EQ(a.rows, 4096);
  expect_sorted_unique(a);
  EXPECT_LE(a.nnz(), 40000u);
  EXPECT_GT(a.nnz(), 20000u);  // skewed, so some draws repeat, but most are distinct
  for (double v : a.values) EXPECT_EQ(v, 1.0);
  // Power law: the busiest row holds far more than the mean (~10).
  std::vector<int> len(a.rows, 0);
  for (auto r : a.row_idx) ++len[r];
  EXPECT_GT(*std::max_element(len.begin(), len.end()), 100);
  EXPECT_EQ(io::generate_synthetic("rmat:12:40000").col_idx, a.col_idx);
}

TEST(Synthetic, RmatSkewParameterControlsTheSkew) {
  // The default is Graph500's skew, bit for bit.
  EXPECT_EQ(io::generate_synthetic("rmat:12:40000:0.57,0.19,0.19").col_idx,
            io::generate_synthetic("rmat:12:40000").col_idx);
  const auto mild = io::generate_synthetic("rmat:14:200000:0.45,0.15,0.15");
  const auto strong = io::generate_synthetic("rmat:14:200000:0.7,0.1,0.1");
  const auto flat = io::generate_synthetic("rmat:14:200000:0.25,0.25,0.25");
  expect_pattern(mild);
  expect_pattern(strong);
  // More weight on quadrant a: a longer busiest row of P^T, more merged duplicates.
  EXPECT_GT(degrees::max(degrees(strong).in), 4 * degrees::max(degrees(mild).in));
  EXPECT_GT(degrees::max(degrees(mild).in), 2 * degrees::max(degrees(flat).in));
  EXPECT_LT(strong.nnz(), mild.nnz());
}

TEST(Synthetic, ErdosRenyiHasNearlyUniformDegrees) {
  const auto a = io::generate_synthetic("er:20000:200000");
  EXPECT_EQ(a.rows, 20000);
  expect_pattern(a);
  EXPECT_GT(a.nnz(), 199000u);  // 200000 draws over 4e8 cells: ~50 duplicates
  EXPECT_LE(a.nnz(), 200000u);
  const degrees d(a);
  // Poisson(10): the maximum of 20000 draws stays near 25; no vertex is a hub.
  EXPECT_LT(degrees::max(d.in), 40);
  EXPECT_LT(degrees::zeros(d.out), 20);  // e^-10 * 20000 ~ 1
  EXPECT_EQ(io::generate_synthetic("er:20000:200000").col_idx, a.col_idx);
}

TEST(Synthetic, PowerLawExponentSetsTheTail) {
  const auto heavy = io::generate_synthetic("powerlaw:50000:400000:2.2");
  const auto light = io::generate_synthetic("powerlaw:50000:400000:3.5");
  expect_pattern(heavy);
  expect_pattern(light);
  const degrees h(heavy), l(light);
  // The top rank draws n^(-(1 - beta)) of all ends: 2.2 -> ~20% of 400000 draws, 3.5 -> ~0.2%.
  EXPECT_GT(degrees::max(h.in), 10000);
  EXPECT_LT(degrees::max(l.in), 3000);
  EXPECT_GT(degrees::max(l.in), 100);
  // Ids are shuffled: the busiest vertex is not vertex 0.
  EXPECT_NE(std::max_element(h.in.begin(), h.in.end()) - h.in.begin(), 0);
}

TEST(Synthetic, GridIsTheLatticeBothWays) {
  const auto a = io::generate_synthetic("grid:3:4");
  ASSERT_EQ(a.rows, 12);
  expect_pattern(a);
  EXPECT_EQ(a.nnz(), 2u * (3 * 3 + 4 * 2));  // horizontal and vertical edges, both ways
  std::set<std::pair<int, int>> arcs;
  for (std::size_t k = 0; k < a.nnz(); ++k) arcs.insert({a.row_idx[k], a.col_idx[k]});
  for (const auto& [i, j] : arcs) {
    EXPECT_TRUE(arcs.count({j, i})) << i << " -> " << j;
    const int di = std::abs(i / 4 - j / 4), dj = std::abs(i % 4 - j % 4);
    EXPECT_EQ(di + dj, 1) << i << " -> " << j;
  }
  EXPECT_EQ(io::generate_synthetic("grid:1:1").nnz(), 0u);
  EXPECT_EQ(io::generate_synthetic("grid:0:5").rows, 0);
}

TEST(Synthetic, HubHoldsMostLinks) {
  const auto a = io::generate_synthetic("hub:10000:2000");
  expect_pattern(a);
  const degrees d(a);
  EXPECT_EQ(d.in[0], 9999);  // every other vertex (a random arc into 0 merges with its spoke)
  EXPECT_GT(static_cast<double>(d.in[0]) / a.nnz(), 0.8);
  EXPECT_EQ(io::generate_synthetic("hub:1:0").nnz(), 0u);
}

TEST(Synthetic, MostlyDanglingLeavesThatFractionWithoutOutLinks) {
  const auto a = io::generate_synthetic("dangling:10000:100000:0.9");
  expect_pattern(a);
  const degrees d(a);
  EXPECT_EQ(degrees::zeros(d.out), 9000);  // 1000 sources of 100 draws each: all used
  EXPECT_LT(degrees::zeros(d.in), 10);     // targets stay uniform
  // Every vertex dangling but one (the fraction rounds up to one source).
  const degrees one(io::generate_synthetic("dangling:100:50:0.999"));
  EXPECT_EQ(degrees::zeros(one.out), 99);
}

TEST(Synthetic, ChainsLinkEachVertexToTheNext) {
  const auto a = io::generate_synthetic("chain:10:4");
  expect_pattern(a);
  // Chains 0-3, 4-7, 8-9.
  const std::vector<int> rows = {0, 1, 2, 4, 5, 6, 8};
  ASSERT_EQ(a.nnz(), rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ(a.row_idx[k], rows[k]);
    EXPECT_EQ(a.col_idx[k], rows[k] + 1);
  }
  EXPECT_EQ(io::generate_synthetic("chain:1000:1000").nnz(), 999u);
  EXPECT_EQ(io::generate_synthetic("chain:1000:1").nnz(), 0u);
}

// A spec larger than the memory perron may use (PERRON_MEMORY_LIMIT here) is
// refused before anything large is allocated, with the bytes it needs; one
// past the 32-bit index limit likewise.
TEST(Synthetic, TooLargeForMemoryIsRefusedUpFront) {
  ::setenv("PERRON_MEMORY_LIMIT", "100000000", 1);  // 100 MB
  for (const char* spec : {"er:1000000:50000000", "rmat:22:50000000", "hub:10000000:1000", "grid:3000:3000",
                           "chain:20000000:2", "tridiag:5000000", "synthetic:seed3:20000000"}) {
    try {
      (void)io::generate_synthetic(spec);
      ADD_FAILURE() << spec << " was generated";
    } catch (const dimension_error& e) {
      EXPECT_NE(std::string(e.what()).find("B of memory, more than"), std::string::npos)
          << spec << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(spec), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(io::generate_synthetic("er:1000:5000").rows, 1000);  // small ones still fit
  ::unsetenv("PERRON_MEMORY_LIMIT");
  EXPECT_THROW(io::generate_synthetic("grid:50000:50000"), invalid_argument);  // 9.99e9 arcs
}

TEST(Synthetic, SameGraphForAnyThreadCount) {
  const int threads = omp_get_max_threads();
  for (const char* spec :
       {"powerlaw:5000:40000:2.5", "dangling:5000:40000:0.5", "rmat:12:30000:0.6,0.2,0.1"}) {
    omp_set_num_threads(1);
    const auto one = io::generate_synthetic(spec);
    omp_set_num_threads(3);
    const auto three = io::generate_synthetic(spec);
    EXPECT_EQ(one.row_idx, three.row_idx) << spec;
    EXPECT_EQ(one.col_idx, three.col_idx) << spec;
  }
  omp_set_num_threads(threads);
}

TEST(Synthetic, TridiagIsTheLaplacianStencil) {
  const auto a = io::generate_synthetic("tridiag:5");
  ASSERT_EQ(a.nnz(), 13u);
  expect_sorted_unique(a);
  for (std::size_t k = 0; k < a.nnz(); ++k) {
    EXPECT_LE(std::abs(a.row_idx[k] - a.col_idx[k]), 1);
    EXPECT_EQ(a.values[k], a.row_idx[k] == a.col_idx[k] ? 2.0 : -1.0);
  }
  EXPECT_EQ(io::generate_synthetic("tridiag:1").nnz(), 1u);
  EXPECT_EQ(io::generate_synthetic("tridiag:0").nnz(), 0u);
}

TEST(Synthetic, RecognisesOnlyItsPrefixes) {
  EXPECT_TRUE(io::is_synthetic_spec("rmat:20:10000000"));
  EXPECT_TRUE(io::is_synthetic_spec("tridiag:10"));
  EXPECT_TRUE(io::is_synthetic_spec("synthetic:seed002:1000000"));
  for (const char* g :
       {"rmat:4:10", "er:1:1", "powerlaw:9:9:2.5", "grid:2:2", "hub:3:1", "dangling:3:3:0.5", "chain:3:3"}) {
    EXPECT_TRUE(io::is_synthetic_spec(g)) << g;
    EXPECT_TRUE(io::is_synthetic_graph_spec(g)) << g;
  }
  EXPECT_FALSE(io::is_synthetic_graph_spec("tridiag:10"));
  EXPECT_FALSE(io::is_synthetic_spec("grid.mtx"));
  EXPECT_FALSE(io::is_synthetic_spec("data/karate.mtx"));
  EXPECT_FALSE(io::is_synthetic_spec("tridiag.mtx"));
}

TEST(Synthetic, MalformedSpecsAreClearErrors) {
  for (const char* bad : {"tridiag:",
                          "tridiag:-3",
                          "tridiag:1e5",
                          "rmat:20",
                          "rmat:31:10",
                          "synthetic:7:100",
                          "synthetic:seedX:100",
                          "tridiag:3000000000",
                          "rmat:x:1",
                          "rmat:10:100:0.5,0.5",
                          "rmat:10:100:0.5,0.5,0.5",
                          "rmat:10:100:0.5,-0.1,0.2",
                          "rmat:10:100:a,b,c",
                          "rmat:10:100:0.5,0.2,0.2,0.1",
                          "rmat:20:3000000000",
                          "er:0:10",
                          "er:10",
                          "er:10:-1",
                          "powerlaw:100:100:2",
                          "powerlaw:100:100:1.5",
                          "powerlaw:100:100:nan",
                          "powerlaw:100:100",
                          "grid:3",
                          "grid:100000:100000",
                          "hub:0:5",
                          "hub:10:1:2",
                          "dangling:10:10:1",
                          "dangling:10:10:-0.1",
                          "dangling:10:10",
                          "chain:10:0",
                          "chain:10",
                          "er:5:5:5"}) {
    try {
      io::generate_synthetic(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}
