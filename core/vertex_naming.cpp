#include "core/vertex_naming.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "core/text.hpp"

namespace perron {

std::string vertex_naming::operator()(index_t i) const {
  std::string s;
  append(s, i);
  return s;
}

// A vertex past the names or ids (a caller's loaded_matrix of fewer labels
// than rows) read memory past them; a negative one, any.
void vertex_naming::check(index_t i) const {
  const std::size_t known = named() ? name_->size() : id_ && !id_->empty() ? id_->size() : SIZE_MAX;
  if (i < 0 || static_cast<std::size_t>(i) >= known)
    throw dimension_error("vertex " + std::to_string(i) + " has no name or id: " + std::to_string(known) +
                          " are known");
}

void vertex_naming::append(std::string& out, index_t i) const {
  check(i);
  const auto k = static_cast<std::size_t>(i);
  if (named()) {
    out += (*name_)[k];
    return;
  }
  const std::int64_t v = id_ && !id_->empty() ? (*id_)[k] : std::int64_t(i) + 1;
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void vertex_naming::append_field(std::string& out, index_t i) const {
  if (!named()) return append(out, i);
  check(i);
  const std::string& name = (*name_)[static_cast<std::size_t>(i)];
  // (Empty: "", or its line reads back as a weight without a vertex.)
  const bool quote = name.empty() || name.find_first_of(" \t\r\n\"") != std::string::npos || name[0] == '#' ||
                     name[0] == '%';
  if (!quote) {
    out += name;
    return;
  }
  out += '"';
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string vertex_naming::field(index_t i) const {
  std::string s;
  append_field(s, i);
  return s;
}

std::string vertex_naming::json(index_t i) const {
  check(i);
  if (named()) return "\"" + json_escape((*name_)[static_cast<std::size_t>(i)]) + "\"";
  return (*this)(i);
}

vertex_lookup::vertex_lookup(index_t n, const vertex_naming& naming)
    : n_(n), named_(naming.named()), labelled_(naming.labelled()) {
  if (!labelled_) return;
  const auto count = static_cast<std::size_t>(n);
  if (named_) {
    name_index_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      const std::string& s = naming.name_->at(i);
      name_index_.emplace(std::string_view(s), static_cast<index_t>(i));
    }
  } else {
    id_index_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) id_index_.emplace(naming.id_->at(i), static_cast<index_t>(i));
  }
}

index_t vertex_lookup::find(std::string_view token) const {
  if (named_) {
    const auto it = name_index_.find(token);
    return it == name_index_.end() ? -1 : it->second;
  }
  std::int64_t id = 0;
  const char* end = token.data() + token.size();
  const auto r = std::from_chars(token.data() + (!token.empty() && token[0] == '+'), end, id);
  if (token.empty() || r.ec != std::errc() || r.ptr != end) return -1;
  if (!labelled_) return id >= 1 && id <= static_cast<std::int64_t>(n_) ? static_cast<index_t>(id - 1) : -1;
  const auto it = id_index_.find(id);
  return it == id_index_.end() ? -1 : it->second;
}

std::string vertex_lookup::range() const {
  return labelled_ ? std::string() : " (vertices are numbered 1.." + std::to_string(n_) + ")";
}

std::vector<std::int64_t> pack_names(const std::vector<std::string>& name) {
  std::vector<std::int64_t> words(name.size());
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < name.size(); ++i) words[i] = static_cast<std::int64_t>(bytes += name[i].size());
  words.resize(name.size() + static_cast<std::size_t>((bytes + 7) / 8), 0);
  char* text = reinterpret_cast<char*>(words.data() + name.size());
  for (const std::string& s : name) text = std::copy(s.begin(), s.end(), text);
  return words;
}

bool unpack_names(const std::vector<std::int64_t>& words, std::size_t n, std::vector<std::string>& name) {
  if (words.size() < n) return false;
  const std::uint64_t room = (words.size() - n) * 8;
  const char* text = reinterpret_cast<const char*>(words.data() + n);
  name.resize(n);
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto end = static_cast<std::uint64_t>(words[i]);
    // An empty name is a name (GraphML's <node id=""/>): refused here, every
    // cache entry of such a graph was "corrupt" and rewritten on every run.
    if (end < at || end > room) return false;
    // Any bytes: a GML or GraphML label may hold a tab or a line break (the
    // payload's checksum, not the bytes, tells a corrupt entry).
    name[i].assign(text + at, text + end);
    at = end;
  }
  return room - at < 8;  // no word past the last name's
}

}  // namespace perron
