// io::mm_file_part, the byte-range parts of a distributed load: the parts of
// a file together are the whole file's entries in order, and every error
// reads as read_matrix_market reports it (same line, same words), for any
// number of parts.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/matrix_market.hpp"

namespace perron::io {
namespace {

namespace fs = std::filesystem;

// Every part of `path` parsed, with line numbers and entry counts passed on
// as the distributed loader passes them; the entries concatenated.
coo_matrix<double> read_in_parts(const std::string& path, int parts, const read_options& opt = {}) {
  std::vector<std::unique_ptr<mm_file_part>> part;
  for (int p = 0; p < parts; ++p) part.push_back(std::make_unique<mm_file_part>(path, p, parts));
  std::vector<std::uint64_t> first(static_cast<std::size_t>(parts));
  std::uint64_t line = part[0]->body_line();
  std::vector<coo_matrix<double>> got;
  for (int p = 0; p < parts; ++p) {
    first[p] = line;
    line += part[p]->lines();
    got.push_back(part[p]->parse(first[p], opt));
  }
  std::uint64_t total = 0;
  for (const auto& g : got) total += g.nnz();
  std::uint64_t before = 0;
  coo_matrix<double> all;
  all.rows = part[0]->header().rows;
  all.cols = part[0]->header().cols;
  for (int p = 0; p < parts; ++p) {
    part[p]->check_count(before, got[p].nnz(), total, first[p]);
    before += got[p].nnz();
    all.row_idx.insert(all.row_idx.end(), got[p].row_idx.begin(), got[p].row_idx.end());
    all.col_idx.insert(all.col_idx.end(), got[p].col_idx.begin(), got[p].col_idx.end());
    all.values.insert(all.values.end(), got[p].values.begin(), got[p].values.end());
  }
  return all;
}

// The message of the first failing part (in file order), as the distributed
// loader's agreement picks the lowest failing rank.
std::string error_in_parts(const std::string& path, int parts) {
  try {
    read_in_parts(path, parts);
  } catch (const error& e) {
    return e.what();
  }
  return "";
}

std::string error_whole(const std::string& path) {
  try {
    read_matrix_market(path);
  } catch (const error& e) {
    return e.what();
  }
  return "";
}

class DistInput : public ::testing::Test {
 protected:
  fs::path dir_ = fs::temp_directory_path() / ("perron-dist-input-" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

TEST_F(DistInput, PartsTogetherAreTheWholeFileForEveryCoordinateFileInData) {
  int files = 0;
  for (const auto& e : fs::directory_iterator(PERRON_SOURCE_DIR "/data")) {
    const std::string path = e.path().string();
    if (e.path().extension() != ".mtx" || !mm_file_part::splittable(path)) continue;
    ++files;
    const mm_matrix whole = read_matrix_market(path);
    for (int parts : {1, 2, 3, 4, 7, 16}) {
      SCOPED_TRACE(path + " in " + std::to_string(parts) + " parts");
      const coo_matrix<double> got = read_in_parts(path, parts);
      // A symmetric file's mirrors follow its entries in the whole read.
      ASSERT_LE(got.nnz(), whole.matrix.nnz());
      EXPECT_EQ(got.nnz(), whole.header.entries);
      for (std::size_t k = 0; k < got.nnz(); ++k) {
        ASSERT_EQ(got.row_idx[k], whole.matrix.row_idx[k]) << k;
        ASSERT_EQ(got.col_idx[k], whole.matrix.col_idx[k]) << k;
        ASSERT_EQ(got.values[k], whole.matrix.values[k]) << k;
      }
    }
  }
  EXPECT_GE(files, 10);
}

TEST_F(DistInput, AnErrorHasTheWholeReadsLineAndWordsInEveryPart) {
  std::string body;
  for (int k = 1; k <= 300; ++k)
    body += std::to_string(k % 50 + 1) + " " + std::to_string(k % 37 + 1) + " 1.5\n";
  const std::string head = "%%MatrixMarket matrix coordinate real general\n% a comment\n50 50 300\n";
  for (std::size_t at : {std::size_t(0), std::size_t(2000), body.size() - 4}) {
    std::string bad = body;
    const std::size_t line_start = bad.rfind('\n', at) == std::string::npos ? 0 : bad.rfind('\n', at) + 1;
    bad.insert(line_start, "3 x 1\n");
    const std::string path = write("bad.mtx", head + bad);
    const std::string whole = error_whole(path);
    ASSERT_NE(whole, "");
    for (int parts : {1, 2, 3, 5, 9}) EXPECT_EQ(error_in_parts(path, parts), whole) << parts << " parts";
  }
}

TEST_F(DistInput, TooManyAndTooFewEntriesReadAsTheWholeRead) {
  const std::string head = "%%MatrixMarket matrix coordinate pattern general\n";
  std::string body;
  for (int k = 1; k <= 100; ++k) body += std::to_string(k % 9 + 1) + " " + std::to_string(k % 7 + 1) + "\n";
  for (const char* size : {"9 9 99\n", "9 9 101\n", "9 9 0\n", "9 9 1000\n"}) {
    const std::string path = write("count.mtx", head + size + body);
    const std::string whole = error_whole(path);
    ASSERT_NE(whole, "") << size;
    for (int parts : {1, 2, 3, 4, 8, 200}) EXPECT_EQ(error_in_parts(path, parts), whole) << size << parts;
  }
}

TEST_F(DistInput, MorePartsThanLinesLongHeadersAndCrlf) {
  const std::string comments(100000, '%');  // a header longer than the first read
  const std::string path = write("odd.mtx", "%%MatrixMarket matrix coordinate real symmetric\r\n" + comments +
                                                "\r\n3 3 2\r\n1 1 2\r\n3 1 -1");
  const mm_matrix whole = read_matrix_market(path);
  for (int parts : {1, 2, 5, 64}) {
    const coo_matrix<double> got = read_in_parts(path, parts);
    ASSERT_EQ(got.nnz(), 2u) << parts;
    EXPECT_EQ(got.row_idx[1], whole.matrix.row_idx[1]);
    EXPECT_EQ(got.values[1], -1.0);
  }
  mm_file_part last(path, 63, 64);
  EXPECT_EQ(last.header().symmetry, mm_symmetry::symmetric);
  EXPECT_EQ(last.body_line(), 4u);
}

TEST_F(DistInput, WhatCannotBeSplit) {
  EXPECT_TRUE(mm_file_part::splittable(PERRON_SOURCE_DIR "/data/cage8.mtx"));
  EXPECT_FALSE(mm_file_part::splittable(PERRON_SOURCE_DIR "/data/email-Eu-core.txt.gz"));
  EXPECT_FALSE(mm_file_part::splittable(PERRON_SOURCE_DIR "/data/wiki-Vote.txt"));
  EXPECT_FALSE(mm_file_part::splittable(PERRON_SOURCE_DIR "/data/karate.tar.gz"));
  EXPECT_FALSE(mm_file_part::splittable((dir_ / "missing.mtx").string()));
  EXPECT_FALSE(
      mm_file_part::splittable(write("array.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n")));
  EXPECT_THROW(mm_file_part((dir_ / "missing.mtx").string(), 0, 2), io_error);
  EXPECT_THROW(mm_file_part(write("array2.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n"), 0, 1),
               not_supported);
  EXPECT_THROW(
      mm_file_part(write("bad-banner.mtx", "%%MatrixMarket matrix coordinate real sideways\n1 1 0\n"), 1, 2),
      parse_error);
}

}  // namespace
}  // namespace perron::io
