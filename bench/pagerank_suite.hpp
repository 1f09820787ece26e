// `pagerank --bench`: every GPU SpMV kernel on P^T, perron's GPU solver in
// its pulls and loops, and the naive cuSPARSE baseline (bench/pagerank_bench.hpp)
// on one graph, printed as the tables scripts/gpu-bench.sh parses.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/formats.hpp"
#include "solvers/pagerank.hpp"

namespace perron::bench {

struct pagerank_suite_input {
  std::string graph_name;     // as given on the command line
  coo_matrix<double> matrix;  // the adjacency matrix (arc i -> j at (i, j))
  std::vector<std::int64_t> label;
  bool weighted = false;
  double load_seconds = 0;   // reading the graph, for the header line
  std::string precision;     // "float" or "double", for the header line
  pagerank_options options;  // alpha, tol, max_iter, kernel, pull, check_interval, graph_unroll
  int runs = 100;            // timed repetitions per measurement
};

// cuda_error "<what>: no usable CUDA device" (or built without CUDA) unless a GPU can run the suite.
void require_gpu(const char* what);

// Runs the suite in precision T and prints it to o.
template <class T>
void pagerank_suite(pagerank_suite_input in, std::ostream& o);

}  // namespace perron::bench
