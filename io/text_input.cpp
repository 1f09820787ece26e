#include "io/text_input.hpp"

#include <fcntl.h>
#include <omp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <new>
#include <thread>

#include "core/error.hpp"
#include "io/inflate.hpp"
#include "io/interrupt.hpp"
#include "io/parallel_inflate.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perron::io::detail {
namespace {

// Deflate cannot expand data by more than about 1032:1, so no gzip stream of
// n bytes inflates to more than this: an upper bound confirmed by the data,
// used to cap what a (possibly forged) size trailer makes us reserve.
constexpr std::uint64_t max_inflate_ratio = 1032;
constexpr std::size_t read_piece = std::size_t(1) << 20;  // compressed bytes per read

[[noreturn]] void throw_errno(const std::string& path, int err) {
  if (err == ENOENT) throw io_error(path, "no such file");
  if (err == EACCES) throw io_error(path, "permission denied");
  if (err == EISDIR) throw io_error(path, "is a directory, not a file");
  throw io_error(path, std::strerror(err));
}

// Until `fd` has bytes to read, its end, or an error read() will report: a
// pipe or a named pipe may wait for ever, so the wait runs the thread's
// interrupt check (io/interrupt.hpp) every interrupt_poll_ms and after a
// signal. A regular file is ready at once.
void wait_readable(int fd) {
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, interrupt_poll_ms);
    if (r > 0 || (r < 0 && errno != EINTR)) return;
    check_interrupt();
  }
}

}  // namespace

std::size_t read_fully(int fd, char* out, std::size_t size, const std::string& path) {
  std::size_t done = 0;
  while (done < size) {
    wait_readable(fd);
    const ssize_t r = ::read(fd, out + done, size - done);
    if (r < 0) {
      // A descriptor left non-blocking by the caller (EAGAIN) waits in poll as any other.
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
        check_interrupt();
        continue;
      }
      throw_errno(path, errno);
    }
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  return done;
}

int open_for_reading(const std::string& path) {
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno != EINTR) throw_errno(path, errno);
    check_interrupt();  // a named pipe's open waits for a writer
  }
}

namespace {

std::size_t pread_fully(int fd, char* out, std::size_t size, std::uint64_t offset, int& err) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t r = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      err = errno;
      return done;
    }
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  return done;
}

// A regular file of known size: parallel pread of large pieces straight into
// the buffer, so page faults and copies are spread over the threads.
text_buffer read_regular(int fd, const std::string& path, std::uint64_t size, unsigned threads) {
  // Read whole: within the memory free (a file larger than memory filled it until the OOM killer).
  perron::check_host_memory(double(size), path + ": reading its " + std::to_string(size) + " bytes whole");
  text_buffer buf(static_cast<std::size_t>(size));
  constexpr std::uint64_t piece = std::uint64_t(4) << 20;
  const std::int64_t pieces = static_cast<std::int64_t>((size + piece - 1) / piece);
  int first_err = 0;
  bool short_read = false;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (pieces > 1)
  for (std::int64_t k = 0; k < pieces; ++k) {
    const std::uint64_t off = static_cast<std::uint64_t>(k) * piece;
    const std::size_t len = static_cast<std::size_t>(std::min(piece, size - off));
    int err = 0;
    const std::size_t got = pread_fully(fd, buf.mutable_data() + off, len, off, err);
    if (err != 0 || got != len) {
#pragma omp critical(perron_read_regular)
      {
        if (err != 0 && first_err == 0) first_err = err;
        if (got != len) short_read = true;
      }
    }
  }
  if (first_err != 0) throw_errno(path, first_err);
  if (short_read) throw io_error(path, "the file became shorter while it was being read");
  buf.set_size(static_cast<std::size_t>(size));
  return buf;
}

// Room for at least one more byte of a text of unknown size, `want` bytes of
// capacity where the memory perron may use allows, never more: past it, one
// error with the bytes read so far and the bytes free (a pipe or device that
// never ends, like /dev/zero, filled the host until the out-of-memory killer).
void grow_within_memory(text_buffer& buf, std::size_t want, const std::string& path) {
  const std::size_t limit = perron::host_memory_limit();
  if (buf.size() >= limit) {
    const char* env = std::getenv("PERRON_MEMORY_LIMIT");
    throw dimension_error(path + ": its text goes on past the " + std::to_string(buf.size()) +
                          " bytes read, more than the " + std::to_string(limit) + " bytes of memory " +
                          (env && *env ? "that PERRON_MEMORY_LIMIT allows" : "free on this host") +
                          " (a pipe or device is read whole)");
  }
  buf.reserve(std::max(buf.size() + 1, std::min(want, limit)));
}

// The first bytes of a text of unknown size (a pipe, a device): a NUL or
// another control byte there is binary data, not Matrix Market or edge-list
// text, and is refused at once (naming its line) instead of being read to
// the end (/dev/zero, /dev/urandom never end). An archive or a compressed
// stream passes, read whole (within memory) for the archive reader.
void check_text_start(const char* p, std::size_t n, const std::string& path) {
  // A tar, a zip or a bzip2, xz or zstd stream through a pipe: the load reads it through libarchive.
  if (is_tar(std::string_view(p, n)) || has_zip_magic(p, n) || has_packed_magic(p, n)) return;
  constexpr std::size_t checked = 4096;
  const char* end = p + std::min(n, checked);
  for (const char* q = p; q != end; ++q) {
    const auto c = static_cast<unsigned char>(*q);
    if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v') || c == 0x7f)
      throw parse_error(path, 1 + count_newlines(p, q),
                        "binary data (byte " + describe_char(*q) + "), not text");
  }
}

// Inflates everything `pull` gives into one text buffer, within the memory
// free (a gzip bomb, or an endless stream), its first bytes checked for text.
text_buffer inflate_all(const std::string& name, std::uint64_t expected_size, gzip_inflater::pull_fn pull) {
  gzip_inflater z(name, std::move(pull));
  text_buffer out;
  grow_within_memory(out, static_cast<std::size_t>(std::max<std::uint64_t>(expected_size, 1 << 16)), name);
  for (bool first = true;; first = false) {
    if (out.room() == 0) {
      char more = 0;
      if (z.read(&more, 1) == 0) return out;
      grow_within_memory(out, out.capacity() + std::max<std::size_t>(out.capacity() / 2, 1 << 16), name);
      *out.tail() = more;
      out.set_size(out.size() + 1);
    }
    const std::size_t room = out.room();
    const std::size_t got = z.read(out.tail(), room);
    out.set_size(out.size() + got);
    if (first) check_text_start(out.data(), out.size(), name);
    if (got < room) return out;
  }
}

// Pipes, /dev/stdin and the like: read to the end, growing geometrically
// within the memory free (grow_within_memory), the first bytes checked for
// text. A gzip stream is inflated as it is read (`gzip` set), so that neither
// its compressed bytes nor its text are held beyond that memory.
text_buffer read_stream(int fd, const std::string& path, bool& gzip) {
  text_buffer buf(read_piece);
  buf.set_size(read_fully(fd, buf.mutable_data(), read_piece, path));
  gzip = has_gzip_magic(buf.data(), buf.size());
  if (gzip) {
    text_buffer head = std::move(buf);
    std::size_t pos = 0;
    return inflate_all(path, 0, [&](unsigned char* out, std::size_t n) {
      if (pos < head.size()) {
        const std::size_t k = std::min(n, head.size() - pos);
        std::memcpy(out, head.data() + pos, k);
        pos += k;
        return k;
      }
      return read_fully(fd, reinterpret_cast<char*>(out), n, path);
    });
  }
  check_text_start(buf.data(), buf.size(), path);
  if (buf.size() < read_piece) return buf;  // read_fully stops short only at end of file
  for (;;) {
    char more = 0;
    if (read_fully(fd, &more, 1, path) == 0) break;
    grow_within_memory(buf, buf.capacity() * 2, path);
    *buf.tail() = more;
    buf.set_size(buf.size() + 1);
    const std::size_t room = buf.room();
    const std::size_t got = read_fully(fd, buf.tail(), room, path);
    buf.set_size(buf.size() + got);
    if (got < room) break;
  }
  return buf;
}

// Initial output guess for a gzip file: its size trailer (the uncompressed
// size mod 2^32 of the last member), never more than deflate could produce.
std::uint64_t gzip_size_hint(std::uint64_t compressed, std::uint32_t trailer) {
  const std::uint64_t cap = compressed * max_inflate_ratio + (1 << 20);
  std::uint64_t hint = trailer;
  if (hint < compressed) hint = compressed * 4;  // wrapped past 4 GiB, or several members
  return std::min(hint, cap) + 1;
}

}  // namespace

file_descriptor::~file_descriptor() {
  if (fd_ >= 0) ::close(fd_);
}

void text_buffer::reserve(std::size_t capacity) {
  if (capacity <= capacity_ && data_) return;
  if (capacity > std::numeric_limits<std::size_t>::max() - 1) throw std::bad_alloc();
  char* old = data_.release();
  char* p = static_cast<char*>(std::realloc(old, capacity + 1));
  if (!p) {
    data_.reset(old);
    throw std::bad_alloc();
  }
  data_.reset(p);
  capacity_ = capacity;
  p[size_] = '\0';
  perron::advise_huge_pages(p, capacity + 1);
}

void text_buffer::set_size(std::size_t size) {
  if (!data_) reserve(size);
  size_ = size;
  data_.get()[size_] = '\0';
}

void check_parse_growth(const std::string& name, std::size_t entries, std::size_t slots,
                        std::size_t slot_bytes, std::size_t capacity, const char* more) {
  const double held = double(entries) * double(slot_bytes);
  const double total = double(entries) + double(slots);
  const double bytes = total * double(slot_bytes) + (total > double(capacity) ? held : 0.0);
  const std::string what = entries == 0
                               ? name + ": parsing up to " + std::to_string(slots) + " entries (a line each)"
                               : name + ": parsing on past " + std::to_string(entries) + " entries (up to " +
                                     std::to_string(entries + slots) + " " + more + ")";
  perron::check_host_memory_holding(bytes, held, what);
}

std::size_t count_newlines(const char* p, const char* end) {
  std::size_t n = 0;
#if defined(__SSE2__)
  // Each compare gives 0xff (= -1) per newline byte; subtracting it counts
  // per byte lane, and _mm_sad_epu8 sums the lanes before they can overflow.
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i zero = _mm_setzero_si128();
  while (end - p >= 16) {
    __m128i lanes = zero;
    const std::size_t blocks = std::min<std::size_t>(static_cast<std::size_t>(end - p) / 16, 255);
    for (std::size_t b = 0; b < blocks; ++b, p += 16)
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), nl));
    const __m128i sums = _mm_sad_epu8(lanes, zero);
    n += static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) +
         static_cast<std::size_t>(_mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; p != end; ++p) n += *p == '\n';
  return n;
}

bool is_tar(std::string_view head) {
  // A ustar header block (POSIX.1-1988; GNU tar's "ustar  " too): "ustar" at
  // byte 257 and, so that a text that holds the word there is not taken for
  // one, the block's checksum: the octal number at bytes 148-155, the sum of
  // its 512 bytes with those eight counted as blanks.
  constexpr std::size_t block = 512, magic_at = 257, sum_at = 148, sum_bytes = 8;
  if (head.size() < block || head.substr(magic_at, 5) != "ustar") return false;
  unsigned long sum = 0;
  for (std::size_t i = 0; i < block; ++i)
    sum += (i >= sum_at && i < sum_at + sum_bytes) ? ' ' : static_cast<unsigned char>(head[i]);
  unsigned long stored = 0;
  std::size_t i = sum_at;
  while (i < sum_at + sum_bytes && head[i] == ' ') ++i;
  const std::size_t digits_from = i;
  for (; i < sum_at + sum_bytes && head[i] >= '0' && head[i] <= '7'; ++i)
    stored = stored * 8 + (head[i] - '0');
  return i > digits_from && stored == sum;
}

bool has_zip_magic(const void* data, std::size_t size) {
  return size >= 4 && std::memcmp(data, "PK\x03\x04", 4) == 0;
}

bool has_packed_magic(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  // bzip2: "BZh", the block size 1-9, then a block's magic (pi's digits in
  // BCD) or, for an empty stream, the end's (sqrt(pi)'s): a text may open with "BZh1".
  const bool bzip2 = size >= 10 && p[0] == 'B' && p[1] == 'Z' && p[2] == 'h' && p[3] >= '1' && p[3] <= '9' &&
                     (std::memcmp(p + 4, "\x31\x41\x59\x26\x53\x59", 6) == 0 ||
                      std::memcmp(p + 4, "\x17\x72\x45\x38\x50\x90", 6) == 0);
  const bool xz = size >= 6 && std::memcmp(p,
                                           "\xFD"
                                           "7zXZ\x00",
                                           6) == 0;
  const bool zstd = size >= 4 && std::memcmp(p, "\x28\xB5\x2F\xFD", 4) == 0;
  return bzip2 || xz || zstd;
}

bool has_gzip_magic(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  return size >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

unsigned thread_count(unsigned requested) {
  if (requested != 0) return requested;
  const int t = omp_get_max_threads();
  return t > 0 ? static_cast<unsigned>(t) : 1u;
}

text_buffer read_file(const std::string& path, unsigned threads, read_stats* stats) {
  const auto start = std::chrono::steady_clock::now();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw_errno(path, errno);
  if (S_ISDIR(st.st_mode)) throw io_error(path, "is a directory, not a file");
  file_descriptor fd(open_for_reading(path));

  unsigned char magic[2] = {0, 0};
  // A regular file whose size reads 0 may still have content (procfs,
  // sysfs: /proc/self/status): read as a stream, to its end, not as empty.
  const bool regular = S_ISREG(st.st_mode) && st.st_size > 0;
  std::size_t magic_bytes = 0;
  if (regular) {
    int err = 0;
    magic_bytes = pread_fully(fd.get(), reinterpret_cast<char*>(magic), 2, 0, err);
    if (err != 0) throw_errno(path, err);
  }

  text_buffer text;
  bool gzip = regular ? has_gzip_magic(magic, magic_bytes) : false;
  if (regular && gzip) {
    const auto size = static_cast<std::uint64_t>(st.st_size);
    std::uint32_t trailer = 0;
    if (size >= 18) {
      unsigned char t[4];
      int err = 0;
      if (pread_fully(fd.get(), reinterpret_cast<char*>(t), 4, size - 4, err) == 4)
        trailer = std::uint32_t(t[0]) | std::uint32_t(t[1]) << 8 | std::uint32_t(t[2]) << 16 |
                  std::uint32_t(t[3]) << 24;
    }
    const int f = fd.get();
    text = inflate_all(path, gzip_size_hint(size, trailer), [&](unsigned char* out, std::size_t n) {
      return read_fully(f, reinterpret_cast<char*>(out), n, path);
    });
  } else if (regular) {
    text = read_regular(fd.get(), path, static_cast<std::uint64_t>(st.st_size), thread_count(threads));
  } else {
    text = read_stream(fd.get(), path, gzip);
  }
  if (stats) {
    stats->file_bytes = static_cast<std::uint64_t>(st.st_size);
    stats->gzip = gzip;
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return text;
}

ranged_file::ranged_file(const std::string& path) : path_(path), fd_(open_for_reading(path)) {
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) throw_errno(path, errno);
  if (S_ISDIR(st.st_mode)) throw io_error(path, "is a directory, not a file");
  if (!S_ISREG(st.st_mode)) throw io_error(path, "is not a regular file (it cannot be read by byte ranges)");
  size_ = static_cast<std::uint64_t>(st.st_size);
}

text_buffer ranged_file::read(std::uint64_t first, std::uint64_t last) const {
  const auto n = static_cast<std::size_t>(last - first);
  text_buffer buf(n);
  int err = 0;
  const std::size_t got = pread_fully(fd_.get(), buf.mutable_data(), n, first, err);
  if (err != 0) throw_errno(path_, err);
  if (got != n) throw io_error(path_, "the file became shorter while it was being read");
  buf.set_size(n);
  return buf;
}

std::uint64_t ranged_file::line_start(std::uint64_t pos, std::uint64_t lo) const {
  if (pos <= lo) return lo;
  if (pos >= size_) return size_;
  char piece[1 << 16];
  for (std::uint64_t at = pos - 1; at < size_;) {
    int err = 0;
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof piece, size_ - at));
    const std::size_t got = pread_fully(fd_.get(), piece, want, at, err);
    if (err != 0) throw_errno(path_, err);
    if (got == 0) break;
    if (const void* nl = std::memchr(piece, '\n', got))
      return at + static_cast<std::uint64_t>(static_cast<const char*>(nl) - piece) + 1;
    at += got;
  }
  return size_;
}

namespace {
class file_windows final : public text_windows {
 public:
  file_windows(const std::string& path, std::size_t window)
      : file_(path), window_(std::max<std::size_t>(window, 1)) {
    stats_.file_bytes = file_.size();
  }
  std::string_view next() override {
    check_interrupt();  // a window's parse (GraphML at ~33 MB/s on one thread) may take seconds
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t size = file_.size();
    if (at_ >= size) {
      buf_ = text_buffer();
      return {};
    }
    const std::uint64_t end = file_.line_start(std::min<std::uint64_t>(size, at_ + window_), at_);
    buf_ = file_.read(at_, end);
    at_ = end;
    stats_.text_bytes += buf_.size();
    stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return buf_.view();
  }
  const read_stats& stats() const override { return stats_; }
  std::uint64_t size_hint() const override { return file_.size(); }

 private:
  ranged_file file_;
  std::size_t window_;
  std::uint64_t at_ = 0;
  text_buffer buf_;
  read_stats stats_;
};
}  // namespace

std::unique_ptr<text_windows> open_file_windows(const std::string& path, std::size_t window) {
  return std::make_unique<file_windows>(path, window);
}

text_buffer gunzip(const std::string& name, const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t trailer = 0;
  if (size >= 18)
    trailer = std::uint32_t(p[size - 4]) | std::uint32_t(p[size - 3]) << 8 |
              std::uint32_t(p[size - 2]) << 16 | std::uint32_t(p[size - 1]) << 24;
  std::size_t pos = 0;
  return inflate_all(name, gzip_size_hint(size, trailer), [&](unsigned char* out, std::size_t n) {
    const std::size_t k = std::min(n, size - pos);
    std::memcpy(out, p + pos, k);
    pos += k;
    return k;
  });
}

std::vector<line_chunk> split_lines(const char* begin, const char* end, std::uint64_t first_line,
                                    unsigned threads, std::size_t chunk_bytes) {
  std::vector<line_chunk> chunks;
  const std::size_t bytes = static_cast<std::size_t>(end - begin);
  if (bytes == 0) return chunks;
  std::size_t count;
  if (chunk_bytes != 0) {
    count = (bytes + chunk_bytes - 1) / chunk_bytes;
  } else {
    // A few chunks per thread balance uneven lines; below ~256 KiB a chunk is
    // not worth a thread.
    constexpr std::size_t min_chunk = std::size_t(256) << 10;
    count = std::min<std::size_t>(std::size_t(threads) * 4, std::max<std::size_t>(1, bytes / min_chunk));
  }
  count = std::max<std::size_t>(count, 1);
  const char* cut = begin;
  for (std::size_t k = 1; k <= count && cut != end; ++k) {
    const char* target = k == count ? end : begin + bytes / count * k;
    if (target < cut) continue;
    const char* stop = target == end ? end : next_line(target, end);
    if (target != end && target != begin && target[-1] == '\n') stop = target;  // already at a line start
    if (stop == cut) continue;
    line_chunk c;
    c.begin = cut;
    c.end = stop;
    chunks.push_back(c);
    cut = stop;
  }
  const auto n = static_cast<std::int64_t>(chunks.size());
#pragma omp parallel for schedule(static) num_threads(threads) if (n > 1)
  for (std::int64_t k = 0; k < n; ++k) {
    auto& c = chunks[static_cast<std::size_t>(k)];
    const std::size_t newlines = count_newlines(c.begin, c.end);
    c.lines = newlines + (c.end[-1] == '\n' ? 0 : 1);
  }
  std::uint64_t line = first_line;
  std::size_t slot = 0;
  for (auto& c : chunks) {
    c.first_line = line;
    c.first_slot = slot;
    // Only the last chunk can end without a newline, so lines == newlines elsewhere.
    line += c.lines;
    slot += c.lines;
  }
  return chunks;
}

std::uint64_t line_of(const line_chunk& chunk, const char* pos) {
  return chunk.first_line + count_newlines(chunk.begin, pos);
}

void throw_first_error(const std::string& file, const std::vector<line_chunk>& chunks,
                       const std::vector<chunk_error>& errors) {
  for (std::size_t k = 0; k < errors.size(); ++k)
    if (errors[k]) throw parse_error(file, line_of(chunks[k], errors[k].line), errors[k].reason);
}

std::string describe_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", u);
  return buf;
}

std::string quote_token(const char* p, const char* end) {
  const char* q = p;
  while (q != end && !is_blank(*q) && *q != '\n' && !(*q == '\r' && (q + 1 == end || q[1] == '\n'))) ++q;
  return quote_bytes(p, q);
}

std::string quote_bytes(const char* p, const char* q) {
  constexpr std::size_t max_shown = 24;
  std::string s;
  for (const char* c = p; c != q && s.size() < max_shown; ++c) {
    const auto u = static_cast<unsigned char>(*c);
    if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      s += buf;
    } else {
      s += *c;
    }
  }
  if (static_cast<std::size_t>(q - p) > max_shown) s += "...";
  return "'" + s + "'";
}

const char* scan_signed(const char* p, const char* end, std::int64_t& value) {
  bool negative = false;
  if (p != end && (*p == '-' || *p == '+')) {
    negative = *p == '-';
    ++p;
  }
  if (p != end && (*p == '+' || *p == '-')) return nullptr;
  // Exact bounds: up to 2^63 - 1, and down to -2^63.
  const std::uint64_t limit = UINT64_C(0x7fffffffffffffff) + (negative ? 1 : 0);
  const char* first = p;
  std::uint64_t magnitude = 0;
  while (p != end && static_cast<unsigned char>(*p - '0') < 10) {
    const auto digit = static_cast<unsigned>(*p - '0');
    if (magnitude >= limit / 10 && (magnitude > limit / 10 || digit > limit % 10)) return nullptr;
    magnitude = magnitude * 10 + digit;
    ++p;
  }
  if (p == first) return nullptr;
  value = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return p;
}

std::string real_problem(const char* p, const char* end) {
  const char* s = p;
  if (s != end && *s == '+') {
    ++s;
    if (s != end && (*s == '-' || *s == '+')) return "is not a number";
  }
  double v = 0;
  const auto [q, ec] = std::from_chars(s, end, v, std::chars_format::general);
  if (ec == std::errc::invalid_argument) return "is not a number";
  if (ec == std::errc() && !std::isfinite(v)) return "is not a finite number";
  if (ec == std::errc::result_out_of_range) {
    std::string token(s, static_cast<std::size_t>(q - s));
    if (!std::isfinite(std::strtod(token.c_str(), nullptr))) return "overflows double precision";
  }
  if (!at_delimiter(q, end)) return "is not a number (unexpected " + describe_char(*q) + ")";
  return "";
}

std::vector<std::string_view> line_tokens(const char* line, const char* end) {
  std::vector<std::string_view> tokens;
  const char* p = line;
  for (;;) {
    p = skip_blanks(p, end);
    if (p == end || *p == '\n' || (*p == '\r' && (p + 1 == end || p[1] == '\n'))) break;
    const char* q = p;
    while (q != end && !is_blank(*q) && *q != '\n' && !(*q == '\r' && (q + 1 == end || q[1] == '\n'))) ++q;
    tokens.emplace_back(p, static_cast<std::size_t>(q - p));
    p = q;
  }
  return tokens;
}

}  // namespace perron::io::detail

namespace perron::io::detail {
namespace {

// The uncompressed size a gzip file's trailer gives (capped by what deflate
// can produce from its size; see gzip_size_hint).
std::uint64_t size_hint_of(int fd, std::uint64_t size) {
  if (size < 18) return 0;
  unsigned char t[4];
  int err = 0;
  if (pread_fully(fd, reinterpret_cast<char*>(t), 4, size - 4, err) != 4) return 0;
  return gzip_size_hint(size, std::uint32_t(t[0]) | std::uint32_t(t[1]) << 8 | std::uint32_t(t[2]) << 16 |
                                  std::uint32_t(t[3]) << 24);
}

// Three ways to make the windows of a gzip file, by what inflates it. In the
// first two, producer / consumer over three window buffers: the producer
// thread inflates into a free buffer, cuts it after its last newline (the rest
// starts the next window) and queues it; next() hands the oldest queued window
// to the parser and frees the one it had; errors on the producer are rethrown
// by next(). The parse leaves the producer's cores to it.
// - the sequential inflater (a small file, few threads, or a file that cannot
//   be mapped) on the producer thread: one core.
// - the parallel inflater (io/parallel_inflate.hpp), pipelined (opt-in:
//   PERRON_GUNZIP_PIPELINE=1): the producer thread is the master of its own
//   OpenMP team of `inflate_threads`, the parse runs on the other threads, so
//   the parse of window k overlaps the inflating of window k + 1 on disjoint
//   cores (an idle OpenMP thread then spins on a core of its own team, not on
//   the other's). On the 16-core host it lost to the next way: both stages
//   are CPU-bound and parallel, so splitting the cores only adds the wait for
//   the first window and the parse of the last.
// - the parallel inflater, taking turns (the default): next() itself
//   inflates the next window on the parser's own pool; inflating and parsing
//   take turns on all cores.
class gzip_windows final : public text_windows {
 public:
  gzip_windows(const std::string& path, std::size_t window, unsigned threads, const gzip_tuning& tuning)
      : path_(path),
        window_(window == auto_window ? default_window : std::max<std::size_t>(window, 4096)),
        split_lines_(tuning.split_lines) {
    max_line_ = window_;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw_errno(path, errno);
    if (S_ISDIR(st.st_mode)) throw io_error(path, "is a directory, not a file");
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw_errno(path, errno);
    stats_.file_bytes = static_cast<std::uint64_t>(st.st_size);
    stats_.gzip = true;
    hint_ = size_hint_of(fd_, stats_.file_bytes);
    const unsigned all = thread_count(threads);
    bool pipeline = tuning.pipeline;
    if (const char* e = std::getenv("PERRON_GUNZIP_PIPELINE"); e && *e) pipeline = std::strcmp(e, "0") != 0;
    // Mapped, the file can be inflated in parallel where it is large enough
    // (the reader decides); pages behind the inflater are dropped as it goes,
    // so the mapping does not grow the resident set by the whole file.
    if (S_ISREG(st.st_mode) && stats_.file_bytes > 0) {
      map_size_ = static_cast<std::size_t>(stats_.file_bytes);
      void* p = ::mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE, fd_, 0);
      if (p != MAP_FAILED) {
        map_ = p;
        ::madvise(map_, map_size_, MADV_SEQUENTIAL);
        unsigned min_threads = std::max(2u, tuning.min_threads ? tuning.min_threads : 6u);
        if (const char* e = std::getenv("PERRON_PARALLEL_GUNZIP"); e && *e)
          min_threads = std::strcmp(e, "0") == 0 ? UINT_MAX : 2;
        parallel_inflate_options po;
        po.threads = all;
        po.chunk_bytes = tuning.chunk_bytes;
        po.min_file_bytes = tuning.min_file_bytes;
        po.min_threads = all >= min_threads ? 2 : UINT_MAX;  // the decision is on all threads
        if (pipeline && all >= min_threads) {
          // Three quarters inflate (it costs about 3x the parse's CPU time per
          // byte on Matrix Market text), at least 2; the parse gets the rest,
          // at least 1 (2 threads forced parallel run 3 threads).
          unsigned ti = tuning.inflate_threads ? tuning.inflate_threads : all - std::max(1u, all / 4);
          if (const char* e = std::getenv("PERRON_GUNZIP_INFLATE_THREADS"); e && *e)
            ti = static_cast<unsigned>(std::max(0L, std::strtol(e, nullptr, 10)));
          ti = std::max(2u, ti);
          po.threads = ti;
          po.pipelined = true;
        }
        par_ = std::make_unique<parallel_gzip_reader>(path_, static_cast<const unsigned char*>(map_),
                                                      map_size_, po);
        if (par_->report().parallel && po.pipelined) busy_ = po.threads;
      }
    }
    const bool parallel = par_ && par_->report().parallel;
    if (parallel && busy_ == 0) {
      inline_ = true;
      buf_[0].reserve(window_);
      return;
    }
    if (!parallel) busy_ = 1;
    if (window == auto_window && busy_ > 1) {
      // A few windows per file (the parse of one overlaps the inflating of
      // the next), lines still up to default_window long (fill() grows).
      max_line_ = default_window;
      window_ = std::size_t(512) << 10;
      while (window_ < (std::size_t(4) << 20) && window_ < hint_ / 8) window_ *= 2;
    }
    if (!par_)
      seq_ = std::make_unique<gzip_inflater>(path_, [this](unsigned char* out, std::size_t n) {
        return read_fully(fd_, reinterpret_cast<char*>(out), n, path_);
      });
    for (int k = 0; k < slots; ++k) {
      buf_[k].reserve(window_);
      free_.push_back(k);
    }
    producer_ = std::thread([this] { produce(); });
  }
  ~gzip_windows() override {
    if (producer_.joinable()) {
      {
        std::lock_guard<std::mutex> lock(m_);
        stop_ = true;
      }
      cv_.notify_all();
      producer_.join();
    }
    par_.reset();
    if (map_) ::munmap(map_, map_size_);
    ::close(fd_);
  }

  std::string_view next() override {
    check_interrupt();
    if (inline_) {
      if (ended_) return {};
      const auto start = std::chrono::steady_clock::now();
      // Empty windows (all carry) are skipped; the end comes as an empty view.
      while (!ended_ && !fill(buf_[0], ended_)) {
      }
      stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (ended_) stats_.text_bytes = total_out();
      return buf_[0].view();
    }
    std::unique_lock<std::mutex> lock(m_);
    if (held_ >= 0) free_.push_back(std::exchange(held_, -1));
    cv_.notify_all();
    cv_.wait(lock, [&] { return !full_.empty() || done_; });
    if (full_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return {};
    }
    held_ = full_.front();
    full_.pop_front();
    return buf_[held_].view();
  }
  const read_stats& stats() const override { return stats_; }
  unsigned busy_threads() const override { return inline_ ? 0 : busy_; }
  std::uint64_t size_hint() const override { return hint_; }

 private:
  static constexpr int slots = 3;

  int take_free() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !free_.empty() || stop_; });
    if (stop_) return -1;
    const int k = free_.front();
    free_.pop_front();
    return k;
  }
  void queue(int k) {
    std::lock_guard<std::mutex> lock(m_);
    full_.push_back(k);
    cv_.notify_all();
  }
  void produce() {
    try {
      produce_windows();
    } catch (...) {
      std::lock_guard<std::mutex> lock(m_);
      error_ = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(m_);
    done_ = true;
    cv_.notify_all();
  }
  void produce_windows();
  std::size_t inflate(char* out, std::size_t room);
  std::uint64_t total_out() const { return par_ ? par_->total_out() : seq_->total_out(); }
  bool fill(text_buffer& b, bool& end);

  std::string path_;
  std::size_t window_;
  int fd_ = -1;
  void* map_ = nullptr;  // the compressed file, mapped for the parallel inflater
  std::size_t map_size_ = 0;
  std::size_t dropped_ = 0;  // mapped bytes already given back
  std::unique_ptr<parallel_gzip_reader> par_;
  std::unique_ptr<gzip_inflater> seq_;
  bool inline_ = false;  // next() inflates (parallel), no producer thread
  bool ended_ = false;
  std::vector<char> carry_;  // the partial last line of the previous window
  bool first_ = true;
  std::uint64_t hint_ = 0;
  read_stats stats_;
  text_buffer buf_[slots];
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<int> free_, full_;
  int held_ = -1;
  bool stop_ = false, done_ = false;
  std::exception_ptr error_;
  unsigned busy_ = 0;         // threads the producer keeps busy
  std::size_t max_line_ = 0;  // longest line a later window may carry
  bool split_lines_ = false;  // windows end anywhere (gzip_tuning::split_lines)
  std::thread producer_;
};

std::size_t gzip_windows::inflate(char* out, std::size_t room) {
  if (!par_) return seq_->read(out, room);
  const std::size_t got = par_->read(out, room);
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t done = static_cast<std::size_t>(par_->consumed_input()) / page * page;
  if (done > dropped_) {
    ::madvise(static_cast<char*>(map_) + dropped_, done - dropped_, MADV_DONTNEED);
    dropped_ = done;
  }
  return got;
}

// True when [p, p + n) holds only comment or blank lines ('%' or '#' first) as
// far as it goes: the header it starts cannot have ended yet.
bool only_comments(const char* p, std::size_t n) {
  const char* end = p + n;
  for (const char* line = p; line != end;) {
    const char c = *line;
    if (c != '%' && c != '#' && c != '\n' && c != '\r') return false;
    const char* nl = static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(end - line)));
    if (!nl) return true;
    line = nl + 1;
  }
  return true;
}

// One window into `b`: the carried partial line, then inflated text up to
// the window's size, cut after its last newline. Returns false when it holds
// nothing; `end` is set once the text has ended.
bool gzip_windows::fill(text_buffer& b, bool& end) {
  if (carry_.size() >= window_) b.reserve(carry_.size() + window_);
  if (!carry_.empty()) std::memcpy(b.mutable_data(), carry_.data(), carry_.size());
  const std::size_t room = b.capacity() - carry_.size();
  const std::size_t got = inflate(b.mutable_data() + carry_.size(), room);
  end = got < room;
  std::size_t size = carry_.size() + got, cut = size;
  if (!end && !split_lines_ && first_ && size < max_line_ && only_comments(b.data(), size)) {
    // The header (banner, comments, size line) must be in the first window:
    // a long run of comments grows it, up to max_line_.
    carry_.assign(b.data(), b.data() + size);
    b.set_size(0);
    return false;
  }
  if (!end && !split_lines_) {
    const char* nl = static_cast<const char*>(::memrchr(b.data(), '\n', size));
    // The first window goes out whole even without a newline: its header
    // check fails with the format's own message (a gzip bomb of zeros).
    if (nl) {
      cut = static_cast<std::size_t>(nl - b.data()) + 1;
    } else if (!first_) {
      // All one line: carried whole (the next window grows) up to max_line_.
      if (size >= max_line_)
        throw io_error(path_, "a line longer than " +
                                  (max_line_ >= (1u << 20) ? std::to_string(max_line_ >> 20) + " MiB"
                                                           : std::to_string(max_line_) + " bytes") +
                                  " after uncompressed byte " + std::to_string(total_out() - size) +
                                  ": not Matrix Market or edge-list text (a GraphML or GML file is "
                                  "read as one when its name ends in .graphml.gz or .gml.gz)");
      cut = 0;
    }
  }
  carry_.assign(b.data() + cut, b.data() + size);
  b.set_size(cut);
  first_ = false;
  return cut > 0;
}

void gzip_windows::produce_windows() {
  const auto start = std::chrono::steady_clock::now();
  double waited = 0;
  for (bool end = false; !end;) {
    const auto wait_start = std::chrono::steady_clock::now();
    const int k = take_free();
    waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - wait_start).count();
    if (k < 0) return;
    if (fill(buf_[k], end)) {
      queue(k);
    } else {
      std::lock_guard<std::mutex> lock(m_);
      free_.push_back(k);
    }
  }
  stats_.text_bytes = total_out();
  stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - waited;
}

}  // namespace

std::unique_ptr<text_windows> open_gzip_windows(const std::string& path, std::size_t window, unsigned threads,
                                                const gzip_tuning& tuning) {
  return std::make_unique<gzip_windows>(path, window, threads, tuning);
}

namespace {
// How many lines of `text` are neither blank nor comments (opened by one of
// `comments` after blanks), counted up to `most`.
std::size_t data_lines(std::string_view text, const char* comments, std::size_t most) {
  if (text.size() >= 3 && std::memcmp(text.data(), "\xEF\xBB\xBF", 3) == 0) text.remove_prefix(3);
  const char* p = text.data();
  const char* end = p + text.size();
  std::size_t n = 0;
  while (p != end && n < most) {
    while (p != end && (is_blank(*p) || *p == '\r')) ++p;
    if (p == end) break;
    if (*p != '\n' && (*p == '\0' || !std::strchr(comments, *p))) ++n;  // (strchr finds '\0' in any)
    p = next_line(p, end);
  }
  return n;
}
}  // namespace

std::string_view through_header(std::string_view first, text_windows& more, std::string& held,
                                const std::string& name, const char* comments, std::size_t lines) {
  std::size_t seen = data_lines(first, comments, lines);
  if (first.empty() || seen >= lines) return first;
  held.assign(first);  // (the next call ends the view's life)
  for (std::string_view w = more.next(); !w.empty(); w = more.next()) {
    perron::check_host_memory(double(held.size() + w.size()), name + ": holding its header of " +
                                                                  std::to_string(held.size() + w.size()) +
                                                                  " bytes of comments and more");
    held.append(w);
    seen += data_lines(w, comments, lines - seen);
    if (seen >= lines) break;
  }
  return held;
}

bool is_gzip_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  file_descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return false;
  unsigned char magic[2] = {0, 0};
  int err = 0;
  return has_gzip_magic(magic, pread_fully(fd.get(), reinterpret_cast<char*>(magic), 2, 0, err));
}

}  // namespace perron::io::detail
