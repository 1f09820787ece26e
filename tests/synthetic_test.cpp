// The built-in generators the benchmarks name: shape, determinism, bad specs.
#include "io/synthetic.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "solvers/pagerank.hpp"

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

// A + B + C = 1 (D = 0) is legal however the doubles round: 0.34 + 0.56 + 0.1
// sums to 1 + 2^-52 and was refused. With D = 0 no draw takes quadrant d
// (down and right) at any level, so no arc's row and column share a set bit.
TEST(Synthetic, RmatProbabilitiesSummingToOneAreAccepted) {
  for (const char* spec : {"rmat:8:3000:0.34,0.56,0.1", "rmat:8:3000:0.33,0.56,0.11",
                           "rmat:8:3000:0.55,0.34,0.11", "rmat:8:3000:0.5,0.3,0.2", "rmat:8:3000:1,0,0"}) {
    SCOPED_TRACE(spec);
    coo_matrix<double> a;
    ASSERT_NO_THROW(a = io::generate_synthetic(spec));
    EXPECT_GT(a.nnz(), 0u);
    for (std::size_t k = 0; k < a.nnz(); ++k) ASSERT_EQ(a.row_idx[k] & a.col_idx[k], 0) << k;
  }
  EXPECT_THROW(io::generate_synthetic("rmat:8:3000:0.34,0.56,0.11"), invalid_argument);
  EXPECT_THROW(io::generate_synthetic("rmat:8:3000:0.5,0.3,0.2000001"), invalid_argument);
}

// The size the apps check memory with before generating, for the matrices
// too: their exact rows and nonzeros.
TEST(Synthetic, SpecSizeOfTheMatricesIsExact) {
  for (const char* spec : {"tridiag:1", "tridiag:10", "synthetic:seed3:400", "synthetic:seed1:1"}) {
    const io::synthetic_size size = io::synthetic_spec_size(spec);
    const auto a = io::generate_synthetic(spec);
    EXPECT_EQ(size.vertices, a.rows) << spec;
    EXPECT_EQ(size.arcs, a.nnz()) << spec;
  }
  EXPECT_EQ(io::synthetic_spec_size("tridiag:0").arcs, 0u);
  EXPECT_EQ(io::synthetic_spec_size("rmat:10:5000").arcs, io::synthetic_graph_size("rmat:10:5000").arcs);
  for (const char* bad :
       {"tridiag:", "tridiag:1:2", "synthetic:seed:5", "synthetic:5:5", "tridiag:3000000000"})
    EXPECT_THROW(io::synthetic_spec_size(bad), invalid_argument) << bad;
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

// A seeded matrix past 2^31 nonzeros is refused before its row offsets (8
// bytes a row) are allocated, naming the spec: from 2^27 + 2^22 rows at once
// (their count took 15 s at 2 * 10^9), below it from the counted row lengths.
TEST(Synthetic, SeededMatrixPastTheIndexLimitIsRefusedBeforeItsOffsets) {
  ::setenv("PERRON_MEMORY_LIMIT", "1e9", 1);  // the offsets alone would be 1.6 GB
  try {
    (void)io::generate_synthetic("synthetic:seed1:200000000");
    ADD_FAILURE() << "generated";
  } catch (const invalid_argument& e) {
    EXPECT_NE(
        std::string(e.what()).find("'synthetic:seed1:200000000': about 3200000000 nonzeros (0-32 a row) "
                                   "exceed"),
        std::string::npos)
        << e.what();
  }
  ::unsetenv("PERRON_MEMORY_LIMIT");
  // Near 2^27 rows the count decides: 2^27 + 1000 rows of seed 2 hold 2147479905 nonzeros, under 2^31.
  EXPECT_EQ(io::synthetic_spec_size("synthetic:seed2:134218728").arcs, 2147479905u);
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
  for (const char* g : {"rmat:4:10", "er:1:1", "powerlaw:9:9:2.5", "grid:2:2", "hub:3:1", "dangling:3:3:0.5",
                        "chain:3:3", "cite:3:3", "ws:3:2:0", "sbm:3:3:1", "bip:1:1:1"}) {
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
                          "tridiag:1000000000",  // fits 32-bit ids, its 3e9 nonzeros do not
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
                          "hub:10:18446744073709551610",  // 9 spokes + M wrapped to 3 arcs
                          "dangling:10:10:1",
                          "dangling:10:10:-0.1",
                          "dangling:10:10",
                          "chain:10:0",
                          "chain:10",
                          "er:5:5:5",
                          "cite:10",
                          "cite:0:10",
                          "cite:10:10:1",
                          "cite:10:10:-0.1",
                          "cite:10:10:0.5:1",
                          "ws:10:3",
                          "ws:10:0:0.1",
                          "ws:10:10:0.1",
                          "ws:1:1:0",
                          "ws:10:3:1.5",
                          "ws:10:3:nan",
                          "sbm:10:10",
                          "sbm:10:10:0",
                          "sbm:10:10:11",
                          "sbm:10:10:2:1.5",
                          "sbm:10:10:2:-0.1",
                          "sbm:10:10:2:0.1:3",
                          "sbm:0:10:1",
                          "bip:10:10",
                          "bip:0:10:5",
                          "bip:10:0:5",
                          "bip:10:10:5:2",
                          "bip:10:10:5:2.5:1",
                          "bip:2000000000:2000000000:5",
                          "bip:10:10:9223372036854775808",
                          "er:10:99999999999999999999"}) {
    try {
      io::generate_synthetic(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  // A count past 2^64 is said to be one, not "not a non-negative integer".
  try {
    io::generate_synthetic("er:10:99999999999999999999");
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'99999999999999999999' is too large"), std::string::npos)
        << e.what();
  }
  // The size the apps check memory with, from the spec alone, refuses it too.
  EXPECT_THROW(io::synthetic_graph_size("hub:10:18446744073709551610"), invalid_argument);
  EXPECT_EQ(io::synthetic_graph_size("hub:10:18446744073709551606").arcs, ~std::uint64_t{0});
  EXPECT_THROW(io::synthetic_graph_size("ws:10:10:0.1"), invalid_argument);
  EXPECT_EQ(io::synthetic_graph_size("ws:10:3:0.1").arcs, 30u);
  EXPECT_EQ(io::synthetic_graph_size("cite:10:33").arcs, 33u);
  EXPECT_EQ(io::synthetic_graph_size("sbm:10:33:2").arcs, 33u);
  const io::synthetic_size b = io::synthetic_graph_size("bip:10:20:33");
  EXPECT_EQ(b.vertices, 30);
  EXPECT_EQ(b.arcs, 66u);
  for (const char* bad : {"bip:10:20", "bip:2000000000:2000000000:5", "bip:10:10:9223372036854775808"})
    EXPECT_THROW(io::synthetic_graph_size(bad), invalid_argument) << bad;
}

namespace {
// The CSR of A^T of a COO of A, built the slow, obvious way: (col, row) pairs sorted.
csr_matrix<float> transpose_of(const coo_matrix<double>& a) {
  std::vector<std::pair<index_t, index_t>> arcs;
  for (std::size_t k = 0; k < a.nnz(); ++k) arcs.emplace_back(a.col_idx[k], a.row_idx[k]);
  std::sort(arcs.begin(), arcs.end());
  csr_matrix<float> t;
  t.rows = t.cols = a.rows;
  t.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  for (const auto& [i, j] : arcs) {
    ++t.row_ptr[i + 1];
    t.col_idx.push_back(j);
  }
  for (index_t i = 0; i < a.rows; ++i) t.row_ptr[i + 1] += t.row_ptr[i];
  t.values.assign(t.col_idx.size(), 1.0f);
  return t;
}

const char* const graph_specs[] = {"rmat:12:40000",      "rmat:10:20000:0.7,0.1,0.1",
                                   "er:3000:20000",      "powerlaw:4000:30000:2.3",
                                   "hub:2000:500",       "dangling:3000:20000:0.6",
                                   "grid:13:17",         "chain:100:7",
                                   "web:20000:200000",   "web:5000:40000:0.5,2.2",
                                   "cite:5000:40000",    "cite:3000:20000:0.8",
                                   "ws:4000:6:0.05",     "ws:50:49:1",
                                   "sbm:5000:40000:20",  "sbm:3000:20000:3000:0.5",
                                   "bip:2000:500:20000", "bip:300:4000:9000:3"};
}  // namespace

// generate_graph_transpose is generate_synthetic's graph, transposed.
TEST(Synthetic, TransposeIsTheSameGraph) {
  for (const char* spec : graph_specs) {
    const coo_matrix<double> a = io::generate_synthetic(spec);
    expect_pattern(a);
    const csr_matrix<float> want = transpose_of(a);
    const csr_matrix<float> got = io::generate_graph_transpose<float>(spec);
    EXPECT_EQ(got.rows, want.rows) << spec;
    EXPECT_EQ(got.row_ptr, want.row_ptr) << spec;
    EXPECT_EQ(got.col_idx, want.col_idx) << spec;
    EXPECT_EQ(got.values, want.values) << spec;
    EXPECT_EQ(io::generate_graph_transpose<double>(spec).col_idx, got.col_idx) << spec;
  }
  EXPECT_THROW(io::generate_graph_transpose<float>("tridiag:10"), invalid_argument);
}

// The same spec gives the same graph on 1, 2 or 3 threads, both forms (the
// scatter's order inside a bucket changes with the thread count, the rows do not).
TEST(Synthetic, EveryFamilySameGraphForAnyThreadCount) {
  const int threads = omp_get_max_threads();
  for (const char* spec : graph_specs) {
    std::vector<index_t> cols[3], rows[3];
    for (int p = 1; p <= 3; ++p) {
      omp_set_num_threads(p);
      const auto t = io::generate_graph_transpose<float>(spec);
      cols[p - 1] = t.col_idx;
      rows[p - 1] = t.row_ptr;
    }
    EXPECT_EQ(cols[0], cols[1]) << spec;
    EXPECT_EQ(cols[0], cols[2]) << spec;
    EXPECT_EQ(rows[0], rows[1]) << spec;
    EXPECT_EQ(rows[0], rows[2]) << spec;
  }
  omp_set_num_threads(threads);
}

// The AVX-512 R-MAT draws (taken where the CPU has them) and the portable
// ones (forced by PERRON_RMAT_SCALAR) give the same graph.
TEST(Synthetic, RmatVectorAndScalarDrawsAgree) {
  for (const char* spec : {"rmat:12:40001", "rmat:14:200000:0.7,0.1,0.1", "rmat:3:7"}) {
    const auto fast = io::generate_graph_transpose<float>(spec);
    ::setenv("PERRON_RMAT_SCALAR", "1", 1);
    const auto plain = io::generate_graph_transpose<float>(spec);
    ::unsetenv("PERRON_RMAT_SCALAR");
    EXPECT_EQ(fast.row_ptr, plain.row_ptr) << spec;
    EXPECT_EQ(fast.col_idx, plain.col_idx) << spec;
  }
}

// Graph500's edge factor 16: 2^S vertices, 16 * 2^S draws, most distinct,
// in-degrees skewed (the busiest target far above the mean of ~16).
TEST(Synthetic, RmatEdgeFactor16Counts) {
  const auto t = io::generate_graph_transpose<float>("rmat:16:1048576");
  ASSERT_EQ(t.rows, 65536);
  EXPECT_LE(t.nnz(), 1048576u);
  EXPECT_GT(t.nnz(), 1048576u * 8 / 10);
  index_t longest = 0, empty = 0;
  for (index_t i = 0; i < t.rows; ++i) {
    longest = std::max(longest, t.row_ptr[i + 1] - t.row_ptr[i]);
    empty += t.row_ptr[i + 1] == t.row_ptr[i];
  }
  EXPECT_GT(longest, 1000);  // vs the mean 16: a power-law tail
  EXPECT_GT(empty, 0);       // R-MAT leaves vertices without in-links
  const io::synthetic_size size = io::synthetic_graph_size("rmat:16:1048576");
  EXPECT_EQ(size.vertices, 65536);
  EXPECT_EQ(size.arcs, 1048576u);
}

// web: sites of consecutive pages, Zipf-sized within [1, 100000] (the last
// may be cut short), mean near 100; most links stay inside their site, and
// LOCAL sets how many.
TEST(Synthetic, WebLinksStayMostlyInTheirSite) {
  const std::string spec = "web:200000:2000000";
  const std::vector<index_t> start = io::web_sites(spec);
  ASSERT_GE(start.size(), 2u);
  EXPECT_EQ(start.front(), 0);
  EXPECT_EQ(start.back(), 200000);
  for (std::size_t s = 0; s + 1 < start.size(); ++s) {
    ASSERT_LT(start[s], start[s + 1]);
    ASSERT_LE(start[s + 1] - start[s], 100000);
    if (s + 2 < start.size()) {
      ASSERT_GE(start[s + 1] - start[s], 10);
    }
  }
  const double mean_site = 200000.0 / double(start.size() - 1);
  EXPECT_GT(mean_site, 30);
  EXPECT_LT(mean_site, 300);
  std::vector<index_t> site(200000);
  for (std::size_t s = 0; s + 1 < start.size(); ++s)
    for (index_t p = start[s]; p < start[s + 1]; ++p) site[p] = static_cast<index_t>(s);
  const auto intra_fraction = [&](const std::string& g) {
    const coo_matrix<double> a = io::generate_synthetic(g);
    std::size_t intra = 0;
    for (std::size_t k = 0; k < a.nnz(); ++k) intra += site[a.row_idx[k]] == site[a.col_idx[k]];
    return double(intra) / double(a.nnz());
  };
  // Duplicates merge more often inside a site (the same popular pages), so
  // the distinct links' fraction sits a little below LOCAL.
  const double dflt = intra_fraction(spec), low = intra_fraction("web:200000:2000000:0.3");
  EXPECT_GT(dflt, 0.8) << dflt;
  EXPECT_LE(dflt, 0.92) << dflt;
  EXPECT_GT(low, 0.2) << low;
  EXPECT_LT(low, 0.4) << low;
  // In-degrees follow a power law (home pages), out-degrees stay near the mean 10.
  const coo_matrix<double> a = io::generate_synthetic(spec);
  const degrees d(a);
  EXPECT_GT(degrees::max(d.in), 1000);
  EXPECT_LT(degrees::max(d.out), 40);
  EXPECT_GT(a.nnz(), 1500000u);
  // No self loops inside a site.
  for (std::size_t k = 0; k < a.nnz(); ++k) ASSERT_NE(a.row_idx[k], a.col_idx[k]);
}

TEST(Synthetic, WebSpecErrors) {
  for (const char* bad :
       {"web:0:10", "web:10", "web:10:10:1.5", "web:10:10:0.5,2", "web:10:10:x", "web:10:-1"}) {
    try {
      io::generate_synthetic(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(io::is_synthetic_graph_spec("web:10:10"));
}

// P^T built in place from the generated transpose is make_pagerank_graph's,
// bit for bit, in both precisions.
TEST(Synthetic, PageRankGraphFromThePatternIsTheUsualOne) {
  for (const char* spec : graph_specs) {
    const coo_matrix<double> a = io::generate_synthetic(spec);
    const auto want = make_pagerank_graph<float>(a, false);
    const auto got = pagerank_graph_from_pattern<float>(io::generate_graph_transpose<float>(spec));
    EXPECT_EQ(got.pt.row_ptr, want.pt.row_ptr) << spec;
    EXPECT_EQ(got.pt.col_idx, want.pt.col_idx) << spec;
    EXPECT_EQ(got.pt.values, want.pt.values) << spec;
    EXPECT_EQ(got.dangling, want.dangling) << spec;
    EXPECT_EQ(got.dangling_count, want.dangling_count) << spec;
    EXPECT_TRUE(got.pattern);
    const auto want_d = make_pagerank_graph<double>(a, false);
    const auto got_d = pagerank_graph_from_pattern<double>(io::generate_graph_transpose<double>(spec));
    EXPECT_EQ(got_d.pt.values, want_d.pt.values) << spec;
  }
}

// The GPU's refusal: from PERRON_GPU_MEMORY_LIMIT here (no GPU needed), with
// the bytes needed and the bytes allowed; and the estimate that feeds it.
TEST(Synthetic, GpuMemoryRefusalNamesBothSizes) {
  EXPECT_EQ(memory_refusal(2.5e9, 1.0e9, "PageRank of X", "GPU memory", "free on the GPU"),
            "PageRank of X needs about 2.5 GB of GPU memory, more than the 1.0 GB free on the GPU");
  EXPECT_EQ(memory_refusal(3.0e6, 512, "Y", "memory", "free on this host"),
            "Y needs about 3.0 MB of memory, more than the 512 bytes free on this host");
  ::setenv("PERRON_GPU_MEMORY_LIMIT", "1000000000", 1);  // 1 GB
  EXPECT_LE(device_memory_limit(), std::size_t(1000000000));
  EXPECT_NO_THROW(check_device_memory(0.9e9, "small"));
  try {
    check_device_memory(2.0e9, "PageRank on the GPU of 'rmat:24:268435456'");
    ADD_FAILURE() << "2 GB fitted a 1 GB limit";
  } catch (const dimension_error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("needs about 2.0 GB of GPU memory, more than the 1.0 GB"), std::string::npos) << w;
    EXPECT_NE(w.find("PERRON_GPU_MEMORY_LIMIT"), std::string::npos) << w;
    EXPECT_NE(w.find("rmat:24"), std::string::npos) << w;
  }
  ::unsetenv("PERRON_GPU_MEMORY_LIMIT");
  // rmat:26, 2^26 vertices and at most 2^30 links, float: the fused pull's
  // estimate (8.25 bytes per link + 68 per vertex) is 13.4 GB, the spmv pull's
  // (16 per link + 33 per vertex) 19.4 GB: both fit an 80 GB H100. With the 16-bit index built too
  // (PERRON_FUSED_INDEX=16 or trial: 12.25 per link + 84 per vertex), 18.8 GB.
  const double fused = pagerank_device_bytes(index_t(1) << 26, std::size_t(1) << 30, 4, pagerank_pull::fused);
  const double spmv = pagerank_device_bytes(index_t(1) << 26, std::size_t(1) << 30, 4, pagerank_pull::spmv);
  EXPECT_NEAR(fused, 8.25 * 1073741824.0 + 68.0 * 67108864.0, 1.0);
  for (const char* w : {"16", "trial"}) {
    ::setenv("PERRON_FUSED_INDEX", w, 1);
    EXPECT_NEAR(pagerank_device_bytes(index_t(1) << 26, std::size_t(1) << 30, 4, pagerank_pull::fused),
                12.25 * 1073741824.0 + 84.0 * 67108864.0, 1.0)
        << w;
    EXPECT_NEAR(pagerank_device_bytes(index_t(1) << 26, std::size_t(1) << 30, 4, pagerank_pull::persistent),
                8.25 * 1073741824.0 + 68.0 * 67108864.0, 1.0)
        << w;
  }
  ::setenv("PERRON_FUSED_INDEX", "8", 1);
  EXPECT_THROW(fused_index_choice(), invalid_argument);
  ::unsetenv("PERRON_FUSED_INDEX");
  EXPECT_NEAR(spmv, 16.0 * 1073741824.0 + 33.0 * 67108864.0, 1.0);
  EXPECT_EQ(pagerank_device_bytes(index_t(1) << 26, std::size_t(1) << 30, 4, pagerank_pull::automatic),
            std::max(fused, spmv));
  EXPECT_LT(std::max(fused, spmv), 80e9);
}

// A^T in row pieces (for graphs past 2^31 links): every piece holds exactly
// the rows of the whole A^T, whatever the cut (even, uneven, empty pieces)
// and the thread count; the out-degrees are the columns' counts.
TEST(Synthetic, PiecesAreTheWholeTransposeCut) {
  const int threads = omp_get_max_threads();
  // Cuts on 4096-row blocks: thirds of the blocks, all in the last piece, one piece.
  const std::vector<io::piece_cut> cuts = {
      [](const std::vector<std::uint64_t>& b) {
        const auto n = static_cast<index_t>(b.size() * io::piece_rows);
        std::vector<index_t> f{0};
        for (std::size_t k = 1; k < 3; ++k)
          f.push_back(static_cast<index_t>(b.size() * k / 3 * io::piece_rows));
        f.push_back(n);
        return f;
      },
      [](const std::vector<std::uint64_t>& b) {
        return std::vector<index_t>{0, 0, static_cast<index_t>(b.size() * io::piece_rows)};
      },
  };
  for (const char* spec : {"rmat:14:150000", "er:9000:60000", "powerlaw:10000:80000:2.5", "hub:9000:20000",
                           "dangling:9000:30000:0.5", "web:13000:90000", "grid:70:90", "chain:9000:7",
                           "cite:9000:50000", "ws:9000:4:0.1", "sbm:9000:60000:7", "bip:5000:4500:30000"}) {
    const csr_matrix<float> whole = io::generate_graph_transpose<float>(spec);
    for (std::size_t c = 0; c < cuts.size(); ++c) {
      omp_set_num_threads(c == 0 ? 1 : threads);
      // The last boundary is n, not the blocks' end.
      const io::piece_cut cut = [&](const std::vector<std::uint64_t>& b) {
        std::uint64_t draws = 0;
        for (std::uint64_t d : b) draws += d;
        EXPECT_GE(draws, whole.nnz()) << spec;  // draws before duplicates merge
        std::vector<index_t> f = cuts[c](b);
        for (index_t& x : f) x = std::min(x, whole.rows);
        return f;
      };
      const io::transpose_pieces p = io::generate_transpose_pieces(spec, cut);
      ASSERT_EQ(p.at.rows, whole.rows) << spec;
      ASSERT_EQ(p.at.first.front(), 0);
      ASSERT_EQ(p.at.first.back(), whole.rows);
      ASSERT_EQ(p.at.pieces(), p.at.first.size() - 1);
      EXPECT_EQ(p.links, whole.nnz());
      EXPECT_EQ(p.at.nnz(), whole.nnz());
      std::vector<index_t> row_ptr{0}, col;
      for (std::size_t k = 0; k < p.at.pieces(); ++k) {
        ASSERT_EQ(p.at.row_ptr[k].size(), static_cast<std::size_t>(p.at.first[k + 1] - p.at.first[k]) + 1);
        for (std::size_t i = 1; i < p.at.row_ptr[k].size(); ++i)
          row_ptr.push_back(col.size() + p.at.row_ptr[k][i]);
        col.insert(col.end(), p.at.col_idx[k].begin(), p.at.col_idx[k].end());
      }
      EXPECT_EQ(row_ptr, whole.row_ptr) << spec << " cut " << c;
      EXPECT_EQ(col, whole.col_idx) << spec << " cut " << c;
      std::vector<std::uint32_t> degree(static_cast<std::size_t>(whole.rows), 0);
      for (index_t j : whole.col_idx) ++degree[static_cast<std::size_t>(j)];
      EXPECT_EQ(p.out_degree, degree) << spec;
    }
  }
  omp_set_num_threads(threads);
}

// A cut off the 4096-row blocks, or not from 0 to n, is refused; a graph past
// the 32-bit limit is not refused for that in pieces, only by memory (checked
// before anything large is allocated).
TEST(Synthetic, PiecesRefuseBadCutsAndCheckMemoryFirst) {
  const auto bad = [](std::vector<index_t> f) {
    return [f](const std::vector<std::uint64_t>&) { return f; };
  };
  EXPECT_THROW(io::generate_transpose_pieces("er:9000:30000", bad({0, 100, 9000})), invalid_argument);
  EXPECT_THROW(io::generate_transpose_pieces("er:9000:30000", bad({0, 4096})), invalid_argument);
  EXPECT_THROW(io::generate_transpose_pieces("er:9000:30000", bad({0, 8192, 4096, 9000})), invalid_argument);
  EXPECT_THROW(io::generate_transpose_pieces("grid:70:90", bad({1, 6300})), invalid_argument);
  EXPECT_THROW(io::generate_transpose_pieces("data/karate.mtx", bad({0, 34})), invalid_argument);
  ::setenv("PERRON_MEMORY_LIMIT", "100000000", 1);  // 100 MB
  for (const char* spec : {"rmat:30:17179869184", "web:100000000:4000000000"}) {
    try {
      (void)io::generate_transpose_pieces(spec, bad({0}));
      ADD_FAILURE() << spec << " was generated";
    } catch (const dimension_error& e) {
      EXPECT_NE(std::string(e.what()).find("B of memory, more than"), std::string::npos)
          << spec << ": " << e.what();
    }
  }
  ::unsetenv("PERRON_MEMORY_LIMIT");
}

// A graph's draws in shares (one per process under mpirun): in draw order,
// duplicates kept; together exactly the arcs of the whole graph once merged.
TEST(Synthetic, DrawSharesMakeTheWholeGraph) {
  for (const char* spec : {"rmat:12:40000", "er:5000:30000", "hub:3000:6000", "web:6000:40000",
                           "dangling:4000:20000:0.3", "powerlaw:4000:20000:2.5", "cite:4000:30000",
                           "ws:3000:5:0.2", "sbm:4000:30000:9:0.3", "bip:1000:3000:15000"}) {
    const csr_matrix<float> whole = io::generate_graph_transpose<float>(spec);
    const std::uint64_t m = io::synthetic_graph_size(spec).arcs;
    std::set<std::pair<index_t, index_t>> arcs;  // (target, source)
    std::uint64_t drawn = 0;
    for (std::uint64_t p = 0; p < 3; ++p) {
      std::vector<index_t> source, target;
      ASSERT_TRUE(io::synthetic_draws(spec, m * p / 3, m * (p + 1) / 3, source, target)) << spec;
      ASSERT_EQ(source.size(), target.size());
      drawn += source.size();
      for (std::size_t k = 0; k < source.size(); ++k) arcs.emplace(target[k], source[k]);
    }
    EXPECT_EQ(drawn, m) << spec;
    std::set<std::pair<index_t, index_t>> expected;
    for (index_t i = 0; i < whole.rows; ++i)
      for (index_t k = whole.row_ptr[i]; k < whole.row_ptr[i + 1]; ++k) expected.emplace(i, whole.col_idx[k]);
    EXPECT_EQ(arcs, expected) << spec;
  }
  std::vector<index_t> s, t;
  EXPECT_FALSE(io::synthetic_draws("grid:10:10", 0, 10, s, t));
  EXPECT_TRUE(s.empty());
  EXPECT_TRUE(io::synthetic_draws("er:100:50", 40, 1000, s, t));  // clamped to the 50 draws
  EXPECT_EQ(s.size(), 10u);
  EXPECT_THROW(io::synthetic_draws("data/karate.mtx", 0, 1, s, t), invalid_argument);
}

// cite:N:M: acyclic (every citation to an older, lower id), vertex 0 cites
// nothing, each other vertex about M / (N - 1) citations, and the copying
// makes old vertices popular: more copying, a heavier tail.
TEST(Synthetic, CitationsGoToOlderVerticesWithAPopularFew) {
  const auto top_share = [](const coo_matrix<double>& a) {  // links into the top 1% of vertices
    degrees d(a);
    std::sort(d.in.begin(), d.in.end(), std::greater<int>());
    long long top = 0;
    for (std::size_t i = 0; i < d.in.size() / 100; ++i) top += d.in[i];
    return double(top) / double(a.nnz());
  };
  const coo_matrix<double> a = io::generate_synthetic("cite:20000:200000");
  expect_pattern(a);
  for (std::size_t k = 0; k < a.nnz(); ++k) ASSERT_LT(a.col_idx[k], a.row_idx[k]) << k;
  const degrees d(a);
  EXPECT_EQ(d.out[0], 0);
  EXPECT_LE(degrees::max(d.out), 11);  // 10 or 11 draws a source, fewer where two meet
  EXPECT_GT(a.nnz(), 180000u);
  // The oldest vertices draw the most: vertex 1's in-degree is far above the mean 10.
  EXPECT_GT(d.in[1], 200);
  const double plain = top_share(a), uniform = top_share(io::generate_synthetic("cite:20000:200000:0")),
               heavy = top_share(io::generate_synthetic("cite:20000:200000:0.8"));
  EXPECT_LT(uniform, plain);
  EXPECT_LT(plain, heavy);
  EXPECT_GT(heavy, 0.3) << heavy;
  // One vertex: its draws are self loops; fewer draws than vertices: the
  // sources spread (every draw still to an older vertex).
  EXPECT_EQ(io::generate_synthetic("cite:1:5").nnz(), 1u);
  const coo_matrix<double> sparse = io::generate_synthetic("cite:1000:100");
  EXPECT_EQ(sparse.nnz(), 100u);  // each draw its own source: no two meet
  for (std::size_t k = 0; k < sparse.nnz(); ++k) ASSERT_LT(sparse.col_idx[k], sparse.row_idx[k]);
  EXPECT_EQ(degrees::max(degrees(sparse).out), 1);
}

// ws:N:K:P: P = 0 is the ring lattice exactly; P = 1 keeps no more of it than
// chance; in between about P of the links leave it.
TEST(Synthetic, SmallWorldIsARingLatticeWithRewiredLinks) {
  const index_t n = 5000;
  const auto on_ring = [&](index_t v, index_t t, int k) {
    const index_t d = std::min((t - v + n) % n, (v - t + n) % n);
    return d >= 1 && d <= (k + 1) / 2;
  };
  const coo_matrix<double> lattice = io::generate_synthetic("ws:5000:6:0");
  expect_pattern(lattice);
  ASSERT_EQ(lattice.nnz(), 30000u);
  for (std::size_t k = 0; k < lattice.nnz(); ++k)
    ASSERT_TRUE(on_ring(lattice.row_idx[k], lattice.col_idx[k], 6)) << k;
  const degrees d(lattice);
  EXPECT_EQ(degrees::max(d.in), 6);
  EXPECT_EQ(degrees::zeros(d.in), 0);
  // K odd: v + 1, v - 1, v + 2 (three out-links a vertex).
  const coo_matrix<double> odd = io::generate_synthetic("ws:5000:3:0");
  ASSERT_EQ(odd.nnz(), 15000u);
  for (std::size_t k = 0; k < odd.nnz(); ++k) {
    const index_t v = odd.row_idx[k], t = odd.col_idx[k];
    ASSERT_TRUE(t == (v + 1) % n || t == (v + n - 1) % n || t == (v + 2) % n) << v << " -> " << t;
  }
  const auto off_ring = [&](const std::string& spec) {
    const coo_matrix<double> a = io::generate_synthetic(spec);
    std::size_t off = 0;
    for (std::size_t k = 0; k < a.nnz(); ++k) off += !on_ring(a.row_idx[k], a.col_idx[k], 10);
    return double(off) / double(a.nnz());
  };
  const double some = off_ring("ws:5000:10:0.1"), all = off_ring("ws:5000:10:1");
  EXPECT_GT(some, 0.08) << some;
  EXPECT_LT(some, 0.11) << some;
  EXPECT_GT(all, 0.99) << all;
}

// sbm:N:M:K[:MU]: about 1 - MU of the arcs inside their source's block of
// consecutive ids (the others uniform, so a share 1 / K of them lands inside
// too); even rows; MU = 1 leaves no trace of the blocks.
TEST(Synthetic, CommunitiesKeepMostLinksInTheirBlock) {
  const std::uint64_t n = 10000, k = 7;  // blocks of 1428 and 1429
  const auto block = [&](index_t v) { return ((static_cast<std::uint64_t>(v) + 1) * k - 1) / n; };
  for (index_t v : {0, 1427, 1428, 1429, 9999}) {
    EXPECT_LE(block(v) * n / k, static_cast<std::uint64_t>(v));
    EXPECT_GT((block(v) + 1) * n / k, static_cast<std::uint64_t>(v));
  }
  const auto inside = [&](const std::string& spec) {
    const coo_matrix<double> a = io::generate_synthetic(spec);
    expect_pattern(a);
    std::size_t in = 0;
    for (std::size_t e = 0; e < a.nnz(); ++e) in += block(a.row_idx[e]) == block(a.col_idx[e]);
    return double(in) / double(a.nnz());
  };
  const double plain = inside("sbm:10000:100000:7"), mixed = inside("sbm:10000:100000:7:0.5"),
               none = inside("sbm:10000:100000:7:1");
  EXPECT_NEAR(plain, 0.9 + 0.1 / 7, 0.01) << plain;
  EXPECT_NEAR(mixed, 0.5 + 0.5 / 7, 0.01) << mixed;
  EXPECT_NEAR(none, 1.0 / 7, 0.01) << none;
  const degrees d(io::generate_synthetic("sbm:10000:100000:7"));
  EXPECT_LT(degrees::max(d.in), 40);  // Poisson(10): no hubs
  // One block per vertex: every inside arc is a self loop.
  const coo_matrix<double> loops = io::generate_synthetic("sbm:100:1000:100:0");
  for (std::size_t e = 0; e < loops.nnz(); ++e) ASSERT_EQ(loops.row_idx[e], loops.col_idx[e]);
  EXPECT_EQ(loops.nnz(), 100u);
}

// bip:U:I:M[:GAMMA]: every arc between a user (< U) and an item (>= U), each
// both ways (A is symmetric), the items' and users' degrees heavy-tailed.
TEST(Synthetic, BipartiteLinksUsersAndItemsBothWays) {
  const index_t users = 3000, items = 7000;
  const coo_matrix<double> a = io::generate_synthetic("bip:3000:7000:60000");
  expect_pattern(a);
  ASSERT_EQ(a.rows, users + items);
  std::set<std::pair<index_t, index_t>> arcs;
  for (std::size_t e = 0; e < a.nnz(); ++e) {
    ASSERT_NE(a.row_idx[e] < users, a.col_idx[e] < users) << a.row_idx[e] << " -> " << a.col_idx[e];
    arcs.emplace(a.row_idx[e], a.col_idx[e]);
  }
  for (const auto& [i, j] : arcs) ASSERT_TRUE(arcs.count({j, i})) << i << " -> " << j;
  const degrees d(a);
  EXPECT_EQ(d.in, d.out);
  // Power law 2.5 over 7000 items: the busiest item far above the mean (60000 / 7000).
  EXPECT_GT(degrees::max(d.in), 200);
  const degrees flat(io::generate_synthetic("bip:3000:7000:60000:50"));
  EXPECT_LT(degrees::max(flat.in), degrees::max(d.in) / 4);
}
