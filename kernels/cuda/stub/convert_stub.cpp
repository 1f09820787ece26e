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

#include "kernels/cuda/convert_instances.def"

}  // namespace perron
