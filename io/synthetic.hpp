// Built-in synthetic matrices and graphs, accepted wherever a matrix file name
// is (load_matrix dispatches on the prefix). N is a vertex count, M a count of
// arc draws (duplicates merged, so a graph has at most M links); the graphs
// are patterns (value 1, arc i -> j at (i, j)):
//   synthetic:seedS:N    N x N, each row 0..32 distinct random columns (uniform), values in [-1,1)
//   tridiag:N            N x N tridiagonal [-1 2 -1] (the 1D Laplacian, SPD)
//   rmat:S:M[:A,B,C]     R-MAT, 2^S vertices, quadrant probabilities A,B,C and D = 1 - A - B - C
//                        (default Graph500's .57,.19,.19; .25,.25,.25 is uniform; larger A, more skew)
//   er:N:M               Erdos-Renyi: both ends of each arc uniform
//   powerlaw:N:M:GAMMA   configuration model (Chung-Lu): in- and out-degrees ~ d^-GAMMA, 2 < GAMMA <= 100
//   grid:R:C             R x C lattice, each vertex linked both ways to its <= 4 neighbours (road-like)
//   hub:N:M              every vertex links to vertex 0 (one row of P^T holds N - 1 links), plus
//                        M uniform arcs
//   dangling:N:M:F       M uniform arcs from only (1 - F) N of the vertices: a fraction F is dangling
//   chain:N:L            chains of L vertices, v -> v + 1 (chain:N:N is one chain of N)
//   web:N:M[:LOCAL[,GAMMA]]  web-like: sites of consecutive pages, Zipf-sized (10 to 100000 pages);
//                        a fraction LOCAL (default 0.9) of the links stay in their source's
//                        site, to its popular pages (power law GAMMA, default 2.5), the others
//                        go to popular pages of popular sites (io/synthetic.cpp has the model)
//   cite:N:M[:COPY]      citation-like: each vertex cites older ones (ids in order of time, acyclic),
//                        a fraction COPY (default 0.5) of the citations copied from an older
//                        vertex's, so in-degrees ~ d^-(1 + 1/COPY) and low ids are the popular ones
//   ws:N:K:P             small world (Watts-Strogatz): a ring, each vertex linked to its K nearest
//                        (1 <= K < N), each link rewired to a uniform target with probability P
//   sbm:N:M:K[:MU]       communities (a stochastic block model): K blocks of consecutive ids
//                        (1 <= K <= N), a fraction MU (default 0.1) of the arcs to a uniform vertex,
//                        the others to a uniform vertex of their source's block
//   bip:U:I:M[:GAMMA]    bipartite: users 0 .. U - 1, items U .. U + I - 1, M interactions each
//                        both ways (2M arcs), both ends by a power law GAMMA (default 2.5)
// Deterministic: the same spec gives the same matrix on every machine and for
// every thread count (each draw has its own counter-based random stream).
// R-MAT draws run as AVX-512 vectors where the CPU has them (the same
// numbers; PERRON_RMAT_SCALAR=1 forces the portable loop, for tests).
// Generation is parallel (OpenMP) throughout: draws, then a two-pass bucket
// sort into rows; a graph peaks at about 16 bytes per draw plus 16 per vertex
// (web: 24), checked against the memory free before anything large is allocated.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../core/formats.hpp"

namespace perron::io {

// Any of the prefixes above.
bool is_synthetic_spec(const std::string& spec);
// The graph families (rmat: to bip:), whose matrices are patterns.
bool is_synthetic_graph_spec(const std::string& spec);

// Throws invalid_argument naming the spec and the expected forms when malformed,
// when a parameter is out of its range, or when the size does not fit 32-bit indices.
coo_matrix<double> generate_synthetic(const std::string& spec);

// A graph spec (rmat: to chain:, web:) as the CSR of A^T, the form the
// PageRank build takes: row i lists the sources j of the arcs j -> i, sorted
// and distinct, values 1. The same arcs as generate_synthetic's, without the
// COO of A (4 + sizeof(T) bytes per link instead of 16).
template <class T>
csr_matrix<T> generate_graph_transpose(const std::string& spec);

// A generated graph's A^T in row pieces, for graphs past 2^31 links (no one
// CSR of 32-bit offsets holds them): cut(block_draws) gets the arcs drawn
// into each 4096-row block of A^T (before duplicates merge: each block's cost,
// known before any row is built) and returns the pieces' boundaries, 0 to n
// on 4096-row blocks (invalid_argument otherwise, and when a piece would pass
// 2^31 draws). Piece k's rows are generate_graph_transpose's rows
// first[k] .. first[k + 1], whatever the cut; out_degree[j] counts j's
// distinct out-links (its column entries over all pieces). The families of
// draws (every one but grid and chain) are built piece by piece,
// their draws made twice (count, place); grid and
// chain are built whole and cut. The host memory is checked first.
inline constexpr std::uint64_t piece_rows = 4096;
using piece_cut = std::function<std::vector<index_t>(const std::vector<std::uint64_t>& block_draws)>;
struct transpose_pieces {
  csr_pieces at;                          // A^T's pattern
  std::vector<std::uint32_t> out_degree;  // n
  std::uint64_t links = 0;
};
transpose_pieces generate_transpose_pieces(const std::string& spec, const piece_cut& cut);

// Draws e0 .. e1 - 1 (clamped to the spec's draw count, synthetic_graph_size's
// arcs) of a generated graph of draws (every family but grid and chain) as
// arcs source[k] -> target[k], in draw order, duplicates kept (the
// whole graph merges them): one process's share of a graph generated across
// processes (mpirun). false, and nothing drawn, for grid: and chain:.
bool synthetic_draws(const std::string& spec, std::uint64_t e0, std::uint64_t e1,
                     std::vector<index_t>& source, std::vector<index_t>& target);

// A graph spec's vertices and its arcs before duplicates merge (at least its
// links), read from the spec alone: sizes for memory checks and device
// choice before generating. invalid_argument when malformed.
struct synthetic_size {
  index_t vertices = 0;
  std::uint64_t arcs = 0;
};
synthetic_size synthetic_graph_size(const std::string& spec);
// The same for any spec (is_synthetic_spec): the graphs' as above; tridiag:N
// and synthetic:seedS:N their rows and nonzeros (the seeded matrix's counted
// from its row lengths, one hash a row, as generating it counts them first).
synthetic_size synthetic_spec_size(const std::string& spec);

// web:N:M[...]: the first page of each site, then N (site s owns pages
// [sites[s], sites[s + 1])), for tests and measurements of locality.
std::vector<index_t> web_sites(const std::string& spec);

}  // namespace perron::io
