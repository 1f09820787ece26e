#include "apps/common/bench_options.hpp"

#include <cstdio>
#include <iostream>

#include "apps/common/app.hpp"
#include "apps/common/command_line.hpp"
#include "apps/common/usage.hpp"
#include "core/device.hpp"
#include "core/error.hpp"

namespace po = boost::program_options;

namespace perron::app {

po::options_description options_with_help(const char* usage_text) {
  po::options_description o(usage_text);
  o.add_options()("help,h", "print this help and exit");
  return o;
}

bool parse_bench_command_line(int argc, char** argv, const po::options_description& visible,
                              po::variables_map& vm, const char* positional,
                              std::vector<std::string>* inputs) {
  po::options_description all;
  all.add(visible);
  // Without `positional`, a word is an error, not dropped: 'gemm-bench 512'
  // ran the default sizes, 1024 to 8192.
  if (positional) all.add_options()(positional, po::value<std::vector<std::string>>(inputs));
  store_command_line(argc, argv, all, vm, positional, positional ? -1 : 0);
  if (vm.count("help")) {
    std::cout << visible << '\n' << bench_exit_codes;
    return false;
  }
  po::notify(vm);
  return true;
}

void add_timing_options(po::options_description& o, int& runs, const char* runs_help, int& warmup,
                        bool& json) {
  // clang-format off
  o.add_options()
    ("runs,n", po::value<int>(&runs)->default_value(runs), runs_help)
    ("warmup,w", po::value<int>(&warmup)->default_value(warmup), "untimed calls before timing (1 to 1000000)")
    ("json", po::bool_switch(&json), "JSON on stdout instead of the table");
  // clang-format on
}

void require_at_least(const char* option, int value, int min) {
  if (value < min)
    throw usage_error(std::string("--") + option + " must be >= " + std::to_string(min) + " (got " +
                      std::to_string(value) + ")");
}

void require_calls(const char* option, int value, int min) {
  require_at_least(option, value, min);
  if (value > max_timed_calls)
    throw usage_error(std::string("--") + option + " must be <= " + std::to_string(max_timed_calls) +
                      " (got " + std::to_string(value) + ")");
}

void require_precision(const std::string& precision) {
  if (precision != "float" && precision != "double")
    throw usage_error("--precision must be float or double (got '" + precision + "')");
}

void print_json_results(std::size_t rows, const std::function<void(std::size_t)>& print_row) {
  std::printf("{\"device\": \"%s\", \"results\": [", json_escape(cuda::device_description()).c_str());
  for (std::size_t i = 0; i < rows; ++i) {
    std::printf("%s\n  ", i ? "," : "");
    print_row(i);
  }
  std::printf("\n]}\n");
}

void require_cuda_device(const char* program) {
  if (!cuda::available())
    throw cuda_error(cuda::built() ? std::string(program) + " needs a CUDA device and none is usable"
                                   : "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)");
}

}  // namespace perron::app
