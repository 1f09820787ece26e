// PageRank on the GPU: the SpMV of the plan, then one fused kernel per step,
// looped on the device. (pagerank_pull::fused replaces both launches of a
// step with one kernel of its own, pagerank_fused.cuh; the loops below are
// the same for it.)
//
// One step k -> k+1 is two launches on the solver's stream:
//   1. y = P^T r_k                                  (spmv_plan::apply, any kernel)
//   2. update_kernel, fused: r_{k+1} = alpha y + c_k v with c_k = alpha * dangling_k + 1 - alpha,
//      written over r_k in place (each thread reads its own r_k(i) first), while
//      accumulating in double  ||r_{k+1} - r_k||_1  and  dangling_{k+1} = sum_{j dangling} r_{k+1}(j).
//      The block sums go to two device-scope atomics; the last block to finish
//      (a ticket counter) closes the step: it publishes residual and dangling
//      mass, resets the accumulators, counts the iteration and decides whether
//      to go on. No third launch, no host involvement.
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
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cuda/atomic>
#include <limits>
#include <memory>
#include <thread>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "kernels/vector_ops.hpp"
#include "solvers/cuda/pagerank_device.cuh"
#include "solvers/cuda/pagerank_fused.cuh"
#include "solvers/pagerank.hpp"

namespace perron {
namespace {

using namespace pagerank_gpu;

constexpr int block_threads = 256;
constexpr int items_per_thread = 4;  // independent loads in flight per thread
constexpr int tile = block_threads * items_per_thread;

__device__ __forceinline__ bool is_dangling(const std::uint32_t* bits, long long i) {
  return (__ldg(bits + (i >> 5)) >> (i & 31)) & 1u;
}

// r_0: uniform (written here) or uploaded before; dangling_0 = sum_{j dangling} r_0(j).
template <class T>
__global__ void __launch_bounds__(block_threads)
    init_kernel(T* __restrict__ r, const std::uint32_t* __restrict__ bits, index_t n, int uniform,
                pagerank_state* st) {
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
  if (accumulate_grid<block_threads>(make_double2(0.0, dangling), st)) close_init(st);
}

// The fused step (see the top of the file). y = P^T r_k on entry.
template <class T>
__global__ void __launch_bounds__(block_threads)
    update_kernel(const T* __restrict__ y, T* __restrict__ r, const T* __restrict__ v,
                  const std::uint32_t* __restrict__ bits, index_t n, pagerank_state* st,
                  pagerank_progress* progress, cudaGraphConditionalHandle handle, int set_condition) {
  // Written by the previous launch's last block: uniform across this grid.
  if (st->done) return;
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
        if (is_dangling(bits, i)) dangling += static_cast<double>(rn);
      }
    }
  }

  if (!accumulate_grid<block_threads>(make_double2(l1, dangling), st)) return;
  close_step(st, progress, handle, set_condition);  // last block, thread 0
}

// Host-side RAII for the pinned / mapped host allocations and graphs.
struct pinned_deleter {
  void operator()(void* p) const noexcept {
    if (p) cudaFreeHost(p);
  }
};
template <class X>
using pinned_ptr = std::unique_ptr<X, pinned_deleter>;

template <class X>
pinned_ptr<X> pinned_alloc(std::size_t count, unsigned flags = cudaHostAllocDefault) {
  void* p = nullptr;
  PERRON_CUDA_CHECK(cudaHostAlloc(&p, std::max<std::size_t>(count, 1) * sizeof(X), flags));
  return pinned_ptr<X>(static_cast<X*>(p));
}

struct graph_exec_deleter {
  void operator()(cudaGraphExec_t g) const noexcept {
    if (g) cudaGraphExecDestroy(g);
  }
};
using graph_exec_ptr = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, graph_exec_deleter>;

struct graph_deleter {
  void operator()(cudaGraph_t g) const noexcept {
    if (g) cudaGraphDestroy(g);
  }
};
using graph_ptr = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, graph_deleter>;

}  // namespace

template <class T>
struct pagerank_cuda<T>::impl {
  index_t n = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
  // The ranks come back in up to rank_chunks pieces, each with its event, so
  // that the host widens one piece while the next is still on its way.
  static constexpr int rank_chunks = 8;
  cudaEvent_t ev_chunk[rank_chunks] = {};
  std::unique_ptr<spmv_plan<T>> plan;    // pagerank_pull::spmv
  std::unique_ptr<fused_pull<T>> fused;  // pagerank_pull::fused
  std::string reason;                    // why this kernel / pull
  cuda::device_buffer<T> d_r, d_y, d_v;
  cuda::device_buffer<std::uint32_t> d_bits;
  cuda::device_buffer<pagerank_state> d_state;
  pinned_ptr<pagerank_state> h_state;
  pinned_ptr<pagerank_progress> h_progress;  // mapped
  pagerank_progress* d_progress = nullptr;   // its device address
  pinned_ptr<T> h_rank;
  int grid = 1;

  graph_exec_ptr while_exec;
  int while_unroll = 0;
  int auto_unroll = 0;  // automatic_unroll()'s choice, once measured
  bool while_tried = false;
  std::string while_error;  // why graph_while is unavailable
  graph_exec_ptr batch_exec;
  int batch_size = 0;
  bool batch_tried = false;

  ~impl() {
    // The plan's work is on our stream: drop it before the stream.
    while_exec.reset();
    batch_exec.reset();
    plan.reset();
    fused.reset();
    if (ev_start) cudaEventDestroy(ev_start);
    if (ev_stop) cudaEventDestroy(ev_stop);
    for (cudaEvent_t e : ev_chunk)
      if (e) cudaEventDestroy(e);
    if (stream) cudaStreamDestroy(stream);
  }

  std::string kernel_name() const { return fused ? "pull-fused" : std::string(name(plan->kernel())); }

  void launch_init(bool uniform) {
    if (fused) {
      fused->launch_init(d_r.data(), uniform ? 1 : 0, d_state.data());
      return;
    }
    init_kernel<T>
        <<<grid, block_threads, 0, stream>>>(d_r.data(), d_bits.data(), n, uniform ? 1 : 0, d_state.data());
    PERRON_CUDA_CHECK_LAUNCH("pagerank init_kernel");
  }

  // One step: y = P^T r, then the fused update.
  void launch_step(cudaGraphConditionalHandle handle, bool set_condition) {
    if (fused) {
      fused->launch_step(d_state.data(), d_progress, handle, set_condition ? 1 : 0);
      return;
    }
    plan->apply(T(1), d_r.data(), T(0), d_y.data());
    update_kernel<T><<<grid, block_threads, 0, stream>>>(d_y.data(), d_r.data(), d_v.data(), d_bits.data(), n,
                                                         d_state.data(), d_progress, handle,
                                                         set_condition ? 1 : 0);
    PERRON_CUDA_CHECK_LAUNCH("pagerank update_kernel");
  }

  // Ends a capture that failed half-way so the stream is usable again.
  void abandon_capture() noexcept {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
      cudaGraph_t g = nullptr;
      cudaStreamEndCapture(stream, &g);
      if (g) cudaGraphDestroy(g);
    }
    cudaGetLastError();  // capture errors are not sticky; clear the last-error slot
  }

  // The graph_while loop: built on first use; false (with while_error) when the
  // SpMV cannot be captured into a conditional body.
  bool ensure_while_graph(int unroll) {
    if (while_tried && (!while_exec || while_unroll == unroll)) return static_cast<bool>(while_exec);
    while_exec.reset();
    while_tried = true;
    while_unroll = unroll;
    graph_ptr graph;
    try {
      cudaGraph_t g = nullptr;
      PERRON_CUDA_CHECK(cudaGraphCreate(&g, 0));
      graph.reset(g);
      cudaGraphConditionalHandle handle{};
      // Reset to 1 at every launch: the body runs at least once (max_iter >= 1).
      PERRON_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, g, 1, cudaGraphCondAssignDefault));
      cudaGraphNodeParams params{};
      params.type = cudaGraphNodeTypeConditional;
      params.conditional.handle = handle;
      params.conditional.type = cudaGraphCondTypeWhile;
      params.conditional.size = 1;
      cudaGraphNode_t node = nullptr;
      PERRON_CUDA_CHECK(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &params));
      cudaGraph_t body = params.conditional.phGraph_out[0];
      PERRON_CUDA_CHECK(
          cudaStreamBeginCaptureToGraph(stream, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
      try {
        for (int u = 0; u < unroll; ++u) launch_step(handle, true);
      } catch (...) {
        abandon_capture();
        throw;
      }
      cudaGraph_t captured = nullptr;
      PERRON_CUDA_CHECK(cudaStreamEndCapture(stream, &captured));
      cudaGraphExec_t exec = nullptr;
      PERRON_CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
      while_exec.reset(exec);
      return true;
    } catch (const error& e) {
      abandon_capture();
      while_error =
          "the " + kernel_name() + " SpMV could not run inside a conditional CUDA graph (" + e.what() + ")";
      return false;
    }
  }

  // The check_every loop's graph of `size` steps; false: launch them directly.
  bool ensure_batch_graph(int size) {
    if (batch_tried && batch_size == size) return static_cast<bool>(batch_exec);
    batch_exec.reset();
    batch_tried = true;
    batch_size = size;
    try {
      PERRON_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      try {
        for (int s = 0; s < size; ++s) launch_step(0, false);
      } catch (...) {
        abandon_capture();
        throw;
      }
      cudaGraph_t g = nullptr;
      PERRON_CUDA_CHECK(cudaStreamEndCapture(stream, &g));
      graph_ptr graph(g);
      cudaGraphExec_t exec = nullptr;
      PERRON_CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
      batch_exec.reset(exec);
      return true;
    } catch (const error&) {
      abandon_capture();
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
  // it needs no synchronization).
  void wait(const pagerank_options& opt, cudaEvent_t done = nullptr) {
    if (opt.progress) {
      int shown = 0;
      for (;;) {
        const cudaError_t q = done ? cudaEventQuery(done) : cudaStreamQuery(stream);
        if (q == cudaSuccess) break;
        if (q != cudaErrorNotReady) PERRON_CUDA_CHECK(q);
        const volatile pagerank_progress* p = h_progress.get();
        const int k = p->iteration;
        if (k > shown) {
          shown = k;
          opt.progress(k, p->residual);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
    PERRON_CUDA_CHECK(done ? cudaEventSynchronize(done) : cudaStreamSynchronize(stream));
  }
};

template <class T>
pagerank_cuda<T>::pagerank_cuda(const pagerank_graph<T>& g, spmv_kernel kernel, pagerank_pull pull)
    : impl_(std::make_unique<impl>()) {
  pull = resolve_pull(pull, g.pattern, kernel);
  if (kernel == spmv_kernel::cpu)
    throw invalid_argument("the cpu kernel runs on the host; the GPU solver needs a GPU kernel (" +
                           spmv_kernel_names() + ")");
  if (!cuda::available()) throw cuda_error("no usable CUDA device");
  impl& m = *impl_;
  m.n = g.vertices();
  if (m.n <= 0) throw invalid_argument("the graph is empty (0 vertices)");
  if (g.dangling.size() != static_cast<std::size_t>(m.n))
    throw dimension_error("pagerank_graph: dangling mask of " + std::to_string(g.dangling.size()) +
                          " entries for " + std::to_string(m.n) + " vertices");
  const auto nn = static_cast<std::size_t>(m.n);
  PERRON_CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
  PERRON_CUDA_CHECK(cudaEventCreate(&m.ev_start));
  PERRON_CUDA_CHECK(cudaEventCreate(&m.ev_stop));
  for (cudaEvent_t& e : m.ev_chunk) PERRON_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  if (pull == pagerank_pull::fused) {
    if (!g.pattern)
      throw invalid_argument(
          "the fused pull needs an unweighted graph (P^T(i, j) = 1/outdeg(j)); use the spmv pull");
    if (kernel != spmv_kernel::automatic)
      throw invalid_argument("the fused pull runs its own kernel; --kernel " + std::string(name(kernel)) +
                             " needs the spmv pull");
  }
  if (pull == pagerank_pull::fused) {
    m.fused = std::make_unique<fused_pull<T>>(g.pt, m.stream);
    m.reason = "pattern pull with the update fused, vertices by in-degree, sliced, " +
               std::to_string(m.fused->hub()) +
               " entries of x in shared memory (step time by hub size: " + m.fused->trial() + ")";
  } else {
    m.plan = std::make_unique<spmv_plan<T>>(g.pt, kernel, m.stream);
    m.reason = m.plan->reason();
  }

  // Every buffer the graphs point at is allocated here, once: a captured graph
  // keeps the addresses it saw.
  m.d_r = cuda::device_buffer<T>(nn);
  m.d_v = cuda::device_buffer<T>(nn);
  if (m.plan) {
    m.d_y = cuda::device_buffer<T>(nn);
    std::vector<std::uint32_t> bits((nn + 31) / 32, 0u);
    for (std::size_t j = 0; j < nn; ++j)
      if (g.dangling[j]) bits[j >> 5] |= 1u << (j & 31);
    m.d_bits = cuda::device_buffer<std::uint32_t>(bits);
  }
  m.d_state = cuda::device_buffer<pagerank_state>(1);
  m.h_state = pinned_alloc<pagerank_state>(1);
  m.h_progress = pinned_alloc<pagerank_progress>(1, cudaHostAllocMapped);
  *m.h_progress = pagerank_progress{0, 0.0};
  PERRON_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&m.d_progress), m.h_progress.get(), 0));
  m.h_rank = pinned_alloc<T>(nn);

  int device = 0, sms = 1;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // Enough blocks to fill the GPU (8 x 256 threads per SM), no more: every
  // block adds one ticket and two atomics per step.
  const long long tiles = (static_cast<long long>(m.n) + tile - 1) / tile;
  m.grid = static_cast<int>(std::max<long long>(1, std::min<long long>(tiles, 8LL * sms)));

  // One SpMV outside any capture so that whatever the plan sets up lazily
  // happens here, then wait for every upload (some went through the legacy
  // default stream, which our non-blocking stream does not follow).
  PERRON_CUDA_CHECK(cudaMemsetAsync(m.d_r.data(), 0, m.d_r.bytes(), m.stream));
  if (m.plan) m.plan->apply(T(1), m.d_r.data(), T(0), m.d_y.data());
  cuda::synchronize();
}

template <class T>
pagerank_cuda<T>::~pagerank_cuda() = default;
template <class T>
pagerank_cuda<T>::pagerank_cuda(pagerank_cuda&&) noexcept = default;
template <class T>
pagerank_cuda<T>& pagerank_cuda<T>::operator=(pagerank_cuda&&) noexcept = default;

template <class T>
spmv_kernel pagerank_cuda<T>::kernel() const {
  return impl_->plan ? impl_->plan->kernel() : spmv_kernel::automatic;
}
template <class T>
bool pagerank_cuda<T>::fused() const {
  return static_cast<bool>(impl_->fused);
}
template <class T>
std::string pagerank_cuda<T>::kernel_name() const {
  return impl_->kernel_name();
}
template <class T>
const std::string& pagerank_cuda<T>::kernel_reason() const {
  return impl_->reason;
}
template <class T>
std::size_t pagerank_cuda<T>::device_bytes() const {
  const impl& m = *impl_;
  return (m.plan ? m.plan->device_bytes() : m.fused->device_bytes()) + m.d_r.bytes() + m.d_y.bytes() +
         m.d_v.bytes() + m.d_bits.bytes() + m.d_state.bytes();
}

template <class T>
pagerank_result pagerank_cuda<T>::solve(const pagerank_options& opt) {
  impl& m = *impl_;
  validate(opt, m.n);
  const auto nn = static_cast<std::size_t>(m.n);
  const auto t0 = std::chrono::steady_clock::now();

  pagerank_result res;
  res.on_gpu = true;
  res.kernel = kernel();
  res.fused_pull = static_cast<bool>(m.fused);
  res.hub_entries = m.fused ? m.fused->hub() : 0;
  res.kernel_reason = m.reason;

  // Which loop: graph_while unless asked otherwise or the SpMV does not capture.
  pagerank_loop loop = opt.loop;
  if (!opt.use_graphs) {
    if (loop == pagerank_loop::graph_while) throw invalid_argument("loop graph-while needs use_graphs");
    loop = pagerank_loop::check_every;
  }
  if (loop == pagerank_loop::automatic || loop == pagerank_loop::graph_while) {
    const int unroll = opt.graph_unroll > 0 ? opt.graph_unroll : m.automatic_unroll();
    if (m.ensure_while_graph(unroll)) {
      loop = pagerank_loop::graph_while;
      res.graph_unroll = unroll;
    } else if (loop == pagerank_loop::graph_while) {
      throw cuda_error("loop graph-while: " + m.while_error);
    } else {
      loop = pagerank_loop::check_every;
      res.loop_note =
          m.while_error + "; checking every " + std::to_string(opt.check_interval) + " iterations instead";
    }
  }
  res.loop = loop;
  const bool batch_graph =
      loop == pagerank_loop::check_every && opt.use_graphs && m.ensure_batch_graph(opt.check_interval);
  if (loop == pagerank_loop::check_every && opt.use_graphs && !batch_graph)
    res.loop_note += std::string(res.loop_note.empty() ? "" : "; ") +
                     "the SpMV does not capture into a CUDA graph: steps are launched one by one";

  // Uploads (pageable sources: cudaMemcpyAsync stages them before returning).
  const bool personalized = !opt.personalization.empty();
  if (personalized) {
    const std::vector<double> v = normalized_distribution(opt.personalization, m.n, "personalization");
    std::vector<T> vt(v.begin(), v.end());
    PERRON_CUDA_CHECK(
        cudaMemcpyAsync(m.d_v.data(), vt.data(), nn * sizeof(T), cudaMemcpyHostToDevice, m.stream));
    if (m.fused) m.fused->launch_personalization(m.d_v.data());
  }
  const bool uniform_start = opt.initial.empty();
  if (!uniform_start) {
    const std::vector<double> r0 = normalized_distribution(opt.initial, m.n, "initial vector");
    std::vector<T> rt(r0.begin(), r0.end());
    PERRON_CUDA_CHECK(
        cudaMemcpyAsync(m.d_r.data(), rt.data(), nn * sizeof(T), cudaMemcpyHostToDevice, m.stream));
  }
  pagerank_state& hs = *m.h_state;
  hs = pagerank_state{};
  hs.alpha = opt.alpha;
  hs.tol = opt.tol;
  hs.max_iter = opt.max_iter;
  hs.personalized = personalized ? 1 : 0;
  // The mapped progress record is for the one-sync loop; check_every reports
  // from the state it fetches after each batch anyway.
  hs.report_progress = opt.progress && loop == pagerank_loop::graph_while ? 1 : 0;
  hs.residual = std::numeric_limits<double>::infinity();
  *m.h_progress = pagerank_progress{0, 0.0};
  PERRON_CUDA_CHECK(cudaMemcpyAsync(m.d_state.data(), m.h_state.get(), sizeof(pagerank_state),
                                    cudaMemcpyHostToDevice, m.stream));

  PERRON_CUDA_CHECK(cudaEventRecord(m.ev_start, m.stream));
  m.launch_init(uniform_start);
  const auto fetch_state = [&] {
    PERRON_CUDA_CHECK(cudaMemcpyAsync(m.h_state.get(), m.d_state.data(), sizeof(pagerank_state),
                                      cudaMemcpyDeviceToHost, m.stream));
  };
  // Pieces of at least 256K values (1 MB in float): fewer would not pay for
  // their copies' and events' fixed costs.
  const std::size_t chunks = std::clamp<std::size_t>(nn >> 18, 1, impl::rank_chunks);
  const auto chunk_begin = [&](std::size_t c) { return nn * c / chunks; };
  const auto fetch_rank = [&] {
    if (m.fused) m.fused->launch_ranks(m.d_r.data(), m.d_state.data());  // back in the graph's order
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::size_t b = chunk_begin(c), e = chunk_begin(c + 1);
      PERRON_CUDA_CHECK(cudaMemcpyAsync(m.h_rank.get() + b, m.d_r.data() + b, (e - b) * sizeof(T),
                                        cudaMemcpyDeviceToHost, m.stream));
      PERRON_CUDA_CHECK(cudaEventRecord(m.ev_chunk[c], m.stream));
    }
  };
  // Widened on every core, piece by piece as they arrive: this runs after the
  // device has finished, so only the last piece's share adds to the wall time.
  const auto receive_rank = [&] {
    for (std::size_t c = 0; c < chunks; ++c) {
      PERRON_CUDA_CHECK(cudaEventSynchronize(m.ev_chunk[c]));
      const std::size_t b = chunk_begin(c), e = chunk_begin(c + 1);
      widen(e - b, m.h_rank.get() + b, res.rank.data() + b);
    }
  };

  // The result's memory is allocated and first touched while the device
  // runs: page faults on a fresh 8 MB vector took 1-4 ms on the H100 host,
  // more than rmat:20's whole device time.
  const auto allocate_rank = [&] { res.rank = fresh_vector<double>(nn); };

  const pagerank_options no_progress;
  if (loop == pagerank_loop::graph_while) {
    // The whole loop, the state and the ranks: one launch, one wait.
    PERRON_CUDA_CHECK(cudaGraphLaunch(m.while_exec.get(), m.stream));
    PERRON_CUDA_CHECK(cudaEventRecord(m.ev_stop, m.stream));
    fetch_state();
    fetch_rank();
    allocate_rank();
    m.wait(opt, m.ev_chunk[0]);  // the state and the first piece of the ranks
    res.host_syncs = 1;
  } else {
    for (;;) {
      if (batch_graph) {
        PERRON_CUDA_CHECK(cudaGraphLaunch(m.batch_exec.get(), m.stream));
      } else {
        for (int s = 0; s < opt.check_interval; ++s) m.launch_step(0, false);
      }
      fetch_state();
      if (res.host_syncs == 0) allocate_rank();
      m.wait(no_progress);
      ++res.host_syncs;
      if (opt.progress) opt.progress(hs.iteration, hs.residual);
      if (hs.done) break;
    }
    PERRON_CUDA_CHECK(cudaEventRecord(m.ev_stop, m.stream));
    fetch_rank();
    ++res.host_syncs;  // receive_rank() below
  }
  receive_rank();  // every event recorded above has completed after this
  float ms = 0.0f;
  PERRON_CUDA_CHECK(cudaEventElapsedTime(&ms, m.ev_start, m.ev_stop));
  res.device_seconds = ms * 1e-3;
  res.iterations = hs.iteration;
  res.residual = hs.residual;
  res.converged = hs.converged != 0;
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

template class pagerank_cuda<float>;
template class pagerank_cuda<double>;

}  // namespace perron
