// Vertex reordering on the CPU (kernels/reorder.hpp).
//
// Reverse Cuthill-McKee, level-synchronous and parallel (the scheme of
// Karantasis et al., "Parallelization of reordering algorithms for bandwidth
// and wavefront reduction", SC 2014): serial Cuthill-McKee visits the
// vertices of a level in order, and each appends its unvisited neighbours by
// increasing degree; an unvisited vertex is therefore the child of the first
// (least-positioned) vertex of the level that reaches it. Here every vertex of
// the level proposes its position to its unvisited neighbours at once (an
// atomic minimum), and the discovered vertices are then sorted by (parent's
// position, degree, id): exactly the serial order, whatever the thread count
// and whichever thread discovered what.
#include "kernels/reorder.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <utility>

#include "core/memory.hpp"
#include "core/names.hpp"

namespace perron {
namespace {

constexpr name_table<vertex_order, 3> order_names{{
    {vertex_order::none, "none"},
    {vertex_order::rcm, "rcm"},
    {vertex_order::dbg, "dbg"},
}};

// A level this small is expanded by one thread, outside any parallel region:
// a region costs more than the work (long thin components, e.g. grids, have
// thousands of levels; R-MAT graphs have many components of a few vertices).
constexpr index_t parallel_level = 1024;

constexpr index_t unseen = std::numeric_limits<index_t>::max();
constexpr index_t root = -1;  // the parent of a component's first vertex

// The pattern of A^T, in parallel: each row's entries in whatever order the
// threads wrote them (the visit below does not depend on the order of a
// vertex's neighbours), so no per-row sort and no values.
struct pattern {
  std::vector<index_t> row_ptr, col_idx;
};
template <class T>
pattern transposed_pattern(const csr_matrix<T>& a) {
  const std::size_t n = static_cast<std::size_t>(a.cols);
  std::vector<std::atomic<index_t>> next(n + 1);
#pragma omp parallel for schedule(static)
  for (std::size_t j = 0; j <= n; ++j) next[j].store(0, std::memory_order_relaxed);
#pragma omp parallel for schedule(static)
  for (std::size_t k = 0; k < a.nnz(); ++k)
    next[static_cast<std::size_t>(a.col_idx[k]) + 1].fetch_add(1, std::memory_order_relaxed);
  pattern t;
  t.row_ptr.resize(n + 1);
  index_t sum = 0;
  for (std::size_t j = 0; j <= n; ++j) {
    sum += next[j].load(std::memory_order_relaxed);
    t.row_ptr[j] = sum;
    next[j].store(sum, std::memory_order_relaxed);
  }
  // next[j] is now row j's start: each entry takes the next free slot of its row.
  t.col_idx.resize(a.nnz());
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      t.col_idx[static_cast<std::size_t>(
          next[static_cast<std::size_t>(a.col_idx[k])].fetch_add(1, std::memory_order_relaxed))] = i;
  return t;
}

// The undirected graph A + A^T without merging it: a vertex's neighbours are
// its row of A and its row of A^T (a pair linked both ways is listed twice,
// which the visit ignores).
template <class T>
struct undirected_graph {
  const csr_matrix<T>& a;
  pattern at;
  std::vector<index_t> degree;  // row lengths of A plus A^T

  explicit undirected_graph(const csr_matrix<T>& m) : a(m), at(transposed_pattern(m)), degree(m.rows) {
#pragma omp parallel for schedule(static)
    for (index_t v = 0; v < a.rows; ++v)
      degree[v] = (a.row_ptr[v + 1] - a.row_ptr[v]) + (at.row_ptr[v + 1] - at.row_ptr[v]);
  }

  template <class F>
  void for_each_neighbour(index_t u, F&& f) const {
    for (index_t k = a.row_ptr[u]; k < a.row_ptr[u + 1]; ++k) f(a.col_idx[k]);
    for (index_t k = at.row_ptr[u]; k < at.row_ptr[u + 1]; ++k) f(at.col_idx[k]);
  }
};

// The vertices by (degree, id), a stable counting sort: the candidates for
// each component's first vertex (one of least degree, as in SciPy's RCM).
std::vector<index_t> by_degree(const std::vector<index_t>& degree) {
  const index_t top = degree.empty() ? 0 : *std::max_element(degree.begin(), degree.end());
  std::vector<index_t> start(static_cast<std::size_t>(top) + 2, 0);
  for (index_t d : degree) ++start[static_cast<std::size_t>(d) + 1];
  for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
  std::vector<index_t> out(degree.size());
  for (std::size_t v = 0; v < degree.size(); ++v)
    out[static_cast<std::size_t>(start[static_cast<std::size_t>(degree[v])]++)] = static_cast<index_t>(v);
  return out;
}

// Cuthill-McKee's state: order[0, placed) is the order so far; parent[v] is
// unseen, root, or the position of v's parent in order.
template <class T>
class cuthill_mckee {
 public:
  explicit cuthill_mckee(const csr_matrix<T>& a)
      : g_(a),
        parent_(static_cast<std::size_t>(a.rows)),
        order_(static_cast<std::size_t>(a.rows)),
        found_(static_cast<std::size_t>(omp_get_max_threads())) {
#pragma omp parallel for schedule(static)
    for (index_t v = 0; v < a.rows; ++v) parent_[v].store(unseen, std::memory_order_relaxed);
  }

  // The order: every component from its least (degree, id) vertex, in that order.
  std::vector<index_t> run() {
    index_t placed = 0;
    for (index_t c : by_degree(g_.degree)) {
      if (parent_[c].load(std::memory_order_relaxed) != unseen) continue;
      parent_[c].store(root, std::memory_order_relaxed);
      order_[placed] = c;
      index_t lb = placed, le = placed + 1;
      while (lb < le) {
        const index_t end = next_level(lb, le);
        lb = le;
        le = end;
      }
      placed = le;
    }
    return std::move(order_);
  }

 private:
  const undirected_graph<T> g_;
  std::vector<std::atomic<index_t>> parent_;
  std::vector<index_t> order_;
  std::vector<std::vector<index_t>> found_;  // per thread: the vertices it discovered first
  std::vector<index_t> bucket_;              // per parent of a level: its children's start

  // v is proposed the parent position p: the least proposal stays. The thread
  // that first moves v from unseen records it (once per vertex).
  void propose(index_t v, index_t p, index_t lb, std::vector<index_t>& mine) {
    index_t cur = parent_[v].load(std::memory_order_relaxed);
    if (cur < lb) return;  // placed in an earlier level (or a root)
    while (p < cur) {
      if (parent_[v].compare_exchange_weak(cur, p, std::memory_order_relaxed)) {
        if (cur == unseen) mine.push_back(v);
        return;
      }
    }
  }

  // Appends the level after order[lb, le) at order[le, end) and returns end.
  index_t next_level(index_t lb, index_t le) {
    const bool wide = le - lb >= parallel_level;
    for (auto& f : found_) f.clear();
    const auto visit = [&](index_t p, std::vector<index_t>& mine) {
      g_.for_each_neighbour(order_[p], [&](index_t v) { propose(v, p, lb, mine); });
    };
    if (wide) {
#pragma omp parallel
      {
        std::vector<index_t>& mine = found_[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 64)
        for (index_t p = lb; p < le; ++p) visit(p, mine);
      }
    } else {
      for (index_t p = lb; p < le; ++p) visit(p, found_[0]);
    }
    std::size_t count = 0;
    for (const auto& f : found_) count += f.size();
    if (count == 0) return le;
    // Counting sort by parent position into order[le, end), then each
    // parent's children by (degree, id).
    bucket_.assign(static_cast<std::size_t>(le - lb) + 1, 0);
    for (const auto& f : found_)
      for (index_t v : f) ++bucket_[static_cast<std::size_t>(parent_[v] - lb) + 1];
    for (std::size_t k = 1; k < bucket_.size(); ++k) bucket_[k] += bucket_[k - 1];
    for (const auto& f : found_)
      for (index_t v : f) order_[le + bucket_[static_cast<std::size_t>(parent_[v] - lb)]++] = v;
    // bucket_[k] is now the end of parent lb + k's children (and the start of k + 1's).
    const auto by_degree_then_id = [&](index_t x, index_t y) {
      return g_.degree[x] != g_.degree[y] ? g_.degree[x] < g_.degree[y] : x < y;
    };
    const auto sort_children = [&](index_t k) {  // of parent lb + k
      const index_t first = le + (k == 0 ? 0 : bucket_[static_cast<std::size_t>(k) - 1]);
      const index_t last = le + bucket_[static_cast<std::size_t>(k)];
      if (last - first > 1) std::sort(order_.begin() + first, order_.begin() + last, by_degree_then_id);
    };
    if (wide) {
#pragma omp parallel for schedule(dynamic, 256)
      for (index_t k = 0; k < le - lb; ++k) sort_children(k);
    } else {
      for (index_t k = 0; k < le - lb; ++k) sort_children(k);
    }
    return le + static_cast<index_t>(count);
  }
};

// Degree-based grouping (Faldu, Diamond and Grot, "A Closer Look at
// Lightweight Graph Reordering", IISWC 2019): the vertices in groups by how
// often a pull gathers them (their column's count c_j), hottest group first,
// each group in the given order (a stable sort, so what locality the ids
// had survives inside a group). With d the mean count, the groups' lower
// bounds are 32d, 16d, 8d, 4d, 2d, d, d/2 and 0: the few hot entries of x
// then share cache lines instead of one line each.
template <class T>
std::vector<index_t> degree_groups(const csr_matrix<T>& a) {
  constexpr int groups = 8;
  const std::size_t n = static_cast<std::size_t>(a.cols);
  std::vector<std::atomic<index_t>> count(n);
#pragma omp parallel for schedule(static)
  for (std::size_t j = 0; j < n; ++j) count[j].store(0, std::memory_order_relaxed);
#pragma omp parallel for schedule(static)
  for (std::size_t k = 0; k < a.nnz(); ++k)
    count[static_cast<std::size_t>(a.col_idx[k])].fetch_add(1, std::memory_order_relaxed);
  const double mean = n ? static_cast<double>(a.nnz()) / static_cast<double>(n) : 0.0;
  const auto group = [&](std::size_t j) {
    const double c = count[j].load(std::memory_order_relaxed);
    int g = 0;  // the hottest: c >= 32 d
    for (double bound = 32 * mean; g < groups - 1 && c < bound; bound /= 2) ++g;
    return g;
  };
  // A stable counting sort over fixed blocks of vertices (the same positions
  // for every thread count): per block and group a count, their prefix sums
  // in (group, block) order, then each block places its vertices.
  const std::size_t block = 1 << 16, blocks = (n + block - 1) / block;
  std::vector<std::size_t> at(blocks * groups + 1, 0);
#pragma omp parallel for schedule(static)
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::size_t j = b * block; j < std::min(n, (b + 1) * block); ++j) ++at[group(j) * blocks + b + 1];
  for (std::size_t k = 1; k < at.size(); ++k) at[k] += at[k - 1];
  std::vector<index_t> order(n);
#pragma omp parallel for schedule(static)
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::size_t j = b * block; j < std::min(n, (b + 1) * block); ++j)
      order[at[group(j) * blocks + b]++] = static_cast<index_t>(j);
  return order;
}

template <class T>
void check_square(const csr_matrix<T>& a, const char* who) {
  if (a.rows != a.cols)
    throw dimension_error(std::string(who) + ": a vertex order needs a square matrix, got " +
                          dimensions(a.rows, a.cols));
}

}  // namespace

std::string_view name(vertex_order o) { return name_in(order_names, o); }
vertex_order parse_vertex_order(std::string_view s) { return parse_in(order_names, s, "vertex order"); }
std::string vertex_order_names() { return names_in(order_names); }

// The fields are public, so a permutation may be built by hand: one whose two
// arrays are not inverse permutations of each other would index out of range.
// O(n), as the relabelling that follows.
void detail::check_permutation(const permutation& p, const char* who) {
  const std::size_t n = p.new_id.size();
  if (p.old_id.size() != n)
    throw invalid_argument(std::string(who) + ": the permutation's new_id has " + std::to_string(n) +
                           " entries and its old_id " + std::to_string(p.old_id.size()));
  std::size_t first_bad = n;
#pragma omp parallel for schedule(static) reduction(min : first_bad) if (n >= 65536)
  for (std::size_t i = 0; i < n; ++i) {
    const index_t j = p.new_id[i];
    if (j < 0 || static_cast<std::size_t>(j) >= n ||
        p.old_id[static_cast<std::size_t>(j)] != static_cast<index_t>(i))
      first_bad = std::min(first_bad, i);
  }
  if (first_bad < n)
    throw invalid_argument(std::string(who) + ": not a permutation of " + std::to_string(n) +
                           " vertices: new_id[" + std::to_string(first_bad) + "] is " +
                           std::to_string(p.new_id[first_bad]) +
                           " (new_id and old_id must be inverse permutations of 0..n-1)");
}

void detail::check_vertex_vector(std::size_t length, const permutation& p, const char* who) {
  if (length != p.new_id.size())
    throw dimension_error(std::string(who) + ": a vector of " + std::to_string(length) +
                          " entries for a permutation of " + std::to_string(p.new_id.size()) + " vertices");
  check_permutation(p, who);
}

permutation permutation::from_order(std::vector<index_t> old_id) {
  permutation p;
  p.new_id.assign(old_id.size(), -1);
  for (std::size_t k = 0; k < old_id.size(); ++k) {
    const index_t v = old_id[k];
    if (v < 0 || static_cast<std::size_t>(v) >= old_id.size() || p.new_id[static_cast<std::size_t>(v)] != -1)
      throw invalid_argument("not a permutation of " + std::to_string(old_id.size()) + " vertices: entry " +
                             std::to_string(k) + " is " + std::to_string(v));
    p.new_id[static_cast<std::size_t>(v)] = static_cast<index_t>(k);
  }
  p.old_id = std::move(old_id);
  return p;
}

template <class T>
permutation locality_order(const csr_matrix<T>& a, vertex_order o) {
  check_square(a, "locality_order");
  validate(a, "locality_order");
  const std::size_t n = static_cast<std::size_t>(a.rows);
  // rcm's working set: the pattern of A^T (n + 1 + nnz indices), and per
  // vertex its degree, parent, place in the order and in the permutation.
  if (o == vertex_order::rcm)
    check_host_memory(4.0 * (static_cast<double>(n) + 1 + static_cast<double>(a.nnz())) + 20.0 * n,
                      "the " + std::string(name(o)) + " order of a graph of " + std::to_string(n) +
                          " vertices and " + std::to_string(a.nnz()) + " links");
  std::vector<index_t> order(n);
  switch (o) {
    case vertex_order::none:
      for (std::size_t v = 0; v < n; ++v) order[v] = static_cast<index_t>(v);
      break;
    case vertex_order::rcm:
      order = cuthill_mckee<T>(a).run();
      std::reverse(order.begin(), order.end());
      break;
    case vertex_order::dbg:
      order = degree_groups(a);
      break;
  }
  return permutation::from_order(std::move(order));
}

template <class T>
csr_matrix<T> permute(const csr_matrix<T>& a, const permutation& p) {
  check_square(a, "permute");
  if (a.rows != p.size())
    throw dimension_error("permute: a " + dimensions(a.rows, a.cols) + " matrix and a permutation of " +
                          std::to_string(p.size()) + " vertices");
  detail::check_permutation(p, "permute");
  const index_t n = a.rows;
  check_host_memory(
      4.0 * (n + 1) + (4.0 + sizeof(T)) * static_cast<double>(a.nnz()),
      "the permuted copy of a " + dimensions(n, n) + " matrix with " + std::to_string(a.nnz()) + " entries");
  csr_matrix<T> b;
  b.rows = b.cols = n;
  b.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (index_t r = 0; r < n; ++r) {
    const index_t i = p.old_id[r];
    b.row_ptr[r + 1] = b.row_ptr[r] + (a.row_ptr[i + 1] - a.row_ptr[i]);
  }
  b.col_idx.resize(a.nnz());
  b.values.resize(a.values.size());
#pragma omp parallel
  {
    std::vector<std::pair<index_t, T>> row;  // (new column, value), sorted by column
#pragma omp for schedule(dynamic, 512)
    for (index_t r = 0; r < n; ++r) {
      const index_t i = p.old_id[r];
      row.clear();
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        row.emplace_back(p.new_id[a.col_idx[k]], a.values[k]);
      std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      for (std::size_t k = 0; k < row.size(); ++k) {
        b.col_idx[b.row_ptr[r] + static_cast<index_t>(k)] = row[k].first;
        b.values[b.row_ptr[r] + static_cast<index_t>(k)] = row[k].second;
      }
    }
  }
  return b;
}

// The gathers of x by rows first..last that hit an 8-way LRU cache of
// locality_cache_bytes in 64-byte lines, from cold.
template <class T>
std::size_t cache_hits(const csr_matrix<T>& a, index_t first, index_t last) {
  constexpr std::size_t ways = 8, line = 64, sets = locality_cache_bytes / line / ways;
  constexpr std::size_t per_line = line / sizeof(T);
  constexpr std::size_t empty = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> tag(sets * ways, empty);  // each set's lines, most recent first
  std::size_t hits = 0;
  for (index_t k = a.row_ptr[first]; k < a.row_ptr[last]; ++k) {
    const std::size_t l = static_cast<std::size_t>(a.col_idx[k]) / per_line;
    std::size_t* set = tag.data() + (l % sets) * ways;
    std::size_t w = 0;
    while (w < ways - 1 && set[w] != l) ++w;
    hits += set[w] == l;
    for (; w > 0; --w) set[w] = set[w - 1];  // l to the front; the last way falls out on a miss
    set[0] = l;
  }
  return hits;
}

template <class T>
locality_stats locality_of(const csr_matrix<T>& a, index_t window) {
  // Integer sums: the same figures for every thread count.
  unsigned long long gap = 0, near = 0, hits = 0;
#pragma omp parallel for schedule(static) reduction(+ : gap, near)
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const auto d = static_cast<unsigned long long>(std::llabs(static_cast<long long>(i) - a.col_idx[k]));
      gap += d;
      near += d < static_cast<unsigned long long>(window);
    }
  const long long rows = a.rows, parts = locality_cache_parts;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : hits)
  for (long long q = 0; q < parts; ++q)
    hits +=
        cache_hits(a, static_cast<index_t>(rows * q / parts), static_cast<index_t>(rows * (q + 1) / parts));
  locality_stats s;
  s.window = window;
  if (a.nnz() > 0) {
    const double nnz = static_cast<double>(a.nnz());
    s.mean_gap = static_cast<double>(gap) / nnz;
    s.within_window = static_cast<double>(near) / nnz;
    s.cache_hits = static_cast<double>(hits) / nnz;
  }
  return s;
}

namespace {
bool near(index_t i, index_t j, index_t window) {
  return static_cast<unsigned long long>(std::llabs(static_cast<long long>(i) - j)) <
         static_cast<unsigned long long>(window);
}
}  // namespace

template <class T>
double local_fraction(const csr_matrix<T>& a, index_t window, std::size_t samples) {
  if (a.nnz() == 0) return 0.0;
  // Rows evenly spaced, each whole, until about `samples` entries are seen:
  // a row's entries are the links one gather of the step reads together.
  const std::size_t mean = std::max<std::size_t>(1, a.nnz() / std::max<std::size_t>(a.rows, 1));
  const auto want_rows = static_cast<index_t>(std::max<std::size_t>(1, samples / mean));
  const index_t stride = std::max<index_t>(1, a.rows / want_rows);
  std::size_t seen = 0, local = 0;
  for (index_t i = 0; i < a.rows; i += stride)
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k, ++seen) local += near(i, a.col_idx[k], window);
  return seen ? static_cast<double>(local) / static_cast<double>(seen) : 0.0;
}

template <class T>
double local_fraction(const coo_matrix<T>& a, index_t window, std::size_t samples) {
  const std::size_t nnz = a.row_idx.size();
  if (nnz == 0) return 0.0;
  const std::size_t stride = std::max<std::size_t>(1, nnz / std::max<std::size_t>(samples, 1));
  std::size_t seen = 0, local = 0;
  for (std::size_t k = 0; k < nnz; k += stride, ++seen) local += near(a.row_idx[k], a.col_idx[k], window);
  return static_cast<double>(local) / static_cast<double>(seen);
}

#define PERRON_REORDER_INSTANTIATE(T)                                            \
  template permutation locality_order<T>(const csr_matrix<T>&, vertex_order);    \
  template csr_matrix<T> permute<T>(const csr_matrix<T>&, const permutation&);   \
  template locality_stats locality_of<T>(const csr_matrix<T>&, index_t);         \
  template double local_fraction<T>(const csr_matrix<T>&, index_t, std::size_t); \
  template double local_fraction<T>(const coo_matrix<T>&, index_t, std::size_t);
PERRON_REORDER_INSTANTIATE(float)
PERRON_REORDER_INSTANTIATE(double)
#undef PERRON_REORDER_INSTANTIATE

}  // namespace perron
