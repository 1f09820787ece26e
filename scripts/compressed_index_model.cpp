// Issue 18 item 3, groundwork (not part of the build): bytes per link of the
// fused pull's column indices if stored as 16-bit deltas, on R-MAT graphs.
// The fused pull's layout (solvers/cuda/pagerank_fused.cu): rows and columns
// relabelled by decreasing in-degree (stable), rows of P^T cut into virtual
// rows of <= W links, 32 virtual rows a slice, each slice stored 32 x its
// widest lane. Here each row's columns are sorted and each virtual row's
// entries are deltas from the previous column (the first from 0). Variants:
//   inline:   a delta >= 0xFFFF costs 3 words in the lane's own stream
//             (escape + 32 bits), so the slice is as wide as its lane with
//             the most escapes;
//   separate: every link one 16-bit word (15 bits of delta and a flag); a
//             delta >= 2^15 puts its high 16 bits in a second sliced stream,
//             32 x the slice's most escapes of one lane;
//   packed:   the same high halves packed per slice (no padding), found by a
//             lane from a count byte per virtual row (a warp scan) and a
//             4-byte start per slice.
// Build and run:  g++ -O2 -o /tmp/cim scripts/compressed_index_model.cpp
//                 /tmp/cim 20 16 64      (scale, edge factor, W)
// Output for scales 16-22 is in docs/PERFORMANCE.md ("Compressed column indices (issue 18 item 3): the
// model").
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using u64 = std::uint64_t;

static u64 splitmix(u64& s) {
  u64 z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCALE [EDGE_FACTOR=16] [W=64]\n", argv[0]);
    return 2;
  }
  const int scale = std::atoi(argv[1]);
  const double ef = argc > 2 ? std::atof(argv[2]) : 16.0;
  const int W = argc > 3 ? std::atoi(argv[3]) : 64;
  const double a = .57, b = .19, c = .19;  // R-MAT's default quadrants, as io/synthetic.cpp
  const u64 n = u64(1) << scale, m = static_cast<u64>(ef * double(n));
  u64 seed = 12345;
  std::vector<u64> key(m);  // destination << 32 | source: a row of P^T per destination
  for (u64 e = 0; e < m; ++e) {
    u64 src = 0, dst = 0;
    for (int l = 0; l < scale; ++l) {
      const double u = double(splitmix(seed) >> 11) * 0x1.0p-53;
      src |= u64(u >= a + b) << l;
      dst |= u64((u >= a && u < a + b) || u >= a + b + c) << l;
    }
    key[e] = dst << 32 | src;
  }
  std::sort(key.begin(), key.end());
  key.erase(std::unique(key.begin(), key.end()), key.end());
  const u64 L = key.size();
  std::vector<std::uint32_t> indeg(n, 0), perm(n), id(n);
  for (u64 k : key) ++indeg[k >> 32];
  for (u64 i = 0; i < n; ++i) perm[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return indeg[x] > indeg[y]; });
  for (u64 i = 0; i < n; ++i) id[perm[i]] = static_cast<std::uint32_t>(i);
  for (u64& k : key) k = u64(id[k >> 32]) << 32 | id[k & 0xffffffffu];
  std::sort(key.begin(), key.end());

  // Per virtual row: links, words (inline variant), escapes (separate variant).
  std::vector<u64> vlinks, vwords, vesc;
  u64 inline_escapes = 0, separate_escapes = 0;
  for (u64 i = 0; i < L;) {
    u64 j = i;
    while (j < L && (key[j] >> 32) == (key[i] >> 32)) ++j;
    const u64 len = j - i, parts = len > u64(W) ? (len + W - 1) / W : 1;
    u64 p = i;
    for (u64 t = 0; t < parts; ++t) {
      const u64 l = len / parts + (t < len % parts);
      u64 words = 0, esc = 0;
      std::uint32_t prev = 0;
      for (u64 q = p; q < p + l; ++q) {
        const auto col = static_cast<std::uint32_t>(key[q] & 0xffffffffu);
        const std::uint32_t d = col - prev;
        prev = col;
        words += d < 0xFFFFu ? 1 : 3;
        inline_escapes += d >= 0xFFFFu;
        esc += d >= 0x8000u;
      }
      separate_escapes += esc;
      vlinks.push_back(l);
      vwords.push_back(words);
      vesc.push_back(esc);
      p += l;
    }
    i = j;
  }
  while (vlinks.size() % 32) {
    vlinks.push_back(0);
    vwords.push_back(0);
    vesc.push_back(0);
  }
  u64 stored32 = 0, stored_inline = 0, stored_sep = 0, stored_esc = 0;
  for (std::size_t q = 0; q < vlinks.size(); q += 32) {
    u64 ml = 0, mw = 0, me = 0;
    for (int l = 0; l < 32; ++l) {
      ml = std::max(ml, vlinks[q + l]);
      mw = std::max(mw, vwords[q + l]);
      me = std::max(me, vesc[q + l]);
    }
    stored32 += 32 * ml;
    stored_inline += 32 * mw;
    stored_sep += 32 * ml;
    stored_esc += 32 * me;
  }
  std::printf(
      "rmat scale %d, edge factor %.0f, W %d: %llu vertices, %llu links\n"
      "  32-bit (today):  %.3f bytes per link\n"
      "  inline escapes:  %.3f bytes per link (escapes %.2f%% of links)\n"
      "  separate stream: %.3f bytes per link (%.3f words + %.3f escape stream; escapes %.2f%%)\n"
      "  packed escapes:  %.3f bytes per link (+ a count byte per virtual row, 4 bytes per slice)\n",
      scale, ef, W, static_cast<unsigned long long>(n), static_cast<unsigned long long>(L),
      4.0 * stored32 / L, 2.0 * stored_inline / L, 100.0 * inline_escapes / L,
      (2.0 * stored_sep + 2.0 * stored_esc) / L, 2.0 * stored_sep / L, 2.0 * stored_esc / L,
      100.0 * separate_escapes / L,
      (2.0 * stored_sep + 2.0 * separate_escapes + double(vlinks.size()) + 4.0 * double(vlinks.size() / 32)) /
          L);
}
