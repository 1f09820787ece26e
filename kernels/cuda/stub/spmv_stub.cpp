// CPU-only builds: spmv_plan exists but throws a clear error
// (a plan for the cpu kernel is refused the same way as in CUDA builds).
#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/spmv.hpp"

namespace perron {
template <class T>
struct spmv_plan<T>::impl {};

template <class T>
spmv_plan<T>::spmv_plan(const csr_matrix<T>&, spmv_kernel kernel, cuda::stream_t) {
  if (!on_gpu(kernel))
    throw invalid_argument(
        "spmv_plan: kernel '" + std::string(name(kernel)) +
        "' runs on the host; call spmv(csr, alpha, x, beta, y) instead of building a GPU plan");
  cuda::throw_no_cuda();
}
template <class T>
spmv_plan<T>::spmv_plan(device_csr_matrix<T>, spmv_kernel, cuda::stream_t) {
  cuda::throw_no_cuda();
}
template <class T>
spmv_plan<T>::~spmv_plan() = default;
template <class T>
spmv_plan<T>::spmv_plan(spmv_plan&&) noexcept = default;
template <class T>
spmv_plan<T>& spmv_plan<T>::operator=(spmv_plan&&) noexcept = default;

// A plan cannot be constructed in this build, so these are unreachable; they
// still throw rather than return something made up.
template <class T>
void spmv_plan<T>::apply(T, const T*, T, T*) const {
  cuda::throw_no_cuda();
}
template <class T>
spmv_kernel spmv_plan<T>::kernel() const {
  cuda::throw_no_cuda();
}
template <class T>
index_t spmv_plan<T>::rows() const {
  cuda::throw_no_cuda();
}
template <class T>
index_t spmv_plan<T>::cols() const {
  cuda::throw_no_cuda();
}
template <class T>
std::size_t spmv_plan<T>::nnz() const {
  cuda::throw_no_cuda();
}
template <class T>
cuda::stream_t spmv_plan<T>::stream() const {
  cuda::throw_no_cuda();
}
template <class T>
std::size_t spmv_plan<T>::device_bytes() const {
  cuda::throw_no_cuda();
}
template <class T>
const std::string& spmv_plan<T>::reason() const {
  cuda::throw_no_cuda();
}
template <class T>
std::string spmv_plan<T>::description() const {
  cuda::throw_no_cuda();
}

template class spmv_plan<float>;
template class spmv_plan<double>;

}  // namespace perron
