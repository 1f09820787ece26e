// Deterministic synthetic matrices for benchmarks and tests. Every random draw
// comes from a counter-based generator (splitmix64 of seed and position), so the
// result is the same for any thread count and any machine.
#include "io/synthetic.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/memory.hpp"

namespace perron::io {
namespace {

// 64 x 64 -> 128-bit products (GCC and Clang; __extension__ keeps -Wpedantic quiet).
__extension__ typedef unsigned __int128 uint128;

constexpr std::string_view forms =
    "expected synthetic:seedS:N, tridiag:N, rmat:S:M[:A,B,C], er:N:M, powerlaw:N:M:GAMMA, grid:R:C, hub:N:M, "
    "dangling:N:M:F, chain:N:L, web:N:M[:LOCAL[,GAMMA]], cite:N:M[:COPY], ws:N:K:P, sbm:N:M:K[:MU] or "
    "bip:U:I:M[:GAMMA]";

// The graph families' prefixes, for the refusal of a spec that is none of them.
constexpr std::string_view graph_families =
    "rmat:, er:, powerlaw:, grid:, hub:, dangling:, chain:, web:, cite:, ws:, sbm:, bip:";

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A small stream generator for one row / one chunk.
struct stream_rng {
  std::uint64_t state;
  std::uint64_t next() { return state = splitmix64(state); }
  // Uniform in [0, n) by the multiply-shift method (no modulo bias worth noting for n < 2^32).
  std::uint32_t below(std::uint32_t n) {
    return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32);  // < 2^32 * 2^32: fits 64 bits
  }
  std::uint64_t below64(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<uint128>(next()) * n) >> 64);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == ':') {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

std::uint64_t parse_count(std::string_view s, const std::string& spec, const char* what) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  // A count past 2^64 is an integer too: "is not a non-negative integer" was false of it.
  if (ec == std::errc::result_out_of_range && p == s.data() + s.size())
    throw invalid_argument("synthetic matrix '" + spec + "': " + what + " '" + std::string(s) +
                           "' is too large (at most 2^64 - 1)");
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    throw invalid_argument("synthetic matrix '" + spec + "': " + what + " '" + std::string(s) +
                           "' is not a non-negative integer (" + std::string(forms) + ")");
  return v;
}

// A finite decimal such as 2.5 or 0.45.
double parse_real(std::string_view s, const std::string& spec, const char* what) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty() || !std::isfinite(v))
    throw invalid_argument("synthetic matrix '" + spec + "': " + what + " '" + std::string(s) +
                           "' is not a number (" + std::string(forms) + ")");
  return v;
}

index_t checked_dim(std::uint64_t n, const std::string& spec) {
  if (n > max_index)
    throw invalid_argument("synthetic matrix '" + spec + "': dimension " + std::to_string(n) +
                           " exceeds the 32-bit index limit " + std::to_string(max_index));
  return static_cast<index_t>(n);
}

// synthetic:seedS:N — each row has 0..32 distinct uniformly random columns.
constexpr int seeded_max_per_row = 32;

// Row r's length: min(k, n), so that tiny matrices can hold distinct columns.
std::uint64_t seeded_row_length(std::uint64_t seed, index_t n, index_t r) {
  stream_rng g{splitmix64(seed * 0x100000001b3ULL + static_cast<std::uint64_t>(r))};
  return std::min<std::uint64_t>(g.below(seeded_max_per_row + 1), static_cast<std::uint64_t>(n));
}

std::uint64_t seeded_nonzeros(std::uint64_t seed, index_t n, const std::string& spec) {
  // Rows of 0-32 columns, 16 a row on average: 2^27 + 2^22 rows or more hold
  // over 2^31 nonzeros but with a probability under exp(-60000) (Hoeffding:
  // the mean passes the limit by 16 * 2^22, the rows' spread is 32 sqrt(n)),
  // so they are refused before the count (2 * 10^9 rows took 15 s to count).
  // Nearer 2^27 the count decides: half the seeds fit at 2^27 + 1000.
  if (n >= (index_t{1} << 27) + (index_t{1} << 22))
    throw invalid_argument("synthetic matrix '" + spec + "': about " + std::to_string(16 * std::uint64_t(n)) +
                           " nonzeros (0-32 a row) exceed the 32-bit index limit " +
                           std::to_string(max_index));
  std::uint64_t nnz = 0;
#pragma omp parallel for schedule(static) reduction(+ : nnz)
  for (index_t r = 0; r < n; ++r) nnz += seeded_row_length(seed, n, r);
  return nnz;
}

coo_matrix<double> seeded_random(std::uint64_t seed, index_t n) {
  constexpr int max_per_row = seeded_max_per_row;
  coo_matrix<double> a;
  a.rows = a.cols = n;
  // Pass 1: row lengths, counted before anything is allocated:
  // synthetic:seed1:200000000 filled an array of 1.6 GB before its nonzeros
  // were found past 32-bit indices.
  const std::string spec = "synthetic:seed" + std::to_string(seed) + ":" + std::to_string(n);
  const auto row_length = [&](index_t r) { return seeded_row_length(seed, n, r); };
  const std::uint64_t nnz = seeded_nonzeros(seed, n, spec);
  if (nnz > max_index)
    throw invalid_argument("synthetic matrix '" + spec + "': " + std::to_string(nnz) +
                           " nonzeros exceed the 32-bit index limit " + std::to_string(max_index));
  check_host_memory(16.0 * double(nnz) + 8.0 * double(n), "synthetic matrix '" + spec + "'");
  std::vector<std::uint64_t> offset(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < n; ++r) offset[r + 1] = row_length(r);
  for (index_t r = 0; r < n; ++r) offset[r + 1] += offset[r];
  a.row_idx.resize(nnz);
  a.col_idx.resize(nnz);
  a.values.resize(nnz);
  // Pass 2: distinct sorted columns per row, drawn from the same per-row stream.
#pragma omp parallel for schedule(dynamic, 4096)
  for (index_t r = 0; r < n; ++r) {
    stream_rng g{splitmix64(seed * 0x100000001b3ULL + static_cast<std::uint64_t>(r))};
    const std::size_t k = offset[r + 1] - offset[r];
    g.next();  // the length draw of pass 1
    index_t cols[max_per_row];
    std::size_t have = 0;
    while (have < k) {
      const auto c = static_cast<index_t>(g.below(static_cast<std::uint32_t>(n)));
      if (std::find(cols, cols + have, c) == cols + have) cols[have++] = c;
    }
    std::sort(cols, cols + have);
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t at = offset[r] + i;
      a.row_idx[at] = r;
      a.col_idx[at] = cols[i];
      a.values[at] = 2.0 * g.unit() - 1.0;
    }
  }
  return a;
}

// Before a graph of `arcs` arcs is built: they fit 32-bit indices, and the
// `bytes` its generation peaks at fit the memory perron may use.
void check_arcs(std::uint64_t arcs, double bytes, const std::string& spec) {
  if (arcs > max_index)
    throw invalid_argument("synthetic matrix '" + spec + "': " + std::to_string(arcs) +
                           " arcs exceed the 32-bit index limit " + std::to_string(max_index));
  check_host_memory(bytes, "synthetic graph '" + spec + "'");
}

// A graph's pattern by rows: row r's columns are col[row_ptr[r] .. row_ptr[r + 1]),
// sorted and distinct. Rows are sources (A) or targets (A^T, transpose).
struct pattern_rows {
  index_t n = 0;
  std::vector<index_t> row_ptr, col;
};

// n elements left uninitialised (no serial zero fill), advised for huge pages:
// the parallel loop that writes them first maps their pages, on all threads.
template <class T>
std::unique_ptr<T[]> raw_array(std::size_t n) {
  std::unique_ptr<T[]> a(new T[std::max<std::size_t>(n, 1)]);
  advise_huge_pages(a.get(), n * sizeof(T));
  return a;
}

// A vector of n copies of `fill` whose pages are mapped by all threads first:
// resize's fill is then a plain memory write, not one page fault per 4 KiB.
template <class T>
void sized(std::vector<T>& v, std::size_t n, T fill = T()) {
  v.clear();
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
  prefault({byte_span{v.data(), n * sizeof(T)}}, static_cast<unsigned>(omp_get_max_threads()));
  v.resize(n, fill);
}

constexpr std::uint64_t low32 = 0xffffffffu;
std::uint64_t arc(std::uint32_t row, std::uint32_t col) { return (std::uint64_t{row} << 32) | col; }

// Sorts a row's columns (each < 2^bits): from 64 columns on by LSD radix, 8
// bits a pass through tmp, a few streaming passes instead of std::sort's
// log2(len) (R-MAT's busiest rows hold most links: 1e5 to 1e6 columns at
// scale 26). The rows phase of rmat:22:67108864 here: 2.7 s of CPU with
// std::sort alone, 1.7 s from 1024 columns on, 0.9 s from 64.
void sort_row(index_t* row, std::size_t len, unsigned bits, std::vector<index_t>& tmp) {
  if (len < 64) {
    std::sort(row, row + len);
    return;
  }
  tmp.resize(len);
  index_t* from = row;
  index_t* to = tmp.data();
  for (unsigned shift = 0; shift < bits; shift += 8) {
    std::size_t count[257] = {};
    for (std::size_t k = 0; k < len; ++k)
      ++count[((static_cast<std::uint32_t>(from[k]) >> shift) & 255u) + 1];
    for (unsigned d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (std::size_t k = 0; k < len; ++k)
      to[count[(static_cast<std::uint32_t>(from[k]) >> shift) & 255u]++] = from[k];
    std::swap(from, to);
  }
  if (from != row) std::memcpy(row, from, len * sizeof(index_t));
}

// The rows of m keys (row << 32 | col, row < n): each row's columns sorted and
// distinct. Sorted in two parallel passes, each cache-friendly:
//  1. the keys are scattered into B coarse buckets of 2^shift consecutive rows
//     (B <= 4096), each of P parts of the keys (a static split) counting and
//     then placing its own keys;
//  2. each bucket, on one thread, is counting-sorted by row into a scratch
//     array, each row sorted and deduplicated there, and its distinct columns
//     written back, packed as 32-bit values, at the front of the bucket's
//     own stretch of the keys.
// A row prefix sum then places every bucket's columns in `col`. Where a key
// lands inside its bucket depends on P (the thread count), a row's sorted
// distinct columns do not: the result is the same for every thread count.
// Peak: the keys and their scattered copy, 16 bytes per key.
pattern_rows sorted_rows(index_t n, std::unique_ptr<std::uint64_t[]> keys, std::uint64_t m,
                         index_t cols = -1) {
  pattern_rows out;
  out.n = n;
  const auto nn = static_cast<std::uint64_t>(n);
  unsigned shift = 0;
  while ((nn >> shift) > 4096) ++shift;
  const std::size_t buckets = nn == 0 ? 1 : static_cast<std::size_t>(((nn - 1) >> shift) + 1);
  const std::size_t parts = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
  const auto first = [&](std::size_t p) { return static_cast<std::int64_t>(m * p / parts); };
  const auto bucket_of = [shift](std::uint64_t key) {
    return static_cast<std::size_t>((key >> 32) >> shift);
  };
  // 1. Counts per (part, bucket), turned into each part's next place in each bucket.
  std::vector<std::uint64_t> place(parts * buckets, 0);
#pragma omp parallel for schedule(static, 1)
  for (std::int64_t p = 0; p < static_cast<std::int64_t>(parts); ++p) {
    std::uint64_t* count = &place[static_cast<std::size_t>(p) * buckets];
    for (std::int64_t k = first(p); k < first(p + 1); ++k) ++count[bucket_of(keys[k])];
  }
  std::vector<std::uint64_t> bucket_start(buckets + 1, 0);
  for (std::size_t b = 0, at = 0; b < buckets; ++b) {
    bucket_start[b] = at;
    for (std::size_t p = 0; p < parts; ++p) at += std::exchange(place[p * buckets + b], at);
    bucket_start[b + 1] = at;
  }
  auto scattered = raw_array<std::uint64_t>(m);
#pragma omp parallel for schedule(static, 1)
  for (std::int64_t p = 0; p < static_cast<std::int64_t>(parts); ++p) {
    std::uint64_t* next = &place[static_cast<std::size_t>(p) * buckets];
    for (std::int64_t k = first(p); k < first(p + 1); ++k) scattered[next[bucket_of(keys[k])]++] = keys[k];
  }
  keys.reset();

  // 2. Buckets largest first (dynamic): the busiest rows of a skewed graph
  // share a bucket, which then starts at once instead of last.
  std::vector<std::size_t> order(buckets);
  for (std::size_t b = 0; b < buckets; ++b) order[b] = b;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return bucket_start[x + 1] - bucket_start[x] > bucket_start[y + 1] - bucket_start[y];
  });
  sized(out.row_ptr, static_cast<std::size_t>(n) + 1, index_t{0});
  std::vector<std::uint64_t> kept(buckets + 1, 0);  // distinct columns per bucket, then their offsets
  unsigned char* packed = reinterpret_cast<unsigned char*>(scattered.get());
  const auto nc = static_cast<std::uint64_t>(cols < 0 ? n : cols);  // columns are < cols (n: square)
  unsigned col_bits = 1;
  while (col_bits < 32 && (std::uint64_t{1} << col_bits) < nc) ++col_bits;
#pragma omp parallel
  {
    std::vector<index_t> scratch, tmp;
    std::vector<std::uint64_t> at;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t i = 0; i < buckets; ++i) {
      const std::size_t b = order[i];
      const std::uint64_t s = bucket_start[b], e = bucket_start[b + 1];
      const std::uint64_t r0 = std::uint64_t{b} << shift, r1 = std::min(nn, r0 + (std::uint64_t{1} << shift));
      at.assign(static_cast<std::size_t>(r1 - r0) + 1, 0);
      for (std::uint64_t k = s; k < e; ++k) ++at[(scattered[k] >> 32) - r0 + 1];
      for (std::size_t r = 0; r + 1 < at.size(); ++r) at[r + 1] += at[r];
      scratch.resize(static_cast<std::size_t>(e - s));
      for (std::uint64_t k = s; k < e; ++k)
        scratch[at[(scattered[k] >> 32) - r0]++] = static_cast<index_t>(scattered[k] & low32);
      // at[r] is now the end of row r0 + r in scratch (its start: at[r - 1], or 0).
      std::uint64_t written = 0, begin = 0;
      for (std::uint64_t r = r0; r < r1; ++r) {
        const std::uint64_t end = at[r - r0];
        index_t* row = scratch.data() + begin;
        sort_row(row, static_cast<std::size_t>(end - begin), col_bits, tmp);
        const auto distinct = static_cast<std::uint64_t>(std::unique(row, scratch.data() + end) - row);
        if (distinct)  // (an empty bucket's row is a null pointer, which memcpy may not take)
          std::memcpy(packed + 8 * s + 4 * written, row, 4 * distinct);  // 4 * written <= 8 * (k - s)
        out.row_ptr[r + 1] = static_cast<index_t>(distinct);
        written += distinct;
        begin = end;
      }
      kept[b + 1] = written;
    }
  }
  for (std::size_t b = 0; b < buckets; ++b) kept[b + 1] += kept[b];
  const std::uint64_t links = kept[buckets];
  sized(out.col, static_cast<std::size_t>(links));
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::uint64_t r0 = std::uint64_t{b} << shift, r1 = std::min(nn, r0 + (std::uint64_t{1} << shift));
    std::uint64_t sum = kept[b];
    for (std::uint64_t r = r0; r < r1; ++r) {
      sum += static_cast<std::uint64_t>(out.row_ptr[r + 1]);
      out.row_ptr[r + 1] = static_cast<index_t>(sum);
    }
    if (kept[b + 1] > kept[b])  // (no links at all: out.col holds no array)
      std::memcpy(out.col.data() + kept[b], packed + 8 * bucket_start[b], 4 * (kept[b + 1] - kept[b]));
  }
  return out;
}

// cut()'s boundaries, checked: from 0 to n, nondecreasing, on 4096-row blocks.
std::vector<index_t> checked_cut(std::vector<index_t> first, index_t n, const std::string& what) {
  bool ok = first.size() >= 2 && first.front() == 0 && first.back() == n;
  for (std::size_t k = 1; ok && k < first.size(); ++k)
    ok = first[k] >= first[k - 1] && (first[k] % piece_rows == 0 || first[k] == n);
  if (!ok) throw invalid_argument(what + ": the pieces' boundaries must run from 0 to n on 4096-row blocks");
  return first;
}

// Where a family's draws go: the rows of A (or of A^T when transpose), or,
// when cut is set, A^T in row pieces (pieces_of_draws) into *pieces.
struct draw_target {
  bool transpose = false;
  const piece_cut* cut = nullptr;
  transpose_pieces* pieces = nullptr;
  // Set: draws e0 .. e1 - 1 as arcs into *source, *target (synthetic_draws), nothing built.
  std::vector<index_t>* source = nullptr;
  std::vector<index_t>* target = nullptr;
  std::uint64_t e0 = 0, e1 = 0;
};

constexpr std::uint64_t draw_block = 1 << 16;  // draws per parallel block, in every pass

// Runs f(db, e, keys, count, thread) on each block db of draws e .. e + count
// - 1 of [first, last) (keys: A's row << 32 | col), in parallel, each thread
// (0 .. omp_get_max_threads() - 1) with its own key buffer.
template <class Fill, class F>
void for_each_draw_block(std::uint64_t first, std::uint64_t last, Fill& fill, F f) {
  const auto blocks = static_cast<std::int64_t>((last - first + draw_block - 1) / draw_block);
#pragma omp parallel
  {
    std::vector<std::uint64_t> keys(draw_block);
    const int thread = omp_get_thread_num();
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::uint64_t e0 = first + static_cast<std::uint64_t>(b) * draw_block,
                          e1 = std::min(last, e0 + draw_block);
      fill(e0, e1, keys.data());
      f(static_cast<std::uint64_t>(b), e0, keys.data(), e1 - e0, thread);
    }
  }
}

// A^T of m draws in row pieces, past 2^31 links if need be (each piece under
// it): 1. the draws into each 4096-row block of A^T (its targets) counted,
// cut() choosing the pieces from them (whose sizes follow); 2. the draws
// placed in their piece's keys (target - first << 32 | source), each piece
// then sorted into rows as the whole graph is (sorted_rows: the same rows,
// whatever the cut) and its columns counted into the out-degrees. The draws
// are made twice (a few ns each) instead of being kept between the passes
// (a third pass, counting each draw block's draws per piece to place them in
// draw order, was 15-30% of the time on 2 cores: R-MAT 22, web 4M). Peak, while piece k is sorted: the keys
// of pieces k.. (8 bytes a draw), piece k's scattered copy and its columns (8 + 4 a draw), the columns of the
// pieces before it (4 bytes a link, where their keys were) and the n-sized arrays (out-degrees, row
// pointers): at most 8 m + 12 (largest piece) + 8 n, checked once the pieces' sizes are known, before the
// keys are allocated (and 8 m + 8 n before the first pass).
template <class Fill>
transpose_pieces pieces_of_draws(index_t n, std::uint64_t m, const piece_cut& cut, const std::string& spec,
                                 Fill& fill) {
  const std::string what = "synthetic graph '" + spec + "'";
  check_host_memory(8.0 * double(m) + 8.0 * double(n), what + " in pieces");
  const auto nn = static_cast<std::uint64_t>(n);
  const std::size_t row_blocks = static_cast<std::size_t>((nn + piece_rows - 1) / piece_rows);
  // 1.
  const auto threads = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
  std::vector<std::uint64_t> per_thread(threads * row_blocks, 0);
  for_each_draw_block(
      0, m, fill, [&](std::uint64_t, std::uint64_t, const std::uint64_t* keys, std::uint64_t count, int t) {
        std::uint64_t* mine = &per_thread[static_cast<std::size_t>(t) * row_blocks];
        for (std::uint64_t k = 0; k < count; ++k) ++mine[(keys[k] & low32) / piece_rows];
      });
  std::vector<std::uint64_t> block_draws(row_blocks, 0);
  for (std::size_t t = 0; t < threads; ++t)
    for (std::size_t b = 0; b < row_blocks; ++b) block_draws[b] += per_thread[t * row_blocks + b];
  per_thread = {};
  transpose_pieces out;
  out.at.rows = out.at.cols = n;
  out.at.first = checked_cut(cut(block_draws), n, what);
  const std::vector<index_t>& first = out.at.first;
  const std::size_t pieces = first.size() - 1;
  std::vector<std::uint32_t> piece_of(row_blocks);
  for (std::size_t k = 0; k < pieces; ++k)
    for (auto b = static_cast<std::size_t>(first[k] / piece_rows);
         b < row_blocks && b * piece_rows < static_cast<std::uint64_t>(first[k + 1]); ++b)
      piece_of[b] = static_cast<std::uint32_t>(k);
  // 2. Each piece's size from the blocks' counts; each draw block then
  // reserves its piece ranges from a cursor per piece and writes them. The
  // order of a piece's keys varies with the threads' timing; its rows do not
  // (sorted_rows sorts each row and drops repeats).
  std::vector<std::uint64_t> size(pieces, 0);
  for (std::size_t b = 0; b < row_blocks; ++b) size[piece_of[b]] += block_draws[b];
  for (std::size_t k = 0; k < pieces; ++k)
    if (size[k] > max_index)
      throw invalid_argument(what + ": piece " + std::to_string(k) + " (rows " + std::to_string(first[k]) +
                             " to " + std::to_string(first[k + 1]) + ") draws " + std::to_string(size[k]) +
                             " arcs, more than one piece's 32-bit limit " + std::to_string(max_index) +
                             ": cut it finer (more GPUs or chunks)");
  check_host_memory(
      8.0 * double(m) + 12.0 * double(*std::max_element(size.begin(), size.end())) + 8.0 * double(n),
      what + " in " + std::to_string(pieces) + " pieces");
  std::vector<std::unique_ptr<std::uint64_t[]>> keys(pieces);
  for (std::size_t k = 0; k < pieces; ++k)
    keys[k] = raw_array<std::uint64_t>(std::max<std::uint64_t>(1, size[k]));
  const auto cursor = std::make_unique<std::atomic<std::uint64_t>[]>(pieces);
  for (std::size_t k = 0; k < pieces; ++k) cursor[k].store(0, std::memory_order_relaxed);
  std::vector<std::uint64_t> next(threads * pieces);
  for_each_draw_block(0, m, fill,
                      [&](std::uint64_t, std::uint64_t, const std::uint64_t* d, std::uint64_t count, int t) {
                        std::uint64_t* at = &next[static_cast<std::size_t>(t) * pieces];
                        std::fill(at, at + pieces, 0);
                        for (std::uint64_t k = 0; k < count; ++k) ++at[piece_of[(d[k] & low32) / piece_rows]];
                        for (std::size_t q = 0; q < pieces; ++q)
                          if (at[q]) at[q] = cursor[q].fetch_add(at[q], std::memory_order_relaxed);
                        for (std::uint64_t k = 0; k < count; ++k) {
                          const std::uint64_t target = d[k] & low32, source = d[k] >> 32;
                          const std::uint32_t q = piece_of[target / piece_rows];
                          keys[q][at[q]++] = ((target - static_cast<std::uint64_t>(first[q])) << 32) | source;
                        }
                      });
  out.out_degree.assign(static_cast<std::size_t>(n), 0);
  for (std::size_t k = 0; k < pieces; ++k) {
    pattern_rows p = sorted_rows(first[k + 1] - first[k], std::move(keys[k]), size[k], n);
    out.links += p.col.size();
    std::uint32_t* degree = out.out_degree.data();
    const index_t* col = p.col.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t e = 0; e < static_cast<std::int64_t>(p.col.size()); ++e) {
#pragma omp atomic update
      ++degree[col[e]];
    }
    out.at.row_ptr.push_back(std::move(p.row_ptr));
    out.at.col_idx.push_back(std::move(p.col));
  }
  return out;
}

// Keys of draws e = 0..m-1, fill(e0, e1, out) writing draws e0..e1-1 to out
// (row << 32 | col; swapped to col << 32 | row for the transpose), in
// parallel over fixed blocks of draws, then sorted into rows.
// Peak: 16 bytes per draw (sorted_rows), then the output's; with the n-sized
// arrays, 16 m + 16 n bytes, checked before anything large is allocated.
template <class Fill>
pattern_rows rows_of_draws(index_t n, std::uint64_t m, const draw_target& to, const std::string& spec,
                           Fill fill) {
  if (to.cut) {
    *to.pieces = pieces_of_draws(n, m, *to.cut, spec, fill);
    return {};
  }
  if (to.source) {
    const std::uint64_t e0 = std::min(to.e0, m), e1 = std::min(std::max(to.e1, e0), m);
    check_host_memory(8.0 * double(e1 - e0) + 16.0 * double(n),
                      "synthetic graph '" + spec + "', a share of its draws");
    to.source->resize(static_cast<std::size_t>(e1 - e0));
    to.target->resize(static_cast<std::size_t>(e1 - e0));
    index_t* src = to.source->data();
    index_t* dst = to.target->data();
    for_each_draw_block(
        e0, e1, fill,
        [&](std::uint64_t, std::uint64_t e, const std::uint64_t* keys, std::uint64_t count, int) {
          for (std::uint64_t k = 0; k < count; ++k) {
            src[e - e0 + k] = static_cast<index_t>(keys[k] >> 32);
            dst[e - e0 + k] = static_cast<index_t>(keys[k] & low32);
          }
        });
    return {};
  }
  const bool transpose = to.transpose;
  check_arcs(m, 16.0 * double(m) + 16.0 * double(n), spec);
  auto keys = raw_array<std::uint64_t>(m);
  constexpr std::uint64_t block = 1 << 16;
  const auto blocks = static_cast<std::int64_t>((m + block - 1) / block);
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::uint64_t e0 = static_cast<std::uint64_t>(b) * block, e1 = std::min(m, e0 + block);
    fill(e0, e1, keys.get() + e0);
    if (transpose)
      for (std::uint64_t e = e0; e < e1; ++e) keys[e] = (keys[e] << 32) | (keys[e] >> 32);
  }
  return sorted_rows(n, std::move(keys), m);
}

// A fill of one draw at a time: draw(e) -> key.
template <class Draw>
auto each_draw(Draw draw) {
  return [=](std::uint64_t e0, std::uint64_t e1, std::uint64_t* out) {
    for (std::uint64_t e = e0; e < e1; ++e) out[e - e0] = draw(e);
  };
}

// The generator of draw e of a family: its own stream per (family, e).
stream_rng draw_stream(std::uint64_t family, std::uint64_t e) {
  return stream_rng{splitmix64(family ^ (e * 0x9e3779b97f4a7c15ULL))};
}

// A pseudo-random permutation of [0, n) evaluated pointwise: a 4-round Feistel
// network on the smallest even bit width covering n, cycle-walked back into
// [0, n) (the width is < 4n, so a few rounds on average). Shuffles vertex ids
// without materialising a permutation.
class vertex_shuffle {
 public:
  vertex_shuffle(index_t n, std::uint64_t key) : n_(static_cast<std::uint64_t>(n)), key_(key) {
    while ((std::uint64_t{1} << (2 * half_)) < n_) ++half_;
    mask_ = (std::uint64_t{1} << half_) - 1;
  }
  std::uint32_t operator()(std::uint32_t x) const {
    std::uint64_t v = x;
    do v = round_trip(v);
    while (v >= n_);
    return static_cast<std::uint32_t>(v);
  }

 private:
  std::uint64_t round_trip(std::uint64_t v) const {
    std::uint64_t l = v >> half_, r = v & mask_;
    for (std::uint64_t k = 0; k < 4; ++k) {
      const std::uint64_t f = splitmix64(key_ ^ (k << 56) ^ r) & mask_;
      const std::uint64_t t = r;
      r = l ^ f;
      l = t;
    }
    return (l << half_) | r;
  }
  std::uint64_t n_, key_, mask_ = 0;
  unsigned half_ = 1;
};

// rmat:S:M[:A,B,C] — Chakrabarti, Zhan & Faloutsos' recursive matrix model:
// each draw descends S levels into quadrant a (top left), b, c or d = 1 - a -
// b - c; Graph500's .57,.19,.19 unless given. Ids are not shuffled (the
// recursion's locality stays), duplicates merged, pattern (value 1).
struct rmat_skew {
  double a = 0.57, b = 0.19, c = 0.19;
};

// A,B,C: three probabilities, each >= 0, summing to at most 1 (d takes the rest).
rmat_skew parse_skew(std::string_view s, const std::string& spec) {
  double p[3];
  for (int i = 0; i < 3; ++i) {
    const std::size_t comma = i < 2 ? s.find(',') : s.size();
    if (comma == std::string_view::npos)
      throw invalid_argument("synthetic matrix '" + spec + "': the R-MAT skew must be three numbers A,B,C");
    p[i] = parse_real(s.substr(0, comma), spec, "R-MAT probability");
    s.remove_prefix(std::min(s.size(), comma + 1));
  }
  // A + B + C = 1 (D = 0) is legal, but its sum in doubles may round past 1
  // (0.34 + 0.56 + 0.1 = 1 + 2^-52): a few ulps are allowed. The draws compare
  // a uniform u < 1 with the running sums, so D's quadrant stays empty.
  const double sum = p[0] + p[1] + p[2];
  if (!(p[0] >= 0 && p[1] >= 0 && p[2] >= 0 && sum <= 1.0 + 4 * std::numeric_limits<double>::epsilon()))
    throw invalid_argument("synthetic matrix '" + spec +
                           "': the R-MAT probabilities A,B,C must be >= 0 with A + B + C <= 1");
  return rmat_skew{p[0], p[1], p[2]};
}

// R-MAT draws e0..e1-1 into out. Each level of a draw is one step of its
// stream, a chain of dependent 64-bit multiplies; 4 draws advance side by
// side so that their chains overlap in the core, each draw's row and column
// bits shifted in together (row << 32 | col: the column has at most 30 bits,
// so nothing crosses into the row's half). The same numbers as one draw at a
// time.
void rmat_draws_scalar(unsigned scale, double a, double ab, double abc, std::uint64_t e0, std::uint64_t e1,
                       std::uint64_t* out) {
  constexpr unsigned width = 4;
  for (std::uint64_t e = e0; e < e1; e += width) {
    std::uint64_t state[width], key[width] = {};
    for (unsigned j = 0; j < width; ++j) state[j] = draw_stream(0x5eed0000ULL, e + j).state;
    for (unsigned level = 0; level < scale; ++level)
      for (unsigned j = 0; j < width; ++j) {
        state[j] = splitmix64(state[j]);
        // stream_rng::unit()'s number (53 bits fit a signed conversion).
        const double p = static_cast<double>(static_cast<std::int64_t>(state[j] >> 11)) * 0x1.0p-53;
        // Quadrants b, d go right; c, d go down (bitwise, not branches: the
        // comparisons are coin flips no predictor learns).
        const auto right = static_cast<std::uint64_t>((p >= a) & ((p < ab) | (p >= abc)));
        const auto down = static_cast<std::uint64_t>(p >= ab);
        key[j] = (key[j] << 1) | (down << 32) | right;
      }
    for (unsigned j = 0; j < width && e + j < e1; ++j) out[e + j - e0] = key[j];
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PERRON_RMAT_AVX512 1
// The same draws, 16 at a time as 4 vectors of 4 lanes, compiled for
// x86-64-v4 (AVX-512: vpmullq multiplies 64-bit lanes; four independent
// vectors hide its latency) and taken where the CPU has it: 14 against 50 ns
// of CPU per draw at scale 20 on the development machine's EPYC.
using u64x4 = std::uint64_t __attribute__((vector_size(32)));
using i64x4 = std::int64_t __attribute__((vector_size(32)));
using f64x4 = double __attribute__((vector_size(32)));

__attribute__((target("arch=x86-64-v4"))) void rmat_draws_avx512(unsigned scale, double a, double ab,
                                                                 double abc, std::uint64_t e0,
                                                                 std::uint64_t e1, std::uint64_t* out) {
  constexpr unsigned vectors = 4, lanes = 4;
  for (std::uint64_t e = e0; e < e1; e += vectors * lanes) {
    u64x4 state[vectors], key[vectors];
    for (unsigned v = 0; v < vectors; ++v) {
      key[v] = u64x4{0, 0, 0, 0};
      for (unsigned j = 0; j < lanes; ++j) state[v][j] = draw_stream(0x5eed0000ULL, e + lanes * v + j).state;
    }
    for (unsigned level = 0; level < scale; ++level)
      for (unsigned v = 0; v < vectors; ++v) {
        u64x4 x = state[v] + 0x9e3779b97f4a7c15ULL;  // splitmix64, lane by lane
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        x ^= x >> 31;
        state[v] = x;
        const f64x4 p = __builtin_convertvector((i64x4)(x >> 11), f64x4) * 0x1.0p-53;
        const i64x4 right = (p >= a) & ((p < ab) | (p >= abc));  // -1 or 0 per lane
        const i64x4 down = p >= ab;
        key[v] = (key[v] << 1) | ((u64x4)(-down) << 32) | (u64x4)(-right);
      }
    for (unsigned v = 0; v < vectors; ++v)
      for (unsigned j = 0; j < lanes && e + lanes * v + j < e1; ++j) out[e + lanes * v + j - e0] = key[v][j];
  }
}
#endif

void rmat_draws(unsigned scale, double a, double ab, double abc, std::uint64_t e0, std::uint64_t e1,
                std::uint64_t* out) {
#ifdef PERRON_RMAT_AVX512
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
                             __builtin_cpu_supports("avx512cd");
  if (avx512 && !std::getenv("PERRON_RMAT_SCALAR")) return rmat_draws_avx512(scale, a, ab, abc, e0, e1, out);
#endif
  rmat_draws_scalar(scale, a, ab, abc, e0, e1, out);
}

pattern_rows rmat(unsigned scale, std::uint64_t edges, rmat_skew q, const draw_target& to,
                  const std::string& spec) {
  const index_t n = checked_dim(std::uint64_t{1} << scale, spec);
  const double a = q.a, ab = q.a + q.b, abc = q.a + q.b + q.c;
  return rows_of_draws(n, edges, to, spec, [=](std::uint64_t e0, std::uint64_t e1, std::uint64_t* out) {
    rmat_draws(scale, a, ab, abc, e0, e1, out);
  });
}

// er:N:M — Erdos-Renyi G(n, m) with replacement: M arcs, both ends uniform.
pattern_rows erdos_renyi(index_t n, std::uint64_t m, const draw_target& to, const std::string& spec) {
  const auto un = static_cast<std::uint32_t>(n);
  return rows_of_draws(n, m, to, spec, each_draw([=](std::uint64_t e) {
                         stream_rng g = draw_stream(0xe7d05000ULL, e);
                         const std::uint32_t row = g.below(un);
                         return arc(row, g.below(un));
                       }));
}

// Rank k in [0, size) with P(k) ~ (k + 1)^-beta, beta = 1 / (gamma - 1): the
// inverse CDF of the continuous density, k = floor(size u^(1 / (1 - beta)))
// (gamma > 2 keeps beta < 1). As many draws land on rank k as a vertex of
// degree ~ d^-gamma gets.
struct power_rank {
  double expo;
  explicit power_rank(double gamma) : expo(1.0 / (1.0 - 1.0 / (gamma - 1.0))) {}
  std::uint32_t operator()(stream_rng& g, std::uint32_t size) const {
    const double k = std::floor(static_cast<double>(size) * std::pow(g.unit(), expo));
    return std::min(size - 1, static_cast<std::uint32_t>(k));
  }
};

// powerlaw:N:M:GAMMA — Chung & Lu's expected-degree configuration model:
// both ends of each arc drawn by power_rank, so the degrees follow
// P(d) ~ d^-GAMMA; one shuffle of ids for both ends, so a vertex with many
// in-links also has many out-links, as in social graphs.
pattern_rows power_law(index_t n, std::uint64_t m, double gamma, const draw_target& to,
                       const std::string& spec) {
  const vertex_shuffle shuffle(n, 0x90e71a3ULL);
  const power_rank rank(gamma);
  const auto un = static_cast<std::uint32_t>(n);
  return rows_of_draws(n, m, to, spec, each_draw([=](std::uint64_t e) {
                         stream_rng g = draw_stream(0x90e71a3000ULL, e);
                         const std::uint32_t row = shuffle(rank(g, un));
                         return arc(row, shuffle(rank(g, un)));
                       }));
}

// hub:N:M's draws, N - 1 spokes and M uniform arcs; invalid_argument where
// their sum passes 2^64 (it wrapped: hub:10:18446744073709551610 was 3 draws,
// a graph of 3 links generated and solved without a word).
std::uint64_t hub_draws(std::uint64_t n, std::uint64_t m, const std::string& spec) {
  const std::uint64_t spokes = n > 0 ? n - 1 : 0;
  if (m > std::numeric_limits<std::uint64_t>::max() - spokes)
    throw invalid_argument("synthetic matrix '" + spec + "': N - 1 + M arcs pass 2^64");
  return spokes + m;
}

// hub:N:M — every vertex but 0 links to vertex 0 (N - 1 arcs: one row of P^T
// holds them all), plus M uniform arcs as in er:N:M.
pattern_rows hub(index_t n, std::uint64_t m, const draw_target& to, const std::string& spec) {
  const auto un = static_cast<std::uint32_t>(n);
  const std::uint64_t spokes = static_cast<std::uint64_t>(n) - 1;
  return rows_of_draws(n, hub_draws(n, m, spec), to, spec, each_draw([=](std::uint64_t e) {
                         if (e < spokes) return arc(static_cast<std::uint32_t>(e + 1), 0);
                         stream_rng g = draw_stream(0x4b0b000ULL, e);
                         const std::uint32_t row = g.below(un);
                         return arc(row, g.below(un));
                       }));
}

// dangling:N:M:F — M uniform arcs whose sources are only the ceil((1 - F) N)
// vertices that are not dangling (chosen by a shuffle of ids); the others
// have no out-link.
pattern_rows mostly_dangling(index_t n, std::uint64_t m, double f, const draw_target& to,
                             const std::string& spec) {
  const auto un = static_cast<std::uint32_t>(n);
  const auto live = static_cast<std::uint32_t>(
      std::max(1.0, std::ceil((1.0 - f) * static_cast<double>(n))));  // at least one source
  const vertex_shuffle shuffle(n, 0xda9a11ULL);
  return rows_of_draws(n, m, to, spec, each_draw([=](std::uint64_t e) {
                         stream_rng g = draw_stream(0xda9a11000ULL, e);
                         const std::uint32_t row = shuffle(g.below(live));
                         return arc(row, g.below(un));
                       }));
}

// web:N:M[:LOCAL[,GAMMA]] — a web crawl's shape: pages grouped into sites of
// consecutive ids (a crawl numbered by URL keeps a host's pages together),
// most links inside their site, the popular pages drawing most links.
//  - Sites: sizes s = min(cap, floor(s_min / u)), u uniform in (0, 1], so
//    P(size >= s) = s_min / s (Zipf's law for host sizes), s_min = 10,
//    cap = 100000 pages (mean ~ s_min (1 + ln(cap / s_min)) ~ 100); drawn
//    site after site until N pages are covered, the last site cut short.
//  - A link's source: a uniform page u (out-degrees ~ Poisson(M / N)).
//  - With probability LOCAL (default 0.9) the target is a page of u's own
//    site, power_rank(GAMMA) over its pages in id order (default GAMMA 2.5:
//    a site's first pages, its home and index pages, get most links; a
//    target equal to u moves to the next page of the site). A site of one
//    page has no other page: its links are all inter-site.
//  - Otherwise the target is a popular page of a popular site: the site by
//    power_rank(GAMMA) over all sites (shuffled, so popular sites lie
//    anywhere in the id range), the page as above.
struct web_model {
  double local = 0.9, gamma = 2.5;
  static constexpr std::uint64_t min_site = 10, max_site = 100000;
};

web_model parse_web(std::string_view s, const std::string& spec) {
  web_model w;
  const std::size_t comma = s.find(',');
  w.local = parse_real(s.substr(0, comma), spec, "intra-site fraction");
  if (comma != std::string_view::npos) w.gamma = parse_real(s.substr(comma + 1), spec, "degree exponent");
  if (!(w.local >= 0.0 && w.local <= 1.0))
    throw invalid_argument("synthetic matrix '" + spec + "': the intra-site fraction must be in [0, 1]");
  if (!(w.gamma > 2.0 && w.gamma <= 100.0))
    throw invalid_argument("synthetic matrix '" + spec + "': the degree exponent must be in (2, 100]");
  return w;
}

// The first page of each site, then n: sites s = 0.. own [start[s], start[s + 1]).
std::vector<index_t> web_site_starts(index_t n) {
  std::vector<index_t> start{0};
  for (std::uint64_t s = 0, at = 0; at < static_cast<std::uint64_t>(n); ++s) {
    stream_rng g = draw_stream(0x5173000ULL, s);
    const double u = 1.0 - g.unit();  // (0, 1]
    const double size = std::min(double(web_model::max_site), std::floor(double(web_model::min_site) / u));
    at = std::min<std::uint64_t>(static_cast<std::uint64_t>(n), at + static_cast<std::uint64_t>(size));
    start.push_back(static_cast<index_t>(at));
  }
  return start;
}

pattern_rows web(index_t n, std::uint64_t m, web_model w, const draw_target& to, const std::string& spec) {
  // The site of every page: 4 bytes per page beside the draws (pieces_of_draws checks its own).
  if (to.cut || to.source)
    check_host_memory(24.0 * double(n), "synthetic graph '" + spec + "' (its sites)");
  else
    check_arcs(m, 16.0 * double(m) + 24.0 * double(n), spec);
  const std::vector<index_t> start = web_site_starts(n);
  const auto sites = static_cast<index_t>(start.size() - 1);
  std::vector<index_t> site_of;
  sized(site_of, static_cast<std::size_t>(n));
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t s = 0; s < sites; ++s)
    for (index_t p = start[s]; p < start[s + 1]; ++p) site_of[p] = s;
  const vertex_shuffle shuffle(sites, 0x3eb51735ULL);
  const power_rank rank(w.gamma);
  const auto un = static_cast<std::uint32_t>(n), usites = static_cast<std::uint32_t>(sites);
  const index_t* first = start.data();
  const index_t* site = site_of.data();
  const double local = w.local;
  return rows_of_draws(n, m, to, spec, each_draw([=](std::uint64_t e) {
                         stream_rng g = draw_stream(0x3eb000ULL, e);
                         const std::uint32_t u = g.below(un);
                         const index_t s = site[u];
                         const auto size = static_cast<std::uint32_t>(first[s + 1] - first[s]);
                         if (size > 1 && g.unit() < local) {
                           std::uint32_t t = static_cast<std::uint32_t>(first[s]) + rank(g, size);
                           if (t == u) t = static_cast<std::uint32_t>(first[s]) + (t - first[s] + 1) % size;
                           return arc(u, t);
                         }
                         const index_t to = static_cast<index_t>(shuffle(rank(g, usites)));
                         const auto to_size = static_cast<std::uint32_t>(first[to + 1] - first[to]);
                         return arc(u, static_cast<std::uint32_t>(first[to]) + rank(g, to_size));
                       }));
}

// cite:N:M[:COPY] — a citation graph (Price's model as a copying process):
// vertices in order of time, each citing older ones, so the graph is acyclic,
// vertex 0 is dangling and the old vertices draw most links. The M draws are
// spread evenly over the sources 1 .. N - 1 (draw e's source is
// 1 + floor(e (N - 1) / M)); a draw's target is, with probability COPY
// (default 0.5), the target of a uniform earlier draw (one of an older
// source), else a uniform older vertex. A vertex then gains links in
// proportion to those it has (linear preferential attachment): in-degrees
// ~ d^-(1 + 1 / COPY) (the copying model of Kumar et al.; 3 at the default).
// Ids are not shuffled: low ids are old and popular, as in an index numbered
// by date. N = 1: the M draws are self loops.
struct cite_model {
  std::uint64_t m = 0, older = 0;  // older: N - 1, the sources
  double copy = 0.5;
  // Draw e's source, 1 .. N - 1.
  std::uint32_t source(std::uint64_t e) const {
    return static_cast<std::uint32_t>(1 + static_cast<uint128>(e) * older / m);
  }
  // Draws whose source is below v (>= 1): ceil((v - 1) m / older).
  std::uint64_t before(std::uint32_t v) const {
    const uint128 p = static_cast<uint128>(v - 1) * m;
    return static_cast<std::uint64_t>((p + older - 1) / older);
  }
  // Draw e's arc. A copy goes to a strictly earlier draw, so the walk ends
  // (after at most 1 / (1 - COPY) draws on average, and each copy lands on a
  // uniform earlier draw, about e times nearer the start: about ln M + 1
  // draws at most whatever COPY, so no COPY below 1 makes it hang).
  std::uint64_t operator()(std::uint64_t e) const {
    if (older == 0) return arc(0, 0);
    const std::uint32_t v = source(e);
    for (std::uint64_t d = e;;) {
      stream_rng g = draw_stream(0xc17e000ULL, d);
      const std::uint32_t s = source(d);
      const std::uint64_t earlier = before(s);
      if (earlier == 0 || g.unit() >= copy) return arc(v, g.below(s));
      d = g.below64(earlier);
    }
  }
};

pattern_rows citation(index_t n, std::uint64_t m, double copy, const draw_target& to,
                      const std::string& spec) {
  cite_model c;
  c.m = m;
  c.older = static_cast<std::uint64_t>(n) - 1;
  c.copy = copy;
  return rows_of_draws(n, m, to, spec, each_draw(c));
}

// ws:N:K:P's draws, N K; invalid_argument unless 1 <= K <= N - 1 (a larger K
// would list a neighbour twice or the vertex itself).
std::uint64_t ws_draws(std::uint64_t n, std::uint64_t k, const std::string& spec) {
  if (k < 1 || k >= n)
    throw invalid_argument("synthetic matrix '" + spec +
                           "': the neighbour count K must be between 1 and N - 1");
  return n * k;  // n < 2^31, k < n: no wrap
}

// ws:N:K:P — the small world of Watts and Strogatz, directed: N vertices on a
// ring, each linked to its K nearest (v + 1, v - 1, v + 2, v - 2, ...), each
// arc rewired with probability P to a uniform target (duplicates merged).
// P = 0 is a ring lattice banded in the ids (K links a vertex in and out, a
// wider grid); P = 1 is er:N:NK with K out-links a vertex; 0.01-0.1, the
// lattice's locality with a few random long links.
pattern_rows small_world(index_t n, std::uint64_t k, double p, const draw_target& to,
                         const std::string& spec) {
  const auto un = static_cast<std::uint32_t>(n);
  const std::uint64_t m = ws_draws(static_cast<std::uint64_t>(n), k, spec);
  return rows_of_draws(n, m, to, spec, each_draw([=](std::uint64_t e) {
                         stream_rng g = draw_stream(0x5a11000ULL, e);
                         const auto v = static_cast<std::uint32_t>(e / k);
                         const std::uint64_t j = e % k, d = j / 2 + 1;  // d <= (K + 1) / 2 < N
                         if (g.unit() < p) return arc(v, g.below(un));
                         const std::uint64_t t = (j % 2 == 0) ? (v + d) % un : (v + un - d) % un;
                         return arc(v, static_cast<std::uint32_t>(t));
                       }));
}

// sbm:N:M:K[:MU] — communities (the planted partition, a stochastic block
// model): K communities of consecutive ids, community c holding
// [floor(c N / K), floor((c + 1) N / K)); M arcs, each from a uniform source
// to, with probability 1 - MU (default 0.1), a uniform vertex of the source's
// own community, else a uniform vertex anywhere (self loops and duplicates as
// in er:). Rows of even length (Poisson), the links in blocks on the diagonal
// of the ids: a social graph numbered by its communities, as a reordering
// leaves it. K = 1 or MU = 1 is er:N:M.
struct sbm_model {
  std::uint64_t n = 1, k = 1;
  double mu = 0.1;
  // The community of v: the largest c with floor(c N / K) <= v, i.e.
  // c N < (v + 1) K (every product below 2^62).
  std::uint64_t community(std::uint64_t v) const { return ((v + 1) * k - 1) / n; }
  std::uint64_t start(std::uint64_t c) const { return c * n / k; }
  std::uint64_t operator()(std::uint64_t e) const {
    stream_rng g = draw_stream(0x5b3000ULL, e);
    const auto un = static_cast<std::uint32_t>(n);
    const std::uint32_t v = g.below(un);
    if (g.unit() < mu) return arc(v, g.below(un));
    const std::uint64_t c = community(v), lo = start(c);
    return arc(v, static_cast<std::uint32_t>(lo + g.below(static_cast<std::uint32_t>(start(c + 1) - lo))));
  }
};

// bip:U:I:M[:GAMMA]'s counts from parts[1..3]: each side from 1 to the
// 32-bit limit on its own (so that their sum cannot wrap), U + I vertices
// within it too, and 2M draws (each interaction both ways) below 2^64;
// invalid_argument otherwise.
struct bip_counts {
  std::uint64_t users = 0, items = 0, m = 0, draws = 0;
  index_t n = 0;
};
bip_counts bip_sizes(const std::vector<std::string_view>& parts, const std::string& spec) {
  if (parts.size() < 4)
    throw invalid_argument("malformed synthetic matrix '" + spec + "': " + std::string(forms));
  bip_counts b;
  b.users = checked_dim(parse_count(parts[1], spec, "user count"), spec);
  b.items = checked_dim(parse_count(parts[2], spec, "item count"), spec);
  b.m = parse_count(parts[3], spec, "interaction count");
  if (b.users < 1 || b.items < 1)
    throw invalid_argument("synthetic matrix '" + spec + "': both sides need at least one vertex");
  if (b.m > std::numeric_limits<std::uint64_t>::max() / 2)
    throw invalid_argument("synthetic matrix '" + spec + "': 2M arcs pass 2^64");
  b.draws = 2 * b.m;
  b.n = checked_dim(b.users + b.items, spec);
  return b;
}

// bip:U:I:M[:GAMMA] — a bipartite interaction graph (users and items, as in
// ratings, purchases or authorship): vertices 0 .. U - 1 are users, U .. U +
// I - 1 items; M interactions, each a user and an item drawn by
// power_rank(GAMMA) (default 2.5: both sides' activity heavy-tailed, as in
// rating data), each side's ids shuffled; an interaction is two arcs, user ->
// item and item -> user (draw e < M the first of interaction e, draw M + e the
// second). Every cycle is even, so P has the eigenvalue -1 and the power
// iteration's error alternates in sign at rate alpha: a test of the
// extrapolations, which assume a positive dominant error.
struct bip_model {
  std::uint32_t users = 1, items = 1;
  std::uint64_t m = 0;
  power_rank rank{2.5};
  vertex_shuffle user_ids{1, 0}, item_ids{1, 0};
  std::uint64_t operator()(std::uint64_t e) const {
    const bool back = e >= m;
    stream_rng g = draw_stream(0xb19000ULL, back ? e - m : e);
    const std::uint32_t u = user_ids(rank(g, users)), i = users + item_ids(rank(g, items));
    return back ? arc(i, u) : arc(u, i);
  }
};

// Rows of a structured pattern, each listing its sorted columns through
// cols(r, out) -> count (at most 4): counted, prefix-summed, filled in
// parallel. arcs: their total, known in closed form, checked before anything
// is allocated.
template <class Cols>
pattern_rows structured(index_t n, std::uint64_t arcs, const std::string& spec, Cols cols) {
  check_arcs(arcs, 12.0 * double(arcs) + 8.0 * double(n), spec);
  pattern_rows a;
  a.n = n;
  sized(a.row_ptr, static_cast<std::size_t>(n) + 1, index_t{0});
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < n; ++r) {
    index_t c[4];
    a.row_ptr[r + 1] = static_cast<index_t>(cols(r, c));
  }
  for (index_t r = 0; r < n; ++r) a.row_ptr[r + 1] += a.row_ptr[r];
  if (static_cast<std::uint64_t>(a.row_ptr[n]) != arcs)
    throw error("synthetic matrix '" + spec + "': arc count mismatch (internal)");
  sized(a.col, static_cast<std::size_t>(arcs));
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < n; ++r) {
    index_t c[4];
    const int k = cols(r, c);
    for (int i = 0; i < k; ++i) a.col[static_cast<std::size_t>(a.row_ptr[r]) + i] = c[i];
  }
  return a;
}

// grid:R:C — the R x C lattice (vertex i * C + j), each vertex linked both
// ways to its up to 4 neighbours: a road-like graph, in-degree <= 4, banded.
// Symmetric: its transpose is itself.
pattern_rows grid(index_t rows, index_t cols, const std::string& spec) {
  const index_t n = checked_dim(static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols), spec);
  const auto nr = static_cast<std::uint64_t>(rows), nc = static_cast<std::uint64_t>(cols);
  const std::uint64_t arcs = n == 0 ? 0 : 2 * (nr * (nc - 1) + nc * (nr - 1));  // each lattice edge both ways
  return structured(n, arcs, spec, [=](index_t v, index_t* c) {
    const index_t i = v / cols, j = v % cols;
    int k = 0;
    if (i > 0) c[k++] = v - cols;
    if (j > 0) c[k++] = v - 1;
    if (j + 1 < cols) c[k++] = v + 1;
    if (i + 1 < rows) c[k++] = v + cols;
    return k;
  });
}

// chain:N:L — N vertices cut into chains of L (the last one shorter): arcs
// v -> v + 1 inside a chain; each chain's end is dangling. Transposed: row v
// holds v - 1 unless v starts a chain.
pattern_rows chains(index_t n, index_t length, bool transpose, const std::string& spec) {
  const auto nn = static_cast<std::uint64_t>(n), l = static_cast<std::uint64_t>(length);
  const std::uint64_t arcs = nn - (nn + l - 1) / l;  // every vertex but each chain's last
  if (transpose)
    return structured(n, arcs, spec, [=](index_t v, index_t* c) {
      if (v % length == 0) return 0;
      c[0] = v - 1;
      return 1;
    });
  return structured(n, arcs, spec, [=](index_t v, index_t* c) {
    if ((v + 1) % length == 0 || v + 1 == n) return 0;
    c[0] = v + 1;
    return 1;
  });
}

// A pattern's rows as the COO of its matrix (values 1); col becomes col_idx.
coo_matrix<double> coo_of(pattern_rows p) {
  coo_matrix<double> a;
  a.rows = a.cols = p.n;
  const std::size_t links = p.col.size();
  a.col_idx = std::move(p.col);
  sized(a.row_idx, links, index_t{0});
#pragma omp parallel for schedule(dynamic, 4096)
  for (index_t r = 0; r < p.n; ++r)
    std::fill(a.row_idx.begin() + p.row_ptr[r], a.row_idx.begin() + p.row_ptr[r + 1], r);
  sized(a.values, links, 1.0);
  return a;
}

// tridiag:N — the 1D Laplacian stencil [-1 2 -1].
coo_matrix<double> tridiag(index_t n) {
  coo_matrix<double> a;
  a.rows = a.cols = n;
  const std::uint64_t nnz = n == 0 ? 0 : 3 * static_cast<std::uint64_t>(n) - 2;
  if (nnz > max_index)
    throw invalid_argument("synthetic matrix 'tridiag:" + std::to_string(n) + "': " + std::to_string(nnz) +
                           " nonzeros exceed the 32-bit index limit " + std::to_string(max_index));
  check_host_memory(16.0 * double(nnz), "synthetic matrix 'tridiag:" + std::to_string(n) + "'");
  a.row_idx.resize(nnz);
  a.col_idx.resize(nnz);
  a.values.resize(nnz);
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < n; ++r) {
    // Row r starts after 3r-1 entries (row 0 has only two).
    std::uint64_t at = r == 0 ? 0 : 3 * static_cast<std::uint64_t>(r) - 1;
    for (index_t c = r - 1; c <= r + 1; ++c) {
      if (c < 0 || c >= n) continue;
      a.row_idx[at] = r;
      a.col_idx[at] = c;
      a.values[at] = c == r ? 2.0 : -1.0;
      ++at;
    }
  }
  return a;
}

}  // namespace

bool is_synthetic_spec(const std::string& spec) {
  for (const char* prefix : {"synthetic:", "tridiag:"})
    if (spec.rfind(prefix, 0) == 0) return true;
  return is_synthetic_graph_spec(spec);
}

bool is_synthetic_graph_spec(const std::string& spec) {
  for (const char* prefix : {"rmat:", "er:", "powerlaw:", "grid:", "hub:", "dangling:", "chain:", "web:",
                             "cite:", "ws:", "sbm:", "bip:"})
    if (spec.rfind(prefix, 0) == 0) return true;
  return false;
}

namespace {

// The rows of a graph spec's A (sources) or, transposed, of A^T (targets);
// invalid_argument for a malformed spec.
pattern_rows graph_rows(const std::string& spec, const draw_target& to) {
  const auto parts = split(spec);
  const std::string_view family = parts[0];
  const std::size_t args = parts.size() - 1;
  const auto count = [&](std::size_t i, const char* what) { return parse_count(parts[i], spec, what); };
  const auto vertices = [&](std::size_t i) {
    const index_t n = checked_dim(count(i, "vertex count"), spec);
    if (n < 1) throw invalid_argument("synthetic matrix '" + spec + "': the vertex count must be at least 1");
    return n;
  };
  if (family == "rmat" && (args == 2 || args == 3)) {
    const std::uint64_t scale = count(1, "scale");
    if (scale > 30) throw invalid_argument("synthetic matrix '" + spec + "': scale must be at most 30");
    return rmat(static_cast<unsigned>(scale), count(2, "edge count"),
                args == 3 ? parse_skew(parts[3], spec) : rmat_skew{}, to, spec);
  }
  if (family == "er" && args == 2) return erdos_renyi(vertices(1), count(2, "arc count"), to, spec);
  if (family == "powerlaw" && args == 3) {
    const double gamma = parse_real(parts[3], spec, "exponent");
    if (!(gamma > 2.0 && gamma <= 100.0))
      throw invalid_argument("synthetic matrix '" + spec + "': the degree exponent must be in (2, 100]");
    return power_law(vertices(1), count(2, "arc count"), gamma, to, spec);
  }
  if (family == "hub" && args == 2) return hub(vertices(1), count(2, "arc count"), to, spec);
  if (family == "dangling" && args == 3) {
    const double f = parse_real(parts[3], spec, "dangling fraction");
    if (!(f >= 0.0 && f < 1.0))
      throw invalid_argument("synthetic matrix '" + spec + "': the dangling fraction must be in [0, 1)");
    return mostly_dangling(vertices(1), count(2, "arc count"), f, to, spec);
  }
  if (family == "grid" && args == 2)
    return grid(checked_dim(count(1, "row count"), spec), checked_dim(count(2, "column count"), spec), spec);
  if (family == "chain" && args == 2) {
    const index_t n = checked_dim(count(1, "vertex count"), spec);
    const index_t length = checked_dim(count(2, "chain length"), spec);
    if (length < 1)
      throw invalid_argument("synthetic matrix '" + spec + "': the chain length must be at least 1");
    return chains(n, length, to.transpose, spec);
  }
  if (family == "web" && (args == 2 || args == 3))
    return web(vertices(1), count(2, "link count"), args == 3 ? parse_web(parts[3], spec) : web_model{}, to,
               spec);
  if (family == "cite" && (args == 2 || args == 3)) {
    const double copy = args == 3 ? parse_real(parts[3], spec, "copy probability") : 0.5;
    if (!(copy >= 0.0 && copy < 1.0))
      throw invalid_argument("synthetic matrix '" + spec + "': the copy probability must be in [0, 1)");
    return citation(vertices(1), count(2, "citation count"), copy, to, spec);
  }
  if (family == "ws" && args == 3) {
    const double p = parse_real(parts[3], spec, "rewiring probability");
    if (!(p >= 0.0 && p <= 1.0))
      throw invalid_argument("synthetic matrix '" + spec + "': the rewiring probability must be in [0, 1]");
    return small_world(vertices(1), count(2, "neighbour count"), p, to, spec);
  }
  if (family == "sbm" && (args == 3 || args == 4)) {
    sbm_model s;
    s.n = static_cast<std::uint64_t>(vertices(1));
    s.k = count(3, "community count");
    if (s.k < 1 || s.k > s.n)
      throw invalid_argument("synthetic matrix '" + spec +
                             "': the community count K must be between 1 and N");
    if (args == 4) s.mu = parse_real(parts[4], spec, "mixing fraction");
    if (!(s.mu >= 0.0 && s.mu <= 1.0))
      throw invalid_argument("synthetic matrix '" + spec + "': the mixing fraction must be in [0, 1]");
    return rows_of_draws(static_cast<index_t>(s.n), count(2, "arc count"), to, spec, each_draw(s));
  }
  if (family == "bip" && (args == 3 || args == 4)) {
    const bip_counts c = bip_sizes(parts, spec);
    const double gamma = args == 4 ? parse_real(parts[4], spec, "degree exponent") : 2.5;
    if (!(gamma > 2.0 && gamma <= 100.0))
      throw invalid_argument("synthetic matrix '" + spec + "': the degree exponent must be in (2, 100]");
    bip_model b;
    b.users = static_cast<std::uint32_t>(c.users);
    b.items = static_cast<std::uint32_t>(c.items);
    b.m = c.m;
    b.rank = power_rank(gamma);
    b.user_ids = vertex_shuffle(static_cast<index_t>(c.users), 0xb19a5e75ULL);
    b.item_ids = vertex_shuffle(static_cast<index_t>(c.items), 0xb1917e35ULL);
    return rows_of_draws(c.n, c.draws, to, spec, each_draw(b));
  }
  throw invalid_argument("malformed synthetic matrix '" + spec + "': " + std::string(forms));
}

}  // namespace

coo_matrix<double> generate_synthetic(const std::string& spec) {
  const auto parts = split(spec);
  const std::string_view family = parts[0];
  const std::size_t args = parts.size() - 1;
  const auto count = [&](std::size_t i, const char* what) { return parse_count(parts[i], spec, what); };
  if (family == "synthetic" && args == 2 && parts[1].rfind("seed", 0) == 0)
    return seeded_random(parse_count(parts[1].substr(4), spec, "seed"), checked_dim(count(2, "size"), spec));
  if (family == "tridiag" && args == 1) return tridiag(checked_dim(count(1, "size"), spec));
  return coo_of(graph_rows(spec, draw_target{}));
}

template <class T>
csr_matrix<T> generate_graph_transpose(const std::string& spec) {
  if (!is_synthetic_graph_spec(spec))
    throw invalid_argument("'" + spec + "' is not a generated graph (" + std::string(graph_families) + ")");
  pattern_rows p = graph_rows(spec, draw_target{true});
  csr_matrix<T> at;
  at.rows = at.cols = p.n;
  at.row_ptr = std::move(p.row_ptr);
  at.col_idx = std::move(p.col);
  sized(at.values, at.col_idx.size(), T(1));
  return at;
}

template csr_matrix<float> generate_graph_transpose<float>(const std::string&);
template csr_matrix<double> generate_graph_transpose<double>(const std::string&);

bool synthetic_draws(const std::string& spec, std::uint64_t e0, std::uint64_t e1,
                     std::vector<index_t>& source, std::vector<index_t>& target) {
  if (!is_synthetic_graph_spec(spec))
    throw invalid_argument("'" + spec + "' is not a generated graph (" + std::string(graph_families) + ")");
  const std::string_view family = split(spec)[0];
  if (family == "grid" || family == "chain") return false;  // not drawn: built whole
  draw_target to;
  to.source = &source;
  to.target = &target;
  to.e0 = e0;
  to.e1 = e1;
  (void)graph_rows(spec, to);
  return true;
}

transpose_pieces generate_transpose_pieces(const std::string& spec, const piece_cut& cut) {
  if (!is_synthetic_graph_spec(spec))
    throw invalid_argument("'" + spec + "' is not a generated graph (" + std::string(graph_families) + ")");
  transpose_pieces out;
  pattern_rows whole = graph_rows(spec, draw_target{true, &cut, &out});
  if (!out.at.first.empty()) return out;  // a family of draws: built in pieces
  // grid:, chain: (built whole, under 2^31 links by check_arcs): cut as the draws would be.
  const index_t n = whole.n;
  const auto nn = static_cast<std::size_t>(n);
  std::vector<std::uint64_t> block_links((nn + piece_rows - 1) / piece_rows);
  for (std::size_t b = 0; b < block_links.size(); ++b)
    block_links[b] = static_cast<std::uint64_t>(whole.row_ptr[std::min(nn, (b + 1) * piece_rows)] -
                                                whole.row_ptr[b * piece_rows]);
  out.at.rows = out.at.cols = n;
  out.at.first = checked_cut(cut(block_links), n, "synthetic graph '" + spec + "'");
  out.out_degree.assign(nn, 0);
  for (index_t c : whole.col) ++out.out_degree[static_cast<std::size_t>(c)];
  out.links = whole.col.size();
  for (std::size_t k = 0; k + 1 < out.at.first.size(); ++k) {
    const index_t lo = out.at.first[k], hi = out.at.first[k + 1], b = whole.row_ptr[lo];
    std::vector<index_t> rp(static_cast<std::size_t>(hi - lo) + 1);
    for (index_t i = lo; i <= hi; ++i) rp[static_cast<std::size_t>(i - lo)] = whole.row_ptr[i] - b;
    out.at.row_ptr.push_back(std::move(rp));
    out.at.col_idx.emplace_back(whole.col.begin() + b, whole.col.begin() + whole.row_ptr[hi]);
  }
  return out;
}

synthetic_size synthetic_graph_size(const std::string& spec) {
  if (!is_synthetic_graph_spec(spec))
    throw invalid_argument("'" + spec + "' is not a generated graph (" + std::string(graph_families) + ")");
  const auto parts = split(spec);
  if (parts.size() < 3)
    throw invalid_argument("malformed synthetic matrix '" + spec + "': " + std::string(forms));
  const std::uint64_t x = parse_count(parts[1], spec, "size"), y = parse_count(parts[2], spec, "count");
  const std::string_view family = parts[0];
  if (family == "rmat") {
    if (x > 30) throw invalid_argument("synthetic matrix '" + spec + "': scale must be at most 30");
    return {checked_dim(std::uint64_t{1} << x, spec), y};
  }
  if (family == "grid") {
    const index_t n = checked_dim(
        static_cast<std::uint64_t>(checked_dim(x, spec)) * static_cast<std::uint64_t>(checked_dim(y, spec)),
        spec);
    return {n, n == 0 ? 0 : 2 * (x * (y - 1) + y * (x - 1))};
  }
  if (family == "bip") {
    const bip_counts c = bip_sizes(parts, spec);
    return {c.n, c.draws};
  }
  const index_t n = checked_dim(x, spec);
  if (family == "chain") return {n, y == 0 ? 0 : x - (x + y - 1) / y};
  if (family == "hub") return {n, hub_draws(x, y, spec)};
  if (family == "ws") return {n, ws_draws(x, y, spec)};
  return {n, y};  // er, powerlaw, dangling, web, cite, sbm: N:M
}

synthetic_size synthetic_spec_size(const std::string& spec) {
  if (is_synthetic_graph_spec(spec)) return synthetic_graph_size(spec);
  const auto parts = split(spec);
  const std::string_view family = parts[0];
  const std::size_t args = parts.size() - 1;
  const auto count = [&](std::size_t i, const char* what) { return parse_count(parts[i], spec, what); };
  if (family == "synthetic" && args == 2 && parts[1].rfind("seed", 0) == 0) {
    const std::uint64_t seed = parse_count(parts[1].substr(4), spec, "seed");
    const index_t n = checked_dim(count(2, "size"), spec);
    return {n, seeded_nonzeros(seed, n, spec)};
  }
  if (family == "tridiag" && args == 1) {
    const index_t n = checked_dim(count(1, "size"), spec);
    return {n, n == 0 ? 0 : 3 * static_cast<std::uint64_t>(n) - 2};
  }
  throw invalid_argument("malformed synthetic matrix '" + spec + "': " + std::string(forms));
}

std::vector<index_t> web_sites(const std::string& spec) {
  const auto parts = split(spec);
  if (parts[0] != "web" || parts.size() < 3)
    throw invalid_argument("malformed synthetic matrix '" + spec + "': expected web:N:M[:LOCAL[,GAMMA]]");
  return web_site_starts(checked_dim(parse_count(parts[1], spec, "vertex count"), spec));
}

}  // namespace perron::io
