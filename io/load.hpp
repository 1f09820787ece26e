// One entry point for "a matrix or graph file a user gave us": picks the reader
// from the content/extension and returns the COO plus the labels that outputs
// use for vertex i. Dispatch, in order:
//   synthetic:..., rmat:..., tridiag:...    -> io::generate_synthetic (no file)
//   an archive, by name or content: a tar (plain, .gz, .bz2, .xz, .zst) or a
//   .zip                                     -> its main .mtx, else its one
//                                               edge list (libarchive; io/archive.hpp)
//   a file compressed whole by bzip2, xz or zstd -> its text (libarchive), then as below
//   a %%MatrixMarket banner (plain or .gz)   -> Matrix Market
//   *.txt, *.el, *.tsv, *.csv, *.edges (+ .gz) -> edge list (io/snap.hpp)
//   *.graphml, *.gml, *.net / *.paj (+ .gz)  -> GraphML, GML, Pajek (io/graph_files.hpp)
//   anything else: the content decides (<?xml or <graphml -> GraphML, a
//   first key graph / Creator -> GML, *Vertices -> Pajek; else the first
//   non-comment line: two ids and maybe a weight, or a header line -> edge
//   list), else parse_error "unrecognized format".
// With opt.cache.enabled the parsed result is kept in a binary cache keyed by
// the file's absolute path, size, modification and status-change times
// (io/cache.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../core/formats.hpp"
#include "../core/vertex_naming.hpp"
#include "matrix_market.hpp"

namespace perron::io {

// The cache files keep the format as its number: new ones go at the end.
enum class input_format { matrix_market, snap, synthetic, graphml, gml, pajek };
constexpr int input_format_count = 6;

// Where the load time went (the apps' --timings / --json show it).
struct load_timings {
  double read_seconds = 0;       // reading the file: disk, gunzip, untar
  double parse_seconds = 0;      // text -> COO (symmetric expansion, SNAP remap included)
  double cache_seconds = 0;      // reading the cache (hit) or writing it (miss)
  std::uint64_t file_bytes = 0;  // size on disk (of the cache file on a hit)
  std::uint64_t text_bytes = 0;  // uncompressed text parsed; 0 on a cache hit
  bool from_cache = false;
  bool cache_transposed = false;      // the hit was a CSR of A^T (a per-rank part), not the arcs
  double transpose_kept_seconds = 0;  // writing the graph's CSR of A^T for the next run (pagerank)
  std::string transpose_not_kept;     // why that write failed ("" where it was kept or not tried)
  double undirected_seconds = 0;      // the mirrored arcs appended (read_options::undirected)
};

struct loaded_matrix {
  input_format format = input_format::matrix_market;
  coo_matrix<double> matrix;
  bool pattern = false;     // values carry no information (MM pattern, unweighted edge list, rmat)
  bool symmetric = false;   // the file was symmetric / skew, or its edges undirected (already expanded)
  bool skew = false;        // of those, a skew-symmetric Matrix Market file (its mirrors negated)
  bool undirected = false;  // read_options::undirected: every arc also taken reversed
  std::vector<std::int64_t> label;  // SNAP: original ids; empty for MM (label = index + 1)
  std::vector<std::string> name;    // an edge list of vertex names: name[i] (label then empty)
  // Read as bipartite (read_options::bipartite): vertices [0, first_set) are
  // the first column's, the others the second's; 0 otherwise.
  index_t first_set = 0;
  double read_seconds = 0;  // total time to load (read + parse, or the cache)
  load_timings timings;

  // How outputs and messages call vertex i (its name, its id, or i + 1).
  vertex_naming naming() const { return {label, name}; }
};

// With opt.undirected, every arc as read (from the file, its cache entry or
// the generator) also reversed: the mirrors appended after the arcs, as a
// symmetric file's (not again for a symmetric file); dimension_error for a
// matrix that is not square. The cache keeps the arcs as the file lists them.
loaded_matrix load_matrix(const std::string& path, const read_options& opt = {});

// What load_matrix does for opt.undirected, to a graph already loaded: `name`
// for errors, threads as read_options::threads.
void make_undirected(loaded_matrix& m, const std::string& name, unsigned threads = 0);

// What load_matrix does for opt.bipartite, to a graph as parsed (before the
// cache keeps it): the first column's vertices (a matrix's rows), then the
// second's (its columns), each in order, and the arcs between them; first_set
// set. A matrix's column j becomes vertex rows + j (its id rows + j + 1), so
// a rectangular matrix is a graph; an edge list's second-column id x becomes
// x + K, with K = max(0, largest first-column id - smallest second-column id
// + 1): KONECT's sets, both numbered from 1, give the second set the ids
// after the first's largest, and ids already apart stay as written.
// not_supported for a symmetric matrix (its rows and columns are one set), a
// graph file (it declares its vertices) and vertex names; dimension_error
// past what an index holds.
void make_bipartite(loaded_matrix& m, const std::string& name, unsigned threads = 0);

// The same dispatch over text already in memory (no cache, no archives);
// `name` decides by extension as a path would.
loaded_matrix parse_matrix(std::string_view text, const std::string& name, const read_options& opt = {});

// The format load_matrix reads a text as, from its first window of whole
// lines (a Matrix Market banner, else the name's extension, else a sniff of
// the first data line; `names`: read_options::all_names); parse_error as
// load_matrix's for neither.
input_format detect_input_format(std::string_view first_window, const std::string& name, bool names = false);

}  // namespace perron::io
