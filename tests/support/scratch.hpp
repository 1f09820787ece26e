// A scratch folder per test: created before it, removed after it.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace perron::test {

// A fresh folder <tmp>/perron-<prefix>-<pid>-<test name>; the prefix defaults
// to the test suite's name.
std::filesystem::path make_scratch_dir(const std::string& prefix = "");

// Fixture base: `dir_` is the test's own scratch folder.
class scratch_test : public ::testing::Test {
 protected:
  scratch_test() = default;  // `using my_suite = test::scratch_test;` is enough
  explicit scratch_test(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override { dir_ = make_scratch_dir(prefix_); }
  void TearDown() override;
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Writes `content` to `name` in the scratch folder (bytes as given); returns its path.
  std::string write(const std::string& name, const std::string& content) const;
  // Copies the file `from` to `name` in the scratch folder; returns its path.
  std::string copy(const std::string& from, const std::string& name) const;

  std::string prefix_;
  std::filesystem::path dir_;
};

}  // namespace perron::test
