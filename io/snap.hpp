// Edge lists (SNAP .txt, .csv, .tsv, ..., plain or .gz): '#' or '%' comment
// lines, then one arc a line, "from to", "from to weight" or KONECT's "from
// to weight time", the fields separated by blanks or by a comma (CSV, blanks
// around it allowed), ids non-negative integers that need not be contiguous.
// networkx's write_edgelist lines "from to {'weight': w}" are read too. A
// first data line whose fields are all not numbers is a header ("source,
// target", "from to weight": networkx, pandas and Gephi write one): where it
// names its columns elsewhere than their places (Gephi's "Source,Target,
// Type,Id,Label,timeset,Weight"), they are taken by name and the others
// skipped; pandas' unnamed index column is dropped.
// Ids are remapped to 0..n-1 in ascending order of original id (a monotone
// mapping), and the mapping is kept so outputs can name the original ids.
// Where the first edge line names its vertices ("alice bob": networkx's
// write_edgelist of a graph of strings, igraph's ncol, a CSV of user names),
// every vertex field is a name (CSV quotes removed; "007" and "7" differ),
// numbered in order of first appearance as networkx's read_edgelist adds
// them. A first line of names is then a header only where commas separate it
// or it names its columns (source, target, ...): two names between blanks or
// tabs are the first edge.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../core/formats.hpp"
#include "matrix_market.hpp"

namespace perron::io {

struct snap_graph {
  coo_matrix<double> matrix;              // arc i -> j is entry (i, j): its weight, else 1
  std::vector<std::int64_t> original_id;  // original_id[new id] = id in the file (integer ids)
  std::vector<std::string> name;  // an edge list of names: name[new id], ids in order of first appearance
  bool weighted = false;          // the lines gave a third field, the weight
};

// Every data line holds as many fields as the first edge line: "from to",
// "from to weight" or KONECT's "from to weight time" (the time dropped); a
// weight is a finite real number (its sign is PageRank's to judge, with the
// arc's name). Self loops and duplicates are kept.
snap_graph read_snap(const std::string& path, const read_options& opt = {});

// The same over text in memory; `name` is what errors call the input.
snap_graph parse_snap(std::string_view text, const std::string& name, const read_options& opt = {});

// What the comment lines that open an edge list say of its graph: SNAP's
// undirected sets say "Undirected graph" (roadNet-CA.txt, com-lj.ungraph.txt:
// "# Undirected graph: ..."); KONECT's out.NAME opens with "% sym ..."
// (undirected), "% asym ..." (directed) or "% bip ..." (bipartite: two sets
// of vertices, each numbered from 1). Read from the first 16 KB of the text
// the load takes: a plain or gzipped file, an archive's edge-list member, a
// file compressed whole. unknown for anything else, a file that cannot be
// read included, and for a named pipe or a device (not opened: its text was
// read by the load, and opening a pipe waits for a writer): a hint for the
// user (pagerank --undirected), never an error.
enum class header_graph { unknown, undirected, bipartite };
header_graph graph_in_header(const std::string& path);

// The first line of an edge list read as a header of words between blanks
// that names no column the reader knows ("alice bob" over lines of ids: a
// header, or the first edge of names?), and its line number; "" (0) for any
// other list, or where the text cannot be read as graph_in_header reads it.
// For a note to the user: --names reads such a line as the first edge.
std::pair<std::string, std::uint64_t> header_of_words(const std::string& path);

namespace detail {
class text_windows;  // io/text_input.hpp

// The extensions that name an edge list (lower case, compression's aside):
// a file so named is read as one without sniffing, and an archive with no
// .mtx takes its member so named.
constexpr const char* edge_list_extensions[] = {".txt", ".tsv", ".csv", ".edges", ".el", ".edgelist"};

// The shape of an edge list, from its first lines (edge_list_columns).
struct edge_columns {
  std::size_t fields = 2;  // every edge line's: from to (2), a weight (3), KONECT's time after it (4)
  bool edge_line = false;  // the text shows an edge line: 2 to 4 fields, the first two ids
  bool data = false;       // networkx's "from to {'weight': w}": the weight from the dict (1 without)
  bool index = false;      // pandas' to_csv: a first column of row numbers (header ",source,target"), dropped
  bool names = false;      // the first edge line names its vertices: every line is read by name (parse_names)
  bool lone = false;       // with names: the text's one data line, names between blanks (no header: an edge)
  // Under a header that names its columns where they are not the places'
  // own (Gephi's "Source,Target,Type,Id,Label,timeset,Weight", "target,
  // source"): every line's field count, the columns taken by name, the others
  // skipped; 0 for the fields by place.
  std::size_t named = 0;
  int source = 0, target = 1, weight_at = -1;  // with named: the columns (weight_at -1: none)
  bool weights() const { return named ? weight_at >= 0 : fields >= 3 || data; }
  std::size_t body_offset = 0;  // bytes before the first edge line's line (a header and what precedes it)
  std::uint64_t body_line = 1;  // the number of the line at body_offset
  std::string refuse_negative;  // read_options::refuse_negative: a weight below 0 refused at its line
  // A header of words between blanks that names no column ("alice bob"
  // over lines of ids): where it lies, for a note, or to be read as the first
  // edge where every field is a name (read_options::all_names).
  bool header_words = false;
  std::size_t header_offset = 0;
  std::uint64_t header_line = 0;
  std::size_t header_fields = 0;
};
// Reads the first data line of `text` (the start of an edge list, byte order
// mark removed) and, where it is a header, the one after it: every line
// holds the header's field count, else the first edge line's (2 without
// either).
edge_columns edge_list_columns(std::string_view text);
// The same where every vertex field is to be read as a name (read_options::
// all_names): an edge line of integer ids is read by name too.
edge_columns edge_list_columns(std::string_view text, const read_options& opt);
// Whether the first `lines` data lines of `text` from columns.body_offset
// (an edge list of names, columns.names) hold the fields its first line
// does: a text whose format is sniffed (no edge-list extension) is taken for
// such a list only then (two lines of "key: value" are no graph).
bool names_hold_up(std::string_view text, const edge_columns& columns, int lines);

// parse_snap over text given window by window (a .gz file streamed).
snap_graph parse_snap_windows(text_windows& windows, const std::string& name, const read_options& opt);
// The edges of `text` (whole lines of an edge list, the first one numbered
// first_line) appended to src and dst as their original ids, in order: a
// list streamed by one process and parsed chunk by chunk by several
// (apps/common/dist_load.cpp), renumbered by the caller as parse_snap does
// (ascending original id), with the weights where columns.weights() (the
// file's edge_columns, from its first window, whose header the caller removed).
// Errors as read_snap's, with their lines.
void parse_snap_chunk(std::string_view text, std::uint64_t first_line, const std::string& name,
                      const read_options& opt, const edge_columns& columns, std::vector<std::int64_t>& src,
                      std::vector<std::int64_t>& dst, std::vector<double>& weight);
}  // namespace detail

}  // namespace perron::io
