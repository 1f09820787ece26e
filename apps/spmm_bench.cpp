// spmm-bench: perron's GPU SpMM (kernels/spmm.hpp) against every CSR
// algorithm of cuSPARSE SpMM, in the same process, on each GRAPH and k.
#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "apps/common/app.hpp"
#include "apps/common/bench_options.hpp"
#include "apps/common/input_options.hpp"
#include "apps/common/usage.hpp"
#include "bench/compare.hpp"
#include "bench/gemm.hpp"
#include "bench/spmm_baseline.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "io/load.hpp"
#include "kernels/convert.hpp"
#include "kernels/spmm.hpp"

namespace po = boost::program_options;

namespace perron::app {
namespace {

struct settings {
  std::vector<std::string> graphs;
  std::vector<int> ks{8, 32, 128};
  std::string precision = "float";
  int runs = 50;
  int warmup = 5;
  bool json = false;
  app::input_settings input;
};

const char* usage_text =
    "Usage: spmm-bench [options] GRAPH...\n"
    "\n"
    "Y = A X for the sparse matrix in each GRAPH (Matrix Market, SNAP, or a spec\n"
    "such as rmat:20:10000000) and a random dense row-major block X of k columns:\n"
    "perron's spmm_plan and cuSPARSE SpMM with each CSR algorithm, timed in one\n"
    "process (CUDA events, median of --runs after --warmup). Each result is checked\n"
    "against the CPU SpMM: error = max |Y - Y_cpu| / max |Y_cpu|. speedup = the\n"
    "implementation's time / perron's time (> 1: perron is faster).\n"
    "\n"
    "Options";

// --k's words: the numbers first are the k, the words after them GRAPHs (the
// option takes every word up to the next option: 'spmm-bench --k 8 32 128
// cnr-2000.mtx.gz', as the README writes it, was refused, the graph read as a k).
void split_k_words(const std::vector<std::string>& words, settings& s) {
  if (words.empty()) return;
  s.ks.clear();
  std::size_t i = 0;
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    char* end = nullptr;
    std::strtod(w.c_str(), &end);
    if (w.empty() || *end != '\0') break;  // not a number: the first GRAPH
    int k = 0;
    const auto [last, ec] = std::from_chars(w.data(), w.data() + w.size(), k);
    if (ec != std::errc() || last != w.data() + w.size() || k < 1 || k > 1024)
      throw usage_error("--k: each k must be an integer in [1, 1024] (got '" + w + "')");
    s.ks.push_back(k);
  }
  if (s.ks.empty()) throw usage_error("--k needs at least one k before the GRAPHs (got '" + words[0] + "')");
  s.graphs.insert(s.graphs.end(), words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
}

bool parse_command_line(int argc, char** argv, settings& s) {
  po::options_description o = options_with_help(usage_text);
  std::vector<std::string> k_words;
  // clang-format off
  o.add_options()
    ("k", po::value<std::vector<std::string>>(&k_words)->multitoken()->value_name("K..."),
     "columns of X, each in [1, 1024]; default 8 32 128 (the words after the numbers are GRAPHs)")
    ("precision,p", po::value<std::string>(&s.precision)->default_value("float"), "float or double");
  // clang-format on
  add_timing_options(o, s.runs, "timed calls per implementation (3 to 1000000)", s.warmup, s.json);
  app::add_input_options(o, s.input);
  po::variables_map vm;
  if (!parse_bench_command_line(argc, argv, o, vm, "graph", &s.graphs)) return false;
  split_k_words(k_words, s);
  if (s.graphs.empty()) throw usage_error("no GRAPH given");
  require_precision(s.precision);
  require_calls("runs", s.runs, 3);
  require_calls("warmup", s.warmup, 1);
  return true;
}

struct row {
  std::string graph, impl;
  int k = 0;
  double us = NAN, gflops = NAN, speedup = NAN, error = NAN;  // NaN: unsupported
};

template <class T>
void bench_k(const std::string& graph, const csr_matrix<T>& a, const spmm_plan<T>& plan, int k,
             const settings& s, std::vector<row>& rows) {
  // X and Y (k columns each) on the host, with the reference and each result
  // downloaded beside them, and on the device: refused with the bytes before
  // either is allocated (rmat:20:1000000 --k 1024 took 8 GB of host memory
  // past PERRON_MEMORY_LIMIT=2e9, and a larger graph would take the host's
  // or the GPU's all).
  const double x_bytes = double(sizeof(T)) * double(a.cols) * k,
               y_bytes = double(sizeof(T)) * double(a.rows) * k;
  const std::string what = "spmm-bench on '" + graph + "' (" + std::to_string(a.rows) + " x " +
                           std::to_string(a.cols) + ") with k = " + std::to_string(k);
  check_host_memory(x_bytes + 2.0 * y_bytes, what);
  check_device_memory(x_bytes + y_bytes, what);
  const std::vector<T> x = random_values<T>(static_cast<std::size_t>(a.cols) * k, static_cast<unsigned>(k));
  std::vector<T> ref(static_cast<std::size_t>(a.rows) * k);
  spmm(a, T(1), x.data(), T(0), ref.data(), k);
  cuda::device_buffer<T> d_x(x), d_y(ref.size());
  const double flop = 2.0 * static_cast<double>(a.nnz()) * k;
  auto measure = [&](const std::string& impl, const std::function<void()>& f) {
    f();
    row r{graph, impl, k};
    r.error = max_relative_error(d_y.download(), ref);
    r.us = median_gpu_us(f, plan.stream(), s.warmup, s.runs);
    r.gflops = flop / r.us * 1e-3;
    rows.push_back(r);
  };
  measure("perron", [&] { plan.apply(T(1), d_x.data(), T(0), d_y.data(), k); });
  const double perron_us = rows.back().us;
  for (const auto& [alg, alg_name] : cusparse_spmm_alg_names) {
    try {
      const cusparse_spmm<T> cs(plan, k, alg, d_x.data(), d_y.data());
      measure(std::string(alg_name), [&] { cs(T(1), T(0)); });
      rows.back().speedup = rows.back().us / perron_us;
    } catch (const cuda_error& e) {  // the algorithm does not support this case
      rows.push_back(row{graph, std::string(alg_name) + " (unsupported)", k});
    }
  }
}

template <class T>
void bench_graph(const std::string& spec, const settings& s, std::vector<row>& rows) {
  const io::loaded_matrix loaded = io::load_matrix(spec, app::read_options_for(s.input));
  const csr_matrix<T> a = value_cast<T>(to_csr(loaded.matrix));
  const spmm_plan<T> plan(a);
  if (!s.json)
    std::printf("%s: %d x %d, %zu nonzeros\n", spec.c_str(), static_cast<int>(a.rows),
                static_cast<int>(a.cols), a.nnz());
  for (int k : s.ks) bench_k(spec, a, plan, k, s, rows);
}

void print_table(const std::vector<row>& rows) {
  std::printf("%-28s %5s  %-34s %10s %9s %8s %10s\n", "graph", "k", "implementation", "time_us", "GFLOP/s",
              "speedup", "max_rel_err");
  for (const row& r : rows) {
    const std::string g = r.graph.size() > 28 ? "..." + r.graph.substr(r.graph.size() - 25) : r.graph;
    std::printf("%-28s %5d  %-34s %10.1f %9.1f %8.2f %10.2e\n", g.c_str(), r.k, r.impl.c_str(), r.us,
                r.gflops, r.speedup, r.error);
  }
}

void print_json(const std::vector<row>& rows) {
  print_json_results(rows.size(), [&](std::size_t i) {
    const row& r = rows[i];
    std::printf(
        "{\"graph\": \"%s\", \"k\": %d, \"impl\": \"%s\", \"time_us\": %s, \"gflops\": %s, "
        "\"speedup\": %s, \"max_rel_error\": %s}",
        json_escape(r.graph).c_str(), r.k, r.impl.c_str(), json_number(r.us).c_str(),
        json_number(r.gflops).c_str(), json_number(r.speedup).c_str(), json_number(r.error).c_str());
  });
}

int main_body(int argc, char** argv) {
  settings s;
  if (!parse_command_line(argc, argv, s)) return ok;
  require_cuda_device("spmm-bench");
  if (!s.json)
    std::printf("device: %s; precision %s\n", cuda::device_description().c_str(), s.precision.c_str());
  std::vector<row> rows;
  for (const std::string& g : s.graphs) {
    if (s.precision == "double")
      bench_graph<double>(g, s, rows);
    else
      bench_graph<float>(g, s, rows);
  }
  s.json ? print_json(rows) : print_table(rows);
  const double tol = s.precision == "double" ? 1e-10 : 1e-4;
  const bool bad = std::any_of(rows.begin(), rows.end(), [&](const row& r) {
    return r.impl.find("unsupported") == std::string::npos && !(r.error < tol);
  });
  if (bad) std::cerr << "spmm-bench: error: a result differs from the CPU SpMM beyond the tolerance\n";
  return bad ? internal : ok;
}

}  // namespace
}  // namespace perron::app

int main(int argc, char** argv) {
  return perron::app::run("spmm-bench", [&] { return perron::app::main_body(argc, argv); });
}
