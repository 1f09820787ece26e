// spmv-bench, spmm-bench, gemm-bench and read-bench as a user runs them, in
// what needs no GPU: the command line's checks, made before the device is
// asked for (read-bench runs on the CPU).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "tests/support/app_runner.hpp"

namespace perron::test {
namespace {

namespace fs = std::filesystem;

class spmv_bench_app : public app_test {
 protected:
  spmv_bench_app() : app_test("spmv-bench") {}
  outcome run(const std::string& args) {
    return run_command(quote(app_path("spmv-bench")) + " " + args, dir_);
  }
};

// --json=FILE and --csv=FILE are written after minutes of timing: one that
// names a matrix read (or the other file) is refused first, the matrix kept.
TEST_F(spmv_bench_app, AnOutputThatIsAnInputIsRefused) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\n";
  const std::string a = write("a.mtx", text);
  for (const std::string& args :
       {"--json=" + quote(a) + " " + quote(a), "--csv=" + quote(a) + " " + quote(a),
        "--json=" + quote(path("r")) + " --csv=" + quote(dir_.string() + "/./r") + " " + quote(a)}) {
    const outcome o = run(args);
    EXPECT_EQ(o.code, 64) << args << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_EQ(slurp(a), text);
  }
}

// --json=FILE and --csv=FILE that cannot be written (a missing folder, a
// folder named as the file) are refused before the timing: they were found
// only when written, after every kernel had run, and the results were lost.
// One line, before the device is asked for (so without a GPU too).
TEST_F(spmv_bench_app, AnOutputThatCannotBeWrittenIsRefusedFirst) {
  const std::string a = write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  fs::create_directory(dir_ / "folder");
  for (const std::string& file : {path("missing/r"), path("folder")})
    for (const std::string option : {"--json=", "--csv="}) {
      const std::string other = option == "--json=" ? "--csv=" : "--json=";
      const outcome o = run(other + quote(path("ok")) + " " + option + quote(file) + " " + quote(a));
      EXPECT_EQ(o.code, 66) << option << file << ": " << o.err;
      EXPECT_EQ(o.err_lines(), 1) << o.err;
      EXPECT_EQ(o.err.rfind("spmv-bench: error: " + file + ": ", 0), 0u) << o.err;
      EXPECT_EQ(o.out, "");
    }
  for (const auto& e : fs::directory_iterator(dir_))  // neither "ok" nor a temporary beside it
    EXPECT_TRUE(e.path().filename() == "a.mtx" || e.path().filename() == "folder" ||
                e.path().filename() == "stdout" || e.path().filename() == "stderr")
        << e.path();
}

// The word after a bare --json or --csv is a MATRIX, not the output's FILE
// (that is --json=FILE): '--json a.mtx b.mtx' timed b.mtx alone and then
// wrote the JSON over a.mtx; '--json a.mtx' said 'no MATRIX given'.
TEST_F(spmv_bench_app, TheWordAfterABareJsonIsAMatrix) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n";
  const std::string a = write("a.mtx", text);
  // a.mtx read as a MATRIX: --json=a.mtx then names an input.
  for (const std::string& args :
       {"--json=" + quote(a) + " --csv " + quote(a), "--csv=" + quote(a) + " --js " + quote(a)}) {
    const outcome o = run(args);
    EXPECT_EQ(o.code, 64) << args << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("is the input file"), std::string::npos) << args << ": " << o.err;
  }
  // The table's place taken by the JSON, the matrix read (without a GPU: the device's error).
  const outcome o = run("-n 100 -w 1 --no-cache --json " + quote(a));
  EXPECT_EQ(o.err.find("no MATRIX given"), std::string::npos) << o.err;
  if (cuda::available()) {
    EXPECT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(o.out.rfind("{", 0), 0u) << o.out;
  } else {
    EXPECT_EQ(o.code, 70) << o.err;
  }
  EXPECT_EQ(slurp(a), text);
  EXPECT_NE(run("--json").err.find("no MATRIX given"), std::string::npos);
}

// --json=/dev/stdout (or /dev/fd/1) is --json, standard output: written as a
// file, the JSON was followed by the table in the same stream. So it and
// --csv=- (or the like) are refused as --json --csv are, before the device is asked for.
TEST_F(spmv_bench_app, StandardOutputByAnyNameHoldsOneOutputAlone) {
  const std::string a = write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  for (const std::string args :
       {"--json=/dev/stdout --csv", "--json --csv=/dev/fd/1", "--json=/proc/self/fd/1 --csv=/dev/stdout"}) {
    const outcome o = run(args + " " + quote(a));
    EXPECT_EQ(o.code, 64) << args << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("--json and --csv cannot both go to stdout"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "") << args;
  }
}

// --copy-mib's two device buffers are checked against the GPU's room before
// they are allocated (1000000 MiB ended in cudaMalloc's out-of-memory text on
// the H200): refused with both sizes, before the device is asked for, so
// PERRON_GPU_MEMORY_LIMIT shows it without a GPU.
TEST_F(spmv_bench_app, ACopyLargerThanTheGpuIsRefusedWithItsBytes) {
  const std::string a = write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  const outcome o = run_command("PERRON_GPU_MEMORY_LIMIT=1000000000 " + quote(app_path("spmv-bench")) +
                                    " --copy-mib 1000000 " + quote(a),
                                dir_);
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find("--copy-mib 1000000"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("needs about 2097.2 GB of GPU memory, more than the 1.0 GB"), std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("PERRON_GPU_MEMORY_LIMIT"), std::string::npos) << o.err;
}

// spmm-bench checks X and Y (k columns each) against the host's and the
// GPU's room before it allocates them: rmat:20:1000000 --k 1024 took 8 GB of
// host memory past PERRON_MEMORY_LIMIT=2e9 on the H200 host. Needs a GPU
// (the device is asked for before the graph is read).
TEST_F(spmv_bench_app, SpmmBlocksLargerThanTheMemoryAreRefused) {
  if (!cuda::available()) GTEST_SKIP() << "no usable CUDA device";
  const std::string spmm = quote(app_path("spmm-bench")) + " -n 3 -w 1 --no-cache rmat:16:100000 --k 1024";
  for (const std::string limit : {"PERRON_MEMORY_LIMIT", "PERRON_GPU_MEMORY_LIMIT"}) {
    const outcome o = run_command(limit + "=100000000 " + spmm, dir_);  // 100 MB; X alone is 268 MB
    EXPECT_EQ(o.code, 65) << limit << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("k = 1024"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find(limit), std::string::npos) << o.err;
  }
}

// '--k 8 32 128 GRAPH' (the README's command): --k takes the numbers, GRAPH is
// the graph (the option took it as a fourth k: "the argument ('GRAPH') for
// option '--k' is invalid", exit 64). Without a GPU the run ends at the device.
TEST_F(spmv_bench_app, SpmmGraphsMayFollowTheKs) {
  const std::string a =
      write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\n");
  const std::string spmm = quote(app_path("spmm-bench")) + " -n 3 -w 1 --no-cache ";
  outcome o = run_command(spmm + "--k 8 32 128 " + quote(a), dir_);
  EXPECT_EQ(o.code, cuda::available() ? 0 : 70) << o.err;
  if (cuda::available()) {
    EXPECT_NE(o.out.find("a.mtx"), std::string::npos) << o.out;
  }
  for (const std::string k : {"0", "1025", "8.5", "nan", "-1"}) {
    o = run_command(spmm + "--k " + k + " " + quote(a), dir_);
    EXPECT_EQ(o.code, 64) << k << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("each k must be an integer in [1, 1024] (got '" + k + "')"), std::string::npos)
        << o.err;
  }
  o = run_command(spmm + "--k " + quote(a), dir_);
  EXPECT_EQ(o.code, 64) << o.err;
  EXPECT_NE(o.err.find("--k needs at least one k"), std::string::npos) << o.err;
}

// gemm-bench reads no file: a word that is no option's value is refused
// ('gemm-bench 512' ran the default sizes, 1024 to 8192, on the GPU).
TEST_F(spmv_bench_app, GemmRefusesAStrayArgument) {
  for (const std::string args : {"512", "--sizes 64 -- 128", "--runs 3 extra"}) {
    const outcome o = run_command(quote(app_path("gemm-bench")) + " " + args, dir_);
    EXPECT_EQ(o.code, 64) << args << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("unexpected argument"), std::string::npos) << o.err;
  }
}

// Option values that ran something other than asked: an empty kernel list
// ('-k ""', an unset variable) ran every kernel; a count of timed calls past
// a million reserved its times up front (-n 2147483647: 16 GB). Both are
// refused before any GPU or file is looked at.
TEST_F(spmv_bench_app, AnEmptyKernelListAndAbsurdCountsAreRefused) {
  const std::string a = write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  for (const std::string args : {"-k '' ", "-k , ", "-n 2000000 ", "-w 2000000 "}) {
    const outcome o = run_command(quote(app_path("spmv-bench")) + " " + args + quote(a), dir_);
    EXPECT_EQ(o.code, 64) << args << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
  }
  for (const std::string app : {"spmm-bench", "gemm-bench"}) {
    const outcome o = run_command(
        quote(app_path(app)) + " --runs 2000000" + (app == "spmm-bench" ? " " + quote(a) : ""), dir_);
    EXPECT_EQ(o.code, 64) << app << ": " << o.err;
    EXPECT_NE(o.err.find("--runs must be <= 1000000"), std::string::npos) << o.err;
  }
}

class read_bench_app : public app_test {
 protected:
  read_bench_app() : app_test("read-bench") {}
  outcome run(const std::string& args) {
    return run_command(quote(app_path("read-bench")) + " " + args, dir_);
  }
};

// --threads is the parser's team: -j 100000 on a 44 MB file died in libgomp's
// thread creation (SIGSEGV), -j 2147483647 in its 481 GB allocation; both are
// refused before any file is read.
TEST_F(read_bench_app, AThreadCountPastAnyHostIsRefused) {
  const std::string a = write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  for (const std::string j : {"100000", "2147483647"}) {
    const outcome o = run("-r 1 -j " + j + " " + quote(a));
    EXPECT_EQ(o.code, 64) << j << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("--threads must be at most"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "");
  }
  EXPECT_EQ(run("-r 1 -j 3 " + quote(a)).code, 0);
}

// --write SPEC - prints the Matrix Market file alone on stdout (the 'wrote'
// line followed it, a line the file's reader refuses).
// (/dev/stdout and /dev/fd/1 too: the line followed the matrix there.)
TEST_F(read_bench_app, WriteToStandardOutputIsTheMatrixAlone) {
  for (const std::string out : {"-", "/dev/stdout", "/dev/fd/1"}) {
    const outcome o = run("--write tridiag:5 " + out);
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(o.out.rfind("%%MatrixMarket matrix coordinate real general\n", 0), 0u) << o.out;
    EXPECT_EQ(o.out.find("wrote"), std::string::npos) << out << ": " << o.out;
    EXPECT_NE(o.err.find("wrote " + out + ": 5 x 5, 13 entries"), std::string::npos) << o.err;
    const std::string m = write("m.mtx", o.out);
    EXPECT_EQ(run("-r 1 " + quote(m)).code, 0);
  }
}

// --cache without --cache-dir caches in a fresh folder under TMPDIR, removed
// however the run ends: a FILE that failed after one was cached left it there.
TEST_F(read_bench_app, TheTemporaryCacheGoesWhenAFileFails) {
  const std::string a = write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  const std::string empty = write("empty.mtx", "");
  const fs::path tmp = dir_ / "tmp";
  fs::create_directory(tmp);
  const outcome o = run_command("TMPDIR=" + quote(tmp.string()) + " " + quote(app_path("read-bench")) +
                                    " --cache -r 1 " + quote(a) + " " + quote(empty),
                                dir_);
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_TRUE(fs::is_empty(tmp)) << fs::directory_iterator(tmp)->path();
}

// --write times nothing: a timing option beside it was dropped without a
// word (--json gave no JSON); now it is refused and nothing is written.
TEST_F(read_bench_app, WriteRefusesTheTimingOptions) {
  for (const char* opt : {"--json", "--cache", "--cache-dir d", "-r 3", "-j 2"}) {
    const outcome o = run(std::string("--write tridiag:5 ") + opt + " " + quote((dir_ / "m.mtx").string()));
    EXPECT_EQ(o.code, 64) << opt << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("does not apply to --write"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(dir_ / "m.mtx")) << opt;
  }
  EXPECT_EQ(run("--write tridiag:5 " + quote((dir_ / "m.mtx").string())).code, 0);
}

// --write '' is refused (it timed the FILE instead, exit 0: an unset $SPEC
// wrote nothing), and so is a name of a packing --write does not make (g.zip,
// g.mtx.bz2 got plain text that nothing reads as what the name says).
TEST_F(read_bench_app, WriteRefusesAnEmptySpecAndForeignPackings) {
  const std::string a = write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  const outcome empty = run("--write '' " + quote(a));
  EXPECT_EQ(empty.code, 64) << empty.err;
  EXPECT_EQ(empty.out, "");
  for (const char* name : {"g.zip", "g.mtx.bz2", "g.tar.gz", "G.MTX.XZ"}) {
    const outcome o = run(std::string("--write tridiag:5 ") + quote((dir_ / name).string()));
    EXPECT_EQ(o.code, 64) << name << ": " << o.err;
    EXPECT_NE(o.err.find("gzip-compressed for a .gz name"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(dir_ / name)) << name;
  }
  const outcome gz = run("--write tridiag:5 " + quote((dir_ / "g.mtx.gz").string()));
  ASSERT_EQ(gz.code, 0) << gz.err;
  EXPECT_EQ(run("-r 1 " + quote((dir_ / "g.mtx.gz").string())).code, 0);
}

// read-bench reads each FILE --repeat + 1 times: a FIFO (or '<(zcat g.gz)')
// gave its text to the warm-up and the first timed load then waited for a
// writer forever. Refused before any file is read, as is a device.
TEST_F(read_bench_app, APipeIsRefusedNotWaitedOn) {
  const fs::path fifo = dir_ / "g.mtx";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string a = write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  for (const std::string& file : {fifo.string(), std::string("/dev/zero")}) {
    // For the FIFO, a writer that gives the text once, as a shell's '<(...)' does.
    const std::string feed = file == fifo.string() ? "(cat " + quote(a) + " > " + quote(file) + " &); " : "";
    const outcome o =
        run_command(feed + "timeout 20 " + quote(app_path("read-bench")) + " -r 2 " + quote(file), dir_);
    EXPECT_EQ(o.code, 66) << file << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find(file + ": not a regular file: read-bench reads each FILE 3 times"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(o.out, "");
  }
  // Unblock the writer left waiting on the FIFO.
  run_command("timeout 5 cat " + quote(fifo.string()) + " > /dev/null", dir_);
}

// The cache --cache times: its folder is checked before any file is read (a
// file as --cache-dir warned 'not caching', then ended in 'filesystem error:
// cannot get file size: Not a directory', exit 71); --cache-dir without --cache
// did nothing without a word; a generated graph, never cached, was 'no such
// file' under --cache; a folder that takes no file (/proc) warned 'not caching'
// and then failed, two lines after the table's header.
TEST_F(read_bench_app, CacheOptionsThatCannotWorkAreRefusedFirst) {
  const std::string a = write("a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  const std::string file_as_dir = write("f", "x");
  struct expected {
    std::string args;
    int code;
    std::string text;
  };
  for (const expected& e : std::vector<expected>{
           {"--cache --cache-dir " + quote(file_as_dir) + " " + quote(a), 66,
            file_as_dir + ": --cache-dir: cannot make it a folder for the cache: Not a directory"},
           {"--cache --cache-dir /dev/null " + quote(a), 66,
            "/dev/null: --cache-dir: cannot make it a folder"},
           // a folder that takes no file: a warning, then the error, after the table's header
           {"--cache --cache-dir /proc " + quote(a), 66,
            "/proc: --cache-dir: cannot write the cache there: "},
           {"--cache-dir " + quote(path("c")) + " " + quote(a), 64, "--cache-dir applies to --cache"},
           {"--cache --cache-dir '' " + quote(a), 64, "--cache-dir needs a folder name"},
           {"--cache tridiag:5", 64, "tridiag:5 is a generated graph, which is never cached"}}) {
    const outcome o = run("-r 1 " + e.args);
    EXPECT_EQ(o.code, e.code) << e.args << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find(e.text), std::string::npos) << e.args << ": " << o.err;
    EXPECT_EQ(o.out, "") << e.args;
  }
  EXPECT_FALSE(fs::exists(path("c")));
  const outcome o = run("-r 1 --cache --cache-dir " + quote(path("new/c")) + " " + quote(a));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_FALSE(fs::is_empty(path("new/c")));
  EXPECT_EQ(run("-r 1 tridiag:5").code, 0);
}

}  // namespace
}  // namespace perron::test
