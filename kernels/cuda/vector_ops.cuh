// Device-side building blocks of the vector operations and of the solvers'
// fused kernels (solvers/cuda/): 16-byte packed grid-stride loops and a
// deterministic grid reduction in double that finishes on the device.
//
// Grid reduction: every block reduces its values (warp shuffles, then one
// warp over the per-warp sums), writes them to scratch, and takes a ticket;
// the block holding the last ticket sums the partials in block order and hands
// the totals to a `finish` functor (thread 0), which stores them or derives
// solver scalars from them. No host round trip, no atomics on the values, so
// the result does not depend on block scheduling.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/vector_ops.hpp"

namespace perron::cuda::detail {

constexpr int block_size = 256;
constexpr int warps_per_block = block_size / 32;

// Blocks for a grid-stride pass over `items` work items (at least one block,
// at most what the reduction scratch can hold: enough to fill an H100).
inline int grid_for(std::size_t items) {
  const std::size_t blocks = (items + block_size - 1) / block_size;
  if (blocks < 1) return 1;
  return blocks > std::size_t(reduction_scratch::max_blocks) ? reduction_scratch::max_blocks
                                                             : static_cast<int>(blocks);
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

struct sum_op {
  __device__ static double identity() { return 0.0; }
  __device__ static double apply(double a, double b) { return a + b; }
};
// max that propagates NaN (fmax would drop it, and a diverged run would look converged).
struct max_nan_op {
  __device__ static double identity() { return 0.0; }
  __device__ static double apply(double a, double b) { return (a > b || a != a) ? a : b; }
};

// Reduces v[0..K) over the block; the result is valid in thread 0.
template <int K, class Op>
__device__ __forceinline__ void block_reduce(double (&v)[K], double* smem /* K * warps_per_block */) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  __syncthreads();  // smem may still be read from a previous call
#pragma unroll
  for (int k = 0; k < K; ++k) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v[k] = Op::apply(v[k], __shfl_down_sync(0xffffffffu, v[k], off));
    if (lane == 0) smem[k * warps_per_block + warp] = v[k];
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      v[k] = lane < warps_per_block ? smem[k * warps_per_block + lane] : Op::identity();
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) v[k] = Op::apply(v[k], __shfl_down_sync(0xffffffffu, v[k], off));
    }
  }
}

// Grid-wide reduction of v[0..K) (each thread's contribution). The last block
// to finish calls finish(totals) in its thread 0 and re-arms the counter.
// Must be reached by every thread of every block (no early return before it).
template <int K, class Op, class Finish>
__device__ __forceinline__ void grid_reduce(double (&v)[K], double* partials, unsigned* counter,
                                            Finish finish) {
  static_assert(K <= reduction_scratch::max_values, "too many simultaneous reductions");
  __shared__ double smem[K * warps_per_block];
  __shared__ bool last;
  block_reduce<K, Op>(v, smem);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) partials[k * reduction_scratch::max_blocks + blockIdx.x] = v[k];
    __threadfence();  // partials visible device-wide before the ticket is taken
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  double t[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    t[k] = Op::identity();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
      t[k] = Op::apply(t[k], __ldcg(partials + k * reduction_scratch::max_blocks + b));
  }
  block_reduce<K, Op>(t, smem);
  if (threadIdx.x == 0) {
    finish(t);
    *counter = 0u;
  }
}

}  // namespace perron::cuda::detail
