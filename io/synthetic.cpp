// Deterministic synthetic matrices for benchmarks and tests. Every random draw
// comes from a counter-based generator (splitmix64 of seed and position), so the
// result is the same for any thread count and any machine.
#include "io/synthetic.hpp"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/memory.hpp"

namespace perron::io {
namespace {

constexpr std::string_view forms =
    "expected synthetic:seedS:N, tridiag:N, rmat:S:M[:A,B,C], er:N:M, powerlaw:N:M:GAMMA, grid:R:C, hub:N:M, "
    "dangling:N:M:F or chain:N:L";

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
coo_matrix<double> seeded_random(std::uint64_t seed, index_t n) {
  constexpr int max_per_row = 32;
  coo_matrix<double> a;
  a.rows = a.cols = n;
  // Pass 1: row lengths (min(k, n) so tiny matrices can hold distinct columns).
  check_host_memory(8.0 * double(n), "synthetic matrix 'synthetic:seed" + std::to_string(seed) + ":" +
                                         std::to_string(n) + "'");
  std::vector<std::uint64_t> offset(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < n; ++r) {
    stream_rng g{splitmix64(seed * 0x100000001b3ULL + static_cast<std::uint64_t>(r))};
    offset[r + 1] = std::min<std::uint64_t>(g.below(max_per_row + 1), static_cast<std::uint64_t>(n));
  }
  for (index_t r = 0; r < n; ++r) offset[r + 1] += offset[r];
  const std::uint64_t nnz = offset[n];
  if (nnz > max_index) throw invalid_argument("synthetic matrix: too many nonzeros for 32-bit indices");
  check_host_memory(
      16.0 * double(nnz) + 8.0 * double(n),
      "synthetic matrix 'synthetic:seed" + std::to_string(seed) + ":" + std::to_string(n) + "'");
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

// Arcs e = 0..m-1 drawn by draw(e) -> (row << 32 | col), merged into a pattern
// matrix (sorted rows, duplicates counted once, values 1). Draws run in
// parallel; each row is sorted and deduplicated in parallel.
template <class Draw>
coo_matrix<double> pattern_from_draws(index_t n, std::uint64_t m, const std::string& spec, Draw draw) {
  // Peak: the keys (8 m) with the row counts (8 n) and the bucketed columns
  // (4 m), then those columns beside the result (16 per link) and its row
  // offsets (8 n): about 20 m + 16 n bytes.
  check_arcs(m, 20.0 * double(m) + 16.0 * double(n), spec);
  std::vector<std::uint64_t> key(m);  // row << 32 | col
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < static_cast<std::int64_t>(m); ++e)
    key[e] = draw(static_cast<std::uint64_t>(e));
  // Bucket by row (counting sort), then sort + unique each row in parallel.
  std::vector<std::uint64_t> start(static_cast<std::size_t>(n) + 1, 0);
  for (std::uint64_t k : key) ++start[(k >> 32) + 1];
  for (index_t r = 0; r < n; ++r) start[r + 1] += start[r];
  std::vector<index_t> col_of(m);
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
  coo_matrix<double> a;
  a.rows = a.cols = n;
  a.row_idx.resize(kept[n]);
  a.col_idx.resize(kept[n]);
  a.values.assign(kept[n], 1.0);
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t r = 0; r < n; ++r)
    for (std::uint64_t i = 0; i < kept[r + 1] - kept[r]; ++i) {
      a.row_idx[kept[r] + i] = r;
      a.col_idx[kept[r] + i] = col_of[start[r] + i];
    }
  return a;
}

std::uint64_t arc(std::uint32_t row, std::uint32_t col) { return (std::uint64_t{row} << 32) | col; }

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
  if (!(p[0] >= 0 && p[1] >= 0 && p[2] >= 0 && p[0] + p[1] + p[2] <= 1.0))
    throw invalid_argument("synthetic matrix '" + spec +
                           "': the R-MAT probabilities A,B,C must be >= 0 with A + B + C <= 1");
  return rmat_skew{p[0], p[1], p[2]};
}

coo_matrix<double> rmat(unsigned scale, std::uint64_t edges, rmat_skew q, const std::string& spec) {
  const index_t n = checked_dim(std::uint64_t{1} << scale, spec);
  const double a = q.a, ab = q.a + q.b, abc = q.a + q.b + q.c;
  return pattern_from_draws(n, edges, spec, [=](std::uint64_t e) {
    stream_rng g = draw_stream(0x5eed0000ULL, e);
    std::uint32_t row = 0, col = 0;
    for (unsigned level = 0; level < scale; ++level) {
      const double p = g.unit();
      const std::uint32_t right = p >= a && (p < ab || p >= abc);  // quadrants b, d
      const std::uint32_t down = p >= ab;                          // quadrants c, d
      row = (row << 1) | down;
      col = (col << 1) | right;
    }
    return arc(row, col);
  });
}

// er:N:M — Erdos-Renyi G(n, m) with replacement: M arcs, both ends uniform.
coo_matrix<double> erdos_renyi(index_t n, std::uint64_t m, const std::string& spec) {
  const auto un = static_cast<std::uint32_t>(n);
  return pattern_from_draws(n, m, spec, [=](std::uint64_t e) {
    stream_rng g = draw_stream(0xe7d05000ULL, e);
    const std::uint32_t row = g.below(un);
    return arc(row, g.below(un));
  });
}

// powerlaw:N:M:GAMMA — Chung & Lu's expected-degree configuration model:
// both ends of each arc drawn with P(vertex of rank k) ~ (k + 1)^-beta,
// beta = 1 / (GAMMA - 1), so the degrees follow P(d) ~ d^-GAMMA. Rank k is
// the inverse CDF of the continuous density, k = floor(n u^(1 / (1 - beta)))
// (GAMMA > 2 keeps beta < 1); one shuffle of ids for both ends, so a vertex
// with many in-links also has many out-links, as in social graphs.
coo_matrix<double> power_law(index_t n, std::uint64_t m, double gamma, const std::string& spec) {
  const double expo = 1.0 / (1.0 - 1.0 / (gamma - 1.0));
  const vertex_shuffle shuffle(n, 0x90e71a3ULL);
  const auto last = static_cast<std::uint32_t>(n - 1);
  const auto rank = [=](stream_rng& g) {
    const double k = std::floor(static_cast<double>(n) * std::pow(g.unit(), expo));
    return std::min(last, static_cast<std::uint32_t>(k));
  };
  return pattern_from_draws(n, m, spec, [=](std::uint64_t e) {
    stream_rng g = draw_stream(0x90e71a3000ULL, e);
    const std::uint32_t row = shuffle(rank(g));
    return arc(row, shuffle(rank(g)));
  });
}

// hub:N:M — every vertex but 0 links to vertex 0 (N - 1 arcs: one row of P^T
// holds them all), plus M uniform arcs as in er:N:M.
coo_matrix<double> hub(index_t n, std::uint64_t m, const std::string& spec) {
  const auto un = static_cast<std::uint32_t>(n);
  const std::uint64_t spokes = static_cast<std::uint64_t>(n) - 1;
  return pattern_from_draws(n, spokes + m, spec, [=](std::uint64_t e) {
    if (e < spokes) return arc(static_cast<std::uint32_t>(e + 1), 0);
    stream_rng g = draw_stream(0x4b0b000ULL, e);
    const std::uint32_t row = g.below(un);
    return arc(row, g.below(un));
  });
}

// dangling:N:M:F — M uniform arcs whose sources are only the ceil((1 - F) N)
// vertices that are not dangling (chosen by a shuffle of ids); the others
// have no out-link.
coo_matrix<double> mostly_dangling(index_t n, std::uint64_t m, double f, const std::string& spec) {
  const auto un = static_cast<std::uint32_t>(n);
  const auto live = static_cast<std::uint32_t>(
      std::max(1.0, std::ceil((1.0 - f) * static_cast<double>(n))));  // at least one source
  const vertex_shuffle shuffle(n, 0xda9a11ULL);
  return pattern_from_draws(n, m, spec, [=](std::uint64_t e) {
    stream_rng g = draw_stream(0xda9a11000ULL, e);
    const std::uint32_t row = shuffle(g.below(live));
    return arc(row, g.below(un));
  });
}

// Rows of a structured pattern, each listing its sorted columns through
// cols(r, out) -> count (at most 4): counted, prefix-summed, filled in
// parallel. arcs: their total, known in closed form, checked before anything
// is allocated.
template <class Cols>
coo_matrix<double> structured(index_t n, std::uint64_t arcs, const std::string& spec, Cols cols) {
  check_arcs(arcs, 16.0 * double(arcs) + 8.0 * double(n), spec);
  std::vector<std::uint64_t> offset(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < n; ++r) {
    index_t c[4];
    offset[r + 1] = static_cast<std::uint64_t>(cols(r, c));
  }
  for (index_t r = 0; r < n; ++r) offset[r + 1] += offset[r];
  if (offset[n] != arcs) throw error("synthetic matrix '" + spec + "': arc count mismatch (internal)");
  coo_matrix<double> a;
  a.rows = a.cols = n;
  a.row_idx.resize(offset[n]);
  a.col_idx.resize(offset[n]);
  a.values.assign(offset[n], 1.0);
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < n; ++r) {
    index_t c[4];
    const int k = cols(r, c);
    for (int i = 0; i < k; ++i) {
      a.row_idx[offset[r] + i] = r;
      a.col_idx[offset[r] + i] = c[i];
    }
  }
  return a;
}

// grid:R:C — the R x C lattice (vertex i * C + j), each vertex linked both
// ways to its up to 4 neighbours: a road-like graph, in-degree <= 4, banded.
coo_matrix<double> grid(index_t rows, index_t cols, const std::string& spec) {
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
// v -> v + 1 inside a chain; each chain's end is dangling.
coo_matrix<double> chains(index_t n, index_t length, const std::string& spec) {
  const auto nn = static_cast<std::uint64_t>(n), l = static_cast<std::uint64_t>(length);
  const std::uint64_t arcs = nn - (nn + l - 1) / l;  // every vertex but each chain's last
  return structured(n, arcs, spec, [=](index_t v, index_t* c) {
    if ((v + 1) % length == 0 || v + 1 == n) return 0;
    c[0] = v + 1;
    return 1;
  });
}

// tridiag:N — the 1D Laplacian stencil [-1 2 -1].
coo_matrix<double> tridiag(index_t n) {
  coo_matrix<double> a;
  a.rows = a.cols = n;
  const std::uint64_t nnz = n == 0 ? 0 : 3 * static_cast<std::uint64_t>(n) - 2;
  if (nnz > max_index)
    throw invalid_argument("synthetic matrix tridiag: too many nonzeros for 32-bit indices");
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
  for (const char* prefix : {"rmat:", "er:", "powerlaw:", "grid:", "hub:", "dangling:", "chain:"})
    if (spec.rfind(prefix, 0) == 0) return true;
  return false;
}

coo_matrix<double> generate_synthetic(const std::string& spec) {
  const auto parts = split(spec);
  const std::string_view family = parts[0];
  const std::size_t args = parts.size() - 1;
  const auto count = [&](std::size_t i, const char* what) { return parse_count(parts[i], spec, what); };
  const auto vertices = [&](std::size_t i) {
    const index_t n = checked_dim(count(i, "vertex count"), spec);
    if (n < 1) throw invalid_argument("synthetic matrix '" + spec + "': the vertex count must be at least 1");
    return n;
  };
  if (family == "synthetic" && args == 2 && parts[1].rfind("seed", 0) == 0)
    return seeded_random(parse_count(parts[1].substr(4), spec, "seed"), checked_dim(count(2, "size"), spec));
  if (family == "tridiag" && args == 1) return tridiag(checked_dim(count(1, "size"), spec));
  if (family == "rmat" && (args == 2 || args == 3)) {
    const std::uint64_t scale = count(1, "scale");
    if (scale > 30) throw invalid_argument("synthetic matrix '" + spec + "': scale must be at most 30");
    return rmat(static_cast<unsigned>(scale), count(2, "edge count"),
                args == 3 ? parse_skew(parts[3], spec) : rmat_skew{}, spec);
  }
  if (family == "er" && args == 2) return erdos_renyi(vertices(1), count(2, "arc count"), spec);
  if (family == "powerlaw" && args == 3) {
    const double gamma = parse_real(parts[3], spec, "exponent");
    if (!(gamma > 2.0 && gamma <= 100.0))
      throw invalid_argument("synthetic matrix '" + spec + "': the degree exponent must be in (2, 100]");
    return power_law(vertices(1), count(2, "arc count"), gamma, spec);
  }
  if (family == "hub" && args == 2) return hub(vertices(1), count(2, "arc count"), spec);
  if (family == "dangling" && args == 3) {
    const double f = parse_real(parts[3], spec, "dangling fraction");
    if (!(f >= 0.0 && f < 1.0))
      throw invalid_argument("synthetic matrix '" + spec + "': the dangling fraction must be in [0, 1)");
    return mostly_dangling(vertices(1), count(2, "arc count"), f, spec);
  }
  if (family == "grid" && args == 2)
    return grid(checked_dim(count(1, "row count"), spec), checked_dim(count(2, "column count"), spec), spec);
  if (family == "chain" && args == 2) {
    const index_t n = checked_dim(count(1, "vertex count"), spec);
    const index_t length = checked_dim(count(2, "chain length"), spec);
    if (length < 1)
      throw invalid_argument("synthetic matrix '" + spec + "': the chain length must be at least 1");
    return chains(n, length, spec);
  }
  throw invalid_argument("malformed synthetic matrix '" + spec + "': " + std::string(forms));
}

}  // namespace perron::io
