// Y = alpha * A * X + beta * Y: a CSR matrix A (rows x cols) times a dense
// block X of k columns (cols x k, row-major: row j of X is k consecutive
// values), into Y (rows x k, row-major). Declared once for every backend.
// With beta == 0, Y is write-only: its old contents (even NaN) never reach
// the result. k == 0 does nothing.
#pragma once

#include <cstddef>
#include <memory>

#include "../core/device.hpp"
#include "../core/formats.hpp"

namespace perron {

// The GPU splits rows longer than this many entries into pieces summed
// atomically: bitwise reproducible results only for rows up to this length.
inline constexpr index_t spmm_split_length = 64;

// Entry slots of a GPU row team (g column lanes times the slots, at most a
// warp): the largest power of two s <= resident_threads / (rows g), at least 1
// and at most 32 / g. One slot when the rows alone fill the device (each lane
// then keeps four of its row's entries in flight); more where rows are too
// few, so that a row's entries are gathered side by side. The rule it
// replaced (about 4 entries a slot) gave cnr-2000 four slots: 139 us at
// k = 32 against 96 with one (H100; docs/PERFORMANCE.md, session 18). Also
// the batched fused step's team (solvers/cuda/pagerank_batched.cu).
inline int spmm_team_slots(index_t rows, int g, long long resident_threads) {
  const long long lanes = static_cast<long long>(rows > 0 ? rows : 1) * (g > 0 ? g : 1);
  int s = 1;
  while (s * 2 <= 32 / (g > 0 ? g : 1) && lanes * s * 2 <= resident_threads) s *= 2;
  return s;
}

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
