// Numbers and strings as text, the same way everywhere: messages, tables,
// JSON and help texts all format through these functions.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace perron {

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
