// Stand-in for builds without MPI (PERRON_MPI=OFF or no MPI found): one
// process, and the distributed solver says how to get it.
#include "solvers/dist/pagerank_dist.hpp"

#include "core/error.hpp"

namespace perron::dist {
namespace {

[[noreturn]] void no_mpi() {
  throw not_supported("distributed PageRank: perron was built without MPI (PERRON_MPI=OFF or no MPI found)");
}

}  // namespace

bool launched() { return false; }
int launch_rank() { return 0; }
bool built() { return false; }
session::session() : threads_(static_cast<int>(host_threads())) {}
session::~session() = default;

void agree(std::exception_ptr failure) {
  if (failure) std::rethrow_exception(failure);
}

// One process: the sums of one value.
std::uint64_t exclusive_sum(std::uint64_t) { return 0; }
std::uint64_t total_sum(std::uint64_t mine) { return mine; }
std::vector<double> all_values(double mine) { return {mine}; }
std::vector<std::string> all_strings(const std::string& mine) { return {mine}; }
bool same_everywhere(std::uint64_t) { return true; }
std::string first_difference(const std::string&) { return {}; }

arc_copy scatter_arcs(const arc_slice&, bool, int) { no_mpi(); }
void broadcast(std::vector<std::int64_t>&, int) { no_mpi(); }
void send_numbers(const std::uint64_t*, std::size_t, int) { no_mpi(); }
void receive_numbers(std::uint64_t*, std::size_t, int) { no_mpi(); }
void send_bytes(const char*, std::size_t, int) { no_mpi(); }
void receive_bytes(char*, std::size_t, int) { no_mpi(); }

local_arcs exchange_arcs(const arc_slice&, index_t, bool, mirror, const vertex_naming&, const std::string&) {
  no_mpi();
}

template <class T>
local_graph<T> finish_graph(local_arcs&&, bool, const vertex_naming&) {
  no_mpi();
}

template <class T>
local_graph<T> distribute_graph(const arc_slice&, index_t, bool, mirror, const vertex_naming&) {
  no_mpi();
}

template <class T>
exchange_plan plan_exchange(const local_graph<T>&, exchange_kind) {
  no_mpi();
}

template <class T>
pagerank_result pagerank_mpi(const local_graph<T>&, const pagerank_options&, const exchange_plan&,
                             iteration_stats*) {
  no_mpi();
}

template <class T>
pagerank_result pagerank_mpi(const local_graph<T>&, const pagerank_options&, iteration_stats*) {
  no_mpi();
}

template local_graph<float> finish_graph<float>(local_arcs&&, bool, const vertex_naming&);
template local_graph<double> finish_graph<double>(local_arcs&&, bool, const vertex_naming&);
template local_graph<float> distribute_graph<float>(const arc_slice&, index_t, bool, mirror,
                                                    const vertex_naming&);
template local_graph<double> distribute_graph<double>(const arc_slice&, index_t, bool, mirror,
                                                      const vertex_naming&);
template exchange_plan plan_exchange(const local_graph<float>&, exchange_kind);
template exchange_plan plan_exchange(const local_graph<double>&, exchange_kind);
template pagerank_result pagerank_mpi<float>(const local_graph<float>&, const pagerank_options&,
                                             const exchange_plan&, iteration_stats*);
template pagerank_result pagerank_mpi<double>(const local_graph<double>&, const pagerank_options&,
                                              const exchange_plan&, iteration_stats*);
template pagerank_result pagerank_mpi<float>(const local_graph<float>&, const pagerank_options&,
                                             iteration_stats*);
template pagerank_result pagerank_mpi<double>(const local_graph<double>&, const pagerank_options&,
                                              iteration_stats*);

}  // namespace perron::dist
