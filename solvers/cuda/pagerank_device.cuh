// Device side shared by the two GPU PageRank steps (pagerank.cu: SpMV plan +
// update kernel; pagerank_fused.cu: the fused pattern pull): the state a solve
// keeps in device memory, the grid-wide reduction that closes a step without a
// second launch, and the step's closing logic.
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>

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
  // grid-reduction scratch, zero between launches
  double residual_acc;
  double dangling_acc;
  unsigned int blocks_done;
};

// Written by the device in mapped pinned host memory, polled by the host for the
// progress line while it waits (never a synchronization).
struct pagerank_progress {
  int iteration;
  double residual;
};

// Adds this block's (residual, dangling) sums to the state's accumulators.
// Returns true in exactly one thread of the whole grid: thread 0 of the last
// block to arrive, which then sees every block's contribution (the relaxed adds
// precede each block's release on the ticket; the last ticket is an acquire).
template <int block_threads>
__device__ inline bool accumulate_grid(double2 local, pagerank_state* st) {
  // Block sum of both components: shuffles within each warp, the warps' sums
  // through shared memory, shuffles again in warp 0. Valid in thread 0.
  // (Two arrays of double rather than one of double2: compute-sanitizer's
  // racecheck reported the 16-byte shared accesses across the barrier below.)
  constexpr int warps = block_threads / 32;
  __shared__ double warp_sum_x[warps], warp_sum_y[warps];
  double2 sum = local;
  for (int offset = 16; offset > 0; offset >>= 1) {
    sum.x += __shfl_down_sync(0xffffffffu, sum.x, offset);
    sum.y += __shfl_down_sync(0xffffffffu, sum.y, offset);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) {
    warp_sum_x[warp] = sum.x;
    warp_sum_y[warp] = sum.y;
  }
  __syncthreads();
  if (warp != 0) return false;
  sum = lane < warps ? make_double2(warp_sum_x[lane], warp_sum_y[lane]) : make_double2(0.0, 0.0);
  for (int offset = 16; offset > 0; offset >>= 1) {
    sum.x += __shfl_down_sync(0xffffffffu, sum.x, offset);
    sum.y += __shfl_down_sync(0xffffffffu, sum.y, offset);
  }
  if (threadIdx.x != 0) return false;
  ::cuda::atomic_ref<double, ::cuda::thread_scope_device>(st->residual_acc)
      .fetch_add(sum.x, ::cuda::memory_order_relaxed);
  ::cuda::atomic_ref<double, ::cuda::thread_scope_device>(st->dangling_acc)
      .fetch_add(sum.y, ::cuda::memory_order_relaxed);
  const unsigned ticket = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>(st->blocks_done)
                              .fetch_add(1u, ::cuda::memory_order_acq_rel);
  return ticket == gridDim.x - 1;
}

// Closes the start of a solve in the thread accumulate_grid() elected: the
// dangling mass of r_0 becomes the state's, the accumulators are reset.
__device__ inline void close_init(pagerank_state* st) {
  st->dangling = st->dangling_acc;
  st->dangling_acc = 0.0;
  st->residual_acc = 0.0;
  st->blocks_done = 0;
}

// Closes step k -> k+1 in the thread accumulate_grid() elected: publishes the
// residual and the dangling mass, resets the accumulators, counts the step and
// decides whether the loop goes on (the state's done flag, and the WHILE
// node's condition when set_condition).
__device__ inline void close_step(pagerank_state* st, pagerank_progress* progress,
                                  cudaGraphConditionalHandle handle, int set_condition) {
  const double residual = st->residual_acc;
  st->dangling = st->dangling_acc;
  st->residual_acc = 0.0;
  st->dangling_acc = 0.0;
  st->blocks_done = 0;
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
