// The batched mode of the pagerank app: `pagerank GRAPH --sources FILE`
// (personalized PageRank of every source set of FILE at once,
// solvers/pagerank_batched.hpp) and `--bench-sources S` (the batched solve
// against S single solves in one process).
#pragma once

#include <string>
#include <vector>

#include "apps/common/input_options.hpp"
#include "solvers/device_choice.hpp"
#include "solvers/pagerank.hpp"

namespace perron::app {

// What the batched mode takes from the pagerank command line.
struct batched_request {
  std::string graph;
  pagerank_options opt;  // alpha, tol, max-iter, device, kernel, pull, loop (singles of the benchmark)
  bool double_precision = false;
  bool weighted = false;
  std::string sources;  // --sources FILE
  // --output FILE: the top-K TSV there instead of stdout (stderr where --output-matrix is '-')
  std::string output;
  std::string output_matrix;  // --output-matrix FILE: every rank, Matrix Market array n x s
  int top = 10;               // --top K per source
  int bench_sources = 0;      // --bench-sources S (0: no benchmark)
  bool json = false;          // refused: the batched mode prints TSV
  input_settings input;
  // --device auto (the solve's device by the model of solvers/device_choice.hpp):
  // the facts the command line gives (precision, threads, the iterations'
  // bound), and the graph's size and load time where they could be guessed
  // before the load (guessed) from its cache entry, file or spec.
  device_facts facts;
  bool guessed = false;
};

// Whether the command line asks for the batched mode.
inline bool batched_mode(const batched_request& r) { return !r.sources.empty() || r.bench_sources > 0; }

// Runs it: an exit code of apps/common/app.hpp (not_converged when a column
// stopped at --max-iter). Output: TSV "source_line<TAB>vertex<TAB>rank", the
// top --top vertices of each set (source_line: the set's line in FILE), on
// stdout or --output; a summary on stderr.
int batched_pagerank(const batched_request& r);

// Indices of the k largest of x[0..n), highest first (ties: lower index first):
// the top-K lists of both pagerank modes.
std::vector<index_t> top_of(const double* x, index_t n, int k);

}  // namespace perron::app
