// The built-in generators the benchmarks name: shape, determinism, bad specs.
#include "io/synthetic.hpp"

#include <gtest/gtest.h>

#include <set>

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
  EXPECT_FALSE(io::is_synthetic_spec("data/karate.mtx"));
  EXPECT_FALSE(io::is_synthetic_spec("tridiag.mtx"));
}

TEST(Synthetic, MalformedSpecsAreClearErrors) {
  for (const char* bad : {"tridiag:", "tridiag:-3", "tridiag:1e5", "rmat:20", "rmat:31:10", "synthetic:7:100",
                          "synthetic:seedX:100", "tridiag:3000000000", "rmat:x:1"}) {
    try {
      io::generate_synthetic(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}
