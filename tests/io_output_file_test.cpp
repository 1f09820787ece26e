// io::output_file (atomic replacement, "-" as stdout) and check_not_an_input.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "io/output_file.hpp"

namespace perron::io {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perron-output-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  static void write(const std::string& p, const std::string& text) { std::ofstream(p) << text; }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }

  fs::path dir_;
};

TEST_F(OutputFile, CommitReplacesTheTargetAndLeavesNoTemporary) {
  write(path("ranks.tsv"), "old contents\n");
  {
    output_file out(path("ranks.tsv"));
    out.write("1\t0.5\n");
    std::fprintf(out.get(), "%d\t%.1f\n", 2, 0.5);
    EXPECT_EQ(read(path("ranks.tsv")), "old contents\n");  // untouched until commit
    out.commit();
  }
  EXPECT_EQ(read(path("ranks.tsv")), "1\t0.5\n2\t0.5\n");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, WithoutCommitTheOldFileStaysAndTheTemporaryGoes) {
  write(path("ranks.tsv"), "old contents\n");
  {
    output_file out(path("ranks.tsv"));
    out.write("half a file");
    // an exception unwinding here, before commit()
  }
  EXPECT_EQ(read(path("ranks.tsv")), "old contents\n");
  EXPECT_EQ(entries(), 1u);
  {
    output_file out(path("new.tsv"));
    out.write("never committed");
  }
  EXPECT_FALSE(fs::exists(path("new.tsv")));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, NewFilesGetTheUsualPermissions) {
  const mode_t mask = ::umask(022);
  output_file out(path("x.json"));
  out.write("{}\n");
  out.commit();
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(path("x.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(OutputFile, BadTargetsAreIoErrors) {
  EXPECT_THROW(output_file(path("no-such-folder/ranks.tsv")), io_error);
  EXPECT_THROW(output_file(dir_.string()), io_error);
  EXPECT_THROW(output_file(""), invalid_argument);
}

TEST_F(OutputFile, DashIsStandardOutput) {
  output_file out("-");
  EXPECT_TRUE(out.is_stdout());
  EXPECT_EQ(out.get(), stdout);
  out.commit();
  EXPECT_FALSE(fs::exists("-"));
}

TEST_F(OutputFile, AnOutputThatIsAnInputIsRefused) {
  write(path("graph.mtx"), "%%MatrixMarket matrix coordinate pattern general\n1 1 0\n");
  fs::create_symlink(path("graph.mtx"), path("link.mtx"));
  const std::vector<std::string> inputs{path("graph.mtx")};
  EXPECT_THROW(check_not_an_input(path("graph.mtx"), inputs, "--output"), invalid_argument);
  EXPECT_THROW(check_not_an_input(path("link.mtx"), inputs, "--output"), invalid_argument);
  EXPECT_THROW(check_not_an_input(dir_.string() + "/./graph.mtx", inputs, "--json"), invalid_argument);
  try {
    check_not_an_input(path("link.mtx"), inputs, "--output");
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--output"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("refusing to overwrite"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_not_an_input(path("other.tsv"), inputs, "--output"));  // does not exist yet
  write(path("other.tsv"), "x");
  EXPECT_NO_THROW(check_not_an_input(path("other.tsv"), inputs, "--output"));
  EXPECT_NO_THROW(check_not_an_input("-", inputs, "--output"));
  EXPECT_EQ(read(path("graph.mtx")).substr(0, 14), "%%MatrixMarket");
}

}  // namespace
}  // namespace perron::io
