// PageRank on N GPUs of one process through NCCL (pagerank --gpus N): GPU d
// owns the rows of P^T of a block-aligned vertex range of about equal cost, a
// row counting as two links (dist::balanced_ranges), runs the pull over them
// (an SpMV plan of the kernels layer: --kernel, or auto's trial on its rows,
// in a conditional graph node that skips it once the loop has stopped) and
// its update, and each iteration ends with the exchange of r (every GPU
// broadcasts its own rows, all in one NCCL group: an all-gather of unequal
// pieces, r kept whole in the graph's vertex order on every GPU) and an
// ncclAllGather of the per-4096-vertex partial sums (residual, dangling mass),
// which every GPU adds in one fixed order.
//
// libnccl is opened at run time (dlopen "libnccl.so.2"), so programs built
// with it still start where it is absent; --gpus then says what is missing.
// Built only with CUDA and nccl.h (PERRON_NCCL); otherwise it throws.
#pragma once

#include <vector>

#include "solvers/dist/pagerank_dist.hpp"
#include "solvers/pagerank.hpp"

namespace perron::dist {

bool nccl_built();

// gpus >= 1 and at most the devices present (cuda_error otherwise); the
// options as pagerank_cpu reads them (alpha, tol, max_iter, personalization,
// initial, progress), plus check_interval: the host looks at the device's
// residual every that many iterations (progress then reports each of them);
// the sums and the stop test run on the GPUs, and iterations queued past
// convergence change nothing. The result's ranks are those of one GPU's
// solve up to the order of floating-point sums; its solve_seconds are the
// loop's and the download's (the set-up before them excluded).
//
// stats (--bench-dist), when not null: one entry per GPU, CUDA-event times
// of each of the first 1000 iterations (compute: pull, update and the sums;
// communication: the exchange of r and the partials' all-gather, waiting for the other GPUs included;
// no wait figure of its own) and the bytes each GPU sends and receives per
// iteration.
template <class T>
pagerank_result pagerank_nccl(const pagerank_graph<T>& g, const pagerank_options& opt, int gpus,
                              std::vector<iteration_stats>* stats = nullptr);

}  // namespace perron::dist
