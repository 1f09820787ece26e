// Source-set files of batched PageRank (io/sources_file.hpp): one set per line,
// "vertex[:weight]" tokens, vertices named as in the graph file.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/sources_file.hpp"
#include "tests/support/scratch.hpp"

namespace perron::test {
namespace {

using sources_file = scratch_test;
using set = std::vector<std::pair<index_t, double>>;

TEST_F(sources_file, OneBasedSetsWithAndWithoutWeights) {
  const auto s =
      io::read_sources_file(write("s.txt", "7 19:0.5\r\n# a comment\n  3\t4:2  \n1:0 2\n"), 20, {});
  ASSERT_EQ(s.sets.size(), 3u);
  EXPECT_EQ(s.sets[0], (set{{6, 1.0}, {18, 0.5}}));
  EXPECT_EQ(s.sets[1], (set{{2, 1.0}, {3, 2.0}}));
  EXPECT_EQ(s.sets[2], (set{{0, 0.0}, {1, 1.0}}));
  EXPECT_EQ(s.line, (std::vector<std::uint64_t>{1, 3, 4}));
}

TEST_F(sources_file, TheTextCountsItsSetsBeforeTheGraphIsKnown) {
  // Read once (a pipe can be read only once), counted, then parsed against the graph.
  const io::sources_text t =
      io::read_sources_text(write("s.txt", "7 19:0.5\r\n# a comment\n  3\t4:2  \n1:0 2"));
  EXPECT_EQ(t.sets, 3u);
  const auto s = io::parse_sources(t, 20, {});
  ASSERT_EQ(s.sets.size(), 3u);
  EXPECT_EQ(s.sets[2], (set{{0, 0.0}, {1, 1.0}}));
  EXPECT_EQ(io::read_sources_text(write("c.txt", "# only\n  # comments\n")).sets, 0u);
  // An empty line is counted as no set here; the parse names it.
  const io::sources_text blank = io::read_sources_text(write("b.txt", "1\n\n2\n"));
  EXPECT_EQ(blank.sets, 2u);
  EXPECT_THROW(io::parse_sources(blank, 20, {}), parse_error);
}

// A UTF-8 byte order mark (Windows editors write one) is skipped, as the graph
// readers skip it: "expected 'vertex' or 'vertex:weight', got '\xef\xbb\xbf7'" before.
TEST_F(sources_file, ByteOrderMarkIsSkipped) {
  const auto s = io::read_sources_file(write("s.txt",
                                             "\xEF\xBB\xBF"
                                             "7 19:0.5\n3\n"),
                                       20, {});
  ASSERT_EQ(s.sets.size(), 2u);
  EXPECT_EQ(s.sets[0], (set{{6, 1.0}, {18, 0.5}}));
  EXPECT_EQ(io::read_sources_text(write("c.txt", "\xEF\xBB\xBF# only a comment\n")).sets, 0u);
}

// Weights are relative: finite ones whose sum passes double's range are
// read as given (the solver normalizes them over the largest), as
// --personalize's; they were refused ("the weights' sum overflows").
TEST_F(sources_file, WeightsWhoseSumOverflowsAreRead) {
  const auto s = io::read_sources_file(write("s.txt", "1:1e308 2:1e308\n"), 3, {});
  ASSERT_EQ(s.sets.size(), 1u);
  EXPECT_EQ(s.sets[0], (set{{0, 1e308}, {1, 1e308}}));
}

TEST_F(sources_file, LabelsNameTheVertices) {
  const auto s = io::read_sources_file(write("s.txt", "35 10:3\n"), 3, std::vector<std::int64_t>{10, 20, 35});
  ASSERT_EQ(s.sets.size(), 1u);
  EXPECT_EQ(s.sets[0], (set{{2, 1.0}, {0, 3.0}}));
  // 1 is not a label, although it would be a 1-based index
  EXPECT_THROW(io::read_sources_file(write("t.txt", "1\n"), 3, std::vector<std::int64_t>{10, 20, 35}),
               parse_error);
}

// Names with blanks (GML and Pajek labels: "Newman, M") quoted, with or without a weight.
TEST_F(sources_file, QuotedNamesHoldBlanks) {
  const std::vector<std::int64_t> no_ids;
  const std::vector<std::string> names = {"Newman, M", "Barabasi, A", "x:y"};
  const auto s =
      io::read_sources_file(write("q.txt", "\"Newman, M\" \"Barabasi, A\":2\n\"x:y\":0.5 \"Newman, M\"\n"), 3,
                            vertex_naming(no_ids, names));
  ASSERT_EQ(s.sets.size(), 2u);
  EXPECT_EQ(s.sets[0], (set{{0, 1.0}, {1, 2.0}}));
  EXPECT_EQ(s.sets[1], (set{{2, 0.5}, {0, 1.0}}));
  // A '"' in a quoted name doubled, as --output writes it.
  const std::vector<std::string> quoting = {"say \"hi\"", "b"};
  EXPECT_EQ(
      io::read_sources_file(write("d.txt", "\"say \"\"hi\"\"\":3 b\n"), 2, vertex_naming(no_ids, quoting))
          .sets[0],
      (set{{0, 3.0}, {1, 1.0}}));
  // Integer ids may be quoted too.
  EXPECT_EQ(io::read_sources_file(write("i.txt", "\"3\":2 1\n"), 4, {}).sets[0], (set{{2, 2.0}, {0, 1.0}}));
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"\"Newman, M\n", ":1: a vertex's opening '\"' is not closed"},
           {"\"Newman\"\n", ":1: vertex Newman is not in the graph"},
           {"\"Newman, M\"x\n", ":1: expected '\"vertex\"' or '\"vertex\":weight'"},
           {"\"Newman, M\":heavy\n", ":1: vertex Newman, M: the weight is not a number"}}) {
    const std::string p = write("bad.txt", text);
    try {
      io::read_sources_file(p, 3, vertex_naming(no_ids, names));
      ADD_FAILURE() << "accepted: " << text;
    } catch (const parse_error& e) {
      EXPECT_NE(std::string(e.what()).find(p + message), std::string::npos)
          << e.what() << " (wanted " << message << ")";
    }
  }
}

// Blank lines that end the file are no sets; one between sets is refused.
TEST_F(sources_file, TrailingBlankLinesAreNoSets) {
  for (const char* text : {"1 2\n3\n\n", "1 2\n3\n\n \t\n\r\n", "1 2\r\n3\r\n\r\n", "1 2\n3\n  "}) {
    const auto s = io::read_sources_file(write("s.txt", text), 20, vertex_naming());
    EXPECT_EQ(s.sets.size(), 2u) << text;
  }
  EXPECT_THROW(io::read_sources_file(write("m.txt", "\n1\n"), 20, vertex_naming()), parse_error);
  EXPECT_THROW(io::read_sources_file(write("e.txt", "\n\n"), 20, vertex_naming()), parse_error);
}

// Every bad file: a parse_error naming the file and the line.
TEST_F(sources_file, BadFilesNameTheLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1 2\n\n3\n", ":2: empty line"},
      {"1 2\n3 4 3:2\n", ":2: vertex 3 is listed twice in the set"},
      {"1\n2 99\n", ":2: vertex 99 is not in the graph (vertices are numbered 1..20)"},
      {"1\n0\n", ":2: vertex 0 is not in the graph"},
      {"1 2:-1\n", ":1: vertex 2: weight -1"},
      {"1 2:nan\n", ":1: vertex 2: weight 'nan' is not a finite number"},
      {"1 2:0x2\n", ":1: vertex 2: the weight is not a number"},  // strtod took it as 2
      {"1 2:1e999\n", ":1: vertex 2: weight '1e999' overflows double"},
      {"1 2:inf\n", ":1: vertex 2: weight 'inf' is not a finite number"},
      {"1 2:x\n", ":1: vertex 2: the weight is not a number"},
      {"1 2:\n", ":1: vertex 2: the weight is not a number"},
      {"1 2:0.5x\n", ":1: vertex 2: the weight is not a number"},
      {"1\n2x\n", ":2: expected 'vertex' or 'vertex:weight', got '2x'"},
      {"a\n", ":1: expected 'vertex' or 'vertex:weight', got 'a'"},
      {"1:0 2:0\n", ":1: all weights of the set are zero"},
      {"# only a comment\n", ": no source sets"},
      {"", ": no source sets"},
      // A NUL ended the parsed line: '1\0 99' read as the set {1}.
      {std::string("2\n1\0 99\n", 8), ":2: binary data (byte 0x00)"},
      {std::string("\0\n", 2), ":1: binary data (byte 0x00)"},  // was "all weights of the set are zero"
  };
  for (const auto& [text, message] : cases) {
    const std::string p = write("bad.txt", text);
    try {
      io::read_sources_file(p, 20, {});
      ADD_FAILURE() << "accepted: " << text;
    } catch (const parse_error& e) {
      EXPECT_NE(std::string(e.what()).find(p + message), std::string::npos)
          << e.what() << " (wanted " << message << ")";
    }
  }
}

// A device is checked for text and refused at line 1, not read without end.
TEST_F(sources_file, BinaryDeviceIsRefusedAtLineOne) {
  try {
    io::read_sources_file("/dev/zero", 5, {});
    FAIL();
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 1u);
    EXPECT_NE(e.reason.find("binary data"), std::string::npos) << e.what();
  }
}

TEST_F(sources_file, MissingFileIsAnIoError) {
  EXPECT_THROW(io::read_sources_file(path("absent.txt"), 5, {}), io_error);
}

}  // namespace
}  // namespace perron::test
