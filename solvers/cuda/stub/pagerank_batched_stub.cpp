// CPU-only builds: the GPU batched PageRank refuses to start.
#include "core/error.hpp"
#include "solvers/pagerank_batched.hpp"

namespace perron {

template <class T>
pagerank_batched_result pagerank_batched_cuda(const pagerank_graph<T>&, const std::vector<source_set>&,
                                              const pagerank_batched_options&) {
  throw cuda_error(
      "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): the GPU batched PageRank is unavailable");
}

template pagerank_batched_result pagerank_batched_cuda<float>(const pagerank_graph<float>&,
                                                              const std::vector<source_set>&,
                                                              const pagerank_batched_options&);
template pagerank_batched_result pagerank_batched_cuda<double>(const pagerank_graph<double>&,
                                                               const std::vector<source_set>&,
                                                               const pagerank_batched_options&);

}  // namespace perron
