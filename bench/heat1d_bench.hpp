// `heat1d --bench`: times the GPU steps of a heat1d time stepper with CUDA
// events and sets them against the device's copy bandwidth measured in the
// same process. Beside the solver library, not in it: it reaches the GPU
// backend through time_stepper::probe() (solvers/heat1d.hpp).
// Implemented in bench/cuda/heat1d_bench.cu (stub: "built without CUDA").
#pragma once

#include <utility>
#include <vector>

#include "solvers/heat1d.hpp"

namespace perron::bench {

struct heat_bench_report {
  double copy_bandwidth_gbs = 0;  // device-to-device copy, read + write bytes over time
  double step_ms_median = 0;
  double step_ms_min = 0;
  int steps_timed = 0;
  double iterations_per_step = 0;
  double host_syncs_per_step = 0;
  double bytes_per_step = 0;   // explicit / direct: the step's own minimum traffic
  double cg_iteration_ms = 0;  // cg: one iteration, from a differenced blind run
  double bytes_per_cg_iteration = 0;
  double operator_bytes = 0;  // one application of A (matrix + x + y, or the stencil)
  // Explicit stencil: ms per step with k steps per pass (temporal blocking), k = 1, 2, 4, .., 32.
  std::vector<std::pair<int, double>> blocked_ms_per_step;
  // --solver direct: the same steps through cuSPARSE gtsv2_nopivot (median ms).
  double library_direct_step_ms = 0;
};

// Times `reps` steps after `warmup` untimed ones, one event pair per step (the
// host's waits inside CG are part of the step); the stepper advances by
// warmup + reps steps (twice that for --solver direct: the gtsv2 baseline
// steps too). Throws invalid_argument if a step does not converge,
// or on the CPU path.
template <class T>
heat_bench_report time_heat_steps(heat::time_stepper<T>& ts, int warmup, int reps);

}  // namespace perron::bench
