// Source sets for batched personalized PageRank (pagerank --sources FILE):
// one set per line, vertices named as in the graph file and separated by
// blanks, each optionally followed by ':weight', e.g. "7 19:0.5". A vertex
// without a weight weighs 1, so a set without weights shares its teleport
// equally. Lines starting with '#' are comments.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../core/formats.hpp"
#include "../core/vertex_naming.hpp"

namespace perron::io {

struct source_sets {
  // sets[s]: (0-based vertex, weight) pairs as written (not normalized).
  std::vector<std::vector<std::pair<index_t, double>>> sets;
  std::vector<std::uint64_t> line;  // line[s]: the set's 1-based line in the file
};

// Reads FILE for a graph of n vertices named by label (io::loaded_matrix::naming();
// none: 1-based Matrix Market numbering). In a graph of vertex names a token
// is a name, "name:weight" where the whole token names no vertex. io_error when it cannot be read;
// parse_error with the file and line for an empty line, an unknown vertex or
// one listed twice in a set, a
// malformed number, a negative / NaN / infinite weight or a set whose weights
// are all zero, and for a file without sets (line 0).
source_sets read_sources_file(const std::string& path, index_t n, const vertex_naming& label);

// The same in two steps, for a caller that needs the number of sets before
// the graph is loaded (the device model of pagerank --sources) and can read
// the file only once (a pipe): its text and the lines that hold a set
// (neither blank nor a comment), then the sets against the graph.
struct sources_text {
  std::string path;
  std::string text;
  std::size_t sets = 0;
};
sources_text read_sources_text(const std::string& path);
source_sets parse_sources(const sources_text& file, index_t n, const vertex_naming& label);

}  // namespace perron::io
