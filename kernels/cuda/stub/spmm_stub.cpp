// CPU-only builds: spmm_plan exists but throws a clear error.
#include "core/error.hpp"
#include "kernels/spmm.hpp"

namespace perron {
namespace {
[[noreturn]] void no_cuda() {
  throw cuda_error("perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)");
}
}  // namespace

template <class T>
struct spmm_plan<T>::impl {};

template <class T>
spmm_plan<T>::spmm_plan(const csr_matrix<T>&, cuda::stream_t) {
  no_cuda();
}
template <class T>
spmm_plan<T>::~spmm_plan() = default;
template <class T>
spmm_plan<T>::spmm_plan(spmm_plan&&) noexcept = default;
template <class T>
spmm_plan<T>& spmm_plan<T>::operator=(spmm_plan&&) noexcept = default;

// A plan cannot be constructed in this build: unreachable, but still throwing.
template <class T>
void spmm_plan<T>::apply(T, const T*, T, T*, index_t) const {
  no_cuda();
}
template <class T>
index_t spmm_plan<T>::rows() const {
  no_cuda();
}
template <class T>
index_t spmm_plan<T>::cols() const {
  no_cuda();
}
template <class T>
std::size_t spmm_plan<T>::nnz() const {
  no_cuda();
}
template <class T>
cuda::stream_t spmm_plan<T>::stream() const {
  no_cuda();
}
template <class T>
const index_t* spmm_plan<T>::device_row_ptr() const {
  no_cuda();
}
template <class T>
const index_t* spmm_plan<T>::device_col_idx() const {
  no_cuda();
}
template <class T>
const T* spmm_plan<T>::device_values() const {
  no_cuda();
}

template class spmm_plan<float>;
template class spmm_plan<double>;

}  // namespace perron
