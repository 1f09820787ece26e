#include "io/parallel_inflate.hpp"

#include <omp.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "io/inflate.hpp"

#if PERRON_HAVE_ISAL
#include <isa-l/crc.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perron::io::detail {
namespace {

constexpr std::size_t window_size = 32768;  // deflate's largest distance
constexpr std::uint16_t marker = 0x8000;    // symbol 0x8000 | p: byte p of the unknown window

std::uint32_t crc32_of(std::uint32_t crc, const unsigned char* p, std::size_t n) {
#if PERRON_HAVE_ISAL
  return crc32_gzip_refl(crc, p, n);
#else
  while (n > 0) {
    const auto k = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
    crc = static_cast<std::uint32_t>(::crc32(crc, p, k));
    p += k, n -= k;
  }
  return crc;
#endif
}

std::uint32_t le32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}

// 8 bytes from `byte`, zeros past the end.
std::uint64_t load64(const unsigned char* in, std::size_t n, std::size_t byte) {
  std::uint64_t w = 0;
  if (byte + 8 <= n) {
    std::memcpy(&w, in + byte, 8);
    return w;
  }
  for (std::size_t k = 0; k < 8 && byte + k < n; ++k) w |= std::uint64_t(in[byte + k]) << (8 * k);
  return w;
}

// LSB-first bit reader. refill() leaves at least 56 valid bits; bytes past the
// end read as zeros, and overrun() tells when any of them were consumed.
struct bit_reader {
  const unsigned char* in;
  std::size_t n;
  std::size_t pos = 0;  // next byte to load
  std::uint64_t buf = 0;
  unsigned cnt = 0;

  bit_reader(const unsigned char* data, std::size_t size, std::uint64_t bit) : in(data), n(size) {
    seek(bit);
  }
  void seek(std::uint64_t bit) {
    pos = static_cast<std::size_t>(bit >> 3);
    buf = 0;
    cnt = 0;
    refill();
    drop(static_cast<unsigned>(bit & 7));
  }
  // Bytes already in `buf` above cnt are the same stream bytes as those
  // loaded again later, at the same bit positions, so or-ing them is exact.
  void refill() {
    if (pos + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, in + pos, 8);
      buf |= w << cnt;
      pos += (63 - cnt) >> 3;
      cnt |= 56;
    } else {
      while (cnt <= 55) {
        buf |= std::uint64_t(pos < n ? in[pos] : 0) << cnt;
        ++pos;
        cnt += 8;
      }
    }
  }
  std::uint32_t peek(unsigned k) const {
    return static_cast<std::uint32_t>(buf & ((std::uint64_t(1) << k) - 1));
  }
  void drop(unsigned k) {
    buf >>= k;
    cnt -= k;
  }
  std::uint32_t take(unsigned k) {
    const std::uint32_t v = peek(k);
    drop(k);
    return v;
  }
  std::uint64_t tell() const { return std::uint64_t(pos) * 8 - cnt; }
  bool overrun() const { return tell() > std::uint64_t(n) * 8; }
};

// A canonical Huffman code: a table on the next fast_bits bits (symbol << 4 |
// length; 0: a longer code or none) and puff-style counts for longer codes.
struct huffman {
  static constexpr unsigned fast_bits = 10;
  std::uint16_t fast[1u << fast_bits];
  std::uint16_t count[16];
  std::uint16_t symbol[288];
  int max_len = 0;

  // Returns the Kraft slack: 0 complete, > 0 incomplete, < 0 over-subscribed.
  // `tables` false: only the counts and the slack (the block finder's check).
  int build(const std::uint8_t* len, int n, bool tables = true) {
    std::memset(count, 0, sizeof count);
    for (int s = 0; s < n; ++s) ++count[len[s]];
    count[0] = 0;
    int left = 1;
    max_len = 0;
    for (int l = 1; l <= 15; ++l) {
      left <<= 1;
      left -= count[l];
      if (left < 0) return left;
      if (count[l]) max_len = l;
    }
    if (!tables) return left;
    std::uint16_t offs[16];
    offs[1] = 0;
    for (int l = 1; l < 15; ++l) offs[l + 1] = static_cast<std::uint16_t>(offs[l] + count[l]);
    std::uint32_t next[16];
    std::uint32_t code = 0;
    next[0] = 0;
    for (int l = 1; l <= 15; ++l) {
      code = (code + count[l - 1]) << 1;
      next[l] = code;
    }
    std::memset(fast, 0, sizeof fast);
    for (int s = 0; s < n; ++s) {
      const unsigned l = len[s];
      if (l == 0) continue;
      symbol[offs[l]++] = static_cast<std::uint16_t>(s);
      const std::uint32_t c = next[l]++;
      if (l > fast_bits) continue;
      std::uint32_t r = 0;  // the code bit-reversed: deflate sends codes MSB first
      for (unsigned b = 0; b < l; ++b) r |= ((c >> b) & 1u) << (l - 1 - b);
      const auto e = static_cast<std::uint16_t>(s << 4 | static_cast<int>(l));
      for (std::uint32_t i = r; i < (1u << fast_bits); i += 1u << l) fast[i] = e;
    }
    return left;
  }
  // Needs 15 valid bits in `b`. -1: no such code (incomplete code).
  int decode(bit_reader& b) const {
    const std::uint16_t e = fast[b.buf & ((1u << fast_bits) - 1)];
    if (e & 15) {
      b.drop(e & 15);
      return e >> 4;
    }
    int code = 0, first = 0, index = 0;
    std::uint64_t bits = b.buf;
    for (unsigned l = 1; l <= 15; ++l) {
      code |= static_cast<int>(bits & 1);
      bits >>= 1;
      const int c = count[l];
      if (code - c < first) {
        b.drop(l);
        return symbol[index + (code - first)];
      }
      index += c;
      first += c;
      first <<= 1;
      code <<= 1;
    }
    return -1;
  }
};

constexpr std::uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                           31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                           2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                                         33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                                         1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                         6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

struct fixed_codes {
  huffman lit, dist;
  fixed_codes() {
    std::uint8_t l[288];
    for (int s = 0; s < 288; ++s) l[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    lit.build(l, 288);
    std::uint8_t d[30];
    std::fill(d, d + 30, 5);
    dist.build(d, 30);
  }
};
const fixed_codes& fixed() {
  static const fixed_codes f;
  return f;
}

// Reads a dynamic block's code description (the 3 header bits already
// taken). `strict` (the block finder) also wants complete codes, where zlib
// lets a code of one symbol be incomplete.
bool read_dynamic(bit_reader& b, huffman& lit, huffman& dist, bool strict) {
  static constexpr std::uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                             11, 4,  12, 3, 13, 2, 14, 1, 15};
  b.refill();
  const int nlit = static_cast<int>(b.take(5)) + 257;
  const int ndist = static_cast<int>(b.take(5)) + 1;
  const int ncl = static_cast<int>(b.take(4)) + 4;
  if (nlit > 286 || ndist > 30) return false;
  std::uint8_t cl[19] = {};
  b.refill();
  for (int k = 0; k < ncl; ++k) {
    if (k == 10) b.refill();  // 19 lengths are 57 bits, one more than a refill promises
    cl[order[k]] = static_cast<std::uint8_t>(b.take(3));
  }
  huffman clc;
  if (clc.build(cl, 19) != 0) return false;
  std::uint8_t len[286 + 30];
  for (int k = 0; k < nlit + ndist;) {
    b.refill();
    const int s = clc.decode(b);
    if (s < 0) return false;
    if (s < 16) {
      len[k++] = static_cast<std::uint8_t>(s);
      continue;
    }
    int rep;
    std::uint8_t v = 0;
    if (s == 16) {
      if (k == 0) return false;
      v = len[k - 1];
      rep = 3 + static_cast<int>(b.take(2));
    } else if (s == 17) {
      rep = 3 + static_cast<int>(b.take(3));
    } else {
      rep = 11 + static_cast<int>(b.take(7));
    }
    if (k + rep > nlit + ndist) return false;
    std::fill(len + k, len + k + rep, v);
    k += rep;
  }
  if (len[256] == 0) return false;
  const int l = lit.build(len, nlit, !strict);
  if (l < 0 || (l > 0 && (strict || lit.max_len != 1))) return false;
  const int d = dist.build(len + nlit, ndist, !strict);
  if (d < 0 || (d > 0 && dist.max_len > 1)) return false;
  if (strict && d > 0 && dist.max_len == 0) return false;
  return !b.overrun();
}

// Symbols of one chunk behind a window prefix: data[0, window_size) is the
// window (bytes, or markers where unknown), the chunk's symbols follow.
struct symbols {
  std::uint16_t* data = nullptr;
  std::size_t size = 0, cap = 0;
  symbols() = default;
  symbols(const symbols&) = delete;
  symbols& operator=(const symbols&) = delete;
  ~symbols() { std::free(data); }
  // The whole limit is reserved once (address space only: pages are touched
  // as symbols land, in huge pages where the system has them), so growing
  // never copies.
  bool grow(std::size_t need, std::size_t limit) {
    if (need > limit + window_size) return false;  // this batch's cap, whatever is reserved
    if (need <= cap) return true;
    const std::size_t c = limit + window_size;
    auto* p = static_cast<std::uint16_t*>(std::realloc(data, (c + 272) * sizeof(std::uint16_t)));
    if (!p) return false;
    data = p;
    cap = c;  // 272 symbols of slack past cap for the 8-symbol copies' overshoot
    perron::advise_huge_pages(data, (c + 272) * sizeof(std::uint16_t));
    return true;
  }
  // Before a chunk's decode, whose first symbols overwrite everything: as
  // grow(), without keeping the old contents. realloc copied them (glibc
  // serves these 4-12 MB blocks from its arenas once its mmap threshold has
  // risen): with the next batch's larger cap, that copy and the page faults
  // of the new block were a quarter of the inflater's CPU time.
  // `reserve` is the largest cap of any batch, so that the first batch's
  // pages (its cap is smaller) are used again, not faulted anew.
  bool fresh(std::size_t reserve) {
    if (reserve + window_size <= cap) return true;
    std::free(data);
    data = nullptr;
    cap = 0;
    size = 0;
    return grow(reserve + window_size, reserve);
  }
};

enum class outcome { boundary, final, bad, too_big };

struct decode_result {
  outcome how = outcome::bad;
  std::uint64_t end = 0;  // bit position where it stopped (after the final block when final)
};

// Inflates from the block starting at bit `start` until the first block
// boundary at or after bit `stop`, or the end of the final block. `valid`:
// how many of the window's symbols may be referred to (fewer at the start of
// the stream); `limit`: the most symbols to produce.
decode_result inflate_symbols(const unsigned char* in, std::size_t n, std::uint64_t start, std::uint64_t stop,
                              symbols& out, std::size_t valid, std::size_t limit,
                              const std::atomic<bool>& abort) {
  decode_result r;
  bit_reader b(in, n, start);
  huffman dyn_lit, dyn_dist;
  const std::size_t lowest = window_size - valid;  // the oldest symbol a distance may reach
  out.size = window_size;
  for (;;) {
    if (b.overrun()) return r;
    if (b.tell() >= stop) {
      r.how = outcome::boundary;
      r.end = b.tell();
      return r;
    }
    if (abort.load(std::memory_order_relaxed)) return r;
    b.refill();
    const unsigned head = b.take(3);
    const bool last = head & 1;
    const unsigned type = head >> 1;
    const huffman* lit;
    const huffman* dist;
    if (type == 0) {
      b.drop(b.cnt & 7);
      b.refill();
      const std::uint32_t len = b.take(16), nlen = b.take(16);
      if (len != (~nlen & 0xffffu)) return r;
      const std::uint64_t byte = b.tell() >> 3;
      if (byte + len > n) return r;
      if (!out.grow(out.size + len, limit)) {
        r.how = outcome::too_big;
        return r;
      }
      for (std::uint32_t k = 0; k < len; ++k) out.data[out.size + k] = in[byte + k];
      out.size += len;
      b.seek((byte + len) * 8);
    } else {
      if (type == 1) {
        lit = &fixed().lit;
        dist = &fixed().dist;
      } else if (type == 2) {
        if (!read_dynamic(b, dyn_lit, dyn_dist, false)) return r;
        lit = &dyn_lit;
        dist = &dyn_dist;
      } else {
        return r;
      }
      std::uint16_t* o = out.data + out.size;
      std::uint16_t* o_end = out.data + out.cap;
      for (;;) {
        if (o_end - o < 258) {
          out.size = static_cast<std::size_t>(o - out.data);
          if (!out.grow(out.size + std::max<std::size_t>(out.size, 1 << 16), limit) &&
              !out.grow(out.size + 258, limit)) {
            r.how = outcome::too_big;
            return r;
          }
          o = out.data + out.size;
          o_end = out.data + out.cap;
          if (b.overrun() || abort.load(std::memory_order_relaxed)) return r;
        }
        b.refill();
        int s = lit->decode(b);
        if (s < 256) {
          if (s < 0) return r;
          *o++ = static_cast<std::uint16_t>(s);
          // A second literal without a refill when 15 bits are left.
          if (b.cnt >= 15) {
            const std::uint16_t e = lit->fast[b.buf & ((1u << huffman::fast_bits) - 1)];
            if ((e & 15) && (e >> 4) < 256) {
              b.drop(e & 15);
              *o++ = static_cast<std::uint16_t>(e >> 4);
            }
          }
          continue;
        }
        if (s == 256) break;
        s -= 257;
        if (s >= 29) return r;
        const std::uint32_t len = length_base[s] + b.take(length_extra[s]);
        const int ds = dist->decode(b);
        if (ds < 0 || ds >= 30) return r;
        const std::uint32_t d = dist_base[ds] + b.take(dist_extra[ds]);
        if (d > static_cast<std::size_t>(o - out.data) - lowest) return r;
        const std::uint16_t* src = o - d;
        if (d >= 8) {
          // 8 symbols at a time; the overshoot lands in the slack.
          for (std::uint32_t k = 0; k < len; k += 8) std::memcpy(o + k, src + k, 16);
        } else {
          for (std::uint32_t k = 0; k < len; ++k) o[k] = src[k];
        }
        o += len;
      }
      out.size = static_cast<std::size_t>(o - out.data);
    }
    if (last) {
      if (b.overrun()) return r;
      r.how = outcome::final;
      r.end = b.tell();
      return r;
    }
  }
}

// The block finder's idea of a boundary: a dynamic block by its header's bit
// (key bit << 1), a stored block by the byte its LEN starts at (key byte*8 << 1 | 1),
// since zero padding makes a stored header's first bit ambiguous.
std::uint64_t boundary_key(const unsigned char* in, std::size_t n, std::uint64_t bit) {
  const std::uint64_t w = load64(in, n, static_cast<std::size_t>(bit >> 3)) >> (bit & 7);
  if (((w >> 1) & 3) == 0) return ((bit + 3 + 7) / 8 * 8) << 1 | 1;
  return bit << 1;
}

// First plausible non-final block start in [from, to): a dynamic header with
// complete codes, or a stored block (three zero bits ending at a byte, LEN =
// ~NLEN). Returns the bit to start decoding at, or UINT64_MAX.
std::uint64_t find_block(const unsigned char* in, std::size_t n, std::uint64_t from, std::uint64_t to) {
  to = std::min<std::uint64_t>(to, std::uint64_t(n) * 8);
  huffman lit, dist;
  // 32 bit positions at a time: a mask of those whose first 13 bits could
  // start a dynamic block (BFINAL 0, BTYPE 2, HLIT and HDIST at most 29: not
  // 1111x) or a stored one (three zero bits ending at a byte), then the
  // survivors one by one in order.
  for (std::uint64_t base = from & ~std::uint64_t(7); base < to; base += 32) {
    const std::uint64_t w = load64(in, n, static_cast<std::size_t>(base >> 3));
    std::uint64_t dyn = ~w & ~(w >> 1) & (w >> 2);
    dyn &= ~((w >> 4) & (w >> 5) & (w >> 6) & (w >> 7)) & ~((w >> 9) & (w >> 10) & (w >> 11) & (w >> 12));
    const std::uint64_t stored = ~w & ~(w >> 1) & ~(w >> 2) & 0x20202020u;  // positions 8p - 3
    std::uint64_t m = (dyn | stored) & 0xffffffffu;
    if (base < from) m &= ~std::uint64_t(0) << (from - base);
    if (to - base < 32) m &= (std::uint64_t(1) << (to - base)) - 1;
    for (; m != 0; m &= m - 1) {
      const unsigned k = static_cast<unsigned>(__builtin_ctzll(m));
      const std::uint64_t b = base + k;
      if ((stored >> k) & 1) {
        const std::size_t p = static_cast<std::size_t>((b + 3) >> 3);
        if (p + 4 <= n) {
          const unsigned len = in[p] | unsigned(in[p + 1]) << 8, nlen = in[p + 2] | unsigned(in[p + 3]) << 8;
          if (len == (~nlen & 0xffffu) && p + 4 + len <= n) return b;
        }
        continue;
      }
      const std::uint64_t h = load64(in, n, static_cast<std::size_t>(b >> 3)) >> (b & 7);
      const unsigned ncl = static_cast<unsigned>((h >> 13) & 15) + 4;
      const std::uint64_t c = load64(in, n, static_cast<std::size_t>((b + 17) >> 3)) >> ((b + 17) & 7);
      unsigned kraft = 0, used = 0;
      for (unsigned i = 0; i < ncl; ++i) {
        const unsigned l = (c >> (3 * i)) & 7;
        if (l) kraft += 128u >> l, ++used;
      }
      if (kraft == 128 && used > 1) {
        bit_reader r(in, n, b + 3);
        if (read_dynamic(r, lit, dist, true)) return b;
      }
    }
  }
  return UINT64_MAX;
}

// The byte after a gzip member's header, or 0 when the header is not one
// this reader handles or not a sound one (the sequential inflater then
// reports what is wrong): with FHCRC set, the two bytes after the header must
// be the low half of its CRC-32 (RFC 1952), which zlib checks.
std::size_t gzip_header_end(const unsigned char* in, std::size_t n) {
  if (n < 18 || in[0] != 0x1f || in[1] != 0x8b || in[2] != 8 || (in[3] & 0xe0)) return 0;
  const unsigned flags = in[3];
  std::size_t p = 10;
  if (flags & 4) {
    if (p + 2 > n) return 0;
    p += 2 + (in[p] | std::size_t(in[p + 1]) << 8);
  }
  for (unsigned f : {8u, 16u})
    if (flags & f) {
      while (p < n && in[p] != 0) ++p;
      ++p;
    }
  if (flags & 2) {
    if (p + 2 > n || (in[p] | unsigned(in[p + 1]) << 8) != (crc32_of(0, in, p) & 0xffffu)) return 0;
    p += 2;
  }
  return p < n ? p : 0;
}

// Symbols to bytes, markers looked up in the window. Runs of 64 symbols
// without a marker (most of them, once a chunk is 32 KiB past the unknown
// window) are narrowed 16 at a time (packus keeps values below 256 as they are).
void resolve(const std::uint16_t* s, std::size_t n, const unsigned char* window, unsigned char* d) {
  std::size_t k = 0;
#if defined(__SSE2__)
  const __m128i high = _mm_set1_epi16(static_cast<short>(0xff00));
  for (; k + 64 <= n; k += 64) {
    __m128i v[8];
    __m128i any = _mm_setzero_si128();
    for (int i = 0; i < 8; ++i) {
      v[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k + 8 * i));
      any = _mm_or_si128(any, v[i]);
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(any, high), _mm_setzero_si128())) == 0xffff) {
      for (int i = 0; i < 8; i += 2)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k + 8 * i), _mm_packus_epi16(v[i], v[i + 1]));
    } else {
      for (std::size_t i = k; i < k + 64; ++i)
        d[i] = s[i] < 256 ? static_cast<unsigned char>(s[i]) : window[s[i] & 0x7fff];
    }
  }
#endif
  for (; k < n; ++k) d[k] = s[k] < 256 ? static_cast<unsigned char>(s[k]) : window[s[k] & 0x7fff];
}

struct chunk_slot {
  symbols sym;
  decode_result res;
  std::uint64_t start = 0;  // bit decoding began at
  std::uint64_t key = 0;    // boundary_key of start
  bool ok = false;
  std::uint64_t stop = 0;
  std::size_t offset = 0;  // where its bytes go in the batch output
  std::uint32_t crc = 0;
  unsigned char window[window_size];  // the bytes before it, once known
};

// The 32 KiB before the chunk after `c`: the end of c's window and bytes.
void next_window(const chunk_slot& c, unsigned char* w) {
  const std::size_t len = c.sym.size - window_size;
  const std::size_t from_sym = std::min(len, window_size);
  std::memmove(w, c.window + from_sym, window_size - from_sym);
  resolve(c.sym.data + c.sym.size - from_sym, from_sym, c.window, w + window_size - from_sym);
}

}  // namespace

struct parallel_gzip_reader::state {
  std::uint64_t bit = 0;              // the next block's first bit (a confirmed boundary)
  std::size_t window_len = 0;         // valid bytes at the end of `window`
  unsigned char window[window_size];  // the last 32 KiB handed out, at the end
  std::uint32_t member_crc = 0;       // of the bytes handed out
  std::uint64_t member_size = 0;
  std::vector<std::unique_ptr<chunk_slot>> slots;
  unsigned kept = 0;           // chunks of the batch
  std::size_t batch_size = 0;  // its bytes
  std::size_t batch_pos = 0;   // ... handed out so far
  bool final = false;          // it ends the member
  std::atomic<bool> abort{false};
};

parallel_gzip_reader::parallel_gzip_reader(std::string name, const unsigned char* data, std::size_t size,
                                           const parallel_inflate_options& opt)
    : name_(std::move(name)), data_(data), size_(size) {
  threads_ = opt.threads ? opt.threads : static_cast<unsigned>(std::max(1, omp_get_max_threads()));
  const std::uint64_t min_bytes =
      opt.min_file_bytes ? opt.min_file_bytes : (std::uint64_t(opt.pipelined ? 128 : 1024) << 10);
  // A chunk per thread and batch: at least 128 KiB (finding the first block
  // costs up to a block's bits, tens of KiB), at most 512 KiB (a batch's
  // symbols are held at once: threads * 512 KiB * the text's ratio * 2 bytes).
  // Pipelined, a batch is about a quarter of the file (at least 4 batches, so
  // the parse of one overlaps the inflating of the next), in chunks of 32 to
  // 256 KiB: zlib's level-6 blocks of Matrix Market text are about 10 KiB
  // compressed, so even a 32 KiB chunk holds block starts to find.
  fixed_chunk_ = opt.chunk_bytes != 0;
  if (opt.chunk_bytes)
    chunk_ = opt.chunk_bytes;
  else if (opt.pipelined)
    chunk_ = std::clamp<std::size_t>(size / (4 * std::max(1u, threads_)), std::size_t(32) << 10,
                                     std::size_t(256) << 10);
  else
    chunk_ = std::clamp<std::size_t>(size / std::max(1u, threads_), std::size_t(128) << 10,
                                     std::size_t(512) << 10);
  // The first batch in small chunks (128 KiB; 32 KiB pipelined): a gzip bomb
  // then costs little before the sequential inflater takes over, and the
  // first window (the banner check) comes sooner. But a file that fits one
  // batch of chunks up to 192 KiB is one batch (cage11, 2.5 MB: 16 chunks of
  // 156 KiB, where 128 KiB chunks left a tail batch of 4 chunks for 16 threads).
  min_chunk_ = std::size_t(opt.pipelined ? 32 : 128) << 10;
  first_chunk_ = std::min(chunk_, min_chunk_);
  if (!opt.pipelined && !opt.chunk_bytes && size <= std::size_t(threads_) * (std::size_t(192) << 10))
    first_chunk_ =
        std::max<std::size_t>((size + threads_ - 1) / std::max(1u, threads_), std::size_t(32) << 10);
  const std::size_t header = gzip_header_end(data, size);
  const unsigned min_threads = std::max(2u, opt.min_threads ? opt.min_threads : 6u);
  if (threads_ >= min_threads && size >= min_bytes && header != 0) {
    s_ = std::make_unique<state>();
    s_->bit = std::uint64_t(header) * 8;
    for (unsigned k = 0; k < threads_; ++k) s_->slots.push_back(std::make_unique<chunk_slot>());
    mode_ = mode::parallel;
    report_.parallel = true;
  } else {
    seq_ = sequential_from(0, 0);
  }
}

parallel_gzip_reader::~parallel_gzip_reader() = default;

// The sequential inflater over the input from byte `from` on, its output
// counted from `counted` (for messages after the first member).
std::unique_ptr<gzip_inflater> parallel_gzip_reader::sequential_from(std::size_t from, std::size_t counted) {
  return std::make_unique<gzip_inflater>(
      name_,
      [this, pos = from](unsigned char* o, std::size_t k) mutable {
        const std::size_t m = std::min(k, size_ - pos);
        std::memcpy(o, data_ + pos, m);
        pos += m;
        consumed_ = pos;
        return m;
      },
      counted);
}

void parallel_gzip_reader::fall_back(const char* why) {
  report_.fell_back = true;
  report_.why = why;
  skip_ = total_;
  skip_crc_ = s_->member_crc;
  s_.reset();
  mode_ = mode::sequential;
  seq_ = sequential_from(0, 0);
}

// After the first member: the rest, if any, must be more members (inflated
// one after another, as gzip -d does).
void parallel_gzip_reader::start_tail(std::size_t member_end) {
  s_.reset();
  consumed_ = member_end;
  if (member_end >= size_) {
    mode_ = mode::done;
    return;
  }
  if (size_ - member_end < 2 || data_[member_end] != 0x1f || data_[member_end + 1] != 0x8b) {
    mode_ = mode::done;
    // Zero bytes to the end (a file padded to a block) end the stream, as
    // they do for gzip -d (io/inflate.cpp); anything else is junk.
    if (std::all_of(data_ + member_end, data_ + size_, [](unsigned char c) { return c == 0; })) {
      consumed_ = size_;
      return;
    }
    throw io_error(name_, "unexpected data after the end of the gzip stream");
  }
  mode_ = mode::sequential;
  seq_ = sequential_from(member_end, static_cast<std::size_t>(total_));
}

bool parallel_gzip_reader::run_batch() {
  state& st = *s_;
  const std::uint64_t n_bits = std::uint64_t(size_) * 8;
  const std::uint64_t first = st.bit / 8;
  // The first batch in small chunks (see the constructor): a gzip bomb
  // (every chunk past its cap) then costs at most threads * 4.6 MiB before the
  // sequential inflater takes over.
  // Later batches: the rest of the file cut into whole batches of equal
  // chunks (at most chunk_ each), so that no batch is a short tail that keeps
  // most threads idle (rmat20.mtx.gz: 5 batches of 16 chunks of 425 KiB, not 4 of 512 KiB and a fifth of 2).
  std::size_t chunk = chunk_;
  if (report_.batches == 0) {
    chunk = first_chunk_;
  } else if (!fixed_chunk_) {
    const std::size_t rest = size_ - static_cast<std::size_t>(first);
    const std::size_t per_batch = std::size_t(threads_) * chunk_;
    const std::size_t batches = (rest + per_batch - 1) / per_batch;
    // Not below min_chunk_: a chunk must hold a block start for the finder
    // (cage11's level-6 blocks are up to about 30 KiB compressed).
    chunk = std::max((rest + std::size_t(threads_) * batches - 1) / (std::size_t(threads_) * batches),
                     min_chunk_);
    chunk = std::min(chunk, chunk_);
  }
  // Chunk j covers nominal bytes [first + j*chunk, first + (j+1)*chunk); the
  // last chunk of the batch stops at the first boundary past the batch.
  std::vector<std::uint64_t> nominal;
  for (unsigned j = 0; j <= threads_; ++j)
    nominal.push_back(std::min<std::uint64_t>(first + std::uint64_t(j) * chunk, size_));
  unsigned m = 1;
  while (m < threads_ && nominal[m] < size_) ++m;
  // Symbols a chunk may hold: twice what Matrix Market text compresses to
  // (3.4:1 for rmat20, 5.6 for cnr-2000, 6.7 for cage11); past it (a gzip
  // bomb, a run of blanks) the sequential inflater takes over, whose windows
  // bound memory. So a batch holds at most threads * 12 * chunk symbols.
  const std::size_t limit = std::max<std::size_t>(chunk * 12, std::size_t(2) << 20);
  const std::size_t reserve = std::max({limit, chunk_ * 12, first_chunk_ * 12});  // address space only
  st.abort = false;
  const auto attempt = [&](chunk_slot& c, std::uint64_t start, const unsigned char* window,
                           std::size_t valid) {
    if (!c.sym.fresh(reserve)) return decode_result{};
    if (window) {
      for (std::size_t k = 0; k < window_size; ++k) c.sym.data[k] = window[k];
    } else {
      for (std::size_t k = 0; k < window_size; ++k) c.sym.data[k] = static_cast<std::uint16_t>(marker | k);
    }
    return inflate_symbols(data_, size_, start, c.stop, c.sym, valid, limit, st.abort);
  };
#pragma omp parallel for schedule(dynamic, 1) num_threads(m)
  for (unsigned j = 0; j < m; ++j) {
    chunk_slot& c = *st.slots[j];
    c.ok = false;
    c.stop = (j + 1 < m ? nominal[j + 1] : nominal[m]) * 8;
    if (j == 0) {
      c.start = st.bit;
      c.res = attempt(c, st.bit, st.window, st.window_len);
      c.ok = c.res.how == outcome::boundary || c.res.how == outcome::final;
      if (!c.ok) st.abort = true;
      continue;
    }
    for (std::uint64_t from = nominal[j] * 8; from < nominal[j + 1] * 8 && !st.abort;) {
      const std::uint64_t s = find_block(data_, size_, from, nominal[j + 1] * 8);
      if (s == UINT64_MAX) break;
      c.res = attempt(c, s, nullptr, window_size);
      if (c.res.how == outcome::boundary || c.res.how == outcome::final) {
        c.ok = true;
        c.start = s;
        c.key = boundary_key(data_, size_, s);
        break;
      }
      if (c.res.how == outcome::too_big) break;
      from = s + 1;
    }
  }
  ++report_.batches;
  if (!st.slots[0]->ok) {
    fall_back(st.slots[0]->res.how == outcome::too_big ? "a chunk inflates past its cap"
                                                       : "bad data in the first chunk");
    return false;
  }

  // The chain, in order: each chunk must start where the one before ended;
  // else it is inflated again from there, with the window now known.
  unsigned kept = 0;
  bool final = false;
  std::memcpy(st.slots[0]->window, st.window, window_size);
  for (unsigned j = 0; j < m; ++j) {
    chunk_slot& c = *st.slots[j];
    if (j > 0) {
      const chunk_slot& prev = *st.slots[j - 1];
      if (!c.ok || c.key != boundary_key(data_, size_, prev.res.end)) {
        c.start = prev.res.end;
        c.res = attempt(c, c.start, c.window, window_size);
        ++report_.redone;
        if (c.res.how != outcome::boundary && c.res.how != outcome::final) {
          fall_back(c.res.how == outcome::too_big ? "a chunk inflates past its cap" : "bad data in a chunk");
          return false;
        }
      } else {
        ++report_.chunks;
      }
    }
    kept = j + 1;
    if (j + 1 < m) next_window(c, st.slots[j + 1]->window);
    if (c.res.how == outcome::final) {
      final = true;
      break;
    }
  }

  // Nothing is turned into bytes yet: read() does that straight into the
  // caller's buffer, in parallel. Here only the bookkeeping for the next batch.
  const chunk_slot& last = *st.slots[kept - 1];
  next_window(last, st.window);
  std::size_t total = 0;
  for (unsigned j = 0; j < kept; ++j) {
    st.slots[j]->offset = total;
    total += st.slots[j]->sym.size - window_size;
  }
  st.kept = kept;
  st.batch_size = total;
  st.batch_pos = 0;
  st.window_len = std::min<std::size_t>(window_size, st.window_len + total);
  st.bit = last.res.end;
  st.final = final;
  consumed_ = static_cast<std::size_t>(st.bit / 8);
  if (!final && st.bit >= n_bits) {
    fall_back("the data ends without a final block");
    return false;
  }
  return true;
}

// Bytes [batch_pos, batch_pos + n) of the batch into `out`: markers replaced
// and CRC-32 taken in pieces, in parallel.
void parallel_gzip_reader::hand_out(char* out, std::size_t n) {
  state& st = *s_;
  struct piece {
    const std::uint16_t* sym;
    std::size_t n;
    const unsigned char* window;
    unsigned char* out;
    std::uint32_t crc;
  };
  std::vector<piece> pieces;
  const std::size_t step = std::max<std::size_t>(std::size_t(64) << 10, n / (2 * threads_) + 1);
  std::size_t pos = st.batch_pos, end = st.batch_pos + n;
  for (unsigned j = 0; j < st.kept && pos < end; ++j) {
    const chunk_slot& c = *st.slots[j];
    const std::size_t len = c.sym.size - window_size;
    if (pos >= c.offset + len) continue;
    for (; pos < std::min(end, c.offset + len); pos += step) {
      const std::size_t k = std::min({step, end - pos, c.offset + len - pos});
      pieces.push_back({c.sym.data + window_size + (pos - c.offset), k, c.window,
                        reinterpret_cast<unsigned char*>(out) + (pos - st.batch_pos), 0});
      if (k < step) {
        pos += k;
        break;
      }
    }
  }
  const auto count = static_cast<std::int64_t>(pieces.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (count > 1)
  for (std::int64_t k = 0; k < count; ++k) {
    piece& p = pieces[static_cast<std::size_t>(k)];
    resolve(p.sym, p.n, p.window, p.out);
    p.crc = crc32_of(0, p.out, p.n);
  }
  for (const piece& p : pieces) {
    st.member_crc =
        static_cast<std::uint32_t>(crc32_combine(st.member_crc, p.crc, static_cast<z_off_t>(p.n)));
    st.member_size += p.n;
  }
  st.batch_pos += n;
}

std::size_t parallel_gzip_reader::read_sequential(char* out, std::size_t room) {
  if (skip_ > 0) {
    // Everything handed out before the fallback is inflated again and dropped,
    // after checking it is what was handed out.
    std::vector<char> scratch(std::min<std::uint64_t>(skip_, std::uint64_t(1) << 20));
    std::uint32_t crc = 0;
    while (skip_ > 0) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, scratch.size()));
      const std::size_t got = seq_->read(scratch.data(), want);
      crc = crc32_of(crc, reinterpret_cast<const unsigned char*>(scratch.data()), got);
      skip_ -= got;
      if (got < want) break;
    }
    if (skip_ != 0 || crc != skip_crc_)
      throw io_error(name_,
                     "the parallel inflater disagrees with the sequential one (a bug; please report it)");
  }
  return seq_->read(out, room);
}

std::size_t parallel_gzip_reader::read(char* out, std::size_t room) {
  std::size_t done = 0;
  while (done < room && mode_ != mode::done) {
    if (mode_ == mode::sequential) {
      const std::size_t got = read_sequential(out + done, room - done);
      done += got;
      total_ += got;
      if (done < room) mode_ = mode::done;
      break;
    }
    state& st = *s_;
    if (st.batch_pos < st.batch_size) {
      const std::size_t k = std::min(room - done, st.batch_size - st.batch_pos);
      hand_out(out + done, k);
      done += k;
      total_ += k;
      continue;
    }
    if (st.final) {
      // The whole member is handed out: its trailer must agree, else (corrupt,
      // truncated, or a bug here) the sequential inflater decides.
      const std::size_t t = static_cast<std::size_t>((st.bit + 7) / 8);
      if (t + 8 > size_ || le32(data_ + t) != st.member_crc ||
          le32(data_ + t + 4) != static_cast<std::uint32_t>(st.member_size)) {
        fall_back("the trailer does not match");
        continue;
      }
      start_tail(t + 8);
      continue;
    }
    run_batch();
  }
  return done;
}

}  // namespace perron::io::detail
