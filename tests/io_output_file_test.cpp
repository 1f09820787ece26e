// io::output_file (atomic replacement, "-" as stdout) and check_not_an_input.
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io/output_file.hpp"
#include "io/temporary_files.hpp"

namespace perron::io {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perron-output-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  static void write(const std::string& p, const std::string& text) { std::ofstream(p) << text; }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }

  fs::path dir_;
};

TEST_F(OutputFile, CommitReplacesTheTargetAndLeavesNoTemporary) {
  write(path("ranks.tsv"), "old contents\n");
  {
    output_file out(path("ranks.tsv"));
    out.write("1\t0.5\n");
    std::fprintf(out.get(), "%d\t%.1f\n", 2, 0.5);
    EXPECT_EQ(read(path("ranks.tsv")), "old contents\n");  // untouched until commit
    out.commit();
  }
  EXPECT_EQ(read(path("ranks.tsv")), "1\t0.5\n2\t0.5\n");
  EXPECT_EQ(entries(), 1u);
}

// A .gz name (any case) is gzip: -o ranks.tsv.gz and --output-matrix m.mtx.gz
// wrote plain text under it, which zcat and scipy refused; read-bench's
// writer compressed .gz but not .GZ. Every way of writing goes through it.
TEST_F(OutputFile, AGzNameIsWrittenCompressed) {
  std::string expected;
  for (int k = 0; k < 200000; ++k) expected += std::to_string(k) + "\t0.5\n";
  for (const char* name : {"ranks.tsv.gz", "RANKS.TSV.GZ", "r.Gz"}) {
    {
      output_file out(path(name));
      std::fprintf(out.get(), "%s", expected.substr(0, 1000).c_str());
      write_lines(out, 1, [&](std::size_t, std::size_t, std::string& text) { text = expected.substr(1000); });
      out.commit();
    }
    const std::string raw = read(path(name));
    ASSERT_GE(raw.size(), 2u) << name;
    EXPECT_EQ(static_cast<unsigned char>(raw[0]), 0x1f) << name;
    EXPECT_EQ(static_cast<unsigned char>(raw[1]), 0x8b) << name;
    EXPECT_LT(raw.size(), expected.size() / 3) << name;
    gzFile gz = gzopen(path(name).c_str(), "rb");
    ASSERT_NE(gz, nullptr);
    std::string back(expected.size() + 16, '\0');
    const int got = gzread(gz, back.data(), static_cast<unsigned>(back.size()));
    gzclose(gz);
    back.resize(static_cast<std::size_t>(std::max(got, 0)));
    EXPECT_EQ(back, expected) << name;
  }
  EXPECT_EQ(entries(), 3u);
  {
    output_file out(path("never.gz"));  // not committed: no file, no temporary
    out.write("x");
  }
  EXPECT_FALSE(fs::exists(path("never.gz")));
  EXPECT_EQ(entries(), 3u);
  {
    commit_together together;
    output_file a(path("a.gz")), b(path("b.txt"));
    a.write("compressed");
    b.write("plain");
    a.commit();
    b.commit();
    together.commit();
  }
  EXPECT_EQ(read(path("b.txt")), "plain");
  EXPECT_EQ(static_cast<unsigned char>(read(path("a.gz"))[0]), 0x1f);
}

TEST_F(OutputFile, WithoutCommitTheOldFileStaysAndTheTemporaryGoes) {
  write(path("ranks.tsv"), "old contents\n");
  {
    output_file out(path("ranks.tsv"));
    out.write("half a file");
    // an exception unwinding here, before commit()
  }
  EXPECT_EQ(read(path("ranks.tsv")), "old contents\n");
  EXPECT_EQ(entries(), 1u);
  {
    output_file out(path("new.tsv"));
    out.write("never committed");
  }
  EXPECT_FALSE(fs::exists(path("new.tsv")));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, NewFilesGetTheUsualPermissions) {
  const mode_t mask = ::umask(022);
  output_file out(path("x.json"));
  out.write("{}\n");
  out.commit();
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(path("x.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

// A replaced file keeps its mode: a private 0600 file stays private, an
// executable script executable, through a link too.
TEST_F(OutputFile, AReplacedFileKeepsItsMode) {
  for (const mode_t mode : {mode_t(0600), mode_t(0755), mode_t(0640)}) {
    write(path("ranks.tsv"), "old\n");
    ASSERT_EQ(::chmod(path("ranks.tsv").c_str(), mode), 0);
    output_file out(path("ranks.tsv"));
    out.write("new\n");
    out.commit();
    struct stat st {};
    ASSERT_EQ(::stat(path("ranks.tsv").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, mode);
    EXPECT_EQ(read(path("ranks.tsv")), "new\n");
  }
  fs::create_symlink(dir_ / "ranks.tsv", dir_ / "link.tsv");
  output_file out(path("link.tsv"));
  out.write("newer\n");
  out.commit();
  struct stat st {};
  ASSERT_EQ(::stat(path("ranks.tsv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

// A signal while an output or a cache entry is written removes its temporary
// and ends the process as the signal would (Ctrl-C left '.out.tsv.tmp-XXXXXX'
// beside the output); a temporary released (renamed into place) is kept, and
// a handler of the caller's own is left alone.
TEST_F(OutputFile, ASignalRemovesTheTemporaries) {
  const auto child = [&](const std::function<void()>& body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      body();
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
  };
  write(path("entry.tmp"), "half an entry");
  write(path("kept.tmp"), "renamed into place");
  for (const int sig : {SIGTERM, SIGINT, SIGQUIT}) {
    const int status = child([&] {
      const rlimit no_core{0, 0};  // SIGQUIT's default writes one
      ::setrlimit(RLIMIT_CORE, &no_core);
      remove_temporaries_on_signal();
      temporary_guard entry(path("entry.tmp"));
      temporary_guard kept(path("kept.tmp"));
      kept.release();
      output_file out(path("ranks.tsv"));
      out.write("half a file");
      std::raise(sig);
    });
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_FALSE(fs::exists(path("entry.tmp")));
    EXPECT_TRUE(fs::exists(path("kept.tmp")));
    EXPECT_FALSE(fs::exists(path("ranks.tsv")));
    EXPECT_EQ(entries(), 1u);  // kept.tmp: the output's temporary is gone too
    write(path("entry.tmp"), "half an entry");
  }
  // A handler already there (Python's SIGINT) is not replaced.
  const int status = child([&] {
    std::signal(SIGINT, [](int) { ::_exit(7); });
    remove_temporaries_on_signal();
    temporary_guard entry(path("entry.tmp"));
    std::raise(SIGINT);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 7) << status;
  EXPECT_TRUE(fs::exists(path("entry.tmp")));
}

// Every handled signal waits while the handler removes the temporaries:
// SA_RESETHAND had put the default back as the first was delivered, and a
// second (timeout's to the child and to its group) ended the process before
// the unlinks, leaving a 200 MB snapshot temporary in 6 runs of 10.
TEST(TemporariesOnSignal, ASecondSignalWaitsForTheHandler) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    remove_temporaries_on_signal();
    int bad = 0;
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) {
      struct sigaction now {};
      ::sigaction(sig, nullptr, &now);
      if (now.sa_flags & (SA_RESETHAND | SA_NODEFER)) bad |= 1;
      for (const int other : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT})
        if (sigismember(&now.sa_mask, other) != 1) bad |= 2;
    }
    ::_exit(bad);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: a flag resets the handler; 2: a handled signal is not masked";
}

// The files of one run replace their targets together: a failure on the
// second left the first one's old file replaced ('pagerank g -o r.tsv
// --plot nodir/p.svg' exited 66 with r.tsv new).
TEST_F(OutputFile, CommitTogetherReplacesAllOrNone) {
  write(path("ranks.tsv"), "old ranks\n");
  write(path("plot.svg"), "old plot\n");
  {
    commit_together files;
    output_file ranks(path("ranks.tsv"));
    ranks.write("new ranks\n");
    ranks.commit();
    EXPECT_EQ(read(path("ranks.tsv")), "old ranks\n");  // held until the set commits
    EXPECT_THROW(output_file(path("no-such-folder/plot.svg")), io_error);
  }  // the run failed: nothing replaced, no temporary left
  EXPECT_EQ(read(path("ranks.tsv")), "old ranks\n");
  EXPECT_EQ(entries(), 2u);
  {
    commit_together files;
    for (const char* name : {"ranks.tsv", "plot.svg"}) {
      output_file out(path(name));
      out.write(std::string("new ") + name);
      out.commit();
    }
    EXPECT_EQ(read(path("plot.svg")), "old plot\n");
    files.commit();
  }
  EXPECT_EQ(read(path("ranks.tsv")), "new ranks.tsv");
  EXPECT_EQ(read(path("plot.svg")), "new plot.svg");
  EXPECT_EQ(entries(), 2u);
  {  // outside a set, as before: at once
    output_file out(path("ranks.tsv"));
    out.write("alone");
    out.commit();
    EXPECT_EQ(read(path("ranks.tsv")), "alone");
  }
}

// A legal name of up to 255 bytes is written: its temporary's name, 12 bytes
// longer, was refused ("File name too long").
TEST_F(OutputFile, ALongNameIsWritten) {
  for (const std::size_t length : {243u, 250u, 255u}) {
    const std::string name(length, 'a');
    output_file out(path(name));
    out.write("x");
    out.commit();
    EXPECT_EQ(read(path(name)), "x");
    fs::remove(path(name));
    EXPECT_EQ(entries(), 0u);
  }
}

// A loop of links is refused as the shell's > refuses it (the link was
// replaced by a file).
TEST_F(OutputFile, ALoopOfLinksIsRefused) {
  fs::create_symlink("loop2", path("loop1"));
  fs::create_symlink("loop1", path("loop2"));
  EXPECT_THROW(output_file(path("loop1")), io_error);
  EXPECT_THROW(check_output_path(path("loop1")), io_error);
  EXPECT_TRUE(fs::is_symlink(path("loop1")));
  EXPECT_EQ(entries(), 2u);
}

// A folder of the run's own goes after its registered files (read-bench's
// fresh cache folder was left in /tmp by Ctrl-C); one that still holds
// another file stays, with that file.
TEST_F(OutputFile, ASignalRemovesAFolderAfterItsFiles) {
  for (const bool stranger : {false, true}) {
    fs::create_directory(path("cache"));
    write(path("cache/entry.bin"), "an entry");
    if (stranger) write(path("cache/other"), "not ours");
    const pid_t pid = ::fork();
    if (pid == 0) {
      remove_temporaries_on_signal();
      temporary_guard folder(path("cache"), temporary_kind::folder);  // registered first, removed last
      temporary_guard entry(path("cache/entry.bin"));
      std::raise(SIGTERM);
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
    EXPECT_FALSE(fs::exists(path("cache/entry.bin")));
    EXPECT_EQ(fs::exists(path("cache")), stranger);
    EXPECT_EQ(fs::exists(path("cache/other")), stranger);
    fs::remove_all(path("cache"));
  }
}

TEST_F(OutputFile, BadTargetsAreIoErrors) {
  EXPECT_THROW(output_file(path("no-such-folder/ranks.tsv")), io_error);
  EXPECT_THROW(output_file(dir_.string()), io_error);
  EXPECT_THROW(output_file(""), invalid_argument);
}

// A target that is no regular file is written in place: renaming a temporary
// over /dev/null replaced the device node with a regular file (as root), and
// a named pipe's reader never saw the bytes.
TEST_F(OutputFile, DevicesAndPipesAreWrittenInPlace) {
  {
    output_file out("/dev/null");
    out.write("ranks\n");
    out.commit();
  }
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(entries(), 0u);
  if (::stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
    output_file out("/dev/full");
    out.write("ranks\n");
    EXPECT_THROW(out.commit(), io_error);  // No space left on device
    ASSERT_EQ(::stat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
  }
  const std::string fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read(fifo); });
  {
    output_file out(fifo);
    out.write("1\t0.5\n");
    out.commit();
  }
  reader.join();
  EXPECT_EQ(got, "1\t0.5\n");
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(), 1u);  // the pipe, no temporary beside it
  // /dev/fd/N (as /dev/stdout is /dev/fd/1): the process's own descriptor, written where it stands.
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  {
    output_file out("/dev/fd/" + std::to_string(ends[1]));
    out.write("via the descriptor\n");
    out.commit();
  }
  ::close(ends[1]);
  char buf[64] = {};
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(::read(ends[0], buf, sizeof buf))),
            "via the descriptor\n");
  ::close(ends[0]);
}

// A link to no file yet makes that file and stays a link (it was replaced by
// a regular file), as the shell's > does.
TEST_F(OutputFile, ALinkToNoFileYetMakesItsFile) {
  fs::create_directories(dir_ / "real");
  fs::create_symlink("real/ranks.tsv", dir_ / "link.tsv");  // relative to the link's folder
  output_file out(path("link.tsv"));
  out.write("new\n");
  out.commit();
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.tsv"));
  EXPECT_EQ(read(path("real/ranks.tsv")), "new\n");
}

// A symbolic link's file is replaced; the link stays a link.
TEST_F(OutputFile, ALinkKeepsPointingAtItsReplacedFile) {
  fs::create_directories(dir_ / "real");
  write(path("real/ranks.tsv"), "old\n");
  fs::create_symlink(dir_ / "real/ranks.tsv", dir_ / "link.tsv");
  output_file out(path("link.tsv"));
  out.write("new\n");
  out.commit();
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.tsv"));
  EXPECT_EQ(read(path("real/ranks.tsv")), "new\n");
  EXPECT_EQ(entries(), 2u);
  EXPECT_EQ(static_cast<std::size_t>(
                std::distance(fs::directory_iterator(dir_ / "real"), fs::directory_iterator())),
            1u);
}

TEST_F(OutputFile, DashIsStandardOutput) {
  output_file out("-");
  EXPECT_TRUE(out.is_stdout());
  EXPECT_EQ(out.get(), stdout);
  out.commit();
  EXPECT_FALSE(fs::exists("-"));
}

// append_g writes what printf's "%.*g" does, for every precision the apps
// use and values of every scale (ranks, their tails, zero, subnormals).
// check_output_path: what output_file would refuse when the run ends is
// refused before it, and nothing is left behind or changed.
TEST_F(OutputFile, CheckOutputPathRefusesWhatCannotBeWrittenAndLeavesNothing) {
  EXPECT_THROW(check_output_path(path("no-such-folder/ranks.tsv")), io_error);
  EXPECT_THROW(check_output_path(dir_.string()), io_error);
  EXPECT_THROW(check_output_path(""), invalid_argument);
  write(path("old.tsv"), "kept\n");
  for (const std::string& p :
       {path("new.tsv"), path("old.tsv"), std::string("-"), std::string("/dev/stdout")})
    EXPECT_NO_THROW(check_output_path(p)) << p;
  if (fs::exists("/dev/null")) {
    EXPECT_NO_THROW(check_output_path("/dev/null"));
  }
  EXPECT_EQ(read(path("old.tsv")), "kept\n");
  EXPECT_EQ(entries(), 1u);  // old.tsv alone: no new.tsv, no temporary
}

// The names an app treats as "-": the process's descriptor 1 by any spelling.
TEST(NamesStandardOutput, DashAndDescriptorOneOnly) {
  for (const char* p : {"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})
    EXPECT_TRUE(io::names_standard_output(p)) << p;
  for (const char* p :
       {"", "--", "/dev/stderr", "/dev/fd/2", "/dev/fd/10", "/dev/fd/1x", "/dev/null", "stdout", "./-"})
    EXPECT_FALSE(io::names_standard_output(p)) << p;
}

TEST(AppendG, IsPrintfsG) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(0.5, 1.0);
  std::uniform_int_distribution<int> exponent(-330, 310);
  std::vector<double> xs = {0.0,
                            -0.0,
                            1.0,
                            0.1,
                            1e-7,
                            123456789.0,
                            5e-324,
                            2.2250738585072014e-308,
                            std::numeric_limits<double>::max(),
                            0.5,
                            1.0 / 3.0,
                            2.5e-5};
  for (int k = 0; k < 20000; ++k) xs.push_back(std::ldexp(mantissa(rng), exponent(rng) / 3));
  for (int k = 0; k < 20000; ++k) xs.push_back(static_cast<float>(mantissa(rng) * 1e-6));
  for (int digits : {1, 6, 9, 15, 17}) {
    for (const double x : xs) {
      char want[64];
      std::snprintf(want, sizeof want, "%.*g", digits, x);
      std::string got;
      append_g(got, x, digits);
      ASSERT_EQ(got, want) << "digits " << digits;
    }
  }
  std::string i;
  append_integer(i, -9223372036854775807LL);
  append_integer(i, 42);
  EXPECT_EQ(i, "-922337203685477580742");
}

// write_lines gives the bytes of a serial loop, for any piece size and team,
// and an empty file for no lines.
TEST_F(OutputFile, WriteLinesIsTheSerialLoopsText) {
  const std::size_t n = 100003;
  std::string want;
  for (std::size_t i = 0; i < n; ++i) {
    char line[64];
    std::snprintf(line, sizeof line, "%zu\t%.*g\n", i + 1, 17, 1.0 / double(i + 3));
    want += line;
  }
  const auto format = [](std::size_t first, std::size_t last, std::string& text) {
    for (std::size_t i = first; i < last; ++i) {
      append_integer(text, static_cast<long long>(i + 1));
      text += '\t';
      append_g(text, 1.0 / double(i + 3), 17);
      text += '\n';
    }
  };
  const int threads = omp_get_max_threads();
  for (int team : {1, 3}) {
    omp_set_num_threads(team);
    for (std::size_t piece :
         {std::size_t(1), std::size_t(7), std::size_t(4096), std::size_t(1) << 16, n, 2 * n}) {
      output_file out(path("lines.tsv"));
      write_lines(out, n, format, piece);
      out.commit();
      ASSERT_EQ(read(path("lines.tsv")), want) << "team " << team << ", pieces of " << piece;
    }
  }
  omp_set_num_threads(threads);
  output_file none(path("empty.tsv"));
  write_lines(none, 0, format);
  none.commit();
  EXPECT_EQ(read(path("empty.tsv")), "");
}

TEST_F(OutputFile, AnOutputThatIsAnInputIsRefused) {
  write(path("graph.mtx"), "%%MatrixMarket matrix coordinate pattern general\n1 1 0\n");
  fs::create_symlink(path("graph.mtx"), path("link.mtx"));
  const std::vector<std::string> inputs{path("graph.mtx")};
  EXPECT_THROW(check_not_an_input(path("graph.mtx"), inputs, "--output"), invalid_argument);
  EXPECT_THROW(check_not_an_input(path("link.mtx"), inputs, "--output"), invalid_argument);
  EXPECT_THROW(check_not_an_input(dir_.string() + "/./graph.mtx", inputs, "--json"), invalid_argument);
  try {
    check_not_an_input(path("link.mtx"), inputs, "--output");
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--output"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("refusing to overwrite"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_not_an_input(path("other.tsv"), inputs, "--output"));  // does not exist yet
  write(path("other.tsv"), "x");
  EXPECT_NO_THROW(check_not_an_input(path("other.tsv"), inputs, "--output"));
  EXPECT_NO_THROW(check_not_an_input("-", inputs, "--output"));
  EXPECT_EQ(read(path("graph.mtx")).substr(0, 14), "%%MatrixMarket");
}

// Two outputs that name one file, existing or not, by any spelling, are
// refused; "-" and outputs not given are not compared.
TEST_F(OutputFile, TwoOutputsThatNameOneFileAreRefused) {
  fs::create_directories(path("sub"));
  fs::create_directory_symlink(path("sub"), path("alias"));
  const auto refused = [](const std::string& a, const std::string& b) {
    try {
      check_distinct_outputs({{"--output", a}, {"--plot", b}});
      return std::string();
    } catch (const invalid_argument& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(refused(path("r.tsv"), path("r.tsv")).find("--output and --plot name the same file"),
            std::string::npos);
  EXPECT_NE(refused(path("r.tsv"), dir_.string() + "/./r.tsv"), "");  // new: by its path
  EXPECT_NE(refused(path("sub/r.tsv"), path("alias/r.tsv")), "");     // through a folder link
  EXPECT_NE(refused(path("sub/r.tsv"), path("sub/../sub/r.tsv")), "");
  write(path("old.tsv"), "x");
  fs::create_symlink(path("old.tsv"), path("link.tsv"));
  EXPECT_NE(refused(path("old.tsv"), path("link.tsv")), "");  // existing: by inode
  // a link to no file yet, relative, through a second link: the file a write through it makes
  fs::create_symlink("new.tsv", path("dangling.tsv"));
  fs::create_symlink("sub/../dangling.tsv", path("twice.tsv"));
  EXPECT_NE(refused(path("new.tsv"), path("dangling.tsv")), "");
  EXPECT_NE(refused(path("twice.tsv"), path("new.tsv")), "");
  EXPECT_EQ(refused(path("dangling.tsv"), path("r.tsv")), "");
  EXPECT_EQ(refused(path("r.tsv"), path("s.tsv")), "");
  EXPECT_EQ(refused("-", "-"), "");
  EXPECT_EQ(refused("", ""), "");
  EXPECT_NO_THROW(check_distinct_outputs({{"--output", path("a")}, {"--json", ""}, {"--plot", path("b")}}));
}

}  // namespace
}  // namespace perron::io
