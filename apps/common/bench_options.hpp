// What the GPU benchmark command lines (gemm-bench, spmm-bench, spmv-bench)
// share: parsing with --help and positional inputs, the checks of their common
// options (one usage_error naming the option), and the CUDA-device requirement.
#pragma once

#include <boost/program_options.hpp>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace perron::app {

// The options of a benchmark's usage text, starting with --help/-h.
boost::program_options::options_description options_with_help(const char* usage_text);

// The benchmarks' exit codes (apps/common/app.hpp), the last lines of their --help.
inline constexpr const char* bench_exit_codes =
    "Exit codes: 0 ok; 64 bad command line; 65 bad input data; 66 missing or\n"
    "unreadable file; 69 unsupported format; 70 CUDA failure or no GPU; 71\n"
    "internal error.\n";

// Parses argv against `visible`; when `positional` is given, every positional
// argument goes to *inputs (hidden from --help), else one is a usage_error.
// On --help prints `visible` and the exit codes and returns false; otherwise
// stores into vm, notifies, and returns true.
bool parse_bench_command_line(int argc, char** argv,
                              const boost::program_options::options_description& visible,
                              boost::program_options::variables_map& vm, const char* positional = nullptr,
                              std::vector<std::string>* inputs = nullptr);

// --runs/-n (help: runs_help), --warmup/-w and --json, whose defaults are the
// values runs and warmup hold now.
void add_timing_options(boost::program_options::options_description& o, int& runs, const char* runs_help,
                        int& warmup, bool& json);

// usage_error "--<option> must be >= <min> (got <value>)" when value < min.
void require_at_least(const char* option, int value, int min);
// The most timed or warm-up calls a benchmark option asks: each timed call's
// time is kept (spmv-bench -n 2147483647 reserved 16 GB for them up front),
// and a million calls of even a microsecond are a second of medians.
constexpr int max_timed_calls = 1000000;
// require_at_least, and usage_error "--<option> must be <= <max_timed_calls> ..." above it.
void require_calls(const char* option, int value, int min);
// usage_error unless precision is "float" or "double".
void require_precision(const std::string& precision);
// {"device": "<this GPU>", "results": [row, ...]} on stdout; print_row(i)
// prints the i-th row's JSON object.
void print_json_results(std::size_t rows, const std::function<void(std::size_t)>& print_row);

// cuda_error unless a CUDA device is usable ("<program> needs a CUDA device ...").
void require_cuda_device(const char* program);

}  // namespace perron::app
