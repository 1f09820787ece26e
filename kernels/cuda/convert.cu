// COO -> CSR on the GPU (declared in kernels/gpu_convert.hpp).
//
// Bit-identity with the host conversion (kernels/convert.cpp) rests on two facts:
//  1. CUB's radix sort is stable, so after sorting on key = row * cols + col the
//     duplicates of a position sit in input order, as after the host's stable
//     counting sort + stable per-row sort;
//  2. each distinct position is finished by ONE thread that adds its run left
//     to right in T, exactly the host's ((v1 + v2) + v3). A parallel
//     reduce-by-key would reassociate the adds and change the last bits.
// Plain adds (no multiply) cannot be contracted into FMAs, and nvcc keeps
// denormals without --use_fast_math, so the device adds round like the host's.
#include <algorithm>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <string>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "kernels/gpu_convert.hpp"

namespace perron {
namespace {

using key_t = unsigned long long;
constexpr int block_threads = 256;

// Grid-stride loops below; 2^16 blocks of 256 threads keep any GPU busy.
unsigned grid_for(std::size_t n) { return cuda::grid_for(n, block_threads, 1u << 16); }

// Number of bits that hold every key in [0, max_key].
int key_bits(key_t max_key) {
  int b = 1;
  while (b < 64 && (max_key >> b) != 0) ++b;
  return b;
}

// key of entry k = (output row) * out_cols + (output column); an entry outside
// the matrix records its index in *first_bad (the lowest one wins, as on the host).
__global__ void make_keys(std::size_t n, const index_t* __restrict__ d_row, const index_t* __restrict__ d_col,
                          index_t rows, index_t cols, bool transpose, key_t* __restrict__ d_keys,
                          unsigned long long* __restrict__ d_first_bad) {
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
       k += std::size_t(gridDim.x) * blockDim.x) {
    const index_t r = d_row[k], c = d_col[k];
    if (r < 0 || r >= rows || c < 0 || c >= cols) {
      atomicMin(d_first_bad, static_cast<unsigned long long>(k));
      d_keys[k] = 0;
      continue;
    }
    d_keys[k] = transpose ? key_t(c) * key_t(rows) + key_t(r) : key_t(r) * key_t(cols) + key_t(c);
  }
}

// One thread per distinct position u: its run of duplicates starts at
// d_offset[u] in the sorted values and is d_count[u] long, in input order.
template <class T>
__global__ void merge_runs(int m, const key_t* __restrict__ d_unique, const int* __restrict__ d_count,
                           const int* __restrict__ d_offset, const T* __restrict__ d_sorted_values,
                           index_t out_cols, bool sum, index_t* __restrict__ d_col_out,
                           T* __restrict__ d_val_out) {
  for (std::size_t u = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; u < std::size_t(m);
       u += std::size_t(gridDim.x) * blockDim.x) {
    const T* run = d_sorted_values + d_offset[u];
    T acc = run[0];
    if (sum)
      for (int i = 1; i < d_count[u]; ++i) acc += run[i];
    d_col_out[u] = static_cast<index_t>(d_unique[u] % key_t(out_cols));
    d_val_out[u] = acc;
  }
}

// row_ptr[r] = number of distinct keys below r * out_cols (binary search over
// the sorted unique keys); r = out_rows gives m.
__global__ void row_pointers(index_t out_rows, index_t out_cols, int m, const key_t* __restrict__ d_unique,
                             index_t* __restrict__ d_row_ptr) {
  for (std::size_t r = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; r <= std::size_t(out_rows);
       r += std::size_t(gridDim.x) * blockDim.x) {
    const key_t first = key_t(r) * key_t(out_cols);
    int lo = 0, hi = m;
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (d_unique[mid] < first)
        lo = mid + 1;
      else
        hi = mid;
    }
    d_row_ptr[r] = lo;
  }
}

// Temporary storage for the CUB calls, grown as needed.
struct temp_storage {
  cuda::device_buffer<unsigned char> buffer;
  void* get(std::size_t bytes) {
    // Never hand CUB a null pointer: it would take the call for a size query.
    bytes = std::max<std::size_t>(bytes, 256);
    if (bytes > buffer.size()) buffer = cuda::device_buffer<unsigned char>(bytes);
    return buffer.data();
  }
};

void check_shape(index_t rows, index_t cols, std::size_t nnz) {
  if (rows < 0 || cols < 0)
    throw dimension_error("to_csr_on_gpu: negative dimensions " + std::to_string(rows) + " x " +
                          std::to_string(cols));
  if (nnz > max_index)
    throw dimension_error("to_csr_on_gpu: " + std::to_string(nnz) +
                          " entries exceed the 32-bit index limit " + std::to_string(max_index));
}

// Step 1 of to_device_csr: the entries' sort keys (of the transpose when
// asked), or dimension_error naming the first entry outside rows x cols.
cuda::device_buffer<key_t> checked_keys(index_t rows, index_t cols, std::size_t nnz, const index_t* d_row,
                                        const index_t* d_col, bool transpose, cuda::stream_t stream) {
  cuda::device_buffer<key_t> d_keys(nnz);
  cuda::device_buffer<unsigned long long> d_first_bad(1);
  const unsigned long long none = nnz;
  PERRON_CUDA_CHECK(cudaMemcpyAsync(d_first_bad.data(), &none, sizeof none, cudaMemcpyHostToDevice, stream));
  make_keys<<<grid_for(nnz), block_threads, 0, stream>>>(nnz, d_row, d_col, rows, cols, transpose,
                                                         d_keys.data(), d_first_bad.data());
  PERRON_CUDA_CHECK_LAUNCH("make_keys");
  unsigned long long first_bad = none;
  PERRON_CUDA_CHECK(
      cudaMemcpyAsync(&first_bad, d_first_bad.data(), sizeof first_bad, cudaMemcpyDeviceToHost, stream));
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (first_bad < none) {
    index_t r = 0, c = 0;
    PERRON_CUDA_CHECK(cudaMemcpy(&r, d_row + first_bad, sizeof r, cudaMemcpyDeviceToHost));
    PERRON_CUDA_CHECK(cudaMemcpy(&c, d_col + first_bad, sizeof c, cudaMemcpyDeviceToHost));
    throw dimension_error("to_csr_on_gpu: entry " + std::to_string(first_bad) + " (0-based) at (" +
                          std::to_string(r) + ", " + std::to_string(c) + ") lies outside the " +
                          std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
  }
  return d_keys;
}

}  // namespace

template <class T>
cuda::device_csr<T> to_device_csr(index_t rows, index_t cols, std::size_t nnz, const index_t* d_row,
                                  const index_t* d_col, const T* d_values, csr_options opt,
                                  cuda::stream_t stream) {
  check_shape(rows, cols, nnz);
  if (nnz > 0 && (!d_row || !d_col || !d_values))
    throw invalid_argument("to_csr_on_gpu: null device array for " + std::to_string(nnz) + " entries");
  const index_t out_rows = opt.transpose ? cols : rows;
  const index_t out_cols = opt.transpose ? rows : cols;
  const int n = static_cast<int>(nnz);  // fits: checked above

  cuda::device_csr<T> out;
  out.rows = out_rows;
  out.cols = out_cols;
  out.row_ptr = cuda::device_buffer<index_t>(static_cast<std::size_t>(out_rows) + 1);
  if (n == 0) {
    PERRON_CUDA_CHECK(cudaMemsetAsync(out.row_ptr.data(), 0, out.row_ptr.bytes(), stream));
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream));
    return out;
  }

  // 1. Keys, and the range check.
  cuda::device_buffer<key_t> d_keys = checked_keys(rows, cols, nnz, d_row, d_col, opt.transpose, stream),
                             d_keys_sorted(nnz);

  // 2. Stable radix sort of (key, value) on the bits the keys use
  //    (rows * cols > 0 here, since an entry exists and lies inside).
  const int end_bit = key_bits(key_t(rows) * key_t(cols) - 1);
  cuda::device_buffer<T> d_values_sorted(nnz);
  temp_storage temp;
  std::size_t bytes = 0;
  PERRON_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, d_keys.data(), d_keys_sorted.data(),
                                                    d_values, d_values_sorted.data(), n, 0, end_bit, stream));
  PERRON_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(bytes), bytes, d_keys.data(),
                                                    d_keys_sorted.data(), d_values, d_values_sorted.data(), n,
                                                    0, end_bit, stream));

  // 3. Runs of equal keys: distinct positions (into the no longer needed
  //    d_keys), their lengths, and where each run starts.
  key_t* d_unique = d_keys.data();
  cuda::device_buffer<int> d_count(nnz), d_runs(1);
  bytes = 0;
  PERRON_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, bytes, d_keys_sorted.data(), d_unique,
                                                       d_count.data(), d_runs.data(), n, stream));
  PERRON_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(temp.get(bytes), bytes, d_keys_sorted.data(), d_unique,
                                                       d_count.data(), d_runs.data(), n, stream));
  int m = 0;
  PERRON_CUDA_CHECK(cudaMemcpyAsync(&m, d_runs.data(), sizeof m, cudaMemcpyDeviceToHost, stream));
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream));
  cuda::device_buffer<int> d_offset(static_cast<std::size_t>(m));
  bytes = 0;
  PERRON_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, bytes, d_count.data(), d_offset.data(), m, stream));
  PERRON_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(temp.get(bytes), bytes, d_count.data(), d_offset.data(), m, stream));

  // 4. One entry per run, then row_ptr.
  out.col_idx = cuda::device_buffer<index_t>(static_cast<std::size_t>(m));
  out.values = cuda::device_buffer<T>(static_cast<std::size_t>(m));
  merge_runs<<<grid_for(static_cast<std::size_t>(m)), block_threads, 0, stream>>>(
      m, d_unique, d_count.data(), d_offset.data(), d_values_sorted.data(), out_cols,
      opt.dup == duplicates::sum, out.col_idx.data(), out.values.data());
  PERRON_CUDA_CHECK_LAUNCH("merge_runs");
  row_pointers<<<grid_for(static_cast<std::size_t>(out_rows) + 1), block_threads, 0, stream>>>(
      out_rows, out_cols, m, d_unique, out.row_ptr.data());
  PERRON_CUDA_CHECK_LAUNCH("row_pointers");
  // The temporaries are freed on return (cudaFree waits for the device), and
  // the caller may read the result at once.
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream));
  return out;
}

template <class T>
cuda::device_csr<T> to_device_csr(const coo_matrix<T>& a, csr_options opt, cuda::stream_t stream) {
  check_shape(a.rows, a.cols, a.nnz());
  if (a.col_idx.size() != a.row_idx.size() || a.values.size() != a.row_idx.size())
    throw dimension_error("to_csr_on_gpu: COO arrays differ in length (row_idx " +
                          std::to_string(a.row_idx.size()) + ", col_idx " + std::to_string(a.col_idx.size()) +
                          ", values " + std::to_string(a.values.size()) + ")");
  const cuda::device_buffer<index_t> d_row(a.row_idx), d_col(a.col_idx);
  const cuda::device_buffer<T> d_val(a.values);
  return to_device_csr(a.rows, a.cols, a.nnz(), d_row.data(), d_col.data(), d_val.data(), opt, stream);
}

template <class T>
csr_matrix<T> to_csr_on_gpu(const coo_matrix<T>& a, csr_options opt, cuda::stream_t stream) {
  return to_device_csr(a, opt, stream).download();
}

#include "kernels/cuda/convert_instances.def"

}  // namespace perron
