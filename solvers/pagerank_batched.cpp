// Batched personalized PageRank: option checks, the block loop shared by the
// backends (per-column stopping, compaction) and the CPU backend.
#include "solvers/pagerank_batched.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/text.hpp"
#include "kernels/spmm.hpp"

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
  if (block_columns < 1 || block_columns > 256)
    throw invalid_argument("--block-columns must be in [1, 256], got " + std::to_string(block_columns));
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
        throw invalid_argument(where + "weight " + format_g(w, 17) +
                               " (weights must be finite, non-negative)");
      sum += w;
    }
    if (!(sum > 0.0) || !std::isfinite(sum))
      throw invalid_argument(where + (sum > 0.0 ? "the weights' sum overflows" : "all weights are zero"));
  }
}

bool pagerank_batched_result::all_converged() const {
  return std::all_of(converged.begin(), converged.end(), [](std::uint8_t c) { return c != 0; });
}

// ---- shared pieces ---------------------------------------------------------------

namespace detail {

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
    double sum = 0.0;
    for (const auto& e : sources[live[s]]) sum += e.second;
    for (const auto& [v, w] : sources[live[s]]) {
      const auto k = static_cast<std::size_t>(next[static_cast<std::size_t>(v)]++);
      t.slot[k] = static_cast<index_t>(s);
      t.weight[k] = w / sum;
    }
  }
  return t;
}

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

void run_batched(batched_backend& b, index_t n, const std::vector<source_set>& sources,
                 const pagerank_batched_options& opt, pagerank_batched_result& res) {
  opt.validate(n, sources);
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t s = sources.size();
  res.vertices = n;
  res.sources = s;
  res.rank.assign(s * static_cast<std::size_t>(n), 0.0);
  res.iterations.assign(s, 0);
  res.residual.assign(s, std::numeric_limits<double>::infinity());
  res.converged.assign(s, 0);
  const auto width = static_cast<std::size_t>(opt.block_columns);
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

template <class T>
class cpu_backend final : public detail::batched_backend {
 public:
  cpu_backend(const pagerank_graph<T>& g, double alpha) : g_(g), alpha_(alpha) {}

  void begin(const detail::teleport_rows& v, index_t k) override {
    k_ = k;
    v_ = v;
    const std::size_t nk = static_cast<std::size_t>(g_.vertices()) * static_cast<std::size_t>(k);
    const T r0 = static_cast<T>(1.0 / static_cast<double>(g_.vertices()));
    r_.assign(nk, r0);
    y_.resize(nk);
    // sum over the dangling vertices of the stored start value, as a single solve takes it
    dangling_.assign(static_cast<std::size_t>(k), static_cast<double>(g_.dangling_count) * double(r0));
  }

  void step(std::vector<double>& l1) override;

  void extract(index_t slot, double* out) override {
    const auto k = static_cast<std::size_t>(k_);
    for (std::size_t i = 0; i < static_cast<std::size_t>(g_.vertices()); ++i)
      out[i] = static_cast<double>(r_[i * k + static_cast<std::size_t>(slot)]);
  }

  void compact(const std::vector<index_t>& keep, const detail::teleport_rows& v) override {
    const auto k = static_cast<std::size_t>(k_), kn = keep.size();
    const auto n = static_cast<index_t>(g_.vertices());
    // In place, row by row: row i of the new block never overtakes row i of the old.
    for (index_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < kn; ++j)
        r_[static_cast<std::size_t>(i) * kn + j] =
            r_[static_cast<std::size_t>(i) * k + static_cast<std::size_t>(keep[j])];
    std::vector<double> d(kn);
    for (std::size_t j = 0; j < kn; ++j) d[j] = dangling_[static_cast<std::size_t>(keep[j])];
    dangling_ = std::move(d);
    k_ = static_cast<index_t>(kn);
    r_.resize(static_cast<std::size_t>(n) * kn);
    y_.resize(r_.size());
    v_ = v;
  }

 private:
  const pagerank_graph<T>& g_;
  double alpha_;
  index_t k_ = 0;
  detail::teleport_rows v_;
  std::vector<T> r_, y_;
  std::vector<double> dangling_;  // per slot: sum_{j dangling} R(j, slot)
  std::vector<double> part_;      // per row block: l1 then dangling, k each
};

// Y = P^T R (one SpMM for all columns), then per row i and slot c
//   R(i, c) <- alpha Y(i, c) + coef_c v_c(i),  coef_c = alpha * dangling_c + 1 - alpha,
// in double and rounded once to T, as the single solve does; with each
// column's ||R_new - R||_1 and next dangling mass summed per row block.
template <class T>
void cpu_backend<T>::step(std::vector<double>& l1) {
  const index_t n = g_.vertices();
  const auto k = static_cast<std::size_t>(k_);
  spmm(g_.pt, T(1), r_.data(), T(0), y_.data(), k_);
  std::vector<double> coef(k);
  for (std::size_t c = 0; c < k; ++c) coef[c] = alpha_ * dangling_[c] + (1.0 - alpha_);
  const index_t blocks = (n + sum_rows - 1) / sum_rows;
  part_.assign(static_cast<std::size_t>(blocks) * 2 * k, 0.0);
#pragma omp parallel if (static_cast <std::size_t>(n) * k >= 16384)
  {
    std::vector<double> t(k);
#pragma omp for schedule(static)
    for (index_t b = 0; b < blocks; ++b) {
      double* pl1 = part_.data() + static_cast<std::size_t>(b) * 2 * k;
      double* pd = pl1 + k;
      for (index_t i = b * sum_rows; i < std::min(n, (b + 1) * sum_rows); ++i) {
        const std::size_t row = static_cast<std::size_t>(i) * k;
        for (std::size_t c = 0; c < k; ++c) t[c] = alpha_ * static_cast<double>(y_[row + c]);
        for (index_t e = v_.row_ptr[i]; e < v_.row_ptr[i + 1]; ++e)
          t[static_cast<std::size_t>(v_.slot[e])] +=
              coef[static_cast<std::size_t>(v_.slot[e])] * v_.weight[e];
        const bool dangling = g_.dangling[static_cast<std::size_t>(i)] != 0;
        for (std::size_t c = 0; c < k; ++c) {
          const T rn = static_cast<T>(t[c]);
          pl1[c] += std::fabs(static_cast<double>(rn) - static_cast<double>(r_[row + c]));
          r_[row + c] = rn;
          if (dangling) pd[c] += static_cast<double>(rn);
        }
      }
    }
  }
  std::fill(dangling_.begin(), dangling_.end(), 0.0);
  for (index_t b = 0; b < blocks; ++b)
    for (std::size_t c = 0; c < k; ++c) {
      l1[c] += part_[static_cast<std::size_t>(b) * 2 * k + c];
      dangling_[c] += part_[static_cast<std::size_t>(b) * 2 * k + k + c];
    }
}

}  // namespace

template <class T>
pagerank_batched_result pagerank_batched_cpu(const pagerank_graph<T>& g,
                                             const std::vector<source_set>& sources,
                                             const pagerank_batched_options& opt) {
  cpu_backend<T> b(g, opt.base.alpha);
  pagerank_batched_result res;
  detail::run_batched(b, g.vertices(), sources, opt, res);
  res.on_gpu = false;
  return res;
}

template <class T>
pagerank_batched_result pagerank_batched(const pagerank_graph<T>& g, const std::vector<source_set>& sources,
                                         const pagerank_batched_options& opt) {
  opt.validate();
  return pagerank_runs_on_gpu(opt.base) ? pagerank_batched_cuda(g, sources, opt)
                                        : pagerank_batched_cpu(g, sources, opt);
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
