// pagerank --sources as a user runs it: the top-K TSV per source line, the
// rank matrix of --output-matrix, and one clear error with the line for bad files.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/device.hpp"
#include "io/load.hpp"
#include "io/matrix_market.hpp"
#include "solvers/pagerank_batched.hpp"
#include "tests/pagerank_reference.hpp"
#include "tests/support/app_runner.hpp"

namespace perron::test {
namespace {

class pagerank_sources_app : public app_test {
 protected:
  pagerank_sources_app() : app_test("pagerank") {}

  outcome run(const std::vector<std::string>& args) {
    std::string cmd =
        "XDG_CACHE_HOME=" + quote((dir_ / "xdg-cache").string()) + " " + quote(app_path("pagerank"));
    for (const auto& a : args) cmd += " " + quote(a);
    return run_command(cmd, dir_);
  }
};

// The single-source solve of graph `g` with personalization `s` (double, tol 1e-12).
std::vector<double> single(const std::string& graph, const source_set& s) {
  const io::loaded_matrix m = io::load_matrix(graph);
  const auto g = make_pagerank_graph<double>(m.matrix, false);
  pagerank_options o;
  o.tol = 1e-12;
  o.personalization = detail::dense_personalization(s, g.vertices());
  const rank_vector r = pagerank_cpu(g, o).rank;
  return std::vector<double>(r.begin(), r.end());
}

TEST_F(pagerank_sources_app, TopPerSourceAndMatrix) {
  const auto karate = find_graph("karate.mtx");
  if (!karate) GTEST_SKIP() << "karate.mtx not found";
  const std::string sources = write("s.txt", "1 2:0.5\n# a comment\n34\n");
  const std::string matrix = path("ranks.mtx");
  const outcome o = run({*karate, "--sources", sources, "--top", "2", "--precision", "double", "--tol",
                         "1e-12", "--device", "cpu", "--output-matrix", matrix});
  ASSERT_EQ(o.code, 0) << o.err;
  std::istringstream tsv(o.out);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(tsv, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << o.out;
  EXPECT_EQ(lines[0], "source_line\tvertex\trank");
  EXPECT_EQ(lines[1].substr(0, 4), "1\t1\t");  // a source ranks highest in its own set
  EXPECT_EQ(lines[3].substr(0, 5), "3\t34\t");
  EXPECT_NE(o.err.find("2 of 2 converged"), std::string::npos) << o.err;

  const io::mm_array m = io::read_matrix_market_array(matrix);
  ASSERT_EQ(m.header.rows, 34);
  ASSERT_EQ(m.header.cols, 2);
  const std::vector<source_set> sets{{{0, 1.0}, {1, 0.5}}, {{33, 1.0}}};
  for (std::size_t c = 0; c < 2; ++c) {
    const auto ref = single(*karate, sets[c]);
    for (std::size_t i = 0; i < 34; ++i)
      EXPECT_NEAR(m.values[c * 34 + i], ref[i], 1e-9) << "vertex " << i + 1 << ", set " << c;
  }
  EXPECT_NE(slurp(matrix).find("\n% rows: vertices 1 to 34\n"), std::string::npos);
  // Where the file gives its own ids, the header says which vertex the rows start and end at.
  const std::string ids = write("ids.txt", "30 10\n10 20\n20 30\n");
  ASSERT_EQ(
      run({ids, "--sources", write("i.txt", "10\n"), "--device", "cpu", "--output-matrix", matrix}).code, 0);
  EXPECT_NE(slurp(matrix).find(
                "\n% rows: the graph's vertices in --output's order, row 1 vertex 10, row 3 vertex 30\n"),
            std::string::npos)
      << slurp(matrix);
  // Names with blanks or commas quoted as --output quotes them ("Abramson, G" was one name or two).
  const std::string named =
      write("named.txt", "\"Kuperman, M\" \"Abramson, G\"\n\"Abramson, G\" bob\nbob \"Kuperman, M\"\n");
  ASSERT_EQ(
      run({named, "--sources", write("b.txt", "bob\n"), "--device", "cpu", "--output-matrix", matrix}).code,
      0);
  EXPECT_NE(slurp(matrix).find("\n% rows: the graph's vertices in --output's order, row 1 vertex \"Abramson, "
                               "G\", row 3 vertex \"Kuperman, M\"\n"),
            std::string::npos)
      << slurp(matrix);
}

TEST_F(pagerank_sources_app, SnapIdsAndOutputFile) {
  const std::string graph = write("g.txt", "# SNAP\n10 20\n20 30\n30 10\n30 40\n");
  const std::string out = path("top.tsv");
  const outcome o = run({graph, "--sources", write("s.txt", "40\n10 30:2\n"), "--top", "1", "--output", out});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(o.out.empty()) << o.out;
  const std::string tsv = slurp(out);
  EXPECT_EQ(tsv.substr(0, tsv.find('\n')), "source_line\tvertex\trank");
  EXPECT_NE(tsv.find("\n1\t40\t"), std::string::npos) << tsv;
  EXPECT_NE(tsv.find("\n2\t"), std::string::npos) << tsv;
}

// The matrix and the top file replace their targets together: a failure on
// the second had left the first replaced.
TEST_F(pagerank_sources_app, AFailedOutputLeavesTheMatrixAsItWas) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string graph = write("g.txt", "1 2\n2 3\n3 1\n");
  const std::string matrix = write("m.mtx", "old matrix\n");
  const outcome o = run({graph, "--sources", write("s.txt", "1\n2\n"), "--device", "cpu", "--output-matrix",
                         matrix, "--output", "/dev/full"});
  EXPECT_EQ(o.code, 66) << o.err;
  EXPECT_EQ(slurp(matrix), "old matrix\n");
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST_F(pagerank_sources_app, BadFilesNameTheLine) {
  const std::string graph =
      write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 5 4\n1 2\n2 3\n3 1\n3 4\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1\n\n2\n", ":2: empty line"},
      {"1 2\n6\n", ":2: vertex 6 is not in the graph"},
      {"1:-2\n", ":1: vertex 1: weight -2"},
      {"1 2:nan\n", ":1: vertex 2: weight 'nan' is not a finite number"},
      {"1 2.5\n", ":1: expected 'vertex' or 'vertex:weight', got '2.5'"},
  };
  for (const auto& [text, message] : cases) {
    const std::string sources = write("bad.txt", text);
    const outcome o = run({graph, "--sources", sources});
    EXPECT_EQ(o.code, 65) << text;
    EXPECT_NE(o.err.find(sources + message), std::string::npos) << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
}

// More sets than the host holds results for: one line with the bytes needed,
// before the solve (was a bare "out of memory", exit 71).
TEST_F(pagerank_sources_app, TooManySetsForTheMemoryIsOneClearError) {
  const std::string graph =
      write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 5 4\n1 2\n2 3\n3 1\n3 4\n");
  std::string lines;
  for (int k = 0; k < 20000; ++k) lines += std::to_string(k % 5 + 1) + "\n";
  const std::string sources = write("many.txt", lines);
  ::setenv("PERRON_MEMORY_LIMIT", "500000", 1);  // the ranks alone: 800 KB
  const outcome o = run({graph, "--sources", sources});
  ::unsetenv("PERRON_MEMORY_LIMIT");
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_NE(o.err.find("personalized PageRank of 20000 source sets on 5 vertices needs about"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_TRUE(o.out.empty()) << o.out;
  EXPECT_EQ(run({graph, "--sources", sources, "--top", "1"}).code, 0);
}

// --bench-sources past the memory: one line with the bytes needed, before the
// sets are made (was a bare "out of memory", exit 71).
TEST_F(pagerank_sources_app, TooManyBenchSourcesIsOneClearError) {
  const std::string graph =
      write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 5 4\n1 2\n2 3\n3 1\n3 4\n");
  const outcome o = run({graph, "--bench-sources", "2000000000", "--device", "cpu"});
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_NE(o.err.find("--bench-sources 2000000000 on 5 vertices (the sets and their ranks) needs about"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_TRUE(o.out.empty()) << o.out;
}

// --sources on a generated graph the host cannot hold with the sets' ranks:
// refused from the spec before it is generated, as the single solve is.
TEST_F(pagerank_sources_app, TooLargeAGeneratedGraphIsRefusedBeforeItIsGenerated) {
  const std::string sources = write("s.txt", "1\n2 3\n");
  ::setenv("PERRON_MEMORY_LIMIT", "2e9", 1);
  const auto start = std::chrono::steady_clock::now();
  const outcome o = run({"rmat:26:10", "--sources", sources, "--device", "cpu"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::unsetenv("PERRON_MEMORY_LIMIT");
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find("personalized PageRank of 2 source sets on 'rmat:26:10' (67108864 vertices"),
            std::string::npos)
      << o.err;
  EXPECT_LT(seconds, 2.0);
  EXPECT_TRUE(o.out.empty()) << o.out;
  // A generated graph's sets still name their line.
  const outcome bad = run({"grid:3:3", "--sources", write("bad.txt", "1\n99\n")});
  EXPECT_EQ(bad.code, 65) << bad.err;
  EXPECT_NE(bad.err.find("bad.txt:2: vertex 99 is not in the graph"), std::string::npos) << bad.err;
}

// Under --undirected each drawn arc is stored both ways: the check from the
// spec counts 2 x 10^6 links for er:100000:1000000, 48 (n + m) + 40 s n bytes
// = 108.8 MB for two sets against 60.8 MB directed. Counted once, it passed
// at 80 MB, where the single solve of the same graph is refused.
TEST_F(pagerank_sources_app, AnUndirectedGeneratedGraphIsCountedWithItsMirroredLinks) {
  const std::string sources = write("s.txt", "1\n2 3\n");
  ::setenv("PERRON_MEMORY_LIMIT", "80e6", 1);
  const outcome u = run({"er:100000:1000000", "--undirected", "--sources", sources, "--device", "cpu"});
  const outcome d = run({"er:100000:1000000", "--sources", sources, "--device", "cpu", "--top", "1"});
  const outcome single = run({"er:100000:1000000", "--undirected", "--device", "cpu"});
  ::unsetenv("PERRON_MEMORY_LIMIT");
  EXPECT_EQ(u.code, 65) << u.err;
  EXPECT_EQ(u.err_lines(), 1) << u.err;
  EXPECT_NE(
      u.err.find("personalized PageRank of 2 source sets on 'er:100000:1000000' (100000 vertices, up to "
                 "2000000 links, undirected) needs about 108.8 MB"),
      std::string::npos)
      << u.err;
  EXPECT_TRUE(u.out.empty()) << u.out;
  EXPECT_EQ(d.code, 0) << d.err;  // directed, 10^6 links fit
  EXPECT_EQ(single.code, 65) << single.err;
  EXPECT_NE(single.err.find("up to 2000000 links, undirected"), std::string::npos) << single.err;
}

TEST_F(pagerank_sources_app, ConflictsAreUsageErrors) {
  const std::string graph =
      write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n");
  const std::string sources = write("s.txt", "1\n");
  const std::string v = write("v.txt", "1 1\n");
  for (const auto& extra :
       std::vector<std::vector<std::string>>{{"--personalize", v},
                                             {"--initial", v},
                                             {"--json"},
                                             {"--output-matrix", path("m.mtx"), "--bench-sources", "2"},
                                             // outputs the batched mode does not write: refused, not dropped
                                             {"--output", path("o.tsv"), "--bench-sources", "2"},
                                             {"--plot", path("p.svg")},
                                             {"--plot", path("p.svg"), "--bench-sources", "2"}}) {
    std::vector<std::string> args{graph, "--sources", sources};
    args.insert(args.end(), extra.begin(), extra.end());
    const outcome o = run(args);
    EXPECT_EQ(o.code, 64) << extra[0] << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
  }
  const outcome o = run({graph, "--bench-sources", "2", "--device", "cpu", "--output", path("o.tsv")});
  EXPECT_EQ(o.code, 64) << o.err;
  EXPECT_NE(o.err.find("--bench-sources writes none"), std::string::npos) << o.err;
}

// The sources file and the graph are inputs: an output naming one is refused
// before anything runs (--output-matrix s.txt replaced the sets it had read,
// --output-matrix g.mtx the graph), and --output-matrix is no other output.
TEST_F(pagerank_sources_app, OutputsThatAreInputsAreRefused) {
  const std::string g_text = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n";
  const std::string graph = write("g.mtx", g_text);
  const std::string sources = write("s.txt", "1\n2\n");
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--output-matrix", sources},
           {"--output", sources},
           {"--output-matrix", graph},
           {"--output", path("r.tsv"), "--output-matrix", (dir_ / "." / "r.tsv").string()}}) {
    std::vector<std::string> args{graph, "--sources", sources, "--device", "cpu"};
    args.insert(args.end(), extra.begin(), extra.end());
    const outcome o = run(args);
    EXPECT_EQ(o.code, 64) << extra[0] << " " << extra[1] << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_EQ(slurp(sources), "1\n2\n");
    EXPECT_EQ(slurp(graph), g_text);
    EXPECT_FALSE(std::filesystem::exists(path("r.tsv")));
  }
}

// Standard output holds one output: '--output-matrix -' (or /dev/stdout)
// alone, the top of each set on stderr (it went after the matrix on stdout,
// which then read as no Matrix Market file); '--output - --output-matrix -'
// (or /dev/fd/1 for either) is refused (both went into one stream).
TEST_F(pagerank_sources_app, StandardOutputHoldsOneOutput) {
  const std::string graph =
      write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n");
  const std::string sources = write("s.txt", "1\n2\n");
  for (const char* to : {"-", "/dev/stdout"}) {
    const outcome o = run({graph, "--sources", sources, "--device", "cpu", "--output-matrix", to});
    ASSERT_EQ(o.code, 0) << to << ": " << o.err;
    EXPECT_EQ(o.out.rfind("%%MatrixMarket matrix array real general\n", 0), 0u) << o.out;
    EXPECT_EQ(o.out.find("source_line"), std::string::npos) << to << ": " << o.out;
    EXPECT_NE(o.err.find("source_line\tvertex\trank\n"), std::string::npos) << o.err;
    const std::string m = write("m.mtx", o.out);
    const io::mm_array a = io::read_matrix_market_array(m);
    EXPECT_EQ(a.values.size(), 6u);
  }
  for (const auto& [output, matrix] : std::vector<std::pair<std::string, std::string>>{
           {"-", "-"}, {"/dev/fd/1", "-"}, {"-", "/dev/stdout"}}) {
    const outcome o =
        run({graph, "--sources", sources, "--device", "cpu", "--output", output, "--output-matrix", matrix});
    EXPECT_EQ(o.code, 64) << output << " " << matrix << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("both name standard output"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "");
  }
}

// --device auto asks the device model with the number of sets (solvers/device_choice.hpp)
// and says why; the next run predicts with the mean count a set took; the sets
// may come from a pipe (read once, before the graph).
TEST_F(pagerank_sources_app, AutoSaysWhyAndRemembersTheCount) {
  const std::string graph =
      write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 5 5\n1 2\n2 3\n3 1\n3 4\n4 5\n");
  const std::string sources = write("s.txt", "1\n2 3\n");
  const outcome first = run({graph, "--sources", sources, "--top", "1"});
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.err.find("pagerank: device auto: "), std::string::npos) << first.err;
  // Without CUDA in the build there is no GPU to predict for: the count is kept all the same.
  const bool predicts = cuda::built();
  if (predicts) {
    EXPECT_NE(first.err.find("iterations (the bound) of 2 source sets"), std::string::npos) << first.err;
  } else {
    EXPECT_NE(first.err.find("device auto: perron was built without CUDA"), std::string::npos) << first.err;
  }
  EXPECT_NE(first.err.find(" column-steps, "), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("cpu ("), std::string::npos) << first.err;  // a 5-vertex graph: the CPU
  bool kept = false;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir_ / "xdg-cache"))
    kept = kept || e.path().filename().string().find("iterations-batched-float") != std::string::npos;
  EXPECT_TRUE(kept);
  const outcome second = run({graph, "--sources", sources, "--top", "1"});
  ASSERT_EQ(second.code, 0) << second.err;
  if (predicts) {
    EXPECT_NE(second.err.find("iterations (the last solve's) of 2 source sets"), std::string::npos)
        << second.err;
  }
  EXPECT_EQ(second.out, first.out);
  const outcome piped =
      run_command("(printf '1\\n2 3\\n' | XDG_CACHE_HOME=" + quote((dir_ / "xdg-cache").string()) + " " +
                      quote(app_path("pagerank")) + " " + quote(graph) + " --sources /dev/stdin --top 1)",
                  dir_);
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(piped.out, first.out);
  const outcome named = run({graph, "--sources", sources, "--top", "1", "--device", "cpu"});
  ASSERT_EQ(named.code, 0) << named.err;
  EXPECT_NE(named.err.find("pagerank: device cpu (named; auto would take "), std::string::npos) << named.err;
}

TEST_F(pagerank_sources_app, BenchSourcesOnTheCpu) {
  const std::string graph =
      write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 5 4\n1 2\n2 3\n3 1\n3 4\n");
  const outcome o = run({graph, "--bench-sources", "3", "--device", "cpu"});
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* s : {"batched", "singles", "speedup", "max |diff|"})
    EXPECT_NE(o.out.find(s), std::string::npos) << s << "\n" << o.out;
}

}  // namespace
}  // namespace perron::test
