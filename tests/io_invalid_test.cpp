// The bad-input suite: every file in data/invalid/ is listed in MANIFEST.tsv
// with the error kind, line and message words it must produce through
// io::load_matrix (what the apps call). Adding a file without a manifest row,
// or a row without its file, fails the suite.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/load.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

namespace fs = std::filesystem;

struct invalid_case {
  std::string file;
  std::string kind;  // io_error, parse_error, not_supported
  std::uint64_t line = 0;
  std::string words;
};

std::string invalid_dir() { return test::data_dir() + "/invalid"; }

std::vector<invalid_case> manifest() {
  std::vector<invalid_case> cases;
  std::ifstream in(invalid_dir() + "/MANIFEST.tsv");
  std::string row;
  while (std::getline(in, row)) {
    if (row.empty() || row[0] == '#') continue;
    std::istringstream s(row);
    invalid_case c;
    std::string line;
    std::getline(s, c.file, '\t');
    std::getline(s, c.kind, '\t');
    std::getline(s, line, '\t');
    std::getline(s, c.words);
    c.line = std::stoull(line);
    cases.push_back(c);
  }
  return cases;
}

class io_invalid : public ::testing::TestWithParam<invalid_case> {};

TEST_P(io_invalid, GivesTheRightErrorKindLineAndMessage) {
  const auto& c = GetParam();
  const std::string path = invalid_dir() + "/" + c.file;
  if (c.file == "missing-file.mtx") {
    ASSERT_FALSE(fs::exists(path));
  }
  io::read_options opt;
  opt.threads = 2;
  opt.chunk_bytes = 16;  // many chunks even in these small files
  const auto start = std::chrono::steady_clock::now();
  std::string kind, what;
  std::uint64_t line = 0;
  try {
    io::load_matrix(path, opt);
    kind = "none";
  } catch (const parse_error& e) {
    kind = "parse_error";
    line = e.line;
    what = e.what();
    EXPECT_NE(e.file.find(c.file), std::string::npos) << "parse_error.file must name the file: " << e.file;
  } catch (const io_error& e) {
    kind = "io_error";
    what = e.what();
    EXPECT_EQ(e.file, path);
  } catch (const not_supported& e) {
    kind = "not_supported";
    what = e.what();
  } catch (const error& e) {
    kind = "other perron::error";
    what = e.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (kind == "not_supported" && what.find("libarchive") != std::string::npos)
    GTEST_SKIP() << "built without libarchive";  // archives, bzip2, xz and zstd
  EXPECT_EQ(kind, c.kind) << what;
  EXPECT_EQ(line, c.line) << what;
  EXPECT_NE(what.find(c.words), std::string::npos)
      << "message: " << what << "\nexpected to contain: " << c.words;
  EXPECT_NE(what.find(c.file), std::string::npos) << "the message must name the file: " << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
  EXPECT_LT(seconds, 2.0) << "bad input must fail fast";
}

INSTANTIATE_TEST_SUITE_P(DataInvalid, io_invalid, ::testing::ValuesIn(manifest()), [](const auto& info) {
  std::string n = info.param.file;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

// The folder and the manifest agree, and every class issue 2 lists is there.
TEST(io_invalid_manifest, CoversEveryFileAndClass) {
  const auto cases = manifest();
  std::set<std::string> listed;
  for (const auto& c : cases) listed.insert(c.file);
  for (const auto& entry : fs::directory_iterator(invalid_dir())) {
    const std::string name = entry.path().filename().string();
    if (name == "MANIFEST.tsv" || name == "generate.py" || name == "README.md") continue;
    EXPECT_TRUE(listed.count(name)) << name << " has no MANIFEST.tsv row";
  }
  for (const char* required : {"missing-file.mtx",
                               "a-directory.mtx",
                               "empty.mtx",
                               "no-banner.mtx",
                               "garbled-banner.mtx",
                               "unknown-format.mtx",
                               "unknown-field.mtx",
                               "size-line-negative.mtx",
                               "size-line-non-numeric.mtx",
                               "missing-size-line.mtx",
                               "fewer-entries.mtx",
                               "more-entries.mtx",
                               "row-index-zero.mtx",
                               "column-index-beyond.mtx",
                               "value-non-numeric.mtx",
                               "value-nan.mtx",
                               "value-inf.mtx",
                               "truncated.mtx.gz",
                               "huge-declared-count.mtx",
                               "complex.mtx",
                               "hermitian.mtx",
                               "crlf-stray-cr.mtx",
                               "trailing-garbage.mtx",
                               "tabs-missing-value.mtx",
                               "double-plus.mtx",
                               "exponent-empty.mtx",
                               "very-long-line.mtx",
                               "index-beyond-int32.mtx",
                               "value-overflows-double.mtx",
                               "no-mtx-inside.tar.gz"})
    EXPECT_TRUE(listed.count(required)) << required;
  EXPECT_GE(cases.size(), 60u);
}

}  // namespace
}  // namespace perron
