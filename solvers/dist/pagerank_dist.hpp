// Distributed PageRank over MPI ranks (docs/ARCHITECTURE.md: distributed =
// local + exchange). Rank p owns a contiguous range of vertices, the rows of
// P^T for them; each step runs the ordinary local pull SpMV on those rows,
// all-gathers the rank vector and adds the per-4096-vertex partial sums of the
// residual and the dangling mass in block order, exactly as pagerank_cpu()
// does, so the ranks are bitwise identical to the single-process CPU solve
// for every number of ranks.
//
// Each rank brings its share of the arcs (a byte range of the file, parsed
// by io::mm_file_part; the windows of text rank 0 streamed to it; or a slice
// of a graph rank 0 read whole: apps/common/dist_load.hpp says which), distribute_graph() sends each arc to
// the rank owning its target (MPI_Alltoallv) and builds that rank's rows of P^T; the out-degrees 1/d_j need
// all ranks' arcs and come from an all-reduce. What every rank holds in full: vectors of n (the rank vector,
// the dangling flags).
//
// Every collective step agrees on failures first (agree()): a rank that
// fails makes every rank throw the same error, "rank R: ...", so no rank is
// left waiting in a collective the failed one never enters.
//
// The same API is declared whether or not perron was built with MPI
// (PERRON_MPI); without it, launched() is false and the solver throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "core/formats.hpp"
#include "core/memory.hpp"
#include "solvers/pagerank.hpp"

namespace perron::dist {

// True when this process was started by mpirun with more than one rank
// (read from the launcher's environment, before MPI_Init).
bool launched();
// This process's rank as the launcher's environment gives it (0 when none).
int launch_rank();
// True when perron was built with MPI.
bool built();

// MPI_Init on construction (when built with MPI), MPI_Finalize on destruction.
// While it lives, the calling thread's OpenMP regions take at most threads():
// the rank's CPUs (its affinity) over the ranks of its host whose CPUs meet
// them, at least one (unless OMP_NUM_THREADS is set: then the threads
// allowed). Four unbound ranks on 16 cores took 15 threads each, 60 threads
// waiting on each other's cores at every barrier.
class session {
 public:
  session();
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  int threads() const { return threads_; }

 private:
  int rank_ = 0;
  int size_ = 1;
  int threads_ = 1;
  std::unique_ptr<team_scope> team_;
};

// [first[p], first[p + 1]) are the vertices of rank p: ranges cut on
// pagerank_sum_block boundaries (so no partial sum is split between ranks)
// holding about equal links. block_links[b]: the links into block b (all
// ranks pass the same counts); n: the vertex count.
std::vector<index_t> balanced_ranges(const std::vector<std::uint64_t>& block_links, index_t n, int parts);
// The links into each 4096-row block of a CSR row pointer (row i = the links into i).
std::vector<std::uint64_t> block_links_of(const std::vector<index_t>& row_ptr);
// The same from the CSR row pointer of P^T (row i = the links into i), where
// a row also costs `links_per_row` links (0: links alone; rounded per block).
std::vector<index_t> balanced_ranges(const std::vector<index_t>& row_ptr, int parts,
                                     double links_per_row = 0);
// Rows [lo, hi) of that row pointer (lo on a block boundary) cut the same
// way into `parts` ranges: first[0] = lo, first[parts] = hi.
std::vector<index_t> balanced_ranges(const std::vector<index_t>& row_ptr, index_t lo, index_t hi, int parts,
                                     double links_per_row);
// Rows [lo, hi) of P^T, columns unchanged (cols = P^T's): what pagerank --gpus
// gives each GPU, which reads the whole r in the graph's own vertex order.
template <class T>
csr_matrix<T> row_range(const csr_matrix<T>& pt, index_t lo, index_t hi);

// Error agreement: every rank calls it after a phase with its own failure
// (null: none). If any rank failed, every rank throws the same error, of the
// failing rank's type (so the app's exit code matches), "rank R: message"
// for the lowest failing rank R. Never hangs: one all-reduce and a broadcast.
void agree(std::exception_ptr failure);

// Runs f, then agree() on what it threw.
template <class F>
void phase(F&& f) {
  std::exception_ptr e;
  try {
    f();
  } catch (...) {
    e = std::current_exception();
  }
  agree(e);
}

// Small collectives for the loaders (apps/common/dist_load.cpp).
std::uint64_t exclusive_sum(std::uint64_t mine);                // sum over the ranks before this one
std::uint64_t total_sum(std::uint64_t mine);                    // sum over all ranks
std::vector<double> all_values(double mine);                    // every rank's value, in rank order
std::vector<std::string> all_strings(const std::string& mine);  // every rank's text, in rank order
bool same_everywhere(std::uint64_t mine);                       // every rank passed the same value
// Each rank's description of what it read (a file's size and header, a
// graph's vertex count), which must be the same on every rank: "" where it
// is, else "rank 0: <its text>; rank R: <its text>" on every rank, R the first
// rank whose text differs from rank 0's. A file of one name that differs
// between hosts, or one rewritten while the ranks read it, is then one error
// naming the ranks, where the ranks went on to parse different graphs and
// the arcs of one fell outside another's vertices.
std::string first_difference(const std::string& mine);

// A rank's share of a graph's arcs, source -> target (0-based, n vertices),
// in the order the single-process reader keeps them: rank 0's arcs before
// rank 1's, and so on. w: weights (only read for a weighted graph).
struct arc_slice {
  const index_t* source = nullptr;
  const index_t* target = nullptr;
  const double* weight = nullptr;
  std::size_t count = 0;
};

// Collective, for an input one rank reads whole (apps/common/dist_load): the
// root's arcs (the other ranks pass an empty slice) cut into P contiguous
// slices in order, rank p receiving slice p, so the ranks' slices are in the
// reader's order as distribute_graph expects. Weights travel when weighted.
struct arc_copy {
  std::vector<index_t> source, target;
  std::vector<double> weight;
  arc_slice slice() const { return {source.data(), target.data(), weight.data(), source.size()}; }
};
arc_copy scatter_arcs(const arc_slice& all, bool weighted, int root = 0);
// Collective: the root's values (and their count) on every rank.
void broadcast(std::vector<std::int64_t>& values, int root = 0);

// Point to point, blocking, for an input one rank streams to the others
// (apps/common/dist_load.cpp): numbers and bytes, any count (sent in
// messages of at most 2^30). A receive names the count the send had.
void send_numbers(const std::uint64_t* v, std::size_t count, int to);
void receive_numbers(std::uint64_t* v, std::size_t count, int from);
void send_bytes(const char* p, std::size_t count, int to);
void receive_bytes(char* p, std::size_t count, int from);

// How a symmetric file's mirror arcs are made: none (the slices hold every
// arc), symmetric ((i, j, w) gains (j, i, w)) or skew ((j, i, -w)); as the
// single-process reader, the mirrors of all ranks come after all their arcs.
enum class mirror { none, symmetric, skew };

// This rank's rows of P^T and what the iteration needs of the rest.
template <class T>
struct local_graph {
  // rows.pt: rows [lo, hi) of P^T (row i - lo), columns global (n);
  // rows.dangling: all n vertices; rows.pattern as make_pagerank_graph.
  pagerank_graph<T> rows;
  index_t n = 0, lo = 0, hi = 0;
  std::vector<index_t> first;  // every rank's range: first[p] .. first[p + 1]
  std::uint64_t links = 0;     // distinct arcs of the whole graph
  std::uint64_t dangling_count = 0;
  std::uint64_t bytes_exchanged = 0;  // this rank's arcs sent to other ranks, in bytes
};

// Collective. The rows this rank owns, bitwise the rows [lo, hi) that
// make_pagerank_graph() builds from all ranks' arcs in order (duplicates
// merged or summed in that order, d_j summed over targets in increasing
// order). Errors as make_pagerank_graph's (a bad weight: the first in arc
// order), agreed by every rank; label names vertices in them (may be empty).
// It is finish_graph(exchange_arcs(...)).
template <class T>
local_graph<T> distribute_graph(const arc_slice& arcs, index_t n, bool weighted, mirror m,
                                const vertex_naming& label = {});

// The two halves of distribute_graph, apart so that the app can keep this
// rank's arcs in its per-rank cache (io/cache.hpp) and skip the parse and the
// all-to-all next time. at: rows [lo, hi) of A^T (row i - lo: the arcs into
// i, columns their sources, duplicates merged; values the summed weights, 1
// when unweighted), what P^T is made of once the out-degrees are known.
struct local_arcs {
  csr_matrix<double> at;  // hi - lo rows, n columns
  index_t n = 0, lo = 0, hi = 0;
  std::vector<index_t> first;  // every rank's range
  std::uint64_t bytes_exchanged = 0;
};
// Collective: the checks, the ranges and the all-to-all of distribute_graph.
// input: what the errors about the arcs name first (the file, as the
// single-process app names it), if not empty.
local_arcs exchange_arcs(const arc_slice& arcs, index_t n, bool weighted, mirror m,
                         const vertex_naming& label = {}, const std::string& input = {});
// Collective: d_j over every rank's arcs (an all-reduce), the dangling flags
// and P^T(i, j) = A(j, i) / d_j. a.at's values are read only when weighted.
template <class T>
local_graph<T> finish_graph(local_arcs&& a, bool weighted, const vertex_naming& label = {});

// Per-iteration timings of a distributed solve (--bench-dist), this rank's.
struct iteration_stats {
  // Per iteration: the local SpMV and update; the wait for the slowest rank
  // (a barrier, in benchmark runs only, so that the next figure is the
  // transfer alone); the all-gathers of partial sums and rank pieces.
  std::vector<double> compute_seconds, wait_seconds, comm_seconds;
  // Per iteration: what this rank sends and receives of r and of the block
  // partials: with the all-gather its piece once to each other rank and
  // every other rank's piece (a direct all-gather); with the halo exchange
  // the halo's values.
  std::uint64_t bytes_sent = 0, bytes_received = 0;
};

// How the ranks share r each iteration. all: every rank's piece to every
// rank (MPI_Allgatherv, n values a rank receives). halo: each rank receives
// only the entries of r its rows read (their columns outside its range), in
// one MPI_Alltoallv of lists fixed before the loop; the full r is gathered
// once, after it. automatic: halo when it moves at most 1 / halo_share() of
// the values the all-gather does (summed over the ranks). Graphs whose links
// stay near their vertices (meshes, roads, web sites) exchange a sliver of
// r, random graphs nearly all of it; R-MAT's vertices without out-links are
// read by no one (a third of r at R-MAT 20).
enum class exchange_kind { automatic, all, halo };

// A halo value costs more than an all-gathered one: it is packed and
// unpacked by index, and the SpMV then gathers from an r the exchange did not
// bring into cache. Ranks on one host move r at memory speed, where that
// overhead weighs: 2 ranks on 2 cores (session 24, float, --bench-dist) had
// the halo 1.65x the all-gather's transfer per value (er:1M:10M, 99% of the
// values) and 3-6% slower steps on rmat:20 (36%), but 14% faster on
// grid:2000:2000 (0.1%): a quarter there. Across hosts the bytes on the
// network dominate: half.
inline double halo_share(bool one_host) { return one_host ? 4.0 : 2.0; }
// The choice itself, the same for ranks and GPUs: forced, or automatic by
// the values each exchange moves per iteration (summed over the parts).
inline bool takes_halo(exchange_kind how, std::uint64_t halo_values, std::uint64_t all_values,
                       bool one_host) {
  return how == exchange_kind::halo || (how == exchange_kind::automatic &&
                                        halo_share(one_host) * double(halo_values) <= double(all_values));
}

// The sorted columns of `rows` (rows [lo, hi) of P^T, n columns) outside
// [lo, hi): the entries of r those rows read from other ranks.
template <class T>
std::vector<index_t> columns_outside(const csr_matrix<T>& rows, index_t lo, index_t hi);
// The same over the columns [first, last) of some links, n columns in all.
std::vector<index_t> columns_outside(const index_t* first, const index_t* last, index_t n, index_t lo,
                                     index_t hi);

// The exchange this rank takes part in, agreed by every rank (collective).
struct exchange_plan {
  bool halo = false;
  bool one_host = true;  // every rank on one host (MPI_COMM_TYPE_SHARED): halo_share()'s choice
  // halo: per rank q, the values sent to / received from q (MPI counts and
  // offsets), this rank's rows (i - lo) packed for each q in order, and the
  // columns of r the values received from each q go to.
  std::vector<int> send_count, send_offset, recv_count, recv_offset;
  std::vector<index_t> send_rows, recv_columns;
  // Per iteration, summed over the ranks: the values the halo exchange
  // moves, and those an all-gather moves ((P - 1) n).
  std::uint64_t halo_values = 0, all_values = 0;
};
template <class T>
exchange_plan plan_exchange(const local_graph<T>& g, exchange_kind how);

// Collective: the distributed power iteration; every rank returns the full
// rank vector (gathered in id order). stats: filled when not null. Without a
// plan: plan_exchange(g, automatic). Either exchange gives the same ranks
// bit for bit (only which entries of r travel differs).
template <class T>
pagerank_result pagerank_mpi(const local_graph<T>& g, const pagerank_options& opt, const exchange_plan& x,
                             iteration_stats* stats = nullptr);
template <class T>
pagerank_result pagerank_mpi(const local_graph<T>& g, const pagerank_options& opt,
                             iteration_stats* stats = nullptr);

}  // namespace perron::dist
