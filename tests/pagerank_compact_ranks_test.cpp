// The ranks' compact form (solvers/pagerank_compact_ranks.hpp), without a GPU:
// the values the device would send for random codes, cut into pieces as the
// receive cuts them and expanded on teams of any size, give every vertex its
// rank; the table holds each out-degree present once, in front; the pieces
// cover the vertices and the values once, in order; bad codes are refused;
// the rule sends compact only where it saves an eighth, or as forced.
#include "solvers/pagerank_compact_ranks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

using test::scoped_env;

// The codes of n vertices, a fraction `empty` of them without in-links and
// out-degrees below `degrees`.
std::vector<std::uint16_t> random_codes(std::size_t n, double empty, int degrees, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> d(0, degrees - 1);
  std::vector<std::uint16_t> code(n);
  for (auto& c : code) c = u(rng) < empty ? static_cast<std::uint16_t>(d(rng) + 1) : 0;
  return code;
}

// What the device sends: the table (one value per degree present, ascending),
// then the rank of every vertex with code 0 in order; the rank of vertex j is
// `rank(j)` and that of a vertex of code c is `table_value(c)`.
template <class T>
std::vector<T> sent_values(const compact_ranks& p, const std::vector<std::uint16_t>& code) {
  std::vector<T> v;
  for (const index_t d : p.table_degrees()) v.push_back(static_cast<T>(1000 + d));
  for (std::size_t j = 0; j < code.size(); ++j)
    if (code[j] == 0) v.push_back(static_cast<T>(0.5 + static_cast<double>(j)));
  v.push_back(T(-1));  // the one value ahead the expansion may read
  return v;
}

double expected(const std::vector<std::uint16_t>& code, std::size_t j) {
  return code[j] == 0 ? 0.5 + static_cast<double>(j) : 1000.0 + (code[j] - 1);
}

template <class T>
void check_round_trip(const std::vector<std::uint16_t>& code, const std::string& what) {
  compact_ranks p(code);
  const std::vector<T> values = sent_values<T>(p, code);
  ASSERT_EQ(values.size(), p.sent() + 1) << what;
  for (std::size_t pieces : {1, 2, 3, 8}) {
    for (int team : {1, 3, 0, -1}) {  // -1: a team by the work, the scalar loop
      std::vector<double> out(code.size(), -7.0);
      p.take_table(values.data());
      index_t next_vertex = 0;
      std::size_t next_value = 0;
      for (std::size_t c = 0; c < pieces; ++c) {
        const compact_ranks::piece q = p.cut(c, pieces);
        ASSERT_EQ(q.first, next_vertex) << what << " piece " << c << " of " << pieces;
        ASSERT_EQ(q.from, next_value) << what << " piece " << c << " of " << pieces;
        ASSERT_TRUE(q.first % compact_ranks::block == 0) << what;
        ASSERT_LE(q.from, q.to);
        next_vertex = q.last;
        next_value = q.to;
        p.expand(q, values.data(), out.data(), std::max(team, 0), team < 0);
      }
      ASSERT_EQ(next_vertex, p.vertices()) << what;
      ASSERT_EQ(next_value, p.sent()) << what;
      for (std::size_t j = 0; j < code.size(); ++j)
        ASSERT_EQ(out[j], expected(code, j))
            << what << " vertex " << j << ", " << pieces << " pieces, team " << team;
    }
  }
}

// Both loops: AVX-512's where the processor has it, and the scalar one.
TEST(compact_ranks, EveryVertexGetsItsRankFromAnyPiecesAndTeam) {
  check_round_trip<float>(random_codes(100000, 0.55, 40, 1), "random 100000 float");
  check_round_trip<double>(random_codes(100000, 0.55, 40, 2), "random 100000 double");
  check_round_trip<float>(random_codes(3 * compact_ranks::block + 17, 0.9, 4096, 3), "every degree");
  check_round_trip<float>(random_codes(5, 0.5, 3, 4), "five vertices");
  check_round_trip<float>(std::vector<std::uint16_t>(20000, 0), "nothing to leave out");
  check_round_trip<double>(std::vector<std::uint16_t>(20000, 3), "no vertex with in-links");
}

TEST(compact_ranks, TableHoldsEachDegreeOnceInFront) {
  const std::vector<std::uint16_t> code = {0, 5, 1, 5, 0, 4096, 1, 0};
  const compact_ranks p(code);
  EXPECT_EQ(p.table_degrees(), (std::vector<index_t>{0, 4, 4095}));
  EXPECT_EQ(p.sent(), 3u + 3u);
  EXPECT_EQ(p.vertices(), 8);
  EXPECT_EQ(p.blocks(), 1u);
  EXPECT_EQ(p.sent_before(0), 0);
  EXPECT_EQ(p.sent_before(1), 3);
}

TEST(compact_ranks, BadCodesAndPiecesAreRefused) {
  EXPECT_THROW(compact_ranks(std::vector<std::uint16_t>{0, compact_ranks::max_degree + 2}), invalid_argument);
  const compact_ranks p(std::vector<std::uint16_t>(10, 1));
  EXPECT_THROW(p.cut(2, 2), invalid_argument);
  EXPECT_THROW(p.cut(0, 0), invalid_argument);
}

TEST(compact_ranks, SentCompactWhereAnEighthIsSaved) {
  {
    const scoped_env unset("PERRON_COMPACT_RANKS", nullptr);
    const index_t n = 1 << 20;
    // Only where the expansion has AVX-512 (the scalar loop is slower than the bus it saves).
    EXPECT_EQ(compact_ranks_pay(n, n / 2), compact_ranks::vector_unit());
    EXPECT_EQ(compact_ranks_pay(n, n - n / 8), compact_ranks::vector_unit());
    EXPECT_FALSE(compact_ranks_pay(n, n - n / 8 + 1));
    EXPECT_FALSE(compact_ranks_pay(n, n));
    EXPECT_FALSE(compact_ranks_pay(1000, 10));  // a small graph's receive is short either way
  }
  {
    const scoped_env on("PERRON_COMPACT_RANKS", "on");
    EXPECT_TRUE(compact_ranks_pay(1000, 999));
    EXPECT_FALSE(compact_ranks_pay(1000, 1000));  // nothing saved
  }
  {
    const scoped_env off("PERRON_COMPACT_RANKS", "off");
    EXPECT_FALSE(compact_ranks_pay(1 << 20, 10));
  }
  {
    const scoped_env rule("PERRON_COMPACT_RANKS", "auto");
    EXPECT_EQ(compact_ranks_pay(1 << 20, 10), compact_ranks::vector_unit());
  }
  const scoped_env typo("PERRON_COMPACT_RANKS", "yes");
  EXPECT_THROW(compact_ranks_pay(1 << 20, 10), invalid_argument);
}

}  // namespace
}  // namespace perron
