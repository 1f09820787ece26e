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

#define PERRON_DEVICE_VECTOR_OPS(T)                                                                       \
  template void dot<T>(std::size_t, const T*, const T*, double*, reduction_scratch&, stream_t);           \
  template void nrm2<T>(std::size_t, const T*, double*, reduction_scratch&, stream_t);                    \
  template void norm_inf<T>(std::size_t, const T*, double*, reduction_scratch&, stream_t);                \
  template void diff_norm_inf<T>(std::size_t, const T*, const T*, double*, reduction_scratch&, stream_t); \
  template double dot_value<T>(std::size_t, const T*, const T*, reduction_scratch&, stream_t);            \
  template double nrm2_value<T>(std::size_t, const T*, reduction_scratch&, stream_t);                     \
  template double norm_inf_value<T>(std::size_t, const T*, reduction_scratch&, stream_t);                 \
  template double diff_norm_inf_value<T>(std::size_t, const T*, const T*, reduction_scratch&, stream_t);  \
  template void axpby<T>(std::size_t, T, const T*, T, T*, stream_t);                                      \
  template void copy<T>(std::size_t, const T*, T*, stream_t);                                             \
  template void fill<T>(std::size_t, T, T*, stream_t);                                                    \
  template void scale<T>(std::size_t, T, T*, stream_t);
PERRON_DEVICE_VECTOR_OPS(float)
PERRON_DEVICE_VECTOR_OPS(double)
#undef PERRON_DEVICE_VECTOR_OPS

}  // namespace perron::cuda
