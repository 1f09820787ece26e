// The persistent pull (pagerank_persistent.cuh gives the loop and why).
#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cub/block/block_scan.cuh>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "solvers/cuda/pagerank_fused_slices.cuh"
#include "solvers/cuda/pagerank_persistent.cuh"

namespace perron::pagerank_gpu {
namespace {

using cuda::detail::fixed60;

// Steps timed per hub candidate: enough that the launch's fixed cost is small
// beside them, few enough that the trial stays a small part of a setup.
constexpr int trial_steps = 20;

// What a launch of either persistent kernel keeps for its steps, from the
// state the setup (or the previous launch) wrote: the solve's parameters and
// the last step it may take, at most `batch` after st->iteration (the
// check_every loop's batch).
struct launch_params {
  double alpha, tol;
  bool personalized;
  double v_uniform;  // v_i = 1 / n unless personalized
  int last;
  __device__ __forceinline__ launch_params(const pagerank_state* st, index_t n, int batch)
      : alpha(st->alpha),
        tol(st->tol),
        personalized(st->personalized != 0),
        v_uniform(1.0 / static_cast<double>(n)),
        last(st->max_iter - st->iteration > batch ? st->iteration + batch : st->max_iter) {}
};

template <class T>
__global__ void __launch_bounds__(step_threads, 1)
    persistent_solve(fused_args<T> a, pagerank_state* st, pagerank_progress* progress, fixed60* acc,
                     int batch) {
  if (st->done) return;  // written by the previous launch: uniform across this grid
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const launch_params p(st, a.n, batch);
  double dangling = st->dangling;  // r_k's, written by the previous launch (or the setup)
  int k = st->iteration;

  extern __shared__ __align__(16) unsigned char smem[];
  T* hub = reinterpret_cast<T*>(smem);
  __shared__ unsigned next_slice;  // this block's next slice in this step
  for (;;) {
    const T* x = (k & 1) ? a.x1 : a.x0;
    T* xn = (k & 1) ? a.x0 : a.x1;
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
    const double residual = cuda::detail::from_fixed60(__ldcg(slot));
    dangling = cuda::detail::from_fixed60(__ldcg(slot + 1));
    ++k;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      // Slot (k + 1) mod 3 held step k - 2's sums, read before this barrier.
      acc[2 * ((k + 1) % 3)] = 0;
      acc[2 * ((k + 1) % 3) + 1] = 0;
      close_step(st, make_double2(residual, dangling), progress, 0, 0);
    }
    // The same bits in every block: every block leaves after the same step.
    if (residual < p.tol || k >= p.last) break;
  }
}

// ---- resident: the block's slices in shared memory -------------------------------

// What a block keeps in shared memory for the whole solve (resident mode), in
// this order: the offsets of its nb slices' links (nb + 1 unsigned), the rows
// just outside each slice (2 nb, slice_outside()'s), each slice's virtual
// rows' rows (32 nb) and lengths (32 nb unsigned short), then the links
// (`entries` column indices, each slice column-major as in global memory).
struct resident_layout {
  unsigned* off;
  index_t* out;
  index_t* vrow;
  unsigned short* vlen;
  index_t* col;
  __host__ __device__ static std::size_t bytes(int nb, std::size_t entries) {
    return 4 * (static_cast<std::size_t>(nb) + 1) + 8 * static_cast<std::size_t>(nb) +
           128 * static_cast<std::size_t>(nb) + 64 * static_cast<std::size_t>(nb) + 4 * entries;
  }
  __device__ resident_layout(unsigned char* smem, int nb) {
    off = reinterpret_cast<unsigned*>(smem);
    out = reinterpret_cast<index_t*>(off + nb + 1);
    vrow = out + 2 * nb;
    vlen = reinterpret_cast<unsigned short*>(vrow + 32 * nb);
    col = reinterpret_cast<index_t*>(vlen + 32 * nb);  // 64 nb bytes of lengths: 4-byte aligned
  }
};
static_assert(sizeof(index_t) == 4, "resident_layout counts 4-byte indices");

// Block b's slices are q = b + i grid, i < nb (as in the streamed kernel);
// warp w takes i = w, w + 32, ... every step (no shared counter: the same
// slices every step, so their links can stay in shared memory).
__device__ __forceinline__ int block_slices(index_t slices) {
  const auto b = static_cast<index_t>(blockIdx.x), g = static_cast<index_t>(gridDim.x);
  return b < slices ? static_cast<int>((slices - 1 - b) / g + 1) : 0;
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
  if (R < a.n) rd = load_row<true>(a, x, R, personalized, v_uniform);
  const index_t* cp = L.col + L.off[i] + lane;
  double acc = 0;  // finish_row (pagerank_fused_slices.cuh) says why double
  for (unsigned j = 0; j < len; j += unroll) {
    index_t cj[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      if (j + u < len) cj[u] = cp[(j + u) * 32];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      if (j + u < len) acc += static_cast<double>(load_x<true>(x + cj[u]));  // pull_slices' order
  }
  return acc;
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
template <class T>
__global__ void __launch_bounds__(step_threads, 1)
    persistent_resident(fused_args<T> a, pagerank_state* st, pagerank_progress* progress, fixed60* acc,
                        int batch) {
  if (st->done) return;  // written by the previous launch: uniform across this grid
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const launch_params p(st, a.n, batch);
  double dangling = st->dangling;
  int k = st->iteration;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;

  // Load the block's slices (once per launch).
  extern __shared__ __align__(16) unsigned char smem[];
  const int nb = block_slices(a.slices);  // <= step_threads (checked on the host)
  const resident_layout L(smem, nb);
  const auto g = static_cast<index_t>(gridDim.x);
  {
    using scan = cub::BlockScan<unsigned, step_threads>;
    __shared__ typename scan::TempStorage temp;
    unsigned entries = 0;
    if (static_cast<int>(threadIdx.x) < nb) {
      const index_t q = static_cast<index_t>(blockIdx.x) + static_cast<index_t>(threadIdx.x) * g;
      entries = __ldg(a.slice_start + q + 1) - __ldg(a.slice_start + q);
    }
    unsigned first = 0, total = 0;
    scan(temp).ExclusiveSum(entries, first, total);
    if (static_cast<int>(threadIdx.x) < nb) L.off[threadIdx.x] = first;
    if (threadIdx.x == 0) L.off[nb] = total;
    __syncthreads();
  }
  for (int i = warp; i < nb; i += step_warps) {
    const index_t q = static_cast<index_t>(blockIdx.x) + static_cast<index_t>(i) * g;
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

  for (bool first = true;; first = false) {
    const T* x = (k & 1) ? a.x1 : a.x0;
    T* xn = (k & 1) ? a.x0 : a.x1;
    // Step k - 1's sums (slot (k - 1) mod 3), asked for now, used below.
    const fixed60* prev = acc + 2 * ((k + 2) % 3);
    fixed60 prev_l1 = 0, prev_dangling = 0;
    if (!first) {
      prev_l1 = __ldcg(prev);
      prev_dangling = __ldcg(prev + 1);
    }
    // The warp's first slice's gathers (reads only) before the decision.
    int i = warp;
    index_t R = a.n;
    row_data<T> rd{};
    double sum = 0;
    if (i < nb) sum = resident_gather(a, L, i, x, p.personalized, p.v_uniform, R, rd);
    if (!first) {
      const double residual = cuda::detail::from_fixed60(prev_l1);
      dangling = cuda::detail::from_fixed60(prev_dangling);
      // One thread publishes step k - 1 (close_step counts it) and clears
      // slot (k + 1) mod 3: last read in step k - 1, before the barrier that
      // ended it; next added to in step k + 1, after this step's barrier.
      // The block's last warp: on most graphs it has the fewest slices.
      if (blockIdx.x == 0 && threadIdx.x == step_threads - 32) {
        acc[2 * ((k + 1) % 3)] = 0;
        acc[2 * ((k + 1) % 3) + 1] = 0;
        close_step(st, make_double2(residual, dangling), progress, 0, 0);
      }
      // The same bits in every thread of the grid: all leave before step k.
      if (residual < p.tol || k >= p.last) break;
    }
    // r_{k+1} = alpha P^T r_k + c_k v, c_k = alpha dangling_k + 1 - alpha.
    const double c = p.alpha * dangling + (1.0 - p.alpha);
    step_sums s;
    for (; i < nb; i += step_warps) {
      if (i != warp) sum = resident_gather(a, L, i, x, p.personalized, p.v_uniform, R, rd);
      const index_t q = static_cast<index_t>(blockIdx.x) + static_cast<index_t>(i) * g;
      const index_t out = lane == 0 ? L.out[2 * i] : lane == 31 ? L.out[2 * i + 1] : R;
      finish_slice<true>(a, q, R, out, sum, rd, x, xn, p.alpha, c, p.personalized, p.v_uniform, s);
    }
    fixed60* slot = acc + 2 * (k % 3);
    if (block_sums(s)) {
      atomicAdd(slot, s.l1);
      atomicAdd(slot + 1, s.dangling);
    }
    grid.sync();  // every x_{k+1}(i) and every block's sums written and visible
    ++k;
  }
}

}  // namespace

template <class T>
persistent_pull<T>::persistent_pull(fused_pull<T>& fused, cudaStream_t stream)
    : fused_(fused), stream_(stream), acc_(6) {
  int device = 0, cooperative = 0, optin = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (!cooperative) throw cuda_error("the persistent pull needs a device with cooperative launch");
  cudaFuncAttributes fa{};
  PERRON_CUDA_CHECK(cudaFuncGetAttributes(&fa, persistent_solve<T>));
  const long long room = (static_cast<long long>(optin) - static_cast<long long>(fa.sharedSizeBytes)) /
                         static_cast<long long>(sizeof(T));
  max_hub_ = static_cast<int>(std::min<long long>(std::max<long long>(0, room), fused.max_hub()) / 32 * 32);
  const auto hub_bytes = static_cast<std::size_t>(max_hub_) * sizeof(T);
  PERRON_CUDA_CHECK(cudaFuncSetAttribute(persistent_solve<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(hub_bytes)));
  // Every block must be resident at once (a cooperative launch refuses more):
  // the blocks that fit per SM with the largest hub, on every SM.
  int per_sm = 0;
  PERRON_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_solve<T>, step_threads, hub_bytes));
  if (per_sm < 1)
    throw cuda_error("the persistent pull: a block of " + std::to_string(step_threads) + " threads and " +
                     std::to_string(hub_bytes) + " bytes of shared memory does not fit on an SM");
  streamed_grid_ = per_sm * sms_;
  grid_ = streamed_grid_;
  // Resident mode: the largest shared memory a block of it may take.
  PERRON_CUDA_CHECK(cudaFuncGetAttributes(&fa, persistent_resident<T>));
  max_resident_bytes_ = static_cast<std::size_t>(
      std::max<long long>(0, static_cast<long long>(optin) - static_cast<long long>(fa.sharedSizeBytes)));
  PERRON_CUDA_CHECK(cudaFuncSetAttribute(persistent_resident<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(max_resident_bytes_)));
  {
    const fused_args<T> a = fused_.args();
    slice_start_.resize(static_cast<std::size_t>(a.slices) + 1);
    PERRON_CUDA_CHECK(cudaMemcpyAsync(slice_start_.data(), a.slice_start,
                                      slice_start_.size() * sizeof(unsigned), cudaMemcpyDeviceToHost,
                                      stream_));
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  choose_mode();
}

template <class T>
std::size_t persistent_pull<T>::resident_bytes(int grid) const {
  const auto slices = static_cast<long long>(slice_start_.size()) - 1;
  std::size_t most = 0;
  for (long long b = 0; b < std::min<long long>(grid, slices); ++b) {
    const long long nb = (slices - 1 - b) / grid + 1;
    if (nb > step_threads) return 0;  // one slice per thread in the block's offset scan
    std::size_t entries = 0;
    for (long long q = b; q < slices; q += grid) entries += slice_start_[q + 1] - slice_start_[q];
    most = std::max(most, resident_layout::bytes(static_cast<int>(nb), entries));
  }
  if (most > max_resident_bytes_) return 0;
  int per_sm = 0;
  PERRON_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_resident<T>, step_threads, most));
  if (per_sm < 1 || static_cast<long long>(per_sm) * sms_ < grid) return 0;
  return std::max<std::size_t>(most, 16);
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
void persistent_pull<T>::launch_solve(pagerank_state* st, pagerank_progress* progress, int batch) {
  fused_args<T> a = fused_.args();
  a.hub = resident_ ? 0 : hub_;
  fixed60* acc = acc_.data();
  PERRON_CUDA_CHECK(cudaMemsetAsync(acc, 0, acc_.bytes(), stream_));
  void* params[] = {&a, &st, &progress, &acc, &batch};
  const void* kernel = resident_ ? reinterpret_cast<const void*>(persistent_resident<T>)
                                 : reinterpret_cast<const void*>(persistent_solve<T>);
  const std::size_t smem = resident_ ? smem_ : static_cast<std::size_t>(hub_) * sizeof(T);
  PERRON_CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, dim3(static_cast<unsigned>(grid_)),
                                                dim3(step_threads), params, smem, stream_));
  PERRON_CUDA_CHECK_LAUNCH("pagerank persistent_solve");
}

// Solves of trial_steps steps (tol 0: none stops early) from the uniform
// start with each candidate: median of 3 after one untimed; the fastest
// stays. Candidates: resident mode (the block's slices in shared memory) with
// one slice per warp where the graph allows (fewer blocks: a cheaper grid
// barrier) and with a block on every SM, where the slices fit; streamed mode
// with each hub size (a hub is copied from L2 into every SM at every step, so
// on a small graph it can cost more than the gathers it saves). Every
// candidate sums every row in the same order, so the choice changes the
// time, never the bits. PERRON_PERSISTENT=resident|streamed keeps one mode
// (tests and experiments); PERRON_FUSED_HUB fixes the streamed hub.
template <class T>
void persistent_pull<T>::choose_mode() {
  struct candidate {
    bool resident;
    int grid, hub;
    std::size_t smem;
  };
  const char* env = std::getenv("PERRON_PERSISTENT");
  const std::string only = env ? env : "";
  std::vector<candidate> candidates;
  std::string forced;
  const auto slices = static_cast<long long>(slice_start_.size()) - 1;
  if (only != "streamed") {
    const int fewest = static_cast<int>(std::clamp<long long>((slices + step_warps - 1) / step_warps, 1,
                                                              static_cast<long long>(streamed_grid_)));
    for (int g : {fewest, std::min(streamed_grid_, sms_)}) {
      const std::size_t bytes = resident_bytes(g);
      if (bytes > 0 && (candidates.empty() || candidates.back().grid != g))
        candidates.push_back({true, g, 0, bytes});
    }
  }
  if (only != "resident" || candidates.empty()) {
    int hub = 0;
    if (forced_hub(max_hub_, hub, forced)) {
      candidates.push_back({false, streamed_grid_, hub, 0});
    } else {
      std::vector<int> hubs{0, fused_.hub() / 32 * 32, max_hub_ / 4 / 32 * 32, max_hub_};
      for (int& c : hubs) c = std::min(c, max_hub_);
      std::sort(hubs.begin(), hubs.end());
      hubs.erase(std::unique(hubs.begin(), hubs.end()), hubs.end());
      for (int h : hubs) candidates.push_back({false, streamed_grid_, h, 0});
    }
  }
  const auto take = [&](const candidate& c) {
    resident_ = c.resident;
    grid_ = c.grid;
    hub_ = c.hub;
    smem_ = c.smem;
  };
  trial_ = forced;
  if (candidates.size() == 1) {
    take(candidates.front());
    if (trial_.empty()) trial_ = "one candidate";
    return;
  }
  const pagerank_state h = trial_state(trial_steps);
  cuda::device_buffer<pagerank_state> st(1);
  cuda::event e0, e1;
  float best = 0;
  std::size_t best_at = 0;
  for (std::size_t at = 0; at < candidates.size(); ++at) {
    const candidate& c = candidates[at];
    take(c);
    std::vector<float> ms;
    for (int i = 0; i < 4; ++i) {
      PERRON_CUDA_CHECK(cudaMemcpyAsync(st.data(), &h, sizeof h, cudaMemcpyHostToDevice, stream_));
      fused_.launch_init(nullptr, 1, st.data());
      e0.record(stream_);
      launch_solve(st.data(), nullptr, INT_MAX);
      e1.record(stream_);
      e1.synchronize();
      if (i >= 1) ms.push_back(e1.ms_since(e0));
    }
    std::sort(ms.begin(), ms.end());
    const float med = ms[ms.size() / 2];
    char buf[96];
    if (c.resident)
      std::snprintf(buf, sizeof buf, "%sresident %d blocks: %.2f us", trial_.empty() ? "" : ", ", c.grid,
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
}

template class persistent_pull<float>;
template class persistent_pull<double>;

}  // namespace perron::pagerank_gpu
