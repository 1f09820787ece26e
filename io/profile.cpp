// Profile files (io/profile.hpp).
#include "io/profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "io/archive.hpp"
#include "io/text_input.hpp"

namespace perron::io {

std::vector<double> read_profile(const std::string& path, std::size_t expected) {
  // Read whole by the text readers' read_file: a device or pipe is checked for
  // text and read within the memory free, so --ic file:/dev/zero is refused at
  // once (std::getline of its one endless line filled the host), and .gz works.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw io_error(path, "is a directory, not a profile file");
  const detail::text_buffer text = detail::read_single_text(path, "a profile");
  std::vector<double> v;
  v.reserve(std::min<std::size_t>(expected, text.size() / 2 + 1));  // a value takes 2 bytes at least
  // Without a byte order mark, as the graph readers (its first value was refused).
  const std::string_view body = detail::without_bom(text.view());
  const char* p = body.data();
  const char* const end = p + body.size();
  std::uint64_t line_no = 1;
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
  while (p != end) {
    if (*p == '\n') {
      ++line_no;
      ++p;
    } else if (is_space(*p)) {
      ++p;
    } else if (*p == '#') {
      while (p != end && *p != '\n') ++p;
    } else {
      const char* t = p;
      while (p != end && *p != '\n' && *p != '#' && !is_space(*p)) ++p;
      double x = 0;
      if (scan_real(t, p, x) != p)
        throw parse_error(path, line_no, detail::quote_token(t, p) + " is not a finite number");
      if (expected && v.size() == expected)
        throw dimension_error(path + ":" + std::to_string(line_no) + ": value " +
                              std::to_string(expected + 1) + " is more than N = " + std::to_string(expected) +
                              " (one value per grid point)");
      v.push_back(x);
    }
  }
  if (expected && v.size() != expected)
    throw dimension_error(path + ": " + std::to_string(v.size()) + " values, but the grid has N = " +
                          std::to_string(expected) + " points (one value per point)");
  return v;
}

}  // namespace perron::io
