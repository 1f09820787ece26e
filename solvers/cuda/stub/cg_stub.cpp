// CPU-only builds: the GPU CG exists but throws.
#include "core/error.hpp"
#include "solvers/cg.hpp"

namespace perron::cuda {
namespace {
[[noreturn]] void no_cuda() {
  throw cuda_error("perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): GPU CG unavailable");
}
}  // namespace

template <class T>
struct cg_solver<T>::impl {};

template <class T>
cg_solver<T>::cg_solver(const csr_matrix<T>&, spmv_kernel, stream_t) {
  no_cuda();
}
template <class T>
cg_solver<T>::cg_solver(index_t, device_operator<T>, stream_t) {
  no_cuda();
}
template <class T>
cg_solver<T>::~cg_solver() = default;
template <class T>
cg_solver<T>::cg_solver(cg_solver&&) noexcept = default;
template <class T>
cg_solver<T>& cg_solver<T>::operator=(cg_solver&&) noexcept = default;
template <class T>
solve_result cg_solver<T>::solve(const T*, T*, const stop_criterion&) {
  no_cuda();
}
template <class T>
check_schedule& cg_solver<T>::schedule() {
  no_cuda();
}
template <class T>
index_t cg_solver<T>::size() const {
  no_cuda();
}
template <class T>
spmv_kernel cg_solver<T>::kernel() const {
  no_cuda();
}
template <class T>
stream_t cg_solver<T>::stream() const {
  no_cuda();
}

template class cg_solver<float>;
template class cg_solver<double>;

}  // namespace perron::cuda
