// The persistent pull (pagerank_persistent.cuh gives the loop and why).
#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cub/block/block_scan.cuh>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "solvers/cuda/pagerank_fused_slices.cuh"
#include "solvers/cuda/pagerank_persistent.cuh"
#include "solvers/pagerank_slice_deal.hpp"

namespace perron::pagerank_gpu {
namespace {

using cuda::detail::fixed60;

// Steps timed per hub candidate: enough that the launch's fixed cost is small
// beside them, few enough that the trial stays a small part of a setup.
constexpr int trial_steps = 20;
constexpr int trial_rounds = 3;  // timed solves per candidate (after one untimed): their median

// What a launch of either persistent kernel keeps for its steps, from the
// state the setup (or the previous launch) wrote: the solve's parameters and
// the last step it may take, at most `batch` after st->iteration (the
// check_every loop's batch).
//
// The cluster kernel writes the state once, when the launch ends (publish():
// what close_step() would have written after the last step), and the
// progress after every step only where the host asked for it (a non-null
// `progress`): there a per-step close_step() (a load of the state, an L2 round
// trip, then stores that the next barrier's release waits for) sat on the
// critical path of every step, in the thread that leads the block sums. The
// grid kernels keep close_step() in a thread off that path: done there, the
// resident kernel's extra live values spilled at its 64-register cap and
// cnr-2000 took 11-16% longer per step (H100, same call).
struct launch_params {
  double alpha, tol;
  bool personalized;
  double v_uniform;  // v_i = 1 / n unless personalized
  int last, max_iter;
  int trace;  // report_progress > 1: step k's progress at progress[k] for k < trace (the mode trials')
  launch_params() = default;  // trivial: a resident launch keeps one in shared memory
  __device__ __forceinline__ launch_params(const pagerank_state* st, index_t n, int batch)
      : alpha(st->alpha),
        tol(st->tol),
        personalized(st->personalized != 0),
        v_uniform(1.0 / static_cast<double>(n)),
        last(st->max_iter - st->iteration > batch ? st->iteration + batch : st->max_iter),
        max_iter(st->max_iter),
        trace(st->report_progress > 1 ? st->report_progress : 0) {}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900  // the cluster kernel's (sm_90 on)
  // After step k - 1 -> k (k steps done): the progress line's values.
  // trace (report_progress > 1, the mode trials'): step k's record at pr[k] for k < trace.
  __device__ __forceinline__ static void report_step(pagerank_progress* pr, int trace, int k,
                                                     double residual) {
    if (!pr) return;
    volatile pagerank_progress* v = pr + (k < trace ? k : 0);
    v->residual = residual;
    v->iteration = k;
  }

  // The launch's end after k steps: the state as close_step() leaves it.
  __device__ __forceinline__ static void publish(pagerank_state* st, int k, double residual,
                                                 double dangling) {
    const bool converged = residual < st->tol;
    st->dangling = dangling;
    st->iteration = k;
    st->residual = residual;
    st->converged = converged;
    st->done = converged || k >= st->max_iter;
  }
#endif
};

// A step's sums (slot k mod 3: residual, dangling mass), read by every warp
// after the barrier that ends the step: one 16-byte load (the slots are
// 16-byte aligned), one L2 request a warp. Every warp of the grid asks the
// same line at the top of a step; as two 8-byte loads the requests doubled
// and cost 0.4-0.7 us a step on 10^5-10^6-link graphs (H200, cage11 float
// 4.5 -> 4.1 us; docs/PERFORMANCE.md, session 37). Spreading the sums over
// 16 lines, one a lane, made it 4 us slower.
__device__ __forceinline__ ulonglong2 load_slot(const fixed60* slot) {
  return __ldcg(reinterpret_cast<const ulonglong2*>(slot));
}

// ---- the extrapolation inside the kernels (pagerank_persistent.cuh) -------------

// Vertices per chunk of the extrapolation's sums: a chunk's sums have a fixed
// order (a value a thread, then the block's butterfly) and so do the sums
// over chunks, so the weights have the same bits for every grid and cluster
// (every mode gives the same solve). Small chunks spread the pass over many
// blocks: on a graph of 10^5 vertices, chunks of 8 K vertices left 13 of 132
// blocks eight dependent L2 round trips each.
constexpr int ex_per_thread = 1;
constexpr int ex_chunk = ex_per_thread * step_threads;
constexpr int ex_batch = 4;  // a thread's loads in flight before its stores (saves, combination)

// Whether step k's end saves an iterate or ends a run: the cluster kernel's
// steps whose end calls extrapolate_step (the grid kernels' only a run's
// end, iterate_of). Unused below sm_90, where no cluster kernel is compiled.
[[maybe_unused]] __device__ __forceinline__ bool ex_due(int every, int rre_w, int k) {
  const int at = k % every;
  return at == 0 || (rre_w ? accel::rre_slot(at, every) : accel::run_slot(at, every, false)) >= 0;
}

// The grid kernels (streamed, resident) save no iterate: a step whose x_k
// is one of the run's last W writes it straight into its history slot
// (the step k - 1 -> k writes iterate_of(k), the next step gathers from
// it), so only a run's end leaves the step loop. Copying x_k there after
// the step instead cost a loop exit, an L2 round trip to reload the
// step's sums and a pass over n a save: on solves that never extrapolate
// the three saves of the first run were 4-9% of the solve
// (er:100000:1000000, p2p-Gnutella05, rmat:10:12000; H200,
// docs/PERFORMANCE.md, session 57). The run's end slot (k mod every = 0) is
// never a history slot, so x_k is in x0 / x1 by parity there, and at a
// launch's end (end_grid_launch).
template <bool R, class T>
__device__ __forceinline__ int history_slot(const persistent_extrapolation<T>& ex, int k) {
  const int at = k % ex.every;
  return R ? accel::rre_slot(at, ex.every) : accel::run_slot(at, ex.every, false);
}
template <bool R, class T>
__device__ __forceinline__ T* iterate_of(const fused_args<T>& a, const persistent_extrapolation<T>& ex,
                                         int k) {
  const int which = history_slot<R>(ex, k);
  if (which < 0) return (k & 1) ? a.x1 : a.x0;
  if constexpr (R) return ex.window + static_cast<long long>(which) * a.n;
  return which == 0 ? ex.hist[0] : which == 1 ? ex.hist[1] : ex.hist[2];
}

// rre's sums a chunk writes: the Gram matrix of W differences and W masses,
// at most 44, in groups of rre_group (one butterfly each), rounded up.
constexpr int rre_group = 8;
constexpr int rre_sum_slots =
    (accel::rre_sums(accel::rre_max_window) + accel::rre_max_window + rre_group - 1) / rre_group * rre_group;

// A block's copy of the extrapolation's bookkeeping (accel_state's fields
// that a launch reads and changes); every block holds the same values.
struct ex_book {
  double dangling[accel::rre_max_window];  // of the saved x_{k-3}, x_{k-2}, x_{k-1} (rre: x_{k-W} ..)
  double residual_1, residual_before, rate1;
  double totals[rre_sum_slots];  // the quadratic's 8 sums, rre's up to 44
  double w[accel::rre_max_window];
  double new_dangling;
  double anchor_residual;  // auto: the first extrapolation's residual and step (accel::behind_plain_line)
  int anchor_step;
  int check, idle, disabled, extrapolations, go;
};

// A fresh solve's uniform start, written by the persistent kernel itself
// instead of fused_pull::launch_init (one kernel fewer before the steps:
// 2.4-6.6 us of a solve, scripts/pdl_probe.cu on the H200): x_0 = x_of_rank(1/n, d)
// over the grid, as init_x writes it, and in the first block's thread 0 the
// state from `start`, whose dangling mass the host took from init_x's own sum
// at set-up (the same bits as a solve started by init_x). The caller syncs
// the grid before any block gathers x_0 or reads the state.
template <class T>
__device__ __forceinline__ void write_uniform_start(const fused_args<T>& a, pagerank_state* st,
                                                    const solve_start& start) {
  const double r = 1.0 / static_cast<double>(a.n);
  const index_t stride = static_cast<index_t>(gridDim.x) * step_threads;
  for (index_t k = static_cast<index_t>(blockIdx.x) * step_threads + static_cast<index_t>(threadIdx.x);
       k < a.n; k += stride)
    a.x0[k] = x_of_rank<T>(r, __ldg(a.deg + k));
  if (blockIdx.x == 0 && threadIdx.x == 0) close_init(st, make_double2(0.0, start.state.dangling), start);
}

// Thread 0 of each block, at the launch's start (the caller's __syncthreads
// orders it before any read). fresh: a solve's start, whose record is zero
// (write_uniform_start zeroes the device's in the first block meanwhile).
template <class T>
__device__ __forceinline__ void load_book(ex_book& bk, const persistent_extrapolation<T>& ex, bool fresh) {
  if (!ex.every || threadIdx.x != 0) return;
  const accel_state a = fresh ? accel_state{} : *ex.ac;
  for (int j = 0; j < accel::rre_max_window; ++j) bk.dangling[j] = a.dangling[j];
  bk.residual_1 = a.residual_1;
  bk.residual_before = a.residual_before;
  bk.rate1 = a.rate1;
  bk.check = a.check;
  bk.idle = a.idle;
  bk.anchor_residual = a.anchor_residual;
  bk.anchor_step = a.anchor_step;
  bk.disabled = a.disabled;
  bk.extrapolations = a.extrapolations;
}

// auto's plain line from its first extrapolation, at step k (accel::behind_plain_line).
__device__ __forceinline__ void anchor_plain_line(ex_book& bk, double residual, int k) {
  accel::anchor_plain_line(bk.anchor_residual, bk.anchor_step, residual, k);
}

// The first block's thread 0 keeps the record (nothing reads accel_state
// during a launch; the next launch and the host do).
template <class T>
__device__ __forceinline__ void store_book(const ex_book& bk, const persistent_extrapolation<T>& ex,
                                           int rank) {
  if (rank != 0 || threadIdx.x != 0) return;
  accel_state& a = *ex.ac;
  for (int j = 0; j < accel::rre_max_window; ++j) a.dangling[j] = bk.dangling[j];
  a.residual_1 = bk.residual_1;
  a.residual_before = bk.residual_before;
  a.rate1 = bk.rate1;
  a.check = bk.check;
  a.idle = bk.idle;
  a.anchor_residual = bk.anchor_residual;
  a.anchor_step = bk.anchor_step;
  a.disabled = bk.disabled;
  a.extrapolations = bk.extrapolations;
}

// The grid barrier's count of arrivals in this launch (acc[barrier_word],
// zero at every launch's start: leave_launch()) and, per block, the barriers
// its thread 0 has passed.
constexpr int barrier_word = 16;             // its own 128-byte line, after the slots
constexpr int exit_word = barrier_word + 1;  // the launch's blocks that have left (leave_launch)
constexpr int acc_words = exit_word + 1;
__shared__ unsigned long long passed_barriers;

// Every block of a grid launch (resident, streamed) calls it last, after its
// last use of acc: the last block to leave zeroes the step slots, the
// barrier's count and the count of blocks left, so that the next launch finds
// them zero with no memset before it (one operation fewer between a solve's
// start and its first step). The block's thread 0 takes its ticket after the
// block's barrier, acq_rel: every block's last reads of acc come before the
// last ticket, and the next launch follows this one in the stream.
__device__ __forceinline__ void leave_launch(cuda::detail::fixed60* acc) {
  __syncthreads();
  if (threadIdx.x != 0) return;
  using counter = ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>;
  if (counter(acc[exit_word]).fetch_add(1ull, ::cuda::memory_order_acq_rel) != gridDim.x - 1ull) return;
  for (int w = 0; w < 6; ++w) acc[w] = 0;  // the three slots of (residual, dangling)
  acc[barrier_word] = 0;
  acc[exit_word] = 0;
}

// How a kernel's blocks meet and where they keep x_k: the grid kernels (x in
// global memory, written by every block; the grid barrier) and the cluster
// kernel (a whole copy of x in every block's shared memory; the cluster's).
struct grid_team {
  static constexpr bool local_x = false;
  unsigned long long* arrivals = nullptr;  // acc + barrier_word
  __device__ int rank() const { return static_cast<int>(blockIdx.x); }
  __device__ int size() const { return static_cast<int>(gridDim.x); }
  // Every kernel that syncs the grid calls it first.
  __device__ void start() const {
    if (threadIdx.x == 0) passed_barriers = 0;
  }
  // A grid of one block (the small graphs' resident mode) syncs with the
  // block's barrier, which orders its threads' global accesses as the grid's
  // barrier would; the grid barrier's fence, atomic and spin are L2 round
  // trips (and its acquire empties L1): about 1 us a step.
  // A grid launched as one cluster (a few resident blocks) meets at the
  // cluster's hardware barrier, whose release and acquire order global
  // memory across its blocks as well.
  __device__ void sync() const {
    if (gridDim.x == 1) {
      __syncthreads();
      return;
    }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    if (cooperative_groups::this_cluster().num_blocks() == gridDim.x) {
      cooperative_groups::this_cluster().sync();
      return;
    }
#endif
    // The grid's own barrier: thread 0 of each block adds its arrival with
    // release semantics (after the block's barrier: the block's writes go
    // with it) and polls the count with acquire loads, 32 ns apart, until
    // every block of this barrier has arrived. cooperative_groups' grid sync
    // (a fence, an atomic that returns, a tight poll) cost 0.1-0.8 us more a
    // step on 10^5-10^6-link graphs (H200, docs/PERFORMANCE.md, session 37):
    // its returning atomic is one more L2 round trip for the last block to
    // arrive. A tight poll here measured within 0.3% of this one.
    __syncthreads();
    if (threadIdx.x == 0) {
      passed_barriers += 1;
      const unsigned long long target = passed_barriers * gridDim.x;
      asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(arrivals) : "memory");
      for (;;) {
        unsigned long long seen;
        asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(seen) : "l"(arrivals) : "memory");
        if (seen >= target) break;
        __nanosleep(32);
      }
    }
    __syncthreads();
  }
};
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
struct cluster_team {
  static constexpr bool local_x = true;
  __device__ int rank() const { return static_cast<int>(cooperative_groups::this_cluster().block_rank()); }
  __device__ int size() const { return static_cast<int>(cooperative_groups::this_cluster().num_blocks()); }
  __device__ void sync() const { cooperative_groups::this_cluster().sync(); }
};
#endif

// After step k - 1 -> k, in every thread of the team, with x_k in xk and its
// residual and dangling mass (the same bits everywhere): saves x_k where it is
// one of the run's last iterates (save_iterate), or at the run's end replaces
// it by the extrapolation (extrapolate_run). Returns the new vector's dangling
// mass when x_k was replaced, else -1. Nothing happens once the solve stops
// at k (converged or max_iter): the result is the plain step's. Uniform over
// the team, so the barriers inside are safe. Everything goes by value (and a
// kernel's `ex` is a __grid_constant__ parameter): no variable of a kernel's
// loop has its address taken, so none lives in local memory, whose loads
// after a grid barrier (which invalidates L1) go to L2. The two parts are
// separate calls so that a save does not pay the run end's registers.
template <class Team, class T>
__device__ __noinline__ void save_iterate(const persistent_extrapolation<T>& ex, ex_book& bk, Team team,
                                          const T* xk, index_t n, int which, double residual,
                                          double dangling) {
  const long long first = static_cast<long long>(team.rank()) * step_threads + threadIdx.x;
  const long long stride = static_cast<long long>(team.size()) * step_threads;
  T* __restrict__ h = ex.rre_w ? ex.window + static_cast<long long>(which) * n : ex.hist[which];
  for (long long base = first; base < n; base += ex_batch * stride) {
    T v[ex_batch];
#pragma unroll
    for (int u = 0; u < ex_batch; ++u)
      if (base + u * stride < n)
        v[u] = Team::local_x ? xk[base + u * stride] : __ldcg(xk + base + u * stride);
#pragma unroll
    for (int u = 0; u < ex_batch; ++u)
      if (base + u * stride < n) h[base + u * stride] = v[u];
  }
  if (threadIdx.x == 0) {  // read by thread 0 only, at the run's end
    bk.dangling[which] = dangling;
    if (which == (ex.rre_w ? ex.rre_w - 1 : 2)) bk.residual_1 = residual;
  }
  store_book(bk, ex, team.rank());
}

// The grid kernels' part of save_iterate (iterate_of says why): x_k's
// dangling mass and residual where x_k is a history slot, in the block's
// book only (store_book at the run's end and at the launch's end).
template <bool R, class T>
__device__ __forceinline__ void note_iterate(ex_book& bk, const persistent_extrapolation<T>& ex, int k,
                                             double residual, double dangling) {
  if (threadIdx.x != 0) return;
  const int which = history_slot<R>(ex, k);
  if (which < 0) return;
  bk.dangling[which] = dangling;
  if (which == (R ? ex.rre_w - 1 : 2)) bk.residual_1 = residual;
}

// At a grid kernel's end: x_k into x0 / x1 by parity where it sits in a
// history slot (the solve stopped there), where the rank kernels and the
// next launch look for it, and the book for the next launch. x_k was
// written before the barrier that ended its step; nothing reads x0 / x1
// after this in the launch.
template <bool R, class T>
__device__ __forceinline__ void end_grid_launch(const fused_args<T>& a, const persistent_extrapolation<T>& ex,
                                                const ex_book& bk, int k) {
  const T* from = iterate_of<R>(a, ex, k);
  T* to = (k & 1) ? a.x1 : a.x0;
  if (from != to) {
    const long long stride = static_cast<long long>(gridDim.x) * step_threads;
    for (long long i = static_cast<long long>(blockIdx.x) * step_threads + threadIdx.x; i < a.n; i += stride)
      to[i] = __ldcg(from + i);
  }
  __syncthreads();  // thread 0's last note_iterate before store_book
  store_book(bk, ex, static_cast<int>(blockIdx.x));
}

template <class Team, class T>
__device__ __noinline__ double extrapolate_run(const persistent_extrapolation<T>& ex, ex_book& bk, Team team,
                                               T* xk, const index_t* __restrict__ deg, index_t n,
                                               double residual, double dangling, double alpha, double tol,
                                               int k);
template <class Team, class T>
__device__ __noinline__ double extrapolate_run_rre(const persistent_extrapolation<T>& ex, ex_book& bk,
                                                   Team team, T* xk, const index_t* __restrict__ deg,
                                                   index_t n, double residual, double dangling, double alpha,
                                                   double tol, int k);

// What the extrapolations return where none replaced x_k, else the new
// dangling mass: a mass that can be below 0 (a combination of the iterates'
// masses; the iterates' entries can be), so no negative number marks none.
constexpr double not_extrapolated = -1.0e308;

// R: rre (ex.rre_w > 0), else the quadratic. Each is its own kernel (the
// kernels' template flag R): a kernel that could call both carried rre's
// code, and the quadratic solve's steps paid for it (below, "X").
template <bool R, class Team, class T>
__device__ __forceinline__ double extrapolate_step(const persistent_extrapolation<T>& ex, ex_book& bk,
                                                   Team team, T* xk, const index_t* __restrict__ deg,
                                                   index_t n, int k, int max_iter, double residual,
                                                   double dangling, double alpha, double tol) {
  if (!(residual >= tol) || k >= max_iter || bk.disabled) return not_extrapolated;
  const int s = k % ex.every;
  const int which = R ? accel::rre_slot(s, ex.every) : accel::run_slot(s, ex.every, false);
  if (which >= 0) {
    save_iterate(ex, bk, team, xk, n, which, residual, dangling);
    return not_extrapolated;
  }
  if (s != 0) return not_extrapolated;
  if constexpr (R)
    return extrapolate_run_rre(ex, bk, team, xk, deg, n, residual, dangling, alpha, tol, k);
  else
    return extrapolate_run(ex, bk, team, xk, deg, n, residual, dangling, alpha, tol, k);
}

// x_k replaced by `combine` over the team's share (from first, by stride),
// then a barrier: in the cluster mode every block its whole copy (the saves
// of every block are visible after the team's barrier before it; a block's
// step reads only its own copy) and the block's barrier.
template <class Team, class Combine>
__device__ __forceinline__ void combine_in_team(Team team, Combine combine, long long first,
                                                long long stride) {
  if constexpr (Team::local_x) {
    combine(threadIdx.x, static_cast<long long>(step_threads));
    __syncthreads();
  } else {
    combine(first, stride);
    team.sync();  // the new x_k written before any block gathers it
  }
}

// auto's idle stop and plain line for the extrapolation that started the run
// ending here (at step k), then its gate, in every block alike (bk.go says
// whether to extrapolate).
template <class T>
__device__ __forceinline__ void gate_run(const persistent_extrapolation<T>& ex, ex_book& bk, int rank,
                                         double residual, double alpha, double tol, int k) {
  __syncthreads();  // every thread of the block has read bk.disabled
  if (threadIdx.x == 0) {
    if (ex.gated && bk.check) {  // auto's stops, for the extrapolation that started this run
      bk.check = 0;
      if (accel::gated_stop(bk.idle, residual, k, bk.residual_before, bk.rate1, ex.every, bk.anchor_residual,
                            bk.anchor_step, alpha))
        bk.disabled = 1;
    }
    bk.go = !bk.disabled && residual >= accel::rounding_floor<T>() &&
            (!ex.gated || accel::extrapolation_pays(residual, bk.residual_1, tol));
    store_book(bk, ex, rank);
  }
  __syncthreads();
}

// rre's sums in the largest window's layout: the Gram matrix of
// rre_max_window differences (accel::rre_pair order), then the masses; a
// smaller window's differences past W are zero, and thread 0 takes its own
// layout out of these. Every index a constant after unrolling: the values
// stay in registers.
template <int K>
__device__ __forceinline__ double rre_term(const double (&u)[accel::rre_max_window],
                                           const double (&m)[accel::rre_max_window]) {
  constexpr accel::rre_factors at = accel::rre_factors_of(K, accel::rre_max_window);
  if constexpr (at.q >= 0)
    return u[at.p] * u[at.q];
  else if constexpr (at.p >= 0)
    return m[at.p];
  else
    return 0.0;
}
template <int G, int... T>
__device__ __forceinline__ void rre_group_terms(double (&v)[rre_group],
                                                const double (&u)[accel::rre_max_window],
                                                const double (&m)[accel::rre_max_window],
                                                std::integer_sequence<int, T...>) {
  ((v[T] = rre_term<G + T>(u, m)), ...);
}

// rre at a run's end (pagerank_accel.hpp; the quadratic's extrapolate_run
// with the window's W + 1 iterates): its sums over the same fixed chunks, in
// groups of rre_group, the chunks' slots summed by every block in the same
// order, the weights, x_k replaced in place.
template <class Team, class T>
__device__ __noinline__ double extrapolate_run_rre(const persistent_extrapolation<T>& ex, ex_book& bk,
                                                   Team team, T* xk, const index_t* __restrict__ deg,
                                                   index_t n, double residual, double dangling, double alpha,
                                                   double tol, int k) {
  constexpr unsigned full = 0xffffffffu;
  const int rank = team.rank(), blocks = team.size();
  const int w = ex.rre_w;
  const auto chunks = static_cast<index_t>((static_cast<long long>(n) + ex_chunk - 1) / ex_chunk);
  const auto x_at = [&](long long i) -> T { return Team::local_x ? xk[i] : __ldcg(xk + i); };
  const long long first = static_cast<long long>(rank) * step_threads + threadIdx.x;
  const long long stride = static_cast<long long>(blocks) * step_threads;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  gate_run(ex, bk, rank, residual, alpha, tol, k);
  if (!bk.go) return not_extrapolated;
  __shared__ double red[step_warps][rre_group];
  for (index_t c = rank; c < chunks; c += blocks) {
    static_assert(ex_per_thread == 1, "one vertex a thread");
    const long long i = static_cast<long long>(c) * ex_chunk + threadIdx.x;
    double u[accel::rre_max_window] = {}, m[accel::rre_max_window] = {};
    if (i < n) {
      const index_t d = __ldg(deg + i);
      const double wt = d > 0 ? static_cast<double>(d) : 1.0;  // the iterates in r = w x
      double before = wt * static_cast<double>(__ldcg(ex.window + i));
#pragma unroll
      for (int j = 1; j <= accel::rre_max_window; ++j)
        if (j <= w) {
          const double x = wt * static_cast<double>(
                                    j < w ? __ldcg(ex.window + static_cast<long long>(j) * n + i) : x_at(i));
          u[j - 1] = x - before;
          m[j - 1] = x;
          before = x;
        }
    }
    const auto group = [&](auto g) {
      constexpr int G = decltype(g)::value;
      double v[rre_group];
      rre_group_terms<G>(v, u, m, std::make_integer_sequence<int, rre_group>{});
#pragma unroll
      for (int t = 0; t < rre_group; ++t)
        for (int off = 16; off > 0; off >>= 1) v[t] += __shfl_xor_sync(full, v[t], off);
      if (lane == 0)
#pragma unroll
        for (int t = 0; t < rre_group; ++t) red[warp][t] = v[t];
      __syncthreads();
      if (warp < rre_group) {
        double t = red[lane][warp];
        for (int off = 16; off > 0; off >>= 1) t += __shfl_xor_sync(full, t, off);
        if (lane == 0) ex.partials[rre_sum_slots * static_cast<std::size_t>(c) + G + warp] = t;
      }
      __syncthreads();
    };
    static_assert(rre_sum_slots == 6 * rre_group, "six groups");
    group(std::integral_constant<int, 0>{});
    group(std::integral_constant<int, rre_group>{});
    group(std::integral_constant<int, 2 * rre_group>{});
    group(std::integral_constant<int, 3 * rre_group>{});
    group(std::integral_constant<int, 4 * rre_group>{});
    group(std::integral_constant<int, 5 * rre_group>{});
  }
  team.sync();  // every chunk's sums written
  for (int k = warp; k < rre_sum_slots; k += step_warps) {
    double t = 0;
    for (index_t c = lane; c < chunks; c += 32)
      t += __ldcg(ex.partials + rre_sum_slots * static_cast<std::size_t>(c) + k);
    for (int off = 16; off > 0; off >>= 1) t += __shfl_xor_sync(full, t, off);
    if (lane == 0) bk.totals[k] = t;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    // The window's own layout (accel::rre_pair for W) out of the largest's.
    constexpr int most = accel::rre_max_window;
    double sums[accel::rre_sums(most) + most];
    for (int p = 0; p < w; ++p) {
      for (int q = p; q < w; ++q) sums[accel::rre_pair(p, q, w)] = bk.totals[accel::rre_pair(p, q, most)];
      sums[accel::rre_sums(w) + p] = bk.totals[accel::rre_sums(most) + p];
    }
    const accel::rre_weights e = accel::rre_extrapolation(sums, sums + accel::rre_sums(w), w, alpha);
    bk.go = e.ok ? 1 : 0;
    if (e.ok) {
      for (int j = 0; j < w; ++j) bk.w[j] = e.w[j];
      bk.residual_before = residual;
      bk.rate1 = bk.residual_1 > 0.0 ? residual / bk.residual_1 : 0.0;
      bk.check = 1;
      anchor_plain_line(bk, residual, k);
      // The new r's dangling mass: the same combination of the iterates' masses.
      double nd = e.w[w - 1] * dangling;
      for (int j = 0; j + 1 < w; ++j) nd += e.w[j] * bk.dangling[j + 1];
      bk.new_dangling = nd;
      ++bk.extrapolations;
    }
    store_book(bk, ex, rank);
  }
  __syncthreads();
  if (!bk.go) return not_extrapolated;
  // x_k = w_0 x_{k-W+1} + ... + w_{W-1} x_k over from, from + step, ...
  const auto combine = [&](long long from, long long step) {
    for (long long base = from; base < n; base += ex_batch * step) {
      double acc[ex_batch];
#pragma unroll
      for (int q = 0; q < ex_batch; ++q)
        acc[q] = base + q * step < n ? bk.w[w - 1] * static_cast<double>(x_at(base + q * step)) : 0.0;
      for (int j = 1; j < w; ++j) {
        const T* __restrict__ h = ex.window + static_cast<long long>(j) * n;
        const double wj = bk.w[j - 1];
#pragma unroll
        for (int q = 0; q < ex_batch; ++q)
          if (base + q * step < n) acc[q] += wj * static_cast<double>(__ldcg(h + base + q * step));
      }
#pragma unroll
      for (int q = 0; q < ex_batch; ++q)
        if (base + q * step < n) xk[base + q * step] = static_cast<T>(acc[q]);
    }
  };
  combine_in_team(team, combine, first, stride);
  return bk.new_dangling;
}

template <class Team, class T>
__device__ __noinline__ double extrapolate_run(const persistent_extrapolation<T>& ex, ex_book& bk, Team team,
                                               T* xk, const index_t* __restrict__ deg, index_t n,
                                               double residual, double dangling, double alpha, double tol,
                                               int k) {
  constexpr unsigned full = 0xffffffffu;
  const int rank = team.rank(), blocks = team.size();
  const auto chunks = static_cast<index_t>((static_cast<long long>(n) + ex_chunk - 1) / ex_chunk);
  const auto x_at = [&](long long i) -> T { return Team::local_x ? xk[i] : __ldcg(xk + i); };
  const long long first = static_cast<long long>(rank) * step_threads + threadIdx.x;
  const long long stride = static_cast<long long>(blocks) * step_threads;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  gate_run(ex, bk, rank, residual, alpha, tol, k);
  if (!bk.go) return not_extrapolated;
  // The sums of pagerank_accel.cuh's dots_kernel (add_quadratic_terms), in
  // r = w x (w: out-degree, 1 if dangling).
  const T* __restrict__ h0 = ex.hist[0];
  const T* __restrict__ h1 = ex.hist[1];
  const T* __restrict__ h2 = ex.hist[2];
  __shared__ double red[step_warps][8];
  for (index_t c = rank; c < chunks; c += blocks) {
    index_t d[ex_per_thread];
    T e[ex_per_thread][4];
#pragma unroll
    for (int j = 0; j < ex_per_thread; ++j) {
      const long long i = static_cast<long long>(c) * ex_chunk + j * step_threads + threadIdx.x;
      d[j] = -1;
      if (i < n) {
        d[j] = __ldg(deg + i);
        e[j][0] = __ldcg(h0 + i);
        e[j][1] = __ldcg(h1 + i);
        e[j][2] = __ldcg(h2 + i);
        e[j][3] = x_at(i);
      }
    }
    double v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
    for (int j = 0; j < ex_per_thread; ++j) {
      if (d[j] < 0) continue;
      const double w = d[j] > 0 ? static_cast<double>(d[j]) : 1.0;
      add_quadratic_terms(v, w * static_cast<double>(e[j][0]), w * static_cast<double>(e[j][1]),
                          w * static_cast<double>(e[j][2]), w * static_cast<double>(e[j][3]));
    }
#pragma unroll
    for (int u = 0; u < 8; ++u)
      for (int off = 16; off > 0; off >>= 1) v[u] += __shfl_xor_sync(full, v[u], off);
    if (lane == 0)
#pragma unroll
      for (int u = 0; u < 8; ++u) red[warp][u] = v[u];
    __syncthreads();
    if (warp < 8) {
      double t = red[lane][warp];
      for (int off = 16; off > 0; off >>= 1) t += __shfl_xor_sync(full, t, off);
      if (lane == 0) ex.partials[8 * static_cast<std::size_t>(c) + warp] = t;
    }
    __syncthreads();
  }
  team.sync();  // every chunk's sums written
  if (warp < 8) {
    double t = 0;
    for (index_t c = lane; c < chunks; c += 32)
      t += __ldcg(ex.partials + 8 * static_cast<std::size_t>(c) + warp);
    for (int off = 16; off > 0; off >>= 1) t += __shfl_xor_sync(full, t, off);
    if (lane == 0) bk.totals[warp] = t;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const double* t = bk.totals;
    const accel::quadratic_weights q = accel::quadratic_extrapolation(
        t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], alpha, accel::rounding_floor<T>());
    bk.go = q.ok ? 1 : 0;
    if (q.ok) {
      bk.w[0] = q.w0;
      bk.w[1] = q.w1;
      bk.w[2] = q.w2;
      if (ex.gated) {
        bk.residual_before = residual;
        bk.rate1 = bk.residual_1 > 0.0 ? residual / bk.residual_1 : 0.0;
        bk.check = 1;
        anchor_plain_line(bk, residual, k);
      }
      // The new r's dangling mass: the same combination of the iterates' masses.
      bk.new_dangling = q.w0 * bk.dangling[1] + q.w1 * bk.dangling[2] + q.w2 * dangling;
      ++bk.extrapolations;
    }
    store_book(bk, ex, rank);
  }
  __syncthreads();
  if (!bk.go) return not_extrapolated;
  const double w0 = bk.w[0], w1 = bk.w[1], w2 = bk.w[2];
  // x_k = w0 x_{k-2} + w1 x_{k-1} + w2 x_k over from, from + step, ...
  const auto combine = [&](long long from, long long step) {
    for (long long base = from; base < n; base += ex_batch * step) {
      T p[ex_batch], q[ex_batch], r[ex_batch];
#pragma unroll
      for (int u = 0; u < ex_batch; ++u)
        if (base + u * step < n) {
          p[u] = __ldcg(h1 + base + u * step);
          q[u] = __ldcg(h2 + base + u * step);
          r[u] = x_at(base + u * step);
        }
#pragma unroll
      for (int u = 0; u < ex_batch; ++u)
        if (base + u * step < n)
          xk[base + u * step] =
              static_cast<T>(w0 * static_cast<double>(p[u]) + w1 * static_cast<double>(q[u]) +
                             w2 * static_cast<double>(r[u]));
    }
  };
  combine_in_team(team, combine, first, stride);
  return bk.new_dangling;
}

template <class T, bool X, bool R = false>
__global__ void __launch_bounds__(step_threads, 1)
    persistent_solve(fused_args<T> a, pagerank_state* st, pagerank_progress* progress, fixed60* acc,
                     int batch, const __grid_constant__ persistent_extrapolation<T> ex,
                     const __grid_constant__ solve_start start, int fresh) {
  let_next_grid_launch();
  const grid_team grid{acc + barrier_word};
  grid.start();
  if (fresh) {
    write_uniform_start(a, st, start);
    grid.sync();  // x_0 and the state written before any block reads them
  }
  if (st->done) {  // written by the previous launch: uniform across this grid
    leave_launch(acc);
    return;
  }
  const launch_params p(st, a.n, batch);
  double dangling = st->dangling;  // r_k's, written by the previous launch (or the setup)
  int k = st->iteration;
  __shared__ ex_book bk;                      // X: the solve extrapolates (ex.every > 0)
  if constexpr (X) load_book(bk, ex, fresh);  // read after the loop's first __syncthreads

  extern __shared__ __align__(16) unsigned char smem[];
  T* hub = reinterpret_cast<T*>(smem);
  __shared__ unsigned next_slice;  // this block's next slice in this step
  double residual = 0;
  // X: an inner loop of steps that leaves where a run ends (the resident
  // kernel says why), each step's x_k and x_{k+1} where iterate_of puts them.
  for (bool more = true; more;) {
    for (;;) {
      const T* x = X ? iterate_of<R>(a, ex, k) : (k & 1) ? a.x1 : a.x0;
      T* xn = X ? iterate_of<R>(a, ex, k + 1) : (k & 1) ? a.x0 : a.x1;
      // r_{k+1} = alpha P^T r_k + c_k v, c_k = alpha dangling_k + 1 - alpha.
      const double c = p.alpha * dangling + (1.0 - p.alpha);
      // The last step's readers of the hub and the counter are past the barrier.
      if (threadIdx.x == 0) next_slice = step_warps;
      load_hub<true>(hub, x, a.hub);
      __syncthreads();
      step_sums s;
      pull_slices<true>(a, x, xn, hub, next_slice, p.alpha, c, p.personalized, p.v_uniform, s);
      fixed60* slot = acc + 2 * (k % 3);
      if (block_sums(s)) {
        atomicAdd(slot, s.l1);
        atomicAdd(slot + 1, s.dangling);
      }
      grid.sync();  // every x_{k+1}(i) and every block's sums written and visible
      const ulonglong2 sums = load_slot(slot);
      residual = cuda::detail::from_fixed60(sums.x);
      dangling = cuda::detail::from_fixed60_signed(sums.y);
      ++k;
      if (blockIdx.x == 0 && threadIdx.x == 0) {
        // Slot (k + 1) mod 3 held step k - 2's sums, read before this barrier.
        acc[2 * ((k + 1) % 3)] = 0;
        acc[2 * ((k + 1) % 3) + 1] = 0;
        close_step(st, make_double2(residual, dangling), progress, 0, 0);
      }
      if constexpr (X) {
        note_iterate<R>(bk, ex, k, residual, dangling);
        if (k % ex.every == 0) break;
      }
      // The same bits in every block: every block leaves after the same step.
      if (residual < p.tol || k >= p.last) {
        more = false;
        break;
      }
    }
    if constexpr (X) {
      if (more) {
        const double nd = extrapolate_step<R>(ex, bk, grid, (k & 1) ? a.x1 : a.x0, a.deg, a.n, k, p.max_iter,
                                              residual, dangling, p.alpha, p.tol);
        if (nd != not_extrapolated) {
          dangling = nd;
          if (blockIdx.x == 0 && threadIdx.x == 0) st->dangling = nd;  // the next launch's start
        }
        more = !(residual < p.tol || k >= p.last);
      }
    }
  }
  if constexpr (X) end_grid_launch<R>(a, ex, bk, k);
  leave_launch(acc);
}

// ---- resident: the block's slices in shared memory -------------------------------

// What a block keeps in shared memory for the whole solve (resident mode), in
// this order (from a 16-byte aligned start): the partials of the block's own
// cut rows (a tail and a head a slice, 2 nb doubles: block_cut_row()), the
// offsets of its nb slices' links (nb + 1 unsigned), the rows just outside
// each slice (2 nb, slice_outside()'s), each slice's virtual rows' rows (32
// nb) and lengths (32 nb unsigned short), the own cut rows' arrival counts
// (nb unsigned, at the slice where the row ends), the slices' global numbers
// (nb), then the links (`entries` column indices, each slice column-major as
// in global memory).
struct resident_layout {
  double* ltail;
  double* lhead;
  unsigned* off;
  index_t* out;
  index_t* vrow;
  unsigned short* vlen;
  unsigned* lcount;
  index_t* gid;
  index_t* col;
  __host__ __device__ static std::size_t bytes(int nb, std::size_t entries) {
    return 16 * static_cast<std::size_t>(nb) + 4 * (static_cast<std::size_t>(nb) + 1) +
           8 * static_cast<std::size_t>(nb) + 128 * static_cast<std::size_t>(nb) +
           64 * static_cast<std::size_t>(nb) + 8 * static_cast<std::size_t>(nb) + 4 * entries;
  }
  __device__ resident_layout(unsigned char* smem, int nb) {
    ltail = reinterpret_cast<double*>(smem);
    lhead = ltail + nb;
    off = reinterpret_cast<unsigned*>(lhead + nb);
    out = reinterpret_cast<index_t*>(off + nb + 1);
    vrow = out + 2 * nb;
    vlen = reinterpret_cast<unsigned short*>(vrow + 32 * nb);
    lcount = reinterpret_cast<unsigned*>(vlen + 32 * nb);  // 64 nb bytes of lengths: 4-byte aligned
    gid = reinterpret_cast<index_t*>(lcount + nb);
    col = gid + nb;
  }
};
static_assert(sizeof(index_t) == 4, "resident_layout counts 4-byte indices");

// A block's slices. The cluster kernel's are dealt round-robin (slice
// first + i stride, first = the block's rank, stride = the cluster's
// blocks); the resident kernel's are listed (slice list[first + i]; the
// list is deal_slices()'s, solvers/pagerank_slice_deal.hpp), so that most
// rows cut by slice ends have every slice in one block and are summed in its
// shared memory (block_cut_row()). Warp w takes i = w, w + 32, ... every step
// (no shared counter: the same slices every step, so their links can stay in
// shared memory).
struct block_span {
  const unsigned* list;  // null: dealt
  index_t first, stride;
  int nb;
  __device__ index_t slice(int i) const {
    return list ? static_cast<index_t>(__ldg(list + first + i)) : first + static_cast<index_t>(i) * stride;
  }
};
// The cluster kernel's slices, dealt round-robin (unused below sm_90).
[[maybe_unused]] __device__ __forceinline__ block_span dealt_slices(index_t slices) {
  const auto b = static_cast<index_t>(blockIdx.x), g = static_cast<index_t>(gridDim.x);
  return {nullptr, b, g, b < slices ? static_cast<int>((slices - 1 - b) / g + 1) : 0};
}
// deal: the blocks' first entries in the list (grid + 1), then the list.
__device__ __forceinline__ block_span listed_slices(const unsigned* deal) {
  const unsigned first = __ldg(deal + blockIdx.x);
  return {deal + gridDim.x + 1, static_cast<index_t>(first), 1,
          static_cast<int>(__ldg(deal + blockIdx.x + 1) - first)};
}

// Copies the block's slices into L and zeroes its cut rows' counts (every
// thread calls it; afterwards a warp may read the slices w, w + 32, ... it
// stored).
template <class T>
__device__ __forceinline__ void load_resident(const fused_args<T>& a, const resident_layout& L,
                                              const block_span& span) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int nb = span.nb;
  {
    using scan = cub::BlockScan<unsigned, step_threads>;
    __shared__ typename scan::TempStorage temp;
    unsigned entries = 0;
    if (static_cast<int>(threadIdx.x) < nb) {
      const index_t q = span.slice(static_cast<int>(threadIdx.x));
      entries = __ldg(a.slice_start + q + 1) - __ldg(a.slice_start + q);
      L.lcount[threadIdx.x] = 0;
      L.gid[threadIdx.x] = q;
    }
    unsigned first = 0, total = 0;
    scan(temp).ExclusiveSum(entries, first, total);
    if (static_cast<int>(threadIdx.x) < nb) L.off[threadIdx.x] = first;
    if (threadIdx.x == 0) L.off[nb] = total;
    __syncthreads();
  }
  for (int i = warp; i < nb; i += step_warps) {
    const index_t q = span.slice(i);
    const unsigned p0 = __ldg(a.slice_start + q), o = L.off[i], e = L.off[i + 1] - o;
    for (unsigned t = lane; t < e; t += 32) L.col[o + t] = __ldg(a.col + p0 + t);
    const index_t R = __ldg(a.vrow + q * 32 + lane);
    L.vrow[32 * i + lane] = R;
    L.vlen[32 * i + lane] = __ldg(a.vlen + q * 32 + lane);
    const index_t out = slice_outside(a.vrow, q, R);
    if (lane == 0) L.out[2 * i] = out;
    if (lane == 31) L.out[2 * i + 1] = out;
  }
  __syncwarp();  // a warp reads only the slices it stored
}

// Adds x over positions j .. j + U - 1 of a lane's virtual row (those below
// len) to acc, in order. Every value of the batch is loaded before the first
// is added: adding each as it was loaded, ptxas (under the kernel's 64-register
// cap) issued a batch of eight as two waits of four loads, an L2 round trip
// more for every lane with more than four links, and spilled. The fused
// step's gather_links keeps its form: there the same change measured 3-12%
// slower.
template <int U, class T>
__device__ __forceinline__ void resident_batch(const T* __restrict__ x, const index_t* cp, unsigned j,
                                               unsigned len, double& acc) {
  T v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) v[u] = j + u < len ? load_x<true>(x + cp[(j + u) * 32]) : T(0);
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (j + u < len) acc += static_cast<double>(v[u]);  // pull_slices' order
}

// slice_outside() of block slice i from L: every lane loads one of the two
// (a select, where two branches to two loads cost 16 instructions a slice on
// steps bound by instruction issue).
__device__ __forceinline__ index_t slice_outside(const resident_layout& L, int i, index_t R) {
  const int lane = threadIdx.x & 31;
  const index_t o = L.out[2 * i + (lane == 31 ? 1 : 0)];
  return lane == 0 || lane == 31 ? o : R;
}

// Lane's sum of its virtual row of block slice i (links from shared memory,
// gathers of x_k through L1), and its row's data.
template <class T>
__device__ __forceinline__ double resident_gather(const fused_args<T>& a, const resident_layout& L, int i,
                                                  const T* __restrict__ x, bool personalized,
                                                  double v_uniform, index_t& R, row_data<T>& rd) {
  const int lane = threadIdx.x & 31;
  R = L.vrow[32 * i + lane];
  const unsigned len = L.vlen[32 * i + lane];
  // An empty lane (row n) reads row 0's data and never uses it: loads
  // without a branch around them.
  rd = load_row<true>(a, x, R < a.n ? R : 0, personalized, v_uniform);
  const unsigned o = L.off[i];
  const index_t* cp = L.col + o + lane;
  // The slice's width: its longest virtual row (32 entries a link position).
  const unsigned width = (L.off[i + 1] - o) >> 5;
  double acc = 0;  // finish_row (pagerank_fused_slices.cuh) says why double
  unsigned j = 0;
  for (; j + unroll / 2 < width; j += unroll) resident_batch<unroll>(x, cp, j, len, acc);
  // At most unroll / 2 positions left (none where the loop's last batch
  // passed the width): a batch no wider than they need. A batch of eight
  // costs its eight predicated loads and adds whatever the lanes' lengths; on
  // graphs whose rows hold 1-4 links (chains, grids, the in-link-less
  // majority of a hub graph) that was most of a step, which is bound by
  // instruction issue there (docs/PERFORMANCE.md, session 38).
  const unsigned rest = width > j ? width - j : 0;
  static_assert(unroll == 8, "the batches below cover 1-4 positions");
  if (rest > 2)
    resident_batch<4>(x, cp, j, len, acc);
  else if (rest == 2)
    resident_batch<2>(x, cp, j, len, acc);
  else if (rest == 1)
    resident_batch<1>(x, cp, j, len, acc);
  return acc;
}

// The partials are written and read as relaxed atomics (st/ld.relaxed.cta
// on the shared window, the same cost as plain accesses): the count's
// release and acquire order them, so they are no data race. racecheck
// (compute-sanitizer) still reports each such pair as a RAW hazard: it
// orders shared memory by barriers only, not by release and acquire
// (docs/PERFORMANCE.md, session 39).
__device__ __forceinline__ void store_partial(double* p, double v) {
  asm volatile(
      "st.relaxed.cta.shared.f64 [%0], %1;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(p))), "d"(v)
      : "memory");
}
__device__ __forceinline__ double load_partial(const double* p) {
  double v;
  asm volatile("ld.relaxed.cta.shared.f64 %0, [%1];"
               : "=d"(v)
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p)))
               : "memory");
  return v;
}

// contribute() for a cut row whose slices t0 .. t1 are all this block's
// (local slices l0 .. l1): the partials, the arrival count and the acquire
// stay in the block's shared memory. In global memory the last arrival
// waited for a device-scope RMW (a fence that waits for the warp's stores to
// reach L2, the atomic's round trip, an invalidation of the SM's L1) and for
// the partials' L2 round trip; on skewed 10^5-link graphs the cut rows were
// about 2 us of a 5.5 us step (docs/PERFORMANCE.md, session 39). The same
// additions in the same order as contribute(): the same bits. Called by the
// whole warp after lane 0 stored this slice's partial.
template <class T>
__device__ void block_cut_row(const resident_layout& L, index_t R, const cut_facts<T>& f, int l0,
                              T* __restrict__ xn, double alpha, double c, step_sums& s) {
  const int lane = threadIdx.x & 31;
  const int l1 = l0 + static_cast<int>(f.parts) - 1;
  unsigned last = 0;
  if (lane == 0) {  // release: lane 0's partial before the count; acquire: the other slices'
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_block> count(L.lcount[l1]);
    last = count.fetch_add(1u, ::cuda::memory_order_acq_rel) + 1 == static_cast<unsigned>(f.parts);
  }
  if (!__shfl_sync(0xffffffffu, last, 0)) return;
  __syncwarp();  // every lane's partial loads after lane 0's acquire
  double y = 0, head = 0;
  if (lane == 0) head = load_partial(L.lhead + l1);
  for (int t = l0 + lane; t < l1; t += 32) y += load_partial(L.ltail + t);
  for (int off = 16; off > 0; off >>= 1) y += __shfl_xor_sync(0xffffffffu, y, off);
  if (lane != 0) return;
  y += head;
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_block>(L.lcount[l1])
      .store(0u, ::cuda::memory_order_relaxed);
  finish_row(xn, R, y, f.rd, alpha, c, s);
}

// finish_slice() of block slice i: a cut row whose every slice is the
// block's is summed in shared memory (block_cut_row()), any other through L2
// (contribute()). A block's list of slices ascends, so a row's slices t0 ..
// t1 are all the block's where its local slices i - (q - t0) and i + (t1 -
// q) exist and are t0 and t1.
template <class T>
__device__ __forceinline__ void finish_resident_slice(const fused_args<T>& a, const resident_layout& L,
                                                      int nb, int i, index_t R, index_t outside, double acc,
                                                      row_data<T> rd, const T* __restrict__ x,
                                                      T* __restrict__ xn, double alpha, double c,
                                                      bool personalized, double v_uniform, step_sums& s) {
  constexpr unsigned full = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const index_t q = L.gid[i];
  const cut_facts<T> cf = cut_facts_ahead<true>(a, R, outside, rd);
  const slice_scan sc = scan_slice(a.n, R, outside, acc);
  if (sc.finishes) finish_row(xn, R, sc.sum, rd, alpha, c, s);
  const auto local_first = [&](const cut_facts<T>& f) {  // l0, or -1 where the row is not the block's
    const int l0 = i - static_cast<int>(q - f.t0), l1 = l0 + static_cast<int>(f.parts) - 1;
    return l0 >= 0 && l1 < nb && L.gid[l0] == f.t0 && L.gid[l1] == f.t0 + f.parts - 1 ? l0 : -1;
  };
  // This slice's partial of a cut row: summed in the block's shared memory
  // where all the row's slices are the block's, else through L2.
  const auto hand_over = [&](const cut_facts<T>& f, index_t row, double partial, double* own,
                             double* global) {
    const int l0 = local_first(f);
    if (l0 >= 0) {
      if (lane == 0) store_partial(own, partial);
      block_cut_row(L, row, f, l0, xn, alpha, c, s);
    } else {
      if (lane == 0) *global = partial;
      contribute<true>(a, row, f, x, xn, alpha, c, personalized, v_uniform, s);
    }
  };
  if (sc.head_lane) {     // the row that began before this slice ends in it: lane 0's row
    cut_facts<T> f = cf;  // lane 0's facts' rd; the slices to every lane
    f.parts = __shfl_sync(full, cf.parts, 0);
    f.t0 = __shfl_sync(full, cf.t0, 0);
    hand_over(f, sc.first_row, __shfl_sync(full, sc.sum, __ffs(sc.head_lane) - 1), L.lhead + i, a.head + q);
  }
  if (sc.tail_cut)  // the row goes on in the next slice: lane 31's row
    hand_over(shfl_facts(cf, 31), sc.last_row, __shfl_sync(full, sc.sum, 31), L.ltail + i, a.tail + q);
}

// The persistent solve with the block's slices resident in shared memory
// (persistent_pull::resident_bytes() says whether they fit). Per step the
// critical path is then: gathers of x_k (one L2 or L1 round trip per 8 links
// of a lane) -> scan and row updates -> block sums -> the slot atomics -> the
// grid barrier. The previous step's sums (residual and dangling mass) are
// read at the top of the step and used only after the warp's first gathers,
// so their L2 round trip overlaps the gathers instead of preceding them; the
// stop decision is taken there, before this step writes anything, so a
// stopping step leaves x_{k}, the counters and the slots as a finished step
// left them (its gathers are only reads).
// What the resident kernel carries from step to step: uniform over the grid.
struct resident_loop {
  int k;            // steps done
  double dangling;  // r_k's dangling mass
  bool first;       // the launch's first step: no step k - 1 to publish
  bool replaced;    // x_k extrapolated: dangling is its mass, not step k - 1's sum
  bool more;        // false once the solve (or the launch's batch) stops
  launch_params p;
  int nb;  // the block's slices
};

// A copy of the state kept in shared memory, read field by field (volatile:
// never hoisted above the call between runs).
__device__ __forceinline__ resident_loop read_loop(const volatile resident_loop& v) {
  resident_loop s;
  s.k = v.k;
  s.dangling = v.dangling;
  s.first = v.first;
  s.replaced = v.replaced;
  s.more = true;
  s.p.alpha = v.p.alpha;
  s.p.tol = v.p.tol;
  s.p.personalized = v.p.personalized;
  s.p.v_uniform = v.p.v_uniform;
  s.p.last = v.p.last;
  s.p.max_iter = v.p.max_iter;
  s.p.trace = v.p.trace;
  s.nb = v.nb;
  return s;
}

// The resident kernel's steps from s until the solve stops (s.more false)
// or, X, until a step whose end ends a run (x_k and x_{k+1} where
// iterate_of puts them; bk: the block's book, for note_iterate).
template <class T, bool X, bool RRE = false>
__device__ __forceinline__ void resident_steps(const fused_args<T>& a, pagerank_state* st,
                                               pagerank_progress* progress, fixed60* acc,
                                               const grid_team& grid, const persistent_extrapolation<T>& ex,
                                               ex_book& bk, resident_loop& s) {
  extern __shared__ __align__(16) unsigned char smem[];
  const launch_params& p = s.p;
  const int nb = s.nb;
  const resident_layout L(smem, nb);
  const int warp = threadIdx.x >> 5;
  int k = s.k;
  double dangling = s.dangling;
  bool first = s.first, replaced = s.replaced;
  for (;; first = false) {
    const T* x = X ? iterate_of<RRE>(a, ex, k) : (k & 1) ? a.x1 : a.x0;
    T* xn = X ? iterate_of<RRE>(a, ex, k + 1) : (k & 1) ? a.x0 : a.x1;
    // Step k - 1's sums (slot (k - 1) mod 3), asked for now, used below.
    const fixed60* prev = acc + 2 * ((k + 2) % 3);
    ulonglong2 prev_sums{0, 0};
    if (!first) prev_sums = load_slot(prev);
    // The warp's first slice's gathers (reads only) before the decision.
    int i = warp;
    index_t R = a.n;
    row_data<T> rd{};
    double sum = 0;
    if (i < nb) sum = resident_gather(a, L, i, x, p.personalized, p.v_uniform, R, rd);
    if (!first) {
      const double residual = cuda::detail::from_fixed60(prev_sums.x);
      if (!replaced) dangling = cuda::detail::from_fixed60_signed(prev_sums.y);
      replaced = false;
      // One thread publishes step k - 1 (close_step counts it) and clears
      // slot (k + 1) mod 3: last read in step k - 1, before the barrier that
      // ended it; next added to in step k + 1, after this step's barrier.
      // The block's last warp: on most graphs it has the fewest slices.
      if (blockIdx.x == 0 && threadIdx.x == step_threads - 32) {
        acc[2 * ((k + 1) % 3)] = 0;
        acc[2 * ((k + 1) % 3) + 1] = 0;
        close_step(st, make_double2(residual, dangling), progress, 0, 0);
      }
      if constexpr (X) note_iterate<RRE>(bk, ex, k, residual, dangling);
      // The same bits in every thread of the grid: all leave before step k.
      if (residual < p.tol || k >= p.last) {
        s.more = false;
        break;
      }
    }
    // r_{k+1} = alpha P^T r_k + c_k v, c_k = alpha dangling_k + 1 - alpha.
    const double c = p.alpha * dangling + (1.0 - p.alpha);
    step_sums ss;
    for (; i < nb; i += step_warps) {
      if (i != warp) sum = resident_gather(a, L, i, x, p.personalized, p.v_uniform, R, rd);
      const index_t out = slice_outside(L, i, R);
      finish_resident_slice(a, L, nb, i, R, out, sum, rd, x, xn, p.alpha, c, p.personalized, p.v_uniform, ss);
    }
    fixed60* slot = acc + 2 * (k % 3);
    if (block_sums(ss)) {
      atomicAdd(slot, ss.l1);
      atomicAdd(slot + 1, ss.dangling);
    }
    grid.sync();  // every x_{k+1}(i) and every block's sums written and visible
    ++k;
    if constexpr (X) {
      if (k % ex.every == 0) {
        first = false;
        break;
      }
    }
  }
  s.k = k;
  s.dangling = dangling;
  s.first = first;
  s.replaced = replaced;
}

// The persistent solve with the block's slices resident in shared memory
// (persistent_pull::resident_bytes() says whether they fit). Per step the
// critical path is then: gathers of x_k (one L2 or L1 round trip per 8 links
// of a lane) -> scan and row updates -> block sums -> the slot atomics -> the
// grid barrier. The previous step's sums (residual and dangling mass) are
// read at the top of the step and used only after the warp's first gathers,
// so their L2 round trip overlaps the gathers instead of preceding them; the
// stop decision is taken there, before this step writes anything, so a
// stopping step leaves x_{k}, the counters and the slots as a finished step
// left them (its gathers are only reads).
//
// X: the steps run in runs that end where a run of --accelerate-every steps
// ends (the saves are the steps' own writes: iterate_of), so that the
// extrapolation's call is outside the loop the steps spend
// their time in (calling it from inside that loop kept three of the loop's
// values in local memory, reloaded from L2 after every grid barrier, which
// invalidates L1: about 1 us a step on the H200). Between runs the loop's
// state, its parameters included, waits in shared memory and each run reads
// it back (volatile), so that the loop's values need not live in registers
// across the call. Kept there, they left the steps too few registers for a
// batch of eight gathers in flight (two took turns: four round trips a
// batch); the extrapolating kernel's steps cost 0.65-0.75 us more than the
// plain kernel's on as-caida and wiki-Vote, 0.3-0.4 us now (H200, float;
// docs/PERFORMANCE.md, session 37). R: the extrapolation is rre's. A kernel
// that carried both extrapolations' code (rre's calls and shared sums beside
// the quadratic's) made the quadratic solve's every step 0.4-1.3 us slower
// than the plain kernel's (cnr-2000 1.3 us of 10.6, er:100000:1000000 0.5
// of 7.4; docs/PERFORMANCE.md, session 56), so each has its own kernel.
template <class T, bool X, bool R = false>
__global__ void __launch_bounds__(step_threads, 1)
    persistent_resident(fused_args<T> a, const unsigned* deal, pagerank_state* st,
                        pagerank_progress* progress, fixed60* acc, int batch,
                        const __grid_constant__ persistent_extrapolation<T> ex,
                        const __grid_constant__ solve_start start, int fresh) {
  let_next_grid_launch();
  if (!fresh && st->done) {  // written by the previous launch: uniform across this grid
    leave_launch(acc);
    return;
  }
  const grid_team grid{acc + barrier_word};
  grid.start();
  if (fresh) write_uniform_start(a, st, start);  // the grid syncs after the slices' loads
  __shared__ ex_book bk;                         // X: the solve extrapolates (ex.every > 0)
  if constexpr (X) load_book(bk, ex, fresh);     // read after load_resident's __syncthreads

  // Load the block's slices (once per launch).
  const block_span span = listed_slices(deal);  // nb <= step_threads (checked on the host)
  const int nb = span.nb;
  {
    extern __shared__ __align__(16) unsigned char smem[];
    load_resident(a, resident_layout(smem, nb), span);
  }
  if (fresh) grid.sync();  // x_0 and the state written before any block reads them
  if constexpr (!X) {
    resident_loop s{st->iteration, st->dangling, true, false, true, launch_params(st, a.n, batch), nb};
    resident_steps<T, false>(a, st, progress, acc, grid, ex, bk, s);
  } else {
    __shared__ resident_loop saved;
    if (threadIdx.x == 0)
      saved =
          resident_loop{st->iteration, st->dangling, true, false, true, launch_params(st, a.n, batch), nb};
    __syncthreads();
    for (;;) {
      resident_loop s = read_loop(saved);
      resident_steps<T, true, R>(a, st, progress, acc, grid, ex, bk, s);
      if (!s.more) {
        end_grid_launch<R>(a, ex, bk, s.k);
        break;
      }
      // Step k - 1's sums now (the top of the next step reads them again;
      // that slot is cleared later).
      const ulonglong2 done = load_slot(acc + 2 * ((s.k + 2) % 3));
      __syncthreads();  // every thread has read saved
      if (threadIdx.x == 0) {
        saved.k = s.k;
        saved.dangling = s.dangling;
        saved.first = s.first;
        saved.replaced = s.replaced;
      }
      const double nd = extrapolate_step<R>(ex, bk, grid, (s.k & 1) ? a.x1 : a.x0, a.deg, a.n, s.k,
                                            s.p.max_iter, cuda::detail::from_fixed60(done.x),
                                            cuda::detail::from_fixed60_signed(done.y), s.p.alpha, s.p.tol);
      if (threadIdx.x == 0 && nd != not_extrapolated) {
        saved.dangling = nd;
        saved.replaced = true;
      }
      __syncthreads();
    }
  }
  leave_launch(acc);
}

// ---- cluster: x copied into every block's shared memory --------------------------
//
// For graphs whose x fits twice in one SM's shared memory (about 14 k vertices
// in float on an H100, beside the links) the solve runs on one thread-block
// cluster of C <= 16 blocks (Hopper's distributed shared memory) instead of a
// grid: every block keeps the block's slices (as resident mode) and a whole
// copy of x_k and x_{k+1}, so every gather is a shared-memory load, and a
// block writes each row it finishes into every block's copy of x_{k+1}
// (st.shared::cluster). The step's one barrier is the cluster's (hardware,
// split arrive / wait with release / acquire), not the grid's (an L2 counter,
// 1.2 us on the H100: docs/PERFORMANCE.md). Step k:
//   A: each block pulls its slices from its copy of x_k, writes the rows it
//      finishes into every copy of x_{k+1}, the partials of rows cut by slice
//      ends into every block's partial slots, and its sums into every block's
//      slot (me);
//   cluster barrier;
//   B: every block finishes every cut row itself from its own slots (the same
//      arithmetic, in the same order, as contribute(): the same bits in every
//      block and as the other modes), into its own copy of x_{k+1}, and adds
//      the cut rows' sums to the C blocks' slots: every block gets the same
//      totals (integers) and takes the same stop decision.
// No L2 round trip is left in a step (the rows' degrees are copied in too);
// phase-parity double buffers for x, the slots and the partials keep a block
// that is one phase ahead from writing what a slower block still reads.

// A cut row's facts, copied into every block: its row, the slices t0 <= t <
// t1 whose tails it sums and the slice t1 whose head ends it, its out-degree.
using cut_row = int4;  // {R, t0, t1, deg}

// Shared memory of a cluster-mode block, in this order: the blocks' sums
// (2 parities x C blocks x (residual, dangling)), the slices' partials
// (2 parities x (tail, head) x slices doubles), the cut rows, x's two copies
// (n rounded up to 4 entries each), the block's virtual rows' degrees (32 nb),
// then the resident layout of its slices.
template <class T>
struct cluster_layout {
  fixed60* sums;
  double* part;
  cut_row* cut;
  T* x0;
  T* x1;
  index_t* vdeg;
  resident_layout L;
  __host__ __device__ static std::size_t x_entries(index_t n) {
    return (static_cast<std::size_t>(n) + 3) / 4 * 4;
  }
  __host__ __device__ static std::size_t bytes(int blocks, index_t slices, index_t cuts, index_t n, int nb,
                                               std::size_t entries) {
    return 32 * static_cast<std::size_t>(blocks) + 32 * static_cast<std::size_t>(slices) +
           sizeof(cut_row) * static_cast<std::size_t>(cuts) + 2 * x_entries(n) * sizeof(T) +
           128 * static_cast<std::size_t>(nb) + resident_layout::bytes(nb, entries);
  }
  __device__ cluster_layout(unsigned char* smem, int blocks, index_t slices, index_t cuts, index_t n, int nb)
      : sums(reinterpret_cast<fixed60*>(smem)),
        part(reinterpret_cast<double*>(smem + 32 * blocks)),
        cut(reinterpret_cast<cut_row*>(part + 4 * static_cast<std::size_t>(slices))),  // 16-byte aligned
        x0(reinterpret_cast<T*>(cut + cuts)),
        x1(x0 + x_entries(n)),
        vdeg(reinterpret_cast<index_t*>(x1 + x_entries(n))),
        L(reinterpret_cast<unsigned char*>(vdeg + 32 * static_cast<std::size_t>(nb)), nb) {}
};

template <class T, bool X, bool R = false>
__global__ void __launch_bounds__(step_threads, 1)
    persistent_cluster(fused_args<T> a, const cut_row* cut_rows, index_t cuts, pagerank_state* st,
                       pagerank_progress* progress, int batch,
                       const __grid_constant__ persistent_extrapolation<T> ex,
                       const __grid_constant__ solve_start start, int fresh) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr unsigned full = 0xffffffffu;
  let_next_grid_launch();
  if (!fresh && st->done) return;  // written by the previous launch: uniform across the cluster
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const int blocks = static_cast<int>(cluster.num_blocks());  // the grid is one cluster
  const int me = static_cast<int>(cluster.block_rank());
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const index_t n = a.n;
  // A fresh start's state (every block computes x_0 into its own copy below;
  // the others read the state after the cluster's barrier).
  if (fresh && me == 0 && threadIdx.x == 0) close_init(st, make_double2(0.0, start.state.dangling), start);

  __shared__ ex_book bk;                      // X: the solve extrapolates (ex.every > 0)
  if constexpr (X) load_book(bk, ex, fresh);  // read after the cluster barrier below
  extern __shared__ __align__(16) unsigned char smem[];
  const block_span span = dealt_slices(a.slices);
  const int nb = span.nb;
  const cluster_layout<T> Q(smem, blocks, a.slices, cuts, n, nb);
  load_resident(a, Q.L, span);
  for (int i = warp; i < nb; i += step_warps) {
    const index_t row = Q.L.vrow[32 * i + lane];
    Q.vdeg[32 * i + lane] = row < n ? __ldg(a.deg + row) : 0;
  }
  for (index_t j = static_cast<index_t>(threadIdx.x); j < cuts; j += step_threads) Q.cut[j] = cut_rows[j];
  {
    const int k0 = fresh ? 0 : st->iteration;
    const T* xg = (k0 & 1) ? a.x1 : a.x0;
    T* xl = (k0 & 1) ? Q.x1 : Q.x0;
    const double r = 1.0 / static_cast<double>(n);
    for (index_t i = static_cast<index_t>(threadIdx.x); i < n; i += step_threads)
      xl[i] = fresh ? x_of_rank<T>(r, __ldg(a.deg + i)) : xg[i];
  }
  cluster.sync();  // every block started (its shared memory exists) and loaded; a fresh state written
  const launch_params p(st, a.n, batch);
  double dangling = st->dangling;
  int k = st->iteration;

  __shared__ fixed60 red_l1[step_warps], red_dangling[step_warps];
  const std::size_t S = static_cast<std::size_t>(a.slices);
  double residual = 0;
  // X: an inner loop of steps that leaves where a step's end saves or
  // extrapolates (the resident kernel says why).
  for (bool more = true; more;) {
    for (;;) {
      const int par = k & 1;
      const T* xc = par ? Q.x1 : Q.x0;
      T* xn = par ? Q.x0 : Q.x1;
      double* tail = Q.part + 2 * par * S;  // this step's partials (tail, then head)
      double* head = tail + S;
      // r_{k+1} = alpha P^T r_k + c_k v, c_k = alpha dangling_k + 1 - alpha.
      const double c = p.alpha * dangling + (1.0 - p.alpha);
      step_sums s;
      // A: the block's slices, in resident_gather's order.
      for (int i = warp; i < nb; i += step_warps) {
        const int at = 32 * i + lane;
        const index_t row = Q.L.vrow[at];
        const unsigned len = Q.L.vlen[at];
        row_data<T> rd{};
        if (row < n)
          rd = {Q.vdeg[at], xc[row], p.personalized ? static_cast<double>(__ldg(a.v + row)) : p.v_uniform};
        const index_t* cp = Q.L.col + Q.L.off[i] + lane;
        double acc = 0;
        for (unsigned j = 0; j < len; j += unroll) {
          index_t cj[unroll];
#pragma unroll
          for (int u = 0; u < unroll; ++u)
            if (j + u < len) cj[u] = cp[(j + u) * 32];
#pragma unroll
          for (int u = 0; u < unroll; ++u)
            if (j + u < len) acc += static_cast<double>(xc[cj[u]]);
        }
        const index_t q = static_cast<index_t>(me) + static_cast<index_t>(i) * static_cast<index_t>(blocks);
        const index_t out = slice_outside(Q.L, i, row);
        const slice_scan sc = scan_slice(n, row, out, acc);
        if (sc.finishes) {
          const T xs = update_row(sc.sum, rd, p.alpha, c, s);
          for (int b = 0; b < blocks; ++b) cluster.map_shared_rank(xn, b)[row] = xs;
        }
        if (sc.head_lane) {  // lane b writes block b's slot
          const double h = __shfl_sync(full, sc.sum, __ffs(sc.head_lane) - 1);
          if (lane < blocks) cluster.map_shared_rank(head, lane)[q] = h;
        }
        if (sc.tail_cut) {
          const double t = __shfl_sync(full, sc.sum, 31);
          if (lane < blocks) cluster.map_shared_rank(tail, lane)[q] = t;
        }
      }
      fixed60* slot = Q.sums + 2 * (par * blocks + me);
      if (block_sums(s)) {
        for (int b = 0; b < blocks; ++b) {
          fixed60* d = cluster.map_shared_rank(slot, b);
          d[0] = s.l1;
          d[1] = s.dangling;
        }
      }
      cluster.sync();  // every block's rows, partials and sums of step k written and visible

      // B: every cut row, in every block, into this copy, in contribute()'s
      // order: the tails t0 <= t < t1 dealt to 32 lanes, a butterfly, then the
      // head. A row of at most 8 tails (all but rows of thousands of links) is
      // a thread's: the butterfly's pairs (i, i + 4), (i, i + 2), (0, 1) over
      // its 8 values (the pairs at 16 and 8 add zeros), the same bits.
      step_sums sb;
      const auto finish_cut = [&](const cut_row& cr, double y) {
        y += head[cr.z];
        const row_data<T> rd{cr.w, xc[cr.x],
                             p.personalized ? static_cast<double>(__ldg(a.v + cr.x)) : p.v_uniform};
        xn[cr.x] = update_row(y, rd, p.alpha, c, sb);
      };
      for (index_t j = static_cast<index_t>(threadIdx.x); j < cuts; j += step_threads) {
        const cut_row cr = Q.cut[j];
        if (cr.z - cr.y > 8) continue;
        double v[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) v[u] = u < cr.z - cr.y ? tail[cr.y + u] : 0.0;
#pragma unroll
        for (int off = 4; off > 0; off >>= 1)
#pragma unroll
          for (int u = 0; u < off; ++u) v[u] += v[u + off];
        finish_cut(cr, v[0]);
      }
      for (index_t j = warp; j < cuts; j += step_warps) {
        const cut_row cr = Q.cut[j];
        if (cr.z - cr.y <= 8) continue;
        double y = 0;
        for (index_t t = cr.y + lane; t < cr.z; t += 32) y += tail[t];
        for (int off = 16; off > 0; off >>= 1) y += __shfl_xor_sync(full, y, off);
        if (lane == 0) finish_cut(cr, y);
      }
      // Totals: the cut rows' sums (the same in every block) and the C blocks' slots.
      for (int off = 16; off > 0; off >>= 1) {
        sb.l1 += __shfl_down_sync(full, sb.l1, off);
        sb.dangling += __shfl_down_sync(full, sb.dangling, off);
      }
      if (lane == 0) {
        red_l1[warp] = sb.l1;
        red_dangling[warp] = sb.dangling;
      }
      __syncthreads();  // also orders B's writes of x_{k+1} before the next step's gathers
      const fixed60* slots = Q.sums + 2 * par * blocks;
      fixed60 l1 = red_l1[lane] + (lane < blocks ? slots[2 * lane] : 0);
      fixed60 dm = red_dangling[lane] + (lane < blocks ? slots[2 * lane + 1] : 0);
      for (int off = 16; off > 0; off >>= 1) {
        l1 += __shfl_xor_sync(full, l1, off);
        dm += __shfl_xor_sync(full, dm, off);
      }
      residual = cuda::detail::from_fixed60(l1);
      dangling = cuda::detail::from_fixed60_signed(dm);
      ++k;
      if (me == 0 && threadIdx.x == 0) launch_params::report_step(progress, p.trace, k, residual);
      if constexpr (X) {
        if (ex_due(ex.every, ex.rre_w, k)) break;
      }
      // The same bits in every thread of the cluster: all leave after the same step.
      if (residual < p.tol || k >= p.last) {
        more = false;
        break;
      }
    }
    if constexpr (X) {
      if (more) {
        const double nd = extrapolate_step<R>(ex, bk, cluster_team{}, (k & 1) ? Q.x1 : Q.x0, a.deg, n, k,
                                              p.max_iter, residual, dangling, p.alpha, p.tol);
        if (nd != not_extrapolated) dangling = nd;
        more = !(residual < p.tol || k >= p.last);
      }
    }
  }
  if (me == 0 && threadIdx.x == 0) launch_params::publish(st, k, residual, dangling);
  // x_k back to global memory (every block holds all of it): its share.
  {
    T* xg = (k & 1) ? a.x1 : a.x0;
    const T* xl = (k & 1) ? Q.x1 : Q.x0;
    for (index_t i = static_cast<index_t>(me * step_threads) + static_cast<index_t>(threadIdx.x); i < n;
         i += static_cast<index_t>(blocks * step_threads))
      xg[i] = xl[i];
  }
  cluster.sync();  // no block leaves while another may still touch its shared memory
#endif
}

// A launch of one cluster of `blocks` blocks of step_threads (the whole grid).
struct cluster_launch {
  cudaLaunchAttribute attr{};
  cudaLaunchConfig_t cfg{};
  cluster_launch(int blocks, std::size_t smem, cudaStream_t stream) {
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = static_cast<unsigned>(blocks);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.gridDim = dim3(static_cast<unsigned>(blocks));
    cfg.blockDim = dim3(step_threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  cluster_launch(const cluster_launch&) = delete;  // cfg points at attr
  cluster_launch& operator=(const cluster_launch&) = delete;
};

}  // namespace

template <class T>
persistent_pull<T>::persistent_pull(fused_pull<T>& fused, cudaStream_t stream, const std::string& remembered,
                                    bool resident_only)
    : fused_(fused), stream_(stream), acc_(acc_words), trace_(trial_steps + 1) {
  int device = 0, cooperative = 0, optin = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (!cooperative) throw cuda_error("the persistent pull needs a device with cooperative launch");
  PERRON_CUDA_CHECK(
      cudaMemsetAsync(acc_.data(), 0, acc_.bytes(), stream_));  // then kept zero by the launches
  PERRON_CUDA_CHECK(cudaMemsetAsync(trace_.data(), 0, trace_.bytes(), stream_));
  cudaFuncAttributes fa{};
  // Each kernel comes plain, extrapolating by the quadratic (X) and by rre (X,
  // R); the extrapolating ones' static shared memory (the extrapolation's book
  // and sums) is the larger, so the larger of theirs bounds all three.
  const auto static_bytes = [&fa](auto quadratic, auto rre) {
    PERRON_CUDA_CHECK(cudaFuncGetAttributes(&fa, quadratic));
    const std::size_t q = fa.sharedSizeBytes;
    PERRON_CUDA_CHECK(cudaFuncGetAttributes(&fa, rre));
    return static_cast<long long>(std::max(q, fa.sharedSizeBytes));
  };
  const long long room = (static_cast<long long>(optin) -
                          static_bytes(persistent_solve<T, true>, persistent_solve<T, true, true>)) /
                         static_cast<long long>(sizeof(T));
  max_hub_ = static_cast<int>(std::min<long long>(std::max<long long>(0, room), fused.max_hub()) / 32 * 32);
  // All the device allows the kernel, not this graph's hub: the attribute is
  // the process's, shared with every other solver (pagerank_fused.cu).
  for (auto kernel : {persistent_solve<T, false>, persistent_solve<T, true>, persistent_solve<T, true, true>})
    PERRON_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(std::max<long long>(0, room) * sizeof(T))));
  const auto hub_bytes = static_cast<std::size_t>(max_hub_) * sizeof(T);
  // Every block must be resident at once (a cooperative launch refuses more):
  // the blocks that fit per SM with the largest hub, on every SM.
  int per_sm = INT_MAX;
  for (auto kernel : {persistent_solve<T, true>, persistent_solve<T, true, true>}) {
    int fits = 0;
    PERRON_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fits, kernel, step_threads, hub_bytes));
    per_sm = std::min(per_sm, fits);
  }
  if (per_sm < 1)
    throw cuda_error("the persistent pull: a block of " + std::to_string(step_threads) + " threads and " +
                     std::to_string(hub_bytes) + " bytes of shared memory does not fit on an SM");
  streamed_grid_ = per_sm * sms_;
  grid_ = streamed_grid_;
  // Resident mode: the largest shared memory a block of it may take.
  max_resident_bytes_ = static_cast<std::size_t>(std::max<long long>(
      0, static_cast<long long>(optin) -
             static_bytes(persistent_resident<T, true>, persistent_resident<T, true, true>)));
  int clusters = 0;
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
  max_resident_cluster_ = clusters ? 16 : 0;
  for (auto kernel :
       {persistent_resident<T, false>, persistent_resident<T, true>, persistent_resident<T, true, true>}) {
    PERRON_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(max_resident_bytes_)));
    if (clusters &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
      (void)cudaGetLastError();
      max_resident_cluster_ = 8;  // portable
    }
  }
  {
    const fused_args<T> a = fused_.args();
    slice_start_.resize(static_cast<std::size_t>(a.slices) + 1);
    PERRON_CUDA_CHECK(cudaMemcpyAsync(slice_start_.data(), a.slice_start,
                                      slice_start_.size() * sizeof(unsigned), cudaMemcpyDeviceToHost,
                                      stream_));
    // Each slice's last virtual row's row and the next slice's first's.
    const std::size_t S = static_cast<std::size_t>(a.slices);
    std::vector<index_t> edges(2 * (S > 0 ? S - 1 : 0));
    if (S > 1)
      PERRON_CUDA_CHECK(cudaMemcpy2DAsync(edges.data(), 2 * sizeof(index_t), a.vrow + 31,
                                          32 * sizeof(index_t), 2 * sizeof(index_t), S - 1,
                                          cudaMemcpyDeviceToHost, stream_));
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));
    cut_after_.assign(S, 0);
    for (std::size_t q = 0; q + 1 < S; ++q)
      cut_after_[q] = edges[2 * q] < a.n && edges[2 * q] == edges[2 * q + 1];
  }
  deal_ = cuda::device_buffer<unsigned>(static_cast<std::size_t>(streamed_grid_) + slice_start_.size());
  // Cluster mode: where the device launches clusters (sm_90 on), as large as
  // it allows (16 blocks where non-portable sizes are), and x fits twice in
  // a block's shared memory.
  max_cluster_bytes_ = static_cast<std::size_t>(std::max<long long>(
      0, static_cast<long long>(optin) -
             static_bytes(persistent_cluster<T, true>, persistent_cluster<T, true, true>)));
  n_ = fused_.args().n;
  ex_partials_ =
      cuda::device_buffer<double>(rre_sum_slots * ((static_cast<std::size_t>(n_) + ex_chunk - 1) / ex_chunk));
  if (clusters && 2 * cluster_layout<T>::x_entries(n_) * sizeof(T) < max_cluster_bytes_) {
    max_cluster_ = 16;
    for (auto kernel :
         {persistent_cluster<T, false>, persistent_cluster<T, true>, persistent_cluster<T, true, true>}) {
      PERRON_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(max_cluster_bytes_)));
      if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
        (void)cudaGetLastError();
        max_cluster_ = 8;  // portable
      }
    }
    find_cut_rows();
  }
  choose_mode(remembered, resident_only);
}

template <class T>
void persistent_pull<T>::find_cut_rows() {
  const fused_args<T> a = fused_.args();
  const auto n = static_cast<std::size_t>(a.n);
  std::vector<index_t> parts(n), first(n), deg(n);
  PERRON_CUDA_CHECK(
      cudaMemcpyAsync(parts.data(), a.parts, n * sizeof(index_t), cudaMemcpyDeviceToHost, stream_));
  PERRON_CUDA_CHECK(
      cudaMemcpyAsync(first.data(), a.first_slice, n * sizeof(index_t), cudaMemcpyDeviceToHost, stream_));
  PERRON_CUDA_CHECK(cudaMemcpyAsync(deg.data(), a.deg, n * sizeof(index_t), cudaMemcpyDeviceToHost, stream_));
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<int4> cut;
  for (std::size_t r = 0; r < n; ++r)
    if (parts[r] > 1)
      cut.push_back(make_int4(static_cast<int>(r), first[r], first[r] + parts[r] - 1, deg[r]));
  cut_ = cuda::device_buffer<int4>(cut.size());
  if (!cut.empty()) cut_.upload(cut);
}

template <class T>
std::size_t persistent_pull<T>::cluster_bytes(int blocks) const {
  if (blocks > max_cluster_) return 0;
  const auto slices = static_cast<long long>(slice_start_.size()) - 1;
  const auto cuts = static_cast<index_t>(cut_.size());
  const auto S = static_cast<index_t>(slices);
  std::size_t most = cluster_layout<T>::bytes(blocks, S, cuts, n_, 0, 0);
  for (long long b = 0; b < std::min<long long>(blocks, slices); ++b) {
    const long long nb = (slices - 1 - b) / blocks + 1;
    if (nb > step_threads) return 0;  // one slice per thread in the block's offset scan
    std::size_t entries = 0;
    for (long long q = b; q < slices; q += blocks) entries += slice_start_[q + 1] - slice_start_[q];
    most = std::max(most, cluster_layout<T>::bytes(blocks, S, cuts, n_, static_cast<int>(nb), entries));
  }
  if (most > max_cluster_bytes_) return 0;
  const cluster_launch launch(blocks, most, nullptr);
  for (auto kernel : {persistent_cluster<T, true>, persistent_cluster<T, true, true>}) {
    int active = 0;
    if (cudaOccupancyMaxActiveClusters(&active, kernel, &launch.cfg) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    if (active < 1) return 0;
  }
  return std::max<std::size_t>(most, 16);
}

template <class T>
bool persistent_pull<T>::resident_cluster_fits(int grid, std::size_t bytes) const {
  if (grid < 2 || grid > max_resident_cluster_) return false;
  const cluster_launch launch(grid, bytes, nullptr);
  for (auto kernel : {persistent_resident<T, true>, persistent_resident<T, true, true>}) {
    int active = 0;
    if (cudaOccupancyMaxActiveClusters(&active, kernel, &launch.cfg) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    if (active < 1) return false;
  }
  return true;
}

template <class T>
std::string persistent_pull<T>::describe() const {
  switch (mode_) {
    case mode::cluster:
      return "cluster (one thread-block cluster; each block's slices and a copy of x in its shared memory)";
    case mode::resident:
      return std::string(one_cluster_ ? "resident (each block's slices in shared memory), the grid launched "
                                        "as one cluster, whose barrier it takes"
                                      : "resident (each block's slices in shared memory)") +
             (grouped_ ? ", each cut row's slices in one block" : "");
    case mode::streamed:
      break;
  }
  return "streamed, " + std::to_string(hub_) + " entries of x in shared memory";
}

template <class T>
std::string persistent_pull<T>::mode_text(mode how, int grid, int hub, bool one_cluster, bool grouped) {
  const char* word = how == mode::cluster ? "cluster" : how == mode::resident ? "resident" : "streamed";
  return std::string(word) + " " + std::to_string(grid) + " " + std::to_string(hub) +
         (one_cluster ? " cluster" : "") + (grouped ? " grouped" : "");
}

template <class T>
std::string persistent_pull<T>::mode_text() const {
  return mode_text(mode_, grid_, hub_, one_cluster_, grouped_);
}

template <class T>
std::size_t persistent_pull<T>::resident_bytes(int grid, bool grouped, std::vector<unsigned>* deal) const {
  std::vector<unsigned> d = deal_slices(slice_start_, cut_after_, grid, step_warps, step_threads, grouped);
  if (d.empty()) return 0;
  std::size_t most = 0;
  for (int b = 0; b < grid; ++b) {
    std::size_t entries = 0;
    for (unsigned j = d[b]; j < d[b + 1]; ++j) {
      const unsigned q = d[grid + 1 + j];
      entries += slice_start_[q + 1] - slice_start_[q];
    }
    most = std::max(most, resident_layout::bytes(static_cast<int>(d[b + 1] - d[b]), entries));
  }
  if (most > max_resident_bytes_) return 0;
  if (deal) *deal = std::move(d);
  for (auto kernel : {persistent_resident<T, true>, persistent_resident<T, true, true>}) {
    int per_sm = 0;
    PERRON_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, step_threads, most));
    if (per_sm < 1 || static_cast<long long>(per_sm) * sms_ < grid) return 0;
  }
  return std::max<std::size_t>(most, 16);
}

template <class T>
bool persistent_pull<T>::order_trial_pays(index_t vertices, std::size_t links, bool resident,
                                          double local_links, index_t max_in_degree) {
  const char* pinned = std::getenv("PERRON_PERSISTENT");
  return resident && vertices > own_order_window &&
         own_order_trial_size(links, vertices, local_links, max_in_degree) &&
         (pinned == nullptr || *pinned == '\0');
}

template <class T>
int persistent_pull<T>::vrow_links(std::size_t links) {
  int device = 0, sms = 1;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t lanes = static_cast<std::size_t>(sms) * step_threads;
  const std::size_t w = (links + lanes - 1) / lanes;
  return static_cast<int>(std::clamp<std::size_t>((w + 7) / 8 * 8, 8, 64));
}

template <class T>
void persistent_pull<T>::launch_solve(pagerank_state* st, pagerank_progress* progress, int batch,
                                      persistent_extrapolation<T> ex, const solve_start* fresh) {
  fused_args<T> a = fused_.args();
  a.hub = hub();
  ex.partials = ex_partials_.data();
  solve_start start = fresh ? *fresh : solve_start{};
  int from_start = fresh ? 1 : 0;
  if (mode_ == mode::cluster) {
    const cluster_launch launch(grid_, smem_, stream_);
    const int4* cut = cut_.data();
    const auto cuts = static_cast<index_t>(cut_.size());
    PERRON_CUDA_CHECK(cudaLaunchKernelEx(&launch.cfg,
                                         ex.every == 0 ? persistent_cluster<T, false>
                                         : ex.rre_w    ? persistent_cluster<T, true, true>
                                                       : persistent_cluster<T, true>,
                                         a, cut, cuts, st, progress, batch, ex, start, from_start));
    PERRON_CUDA_CHECK_LAUNCH("pagerank persistent_cluster");
    return;
  }
  fixed60* acc = acc_.data();  // zero: the constructor's, then each launch's last block (leave_launch)
  const unsigned* deal = deal_.data();
  void* streamed_params[] = {&a, &st, &progress, &acc, &batch, &ex, &start, &from_start};
  void* resident_params[] = {&a, &deal, &st, &progress, &acc, &batch, &ex, &start, &from_start};
  const bool resident = mode_ == mode::resident;
  void** params = resident ? resident_params : streamed_params;
  const void* kernels[2][3] = {// [resident][plain, quadratic, rre]
                               {reinterpret_cast<const void*>(persistent_solve<T, false>),
                                reinterpret_cast<const void*>(persistent_solve<T, true>),
                                reinterpret_cast<const void*>(persistent_solve<T, true, true>)},
                               {reinterpret_cast<const void*>(persistent_resident<T, false>),
                                reinterpret_cast<const void*>(persistent_resident<T, true>),
                                reinterpret_cast<const void*>(persistent_resident<T, true, true>)}};
  const void* kernel = kernels[resident ? 1 : 0][ex.every == 0 ? 0 : ex.rre_w ? 2 : 1];
  const std::size_t smem = resident ? smem_ : static_cast<std::size_t>(hub_) * sizeof(T);
  if (resident && one_cluster_) {
    const cluster_launch launch(grid_, smem, stream_);
    PERRON_CUDA_CHECK(cudaLaunchKernelExC(&launch.cfg, kernel, params));
  } else {
    PERRON_CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, dim3(static_cast<unsigned>(grid_)),
                                                  dim3(step_threads), params, smem, stream_));
  }
  PERRON_CUDA_CHECK_LAUNCH("pagerank persistent_solve");
}

// Solves of trial_steps steps (tol 0: none stops early) from the uniform
// start with each candidate: median of 3 after one untimed; the fastest
// stays. Candidates: resident mode (the block's slices in shared memory) with
// one slice per warp where the graph allows (fewer blocks: a cheaper grid
// barrier) and with a block on every SM, where the slices fit, each with
// both deals of the slices (deal_slices(): runs of cut rows kept whole, or
// cut to spread the work) where they differ; streamed mode
// with each hub size (a hub is copied from L2 into every SM at every step, so
// on a small graph it can cost more than the gathers it saves). Every
// candidate sums every row in the same order, so the choice changes the
// time, never the bits. PERRON_PERSISTENT=resident|streamed keeps one mode
// (tests and experiments; resident-cluster: only resident grids launched as
// one cluster; resident-grouped, resident-spread: one deal); PERRON_FUSED_HUB
// fixes the streamed hub. A
// remembered mode (mode_text() of an earlier trial) that is one of the
// candidates is taken without timing.
template <class T>
void persistent_pull<T>::choose_mode(const std::string& remembered, bool resident_only) {
  struct candidate {
    mode how;
    int grid, hub;
    std::size_t smem;
    bool one_cluster = false;
    bool grouped = false;             // resident: deal_slices()'s
    std::vector<unsigned> deal = {};  // resident: the blocks' slices
  };
  const char* env = std::getenv("PERRON_PERSISTENT");
  const std::string only = env && *env ? env : resident_only ? "resident" : "";
  std::vector<candidate> candidates;
  std::string forced;
  const auto slices = static_cast<long long>(slice_start_.size()) - 1;
  if (only.empty() || only == "cluster") {
    // Fewer blocks: fewer copies of each row to write, more links each. Only
    // clusters whose every block holds a slice: a block without one only adds
    // copies of x to write (on graphs of a few slices a few resident blocks
    // were as fast, H100).
    for (int b = max_cluster_; b >= 4; b /= 2) {
      const std::size_t bytes = cluster_bytes(b);
      if (bytes > 0 && b <= slices) candidates.push_back({mode::cluster, b, 0, bytes});
    }
  }
  const bool resident_cluster_only = only == "resident-cluster";
  // resident-grouped, resident-spread: one deal only, even where the two are alike.
  const int one_deal = only == "resident-grouped" ? 1 : only == "resident-spread" ? 0 : -1;
  if (only.empty() || only == "resident" || resident_cluster_only || one_deal >= 0 ||
      (only == "cluster" && candidates.empty())) {
    const int fewest = static_cast<int>(std::clamp<long long>((slices + step_warps - 1) / step_warps, 1,
                                                              static_cast<long long>(streamed_grid_)));
    std::vector<unsigned> spread;  // the last grid's deal without `grouped`
    for (int g : {fewest, std::min(streamed_grid_, sms_)}) {
      if (!candidates.empty() && candidates.back().how == mode::resident && candidates.back().grid == g)
        continue;
      for (bool grouped : {false, true}) {
        if (one_deal >= 0 && grouped != (one_deal == 1)) continue;
        std::vector<unsigned> deal;
        const std::size_t bytes = resident_bytes(g, grouped, &deal);
        // A grouped deal alike the spread one keeps no run whole that the other cut.
        if (bytes == 0 || (grouped && one_deal < 0 && deal == spread)) continue;
        if (!grouped) spread = deal;
        // A few blocks: also as one cluster (the hardware barrier).
        if (resident_cluster_fits(g, bytes))
          candidates.push_back({mode::resident, g, 0, bytes, true, grouped, deal});
        if (!resident_cluster_only) candidates.push_back({mode::resident, g, 0, bytes, false, grouped, deal});
      }
    }
  }
  if (only.empty() || only == "streamed" || candidates.empty()) {
    int hub = 0;
    if (forced_hub(max_hub_, hub, forced)) {
      candidates.push_back({mode::streamed, streamed_grid_, hub, 0});
    } else {
      std::vector<int> hubs{0, fused_.hub() / 32 * 32, max_hub_ / 4 / 32 * 32, max_hub_};
      for (int& c : hubs) c = std::min(c, max_hub_);
      std::sort(hubs.begin(), hubs.end());
      hubs.erase(std::unique(hubs.begin(), hubs.end()), hubs.end());
      for (int h : hubs) candidates.push_back({mode::streamed, streamed_grid_, h, 0});
    }
  }
  const auto take = [&](const candidate& c) {
    mode_ = c.how;
    grid_ = c.grid;
    hub_ = c.hub;
    smem_ = c.smem;
    one_cluster_ = c.one_cluster;
    grouped_ = c.grouped;
    if (c.how == mode::resident)  // pageable: the copy has read c.deal when it returns
      PERRON_CUDA_CHECK(cudaMemcpyAsync(deal_.data(), c.deal.data(), c.deal.size() * sizeof(unsigned),
                                        cudaMemcpyHostToDevice, stream_));
  };
  trial_ = forced;
  const scoped_seconds clock(trial_seconds_);
  if (candidates.size() == 1) {
    take(candidates.front());
    if (trial_.empty()) trial_ = "one candidate";
    return;
  }
  for (const candidate& c : candidates)
    if (remembered == mode_text(c.how, c.grid, c.hub, c.one_cluster, c.grouped)) {
      take(c);
      trial_ += (trial_.empty() ? "" : ", ") + remembered + ": an earlier trial's pick";
      return;
    }
  // Round-robin: every candidate's untimed solve, then rounds of one timed
  // solve each, so that a drift of the device (clocks, a neighbour on a
  // shared GPU) falls on every candidate alike rather than on whichever was
  // timed first; the pick is kept with the graph's cache entry, so it has to
  // hold for the runs after this one.
  std::vector<std::vector<float>> ms(candidates.size());
  cuda::device_buffer<pagerank_state> st(1);
  cuda::event e0, e1;
  for (int round = 0; round <= trial_rounds; ++round)
    for (std::size_t at = 0; at < candidates.size(); ++at) {
      take(candidates[at]);
      const float t = time_once(st.data(), e0, e1);
      if (round > 0) ms[at].push_back(t);
    }
  float best = 0;
  std::size_t best_at = 0;
  for (std::size_t at = 0; at < candidates.size(); ++at) {
    const candidate& c = candidates[at];
    std::sort(ms[at].begin(), ms[at].end());
    const float med = ms[at][ms[at].size() / 2];
    char buf[96];
    if (c.how != mode::streamed)
      std::snprintf(buf, sizeof buf, "%s%s %d blocks%s%s: %.2f us", trial_.empty() ? "" : ", ",
                    c.how == mode::cluster ? "cluster" : "resident", c.grid,
                    c.one_cluster ? " as one cluster" : "", c.grouped ? " grouped" : "",
                    1e3 * med / trial_steps);
    else
      std::snprintf(buf, sizeof buf, "%shub %d: %.2f us", trial_.empty() ? "" : ", ", c.hub,
                    1e3 * med / trial_steps);
    trial_ += buf;
    if (at == 0 || med < best) {
      best = med;
      best_at = at;
    }
  }
  take(candidates[best_at]);
  step_us_ = 1e3 * best / trial_steps;
}

// Median device time (ms) of trial_steps steps in the current mode, over trial_rounds
// launches after one, from a scratch state that never stops.
template <class T>
float persistent_pull<T>::time_steps() {
  cuda::device_buffer<pagerank_state> st(1);
  cuda::event e0, e1;
  std::vector<float> ms;
  for (int i = 0; i <= trial_rounds; ++i) {
    const float t = time_once(st.data(), e0, e1);
    if (i >= 1) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Each timed solve also leaves its residuals in trace_ (report_progress its
// capacity: the record of step k at trace_[k]; a few stores a step, off the
// timed steps' critical path as the progress line's are).
template <class T>
float persistent_pull<T>::time_once(pagerank_state* st, cuda::event& e0, cuda::event& e1) {
  pagerank_state h = trial_state(trial_steps);
  h.report_progress = trial_steps + 1;  // step k's residual at trace_[k] (plain_trace)
  PERRON_CUDA_CHECK(cudaMemcpyAsync(st, &h, sizeof h, cudaMemcpyHostToDevice, stream_));
  fused_.launch_init(nullptr, 1, st, solve_start{h});
  e0.record(stream_);
  launch_solve(st, trace_.data(), INT_MAX);
  e1.record(stream_);
  e1.synchronize();
  traced_ = true;
  trace_host_.residuals.clear();
  return e1.ms_since(e0);
}

template <class T>
const plain_trace& persistent_pull<T>::trial_trace() {
  if (traced_ && trace_host_.residuals.empty()) trace_host_ = read_trace(trace_, stream_);
  return trace_host_;
}

template <class T>
double persistent_pull<T>::step_us() {
  if (!(step_us_ > 0)) {
    const scoped_seconds clock(trial_seconds_);
    step_us_ = 1e3 * time_steps() / trial_steps;
  }
  return step_us_;
}

template class persistent_pull<float>;
template class persistent_pull<double>;

}  // namespace perron::pagerank_gpu
