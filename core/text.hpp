// Numbers and strings as text, the same way everywhere: messages, tables,
// JSON and help texts all format through these functions.
#pragma once

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace perron {

// A finite double at p: optional sign ('+' too), decimal or exponent
// notation, as std::from_chars reads it (no hex, inf or nan: strtod took
// "0x10" as 16); underflow gives the nearest representable value, as strtod.
// Returns the end of the number, or nullptr on anything else (nan, inf,
// overflow, no digits). Every reader of numbers (files, option specs) uses it.
inline const char* scan_real(const char* p, const char* end, double& value) {
  // from_chars takes no '+'; a second sign after it is still refused below.
  if (p != end && *p == '+') {
    ++p;
    if (p != end && (*p == '-' || *p == '+')) return nullptr;
  }
  const auto [q, ec] = std::from_chars(p, end, value, std::chars_format::general);
  if (ec == std::errc()) return std::isfinite(value) ? q : nullptr;
  if (ec != std::errc::result_out_of_range) return nullptr;
  // Out of range: overflow is an error, underflow rounds (to a subnormal or
  // zero) as strtod does. Rare, so the slow path is fine here.
  const std::string token(p, static_cast<std::size_t>(q - p));
  errno = 0;
  const double v = std::strtod(token.c_str(), nullptr);
  if (!std::isfinite(v)) return nullptr;
  value = v;
  return q;
}

// The whole of s as scan_real reads it, or false.
inline bool parse_real(std::string_view s, double& value) {
  const char* end = s.data() + s.size();
  return !s.empty() && scan_real(s.data(), end, value) == end;
}

// Whether s is an integer as strtoll writes one (a sign, then digits), whole:
// a vertex written as an id in a file that names vertices (any size; whether
// the graph has it is the lookup's to say).
inline bool is_integer_text(std::string_view s) {
  std::size_t k = !s.empty() && (s[0] == '-' || s[0] == '+');
  if (k == s.size()) return false;
  for (; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  return true;
}

// s with its ASCII letters in lower case: extensions, header words and
// keywords that any case names.
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Whether a and b are equal but for the case of ASCII letters.
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// printf "%.*g": `digits` significant digits (17 round-trips a double).
inline std::string format_g(double v, int digits = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// The fewest significant digits that read back as v itself ("%g" otherwise):
// a limit printed so can be passed back as it is, where rounding may cross it.
// Whole numbers below 10^15 keep their digits: 10 is "10", not "1e+01".
inline std::string format_shortest(double v) {
  for (int digits = 1; digits < 17; ++digits) {
    std::string s = format_g(v, digits);
    if (std::strtod(s.c_str(), nullptr) != v) continue;
    const double a = std::fabs(v);
    if (s.find('e') != std::string::npos && a >= 1 && a < 1e15) {
      std::string whole = format_g(v, 1 + static_cast<int>(std::floor(std::log10(a))));
      if (whole.find('e') == std::string::npos && std::strtod(whole.c_str(), nullptr) == v) return whole;
    }
    return s;
  }
  return format_g(v, 17);
}

// printf "%.*f": `decimals` digits after the point.
inline std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// A JSON number that round-trips the double; null for NaN and infinities,
// which JSON cannot write.
inline std::string json_number(double v) { return std::isfinite(v) ? format_g(v, 17) : "null"; }

// The length of the well-formed UTF-8 sequence at s[i] (Unicode 15, table
// 3-7: no overlong forms, no surrogates, nothing past U+10FFFF), or 0.
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  if (c < 0x80) return 1;
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + len > s.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xbf) return 0;
  return len;
}

// The contents of a JSON string (without its quotes): quote, backslash and
// control characters escaped. A byte that is not part of well-formed UTF-8
// (a file name in Latin-1: Linux names are bytes) is written as \udcXX, the
// lone low surrogate Python's "surrogateescape" gives it: the text stays valid
// JSON (written raw, the byte made the whole document invalid UTF-8, which
// JSON readers refuse), and Python gets the name's bytes back with
// s.encode("utf-8", "surrogateescape"), as os.fsencode does.
inline std::string json_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 2);
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    char buf[8];
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c == '\n') {
      o += "\\n";
    } else if (c == '\t') {
      o += "\\t";
    } else if (c == '\r') {
      o += "\\r";
    } else if (c < 0x20) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      o += buf;
    } else if (c >= 0x80) {
      const std::size_t len = utf8_sequence(s, i);
      if (len == 0) {
        std::snprintf(buf, sizeof buf, "\\udc%02x", static_cast<unsigned>(c));
        o += buf;
        ++i;
      } else {
        o.append(s.data() + i, len);
        i += len;
      }
      continue;
    } else {
      o += static_cast<char>(c);
    }
    ++i;
  }
  return o;
}

// A CSV field (RFC 4180): quoted, its quotes doubled, where it holds a
// comma, a quote or a line break (spmv-bench's matrix names are the user's
// paths: 'a,b.mtx' split a row into one column too many).
inline std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string o = "\"";
  for (const char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

// A message as one line of text: its control bytes shown as \xNN (a tab
// kept). Errors and warnings carry the user's words as given, and a file
// name holding a line break ('pagerank $'g\n.mtx'') split one over two lines;
// a carriage return overwrote its start on a terminal.
inline std::string one_line(std::string_view msg) {
  std::string out;
  out.reserve(msg.size());
  for (const char c : msg) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

// A duration for progress lines: "12.3s", "4m05s", "2h07m".
inline std::string format_duration(double s) {
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.1fs", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) / 60 % 60);
  return buf;
}

}  // namespace perron
