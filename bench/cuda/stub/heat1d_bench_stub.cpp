// CPU-only builds: the heat1d GPU benchmark exists but refuses to run.
#include "bench/heat1d_bench.hpp"
#include "core/error.hpp"

namespace perron::bench {

template <class T>
heat_bench_report time_heat_steps(heat::time_stepper<T>&, int, int) {
  throw cuda_error(
      "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): the GPU benchmark is unavailable");
}

template heat_bench_report time_heat_steps<float>(heat::time_stepper<float>&, int, int);
template heat_bench_report time_heat_steps<double>(heat::time_stepper<double>&, int, int);

}  // namespace perron::bench
