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

#include "../core/error.hpp"
#include "../core/formats.hpp"

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
// permute(permute(a, p), p.inverse()) == a. dimension_error when the sizes differ,
// invalid_argument when p's arrays are not inverse permutations (one built by hand).
template <class T>
csr_matrix<T> permute(const csr_matrix<T>& a, const permutation& p);

// Vertex vectors: to_new(x)[p.new_id[i]] = x[i]; to_old undoes it.
// dimension_error when the length is not p.size(), invalid_argument as permute.
namespace detail {
void check_permutation(const permutation& p, const char* who);
void check_vertex_vector(std::size_t length, const permutation& p, const char* who);
}  // namespace detail
template <class V, class A>
std::vector<V, A> to_new(const std::vector<V, A>& x, const permutation& p) {
  detail::check_vertex_vector(x.size(), p, "to_new");
  std::vector<V, A> y(x.size());
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < x.size(); ++i) y[static_cast<std::size_t>(p.new_id[i])] = x[i];
  return y;
}
template <class V, class A>
std::vector<V, A> to_old(const std::vector<V, A>& y, const permutation& p) {
  detail::check_vertex_vector(y.size(), p, "to_old");
  std::vector<V, A> x(y.size());
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < y.size(); ++i) x[i] = y[static_cast<std::size_t>(p.new_id[i])];
  return x;
}

// How local a matrix's gathers are: over its entries (i, j), the mean of
// |i - j|, the fraction with |i - j| < window (the row's neighbourhood that a
// cache of window entries of x would hold), and the fraction of gathers of
// x[j] (sizeof(T) bytes each) that hit a simulated cache: 64-byte lines,
// cache_bytes, 8-way set-associative, least recently used out; the rows cut
// into cache_parts equal runs, each with its own cold cache (as cores or SMs
// take runs of rows). A band order can widen |i - j| and still hit more
// (rows next to each other gather the same lines): the hit rate is the proxy
// that follows the time; the gaps say why.
struct locality_stats {
  double mean_gap = 0;
  double within_window = 0;
  double cache_hits = 0;
  index_t window = 0;
};
inline constexpr index_t locality_window = 32768;
inline constexpr std::size_t locality_cache_bytes = 1 << 20;
inline constexpr int locality_cache_parts = 64;
template <class T>
locality_stats locality_of(const csr_matrix<T>& a, index_t window = locality_window);
// The cheap estimate of locality_stats::within_window that the device model
// asks for (solvers/device_choice.hpp device_facts::local_links): the fraction
// of the entries (i, j) with |i - j| < window over about `samples` entries
// evenly spaced (a CSR's rows evenly spaced, whole; a COO's entries). On a
// 10^7-link graph a few milliseconds less than a whole pass; 0 for no entries.
inline constexpr std::size_t local_fraction_samples = std::size_t{1} << 18;
template <class T>
double local_fraction(const csr_matrix<T>& a, index_t window = locality_window,
                      std::size_t samples = local_fraction_samples);
template <class T>
double local_fraction(const coo_matrix<T>& a, index_t window = locality_window,
                      std::size_t samples = local_fraction_samples);

}  // namespace perron
