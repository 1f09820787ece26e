// Deterministic synthetic matrices for benchmarks and tests. Every random draw
// comes from a counter-based generator (splitmix64 of seed and position), so the
// result is the same for any thread count and any machine.
#include "io/synthetic.hpp"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace perron::io {
namespace {

constexpr std::string_view forms = "expected synthetic:seedSSS:N, rmat:SCALE:EDGES or tridiag:N";

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
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    throw invalid_argument("synthetic matrix '" + spec + "': " + what + " '" + std::string(s) +
                           "' is not a non-negative integer (" + std::string(forms) + ")");
  return v;
}

index_t checked_dim(std::uint64_t n, const std::string& spec) {
  if (n > max_index)
    throw invalid_argument("synthetic matrix '" + spec + "': dimension " + std::to_string(n) +
                           " exceeds the 32-bit index limit " + std::to_string(max_index));
  return static_cast<index_t>(n);
}

// synthetic:seedS:N — each row has 0..32 distinct uniformly random columns.
coo_matrix<double> seeded_random(std::uint64_t seed, index_t n) {
  constexpr int max_per_row = 32;
  coo_matrix<double> a;
  a.rows = a.cols = n;
  // Pass 1: row lengths (min(k, n) so tiny matrices can hold distinct columns).
  std::vector<std::uint64_t> offset(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < n; ++r) {
    stream_rng g{splitmix64(seed * 0x100000001b3ULL + static_cast<std::uint64_t>(r))};
    offset[r + 1] = std::min<std::uint64_t>(g.below(max_per_row + 1), static_cast<std::uint64_t>(n));
  }
  for (index_t r = 0; r < n; ++r) offset[r + 1] += offset[r];
  const std::uint64_t nnz = offset[n];
  if (nnz > max_index) throw invalid_argument("synthetic matrix: too many nonzeros for 32-bit indices");
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

// rmat:S:E — Chakrabarti, Zhan & Faloutsos' recursive matrix model with the
// Graph500 probabilities; duplicates merged, values 1 (a pattern graph).
coo_matrix<double> rmat(unsigned scale, std::uint64_t edges, const std::string& spec) {
  const index_t n = checked_dim(std::uint64_t{1} << scale, spec);
  if (edges > max_index)
    throw invalid_argument("synthetic matrix '" + spec + "': too many edges for 32-bit indices");
  constexpr double a = 0.57, b = 0.19, c = 0.19;
  std::vector<std::uint64_t> key(edges);  // row << 32 | col
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < static_cast<std::int64_t>(edges); ++e) {
    stream_rng g{splitmix64(0x5eed0000ULL ^ (static_cast<std::uint64_t>(e) * 0x9e3779b97f4a7c15ULL))};
    std::uint32_t row = 0, col = 0;
    for (unsigned level = 0; level < scale; ++level) {
      const double p = g.unit();
      const std::uint32_t right = p >= a && (p < a + b || p >= a + b + c);  // quadrants b, d
      const std::uint32_t down = p >= a + b;                                // quadrants c, d
      row = (row << 1) | down;
      col = (col << 1) | right;
    }
    key[e] = (static_cast<std::uint64_t>(row) << 32) | col;
  }
  // Bucket by row (counting sort), then sort + unique each row in parallel.
  std::vector<std::uint64_t> start(static_cast<std::size_t>(n) + 1, 0);
  for (std::uint64_t k : key) ++start[(k >> 32) + 1];
  for (index_t r = 0; r < n; ++r) start[r + 1] += start[r];
  std::vector<index_t> col_of(edges);
  {
    std::vector<std::uint64_t> fill(start.begin(), start.end() - 1);
    for (std::uint64_t k : key) col_of[fill[k >> 32]++] = static_cast<index_t>(k & 0xffffffffu);
  }
  key.clear();
  key.shrink_to_fit();
  std::vector<std::uint64_t> kept(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t r = 0; r < n; ++r) {
    auto first = col_of.begin() + static_cast<std::ptrdiff_t>(start[r]);
    auto last = col_of.begin() + static_cast<std::ptrdiff_t>(start[r + 1]);
    std::sort(first, last);
    kept[r + 1] = static_cast<std::uint64_t>(std::unique(first, last) - first);
  }
  for (index_t r = 0; r < n; ++r) kept[r + 1] += kept[r];
  coo_matrix<double> m;
  m.rows = m.cols = n;
  m.row_idx.resize(kept[n]);
  m.col_idx.resize(kept[n]);
  m.values.assign(kept[n], 1.0);
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t r = 0; r < n; ++r)
    for (std::uint64_t i = 0; i < kept[r + 1] - kept[r]; ++i) {
      m.row_idx[kept[r] + i] = r;
      m.col_idx[kept[r] + i] = col_of[start[r] + i];
    }
  return m;
}

// tridiag:N — the 1D Laplacian stencil [-1 2 -1].
coo_matrix<double> tridiag(index_t n) {
  coo_matrix<double> a;
  a.rows = a.cols = n;
  const std::uint64_t nnz = n == 0 ? 0 : 3 * static_cast<std::uint64_t>(n) - 2;
  if (nnz > max_index)
    throw invalid_argument("synthetic matrix tridiag: too many nonzeros for 32-bit indices");
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
  return spec.rfind("synthetic:", 0) == 0 || spec.rfind("rmat:", 0) == 0 || spec.rfind("tridiag:", 0) == 0;
}

coo_matrix<double> generate_synthetic(const std::string& spec) {
  const auto parts = split(spec);
  if (parts[0] == "synthetic" && parts.size() == 3 && parts[1].rfind("seed", 0) == 0)
    return seeded_random(parse_count(parts[1].substr(4), spec, "seed"),
                         checked_dim(parse_count(parts[2], spec, "size"), spec));
  if (parts[0] == "rmat" && parts.size() == 3) {
    const std::uint64_t scale = parse_count(parts[1], spec, "scale");
    if (scale > 30) throw invalid_argument("synthetic matrix '" + spec + "': scale must be at most 30");
    return rmat(static_cast<unsigned>(scale), parse_count(parts[2], spec, "edge count"), spec);
  }
  if (parts[0] == "tridiag" && parts.size() == 2)
    return tridiag(checked_dim(parse_count(parts[1], spec, "size"), spec));
  throw invalid_argument("malformed synthetic matrix '" + spec + "': " + std::string(forms));
}

}  // namespace perron::io
