// The persistent pull (pagerank_persistent.cuh gives the loop and why).
#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <cstdio>
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

template <class T>
__global__ void __launch_bounds__(step_threads, 1)
    persistent_solve(fused_args<T> a, pagerank_state* st, pagerank_progress* progress, fixed60* acc,
                     int batch) {
  if (st->done) return;  // written by the previous launch: uniform across this grid
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  // The solve's parameters and r_0's dangling mass, written before the launch.
  const double alpha = st->alpha, tol = st->tol;
  const int max_iter = st->max_iter;
  const bool personalized = st->personalized != 0;
  const double v_uniform = 1.0 / static_cast<double>(a.n);
  double dangling = st->dangling;
  int k = st->iteration;
  // At most `batch` steps in this launch (the check_every loop's batch).
  const int last = max_iter - k > batch ? k + batch : max_iter;

  extern __shared__ __align__(16) unsigned char smem[];
  T* hub = reinterpret_cast<T*>(smem);
  __shared__ unsigned next_slice;  // this block's next slice in this step
  for (;;) {
    const T* x = (k & 1) ? a.x1 : a.x0;
    T* xn = (k & 1) ? a.x0 : a.x1;
    // r_{k+1} = alpha P^T r_k + c_k v, c_k = alpha dangling_k + 1 - alpha.
    const double c = alpha * dangling + (1.0 - alpha);
    // The last step's readers of the hub and the counter are past the barrier.
    if (threadIdx.x == 0) next_slice = step_warps;
    load_hub<true>(hub, x, a.hub);
    __syncthreads();
    step_sums s;
    pull_slices<true>(a, x, xn, hub, next_slice, alpha, c, personalized, v_uniform, s);
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
    if (residual < tol || k >= last) break;
  }
}

}  // namespace

template <class T>
persistent_pull<T>::persistent_pull(fused_pull<T>& fused, cudaStream_t stream)
    : fused_(fused), stream_(stream), acc_(6) {
  int device = 0, sms = 1, cooperative = 0, optin = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
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
  grid_ = per_sm * sms;
  choose_hub();
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
  a.hub = hub_;
  fixed60* acc = acc_.data();
  PERRON_CUDA_CHECK(cudaMemsetAsync(acc, 0, acc_.bytes(), stream_));
  void* params[] = {&a, &st, &progress, &acc, &batch};
  PERRON_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(persistent_solve<T>),
                                                dim3(static_cast<unsigned>(grid_)), dim3(step_threads),
                                                params, static_cast<std::size_t>(hub_) * sizeof(T), stream_));
  PERRON_CUDA_CHECK_LAUNCH("pagerank persistent_solve");
}

// Solves of trial_steps steps (tol 0: none stops early) from the uniform
// start with each candidate hub size: median of 3 after one untimed; the
// fastest stays. A hub is copied from L2 into every SM at every step, so on a
// small graph it can cost more than the gathers it saves.
template <class T>
void persistent_pull<T>::choose_hub() {
  if (forced_hub(max_hub_, hub_, trial_)) return;
  const pagerank_state h = trial_state(trial_steps);
  cuda::device_buffer<pagerank_state> st(1);
  cuda::event e0, e1;
  std::vector<int> candidates{0, fused_.hub() / 32 * 32, max_hub_ / 4 / 32 * 32, max_hub_};
  for (int& c : candidates) c = std::min(c, max_hub_);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  float best = 0;
  int best_hub = 0;
  for (int c : candidates) {
    hub_ = c;
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
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%d: %.2f us", trial_.empty() ? "" : ", ", c, 1e3 * med / trial_steps);
    trial_ += buf;
    if (c == candidates.front() || med < best) {
      best = med;
      best_hub = c;
    }
  }
  hub_ = best_hub;
}

template class persistent_pull<float>;
template class persistent_pull<double>;

}  // namespace perron::pagerank_gpu
