// SNAP edge lists: the real files (CRLF, no header, gzip) against an
// independent reader and the published node / edge counts; the monotone id
// remap; separators, comments and self loops; parallel == single-threaded.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "io/load.hpp"
#include "io/matrix_market.hpp"
#include "io/snap.hpp"
#include "tests/io_reference.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

void expect_same_graph(const io::snap_graph& a, const io::snap_graph& b) {
  ASSERT_EQ(a.matrix.rows, b.matrix.rows);
  ASSERT_EQ(a.original_id, b.original_id);
  ASSERT_EQ(a.matrix.row_idx, b.matrix.row_idx);
  ASSERT_EQ(a.matrix.col_idx, b.matrix.col_idx);
  ASSERT_EQ(a.matrix.values, b.matrix.values);
}

// Every edge maps back to the original pair, ids ascend, the matrix is square.
void expect_matches_reference(const io::snap_graph& g, const std::string& path) {
  const auto ref = test::reference_read_snap(path);
  ASSERT_EQ(g.original_id, ref.ids);
  ASSERT_EQ(g.matrix.rows, static_cast<index_t>(ref.ids.size()));
  ASSERT_EQ(g.matrix.cols, g.matrix.rows);
  ASSERT_EQ(g.matrix.nnz(), ref.from.size());
  for (std::size_t e = 0; e < ref.from.size(); ++e) {
    ASSERT_EQ(g.original_id[g.matrix.row_idx[e]], ref.from[e]) << "edge " << e;
    ASSERT_EQ(g.original_id[g.matrix.col_idx[e]], ref.to[e]) << "edge " << e;
  }
  EXPECT_TRUE(std::all_of(g.matrix.values.begin(), g.matrix.values.end(), [](double v) { return v == 1.0; }));
}

struct snap_file {
  const char* path;
  bool shared;
  index_t nodes;
  std::size_t edges;
};

class io_snap_real : public ::testing::TestWithParam<snap_file> {};

TEST_P(io_snap_real, PublishedCountsAndReference) {
  const auto f = GetParam();
  std::string path = test::data_dir() + "/" + f.path;
  if (f.shared) {
    const auto p = test::shared_file(f.path);
    if (!p) GTEST_SKIP() << "../shared/data not present";
    path = *p;
  }
  const auto g = io::read_snap(path);
  EXPECT_EQ(g.matrix.rows, f.nodes);
  EXPECT_EQ(g.matrix.nnz(), f.edges);
  expect_matches_reference(g, path);
  for (auto [threads, chunk] : {std::pair<unsigned, std::size_t>{1, 0}, {2, 333}, {5, 4096}}) {
    io::read_options opt;
    opt.threads = threads;
    opt.chunk_bytes = chunk;
    expect_same_graph(io::read_snap(path, opt), g);
  }
}

INSTANTIATE_TEST_SUITE_P(Real, io_snap_real,
                         ::testing::Values(snap_file{"wiki-Vote.txt", false, 7115, 103689},  // CRLF line ends
                                           snap_file{"p2p-Gnutella05.txt", false, 8846, 31839},
                                           snap_file{"email-Eu-core.txt.gz", false, 1005,
                                                     25571},  // no header, gzip
                                           snap_file{"graphs/email-Eu-core.txt.gz", true, 1005, 25571}),
                         [](const auto& info) {
                           std::string n = std::string(info.param.shared ? "shared_" : "") + info.param.path;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(io_snap, RemapIsMonotoneAndKeepsOriginalIds) {
  const auto g = io::parse_snap("# Nodes: 4 Edges: 5\n1000 7\n7 42\n42 1000\n7 7\n99999999999 7\n", "g.txt");
  EXPECT_EQ(g.original_id, (std::vector<std::int64_t>{7, 42, 1000, 99999999999}));
  EXPECT_EQ(g.matrix.rows, 4);
  EXPECT_EQ(g.matrix.row_idx, (std::vector<index_t>{2, 0, 1, 0, 3}));
  EXPECT_EQ(g.matrix.col_idx, (std::vector<index_t>{0, 1, 2, 0, 0}));  // the self loop 7 -> 7 is kept
}

TEST(io_snap, SeparatorsCommentsCrlfAndBlankLines) {
  const auto g = io::parse_snap(
      "\xEF\xBB\xBF# header\r\n\r\n0\t1\r\n  1   2  \r\n% konect-style comment\n2 \t 0\n\n3 3", "g.txt");
  EXPECT_EQ(g.matrix.rows, 4);
  EXPECT_EQ(g.matrix.row_idx, (std::vector<index_t>{0, 1, 2, 3}));
  EXPECT_EQ(g.matrix.col_idx, (std::vector<index_t>{1, 2, 0, 3}));
  // A last line of "\r" alone, or blanks and "\r", is blank (was "expected 2
  // fields, found 0"); Matrix Market's body too.
  for (const char* tail : {"\r", "  \r", "\t\r"}) {
    EXPECT_EQ(io::parse_snap(std::string("0 1\r\n1 2\r\n") + tail, "g.txt").matrix.nnz(), 2u) << tail;
    EXPECT_EQ(io::parse_snap(std::string("0 1 0.5\r\n1 2 2\r\n") + tail, "g.txt").matrix.nnz(), 2u) << tail;
    EXPECT_EQ(
        io::parse_matrix_market(
            std::string("%%MatrixMarket matrix coordinate pattern general\r\n3 3 2\r\n1 2\r\n2 3\r\n") + tail,
            "m.mtx")
            .matrix.nnz(),
        2u)
        << tail;
  }
}

// Ids up to 2^63 - 1 exactly (9223372036854775800 and up were refused as
// not fitting); 2^63 is refused with its line.
TEST(io_snap, IdsUpToTwoToThe63MinusOne) {
  const auto g = io::parse_snap("9223372036854775807 9223372036854775800\n0 9223372036854775806\n", "g.txt");
  EXPECT_EQ(g.original_id,
            (std::vector<std::int64_t>{0, 9223372036854775800, 9223372036854775806, 9223372036854775807}));
  try {
    io::parse_snap("1 2\n9223372036854775808 1\n", "g.txt");
    FAIL();
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 2u);
    EXPECT_NE(e.reason.find("'9223372036854775808' does not fit a 63-bit integer"), std::string::npos)
        << e.what();
  }
}

TEST(io_snap, CommentsOnlyIsAnEmptyGraph) {
  const auto g = io::parse_snap("# nothing\n# at all\n", "g.txt");
  EXPECT_EQ(g.matrix.rows, 0);
  EXPECT_EQ(g.matrix.nnz(), 0u);
  EXPECT_TRUE(g.original_id.empty());
}

// The remap is monotone whatever the spacing of the ids: contiguous ids,
// ids with gaps (the bitmap-rank path: 13 x spread, ids straddling 64-bit
// words) and ids far apart (the sort path) give the same matrix, and the
// original ids come back scaled.
TEST(io_snap, SparseAndDenseRemapAgree) {
  std::string dense_text;
  for (int k = 0; k < 2000; ++k) {
    const int a = (k * 37) % 1500, b = (k * 91 + 5) % 1500;
    dense_text += std::to_string(a) + " " + std::to_string(b) + "\n";
  }
  const auto d = io::parse_snap(dense_text, "d.txt");
  for (long long spread : {13LL, 1000000007LL}) {
    std::string text;
    for (int k = 0; k < 2000; ++k) {
      const long long a = (k * 37) % 1500, b = (k * 91 + 5) % 1500;
      text += std::to_string(a * spread + 1) + " " + std::to_string(b * spread + 1) + "\n";
    }
    const auto s = io::parse_snap(text, "s.txt");
    EXPECT_EQ(d.matrix.row_idx, s.matrix.row_idx) << spread;
    EXPECT_EQ(d.matrix.col_idx, s.matrix.col_idx) << spread;
    ASSERT_EQ(d.original_id.size(), s.original_id.size()) << spread;
    for (std::size_t i = 0; i < d.original_id.size(); ++i)
      EXPECT_EQ(d.original_id[i] * spread + 1, s.original_id[i]) << spread;
  }
}

TEST(io_snap, ErrorLineIsExactInEveryChunk) {
  for (int bad : {1, 500, 2999}) {
    std::string text;
    for (int k = 1; k <= 3000; ++k)
      text += k == bad ? "1 x\n" : std::to_string(k) + "\t" + std::to_string(k + 1) + "\n";
    for (std::size_t chunk : {std::size_t(0), std::size_t(50), std::size_t(2000)}) {
      io::read_options opt;
      opt.threads = 3;
      opt.chunk_bytes = chunk;
      try {
        io::parse_snap(text, "g.txt", opt);
        FAIL();
      } catch (const parse_error& e) {
        EXPECT_EQ(e.line, static_cast<std::uint64_t>(bad)) << e.what();
        EXPECT_EQ(e.reason, "target id 'x' is not a non-negative integer");
      }
    }
  }
}

// Edge lists as users write them: a comma between fields (blanks around it
// allowed), a header line of names, a third field that is the arc's weight.
TEST(io_snap, CsvWithHeaderAndWeights) {
  const auto g =
      io::parse_snap("# exported\nsource,target,weight\n10,20,0.5\n20 , 30 ,2e0\n30,10,1\r\n\n", "g.csv");
  EXPECT_TRUE(g.weighted);
  EXPECT_EQ(g.original_id, (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_EQ(g.matrix.row_idx, (std::vector<index_t>{0, 1, 2}));
  EXPECT_EQ(g.matrix.col_idx, (std::vector<index_t>{1, 2, 0}));
  EXPECT_EQ(g.matrix.values, (std::vector<double>{0.5, 2.0, 1.0}));
  // The same arcs with blanks, tabs or commas between the ids, with or without a header.
  for (const char* text :
       {"0 1\n1 2\n", "0,1\n1,2\n", "from\tto\n0\t1\n1 ,\t2\n", "\"a\",\"b\"\n0,1\n1,2\n"}) {
    const auto h = io::parse_snap(text, "h.csv");
    EXPECT_FALSE(h.weighted) << text;
    EXPECT_EQ(h.matrix.row_idx, (std::vector<index_t>{0, 1})) << text;
    EXPECT_EQ(h.matrix.col_idx, (std::vector<index_t>{1, 2})) << text;
    EXPECT_EQ(h.matrix.values, (std::vector<double>{1.0, 1.0})) << text;
  }
}

// parse_snap(text, name) throws a parse_error at `line` whose reason holds `words`.
void expect_parse_error(const std::string& text, const std::string& name, std::uint64_t line,
                        const std::string& words) {
  try {
    io::parse_snap(text, name);
    ADD_FAILURE() << text;
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, line) << e.what();
    EXPECT_NE(e.reason.find(words), std::string::npos) << e.what();
  }
}

// Only the first data line may be a header; every line holds the first
// edge line's field count; errors name the line counted from the file's start.
TEST(io_snap, HeaderAndFieldCountErrors) {
  const auto fails = [](const std::string& text, std::uint64_t line, const std::string& words) {
    expect_parse_error(text, "g.csv", line, words);
  };
  fails("src,dst\n0,1\nsrc,dst\n", 3, "source id 'src' is not a non-negative integer");
  fails("src,dst,w\n0,1\n", 2, "found 2 fields where the list's lines have 3 (from to weight)");
  fails("0 1 1\n1 2 -inf\n", 2, "weight '-inf'");
  fails("0 1\n1 2 3 4\n", 2, "found 4 fields where the list's lines have 2 (from to)");
  fails(
      "0 1 1 5\n1 2 3 4 5\n", 2,
      "expected 2 fields (from to), 3 (from to weight) or 4 (from to weight time), found 5 (unexpected '5')");
  fails("0 1 1 1190000000\n1 2 1\n", 2, "found 3 fields where the list's lines have 4 (from to weight time)");
  fails("0 1 1 1190000000\n1 2 1 noon\n", 2, "time 'noon' is not a number");
  fails("# c\n\nsource target\n0 x\n", 4, "target id 'x' is not a non-negative integer");
  // One field is too few whatever it holds; a ';' or '|' in it is named
  // ("Source;Target", Excel's CSV where ',' is the decimal mark, was told its
  // source id is no integer because the list's first edge gives ids).
  fails("0;1\n", 1, "found 1 (fields are separated by blanks, tabs or commas; not by ';' or '|')");
  fails("Source;Target\n1;2\n", 1,
        "found 1 (fields are separated by blanks, tabs or commas; not by ';' or '|')");
  fails("0 1\nalice\n", 2,
        "expected 2 fields (from to), 3 (from to weight) or 4 (from to weight time), found 1");
  // Binary bytes split in two by a blank are no header (they were, and the
  // file an empty graph): the line is the error.
  fails(std::string("\x01\x93x\x7f \x02\xff\n", 8), 1, "source field '\\x01");
  fails(std::string("ab\x00c de\n0 1\n", 12), 1, "source field 'ab");
  // A control byte in a name under a line of words, which names the list's
  // vertices from that line: said so (it said "source id 'cd' is not ...").
  fails(std::string("ab cd\ncd e\x01"
                    "f\n"),
        2, "target name 'e\\x01f' holds a control character");
  // A stray CR before a line's CRLF (a CRLF file converted once more) is
  // shown: "target id '1412' is not a non-negative integer" hid it, and a
  // weight's message ended after the quote ("weight '0.5' ").
  fails("0 1\r\n1 1412\r\r\n", 2, "target id '1412\\x0d' is not a non-negative integer");
  fails("0 1 1\r\n1 2 0.5\r\r\n", 2, "weight '0.5\\x0d' is not a number (unexpected 0x0d)");
  // A header only: no edges.
  const auto g = io::parse_snap("source,target\n", "g.csv");
  EXPECT_EQ(g.matrix.nnz(), 0u);
}

TEST(io_snap, EdgeListColumns) {
  const auto c = io::detail::edge_list_columns("# a\n% b\n\nfrom to weight\n1 2 3\n");
  EXPECT_TRUE(c.weights());
  EXPECT_TRUE(c.edge_line);
  EXPECT_EQ(c.body_line, 5u);
  EXPECT_EQ(c.body_offset, std::string("# a\n% b\n\nfrom to weight\n").size());
  const auto d = io::detail::edge_list_columns("1,2\n");
  EXPECT_FALSE(d.weights());
  EXPECT_TRUE(d.edge_line);
  EXPECT_EQ(d.body_offset, 0u);
  EXPECT_EQ(d.body_line, 1u);
  EXPECT_FALSE(io::detail::edge_list_columns("hello world\n").edge_line);  // a header with no edge after it
  const auto t = io::detail::edge_list_columns("% asym positive\n1 2 1 1190000000\n");  // KONECT's time
  EXPECT_TRUE(t.edge_line);
  EXPECT_EQ(t.fields, 4u);
  EXPECT_TRUE(t.weights());
  EXPECT_FALSE(io::detail::edge_list_columns("1 2 3 4 5\n").edge_line);
}

// KONECT's temporal networks: "from to weight time", the time read as a
// number and dropped; the weight is the arc's (repeated arcs add up where
// the solve merges them).
TEST(io_snap, KonectTimeColumnDropped) {
  const auto g = io::parse_snap(
      "% asym positive\n% 3 3 3\n1 2 1 1190000000\n2 3 2 1190000001\n3 1 1 -5.5e3\n", "out.konect");
  EXPECT_TRUE(g.weighted);
  EXPECT_EQ(g.matrix.row_idx, (std::vector<index_t>{0, 1, 2}));
  EXPECT_EQ(g.matrix.col_idx, (std::vector<index_t>{1, 2, 0}));
  EXPECT_EQ(g.matrix.values, (std::vector<double>{1.0, 2.0, 1.0}));
  // The same with a header of four names and commas.
  const auto h = io::parse_snap("from,to,weight,time\n1,2,1,7\n2,3,2,8\n3,1,1,9\n", "t.csv");
  EXPECT_EQ(h.matrix.col_idx, g.matrix.col_idx);
  EXPECT_EQ(h.matrix.values, g.matrix.values);
}

// networkx's write_edgelist with its default data=True ends a line with the
// edge's attributes, a Python dict: the weight is its 'weight' (1 without).
// pandas' to_csv with its default index=True writes a first column of row
// numbers under an empty name: dropped (it was read as the source, and the
// target as a weight).
TEST(io_snap, NetworkxDataAndPandasIndex) {
  const auto g = io::parse_snap(
      "1 2 {}\n1 3 {'weight': 2.5}\n2 3 {'color': 'red', 'weight': 4}\r\n"
      "3 1 {\"weight\": 1e3, 'w': 7}\n",
      "g.edgelist");
  EXPECT_TRUE(g.weighted);
  EXPECT_EQ(g.matrix.row_idx, (std::vector<index_t>{0, 0, 1, 2}));
  EXPECT_EQ(g.matrix.col_idx, (std::vector<index_t>{1, 2, 2, 0}));
  EXPECT_EQ(g.matrix.values, (std::vector<double>{1.0, 2.5, 4.0, 1000.0}));
  const auto c = io::parse_snap("1,2,{}\n2,3,{'weight': 3}\n", "c.edgelist");  // delimiter=','
  EXPECT_EQ(c.matrix.values, (std::vector<double>{1.0, 3.0}));
  for (const char* text : {",source,target\n0,1,2\n1,1,3\n2,2,3\n3,3,1\n",
                           ",source,target,weight\n0,1,2,1\n1,1,3,1\n2,2,3,1\n3,3,1,1\n"}) {
    const auto p = io::parse_snap(text, "p.csv");
    EXPECT_EQ(p.original_id, (std::vector<std::int64_t>{1, 2, 3})) << text;
    EXPECT_EQ(p.matrix.row_idx, (std::vector<index_t>{0, 0, 1, 2})) << text;
    EXPECT_EQ(p.matrix.col_idx, (std::vector<index_t>{1, 2, 2, 0})) << text;
  }
  const auto fails = [](const std::string& text, std::uint64_t line, const std::string& words) {
    expect_parse_error(text, "g.edgelist", line, words);
  };
  fails("1 2 {}\n2 3 {'weight': 'heavy'}\n", 2, "the 'weight' in the edge's data is not a number");
  fails("1 2 {}\n2 3 {'weight': 2\n", 2, "a dict {...} that ends the line");
  fails("1 2 {}\n2 3\n", 2, "a dict {...} that ends the line");
  fails("1 2 {}\nx 3 {}\n", 2, "source id 'x' is not a non-negative integer");
  fails(",source,target\n0,1,2\n1,1\n", 3, "found 1");
}

// A header that names its columns elsewhere than "from to [weight]" says
// where they are: Gephi's edge table (Source,Target,Type,Id,Label,timeset,
// Weight; a label in quotes may hold a comma), "target,source". The other
// columns are skipped, whatever they hold.
TEST(io_snap, ColumnsByTheirNames) {
  const auto g = io::parse_snap(
      "Source,Target,Type,Id,Label,timeset,Weight\n1,2,Directed,0,,,1.5\n"
      "2,3,Directed,1,\"a, \"\"b\"\"\",,2.5\n3,1,Undirected,2,c,,1\n",
      "gephi.csv");
  EXPECT_TRUE(g.weighted);
  EXPECT_EQ(g.matrix.row_idx, (std::vector<index_t>{0, 1, 2}));
  EXPECT_EQ(g.matrix.col_idx, (std::vector<index_t>{1, 2, 0}));
  EXPECT_EQ(g.matrix.values, (std::vector<double>{1.5, 2.5, 1.0}));
  const auto r = io::parse_snap("target,source\n2,1\n3,2\n", "r.csv");
  EXPECT_FALSE(r.weighted);
  EXPECT_EQ(r.matrix.row_idx, (std::vector<index_t>{0, 1}));
  EXPECT_EQ(r.matrix.col_idx, (std::vector<index_t>{1, 2}));
  const auto t = io::parse_snap("\"from\" \"to\" \"weight\" \"time\"\n1 2 0.5 7\n", "t.tsv");
  EXPECT_EQ(t.matrix.values, (std::vector<double>{0.5}));
  // Netzschleuder's edges.csv names its columns in a comment: by name where
  // the first line holds as many fields, else by place as any comment.
  const auto n = io::parse_snap("# source, target, time, weight\n0,1,1990,2.5\n1,2,1991,1\n", "edges.csv");
  EXPECT_TRUE(n.weighted);
  EXPECT_EQ(n.matrix.values, (std::vector<double>{2.5, 1.0}));
  const auto u = io::parse_snap("# source, target, year\n0,1,1990\n1,2,1991\n", "edges.csv");
  EXPECT_FALSE(u.weighted);
  EXPECT_EQ(u.matrix.nnz(), 2u);
  EXPECT_EQ(io::detail::edge_list_columns("# source, target, weight\n0,1,2\n").named, 0u);
  EXPECT_EQ(io::detail::edge_list_columns("# source, target, year\n0,1\n").named, 0u);
  EXPECT_EQ(io::detail::edge_list_columns("# source, target, year\n# a note\n0,1,2\n").named, 0u);
  EXPECT_EQ(io::detail::edge_list_columns("# FromNodeId\tToNodeId\n0\t1\n").named, 0u);
  // The positional layouts keep their fast path.
  EXPECT_EQ(io::detail::edge_list_columns("source,target,weight\n1,2,3\n").named, 0u);
  EXPECT_EQ(io::detail::edge_list_columns(",source,target\n0,1,2\n").named, 0u);
  EXPECT_EQ(io::detail::edge_list_columns("Source,Target,Type\n1,2,x\n").named, 3u);
  expect_parse_error("Source,Target,Type,Weight\n1,2,Directed,1\n2,3,Directed\n", "g.csv", 3,
                     "found 3 fields where the header names 4");
  expect_parse_error("Source,Target,Label\n1,2,\"open\n", "g.csv", 2, "double quote is not closed");
  expect_parse_error("Source,Target,Weight,Type\n1,2,heavy,x\n", "g.csv", 2,
                     "weight 'heavy' is not a finite number");
  expect_parse_error("Id,Source,Target\n0,alice,bob\n1,bob,\n", "g.csv", 3, "target name is an empty field");
}

// Edge lists of vertex names: networkx's write_edgelist of a graph of
// strings (with and without its data), igraph's ncol, a CSV with quoted
// names, Gephi's table of names. Vertices in order of first appearance.
TEST(io_snap, VertexNames) {
  const auto names = [](const io::snap_graph& g) { return g.name; };
  using strings = std::vector<std::string>;
  for (const char* name : {"g.txt", "g.edgelist", "graph"}) {
    const auto m = io::parse_matrix("alice bob\nbob carol\ncarol alice\ndave alice\n", name);
    EXPECT_EQ(m.name, (strings{"alice", "bob", "carol", "dave"})) << name;
    EXPECT_TRUE(m.label.empty());
    EXPECT_EQ(m.matrix.row_idx, (std::vector<index_t>{0, 1, 2, 3})) << name;
    EXPECT_EQ(m.matrix.col_idx, (std::vector<index_t>{1, 2, 0, 0})) << name;
    EXPECT_EQ(m.naming()(3), "dave");
    EXPECT_EQ(m.naming().json(3), "\"dave\"");
  }
  // Every token a name once the first edge names its vertices: "7" and "007" are two.
  auto g = io::parse_snap("a b\nb 7x\n7x 007\n", "g.txt");
  EXPECT_EQ(names(g), (strings{"a", "b", "7x", "007"}));
  // (A line of words over ids is their header.)
  EXPECT_EQ(io::parse_snap("a b\n7 007\n", "g.txt").original_id, (std::vector<std::int64_t>{7}));
  g = io::parse_snap("alice 7\n7 bob\n", "g.txt");
  EXPECT_EQ(names(g), (strings{"alice", "7", "bob"}));
  // networkx's data: the weight from the dict, 1 without one; a header is never a dict line.
  g = io::parse_snap("alice bob {}\nbob carol {'weight': 2.5}\n", "g.edgelist");
  EXPECT_TRUE(g.weighted);
  EXPECT_EQ(names(g), (strings{"alice", "bob", "carol"}));
  EXPECT_EQ(g.matrix.values, (std::vector<double>{1.0, 2.5}));
  // A header: commas, or names of columns; quoted names hold commas and quotes.
  g = io::parse_snap("user,friend,weight\n\"Smith, J\",bob,2\nbob,\"say \"\"hi\"\"\",0.5\n", "g.csv");
  EXPECT_EQ(names(g), (strings{"Smith, J", "bob", "say \"hi\""}));
  EXPECT_EQ(g.matrix.values, (std::vector<double>{2.0, 0.5}));
  // A tab in a quoted name (a spreadsheet's cell, a name --output wrote) is
  // the name's; one unquoted is a control character.
  g = io::parse_snap("a,b\n\"x\ty\",z\nz,\"x\ty\"\n", "g.csv");
  EXPECT_EQ(names(g), (strings{"x\ty", "z"}));
  g = io::parse_snap("\"x\ty\" z\nz \"x\ty\"\n", "g.txt");
  EXPECT_EQ(names(g), (strings{"x\ty", "z"}));
  expect_parse_error("alice bob\nbob carol\ncarol da\x01ve\n", "g.txt", 3, "holds a control character");
  g = io::parse_snap("source target\nalice bob\n", "g.txt");
  EXPECT_EQ(names(g), (strings{"alice", "bob"}));
  // Two words between blanks are the first edge (networkx writes no header).
  g = io::parse_snap("user follower\nalice bob\n", "g.txt");
  EXPECT_EQ(names(g), (strings{"user", "follower", "alice", "bob"}));
  // ... and so is a lone line of two words: the list's one edge. A header
  // alone (columns by name, or commas) is a list of no edges.
  for (const char* text : {"alice bob\n", "alice bob", "# one edge\nalice bob\n\n"}) {
    g = io::parse_snap(text, "g.txt");
    EXPECT_EQ(names(g), (strings{"alice", "bob"})) << text;
    EXPECT_EQ(g.matrix.nnz(), 1u) << text;
  }
  g = io::parse_snap("alice bob 2.5\n", "g.txt");
  EXPECT_EQ(g.matrix.values, (std::vector<double>{2.5}));
  EXPECT_EQ(io::parse_snap("source target\n", "g.txt").matrix.nnz(), 0u);
  EXPECT_EQ(io::parse_snap("user,friend\n", "g.csv").matrix.nnz(), 0u);
  // pandas' index column and Gephi's columns by name.
  g = io::parse_snap(",source,target\n0,alice,bob\n1,bob,alice\n", "g.csv");
  EXPECT_EQ(names(g), (strings{"alice", "bob"}));
  EXPECT_EQ(g.matrix.nnz(), 2u);
  g = io::parse_snap("Id,Target,Source,Weight\n0,bob,alice,3\n", "g.csv");
  EXPECT_EQ(names(g), (strings{"alice", "bob"}));
  EXPECT_EQ(g.matrix.values, (std::vector<double>{3.0}));
  // KONECT's time column, checked and dropped.
  g = io::parse_snap("alice bob 1 1500000000\n", "g.txt");
  EXPECT_EQ(g.matrix.nnz(), 1u);
  // Errors name the line: a field count, a weight, an empty name, a name among ids.
  expect_parse_error("alice bob\nbob carol dave\n", "g.txt", 2,
                     "found 3 fields where the list's lines have 2");
  expect_parse_error("alice bob 1\nbob carol x\n", "g.txt", 2, "weight 'x' is not a finite number");
  expect_parse_error("alice,bob\nbob,carol\n,carol\n", "g.csv", 3, "source name is an empty field");
  expect_parse_error("1 2\nalice bob\n", "g.txt", 2, "first edge gives integer ids");
  expect_parse_error("1 x\n", "g.txt", 1, "target id 'x' is not a non-negative integer");
  // Prose under no extension is no edge list, nor is one line of two words
  // there, unless read by name (--names: 'echo alice bob | pagerank --names -').
  for (const char* text : {"hello world\nthis is text\n", "hello world\n"}) {
    try {
      io::parse_matrix(text, "notes");
      ADD_FAILURE() << text;
    } catch (const parse_error& e) {
      EXPECT_NE(e.reason.find("unrecognized format"), std::string::npos) << e.what();
    }
  }
  io::read_options by_name;
  by_name.all_names = true;
  EXPECT_EQ(io::parse_matrix("alice bob\n", "-", by_name).name, (strings{"alice", "bob"}));
  EXPECT_EQ(io::detect_input_format("alice bob\n", "-", true), io::input_format::snap);
  EXPECT_THROW(io::parse_matrix("hello world\nthis is text\n", "notes", by_name), parse_error);
}

// read_options::all_names (pagerank --names): every vertex a name where the
// first edge gives integer ids too; the default still refuses such a list.
TEST(io_snap, AllNamesWhereTheFirstEdgeGivesIds) {
  using strings = std::vector<std::string>;
  io::read_options names;
  names.all_names = true;
  auto g = io::parse_snap("1 2\n2 alice\nalice 007\n007 7\n", "g.txt", names);
  EXPECT_EQ(g.name, (strings{"1", "2", "alice", "007", "7"}));
  EXPECT_TRUE(g.original_id.empty());
  EXPECT_EQ(g.matrix.row_idx, (std::vector<index_t>{0, 1, 2, 3}));
  EXPECT_EQ(g.matrix.col_idx, (std::vector<index_t>{1, 2, 3, 4}));
  // A header, weights and a pandas index, as without the option.
  g = io::parse_snap("from,to,weight\n10,20,0.5\n20,bob,2\n", "g.csv", names);
  EXPECT_EQ(g.name, (strings{"10", "20", "bob"}));
  EXPECT_EQ(g.matrix.values, (std::vector<double>{0.5, 2.0}));
  g = io::parse_snap(",source,target\n0,3,4\n1,4,x\n", "g.csv", names);
  EXPECT_EQ(g.name, (strings{"3", "4", "x"}));
  // Through load_matrix, and by chunks on every thread.
  std::string big;
  for (int i = 0; i < 20000; ++i) big += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  big += "20000 zed\n";
  names.chunk_bytes = 4096;
  const auto m = io::parse_matrix(big, "g.txt", names);
  EXPECT_EQ(m.name.size(), 20002u);
  EXPECT_EQ(m.name.back(), "zed");
  expect_parse_error("1 2\n2 alice\n", "g.txt", 2, "with --names (Python: names=True)");
}

// A first line of words between blanks over lines of ids: the columns'
// header read by ids (a note says so: header_of_words), the first edge where
// every field is a name; a header that names its columns (SNAP's FromNodeId
// ToNodeId too) or is split by commas stays a header either way.
using io_snap_files = test::scratch_test;

TEST_F(io_snap_files, WordsOverIdsAreAHeaderOrTheFirstEdgeByName) {
  using strings = std::vector<std::string>;
  io::read_options names;
  names.all_names = true;
  EXPECT_EQ(io::parse_snap("alice bob\n1 2\n2 3\n", "g.txt").matrix.nnz(), 2u);
  auto g = io::parse_snap("alice bob\n1 2\n2 3\n", "g.txt", names);
  EXPECT_EQ(g.name, (strings{"alice", "bob", "1", "2", "3"}));
  EXPECT_EQ(g.matrix.nnz(), 3u);
  g = io::parse_snap("# c\nalice bob 2\n1 2 1\n", "g.txt", names);
  EXPECT_EQ(g.name, (strings{"alice", "bob", "1", "2"}));
  EXPECT_EQ(g.matrix.values, (std::vector<double>{2.0, 1.0}));
  for (const char* text : {"FromNodeId ToNodeId\n1 2\n", "source target\n1 2\n", "user,follower\n1,2\n"}) {
    EXPECT_EQ(io::parse_snap(text, "g.txt", names).name, (strings{"1", "2"})) << text;
    EXPECT_EQ(io::parse_snap(text, "g.txt").matrix.nnz(), 1u) << text;
  }
  // Words that name columns ("node1 node2", "u v") but return as vertices
  // below are the first edge, with or without --names; "source target" over
  // names whose vertices are others stays a header.
  for (const char* text :
       {"node1 node2\nnode2 node3\nnode3 node1\n", "u v\nv w\nw u\n", "# x\nsrc dst\na b\nb src\n"})
    for (const auto& opt : {io::read_options{}, names}) {
      const auto e = io::parse_snap(text, "g.txt", opt);
      EXPECT_EQ(e.matrix.nnz(), 3u) << text;
      EXPECT_EQ(e.name.size(), 3u + (text[0] == '#')) << text;
    }
  EXPECT_EQ(io::parse_snap("source target\nalice bob\n", "g.txt").name, (strings{"alice", "bob"}));
  EXPECT_EQ(io::parse_snap("u,v\nv,w\n", "g.csv").name, (strings{"v", "w"}));  // commas: a header
  // A first line of names whose second line pairs a one-letter name with a
  // number ("B 1"): every field a name from the first line.
  EXPECT_EQ(io::parse_snap("A B\nB 1\n", "g.txt").name, (strings{"A", "B", "1"}));
  EXPECT_EQ(io::parse_snap("a b\n-1 c\n", "g.txt").name, (strings{"a", "b", "-1", "c"}));
  // --names: any field is a name, "-1", "1.0" and "x" beside a number too.
  EXPECT_EQ(io::parse_snap("-1 5\n5 -1\n", "g.txt", names).name, (strings{"-1", "5"}));
  EXPECT_EQ(io::parse_snap("1.0 2.0\n", "g.txt", names).name, (strings{"1.0", "2.0"}));
  EXPECT_EQ(io::parse_snap("A 1\n1 B\n", "g.txt", names).name, (strings{"A", "1", "B"}));
  EXPECT_EQ(io::parse_snap("source,target\nA,1\n1,B\n", "g.csv", names).name, (strings{"A", "1", "B"}));
  EXPECT_THROW(io::parse_snap("A 1\n1 B\n", "g.txt"), parse_error);  // a stray letter beside an id
  EXPECT_EQ(io::header_of_words(write("a.txt", "# c\nalice bob\n1 2\n")),
            (std::pair<std::string, std::uint64_t>{"alice bob", 2}));
  for (const char* text :
       {"alice bob\nbob carol\n", "source target\n1 2\n", "a,b\n1,2\n", "1 2\n", "alice bob\n"})
    EXPECT_EQ(io::header_of_words(write("b.txt", text)).second, 0u) << text;
}

// Weights survive the parallel parse: chunk by chunk (holes of comment lines
// packed away) as on one thread, errors at their lines.
TEST(io_snap, WeightsInEveryChunk) {
  std::string text = "u,v,w\n";
  for (int k = 1; k <= 3000; ++k) {
    text += std::to_string(k) + "," + std::to_string(k % 997 + 1) + "," + std::to_string(k) + ".25\n";
    if (k % 7 == 0) text += "# note\n";
  }
  const auto one = io::parse_snap(text, "g.csv");
  ASSERT_EQ(one.matrix.nnz(), 3000u);
  for (int k = 1; k <= 3000; ++k) ASSERT_EQ(one.matrix.values[k - 1], k + 0.25);
  for (std::size_t chunk : {std::size_t(50), std::size_t(2000)}) {
    io::read_options opt;
    opt.threads = 3;
    opt.chunk_bytes = chunk;
    expect_same_graph(one, io::parse_snap(text, "g.csv", opt));
    try {
      io::parse_snap(text + "5,6\n", "g.csv", opt);
      FAIL();
    } catch (const parse_error& e) {
      EXPECT_EQ(e.line, 3000u + 3000u / 7 + 2) << e.what();
    }
  }
}

}  // namespace
}  // namespace perron
