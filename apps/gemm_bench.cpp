// gemm-bench: the lectures' GEMM ladder (bench/gemm.hpp), every step checked
// against cuBLAS SGEMM in pure fp32 and timed beside it in the same process,
// at square sizes n x n x n.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "apps/common/app.hpp"
#include "apps/common/bench_options.hpp"
#include "apps/common/usage.hpp"
#include "bench/compare.hpp"
#include "bench/gemm.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace po = boost::program_options;

namespace perron::app {
namespace {

struct settings {
  std::vector<int> sizes{1024, 2048, 4096, 8192};
  int runs = 20;
  int warmup = 3;
  bool json = false;
};

const char* usage_text =
    "Usage: gemm-bench [options]\n"
    "\n"
    "Times the GEMM ladder of the course (fp32, row-major C = alpha A B + beta C)\n"
    "step by step against cuBLAS SGEMM in pure fp32 (default math mode, no TF32,\n"
    "no tensor cores) on square n x n x n products, in one process. Each step is\n"
    "first checked against cuBLAS with alpha = 1.25, beta = -0.5 on random data\n"
    "(error = max |C - C_cublas| / max |C_cublas|), then timed with alpha = 1,\n"
    "beta = 0: CUDA events, median of --runs calls after --warmup (fewer runs for\n"
    "steps slower than a second in total). TFLOP/s = 2 n^3 / time.\n"
    "\n"
    "Options";

bool parse_command_line(int argc, char** argv, settings& s) {
  po::options_description o = options_with_help(usage_text);
  // clang-format off
  o.add_options()
    ("sizes", po::value<std::vector<int>>(&s.sizes)->multitoken()->value_name("N..."),
     "matrix sizes n (M = N = K = n), each in [1, 16384]; default 1024 2048 4096 8192");
  // clang-format on
  add_timing_options(o, s.runs, "timed calls per step and size (3 to 1000000)", s.warmup, s.json);
  po::variables_map vm;
  if (!parse_bench_command_line(argc, argv, o, vm)) return false;
  if (s.sizes.empty()) throw usage_error("--sizes needs at least one size");
  for (int n : s.sizes)
    if (n < 1 || n > 16384)
      throw usage_error("--sizes: each size must be in [1, 16384] (got " + std::to_string(n) + ")");
  require_calls("runs", s.runs, 3);
  require_calls("warmup", s.warmup, 1);
  return true;
}

struct row {
  int n = 0;
  std::string step;
  double us = 0, tflops = 0, percent = 0, error = 0;
};

// Median microseconds of f, with the run count cut so that one step spends about a second.
double time_us(const std::function<void()>& f, const settings& s) {
  const double once = median_gpu_us(f, nullptr, 1, 1);
  const int runs = std::clamp(static_cast<int>(1e6 / std::max(once, 1.0)), 3, s.runs);
  return median_gpu_us(f, nullptr, once > 2e5 ? 0 : s.warmup, runs);
}

void bench_size(int n, const settings& s, std::vector<row>& rows) {
  const std::size_t count = static_cast<std::size_t>(n) * n;
  const std::vector<float> c0 = random_values<float>(count, 3u * n + 2);
  cuda::device_buffer<float> a(random_values<float>(count, 3u * n)),
      b(random_values<float>(count, 3u * n + 1)), c(c0);
  const cublas_sgemm cublas;
  const float alpha = 1.25f, beta = -0.5f;
  cublas(n, n, n, alpha, a.data(), b.data(), beta, c.data());
  const std::vector<float> ref = c.download();
  const double flop = 2.0 * n * static_cast<double>(n) * n;
  const double cublas_us = time_us([&] { cublas(n, n, n, 1.f, a.data(), b.data(), 0.f, c.data()); }, s);
  rows.push_back({n, "cublas-sgemm", cublas_us, flop / cublas_us * 1e-6, 100.0, 0.0});
  for (gemm_step step : gemm_steps()) {
    c.upload(c0);
    gemm(step, n, n, n, alpha, a.data(), b.data(), beta, c.data());
    const double err = max_relative_error(c.download(), ref);
    const double us = time_us([&] { gemm(step, n, n, n, 1.f, a.data(), b.data(), 0.f, c.data()); }, s);
    rows.push_back({n, std::string(name(step)), us, flop / us * 1e-6, 100.0 * cublas_us / us, err});
  }
}

void print_table(const std::vector<row>& rows) {
  std::printf("%6s  %-13s %10s %9s %9s %10s\n", "n", "step", "time_us", "TFLOP/s", "%cuBLAS", "max_rel_err");
  for (const row& r : rows)
    std::printf("%6d  %-13s %10.1f %9.2f %8.1f%% %10.2e\n", r.n, r.step.c_str(), r.us, r.tflops, r.percent,
                r.error);
}

void print_json(const std::vector<row>& rows) {
  print_json_results(rows.size(), [&](std::size_t i) {
    const row& r = rows[i];
    std::printf(
        "{\"n\": %d, \"step\": \"%s\", \"time_us\": %s, \"tflops\": %s, \"percent_cublas\": %s, "
        "\"max_rel_error\": %s}",
        r.n, r.step.c_str(), json_number(r.us).c_str(), json_number(r.tflops).c_str(),
        json_number(r.percent).c_str(), json_number(r.error).c_str());
  });
}

int main_body(int argc, char** argv) {
  settings s;
  if (!parse_command_line(argc, argv, s)) return ok;
  require_cuda_device("gemm-bench");
  std::vector<row> rows;
  for (int n : s.sizes) bench_size(n, s, rows);
  if (s.json) {
    print_json(rows);
  } else {
    std::printf("device: %s\n", cuda::device_description().c_str());
    print_table(rows);
  }
  // fp32 with K <= 16384 terms of size <= 1: far under 1e-3 when right.
  const bool bad = std::any_of(rows.begin(), rows.end(), [](const row& r) { return !(r.error < 1e-3); });
  if (bad) std::cerr << "gemm-bench: error: a step differs from cuBLAS by more than 1e-3\n";
  return bad ? internal : ok;
}

}  // namespace
}  // namespace perron::app

int main(int argc, char** argv) {
  return perron::app::run("gemm-bench", [&] { return perron::app::main_body(argc, argv); });
}
