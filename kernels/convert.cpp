// The conversion layer (declared in kernels/convert.hpp).
//
// COO -> CSR is a stable counting sort on the row (or, for A^T, the column):
// O(nnz + rows) with OpenMP where it pays, followed by a per-row stable sort on
// the column and a left-to-right merge of duplicates. Because both sorts are
// stable, duplicates of (i, j) are met in input order, so `sum` adds them as
// ((v1 + v2) + v3) ... in T, and `keep_one` keeps v1. The GPU conversion
// (kernels/cuda/convert.cu) reproduces exactly this order, which is what makes
// its results bit-identical to these.
#include "kernels/convert.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "kernels/counting_sort.hpp"

namespace perron {
namespace {

// ELL padding below this many slots is always accepted (small matrices with one
// long row cost nothing worth refusing).
constexpr std::size_t ell_padding_floor = std::size_t(1) << 20;
// to_dense is for tests and tiny matrices; beyond this it refuses (1 GiB of doubles).
constexpr std::size_t dense_limit = std::size_t(1) << 27;

// Rows of `out` hold their entries in input order: sort each row stably by
// column (skipped for rows already strictly increasing, the common case), then
// merge equal columns left to right (sum, or keep the first) and compact.
template <class T>
void sort_and_merge_rows(csr_matrix<T>& out, duplicates dup) {
  const index_t rows = out.rows;
  std::vector<index_t> kept(static_cast<std::size_t>(rows));
  bool merged = false;
  index_t* col = out.col_idx.data();
  T* val = out.values.data();
  const index_t* ptr = out.row_ptr.data();
#pragma omp parallel num_threads(threads_for_work(out.nnz() + static_cast <std::size_t>(rows)))
  {
    std::vector<std::pair<index_t, T>> scratch;
#pragma omp for schedule(dynamic, 512) reduction(|| : merged)
    for (index_t r = 0; r < rows; ++r) {
      const index_t lo = ptr[r], hi = ptr[r + 1];
      bool increasing = true, sorted = true;
      for (index_t i = lo + 1; i < hi; ++i) {
        increasing = increasing && col[i - 1] < col[i];
        sorted = sorted && col[i - 1] <= col[i];
      }
      if (increasing) {
        kept[r] = hi - lo;
        continue;
      }
      if (!sorted) {
        scratch.resize(static_cast<std::size_t>(hi - lo));
        for (index_t i = lo; i < hi; ++i) scratch[i - lo] = {col[i], val[i]};
        std::stable_sort(scratch.begin(), scratch.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        for (index_t i = lo; i < hi; ++i) std::tie(col[i], val[i]) = scratch[i - lo];
      }
      index_t w = lo + 1;  // hi > lo: an empty row is increasing
      for (index_t i = lo + 1; i < hi; ++i) {
        if (col[i] == col[w - 1]) {
          if (dup == duplicates::sum) val[w - 1] += val[i];
        } else {
          col[w] = col[i];
          val[w] = val[i];
          ++w;
        }
      }
      kept[r] = w - lo;
      merged = merged || w < hi;
    }
  }
  if (!merged) return;
  // Compact: new row_ptr from the kept counts, then copy each row's head.
  std::vector<index_t> new_ptr(static_cast<std::size_t>(rows) + 1, 0);
  for (index_t r = 0; r < rows; ++r) new_ptr[r + 1] = new_ptr[r] + kept[r];
  const std::size_t m = static_cast<std::size_t>(new_ptr.back());
  std::vector<index_t> new_col = fresh_vector<index_t>(m);
  std::vector<T> new_val = fresh_vector<T>(m);
#pragma omp parallel for schedule(dynamic, 512) \
    num_threads(threads_for_work(m + static_cast <std::size_t>(rows)))
  for (index_t r = 0; r < rows; ++r) {
    std::copy(col + ptr[r], col + ptr[r] + kept[r], new_col.begin() + new_ptr[r]);
    std::copy(val + ptr[r], val + ptr[r] + kept[r], new_val.begin() + new_ptr[r]);
  }
  out.row_ptr = std::move(new_ptr);
  out.col_idx = std::move(new_col);
  out.values = std::move(new_val);
}

// CSR with out_rows rows from n triplets given as (major, minor, value) arrays
// (major = the output row). Inputs already validated.
// vals null: a pattern (values T(0), duplicates keep_one).
template <class T>
csr_matrix<T> build_csr(index_t out_rows, index_t out_cols, std::size_t n, const index_t* major,
                        const index_t* minor, const T* vals, duplicates dup) {
  csr_matrix<T> out;
  out.rows = out_rows;
  out.cols = out_cols;
  out.col_idx = fresh_vector<index_t>(n);
  out.values = fresh_vector<T>(n);
  index_t* col = out.col_idx.data();
  T* val = out.values.data();
  if (vals)
    stable_bucket([&](std::size_t k) { return major[k]; }, n, out_rows, out.row_ptr,
                  [&](std::size_t k, index_t pos) {
                    col[pos] = minor[k];
                    val[pos] = vals[k];
                  });
  else
    stable_bucket([&](std::size_t k) { return major[k]; }, n, out_rows, out.row_ptr,
                  [&](std::size_t k, index_t pos) { col[pos] = minor[k]; });
  sort_and_merge_rows(out, dup);
  return out;
}

// Row index of every entry (the COO row array of a CSR).
std::vector<index_t> expand_rows(index_t rows, const index_t* row_ptr, std::size_t nnz) {
  std::vector<index_t> row = fresh_vector<index_t>(nnz);
#pragma omp parallel for schedule(dynamic, 512) \
    num_threads(threads_for_work(nnz + static_cast <std::size_t>(rows)))
  for (index_t r = 0; r < rows; ++r) std::fill(row.begin() + row_ptr[r], row.begin() + row_ptr[r + 1], r);
  return row;
}
template <class T>
std::vector<index_t> expand_rows(const csr_matrix<T>& a) {
  return expand_rows(a.rows, a.row_ptr.data(), a.nnz());
}

std::string fixed1(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

// COO -> CSR (of A^T when transpose) in T: the checks, then build_csr; vals
// null for a pattern (what: "matrix" or "pattern", for the memory message).
template <class T, class From>
csr_matrix<T> coo_to_csr(const coo_matrix<From>& a, bool transpose, const T* vals, duplicates dup,
                         const char* who, const char* what) {
  validate(a, who);
  // row_ptr, col_idx, values, and as much again while rows are sorted and merged.
  const double out_rows = transpose ? a.cols : a.rows;
  check_host_memory(
      2.0 * ((out_rows + 1) * sizeof(index_t) + double(a.nnz()) * (sizeof(index_t) + sizeof(T))),
      "the CSR of a " + dimensions(a.rows, a.cols) + " " + what + " with " + std::to_string(a.nnz()) +
          " entries");
  const index_t* major = transpose ? a.col_idx.data() : a.row_idx.data();
  const index_t* minor = transpose ? a.row_idx.data() : a.col_idx.data();
  return build_csr<T>(transpose ? a.cols : a.rows, transpose ? a.rows : a.cols, a.nnz(), major, minor, vals,
                      dup);
}

}  // namespace

template <class T>
csr_matrix<T> to_csr(const coo_matrix<T>& a, csr_options opt) {
  return coo_to_csr<T>(a, opt.transpose, a.values.data(), opt.dup, "to_csr", "matrix");
}

template <class T, class From>
csr_matrix<T> pattern_to_csr(const coo_matrix<From>& a, bool transpose) {
  return coo_to_csr<T>(a, transpose, nullptr, duplicates::keep_one, "pattern_to_csr", "pattern");
}

template <class T>
coo_matrix<T> to_coo(const csr_matrix<T>& a) {
  validate(a, "to_coo");
  coo_matrix<T> out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row_idx = expand_rows(a);
  out.col_idx = a.col_idx;
  out.values = a.values;
  return out;
}

template <class T>
csr_matrix<T> transpose(const csr_matrix<T>& a) {
  validate(a, "transpose");
  // Bucketing A's entries by column, visited row by row, leaves each row of
  // A^T with its columns (A's rows) ascending: no per-row sort. Unique only
  // where A's rows are: a column given twice in a row of A (validate() does
  // not look) comes out as a row of A^T listing that row twice, so the rows
  // still go through the merge, whose scan finds them increasing and moves
  // nothing in the common case (one pass over the columns).
  const std::vector<index_t> row = expand_rows(a);
  return build_csr(a.cols, a.rows, a.nnz(), a.col_idx.data(), row.data(), a.values.data(), duplicates::sum);
}

template <class T>
csr_matrix<T> pattern_transpose(index_t rows, index_t cols, const index_t* row_ptr, std::size_t row_ptr_size,
                                const index_t* col_idx, std::size_t nnz, const char* who) {
  validate_pattern(rows, cols, row_ptr, row_ptr_size, col_idx, nnz, who);
  check_host_memory(static_cast<double>(nnz) * (2 * sizeof(index_t) + sizeof(T)) +
                        static_cast<double>(cols) * sizeof(index_t),
                    "the transpose of a pattern of " + std::to_string(nnz) + " entries");
  // As transpose(): A's entries bucketed by column, visited row by row.
  const std::vector<index_t> row = expand_rows(rows, row_ptr, nnz);
  return build_csr<T>(cols, rows, nnz, col_idx, row.data(), nullptr, duplicates::keep_one);
}

namespace {
// max_fill is a ratio of slots to nonzeros, which is at least 1 for any ELL:
// below 1 (0, negative) it would refuse every matrix past the floor with a
// misleading "fill ratio 1.0 > max_fill -1.0", and NaN would refuse none
// (every comparison false). +inf is "no fill limit": the memory check in
// to_ell still bounds what is allocated.
void check_max_fill(double max_fill) {
  if (!(max_fill >= 1.0))
    throw invalid_argument("to_ell: max_fill must be a number >= 1, or infinity for no fill limit (got " +
                           format_g(max_fill) + ")");
}
}  // namespace

void check_ell_fill(index_t rows, index_t width, std::size_t nnz, index_t widest, double max_fill) {
  check_max_fill(max_fill);
  if (rows < 0 || width < 0)
    throw dimension_error("to_ell: " + std::to_string(rows) + " rows of width " + std::to_string(width));
  // < 2^62 (both below 2^31): no overflow
  const std::size_t slots = static_cast<std::size_t>(rows) * static_cast<std::size_t>(width);
  const double fill = static_cast<double>(slots) / static_cast<double>(std::max<std::size_t>(nnz, 1));
  if (slots > ell_padding_floor && fill > max_fill)
    throw dimension_error("to_ell: padding would be absurd: the widest row" +
                          (widest >= 0 ? ", row " + std::to_string(widest) + " (0-based)," : std::string()) +
                          " has " + std::to_string(width) + " entries, so ELL needs " + std::to_string(rows) +
                          " x " + std::to_string(width) + " = " + std::to_string(slots) + " slots for " +
                          std::to_string(nnz) + " nonzeros (fill ratio " + fixed1(fill) + " > max_fill " +
                          fixed1(max_fill) + "); use a CSR kernel for this matrix");
}

template <class T>
ell_matrix<T> to_ell(const csr_matrix<T>& a, double max_fill) {
  validate(a, "to_ell");
  check_max_fill(max_fill);
  // The width in parallel (a serial pass was 3 ms of a 4 * 10^6-row ELL's
  // 14); the widest row's id, which only the refusal names, where it is one.
  const index_t width = longest_row(a.row_ptr.data(), a.rows);
  try {
    check_ell_fill(a.rows, width, a.nnz(), -1, max_fill);
  } catch (const dimension_error&) {
    index_t widest = 0;
    while (widest + 1 < a.rows && a.row_ptr[widest + 1] - a.row_ptr[widest] != width) ++widest;
    check_ell_fill(a.rows, width, a.nnz(), widest, max_fill);  // throws again, naming it
    throw;
  }
  const std::size_t rows = static_cast<std::size_t>(a.rows);
  const std::size_t slots = rows * static_cast<std::size_t>(width);  // < 2^62: no overflow
  // The bytes in double: slots * 12 may pass 2^64. Whatever max_fill allowed
  // (infinity: anything), no more than the host has.
  check_host_memory(static_cast<double>(slots) * (sizeof(index_t) + sizeof(T)),
                    "the ELL of a " + dimensions(a.rows, a.cols) + " matrix whose widest row has " +
                        std::to_string(width) + " entries (" + std::to_string(slots) + " slots)");
  ell_matrix<T> out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.width = width;
  out.nnz = a.nnz();
  out.col_idx.resize(slots);
  out.values.resize(slots);
  index_t* col = out.col_idx.data();
  T* val = out.values.data();
  // Slot s of row r at s * rows + r (column-major); trailing slots are padding.
#pragma omp parallel for schedule(static) num_threads(threads_for_work(slots))
  for (index_t r = 0; r < a.rows; ++r) {
    const index_t lo = a.row_ptr[r], len = a.row_ptr[r + 1] - lo;
    for (index_t s = 0; s < width; ++s) {
      const std::size_t at = static_cast<std::size_t>(s) * rows + static_cast<std::size_t>(r);
      col[at] = s < len ? a.col_idx[lo + s] : ell_padding;
      val[at] = s < len ? a.values[lo + s] : T(0);
    }
  }
  return out;
}

template <class T>
csr_matrix<T> to_csr(const ell_matrix<T>& a) {
  check_dimensions(a.rows, a.cols, "to_csr(ell)");
  if (a.width < 0) throw dimension_error("to_csr(ell): negative width " + std::to_string(a.width));
  const std::size_t rows = static_cast<std::size_t>(a.rows);
  const std::size_t slots = rows * static_cast<std::size_t>(a.width);
  if (a.col_idx.size() != slots || a.values.size() != slots)
    throw dimension_error("to_csr(ell): " + std::to_string(a.rows) + " rows x width " +
                          std::to_string(a.width) + " needs " + std::to_string(slots) +
                          " slots, but col_idx has " + std::to_string(a.col_idx.size()) + " and values " +
                          std::to_string(a.values.size()));
  // Pass 1: real entries per row, and the checks (columns in range, padding
  // marked exactly, each row's columns strictly increasing).
  std::vector<index_t> count(rows, 0);
  bool valid = true, increasing = true;
#pragma omp parallel for schedule(static) reduction(&& : valid, increasing) num_threads(threads_for_work(slots))
  for (index_t r = 0; r < a.rows; ++r) {
    index_t c = 0, last = -1;
    for (index_t s = 0; s < a.width; ++s) {
      const index_t j = a.col_idx[a.at(r, s)];
      if (j == ell_padding) continue;
      valid = valid && j >= 0 && j < a.cols;
      increasing = increasing && j > last;
      last = j;
      ++c;
    }
    count[r] = c;
  }
  if (!valid)
    throw dimension_error("to_csr(ell): a column index is neither padding nor inside [0, " +
                          std::to_string(a.cols) + ")");
  csr_matrix<T> out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row_ptr.assign(rows + 1, 0);
  std::size_t total = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    total += static_cast<std::size_t>(count[r]);
    check_nnz_fits(total, "to_csr(ell)");
    out.row_ptr[r + 1] = static_cast<index_t>(total);
  }
  if (total != a.nnz)
    throw dimension_error("to_csr(ell): the ELL says nnz = " + std::to_string(a.nnz) + " but holds " +
                          std::to_string(total) + " non-padding entries");
  out.col_idx.resize(total);
  out.values.resize(total);
#pragma omp parallel for schedule(static) num_threads(threads_for_work(slots))
  for (index_t r = 0; r < a.rows; ++r) {
    index_t w = out.row_ptr[r];
    for (index_t s = 0; s < a.width; ++s) {
      const std::size_t at = a.at(r, s);
      if (a.col_idx[at] == ell_padding) continue;
      out.col_idx[w] = a.col_idx[at];
      out.values[w] = a.values[at];
      ++w;
    }
  }
  // A hand-built ELL may list a row's columns out of order or twice: put it
  // right the same way COO input is (stable sort, duplicates summed).
  if (!increasing) sort_and_merge_rows(out, duplicates::sum);
  return out;
}

template <class To, class From>
coo_matrix<To> value_cast(const coo_matrix<From>& a) {
  coo_matrix<To> out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row_idx = fresh_copy<index_t>(a.row_idx.begin(), a.row_idx.end());
  out.col_idx = fresh_copy<index_t>(a.col_idx.begin(), a.col_idx.end());
  out.values =
      fresh_copy<To>(a.values.begin(), a.values.end());  // element-wise static_cast (rounds to nearest)
  return out;
}

template <class To, class From>
csr_matrix<To> value_cast(const csr_matrix<From>& a) {
  csr_matrix<To> out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row_ptr = fresh_copy<index_t>(a.row_ptr.begin(), a.row_ptr.end());
  out.col_idx = fresh_copy<index_t>(a.col_idx.begin(), a.col_idx.end());
  out.values = fresh_copy<To>(a.values.begin(), a.values.end());
  return out;
}

template <class T>
std::vector<T> to_dense(const csr_matrix<T>& a) {
  validate(a, "to_dense");
  const std::size_t cols = static_cast<std::size_t>(a.cols);
  const std::size_t size = static_cast<std::size_t>(a.rows) * cols;
  if (size > dense_limit)
    throw dimension_error("to_dense: a dense " + dimensions(a.rows, a.cols) + " copy would hold " +
                          std::to_string(size) + " values (limit " + std::to_string(dense_limit) +
                          "); to_dense is for small matrices");
  std::vector<T> d(size, T(0));
  for (index_t r = 0; r < a.rows; ++r)
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      d[static_cast<std::size_t>(r) * cols + static_cast<std::size_t>(a.col_idx[k])] += a.values[k];
  return d;
}

#define PERRON_CONVERT_INSTANTIATE(T)                                                                        \
  template csr_matrix<T> to_csr<T>(const coo_matrix<T>&, csr_options);                                       \
  template coo_matrix<T> to_coo<T>(const csr_matrix<T>&);                                                    \
  template csr_matrix<T> transpose<T>(const csr_matrix<T>&);                                                 \
  template csr_matrix<T> pattern_transpose<T>(index_t, index_t, const index_t*, std::size_t, const index_t*, \
                                              std::size_t, const char*);                                     \
  template ell_matrix<T> to_ell<T>(const csr_matrix<T>&, double);                                            \
  template csr_matrix<T> to_csr<T>(const ell_matrix<T>&);                                                    \
  template std::vector<T> to_dense<T>(const csr_matrix<T>&);

PERRON_CONVERT_INSTANTIATE(float)
PERRON_CONVERT_INSTANTIATE(double)
#undef PERRON_CONVERT_INSTANTIATE

#define PERRON_CAST_INSTANTIATE(To, From)                                \
  template coo_matrix<To> value_cast<To, From>(const coo_matrix<From>&); \
  template csr_matrix<To> value_cast<To, From>(const csr_matrix<From>&);

template csr_matrix<float> pattern_to_csr<float, double>(const coo_matrix<double>&, bool);
template csr_matrix<double> pattern_to_csr<double, double>(const coo_matrix<double>&, bool);

PERRON_CAST_INSTANTIATE(float, double)
PERRON_CAST_INSTANTIATE(double, float)
PERRON_CAST_INSTANTIATE(float, float)
PERRON_CAST_INSTANTIATE(double, double)
#undef PERRON_CAST_INSTANTIATE

}  // namespace perron
