// CPU-only builds: the device vector operations exist but throw.
#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/vector_ops.hpp"

namespace perron::cuda {
template <class T>
void dot(std::size_t, const T*, const T*, double*, reduction_scratch&, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
void nrm2(std::size_t, const T*, double*, reduction_scratch&, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
void norm_inf(std::size_t, const T*, double*, reduction_scratch&, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
void diff_norm_inf(std::size_t, const T*, const T*, double*, reduction_scratch&, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
double dot_value(std::size_t, const T*, const T*, reduction_scratch&, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
double nrm2_value(std::size_t, const T*, reduction_scratch&, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
double norm_inf_value(std::size_t, const T*, reduction_scratch&, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
double diff_norm_inf_value(std::size_t, const T*, const T*, reduction_scratch&, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
void axpby(std::size_t, T, const T*, T, T*, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
void copy(std::size_t, const T*, T*, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
void fill(std::size_t, T, T*, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}
template <class T>
void scale(std::size_t, T, T*, stream_t) {
  cuda::throw_no_cuda("device vector operations");
}

void stream_synchronize(stream_t) { cuda::throw_no_cuda("device vector operations"); }
double read_scalar(const double*, stream_t) { cuda::throw_no_cuda("device vector operations"); }

#include "kernels/cuda/vector_ops_instances.def"

}  // namespace perron::cuda
