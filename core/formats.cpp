// Consistency checks of the containers (declared in core/formats.hpp).
#include "core/formats.hpp"

#include <omp.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "core/memory.hpp"

namespace perron {

std::string dimensions(index_t rows, index_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

void check_nnz_fits(std::size_t nnz, const char* who) {
  if (nnz > max_index)
    throw dimension_error(std::string(who) + ": " + std::to_string(nnz) +
                          " entries exceed the 32-bit index limit " + std::to_string(max_index));
}

void check_dimensions(index_t rows, index_t cols, const char* who) {
  if (rows < 0 || cols < 0)
    throw dimension_error(std::string(who) + ": negative dimensions " + dimensions(rows, cols));
}

template <class T>
void validate(const coo_matrix<T>& a, const char* who) {
  check_dimensions(a.rows, a.cols, who);
  if (a.col_idx.size() != a.row_idx.size() || a.values.size() != a.row_idx.size())
    throw dimension_error(std::string(who) + ": COO arrays differ in length (row_idx " +
                          std::to_string(a.row_idx.size()) + ", col_idx " + std::to_string(a.col_idx.size()) +
                          ", values " + std::to_string(a.values.size()) + ")");
  check_nnz_fits(a.nnz(), who);
  const std::size_t n = a.nnz();
  const index_t* r = a.row_idx.data();
  const index_t* c = a.col_idx.data();
  const index_t rows = a.rows, cols = a.cols;
  // First offending entry (lowest k), so the message is the same however many threads ran.
  std::size_t first_bad = n;
#pragma omp parallel for reduction(min : first_bad) num_threads(threads_for_work(n)) schedule(static)
  for (std::size_t k = 0; k < n; ++k)
    if (r[k] < 0 || r[k] >= rows || c[k] < 0 || c[k] >= cols) first_bad = std::min(first_bad, k);
  if (first_bad < n)
    throw dimension_error(std::string(who) + ": entry " + std::to_string(first_bad) + " (0-based) at (" +
                          std::to_string(r[first_bad]) + ", " + std::to_string(c[first_bad]) +
                          ") lies outside the " + dimensions(rows, cols) + " matrix");
}

void validate_pattern(index_t rows, index_t cols, const index_t* row_ptr, std::size_t row_ptr_size,
                      const index_t* col_idx, std::size_t nnz, const char* who) {
  check_dimensions(rows, cols, who);
  const std::string w(who);
  if (row_ptr_size != static_cast<std::size_t>(rows) + 1)
    throw dimension_error(w + ": row_ptr has " + std::to_string(row_ptr_size) + " entries for " +
                          std::to_string(rows) + " rows (expected rows + 1)");
  check_nnz_fits(nnz, who);
  if (!row_ptr || (nnz > 0 && !col_idx))  // (read through, a null array crashed the check)
    throw invalid_argument(w + ": " + (row_ptr ? "col_idx" : "row_ptr") + " is a null pointer");
  if (row_ptr[0] != 0 || static_cast<std::size_t>(row_ptr[rows]) != nnz)
    throw dimension_error(w + ": row_ptr runs from " + std::to_string(row_ptr[0]) + " to " +
                          std::to_string(row_ptr[rows]) + ", expected 0 to nnz = " + std::to_string(nnz));
  // The first offending row and entry, named (min reductions: the same
  // answer for every thread count).
  index_t bad_row = rows;
#pragma omp parallel for reduction(min : bad_row) num_threads(threads_for_work(row_ptr_size)) schedule(static)
  for (index_t r = 0; r < rows; ++r)
    if (row_ptr[r] > row_ptr[r + 1]) bad_row = std::min(bad_row, r);
  if (bad_row < rows)
    throw dimension_error(w + ": row_ptr decreases at row " + std::to_string(bad_row) + " (" +
                          std::to_string(row_ptr[bad_row]) + " -> " + std::to_string(row_ptr[bad_row + 1]) +
                          ")");
  std::size_t bad = nnz;
#pragma omp parallel for reduction(min : bad) num_threads(threads_for_work(nnz)) schedule(static)
  for (std::size_t k = 0; k < nnz; ++k)
    if (col_idx[k] < 0 || col_idx[k] >= cols) bad = std::min(bad, k);
  if (bad < nnz)
    throw dimension_error(w + ": column index " + std::to_string(col_idx[bad]) + " of entry " +
                          std::to_string(bad) + " lies outside [0, " + std::to_string(cols) + ")");
}

index_t longest_row(const index_t* row_ptr, index_t rows) {
  index_t most = 0;
#pragma omp parallel for reduction(max                                                                    \
                                   : most) num_threads(threads_for_work(static_cast <std::size_t>(rows))) \
    schedule(static)
  for (index_t r = 0; r < rows; ++r) most = std::max(most, row_ptr[r + 1] - row_ptr[r]);
  return most;
}

// A CSR whose arrays are consistent: row_ptr has rows + 1 non-decreasing entries
// from 0 to nnz, columns in range. (Sortedness within rows is the producer's
// promise and is not re-checked.) The conversions and writers call this before
// indexing a caller's CSR, so a corrupt matrix is an error, not an
// out-of-bounds access; the SpMV hot paths check array sizes only (O(1) per call).
template <class T>
void validate(const csr_matrix<T>& a, const char* who) {
  if (a.values.size() != a.col_idx.size())
    throw dimension_error(std::string(who) + ": col_idx has " + std::to_string(a.col_idx.size()) +
                          " entries but values " + std::to_string(a.values.size()));
  validate_pattern(a.rows, a.cols, a.row_ptr.data(), a.row_ptr.size(), a.col_idx.data(), a.col_idx.size(),
                   who);
}

#define PERRON_VALIDATE_INSTANTIATE(T)                          \
  template void validate<T>(const coo_matrix<T>&, const char*); \
  template void validate<T>(const csr_matrix<T>&, const char*);
PERRON_VALIDATE_INSTANTIATE(float)
PERRON_VALIDATE_INSTANTIATE(double)
#undef PERRON_VALIDATE_INSTANTIATE

}  // namespace perron
