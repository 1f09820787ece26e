// GPU timing for spmv-bench and the auto trial: per-call CUDA event pairs,
// calls queued behind a spin kernel so the GPU runs them back to back (host
// launch cost is then not in the samples), optional L2 flush between calls;
// the device-to-device copy bandwidth that the benchmark's percentages refer
// to; and the x-gather floor of a matrix.
#include <algorithm>
#include <vector>

#include "kernels/cuda/check.cuh"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/cuda/spmv_engine.cuh"
#include "kernels/error.hpp"
#include "kernels/spmv.hpp"

namespace perron {
namespace cuda::spmv {
namespace {

// Busy-waits `ns` nanoseconds of the GPU's global timer.
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

constexpr int timing_batch = 100;                         // calls queued behind one spin
constexpr unsigned long long spin_ns_per_call = 25000;    // generous host enqueue cost per call
constexpr unsigned long long spin_ns_base = 1000000;

// Only the column stream and one x gather per nonzero: the traffic every CSR
// kernel has beyond the value and row_ptr streams. The sum is written only if
// it equals an impossible value, so the loads cannot be dropped.
template <class T>
__global__ void gather_floor_kernel(std::size_t nnz, const index_t* __restrict__ col_idx, const T* __restrict__ x,
                                    T* __restrict__ sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  T sum = 0;
  std::size_t k = global_thread();
  for (; k + 3 * stride < nnz; k += 4 * stride) {
    const index_t c0 = load_stream(col_idx + k), c1 = load_stream(col_idx + k + stride);
    const index_t c2 = load_stream(col_idx + k + 2 * stride), c3 = load_stream(col_idx + k + 3 * stride);
    sum += load_x(x + c0) + load_x(x + c1) + load_x(x + c2) + load_x(x + c3);
  }
  for (; k < nnz; k += stride) sum += load_x(x + load_stream(col_idx + k));
  if (sum == T(-1.2345e30)) *sink = sum;
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2) return v[mid];
  const double upper = v[mid];
  return (upper + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
}

std::vector<double> time_calls(const std::function<void()>& launch, cudaStream_t s, int warmup, int iterations,
                               void* flush, std::size_t flush_bytes) {
  if (iterations < 1 || warmup < 0)
    throw invalid_argument("time_calls: need iterations >= 1 and warmup >= 0 (got " + std::to_string(iterations) +
                           ", " + std::to_string(warmup) + ")");
  for (int i = 0; i < warmup; ++i) launch();
  PERRON_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(iterations));
  std::vector<cuda_event> start(static_cast<std::size_t>(std::min(timing_batch, iterations)));
  std::vector<cuda_event> stop(start.size());
  for (int done = 0; done < iterations; done += timing_batch) {
    const int n = std::min(timing_batch, iterations - done);
    spin_kernel<<<1, 1, 0, s>>>(spin_ns_base + spin_ns_per_call * static_cast<unsigned long long>(n));
    PERRON_CUDA_CHECK_LAUNCH("spin_kernel");
    for (int i = 0; i < n; ++i) {
      if (flush_bytes > 0) PERRON_CUDA_CHECK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, s));
      PERRON_CUDA_CHECK(cudaEventRecord(start[i].get(), s));
      launch();
      PERRON_CUDA_CHECK(cudaEventRecord(stop[i].get(), s));
    }
    PERRON_CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) {
      float ms = 0;
      PERRON_CUDA_CHECK(cudaEventElapsedTime(&ms, start[i].get(), stop[i].get()));
      us.push_back(1000.0 * ms);
    }
  }
  return us;
}

}  // namespace cuda::spmv

double gpu_timing::median_us() const { return cuda::spmv::median(us); }

namespace {
cuda::device_buffer<unsigned char> l2_flush_buffer() {
  int device = 0, l2 = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return cuda::device_buffer<unsigned char>(2 * static_cast<std::size_t>(std::max(l2, 1 << 20)));
}
}  // namespace

template <class T>
gpu_timing time_spmv(const spmv_plan<T>& plan, T alpha, const T* d_x, T beta, T* d_y, int warmup, int iterations,
                     bool flush_l2) {
  cuda::device_buffer<unsigned char> flush;
  if (flush_l2) flush = l2_flush_buffer();
  return {cuda::spmv::time_calls([&] { plan.apply(alpha, d_x, beta, d_y); }, plan.stream(), warmup, iterations,
                                 flush.data(), flush.bytes())};
}

template <class T>
gpu_timing time_gather_floor(const csr_matrix<T>& a, const T* d_x, int warmup, int iterations, bool flush_l2) {
  cuda::device_buffer<index_t> d_col(a.col_idx);
  cuda::device_buffer<T> d_sink(1);
  cuda::device_buffer<unsigned char> flush;
  if (flush_l2) flush = l2_flush_buffer();
  int device = 0, sms = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t nnz = a.nnz();
  // Enough threads to fill the GPU (8 blocks of 256 per SM), fewer when there is little work.
  const unsigned grid = std::max<unsigned>(
      1, static_cast<unsigned>(std::min<std::size_t>(static_cast<std::size_t>(sms) * 8, (nnz + 255) / 256)));
  auto launch = [&] {
    cuda::spmv::gather_floor_kernel<T><<<grid, 256>>>(nnz, d_col.data(), d_x, d_sink.data());
    PERRON_CUDA_CHECK_LAUNCH("gather_floor_kernel");
  };
  return {cuda::spmv::time_calls(launch, nullptr, warmup, iterations, flush.data(), flush.bytes())};
}

double copy_bandwidth_gbs(std::size_t bytes, int iterations) {
  if (bytes == 0 || iterations < 1) throw invalid_argument("copy_bandwidth_gbs: need bytes > 0 and iterations >= 1");
  cuda::device_buffer<unsigned char> src(bytes), dst(bytes);
  PERRON_CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
  PERRON_CUDA_CHECK(cudaMemcpy(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice));  // warm-up
  const std::vector<double> us = cuda::spmv::time_calls(
      [&] { PERRON_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, nullptr)); },
      nullptr, 0, iterations);
  // Bytes read plus bytes written.
  return 2.0 * static_cast<double>(bytes) / (cuda::spmv::median(us) * 1e3);
}

template gpu_timing time_spmv(const spmv_plan<float>&, float, const float*, float, float*, int, int, bool);
template gpu_timing time_spmv(const spmv_plan<double>&, double, const double*, double, double*, int, int, bool);
template gpu_timing time_gather_floor(const csr_matrix<float>&, const float*, int, int, bool);
template gpu_timing time_gather_floor(const csr_matrix<double>&, const double*, int, int, bool);

}  // namespace perron
