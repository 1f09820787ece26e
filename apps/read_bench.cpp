// read-bench: how fast perron loads matrix and graph files. For each FILE,
// one warm-up load (so the page cache holds the file), then --repeat timed
// loads; prints the medians of reading (disk / gunzip / untar), parsing and
// the total, and the throughput in uncompressed text bytes per second. With
// --cache it also times the reload from the binary cache. --write makes a
// benchmark input (e.g. a flickr-sized R-MAT graph) as a Matrix Market file.
#include <omp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "apps/common/app.hpp"
#include "apps/common/bench_options.hpp"
#include "apps/common/command_line.hpp"
#include "apps/common/usage.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"
#include "core/text.hpp"
#include "io/cache.hpp"
#include "io/load.hpp"
#include "io/matrix_market.hpp"
#include "io/output_file.hpp"
#include "io/synthetic.hpp"
#include "io/temporary_files.hpp"

namespace po = boost::program_options;

namespace perron::app {
namespace {

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

struct settings {
  int threads = 0, repeat = 5;
  bool cache = false, json = false;
  std::string cache_dir, write_spec;
  bool writing = false;  // --write given, even as '' (which is refused, not a timing run)
  std::vector<std::string> files;
};

// The command line into s; false when it asked for --help (printed).
bool parse_command_line(int argc, char** argv, settings& s) {
  po::options_description o(usage_text);
  o.add_options()("help,h", "this help")(
      "threads,j", po::value<int>(&s.threads)->default_value(0),
      "parser threads (0: the run's team: every processor but one from 8 up, or OMP_NUM_THREADS)")(
      "repeat,r", po::value<int>(&s.repeat)->default_value(5), "timed loads per file (median reported)")(
      "cache", po::bool_switch(&s.cache), "also time the reload from the binary cache")(
      "cache-dir", po::value<std::string>(&s.cache_dir)->value_name("DIR"),
      "cache directory for --cache (default: a fresh temporary directory, removed after)")(
      "json", po::bool_switch(&s.json), "one JSON object per file instead of the table")(
      "write", po::value<std::string>(&s.write_spec)->value_name("SPEC"),
      "write the synthetic matrix SPEC (e.g. rmat:20:10000000) to the one FILE as Matrix Market "
      "(gzip-compressed where FILE ends in .gz)");
  po::options_description all;
  all.add(o).add_options()("file", po::value<std::vector<std::string>>(&s.files));
  po::variables_map vm;
  store_command_line(argc, argv, all, vm, "file", -1);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << o << '\n' << bench_exit_codes;
    return false;
  }
  if (s.files.empty()) throw usage_error("no FILE given");
  s.writing = vm.count("write") > 0;
  // --write generates and writes; it times nothing, so the timing options
  // asked for with it were dropped without a word (--json gave no JSON).
  if (vm.count("write"))
    for (const char* t : {"json", "cache", "cache-dir", "repeat", "threads"})
      if (vm.count(t) && !vm[t].defaulted())
        throw usage_error(std::string("--") + t +
                          " does not apply to --write, which writes a matrix and times nothing");
  // --cache-dir is the folder of the cache --cache times: without --cache it
  // did nothing, without a word.
  if (vm.count("cache-dir") && !s.cache)
    throw usage_error("--cache-dir applies to --cache (the timed reload from the binary cache); add --cache");
  if (vm.count("cache-dir") && s.cache_dir.empty())
    throw usage_error(
        "--cache-dir needs a folder name, got an empty one (without it, --cache uses a fresh "
        "temporary folder)");
  // A generated graph has no cache: '--cache rmat:20:1000000' said 'rmat:20:1000000: no such file'.
  if (s.cache)
    for (const std::string& f : s.files)
      if (io::is_synthetic_spec(f))
        throw usage_error("--cache times the reload of a file's binary cache, and " + f +
                          " is a generated graph, which is never cached; leave --cache out for it");
  if (s.threads < 0) throw usage_error("--threads must be >= 0");
  // A team past this is no benchmark of the parser: -j 100000 crashed in
  // libgomp's thread creation (SIGSEGV), -j 2147483647 asked it for 481 GB.
  const int max_threads = std::max(1024, 4 * omp_get_num_procs());
  if (s.threads > max_threads)
    throw usage_error("--threads must be at most " + std::to_string(max_threads) +
                      " (4 per processor, at least 1024; got " + std::to_string(s.threads) + ")");
  if (s.repeat < 1) throw usage_error("--repeat must be >= 1");
  return true;
}

// Every FILE is read --repeat + 1 times (and twice more with --cache): a pipe
// gives its text once, so '<(zcat g.mtx.gz)' or a FIFO was read by the warm-up
// and the first timed load then waited for a writer that never came. Checked
// before any file is read; a missing file or a folder gets load_matrix's error.
void require_regular_files(const settings& s) {
  for (const std::string& f : s.files) {
    struct stat st {};
    // '-' (standard input to pagerank) said "-: no such file".
    const bool stdin_name = f == "-";
    if (!stdin_name && (io::is_synthetic_spec(f) || ::stat(f.c_str(), &st) != 0 || S_ISREG(st.st_mode) ||
                        S_ISDIR(st.st_mode)))
      continue;
    throw io_error(
        f, std::string(stdin_name ? "standard input" : "not a regular file") +
               ": read-bench reads each FILE " + std::to_string(static_cast<long long>(s.repeat) + 1) +
               " times (--repeat " + std::to_string(s.repeat) +
               " after a warm-up), and a pipe or device gives its text once; save it to a file first");
  }
}

// The folder --cache-dir names, made before any file is read: one that cannot
// be (a file, /dev/null) warned 'not caching' and then ended in the bare
// 'filesystem error: cannot get file size: Not a directory' (exit 71).
void require_cache_folder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec && !fs::is_directory(dir, ec)) ec = std::make_error_code(std::errc::not_a_directory);
  if (ec) throw io_error(dir, "--cache-dir: cannot make it a folder for the cache: " + ec.message());
  // A folder that takes no file (/proc, a read-only mount): the cache's writer
  // warned 'not caching' and the run ended 'the cache of F could not be written
  // there', two lines on stderr after the table's header on stdout. A file made
  // and removed there first says so alone.
  std::string probe = (fs::path(dir) / ".read-bench-probe.XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0)
    throw io_error(dir, std::string("--cache-dir: cannot write the cache there: ") + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

int write_synthetic(const settings& s) {
  if (s.files.size() != 1) throw usage_error("--write takes exactly one output FILE");
  if (!io::is_synthetic_spec(s.write_spec))
    throw usage_error("--write needs a synthetic spec such as rmat:20:10000000");
  // Matrix Market text, gzip-compressed under a .gz name: a name of another
  // packing got plain text (g.zip, g.mtx.bz2: unreadable as what they say),
  // and x.tar.gz a gzipped .mtx that tar does not read.
  const std::string lower = ascii_lower(s.files[0]);
  for (const std::string packed : {".tar.gz", ".tgz", ".tar", ".zip", ".bz2", ".xz", ".zst", ".7z"})
    if (lower.size() > packed.size() &&
        lower.compare(lower.size() - packed.size(), packed.size(), packed) == 0)
      throw usage_error("--write writes Matrix Market text, gzip-compressed for a .gz name; " + s.files[0] +
                        " names a " + packed + " file (write a .mtx or .mtx.gz and pack it yourself)");
  const auto a = io::generate_synthetic(s.write_spec);
  const bool pattern = s.write_spec.rfind("rmat:", 0) == 0;
  io::write_matrix_market(s.files[0], a, pattern ? io::mm_field::pattern : io::mm_field::real);
  // Not after the matrix when it went to stdout ('-', /dev/stdout): the line became part of the file.
  (io::names_standard_output(s.files[0]) ? std::cerr : std::cout)
      << "wrote " << s.files[0] << ": " << a.rows << " x " << a.cols << ", " << a.nnz() << " entries\n";
  return ok;
}

struct cache_figures {
  double seconds = 0, gb_per_s = 0;
  std::uint64_t bytes = 0;
};

// Writes the cache of `file` once, then times --repeat reloads from it. In a
// fresh folder of the run's own (`scratch`) the entry is removed after, and
// by a signal before (io::temporary_guard).
cache_figures time_cache(const std::string& file, const io::read_options& opt, const std::string& dir,
                         int repeat, bool scratch) {
  io::read_options c = opt;
  c.cache.enabled = true;
  c.cache.dir = dir;
  const std::string entry = io::cache_file_for(file, c.cache);
  io::temporary_guard guard;
  if (scratch) guard = io::temporary_guard(entry);
  struct removed_after {
    const std::string& path;
    bool scratch;
    ~removed_after() {
      if (scratch) ::unlink(path.c_str());
    }
  } remove_entry{entry, scratch};
  io::load_matrix(file, c);  // writes the cache
  cache_figures cf;
  // The cache's writer warns and goes on where it cannot write (a full disk).
  std::error_code ec;
  cf.bytes = std::filesystem::file_size(entry, ec);
  if (ec) throw io_error(dir, "the cache of " + file + " could not be written there (" + ec.message() + ")");
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r) {
    const auto m = io::load_matrix(file, c);
    if (!m.timings.from_cache) throw std::runtime_error("the cache was not used for " + file);
    t.push_back(m.read_seconds);
  }
  cf.seconds = median(t);
  cf.gb_per_s = static_cast<double>(cf.bytes) / cf.seconds / 1e9;
  return cf;
}

void print_json(const std::string& file, unsigned used, const settings& s, const figures& f, double mbs,
                const cache_figures& cf) {
  std::printf(
      "{\"file\": \"%s\", \"threads\": %u, \"repeat\": %d, \"file_bytes\": %llu, \"text_bytes\": %llu, "
      "\"nnz\": %llu, \"read_s\": %.6f, \"parse_s\": %.6f, \"total_s\": %.6f, \"text_MB_per_s\": %.1f",
      json_escape(file).c_str(), used, s.repeat, static_cast<unsigned long long>(f.file_bytes),
      static_cast<unsigned long long>(f.text_bytes), static_cast<unsigned long long>(f.nnz), f.read, f.parse,
      f.total, mbs);
  if (s.cache)
    std::printf(", \"cache_bytes\": %llu, \"cache_s\": %.6f, \"cache_GB_per_s\": %.2f",
                static_cast<unsigned long long>(cf.bytes), cf.seconds, cf.gb_per_s);
  // Peak resident memory of the process so far (one FILE per run measures that file's load).
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  std::printf(", \"peak_rss_MB\": %.1f}\n", static_cast<double>(ru.ru_maxrss) / 1024.0);
}

void print_row(const std::string& file, unsigned used, const settings& s, const figures& f, double mbs,
               const cache_figures& cf) {
  std::printf("%-28s %8u %10.1f %10llu %9.4f %9.4f %9.4f %9.0f",
              std::filesystem::path(file).filename().c_str(), used, static_cast<double>(f.text_bytes) / 1e6,
              static_cast<unsigned long long>(f.nnz), f.read, f.parse, f.total, mbs);
  if (s.cache) std::printf(" %9.4f %11.2f", cf.seconds, cf.gb_per_s);
  std::printf("\n");
}

int main_body(int argc, char** argv) {
  settings s;
  if (!parse_command_line(argc, argv, s)) return ok;
  if (s.writing) return write_synthetic(s);

  io::read_options opt;
  opt.threads = static_cast<unsigned>(s.threads);
  const unsigned used =
      s.threads ? static_cast<unsigned>(s.threads) : static_cast<unsigned>(omp_get_max_threads());
  namespace fs = std::filesystem;
  // The fresh cache folder goes however the run ends: a FILE that failed
  // after one cached left its cache (30 MB for 44 MB of text) in /tmp.
  // Ctrl-C too: the folder is registered with the signal handler (after its
  // one entry at a time, time_cache).
  struct removed_after {
    fs::path dir;
    io::temporary_guard guard;
    ~removed_after() {
      std::error_code ec;
      if (!dir.empty()) fs::remove_all(dir, ec);
    }
  } temp_cache;
  require_regular_files(s);
  if (s.cache && !s.cache_dir.empty()) require_cache_folder(s.cache_dir);
  if (s.cache && s.cache_dir.empty()) {
    // A new folder of its own (mkdtemp): a fixed name by the process id
    // removed a folder of that name that was there before, with its files.
    std::error_code ec;
    const fs::path tmp = fs::temp_directory_path(ec);
    if (ec)
      throw io_error("TMPDIR", "no folder for the scratch cache (" + ec.message() + "); give --cache-dir");
    std::string pattern = (tmp / "perron-read-bench-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw io_error(tmp.string(), std::string("cannot make the scratch cache's folder there: ") +
                                       std::strerror(errno) + "; give --cache-dir");
    temp_cache.dir = pattern;
    s.cache_dir = pattern;
    temp_cache.guard = io::temporary_guard(s.cache_dir, io::temporary_kind::folder);
  }
  if (!s.json)
    std::printf("%-28s %8s %10s %10s %9s %9s %9s %9s%s\n", "file", "threads", "text MB", "nnz", "read s",
                "parse s", "total s", "MB/s", s.cache ? "   cache s   cache GB/s" : "");
  for (const auto& file : s.files) {
    io::load_matrix(file, opt);  // warm-up: the file into the page cache
    const figures f = time_loads(file, opt, s.repeat);
    const cache_figures cf =
        s.cache ? time_cache(file, opt, s.cache_dir, s.repeat, !temp_cache.dir.empty()) : cache_figures{};
    const double mbs = static_cast<double>(f.text_bytes) / f.total / 1e6;
    if (s.json)
      print_json(file, used, s, f, mbs, cf);
    else
      print_row(file, used, s, f, mbs, cf);
    std::fflush(stdout);
  }
  return ok;
}

}  // namespace
}  // namespace perron::app

int main(int argc, char** argv) {
  return perron::app::run("read-bench", [&] { return perron::app::main_body(argc, argv); });
}
