// OpenMP vector operations (declared in kernels/vector_ops.hpp). Reductions
// accumulate in double. Sums are bitwise reproducible whatever the thread count
// or the order the threads finish in: the range is cut into a fixed number of
// chunks (a function of n only), each chunk is summed in index order, and the
// chunk partials are added in chunk order (an OpenMP reduction(+) would combine
// the threads' partials in arrival order). Maxima are order-independent anyway.
#include "kernels/vector_ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/memory.hpp"
#include "kernels/blue_norm.hpp"

namespace perron {

namespace {
// Parallel loops only pay beyond a few thousand elements.
constexpr std::int64_t parallel_threshold = 1 << 14;

// Chunks of a reproducible sum: at least min_chunk elements each, at most
// max_chunks of them (enough to balance any core count this runs on).
constexpr std::int64_t min_chunk = 1 << 12;
constexpr std::int64_t max_chunks = 256;

// Folds add(acc, i) over i < m into an Acc (a double, or nrm2's blue_sums) in
// the fixed chunk order described above; Acc{} is the empty sum and Acc's +=
// joins two chunks.
template <class Acc, class Add>
Acc ordered_fold(std::int64_t m, Add add) {
  const std::int64_t chunks =
      std::min(max_chunks, std::max<std::int64_t>(1, (m + min_chunk - 1) / min_chunk));
  const std::int64_t chunk = (m + chunks - 1) / chunks;
  Acc part[max_chunks];
#pragma omp parallel for schedule(static) if (m > parallel_threshold)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t end = std::min(m, (c + 1) * chunk);
    Acc s{};
    for (std::int64_t i = c * chunk; i < end; ++i) add(s, i);
    part[c] = s;
  }
  Acc s{};
  for (std::int64_t c = 0; c < chunks; ++c) s += part[c];
  return s;
}

// sum_{i < m} term(i) in double.
template <class Term>
double ordered_sum(std::int64_t m, Term term) {
  return ordered_fold<double>(m, [&term](double& s, std::int64_t i) { s += term(i); });
}

// nrm2's three sums (kernels/blue_norm.hpp) as one accumulator of ordered_fold.
struct blue_sums {
  double s[3] = {0, 0, 0};
  void add(double v) { perron::detail::blue::add(s, v); }
  blue_sums& operator+=(const blue_sums& o) {
    for (int k = 0; k < 3; ++k) s[k] += o.s[k];
    return *this;
  }
  double finish() const {
    return perron::detail::blue::finish(s, [](double v) { return std::sqrt(v); });
  }
};

}  // namespace

template <class T>
double dot(std::size_t n, const T* x, const T* y) {
  return ordered_sum(static_cast<std::int64_t>(n), [x, y](std::int64_t i) {
    return static_cast<double>(x[i]) * static_cast<double>(y[i]);
  });
}

template <class T>
double nrm2(std::size_t n, const T* x) {
  // The plain sum of squares where it is exact to rounding: finite (no square
  // overflowed) and at least 2^-900, so the squares that underflowed, each off
  // by under 2^-1074, cannot amount to 2^-111 of it together (n < 2^63). Otherwise
  // (overflow, inf, NaN or a sum that small) Blue's pass.
  const double plain = dot(n, x, x);
  if (plain >= 0x1p-900 && plain <= std::numeric_limits<double>::max()) return std::sqrt(plain);
  return ordered_fold<blue_sums>(static_cast<std::int64_t>(n),
                                 [x](blue_sums& s, std::int64_t i) { s.add(static_cast<double>(x[i])); })
      .finish();
}

template <class T>
double norm_inf(std::size_t n, const T* x) {
  const auto m = static_cast<std::int64_t>(n);
  double s = 0;
  bool nan = false;
#pragma omp parallel for schedule(static) reduction(max : s) reduction(|| : nan) if (m > parallel_threshold)
  for (std::int64_t i = 0; i < m; ++i) {
    const double a = std::abs(static_cast<double>(x[i]));
    if (std::isnan(a)) nan = true;
    s = a > s ? a : s;
  }
  return nan ? std::numeric_limits<double>::quiet_NaN() : s;
}

template <class T>
void axpby(std::size_t n, T alpha, const T* x, T beta, T* y) {
  const auto m = static_cast<std::int64_t>(n);
  if (beta == T(0)) {
#pragma omp parallel for schedule(static) if (m > parallel_threshold)
    for (std::int64_t i = 0; i < m; ++i) y[i] = alpha * x[i];
  } else {
#pragma omp parallel for schedule(static) if (m > parallel_threshold)
    for (std::int64_t i = 0; i < m; ++i) y[i] = alpha * x[i] + beta * y[i];
  }
}

template <class T>
void copy(std::size_t n, const T* x, T* y) {
  const auto m = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) if (m > parallel_threshold)
  for (std::int64_t i = 0; i < m; ++i) y[i] = x[i];
}

template <class T>
void fill(std::size_t n, T value, T* x) {
  const auto m = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) if (m > parallel_threshold)
  for (std::int64_t i = 0; i < m; ++i) x[i] = value;
}

template <class T>
void scale(std::size_t n, T alpha, T* x) {
  const auto m = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) if (m > parallel_threshold)
  for (std::int64_t i = 0; i < m; ++i) x[i] *= alpha;
}

// On the caller's team (the GPU solver sizes its receive's and starts it
// while the device runs), else threads_for_work's.
template <class T>
void widen(std::size_t n, const T* x, double* y, int team) {
  const auto m = static_cast<std::int64_t>(n);
  if (team <= 0) team = threads_for_work(n);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (std::int64_t i = 0; i < m; ++i) y[i] = static_cast<double>(x[i]);
}

#define PERRON_VECTOR_OPS(T)                               \
  template double dot<T>(std::size_t, const T*, const T*); \
  template double nrm2<T>(std::size_t, const T*);          \
  template double norm_inf<T>(std::size_t, const T*);      \
  template void axpby<T>(std::size_t, T, const T*, T, T*); \
  template void copy<T>(std::size_t, const T*, T*);        \
  template void fill<T>(std::size_t, T, T*);               \
  template void scale<T>(std::size_t, T, T*);              \
  template void widen<T>(std::size_t, const T*, double*, int);
PERRON_VECTOR_OPS(float)
PERRON_VECTOR_OPS(double)
#undef PERRON_VECTOR_OPS

}  // namespace perron
