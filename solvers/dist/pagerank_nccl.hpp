// PageRank on N GPUs of one process through NCCL (pagerank --gpus N): GPU d
// owns the rows of P^T of a block-aligned vertex range of about equal cost, a
// row counting as --row-cost links (dist::balanced_ranges), runs the pull over them
// (an SpMV plan of the kernels layer: --kernel, or auto's trial on its rows,
// in a conditional graph node that skips it once the loop has stopped) and
// its update, and each iteration ends with the exchange of r (every GPU
// broadcasts its own rows, all in one NCCL group: an all-gather of unequal
// pieces, r kept whole in the graph's vertex order on every GPU) and an
// ncclAllGather of the per-4096-vertex partial sums (residual, dangling mass),
// which every GPU adds in one fixed order. Chunked (--exchange-chunks), each
// GPU's rows are cut into pieces of equal cost and the exchange of piece c
// runs on a stream of its own beside the pull and update of piece c + 1.
// The pull reads one buffer of r while the update writes the other.
//
// libnccl is opened at run time (dlopen "libnccl.so.2"), so programs built
// with it still start where it is absent; --gpus then says what is missing.
// Built only with CUDA and nccl.h (PERRON_NCCL); otherwise it throws.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/formats.hpp"
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
//
// How the rows are cut (invalid_argument when out of range).
struct nccl_options {
  // --exchange-chunks: row chunks per GPU, 1 to max_exchange_chunks, or 0 for exchange_chunks()' choice.
  int chunks = 0;
  // --row-cost: what a row weighs in links when the GPUs' ranges and their
  // chunks are cut at equal cost (links + row_cost x rows), >= 0. On 4 H100s
  // with the exchange chunked, rmat:26 and rmat:27 ran fastest at 0.5-1 of
  // {0.5, 1, 2} (docs/PERFORMANCE.md, session 22).
  double row_cost = 1;
  // --exchange: all (every GPU's rows broadcast; chunked), halo (each GPU
  // receives only the entries of r its rows read, ncclSend/ncclRecv after
  // the whole pull: one chunk), or automatic: halo where it moves at most
  // 1 / halo_share(true) of the broadcast's values (solvers/dist/pagerank_dist.hpp).
  // A graph in pieces (past 2^31 links) is always broadcast.
  exchange_kind exchange = exchange_kind::automatic;
};
// What the solve chose, for the summary: chunks a GPU, and whether r went by
// halo exchange, with the values it moved and a broadcast's ((P - 1) n).
struct nccl_choice {
  int chunks = 1;
  bool halo = false;
  std::uint64_t halo_values = 0, all_values = 0;
};
template <class T>
pagerank_result pagerank_nccl(const pagerank_graph<T>& g, const pagerank_options& opt, int gpus,
                              std::vector<iteration_stats>* stats = nullptr, const nccl_options& how = {},
                              nccl_choice* chosen = nullptr);

// The same solve from P^T's pattern in pieces (io::generate_transpose_pieces:
// a generated graph past 2^31 links, which no one CSR holds), unweighted:
// P^T(i, j) = 1 / out_degree[j]. The pieces are the cut nccl_cut() gave,
// gpus x chunks of them in order (chunk c of GPU d is piece d * chunks + c);
// each piece's arrays are moved into its GPU's plan as it is set up.
template <class T>
pagerank_result pagerank_nccl(csr_pieces&& at, const std::vector<std::uint32_t>& out_degree,
                              const pagerank_options& opt, int gpus, int chunks,
                              std::vector<iteration_stats>* stats = nullptr);

// The rows of every GPU and their chunks, cut before any row is built:
// block_links[b] = the links (or their estimate) into rows 4096 b .. of an
// n-vertex graph; the GPUs' ranges at equal links + row_cost x rows, each
// range's chunks likewise (the last at last_chunk_weight of the others' cost);
// gpus x chunks + 1 boundaries (solvers/dist/ranges.cpp).
// Whole graphs are cut the same way (their links counted from P^T).
std::vector<index_t> nccl_cut(const std::vector<std::uint64_t>& block_links, index_t n, int gpus, int chunks,
                              double row_cost);

// Piece k of `at` as rows of P^T (values 1 / out_degree[column] in T, as
// make_pagerank_graph computes them), its arrays moved out of `at`.
template <class T>
csr_matrix<T> pt_rows(csr_pieces& at, std::size_t k, const std::vector<std::uint32_t>& out_degree);

// The automatic chunk count (solvers/dist/ranges.cpp): 1 on one GPU, else
// one chunk per 32 MB of r each GPU receives per iteration (value_bytes per
// vertex), 1 to max_exchange_chunks.
inline constexpr int max_exchange_chunks = 8;
int exchange_chunks(index_t vertices, int gpus, std::size_t value_bytes);

// A GPU's last chunk is cut at this share of each other chunk's cost. The
// exchange of chunk c runs beside the pull of chunk c + 1, so the last
// chunk's exchange is the one each step waits for: a smaller last chunk
// shortens that wait. On 4 H200s (session 24), rmat:26 float, 6 chunks: 1 ->
// 3.275 ms a step, 0.5 -> 3.201, 0.25 -> 3.250 (its pull too short to hide
// the exchange before it); rmat:27, 8 chunks: 6.585 -> 6.438 ms at 0.25.
inline constexpr double last_chunk_weight = 0.5;

// The most links one of `chunks` chunks of a GPU's `links` holds, by
// last_chunk_weight (an even cut; the real one moves by the blocks' sizes).
std::uint64_t largest_chunk(std::uint64_t links, int chunks);

// The automatic chunk count of a generated graph built in pieces (past 2^31
// links): `chunks` (exchange_chunks()' count) raised until a GPU's
// links_per_gpu, in chunks, keep each chunk under 2^31 links (one CSR of
// 32-bit offsets, a tenth to spare for an uneven cut), then until fits(k)
// (a GPU's share with k chunks fits its memory: the converted copy of the
// largest chunk shrinks as k grows); at most max_exchange_chunks. 0 when no
// count keeps the chunks under 2^31 links (more GPUs needed).
int piece_chunks(int chunks, std::uint64_t links_per_gpu, const std::function<bool(int)>& fits);

// The GPU memory one GPU's share takes (solvers/dist/ranges.cpp), on the high
// side, beyond its CUDA context: its rows of P^T, (4 + value_bytes) a link,
// plus one converted copy of its largest chunk (auto's trial, or the kernel's
// format); per row the row pointer, y, v (double) and the dangling flag; r
// whole twice (n x value_bytes each); the partial pairs of every GPU, the
// residual history; and 768 MB for NCCL's buffers, cuSPARSE's workspace and
// the trial's temporaries. Checked against each GPU's free memory (and
// PERRON_GPU_MEMORY_LIMIT) before anything is allocated. On 4 H100s the
// fullest GPU's peak (nvidia-smi, its ~0.55 GB context included) was 4.44 GB
// on rmat:26 (model 4.09) and 7.55 GB on rmat:27 (model 7.22; session 22).
double nccl_gpu_bytes(index_t vertices, index_t rows, std::uint64_t links, std::uint64_t largest_chunk_links,
                      int gpus, std::size_t value_bytes, int max_iter);

}  // namespace perron::dist
