// Matrix Market (https://math.nist.gov/MatrixMarket/formats.html) reading and
// writing. Plain and .gz files are read the same way (zlib, detected from the
// gzip magic bytes, not the file name). Every malformed input throws
// parse_error with the file and the 1-based line; unreadable files io_error;
// complex/hermitian not_supported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/formats.hpp"

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
};

struct read_options {
  unsigned threads = 0;         // 0: all hardware threads (omp_get_max_threads())
  std::size_t chunk_bytes = 0;  // parallel parse chunk size; 0: automatic (tests force small chunks)
  cache_options cache;          // used by load_matrix only
};

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
}  // namespace detail

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
