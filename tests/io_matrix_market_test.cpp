// Matrix Market reading and writing: accepted syntax, symmetric / skew
// expansion against a dense reference, write -> read round trips, the real
// bundled and shared files against an independent reader, and the parallel
// parse giving exactly the single-threaded result.
#include <gtest/gtest.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/matrix_market.hpp"
#include "kernels/convert.hpp"
#include "tests/io_reference.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

namespace fs = std::filesystem;
using io::mm_field;
using io::mm_symmetry;

// A scratch directory removed at the end of each test.
using io_mm = test::scratch_test;

// Shortest decimal that reads back to exactly v.
std::string exact(double v) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

io::mm_matrix parse(const std::string& text, io::read_options opt = {}) {
  return io::parse_matrix_market(text, "test.mtx", opt);
}

void expect_same_coo(const coo_matrix<double>& a, const coo_matrix<double>& b) {
  ASSERT_EQ(a.rows, b.rows);
  ASSERT_EQ(a.cols, b.cols);
  ASSERT_EQ(a.nnz(), b.nnz());
  ASSERT_EQ(a.row_idx, b.row_idx);
  ASSERT_EQ(a.col_idx, b.col_idx);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t k = 0; k < a.values.size(); ++k)
    ASSERT_EQ(a.values[k], b.values[k]) << "entry " << k;  // bit-identical, not approximately
}

TEST_F(io_mm, ReadsCoordinateRealWithCommentsBlankLinesAndCrlf) {
  const auto m = parse(
      "%%MatrixMarket matrix coordinate real general\r\n"
      "% a comment\r\n"
      "\r\n"
      "   % an indented comment\n"
      "3 4 3\r\n"
      "1 1 2.5\r\n"
      "\r\n"
      "3\t4\t-1e-3\r\n"
      "  2   2  +7  \r\n");
  EXPECT_TRUE(m.header.coordinate);
  EXPECT_EQ(m.header.field, mm_field::real);
  EXPECT_EQ(m.header.entries, 3u);
  ASSERT_EQ(m.matrix.rows, 3);
  ASSERT_EQ(m.matrix.cols, 4);
  ASSERT_EQ(m.matrix.nnz(), 3u);
  EXPECT_EQ(m.matrix.row_idx, (std::vector<index_t>{0, 2, 1}));
  EXPECT_EQ(m.matrix.col_idx, (std::vector<index_t>{0, 3, 1}));
  EXPECT_EQ(m.matrix.values, (std::vector<double>{2.5, -1e-3, 7.0}));
}

TEST_F(io_mm, AcceptsExponentsSignsCaseAndNoFinalNewline) {
  const auto m = parse(
      "%%matrixmarket MATRIX Coordinate REAL General\n"
      "2 2 4\n"
      "1 1 1.5E+03\n"
      "1 2 -2.e-2\n"
      "+2 +1 .25\n"
      "2 2 1e-400");  // underflows to zero: representable, accepted
  EXPECT_EQ(m.matrix.values, (std::vector<double>{1500.0, -0.02, 0.25, 0.0}));
  EXPECT_EQ(m.matrix.row_idx, (std::vector<index_t>{0, 0, 1, 1}));
}

TEST_F(io_mm, PatternAndIntegerFields) {
  const auto p = parse("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n");
  EXPECT_EQ(p.header.field, mm_field::pattern);
  EXPECT_EQ(p.matrix.values, (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(p.matrix.col_idx, (std::vector<index_t>{2, 0}));
  const auto i =
      parse("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 -42\n2 2 +9007199254740992\n");
  EXPECT_EQ(i.matrix.values, (std::vector<double>{-42.0, 9007199254740992.0}));
  // 64-bit integer values to their exact bounds (from 2^63 - 8 they were
  // refused as not fitting), one past them refused.
  const auto edge = parse(
      "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 9223372036854775807\n"
      "2 2 -9223372036854775808\n");
  EXPECT_EQ(edge.matrix.values, (std::vector<double>{9223372036854775807.0, -9223372036854775808.0}));
  for (const char* past : {"9223372036854775808", "-9223372036854775809"}) {
    try {
      parse(std::string("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 ") + past + "\n");
      ADD_FAILURE() << past;
    } catch (const parse_error& e) {
      EXPECT_EQ(e.line, 3u);
      EXPECT_NE(e.reason.find("does not fit a 64-bit integer"), std::string::npos) << e.what();
    }
  }
}

TEST_F(io_mm, EmptyMatrixAndDuplicatesKept) {
  const auto e = parse("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
  EXPECT_EQ(e.matrix.rows, 0);
  EXPECT_EQ(e.matrix.nnz(), 0u);
  const auto d = parse("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 1 2\n");
  EXPECT_EQ(d.matrix.nnz(), 2u);  // the conversion layer sums them, not the reader
}

// Symmetric and skew-symmetric files against a dense reference built by hand
// from the stored lower triangle.
TEST_F(io_mm, SymmetricAndSkewExpansionMatchDenseReference) {
  std::mt19937_64 gen(20240611);
  std::uniform_real_distribution<double> val(-1, 1);
  for (const auto sym : {mm_symmetry::symmetric, mm_symmetry::skew_symmetric}) {
    for (index_t n : {1, 2, 7, 40}) {
      std::vector<double> dense(static_cast<std::size_t>(n) * n, 0.0);
      std::ostringstream body;
      std::size_t stored = 0;
      for (index_t j = 0; j < n; ++j)
        for (index_t i = j; i < n; ++i) {
          if (sym == mm_symmetry::skew_symmetric && i == j) continue;
          if (val(gen) < 0.2 && i != j) continue;  // sparse-ish, but keep the diagonal
          const double v = val(gen);
          body << i + 1 << ' ' << j + 1 << ' ' << exact(v) << '\n';
          const double sign = sym == mm_symmetry::skew_symmetric ? -1.0 : 1.0;
          dense[static_cast<std::size_t>(i) * n + j] = v;
          dense[static_cast<std::size_t>(j) * n + i] = i == j ? v : sign * v;
          ++stored;
        }
      const std::string text = std::string("%%MatrixMarket matrix coordinate real ") +
                               (sym == mm_symmetry::symmetric ? "symmetric" : "skew-symmetric") + "\n" +
                               std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(stored) +
                               "\n" + body.str();
      for (unsigned threads : {1u, 3u}) {
        io::read_options opt;
        opt.threads = threads;
        opt.chunk_bytes = 64;
        const auto m = parse(text, opt);
        EXPECT_EQ(m.header.symmetry, sym);
        EXPECT_EQ(test::dense_from_coo(m.matrix), dense) << "n = " << n << ", threads " << threads;
      }
    }
  }
}

TEST_F(io_mm, PatternSymmetricMirrorsOnes) {
  const auto m = parse("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n");
  ASSERT_EQ(m.matrix.nnz(), 5u);
  const auto d = test::dense_from_coo(m.matrix);
  EXPECT_EQ(d, (std::vector<double>{1, 0, 1, 0, 0, 1, 1, 1, 0}));
}

TEST_F(io_mm, ArrayGeneralSymmetricSkew) {
  const auto g = io::parse_matrix_market_array(
      "%%MatrixMarket matrix array real general\n% v\n2 3\n1\n2\n3\n4\n5\n6\n", "a");
  EXPECT_EQ(g.header.rows, 2);
  EXPECT_EQ(g.values, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  const auto s =
      io::parse_matrix_market_array("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", "s");
  EXPECT_EQ(s.values, (std::vector<double>{1, 2, 2, 3}));  // column-major [[1 2] [2 3]]
  const auto k = io::parse_matrix_market_array(
      "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n", "k");
  // Lower triangle by columns: a21 = 1, a31 = 2, a32 = 3.
  EXPECT_EQ(k.values, (std::vector<double>{0, 1, 2, -1, 0, 3, -2, -3, 0}));
  // An array read as a sparse matrix gives its nonzeros, column by column.
  const auto asm_ =
      io::parse_matrix_market("%%MatrixMarket matrix array real general\n2 2\n0\n5\n6\n0\n", "a");
  EXPECT_EQ(asm_.matrix.row_idx, (std::vector<index_t>{1, 0}));
  EXPECT_EQ(asm_.matrix.col_idx, (std::vector<index_t>{0, 1}));
  EXPECT_EQ(asm_.matrix.values, (std::vector<double>{5, 6}));
  EXPECT_THROW(io::parse_matrix_market_array("%%MatrixMarket matrix coordinate real general\n1 1 0\n", "c"),
               parse_error);
}

TEST_F(io_mm, RoundTripCoordinateRealIsBitIdentical) {
  for (const char* name : {"a.mtx", "a.mtx.gz"}) {
    for (auto shape : {std::pair<index_t, index_t>{1, 1}, {17, 5}, {5, 17}, {200, 200}}) {
      auto a = test::random_coo(shape.first, shape.second, 0.2, 77, true);
      // Awkward values: tiny, huge, negative zero, subnormal, many digits.
      if (a.nnz() >= 4) {
        a.values[0] = 1e-300;
        a.values[1] = -1.7976931348623157e308;
        a.values[2] = 4.9e-324;
        a.values[3] = 0.1 + 0.2;
      }
      io::write_matrix_market(path(name), a);
      const auto back = io::read_matrix_market(path(name));
      expect_same_coo(back.matrix, a);
    }
  }
}

TEST_F(io_mm, RoundTripPatternIntegerAndCsr) {
  auto a = test::random_coo(30, 20, 0.1, 5);
  for (auto& v : a.values) v = std::round(v * 1000);
  io::write_matrix_market(path("i.mtx"), a, mm_field::integer);
  const auto i = io::read_matrix_market(path("i.mtx"));
  EXPECT_EQ(i.header.field, mm_field::integer);
  expect_same_coo(i.matrix, a);

  io::write_matrix_market(path("p.mtx"), a, mm_field::pattern);
  const auto p = io::read_matrix_market(path("p.mtx"));
  EXPECT_EQ(p.header.field, mm_field::pattern);
  EXPECT_EQ(p.matrix.row_idx, a.row_idx);
  EXPECT_EQ(p.matrix.col_idx, a.col_idx);
  EXPECT_EQ(p.matrix.values, std::vector<double>(a.nnz(), 1.0));

  // A CSR written row by row reads back as the same triplets in row order.
  csr_matrix<double> c;
  c.rows = 3;
  c.cols = 4;
  c.row_ptr = {0, 2, 2, 4};  // row 1 empty
  c.col_idx = {0, 3, 1, 2};
  c.values = {1.25, -2, 3e10, 4};
  io::write_matrix_market(path("c.mtx"), c);
  const auto cb = io::read_matrix_market(path("c.mtx"));
  EXPECT_EQ(cb.matrix.row_idx, (std::vector<index_t>{0, 0, 2, 2}));
  EXPECT_EQ(cb.matrix.col_idx, c.col_idx);
  EXPECT_EQ(cb.matrix.values, c.values);

  a.values[0] = 0.5;
  EXPECT_THROW(io::write_matrix_market(path("bad.mtx"), a, mm_field::integer), invalid_argument);
}

TEST_F(io_mm, RoundTripArray) {
  const auto v = test::random_vector(37, 11, -1e6, 1e6);
  io::write_matrix_market_array(path("v.mtx"), v, 37);
  const auto back = io::read_matrix_market_array(path("v.mtx"));
  EXPECT_EQ(back.header.rows, 37);
  EXPECT_EQ(back.header.cols, 1);
  EXPECT_EQ(back.values, v);
  const std::vector<double> m = {1, 2, 3, 4, 5, 6};
  io::write_matrix_market_array(path("m.mtx.gz"), m, 2, 3);
  EXPECT_EQ(io::read_matrix_market_array(path("m.mtx.gz")).values, m);
  EXPECT_THROW(io::write_matrix_market_array(path("x.mtx"), m, 4, 2), dimension_error);
}

// A write that fails half way (a value an integer file cannot hold, found
// after the first megabyte) leaves the earlier file untouched and no
// temporary beside it, plain and gzip alike.
TEST_F(io_mm, FailedWriteLeavesTheOldFile) {
  coo_matrix<double> a = test::random_coo(2000, 2000, 0.05, 3);
  for (double& v : a.values) v = std::round(v * 100);
  a.values.back() = 0.5;
  for (const char* name : {"old.mtx", "old.mtx.gz"}) {
    const std::vector<double> m = {1, 2};
    io::write_matrix_market_array(path(name), m, 2, 1);
    EXPECT_THROW(io::write_matrix_market(path(name), a, mm_field::integer), invalid_argument);
    EXPECT_EQ(io::read_matrix_market_array(path(name)).values, m) << name;
  }
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
    ++files;
  }
  EXPECT_EQ(files, 2u);
}

TEST_F(io_mm, WriteToMissingDirectoryIsIoError) {
  const auto a = test::random_coo(3, 3, 0.5, 1);
  EXPECT_THROW(io::write_matrix_market(path("no/such/dir/a.mtx"), a), io_error);
}

// The writers check what they are given before writing a byte: an index out
// of range or an inconsistent row_ptr is a dimension_error and no file appears.
TEST_F(io_mm, WritersRefuseInconsistentMatrices) {
  coo_matrix<double> a = test::random_coo(4, 5, 0.5, 2);
  ASSERT_GT(a.nnz(), 2u);
  a.col_idx[1] = 5;  // == cols
  EXPECT_THROW(io::write_matrix_market(path("a.mtx"), a), dimension_error);
  a.col_idx[1] = 0;
  a.row_idx[2] = -1;
  EXPECT_THROW(io::write_matrix_market(path("a.mtx"), a, io::mm_field::pattern), dimension_error);
  EXPECT_FALSE(fs::exists(path("a.mtx")));

  csr_matrix<double> c = to_csr(test::random_coo(6, 6, 0.5, 3));
  ASSERT_GT(c.nnz(), 4u);
  std::swap(c.row_ptr[2], c.row_ptr[4]);  // decreasing
  if (c.row_ptr[2] == c.row_ptr[4]) c.row_ptr[3] = c.row_ptr.back() + 1;
  EXPECT_THROW(io::write_matrix_market(path("c.mtx"), c), dimension_error);
  c = to_csr(test::random_coo(6, 6, 0.5, 3));
  c.row_ptr.back() -= 1;  // does not end at nnz
  EXPECT_THROW(io::write_matrix_market(path("c.mtx"), c), dimension_error);
  EXPECT_FALSE(fs::exists(path("c.mtx")));
}

// Every bundled real matrix: size line as published (data/README.md) and the
// same triplets as the independent reference reader.
struct real_file {
  const char* name;
  index_t rows, cols;
  std::uint64_t declared;
};

class io_mm_real : public ::testing::TestWithParam<real_file> {};

TEST_P(io_mm_real, MatchesReferenceReader) {
  const auto f = GetParam();
  const std::string p = test::data_dir() + "/" + f.name;
  const auto m = io::read_matrix_market(p);
  EXPECT_EQ(m.header.rows, f.rows);
  EXPECT_EQ(m.header.cols, f.cols);
  EXPECT_EQ(m.header.entries, f.declared);
  const auto ref = test::reference_read_mm(p);
  expect_same_coo(m.matrix, ref.matrix);
  if (m.header.symmetry == mm_symmetry::general) {
    EXPECT_EQ(m.matrix.nnz(), f.declared);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Bundled, io_mm_real,
    ::testing::Values(real_file{"harvard500.mtx", 500, 500, 2636}, real_file{"karate.mtx", 34, 34, 78},
                      real_file{"wb-cs-stanford.mtx", 9914, 9914, 36854},
                      real_file{"dolphins.mtx", 62, 62, 159}, real_file{"polbooks.mtx", 105, 105, 441},
                      real_file{"netscience.mtx", 1589, 1589, 2742}, real_file{"bcsstk01.mtx", 48, 48, 224},
                      real_file{"bcsstk06.mtx", 420, 420, 4140}, real_file{"bcsstk13.mtx", 2003, 2003, 42943},
                      real_file{"1138_bus.mtx", 1138, 1138, 2596}, real_file{"west0067.mtx", 67, 67, 294},
                      real_file{"LFAT5.mtx", 14, 14, 30}, real_file{"lp_afiro.mtx", 27, 51, 102},
                      real_file{"cage8.mtx", 1015, 1015, 11003}, real_file{"arc130.mtx", 130, 130, 1282},
                      real_file{"bcspwr01.mtx", 39, 39, 85}, real_file{"can_24.mtx", 24, 24, 92},
                      real_file{"curtis54.mtx", 54, 54, 291}, real_file{"dwt_59.mtx", 59, 59, 163},
                      real_file{"qh882.mtx", 882, 882, 3354}, real_file{"rajat11.mtx", 135, 135, 812}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

// bcsstk01 is symmetric with a full diagonal: 224 stored entries expand to
// 2 * 224 - 48 = 400, and the expanded matrix equals its transpose.
TEST(io_mm_real_checks, SymmetricExpansionOfBcsstk01) {
  const auto m = io::read_matrix_market(test::data_dir() + "/bcsstk01.mtx");
  ASSERT_EQ(m.matrix.nnz(), 400u);
  const auto d = test::dense_from_coo(m.matrix);
  for (index_t i = 0; i < 48; ++i)
    for (index_t j = 0; j < 48; ++j) ASSERT_EQ(d[i * 48 + j], d[j * 48 + i]);
}

// The gzipped shared matrices: the .gz path against the reference reader.
TEST(io_mm_real_checks, SharedGzipMatricesMatchReference) {
  int read = 0;
  for (const char* f :
       {"matrices/cage11.mtx.gz", "matrices/delaunay_n16.mtx.gz", "matrices/bcsstk33.mtx.gz"}) {
    const auto p = test::shared_file(f);
    if (!p) continue;
    const auto m = io::read_matrix_market(*p);
    const auto ref = test::reference_read_mm(*p);
    EXPECT_EQ(m.header.entries, ref.declared) << f;
    expect_same_coo(m.matrix, ref.matrix);
    ++read;
  }
  if (read == 0) GTEST_SKIP() << "../shared/data not present";
}

// The chunked parallel parse equals the one-chunk parse, on real files,
// for chunk sizes down to a few hundred bytes and odd thread counts.
TEST(io_mm_parallel, IdenticalToSingleThreadOnRealFiles) {
  std::vector<std::string> files = {test::data_dir() + "/wb-cs-stanford.mtx",
                                    test::data_dir() + "/bcsstk13.mtx", test::data_dir() + "/cage8.mtx",
                                    test::data_dir() + "/lp_afiro.mtx"};
  for (const char* f : {"matrices/cage11.mtx.gz", "graphs/cnr-2000.mtx.gz"})
    if (auto p = test::shared_file(f)) files.push_back(*p);
  for (const auto& f : files) {
    io::read_options one;
    one.threads = 1;
    const auto ref = io::read_matrix_market(f, one);
    for (auto [threads, chunk] :
         {std::pair<unsigned, std::size_t>{2, 0}, {3, 777}, {7, 65536}, {4, 1 << 20}}) {
      io::read_options opt;
      opt.threads = threads;
      opt.chunk_bytes = chunk;
      SCOPED_TRACE(f + " threads " + std::to_string(threads) + " chunk " + std::to_string(chunk));
      expect_same_coo(io::read_matrix_market(f, opt).matrix, ref.matrix);
    }
  }
}

// Error line numbers stay exact whichever chunk the bad line falls in.
TEST(io_mm_parallel, ErrorLineIsExactInEveryChunk) {
  const int lines = 5000;
  for (int bad : {1, 2, 777, 2500, 4999, 5000}) {
    std::string text = "%%MatrixMarket matrix coordinate real general\n% c\n100 100 5000\n";
    for (int k = 1; k <= lines; ++k) {
      if (k == bad)
        text += "1 2 x\n";
      else
        text += std::to_string(k % 100 + 1) + " " + std::to_string(k % 7 + 1) + " 1.5\n";
    }
    for (std::size_t chunk : {std::size_t(0), std::size_t(100), std::size_t(4096)}) {
      io::read_options opt;
      opt.threads = 3;
      opt.chunk_bytes = chunk;
      try {
        parse(text, opt);
        FAIL() << "no error for a bad line " << bad;
      } catch (const parse_error& e) {
        EXPECT_EQ(e.line, static_cast<std::uint64_t>(bad + 3)) << e.what();
        EXPECT_NE(e.reason.find("value 'x' is not a number"), std::string::npos) << e.what();
      }
    }
  }
}

// Too many entries: the error names the first extra line, in any chunking.
TEST(io_mm_parallel, ExtraEntryLineIsExact) {
  std::string text = "%%MatrixMarket matrix coordinate pattern general\n10 10 300\n";
  for (int k = 0; k < 400; ++k)
    text += std::to_string(k % 10 + 1) + " 1\n" + (k % 50 == 0 ? "% note\n\n" : "");
  for (std::size_t chunk : {std::size_t(0), std::size_t(64), std::size_t(1000)}) {
    io::read_options opt;
    opt.threads = 2;
    opt.chunk_bytes = chunk;
    try {
      parse(text, opt);
      FAIL();
    } catch (const parse_error& e) {
      // Entry 301 (k = 300) sits after 2 header lines, 300 entry lines and 2 * 6 comment/blank lines.
      EXPECT_EQ(e.line, 2u + 300u + 12u + 1u) << e.what();
    }
  }
}

// A size line promising 10^12 entries in a tiny file fails at once, without
// allocating from the header.
TEST(io_mm_parallel, HugeDeclaredCountFailsFast) {
  try {
    parse("%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1000000000000\n1 1 1\n");
    FAIL();
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 2u);
    EXPECT_NE(e.reason.find("declares 1000000000000 entries"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace perron
