// CPU-only builds: the GPU conversion exists but says clearly that it cannot run.
#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/gpu_convert.hpp"

namespace perron {
template <class T>
cuda::device_csr<T> to_device_csr(const coo_matrix<T>&, csr_options, cuda::stream_t) {
  cuda::throw_no_cuda("to_csr_on_gpu");
}
template <class T>
cuda::device_csr<T> to_device_csr(index_t, index_t, std::size_t, const index_t*, const index_t*, const T*,
                                  csr_options, cuda::stream_t) {
  cuda::throw_no_cuda("to_csr_on_gpu");
}
template <class T>
csr_matrix<T> to_csr_on_gpu(const coo_matrix<T>&, csr_options, cuda::stream_t) {
  cuda::throw_no_cuda("to_csr_on_gpu");
}

#define PERRON_GPU_CONVERT_INSTANTIATE(T)                                                               \
  template cuda::device_csr<T> to_device_csr<T>(const coo_matrix<T>&, csr_options, cuda::stream_t);     \
  template cuda::device_csr<T> to_device_csr<T>(index_t, index_t, std::size_t, const index_t*,          \
                                                const index_t*, const T*, csr_options, cuda::stream_t); \
  template csr_matrix<T> to_csr_on_gpu<T>(const coo_matrix<T>&, csr_options, cuda::stream_t);

PERRON_GPU_CONVERT_INSTANTIATE(float)
PERRON_GPU_CONVERT_INSTANTIATE(double)
#undef PERRON_GPU_CONVERT_INSTANTIATE

}  // namespace perron
