// io::load_matrix dispatch: synthetic specs, Matrix Market by banner, SNAP by
// extension or by sniffing, gzip by magic bytes (not by name), SuiteSparse
// .tar.gz through libarchive; and what the result carries (labels, flags,
// timings).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/archive.hpp"
#include "io/interrupt.hpp"
#include "io/load.hpp"
#include "io/snap.hpp"
#include "io/synthetic.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

namespace fs = std::filesystem;

using io_load = test::scratch_test;

const std::string mm_text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4\n3 1 -1\n";
const std::string edge_text = "# g\n10 20\n20 30\n";

TEST_F(io_load, MatrixMarketIsFoundByItsBannerWhateverTheName) {
  for (const char* name : {"a.mtx", "a.dat", "a", "a.txt"}) {
    const auto m = io::load_matrix(write(name, mm_text));
    EXPECT_EQ(m.format, io::input_format::matrix_market) << name;
    EXPECT_TRUE(m.symmetric);
    EXPECT_FALSE(m.pattern);
    EXPECT_EQ(m.matrix.nnz(), 3u);
    EXPECT_TRUE(m.label.empty());
    EXPECT_EQ(m.naming()(2), "3");  // Matrix Market vertices are named 1..n
  }
  // A vertex past the labels is refused, not read from past them.
  io::loaded_matrix m;
  m.label = {5, 6};
  EXPECT_EQ(m.naming()(1), "6");
  EXPECT_THROW(m.naming()(7), dimension_error);
  EXPECT_THROW(m.naming().json(-1), dimension_error);
  m.name = {"a"};
  m.label.clear();
  EXPECT_THROW(m.naming().field(1), dimension_error);
}

TEST_F(io_load, SnapByExtensionOrBySniffing) {
  for (const char* name : {"g.txt", "g.el", "g.tsv", "g.edges", "g.TXT", "graph"}) {
    const auto m = io::load_matrix(write(name, edge_text));
    EXPECT_EQ(m.format, io::input_format::snap) << name;
    EXPECT_TRUE(m.pattern);
    EXPECT_EQ(m.matrix.rows, 3);
    EXPECT_EQ(m.label, (std::vector<std::int64_t>{10, 20, 30}));
    EXPECT_EQ(m.naming()(1), "20");
  }
}

// read_options::undirected: every arc of an edge list, a general file or a
// generated graph also reversed, the mirrors after the arcs in their order
// (a self loop once); a symmetric file is undirected already (not mirrored
// twice); the cache keeps the arcs as listed; a matrix that is not square
// cannot be an undirected graph.
TEST_F(io_load, UndirectedMirrorsEveryArcOnceAfterTheArcs) {
  io::read_options undirected;
  undirected.undirected = true;
  undirected.cache.enabled = true;
  undirected.cache.dir = (dir_ / "cache").string();
  const std::string edges = write("u.txt", "# g\n10 20\n20 30\n30 30\n");
  for (int round = 0; round < 2; ++round) {  // parsed, then from the cache entry
    const auto m = io::load_matrix(edges, undirected);
    EXPECT_TRUE(m.undirected);
    EXPECT_EQ(m.timings.from_cache, round == 1);
    EXPECT_EQ(m.matrix.row_idx, (std::vector<index_t>{0, 1, 2, 1, 2}));
    EXPECT_EQ(m.matrix.col_idx, (std::vector<index_t>{1, 2, 2, 0, 1}));
  }
  undirected.cache.enabled = false;
  const auto directed = io::load_matrix(edges, {});
  EXPECT_FALSE(directed.undirected);
  EXPECT_EQ(directed.matrix.nnz(), 3u);
  const auto sym = io::load_matrix(write("s.mtx", mm_text), undirected);
  EXPECT_TRUE(sym.undirected);
  EXPECT_EQ(sym.matrix.nnz(), 3u);  // (1,1), (3,1) and its mirror, as without
  const auto gen = io::load_matrix("chain:4:4", undirected);
  EXPECT_EQ(gen.matrix.nnz(), 6u);
  EXPECT_THROW(
      io::load_matrix(write("r.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 3\n"),
                      undirected),
      dimension_error);
}

// read_options::bipartite: an edge list's two columns, or a matrix's rows and
// columns, as two sets of vertices, the first set's vertices first: KONECT's
// sets (both from 1) put the second after the first's largest id; ids
// already apart stay as written; a matrix's column j is vertex rows + j. Its
// cache entry is its own and keeps the first set; --undirected mirrors after.
// Refused for what is one set: a symmetric matrix, a graph file, names, a
// generated graph.
TEST_F(io_load, BipartiteReadsTwoSetsOfVertices) {
  io::read_options two;
  two.bipartite = true;
  two.cache.enabled = true;
  two.cache.dir = (dir_ / "cache").string();
  const std::string konect = write("out.k", "% bip unweighted\n% 5 3 3\n1 1\n1 2\n2 2\n3 3\n3 1\n");
  for (int round = 0; round < 2; ++round) {  // parsed, then from its cache entry
    const auto m = io::load_matrix(konect, two);
    EXPECT_EQ(m.timings.from_cache, round == 1);
    EXPECT_EQ(m.first_set, 3);
    EXPECT_EQ(m.matrix.rows, 6);
    EXPECT_EQ(m.matrix.cols, 6);
    EXPECT_EQ(m.label, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(m.matrix.row_idx, (std::vector<index_t>{0, 0, 1, 2, 2}));
    EXPECT_EQ(m.matrix.col_idx, (std::vector<index_t>{3, 4, 4, 5, 3}));
  }
  const auto one = io::load_matrix(konect, [&] {
    io::read_options o = two;
    o.bipartite = false;
    return o;
  }());
  EXPECT_FALSE(one.timings.from_cache);  // the default reading's entry is another
  EXPECT_EQ(one.first_set, 0);
  EXPECT_EQ(one.matrix.rows, 3);
  two.cache.enabled = false;
  // Sets whose ids are apart already keep them; sets of a user's own kind
  // (the first column's ids above the second's) move the second past the first.
  auto m = io::load_matrix(write("apart.txt", "1 10\n2 12\n"), two);
  EXPECT_EQ(m.label, (std::vector<std::int64_t>{1, 2, 10, 12}));
  m = io::load_matrix(write("zero.txt", "0 0\n5 1\n"), two);
  EXPECT_EQ(m.label, (std::vector<std::int64_t>{0, 5, 6, 7}));
  EXPECT_EQ(m.first_set, 2);
  // A vertex only in the second column, one only in the first.
  m = io::load_matrix(write("one-sided.txt", "7 8\n"), two);
  EXPECT_EQ(m.label, (std::vector<std::int64_t>{7, 8}));
  // Weights stay with their arcs; --undirected mirrors the arcs between the sets.
  two.undirected = true;
  m = io::load_matrix(write("w.txt", "1 1 0.5\n2 1 2\n"), two);
  EXPECT_EQ(m.label, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(m.matrix.row_idx, (std::vector<index_t>{0, 1, 2, 2}));
  EXPECT_EQ(m.matrix.col_idx, (std::vector<index_t>{2, 2, 0, 1}));
  EXPECT_EQ(m.matrix.values, (std::vector<double>{0.5, 2, 0.5, 2}));
  two.undirected = false;
  // A rectangular matrix: rows, then columns (empty ones too), ids 1 .. rows + cols.
  m = io::load_matrix(test::data_dir() + "/lp_afiro.mtx", two);
  EXPECT_EQ(m.first_set, 27);
  EXPECT_EQ(m.matrix.rows, 78);
  EXPECT_EQ(m.matrix.cols, 78);
  EXPECT_TRUE(m.label.empty());
  const auto plain = io::load_matrix(test::data_dir() + "/lp_afiro.mtx");
  EXPECT_EQ(m.matrix.row_idx, plain.matrix.row_idx);
  for (std::size_t e = 0; e < m.matrix.nnz(); ++e)
    EXPECT_EQ(m.matrix.col_idx[e], plain.matrix.col_idx[e] + 27);
  // One set, refused with the reason.
  const auto refused = [&](const std::string& path, const std::string& words) {
    try {
      io::load_matrix(path, two);
      ADD_FAILURE() << path << " read as two sets";
    } catch (const not_supported& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused(test::data_dir() + "/karate.mtx", "a symmetric matrix's rows and columns are one set");
  refused(test::data_dir() + "/lesmis.gml", "a graph file declares its vertices");
  refused(write("names.txt", "alice bob\nbob carol\n"), "an edge list of vertex names");
  refused("rmat:8:100", "a generated graph's vertices are one set");
  two.all_names = true;  // refused before the cache, whose bipartite entry would serve it
  refused(write("ints.txt", "1 2\n"), "--names (Python: names=True) reads one set of names");
  two.cache.enabled = true;
  refused(konect, "--names (Python: names=True) reads one set of names");
}

TEST_F(io_load, MtxNameWithoutBannerSaysSo) {
  try {
    io::load_matrix(write("edges.mtx", edge_text));
    FAIL();
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 1u);
    EXPECT_NE(e.reason.find("missing Matrix Market banner"), std::string::npos);
  }
}

// gzip is told by its magic bytes: a gzipped file without .gz in its name
// reads, and so does the bundled email-Eu-core.txt.gz.
TEST_F(io_load, GzipByMagicBytes) {
  const auto plain = io::load_matrix(test::data_dir() + "/karate.mtx");
  const std::string gz = (dir_ / "karate.mtx.gz").string();
  ASSERT_EQ(std::system(("gzip -c '" + test::data_dir() + "/karate.mtx' > '" + gz + "'").c_str()), 0);
  const std::string renamed = (dir_ / "karate-compressed.mtx").string();
  fs::copy_file(gz, renamed);
  for (const auto& p : {gz, renamed}) {
    const auto m = io::load_matrix(p);
    EXPECT_EQ(m.matrix.row_idx, plain.matrix.row_idx) << p;
    EXPECT_EQ(m.matrix.col_idx, plain.matrix.col_idx);
    EXPECT_GT(m.timings.text_bytes, m.timings.file_bytes);  // it was inflated
  }
  const auto email = io::load_matrix(test::data_dir() + "/email-Eu-core.txt.gz");
  EXPECT_EQ(email.format, io::input_format::snap);
  EXPECT_EQ(email.matrix.rows, 1005);
  EXPECT_EQ(email.matrix.nnz(), 25571u);
}

TEST_F(io_load, SuiteSparseTarGzReadsTheMainMatrix) {
  const std::string archive = test::data_dir() + "/karate.tar.gz";
  io::loaded_matrix m;
  try {
    m = io::load_matrix(archive);
  } catch (const not_supported& e) {
    GTEST_SKIP() << e.what();  // built without libarchive
  }
  const auto plain = io::load_matrix(test::data_dir() + "/karate.mtx");
  EXPECT_EQ(m.format, io::input_format::matrix_market);
  EXPECT_TRUE(m.pattern);
  EXPECT_TRUE(m.symmetric);
  EXPECT_EQ(m.matrix.row_idx, plain.matrix.row_idx);
  EXPECT_EQ(m.matrix.col_idx, plain.matrix.col_idx);
  EXPECT_EQ(m.matrix.values, plain.matrix.values);
  // A .tgz of the same content, named differently: the only .mtx is taken.
  const auto other = io::load_matrix(copy(archive, "club.tgz"));
  EXPECT_EQ(other.matrix.row_idx, plain.matrix.row_idx);
}

// Whether this build reads archives (libarchive); the tests of archives skip without it.
bool reads_archives() {
  try {
    io::load_matrix(test::data_dir() + "/karate.tar.gz");
    return true;
  } catch (const not_supported&) {
    return false;
  }
}

void expect_same_graph(const io::loaded_matrix& m, const io::loaded_matrix& plain, const std::string& what) {
  EXPECT_EQ(m.matrix.row_idx, plain.matrix.row_idx) << what;
  EXPECT_EQ(m.matrix.col_idx, plain.matrix.col_idx) << what;
  EXPECT_EQ(m.symmetric, plain.symmetric) << what;
}

// How often `file` was opened for reading from now on, by inotify: its
// IN_CLOSE_NOWRITE events (-1 where the system gives none). Opens are not
// counted: inotify merges an event into the same event unread before it, and
// the writer's and the reader's IN_OPEN come together; a reader's closes have
// its next IN_OPEN between them.
class read_counter {
 public:
  explicit read_counter(const std::string& file) : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    if (fd_ >= 0 && ::inotify_add_watch(fd_, file.c_str(), IN_OPEN | IN_CLOSE_NOWRITE) < 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~read_counter() {
    if (fd_ >= 0) ::close(fd_);
  }
  read_counter(const read_counter&) = delete;
  read_counter& operator=(const read_counter&) = delete;
  int reads() {
    if (fd_ < 0) return -1;
    alignas(inotify_event) char buf[4096];
    for (;;) {
      const ssize_t got = ::read(fd_, buf, sizeof buf);
      if (got <= 0) break;
      for (ssize_t at = 0; at < got;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
        if (e->mask & IN_CLOSE_NOWRITE) ++reads_;
        at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
    }
    return reads_;
  }

 private:
  int fd_;
  int reads_ = 0;
};

// `source` loaded as it comes through the named pipe `fifo` (which the reader
// can neither seek nor open twice) is `plain`'s graph, and the reader opened
// the pipe once. A second open (a peek at the format, then the read) lost
// what the writer had sent and hung or cut the read, but only where the
// writer was quick enough: the count catches it every time.
void expect_same_through_pipe(const std::string& source, const std::string& fifo,
                              const io::loaded_matrix& plain) {
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  read_counter counter(fifo);
  ASSERT_EQ(std::system(("cat '" + source + "' > '" + fifo + "' &").c_str()), 0);
  try {
    expect_same_graph(io::load_matrix(fifo), plain, source + " through a pipe");
  } catch (const error& e) {
    ADD_FAILURE() << source << " through a pipe: " << e.what();
  }
  const int reads = counter.reads();
  if (reads >= 0) {
    EXPECT_EQ(reads, 1) << source << " through a pipe: opened for reading more than once";
  }
  fs::remove(fifo);
}

// A SuiteSparse archive through a named pipe (mkfifo g.tar.gz; curl ... >
// g.tar.gz &) reads as from its file, gzipped or a plain tar: the bytes read
// to tell gzip from tar were lost to the pipe, and the .tar.gz was refused as
// 'corrupt gzip data (incorrect header)', the .tar opened a second time.
TEST_F(io_load, SuiteSparseArchiveThroughANamedPipe) {
  if (!reads_archives()) GTEST_SKIP() << "built without libarchive";
  const std::string archive = test::data_dir() + "/karate.tar.gz";
  const auto plain = io::load_matrix(test::data_dir() + "/karate.mtx");
  const std::string tar = path("karate.tar");
  ASSERT_EQ(std::system(("gzip -dc '" + archive + "' > '" + tar + "'").c_str()), 0);
  for (const std::string& source : {archive, tar})
    expect_same_through_pipe(source, path("club.tar.gz"), plain);
}

// Every plain format through a named pipe, read once: GraphML and Pajek are
// read window by window (a peek at a regular file's head picks that), the
// others whole (session 95: the peek opened the pipe and lost its text).
TEST_F(io_load, PlainFilesThroughANamedPipeAreOpenedOnce) {
  const std::string d = test::data_dir();
  for (const char* file : {"karate.graphml", "karate.gml", "dolphins.net", "karate.mtx", "wiki-Vote.txt"}) {
    const std::string source = d + "/" + file;
    expect_same_through_pipe(source, path(std::string("pipe-") + file), io::load_matrix(source));
  }
}

// A read from a named pipe whose writer sent a little and then waits runs the
// thread's interrupt check (io/interrupt.hpp) as it waits, and what the check
// throws ends it; a check that does not throw lets it wait on to the end.
// The read retried an interrupted read() and waited for the writer for ever:
// perron.read_matrix ignored Ctrl-C (session 104).
struct stop_reading {};

TEST_F(io_load, AReadThatWaitsOnAPipeRunsTheInterruptCheck) {
  const std::string text = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n";
  struct fed {
    std::string name, head, rest;  // the writer sends head, waits, then sends rest
    std::size_t nnz;
  };
  std::vector<fed> cases = {{"wait.mtx", text.substr(0, 30), text.substr(30), 2},
                            {"wait.graphml", text.substr(0, 30), text.substr(30), 2}};
  if (reads_archives()) {
    const std::string tar = path("karate.tar");
    ASSERT_EQ(std::system(("gzip -dc '" + test::data_dir() + "/karate.tar.gz' > '" + tar + "'").c_str()), 0);
    std::ifstream in(tar, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    cases.push_back({"wait.tar", bytes.substr(0, 100), bytes.substr(100),
                     io::load_matrix(test::data_dir() + "/karate.mtx").matrix.nnz()});
  }
  for (const fed& c : cases) {
    for (const bool stop : {true, false}) {
      const std::string fifo = path((stop ? "stop-" : "go-") + c.name);
      ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
      std::atomic<bool> go{false};  // the check lets the writer send the rest
      std::thread writer([&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY);
        if (fd < 0) return;
        bool ok = ::write(fd, c.head.data(), c.head.size()) == static_cast<ssize_t>(c.head.size());
        for (int k = 0; k < 1000 && !go; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (ok && !stop)
          ok = ::write(fd, c.rest.data(), c.rest.size()) == static_cast<ssize_t>(c.rest.size());
        ::close(fd);
      });
      int checks = 0;
      {
        io::interrupt_scope scope([&] {
          if (++checks == 2) {
            go = true;
            if (stop) throw stop_reading{};
          }
        });
        if (stop) {
          EXPECT_THROW(io::load_matrix(fifo, io::read_options{}), stop_reading) << c.name;
        } else {
          try {
            EXPECT_EQ(io::load_matrix(fifo, io::read_options{}).matrix.nnz(), c.nnz) << c.name;
          } catch (const error& e) {
            ADD_FAILURE() << c.name << ": " << e.what();
          }
        }
      }
      go = true;
      writer.join();
      EXPECT_GE(checks, 2) << c.name;
      fs::remove(fifo);
    }
  }
}

// An archive is one by its content too: a SuiteSparse .tar.gz saved under
// another name (a download's "karate", "karate.gz") or a tar through a pipe
// of any name (cat karate.tar.gz | pagerank -) read "unrecognized format" or
// "binary data (byte 0x00)".
TEST_F(io_load, ArchivesAreFoundByTheirContent) {
  if (!reads_archives()) GTEST_SKIP() << "built without libarchive";
  const std::string archive = test::data_dir() + "/karate.tar.gz";
  const auto plain = io::load_matrix(test::data_dir() + "/karate.mtx");
  const std::string tar = path("karate.tar");
  ASSERT_EQ(std::system(("gzip -dc '" + archive + "' > '" + tar + "'").c_str()), 0);
  using io::detail::packing;
  EXPECT_EQ(io::detail::packing_of(test::data_dir() + "/karate.mtx"), packing::plain);
  EXPECT_EQ(io::detail::packing_of(path("missing")), packing::plain);
  EXPECT_EQ(io::detail::packing_of(path("missing.tar.gz")), packing::tar);  // libarchive says it is missing
  // A text holding "ustar" where a tar header holds it is still text: the header's checksum says so.
  std::string banner = "%%MatrixMarket matrix coordinate pattern general\n%";
  banner += std::string(257 - banner.size(), ' ') + "ustar" + std::string(300, ' ') + "\n2 2 1\n1 2\n";
  for (const char* name : {"word.mtx", "word"}) {
    const std::string file = write(name, banner);
    EXPECT_EQ(io::detail::packing_of(file), packing::plain) << name;
    EXPECT_EQ(io::load_matrix(file).matrix.nnz(), 1u) << name;
  }
  // Nor is a header that opens with bzip2's "BZh1" a bzip2 stream: its block magic does not follow.
  const std::string bzh = write("bzh.csv", "BZh1,target\n1,2\n");
  EXPECT_EQ(io::detail::packing_of(bzh), packing::plain);
  EXPECT_EQ(io::load_matrix(bzh).matrix.nnz(), 1u);
  for (const auto& [source, name] : {std::pair{archive, "karate"}, std::pair{archive, "karate.gz"},
                                     std::pair{tar, "download"}, std::pair{tar, "karate.dat"}}) {
    const std::string file = copy(source, name);
    EXPECT_EQ(io::detail::packing_of(file), source == archive ? packing::gzip_tar : packing::tar) << name;
    expect_same_graph(io::load_matrix(file), plain, name);
  }
  for (const std::string& source : {archive, tar}) expect_same_through_pipe(source, path("stdin"), plain);
}

// Files compressed whole by bzip2, xz or zstd, tars so compressed and zip
// archives (KONECT's .tar.bz2, Network Repository's .zip) read through
// libarchive, by name or by content, from a file or a pipe; an archive with
// no .mtx gives its one edge list (KONECT's NAME/out.NAME). Each kind is made
// by its command-line tool where the machine has it, else skipped.
TEST_F(io_load, CompressedFilesAndOtherArchives) {
  if (!reads_archives()) GTEST_SKIP() << "built without libarchive";
  const auto plain = io::load_matrix(test::data_dir() + "/karate.mtx");
  const std::string karate = test::data_dir() + "/karate.mtx";
  for (const char* dir : {"pack/karate", "pack/konect", "pack/two"}) fs::create_directories(path(dir));
  fs::copy_file(karate, path("pack/karate/karate.mtx"));
  write("pack/karate/README.txt", "Zachary's karate club\n");
  // KONECT's layout: an edge list with '%' comments, no .mtx.
  write("pack/konect/out.karate", "% sym unweighted\n% 3 4 4\n1 2\n2 3\n4 1\n");
  write("pack/konect/README.karate", "readme\n");
  const auto make = [&](const std::string& command) {
    return std::system(("cd '" + path("pack") + "' && (" + command + ") 2>/dev/null").c_str()) == 0;
  };
  int made = 0;
  const std::pair<const char*, const char*> kinds[] = {
      {"karate.mtx.bz2", "bzip2 -c karate/karate.mtx > karate.mtx.bz2"},
      {"karate.mtx.xz", "xz -c karate/karate.mtx > karate.mtx.xz"},
      {"karate.mtx.zst", "zstd -q -c karate/karate.mtx > karate.mtx.zst"},
      {"karate.tar.bz2", "tar -cjf karate.tar.bz2 karate"},
      {"karate.tar.xz", "tar -cJf karate.tar.xz karate"},
      {"karate.zip", "zip -qr karate.zip karate"},
  };
  for (const auto& [file, command] : kinds) {
    if (!make(command)) continue;
    ++made;
    const std::string named = path(std::string("pack/") + file);
    const std::string unnamed = copy(named, std::string("download-") + std::to_string(made));
    for (const std::string& source : {named, unnamed}) {
      try {
        expect_same_graph(io::load_matrix(source), plain, source);
      } catch (const error& e) {
        ADD_FAILURE() << source << ": " << e.what();
      }
    }
    expect_same_through_pipe(named, path("pipe"), plain);
    // Cut in half: one error that says so (xz's and zip's read "Lzma library
    // error:  No progress is possible" and "ZIP decompression failed (-5)").
    std::ifstream in(named, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string cut = write(std::string("cut-") + file, bytes.substr(0, bytes.size() / 2));
    try {
      io::load_matrix(cut);
      ADD_FAILURE() << cut;
    } catch (const io_error& e) {
      std::string said = e.what();
      for (char& c : said) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      EXPECT_NE(said.find("truncated"), std::string::npos) << e.what();
    }
  }
  if (made == 0) GTEST_SKIP() << "none of bzip2, xz, zstd, tar, zip made its file";
  if (make("tar -cjf konect.tar.bz2 konect")) {
    const auto m = io::load_matrix(path("pack/konect.tar.bz2"));
    EXPECT_EQ(m.format, io::input_format::snap);
    EXPECT_EQ(m.matrix.nnz(), 3u);
    EXPECT_EQ(m.label, (std::vector<std::int64_t>{1, 2, 3, 4}));
  }
  // Two edge lists and no .mtx: which one is the graph is the user's to say.
  write("pack/two/a.edges", "1 2\n");
  write("pack/two/b.txt", "2 3\n");
  if (make("tar -cjf two.tar.bz2 two")) {
    try {
      io::load_matrix(path("pack/two.tar.bz2"));
      ADD_FAILURE() << "two edge lists were taken";
    } catch (const parse_error& e) {
      EXPECT_NE(std::string(e.what()).find("several edge lists"), std::string::npos) << e.what();
    }
  }
  // Netzschleuder's csv.zip: edges.csv (its columns named in a comment)
  // beside nodes.csv and gprops.csv; edges.csv is the graph.
  fs::create_directories(path("pack/nz"));
  write("pack/nz/nodes.csv", "# index, name\n0,a\n1,b\n2,c\n");
  write("pack/nz/edges.csv", "# source, target, time\n0,1,1990\n1,2,1991\n2,0,1992\n");
  write("pack/nz/gprops.csv", "# prop_name, value\nname,test\n");
  if (make("cd nz && zip -q ../nz.csv.zip nodes.csv edges.csv gprops.csv")) {
    const auto m = io::load_matrix(path("pack/nz.csv.zip"));
    EXPECT_EQ(m.format, io::input_format::snap);
    EXPECT_EQ(m.matrix.nnz(), 3u);
    EXPECT_TRUE(m.pattern);  // the time column is no weight
  }
  // Vertices nodes.csv lists and no edge names are the graph's too, in index
  // order (they were dropped: 3 vertices ranked, not 5); in a folder of the
  // zip as well. An edge naming an index nodes.csv lacks is refused.
  fs::create_directories(path("pack/iso/g"));
  write("pack/iso/g/nodes.csv", "index,name\n0,a\n1,\"b, c\"\n2,c\n3,d\n4,e\n");  // a header without '#'
  write("pack/iso/g/edges.csv", "# source, target\n1,3\n3,4\n");
  if (make("cd iso && zip -q -r ../iso.csv.zip g")) {
    const auto m = io::load_matrix(path("pack/iso.csv.zip"));
    EXPECT_EQ(m.matrix.rows, 5);
    EXPECT_EQ(m.matrix.cols, 5);
    EXPECT_EQ(m.label, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(m.matrix.row_idx, (std::vector<index_t>{1, 3}));
    EXPECT_EQ(m.matrix.col_idx, (std::vector<index_t>{3, 4}));
  }
  write("pack/iso/g/edges.csv", "# source, target\n1,3\n3,7\n");
  if (make("cd iso && rm -f ../bad.csv.zip && zip -q -r ../bad.csv.zip g")) {
    try {
      io::load_matrix(path("pack/bad.csv.zip"));
      ADD_FAILURE() << "an edge to a vertex nodes.csv lacks was taken";
    } catch (const parse_error& e) {
      EXPECT_NE(std::string(e.what()).find("vertex 7 is in no line of nodes.csv (its indices end at 4)"),
                std::string::npos)
          << e.what();
    }
  }
}

// Junk after a .tar.gz's gzip data is refused, naming the file, as after a
// .mtx.gz (libarchive ignored it); a second gzip member is not junk.
TEST_F(io_load, TarGzWithTrailingJunkIsRefused) {
  const std::string archive = test::data_dir() + "/karate.tar.gz";
  try {
    io::load_matrix(archive, {});
  } catch (const not_supported& e) {
    GTEST_SKIP() << e.what();  // built without libarchive
  }
  std::ifstream in(archive, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* name : {"karate.tar.gz", "club.tgz"}) {
    const std::string junk = write(name, bytes + "junk after the archive\n");
    try {
      io::load_matrix(junk);
      ADD_FAILURE() << name;
    } catch (const io_error& e) {
      EXPECT_EQ(std::string(e.what()), junk + ": unexpected data after the end of the gzip stream");
    }
  }
  EXPECT_EQ(io::load_matrix(write("twice.tar.gz", bytes + bytes)).matrix.nnz(),
            io::load_matrix(archive).matrix.nnz());
}

// read_options::refuse_negative (pagerank --weighted): a negative weight is
// refused by every reader at its line, saying why; a skew-symmetric entry off
// the diagonal too (its mirror is negated). Without it the same texts read.
TEST_F(io_load, NegativeWeightsAreRefusedAtTheirLineWhereAsked) {
  struct input {
    const char* name;
    std::string text;
    std::uint64_t line;
    const char* says;
  };
  const std::vector<input> inputs = {
      {"g.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 -0.5\n", 4,
       "entry (2, 3) has value -0.5: why"},
      {"i.mtx", "%%MatrixMarket matrix coordinate integer general\n% c\n3 3 2\n1 2 -1\n2 3 1\n", 4,
       "entry (1, 2) has value -1: why"},
      {"s.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 1 2\n", 3,
       "entry (2, 1) of a skew-symmetric matrix stands for (1, 2) = -2: why"},
      {"g.txt", "# c\n1 2 1\n2 3 -2\n", 3, "weight -2: why"},
      {"g.csv", "from,to,weight\n1,2,1\n2,3,-2\n", 3, "weight -2: why"},
      {"n.csv", "Target,Source,Weight\nb,a,1\nc,b,-2\n", 3, "weight -2: why"},
      {"n.txt", "a b 1\nb c -2\n", 2, "weight -2: why"},
      {"d.edgelist", "1 2 {'weight': 1}\n2 3 {'weight': -2}\n", 2, "weight -2: why"},
      {"g.net", "*Vertices 3\n*Arcs\n1 2 1\n2 3 -2\n", 4, "weight -2: why"},
      {"m.net", "*Vertices 2\n*Matrix\n0 1\n-2 0\n", 4, "weight -2: why"},
      {"g.gml",
       "graph [\n directed 1\n node [ id 1 ]\n node [ id 2 ]\n edge [ source 1 target 2 value -2 ]\n]\n", 5,
       "weight -2: why"},
      {"g.graphml",
       "<graphml><key id=\"w\" for=\"edge\" attr.name=\"weight\"/>\n<graph edgedefault=\"directed\">"
       "<node id=\"a\"/><node id=\"b\"/>\n<edge source=\"a\" target=\"b\"><data key=\"w\">-2</data></edge>\n"
       "</graph></graphml>\n",
       3, "edge weight -2: why"},
  };
  io::read_options refuse;
  refuse.refuse_negative = "why";
  for (const input& in : inputs) {
    try {
      io::parse_matrix(in.text, in.name);
    } catch (const not_supported& e) {
      continue;  // GraphML without expat
    }
    try {
      io::parse_matrix(in.text, in.name, refuse);
      ADD_FAILURE() << in.name;
    } catch (const parse_error& e) {
      EXPECT_EQ(e.line, in.line) << in.name << ": " << e.what();
      EXPECT_EQ(e.reason, in.says) << in.name;
    }
  }
  // From a cache entry (written by a reading that keeps negative weights) the
  // refusal still names the line: the file is read again (it named the arc only).
  io::read_options cached;
  cached.cache.enabled = true;
  cached.cache.dir = (dir_ / "cache").string();
  const std::string listed = write("neg.mtx", inputs[0].text);
  for (int round = 0; round < 2; ++round)
    EXPECT_EQ(io::load_matrix(listed, cached).timings.from_cache, round == 1);
  cached.refuse_negative = "why";
  try {
    io::load_matrix(listed, cached);
    ADD_FAILURE() << "a cached negative weight was taken";
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 4u) << e.what();
    EXPECT_EQ(e.reason, inputs[0].says);
  }
  // A zero, a pattern file's entries and a value of -0 are not negative.
  for (const char* text :
       {"1 2 0\n2 3 -0\n", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n"})
    EXPECT_NO_THROW(io::parse_matrix(text, "z.txt", refuse)) << text;
}

// A .tar.gz of no files (tar's end marker only, zeros) is the archive that
// holds nothing, not an unrecognized text.
TEST_F(io_load, EmptyTarGzHoldsNoFile) {
  try {
    io::load_matrix(test::data_dir() + "/karate.tar.gz", {});
  } catch (const not_supported& e) {
    GTEST_SKIP() << e.what();  // built without libarchive
  }
  const std::string empty = write("empty.tar.gz", "");
  gzFile g = gzopen(empty.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  const std::string end_marker(10240, '\0');  // what tar writes for no files
  ASSERT_EQ(gzwrite(g, end_marker.data(), static_cast<unsigned>(end_marker.size())), int(end_marker.size()));
  gzclose(g);
  try {
    io::load_matrix(empty);
    ADD_FAILURE();
  } catch (const parse_error& e) {
    EXPECT_NE(std::string(e.what()).find(empty + ": the archive holds no .mtx file"), std::string::npos)
        << e.what();
  }
}

// A gzipped text whose name says archive (.tgz, .tar.gz) is read as the
// text it holds: it read "Unrecognized archive format".
TEST_F(io_load, GzippedTextNamedAsAnArchiveIsReadAsText) {
  const std::string karate = test::data_dir() + "/karate.mtx";
  const auto want = io::load_matrix(karate, {});
  for (const char* name : {"karate.tgz", "karate.tar.gz"}) {
    const std::string p = (dir_ / name).string();
    ASSERT_EQ(std::system(("gzip -c " + karate + " > " + p).c_str()), 0);
    const auto m = io::load_matrix(p, {});
    EXPECT_EQ(m.matrix.nnz(), want.matrix.nnz()) << name;
    EXPECT_EQ(m.matrix.col_idx, want.matrix.col_idx) << name;
  }
}

// The tar of `archive` (a .tar.gz), `zeros` bytes of zeros after its end
// marker, gzipped again in stored blocks (level 0): its text lies in the file
// as it is, and a flipped digit still inflates.
std::string stored_tar_gz(const std::string& archive, std::size_t zeros) {
  gzFile g = gzopen(archive.c_str(), "rb");
  if (!g) return {};
  std::string tar(1 << 16, '\0');
  tar.resize(static_cast<std::size_t>(gzread(g, tar.data(), static_cast<unsigned>(tar.size()))));
  gzclose(g);
  tar.append(zeros, '\0');
  z_stream zs{};
  if (deflateInit2(&zs, 0, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&zs, static_cast<uLong>(tar.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(tar.data());
  zs.avail_in = static_cast<uInt>(tar.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return rc == Z_STREAM_END ? out : std::string();
}

// A .tar.gz whose gzip data is corrupt but still inflates (its trailer's
// CRC-32 flipped; a digit flipped in a stored block) is refused as a corrupt
// .mtx.gz is. libarchive's gzip filter never checks the CRC: both read as a
// valid graph (the second one with another arc) where libarchive consumed the
// whole file. With 2 MiB after the tar's end marker, the inflater's first
// reads end before the trailer, as in a large archive: the distributed
// reader's windows open, and their last read must refuse it too.
TEST_F(io_load, TarGzWithABadChecksumIsRefused) {
  const std::string archive = test::data_dir() + "/karate.tar.gz";
  try {
    io::load_matrix(archive, {});
  } catch (const not_supported& e) {
    GTEST_SKIP() << e.what();  // built without libarchive
  }
  for (const std::size_t zeros : {std::size_t(0), std::size_t(2) << 20}) {
    const std::string stored = stored_tar_gz(archive, zeros);
    ASSERT_FALSE(stored.empty());
    const std::string good = write("stored.tar.gz", stored);
    EXPECT_EQ(io::load_matrix(good).matrix.col_idx, io::load_matrix(archive).matrix.col_idx);
    std::string crc = stored;
    crc[crc.size() - 8] = static_cast<char>(crc[crc.size() - 8] ^ 1);
    std::string digit = stored;
    const std::size_t at = digit.find("\n2 1\n");
    ASSERT_NE(at, std::string::npos);
    digit[at + 1] = '9';  // the arc 2 -> 1 becomes 9 -> 1
    for (const auto& [name, data] : {std::pair<std::string, std::string>{"crc", crc},
                                     std::pair<std::string, std::string>{"digit", digit}}) {
      // Named karate.tar.gz, so that the windows take its member.
      const std::string dir = name + std::to_string(zeros);
      fs::create_directories(path(dir));
      const std::string file = write(dir + "/karate.tar.gz", data);
      const std::string why = file + ": corrupt gzip data (incorrect data check)";
      try {
        io::load_matrix(file);
        ADD_FAILURE() << dir << " was read";
      } catch (const io_error& e) {
        EXPECT_EQ(std::string(e.what()), why) << dir;
      }
      std::string member;
      const auto windows = io::detail::open_archive_windows(file, 256, member);
      if (zeros == 0) continue;  // the open read it all (nullptr: read_archive_matrix says why)
      ASSERT_NE(windows, nullptr) << dir;
      try {
        while (!windows->next().empty()) {
        }
        ADD_FAILURE() << dir << " was read in windows";
      } catch (const io_error& e) {
        EXPECT_EQ(std::string(e.what()), why) << dir;
      }
    }
  }
}

TEST_F(io_load, SyntheticSpecsNeedNoFile) {
  const auto t = io::load_matrix("tridiag:5");
  EXPECT_EQ(t.format, io::input_format::synthetic);
  EXPECT_FALSE(t.pattern);
  EXPECT_EQ(t.matrix.rows, 5);
  EXPECT_EQ(t.matrix.nnz(), 13u);
  const auto r = io::load_matrix("rmat:8:1000");
  EXPECT_TRUE(r.pattern);
  EXPECT_EQ(r.matrix.rows, 256);
  EXPECT_THROW(io::load_matrix("tridiag:x"), invalid_argument);
}

TEST_F(io_load, TimingsAreFilledIn) {
  const auto m = io::load_matrix(test::data_dir() + "/wiki-Vote.txt");
  EXPECT_FALSE(m.timings.from_cache);
  EXPECT_EQ(m.timings.file_bytes, fs::file_size(test::data_dir() + "/wiki-Vote.txt"));
  EXPECT_EQ(m.timings.text_bytes, m.timings.file_bytes);
  EXPECT_GT(m.timings.parse_seconds, 0.0);
  EXPECT_GE(m.read_seconds, m.timings.parse_seconds + m.timings.read_seconds);
}

// A pipe or device has no size: its first bytes are checked for text (binary
// data refused at line 1) and it is read within the memory free, plain or
// gzip (/dev/zero and /dev/urandom filled the host until the OOM killer).
TEST_F(io_load, EndlessStreamsAreRefusedNotBuffered) {
  for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
    try {
      io::load_matrix(dev);
      FAIL() << dev;
    } catch (const parse_error& e) {
      EXPECT_EQ(e.file, dev);
      EXPECT_GE(e.line, 1u);
      EXPECT_NE(e.reason.find("binary data"), std::string::npos) << e.what();
    }
  }
  // Endless text through a named pipe, plain and gzip: refused past the memory
  // allowed, naming the bytes read and the bytes free.
  const std::string fifo = path("stream");
  for (const char* writer : {"yes '1 2'", "yes '1 2' | gzip -1", "head -c 50000000 /dev/zero | gzip -1"}) {
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    ASSERT_EQ(std::system(("(" + std::string(writer) + " > '" + fifo + "') 2>&- &").c_str()), 0);
    ::setenv("PERRON_MEMORY_LIMIT", "4000000", 1);
    try {
      io::load_matrix(fifo);
      ADD_FAILURE() << writer;
    } catch (const dimension_error& e) {
      EXPECT_NE(
          std::string(e.what()).find(fifo + ": its text goes on past the 4000000 bytes read, more than "
                                            "the 4000000 bytes of memory that PERRON_MEMORY_LIMIT allows"),
          std::string::npos)
          << e.what();
    } catch (const parse_error& e) {  // the zeros
      EXPECT_EQ(e.line, 1u) << e.what();
      EXPECT_NE(e.reason.find("binary data (byte 0x00)"), std::string::npos) << e.what();
    }
    ::unsetenv("PERRON_MEMORY_LIMIT");
    fs::remove(fifo);
  }
  // A finite pipe still reads, plain and gzip.
  for (const char* writer : {"cat", "gzip -c"}) {
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    ASSERT_EQ(
        std::system((std::string(writer) + " '" + write("m.mtx", mm_text) + "' > '" + fifo + "' &").c_str()),
        0);
    EXPECT_EQ(io::load_matrix(fifo).matrix.nnz(), 3u) << writer;
    fs::remove(fifo);
  }
}

// Valid text whose entries need more memory than perron may use: refused
// while parsing, once a window (never an entry), naming the file, the
// entries read and the bytes needed and allowed (a gzip bomb of valid lines,
// a generator through a pipe, a plain file, a symmetric file's mirrors grew
// the arrays until the OOM killer).
TEST_F(io_load, ValidTextLargerThanMemoryIsRefusedWhileParsing) {
  const auto refused = [](const std::string& source, const std::string& want) {
    try {
      io::load_matrix(source);
      ADD_FAILURE() << source;
    } catch (const dimension_error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(source + ": " + want, 0), 0u) << what;
      EXPECT_NE(what.find(" needs about "), std::string::npos) << what;
      EXPECT_NE(what.find("that PERRON_MEMORY_LIMIT allows"), std::string::npos) << what;
    }
  };
  // 10^7 lines '1 2' (40 MB of text, 160 MB of entries) in a .txt.gz of 0.2 MB:
  // its first windows parse, a later one is refused.
  const std::string bomb = path("bomb.txt.gz");
  ASSERT_EQ(std::system(("yes '1 2' | head -n 10000000 | gzip -1 > '" + bomb + "'").c_str()), 0);
  ::setenv("PERRON_MEMORY_LIMIT", "60000000", 1);
  refused(bomb, "parsing on past ");
  // The same lines through a named pipe (12 MB of text, within the limit; 48 MB of entries).
  ::setenv("PERRON_MEMORY_LIMIT", "20000000", 1);
  const std::string fifo = path("stream");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(std::system(("(yes '1 2' | head -n 3000000 > '" + fifo + "') 2>&- &").c_str()), 0);
  refused(fifo, "parsing up to 3000000 entries (a line each)");
  fs::remove(fifo);
  // A plain file: its entries, or, past the limit, its text.
  std::string lines;
  for (int k = 0; k < 3000000; ++k) lines += "1 2\n";
  const std::string plain = write("plain.txt", lines);
  refused(plain, "parsing up to 3000000 entries (a line each)");
  ::setenv("PERRON_MEMORY_LIMIT", "10000000", 1);
  refused(plain, "reading its 12000000 bytes whole");
  // Those lines as the matrix of a SuiteSparse .tar.gz (26 KB): its text is
  // read whole within the limit too (it was read past it, and the parse
  // refused it after; a larger one met the OOM killer first).
  bool archives = true;
  try {
    io::load_matrix(test::data_dir() + "/karate.tar.gz");
  } catch (const not_supported&) {
    archives = false;  // built without libarchive
  }
  if (archives) {
    fs::create_directories(path("tar"));
    write("tar/big.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 3000000\n" + lines);
    ASSERT_EQ(std::system(("tar -C '" + path("tar") + "' -czf '" + path("big.tar.gz") + "' big.mtx").c_str()),
              0);
    refused(path("big.tar.gz"), "reading big.mtx whole (");
    // The distributed reader's windows (mpirun: rank 0 streams the member)
    // carry a line longer than a window whole, within the limit too.
    fs::create_directories(path("long/big"));
    write("long/big/big.mtx",
          "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2" + std::string(12000000, ' ') + "\n");
    ASSERT_EQ(
        std::system(
            ("tar -C '" + path("long") + "' -czf '" + path("long/big.tar.gz") + "' big/big.mtx").c_str()),
        0);
    std::string member;
    const auto windows = io::detail::open_archive_windows(path("long/big.tar.gz"), 1 << 16, member);
    ASSERT_NE(windows, nullptr);
    try {
      while (!windows->next().empty()) {
      }
      ADD_FAILURE() << "a 12 MB line read in windows under a 10 MB limit";
    } catch (const dimension_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(
                    path("long/big.tar.gz") + ": reading a line of big/big.mtx longer than ", 0),
                0u)
          << e.what();
    }
  }
  // A symmetric file whose entries fit and whose mirrored entries do not.
  std::string sym = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1000000\n";
  for (int k = 0; k < 1000000; ++k) sym += "2 1\n";
  ::setenv("PERRON_MEMORY_LIMIT", "30000000", 1);
  refused(write("sym.mtx", sym),
          "parsing on past 1000000 entries (up to 2000000 with their mirrored entries)");
  // A SNAP edge list of hashed ids (10^6 edges, 26 MB of text): its text and
  // its edges fit, the renumbering of its ids (36 bytes an edge) does not.
  std::string hashed;
  std::uint64_t h = 1;
  for (int k = 0; k < 1000000; ++k) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    hashed += std::to_string(h >> 24) + "\t" + std::to_string((h >> 8) & 0xffffffffffull) + "\n";
  }
  const std::string snap = write("hashed.txt", hashed);
  ::setenv("PERRON_MEMORY_LIMIT", "35000000", 1);
  refused(snap, "renumbering the vertex ids of its 1000000 edges");
  ::unsetenv("PERRON_MEMORY_LIMIT");
  EXPECT_EQ(io::load_matrix(snap).matrix.nnz(), 1000000u);
  // Without the limit they load.
  EXPECT_EQ(io::load_matrix(plain).matrix.nnz(), 3000000u);
  EXPECT_EQ(io::load_matrix(path("sym.mtx")).matrix.nnz(), 2000000u);
}

// A file whose size reads 0 but which has content (procfs) is read to its
// end, not reported as an empty file; a truly empty file still is.
TEST_F(io_load, ZeroSizedProcFilesAreReadAsStreams) {
  try {
    io::load_matrix("/proc/self/status");
    FAIL();
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 1u) << e.what();
    EXPECT_NE(e.reason.find("unrecognized format"), std::string::npos) << e.what();
  }
  try {
    io::load_matrix(write("empty", ""));
    FAIL();
  } catch (const parse_error& e) {
    EXPECT_NE(e.reason.find("empty file"), std::string::npos) << e.what();
  }
}

TEST_F(io_load, ParseMatrixDispatchesInMemory) {
  EXPECT_EQ(io::parse_matrix(mm_text, "x").format, io::input_format::matrix_market);
  EXPECT_EQ(io::parse_matrix(edge_text, "x.txt").format, io::input_format::snap);
  EXPECT_THROW(io::parse_matrix("", "x"), parse_error);
  EXPECT_THROW(io::parse_matrix("a b c\n", "x"), parse_error);
}

}  // namespace
}  // namespace perron
