// .gz input streamed window by window (io/text_input.hpp open_gzip_windows,
// inflated by ISA-L or zlib on a second thread): the same matrix as the
// inflated text parsed whole, for every .gz in the data folders and with
// windows small enough to cut every file many times; a gzip bomb fails on its
// first window, and memory stays bounded by the windows, not the text.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/load.hpp"
#include "io/matrix_market.hpp"
#include "io/snap.hpp"
#include "io/text_input.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

namespace fs = std::filesystem;
using io_gzip_stream = test::scratch_test;

// Inflated by zlib's own gzread: independent of the inflater under test.
std::string zlib_inflate(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  std::string out;
  char buf[1 << 16];
  for (int n; f && (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  if (f) gzclose(f);
  return out;
}

std::vector<std::string> gz_files() {
  std::vector<std::string> files;
  for (const std::string& dir : {test::data_dir(), test::shared_data_dir()}) {
    if (dir.empty() || !fs::is_directory(dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string p = e.path().string();
      if (p.find("/invalid/") == std::string::npos && p.size() > 3 &&
          p.compare(p.size() - 3, 3, ".gz") == 0 && p.find(".tar.gz") == std::string::npos)
        files.push_back(p);
    }
  }
  return files;
}

bool is_snap(const std::string& p) { return p.find(".txt") != std::string::npos; }

TEST(io_gzip_stream_files, SameMatrixAsTheWholeTextForEveryWindowSize) {
  const auto files = gz_files();
  if (files.empty()) GTEST_SKIP() << "no .gz files found";
  for (const std::string& path : files) {
    const std::string text = zlib_inflate(path);
    io::read_options opt;
    opt.cache.enabled = false;
    const io::loaded_matrix whole = io::parse_matrix(text, path, opt);
    const io::loaded_matrix loaded = io::load_matrix(path, opt);
    EXPECT_EQ(loaded.timings.text_bytes, text.size()) << path;
    for (std::size_t window : {std::size_t(0), std::size_t(4096), std::size_t(1) << 20}) {
      if (window == 4096 && text.size() > (std::size_t(8) << 20)) continue;  // thousands of windows: slow
      coo_matrix<double> a;
      std::vector<std::int64_t> label;
      if (window == 0) {
        a = loaded.matrix;
        label = loaded.label;
      } else if (is_snap(path)) {
        auto w = io::detail::open_gzip_windows(path, window);
        auto g = io::detail::parse_snap_windows(*w, path, opt);
        a = std::move(g.matrix);
        label = std::move(g.original_id);
      } else {
        auto w = io::detail::open_gzip_windows(path, window);
        a = io::detail::parse_matrix_market_windows(*w, path, opt).matrix;
      }
      EXPECT_EQ(a.rows, whole.matrix.rows) << path << " window " << window;
      EXPECT_EQ(a.cols, whole.matrix.cols) << path;
      EXPECT_EQ(a.row_idx, whole.matrix.row_idx) << path << " window " << window;
      EXPECT_EQ(a.col_idx, whole.matrix.col_idx) << path << " window " << window;
      EXPECT_EQ(a.values, whole.matrix.values) << path << " window " << window;
      EXPECT_EQ(label, whole.label) << path;
    }
  }
}

// Writes `parts` as one gzip member (level 1), each part `times` times.
void write_gz(const std::string& path, const std::vector<std::pair<std::string, std::size_t>>& parts) {
  gzFile f = gzopen(path.c_str(), "wb1");
  ASSERT_NE(f, nullptr);
  for (const auto& [text, times] : parts)
    for (std::size_t k = 0; k < times; ++k)
      ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// 256 MiB of zero bytes (about 256 KiB compressed): the banner check on the
// first window fails at once, having inflated a few windows at most.
TEST_F(io_gzip_stream, ZeroBombFailsOnItsFirstWindow) {
  const std::string bomb = path("bomb.mtx.gz");
  write_gz(bomb, {{std::string(1 << 20, '\0'), 256}});
  const long before = peak_rss_kib();
  io::read_options opt;
  opt.cache.enabled = false;
  try {
    io::load_matrix(bomb, opt);
    FAIL() << "no error";
  } catch (const parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("MatrixMarket"), std::string::npos) << e.what();
  }
  EXPECT_THROW(io::read_matrix_market(bomb), parse_error);
  EXPECT_LT(peak_rss_kib() - before, 64 << 10) << "KiB of peak memory for the bomb";
}

// A valid file with 192 MiB of blank lines between its entries: the windows
// are parsed and dropped, so memory grows by far less than the text.
TEST_F(io_gzip_stream, LongRunOfBlankLinesStreams) {
  const std::string f = path("blanks.mtx.gz");
  write_gz(f, {{"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n", 1},
               {std::string(1 << 20, ' ') + "\n", 192},
               {"3 1\n", 1}});
  const long before = peak_rss_kib();
  io::read_options opt;
  opt.cache.enabled = false;
  const auto m = io::load_matrix(f, opt);
  EXPECT_EQ(m.matrix.nnz(), 2u);
  EXPECT_EQ(m.timings.text_bytes, 192u * ((1u << 20) + 1) + 63u);
  EXPECT_LT(peak_rss_kib() - before, 96 << 10) << "KiB of peak memory for 192 MiB of blanks";
}

// A dense array of many windows, in every symmetry: parsed from one text,
// whose first window was read after the next call had refilled its buffer
// ("value '\x004637' is not a number" on a 26 MB array, session 107).
TEST_F(io_gzip_stream, DenseArrayOfManyWindows) {
  for (const std::string symmetry : {"general", "symmetric"}) {
    const std::string f = path("array-" + symmetry + ".mtx.gz");
    const int n = 300;
    std::string body = "%%MatrixMarket matrix array real " + symmetry + "\n% a comment\n" +
                       std::to_string(n) + " " + std::to_string(n) + "\n";
    for (int j = 0; j < n; ++j)
      for (int i = symmetry == "general" ? 0 : j; i < n; ++i)
        body += (i + 2 * j) % 7 == 0 ? "0\n" : std::to_string(i * n + j + 1) + ".25\n";
    write_gz(f, {{body, 1}});
    io::read_options opt;
    opt.cache.enabled = false;
    const io::loaded_matrix whole = io::parse_matrix(body, f, opt);
    ASSERT_GT(whole.matrix.nnz(), 0u);
    // The inflater on a thread of its own, and the parallel one inflating
    // in next() into the one buffer (the file above a tuned minimum size).
    io::detail::gzip_tuning in_turns;
    in_turns.min_file_bytes = 1;
    in_turns.min_threads = 2;
    in_turns.chunk_bytes = 20000;
    for (std::size_t window : {std::size_t(0), std::size_t(4096), std::size_t(1) << 16})
      for (bool parallel : {false, true}) {
        const std::string at = symmetry + " window " + std::to_string(window) + (parallel ? " parallel" : "");
        coo_matrix<double> a;
        if (window == 0) {
          if (parallel) continue;
          a = io::load_matrix(f, opt).matrix;
        } else {
          auto w =
              io::detail::open_gzip_windows(f, window, 2, parallel ? in_turns : io::detail::gzip_tuning{});
          a = io::detail::parse_matrix_market_windows(*w, f, opt).matrix;
        }
        EXPECT_EQ(a.rows, n) << at;
        EXPECT_EQ(a.row_idx, whole.matrix.row_idx) << at;
        EXPECT_EQ(a.col_idx, whole.matrix.col_idx) << at;
        EXPECT_EQ(a.values, whole.matrix.values) << at;
      }
  }
}

// Headers that end at a window's end or run past it: the first window held
// the header alone, and its edge list's edges (in the windows after it) were
// all dropped; comments past the first window made the size line "missing"
// (at a wrong line) or the columns wrong. Each as the text parsed whole.
TEST_F(io_gzip_stream, HeadersAtAndPastTheFirstWindowsEnd) {
  const std::size_t window = 4096;
  const std::string comments = [] {
    std::string c;
    for (int k = 0; k < 2000; ++k) c += (k % 3 ? "# " : "  % ") + std::to_string(k) + " a comment line\n";
    return c;
  }();
  std::string mm_comments = comments;  // Matrix Market's comments: '%' first
  for (char& c : mm_comments)
    if (c == '#') c = '%';
  mm_comments.erase(std::remove(mm_comments.begin(), mm_comments.end(), ' '), mm_comments.end());
  const std::string columns = "source target weight\n";
  std::vector<std::pair<std::string, std::string>> cases = {
      // The first window ends right after the column names.
      {"at-end.txt.gz", std::string(window - 1 - columns.size(), '#') + "\n" + columns},
      {"long-comments.txt.gz", comments + columns},
      {"bom-long-comments.txt.gz", "\xEF\xBB\xBF" + comments},
      {"long-comments.mtx.gz",
       "%%MatrixMarket matrix coordinate real general\n" + mm_comments + "40 40 120\n"},
      {"names.txt.gz", comments + "source,target\n"},
  };
  for (auto& [file, head] : cases) {
    std::string body = head;
    for (int k = 0; k < 120; ++k) {
      const int u = k % 40 + 1, v = (7 * k + 3) % 40 + 1;
      if (file == "names.txt.gz")
        body += "user" + std::to_string(u) + ",item" + std::to_string(v) + "\n";
      else
        body += std::to_string(u) + " " + std::to_string(v) +
                (file == "bom-long-comments.txt.gz" ? "" : " 0.5") + "\n";
    }
    const std::string f = path(file);
    write_gz(f, {{body, 1}});
    io::read_options opt;
    opt.cache.enabled = false;
    const io::loaded_matrix whole = io::parse_matrix(body, f, opt);
    ASSERT_EQ(whole.matrix.nnz(), 120u) << file;
    for (bool parallel : {false, true}) {
      io::detail::gzip_tuning tune;
      if (parallel) {
        tune.min_file_bytes = 1;
        tune.min_threads = 2;
        tune.pipeline = true;
        tune.chunk_bytes = 5000;
      }
      const auto w = io::detail::open_gzip_windows(f, window, 3, tune);
      coo_matrix<double> a;
      std::vector<std::int64_t> label;
      std::vector<std::string> names;
      if (file.find(".mtx") != std::string::npos) {
        a = io::detail::parse_matrix_market_windows(*w, f, opt).matrix;
      } else {
        auto g = io::detail::parse_snap_windows(*w, f, opt);
        a = std::move(g.matrix);
        label = std::move(g.original_id);
        names = std::move(g.name);
      }
      const std::string at = file + (parallel ? " pipelined" : "");
      EXPECT_EQ(a.rows, whole.matrix.rows) << at;
      EXPECT_EQ(a.row_idx, whole.matrix.row_idx) << at;
      EXPECT_EQ(a.col_idx, whole.matrix.col_idx) << at;
      EXPECT_EQ(a.values, whole.matrix.values) << at;
      EXPECT_EQ(label, whole.label) << at;
      EXPECT_EQ(names, whole.name) << at;
    }
  }
}

// GraphML and GML written on one line (minified): read from .gz as the
// plain text is, past the 8 MiB a line may hold in Matrix Market or an edge
// list (they were refused as "a line longer than 8 MiB"), by load_matrix's
// windows and by windows of 4096 bytes cut anywhere.
TEST_F(io_gzip_stream, OneLineGraphmlAndGml) {
  const int n = 300000;
  std::string graphml = "<?xml version=\"1.0\"?><graphml><graph edgedefault=\"directed\">";
  std::string gml = "graph [ directed 1 ";
  for (int i = 1; i <= n; ++i) {
    graphml += "<node id=\"n" + std::to_string(i) + "\"/>";
    gml += "node [ id " + std::to_string(i) + " ] ";
  }
  for (int i = 1; i <= n; ++i) {
    const std::string u = std::to_string(i), v = std::to_string(i * 7 % n + 1);
    graphml += "<edge source=\"n" + u + "\" target=\"n" + v + "\"/>";
    gml += "edge [ source " + u + " target " + v + " ] ";
  }
  graphml += "</graph></graphml>";
  gml += "]";
  ASSERT_GT(graphml.size(), std::size_t(16) << 20);  // past two windows of 8 MiB
  io::read_options opt;
  opt.cache.enabled = false;
  for (const auto& [file, text] :
       {std::pair<std::string, std::string>{"one.graphml", graphml}, {"one.gml", gml}}) {
    const std::string plain = path(file), packed = path(file + ".gz");
    { std::ofstream(plain, std::ios::binary) << text; }
    write_gz(packed, {{text, 1}});
    const io::loaded_matrix want = io::load_matrix(plain, opt);
    ASSERT_EQ(want.matrix.nnz(), std::size_t(n)) << file;
    const io::loaded_matrix got = io::load_matrix(packed, opt);
    EXPECT_EQ(got.matrix.row_idx, want.matrix.row_idx) << file;
    EXPECT_EQ(got.matrix.col_idx, want.matrix.col_idx) << file;
    EXPECT_EQ(got.name, want.name) << file;
    EXPECT_EQ(got.label, want.label) << file;
  }
}

// Errors keep their line numbers across windows.
TEST_F(io_gzip_stream, ErrorLineNumbersAcrossWindows) {
  const std::string f = path("bad.mtx.gz");
  std::string body = "%%MatrixMarket matrix coordinate real general\n1000 1000 5000\n";
  for (int k = 0; k < 3000; ++k) body += "1 1 1.5\n";
  body += "1 x 2\n";
  write_gz(f, {{body, 1}});
  auto w = io::detail::open_gzip_windows(f, 4096);
  try {
    io::detail::parse_matrix_market_windows(*w, f, {});
    FAIL() << "no error";
  } catch (const parse_error& e) {
    EXPECT_NE(std::string(e.what()).find(":3003"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace perron
