// Which block of the persistent pull's resident grid takes which slice
// (solvers/pagerank_slice_deal.hpp), without a GPU: every slice once, each
// block's list ascending, no block over its slices, the round-robin deal
// where no row is cut, runs of cut rows kept in one block, and the blocks'
// work balanced on random layouts.
#include "solvers/pagerank_slice_deal.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace perron {
namespace {

struct layout {
  std::vector<unsigned> start;  // slices + 1
  std::vector<unsigned char> cut_after;
};

// Slices of the given positions (32 entries each); cut[q]: a row goes on into q + 1.
layout make_layout(const std::vector<unsigned>& positions, const std::vector<unsigned char>& cut) {
  layout L;
  L.start.push_back(0);
  for (unsigned p : positions) L.start.push_back(L.start.back() + 32 * p);
  L.cut_after = cut;
  L.cut_after.resize(positions.size(), 0);
  return L;
}

std::vector<std::vector<unsigned>> blocks_of(const std::vector<unsigned>& deal, int grid) {
  std::vector<std::vector<unsigned>> b(static_cast<std::size_t>(grid));
  for (int k = 0; k < grid; ++k)
    for (unsigned j = deal[k]; j < deal[k + 1]; ++j) b[k].push_back(deal[grid + 1 + j]);
  return b;
}

// Every slice once, each block ascending, no block over `cap` slices.
void expect_valid(const std::vector<unsigned>& deal, const layout& L, int grid, std::size_t cap) {
  const std::size_t S = L.start.size() - 1;
  ASSERT_EQ(deal.size(), grid + 1 + S);
  EXPECT_EQ(deal[0], 0u);
  EXPECT_EQ(deal[grid], S);
  std::vector<int> seen(S, 0);
  for (const auto& b : blocks_of(deal, grid)) {
    EXPECT_LE(b.size(), cap);
    EXPECT_TRUE(std::is_sorted(b.begin(), b.end()));
    for (unsigned q : b) {
      ASSERT_LT(q, S);
      ++seen[q];
    }
  }
  for (std::size_t q = 0; q < S; ++q) EXPECT_EQ(seen[q], 1) << "slice " << q;
}

TEST(SliceDeal, WithoutCutRowsIsTheRoundRobinDeal) {
  const layout L = make_layout(std::vector<unsigned>(1000, 4), {});
  for (bool grouped : {false, true}) {
    const int grid = 33;
    const auto deal = deal_slices(L.start, L.cut_after, grid, 32, 1024, grouped);
    expect_valid(deal, L, grid, 32);
    const auto b = blocks_of(deal, grid);
    for (int k = 0; k < grid; ++k)
      for (std::size_t i = 0; i < b[k].size(); ++i) EXPECT_EQ(b[k][i], k + i * grid);
  }
}

TEST(SliceDeal, ACutRowsRunStaysInOneBlock) {
  // Slices 0-10 hold one long row (a hub), 20-22 another; the rest alike.
  std::vector<unsigned char> cut(300, 0);
  for (int q = 0; q < 10; ++q) cut[q] = 1;
  cut[20] = cut[21] = 1;
  const layout L = make_layout(std::vector<unsigned>(300, 8), cut);
  for (int grid : {10, 132}) {
    const auto deal = deal_slices(L.start, L.cut_after, grid, 32, 1024, true);
    expect_valid(deal, L, grid, 32);
    for (const auto& b : blocks_of(deal, grid)) {
      const bool has0 = std::count(b.begin(), b.end(), 0u) > 0;
      const bool has20 = std::count(b.begin(), b.end(), 20u) > 0;
      EXPECT_EQ(has0, std::count(b.begin(), b.end(), 10u) > 0);
      EXPECT_EQ(has20, std::count(b.begin(), b.end(), 22u) > 0);
      if (has0) {
        EXPECT_EQ(std::count_if(b.begin(), b.end(), [](unsigned q) { return q <= 10; }), 11);
      }
    }
  }
}

TEST(SliceDeal, ARunLongerThanABlockTakesIsCut) {
  std::vector<unsigned char> cut(100, 1);  // one row over all 100 slices
  const layout L = make_layout(std::vector<unsigned>(100, 8), cut);
  const auto deal = deal_slices(L.start, L.cut_after, 4, 32, 1024, true);
  expect_valid(deal, L, 4, 32);
  // Up to a block's 32 (one slice a warp, as the round-robin deal's 25 give).
  std::vector<std::size_t> sizes;
  for (const auto& b : blocks_of(deal, 4)) sizes.push_back(b.size());
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{4, 32, 32, 32}));
}

TEST(SliceDeal, SpreadCutsLongRunsOfWideSlicesOverBlocks) {
  // 64 wide slices joined by cut rows, then 4000 narrow ones: grouped keeps
  // the wide run in two blocks (32 slices each at most); spread cuts it into
  // pieces of at most half a block's work.
  std::vector<unsigned> pos(64, 8);
  pos.resize(4064, 1);
  std::vector<unsigned char> cut(63, 1);
  const layout L = make_layout(pos, cut);
  const int grid = 132;
  const auto spread = deal_slices(L.start, L.cut_after, grid, 32, 1024, false);
  const auto grouped = deal_slices(L.start, L.cut_after, grid, 32, 1024, true);
  expect_valid(spread, L, grid, 32);
  expect_valid(grouped, L, grid, 32);
  const auto wide_blocks = [&](const std::vector<unsigned>& deal) {
    int n = 0;
    for (const auto& b : blocks_of(deal, grid))
      n += std::any_of(b.begin(), b.end(), [](unsigned q) { return q < 64; });
    return n;
  };
  EXPECT_EQ(wide_blocks(grouped), 2);
  EXPECT_GE(wide_blocks(spread), 8);
}

TEST(SliceDeal, RandomLayoutsBalanceTheWork) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t S = 1 + rng() % 5000;
    std::vector<unsigned> pos(S);
    std::vector<unsigned char> cut(S, 0);
    unsigned width = 8;
    for (std::size_t q = 0; q < S; ++q) {  // rows sorted by length: widths fall
      if (rng() % 50 == 0 && width > 1) --width;
      pos[q] = width;
      cut[q] = q + 1 < S && rng() % 3 == 0;
    }
    const layout L = make_layout(pos, cut);
    const int grid = 1 + static_cast<int>(rng() % 132);
    const std::size_t share = (S + grid - 1) / grid,
                      cap = std::min<std::size_t>(1024, (share + 31) / 32 * 32);
    for (bool grouped : {false, true}) {
      const auto deal = deal_slices(L.start, L.cut_after, grid, 32, 1024, grouped);
      if (S > grid * cap) {
        EXPECT_TRUE(deal.empty());
        continue;
      }
      expect_valid(deal, L, grid, cap);
      if (grouped) continue;
      // Spread: no block's work beyond the mean by more than a piece and a slice.
      long long total = 0, most = 0;
      for (std::size_t q = 0; q < S; ++q) total += L.start[q + 1] - L.start[q] + 128;
      for (const auto& b : blocks_of(deal, grid)) {
        long long w = 0;
        for (unsigned q : b) w += L.start[q + 1] - L.start[q] + 128;
        most = std::max(most, w);
      }
      const long long mean = total / grid, piece = std::max<long long>(1, mean / 2);
      EXPECT_LE(most, mean + piece + 8 * 32 + 128 + 1) << "S " << S << " grid " << grid;
    }
  }
}

TEST(SliceDeal, RefusesWhatDoesNotFit) {
  const layout L = make_layout(std::vector<unsigned>(100, 1), {});
  EXPECT_TRUE(deal_slices(L.start, L.cut_after, 2, 32, 32, false).empty());  // 50 a block > 32
  EXPECT_FALSE(deal_slices(L.start, L.cut_after, 4, 32, 32, false).empty());
  EXPECT_TRUE(deal_slices({}, {}, 4, 32, 32, false).empty());
  EXPECT_TRUE(deal_slices(L.start, L.cut_after, 0, 32, 32, false).empty());
}

}  // namespace
}  // namespace perron
