// GPU timing for spmv-bench: per-launch CUDA event pairs, launches queued
// behind a spin kernel so the GPU runs them back to back (host launch cost is
// then not in the samples), optional L2 flush between launches; and the
// device-to-device copy bandwidth that the benchmark's percentages refer to.
#include <algorithm>
#include <vector>

#include "kernels/cuda/check.cuh"
#include "kernels/cuda/spmv_engine.cuh"
#include "kernels/error.hpp"
#include "kernels/spmv.hpp"

namespace perron {
namespace {

// Busy-waits `ns` nanoseconds of the GPU's global timer.
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

constexpr int timing_batch = 100;                     // launches queued behind one spin
constexpr unsigned long long spin_ns_per_launch = 25000;  // generous host enqueue cost per launch
constexpr unsigned long long spin_ns_base = 1000000;

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2) return v[mid];
  const double upper = v[mid];
  return (upper + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
}

}  // namespace

double gpu_timing::median_us() const { return median_of(us); }

template <class T>
gpu_timing time_spmv(const spmv_plan<T>& plan, T alpha, const T* d_x, T beta, T* d_y, int warmup, int iterations,
                     bool flush_l2) {
  if (iterations < 1 || warmup < 0)
    throw invalid_argument("time_spmv: need iterations >= 1 and warmup >= 0 (got " + std::to_string(iterations) +
                           ", " + std::to_string(warmup) + ")");
  const cudaStream_t s = plan.stream();
  cuda::device_buffer<unsigned char> scratch;
  if (flush_l2) {
    int device = 0, l2 = 0;
    PERRON_CUDA_CHECK(cudaGetDevice(&device));
    PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    scratch = cuda::device_buffer<unsigned char>(2 * static_cast<std::size_t>(std::max(l2, 1 << 20)));
  }
  for (int i = 0; i < warmup; ++i) plan.apply(alpha, d_x, beta, d_y);
  PERRON_CUDA_CHECK(cudaStreamSynchronize(s));

  gpu_timing t;
  t.us.reserve(static_cast<std::size_t>(iterations));
  std::vector<cuda::spmv::cuda_event> start(timing_batch), stop(timing_batch);
  for (int done = 0; done < iterations; done += timing_batch) {
    const int n = std::min(timing_batch, iterations - done);
    spin_kernel<<<1, 1, 0, s>>>(spin_ns_base + spin_ns_per_launch * static_cast<unsigned long long>(n));
    PERRON_CUDA_CHECK_LAUNCH("spin_kernel");
    for (int i = 0; i < n; ++i) {
      if (flush_l2) PERRON_CUDA_CHECK(cudaMemsetAsync(scratch.data(), i & 0xff, scratch.bytes(), s));
      PERRON_CUDA_CHECK(cudaEventRecord(start[i].get(), s));
      plan.apply(alpha, d_x, beta, d_y);
      PERRON_CUDA_CHECK(cudaEventRecord(stop[i].get(), s));
    }
    PERRON_CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) {
      float ms = 0;
      PERRON_CUDA_CHECK(cudaEventElapsedTime(&ms, start[i].get(), stop[i].get()));
      t.us.push_back(1000.0 * ms);
    }
  }
  return t;
}

double copy_bandwidth_gbs(std::size_t bytes, int iterations) {
  if (bytes == 0 || iterations < 1) throw invalid_argument("copy_bandwidth_gbs: need bytes > 0 and iterations >= 1");
  cuda::device_buffer<unsigned char> src(bytes), dst(bytes);
  PERRON_CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
  PERRON_CUDA_CHECK(cudaMemcpy(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice));  // warm-up
  cuda::spmv::cuda_event start, stop;
  std::vector<double> us;
  for (int i = 0; i < iterations; ++i) {
    PERRON_CUDA_CHECK(cudaEventRecord(start.get(), nullptr));
    PERRON_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, nullptr));
    PERRON_CUDA_CHECK(cudaEventRecord(stop.get(), nullptr));
    PERRON_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0;
    PERRON_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    us.push_back(1000.0 * ms);
  }
  // Bytes read plus bytes written.
  return 2.0 * static_cast<double>(bytes) / (median_of(us) * 1e3);
}

template gpu_timing time_spmv(const spmv_plan<float>&, float, const float*, float, float*, int, int, bool);
template gpu_timing time_spmv(const spmv_plan<double>&, double, const double*, double, double*, int, int, bool);

}  // namespace perron
