// GraphML, GML and Pajek files (io/graph_files.hpp): the published files in
// data/ read as the same graphs as their Matrix Market twins, names and
// weights as networkx reads them, and every malformed case one error with
// its line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/graph_files.hpp"
#include "io/load.hpp"
#include "io/text_input.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/support.hpp"
#include "tests/support/text_pieces.hpp"

namespace perron {
namespace {

using io_graph_files = test::scratch_test;

io::read_options no_cache() {
  io::read_options o;
  o.cache.enabled = false;
  return o;
}

// The arcs as (from, to, weight) triples, sorted: a graph whatever its order.
std::vector<std::tuple<index_t, index_t, double>> arcs(const coo_matrix<double>& a) {
  std::vector<std::tuple<index_t, index_t, double>> t;
  for (std::size_t e = 0; e < a.row_idx.size(); ++e) t.emplace_back(a.row_idx[e], a.col_idx[e], a.values[e]);
  std::sort(t.begin(), t.end());
  return t;
}

std::vector<std::tuple<index_t, index_t, double>> pattern_arcs(const coo_matrix<double>& a) {
  auto t = arcs(a);
  for (auto& x : t) std::get<2>(x) = 1;
  return t;
}

// Each file and the Matrix Market file of the same published network (Newman's
// and Zachary's sets, as SuiteSparse and cuGraph publish them): the same
// vertices in the same order, the same arcs.
TEST_F(io_graph_files, PublishedFilesAreTheirMatrixMarketTwins) {
  const std::string d = test::data_dir() + "/";
  struct twin {
    const char* file;
    const char* mtx;
    io::input_format format;
    bool weights;  // compare the values too
  };
  for (const twin& t : {twin{"karate.gml", "karate.mtx", io::input_format::gml, false},
                        twin{"karate.graphml", "karate.mtx", io::input_format::graphml, false},
                        twin{"dolphins.net", "dolphins.mtx", io::input_format::pajek, false},
                        twin{"polbooks.gml", "polbooks.mtx", io::input_format::gml, false}}) {
    SCOPED_TRACE(t.file);
    const auto g = io::load_matrix(d + t.file, no_cache());
    const auto m = io::load_matrix(d + t.mtx, no_cache());
    EXPECT_EQ(g.format, t.format);
    EXPECT_TRUE(g.symmetric);  // undirected: every edge both ways
    ASSERT_EQ(g.matrix.rows, m.matrix.rows);
    if (t.weights)
      EXPECT_EQ(arcs(g.matrix), arcs(m.matrix));
    else
      EXPECT_EQ(pattern_arcs(g.matrix), pattern_arcs(m.matrix));
  }
}

// Each vertex's weighted degree, sorted: one graph whatever the numbering.
std::vector<std::pair<double, std::size_t>> degrees(const coo_matrix<double>& a) {
  std::vector<std::pair<double, std::size_t>> d(static_cast<std::size_t>(a.rows));
  for (std::size_t e = 0; e < a.row_idx.size(); ++e) {
    auto& x = d[static_cast<std::size_t>(a.row_idx[e])];
    x.first += a.values[e];
    ++x.second;
  }
  for (auto& x : d) x.first = std::round(x.first * 1e9) / 1e9;  // sums in another order
  std::sort(d.begin(), d.end());
  return d;
}

// netscience in Pajek (Newman's weights) and as cuGraph numbers it: the
// same weighted graph up to the vertices' numbering.
TEST_F(io_graph_files, NetscienceIsItsMatrixMarketTwinUpToNumbering) {
  const std::string d = test::data_dir() + "/";
  const auto g = io::load_matrix(d + "netscience.net", no_cache());
  const auto m = io::load_matrix(d + "netscience.mtx", no_cache());
  EXPECT_EQ(g.matrix.rows, 1589);
  EXPECT_EQ(g.matrix.nnz(), m.matrix.nnz());
  EXPECT_EQ(degrees(g.matrix), degrees(m.matrix));
}

TEST_F(io_graph_files, VerticesAreNamedAsTheFileNamesThem) {
  const std::string d = test::data_dir() + "/";
  // GML: labels where every node has its own, else the ids.
  const auto karate = io::load_matrix(d + "karate.gml", no_cache());
  EXPECT_TRUE(karate.name.empty());
  ASSERT_EQ(karate.label.size(), 34u);
  EXPECT_EQ(karate.label.front(), 1);
  EXPECT_EQ(karate.label.back(), 34);
  const auto lesmis = io::load_matrix(d + "lesmis.gml", no_cache());
  ASSERT_EQ(lesmis.name.size(), 77u);
  EXPECT_EQ(lesmis.name[11], "Valjean");
  EXPECT_FALSE(lesmis.pattern);  // Newman's `value` weighs the edges
  EXPECT_EQ(lesmis.matrix.nnz(), 2u * 254u);
  // GraphML: the ids.
  const auto graphml = io::load_matrix(d + "karate.graphml", no_cache());
  ASSERT_EQ(graphml.name.size(), 34u);
  EXPECT_EQ(graphml.name[0], "1");
  // Pajek: quoted labels; without them the numbers (vertex i is i + 1).
  const auto dolphins = io::load_matrix(d + "dolphins.net", no_cache());
  ASSERT_EQ(dolphins.name.size(), 62u);
  EXPECT_EQ(dolphins.name[0], "Beak");
  EXPECT_EQ(io::load_matrix(write("n.net", "*Vertices 3\n*Arcs\n1 2\n3 1\n"), no_cache()).naming()(2), "3");
}

TEST_F(io_graph_files, DirectedGraphsAndWeightsAsNetworkxWritesThem) {
  // networkx 3's write_graphml, write_gml and write_pajek of a DiGraph with
  // weights and string nodes (one vertex no edge touches).
  const std::string graphml =
      "<?xml version='1.0' encoding='utf-8'?>\n"
      "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">"
      "<key id=\"d0\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\" />\n"
      "<graph edgedefault=\"directed\"><node id=\"a\" />\n<node id=\"b\" />\n<node id=\"c\" />\n"
      "<node id=\"lone\" />\n"
      "<edge source=\"a\" target=\"b\">\n  <data key=\"d0\">2.5</data>\n</edge>\n"
      "<edge source=\"b\" target=\"c\">\n  <data key=\"d0\">1.0</data>\n</edge>\n"
      "<edge source=\"c\" target=\"a\">\n  <data key=\"d0\">0.5</data>\n</edge>\n"
      "</graph></graphml>\n";
  const std::string gml =
      "graph [\n  directed 1\n  node [\n    id 0\n    label \"a\"\n  ]\n  node [\n    id 1\n    label "
      "\"b\"\n  ]\n"
      "  node [\n    id 2\n    label \"c\"\n  ]\n  node [\n    id 3\n    label \"lone\"\n  ]\n"
      "  edge [\n    source 0\n    target 1\n    weight 2.5\n  ]\n  edge [\n    source 1\n    target 2\n"
      "    weight 1.0\n  ]\n  edge [\n    source 2\n    target 0\n    weight 0.5\n  ]\n]\n";
  const std::string pajek =
      "*vertices 4\n1 a 0.0 0.0 ellipse\n2 b 0.0 0.0 ellipse\n3 c 0.0 0.0 ellipse\n4 lone 0.0 0.0 ellipse\n"
      "*arcs\n1 2 2.5\n2 3 1.0\n3 1 0.5\n";
  const std::vector<std::tuple<index_t, index_t, double>> want = {{0, 1, 2.5}, {1, 2, 1.0}, {2, 0, 0.5}};
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"g.graphml", graphml},
                                   {"g.gml", gml},
                                   {"g.net", pajek},
                                   {"graphml-no-extension", graphml},
                                   {"gml-no-extension", gml},
                                   {"pajek-no-extension", pajek}}) {
    SCOPED_TRACE(name);
    const auto g = io::load_matrix(write(name, text), no_cache());
    EXPECT_FALSE(g.symmetric);
    EXPECT_FALSE(g.pattern);
    EXPECT_EQ(g.matrix.rows, 4);
    EXPECT_EQ(arcs(g.matrix), want);
    EXPECT_EQ(g.name, (std::vector<std::string>{"a", "b", "c", "lone"}));
  }
}

TEST_F(io_graph_files, MixedEdgesDefaultsAndEntities) {
  // GraphML: an edge's own directed over edgedefault; the weight key's
  // default; an undeclared end declared where it appears; a loop once.
  const auto g = io::load_matrix(
      write("m.graphml",
            "<graphml><key id=\"w\" for=\"edge\" attr.name=\"Weight\"><default>3</default></key>"
            "<graph edgedefault=\"undirected\"><node id=\"x\"/><node id=\"y\"/>"
            "<edge source=\"x\" target=\"y\" directed=\"true\"/>"
            "<edge source=\"y\" target=\"z\"><data key=\"w\">2</data></edge>"
            "<edge source=\"z\" target=\"z\"/></graph></graphml>"),
      no_cache());
  EXPECT_FALSE(g.symmetric);
  EXPECT_EQ(g.name, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(arcs(g.matrix), (std::vector<std::tuple<index_t, index_t, double>>{
                                {0, 1, 3.0}, {1, 2, 2.0}, {2, 1, 2.0}, {2, 2, 3.0}}));
  // networkx numbers the <node>s first, then an edge's undeclared ends.
  const auto order = io::load_matrix(write("o.graphml",
                                           "<graphml><graph edgedefault=\"directed\">"
                                           "<edge source=\"c\" target=\"a\"/><node id=\"b\"/>"
                                           "<node id=\"a\"/></graph></graphml>"),
                                     no_cache());
  EXPECT_EQ(order.name, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(arcs(order.matrix), (std::vector<std::tuple<index_t, index_t, double>>{{2, 1, 1.0}}));
  // GML: entities in labels (networkx escapes so), comments, nested lists skipped.
  const auto m =
      io::load_matrix(write("e.gml",
                            "# made by hand\nCreator \"x\"\ngraph [ node [ id 7 label \"caf&#233; "
                            "&quot;b&quot;\" graphics [ x 1 y "
                            "2 ] ] node [ id 9 label \"d&amp;e\" ] edge [ source 7 target 9 ] ]\n"),
                      no_cache());
  EXPECT_TRUE(m.symmetric);
  EXPECT_EQ(m.name, (std::vector<std::string>{"caf\xC3\xA9 \"b\"", "d&e"}));
  // Pajek: *Edgeslist and *Arcslist, labels with blanks, '%' comments, a
  // repeated label (the numbers then name the vertices).
  const auto p =
      io::load_matrix(write("l.net",
                            "% comment\n*Network x\n*Vertices 3\n1 \"New York\"\n2 \"B\"\n3 \"B\"\n"
                            "*Arcslist\n1 2 3\n*Edgeslist\n2 3\n"),
                      no_cache());
  EXPECT_TRUE(p.name.empty());
  EXPECT_EQ(pattern_arcs(p.matrix),
            (std::vector<std::tuple<index_t, index_t, double>>{{0, 1, 1}, {0, 2, 1}, {1, 2, 1}, {2, 1, 1}}));
}

// Compressed whole (Netzschleuder serves .gml.zst and .graphml.zst): the text
// libarchive inflates, told by its name or its content. libarchive's mtree
// reader, which perron no longer asks, took such a GML for an mtree.
TEST_F(io_graph_files, CompressedWholeByName) {
  try {
    io::load_matrix(test::data_dir() + "/karate.tar.gz", no_cache());
  } catch (const not_supported&) {
    GTEST_SKIP() << "built without libarchive";
  }
  const auto plain = io::load_matrix(test::data_dir() + "/lesmis.gml", no_cache());
  int made = 0;
  for (const char* tool : {"bzip2", "xz", "zstd -q"}) {
    const std::string ext = std::string(tool) == "bzip2" ? ".bz2"
                            : std::string(tool) == "xz"  ? ".xz"
                                                         : ".zst";
    const std::string named = path("lesmis.gml" + ext);
    const std::string command =
        std::string(tool) + " -c '" + test::data_dir() + "/lesmis.gml' > '" + named + "' 2>/dev/null";
    if (std::system(command.c_str()) != 0) continue;
    ++made;
    for (const std::string& source : {named, copy(named, "download" + ext.substr(1))}) {
      SCOPED_TRACE(source);
      const auto g = io::load_matrix(source, no_cache());
      EXPECT_EQ(g.format, io::input_format::gml);
      EXPECT_EQ(g.name, plain.name);
      EXPECT_EQ(arcs(g.matrix), arcs(plain.matrix));
    }
  }
  if (made == 0) GTEST_SKIP() << "none of bzip2, xz, zstd made its file";
}

// In an archive a graph file comes before an edge list: Newman's karate.zip
// holds karate.gml beside karate.txt, prose that was read as an edge list
// and refused. Of two graph files the one named like the archive is read;
// a .mtx comes before both.
TEST_F(io_graph_files, ArchivesGiveTheirGraphFile) {
  try {
    io::load_matrix(test::data_dir() + "/karate.tar.gz", no_cache());
  } catch (const not_supported&) {
    GTEST_SKIP() << "built without libarchive";
  }
  const std::string d = test::data_dir();
  const auto gml = io::load_matrix(d + "/karate.gml", no_cache());
  const auto lesmis = io::load_matrix(d + "/lesmis.gml", no_cache());
  const auto run = [&](const std::string& command) {
    return std::system(("cd '" + path("") + "' && (" + command + ") >/dev/null 2>&1").c_str()) == 0;
  };
  ASSERT_TRUE(
      run("mkdir -p newman two both && cp '" + d + "/karate.gml' newman/ && " +
          "printf 'The file karate.gml contains the network of friendships.\\n' > newman/karate.txt && "
          "cp '" +
          d + "/lesmis.gml' '" + d + "/karate.graphml' two/ && " +
          "printf 'Two graphs.\\n' > two/lesmis.txt && "
          "cp '" +
          d + "/karate.gml' '" + d + "/karate.mtx' both/"));
  std::vector<std::string> newman;
  if (run("cd newman && tar -cf ../karate.tar karate.txt karate.gml")) newman.push_back(path("karate.tar"));
  if (run("cd newman && zip -q ../karate.zip karate.txt karate.gml")) newman.push_back(path("karate.zip"));
  ASSERT_FALSE(newman.empty());
  for (const std::string& archive : newman) {
    SCOPED_TRACE(archive);
    const auto g = io::load_matrix(archive, no_cache());
    EXPECT_EQ(g.format, io::input_format::gml);
    EXPECT_EQ(arcs(g.matrix), arcs(gml.matrix));
  }
  ASSERT_TRUE(run("cd two && tar -czf ../lesmis.tar.gz karate.graphml lesmis.txt lesmis.gml"));
  const auto named = io::load_matrix(path("lesmis.tar.gz"), no_cache());
  EXPECT_EQ(named.format, io::input_format::gml);
  EXPECT_EQ(named.name, lesmis.name);
  EXPECT_EQ(arcs(named.matrix), arcs(lesmis.matrix));
  ASSERT_TRUE(run("cd two && tar -czf ../graphs.tar.gz karate.graphml lesmis.gml"));
  try {
    io::load_matrix(path("graphs.tar.gz"), no_cache());
    ADD_FAILURE() << "one of two graph files was taken";
  } catch (const parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("several graph files"), std::string::npos) << e.what();
  }
  ASSERT_TRUE(run("cd both && tar -cf ../club.tar karate.gml karate.mtx"));
  EXPECT_EQ(io::load_matrix(path("club.tar"), no_cache()).format, io::input_format::matrix_market);
}

TEST_F(io_graph_files, CachedAsRead) {
  io::read_options o;
  o.cache.enabled = true;
  o.cache.dir = path("cache");
  const std::string f = write("c.gml",
                              "graph [ node [ id 1 label \"p\" ] node [ id 2 label \"q\" ] "
                              "edge [ source 1 target 2 value 4 ] ]");
  const auto first = io::load_matrix(f, o);
  const auto again = io::load_matrix(f, o);
  EXPECT_TRUE(again.timings.from_cache);
  EXPECT_EQ(again.format, io::input_format::gml);
  EXPECT_EQ(again.symmetric, first.symmetric);
  EXPECT_EQ(again.pattern, first.pattern);
  EXPECT_EQ(again.name, first.name);
  EXPECT_EQ(arcs(again.matrix), arcs(first.matrix));
}

// *Vertices may claim more vertices than the file has lines: nothing is
// allocated per claimed vertex while reading (the solver's memory check then
// says what the graph needs, as for a Matrix Market size line).
TEST_F(io_graph_files, DeclaredVerticesAllocateNothingUntilUsed) {
  const auto g = io::load_matrix(write("v.net", "*Vertices 2000000000\n1 \"a\"\n*Arcs\n1 2\n"), no_cache());
  EXPECT_EQ(g.matrix.rows, 2000000000);
  EXPECT_EQ(g.matrix.nnz(), 1u);
  EXPECT_TRUE(g.name.empty() && g.label.empty());
}

// GML is read window by window (a large file is never held whole): a token
// cut by a window's end, a string that spans several windows, a comment that
// runs past one, give the graph and the lines the whole text gives.
TEST_F(io_graph_files, GmlAcrossWindowsIsTheWholeText) {
  const auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string d = test::data_dir() + "/";
  const std::string mine =
      "\xEF\xBB\xBF# a comment that runs on\r\ngraph [ directed 1 comment \"a string\nof two lines\"\n"
      "  node [ id 17 label \"caf&#233; &amp; \"\n]  node [ id -5 label \"x\" ]\n"
      "  edge [ source 17 target -5 weight 2.5 ] edge [ source -5 target 17 value 1e2 ]\n";
  const std::vector<std::string> texts = {
      read(d + "lesmis.gml"), read(d + "karate.gml"), mine + "]\n",
      mine + "  edge [ source 17 target 17 weight INF ]\n]\n",  // refused at line 7
      "graph [\n node [ id 1 label \"open\n\n"};                // a string left open: line 2
  const auto whole = [](const std::string& text) {
    io::detail::whole_text w(text);
    return io::detail::parse_gml(w, "g.gml");
  };
  const auto g = whole(texts[2]);
  EXPECT_EQ(g.name, (std::vector<std::string>{"caf\xC3\xA9 & ", "x"}));
  EXPECT_EQ(arcs(g.matrix), (std::vector<std::tuple<index_t, index_t, double>>{{0, 1, 2.5}, {1, 0, 100}}));
  for (std::size_t t = 0; t < texts.size(); ++t) {
    std::string what;
    io::declared_graph want;
    try {
      want = whole(texts[t]);
    } catch (const parse_error& e) {
      what = e.what();
      EXPECT_EQ(e.line, t == 3 ? 7u : 2u) << e.what();
      EXPECT_NE(e.reason.find(t == 3 ? "'INF' is not a finite number" : "not closed"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(what.empty(), t < 3) << what;
    for (std::size_t size : {1, 2, 3, 5, 7, 64, 1000}) {
      test::text_pieces windows(texts[t], size);
      try {
        const auto got = io::detail::parse_gml(windows, "g.gml");
        ASSERT_TRUE(what.empty()) << "text " << t << " read in pieces of " << size
                                  << ", refused whole: " << what;
        EXPECT_EQ(arcs(got.matrix), arcs(want.matrix)) << size;
        EXPECT_EQ(got.matrix.rows, want.matrix.rows) << size;
        EXPECT_EQ(got.name, want.name) << size;
        EXPECT_EQ(got.original_id, want.original_id) << size;
        EXPECT_EQ(got.weighted, want.weighted) << size;
        EXPECT_EQ(got.undirected, want.undirected) << size;
      } catch (const parse_error& e) {
        EXPECT_EQ(std::string(e.what()), what) << "text " << t << " in pieces of " << size;
      }
    }
  }
  // Through the file's own windows (whole lines; a plain GML file is read so).
  const auto lesmis = io::load_matrix(d + "lesmis.gml", no_cache());
  const auto windows = io::detail::open_file_windows(d + "lesmis.gml", 4096);
  const auto got = io::detail::parse_gml(*windows, "lesmis.gml");
  EXPECT_EQ(got.name, lesmis.name);
  EXPECT_EQ(arcs(got.matrix), arcs(lesmis.matrix));
}

void expect_error(const std::string& path, std::uint64_t line, const std::string& words) {
  try {
    io::load_matrix(path, no_cache());
    ADD_FAILURE() << path << " read without an error";
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, line) << e.what();
    EXPECT_NE(e.reason.find(words), std::string::npos) << e.what();
  }
}

// GML's ids are integers looked up as such: dense ones (networkx's 0..n-1,
// Newman's 1..n) through a table, sparse ones (to both ends of int64) by
// search; an edge may come before its nodes; an id declared twice is named
// at its earliest repeat, whichever way it is looked up.
TEST_F(io_graph_files, GmlIdsDenseOrSparse) {
  const std::string dense =
      "graph [ directed 1\n edge [ source 3 target 1 ]\n node [ id 3 ] node [ id 1 ] node [ id 2 ]\n"
      " edge [ source 1 target 2 ] ]\n";
  const auto d = io::load_matrix(write("dense.gml", dense), no_cache());
  EXPECT_EQ(d.label, (std::vector<std::int64_t>{3, 1, 2}));
  EXPECT_EQ(pattern_arcs(d.matrix),
            (std::vector<std::tuple<index_t, index_t, double>>{{0, 1, 1}, {1, 2, 1}}));
  const std::string sparse =
      "graph [ directed 1\n node [ id 9223372036854775807 ] node [ id -9223372036854775808 ]\n"
      " node [ id 1000000000000 ] node [ id -5 ]\n edge [ source -5 target 9223372036854775807 ]\n"
      " edge [ source 1000000000000 target -9223372036854775808 ] ]\n";
  const auto g = io::load_matrix(write("sparse.gml", sparse), no_cache());
  EXPECT_EQ(g.label, (std::vector<std::int64_t>{INT64_MAX, INT64_MIN, 1000000000000, -5}));
  EXPECT_EQ(pattern_arcs(g.matrix),
            (std::vector<std::tuple<index_t, index_t, double>>{{2, 1, 1}, {3, 0, 1}}));
  expect_error(write("twice-sparse.gml",
                     "graph [\n node [ id 900000000000 ]\n node [ id 5 ]\n node [ id 7 ]\n"
                     " node [ id 900000000000 ]\n node [ id 5 ]\n]"),
               5, "node id 900000000000 is declared twice");
  expect_error(
      write("twice-dense.gml", "graph [\n node [ id 2 ]\n node [ id 1 ]\n node [ id 2 ]\n node [ id 1 ]\n]"),
      4, "node id 2 is declared twice");
  expect_error(
      write("missing-sparse.gml",
            "graph [\n node [ id 0 ] node [ id 800000000000 ]\n edge [ source 0 target 400000000000 ]\n]"),
      3, "the edge's target 400000000000 is no node's id");
}

TEST_F(io_graph_files, BadFilesGiveOneErrorWithTheirLine) {
  expect_error(write("a.graphml", "<graphml><graph>\n<node id=\"a\">\n</graph></graphml>"), 3,
               "not well-formed");
  expect_error(write("b.graphml", "<?xml version=\"1.0\"?>\n<gexf></gexf>"), 2, "not GraphML");
  expect_error(write("c.graphml", "<graphml><graph/>\n<graph/></graphml>"), 2, "a second <graph>");
  expect_error(write("d.graphml", "<graphml><graph>\n<hyperedge/></graph></graphml>"), 2, "hyperedge");
  expect_error(write("e.graphml",
                     "<graphml><key id=\"w\" for=\"edge\" attr.name=\"weight\"/><graph>\n"
                     "<edge source=\"a\" target=\"b\"><data key=\"w\">heavy</data></edge></graph></graphml>"),
               2, "edge weight 'heavy' is not a finite number");
  expect_error(write("f.graphml", "<graphml><graph>\n<node/></graph></graphml>"), 2, "a <node> with no id");
  // A weight key declared after the edges that use it (they read unweighted),
  // and a <data> of a key never declared (networkx: "no key").
  expect_error(write("h.graphml",
                     "<graphml><graph edgedefault=\"directed\">\n<edge source=\"a\" target=\"b\">"
                     "<data key=\"w\">3</data></edge></graph>\n"
                     "<key id=\"w\" for=\"edge\" attr.name=\"weight\"/></graphml>"),
               3, "the weight key 'w' is declared after edges that use it (line 2)");
  expect_error(write("i.graphml",
                     "<graphml><graph>\n<node id=\"a\"><data key=\"d0\">x</data></node>\n"
                     "<edge source=\"a\" target=\"a\"><data key=\"w\">3</data></edge></graph></graphml>"),
               2, "a <data> of key 'd0', which no <key> declares");
  // A key of another attribute declared late is no matter to the graph.
  EXPECT_EQ(io::load_matrix(write("j.graphml",
                                  "<graphml><graph>\n<node id=\"a\"><data key=\"d0\">x</data>"
                                  "</node></graph><key id=\"d0\" attr.name=\"color\"/></graphml>"),
                            no_cache())
                .matrix.rows,
            1);
  expect_error(write("g.graphml", ""), 0, "empty GraphML");
  expect_error(write("a.gml", "graph [\n node [ id 1 ]\n edge [ source 1 target 2 ]\n]"), 3,
               "the edge's target 2 is no node's id");
  expect_error(write("b.gml", "graph [\n node [ id 1 ]\n node [ id 1 ]\n]"), 3,
               "node id 1 is declared twice");
  expect_error(write("c.gml", "graph [\n node [ id 1 ]\n"), 1, "not closed");
  expect_error(write("d.gml", "graph [\n node [ label \"x\" ]\n]"), 2, "a node with no id");
  expect_error(
      write("e.gml", "graph [\n node [ id 1 ] node [ id 2 ]\n edge [ source 1 target 2 weight nan ]\n]"), 3,
      "key 'weight' has no value (found 'nan')");
  expect_error(write("f.gml", "graph [\n edge [ source 1 target 2 weight INF ]\n]"), 2,
               "not a finite number");
  expect_error(write("g.gml", "graph [\n node [ id 1 label \"x ]\n]"), 2, "not closed");
  expect_error(write("h.gml", "graph [ ]\ngraph [ ]"), 2, "a second graph");
  expect_error(write("a.net", "*Vertices 2\n*Arcs\n1 3\n"), 3, "3 is beyond the 2 vertices");
  expect_error(write("b.net", "*Vertices 2\n*Arcs\n1 2 1.5x\n"), 3, "weight '1.5x' is not a finite number");
  // nan and inf are no attributes (they read as no weight, 1); Pajek's attributes stay skipped.
  expect_error(write("b2.net", "*Vertices 2\n*Arcs\n1 2 nan\n"), 3, "weight 'nan' is not a finite number");
  expect_error(write("b3.net", "*Vertices 2\n*Edges\n1 2 Inf c Blue\n"), 3,
               "weight 'Inf' is not a finite number");
  EXPECT_EQ(io::load_matrix(write("b4.net", "*Vertices 2\n*Arcs\n1 2 c Blue\n")).matrix.nnz(), 1u);
  expect_error(write("c.net", "1 2\n"), 1, "a line before *Vertices");
  expect_error(write("d.net", "*Arcs\n1 2\n"), 1, "*Arcs before *Vertices");
  expect_error(write("e.net", "*Vertices two\n"), 1, "needs the number of vertices");
  expect_error(write("f.net", "*Vertices 2\n*Arcs\n1 x\n"), 3, "'x' is not a vertex number");
  expect_error(write("g.net", "*Network a\n*Vertices 1\n*Network b\n"), 3, "a second network");
  expect_error(write("h.net", "*Vertices 1\n*Vertices 1\n"), 2, "a second *Vertices");
  expect_error(write("i.net", "*Vertices 2\n*Matrix\n0 1\n1 0\n1 1\n"), 5, "more than the 2 rows");
  // *Matrix: one row a line, every row there (a short row shifted the values after it).
  expect_error(write("j.net", "*Vertices 3\n*Matrix\n0 1 0\n1 1\n0 1 0\n"), 4,
               "row 2 of *Matrix holds 2 values; *Vertices declares 3");
  expect_error(write("k.net", "*Vertices 3\n*Matrix\n0 1 0\n"), 0,
               "*Matrix (line 2) ends after 1 of the 3 rows *Vertices declares");
  expect_error(write("l.net", "*Vertices 3\n*Matrix\n0 1 0\n1 0 1\n*Arcs\n1 2\n"), 5,
               "*Matrix (line 2) ends after 2 of the 3 rows");
  EXPECT_EQ(
      io::load_matrix(write("m.net", "*Vertices 3\n*Matrix\n0 1 0\n1 0 1\n0 1 0\n*Arcs\n1 3\n")).matrix.nnz(),
      5u);
}

}  // namespace
}  // namespace perron
