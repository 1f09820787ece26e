// Source-set files: "vertex[:weight] ..." per line.
#include "io/sources_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/archive.hpp"
#include "io/text_input.hpp"

namespace perron::io {
namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

// The token at p (up to the next blank), quoted, for messages.
std::string token_at(const char* p) {
  const char* e = p;
  while (*e != '\0' && !blank(*e)) ++e;
  return "'" + std::string(p, e) + "'";
}

// One line's "vertex[:weight]" tokens.
std::vector<std::pair<index_t, double>> parse_set(const char* p, const vertex_lookup& names,
                                                  const std::string& path, std::uint64_t line) {
  std::vector<std::pair<index_t, double>> set;
  std::unordered_set<index_t> seen;
  std::string quoted;  // a quoted name, its doubled quotes made one
  double sum = 0.0;
  while (*p != '\0') {
    const char* end = p;
    std::string_view token, who;
    const char* weight = nullptr;
    index_t v = -1;
    if (*p == '"') {
      // "a name with blanks"[:weight], as GML and Pajek labels are: the
      // name whole, quotes aside ('""' for a '"' in it).
      const char* after = detail::quoted_name(p, quoted);
      if (!after) throw parse_error(path, line, "a vertex's opening '\"' is not closed: " + token_at(p));
      who = quoted;
      end = after;
      if (*end == ':') weight = ++end;
      while (*end != '\0' && !blank(*end)) ++end;
      if (weight == nullptr && end != after)
        throw parse_error(path, line, "expected '\"vertex\"' or '\"vertex\":weight', got " + token_at(p));
      v = names.find(who);
      token = who;
    } else {
      while (*end != '\0' && !blank(*end)) ++end;
      token = std::string_view(p, static_cast<std::size_t>(end - p));
      who = token;
      // The vertex and its weight: a name holding ':' is taken whole where the
      // graph has it; ids split at the first ':', names at the last.
      v = names.named() ? names.find(token) : -1;
    }
    if (v < 0 && *p != '"') {
      const std::size_t colon = names.named() ? token.rfind(':') : token.find(':');
      if (colon != std::string_view::npos) {
        who = token.substr(0, colon);
        weight = p + colon + 1;
      }
      if (who.empty() || (!names.named() && names.find(who) < 0 && !is_integer_text(who)))
        throw parse_error(path, line, "expected 'vertex' or 'vertex:weight', got " + token_at(p));
      v = names.find(who);
    }
    const std::string id(who);
    if (v < 0) throw parse_error(path, line, "vertex " + id + " is not in the graph" + names.range());
    double w = 1.0;
    if (weight) {
      if (scan_real(weight, end, w) != end) {  // as the graph readers: no hex, inf, nan or overflow
        const std::string why = detail::real_problem(weight, end);
        if (why.rfind("is not a number", 0) == 0)
          throw parse_error(path, line, "vertex " + id + ": the weight is not a number");
        throw parse_error(path, line,
                          "vertex " + id + ": weight " + detail::quote_token(weight, end) + " " + why +
                              " (weights must be finite and non-negative)");
      }
      if (!(w >= 0.0))
        throw parse_error(
            path, line,
            "vertex " + id + ": weight " + format_shortest(w) + " (weights must be finite and non-negative)");
    }
    // As --personalize refuses a vertex listed twice (was: accepted silently).
    if (!seen.insert(v).second) throw parse_error(path, line, "vertex " + id + " is listed twice in the set");
    set.emplace_back(v, w);
    sum += w;
    p = end;
    while (blank(*p)) ++p;
  }
  // Weights are relative: a finite sum past double (two of 1e308) is
  // normalized by the solver (relative_weights), as --personalize's.
  if (!(sum > 0.0)) throw parse_error(path, line, "all weights of the set are zero");
  return set;
}

}  // namespace

sources_text read_sources_text(const std::string& path) {
  // Read whole (a device or pipe checked for text and read within the memory free).
  const detail::text_buffer whole = detail::read_single_text(path, "a list of source sets");
  // Without a byte order mark, as the graph readers (its first vertex was refused).
  sources_text file{path, std::string(detail::without_bom(whole.view())), 0};
  std::size_t start = 0;
  while (start < file.text.size()) {
    std::size_t end = file.text.find('\n', start);
    if (end == std::string::npos) end = file.text.size();
    const std::size_t first = file.text.find_first_not_of(" \t\r", start);
    if (first < end && file.text[first] != '#') ++file.sets;
    start = end + 1;
  }
  return file;
}

source_sets parse_sources(const sources_text& file, index_t n, const vertex_naming& label) {
  const std::string& path = file.path;
  std::istringstream in{file.text};
  const vertex_lookup names(n, label);
  source_sets out;
  std::string text;
  std::uint64_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    // The line is parsed through c_str(), which ends at a NUL: '1\0 99' read
    // as the set {1}, the rest of the line dropped without a word.
    if (text.find('\0') != std::string::npos)
      throw parse_error(path, line, "binary data (byte 0x00): not a line of vertices");
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) {
      // Blank lines that end the file are no sets (an editor's, a here-document's);
      // one between sets may be a set left empty: refused, naming it.
      const auto rest = static_cast<std::size_t>(in.tellg());
      if (in.eof() || file.text.find_first_not_of(" \t\r\n", rest) == std::string::npos) break;
      throw parse_error(path, line, "empty line (one source set per line)");
    }
    if (text[first] == '#') continue;
    out.sets.push_back(parse_set(text.c_str() + first, names, path, line));
    out.line.push_back(line);
  }
  if (in.bad()) throw io_error(path, "read error");
  if (out.sets.empty()) throw parse_error(path, 0, "no source sets (one set of vertices per line)");
  return out;
}

source_sets read_sources_file(const std::string& path, index_t n, const vertex_naming& label) {
  return parse_sources(read_sources_text(path), n, label);
}

}  // namespace perron::io
