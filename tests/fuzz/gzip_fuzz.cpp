// libFuzzer target: see tests/fuzz/fuzz_checks.hpp for what is checked. Also
// the parallel inflater (io/parallel_inflate.hpp) with chunks of a few bytes,
// so even small inputs are cut into many speculatively inflated chunks: it
// must hand out what the sequential inflater hands out, or fail with its
// error message.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "io/parallel_inflate.hpp"
#include "tests/fuzz/fuzz_checks.hpp"

namespace {

std::string parallel_verdict(const std::uint8_t* data, std::size_t size, std::size_t chunk, unsigned threads,
                             std::string& text) {
  perron::io::detail::parallel_inflate_options opt;
  opt.threads = threads;
  opt.chunk_bytes = chunk;
  opt.min_file_bytes = 1;
  opt.min_threads = 2;
  try {
    perron::io::detail::parallel_gzip_reader z("fuzz.gz", data, size, opt);
    char buf[4096];
    for (;;) {
      const std::size_t got = z.read(buf, sizeof buf);
      text.append(buf, got);
      if (got < sizeof buf) break;
      if (text.size() > (std::size_t(64) << 20)) return "(too long to compare)";
    }
  } catch (const perron::io_error& e) {
    return e.what();
  }
  return "";
}

std::string sequential_verdict(const std::uint8_t* data, std::size_t size, std::string& text) {
  try {
    text = std::string(perron::io::detail::gunzip("fuzz.gz", data, size).view());
  } catch (const perron::io_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bug = perron::fuzz::check_gzip_input({reinterpret_cast<const char*>(data), size});
  if (!bug.empty()) {
    std::fprintf(stderr, "perron fuzz: %s\n", bug.c_str());
    std::abort();
  }
  std::string want, got;
  const std::string want_error = sequential_verdict(data, size, want);
  if (want.size() > (std::size_t(64) << 20)) return 0;
  // Chunk size and threads from the input's length: the same input always
  // takes the same path, so a crash replays.
  const std::size_t chunk = 16 + size % 239;
  const unsigned threads = 2 + static_cast<unsigned>(size % 3);
  const std::string got_error = parallel_verdict(data, size, chunk, threads, got);
  if (got_error != want_error || (want_error.empty() && got != want)) {
    std::fprintf(stderr,
                 "perron fuzz: parallel inflate differs: '%s' vs sequential '%s' (%zu vs %zu bytes)\n",
                 got_error.c_str(), want_error.c_str(), got.size(), want.size());
    std::abort();
  }
  return 0;
}
