#include "tests/support/app_runner.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace perron::test {

namespace fs = std::filesystem;

std::string app_path(const std::string& name) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::exists(self.parent_path() / name)) return (self.parent_path() / name).string();
  return std::string(PERRON_BIN_DIR) + "/" + name;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

outcome run_command(const std::string& command, const fs::path& dir) {
  const fs::path out = dir / "stdout", err = dir / "stderr";
  const std::string cmd = command + " >" + quote(out.string()) + " 2>" + quote(err.string()) + " </dev/null";
  const int status = std::system(cmd.c_str());
  outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

void app_test::SetUp() {
  if (!fs::exists(app_path(app_))) FAIL() << "the " << app_ << " app is not built: " << app_path(app_);
  scratch_test::SetUp();
}

}  // namespace perron::test
