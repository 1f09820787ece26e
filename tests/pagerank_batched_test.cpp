// Batched personalized PageRank on the CPU (solvers/pagerank_batched.hpp):
// every column equals the single-source solve with the same personalization;
// compaction and block splitting change the work, not the results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "tests/pagerank_batched_check.hpp"

namespace perron::test {
namespace {

const char* const graphs[] = {"cycle",  "star",       "dangling-only", "random",
                              "karate", "harvard500", "wiki-Vote"};

pagerank_batched_options options(double tol, int max_iter) {
  return batched_options(tol, max_iter, pagerank_device::cpu);
}

template <class T>
void check_graph(const std::string& name, double tol_rank, int max_iter) {
  const test_graph* tg = get_test_graph(name);
  if (!tg) GTEST_SKIP() << name << " not available";
  const auto g = make_pagerank_graph<T>(tg->matrix, false);
  const auto sources = random_sources(g.vertices(), 12, 5);
  const auto opt = options(1e-10, max_iter);
  const auto r = pagerank_batched_cpu(g, sources, opt);
  EXPECT_FALSE(r.on_gpu);
  expect_columns_match(g, sources, r, opt, tol_rank);
}

TEST(pagerank_batched, ColumnsEqualSingleSolvesDouble) {
  for (const char* name : graphs) {
    SCOPED_TRACE(name);
    check_graph<double>(name, 1e-9, 1000);
  }
}

TEST(pagerank_batched, ColumnsEqualSingleSolvesFloat) {
  for (const char* name : graphs) {
    SCOPED_TRACE(name);
    check_graph<float>(name, 1e-6, 200);
  }
}

// Weighted random graphs with dangling vertices, several seeds.
TEST(pagerank_batched, RandomWeightedGraphs) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto g = make_pagerank_graph<double>(random_graph(500, 2500, seed), true);
    ASSERT_GT(g.dangling_count, 0);
    const auto sources = random_sources(g.vertices(), 20, seed + 10);
    const auto opt = options(1e-10, 1000);
    expect_columns_match(g, sources, pagerank_batched_cpu(g, sources, opt), opt, 1e-9);
  }
}

// Compacting every step, never, and blocks narrower than the source count:
// the same bits per column (each column's arithmetic does not depend on its slot).
TEST(pagerank_batched, CompactionAndBlocksKeepTheResults) {
  const auto g = make_pagerank_graph<double>(random_graph(800, 6000, 9), false);
  const auto sources = random_sources(g.vertices(), 30, 4);
  auto opt = options(1e-10, 1000);
  opt.compact_every = 1000000;
  const auto never = pagerank_batched_cpu(g, sources, opt);
  opt.compact_every = 1;
  const auto every = pagerank_batched_cpu(g, sources, opt);
  opt.block_columns = 7;
  opt.compact_every = 3;
  const auto blocks = pagerank_batched_cpu(g, sources, opt);
  EXPECT_EQ(never.compactions, 0);
  EXPECT_GT(every.compactions, 0);
  EXPECT_LT(every.column_steps, never.column_steps);
  EXPECT_EQ(every.rank, never.rank);
  EXPECT_EQ(blocks.rank, never.rank);
  EXPECT_EQ(every.iterations, never.iterations);
  EXPECT_EQ(blocks.iterations, never.iterations);
  EXPECT_TRUE(never.all_converged());
}

// Every chunk width (a last chunk narrower than the rest: 33 and 65 columns):
// in double the same bits as the default chunks, in float the same ranks to
// 1e-6; each column equal to its single solve.
template <class T>
void check_chunks(double solve_tol, double tol) {
  const auto g = make_pagerank_graph<T>(random_graph(600, 5000, 10), true);
  for (std::size_t s : {std::size_t(1), std::size_t(7), std::size_t(33), std::size_t(65)}) {
    const auto sources = random_sources(g.vertices(), s, 60 + s);
    const auto opt = options(solve_tol, 1000);
    const auto base = pagerank_batched_cpu(g, sources, opt);
    expect_columns_match(g, sources, base, opt, tol);
    for (int chunk : {1, 2, 4, 8, 16, 32}) {
      SCOPED_TRACE(::testing::Message() << s << " sources, chunk " << chunk);
      auto o = opt;
      o.chunk_columns = chunk;
      o.compact_every = chunk % 3 + 1;
      const auto r = pagerank_batched_cpu(g, sources, o);
      if constexpr (std::is_same_v<T, double>) {
        EXPECT_EQ(r.rank, base.rank);
        EXPECT_EQ(r.iterations, base.iterations);
      } else {
        // Float columns move in their last bits with their slot in the block
        // (3.7e-9 here between never compacting and compacting every 4 steps,
        // as before chunks could be chosen): compared by tolerance.
        EXPECT_LE(max_abs_diff(std::vector<double>(r.rank.begin(), r.rank.end()),
                               std::vector<double>(base.rank.begin(), base.rank.end())),
                  tol);
      }
    }
  }
}

TEST(pagerank_batched, ChunkWidthsKeepTheResultsDouble) { check_chunks<double>(1e-10, 1e-9); }
TEST(pagerank_batched, ChunkWidthsKeepTheResultsFloat) { check_chunks<float>(1e-7, 1e-6); }

// The step's instruction-set variants (AVX-512, AVX2, the portable default)
// round the same double operations in the same order: the same bits in
// double, every chunk width; float within 1e-7 of the default and 1e-6 of
// the single solves. Variants this CPU cannot run are skipped.
template <class T>
void check_isas() {
  const auto g = make_pagerank_graph<T>(random_graph(700, 5000, 12), true);
  const auto sources = random_sources(g.vertices(), 37, 8);
  auto opt = options(1e-9, 1000);
  opt.cpu_isa = "default";
  for (int chunk : {0, 1, 4, 32}) {
    opt.chunk_columns = chunk;
    const auto base = pagerank_batched_cpu(g, sources, opt);
    for (const char* isa : {"avx2", "avx512"}) {
      SCOPED_TRACE(::testing::Message() << isa << ", chunk " << chunk);
      auto o = opt;
      o.cpu_isa = isa;
      try {
        if (pagerank_batched_cpu_isa(isa) != isa) continue;
      } catch (const invalid_argument&) {
        continue;  // not on this CPU
      }
      const auto r = pagerank_batched_cpu(g, sources, o);
      if constexpr (std::is_same_v<T, double>) {
        EXPECT_EQ(r.rank, base.rank);
        EXPECT_EQ(r.iterations, base.iterations);
        EXPECT_EQ(r.residual, base.residual);
      } else {
        // Float: the last bits move between the variants as they move with a
        // column's slot (check_chunks); each column still equals its single
        // solve to 1e-6.
        const double d = max_abs_diff(std::vector<double>(r.rank.begin(), r.rank.end()),
                                      std::vector<double>(base.rank.begin(), base.rank.end()));
        EXPECT_LE(d, 1e-7);
        std::cout << "float " << isa << ", chunk " << chunk << ": max |diff| to default " << d << "\n";
        expect_columns_match(g, sources, r, o, 1e-6);
      }
    }
  }
}

TEST(pagerank_batched, InstructionSetsGiveTheSameBitsDouble) { check_isas<double>(); }
TEST(pagerank_batched, InstructionSetsAgreeFloat) { check_isas<float>(); }

TEST(pagerank_batched, UnknownInstructionSetIsAnError) {
  EXPECT_THROW(pagerank_batched_cpu_isa("sse9"), invalid_argument);
  const std::string automatic = pagerank_batched_cpu_isa("");
  EXPECT_TRUE(automatic == "avx512" || automatic == "avx2" || automatic == "default") << automatic;
  EXPECT_EQ(pagerank_batched_cpu_isa("default"), "default");
}

TEST(pagerank_batched, NotConvergingIsAResult) {
  const auto g = make_pagerank_graph<double>(random_graph(200, 1000, 3), false);
  const auto sources = random_sources(g.vertices(), 4, 1);
  const auto r = pagerank_batched_cpu(g, sources, options(1e-14, 3));
  for (std::size_t c = 0; c < 4; ++c) {
    EXPECT_FALSE(r.converged[c]);
    EXPECT_EQ(r.iterations[c], 3);
  }
  expect_columns_match(g, sources, r, options(1e-14, 3), 1e-12);
}

// base.progress: after every step of a block, with the block's step and its
// largest residual; a callback that throws stops the solve (the Python
// module's Ctrl-C).
TEST(pagerank_batched, ProgressAfterEveryStepAndAThrowStops) {
  const auto g = make_pagerank_graph<double>(random_graph(200, 1000, 3), false);
  const auto sources = random_sources(g.vertices(), 4, 1);
  auto opt = options(1e-10, 1000);
  std::vector<std::pair<int, double>> calls;
  opt.base.progress = [&](int k, double residual) { calls.emplace_back(k, residual); };
  const auto r = pagerank_batched_cpu(g, sources, opt);
  int most = 0;
  double last = 0;
  for (std::size_t c = 0; c < sources.size(); ++c)
    if (r.iterations[c] > most) most = r.iterations[c], last = r.residual[c];
  ASSERT_EQ(calls.size(), static_cast<std::size_t>(most));
  for (std::size_t k = 0; k < calls.size(); ++k) EXPECT_EQ(calls[k].first, static_cast<int>(k) + 1);
  EXPECT_EQ(calls.back().second, last);
  struct stop {};
  opt.base.progress = [](int k, double) {
    if (k == 3) throw stop{};
  };
  EXPECT_THROW(pagerank_batched_cpu(g, sources, opt), stop);
  opt.base.progress = nullptr;  // base.interrupt: after every step too
  int steps = 0;
  opt.base.interrupt = [&] {
    if (++steps == 4) throw stop{};
  };
  EXPECT_THROW(pagerank_batched_cpu(g, sources, opt), stop);
  EXPECT_EQ(steps, 4);
}

// The GPU solver's widening of copied-out columns: pieces that span column
// ends, groups of one column shorter than a piece, odd lengths.
TEST(pagerank_batched, WideningCopiesEveryValue) {
  for (const std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(4099), std::size_t(325557)})
    for (const std::size_t cols : {std::size_t(1), std::size_t(3), std::size_t(64)}) {
      if (n * cols > std::size_t(4) << 20) continue;
      std::vector<float> src(n * cols);
      for (std::size_t e = 0; e < src.size(); ++e) src[e] = static_cast<float>(e % 1000003) * 0.5f + 0.25f;
      std::vector<double> dst(n * cols, -1.0);
      std::vector<std::pair<const float*, double*>> group;
      // Columns out of order in the destination, as stage slots are.
      for (std::size_t c = 0; c < cols; ++c)
        group.emplace_back(src.data() + c * n, dst.data() + (cols - 1 - c) * n);
      detail::widen_columns(n, group);
      for (std::size_t c = 0; c < cols; ++c)
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(dst[(cols - 1 - c) * n + i], static_cast<double>(src[c * n + i]))
              << n << " " << cols << " " << c;
    }
}

void expect_invalid(const pagerank_batched_options& o, const std::vector<source_set>& s,
                    const std::string& what) {
  try {
    o.validate(10, s);
    ADD_FAILURE() << "accepted; wanted " << what;
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(pagerank_batched, BadOptionsNameTheFlag) {
  const std::vector<source_set> good{{{0, 1.0}}};
  auto o = options(1e-6, 100);
  expect_invalid(o, {}, "--sources: no source sets");
  expect_invalid(o, {{{0, 1.0}}, {}}, "--sources: set 2: no vertices");
  expect_invalid(o, {{{10, 1.0}}}, "--sources: set 1: vertex index 10");
  expect_invalid(o, {{{1, -1.0}}}, "--sources: set 1: weight -1");
  expect_invalid(o, {{{1, 0.0}}}, "--sources: set 1: all weights are zero");
  // A set's L1 change is at most 2 (both iterates sum to 1): tol 2 or more
  // passed every set's first step (pagerank_options::validate).
  expect_invalid(options(2, 100), good, "--tol must be below 2, got 2");
  o.compact_every = 0;
  expect_invalid(o, good, "--compact-every");
  o = options(1e-6, 100);
  o.block_columns = 257;
  expect_invalid(o, good, "--block-columns");
  for (int c : {-1, 3, 256}) {
    o = options(1e-6, 100);
    o.chunk_columns = c;
    expect_invalid(o, good, "--chunk-columns");
  }
  // 64 and 128 columns a chunk are the GPU fused step's; the CPU refuses them.
  o = options(1e-6, 100);
  o.chunk_columns = 64;
  EXPECT_NO_THROW(o.validate(10, good));
  const auto g = make_pagerank_graph<double>(random_graph(10, 30, 1), false);
  try {
    pagerank_batched_cpu(g, good, o);
    ADD_FAILURE() << "the CPU accepted 64 columns a chunk";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--chunk-columns 64"), std::string::npos) << e.what();
  }
  o = options(-1, 100);
  expect_invalid(o, good, "--tol");
  o = options(1e-6, 100);
  o.base.personalization = std::vector<double>(10, 1.0);
  expect_invalid(o, good, "--personalize");
}

// Weights are relative, as --personalize's: a set whose finite weights sum
// past double (two of 1e308) is normalized over the largest, bit for bit as
// the same weights scaled into range by a power of two (it was refused).
TEST(pagerank_batched, WeightsWhoseSumOverflowsAreNormalized) {
  const double big = std::ldexp(1.0, 1023);
  const std::vector<source_set> huge{{{0, big}, {3, big / 2}, {5, big}}, {{1, 1e308}, {2, 1e308}}},
      scaled{{{0, 1.0}, {3, 0.5}, {5, 1.0}}, {{1, 1.0}, {2, 1.0}}};
  EXPECT_EQ(detail::relative_weights(huge[0]), (std::vector<double>{0.4, 0.2, 0.4}));
  EXPECT_EQ(detail::relative_weights(huge[1]), (std::vector<double>{0.5, 0.5}));
  const auto o = options(1e-10, 1000);
  EXPECT_NO_THROW(o.validate(10, huge));
  const auto g = make_pagerank_graph<double>(random_graph(10, 30, 1), false);
  const auto a = pagerank_batched_cpu(g, huge, o), b = pagerank_batched_cpu(g, scaled, o);
  ASSERT_EQ(a.rank.size(), b.rank.size());
  EXPECT_TRUE(std::equal(a.rank.begin(), a.rank.end(), b.rank.begin()));
}

}  // namespace
}  // namespace perron::test
