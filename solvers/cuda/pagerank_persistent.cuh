// The persistent pull: the whole PageRank solve in one cooperative kernel.
//
// The fused pull (pagerank_fused.cuh) costs one launch per step; inside a
// CUDA graph's WHILE loop a step still pays a device-side relaunch and a
// drain of the grid, a few microseconds that dominate on small graphs (the
// step's own work there is a few L2 round trips). This kernel is launched
// once per solve with one block of 1024 threads per SM (a cooperative launch:
// every block resident at once) and loops over the steps itself:
//
//   for k = 0, 1, ...:
//     x_{k+1} = the fused step's pull and update over the block's slices
//               (the same layout and per-slice work, pagerank_fused_slices.cuh),
//               residual and dangling terms summed per block in 2^-60 counts;
//     block sums added to slot k mod 3 (integer atomics: order-free);
//     grid-wide barrier (cooperative_groups grid sync: every write of step k
//               visible to every block after it);
//     every block reads slot k mod 3: the same residual and dangling mass
//               bits everywhere, so every block takes the same stop decision
//               (residual < tol or k + 1 = max_iter) without another barrier;
//     block 0 publishes the state (iteration, residual, progress) and clears
//               slot (k + 2) mod 3, last read before this barrier and next
//               added to after the following one.
//
// One barrier per step; x alternates between the fused pull's two buffers, so
// a step never writes what another block may still read. The host launches
// the init kernel, this kernel and the rank copy, and waits once.
//
// Two modes, chosen by a short trial. Streamed: the loop above, each step
// reading the block's slices (links, rows, lengths) from L2 with a shared
// counter handing them to warps. Resident (where they fit in shared memory,
// up to about 5 M links on an H100): each block copies its slices into
// shared memory once per launch and each warp takes the same slices every
// step, so a step's critical path is the gathers of x (through L1), the row
// updates, the block sums and the barrier; the previous step's sums are read
// while the gathers are in flight, and the stop decision waits for them only
// before the first write; the grid is as small as one slice per warp allows,
// which makes the barrier cheaper on small graphs.
//
// Deterministic: a row's sum has a fixed order (the fused pull's), and the
// residual and dangling sums are integers, so a solve gives the same bits on
// every run whatever order the blocks ran in.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/cuda/reduce.cuh"
#include "core/device.hpp"
#include "solvers/cuda/pagerank_device.cuh"
#include "solvers/cuda/pagerank_fused.cuh"

namespace perron::pagerank_gpu {

template <class T>
class persistent_pull {
 public:
  // Runs `fused`'s steps (its layout, init and rank kernels stay fused's; it
  // must outlive this object) in one cooperative launch on `stream`, in the
  // mode (resident or streamed, grid, hub size) that solves fastest (a short
  // timed trial). cuda_error when the device has no cooperative launch or
  // cannot hold a block on every SM.
  persistent_pull(fused_pull<T>& fused, cudaStream_t stream);

  // The links per virtual row of the fused layout this pull runs best on, for
  // a graph of `links` links. A step is as slow as its slowest warp, and a
  // warp's slice costs ceil(W / 8) rounds of two dependent L2 round trips
  // (column indices, then the gathers): with W = 64 a small graph's widest
  // slice alone took 8 rounds while most warps had nothing to do. So W is the
  // fewest links that still give every lane of the grid (one block of 1024
  // per SM) one virtual row, rounded up to a multiple of 8, in [8, 64].
  static int vrow_links(std::size_t links);

  // Steps from the state's iterate (after fused.launch_init) until converged,
  // max_iter or `batch` steps (the check_every loop), closed like
  // fused_pull::launch_step's steps: one launch, a no-op once the state is done.
  void launch_solve(pagerank_state* st, pagerank_progress* progress, int batch);

  int hub() const { return resident_ ? 0 : hub_; }  // entries of x kept in shared memory
  int grid() const { return grid_; }                // blocks
  // Resident mode: each block keeps its slices' links in shared memory for
  // the whole solve (pagerank_persistent.cu); else they stream from L2 every
  // step (with a hub of x in shared memory).
  bool resident() const { return resident_; }
  // The mode trial: "candidate: median time per step" per candidate.
  const std::string& trial() const { return trial_; }
  std::size_t device_bytes() const { return acc_.bytes(); }

 private:
  void choose_mode();
  // Dynamic shared memory a resident launch of `grid` blocks needs (its
  // fullest block's), or 0 where it does not fit.
  std::size_t resident_bytes(int grid) const;

  fused_pull<T>& fused_;
  cudaStream_t stream_ = nullptr;
  int sms_ = 1;
  int streamed_grid_ = 1;  // streamed mode: every block that fits, with the largest hub
  int grid_ = 1;
  bool resident_ = false;
  std::size_t smem_ = 0;  // resident mode's dynamic shared memory per block
  std::size_t max_resident_bytes_ = 0;
  int hub_ = 0, max_hub_ = 0;
  std::string trial_;
  std::vector<unsigned> slice_start_;  // the fused layout's, on the host: resident_bytes()
  // 3 slots of (residual, dangling) as 2^-60 counts: step k adds to slot k mod 3.
  cuda::device_buffer<cuda::detail::fixed60> acc_;
};

}  // namespace perron::pagerank_gpu
