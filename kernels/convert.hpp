// The conversion layer. COO is the hub: every format converts to and from it;
// transposition is an option of the COO -> CSR conversion (CSR of A^T comes
// straight out of the same counting sort).
#pragma once

#include "../core/formats.hpp"

namespace perron {

enum class duplicates {
  sum,       // A(i,j) = sum of all entries given for (i,j)  (Matrix Market semantics)
  keep_one,  // first value kept once (pattern matrices, unweighted graphs)
};

struct csr_options {
  bool transpose = false;  // build CSR of A^T instead of A
  duplicates dup = duplicates::sum;
};

// COO -> CSR from unsorted input; columns sorted within rows; duplicates merged.
// Throws dimension_error if indices are out of range or nnz does not fit index_t.
template <class T>
csr_matrix<T> to_csr(const coo_matrix<T>& a, csr_options opt = {});

// COO -> CSR of the pattern alone (transpose: of A^T): the entries, order and
// merging of to_csr with duplicates::keep_one, the input's values not read and
// the output's all T(0), for the caller to fill (an unweighted graph's P^T);
// it saves the values' scatter and their second copy.
template <class T, class From>
csr_matrix<T> pattern_to_csr(const coo_matrix<From>& a, bool transpose);

// The CSR of A^T of the pattern of A given as its CSR's row pointer
// (rows + 1 entries) and columns (nnz), A's values never read: the entries,
// order and merging of transpose() with a column listed twice in a row kept
// once, the output's values all T(0), for the caller to fill (an unweighted
// graph's P^T: solvers' pagerank_graph_from_pattern). It saves the values'
// copies and scatter (the Python module's unweighted graphs). dimension_error
// for arrays that are not a CSR (validate_pattern, naming `who`).
template <class T>
csr_matrix<T> pattern_transpose(index_t rows, index_t cols, const index_t* row_ptr, std::size_t row_ptr_size,
                                const index_t* col_idx, std::size_t nnz,
                                const char* who = "pattern_transpose");

// CSR -> COO (row-major order).
template <class T>
coo_matrix<T> to_coo(const csr_matrix<T>& a);

// CSR of A^T, its rows' columns sorted and unique whatever the order of a's
// rows: a column that a row of a lists twice is one entry of A^T, the values
// summed in a's order (as to_csr sums a COO's duplicates).
template <class T>
csr_matrix<T> transpose(const csr_matrix<T>& a);

// CSR -> column-major padded ELL. Refuses (dimension_error naming the widest
// row and the fill ratio) when rows*width > max_fill * max(nnz, 1) and the
// padded size is beyond a small absolute floor, so a single long row cannot
// blow memory up; max_fill = infinity lifts that limit, but not the host
// memory check (dimension_error when the ELL would not fit). invalid_argument
// for a max_fill below 1 or NaN (here and in check_ell_fill).
template <class T>
ell_matrix<T> to_ell(const csr_matrix<T>& a, double max_fill = 8.0);

// to_ell's refusal on its own, for an ELL built elsewhere (on the device, from
// an uploaded CSR: kernels/cuda/spmv_ell.cu): dimension_error when rows x
// width slots would be absurd for nnz nonzeros. widest: the row of that
// width, named in the message when known (-1: not).
void check_ell_fill(index_t rows, index_t width, std::size_t nnz, index_t widest = -1, double max_fill = 8.0);

// ELL -> CSR (drops padding).
template <class T>
csr_matrix<T> to_csr(const ell_matrix<T>& a);

// Value-type conversion (e.g. double as read -> float for the solver).
template <class To, class From>
coo_matrix<To> value_cast(const coo_matrix<From>& a);
template <class To, class From>
csr_matrix<To> value_cast(const csr_matrix<From>& a);

// Dense row-major copy, for tests and tiny matrices only.
template <class T>
std::vector<T> to_dense(const csr_matrix<T>& a);

}  // namespace perron
