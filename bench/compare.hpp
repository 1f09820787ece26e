// What the GEMM / SpMM benchmarks and their GPU tests share to check a result:
// seeded random inputs and one error measure.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace perron {

// n values uniform in [-1, 1), from a seeded generator (the same on every run).
template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(u(gen));
  return v;
}

// max |c - ref| / max |ref| over all elements (max |c - ref| when ref is all
// zero); NaN when any element of c or ref is NaN.
template <class T>
double max_relative_error(const std::vector<T>& c, const std::vector<T>& ref) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < c.size() && i < ref.size(); ++i) {
    const double d = std::fabs(static_cast<double>(c[i]) - static_cast<double>(ref[i]));
    if (std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
    diff = std::max(diff, d);
    scale = std::max(scale, std::fabs(static_cast<double>(ref[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

}  // namespace perron
