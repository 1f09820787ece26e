// CPU-only builds: the GPU batched PageRank refuses to start.
#include "core/error.hpp"
#include "solvers/pagerank_batched.hpp"

namespace perron {

namespace {
[[noreturn]] void no_cuda() {
  throw cuda_error(
      "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): the GPU batched PageRank is unavailable");
}
}  // namespace

template <class T>
struct pagerank_batched_gpu<T>::impl {};

template <class T>
pagerank_batched_gpu<T>::pagerank_batched_gpu(const pagerank_graph<T>&, int) {
  no_cuda();
}
template <class T>
pagerank_batched_result pagerank_batched_gpu<T>::solve(const std::vector<source_set>&,
                                                       const pagerank_batched_options&) {
  no_cuda();
}
template <class T>
int pagerank_batched_gpu<T>::width() const {
  no_cuda();
}

int pagerank_batched_gpu_width(index_t, bool) { no_cuda(); }
int pagerank_batched_gpu_chunk(index_t, bool) { no_cuda(); }

template <class T>
pagerank_batched_result pagerank_batched_cuda(const pagerank_graph<T>&, const std::vector<source_set>&,
                                              const pagerank_batched_options&) {
  no_cuda();
}

template class pagerank_batched_gpu<float>;
template class pagerank_batched_gpu<double>;
template pagerank_batched_result pagerank_batched_cuda<float>(const pagerank_graph<float>&,
                                                              const std::vector<source_set>&,
                                                              const pagerank_batched_options&);
template pagerank_batched_result pagerank_batched_cuda<double>(const pagerank_graph<double>&,
                                                               const std::vector<source_set>&,
                                                               const pagerank_batched_options&);

}  // namespace perron
