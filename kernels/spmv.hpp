// y = alpha * A * x + beta * y, declared once for every backend.
//
// Kernels are named by spmv_kernel; spmv_kernels() is THE list that the apps'
// --kernel validation, the auto-selector, the tests and the benchmark iterate.
// With beta == 0, y is write-only: its old contents (even NaN) never reach the result.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/device.hpp"
#include "core/formats.hpp"

namespace perron {

enum class spmv_kernel {
  cpu,            // OpenMP, host memory
  csr_scalar,     // one thread per row
  csr_vector,     // one (sub-)warp per row, shuffle reduction
  csr_adaptive,   // Greathouse & Daga row blocks
  csr_cached,     // thread per row, block's window of x in shared memory (Garland)
  csr_cte,        // warp takes 32 rows, nonzeros spread evenly, segmented reduction
  ell,            // column-major padded ELL
  merge,          // merge-path (Merrill & Garland)
  cusparse,       // cuSPARSE generic SpMV, CSR, ALG1
  cusparse_alg2,  // cuSPARSE generic SpMV, CSR, ALG2
  automatic,      // picks per matrix by a short timed trial (kernels/cuda/spmv_auto.cu)
};

// "csr-scalar", "cusparse-alg2", "auto", ...
std::string_view name(spmv_kernel k);
// Inverse of name(); throws invalid_argument listing every valid name.
spmv_kernel parse_spmv_kernel(std::string_view s);
// Every kernel, in a fixed order (cpu first, automatic last).
const std::vector<spmv_kernel>& spmv_kernels();
// Runs on the GPU (everything but cpu)?
bool on_gpu(spmv_kernel k);
// "cpu, csr-scalar, ..., auto" for help texts.
std::string spmv_kernel_names();

// ---- CPU (kernels/cpu/spmv.cpp) -----------------------------------------
template <class T>
void spmv(const csr_matrix<T>& a, T alpha, const T* x, T beta, T* y);
template <class T>
void spmv(const ell_matrix<T>& a, T alpha, const T* x, T beta, T* y);

// ---- GPU (kernels/cuda/) ---------------------------------------------------
// A plan owns A on the device in the layout its kernel needs, plus that
// kernel's preprocessing (row blocks, ELL padding, merge partitions, cuSPARSE
// descriptors and buffer), built once and reused every call. apply()
// allocates nothing and does not synchronize; x and y are device pointers.
template <class T>
class spmv_plan {
 public:
  // kernel == automatic resolves to a concrete kernel here.
  spmv_plan(const csr_matrix<T>& a, spmv_kernel kernel, cuda::stream_t stream = nullptr);
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
