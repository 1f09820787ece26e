// Device-side building blocks of the vector operations and of the solvers'
// fused kernels (solvers/cuda/): 16-byte packed grid-stride loops; the
// reductions they end in are core/cuda/reduce.cuh's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/cuda/reduce.cuh"
#include "core/cuda/support.cuh"
#include "kernels/vector_ops.hpp"

namespace perron::cuda::detail {

// Blocks for a grid-stride pass over `items` work items (at least one block,
// at most what the reduction scratch can hold: enough to fill an H100).
inline int grid_for(std::size_t items) {
  return static_cast<int>(
      cuda::grid_for(items, block_size, static_cast<unsigned>(reduction_scratch::max_blocks)));
}

// 16 bytes of T: loads and stores of a pack compile to one 128-bit access.
template <class T>
constexpr int pack_width = 16 / sizeof(T);

template <class T, int W>
struct alignas(sizeof(T) * W) pack {
  T v[W];
};

template <int W, class T>
__device__ __forceinline__ pack<T, W> load_pack(const T* p) {
  return *reinterpret_cast<const pack<T, W>*>(p);
}
template <int W, class T>
__device__ __forceinline__ void store_pack(T* p, const pack<T, W>& v) {
  *reinterpret_cast<pack<T, W>*>(p) = v;
}

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// Grid-stride loop over [0, n) in packs of W elements: on_pack(i) handles
// elements i .. i+W-1 (i a multiple of W), on_scalar(i) the n % W tail.
template <int W, class PackF, class ScalarF>
__device__ __forceinline__ void grid_stride(std::size_t n, PackF on_pack, ScalarF on_scalar) {
  const std::size_t packs = n / W;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t tid = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t p = tid; p < packs; p += stride) on_pack(p * W);
  for (std::size_t i = packs * W + tid; i < n; i += stride) on_scalar(i);
}

}  // namespace perron::cuda::detail
