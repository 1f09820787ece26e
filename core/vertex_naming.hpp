// How outputs, messages and the files that name vertices (--sources,
// --personalize, --initial) call vertex i of a graph: by the integer id a
// SNAP-style edge list gave it, by the name an edge list of names gave it
// ("alice bob" lines), or, for a Matrix Market file (no labels), i + 1.
// One view over the loaded graph's labels, so every reader and writer of a
// vertex name decides it in one place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats.hpp"

namespace perron {

class vertex_naming {
 public:
  vertex_naming() = default;
  // Integer ids (empty: vertex i is i + 1). Implicit: every caller that
  // passed a graph's labels passes them still. The view keeps references.
  vertex_naming(const std::vector<std::int64_t>& id) : id_(&id) {}  // NOLINT(google-explicit-constructor)
  vertex_naming(const std::vector<std::int64_t>& id, const std::vector<std::string>& name)
      : id_(&id), name_(&name) {}

  bool named() const { return name_ && !name_->empty(); }
  // The file gave its own labels (ids or names), not 1..n.
  bool labelled() const { return named() || (id_ && !id_->empty()); }
  // Labels given: names, else ids (0 where none).
  std::size_t size() const { return named() ? name_->size() : id_ ? id_->size() : 0; }

  // Vertex i as text: its name, its id, or i + 1.
  std::string operator()(index_t i) const;
  void append(std::string& out, index_t i) const;
  // As a JSON value: a number, or a string for a name.
  std::string json(index_t i) const;
  // As a field of a line that the vertex files read back (--output's
  // "vertex<TAB>rank", read by --initial): a name that holds a blank, a tab,
  // a line break or a '"', or opens with a comment's '#' or '%', in double
  // quotes, each '"' in it doubled (as CSV and pandas write a field).
  void append_field(std::string& out, index_t i) const;
  std::string field(index_t i) const;

 private:
  void check(index_t i) const;  // dimension_error for a vertex with no name or id
  friend class vertex_lookup;
  const std::vector<std::int64_t>* id_ = nullptr;
  const std::vector<std::string>* name_ = nullptr;
};

// The other way: a vertex as a user writes it in a file, to its 0-based
// index. Built once per file read (a hash of the labels).
class vertex_lookup {
 public:
  vertex_lookup(index_t n, const vertex_naming& naming);
  bool named() const { return named_; }
  // -1 where no vertex is so called. Ids: the token must be a whole integer.
  index_t find(std::string_view token) const;
  // What a message adds after "vertex X is not in the graph": the range of
  // a graph without labels, else nothing.
  std::string range() const;

 private:
  index_t n_;
  bool named_ = false, labelled_ = false;
  std::unordered_map<std::int64_t, index_t> id_index_;
  std::unordered_map<std::string_view, index_t> name_index_;  // views into the naming's names
};

// Names as 64-bit words, for what carries integer ids (the cache files, an
// MPI broadcast): the end offset of every name in their concatenation, then
// that concatenation, zero-padded to a whole word.
std::vector<std::int64_t> pack_names(const std::vector<std::string>& name);
// The names of n vertices back from such words; false where they are not
// (offsets that go back or past the text, an empty name, a control byte).
bool unpack_names(const std::vector<std::int64_t>& words, std::size_t n, std::vector<std::string>& name);

}  // namespace perron
