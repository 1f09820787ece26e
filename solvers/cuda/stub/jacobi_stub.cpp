// CPU-only builds: the GPU Jacobi exists but throws.
#include "core/error.hpp"
#include "solvers/jacobi.hpp"

namespace perron::cuda {
namespace {
[[noreturn]] void no_cuda() {
  throw cuda_error("perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): GPU Jacobi unavailable");
}
}  // namespace

template <class T>
struct jacobi_solver<T>::impl {};

template <class T>
jacobi_solver<T>::jacobi_solver(const csr_matrix<T>&, spmv_kernel, const jacobi_options&, stream_t) {
  no_cuda();
}
template <class T>
jacobi_solver<T>::jacobi_solver(const std::vector<T>&, device_operator<T>, const jacobi_options&, stream_t) {
  no_cuda();
}
template <class T>
jacobi_solver<T>::~jacobi_solver() = default;
template <class T>
jacobi_solver<T>::jacobi_solver(jacobi_solver&&) noexcept = default;
template <class T>
jacobi_solver<T>& jacobi_solver<T>::operator=(jacobi_solver&&) noexcept = default;
template <class T>
solve_result jacobi_solver<T>::solve(const T*, T*, const stop_criterion&) {
  no_cuda();
}
template <class T>
check_schedule& jacobi_solver<T>::schedule() {
  no_cuda();
}
template <class T>
index_t jacobi_solver<T>::size() const {
  no_cuda();
}
template <class T>
spmv_kernel jacobi_solver<T>::kernel() const {
  no_cuda();
}
template <class T>
stream_t jacobi_solver<T>::stream() const {
  no_cuda();
}

template class jacobi_solver<float>;
template class jacobi_solver<double>;

}  // namespace perron::cuda
