// Machinery shared by the text readers (Matrix Market, SNAP), internal to io/:
// reading a whole file into one buffer (plain, or gzip streamed through zlib,
// told apart by the magic bytes), splitting a buffer into line-aligned chunks
// for the parallel parse, turning a position back into an exact line number,
// and the small number scanners the parse loops are built from.
//
// The readers parse every chunk with the same function whether there is one
// chunk (a small file, threads = 1) or many, so the single-threaded and the
// parallel path cannot disagree.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/memory.hpp"
#include "../core/text.hpp"

namespace perron::io::detail {

// A malloc'ed byte buffer with one NUL kept past the end. malloc/realloc
// rather than std::vector: no zero-fill of bytes about to be overwritten, and
// glibc grows large blocks with mremap instead of copying.
class text_buffer {
 public:
  text_buffer() = default;
  explicit text_buffer(std::size_t capacity) { reserve(capacity); }
  text_buffer(text_buffer&& o) noexcept
      : data_(std::move(o.data_)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  text_buffer& operator=(text_buffer&& o) noexcept {
    data_ = std::move(o.data_);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
    return *this;
  }

  const char* data() const { return data_ ? data_.get() : ""; }
  char* mutable_data() { return data_.get(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  std::string_view view() const { return {data(), size_}; }

  void reserve(std::size_t capacity);           // keeps the contents
  void set_size(std::size_t size);              // size <= capacity; writes the NUL
  char* tail() { return data_.get() + size_; }  // first unused byte
  std::size_t room() const { return capacity_ - size_; }

 private:
  struct free_deleter {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, free_deleter> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;  // usable bytes, not counting the NUL
};

// An open file descriptor, closed when the guard goes out of scope.
class file_descriptor {
 public:
  explicit file_descriptor(int fd) : fd_(fd) {}
  ~file_descriptor();
  file_descriptor(const file_descriptor&) = delete;
  file_descriptor& operator=(const file_descriptor&) = delete;
  int get() const { return fd_; }
  // Hands the descriptor over (to close it and see the error); the guard forgets it.
  int release() {
    const int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_;
};

// read() until `size` bytes or the end; returns the bytes read. The wait for
// bytes from a pipe or a named pipe runs the thread's interrupt check
// (io/interrupt.hpp), which may throw; errors name `path`.
std::size_t read_fully(int fd, char* out, std::size_t size, const std::string& path);

// open(path, O_RDONLY): a named pipe's open waits for its writer, a signal
// that interrupts the wait runs the interrupt check and waits again. Errors
// name `path`.
int open_for_reading(const std::string& path);

// std::thread-free helpers around OpenMP.
unsigned thread_count(unsigned requested);  // 0 -> omp_get_max_threads()

struct read_stats {
  std::uint64_t file_bytes = 0;  // bytes on disk
  std::uint64_t text_bytes = 0;  // bytes of text (after decompressing)
  bool gzip = false;
  double seconds = 0;  // reading (and decompressing)
};

// Text handed to a parser in windows of whole lines: a plain file is one
// window; a gzip file is inflated window by window on a second thread (and,
// for a large file, its helpers; io/parallel_inflate.hpp) while
// the parser works on the window before (so memory holds a few windows, not
// the whole text, and a bad header is found in the first window).
class text_windows {
 public:
  virtual ~text_windows() = default;
  // The next run of whole lines (the very first window, and the last, may end
  // without a newline), or an empty view after the last. Valid until the
  // next call.
  virtual std::string_view next() = 0;
  // Complete once next() has returned the empty view.
  virtual const read_stats& stats() const = 0;
  // Cores busy producing the windows meanwhile (the inflater thread): the
  // parse leaves them free, since OpenMP threads waiting at a barrier spin.
  virtual unsigned busy_threads() const { return 0; }
  // About how many bytes of text all windows hold (0: unknown), for reserving
  // the parse's arrays once instead of growing them window by window.
  virtual std::uint64_t size_hint() const { return 0; }
  // Whether every view next() returned stays valid while the windows live
  // (text in memory), not only until the next call (buffers refilled).
  virtual bool views_persist() const { return false; }
  // The parse's thread count for `requested` (0: all).
  unsigned parse_threads(unsigned requested) const {
    const unsigned t = thread_count(requested);
    return t > busy_threads() ? t - busy_threads() : 1;
  }
};

// One window: the whole text.
class whole_text final : public text_windows {
 public:
  explicit whole_text(std::string_view text) : text_(text) { stats_.text_bytes = text.size(); }
  std::string_view next() override { return std::exchange(text_, std::string_view()); }
  const read_stats& stats() const override { return stats_; }
  bool views_persist() const override { return true; }

 private:
  std::string_view text_;
  read_stats stats_;
};

// Windows of about `window` bytes of the inflated gzip file `path` (io_error
// for a missing, corrupt or truncated file, or for a line longer than a
// window past the first one). `window` 0 (auto_window): default_window, or
// with the pipelined inflater a few windows per file (512 KiB to 4 MiB), so
// that the parse of one overlaps the inflating of the next, lines still up to
// default_window long. The file is inflated in parallel when it is large
// enough and there are threads enough (io/parallel_inflate.hpp); tests pass
// tiny chunk sizes through `tuning`.
constexpr std::size_t default_window = std::size_t(8) << 20;
constexpr std::size_t auto_window = 0;
// Who inflates, for `threads` T (0: all):
// - T >= 6 (min_threads) and at least 1 MiB compressed: the parallel inflater,
//   taking turns with the parse on all T threads (next() inflates a window).
//   Pipelined instead (`pipeline`, or PERRON_GUNZIP_PIPELINE=1; from 128 KiB
//   compressed): on its own thread team of `inflate_threads` (default
//   T - T/4) beside the parse on the other T/4, one window apart. Off by
//   default: on the 16-core GPU host it was slower (docs/PERFORMANCE.md, #22
//   item 4): both stages are CPU-bound, and the inflater on 12 cores takes
//   longer than both stages in turn on 16.
// - else ISA-L (or zlib) on one thread, a window ahead of the parse on T - 1.
// The environment variables PERRON_PARALLEL_GUNZIP=0 (sequential) or =1
// (parallel from 2 threads), PERRON_GUNZIP_PIPELINE=0/1 and
// PERRON_GUNZIP_INFLATE_THREADS=N override these, for comparing.
struct gzip_tuning {
  std::size_t chunk_bytes = 0;       // 0: chosen from the size and threads
  std::uint64_t min_file_bytes = 0;  // 0: the default (128 KiB pipelined, else 1 MiB)
  unsigned min_threads = 0;          // 0: the default (6)
  bool pipeline = false;
  unsigned inflate_threads = 0;  // 0: T - T/4
  // Windows that may end inside a line, for parsers that take text cut
  // anywhere (GraphML through expat, GML's lexer): no line is too long. A
  // GraphML or GML file written on one line was refused past 8 MiB.
  bool split_lines = false;
};
std::unique_ptr<text_windows> open_gzip_windows(const std::string& path, std::size_t window = auto_window,
                                                unsigned threads = 0, const gzip_tuning& tuning = {});

// Windows of about `window` bytes of whole lines of the plain (uncompressed,
// regular) file `path`, read one after the other (a window ends at the first
// line end past `window` bytes, so a long line makes a longer window);
// size_hint() is the file's size. io_error as ranged_file.
std::unique_ptr<text_windows> open_file_windows(const std::string& path, std::size_t window = default_window);

// True when `path` is a regular file starting with the gzip magic number.
bool is_gzip_file(const std::string& path);

// `first` (a window of `more`, the first), and where it holds fewer than
// `lines` lines that are neither blank nor comments (opened by one of
// `comments` after blanks; a byte order mark before the first), the windows
// after it until they do, gathered into `held` (within the memory free): a
// header (a Matrix Market banner, comments and size line: "%", 1 line; an
// edge list's comments, column names and first edge: "#%", 2) is then in one
// view however long its comments run. Windows end at line ends, so whole
// windows join whole lines. The parsers took the first window for the
// header: a .gz whose comments ran past it was refused with a wrong line
// ("missing size line" at line 83057 of a size line at 90002, session 107).
std::string_view through_header(std::string_view first, text_windows& more, std::string& held,
                                const std::string& name, const char* comments, std::size_t lines);

// Reads the whole file. io_error (naming the file) when it is missing, a
// directory, unreadable, or a gzip stream that is corrupt or truncated.
text_buffer read_file(const std::string& path, unsigned threads, read_stats* stats = nullptr);

// A regular file read by byte ranges (the parts of a distributed load,
// io/matrix_market.hpp mm_file_part). io_error naming the file when it is
// missing, unreadable or not a regular file.
class ranged_file {
 public:
  explicit ranged_file(const std::string& path);
  std::uint64_t size() const { return size_; }
  // Bytes [first, last) (io_error if the file became shorter).
  text_buffer read(std::uint64_t first, std::uint64_t last) const;
  // The first line start at or after pos, counting lo (where lines begin) and
  // size() as line starts: pos itself when the byte before it is '\n'.
  std::uint64_t line_start(std::uint64_t pos, std::uint64_t lo) const;

 private:
  std::string path_;
  file_descriptor fd_;
  std::uint64_t size_ = 0;
};

// True when the bytes start with the gzip magic number 1f 8b.
bool has_gzip_magic(const void* data, std::size_t size);

// True where the bytes open a zip archive (a local file header, PK 3 4).
bool has_zip_magic(const void* data, std::size_t size);

// True where the bytes open a bzip2, xz or zstd stream: a file compressed
// whole (graph.mtx.bz2) or a tar so compressed, read through libarchive.
bool has_packed_magic(const void* data, std::size_t size);

// True where `head` (a file's first bytes, inflated where gzip) opens a tar
// archive: a POSIX or GNU header block, "ustar" at byte 257 and its checksum right.
bool is_tar(std::string_view head);

// The text without the UTF-8 byte order mark it may start with (Windows
// editors write one), as the graph readers take it.
inline std::string_view without_bom(std::string_view text) {
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.remove_prefix(3);
  return text;
}

// Inflates an in-memory gzip (or zlib) stream; `name` is used in errors.
text_buffer gunzip(const std::string& name, const void* data, std::size_t size);

// Newlines in [begin, end) (16 bytes at a time where SSE2 is available).
std::size_t count_newlines(const char* begin, const char* end);

// Resizes output arrays that are about to be overwritten: the allocation is
// advised for huge pages and its pages mapped by all threads (prefault) before
// it is first touched, and several arrays are filled concurrently
// (std::vector cannot skip the fill itself).
//
// Growing arrays that hold data (a later text window) keeps it, grows the
// capacity geometrically (appends stay linear) and maps only the new part.
template <class... Vectors>
void resize_outputs(std::size_t n, unsigned threads, Vectors&... v) {
  const auto grow = [n](auto& x) {
    if (n <= x.capacity()) return;
    x.reserve(x.empty() ? n : std::max(n, x.capacity() + x.capacity() / 2));
    perron::advise_huge_pages(x.data(), x.capacity() * sizeof(*x.data()));
  };
  (grow(v), ...);
  perron::prefault({perron::byte_span{v.data() + std::min(n, v.size()),
                                      (n - std::min(n, v.size())) * sizeof(*v.data())}...},
                   threads);
  // Widest element first, handed out dynamically: with 2 threads and (int, int,
  // double) arrays each thread fills the same number of bytes.
  constexpr int count = sizeof...(Vectors);
  const std::size_t width[] = {sizeof(*v.data())...};
  int order[count];
  for (int k = 0; k < count; ++k) order[k] = k;
  std::stable_sort(order, order + count, [&](int a, int b) { return width[a] > width[b]; });
  auto resize_one = [n](int k, auto&... all) {
    int i = 0;
    ((i++ == k ? (void)all.resize(n) : (void)0), ...);
  };
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && n > 65536)
  for (int k = 0; k < count; ++k) resize_one(order[k], v...);
}

// Before a parse's arrays grow from `entries` to `entries + slots` slots of
// `slot_bytes` each (a window's lines after the entries of the windows
// before): the bytes they will touch (and, past `capacity`, the entries
// copied) against the memory perron may use, plus the entries' own bytes.
// Once a window or growth step, never an entry: a valid text larger than
// memory (a generator through a pipe, a gzip bomb of valid lines) ends in
// one error naming the file and the entries read, not in the out-of-memory
// killer. `more` says where the new slots come from.
void check_parse_growth(const std::string& name, std::size_t entries, std::size_t slots,
                        std::size_t slot_bytes, std::size_t capacity,
                        const char* more = "with the next lines");

// Reserves (virtual memory only; nothing is touched) one slot per line the
// whole text is expected to hold, extrapolated from the lines of the first
// window [begin, end) to `total` bytes; nothing when the window is the text.
template <class... Vectors>
void reserve_for_windows(std::uint64_t total, const char* begin, const char* end, Vectors&... v) {
  const auto bytes = static_cast<std::uint64_t>(end - begin);
  if (bytes == 0 || total <= bytes) return;
  // From the whole first window: an estimate from its first MiB alone was
  // short on cage11 (longer lines later), and the arrays then grew by copies
  // (twice the CPU time and 4x the page faults of the load at 2 threads).
  const double lines = double(count_newlines(begin, end) + 1) * (double(total) / double(bytes)) * 1.05;
  const auto n = static_cast<std::size_t>(std::min(lines, double(total)));
  try {
    (v.reserve(n), ...);
  } catch (const std::bad_alloc&) {
    return;  // a forged size trailer: the arrays grow as the windows come
  }
  (perron::advise_huge_pages(v.data(), v.capacity() * sizeof(*v.data())), ...);
}

// A run of whole lines. `lines` counts line starts in [begin, end): the
// newlines, plus one when the chunk ends without a newline (end of buffer).
struct line_chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
  std::uint64_t first_line = 0;  // 1-based number of the line at `begin`
  std::size_t lines = 0;
  std::size_t first_slot = 0;  // prefix sum of `lines` over earlier chunks
};

// Splits [begin, end) at newlines into about `threads * 4` chunks (or chunks
// of about `chunk_bytes` when nonzero); the newline counts are taken in
// parallel and prefix-summed into first_line / first_slot.
std::vector<line_chunk> split_lines(const char* begin, const char* end, std::uint64_t first_line,
                                    unsigned threads, std::size_t chunk_bytes);

// Newlines in the text the chunks cover, from the counts split_lines took
// (no second pass over the text: serial, it cost several ms a file).
inline std::uint64_t newlines_in(const std::vector<line_chunk>& chunks) {
  std::uint64_t n = 0;
  for (const line_chunk& c : chunks) n += c.lines;
  if (!chunks.empty() && chunks.back().end[-1] != '\n') --n;  // the last line has no newline
  return n;
}

// 1-based line number of `pos` inside `chunk`.
std::uint64_t line_of(const line_chunk& chunk, const char* pos);

// Where a chunk's parse stopped: the start of the offending line and why.
struct chunk_error {
  const char* line = nullptr;  // nullptr: no error
  std::string reason;
  explicit operator bool() const { return line != nullptr; }
};

// Throws parse_error for the first (in file order) chunk error, if any.
void throw_first_error(const std::string& file, const std::vector<line_chunk>& chunks,
                       const std::vector<chunk_error>& errors);

// The token at p, quoted and shortened for a message: 'abc', '1e99...'.
std::string quote_token(const char* p, const char* end);

// The bytes [p, end) quoted whole, control bytes escaped, as quote_token
// quotes a token: for a field already cut out of its line, whose last byte
// may be a stray CR that quote_token would take for a CRLF line's end.
std::string quote_bytes(const char* p, const char* end);
// A byte for a message: 'x', or 0x0d for control characters.
std::string describe_char(char c);

// ---- scanners (hot loop) ------------------------------------------------------

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

// A "quoted name" in a NUL-terminated line, p at its opening '"', a '"' in
// it doubled (as --output, CSV and pandas write one): the name, and the
// position after its closing quote, or nullptr where none closes it.
inline const char* quoted_name(const char* p, std::string& name) {
  name.clear();
  for (++p; *p != '\0'; ++p) {
    if (*p == '"') {
      if (p[1] != '"') return p + 1;
      ++p;
    }
    name += *p;
  }
  return nullptr;
}

// End of a token: a blank, a line end, or the end of the buffer.
inline bool at_delimiter(const char* p, const char* end) {
  return p == end || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
}

inline const char* skip_blanks(const char* p, const char* end) {
  while (p != end && is_blank(*p)) ++p;
  return p;
}

// Past the next '\n' (or end).
inline const char* next_line(const char* p, const char* end) {
  while (p != end && *p != '\n') ++p;
  return p == end ? p : p + 1;
}

// If p is at the end of a line (blanks, an optional '\r', then '\n' or the end
// of the buffer), returns the start of the next line; else nullptr.
inline const char* end_of_line(const char* p, const char* end) {
  p = skip_blanks(p, end);
  if (p == end) return p;
  if (*p == '\n') return p + 1;
  if (*p == '\r' && p + 1 != end && p[1] == '\n') return p + 2;
  if (*p == '\r' && p + 1 == end) return p + 1;
  return nullptr;
}

// The parse loops' step over lines without data: at the first non-blank
// byte of a line, moves p past the line and returns true when the line is
// empty or a comment (first non-blank byte `comment` or '%', or a lone
// "\r\n"); else leaves p and returns false.
inline bool skip_empty_or_comment(const char*& p, const char* end, char comment) {
  if (*p == '\n') {
    ++p;
    return true;
  }
  // A line of "\r" alone, the text's last one too (it was refused as a line of no fields).
  if (*p == comment || *p == '%' || (*p == '\r' && (p + 1 == end || p[1] == '\n'))) {
    p = next_line(p, end);
    return true;
  }
  return false;
}

// Unsigned decimal with an optional '+'. Returns the position after the
// digits, or nullptr when there are none or the value exceeds 2^63 - 1.
inline const char* scan_unsigned(const char* p, const char* end, std::uint64_t& value) {
  if (p != end && *p == '+') ++p;
  const char* first = p;
  std::uint64_t v = 0;
  while (p != end && static_cast<unsigned char>(*p - '0') < 10) {
    const auto digit = static_cast<unsigned>(*p - '0');
    // Exact: v * 10 + digit <= 2^63 - 1, one compare in the common case (no
    // division on the parsers' hot path).
    constexpr std::uint64_t cap = UINT64_C(0x7fffffffffffffff) / 10;
    constexpr unsigned last = UINT64_C(0x7fffffffffffffff) % 10;
    if (v >= cap && (v > cap || digit > last)) return nullptr;
    v = v * 10 + digit;
    ++p;
  }
  if (p == first) return nullptr;
  value = v;
  return p;
}

// Signed decimal integer (optional '+' or '-') that fits int64.
const char* scan_signed(const char* p, const char* end, std::int64_t& value);

// Finite double (core/text.hpp: every reader of numbers takes the same ones).
using perron::scan_real;

// Why a token is not a finite double, for messages ("is not a number",
// "is not finite", "overflows double").
std::string real_problem(const char* p, const char* end);

// Tokens of one line (blank-separated, up to the line end), for diagnosis.
std::vector<std::string_view> line_tokens(const char* line, const char* end);

}  // namespace perron::io::detail

namespace perron::io::detail {

// Chunk k parsed its entries into slots [first_slot, first_slot + count[k])
// (one slot per line, so comment and blank lines leave holes). Packs them to
// the front in file order and returns the total. Destinations never pass
// their sources, so a forward pass of memmoves is safe.
template <class T>
std::size_t pack_slots(T* data, const std::vector<line_chunk>& chunks,
                       const std::vector<std::size_t>& count) {
  std::size_t out = 0;
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const std::size_t from = chunks[k].first_slot;
    if (from != out && count[k] != 0) std::memmove(data + out, data + from, count[k] * sizeof(T));
    out += count[k];
  }
  return out;
}

// Exclusive prefix sum of per-chunk counts (entry offsets after packing).
inline std::vector<std::size_t> offsets_of(const std::vector<std::size_t>& count) {
  std::vector<std::size_t> off(count.size() + 1, 0);
  for (std::size_t k = 0; k < count.size(); ++k) off[k + 1] = off[k] + count[k];
  return off;
}

// Start of the n-th (0-based) data line of a chunk, where `is_data` tells a
// data line (given its first non-blank byte) from a comment or blank line.
template <class IsData>
const char* nth_data_line(const line_chunk& chunk, std::size_t n, IsData is_data) {
  const char* p = chunk.begin;
  while (p != chunk.end) {
    const char* q = skip_blanks(p, chunk.end);
    if (q != chunk.end && is_data(q)) {
      if (n == 0) return p;
      --n;
    }
    p = next_line(p, chunk.end);
  }
  return chunk.end;
}

}  // namespace perron::io::detail
