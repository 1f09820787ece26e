// CPU-only builds: the cuSPARSE baseline exists but refuses to start.
#include "bench/pagerank_bench.hpp"
#include "core/error.hpp"

namespace perron::bench {

template <class T>
cusparse_baseline<T>::cusparse_baseline(const pagerank_graph<T>&) {
  throw cuda_error(
      "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): the GPU benchmark is unavailable");
}
template <class T>
pagerank_result cusparse_baseline<T>::solve(double, double, int) {
  return {};  // unreachable: no object can be built
}

std::size_t l2_cache_bytes() { return 0; }

template class cusparse_baseline<float>;
template class cusparse_baseline<double>;

}  // namespace perron::bench
