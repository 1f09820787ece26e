// Vertex reordering: a relabelling of a square matrix's rows and columns
// together (B = Q A Q^T), chosen so that the columns a row gathers sit close
// to the row and to each other, and the way back for vectors.
//
// A pull SpMV y = A x reads x[j] for every column j of row i. Past the
// caches, each such gather that misses costs a memory transaction; ordering
// the vertices so that linked vertices get nearby ids turns gathers into
// hits of lines that neighbouring rows just loaded.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/formats.hpp"

namespace perron {

enum class vertex_order {
  none,  // the ids as given
  // Reverse Cuthill-McKee on the undirected graph A + A^T: breadth-first
  // levels from a vertex of least degree per connected component, each
  // level's vertices by (parent's position, degree, id), the whole order
  // reversed. The vertices of a row then lie within a band around it.
  rcm,
  // Degree-based grouping (Faldu et al., IISWC 2019): the vertices in eight
  // groups by their column's count (how often a pull gathers them), from
  // 32x the mean down, hottest first, each group in the given order. O(n + nnz):
  // the hot entries of x pack into few cache lines; the ids' own locality
  // stays within each group.
  dbg,
};
std::string_view name(vertex_order o);                // "none", "rcm", "dbg"
vertex_order parse_vertex_order(std::string_view s);  // throws invalid_argument
std::string vertex_order_names();                     // "none, rcm, dbg"

// A relabelling of n vertices and its inverse.
struct permutation {
  std::vector<index_t> new_id;  // old id -> new id
  std::vector<index_t> old_id;  // new id -> old id

  index_t size() const { return static_cast<index_t>(new_id.size()); }
  // From the list of old ids in their new order (old_id); invalid_argument
  // when it is not a permutation of 0..n-1.
  static permutation from_order(std::vector<index_t> old_id);
  // The relabelling that undoes this one.
  permutation inverse() const { return {old_id, new_id}; }
};

// The vertex order o of the square matrix a's pattern (values ignored),
// computed in parallel (OpenMP); the same permutation for every thread count.
// none: the identity. dimension_error for a matrix that is not square.
template <class T>
permutation locality_order(const csr_matrix<T>& a, vertex_order o);

// B = Q A Q^T: B(p.new_id[i], p.new_id[j]) = A(i, j), rows' columns sorted.
// permute(permute(a, p), p.inverse()) == a. dimension_error when the sizes differ.
template <class T>
csr_matrix<T> permute(const csr_matrix<T>& a, const permutation& p);

// Vertex vectors: to_new(x)[p.new_id[i]] = x[i]; to_old undoes it.
// dimension_error when the length is not p.size().
template <class V>
std::vector<V> to_new(const std::vector<V>& x, const permutation& p) {
  if (x.size() != p.new_id.size())
    throw dimension_error("to_new: a vector of " + std::to_string(x.size()) +
                          " entries for a permutation of " + std::to_string(p.new_id.size()) + " vertices");
  std::vector<V> y(x.size());
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < x.size(); ++i) y[static_cast<std::size_t>(p.new_id[i])] = x[i];
  return y;
}
template <class V>
std::vector<V> to_old(const std::vector<V>& y, const permutation& p) {
  if (y.size() != p.new_id.size())
    throw dimension_error("to_old: a vector of " + std::to_string(y.size()) +
                          " entries for a permutation of " + std::to_string(p.new_id.size()) + " vertices");
  std::vector<V> x(y.size());
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < y.size(); ++i) x[i] = y[static_cast<std::size_t>(p.new_id[i])];
  return x;
}

// How local a matrix's gathers are: over its entries (i, j), the mean of
// |i - j| and the fraction with |i - j| < window (the row's neighbourhood
// that a cache of window entries of x would hold).
struct locality_stats {
  double mean_gap = 0;
  double within_window = 0;
  index_t window = 0;
};
inline constexpr index_t locality_window = 32768;
template <class T>
locality_stats locality_of(const csr_matrix<T>& a, index_t window = locality_window);

}  // namespace perron
