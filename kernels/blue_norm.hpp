// nrm2's scaled sum of squares, one definition for both backends
// (kernels/cpu/vector_ops.cpp, kernels/cuda/vector_ops.cu): Blue 1978, as
// LAPACK 3.10's dnrm2 has it (Anderson 2017). Squares of |v| > 2^486 are
// summed times 2^-1076, of |v| < 2^-511 times 2^1074, the rest as they are,
// so no square and no sum of fewer than 2^50 of them overflows or underflows.
// constexpr and free of library calls, so that device code calls it too
// (nvcc --expt-relaxed-constexpr); the caller passes its sqrt.
#pragma once

namespace perron::detail::blue {

constexpr double small_at = 0x1p-511, big_at = 0x1p486;
constexpr double small_scale = 0x1p537, big_scale = 0x1p-538;

// s[0]: the small squares (scaled up), s[1]: the medium ones, s[2]: the big
// ones (scaled down). NaN lands in s[1] and poisons every branch of finish().
constexpr void add(double (&s)[3], double v) {
  const double a = v < 0 ? -v : v;
  if (a > big_at)
    s[2] += (a * big_scale) * (a * big_scale);
  else if (a < small_at)
    s[0] += (a * small_scale) * (a * small_scale);
  else
    s[1] += a * a;
}

// sqrt(s[0] / small_scale^2 + s[1] + s[2] / big_scale^2) without a term that
// cannot be represented: beside a square above 2^972 the small ones are below
// rounding; the small and medium parts meet as norms ys and ym,
// hi * sqrt(1 + (lo / hi)^2).
template <class Sqrt>
constexpr double finish(const double (&s)[3], Sqrt sqrt) {
  const double sum_small = s[0], sum_mid = s[1], sum_big = s[2];
  if (sum_big > 0) return sqrt(sum_big + (sum_mid * big_scale) * big_scale) / big_scale;
  if (sum_small > 0) {
    if (!(sum_mid > 0 || sum_mid != sum_mid)) return sqrt(sum_small) / small_scale;
    const double ys = sqrt(sum_small) / small_scale, ym = sqrt(sum_mid);
    const double lo = ys > ym ? ym : ys, hi = ys > ym ? ys : ym;
    return hi * sqrt(1 + (lo / hi) * (lo / hi));
  }
  return sqrt(sum_mid);
}

}  // namespace perron::detail::blue
