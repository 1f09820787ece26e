// CPU-only builds: the GPU Jacobi exists but throws (the shell's members are inline).
#include "solvers/jacobi.hpp"

namespace perron::cuda {

template <class T>
jacobi_solver<T>::jacobi_solver(const csr_matrix<T>&, spmv_kernel, const jacobi_options&, stream_t) {
  throw_no_cuda("GPU Jacobi");
}
template <class T>
jacobi_solver<T>::jacobi_solver(const std::vector<T>&, device_operator<T>, const jacobi_options&, stream_t) {
  throw_no_cuda("GPU Jacobi");
}

template class jacobi_solver<float>;
template class jacobi_solver<double>;

}  // namespace perron::cuda
