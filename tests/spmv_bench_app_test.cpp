// spmv-bench as a user runs it, in what needs no GPU: the command line's
// checks, made before the device is asked for.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/app_runner.hpp"

namespace perron::test {
namespace {

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

}  // namespace
}  // namespace perron::test
