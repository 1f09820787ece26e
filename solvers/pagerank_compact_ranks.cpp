#include "solvers/pagerank_compact_ranks.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/memory.hpp"

namespace perron {

// One pass over the codes on a team (1 ms on one core of the H200 host for
// 10^6 vertices, in the solver's set-up): each block's count of sent
// vertices, each thread's degrees present, then the bases' running sum.
compact_ranks::compact_ranks(std::vector<std::uint16_t> code) : code_(std::move(code)) {
  const std::size_t n = code_.size();
  const auto blocks = static_cast<std::int64_t>((n + block - 1) / block);
  base_.assign(static_cast<std::size_t>(blocks) + 1, 0);
  const std::size_t codes = static_cast<std::size_t>(max_degree) + 2;
  std::vector<unsigned char> present(codes, 0);
  std::int64_t bad = -1;  // the first vertex of a code out of range
  const int team = threads_for_work(n, parallel_grain * 4);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    std::vector<unsigned char> mine(codes, 0);
    std::int64_t my_bad = -1;
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const auto end = static_cast<std::int64_t>(std::min(n, static_cast<std::size_t>(b + 1) * block));
      index_t sent = 0;
      for (std::int64_t j = b * block; j < end; ++j) {
        const std::uint16_t c = code_[static_cast<std::size_t>(j)];
        if (c >= codes) {
          if (my_bad < 0) my_bad = j;
          continue;
        }
        sent += c == 0;
        mine[c] = 1;
      }
      base_[static_cast<std::size_t>(b) + 1] = sent;
    }
#pragma omp critical(perron_compact_ranks)
    {
      for (std::size_t c = 0; c < codes; ++c) present[c] |= mine[c];
      if (my_bad >= 0 && (bad < 0 || my_bad < bad)) bad = my_bad;
    }
  }
  if (bad >= 0)
    throw invalid_argument("compact ranks: vertex " + std::to_string(bad) + " has code " +
                           std::to_string(code_[static_cast<std::size_t>(bad)]) + " (at most " +
                           std::to_string(max_degree + 1) + ")");
  for (std::size_t b = 1; b < base_.size(); ++b) base_[b] += base_[b - 1];
  for (index_t d = 0; d <= max_degree; ++d)
    if (present[static_cast<std::size_t>(d) + 1]) degrees_.push_back(d);
  by_code_.assign(degrees_.empty() ? 1 : static_cast<std::size_t>(degrees_.back()) + 2, 0.0);
  by_code_f_.assign(by_code_.size(), 0.0f);
}

compact_ranks::piece compact_ranks::cut(std::size_t p, std::size_t pieces) const {
  if (pieces == 0 || p >= pieces)
    throw invalid_argument("compact ranks: piece " + std::to_string(p) + " of " + std::to_string(pieces));
  const std::size_t b0 = blocks() * p / pieces, b1 = blocks() * (p + 1) / pieces;
  const auto n = code_.size();
  piece q;
  q.first = static_cast<index_t>(std::min(n, b0 * block));
  q.last = static_cast<index_t>(std::min(n, b1 * block));
  q.from = p == 0 ? 0 : table() + static_cast<std::size_t>(base_[b0]);
  q.to = table() + static_cast<std::size_t>(base_[b1]);
  return q;
}

template <class T>
void compact_ranks::take_table(const T* values) {
  for (std::size_t t = 0; t < degrees_.size(); ++t) {
    by_code_[static_cast<std::size_t>(degrees_[t]) + 1] = static_cast<double>(values[t]);
    by_code_f_[static_cast<std::size_t>(degrees_[t]) + 1] =
        static_cast<float>(values[t]);  // exact for floats
  }
}

namespace {

// Vertices [0, count) of a run: a vertex of code 0 takes values[k++], the
// others their code's table value; returns k after the run.
template <class T>
std::size_t expand_run(const std::uint16_t* code, const T* values, std::size_t k, const double* by_code,
                       double* out, std::int64_t count) {
  for (std::int64_t j = 0; j < count; ++j) {
    // Both loads every time, then a select by mask: no branch on a code
    // that alternates at random (R-MAT: 55% of vertices without
    // in-links); a conditional expression became a branch, 3.5 ns a
    // vertex against 0.7 here on one core.
    const std::uint16_t c = code[j];
    const double s = static_cast<double>(values[k]);
    const double t = by_code[c];  // every code's degree has an entry
    const std::uint64_t sent = std::uint64_t{0} - static_cast<std::uint64_t>(c == 0);
    std::uint64_t sb, tb;
    std::memcpy(&sb, &s, sizeof sb);
    std::memcpy(&tb, &t, sizeof tb);
    const std::uint64_t r = (sb & sent) | (tb & ~sent);
    std::memcpy(out + j, &r, sizeof r);
    k += c == 0;
  }
  return k;
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same, 16 vertices an iteration on AVX-512 where the processor has it
// (the build targets plain x86-64): the sent values of the 16 expanded
// from consecutive memory into their lanes (vexpandps / vexpandpd), the
// others' gathered from the table: 0.57 ns a vertex on one core of the
// H200 host against the scalar loop's 2.2, which kept its 15 threads behind
// the bus (docs/PERFORMANCE.md, session 48).
#define PERRON_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,popcnt")))

PERRON_AVX512 inline __mmask16 sent_mask(const std::uint16_t* code, __m512i& codes) {
  const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(code));
  codes = _mm512_cvtepu16_epi32(c);
  return _mm256_cmpeq_epi16_mask(c, _mm256_setzero_si256());
}

// out[0, 16) from the sent values s0 (lanes 0-7) and s1 (8-15) and the table.
PERRON_AVX512 inline void put16(double* out, __mmask16 m, __m512i codes, __m512d s0, __m512d s1,
                                const double* by_code) {
  const __m256i c0 = _mm512_castsi512_si256(codes), c1 = _mm512_extracti64x4_epi64(codes, 1);
  _mm512_storeu_pd(out, _mm512_mask_i32gather_pd(s0, static_cast<__mmask8>(~m), c0, by_code, 8));
  _mm512_storeu_pd(out + 8, _mm512_mask_i32gather_pd(s1, static_cast<__mmask8>(~m >> 8), c1, by_code, 8));
}

// Floats: the table's floats gathered into the lanes the sent values left
// (one gather of 16 where doubles take two), then widened.
PERRON_AVX512 std::size_t expand_run_avx512(const std::uint16_t* code, const float* values, std::size_t k,
                                            const float* by_code_f, const double* by_code, double* out,
                                            std::int64_t count) {
  std::int64_t j = 0;
  for (; j + 16 <= count; j += 16) {
    __m512i codes;
    const __mmask16 m = sent_mask(code + j, codes);
    __m512 s = _mm512_maskz_expandloadu_ps(m, values + k);
    k += static_cast<std::size_t>(_mm_popcnt_u32(m));
    s = _mm512_mask_i32gather_ps(s, static_cast<__mmask16>(~m), codes, by_code_f, 4);
    _mm512_storeu_pd(out + j, _mm512_cvtps_pd(_mm512_castps512_ps256(s)));
    _mm512_storeu_pd(out + j + 8,
                     _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1))));
  }
  return expand_run(code + j, values, k, by_code, out + j, count - j);
}

PERRON_AVX512 std::size_t expand_run_avx512(const std::uint16_t* code, const double* values, std::size_t k,
                                            const float*, const double* by_code, double* out,
                                            std::int64_t count) {
  std::int64_t j = 0;
  for (; j + 16 <= count; j += 16) {
    __m512i codes;
    const __mmask16 m = sent_mask(code + j, codes);
    const auto m0 = static_cast<__mmask8>(m), m1 = static_cast<__mmask8>(m >> 8);
    const __m512d s0 = _mm512_maskz_expandloadu_pd(m0, values + k);
    k += static_cast<std::size_t>(_mm_popcnt_u32(m0));
    const __m512d s1 = _mm512_maskz_expandloadu_pd(m1, values + k);
    k += static_cast<std::size_t>(_mm_popcnt_u32(m1));
    put16(out + j, m, codes, s0, s1, by_code);
  }
  return expand_run(code + j, values, k, by_code, out + j, count - j);
}
#undef PERRON_AVX512

bool avx512_here() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("popcnt");
  return yes;
}
#else
bool avx512_here() { return false; }
template <class T>
std::size_t expand_run_avx512(const std::uint16_t* code, const T* values, std::size_t k, const float*,
                              const double* by_code, double* out, std::int64_t count) {
  return expand_run(code, values, k, by_code, out, count);
}
#endif

}  // namespace

bool compact_ranks::vector_unit() { return avx512_here(); }

template <class T>
void compact_ranks::expand(const piece& q, const T* values, double* out, int team, bool scalar) const {
  const std::int64_t b0 = q.first / block, b1 = (static_cast<std::int64_t>(q.last) + block - 1) / block;
  if (team <= 0) team = threads_for_work(static_cast<std::size_t>(q.last - q.first));
  const bool simd = !scalar && avx512_here();
  const auto n = static_cast<std::int64_t>(code_.size());
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (std::int64_t b = b0; b < b1; ++b) {
    const std::size_t k = table() + static_cast<std::size_t>(base_[static_cast<std::size_t>(b)]);
    const std::int64_t j = b * block, count = std::min(n, j + block) - j;
    if (simd)
      expand_run_avx512(code_.data() + j, values, k, by_code_f_.data(), by_code_.data(), out + j, count);
    else
      expand_run(code_.data() + j, values, k, by_code_.data(), out + j, count);
  }
}

bool compact_ranks_pay(index_t n, std::size_t sent) {
  const auto nn = static_cast<std::size_t>(n);
  if (sent >= nn) return false;  // nothing saved (and expand reads one value ahead)
  if (const char* env = std::getenv("PERRON_COMPACT_RANKS"); env && *env) {
    if (std::strcmp(env, "on") == 0) return true;
    if (std::strcmp(env, "off") == 0) return false;
    if (std::strcmp(env, "auto") != 0)
      throw invalid_argument(std::string("PERRON_COMPACT_RANKS must be on, off or auto, not '") + env + "'");
  }
  return avx512_here() && n >= (index_t{1} << 16) && sent <= nn - nn / 8;
}

#define PERRON_COMPACT_RANKS_OF(T)                      \
  template void compact_ranks::take_table<T>(const T*); \
  template void compact_ranks::expand<T>(const piece&, const T*, double*, int, bool) const;
PERRON_COMPACT_RANKS_OF(float)
PERRON_COMPACT_RANKS_OF(double)
#undef PERRON_COMPACT_RANKS_OF

}  // namespace perron
