// auto: a short timed trial, once per plan. Which kernel is fastest depends on
// the row-length distribution, the column pattern (x locality), the size
// relative to L2 and the precision, and the benchmark shows that no single
// kernel wins everywhere; timing the candidates on the matrix itself costs a
// few milliseconds, once, against the thousands of SpMVs a solver then does.
//
// Candidates: merge, csr-adaptive and cuSPARSE (ALG1, ALG2) always; the
// others only where they cannot be pathological (a long row serialised on one
// thread or warp, ELL padding): csr-vector and csr-cte when no row exceeds
// 2^15 entries, csr-scalar and csr-cached when no row exceeds 32, ell when its
// padded size is within 1.5x the nonzeros. Each candidate runs 2 warm-up
// calls, then 31 calls timed one by one with CUDA events, queued behind a
// spin kernel (as spmv-bench times them: GPU time, not host launch cost); its
// time is the median. A candidate whose first 3 timed calls already take more
// than twice the best median so far is dropped without the 31. The fastest
// wins, except that cuSPARSE ALG1 is kept unless the fastest beats it by more
// than 3%: medians of 31 calls still move by a percent or two between runs,
// and a near-tie must not make auto slower than the library it is measured
// against. reason() lists every candidate.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/error.hpp"
#include "kernels/cuda/spmv_engine.cuh"

namespace perron::cuda::spmv {
namespace {

constexpr int trial_warmup = 2;
constexpr int trial_calls = 31;
constexpr double keep_alg1_within = 0.97;  // another kernel must take < 97% of ALG1's time
constexpr double probe_drop = 2.0;         // a probe this many times the best so far ends a candidate

// Median GPU time of one call, measured like spmv-bench (time_calls).
template <class T>
double time_engine(const engine<T>& e, const T* d_x, T* d_y, cudaStream_t s, int warmup, int calls) {
  return median(time_calls([&] { e.apply(T(1), d_x, T(0), d_y); }, s, warmup, calls));
}

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

template <class T>
auto_choice<T> choose_automatic(const csr_matrix<T>& h, const csr_ptr<T>& a, const row_stats& st,
                                cudaStream_t s) {
  if (st.nnz == 0)
    return {spmv_kernel::csr_scalar, make_scalar(a, s),
            "no nonzeros: y = beta * y, no trial needed; csr-scalar (one pass over y)"};

  // cuSPARSE ALG1 first: it is the reference every other candidate must beat,
  // and an early fast time lets the probe below drop hopeless ones quickly.
  std::vector<spmv_kernel> candidates = {spmv_kernel::cusparse, spmv_kernel::merge, spmv_kernel::csr_adaptive,
                                         spmv_kernel::cusparse_alg2};
  if (st.max_len <= (1 << 15)) {
    candidates.push_back(spmv_kernel::csr_vector);
    candidates.push_back(spmv_kernel::csr_cte);
  }
  if (st.max_len <= 32) {
    candidates.push_back(spmv_kernel::csr_scalar);
    candidates.push_back(spmv_kernel::csr_cached);
  }
  const double ell_fill = static_cast<double>(st.rows) * st.max_len / static_cast<double>(st.nnz);
  if (ell_fill <= 1.5) candidates.push_back(spmv_kernel::ell);

  device_buffer<T> d_x(static_cast<std::size_t>(h.cols)), d_y(static_cast<std::size_t>(h.rows));
  fill(d_x.data(), d_x.size(), T(1), s);  // timing on zeros can flatter (METHOD.md); ones are neutral here
  fill(d_y.data(), d_y.size(), T(0), s);

  auto_choice<T> best{spmv_kernel::merge, nullptr, {}};
  double best_us = 0;
  std::unique_ptr<engine<T>> alg1;  // cuSPARSE ALG1's engine while it is not the best
  double alg1_us = 0;
  std::string report;
  for (spmv_kernel k : candidates) {
    std::unique_ptr<engine<T>> e;
    try {
      e = make_engine<T>(k, h, a, st, s);
    } catch (const dimension_error&) {
      report += std::string(report.empty() ? "" : ", ") + std::string(name(k)) + " refused";
      continue;
    }
    if (best.engine) {
      // Probe: 3 calls after 1 warm-up. A candidate already twice as slow as
      // the best cannot win, and timing it 33 times cost most of the trial
      // (csr-cte takes 2.5 ms a call on cnr-2000: 80 ms of a 0.12 s trial).
      const double probe = time_engine(*e, d_x.data(), d_y.data(), s, 1, 3);
      if (probe > probe_drop * best_us) {
        report += std::string(report.empty() ? "" : ", ") + std::string(name(k)) + " " + fixed(probe) +
                  " (3 calls)";
        continue;
      }
    }
    const double us = time_engine(*e, d_x.data(), d_y.data(), s, trial_warmup, trial_calls);
    report += std::string(report.empty() ? "" : ", ") + std::string(name(k)) + " " + fixed(us);
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
  best.reason = "timed trial (us per call, median of " + std::to_string(trial_calls) + "): " + report +
                " -> " + std::string(name(best.kernel)) + tie;
  return best;
}

template auto_choice<float> choose_automatic(const csr_matrix<float>&, const csr_ptr<float>&,
                                             const row_stats&, cudaStream_t);
template auto_choice<double> choose_automatic(const csr_matrix<double>&, const csr_ptr<double>&,
                                              const row_stats&, cudaStream_t);

}  // namespace perron::cuda::spmv
