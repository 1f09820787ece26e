// GPU timing harness of the benchmarks (spmv-bench, pagerank --bench): not part
// of the libraries users link. Stub without CUDA: "built without CUDA".
#pragma once

#include <cmath>
#include <vector>

#include "core/stats.hpp"
#include "kernels/spmv.hpp"

namespace perron {

// One sample per timed launch, in microseconds, from a pair of CUDA events
// around that launch alone. Launches are queued behind a short spin kernel so
// host-side launch overhead is not in the samples; with flush_l2 a scratch
// buffer twice the L2 size is rewritten before each timed launch (outside the
// events), so the matrix and x come from DRAM.
struct gpu_timing {
  std::vector<double> us;
  double median_us() const { return median(us); }
};
template <class T>
gpu_timing time_spmv(const spmv_plan<T>& plan, T alpha, const T* d_x, T beta, T* d_y, int warmup,
                     int iterations, bool flush_l2 = false);

// Diagnostic floor for a CSR matrix: the time of a kernel that streams only
// col_idx and gathers x[col] once per nonzero (no values, no row_ptr, no y),
// with d_x on the device (cols entries), timed like time_spmv. With
// with_values it streams the values too and sums a_k x[col_k]: the floor of a
// matrix whose values a kernel must read (not one value: spmv_common.cuh's
// matrix_values), which moves 4 or 8 bytes a nonzero more. With with_rows it
// also reads row_ptr and writes y, one coalesced stream each: the bytes any
// CSR SpMV moves (4 + value bytes a row more), without its row sums.
template <class T>
gpu_timing time_gather_floor(const csr_matrix<T>& a, const T* d_x, int warmup, int iterations,
                             bool flush_l2 = false, bool with_values = false, bool with_rows = false);

// What checking an SpMV result y = A x needs per row: sum_j |a_ij x_j| and the
// row length. A row accumulated in T is right when |y_i - exact_i| <=
// 2 eps (len_i + 1) sum_j |a_ij x_j| (eps = unit roundoff of T).
struct spmv_row_bounds {
  std::vector<double> abs_ax;
  std::vector<index_t> len;
};
template <class T>
spmv_row_bounds row_bounds_of(const csr_matrix<T>& a, const std::vector<T>& x) {
  spmv_row_bounds b;
  b.abs_ax.resize(static_cast<std::size_t>(a.rows));
  b.len.resize(static_cast<std::size_t>(a.rows));
  for (index_t r = 0; r < a.rows; ++r) {
    double s = 0;
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      s += std::abs(static_cast<double>(a.values[k]) * static_cast<double>(x[a.col_idx[k]]));
    b.abs_ax[r] = s;
    b.len[r] = a.row_ptr[r + 1] - a.row_ptr[r];
  }
  return b;
}

// Device-to-device cudaMemcpy bandwidth in GB/s, counting bytes read plus
// bytes written, median of `iterations` copies of `bytes` after one warm-up.
double copy_bandwidth_gbs(std::size_t bytes = std::size_t(1) << 30, int iterations = 20);

}  // namespace perron
