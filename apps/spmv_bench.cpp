// spmv-bench: times every GPU SpMV kernel (or those named by --kernel) on each
// MATRIX against cuSPARSE CSR ALG1 in the same process, and checks each
// result against the CPU reference.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apps/common/app.hpp"
#include "apps/common/bench_options.hpp"
#include "apps/common/input_options.hpp"
#include "apps/common/timer.hpp"
#include "apps/common/usage.hpp"
#include "bench/spmv_timing.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "io/load.hpp"
#include "io/output_file.hpp"
#include "kernels/convert.hpp"
#include "kernels/spmv.hpp"

namespace po = boost::program_options;

namespace perron::app {
namespace {

struct settings {
  std::vector<std::string> matrices;
  std::vector<spmv_kernel> kernels;
  std::string precision = "float";
  int iterations = 200;
  int warmup = 20;
  bool cold = false;
  std::string json;  // "": not asked; "-": stdout instead of the table; else a file
  std::string csv;
  bool check = true;
  bool floors = false;
  bool read_values = false;
  int copy_mib = 1024;
  app::input_settings input;
};

const char* usage_text =
    "Usage: spmv-bench [options] MATRIX...\n"
    "\n"
    "Times y = A x (alpha = 1, beta = 0) on the GPU for each MATRIX and each kernel:\n"
    "the median of --iterations launches after --warmup, each launch timed alone by\n"
    "a pair of CUDA events. Reports the effective bandwidth for the byte count\n"
    "  nnz * (value + index) + (rows + 1) * 4 + cols * value + rows * value\n"
    "(A, x and y each moved once), its percentage of the device-to-device copy\n"
    "bandwidth measured in the same run (bytes read + written), the speed ratio\n"
    "against cuSPARSE CSR ALG1 measured in the same process (> 1: faster), and the\n"
    "largest error against the CPU reference relative to sum_j |a_ij x_j| (PASS\n"
    "when every row is within 2 eps (row length + 1) of it).\n"
    "A matrix whose nonzeros all hold 1, or all -1 (a graph's adjacency, a pattern\n"
    "file) is run by the CSR and ELL kernels as its pattern, no value read\n"
    "(cuSPARSE still reads them); the byte count above still counts the values, and\n"
    "--read-values nudges each matrix's first value so that every kernel reads them.\n"
    "\n"
    "MATRIX: a Matrix Market file (.mtx, .mtx.gz), a SNAP edge list (.txt, .txt.gz)\n"
    "or a synthetic spec: synthetic:seed002:1000000, rmat:20:10000000,\n"
    "tridiag:100000000. Matrices smaller than the L2 cache (50 MB on an H100) stay\n"
    "in it across launches unless --cold.\n"
    "\n"
    "Options";

std::vector<spmv_kernel> parse_kernel_list(const std::vector<std::string>& args) {
  std::vector<spmv_kernel> out;
  // A list given but empty ('-k ""', '-k ,': an unset variable) is refused:
  // it ran every kernel, the default of no --kernel at all.
  if (!args.empty() && std::all_of(args.begin(), args.end(), [](const std::string& a) {
        return a.find_first_not_of(", ") == std::string::npos;
      }))
    throw usage_error("--kernel names no kernel; give one or more, e.g. --kernel auto,cusparse");
  for (const std::string& arg : args) {
    std::stringstream ss(arg);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item.empty()) continue;
      spmv_kernel k;
      try {
        k = parse_spmv_kernel(item);
      } catch (const invalid_argument& e) {
        throw usage_error(e.what());
      }
      if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    }
  }
  if (out.empty())
    for (spmv_kernel k : spmv_kernels())
      if (on_gpu(k)) out.push_back(k);
  return out;
}

// '--json a.mtx b.mtx' took a.mtx for --json's FILE (an option with an
// implicit value takes the next word), timed b.mtx alone and then wrote the
// JSON over a.mtx. A FILE is given as --json=FILE, as --help says: a bare
// --json or --csv (or a prefix Boost would take for one) becomes '--json=-',
// so the word after it stays a MATRIX.
std::vector<std::string> bare_outputs_to_stdout(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string& a = args[i];
    if (a == "--") break;
    if (a.size() < 3 || a.compare(0, 2, "--") != 0 || a.find('=') != std::string::npos) continue;
    const std::string name = a.substr(2);
    if (std::string("json").rfind(name, 0) == 0 ||
        (name.size() >= 2 && std::string("csv").rfind(name, 0) == 0))
      a += "=-";
  }
  return args;
}

bool parse_command_line(int argc, char** argv, settings& s) {
  std::vector<std::string> args = bare_outputs_to_stdout(argc, argv);
  std::vector<char*> arg_ptrs;
  for (std::string& a : args) arg_ptrs.push_back(a.data());
  std::vector<std::string> kernel_args;
  po::options_description o(usage_text);
  // clang-format off
  o.add_options()
    ("help,h", "show this help")
    ("kernel,k", po::value<std::vector<std::string>>(&kernel_args)->composing()->value_name("LIST"),
     ("kernels to time, comma-separated or repeated (default: every GPU kernel): " + spmv_kernel_names() +
      " (cpu: the host's OpenMP CSR SpMV, timed beside the GPU's; a GPU is still needed)")
         .c_str())
    ("precision,p", po::value<std::string>(&s.precision)->default_value("float"), "float or double")
    ("iterations,n", po::value<int>(&s.iterations)->default_value(200), "timed launches per kernel (100 to 1000000)")
    ("warmup,w", po::value<int>(&s.warmup)->default_value(20), "untimed launches before timing (1 to 1000000)")
    ("cold", po::bool_switch(&s.cold), "flush L2 before every timed launch (A and x come from DRAM)")
    ("json", po::value<std::string>(&s.json)->implicit_value("-")->value_name("[FILE]"),
     "JSON on stdout instead of the table, or (--json=FILE) into FILE as well as the table")
    ("csv", po::value<std::string>(&s.csv)->implicit_value("-")->value_name("[FILE]"),
     "CSV on stdout instead of the table, or (--csv=FILE) into FILE as well as the table")
    ("no-check", "skip the comparison with the CPU reference")
    ("floors", po::bool_switch(&s.floors),
     "also time x-gather-floor: a kernel streaming only col_idx and gathering x[col] per nonzero; and, for a "
     "matrix whose values the kernels read (not one value 1 or -1), x-gather-floor-values: the values streamed "
     "too; and x-gather-floor-rows: also row_ptr read and y written, one stream each (the bytes of any CSR SpMV)")
    ("read-values", po::bool_switch(&s.read_values),
     "first value of each matrix moved to the next representable number: no matrix has one value only, every "
     "kernel reads the values (what the one-value path saves, timed)")
    ("copy-mib", po::value<int>(&s.copy_mib)->default_value(1024), "MiB per copy in the bandwidth measurement");
  // clang-format on
  app::add_input_options(o, s.input);
  po::variables_map vm;
  if (!parse_bench_command_line(argc, arg_ptrs.data(), o, vm, "matrix", &s.matrices)) return false;
  if (s.matrices.empty()) throw usage_error("no MATRIX given");
  require_precision(s.precision);
  require_calls("iterations", s.iterations, 100);
  require_calls("warmup", s.warmup, 1);
  require_at_least("copy-mib", s.copy_mib, 64);
  // --json=/dev/stdout is --json: the table went after the JSON in the same stream.
  for (std::string* f : {&s.json, &s.csv})
    if (!f->empty() && io::names_standard_output(*f)) *f = "-";
  if (s.json == "-" && s.csv == "-") throw usage_error("--json and --csv cannot both go to stdout");
  // Written after the timing: neither may replace a matrix read ('--json=a.mtx a.mtx') or the other.
  try {
    const std::vector<std::pair<std::string_view, std::string>> outputs = {{"--json", s.json},
                                                                           {"--csv", s.csv}};
    for (const auto& [option, file] : outputs)
      if (!file.empty()) io::check_not_an_input(file, s.matrices, option);
    io::check_distinct_outputs(outputs);
  } catch (const invalid_argument& x) {
    throw usage_error(x.what());
  }
  s.check = vm.count("no-check") == 0;
  s.kernels = parse_kernel_list(kernel_args);
  return true;
}

struct result {
  std::string matrix;
  index_t rows = 0, cols = 0;
  std::size_t nnz = 0;
  double bytes = 0;
  std::string kernel;       // as asked
  std::string resolved;     // the concrete kernel (differs for auto)
  std::string description;  // the kernel's configuration
  std::string reason;       // auto's trial, or why a kernel was refused
  bool refused = false;
  double median_us = 0, min_us = 0;
  double gbs = 0, pct_copy = 0, vs_alg1 = 0;
  double max_rel_err = 0;
  std::string check;  // PASS, FAIL, "-" (not checked / refused)
};

std::string base_name(const std::string& spec) {
  const auto slash = spec.find_last_of('/');
  return slash == std::string::npos ? spec : spec.substr(slash + 1);
}

template <class T>
struct reference : spmv_row_bounds {
  std::vector<T> y;
};

// Largest |y - ref| / sum_j |a_ij x_j| and whether every row is within the
// accumulation bound 2 eps (len + 1) sum_j |a_ij x_j|.
template <class T>
std::pair<double, bool> compare(const std::vector<T>& y, const reference<T>& ref) {
  constexpr double eps = std::numeric_limits<T>::epsilon() / 2;
  constexpr double floor = 8.0 * static_cast<double>(std::numeric_limits<T>::min());
  double worst = 0;
  bool pass = true;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double err = std::abs(static_cast<double>(y[i]) - static_cast<double>(ref.y[i]));
    if (!(err <= 2 * eps * (ref.len[i] + 1) * ref.abs_ax[i] + floor)) pass = false;
    const double rel = ref.abs_ax[i] > 0 ? err / ref.abs_ax[i] : (err > 0 ? err : 0.0);
    worst = std::isnan(err) ? std::numeric_limits<double>::infinity() : std::max(worst, rel);
    if (std::isinf(worst)) pass = false;
  }
  return {worst, pass};
}

// x: (cols) uniform in [-1, 1), seeded, the same for every kernel.
template <class T>
std::vector<T> random_x(index_t cols) {
  std::vector<T> x(static_cast<std::size_t>(cols));
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (T& v : x) v = static_cast<T>(dist(gen));
  return x;
}

// The CPU reference y = A x, with each row's sum_j |a_ij x_j| and length.
template <class T>
reference<T> make_reference(const csr_matrix<T>& a, const std::vector<T>& x) {
  reference<T> ref{row_bounds_of(a, x), std::vector<T>(static_cast<std::size_t>(a.rows), T(0))};
  spmv(a, T(1), x.data(), T(0), ref.y.data());
  return ref;
}

// One matrix's runs: the data every kernel shares and the timing of one.
template <class T>
struct matrix_bench {
  const settings& s;
  const std::string matrix;
  const csr_matrix<T>& a;
  const std::vector<T> x;
  const reference<T> ref;
  const double copy_gbs;
  // nnz * (value + index) + (rows + 1) * 4 + cols * value + rows * value: A, x and y once.
  const double bytes = static_cast<double>(a.nnz()) * (sizeof(T) + sizeof(index_t)) +
                       (static_cast<double>(a.rows) + 1) * sizeof(index_t) +
                       static_cast<double>(a.cols) * sizeof(T) + static_cast<double>(a.rows) * sizeof(T);
  cuda::device_buffer<T> d_x{x}, d_y{static_cast<std::size_t>(a.rows)};
  const std::vector<T> nan =
      std::vector<T>(static_cast<std::size_t>(a.rows), std::numeric_limits<T>::quiet_NaN());

  result make_result(spmv_kernel k) const {
    result r;
    r.matrix = matrix;
    r.rows = a.rows;
    r.cols = a.cols;
    r.nnz = a.nnz();
    r.bytes = bytes;
    r.kernel = std::string(name(k));
    r.resolved = r.kernel;
    r.check = "-";
    return r;
  }

  // Medians, bandwidth and the check of one kernel's samples and result y.
  void summarize(result& r, const std::vector<double>& samples, bool on_host, const std::vector<T>& y) const {
    gpu_timing t{samples};
    r.median_us = t.median_us();
    r.min_us = *std::min_element(samples.begin(), samples.end());
    r.gbs = bytes / (r.median_us * 1e3);
    r.pct_copy = on_host ? 0 : 100.0 * r.gbs / copy_gbs;
    if (s.check) {
      const auto [err, pass] = compare(y, ref);
      r.max_rel_err = err;
      r.check = pass ? "PASS" : "FAIL";
    }
  }

  std::vector<T> run_cpu(std::vector<double>& samples) const {
    std::vector<T> y(static_cast<std::size_t>(a.rows));
    for (int i = 0; i < s.warmup; ++i) spmv(a, T(1), x.data(), T(0), y.data());
    for (int i = 0; i < s.iterations; ++i) {
      stopwatch t;
      spmv(a, T(1), x.data(), T(0), y.data());
      samples.push_back(t.seconds() * 1e6);
    }
    return y;
  }

  // Times one kernel; the baseline's median is needed before the others' ratios.
  result run_kernel(spmv_kernel k) {
    result r = make_result(k);
    std::vector<double> samples;
    std::vector<T> y;
    if (k == spmv_kernel::cpu) {
      r.description = "OpenMP CSR (host memory)";
      y = run_cpu(samples);
    } else {
      std::unique_ptr<spmv_plan<T>> plan;
      try {
        plan = std::make_unique<spmv_plan<T>>(a, k);
      } catch (const dimension_error& e) {  // ell with absurd padding
        r.refused = true;
        r.reason = e.what();
        return r;
      }
      r.resolved = std::string(name(plan->kernel()));
      r.description = plan->description();
      r.reason = plan->reason();
      d_y.upload(nan);  // every row must be written (beta = 0 never reads y)
      samples = time_spmv(*plan, T(1), d_x.data(), T(0), d_y.data(), s.warmup, s.iterations, s.cold).us;
      y = d_y.download();
    }
    summarize(r, samples, k == spmv_kernel::cpu, y);
    return r;
  }

  // The x-gather floor (--floors), against the baseline; with_values: the
  // floor of a matrix whose values every kernel must read; with_rows: row_ptr
  // read and y written too (what any CSR SpMV moves).
  result gather_floor(const result& baseline, bool with_values, bool with_rows = false) {
    result r = make_result(spmv_kernel::cusparse);
    r.kernel = r.resolved = with_rows     ? "x-gather-floor-rows"
                            : with_values ? "x-gather-floor-values"
                                          : "x-gather-floor";
    r.description = with_rows
                        ? std::string(with_values ? "col_idx and values" : "col_idx") +
                              " streamed + one x gather per nonzero + row_ptr read and y written per row"
                    : with_values ? "col_idx and values streamed + one x gather per nonzero (no row_ptr or y)"
                                  : "col_idx stream + one x gather per nonzero (no values, row_ptr or y)";
    const gpu_timing t =
        time_gather_floor(a, d_x.data(), s.warmup, s.iterations, s.cold, with_values, with_rows);
    r.median_us = t.median_us();
    r.min_us = *std::min_element(t.us.begin(), t.us.end());
    r.gbs = bytes / (r.median_us * 1e3);
    r.pct_copy = 100.0 * r.gbs / copy_gbs;
    r.vs_alg1 = baseline.median_us / r.median_us;
    return r;
  }
};

template <class T>
void bench_matrix(const settings& s, const std::string& spec, double copy_gbs, std::vector<result>& out) {
  stopwatch clock;
  csr_matrix<T> a;
  {
    io::loaded_matrix loaded = io::load_matrix(spec, app::read_options_for(s.input));
    a = value_cast<T>(to_csr(loaded.matrix));
  }
  if (s.read_values && a.nnz() > 0)
    a.values[0] = std::nextafter(a.values[0], std::numeric_limits<T>::infinity());
  std::cerr << "spmv-bench: " << base_name(spec) << ": " << a.rows << " x " << a.cols << ", " << a.nnz()
            << " nonzeros, loaded in " << clock.lap() << " s\n";
  std::vector<T> x = random_x<T>(a.cols);
  reference<T> ref = s.check ? make_reference(a, x) : reference<T>{};
  matrix_bench<T> bench{s, base_name(spec), a, std::move(x), std::move(ref), copy_gbs};

  const result baseline = bench.run_kernel(spmv_kernel::cusparse);
  if (s.floors) {
    out.push_back(bench.gather_floor(baseline, false));
    if (!runs_as_pattern(bench.a)) out.push_back(bench.gather_floor(baseline, true));
    out.push_back(bench.gather_floor(baseline, !runs_as_pattern(bench.a), true));
  }
  for (spmv_kernel k : s.kernels) {
    result r = k == spmv_kernel::cusparse ? baseline : bench.run_kernel(k);
    if (!r.refused && baseline.median_us > 0) r.vs_alg1 = baseline.median_us / r.median_us;
    std::cerr << "spmv-bench:   " << r.kernel << (r.resolved != r.kernel ? " -> " + r.resolved : "") << ": "
              << (r.refused ? "refused" : std::to_string(r.median_us) + " us") << '\n';
    out.push_back(std::move(r));
  }
}

std::string sci(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

void print_table(const std::vector<result>& rs) {
  std::printf("%-26s %10s %10s %11s  %-14s %-14s %10s %8s %6s %7s %9s %5s\n", "matrix", "rows", "cols", "nnz",
              "kernel", "ran", "median_us", "GB/s", "%copy", "vs_alg1", "max_rel", "check");
  for (const result& r : rs) {
    if (r.refused) {
      std::printf("%-26s %10d %10d %11zu  %-14s %-14s %10s %8s %6s %7s %9s %5s\n", r.matrix.c_str(), r.rows,
                  r.cols, r.nnz, r.kernel.c_str(), "refused", "-", "-", "-", "-", "-", "-");
      continue;
    }
    std::printf("%-26s %10d %10d %11zu  %-14s %-14s %10.2f %8.1f %6.1f %7.2f %9s %5s\n", r.matrix.c_str(),
                r.rows, r.cols, r.nnz, r.kernel.c_str(), r.resolved.c_str(), r.median_us, r.gbs, r.pct_copy,
                r.vs_alg1, r.check == "-" ? "-" : sci(r.max_rel_err).c_str(), r.check.c_str());
  }
}

void print_csv(std::FILE* f, const std::vector<result>& rs) {
  std::fprintf(
      f,
      "matrix,rows,cols,nnz,bytes,kernel,ran,median_us,min_us,gbs,pct_copy,vs_cusparse_alg1,max_rel_err,"
      "check,refused\n");
  for (const result& r : rs)
    std::fprintf(f, "%s,%d,%d,%zu,%.0f,%s,%s,%.3f,%.3f,%.2f,%.2f,%.4f,%.3e,%s,%d\n",
                 csv_field(r.matrix).c_str(), r.rows, r.cols, r.nnz, r.bytes, csv_field(r.kernel).c_str(),
                 r.refused ? "" : csv_field(r.resolved).c_str(), r.median_us, r.min_us, r.gbs, r.pct_copy,
                 r.vs_alg1, r.max_rel_err, r.check.c_str(), r.refused ? 1 : 0);
}

void print_json(std::FILE* f, const settings& s, const std::string& device, double copy_gbs,
                const std::vector<result>& rs) {
  std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"copy_gbs\": %.1f,\n  \"precision\": \"%s\",\n",
               json_escape(device).c_str(), copy_gbs, s.precision.c_str());
  std::fprintf(f, "  \"iterations\": %d,\n  \"warmup\": %d,\n  \"cold\": %s,\n  \"read_values\": %s,\n",
               s.iterations, s.warmup, s.cold ? "true" : "false", s.read_values ? "true" : "false");
  std::fprintf(
      f, "  \"bytes\": \"nnz*(value+index) + (rows+1)*4 + cols*value + rows*value\",\n  \"results\": [");
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const result& r = rs[i];
    std::fprintf(f,
                 "%s\n    {\"matrix\": \"%s\", \"rows\": %d, \"cols\": %d, \"nnz\": %zu, \"bytes\": %.0f, "
                 "\"kernel\": \"%s\", \"ran\": \"%s\", \"description\": \"%s\", \"reason\": \"%s\", "
                 "\"refused\": %s, \"median_us\": %.3f, \"min_us\": %.3f, \"gbs\": %.2f, \"pct_copy\": %.2f, "
                 "\"vs_cusparse_alg1\": %.4f, \"max_rel_err\": %.3e, \"check\": \"%s\"}",
                 i ? "," : "", json_escape(r.matrix).c_str(), r.rows, r.cols, r.nnz, r.bytes,
                 json_escape(r.kernel).c_str(), json_escape(r.resolved).c_str(),
                 json_escape(r.description).c_str(), json_escape(r.reason).c_str(),
                 r.refused ? "true" : "false", r.median_us, r.min_us, r.gbs, r.pct_copy, r.vs_alg1,
                 std::isfinite(r.max_rel_err) ? r.max_rel_err : 1e300, r.check.c_str());
  }
  std::fprintf(f, "\n  ]\n}\n");
}

int main_body(int argc, char** argv) {
  settings s;
  if (!parse_command_line(argc, argv, s)) return ok;
  // --json=FILE and --csv=FILE checked before the timing: a missing folder or
  // a folder named as the file was found only when written, after minutes of
  // timing, and the table was lost with it.
  for (const std::string* f : {&s.json, &s.csv})
    if (!f->empty()) io::check_output_path(*f);
  // The copy's two buffers of --copy-mib each, refused with the bytes before
  // they are asked for: --copy-mib 1000000 ended in cudaMalloc's out-of-memory
  // text. First, so that PERRON_GPU_MEMORY_LIMIT shows it without a GPU too.
  check_device_memory(
      2.0 * double(s.copy_mib) * 1048576.0,
      "--copy-mib " + std::to_string(s.copy_mib) + " (two buffers of it, the copy's source and target)");
  require_cuda_device("spmv-bench");
  const std::string device = cuda::device_description();
  const double copy_gbs = copy_bandwidth_gbs(static_cast<std::size_t>(s.copy_mib) << 20, 20);
  std::vector<result> results;
  for (const std::string& spec : s.matrices) {
    if (s.precision == "double")
      bench_matrix<double>(s, spec, copy_gbs, results);
    else
      bench_matrix<float>(s, spec, copy_gbs, results);
  }
  // Files first, then stdout: the table unless JSON or CSV was asked there.
  auto to_file = [](const std::string& path, const std::function<void(std::FILE*)>& print) {
    io::output_file f(path);  // a temporary renamed into place when complete
    print(f.get());
    f.commit();
  };
  if (!s.json.empty() && s.json != "-")
    to_file(s.json, [&](std::FILE* f) { print_json(f, s, device, copy_gbs, results); });
  if (!s.csv.empty() && s.csv != "-") to_file(s.csv, [&](std::FILE* f) { print_csv(f, results); });
  if (s.json == "-") {
    print_json(stdout, s, device, copy_gbs, results);
  } else if (s.csv == "-") {
    print_csv(stdout, results);
  } else {
    std::printf(
        "device: %s\ncopy bandwidth: %.0f GB/s (cudaMemcpy D2D of %d MiB, read + written, median of 20)\n",
        device.c_str(), copy_gbs, s.copy_mib);
    const std::size_t value = s.precision == "double" ? sizeof(double) : sizeof(float);
    std::printf(
        "precision %s; bytes = nnz*(%zu+4) + (rows+1)*4 + cols*%zu + rows*%zu; median of %d launches after "
        "%d "
        "warm-up%s; vs_alg1 = cuSPARSE CSR ALG1 time / kernel time\n",
        s.precision.c_str(), value, value, value, s.iterations, s.warmup,
        s.cold ? ", L2 flushed before each" : "");
    if (s.read_values)
      std::printf("every matrix's first value nudged (--read-values): every kernel reads the values\n");
    print_table(results);
    for (const result& r : results)
      if (!r.reason.empty() && r.kernel == "auto")
        std::printf("auto on %s: %s\n", r.matrix.c_str(), r.reason.c_str());
  }
  const auto failed =
      std::count_if(results.begin(), results.end(), [](const result& r) { return r.check == "FAIL"; });
  if (failed > 0) {
    std::cerr << "spmv-bench: error: " << failed
              << " result(s) differ from the CPU reference beyond the bound\n";
    return internal;
  }
  return ok;
}

}  // namespace
}  // namespace perron::app

int main(int argc, char** argv) {
  return perron::app::run("spmv-bench", [&] { return perron::app::main_body(argc, argv); });
}
