// Batched personalized PageRank: option checks, the block loop shared by the
// backends (per-column stopping, compaction) and the CPU backend.
#include "solvers/pagerank_batched.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "solvers/pagerank_device.hpp"

// x86-64 with GCC or Clang: the step's loops also compiled for AVX2 and
// AVX-512 (target attributes), chosen at run time.
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#define PERRON_BATCHED_X86 1
#else
#define PERRON_BATCHED_X86 0
#endif
#if defined(__GNUC__)
#define PERRON_BATCHED_INLINE inline __attribute__((always_inline))
#else
#define PERRON_BATCHED_INLINE inline
#endif

namespace perron {

// ---- options -------------------------------------------------------------------

void pagerank_batched_options::validate() const {
  base.validate();
  if (!base.personalization.empty() || !base.initial.empty())
    throw invalid_argument(
        "--sources gives every column its own personalization and start; "
        "it cannot be combined with --personalize or --initial");
  if (compact_every < 1)
    throw invalid_argument("--compact-every must be at least 1, got " + std::to_string(compact_every));
  if (chunk_columns < 0 || chunk_columns > 128 || (chunk_columns & (chunk_columns - 1)) != 0)
    throw invalid_argument("--chunk-columns must be a power of two in [1, 128] (0: automatic), got " +
                           std::to_string(chunk_columns));
  if (block_columns < 0 || block_columns > 256)
    throw invalid_argument("--block-columns must be in [1, 256] (0: automatic), got " +
                           std::to_string(block_columns));
}

void pagerank_batched_options::validate(index_t n, const std::vector<source_set>& sources) const {
  validate();
  if (sources.empty()) throw invalid_argument("--sources: no source sets");
  for (std::size_t c = 0; c < sources.size(); ++c) {
    const std::string where = "--sources: set " + std::to_string(c + 1) + ": ";
    if (sources[c].empty()) throw invalid_argument(where + "no vertices");
    double sum = 0.0;
    for (const auto& [v, w] : sources[c]) {
      if (v < 0 || v >= n)
        throw invalid_argument(where + "vertex index " + std::to_string(v) + " outside [0, " +
                               std::to_string(n) + ")");
      if (!(w >= 0.0) || !std::isfinite(w))
        throw invalid_argument(where + "weight " + format_shortest(w) +
                               " (weights must be finite, non-negative)");
      sum += w;
    }
    // A finite sum past double (two of 1e308) is fine: relative_weights.
    if (!(sum > 0.0)) throw invalid_argument(where + "all weights are zero");
  }
}

bool pagerank_batched_result::all_converged() const {
  return std::all_of(converged.begin(), converged.end(), [](std::uint8_t c) { return c != 0; });
}

int pagerank_batched_result::mean_iterations() const {
  if (iterations.empty()) return 0;
  const double sum = std::accumulate(iterations.begin(), iterations.end(), 0.0);
  return static_cast<int>(std::ceil(sum / double(iterations.size())));
}

// ---- shared pieces ---------------------------------------------------------------

namespace detail {

// w_i / sum_j w_j for a set's finite, non-negative weights. Weights are
// relative, as --personalize's (normalized_distribution): where their
// sum overflows (two of 1e308) they are summed over the largest,
// (w_i / m) / sum_j (w_j / m), each term in [0, 1]. They were refused.
std::vector<double> relative_weights(const source_set& s) {
  double sum = 0.0, most = 0.0;
  for (const auto& e : s) {
    sum += e.second;
    most = std::max(most, e.second);
  }
  const double scale = std::isfinite(sum) ? 1.0 : most;
  if (scale != 1.0) {
    sum = 0.0;
    for (const auto& e : s) sum += e.second / scale;
  }
  std::vector<double> w(s.size());
  for (std::size_t k = 0; k < s.size(); ++k) w[k] = s[k].second / scale / sum;
  return w;
}

teleport_rows make_teleport_rows(const std::vector<source_set>& sources, const std::vector<std::size_t>& live,
                                 index_t n) {
  // Counting sort of the (vertex, slot, w / sum_c) triplets by vertex.
  teleport_rows t;
  t.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::size_t c : live)
    for (const auto& e : sources[c]) ++t.row_ptr[static_cast<std::size_t>(e.first) + 1];
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) t.row_ptr[i + 1] += t.row_ptr[i];
  t.slot.resize(static_cast<std::size_t>(t.row_ptr.back()));
  t.weight.resize(t.slot.size());
  std::vector<index_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  for (std::size_t s = 0; s < live.size(); ++s) {
    const source_set& set = sources[live[s]];
    const std::vector<double> w = relative_weights(set);
    for (std::size_t e = 0; e < set.size(); ++e) {
      const auto k = static_cast<std::size_t>(next[static_cast<std::size_t>(set[e].first)]++);
      t.slot[k] = static_cast<index_t>(s);
      t.weight[k] = w[e];
    }
  }
  return t;
}

teleport_list make_teleport_list(const std::vector<source_set>& sources, std::size_t begin, std::size_t end) {
  struct entry {
    index_t vertex, slot;
    double weight;
  };
  std::vector<entry> all;
  for (std::size_t c = begin; c < end; ++c) {
    const std::vector<double> w = relative_weights(sources[c]);
    for (std::size_t e = 0; e < sources[c].size(); ++e)
      all.push_back({sources[c][e].first, static_cast<index_t>(c - begin), w[e]});
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const entry& a, const entry& b) { return a.vertex < b.vertex; });
  teleport_list t;
  for (std::size_t e = 0; e < all.size(); ++e) {
    if (e == 0 || all[e].vertex != all[e - 1].vertex) {
      t.vertex.push_back(all[e].vertex);
      t.ptr.push_back(static_cast<index_t>(e));
    }
    t.slot.push_back(all[e].slot);
    t.weight.push_back(all[e].weight);
  }
  t.ptr.push_back(static_cast<index_t>(all.size()));
  return t;
}

template <class T>
void widen_columns(std::size_t n, const std::vector<std::pair<const T*, double*>>& columns) {
  // Pieces of the whole group (columns end to end), at least four per thread:
  // a group is often one or two columns (each widened as its copy lands), and
  // pieces cut per column (64 Ki values each) left 5 tasks for 16 threads on
  // cnr-2000's 325557 rows: 18-25 ms for 64 columns on the H100 host, the
  // batched solve's largest host cost (docs/PERFORMANCE.md).
  const std::size_t total = n * columns.size();
  if (total == 0) return;
  const auto threads = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
  const std::size_t piece = std::clamp<std::size_t>(total / (4 * threads), 4096, std::size_t(1) << 16);
  const auto tasks = static_cast<std::int64_t>((total + piece - 1) / piece);
  // A thread per 32 Ki values at most: waking 16 threads for one 26475-row
  // column (as-caida) cost more than the copy (widening 27 ms for 64 columns,
  // 1 ms at a thread per column); at 256 Ki a thread, cnr-2000's one-column
  // groups got 2 threads (widening 4 ms -> 10 ms for its 64 columns).
  const int team = static_cast<int>(std::min<std::size_t>(threads, total / (std::size_t(1) << 15) + 1));
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (std::int64_t t = 0; t < tasks; ++t) {
    std::size_t b = static_cast<std::size_t>(t) * piece;
    const std::size_t e = std::min(total, b + piece);
    while (b < e) {  // a piece may span the end of one column and the start of the next
      const std::size_t c = b / n, i = b % n, len = std::min(e - b, n - i);
      const T* src = columns[c].first + i;
      double* dst = columns[c].second + i;
      for (std::size_t j = 0; j < len; ++j) dst[j] = static_cast<double>(src[j]);
      b += len;
    }
  }
}
template void widen_columns<float>(std::size_t, const std::vector<std::pair<const float*, double*>>&);
template void widen_columns<double>(std::size_t, const std::vector<std::pair<const double*, double*>>&);

std::vector<double> dense_personalization(const source_set& s, index_t n) {
  std::vector<double> v(static_cast<std::size_t>(n), 0.0);
  for (const auto& [i, w] : s) v[static_cast<std::size_t>(i)] += w;
  return v;  // pagerank_options normalizes it
}

namespace {

std::vector<std::size_t> live_of(std::size_t begin, std::size_t end) {
  std::vector<std::size_t> live(end - begin);
  for (std::size_t c = begin; c < end; ++c) live[c - begin] = c;
  return live;
}

}  // namespace

// Columns [begin, end) of the sources: step all live ones, record each
// column's step count and residual, copy a column out when it converges (or at
// the end), and compact the block once some columns are done and
// compact_every steps have passed since the last compaction.
static void run_block(batched_backend& b, index_t n, const std::vector<source_set>& sources,
                      std::size_t begin, std::size_t end, const pagerank_batched_options& opt,
                      pagerank_batched_result& res) {
  std::vector<std::size_t> live = live_of(begin, end);
  b.begin(make_teleport_rows(sources, live, n), static_cast<index_t>(live.size()));
  std::vector<std::uint8_t> done(live.size(), 0);
  std::vector<double> l1;
  std::size_t finished = 0;
  int since = 0;
  const auto nn = static_cast<std::size_t>(n);
  for (int it = 1; it <= opt.base.max_iter && finished < live.size(); ++it) {
    l1.assign(live.size(), 0.0);
    b.step(l1);
    if (opt.base.progress) opt.base.progress(it, *std::max_element(l1.begin(), l1.end()));
    if (opt.base.interrupt) opt.base.interrupt();
    res.column_steps += live.size();
    for (std::size_t s = 0; s < live.size(); ++s) {
      if (done[s]) continue;
      const std::size_t c = live[s];
      res.iterations[c] = it;
      res.residual[c] = l1[s];
      if (l1[s] < opt.base.tol) {
        res.converged[c] = 1;
        b.extract(static_cast<index_t>(s), res.rank.data() + c * nn);
        done[s] = 1;
        ++finished;
      }
    }
    if (finished == live.size() || finished == 0 || ++since < opt.compact_every) continue;
    std::vector<index_t> keep;
    std::vector<std::size_t> next;
    for (std::size_t s = 0; s < live.size(); ++s)
      if (!done[s]) keep.push_back(static_cast<index_t>(s)), next.push_back(live[s]);
    b.compact(keep, make_teleport_rows(sources, next, n));
    live = std::move(next);
    done.assign(live.size(), 0);
    finished = 0;
    since = 0;
    ++res.compactions;
  }
  for (std::size_t s = 0; s < live.size(); ++s)
    if (!done[s]) b.extract(static_cast<index_t>(s), res.rank.data() + live[s] * nn);
}

void check_result_memory(index_t n, std::size_t sets) {
  // The result, then a block's iterates (the widest block is at most 128 sets).
  check_host_memory(
      8.0 * double(sets) * double(n) + 32.0 * double(std::min<std::size_t>(sets, 128)) * double(n),
      "personalized PageRank of " + std::to_string(sets) + " source sets on " + std::to_string(n) +
          " vertices");
}

void run_batched(batched_backend& b, index_t n, const std::vector<source_set>& sources,
                 const pagerank_batched_options& opt, pagerank_batched_result& res) {
  opt.validate(n, sources);
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t s = sources.size();
  res.vertices = n;
  res.sources = s;
  check_result_memory(n, s);
  // Not zeroed (rank_block): every column is written by extract().
  res.rank.resize(s * static_cast<std::size_t>(n));
  res.iterations.assign(s, 0);
  res.residual.assign(s, std::numeric_limits<double>::infinity());
  res.converged.assign(s, 0);
  const auto width = static_cast<std::size_t>(opt.block_columns > 0 ? opt.block_columns : 128);
  for (std::size_t begin = 0; begin < s; begin += width)
    run_block(b, n, sources, begin, std::min(s, begin + width), opt, res);
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace detail

// ---- CPU backend -------------------------------------------------------------------

namespace {

// Rows per partial sum: partials are added in block order, so residuals and
// dangling masses are the same bits whatever the thread count.
constexpr index_t sum_rows = 2048;

// R is stored chunk-major: k columns cut into chunks (column_chunks), chunk q
// (columns [off_q, off_q + C_q)) an n x C_q row-major block at R + n off_q. A
// pass over P^T for one chunk gathers one 64-byte line per link from a block
// of n x 64 bytes (21 MB on cnr-2000) rather than from all of R (83 MB at
// k = 64), and no line it loads carries another chunk's columns. Measured on
// the H100 host (16 cores, cnr-2000, 64 sources): 16 floats a chunk 1.07 s,
// 8 floats 1.18 s, 4 floats 1.41 s.
// (opt.chunk_columns 0: 64 bytes a row; any power of two up to 32 columns).
template <class T>
constexpr int default_chunk = static_cast<int>(64 / sizeof(T));
// Entries ahead whose row of R is prefetched: on rmat:20 (random gathers, 16
// cores) a 64-source solve took 3.05 s with it and 4.43 s without (two device
// calls, not one run); on cnr-2000, whose links mostly stay near, 1.068
// against 1.077 s in one run (docs/PERFORMANCE.md).
constexpr index_t prefetch_distance = 16;

// What one step reads besides R.
template <class T>
struct step_inputs {
  const csr_matrix<T>& pt;
  const std::uint8_t* dangling;
  const detail::teleport_rows& v;
  double alpha;
  const double* coef;  // per column: alpha * dangling_c + 1 - alpha
};

// Rows [i0, i1), columns [off, off + C) of a step, the SpMM and the update fused:
//   acc_c = sum_{j -> i} P^T(i, j) R(j, c)       (double; Y = T(acc) as the SpMM rounds it)
//   R'(i, c) = T(alpha Y + coef_c v_c(i)),
// with |R' - R| and, for dangling i, R' added to the row block's partials.
// r and rn point at the chunk's block (stride C).
// Inlined into each instruction-set variant below (fused_rows_isa), so each
// compiles this loop for its own vector width.
template <class T, int C>
PERRON_BATCHED_INLINE void fused_rows(const step_inputs<T>& in, const T* r, T* rn, std::size_t off,
                                      index_t i0, index_t i1, double* pl1, double* pd) {
  const index_t* row_ptr = in.pt.row_ptr.data();
  const index_t* col_idx = in.pt.col_idx.data();
  const T* val = in.pt.values.data();
  const auto nnz = static_cast<index_t>(in.pt.nnz());
  // The partials in locals (pl1 and pd may alias rn as far as the compiler
  // knows, which kept the update loop scalar); the task's partials start at
  // zero, so copying in and out adds in the same order: the same bits.
  double l1[C], dm[C];
  for (int j = 0; j < C; ++j) l1[j] = pl1[j], dm[j] = pd[j];
  for (index_t i = i0; i < i1; ++i) {
    double acc[C] = {};
    for (index_t e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
      // The row of R that entry e + prefetch_distance gathers (possibly one of
      // a later row; none past the last entry).
      if (e + prefetch_distance < nnz)
        __builtin_prefetch(r + static_cast<std::size_t>(col_idx[e + prefetch_distance]) * C);
      const double a = static_cast<double>(val[e]);
      const T* x = r + static_cast<std::size_t>(col_idx[e]) * C;
#pragma omp simd
      for (int j = 0; j < C; ++j) acc[j] += a * static_cast<double>(x[j]);
    }
    double t[C];
    for (int j = 0; j < C; ++j) t[j] = in.alpha * static_cast<double>(static_cast<T>(acc[j]));
    for (index_t e = in.v.row_ptr[i]; e < in.v.row_ptr[i + 1]; ++e) {
      const auto s = static_cast<std::size_t>(in.v.slot[e]);
      if (s >= off && s < off + C) t[s - off] += in.coef[s] * in.v.weight[e];
    }
    const std::size_t row = static_cast<std::size_t>(i) * C;
    const bool dangling = in.dangling[i] != 0;
    for (int j = 0; j < C; ++j) {
      const T v = static_cast<T>(t[j]);
      l1[j] += std::fabs(static_cast<double>(v) - static_cast<double>(r[row + j]));
      rn[row + j] = v;
    }
    if (dangling)
      for (int j = 0; j < C; ++j) dm[j] += static_cast<double>(rn[row + j]);
  }
  for (int j = 0; j < C; ++j) pl1[j] = l1[j], pd[j] = dm[j];
}

template <class T>
PERRON_BATCHED_INLINE void fused_rows_any(int width, const step_inputs<T>& in, const T* r, T* rn,
                                          std::size_t off, index_t i0, index_t i1, double* pl1, double* pd) {
  switch (width) {
    case 32:
      return fused_rows<T, 32>(in, r, rn, off, i0, i1, pl1, pd);
    case 16:
      return fused_rows<T, 16>(in, r, rn, off, i0, i1, pl1, pd);
    case 8:
      return fused_rows<T, 8>(in, r, rn, off, i0, i1, pl1, pd);
    case 4:
      return fused_rows<T, 4>(in, r, rn, off, i0, i1, pl1, pd);
    case 2:
      return fused_rows<T, 2>(in, r, rn, off, i0, i1, pl1, pd);
    default:
      return fused_rows<T, 1>(in, r, rn, off, i0, i1, pl1, pd);
  }
}

// The step's loops per instruction set. The build is portable (SSE2 on
// x86-64): a link of a 16-float chunk then takes 8 conversions, 8 multiplies
// and 8 adds of 2 doubles; AVX2 4 of each, AVX-512 2. Chosen once per solve
// (pagerank_batched_cpu_isa). The file compiles with -ffp-contract=off
// (CMakeLists.txt), so every variant rounds the same products and sums (in
// double the same bits; float moves in its last bits, <= 3e-8 measured).
// H100 host, 16 cores, 64 sources: cnr-2000 0.80-0.89 s with AVX-512,
// 0.85-0.93 s AVX2, 1.07-1.14 s portable (docs/PERFORMANCE.md).
enum class cpu_isa { portable, avx2, avx512 };

template <class T>
using fused_rows_fn = void (*)(int, const step_inputs<T>&, const T*, T*, std::size_t, index_t, index_t,
                               double*, double*);

template <class T>
void fused_rows_portable(int width, const step_inputs<T>& in, const T* r, T* rn, std::size_t off, index_t i0,
                         index_t i1, double* pl1, double* pd) {
  fused_rows_any<T>(width, in, r, rn, off, i0, i1, pl1, pd);
}

#if PERRON_BATCHED_X86
template <class T>
__attribute__((target("avx2,fma"))) void fused_rows_avx2(int width, const step_inputs<T>& in, const T* r,
                                                         T* rn, std::size_t off, index_t i0, index_t i1,
                                                         double* pl1, double* pd) {
  fused_rows_any<T>(width, in, r, rn, off, i0, i1, pl1, pd);
}

template <class T>
__attribute__((target("avx512f,fma,prefer-vector-width=512"))) void fused_rows_avx512(
    int width, const step_inputs<T>& in, const T* r, T* rn, std::size_t off, index_t i0, index_t i1,
    double* pl1, double* pd) {
  fused_rows_any<T>(width, in, r, rn, off, i0, i1, pl1, pd);
}
#endif

cpu_isa isa_of(const std::string& name) {
  if (name == "default") return cpu_isa::portable;
  if (name == "avx2") return cpu_isa::avx2;
  return cpu_isa::avx512;
}

template <class T>
fused_rows_fn<T> fused_rows_for(cpu_isa isa) {
#if PERRON_BATCHED_X86
  if (isa == cpu_isa::avx512) return &fused_rows_avx512<T>;
  if (isa == cpu_isa::avx2) return &fused_rows_avx2<T>;
#endif
  (void)isa;
  return &fused_rows_portable<T>;
}

// k columns as chunks of `chunk` columns, then powers of two for the rest.
std::vector<std::pair<std::size_t, int>> column_chunks(std::size_t k, int chunk) {
  std::vector<std::pair<std::size_t, int>> out;
  std::size_t off = 0;
  for (int w = chunk; w >= 1; w /= 2)
    for (; off + static_cast<std::size_t>(w) <= k; off += static_cast<std::size_t>(w))
      out.emplace_back(off, w);
  return out;
}

template <class T>
class cpu_backend final : public detail::batched_backend {
 public:
  cpu_backend(const pagerank_graph<T>& g, double alpha, int chunk, cpu_isa isa)
      : g_(g), alpha_(alpha), chunk_(chunk > 0 ? chunk : default_chunk<T>), rows_(fused_rows_for<T>(isa)) {}

  void begin(const detail::teleport_rows& v, index_t k) override {
    k_ = k;
    v_ = v;
    const std::size_t nk = static_cast<std::size_t>(g_.vertices()) * static_cast<std::size_t>(k);
    const T r0 = static_cast<T>(1.0 / static_cast<double>(g_.vertices()));
    r_.assign(nk, r0);
    next_.resize(nk);
    // sum over the dangling vertices of the stored start value, as a single solve takes it
    dangling_.assign(static_cast<std::size_t>(k), static_cast<double>(g_.dangling_count) * double(r0));
  }

  void step(std::vector<double>& l1) override;

  void extract(index_t slot, double* out) override {
    const auto [first, stride] = column_at(static_cast<std::size_t>(k_), static_cast<std::size_t>(slot));
    const index_t n = g_.vertices();
    const T* r = r_.data() + first;
#pragma omp parallel for schedule(static) if (n >= 65536)
    for (index_t i = 0; i < n; ++i) out[i] = static_cast<double>(r[static_cast<std::size_t>(i) * stride]);
  }

  void compact(const std::vector<index_t>& keep, const detail::teleport_rows& v) override {
    const auto k = static_cast<std::size_t>(k_), kn = keep.size();
    const auto n = static_cast<index_t>(g_.vertices());
    next_.resize(static_cast<std::size_t>(n) * kn);
    for (std::size_t j = 0; j < kn; ++j) {
      const auto [from, from_stride] = column_at(k, static_cast<std::size_t>(keep[j]));
      const auto [to, to_stride] = column_at(kn, j);
#pragma omp parallel for schedule(static) if (n >= 65536)
      for (index_t i = 0; i < n; ++i)
        next_[to + static_cast<std::size_t>(i) * to_stride] =
            r_[from + static_cast<std::size_t>(i) * from_stride];
    }
    r_.swap(next_);
    std::vector<double> d(kn);
    for (std::size_t j = 0; j < kn; ++j) d[j] = dangling_[static_cast<std::size_t>(keep[j])];
    dangling_ = std::move(d);
    k_ = static_cast<index_t>(kn);
    next_.resize(r_.size());
    v_ = v;
  }

 private:
  // Where column c of a block of k columns starts in the chunk-major layout, and its stride.
  std::pair<std::size_t, std::size_t> column_at(std::size_t k, std::size_t c) const {
    for (const auto& [off, width] : column_chunks(k, chunk_))
      if (c < off + static_cast<std::size_t>(width))
        return {static_cast<std::size_t>(g_.vertices()) * off + (c - off), static_cast<std::size_t>(width)};
    return {0, 1};  // not reached: c < k
  }

  const pagerank_graph<T>& g_;
  double alpha_;
  int chunk_;  // columns per chunk
  fused_rows_fn<T> rows_;
  index_t k_ = 0;
  detail::teleport_rows v_;
  std::vector<T> r_, next_;       // R_k and R_{k+1}, n x k chunk-major (column_chunks)
  std::vector<double> dangling_;  // per slot: sum_{j dangling} R(j, slot)
  std::vector<double> part_;      // per row block: l1 then dangling, k each
};

// One step of every column: the SpMM and the update fused per row (R' in a
// second buffer, since other rows still gather R), over tasks (column chunk,
// row block) ordered chunk-major so that the threads share one chunk's rows
// of R in cache; then each column's ||R' - R||_1 and dangling mass from the
// row blocks' partials in block order.
template <class T>
void cpu_backend<T>::step(std::vector<double>& l1) {
  const index_t n = g_.vertices();
  const auto k = static_cast<std::size_t>(k_);
  std::vector<double> coef(k);
  for (std::size_t c = 0; c < k; ++c) coef[c] = alpha_ * dangling_[c] + (1.0 - alpha_);
  const step_inputs<T> in{g_.pt, g_.dangling.data(), v_, alpha_, coef.data()};
  const auto chunks = column_chunks(k, chunk_);
  const index_t blocks = (n + sum_rows - 1) / sum_rows;
  part_.assign(static_cast<std::size_t>(blocks) * 2 * k, 0.0);
  const auto tasks = static_cast<long>(chunks.size()) * blocks;
  const std::size_t work = (g_.pt.nnz() + static_cast<std::size_t>(n)) * k;
#pragma omp parallel for schedule(dynamic, 1) if (work >= 65536)
  for (long task = 0; task < tasks; ++task) {
    const auto& [off, width] = chunks[static_cast<std::size_t>(task / blocks)];
    const auto b = static_cast<index_t>(task % blocks);
    double* pl1 = part_.data() + static_cast<std::size_t>(b) * 2 * k;
    const std::size_t base = static_cast<std::size_t>(n) * off;
    rows_(width, in, r_.data() + base, next_.data() + base, off, b * sum_rows,
          std::min(n, (b + 1) * sum_rows), pl1 + off, pl1 + k + off);
  }
  r_.swap(next_);
  std::fill(dangling_.begin(), dangling_.end(), 0.0);
  for (index_t b = 0; b < blocks; ++b)
    for (std::size_t c = 0; c < k; ++c) {
      l1[c] += part_[static_cast<std::size_t>(b) * 2 * k + c];
      dangling_[c] += part_[static_cast<std::size_t>(b) * 2 * k + k + c];
    }
}

}  // namespace

std::string pagerank_batched_cpu_isa(const std::string& requested) {
#if PERRON_BATCHED_X86
  const bool avx512 = __builtin_cpu_supports("avx512f"), avx2 = __builtin_cpu_supports("avx2");
#else
  const bool avx512 = false, avx2 = false;
#endif
  if (requested.empty()) return avx512 ? "avx512" : avx2 ? "avx2" : "default";
  if (requested != "default" && requested != "avx2" && requested != "avx512")
    throw invalid_argument("cpu_isa must be default, avx2 or avx512, got '" + requested + "'");
  if ((requested == "avx2" && !avx2) || (requested == "avx512" && !avx512))
    throw invalid_argument("cpu_isa " + requested + ": this CPU (or build) does not run it");
  return requested;
}

template <class T>
pagerank_batched_result pagerank_batched_cpu(const pagerank_graph<T>& g,
                                             const std::vector<source_set>& sources,
                                             const pagerank_batched_options& opt) {
  if (opt.chunk_columns > 32)
    throw invalid_argument("--chunk-columns " + std::to_string(opt.chunk_columns) +
                           ": the CPU's chunks are at most 32 columns (wider ones are the GPU's fused step)");
  cpu_backend<T> b(g, opt.base.alpha, opt.chunk_columns, isa_of(pagerank_batched_cpu_isa(opt.cpu_isa)));
  pagerank_batched_result res;
  detail::run_batched(b, g.vertices(), sources, opt, res);
  res.on_gpu = false;
  return res;
}

template <class T>
pagerank_batched_result pagerank_batched(const pagerank_graph<T>& g, const std::vector<source_set>& sources,
                                         const pagerank_batched_options& opt) {
  opt.validate();
  const in_memory_graph facts = in_memory_graph_of(g, sources.size(), device_left_to_model(opt.base));
  const device_decision device = decide_device(opt.base, facts);
  pagerank_batched_result r =
      device.gpu ? pagerank_batched_cuda(g, sources, opt) : pagerank_batched_cpu(g, sources, opt);
  r.device_choice = device.reason;
  if (!r.iterations.empty()) remember_solve(opt.base, facts, r.mean_iterations());
  return r;
}

template pagerank_batched_result pagerank_batched_cpu<float>(const pagerank_graph<float>&,
                                                             const std::vector<source_set>&,
                                                             const pagerank_batched_options&);
template pagerank_batched_result pagerank_batched_cpu<double>(const pagerank_graph<double>&,
                                                              const std::vector<source_set>&,
                                                              const pagerank_batched_options&);
template pagerank_batched_result pagerank_batched<float>(const pagerank_graph<float>&,
                                                         const std::vector<source_set>&,
                                                         const pagerank_batched_options&);
template pagerank_batched_result pagerank_batched<double>(const pagerank_graph<double>&,
                                                          const std::vector<source_set>&,
                                                          const pagerank_batched_options&);

}  // namespace perron
