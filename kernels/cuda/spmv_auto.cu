// auto: a short timed trial, once per plan. Which kernel is fastest depends on
// the row-length distribution, the column pattern (x locality), the size
// relative to L2 and the precision, and the benchmark shows that no single
// kernel wins everywhere; timing the candidates on the matrix itself costs a
// few milliseconds, once, against the thousands of SpMVs a solver then does.
//
// Candidates come from the registry (core/spmv_kernels.def: the trial order
// and rule columns): merge, csr-adaptive and cuSPARSE's ALG1 always; the
// others only where they cannot be pathological (a long row serialised on one
// thread or warp, ELL padding): csr-vector and csr-cte when no row exceeds
// 2^15 entries, csr-scalar and csr-cached when no row exceeds 32, ell when its
// padded size is within 1.5x the nonzeros. cuSPARSE ALG1 goes first: it is the
// reference every other candidate must beat, and an early fast time lets the
// probe drop hopeless ones quickly. Each candidate runs a probe (1 warm-up, 3
// timed calls), then 2 warm-up calls and 31 calls timed one by one with CUDA
// events, queued behind a spin kernel (as spmv-bench times them: GPU time, not
// host launch cost); its time is the median. A candidate whose probe already
// takes more than twice the best median so far is dropped without the 31.
// Calls longer than 0.5 ms (matrices of ~10^8 nonzeros) get fewer timed calls,
// at least 7, about 16 ms of them: their medians are steady to well under the
// 3% margin below, and 31 calls of 2 ms for each of ~8 candidates would make
// the trial half a second. The fastest wins, except that cuSPARSE ALG1 is
// kept unless the fastest beats it by more than 3%: medians of 31 calls still
// move by a percent or two between runs, and a near-tie must not make auto
// slower than the library it is measured against. reason() lists every candidate, with what building
// and timing it took in brackets (ms), and the whole trial's time: the set-up a user pays for the
// pick. A plan built from a device CSR has no host matrix: the kernels that plan from it (x.host())
// are "refused". cuSPARSE's ALG2 (deterministic) is not a candidate: it was
// never the fastest in the 1324 trials of the PageRank corpora of sessions
// 60-73 nor on the 46 SpMV matrices in either precision (docs/PERFORMANCE.md,
// session 76), and building and timing it cost 2-4 ms of every trial.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/error.hpp"
#include "core/text.hpp"
#include "kernels/cuda/spmv_engine.cuh"

namespace perron::cuda::spmv {
namespace {

constexpr int trial_warmup = 2;
constexpr int trial_calls = 31;
constexpr double keep_alg1_within = 0.97;  // another kernel must take < 97% of ALG1's time
constexpr double probe_drop = 2.0;         // a probe this many times the best so far ends a candidate
constexpr double trial_budget_us = 16000;  // timed calls of a candidate past which the count shrinks
constexpr int min_trial_calls = 7;

// Timed calls for a candidate whose probe took `probe_us` per call (odd: a true median).
int trial_calls_for(double probe_us) {
  if (probe_us * trial_calls <= trial_budget_us) return trial_calls;
  return std::max(min_trial_calls, static_cast<int>(trial_budget_us / probe_us) | 1);
}

// Median GPU time of one call, measured like spmv-bench (time_calls).
template <class T>
double time_engine(const engine<T>& e, const T* d_x, T* d_y, cudaStream_t s, int warmup, int calls) {
  return median(time_calls([&] { e.apply(T(1), d_x, T(0), d_y); }, s, warmup, calls));
}

// The trial rules of core/spmv_kernels.def.
enum class trial_rule { never, always, bounded_rows, short_rows, low_padding };

bool admits(trial_rule rule, const row_stats& st) {
  switch (rule) {
    case trial_rule::always:
      return true;
    case trial_rule::bounded_rows:
      return st.max_len <= (1 << 15);
    case trial_rule::short_rows:
      return st.max_len <= 32;
    case trial_rule::low_padding:  // ELL's padded size over the nonzeros (nnz > 0 here)
      return static_cast<double>(st.rows) * st.max_len / static_cast<double>(st.nnz) <= 1.5;
    case trial_rule::never:
      break;
  }
  return false;
}

// The kernels auto times on a matrix with these row statistics, in trial order.
std::vector<spmv_kernel> candidates_for(const row_stats& st) {
  struct entry {
    spmv_kernel kernel;
    int trial;
    trial_rule rule;
  };
  static constexpr entry registry[] = {
#define PERRON_SPMV_KERNEL(id, text, what, trial, rule) {spmv_kernel::id, trial, trial_rule::rule},
#include "core/spmv_kernels.def"
#undef PERRON_SPMV_KERNEL
  };
  std::vector<entry> picked;
  for (const entry& e : registry)
    if (e.trial > 0 && admits(e.rule, st)) picked.push_back(e);
  std::stable_sort(picked.begin(), picked.end(),
                   [](const entry& a, const entry& b) { return a.trial < b.trial; });
  std::vector<spmv_kernel> out;
  for (const entry& e : picked) out.push_back(e.kernel);
  return out;
}

// "name time" into the trial's report.
void note(std::string& report, spmv_kernel k, const std::string& what) {
  report += std::string(report.empty() ? "" : ", ") + std::string(name(k)) + " " + what;
}

}  // namespace

template <class T>
auto_choice<T> choose_automatic(const csr_matrix<T>* h, const csr_ptr<T>& a, const row_stats& st,
                                cudaStream_t s) {
  if (st.nnz == 0)
    return {spmv_kernel::csr_scalar, make_engine<T>(spmv_kernel::csr_scalar, h, a, st, s),
            "no nonzeros: y = beta * y, no trial needed; csr-scalar (one pass over y)"};
  const std::vector<spmv_kernel> candidates = candidates_for(st);

  using clock = std::chrono::steady_clock;
  const auto ms_since = [](clock::time_point t) {
    return std::chrono::duration<double, std::milli>(clock::now() - t).count();
  };
  const clock::time_point trial_start = clock::now();
  device_buffer<T> d_x(static_cast<std::size_t>(a->cols)), d_y(static_cast<std::size_t>(a->rows));
  fill(d_x.data(), d_x.size(), T(1), s);  // timing on zeros can flatter (METHOD.md); ones are neutral here
  fill(d_y.data(), d_y.size(), T(0), s);
  auto_choice<T> best{spmv_kernel::merge, nullptr, {}};
  double best_us = 0;
  std::unique_ptr<engine<T>> alg1;  // cuSPARSE ALG1's engine while it is not the best
  double alg1_us = 0;
  std::string report;
  for (spmv_kernel k : candidates) {
    const clock::time_point built = clock::now();
    const auto cost = [&] { return " [" + format_fixed(ms_since(built), 1) + "]"; };
    std::unique_ptr<engine<T>> e;
    try {
      e = make_engine<T>(k, h, a, st, s);
    } catch (const dimension_error&) {
      note(report, k, "refused");
      continue;
    }
    // Probe: 3 calls after 1 warm-up. A candidate already twice as slow as
    // the best cannot win, and timing all 33 calls of a slow one would cost
    // most of the trial.
    const double probe = time_engine(*e, d_x.data(), d_y.data(), s, 1, 3);
    if (best.engine && probe > probe_drop * best_us) {
      note(report, k, format_fixed(probe, 1) + " (3 calls)" + cost());
      continue;
    }
    const int calls = trial_calls_for(probe);
    const double us = time_engine(*e, d_x.data(), d_y.data(), s, trial_warmup, calls);
    note(report, k,
         format_fixed(us, 1) + (calls == trial_calls ? "" : " (" + std::to_string(calls) + " calls)") +
             cost());
    if (k == spmv_kernel::cusparse) alg1_us = us;
    if (!best.engine || us < best_us) {
      if (best.engine && best.kernel == spmv_kernel::cusparse) alg1 = std::move(best.engine);
      best_us = us;
      best.kernel = k;
      best.engine = std::move(e);
    } else if (k == spmv_kernel::cusparse) {
      alg1 = std::move(e);
    }
  }
  std::string tie;
  if (alg1 && best.kernel != spmv_kernel::cusparse && best_us > keep_alg1_within * alg1_us) {
    tie = " (" + std::string(name(best.kernel)) + " within 3% of cusparse: cusparse kept)";
    best.kernel = spmv_kernel::cusparse;
    best.engine = std::move(alg1);
  }
  PERRON_CUDA_CHECK(cudaStreamSynchronize(s));  // before d_x, d_y are freed
  best.reason = "timed trial (us per call, median of " + std::to_string(trial_calls) +
                "; [ms to build and time]): " + report + " -> " + std::string(name(best.kernel)) + tie +
                "; the trial took " + format_fixed(ms_since(trial_start), 1) + " ms";
  return best;
}

template auto_choice<float> choose_automatic(const csr_matrix<float>*, const csr_ptr<float>&,
                                             const row_stats&, cudaStream_t);
template auto_choice<double> choose_automatic(const csr_matrix<double>*, const csr_ptr<double>&,
                                              const row_stats&, cudaStream_t);

}  // namespace perron::cuda::spmv
