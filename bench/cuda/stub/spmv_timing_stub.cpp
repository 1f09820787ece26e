// CPU-only builds: the benchmarks' GPU timing exists but throws a clear error.
#include "bench/spmv_timing.hpp"
#include "core/device.hpp"
#include "core/error.hpp"

namespace perron {
template <class T>
gpu_timing time_spmv(const spmv_plan<T>&, T, const T*, T, T*, int, int, bool) {
  cuda::throw_no_cuda();
}
template gpu_timing time_spmv(const spmv_plan<float>&, float, const float*, float, float*, int, int, bool);
template gpu_timing time_spmv(const spmv_plan<double>&, double, const double*, double, double*, int, int,
                              bool);

template <class T>
gpu_timing time_gather_floor(const csr_matrix<T>&, const T*, int, int, bool, bool, bool) {
  cuda::throw_no_cuda();
}
template gpu_timing time_gather_floor(const csr_matrix<float>&, const float*, int, int, bool, bool, bool);
template gpu_timing time_gather_floor(const csr_matrix<double>&, const double*, int, int, bool, bool, bool);

double copy_bandwidth_gbs(std::size_t, int) { cuda::throw_no_cuda(); }

}  // namespace perron
