// read-bench: how fast perron loads matrix and graph files. For each FILE,
// one warm-up load (so the page cache holds the file), then --repeat timed
// loads; prints the medians of reading (disk / gunzip / untar), parsing and
// the total, and the throughput in uncompressed text bytes per second. With
// --cache it also times the reload from the binary cache. --write makes a
// benchmark input (e.g. a flickr-sized R-MAT graph) as a Matrix Market file.
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "apps/common/app.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"
#include "io/cache.hpp"
#include "io/load.hpp"
#include "io/matrix_market.hpp"
#include "io/synthetic.hpp"

namespace po = boost::program_options;

namespace perron::app {
namespace {

struct usage_error : po::error {
  using po::error::error;
};

struct figures {
  double read = 0, parse = 0, total = 0;
  std::uint64_t file_bytes = 0, text_bytes = 0, nnz = 0;
};

figures time_loads(const std::string& file, const io::read_options& opt, int repeat) {
  std::vector<double> read, parse, total;
  figures f;
  for (int r = 0; r < repeat; ++r) {
    const auto m = io::load_matrix(file, opt);
    read.push_back(m.timings.read_seconds);
    parse.push_back(m.timings.parse_seconds);
    total.push_back(m.read_seconds);
    f.file_bytes = m.timings.file_bytes;
    f.text_bytes = m.timings.text_bytes;
    f.nnz = m.matrix.nnz();
  }
  f.read = median(read);
  f.parse = median(parse);
  f.total = median(total);
  return f;
}

const char* usage_text =
    "Usage: read-bench [options] FILE...\n"
    "       read-bench --write SPEC OUT.mtx\n"
    "\n"
    "Times io::load_matrix on each FILE (Matrix Market, SNAP, .gz, .tar.gz):\n"
    "medians of --repeat loads after one warm-up, split into read (disk, gunzip,\n"
    "untar) and parse; MB/s counts uncompressed text bytes. --cache adds the\n"
    "reload from perron's binary cache (written once, then timed).\n"
    "\n"
    "Options";

int main_body(int argc, char** argv) {
  int threads = 0, repeat = 5;
  bool cache = false, json = false;
  std::string cache_dir, write_spec;
  std::vector<std::string> files;
  po::options_description o(usage_text);
  o.add_options()("help,h", "this help")("threads,j", po::value<int>(&threads)->default_value(0),
                                         "parser threads (0: all hardware threads)")(
      "repeat,r", po::value<int>(&repeat)->default_value(5), "timed loads per file (median reported)")(
      "cache", po::bool_switch(&cache), "also time the reload from the binary cache")(
      "cache-dir", po::value<std::string>(&cache_dir)->value_name("DIR"),
      "cache directory for --cache (default: a fresh temporary directory, removed after)")(
      "json", po::bool_switch(&json), "one JSON object per file instead of the table")(
      "write", po::value<std::string>(&write_spec)->value_name("SPEC"),
      "write the synthetic matrix SPEC (e.g. rmat:20:10000000) to the one FILE as Matrix Market");
  po::options_description all;
  all.add(o).add_options()("file", po::value<std::vector<std::string>>(&files));
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << o << '\n';
    return ok;
  }
  if (files.empty()) throw usage_error("no FILE given");
  if (threads < 0) throw usage_error("--threads must be >= 0");
  if (repeat < 1) throw usage_error("--repeat must be >= 1");

  if (!write_spec.empty()) {
    if (files.size() != 1) throw usage_error("--write takes exactly one output FILE");
    if (!io::is_synthetic_spec(write_spec))
      throw usage_error("--write needs a synthetic spec such as rmat:20:10000000");
    const auto a = io::generate_synthetic(write_spec);
    const bool pattern = write_spec.rfind("rmat:", 0) == 0;
    io::write_matrix_market(files[0], a, pattern ? io::mm_field::pattern : io::mm_field::real);
    std::cout << "wrote " << files[0] << ": " << a.rows << " x " << a.cols << ", " << a.nnz() << " entries\n";
    return ok;
  }

  io::read_options opt;
  opt.threads = static_cast<unsigned>(threads);
  const unsigned used =
      threads ? static_cast<unsigned>(threads) : static_cast<unsigned>(omp_get_max_threads());
  namespace fs = std::filesystem;
  fs::path temp_cache;
  if (cache && cache_dir.empty()) {
    temp_cache = fs::temp_directory_path() / ("perron-read-bench-" + std::to_string(::getpid()));
    cache_dir = temp_cache.string();
  }
  if (!json)
    std::printf("%-28s %8s %10s %10s %9s %9s %9s %9s%s\n", "file", "threads", "text MB", "nnz", "read s",
                "parse s", "total s", "MB/s", cache ? "   cache s   cache GB/s" : "");
  for (const auto& file : files) {
    io::load_matrix(file, opt);  // warm-up: the file into the page cache
    const figures f = time_loads(file, opt, repeat);
    double cache_s = 0, cache_gbs = 0;
    std::uint64_t cache_bytes = 0;
    if (cache) {
      io::read_options c = opt;
      c.cache.enabled = true;
      c.cache.dir = cache_dir;
      io::load_matrix(file, c);  // writes the cache
      cache_bytes = fs::file_size(io::cache_file_for(file, cache_dir));
      std::vector<double> t;
      for (int r = 0; r < repeat; ++r) {
        const auto m = io::load_matrix(file, c);
        if (!m.timings.from_cache) throw std::runtime_error("the cache was not used for " + file);
        t.push_back(m.read_seconds);
      }
      cache_s = median(t);
      cache_gbs = static_cast<double>(cache_bytes) / cache_s / 1e9;
    }
    const double mbs = static_cast<double>(f.text_bytes) / f.total / 1e6;
    if (json) {
      std::printf(
          "{\"file\": \"%s\", \"threads\": %u, \"repeat\": %d, \"file_bytes\": %llu, \"text_bytes\": %llu, "
          "\"nnz\": %llu, \"read_s\": %.6f, \"parse_s\": %.6f, \"total_s\": %.6f, \"text_MB_per_s\": %.1f",
          json_escape(file).c_str(), used, repeat, static_cast<unsigned long long>(f.file_bytes),
          static_cast<unsigned long long>(f.text_bytes), static_cast<unsigned long long>(f.nnz), f.read,
          f.parse, f.total, mbs);
      if (cache)
        std::printf(", \"cache_bytes\": %llu, \"cache_s\": %.6f, \"cache_GB_per_s\": %.2f",
                    static_cast<unsigned long long>(cache_bytes), cache_s, cache_gbs);
      // Peak resident memory of the process so far (one FILE per run measures that file's load).
      struct rusage ru {};
      ::getrusage(RUSAGE_SELF, &ru);
      std::printf(", \"peak_rss_MB\": %.1f}\n", static_cast<double>(ru.ru_maxrss) / 1024.0);
    } else {
      std::printf("%-28s %8u %10.1f %10llu %9.4f %9.4f %9.4f %9.0f", fs::path(file).filename().c_str(), used,
                  static_cast<double>(f.text_bytes) / 1e6, static_cast<unsigned long long>(f.nnz), f.read,
                  f.parse, f.total, mbs);
      if (cache) std::printf(" %9.4f %11.2f", cache_s, cache_gbs);
      std::printf("\n");
    }
    std::fflush(stdout);
  }
  if (!temp_cache.empty()) fs::remove_all(temp_cache);
  return ok;
}

}  // namespace
}  // namespace perron::app

int main(int argc, char** argv) {
  return perron::app::run("read-bench", [&] { return perron::app::main_body(argc, argv); });
}
