// csr-adaptive's row blocks (kernels/adaptive_blocks.hpp), without a GPU: the
// plan is the greedy rule walked a row at a time (the reference below, the
// planner's code before session 76), block for block, on every shape near
// its limits; and every row is in exactly one stream block or in its parts.
#include "kernels/adaptive_blocks.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace perron {
namespace {

using adaptive::row_block;

adaptive::plan walked(const std::vector<index_t>& rp, int stream_nnz) {
  adaptive::plan out;
  const auto rows = static_cast<index_t>(rp.size() - 1);
  const auto aligned = [](index_t k) { return k & ~index_t(31); };
  index_t r = 0;
  while (r < rows) {
    const index_t len = rp[r + 1] - rp[r];
    if (rp[r + 1] - aligned(rp[r]) > stream_nnz) {
      const index_t parts = (len + adaptive::long_part_nnz - 1) / adaptive::long_part_nnz;
      const index_t slot = parts > 1 ? out.slots : 0, ticket = parts > 1 ? out.tickets : 0;
      if (parts > 1) {
        out.slots += parts;
        ++out.tickets;
      }
      for (index_t p = 0; p < parts; ++p) {
        const index_t lo = rp[r] + p * adaptive::long_part_nnz;
        const index_t hi = p + 1 == parts ? rp[r + 1] : lo + adaptive::long_part_nnz;
        out.blocks.push_back({r, r + 1, lo, hi, p, parts, slot, ticket});
      }
      ++out.long_rows;
      ++r;
      continue;
    }
    const index_t begin = r;
    while (r < rows && r - begin < adaptive::stream_rows && rp[r + 1] - aligned(rp[begin]) <= stream_nnz) ++r;
    index_t wide = 0;
    if (adaptive::lanes_per_row(r - begin) < 32)
      for (index_t i = begin; i < r && !wide; ++i) wide = rp[i + 1] - rp[i] > adaptive::wide_row_nnz;
    out.blocks.push_back({begin, r, rp[begin], rp[r], -1, wide, 0, 0});
  }
  return out;
}

std::vector<index_t> row_ptr_of(const std::vector<index_t>& lengths) {
  std::vector<index_t> rp(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) rp[i + 1] = rp[i] + lengths[i];
  return rp;
}

void expect_same(const std::vector<index_t>& rp, int stream_nnz, const std::string& at) {
  const adaptive::plan want = walked(rp, stream_nnz);
  const adaptive::plan got =
      adaptive::plan_blocks(rp.data(), static_cast<index_t>(rp.size() - 1), stream_nnz);
  ASSERT_EQ(got.blocks.size(), want.blocks.size()) << at;
  EXPECT_EQ(got.slots, want.slots) << at;
  EXPECT_EQ(got.tickets, want.tickets) << at;
  EXPECT_EQ(got.long_rows, want.long_rows) << at;
  for (std::size_t i = 0; i < want.blocks.size(); ++i) {
    const row_block &g = got.blocks[i], &w = want.blocks[i];
    ASSERT_TRUE(g.row_begin == w.row_begin && g.row_end == w.row_end && g.nnz_begin == w.nnz_begin &&
                g.nnz_end == w.nnz_end && g.part == w.part && g.parts == w.parts && g.slot == w.slot &&
                g.ticket == w.ticket)
        << at << ": block " << i << " rows [" << g.row_begin << ", " << g.row_end << ") against ["
        << w.row_begin << ", " << w.row_end << "), part " << g.part << "/" << w.part << ", parts " << g.parts
        << "/" << w.parts;
  }
  // Every row once, in order.
  index_t next = 0;
  for (const row_block& b : got.blocks) {
    if (b.part > 0) continue;
    ASSERT_EQ(b.row_begin, next) << at;
    next = b.row_end;
  }
  EXPECT_EQ(next, static_cast<index_t>(rp.size() - 1)) << at;
}

TEST(AdaptiveBlocks, PlanIsTheWalkedRule) {
  std::mt19937 rng(76);
  for (int stream_nnz : {adaptive::stream_nnz<float>, adaptive::stream_nnz<double>}) {
    const std::string p = " (stream_nnz " + std::to_string(stream_nnz) + ")";
    expect_same(row_ptr_of({}), stream_nnz, "no rows" + p);
    expect_same(row_ptr_of({0}), stream_nnz, "one empty row" + p);
    expect_same(row_ptr_of({5}), stream_nnz, "one row" + p);
    expect_same(row_ptr_of(std::vector<index_t>(5000, 0)), stream_nnz, "empty rows" + p);
    expect_same(row_ptr_of(std::vector<index_t>(100003, 1)), stream_nnz, "a chain" + p);
    expect_same(row_ptr_of(std::vector<index_t>(4099, 2)), stream_nnz, "rows of 2" + p);
    // Rows at the limits: stream_nnz exactly, one over, the rounding to 32.
    for (index_t len :
         {stream_nnz - 31, stream_nnz - 1, stream_nnz, stream_nnz + 1, 33, 32, 31, adaptive::long_part_nnz,
          adaptive::long_part_nnz + 1, 3 * adaptive::long_part_nnz + 7})
      for (index_t lead : {0, 1, 17, 31, 32}) {
        std::vector<index_t> lengths(20, 3);
        lengths[0] = lead;
        lengths[7] = len;
        lengths[8] = len;
        expect_same(row_ptr_of(lengths), stream_nnz,
                    "a row of " + std::to_string(len) + " after " + std::to_string(lead) + p);
      }
    // Random lengths of several spreads: short rows, wide rows among short
    // ones, power-law tails with long rows in parts.
    for (int spread : {2, 8, 40, 300, 3000, 40000})
      for (int trial = 0; trial < 3; ++trial) {
        std::vector<index_t> lengths(20000 + static_cast<std::size_t>(rng() % 5000));
        for (auto& l : lengths) {
          const double u = std::uniform_real_distribution<double>(0, 1)(rng);
          l = static_cast<index_t>(u * u * u * spread);
        }
        expect_same(row_ptr_of(lengths), stream_nnz,
                    "spread " + std::to_string(spread) + " trial " + std::to_string(trial) + p);
      }
  }
}

}  // namespace
}  // namespace perron
