// Enum <-> name tables: every option enum of perron (SpMV kernel, PageRank pull,
// loop and device, heat1d method and solver ...) names its values through one
// table of {value, name} pairs, and parses, prints and lists them through these
// three functions, so a name is written exactly once.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "error.hpp"

namespace perron {

template <class E, std::size_t N>
using name_table = std::array<std::pair<E, std::string_view>, N>;

// The name of e in the table ("unknown" for a value not in it).
template <class E, std::size_t N>
constexpr std::string_view name_in(const name_table<E, N>& table, E e) {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "unknown";
}

// "a, b, c": the table's names in order, for help texts and messages.
template <class E, std::size_t N>
std::string names_in(const name_table<E, N>& table) {
  std::string s;
  for (const auto& entry : table) {
    if (!s.empty()) s += ", ";
    s += entry.second;
  }
  return s;
}

// The value named s; invalid_argument "unknown <what> 's' (valid: a, b, c)" otherwise.
template <class E, std::size_t N>
E parse_in(const name_table<E, N>& table, std::string_view s, std::string_view what) {
  for (const auto& [value, name] : table)
    if (name == s) return value;
  throw invalid_argument("unknown " + std::string(what) + " '" + std::string(s) +
                         "' (valid: " + names_in(table) + ")");
}

}  // namespace perron
