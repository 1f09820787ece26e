// Profile files (io/profile.hpp).
#include "io/profile.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace perron::io {

std::vector<double> read_profile(const std::string& path, std::size_t expected) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw io_error(path, "is a directory, not a profile file");
  std::ifstream in(path);
  if (!in) throw io_error(path, "cannot open the profile file");
  std::vector<double> v;
  v.reserve(expected);
  std::string line;
  std::uint64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string w;
    while (words >> w) {
      char* end = nullptr;
      const double x = std::strtod(w.c_str(), &end);
      if (end != w.c_str() + w.size() || !std::isfinite(x))
        throw parse_error(path, line_no, "'" + w + "' is not a finite number");
      if (expected && v.size() == expected)
        throw dimension_error(path + ": more than N = " + std::to_string(expected) +
                              " values (one per grid point)");
      v.push_back(x);
    }
  }
  if (in.bad()) throw io_error(path, "read error");
  if (expected && v.size() != expected)
    throw dimension_error(path + ": " + std::to_string(v.size()) + " values, but the grid has N = " +
                          std::to_string(expected) + " points (one value per point)");
  return v;
}

}  // namespace perron::io
