// Device side shared by the two GPU PageRank steps (pagerank.cu: SpMV plan +
// update kernel; pagerank_fused.cu: the fused pattern pull): the state a solve
// keeps in device memory, the deterministic grid-wide reduction that closes a
// step without a second launch, and the step's closing logic.
#pragma once

#include <cuda_runtime.h>

#include "core/cuda/reduce.cuh"

namespace perron::pagerank_gpu {

// Device-resident state of one solve. The host writes all of it once before a
// solve and reads it back at checks; in between only the device touches it.
struct pagerank_state {
  // parameters of this solve
  double alpha;
  double tol;
  int max_iter;
  int personalized;     // v read from d_v; else uniform 1/n
  int report_progress;  // write (iteration, residual) to mapped host memory every step
  // the iteration
  int iteration;  // k: steps completed
  int done;       // converged or at max_iter: later update launches are no-ops
  int converged;
  double dangling;  // sum_{j dangling} r_k(j)
  double residual;  // ||r_k - r_{k-1}||_1
  // grid-reduction scratch: 2 doubles per block of the widest grid launched
  // (reduction_partials()), and the ticket counter, zero between launches
  double* partials;
  unsigned int blocks_done;
};

// Doubles of pagerank_state::partials for grids of up to `blocks` blocks.
constexpr std::size_t reduction_partials(unsigned blocks) { return 2 * static_cast<std::size_t>(blocks); }

// Written by the device in mapped pinned host memory, polled by the host for the
// progress line while it waits (never a synchronization).
struct pagerank_progress {
  int iteration;
  double residual;
};

// Sums (residual, dangling) over the grid deterministically, the scheme of
// core/cuda/reduce.cuh: each block's pair goes to its own slot of st->partials
// (indexed by blockIdx.x, so any grid up to the partials' size works) and the
// block takes a ticket; the block with the last ticket adds the slots in a
// fixed order, so the totals are the same bits whatever order the blocks ran
// in. This is the closing half, run by warp 0 of every block with the block's
// pair in lane 0; it returns true in lane 0 of the last block, with the totals.
// Warp 0 alone does it, so a step pays one block-wide barrier for its sums.
__device__ inline bool close_grid_sums(double2 block_sums, pagerank_state* st, double2& totals) {
  constexpr unsigned full = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  double* partials = st->partials;
  unsigned last = 0;
  if (lane == 0) {
    partials[2 * blockIdx.x] = block_sums.x;
    partials[2 * blockIdx.x + 1] = block_sums.y;
    __threadfence();  // the slot visible device-wide before the ticket is taken
    last = atomicAdd(&st->blocks_done, 1u) == gridDim.x - 1;
  }
  if (!__shfl_sync(full, last, 0)) return false;
  __threadfence();
  // Lane l adds slots l, l + 32, ... in order, then a fixed tree to lane 0.
  // The slots of up to 8 rounds are loaded before the first add: one L2
  // round trip for the grids of one or two blocks per SM, not one per round
  // (this sum is on every step's critical path).
  constexpr int rounds = 8;
  double x = 0.0, y = 0.0;
  for (unsigned base = 0; base < gridDim.x; base += 32 * rounds) {
    double px[rounds], py[rounds];
#pragma unroll
    for (int j = 0; j < rounds; ++j) {
      const unsigned b = base + 32 * j + lane;
      px[j] = b < gridDim.x ? __ldcg(partials + 2 * b) : 0.0;
      py[j] = b < gridDim.x ? __ldcg(partials + 2 * b + 1) : 0.0;
    }
#pragma unroll
    for (int j = 0; j < rounds; ++j) {
      x += px[j];
      y += py[j];
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    x += __shfl_down_sync(full, x, off);
    y += __shfl_down_sync(full, y, off);
  }
  if (lane != 0) return false;
  st->blocks_done = 0;
  totals = make_double2(x, y);
  return true;
}

// The whole reduction for kernels whose every thread holds a pair and whose
// grids are large (the SpMV pull's update: up to 8 blocks per SM): warp sums
// (a fixed shuffle tree), the warps' sums through shared memory, the block's
// slot and ticket; in the last block every thread loads its share of the
// slots at once and the block sums them in a fixed order. Every thread of
// every block must call it; true in exactly one thread of the grid (thread 0
// of the last block), with the totals.
template <int block_threads>
__device__ inline bool accumulate_grid(double2 local, pagerank_state* st, double2& totals) {
  constexpr unsigned full = 0xffffffffu;
  constexpr int warps = block_threads / 32;
  __shared__ double warp_x[warps], warp_y[warps];
  __shared__ int last;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const auto block_sum = [&](double& x, double& y) {  // valid in thread 0
    for (int off = 16; off > 0; off >>= 1) {
      x += __shfl_down_sync(full, x, off);
      y += __shfl_down_sync(full, y, off);
    }
    if (lane == 0) {
      warp_x[warp] = x;
      warp_y[warp] = y;
    }
    __syncthreads();
    x = lane < warps ? warp_x[lane] : 0.0;
    y = lane < warps ? warp_y[lane] : 0.0;
    for (int off = 16; off > 0; off >>= 1) {
      x += __shfl_down_sync(full, x, off);
      y += __shfl_down_sync(full, y, off);
    }
  };
  double x = local.x, y = local.y;
  block_sum(x, y);
  double* partials = st->partials;
  if (threadIdx.x == 0) {
    partials[2 * blockIdx.x] = x;
    partials[2 * blockIdx.x + 1] = y;
    __threadfence();  // the slot visible device-wide before the ticket is taken
    last = atomicAdd(&st->blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();
  // Thread t adds slots t, t + block_threads, ... in order (up to 8 loads in
  // flight), then the same fixed block sum.
  constexpr int rounds = 8;
  x = 0.0;
  y = 0.0;
  for (unsigned base = 0; base < gridDim.x; base += block_threads * rounds) {
    double px[rounds], py[rounds];
#pragma unroll
    for (int j = 0; j < rounds; ++j) {
      const unsigned b = base + block_threads * j + threadIdx.x;
      px[j] = b < gridDim.x ? __ldcg(partials + 2 * b) : 0.0;
      py[j] = b < gridDim.x ? __ldcg(partials + 2 * b + 1) : 0.0;
    }
#pragma unroll
    for (int j = 0; j < rounds; ++j) {
      x += px[j];
      y += py[j];
    }
  }
  __syncthreads();  // warp_x / warp_y are read above by warp 0 of this block
  block_sum(x, y);
  if (threadIdx.x != 0) return false;
  st->blocks_done = 0;
  totals = make_double2(x, y);
  return true;
}

// Closes the start of a solve in the thread accumulate_grid() elected: the
// dangling mass of r_0 becomes the state's.
__device__ inline void close_init(pagerank_state* st, double2 totals) { st->dangling = totals.y; }

// Closes step k -> k+1 in the thread accumulate_grid() elected: publishes the
// residual and the dangling mass, counts the step and decides whether the
// loop goes on (the state's done flag, and the WHILE node's condition when
// set_condition).
__device__ inline void close_step(pagerank_state* st, double2 totals, pagerank_progress* progress,
                                  cudaGraphConditionalHandle handle, int set_condition) {
  const double residual = totals.x;
  st->dangling = totals.y;
  const int k = st->iteration + 1;
  st->iteration = k;
  st->residual = residual;
  const bool converged = residual < st->tol;
  const bool stop = converged || k >= st->max_iter;
  st->converged = converged;
  st->done = stop;
  if (st->report_progress) {
    volatile pagerank_progress* p = progress;
    p->residual = residual;
    p->iteration = k;
  }
  if (set_condition) cudaGraphSetConditional(handle, stop ? 0u : 1u);
}

}  // namespace perron::pagerank_gpu
