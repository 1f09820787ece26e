// Profile files (io/profile.hpp): numbers in any whitespace layout with '#'
// comments; the expected count; bad tokens with file and line; unreadable paths.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/profile.hpp"

namespace perron::io {
namespace {

class profile_file : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("perron_io_profile_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const auto path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(profile_file, ReadsNumbersInAnyLayoutWithComments) {
  const auto path = write("u0.txt", "# initial values\n1 2\n3.5\n\n-4e-1  # last\n");
  EXPECT_EQ(read_profile(path), (std::vector<double>{1, 2, 3.5, -0.4}));
  EXPECT_EQ(read_profile(path, 4), (std::vector<double>{1, 2, 3.5, -0.4}));
  EXPECT_EQ(read_profile(write("empty.txt", "# nothing\n")), std::vector<double>{});
}

// A UTF-8 byte order mark (Windows editors write one) is skipped, as the graph
// readers skip it: "'\xef\xbb\xbf0.5' is not a finite number" before.
TEST_F(profile_file, ByteOrderMarkIsSkipped) {
  EXPECT_EQ(read_profile(write("bom.txt",
                               "\xEF\xBB\xBF"
                               "0.5\n1\n"),
                         2),
            (std::vector<double>{0.5, 1}));
  EXPECT_EQ(read_profile(write("bom-comment.txt", "\xEF\xBB\xBF# u\n2\n"), 1), (std::vector<double>{2}));
}

TEST_F(profile_file, WrongCountIsADimensionErrorNamingTheCount) {
  try {
    read_profile(write("short.txt", "1 2 3\n"), 4);
    FAIL() << "accepted 3 values for 4";
  } catch (const dimension_error& e) {
    EXPECT_NE(std::string(e.what()).find("3 values"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_profile(write("long.txt", "1 2 3 4 5\n"), 4), dimension_error);
  try {  // the line of the first value too many
    read_profile(write("longer.txt", "1 2\n# two more\n3 4\n\n5\n"), 4);
    ADD_FAILURE() << "five values for N = 4 were read";
  } catch (const dimension_error& e) {
    EXPECT_NE(std::string(e.what()).find("longer.txt:5: value 5 is more than N = 4"), std::string::npos)
        << e.what();
  }
}

TEST_F(profile_file, BadTokensAreParseErrorsWithFileAndLine) {
  const auto bad = write("bad.txt", "1\n2\nthree\n4\n");
  try {
    read_profile(bad, 4);
    FAIL() << "accepted 'three'";
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 3u);
    EXPECT_EQ(e.file, bad);
    EXPECT_NE(std::string(e.what()).find(bad + ":3:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_profile(write("nan.txt", "1 nan 3 4")), parse_error);
  EXPECT_THROW(read_profile(write("inf.txt", "1 2 inf 4"), 4), parse_error);
  EXPECT_THROW(read_profile(write("glued.txt", "1 2x 3 4"), 4), parse_error);
  // Numbers as every reader takes them: strtod took 0x10 as 16 and 1e-400 as 0.
  EXPECT_THROW(read_profile(write("hex.txt", "1 0x10 3 4"), 4), parse_error);
  EXPECT_THROW(read_profile(write("big.txt", "1 1e400 3 4"), 4), parse_error);
  EXPECT_EQ(read_profile(write("tiny.txt", "+1 1e-400 -3 4e-310"), 4),
            (std::vector<double>{1, 0, -3, 4e-310}));
}

// A profile compressed whole by bzip2, xz or zstd is read as gzip is (its
// bytes were parsed as text: "'BZh91AY&SY...' is not a finite number"); a
// tar or zip, plain or compressed, holds files and is refused as such.
TEST_F(profile_file, CompressedProfilesAreReadAndArchivesRefused) {
  const std::string text = "# u0\n1 2\n3.5 -4\n";
  const auto plain = write("u0.txt", text);
  const std::vector<double> want{1, 2, 3.5, -4};
  int made = 0;
  for (const std::string tool : {"gzip", "bzip2", "xz", "zstd -q"}) {
    const std::string packed = plain + "." + tool.substr(0, 2);
    if (std::system((tool + " -c '" + plain + "' > '" + packed + "' 2>/dev/null").c_str()) != 0) continue;
    SCOPED_TRACE(tool);
    try {
      EXPECT_EQ(read_profile(packed, 4), want);
      ++made;
    } catch (const not_supported&) {  // built without libarchive: bzip2, xz and zstd refused
      EXPECT_NE(tool, "gzip");
    }
  }
  if (made == 0) GTEST_SKIP() << "no compressor made its file";
  const std::string tar = (dir_ / "u0.tar").string();
  if (std::system(("tar -cf '" + tar + "' -C '" + dir_.string() + "' u0.txt 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "no tar here";
  for (const std::string& archive : {tar, tar + ".bz"}) {
    if (archive != tar &&
        std::system(("bzip2 -c '" + tar + "' > '" + archive + "' 2>/dev/null").c_str()) != 0)
      continue;
    try {
      read_profile(archive, 4);
      FAIL() << "read an archive as a profile: " << archive;
    } catch (const io_error& e) {
      EXPECT_NE(std::string(e.what()).find("archive, not a profile"), std::string::npos) << e.what();
    } catch (const not_supported&) {
    }
  }
}

// A device of binary data is refused at line 1 at once: it was read as one
// endless line by std::getline until the host ran out of memory.
TEST_F(profile_file, BinaryDeviceIsRefusedAtLineOne) {
  try {
    read_profile("/dev/zero", 101);
    FAIL() << "accepted /dev/zero";
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 1u);
    EXPECT_NE(std::string(e.what()).find("binary data"), std::string::npos) << e.what();
  }
  try {
    read_profile(write("nul.txt", std::string("1 2\n3\0004 5\n", 10)), 5);
    FAIL() << "accepted a NUL byte";
  } catch (const parse_error& e) {
    EXPECT_EQ(e.line, 2u);
    EXPECT_NE(std::string(e.what()).find("\\x00"), std::string::npos) << e.what();
  }
}

TEST_F(profile_file, MissingFilesAndDirectoriesAreIoErrors) {
  EXPECT_THROW(read_profile((dir_ / "missing.txt").string()), io_error);
  EXPECT_THROW(read_profile(dir_.string()), io_error);
}

}  // namespace
}  // namespace perron::io
