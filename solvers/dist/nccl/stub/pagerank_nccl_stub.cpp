// Stand-in without CUDA or nccl.h (PERRON_NCCL=OFF or not found).
#include "core/error.hpp"
#include "solvers/dist/pagerank_nccl.hpp"

namespace perron::dist {

bool nccl_built() { return false; }

template <class T>
pagerank_result pagerank_nccl(const pagerank_graph<T>&, const pagerank_options&, int,
                              std::vector<iteration_stats>*, const nccl_options&, nccl_choice*) {
  throw cuda_error("--gpus: perron was built without NCCL (PERRON_NCCL=OFF, or no CUDA or nccl.h found)");
}

template <class T>
pagerank_result pagerank_nccl(csr_pieces&&, const std::vector<std::uint32_t>&, const pagerank_options&, int,
                              int, std::vector<iteration_stats>*) {
  throw cuda_error("--gpus: perron was built without NCCL (PERRON_NCCL=OFF, or no CUDA or nccl.h found)");
}

template pagerank_result pagerank_nccl<float>(csr_pieces&&, const std::vector<std::uint32_t>&,
                                              const pagerank_options&, int, int,
                                              std::vector<iteration_stats>*);
template pagerank_result pagerank_nccl<double>(csr_pieces&&, const std::vector<std::uint32_t>&,
                                               const pagerank_options&, int, int,
                                               std::vector<iteration_stats>*);
template pagerank_result pagerank_nccl<float>(const pagerank_graph<float>&, const pagerank_options&, int,
                                              std::vector<iteration_stats>*, const nccl_options&,
                                              nccl_choice*);
template pagerank_result pagerank_nccl<double>(const pagerank_graph<double>&, const pagerank_options&, int,
                                               std::vector<iteration_stats>*, const nccl_options&,
                                               nccl_choice*);

}  // namespace perron::dist
