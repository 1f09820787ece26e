// What the GPU probes (scripts/*_probe.cu) share on the device side: a host
// vector's copy in device memory, a median of CUDA-event timings, two float
// sums over a block and a grid barrier of a cooperative launch. Each probe
// is one file built by hand beside the GPU build (its header says how).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "core/cuda/check.cuh"

namespace perron::probe {

// h in fresh device memory (one element's worth when h is empty).
template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  PERRON_CUDA_CHECK(cudaMalloc(&d, std::max<std::size_t>(h.size(), 1) * sizeof(T)));
  if (!h.empty()) PERRON_CUDA_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// The median of `runs` timings (CUDA events on the default stream) of f(),
// after `warmup` untimed calls, in microseconds.
class event_timer {
 public:
  event_timer(int warmup, int runs) : warmup_(warmup), runs_(runs) {
    PERRON_CUDA_CHECK(cudaEventCreate(&a_));
    PERRON_CUDA_CHECK(cudaEventCreate(&b_));
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;
  ~event_timer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  template <class F>
  float median_us(F f) {
    for (int i = 0; i < warmup_; ++i) f();
    std::vector<float> v;
    for (int i = 0; i < runs_; ++i) {
      PERRON_CUDA_CHECK(cudaEventRecord(a_));
      f();
      PERRON_CUDA_CHECK(cudaEventRecord(b_));
      PERRON_CUDA_CHECK(cudaEventSynchronize(b_));
      float ms = 0;
      PERRON_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
      v.push_back(ms * 1e3f);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }

 private:
  int warmup_, runs_;
  cudaEvent_t a_, b_;
};

// A grid barrier for a cooperative launch: one release add a block on a
// counter that only grows, thread 0 spinning with acquire loads until it
// reaches target (the k-th barrier of G blocks waits for k G).
__device__ __forceinline__ void grid_barrier(unsigned* counter, unsigned target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");
    unsigned v;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
    } while (static_cast<int>(v - target) < 0);
  }
  __syncthreads();
}

// The block's sums of a and b, in thread 0 (a fixed order: warps by
// butterflies, then the warps' sums); every thread of the block calls it.
__device__ __forceinline__ float2 block_sum2(float a, float b) {
  __shared__ float sa[32], sb[32];
  for (int o = 16; o; o >>= 1) {
    a += __shfl_xor_sync(0xffffffffu, a, o);
    b += __shfl_xor_sync(0xffffffffu, b, o);
  }
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    sa[w] = a;
    sb[w] = b;
  }
  __syncthreads();
  if (w == 0) {
    a = lane < blockDim.x / 32 ? sa[lane] : 0.f;
    b = lane < blockDim.x / 32 ? sb[lane] : 0.f;
    for (int o = 16; o; o >>= 1) {
      a += __shfl_xor_sync(0xffffffffu, a, o);
      b += __shfl_xor_sync(0xffffffffu, b, o);
    }
  }
  __syncthreads();  // sa and sb free for the next call
  return make_float2(a, b);
}

}  // namespace perron::probe
