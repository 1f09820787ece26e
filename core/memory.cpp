#include "core/memory.hpp"

#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>

#include "core/device.hpp"
#include "core/error.hpp"

namespace perron {

void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  if (data == nullptr || bytes < 2 * huge) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
  const std::uintptr_t last = (begin + bytes) & ~(huge - 1);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

namespace {

constexpr std::uintptr_t page_bytes = 4096;
// 2 MiB, one huge page a piece, so that an array of a few pieces still
// spreads over the threads.
constexpr std::uintptr_t populate_piece = std::uintptr_t(2) << 20;

using address_range = std::pair<std::uintptr_t, std::uintptr_t>;

// [begin, end) cut into populate_pieces, appended to `pieces`.
void cut_pieces(std::uintptr_t begin, std::uintptr_t end, std::vector<address_range>& pieces) {
  for (std::uintptr_t p = begin; p < end; p += populate_piece)
    pieces.emplace_back(p, std::min(end, p + populate_piece));
}

// Page-aligned outwards: the pages at either end belong to the same mapping.
address_range whole_pages(const void* data, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(data) & ~(page_bytes - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes + page_bytes - 1) & ~(page_bytes - 1);
  return {begin, end};
}

void populate(const std::vector<address_range>& pieces, unsigned threads) {
#if defined(MADV_POPULATE_WRITE)
  const auto count = static_cast<std::int64_t>(pieces.size());
  // Failure (an older kernel: EINVAL) only means the writers fault the pages as before.
#pragma omp parallel for schedule(dynamic, 1) \
    num_threads(threads > 0 ? threads : 1) if (count > 1 && threads > 1)
  for (std::int64_t k = 0; k < count; ++k)
    ::madvise(reinterpret_cast<void*>(pieces[k].first), pieces[k].second - pieces[k].first,
              MADV_POPULATE_WRITE);
#else
  (void)pieces;
  (void)threads;
#endif
}

}  // namespace

void prefault(const std::vector<byte_span>& spans, unsigned threads) {
  // Below 8 MiB not worth a parallel region.
  constexpr std::size_t least = std::size_t(8) << 20;
  std::vector<address_range> pieces;
  for (const byte_span& s : spans) {
    if (s.data == nullptr || s.bytes < least) continue;
    const auto [begin, end] = whole_pages(s.data, s.bytes);
    cut_pieces(begin, end, pieces);
  }
  populate(pieces, threads);
}

void map_unmapped(void* data, std::size_t bytes, unsigned threads) {
  if (data == nullptr || bytes == 0) return;
  const auto [begin, end] = whole_pages(data, bytes);
  const std::size_t pages = (end - begin) / page_bytes;
  std::vector<unsigned char> resident(pages);
  // An error (a platform without it, an address outside a mapping) leaves the
  // pages to their writers' first touch.
  if (::mincore(reinterpret_cast<void*>(begin), end - begin, resident.data()) != 0) return;
  std::vector<address_range> pieces;
  for (std::size_t i = 0; i < pages;) {
    if (resident[i] & 1) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < pages && !(resident[j] & 1)) ++j;
    cut_pieces(begin + i * page_bytes, begin + j * page_bytes, pieces);
    i = j;
  }
  populate(pieces, threads);
}

namespace {

// libgomp's threads do not survive fork(): a child's first parallel region of
// more than one thread waited forever on the parent's pool (Python's
// multiprocessing forks by default, so a pool.map over perron calls hung once
// the parent had made one large enough for a team). Where the parent had
// threads besides the forking one when it forked (a pool is threads), the
// child runs every region on its one thread: max-active-levels 0 makes every
// region inactive, an explicit num_threads clause too. A parent of one thread
// has no pool, and its child keeps its teams: the apps fork so on purpose
// before any thread exists (apps/common/detached_exit.hpp), and the whole run
// goes on in that child (forced to one thread, every GPU host's load and
// conversion ran on one core).
std::atomic<bool> forked_with_threads{false};

// The process's thread count, from /proc/self/stat's 20th field; 0 where it
// cannot be read (then the child is taken as forked with threads: a hang is
// worse than one thread).
long process_threads() {
  const int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[1024];
  const ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) return 0;
  buf[got] = '\0';
  const char* p = std::strrchr(buf, ')');  // after the command name, which may hold blanks
  if (!p) return 0;
  for (int field = 2; field < 20 && *p; ++p)  // field 3 starts after the blank following ')'
    if (*p == ' ') ++field;
  return *p ? std::strtol(p, nullptr, 10) : 0;
}

void before_fork() { forked_with_threads.store(process_threads() != 1, std::memory_order_relaxed); }

void in_forked_child() {
  if (!forked_with_threads.load(std::memory_order_relaxed)) return;
  omp_set_num_threads(1);
  omp_set_max_active_levels(0);
}
[[maybe_unused]] const int fork_guard = ::pthread_atfork(before_fork, nullptr, in_forked_child);

}  // namespace

unsigned host_threads() { return static_cast<unsigned>(std::max(1, omp_get_max_threads())); }

int threads_for_work(std::size_t work, std::size_t grain) {
  return work / std::max<std::size_t>(grain, 1) >= 2 ? static_cast<int>(host_threads()) : 1;
}

bool threads_chosen_by_user() {
  const char* chosen = std::getenv("OMP_NUM_THREADS");
  return chosen && *chosen;
}

int solve_team(std::size_t work, std::size_t grain) {
  if (threads_for_work(work, grain) == 1) return 1;
  const auto procs = static_cast<std::size_t>(std::max(1, omp_get_num_procs()));
  const std::size_t allowed = host_threads();
  const std::size_t most =
      threads_chosen_by_user() ? allowed : std::min<std::size_t>(allowed, procs >= 8 ? procs - 1 : procs);
  return static_cast<int>(std::clamp<std::size_t>(work / std::max<std::size_t>(grain / 2, 1), 1, most));
}

int thread_ceiling() {
  const long long procs = std::max(1, omp_get_num_procs());
  long long most = 64 * procs;
  rlimit r{};
  if (getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
    most = std::min<long long>(most, static_cast<long long>(r.rlim_cur / 2));
  return static_cast<int>(std::clamp<long long>(most, 1, INT_MAX));
}

namespace {
// OMP_NUM_THREADS's first number as the user wrote it (0: unset or not a
// number). libgomp keeps it as an unsigned long and omp_get_max_threads()
// returns an int: 4294967297 came back as 1 and 2147483648 as negative, and
// the run went on one thread without a word.
unsigned long long threads_asked_by_user() {
  const char* v = std::getenv("OMP_NUM_THREADS");
  if (!v) return 0;
  while (*v == ' ' || *v == '\t') ++v;
  if (*v < '0' || *v > '9') return 0;
  errno = 0;
  const unsigned long long n = std::strtoull(v, nullptr, 10);
  return errno == ERANGE ? ULLONG_MAX : n;
}
}  // namespace

int process_team(std::string* note) {
  const unsigned long long user = threads_asked_by_user();
  const bool past_int = user > static_cast<unsigned long long>(INT_MAX);
  const int asked = std::max(1, omp_get_max_threads());
  const int allowed = past_int ? thread_ceiling() : std::min(asked, thread_ceiling());
  if (note && (allowed < asked || past_int))
    *note = (threads_chosen_by_user() ? "OMP_NUM_THREADS=" : "") +
            (past_int ? std::string(std::getenv("OMP_NUM_THREADS")) : std::to_string(asked)) +
            (threads_chosen_by_user() ? "" : " threads") +
            " is more threads than this process can start or use (" + std::to_string(omp_get_num_procs()) +
            " processors): using " + std::to_string(allowed);
  if (past_int) omp_set_num_threads(allowed);  // (the runtime's own count wrapped)
  if (threads_chosen_by_user()) return allowed;
  const int procs = std::max(1, omp_get_num_procs());
  return procs >= 8 ? std::min(allowed, procs - 1) : allowed;
}

void start_team(int team) {
  const int threads = std::max(team, 1);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {}
}

team_scope::team_scope(int team) : saved_(omp_get_max_threads()) {
  omp_set_num_threads(std::clamp(team, 1, saved_));
}
team_scope::~team_scope() { omp_set_num_threads(saved_); }

namespace {

// A byte count from the environment variable `name`, 0 when unset or empty:
// a positive number, optionally followed by K, M, G or T (powers of 1024,
// either case, an optional "B" or "iB" after it). Anything else is one error
// naming the variable: read as before ("2G" as 2 bytes, "abc" or "-5" as no
// limit), a limit the user set could silently not apply.
double env_bytes(const char* name) {
  const char* env = std::getenv(name);
  if (!env || !*env) return 0;
  char* end = nullptr;
  double v = std::strtod(env, &end);
  const auto bad = [&] {
    return invalid_argument(std::string(name) + "='" + env +
                            "' is not a byte count: a positive number, optionally with K, M, G or T "
                            "(powers of 1024), such as 8e9 or 8G");
  };
  if (end == env || !(v > 0) || !std::isfinite(v)) throw bad();
  const std::string rest(end);
  std::size_t at = 0;
  if (at < rest.size()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(rest[at])));
    const char* units = "KMGT";
    if (const char* q = std::strchr(units, u); q && u) {
      v *= std::pow(1024.0, double(q - units + 1));
      ++at;
      if (at + 1 < rest.size() && (rest[at] == 'i' || rest[at] == 'I') &&
          (rest[at + 1] == 'B' || rest[at + 1] == 'b'))
        at += 2;
    }
    if (at < rest.size() && (rest[at] == 'B' || rest[at] == 'b')) ++at;
  }
  if (at != rest.size()) throw bad();
  return v;
}

// MemAvailable of /proc/meminfo in bytes; 0 where it cannot be read.
double available_bytes() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  double kib = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "MemAvailable: %lf kB", &kib) == 1) break;
  std::fclose(f);
  return kib * 1024.0;
}

std::size_t to_size(double limit) { return limit >= 1.8e19 ? SIZE_MAX : static_cast<std::size_t>(limit); }

std::string size_text(double b) {
  char out[32];
  if (b >= 1e9)
    std::snprintf(out, sizeof out, "%.1f GB", b / 1e9);
  else if (b >= 1e6)
    std::snprintf(out, sizeof out, "%.1f MB", b / 1e6);
  else
    std::snprintf(out, sizeof out, "%.0f bytes", b);
  return out;
}

// A number read from a one-value file (a cgroup's memory.max), or `none`
// where the file is absent, says "max" or holds no number.
double file_number(const std::string& path, double none) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return none;
  double v = none;
  char word[64] = {0};
  if (std::fscanf(f, "%63s", word) == 1) {
    char* end = nullptr;
    const double x = std::strtod(word, &end);
    if (end != word && *end == '\0') v = x;
  }
  std::fclose(f);
  return v;
}

// The sum of the named fields of a memory.stat file ("file 123" lines).
double stat_fields(const std::string& path, std::initializer_list<const char*> names) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return 0;
  double sum = 0;
  char key[128];
  double v = 0;
  while (std::fscanf(f, "%127s %lf", key, &v) == 2)
    for (const char* n : names)
      if (std::strcmp(key, n) == 0) sum += v;
  std::fclose(f);
  return sum;
}

// What the memory cgroups this process runs in leave free (their limit less
// what they hold that the kernel cannot drop: the page cache it can), the
// least over the cgroup and its parents; 0 where none sets a limit. A
// container's limit (docker --memory, a batch job's) is no part of
// MemAvailable, which counts the host's; past it the process is killed.
}  // namespace

namespace detail {

double cgroup_free_bytes(const std::string& proc_cgroup, const std::string& v1_root,
                         const std::string& v2_root) {
  std::FILE* f = std::fopen(proc_cgroup.c_str(), "r");
  if (!f) return 0;
  std::string v1, v2;  // this process's paths in the v1 memory hierarchy and in v2's
  bool in_v2 = false;
  char line[4096];
  while (std::fgets(line, sizeof line, f)) {
    std::string l(line);
    if (!l.empty() && l.back() == '\n') l.pop_back();
    const auto a = l.find(':'), b = a == std::string::npos ? a : l.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = l.substr(a + 1, b - a - 1), path = l.substr(b + 1);
    if (l.compare(0, a, "0") == 0 && controllers.empty()) {
      v2 = path;
      in_v2 = true;
    }
    for (std::size_t at = 0; at <= controllers.size();) {
      const auto comma = std::min(controllers.find(',', at), controllers.size());
      if (controllers.compare(at, comma - at, "memory") == 0) v1 = path;
      at = comma + 1;
    }
  }
  std::fclose(f);
  double least = 0;
  const auto consider = [&least](double limit, double held) {
    if (!(limit > 0) || limit >= 1e18) return;  // "max", or v1's 2^63 for none
    const double free = std::max(0.0, limit - held);
    least = least > 0 ? std::min(least, free) : free;
  };
  // The path and each folder above it to the mount (in a container without a
  // cgroup namespace the path names the host's folders: absent here, skipped).
  const auto each_level = [](const std::string& root, std::string path, auto&& at) {
    for (;;) {
      at(root + path);
      if (path.empty() || path == "/") break;
      path.erase(path.find_last_of('/'));
    }
  };
  if (!v1.empty())
    each_level(v1_root, v1, [&](const std::string& d) {
      const double usage = file_number(d + "/memory.usage_in_bytes", -1);
      if (usage < 0) return;
      consider(file_number(d + "/memory.limit_in_bytes", 0),
               usage - stat_fields(d + "/memory.stat", {"total_inactive_file", "total_active_file"}));
    });
  if (in_v2)
    each_level(v2_root, v2, [&](const std::string& d) {
      const double current = file_number(d + "/memory.current", -1);
      if (current < 0) return;
      consider(file_number(d + "/memory.max", 0), current - stat_fields(d + "/memory.stat", {"file"}));
    });
  return least;
}

}  // namespace detail

namespace {

// What `ulimit -v` (RLIMIT_AS) leaves of this process's address space; 0
// where it sets no limit.
double address_space_free_bytes() {
  rlimit r{};
  if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 0;
  double used = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    double pages = 0;
    if (std::fscanf(f, "%lf", &pages) == 1) used = pages * double(::sysconf(_SC_PAGESIZE));
    std::fclose(f);
  }
  return std::max(1.0, double(r.rlim_cur) - used);
}

// host_memory_limit() for data of which `held` bytes are in use already (so
// already out of the memory free, but not out of PERRON_MEMORY_LIMIT's);
// `where` what sets it, for a refusal's words.
double host_limit_holding(double held, const char** where = nullptr) {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  double limit = pages > 0 && page > 0 ? double(pages) * double(page) : 1e300;
  const char* by = "free on this host";
  if (const double free = available_bytes(); free > 0) limit = std::min(limit, free + held);
  if (const double free =
          detail::cgroup_free_bytes("/proc/self/cgroup", "/sys/fs/cgroup/memory", "/sys/fs/cgroup");
      free > 0 && free + held < limit) {
    limit = free + held;
    by = "that this process's memory cgroup (a container's or a job's limit) leaves free";
  }
  if (const double free = address_space_free_bytes(); free > 0 && free + held < limit) {
    limit = free + held;
    by = "of address space that this process's limit (ulimit -v) leaves";
  }
  if (const double v = env_bytes("PERRON_MEMORY_LIMIT"); v > 0) limit = std::min(limit, v);
  if (where) *where = by;
  return limit;
}

}  // namespace

std::size_t host_memory_limit() { return to_size(host_limit_holding(0)); }

std::string memory_refusal(double bytes, double limit, const std::string& what, const std::string& kind,
                           const std::string& where) {
  return what + " needs about " + size_text(bytes) + " of " + kind + ", more than the " + size_text(limit) +
         " " + where;
}

namespace {

// Refuses `bytes` above `limit`, naming what set the limit: the variable
// `env_name` where it is at or below the free memory, else `free_where`.
void check_limit(double bytes, std::size_t limit, const std::string& what, const char* kind,
                 const char* env_name, const char* free_where) {
  if (!(bytes > double(limit))) return;
  const double env = env_bytes(env_name);
  throw memory_error(memory_refusal(
      bytes, double(limit), what, kind,
      env > 0 && env <= double(limit) ? std::string("that ") + env_name + " allows" : free_where));
}

}  // namespace

void check_host_memory(double bytes, const std::string& what) { check_host_memory_holding(bytes, 0, what); }

void check_host_memory_holding(double bytes, double held, const std::string& what) {
  const char* where = nullptr;
  const double limit = host_limit_holding(held, &where);
  check_limit(bytes, to_size(limit), what, "memory", "PERRON_MEMORY_LIMIT", where);
}

std::size_t device_memory_limit() {
  double limit = 1e300;
  if (cuda::available()) limit = double(cuda::free_memory());
  if (const double v = env_bytes("PERRON_GPU_MEMORY_LIMIT"); v > 0) limit = std::min(limit, v);
  return to_size(limit);
}

void check_device_memory(double bytes, const std::string& what) {
  check_limit(bytes, device_memory_limit(), what, "GPU memory", "PERRON_GPU_MEMORY_LIMIT", "free on the GPU");
}

}  // namespace perron
