// CPU-only builds: the GPU conversion exists but says clearly that it cannot run.
#include "core/error.hpp"
#include "kernels/gpu_convert.hpp"

namespace perron {
namespace {
[[noreturn]] void no_cuda() {
  throw cuda_error(
      "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): to_csr_on_gpu is unavailable");
}
}  // namespace

template <class T>
cuda::device_csr<T> to_device_csr(const coo_matrix<T>&, csr_options, cuda::stream_t) {
  no_cuda();
}
template <class T>
cuda::device_csr<T> to_device_csr(index_t, index_t, std::size_t, const index_t*, const index_t*, const T*,
                                  csr_options, cuda::stream_t) {
  no_cuda();
}
template <class T>
csr_matrix<T> to_csr_on_gpu(const coo_matrix<T>&, csr_options, cuda::stream_t) {
  no_cuda();
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
