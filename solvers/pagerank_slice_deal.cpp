#include "solvers/pagerank_slice_deal.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <queue>
#include <utility>

namespace perron {

std::vector<unsigned> deal_slices(const std::vector<unsigned>& slice_start,
                                  const std::vector<unsigned char>& cut_after, int grid, int warps, int most,
                                  bool grouped) {
  if (grid < 1 || warps < 1 || slice_start.empty()) return {};
  const auto S = static_cast<long long>(slice_start.size()) - 1;
  const auto g = static_cast<long long>(grid);
  const long long share = (S + g - 1) / g;
  // A warp's slices are a chain: a second one cost about 3 us a step
  // (docs/PERFORMANCE.md, session 34).
  const long long cap = std::min<long long>(most, (share + warps - 1) / warps * warps);
  if (S > g * cap) return {};
  const auto work = [&](long long q) {
    return static_cast<long long>(slice_start[q + 1] - slice_start[q]) + 128;
  };
  long long total = 0;
  for (long long q = 0; q < S; ++q) total += work(q);
  const long long piece_most = grouped ? LLONG_MAX : std::max<long long>(1, total / g / 2);
  std::vector<std::vector<unsigned>> lists(static_cast<std::size_t>(grid));
  std::vector<long long> count(static_cast<std::size_t>(grid), 0);
  using load = std::pair<long long, int>;  // (work, block)
  std::priority_queue<load, std::vector<load>, std::greater<load>> least;
  for (int b = 0; b < grid; ++b) least.push({0, b});
  for (long long q = 0; q < S;) {
    long long end = q + 1;
    while (end < S && static_cast<std::size_t>(end - 1) < cut_after.size() && cut_after[end - 1]) ++end;
    while (q < end) {
      if (least.empty()) return {};
      const auto [have, b] = least.top();
      least.pop();
      long long piece = 0, w = 0;
      while (q + piece < end && count[b] + piece < cap && (piece == 0 || w + work(q + piece) <= piece_most))
        w += work(q + piece++);
      for (long long t = q; t < q + piece; ++t) lists[b].push_back(static_cast<unsigned>(t));
      q += piece;
      count[b] += piece;
      if (count[b] < cap) least.push({have + w, b});  // a full block takes no more
    }
  }
  std::vector<unsigned> deal(static_cast<std::size_t>(grid) + 1 + static_cast<std::size_t>(S));
  unsigned at = 0;
  for (int b = 0; b < grid; ++b) {
    deal[b] = at;
    std::copy(lists[b].begin(), lists[b].end(), deal.begin() + grid + 1 + at);
    at += static_cast<unsigned>(lists[b].size());
  }
  deal[grid] = at;
  return deal;
}

}  // namespace perron
