// Matrix Market (https://math.nist.gov/MatrixMarket/formats.html) reading and
// writing. Plain and .gz files are read the same way (zlib, detected from the
// gzip magic bytes, not the file name). Every malformed input throws
// parse_error with the file and the 1-based line; unreadable files io_error;
// complex/hermitian not_supported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../core/formats.hpp"

namespace perron::io {

enum class mm_field { real, integer, pattern };
enum class mm_symmetry { general, symmetric, skew_symmetric };

struct mm_header {
  bool coordinate = true;  // false: array (dense, column-major)
  mm_field field = mm_field::real;
  mm_symmetry symmetry = mm_symmetry::general;
  index_t rows = 0;
  index_t cols = 0;
  std::uint64_t entries = 0;  // as declared on the size line (coordinate only)
};

// The binary cache of parsed files (load_matrix only; see io/cache.hpp). Off
// unless the caller turns it on: the apps do, with --no-cache / --cache-dir.
struct cache_options {
  bool enabled = false;
  std::string dir;  // empty: default_cache_dir() ($XDG_CACHE_HOME/perron or ~/.cache/perron)
  // "" for a source's default reading, else the name of another reading that
  // parses it into another graph (cache_options_of: "names" for all_names);
  // each reading has entries and side files of its own.
  std::string reading;
};

struct read_options {
  unsigned threads = 0;         // 0: all hardware threads (omp_get_max_threads())
  std::size_t chunk_bytes = 0;  // parallel parse chunk size; 0: automatic (tests force small chunks)
  cache_options cache;          // used by load_matrix only
  // load_matrix only: the input's arcs are undirected edges, each taken both
  // ways (its mirror appended after every arc, as a symmetric file's; a
  // symmetric file is so already). For pagerank --undirected: SNAP's
  // undirected graphs (com-*, roadNet-*) list each edge once.
  bool undirected = false;
  // Edge lists: every vertex field is a name, where the first edge gives
  // integer ids too ("1 2" then "2 alice"): "007" and "7" differ, vertices are
  // numbered in order of first appearance. Else an edge list of names is read
  // only where its first edge names its vertices. For pagerank --names.
  bool all_names = false;
  // load_matrix only: the input's two columns (an edge list's, or a matrix's
  // rows and columns) number two sets of vertices, as KONECT's bipartite
  // sets ("% bip": users and items, each numbered from 1) do; the second
  // set's vertices follow the first's (io/load.hpp, make_bipartite). For
  // pagerank --bipartite.
  bool bipartite = false;
  // Non-empty: a value or weight below zero is refused at its line, this
  // saying why (pagerank --weighted: "--weighted needs finite, non-negative
  // weights"; the solver's own check names the arc only, found after the
  // parse). A skew-symmetric entry off the diagonal is one (its mirror is
  // negated). Not part of the graph: a cache entry serves either reading.
  std::string refuse_negative;
};

// The cache options a load with `opt` keys its entries by: opt.cache with the
// reading all_names or bipartite asks for ("names", "bipartite"). An edge
// list read by name, or as two sets, is another graph than the same file read
// by its ids (their numbering differs), so neither may serve the other's
// entry, side files or per-rank parts.
inline cache_options cache_options_of(const read_options& opt) {
  cache_options c = opt.cache;
  if (opt.all_names) c.reading = "names";
  if (opt.bipartite) c.reading = "bipartite";  // (load_matrix refuses all_names beside it)
  return c;
}

// A coordinate matrix as read (an `array` file is accepted too and gives its
// nonzero entries): symmetric / skew-symmetric are expanded to
// general (mirror entries added, diagonal once); pattern entries get value 1.
// Duplicates are kept as given (the conversion layer merges them).
struct mm_matrix {
  mm_header header;  // as declared in the file
  coo_matrix<double> matrix;
};

mm_matrix read_matrix_market(const std::string& path, const read_options& opt = {});

// A dense `array` file (e.g. a vector): values column-major, rows*cols of them.
struct mm_array {
  mm_header header;
  std::vector<double> values;
};
mm_array read_matrix_market_array(const std::string& path);

// The same readers over text already in memory (decompressed); `name` is what
// errors call the input. The file readers above are these plus read/gunzip.
mm_matrix parse_matrix_market(std::string_view text, const std::string& name, const read_options& opt = {});
mm_array parse_matrix_market_array(std::string_view text, const std::string& name,
                                   const read_options& opt = {});

namespace detail {
class text_windows;  // io/text_input.hpp
// parse_matrix_market over text given window by window (a .gz file streamed).
mm_matrix parse_matrix_market_windows(text_windows& windows, const std::string& name,
                                      const read_options& opt);

// A coordinate Matrix Market text streamed by one process in windows of
// whole lines and parsed chunk by chunk by several (apps/common/dist_load.cpp,
// a .gz file under mpirun): the same header and entry parse as
// read_matrix_market, apart. The header from the first window (errors as
// read_matrix_market's); body_offset: its bytes before the body.
struct mm_stream_header {
  mm_header header;
  std::uint64_t size_line = 0, body_line = 0;
  std::size_t body_offset = 0;
};
mm_stream_header parse_mm_stream_header(std::string_view first_window, const std::string& name);
// Lines of `text` that the parse reads as entries (not blank, not comments):
// the entries they hold when they are well formed.
std::uint64_t count_mm_entry_lines(std::string_view text);
// Appends the entries of `text` (whole body lines, the first one numbered
// first_line; entries_before: entry lines of the text before it) to a, in
// order, symmetric files not expanded. Every error read_matrix_market reports
// with its line, the entry past the declared count included.
void parse_mm_stream_chunk(const mm_stream_header& h, std::string_view text, std::uint64_t first_line,
                           std::uint64_t entries_before, const std::string& name, const read_options& opt,
                           coo_matrix<double>& a);
// After the whole body (entries: all chunks', last_line: the body's last
// line): fewer entries than declared, worded as read_matrix_market words it.
void check_mm_stream_count(const mm_stream_header& h, std::uint64_t entries, std::uint64_t last_line,
                           const std::string& name);
// Each off-diagonal entry (i, j, v) of a gains (j, i, sign * v), appended
// after the entries in their order (a symmetric file's expansion, and an
// undirected graph's: read_options::undirected). parse_error naming `name`
// where the host has no room for them.
void mirror_entries(coo_matrix<double>& a, double sign, const std::string& name, unsigned threads);
}  // namespace detail

// One part of a plain (uncompressed, regular) coordinate Matrix Market file,
// for a load spread over `parts` processes none of which holds the whole file
// (apps/common/dist_load.cpp): every part reads the header itself, then the
// lines whose first byte lies in its 1/parts of the body's bytes, so every
// line belongs to exactly one part. What needs the other parts (the entry
// count against the size line, the line number a part starts at, the
// symmetric expansion) the caller supplies: first_line is body_line() plus
// the lines() of the parts before.
class mm_file_part {
 public:
  // io_error for an unreadable file, parse_error / not_supported for a bad
  // header (as read_matrix_market), not_supported for an `array` or gzip file.
  mm_file_part(const std::string& path, int part, int parts);
  mm_file_part(const mm_file_part&) = delete;
  mm_file_part& operator=(const mm_file_part&) = delete;

  const mm_header& header() const { return header_; }
  std::uint64_t size_line() const { return size_line_; }  // line number of the size line
  std::uint64_t body_line() const { return body_line_; }  // line number of the body's first line
  std::uint64_t lines() const { return lines_; }          // lines starting in this part
  std::uint64_t text_bytes() const;                       // bytes of this part's lines
  std::uint64_t file_bytes() const { return file_bytes_; }
  double read_seconds() const { return read_seconds_; }

  // The part's entries in file order, 0-based, symmetric files not expanded.
  // Every error read_matrix_market reports, with its line, except the
  // entry count (check_count).
  coo_matrix<double> parse(std::uint64_t first_line, const read_options& opt = {}) const;

  // The entry count against the size line, as read_matrix_market words it:
  // parse_error at the entry past the declared count when it lies in this
  // part (entries_before: the entries of the parts before; mine: this
  // part's); at the size line when the file holds fewer (thrown by the last
  // part only, which knows the last line).
  void check_count(std::uint64_t entries_before, std::uint64_t mine, std::uint64_t total,
                   std::uint64_t first_line) const;

  // True for a file that can be read in parts: a regular, uncompressed file
  // whose banner says coordinate Matrix Market (any error: false; the whole-
  // file reader then reports it).
  static bool splittable(const std::string& path);

 private:
  struct text;
  struct text_deleter {
    void operator()(text*) const;
  };
  std::string path_;
  int part_ = 0, parts_ = 1;
  mm_header header_;
  std::uint64_t size_line_ = 0, body_line_ = 0, lines_ = 0, file_bytes_ = 0;
  double read_seconds_ = 0;
  std::unique_ptr<text, text_deleter> text_;
};

// Writers. Values are written with enough digits to read back bit-identically
// (shortest round-trip form); a path ending in .gz is written gzipped. `field`
// integer requires integral values, pattern drops them. io_error when the file
// cannot be written.
void write_matrix_market(const std::string& path, const coo_matrix<double>& a,
                         mm_field field = mm_field::real);
void write_matrix_market(const std::string& path, const csr_matrix<double>& a,
                         mm_field field = mm_field::real);
void write_matrix_market_array(const std::string& path, const std::vector<double>& values, index_t rows,
                               index_t cols = 1);

}  // namespace perron::io
