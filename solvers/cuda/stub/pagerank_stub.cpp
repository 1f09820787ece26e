// CPU-only builds: the GPU PageRank solver exists but refuses to start (its
// other members are defined in the header or never reached).
#include "core/error.hpp"
#include "solvers/pagerank.hpp"
#include "solvers/pagerank_trial.hpp"

namespace perron {

template <class T>
pagerank_cuda<T>::pagerank_cuda(const pagerank_graph<T>&, std::optional<spmv_kernel>, pagerank_pull,
                                pull_trial_memo*) {
  throw cuda_error(
      "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): the GPU PageRank solver is unavailable");
}
template <class T>
pull_facts pagerank_cuda<T>::facts(const pagerank_graph<T>& g) {
  return pull_facts_of(g);
}
template <class T>
pagerank_result pagerank_cuda<T>::solve(const pagerank_options&) {
  return {};  // unreachable: no object can be built
}
template <class T>
std::vector<index_t> pagerank_cuda<T>::vertex_order() const {
  return {};  // unreachable: no object can be built
}
template <class T>
void pagerank_cuda<T>::build_chosen(const pagerank_graph<T>&, std::optional<spmv_kernel>, const pull_choice&,
                                    const std::string&, const plain_trace*) {
  // unreachable: trial_pull (solvers/pagerank_trial.cpp) runs only inside the GPU constructor
  throw cuda_error(
      "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): the GPU PageRank solver is unavailable");
}
template <class T>
plain_trace pagerank_cuda<T>::layout_trace() {
  return {};  // unreachable: no object can be built
}

template class pagerank_cuda<float>;
template class pagerank_cuda<double>;

}  // namespace perron
