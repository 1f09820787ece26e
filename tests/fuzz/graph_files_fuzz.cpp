// libFuzzer target: see tests/fuzz/fuzz_checks.hpp for what is checked.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/fuzz_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bug = perron::fuzz::check_graph_file_input({reinterpret_cast<const char*>(data), size});
  if (!bug.empty()) {
    std::fprintf(stderr, "perron fuzz: %s\n", bug.c_str());
    std::abort();
  }
  return 0;
}
