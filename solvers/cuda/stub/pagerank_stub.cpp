// CPU-only builds: the GPU PageRank solver exists but refuses to start.
#include "core/error.hpp"
#include "solvers/pagerank.hpp"

namespace perron {
namespace {
[[noreturn]] void no_cuda() {
  throw cuda_error(
      "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): the GPU PageRank solver is unavailable");
}
}  // namespace

template <class T>
struct pagerank_cuda<T>::impl {};

template <class T>
pagerank_cuda<T>::pagerank_cuda(const pagerank_graph<T>&, spmv_kernel, pagerank_pull) {
  no_cuda();
}
template <class T>
pagerank_cuda<T>::~pagerank_cuda() = default;
template <class T>
pagerank_cuda<T>::pagerank_cuda(pagerank_cuda&&) noexcept = default;
template <class T>
pagerank_cuda<T>& pagerank_cuda<T>::operator=(pagerank_cuda&&) noexcept = default;
template <class T>
pagerank_result pagerank_cuda<T>::solve(const pagerank_options&) {
  no_cuda();
}
template <class T>
spmv_kernel pagerank_cuda<T>::kernel() const {
  no_cuda();
}
template <class T>
const std::string& pagerank_cuda<T>::kernel_reason() const {
  no_cuda();
}
template <class T>
std::size_t pagerank_cuda<T>::device_bytes() const {
  no_cuda();
}
template <class T>
bool pagerank_cuda<T>::fused() const {
  no_cuda();
}
template <class T>
std::string pagerank_cuda<T>::kernel_name() const {
  no_cuda();
}

template class pagerank_cuda<float>;
template class pagerank_cuda<double>;

}  // namespace perron
