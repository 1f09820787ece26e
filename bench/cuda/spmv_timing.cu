// GPU timing for the benchmarks: an SpMV plan's calls (core/cuda/support.cuh's
// time_calls, optionally with L2 flushed between calls), the device-to-device
// copy bandwidth that the benchmarks' percentages refer to, and the x-gather
// floor of a matrix.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "bench/spmv_timing.hpp"
#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/spmv.hpp"

namespace perron {
namespace cuda::spmv {
namespace {

// Only the column stream and one x gather per nonzero: the traffic every CSR
// kernel has beyond the value and row_ptr streams (Values: matrix_values, with
// Read the value stream too). The sum is written only if it equals an
// impossible value, so the loads cannot be dropped. With Rows, each row's end
// is read from row_ptr and a value written to y too, in coalesced streams:
// what any CSR SpMV moves at least, without its reduction.
template <class T, class Values, bool Rows>
__global__ void gather_floor_kernel(std::size_t nnz, const index_t* __restrict__ col_idx, Values values,
                                    const T* __restrict__ x, T* __restrict__ sink, index_t rows,
                                    const index_t* __restrict__ row_ptr, T* __restrict__ y) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  T sum = 0;
  std::size_t k = global_thread();
  for (; k + 3 * stride < nnz; k += 4 * stride) {
    const index_t c0 = load_once(col_idx + k), c1 = load_once(col_idx + k + stride);
    const index_t c2 = load_once(col_idx + k + 2 * stride), c3 = load_once(col_idx + k + 3 * stride);
    const T v0 = values.once(k), v1 = values.once(k + stride), v2 = values.once(k + 2 * stride),
            v3 = values.once(k + 3 * stride);
    sum += v0 * load_x(x + c0) + v1 * load_x(x + c1) + v2 * load_x(x + c2) + v3 * load_x(x + c3);
  }
  for (; k < nnz; k += stride) sum += values.once(k) * load_x(x + load_once(col_idx + k));
  if constexpr (Rows)
    for (std::size_t r = global_thread(); r < static_cast<std::size_t>(rows); r += stride)
      y[r] = static_cast<T>(load_once(row_ptr + r + 1));
  if (sum == T(-1.2345e30)) *sink = sum;
}

}  // namespace

}  // namespace cuda::spmv

namespace {
cuda::device_buffer<unsigned char> l2_flush_buffer() {
  int device = 0, l2 = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return cuda::device_buffer<unsigned char>(2 * static_cast<std::size_t>(std::max(l2, 1 << 20)));
}
}  // namespace

template <class T>
gpu_timing time_spmv(const spmv_plan<T>& plan, T alpha, const T* d_x, T beta, T* d_y, int warmup,
                     int iterations, bool flush_l2) {
  cuda::device_buffer<unsigned char> flush;
  if (flush_l2) flush = l2_flush_buffer();
  return {cuda::time_calls([&] { plan.apply(alpha, d_x, beta, d_y); }, plan.stream(), warmup, iterations,
                           flush.data(), flush.bytes())};
}

template <class T>
gpu_timing time_gather_floor(const csr_matrix<T>& a, const T* d_x, int warmup, int iterations, bool flush_l2,
                             bool with_values, bool with_rows) {
  cuda::device_buffer<index_t> d_col(a.col_idx), d_row_ptr;
  cuda::device_buffer<T> d_values, d_y;
  if (with_values) d_values = cuda::device_buffer<T>(a.values);
  if (with_rows) {
    d_row_ptr = cuda::device_buffer<index_t>(a.row_ptr);
    d_y = cuda::device_buffer<T>(static_cast<std::size_t>(a.rows));
  }
  cuda::device_buffer<T> d_sink(1);
  cuda::device_buffer<unsigned char> flush;
  if (flush_l2) flush = l2_flush_buffer();
  int device = 0, sms = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t nnz = a.nnz();
  // Enough threads to fill the GPU (8 blocks of 256 per SM), fewer when there is little work.
  const unsigned grid = cuda::grid_for(std::max(nnz, static_cast<std::size_t>(with_rows ? a.rows : 0)), 256,
                                       static_cast<unsigned>(sms) * 8);
  const auto run = [&](auto values, auto rows) {
    cuda::spmv::gather_floor_kernel<T, decltype(values), decltype(rows)::value>
        <<<grid, 256>>>(nnz, d_col.data(), values, d_x, d_sink.data(), a.rows, d_row_ptr.data(), d_y.data());
  };
  auto launch = [&] {
    using with = std::true_type;
    using without = std::false_type;
    const cuda::spmv::matrix_values<T, true> read{d_values.data()};
    const cuda::spmv::matrix_values<T, false> none{nullptr};
    if (with_values)
      with_rows ? run(read, with{}) : run(read, without{});
    else
      with_rows ? run(none, with{}) : run(none, without{});
    PERRON_CUDA_CHECK_LAUNCH("gather_floor_kernel");
  };
  return {cuda::time_calls(launch, nullptr, warmup, iterations, flush.data(), flush.bytes())};
}

double copy_bandwidth_gbs(std::size_t bytes, int iterations) {
  if (bytes == 0 || iterations < 1)
    throw invalid_argument("copy_bandwidth_gbs: need bytes > 0 and iterations >= 1");
  cuda::device_buffer<unsigned char> src(bytes), dst(bytes);
  PERRON_CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
  PERRON_CUDA_CHECK(cudaMemcpy(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice));  // warm-up
  const std::vector<double> us = cuda::time_calls(
      [&] {
        PERRON_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, nullptr));
      },
      nullptr, 0, iterations);
  // Bytes read plus bytes written.
  return 2.0 * static_cast<double>(bytes) / (median(us) * 1e3);
}

template gpu_timing time_spmv(const spmv_plan<float>&, float, const float*, float, float*, int, int, bool);
template gpu_timing time_spmv(const spmv_plan<double>&, double, const double*, double, double*, int, int,
                              bool);
template gpu_timing time_gather_floor(const csr_matrix<float>&, const float*, int, int, bool, bool, bool);
template gpu_timing time_gather_floor(const csr_matrix<double>&, const double*, int, int, bool, bool, bool);

}  // namespace perron
