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
  double x = 0.0, y = 0.0;
  for (unsigned b = lane; b < gridDim.x; b += 32) {
    x += __ldcg(partials + 2 * b);
    y += __ldcg(partials + 2 * b + 1);
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

// The whole reduction for kernels whose every thread holds a pair: warp sums
// (a fixed shuffle tree), the warps' sums through shared memory, warp 0's sum,
// then close_grid_sums(). Every thread of every block must call it; true in
// exactly one thread of the grid (thread 0 of the last block).
template <int block_threads>
__device__ inline bool accumulate_grid(double2 local, pagerank_state* st, double2& totals) {
  constexpr unsigned full = 0xffffffffu;
  constexpr int warps = block_threads / 32;
  __shared__ double warp_x[warps], warp_y[warps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  double x = local.x, y = local.y;
  for (int off = 16; off > 0; off >>= 1) {
    x += __shfl_down_sync(full, x, off);
    y += __shfl_down_sync(full, y, off);
  }
  if (lane == 0) {
    warp_x[warp] = x;
    warp_y[warp] = y;
  }
  __syncthreads();
  if (warp != 0) return false;
  x = lane < warps ? warp_x[lane] : 0.0;
  y = lane < warps ? warp_y[lane] : 0.0;
  for (int off = 16; off > 0; off >>= 1) {
    x += __shfl_down_sync(full, x, off);
    y += __shfl_down_sync(full, y, off);
  }
  return close_grid_sums(make_double2(x, y), st, totals);
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
