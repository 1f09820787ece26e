// CPU-only builds: the GPU CG exists but throws (the shell's members are inline).
#include "solvers/cg.hpp"

namespace perron::cuda {

template <class T>
cg_solver<T>::cg_solver(const csr_matrix<T>&, spmv_kernel, stream_t) {
  throw_no_cuda("GPU CG");
}
template <class T>
cg_solver<T>::cg_solver(index_t, device_operator<T>, stream_t) {
  throw_no_cuda("GPU CG");
}

template class cg_solver<float>;
template class cg_solver<double>;

}  // namespace perron::cuda
