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
// core/cuda/reduce.cuh: each block reduces its pair (detail::block_reduce),
// writes it to its own slot of st->partials and takes a ticket; the block with
// the last ticket adds the slots in block order, so the totals are the same
// bits whatever order the blocks ran in. The slots are per launch (indexed by
// blockIdx.x), so any grid up to the partials' size works. Returns true in
// exactly one thread of the grid (thread 0 of the last block), with the totals
// in `totals`. Every thread of every block must call it.
template <int block_threads>
__device__ inline bool accumulate_grid(double2 local, pagerank_state* st, double2& totals) {
  using cuda::detail::block_reduce;
  using cuda::detail::sum_op;
  __shared__ double smem[2 * (block_threads / 32)];
  __shared__ bool last;
  double v[2] = {local.x, local.y};
  block_reduce<2, sum_op, block_threads>(v, smem);
  double* partials = st->partials;
  if (threadIdx.x == 0) {
    partials[2 * blockIdx.x] = v[0];
    partials[2 * blockIdx.x + 1] = v[1];
    __threadfence();  // the slot visible device-wide before the ticket is taken
    last = atomicAdd(&st->blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();
  double t[2] = {0.0, 0.0};
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    t[0] += __ldcg(partials + 2 * b);
    t[1] += __ldcg(partials + 2 * b + 1);
  }
  block_reduce<2, sum_op, block_threads>(t, smem);
  if (threadIdx.x != 0) return false;
  st->blocks_done = 0;
  totals = make_double2(t[0], t[1]);
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
