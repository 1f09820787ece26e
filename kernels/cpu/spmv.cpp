// CPU SpMV, y = alpha * A * x + beta * y, for CSR and ELL (OpenMP).
//
// Accumulation: each row's dot product is accumulated in double, also for
// float matrices, and y is rounded to T once at the end. On the CPU this costs
// nothing measurable (the loop is bound by the gathers of x and the stream of
// A, not by the adds; a float -> double conversion is one instruction), and
// it turns the error bound from gamma_n = n * eps_float * sum_j |a_ij x_j|
// (n = row length; ~0.06 relative for a 10^6-entry row) into about
// eps_float * |y_i| + n * eps_double * sum_j |a_ij x_j|: for float, the
// reference is then correctly rounded up to a tiny term, whatever the row
// length. tests/cpu_spmv_test.cpp asserts exactly this tighter bound.
//
// beta == 0: y is write-only (its old contents, NaN included, never reach the
// result). alpha == 0: A and x are not read, y = beta * y (the BLAS convention).
#include "kernels/spmv.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/memory.hpp"

namespace perron {
namespace {

template <class T>
struct accumulator {
  using type = T;
};
template <>
struct accumulator<float> {
  using type = double;
};

// Below this many (nonzeros + rows) one thread does it all: a parallel region
// costs a few microseconds, about what 10^4 multiply-adds take.
constexpr std::size_t spmv_grain = 1 << 14;
int threads_for(std::size_t work) { return threads_for_work(work, spmv_grain); }

// y_r from the row's accumulated A x (in the accumulator type), rounded once.
template <class T, class Acc>
inline T combine(Acc ax, Acc alpha, Acc beta, T y_old) {
  if (beta == Acc(0)) return static_cast<T>(alpha * ax);
  return static_cast<T>(alpha * ax + beta * static_cast<Acc>(y_old));
}

// alpha == 0: y = beta * y without touching A or x.
template <class T>
void scale_only(index_t rows, T beta, T* y) {
#pragma omp parallel for schedule(static) num_threads(threads_for(static_cast <std::size_t>(rows)))
  for (index_t r = 0; r < rows; ++r) y[r] = beta == T(0) ? T(0) : beta * y[r];
}

template <class T>
void check_vectors(const char* who, index_t rows, index_t cols, const T* x, const T* y) {
  if (rows > 0 && y == nullptr)
    throw invalid_argument(std::string(who) + ": y is null for " + std::to_string(rows) + " rows");
  if (cols > 0 && x == nullptr)
    throw invalid_argument(std::string(who) + ": x is null for " + std::to_string(cols) + " columns");
  // y written while x is read: spmv(a, 1, z, 0, z) gave neither A z nor an error.
  if (arrays_overlap(x, std::size_t(cols) * sizeof(T), y, std::size_t(rows) * sizeof(T)))
    throw invalid_argument(std::string(who) +
                           ": x and y overlap (y is written while x is read): give y its own array");
}

}  // namespace

template <class T>
void spmv(const csr_matrix<T>& a, T alpha, const T* x, T beta, T* y) {
  using acc_t = typename accumulator<T>::type;
  if (a.rows < 0 || a.cols < 0 || a.row_ptr.size() != static_cast<std::size_t>(a.rows) + 1 ||
      a.values.size() != a.col_idx.size() || static_cast<std::size_t>(a.row_ptr.back()) != a.nnz())
    throw dimension_error("spmv(csr): inconsistent matrix (" + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ", row_ptr " + std::to_string(a.row_ptr.size()) +
                          ", col_idx " + std::to_string(a.col_idx.size()) + ", values " +
                          std::to_string(a.values.size()) + ")");
  check_vectors("spmv(csr)", a.rows, a.cols, x, y);
  if (alpha == T(0)) return scale_only(a.rows, beta, y);
  const index_t* ptr = a.row_ptr.data();
  const index_t* col = a.col_idx.data();
  const T* val = a.values.data();
  const acc_t al = alpha, be = beta;
  // Split rows so that every thread gets about the same nonzeros + rows
  // (f(r) = row_ptr[r] + r is strictly increasing: binary search for the
  // thread's first row). A single huge row still goes to one thread.
  const std::size_t work = a.nnz() + static_cast<std::size_t>(a.rows);
#pragma omp parallel num_threads(threads_for(work))
  {
    const std::size_t team = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
    auto first_row = [&](std::size_t target) {
      index_t lo = 0, hi = a.rows;  // smallest r in [0, rows] with f(r) >= target
      while (lo < hi) {
        const index_t mid = lo + (hi - lo) / 2;
        if (static_cast<std::size_t>(ptr[mid]) + static_cast<std::size_t>(mid) >= target)
          hi = mid;
        else
          lo = mid + 1;
      }
      return lo;
    };
    const index_t r_lo = first_row(work * t / team), r_hi = first_row(work * (t + 1) / team);
    for (index_t r = r_lo; r < r_hi; ++r) {
      acc_t s = 0;
      for (index_t k = ptr[r]; k < ptr[r + 1]; ++k)
        s += static_cast<acc_t>(val[k]) * static_cast<acc_t>(x[col[k]]);
      y[r] = combine(s, al, be, beta == T(0) ? T(0) : y[r]);
    }
  }
}

template <class T>
void spmv(const ell_matrix<T>& a, T alpha, const T* x, T beta, T* y) {
  using acc_t = typename accumulator<T>::type;
  const std::size_t rows = a.rows < 0 ? 0 : static_cast<std::size_t>(a.rows);
  const std::size_t slots = rows * static_cast<std::size_t>(std::max<index_t>(a.width, 0));
  if (a.rows < 0 || a.cols < 0 || a.width < 0 || a.col_idx.size() != slots || a.values.size() != slots)
    throw dimension_error("spmv(ell): inconsistent matrix (" + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ", width " + std::to_string(a.width) + ", col_idx " +
                          std::to_string(a.col_idx.size()) + ", values " + std::to_string(a.values.size()) +
                          ")");
  check_vectors("spmv(ell)", a.rows, a.cols, x, y);
  if (alpha == T(0)) return scale_only(a.rows, beta, y);
  const index_t* col = a.col_idx.data();
  const T* val = a.values.data();
  const acc_t al = alpha, be = beta;
  // Column-major storage: slot s of rows [b, b + block) is contiguous, so walk
  // a block of rows slot by slot with one accumulator per row; each pass reads
  // whole cache lines of col_idx and values instead of one element per line.
  constexpr index_t block = 64;
  const auto blocks = static_cast<index_t>((static_cast<std::int64_t>(a.rows) + block - 1) /
                                           block);  // no int32 overflow near 2^31 rows
#pragma omp parallel for schedule(static) num_threads(threads_for(slots + rows))
  for (index_t b = 0; b < blocks; ++b) {
    const index_t r0 = b * block, n = std::min<index_t>(block, a.rows - r0);
    acc_t s[block] = {};
    for (index_t slot = 0; slot < a.width; ++slot) {
      const std::size_t base = static_cast<std::size_t>(slot) * rows + static_cast<std::size_t>(r0);
      for (index_t i = 0; i < n; ++i) {
        const index_t c = col[base + i];
        if (c != ell_padding) s[i] += static_cast<acc_t>(val[base + i]) * static_cast<acc_t>(x[c]);
      }
    }
    for (index_t i = 0; i < n; ++i) y[r0 + i] = combine(s[i], al, be, beta == T(0) ? T(0) : y[r0 + i]);
  }
}

template <class T>
int spmv_team(const csr_matrix<T>& a) {
  return solve_team(a.nnz() + static_cast<std::size_t>(std::max<index_t>(a.rows, 0)), spmv_grain);
}

template int spmv_team<float>(const csr_matrix<float>&);
template int spmv_team<double>(const csr_matrix<double>&);
template void spmv<float>(const csr_matrix<float>&, float, const float*, float, float*);
template void spmv<double>(const csr_matrix<double>&, double, const double*, double, double*);
template void spmv<float>(const ell_matrix<float>&, float, const float*, float, float*);
template void spmv<double>(const ell_matrix<double>&, double, const double*, double, double*);

}  // namespace perron
