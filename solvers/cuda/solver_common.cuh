// Shared by the GPU iterative solvers (cg.cu, jacobi.cu): the status codes the
// kernels keep in device memory, pinned host mirrors for reading them, and the
// host's check schedule.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "core/cuda/check.cuh"
#include "solvers/cg.hpp"
#include "solvers/linear_solver.hpp"

namespace perron::cuda::detail {

// Solver status as the kernels record it (device memory).
enum device_status : int {
  st_running = 0,
  st_converged = 1,             // true residual b - A x at or below the threshold
  st_converged_recurrence = 2,  // CG's recurrence says so; b - A x is checked next
  st_max_iterations = 3,
  st_breakdown = 4,
  st_diverged = 5,
};

inline solve_status to_status(int s) {
  switch (s) {
    case st_converged:
      return solve_status::converged;
    case st_breakdown:
      return solve_status::breakdown;
    case st_diverged:
      return solve_status::diverged;
    default:
      return solve_status::max_iterations;
  }
}

// Threshold on (r, r): max(rel_tol ||b||, abs_tol)^2, as stop_criterion::threshold.
__device__ inline double threshold_squared(double bb, double rel_tol, double abs_tol) {
  const double rel = rel_tol * sqrt(bb);
  const double t = rel > abs_tol ? rel : abs_tol;
  return t * t;
}

// Page-locked host copy of a device struct: read back with cudaMemcpyAsync and
// one stream synchronization (the only host waits of a solve).
template <class S>
class pinned {
 public:
  pinned() { PERRON_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), sizeof(S))); }
  ~pinned() {
    if (p_) cudaFreeHost(p_);
  }
  pinned(const pinned&) = delete;
  pinned& operator=(const pinned&) = delete;
  S* get() const { return p_; }
  S* operator->() const { return p_; }

  // Copies d_src into this mirror after the work queued on stream; waits.
  void read(const S* d_src, cudaStream_t stream) {
    PERRON_CUDA_CHECK(cudaMemcpyAsync(p_, d_src, sizeof(S), cudaMemcpyDeviceToHost, stream));
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

 private:
  S* p_ = nullptr;
};

// Iterations to enqueue before the next look at the device flag. checks: looks
// taken so far in this solve; done: iterations enqueued so far; previous: the
// last solve's count (-1: none yet). Only the first look may come after zero
// iterations (a warm start that already satisfies the criterion).
inline int next_batch(const check_schedule& s, int checks, int done, int previous, int remaining) {
  int k;
  if (checks == 0) {
    k = (s.predict && previous >= 0) ? previous : std::max(1, s.first);
  } else {
    k = std::clamp(done / 8, std::max(1, s.min_interval), std::max(1, s.max_interval));
  }
  return std::clamp(k, 0, std::max(0, remaining));
}

}  // namespace perron::cuda::detail
