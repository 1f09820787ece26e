// Sparse containers: COO (the hub format every other converts through), CSR and
// column-major padded ELL. 32-bit indices throughout; sizes that do not fit are
// refused by the conversion layer and the readers, never wrapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace perron {

using index_t = std::int32_t;
constexpr std::size_t max_index = static_cast<std::size_t>(std::numeric_limits<index_t>::max());

// Unordered triplets; duplicates allowed until converted.
template <class T>
struct coo_matrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_idx;
  std::vector<index_t> col_idx;
  std::vector<T> values;

  std::size_t nnz() const { return row_idx.size(); }
};

// Compressed sparse row: row r's entries are [row_ptr[r], row_ptr[r+1]),
// column indices sorted ascending and unique within a row.
template <class T>
struct csr_matrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_ptr{0};  // rows + 1 entries
  std::vector<index_t> col_idx;
  std::vector<T> values;

  std::size_t nnz() const { return col_idx.size(); }
};

// ELLPACK, column-major: slot n of row r lives at n * rows + r, so consecutive
// threads (rows) read consecutive addresses. Padding slots have column
// ell_padding and value 0, and kernels skip them.
constexpr index_t ell_padding = -1;

template <class T>
struct ell_matrix {
  index_t rows = 0;
  index_t cols = 0;
  index_t width = 0;             // slots per row = longest row
  std::size_t nnz = 0;           // real (non-padding) entries
  std::vector<index_t> col_idx;  // rows * width
  std::vector<T> values;         // rows * width

  std::size_t at(index_t row, index_t slot) const {
    return static_cast<std::size_t>(slot) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(row);
  }
};

// A CSR pattern cut into row pieces, each with 32-bit offsets of its own: for
// matrices past 2^31 entries, which one csr_matrix cannot hold. Piece k holds
// rows first[k] .. first[k + 1] (its row i - first[k]: entries
// col_idx[k][row_ptr[k][i - first[k]] ..]), columns < cols, sorted and unique.
struct csr_pieces {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> first;                          // pieces + 1 entries
  std::vector<std::vector<index_t>> row_ptr, col_idx;  // per piece

  std::size_t pieces() const { return row_ptr.size(); }
  std::uint64_t nnz() const {
    std::uint64_t n = 0;
    for (const auto& c : col_idx) n += c.size();
    return n;
  }
};

// "rows x cols", for messages.
std::string dimensions(index_t rows, index_t cols);
// dimension_error naming `who` when nnz does not fit index_t / rows or cols is negative.
void check_nnz_fits(std::size_t nnz, const char* who);
void check_dimensions(index_t rows, index_t cols, const char* who);

// Consistency checks, O(nnz): array lengths, dimensions, every index in range,
// and for CSR a row_ptr of rows + 1 non-decreasing entries from 0 to nnz
// (sortedness within rows is the producer's promise and is not re-checked).
// dimension_error naming `who` and the first offending entry otherwise. The
// conversions run them on their input; writers and other consumers of
// caller-built matrices call them before indexing.
template <class T>
void validate(const coo_matrix<T>& a, const char* who);
template <class T>
void validate(const csr_matrix<T>& a, const char* who);
// The CSR checks on a pattern given as arrays (row_ptr: rows + 1 entries,
// col_idx: nnz), no values: validate() of a CSR less its values' length.
void validate_pattern(index_t rows, index_t cols, const index_t* row_ptr, std::size_t row_ptr_size,
                      const index_t* col_idx, std::size_t nnz, const char* who);

// The most entries a row of a validated CSR holds (0 for no rows), in parallel.
index_t longest_row(const index_t* row_ptr, index_t rows);

}  // namespace perron
