// CPU-only builds: the cuSPARSE SpMM baseline exists but throws a clear error.
#include "bench/spmm_baseline.hpp"
#include "core/error.hpp"

namespace perron {

template <class T>
struct cusparse_spmm<T>::impl {};

template <class T>
cusparse_spmm<T>::cusparse_spmm(const spmm_plan<T>&, index_t, cusparse_spmm_alg, const T*, T*) {
  throw cuda_error("perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)");
}
template <class T>
cusparse_spmm<T>::~cusparse_spmm() = default;
template <class T>
void cusparse_spmm<T>::operator()(T, T) const {
  throw cuda_error("perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)");
}

template class cusparse_spmm<float>;
template class cusparse_spmm<double>;

}  // namespace perron
