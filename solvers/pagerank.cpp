// PageRank: the P^T build, option checks, the CPU (OpenMP) power iteration and
// the CPU/GPU dispatch.
#include "solvers/pagerank.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/names.hpp"
#include "core/text.hpp"
#include "kernels/convert.hpp"
#include "kernels/counting_sort.hpp"
#include "kernels/gpu_convert.hpp"
#include "kernels/vector_ops.hpp"
#include "solvers/pagerank_accel.hpp"
#include "solvers/pagerank_device.hpp"
#include "solvers/pagerank_step.hpp"
#include "solvers/pagerank_trial.hpp"

namespace perron {
namespace {

// The row of entry k of a CSR (binary search in row_ptr; for messages only).
template <class T>
index_t row_of(const csr_matrix<T>& a, std::size_t k) {
  const auto it = std::upper_bound(a.row_ptr.begin(), a.row_ptr.end(), static_cast<index_t>(k));
  return static_cast<index_t>(it - a.row_ptr.begin()) - 1;
}

std::string vertex_name(const vertex_naming& label, index_t i) { return label(i); }

// How often each of 0..n-1 occurs in col[0..links) (exact in any order).
// Each thread counts its share into a histogram of its own, then they are
// added per vertex: at most links / n threads, and histograms of at most
// count_histogram_bytes in all. Where not even two fit (10^7 vertices and
// more), atomic increments, cheap there (the counters spread over the
// vertices); on one thread, plain ones. On rmat:20 at 2 threads the atomic
// count took 29 ms against 13 for one thread's plain count and 10 for the
// histograms.
constexpr std::size_t count_histogram_bytes = std::size_t(256) << 20;

std::vector<index_t> column_counts(const index_t* col, std::int64_t links, index_t n) {
  const auto nn = static_cast<std::size_t>(n);
  const int threads = links < 65536 ? 1 : omp_get_max_threads();
  const std::int64_t fit =
      static_cast<std::int64_t>(count_histogram_bytes / (sizeof(index_t) * std::max<std::size_t>(nn, 1)));
  const int p = static_cast<int>(
      std::clamp<std::int64_t>(std::min(links / std::max<std::int64_t>(n, 1), fit), 1, threads));
  std::vector<index_t> count = fresh_vector<index_t>(static_cast<std::size_t>(p) * nn, 0);
  index_t* c = count.data();
  if (threads == 1) {
    for (std::int64_t k = 0; k < links; ++k) ++c[col[k]];
    return count;
  }
  if (p == 1) {
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < links; ++k) {
#pragma omp atomic
      ++c[col[k]];
    }
    return count;
  }
#pragma omp parallel num_threads(p)
  {
    const auto t = static_cast<std::int64_t>(omp_get_thread_num());
    const auto team = static_cast<std::int64_t>(omp_get_num_threads());
    index_t* mine = c + static_cast<std::size_t>(t) * nn;
    for (std::int64_t k = links * t / team, end = links * (t + 1) / team; k < end; ++k) ++mine[col[k]];
#pragma omp barrier
#pragma omp for schedule(static)
    for (index_t j = 0; j < n; ++j) {  // into thread 0's histogram
      index_t sum = 0;
      for (std::int64_t u = 0; u < team; ++u)
        sum += c[static_cast<std::size_t>(u) * nn + static_cast<std::size_t>(j)];
      c[j] = sum;
    }
  }
  count.resize(nn);
  return count;
}

// P^T of an unweighted graph from the pattern of its CSR of A^T (consistent,
// square, non-empty: the checks are the callers'), its values overwritten in
// place: P^T(i, j) = 1 / d_j with d_j the count of column j, rounded to T from
// the double. In parallel throughout (the counts are exact in any order).
template <class T>
pagerank_graph<T> graph_from_pattern(csr_matrix<T> at) {
  const index_t n = at.rows;
  const auto links = static_cast<std::int64_t>(at.nnz());
  const index_t* col = at.col_idx.data();
  const std::vector<index_t> out = column_counts(col, links, n);
  pagerank_graph<T> g;
  g.pattern = true;
  g.dangling.assign(static_cast<std::size_t>(n), 0);
  index_t dangling = 0;
  // 1 / d_j once per vertex, then gathered (a division per link was most of the pass).
  std::vector<T> w(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) reduction(+ : dangling) if (n >= 65536)
  for (index_t j = 0; j < n; ++j) {
    if (out[j] == 0) {
      g.dangling[j] = 1;
      ++dangling;
    }
    w[j] = out[j] == 0 ? T(0) : static_cast<T>(1.0 / static_cast<double>(out[j]));
  }
  g.dangling_count = dangling;
  T* value = at.values.data();
#pragma omp parallel for schedule(static) if (links >= 65536)
  for (std::int64_t k = 0; k < links; ++k) value[k] = w[col[k]];
  g.pt = std::move(at);
  return g;
}

// P^T from a consistent, square, non-empty CSR of A^T (the checks are the
// callers'). A weighted graph's out-weights are summed link by link in A^T's
// order (the order the distributed solve sums them in too), serially.
template <class T>
pagerank_graph<T> graph_from_transpose(csr_matrix<double> at, bool weighted, const vertex_naming& label) {
  if (!weighted) {
    csr_matrix<T> pattern;
    pattern.rows = at.rows;
    pattern.cols = at.cols;
    pattern.row_ptr = std::move(at.row_ptr);
    pattern.col_idx = std::move(at.col_idx);
    if constexpr (std::is_same_v<T, double>)
      pattern.values = std::move(at.values);
    else
      pattern.values = fresh_vector<T>(pattern.col_idx.size(), T(0), host_threads());
    return graph_from_pattern(std::move(pattern));
  }
  // d_j = out-weight of j = column sums of A^T.
  const index_t n = at.rows;
  std::vector<double> out(static_cast<std::size_t>(n), 0.0);
  for (std::size_t k = 0; k < at.nnz(); ++k) {
    const double w = at.values[k];
    // An infinite weight here is mostly the sum of an arc's repeated entries
    // (two of 1.7e308 each, merged by to_csr): the readers refuse 'inf'.
    if (!(w >= 0.0) || !std::isfinite(w))
      throw invalid_argument("arc " + vertex_name(label, at.col_idx[k]) + " -> " +
                             vertex_name(label, row_of(at, k)) + " has weight " + format_shortest(w) +
                             (w > 0.0 ? " (its repeated entries, summed, overflow a double)" : "") +
                             ": --weighted needs finite, non-negative weights");
    out[at.col_idx[k]] += w;
  }
  pagerank_graph<T> g;
  g.pattern = false;
  g.dangling.assign(static_cast<std::size_t>(n), 0);
  for (index_t j = 0; j < n; ++j) {
    if (!std::isfinite(out[j]))
      throw invalid_argument("vertex " + vertex_name(label, j) +
                             ": the sum of its out-arc weights overflows a double");
    if (out[j] == 0.0) {
      g.dangling[j] = 1;
      ++g.dangling_count;
    }
  }
  // P^T(i, j) = A(j, i) / d_j, rounded to T from the double. An arc of weight
  // 0 out of a vertex whose every out-arc weighs 0 stays an explicit 0 (that
  // vertex is dangling).
  const auto links = static_cast<std::int64_t>(at.nnz());
  const index_t* col = at.col_idx.data();
  const double* a = at.values.data();
  std::vector<T> values;  // unused for double: in place
  T* value = nullptr;
  if constexpr (std::is_same_v<T, double>) {
    value = at.values.data();
  } else {
    values = fresh_vector<T>(at.nnz(), T(0), host_threads());
    value = values.data();
  }
#pragma omp parallel for schedule(static) if (links >= 65536)
  for (std::int64_t k = 0; k < links; ++k) {
    const double d = out[col[k]];
    value[k] = static_cast<T>(d == 0.0 ? 0.0 : a[k] / d);
  }
  g.pt.rows = at.rows;
  g.pt.cols = at.cols;
  g.pt.row_ptr = std::move(at.row_ptr);
  g.pt.col_idx = std::move(at.col_idx);
  if constexpr (std::is_same_v<T, double>)
    g.pt.values = std::move(at.values);
  else
    g.pt.values = std::move(values);
  return g;
}

}  // namespace

void check_vertex_count(std::int64_t vertices) {
  if (vertices > pagerank_max_vertices)
    throw dimension_error(std::to_string(vertices) + " vertices: PageRank takes at most " +
                          std::to_string(pagerank_max_vertices) +
                          " (32-bit vertex ids, less room for its blocks of rows)");
}

namespace {

// The adjacency matrix A, rows x cols, must be square and not empty, with
// one label per vertex or none.
void check_graph_shape(index_t rows, index_t cols, const vertex_naming& label) {
  if (rows != cols)
    throw dimension_error("PageRank needs a square adjacency matrix (vertices x vertices), got " +
                          std::to_string(rows) + " x " + std::to_string(cols) +
                          "; rows and columns as two sets of vertices: --bipartite (Python: "
                          "read_matrix(..., bipartite=True))");
  if (rows == 0) throw invalid_argument("the graph is empty (0 vertices)");
  check_vertex_count(rows);
  if (label.labelled() && label.size() != static_cast<std::size_t>(rows))
    throw dimension_error("vertex labels: " + std::to_string(label.size()) + " labels for " +
                          std::to_string(rows) + " vertices");
}

// The CSR of A^T that the builds without a conversion take: every row's
// columns strictly increasing (sources sorted, each once). validate() does not
// look, and a repeated source would count twice in its out-degree and in the
// row's sum (an unweighted arc given twice weighed twice), silently. One
// parallel pass over the columns; the first offending row is named, the same
// for every thread count.
template <class T>
void check_sources_sorted_unique(const csr_matrix<T>& at, const vertex_naming& label) {
  const index_t n = at.rows;
  const index_t* ptr = at.row_ptr.data();
  const index_t* col = at.col_idx.data();
  index_t first_bad = n;
#pragma omp parallel for reduction(min                           \
                                   : first_bad) schedule(static) \
    num_threads(threads_for_work(at.nnz() + static_cast <std::size_t>(n)))
  for (index_t i = 0; i < n; ++i)
    for (index_t k = ptr[i] + 1; k < ptr[i + 1]; ++k)
      if (col[k - 1] >= col[k]) {
        first_bad = std::min(first_bad, i);
        break;
      }
  if (first_bad == n) return;
  index_t k = ptr[first_bad] + 1;
  while (col[k - 1] < col[k]) ++k;
  throw invalid_argument(
      "PageRank graph (CSR of A^T): the in-arcs of vertex " + vertex_name(label, first_bad) +
      (col[k - 1] == col[k] ? " list source " + vertex_name(label, col[k]) + " twice"
                            : " are not sorted by source (" + vertex_name(label, col[k - 1]) + " before " +
                                  vertex_name(label, col[k]) + ")") +
      ": each row's columns must be sorted and unique (make_pagerank_graph or to_csr with "
      "transpose merge repeated arcs)");
}

}  // namespace

// ---- the operator ----------------------------------------------------------

template <class T>
pagerank_graph<T> make_pagerank_graph(const coo_matrix<double>& a, bool weighted, const vertex_naming& label,
                                      bool on_gpu) {
  check_graph_shape(a.rows, a.cols, label);
  // Per vertex: out-degree, dangling flag, the solver's vectors and the ranks
  // (about 48 bytes); per link: P^T in double and in T, and the conversion's
  // scratch (about 32). Checked before anything of that size is allocated.
  check_host_memory(48.0 * double(a.rows) + 32.0 * double(a.nnz()),
                    "PageRank of a graph of " + std::to_string(a.rows) + " vertices and " +
                        std::to_string(a.nnz()) + " links");
  if (weighted) {
    for (std::size_t k = 0; k < a.nnz(); ++k) {
      const double w = a.values[k];
      if (!(w >= 0.0) || !std::isfinite(w))
        throw invalid_argument("arc " + vertex_name(label, a.row_idx[k]) + " -> " +
                               vertex_name(label, a.col_idx[k]) + " has weight " + format_shortest(w) +
                               ": --weighted needs finite, non-negative weights");
    }
  }

  // CSR of A^T: row i = target, column j = source. Unweighted graphs keep each
  // arc once; weighted ones sum parallel arcs (Matrix Market semantics).
  csr_options opt;
  opt.transpose = true;
  opt.dup = weighted ? duplicates::sum : duplicates::keep_one;
  // An unweighted graph on the host: the pattern alone (its values are 1 / d_j).
  if (!weighted && !on_gpu) return graph_from_pattern(pattern_to_csr<T>(a, true));
  return graph_from_transpose<T>(on_gpu ? to_csr_on_gpu(a, opt) : to_csr(a, opt), weighted, label);
}

template <class T>
pagerank_graph<T> pagerank_graph_from_transpose(csr_matrix<double> at, bool weighted,
                                                const vertex_naming& label, transpose_rows rows) {
  validate(at, "PageRank graph (CSR of A^T)");
  check_graph_shape(at.cols, at.rows, label);  // A is at.cols x at.rows
  if (rows == transpose_rows::check) check_sources_sorted_unique(at, label);
  return graph_from_transpose<T>(std::move(at), weighted, label);
}

template <class T>
pagerank_graph<T> pagerank_graph_from_pattern(csr_matrix<T> at, const vertex_naming& label,
                                              transpose_rows rows) {
  validate(at, "PageRank graph (CSR of A^T)");
  check_graph_shape(at.cols, at.rows, label);  // A is at.cols x at.rows
  if (rows == transpose_rows::check) check_sources_sorted_unique(at, label);
  // Per vertex: the out-degree, the dangling flag, the solver's vectors and
  // the ranks; the links are already here and are written in place.
  check_host_memory(48.0 * double(at.rows),
                    "PageRank of a graph of " + std::to_string(at.rows) + " vertices");
  return graph_from_pattern(std::move(at));
}

fused_index fused_index_choice() {
  const char* env = std::getenv("PERRON_FUSED_INDEX");
  if (env == nullptr || *env == '\0') return fused_index::bits32;
  const std::string v = env;
  if (v == "32") return fused_index::bits32;
  if (v == "16") return fused_index::bits16;
  if (v == "trial") return fused_index::trial;
  throw invalid_argument("PERRON_FUSED_INDEX must be 16, 32 or trial, not '" + v + "'");
}

double pagerank_device_bytes(index_t n, std::size_t links, std::size_t value_bytes, pagerank_pull pull) {
  const double m = double(links), v = double(n), b = double(value_bytes);
  const double pattern = 8.25 * m + 68.0 * v;
  const double fused = fused_index_choice() == fused_index::bits32 ? pattern : 12.25 * m + 84.0 * v;
  const double spmv = 2.0 * (4.0 + b) * m + (5.0 + 7.0 * b) * v;
  if (pull == pagerank_pull::persistent) return pattern;
  if (pull == pagerank_pull::fused) return fused;
  if (pull == pagerank_pull::spmv) return spmv;
  return std::max(fused, spmv);
}

// ---- options -----------------------------------------------------------------

namespace {

constexpr name_table<pagerank_loop, 4> loop_names{{
    {pagerank_loop::automatic, "auto"},
    {pagerank_loop::graph_while, "graph-while"},
    {pagerank_loop::check_every, "check-every"},
    {pagerank_loop::host, "host"},
}};
// What --loop accepts: host is reported by the CPU solver, never asked for.
constexpr name_table<pagerank_loop, 3> loop_choices{{loop_names[0], loop_names[1], loop_names[2]}};

constexpr name_table<pagerank_accel, 5> accel_names{{
    {pagerank_accel::none, "none"},
    {pagerank_accel::quadratic, "quadratic"},
    {pagerank_accel::aitken, "aitken"},
    {pagerank_accel::automatic, "auto"},
    {pagerank_accel::rre, "rre"},
}};

constexpr name_table<pagerank_device, 3> device_names{{
    {pagerank_device::automatic, "auto"},
    {pagerank_device::cpu, "cpu"},
    {pagerank_device::cuda, "cuda"},
}};

}  // namespace

std::string_view name(pagerank_loop l) { return name_in(loop_names, l); }
pagerank_loop parse_pagerank_loop(std::string_view s) { return parse_in(loop_choices, s, "loop mode"); }
std::string_view name(pagerank_accel a) { return name_in(accel_names, a); }
pagerank_accel parse_pagerank_accel(std::string_view s) { return parse_in(accel_names, s, "acceleration"); }
std::string_view name(pagerank_device d) { return name_in(device_names, d); }
pagerank_device parse_pagerank_device(std::string_view s) { return parse_in(device_names, s, "device"); }

template <class T>
index_t longest_row(const csr_matrix<T>& a) {
  return longest_row(a.row_ptr.data(), a.rows);
}

uninitialized_vector<std::uint32_t> dangling_bits(const std::vector<std::uint8_t>& dangling) {
  const std::size_t n = dangling.size(), words = (n + 31) / 32;
  uninitialized_vector<std::uint32_t> bits(words);
  const std::uint8_t* d = dangling.data();
#pragma omp parallel for num_threads(threads_for_work(n)) schedule(static)
  for (std::size_t w = 0; w < words; ++w) {
    const std::size_t first = 32 * w, end = std::min(n, first + 32);
    std::uint32_t word = 0;
    for (std::size_t j = first; j < end; ++j) word |= std::uint32_t(d[j] != 0) << (j - first);
    bits[w] = word;
  }
  return bits;
}

namespace {

// The fractions of links (i, j), over the rows of every stride-th vertex,
// with |id(i) - id(j)| < locality_window, at mid range in
// [local_near_window, local_mid_window), and below local_near_window:
// pull_facts::local_links, local_links_mid and local_links_near (the pull
// rule) and own_order_local_links (the persistent pull's order trial).
struct locality {
  double local = 0, mid = 0, nearby = 0;
};
template <class T, class Id>
locality sampled_locality(const pagerank_graph<T>& g, Id id) {
  const auto& rp = g.pt.row_ptr;
  const index_t n = g.vertices();
  const index_t stride = std::max<index_t>(1, n / local_sample_rows);
  std::size_t sampled = 0, local = 0, mid = 0, nearby = 0;
  const index_t samples = (n + stride - 1) / stride;
#pragma omp parallel for reduction(+ : sampled, local, mid, nearby) schedule(static)
  for (index_t s = 0; s < samples; ++s) {
    const index_t i = s * stride;
    for (index_t q = rp[i]; q < rp[i + 1]; ++q) {
      const index_t a = id(i), b = id(g.pt.col_idx[q]), d = a > b ? a - b : b - a;
      local += d < locality_window;
      mid += d >= local_near_window && d < local_mid_window;
      nearby += d < local_near_window;
      ++sampled;
    }
  }
  const double over = sampled ? 1.0 / static_cast<double>(sampled) : 0.0;
  return {static_cast<double>(local) * over, static_cast<double>(mid) * over,
          static_cast<double>(nearby) * over};
}

}  // namespace

bool own_order_trial_size(std::size_t links, index_t vertices, double local_links, index_t max_in_degree) {
  if (links <= persistent_own_order_trial_links) return true;
  const double mean = double(links) / double(std::max<index_t>(vertices, 1));
  return links <= own_order_local_trial_links && local_links >= own_order_local_fraction &&
         double(max_in_degree) <= persistent_even_max_to_mean * mean;
}

bool fused_own_order_trial(std::size_t links, index_t vertices, double local_links, index_t max_in_degree) {
  const double mean = double(links) / double(std::max<index_t>(vertices, 1));
  return links > fused_own_order_min_links && vertices > fused_own_order_window &&
         local_links >= own_order_local_fraction &&
         double(max_in_degree) <= persistent_even_max_to_mean * mean;
}

bool fused_own_order_first(std::size_t links, index_t vertices, double local_links, index_t max_in_degree,
                           double x_l2) {
  const double mean = double(links) / double(std::max<index_t>(vertices, 1));
  if (vertices <= fused_own_order_window || local_links < own_order_local_fraction) return false;
  const double most = double(max_in_degree);
  const bool skewed = most > fused_own_order_skewed_max_to_mean * mean;
  if (skewed && links >= fused_own_order_skewed_min_links) return true;
  if (links <= fused_own_order_min_links || most <= persistent_even_max_to_mean * mean) return false;
  // Few links a vertex, the rows past even, skewed or not.
  if (mean < fused_own_order_short_mean && x_l2 > fused_own_order_short_l2_fraction) return true;
  return !skewed && x_l2 > fused_own_order_tail_l2_fraction;
}

template <class T>
double own_order_local_links(const pagerank_graph<T>& g) {
  return sampled_locality(g, [](index_t v) { return v; }).local;
}

template <class T>
pull_facts pull_facts_of(const pagerank_graph<T>& g) {
  pull_facts f;
  f.pattern = g.pattern;
  f.links = g.links();
  f.value_bytes = sizeof(T);
  f.vertices = g.vertices();
  // In parallel: on a graph of 9 M vertices (grid:3000:3000) these facts took
  // 0.1 s of a GPU run's set-up on one thread (H200 host).
  const index_t most = longest_row(g.pt);
  f.max_in_degree = most;
  const locality own = sampled_locality(g, [](index_t v) { return v; });
  f.local_links = own.local;
  f.local_links_mid = own.mid;
  f.local_links_near = own.nearby;
  if (f.vertices < local_min_vertices ||
      f.local_links < std::min(local_min_fraction_float, local_min_fraction_double))
    return f;
  const std::vector<index_t> place = fused_order_places(g);
  f.local_links_fused =
      sampled_locality(g, [&](index_t v) { return place[static_cast<std::size_t>(v)]; }).local;
  return f;
}

// One stable counting sort on (part, in-degree): the front part's buckets
// first, the highest in-degree first in each part, ids in order within a
// bucket. The back part's rows are dangling and at most
// fused_front_row_links long, so it needs that many buckets more. (Before: a
// sort by in-degree, a stable partition and the inverse permutation, the
// same places.)
template <class T>
std::vector<index_t> fused_order_places(const pagerank_graph<T>& g) {
  const auto& rp = g.pt.row_ptr;
  const auto most = static_cast<std::size_t>(longest_row(g.pt));
  const auto n = static_cast<std::size_t>(g.vertices());
  const auto back = static_cast<std::size_t>(fused_front_row_links);
  std::vector<index_t> place(n), by_key;
  stable_bucket(
      [&](std::size_t i) {
        const auto len = static_cast<std::size_t>(rp[i + 1] - rp[i]);
        return fused_front_part(g.dangling[i] != 0, static_cast<index_t>(len)) ? most - len
                                                                               : most + 1 + (back - len);
      },
      n, most + back + 2, by_key, [&](std::size_t i, index_t at) { place[i] = at; });
  return place;
}

bool spmv_trial_pays(std::size_t links, int iterations, std::size_t value_bytes) {
  if (iterations <= 0 || links < band_max_links) return true;
  // A step streams its index and values (4 + value_bytes a link) at about
  // 2 TB/s; the trial's kernel saves 30% of that at best.
  const double saved_per_link = 0.3 * double(iterations) * double(4 + value_bytes) / 2e12;
  return saved_per_link > spmv_trial_link_ns * 1e-9;
}

spmv_kernel untimed_spmv_kernel(index_t rows, std::size_t links, index_t max_in_degree,
                                std::size_t value_bytes) {
  if (max_in_degree >= short_rows_in_degree) {
    if (double(max_in_degree) >= untimed_adaptive_row_fraction * double(links))
      return spmv_kernel::csr_adaptive;
    const double mean = double(links) / double(std::max<index_t>(rows, 1));
    const bool short_even =
        mean < untimed_adaptive_mean_double && double(max_in_degree) <= untimed_even_max_to_mean * mean;
    return value_bytes == 8 && short_even ? spmv_kernel::csr_adaptive : spmv_kernel::cusparse;
  }
  const double slots = double(rows) * double(max_in_degree),
               nonzero = double(std::max<std::size_t>(links, 1));
  if (slots <= untimed_ell_max_fill * nonzero) return spmv_kernel::ell;
  return slots <= untimed_scalar_max_fill * nonzero ? spmv_kernel::csr_scalar : spmv_kernel::csr_adaptive;
}

void require_pull_fits(pagerank_pull p, index_t vertices) {
  if (pattern_pull(p) && vertices > pattern_pull_max_vertices)
    throw dimension_error("--pull " + std::string(name(p)) + ": a graph of " + std::to_string(vertices) +
                          " vertices, more than the " + std::to_string(pattern_pull_max_vertices) +
                          " the fused and persistent pulls count (use --pull spmv or auto)");
}

bool own_order_local(const pull_facts& f) {
  const double local_min = f.value_bytes == 4 ? local_min_fraction_float : local_min_fraction_double;
  return f.vertices >= local_min_vertices && f.local_links >= local_min;
}

pull_choice choose_pull(pagerank_pull p, const pull_facts& f, std::optional<spmv_kernel> kernel) {
  if (p != pagerank_pull::automatic) return {p, ""};
  if (kernel) return {pagerank_pull::spmv, "auto pull: spmv, a kernel was named"};
  if (!f.pattern) return {pagerank_pull::spmv, "auto pull: spmv, a weighted graph"};
  if (f.vertices > pattern_pull_max_vertices)
    return {pagerank_pull::spmv, "auto pull: spmv, " + std::to_string(f.vertices) + " vertices > " +
                                     std::to_string(pattern_pull_max_vertices) +
                                     " (the pattern pulls' most)"};
  const std::string size = std::to_string(f.links) + " links";
  const double mean = double(f.links) / double(std::max<index_t>(f.vertices, 1));  // in-degree
  // The persistent pull's range (solvers/pagerank.hpp says where it was measured).
  if (f.links < persistent_min_links)
    return {pagerank_pull::persistent,
            "auto pull: persistent, " + size + " < " + std::to_string(persistent_min_links)};
  if (f.max_in_degree > chain_in_degree) {
    if (f.links <= persistent_max_links)
      return {pagerank_pull::persistent, "auto pull: persistent, " + size + " in [" +
                                             std::to_string(persistent_min_links) + ", " +
                                             std::to_string(persistent_max_links) + "]"};
    if (f.vertices > 0 && f.links <= persistent_max_even_links &&
        double(f.max_in_degree) <= persistent_even_max_to_mean * mean)
      return {pagerank_pull::persistent,
              "auto pull: persistent, " + size + " <= " + std::to_string(persistent_max_even_links) +
                  " and even (max in-degree " + std::to_string(f.max_in_degree) + " <= " +
                  format_g(persistent_even_max_to_mean, 3) + " x the mean " + format_g(mean, 3) + ")"};
  }
  std::string short_note;  // why short rows of few links did not take the SpMV pull
  if (f.max_in_degree < short_rows_in_degree) {
    const std::string rows = "every row short (max in-degree " + std::to_string(f.max_in_degree) + " < " +
                             std::to_string(short_rows_in_degree) + ")";
    if (f.max_in_degree <= chain_in_degree)
      return {pagerank_pull::spmv, "auto pull: spmv, rows of at most " + std::to_string(chain_in_degree) +
                                       " link (chains: the fused pull's rows would be all its work)"};
    if (f.value_bytes == 8) {
      // Rings, chains and small blocks of few links a vertex, their links
      // within a warp's reach of x: the SpMV pull (solvers/pagerank.hpp,
      // double_short_rows_spmv_mean).
      // But where random links gather past L2 (double_short_rows_random_x_l2).
      const double random_x_l2 = (1.0 - f.local_links) * x_l2_fraction(f.vertices, f.value_bytes, f.l2_bytes);
      const bool random_past_l2 =
          mean >= double_short_rows_random_min_mean && random_x_l2 > double_short_rows_random_x_l2;
      const bool near =
          f.local_links_near >= double_short_rows_near_fraction && mean < double_short_rows_spmv_mean;
      if (near && !random_past_l2)
        return {pagerank_pull::spmv, "auto pull: spmv, double with " + rows + ", " + format_g(mean, 3) +
                                         " links a vertex < " + format_g(double_short_rows_spmv_mean, 3) +
                                         " and " + format_g(100 * f.local_links_near, 3) +
                                         "% of links within " + std::to_string(local_near_window) +
                                         " ids in the graph's own order"};
      if (near)
        return {pagerank_pull::fused,
                "auto pull: fused, double with " + rows + ", " + format_g(mean, 3) + " links a vertex, " +
                    format_g(100 * f.local_links_near, 3) + "% of links within " +
                    std::to_string(local_near_window) + " ids but the random links (" +
                    format_g(100 * (1.0 - f.local_links), 3) + "%) times x over L2 " +
                    format_g(random_x_l2, 3) + " > " + format_g(double_short_rows_random_x_l2, 3)};
      return {pagerank_pull::fused, "auto pull: fused, double with " + rows};
    }
    const double x_l2 =
        f.l2_bytes > 0 ? double(f.vertices) * double(f.value_bytes) / double(f.l2_bytes) : 0.0;
    if (f.vertices <= 0 || (mean < float_short_rows_fused_mean && x_l2 <= float_short_rows_spmv_l2_fraction))
      return {pagerank_pull::spmv,
              "auto pull: spmv, float with " + rows +
                  (f.vertices > 0 ? " and a mean in-degree of " + format_g(mean, 3) + " < " +
                                        format_g(float_short_rows_fused_mean, 3) +
                                        (f.l2_bytes > 0 ? ", x " + format_g(x_l2, 3) + " of L2 <= " +
                                                              format_g(float_short_rows_spmv_l2_fraction, 3)
                                                        : std::string())
                                  : std::string())};
    // Float, short rows of more links a vertex or x past that part of L2:
    // the local-order clause (grids: the SpMV pull) or the fused pull, below.
    if (mean < float_short_rows_fused_mean)
      short_note = ", float with " + rows + " of " + format_g(mean, 3) + " links a vertex but x " +
                   format_g(x_l2, 3) + " of L2 > " + format_g(float_short_rows_spmv_l2_fraction, 3);
  }
  const std::string past_persistent =
      " > " + std::to_string(persistent_max_links) + " (past the persistent pull's)";
  if (f.value_bytes == 4 && double(f.max_in_degree) >= float_spmv_row_fraction * double(f.links))
    return {pagerank_pull::spmv, "auto pull: spmv, float with one row of " + std::to_string(f.max_in_degree) +
                                     " of the " + size + " (the fused pull's per-row work on the rest)"};
  const std::string window = " within " + std::to_string(locality_window) + " ids";
  if (own_order_local(f)) {
    const std::string orders = format_g(100 * f.local_links, 3) + "% of links" + window + ", " +
                               format_g(100 * f.local_links_fused, 3) + "% in the in-degree order, " +
                               format_g(100 * f.local_links_mid, 3) + "% at mid range (" +
                               std::to_string(local_near_window) + " to " + std::to_string(local_mid_window) +
                               " ids)";
    const double x_bytes = double(f.vertices) * double(f.value_bytes);
    const bool x_in_l2 = x_bytes <= double(f.l2_bytes);
    if (f.value_bytes == 8 && x_in_l2 && mean < local_min_mean_double)
      return {pagerank_pull::fused, "auto pull: fused, " + size + " in a local order (" + orders + "), but " +
                                        format_g(mean, 3) + " links a vertex and x in L2 in double"};
    // Even rows: the fused pull where it also times the graph's own order
    // (fused_own_order_trial: its gathers then as local as the SpMV pull's).
    // Else, in its in-degree order, but for a mid-range locality where x is
    // past L2 or, in float, anywhere; and in float where x is past L2.
    const bool own_order_timed = fused_own_order_trial(f.links, f.vertices, f.local_links, f.max_in_degree);
    const bool mid = f.local_links_mid >= local_mid_spmv_fraction;
    const bool even_fused = own_order_timed || (f.value_bytes == 8 ? x_in_l2 || !mid : x_in_l2 && !mid);
    // In float with x past local_even_l2_fraction_float of L2 and nearly all
    // links local, more links a vertex (the fused pull's scattered gathers
    // start to miss where the own order's hit).
    const bool far = f.value_bytes == 4 && x_bytes > local_even_l2_fraction_float * double(f.l2_bytes) &&
                     f.local_links >= local_even_far_local_float;
    const double even_mean = far ? local_even_far_mean_float : local_even_fused_mean;
    if (even_fused && mean >= even_mean && double(f.max_in_degree) <= local_even_max_to_mean * mean)
      return {
          pagerank_pull::fused,
          "auto pull: fused, " + size + " in a local order (" + orders + "), but rows even (max in-degree " +
              std::to_string(f.max_in_degree) + " <= " + format_g(local_even_max_to_mean, 3) +
              " x the mean " + format_g(mean, 3) + ") and not short (>= " + format_g(even_mean, 3) +
              " links a vertex" +
              (far ? " with x past " + format_g(local_even_l2_fraction_float, 3) + " of L2 in float and " +
                         format_g(100 * local_even_far_local_float, 3) + "% of links local"
                   : "") +
              ")" +
              (own_order_timed
                   ? ", its own order timed (runs of " + std::to_string(fused_own_order_window) + " ids)"
                   : "")};
    if (f.value_bytes == 8 && x_bytes <= local_fused_l2_fraction_double * double(f.l2_bytes) &&
        double(f.max_in_degree) < local_skewed_max_to_mean_double * mean)
      return {pagerank_pull::fused,
              "auto pull: fused, " + size + " in a local order (" + orders +
                  "), but in double with x within " + format_g(local_fused_l2_fraction_double, 3) +
                  " of L2 and the longest row (" + std::to_string(f.max_in_degree) + ") < " +
                  format_g(local_skewed_max_to_mean_double, 4) + " x the mean " + format_g(mean, 3)};
    // Skewed rows in double with x past that part of L2, where the fused
    // pull runs in its own order (fused_own_order_first): there the own
    // order's gathers stay within the sites and the SpMV pull streams 8 more
    // bytes a link (solvers/pagerank.hpp).
    const double x_l2 = x_l2_fraction(f.vertices, f.value_bytes, f.l2_bytes);
    if (f.value_bytes == 8 && x_l2 > local_fused_l2_fraction_double &&
        fused_own_order_first(f.links, f.vertices, f.local_links, f.max_in_degree, x_l2))
      return {pagerank_pull::fused,
              "auto pull: fused, " + size + " in a local order (" + orders +
                  "), its rows not even (max in-degree " + std::to_string(f.max_in_degree) + " > " +
                  format_g(persistent_even_max_to_mean, 3) + " x the mean " + format_g(mean, 3) +
                  ") in double with x past " + format_g(local_fused_l2_fraction_double, 3) +
                  " of L2, in its own order (runs of " + std::to_string(fused_own_order_window) + " ids)"};
    // Small blocks with a quarter or more of their links random, in float
    // (solvers/pagerank.hpp, float_small_blocks_max_local).
    if (f.value_bytes == 4 && mean >= float_small_blocks_min_mean &&
        double(f.max_in_degree) <= float_small_blocks_max_to_mean * mean &&
        x_l2 <= float_small_blocks_l2_fraction && f.local_links <= float_small_blocks_max_local &&
        f.local_links_near >= float_small_blocks_near_of_local * f.local_links)
      return {pagerank_pull::fused,
              "auto pull: fused, " + size + " in a local order (" + orders +
                  "), but float with even rows (max in-degree " + std::to_string(f.max_in_degree) + " <= " +
                  format_g(float_small_blocks_max_to_mean, 3) + " x the mean " + format_g(mean, 3) + "), x " +
                  format_g(x_l2, 3) + " of L2, at most " + format_g(100 * float_small_blocks_max_local, 3) +
                  "% of links local and " + format_g(100 * f.local_links_near, 3) + "% within " +
                  std::to_string(local_near_window) + " ids (small blocks with random links)"};
    if (f.local_links + local_order_tie > f.local_links_fused)
      return {pagerank_pull::spmv,
              "auto pull: spmv, " + size + " in an order already local (" + orders + ")"};
    return {pagerank_pull::fused, "auto pull: fused, " + size + past_persistent +
                                      ", its in-degree order more local than the graph's (" + orders + ")"};
  }
  return {pagerank_pull::fused, "auto pull: fused, " + size + past_persistent + short_note};
}

std::string kernel_text(pagerank_pull pull, std::optional<spmv_kernel> kernel) {
  if (pull == pagerank_pull::fused) return "pull-fused";
  if (pull == pagerank_pull::persistent) return "pull-persistent";
  return std::string(name(kernel.value_or(spmv_kernel::automatic)));
}

std::vector<double> normalized_distribution(const std::vector<double>& w, index_t n, const char* what) {
  if (n < 1)  // (a vector of -5 entries threw std::length_error)
    throw dimension_error(std::string(what) + ": a graph of " + std::to_string(n) + " vertices");
  const auto nn = static_cast<std::size_t>(n);
  if (w.empty()) return std::vector<double>(nn, 1.0 / static_cast<double>(n));
  if (w.size() != nn)
    throw invalid_argument(std::string(what) + ": " + std::to_string(w.size()) + " values for a graph of " +
                           std::to_string(n) + " vertices");
  double sum = 0.0, most = 0.0;
  for (std::size_t i = 0; i < nn; ++i) {
    if (!(w[i] >= 0.0) || !std::isfinite(w[i]))
      throw invalid_argument(std::string(what) + ": entry " + std::to_string(i + 1) + " is " +
                             format_g(w[i], 17) + " (weights must be finite and non-negative)");
    sum += w[i];
    most = std::max(most, w[i]);
  }
  if (!(sum > 0.0)) throw invalid_argument(std::string(what) + ": all weights are zero");
  // Finite weights are relative: where their sum overflows (two of 1e308)
  // they are summed over the largest, w_i / sum_j w_j = (w_i / m) / sum_j (w_j / m),
  // each term in [0, 1] and the sum at most n. They were refused.
  const double scale = std::isfinite(sum) ? 1.0 : most;
  if (scale != 1.0) {
    sum = 0.0;
    for (std::size_t i = 0; i < nn; ++i) sum += w[i] / scale;
  }
  std::vector<double> out(nn);
  for (std::size_t i = 0; i < nn; ++i) out[i] = w[i] / scale / sum;
  return out;
}

namespace {

// The device / kernel / pull combination, named by the flags.
void validate_machinery(const pagerank_options& o) {
  const bool cpu_kernel = o.kernel == spmv_kernel::cpu;
  const bool concrete_kernel = o.kernel && *o.kernel != spmv_kernel::automatic;
  if (o.device == pagerank_device::cuda && cpu_kernel)
    throw invalid_argument("--device cuda cannot use --kernel cpu (the cpu kernel runs on the host)");
  if (o.device == pagerank_device::cpu && concrete_kernel && !cpu_kernel)
    throw invalid_argument("--device cpu runs the cpu kernel; --kernel " + std::string(name(*o.kernel)) +
                           " needs --device cuda or auto");
  const std::string pull = "--pull " + std::string(name(o.pull));
  if (pattern_pull(o.pull) && concrete_kernel)
    throw invalid_argument(pull + " runs its own kernel; --kernel " + std::string(name(*o.kernel)) +
                           " needs --pull spmv");
  if (pattern_pull(o.pull) && o.device == pagerank_device::cpu)
    throw invalid_argument(pull + " is a GPU step; it cannot run with --device cpu");
  // (A solver that auto built with the persistent pull runs its fused steps
  // for aitken; named, the persistent pull is refused with it.)
  if (o.pull == pagerank_pull::persistent && o.accelerate == pagerank_accel::aitken)
    throw invalid_argument(
        "--accelerate aitken extrapolates each vertex between launches; --pull persistent runs every step "
        "in one kernel and extrapolates with weights over whole iterates (use --accelerate auto, quadratic "
        "or "
        "rre, or --pull fused, spmv or auto)");
}

}  // namespace

void pagerank_options::validate() const {
  if (!(alpha >= 0.0 && alpha < 1.0))
    throw invalid_argument("--alpha must be in [0, 1), got " + format_shortest(alpha));
  if (!(tol > 0.0) || !std::isfinite(tol))
    throw invalid_argument("--tol must be a positive number, got " + format_shortest(tol) +
                           (tol == 0.0 ? " (a value below 4.9e-324, the smallest double, reads as 0)" : ""));
  // tol bounds ||r_{k+1} - r_k||_1, and both are probability vectors (>= 0,
  // summing to 1), so ||r_{k+1} - r_k||_1 <= ||r_{k+1}||_1 + ||r_k||_1 = 2.
  // Every solve starts from one (the uniform or --initial vector; under
  // --sources each set's own v_c) and its first step is a plain one with
  // --accelerate too, so a tol of 2 or more passed that step whatever the
  // graph: 'pagerank --tol 10 G' stopped after one step, "converged", exit 0.
  // (At exactly 2 only a step between vectors of disjoint supports is not
  // below it, and the next one is, at most 2 alpha.)
  if (tol >= 2)
    throw invalid_argument("--tol must be below 2, got " + format_shortest(tol) +
                           ": it bounds the L1 change of the ranks between two steps, which is at most 2 "
                           "(both sum to 1), so the first step would pass as converged whatever the graph");
  if (max_iter < 1) throw invalid_argument("--max-iter must be at least 1, got " + std::to_string(max_iter));
  if (check_interval < 1)
    throw invalid_argument("--check-every must be at least 1, got " + std::to_string(check_interval));
  // A trip's graph holds its steps' launches, captured before the first
  // step: 'pagerank g --graph-unroll 2000000000' would capture 4 * 10^9 of
  // them before anything ran.
  if (graph_unroll < 0 || graph_unroll > max_graph_unroll)
    throw invalid_argument("--graph-unroll must be 0 (automatic) to " + std::to_string(max_graph_unroll) +
                           " steps a trip, got " + std::to_string(graph_unroll));
  if (accelerate_every < 4)
    throw invalid_argument(
        "--accelerate-every must be at least 4 (quadratic extrapolation reads the last "
        "four iterates of one run of plain steps), got " +
        std::to_string(accelerate_every));
  if (loop == pagerank_loop::host)
    throw invalid_argument("--loop host is what the CPU solver reports; ask for " + names_in(loop_choices));
  if (loop == pagerank_loop::graph_while && !use_graphs)
    throw invalid_argument("--loop graph-while needs CUDA graphs (use_graphs)");
  validate_machinery(*this);
}

void pagerank_options::validate(index_t n) const {
  validate();
  // (empty means uniform: nothing to check, and no n-sized vector to build)
  if (!personalization.empty())
    normalized_distribution(personalization, n, "personalization (--personalize)");
  if (!initial.empty()) normalized_distribution(initial, n, "initial vector (--initial)");
}

// ---- CPU power iteration -----------------------------------------------------

namespace {
constexpr index_t sum_block = pagerank_sum_block;
}  // namespace

namespace {

// The first unit (block of `unit_rows` rows, or row: unit_rows 1) of [0,
// units) whose start carries at least `target` links + rows.
index_t first_unit(const index_t* ptr, index_t rows, std::size_t target, index_t units, index_t unit_rows) {
  index_t lo = 0, hi = units;
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    const index_t row = std::min<index_t>(rows, mid * unit_rows);
    if (static_cast<std::size_t>(ptr[row]) + static_cast<std::size_t>(row) >= target)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// Thread t's units of `team` when the units split by links + rows.
std::pair<index_t, index_t> thread_units(const index_t* ptr, index_t rows, std::size_t t, std::size_t team,
                                         index_t units, index_t unit_rows) {
  const std::size_t work = static_cast<std::size_t>(ptr[rows]) + static_cast<std::size_t>(rows);
  return {t == 0 ? 0 : first_unit(ptr, rows, work * t / team, units, unit_rows),
          t + 1 == team ? units : first_unit(ptr, rows, work * (t + 1) / team, units, unit_rows)};
}

// The most links + rows one of `team` threads takes when `units` units of
// `unit_rows` rows split by links + rows.
std::size_t busiest_share(const index_t* ptr, index_t rows, int team, index_t units, index_t unit_rows) {
  std::size_t busiest = 0;
  for (int t = 0; t < team; ++t) {
    const auto [u_lo, u_hi] = thread_units(ptr, rows, t, team, units, unit_rows);
    const index_t lo = std::min<index_t>(rows, u_lo * unit_rows),
                  hi = std::min<index_t>(rows, u_hi * unit_rows);
    busiest =
        std::max(busiest, static_cast<std::size_t>(ptr[hi] - ptr[lo]) + static_cast<std::size_t>(hi - lo));
  }
  return busiest;
}

// Whole blocks unless the busiest thread's blocks carry more links + rows
// than the busiest thread's rows split by links + rows, plus the second
// pass's share of half a unit a row. Blocks of skewed graphs are uneven:
// rmat:20:10000000's first holds 9.5% of its links + rows, 1.43x an even
// share of 15 threads, and its step took 6.09 ms whole, 5.15 with rows
// (H200 host). Near balance (busiest 1.04-1.09x even) the second pass
// measured 0-1.9 units a row (er, web, powerlaw, grid, dangling graphs of
// 4-16 M links), the two splits within 5% of each other but on a chain
// (rows faster by 9%); a single row holding a hub's links makes either
// split as uneven (hub:1000000:200000: whole faster) (docs/PERFORMANCE.md,
// session 47).
bool whole_blocks_for(const index_t* ptr, index_t rows, int team) {
  const index_t blocks = (rows + sum_block - 1) / sum_block;
  if (team <= 1) return true;
  if (blocks < team) return false;
  const std::size_t whole = busiest_share(ptr, rows, team, blocks, sum_block);
  const std::size_t split = busiest_share(ptr, rows, team, rows, 1);
  return 2 * whole <= 2 * split + static_cast<std::size_t>(rows) / static_cast<std::size_t>(team);
}

}  // namespace

// One step over a range of rows (solvers/pagerank_step.hpp). The arithmetic
// of the SpMV followed by an update pass, which it replaced, without y's
// write and re-read or a second parallel region.
//
// Where whole blocks balance the team (pagerank_step_whole_blocks), each thread
// takes whole blocks of about equal links + rows and sums them as it writes
// them (one pass). Elsewhere (a graph of a few thousand rows and many links:
// facebook-combined's 4039 rows hold 176 K, one block; or blocks too coarse
// or too uneven to balance: cnr-2000's 80 on 15 threads took 61 ms a solve,
// split by rows 44), the threads split the rows by links + rows to write
// next, and after a barrier the blocks' sums are taken from next in a second
// pass, in the same order with the same terms: the same bits either way.
template <class T>
void pagerank_step_rows(const csr_matrix<T>& pt, index_t first, const T* r, T* next, const double* v,
                        double v_uniform, const std::uint8_t* dangling, double alpha, double c,
                        double* block_sums, step_split split) {
  using acc_t = std::conditional_t<std::is_same_v<T, float>, double, T>;
  const index_t rows = pt.rows;
  const index_t blocks = (rows + sum_block - 1) / sum_block;
  const index_t* ptr = pt.row_ptr.data();
  const index_t* col = pt.col_idx.data();
  const T* val = pt.values.data();
  const int team_size = pagerank_step_team(pt);
  const bool whole_blocks = split == step_split::automatic ? whole_blocks_for(ptr, rows, team_size)
                                                           : split == step_split::whole_blocks;
  // A row's terms of its block's sums: |r_{k+1} - r_k| and, for a dangling
  // vertex, r_{k+1} (without a branch, a third of R-MAT's vertices dangling at
  // random: adding +0.0 leaves the sum's bits as they were, rn >= 0).
  const auto add_terms = [&](double rn, index_t vertex, double& l1, double& mass) {
    l1 += std::fabs(rn - static_cast<double>(r[vertex]));
    mass += dangling[vertex] ? rn : 0.0;
  };
  // Rows [lo, hi): y first (a tight gather loop) into a buffer of the
  // thread's own that stays in cache, then next from it; with `sums` (a whole
  // block), the block's sums as next is written.
  const auto step_rows = [&](index_t lo, index_t hi, std::vector<T>& y, double* sums) {
    for (index_t i = lo; i < hi; ++i) {
      acc_t ax = 0;
      for (index_t k = ptr[i]; k < ptr[i + 1]; ++k)
        ax += static_cast<acc_t>(val[k]) * static_cast<acc_t>(r[col[k]]);
      y[static_cast<std::size_t>(i - lo)] = static_cast<T>(acc_t(1) * ax);
    }
    double l1 = 0.0, mass = 0.0;
    for (index_t i = lo; i < hi; ++i) {
      const index_t vertex = first + i;
      const T rn = static_cast<T>(alpha * static_cast<double>(y[static_cast<std::size_t>(i - lo)]) +
                                  c * (v ? v[vertex] : v_uniform));
      next[i] = rn;
      if (sums) add_terms(static_cast<double>(rn), vertex, l1, mass);
    }
    if (!sums) return;
    sums[0] = l1;
    sums[1] = mass;
  };
#pragma omp parallel num_threads(team_size)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto team = static_cast<std::size_t>(omp_get_num_threads());
    std::vector<T> y(static_cast<std::size_t>(sum_block));
    if (whole_blocks) {
      const auto [b_lo, b_hi] = thread_units(ptr, rows, t, team, blocks, sum_block);
      for (index_t b = b_lo; b < b_hi; ++b)
        step_rows(b * sum_block, std::min<index_t>(rows, (b + 1) * sum_block), y, block_sums + 2 * b);
    } else {
      const auto [r_lo, r_hi] = thread_units(ptr, rows, t, team, rows, 1);
      for (index_t lo = r_lo; lo < r_hi; lo += sum_block)
        step_rows(lo, std::min(r_hi, lo + sum_block), y, nullptr);
#pragma omp barrier
#pragma omp for schedule(static)
      for (index_t b = 0; b < blocks; ++b) {
        double l1 = 0.0, mass = 0.0;
        for (index_t i = b * sum_block; i < std::min<index_t>(rows, (b + 1) * sum_block); ++i)
          add_terms(static_cast<double>(next[i]), first + i, l1, mass);
        block_sums[2 * b] = l1;
        block_sums[2 * b + 1] = mass;
      }
    }
  }
}

// The solve's team by its step's links + rows (core/memory.hpp, solve_team):
// beside one busy process cnr-2000's CPU solve took 50 ms on it, 527 on every
// core (H200 host; quiet rmat:20:10000000 53.5 -> 59.6 ms: the core left
// idle; docs/PERFORMANCE.md, session 46).
template <class T>
bool pagerank_step_whole_blocks(const csr_matrix<T>& pt, int team) {
  return whole_blocks_for(pt.row_ptr.data(), pt.rows, team);
}

template <class T>
int pagerank_step_team(const csr_matrix<T>& pt) {
  return solve_team(pt.nnz() + static_cast<std::size_t>(pt.rows));
}

template <class T>
double start_iterate(const std::vector<double>& initial, index_t n, const std::uint8_t* dangling, T* r) {
  const auto m = static_cast<std::int64_t>(n);
  if (initial.empty()) {
    const T x = static_cast<T>(1.0 / static_cast<double>(n));
    std::int64_t count = 0;
#pragma omp parallel for schedule(static) reduction(+ : count) if (m >= 65536)
    for (std::int64_t i = 0; i < m; ++i) {
      r[i] = x;
      count += dangling[i] != 0;
    }
    double mass = 0.0;
    for (std::int64_t k = 0; k < count; ++k) mass += static_cast<double>(x);
    return mass;
  }
  const std::vector<double> w = normalized_distribution(initial, n, "initial vector");
#pragma omp parallel for schedule(static) if (m >= 65536)
  for (std::int64_t i = 0; i < m; ++i) r[i] = static_cast<T>(w[static_cast<std::size_t>(i)]);
  double mass = 0.0;
  for (std::int64_t i = 0; i < m; ++i)
    if (dangling[i]) mass += static_cast<double>(r[i]);
  return mass;
}

template bool pagerank_step_whole_blocks<float>(const csr_matrix<float>&, int);
template bool pagerank_step_whole_blocks<double>(const csr_matrix<double>&, int);
template int pagerank_step_team<float>(const csr_matrix<float>&);
template int pagerank_step_team<double>(const csr_matrix<double>&);
template double start_iterate<float>(const std::vector<double>&, index_t, const std::uint8_t*, float*);
template double start_iterate<double>(const std::vector<double>&, index_t, const std::uint8_t*, double*);

template void pagerank_step_rows<float>(const csr_matrix<float>&, index_t, const float*, float*,
                                        const double*, double, const std::uint8_t*, double, double, double*,
                                        step_split);
template void pagerank_step_rows<double>(const csr_matrix<double>&, index_t, const double*, double*,
                                         const double*, double, const std::uint8_t*, double, double, double*,
                                         step_split);

namespace {

// K sums over the vertices, per block of sum_block vertices and the blocks
// added in order (the same bits for any thread count). add(i, acc) adds
// vertex i's terms to acc[0..K).
template <int K, class Add>
std::array<double, K> block_sums(index_t n, Add add) {
  const index_t blocks = (n + sum_block - 1) / sum_block;
  std::vector<std::array<double, K>> part(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static) if (n >= 16384)
  for (index_t b = 0; b < blocks; ++b) {
    std::array<double, K> acc{};
    const index_t end = std::min<index_t>(n, (b + 1) * sum_block);
    for (index_t i = b * sum_block; i < end; ++i) add(i, acc);
    part[static_cast<std::size_t>(b)] = acc;
  }
  std::array<double, K> total{};
  for (const auto& p : part)
    for (int k = 0; k < K; ++k) total[k] += p[k];
  return total;
}

// quadratic extrapolation from x_{k-3}, x_{k-2}, x_{k-1} (h0, h1, h2) and
// x_k (r), written into out; false when skipped. dangling: the new vector's
// dangling mass.
template <class T>
bool extrapolate_quadratic(const T* h0, const T* h1, const T* h2, const T* r, T* out, index_t n,
                           const std::uint8_t* dangling_mask, double alpha, double& dangling) {
  const auto d = [](T x) { return static_cast<double>(x); };
  // The normal equations of [y_1 y_2] g = -y_3, y_j = x_{k-3+j} - x_{k-3},
  // and the masses of x_{k-2}, x_{k-1}, x_k.
  const auto a = block_sums<8>(n, [&](index_t i, std::array<double, 8>& acc) {
    const double y1 = d(h1[i]) - d(h0[i]), y2 = d(h2[i]) - d(h0[i]), y3 = d(r[i]) - d(h0[i]);
    acc[0] += y1 * y1;
    acc[1] += y1 * y2;
    acc[2] += y2 * y2;
    acc[3] += y1 * y3;
    acc[4] += y2 * y3;
    acc[5] += d(h1[i]);
    acc[6] += d(h2[i]);
    acc[7] += d(r[i]);
  });
  const accel::quadratic_weights q = accel::quadratic_extrapolation(a[0], a[1], a[2], a[3], a[4], a[5], a[6],
                                                                    a[7], alpha, accel::rounding_floor<T>());
  if (!q.ok) return false;
  dangling = block_sums<1>(n, [&](index_t i, std::array<double, 1>& acc) {
    out[i] = static_cast<T>(q.w0 * d(h1[i]) + q.w1 * d(h2[i]) + q.w2 * d(r[i]));
    if (dangling_mask[i]) acc[0] += d(out[i]);
  })[0];
  return true;
}

// rre from x_{k-W}, ..., x_{k-1} (h[0 .. W-1]) and x_k (r) (where the window
// leaves fewer than two differences, the quadratic from its last four
// iterates: solvers/pagerank_accel.hpp).
template <class T>
bool extrapolate_rre(const uninitialized_vector<T>* h, int w, const uninitialized_vector<T>& r,
                     uninitialized_vector<T>& out, const std::uint8_t* dangling_mask, double alpha,
                     double& dangling) {
  const auto n = static_cast<index_t>(r.size());
  const auto d = [](T x) { return static_cast<double>(x); };
  constexpr int most = accel::rre_sums(accel::rre_max_window) + accel::rre_max_window;
  const T* x[accel::rre_max_window + 1] = {};
  for (int j = 0; j < w; ++j) x[j] = h[j].data();
  x[w] = r.data();
  // The Gram matrix of the differences u_j = x_{j+1} - x_j, then the masses
  // of x_1 .. x_W, per block of sum_block vertices (the blocks added in
  // order: the same bits for any thread count): the block's differences
  // first, then each sum as one pass over two of them, which vectorizes
  // (a vertex at a time, 44 running sums, took 2-3 of a step's time).
  const index_t blocks = (n + sum_block - 1) / sum_block;
  std::vector<std::array<double, most>> part(static_cast<std::size_t>(blocks));
  constexpr index_t piece = 512;  // a block's differences a piece at a time: 32 KB on the stack
#pragma omp parallel for schedule(static) if (n >= 16384)
  for (index_t b = 0; b < blocks; ++b) {
    const index_t end = std::min<index_t>(n, (b + 1) * sum_block);
    std::array<double, most> acc{};
    double u[accel::rre_max_window][piece];
    for (index_t begin = b * sum_block; begin < end; begin += piece) {
      const index_t len = std::min<index_t>(piece, end - begin);
      for (int j = 0; j < w; ++j) {
        const T* lo = x[j] + begin;
        const T* hi = x[j + 1] + begin;
        double mass = 0.0;
        for (index_t i = 0; i < len; ++i) {
          u[j][i] = d(hi[i]) - d(lo[i]);
          mass += d(hi[i]);
        }
        acc[static_cast<std::size_t>(accel::rre_sums(w) + j)] += mass;
      }
      for (int p = 0; p < w; ++p)
        for (int q = p; q < w; ++q) {
          double g = 0.0;
          for (index_t i = 0; i < len; ++i) g += u[p][i] * u[q][i];
          acc[static_cast<std::size_t>(accel::rre_pair(p, q, w))] += g;
        }
    }
    part[static_cast<std::size_t>(b)] = acc;
  }
  std::array<double, most> a{};
  for (const auto& p : part)
    for (int k = 0; k < most; ++k) a[static_cast<std::size_t>(k)] += p[static_cast<std::size_t>(k)];
  const accel::rre_weights e = accel::rre_extrapolation(a.data(), a.data() + accel::rre_sums(w), w, alpha);
  if (!e.ok) return false;
  dangling = block_sums<1>(n, [&](index_t i, std::array<double, 1>& acc) {
    double v = 0.0;
    for (int j = 0; j < w; ++j) v += e.w[j] * d(x[j + 1][i]);
    out[i] = static_cast<T>(v);
    if (dangling_mask[i]) acc[0] += d(out[i]);
  })[0];
  return true;
}

// aitken: per vertex from x_{k-2}, x_{k-1} (h1, h2) and x_k (r), then
// divided by the sum.
template <class T>
bool extrapolate_aitken(const T* h1, const T* h2, const uninitialized_vector<T>& r,
                        uninitialized_vector<T>& out, const std::uint8_t* dangling_mask, double alpha,
                        double& dangling) {
  const auto n = static_cast<index_t>(r.size());
  const auto d = [](T x) { return static_cast<double>(x); };
  const auto s = block_sums<2>(n, [&](index_t i, std::array<double, 2>& acc) {
    const double x = accel::aitken_value(d(h1[i]), d(h2[i]), d(r[i]), alpha);
    acc[0] += x;
    if (dangling_mask[i]) acc[1] += x;
  });
  if (!(s[0] > 0.0) || !accel::finite(s[0])) return false;
  const double scale = 1.0 / s[0];
  dangling = s[1] * scale;
#pragma omp parallel for schedule(static) if (n >= 16384)
  for (index_t i = 0; i < n; ++i)
    out[i] = static_cast<T>(scale * accel::aitken_value(d(h1[i]), d(h2[i]), d(r[i]), alpha));
  return true;
}

// The extrapolation of --accelerate (solvers/pagerank_accel.hpp) at the end
// of a run: from the saved iterates h (x_{k-3}, x_{k-2}, x_{k-1}; rre: the
// window's W) and r = x_k, written into out (scratch); false when skipped.
template <class T>
bool extrapolate(pagerank_accel mode, const uninitialized_vector<T>* h, int window,
                 const uninitialized_vector<T>& r, uninitialized_vector<T>& out,
                 const std::uint8_t* dangling_mask, double alpha, double& dangling) {
  switch (mode) {
    case pagerank_accel::rre:
      return extrapolate_rre(h, window, r, out, dangling_mask, alpha, dangling);
    case pagerank_accel::aitken:
      return extrapolate_aitken(h[1].data(), h[2].data(), r, out, dangling_mask, alpha, dangling);
    default:
      return extrapolate_quadratic(h[0].data(), h[1].data(), h[2].data(), r.data(), out.data(),
                                   static_cast<index_t>(r.size()), dangling_mask, alpha, dangling);
  }
}

}  // namespace

namespace {

// A graph's arrays against each other, O(1): the solvers index them by
// vertex and link without a check (a hand-built pagerank_graph without its
// dangling mask crashed pagerank_cpu). The entries are the builders' promise
// (make_pagerank_graph and the others validate them once), not re-read here.
template <class T>
void check_graph_arrays(const pagerank_graph<T>& g) {
  const csr_matrix<T>& pt = g.pt;
  const auto n = static_cast<std::size_t>(std::max<index_t>(pt.rows, 0));
  if (pt.rows <= 0 || pt.rows != pt.cols || pt.row_ptr.size() != n + 1 ||
      pt.values.size() != pt.col_idx.size() || pt.row_ptr.front() != 0 ||
      static_cast<std::size_t>(pt.row_ptr.back()) != pt.nnz() || g.dangling.size() != n)
    throw dimension_error("PageRank graph: inconsistent arrays (P^T " + dimensions(pt.rows, pt.cols) +
                          ", row_ptr " + std::to_string(pt.row_ptr.size()) + ", col_idx " +
                          std::to_string(pt.col_idx.size()) + ", values " + std::to_string(pt.values.size()) +
                          ", dangling " + std::to_string(g.dangling.size()) +
                          "): build it with make_pagerank_graph or pagerank_graph_from_*");
  check_vertex_count(pt.rows);
}

}  // namespace

template <class T>
pagerank_result pagerank_cpu_run(const pagerank_graph<T>& g, const pagerank_options& opt) {
  check_graph_arrays(g);
  const index_t n = g.vertices();
  opt.validate(n);
  const auto nn = static_cast<std::size_t>(n);
  // v uniform (no --personalize): its one value, not a stream of n doubles.
  const bool uniform = opt.personalization.empty();
  const std::vector<double> v =
      uniform ? std::vector<double>{} : normalized_distribution(opt.personalization, n, "personalization");
  const double v_uniform = 1.0 / static_cast<double>(n);

  const auto t0 = std::chrono::steady_clock::now();
  // Not zeroed: start_iterate writes every r_i, each step every y_i (a zero
  // fill of both and of a uniform v and r_0 was a serial pass over 3-4 arrays
  // of n: 0.17 s of a one-step solve of chain:10000000 on 16 cores).
  uninitialized_vector<T> r(nn), y(nn);
  // Every region of the solve on its step's team: the start, the
  // extrapolations' sums, the result's widening.
  const int team = pagerank_step_team(g.pt);
  const team_scope scope(team);
  // How the step's threads split the rows, decided once for the solve.
  const step_split split =
      pagerank_step_whole_blocks(g.pt, team) ? step_split::whole_blocks : step_split::rows;
  double dangling_mass =
      start_iterate(opt.initial, n, g.dangling.data(), r.data());  // sum_{j dangling} r_k(j)
  std::vector<double> part(static_cast<std::size_t>(2 * ((n + sum_block - 1) / sum_block)));
  // --accelerate: x_{k-3}, x_{k-2}, x_{k-1} of the current run of plain steps
  // (aitken reads the last two; rre keeps the window's W), and kept: the x_k
  // an extrapolation replaced, for the safeguard (solvers/pagerank_accel.hpp).
  bool accelerating = opt.accelerate != pagerank_accel::none;
  const bool rre = opt.accelerate == pagerank_accel::rre;
  const bool gated = opt.accelerate == pagerank_accel::automatic || rre;  // auto's gate and idle stop
  const pagerank_accel formula =
      opt.accelerate == pagerank_accel::automatic ? pagerank_accel::quadratic : opt.accelerate;
  const int every = opt.accelerate_every;
  const int window = rre ? accel::rre_window(every) : 3;
  uninitialized_vector<T> hist[accel::rre_max_window], kept;
  if (accelerating) {
    if (rre)
      check_host_memory(double(window) * sizeof(T) * double(nn),
                        "--accelerate rre's " + std::to_string(window) + " saved iterates of " +
                            std::to_string(n) + " vertices");
    for (int w = 0; w < window; ++w) hist[w].resize(nn);
    if (opt.accelerate == pagerank_accel::aitken) kept.resize(nn);
  }
  int run = 0;                 // plain steps since the start or the last extrapolation
  bool checking = false;       // the run going on started from an extrapolation
  double residual_before = 0;  // ||x_k - x_{k-1}||_1 of the step before it
  double dangling_before = 0;  // x_k's dangling mass
  double residual_1 = 0;       // auto: the residual one step before the run's end
  double rate1_before = 0;     // auto: residual_k / residual_{k-1} before the extrapolation
  int idle = 0;                // auto: idle extrapolations in a row
  double anchor_residual = 0;  // auto: the first extrapolation's step and residual before it
  int anchor_step = 0;         // (the plain line: accel::behind_plain_line)

  pagerank_result res;
  res.accelerate = opt.accelerate;
  for (int k = 1; k <= opt.max_iter; ++k) {
    // The dangling mass and the teleport, both spread by v.
    const double c = opt.alpha * dangling_mass + (1.0 - opt.alpha);
    // r_{k+1} = alpha P^T r_k + c v into y, which then becomes r (r_k is free:
    // the extrapolation below writes into it).
    pagerank_step_rows(g.pt, 0, r.data(), y.data(), uniform ? nullptr : v.data(), v_uniform,
                       g.dangling.data(), opt.alpha, c, part.data(), split);
    r.swap(y);
    struct {
      double l1 = 0.0, dangling = 0.0;
    } s;  // the blocks in order
    for (std::size_t b = 0; b < part.size(); b += 2) {
      s.l1 += part[b];
      s.dangling += part[b + 1];
    }
    dangling_mass = s.dangling;
    res.iterations = k;
    res.residual = s.l1;
    if (opt.progress) opt.progress(k, s.l1);
    if (opt.interrupt) opt.interrupt();
    if (s.l1 < opt.tol) {
      res.converged = true;
      break;
    }
    // (none after the last allowed step: no plain step would check it)
    if (!accelerating || k == opt.max_iter) continue;
    // The iterates of steps every-3, every-2, every-1 of a run are kept (each
    // by the step after it); after step `every` the extrapolation replaces r
    // (y is free until the next SpMV), and the next plain step measures its
    // true residual.
    ++run;
    // y holds the iterate before this step's, free until the next step writes
    // it: kept by a swap with its slot's buffer (whose old iterate was the last
    // run's). A copy of r would be a serial pass over n values a slot, and the
    // slot's pages first touched by one thread (docs/PERFORMANCE.md, session 91).
    const int w = rre ? accel::rre_slot(run - 1, every)
                      : accel::run_slot(run - 1, every, opt.accelerate == pagerank_accel::aitken);
    if (w >= 0) hist[w].swap(y);
    if (run == every - 1) residual_1 = s.l1;
    if (run == every && checking) {
      checking = false;
      if (gated) {
        if (accel::gated_stop(idle, s.l1, k, residual_before, rate1_before, every, anchor_residual,
                              anchor_step, opt.alpha)) {
          accelerating = false;  // the run is kept; no more extrapolations
          continue;
        }
      } else if (accel::reject_extrapolation(s.l1, residual_before)) {
        r.swap(kept);  // on from x_k, a run of steps spent; no more extrapolations
        dangling_mass = dangling_before;
        --res.extrapolations;
        ++res.extrapolations_rejected;
        accelerating = false;
        continue;
      }
    }
    if (run == every) {
      run = 0;
      if (s.l1 < accel::rounding_floor<T>()) continue;  // rounding, not error, to extrapolate from
      if (gated && !accel::extrapolation_pays(s.l1, residual_1, opt.tol)) continue;
      double dangling = 0.0;
      if (extrapolate(formula, hist, window, r, y, g.dangling.data(), opt.alpha, dangling)) {
        if (opt.accelerate == pagerank_accel::aitken) kept.swap(r);  // x_k, for the safeguard
        r.swap(y);                                                   // r = the extrapolation
        residual_before = s.l1;
        dangling_before = dangling_mass;
        rate1_before = residual_1 > 0.0 ? s.l1 / residual_1 : 0.0;
        accel::anchor_plain_line(anchor_residual, anchor_step, s.l1, k);
        dangling_mass = dangling;
        checking = opt.accelerate != pagerank_accel::quadratic;  // aitken's safeguard, auto's stop
        ++res.extrapolations;
      }
    }
  }
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.rank = fresh_uninitialized<double>(nn, host_threads());
  widen(nn, r.data(), res.rank.data(), team);
  res.on_gpu = false;
  res.pull = pagerank_pull::spmv;
  res.kernel = spmv_kernel::cpu;
  res.loop = pagerank_loop::host;
  return res;
}

template <class T>
pagerank_result pagerank_cpu(const pagerank_graph<T>& g, const pagerank_options& opt) {
  return without_negative_ranks(pagerank_cpu_run(g, opt), opt,
                                [&](const pagerank_options& again) { return pagerank_cpu_run(g, again); });
}

pagerank_result without_negative_ranks(
    pagerank_result r, const pagerank_options& opt,
    const std::function<pagerank_result(const pagerank_options&)>& solve_from) {
  // Uniform v reaches every vertex with (1 - alpha) / n a step: no rank below
  // 0 in 171 accelerated solves of the shared graphs and five generated ones
  // (alpha 0.85-0.999, auto, quadratic, rre), and this pass over n would add
  // to the GPU's receive of every uniform solve.
  if (r.extrapolations == 0 || !r.converged || opt.personalization.empty()) return r;
  const auto n = static_cast<std::ptrdiff_t>(r.rank.size());
  bool negative = false;
#pragma omp parallel for schedule(static) reduction(|| : negative) if (n >= 65536)
  for (std::ptrdiff_t i = 0; i < n; ++i) negative = negative || r.rank[static_cast<std::size_t>(i)] < 0;
  if (!negative) return r;
  pagerank_options again = opt;
  again.accelerate = pagerank_accel::none;
  again.max_iter = std::max(1, opt.max_iter - r.iterations);
  again.initial.resize(r.rank.size());
#pragma omp parallel for schedule(static) if (n >= 65536)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    again.initial[k] = std::max(r.rank[k], 0.0);
  }
  pagerank_result more = solve_from(again);
  r.rank = std::move(more.rank);
  r.iterations += more.iterations;
  r.residual = more.residual;
  r.converged = more.converged;
  r.host_syncs += more.host_syncs;
  r.ranks_sent = more.ranks_sent;
  r.solve_seconds += more.solve_seconds;
  r.device_seconds += more.device_seconds;
  return r;
}

// ---- vertex order ------------------------------------------------------------

template <class T>
pagerank_graph<T> permuted(const pagerank_graph<T>& g, const permutation& p) {
  pagerank_graph<T> out;
  out.pt = permute(g.pt, p);
  out.dangling = to_new(g.dangling, p);
  out.dangling_count = g.dangling_count;
  out.pattern = g.pattern;
  return out;
}

pagerank_options permuted(pagerank_options opt, const permutation& p) {
  if (!opt.personalization.empty()) opt.personalization = to_new(opt.personalization, p);
  if (!opt.initial.empty()) opt.initial = to_new(opt.initial, p);
  return opt;
}

// ---- dispatch --------------------------------------------------------------------

std::string gpu_option_named(const pagerank_options& opt) {
  if (opt.kernel && *opt.kernel != spmv_kernel::cpu && *opt.kernel != spmv_kernel::automatic)
    return "--kernel " + std::string(name(*opt.kernel));
  // (--kernel cpu with --pull spmv is the CPU's pull, as pagerank runs it: the
  // module refused it as a GPU step, while its error for --pull fused named it.)
  if (opt.pull != pagerank_pull::automatic &&
      !(opt.pull == pagerank_pull::spmv && opt.kernel == spmv_kernel::cpu))
    return "--pull " + std::string(name(opt.pull));
  return "";
}

bool pagerank_runs_on_gpu(const pagerank_options& opt) {
  if (opt.device == pagerank_device::cpu) return false;  // validate() refuses a GPU option beside it
  const std::string named = opt.device == pagerank_device::cuda ? "--device cuda" : gpu_option_named(opt);
  const bool gpu = !named.empty() || (opt.device == pagerank_device::automatic &&
                                      opt.kernel != spmv_kernel::cpu && cuda::available());
  if (gpu && !cuda::available()) {
    const std::string why = cuda::why_unavailable();
    throw cuda_error(opt.device == pagerank_device::cuda
                         ? named + ": " + why
                         : named + " runs on the GPU: " + why + " (leave it out for the CPU solve)");
  }
  return gpu;
}

template <class T>
pagerank_result pagerank(const pagerank_graph<T>& g, const pagerank_options& opt) {
  opt.validate();  // before the device question: a bad combination is the caller's error, not the GPU's
  check_graph_arrays(g);
  const in_memory_graph facts = in_memory_graph_of(g, 0, device_left_to_model(opt));
  const device_decision device = decide_device(opt, facts);
  pagerank_result r;
  if (!device.gpu) {
    r = pagerank_cpu(g, opt);
  } else {
    require_pull_fits(opt.pull, g.vertices());
    pagerank_cuda<T> solver(g, opt.kernel, opt.pull);  // it resolves auto and says why
    r = solver.solve(opt);
  }
  r.device_choice = device.reason;
  if (r.converged) remember_solve(opt, facts, r.iterations);
  return r;
}

// ---- instantiations --------------------------------------------------------------

template index_t longest_row<float>(const csr_matrix<float>&);
template index_t longest_row<double>(const csr_matrix<double>&);
template pull_facts pull_facts_of<float>(const pagerank_graph<float>&);
template double own_order_local_links<float>(const pagerank_graph<float>&);
template double own_order_local_links<double>(const pagerank_graph<double>&);
template pull_facts pull_facts_of<double>(const pagerank_graph<double>&);
template std::vector<index_t> fused_order_places<float>(const pagerank_graph<float>&);
template std::vector<index_t> fused_order_places<double>(const pagerank_graph<double>&);

template pagerank_graph<float> make_pagerank_graph<float>(const coo_matrix<double>&, bool,
                                                          const vertex_naming&, bool);
template pagerank_graph<double> make_pagerank_graph<double>(const coo_matrix<double>&, bool,
                                                            const vertex_naming&, bool);
template pagerank_graph<float> pagerank_graph_from_transpose<float>(csr_matrix<double>, bool,
                                                                    const vertex_naming&, transpose_rows);
template pagerank_graph<double> pagerank_graph_from_transpose<double>(csr_matrix<double>, bool,
                                                                      const vertex_naming&, transpose_rows);
template pagerank_graph<float> pagerank_graph_from_pattern<float>(csr_matrix<float>, const vertex_naming&,
                                                                  transpose_rows);
template pagerank_graph<double> pagerank_graph_from_pattern<double>(csr_matrix<double>, const vertex_naming&,
                                                                    transpose_rows);
template pagerank_graph<float> permuted<float>(const pagerank_graph<float>&, const permutation&);
template pagerank_graph<double> permuted<double>(const pagerank_graph<double>&, const permutation&);
template pagerank_result pagerank_cpu<float>(const pagerank_graph<float>&, const pagerank_options&);
template pagerank_result pagerank_cpu<double>(const pagerank_graph<double>&, const pagerank_options&);
template pagerank_result pagerank<float>(const pagerank_graph<float>&, const pagerank_options&);
template pagerank_result pagerank<double>(const pagerank_graph<double>&, const pagerank_options&);

}  // namespace perron
