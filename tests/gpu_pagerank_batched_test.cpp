// Batched personalized PageRank on the GPU (solvers/cuda/pagerank_batched.cu):
// every column equals the single-source CPU solve with the same
// personalization. The SpMM adds pieces of rows over spmm_split_length entries
// atomically, so GPU results are compared with tolerances, never bitwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "tests/pagerank_batched_check.hpp"
#include "tests/support/support.hpp"

namespace perron::test {
namespace {

class gpu_pagerank_batched : public gpu_test {};

pagerank_batched_options options(double tol, int max_iter) {
  return batched_options(tol, max_iter, pagerank_device::cuda);
}

std::vector<double> ranks(const pagerank_batched_result& r) { return {r.rank.begin(), r.rank.end()}; }

template <class T>
void check_graph(const std::string& name, std::size_t s, double tol_rank, int max_iter) {
  const test_graph* tg = get_test_graph(name);
  if (!tg) GTEST_SKIP() << name << " not available";
  const auto g = make_pagerank_graph<T>(tg->matrix, false);
  const auto sources = random_sources(g.vertices(), s, 5);
  const auto opt = options(1e-10, max_iter);
  const auto r = pagerank_batched_cuda(g, sources, opt);
  EXPECT_TRUE(r.on_gpu);
  expect_columns_match(g, sources, r, opt, tol_rank);
}

const char* const graphs[] = {"cycle",      "star",      "dangling-only",  "random",  "karate",
                              "harvard500", "wiki-Vote", "p2p-Gnutella05", "cnr-2000"};

TEST_F(gpu_pagerank_batched, ColumnsEqualSingleSolvesDouble) {
  for (const char* name : graphs) {
    SCOPED_TRACE(name);
    check_graph<double>(name, 12, 1e-9, 1000);
  }
}

TEST_F(gpu_pagerank_batched, ColumnsEqualSingleSolvesFloat) {
  for (const char* name : graphs) {
    SCOPED_TRACE(name);
    check_graph<float>(name, 12, 1e-6, 200);
  }
}

// Block widths that do not divide the 256 threads of the update (100: two rows
// per pass, 56 threads idle), the widest block (256) and more sources than a
// block (300 in blocks of 128, 128 and 44), on weighted graphs with dangling vertices.
TEST_F(gpu_pagerank_batched, WidthsAndBlocks) {
  const auto g = make_pagerank_graph<double>(random_graph(700, 5000, 2), true);
  ASSERT_GT(g.dangling_count, 0);
  for (int width : {100, 256}) {
    const auto sources = random_sources(g.vertices(), static_cast<std::size_t>(width), 7);
    auto opt = options(1e-10, 1000);
    opt.block_columns = width;
    expect_columns_match(g, sources, pagerank_batched_cuda(g, sources, opt), opt, 1e-9);
  }
  const auto sources = random_sources(g.vertices(), 300, 8);
  const auto opt = options(1e-10, 1000);
  expect_columns_match(g, sources, pagerank_batched_cuda(g, sources, opt), opt, 1e-9);
}

// Compaction changes the work, not the results; the GPU agrees with the CPU.
TEST_F(gpu_pagerank_batched, CompactionAndCpuAgree) {
  const auto g = make_pagerank_graph<double>(random_graph(2000, 30000, 4), false);
  const auto sources = random_sources(g.vertices(), 40, 3);
  auto opt = options(1e-10, 1000);
  opt.compact_every = 1000000;
  const auto never = pagerank_batched_cuda(g, sources, opt);
  opt.compact_every = 1;
  const auto every = pagerank_batched_cuda(g, sources, opt);
  const auto cpu = pagerank_batched_cpu(g, sources, opt);
  EXPECT_EQ(never.compactions, 0);
  EXPECT_GT(every.compactions, 0);
  EXPECT_LT(every.column_steps, never.column_steps);
  EXPECT_LE(max_abs_diff(ranks(every), ranks(never)), 1e-12);
  EXPECT_LE(max_abs_diff(ranks(every), ranks(cpu)), 1e-12);
  EXPECT_TRUE(every.all_converged());
}

// One solver object, solved again with other sources (more than its width:
// several blocks; fewer: a narrower block), gives what fresh objects give.
TEST_F(gpu_pagerank_batched, ReusedSolverMatchesFreshSolves) {
  const auto g = make_pagerank_graph<float>(random_graph(3000, 40000, 6), false);
  pagerank_batched_gpu<float> solver(g, 24);
  const auto opt = options(1e-9, 200);  // float may stall above 1e-9: then 200 steps on both sides
  for (std::size_t s : {std::size_t(24), std::size_t(61), std::size_t(5)}) {
    SCOPED_TRACE(s);
    const auto sources = random_sources(g.vertices(), s, 20 + s);
    const auto r = solver.solve(sources, opt);
    expect_columns_match(g, sources, r, opt, 1e-6);
    auto fresh_opt = opt;
    fresh_opt.block_columns = 24;
    EXPECT_LE(max_abs_diff(ranks(r), ranks(pagerank_batched_cuda(g, sources, fresh_opt))), 1e-7);
  }
}

// An interrupt check that throws ends a batched solve whose tol is out of
// reach between its batches of steps; the solver object then solves other
// sources as a fresh one (the Python module's Ctrl-C on the GPU). The graph:
// a random one on vertices 0-2999 and a ring on 3000-5999, whose walk has
// every eigenvalue on the unit circle, so that at alpha 0.99999 sets on the
// ring change for about a million steps (a random graph's reach their fixed
// point, a residual of 0 that meets any tol, in milliseconds). The endless
// solve stops in its first chunk of columns, whose teleport marks, left set
// on the ring, made the next solve's columns wrong (session 106).
TEST_F(gpu_pagerank_batched, InterruptEndsASolveAndTheSolverGoesOn) {
  struct stop_solving {};
  coo_matrix<double> a = random_graph(3000, 40000, 6);
  a.rows = a.cols = 6000;
  for (index_t i = 3000; i < 6000; ++i) {
    a.row_idx.push_back(i);
    a.col_idx.push_back(i + 1 < 6000 ? i + 1 : 3000);
    a.values.push_back(1.0);
  }
  const auto g = make_pagerank_graph<float>(a, false);
  pagerank_batched_gpu<float> solver(g, 24);
  std::vector<source_set> on_ring(40);
  for (std::size_t c = 0; c < on_ring.size(); ++c) on_ring[c] = {{3000 + 75 * static_cast<index_t>(c), 1.0}};
  auto endless = options(1e-300, 1000000);
  endless.base.alpha = 0.99999;
  const auto start = std::chrono::steady_clock::now();
  endless.base.interrupt = [&] {
    if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(50)) throw stop_solving{};
  };
  EXPECT_THROW(solver.solve(on_ring, endless), stop_solving);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  const auto sources = random_sources(3000, 40, 9);
  auto opt = options(1e-9, 200);
  int calls = 0;
  opt.base.interrupt = [&] { ++calls; };
  const auto r = solver.solve(sources, opt);
  EXPECT_GT(calls, 0);
  expect_columns_match(g, sources, r, opt, 1e-6);
  auto fresh_opt = options(1e-9, 200);
  fresh_opt.block_columns = 24;
  EXPECT_LE(max_abs_diff(ranks(r), ranks(pagerank_batched_cuda(g, sources, fresh_opt))), 1e-7);
}

// Columns stopped by max_iter keep their last iterate and report it.
TEST_F(gpu_pagerank_batched, NotConvergingIsAResult) {
  const auto g = make_pagerank_graph<double>(random_graph(200, 1000, 3), false);
  const auto sources = random_sources(g.vertices(), 6, 1);
  for (int every : {1, 2, 5}) {
    auto opt = options(1e-14, 3);
    opt.compact_every = every;
    const auto r = pagerank_batched_cuda(g, sources, opt);
    for (std::size_t c = 0; c < sources.size(); ++c) {
      EXPECT_FALSE(r.converged[c]);
      EXPECT_EQ(r.iterations[c], 3);
    }
    expect_columns_match(g, sources, r, opt, 1e-12);
  }
}

// random_graph plus three hubs whose rows of P^T pass the fused step's
// 64-entry split (n - n / 5, about n / 3 and 70 in-arcs: pieces, one of them
// short), dangling vertices kept dangling.
coo_matrix<double> hub_graph(index_t n, std::size_t arcs, std::uint64_t seed) {
  coo_matrix<double> a = random_graph(n, arcs, seed);
  int third = 0;
  for (index_t j = 1; j < n; ++j) {
    if (j % 5 == 0) continue;
    const index_t targets[] = {0, j % 3 == 0 ? 1 : -1, third < 70 && j % 2 == 1 ? 2 : -1};
    for (index_t t : targets) {
      if (t < 0) continue;
      a.row_idx.push_back(j);
      a.col_idx.push_back(t);
      a.values.push_back(1.0 + 0.1 * static_cast<double>(j % 7));
    }
    if (j % 2 == 1) ++third;
  }
  return a;
}

// The fused step over every chunk width, block widths that are no multiple of
// a chunk or of 16 bytes (1, 7, 33, 65: a last chunk narrower than the rest,
// 65 in two blocks), long rows cut into pieces, checks and compaction every
// step and every 4: each column equals its single solve, and the two-kernel
// step (session 14's) agrees.
TEST_F(gpu_pagerank_batched, FusedChunksAndOddWidths) {
  const auto g = make_pagerank_graph<double>(hub_graph(900, 6000, 11), true);
  ASSERT_GT(g.dangling_count, 0);
  for (std::size_t s : {std::size_t(1), std::size_t(7), std::size_t(33), std::size_t(64), std::size_t(65)}) {
    const auto sources = random_sources(g.vertices(), s, 30 + s);
    auto two = options(1e-10, 1000);
    two.step = pagerank_batched_options::step_kind::two_kernels;
    const auto ref = pagerank_batched_cuda(g, sources, two);
    for (int chunk : {0, 1, 2, 4, 8, 16, 32, 64}) {
      for (int every : {1, 4}) {
        SCOPED_TRACE(::testing::Message() << s << " sources, chunk " << chunk << ", compact every " << every);
        auto opt = options(1e-10, 1000);
        opt.step = pagerank_batched_options::step_kind::fused;
        opt.chunk_columns = chunk;
        opt.compact_every = every;
        const auto r = pagerank_batched_cuda(g, sources, opt);
        if (chunk > 0) {
          EXPECT_EQ(r.chunk_columns, std::max(chunk, 2)) << "double: at least 16 bytes a row";
        }
        expect_columns_match(g, sources, r, opt, 1e-9);
        EXPECT_LE(max_abs_diff(ranks(r), ranks(ref)), 1e-12);
      }
    }
  }
}

// Float, the same shapes on fewer chunk widths; the fused step adds no atomics,
// so a second solve gives the same bits.
TEST_F(gpu_pagerank_batched, FusedFloatIsReproducible) {
  const auto g = make_pagerank_graph<float>(hub_graph(1500, 12000, 12), false);
  for (std::size_t s : {std::size_t(7), std::size_t(33), std::size_t(65)}) {
    const auto sources = random_sources(g.vertices(), s, 40 + s);
    for (int chunk : {4, 16, 32, 64, 128}) {
      SCOPED_TRACE(::testing::Message() << s << " sources, chunk " << chunk);
      auto opt = options(1e-7, 300);
      opt.step = pagerank_batched_options::step_kind::fused;
      opt.chunk_columns = chunk;
      pagerank_batched_gpu<float> solver(g, 64);
      const auto a = solver.solve(sources, opt);
      const auto b = solver.solve(sources, opt);
      expect_columns_match(g, sources, a, opt, 1e-6);
      EXPECT_EQ(ranks(a), ranks(b));
    }
  }
}

// One small fused solve (pieces, three chunks, compaction): the test that
// compute-sanitizer racecheck runs, the others taking too long under it.
TEST_F(gpu_pagerank_batched, FusedSmall) {
  const auto g = make_pagerank_graph<float>(hub_graph(300, 2000, 13), false);
  const auto sources = random_sources(g.vertices(), 33, 50);
  auto opt = options(1e-6, 100);
  opt.step = pagerank_batched_options::step_kind::fused;
  opt.chunk_columns = 16;
  opt.compact_every = 2;
  expect_columns_match(g, sources, pagerank_batched_cuda(g, sources, opt), opt, 1e-6);
}

// The two-kernel step stays selectable and correct (widths as WidthsAndBlocks).
TEST_F(gpu_pagerank_batched, TwoKernelStep) {
  const auto g = make_pagerank_graph<double>(random_graph(700, 5000, 2), true);
  for (int width : {8, 100}) {
    const auto sources = random_sources(g.vertices(), 150, 9);
    auto opt = options(1e-10, 1000);
    opt.step = pagerank_batched_options::step_kind::two_kernels;
    opt.block_columns = width;
    const auto r = pagerank_batched_cuda(g, sources, opt);
    EXPECT_EQ(r.chunk_columns, 0);
    expect_columns_match(g, sources, r, opt, 1e-9);
  }
}

// device automatic asks the end-to-end model (solvers/pagerank_device.hpp):
// three sets on a graph of 100 vertices answer first on the CPU; device cuda
// runs on the GPU, with the automatic step's trial.
TEST_F(gpu_pagerank_batched, DispatchRunsWhereTheModelOrTheCallerSays) {
  const auto g = make_pagerank_graph<float>(random_graph(100, 500, 1), false);
  pagerank_batched_options opt;
  const auto automatic = pagerank_batched(g, random_sources(100, 3, 1), opt);
  EXPECT_FALSE(automatic.on_gpu);
  EXPECT_EQ(automatic.device_choice.rfind("auto: predicted cpu", 0), 0u) << automatic.device_choice;
  opt.base.device = pagerank_device::cuda;
  const auto r = pagerank_batched(g, random_sources(100, 3, 1), opt);
  EXPECT_TRUE(r.on_gpu);
  EXPECT_EQ(r.device_choice, "device cuda");
  EXPECT_GT(r.trial_seconds, 0) << "the automatic step: a trial by the first solve";
  opt.base.device = pagerank_device::cpu;
  EXPECT_FALSE(pagerank_batched(g, random_sources(100, 3, 1), opt).on_gpu);
}

// The automatic step: the first solve of a solver times both steps and says
// which it kept; later solves reuse the choice without a trial, and their
// ranks are those of that step asked for by name (the same bits for the
// fused step; the two-kernel step's SpMM adds a long row's pieces
// atomically, so within 1e-12 there); a trial leaves no trace in the results
// (every column equals its single solve).
TEST_F(gpu_pagerank_batched, AutomaticStepKeepsItsTrial) {
  for (int seed : {21, 22}) {
    const auto g = make_pagerank_graph<double>(hub_graph(1200, 9000, seed), true);
    const auto sources = random_sources(g.vertices(), 40, seed);
    auto opt = options(1e-10, 1000);
    pagerank_batched_gpu<double> solver(g, 64);
    const auto first = solver.solve(sources, opt);
    EXPECT_GT(first.trial_seconds, 0);
    const bool fused = first.step_choice.rfind("fused", 0) == 0;
    EXPECT_TRUE(fused || first.step_choice.rfind("two kernels", 0) == 0) << first.step_choice;
    EXPECT_NE(first.step_choice.find("timed on 40 columns"), std::string::npos) << first.step_choice;
    EXPECT_EQ(first.chunk_columns, fused ? 64 : 0);
    expect_columns_match(g, sources, first, opt, 1e-9);
    const auto second = solver.solve(sources, opt);
    EXPECT_EQ(second.trial_seconds, 0) << "one trial per solver";
    EXPECT_EQ(second.step_choice, first.step_choice);
    const auto same = [fused](const pagerank_batched_result& a, const pagerank_batched_result& b) {
      if (fused) {
        EXPECT_EQ(ranks(a), ranks(b));
      } else {
        EXPECT_LE(max_abs_diff(ranks(a), ranks(b)), 1e-12);
      }
    };
    same(second, first);
    auto named = opt;
    named.step =
        fused ? pagerank_batched_options::step_kind::fused : pagerank_batched_options::step_kind::two_kernels;
    const auto asked = solver.solve(sources, named);
    EXPECT_EQ(asked.step_choice, fused ? "fused, asked" : "two kernels, asked");
    same(asked, first);
    // Another chunk: a trial of its own, which says the chunk.
    auto narrow = opt;
    narrow.chunk_columns = 16;
    const auto third = solver.solve(sources, narrow);
    EXPECT_GT(third.trial_seconds, 0);
    EXPECT_NE(third.step_choice.find("in chunks of 16"), std::string::npos) << third.step_choice;
    EXPECT_EQ(third.chunk_columns, third.step_choice.rfind("fused", 0) == 0 ? 16 : 0);
    expect_columns_match(g, sources, third, narrow, 1e-9);
  }
}

// A fused chunk is at most a warp of 16-byte loads a row: 128 floats, 64 doubles.
TEST_F(gpu_pagerank_batched, WidestChunks) {
  const auto g = make_pagerank_graph<double>(random_graph(100, 500, 1), false);
  const auto sources = random_sources(100, 70, 2);
  auto opt = options(1e-10, 1000);
  opt.step = pagerank_batched_options::step_kind::fused;
  opt.chunk_columns = 64;
  const auto r = pagerank_batched_cuda(g, sources, opt);
  EXPECT_EQ(r.chunk_columns, 64);
  expect_columns_match(g, sources, r, opt, 1e-9);
  opt.chunk_columns = 128;
  EXPECT_THROW(pagerank_batched_cuda(g, sources, opt), invalid_argument);
}

// A block that the GPU cannot hold is refused before anything of size n is
// allocated, naming the bytes and the limit (--sources on a large graph and
// --block-columns 256 went to cudaMalloc and its bare out-of-memory error).
TEST_F(gpu_pagerank_batched, BlockTooLargeForTheGpuIsRefusedFirst) {
  const auto g = make_pagerank_graph<float>(random_graph(20000, 100000, 3), false);
  ::setenv("PERRON_GPU_MEMORY_LIMIT", "8M", 1);  // 2 x 20000 x 256 floats alone are 41 MB
  try {
    pagerank_batched_gpu<float> refused(g, 256);
    ADD_FAILURE() << "a block of 256 columns built under an 8 MB limit";
  } catch (const dimension_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("personalized PageRank on the GPU of 20000 vertices"), std::string::npos) << what;
    EXPECT_NE(what.find("PERRON_GPU_MEMORY_LIMIT"), std::string::npos) << what;
  }
  pagerank_batched_gpu<float> fits(g, 8);  // about 3 MB
  ::unsetenv("PERRON_GPU_MEMORY_LIMIT");
  const auto sources = random_sources(g.vertices(), 8, 4);
  const auto opt = options(1e-6, 200);
  expect_columns_match(g, sources, fits.solve(sources, opt), opt, 1e-6);
}

}  // namespace
}  // namespace perron::test
