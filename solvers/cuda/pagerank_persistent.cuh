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
//     grid-wide barrier (an arrival count with release and acquire; every write of step k
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
// this kernel (which writes a uniform start itself; an --initial vector
// comes from the init kernel before it) and the rank copy, which starts
// before this kernel ends (programmatic dependent launch), and waits once.
//
// Three modes, chosen by a short trial. Streamed: the loop above, each step
// reading the block's slices (links, rows, lengths) from L2 with a shared
// counter handing them to warps. Resident (where they fit in shared memory,
// up to about 5 M links on an H100): each block copies its slices into
// shared memory once per launch and each warp takes the same slices every
// step, so a step's critical path is the gathers of x (through L1), the row
// updates, the block sums and the barrier; the previous step's sums are read
// while the gathers are in flight, and the stop decision waits for them only
// before the first write; the grid is as small as one slice per warp allows,
// which makes the barrier cheaper on small graphs. Its slices are dealt so
// that a row cut by slice ends mostly has all its slices in one block, where
// its partials are summed in shared memory (deal_slices(),
// solvers/pagerank_slice_deal.hpp). Cluster (Hopper on, where
// x fits twice in a block's shared memory: small graphs): not a grid but one
// thread-block cluster of up to 16 blocks, each holding its slices and a
// whole copy of x_k and x_{k+1}; a block writes each row it finishes into
// every block's copy (distributed shared memory), so gathers never leave the
// SM and the barrier is the cluster's (in hardware) instead of the grid's;
// rows cut by slice ends are finished by every block from partials written
// into every block (pagerank_persistent.cu has the step).
//
// --accelerate quadratic, auto (the default) and rre: the kernel extrapolates itself, with the formulas, gate
// and idle stop of solvers/pagerank_accel.hpp and the run structure of the fused pull's (pagerank_accel.cuh),
// without a launch or a host sync: after the barrier that ends step k,
//   k = every - 3, every - 2, every - 1 of a run: x_k copied into the run's
//     saves (a grid-stride pass; nothing reads them before the run's end);
//   k = every (the run's end), unless the solve stops here: the normal
//     equations' eight sums over fixed chunks of vertices (each chunk's sum in
//     a fixed order, written to its slot), a barrier, every block summing the
//     chunks' slots in the same order (the same bits everywhere, whatever the
//     grid or cluster), the weights, x_k replaced in place (the cluster mode:
//     every block its own copy), a barrier (the cluster mode: the block's).
// The bookkeeping (the saves' dangling masses, the gate's residuals, the idle
// count) is copied into every block's shared memory at the launch's start and
// updated by every block alike; block 0 keeps the record in accel_state for
// the next launch (a check-every batch) and for the host. Cost of a run
// beyond its steps: three copies of n values, two passes over four vectors,
// one or two barriers. rre the same way over its window (W saves from step
// every - W, its sums in six groups of 8 over the same chunks, a combination
// of W iterates). Aitken's per-vertex extrapolation runs on the fused pull's
// steps (pagerank_cuda says so).
//
// Deterministic: a row's sum has a fixed order (the fused pull's), and the
// residual and dangling sums are integers, so a solve gives the same bits on
// every run whatever order the blocks ran in, in every mode.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/cuda/reduce.cuh"
#include "core/cuda/support.cuh"
#include "core/device.hpp"
#include "solvers/cuda/pagerank_accel.cuh"
#include "solvers/cuda/pagerank_device.cuh"
#include "solvers/cuda/pagerank_fused.cuh"

namespace perron::pagerank_gpu {

// What a persistent solve needs to extrapolate (every == 0: plain steps).
template <class T>
struct persistent_extrapolation {
  T* hist[3] = {nullptr, nullptr, nullptr};  // x_{k-3}, x_{k-2}, x_{k-1} (accel_buffers::history)
  T* window = nullptr;                       // rre: x_{k-W} .. x_{k-1}, n apart (accel_buffers::window)
  int rre_w = 0;                             // rre: W; 0: quadratic
  accel_state* ac = nullptr;                 // kept between launches; the host reads the counters
  double* partials = nullptr;                // the chunks' sums (persistent_pull's)
  int every = 0;                             // --accelerate-every
  int gated = 0;                             // auto: the gate and the idle stop
};

template <class T>
class persistent_pull {
 public:
  // Runs `fused`'s steps (its layout, init and rank kernels stay fused's; it
  // must outlive this object) in one cooperative launch on `stream`, in the
  // mode (resident or streamed, grid, hub size) that solves fastest (a short
  // timed trial). cuda_error when the device has no cooperative launch or
  // cannot hold a block on every SM.
  // remembered: the mode an earlier trial of this graph picked (mode_text();
  // its record kept with the graph's cache entry, solvers/pagerank_trial.hpp),
  // taken without the trial where it is still a candidate ("": time them).
  // resident_only: the trial's candidates are the resident grids alone (the
  // second vertex order's, pagerank_cuda; PERRON_PERSISTENT still rules).
  persistent_pull(fused_pull<T>& fused, cudaStream_t stream, const std::string& remembered = "",
                  bool resident_only = false);

  // The links per virtual row of the fused layout this pull runs best on, for
  // a graph of `links` links. A step is as slow as its slowest warp, and a
  // warp's slice costs ceil(W / 8) rounds of two dependent L2 round trips
  // (column indices, then the gathers): with W = 64 a small graph's widest
  // slice alone took 8 rounds while most warps had nothing to do. So W is the
  // fewest links that still give every lane of the grid (one block of 1024
  // per SM) one virtual row, rounded up to a multiple of 8, in [8, 64].
  static int vrow_links(std::size_t links);

  // A second vertex order timed beside the in-degree order (pagerank_cuda
  // builds both layouts and keeps the faster): the graph's own order, rows by
  // in-degree only within runs of own_order_window ids. On the skewed real
  // graphs of 10^5 links (as-caida, facebook, wiki-Vote, ca-CondMat,
  // ca-AstroPh) the resident step took 4-20% less in it (H200,
  // docs/PERFORMANCE.md, session 41): partly the ids' own locality, partly
  // the hubs' slices no longer side by side on one SM, which the in-degree
  // layout now avoids itself (fused_pull's long_rows_start_slices), so the own
  // order is kept for its locality (ca-CondMat, delaunay_n16). On graphs of
  // 10^6 links and more it lost (cnr-2000 11 -> 12-28 us, rmat:16:1000000
  // 8.0 -> 9.3, mostly dangling graphs 7.1 -> 9.1) or tied, and the order
  // trial adds 3-12 ms to the setup (its layout and resident grids): so only
  // resident grids on graphs of at most own_order_trial_links links (or
  // more, where the own order is local and the rows even:
  // own_order_trial_size, solvers/pagerank.hpp), and not where
  // PERRON_PERSISTENT pins a mode (tests and experiments on one layout;
  // PERRON_FUSED_WINDOW pins the order).
  static constexpr index_t own_order_window = persistent_own_order_window;  // solvers/pagerank.hpp
  static constexpr std::size_t own_order_trial_links = persistent_own_order_trial_links;
  static bool order_trial_pays(index_t vertices, std::size_t links, bool resident, double local_links = 0,
                               index_t max_in_degree = 0);

  // Steps from the state's iterate (after fused.launch_init) until converged,
  // max_iter or `batch` steps (the check_every loop), closed like
  // fused_pull::launch_step's steps: one launch, a no-op once the state is done.
  // progress: written after every step where not null (the host's progress line).
  // ex: quadratic extrapolation where every > 0 (its hist, ac, every and
  // gated set; partials are this pull's).
  // fresh: a solve's first launch without fused.launch_init before it: the
  // kernel writes the uniform start x_0 = 1/n / d itself and the state from
  // *fresh, whose dangling mass must be init_x's sum of that x_0 (taken once,
  // at set-up: pagerank_cuda). Every launch lets the kernel after it in the
  // stream be scheduled before it ends (fused_pull::launch_ranks).
  void launch_solve(pagerank_state* st, pagerank_progress* progress, int batch,
                    persistent_extrapolation<T> ex = {}, const solve_start* fresh = nullptr);

  // Streamed: the slices stream from L2 every step, with a hub of x in shared
  // memory. Resident: each block keeps its slices' links in shared memory for
  // the whole solve. Cluster: one thread-block cluster whose every block
  // also keeps a whole copy of x in shared memory (pagerank_persistent.cu).
  enum class mode { streamed, resident, cluster };
  mode how() const { return mode_; }
  bool resident() const { return mode_ == mode::resident; }
  int hub() const { return mode_ == mode::streamed ? hub_ : 0; }  // entries of x kept in shared memory
  int grid() const { return grid_; }                              // blocks
  // The mode in words, for the solver's reason.
  std::string describe() const;
  // The mode as the constructor takes it back: "resident 132 0" (mode, blocks,
  // hub; "resident 8 0 cluster" for a resident grid launched as one cluster).
  std::string mode_text() const;
  // The mode trial: "candidate: median time per step" per candidate.
  const std::string& trial() const { return trial_; }
  double trial_seconds() const { return trial_seconds_; }  // wall time of that trial (and of step_us())
  // Device time of one step in the mode kept: the trial's figure, or timed
  // now where no trial ran (one candidate, a remembered mode).
  double step_us();
  // The trials' solves' residuals (plain_trace, pagerank_fused.cuh): every
  // mode and candidate gives the same bits; empty where no solve was timed
  // (one candidate, a remembered mode).
  const plain_trace& trial_trace();
  std::size_t device_bytes() const { return acc_.bytes() + cut_.bytes() + ex_partials_.bytes(); }

 private:
  void choose_mode(const std::string& remembered, bool resident_only);
  float time_steps();  // ms of trial_steps steps in the current mode (a median)
  // ms of one solve of trial_steps steps in the current mode, in st (a scratch state).
  float time_once(pagerank_state* st, cuda::event& e0, cuda::event& e1);
  static std::string mode_text(mode how, int grid, int hub, bool one_cluster, bool grouped);
  // Dynamic shared memory a resident launch of `grid` blocks needs (its
  // fullest block's), or 0 where it does not fit; which block takes which
  // slice into *deal (deal_slices(), solvers/pagerank_slice_deal.hpp).
  std::size_t resident_bytes(int grid, bool grouped, std::vector<unsigned>* deal) const;
  // The same for a cluster of `blocks` blocks, or 0 where it does not fit or
  // the device cannot launch such a cluster.
  std::size_t cluster_bytes(int blocks) const;
  // Whether a resident grid of `grid` blocks (2 or more) with `bytes` of
  // shared memory each launches as one cluster, whose hardware barrier then
  // replaces the grid barrier.
  bool resident_cluster_fits(int grid, std::size_t bytes) const;
  // The rows cut by slice ends, for the cluster mode (cut_).
  void find_cut_rows();

  fused_pull<T>& fused_;
  cudaStream_t stream_ = nullptr;
  int sms_ = 1;
  int streamed_grid_ = 1;  // streamed mode: every block that fits, with the largest hub
  int grid_ = 1;
  mode mode_ = mode::streamed;
  std::size_t smem_ = 0;  // resident and cluster modes' dynamic shared memory per block
  std::size_t max_resident_bytes_ = 0, max_cluster_bytes_ = 0;
  int max_cluster_ = 0;           // the largest cluster the device launches (0: none)
  int max_resident_cluster_ = 0;  // the same for the resident kernel
  bool one_cluster_ = false;      // resident mode: the grid is one cluster
  bool grouped_ = false;          // resident mode: deal_slices()'s
  index_t n_ = 0;
  int hub_ = 0, max_hub_ = 0;
  std::string trial_;
  double trial_seconds_ = 0;
  double step_us_ = 0;                            // the kept mode's step (0: not timed yet)
  cuda::device_buffer<pagerank_progress> trace_;  // a timed solve's residual after each step
  bool traced_ = false;                           // a timed solve wrote trace_
  plain_trace trace_host_;                        // trace_ read back (trial_trace())
  std::vector<unsigned> slice_start_;             // the fused layout's, on the host: resident_bytes()
  std::vector<unsigned char> cut_after_;          // per slice: a row goes on into the next slice
  cuda::device_buffer<unsigned> deal_;            // the resident grid's deal_slices()
  // 3 slots of (residual, dangling) as 2^-60 counts (step k adds to slot k mod 3), the grid
  // barrier's count and the launch's blocks left: zero between launches (leave_launch).
  cuda::device_buffer<cuda::detail::fixed60> acc_;
  cuda::device_buffer<int4> cut_;            // cluster mode: {row, first slice, last slice, out-degree}
  cuda::device_buffer<double> ex_partials_;  // the extrapolation's sums, up to 48 per chunk of vertices
};

}  // namespace perron::pagerank_gpu
