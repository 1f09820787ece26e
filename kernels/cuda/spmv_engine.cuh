// Inside the SpMV plan: the matrix on the device and one "engine" per kernel
// family. spmv_plan (spmv_plan.cu) owns an engine; each spmv_<family>.cu file
// implements its make_* factory. Engines sharing the CSR arrays hold them
// through a shared_ptr, so the auto trial uploads the matrix once.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda/support.cuh"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/spmv.hpp"

namespace perron::cuda::spmv {

// CSR arrays on the device, uploaded once.
template <class T>
struct device_csr {
  index_t rows = 0;
  index_t cols = 0;
  std::size_t nnz = 0;
  device_buffer<index_t> row_ptr;
  device_buffer<index_t> col_idx;
  device_buffer<T> values;
  // Every value bit-equal to one_value, 1 or -1 (and nnz > 0): the CSR
  // kernels read none (matrix_values), and a plan whose kernel is one of them
  // frees `values`. Set by upload_csr from the host matrix; a plan built
  // from a device CSR leaves it false (no pass over the caller's arrays).
  bool one_value_only = false;
  T one_value = 0;

  std::size_t bytes() const { return row_ptr.bytes() + col_idx.bytes() + values.bytes(); }
};

// Checks the CSR invariants (sizes, row_ptr monotone from 0, columns in
// range): a plan never launches on indices that could fault. Throws
// dimension_error naming what is wrong.
template <class T>
void validate_csr(const csr_matrix<T>& a);
// Uploads a validated CSR.
template <class T>
std::shared_ptr<const device_csr<T>> upload_csr(const csr_matrix<T>& a);

// Row-length statistics used by the factories and the auto trial.
struct row_stats {
  index_t rows = 0;
  std::size_t nnz = 0;
  index_t max_len = 0;
  double mean_len = 0;
};
template <class T>
row_stats stats_of(const csr_matrix<T>& a);

// One configured kernel: y = alpha * A * x + beta * y on `stream`, no
// allocation, no synchronization. Called only with rows > 0.
template <class T>
class engine {
 public:
  virtual ~engine() = default;
  virtual void apply(T alpha, const T* d_x, T beta, T* d_y) const = 0;
  // Device bytes owned by this engine beyond the shared CSR arrays.
  virtual std::size_t extra_bytes() const = 0;
  // Whether the engine reads the shared CSR arrays (ELL does not).
  virtual bool uses_csr() const { return true; }
  // Whether it reads the values even where they are all one value (cuSPARSE:
  // the library is handed the arrays).
  virtual bool reads_every_value() const { return false; }
  // "csr-vector (16 lanes/row)", ...
  virtual std::string description() const = 0;
};

template <class T>
using csr_ptr = std::shared_ptr<const device_csr<T>>;

// Calls launch(values, alpha) with the matrix_values a kernel reads: the
// array itself, or (one value only) none and alpha scaled by that value.
// Every engine that reads the CSR arrays launches through it.
template <class T, class Launch>
void launch_with_values(const device_csr<T>& a, T alpha, Launch&& launch) {
  if (a.one_value_only)
    launch(matrix_values<T, false>{nullptr}, alpha * a.one_value);
  else
    launch(matrix_values<T, true>{a.values.data()}, alpha);
}

// What a kernel's factory may use to configure its engine.
template <class T>
struct engine_args {
  const csr_matrix<T>* host_csr;  // the host matrix; null for a plan built from a device CSR
  const csr_ptr<T>& csr;          // its uploaded CSR arrays (null: built from the host matrix alone)
  const row_stats& stats;
  cudaStream_t stream;
  // The host matrix (row structure for planning; ell converts it). A plan
  // built from a device CSR has none: dimension_error, so the kernel is
  // refused there (auto leaves it out) instead of reading what is not there.
  const csr_matrix<T>& host() const {
    if (!host_csr)
      throw dimension_error("this kernel plans from the host CSR, and the matrix is on the device");
    return *host_csr;
  }
};

// One factory per line of core/spmv_kernels.def, each defined in its kernel's
// own file (spmv_<family>.cu: make_csr_scalar, make_merge, ...); those of cpu
// and automatic, which have no engine, throw (spmv_plan.cu). Factories throw
// dimension_error for a matrix their kernel refuses (ell's padding).
#define PERRON_SPMV_KERNEL(id, ...) \
  template <class T>                \
  std::unique_ptr<engine<T>> make_##id(const engine_args<T>& args);
#include "core/spmv_kernels.def"
#undef PERRON_SPMV_KERNEL

// Instantiates a kernel file's factory for float and double.
#define PERRON_SPMV_INSTANTIATE_MAKE(id)                                                    \
  template std::unique_ptr<engine<float>> make_##id<float>(const engine_args<float>& args); \
  template std::unique_ptr<engine<double>> make_##id<double>(const engine_args<double>& args);

// The engine of kernel k through the registry's factories. `a` may be null
// for ell, which builds its own arrays from `h`; `h` is null for a device CSR.
template <class T>
std::unique_ptr<engine<T>> make_engine(spmv_kernel k, const csr_matrix<T>* h, const csr_ptr<T>& a,
                                       const row_stats& st, cudaStream_t s);

// kernels/cuda/spmv_auto.cu: times the plausible kernels on this matrix and
// keeps the fastest.
template <class T>
struct auto_choice {
  spmv_kernel kernel;
  std::unique_ptr<engine<T>> engine;
  std::string reason;
};
template <class T>
auto_choice<T> choose_automatic(const csr_matrix<T>* h, const csr_ptr<T>& a, const row_stats& st,
                                cudaStream_t s);

// y = beta * y (beta != 0) or y = 0 (beta == 0): the whole SpMV of a matrix
// without nonzeros, used where a library call would reject nnz == 0.
template <class T>
void scale_y(index_t rows, T beta, T* d_y, cudaStream_t s);
// d[0, n) = value.
template <class T>
void fill(T* d, std::size_t n, T value, cudaStream_t s);

}  // namespace perron::cuda::spmv
