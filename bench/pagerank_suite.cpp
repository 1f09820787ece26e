// `pagerank --bench` (bench/pagerank_suite.hpp). The output's layout is parsed
// by scripts/gpu-bench.sh: keep it.
#include "bench/pagerank_suite.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "bench/pagerank_bench.hpp"
#include "bench/spmv_timing.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"
#include "core/text.hpp"

namespace perron::bench {
namespace {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

// Median device time of one iteration of a solver: two solves that stop by
// max_iter (tol far below reach), timed by CUDA events, differenced so the
// per-solve fixed costs (init kernel, graph launch) cancel.
template <class T>
double iteration_seconds(pagerank_cuda<T>& solver, pagerank_options opt, int runs) {
  opt.tol = 1e-300;
  std::vector<double> per;
  for (int i = 0; i < runs; ++i) {
    opt.max_iter = 10;
    const pagerank_result a = solver.solve(opt);
    opt.max_iter = 60;
    const pagerank_result b = solver.solve(opt);
    if (b.iterations <= a.iterations) continue;  // reached an exact fixed point: nothing to difference
    per.push_back((b.device_seconds - a.device_seconds) / (b.iterations - a.iterations));
  }
  return median(per);
}

// One row of the solves table.
struct row {
  std::string what;
  pagerank_result r;
  double wall = 0, device = 0, iter = 0;
};

template <class T>
class suite {
 public:
  suite(pagerank_suite_input& in, std::ostream& o) : in_(in), o_(o) {}
  void run();

 private:
  void build_graph();
  void print_header();
  void time_kernels();
  void run_perron(std::optional<spmv_kernel> k, pagerank_loop loop, int unroll,
                  pagerank_pull pull = pagerank_pull::spmv);
  void run_perron_rows();
  row run_baseline();
  void print_solves(const row& b);

  pagerank_suite_input& in_;
  std::ostream& o_;
  pagerank_graph<T> g_;
  double t_convert_ = 0, t_convert_gpu_ = 0;
  spmv_kernel best_ = spmv_kernel::automatic;
  double best_s_ = std::numeric_limits<double>::infinity();
  std::vector<row> rows_;
  std::string fused_note_, persistent_note_;
};

// P^T built on the host and on the GPU (the second GPU build timed: the first
// one pays for the CUDA context); they must agree bit for bit.
template <class T>
void suite<T>::build_graph() {
  auto t0 = clock_type::now();
  g_ = make_pagerank_graph<T>(in_.matrix, in_.weighted, in_.label);
  t_convert_ = seconds_since(t0);
  make_pagerank_graph<T>(in_.matrix, in_.weighted, in_.label, true);
  t0 = clock_type::now();
  const pagerank_graph<T> g_gpu = make_pagerank_graph<T>(in_.matrix, in_.weighted, in_.label, true);
  t_convert_gpu_ = seconds_since(t0);
  const bool same =
      g_gpu.pt.row_ptr == g_.pt.row_ptr && g_gpu.pt.col_idx == g_.pt.col_idx &&
      std::memcmp(g_gpu.pt.values.data(), g_.pt.values.data(), g_.pt.values.size() * sizeof(T)) == 0 &&
      g_gpu.dangling == g_.dangling;
  if (!same) throw error("--bench: P^T built on the GPU differs from the host's");
  in_.matrix = coo_matrix<double>{};
}

template <class T>
void suite<T>::print_header() {
  const double n = g_.vertices(), nnz = static_cast<double>(g_.links());
  // Fewest bytes one SpMV y = P^T x moves: row_ptr, col_idx, values, x once, y once.
  const double spmv_bytes = (n + 1) * 4 + nnz * (4 + sizeof(T)) + 2 * n * sizeof(T);
  // The fused update adds: read y and r, write r, the dangling bit mask.
  const double update_bytes = 3 * n * sizeof(T) + n / 8;
  const pagerank_options& opt = in_.options;
  o_ << "pagerank --bench " << in_.graph_name << "\n";
  o_ << "graph      " << g_.vertices() << " vertices, " << g_.links() << " links, " << g_.dangling_count
     << " dangling (load " << format_g(in_.load_seconds, 3) << " s, convert " << format_g(t_convert_, 3)
     << " s on the CPU, " << format_g(t_convert_gpu_, 3) << " s on the GPU, identical)\n";
  o_ << "device     " << cuda::device_description(0) << "\n";
  const double copy_gbs = copy_bandwidth_gbs(std::size_t(1) << 30, 20);
  o_ << "copy       " << format_g(copy_gbs, 4) << " GB/s device-to-device (read + write)\n";
  o_ << "precision  " << in_.precision << ", alpha " << format_g(opt.alpha) << ", tol " << format_g(opt.tol)
     << ", runs " << in_.runs << "\n";
  o_ << "bytes      SpMV >= " << format_g(spmv_bytes / 1e6, 4) << " MB (floor "
     << format_g(spmv_bytes / copy_gbs / 1e3, 3) << " us at copy bandwidth), update "
     << format_g(update_bytes / 1e6, 4) << " MB\n\n";
}

// 1. Every GPU SpMV kernel on P^T; the fastest is best_.
template <class T>
void suite<T>::time_kernels() {
  const double n = g_.vertices(), nnz = static_cast<double>(g_.links());
  const double spmv_bytes = (n + 1) * 4 + nnz * (4 + sizeof(T)) + 2 * n * sizeof(T);
  o_ << "SpMV y = P^T x, one launch (median of " << in_.runs << ", CUDA events)\n";
  std::vector<T> hx(g_.pt.cols);
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = static_cast<T>((1.0 + double(i % 7)) / (4.0 * n));
  cuda::device_buffer<T> d_x(hx), d_y(static_cast<std::size_t>(g_.pt.rows));
  for (spmv_kernel k : spmv_kernels()) {
    if (!on_gpu(k) || k == spmv_kernel::automatic) continue;
    char buf[160];
    try {
      spmv_plan<T> plan(g_.pt, k);
      const double us = time_spmv(plan, T(1), d_x.data(), T(0), d_y.data(), 10, in_.runs).median_us();
      std::snprintf(buf, sizeof buf, "  %-14s %10.2f us  %8.1f GB/s\n", std::string(name(k)).c_str(), us,
                    spmv_bytes / (us * 1e-6) / 1e9);
      if (us * 1e-6 < best_s_) {
        best_s_ = us * 1e-6;
        best_ = k;
      }
      o_ << buf;
    } catch (const error& e) {
      o_ << "  " << name(k) << ": skipped (" << e.what() << ")\n";
    }
  }
  if (best_ == spmv_kernel::automatic)
    throw cuda_error("--bench: no GPU SpMV kernel could run on this graph");
  o_ << "  best: " << name(best_) << " " << format_g(best_s_ * 1e6, 4) << " us\n\n";
}

// One row: a warm-up solve (builds the graphs), `runs` timed solves, and the
// marginal time per iteration.
template <class T>
void suite<T>::run_perron(std::optional<spmv_kernel> k, pagerank_loop loop, int unroll, pagerank_pull pull) {
  pagerank_cuda<T> solver(g_, k, pull);
  if (solver.pull() == pagerank_pull::fused) fused_note_ = solver.kernel_reason();
  if (solver.pull() == pagerank_pull::persistent) persistent_note_ = solver.kernel_reason();
  pagerank_options opt = in_.options;
  opt.loop = loop;
  opt.graph_unroll = unroll;
  row x;
  x.r = solver.solve(opt);
  const bool auto_kernel = !k || *k == spmv_kernel::automatic;
  x.what = "perron " + solver.kernel_name() + (auto_kernel ? " (auto)" : "") + " " +
           std::string(name(x.r.loop)) +
           (x.r.loop == pagerank_loop::check_every
                ? " " + std::to_string(opt.check_interval)
                : " x" + std::to_string(x.r.graph_unroll) + (unroll == 0 ? " (auto)" : ""));
  std::vector<double> wall, dev;
  for (int i = 0; i < in_.runs; ++i) {
    const pagerank_result r = solver.solve(opt);
    wall.push_back(r.solve_seconds);
    dev.push_back(r.device_seconds);
  }
  x.wall = median(wall);
  x.device = median(dev);
  x.iter = iteration_seconds(solver, opt, std::max(5, in_.runs / 10));
  rows_.push_back(std::move(x));
}

// 2. First perron as the command line asks (by default the automatic pull:
// fused for an unweighted graph), which the targets judge; then the SpMV pull
// with the best kernel and each loop, and the other pull.
template <class T>
void suite<T>::run_perron_rows() {
  const pagerank_options& opt = in_.options;
  const int unroll = opt.graph_unroll;
  const pagerank_pull pull = resolve_pull(opt.pull, g_.pattern, opt.kernel, g_.links());
  run_perron(opt.kernel, pagerank_loop::automatic, unroll, pull);
  if (pull != pagerank_pull::spmv) run_perron(std::nullopt, pagerank_loop::automatic, unroll);
  if (rows_.back().r.kernel != best_) run_perron(best_, pagerank_loop::automatic, unroll);
  for (int u : {1, 2, 4, 8})
    if (u != unroll) run_perron(best_, pagerank_loop::automatic, u);
  run_perron(best_, pagerank_loop::check_every, 1);
  if (g_.pattern && pull != pagerank_pull::fused) {
    try {
      run_perron(std::nullopt, pagerank_loop::automatic, unroll, pagerank_pull::fused);
    } catch (const error& e) {
      fused_note_ = std::string("--pull fused could not run: ") + e.what();
    }
  }
  // The persistent pull (issue 17 item 3): the whole solve in one cooperative kernel.
  if (g_.pattern && pull != pagerank_pull::persistent) {
    try {
      run_perron(std::nullopt, pagerank_loop::automatic, unroll, pagerank_pull::persistent);
    } catch (const error& e) {
      persistent_note_ = std::string("--pull persistent could not run: ") + e.what();
    }
  }
}

// 3. The naive baseline.
template <class T>
row suite<T>::run_baseline() {
  const pagerank_options& opt = in_.options;
  cusparse_baseline<T> base(g_);
  row b;
  b.what = "baseline cusparse + thrust, host check";
  b.r = base.solve(opt.alpha, opt.tol, opt.max_iter);
  std::vector<double> wall;
  for (int i = 0; i < in_.runs; ++i)
    wall.push_back(base.solve(opt.alpha, opt.tol, opt.max_iter).solve_seconds);
  b.wall = median(wall);
  b.iter = b.wall / std::max(1, b.r.iterations);
  return b;
}

template <class T>
void suite<T>::print_solves(const row& b) {
  o_ << "Solves to tol " << format_g(in_.options.tol) << " (median of " << in_.runs
     << "; wall = start vector to ranks on the host)\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-44s %5s %10s %10s %12s %8s %8s %10s\n", "solver", "iter", "wall ms",
                "device ms", "us/iter", "xSpMV", "syncs", "max|dr|");
  o_ << buf;
  const auto print_row = [&](const row& x) {
    std::snprintf(buf, sizeof buf, "  %-44s %5d %10.3f %10.3f %12.2f %8.2f %8llu %10.2e\n", x.what.c_str(),
                  x.r.iterations, x.wall * 1e3, x.device * 1e3, x.iter * 1e6, x.iter / best_s_,
                  static_cast<unsigned long long>(x.r.host_syncs), max_abs_diff(x.r.rank, b.r.rank));
    o_ << buf;
  };
  for (const row& x : rows_) print_row(x);
  print_row(b);
  o_ << "  (us/iter: perron = marginal device time per iteration from 10- and 60-iteration solves; baseline "
        "= "
        "wall / "
        "iterations. xSpMV = us/iter over the best SpMV. max|dr| vs the baseline's ranks)\n\n";

  const row& p = rows_.front();
  const double ratio = p.iter / best_s_;
  const double speedup = b.wall / p.wall;
  o_ << "target  one perron iteration <= 1.2 x best SpMV: " << format_g(ratio, 3) << " x  -> "
     << (ratio <= 1.2 ? "met" : "MISSED") << "\n";
  o_ << "target  whole solve >= 5 x faster than the baseline: " << format_g(speedup, 3) << " x  -> "
     << (speedup >= 5 ? "met" : "MISSED") << "\n";
  if (!p.r.loop_note.empty()) o_ << "note    " << p.r.loop_note << "\n";
  if (!fused_note_.empty()) o_ << "fused   " << fused_note_ << "\n";
  if (!persistent_note_.empty()) o_ << "persist " << persistent_note_ << "\n";
}

template <class T>
void suite<T>::run() {
  build_graph();
  print_header();
  time_kernels();
  run_perron_rows();
  print_solves(run_baseline());
}

}  // namespace

void require_gpu(const char* what) {
  if (!cuda::available())
    throw cuda_error(std::string(what) +
                     (cuda::built() ? ": no usable CUDA device"
                                    : ": perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)"));
}

template <class T>
void pagerank_suite(pagerank_suite_input in, std::ostream& o) {
  suite<T>(in, o).run();
}

template void pagerank_suite<float>(pagerank_suite_input, std::ostream&);
template void pagerank_suite<double>(pagerank_suite_input, std::ostream&);

}  // namespace perron::bench
