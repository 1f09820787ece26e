// The GPU solver shell behind cuda::cg_solver and cuda::jacobi_solver
// (solvers/linear_solver.hpp's iterative_solver<T>::method): the device
// status codes, the device scalars every method keeps, the host's check
// schedule and the solve loop that owns them. A method (cg.cu, jacobi.cu)
// derives from shell<> and supplies its kernels:
//
//   static constexpr const char* label;  "cg", "jacobi": messages
//   static constexpr int lead;           launches past max_iterations the method
//                                        needs (Jacobi's last step only measures)
//   template <int W> void start(b, x, stop);         enqueued once per solve
//   template <int W> void enqueue(b, x, stop, k);    k more iterations, blind
//   template <int W> void finish(b, x, stop, res);   after the stop (host side)
//
// W is the pack width of the vector kernels (kernels/cuda/vector_ops.cuh).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "kernels/cuda/vector_ops.cuh"
#include "kernels/spmv.hpp"
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

// The stop rule on the device for rho = (r, r) against tol2 (the squared
// threshold): the status it gives, st_running when the iteration goes on.
// A rho that is not finite diverged whatever tol2 is (a b holding inf makes
// tol2 inf too, and inf <= inf was "converged" at x0), as run_shell decides
// on the CPU.
__device__ inline int stop_status(double rho, double tol2, int iterations, int max_iterations,
                                  int min_iterations) {
  if (!isfinite(rho)) return st_diverged;
  if (rho <= tol2 && (iterations >= min_iterations || rho == 0)) return st_converged;
  if (iterations >= max_iterations) return st_max_iterations;
  return st_running;
}

// The device scalars the shell reads; a method's state derives from it.
struct base_state {
  double rho;     // (r, r) of the residual the status rests on
  double bnorm2;  // (b, b)
  int iterations;
  int status;  // device_status
  int max_iterations;
  int min_iterations;  // stop_criterion's
};

template <class State>
__global__ void init_state_kernel(State* s, int max_iterations, int min_iterations) {
  *s = State{};
  s->max_iterations = max_iterations;
  s->min_iterations = min_iterations;
  s->status = st_running;
}

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

// Throws invalid_argument unless k runs on the GPU.
inline void require_gpu_kernel(spmv_kernel k, const char* label) {
  if (!on_gpu(k))
    throw invalid_argument(std::string(label) + " on the GPU needs a GPU SpMV kernel (got '" +
                           std::string(name(k)) + "')");
}

template <class T, class State, class Method>
class shell : public iterative_solver<T>::method {
 public:
  solve_result solve(const T* d_b, T* d_x, const stop_criterion& stop) override {
    if (this->n == 0) {
      solve_result res;
      res.converged = true;
      res.status = solve_status::converged;
      return res;
    }
    const bool packed = aligned16(d_b) && aligned16(d_x);  // own buffers always are
    solve_result res = packed ? run<pack_width<T>>(d_b, d_x, stop) : run<1>(d_b, d_x, stop);
    if constexpr (std::is_same_v<T, double>) {
      // The device's (b, b) and (r, r) overflow for ||b|| past about 1e154
      // ("diverged" at iteration 0, x untouched) and underflow below about
      // 1e-162 ("converged" at x0, a wrong answer); a float b cannot reach
      // either in double sums. There, and only there (a solve that stopped
      // at once or failed), the system is solved again from the x it left,
      // scaled by a power of two as detail::run_scaled does on the CPU
      // (solvers/iterative_shell.hpp gives the math): the usual solve pays
      // nothing, this one a norm and a copy of b.
      if ((res.iterations == 0 || !res.converged) && !(res.rhs_norm >= 0x1p-300 && res.rhs_norm < 0x1p301))
        return solve_scaled(d_b, d_x, stop, res);
    }
    return res;
  }

  // A method built from args, whose operator is an spmv_plan of a (kernel
  // already checked by require_gpu_kernel) ...
  template <class... Args>
  static std::unique_ptr<Method> on_plan(const csr_matrix<T>& a, spmv_kernel kernel, Args&&... args) {
    auto m = std::make_unique<Method>(std::forward<Args>(args)...);
    m->plan_ = std::make_unique<spmv_plan<T>>(a, kernel, m->stream);
    m->kernel = m->plan_->kernel();
    const spmv_plan<T>* plan = m->plan_.get();
    m->apply_ = [plan](const T* d_x, T* d_y) { plan->apply(T(1), d_x, T(0), d_y); };
    return m;
  }
  // ... or matrix-free.
  template <class... Args>
  static std::unique_ptr<Method> on_operator(device_operator<T> apply, Args&&... args) {
    if (!apply) throw invalid_argument(std::string(Method::label) + ": empty operator");
    auto m = std::make_unique<Method>(std::forward<Args>(args)...);
    m->apply_ = std::move(apply);
    return m;
  }

 protected:
  shell(index_t size, stream_t s) {
    this->n = size;
    this->stream = s;
  }

  // Blocks of the vector kernels (grid-stride, packs of W).
  int grid(int W) const { return grid_for(std::size_t(this->n) / W + 1); }
  // h_state = the device's state, after the work queued so far: one host sync.
  void read_state(solve_result& res) {
    h_state.read(state.data(), this->stream);
    ++res.host_syncs;
  }

  device_operator<T> apply_;
  device_buffer<State> state{1};
  reduction_scratch scratch;
  pinned_buffer<State> h_state{1};

 private:
  solve_result solve_scaled(const T* d_b, T* d_x, const stop_criterion& stop, const solve_result& first) {
    const std::size_t n = static_cast<std::size_t>(this->n);
    const double norm = cuda::nrm2_value(n, d_b, scratch, this->stream);  // scale-safe (Blue's sums)
    const int e = std::isfinite(norm) && norm > 0 ? std::ilogb(norm) : 0;
    if (e >= -300 && e <= 300) return first;  // b = 0, inf or NaN: the first outcome stands
    const int k = std::clamp(e, -1000, 1000);
    const double s = std::ldexp(1.0, -k), back = std::ldexp(1.0, k);
    device_buffer<T> bs(n);
    cuda::copy(n, d_b, bs.data(), this->stream);
    cuda::scale(n, T(s), bs.data(), this->stream);
    cuda::scale(n, T(s), d_x, this->stream);
    stop_criterion scaled = stop;
    scaled.abs_tol = stop.abs_tol * s;
    const bool packed = aligned16(d_x);
    solve_result res = packed ? run<pack_width<T>>(bs.data(), d_x, scaled) : run<1>(bs.data(), d_x, scaled);
    cuda::scale(n, T(back), d_x, this->stream);
    res.residual *= back;
    res.rhs_norm = norm;
    res.host_syncs += first.host_syncs + 1;
    return res;
  }

  template <int W>
  solve_result run(const T* d_b, T* d_x, const stop_criterion& stop) {
    Method& m = static_cast<Method&>(*this);
    solve_result res;
    init_state_kernel<State>
        <<<1, 1, 0, this->stream>>>(state.data(), stop.max_iterations, stop.min_iterations);
    PERRON_CUDA_CHECK_LAUNCH("init_state_kernel");
    m.template start<W>(d_b, d_x, stop);
    // Scheduling counts the device's iterations, not the host's launches:
    // launches after a stop (or before a restart from b - A x) do nothing.
    const int limit = stop.max_iterations + Method::lead;
    int done = 0;
    for (int checks = 0;; ++checks) {
      const int k =
          next_batch(this->schedule, checks, done, previous_iterations_ + Method::lead, limit - done);
      m.template enqueue<W>(d_b, d_x, stop, std::max(Method::lead, k));
      read_state(res);
      if (h_state->status != st_running) break;
      done = h_state->iterations;
      if (done >= limit)  // cannot happen: the device flags the limit itself
        throw cuda_error(std::string(Method::label) + ": device state still running after " +
                         std::to_string(done) + " iterations");
    }
    m.template finish<W>(d_b, d_x, stop, res);
    res.iterations = h_state->iterations;
    res.residual = std::sqrt(h_state->rho);
    res.rhs_norm = std::sqrt(h_state->bnorm2);
    res.status = to_status(h_state->status);
    res.converged = res.status == solve_status::converged;
    previous_iterations_ = res.iterations;
    return res;
  }

  std::unique_ptr<spmv_plan<T>> plan_;
  int previous_iterations_ = -1;
};

}  // namespace perron::cuda::detail
