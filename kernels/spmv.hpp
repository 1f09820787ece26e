// y = alpha * A * x + beta * y, declared once for every backend.
//
// Kernels are named by spmv_kernel (core/registry.hpp); spmv_kernels() is THE
// list that the apps' --kernel validation, the auto-selector, the tests and
// the benchmark iterate.
// With beta == 0, y is write-only: its old contents (even NaN) never reach the result.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../core/device.hpp"
#include "../core/formats.hpp"
#include "../core/registry.hpp"

namespace perron {

// ---- CPU (kernels/cpu/spmv.cpp) -----------------------------------------
// x holds a.cols values, y a.rows. Per call only the array sizes are checked
// (dimension_error), not the entries: a's row_ptr must run non-decreasing
// from 0 and its columns lie in [0, cols) (an ELL's: or ell_padding), as
// validate() and the conversions ensure; a caller's own matrix goes through
// validate() once before its SpMVs, which would otherwise read out of bounds.
template <class T>
void spmv(const csr_matrix<T>& a, T alpha, const T* x, T beta, T* y);
template <class T>
void spmv(const ell_matrix<T>& a, T alpha, const T* x, T beta, T* y);
// The OpenMP team of a solve that repeats spmv(csr) over A, its other regions
// on the same team (core/memory.hpp, team_scope): one thread below 32 K
// nonzeros + rows, else a thread per 8 K, every core but one from 8 up
// (core/memory.hpp, solve_team).
template <class T>
int spmv_team(const csr_matrix<T>& a);

// ---- GPU (kernels/cuda/) ---------------------------------------------------
// Whether the GPU CSR and ELL kernels run `a` as its pattern, reading no value: every
// value bit-equal to one 1 or -1 (kernels/cuda/spmv_common.cuh, matrix_values,
// says why no other). == on +-1 is bitwise: no other bits (not -0, not a NaN)
// compare equal to it. One pass over the values, on the host.
template <class T>
bool runs_as_pattern(const csr_matrix<T>& a) {
  if (a.values.empty() || !(a.values.front() == T(1) || a.values.front() == T(-1))) return false;
  const T first = a.values.front();
  for (const T v : a.values)
    if (!(v == first)) return false;
  return true;
}

// A plan owns A on the device in the layout its kernel needs, plus that
// kernel's preprocessing (row blocks, ELL padding, merge partitions, cuSPARSE
// descriptors and buffer), built once and reused every call. apply()
// allocates nothing and does not synchronize; x and y are device pointers.
// A CSR matrix built on the device (by the caller's kernel), handed to a
// plan without a host copy: the plan takes the arrays over. The caller
// vouches for the CSR invariants (row_ptr non-decreasing from 0 to nnz,
// columns in [0, cols)) and gives the longest row, which auto's candidate
// rules need; the plan checks only the sizes (no pass over the entries).
template <class T>
struct device_csr_matrix {
  index_t rows = 0, cols = 0;
  index_t max_row_length = 0;
  cuda::device_buffer<index_t> row_ptr;  // rows + 1
  cuda::device_buffer<index_t> col_idx;  // nnz
  cuda::device_buffer<T> values;         // nnz
};

template <class T>
class spmv_plan {
 public:
  // kernel == automatic resolves to a concrete kernel here.
  spmv_plan(const csr_matrix<T>& a, spmv_kernel kernel, cuda::stream_t stream = nullptr);
  // From a device CSR. Kernels that plan from the host matrix (csr-adaptive,
  // merge, ell) refuse it with dimension_error; auto times the others.
  spmv_plan(device_csr_matrix<T> a, spmv_kernel kernel, cuda::stream_t stream = nullptr);
  ~spmv_plan();
  spmv_plan(spmv_plan&&) noexcept;
  spmv_plan& operator=(spmv_plan&&) noexcept;

  void apply(T alpha, const T* d_x, T beta, T* d_y) const;

  spmv_kernel kernel() const;  // the concrete kernel (never automatic)
  index_t rows() const;
  index_t cols() const;
  std::size_t nnz() const;
  cuda::stream_t stream() const;
  // Device bytes held by the plan (matrix + preprocessing).
  std::size_t device_bytes() const;
  // Why automatic chose this kernel (empty when not automatic): the timed
  // trial's candidates and their times.
  const std::string& reason() const;
  // The concrete kernel and its configuration, e.g. "csr-vector (16 lanes/row)".
  std::string description() const;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace perron
