// The layering of docs/ARCHITECTURE.md, checked on the source tree: a file
// under core/ includes only core/; kernels/ and io/ include core/ and
// themselves; solvers/ include core/, kernels/ and solvers/ (never io/);
// bench/ anything but apps/; apps/, python/, tests/ and examples/ may include
// anything. System and CUDA
// headers are always allowed: a project include is one whose path starts
// with one of the project's top-level folders.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/support/support.hpp"

namespace perron::test {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> project_folders = {"core",  "kernels", "io",       "solvers", "apps",
                                               "bench", "tests",   "examples", "python"};

// What each restricted layer may include; the other folders are unrestricted.
const std::map<std::string, std::set<std::string>> allowed = {
    {"core", {"core"}},
    {"kernels", {"core", "kernels"}},
    {"io", {"core", "io"}},
    {"solvers", {"core", "kernels", "solvers"}},
    {"bench", {"core", "kernels", "io", "solvers", "bench"}},
};

bool is_source(const fs::path& p) {
  static const std::set<std::string> exts = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".def", ".inl"};
  return exts.count(p.extension().string()) > 0;
}

// The include `target` of `file` as a path from the tree's root: a quoted
// include is found first beside the file that includes it (the installed
// headers include each other so, "../core/formats.hpp": cmake/install.cmake),
// then from the root ("core/formats.hpp").
std::string project_path(const fs::path& root, const fs::path& file, const std::string& target) {
  const fs::path beside = (file.parent_path() / target).lexically_normal();
  if (fs::exists(beside)) return beside.lexically_relative(root).generic_string();
  return target;
}

// "file:line: includes "x/y.hpp" (layer -> x is forbidden)" for every forbidden
// include of `file`, which sits in layer `layer` of the tree at `root`.
void check_file(const fs::path& root, const fs::path& file, const std::string& layer,
                std::vector<std::string>& errors) {
  static const std::regex include_line(R"(^\s*#\s*include\s*["<]([^">]+)[">])");
  std::ifstream in(file);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::smatch m;
    if (!std::regex_search(line, m, include_line)) continue;
    const std::string target = project_path(root, file, m[1]);
    const std::string top = target.substr(0, target.find('/'));
    if (target.find('/') == std::string::npos || !project_folders.count(top)) continue;
    if (allowed.at(layer).count(top)) continue;
    errors.push_back(fs::relative(file, root).string() + ":" + std::to_string(number) + ": includes \"" +
                     target + "\" (" + layer + "/ may not include " + top + "/)");
  }
}

// Every forbidden include under the restricted layers of the tree at `root`.
std::vector<std::string> layer_violations(const fs::path& root) {
  std::vector<std::string> errors;
  for (const auto& [layer, ok] : allowed) {
    (void)ok;
    const fs::path dir = root / layer;
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && is_source(e.path())) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) check_file(root, f, layer, errors);
  }
  return errors;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

TEST(layers, NoFileIncludesAcrossAForbiddenLayer) {
  // The tree beside the data folder: this checkout, or the copy that
  // PERRON_DATA_DIR points at when the binaries run on another machine.
  const fs::path root = fs::path(data_dir()).parent_path();
  if (!fs::is_directory(root / "core")) GTEST_SKIP() << "no source tree at " << root;
  const auto errors = layer_violations(root);
  EXPECT_TRUE(errors.empty()) << "forbidden includes (see docs/ARCHITECTURE.md):\n" << joined(errors);
}

// The headers `cmake --install` copies (the top of core/, kernels/, io/ and
// solvers/: cmake/install.cmake) include each other beside themselves
// ("formats.hpp", "../core/formats.hpp"): a quoted "core/formats.hpp" is looked
// for in the user's -I folders before perron's, so a project with its own
// core/formats.hpp would compile perron's headers against it.
TEST(layers, InstalledHeadersIncludeEachOtherBesideThemselves) {
  const fs::path root = fs::path(data_dir()).parent_path();
  if (!fs::is_directory(root / "core")) GTEST_SKIP() << "no source tree at " << root;
  static const std::regex include_line(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> errors;
  for (const char* folder : {"core", "kernels", "io", "solvers"}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root / folder)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".hpp" || ext == ".def")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        std::smatch m;
        if (!std::regex_search(line, m, include_line)) continue;
        const std::string target = m[1];
        if (project_folders.count(target.substr(0, target.find('/'))) &&
            target.find('/') != std::string::npos)
          errors.push_back(fs::relative(f, root).string() + ":" + std::to_string(number) + ": \"" + target +
                           "\" from the root");
        else if (!fs::exists(f.parent_path() / target))
          errors.push_back(fs::relative(f, root).string() + ":" + std::to_string(number) + ": \"" + target +
                           "\" is not beside it");
      }
    }
  }
  EXPECT_TRUE(errors.empty()) << "installed headers must include project headers by a path from their own "
                                 "folder (\"../core/x.hpp\"):\n"
                              << joined(errors);
}

// The checker itself, on a small tree with one violation of each kind it must
// catch and includes it must let pass, so the test above cannot pass vacuously.
TEST(layers, CheckerFindsEveryViolationInAFixtureTree) {
  const fs::path root = fs::temp_directory_path() / ("perron_layers_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const auto write = [&](const std::string& rel, const std::string& text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  };
  write("core/a.hpp", "#include <vector>\n#include \"core/b.hpp\"\n#include <cuda_runtime.h>\n");
  write("core/cuda/c.cuh",
        "// #include \"io/x.hpp\" in a comment is not an include\n#include \"kernels/k.hpp\"\n");
  write("kernels/k.cpp", "#include \"core/a.hpp\"\n#include \"kernels/k.hpp\"\n");
  write("io/r.cpp", "#include \"core/a.hpp\"\n\n  #  include \"solvers/s.hpp\"\n");
  write("solvers/s.cpp", "#include \"kernels/k.hpp\"\n#include \"io/r.hpp\"\n");
  write("io/r.hpp", "#include \"../core/a.hpp\"\n");
  write("solvers/s.hpp", "#include \"../kernels/k.hpp\"\n#include \"../io/r.hpp\"\n#include \"s.cpp\"\n");
  write("apps/app.cpp", "#include \"io/r.hpp\"\n#include \"solvers/s.hpp\"\n");
  const auto errors = layer_violations(root);
  fs::remove_all(root);
  EXPECT_EQ(joined(errors),
            "core/cuda/c.cuh:2: includes \"kernels/k.hpp\" (core/ may not include kernels/)\n"
            "io/r.cpp:3: includes \"solvers/s.hpp\" (io/ may not include solvers/)\n"
            "solvers/s.cpp:2: includes \"io/r.hpp\" (solvers/ may not include io/)\n"
            "solvers/s.hpp:2: includes \"io/r.hpp\" (solvers/ may not include io/)\n");
}

}  // namespace
}  // namespace perron::test
