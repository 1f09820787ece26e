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

// printf "%.*g": `digits` significant digits (17 round-trips a double).
inline std::string format_g(double v, int digits = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
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

// The contents of a JSON string (without its quotes): quote, backslash and
// control characters escaped.
inline std::string json_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size() + 2);
  for (const unsigned char c : s) {
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
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      o += buf;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o;
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
