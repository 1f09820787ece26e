// Built-in synthetic matrices and graphs, accepted wherever a matrix file name
// is (load_matrix dispatches on the prefix). N is a vertex count, M a count of
// arc draws (duplicates merged, so a graph has at most M links); the graphs
// are patterns (value 1, arc i -> j at (i, j)):
//   synthetic:seedS:N    N x N, each row 0..32 distinct random columns (uniform), values in [-1,1)
//   tridiag:N            N x N tridiagonal [-1 2 -1] (the 1D Laplacian, SPD)
//   rmat:S:M[:A,B,C]     R-MAT, 2^S vertices, quadrant probabilities A,B,C and D = 1 - A - B - C
//                        (default Graph500's .57,.19,.19; .25,.25,.25 is uniform; larger A, more skew)
//   er:N:M               Erdos-Renyi: both ends of each arc uniform
//   powerlaw:N:M:GAMMA   configuration model (Chung-Lu): in- and out-degrees ~ d^-GAMMA, GAMMA > 2
//   grid:R:C             R x C lattice, each vertex linked both ways to its <= 4 neighbours (road-like)
//   hub:N:M              every vertex links to vertex 0 (one row of P^T holds N - 1 links), plus
//                        M uniform arcs
//   dangling:N:M:F       M uniform arcs from only (1 - F) N of the vertices: a fraction F is dangling
//   chain:N:L            chains of L vertices, v -> v + 1 (chain:N:N is one chain of N)
// Deterministic: the same spec gives the same matrix on every machine and for
// every thread count (each draw has its own counter-based random stream).
#pragma once

#include <string>

#include "core/formats.hpp"

namespace perron::io {

// Any of the prefixes above.
bool is_synthetic_spec(const std::string& spec);
// The graph families (rmat: to chain:), whose matrices are patterns.
bool is_synthetic_graph_spec(const std::string& spec);

// Throws invalid_argument naming the spec and the expected forms when malformed,
// when a parameter is out of its range, or when the size does not fit 32-bit indices.
coo_matrix<double> generate_synthetic(const std::string& spec);

}  // namespace perron::io
