// Device helpers shared by the SpMV kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "core/formats.hpp"

namespace perron::cuda::spmv {

constexpr unsigned full_mask = 0xffffffffu;

// The matrix streams (row_ptr, col_idx, values): read-only cached path by
// default. Each nonzero is read once per SpMV, so evict-first loads (__ldcs)
// are the alternative worth timing; flip this constant to try them.
constexpr bool stream_evict_first = false;
template <class T>
__device__ __forceinline__ T load_stream(const T* p) {
  if constexpr (stream_evict_first)
    return __ldcs(p);
  else
    return __ldg(p);
}
// x is gathered and reused across rows: read-only cached path.
template <class T>
__device__ __forceinline__ T load_x(const T* p) {
  return __ldg(p);
}

// y_r = alpha * (A x)_r + beta * y_r. With beta == 0, y is write-only: its
// old value (even NaN) must not reach the result, so it is not read at all.
template <class T>
__device__ __forceinline__ void store_y(T* y, std::size_t r, T alpha, T ax, T beta) {
  y[r] = beta == T(0) ? alpha * ax : alpha * ax + beta * y[r];
}

// Sum over groups of Width consecutive lanes (Width a power of two <= 32);
// the total lands in each group's first lane. Every lane of the warp calls it.
template <int Width, class T>
__device__ __forceinline__ T group_sum(T v) {
#pragma unroll
  for (int offset = Width / 2; offset > 0; offset /= 2) v += __shfl_down_sync(full_mask, v, offset, Width);
  return v;
}

// Same with a run-time width (uniform across the warp).
template <class T>
__device__ __forceinline__ T group_sum(T v, int width) {
  for (int offset = width / 2; offset > 0; offset /= 2) v += __shfl_down_sync(full_mask, v, offset, width);
  return v;
}

// Global index of this thread (64-bit: rows * lanes can exceed 2^32).
__device__ __forceinline__ std::size_t global_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

}  // namespace perron::cuda::spmv
