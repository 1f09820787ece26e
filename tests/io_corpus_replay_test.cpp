// Replays the committed fuzz corpus (tests/fuzz/corpus/) through the same checks
// the libFuzzer targets run (tests/fuzz/fuzz_checks.hpp), without fuzzing: every
// input must parse into a consistent matrix or be refused with a
// perron::error, identically for the one-chunk and the many-chunk parse.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_checks.hpp"

namespace perron {
namespace {

namespace fs = std::filesystem;

struct corpus_file {
  std::string target;  // matrix_market, snap, gzip, graph_files
  std::string path;
};

std::vector<corpus_file> corpus() {
  std::vector<corpus_file> files;
  const fs::path root = fs::path(PERRON_SOURCE_DIR) / "tests" / "fuzz" / "corpus";
  for (const char* target : {"matrix_market", "snap", "gzip", "graph_files"})
    if (fs::is_directory(root / target))
      for (const auto& e : fs::directory_iterator(root / target))
        if (e.is_regular_file()) files.push_back({target, e.path().string()});
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return files;
}

class io_corpus_replay : public ::testing::TestWithParam<corpus_file> {};

TEST_P(io_corpus_replay, ParsesOrFailsWithAPerronError) {
  const auto& f = GetParam();
  std::ifstream in(f.path, std::ios::binary);
  ASSERT_TRUE(in) << f.path;
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string bug;
  try {
    if (f.target == "matrix_market")
      bug = fuzz::check_matrix_market_input(data);
    else if (f.target == "snap")
      bug = fuzz::check_snap_input(data);
    else if (f.target == "graph_files")
      bug = fuzz::check_graph_file_input(data);
    else
      bug = fuzz::check_gzip_input(data);
  } catch (const std::exception& e) {
    bug = std::string("an exception that is not a perron::error: ") + e.what();
  }
  EXPECT_EQ(bug, "") << f.path;
}

INSTANTIATE_TEST_SUITE_P(Corpus, io_corpus_replay, ::testing::ValuesIn(corpus()), [](const auto& info) {
  std::string n = info.param.target + "_" + fs::path(info.param.path).filename().string();
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n + "_" + std::to_string(info.index);
});

TEST(io_corpus, IsPresent) { EXPECT_GE(corpus().size(), 50u); }

}  // namespace
}  // namespace perron
