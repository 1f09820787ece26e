#include "io/cache.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>
#include <optional>
#include <set>
#include <type_traits>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/text.hpp"
#include "io/output_file.hpp"
#include "io/synthetic.hpp"
#include "io/text_input.hpp"

namespace perron::io {
namespace {

namespace fs = std::filesystem;

// ---- checksum -----------------------------------------------------------------------
// A 4-lane multiply-rotate hash (the xxHash64 round) per 1 MiB block, blocks
// combined by a position-dependent sum, so it runs in parallel at memory
// speed and still notices reordered, truncated or flipped data.

constexpr std::uint64_t p1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t p2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t p3 = 0x165667B19E3779F9ULL;
constexpr std::size_t block_bytes = std::size_t(1) << 20;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}
inline std::uint64_t round64(std::uint64_t acc, std::uint64_t w) { return rotl(acc + w * p2, 31) * p1; }

std::uint64_t block_hash(const unsigned char* p, std::size_t n, std::uint64_t index) {
  std::uint64_t a = p1 + p2 + index, b = p2 ^ index, c = index * p3, d = ~index;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    std::uint64_t w[4];
    std::memcpy(w, p + i, 32);
    a = round64(a, w[0]);
    b = round64(b, w[1]);
    c = round64(c, w[2]);
    d = round64(d, w[3]);
  }
  if (i < n) {
    std::uint64_t w[4] = {0, 0, 0, 0};
    std::memcpy(w, p + i, n - i);
    a = round64(a, w[0]);
    b = round64(b, w[1]);
    c = round64(c, w[2]);
    d = round64(d, w[3]);
  }
  return mix64(rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + n * p3);
}

std::uint64_t block_term(const void* p, std::size_t n, std::uint64_t index) {
  return mix64(block_hash(static_cast<const unsigned char*>(p), n, index) + index * p1);
}

std::uint64_t region_hash(const void* data, std::size_t bytes, unsigned threads) {
  const auto blocks = static_cast<std::int64_t>((bytes + block_bytes - 1) / block_bytes);
  std::uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static) num_threads(threads) if (blocks > 1)
  for (std::int64_t k = 0; k < blocks; ++k) {
    const std::size_t off = static_cast<std::size_t>(k) * block_bytes;
    sum += block_term(static_cast<const char*>(data) + off, std::min(block_bytes, bytes - off),
                      static_cast<std::uint64_t>(k));
  }
  return mix64(sum + bytes);
}

std::uint64_t combine(std::uint64_t h, std::uint64_t region) { return mix64(h ^ (region + p3)); }

// ---- file layout ----------------------------------------------------------------------

constexpr char magic[8] = {'P', 'E', 'R', 'R', 'O', 'N', 'C', 'A'};
constexpr std::uint32_t endian_mark = 0x01020304;

struct file_header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t endian;
  std::uint64_t source_size;
  std::int64_t source_mtime_ns;
  std::uint64_t path_bytes;
  std::uint64_t nnz;
  std::uint64_t labels;
  std::int32_t rows;
  std::int32_t cols;
  std::uint8_t format;
  std::uint8_t pattern;
  std::uint8_t symmetric;
  std::uint8_t has_values;
  std::uint8_t named;  // the label region holds vertex names (names_region)
  std::uint8_t reserved[3];
  std::int64_t source_ctime_ns;
  std::int32_t first_set;  // loaded_matrix::first_set (a bipartite reading), else 0
  std::int32_t unused;
  std::uint64_t payload_checksum;
  std::uint64_t header_checksum;  // of the fields above and the path
};
static_assert(sizeof(file_header) == 104, "cache header layout");
static_assert(std::is_trivially_copyable_v<file_header>);

std::uint64_t pad8(std::uint64_t n) { return (n + 7) / 8 * 8; }

// A cache header's checksum (file_header here, part_header for the per-rank
// cache): of its fields before header_checksum, and the source path.
template <class Header>
std::uint64_t header_hash(const Header& h, const std::string& path) {
  std::uint64_t x = block_term(&h, offsetof(Header, header_checksum), 0);
  return combine(x, block_term(path.data(), path.size(), 1));
}

struct source_key {
  std::string path;     // absolute, symlinks resolved
  std::string reading;  // cache_options::reading: "" for the source's default reading
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
};

// The fields stamp_problem checks (below), for the source `key`.
template <class Header>
void stamp_header(Header& h, const char (&m)[8], std::uint32_t version, const source_key& key) {
  std::memcpy(h.magic, m, sizeof m);
  h.version = version;
  h.endian = endian_mark;
  h.source_size = key.size;
  h.source_mtime_ns = key.mtime_ns;
  h.source_ctime_ns = key.ctime_ns;
  h.path_bytes = key.path.size();
}

std::optional<source_key> key_of(const std::string& source, const std::string& reading = {}) {
  std::error_code ec;
  const fs::path canon = fs::canonical(source, ec);
  if (ec) return std::nullopt;
  struct stat st {};
  if (::stat(canon.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  source_key k;
  k.path = canon.string();
  k.reading = reading;
  k.size = static_cast<std::uint64_t>(st.st_size);
  k.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  k.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return k;
}

}  // namespace

std::optional<source_stamp> stamp_of(const std::string& source) {
  const auto k = key_of(source);
  // A size of 0 says nothing of the content (procfs files have some): nothing
  // is cached for it.
  if (!k || k->size == 0) return std::nullopt;
  return source_stamp{k->size, k->mtime_ns, k->ctime_ns};
}

namespace {

// "<file name>.<hash of the path>": what every cache file of the source
// starts with; "<file name>.<reading>.<hash of path and reading>" for another
// reading of it, so that no name of one is a prefix of the other's
// (rank_cache_prune matches by prefix).
std::string stem_for(const source_key& k) {
  std::string base = fs::path(k.path).filename().string();
  if (!k.reading.empty()) base += "." + k.reading;
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  if (base.size() > 80) base.resize(80);
  char hex[17];
  const std::string hashed = k.reading.empty() ? k.path : k.path + '\0' + k.reading;
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(hashed)));
  return base + "." + hex;
}

std::string file_name_for(const source_key& k) { return stem_for(k) + ".perron-cache"; }

// One line whatever the message holds: it names the user's files.
void warn(const std::string& msg) { std::cerr << ("perron: warning: " + one_line(msg) + "\n") << std::flush; }

// Warns once a process of `key` (a cache directory, a message): the graph's
// entry and each side file of a run (iterations, the layout record) said it
// again, one warning each, where the folder could not be made or no file
// could be made in it (a read-only folder), and a bad side file was warned of
// at each of its reads.
void warn_once(const std::string& key, const std::string& msg) {
  static std::mutex mutex;
  static std::set<std::string> said;
  const std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(key).second) warn(msg);
}

// Makes the cache directory, or says once a process that it cannot.
bool cache_dir_ready(const std::string& dir, const std::string& source) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec) return true;
  warn_once(dir,
            "cannot create the cache directory " + dir + " (" + ec.message() + "); not caching " + source);
  return false;
}

bool pread_all(int fd, void* out, std::size_t n, std::uint64_t off) {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(off));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
    off += static_cast<std::uint64_t>(r);
  }
  return true;
}

bool write_all(int fd, const void* data, std::size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t r = ::write(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

}  // namespace

// A temporary that a write killed outright (SIGKILL, a power cut) left: the
// signal handler never ran. Such "<entry>.tmp.<pid>.<clock>" files, entries of
// perron's own by name, are removed by the next write into the folder once
// untouched for an hour (a live writer, on this host or another sharing the
// folder, writes its temporary within seconds, so the hour spares it; a pid is
// no proof of death across hosts). Each held up to a whole entry's bytes.
// "Now" is the modification time of `fresh`, the temporary this write just
// made: on a shared (NFS) folder the server stamps both, so a client whose
// clock runs an hour ahead does not sweep another host's live temporary.

void detail::sweep_stale_temporaries(const std::string& dir, const std::string& fresh) {
  constexpr auto stale = std::chrono::hours(1);
  std::error_code ec;
  auto now = fs::last_write_time(fs::path(fresh), ec);
  if (ec) now = fs::file_time_type::clock::now();
  ec.clear();
  for (fs::directory_iterator it(fs::path(dir), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::size_t tmp = name.rfind(".tmp.");
    if (tmp == std::string::npos || name.find(".perron-") == std::string::npos || name.find(".perron-") > tmp)
      continue;
    const std::string tail = name.substr(tmp + 5);  // "<pid>.<clock>"
    const std::size_t dot = tail.find('.');
    if (dot == 0 || dot == std::string::npos || dot + 1 == tail.size() ||
        tail.find_first_not_of("0123456789") != dot ||
        tail.find_first_not_of("0123456789", dot + 1) != std::string::npos)
      continue;
    std::error_code e;
    if (!it->is_regular_file(e) || e) continue;
    const auto when = fs::last_write_time(it->path(), e);
    if (!e && now - when > stale) fs::remove(it->path(), e);
  }
}

namespace {

// Writes a cache file through a temporary in the same directory, renamed
// into place once complete (atomic on POSIX: a reader sees the old file or
// the whole new one); write(fd) writes the content. Why it could not, or "";
// `no_file` tells that the temporary could not be made (nothing can be written there).
template <class Write>
std::string write_atomically(const std::string& file, const std::string& source, Write write,
                             bool* no_file = nullptr) {
  const std::string tmp = file + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  detail::file_descriptor fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) {
    const int err = errno;
    if (no_file) *no_file = true;
    // The folder, not the temporary's name (its process id and clock): under
    // mpirun the ranks' words then agree and print as one line, not P.
    const std::string folder = fs::path(file).parent_path().string();
    return "cannot write a cache file in " + (folder.empty() ? std::string(".") : folder) + " (" +
           std::strerror(err) + "); not caching " + source;
  }
  temporary_guard guard(tmp);  // a signal while it is written removes it (io/temporary_files.hpp)
  const fs::path folder = fs::path(file).parent_path();
  detail::sweep_stale_temporaries(folder.empty() ? std::string(".") : folder.string(), tmp);
  // err: the errno of the step that failed (errno itself is left stale by
  // calls that succeed, and close or unlink would overwrite it).
  int err = 0;
  errno = 0;
  bool ok = write(fd.get());
  if (!ok) err = errno;
  if (::close(fd.release()) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && std::rename(tmp.c_str(), file.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) ::unlink(tmp.c_str());
  guard.release();
  if (!ok) {
    return "cannot write the cache " + file + " (" + std::strerror(err ? err : EIO) + "); not caching " +
           source;
  }
  return {};
}

// Reads `bytes` at `offset` into `out` in parallel blocks, hashing each block
// while it is in cache and handing it to `check(data, bytes)`. Returns false
// on a short read.
template <class Check>
bool read_region(int fd, void* out, std::size_t bytes, std::uint64_t offset, unsigned threads,
                 std::uint64_t& hash, Check check) {
  const auto blocks = static_cast<std::int64_t>((bytes + block_bytes - 1) / block_bytes);
  std::uint64_t sum = 0;
  std::atomic<bool> ok{true};
#pragma omp parallel for reduction(+ : sum) schedule(static) num_threads(threads) if (blocks > 1)
  for (std::int64_t k = 0; k < blocks; ++k) {
    const std::size_t off = static_cast<std::size_t>(k) * block_bytes;
    const std::size_t n = std::min(block_bytes, bytes - off);
    char* dst = static_cast<char*>(out) + off;
    if (!pread_all(fd, dst, n, offset + off)) {
      ok = false;
      continue;
    }
    sum += block_term(dst, n, static_cast<std::uint64_t>(k));
    check(dst, n);
  }
  hash = mix64(sum + bytes);
  return ok;
}

}  // namespace

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return std::string(x) + "/perron";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/perron";
  return {};
}

namespace {
// Why default_cache_dir() is empty (a relative XDG_CACHE_HOME is ignored, as
// the XDG spec asks: it was named "not set").
std::string no_cache_directory() {
  const char* x = std::getenv("XDG_CACHE_HOME");
  return std::string("no cache directory (") +
         (x && *x ? "XDG_CACHE_HOME is not an absolute path, and HOME is not set"
                  : "neither XDG_CACHE_HOME nor HOME is set") +
         ")";
}
}  // namespace

std::string cache_dir(const cache_options& opt) { return opt.dir.empty() ? default_cache_dir() : opt.dir; }

std::string cache_file_for(const std::string& source, const cache_options& opt) {
  const auto key = key_of(source, opt.reading);
  if (!key) throw io_error(source, "no such file");
  return cache_dir(opt) + "/" + file_name_for(*key);
}

namespace {

// Why an entry of a source changed since it was written is refused: the
// expected case, rebuilt silently (a warning for any other reason).
constexpr const char* stale_entry = "stale: the source changed since it was cached";

// The checks both cache files' headers (file_header, part_header) start with,
// in this order: its length, magic and format version, then the path it was
// written for (read after it, bounded first), the header checksum over both,
// and the source's stamp. Why h cannot serve `key`, or "".
template <class Header>
std::string stamp_problem(int fd, std::uint64_t file_bytes, const source_key& key, Header& h,
                          const char (&want)[8], std::uint32_t version, const char* kind) {
  if (file_bytes < sizeof h || !pread_all(fd, &h, sizeof h, 0))
    return "truncated (" + std::to_string(file_bytes) + " bytes, shorter than its header)";
  if (std::memcmp(h.magic, want, sizeof want) != 0) return std::string("not a perron ") + kind;
  if (h.version != version)
    return "written by another cache format (version " + std::to_string(h.version) + ", this is " +
           std::to_string(version) + ")";
  // Apart from the version: a bad mark alone read "another cache format (version 2, this is 2)".
  if (h.endian != endian_mark)
    return h.endian == __builtin_bswap32(endian_mark)
               ? std::string("written on a machine of the other byte order")
               : std::string("corrupt header (bad byte-order mark)");
  if (h.path_bytes > 65536) return "corrupt header";
  std::string path(static_cast<std::size_t>(h.path_bytes), '\0');
  if (!pread_all(fd, path.data(), path.size(), sizeof h)) return "truncated header";
  if (header_hash(h, path) != h.header_checksum) return "header checksum mismatch (corrupt)";
  if (path != key.path) return "it belongs to another file (" + path + ")";
  if (h.source_size != key.size || h.source_mtime_ns != key.mtime_ns || h.source_ctime_ns != key.ctime_ns)
    return std::string(stale_entry);
  return {};
}

// Why the header of an open cache file cannot serve `key` ("" when it can):
// reads and checks it, and every size in it against the file's real length,
// before anything is allocated.
std::string header_problem(int fd, std::uint64_t file_bytes, const source_key& key, file_header& h) {
  if (std::string why = stamp_problem(fd, file_bytes, key, h, magic, cache_format_version, "cache file");
      !why.empty())
    return why;
  const std::uint64_t begin = sizeof h + pad8(h.path_bytes);
  const std::uint64_t per_entry = 8 + (h.has_values ? 8 : 0);
  if (h.nnz > file_bytes / per_entry || h.labels > file_bytes / 8 || h.rows < 0 || h.cols < 0 ||
      h.format >= input_format_count || h.first_set < 0 || h.first_set > h.rows ||
      begin + h.nnz * per_entry + h.labels * 8 != file_bytes)
    return "truncated or corrupt (" + std::to_string(file_bytes) + " bytes do not match its header)";
  return {};
}

// Reads the payload after a checked header into m; why it cannot be used, or "".
std::string read_payload(int fd, const file_header& h, unsigned threads, loaded_matrix& m) {
  m.format = static_cast<input_format>(h.format);
  m.pattern = h.pattern != 0;
  m.symmetric = h.symmetric != 0;
  m.skew = h.symmetric == 2;  // 2: skew-symmetric (an older reader takes it as symmetric)
  m.first_set = h.first_set;
  auto& a = m.matrix;
  a.rows = h.rows;
  a.cols = h.cols;
  const auto nnz = static_cast<std::size_t>(h.nnz);
  // Huge-page advice before first touch (detail::resize_outputs): faulting a
  // reload in 4 KiB pages would cost most of its time.
  detail::resize_outputs(nnz, threads, a.row_idx, a.col_idx, a.values);
  detail::resize_outputs(static_cast<std::size_t>(h.labels), threads, m.label);
  if (!h.has_values) {
    double* v = a.values.data();
#pragma omp parallel for schedule(static) num_threads(threads) if (nnz > 65536)
    for (std::int64_t e = 0; e < static_cast<std::int64_t>(nnz); ++e) v[e] = 1.0;
  }
  // Indices are range-checked block by block while the block is in cache: a
  // corrupt file with a matching checksum is astronomically unlikely, but an
  // index out of range would crash a kernel. Which check failed is told apart
  // from a bad checksum after the whole file is read.
  std::atomic<bool> in_range{true};
  const auto indices_below = [&in_range](index_t bound) {
    return [&in_range, bound](const void* p, std::size_t bytes) {
      // One unsigned compare per index (a negative one wraps above any bound).
      const auto* x = static_cast<const std::uint32_t*>(p);
      const auto limit = static_cast<std::uint32_t>(bound);
      std::uint32_t bad = 0;
      for (std::size_t e = 0; e < bytes / sizeof(index_t); ++e) bad |= x[e] >= limit;
      if (bad) in_range.store(false, std::memory_order_relaxed);
    };
  };
  const auto any = [](const void*, std::size_t) {};
  std::uint64_t sum = 0, part = 0;
  std::uint64_t off = sizeof h + pad8(h.path_bytes);
  bool ok = read_region(fd, a.row_idx.data(), nnz * 4, off, threads, part, indices_below(a.rows));
  sum = combine(sum, part);
  off += nnz * 4;
  ok = ok && read_region(fd, a.col_idx.data(), nnz * 4, off, threads, part, indices_below(a.cols));
  sum = combine(sum, part);
  off += nnz * 4;
  if (h.has_values) {
    ok = ok && read_region(fd, a.values.data(), nnz * 8, off, threads, part, any);
    sum = combine(sum, part);
    off += nnz * 8;
  }
  ok = ok && read_region(fd, m.label.data(), m.label.size() * 8, off, threads, part, any);
  sum = combine(sum, part);
  if (!ok) return "truncated while reading";
  if (sum != h.payload_checksum) return "checksum mismatch (corrupt)";
  if (!in_range) return "indices out of range (corrupt)";
  if (h.named) {
    if (!unpack_names(m.label, static_cast<std::size_t>(h.rows), m.name)) return "corrupt vertex names";
    std::vector<std::int64_t>().swap(m.label);
  } else if (!m.label.empty() && m.label.size() != static_cast<std::size_t>(h.rows)) {
    return "corrupt labels";
  }
  return {};
}

}  // namespace

std::optional<loaded_matrix> cache_load(const std::string& source, const cache_options& opt,
                                        unsigned threads) {
  if (!opt.enabled) return std::nullopt;
  const std::string dir = cache_dir(opt);
  if (dir.empty()) return std::nullopt;
  const auto key = key_of(source, opt.reading);
  if (!key) return std::nullopt;  // the reader will say what is wrong with the source
  const std::string file = dir + "/" + file_name_for(*key);
  threads = detail::thread_count(threads);

  detail::file_descriptor fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return std::nullopt;  // no cache yet: not worth a warning
  auto refuse = [&](const std::string& why) -> std::optional<loaded_matrix> {
    // A source changed since: rebuilt without a word, as the README says
    // (two warnings followed every edit of an input).
    if (why != stale_entry)
      warn("ignoring the cache " + file + " of " + source + ": " + why + "; re-reading the source");
    return std::nullopt;
  };
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return refuse("not a regular file");
  const auto file_bytes = static_cast<std::uint64_t>(st.st_size);
  file_header h{};
  if (const std::string why = header_problem(fd.get(), file_bytes, *key, h); !why.empty()) return refuse(why);
  loaded_matrix m;
  if (const std::string why = read_payload(fd.get(), h, threads, m); !why.empty()) return refuse(why);
  m.timings.from_cache = true;
  m.timings.file_bytes = file_bytes;
  return m;
}

namespace {

// The header of the cache file of m, with both checksums; `labels` is the
// label region (m's ids, or its names' region).
file_header header_for(const source_key& key, const loaded_matrix& m, const std::vector<std::int64_t>& labels,
                       unsigned threads) {
  const auto& a = m.matrix;
  const bool has_values = !m.pattern;
  file_header h{};
  stamp_header(h, magic, cache_format_version, key);
  h.nnz = a.nnz();
  h.labels = labels.size();
  h.named = !m.name.empty();
  h.rows = a.rows;
  h.cols = a.cols;
  h.format = static_cast<std::uint8_t>(m.format);
  h.pattern = m.pattern;
  h.symmetric = static_cast<std::uint8_t>(m.symmetric ? (m.skew ? 2 : 1) : 0);
  h.has_values = has_values;
  h.first_set = m.first_set;
  std::uint64_t sum = 0;
  sum = combine(sum, region_hash(a.row_idx.data(), a.nnz() * 4, threads));
  sum = combine(sum, region_hash(a.col_idx.data(), a.nnz() * 4, threads));
  if (has_values) sum = combine(sum, region_hash(a.values.data(), a.nnz() * 8, threads));
  sum = combine(sum, region_hash(labels.data(), labels.size() * 8, threads));
  h.payload_checksum = sum;
  h.header_checksum = header_hash(h, key.path);
  return h;
}

// Header, source path, padding and payload, in the order cache_load reads them.
bool write_cache_file(int fd, const file_header& h, const std::string& path, const loaded_matrix& m,
                      const std::vector<std::int64_t>& labels) {
  const auto& a = m.matrix;
  const bool has_values = h.has_values != 0;
  const char zeros[8] = {};
  return write_all(fd, &h, sizeof h) && write_all(fd, path.data(), path.size()) &&
         write_all(fd, zeros, pad8(path.size()) - path.size()) &&
         write_all(fd, a.row_idx.data(), a.nnz() * 4) && write_all(fd, a.col_idx.data(), a.nnz() * 4) &&
         (!has_values || write_all(fd, a.values.data(), a.nnz() * 8)) &&
         write_all(fd, labels.data(), labels.size() * 8);
}

}  // namespace

bool cache_store(const std::string& source, const source_stamp& before, const loaded_matrix& m,
                 const cache_options& opt, unsigned threads) {
  if (!opt.enabled) return false;
  const std::string dir = cache_dir(opt);
  if (dir.empty()) {
    warn(no_cache_directory() + "; not caching " + source);
    return false;
  }
  const auto key = key_of(source, opt.reading);
  if (!key) return false;
  if (key->size != before.size || key->mtime_ns != before.mtime_ns || key->ctime_ns != before.ctime_ns) {
    warn(source + " changed while it was read; not caching it");
    return false;
  }
  threads = detail::thread_count(threads);
  const std::string file = dir + "/" + file_name_for(*key);
  if (!cache_dir_ready(dir, source)) return false;
  const std::vector<std::int64_t> names = m.name.empty() ? std::vector<std::int64_t>{} : pack_names(m.name);
  const std::vector<std::int64_t>& labels = m.name.empty() ? m.label : names;
  const file_header h = header_for(*key, m, labels, threads);
  bool no_file = false;
  const std::string why = write_atomically(
      file, source, [&](int fd) { return write_cache_file(fd, h, key->path, m, labels); }, &no_file);
  if (no_file)
    warn_once(dir, why);  // as the side files of the run, which fail there too
  else if (!why.empty())
    warn(why);
  return why.empty();
}

// ---- the per-rank cache (rank_part) ---------------------------------------------------

namespace {

constexpr char part_magic[8] = {'P', 'E', 'R', 'R', 'O', 'N', 'R', 'P'};

struct part_header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t endian;
  std::uint64_t source_size;
  std::int64_t source_mtime_ns;
  std::uint64_t path_bytes;
  std::int32_t ranks;
  std::int32_t rank;
  std::int32_t n;
  std::int32_t rows;
  std::uint64_t nnz;
  std::uint64_t labels;
  std::uint8_t format;
  std::uint8_t pattern;
  std::uint8_t symmetric;
  std::uint8_t weighted;
  std::uint8_t undirected;  // 0 in parts written before the field (their arcs as the file lists them)
  std::uint8_t named;       // the label region holds vertex names (names_region)
  std::uint8_t reserved[2];
  std::int64_t source_ctime_ns;
  std::int32_t first_set;  // rank_part::first_set (a bipartite reading), else 0
  std::int32_t unused;
  std::uint64_t payload_checksum;
  std::uint64_t header_checksum;  // of the fields above and the path
};
static_assert(sizeof(part_header) == 112, "rank cache header layout");
static_assert(std::is_trivially_copyable_v<part_header>);

std::string part_name_for(const source_key& k, const rank_part_key& key) {
  return stem_for(k) + ".np" + std::to_string(key.ranks) + ".r" + std::to_string(key.rank) +
         (key.undirected ? ".u" : "") + (key.weighted ? ".w" : "") + ".perron-part";
}

// The payload's regions in file order: every rank's range, the row pointer,
// the columns, the weights (weighted only), the labels.
template <class F>
bool for_each_region(const part_header& h, F f) {
  const auto r = static_cast<std::size_t>(h.ranks) + 1, rows = static_cast<std::size_t>(h.rows) + 1,
             nnz = static_cast<std::size_t>(h.nnz);
  return f(0, r * 4) && f(1, rows * 4) && f(2, nnz * 4) && (!h.weighted || f(3, nnz * 8)) &&
         f(4, static_cast<std::size_t>(h.labels) * 8);
}

void* region_data(rank_part& p, int which) {
  switch (which) {
    case 0:
      return p.first.data();
    case 1:
      return p.rows.row_ptr.data();
    case 2:
      return p.rows.col_idx.data();
    case 3:
      return p.rows.values.data();
    default:
      return p.label.data();
  }
}

// Why the header cannot serve (source, key), checked against the file's
// length before anything is allocated; "" when it can.
std::string part_header_problem(int fd, std::uint64_t file_bytes, const source_key& src,
                                const rank_part_key& key, part_header& h) {
  if (std::string why =
          stamp_problem(fd, file_bytes, src, h, part_magic, rank_cache_format_version, "rank cache file");
      !why.empty())
    return why;
  if (h.ranks != key.ranks || h.rank != key.rank || (h.weighted != 0) != key.weighted)
    return "written for rank " + std::to_string(h.rank) + " of " + std::to_string(h.ranks);
  if ((h.undirected != 0) != key.undirected)
    return std::string("written for the graph ") + (h.undirected ? "undirected" : "as listed");
  if (h.n <= 0 || h.rows < 0 || h.rows > h.n || h.first_set < 0 || h.first_set > h.n ||
      h.format >= input_format_count || h.nnz > file_bytes / 4 || h.labels > file_bytes / 8)
    return "corrupt header";
  std::uint64_t end = sizeof h + pad8(h.path_bytes);
  for_each_region(h, [&](int, std::size_t bytes) { return end += bytes, true; });
  if (end != file_bytes)
    return "truncated or corrupt (" + std::to_string(file_bytes) + " bytes do not match its header)";
  return {};
}

// The part's own consistency, after its checksum matched: a wrong index
// would crash the solve, so nothing is taken on trust.
std::string part_problem(const part_header& h, const rank_part& p) {
  const auto& f = p.first;
  if (f.front() != 0 || f.back() != h.n) return "corrupt ranges";
  for (std::size_t q = 0; q + 1 < f.size(); ++q)
    if (f[q] > f[q + 1]) return "corrupt ranges";
  if (f[static_cast<std::size_t>(h.rank) + 1] - f[static_cast<std::size_t>(h.rank)] != h.rows)
    return "corrupt ranges";
  const auto& rp = p.rows.row_ptr;
  if (rp.front() != 0 || static_cast<std::uint64_t>(rp.back()) != h.nnz) return "corrupt row pointer";
  for (std::size_t i = 0; i + 1 < rp.size(); ++i)
    if (rp[i] > rp[i + 1]) return "corrupt row pointer";
  if (!p.label.empty() && p.label.size() != static_cast<std::size_t>(h.n)) return "corrupt labels";
  return {};
}

}  // namespace

namespace {

std::string side_header(const source_key& k) {
  return "perron-side 1\nstamp " + std::to_string(k.size) + " " + std::to_string(k.mtime_ns) + " " +
         std::to_string(k.ctime_ns) + "\n";
}

}  // namespace

std::string rank_cache_file_for(const std::string& source, const rank_part_key& key,
                                const cache_options& opt) {
  const auto k = key_of(source, opt.reading);
  if (!k) throw io_error(source, "no such file");
  return cache_dir(opt) + "/" + part_name_for(*k, key);
}

std::optional<rank_part> rank_cache_load(const std::string& source, const rank_part_key& key,
                                         const cache_options& opt, unsigned threads, std::string& why) {
  why.clear();
  if (!opt.enabled) return std::nullopt;
  const std::string dir = cache_dir(opt);
  const auto src = key_of(source, opt.reading);
  if (dir.empty() || !src) return std::nullopt;
  const std::string file = dir + "/" + part_name_for(*src, key);
  threads = detail::thread_count(threads);
  detail::file_descriptor fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return std::nullopt;  // none yet
  const auto refuse = [&](const std::string& reason) -> std::optional<rank_part> {
    if (reason != stale_entry) why = "ignoring the cache " + file + " of " + source + ": " + reason;
    return std::nullopt;
  };
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return refuse("not a regular file");
  const auto file_bytes = static_cast<std::uint64_t>(st.st_size);
  part_header h{};
  if (const std::string r = part_header_problem(fd.get(), file_bytes, *src, key, h); !r.empty())
    return refuse(r);
  rank_part p;
  p.format = static_cast<input_format>(h.format);
  p.pattern = h.pattern != 0;
  p.symmetric = h.symmetric != 0;
  p.skew = h.symmetric == 2;  // as the whole graph's entry
  p.first_set = h.first_set;
  p.n = h.n;
  p.first.resize(static_cast<std::size_t>(h.ranks) + 1);
  p.rows.rows = h.rows;
  p.rows.cols = h.n;
  p.rows.row_ptr.resize(static_cast<std::size_t>(h.rows) + 1);
  detail::resize_outputs(static_cast<std::size_t>(h.nnz), threads, p.rows.col_idx);
  if (h.weighted) detail::resize_outputs(static_cast<std::size_t>(h.nnz), threads, p.rows.values);
  p.label.resize(static_cast<std::size_t>(h.labels));
  // The column indices are range-checked block by block while the block is
  // in cache, as cache_load's are (a serial pass after the read took 10 of
  // rmat:20:10000000's 27 ms on the H200 host).
  std::atomic<bool> in_range{true};
  const auto columns = [&in_range, n = static_cast<std::uint32_t>(h.n)](const void* x, std::size_t bytes) {
    const auto* c = static_cast<const std::uint32_t*>(x);
    std::uint32_t bad = 0;
    for (std::size_t e = 0; e < bytes / sizeof(index_t); ++e) bad |= c[e] >= n;
    if (bad) in_range.store(false, std::memory_order_relaxed);
  };
  std::uint64_t sum = 0, off = sizeof h + pad8(h.path_bytes);
  const bool ok = for_each_region(h, [&](int which, std::size_t bytes) {
    std::uint64_t part = 0;
    const bool read = which == 2
                          ? read_region(fd.get(), region_data(p, which), bytes, off, threads, part, columns)
                          : read_region(fd.get(), region_data(p, which), bytes, off, threads, part,
                                        [](const void*, std::size_t) {});
    if (!read) return false;
    sum = combine(sum, part);
    off += bytes;
    return true;
  });
  if (!ok) return refuse("truncated while reading");
  if (sum != h.payload_checksum) return refuse("checksum mismatch (corrupt)");
  if (!in_range.load()) return refuse("indices out of range (corrupt)");
  if (h.named) {
    if (!unpack_names(p.label, static_cast<std::size_t>(h.n), p.name)) return refuse("corrupt vertex names");
    std::vector<std::int64_t>().swap(p.label);
  }
  if (const std::string r = part_problem(h, p); !r.empty()) return refuse(r);
  return p;
}

std::string rank_cache_store(const std::string& source, const source_stamp& before, const rank_part_key& key,
                             const rank_part& p, const cache_options& opt, unsigned threads) {
  if (!opt.enabled) return {};
  const std::string dir = cache_dir(opt);
  if (dir.empty()) return no_cache_directory() + "; not caching " + source;
  const auto src = key_of(source, opt.reading);
  if (!src) return source + " is no longer a regular file; not caching it";  // it had a stamp
  if (src->size != before.size || src->mtime_ns != before.mtime_ns || src->ctime_ns != before.ctime_ns)
    return source + " changed while it was read; not caching it";
  // The header's sizes are the part's own (the writer reads exactly them).
  const auto rows = static_cast<std::size_t>(p.rows.rows);
  if (key.ranks < 1 || key.rank < 0 || key.rank >= key.ranks ||
      p.first.size() != std::size_t(key.ranks) + 1 || p.rows.row_ptr.size() != rows + 1 ||
      (key.weighted && p.rows.values.size() != p.rows.col_idx.size()) ||
      (!p.label.empty() && p.label.size() != static_cast<std::size_t>(p.n)) ||
      (!p.name.empty() && (p.name.size() != static_cast<std::size_t>(p.n) || !p.label.empty())))
    throw invalid_argument("rank_cache_store: the part's sizes do not match its key");
  threads = detail::thread_count(threads);
  const std::string file = dir + "/" + part_name_for(*src, key);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return "cannot create the cache directory " + dir + " (" + ec.message() + "); not caching " + source;
  part_header h{};
  stamp_header(h, part_magic, rank_cache_format_version, *src);
  h.ranks = key.ranks;
  h.rank = key.rank;
  h.n = p.n;
  h.rows = p.rows.rows;
  h.nnz = p.rows.nnz();
  // The names where the ids go.
  const std::vector<std::int64_t> names = p.name.empty() ? std::vector<std::int64_t>{} : pack_names(p.name);
  const std::vector<std::int64_t>& labels = p.name.empty() ? p.label : names;
  h.labels = labels.size();
  h.named = !p.name.empty();
  h.format = static_cast<std::uint8_t>(p.format);
  h.pattern = p.pattern;
  h.symmetric = static_cast<std::uint8_t>(p.symmetric ? (p.skew ? 2 : 1) : 0);
  h.weighted = key.weighted;
  h.undirected = key.undirected;
  h.first_set = p.first_set;
  rank_part& q = const_cast<rank_part&>(p);  // region_data's pointers; nothing is written through them
  const auto data = [&](int which) {
    return which == 4 ? const_cast<std::int64_t*>(labels.data()) : region_data(q, which);
  };
  std::uint64_t sum = 0;
  for_each_region(h, [&](int which, std::size_t bytes) {
    sum = combine(sum, region_hash(data(which), bytes, threads));
    return true;
  });
  h.payload_checksum = sum;
  h.header_checksum = header_hash(h, src->path);
  return write_atomically(file, source, [&](int fd) {
    const char zeros[8] = {};
    return write_all(fd, &h, sizeof h) && write_all(fd, src->path.data(), src->path.size()) &&
           write_all(fd, zeros, pad8(src->path.size()) - src->path.size()) &&
           for_each_region(h,
                           [&](int which, std::size_t bytes) { return write_all(fd, data(which), bytes); });
  });
}

int rank_cache_prune(const std::string& source, const rank_part_key& key, const cache_options& opt) {
  if (!opt.enabled) return 0;
  const std::string dir = cache_dir(opt);
  const auto src = key_of(source, opt.reading);
  if (dir.empty() || !src) return 0;
  // <stem>.np<P>.r<R>[.u][.w].perron-part with P != key.ranks and the same
  // weighting and direction (another's suffix leaves a name whose middle is
  // not "<P>.r<R>": skipped).
  const std::string prefix = stem_for(*src) + ".np", suffix = std::string(key.undirected ? ".u" : "") +
                                                              (key.weighted ? ".w" : "") + ".perron-part";
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(dir), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string mid = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    const std::size_t dot = mid.find(".r");  // "<P>.r<R>"
    if (dot == std::string::npos || dot == 0 || mid.find_first_not_of("0123456789") != dot ||
        mid.find_first_not_of("0123456789", dot + 2) != std::string::npos || dot + 2 == mid.size())
      continue;
    // P = 1 is the single-process run's kept CSR of A^T (apps/pagerank.cpp keep_transpose), an
    // entry of its own that no distributed run reads or replaces: removed here, every mpirun
    // made the next single-process run convert the arcs again, and that run wrote it back.
    const std::string ranks = mid.substr(0, dot);
    if (ranks == std::to_string(key.ranks) || ranks == "1") continue;
    std::error_code rm;
    if (fs::remove(it->path(), rm)) ++removed;
  }
  return removed;
}

namespace {

// Where source's side file `tag` lives in dir and the header it starts with:
// beside a file's cache entry, stamped with its size and modification time;
// for a generated graph's spec (the same graph every run, io/synthetic.hpp),
// keyed and stamped by the spec itself (it has one reading). nullopt: neither.
std::optional<std::pair<std::string, std::string>> side_file(const std::string& source,
                                                             const cache_options& opt, const std::string& dir,
                                                             const std::string& tag) {
  if (is_synthetic_spec(source)) {
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(source)));
    return std::make_pair(dir + "/generated." + hash + ".perron-cache." + tag,
                          "perron-side 1\nstamp spec " + source + "\n");
  }
  const auto key = key_of(source, opt.reading);
  if (!key) return std::nullopt;
  return std::make_pair(dir + "/" + file_name_for(*key) + "." + tag, side_header(*key));
}

}  // namespace

std::optional<std::string> side_load(const std::string& source, const cache_options& opt,
                                     const std::string& tag) {
  if (!opt.enabled) return std::nullopt;
  const std::string dir = cache_dir(opt);
  const auto where = dir.empty() ? std::nullopt : side_file(source, opt, dir, tag);
  if (!where) return std::nullopt;
  const auto& [file, header] = *where;
  std::error_code ec;
  const auto bytes = fs::file_size(file, ec);
  if (ec) return std::nullopt;  // none yet
  // Each said once a process: a run reads a side file several times (the
  // device choice, the trial, the count after the solve).
  if (bytes > side_max_bytes + 256) {
    const std::string msg = file + ": " + std::to_string(bytes) + " bytes, not a perron side file; ignored";
    warn_once(msg, msg);
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.compare(0, header.size(), header) != 0) {
    // Another stamp (the source changed: stale, silently) or not ours (a warning).
    if (text.rfind("perron-side 1\nstamp ", 0) != 0) {
      const std::string msg = file + ": not a perron side file; ignored";
      warn_once(msg, msg);
    }
    return std::nullopt;
  }
  return text.substr(header.size());
}

bool side_store(const std::string& source, const cache_options& opt, const std::string& tag,
                const std::string& text) {
  if (!opt.enabled || text.size() > side_max_bytes) return false;
  const std::string dir = cache_dir(opt);
  const auto where = dir.empty() ? std::nullopt : side_file(source, opt, dir, tag);
  if (!where) return false;
  const auto& [file, header] = *where;
  if (!cache_dir_ready(dir, source)) return false;
  try {
    std::error_code ec;
    // output_file writes a pipe or device in place: a FIFO there would block
    // the run until some reader came (the cache is never worth that).
    if (const auto st = fs::status(file, ec); !ec && fs::exists(st) && !fs::is_regular_file(st)) {
      warn(std::string("cannot keep ") + tag + " for " + source + ": " + file + " is not a regular file");
      return false;
    }
    output_file out(file);
    out.write(header + text);
    out.commit();
    return true;
  } catch (const error& e) {
    warn_once(dir, std::string("cannot keep ") + tag + " for " + source + ": " + e.what());
    return false;
  }
}

}  // namespace perron::io
