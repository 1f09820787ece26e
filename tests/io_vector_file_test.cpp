// Per-vertex vector files (io/vector_file.hpp): the PageRank personalization
// and initial vector, as Matrix Market arrays or "vertex weight" lines.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/matrix_market.hpp"
#include "io/vector_file.hpp"

namespace perron::test {
namespace {

// ---- per-vertex vector files ------------------------------------------------------------

class vertex_file : public ::testing::Test {
 protected:
  std::string path(const std::string& name) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("perron_io_vector_file_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    dirs_.push_back(dir);
    return (dir / name).string();
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string p = path(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  void TearDown() override {
    for (const auto& d : dirs_) std::filesystem::remove_all(d);
  }
  std::vector<std::filesystem::path> dirs_;
};

TEST_F(vertex_file, TsvWithLabels) {
  const std::string p = write("v.tsv", "# comment\r\n35\t2.5\r\n\r\n10 0.5\n  % also a comment\n");
  const auto w = io::read_vertex_weights(p, 3, std::vector<std::int64_t>{10, 20, 35});
  EXPECT_EQ(w, (std::vector<double>{0.5, 0.0, 2.5}));
}

// A name with blanks (a GML or Pajek label) quoted; its errors name the line.
TEST_F(vertex_file, QuotedNamesHoldBlanks) {
  const std::vector<std::int64_t> no_ids;
  const std::vector<std::string> names = {"Newman, M", "Jeong, H"};
  const auto w = io::read_vertex_weights(write("q.tsv", "\"Jeong, H\" 2\n\"Newman, M\"\t0.5\n"), 2,
                                         vertex_naming(no_ids, names));
  EXPECT_EQ(w, (std::vector<double>{0.5, 2.0}));
  EXPECT_THROW(io::read_vertex_weights(write("b.tsv", "\"Jeong, H 2\n"), 2, vertex_naming(no_ids, names)),
               parse_error);
  EXPECT_THROW(io::read_vertex_weights(write("c.tsv", "\"Jeong, H\"2\n"), 2, vertex_naming(no_ids, names)),
               parse_error);
}

// What --output writes (vertex_naming::field) reads back: a '"' doubled in
// a quoted name, a name that opens with '#' quoted, not a comment.
TEST_F(vertex_file, OutputFieldsReadBack) {
  const std::vector<std::int64_t> no_ids;
  // (An empty name, a GraphML node id="", was written as nothing: its line
  // read back as a weight without a vertex.)
  const std::vector<std::string> names = {"say \"hi\"", "#tag", "a\tb", "plain", "Les Mis", ""};
  const vertex_naming naming(no_ids, names);
  EXPECT_EQ(naming.field(0), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(naming.field(1), "\"#tag\"");
  EXPECT_EQ(naming.field(3), "plain");
  EXPECT_EQ(naming.field(5), "\"\"");
  std::string text;
  for (index_t i = 0; i < 6; ++i) text += naming.field(i) + "\t" + std::to_string(i + 1) + "\n";
  EXPECT_EQ(io::read_vertex_weights(write("out.tsv", text), 6, naming),
            (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(vertex_naming(no_ids).field(2), "3");  // no names: the number as it is
}

// A name with a line break (a GML label) is written quoted over two lines
// and read back so, CRLF lines too; a quote never closed is named at the
// line it opens on.
TEST_F(vertex_file, QuotedNamesHoldLineBreaks) {
  const std::vector<std::int64_t> no_ids;
  const std::vector<std::string> names = {"c\nd", "a", "e\n\nf"};
  const vertex_naming naming(no_ids, names);
  EXPECT_EQ(naming.field(0), "\"c\nd\"");
  std::string text;
  for (index_t i = 0; i < 3; ++i) text += naming.field(i) + "\t" + std::to_string(i + 1) + "\n";
  EXPECT_EQ(io::read_vertex_weights(write("nl.tsv", text), 3, naming), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(
      io::read_vertex_weights(write("crlf.tsv", "a 2\r\n\"c\r\nd\" 1\r\n\"e\r\n\r\nf\" 3\r\n"), 3, naming),
      (std::vector<double>{1, 2, 3}));
  try {
    io::read_vertex_weights(write("open.tsv", "a 2\n\"c\nd 1\ne 3\n"), 3, naming);
    ADD_FAILURE();
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 2u) << e.what();
  }
  // The lines after a name over two are counted.
  try {
    io::read_vertex_weights(write("after.tsv", "\"c\nd\" 1\nzz 3\n"), 3, naming);
    ADD_FAILURE();
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 3u) << e.what();
  }
}

// A UTF-8 byte order mark (Windows editors write one) is skipped, as the graph
// readers skip it: the first line was "the vertex is not an integer", a
// Matrix Market array's banner too.
TEST_F(vertex_file, ByteOrderMarkIsSkipped) {
  const std::string bom = "\xEF\xBB\xBF";
  EXPECT_EQ(io::read_vertex_weights(write("v.tsv", bom + "1 1\n4 3\n"), 4, {}),
            (std::vector<double>{1, 0, 0, 3}));
  EXPECT_EQ(io::read_vertex_weights(
                write("a.mtx", bom + "%%MatrixMarket matrix array real general\n2 1\n1\n3\n"), 2, {}),
            (std::vector<double>{1, 3}));
}

TEST_F(vertex_file, TsvOneBasedWithoutLabels) {
  const auto w = io::read_vertex_weights(write("v.tsv", "1 1\n4 3\n"), 4, {});
  EXPECT_EQ(w, (std::vector<double>{1, 0, 0, 3}));
}

TEST_F(vertex_file, TsvErrorsNameTheLine) {
  const auto expect_line = [&](const std::string& text, std::uint64_t line, const char* what) {
    try {
      io::read_vertex_weights(write("bad.tsv", text), 4, {});
      ADD_FAILURE() << "accepted: " << what;
    } catch (const parse_error& e) {
      EXPECT_EQ(e.line, line) << what << ": " << e.what();
    }
  };
  expect_line("1 1\n5 1\n", 2, "vertex beyond n");
  expect_line("1 1\n0 1\n", 2, "vertex 0 in 1-based numbering");
  expect_line("1 1\n1 2\n", 2, "repeated vertex");
  expect_line("x 1\n", 1, "vertex not a number");
  expect_line("2 abc\n", 1, "weight not a number");
  expect_line("2\n", 1, "weight missing");
  expect_line("2 1 3\n", 1, "extra field");
  expect_line("# ok\n3 -1\n", 2, "negative weight");
  expect_line("3 nan\n", 1, "NaN weight");
  expect_line("3 0x10\n", 1, "hex weight");  // strtod took it as 16; no other reader does
  expect_line("3 1e999\n", 1, "overflowing weight");
  // A NUL ended the parsed line: '1 0.5\0 9 junk' read as '1 0.5'.
  expect_line("2 1\n1 0.5" + std::string(1, '\0') + " 9 junk\n", 2, "NUL byte");
  expect_line(std::string("# c\0\n", 5), 1, "NUL byte in a comment");
  EXPECT_THROW(io::read_vertex_weights(write("v.tsv", "7 1\n"), 3, std::vector<std::int64_t>{5, 6, 8}),
               parse_error);  // unknown label
  EXPECT_THROW(io::read_vertex_weights(path("missing.tsv"), 3, {}), io_error);
}

TEST_F(vertex_file, MatrixMarketArray) {
  const std::string p = path("v.mtx");
  io::write_matrix_market_array(p, {1, 2, 3, 4}, 4, 1);
  EXPECT_EQ(io::read_vertex_weights(p, 4, {}), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_THROW(io::read_vertex_weights(p, 5, {}), dimension_error);  // wrong length
  io::write_matrix_market_array(p, {1, -2, 3}, 3, 1);
  EXPECT_THROW(io::read_vertex_weights(p, 3, {}), parse_error);  // negative
  // The banner in any case, as the graph readers take it (was read as lines
  // of "vertex weight": "p.mtx:3: ... the weight is missing").
  EXPECT_EQ(io::read_vertex_weights(
                write("l.mtx", "%%matrixmarket matrix array real general\n3 1\n1\n0\n2\n"), 3, {}),
            (std::vector<double>{1, 0, 2}));
}

// Read once: a named pipe (opened once only) reads; a device is checked for
// text and refused at line 1, not read without end.
TEST_F(vertex_file, PipesReadOnceAndDevicesAreCheckedForText) {
  const std::string fifo = path("w.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(std::system(("printf '2 3\\n' > '" + fifo + "' &").c_str()), 0);
  EXPECT_EQ(io::read_vertex_weights(fifo, 3, {}), (std::vector<double>{0, 3, 0}));
  try {
    io::read_vertex_weights("/dev/zero", 3, {});
    FAIL();
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 1u);
    EXPECT_NE(e.reason.find("binary data"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace perron::test
