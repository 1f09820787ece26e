// Graph files that list their vertices and say whether their edges are
// directed, as graph tools write them: GraphML (networkx, igraph, Gephi, yEd,
// graph-tool), GML (Newman's and Adamic's published networks, networkx,
// igraph) and Pajek's .net (Pajek, igraph, networkx). Each is read as the
// tools that write it read it (networkx's read_graphml, read_gml and
// read_pajek are the reference):
//   - vertices are numbered in the order the file declares them (a GraphML
//     edge's undeclared end is declared where it first appears); a vertex no
//     edge touches is still a vertex;
//   - an undirected edge is an arc each way (a loop once), as networkx's
//     pagerank takes a Graph; GraphML's edgedefault (undirected where absent,
//     as networkx reads it) or an edge's own `directed`, GML's `directed`
//     (0 where absent), Pajek's *Arcs against *Edges decide;
//   - the weight is GraphML's data of the edge key named `weight` (its
//     <default>, else 1, where an edge has none), GML's `weight` (else a
//     numeric `value`, the weights of Newman's files), Pajek's third field;
//   - the vertices are called by their names: GraphML's ids, GML's and
//     Pajek's labels where every vertex has one and no two are equal, else
//     GML's ids and Pajek's numbers (as ids, the names an edge list's
//     integers give).
// Errors name the file and line: XML that is not well formed, a root other
// than <graphml>, two graphs in one file, hyperedges; an edge to a GML id or
// Pajek number no vertex has; a weight that is not a finite number.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/formats.hpp"
#include "name_table.hpp"

namespace perron::io {

struct declared_graph {
  coo_matrix<double> matrix;  // arc i -> j is entry (i, j): its weight, else 1; an undirected edge both ways
  std::vector<std::int64_t> original_id;  // integer ids (GML's ids, Pajek's numbers), where no names
  std::vector<std::string> name;          // the vertices' names, where they have them
  bool weighted = false;                  // some edge gave a weight
  bool undirected = false;                // every edge was undirected (the matrix is symmetric)
};

namespace detail {
class text_windows;  // io/text_input.hpp

// GraphML through expat, window by window (a .graphml.gz streamed);
// not_supported where perron was built without expat.
// refuse_negative: read_options::refuse_negative, for each reader.
declared_graph parse_graphml(text_windows& windows, const std::string& name,
                             const std::string& refuse_negative = {});
// GML, window by window (a string may cross windows).
declared_graph parse_gml(text_windows& windows, const std::string& name,
                         const std::string& refuse_negative = {});
// Pajek, window by window (whole lines).
declared_graph parse_pajek(text_windows& windows, const std::string& name,
                           const std::string& refuse_negative = {});

// Whether a text's start (byte order mark and blank space skipped) is a
// GraphML document (`<?xml`, `<graphml`), a GML one (a first key `graph`,
// `Creator` or `Version`, '#' comments before it) or a Pajek one (a first
// line `*Network` or `*Vertices`, '%' comments before it): how a file of no
// such extension is told.
bool looks_like_graphml(std::string_view head);
bool looks_like_gml(std::string_view head);
bool looks_like_pajek(std::string_view head);

// Builds a declared_graph: vertices by key in order of declaration, arcs as
// given, undirected edges mirrored at the end.
class graph_builder {
 public:
  // refuse_negative: read_options::refuse_negative (a weight below zero is
  // refused at its line: negative_weight says why).
  explicit graph_builder(std::string file, std::string refuse_negative = {})
      : file_(std::move(file)), refuse_negative_(std::move(refuse_negative)) {}
  // The vertex of `key`, declared now where it is new; parse_error where the
  // vertices pass what an index holds.
  index_t vertex(std::string_view key, std::uint64_t line);
  // The vertex of `key` where it was declared, else -1.
  index_t find(std::string_view key) const;
  std::size_t vertices() const { return numbered_ + keys_.size() + ids_.size(); }
  // A vertex called by an integer id (GML's), declared now; the reader keeps
  // the ids' lookup (ids()). parse_error past what an index holds.
  index_t vertex_id(std::int64_t id, std::uint64_t line);
  const std::vector<std::int64_t>& ids() const { return ids_; }
  // `count` vertices without keys (Pajek's numbered ones: vertex k is k + 1).
  void declare_numbered(std::size_t count, std::uint64_t line);
  void label(index_t v, std::string text);
  void arc(index_t from, index_t to, double weight, bool weighted, bool undirected);
  // Why weight w is refused ("weight -0.5: --weighted needs ..."), or "".
  std::string negative_weight(double w) const;
  // Vertices are named by their labels where each has its own and no two are
  // equal, else by their integer ids (vertex_id), their keys, or, numbered
  // (Pajek), by their numbers.
  declared_graph finish();

 private:
  std::string file_;
  std::string refuse_negative_;
  name_table keys_;  // the vertices' keys (GraphML's ids, GML's ids as written), numbered as declared
  std::size_t numbered_ = 0;       // Pajek: vertices 0..numbered_-1, no keys
  std::vector<std::int64_t> ids_;  // GML: vertex v's id, no keys
  // (vertex, label) as given: as many as the file's lines, where a vector of
  // every vertex's would be as many as *Vertices claims.
  std::vector<std::pair<index_t, std::string>> labels_;
  coo_matrix<double> arcs_;
  std::vector<std::size_t> undirected_;  // the arcs to mirror
  bool weighted_ = false, directed_ = false;
};

}  // namespace detail
}  // namespace perron::io
