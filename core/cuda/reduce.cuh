// The one deterministic reduction of perron's GPU code: every residual, dot
// product and norm goes through it.
//
// Every block reduces its values (warp shuffles, then one warp over the
// per-warp sums), writes them to scratch, and takes a ticket; the block holding
// the last ticket sums the partials in block order and hands the totals to a
// `finish` functor (thread 0), which stores them or derives solver scalars from
// them. No host round trip and no atomics on the values: the partials are
// combined in a fixed order, so the result is bitwise the same run to run
// whatever order the blocks ran in (for a fixed grid size).
#pragma once

#include <cuda_runtime.h>

#include "core/device.hpp"

namespace perron::cuda::detail {

constexpr int block_size = 256;
constexpr int warps_per_block = block_size / 32;

struct sum_op {
  __device__ static double identity() { return 0.0; }
  __device__ static double apply(double a, double b) { return a + b; }
};
// max that propagates NaN (fmax would drop it, and a diverged run would look converged).
struct max_nan_op {
  __device__ static double identity() { return 0.0; }
  __device__ static double apply(double a, double b) { return (a > b || a != a) ? a : b; }
};

// Reduces v[0..K) over a block of `threads` threads (a multiple of 32, at most
// 1024); the result is valid in thread 0.
template <int K, class Op, int threads = block_size>
__device__ __forceinline__ void block_reduce(double (&v)[K], double* smem /* K * threads / 32 */) {
  constexpr int warps = threads / 32;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  __syncthreads();  // smem may still be read from a previous call
#pragma unroll
  for (int k = 0; k < K; ++k) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v[k] = Op::apply(v[k], __shfl_down_sync(0xffffffffu, v[k], off));
    if (lane == 0) smem[k * warps + warp] = v[k];
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      v[k] = lane < warps ? smem[k * warps + lane] : Op::identity();
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) v[k] = Op::apply(v[k], __shfl_down_sync(0xffffffffu, v[k], off));
    }
  }
}

// Grid-wide reduction of v[0..K) (each thread's contribution) over a grid of
// at most reduction_scratch::max_blocks blocks of `threads` threads. The last
// block to finish calls finish(totals) in its thread 0 and re-arms the counter.
// Must be reached by every thread of every block (no early return before it).
template <int K, class Op, int threads = block_size, class Finish>
__device__ __forceinline__ void grid_reduce(double (&v)[K], double* partials, unsigned* counter,
                                            Finish finish) {
  static_assert(K <= reduction_scratch::max_values, "too many simultaneous reductions");
  __shared__ double smem[K * (threads / 32)];
  __shared__ bool last;
  block_reduce<K, Op, threads>(v, smem);
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
  block_reduce<K, Op, threads>(t, smem);
  if (threadIdx.x == 0) {
    finish(t);
    *counter = 0u;
  }
}

// ---- order-independent sums of small non-negative terms ------------------
// A non-negative double as a 64-bit count of 2^-60: integer addition is
// associative, so a sum of these is the same bits in any order of its terms.
// For kernels whose threads take work dynamically (the fused PageRank pull),
// where the fixed-order reductions above cannot fix which thread adds what.
// Valid while every partial sum stays below 16 (probability masses and L1
// distances of distributions: at most 2); each term is rounded by at most
// 2^-61 (4.3e-19), the same order as a double's rounding of a sum near 1e-3.
using fixed60 = unsigned long long;

__device__ __forceinline__ fixed60 to_fixed60(double x) { return __double2ull_rn(x * 0x1p60); }
__device__ __forceinline__ double from_fixed60(fixed60 v) { return static_cast<double>(v) * 0x1p-60; }

// The same count for terms of either sign, in two's complement: the words
// add as unsigned integers (wrapping, still associative) and the total reads
// back as signed. Valid while every partial sum stays within +-8. For masses
// that can hold negative terms: an extrapolated iterate's entries can be
// below 0, and to_fixed60 reads a negative term as 0 (its dangling mass then
// gained what the negative entries held: 3.2e-3 after the first rre
// extrapolation of wb-cs-stanford personalized at alpha 0.999, whose GPU
// solves took 772-2672 steps where the CPU's, the true steps, take 12146).
__device__ __forceinline__ fixed60 to_fixed60_signed(double x) {
  return static_cast<fixed60>(__double2ll_rn(x * 0x1p60));
}
__device__ __forceinline__ double from_fixed60_signed(fixed60 v) {
  return static_cast<double>(static_cast<long long>(v)) * 0x1p-60;
}

}  // namespace perron::cuda::detail
