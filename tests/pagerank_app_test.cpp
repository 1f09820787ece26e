// The pagerank app as a user runs it: the built binary in a subprocess, its
// exit codes, its one-line errors, the TSV and JSON outputs.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "core/device.hpp"
#include "core/text.hpp"
#include "tests/pagerank_reference.hpp"
#include "tests/support/app_runner.hpp"
#include "tests/support/support.hpp"

namespace perron::test {
namespace {

namespace fs = std::filesystem;

class pagerank_app : public app_test {
 protected:
  pagerank_app() : app_test("pagerank") {}

  std::string file(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  outcome run(const std::vector<std::string>& args) {
    // The binary cache (on by default) goes to this test's own folder.
    std::string cmd =
        "XDG_CACHE_HOME=" + quote((dir_ / "xdg-cache").string()) + " " + quote(app_path("pagerank"));
    for (const auto& a : args) cmd += " " + quote(a);
    return run_command(cmd, dir_);
  }
};

// 0 -> 1 -> 2 -> 0, 2 -> 3, 4 isolated (dangling), 3 dangling.
const char* small_mtx =
    "%%MatrixMarket matrix coordinate pattern general\n"
    "% a comment\n"
    "5 5 4\n"
    "1 2\n2 3\n3 1\n3 4\n";

std::map<long long, double> parse_tsv(const std::string& text, std::vector<long long>* order = nullptr) {
  std::map<long long, double> m;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto tab = line.find('\t');
    EXPECT_NE(tab, std::string::npos) << "not TSV: " << line;
    if (tab == std::string::npos) continue;
    const long long id = std::stoll(line.substr(0, tab));
    m[id] = std::stod(line.substr(tab + 1));
    if (order) order->push_back(id);
  }
  return m;
}

// --device cuda on a generated graph the GPU check waits for (1 GiB or more
// on the device): without a GPU that is the error, before the host's room
// is checked and the graph generated (rmat:24:200000000 generated for 24 s
// before 'no usable CUDA device'; the host's refusal, exit 65, came first
// under this PERRON_MEMORY_LIMIT). Only where no GPU is usable.
TEST_F(pagerank_app, NoGpuIsReportedBeforeALargeGraphIsGenerated) {
  if (cuda::available()) GTEST_SKIP() << "a usable CUDA device: the graph would be solved";
  const outcome o = run_command(
      "PERRON_MEMORY_LIMIT=1000000 " + quote(app_path("pagerank")) + " rmat:24:200000000 --device cuda",
      dir_);
  EXPECT_EQ(o.code, 70) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find("--device cuda: "), std::string::npos) << o.err;  // no device, or built without CUDA
}

TEST_F(pagerank_app, Help) {
  const outcome o = run({"--help"});
  EXPECT_EQ(o.code, 0);
  for (const char* s :
       {"Usage: pagerank", "--alpha", "--tol", "--max-iter", "--precision", "--device", "--kernel",
        "--weighted", "--personalize", "--initial", "--top", "--output", "--json", "--loop", "--bench",
        "Exit codes", "csr-vector", "--accelerate", "--accelerate-every"})
    EXPECT_NE(o.out.find(s), std::string::npos) << s;
  // powerlaw's range as io/synthetic.cpp checks it (it said only GAMMA > 2).
  EXPECT_NE(o.out.find("2 < GAMMA <= 100"), std::string::npos);
  EXPECT_TRUE(o.err.empty());
}

TEST_F(pagerank_app, SummaryAndTop) {
  const std::string g = file("small.mtx", small_mtx);
  const outcome o = run({g, "--top", "3"});
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* s :
       {"vertices    5", "links       4", "dangling    2", "device", "kernel", "iterations", "residual",
        "converged   yes", "time", "load", "convert", "transfer", "solve", "top 3 vertices"})
    EXPECT_NE(o.out.find(s), std::string::npos) << s << "\n" << o.out;
  // Piped: no progress line, nothing on stderr at all.
  EXPECT_TRUE(o.err.empty()) << o.err;
  // The device line says why: auto predicts both devices (or finds no GPU).
  EXPECT_NE(o.out.find("; auto: "), std::string::npos) << o.out;
  // The top list ranks vertex 1 (the 3 -> 1 target, part of the cycle) above the isolated 5.
  EXPECT_EQ(o.out.find("\n     4  "), std::string::npos);  // only 3 rows
}

TEST_F(pagerank_app, TsvOutputMatchesReference) {
  const auto karate = find_graph("karate.mtx");
  if (!karate) GTEST_SKIP() << "karate.mtx not found";
  const test_graph* tg = get_test_graph("karate");
  ASSERT_NE(tg, nullptr);
  for (const char* precision : {"float", "double"}) {
    const std::string out = path(std::string("ranks_") + precision + ".tsv");
    const outcome o = run({*karate, "--output", out, "--precision", precision, "--tol",
                           std::string(precision) == "float" ? "1e-6" : "1e-10"});
    ASSERT_EQ(o.code, 0) << o.err;
    std::vector<long long> order;
    const auto ranks = parse_tsv(slurp(out), &order);
    ASSERT_EQ(order.size(), 34u);
    for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], static_cast<long long>(i) + 1);
    double total = 0, max_err = 0;
    for (const auto& [id, r] : ranks) {
      EXPECT_GT(r, 0);
      total += r;
      max_err = std::max(max_err, std::fabs(r - tg->reference[static_cast<std::size_t>(id - 1)]));
    }
    EXPECT_NEAR(total, 1.0, 1e-6);
    EXPECT_LE(max_err, std::string(precision) == "float" ? 1e-5 : 1e-6) << precision;
  }
}

// An output that is an input (directly or through a link) is refused before
// anything is written: the graph stays as it was.
TEST_F(pagerank_app, OutputThatIsAnInputIsRefused) {
  const std::string g = file("small.mtx", small_mtx);
  const std::string v = file("weights.txt", "1 1\n2 1\n");
  fs::create_symlink(g, path("link.mtx"));
  for (const std::vector<std::string>& args : {std::vector<std::string>{g, "--output", g},
                                               {g, "--output", path("link.mtx")},
                                               {g, "--personalize", v, "--output", v},
                                               {g, "--plot", g},
                                               {g, "--output", "-", "--plot", "-"},
                                               {g, "--output", "-", "--plot", "/dev/stdout"}}) {
    const outcome o = run(args);
    EXPECT_EQ(o.code, 64) << args[2];
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_EQ(slurp(g), small_mtx);
    EXPECT_EQ(slurp(v), "1 1\n2 1\n");
  }
  // Two outputs that name one new file by two spellings: the plot was written over the ranks.
  const outcome o = run({g, "--output", path("r.tsv"), "--plot", (dir_ / "." / "r.tsv").string()});
  EXPECT_EQ(o.code, 64) << o.err;
  EXPECT_NE(o.err.find("--plot and --output name the same file"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(path("r.tsv")));
  // SVG under another format's name: refused before the solve.
  const outcome png = run({g, "--plot", path("r.png")});
  EXPECT_EQ(png.code, 64) << png.err;
  EXPECT_NE(png.err.find("--plot writes SVG"), std::string::npos) << png.err;
  EXPECT_FALSE(fs::exists(path("r.png")));
}

// A run's files replace their targets together: --output's was replaced
// by a run that then failed on --plot (exit 66). An output whose folder is
// missing is refused before the graph is read, and a summary that cannot
// reach stdout is an error with its reason, also where the solve did not
// converge (exit 2 had lost the summary without a word).
TEST_F(pagerank_app, AFailedOutputLeavesEveryEarlierFile) {
  const std::string g = file("small.mtx", small_mtx);
  const std::string r = file("r.tsv", "old ranks\n");
  const outcome missing = run({g, "--device", "cpu", "--output", r, "--plot", path("nodir/p.svg")});
  EXPECT_EQ(missing.code, 66) << missing.err;
  EXPECT_EQ(missing.err_lines(), 1) << missing.err;
  EXPECT_EQ(missing.out, "");  // refused before the run: no summary
  EXPECT_EQ(slurp(r), "old ranks\n");
  if (fs::exists("/dev/full")) {
    const outcome full = run({g, "--device", "cpu", "--output", r, "--plot", "/dev/full"});
    EXPECT_EQ(full.code, 66) << full.err;
    EXPECT_EQ(slurp(r), "old ranks\n");
    for (const std::string opts : {"", " --max-iter 1", " --json --max-iter 1"}) {
      const outcome o = run_command(
          "(" + quote(app_path("pagerank")) + " " + quote(g) + " --device cpu" + opts + " >/dev/full)", dir_);
      EXPECT_EQ(o.code, 66) << opts << ": " << o.err;
      EXPECT_NE(o.err.find("pagerank: error: standard output: cannot write: No space left on device"),
                std::string::npos)
          << opts << ": " << o.err;
    }
  }
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

// --output - : standard output holds only the TSV, the summary goes to stderr;
// no file named '-' and no temporary is left behind. So for /dev/stdout,
// /dev/fd/1 and /proc/self/fd/1 (the summary, or --json's, went after the
// ranks on stdout).
TEST_F(pagerank_app, OutputDashIsStandardOutput) {
  const std::string g = file("small.mtx", small_mtx);
  const outcome o = run({g, "--output", "-"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(parse_tsv(o.out).size(), 5u);
  EXPECT_NE(o.err.find("iterations"), std::string::npos);
  for (const char* out : {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})
    for (const char* json : {"", "--json"}) {
      std::vector<std::string> args{g, "--output", out, "--device", "cpu"};
      if (*json) args.push_back(json);
      const outcome p = run(args);
      ASSERT_EQ(p.code, 0) << out << " " << json << ": " << p.err;
      EXPECT_EQ(p.out, o.out) << out << " " << json;
      EXPECT_NE(p.err.find("iterations"), std::string::npos) << out << " " << json << ": " << p.err;
    }
  for (const auto& e : fs::directory_iterator(dir_)) {
    const std::string name = e.path().filename().string();
    EXPECT_NE(name, "-");
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
  }
}

// GRAPH '-' is standard input, as Unix tools read it ("-: no such file"
// before): a Matrix Market file, an edge list, or a SuiteSparse archive
// piped in rank as their files do.
TEST_F(pagerank_app, GraphDashIsStandardInput) {
  const std::string g = file("small.mtx", small_mtx);
  const outcome o = run({g, "--output", "-", "--device", "cpu"});
  ASSERT_EQ(o.code, 0) << o.err;
  std::vector<std::string> sources{g};
  const std::string karate = test::data_dir() + "/karate.tar.gz";
  if (fs::exists(karate)) sources.push_back(karate);
  for (const std::string& source : sources) {
    const std::string app = quote(app_path("pagerank"));
    const std::string cache = "XDG_CACHE_HOME=" + quote((dir_ / "xdg-cache").string()) + " ";
    const outcome from_file =
        run_command(cache + app + " " + quote(source) + " --output - --device cpu", dir_);
    // A pipe, and a file given as stdin (run_command's own stdin is /dev/null: the subshell's).
    const outcome piped =
        run_command("(cat " + quote(source) + " | " + cache + app + " - --output - --device cpu)", dir_);
    if (piped.err.find("needs libarchive") != std::string::npos) continue;  // built without it
    const outcome redirected =
        run_command("(" + cache + app + " - --output - --device cpu < " + quote(source) + ")", dir_);
    ASSERT_EQ(from_file.code, 0) << source << ": " << from_file.err;
    ASSERT_EQ(piped.code, 0) << source << ": " << piped.err;
    ASSERT_EQ(redirected.code, 0) << source << ": " << redirected.err;
    EXPECT_EQ(piped.out, from_file.out) << source;
    EXPECT_EQ(redirected.out, from_file.out) << source;
    EXPECT_NE(piped.err.find("/dev/stdin"), std::string::npos) << piped.err;
  }
  // A file as stdin that the shell has read into: refused, not read whole.
  const outcome read_into = run_command(
      "({ read -r line; " + quote(app_path("pagerank")) + " - --no-cache --device cpu; } < " + quote(g) + ")",
      dir_);
  EXPECT_EQ(read_into.code, 64) << read_into.err;  // EX_USAGE
  EXPECT_NE(read_into.err.find("already read up to byte"), std::string::npos) << read_into.err;
}

// --plot: one point per iteration the solver ran, on a log axis.
TEST_F(pagerank_app, PlotOfTheResidual) {
  const std::string g = file("small.mtx", small_mtx);
  const std::string svg = path("residual.svg");
  const outcome o = run({g, "--plot", svg, "--json", "--device", "cpu"});
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string text = slurp(svg);
  ASSERT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_NE(text.find("</svg>"), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '<'), std::count(text.begin(), text.end(), '>'));
  const auto at = o.out.find("\"iterations\": ");
  ASSERT_NE(at, std::string::npos);
  const int iterations = std::stoi(o.out.substr(at + 14));
  // A residual of exactly 0 has no place on the log scale: the extrapolation
  // of --accelerate auto lands this graph on its fixed point (3 modes), so its
  // last step measures 0.
  const auto res = o.out.find("\"residual\": ");
  ASSERT_NE(res, std::string::npos);
  const int drawn = iterations - (std::stod(o.out.substr(res + 12)) == 0.0 ? 1 : 0);
  // The residual curve is the first <path> drawn inside the clip group.
  const auto curve = text.find("<path stroke=");
  ASSERT_NE(curve, std::string::npos);
  const std::string d = text.substr(curve, text.find("/>", curve) - curve);
  EXPECT_EQ(std::count(d.begin(), d.end(), 'M') + std::count(d.begin(), d.end(), 'L'), drawn);
  // A file name of a control byte and of bytes that are no UTF-8 (Linux names
  // are bytes) shows them as \xNN: written raw, the SVG was no well-formed XML.
  const std::string odd = file(std::string("c\x01\xff&.mtx"), small_mtx);
  ASSERT_EQ(run({odd, "--plot", svg, "--device", "cpu"}).code, 0);
  const std::string named = slurp(svg);
  EXPECT_NE(named.find("c\\x01\\xff&amp;.mtx"), std::string::npos) << named.substr(0, 400);
  EXPECT_TRUE(std::none_of(named.begin(), named.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\n' && c != '\t') || u >= 0x80;
  }));
}

// --bench --plot: a bar per solver (us per iteration), the best SpMV first and
// the baseline last; --bench still refuses --output.
TEST_F(pagerank_app, BenchPlotOfMicrosecondsPerIteration) {
  const std::string g = file("small.mtx", small_mtx);
  const std::string svg = path("bench.svg");
  EXPECT_EQ(run({g, "--bench", "--output", path("r.tsv")}).code, 64);
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const outcome o = run({g, "--bench", "--bench-runs", "3", "--plot", svg});
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string text = slurp(svg);
  ASSERT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_NE(text.find("</svg>"), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '<'), std::count(text.begin(), text.end(), '>'));
  const auto first = text.find("best SpMV alone"), last = text.find("baseline cusparse");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(last, std::string::npos);
  EXPECT_LT(first, last);
  // The background plus one bar per solver row: at least perron's two pulls, the best SpMV and the baseline.
  std::size_t bars = 0;
  for (auto at = text.find("<rect"); at != std::string::npos; at = text.find("<rect", at + 1)) ++bars;
  EXPECT_GE(bars, 5u);
}

TEST_F(pagerank_app, SnapKeepsOriginalIds) {
  // ids 7, 30, 1000, 42: remapped internally, named as in the file on output.
  const std::string g = file("g.txt", "# Nodes: 4 Edges: 4\n7\t30\n30\t1000\n1000\t7\n42\t7\n");
  const std::string out = path("r.tsv");
  const outcome o = run({g, "--output", out, "--top", "1"});
  ASSERT_EQ(o.code, 0) << o.err;
  std::vector<long long> order;
  const auto ranks = parse_tsv(slurp(out), &order);
  EXPECT_EQ(order, (std::vector<long long>{7, 30, 42, 1000}));
  // 7 has two in-links: it is the top vertex.
  EXPECT_NE(o.out.find("           7  "), std::string::npos) << o.out;
  EXPECT_GT(ranks.at(7), ranks.at(42));
}

TEST_F(pagerank_app, Json) {
  const std::string g = file("small.mtx", small_mtx);
  const outcome o = run({g, "--json", "--top", "3"});
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_FALSE(o.out.empty());
  EXPECT_EQ(o.out.front(), '{');
  EXPECT_EQ(o.out.substr(o.out.size() - 2), "}\n");
  for (const char* s :
       {"\"vertices\": 5", "\"links\": 4", "\"dangling\": 2", "\"converged\": true",
        "\"iterations\": ", "\"residual\": ", "\"host_syncs\": ", "\"host_syncs_per_iteration\": ",
        "\"kernel\": ", "\"device\": ", "\"seconds\": {\"load\": ", "\"top\": [", "\"vertex\": 1",
        "\"device_choice\": {\"asked\": \"auto\"", "\"context_wait\": ", "\"expected_iterations\": 90",
        "\"pull_choice\": {\"pull\": "})
    EXPECT_NE(o.out.find(s), std::string::npos) << s << "\n" << o.out;
  EXPECT_EQ(o.out.find(": inf"), std::string::npos);
  EXPECT_EQ(o.out.find(": nan"), std::string::npos);
}

// A file name that is not UTF-8 (a Latin-1 e-acute: Linux names are bytes)
// keeps --json valid: the byte is \udce9 (Python's surrogateescape), where
// written raw it made the whole document invalid UTF-8. A warning naming a
// file with a line break stays one line.
TEST_F(pagerank_app, JsonOfANameThatIsNotUtf8) {
  const std::string g = file("caf\xe9.mtx", small_mtx);
  const outcome o = run({g, "--json", "--device", "cpu"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("caf\\udce9.mtx"), std::string::npos) << o.out;
  for (std::size_t i = 0; i < o.out.size();) {
    const std::size_t len = utf8_sequence(o.out, i);
    ASSERT_GT(len, 0u) << "byte " << i << " of " << o.out;
    i += len;
  }
  const std::string ungraph = file("u\nv.txt", "# Undirected graph\n1\t2\n2\t3\n");
  const outcome noted = run({ungraph, "--device", "cpu"});
  ASSERT_EQ(noted.code, 0) << noted.err;
  EXPECT_NE(noted.err.find("u\\x0av.txt's header says"), std::string::npos) << noted.err;
}

// --accelerate: the summary and the JSON say what ran; the ranks are the plain
// solve's within the bound of two solves stopped at tol (harvard500 at alpha
// 0.99, where the extrapolations cut the iterations).
TEST_F(pagerank_app, Accelerate) {
  const auto harvard = find_graph("harvard500.mtx");
  if (!harvard) GTEST_SKIP() << "harvard500.mtx not found";
  const std::vector<std::string> base = {*harvard, "--device",    "cpu",    "--alpha",    "0.99", "--tol",
                                         "1e-10",  "--precision", "double", "--max-iter", "5000"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--accelerate", "quadratic", "--output", path("q.tsv")});
  const outcome q = run(args);
  ASSERT_EQ(q.code, 0) << q.err;
  EXPECT_NE(q.out.find("accelerate  quadratic every 10 iterations, "), std::string::npos) << q.out;
  args = base;
  args.insert(args.end(), {"--output", path("p.tsv")});
  ASSERT_EQ(run(args).code, 0);
  const auto a = parse_tsv(slurp(path("q.tsv"))), b = parse_tsv(slurp(path("p.tsv")));
  ASSERT_EQ(a.size(), b.size());
  double l1 = 0;
  for (const auto& [id, r] : a) l1 += std::fabs(r - b.at(id));
  EXPECT_LE(l1, 2 * 0.99 / 0.01 * 1e-10 + 1e-11);
  args = base;
  args.insert(args.end(), {"--accelerate", "aitken", "--accelerate-every", "8", "--json"});
  const outcome j = run(args);
  ASSERT_EQ(j.code, 0) << j.err;
  for (const char* s : {"\"accelerate\": \"aitken\"", "\"accelerate_every\": 8", "\"extrapolations\": "})
    EXPECT_NE(j.out.find(s), std::string::npos) << s << "\n" << j.out;
  EXPECT_NE(run({*harvard, "--json"}).out.find("\"accelerate\": \"auto\""), std::string::npos);
  // rre, with fewer steps than quadratic here (228 against 309 in double)
  args = base;
  args.insert(args.end(), {"--accelerate", "rre", "--output", path("r.tsv")});
  const outcome r = run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("accelerate  rre every 10 iterations, "), std::string::npos) << r.out;
  const auto c = parse_tsv(slurp(path("r.tsv")));
  ASSERT_EQ(c.size(), b.size());
  l1 = 0;
  for (const auto& [id, x] : c) l1 += std::fabs(x - b.at(id));
  EXPECT_LE(l1, 2 * 0.99 / 0.01 * 1e-10 + 1e-11);
}

// --reorder: the solve runs in another vertex order, the output does not
// show it: the same ids in the same lines, ranks within 1e-12 in double (rows
// summed in another order), the same --top; personalization and start vector
// given in the file's ids (wiki-Vote: SNAP ids, not contiguous). On the GPU
// too where there is one.
TEST_F(pagerank_app, ReorderKeepsTheOutputInTheInputsIds) {
  const auto wiki = find_graph("wiki-Vote.txt");
  if (!wiki) GTEST_SKIP() << "wiki-Vote.txt not found";
  const std::string v = file("v.tsv", "3 1\n28 2\n8297 0.5\n"), r0 = file("r0.tsv", "4 1\n30 1\n");
  std::vector<std::string> devices = {"cpu"};
  if (cuda::available()) devices.push_back("cuda");
  for (const std::string& device : devices)
    for (const bool personal : {false, true}) {
      std::vector<std::string> base = {*wiki, "--device", device, "--precision", "double", "--tol", "1e-10"};
      if (personal) base.insert(base.end(), {"--personalize", v, "--initial", r0});
      std::vector<std::string> plain = base, reordered = base;
      plain.insert(plain.end(), {"--output", path("plain.tsv")});
      reordered.insert(reordered.end(), {"--reorder", "rcm", "--output", path("rcm.tsv")});
      const outcome a = run(plain), b = run(reordered);
      ASSERT_EQ(a.code, 0) << a.err;
      ASSERT_EQ(b.code, 0) << b.err;
      std::vector<long long> order_a, order_b;
      const auto ra = parse_tsv(slurp(path("plain.tsv")), &order_a);
      const auto rb = parse_tsv(slurp(path("rcm.tsv")), &order_b);
      EXPECT_EQ(order_a, order_b);
      double worst = 0;
      for (const auto& [id, x] : ra) worst = std::max(worst, std::fabs(x - rb.at(id)));
      EXPECT_LE(worst, 1e-12) << device << (personal ? ", personalized" : "");
      const auto top = [](const std::string& out) {  // the vertices of the top-10 table, in order
        std::istringstream in(out.substr(out.find("top 10 vertices")));
        std::string line;
        std::vector<long long> ids;
        std::getline(in, line);
        std::getline(in, line);
        long long k, id;
        while (in >> k >> id >> line) ids.push_back(id);
        return ids;
      };
      EXPECT_EQ(top(a.out), top(b.out)) << device;
      EXPECT_EQ(top(b.out).size(), 10u);
      EXPECT_NE(b.out.find("reorder     rcm, "), std::string::npos) << b.out;
    }
  const outcome j = run({*wiki, "--device", "cpu", "--reorder", "rcm", "--json"});
  ASSERT_EQ(j.code, 0) << j.err;
  for (const char* s :
       {"\"reorder\": {\"order\": \"rcm\", \"seconds\": ", "\"mean_gap\": [", "\"within_window\": ["})
    EXPECT_NE(j.out.find(s), std::string::npos) << s << "\n" << j.out;
  EXPECT_NE(run({*wiki, "--json"}).out.find("\"reorder\": {\"order\": \"none\""), std::string::npos);
  const outcome bad = run({*wiki, "--reorder", "gorder"});
  EXPECT_EQ(bad.code, 64) << bad.err;
  EXPECT_EQ(bad.err_lines(), 1) << bad.err;
  EXPECT_EQ(run({*wiki, "--reorder", "rcm", "--sources", v}).code, 64);
  const outcome dist = run({*wiki, "--reorder", "rcm", "--bench-dist"});
  EXPECT_EQ(dist.code, 64) << dist.err;
  EXPECT_NE(dist.err.find("--reorder runs in the single-process solve"), std::string::npos) << dist.err;
}

// The README's graph on the GPU, twice from the cache: the model decides its
// pull (the persistent pull, a graph this small), whose layout trials run in
// the first run only; the second builds the kept layout (its "layout trials"
// phase 0) and prints the same ranks, as does a third that names the pull.
TEST_F(pagerank_app, SecondGpuRunReusesTheModelsLayout) {
  const auto g = find_graph("wb-cs-stanford.mtx");
  if (!g) GTEST_SKIP() << "wb-cs-stanford.mtx not found";
  if (!cuda::available()) GTEST_SKIP() << "no usable CUDA device";
  const auto trials = [](const std::string& json) {
    const auto at = json.find("\"layout_trials\": ");
    return at == std::string::npos ? -1.0 : std::stod(json.substr(at + 17));
  };
  const outcome a = run({*g, "--device", "cuda", "--json", "--output", path("a.tsv")});
  const outcome b = run({*g, "--device", "cuda", "--json", "--output", path("b.tsv")});
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_NE(a.out.find("\"reason\": \"model\""), std::string::npos) << a.out;
  EXPECT_NE(b.out.find("\"reason\": \"model\""), std::string::npos) << b.out;
  // The persistent pull named: the same record serves it.
  const outcome c =
      run({*g, "--device", "cuda", "--pull", "persistent", "--json", "--output", path("c.tsv")});
  ASSERT_EQ(c.code, 0) << c.err;
  if (trials(a.out) > 0) {
    EXPECT_LT(trials(b.out), 1e-3) << b.out;  // the layout set up, nothing timed
    EXPECT_NE(b.out.find("an earlier trial's pick"), std::string::npos) << b.out;
    EXPECT_LT(trials(c.out), 1e-3) << c.out;
  }
  EXPECT_EQ(slurp(path("a.tsv")), slurp(path("b.tsv")));
  EXPECT_EQ(slurp(path("a.tsv")), slurp(path("c.tsv")));
}

TEST_F(pagerank_app, NotConvergedStillWritesAndExits2) {
  const std::string g = file("small.mtx", small_mtx);
  const std::string out = path("r.tsv");
  const outcome o = run({g, "--max-iter", "2", "--output", out});
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find("not converged"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("converged   no"), std::string::npos) << o.out;
  EXPECT_EQ(parse_tsv(slurp(out)).size(), 5u);
  EXPECT_EQ(o.err.find("rounding"), std::string::npos) << o.err;
  // A tol under the precision's rounding: the line says so (wb-cs-stanford in
  // float cycles at 1.6e-9 without extrapolation).
  const std::string wb = file("wb.mtx", slurp(PERRON_SOURCE_DIR "/data/wb-cs-stanford.mtx"));
  const outcome tiny =
      run({wb, "--device", "cpu", "--tol", "1e-300", "--accelerate", "none", "--max-iter", "300"});
  EXPECT_EQ(tiny.code, 2) << tiny.err;
  EXPECT_EQ(tiny.err_lines(), 1) << tiny.err;
  EXPECT_NE(tiny.err.find("tol is below float's rounding (1.19e-07), which the residual may never reach: use "
                          "--precision double or a larger --tol"),
            std::string::npos)
      << tiny.err;
}

TEST_F(pagerank_app, PersonalizeAndInitial) {
  const std::string g = file("small.mtx", small_mtx);
  const std::string out = path("r.tsv");
  const std::string v = file("v.tsv", "# teleport to vertex 5 only\n5\t1\n");
  outcome o = run({g, "--personalize", v, "--output", out, "--precision", "double", "--tol", "1e-12"});
  ASSERT_EQ(o.code, 0) << o.err;
  // v = e_5 and 5 is isolated/dangling: all mass stays on 5.
  auto ranks = parse_tsv(slurp(out));
  EXPECT_NEAR(ranks.at(5), 1.0, 1e-10);
  EXPECT_NEAR(ranks.at(1), 0.0, 1e-10);

  const std::string r0 = file("r0.tsv", "1 1\n2 1\n");
  o = run({g, "--initial", r0, "--output", out});
  ASSERT_EQ(o.code, 0) << o.err;

  const std::string short_v = file("short.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n");
  o = run({g, "--personalize", short_v});
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;

  o = run({g, "--personalize", file("neg.tsv", "1 -1\n")});
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_NE(o.err.find("neg.tsv:1"), std::string::npos) << o.err;

  o = run({g, "--personalize", file("zero.tsv", "1 0\n2 0\n")});
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_NE(o.err.find("zero"), std::string::npos) << o.err;

  o = run({g, "--initial", file("unknown.tsv", "9 1\n")});
  EXPECT_EQ(o.code, 65) << o.err;
}

// A --personalize or --initial file that is empty, holds only comments or
// only zero weights: one line naming the file (was "personalization
// (--personalize): all weights are zero"); an empty --sources file likewise.
TEST_F(pagerank_app, EmptyVertexFilesAreNamed) {
  const std::string g = file("small.mtx", small_mtx);
  for (const std::string& v :
       {file("empty.tsv", ""), file("comments.tsv", "# none\n"), file("zeros.tsv", "1 0\n3 0\n")})
    for (const char* option : {"--personalize", "--initial"}) {
      const outcome o = run({g, option, v});
      EXPECT_EQ(o.code, 65) << option << " " << v << "\n" << o.err;
      EXPECT_EQ(o.err_lines(), 1) << o.err;
      EXPECT_NE(o.err.find(v + ": all weights are zero (" + option + " needs a vertex of positive weight"),
                std::string::npos)
          << o.err;
    }
  const std::string none = file("none.txt", "");
  const outcome o = run({g, "--sources", none});
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find(none + ": no source sets"), std::string::npos) << o.err;
}

// A skew-symmetric file is called so, from the file and from both cache
// entries (the whole graph's, the kept CSR of A^T); it was called symmetric.
TEST_F(pagerank_app, SkewSymmetricIsNamedSo) {
  const std::string g =
      file("k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 2\n");
  const std::string plain =
      file("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1.5\n3 2 2\n");
  for (int round = 0; round < 3; ++round) {
    const outcome o = run({g, "--device", "cpu", "--top", "0", "--cache-dir", path("cache")});
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.out.find("(Matrix Market, skew-symmetric)"), std::string::npos) << round << "\n" << o.out;
    const outcome s = run({plain, "--device", "cpu", "--top", "0", "--cache-dir", path("cache")});
    EXPECT_NE(s.out.find("(Matrix Market, symmetric)"), std::string::npos) << round << "\n" << s.out;
  }
}

TEST_F(pagerank_app, Weighted) {
  const std::string g =
      file("w.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 2 1.0\n1 3 3.0\n2 1 1\n3 1 2\n");
  const std::string out = path("r.tsv");
  EXPECT_EQ(run({g, "--weighted", "--output", out}).code, 0);
  const std::string bad =
      file("neg.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n2 3 -3\n");
  outcome o = run({bad, "--weighted"});
  EXPECT_EQ(o.code, 65);
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find(bad + ":4: entry (2, 3) has value -3"), std::string::npos) << o.err;  // its line
  EXPECT_EQ(run({bad}).code, 0);  // unweighted: values ignored
  o = run({bad, "--weighted"});   // a cache entry holds it: the file read again, its line named
  EXPECT_EQ(o.code, 65);
  EXPECT_NE(o.err.find(bad + ":4: entry (2, 3) has value -3"), std::string::npos) << o.err;
  // Repeated entries summed past a double: said so (the weight inf named no entry of the file).
  const std::string twice = file(
      "twice.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1.7e308\n1 2 1.7e308\n2 3 1\n");
  o = run({twice, "--weighted", "--no-cache"});
  EXPECT_EQ(o.code, 65);
  EXPECT_NE(o.err.find("arc 1 -> 2 has weight inf (its repeated entries, summed, overflow a double)"),
            std::string::npos)
      << o.err;
}

// An entry stored as 0 is an arc of the pattern (vertex 2's one out-link,
// so no vertex dangles) and weighs 0 with --weighted (vertex 2 dangles).
// The Python module, given a scipy matrix, reads a stored zero as no arc
// (python/perron/__init__.py): the file's pattern is the graph here.
TEST_F(pagerank_app, AStoredZeroIsAnArcThatWeighsZero) {
  const std::string g = file(
      "z.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 2 1.0\n2 3 0.0\n3 1 2.0\n1 3 1.0\n");
  const outcome plain = run({g, "--device", "cpu"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(plain.out.find("links       4\ndangling    0\n"), std::string::npos) << plain.out;
  const outcome weighted = run({g, "--device", "cpu", "--weighted"});
  ASSERT_EQ(weighted.code, 0) << weighted.err;
  EXPECT_NE(weighted.out.find("links       4\ndangling    1\n"), std::string::npos) << weighted.out;
}

// An edge list with a header and weights, comma-separated (as pandas or
// networkx write it), ranks as the same graph in Matrix Market, weighted or
// not, its vertices named by the file's ids; a negative weight names its
// line (its arc where the graph came from the cache, read unweighted before).
TEST_F(pagerank_app, WeightedCsvEdgeList) {
  const std::string mtx = file(
      "w.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 5\n1 2 0.5\n1 3 3\n2 3 1\n3 1 1\n4 1 2\n");
  const std::string csv = file("w.csv", "source,target,weight\n1,2,0.5\n1,3,3\n2,3,1\n3,1,1\n4,1,2\n");
  for (const bool weighted : {true, false}) {
    std::vector<std::string> flags = {"--device", "cpu", "-p", "double", "--tol", "1e-12"};
    if (weighted) flags.push_back("--weighted");
    auto a = flags, b = flags;
    a.insert(a.end(), {mtx, "--output", path("m.tsv")});
    b.insert(b.end(), {csv, "--output", path("c.tsv")});
    ASSERT_EQ(run(a).code, 0);
    const outcome o = run(b);
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(parse_tsv(slurp(path("m.tsv"))), parse_tsv(slurp(path("c.tsv")))) << weighted;
  }
  const std::string bad = file("neg.csv", "u,v,w\n1,2,1.0\n2,3,-3\n");
  outcome o = run({bad, "--weighted"});
  EXPECT_EQ(o.code, 65);
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find(bad + ":3: weight -3: --weighted needs finite, non-negative weights"),
            std::string::npos)
      << o.err;
  ASSERT_EQ(run({bad, "--device", "cpu"}).code, 0);
  o = run({bad, "--weighted"});  // from the cache entry too: the line
  EXPECT_EQ(o.code, 65);
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find(bad + ":3: weight -3"), std::string::npos) << o.err;
}

// --undirected: an edge list of each edge once ranks as the symmetric
// Matrix Market file of those edges (the same bytes), from the file and from
// its cache entries (the kept CSR of A^T is another graph's than the
// directed run's); weighted, an edge listed once weighs as the symmetric
// file's; a symmetric file or a grid is unchanged; a path's ends rank alike;
// --json says so; a matrix that is not square is one error naming the file.
TEST_F(pagerank_app, UndirectedTakesEveryArcBothWays) {
  const std::string sym =
      file("s.mtx",
           "%%MatrixMarket matrix coordinate real symmetric\n5 5 5\n2 1 0.5\n3 1 2\n3 2 1\n"
           "4 3 1.5\n5 4 1\n");
  const std::string edges = file("e.txt", "1 2 0.5\n1 3 2\n2 3 1\n3 4 1.5\n4 5 1\n");
  const std::vector<std::string> flags = {"--device", "cpu", "-p", "double", "--tol", "1e-12", "--top", "0"};
  for (const bool weighted : {false, true}) {
    auto a = flags;
    a.insert(a.end(), {sym, "--output", path("s.tsv")});
    if (weighted) a.push_back("--weighted");
    ASSERT_EQ(run(a).code, 0);
    for (int round = 0; round < 3; ++round) {  // parsed, then from the cache twice
      auto b = flags;
      b.insert(b.end(), {edges, "--undirected", "--output", path("e.tsv")});
      if (weighted) b.push_back("--weighted");
      const outcome o = run(b);
      ASSERT_EQ(o.code, 0) << o.err;
      EXPECT_NE(o.out.find("(edge list with weights, undirected"), std::string::npos) << o.out;
      EXPECT_EQ(slurp(path("s.tsv")), slurp(path("e.tsv"))) << weighted << " " << round;
      auto c = flags;  // the same file directed, between: its own entries
      c.insert(c.end(), {edges, "--output", path("d.tsv")});
      ASSERT_EQ(run(c).code, 0);
      EXPECT_NE(slurp(path("d.tsv")), slurp(path("e.tsv")));
    }
  }
  auto a = flags, b = flags;
  a.insert(a.end(), {sym, "--output", path("a.tsv")});
  b.insert(b.end(), {sym, "--undirected", "--output", path("b.tsv")});
  ASSERT_EQ(run(a).code, 0);
  ASSERT_EQ(run(b).code, 0);
  EXPECT_EQ(slurp(path("a.tsv")), slurp(path("b.tsv")));
  const outcome j = run({"chain:6:6", "--undirected", "--json", "--device", "cpu", "-p", "double", "--tol",
                         "1e-12", "--output", path("c.tsv")});
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_NE(j.out.find("\"undirected\": true"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"links\": 10"), std::string::npos) << j.out;
  const auto path_ranks = parse_tsv(slurp(path("c.tsv")));
  EXPECT_NEAR(path_ranks.at(1), path_ranks.at(6), 1e-12);
  EXPECT_NEAR(path_ranks.at(2), path_ranks.at(5), 1e-12);
  // A SNAP header that says "Undirected graph": a note without the flag, none with it.
  const std::string ungraph =
      file("u.txt", "# Undirected graph: ../../data/output/u.txt\n# Nodes: 3\n1\t2\n2\t3\n");
  const outcome noted = run({ungraph, "--device", "cpu"});
  ASSERT_EQ(noted.code, 0) << noted.err;
  EXPECT_NE(noted.err.find("pagerank: note: " + ungraph + "'s header says it is an undirected graph"),
            std::string::npos)
      << noted.err;
  const outcome quiet = run({ungraph, "--device", "cpu", "--undirected"});
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(run({edges, "--device", "cpu"}).err, "");
  // Through a named pipe: read to its end, no note, and no wait for another
  // writer (the header's second read opened the pipe and waited forever).
  const std::string fifo = path("u.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const outcome piped =
      run_command("(cat " + quote(ungraph) + " > " + quote(fifo) + " &); timeout 60 " +
                      quote(app_path("pagerank")) + " " + quote(fifo) + " --no-cache --device cpu --top 1",
                  dir_);
  EXPECT_EQ(piped.code, 0) << piped.err;
  EXPECT_NE(piped.out.find("converged   yes"), std::string::npos) << piped.out;
  const std::string rect = file("r.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 3\n");
  const outcome bad = run({rect, "--undirected"});
  EXPECT_EQ(bad.code, 65) << bad.err;
  EXPECT_EQ(bad.err_lines(), 1) << bad.err;
  EXPECT_NE(bad.err.find(rect + ": an undirected graph needs a square matrix"), std::string::npos) << bad.err;
}

// KONECT's out.NAME says its graph's kind on its first line: "% sym"
// (undirected) gets the note SNAP's "Undirected graph" gets, "% bip"
// (two sets of ids, each from 1) one of its own, "% asym" none; the same
// from the .tar.bz2 KONECT ships, whose member's head is read for it.
TEST_F(pagerank_app, KonectHeaderNotes) {
  const std::string sym = file("out.sym", "% sym unweighted\n% 3 3 3\n1 2 1 1190000000\n2 3 1 1190000001\n");
  const outcome u = run({sym, "--device", "cpu"});
  ASSERT_EQ(u.code, 0) << u.err;
  EXPECT_NE(u.err.find("pagerank: note: " + sym + "'s header says it is an undirected graph"),
            std::string::npos)
      << u.err;
  EXPECT_EQ(run({sym, "--device", "cpu", "--undirected"}).err, "");
  const std::string bip = file("out.bip", "% bip unweighted\n% 3 2 2\n1 1\n1 2\n2 1\n");
  const outcome b = run({bip, "--device", "cpu"});
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_NE(b.err.find("pagerank: note: " + bip + "'s header says it is a bipartite graph"),
            std::string::npos)
      << b.err;
  EXPECT_EQ(run({file("out.asym", "% asym unweighted\n1 2\n2 3\n"), "--device", "cpu"}).err, "");
  // A first line of words over ids: read as the header, and said so; --names reads it as an edge.
  const std::string words = file("words.txt", "alice bob\n1 2\n2 3\n");
  const outcome w = run({words, "--device", "cpu", "--json"});
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_NE(w.err.find("pagerank: note: " + words + ":1: 'alice bob' is read as the header"),
            std::string::npos)
      << w.err;
  const outcome n = run({words, "--device", "cpu", "--names", "--json"});
  ASSERT_EQ(n.code, 0) << n.err;
  EXPECT_EQ(n.err, "");
  EXPECT_NE(n.out.find("\"links\": 3"), std::string::npos) << n.out;
  // In KONECT's archive: NAME/README.NAME before NAME/out.NAME.
  fs::create_directories(dir_ / "k" / "toy");
  std::ofstream(dir_ / "k" / "toy" / "README.toy") << "A toy network.\n";
  std::ofstream(dir_ / "k" / "toy" / "out.toy") << slurp(sym);
  const outcome packed = run_command("tar -C " + quote((dir_ / "k").string()) + " -cjf " +
                                         quote(path("toy.tar.bz2")) + " toy/README.toy toy/out.toy",
                                     dir_);
  if (packed.code != 0) GTEST_SKIP() << "no tar with bzip2 here: " << packed.err;
  const outcome a = run({path("toy.tar.bz2"), "--device", "cpu"});
  if (a.err.find("needs libarchive") != std::string::npos) GTEST_SKIP() << "built without libarchive";
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.err.find("'s header says it is an undirected graph"), std::string::npos) << a.err;
  EXPECT_NE(a.out.find("links       2"), std::string::npos) << a.out;
}

// A member compressed on its own is read as the file it holds: KONECT's
// out.NAME.gz (its gzip bytes were parsed as text: "source id '\x1f\x8b...'")
// and x.mtx.gz in a tar ("the archive holds no .mtx file").
TEST_F(pagerank_app, ArchiveMembersCompressedOnTheirOwn) {
  const std::string edges = file("edges", "1 2\n2 3\n3 1\n3 4\n");
  fs::create_directories(dir_ / "a" / "toy");
  fs::create_directories(dir_ / "b" / "m");
  const outcome made = run_command(
      "gzip -c " + quote(edges) + " > " + quote((dir_ / "a" / "toy" / "out.toy.gz").string()) +
          " && gzip -c " + quote(test::data_dir() + "/karate.mtx") + " > " +
          quote((dir_ / "b" / "m" / "m.mtx.gz").string()) + " && tar -C " + quote((dir_ / "a").string()) +
          " -czf " + quote(path("toy.tar.gz")) + " toy && tar -C " + quote((dir_ / "b").string()) + " -cf " +
          quote(path("m.tar")) + " m",
      dir_);
  if (made.code != 0) GTEST_SKIP() << "no tar or gzip here: " << made.err;
  const outcome a = run({path("toy.tar.gz"), "--device", "cpu", "--no-cache"});
  if (a.err.find("needs libarchive") != std::string::npos) GTEST_SKIP() << "built without libarchive";
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("links       4"), std::string::npos) << a.out;
  const outcome m = run({path("m.tar"), "--device", "cpu", "--no-cache"});
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_NE(m.out.find("links       156"), std::string::npos) << m.out;
  // A link named like the graph is not followed, and the refusal says so (it read as if absent).
  fs::create_directories(dir_ / "c" / "x");
  std::ofstream(dir_ / "c" / "x" / "real.dat") << slurp(edges);
  fs::create_symlink("real.dat", dir_ / "c" / "x" / "x.mtx");
  ASSERT_EQ(
      run_command("tar -C " + quote((dir_ / "c").string()) + " -czf " + quote(path("x.tar.gz")) + " x", dir_)
          .code,
      0);
  const outcome l = run({path("x.tar.gz"), "--device", "cpu", "--no-cache"});
  EXPECT_EQ(l.code, 65);
  EXPECT_NE(l.err.find("links are not followed (x/x.mtx -> real.dat)"), std::string::npos) << l.err;
}

TEST_F(pagerank_app, BadInputs) {
  struct bad_case {
    std::vector<std::string> args;
    int code;
    const char* says;
  };
  const std::string g = file("small.mtx", small_mtx);
  const std::string rect = file("rect.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 4\n");
  const std::string empty = file("empty.mtx", "%%MatrixMarket matrix coordinate pattern general\n0 0 0\n");
  const std::vector<bad_case> cases = {
      {{}, 64, "GRAPH"},
      {{g, "--alpha", "1"}, 64, "--alpha"},
      {{g, "--alpha", "-0.5"}, 64, "--alpha"},
      {{g, "--alpha", "abc"}, 64, "alpha"},
      {{g, "--tol", "0"}, 64, "--tol"},
      // the L1 change of the ranks is at most 2: these stopped after one step, "converged"
      {{g, "--tol", "10"}, 64, "--tol must be below 2, got 10: it bounds the L1 change"},
      {{g, "--tol", "2", "--accelerate", "quadratic"}, 64, "--tol must be below 2, got 2"},
      {{g, "--tol", "2", "--sources", g}, 64, "--tol must be below 2, got 2"},
      {{g, "--max-iter", "0"}, 64, "--max-iter"},
      {{g, "--precision", "half"}, 64, "--precision"},
      {{g, "--kernel", "bogus"}, 64, "csr-vector"},
      {{g, "--device", "tpu"}, 64, "cuda"},
      {{g, "--device", "cuda", "--kernel", "cpu"}, 64, "cpu"},
      {{g, "--loop", "sometimes"}, 64, "graph-while"},
      {{g, "--pull", "sideways"}, 64, "fused"},
      {{g, "--pull-trial", "sometimes"}, 64, "--pull-trial"},
      {{g, "--pull", "fused", "--weighted"}, 64, "--pull spmv"},
      {{g, "--pull", "fused", "--kernel", "merge"}, 64, "--kernel merge"},
      {{g, "--pull", "fused", "--device", "cpu"}, 64, "--device cpu"},
      // The GPU solve's settings beside a CPU named, a setting of a mode not asked for: dropped before.
      {{g, "--loop", "check-every", "--device", "cpu"}, 64, "--loop sets the GPU's solve"},
      {{g, "--check-every", "3", "--device", "cpu"}, 64, "--check-every sets the GPU's solve"},
      {{g, "--graph-unroll", "5", "--kernel", "cpu"}, 64, "cannot run with --kernel cpu"},
      {{g, "--pull-trial", "on", "--device", "cpu"}, 64, "--pull-trial sets the GPU's solve"},
      {{g, "--bench-runs", "5"}, 64, "--bench-runs needs --bench"},
      {{g, "--bench-dist", "--top", "5"}, 64, "--top has nowhere to go"},
      {{g, "--pull", "persistent", "--weighted"}, 64, "--pull spmv"},
      {{g, "--accelerate", "cubic"}, 64, "quadratic"},
      {{g, "--accelerate", "aitken", "--accelerate-every", "3"}, 64, "--accelerate-every must be at least 4"},
      {{g, "--accelerate", "aitken", "--pull", "persistent"}, 64, "--pull persistent runs every step"},
      {{g, "--accelerate", "quadratic", "--sources", g}, 64, "--sources"},
      {{g, "--accelerate", "rre", "--sources", g}, 64, "--sources"},
      {{g, "--gpus", "0"}, 64, "--gpus must be at least 1"},
      {{g, "--gpus", "1", "--pull", "fused"}, 64, "--pull fused"},
      {{g, "--gpus", "1", "--kernel", "cpu"}, 64, "--kernel cpu"},
      {{g, "--gpus", "1", "--bench"}, 64, "--bench"},
      {{g, "--exchange-chunks", "2"}, 64, "--exchange-chunks needs --gpus"},
      {{g, "--gpus", "1", "--exchange-chunks", "9"}, 64, "--exchange-chunks must be 0 (automatic) to 8"},
      {{g, "--gpus", "1", "--exchange-chunks", "-1"}, 64, "--exchange-chunks must be"},
      {{g, "--row-cost", "1"}, 64, "--row-cost needs --gpus"},
      {{g, "--exchange", "halo"}, 64, "--exchange needs mpirun, --bench-dist or --gpus"},
      // --bench-dist prints a text table: with --json, stdout held the table, then the JSON.
      {{g, "--bench-dist", "--json"}, 64, "--json does not apply to --bench-dist"},
      {{g, "--gpus", "1", "--bench-dist", "--json"}, 64, "--json does not apply to --bench-dist"},
      {{g, "--exchange", "sideways", "--gpus", "1"}, 64, "--exchange must be auto, all or halo"},
      {{g, "--gpus", "2", "--exchange", "halo", "--exchange-chunks", "3"}, 64, "in one chunk"},
      {{"rmat:27:2147483648", "--gpus", "2", "--exchange", "halo"}, 64, "generates it in pieces"},
      // Past 2^31 links, --gpus generates the graph in pieces: what needs it whole is refused first.
      {{"rmat:27:2147483648", "--gpus", "2", "--reorder", "rcm"}, 64, "generates it in pieces"},
      {{"rmat:27:2147483648", "--gpus", "2", "--plot", "x.svg"}, 64, "generates it in pieces"},
      {{g, "--gpus", "1", "--row-cost", "-2"}, 64, "--row-cost must be a number of links"},
      {{g, "--gpus", "1", "--row-cost", "nan"}, 64, "--row-cost must be a number of links"},
      {{g, "--no-such-option"}, 64, "no-such-option"},
      {{g, "--js", "5"}, 64, "unexpected argument '5': '--js' was read as --json, which takes no value"},
      // An empty file name is refused, never taken as the option left out (ranks unwritten, uniform v).
      {{g, "--output", ""}, 64, "--output needs a file name"},
      {{g, "--personalize", ""}, 64, "--personalize needs a file name"},
      {{g, "--initial", ""}, 64, "--initial needs a file name"},
      {{g, "--plot", ""}, 64, "--plot needs a file name"},
      {{g, "--sources", ""}, 64, "--sources needs a file name"},
      {{g, "--cache-dir", ""}, 64, "--cache-dir needs a folder name"},
      {{g, "--output-matrix", path("m.mtx")}, 64, "it needs --sources FILE"},
      {{g, "--bench-sources", "-1"}, 64, "--bench-sources must be at least 1"},
      {{g, "--bench-sources", "0"}, 64, "--bench-sources must be at least 1"},
      // Fewer sets than asked to time: refused (3 were timed, the summary's count the only sign).
      {{g, "--bench-sources", "5", "--sources", file("three.txt", "1\n2\n3\n")},
       64,
       "holds 3 source sets; ask for at most that many"},
      {{g, "--tol", "1e-400"}, 64, "got 0 (a value below 4.9e-324"},
      {{g, g}, 64, "(pagerank reads one GRAPH; options are --name value)"},
      {{path("missing.mtx")}, 66, "missing.mtx"},
      // A name holding a line break or a carriage return: one line still.
      {{path("two\nlines\r.mtx")}, 66, "two\\x0alines\\x0d.mtx: no such file"},
      {{rect}, 65, "rect.mtx: PageRank needs a square adjacency matrix"},
      {{empty}, 65, ""},
  };
  for (const bad_case& c : cases) {
    const outcome o = run(c.args);
    std::string what;
    for (const auto& a : c.args) what += a + " ";
    EXPECT_EQ(o.code, c.code) << what << "\n" << o.err;
    EXPECT_EQ(o.err_lines(), 1) << what << "\n" << o.err;
    EXPECT_EQ(o.err.rfind("pagerank: error: ", 0), 0u) << what << "\n" << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << what << "\n" << o.err;
    EXPECT_TRUE(o.out.empty()) << what << "\n" << o.out;
  }
}

// A graph without vertices: one line naming the file or the spec, in the
// single solve, --sources and --bench-sources (was "the graph is empty (0
// vertices)" alone).
TEST_F(pagerank_app, EmptyGraphNamesItsFileOrSpec) {
  const std::string comments = file("comments.txt", "# no edges\n% none\n");
  const std::string zero = file("zero.mtx", "%%MatrixMarket matrix coordinate pattern general\n0 0 0\n");
  const std::string sets = file("sets.txt", "1\n");
  for (const std::string& g :
       {comments, zero, std::string("grid:0:5"), std::string("chain:0:1"), std::string("tridiag:0")})
    for (const std::vector<std::string>& more :
         {std::vector<std::string>{}, {"--sources", sets}, {"--bench-sources", "2"}}) {
      std::vector<std::string> args{g, "--device", "cpu"};
      args.insert(args.end(), more.begin(), more.end());
      const outcome o = run(args);
      EXPECT_EQ(o.code, 65) << g << "\n" << o.err;
      EXPECT_EQ(o.err_lines(), 1) << g << "\n" << o.err;
      EXPECT_NE(o.err.find(g + ": the graph is empty (0 vertices)"), std::string::npos) << o.err;
    }
}

// --gpus takes --bench-dist (per GPU timings) and a GPU --kernel: no usage
// error (where no GPU or NCCL is present the error says that instead).
TEST_F(pagerank_app, GpusTakesBenchDistAndAGpuKernel) {
  const std::string g = file("small.mtx", small_mtx);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{g, "--gpus", "1", "--bench-dist"},
        std::vector<std::string>{g, "--gpus", "1", "--kernel", "merge"}}) {
    const outcome o = run(args);
    EXPECT_NE(o.code, 64) << args[2] << " " << args[3] << "\n" << o.err;
    EXPECT_EQ(o.err.find("cannot be combined"), std::string::npos) << o.err;
  }
  // Where it runs, --json says the GPUs solved (device_choice once said "cpu": the
  // host converts P^T before the split).
  const outcome j = run({g, "--gpus", "1", "--json"});
  if (j.code == 0) {
    EXPECT_NE(j.out.find("\"chosen\": \"cuda\""), std::string::npos) << j.out;
  }
}

// Every file of the bad-input suite, as a user would meet it: one line on
// stderr naming the file (and the line where there is one), the exit code of
// its error kind, nothing on stdout.
TEST_F(pagerank_app, EveryInvalidFileGivesOneLineAndItsExitCode) {
  const std::string dir = data_dir() + "/invalid";
  std::ifstream manifest(dir + "/MANIFEST.tsv");
  ASSERT_TRUE(manifest) << dir;
  const std::map<std::string, int> code_of = {{"io_error", 66}, {"parse_error", 65}, {"not_supported", 69}};
  std::string row;
  int cases = 0;
  while (std::getline(manifest, row)) {
    if (row.empty() || row[0] == '#') continue;
    std::istringstream fields(row);
    std::string name, kind, line;
    std::getline(fields, name, '\t');
    std::getline(fields, kind, '\t');
    std::getline(fields, line, '\t');
    ASSERT_TRUE(code_of.count(kind)) << row;
    const std::string p = dir + "/" + name;
    const outcome o = run({p, "--no-cache"});
    // Built without libarchive (the GPU bundle): an archive, or a .bz2, .xz
    // or .zst file, is refused as such, and that is what it says.
    if (o.code == 69 && o.err.find("needs libarchive") != std::string::npos) continue;
    EXPECT_EQ(o.code, code_of.at(kind)) << name << "\n" << o.err;
    EXPECT_EQ(o.err_lines(), 1) << name << "\n" << o.err;
    EXPECT_EQ(o.err.rfind("pagerank: error: ", 0), 0u) << name << "\n" << o.err;
    // file:line: (an archive's member sits between: archive:member:line:)
    const auto at = o.err.find(p);
    EXPECT_NE(at, std::string::npos) << name << "\n" << o.err;
    if (std::stoi(line) > 0 && at != std::string::npos) {
      EXPECT_NE(o.err.find(":" + line + ": ", at + p.size()), std::string::npos)
          << name << ":" << line << "\n"
          << o.err;
    }
    EXPECT_TRUE(o.out.empty()) << name << "\n" << o.out;
    ++cases;
  }
  EXPECT_GT(cases, 60);
}

// A small file declaring 2^31 - 2^16 - 1 vertices (pagerank_max_vertices):
// one clear error at once, no attempt to allocate ~100 GB (the limit is
// pinned so that the GPU host's 128 GB give the same answer as CI's 24 GB);
// one declaring 2^31 - 1, past that count, the same from its count alone.
TEST_F(pagerank_app, TooLargeForThisMachineIsOneClearError) {
  ::setenv("PERRON_MEMORY_LIMIT", "20e9", 1);
  for (const std::string vertices : {"2147418111", "2147483647"}) {
    const std::string g =
        file("huge-" + vertices + ".mtx",
             "%%MatrixMarket matrix coordinate pattern general\n" + vertices + " " + vertices + " 1\n1 1\n");
    const outcome o = run({g, "--no-cache"});
    EXPECT_EQ(o.code, 65) << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find(vertices + " vertices"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find(vertices == "2147418111" ? "GB of memory" : "PageRank takes at most 2147418111"),
              std::string::npos)
        << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
  ::unsetenv("PERRON_MEMORY_LIMIT");
}

// A generated graph the host cannot hold with PageRank's vectors is refused
// from its spec before it is generated (rmat:26 fits the generator's own check
// under this limit, 16 bytes a vertex, but not PageRank's 52).
TEST_F(pagerank_app, TooLargeAGeneratedGraphIsRefusedBeforeItIsGenerated) {
  ::setenv("PERRON_MEMORY_LIMIT", "2e9", 1);
  const auto start = std::chrono::steady_clock::now();
  const outcome o = run({"rmat:26:10", "--device", "cpu"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::unsetenv("PERRON_MEMORY_LIMIT");
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find("PageRank of 'rmat:26:10' (67108864 vertices"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("PERRON_MEMORY_LIMIT"), std::string::npos) << o.err;
  EXPECT_LT(seconds, 2.0);
  EXPECT_TRUE(o.out.empty()) << o.out;
  // The matrices too: tridiag:20000000 (0.96 GB of triplets) and
  // synthetic:seed1:3500000 (0.9 GB) were generated first, and refused after
  // ("tridiag:20000000: PageRank of a graph of ...").
  ::setenv("PERRON_MEMORY_LIMIT", "1e9", 1);
  for (const char* spec : {"tridiag:20000000", "synthetic:seed1:3500000"}) {
    const outcome m = run({spec, "--device", "cpu", "--no-cache"});
    EXPECT_EQ(m.code, 65) << m.err;
    EXPECT_EQ(m.err_lines(), 1) << m.err;
    EXPECT_NE(m.err.find("PageRank of '" + std::string(spec) + "' ("), std::string::npos) << m.err;
  }
  ::unsetenv("PERRON_MEMORY_LIMIT");
}

// A spec of 2^64 - 1 draws is refused naming them: the count was its bytes'
// double cast back to an integer, undefined past 2^64, and said "up to 0 links".
TEST_F(pagerank_app, AGeneratedGraphOfTheMostDrawsNamesThem) {
  const std::string spec = "er:1000:18446744073709551615";
  const outcome o = run({spec, "--device", "cpu"});
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find("(1000 vertices, up to 18446744073709551615 links)"), std::string::npos) << o.err;
  const outcome u = run({spec, "--device", "cpu", "--undirected"});
  EXPECT_EQ(u.code, 65) << u.err;
  EXPECT_EQ(u.err_lines(), 1) << u.err;
  EXPECT_NE(u.err.find("up to 2 x 18446744073709551615 links, undirected"), std::string::npos) << u.err;
  const outcome h = run({"er:1000:9223372036854775807", "--device", "cpu", "--undirected"});
  EXPECT_NE(h.err.find("up to 18446744073709551614 links, undirected"), std::string::npos) << h.err;
}

// OMP_NUM_THREADS past what the process can start: one warning and the run on
// thread_ceiling()'s team, where libgomp died of SIGSEGV in its first
// parallel region (100000 threads under ulimit -u 96365: every input, a file
// or a generated graph, one solve or a batch).
TEST_F(pagerank_app, TooManyOpenMPThreadsAreCappedWithAWarning) {
  const char* kept = std::getenv("OMP_NUM_THREADS");
  const std::string before = kept ? kept : "";
  ::setenv("OMP_NUM_THREADS", "100000", 1);
  const std::string sources = file("sources.txt", "1 2\n3\n");
  const outcome one = run({"rmat:12:50000", "--device", "cpu", "--top", "1"});
  const outcome batch = run({"rmat:12:50000", "--device", "cpu", "--sources", sources, "--top", "1"});
  if (kept)
    ::setenv("OMP_NUM_THREADS", before.c_str(), 1);
  else
    ::unsetenv("OMP_NUM_THREADS");
  for (const outcome* o : {&one, &batch}) {
    EXPECT_EQ(o->code, 0) << o->err;
    EXPECT_NE(o->err.find("warning: OMP_NUM_THREADS=100000 is more threads than this process can start"),
              std::string::npos)
        << o->err;
    EXPECT_FALSE(o->out.empty());
  }
  // Past int's range the runtime's count wraps (4294967297 read as 1 thread, without a word).
  for (const char* huge : {"4294967297", "2147483648"}) {
    const outcome o = run_command(std::string("OMP_NUM_THREADS=") + huge + " " + quote(app_path("pagerank")) +
                                      " rmat:12:50000 --device cpu --top 1 --no-cache",
                                  dir_);
    EXPECT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.err.find(std::string("warning: OMP_NUM_THREADS=") + huge + " is more threads"),
              std::string::npos)
        << o.err;
  }
}

// The binary cache: on by default, a second run loads from it with the same
// ranks; --no-cache neither reads nor writes it; --cache-dir moves it.
TEST_F(pagerank_app, SecondRunLoadsFromTheCache) {
  const std::string g = file("small.mtx", small_mtx);
  const fs::path xdg = dir_ / "xdg-cache" / "perron";
  outcome o = run({g, "--no-cache", "--device", "cpu", "--output", path("a.tsv")});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_FALSE(fs::exists(xdg));
  o = run({g, "--device", "cpu", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"from_cache\": false"), std::string::npos) << o.out;
  ASSERT_TRUE(fs::exists(xdg));
  EXPECT_FALSE(fs::is_empty(xdg));
  o = run({g, "--device", "cpu", "--output", path("b.tsv")});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("from the cache"), std::string::npos) << o.out;
  EXPECT_EQ(slurp(path("a.tsv")), slurp(path("b.tsv")));
  o = run({g, "--device", "cpu", "--cache-dir", path("elsewhere")});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("parse"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::is_empty(path("elsewhere")));
  // A folder that cannot be made is one warning, not one per file the run
  // would keep (the entry, then the iterations: two lines before), and the
  // run goes on.
  std::ofstream(path("a-file")) << "not a folder\n";
  o = run({g, "--device", "cpu", "--cache-dir", path("a-file")});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find("cannot create the cache directory"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(path("a-file")), "not a folder\n");
  // So is a folder where no file can be made (read-only; root writes there,
  // but not in /proc/self): the entry and the iterations said it twice.
  fs::create_directories(path("read-only"));
  fs::permissions(path("read-only"), fs::perms::owner_read | fs::perms::owner_exec);
  const std::string read_only = ::geteuid() == 0 ? "/proc/self" : path("read-only");
  o = run({g, "--device", "cpu", "--cache-dir", read_only});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find("cannot write a cache file in " + read_only + " ("), std::string::npos) << o.err;
}

// --names: a list whose first edge gives integer ids and a later one a name
// is read by name (refused without it, the error saying so). Its cache
// entries are its own: a run with it and a run without it each read the
// file their own way, then each from its own entry.
TEST_F(pagerank_app, NamesReadsEveryVertexByName) {
  const std::string g = file("mixed.txt", "1 2\n2 alice\nalice 1\n");
  const fs::path xdg = dir_ / "xdg-cache" / "perron";
  outcome o = run({g, "--device", "cpu"});
  EXPECT_EQ(o.code, 65);  // EX_DATAERR
  EXPECT_NE(o.err.find("mixed.txt:2:"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("with --names"), std::string::npos) << o.err;
  o = run({g, "--names", "--device", "cpu", "-p", "double", "--output", path("r.tsv")});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("vertex names"), std::string::npos) << o.out;
  EXPECT_EQ(slurp(path("r.tsv")).substr(0, 2), "1\t");
  EXPECT_NE(slurp(path("r.tsv")).find("\nalice\t"), std::string::npos);
  EXPECT_TRUE(fs::exists(xdg) && !fs::is_empty(xdg));
  o = run({g, "--names", "--device", "cpu", "-p", "double", "--output", path("r2.tsv")});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("from the cache"), std::string::npos) << o.out;
  EXPECT_EQ(slurp(path("r2.tsv")), slurp(path("r.tsv")));
  // A list of integers under --names: names, "07" apart from "7"; read by
  // ids, one vertex. Each reading twice, the second from its own entry.
  const std::string ints = file("ints.txt", "7 07\n07 7\n");
  for (int pass = 0; pass < 2; ++pass) {
    o = run({ints, "--names", "--device", "cpu", "--top", "2"});
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.out.find("vertices    2"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("from the cache") != std::string::npos, pass == 1) << o.out;
    o = run({ints, "--device", "cpu", "--top", "2"});
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.out.find("vertices    1"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("from the cache") != std::string::npos, pass == 1) << o.out;
  }
  // On a file that is no edge list it changes nothing, and says so.
  o = run({file("small.mtx", small_mtx), "--names", "--device", "cpu"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("is no edge list, so it changes nothing"), std::string::npos) << o.err;
}

// --bipartite: KONECT's "% bip" file read as two sets (the note that says so
// without it), the items after the users; a rectangular matrix as a graph of
// rows and columns (refused without it, the error naming the option); the
// second run from its own cache entry, the same ranks; what is one set refused.
TEST_F(pagerank_app, BipartiteReadsTwoSetsOfVertices) {
  const std::string g = file("out.konect", "% bip unweighted\n% 5 3 3\n1 1\n1 2\n2 2\n3 3\n3 1\n");
  outcome o = run({g, "--device", "cpu", "--top", "1"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("--bipartite keeps them apart"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("vertices    3"), std::string::npos) << o.out;
  o = run(
      {g, "--device", "cpu", "--sources", file("sources.txt", "1\n3\n")});  // the batched solve says it too
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("--bipartite keeps them apart"), std::string::npos) << o.err;
  for (const char* tsv : {"a.tsv", "b.tsv"}) {
    o = run({g, "--bipartite", "--device", "cpu", "-p", "double", "--output", path(tsv)});
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(o.err, "");
    EXPECT_NE(o.out.find("vertices    6"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("     1             5"), std::string::npos)
        << o.out;  // item 2: users 1 and 2 link it
    EXPECT_NE(o.out.find("bipartite: the first 3 vertices, then the second set from id 4"), std::string::npos)
        << o.out;
    EXPECT_EQ(o.out.find("from the cache") != std::string::npos, std::string(tsv) == "b.tsv") << o.out;
    const std::string ranks = slurp(path(tsv));  // in vertex order: users 1-3, then items 4-6
    EXPECT_EQ(std::count(ranks.begin(), ranks.end(), '\n'), 6) << ranks;
    EXPECT_NE(ranks.find("\n6\t"), std::string::npos) << ranks;
  }
  EXPECT_EQ(slurp(path("a.tsv")), slurp(path("b.tsv")));
  o = run({g, "--bipartite", "--device", "cpu", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"bipartite\": {\"first_set\": 3, \"second_from\": 4}"), std::string::npos) << o.out;
  const std::string rect = test::data_dir() + "/lp_afiro.mtx";
  o = run({rect, "--device", "cpu", "--no-cache"});
  EXPECT_EQ(o.code, 65);
  EXPECT_NE(o.err.find("got 27 x 51; rows and columns as two sets of vertices: --bipartite"),
            std::string::npos)
      << o.err;
  o = run({rect, "--bipartite", "--undirected", "--device", "cpu", "--no-cache", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"vertices\": 78"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"links\": 204"), std::string::npos) << o.out;
  o = run({test::data_dir() + "/karate.mtx", "--bipartite", "--device", "cpu"});
  EXPECT_EQ(o.code, 69);
  EXPECT_NE(o.err.find("a symmetric matrix's rows and columns are one set"), std::string::npos) << o.err;
  o = run({"rmat:8:100", "--bipartite"});
  EXPECT_EQ(o.code, 64);
  EXPECT_NE(o.err.find("a generated graph's vertices are one set"), std::string::npos) << o.err;
  o = run({g, "--bipartite", "--names"});
  EXPECT_EQ(o.code, 64);
}

// An edge list of vertex names (networkx's write_edgelist of a graph of
// strings): the same ranks as the graph numbered in order of first
// appearance, every output naming its vertices, from the file, from the arcs'
// cache and from the kept CSR of A^T alike; the files that name vertices
// (--personalize, --sources) name them so too.
TEST_F(pagerank_app, VertexNames) {
  const std::string named = file("friends.edgelist",
                                 "alice bob {}\nbob carol {'weight': 2.0}\ncarol alice {}\n\"dave o'neil\" "
                                 "alice {}\ncarol caf\xc3\xa9 {}\n");
  const std::string ids = file("friends.txt", "0 1 1\n1 2 2\n2 0 1\n3 0 1\n2 4 1\n");
  const std::vector<std::string> names = {"alice", "bob", "carol", "dave o'neil", "caf\xc3\xa9"};
  for (const char* weighted : {"--weighted", "--no-weighted"}) {
    std::vector<std::string> common = {"--device", "cpu", "-p", "double", "--tol", "1e-12"};
    if (std::string(weighted) == "--weighted") common.push_back(weighted);
    auto with = [&](std::vector<std::string> a) {
      a.insert(a.end(), common.begin(), common.end());
      return a;
    };
    const outcome base = run(with({ids, "--no-cache", "-o", path("ids.tsv")}));
    ASSERT_EQ(base.code, 0) << base.err;
    // The file, then its arcs' cache entry, then the kept CSR of A^T.
    for (int pass = 0; pass < 3; ++pass) {
      const outcome o = run(with({named, "-o", path("names.tsv"), "--json"}));
      ASSERT_EQ(o.code, 0) << o.err;
      EXPECT_NE(o.out.find("\"format\": \"edge list"), std::string::npos) << o.out;
      EXPECT_NE(o.out.find("vertex names"), std::string::npos) << o.out;
      EXPECT_NE(o.out.find("{\"vertex\": \"alice\", \"rank\": "), std::string::npos) << o.out;
      // Line k of each output: vertex k's name (or id) and the same rank.
      std::istringstream a(slurp(path("ids.tsv"))), b(slurp(path("names.tsv")));
      std::string la, lb;
      for (std::size_t k = 0; k < names.size(); ++k) {
        ASSERT_TRUE(std::getline(a, la) && std::getline(b, lb)) << pass;
        // A name with a blank quoted, so that --initial reads the file back.
        const std::string field = names[k].find(' ') != std::string::npos ? "\"" + names[k] + "\"" : names[k];
        EXPECT_EQ(lb, field + la.substr(la.find('\t'))) << pass;
      }
    }
    // ... and it does: the ranks as the start vector, the solve done at once.
    const outcome again = run(with({named, "--initial", path("names.tsv"), "--json"}));
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_NE(again.out.find("\"converged\": true"), std::string::npos) << again.out;
    const outcome top = run(with({named, "--top", "2"}));
    ASSERT_EQ(top.code, 0) << top.err;
    const std::string table = top.out.substr(std::min(top.out.size(), top.out.find("top 2 vertices")));
    EXPECT_EQ(
        std::count_if(names.begin(), names.end(),
                      [&](const std::string& v) { return table.find("  " + v + "  ") != std::string::npos; }),
        2)
        << top.out;
  }
  // --personalize and --sources by name; a name not in the graph is one error with its line.
  const outcome p =
      run({named, "--device", "cpu", "--personalize", file("p.txt", "caf\xc3\xa9 1\nbob 0.5\n")});
  EXPECT_EQ(p.code, 0) << p.err;
  const outcome q = run({named, "--device", "cpu", "--personalize", file("q.txt", "bob 1\nerin 1\n")});
  EXPECT_NE(q.code, 0);
  EXPECT_NE(q.err.find("q.txt:2: vertex erin is not in the graph"), std::string::npos) << q.err;
  const outcome s = run({named, "--device", "cpu", "--sources", file("s.txt", "alice\nbob:2 carol\n"),
                         "--top", "1", "--output", path("s.tsv")});
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(slurp(path("s.tsv")).rfind("source_line\tvertex\trank\n1\t", 0), 0u) << slurp(path("s.tsv"));
  const outcome t = run({named, "--device", "cpu", "--sources", file("t.txt", "alice erin:2\n")});
  EXPECT_NE(t.code, 0);
  EXPECT_NE(t.err.find("t.txt:1: vertex erin is not in the graph"), std::string::npos) << t.err;
}

// A cache entry larger than the file-size limit (ulimit -f) is not kept, with
// a warning, and the run goes on: SIGXFSZ killed it while it wrote the entry
// (no output, the entry's temporary left in the cache folder). An output
// past the limit is the output's error line.
TEST_F(pagerank_app, AFileSizeLimitIsAWarningForTheCache) {
  std::string text = "%%MatrixMarket matrix coordinate pattern general\n100 100 6000\n";
  for (int k = 0; k < 6000; ++k)
    text += std::to_string(k % 100 + 1) + " " + std::to_string((k * 7 + k / 100) % 100 + 1) + "\n";
  const std::string g = file("dense.mtx", text);
  outcome o = run({g, "--no-cache", "--device", "cpu", "--output", path("a.tsv")});
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_LT(slurp(path("a.tsv")).size(), 4000u);  // within the limit below, the entry (48 KB) past it
  const std::string cmd = "ulimit -f 16; " + quote(app_path("pagerank")) + " " + quote(g) +
                          " --device cpu --cache-dir " + quote(path("c")) + " --output " +
                          quote(path("b.tsv"));
  o = run_command(cmd, dir_);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("(File too large); not caching"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(path("a.tsv")), slurp(path("b.tsv")));
  for (const auto& e : fs::directory_iterator(path("c")))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  o = run_command("ulimit -f 1; " + quote(app_path("pagerank")) + " " + quote(g) +
                      " --no-cache --device cpu --output " + quote(path("c.tsv")),
                  dir_);
  EXPECT_EQ(o.code, 66) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find("c.tsv: cannot write: File too large"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(path("c.tsv")));
}

// A side file of the cache that is not perron's (here the iteration count
// kept beside the entry) is one warning a run, not one per read of it (three
// before: the device choice, the trial and the count after the solve), and
// the run replaces it.
TEST_F(pagerank_app, ABadSideFileIsOneWarning) {
  const std::string g = file("small.mtx", small_mtx);
  const fs::path xdg = dir_ / "xdg-cache" / "perron";
  outcome o = run({g, "--device", "cpu"});
  ASSERT_EQ(o.code, 0) << o.err;
  std::vector<fs::path> sides;
  for (const auto& e : fs::directory_iterator(xdg))
    if (e.path().filename().string().find(".perron-cache.iterations") != std::string::npos)
      sides.push_back(e.path());
  ASSERT_EQ(sides.size(), 1u);
  for (const std::string& junk : {std::string("garbage\n"), std::string(300000, 'x')}) {
    std::ofstream(sides[0], std::ios::binary | std::ios::trunc) << junk;
    o = run({g, "--device", "cpu"});
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("not a perron side file; ignored"), std::string::npos) << o.err;
    EXPECT_EQ(slurp(sides[0]).rfind("perron-side 1\n", 0), 0u);
  }
}

// An unweighted graph's first conversion keeps its CSR of A^T beside the
// cache entry, and the next run builds P^T from it in place: the same ranks,
// bit for bit, in float and double, for a SNAP file (its own ids), a
// symmetric Matrix Market file and a general one. A weighted run reads the
// arcs; a kept part damaged, or a file changed since, is read again and its
// part written again.
TEST_F(pagerank_app, SecondRunBuildsFromTheKeptTranspose) {
  const fs::path xdg = dir_ / "xdg-cache" / "perron";
  const auto parts = [&] {
    std::vector<fs::path> found;
    if (fs::exists(xdg))
      for (const auto& e : fs::directory_iterator(xdg))
        if (e.path().extension() == ".perron-part") found.push_back(e.path());
    return found;
  };
  for (const char* name : {"wiki-Vote.txt", "bcsstk01.mtx", "wb-cs-stanford.mtx"}) {
    const std::string g = file(name, slurp(std::string(PERRON_SOURCE_DIR "/data/") + name));
    for (const char* precision : {"float", "double"}) {
      const std::string at = std::string(name) + " " + precision;
      outcome o = run({g, "--no-cache", "--device", "cpu", "-p", precision, "--output", path("a.tsv")});
      ASSERT_EQ(o.code, 0) << at << ": " << o.err;
      o = run({g, "--device", "cpu", "-p", precision, "--json", "--output", path("b.tsv")});
      ASSERT_EQ(o.code, 0) << at << ": " << o.err;
      // The part is the graph's, whatever the precision: kept by the float runs.
      const bool first = std::string(precision) == "float";
      EXPECT_NE(o.out.find(first ? "\"cache_transposed\": false" : "\"cache_transposed\": true"),
                std::string::npos)
          << at << ": " << o.out;
      o = run({g, "--device", "cpu", "-p", precision, "--json", "--output", path("c.tsv")});
      ASSERT_EQ(o.code, 0) << at << ": " << o.err;
      EXPECT_NE(o.out.find("\"cache_transposed\": true"), std::string::npos) << at << ": " << o.out;
      EXPECT_EQ(slurp(path("a.tsv")), slurp(path("b.tsv"))) << at;
      EXPECT_EQ(slurp(path("a.tsv")), slurp(path("c.tsv"))) << at;
    }
  }
  ASSERT_EQ(parts().size(), 3u);

  const std::string g = file("small.mtx", small_mtx);
  outcome o = run({g, "--device", "cpu", "--weighted", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  o = run({g, "--device", "cpu", "--weighted", "--json", "--output", path("w.tsv")});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"cache_transposed\": false"), std::string::npos) << o.out;
  EXPECT_EQ(parts().size(), 3u);  // none kept for a weighted run

  o = run({g, "--device", "cpu", "--output", path("a.tsv")});
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_EQ(parts().size(), 4u);
  for (const fs::path& part : parts())
    if (part.filename().string().rfind("small.mtx", 0) == 0) fs::resize_file(part, fs::file_size(part) / 2);
  o = run({g, "--device", "cpu", "--json", "--output", path("b.tsv")});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"cache_transposed\": false"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("warning: ignoring the cache"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("perron-part"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(path("a.tsv")), slurp(path("b.tsv")));
  o = run({g, "--device", "cpu", "--json", "--output", path("c.tsv")});
  EXPECT_NE(o.out.find("\"cache_transposed\": true"), std::string::npos) << o.out;
  EXPECT_EQ(slurp(path("a.tsv")), slurp(path("c.tsv")));

  // 1 -> 2 only now (1-based): vertex 4 has lost its in-link and ranks as vertex 5.
  auto before = parse_tsv(slurp(path("a.tsv")));
  EXPECT_GT(before[4], before[5]);
  file("small.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 5 1\n1 2\n");
  o = run({g, "--device", "cpu", "--json", "--output", path("d.tsv")});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"cache_transposed\": false"), std::string::npos) << o.out;
  auto after = parse_tsv(slurp(path("d.tsv")));
  EXPECT_EQ(after[4], after[5]);
  EXPECT_GT(after[2], after[1]);
}

// A kept CSR of A^T that cannot be written (here: a directory where the part
// goes, which a rename cannot replace, as root too; a read-only cache or a
// full disk after the arcs' entry was written fail the same way) is said
// once, on the load's line and in the JSON, and the run still succeeds.
// Before, the summary said "its CSR of A^T kept in 0.001 s" all the same.
TEST_F(pagerank_app, TheSummarySaysWhyTheTransposeWasNotKept) {
  const fs::path xdg = dir_ / "xdg-cache" / "perron";
  const std::string g = file("small.mtx", small_mtx);
  outcome o = run({g, "--device", "cpu"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("its CSR of A^T kept in"), std::string::npos) << o.out;
  fs::path part;
  for (const auto& e : fs::directory_iterator(xdg))
    if (e.path().extension() == ".perron-part") part = e.path();
  ASSERT_FALSE(part.empty());
  fs::remove(part);
  fs::create_directory(part);
  std::ofstream(part / "in-the-way") << "x";
  for (bool json : {false, true}) {
    std::vector<std::string> args = {g, "--device", "cpu"};
    if (json) args.push_back("--json");
    o = run(args);
    ASSERT_EQ(o.code, 0) << o.err;
    const std::string both = o.out + o.err;
    EXPECT_EQ(both.find("kept in"), std::string::npos) << o.out;
    const std::size_t at = both.find("cannot write the cache " + part.string());
    ASSERT_NE(at, std::string::npos) << o.out << o.err;
    EXPECT_EQ(both.find("cannot write the cache", at + 1), std::string::npos) << "said twice: " << both;
    if (json) {
      EXPECT_NE(o.out.find("\"transpose_kept\": 0, \"transpose_not_kept\": \"cannot write the cache"),
                std::string::npos)
          << o.out;
    } else {
      EXPECT_NE(o.out.find("its CSR of A^T not kept (cannot write the cache"), std::string::npos) << o.out;
      EXPECT_NE(o.out.find("(Is a directory)"), std::string::npos) << o.out;
    }
  }
  fs::remove_all(part);
  o = run({g, "--device", "cpu", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"transpose_not_kept\": null"), std::string::npos) << o.out;
  EXPECT_TRUE(fs::is_regular_file(part));
}

// --device auto predicts with the iterations the last solve of the same
// setting took (kept beside the cache entry; for a generated graph, by its
// spec), and with the bound before there is one or for another setting.
TEST_F(pagerank_app, DeviceChoiceRemembersTheIterations) {
  const std::string g = file("small.mtx", small_mtx);
  const auto from = [](const outcome& o) {
    const std::string key = "\"iterations_from\": \"";
    const auto at = o.out.find(key);
    if (at == std::string::npos) return std::string("none");
    const auto b = at + key.size();
    return o.out.substr(b, o.out.find('"', b) - b);
  };
  for (const std::string& input : {g, std::string("rmat:8:2000")}) {
    SCOPED_TRACE(input);
    outcome o = run({input, "--device", "cpu", "--json"});
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(from(o), "bound") << o.out;
    o = run({input, "--device", "cpu", "--json"});
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(from(o), "last solve") << o.out;
    const auto it = o.out.find("\"iterations\": "), ex = o.out.find("\"expected_iterations\": ");
    ASSERT_NE(it, std::string::npos);
    ASSERT_NE(ex, std::string::npos);
    EXPECT_EQ(std::atoi(o.out.c_str() + it + 14), std::atoi(o.out.c_str() + ex + 23)) << o.out;
    o = run({input, "--device", "cpu", "--json", "--alpha", "0.7"});  // another setting
    EXPECT_EQ(from(o), "bound") << o.out;
    o = run({input, "--device", "cpu", "--json", "--no-cache"});
    EXPECT_EQ(from(o), "bound") << o.out;
  }
}

// A run that may start a CUDA context splits first (apps/common/detached_exit.hpp):
// the process the shell waits for ends with the run's code and output, and the
// run with it when it is stopped. A graph read from a FIFO makes a CUDA build's
// run start one (auto has no size to guess from) and then wait, with or without
// a GPU; a build without CUDA starts none.
TEST_F(pagerank_app, ARunSplitForTheTeardownEndsAsTheRun) {
  // $1: piped (the output through a pipe, then the graph), term (SIGTERM to
  // the process the shell knows), both split by PERRON_TEARDOWN=background,
  // or wait (the value of PERRON_TEARDOWN in $2; $3, the processes expected).
  // The run's processes: those whose command line starts with "$BIN $FIFO".
  const std::string script = file("split.sh", R"sh(set -u -o pipefail
count() { pgrep -f -- "^$BIN $FIFO" | wc -l; }
until_count() { for i in $(seq 200); do [ "$(count)" "$1" "$2" ] && break; sleep 0.05; done; }
cd "$(dirname "$FIFO")"; rm -f "$FIFO"; mkfifo "$FIFO"
case $1 in
  piped)
    ("$BIN" "$FIFO" --no-cache -o - --top 0 | cat > ranks.tsv; echo "code $?" > code) &
    until_count -ge 2; echo "split $(count)"; cat "$KARATE" > "$FIFO"; wait; cat code ;;
  term)
    "$BIN" "$FIFO" --no-cache -o out.tsv & p=$!
    until_count -ge 2; echo "split $(count)"; kill -TERM $p; wait $p; echo "code $?"
    until_count -eq 0; echo "left $(count)"; pkill -KILL -f -- "^$BIN $FIFO"; true ;;
  wait)
    PERRON_TEARDOWN=$2 "$BIN" "$FIFO" --no-cache --top 0 > /dev/null & p=$!
    until_count -ge "$3"; sleep 0.2; echo "split $(count)"; cat "$KARATE" > "$FIFO"; wait $p; echo "code $?" ;;
esac
)sh");
  const std::string env = "PERRON_TEARDOWN=background BIN=" + quote(app_path("pagerank")) +
                          " FIFO=" + quote((dir_ / "graph.mtx").string()) +
                          " KARATE=" + quote(PERRON_SOURCE_DIR "/data/karate.mtx") + " bash " +
                          quote(script) + " ";
  if (!cuda::built()) {
    // No context to start, so nothing to tear down: no run splits, asked to or not.
    const outcome o = run_command(env + "wait background 1", dir_);
    EXPECT_NE(o.out.find("split 1"), std::string::npos) << o.out << o.err;
    EXPECT_NE(o.out.find("code 0"), std::string::npos) << o.out << o.err;
    return;
  }
  outcome o = run_command(env + "piped", dir_);
  EXPECT_NE(o.out.find("split 2"), std::string::npos) << o.out << o.err;
  EXPECT_EQ(slurp(dir_ / "code"), "code 0\n") << o.out << o.err;
  EXPECT_EQ(parse_tsv(slurp(dir_ / "ranks.tsv")).size(), 34u);
  o = run_command(env + "term", dir_);
  EXPECT_NE(o.out.find("split 2"), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.out.find("code 143"), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.out.find("left 0"), std::string::npos) << o.out << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.tsv"));
  o = run_command(env + "wait wait 1", dir_);
  EXPECT_NE(o.out.find("split 1"), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.out.find("code 0"), std::string::npos) << o.out << o.err;
  // Unset: split where a context can start (a device node; none: nothing to tear down).
  const bool node = fs::exists("/dev/nvidiactl") || fs::exists("/dev/dxg");
  o = run_command(env + (node ? "wait '' 2" : "wait '' 1"), dir_);
  EXPECT_NE(o.out.find(node ? "split 2" : "split 1"), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.out.find("code 0"), std::string::npos) << o.out << o.err;
  o = run_command("PERRON_TEARDOWN=later " + quote(app_path("pagerank")) + " " +
                      quote(PERRON_SOURCE_DIR "/data/karate.mtx") + " --device cuda --no-cache",
                  dir_);
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_EQ(o.err, "pagerank: error: PERRON_TEARDOWN must be background or wait, not 'later'\n");
}

TEST_F(pagerank_app, DevicesAndKernels) {
  const std::string g = file("small.mtx", small_mtx);
  outcome o = run({g, "--device", "cpu", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"device\": \"cpu\""), std::string::npos);
  // A named device is used; the model's prediction is still reported (in a
  // build with CUDA: without, there is no GPU to predict for).
  EXPECT_NE(
      o.out.find(
          std::string(
              "\"device_choice\": {\"asked\": \"cpu\", \"chosen\": \"cpu\", \"reason\": \"--device cpu (auto "
              "would take cpu: ") +
          (cuda::built() ? "predicted cpu " : "perron was built without CUDA)")),
      std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("\"context\": null"), std::string::npos) << o.out;  // no context started
  EXPECT_NE(o.out.find("\"host_syncs\": 0"), std::string::npos);
  o = run({g, "--kernel", "cpu", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"device\": \"cpu\""), std::string::npos);
  if (!cuda::available()) {
    o = run({g, "--device", "cuda"});
    EXPECT_EQ(o.code, 70) << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    o = run({g});  // auto falls back to the CPU
    EXPECT_EQ(o.code, 0) << o.err;
    // ... but not where a GPU kernel or pull is named: it would be dropped.
    for (const auto& named : {std::vector<std::string>{"--kernel", "merge"},
                              {"--pull", "fused"},
                              {"--pull", "spmv"},
                              {"--sources", file("s.txt", "1\n"), "--kernel", "ell"}}) {
      std::vector<std::string> cmd{g};
      cmd.insert(cmd.end(), named.begin(), named.end());
      o = run(cmd);
      EXPECT_EQ(o.code, 70) << named.back() << ": " << o.err;
      EXPECT_EQ(o.err_lines(), 1) << o.err;
      EXPECT_NE(o.err.find(named[named.size() - 2] + " " + named.back() + " runs on the GPU"),
                std::string::npos)
          << o.err;
    }
    return;
  }
  // A GPU kernel or pull named under auto takes the GPU, however small the graph.
  for (const auto& named : {std::vector<std::string>{"--kernel", "merge"}, {"--pull", "fused"}}) {
    std::vector<std::string> cmd{g, "--json"};
    cmd.insert(cmd.end(), named.begin(), named.end());
    o = run(cmd);
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.out.find("\"device\": \"cuda\""), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\"reason\": \"auto: " + named[0] + " " + named[1] + " runs on the GPU"),
              std::string::npos)
        << o.out;
  }
  for (const char* k : {"auto", "csr-scalar", "csr-vector", "cusparse", "merge"}) {
    o = run({g, "--device", "cuda", "--kernel", k, "--json"});
    ASSERT_EQ(o.code, 0) << k << ": " << o.err;
    EXPECT_NE(o.out.find("\"device\": \"cuda\""), std::string::npos) << k;
    EXPECT_NE(o.out.find("\"converged\": true"), std::string::npos) << k;
  }
  o = run({g, "--json"});  // five vertices: the CPU is done before the CUDA context
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"device\": \"cpu\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"reason\": \"auto: predicted cpu "), std::string::npos) << o.out;
  // The model alone: a graph this small goes to the persistent pull.
  o = run({g, "--device", "cuda", "--json", "--pull-trial", "off"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"kernel\": \"pull-persistent\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"pull_choice\": {\"pull\": \"persistent\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"reason\": \"model\""), std::string::npos) << o.out;
  // Where the model is unsure (from 10^5 links), a trial; its outcome is kept
  // beside the cache entry and the next run reuses it; --no-cache: no trial
  // (nothing to keep it in) unless --pull-trial on.
  std::string middle = "%%MatrixMarket matrix coordinate pattern general\n40009 40009 120027\n";
  for (long i = 0; i < 40009; ++i)
    for (const long j : {(i + 1) % 40009, (2 * i + 1) % 40009, (3 * i + 7) % 40009})
      middle += std::to_string(i + 1) + " " + std::to_string(j + 1) + "\n";
  const std::string fresh = file("fresh.mtx", middle);
  o = run({fresh, "--device", "cuda", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"reason\": \"trial: "), std::string::npos) << o.out;
  o = run({fresh, "--device", "cuda", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"reason\": \"cached trial: "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"trial_ms\": 0}"), std::string::npos) << o.out;
  o = run({fresh, "--device", "cuda", "--json", "--no-cache"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"reason\": \"model\""), std::string::npos) << o.out;
  o = run({fresh, "--device", "cuda", "--json", "--no-cache", "--pull-trial", "on"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"reason\": \"trial: "), std::string::npos) << o.out;
  o = run({g, "--device", "cuda", "--pull", "fused", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"reason\": \"named\""), std::string::npos) << o.out;
  for (const auto& args :
       {std::vector<std::string>{"--weighted"}, std::vector<std::string>{"--kernel", "merge"}}) {
    std::vector<std::string> cmd{g, "--device", "cuda", "--json"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    o = run(cmd);  // auto: the SpMV pull for a weighted graph or a named kernel
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(o.out.find("\"kernel\": \"pull-fused\""), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("\"kernel\": \"pull-persistent\""), std::string::npos) << o.out;
  }
  for (const char* p : {"fused", "persistent", "spmv"}) {
    o = run({g, "--device", "cuda", "--pull", p, "--json"});
    ASSERT_EQ(o.code, 0) << p << ": " << o.err;
    EXPECT_NE(o.out.find("\"converged\": true"), std::string::npos) << p;
    const std::string pattern = "\"kernel\": \"pull-" + std::string(p) + "\"";
    EXPECT_EQ(o.out.find(pattern) != std::string::npos, std::string(p) != "spmv") << o.out;
  }
  o = run({g, "--device", "cuda", "--loop", "check-every", "--check-every", "3", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"loop\": \"check-every\""), std::string::npos) << o.out;
}

}  // namespace
}  // namespace perron::test
