// Device helpers shared by the SpMV kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "core/formats.hpp"

namespace perron::cuda::spmv {

constexpr unsigned full_mask = 0xffffffffu;

// The matrix streams. A warp that reads 32 consecutive entries of col_idx or
// values in one instruction takes whole 128-byte lines that no one reads
// again in this SpMV: load_once reads them evict-first (ld.global.cs) in L1
// and L2, so that where x does not fit in L2 beside the streams its lines
// stay longer (x is gathered and reused: load_x). load_stream keeps the
// normal policy for reads whose line is read again soon: row_ptr (a row's end
// is the next row's start) and a thread walking its own row (csr-scalar,
// csr-cached), where evict-first loses the line between the thread's steps
// (measured: docs/PERFORMANCE.md, "Streams read once, evicted first").
template <class T>
__device__ __forceinline__ T load_once(const T* p) {
  return __ldcs(p);
}
template <class T>
__device__ __forceinline__ T load_stream(const T* p) {
  return __ldg(p);
}
// Where a kernel reads A's values: values[k]. A matrix whose nonzeros all hold
// one value v = 1 or -1 (a graph's adjacency, a pattern file) is run as the
// pattern with v folded into alpha (launch_with_values, spmv_engine.cuh),
// Read = false, so no value is loaded: of the bytes a CSR SpMV moves per
// nonzero (4 index + 4 or 8 value + the gather of x, a 32-byte L2 sector where
// columns are random + row_ptr and y over the row) the value's 4 or 8 go.
// y = (alpha v) (A_pattern x) has the bits of reading the values because v is
// +-1 (a product by it and the negation are exact); another v would round
// differently and could overflow where the products do not (|v| < 1 with x
// near the largest T), so those matrices are read as they are.
template <class T, bool Read>
struct matrix_values {
  const T* p;  // null when !Read
  template <class I>
  __device__ __forceinline__ T operator[](I k) const {
    if constexpr (Read)
      return load_stream(p + k);
    else
      return T(1);
  }
  // values[k] read by load_once (a warp's consecutive entries, read once).
  template <class I>
  __device__ __forceinline__ T once(I k) const {
    if constexpr (Read)
      return load_once(p + k);
    else
      return T(1);
  }
};

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
