// Loads a graph (Matrix Market, .mtx.gz, SNAP edge list) and prints the five
// vertices of highest PageRank: perron used as a library through find_package.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <numeric>
#include <vector>

#include "perron/io/load.hpp"
#include "perron/solvers/pagerank.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s GRAPH.mtx\n", argv[0]);
    return 64;
  }
  try {
    const perron::io::loaded_matrix g = perron::io::load_matrix(argv[1]);
    const auto graph = perron::make_pagerank_graph<double>(g.matrix, /*weighted=*/false, g.naming());
    const perron::pagerank_result r = perron::pagerank(graph, perron::pagerank_options{});
    std::vector<std::size_t> order(r.rank.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    const std::size_t top = std::min<std::size_t>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + top, order.end(),
                      [&](std::size_t a, std::size_t b) { return r.rank[a] > r.rank[b]; });
    std::printf("%zu vertices, %d iterations, %s\n", r.rank.size(), r.iterations,
                r.converged ? "converged" : "not converged");
    for (std::size_t k = 0; k < top; ++k)
      std::printf("%zu  vertex %s  %.9f\n", k + 1, g.naming()(static_cast<perron::index_t>(order[k])).c_str(),
                  r.rank[order[k]]);
    return r.converged ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  }
}
