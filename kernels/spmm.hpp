// Y = alpha * A * X + beta * Y: a CSR matrix A (rows x cols) times a dense
// block X of k columns (cols x k, row-major: row j of X is k consecutive
// values), into Y (rows x k, row-major). Declared once for every backend.
// With beta == 0, Y is write-only: its old contents (even NaN) never reach
// the result. k == 0 does nothing.
#pragma once

#include <cstddef>
#include <memory>

#include "core/device.hpp"
#include "core/formats.hpp"

namespace perron {

// The GPU splits rows longer than this many entries into pieces summed
// atomically: bitwise reproducible results only for rows up to this length.
inline constexpr index_t spmm_split_length = 64;

// ---- CPU (kernels/cpu/spmm.cpp, OpenMP over rows) -------------------------
template <class T>
void spmm(const csr_matrix<T>& a, T alpha, const T* x, T beta, T* y, index_t k);

// ---- GPU (kernels/cuda/spmm.cu) ---------------------------------------------
// Owns A on the device, uploaded once; apply() allocates nothing and does not
// synchronize; d_x (cols x k) and d_y (rows x k) are device pointers.
template <class T>
class spmm_plan {
 public:
  explicit spmm_plan(const csr_matrix<T>& a, cuda::stream_t stream = nullptr);
  ~spmm_plan();
  spmm_plan(spmm_plan&&) noexcept;
  spmm_plan& operator=(spmm_plan&&) noexcept;

  void apply(T alpha, const T* d_x, T beta, T* d_y, index_t k) const;

  index_t rows() const;
  index_t cols() const;
  std::size_t nnz() const;
  cuda::stream_t stream() const;
  // Device arrays of A as the plan holds them (CSR, 0-based), for baselines.
  const index_t* device_row_ptr() const;
  const index_t* device_col_idx() const;
  const T* device_values() const;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace perron
