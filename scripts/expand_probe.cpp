// Probe (issue 18 item 3, docs/PERFORMANCE.md "The ranks' widening team",
// session 44): the host's cost of expanding ranks sent only for the vertices
// with in-links (45% of 2^20, as rmat:20's) into doubles, the others filled
// from one value per group (their out-degree's), against the plain widening
// of every value. One thread:
//   g++ -O3 -march=native -o expand_probe scripts/expand_probe.cpp && ./expand_probe
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

using clk = std::chrono::steady_clock;

int main() {
  const std::size_t n = std::size_t(1) << 20;
  std::mt19937 rng(1);
  std::vector<std::uint8_t> keep(n);
  for (auto& k : keep) k = (rng() % 100) < 45;
  std::vector<std::uint16_t> mask16(n / 16);
  std::vector<std::uint32_t> group(n);  // 0: sent; 1-8: the value of group g
  for (std::size_t i = 0; i < n; ++i) group[i] = keep[i] ? 0 : 1 + rng() % 8;
  for (std::size_t w = 0; w < n / 16; ++w) {
    std::uint16_t m = 0;
    for (int j = 0; j < 16; ++j) m |= static_cast<std::uint16_t>(keep[w * 16 + j] << j);
    mask16[w] = m;
  }
  std::vector<float> full(n), packed;
  for (std::size_t i = 0; i < n; ++i) {
    full[i] = static_cast<float>(i) * 1e-7f;
    if (keep[i]) packed.push_back(full[i]);
  }
  packed.resize(packed.size() + 16);
  std::vector<float> rep(16, 3.0f);  // a value per group, padded to one vector
  std::vector<double> y(n);
  auto time = [&](const char* name, auto f) {
    std::vector<double> t;
    for (int r = 0; r < 21; ++r) {
      const auto a = clk::now();
      f();
      t.push_back(std::chrono::duration<double, std::micro>(clk::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    std::printf("%-16s %8.1f us (one thread, 2^20 values)\n", name, t[10]);
  };
  time("widen", [&] {
    for (std::size_t i = 0; i < n; ++i) y[i] = full[i];
  });
  time("expand scalar", [&] {
    std::size_t p = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t g = group[i];
      const float v = packed[p];
      y[i] = g ? rep[g] : v;
      p += g == 0;
    }
  });
  time("expand avx512", [&] {
    const float* src = packed.data();
    const __m512 reps = _mm512_loadu_ps(rep.data());
    for (std::size_t w = 0; w < n / 16; ++w) {
      const __mmask16 m = mask16[w];
      const __m512i g = _mm512_loadu_si512(group.data() + w * 16);
      const __m512 v = _mm512_mask_expandloadu_ps(_mm512_permutexvar_ps(g, reps), m, src);
      src += __builtin_popcount(m);
      _mm512_storeu_pd(y.data() + w * 16, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
      _mm512_storeu_pd(y.data() + w * 16 + 8,
                       _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
    }
  });
  double s = 0;
  for (std::size_t i = 0; i < n; i += 997) s += y[i];
  std::printf("check %g\n", s);
}
