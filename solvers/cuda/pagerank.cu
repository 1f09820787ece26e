// PageRank on the GPU: the SpMV of the plan, then one fused kernel per step,
// looped on the device. (pagerank_pull::fused replaces both launches of a
// step with one kernel of its own, pagerank_fused.cuh; the loops below are
// the same for it. pagerank_pull::persistent runs the fused pull's steps in
// one cooperative kernel per solve, pagerank_persistent.cuh: no loop here.)
//
// One step k -> k+1 is two launches on the solver's stream:
//   1. y = P^T r_k                                  (spmv_plan::apply, any kernel)
//   2. update_kernel, fused: r_{k+1} = alpha y + c_k v with c_k = alpha * dangling_k + 1 - alpha,
//      written over r_k in place (each thread reads its own r_k(i) first), while
//      accumulating in double  ||r_{k+1} - r_k||_1  and  dangling_{k+1} = sum_{j dangling} r_{k+1}(j).
//      The block sums go to per-block slots; the last block to finish (a
//      ticket counter) adds them in block order (deterministic) and closes the
//      step: it publishes residual and dangling mass, counts the iteration and
//      decides whether to go on. No third launch, no host involvement.
// Per step that is one read of P^T plus, in the update, 3 n values of T
// (read y and r, write r), n/8 bytes of dangling bit mask, and n values of v
// only when personalized.
//
// The loop (pagerank_loop):
//  - graph_while: a CUDA graph holding one conditional WHILE node whose body is
//    the two launches above (graph_unroll times), captured with
//    cudaStreamBeginCaptureToGraph. The last block sets the condition to 0
//    when residual < tol or k == max_iter, so the host launches once and
//    synchronizes once per solve.
//  - check_every: a graph of check_interval copies of the body, launched
//    until the state says done, one host sync per launch. Once a step
//    converges (or reaches max_iter) it sets `done` and the remaining update
//    launches of the batch return at once, so r, the iteration count and the
//    residual are exactly those of the step where the criterion was first met.
//    Used when the plan's SpMV does not capture into a conditional body.
// A solve starts with the init kernel, which receives the solve's parameters
// by value and writes the state (solve_start), and ends with one kernel that
// publishes the state and, for small graphs, the ranks into mapped host memory
// (solve_out, fetch()): no copy engine before or after the loop.
// With --accelerate (spmv and fused pulls; the persistent kernel extrapolates
// itself, pagerank_persistent.cuh) a check_every batch, and the fused
// pull's WHILE trip for runs of up to fused_run_trip steps, is one run of
// accelerate_every steps and the extrapolation that ends it
// (solvers/cuda/pagerank_accel.cuh): the same syncs as without it. The spmv
// pull's SpMVs do not stop with the state (and a trip of a long run would be
// as many empty launches after the stop), so its WHILE trips, and the fused
// pull's for longer runs, keep their few steps (a divisor of the run) and the
// extrapolation sits in an IF node after them, which the steps turn on at a
// run's end: the spmv pull's update kernel, which also keeps the run's last
// iterates, and the fused pull's run_save_kernel after each step.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "kernels/vector_ops.hpp"
#include "solvers/cuda/pagerank_accel.cuh"
#include "solvers/cuda/pagerank_device.cuh"
#include "solvers/cuda/pagerank_fused.cuh"
#include "solvers/cuda/pagerank_persistent.cuh"
#include "solvers/pagerank.hpp"
#include "solvers/pagerank_compact_ranks.hpp"
#include "solvers/pagerank_trial.hpp"

namespace perron {
namespace {

using namespace pagerank_gpu;

constexpr int block_threads = 256;
// The longest run (--accelerate-every) the fused pull's WHILE trip holds
// whole; longer runs take trips of a few steps (choose_loop).
constexpr int fused_run_trip = 32;
constexpr int items_per_thread = 4;  // independent loads in flight per thread
constexpr int tile = block_threads * items_per_thread;

__device__ __forceinline__ bool is_dangling(const std::uint32_t* bits, long long i) {
  return (__ldg(bits + (i >> 5)) >> (i & 31)) & 1u;
}

// r_0: uniform (written here) or uploaded before; dangling_0 = sum_{j dangling} r_0(j);
// the state from `start`.
template <class T>
__global__ void __launch_bounds__(block_threads)
    init_kernel(T* __restrict__ r, const std::uint32_t* __restrict__ bits, index_t n, int uniform,
                pagerank_state* st, solve_start start) {
  double dangling = 0.0;
  const T r_uniform = static_cast<T>(1.0 / static_cast<double>(n));
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    T ri;
    if (uniform) {
      ri = r_uniform;
      r[i] = ri;
    } else {
      ri = r[i];
    }
    if (is_dangling(bits, i)) dangling += static_cast<double>(ri);
  }
  double2 totals;
  if (accumulate_grid<block_threads>(make_double2(0.0, dangling), st, totals)) close_init(st, totals, start);
}

// The state to the host (publish_state) and, when out is set, the n ranks
// r (the graph's order) into out: mapped host memory, written here instead
// of by two copies (solve_out).
template <class T>
__global__ void __launch_bounds__(block_threads)
    publish_kernel(const T* __restrict__ r, index_t n, T* __restrict__ out, const pagerank_state* st,
                   solve_out o) {
  if (blockIdx.x == 0 && threadIdx.x == 0) publish_state(st, o);
  if (!out) return;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = r[i];
}

// --accelerate on the spmv pull: the update kernel keeps the run's last three
// iterates itself (steps P-3, P-2, P-1 of a run of P = every steps, by the
// step's number: runs start at multiples of P), with their dangling masses
// as pagerank_accel.cuh's save_kernel would, and, in a WHILE body, sets the
// IF node that runs the extrapolation after its trip: on at a run's end.
template <class T>
struct run_saves {
  T* slot[3] = {nullptr, nullptr, nullptr};  // x_{k-3}, x_{k-2}, x_{k-1}
  rre_slots<T> rre;                          // rre: the window's W slots instead
  accel_state* ac = nullptr;
  int every = 0;  // 0: no acceleration
  int aitken = 0;
  cudaGraphConditionalHandle run_end{};
  int set_run_end = 0;
};

// The fused step (see the top of the file). y = P^T r_k on entry. keeps_run:
// an accelerated solve's step (`saves` used); plain steps run the kernel
// without that code (it cost them 1-3 us a step on the H200: chain:1000000
// 14.0 -> 16.8 us, web:1048576:16777216 76.7 -> 79.6).
template <class T, bool keeps_run>
__global__ void __launch_bounds__(block_threads)
    update_kernel(const T* __restrict__ y, T* __restrict__ r, const T* __restrict__ v,
                  const std::uint32_t* __restrict__ bits, index_t n, pagerank_state* st,
                  pagerank_progress* progress, cudaGraphConditionalHandle handle, int set_condition,
                  run_saves<T> saves) {
  // Written by the previous launch's last block: uniform across this grid.
  if (st->done) return;
  int which = -1;
  T* slot = nullptr;
  if constexpr (keeps_run) {
    const int s = (st->iteration + 1) % saves.every;
    which =
        saves.rre.w ? accel::rre_slot(s, saves.every) : accel::run_slot(s, saves.every, saves.aitken != 0);
    // (a select, not slot[which]: indexing the parameter's array put it on the stack)
    if (which >= 0 && !saves.ac->disabled)
      slot = saves.rre.w  ? saves.rre.slot(which, n)
             : which == 0 ? saves.slot[0]
             : which == 1 ? saves.slot[1]
                          : saves.slot[2];
  }
  const double alpha = st->alpha;
  const double c = alpha * st->dangling + (1.0 - alpha);  // dangling mass + teleport, spread by v
  const bool personalized = st->personalized != 0;
  const double v_uniform = 1.0 / static_cast<double>(n);

  double l1 = 0.0, dangling = 0.0;
  for (long long base = static_cast<long long>(blockIdx.x) * tile; base < n;
       base += static_cast<long long>(gridDim.x) * tile) {
    T yv[items_per_thread], rv[items_per_thread];
    double vv[items_per_thread];
    // All loads of the tile first, so that items_per_thread requests per array are in flight.
#pragma unroll
    for (int j = 0; j < items_per_thread; ++j) {
      const long long i = base + j * block_threads + threadIdx.x;
      if (i < n) {
        yv[j] = y[i];
        rv[j] = r[i];
        vv[j] = personalized ? static_cast<double>(v[i]) : v_uniform;
      }
    }
#pragma unroll
    for (int j = 0; j < items_per_thread; ++j) {
      const long long i = base + j * block_threads + threadIdx.x;
      if (i < n) {
        // r_{k+1}(i) = alpha (P^T r_k)(i) + c_k v(i), rounded to T once; the
        // residual is taken on the stored values.
        const T rn = static_cast<T>(alpha * static_cast<double>(yv[j]) + c * vv[j]);
        l1 += fabs(static_cast<double>(rn) - static_cast<double>(rv[j]));
        r[i] = rn;
        if constexpr (keeps_run)
          if (slot) slot[i] = rn;
        if (is_dangling(bits, i)) dangling += static_cast<double>(rn);
      }
    }
  }

  double2 totals;
  if (!accumulate_grid<block_threads>(make_double2(l1, dangling), st, totals)) return;
  close_step(st, totals, progress, handle, set_condition);  // last block, thread 0
  if constexpr (keeps_run) {
    if (slot) close_save(saves.ac, st, which, saves.rre.w ? saves.rre.w - 1 : 2);
    if (saves.set_run_end)
      cudaGraphSetConditional(saves.run_end,
                              !st->done && !saves.ac->disabled && st->iteration % saves.every == 0 ? 1u : 0u);
  }
}

using cuda::graph_exec_ptr;  // core/cuda/support.cuh
using cuda::graph_ptr;

}  // namespace

template <class T>
struct pagerank_cuda<T>::impl {
  index_t n = 0;
  // Declared first, destroyed last: the plan's and the graphs' work is on it.
  cuda::stream stream;
  cuda::event ev_start, ev_stop;
  // The ranks come back in up to rank_chunks pieces, each with its event, so
  // that the host widens one piece while the next is still on its way.
  static constexpr int rank_chunks = 8;
  std::vector<cuda::event> ev_chunk;
  std::unique_ptr<spmv_plan<T>> plan;              // pagerank_pull::spmv
  std::unique_ptr<fused_pull<T>> fused;            // pagerank_pull::fused (and persistent: its layout)
  std::unique_ptr<persistent_pull<T>> persistent;  // pagerank_pull::persistent
  // The pattern pulls' ranks without most vertices no link enters
  // (solvers/pagerank_compact_ranks.hpp), where it pays; `sending`: this
  // solve's (a uniform v and start), else null.
  std::optional<compact_ranks> compact;
  const compact_ranks* sending = nullptr;
  cuda::device_buffer<T> d_r, d_y, d_v;
  cuda::device_buffer<std::uint32_t> d_bits;
  cuda::device_buffer<pagerank_state> d_state;
  solve_start start;  // the next solve's parameters (upload), passed to its init kernel
  // Mapped pinned memory the device writes (solve_out), with device addresses.
  cuda::pinned_buffer<pagerank_state> h_state;
  cuda::pinned_buffer<pagerank_progress> h_progress;
  cuda::pinned_buffer<T> h_rank;
  cuda::pinned_buffer<accel_state> h_accel;
  pagerank_state* dh_state = nullptr;
  pagerank_progress* d_progress = nullptr;
  T* dh_rank = nullptr;
  accel_state* dh_accel = nullptr;
  unsigned grid = 1;

  std::unique_ptr<accel_buffers<T>> accel;  // --accelerate, allocated by the first such solve
  // The plain steps' residuals remembered with a layout the build took from a
  // record (build_chosen), where no layout trial ran to record them.
  plain_trace remembered_trace;
  // The layout's plain steps: its trial's, else the remembered ones.
  const plain_trace& trace() {
    static const plain_trace none;
    const plain_trace* t = persistent ? &persistent->trial_trace() : fused ? &fused->trial_trace() : &none;
    return t->residuals.empty() && (persistent || fused) ? remembered_trace : *t;
  }

  // What one WHILE trip or one check_every batch runs: `steps` plain steps
  // and, unless mode is none, the extrapolation of runs of `every` steps:
  // after the trip where steps == every (the fused pull, and any check_every
  // batch); on the spmv pull's WHILE trips (steps dividing every), in an IF
  // node that runs it after the trip that ends a run (ensure_while_graph).
  struct body {
    int steps = 0;
    pagerank_accel mode = pagerank_accel::none;
    int every = 0;
    bool operator==(const body& o) const { return steps == o.steps && mode == o.mode && every == o.every; }
  };
  // The conditional nodes a captured body sets: the WHILE loop's, and the IF
  // node of the spmv pull's extrapolation.
  struct conditions {
    cudaGraphConditionalHandle loop{}, run_end{};
    bool set_loop = false, set_run_end = false;
  };

  graph_exec_ptr while_exec;
  body while_body;
  int auto_unroll = 0;  // automatic_unroll()'s choice, once measured
  bool while_tried = false;
  std::string while_error;  // why graph_while is unavailable
  graph_exec_ptr batch_exec;
  body batch_body;
  bool batch_tried = false;

  impl() {
    for (int c = 0; c < rank_chunks; ++c) ev_chunk.emplace_back(cudaEventDisableTiming);
  }
  ~impl() {
    // The plan's work is on our stream: drop it (and the graphs) before the stream.
    while_exec.reset();
    batch_exec.reset();
    accel.reset();
    plan.reset();
    persistent.reset();
    fused.reset();
  }

  std::string kernel_name() const {
    return persistent ? "pull-persistent" : fused ? "pull-fused" : std::string(name(plan->kernel()));
  }

  void launch_init(bool uniform) {
    if (fused) {
      fused->launch_init(d_r.data(), uniform ? 1 : 0, d_state.data(), start);
      return;
    }
    init_kernel<T><<<grid, block_threads, 0, stream.get()>>>(d_r.data(), d_bits.data(), n, uniform ? 1 : 0,
                                                             d_state.data(), start);
    PERRON_CUDA_CHECK_LAUNCH("pagerank init_kernel");
  }

  // One step: y = P^T r, then the fused update (which keeps a run's
  // iterates when b extrapolates).
  void launch_step(const body& b, const conditions& c) {
    if (fused) {
      fused->launch_step(d_state.data(), d_progress, c.loop, c.set_loop ? 1 : 0);
      return;
    }
    run_saves<T> saves;
    if (b.mode != pagerank_accel::none) {
      for (int w = 0; w < 3; ++w) saves.slot[w] = accel->history(w);
      if (b.mode == pagerank_accel::rre) saves.rre = accel->window(b.every);
      saves.ac = accel->state();
      saves.every = b.every;
      saves.aitken = b.mode == pagerank_accel::aitken ? 1 : 0;
      saves.run_end = c.run_end;
      saves.set_run_end = c.set_run_end ? 1 : 0;
    }
    plan->apply(T(1), d_r.data(), T(0), d_y.data());
    const auto kernel = saves.every > 0 ? update_kernel<T, true> : update_kernel<T, false>;
    kernel<<<grid, block_threads, 0, stream.get()>>>(d_y.data(), d_r.data(), d_v.data(), d_bits.data(), n,
                                                     d_state.data(), d_progress, c.loop, c.set_loop ? 1 : 0,
                                                     saves);
    PERRON_CUDA_CHECK_LAUNCH("pagerank update_kernel");
  }

  // Where the steps keep the iterate, for --accelerate: r, or the fused
  // pull's x (also the persistent pull's, whose fused steps then run).
  accel_vec<T> accel_target() {
    if (fused) return {fused->iterate(0), fused->iterate(1), fused->out_degrees(), nullptr};
    return {d_r.data(), d_r.data(), nullptr, d_bits.data()};
  }

  // A body (see struct body): the run's last three iterates are saved after
  // its steps every-3 .. every-1 (aitken reads the last two; on the spmv pull
  // by the update kernel, on the fused pull's trips shorter than the run by
  // run_save_kernel), then the extrapolation, unless the caller places it
  // (c.set_run_end: ensure_while_graph's IF node).
  void launch_body(const body& b, const conditions& c) {
    const bool aitken = b.mode == pagerank_accel::aitken;
    const int rre_w = b.mode == pagerank_accel::rre ? accel::rre_window(b.every) : 0;
    for (int s = 1; s <= b.steps; ++s) {
      launch_step(b, c);
      if (!fused || b.mode == pagerank_accel::none) continue;
      if (c.set_run_end) {
        accel->launch_run_save(accel_target(), d_state.data(), b.every, b.mode, c.run_end);
        continue;
      }
      const int which = rre_w ? accel::rre_slot(s, b.every) : accel::run_slot(s, b.every, aitken);
      if (which >= 0) accel->launch_save(accel_target(), which, d_state.data(), rre_w);
    }
    if (b.mode != pagerank_accel::none && !c.set_run_end)
      accel->launch_extrapolate(b.mode, b.every, accel_target(), d_state.data());
  }

  // The graph_while loop: built on first use; false (with while_error) when the
  // SpMV cannot be captured into a conditional body.
  bool ensure_while_graph(const body& b) {
    if (while_tried && (!while_exec || while_body == b)) return static_cast<bool>(while_exec);
    while_exec.reset();
    while_tried = true;
    while_body = b;
    graph_ptr graph;
    try {
      cudaGraph_t g = nullptr;
      PERRON_CUDA_CHECK(cudaGraphCreate(&g, 0));
      graph.reset(g);
      conditions c;
      c.set_loop = true;
      // Reset to 1 at every launch: the body runs at least once (max_iter >= 1).
      PERRON_CUDA_CHECK(cudaGraphConditionalHandleCreate(&c.loop, g, 1, cudaGraphCondAssignDefault));
      cudaGraph_t body = cuda::add_conditional(g, c.loop, cudaGraphCondTypeWhile);
      // The extrapolation of trips shorter than the run (the spmv pull's; the
      // fused pull's long runs): an IF node after the trip's steps, which
      // each step sets (on at a run's end): the spmv pull's update kernel,
      // the fused pull's run_save_kernel.
      c.set_run_end = b.mode != pagerank_accel::none && (!fused || b.steps < b.every);
      if (c.set_run_end) PERRON_CUDA_CHECK(cudaGraphConditionalHandleCreate(&c.run_end, body, 0, 0));
      std::vector<cudaGraphNode_t> leaves;
      PERRON_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream.get(), body, nullptr, nullptr, 0,
                                                      cudaStreamCaptureModeThreadLocal));
      try {
        launch_body(b, c);
        if (c.set_run_end) leaves = cuda::capture_leaves(stream.get());
      } catch (...) {
        cuda::abandon_capture(stream.get(), true);
        throw;
      }
      cudaGraph_t captured = nullptr;
      PERRON_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &captured));
      if (c.set_run_end) {
        cudaGraph_t run_end =
            cuda::add_conditional(body, c.run_end, cudaGraphCondTypeIf, leaves.data(), leaves.size());
        PERRON_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream.get(), run_end, nullptr, nullptr, 0,
                                                        cudaStreamCaptureModeThreadLocal));
        try {
          accel->launch_extrapolate(b.mode, b.every, accel_target(), d_state.data());
        } catch (...) {
          cuda::abandon_capture(stream.get(), true);
          throw;
        }
        PERRON_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &captured));
      }
      cudaGraphExec_t exec = nullptr;
      PERRON_CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
      while_exec.reset(exec);
    } catch (const error& e) {
      cuda::abandon_capture(stream.get(), true);
      while_error =
          "the " + kernel_name() + " SpMV could not run inside a conditional CUDA graph (" + e.what() + ")";
      return false;
    }
    // Upload it now and wait for the upload (once a graph, before its first
    // launch). Without this, compute-sanitizer's memcheck stopped the
    // accelerate tests with a "misaligned address" at a later synchronize
    // (99 reports; with it, 0) and called the float solves' reads of the
    // 16-bit index test out of bounds though inside their allocation (with
    // it, 0; other tests still draw such reports, unless launches are
    // serialized). Plain runs read the right buffers either way
    // (docs/PERFORMANCE.md, session 89; NVIDIA/warp#1406 is the same report
    // on another conditional graph).
    PERRON_CUDA_CHECK(cudaGraphUpload(while_exec.get(), stream.get()));
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    return true;
  }

  // The check_every loop's graph of `size` steps; false: launch them directly.
  bool ensure_batch_graph(const body& b) {
    if (batch_tried && batch_body == b) return static_cast<bool>(batch_exec);
    batch_exec.reset();
    batch_tried = true;
    batch_body = b;
    try {
      PERRON_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
      try {
        launch_body(b, conditions{});
      } catch (...) {
        cuda::abandon_capture(stream.get(), false);
        throw;
      }
      cudaGraph_t g = nullptr;
      PERRON_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &g));
      graph_ptr graph(g);
      cudaGraphExec_t exec = nullptr;
      PERRON_CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
      batch_exec.reset(exec);
      return true;
    } catch (const error&) {
      cuda::abandon_capture(stream.get(), false);
      return false;
    }
  }

  // Steps per WHILE trip for graph_unroll == 0 (pagerank.hpp gives the model).
  int automatic_unroll() {
    // The fused step returns at once after the stopping step, so a long trip
    // costs a few empty launches, not SpMVs: the most steps per trip.
    if (fused) return 8;
    if (auto_unroll == 0) {
      constexpr double typical_iterations = 30, trip_us = 4;
      const double spmv_us =
          std::max(1.0, median(cuda::time_calls([&] { plan->apply(T(1), d_r.data(), T(0), d_y.data()); },
                                                plan->stream(), 1, 5)));
      const long u = std::lround(std::sqrt(2 * typical_iterations * trip_us / spmv_us));
      auto_unroll = static_cast<int>(std::clamp(u, 1L, 8L));
    }
    return auto_unroll;
  }

  // Blocks until `done` has happened (the stream is idle when null); with a
  // progress callback, polls the mapped progress record meanwhile (reading
  // it needs no synchronization); with an interrupt check, runs it at every
  // poll (what it throws goes on to solve(), which stops the device).
  void wait(const pagerank_options& opt, const cuda::event* done = nullptr) {
    if (opt.progress || opt.interrupt) {
      int shown = 0;
      using clock = std::chrono::steady_clock;
      const auto begin = clock::now();
      for (;;) {
        const cudaError_t q = done ? cudaEventQuery(done->get()) : cudaStreamQuery(stream.get());
        if (q == cudaSuccess) break;
        if (q != cudaErrorNotReady) PERRON_CUDA_CHECK(q);
        const volatile pagerank_progress* p = h_progress.data();
        const int k = p->iteration;
        if (opt.progress && k > shown) {
          shown = k;
          opt.progress(k, p->residual);
        }
        if (opt.interrupt) opt.interrupt();
        // Polled without a pause for the first millisecond, then every
        // twentieth of the time waited (50 us to 2 ms): a fixed 2 ms sleep
        // held a 0.15 ms solve (the module's, which polls for Ctrl-C) for
        // 2 ms; a long solve costs a few hundred polls a second.
        const auto waited = clock::now() - begin;
        if (waited < std::chrono::milliseconds(1))
          std::this_thread::yield();
        else
          std::this_thread::sleep_for(std::clamp<clock::duration>(waited / 20, std::chrono::microseconds(50),
                                                                  std::chrono::milliseconds(2)));
      }
    }
    if (done)
      done->synchronize();
    else
      stream.synchronize();
  }

  // A solve abandoned while the device runs it (an interrupt check threw):
  // its max_iter set to 0 in the device's state, which every step's close
  // reads (close_step: the graph's WHILE loop and the host's batches end at
  // the next step; a persistent launch at its batch's end), written from a
  // stream of its own since the solve's is busy; then the solve's stream
  // waited for, so that nothing of it runs on into the next solve or into
  // freed memory. Errors are dropped: the exception under way says why.
  void abandon() noexcept {
    cudaStream_t side = nullptr;
    static const int zero = 0;
    if (cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) == cudaSuccess) {
      cudaMemcpyAsync(&d_state.data()->max_iter, &zero, sizeof zero, cudaMemcpyHostToDevice, side);
      cudaStreamSynchronize(side);
      cudaStreamDestroy(side);
    }
    cudaStreamSynchronize(stream.get());
  }

  // layout: a remembered pattern pull's layout (pagerank_cuda::layout(); "": trial it).
  // iterations: the solve's expected steps, for spmv_trial_pays (0: unknown).
  void build(const pagerank_graph<T>& g, std::optional<spmv_kernel> kernel, pagerank_pull pull,
             const std::string& layout, int iterations);
  std::string kernel_note;  // why the SpMV pull's kernel was not timed ("" when it was, or named)
  void allocate(const pagerank_graph<T>& g);
  pagerank_loop choose_loop(const pagerank_options& opt, bool accelerating, pagerank_result& res);
  void upload(const pagerank_options& opt, pagerank_loop loop);
  void fetch(bool state, std::size_t chunks, cuda::event* stop = nullptr, bool after_persistent = false);
  int receive_team(std::size_t chunks) const;
  std::pair<std::size_t, std::size_t> piece_values(std::size_t c, std::size_t chunks) const;
  void receive_rank(std::size_t chunks, pagerank_result& res);
  void try_own_order(const pagerank_graph<T>& g, int vrow_links);
  void try_fused_own_order(const pagerank_graph<T>& g, int vrow_links);
  std::string order_note;          // try_own_order's outcome ("" none ran)
  double order_trial_seconds = 0;  // the order trial's cost beyond the kept pair's own trials
  // The persistent pull's fresh start (persistent_pull::launch_solve): the
  // dangling mass of the uniform x_0 as init_x sums it, taken at set-up.
  double uniform_dangling = 0;
};

// The pull's machinery on the solver's stream: the fused pull, or the plan.
template <class T>
void pagerank_cuda<T>::impl::build(const pagerank_graph<T>& g, std::optional<spmv_kernel> kernel,
                                   pagerank_pull pull, const std::string& layout, int iterations) {
  if (pattern_pull(pull)) {
    const std::string which = "the " + std::string(name(pull)) + " pull";
    if (!g.pattern)
      throw invalid_argument(which +
                             " needs an unweighted graph (P^T(i, j) = 1/outdeg(j)); use the spmv pull");
    if (kernel && *kernel != spmv_kernel::automatic)
      throw invalid_argument(which + " runs its own kernel; --kernel " + std::string(name(*kernel)) +
                             " needs the spmv pull");
    // The persistent pull runs the fused layout with its own row split.
    const int vrow_links = pull == pagerank_pull::persistent ? persistent_pull<T>::vrow_links(g.links())
                                                             : fused_pull<T>::default_vrow_links;
    // "hub H <loop>" (fused), "hub H [window W] <mode grid hub>"
    // (persistent): pagerank_cuda::layout(). A fused record without the
    // loop (an older run's) keeps its hub and times the loops.
    std::istringstream words(layout);
    std::string tag, mode;
    int hub = -1;
    index_t window = 0;
    if (!(words >> tag >> hub) || tag != "hub") hub = -1;
    std::getline(words >> std::ws, mode);
    if (hub >= 0 && mode.rfind("window ", 0) == 0) {
      std::istringstream rest(mode.substr(7));
      long long w = 0;
      if (!(rest >> w) || w < 0 || (w & (w - 1)) != 0 || w > (1LL << 30)) {
        hub = -1;  // not a record this build wrote: the trials run
        mode.clear();
      } else {
        window = static_cast<index_t>(w);
        std::getline(rest >> std::ws, mode);
      }
    }
    const bool is_persistent = pull == pagerank_pull::persistent;
    if (!is_persistent && window != 0 && window != fused_own_order_window) {
      // A fused own order in other runs (an older build's 32 ids, 1.0-1.5x
      // this build's step): the trials run again and the record is rewritten.
      hub = -1;
      window = 0;
      mode.clear();
    }
    order_note.clear();
    order_trial_seconds = 0;
    // The fused pull's vertex order: skewed, local and large graphs start in
    // their own (fused_own_order_first: the in-degree order lost there on
    // every one measured, and a trial of both would build a second layout);
    // even, local ones time both, below. A record of the in-degree order
    // for such a graph is an older build's: the trials run again. The facts
    // are sampled or parallel (about a millisecond); a record of the own
    // order needs neither.
    index_t forced = 0;
    double own_local = 0.0;
    index_t own_longest = 0;
    const bool asks_order = !is_persistent && g.links() > fused_own_order_min_links &&
                            (hub < 0 || window == 0) && !forced_window(forced);
    if (asks_order) {
      own_local = own_order_local_links(g);
      own_longest = longest_row(g.pt);
      const double x_l2 = x_l2_fraction(g.vertices(), sizeof(T), cuda::l2_cache_bytes(0));
      if (window == 0 && fused_own_order_first(g.links(), g.vertices(), own_local, own_longest, x_l2)) {
        hub = -1;
        mode.clear();
        window = fused_own_order_window;
        order_note = "vertex order: the graph's own (by in-degree within runs of " +
                     std::to_string(fused_own_order_window) + " ids), its rows not even (the longest " +
                     std::to_string(own_longest) + " links, " +
                     format_g(double(own_longest) * double(g.vertices()) / double(g.links()), 3) +
                     "x the mean, " + format_g(double(g.links()) / double(g.vertices()), 3) +
                     " links a vertex), " + format_g(100 * own_local, 3) + "% of links local and x " +
                     format_g(x_l2, 3) + " of L2";
      }
    }
    const std::optional<fused_loop> loop = is_persistent ? std::optional(fused_loop::whole)
                                           : hub >= 0    ? parse_fused_loop(mode)
                                                         : std::nullopt;
    fused = std::make_unique<fused_pull<T>>(g.pt, stream.get(), vrow_links, !is_persistent, window, hub,
                                            is_persistent, loop);
    if (pull == pagerank_pull::persistent) {
      persistent = std::make_unique<persistent_pull<T>>(*fused, stream.get(), hub < 0 ? "" : mode);
      // Past own_order_trial_links the trial asks the own order's locality and
      // the longest row (both sampled or parallel: about a millisecond).
      const bool asks = g.links() > persistent_pull<T>::own_order_trial_links && persistent->resident();
      const double local = asks ? own_order_local_links(g) : 0.0;
      const index_t longest = asks ? longest_row(g.pt) : 0;
      if (hub < 0 && !forced_window(forced) &&
          persistent_pull<T>::order_trial_pays(g.vertices(), g.links(), persistent->resident(), local,
                                               longest)) {
        // Setup's "layout trials": the kept pair's trials plus this, so that
        // the whole second pair and the first pair's trials are counted once.
        const double first = fused->trial_seconds() + persistent->trial_seconds();
        {
          const scoped_seconds clock(order_trial_seconds);
          try_own_order(g, vrow_links);
        }
        order_trial_seconds += first - fused->trial_seconds() - persistent->trial_seconds();
      }
    } else if (asks_order && hub < 0 && window == 0) {
      if (fused_own_order_trial(g.links(), g.vertices(), own_local, own_longest)) {
        const double first = fused->trial_seconds();
        {
          const scoped_seconds clock(order_trial_seconds);
          try_fused_own_order(g, vrow_links);
        }
        order_trial_seconds += first - fused->trial_seconds();
      }
    }
  } else {
    spmv_kernel k = kernel.value_or(spmv_kernel::automatic);
    kernel_note.clear();
    if (k == spmv_kernel::automatic && !spmv_trial_pays(g.links(), iterations, sizeof(T))) {
      const index_t longest = longest_row(g.pt);
      k = untimed_spmv_kernel(g.vertices(), g.links(), longest, sizeof(T));
      kernel_note = "kernel untimed (a trial of the kernels' formats, about " +
                    format_g(spmv_trial_link_ns * 1e-9 * double(g.links()), 2) + " s, would not pay in " +
                    std::to_string(iterations) + " steps): " + std::string(name(k)) + " (rows of up to " +
                    std::to_string(longest) + " links, " +
                    format_g(double(g.links()) / double(std::max<index_t>(g.vertices(), 1)), 3) +
                    " on average)";
    }
    plan = std::make_unique<spmv_plan<T>>(g.pt, k, stream.get());
  }
}

// The persistent pull's second vertex order (persistent_pull::order_trial_pays
// says where): the graph's own order, rows by in-degree only within runs of
// own_order_window ids, built and timed beside the in-degree order; the
// faster by more than trial_tie_fraction is kept. The two orders sum each
// row in a different order (the same ranks within rounding, not the same
// bits), so the pick, like the pull trial's, is kept in the layout record.
template <class T>
void pagerank_cuda<T>::impl::try_own_order(const pagerank_graph<T>& g, int vrow_links) {
  // The in-degree layout's hub (the streamed mode's; no hub trial again) and
  // only resident grids: the trial runs where the first order's pick was one.
  std::unique_ptr<fused_pull<T>> own_fused;
  std::unique_ptr<persistent_pull<T>> own;
  try {
    own_fused = std::make_unique<fused_pull<T>>(g.pt, stream.get(), vrow_links, false,
                                                persistent_pull<T>::own_order_window, fused->hub(), true,
                                                fused_loop::whole);
    own = std::make_unique<persistent_pull<T>>(*own_fused, stream.get(), "", true);
  } catch (const error& e) {
    // A second layout is an option (no room for it on a shared device, no
    // resident grid in that order): the in-degree order runs.
    order_note = std::string("the graph's own vertex order not tried: ") + e.what();
    return;
  }
  const double degree_us = persistent->step_us(), own_us = own->step_us();
  const bool keep_own = own_us < degree_us * (1 - trial_tie_fraction);
  order_note = "vertex order by trial: by in-degree " + format_g(degree_us, 3) +
               " us, the graph's own (by in-degree within runs of " +
               std::to_string(persistent_pull<T>::own_order_window) + " ids) " + format_g(own_us, 3) +
               " us a step -> " + (keep_own ? "own" : "in-degree");
  if (keep_own) {
    persistent = std::move(own);  // before its fused layout goes
    fused = std::move(own_fused);
  }
}

// The fused pull's second vertex order (fused_own_order_trial, solvers/
// pagerank.hpp, says where): the graph's own, rows by in-degree within runs
// of fused_own_order_window ids, built with its own hub and loop trials and kept
// where its step is faster by more than trial_tie_fraction (each layout's
// median step at its pick). Not bitwise the in-degree order's ranks (rows
// summed in another order); the pick is kept in the layout record.
template <class T>
void pagerank_cuda<T>::impl::try_fused_own_order(const pagerank_graph<T>& g, int vrow_links) {
  std::unique_ptr<fused_pull<T>> own;
  try {
    own = std::make_unique<fused_pull<T>>(g.pt, stream.get(), vrow_links, true, fused_own_order_window);
  } catch (const error& e) {
    // A second layout is an option (no room for it on a shared device): the
    // in-degree order runs.
    order_note = std::string("the graph's own vertex order not tried: ") + e.what();
    return;
  }
  const double degree_us = fused->step_us(), own_us = own->step_us();
  const bool keep_own = own_us > 0 && own_us < degree_us * (1 - trial_tie_fraction);
  order_note = "vertex order by trial: by in-degree " + format_g(degree_us, 3) +
               " us, the graph's own (by in-degree within runs of " + std::to_string(fused_own_order_window) +
               " ids) " + format_g(own_us, 3) + " us a step -> " + (keep_own ? "own" : "in-degree");
  if (keep_own) fused = std::move(own);
}

// Every buffer the graphs point at is allocated here, once: a captured graph
// keeps the addresses it saw.
template <class T>
void pagerank_cuda<T>::impl::allocate(const pagerank_graph<T>& g) {
  const auto nn = static_cast<std::size_t>(n);
  d_r = cuda::device_buffer<T>(nn);
  d_v = cuda::device_buffer<T>(nn);
  if (plan) {
    d_y = cuda::device_buffer<T>(nn);
    d_bits = cuda::device_buffer<std::uint32_t>(dangling_bits(g.dangling));
  }
  int device = 0, sms = 1;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // Enough blocks to fill the GPU (8 x 256 threads per SM), no more: every
  // block adds one ticket and one slot to each step's reduction.
  grid = cuda::grid_for(nn, tile, 8u * static_cast<unsigned>(sms));
  d_state = cuda::device_buffer<pagerank_state>(1);
  // The grid sums' accumulators start at zero and every kernel leaves them so.
  PERRON_CUDA_CHECK(cudaMemsetAsync(d_state.data(), 0, d_state.bytes(), stream.get()));
  h_state = cuda::pinned_buffer<pagerank_state>(1, cudaHostAllocMapped);
  h_progress = cuda::pinned_buffer<pagerank_progress>(1, cudaHostAllocMapped);
  h_progress[0] = pagerank_progress{0, 0.0};
  h_rank = cuda::pinned_buffer<T>(nn, cudaHostAllocMapped);
  h_accel = cuda::pinned_buffer<accel_state>(1, cudaHostAllocMapped);
  dh_state = h_state.device_pointer();
  d_progress = h_progress.device_pointer();
  dh_rank = h_rank.device_pointer();
  dh_accel = h_accel.device_pointer();
}

template <class T>
plain_trace pagerank_cuda<T>::layout_trace() {
  return impl_ ? impl_->trace() : plain_trace{};
}

template <class T>
std::vector<index_t> pagerank_cuda<T>::vertex_order() const {
  return impl_->fused ? impl_->fused->order() : std::vector<index_t>{};
}

template <class T>
pull_facts pagerank_cuda<T>::facts(const pagerank_graph<T>& g) {
  pull_facts f = pull_facts_of(g);
  if (cuda::available()) {
    f.l2_bytes = cuda::l2_cache_bytes(0);
    f.grid_shared_bytes = cuda::grid_shared_memory_bytes(0);
  }
  return f;
}

template <class T>
pagerank_cuda<T>::pagerank_cuda(const pagerank_graph<T>& g, std::optional<spmv_kernel> kernel,
                                pagerank_pull pull, pull_trial_memo* memo) {
  const auto t0 = std::chrono::steady_clock::now();
  if (memo) expected_iterations_ = memo->expected_iterations;
  // A named pull needs no facts (choose_pull passes it through).
  const pull_facts facts = pull == pagerank_pull::automatic ? pagerank_cuda<T>::facts(g) : pull_facts{};
  const pull_choice choice = choose_pull(pull, facts, kernel);
  const setup_phase chose{"choice",
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  // The band and the trial (solvers/pagerank_trial.cpp) only for an automatic
  // choice between the pattern pulls on a graph the solver accepts.
  if (memo && pull == pagerank_pull::automatic && !kernel && facts.pattern && g.vertices() > 0 &&
      g.dangling.size() == static_cast<std::size_t>(g.vertices()) && cuda::available() &&
      model_band(facts).unsure && trial_pull(g, facts, choice, *memo)) {
    if (trial_seconds_ > 0) setup_ = {{"pull trial", trial_seconds_}};  // every candidate's set-up
  } else {
    // Where the model decides a pattern pull, or one is named, its layout
    // trials (the hub, the persistent mode and vertex order) run once per
    // graph: their pick is kept in the memo's record and rebuilt from it
    // (pull_trial_memo; an untimed record, solvers/pagerank_trial.hpp).
    const bool memo_layout = memo && !kernel && pattern_pull(choice.pull) && cuda::available();
    pull_facts keyed = facts;  // what the record is keyed on (a named pull computed no facts)
    keyed.value_bytes = sizeof(T);
    keyed.links = g.links();
    std::optional<trial_record> kept;
    if (memo_layout && !memo->remembered.empty())
      kept = parse_trial_record(memo->remembered, keyed, g.vertices(), cuda::device_description(0));
    build_chosen(g, kernel, choice, remembered_layout(kept, choice.pull), kept ? &kept->trace : nullptr);
    decision_ = choice.reason.empty() ? "named" : decision_model();
    auto rec =
        untimed_record(kept, choice.pull, pull != pagerank_pull::automatic, pull_, kernel_name(), layout_);
    if (memo_layout && rec) {
      rec->trace = layout_trace();
      memo->record = format_trial_record(*rec, keyed, g.vertices(), cuda::device_description(0));
    }
  }
  if (memo && !layout_pin().empty()) memo->record.clear();  // a pinned layout is not this graph's pick
  setup_.insert(setup_.begin(), chose);
}

template <class T>
void pagerank_cuda<T>::build_chosen(const pagerank_graph<T>& g, std::optional<spmv_kernel> kernel,
                                    const pull_choice& chosen_by, const std::string& layout,
                                    const plain_trace* trace) {
  pull_choice choice = chosen_by;
  pagerank_pull pull = choice.pull;
  const bool chosen = !choice.reason.empty();  // by auto's rule, not named
  if (kernel == spmv_kernel::cpu)
    throw invalid_argument("the cpu kernel runs on the host; the GPU solver needs a GPU kernel (" +
                           spmv_kernel_names() + ")");
  if (!cuda::available()) throw cuda_error("no usable CUDA device");
  if (g.vertices() <= 0) throw invalid_argument("the graph is empty (0 vertices)");
  if (g.dangling.size() != static_cast<std::size_t>(g.vertices()))
    throw dimension_error("pagerank_graph: dangling mask of " + std::to_string(g.dangling.size()) +
                          " entries for " + std::to_string(g.vertices()) + " vertices");
  // Refused before anything large is allocated on the device.
  check_device_memory(pagerank_device_bytes(g.vertices(), g.links(), sizeof(T), pull),
                      "PageRank on the GPU (" + std::string(name(pull)) + " pull) of a graph of " +
                          std::to_string(g.vertices()) + " vertices and " + std::to_string(g.links()) +
                          " links");
  const auto t0 = std::chrono::steady_clock::now();
  impl_ = std::unique_ptr<impl, void (*)(impl*)>(new impl, [](impl* p) { delete p; });
  impl& m = *impl_;
  m.n = g.vertices();
  try {
    m.build(g, kernel, pull, layout, expected_iterations_);
  } catch (const cuda_error& e) {
    // auto's persistent pick needs a cooperative launch of a block on every
    // SM (not every device or sharing mode gives one): the fused pull instead.
    if (!chosen || pull != pagerank_pull::persistent) throw;
    m.persistent.reset();
    m.fused.reset();
    pull = pagerank_pull::fused;
    choice.reason += "; the persistent pull could not run here (" + std::string(e.what()) + "): fused";
    m.build(g, kernel, pull, "", expected_iterations_);
  }
  const auto t1 = std::chrono::steady_clock::now();
  m.allocate(g);
  if (m.fused) m.compact = m.fused->plan_compact_ranks();
  // One SpMV outside any capture so that whatever the plan sets up lazily
  // happens here, then wait for every upload (some went through the legacy
  // default stream, which our non-blocking stream does not follow).
  PERRON_CUDA_CHECK(cudaMemsetAsync(m.d_r.data(), 0, m.d_r.bytes(), m.stream.get()));
  if (m.plan) m.plan->apply(T(1), m.d_r.data(), T(0), m.d_y.data());
  // The persistent pull starts a uniform solve in its own kernel, with the
  // dangling mass init_x gives that start (the same bits): init_x once, here.
  if (m.persistent) m.fused->launch_init(nullptr, 1, m.d_state.data(), solve_start{});
  cuda::synchronize();
  if (m.persistent) {
    pagerank_state h{};
    PERRON_CUDA_CHECK(cudaMemcpy(&h, m.d_state.data(), sizeof h, cudaMemcpyDeviceToHost));
    m.uniform_dangling = h.dangling;
  }
  const auto since = [](std::chrono::steady_clock::time_point a) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
  };
  const double trials = (m.fused ? m.fused->trial_seconds() : 0.0) +
                        (m.persistent ? m.persistent->trial_seconds() : 0.0) + m.order_trial_seconds;
  setup_ = {{"layout", std::max(0.0, since(t0) - since(t1) - trials)},
            {"layout trials", trials},
            {"buffers", since(t1)}};

  pull_ = m.persistent ? pagerank_pull::persistent : m.fused ? pagerank_pull::fused : pagerank_pull::spmv;
  layout_ = !m.fused ? ""
                     : "hub " + std::to_string(m.fused->hub()) +
                           (m.fused->order_window() > 0 ? " window " + std::to_string(m.fused->order_window())
                                                        : std::string()) +
                           (m.persistent ? " " + m.persistent->mode_text()
                                         : " " + std::string(name(m.fused->loop())));
  // The remembered steps are this layout's only where the build took it as remembered.
  if (trace && !layout.empty() && layout_ == layout) m.remembered_trace = *trace;
  if (m.plan) kernel_ = m.plan->kernel();
  reason_ =
      (choice.reason.empty() ? "" : choice.reason + "; ") +
      (m.persistent ? "the fused pull's steps in one kernel per solve, " +
                          std::to_string(m.persistent->grid()) + " blocks, " + m.persistent->describe() +
                          (m.fused->order_window() > 0 ? ", vertices by in-degree within runs of " +
                                                             std::to_string(m.fused->order_window()) + " ids"
                                                       : std::string()) +
                          " (time per step by candidate: " + m.persistent->trial() + ")" +
                          (m.order_note.empty() ? std::string() : "; " + m.order_note)
       : m.fused
           ? "pattern pull with the update fused, " +
                 (m.fused->order_window() > 0
                      ? "vertices by in-degree within windows of " + std::to_string(m.fused->order_window()) +
                            " ids"
                      : std::string(
                            "sources and long rows, then the other dangling vertices, each by in-degree")) +
                 ", sliced, " + std::to_string(m.fused->hub()) +
                 " entries of x in shared memory (step time by hub size: " + m.fused->trial() + ")" +
                 (m.order_note.empty() ? std::string() : "; " + m.order_note)
           : (m.kernel_note.empty() ? "" : m.kernel_note + "; ") + m.plan->reason());
  device_bytes_ = (m.plan ? m.plan->device_bytes() : m.fused->device_bytes()) +
                  (m.persistent ? m.persistent->device_bytes() : 0) + m.d_r.bytes() + m.d_y.bytes() +
                  m.d_v.bytes() + m.d_bits.bytes() + m.d_state.bytes();
}

// Which loop runs: graph_while unless asked otherwise or the SpMV does not
// capture; the notes say why it differs from the one asked for.
// accelerating: the solve extrapolates (opt.accelerate).
template <class T>
pagerank_loop pagerank_cuda<T>::impl::choose_loop(const pagerank_options& opt, bool accelerating,
                                                  pagerank_result& res) {
  pagerank_loop loop = opt.use_graphs ? opt.loop : pagerank_loop::check_every;
  if (loop == pagerank_loop::automatic || loop == pagerank_loop::graph_while) {
    const int every = opt.accelerate_every;
    body b{opt.graph_unroll > 0 ? opt.graph_unroll : automatic_unroll(), pagerank_accel::none, 0};
    if (accelerating && fused && every <= fused_run_trip) {
      // Its steps return at once after the stop: a trip is a whole run.
      b = body{every, opt.accelerate, every};
    } else if (accelerating) {
      // The spmv pull's SpMVs run whatever the state says, and a fused trip of
      // a long run would hold all its steps (--accelerate-every 100000: a
      // 135 ms solve of empty launches): trips keep their unroll, cut to a
      // divisor of the run so that a run ends with a trip; the saves and the
      // extrapolation's IF node follow the state's step count.
      int u = std::min(b.steps, every);
      while (every % u != 0) --u;
      if (opt.graph_unroll > 0 && u != opt.graph_unroll)
        res.loop_note = "--graph-unroll " + std::to_string(opt.graph_unroll) + ": trips of " +
                        std::to_string(u) + " steps, a divisor of --accelerate-every " +
                        std::to_string(every);
      b = body{u, opt.accelerate, every};
    }
    if (ensure_while_graph(b)) {
      loop = pagerank_loop::graph_while;
      res.graph_unroll = b.steps;
    } else if (loop == pagerank_loop::graph_while) {
      throw cuda_error("loop graph-while: " + while_error);
    } else {
      loop = pagerank_loop::check_every;
      res.loop_note =
          while_error + "; checking every " + std::to_string(opt.check_interval) + " iterations instead";
    }
  }
  return loop;
}

// v and r_0 (pageable sources: cudaMemcpyAsync stages them before returning),
// then the state of a fresh solve.
template <class T>
void pagerank_cuda<T>::impl::upload(const pagerank_options& opt, pagerank_loop loop) {
  const auto nn = static_cast<std::size_t>(n);
  const bool personalized = !opt.personalization.empty();
  if (personalized) {
    const std::vector<double> v = normalized_distribution(opt.personalization, n, "personalization");
    std::vector<T> vt(v.begin(), v.end());
    PERRON_CUDA_CHECK(
        cudaMemcpyAsync(d_v.data(), vt.data(), nn * sizeof(T), cudaMemcpyHostToDevice, stream.get()));
    if (fused) fused->launch_personalization(d_v.data());
  }
  if (!opt.initial.empty()) {
    const std::vector<double> r0 = normalized_distribution(opt.initial, n, "initial vector");
    std::vector<T> rt(r0.begin(), r0.end());
    PERRON_CUDA_CHECK(
        cudaMemcpyAsync(d_r.data(), rt.data(), nn * sizeof(T), cudaMemcpyHostToDevice, stream.get()));
  }
  // The state itself goes with the init kernel (solve_start).
  start = solve_start{};
  pagerank_state& hs = start.state;
  hs.alpha = opt.alpha;
  hs.tol = opt.tol;
  hs.max_iter = opt.max_iter;
  hs.personalized = personalized ? 1 : 0;
  // The mapped progress record is for the one-sync loop; check_every reports
  // from the state it fetches after each batch anyway.
  hs.report_progress = opt.progress && loop == pagerank_loop::graph_while ? 1 : 0;
  hs.residual = std::numeric_limits<double>::infinity();
  h_progress[0] = pagerank_progress{0, 0.0};
  if (accel) {  // a fresh solve: no extrapolation yet
    start.zero = reinterpret_cast<unsigned long long*>(accel->state());
    start.zero_words = words_of<accel_state>();
  }
}

// What the host reads after the kernels enqueued so far: with `state`, the
// state (and the extrapolation's counters) in h_state (h_accel); with
// chunks > 0, the ranks in h_rank, in `chunks` pieces, each followed by its
// event. One piece is written by the kernel that publishes the state (one
// launch where two copies and, on the fused pull, a kernel were: 5-15 us of
// a small graph's solve on the H200); more pieces are copied, so that the
// host widens one while the next is on its way. stop: recorded after that
// kernel (the solve's device time ends with it), so that nothing stands
// between it and the kernel before it; after_persistent: that kernel is the
// persistent pull's.
template <class T>
void pagerank_cuda<T>::impl::fetch(bool state, std::size_t chunks, cuda::event* stop, bool after_persistent) {
  solve_out o;
  if (state) {
    o.state = dh_state;
    if (accel) {
      o.extra = reinterpret_cast<const unsigned long long*>(accel->state());
      o.extra_out = reinterpret_cast<unsigned long long*>(dh_accel);
      o.extra_words = words_of<accel_state>();
    }
  }
  T* const out = chunks == 1 ? dh_rank : chunks > 1 ? d_r.data() : nullptr;
  if (fused && out) {
    // Back in the graph's order (launched before the persistent kernel ends
    // when that is the kernel before it), or the compact form's values.
    fused->launch_ranks(out, d_state.data(), o, after_persistent, sending != nullptr);
  } else if (state || chunks == 1) {
    const index_t count = chunks == 1 ? n : 0;
    publish_kernel<T><<<count ? grid : 1u, block_threads, 0, stream.get()>>>(
        d_r.data(), count, chunks == 1 ? out : nullptr, d_state.data(), o);
    PERRON_CUDA_CHECK_LAUNCH("pagerank publish_kernel");
  }
  if (stop) stop->record(stream.get());
  if (chunks == 1) {
    ev_chunk[0].record(stream.get());
    return;
  }
  for (std::size_t c = 0; c < chunks; ++c) {
    const auto [b, e] = piece_values(c, chunks);
    PERRON_CUDA_CHECK(cudaMemcpyAsync(h_rank.data() + b, d_r.data() + b, (e - b) * sizeof(T),
                                      cudaMemcpyDeviceToHost, stream.get()));
    ev_chunk[c].record(stream.get());
  }
}

// The values [b, e) piece c of `chunks` brings: n / chunks of the ranks, or
// the compact form's piece (whole blocks of vertices, the table in front).
template <class T>
std::pair<std::size_t, std::size_t> pagerank_cuda<T>::impl::piece_values(std::size_t c,
                                                                         std::size_t chunks) const {
  if (sending) {
    const compact_ranks::piece q = sending->cut(c, chunks);
    return {q.from, q.to};
  }
  const auto nn = static_cast<std::size_t>(n);
  return {nn * c / chunks, nn * (c + 1) / chunks};
}

// Widened on the host's cores, piece by piece as they arrive: this runs after
// the device has finished, so only the last piece's share adds to the wall
// time. Pieces with more behind them on the bus are read beside their landing
// copies: floats (a conversion, 4 bytes in and 8 out) take a thread per 16 K
// of them there, doubles (a copy) one per 32 K, which finer teams made
// slower. A single piece (below 512 K values) has landed whole and the host
// to itself: a thread per 8 K values. Never every thread the process may use
// (host_threads, itself every core but one from 8 up), so that the waiting
// thread's CUDA spin and the driver's threads keep a core: a team thread
// that starts its share late holds the whole receive (0.7-5.7 ms, in every
// solve of some processes; with 15 of 16 cores on hub:500000:300000 in
// session 49, rarer with 14 but not gone: 108 -> 71 of ~4300 receives;
// session 44: "a team of every core once waited 1.3 ms for its last
// thread"). One team for every piece: libgomp ends the threads a smaller
// team leaves idle and creates them again when a team grows, tens of
// microseconds a thread (docs/PERFORMANCE.md, "The ranks' widening team",
// sessions 44-45; "A receive's stalls", session 49).
template <class T>
int pagerank_cuda<T>::impl::receive_team(std::size_t chunks) const {
  const std::size_t piece = (static_cast<std::size_t>(n) + chunks - 1) / chunks;
  const std::size_t grain = chunks == 1                  ? parallel_grain / 4
                            : sizeof(T) < sizeof(double) ? parallel_grain / 2
                                                         : parallel_grain;
  const int most = std::max(1, static_cast<int>(host_threads()) - 1);
  return static_cast<int>(std::clamp<std::size_t>(piece / grain, 1, static_cast<std::size_t>(most)));
}

template <class T>
void pagerank_cuda<T>::impl::receive_rank(std::size_t chunks, pagerank_result& res) {
  const int team = receive_team(chunks);  // started while the device ran (solve)
  for (std::size_t c = 0; c < chunks; ++c) {
    ev_chunk[c].synchronize();
    if (sending) {
      // A vertex with no in-link takes its out-degree's value of the table.
      if (c == 0) compact->take_table(h_rank.data());
      sending->expand(sending->cut(c, chunks), h_rank.data(), res.rank.data(), team);
      continue;
    }
    const auto [b, e] = piece_values(c, chunks);
    widen(e - b, h_rank.data() + b, res.rank.data() + b, team);
  }
}

template <class T>
pagerank_result pagerank_cuda<T>::solve(const pagerank_options& opt) {
  impl& m = *impl_;
  opt.validate(m.n);
  const auto nn = static_cast<std::size_t>(m.n);
  const auto t0 = std::chrono::steady_clock::now();

  pagerank_result res;
  res.on_gpu = true;
  // The persistent kernel extrapolates itself, quadratic, auto's gated
  // quadratic and rre (pagerank_persistent.cuh); with aitken a persistent
  // solver runs the steps of its fused pull (the same layout).
  // auto where a layout trial's plain steps (the same start, v and alpha:
  // the persistent pull's mode trial, the fused pull's hub trial) show the
  // solve stopping before any run's end lets an extrapolation through: the
  // plain steps run it, the same steps and bits, without the extrapolation's
  // machinery (the persistent pull's extrapolating kernel, about 0.4 us a
  // step and a refused run's end: er:100000:1000000, 11 steps, 6% of its
  // solve; the fused pull's saves and run-end kernels; docs/PERFORMANCE.md,
  // session 57).
  bool plain_auto = false;
  if (opt.accelerate == pagerank_accel::automatic && opt.initial.empty() && opt.personalization.empty() &&
      (m.persistent || m.fused)) {
    const plain_trace& trace = m.trace();
    plain_auto =
        trace.alpha == opt.alpha &&
        accel::plain_steps_decide(trace.residuals.data(), static_cast<int>(trace.residuals.size()), opt.tol,
                                  opt.max_iter, opt.accelerate_every, accel::rounding_floor<T>());
  }
  const bool accelerating = opt.accelerate != pagerank_accel::none && !plain_auto;
  const bool persistent = m.persistent && opt.accelerate != pagerank_accel::aitken;
  res.pull = m.persistent && !persistent ? pagerank_pull::fused : pull_;
  res.kernel = kernel_;
  res.hub_entries = persistent ? m.persistent->hub() : m.fused ? m.fused->hub() : 0;
  res.index_bytes_per_link = m.fused ? m.fused->index_bytes_per_link() : 0;
  res.index16 = m.fused && !m.persistent && m.fused->index16();
  res.kernel_reason =
      reason_ + (m.persistent && !persistent
                     ? "; --accelerate aitken: the fused pull's steps on its layout (the persistent "
                       "kernel extrapolates with weights over whole iterates)"
                 : persistent && accelerating ? "; the persistent kernel extrapolates itself"
                                              : "");
  res.pull_decision = decision_;
  res.trial_seconds = trial_seconds_;
  res.accelerate = opt.accelerate;
  if (plain_auto)
    res.kernel_reason +=
        "; auto: the layout trial's plain steps stop before an extrapolation is due, so "
        "the plain steps run them";
  if (accelerating && !m.accel) {
    m.accel = std::make_unique<accel_buffers<T>>(m.n, m.stream.get());
    device_bytes_ += m.accel->device_bytes();
  }
  if (opt.accelerate == pagerank_accel::rre) device_bytes_ += m.accel->ensure_window();
  // The persistent pull loops in its kernel: one launch per solve (graph_while's
  // one wait), or per check_interval steps when check_every is asked for, or
  // per interrupt_batch steps under an interrupt check (a launch cannot be
  // stopped midway; the same steps and bits as one launch).
  const bool check_every = !opt.use_graphs || opt.loop == pagerank_loop::check_every;
  const bool interruptible = persistent && !check_every && opt.interrupt;
  const int persistent_batch = check_every ? opt.check_interval : pagerank_options::interrupt_batch;
  const pagerank_loop loop = !persistent                    ? m.choose_loop(opt, accelerating, res)
                             : check_every || interruptible ? pagerank_loop::check_every
                                                            : pagerank_loop::graph_while;
  if (persistent)
    res.loop_note = check_every     ? "one persistent kernel per batch of steps (no CUDA graph)"
                    : interruptible ? "one persistent kernel per " + std::to_string(persistent_batch) +
                                          " steps, the interrupt check run between them (no CUDA graph)"
                                    : "one persistent kernel runs every step (no CUDA graph)";
  res.loop = loop;
  const typename impl::body batch =
      accelerating ? typename impl::body{opt.accelerate_every, opt.accelerate, opt.accelerate_every}
                   : typename impl::body{opt.check_interval, pagerank_accel::none, 0};
  const bool batch_graph =
      loop == pagerank_loop::check_every && opt.use_graphs && !persistent && m.ensure_batch_graph(batch);
  if (loop == pagerank_loop::check_every && accelerating && !persistent)
    res.loop_note += std::string(res.loop_note.empty() ? "" : "; ") + "one host check per run of " +
                     std::to_string(opt.accelerate_every) +
                     " steps and its extrapolation (--accelerate-every)";
  if (loop == pagerank_loop::check_every && opt.use_graphs && !persistent && !batch_graph)
    res.loop_note += std::string(res.loop_note.empty() ? "" : "; ") +
                     "the SpMV does not capture into a CUDA graph: steps are launched one by one";

  m.upload(opt, loop);
  m.ev_start.record(m.stream.get());
  // The persistent kernel starts a uniform solve itself (launch_solve's fresh).
  const bool start_in_kernel = persistent && opt.initial.empty();
  solve_start fresh = m.start;
  fresh.state.dangling = m.uniform_dangling;
  if (!start_in_kernel) m.launch_init(opt.initial.empty());
  // The compact ranks where planned, for a solve whose vertices without
  // in-links all take one rank (a uniform v; every step gives them that).
  m.sending = m.compact && opt.personalization.empty() && opt.initial.empty() ? &*m.compact : nullptr;
  res.ranks_sent = m.sending ? m.sending->sent() : nn;
  // Pieces of at least 256K vertices (1 MB of floats, or fewer values sent
  // compact): fewer would not pay for their copies' and events' fixed costs.
  // By vertices, not values sent: the host's part (widening, or a compact
  // piece's expansion) grows with the vertices, and a compact receive in one
  // piece waited for all of it (rmat:20 float 0.11 -> 0.15 ms).
  const std::size_t chunks = std::clamp<std::size_t>(nn >> 18, 1, impl::rank_chunks);
  // The result's memory is allocated while the device runs (and, from
  // fresh_prefault_bytes, mapped on every thread: page faults on a fresh
  // vector of that size cost about as much as a small graph's whole device
  // time); it is not zeroed, receive_rank writes every entry.
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point a, clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  double allocating = 0, waiting = 0;
  // With it, the widening team is started (start_team) while the device runs.
  const auto allocate_rank = [&] {
    const auto a = clock::now();
    res.rank = fresh_uninitialized<double>(nn, host_threads());
    const int team = m.receive_team(chunks);
    // From glibc's first mmap threshold (smaller blocks come from its heap)
    // to fresh_prefault_bytes (reserve_fresh maps those), the pages are mapped
    // here only if the C library took them fresh from the kernel
    // (map_unmapped; its mincore cost 1.1 us a solve on graphs below that
    // floor). Here, not in reserve_fresh: this solver has device time to hide
    // it behind; a populate beside the writers, as in the batched solver's
    // mapper, cost more than their faults (docs/PERFORMANCE.md, session 49).
    constexpr std::size_t heap_bytes = std::size_t(128) << 10;
    const std::size_t bytes = nn * sizeof(double);
    if (bytes >= heap_bytes && bytes < fresh_prefault_bytes)
      map_unmapped(res.rank.data(), bytes, static_cast<unsigned>(team));
    start_team(team);
    allocating += seconds(a, clock::now());
  };
  const auto wait = [&](const pagerank_options& o, const cuda::event* done) {
    const auto a = clock::now();
    m.wait(o, done);
    waiting += seconds(a, clock::now());
  };

  const pagerank_state& hs = m.h_state[0];  // as the device publishes it
  persistent_extrapolation<T> ex;
  if (persistent && accelerating) {
    for (int w = 0; w < 3; ++w) ex.hist[w] = m.accel->history(w);
    ex.ac = m.accel->state();
    ex.every = opt.accelerate_every;
    ex.gated = opt.accelerate == pagerank_accel::automatic || opt.accelerate == pagerank_accel::rre ? 1 : 0;
    if (opt.accelerate == pagerank_accel::rre) {
      const rre_slots<T> w = m.accel->window(opt.accelerate_every);
      ex.window = w.base;
      ex.rre_w = w.w;
    }
  }
  // What the interrupt check throws while the device runs the solve stops
  // the device first (abandon).
  try {
    if (loop == pagerank_loop::graph_while) {
      // The whole loop, the state and the ranks: one launch, one wait.
      if (persistent)
        m.persistent->launch_solve(m.d_state.data(), m.start.state.report_progress ? m.d_progress : nullptr,
                                   INT_MAX, ex, start_in_kernel ? &fresh : nullptr);
      else
        PERRON_CUDA_CHECK(cudaGraphLaunch(m.while_exec.get(), m.stream.get()));
      m.fetch(true, chunks, &m.ev_stop, persistent);
      allocate_rank();
      wait(opt, &m.ev_chunk[0]);  // the state and the first piece of the ranks
      res.host_syncs = 1;
    } else {
      pagerank_options no_progress;  // the check's wait polls for the interrupt check alone
      no_progress.interrupt = opt.interrupt;
      for (;;) {
        if (persistent) {
          m.persistent->launch_solve(m.d_state.data(), nullptr, persistent_batch, ex,
                                     start_in_kernel && res.host_syncs == 0 ? &fresh : nullptr);
        } else if (batch_graph) {
          PERRON_CUDA_CHECK(cudaGraphLaunch(m.batch_exec.get(), m.stream.get()));
        } else {
          m.launch_body(batch, typename impl::conditions{});
        }
        // A batch under the interrupt check alone sends the ranks with the
        // state, as the one-launch solve does: nearly every solve ends in its
        // first batch, and one sync, not two, ends it (a batch that does not
        // end sends them for nothing, once per interrupt_batch steps).
        if (interruptible)
          m.fetch(true, chunks, &m.ev_stop, true);
        else
          m.fetch(true, 0);
        if (res.host_syncs == 0) allocate_rank();
        wait(no_progress, interruptible ? &m.ev_chunk[0] : nullptr);
        ++res.host_syncs;
        if (opt.progress) opt.progress(hs.iteration, hs.residual);
        if (opt.interrupt) opt.interrupt();  // between batches too: a short one's wait may not poll
        if (hs.done) break;
      }
      if (!interruptible) {
        m.ev_stop.record(m.stream.get());
        m.fetch(false, chunks);
        ++res.host_syncs;  // receive_rank() below
      }
    }
  } catch (...) {
    m.abandon();
    throw;
  }
  const auto received = clock::now();
  m.receive_rank(chunks, res);  // every event recorded above has completed after this
  const auto end = clock::now();
  res.device_seconds = m.ev_stop.ms_since(m.ev_start) * 1e-3;
  res.iterations = hs.iteration;
  res.residual = hs.residual;
  res.converged = hs.converged != 0;
  res.extrapolations = m.accel && accelerating ? m.h_accel[0].extrapolations : 0;
  res.extrapolations_rejected = m.accel && accelerating ? m.h_accel[0].rejected : 0;
  res.solve_seconds = seconds(t0, end);
  const double receiving = seconds(received, end);
  res.solve_phases = {{"launch", std::max(0.0, res.solve_seconds - allocating - waiting - receiving)},
                      {"allocate", allocating},
                      {"wait", waiting},
                      {"receive", receiving}};
  // (the plain steps it may add extrapolate nothing: no second round)
  return without_negative_ranks(std::move(res), opt,
                                [this](const pagerank_options& again) { return solve(again); });
}

template class pagerank_cuda<float>;
template class pagerank_cuda<double>;

}  // namespace perron
