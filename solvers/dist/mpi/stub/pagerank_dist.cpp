// Stand-in for builds without MPI (PERRON_MPI=OFF or no MPI found): one
// process, and the distributed solver says how to get it.
#include "solvers/dist/pagerank_dist.hpp"

#include "core/error.hpp"

namespace perron::dist {

bool launched() { return false; }
bool built() { return false; }
session::session() = default;
session::~session() = default;

void agree(std::exception_ptr failure) {
  if (failure) std::rethrow_exception(failure);
}

template <class T>
pagerank_result pagerank_mpi(const pagerank_graph<T>&, const pagerank_options&) {
  throw not_supported("distributed PageRank: perron was built without MPI (PERRON_MPI=OFF or no MPI found)");
}

template pagerank_result pagerank_mpi<float>(const pagerank_graph<float>&, const pagerank_options&);
template pagerank_result pagerank_mpi<double>(const pagerank_graph<double>&, const pagerank_options&);

}  // namespace perron::dist
