#include "tests/support/scratch.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>

namespace perron::test {

namespace fs = std::filesystem;

fs::path make_scratch_dir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test = info->name();
  std::replace(test.begin(), test.end(), '/', '_');  // parameterized tests: Name/3
  const fs::path dir = fs::temp_directory_path() /
                       ("perron-" + (prefix.empty() ? std::string(info->test_suite_name()) : prefix) + "-" +
                        std::to_string(::getpid()) + "-" + test);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void scratch_test::TearDown() {
  if (dir_.empty()) return;
  std::error_code ec;
  // A test may have made its folder read-only (an unwritable cache directory).
  fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(dir_, ec);
}

std::string scratch_test::write(const std::string& name, const std::string& content) const {
  const std::string p = path(name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

std::string scratch_test::copy(const std::string& from, const std::string& name) const {
  const std::string p = path(name);
  fs::copy_file(from, p);
  return p;
}

}  // namespace perron::test
