// Device side shared by the two GPU PageRank steps (pagerank.cu: SpMV plan +
// update kernel; pagerank_fused.cu: the fused pattern pull): the state a solve
// keeps in device memory, the deterministic grid-wide reduction that closes a
// step without a second launch, and the step's closing logic.
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>

#include "core/cuda/reduce.cuh"

namespace perron::pagerank_gpu {

// Device-resident state of one solve. The init kernel writes all of it at the
// start of a solve (solve_start) and the device publishes it to the host at
// checks and at the end (solve_out); in between only the device touches it.
struct pagerank_state {
  // parameters of this solve
  double alpha;
  double tol;
  int max_iter;
  int personalized;     // v read from d_v; else uniform 1/n
  int report_progress;  // write (iteration, residual) to mapped host memory every step (C > 1: at
                        // progress[k], k < C)
  // the iteration
  int iteration;  // k: steps completed
  int done;       // converged or at max_iter: later update launches are no-ops
  int converged;
  double dangling;  // sum_{j dangling} r_k(j)
  double residual;  // ||r_k - r_{k-1}||_1
  // grid-reduction scratch, zero between launches: the sums as counts of
  // 2^-60 (core/cuda/reduce.cuh fixed60) and the ticket counter
  unsigned long long residual_acc;
  unsigned long long dangling_acc;
  unsigned int blocks_done;
};

// Written by the device in mapped pinned host memory, polled by the host for the
// progress line while it waits (never a synchronization).
struct pagerank_progress {
  int iteration;
  double residual;
};

// Sums (residual, dangling) over the grid, the same bits every run: each
// block's pair (a sum in a fixed order within the block) becomes a count of
// 2^-60 (core/cuda/reduce.cuh fixed60) and is added to the state's
// accumulators with integer atomics, whose total does not depend on the order
// the blocks arrive in; the block with the last ticket reads it. The residual
// is non-negative and at most 2 (an L1 distance of distributions); the
// dangling mass, at most 1, is a signed count (to_fixed60_signed): after an
// extrapolation a block's dangling entries can sum below 0.
// Called by one thread per block (thread 0); true in the last block's.
__device__ inline bool close_grid_sums(cuda::detail::fixed60 residual, cuda::detail::fixed60 dangling,
                                       pagerank_state* st, double2& totals) {
  using counter = ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>;
  counter(st->residual_acc).fetch_add(residual, ::cuda::memory_order_relaxed);
  counter(st->dangling_acc).fetch_add(dangling, ::cuda::memory_order_relaxed);
  // acq_rel: this block's adds before its ticket; the last ticket sees every add.
  const unsigned ticket = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>(st->blocks_done)
                              .fetch_add(1u, ::cuda::memory_order_acq_rel);
  if (ticket != gridDim.x - 1) return false;
  totals = make_double2(cuda::detail::from_fixed60(st->residual_acc),
                        cuda::detail::from_fixed60_signed(st->dangling_acc));
  st->residual_acc = 0;
  st->dangling_acc = 0;
  st->blocks_done = 0;
  return true;
}

// The whole reduction for kernels whose every thread holds a pair of doubles
// and whose work per thread is fixed: warp sums (a fixed shuffle tree), the
// warps' sums through shared memory, warp 0's sum, then close_grid_sums().
// Every thread of every block must call it; true in exactly one thread of the
// grid (thread 0 of the last block), with the totals.
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
  if (lane != 0) return false;
  return close_grid_sums(cuda::detail::to_fixed60(x), cuda::detail::to_fixed60_signed(y), st, totals);
}

// A solve's start, passed to its init kernel by value: the state's parameters
// (every other field zero) and device words the start zeroes (the
// extrapolation's state). No copy or memset precedes the init kernel: on the
// H200 a 100-byte host-to-device copy held the start of every solve 4-5 us
// (docs/PERFORMANCE.md, "One launch in, one kernel out").
struct solve_start {
  pagerank_state state{};
  unsigned long long* zero = nullptr;
  int zero_words = 0;
};

// Where a check or the end of a solve leaves the state for the host: mapped
// pinned memory that a kernel writes itself (a device-to-host copy costs 3-8
// us on the copy engine), with device words copied beside it (the
// extrapolation's counters). state == nullptr: nothing to publish.
struct solve_out {
  pagerank_state* state = nullptr;
  const unsigned long long* extra = nullptr;
  unsigned long long* extra_out = nullptr;
  int extra_words = 0;
};

// The words of a trivially copyable device struct, for solve_start::zero and solve_out.
template <class S>
constexpr int words_of() {
  static_assert(sizeof(S) % sizeof(unsigned long long) == 0, "a struct of 8-byte words");
  return static_cast<int>(sizeof(S) / sizeof(unsigned long long));
}

// Closes the start of a solve in the thread accumulate_grid() elected: the
// parameters and the dangling mass of r_0 become the state (close_grid_sums
// has just zeroed the accumulators; start's are zero too).
__device__ inline void close_init(pagerank_state* st, double2 totals, const solve_start& start) {
  pagerank_state s = start.state;
  s.dangling = totals.y;
  *st = s;
  for (int w = 0; w < start.zero_words; ++w) start.zero[w] = 0;
}

// Programmatic dependent launch (sm_90): a kernel launched with programmatic
// stream serialization may start while the kernel before it in the stream is
// still running; it waits here, before its first read of anything that
// kernel wrote (a no-op for a kernel launched without it, and before sm_90).
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
// The other side: this grid lets the kernel after it (launched with
// programmatic stream serialization) be scheduled before it ends, each of
// its blocks once every block of this grid has called it or ended. Only for
// grids whose blocks are all resident from the start (the cooperative
// persistent kernel), so that the next kernel's blocks never hold an SM
// a block of this grid still needs.
__device__ __forceinline__ void let_next_grid_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// One thread: the state (after the kernels before this one) to the host.
__device__ inline void publish_state(const pagerank_state* st, const solve_out& o) {
  if (!o.state) return;
  *o.state = *st;
  for (int w = 0; w < o.extra_words; ++w) o.extra_out[w] = o.extra[w];
}

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
  if (st->report_progress) {  // C > 1: a record a step, step k's at progress[k] for k < C (the trials')
    volatile pagerank_progress* p = progress + (k < st->report_progress ? k : 0);
    p->residual = residual;
    p->iteration = k;
  }
  if (set_condition) cudaGraphSetConditional(handle, stop ? 0u : 1u);
}

}  // namespace perron::pagerank_gpu
