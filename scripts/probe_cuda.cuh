// What the GPU probes (scripts/*_probe.cu) share on the device side: a host
// vector's copy in device memory, and two float sums over a block. Each probe
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
