// Per-vertex weight files: a Matrix Market array, or "vertex weight" lines.
#include "io/vector_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/archive.hpp"
#include "io/matrix_market.hpp"
#include "io/text_input.hpp"

namespace perron::io {
namespace {

// (Any case, as the graph readers take the banner.)
bool starts_like_matrix_market(std::string_view text) {
  return text.size() >= 14 && iequals(text.substr(0, 14), "%%MatrixMarket");
}

std::vector<double> read_array_weights(std::string_view text, const std::string& path, index_t n,
                                       const vertex_naming& label) {
  const auto nn = static_cast<std::size_t>(n);
  mm_array arr = parse_matrix_market_array(text, path);
  const auto rows = arr.header.rows, cols = arr.header.cols;
  if (!((rows == n && cols == 1) || (rows == 1 && cols == n)) || arr.values.size() != nn)
    throw dimension_error(path + ": a vector of " + std::to_string(n) +
                          " values (one per vertex) is needed, got " + std::to_string(rows) + " x " +
                          std::to_string(cols));
  for (std::size_t i = 0; i < nn; ++i)
    if (!(arr.values[i] >= 0.0) || !std::isfinite(arr.values[i]))
      throw parse_error(path, 0,
                        "value " + std::to_string(i + 1) + " (vertex " + label(index_t(i)) + ") is " +
                            format_g(arr.values[i], 17) + "; weights must be finite and non-negative");
  return std::move(arr.values);
}

struct weight_line {
  std::string_view vertex;
  double weight;
};

// One non-comment line "vertex weight" (the text from its first non-blank character).
weight_line parse_weight_line(const char* p, const std::string& path, std::uint64_t lineno,
                              std::string& quoted) {
  std::string_view vertex;
  if (*p == '"') {
    // "a name with blanks" weight, as GML and Pajek labels are and --output writes them.
    p = detail::quoted_name(p, quoted);
    if (!p) throw parse_error(path, lineno, "the vertex's opening '\"' is not closed");
    vertex = quoted;
    if (*p != '\0' && *p != ' ' && *p != '\t')
      throw parse_error(path, lineno, "expected '\"vertex\" weight', found more after the closing '\"'");
  } else {
    const char* v = p;
    while (*p != '\0' && *p != ' ' && *p != '\t') ++p;
    vertex = std::string_view(v, static_cast<std::size_t>(p - v));
  }
  for (; *p == ' ' || *p == '\t'; ++p) {
  }
  const char* w = p;
  while (*p != '\0' && *p != ' ' && *p != '\t') ++p;
  double x = 0;
  if (w == p) throw parse_error(path, lineno, "expected 'vertex weight', the weight is missing");
  if (scan_real(w, p, x) != p) {
    const std::string why = detail::real_problem(w, p);
    throw parse_error(path, lineno,
                      "weight " + detail::quote_token(w, p) + " " + why +
                          (why == "is not a finite number" ? " (weights must be finite)" : ""));
  }
  for (; *p == ' ' || *p == '\t'; ++p) {
  }
  if (*p != '\0') throw parse_error(path, lineno, "expected 'vertex weight', found more on the line");
  if (!(x >= 0.0))
    throw parse_error(path, lineno,
                      "weight " + format_shortest(x) + ": weights must be finite and non-negative");
  return {vertex, x};
}

void chomp_cr(std::string& line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
}

bool starts_quoted(const std::string& line) {
  const auto first = line.find_first_not_of(" \t");
  return first != std::string::npos && line[first] == '"';
}

std::size_t count_quotes(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '"'));
}

std::vector<double> read_text_weights(std::string_view text, const std::string& path, index_t n,
                                      const vertex_naming& label) {
  const auto nn = static_cast<std::size_t>(n);
  const vertex_lookup names(n, label);
  std::vector<double> w(nn, 0.0);
  std::vector<std::uint8_t> seen(nn, 0);
  std::istringstream in{std::string(text)};
  std::string line, more, quoted;
  std::uint64_t lineno = 0;
  while (std::getline(in, line)) {
    const std::uint64_t at = ++lineno;
    // A quoted name that holds a line break (a GML label, written so by
    // --output) goes on over the next lines, as in CSV; the line named in an
    // error is the one it starts on.
    // (Quotes counted, not re-scanned: an odd count leaves one open, as
    // CSV's quotes toggle; a stray quote costs one pass over the rest.)
    chomp_cr(line);
    if (starts_quoted(line))
      for (std::size_t quotes = count_quotes(line); quotes % 2 == 1 && std::getline(in, more); ++lineno) {
        chomp_cr(more);
        quotes += count_quotes(more);
        line += '\n';
        line += more;
      }
    // The line is parsed through c_str(), which ends at a NUL: '1 0.5\0 junk'
    // read as '1 0.5', the rest of the line dropped without a word.
    if (line.find('\0') != std::string::npos)
      throw parse_error(path, at, "binary data (byte 0x00): not a 'vertex weight' line");
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#' || line[first] == '%') continue;
    const weight_line wl = parse_weight_line(line.c_str() + first, path, at, quoted);
    if (!names.named() && !is_integer_text(wl.vertex))
      throw parse_error(path, at, "expected 'vertex weight', the vertex is not an integer");
    const index_t i = names.find(wl.vertex);
    const std::string who(wl.vertex);
    if (i < 0) throw parse_error(path, at, "vertex " + who + " is not in the graph" + names.range());
    if (seen[i]) throw parse_error(path, at, "vertex " + who + " is listed twice");
    seen[i] = 1;
    w[i] = wl.weight;
  }
  if (in.bad()) throw io_error(path, "read error");
  return w;
}

}  // namespace

std::vector<double> read_vertex_weights(const std::string& path, index_t n, const vertex_naming& label) {
  // Read once (a pipe cannot be opened twice; a device or pipe is checked
  // for text and read within the memory free; .gz inflated).
  const detail::text_buffer buffer = detail::read_single_text(path, "a vector of vertex values");
  // A byte order mark (as the graph readers skip it): the first line was
  // refused as "the vertex is not an integer", a Matrix Market array too.
  const std::string_view text = detail::without_bom(buffer.view());
  if (starts_like_matrix_market(text)) return read_array_weights(text, path, n, label);
  return read_text_weights(text, path, n, label);
}

}  // namespace perron::io
