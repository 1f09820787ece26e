// PageRank on N GPUs of one process through NCCL (pagerank --gpus N): GPU d
// owns the rows of P^T of a block-aligned vertex range balanced by links (the
// ranges of the MPI solver, dist::balanced_ranges), runs a warp-per-row pull
// over them and its update, and each iteration ends with ncclAllGather of the
// rank pieces and of the per-4096-vertex partial sums (residual, dangling
// mass), which the host adds in block order. NCCL's all-gather takes equal
// counts, so pieces are padded to the longest range and the column indices
// point into that padded layout.
//
// libnccl is opened at run time (dlopen "libnccl.so.2"), so programs built
// with it still start where it is absent; --gpus then says what is missing.
// Built only with CUDA and nccl.h (PERRON_NCCL); otherwise it throws.
#pragma once

#include "solvers/pagerank.hpp"

namespace perron::dist {

bool nccl_built();

// gpus >= 1 and at most the devices present (cuda_error otherwise); the
// options as pagerank_cpu reads them (alpha, tol, max_iter, personalization,
// initial, progress). The result's ranks are those of one GPU's solve up to
// the order of floating-point sums.
template <class T>
pagerank_result pagerank_nccl(const pagerank_graph<T>& g, const pagerank_options& opt, int gpus);

}  // namespace perron::dist
