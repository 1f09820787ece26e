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
  std::vector<std::string> name;  // an edge list of names (label then empty)
  bool weighted = false;
  double load_seconds = 0;   // reading the graph, for the header line
  std::string precision;     // "float" or "double", for the header line
  pagerank_options options;  // alpha, tol, max_iter, kernel, pull, check_interval, graph_unroll
  int runs = 100;            // timed repetitions per measurement
};

// What the suite measured, for pictures (`pagerank --bench --plot`): one row
// per solver in the printed order (the command line's pull first), then the
// baseline.
struct pagerank_suite_row {
  std::string solver;           // as printed, e.g. "perron pull-fused (auto) graph-while x2"
  double us_per_iteration = 0;  // marginal device time (baseline: wall / iterations)
  double wall_ms = 0;           // median whole solve
  bool baseline = false;
};
struct pagerank_suite_result {
  std::vector<pagerank_suite_row> rows;
  std::string best_kernel;  // the fastest SpMV kernel on P^T and its time
  double best_spmv_us = 0;
};

// cuda_error "<what>: no usable CUDA device" (or built without CUDA) unless a GPU can run the suite.
void require_gpu(const char* what);

// Runs the suite in precision T and prints it to o.
template <class T>
pagerank_suite_result pagerank_suite(pagerank_suite_input in, std::ostream& o);

// `pagerank --bench --json`: the corpus record of one graph, one JSON object
// on one line (scripts/pagerank-corpus.sh collects them, issue 17). The graph's
// statistics (vertices, links, dangling fraction, in- and out-degree maximum
// and coefficient of variation, rows with no in-link, whether x fits in L2),
// then for float and for double: every GPU SpMV kernel's median µs on P^T,
// each pull's µs per iteration (fused; spmv with auto's kernel; spmv with the
// best kernel), the pull `auto` resolves to and its ratio to the best, and
// whole solves (median wall) against the cuSPARSE-loop baseline. in.precision
// is ignored (both run); in.runs sets the repetitions.
void pagerank_corpus_record(pagerank_suite_input in, std::ostream& o);

}  // namespace perron::bench
