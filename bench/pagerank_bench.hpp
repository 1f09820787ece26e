// The baseline that `pagerank --bench` compares perron's GPU solver with: a
// PageRank written the way most people would (cuSPARSE SpMV, separate
// reduction calls, the residual copied to the host every iteration).
// (SpMV timing and copy bandwidth come from kernels/spmv.hpp.)
// Implemented in bench/cuda/pagerank_bench.cu (stub: "built without CUDA").
#pragma once

#include <cstddef>
#include <memory>

#include "kernels/spmv.hpp"
#include "solvers/pagerank.hpp"

namespace perron::bench {

// The naive baseline. Per iteration: cusparseSpMV (y = alpha P^T r), a
// thrust reduction for the dangling mass, a thrust transform for the teleport
// term, a thrust reduction for ||y - r||_1, each reduction returning its
// result to the host (a synchronization), then a swap. Same semantics and
// stopping rule as perron's solver; setup (upload, descriptors, buffer) in
// the constructor, outside solve().
template <class T>
class cusparse_baseline {
 public:
  explicit cusparse_baseline(const pagerank_graph<T>& g);
  // Uniform teleport and start only (the benchmark's setting).
  pagerank_result solve(double alpha, double tol, int max_iter);

  struct impl;

 private:
  // The deleter comes from the constructor: the special members need no definition of impl.
  std::unique_ptr<impl, void (*)(impl*)> impl_{nullptr, nullptr};
};

// The L2 cache of device 0 in bytes (0 when built without CUDA).
std::size_t l2_cache_bytes();

}  // namespace perron::bench
