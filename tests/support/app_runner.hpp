// Running a built app the way a user does: a subprocess with its exit code,
// stdout and stderr captured, in a scratch folder of the test's own.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "tests/support/scratch.hpp"

namespace perron::test {

// The built app `name`: beside the test binary (both live in <build>/bin, and
// together in the folder carried to the GPU machine), else in PERRON_BIN_DIR.
std::string app_path(const std::string& name);

// `s` single-quoted for /bin/sh.
std::string quote(const std::string& s);

// A whole file's bytes ("" when it cannot be read).
std::string slurp(const std::filesystem::path& p);

struct outcome {
  int code = -1;  // the exit status, -1 when the process did not exit normally
  std::string out, err;
  int err_lines() const { return static_cast<int>(std::count(err.begin(), err.end(), '\n')); }
};

// Runs the /bin/sh command line `command` with stdin from /dev/null, its stdout
// and stderr captured through two files in `dir`.
outcome run_command(const std::string& command, const std::filesystem::path& dir);

// A fixture for an app's tests: fails when the app is not built, and gives
// each test a scratch folder `dir_` that is removed afterwards.
class app_test : public scratch_test {
 protected:
  explicit app_test(std::string app) : scratch_test(app + "-app"), app_(std::move(app)) {}
  void SetUp() override;

  std::string app_;
};

}  // namespace perron::test
