// Small statistics of timing samples, shared by every benchmark and timed choice.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace perron {

// Median of the samples (mean of the two middle ones for an even count); 0 when empty.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  const auto middle = v.begin() + static_cast<std::ptrdiff_t>(mid);
  std::nth_element(v.begin(), middle, v.end());
  if (v.size() % 2) return v[mid];
  return (v[mid] + *std::max_element(v.begin(), middle)) / 2;
}

}  // namespace perron
