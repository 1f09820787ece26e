// PageRank by power iteration, on the CPU (OpenMP) and on the GPU.
//
// A graph is an n x n matrix A whose entry (i, j) is the arc i -> j (row =
// source). With out-weights d_j = sum_i A(j, i) (the out-degree when
// unweighted), P = D^-1 A is row-stochastic on the rows that have out-links;
// the rows with none are the dangling vertices. Each step is a pull SpMV on
// the CSR of P^T, built once:
//
//     r_{k+1} = alpha * P^T r_k + (alpha * sum_{j dangling} r_k(j) + (1 - alpha)) * v
//
// with v the uniform or a personalization distribution: dangling vertices and
// the teleport both spread their mass by v. The iteration stops when
// ||r_{k+1} - r_k||_1 < tol (not scaled by n) or after max_iter steps;
// not converging is a result, not an error.
//
// Values are float or double (T); every reduction (residual, dangling mass)
// accumulates in double either way.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/device.hpp"
#include "../core/formats.hpp"
#include "../core/memory.hpp"
#include "../core/registry.hpp"
#include "../core/vertex_naming.hpp"
#include "../kernels/reorder.hpp"
#include "../kernels/spmv.hpp"

namespace perron {

// The PageRank operator of one graph: built once, solved many times.
template <class T>
struct pagerank_graph {
  // CSR of P^T: row i lists the in-arcs j -> i with value A(j, i) / d_j.
  csr_matrix<T> pt;
  // dangling[j] != 0 iff j has no out-arc of positive weight.
  std::vector<std::uint8_t> dangling;
  index_t dangling_count = 0;
  // True when every stored P^T(i, j) is 1 / d_j with d_j the count of column
  // j (an unweighted graph; make_pagerank_graph sets it): the GPU solver may
  // then pull over the pattern alone (pagerank_pull::fused).
  bool pattern = false;

  index_t vertices() const { return pt.rows; }
  // Distinct arcs (self loops included; duplicates merged).
  std::size_t links() const { return pt.nnz(); }
};

// Builds the CSR of P^T from a graph's adjacency matrix through the conversion
// layer (COO -> CSR with transpose).
//  - unweighted: values are ignored and duplicate arcs count once;
//  - weighted: values are arc weights, duplicates summed; a negative, NaN or
//    infinite weight is an invalid_argument naming the arc.
// label: vertex names for messages (io::loaded_matrix::naming(); none = 1-based).
// on_gpu: the COO -> CSR sort runs on the GPU (kernels/gpu_convert.hpp;
// bit-identical to the host conversion), for a solve that will run there.
// Throws dimension_error for a non-square matrix, invalid_argument for 0 vertices.
template <class T>
pagerank_graph<T> make_pagerank_graph(const coo_matrix<double>& a, bool weighted,
                                      const vertex_naming& label = {}, bool on_gpu = false);

// Whether the builds below check that each row of the CSR of A^T lists its
// sources sorted and once (a pass over the columns, about 7% of the CPU
// build of rmat:20:10000000). `check` for arrays a caller was given;
// `sorted_unique` only for a CSR its caller made itself with a conversion
// that sorts and merges (to_csr or pattern_to_csr with transpose,
// transpose(), io::generate_graph_transpose): there the pass cannot fail.
enum class transpose_rows { check, sorted_unique };

// The same from the CSR of A^T (row i = target, its columns the sources: a
// CSC adjacency matrix as it is stored), without a conversion: its rows'
// columns must be sorted and unique (duplicates already merged), else an
// invalid_argument naming the first such vertex (one pass over the columns,
// beside validate()'s, unless rows says they are). Weights as above.
template <class T>
pagerank_graph<T> pagerank_graph_from_transpose(csr_matrix<double> at, bool weighted,
                                                const vertex_naming& label = {},
                                                transpose_rows rows = transpose_rows::check);

// An unweighted graph given as the pattern of the CSR of A^T (row i = target,
// its columns the sources, sorted and distinct, checked as above:
// io::generate_graph_transpose), its values ignored: P^T is written over them
// in place, in parallel (the out-degrees counted by atomic integer
// increments, so the same for every thread count). The same graph, bit for bit, as make_pagerank_graph of its
// arcs, without a second copy of the links.
template <class T>
pagerank_graph<T> pagerank_graph_from_pattern(csr_matrix<T> at, const vertex_naming& label = {},
                                              transpose_rows rows = transpose_rows::check);

// The same PageRank problem in another vertex order (kernels/reorder.hpp):
// P^T becomes Q P^T Q^T (each column keeps its 1 / d_j, so a pattern graph
// stays one) and the dangling mask moves along. Its ranks are the original
// ranks relabelled: to_old(rank, p) gives them back in the caller's ids
// (equal up to the rounding of the rows' sums, whose terms come in another order).
template <class T>
pagerank_graph<T> permuted(const pagerank_graph<T>& g, const permutation& p);

// How the GPU decides when to stop without the host waiting every iteration.
enum class pagerank_loop {
  automatic,    // graph_while where the SpMV captures into a conditional body, else check_every
  graph_while,  // one CUDA graph whose conditional WHILE node loops on the device: 1 host sync per solve
  check_every,  // batches of check_interval iterations, one host sync per batch; iterations after
                // convergence inside a batch leave r untouched, so the result is the exact iterate
  host,         // the CPU solver (reported by results only)
};
std::string_view name(pagerank_loop l);  // "auto", "graph-while", "check-every", "host"
// Accepts "auto", "graph-while", "check-every"; throws invalid_argument otherwise.
pagerank_loop parse_pagerank_loop(std::string_view s);

// --accelerate: fewer iterations by extrapolating from the iterates
// (solvers/pagerank_accel.hpp gives the math). Only plain power steps decide
// convergence, so the returned vector meets --tol exactly as without it.
enum class pagerank_accel {
  none,       // plain power iteration
  quadratic,  // quadratic extrapolation (Kamvar et al. 2003) every accelerate_every steps
  aitken,     // Aitken delta^2, per vertex, every accelerate_every steps
  automatic,  // quadratic where it pays: gated by the residual's rate, stopped when idle
              // (solvers/pagerank_accel.hpp), on the CPU and every GPU pull
  rre,        // reduced rank extrapolation over the run's last 8 differences, behind auto's
              // gate and idle stop, on the CPU and every GPU pull
};
std::string_view name(pagerank_accel a);                  // "none", "quadratic", "aitken", "auto", "rre"
pagerank_accel parse_pagerank_accel(std::string_view s);  // throws invalid_argument
// A mode named by the user: paths that cannot extrapolate (--sources, mpirun,
// --gpus; aitken on the persistent pull) refuse it, and run auto as plain steps.
constexpr bool extrapolation_named(pagerank_accel a) {
  return a == pagerank_accel::quadratic || a == pagerank_accel::aitken || a == pagerank_accel::rre;
}

// Where pagerank() runs.
enum class pagerank_device { automatic, cpu, cuda };
std::string_view name(pagerank_device d);                   // "auto", "cpu", "cuda"
pagerank_device parse_pagerank_device(std::string_view s);  // throws invalid_argument

// The pulls over the pattern of P^T alone (fused, persistent): unweighted graphs only.
inline bool pattern_pull(pagerank_pull p) {
  return p == pagerank_pull::fused || p == pagerank_pull::persistent;
}

// What `automatic` reads of a graph to choose its pull: cheap facts, one
// pass over the row pointer of P^T.
struct pull_facts {
  bool pattern = false;         // unweighted: the pattern pulls may run
  std::size_t links = 0;        // nnz of P^T
  index_t max_in_degree = 0;    // the longest row of P^T
  std::size_t value_bytes = 4;  // sizeof(T): 4 float, 8 double
  index_t vertices = 0;
  // The fraction of links (i, j) with |i - j| < locality_window in the
  // graph's own order, over up to local_sample_rows rows evenly spaced.
  double local_links = 0;
  // The same sampled links' fraction in the fused pull's order
  // (fused_order_places), where that order is the other
  // candidate: measured only when local_links reaches the lower of the local
  // thresholds on local_min_vertices or more (else 0).
  double local_links_fused = 0;
  // The same sampled links' fraction in the graph's own order at mid range:
  // local_near_window <= |i - j| < local_mid_window (the even-rows clause,
  // below). Measured with local_links.
  double local_links_mid = 0;
  // ... and near: |i - j| < local_near_window (a warp's 32 rows gathering
  // from a few KB of x in the own order: rings, chains, blocks of up to a
  // few thousand ids). Measured with local_links.
  double local_links_near = 0;
  // The solver's device L2 in bytes (pagerank_cuda::facts sets it; 0 unknown).
  std::size_t l2_bytes = 0;
  // The shared memory of its SMs, a block each (cuda::grid_shared_memory_bytes;
  // 0 unknown): what the persistent pull's resident mode may hold.
  std::size_t grid_shared_bytes = 0;
};
inline constexpr index_t local_sample_rows = 1 << 16;
template <class T>
pull_facts pull_facts_of(const pagerank_graph<T>& g);
// pull_facts::local_links alone (the persistent pull's order trial asks it
// where no facts were taken: a named pull).
template <class T>
double own_order_local_links(const pagerank_graph<T>& g);

// The vertex order of the pattern pulls (fused and persistent; relabelled on
// the GPU, solvers/cuda/pagerank_fused.cu): two parts, each by decreasing
// in-degree (row length of P^T), ties by id. The front part holds the
// sources, whose x rows gather (a dangling vertex's is never read), and every
// row of more than fused_front_row_links links (several virtual rows; a web
// crawl's dangling hubs keep the global order: cnr-2000's persistent step was
// 25% slower with them behind); the other dangling vertices come last. The
// gathered entries of x then sit together: on dangling:100000:1000000:0.9
// (90% dangling) the persistent step took 20% less, on
// dangling:1000000:10000000:0.9 the fused step 22% less (docs/PERFORMANCE.md,
// session 40).
inline constexpr index_t fused_front_row_links = 64;
constexpr bool fused_front_part(bool dangling, index_t in_degree) {
  return !dangling || in_degree > fused_front_row_links;
}
// The persistent pull also times a second order where it may win
// (persistent_pull::order_trial_pays, solvers/cuda/pagerank_persistent.cuh):
// the graph's own, with rows by decreasing in-degree (ties by id) only within
// each run of persistent_own_order_window consecutive ids.
inline constexpr index_t persistent_own_order_window = 32;
// Where it is timed (with a resident grid in the in-degree order): on graphs
// of at most persistent_own_order_trial_links links (the .cuh says why; the
// losses measured past it, cnr-2000, rmat:16:1000000 and mostly dangling
// graphs, were on skewed graphs or own orders not local), and to
// own_order_local_trial_links where the in-degrees are even (the longest row
// at most persistent_even_max_to_mean x the mean) and at least
// own_order_local_fraction of the links join ids less than locality_window
// apart (own_order_local_links): there the own order took 0.72-0.82x the
// in-degree order's resident step on a geometric graph of 1.8 M links
// (rgg-200000-8, 7.1 -> 5.8 us in float, 8.8 -> 6.7 in double), 0.88-0.95x on
// rings of 6-10 links rewired at 0.05-0.15 (ws:300000:6:0.1,
// ws:600000:7:0.15, ws:400000:10:0.05), tied on grids and a 27-point mesh and
// lost 1.02-1.55x on block models, where the trial kept the in-degree order;
// skewed local graphs lost (cnr-2000 10.6 -> 28 us, web:262144:3000000 19.3 ->
// 20.6) and paid 12-30 ms more of a first run's trial (H200, session 78,
// docs/PERFORMANCE.md "3D meshes, shuffled ids ...").
inline constexpr std::size_t persistent_own_order_trial_links = std::size_t{1} << 20;
inline constexpr std::size_t own_order_local_trial_links = std::size_t{1} << 23;
inline constexpr double own_order_local_fraction = 0.5;
// Whether a graph of these facts is in that range (local_links and
// max_in_degree are asked only past persistent_own_order_trial_links links).
bool own_order_trial_size(std::size_t links, index_t vertices, double local_links, index_t max_in_degree);
// The fused pull times an own order too (by in-degree within runs of
// fused_own_order_window ids, below) beside the in-degree order on graphs of
// more than fused_own_order_min_links links whose own order is local and
// whose rows are even, as above, at any size: geometric graphs of 6.6-10.7 M
// links took 0.71-0.91x the in-degree order's step, a ring of 16 rewired at
// 0.3 0.87-0.94x; meshes, grids and rings of few links tied (their in-degree
// order keeps the ids' order); the own order lost 1.02-1.39x where it is not
// local or the rows are skewed, which the conditions leave out (H200,
// docs/PERFORMANCE.md, "The fused pull's own order past 2^20 links ...",
// session 79).
inline constexpr std::size_t fused_own_order_min_links = std::size_t{1} << 20;
// Its runs are fused_own_order_window ids (the persistent pull's are
// persistent_own_order_window). A run's rows sorted by in-degree make its
// slices of 32 rows: in runs of 32 ids a slice is a run, and on rows of
// Poisson-like lengths (block models, rewired rings, geometric graphs of
// 8-20 links a vertex) 32 x the longest row stores 1.2-1.8x the links; in
// runs of 1024, 1.00-1.04x, while a block's run of consecutive slices
// (fused_args::contiguous) keeps the gathers local. On 15 such graphs of
// 6.6-60 M links (H200, float, session 80, docs/PERFORMANCE.md "The fused
// pull's own order in runs of 1024 ids ...") runs of 1024 took 0.68-1.01x the
// step of runs of 32 (sbm:4000000:40000000:400:0.1 162 -> 113 us), and
// were within 8% of the best of 32, 128, 256, 512 and 1024 on every one
// (geometric mean 1.009; 512: 1.024, 256: 1.046, 32: 1.237).
inline constexpr index_t fused_own_order_window = 1024;
bool fused_own_order_trial(std::size_t links, index_t vertices, double local_links, index_t max_in_degree);
// Where the rows are skewed (the longest past fused_own_order_skewed_max_to_mean
// x the mean) and the own order local, from fused_own_order_skewed_min_links
// links the fused pull is built in its own order (runs of
// fused_own_order_window ids) with no trial of the in-degree order: there
// the own order took 0.45-0.92x the in-degree order's step on all 12 web
// graphs measured (33-237 M links, the generator's LOCAL 0.55-0.95;
// web:16777216:268435456 3324 -> 1481 us in double, 2031 -> 1227 in float),
// where a trial of both orders took 70-450 ms of a first run's set-up (a
// second layout and its trials) for a solve of 10-46 ms. Below it they tied at
// 15-24 M links (0.92-1.03x) and the own order lost on smaller graphs
// (cnr-2000 1.0-1.3x, web:1048576:10000000 1.04-1.6x) (H200, session 81,
// docs/PERFORMANCE.md "Skewed local graphs: the fused pull in its own order ...").
// The webs' longest rows were 19-540000x the mean; at 5.9x
// (web:3000000:40000000:0.7,30, x 0.38 of L2 in double) the orders tied.
// Rows of Poisson-like lengths pass 4x the mean by chance on graphs of few
// links a vertex, and a Poisson tail passes 8x only at about 2 links a
// vertex or fewer: such rows are asked about x instead (below). Below 2^25
// links, skewed rows of few links a vertex are asked the same (below).
inline constexpr std::size_t fused_own_order_skewed_min_links = std::size_t{1} << 25;
inline constexpr double fused_own_order_skewed_max_to_mean = 8.0;
// Between the two bounds (the longest row past persistent_even_max_to_mean
// but at most fused_own_order_skewed_max_to_mean x the mean: Poisson-like
// tails at 2-5 links a vertex, webs of flat popularity) the own order
// comes first too, from fused_own_order_min_links links, where x fills more
// than fused_own_order_tail_l2_fraction of L2: there the in-degree order's
// scattered gathers miss and the own order's, within blocks or sites, hit.
// Block models and banded graphs of 2-5 links a vertex (sbm:N:M:K:0.1-0.2,
// band-N-K-W; 30-80 M links, x 0.76-2.5 of L2 in double) took 0.64-0.87x the
// in-degree order's step and 0.80-1.00x the SpMV pull's in double, where the
// model had given them the SpMV pull or the in-degree order (1.04-1.49x the
// best); webs of flat popularity (web:N:M:0.8-0.85,30-45, the longest row
// 4.6-5.7x the mean, x 0.76-1.1 of L2) 0.85-1.00x the in-degree order's and
// 0.90-0.96x the SpMV pull's; with x at 0.25-0.5 of L2 the webs' own order
// took 1.02-1.06x the in-degree order's (H200, medians of 1-3 runs, session
// 82, docs/PERFORMANCE.md "Rows of Poisson-like lengths ...").
inline constexpr double fused_own_order_tail_l2_fraction = 0.55;
// On such rows of fewer than fused_own_order_short_mean links a vertex, and
// on skewed ones (past 8x the mean) below fused_own_order_skewed_min_links
// links, from fused_own_order_short_l2_fraction of L2: where a row holds few links, its
// gathers decide the step, and past a fifth of L2 the in-degree order's
// scattered ones miss where the own order's, within blocks or sites, hit.
// Measured by device time a step (CUDA events; the solve's wait, which
// session 82 read, moved 10-25% between processes on the same layout while
// device time held within 1%): block models, webs of flat popularity and
// rewired rings of 2-4.5 links a vertex with x past 0.2 of L2 (4-18 M
// links), own / in-degree 0.89-0.99 on all 15 in double and on 5 of 6 in
// float (1.03 on sbm:4000000:12000000:40000:0.2), where auto's double pick
// (the fused pull in the in-degree order) had run 1.00-1.12x the best (past
// 1.05 on four); below 0.2 of L2 0.96-1.04 (the own order ahead on 7 of 11);
// webs of 6-13 links a vertex at 0.1-0.51 of L2 0.99-1.05 (the in-degree
// order ahead on 9 of 10). Held out after: five more in double, auto within
// 1.03 of the best. Webs of 3 links a vertex, 6-20 M links, x 0.25-0.76 of L2,
// their longest rows 9-526x the mean: own / in-degree 0.79-0.98 on all six
// in double (auto 1.04-1.26x the best before: web:6000000:20000000:0.85,6
// 207 -> 164 us) and 0.93-0.97 on four in float; held out after, seven
// webs of 1.9-4.7 links a vertex (8-30 M links, 7-8573x), auto within 1.006
// of the best in double (H200, session 83, docs/PERFORMANCE.md "Few links a
// vertex ...").
inline constexpr double fused_own_order_short_mean = 5.0;
inline constexpr double fused_own_order_short_l2_fraction = 0.2;
// x_l2: x_l2_fraction, x's bytes over the device's L2.
bool fused_own_order_first(std::size_t links, index_t vertices, double local_links, index_t max_in_degree,
                           double x_l2);
// x's bytes (vertices x the value's size) over l2_bytes; where L2 is unknown
// (0), past every bound.
inline double x_l2_fraction(index_t vertices, std::size_t value_bytes, std::size_t l2_bytes) {
  return l2_bytes > 0 ? double(vertices) * double(value_bytes) / double(l2_bytes) : HUGE_VAL;
}
// place[v] = vertex v's position in that order, on the host (the locality
// that pull_facts_of measures in it).
template <class T>
std::vector<index_t> fused_order_places(const pagerank_graph<T>& g);
// The most entries of one row of `a` (P^T's: the largest in-degree), in parallel.
template <class T>
index_t longest_row(const csr_matrix<T>& a);
// The dangling mask as the GPU step reads it: vertex j is bit j & 31 of word
// j >> 5 (n/8 bytes a step), the words built in parallel (serially, 4 ms of
// a 4 * 10^6-vertex graph's set-up).
uninitialized_vector<std::uint32_t> dangling_bits(const std::vector<std::uint8_t>& dangling);

// The rule of `automatic`, fitted on the corpus of docs/PERFORMANCE.md
// (65 graphs, shared and generated, 10^1-10^8 links, float and double, every
// pull measured on every graph; H200, session 36) and checked on 21 generated
// graphs it was not fitted on (the same section). In order:
//  - the persistent pull (the whole solve in one kernel) on small and middle
//    graphs: see persistent_min_links below;
//  - when every row is short (max in-degree below short_rows_in_degree:
//    grids, chains, meshes, circuits, random graphs of few links a vertex):
//    on chains (no row of more than chain_in_degree link: each lane of a
//    slice carries one link, the row's work is all there is) the SpMV pull
//    (0.88-0.98x the fused pull's time at 10^6-10^7 links on the H100,
//    0.80-0.81x on an H200, session 23; 0.54-0.98x the persistent pull's
//    from 1.9 x 10^5 links, session 36); elsewhere the fused pull streams 4
//    bytes per link where the SpMV pull streams 4 + sizeof(T), which wins in
//    double (but for local orders of few links a vertex: see
//    double_short_rows_spmv_mean); in float the fused pull's per-row work
//    (segmented scan, row update) costs about what it saves: the SpMV pull
//    where rows hold fewer than float_short_rows_fused_mean links on average
//    where x fills at most float_short_rows_spmv_l2_fraction of L2, and on
//    grids through the local-order clause below, else the fused pull;
//  - otherwise the fused pull: fewer bytes per link, and its in-degree order
//    keeps the gathers local (0.43-0.90x the SpMV pull's time per step on
//    every such graph), but for the star and local-order clauses below.
// Where the model is unsure, the GPU solver may time the candidates instead
// (solvers/pagerank_trial.hpp).
inline constexpr index_t short_rows_in_degree = 15;
inline constexpr index_t chain_in_degree = 1;
// Float, short rows past the persistent range (H200, session 60,
// docs/PERFORMANCE.md "Short rows in float"): the SpMV pull took 0.86-1.00x
// the fused pull's time a step on random graphs of 1 link a vertex
// (er:8000000:8000000, dangling:8000000:8000000:0.9), 0.99-1.09x at 1.5-1.8
// (er:4000000:6000000, er:5000000:9000000, dangling:5000000:7500000:0.8) and
// 1.11-1.18x at 2-2.5 (er:3000000:7000000, er:4000000:10000000,
// er:6000000:14000000, dangling:6000000:12000000:0.8), where it had been the
// rule for every short-row graph in float; on grids (4 links a vertex, their
// own order local) 0.73-0.82x from 10 M links.
inline constexpr double float_short_rows_fused_mean = 1.25;
// ... and only where x fills at most float_short_rows_spmv_l2_fraction of L2
// (0: unknown, taken as within): past it the fused pull's in-degree order
// keeps the gathers that miss fewer (H200, session 69, docs/PERFORMANCE.md
// "ELL's narrow rows ..."): the SpMV pull's time over the fused pull's on
// random graphs of 1-1.23 links a vertex past the trial's band rose with x,
// 0.93-0.97x at 0.41-0.51 of L2 (er:6500000:8000000, er:8000000:8000000,
// dangling:8000000:8000000:0.9), 0.98-1.03x at 0.57-0.64 (er:9000000:9000000,
// dangling:9000000:9000000:0.5, er:10000000:10000000), 1.04-1.49x from 0.76
// (er:12000000:12000000 1.10, dangling:15000000:15000000:0.5 1.28,
// er:16000000:16000000 1.15, dangling:20000000:20000000:0.9 1.49,
// er:20000000:24000000 1.12, er:25000000:25000000 1.08,
// er:32000000:32000000 1.04). The bound sits in the ties' range.
inline constexpr double float_short_rows_spmv_l2_fraction = 0.6;
// Double, short rows, where a vertex holds fewer than
// double_short_rows_spmv_mean links and double_short_rows_near_fraction of
// them or more join ids less than local_near_window apart (rings and
// chains rewired by up to half, blocks of up to 1500-2000 consecutive ids,
// in their own order): the SpMV pull. There a warp's 32 consecutive rows
// gather from a few KB of x (4 KB of doubles for 512 ids: L1), where the
// fused pull's slices, sorted by in-degree within runs of ids (either
// order), spread a warp's lanes over its run; and a row of one or two links
// is the fused pull's whole work (its row update and slice bookkeeping, as
// on chains). Measured by device time a step (H200, sessions 84-85,
// docs/PERFORMANCE.md "Double, short rows of near links ..." and "Blocks of
// a thousand ids ..."): the SpMV pull took 0.74-0.95x the fused pull's best
// order on rings of 1 link (ws:N:1:P, 4-12 M vertices, P 0.02-0.65),
// 0.93-1.02x on rings of 2 rewired by up to half (ws:N:2:P, P 0.05-0.45),
// 0.89-0.99x on blocks of 60-1500 ids (sbm:N:M:K:MU, MU 0.05-0.25: 48-90%
// of links within 512 ids), where the fused pull had been the model's pick
// (1.00-1.36x the best). Where the links spread wider the fused pull led
// or tied: blocks of 10^4 ids (8-9% within 512; 0.87-0.95x), rings of 2
// rewired by 60-70% (30-40%; 0.95-0.96x), blocks of 2000 ids (40%; 1.00);
// webs of flat popularity (43-48%) sit at the bound, the two within 4.5%
// either way. From 3 links a vertex the fused pull led on rings too
// (0.93-0.96x). Over 49 such graphs of under 2.25 links, by this rule the
// pick within 5% of the best on 47 (by the first rule, 45% within 128 ids,
// 40; by the fused pull everywhere, 26); left ws:8000000:1:0.65 (35% within
// 512, the fused pick 1.057) and ws:16000000:2:0.3 (x at 2x L2, the SpMV
// pick 1.050). The bounds sit in the gaps 40-45% of links within 512 ids
// and 2-2.5 links a vertex (a ring's 2 links merge to 1.99999). Fitted on
// those 49 (the first rule's held-out set of 14 among them). Held out after
// (session 86, "Held out: ..."): 19 graphs (blocks of 1000-2500 ids, rings
// of 1-2 links rewired by 50-90%, flat webs, controls), 18 within 5%; left
// ws:9000000:2:0.5 (the SpMV pick 1.056: on rings of 2 links the SpMV
// pull's lead shrinks as x passes L2 and more links are random).
inline constexpr double double_short_rows_spmv_mean = 2.25;
inline constexpr double double_short_rows_near_fraction = 0.43;
// ... but for the fused pull where a vertex holds
// double_short_rows_random_min_mean links or more and the random links
// (those past locality_window ids: 1 - local_links) times x over L2 pass
// double_short_rows_random_x_l2: there the gathers that miss L2 decide the
// step, and the SpMV pull streams 12 more bytes a link (values and row
// pointers) beside them. On the 41 double graphs of 1.4-2.2 links a vertex
// the clause above gave the SpMV pull (sessions 84-86, rings of 2 links,
// block models, flat webs, H200, device time a step), where that product is
// at most 0.305 the SpMV pull led or came within 4.4% (six flat webs and
// ws:9000000:2:0.25 1.001-1.044x the fused pull's best order; the block
// models' fused pull up to 1.125x), and past 0.345 the fused pull led on all
// four, 0.95-0.97x (ws:9000000:2:0.5 and ws:16000000:2:0.3, whose SpMV picks
// had run 1.050-1.056x the best; ws:5000000:2:0.55,
// sbm:10000000:20000000:10000:0.3).
// Rings of 1 link keep the SpMV pull past it (ws:7000000:1:0.55, 0.40: the
// SpMV pull 0.915x): a row of one link is all the fused pull's per-row work.
// The bounds sit in the gaps 0.305-0.345 and 1.0-1.43 links a vertex.
inline constexpr double double_short_rows_random_x_l2 = 0.325;
inline constexpr double double_short_rows_random_min_mean = 1.25;
// Except where the graph's own order is already local: from
// local_min_vertices vertices (x past 1 MB in float), when a fraction of the
// links join ids less than locality_window apart (web crawls numbered by
// URL, sites of consecutive pages), the SpMV pull keeps that order and its
// gathers hit L2, where the fused pull's in-degree order scatters them. The
// SpMV pull streams 4 + sizeof(T) bytes per link against the fused pull's 4,
// so double needs more locality to pay: measured on web:N:M[:LOCAL] at 2^20,
// 2^22 and 2^24 vertices, 28-82% local (docs/PERFORMANCE.md "Local graphs"),
// the SpMV pull took 0.50-0.97x the fused pull's time per step in float at
// every locality measured, and in double 0.45-0.96x from 45% (1.01-1.04x
// below). R-MAT, Erdos-Renyi, power-law and hub graphs are 2-13% local, but
// a skewed R-MAT is not (rmat:20:10000000:0.7,0.1,0.1: 29%, its ids correlated
// at every level of the recursion), and there the fused pull took 0.43x the
// SpMV pull's time (session 23, H200): its in-degree order was more local
// still (79%). So the clause asks both: the own order local enough, and more
// local than the in-degree order (web:N:M 30-82% against 3-7%).
inline constexpr index_t local_min_vertices = 1 << 18;
inline constexpr double local_min_fraction_float = 0.25;
inline constexpr double local_min_fraction_double = 0.5;
// "More local" by more than local_order_tie: on a regular graph the two
// orders agree (a grid's in-degree order is its own order but for the
// border), and so do their sampled fractions, to 10^-5 on grids wider than
// locality_window (half their links local in both), where a strict
// comparison gave grid:250:60000 the fused pull at 1.36x the SpMV pull's
// step in float (session 64); the sampling's own error is about 10^-3.
inline constexpr double local_order_tie = 0.02;
// Whether the local-order clause asks about f's graph: local_min_vertices or
// more, and its precision's fraction of the links within locality_window ids
// (choose_pull's clause and the trial's band, pagerank_trial.hpp, both ask).
bool own_order_local(const pull_facts& f);
// In double the clause also asks for local_min_mean_double links a vertex
// where x fits in the device's L2: there a gather costs a sector of L2 in
// either order, and only rows of several sorted, local sources share one; on
// web:N:M graphs of 1.9-3.6 links a vertex with x in L2 the fused pull took
// 0.75-0.97x the SpMV pull's time per step (6 of 6, 3.8-15 M links), from 7 the
// SpMV pull won or tied (web:4194304:32000000, web:N:M of 14-16 links), and
// with x past L2 the local order won at 1.9 links too (web:8388608:16000000:
// 0.85x; H200, session 28, docs/PERFORMANCE.md "Rows that hold the graph").
inline constexpr double local_min_mean_double = 5.0;
// Where x fills at most local_fused_l2_fraction_double of L2, double also
// asks for the longest row at least local_skewed_max_to_mean_double x the
// mean. Web graphs of 2.5-7 M vertices, 29-56 M links, 57-90% local, their
// popularity's exponent from 40 down to 2.6 (web:N:M:LOCAL,GAMMA; 23 graphs,
// sessions 62-63, docs/PERFORMANCE.md "Web graphs in double: skew and the
// size of x"): with x of 20-32 MB (0.32-0.51 of the H200's 63 MB L2) and
// the longest row 5-830 x the mean the fused pull took 0.87-0.98x the SpMV
// pull's time a step on 11 of 12 (1.03x at 800x); with x of 36-56 MB
// (0.57-0.89 of L2) the SpMV pull took 0.90-1.00x the fused pull's on 7 of
// 8 (1.01x on one), whatever the skew; from 1000x the SpMV pull led or tied
// at every size measured since session 28 (0.87-1.02x; the crawl-like
// web:N:M of 1500-7000x). A popular page's sources are
// spread over the sites, so the own order's locality saves little of the
// gathers while the SpMV pull streams 8 more bytes a link; the fused pull's
// scattered gathers hit L2 while x holds about half of it, and miss past
// that, where the own order's gathers, within the sites, still hit; and a
// skewed web's long rows read their sources within the site. The bound
// sits in the gap the measurements leave, 0.51-0.57 of L2 (no graph between).
// Held out after (9 more webs, 14-72 MB of x, 4-1300x): the model's pick
// within 5% of the better pull on 8 of 8 (worst 1.038, at 0.61 of L2).
// Past the bound, from fused_own_order_skewed_min_links links, the fused pull
// again: there it runs in its own order (fused_own_order_first), whose step
// was 0.92-0.95x the SpMV pull's on four webs of 43-237 M links with x at
// 0.97-2.1 of L2 (the SpMV pull had been auto's pick); held out after, 14
// more of 33-300 M links 0.86-1.02x (H200, session 81). Wherever else
// fused_own_order_first holds (rows 4-8x the mean; under 5 links a vertex at
// any skew): on skewed webs of 1.9-3.3 links a vertex, 12-30 M links, x
// 0.64-1.27 of L2, 0.79-0.86x the SpMV pull's step on all five, which had
// been the model's pick where x passed L2 (web:8388608:16000000 228 -> 194
// us; H200, session 83).
inline constexpr double local_fused_l2_fraction_double = 0.55;
inline constexpr double local_skewed_max_to_mean_double = 1000.0;
// Nor where the in-degrees are even (the longest row at most
// local_even_max_to_mean x the mean) and not short (a mean of
// local_even_fused_mean links a vertex or more), unless the own order's
// locality is at mid range: meshes, rings, small worlds, communities. The
// web-like graphs and grids the clause was fitted on are skewed (the longest
// row 2000 x the mean) or short (4 links a vertex); on the small worlds of
// session 61's held-out sets (ws:N:K:P, K = 6-20, 12-160 M links, the
// longest row 1.25-3.1 x the mean) the SpMV pull took 1.04-1.69x the fused
// pull's time a step in float with x in L2, 1.12-2.15x in double, where the
// model gave it to them; at 4 links a vertex it won (ws:4000000:4:0.02
// 0.94x, grid:1600:1600 0.82x), and in float with x past L2
// (ws:20000000:6:0.01, 80 MB: 0.95x), where its own order's gathers pay for
// the 4 bytes a link of values the fused pull does not stream (in double, 8
// bytes, the fused pull led there too: 0.70x).
// Where the rows are even, what decides is the range of the own order's
// locality (session 62's held-out communities, sbm:N:M:K:MU, blocks of
// 100-100000 consecutive ids, 36-80 M links, and rings of up to 200 links a
// vertex; H200, docs/PERFORMANCE.md "Communities and bipartite graphs"):
// links within a few hundred ids (rings of K <= 200, blocks of 100-500) the
// fused pull's in-degree order keeps well enough (the SpMV pull 1.01-1.70x
// its time a step in float), and links tens of thousands of ids apart
// (blocks of 10^5: 400 KB of x) gather from L2 in either order (1.13-1.16x);
// links at mid range, local_near_window to local_mid_window ids apart
// (blocks of 10^3-10^4: 4-40 KB of x that the rows of a few neighbouring
// warps share), the SpMV pull gathers from L1 in its own order, where the
// in-degree order spreads them: it took 0.70-0.94x the fused pull's time in
// float with x in L2 (sbm:4000000:40000000:400:0.1 0.74x, its model pick
// 1.35x the best; blocks of 1000: 0.93-1.03x), and 0.87x in double with x
// past L2 (sbm:10000000:80000000:1000:0.1); in double with x in L2 the fused
// pull led or tied everywhere but on blocks of 2000 (the SpMV pull 0.95x;
// ties at 0.98-1.03x on blocks of 1500-10^4 and a flat web), its values' 8
// bytes a link not streamed. Web graphs of flat popularity
// (web:N:M:LOCAL,GAMMA with GAMMA 10-100, the longest row 3.1-4.0 x the
// mean) sit with them: 19-20% of their links at mid range, the SpMV pull
// 0.94-1.01x in float. The blocks of 1000 hold 19-23% of their links there,
// of 2000-10000 44-50%, the rings and blocks of up to 500 none, of 10^5
// 3-7%. (A mid range from 64 ids, tried first, gave blocks of 200-300 and
// rings of 200 links the SpMV pull at 1.20-1.66x the fused pull's step.)
inline constexpr double local_even_max_to_mean = 4.0;
inline constexpr index_t local_near_window = 512;
inline constexpr index_t local_mid_window = 4096;
inline constexpr double local_mid_spmv_fraction = 0.15;
// Those figures were the in-degree order's. Where the fused pull also times
// the own order in runs of fused_own_order_window ids (fused_own_order_trial:
// local and even), neither the mid range nor x past L2 counts (session 80,
// H200, docs/PERFORMANCE.md "The fused pull's own order in runs of 1024 ids
// ..."): on 15 such graphs of 6.6-60 M links the fused pull in those runs led
// the SpMV pull or tied in float with x in L2 (but for two geometric graphs
// whose steps moved 0.86-1.30x either way between passes); held out, the nine
// (graph, precision) pairs the clause gave the SpMV pull (block models,
// geometric graphs, 3D meshes of 20-72 M links in float; a block model past L2
// in double) ran it at 1.20-2.02x the fused pull's step; in float with x past
// L2 (block models, rewired rings, a flat web of 108-180 M links) the SpMV
// pull took 1.05-1.33x the fused pull's step on 7 of 7. (The far clause below
// still gives rings of nearly all local links and few links a vertex the
// SpMV pull: ws:20000000:6:0.01 0.98x, ws:12000000:5:0.02 0.98x.)
// The mean's bound was 5 (session 61: the first small worlds past 4 links
// a vertex, K = 5, were the fused pull's); but a ring's K links a vertex
// lose a few to merged duplicates (ws:8000000:5:0.4: 4.99998), and the rows
// of 4-6 links measured since (session 64, H200, docs/PERFORMANCE.md "Even
// rows of 4 to 8 links") put it lower: from 4.74 links (sbm:N:M:K:MU of
// 100-vertex blocks at 4.74-4.92, ws:N:5:P) the fused pull took 0.73-0.99x
// the SpMV pull's time a step in both precisions where x fills at most
// 0.64 of L2 (the model had given four of them the SpMV pull, 1.01-1.14x
// the best); at 3.9-4.66 links (sbm:8000000:M:80000:0.1, ws:N:4:P) the
// SpMV pull took 0.94-1.01x the fused pull's. The bound sits in the gap
// 4.66-4.74.
inline constexpr double local_even_fused_mean = 4.7;
// In float, where x fills more than local_even_l2_fraction_float of L2 and
// local_even_far_local_float of the links or more are local, the clause
// asks local_even_far_mean_float links a vertex: the fused pull's in-degree
// order scatters its gathers over more than L2 keeps beside the streamed
// index, where the own order's nearly all hit. With x at 0.76-0.95 of L2
// (session 64, 14 graphs of 5-8 links, docs/PERFORMANCE.md "Even rows of 4
// to 8 links") the SpMV pull took 0.94-0.99x the fused pull's time a step
// at 5-6 links 95-98% local (ws:12000000:5:0.02, ws:15000000:5:0.05,
// ws:13000000:6:0.05), the fused pull 0.88-0.99x at 7-8 links
// (ws:13500000:7:0.05, ws:12000000:8:0.01); at 85-90% local the two within
// 6% either way (the SpMV pull's time over the fused pull's:
// ws:14000000:5:0.1 0.99, sbm:12000000:72000000:120000:0.1 0.95,
// sbm:13000000:85000000:130000:0.15 0.96, ws:12200000:6:0.1 1.06), and the
// fused pull led from 70% down (0.97-0.98x, four ws:N:K:P of P 0.3-0.6);
// at 0.54-0.73 of L2 the fused pull led at 5-6.8 links (0.94-0.97x, six
// graphs). The bounds sit in the gaps 0.73-0.76 of L2, 0.90-0.95 local and
// 6-7 links (a ring's 7 links merge to 6.99999).
inline constexpr double local_even_l2_fraction_float = 0.75;
inline constexpr double local_even_far_local_float = 0.925;
inline constexpr double local_even_far_mean_float = 6.5;
// In float, even rows (the longest at most float_small_blocks_max_to_mean x
// the mean) of float_small_blocks_min_mean links a vertex or more, with x
// within float_small_blocks_l2_fraction of L2, at most
// float_small_blocks_max_local of the links local and at least
// float_small_blocks_near_of_local of those within local_near_window ids:
// blocks of tens to a couple of hundred ids with a quarter or more of the
// links random. There the fused pull, in its own order (fused_own_order_first
// or its trial: runs of fused_own_order_window ids keep each block), took
// 0.90-0.97x the SpMV pull's step, which the clause below had given them
// (sbm:N:M:K:MU of 50-200-id blocks at MU 0.25-0.4, 27-55 M links, x 0.38-0.8
// of L2; sbm:6000000:28000000:120000:0.3 152 -> 139 us); at 20% random
// (80% local) the pulls tie (the SpMV pull 0.97-1.03x), and blocks of 1000
// ids or more (fewer of the local links within 512 ids: 0.5-0.7 of them)
// keep the SpMV pull ahead (sbm:10000000:48000000:10000:0.3 0.98x,
// sbm:3500000:12000000:700:0.25 0.87x at 3.4 links). Rings of 4 links lie
// under the mean's bound, on both sides of the pulls' tie (ws:8000000:4:0.3
// the SpMV pull 0.92x, 0.4 1.09x: left). Fitted on the block models of
// sessions 82-84 and a probe of nine graphs (session 86, H200, device time a
// step; docs/PERFORMANCE.md "Held out: double's short rows ..., session 86", its paragraph
// "Float, small blocks with random links: the fused pull").
inline constexpr double float_small_blocks_max_to_mean = 4.5;
inline constexpr double float_small_blocks_min_mean = 4.2;
inline constexpr double float_small_blocks_l2_fraction = 0.9;
inline constexpr double float_small_blocks_max_local = 0.775;
inline constexpr double float_small_blocks_near_of_local = 0.95;
// Where one row holds at least float_spmv_row_fraction of the links (a
// star: every vertex links to one), in float the SpMV pull (its kernel
// csr-adaptive, which splits that row: untimed_spmv_kernel): on hub:N:M
// graphs of 4.8-20 M links with 50-83% of them in one row (1.2-2 links a
// vertex) it took 0.79-0.98x the fused pull's time per step, whose per-row
// work over the millions of short rows is most of its step; in double the
// fused pull was as fast or faster on 4 of 5 (H200, session 28,
// docs/PERFORMANCE.md "Rows that hold the graph").
inline constexpr double float_spmv_row_fraction = 0.5;

// ---- the persistent pull's place in the rule (issue 17 item 3) ----
// Checked first. Below persistent_min_links links, every unweighted graph:
// the persistent pull was the fastest pull on all 37 such graphs of fewer
// than 10^5 vertices measured, float and double (0.29-0.73x the better of
// the others' time per step; 6 of them generated graphs the rule was not
// fitted on, of 22-60 k vertices that no thread-block cluster holds, where
// its resident mode took 0.53-0.73x;
// on 10^5 vertices or more, with few links, the SpMV pull was faster in
// float, and there the trial decides: solvers/pagerank_trial.hpp).
// From there to persistent_max_links, every graph but chains (no row of more
// than chain_in_degree link: from 1.9 x 10^5 links the SpMV pull took
// 0.54-0.98x its time, but for 2-vertex chains, which the trial catches):
// the fastest on all 24 others of 10^5-2.5 x 10^6 links (0.55-0.97x the
// better of the others), on cnr-2000 (3.2 M, 0.77x) and on
// web:262144:3000000 in double (0.91x); on a second set held out, 8 of 9
// (dangling:150000:600000:0.95, 95% of the vertices dangling: the SpMV pull
// 0.88x, which the trial found). Past that, skewed graphs go to the
// fused pull (rmat:19:5000000 and powerlaw:600000:6000000:2.5 1.03-1.14x,
// 7.6 M links and up 1.00-1.52x), or to the SpMV pull in a local order.
// Even graphs (the longest row at most persistent_even_max_to_mean times the
// mean in-degree: random, mostly dangling, grids) keep it to
// persistent_max_even_links: er:500000:4000000, grid:1100:1100 and
// dangling:800000:5000000:0.8 took 0.70-0.93x the better of the others'; at
// 10^7 links they tie or lose (0.93-1.61x). From persistent_min_links to the
// band's end the trial (solvers/pagerank_trial.hpp) times all three pulls,
// which catches the skewed graphs of 2.5-3.5 M links that the model misses
// (rmat:18:3000000:0.5,0.2,0.2: 1.17x in float, web:262144:3000000 1.11x).
inline constexpr std::size_t persistent_min_links = 100'000;
inline constexpr std::size_t persistent_max_links = 3'500'000;
inline constexpr std::size_t persistent_max_even_links = 5'000'000;
inline constexpr double persistent_even_max_to_mean = 4.0;

struct pull_choice {
  pagerank_pull pull = pagerank_pull::spmv;
  std::string reason;  // why, for kernel_reason and --json; empty when the pull was named
};
// p other than automatic passes through; a named kernel (or a weighted graph)
// means the SpMV pull.
pull_choice choose_pull(pagerank_pull p, const pull_facts& f, std::optional<spmv_kernel> kernel);

// The fused and persistent pulls lay out at least one virtual row per vertex
// and count them in index_t with room for the slices' padding
// (lay_virtual_rows refuses past max_index / 2), and their set-up kernels
// index vertices in index_t: past this many vertices only the SpMV pull
// runs. auto takes it there (choose_pull, model_band); a named pattern pull is
// refused by require_pull_fits before anything is uploaded. Without it,
// er:2000000000:1000 on the H200 ended in an illegal address in the fused
// pull's set-up (and auto's persistent pull), er:1100000000:1000 in the
// layout's refusal after the upload, chain:2147483647:1 ran on past 90 s.
inline constexpr index_t pattern_pull_max_vertices = static_cast<index_t>(max_index / 2);
// The most vertices PageRank takes: the 32-bit limit less room for the CPU
// solver's loops over blocks of vertices, whose index_t bounds pass n by up to
// a block ((n + 4095) / 4096 blocks of rows; the locality sample's stride, up
// to n / 2^16, past its last row): within 2^16 of 2^31 those overflowed.
// check_vertex_count refuses more (dimension_error) before anything of n is
// allocated: every builder of a pagerank_graph, and each rank's share under
// mpirun.
inline constexpr index_t pagerank_max_vertices = static_cast<index_t>(max_index - 65536);
void check_vertex_count(std::int64_t vertices);
// dimension_error naming the pull and both counts for a named fused or
// persistent pull on more than pattern_pull_max_vertices vertices.
void require_pull_fits(pagerank_pull p, index_t vertices);

// The SpMV pull's kernel when the user named none. spmv_plan's automatic
// kernel is a timed trial that builds every candidate's format first: on
// grid:3000:3000 (36 M links, H200) 0.5 s of set-up for a solve of 15 steps
// of 0.09-0.15 ms, a cost no faster kernel earns back in a short solve. It
// pays where the solve is long enough that 30% of its steps (about what the
// best kernel gains over cuSPARSE's ALG1 on large graphs: 1.0-1.7x in
// docs/PERFORMANCE.md, "SpMV auto") outweighs about spmv_trial_link_ns a
// link, or where the graph is below band_max_links (a trial of at most tens
// of milliseconds); iterations 0 (unknown): always. Without the trial, where
// every row is short (below short_rows_in_degree): ELL where its padding is
// small (rows x longest row at most 1.5x the links: grids, chains; the
// trial's pick on every such graph of the corpus from 10^6 links, 1.1-1.3x
// faster than a thread per row, and built from the host without the CSR's
// upload; on rows of one or two links, 4 or 2 rows a thread:
// chain:10000000:10000000 32.3 us a call in float, csr-adaptive 58.0 and a
// thread per row 72.8, session 69), a thread per row (csr-scalar) where the rows are nearly even
// (at most untimed_scalar_max_fill: small worlds of 4-6 links a vertex at
// 1.67-2.25, whose rows differ by a few links: 1.08-1.32x faster than
// csr-adaptive in float, 1.02-1.24x in double, ws:20000000:6:0.01 1.32x;
// session 61), else csr-adaptive (1.13-1.15x faster than a thread per row on
// er:4000000:6000000 and dangling:4000000:6000000:0.5, whose rows of 0-11
// links leave a warp of one row per thread waiting on its longest, at
// 5.6-10 x the mean);
// csr-adaptive too where one row holds at least untimed_adaptive_row_fraction
// of the links (cuSPARSE's ALG1 serializes that row on hub:N:M graphs: 1.04-
// 1.18x slower at a quarter of the links in one row, 1.3-1.8x at half, 2.0x at
// 83%; but 0.43x csr-adaptive's time on powerlaw:2000000:8000000:2.05, whose
// longest row holds 18.5% among many long ones, and 0.65x at 4%);
// csr-adaptive too in double where rows are few on average (mean below
// untimed_adaptive_mean_double) and even (the longest at most
// untimed_even_max_to_mean x the mean: a random graph's tail, not a hub):
// cuSPARSE's ALG1 took 1.03-1.15x csr-adaptive's time on the 9 such graphs
// of sessions 28-62 (er:, dangling: and sbm: graphs of 3.0-6.4 links a
// vertex, 4.5-60 M links, the longest row 3.4-5.3x the mean;
// sbm:12000000:60000000:120000:0.1 1.15x, x past L2), 0.99-1.01x from 7
// links (sbm:6000000:42000000:4000:0.15, er:1500000:12000000), and won from
// 8 on most. Held out (15 graphs of 25-60 M links, session 63): 1.02-1.17x
// on 7 (communities of 4-5 links a vertex, sbm:9000000:36000000:90000:0.15
// 1.16x; rings rewired at 10-20%, ws:10000000:5:0.1 1.17x), 0.94-0.99x on 8
// (random graphs with x past half of L2, rings rewired at 30-50%,
// communities of 6 links a vertex); on the 5 where auto ran the SpMV pull
// in double (local orders; the others took the fused pull) it was the
// faster kernel on 4 (ws:8000000:5:0.4 0.98x). In float the two run within
// 4% there (docs/PERFORMANCE.md "Short even rows in double"); cuSPARSE's
// ALG1 elsewhere (the trial's pick on every large graph of other shapes).
inline constexpr double spmv_trial_link_ns = 12.0;
inline constexpr double untimed_ell_max_fill = 1.5;
inline constexpr double untimed_scalar_max_fill = 3.0;
inline constexpr double untimed_adaptive_row_fraction = 0.25;
inline constexpr double untimed_adaptive_mean_double = 6.5;
inline constexpr double untimed_even_max_to_mean = 8.0;
bool spmv_trial_pays(std::size_t links, int iterations, std::size_t value_bytes);
spmv_kernel untimed_spmv_kernel(index_t rows, std::size_t links, index_t max_in_degree,
                                std::size_t value_bytes);

// Where this model is unsure, a caller may let the GPU solver time the
// candidates instead (solvers/pagerank_trial.hpp: the band, the trial and
// the record kept with the graph's cache entry).
struct pull_trial_memo;
struct plain_trace;  // a layout trial's plain steps' residuals (solvers/pagerank_trial.hpp)

// choose_pull on a graph's facts.
template <class T>
pagerank_pull resolve_pull(pagerank_pull p, const pagerank_graph<T>& g, std::optional<spmv_kernel> kernel) {
  return choose_pull(p, pull_facts_of(g), kernel).pull;
}

// Every option of a PageRank solve, each default written here once. The
// command line maps its flags onto these fields (apps/pagerank.cpp); the
// messages of validate() name the flags.
struct pagerank_options {
  double alpha = 0.85;  // --alpha: damping, in [0, 1)
  double tol = 1e-6;    // --tol: on ||r_{k+1} - r_k||_1, in (0, 2) (the L1 change is at most 2)
  int max_iter = 1000;  // --max-iter: >= 1
  // --personalize: empty = uniform; else one non-negative weight per vertex
  // (not all zero), normalized to sum 1 by the solver.
  std::vector<double> personalization;
  // --initial: the starting vector; empty = uniform. Same rules as personalization.
  std::vector<double> initial;

  // ---- the machinery (pagerank() reads these three; the solvers are built with them)
  pagerank_device device = pagerank_device::automatic;  // --device
  // --kernel: the SpMV kernel of the SpMV pull. Empty: none named, so the
  // automatic pull may choose the fused pull, and the SpMV pull picks its
  // kernel per matrix (spmv_kernel::automatic). cpu forces the CPU solver.
  std::optional<spmv_kernel> kernel;
  pagerank_pull pull = pagerank_pull::automatic;  // --pull; resolve_pull() gives the rule

  // ---- GPU loop
  pagerank_loop loop = pagerank_loop::automatic;  // --loop
  int check_interval = 8;                         // --check-every: iterations per host check, >= 1
  // --graph-unroll: steps per trip of the WHILE body in graph_while mode. A
  // trip costs a device-side relaunch of the body graph, c; with U > 1 that
  // cost is shared by U steps, and the steps after the stopping one inside a
  // trip run only their SpMV (the update is a no-op), so results stay exact
  // but those SpMVs are spent. 0: chosen per graph from the SpMV's measured
  // time s, U = sqrt(2 K c / s) rounded, in [1, 8], which minimises
  // K c / U + (U - 1) s / 2 (trips plus the expected spent steps) for
  // K = 30 iterations and c = 4 us (docs/PERFORMANCE.md, PageRank). At most
  // max_graph_unroll: the body graph holds its steps' launches, captured
  // before the solve.
  int graph_unroll = 0;
  static constexpr int max_graph_unroll = 1024;
  // false: no CUDA graphs at all (check_every, each step launched directly),
  // for tools that do not follow graph launches, and to test that path.
  bool use_graphs = true;
  // --accelerate and --accelerate-every: extrapolate after every
  // accelerate_every plain steps (>= 4: quadratic extrapolation needs the
  // last four iterates of one run of plain steps). On the GPU every pull
  // extrapolates (the fused pull its scaled iterate, weighted:
  // solvers/cuda/pagerank_accel.cuh; the persistent kernel quadratically,
  // inside its one launch: solvers/cuda/pagerank_persistent.cuh); a
  // persistent solver runs its fused pull's steps for aitken. auto (the
  // default) is quadratic behind its gate, on the CPU and every GPU pull.
  pagerank_accel accelerate = pagerank_accel::automatic;
  int accelerate_every = 10;
  // Called with (iteration, residual): by the CPU solver after every step, by
  // the GPU solver while it waits (from values the device writes to mapped
  // host memory; no extra synchronization). Leave empty for none.
  std::function<void(int, double)> progress;
  // Called to let the caller end the solve by throwing: by the CPU solvers
  // after every step (after progress), by the GPU solvers, single and
  // batched, from the thread that waits on the device, every few
  // milliseconds. On the GPU the device's work is stopped at its next step
  // and waited for before the exception goes on to the caller (the Python
  // module's Ctrl-C: a GPU solve of max_iter steps whose tol was out of reach
  // held Ctrl-C for its whole length). With it, a persistent solve runs in
  // launches of interrupt_batch steps, stopped between them. Leave empty for
  // none.
  std::function<void()> interrupt;
  static constexpr int interrupt_batch = 1024;

  // Every check that needs no graph: the numbers, the loop, and the
  // device / kernel / pull combination. Throws invalid_argument naming the
  // command-line flag ("--tol must be a positive number, got -1").
  void validate() const;
  // validate() plus the personalization and initial vectors against a graph of n vertices.
  void validate(index_t n) const;
};

// opt with its personalization and initial vectors (when given) relabelled
// by p, for a solve of permuted(g, p).
pagerank_options permuted(pagerank_options opt, const permutation& p);

// One timed phase of a GPU solver, in the order it ran. Set-up (its
// constructor): "choice" (the graph's facts, the model, a remembered trial's
// record), then "pull trial" (the candidates built and timed where the model
// was unsure), else "layout" (P^T uploaded and laid out for the pull),
// "layout trials" (the fused pull's hub sizes, the persistent pull's modes,
// timed) and "buffers" (the iterate's, the state's, the SpMV plan's first
// call). A solve: "launch" (the state's upload and the loop's launches),
// "allocate" (the result's memory, while the device runs), "wait" (the host
// blocked on the device) and "receive" (the ranks copied and widened).
struct setup_phase {
  std::string name;
  double seconds = 0;
};

// A result's ranks, one per vertex. The allocator leaves new elements
// unwritten (core/memory.hpp): the solvers write every one.
using rank_vector = uninitialized_vector<double>;

struct pagerank_result {
  rank_vector rank;  // sums to 1 (up to rounding in T)
  int iterations = 0;
  double residual = std::numeric_limits<double>::infinity();  // ||r_k - r_{k-1}||_1 of the last step
  bool converged = false;
  // --accelerate: the mode that ran and the extrapolations applied. iterations
  // counts plain steps only; the last step is always a plain one, so residual
  // is the true residual ||G(x) - x||_1 of the vector x it started from.
  // An extrapolation whose vector's residual exceeded the one before it is
  // dropped (the solve goes on from the iterate it replaced, with no more
  // extrapolations): counted in extrapolations_rejected, not in extrapolations.
  pagerank_accel accelerate = pagerank_accel::none;
  int extrapolations = 0;
  int extrapolations_rejected = 0;
  // Times the host blocked on the device during the solve (0 on the CPU).
  std::uint64_t host_syncs = 0;
  bool on_gpu = false;
  pagerank_pull pull = pagerank_pull::spmv;  // the pull that ran (spmv on the CPU)
  std::optional<spmv_kernel> kernel;         // the SpMV kernel that ran; empty for the fused pull
  int hub_entries = 0;                       // fused pull: entries of x kept in shared memory
  // Pattern pulls: bytes of column index streamed per link per step, and
  // whether they are the fused pull's 16-bit index (pagerank_fused.cuh).
  double index_bytes_per_link = 0;
  bool index16 = false;
  // GPU: values of the ranks the device sent to the host: n, or fewer where
  // the vertices without in-links took their out-degree's value
  // (solvers/pagerank_compact_ranks.hpp); 0 on the CPU.
  std::size_t ranks_sent = 0;
  // Why this device: pagerank()'s decide_device (solvers/pagerank_device.hpp),
  // "auto: predicted cpu 0.004 s, cuda 0.33 s ..."; empty from the solvers
  // called directly (pagerank_cpu, pagerank_cuda).
  std::string device_choice;
  std::string kernel_reason;  // why this pull / kernel (GPU only)
  // How the pull was decided (GPU only): "named" (--pull or --kernel), "model"
  // (choose_pull), "trial: fused 18.2 us vs spmv (csr-vector) 19 us per step"
  // (timed here, solvers/pagerank_trial.hpp) or "cached trial: ..." (an
  // earlier run's trial, kept with the graph's cache entry).
  std::string pull_decision;
  double trial_seconds = 0;  // wall time the trial took (0: none ran)
  pagerank_loop loop = pagerank_loop::host;
  int graph_unroll = 0;   // steps per WHILE trip that ran (graph_while only)
  std::string loop_note;  // why the loop mode differs from the one asked for, if it does
  // Wall time of the solve: start vector to ranks on the host (GPU: uploads of
  // v / r0, the loop and the download included; graph building excluded after
  // the first solve of a pagerank_cuda).
  double solve_seconds = 0;
  // GPU: CUDA-event time from the first kernel to the loop's end (a
  // one-launch solve's: to the end of the kernel that sends the ranks).
  double device_seconds = 0;
  std::vector<setup_phase> solve_phases;  // GPU: where solve_seconds went (setup_phase)
};

// Extrapolation can leave ranks a little below 0 where v is 0 (a personalized
// solve: -1.7e-6 on email-Eu-core at alpha 0.99 in float, within --tol of the
// answer, whose ranks are >= 0). Where a converged personalized solve that
// extrapolated has one, those ranks are set to 0 and the solve goes on by plain steps from
// there (solve_from, the same solver with that start and no extrapolation:
// a plain step keeps ranks >= 0), so the ranks returned are >= 0 and a plain
// step still met --tol; its first did on the shared graphs measured. The
// result counts the steps of both; r as it is otherwise. One rule for the
// CPU and the GPU solvers.
pagerank_result without_negative_ranks(
    pagerank_result r, const pagerank_options& opt,
    const std::function<pagerank_result(const pagerank_options&)>& solve_from);

// "pull-fused" / "pull-persistent" for the pattern pulls, else the kernel's name.
std::string kernel_text(pagerank_pull pull, std::optional<spmv_kernel> kernel);

// Normalizes a weight vector to sum 1 after checking it (what: "personalization"
// / "initial vector", for messages). Empty in: uniform out.
std::vector<double> normalized_distribution(const std::vector<double>& w, index_t n, const char* what);

// ---- CPU (solvers/pagerank.cpp) -------------------------------------------
// Vertices per partial sum of a CPU step: the residual and the dangling mass
// are summed per block and the blocks added in order, so results do not
// depend on the thread count; the distributed solver (solvers/dist) cuts its
// vertex ranges on these blocks and adds them in the same order, which makes
// its ranks bitwise the single-process ones.
inline constexpr index_t pagerank_sum_block = 4096;

// g as the builders above make it: its arrays' sizes are checked
// (dimension_error), its entries are not (validated when it was built).
template <class T>
pagerank_result pagerank_cpu(const pagerank_graph<T>& g, const pagerank_options& opt);

// ---- GPU (solvers/cuda/pagerank.cu) ------------------------------------------
// Set-up phases are listed by pagerank_cuda::setup_phases(), a solve's by
// pagerank_result::solve_phases (struct setup_phase, above pagerank_result).

// Owns P^T on the device (an spmv_plan on its own stream), the dangling mask,
// the iterate and the CUDA graphs, built once and reused by every solve().
template <class T>
class pagerank_cuda {
 public:
  // kernel: any GPU kernel of spmv_kernels(); empty or automatic: chosen per
  // matrix. pull: fused and persistent need g.pattern and no concrete kernel
  // (invalid_argument otherwise), and a device with room for their shared
  // memory (cuda_error; persistent also a cooperative launch);
  // automatic resolves by resolve_pull(). The default stays spmv here: a
  // solver object names its machinery; pagerank() and the app default to auto.
  // memo (automatic only; nullptr: the model alone): where the model is
  // unsure (model_band), the pull a remembered trial chose, else a trial of
  // the candidates whose record is left in memo->record
  // (solvers/pagerank_trial.hpp).
  explicit pagerank_cuda(const pagerank_graph<T>& g, std::optional<spmv_kernel> kernel = std::nullopt,
                         pagerank_pull pull = pagerank_pull::spmv, pull_trial_memo* memo = nullptr);

  pagerank_result solve(const pagerank_options& opt);

  // pull_facts_of(g) with what this device adds (its L2's size); the host's
  // facts where there is no device.
  static pull_facts facts(const pagerank_graph<T>& g);

  pagerank_pull pull() const { return pull_; }                             // spmv, fused or persistent
  std::optional<spmv_kernel> kernel() const { return kernel_; }            // concrete; empty for pattern
  std::string kernel_name() const { return kernel_text(pull_, kernel_); }  // or "pull-fused"
  const std::string& kernel_reason() const { return reason_; }
  const std::string& pull_decision() const { return decision_; }  // pagerank_result::pull_decision
  double trial_seconds() const { return trial_seconds_; }
  const std::vector<setup_phase>& setup_phases() const { return setup_; }
  // The pattern pulls' layout as their own trials picked it ("hub 14464", or
  // "hub 14464 resident 132 0" for the persistent pull's mode; "" for the
  // SpMV pull): kept with the pull trial's record so that a later run of the
  // same graph builds it without those trials (solvers/pagerank_trial.hpp).
  const std::string& layout() const { return layout_; }
  std::size_t device_bytes() const { return device_bytes_; }  // everything it holds on the device
  // The pattern pulls' relabelling as the device built it: entry k is the
  // graph's id of the solver's vertex k (fused_order_places' inverse, where
  // no window is asked for and the persistent pull's order trial kept the
  // in-degree order; layout() says "window W" where not); empty for the SpMV
  // pull.
  std::vector<index_t> vertex_order() const;

  struct impl;

 private:
  // The deleter comes from the constructor (solvers/cuda/pagerank.cu), so the
  // special members need no definition of impl.
  std::unique_ptr<impl, void (*)(impl*)> impl_{nullptr, nullptr};
  pagerank_pull pull_ = pagerank_pull::spmv;
  std::optional<spmv_kernel> kernel_;
  std::string reason_;
  std::size_t device_bytes_ = 0;
  std::string decision_;
  double trial_seconds_ = 0;
  std::vector<setup_phase> setup_;
  std::string layout_;
  int expected_iterations_ = 0;  // pull_trial_memo::expected_iterations

  // The constructor's two ways (solvers/cuda/pagerank.cu, solvers/pagerank_trial.cpp).
  pagerank_cuda() = default;  // for trial_pull, which builds through build_chosen
  // layout: a remembered layout() of this graph and pull ("": the pulls' own
  // trials); trace: the residuals of that layout's plain steps remembered with
  // it (nullptr or empty: none), which auto's solves read where the build took
  // the layout as remembered and so ran no layout trial.
  void build_chosen(const pagerank_graph<T>& g, std::optional<spmv_kernel> kernel, const pull_choice& choice,
                    const std::string& layout = "", const plain_trace* trace = nullptr);
  // The plain steps' residuals of the layout built: its trial's, else the
  // remembered ones build_chosen took (empty: none; the SpMV pull has none).
  plain_trace layout_trace();
  // False: nothing remembered and no trial ran (the model decides).
  bool trial_pull(const pagerank_graph<T>& g, const pull_facts& f, const pull_choice& model,
                  pull_trial_memo& memo);
};

// The fused pull's column index width (solvers/cuda/pagerank_fused.cuh),
// from the environment variable PERRON_FUSED_INDEX: 32 (also when unset), 16,
// or `trial` (both built, the faster per step kept); invalid_argument for any
// other value. 32 by default: on the H100 the 16-bit index was slower on
// every graph measured (docs/PERFORMANCE.md, "16-bit column indices"); on
// the H200 at 2.33-2.48 bytes a link (R-MAT 24-26, web graphs in their own
// order) it tied the 32-bit one on the webs and was 2-6% slower on R-MAT
// (session 86): the gathers of x bound the step. Building it costs a sort
// of every row.
enum class fused_index { bits32, bits16, trial };
fused_index fused_index_choice();

// The GPU memory a pagerank_cuda of a graph of n vertices and `links` links
// holds at its peak, setup included (value_bytes = sizeof(T)); an estimate
// from the allocations of solvers/cuda, on the high side:
//  - fused, persistent: 8.25 bytes per link (the uploaded pattern and its
//    relabelled copy, then that copy and the sliced layout with ~1% padding)
//    and 68 per vertex (the relabel's index arrays and radix-sort buffers,
//    then the iterates, v, the row counters and the ranks' way back, 4 of
//    them); where the fused pull builds the 16-bit index too
//    (fused_index_choice()), 12.25 bytes per link (the sorted copy beside
//    both widths, escapes at most 2 more) and 84 per vertex (its
//    per-virtual-row counts and offsets);
//  - spmv: 2 (4 + value_bytes) per link (P^T and the kernel's converted copy
//    of it, which auto's trial may hold beside it) and 4 + 7 value_bytes + 1
//    per vertex (row pointer, r, y, v, dangling bits, and the four iterates
//    --accelerate keeps: auto, the default, extrapolates on this pull);
//  - automatic: the larger of the two (the pull is chosen from the graph).
double pagerank_device_bytes(index_t n, std::size_t links, std::size_t value_bytes, pagerank_pull pull);

// ---- dispatch ------------------------------------------------------------
// opt.device automatic: the GPU when cuda::available() and opt.kernel is not
// cpu; kernel cpu forces the CPU path (and device cuda with kernel cpu is an
// error); a GPU kernel or pull named (gpu_option_named) needs the GPU.
template <class T>
pagerank_result pagerank(const pagerank_graph<T>& g, const pagerank_options& opt);

// The GPU kernel or pull opt names, as the command line spells it
// ("--kernel merge", "--pull fused"; "" for none): it means nothing on the
// CPU path, so device automatic takes the GPU for it, and fails without one
// as device cuda does, where it was dropped without a word.
std::string gpu_option_named(const pagerank_options& opt);

// Whether opt names the GPU, or leaves automatic where a GPU is usable;
// cuda_error for device cuda, or a GPU option named, without a usable GPU.
// pagerank() and pagerank_batched() ask decide_device instead, which gives
// automatic to the end-to-end model (solvers/pagerank_device.hpp).
bool pagerank_runs_on_gpu(const pagerank_options& opt);

}  // namespace perron
