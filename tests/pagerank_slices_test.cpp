// The virtual rows of the pattern pulls' sliced layout
// (solvers/pagerank_slices.hpp), without a GPU: each row's virtual rows
// consecutive and of nearly equal length, summing to the row; empty lanes
// only where the layout keeps a row whole; the persistent pull's long rows
// at slice starts, so no run of slices joined by cut rows holds two of them
// (on a skewed graph in the pulls' in-degree order it did).
#include "solvers/pagerank_slices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/synthetic.hpp"
#include "solvers/pagerank.hpp"

namespace perron {
namespace {

std::vector<index_t> row_ptr_of(const std::vector<index_t>& lengths) {
  std::vector<index_t> rp(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) rp[i + 1] = rp[i] + lengths[i];
  return rp;
}

// Every row laid out once, in order, as the header says; empty lanes only
// before a row that starts a slice.
void expect_valid(const virtual_rows& v, const std::vector<index_t>& rp, int W, const std::string& at) {
  const auto n = static_cast<index_t>(rp.size() - 1);
  ASSERT_EQ(v.vrow.size(), v.vlen.size()) << at;
  ASSERT_EQ(v.vrow.size(), v.vbegin.size()) << at;
  ASSERT_EQ(v.parts.size(), static_cast<std::size_t>(n)) << at;
  std::size_t j = 0;
  for (index_t k = 0; k < n; ++k) {
    const index_t L = rp[k + 1] - rp[k];
    const std::size_t pad_from = j;
    while (j < v.vrow.size() && v.vrow[j] == n) {
      ASSERT_EQ(v.vlen[j], 0) << at;
      ++j;
    }
    if (j > pad_from) {
      ASSERT_EQ(j % 32, 0u) << at << ": empty lanes before row " << k << " end mid-slice";
    }
    const std::size_t first = j;
    const index_t count = L > W ? (L + W - 1) / W : 1;
    index_t sum = 0, lo = L, hi = 0, b = rp[k];
    for (index_t i = 0; i < count; ++i, ++j) {
      ASSERT_LT(j, v.vrow.size()) << at;
      ASSERT_EQ(v.vrow[j], k) << at << " row " << k;
      ASSERT_EQ(v.vbegin[j], b) << at << " row " << k;
      b += v.vlen[j];
      sum += v.vlen[j];
      lo = std::min<index_t>(lo, v.vlen[j]);
      hi = std::max<index_t>(hi, v.vlen[j]);
      ASSERT_LE(v.vlen[j], W) << at;
    }
    ASSERT_EQ(sum, L) << at << " row " << k;
    if (L > 0) {
      ASSERT_LE(hi - lo, 1) << at << " row " << k;
    }
    ASSERT_EQ(v.first_slice[k], static_cast<index_t>(first / 32)) << at;
    ASSERT_EQ(v.parts[k], static_cast<index_t>((j - 1) / 32 - first / 32 + 1)) << at;
  }
  ASSERT_EQ(j, v.vrow.size()) << at << ": virtual rows after the last row";
}

// The runs of slices joined by cut rows (a row whose virtual rows span
// slices q and q + 1 joins them), as [first, last] slice pairs.
std::vector<std::pair<index_t, index_t>> runs_of(const virtual_rows& v) {
  const auto slices = static_cast<index_t>((v.vrow.size() + 31) / 32);
  std::vector<char> joined(static_cast<std::size_t>(std::max<index_t>(slices, 1)), 0);
  for (std::size_t k = 0; k < v.parts.size(); ++k)
    for (index_t q = v.first_slice[k]; q + 1 < v.first_slice[k] + v.parts[k]; ++q) joined[q] = 1;
  std::vector<std::pair<index_t, index_t>> runs;
  for (index_t q = 0; q < slices; ++q) {
    if (q == 0 || !joined[q - 1]) runs.push_back({q, q});
    runs.back().second = q;
  }
  return runs;
}

// The most long rows (more virtual rows than a slice holds) starting in one run.
int most_long_rows_in_a_run(const virtual_rows& v, const std::vector<index_t>& rp, int W) {
  const auto runs = runs_of(v);
  std::vector<int> count(runs.size(), 0);
  for (std::size_t k = 0; k + 1 < rp.size(); ++k) {
    const index_t L = rp[k + 1] - rp[k];
    if ((L + W - 1) / W <= 32) continue;
    const index_t s = v.first_slice[k];
    const auto r =
        std::upper_bound(runs.begin(), runs.end(), std::make_pair(s, std::numeric_limits<index_t>::max()));
    ++count[static_cast<std::size_t>(r - runs.begin() - 1)];
  }
  return count.empty() ? 0 : *std::max_element(count.begin(), count.end());
}

// The layout's rule as one serial pass (the library lays rows in parallel):
// a row of v virtual rows starting at lane pos % 32 of a slice first takes
// the lanes left empty where v > left and left <= keep (keep 16, or 4 where
// the first pass passes 32 * warps virtual rows), or where long rows start
// slices and v > 32.
virtual_rows serial_layout(const std::vector<index_t>& rp, int W, std::size_t warps, bool long_rows) {
  const auto n = static_cast<index_t>(rp.size() - 1);
  virtual_rows out;
  const auto lay = [&](long long keep, std::size_t most) {
    out = virtual_rows{};
    out.parts.assign(static_cast<std::size_t>(n), 0);
    out.first_slice.assign(static_cast<std::size_t>(n), 0);
    for (index_t k = 0; k < n; ++k) {
      const long long L = rp[k + 1] - rp[k], v = L > W ? (L + W - 1) / W : 1;
      const long long left = 32 - static_cast<long long>(out.vrow.size() % 32);
      if ((v > left && left <= keep) || (long_rows && v > 32 && left < 32))
        for (long long i = 0; i < left; ++i) {
          out.vrow.push_back(n);
          out.vlen.push_back(0);
          out.vbegin.push_back(rp[k]);
        }
      const std::size_t first = out.vrow.size();
      index_t b = rp[k];
      for (long long i = 0; i < v; ++i) {
        const auto l = static_cast<index_t>(L / v + (i < L % v ? 1 : 0));
        out.vrow.push_back(k);
        out.vlen.push_back(static_cast<unsigned short>(l));
        out.vbegin.push_back(b);
        b += l;
      }
      if (out.vrow.size() > most) return false;
      out.first_slice[k] = static_cast<index_t>(first / 32);
      out.parts[k] = static_cast<index_t>((out.vrow.size() - 1) / 32 - first / 32 + 1);
    }
    return true;
  };
  if (!lay(16, 32 * warps)) lay(4, std::numeric_limits<std::size_t>::max());
  return out;
}

// The parallel layout is the serial rule's, entry for entry, on row counts
// that split over every thread (from 2 * 32768 rows), rows of one to
// thousands of virtual rows anywhere, in and out of length order.
TEST(pagerank_slices, ParallelLayoutIsTheSerialRule) {
  std::mt19937 g(74);
  for (int t = 0; t < 8; ++t) {
    std::vector<index_t> len(t % 4 == 0 ? 1 + g() % 100 : 70000 + g() % 90000);
    for (auto& l : len)
      l = t % 3 == 0 ? g() % 9 : t % 3 == 1 ? (g() % 200 == 0 ? g() % 5000 : g() % 5) : g() % 300;
    if (t % 2) std::sort(len.begin(), len.end(), std::greater<>());
    const auto rp = row_ptr_of(len);
    for (int W : {1, 8, 64})
      for (std::size_t warps : {std::size_t{4224}, std::size_t{8}})
        for (bool long_rows : {false, true}) {
          const std::string at = "case " + std::to_string(t) + " W " + std::to_string(W) + " warps " +
                                 std::to_string(warps) + (long_rows ? " long rows start slices" : "");
          const virtual_rows got = lay_virtual_rows(rp, W, warps, long_rows);
          const virtual_rows want = serial_layout(rp, W, warps, long_rows);
          ASSERT_EQ(got.vrow, want.vrow) << at;
          ASSERT_EQ(got.vbegin, want.vbegin) << at;
          ASSERT_EQ(got.vlen, want.vlen) << at;
          ASSERT_EQ(got.parts, want.parts) << at;
          ASSERT_EQ(got.first_slice, want.first_slice) << at;
        }
  }
}

TEST(pagerank_slices, RowsLaidOutWholeAndInOrder) {
  std::mt19937 g(7);
  for (int t = 0; t < 60; ++t) {
    std::vector<index_t> len(1 + g() % 3000);
    for (auto& l : len)
      l = t % 3 == 0 ? g() % 9 : t % 3 == 1 ? (g() % 50 == 0 ? g() % 4000 : g() % 5) : g() % 300;
    if (t % 2) std::sort(len.begin(), len.end(), std::greater<>());
    const auto rp = row_ptr_of(len);
    for (int W : {1, 8, 24, 64})
      for (std::size_t warps : {std::size_t{4224}, std::size_t{8}})
        for (bool long_rows : {false, true}) {
          const std::string at = "case " + std::to_string(t) + " W " + std::to_string(W) + " warps " +
                                 std::to_string(warps) + (long_rows ? " long rows start slices" : "");
          const virtual_rows v = lay_virtual_rows(rp, W, warps, long_rows);
          expect_valid(v, rp, W, at);
          if (!long_rows) continue;
          std::vector<std::size_t> first(len.size(), 0);
          for (std::size_t j = v.vrow.size(); j-- > 0;)
            if (v.vrow[j] < static_cast<index_t>(len.size())) first[static_cast<std::size_t>(v.vrow[j])] = j;
          for (std::size_t k = 0; k < len.size(); ++k)
            if ((len[k] + W - 1) / W > 32) {
              EXPECT_EQ(first[k] % 32, 0u) << at << " row " << k;
            }
        }
  }
}

// Rows kept whole: a row that would leave at most 16 of its lanes (4 where
// the slices would outnumber the warps) in a slice starts the next one.
TEST(pagerank_slices, ShortRowsAreKeptWholeWherePaddingIsCheap) {
  // 30 one-link rows, then a row of 5 virtual rows (W = 8, 40 links): 2
  // lanes left, so it starts slice 1 behind 2 empty lanes.
  std::vector<index_t> len(30, 1);
  len.push_back(40);
  const auto rp = row_ptr_of(len);
  const virtual_rows roomy = lay_virtual_rows(rp, 8, 4224, false);
  EXPECT_EQ(roomy.first_slice[30], 1);
  EXPECT_EQ(roomy.parts[30], 1);
  EXPECT_EQ(roomy.vrow[30], 31) << "empty lanes are row n";
  // 10 one-link rows leave 22 lanes: more than 16, so the row is cut.
  std::vector<index_t> len2(10, 1);
  len2.push_back(8 * 25);
  const virtual_rows cut = lay_virtual_rows(row_ptr_of(len2), 8, 4224, false);
  EXPECT_EQ(cut.first_slice[10], 0);
  EXPECT_EQ(cut.parts[10], 2);
  // More virtual rows than one a warp: at most 4 empty lanes (20 left: cut).
  std::vector<index_t> len3(12, 1);
  len3.push_back(8 * 25);
  len3.resize(2000, 1);
  const virtual_rows tight = lay_virtual_rows(row_ptr_of(len3), 8, 8, false);
  EXPECT_EQ(tight.parts[12], 2);
  EXPECT_THROW(lay_virtual_rows(rp, 0, 4224, false), invalid_argument);
  EXPECT_THROW(lay_virtual_rows({}, 8, 4224, false), invalid_argument);
}

// The persistent pull's layout: rows of more than 32 virtual rows start a
// slice, so two never share one; in the pulls' in-degree order of a skewed
// graph (R-MAT: its hubs side by side) they did, chained into one run of
// slices joined by cut rows, which the resident grid deals to one block.
TEST(pagerank_slices, LongRowsStartSlicesAndNeverChain) {
  const auto g = make_pagerank_graph<float>(io::generate_synthetic("rmat:14:200000:0.6,0.15,0.15"), false);
  const std::vector<index_t> place = fused_order_places(g);
  std::vector<index_t> len(place.size());
  for (std::size_t v = 0; v < place.size(); ++v)
    len[static_cast<std::size_t>(place[v])] = g.pt.row_ptr[v + 1] - g.pt.row_ptr[v];
  const auto rp = row_ptr_of(len);
  const int W = 8;
  const virtual_rows before = lay_virtual_rows(rp, W, 4224, false),
                     after = lay_virtual_rows(rp, W, 4224, true);
  expect_valid(before, rp, W, "in-degree order");
  expect_valid(after, rp, W, "in-degree order, long rows start slices");
  EXPECT_GT(most_long_rows_in_a_run(before, rp, W), 1) << "the hubs chained (the reason for the rule)";
  EXPECT_EQ(most_long_rows_in_a_run(after, rp, W), 1);
  // At most 31 empty lanes a long row more.
  std::size_t long_rows = 0;
  for (index_t l : len) long_rows += (l + W - 1) / W > 32;
  ASSERT_GT(long_rows, 0u);
  EXPECT_LE(after.vrow.size(), before.vrow.size() + 31 * long_rows);
}

}  // namespace
}  // namespace perron
