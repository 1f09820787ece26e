// The CUDA support layer's out-of-line parts (core/cuda/support.cuh).
#include <algorithm>
#include <limits>
#include <string>

#include "core/cuda/support.cuh"
#include "core/error.hpp"

namespace perron::cuda {
namespace {

// Busy-waits `ns` nanoseconds of the GPU's global timer.
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// The spin must outlast the host's enqueueing of the calls queued behind it.
constexpr int timing_batch = 100;                       // calls queued behind one spin
constexpr unsigned long long spin_ns_per_call = 25000;  // generous host enqueue cost per call
constexpr unsigned long long spin_ns_base = 1000000;

}  // namespace

unsigned grid_for(std::size_t threads, unsigned block, const char* what) {
  const std::size_t blocks = std::max<std::size_t>(1, (threads + block - 1) / block);
  if (blocks > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw dimension_error(std::string(what) + ": " + std::to_string(blocks) +
                          " thread blocks exceed the CUDA grid limit 2^31 - 1");
  return static_cast<unsigned>(blocks);
}

unsigned grid_for(std::size_t threads, unsigned block, unsigned max_blocks) {
  const std::size_t blocks = std::max<std::size_t>(1, (threads + block - 1) / block);
  return static_cast<unsigned>(std::min<std::size_t>(blocks, std::max(1u, max_blocks)));
}

bool event::done() const {
  const cudaError_t e = cudaEventQuery(e_);
  if (e == cudaErrorNotReady) return false;
  PERRON_CUDA_CHECK(e);
  return true;
}

std::vector<double> time_calls(const std::function<void()>& launch, cudaStream_t s, int warmup,
                               int iterations, void* flush, std::size_t flush_bytes) {
  if (iterations < 1 || warmup < 0)
    throw invalid_argument("time_calls: need iterations >= 1 and warmup >= 0 (got " +
                           std::to_string(iterations) + ", " + std::to_string(warmup) + ")");
  for (int i = 0; i < warmup; ++i) launch();
  PERRON_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(iterations));
  std::vector<event> start(static_cast<std::size_t>(std::min(timing_batch, iterations)));
  std::vector<event> stop(start.size());
  for (int done = 0; done < iterations; done += timing_batch) {
    const int n = std::min(timing_batch, iterations - done);
    spin_kernel<<<1, 1, 0, s>>>(spin_ns_base + spin_ns_per_call * static_cast<unsigned long long>(n));
    PERRON_CUDA_CHECK_LAUNCH("spin_kernel");
    for (int i = 0; i < n; ++i) {
      if (flush_bytes > 0) PERRON_CUDA_CHECK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, s));
      start[i].record(s);
      launch();
      stop[i].record(s);
    }
    PERRON_CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) us.push_back(1000.0 * stop[i].ms_since(start[i]));
  }
  return us;
}

}  // namespace perron::cuda
