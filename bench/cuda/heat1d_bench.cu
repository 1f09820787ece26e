// `heat1d --bench` (bench/heat1d_bench.hpp): copy bandwidth, whole steps and
// one CG iteration, each timed with CUDA events on the stepper's stream.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench/heat1d_bench.hpp"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "core/stats.hpp"

namespace perron::bench {

namespace {

// Device copy bandwidth in this process: bytes read + written over the median time.
double copy_bandwidth_gbs(heat::device_probe& probe, cudaStream_t s, int warmup, int reps) {
  cuda::event_timer timer;
  std::vector<double> t;
  for (int i = 0; i < warmup + reps; ++i) {
    timer.start(s);
    probe.copy_state();
    timer.stop(s);
    const double ms = timer.ms();
    if (i >= warmup) t.push_back(ms);
  }
  return 2 * probe.traffic().vector_bytes / (median(t) * 1e-3) / 1e9;
}

// Whole steps, one event pair each (host waits inside CG are part of the step).
template <class T>
void time_steps(heat::time_stepper<T>& ts, cudaStream_t s, int warmup, int reps, heat_bench_report& r) {
  cuda::event_timer timer;
  std::vector<double> t;
  double iters = 0, syncs = 0;
  for (int i = 0; i < warmup + reps; ++i) {
    timer.start(s);
    const heat::step_report rep = ts.step(false);
    timer.stop(s);
    const double ms = timer.ms();
    if (!rep.converged)
      throw invalid_argument("--bench: the linear solver did not converge in step " + std::to_string(i + 1) +
                             " (residual " + std::to_string(rep.residual) +
                             "); use a smaller --dt, a larger --max-iter or --rtol");
    if (i >= warmup) {
      t.push_back(ms);
      iters += rep.iterations;
      syncs += rep.host_syncs;
    }
  }
  r.steps_timed = reps;
  r.step_ms_median = median(t);
  r.step_ms_min = t.empty() ? 0 : *std::min_element(t.begin(), t.end());
  r.iterations_per_step = reps ? iters / reps : 0;
  r.host_syncs_per_step = reps ? syncs / reps : 0;
}

// One CG iteration, from two blind runs of k1 and k2 iterations (no
// convergence test can stop them: tolerance 0) on this step's system:
// (t(k2) - t(k1)) / (k2 - k1) cancels the per-solve overhead. NaN when a run
// stopped early (no clean difference).
double cg_iteration_ms(heat::device_probe& probe, cudaStream_t s, int reps) {
  cuda::event_timer timer;
  bool valid = true;
  auto blind = [&](int k) {
    std::vector<double> t;
    for (int i = 0; i < 1 + std::max(3, reps / 10); ++i) {
      probe.reset_blind_cg();
      timer.start(s);
      const int done = probe.blind_cg(k);
      timer.stop(s);
      const double ms = timer.ms();
      if (done != k) valid = false;
      if (i > 0) t.push_back(ms);
    }
    return median(t);
  };
  const int k1 = 5, k2 = 45;
  probe.begin_blind_cg();
  const double ms = (blind(k2) - blind(k1)) / double(k2 - k1);
  probe.end_blind_cg();
  return valid ? ms : std::nan("");
}

// Explicit stencil: ms per step of the blocked passes, k steps per pass, each
// the median of runs of 64 steps after one untimed run.
std::vector<std::pair<int, double>> blocked_table(heat::device_probe& probe, cudaStream_t s, int reps) {
  std::vector<std::pair<int, double>> table;
  cuda::event_timer timer;
  const long steps = 64;
  probe.copy_state();  // every run starts from the state the timed steps left
  for (int k : {1, 2, 4, 8, 16, 32}) {
    std::vector<double> t;
    for (int i = 0; i < 1 + std::max(3, reps / 10); ++i) {
      probe.restore_state();
      timer.start(s);
      probe.advance_blocked(steps, k);
      timer.stop(s);
      const double ms = timer.ms();
      if (i > 0) t.push_back(ms / double(steps));
    }
    table.emplace_back(k, median(t));
  }
  probe.restore_state();
  return table;
}

}  // namespace

template <class T>
heat_bench_report time_heat_steps(heat::time_stepper<T>& ts, int warmup, int reps) {
  heat::device_probe& probe = ts.probe();
  const auto s = static_cast<cudaStream_t>(probe.stream());
  heat_bench_report r;
  r.copy_bandwidth_gbs = copy_bandwidth_gbs(probe, s, warmup, reps);
  time_steps(ts, s, warmup, reps, r);
  // Traffic per step, n values of s bytes, "op" one operator application:
  //   explicit      u' = B u + c                                   op(B)
  //   direct        x = B u + c; gtsv2 reads dl, d, du, b, writes x  op(B) + 5 n s
  //   cg iteration  A p, then ~10 n-vector passes                   op(A) + 10 n s
  const heat::step_traffic tr = probe.traffic();
  const heat::step_options& o = ts.options();
  r.operator_bytes = o.scheme == heat::method::explicit_euler ? tr.rhs_bytes : tr.lhs_bytes;
  if (o.scheme == heat::method::explicit_euler) {
    r.bytes_per_step = tr.rhs_bytes;
  } else if (o.solver == heat::step_solver::direct) {
    r.operator_bytes = 5 * tr.vector_bytes;
    r.bytes_per_step = tr.rhs_bytes + 5 * tr.vector_bytes;
  }
  if (probe.can_block()) r.blocked_ms_per_step = blocked_table(probe, s, reps);
  if (probe.has_direct()) {  // the same steps through gtsv2_nopivot, in this process
    heat_bench_report library;
    probe.use_library_direct(true);
    time_steps(ts, s, warmup, reps, library);
    probe.use_library_direct(false);
    r.library_direct_step_ms = library.step_ms_median;
  }
  if (probe.has_cg()) {
    r.bytes_per_cg_iteration = tr.lhs_bytes + 10 * tr.vector_bytes;
    r.cg_iteration_ms = cg_iteration_ms(probe, s, reps);
  }
  return r;
}

template heat_bench_report time_heat_steps<float>(heat::time_stepper<float>&, int, int);
template heat_bench_report time_heat_steps<double>(heat::time_stepper<double>&, int, int);

}  // namespace perron::bench
