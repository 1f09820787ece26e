// The registries' types: which SpMV kernel, and which PageRank pull. Two
// questions, two enums; every layer names them, so they live in core. The
// kernel list itself is core/spmv_kernels.def (one line per kernel).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace perron {

enum class spmv_kernel {
#define PERRON_SPMV_KERNEL(id, text, what, ...) id,
#include "spmv_kernels.def"
#undef PERRON_SPMV_KERNEL
};

// "csr-scalar", "cusparse-alg2", "auto", ...
std::string_view name(spmv_kernel k);
// Inverse of name(); throws invalid_argument listing every valid name.
spmv_kernel parse_spmv_kernel(std::string_view s);
// Every kernel, in the order of core/spmv_kernels.def (cpu first, automatic last).
const std::vector<spmv_kernel>& spmv_kernels();
// One line on what the kernel is, for --help and the benchmark.
std::string_view description(spmv_kernel k);
// Runs on the GPU (everything but cpu)?
bool on_gpu(spmv_kernel k);
// "cpu, csr-scalar, ..., auto" for help texts.
std::string spmv_kernel_names();

// What one GPU PageRank step runs: the pull, a separate question from the kernel.
enum class pagerank_pull {
  automatic,   // by the graph's size and row lengths (choose_pull, solvers/pagerank.hpp): fused or
               // spmv for an unweighted graph when no SpMV kernel is named, else spmv
  spmv,        // the plan's SpMV kernel, then the fused update kernel
  fused,       // one kernel per step: a pull over the pattern of P^T with the update fused, vertices
               // relabelled (sources first, each part by in-degree), rows in slices of 32 virtual
               // rows, the most-gathered part of x in shared memory
               // (solvers/cuda/pagerank_fused.cuh); pattern graphs only
  persistent,  // the fused pull's layout and per-slice work in one cooperative kernel that runs the
               // whole solve, a grid-wide barrier per step (solvers/cuda/pagerank_persistent.cuh);
               // pattern graphs only
};
std::string_view name(pagerank_pull p);                 // "auto", "spmv", "fused", "persistent"
pagerank_pull parse_pagerank_pull(std::string_view s);  // throws invalid_argument
std::string pagerank_pull_names();                      // "auto, spmv, fused, persistent"

}  // namespace perron
