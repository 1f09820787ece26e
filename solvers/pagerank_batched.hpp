// Personalized PageRank for a block of s sources at once. Column c of the
// n x s block R has its own teleport distribution v_c and iterates
//
//     R_c <- alpha P^T R_c + (alpha * sum_{j dangling} R_c(j) + (1 - alpha)) v_c
//
// (the update of solvers/pagerank.hpp, one column per source). A step is one
// SpMM over the shared P^T (kernels/spmm.hpp): the graph is read once for all
// active columns instead of once per source. Each column stops on its own when
// ||R_c,k+1 - R_c,k||_1 < tol; its iterate at that step is the result. A
// converged column is copied out at once and dropped from the block at the next
// compaction (every compact_every steps at most), which gathers the live
// columns into a narrower block: from then on it costs neither SpMM nor update work.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "../core/formats.hpp"
#include "../core/memory.hpp"
#include "pagerank.hpp"

namespace perron {

// One source set: (vertex, weight) pairs, vertices 0-based; weights finite,
// non-negative, not all zero, normalized to sum 1 by the solver (repeated
// vertices add up). The same type io::read_sources_file returns.
using source_set = std::vector<std::pair<index_t, double>>;

struct pagerank_batched_options {
  // alpha, tol, max_iter, device, kernel (cpu forces the CPU) as for a single
  // solve; personalization and initial must stay empty (the sources replace
  // them; every column starts from its own v_c). progress: the CPU solve
  // calls it after every step of a block with the block's step and the
  // largest residual of the block's columns (a callback may throw to stop
  // the solve); the GPU solve does not call it. base.interrupt: the CPU solve
  // calls it after every step, the GPU solve between its batches of steps
  // (the Python module's Ctrl-C).
  pagerank_options base;
  // At most this many steps between compactions of the block (>= 1); a large
  // value keeps converged columns in the block until the end. The GPU also
  // looks at the columns' stop flags every min(compact_every, 8) steps.
  int compact_every = 4;
  // Columns per block (1 to 256: the SpMM's widest); more sources are solved
  // in consecutive blocks. 0: automatic, on the GPU 64 (fewer when the block's
  // two n x k buffers would pass 4 GB; 64 was the fastest width measured on
  // cnr-2000 and rmat:20 once the update ran at bandwidth, docs/PERFORMANCE.md),
  // on the CPU 128.
  int block_columns = 0;
  // GPU: the step. fused: one kernel a step, the SpMM and the update fused,
  // over the block in column chunks; two_kernels: the SpMM over the whole
  // block into Y, then the update kernel; automatic (the default): the first
  // solve of a solver object times two steps of each on a block of its width
  // and keeps the faster (both read the same layout at one chunk). Steps on
  // the H100 at 64 columns (docs/PERFORMANCE.md, session 18): the fused step
  // is 14-33% faster where gathers stay near (cnr-2000, a 2D grid, a hub,
  // email-Eu-core), within 3% on power-law, web-like and small graphs, and
  // 7-20% slower on R-MAT, a FEM matrix and graphs of uniform random links
  // (its gathers wait at 75% occupancy against the SpMM's 100%); the trial
  // picked the faster on each of 11 graphs. Where the two are within noise,
  // two runs may pick differently, and their ranks then differ at rounding.
  enum class step_kind { automatic, two_kernels, fused };
  step_kind step = step_kind::automatic;
  // Columns per chunk (a power of two: 1 to 32 on the CPU; on the GPU up to 32
  // 16-byte loads a row, 128 floats or 64 doubles): R is stored chunk-major, each
  // chunk an n x C row-major block of its own, so one pass over P^T for it
  // gathers from n C values. 0: automatic, on the GPU the widest (one chunk for
  // blocks up to 128 floats or 64 doubles: 64 columns beat 32 on every graph
  // measured once the step's sums left registers, session 18), 64 bytes a row
  // on the CPU (docs/PERFORMANCE.md).
  int chunk_columns = 0;
  // CPU: the instruction set of the step's loops, "" (automatic: the widest
  // the CPU runs of avx512, avx2, default), "default" (the portable build's
  // SSE2 on x86-64), "avx2" or "avx512". The same bits from every variant
  // (no FMA contraction in ISO C++ mode, no reordering): only the speed
  // changes (docs/PERFORMANCE.md).
  std::string cpu_isa;

  void validate() const;  // messages name the flags (--alpha, --sources, ...)
  // validate() plus every set against a graph of n vertices ("--sources: set 3: ...").
  void validate(index_t n, const std::vector<source_set>& sources) const;
};

// Not zeroed: default_init_allocator (core/memory.hpp); every rank is written by the solver.
using rank_block = uninitialized_vector<double>;

struct pagerank_batched_result {
  index_t vertices = 0;
  std::size_t sources = 0;
  // rank[c * vertices + i]: rank of vertex i for source c (column-major n x s).
  rank_block rank;
  std::vector<int> iterations;  // per source
  std::vector<double> residual;
  std::vector<std::uint8_t> converged;
  bool on_gpu = false;
  // Sum over steps of the block width: the column-steps the solve paid for
  // (without compaction, steps x s).
  std::uint64_t column_steps = 0;
  int compactions = 0;
  // Wall time from the sources to every rank in `rank` (as a single solve's
  // solve_seconds: the setup of a reused solver object excluded).
  double solve_seconds = 0;
  double device_seconds = 0;  // GPU: CUDA-event time from the first kernel to the last
  // GPU: the host's share of solve_seconds spent blocked on the device (its
  // flags and the columns' copies) and widening columns to double; the rest
  // is launching, bookkeeping and the start (the result's allocation).
  double wait_seconds = 0, widen_seconds = 0;
  // GPU: CUDA-event time of the steps' kernels alone (no copies, no host
  // gaps), and how long the thread that maps the result's pages ran.
  double step_seconds = 0, mapper_seconds = 0;
  // GPU: host time after each block's last step had run (copying out and
  // widening the columns that froze last, and the per-column outcome).
  double tail_seconds = 0;
  // GPU: CUDA-event time the device sat between a check and the next
  // batch's first step (the host's latency to read the flags and queue more).
  double gap_seconds = 0;
  int chunk_columns = 0;  // GPU: the fused step's chunk width (0: the two-kernel step)
  // GPU: which step ran and why ("fused, asked"; "two kernels: 0.35 ms a
  // step against 0.29 for the fused step, timed on 64 columns"), and the
  // host time of that trial when this solve ran it (the first automatic one).
  std::string step_choice;
  double trial_seconds = 0;
  // Why this device (pagerank_batched()'s decide_device; empty from the
  // solvers called directly).
  std::string device_choice;

  const double* column(std::size_t c) const { return rank.data() + c * static_cast<std::size_t>(vertices); }
  bool all_converged() const;
  // The mean count a set took, rounded up (0 without sets): what the device
  // model predicts the next batched solve of this graph with.
  int mean_iterations() const;
};

// ---- CPU (solvers/pagerank_batched.cpp; OpenMP, kernels' spmm) --------------
template <class T>
pagerank_batched_result pagerank_batched_cpu(const pagerank_graph<T>& g,
                                             const std::vector<source_set>& sources,
                                             const pagerank_batched_options& opt);

// ---- GPU (solvers/cuda/pagerank_batched.cu; spmm_plan + fused update) --------
// Owns P^T on the device (an spmm_plan on its own stream) and every buffer of
// a block up to `width` columns, built once and reused by every solve(), like
// pagerank_cuda: the setup stays out of solve()'s time.
template <class T>
class pagerank_batched_gpu {
 public:
  pagerank_batched_gpu(const pagerank_graph<T>& g, int width);
  // Sources in blocks of at most width columns (fewer when opt.block_columns says so).
  pagerank_batched_result solve(const std::vector<source_set>& sources, const pagerank_batched_options& opt);
  int width() const;

  struct impl;

 private:
  std::unique_ptr<impl, void (*)(impl*)> impl_{nullptr, nullptr};
};

// The automatic block width (opt.block_columns 0) for a graph of n vertices
// (the same for the fused step and the two-kernel one).
int pagerank_batched_gpu_width(index_t n, bool double_precision);
// The automatic chunk width of the fused step (opt.chunk_columns 0).
int pagerank_batched_gpu_chunk(index_t n, bool double_precision);

// The CPU step's instruction set for opt.cpu_isa ("" picks the widest the CPU
// runs): "avx512", "avx2" or "default". Throws invalid_argument for an
// unknown name or one this CPU (or build) cannot run.
std::string pagerank_batched_cpu_isa(const std::string& requested);

// One-shot: builds a pagerank_batched_gpu for min(sources, block width) columns and solves.
template <class T>
pagerank_batched_result pagerank_batched_cuda(const pagerank_graph<T>& g,
                                              const std::vector<source_set>& sources,
                                              const pagerank_batched_options& opt);

// opt.base.device / kernel decide as pagerank() does (decide_device, with the
// number of sets).
template <class T>
pagerank_batched_result pagerank_batched(const pagerank_graph<T>& g, const std::vector<source_set>& sources,
                                         const pagerank_batched_options& opt);

namespace detail {

// The personalization of the live columns of a block, by vertex: row i's
// entries are (slot, weight) for the columns whose v has vertex i (CSR).
struct teleport_rows {
  std::vector<index_t> row_ptr;
  std::vector<index_t> slot;
  std::vector<double> weight;
};
// A set's weights over their sum, in the set's order (a sum past double's
// range too: the weights are relative).
std::vector<double> relative_weights(const source_set& s);
// For the columns `live` (indices into sources), normalized; n vertices.
teleport_rows make_teleport_rows(const std::vector<source_set>& sources, const std::vector<std::size_t>& live,
                                 index_t n);
// The personalization of sources [begin, end) as a list over the vertices
// that carry some (sorted): vertex m's entries are ptr[m]..ptr[m+1], each a
// slot (source - begin) and its normalized weight. O(entries log entries),
// never O(n): the GPU builds it once per block.
struct teleport_list {
  std::vector<index_t> vertex, ptr, slot;
  std::vector<double> weight;
};
teleport_list make_teleport_list(const std::vector<source_set>& sources, std::size_t begin, std::size_t end);
// dst[c][i] = src[c][i] (widened to double) for i < n, every column c in one
// parallel region (OpenMP): one barrier for a group of columns rather than one each.
template <class T>
void widen_columns(std::size_t n, const std::vector<std::pair<const T*, double*>>& columns);
// The normalized dense v of one source (for the single-solve reference).
std::vector<double> dense_personalization(const source_set& s, index_t n);

// What a backend does to a block of k live columns, each starting (like a
// single solve without --initial) from the uniform vector.
class batched_backend {
 public:
  virtual ~batched_backend() = default;
  // A fresh block: R = 1/n in every column, v from `v` (slots 0..k).
  virtual void begin(const teleport_rows& v, index_t k) = 0;
  // One step of every column; l1[slot] = ||R_new - R||_1 of that column.
  virtual void step(std::vector<double>& l1) = 0;
  // The column of `slot` as it is now, into out[0..n) (double).
  virtual void extract(index_t slot, double* out) = 0;
  // Keeps the slots `keep` (in order; their iterates and dangling masses)
  // as the new block, whose v is `v`.
  virtual void compact(const std::vector<index_t>& keep, const teleport_rows& v) = 0;
};

// The host memory of a solve of `sets` source sets on n vertices (the result,
// a double per vertex and set, and a block's iterates beside it), checked
// before anything is allocated, by every backend: one error with the bytes
// needed (10^5 sets on cnr-2000 ended in a bare "out of memory").
void check_result_memory(index_t n, std::size_t sets);

// The loop shared by the backends: blocks of opt.block_columns sources,
// per-column stopping, compaction. Fills everything of `res` but on_gpu.
void run_batched(batched_backend& b, index_t n, const std::vector<source_set>& sources,
                 const pagerank_batched_options& opt, pagerank_batched_result& res);

}  // namespace detail

}  // namespace perron
