// The conversion layer (kernels/convert.hpp) against references that share no
// code with it: a dense matrix built from the triplets for random matrices of
// many shapes, and a stable-sort reference (tests/convert_reference.hpp) for
// real matrices; round trips and algebraic identities; every refusal.
#include "kernels/convert.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "tests/convert_reference.hpp"
#include "tests/support/support.hpp"

using namespace perron;
using perron::test::real_matrix;

namespace {

enum class value_kind { f32, f64 };
void PrintTo(value_kind k, std::ostream* os) { *os << (k == value_kind::f32 ? "float" : "double"); }
std::string kind_name(value_kind k) { return k == value_kind::f32 ? "float" : "double"; }
std::string dup_name(duplicates d) { return d == duplicates::sum ? "sum" : "keep_one"; }

struct shape {
  const char* name;
  index_t rows, cols;
  double density;  // entries drawn = rows * cols * density
  bool dups;       // positions may repeat (density > 1 forces many repeats)
  std::uint64_t seed;
};

const shape shapes[] = {
    {"tall", 300, 20, 0.15, true, 11},
    {"wide", 20, 300, 0.15, true, 12},
    {"square", 160, 160, 0.05, true, 13},
    {"many_dups", 30, 40, 3.0, true, 14},  // every position ~3 times: order of summation matters
    {"no_dups", 120, 90, 0.08, false, 15},
    {"empty_rows_cols", 400, 300, 0.002, true, 16},  // most rows and columns empty
    {"no_entries", 50, 40, 0.0, false, 17},
    {"zero_by_zero", 0, 0, 0.0, false, 18},
    {"zero_rows", 0, 7, 0.0, false, 19},
    {"zero_cols", 7, 0, 0.0, false, 20},
    {"one_by_one", 1, 1, 1.0, false, 21},
    {"one_by_one_dups", 1, 1, 6.0, true, 22},
    {"single_row", 1, 500, 0.5, true, 23},
    {"single_col", 500, 1, 0.5, true, 24},
};

void PrintTo(const shape& s, std::ostream* os) { *os << s.name << " " << s.rows << "x" << s.cols; }

template <class T>
coo_matrix<T> random_matrix(const shape& s) {
  return value_cast<T>(test::random_coo(s.rows, s.cols, s.density, s.seed, s.dups));
}

// Dense reference of A (or A^T) in T, combining repeated positions in input
// order exactly as the conversion promises; also counts distinct positions.
template <class T>
std::vector<T> dense_reference(const coo_matrix<T>& a, bool transpose, duplicates dup,
                               std::size_t& distinct) {
  const std::size_t cols = static_cast<std::size_t>(transpose ? a.rows : a.cols);
  const std::size_t rows = static_cast<std::size_t>(transpose ? a.cols : a.rows);
  std::vector<T> d(rows * cols, T(0));
  std::vector<char> seen(rows * cols, 0);
  distinct = 0;
  for (std::size_t k = 0; k < a.nnz(); ++k) {
    const std::size_t i = static_cast<std::size_t>(transpose ? a.col_idx[k] : a.row_idx[k]);
    const std::size_t j = static_cast<std::size_t>(transpose ? a.row_idx[k] : a.col_idx[k]);
    const std::size_t at = i * cols + j;
    if (!seen[at]) {
      seen[at] = 1;
      ++distinct;
      d[at] = a.values[k];
    } else if (dup == duplicates::sum) {
      d[at] += a.values[k];
    }
  }
  return d;
}

template <class T>
::testing::AssertionResult same_dense(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " vs " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!test::same_bits(got[i], want[i]))
      return ::testing::AssertionFailure() << "dense entry " << i << ": " << got[i] << " vs " << want[i];
  return ::testing::AssertionSuccess();
}

// ELL invariants: width = longest row, slot s of row r at s * rows + r holds
// the row's s-th entry, the rest is padding (column ell_padding, value 0).
template <class T>
::testing::AssertionResult ell_matches(const ell_matrix<T>& e, const csr_matrix<T>& a) {
  index_t width = 0;
  for (index_t r = 0; r < a.rows; ++r) width = std::max(width, a.row_ptr[r + 1] - a.row_ptr[r]);
  if (e.rows != a.rows || e.cols != a.cols || e.width != width || e.nnz != a.nnz())
    return ::testing::AssertionFailure() << "ELL header " << e.rows << "x" << e.cols << " width " << e.width
                                         << " nnz " << e.nnz << "; want width " << width;
  const std::size_t slots = static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(width);
  if (e.col_idx.size() != slots || e.values.size() != slots)
    return ::testing::AssertionFailure() << "ELL arrays sized " << e.col_idx.size() << ", want " << slots;
  for (index_t r = 0; r < a.rows; ++r) {
    const index_t lo = a.row_ptr[r], len = a.row_ptr[r + 1] - lo;
    for (index_t s = 0; s < width; ++s) {
      const std::size_t at = static_cast<std::size_t>(s) * static_cast<std::size_t>(a.rows) + r;
      if (at != e.at(r, s)) return ::testing::AssertionFailure() << "at() is not column-major";
      const index_t want_col = s < len ? a.col_idx[lo + s] : ell_padding;
      const T want_val = s < len ? a.values[lo + s] : T(0);
      if (e.col_idx[at] != want_col || !test::same_bits(e.values[at], want_val))
        return ::testing::AssertionFailure()
               << "row " << r << " slot " << s << ": (" << e.col_idx[at] << ", " << e.values[at]
               << "), want (" << want_col << ", " << want_val << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// COO -> CSR (and A^T) against the dense reference, every shape x option x type.

using random_param = std::tuple<shape, bool, duplicates, value_kind>;
class ConvertRandom : public ::testing::TestWithParam<random_param> {};

template <class T>
void check_to_csr(const shape& s, bool transpose, duplicates dup) {
  const coo_matrix<T> a = random_matrix<T>(s);
  std::size_t distinct = 0;
  const std::vector<T> dense = dense_reference(a, transpose, dup, distinct);
  const csr_matrix<T> c = to_csr(a, {transpose, dup});
  EXPECT_EQ(c.rows, transpose ? s.cols : s.rows);
  EXPECT_EQ(c.cols, transpose ? s.rows : s.cols);
  EXPECT_TRUE(test::valid_csr(c));
  EXPECT_EQ(c.nnz(), distinct) << "duplicates must merge into one stored entry per position";
  EXPECT_TRUE(same_dense(to_dense(c), dense));
  EXPECT_TRUE(test::same_csr(c, test::reference_csr(a, transpose, dup)));
}

TEST_P(ConvertRandom, ToCsrMatchesDenseReference) {
  const auto& [s, transpose, dup, kind] = GetParam();
  if (kind == value_kind::f32)
    check_to_csr<float>(s, transpose, dup);
  else
    check_to_csr<double>(s, transpose, dup);
}

std::string shape_param_name(const shape& s) { return s.name; }

INSTANTIATE_TEST_SUITE_P(Shapes, ConvertRandom,
                         ::testing::Combine(::testing::ValuesIn(shapes), ::testing::Bool(),
                                            ::testing::Values(duplicates::sum, duplicates::keep_one),
                                            ::testing::Values(value_kind::f32, value_kind::f64)),
                         [](const ::testing::TestParamInfo<random_param>& i) {
                           return shape_param_name(std::get<0>(i.param)) +
                                  (std::get<1>(i.param) ? "_T_" : "_") + dup_name(std::get<2>(i.param)) +
                                  "_" + kind_name(std::get<3>(i.param));
                         });

// ---------------------------------------------------------------------------
// Round trips, transposition identities and ELL, every shape x type.

using shape_param = std::tuple<shape, value_kind>;
class ConvertIdentities : public ::testing::TestWithParam<shape_param> {};

template <class T>
void check_identities(const coo_matrix<T>& a) {
  for (duplicates dup : {duplicates::sum, duplicates::keep_one}) {
    SCOPED_TRACE(dup_name(dup));
    const csr_matrix<T> c = to_csr(a, {false, dup});
    // COO -> CSR -> COO -> CSR gives the same CSR; CSR -> COO is row-major.
    const coo_matrix<T> back = to_coo(c);
    ASSERT_EQ(back.nnz(), c.nnz());
    EXPECT_TRUE(std::is_sorted(back.row_idx.begin(), back.row_idx.end()));
    EXPECT_TRUE(test::same_csr(to_csr(back), c));
    // transpose(transpose(A)) == A, and the transposing conversion agrees with transpose().
    const csr_matrix<T> t = transpose(c);
    EXPECT_TRUE(test::valid_csr(t));
    EXPECT_TRUE(test::same_csr(transpose(t), c));
    EXPECT_TRUE(test::same_csr(to_csr(a, {true, dup}), t));
  }
  // CSR -> ELL -> CSR is lossless, and the ELL layout is the documented one.
  const csr_matrix<T> c = to_csr(a);
  const ell_matrix<T> e = to_ell(c);
  EXPECT_TRUE(ell_matches(e, c));
  EXPECT_TRUE(test::same_csr(to_csr(e), c));
  // value_cast double <-> float round-trips values representable in float.
  const csr_matrix<float> cf = value_cast<float>(c);
  const csr_matrix<T> cb = value_cast<T>(cf);
  EXPECT_EQ(cb.row_ptr, c.row_ptr);
  EXPECT_EQ(cb.col_idx, c.col_idx);
  for (std::size_t k = 0; k < c.nnz(); ++k)
    EXPECT_EQ(cb.values[k], static_cast<T>(static_cast<float>(c.values[k])));
}

TEST_P(ConvertIdentities, RoundTripsTransposeAndEll) {
  const auto& [s, kind] = GetParam();
  if (kind == value_kind::f32)
    check_identities(random_matrix<float>(s));
  else
    check_identities(random_matrix<double>(s));
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvertIdentities,
                         ::testing::Combine(::testing::ValuesIn(shapes),
                                            ::testing::Values(value_kind::f32, value_kind::f64)),
                         [](const ::testing::TestParamInfo<shape_param>& i) {
                           return shape_param_name(std::get<0>(i.param)) + "_" +
                                  kind_name(std::get<1>(i.param));
                         });

// ---------------------------------------------------------------------------
// Real matrices (bundled data/ and ../shared/data).

using real_param = std::tuple<real_matrix, bool, duplicates, value_kind>;
class ConvertReal : public ::testing::TestWithParam<real_param> {};

TEST_P(ConvertReal, ToCsrMatchesReferenceAndRoundTrips) {
  const auto& [m, transpose, dup, kind] = GetParam();
  coo_matrix<double> a;
  if (!test::load_real(m, a)) GTEST_SKIP() << m.relative << " not present";
  auto run = [&, tr = transpose, dup = dup](auto tag) {
    using T = decltype(tag);
    const coo_matrix<T> at = value_cast<T>(a);
    const csr_matrix<T> c = to_csr(at, {tr, dup});
    EXPECT_TRUE(test::valid_csr(c));
    EXPECT_TRUE(test::same_csr(c, test::reference_csr(at, tr, dup)));
    EXPECT_TRUE(test::same_csr(to_csr(to_coo(c)), c));
    EXPECT_TRUE(test::same_csr(perron::transpose(perron::transpose(c)), c));
    EXPECT_TRUE(test::same_csr(to_csr(at, {!tr, dup}), perron::transpose(c)));
    // ELL where its padding is sensible; otherwise the refusal must name the widest row.
    try {
      const ell_matrix<T> e = to_ell(c);
      EXPECT_TRUE(ell_matches(e, c));
      EXPECT_TRUE(test::same_csr(to_csr(e), c));
    } catch (const dimension_error& err) {
      EXPECT_NE(std::string(err.what()).find("widest row"), std::string::npos) << err.what();
    }
    // Small enough for a dense check as well.
    if (static_cast<double>(c.rows) * c.cols <= 1e7) {
      std::size_t distinct = 0;
      EXPECT_TRUE(same_dense(to_dense(c), dense_reference(at, tr, dup, distinct)));
      EXPECT_EQ(c.nnz(), distinct);
    }
  };
  if (kind == value_kind::f32)
    run(float{});
  else
    run(double{});
}

INSTANTIATE_TEST_SUITE_P(Files, ConvertReal,
                         ::testing::Combine(::testing::ValuesIn(test::real_matrices()), ::testing::Bool(),
                                            ::testing::Values(duplicates::sum, duplicates::keep_one),
                                            ::testing::Values(value_kind::f32, value_kind::f64)),
                         [](const ::testing::TestParamInfo<real_param>& i) {
                           return std::get<0>(i.param).name + (std::get<1>(i.param) ? "_T_" : "_") +
                                  dup_name(std::get<2>(i.param)) + "_" + kind_name(std::get<3>(i.param));
                         });

// lp_afiro is 27 x 51: the transpose swaps the shape.
// The pattern conversion: to_csr's entries and order with keep_one, every value
// 0, in float or double out of a double COO, for every shape and both ways.
TEST(ConvertPattern, SameStructureAsToCsrKeepOneWithZeroValues) {
  for (const shape& s : shapes)
    for (const bool transpose : {false, true}) {
      SCOPED_TRACE(std::string(s.name) + (transpose ? " transposed" : ""));
      const coo_matrix<double> a = random_matrix<double>(s);
      const csr_matrix<double> want = to_csr(a, {transpose, duplicates::keep_one});
      const csr_matrix<float> f = pattern_to_csr<float>(a, transpose);
      const csr_matrix<double> d = pattern_to_csr<double>(a, transpose);
      EXPECT_TRUE(test::valid_csr(f));
      EXPECT_EQ(f.rows, want.rows);
      EXPECT_EQ(f.cols, want.cols);
      EXPECT_EQ(f.row_ptr, want.row_ptr);
      EXPECT_EQ(f.col_idx, want.col_idx);
      EXPECT_EQ(d.row_ptr, want.row_ptr);
      EXPECT_EQ(d.col_idx, want.col_idx);
      EXPECT_TRUE(std::all_of(f.values.begin(), f.values.end(), [](float v) { return v == 0.f; }));
      EXPECT_TRUE(std::all_of(d.values.begin(), d.values.end(), [](double v) { return v == 0.0; }));
      EXPECT_EQ(f.values.size(), f.col_idx.size());
    }
  coo_matrix<double> bad;
  bad.rows = bad.cols = 2;
  bad.row_idx = {0, 2};
  bad.col_idx = {1, 0};
  bad.values = {1, 1};
  EXPECT_THROW(pattern_to_csr<float>(bad, true), dimension_error);
}

TEST(ConvertRealShape, NonSquareTransposeSwapsShape) {
  coo_matrix<double> a;
  if (!test::load_real({"lp_afiro", "matrices/lp_afiro.mtx", true}, a)) GTEST_SKIP() << "lp_afiro absent";
  ASSERT_NE(a.rows, a.cols);
  const auto t = to_csr(a, {true, duplicates::sum});
  EXPECT_EQ(t.rows, a.cols);
  EXPECT_EQ(t.cols, a.rows);
  EXPECT_EQ(t.nnz(), to_csr(a).nnz());
}

// ---------------------------------------------------------------------------
// Hand-made cases.

TEST(ConvertDuplicates, SummedInInputOrderInT) {
  // In float, (((1e8 + 1) - 1e8) + 1) = 1: 1e8 + 1 rounds back to 1e8. Any
  // other order gives 2 or 0, so this pins the order the GPU must reproduce.
  coo_matrix<float> a;
  a.rows = 2;
  a.cols = 2;
  a.row_idx = {1, 0, 1, 0, 1, 0};
  a.col_idx = {1, 0, 1, 0, 0, 0};
  a.values = {5.f, 1e8f, 7.f, 1.f, 3.f, -1e8f};
  a.row_idx.push_back(0), a.col_idx.push_back(0), a.values.push_back(1.f);
  const auto s = to_csr(a);
  ASSERT_EQ(s.nnz(), 3u);
  EXPECT_EQ(s.row_ptr, (std::vector<index_t>{0, 1, 3}));
  EXPECT_EQ(s.col_idx, (std::vector<index_t>{0, 0, 1}));
  EXPECT_EQ(s.values, (std::vector<float>{1.f, 3.f, 12.f}));
  const auto k = to_csr(a, {false, duplicates::keep_one});
  EXPECT_EQ(k.values, (std::vector<float>{1e8f, 3.f, 5.f}));
  const auto t = to_csr(a, {true, duplicates::sum});
  EXPECT_EQ(t.row_ptr, (std::vector<index_t>{0, 2, 3}));
  EXPECT_EQ(t.col_idx, (std::vector<index_t>{0, 1, 1}));
  EXPECT_EQ(t.values, (std::vector<float>{1.f, 3.f, 12.f}));
}

TEST(ConvertHugeRow, MillionEntryRowUnsortedWithDuplicates) {
  // Row 1 of a 3 x 10^6 matrix holds every column once, in shuffled order, and
  // 1000 columns a second time; rows 0 and 2 are empty.
  constexpr index_t n = 1'000'000;
  coo_matrix<double> a;
  a.rows = 3;
  a.cols = n;
  std::vector<index_t> cols(n);
  std::iota(cols.begin(), cols.end(), 0);
  std::mt19937_64 gen(99);
  std::shuffle(cols.begin(), cols.end(), gen);
  for (index_t j : cols) a.row_idx.push_back(1), a.col_idx.push_back(j), a.values.push_back(j + 0.5);
  for (index_t j = 0; j < n; j += n / 1000)
    a.row_idx.push_back(1), a.col_idx.push_back(j), a.values.push_back(1.0);
  const auto c = to_csr(a);
  ASSERT_TRUE(test::valid_csr(c));
  EXPECT_EQ(c.row_ptr, (std::vector<index_t>{0, 0, n, n}));
  for (index_t j = 0; j < n; ++j) {
    const double want = j + 0.5 + (j % (n / 1000) == 0 ? 1.0 : 0.0);
    if (c.col_idx[j] != j || c.values[j] != want) {
      ADD_FAILURE() << "entry " << j << ": (" << c.col_idx[j] << ", " << c.values[j] << ")";
      break;
    }
  }
  // A^T: 10^6 rows of one entry each, all in column 1.
  const auto t = to_csr(a, {true, duplicates::keep_one});
  ASSERT_TRUE(test::valid_csr(t));
  EXPECT_EQ(t.nnz(), static_cast<std::size_t>(n));
  EXPECT_TRUE(std::all_of(t.col_idx.begin(), t.col_idx.end(), [](index_t j) { return j == 1; }));
  EXPECT_TRUE(test::same_csr(transpose(t), to_csr(a, {false, duplicates::keep_one})));
  // 3 x 10^6 ELL: fill 3 is fine.
  const auto e = to_ell(c);
  EXPECT_EQ(e.width, n);
  EXPECT_TRUE(test::same_csr(to_csr(e), c));
}

TEST(ConvertErrors, MismatchedArrays) {
  coo_matrix<double> a;
  a.rows = a.cols = 3;
  a.row_idx = {0, 1};
  a.col_idx = {0, 1};
  a.values = {1.0};
  EXPECT_THROW(to_csr(a), dimension_error);
  a.values = {1.0, 2.0};
  a.col_idx = {0};
  EXPECT_THROW(to_csr(a), dimension_error);
}

TEST(ConvertErrors, IndicesOutOfRangeNameTheEntry) {
  for (auto [r, c] : {std::pair{3, 0}, {0, 4}, {-1, 0}, {0, -2}}) {
    coo_matrix<double> a;
    a.rows = 3;
    a.cols = 4;
    a.row_idx = {0, 1, 2, r};
    a.col_idx = {0, 1, 2, c};
    a.values = {1, 2, 3, 4};
    for (bool transpose : {false, true}) {
      try {
        to_csr(a, {transpose, duplicates::sum});
        ADD_FAILURE() << "no error for (" << r << ", " << c << ")";
      } catch (const dimension_error& e) {
        EXPECT_NE(std::string(e.what()).find("entry 3"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("3 x 4"), std::string::npos) << e.what();
      }
    }
  }
}

TEST(ConvertErrors, NegativeDimensions) {
  coo_matrix<double> a;
  a.rows = -1;
  a.cols = 4;
  EXPECT_THROW(to_csr(a), dimension_error);
  csr_matrix<double> c;
  c.rows = 2;
  c.cols = -3;
  c.row_ptr = {0, 0, 0};
  EXPECT_THROW(transpose(c), dimension_error);
}

TEST(ConvertErrors, CorruptCsrIsRefusedNotRead) {
  csr_matrix<double> good;
  good.rows = 2;
  good.cols = 2;
  good.row_ptr = {0, 1, 2};
  good.col_idx = {0, 1};
  good.values = {1, 2};
  ASSERT_NO_THROW(to_coo(good));
  auto bad = good;
  bad.row_ptr = {0, 1};  // rows + 1 expected
  EXPECT_THROW(to_coo(bad), dimension_error);
  bad = good;
  bad.row_ptr = {0, 2, 1};
  EXPECT_THROW(transpose(bad), dimension_error);
  bad = good;
  bad.row_ptr = {0, 1, 5};
  EXPECT_THROW(to_ell(bad), dimension_error);
  bad = good;
  bad.col_idx = {0, 2};
  EXPECT_THROW(transpose(bad), dimension_error);
  bad = good;
  bad.values = {1};
  EXPECT_THROW(to_dense(bad), dimension_error);
}

// The checks run in parallel and still name the first offending row and
// entry, whatever the thread count (past two grains of rows and entries).
TEST(ConvertErrors, ValidationNamesTheFirstBadRowAndEntry) {
  const index_t n = 200000;
  std::vector<index_t> ptr(static_cast<std::size_t>(n) + 1), col(static_cast<std::size_t>(n));
  for (index_t r = 0; r <= n; ++r) ptr[static_cast<std::size_t>(r)] = r;
  for (index_t k = 0; k < n; ++k) col[static_cast<std::size_t>(k)] = (k * 7) % n;
  EXPECT_NO_THROW(validate_pattern(n, n, ptr.data(), ptr.size(), col.data(), col.size(), "g"));
  // A null array is refused, not read (the check exists for a caller's arrays).
  EXPECT_THROW(validate_pattern(n, n, nullptr, ptr.size(), col.data(), col.size(), "g"), invalid_argument);
  EXPECT_THROW(validate_pattern(n, n, ptr.data(), ptr.size(), nullptr, col.size(), "g"), invalid_argument);
  EXPECT_EQ(longest_row(ptr.data(), n), 1);
  const auto message = [&](const std::vector<index_t>& p, const std::vector<index_t>& c) {
    try {
      validate_pattern(n, n, p.data(), p.size(), c.data(), c.size(), "g");
    } catch (const dimension_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto p = ptr;
  p[150001] = 150003, p[170001] = 170003;  // rows 150001 and 170001 decrease after them
  EXPECT_EQ(message(p, col), "g: row_ptr decreases at row 150001 (150003 -> 150002)");
  auto c = col;
  c[123456] = -1, c[199999] = n;
  EXPECT_EQ(message(ptr, c), "g: column index -1 of entry 123456 lies outside [0, 200000)");
}

TEST(ConvertErrors, EllRefusesAbsurdPaddingNamingTheWidestRow) {
  // 1000 rows, row 7 with 10^4 entries, the rest one each: 10^7 slots for
  // 10999 nonzeros, a fill ratio of 909.2.
  coo_matrix<double> a;
  a.rows = 1000;
  a.cols = 20000;
  for (index_t r = 0; r < a.rows; ++r)
    if (r != 7) a.row_idx.push_back(r), a.col_idx.push_back(r), a.values.push_back(1.0);
  for (index_t j = 0; j < 10000; ++j)
    a.row_idx.push_back(7), a.col_idx.push_back(2 * j), a.values.push_back(2.0);
  const auto c = to_csr(a);
  try {
    to_ell(c);
    FAIL() << "no error";
  } catch (const dimension_error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("row 7"), std::string::npos) << w;
    EXPECT_NE(w.find("10000 entries"), std::string::npos) << w;
    EXPECT_NE(w.find("fill ratio 909.2"), std::string::npos) << w;
  }
  // The same matrix passes with a max_fill above its ratio.
  EXPECT_NO_THROW(to_ell(c, 1000.0));
  EXPECT_THROW(to_ell(c, 0.5), invalid_argument);
  EXPECT_THROW(to_ell(c, std::nan("")), invalid_argument);
}

// max_fill NaN, 0 or negative: invalid_argument, from to_ell and from
// check_ell_fill (the device build's check). Before, check_ell_fill took NaN
// as no limit at all and refused with "fill ratio 909.2 > max_fill -1.0" for
// a negative one. +inf is no fill limit, but the ELL must still fit in
// memory: a row of 2^20 entries in 2^20 rows is 2^40 slots, 12 TiB (before:
// a bad_alloc from the vector, or the out-of-memory killer).
TEST(ConvertErrors, EllMaxFillIsANumberOfAtLeastOneAndInfinityIsStillBoundByMemory) {
  for (double bad : {std::nan(""), 0.0, -1.0, 0.5, -std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(testing::Message() << "max_fill " << bad);
    EXPECT_THROW(check_ell_fill(1000, 10000, 10999, 7, bad), invalid_argument);
    EXPECT_THROW(check_ell_fill(10, 1, 10, -1, bad), invalid_argument);  // below the floor too
    EXPECT_THROW(to_ell(to_csr(test::random_coo(50, 50, 0.1, 3)), bad), invalid_argument);
  }
  try {
    check_ell_fill(10, 1, 10, -1, std::nan(""));
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("max_fill must be a number >= 1"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_ell_fill(1000, 10000, 10999, 7, INFINITY));
  EXPECT_THROW(check_ell_fill(-1, 10, 10, -1, 8.0), dimension_error);

  const auto small = to_csr(test::random_coo(200, 200, 0.05, 4));
  const auto e = to_ell(small, INFINITY);
  EXPECT_EQ(to_csr(e).col_idx, small.col_idx);

  coo_matrix<double> wide;
  wide.rows = wide.cols = 1 << 20;
  for (index_t j = 0; j < wide.cols; ++j)
    wide.row_idx.push_back(3), wide.col_idx.push_back(j), wide.values.push_back(1.0);
  const auto c = to_csr(wide);
  EXPECT_THROW(to_ell(c), dimension_error);  // fill ratio 2^20 > 8
  try {
    to_ell(c, INFINITY);
    FAIL() << "no error";
  } catch (const dimension_error& err) {
    const std::string w = err.what();
    EXPECT_NE(w.find("1099511627776 slots"), std::string::npos) << w;
    EXPECT_NE(w.find("memory"), std::string::npos) << w;
  }
}

TEST(ConvertErrors, EllAcceptsLongRowBelowTheFloor) {
  // 100 rows, one of 1000 entries: 10^5 slots, fill ~91, but tiny in bytes.
  coo_matrix<double> a;
  a.rows = 100;
  a.cols = 1000;
  for (index_t j = 0; j < 1000; ++j) a.row_idx.push_back(42), a.col_idx.push_back(j), a.values.push_back(j);
  a.row_idx.push_back(0), a.col_idx.push_back(0), a.values.push_back(1);
  const auto c = to_csr(a);
  const auto e = to_ell(c);
  EXPECT_EQ(e.width, 1000);
  EXPECT_TRUE(ell_matches(e, c));
}

TEST(ConvertErrors, EllInconsistentOrBadColumns) {
  ell_matrix<double> e;
  e.rows = 2;
  e.cols = 3;
  e.width = 2;
  e.nnz = 3;
  e.col_idx = {0, 1, 2};  // 4 slots expected
  e.values = {1, 2, 3};
  EXPECT_THROW(to_csr(e), dimension_error);
  e.col_idx = {0, 1, 2, 3};  // 3 is out of range
  e.values = {1, 2, 3, 4};
  EXPECT_THROW(to_csr(e), dimension_error);
  e.col_idx = {0, 1, 2, ell_padding};
  EXPECT_NO_THROW(to_csr(e));
  e.nnz = 4;  // says 4, holds 3
  EXPECT_THROW(to_csr(e), dimension_error);
}

TEST(ConvertEll, HandBuiltUnsortedRowsAreSortedAndMerged) {
  // Row 0 lists columns 2, 0, 2 (padding in between): CSR gets 0 then 2 summed.
  ell_matrix<double> e;
  e.rows = 2;
  e.cols = 3;
  e.width = 4;
  e.nnz = 4;
  // slot-major: slot s of row r at s * 2 + r
  e.col_idx = {2, 1, ell_padding, ell_padding, 0, ell_padding, 2, ell_padding};
  e.values = {1.0, 5.0, 0.0, 0.0, 2.0, 0.0, 4.0, 0.0};
  const auto c = to_csr(e);
  EXPECT_TRUE(test::valid_csr(c));
  EXPECT_EQ(c.row_ptr, (std::vector<index_t>{0, 2, 3}));
  EXPECT_EQ(c.col_idx, (std::vector<index_t>{0, 2, 1}));
  EXPECT_EQ(c.values, (std::vector<double>{2.0, 5.0, 5.0}));
}

// Row 0 lists column 1 twice (validate() accepts it): A^T's row 1 held row
// 0 twice, and a graph built from it counted the arc twice.
csr_matrix<double> row_listing_a_column_twice() {
  csr_matrix<double> c;
  c.rows = 2;
  c.cols = 2;
  c.row_ptr = {0, 3, 4};
  c.col_idx = {1, 0, 1, 1};
  c.values = {1.0, 2.0, 4.0, 8.0};
  return c;
}

TEST(ConvertTranspose, ColumnListedTwiceInARowIsOneEntrySummed) {
  const auto t = transpose(row_listing_a_column_twice());
  EXPECT_TRUE(test::valid_csr(t));
  EXPECT_EQ(t.row_ptr, (std::vector<index_t>{0, 1, 3}));
  EXPECT_EQ(t.col_idx, (std::vector<index_t>{0, 0, 1}));
  EXPECT_EQ(t.values, (std::vector<double>{2.0, 5.0, 8.0}));
}

TEST(ConvertTranspose, PatternTransposeIsTransposeWithoutTheValues) {
  // The same entries as transpose(), a column listed twice in a row kept once,
  // every value 0; and on every shape of the random suite.
  const csr_matrix<double> c = row_listing_a_column_twice();
  const auto t = pattern_transpose<float>(c.rows, c.cols, c.row_ptr.data(), c.row_ptr.size(),
                                          c.col_idx.data(), c.col_idx.size());
  EXPECT_TRUE(test::valid_csr(t));
  EXPECT_EQ(t.row_ptr, (std::vector<index_t>{0, 1, 3}));
  EXPECT_EQ(t.col_idx, (std::vector<index_t>{0, 0, 1}));
  EXPECT_EQ(t.values, (std::vector<float>{0.f, 0.f, 0.f}));
  for (const shape& s : shapes) {
    const csr_matrix<double> a = to_csr(random_matrix<double>(s));
    const csr_matrix<double> want = transpose(a);
    const csr_matrix<double> got = pattern_transpose<double>(a.rows, a.cols, a.row_ptr.data(),
                                                             a.row_ptr.size(), a.col_idx.data(), a.nnz());
    EXPECT_EQ(got.rows, want.rows) << shape_param_name(s);
    EXPECT_EQ(got.cols, want.cols) << shape_param_name(s);
    EXPECT_EQ(got.row_ptr, want.row_ptr) << shape_param_name(s);
    EXPECT_EQ(got.col_idx, want.col_idx) << shape_param_name(s);
  }
  // Arrays that are no CSR: one error naming the caller's word, nothing read past them.
  const std::vector<index_t> ptr = {0, 2, 1}, col = {0, 1};
  EXPECT_THROW(pattern_transpose<float>(2, 2, ptr.data(), ptr.size(), col.data(), col.size(), "the graph"),
               dimension_error);
  const std::vector<index_t> ok_ptr = {0, 1, 2}, far = {0, 7};
  try {
    pattern_transpose<float>(2, 2, ok_ptr.data(), ok_ptr.size(), far.data(), far.size(), "the graph");
    ADD_FAILURE() << "a column outside the matrix was taken";
  } catch (const dimension_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the graph: ", 0), 0u) << e.what();
  }
}

TEST(ConvertErrors, DenseCopyOfAHugeMatrixIsRefused) {
  csr_matrix<double> c;
  c.rows = 100000;
  c.cols = 100000;
  c.row_ptr.assign(100001, 0);
  EXPECT_THROW(to_dense(c), dimension_error);
}

TEST(ConvertEmpty, ZeroByZeroEverywhere) {
  coo_matrix<double> a;
  const auto c = to_csr(a);
  EXPECT_EQ(c.rows, 0);
  EXPECT_EQ(c.row_ptr, (std::vector<index_t>{0}));
  EXPECT_EQ(to_coo(c).nnz(), 0u);
  EXPECT_EQ(transpose(c).row_ptr, (std::vector<index_t>{0}));
  const auto e = to_ell(c);
  EXPECT_EQ(e.width, 0);
  EXPECT_TRUE(test::same_csr(to_csr(e), c));
  EXPECT_TRUE(to_dense(c).empty());
}

// The memory guard: a conversion that would need more than the host may
// give is refused up front, naming the shape and the sizes.
TEST(ConvertMemory, MoreThanTheHostAllowsIsADimensionError) {
  coo_matrix<double> a;
  a.rows = a.cols = 1000000;
  a.row_idx = {0, 999999};
  a.col_idx = {5, 7};
  a.values = {1.0, 2.0};
  ::setenv("PERRON_MEMORY_LIMIT", "1e6", 1);  // 1 MB: row_ptr alone is 4 MB
  try {
    to_csr(a);
    ADD_FAILURE() << "to_csr accepted a matrix beyond PERRON_MEMORY_LIMIT";
  } catch (const dimension_error& e) {
    EXPECT_NE(std::string(e.what()).find("1000000 x 1000000"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("PERRON_MEMORY_LIMIT"), std::string::npos) << e.what();
  }
  ::unsetenv("PERRON_MEMORY_LIMIT");
  EXPECT_EQ(to_csr(a).nnz(), 2u);  // within the machine's memory: fine
  EXPECT_GT(host_memory_limit(), std::size_t(1) << 20);
}

}  // namespace
