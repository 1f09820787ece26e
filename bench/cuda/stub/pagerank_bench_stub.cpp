// CPU-only builds: the GPU benchmark helpers exist but refuse to run.
#include "bench/pagerank_bench.hpp"
#include "core/error.hpp"

namespace perron::bench {
namespace {
[[noreturn]] void no_cuda() {
  throw cuda_error(
      "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): the GPU benchmark is unavailable");
}
}  // namespace

template <class T>
struct cusparse_baseline<T>::impl {};
template <class T>
cusparse_baseline<T>::cusparse_baseline(const pagerank_graph<T>&) {
  no_cuda();
}
template <class T>
cusparse_baseline<T>::~cusparse_baseline() = default;
template <class T>
cusparse_baseline<T>::cusparse_baseline(cusparse_baseline&&) noexcept = default;
template <class T>
cusparse_baseline<T>& cusparse_baseline<T>::operator=(cusparse_baseline&&) noexcept = default;
template <class T>
pagerank_result cusparse_baseline<T>::solve(double, double, int) {
  no_cuda();
}

template class cusparse_baseline<float>;
template class cusparse_baseline<double>;

}  // namespace perron::bench
