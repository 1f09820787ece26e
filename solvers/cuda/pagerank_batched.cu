// Batched personalized PageRank on the GPU. A block of k columns (padded to a
// multiple of 16 bytes per row so that the SpMM reads R's rows with 16-byte
// loads) takes per step two launches on the solver's stream:
//   1. Y = P^T R                    (spmm_plan::apply: P^T read once for all k columns)
//   2. update_kernel, for every live column c and vertex i:
//        R(i, c) <- T(alpha Y(i, c) + coef_c v_c(i)),  coef_c = alpha * dangling_c + 1 - alpha,
//      with ||R_new - R||_1 and the next dangling mass per column in per-block
//      partials; the last block to finish (a ticket) adds them in block order
//      (deterministic) and closes the step for every column: counts its
//      iteration, and freezes it when it converged or reached max_iter. A
//      frozen column is never written again, so it holds its stopping iterate
//      exactly however many steps run before the host sees the flag.
// The host waits once per check (every compact_every steps, at most 8): it reads the k
// frozen flags, copies newly frozen columns out (a transposing kernel into a
// column-major stage, then asynchronous copies into pinned memory; the host
// widens them to double while the next batch of steps runs), and compacts the
// block on the device (a gather of the live columns and their state) when that
// narrows it. Nothing else crosses the bus during a solve: the teleport is a
// short list over the source vertices, uploaded once per block.
//
// Bytes per step (float, k columns, n vertices, m links): the SpMM reads P^T
// once (8 m bytes: index + value) and gathers 4 k bytes per link (R's rows,
// from L2 where they fit) and writes Y (4 n k); the update reads Y and R and
// writes R (12 n k). Per column that is 4 m + 16 n bytes plus 8 m / k, against
// a single solve's 8 m + 12 n (docs/PERFORMANCE.md compares them).
#include <cuda_runtime.h>
#include <math_constants.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "kernels/spmm.hpp"
#include "kernels/vector_ops.hpp"
#include "solvers/pagerank_batched.hpp"

namespace perron {
namespace {

constexpr int threads = 256;  // also the widest block (columns)
constexpr unsigned max_blocks = 1024;
// The column-major stage of copied-out columns holds at most this many bytes
// (at least one column): the whole block on cnr-2000, 64 columns of rmat:20.
constexpr std::size_t stage_bytes = std::size_t(256) << 20;
// The host looks at the flags every min(compact_every, this) steps: without
// compaction a check still copies converged columns out, and a column stops
// at most this many steps after the block's last one.
constexpr int max_check_steps = 8;

// Per column of the block (device arrays of the padded width).
struct columns {
  double* coef;  // alpha * dangling_c + 1 - alpha, for the next step
  int* frozen;   // 1: stopped (converged, max_iter) or padding; R(:, c) is not written
  int* source;   // the column's source, as a slot of the block (-1: padding)
  int* iter;     // steps the column has taken
};

// Per source slot of the block.
struct outcome {
  int* iterations;
  double* residual;
  int* converged;
};

// The block's personalization: row_of[i] = m >= 0 when vertex i carries
// teleport, its entries ptr[m]..ptr[m+1] (slot, weight); -1 elsewhere.
struct teleport {
  const int* row_of;
  const index_t* ptr;
  const index_t* slot;
  const double* weight;
};

// Rows in flight per thread: every load of that many rows is issued before
// any is used (as the single solver's update does with 4 items per thread).
constexpr int rows_in_flight = 4;

// Thread t of block b owns column c = t % k of the rows b rpp + t / k + j S,
// j = 0, 1, ... (rpp = threads / k rows per block pass, S = grid x rpp rows per
// grid pass), so each grid pass sweeps S contiguous rows of the row-major
// block, and a thread loads rows_in_flight rows before it uses any. Per element:
//   R(i, c) <- T(alpha Y(i, c) + coef_c v_c(i)),
// with |R_new - R| and, for dangling i, R_new summed per thread, then per
// column over the block's threads in thread order into partials
// [l1: c * blocks + b], [dangling: (k + c) * blocks + b].
template <class T>
__global__ void __launch_bounds__(threads)
    update_kernel(T* __restrict__ r, const T* __restrict__ y, index_t n, int k, double alpha, double tol,
                  int max_iter, columns col, outcome out, teleport tp,
                  const std::uint8_t* __restrict__ dangling, double* __restrict__ partials,
                  unsigned* __restrict__ ticket) {
  __shared__ double s_l1[threads], s_d[threads];
  __shared__ bool closing;
  const int rpp = threads / k;
  const int t = static_cast<int>(threadIdx.x);
  const int c = t % k;
  double l1 = 0.0, d = 0.0;
  if (t < rpp * k && !col.frozen[c]) {
    const double cc = col.coef[c];
    const int src = col.source[c];
    const std::size_t kk = static_cast<std::size_t>(k);
    const long long stride = static_cast<long long>(gridDim.x) * rpp;
    for (long long i0 = static_cast<long long>(blockIdx.x) * rpp + t / k; i0 < n;
         i0 += rows_in_flight * stride) {
      T yv[rows_in_flight], rv[rows_in_flight];
      int mv[rows_in_flight];
      std::uint8_t dv[rows_in_flight];
#pragma unroll
      for (int u = 0; u < rows_in_flight; ++u) {
        const long long i = i0 + u * stride;
        if (i < n) {
          const std::size_t at = static_cast<std::size_t>(i) * kk + static_cast<std::size_t>(c);
          yv[u] = y[at];
          rv[u] = r[at];
          mv[u] = __ldg(tp.row_of + i);
          dv[u] = __ldg(dangling + i);
        }
      }
#pragma unroll
      for (int u = 0; u < rows_in_flight; ++u) {
        const long long i = i0 + u * stride;
        if (i < n) {
          double x = alpha * static_cast<double>(yv[u]);
          if (mv[u] >= 0)
            for (index_t e = tp.ptr[mv[u]]; e < tp.ptr[mv[u] + 1]; ++e)
              if (tp.slot[e] == src) x += cc * tp.weight[e];
          const T rn = static_cast<T>(x);
          l1 += fabs(static_cast<double>(rn) - static_cast<double>(rv[u]));
          r[static_cast<std::size_t>(i) * kk + static_cast<std::size_t>(c)] = rn;
          if (dv[u]) d += static_cast<double>(rn);
        }
      }
    }
  }
  s_l1[t] = l1;
  s_d[t] = d;
  __syncthreads();
  if (t < k) {
    double a = 0.0, b = 0.0;
    for (int j = t; j < rpp * k; j += k) a += s_l1[j], b += s_d[j];
    partials[static_cast<std::size_t>(t) * gridDim.x + blockIdx.x] = a;
    partials[static_cast<std::size_t>(k + t) * gridDim.x + blockIdx.x] = b;
  }
  // The last block to arrive closes the step (the threadFenceReduction pattern).
  __threadfence();
  __syncthreads();
  if (t == 0) closing = atomicAdd(ticket, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!closing) return;
  __threadfence();
  const int lane = t & 31;
  for (int j = t >> 5; j < k; j += threads / 32) {
    // lane sums blocks lane, lane + 32, ...; then a fixed butterfly: same bits every run
    double a = 0.0, b = 0.0;
    for (unsigned bl = static_cast<unsigned>(lane); bl < gridDim.x; bl += 32) {
      a += __ldcg(partials + static_cast<std::size_t>(j) * gridDim.x + bl);
      b += __ldcg(partials + static_cast<std::size_t>(k + j) * gridDim.x + bl);
    }
    for (int off = 16; off > 0; off >>= 1) {
      a += __shfl_xor_sync(0xffffffffu, a, off);
      b += __shfl_xor_sync(0xffffffffu, b, off);
    }
    if (lane != 0 || col.frozen[j]) continue;
    const int it = ++col.iter[j];
    col.coef[j] = alpha * b + (1.0 - alpha);
    const int s = col.source[j];
    out.iterations[s] = it;
    out.residual[s] = a;
    if (a < tol || it >= max_iter) {
      col.frozen[j] = 1;
      out.converged[s] = a < tol ? 1 : 0;
    }
  }
  if (t == 0) *ticket = 0;
}

// A fresh block of `live` sources in k >= live columns (the rest padding):
// R = 1/n in the live columns, 0 in the padding; one block of threads.
__global__ void begin_columns(columns col, outcome out, int k, int live, double coef0) {
  for (int j = static_cast<int>(threadIdx.x); j < k; j += blockDim.x) {
    const bool on = j < live;
    col.coef[j] = on ? coef0 : 0.0;
    col.frozen[j] = on ? 0 : 1;
    col.source[j] = on ? j : -1;
    col.iter[j] = 0;
    if (on) {
      out.iterations[j] = 0;
      out.residual[j] = CUDART_INF;
      out.converged[j] = 0;
    }
  }
}

template <class T>
__global__ void fill_block(T* __restrict__ r, index_t n, int k, int live, T value) {
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(k);
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x)
    r[e] = static_cast<int>(e % static_cast<std::size_t>(k)) < live ? value : T(0);
}

// row_of[vertex[m]] = m (set) or -1 (clear), for the block's teleport vertices.
__global__ void mark_teleport(int* __restrict__ row_of, const index_t* __restrict__ vertex, int count,
                              int set) {
  const int m = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (m < count) row_of[vertex[m]] = set ? m : -1;
}

// stage[job.y * n + i] = R(i, job.x) for each of `count` jobs (column, stage slot).
template <class T>
__global__ void extract_columns(const T* __restrict__ r, index_t n, int k, const int2* __restrict__ jobs,
                                int count, T* __restrict__ stage) {
  const std::size_t nn = static_cast<std::size_t>(n), total = nn * static_cast<std::size_t>(count);
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const int2 job = jobs[e / nn];
    const std::size_t i = e % nn;
    stage[static_cast<std::size_t>(job.y) * nn + i] = r[i * static_cast<std::size_t>(k) + job.x];
  }
}

// out(i, j) = in(i, keep[j]) for j < kn, 0 for kn <= j < kp: the compacted block.
template <class T>
__global__ void gather_block(const T* __restrict__ in, T* __restrict__ out, index_t n, int k, int kp, int kn,
                             const int* __restrict__ keep) {
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(kp);
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i = e / static_cast<std::size_t>(kp);
    const int j = static_cast<int>(e % static_cast<std::size_t>(kp));
    out[e] = j < kn ? in[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(keep[j])] : T(0);
  }
}

// The columns' state follows the gather; one block of `threads` threads (every
// thread reads before any writes).
__global__ void gather_columns(columns col, int kp, int kn, const int* __restrict__ keep) {
  const int j = static_cast<int>(threadIdx.x);
  double coef = 0.0;
  int frozen = 1, source = -1, iter = 0;
  if (j < kn) {
    const int s = keep[j];
    coef = col.coef[s];
    frozen = col.frozen[s];
    source = col.source[s];
    iter = col.iter[s];
  }
  __syncthreads();
  if (j < kp) {
    col.coef[j] = coef;
    col.frozen[j] = frozen;
    col.source[j] = source;
    col.iter[j] = iter;
  }
}

template <class T>
void grow(cuda::device_buffer<T>& b, std::size_t n) {
  if (b.size() < n) b = cuda::device_buffer<T>(n);
}

template <class T>
void upload_async(cuda::device_buffer<T>& d, const std::vector<T>& h, cudaStream_t s) {
  grow(d, std::max<std::size_t>(h.size(), 1));
  // Pageable source: the copy is staged before cudaMemcpyAsync returns.
  if (!h.empty())
    PERRON_CUDA_CHECK(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, s));
}

}  // namespace

template <class T>
struct pagerank_batched_gpu<T>::impl {
  // Declared first, destroyed last: the plan's work is on it.
  cuda::stream stream;
  index_t n = 0;
  index_t dangling_count = 0;
  int width = 0;   // most sources per block
  int padded = 0;  // width rounded up to whole 16-byte rows
  std::unique_ptr<spmm_plan<T>> plan;
  cuda::device_buffer<std::uint8_t> dangling;
  cuda::device_buffer<T> r, y, stage;
  cuda::device_buffer<double> coef, residual, partials, weight;
  cuda::device_buffer<int> frozen, source, iter, iterations, converged, row_of, keep;
  cuda::device_buffer<index_t> vertex, ptr, slot;
  cuda::device_buffer<int2> jobs;
  cuda::device_buffer<unsigned> ticket;
  cuda::pinned_buffer<int> h_frozen, h_keep, h_iterations, h_converged;
  cuda::pinned_buffer<double> h_residual;
  cuda::pinned_buffer<int2> h_jobs;
  cuda::pinned_buffer<T> h_stage;
  cuda::event ev_check{cudaEventDisableTiming}, ev_start, ev_stop;

  // The block being solved: k columns (padded); per column its source (-1:
  // none) and whether it still has to be copied out.
  int k = 0;
  std::vector<std::size_t> source_of;  // global source index per block column (when source >= 0)
  std::vector<std::uint8_t> pending;   // 1: a source column not yet copied out

  // Stage slots of copied-out columns: free, queued after the last wait
  // (in_flight), complete and waiting to be widened (ready).
  struct staged {
    int slot;
    std::size_t source;
  };
  std::vector<int> free_slots;
  std::vector<staged> in_flight, ready;

  static int pad(int columns) {
    constexpr int wide = static_cast<int>(16 / sizeof(T));
    return (columns + wide - 1) / wide * wide;
  }
  columns cols() { return {coef.data(), frozen.data(), source.data(), iter.data()}; }
  outcome outs() { return {iterations.data(), residual.data(), converged.data()}; }

  impl(const pagerank_graph<T>& g, int w);
  void step(const pagerank_batched_options& opt);
  void widen_ready(pagerank_batched_result& res);
  void wait_check();
  void extract(pagerank_batched_result& res);
  bool compact();
  void run_block(const std::vector<source_set>& sources, std::size_t begin, std::size_t end,
                 const pagerank_batched_options& opt, pagerank_batched_result& res);
};

template <class T>
pagerank_batched_gpu<T>::impl::impl(const pagerank_graph<T>& g, int w)
    : n(g.vertices()), dangling_count(g.dangling_count), width(w), padded(pad(w)) {
  const auto nn = static_cast<std::size_t>(n), kp = static_cast<std::size_t>(padded);
  plan = std::make_unique<spmm_plan<T>>(g.pt, stream.get());
  dangling = cuda::device_buffer<std::uint8_t>(g.dangling);
  r = cuda::device_buffer<T>(nn * kp);
  y = cuda::device_buffer<T>(nn * kp);
  const std::size_t stage_columns =
      std::clamp<std::size_t>(stage_bytes / (nn * sizeof(T)), 1, static_cast<std::size_t>(width));
  stage = cuda::device_buffer<T>(nn * stage_columns);
  h_stage = cuda::pinned_buffer<T>(nn * stage_columns);
  for (int s = static_cast<int>(stage_columns) - 1; s >= 0; --s) free_slots.push_back(s);
  coef = cuda::device_buffer<double>(kp);
  partials = cuda::device_buffer<double>(2 * kp * max_blocks);
  for (auto* b : {&frozen, &source, &iter, &keep}) *b = cuda::device_buffer<int>(kp);
  for (auto* b : {&iterations, &converged}) *b = cuda::device_buffer<int>(static_cast<std::size_t>(width));
  residual = cuda::device_buffer<double>(static_cast<std::size_t>(width));
  row_of = cuda::device_buffer<int>(nn);
  jobs = cuda::device_buffer<int2>(kp);
  ticket = cuda::device_buffer<unsigned>(1);
  h_frozen = cuda::pinned_buffer<int>(kp);
  h_keep = cuda::pinned_buffer<int>(kp);
  h_jobs = cuda::pinned_buffer<int2>(kp);
  h_iterations = cuda::pinned_buffer<int>(static_cast<std::size_t>(width));
  h_converged = cuda::pinned_buffer<int>(static_cast<std::size_t>(width));
  h_residual = cuda::pinned_buffer<double>(static_cast<std::size_t>(width));
  PERRON_CUDA_CHECK(cudaMemsetAsync(row_of.data(), 0xff, row_of.bytes(), stream.get()));  // all -1
  PERRON_CUDA_CHECK(cudaMemsetAsync(ticket.data(), 0, ticket.bytes(), stream.get()));
  // One SpMM outside the timed solves (lazy setup, module loading), then wait
  // for everything, the legacy-stream uploads included.
  PERRON_CUDA_CHECK(cudaMemsetAsync(r.data(), 0, r.bytes(), stream.get()));
  plan->apply(T(1), r.data(), T(0), y.data(), padded);
  cuda::synchronize();
}

template <class T>
void pagerank_batched_gpu<T>::impl::step(const pagerank_batched_options& opt) {
  plan->apply(T(1), r.data(), T(0), y.data(), k);
  // One block pass covers threads / k rows; at most max_blocks blocks.
  const index_t rpp = threads / k;
  const auto blocks = static_cast<unsigned>(std::min<index_t>(max_blocks, (n + rpp - 1) / rpp));
  update_kernel<T><<<blocks, threads, 0, stream.get()>>>(
      r.data(), y.data(), n, k, opt.base.alpha, opt.base.tol, opt.base.max_iter, cols(), outs(),
      teleport{row_of.data(), ptr.data(), slot.data(), weight.data()}, dangling.data(), partials.data(),
      ticket.data());
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank update_kernel");
}

template <class T>
void pagerank_batched_gpu<T>::impl::widen_ready(pagerank_batched_result& res) {
  const auto nn = static_cast<std::size_t>(n);
  for (const staged& s : ready) {
    widen(nn, h_stage.data() + static_cast<std::size_t>(s.slot) * nn, res.rank.data() + s.source * nn);
    free_slots.push_back(s.slot);
  }
  ready.clear();
}

// Waits for the check queued last (the frozen flags); every copy queued
// before it has then landed.
template <class T>
void pagerank_batched_gpu<T>::impl::wait_check() {
  ev_check.synchronize();
  ready.insert(ready.end(), in_flight.begin(), in_flight.end());
  in_flight.clear();
}

// Copies out the frozen columns not yet copied, as far as stage slots allow
// (the rest stay in the block, frozen, for the next check): a transposing
// kernel into the stage, then one asynchronous copy per column into pinned
// memory, widened at a later check while the device works.
template <class T>
void pagerank_batched_gpu<T>::impl::extract(pagerank_batched_result& res) {
  std::vector<int> done;
  for (int j = 0; j < k; ++j)
    if (pending[static_cast<std::size_t>(j)] && h_frozen[static_cast<std::size_t>(j)]) done.push_back(j);
  if (done.empty()) return;
  if (free_slots.size() < done.size()) widen_ready(res);  // not overlapped: only with a small stage
  const auto count = std::min(done.size(), free_slots.size());
  const std::size_t first = in_flight.size();
  for (std::size_t d = 0; d < count; ++d) {
    const int j = done[d];
    h_jobs[d] = make_int2(j, free_slots.back());
    in_flight.push_back({free_slots.back(), source_of[static_cast<std::size_t>(j)]});
    free_slots.pop_back();
    pending[static_cast<std::size_t>(j)] = 0;
  }
  PERRON_CUDA_CHECK(cudaMemcpyAsync(jobs.data(), h_jobs.data(), count * sizeof(int2), cudaMemcpyHostToDevice,
                                    stream.get()));
  const auto nn = static_cast<std::size_t>(n);
  extract_columns<T><<<cuda::grid_for(nn * count, threads, 4 * max_blocks), threads, 0, stream.get()>>>(
      r.data(), n, k, jobs.data(), static_cast<int>(count), stage.data());
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank extract_columns");
  for (std::size_t d = first; d < in_flight.size(); ++d) {
    const std::size_t off = static_cast<std::size_t>(in_flight[d].slot) * nn;
    PERRON_CUDA_CHECK(cudaMemcpyAsync(h_stage.data() + off, stage.data() + off, nn * sizeof(T),
                                      cudaMemcpyDeviceToHost, stream.get()));
  }
}

// Drops the copied-out columns when that narrows the padded block: the live
// (and frozen but not yet copied) columns are gathered, in order, into y and
// the buffers swapped; their state follows. True when it compacted.
template <class T>
bool pagerank_batched_gpu<T>::impl::compact() {
  std::vector<int> keep;
  for (int j = 0; j < k; ++j)
    if (pending[static_cast<std::size_t>(j)]) keep.push_back(j);
  const int kn = static_cast<int>(keep.size()), kp = pad(kn);
  if (kn == 0 || kp >= k) return false;
  std::copy(keep.begin(), keep.end(), h_keep.data());
  PERRON_CUDA_CHECK(cudaMemcpyAsync(this->keep.data(), h_keep.data(), keep.size() * sizeof(int),
                                    cudaMemcpyHostToDevice, stream.get()));
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(kp);
  gather_block<T><<<cuda::grid_for(count, threads, 4 * max_blocks), threads, 0, stream.get()>>>(
      r.data(), y.data(), n, k, kp, kn, this->keep.data());
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank gather_block");
  gather_columns<<<1, threads, 0, stream.get()>>>(cols(), kp, kn, this->keep.data());
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank gather_columns");
  std::swap(r, y);
  std::vector<std::size_t> next_source(static_cast<std::size_t>(kp), 0);
  std::vector<std::uint8_t> next_pending(static_cast<std::size_t>(kp), 0);
  for (int j = 0; j < kn; ++j) {
    next_source[static_cast<std::size_t>(j)] = source_of[static_cast<std::size_t>(keep[j])];
    next_pending[static_cast<std::size_t>(j)] = 1;
  }
  source_of = std::move(next_source);
  pending = std::move(next_pending);
  k = kp;
  return true;
}

// Sources [begin, end) as one block: start it, then batches of compact_every
// steps, each followed by one wait for the frozen flags, until every column
// is copied out; then the per-source outcome.
template <class T>
void pagerank_batched_gpu<T>::impl::run_block(const std::vector<source_set>& sources, std::size_t begin,
                                              std::size_t end, const pagerank_batched_options& opt,
                                              pagerank_batched_result& res) {
  const int live = static_cast<int>(end - begin);
  k = pad(live);
  source_of.assign(static_cast<std::size_t>(k), 0);
  pending.assign(static_cast<std::size_t>(k), 0);
  for (int j = 0; j < live; ++j) {
    source_of[static_cast<std::size_t>(j)] = begin + static_cast<std::size_t>(j);
    pending[static_cast<std::size_t>(j)] = 1;
  }
  const detail::teleport_list tl = detail::make_teleport_list(sources, begin, end);
  const int tv = static_cast<int>(tl.vertex.size());
  upload_async(vertex, tl.vertex, stream.get());
  upload_async(ptr, tl.ptr, stream.get());
  upload_async(slot, tl.slot, stream.get());
  upload_async(weight, tl.weight, stream.get());
  mark_teleport<<<cuda::grid_for(static_cast<std::size_t>(tv), threads, "teleport"), threads, 0,
                  stream.get()>>>(row_of.data(), vertex.data(), tv, 1);
  const T r0 = static_cast<T>(1.0 / static_cast<double>(n));
  // dangling_0 = sum over the dangling vertices of the stored start value, as a single solve takes it
  const double coef0 =
      opt.base.alpha * static_cast<double>(dangling_count) * double(r0) + (1.0 - opt.base.alpha);
  begin_columns<<<1, threads, 0, stream.get()>>>(cols(), outs(), k, live, coef0);
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(k);
  fill_block<T><<<cuda::grid_for(count, threads, 4 * max_blocks), threads, 0, stream.get()>>>(r.data(), n, k,
                                                                                              live, r0);
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank start");

  int steps = 0, since = 0;  // steps queued; steps since the last compaction
  const auto queue_batch = [&] {
    // Past max_iter every column is frozen: no step beyond it is queued.
    const int batch = std::min({opt.compact_every, max_check_steps, opt.base.max_iter - steps});
    for (int s = 0; s < batch; ++s) step(opt);
    steps += batch;
    since += batch;
    res.column_steps += static_cast<std::uint64_t>(batch) * static_cast<std::uint64_t>(k);
    PERRON_CUDA_CHECK(cudaMemcpyAsync(h_frozen.data(), frozen.data(),
                                      static_cast<std::size_t>(k) * sizeof(int), cudaMemcpyDeviceToHost,
                                      stream.get()));
    ev_check.record(stream.get());
  };
  queue_batch();
  for (;;) {
    widen_ready(res);  // overlaps the batch on the device
    wait_check();
    extract(res);
    if (std::none_of(pending.begin(), pending.end(), [](std::uint8_t p) { return p != 0; })) break;
    if (since >= opt.compact_every && compact()) {
      ++res.compactions;
      since = 0;
    }
    queue_batch();
  }
  mark_teleport<<<cuda::grid_for(static_cast<std::size_t>(tv), threads, "teleport"), threads, 0,
                  stream.get()>>>(row_of.data(), vertex.data(), tv, 0);
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank mark_teleport");
  const auto w = static_cast<std::size_t>(live);
  PERRON_CUDA_CHECK(cudaMemcpyAsync(h_iterations.data(), iterations.data(), w * sizeof(int),
                                    cudaMemcpyDeviceToHost, stream.get()));
  PERRON_CUDA_CHECK(cudaMemcpyAsync(h_converged.data(), converged.data(), w * sizeof(int),
                                    cudaMemcpyDeviceToHost, stream.get()));
  PERRON_CUDA_CHECK(cudaMemcpyAsync(h_residual.data(), residual.data(), w * sizeof(double),
                                    cudaMemcpyDeviceToHost, stream.get()));
  ev_check.record(stream.get());
  wait_check();
  widen_ready(res);
  for (std::size_t j = 0; j < w; ++j) {
    res.iterations[begin + j] = h_iterations[j];
    res.converged[begin + j] = static_cast<std::uint8_t>(h_converged[j] != 0);
    res.residual[begin + j] = h_residual[j];
  }
}

template <class T>
pagerank_batched_gpu<T>::pagerank_batched_gpu(const pagerank_graph<T>& g, int width) {
  if (!cuda::available()) throw cuda_error("no usable CUDA device");
  if (g.vertices() <= 0) throw invalid_argument("the graph is empty (0 vertices)");
  if (width < 1 || width > 256)
    throw invalid_argument("--block-columns must be in [1, 256], got " + std::to_string(width));
  if (g.dangling.size() != static_cast<std::size_t>(g.vertices()))
    throw dimension_error("pagerank_graph: dangling mask of " + std::to_string(g.dangling.size()) +
                          " entries for " + std::to_string(g.vertices()) + " vertices");
  impl_ = std::unique_ptr<impl, void (*)(impl*)>(new impl(g, width), [](impl* p) { delete p; });
}

template <class T>
int pagerank_batched_gpu<T>::width() const {
  return impl_->width;
}

template <class T>
pagerank_batched_result pagerank_batched_gpu<T>::solve(const std::vector<source_set>& sources,
                                                       const pagerank_batched_options& opt) {
  impl& m = *impl_;
  opt.validate(m.n, sources);
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t s = sources.size(), nn = static_cast<std::size_t>(m.n);
  pagerank_batched_result res;
  res.on_gpu = true;
  res.vertices = m.n;
  res.sources = s;
  m.ev_start.record(m.stream.get());
  // Reserved and advised, never zeroed (rank_block), and mapped by a second
  // thread while the device works: first touch costs about 0.25-0.45 ms per MB
  // on the GPU hosts (docs/PERFORMANCE.md), ~200 ms for the 537 MB of 64
  // columns of rmat:20 if the widening paid it; mapped this way on 8 threads it
  // took 17-25 ms there, hidden behind the device.
  res.rank.reserve(s * nn);
  advise_huge_pages(res.rank.data(), s * nn * sizeof(double));
  res.rank.resize(s * nn);
  std::thread mapper([&res, bytes = s * nn * sizeof(double)] {
    prefault({byte_span{res.rank.data(), bytes}}, std::max(1u, std::thread::hardware_concurrency() / 2));
  });
  struct joiner {
    std::thread& t;
    ~joiner() {
      if (t.joinable()) t.join();
    }
  } join_mapper{mapper};
  res.iterations.assign(s, 0);
  res.residual.assign(s, std::numeric_limits<double>::infinity());
  res.converged.assign(s, 0);
  const auto w =
      static_cast<std::size_t>(opt.block_columns > 0 ? std::min(m.width, opt.block_columns) : m.width);
  for (std::size_t b = 0; b < s; b += w) m.run_block(sources, b, std::min(s, b + w), opt, res);
  mapper.join();
  m.ev_stop.record(m.stream.get());
  m.ev_stop.synchronize();
  res.device_seconds = m.ev_stop.ms_since(m.ev_start) * 1e-3;
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

int pagerank_batched_gpu_width(index_t n, bool double_precision) {
  int device = 0, l2 = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  // R and Y, n x k each, in two thirds of L2: the SpMM's gathers of R then hit
  // L2, and the update finds Y there.
  const double per_column = 2.0 * static_cast<double>(n) * (double_precision ? 8.0 : 4.0);
  int k = 8;
  while (k < 256 && (2 * k) * per_column <= 2.0 / 3.0 * l2) k *= 2;
  return k;
}

template <class T>
pagerank_batched_result pagerank_batched_cuda(const pagerank_graph<T>& g,
                                              const std::vector<source_set>& sources,
                                              const pagerank_batched_options& opt) {
  opt.validate(g.vertices(), sources);
  const int want =
      opt.block_columns > 0 ? opt.block_columns : pagerank_batched_gpu_width(g.vertices(), sizeof(T) == 8);
  const int width = static_cast<int>(std::min<std::size_t>(sources.size(), static_cast<std::size_t>(want)));
  pagerank_batched_gpu<T> solver(g, width);
  return solver.solve(sources, opt);
}

template class pagerank_batched_gpu<float>;
template class pagerank_batched_gpu<double>;
template pagerank_batched_result pagerank_batched_cuda<float>(const pagerank_graph<float>&,
                                                              const std::vector<source_set>&,
                                                              const pagerank_batched_options&);
template pagerank_batched_result pagerank_batched_cuda<double>(const pagerank_graph<double>&,
                                                               const std::vector<source_set>&,
                                                               const pagerank_batched_options&);

}  // namespace perron
