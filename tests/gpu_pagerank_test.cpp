// PageRank on the GPU: every GPU SpMV kernel, both convergence loops, float and
// double, against the independent reference and against the CPU solver; the
// exactness of the check-every loop; state reuse across solves.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/device.hpp"
#include "core/error.hpp"
#include "io/load.hpp"
#include "io/synthetic.hpp"
#include "solvers/pagerank.hpp"
#include "solvers/pagerank_accel.hpp"
#include "solvers/pagerank_trial.hpp"
#include "tests/pagerank_reference.hpp"
#include "tests/support/support.hpp"

namespace perron::test {
namespace {

// Plain power steps: the tests of the pulls, loops and bits below compare
// solves step by step; --accelerate (auto by default) has its own tests at
// the end.
pagerank_options plain_steps() {
  pagerank_options o;
  o.accelerate = pagerank_accel::none;
  return o;
}

template <class V>
double sum(const V& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

std::vector<spmv_kernel> gpu_kernels() {
  std::vector<spmv_kernel> k;
  for (spmv_kernel x : spmv_kernels())
    if (on_gpu(x)) k.push_back(x);
  return k;
}

std::string param_name(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// A plan that refuses a matrix (e.g. ELL padding beyond its guard) is the
// kernel's documented behaviour, not a PageRank failure.
template <class T>
std::optional<pagerank_cuda<T>> make_solver(const pagerank_graph<T>& g, spmv_kernel k) {
  try {
    return pagerank_cuda<T>(g, k);
  } catch (const dimension_error& e) {
    std::cout << "[ note ] " << name(k) << " refuses this graph: " << e.what() << "\n";
    return std::nullopt;
  }
}

// GPU kernels that accumulate a whole row sequentially in T (kernels/cuda/
// spmv_scalar.cu, spmv_cached.cu). In float, recursive summation of a row of
// len positive terms errs by at most len eps sum (terms); a step then moves r
// by alpha eps sum_i len_i (P^T r)_i in L1, and the fixed point by that over
// (1 - alpha). Returns that L1 allowance where it exceeds the ordinary floor
// (rows beyond ~1000 entries), else 0.
template <class T>
double serial_row_allowance(const pagerank_graph<T>& g, const std::vector<double>& r, spmv_kernel k,
                            double alpha = 0.85) {
  if (!std::is_same_v<T, float> || (k != spmv_kernel::csr_scalar && k != spmv_kernel::csr_cached)) return 0;
  double delta = 0;
  for (index_t i = 0; i < g.pt.rows; ++i) {
    const index_t len = g.pt.row_ptr[i + 1] - g.pt.row_ptr[i];
    double y = 0;
    for (index_t q = g.pt.row_ptr[i]; q < g.pt.row_ptr[i + 1]; ++q) y += g.pt.values[q] * r[g.pt.col_idx[q]];
    delta += len * std::numeric_limits<float>::epsilon() * y;
  }
  const double bound = alpha * delta / (1 - alpha);
  return bound > solve_tolerance<T>::rounding_l1 ? bound : 0;
}

// ---- graph x kernel x precision x loop ----------------------------------------------

using graph_param = std::tuple<std::string, spmv_kernel, bool, pagerank_loop>;
class gpu_pagerank_graphs : public gpu_test_with_param<graph_param> {};

template <class T>
void check(const std::string& graph, spmv_kernel kernel, pagerank_loop loop,
           pagerank_pull pull = pagerank_pull::spmv) {
  const test_graph* tg = get_test_graph(graph);
  if (!tg) GTEST_SKIP() << graph << " not found in data/ or ../shared/data";
  const pagerank_graph<T> g = make_pagerank_graph<T>(tg->matrix, false, tg->label);
  std::optional<pagerank_cuda<T>> solver;
  if (pattern_pull(pull))
    solver.emplace(g, kernel, pull);
  else
    solver = make_solver(g, kernel);
  if (!solver) GTEST_SKIP();
  pagerank_options o = plain_steps();
  o.tol = solve_tolerance<T>::tol;
  o.loop = loop;
  o.check_interval = 5;
  const pagerank_result r = solver->solve(o);
  ASSERT_TRUE(r.on_gpu);
  EXPECT_EQ(r.pull, pull);
  if (r.pull == pagerank_pull::spmv) {
    ASSERT_TRUE(r.kernel.has_value());
    EXPECT_NE(*r.kernel, spmv_kernel::automatic);  // the concrete kernel that ran
  } else {
    EXPECT_FALSE(r.kernel.has_value());  // the pattern pulls run no SpMV kernel
  }
  EXPECT_TRUE(r.converged) << "residual " << r.residual << " after " << r.iterations;
  EXPECT_LT(r.residual, o.tol);
  if (loop == pagerank_loop::graph_while) {
    EXPECT_EQ(r.loop, pagerank_loop::graph_while);
    EXPECT_GE(r.graph_unroll, 1);  // o.graph_unroll = 0: chosen in [1, 8]
    EXPECT_LE(r.graph_unroll, 8);
    EXPECT_EQ(r.host_syncs, 1u);
  } else if (loop == pagerank_loop::check_every) {
    EXPECT_EQ(r.loop, pagerank_loop::check_every);
    // one sync per batch of 5, one for the download
    EXPECT_EQ(r.host_syncs, static_cast<std::uint64_t>((r.iterations + 4) / 5 + 1));
  } else if (r.loop != pagerank_loop::graph_while) {
    EXPECT_EQ(r.loop, pagerank_loop::check_every);
    EXPECT_FALSE(r.loop_note.empty());
    std::cout << "[ note ] " << kernel_text(r.pull, r.kernel) << ": " << r.loop_note << "\n";
  }
  for (std::size_t i = 0; i < r.rank.size(); ++i) ASSERT_GT(r.rank[i], 0.0) << "vertex " << i;
  const double l1 = l1_diff(r.rank, tg->reference), max_err = max_abs_diff(r.rank, tg->reference);
  const double serial = serial_row_allowance(g, tg->reference, kernel);
  if (serial > 0) {
    // This kernel sums each row sequentially in float: on graphs with very
    // long rows its own rounding exceeds the issue's float bounds (reported;
    // the CPU kernel accumulates rows in double). Checked against the
    // analytic bound of sequential summation instead.
    std::cout << "[ note ] " << name(kernel) << " float: max |r - ref| " << max_err << ", |sum - 1| "
              << std::fabs(sum(r.rank) - 1) << " (sequential-summation bound " << serial << ")\n";
    EXPECT_LE(l1, solve_tolerance<T>::l1() + serial);
    EXPECT_NEAR(sum(r.rank), 1.0, 1e-6 + serial);
  } else {
    EXPECT_NEAR(sum(r.rank), 1.0, 1e-6);
    EXPECT_LE(max_err, solve_tolerance<T>::max_abs);
    EXPECT_LE(l1, solve_tolerance<T>::l1());
  }

  // GPU == CPU: the same steps up to summation order, so each is within the
  // bound of the fixed point, hence within twice of each other, and the step
  // where tol is crossed can differ by at most one.
  const pagerank_result c = pagerank_cpu(g, o);
  EXPECT_LE(l1_diff(r.rank, c.rank), 2 * solve_tolerance<T>::l1() + serial);
  EXPECT_LE(std::abs(r.iterations - c.iterations), 1);
}

TEST_P(gpu_pagerank_graphs, MatchesReferenceAndCpu) {
  const auto& [graph, kernel, dbl, loop] = GetParam();
  if (dbl)
    check<double>(graph, kernel, loop);
  else
    check<float>(graph, kernel, loop);
}

INSTANTIATE_TEST_SUITE_P(all, gpu_pagerank_graphs,
                         ::testing::Combine(::testing::ValuesIn(test_graph_names()),
                                            ::testing::ValuesIn(gpu_kernels()), ::testing::Bool(),
                                            ::testing::Values(pagerank_loop::automatic,
                                                              pagerank_loop::check_every)),
                         [](const auto& info) {
                           return param_name(std::get<0>(info.param) + "_" +
                                             std::string(name(std::get<1>(info.param))) +
                                             (std::get<2>(info.param) ? "_double_" : "_float_") +
                                             std::string(name(std::get<3>(info.param))));
                         });

// The pattern pulls (fused, persistent) on the same graphs: their own
// kernels, so the SpMV kernel stays automatic.
using pattern_param = std::tuple<std::string, bool, pagerank_loop, pagerank_pull>;
class gpu_pagerank_pattern_graphs : public gpu_test_with_param<pattern_param> {};

TEST_P(gpu_pagerank_pattern_graphs, MatchesReferenceAndCpu) {
  const auto& [graph, dbl, loop, pull] = GetParam();
  if (dbl)
    check<double>(graph, spmv_kernel::automatic, loop, pull);
  else
    check<float>(graph, spmv_kernel::automatic, loop, pull);
}

INSTANTIATE_TEST_SUITE_P(
    all, gpu_pagerank_pattern_graphs,
    ::testing::Combine(::testing::ValuesIn(test_graph_names()), ::testing::Bool(),
                       ::testing::Values(pagerank_loop::automatic, pagerank_loop::check_every),
                       ::testing::Values(pagerank_pull::fused, pagerank_pull::persistent)),
    [](const auto& info) {
      return param_name(std::string(name(std::get<3>(info.param))) + "_" + std::get<0>(info.param) +
                        (std::get<1>(info.param) ? "_double_" : "_float_") +
                        std::string(name(std::get<2>(info.param))));
    });

// ---- the loops ------------------------------------------------------------------------

template <class T>
class gpu_pagerank : public gpu_test {};
using value_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(gpu_pagerank, value_types);

// P^T sorted on the GPU is the host's, bit for bit: unweighted (duplicates
// kept once) and weighted (summed in input order), on a generated multigraph
// with parallel arcs and on real graphs.
TYPED_TEST(gpu_pagerank, GraphBuiltOnTheGpuIsTheHostGraph) {
  using T = TypeParam;
  std::vector<coo_matrix<double>> graphs = {random_graph(3000, 40000, 41)};
  for (const char* f : {"graphs/wiki-Vote.txt", "graphs/cnr-2000.mtx.gz"})
    if (auto p = shared_file(f)) graphs.push_back(io::load_matrix(*p).matrix);
  for (const auto& a : graphs) {
    for (bool weighted : {false, true}) {
      coo_matrix<double> w = a;
      if (weighted)
        for (std::size_t k = 0; k < w.nnz(); ++k) w.values[k] = 0.25 + double(k % 7);
      const auto host = make_pagerank_graph<T>(w, weighted, {}, false);
      const auto dev = make_pagerank_graph<T>(w, weighted, {}, true);
      EXPECT_EQ(dev.pt.row_ptr, host.pt.row_ptr);
      EXPECT_EQ(dev.pt.col_idx, host.pt.col_idx);
      ASSERT_EQ(dev.pt.values.size(), host.pt.values.size());
      EXPECT_EQ(std::memcmp(dev.pt.values.data(), host.pt.values.data(), host.pt.values.size() * sizeof(T)),
                0);
      EXPECT_EQ(dev.dangling, host.dangling);
      EXPECT_EQ(dev.dangling_count, host.dangling_count);
    }
  }
}

// Options for the one-sync loop with `unroll` steps per trip (0: chosen).
pagerank_options while_loop(int unroll = 0) {
  pagerank_options o = plain_steps();
  o.loop = pagerank_loop::graph_while;
  o.graph_unroll = unroll;
  return o;
}

TYPED_TEST(gpu_pagerank, GraphWhileWithOwnKernelsIsOneSync) {
  using T = TypeParam;
  pagerank_cuda<T> s(make_pagerank_graph<T>(random_graph(2000, 20000, 31), false), spmv_kernel::csr_vector);
  const auto r = s.solve(while_loop());
  EXPECT_EQ(r.loop, pagerank_loop::graph_while);
  EXPECT_EQ(r.host_syncs, 1u);
  EXPECT_TRUE(r.converged);
  EXPECT_GT(r.iterations, 10);
  EXPECT_GT(r.device_seconds, 0.0);
}

// The check-every loop stops on the exact step: max_iter not a multiple of the
// interval, and convergence inside a batch, give the same iterate, count and
// residual as the one-sync loop.
TYPED_TEST(gpu_pagerank, CheckEveryIsExact) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(random_graph(3000, 30000, 37), false);
  pagerank_cuda<T> s(g, spmv_kernel::csr_scalar);
  pagerank_options o = plain_steps();
  o.max_iter = 10;
  o.loop = pagerank_loop::check_every;
  o.check_interval = 4;
  const auto a = s.solve(o);
  EXPECT_EQ(a.iterations, 10);
  EXPECT_FALSE(a.converged);
  EXPECT_EQ(a.host_syncs, 3u + 1u);
  // residual is ||r_10 - r_9||_1 of the returned iterates
  o.max_iter = 9;
  const auto a9 = s.solve(o);
  EXPECT_EQ(a9.iterations, 9);
  // (up to the rounding of the residual's sum against this one over the returned values)
  const double largest9 = *std::max_element(a9.rank.begin(), a9.rank.end());
  EXPECT_NEAR(a.residual, l1_diff(a.rank, a9.rank),
              1e-12 * a.residual + 8.0 * 3000 * std::numeric_limits<T>::epsilon() * largest9);

  for (int interval : {1, 3, 7, 16}) {
    pagerank_options e = plain_steps();
    e.loop = pagerank_loop::check_every;
    e.check_interval = interval;
    const auto every = s.solve(e);
    const auto once = s.solve(while_loop());
    EXPECT_TRUE(every.converged);
    EXPECT_EQ(every.iterations, once.iterations) << "interval " << interval;
    // The same launches with the same grids, and reductions in block order:
    // the same bits.
    EXPECT_EQ(every.residual, once.residual) << "interval " << interval;
    EXPECT_EQ(max_abs_diff(every.rank, once.rank), 0.0) << "interval " << interval;
  }
}

// Several steps per WHILE trip: the steps after the stopping one are no-ops,
// so the iterate, the count and the residual are those of the one-step loop.
TYPED_TEST(gpu_pagerank, GraphUnrollIsExact) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(random_graph(3000, 30000, 71), false);
  pagerank_cuda<T> s(g, spmv_kernel::csr_vector);
  pagerank_options o = while_loop(1);
  const auto one = s.solve(o);
  ASSERT_TRUE(one.converged);
  for (int unroll : {2, 3, 5, 0}) {  // 0: chosen from the SpMV's time
    o.graph_unroll = unroll;
    o.max_iter = 1000;
    const auto r = s.solve(o);
    EXPECT_EQ(r.loop, pagerank_loop::graph_while);
    if (unroll > 0) {
      EXPECT_EQ(r.graph_unroll, unroll);
    } else {
      EXPECT_GE(r.graph_unroll, 1);
      EXPECT_LE(r.graph_unroll, 8);
    }
    EXPECT_EQ(r.host_syncs, 1u);
    EXPECT_EQ(r.iterations, one.iterations) << "unroll " << unroll;
    // The same steps, reduced in block order: the same bits.
    EXPECT_EQ(r.residual, one.residual) << "unroll " << unroll;
    EXPECT_EQ(max_abs_diff(r.rank, one.rank), 0.0) << "unroll " << unroll;
    o.max_iter = 7;  // not a multiple of the unroll
    EXPECT_EQ(s.solve(o).iterations, 7) << "unroll " << unroll;
  }
}

// Without CUDA graphs each step is launched from the host (check_every): the
// same iterate as the graph loops.
TYPED_TEST(gpu_pagerank, DirectLaunchesMatchGraphs) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(random_graph(2000, 16000, 73), false);
  pagerank_cuda<T> s(g, spmv_kernel::csr_vector);
  pagerank_options o = plain_steps();
  const auto graphs = s.solve(o);
  o.use_graphs = false;
  o.check_interval = 5;
  const auto direct = s.solve(o);
  EXPECT_EQ(direct.loop, pagerank_loop::check_every);
  EXPECT_EQ(direct.iterations, graphs.iterations);
  EXPECT_EQ(direct.host_syncs, static_cast<std::uint64_t>((direct.iterations + 4) / 5 + 1));
  const double largest = *std::max_element(graphs.rank.begin(), graphs.rank.end());
  EXPECT_LE(max_abs_diff(direct.rank, graphs.rank), 4 * std::numeric_limits<T>::epsilon() * largest);
  o.loop = pagerank_loop::graph_while;
  EXPECT_THROW(s.solve(o), invalid_argument);
}

TYPED_TEST(gpu_pagerank, NotConverged) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(random_graph(1000, 8000, 41), false);
  pagerank_cuda<T> s(g);
  pagerank_options o = plain_steps();
  o.max_iter = 5;
  const auto r = s.solve(o);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 5);
  EXPECT_GE(r.residual, o.tol);
  EXPECT_NEAR(sum(r.rank), 1.0, 1e-6);
}

// One solver, many solves with different options: the device state is reset
// each time and the graphs (built once) see the new personalization.
TYPED_TEST(gpu_pagerank, ReuseAcrossOptions) {
  using T = TypeParam;
  const auto a = random_graph(1500, 12000, 43);
  const auto g = make_pagerank_graph<T>(a, false);
  const auto ref_g = reference_from_coo(a, false);
  pagerank_cuda<T> s(g);
  pagerank_options o = plain_steps();
  o.tol = solve_tolerance<T>::tol;
  const auto plain_ref = reference_pagerank(ref_g, 0.85);
  for (int round = 0; round < 2; ++round) {
    for (pagerank_loop loop : {pagerank_loop::automatic, pagerank_loop::check_every}) {
      o.loop = loop;
      o.personalization.clear();
      o.initial.clear();
      auto r = s.solve(o);
      EXPECT_LE(max_abs_diff(r.rank, plain_ref), solve_tolerance<T>::max_abs);

      o.personalization = random_vector(1500, 47 + round, 0.0, 1.0);
      r = s.solve(o);
      EXPECT_TRUE(r.converged);
      EXPECT_LE(max_abs_diff(r.rank, reference_pagerank(ref_g, 0.85, normalized(o.personalization))),
                solve_tolerance<T>::max_abs);
      EXPECT_LE(l1_diff(r.rank, reference_pagerank(ref_g, 0.85, normalized(o.personalization))),
                solve_tolerance<T>::l1());

      o.personalization.clear();
      o.initial = random_vector(1500, 53 + round, 0.0, 1.0);
      o.alpha = 0.6;
      r = s.solve(o);
      EXPECT_LE(l1_diff(r.rank, reference_pagerank(ref_g, 0.6)), solve_tolerance<T>::l1(0.6));
      o.alpha = 0.85;
    }
  }
}

TYPED_TEST(gpu_pagerank, WeightedPersonalizedMatchesCpu) {
  using T = TypeParam;
  const auto a = random_graph(2500, 20000, 59);
  const auto g = make_pagerank_graph<T>(a, true);
  pagerank_options o = plain_steps();
  o.tol = solve_tolerance<T>::tol;
  o.personalization = random_vector(2500, 61, 0.0, 1.0);
  for (std::size_t i = 0; i < 2500; i += 2) o.personalization[i] = 0;
  const auto ref = reference_pagerank(reference_from_coo(a, true), 0.85, normalized(o.personalization));
  for (spmv_kernel k : gpu_kernels()) {
    auto s = make_solver(g, k);
    if (!s) continue;
    const auto r = s->solve(o);
    EXPECT_TRUE(r.converged) << name(k);
    EXPECT_LE(max_abs_diff(r.rank, ref), solve_tolerance<T>::max_abs) << name(k);
    EXPECT_LE(l1_diff(r.rank, ref), solve_tolerance<T>::l1()) << name(k);
    for (double x : r.rank) ASSERT_GE(x, 0.0);
  }
  const auto c = pagerank_cpu(g, o);
  EXPECT_LE(l1_diff(c.rank, ref), solve_tolerance<T>::l1());
}

TYPED_TEST(gpu_pagerank, OnlyDanglingAndSingleVertex) {
  using T = TypeParam;
  for (index_t n : {1, 2, 1000}) {
    const auto g = make_pagerank_graph<T>(graph_from_arcs(n, {}), false);
    pagerank_cuda<T> s(g);
    pagerank_options o = plain_steps();
    o.tol = 1e-12;
    const auto r = s.solve(o);
    EXPECT_TRUE(r.converged);
    for (double x : r.rank) EXPECT_NEAR(x, 1.0 / n, 64 * std::numeric_limits<T>::epsilon() / n);
  }
}

TYPED_TEST(gpu_pagerank, CheckEveryReportsProgressPerBatch) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(random_graph(1000, 8000, 67), false);
  pagerank_cuda<T> s(g);
  pagerank_options o = plain_steps();
  o.loop = pagerank_loop::check_every;
  o.check_interval = 6;
  std::vector<int> seen;
  o.progress = [&](int k, double) { seen.push_back(k); };
  const auto r = s.solve(o);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), r.iterations);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GT(seen[i], seen[i - 1]);
  // and the graph-while loop with a progress callback still solves correctly
  o.loop = pagerank_loop::graph_while;
  seen.clear();
  const auto w = s.solve(o);
  EXPECT_EQ(w.iterations, r.iterations);
  for (int k : seen) EXPECT_LE(k, w.iterations);
}

// ---- the fused pull -------------------------------------------------------------

// A graph whose rows cross many slices (32 virtual rows of at most 64 links
// each): vertex 0 is linked from everyone (a row of n - 1 links), vertex 1
// links to everyone (the largest out-degree), vertex 2 gets links from the
// first 600 vertices (10 virtual rows), a random graph underneath, dangling
// vertices throughout.
coo_matrix<double> long_rows_graph(index_t n) {
  coo_matrix<double> a = random_graph(n, 8 * static_cast<std::size_t>(n), 83);
  const auto arc = [&](index_t i, index_t j) {
    a.row_idx.push_back(i);
    a.col_idx.push_back(j);
    a.values.push_back(1.0);
  };
  for (index_t i = 1; i < n; ++i) arc(i, 0);
  for (index_t j = 0; j < n; ++j) arc(1, j);
  for (index_t i = 3; i < 603 && i < n; ++i) arc(i, 2);
  return a;
}

// Rows whose lengths sit on the fused pull's edges: one link short of, at and
// one past a virtual row (64), two of them, a whole slice of them (2048), and
// rows of equal length side by side, so that rows split into virtual rows
// begin and end at every position within a slice.
coo_matrix<double> slice_edges_graph() {
  const index_t n = 6000;
  coo_matrix<double> a = random_graph(n, 4 * static_cast<std::size_t>(n), 101);
  index_t target = 0;
  for (index_t len :
       {63, 64, 65, 127, 128, 129, 2047, 2048, 2049, 4097, 65, 65, 65, 130, 130, 130, 700, 700}) {
    for (index_t k = 0; k < len; ++k) {
      a.row_idx.push_back((target * 7919 + k * 13) % n);
      a.col_idx.push_back(target);
      a.values.push_back(1.0);
    }
    target += 3;
  }
  return a;
}

TYPED_TEST(gpu_pagerank, FusedPullMatchesReferenceOnLongRows) {
  using T = TypeParam;
  for (const auto& a :
       {long_rows_graph(700), long_rows_graph(5000), long_rows_graph(40000), slice_edges_graph()}) {
    const index_t n = a.rows;
    const auto g = make_pagerank_graph<T>(a, false);
    const auto ref_g = reference_from_coo(a, false);
    pagerank_cuda<T> fused(g, spmv_kernel::automatic, pagerank_pull::fused);
    ASSERT_EQ(fused.pull(), pagerank_pull::fused);
    EXPECT_EQ(fused.kernel_name(), "pull-fused");
    EXPECT_FALSE(fused.kernel().has_value());
    pagerank_cuda<T> spmv(g, spmv_kernel::automatic, pagerank_pull::spmv);
    EXPECT_EQ(spmv.pull(), pagerank_pull::spmv);
    pagerank_options o = plain_steps();
    o.tol = solve_tolerance<T>::tol;
    for (bool personalized : {false, true}) {
      o.personalization = personalized ? random_vector(n, 89, 0.0, 1.0) : std::vector<double>{};
      const auto ref = reference_pagerank(ref_g, 0.85, normalized(o.personalization));
      for (pagerank_loop loop : {pagerank_loop::graph_while, pagerank_loop::check_every}) {
        o.loop = loop;
        const auto r = fused.solve(o);
        EXPECT_EQ(r.pull, pagerank_pull::fused);
        EXPECT_GE(r.hub_entries, 0);
        EXPECT_LE(r.hub_entries, n);
        EXPECT_TRUE(r.converged) << "n " << n;
        EXPECT_NEAR(sum(r.rank), 1.0, 1e-6) << "n " << n;
        EXPECT_LE(max_abs_diff(r.rank, ref), solve_tolerance<T>::max_abs) << "n " << n;
        EXPECT_LE(l1_diff(r.rank, ref), solve_tolerance<T>::l1()) << "n " << n;
        for (double x : r.rank) ASSERT_GT(x, 0.0);
        const auto p = spmv.solve(o);
        EXPECT_LE(std::abs(r.iterations - p.iterations), 1) << "n " << n;
        EXPECT_LE(l1_diff(r.rank, p.rank), 2 * solve_tolerance<T>::l1()) << "n " << n;
      }
    }
  }
}

// The fused loop's stopping step is exact whatever the steps per trip, and
// steps after it change nothing; a start vector is honoured.
TYPED_TEST(gpu_pagerank, FusedPullUnrollAndStartAreExact) {
  using T = TypeParam;
  const auto a = long_rows_graph(3000);
  const auto g = make_pagerank_graph<T>(a, false);
  pagerank_cuda<T> s(g, spmv_kernel::automatic, pagerank_pull::fused);
  ASSERT_EQ(s.pull(), pagerank_pull::fused);
  pagerank_options o = plain_steps();
  o.loop = pagerank_loop::graph_while;
  o.graph_unroll = 1;
  const auto one = s.solve(o);
  ASSERT_TRUE(one.converged);
  const double largest = *std::max_element(one.rank.begin(), one.rank.end());
  for (int unroll : {2, 5, 0}) {
    o.graph_unroll = unroll;
    o.max_iter = 1000;
    const auto r = s.solve(o);
    EXPECT_EQ(r.graph_unroll, unroll == 0 ? 8 : unroll);
    EXPECT_EQ(r.iterations, one.iterations) << "unroll " << unroll;
    EXPECT_LE(max_abs_diff(r.rank, one.rank), 4 * std::numeric_limits<T>::epsilon() * largest);
    o.max_iter = 7;
    EXPECT_EQ(s.solve(o).iterations, 7) << "unroll " << unroll;
  }
  // Starting from the fixed point it stops after one step.
  o.graph_unroll = 0;
  o.max_iter = 1000;
  o.initial.assign(one.rank.begin(), one.rank.end());
  o.tol = 1e-4;
  const auto again = s.solve(o);
  EXPECT_EQ(again.iterations, 1);
  EXPECT_LE(max_abs_diff(again.rank, one.rank), 1e-5);
}

TYPED_TEST(gpu_pagerank, FusedPullIsRefusedWhereItCannotRun) {
  using T = TypeParam;
  const auto a = random_graph(500, 3000, 97);
  const auto weighted = make_pagerank_graph<T>(a, true);
  EXPECT_THROW(pagerank_cuda<T>(weighted, spmv_kernel::automatic, pagerank_pull::fused), invalid_argument);
  pagerank_cuda<T> plain(weighted);  // the SpMV pull, the default
  EXPECT_EQ(plain.pull(), pagerank_pull::spmv);
  const auto unweighted = make_pagerank_graph<T>(a, false);
  EXPECT_THROW(pagerank_cuda<T>(unweighted, spmv_kernel::csr_vector, pagerank_pull::fused), invalid_argument);
  pagerank_cuda<T> chosen(unweighted, spmv_kernel::csr_vector);  // a named kernel: the SpMV pull
  EXPECT_EQ(chosen.pull(), pagerank_pull::spmv);
  EXPECT_EQ(chosen.kernel(), spmv_kernel::csr_vector);
}

// Deterministic reductions: solving the same graph twice gives the same bits
// (ranks, residual, iteration count) whatever order the blocks ran in, for
// both pulls and both loops. The graph is large enough for hundreds of blocks
// and has dangling vertices (their mass feeds every rank).
TYPED_TEST(gpu_pagerank, SolvesAreBitwiseReproducible) {
  using T = TypeParam;
  const index_t n = 400000;
  const auto g = make_pagerank_graph<T>(random_graph(n, 1600000, 97), false);
  ASSERT_GT(g.dangling_count, 0);
  const auto same_bits = [](const pagerank_result& a, const pagerank_result& b) {
    return a.iterations == b.iterations && std::memcmp(&a.residual, &b.residual, sizeof(double)) == 0 &&
           a.rank.size() == b.rank.size() &&
           std::memcmp(a.rank.data(), b.rank.data(), a.rank.size() * sizeof(double)) == 0;
  };
  for (pagerank_pull pull : {pagerank_pull::fused, pagerank_pull::persistent, pagerank_pull::spmv}) {
    // The SpMV pull with a kernel that is itself deterministic (a warp per
    // row, no atomics; cuSPARSE's default algorithm does not promise it).
    const std::optional<spmv_kernel> kernel =
        pull == pagerank_pull::spmv ? std::optional(spmv_kernel::csr_vector) : std::nullopt;
    pagerank_cuda<T> s(g, kernel, pull);
    ASSERT_EQ(s.pull(), pull);
    pagerank_options o = plain_steps();
    o.tol = solve_tolerance<T>::tol;
    for (bool personalized : {false, true}) {
      o.personalization = personalized ? random_vector(n, 101, 0.0, 1.0) : std::vector<double>{};
      for (pagerank_loop loop : {pagerank_loop::graph_while, pagerank_loop::check_every}) {
        o.loop = loop;
        const pagerank_result a = s.solve(o);
        ASSERT_TRUE(a.converged);
        for (int again = 0; again < 3; ++again)
          EXPECT_TRUE(same_bits(a, s.solve(o)))
              << name(pull) << " " << name(loop) << (personalized ? " personalized" : "") << " run " << again;
      }
    }
  }
}

// ---- the persistent pull ------------------------------------------------------------

// Edge shapes for the persistent kernel: one vertex (with and without a self
// loop), sizes that are not a multiple of a block or a slice, every vertex
// dangling, one vertex holding most links (every vertex links to it: a row
// spanning many slices, hence many blocks), rows on the slice edges.
std::vector<std::pair<std::string, coo_matrix<double>>> persistent_shapes() {
  std::vector<std::pair<std::string, coo_matrix<double>>> v;
  v.push_back({"one vertex", graph_from_arcs(1, {})});
  v.push_back({"one vertex, self loop", graph_from_arcs(1, {{0, 0}})});
  v.push_back({"all dangling 1", graph_from_arcs(1025, {})});
  v.push_back({"all dangling 2", graph_from_arcs(33, {})});
  v.push_back({"odd random", random_graph(3001, 25013, 131)});
  // Every link into vertex 0 (a row spanning many slices, hence many blocks).
  // Sizes keep the double reference's own summation noise (n eps) below its
  // 1e-12 stop: at n = 70001 it stalled there.
  v.push_back({"star", star_graph(2049)});
  coo_matrix<double> hub = random_graph(5003, 2000, 137);  // and 5002 of 7002 links into vertex 0
  for (index_t i = 1; i < hub.rows; ++i) {
    hub.row_idx.push_back(i);
    hub.col_idx.push_back(0);
    hub.values.push_back(1);
  }
  v.push_back({"one vertex most links", std::move(hub)});
  v.push_back({"long rows", long_rows_graph(5000)});
  v.push_back({"slice edges", slice_edges_graph()});
  // One link a row (slices of one position, bound by instruction issue) and
  // a grid (two to four).
  v.push_back({"chain", chains_graph(1, 4099)});
  v.push_back({"grid", grid_graph(45)});
  return v;
}

// r (a solve of g, made from a, with o) against the reference on graphs of up
// to 10^4 vertices, against the CPU solver (twice the tolerance) on larger ones.
template <class T>
void expect_solves(const coo_matrix<double>& a, const pagerank_graph<T>& g, const pagerank_options& o,
                   const pagerank_result& r, const std::string& at) {
  if (a.rows > 10000) {
    EXPECT_LE(l1_diff(r.rank, pagerank_cpu(g, o).rank), 2 * solve_tolerance<T>::l1()) << at;
  } else {
    const auto ref = reference_pagerank(reference_from_coo(a, false), 0.85, normalized(o.personalization));
    EXPECT_LE(l1_diff(r.rank, ref), solve_tolerance<T>::l1()) << at;
  }
}

// Same bits: iteration count, residual and ranks.
bool same_bits(const pagerank_result& a, const pagerank_result& b) {
  return a.iterations == b.iterations && std::memcmp(&a.residual, &b.residual, sizeof(double)) == 0 &&
         a.rank.size() == b.rank.size() &&
         std::memcmp(a.rank.data(), b.rank.data(), a.rank.size() * sizeof(double)) == 0;
}

// The persistent pull against the reference (double at tol 1e-10 within
// 1e-9), the fused pull and the CPU solver, with personalization and a start
// vector; its two loops (one launch, or one per batch of steps) give the same bits.
TYPED_TEST(gpu_pagerank, PersistentPullMatchesReference) {
  using T = TypeParam;
  for (const auto& [what, a] : persistent_shapes()) {
    const index_t n = a.rows;
    const auto g = make_pagerank_graph<T>(a, false);
    const auto ref_g = reference_from_coo(a, false);
    pagerank_cuda<T> persistent(g, spmv_kernel::automatic, pagerank_pull::persistent);
    ASSERT_EQ(persistent.pull(), pagerank_pull::persistent);
    EXPECT_EQ(persistent.kernel_name(), "pull-persistent");
    EXPECT_FALSE(persistent.kernel().has_value());
    pagerank_cuda<T> fused(g, spmv_kernel::automatic, pagerank_pull::fused);
    pagerank_options o = plain_steps();
    o.tol = solve_tolerance<T>::tol;
    o.check_interval = 3;
    for (int variant = 0; variant < 3; ++variant) {
      const std::string at = what + " variant " + std::to_string(variant);
      o.personalization = variant == 1 ? random_vector(n, 139, 0.0, 1.0) : std::vector<double>{};
      o.initial = variant == 2 ? random_vector(n, 149, 0.0, 1.0) : std::vector<double>{};
      const auto ref = reference_pagerank(ref_g, 0.85, normalized(o.personalization));
      o.loop = pagerank_loop::check_every;
      const auto every = persistent.solve(o);
      EXPECT_EQ(every.loop, pagerank_loop::check_every) << at;
      EXPECT_EQ(every.host_syncs, static_cast<std::uint64_t>((every.iterations + 2) / 3 + 1)) << at;
      o.loop = pagerank_loop::graph_while;
      const auto r = persistent.solve(o);
      EXPECT_EQ(r.pull, pagerank_pull::persistent) << at;
      EXPECT_EQ(r.loop, pagerank_loop::graph_while) << at;
      EXPECT_EQ(r.host_syncs, 1u) << at;
      EXPECT_TRUE(same_bits(r, every)) << at;
      EXPECT_TRUE(r.converged) << at;
      EXPECT_LT(r.residual, o.tol) << at;
      EXPECT_NEAR(sum(r.rank), 1.0, 1e-6) << at;
      const double bound = std::is_same_v<T, double> ? 1e-9 : solve_tolerance<T>::max_abs;
      EXPECT_LE(max_abs_diff(r.rank, ref), bound) << at;
      EXPECT_LE(l1_diff(r.rank, ref), solve_tolerance<T>::l1()) << at;
      // (The fused pull's float sums once stalled above tol on the star, whose
      // one row it sums 64 links per lane; its rows are now summed in double.)
      const auto f = fused.solve(o);
      EXPECT_TRUE(f.converged) << at;
      EXPECT_LE(std::abs(r.iterations - f.iterations), 1) << at;
      EXPECT_LE(l1_diff(r.rank, f.rank), 2 * solve_tolerance<T>::l1()) << at;
    }
    o.personalization.clear();
    o.initial.clear();
    const auto c = pagerank_cpu(g, o);
    const auto r = persistent.solve(o);
    EXPECT_LE(l1_diff(r.rank, c.rank), 2 * solve_tolerance<T>::l1()) << what;
    EXPECT_LE(std::abs(r.iterations - c.iterations), 1) << what;
  }
}

// max_iter reached: not converged, exactly max_iter steps in either loop (a
// batch of the check-every loop not dividing it), the same bits in both.
TYPED_TEST(gpu_pagerank, PersistentPullStopsAtMaxIter) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(long_rows_graph(3000), false);
  pagerank_cuda<T> s(g, spmv_kernel::automatic, pagerank_pull::persistent);
  pagerank_options o = plain_steps();
  o.tol = 1e-300;
  o.check_interval = 3;
  for (int max_iter : {1, 2, 7, 15}) {  // float reaches an exact fixed point after 29
    o.max_iter = max_iter;
    o.loop = pagerank_loop::graph_while;
    const auto r = s.solve(o);
    EXPECT_FALSE(r.converged) << max_iter;
    EXPECT_EQ(r.iterations, max_iter);
    EXPECT_GT(r.residual, 0.0);
    EXPECT_NEAR(sum(r.rank), 1.0, 1e-6);
    o.loop = pagerank_loop::check_every;
    EXPECT_TRUE(same_bits(r, s.solve(o))) << max_iter;
  }
  // A progress callback sees the steps in order, the last one the result's.
  o.max_iter = 1000;
  o.tol = 1e-6;
  o.loop = pagerank_loop::graph_while;
  std::vector<int> seen;
  o.progress = [&](int k, double) { seen.push_back(k); };
  const auto r = s.solve(o);
  EXPECT_TRUE(r.converged);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GT(seen[i], seen[i - 1]);
  for (int k : seen) EXPECT_LE(k, r.iterations);
}

// An interrupt check that throws ends a solve whose tol is out of reach (a
// million steps) on every pull and loop within a second, the device stopped
// first: the same solver then solves as before, to the bit. One that never
// throws changes nothing (the persistent pull then runs in launches of
// interrupt_batch steps: the same bits as one launch). Without it the Python
// module's Ctrl-C waited for max_iter steps.
struct stop_solving {};

bool launches_block() {
  const char* v = std::getenv("CUDA_LAUNCH_BLOCKING");
  return v && std::string(v) == "1";
}

TYPED_TEST(gpu_pagerank, InterruptEndsALongSolveAndTheSolverGoesOn) {
  using T = TypeParam;
  // A ring of 3000 vertices and a chord: every eigenvalue of its walk on the
  // unit circle, so at alpha 0.99999 the iterates change for about a million
  // steps (a random graph's reached their fixed point, a residual of 0 that
  // meets any tol, within 50 ms on the H100, session 106).
  coo_matrix<double> ring;
  ring.rows = ring.cols = 3000;
  for (index_t i = 0; i <= ring.rows; ++i) {
    ring.row_idx.push_back(i < ring.rows ? i : 0);
    ring.col_idx.push_back(i < ring.rows ? (i + 1) % ring.rows : ring.rows / 2);
    ring.values.push_back(1.0);
  }
  const auto g = make_pagerank_graph<T>(ring, false);
  for (pagerank_pull pull : {pagerank_pull::spmv, pagerank_pull::fused, pagerank_pull::persistent}) {
    pagerank_cuda<T> s(g, spmv_kernel::automatic, pull);
    ASSERT_EQ(s.pull(), pull);
    for (pagerank_loop loop : {pagerank_loop::graph_while, pagerank_loop::check_every}) {
      for (pagerank_accel accel : {pagerank_accel::none, pagerank_accel::automatic}) {
        const std::string at =
            std::string(name(pull)) + " " + std::string(name(loop)) + " " + std::string(name(accel));
        pagerank_options o = plain_steps();
        o.loop = loop;
        o.accelerate = accel;
        o.check_interval = 64;
        const auto before = s.solve(o);
        pagerank_options quiet = o;
        int calls = 0;
        quiet.interrupt = [&] { ++calls; };
        const auto with_check = s.solve(quiet);
        EXPECT_TRUE(same_bits(before, with_check)) << at;
        EXPECT_TRUE(with_check.converged) << at;
        // The persistent pull's batches send the ranks with the state: one
        // sync ends a solve of one batch, as without the check.
        EXPECT_EQ(with_check.host_syncs, before.host_syncs) << at;

        // With CUDA_LAUNCH_BLOCKING=1 (the sanitize step's memcheck of this
        // binary) a launch returns when its work is done: the solve's wait,
        // which runs the check, starts after a whole graph of a million
        // steps (70-100 s under memcheck, session 107). The interrupt path
        // is memchecked without it (scripts/gpu-run.sh).
        if (launches_block()) continue;
        pagerank_options endless = o;
        endless.alpha = 0.99999;
        endless.tol = 1e-300;
        endless.max_iter = 1000000;
        const auto start = std::chrono::steady_clock::now();
        endless.interrupt = [&] {
          if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(50)) throw stop_solving{};
        };
        EXPECT_THROW(s.solve(endless), stop_solving) << at;
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_LT(took, 1.0) << at;
        EXPECT_TRUE(same_bits(before, s.solve(o))) << at << ": the solve after the interrupted one";
      }
    }
  }
}

// A graph in the band where auto's model is unsure (model_band), in float
// and double: 40009 vertices, three links each (120 k links).
coo_matrix<double> unsure_band_graph() {
  const index_t n = 40009;
  coo_matrix<double> a;
  a.rows = a.cols = n;
  for (index_t i = 0; i < n; ++i)
    for (const index_t j : {(i + 1) % n, (2 * i + 1) % n, (3 * i + 7) % n}) {
      a.row_idx.push_back(i);
      a.col_idx.push_back(j);
      a.values.push_back(1.0);
    }
  return a;
}

// The pull trial (solvers/pagerank_trial.hpp) where the model is unsure:
// times the candidates, keeps the fastest, says so, leaves a record that the next
// construction reuses without a trial; an invalid record with trials off
// leaves the model's choice; a named pull is "named". Ranks as the reference.
TYPED_TEST(gpu_pagerank, AutoPullTrialPicksRemembersAndSolves) {
  using T = TypeParam;
  const coo_matrix<double> a = unsure_band_graph();
  const auto g = make_pagerank_graph<T>(a, false);
  const pull_facts f = pagerank_cuda<T>::facts(g);  // the rule's on this device
  ASSERT_TRUE(model_band(f).unsure) << model_band(f).why;
  const pagerank_pull model_pull = choose_pull(pagerank_pull::automatic, f, std::nullopt).pull;
  pull_trial_memo memo;
  pagerank_cuda<T> tried(g, std::nullopt, pagerank_pull::automatic, &memo);
  EXPECT_EQ(tried.pull_decision().rfind("trial: ", 0), 0u) << tried.pull_decision();
  EXPECT_EQ(tried.kernel_reason().rfind("auto pull: trial: ", 0), 0u) << tried.kernel_reason();
  EXPECT_GT(tried.trial_seconds(), 0.0);
  ASSERT_FALSE(memo.record.empty());
  const auto rec = parse_trial_record(memo.record, f, g.vertices(), cuda::device_description(0));
  ASSERT_TRUE(rec.has_value()) << memo.record;
  ASSERT_EQ(rec->times.size(), trial_candidates(model_pull, f).size());
  EXPECT_EQ(rec->times.front().pull, tried.pull());
  EXPECT_EQ(rec->times.front().kernel, tried.kernel_name());
  pagerank_options o = plain_steps();
  o.tol = solve_tolerance<T>::tol;
  const auto ref = reference_pagerank(reference_from_coo(a, false), 0.85, {});
  const auto r = tried.solve(o);
  EXPECT_EQ(r.pull_decision, tried.pull_decision());
  EXPECT_EQ(r.pull, tried.pull());
  EXPECT_TRUE(r.converged);
  EXPECT_LE(max_abs_diff(r.rank, ref), solve_tolerance<T>::max_abs);

  pull_trial_memo again;
  again.remembered = memo.record;
  pagerank_cuda<T> cached(g, std::nullopt, pagerank_pull::automatic, &again);
  EXPECT_EQ(cached.pull_decision().rfind("cached trial: ", 0), 0u) << cached.pull_decision();
  EXPECT_EQ(cached.pull(), tried.pull());
  EXPECT_EQ(cached.kernel_name(), tried.kernel_name());
  EXPECT_EQ(cached.trial_seconds(), 0.0);
  EXPECT_TRUE(again.record.empty());
  EXPECT_LE(max_abs_diff(cached.solve(o).rank, ref), solve_tolerance<T>::max_abs);

  pull_trial_memo bad;
  bad.remembered = "perron-pull-trial " + std::to_string(trial_record_version) +
                   "\nfacts 4 1 1\ndevice x\ntime fused pull-fused 1\n";
  bad.may_trial = false;
  pagerank_cuda<T> model(g, std::nullopt, pagerank_pull::automatic, &bad);
  EXPECT_EQ(model.pull_decision(), "model");
  EXPECT_EQ(model.pull(), model_pull);
  if (!bad.record.empty()) {  // where the model's pattern pull timed its layout: that record
    const auto kept = parse_trial_record(bad.record, f, g.vertices(), cuda::device_description(0));
    ASSERT_TRUE(kept.has_value()) << bad.record;
    EXPECT_TRUE(kept->untimed);
    EXPECT_EQ(kept->layout, model.layout());
  }
  // A named pull with the trial's record: the record stays (no untimed one over it).
  pull_trial_memo named;
  named.remembered = memo.record;
  EXPECT_EQ(pagerank_cuda<T>(g, std::nullopt, pagerank_pull::fused, &named).pull_decision(), "named");
  EXPECT_TRUE(named.record.empty());
  EXPECT_EQ(pagerank_cuda<T>(g, std::nullopt, pagerank_pull::automatic).pull_decision(), "model");
}

TYPED_TEST(gpu_pagerank, PersistentPullIsRefusedWhereItCannotRun) {
  using T = TypeParam;
  const auto a = random_graph(500, 3000, 97);
  EXPECT_THROW(
      pagerank_cuda<T>(make_pagerank_graph<T>(a, true), spmv_kernel::automatic, pagerank_pull::persistent),
      invalid_argument);
  const auto g = make_pagerank_graph<T>(a, false);
  EXPECT_THROW(pagerank_cuda<T>(g, spmv_kernel::csr_vector, pagerank_pull::persistent), invalid_argument);
  // auto takes what choose_pull says on the device's facts: on this small
  // graph the persistent pull, with the mode its trial picks; it says what it
  // took and why.
  const pull_facts f = pagerank_cuda<T>::facts(g);
  pagerank_cuda<T> chosen(g, std::nullopt, pagerank_pull::automatic);
  EXPECT_EQ(chosen.pull(), choose_pull(pagerank_pull::automatic, f, std::nullopt).pull);
  EXPECT_EQ(chosen.pull(), pagerank_pull::persistent) << chosen.kernel_reason();
  EXPECT_NE(chosen.kernel_reason().find("candidate: "), std::string::npos) << chosen.kernel_reason();
  EXPECT_EQ(chosen.kernel_reason().rfind("auto pull: ", 0), 0u) << chosen.kernel_reason();
}

// A kernel's shared-memory limit belongs to the process: a fused solver built
// later on a smaller graph must not lower it under an earlier one's hub (it
// did; in the loops without a graph the earlier solver's steps then failed to
// launch, and in a WHILE graph the driver crashed now and then as it
// destroyed the graph). Hubs forced to all of x: 20000 entries, above the
// 48 KB that needs no opt-in in float and in double.
TYPED_TEST(gpu_pagerank, FusedSolversKeepTheirHubs) {
  using T = TypeParam;
  const scoped_env hub("PERRON_FUSED_HUB", "1000000");
  const auto big = make_pagerank_graph<T>(random_graph(20000, 120000, 211), false);
  const auto small = make_pagerank_graph<T>(random_graph(300, 1500, 223), false);
  pagerank_options o = plain_steps();
  o.loop = pagerank_loop::check_every;
  o.use_graphs = false;
  pagerank_cuda<T> a(big, std::nullopt, pagerank_pull::fused);
  const pagerank_result alone = a.solve(o);
  ASSERT_GT(alone.hub_entries * sizeof(T), 48u * 1024);
  pagerank_cuda<T> b(small, std::nullopt, pagerank_pull::fused);
  EXPECT_LT(b.solve(o).hub_entries, alone.hub_entries);
  for (pagerank_loop loop : {pagerank_loop::check_every, pagerank_loop::graph_while}) {
    o.loop = loop;
    o.use_graphs = loop == pagerank_loop::graph_while;
    const pagerank_result r = a.solve(o);
    EXPECT_EQ(r.hub_entries, alone.hub_entries);
    const bool graphs = o.use_graphs;
    EXPECT_EQ(r.iterations, alone.iterations) << "graphs " << graphs;
    EXPECT_EQ(r.rank, alone.rank) << "graphs " << graphs;
  }
}

// The persistent pull's three modes (resident: each block's slices in shared
// memory, read the same way every step; streamed: read from L2 every step,
// handed to warps by a counter, with a hub of x; cluster: one thread-block
// cluster, x copied into every block's shared memory, cut rows finished by
// every block) sum every row in the same order, so they give the same bits,
// on every edge shape and on a graph spread over every SM, with
// personalization and in both loops; each solve matches the reference. The
// cluster mode runs where the device launches clusters (sm_90 on), x fits in
// a block's shared memory (not the 60000-vertex graph) and the graph has a
// slice for each block (not the tiny shapes); elsewhere it falls back to the
// resident mode. resident-cluster: a resident grid of 2-16 blocks launched as
// one cluster (its hardware barrier for the grid's), where the graph's fewest
// resident blocks are that many (the odd random graph's); elsewhere streamed.
TYPED_TEST(gpu_pagerank, PersistentModesGiveTheSameBits) {
  using T = TypeParam;
  auto shapes = persistent_shapes();
  shapes.push_back({"random 60000", random_graph(60000, 700000, 151)});
  shapes.push_back({"random 5000, 200000 links", random_graph(5000, 200000, 163)});
  // resident-grouped and resident-spread: the resident grid with one deal of
  // the slices each (a cut row summed in a block's shared memory or through
  // L2 by the deal).
  const char* modes[] = {"resident",         "streamed",         "cluster",
                         "resident-cluster", "resident-grouped", "resident-spread"};
  constexpr int mode_count = 6;
  const std::string device = cuda::device_description();  // "... (sm_90, ..."
  const bool clusters = std::atoi(device.c_str() + device.find("(sm_") + 4) >= 90;
  for (const auto& [what, a] : shapes) {
    const auto g = make_pagerank_graph<T>(a, false);
    const auto ref_g = reference_from_coo(a, false);
    pagerank_options o = plain_steps();
    o.tol = solve_tolerance<T>::tol;
    o.check_interval = 4;
    std::vector<pagerank_result> runs[mode_count];
    for (int mode = 0; mode < mode_count; ++mode) {
      scoped_env env("PERRON_PERSISTENT", modes[mode]);
      pagerank_cuda<T> s(g, spmv_kernel::automatic, pagerank_pull::persistent);
      const std::string& why = s.kernel_reason();
      const bool resident = why.find("resident (") != std::string::npos;
      const bool cluster = why.find("cluster (") != std::string::npos;
      const bool one_cluster = why.find("launched as one cluster") != std::string::npos;
      if (mode >= 4) {
        EXPECT_TRUE(resident) << what << ": " << why;
        EXPECT_EQ(why.find("each cut row's slices in one block") != std::string::npos, mode == 4)
            << what << ": " << why;
      } else if (mode == 3) {
        EXPECT_FALSE(cluster) << what << ": " << why;
        EXPECT_TRUE(!one_cluster || resident) << what << ": " << why;
        if (clusters && what == "odd random") {
          EXPECT_TRUE(one_cluster) << what << ": " << why;
        }
      } else if (mode == 2) {
        // The cluster mode where its layout fits and the graph has a slice for
        // each of at least 4 blocks (both random graphs below 60000 vertices;
        // the tiny shapes have fewer slices), else the resident mode.
        EXPECT_NE(cluster, resident) << what << ": " << why;
        if (clusters && (what == "odd random" || what.rfind("random 5000", 0) == 0)) {
          EXPECT_TRUE(cluster) << what << ": " << why;
        }
        if (a.rows >= 60000) {
          EXPECT_TRUE(resident) << what << ": " << why;
        }
      } else {
        EXPECT_EQ(resident, mode == 0) << what << ": " << why;
        EXPECT_FALSE(cluster) << what << ": " << why;
        EXPECT_FALSE(one_cluster && mode != 0) << what << ": " << why;
      }
      for (int variant = 0; variant < 2; ++variant) {
        o.personalization = variant == 1 ? random_vector(a.rows, 157, 0.0, 1.0) : std::vector<double>{};
        const auto ref = reference_pagerank(ref_g, 0.85, normalized(o.personalization));
        for (pagerank_loop loop : {pagerank_loop::graph_while, pagerank_loop::check_every}) {
          o.loop = loop;
          runs[mode].push_back(s.solve(o));
          const auto& r = runs[mode].back();
          const std::string at = what + " " + modes[mode] + " variant " + std::to_string(variant) + " " +
                                 std::string(name(loop));
          EXPECT_TRUE(r.converged) << at;
          EXPECT_LE(l1_diff(r.rank, ref), solve_tolerance<T>::l1()) << at;
        }
      }
    }
    for (int mode = 1; mode < mode_count; ++mode) {
      ASSERT_EQ(runs[0].size(), runs[mode].size());
      for (std::size_t i = 0; i < runs[0].size(); ++i)
        EXPECT_TRUE(same_bits(runs[0][i], runs[mode][i])) << what << " " << modes[mode] << " " << i;
    }
  }
}

// The persistent kernel starts a uniform solve itself (x_0 and the state
// written in its first launch, no init kernel before it: persistent_pull::
// launch_solve's fresh start): the same bits as the same solve started by
// init_x from an initial vector equal to the uniform one (exactly 1/n in T:
// n a power of two in float), in each mode, in both loops, plain and
// extrapolating, with and without personalization.
TYPED_TEST(gpu_pagerank, PersistentStartsTheUniformSolveItself) {
  using T = TypeParam;
  std::vector<std::pair<std::string, coo_matrix<double>>> shapes;
  shapes.push_back({"random 4096", random_graph(4096, 40000, 171)});
  shapes.push_back({"all dangling 1024", graph_from_arcs(1024, {})});
  coo_matrix<double> hub = random_graph(8192, 3000, 173);  // and 8191 links into vertex 0
  for (index_t i = 1; i < hub.rows; ++i) {
    hub.row_idx.push_back(i);
    hub.col_idx.push_back(0);
    hub.values.push_back(1);
  }
  shapes.push_back({"hub 8192", std::move(hub)});
  shapes.push_back({"random 65536", random_graph(65536, 600000, 179)});
  if constexpr (std::is_same_v<T, double>) shapes.push_back({"odd random", random_graph(3001, 25013, 131)});
  for (const char* mode : {"resident", "streamed", "cluster"}) {
    scoped_env env("PERRON_PERSISTENT", mode);
    for (const auto& [what, a] : shapes) {
      const auto g = make_pagerank_graph<T>(a, false);
      pagerank_cuda<T> s(g, spmv_kernel::automatic, pagerank_pull::persistent);
      ASSERT_EQ(s.pull(), pagerank_pull::persistent) << what;
      pagerank_options o;
      o.tol = solve_tolerance<T>::tol;
      o.check_interval = 4;
      for (pagerank_accel accel : {pagerank_accel::none, pagerank_accel::automatic}) {
        o.accelerate = accel;
        for (bool personalized : {false, true}) {
          o.personalization = personalized ? random_vector(a.rows, 181, 0.0, 1.0) : std::vector<double>{};
          for (pagerank_loop loop : {pagerank_loop::graph_while, pagerank_loop::check_every}) {
            o.loop = loop;
            const std::string at = what + " " + mode + " " + std::string(name(accel)) +
                                   (personalized ? " personalized " : " ") + std::string(name(loop)) + " (" +
                                   s.kernel_reason() + ")";
            o.initial.clear();
            const auto own = s.solve(o);
            EXPECT_TRUE(own.converged) << at;
            expect_solves(a, g, o, own, at);
            o.initial.assign(static_cast<std::size_t>(a.rows), 1.0);
            const auto by_init = s.solve(o);
            EXPECT_TRUE(same_bits(own, by_init)) << at;
            o.initial.clear();
          }
        }
      }
    }
  }
}

// The solver a later run builds from the trial record rec kept with g's
// cache entry (memo.record: what it would keep anew).
template <class T>
pagerank_cuda<T> built_from_record(const pagerank_graph<T>& g, const pull_facts& f, const trial_record& rec,
                                   pull_trial_memo& memo) {
  memo.remembered = format_trial_record(rec, f, g.vertices(), cuda::device_description(0));
  pagerank_cuda<T> s(g, std::nullopt, pagerank_pull::automatic, &memo);
  EXPECT_EQ(s.pull_decision().rfind("cached trial: ", 0), 0u) << s.pull_decision();
  return s;
}

// Each shape solved by the fused pull built under each of two values of the
// layout pin `pin` (a variable of layout_pin()), plain and personalized
// (seed): both builds must give the same bits and match the reference or
// the CPU. check(w, solver) sees each build, each(w, variant, what, result)
// each solve; the runs of the second value come back, by shape.
template <class T, class Check, class Each>
std::vector<std::vector<pagerank_result>> expect_pins_agree(
    const std::vector<std::pair<std::string, coo_matrix<double>>>& shapes, const char* pin,
    const std::array<const char*, 2>& values, std::uint64_t seed, Check check, Each each) {
  std::vector<std::vector<pagerank_result>> second;
  for (const auto& [what, a] : shapes) {
    const auto g = make_pagerank_graph<T>(a, false);
    pagerank_options o = plain_steps();
    o.tol = solve_tolerance<T>::tol;
    std::vector<pagerank_result> runs[2];
    for (int w = 0; w < 2; ++w) {
      const scoped_env env(pin, values[w]);
      pagerank_cuda<T> s(g, spmv_kernel::automatic, pagerank_pull::fused);
      check(w, s);
      for (int variant = 0; variant < 2; ++variant) {
        o.personalization = variant == 1 ? random_vector(a.rows, seed, 0.0, 1.0) : std::vector<double>{};
        runs[w].push_back(s.solve(o));
        const std::string at = what + " " + values[w] + " variant " + std::to_string(variant);
        EXPECT_TRUE(runs[w].back().converged) << at;
        expect_solves(a, g, o, runs[w].back(), at);
        each(w, variant, what, runs[w].back());
      }
    }
    for (std::size_t i = 0; i < runs[0].size(); ++i)
      EXPECT_TRUE(same_bits(runs[0][i], runs[1][i])) << what << " variant " << i;
    second.push_back(runs[1]);
  }
  return second;
}

// The fused pull's two index widths (pagerank_fused.cuh: 32-bit columns, or
// 16-bit differences with escapes to a per-slice array) built from the same
// sorted rows read the same columns in the same order, so they give the same
// bits: PERRON_FUSED_INDEX=16 against `trial` (both built, the faster kept:
// the 32-bit one on the H100, where the 16-bit one was slower on every graph
// measured), on the edge shapes and on graphs whose differences need high
// halves (ids up to 2^21, so high halves up to 64; every virtual row's first
// link escapes there), with personalization. Each solve matches the
// reference (small shapes) or the CPU solver; the 16-bit index is smaller on
// a random graph. Unset, the fused pull builds the 32-bit index alone.
TYPED_TEST(gpu_pagerank, FusedIndexWidthsGiveTheSameBits) {
  using T = TypeParam;
  auto shapes = persistent_shapes();
  shapes.push_back({"random 200000", random_graph(200000, 1500000, 171)});
  shapes.push_back({"random 2^21 + 3", random_graph((1 << 21) + 3, 3000000, 173)});
  coo_matrix<double> star = random_graph(100003, 50000, 179);  // and every vertex into 77777
  for (index_t i = 0; i < star.rows; ++i) {
    star.row_idx.push_back(i);
    star.col_idx.push_back(77777);
    star.values.push_back(1);
  }
  shapes.push_back({"star at 77777", std::move(star)});
  int trial_took_16 = 0;
  const auto runs = expect_pins_agree<T>(
      shapes, "PERRON_FUSED_INDEX", {"trial", "16"}, 181,
      [](int w, const pagerank_cuda<T>& s) {
        if (w == 0) {
          EXPECT_NE(s.kernel_reason().find("; index 16-bit ("), std::string::npos) << s.kernel_reason();
        }
      },
      [&](int w, int variant, const std::string& what, const pagerank_result& r) {
        if (w == 1) {
          EXPECT_TRUE(r.index16) << what << ": " << r.kernel_reason;
          if (what == "random 200000") {  // 7.5 links a row (at 2^21 1.4: there the count bytes cost more)
            EXPECT_LT(r.index_bytes_per_link, 3.0) << what;
          }
        } else if (variant == 0) {
          trial_took_16 += r.index16;
        }
      });
  const pagerank_result random_run = runs[shapes.size() - 3][0];  // random 200000, no personalization
  std::cout << "[ note ] the trial kept the 16-bit index on " << trial_took_16 << " of " << shapes.size()
            << " graphs\n";
  // Unset: the 32-bit index alone, from unsorted rows.
  const auto g = make_pagerank_graph<T>(random_graph(200000, 1500000, 171), false);
  pagerank_cuda<T> s(g, spmv_kernel::automatic, pagerank_pull::fused);
  EXPECT_EQ(s.kernel_reason().find("16-bit"), std::string::npos) << s.kernel_reason();
  pagerank_options o = plain_steps();
  o.tol = solve_tolerance<T>::tol;
  const pagerank_result r = s.solve(o);
  EXPECT_FALSE(r.index16);
  EXPECT_GE(r.index_bytes_per_link, 4.0);
  EXPECT_LE(l1_diff(r.rank, random_run.rank), 2 * solve_tolerance<T>::l1());
}

// The fused step's two loops (fused_loop: a lane's whole batches untested,
// or every batch tested a link) add the same loads in the same order: the
// same bits, on the edge shapes and a random graph, with personalization;
// layout() names the loop built. Unpinned, the layout trial times both; a
// remembered layout that names a loop is built with it, untimed, and one
// that does not (an older record's) has its loops timed and is kept anew.
TYPED_TEST(gpu_pagerank, FusedLoopsGiveTheSameBits) {
  using T = TypeParam;
  auto shapes = persistent_shapes();
  shapes.push_back({"random 200000", random_graph(200000, 1500000, 191)});
  const auto last_word = [](const std::string& s) { return s.substr(s.rfind(' ') + 1); };
  expect_pins_agree<T>(
      shapes, "PERRON_FUSED_LOOP", {"whole", "tested"}, 193,
      [&](int w, const pagerank_cuda<T>& s) {
        EXPECT_EQ(last_word(s.layout()), w == 0 ? "whole" : "tested") << s.layout();
        EXPECT_EQ(s.kernel_reason().find("; loop whole "), std::string::npos) << s.kernel_reason();
      },
      [](int, int, const std::string&, const pagerank_result&) {});
  {
    const scoped_env bad("PERRON_FUSED_LOOP", "fast");
    const auto g = make_pagerank_graph<T>(shapes.front().second, false);
    EXPECT_THROW(pagerank_cuda<T>(g, spmv_kernel::automatic, pagerank_pull::fused), invalid_argument);
  }

  const coo_matrix<double> a = unsure_band_graph();
  const auto g = make_pagerank_graph<T>(a, false);
  const pull_facts f = pagerank_cuda<T>::facts(g);
  ASSERT_TRUE(model_band(f).unsure) << model_band(f).why;
  pagerank_cuda<T> timed(g, spmv_kernel::automatic, pagerank_pull::fused);
  EXPECT_NE(timed.kernel_reason().find("; loop whole "), std::string::npos) << timed.kernel_reason();
  const std::string kept = last_word(timed.layout());
  EXPECT_TRUE(kept == "whole" || kept == "tested") << timed.layout();
  pagerank_options o = plain_steps();
  o.tol = solve_tolerance<T>::tol;
  trial_record rec;
  rec.times.push_back(trial_time{pagerank_pull::fused, "pull-fused", 5.0});
  rec.times.push_back(trial_time{pagerank_pull::spmv, "cusparse", 9.0});
  for (const std::string layout : {"hub 0 tested", "hub 0 whole", "hub 0"}) {
    rec.layout = layout;
    pull_trial_memo memo;
    pagerank_cuda<T> cached = built_from_record(g, f, rec, memo);
    ASSERT_EQ(cached.pull(), pagerank_pull::fused);
    if (layout == "hub 0") {  // the loops timed, and the layout kept with the same times
      EXPECT_NE(cached.kernel_reason().find("; loop whole "), std::string::npos) << cached.kernel_reason();
      ASSERT_FALSE(memo.record.empty());
      const auto renewed = parse_trial_record(memo.record, f, g.vertices(), cuda::device_description(0));
      ASSERT_TRUE(renewed.has_value()) << memo.record;
      EXPECT_EQ(renewed->layout, cached.layout());
      EXPECT_EQ(renewed->times.size(), rec.times.size());
    } else {
      EXPECT_EQ(cached.layout(), layout);
      EXPECT_EQ(cached.kernel_reason().find("; loop whole "), std::string::npos) << cached.kernel_reason();
      EXPECT_TRUE(memo.record.empty()) << memo.record;
    }
    expect_solves(a, g, o, cached.solve(o), "remembered layout " + layout);
  }
}

// The fused pull's windowed order (PERRON_FUSED_WINDOW: in-degree order
// within runs of W consecutive ids): every window gives the reference's
// ranks (windows of one slice, windows that cut rows between slices, one
// window wider than the graph), in both index widths, with personalization;
// on a graph whose own order is local (the web generator's sites) the 16-bit
// index needs fewer bytes per link in the windowed order than in the global
// one (docs/PERFORMANCE.md, "The fused pull's windowed order"). A window that
// is not a power of two is refused.
TYPED_TEST(gpu_pagerank, FusedOrderWindowsMatchTheReference) {
  using T = TypeParam;
  auto shapes = persistent_shapes();
  shapes.push_back({"random 200000", random_graph(200000, 1500000, 171)});
  shapes.push_back({"web 262144", io::load_matrix("web:262144:2000000").matrix});
  double web_bytes[2] = {0, 0};  // the 16-bit index: global, windowed
  for (const auto& [what, a] : shapes) {
    const auto g = make_pagerank_graph<T>(a, false);
    for (const char* window : {"0", "32", "1024", "4194304"}) {
      for (const char* width : {"32", "16"}) {
        scoped_env w("PERRON_FUSED_WINDOW", window), x("PERRON_FUSED_INDEX", width);
        pagerank_cuda<T> s(g, spmv_kernel::automatic, pagerank_pull::fused);
        const bool windowed = std::string(window) != "0" && std::stoll(window) < a.rows;
        EXPECT_EQ(s.kernel_reason().find("within windows of") != std::string::npos, windowed)
            << what << " " << window << ": " << s.kernel_reason();
        pagerank_options o = plain_steps();
        o.tol = solve_tolerance<T>::tol;
        for (int variant = 0; variant < 2; ++variant) {
          o.personalization = variant == 1 ? random_vector(a.rows, 181, 0.0, 1.0) : std::vector<double>{};
          const pagerank_result r = s.solve(o);
          const std::string at =
              what + " window " + window + " index " + width + " variant " + std::to_string(variant);
          EXPECT_TRUE(r.converged) << at;
          expect_solves(a, g, o, r, at);
          if (what == "web 262144" && variant == 0 && std::string(width) == "16") {
            if (std::string(window) == "0") web_bytes[0] = r.index_bytes_per_link;
            if (std::string(window) == "1024") web_bytes[1] = r.index_bytes_per_link;
          }
        }
      }
    }
  }
  EXPECT_GT(web_bytes[1], 0.0);
  EXPECT_LT(web_bytes[1], web_bytes[0]) << "16-bit index bytes per link, windowed against global order";
  const auto g = make_pagerank_graph<T>(random_graph(1000, 5000, 7), false);
  for (const char* bad : {"3", "-32", "x"}) {
    scoped_env w("PERRON_FUSED_WINDOW", bad);
    EXPECT_THROW(pagerank_cuda<T>(g, spmv_kernel::automatic, pagerank_pull::fused), invalid_argument) << bad;
  }
}

// The 16-bit index's first difference of a virtual row is taken from 0 or
// from near its own row (pagerank_fused_slices.cuh, index16_first): in an
// order where links join near ids none of a ring's rows past 2^15 escapes
// its first link, so the index is its 2-byte words and the slices' starts
// (about 2.06 bytes a link at 2 links a row, 3.56 when each first link
// escaped and counted in a byte of its own); the web generator's sites in
// the fused pull's own order (runs of 1024 ids) take under 2.6 (printed; the
// count on the CPU: 0.04 escapes a link, 0.15 from 0). The ranks match
// the CPU solver, with personalization; the rows near 0 link to ids near n
// (the ring closes), whose first links escape from either base.
TYPED_TEST(gpu_pagerank, SixteenBitIndexFirstLinksFromNearTheirRows) {
  using T = TypeParam;
  const std::pair<const char*, double> shapes[] = {{"ws:1048576:2:0", 2.1}, {"web:262144:2000000", 2.6}};
  for (const auto& [spec, most] : shapes) {
    const coo_matrix<double> a = io::load_matrix(spec).matrix;
    const auto g = make_pagerank_graph<T>(a, false);
    scoped_env w("PERRON_FUSED_WINDOW", "1024"), x("PERRON_FUSED_INDEX", "16");
    pagerank_cuda<T> s(g, spmv_kernel::automatic, pagerank_pull::fused);
    pagerank_options o = plain_steps();
    o.tol = solve_tolerance<T>::tol;
    for (int variant = 0; variant < 2; ++variant) {
      o.personalization = variant == 1 ? random_vector(a.rows, 191, 0.0, 1.0) : std::vector<double>{};
      const pagerank_result r = s.solve(o);
      const std::string at = std::string(spec) + " variant " + std::to_string(variant);
      EXPECT_TRUE(r.converged) << at;
      EXPECT_TRUE(r.index16) << at << ": " << r.kernel_reason;
      EXPECT_LT(r.index_bytes_per_link, most) << at << ": " << r.kernel_reason;
      expect_solves(a, g, o, r, at);
      if (variant == 0)
        std::cout << "[ note ] " << spec << ": " << r.index_bytes_per_link << " bytes a link\n";
    }
  }
}

// Whether order (entry k: the graph's id of the solver's vertex k) is the
// persistent pull's own order: by decreasing in-degree, ties by id, within
// each run of `window` ids, the runs in the graph's order.
template <class T>
::testing::AssertionResult is_windowed_order(const std::vector<index_t>& order, const pagerank_graph<T>& g,
                                             index_t window) {
  if (order.size() != static_cast<std::size_t>(g.vertices()))
    return ::testing::AssertionFailure() << order.size() << " entries for " << g.vertices() << " vertices";
  const auto in = [&](index_t v) { return g.pt.row_ptr[v + 1] - g.pt.row_ptr[v]; };
  std::vector<char> seen(order.size(), 0);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const index_t v = order[k];
    if (v < 0 || v >= g.vertices() || seen[static_cast<std::size_t>(v)]++)
      return ::testing::AssertionFailure() << "not a permutation at " << k;
    if (v / window != static_cast<index_t>(k) / window)
      return ::testing::AssertionFailure() << "vertex " << v << " left its run at " << k;
    if (k % static_cast<std::size_t>(window) != 0) {
      const index_t u = order[k - 1];
      if (in(u) < in(v) || (in(u) == in(v) && u > v))
        return ::testing::AssertionFailure() << "vertices " << u << ", " << v << " out of order at " << k;
    }
  }
  return ::testing::AssertionSuccess();
}

// The persistent pull's second vertex order (persistent_pull::order_trial_pays):
// pinned by PERRON_FUSED_WINDOW in each mode, every solve matches the
// reference (plain, personalized, extrapolating), the relabelling is by
// in-degree within runs of the window and the reason and layout say so; left
// to itself on graphs of a resident grid the order trial runs, says what it
// measured, and what it kept solves as the reference; a layout remembered
// with its window is rebuilt in that order without the trials.
TYPED_TEST(gpu_pagerank, PersistentOwnOrderSolvesAndIsRemembered) {
  using T = TypeParam;
  const std::string window = std::to_string(persistent_own_order_window);
  auto shapes = persistent_shapes();
  shapes.push_back({"random 20000", random_graph(20000, 150000, 191)});
  for (const auto& [what, a] : shapes) {
    const auto g = make_pagerank_graph<T>(a, false);
    for (const char* mode : {"resident", "streamed", "cluster", ""}) {
      const scoped_env w("PERRON_FUSED_WINDOW", window.c_str()), m("PERRON_PERSISTENT", mode);
      pagerank_cuda<T> s(g, std::nullopt, pagerank_pull::persistent);
      const std::string at = what + " mode '" + mode + "'";
      const bool windowed = a.rows > persistent_own_order_window;
      EXPECT_EQ(s.kernel_reason().find("within runs of " + window + " ids") != std::string::npos, windowed)
          << at << ": " << s.kernel_reason();
      EXPECT_EQ(s.layout().find(" window " + window + " ") != std::string::npos, windowed)
          << at << ": " << s.layout();
      EXPECT_EQ(s.kernel_reason().find("vertex order by trial"), std::string::npos) << at;
      if (windowed) {
        EXPECT_TRUE(is_windowed_order(s.vertex_order(), g, persistent_own_order_window)) << at;
      }
      pagerank_options o = plain_steps();
      o.tol = solve_tolerance<T>::tol;
      for (int variant = 0; variant < 2; ++variant) {
        o.personalization = variant == 1 ? random_vector(a.rows, 197, 0.0, 1.0) : std::vector<double>{};
        const pagerank_result r = s.solve(o);
        EXPECT_TRUE(r.converged) << at << " variant " << variant;
        expect_solves(a, g, o, r, at + " variant " + std::to_string(variant));
      }
      pagerank_options acc = o;
      acc.personalization.clear();
      acc.accelerate = pagerank_accel::automatic;
      const pagerank_result r = s.solve(acc);
      EXPECT_TRUE(r.converged) << at << " accelerated";
      expect_solves(a, g, acc, r, at + " accelerated");
    }
  }
  // Left to itself: the order trial on the graphs of 10^4-10^5 links (a
  // resident grid), either order kept, the ranks as the reference's.
  for (const auto& [what, a] : shapes) {
    if (a.rows < 3000) continue;
    const auto g = make_pagerank_graph<T>(a, false);
    pagerank_cuda<T> s(g, std::nullopt, pagerank_pull::persistent);
    const std::string& why = s.kernel_reason();
    const bool resident = why.find("resident (") != std::string::npos;
    ASSERT_EQ(why.find("vertex order by trial") != std::string::npos, resident) << what << ": " << why;
    const bool own = why.find("-> own") != std::string::npos;
    EXPECT_EQ(s.layout().find(" window " + window + " ") != std::string::npos, own)
        << what << ": " << s.layout();
    if (own) {
      EXPECT_TRUE(is_windowed_order(s.vertex_order(), g, persistent_own_order_window)) << what;
    } else {
      const std::vector<index_t> place = fused_order_places(g), order = s.vertex_order();
      for (std::size_t k = 0; k < order.size(); ++k)
        ASSERT_EQ(place[static_cast<std::size_t>(order[k])], static_cast<index_t>(k)) << what << " at " << k;
    }
    std::cout << "[ note ] " << what << (std::is_same_v<T, float> ? " float: " : " double: ")
              << why.substr(why.find("vertex order by trial")) << "\n";
    pagerank_options o = plain_steps();
    o.tol = solve_tolerance<T>::tol;
    expect_solves(a, g, o, s.solve(o), what + " order trial");
  }
  // A remembered layout with its window: built in that order, no trials.
  // (The pull trial's record is read where the model is unsure: this graph.)
  const coo_matrix<double> a = unsure_band_graph();
  const auto g = make_pagerank_graph<T>(a, false);
  const pull_facts f = pagerank_cuda<T>::facts(g);
  ASSERT_TRUE(model_band(f).unsure) << model_band(f).why;
  std::string layout;
  {
    const scoped_env w("PERRON_FUSED_WINDOW", window.c_str());
    layout = pagerank_cuda<T>(g, std::nullopt, pagerank_pull::persistent).layout();
  }
  ASSERT_NE(layout.find(" window " + window + " "), std::string::npos) << layout;
  trial_record rec;
  rec.times.push_back(trial_time{pagerank_pull::persistent, "pull-persistent", 5.0});
  rec.times.push_back(trial_time{pagerank_pull::fused, "pull-fused", 9.0});
  rec.layout = layout;
  pull_trial_memo memo;
  pagerank_cuda<T> cached = built_from_record(g, f, rec, memo);
  EXPECT_EQ(cached.pull(), pagerank_pull::persistent);
  EXPECT_EQ(cached.layout(), layout);
  EXPECT_NE(cached.kernel_reason().find("within runs of " + window + " ids"), std::string::npos)
      << cached.kernel_reason();
  EXPECT_EQ(cached.kernel_reason().find("vertex order by trial"), std::string::npos)
      << cached.kernel_reason();
  EXPECT_NE(cached.kernel_reason().find("an earlier trial's pick"), std::string::npos)
      << cached.kernel_reason();
  EXPECT_TRUE(is_windowed_order(cached.vertex_order(), g, persistent_own_order_window));
  pagerank_options o = plain_steps();
  o.tol = solve_tolerance<T>::tol;
  expect_solves(a, g, o, cached.solve(o), "remembered own order");
}

// The fused pull's second vertex order (fused_own_order_trial): on a graph
// past fused_own_order_min_links links whose own order is local and whose
// rows are even (a grid), the trial times both orders, says what it measured,
// keeps either, and what it kept solves as the reference (plain and
// personalized); the layout names the window where the own order was kept.
// Not on a random graph (its own order not local) or under a pinned window.
// A fused layout remembered with its window is rebuilt in that order with no
// trials.
TYPED_TEST(gpu_pagerank, FusedOwnOrderSolvesAndIsRemembered) {
  using T = TypeParam;
  const std::string window = std::to_string(fused_own_order_window);
  const coo_matrix<double> grid = io::load_matrix("grid:600:600").matrix;
  ASSERT_GT(grid.nnz(), fused_own_order_min_links);
  {
    const auto g = make_pagerank_graph<T>(grid, false);
    pagerank_cuda<T> s(g, std::nullopt, pagerank_pull::fused);
    const std::string& why = s.kernel_reason();
    ASSERT_NE(why.find("vertex order by trial"), std::string::npos) << why;
    const bool own = why.find("-> own") != std::string::npos;
    EXPECT_EQ(s.layout().find(" window " + window + " ") != std::string::npos, own) << s.layout();
    if (own) {
      EXPECT_TRUE(is_windowed_order(s.vertex_order(), g, fused_own_order_window));
    } else {
      const std::vector<index_t> place = fused_order_places(g), order = s.vertex_order();
      for (std::size_t k = 0; k < order.size(); ++k)
        ASSERT_EQ(place[static_cast<std::size_t>(order[k])], static_cast<index_t>(k)) << k;
    }
    std::cout << "[ note ] grid:600:600" << (std::is_same_v<T, float> ? " float: " : " double: ")
              << why.substr(why.find("vertex order by trial")) << "\n";
    pagerank_options o = plain_steps();
    o.tol = solve_tolerance<T>::tol;
    for (int variant = 0; variant < 2; ++variant) {
      o.personalization = variant == 1 ? random_vector(grid.rows, 199, 0.0, 1.0) : std::vector<double>{};
      expect_solves(grid, g, o, s.solve(o), "grid order trial variant " + std::to_string(variant));
    }
    const scoped_env w("PERRON_FUSED_WINDOW", "0");
    pagerank_cuda<T> pinned(g, std::nullopt, pagerank_pull::fused);
    EXPECT_EQ(pinned.kernel_reason().find("vertex order by trial"), std::string::npos)
        << pinned.kernel_reason();
  }
  {
    const auto g = make_pagerank_graph<T>(random_graph(200000, 1500000, 201), false);
    pagerank_cuda<T> s(g, std::nullopt, pagerank_pull::fused);
    EXPECT_EQ(s.kernel_reason().find("vertex order by trial"), std::string::npos) << s.kernel_reason();
    EXPECT_EQ(s.layout().find(" window "), std::string::npos) << s.layout();
  }
  const coo_matrix<double> a = unsure_band_graph();
  const auto g = make_pagerank_graph<T>(a, false);
  const pull_facts f = pagerank_cuda<T>::facts(g);
  ASSERT_TRUE(model_band(f).unsure) << model_band(f).why;
  trial_record rec;
  rec.times.push_back(trial_time{pagerank_pull::fused, "pull-fused", 5.0});
  rec.times.push_back(trial_time{pagerank_pull::spmv, "cusparse", 9.0});
  rec.layout = "hub 0 window " + window + " whole";
  pull_trial_memo memo;
  pagerank_cuda<T> cached = built_from_record(g, f, rec, memo);
  ASSERT_EQ(cached.pull(), pagerank_pull::fused);
  EXPECT_EQ(cached.layout(), rec.layout);
  EXPECT_TRUE(memo.record.empty()) << memo.record;
  EXPECT_NE(cached.kernel_reason().find("within windows of " + window + " ids"), std::string::npos)
      << cached.kernel_reason();
  EXPECT_EQ(cached.kernel_reason().find("vertex order by trial"), std::string::npos)
      << cached.kernel_reason();
  EXPECT_TRUE(is_windowed_order(cached.vertex_order(), g, fused_own_order_window));
  pagerank_options o = plain_steps();
  o.tol = solve_tolerance<T>::tol;
  expect_solves(a, g, o, cached.solve(o), "remembered fused own order");
  // An older build's fused own order in runs of 32 ids: not rebuilt; the
  // layout trials run again and the record keeps what they picked.
  rec.layout = "hub 0 window 32 whole";
  pull_trial_memo old;
  pagerank_cuda<T> renewed = built_from_record(g, f, rec, old);
  ASSERT_EQ(renewed.pull(), pagerank_pull::fused);
  EXPECT_EQ(renewed.layout().find(" window 32 "), std::string::npos) << renewed.layout();
  EXPECT_NE(renewed.kernel_reason().find("step time by hub size"), std::string::npos)
      << renewed.kernel_reason();
  ASSERT_FALSE(old.record.empty());
  const auto kept = parse_trial_record(old.record, f, g.vertices(), cuda::device_description(0));
  ASSERT_TRUE(kept.has_value()) << old.record;
  EXPECT_EQ(kept->layout, renewed.layout());
  expect_solves(a, g, o, renewed.solve(o), "a window of 32 remembered");
}

// A skewed graph whose own order is local, past fused_own_order_skewed_min_links
// links (a web graph's sites): the fused pull starts in its own order, with
// no trial of the in-degree order, says so, and solves as the reference; a
// record of the in-degree order (an older build's) is rebuilt in the own
// order; a pinned window still rules.
TYPED_TEST(gpu_pagerank, FusedOwnOrderFirstOnSkewedLocalGraphs) {
  using T = TypeParam;
  const std::string window = std::to_string(fused_own_order_window);
  const coo_matrix<double> web = io::load_matrix("web:3000000:40000000").matrix;
  const auto g = make_pagerank_graph<T>(web, false);
  const pull_facts f = pagerank_cuda<T>::facts(g);
  const double x_l2 = x_l2_fraction(f.vertices, sizeof(T), f.l2_bytes);
  ASSERT_TRUE(fused_own_order_first(f.links, f.vertices, f.local_links, f.max_in_degree, x_l2))
      << f.links << " links, longest row " << f.max_in_degree << ", local " << f.local_links;
  pagerank_options o = plain_steps();
  o.tol = solve_tolerance<T>::tol;
  {
    pull_trial_memo memo;
    pagerank_cuda<T> s(g, std::nullopt, pagerank_pull::fused, &memo);
    const std::string& why = s.kernel_reason();
    EXPECT_NE(why.find("vertex order: the graph's own"), std::string::npos) << why;
    EXPECT_EQ(why.find("vertex order by trial"), std::string::npos) << why;
    EXPECT_NE(s.layout().find(" window " + window + " "), std::string::npos) << s.layout();
    EXPECT_TRUE(is_windowed_order(s.vertex_order(), g, fused_own_order_window));
    expect_solves(web, g, o, s.solve(o), "skewed web in its own order");
    // The same record with the in-degree order (an older build's): rebuilt
    // in the own order.
    ASSERT_FALSE(memo.record.empty()) << why;
    auto rec = parse_trial_record(memo.record, f, g.vertices(), cuda::device_description(0));
    ASSERT_TRUE(rec.has_value()) << memo.record;
    const std::size_t at = rec->layout.find(" window " + window);
    ASSERT_NE(at, std::string::npos) << rec->layout;
    rec->layout.erase(at, window.size() + 8);
    pull_trial_memo older;
    older.remembered = format_trial_record(*rec, f, g.vertices(), cuda::device_description(0));
    pagerank_cuda<T> renewed(g, std::nullopt, pagerank_pull::fused, &older);
    EXPECT_NE(renewed.layout().find(" window " + window + " "), std::string::npos)
        << rec->layout << " -> " << renewed.layout();
    EXPECT_NE(renewed.kernel_reason().find("vertex order: the graph's own"), std::string::npos)
        << renewed.kernel_reason();
  }
  const scoped_env w("PERRON_FUSED_WINDOW", "0");
  pagerank_cuda<T> pinned(g, std::nullopt, pagerank_pull::fused);
  EXPECT_EQ(pinned.kernel_reason().find("vertex order"), std::string::npos) << pinned.kernel_reason();
  EXPECT_EQ(pinned.layout().find(" window "), std::string::npos) << pinned.layout();
}

// Rows of Poisson-like lengths (block models of 4 links a vertex: the
// longest row 4-8x the mean, neither even nor skewed) start in the own order
// where x fills more than fused_own_order_tail_l2_fraction of L2 or, at fewer
// than fused_own_order_short_mean links a vertex, more than
// fused_own_order_short_l2_fraction (on an H100 or H200: both graphs in
// double, the larger in float), else in the in-degree order (the smaller in
// float), with no trial either way; so does a web of 3 links a vertex whose
// longest row is 24x the mean (skewed, below fused_own_order_skewed_min_links
// links).
TYPED_TEST(gpu_pagerank, FusedOwnOrderFirstOnFewLinksAVertexWhereXFillsL2) {
  using T = TypeParam;
  for (const char* spec :
       {"sbm:4500000:18000000:4500:0.1", "sbm:2000000:8000000:2000:0.1", "web:3000000:9000000:0.85,5"}) {
    SCOPED_TRACE(spec);
    const coo_matrix<double> sbm = io::load_matrix(spec).matrix;
    const auto g = make_pagerank_graph<T>(sbm, false);
    const pull_facts f = pagerank_cuda<T>::facts(g);
    const double mean = double(f.links) / double(f.vertices);
    ASSERT_GT(double(f.max_in_degree), persistent_even_max_to_mean * mean) << f.max_in_degree;
    ASSERT_LT(f.links, fused_own_order_skewed_min_links);
    ASSERT_LT(mean, fused_own_order_short_mean);
    ASSERT_GE(f.local_links, own_order_local_fraction);
    const double x_l2 = x_l2_fraction(f.vertices, sizeof(T), f.l2_bytes);
    const bool own = x_l2 > fused_own_order_short_l2_fraction;
    EXPECT_EQ(fused_own_order_first(f.links, f.vertices, f.local_links, f.max_in_degree, x_l2), own);
    pagerank_cuda<T> s(g, std::nullopt, pagerank_pull::fused);
    const std::string& why = s.kernel_reason();
    EXPECT_EQ(why.find("vertex order: the graph's own") != std::string::npos, own) << x_l2 << ": " << why;
    EXPECT_EQ(why.find("vertex order by trial"), std::string::npos) << why;
    EXPECT_EQ(static_cast<bool>(is_windowed_order(s.vertex_order(), g, fused_own_order_window)), own);
    pagerank_options o = plain_steps();
    o.tol = solve_tolerance<T>::tol;
    expect_solves(sbm, g, o, s.solve(o), "block model of Poisson-like rows");
  }
}

// Where the model is sure (a small graph: the persistent pull), or the pull
// is named, its layout trials run once: the first construction leaves an
// untimed record (pull_trial_memo), the next builds that layout from it with
// no trials, the same ranks to the bit; a record of another pull is not used.
TYPED_TEST(gpu_pagerank, ModelDecidedLayoutIsRemembered) {
  using T = TypeParam;
  const auto a = random_graph(6000, 40000, 211);
  const auto g = make_pagerank_graph<T>(a, false);
  const pull_facts f = pagerank_cuda<T>::facts(g);
  ASSERT_FALSE(model_band(f).unsure) << model_band(f).why;
  const auto trials = [](const pagerank_cuda<T>& s) {
    double t = 0;
    for (const setup_phase& p : s.setup_phases())
      if (p.name == "layout trials") t += p.seconds;
    return t;
  };
  pull_trial_memo memo;
  pagerank_cuda<T> first(g, std::nullopt, pagerank_pull::automatic, &memo);
  ASSERT_EQ(first.pull(), pagerank_pull::persistent);
  EXPECT_EQ(first.pull_decision(), "model");
  if (trials(first) == 0) GTEST_SKIP() << "no layout trial ran on this device: " << first.kernel_reason();
  ASSERT_FALSE(memo.record.empty());
  const auto rec = parse_trial_record(memo.record, f, g.vertices(), cuda::device_description(0));
  ASSERT_TRUE(rec.has_value()) << memo.record;
  EXPECT_TRUE(rec->untimed);
  EXPECT_EQ(rec->layout, first.layout());
  pagerank_options o = plain_steps();
  o.tol = solve_tolerance<T>::tol;
  const pagerank_result r1 = first.solve(o);
  expect_solves(a, g, o, r1, "model's layout, timed");

  pull_trial_memo again;
  again.remembered = memo.record;
  pagerank_cuda<T> cached(g, std::nullopt, pagerank_pull::automatic, &again);
  EXPECT_EQ(cached.pull_decision(), "model");
  EXPECT_EQ(cached.layout(), first.layout());
  EXPECT_LT(trials(cached), 1e-3) << cached.kernel_reason();  // the layout set up, nothing timed
  EXPECT_TRUE(again.record.empty());                          // nothing new to keep
  EXPECT_NE(cached.kernel_reason().find("an earlier trial's pick"), std::string::npos)
      << cached.kernel_reason();
  const pagerank_result r2 = cached.solve(o);
  EXPECT_EQ(r2.iterations, r1.iterations);
  EXPECT_EQ(r2.rank, r1.rank);  // the same layout: the same sums in the same order

  // A record of this pull whose layout the build cannot take (a mode that is
  // no candidate): timed again, and kept anew.
  trial_record stale = *rec;
  stale.layout = "hub 0 resident 100000 0";
  pull_trial_memo renewed;
  renewed.remembered = format_trial_record(stale, f, g.vertices(), cuda::device_description(0));
  pagerank_cuda<T> retried(g, std::nullopt, pagerank_pull::automatic, &renewed);
  EXPECT_NE(retried.layout(), stale.layout);
  ASSERT_FALSE(renewed.record.empty()) << retried.kernel_reason();
  EXPECT_EQ(parse_trial_record(renewed.record, f, g.vertices(), cuda::device_description(0))->layout,
            retried.layout());
  expect_solves(a, g, o, retried.solve(o), "stale layout, timed again");

  // A record of another pull: the model's own trials again, and a new record.
  trial_record other = *rec;
  other.times.front() = trial_time{pagerank_pull::fused, "pull-fused", 0};
  other.layout = "hub 0";
  pull_trial_memo wrong;
  wrong.remembered = format_trial_record(other, f, g.vertices(), cuda::device_description(0));
  pagerank_cuda<T> retimed(g, std::nullopt, pagerank_pull::automatic, &wrong);
  EXPECT_EQ(retimed.pull(), pagerank_pull::persistent);
  EXPECT_GT(trials(retimed), 0.0);
  EXPECT_FALSE(wrong.record.empty());
  // A named pull: the same kind of record, and the layout from it (either
  // record's, where its pull is the one named); a named kernel keeps none.
  pull_trial_memo named;
  pagerank_cuda<T> named_first(g, std::nullopt, pagerank_pull::persistent, &named);
  EXPECT_EQ(named_first.pull_decision(), "named");
  ASSERT_FALSE(named.record.empty());
  const auto named_rec = parse_trial_record(named.record, f, g.vertices(), cuda::device_description(0));
  ASSERT_TRUE(named_rec.has_value()) << named.record;
  EXPECT_TRUE(named_rec->untimed);
  EXPECT_EQ(named_rec->times.front().pull, pagerank_pull::persistent);
  for (const std::string& kept : {named.record, memo.record}) {
    pull_trial_memo again_named;
    again_named.remembered = kept;
    pagerank_cuda<T> s(g, std::nullopt, pagerank_pull::persistent, &again_named);
    EXPECT_LT(trials(s), 1e-3) << s.kernel_reason();
    EXPECT_TRUE(again_named.record.empty());
    expect_solves(a, g, o, s.solve(o), "named pull, remembered layout");
  }
  pull_trial_memo kernel_named;
  EXPECT_EQ(pagerank_cuda<T>(g, spmv_kernel::csr_vector, pagerank_pull::spmv, &kernel_named).pull_decision(),
            "named");
  EXPECT_TRUE(kernel_named.record.empty());
}

// A layout pinned by the environment (tests, experiments) is not this
// graph's pick: a solver built under a pin keeps no record, the model's pull
// or a trial's alike; without the pin the same build keeps one.
TYPED_TEST(gpu_pagerank, PinnedLayoutsAreNotRemembered) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(random_graph(6000, 40000, 211), false);
  for (const auto& [var, value] :
       {std::pair{"PERRON_PERSISTENT", "streamed"}, std::pair{"PERRON_FUSED_HUB", "0"},
        std::pair{"PERRON_FUSED_WINDOW", "0"}}) {
    for (pagerank_pull pull : {pagerank_pull::automatic, pagerank_pull::persistent, pagerank_pull::fused}) {
      const std::string at = std::string(var) + "=" + value + " " + std::string(name(pull));
      pull_trial_memo pinned;
      {
        const scoped_env pin(var, value);
        EXPECT_EQ(layout_pin(), var) << at;
        pagerank_cuda<T> s(g, std::nullopt, pull, &pinned);
        EXPECT_TRUE(pinned.record.empty()) << at << ": " << pinned.record;
      }
      EXPECT_EQ(layout_pin(), "") << at;
      pull_trial_memo unpinned;
      pagerank_cuda<T> s(g, std::nullopt, pull, &unpinned);
      EXPECT_FALSE(unpinned.record.empty()) << at;
    }
  }
}

// hub:1000000:200000 (every vertex links to vertex 0, which is dangling, plus
// 200000 random links): in float the fused pull's row sums once rounded so
// that the iterate settled on a 2-cycle with the residual flat at 1.35e-6
// (tol 1e-6) up to max_iter. Every pull converges now, in as many steps as
// the SpMV pull within a few, and close to the CPU solver's ranks.
TYPED_TEST(gpu_pagerank, HubGraphConvergesInEveryPull) {
  using T = TypeParam;
  const auto a = io::load_matrix("hub:1000000:200000").matrix;
  const auto g = make_pagerank_graph<T>(a, false);
  pagerank_options o = plain_steps();  // tol 1e-6, max_iter 1000: the command line's defaults
  const auto c = pagerank_cpu(make_pagerank_graph<double>(a, false), o);
  ASSERT_TRUE(c.converged);
  // auto takes the persistent pull here (1.2 M links, one row of 10^6).
  EXPECT_EQ(pagerank_cuda<T>(g, std::nullopt, pagerank_pull::automatic).pull(), pagerank_pull::persistent);
  for (pagerank_pull pull : {pagerank_pull::spmv, pagerank_pull::fused, pagerank_pull::persistent}) {
    pagerank_cuda<T> s(g, std::nullopt, pull);
    for (pagerank_loop loop : {pagerank_loop::graph_while, pagerank_loop::check_every}) {
      o.loop = loop;
      const auto r = s.solve(o);
      const std::string at = std::string(name(pull)) + " " + std::string(name(loop));
      EXPECT_TRUE(r.converged) << at << ": residual " << r.residual << " after " << r.iterations;
      EXPECT_LE(std::abs(r.iterations - c.iterations), 3) << at;
      EXPECT_LE(l1_diff(r.rank, c.rank), 2 * solve_tolerance<T>::l1()) << at;
    }
  }
}

// ---- --accelerate (every pull) ----------------------------------------------------------------

pagerank_options accel_options(pagerank_accel mode, double alpha, double tol) {
  pagerank_options o;
  o.alpha = alpha;
  o.tol = tol;
  o.max_iter = 100000;
  o.accelerate = mode;
  return o;
}

bool same_result(const pagerank_result& a, const pagerank_result& b) {
  return a.iterations == b.iterations && a.residual == b.residual && a.rank == b.rank &&
         a.extrapolations == b.extrapolations;
}

// graph, double, mode, alpha
using accel_param = std::tuple<std::string, bool, pagerank_accel, double>;
class gpu_pagerank_accel_graphs : public gpu_test_with_param<accel_param> {};

// The returned vector meets tol in its true residual and matches the fp64
// reference (tests/pagerank_reference.hpp gives the bounds) and the CPU's
// accelerated solve; one host sync per solve, as without acceleration. The
// spmv pull and the fused pull (which extrapolates its scaled iterate).
template <class T>
void check_accel(const std::string& graph, pagerank_accel mode, double alpha) {
  const accel_graph* ag = get_accel_graph(graph, alpha);
  if (!ag) GTEST_SKIP() << graph << " absent, or too large for a reference at alpha " << alpha;
  const pagerank_graph<T> g = make_pagerank_graph<T>(ag->matrix, false);
  const double tol = solve_tolerance<T>::tol;
  const pagerank_result c = pagerank_cpu(g, accel_options(mode, alpha, tol));
  for (pagerank_pull pull : {pagerank_pull::spmv, pagerank_pull::fused}) {
    if (pattern_pull(pull) && !g.pattern) continue;
    pagerank_cuda<T> s(g, std::nullopt, pull);
    const pagerank_result r = s.solve(accel_options(mode, alpha, tol));
    const std::string at = std::string(name(pull)) + " pull";
    ASSERT_TRUE(r.on_gpu);
    ASSERT_TRUE(r.converged) << at << ": " << r.iterations << " iterations, residual " << r.residual;
    EXPECT_LT(r.residual, tol) << at;
    EXPECT_EQ(r.accelerate, mode);
    EXPECT_EQ(r.pull, pull);
    if (r.loop == pagerank_loop::graph_while) {
      EXPECT_EQ(r.host_syncs, 1u) << at;
      // The fused pull: one run of accelerate_every steps per trip (unless
      // auto runs the plain steps: its trial's steps show no extrapolation
      // due); the spmv pull: trips that divide it (the extrapolation in an IF node).
      const bool plain_auto = r.kernel_reason.find("the plain steps run them") != std::string::npos;
      if (plain_auto)
        EXPECT_EQ(mode, pagerank_accel::automatic) << at;
      else if (pull == pagerank_pull::fused)
        EXPECT_EQ(r.graph_unroll, 10) << at;
      else
        EXPECT_EQ(10 % r.graph_unroll, 0) << at << ": trips of " << r.graph_unroll;
    }
    // auto: the same decisions as the CPU's, up to rounding in the sums
    // (aitken's safeguard turns on the last bits of a residual: harvard500 at
    // 0.99 in float took 63 steps on the CPU, 73 and 93 on the pulls).
    if (mode == pagerank_accel::automatic || mode == pagerank_accel::rre) {
      EXPECT_NEAR(r.iterations, c.iterations, 2 + c.iterations / 10) << at;
    }
    const auto [truth, err] = expect_accel_matches_reference<T>(*ag, alpha, tol, r.rank);
    EXPECT_LE(l1_diff(r.rank, c.rank), 2 * accel_l1_bound<T>(alpha, tol)) << at;
    const pagerank_result plain = s.solve(accel_options(pagerank_accel::none, alpha, tol));
    std::cout << "[ note ] " << graph << (std::is_same_v<T, float> ? " float" : " double") << " alpha "
              << alpha << " " << name(mode) << ", " << at << ": " << r.iterations << " iterations ("
              << r.extrapolations << " extrapolations, " << r.extrapolations_rejected << " dropped; CPU "
              << c.iterations << ") against " << plain.iterations << " plain; true residual " << truth
              << ", max |r - ref| " << err << "\n";
  }
}

TEST_P(gpu_pagerank_accel_graphs, MeetsTolAndMatchesReference) {
  const auto& [graph, dbl, mode, alpha] = GetParam();
  if (dbl)
    check_accel<double>(graph, mode, alpha);
  else
    check_accel<float>(graph, mode, alpha);
}

INSTANTIATE_TEST_SUITE_P(all, gpu_pagerank_accel_graphs,
                         ::testing::Combine(::testing::ValuesIn(accel_graph_names()), ::testing::Bool(),
                                            ::testing::Values(pagerank_accel::quadratic,
                                                              pagerank_accel::aitken,
                                                              pagerank_accel::automatic, pagerank_accel::rre),
                                            ::testing::Values(0.85, 0.99)),
                         [](const auto& info) {
                           return param_name(std::get<0>(info.param) +
                                             (std::get<1>(info.param) ? "_double_" : "_float_") +
                                             std::string(name(std::get<2>(info.param))) +
                                             (std::get<3>(info.param) > 0.9 ? "_a99" : "_a85"));
                         });

template <class T>
class gpu_pagerank_accel : public gpu_test {};
TYPED_TEST_SUITE(gpu_pagerank_accel, value_types);

// The WHILE loop, the check-every batches (one run each) and direct launches
// run the same kernels with the same grids: the same bits; on the spmv and
// the fused pull.
TYPED_TEST(gpu_pagerank_accel, LoopsAgree) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(random_graph(3000, 30000, 79), false);
  for (int fused = 0; fused < 2; ++fused) {
    std::optional<pagerank_cuda<T>> s;
    if (fused)
      s.emplace(g, std::nullopt, pagerank_pull::fused);
    else
      s.emplace(g, spmv_kernel::csr_vector);
    for (pagerank_accel mode :
         {pagerank_accel::quadratic, pagerank_accel::aitken, pagerank_accel::automatic}) {
      const std::string at = std::string(name(mode)) + (fused ? " fused" : " spmv");
      pagerank_options o = accel_options(mode, 0.99, std::is_same_v<T, float> ? 1e-6 : 1e-10);
      o.accelerate_every = 7;
      const auto w = s->solve(o);
      EXPECT_TRUE(w.converged) << at;
      EXPECT_EQ(w.loop, pagerank_loop::graph_while) << at;
      // fused: a run per trip; spmv: trips dividing it (an IF node extrapolates).
      if (fused)
        EXPECT_EQ(w.graph_unroll, 7) << at;
      else
        EXPECT_EQ(7 % w.graph_unroll, 0) << at;
      EXPECT_GT(w.extrapolations, 0) << at;
      if (!fused) {  // trips of one step: the IF node after every step
        pagerank_options one = o;
        one.graph_unroll = 1;
        const auto w1 = s->solve(one);
        EXPECT_EQ(w1.graph_unroll, 1) << at;
        EXPECT_TRUE(same_result(w, w1)) << at;
      }
      o.loop = pagerank_loop::check_every;
      const auto c = s->solve(o);
      EXPECT_TRUE(same_result(w, c)) << at;
      EXPECT_EQ(c.host_syncs, static_cast<std::uint64_t>((c.iterations + 6) / 7 + 1)) << at;
      o.use_graphs = false;
      EXPECT_TRUE(same_result(w, s->solve(o))) << at;
    }
  }
}

// Runs longer than the fused pull's whole-run trips (fused_run_trip, 32):
// trips of a divisor of the run (8 for 40, 1 for the prime 37), the saves
// and the IF node's extrapolation placed by the state's step count. The bits
// of the check-every batches (a whole run each, saves placed when captured);
// a run longer than the solve is the plain solve (it took 135 ms as one trip
// of 100000 steps).
TYPED_TEST(gpu_pagerank_accel, LongRunsTakeShortTrips) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(grid_graph(40), false);  // slow to mix: runs complete
  pagerank_cuda<T> s(g, std::nullopt, pagerank_pull::fused);
  const double tol = std::is_same_v<T, float> ? 1e-6 : 1e-12;
  for (pagerank_accel mode : {pagerank_accel::quadratic, pagerank_accel::aitken, pagerank_accel::automatic}) {
    for (const auto& [every, trip] : {std::pair{40, 8}, std::pair{37, 1}}) {
      const std::string at = std::string(name(mode)) + " every " + std::to_string(every);
      pagerank_options o = accel_options(mode, 0.99, tol);
      o.accelerate_every = every;
      const auto w = s.solve(o);
      EXPECT_TRUE(w.converged) << at;
      EXPECT_EQ(w.loop, pagerank_loop::graph_while) << at;
      EXPECT_EQ(w.graph_unroll, trip) << at;
      EXPECT_EQ(w.host_syncs, 1u) << at;
      EXPECT_GT(w.iterations, every) << at;  // a run completed
      if (mode != pagerank_accel::automatic) {
        EXPECT_GT(w.extrapolations, 0) << at;
      }
      o.loop = pagerank_loop::check_every;
      EXPECT_TRUE(same_result(w, s.solve(o))) << at;
    }
    pagerank_options o = accel_options(mode, 0.85, tol);
    o.accelerate_every = 100000;
    const auto w = s.solve(o);
    EXPECT_EQ(w.graph_unroll, 8);
    EXPECT_EQ(w.extrapolations, 0);
    EXPECT_TRUE(same_result(w, s.solve(accel_options(pagerank_accel::none, 0.85, tol))));
  }
}

// Stopped by max_iter inside or at the end of the first run: the plain
// solve's result, bit for bit (the extrapolation after the last step is
// skipped); on every pull.
TYPED_TEST(gpu_pagerank_accel, MaxIterEndsOnAPlainStep) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(random_graph(3000, 30000, 83), false);
  for (pagerank_pull pull : {pagerank_pull::spmv, pagerank_pull::fused, pagerank_pull::persistent}) {
    pagerank_cuda<T> s(g, std::nullopt, pull);
    for (pagerank_accel mode :
         {pagerank_accel::quadratic, pagerank_accel::aitken, pagerank_accel::automatic}) {
      if (pull == pagerank_pull::persistent && mode == pagerank_accel::aitken) continue;  // fused steps
      for (int max_iter : {7, 10}) {
        pagerank_options o = accel_options(mode, 0.99, 1e-12);
        o.max_iter = max_iter;
        const auto a = s.solve(o);
        o.accelerate = pagerank_accel::none;
        const auto p = s.solve(o);
        EXPECT_FALSE(a.converged);
        EXPECT_EQ(a.extrapolations, 0);
        EXPECT_EQ(a.iterations, max_iter);
        EXPECT_TRUE(same_result(a, p)) << name(mode) << " " << max_iter;
      }
    }
  }
}

// One vertex, every vertex dangling, a start that already meets tol.
TYPED_TEST(gpu_pagerank_accel, EdgeCases) {
  using T = TypeParam;
  const double eps = std::numeric_limits<T>::epsilon();
  for (pagerank_accel mode : {pagerank_accel::quadratic, pagerank_accel::aitken, pagerank_accel::automatic}) {
    for (index_t n : {1, 1000}) {
      pagerank_cuda<T> s(make_pagerank_graph<T>(graph_from_arcs(n, {}), false));
      const auto r = s.solve(accel_options(mode, 0.99, 1e-12));
      EXPECT_TRUE(r.converged);
      for (double x : r.rank) EXPECT_NEAR(x, 1.0 / n, 64 * eps / n);
    }
    pagerank_cuda<T> star(make_pagerank_graph<T>(star_graph(12), false));
    pagerank_options o = accel_options(mode, 0.99, std::is_same_v<T, float> ? 1e-6 : 1e-10);
    o.initial = star_exact(12, 0.99);
    auto r = star.solve(o);
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, 1);
    EXPECT_EQ(r.extrapolations, 0);
    o.initial.clear();
    r = star.solve(o);
    EXPECT_TRUE(r.converged);
    EXPECT_LE(l1_diff(r.rank, star_exact(12, 0.99)), 0.99 / 0.01 * o.tol + 1e4 * eps);
  }
}

// The two-mode fit only where its modes could be error modes (pagerank_test's
// NoFitWithAModeAtOne: two self-loops at alpha 0.99, personalized, went to
// ranks of +-1.7e13): every pull, the persistent one included, converges to
// the reference in far fewer steps than plain ones (809 in double).
TYPED_TEST(gpu_pagerank_accel, NoFitWithAModeAtOne) {
  using T = TypeParam;
  const coo_matrix<double> a = graph_from_arcs(6, {{0, 0}, {1, 3}, {1, 4}, {4, 4}});
  const std::vector<double> v = {0, 1, 0, 0, 0, 0};
  const std::vector<double> truth = reference_pagerank(reference_from_coo(a, false), 0.99, v);
  const double tol = std::is_same_v<T, float> ? 1e-6 : 1e-10;
  const auto g = make_pagerank_graph<T>(a, false);
  for (pagerank_pull pull : {pagerank_pull::spmv, pagerank_pull::fused, pagerank_pull::persistent}) {
    if (pattern_pull(pull) && !g.pattern) continue;
    pagerank_cuda<T> s(g, std::nullopt, pull);
    for (pagerank_accel mode : {pagerank_accel::automatic, pagerank_accel::quadratic, pagerank_accel::rre}) {
      pagerank_options o = accel_options(mode, 0.99, tol);
      o.personalization = v;
      const pagerank_result r = s.solve(o);
      const std::string at = std::string(name(pull)) + " pull, " + std::string(name(mode));
      ASSERT_TRUE(r.converged) << at << ": residual " << r.residual;
      EXPECT_LT(r.iterations, 300) << at;
      EXPECT_LE(l1_diff(r.rank, truth), accel_l1_bound<T>(0.99, tol)) << at;
    }
  }
}

// NoNegativeRanks (tests/pagerank_test.cpp) on every pull: a self-loop that
// nothing teleports to ended at -2.8e-6 in float; every rank is now >= 0, a
// plain step met --tol, and the answer is within the bound.
TYPED_TEST(gpu_pagerank_accel, NoNegativeRanks) {
  using T = TypeParam;
  const coo_matrix<double> a = graph_from_arcs(5, {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {0, 3}, {4, 4}});
  const std::vector<double> v = {1, 0, 0, 0, 0};
  const std::vector<double> truth = reference_pagerank(reference_from_coo(a, false), 0.85, v);
  const double tol = std::is_same_v<T, float> ? 1e-6 : 1e-12;
  const auto g = make_pagerank_graph<T>(a, false);
  for (pagerank_pull pull : {pagerank_pull::spmv, pagerank_pull::fused, pagerank_pull::persistent}) {
    if (pattern_pull(pull) && !g.pattern) continue;
    pagerank_cuda<T> s(g, std::nullopt, pull);
    for (pagerank_accel mode : {pagerank_accel::automatic, pagerank_accel::quadratic, pagerank_accel::rre}) {
      pagerank_options o = accel_options(mode, 0.85, tol);
      o.personalization = v;
      const pagerank_result r = s.solve(o);
      const std::string at = std::string(name(pull)) + " pull, " + std::string(name(mode));
      ASSERT_TRUE(r.converged) << at << ": residual " << r.residual;
      EXPECT_LT(r.residual, tol) << at;
      for (double x : r.rank) EXPECT_GE(x, 0.0) << at;
      EXPECT_LE(l1_diff(r.rank, truth), accel_l1_bound<T>(0.85, tol)) << at;
    }
  }
}

// The persistent kernel extrapolates inside its launch (quadratic, auto
// and rre; pagerank_persistent.cuh): every mode gives the same bits (its sums over
// fixed chunks of vertices), in both loops and in check-every batches that
// end inside a run (the bookkeeping kept between launches); each solve
// matches the CPU's accelerated solve and takes about its steps; on a graph
// whose links mostly end at one vertex (one mode: the hub's swing) auto ends
// the solve in a fraction of plain's steps.
TYPED_TEST(gpu_pagerank_accel, PersistentExtrapolatesInItsKernel) {
  using T = TypeParam;
  coo_matrix<double> hub = random_graph(20000, 4000, 171);
  for (index_t i = 1; i < hub.rows; ++i) {
    hub.row_idx.push_back(i);
    hub.col_idx.push_back(0);
    hub.values.push_back(1);
  }
  const std::pair<std::string, coo_matrix<double>> graphs[] = {
      {"hub", std::move(hub)}, {"random", random_graph(30000, 300000, 173)}, {"grid", grid_graph(60)}};
  const double tol = solve_tolerance<T>::tol;
  for (const auto& [what, a] : graphs) {
    const auto g = make_pagerank_graph<T>(a, false);
    for (pagerank_accel mode : {pagerank_accel::quadratic, pagerank_accel::automatic, pagerank_accel::rre}) {
      const pagerank_options o = accel_options(mode, 0.85, tol);
      pagerank_options plain = o;
      plain.accelerate = pagerank_accel::none;
      const auto cpu = pagerank_cpu(g, o);
      std::vector<pagerank_result> runs;
      int plain_steps = 0;
      for (const char* pm : {"resident", "streamed", "cluster"}) {
        scoped_env env("PERRON_PERSISTENT", pm);
        pagerank_cuda<T> s(g, std::nullopt, pagerank_pull::persistent);
        plain_steps = s.solve(plain).iterations;
        for (int batch : {0, 3, 10}) {
          pagerank_options b = o;
          if (batch > 0) {
            b.loop = pagerank_loop::check_every;
            b.check_interval = batch;
          }
          runs.push_back(s.solve(b));
          const auto& r = runs.back();
          const std::string at =
              what + " " + std::string(name(mode)) + " " + pm + " batch " + std::to_string(batch);
          EXPECT_EQ(r.pull, pagerank_pull::persistent) << at;
          EXPECT_EQ(r.accelerate, mode) << at;
          EXPECT_TRUE(r.converged) << at;
          EXPECT_LT(r.residual, tol) << at;
          EXPECT_EQ(r.host_syncs,
                    batch == 0 ? 1u : static_cast<std::uint64_t>((r.iterations + batch - 1) / batch + 1))
              << at;
          EXPECT_NEAR(r.iterations, cpu.iterations, 2 + cpu.iterations / 10) << at;
          EXPECT_LE(l1_diff(r.rank, cpu.rank), 2 * accel_l1_bound<T>(0.85, tol)) << at;
          EXPECT_TRUE(same_result(runs.front(), r)) << at;
        }
      }
      std::cout << "[ note ] persistent pull, " << what << (std::is_same_v<T, float> ? " float " : " double ")
                << name(mode) << ": " << runs.front().iterations << " steps, " << runs.front().extrapolations
                << " extrapolations (CPU " << cpu.iterations << "), plain " << plain_steps << "\n";
      if (what == "hub" && mode == pagerank_accel::automatic) {
        EXPECT_GT(runs.front().extrapolations, 0);
        EXPECT_LT(runs.front().iterations, plain_steps / 2);
      }
    }
  }
}

// auto on the persistent and fused pulls where their layout trial's plain
// steps show the solve stopping before an extrapolation is due: the plain
// steps run it (the reason says so), with the bits and steps of
// --accelerate none; where
// an extrapolation is due, or the solve's alpha or start is not the
// trial's, the extrapolating kernel as before.
TYPED_TEST(gpu_pagerank_accel, AutoRunsPlainWhereTheTrialShowsNoExtrapolation) {
  using T = TypeParam;
  // 11 steps at tol 1e-6 (CPU, float and double), the run's end at step 10 refused by the gate
  const auto fast = make_pagerank_graph<T>(io::generate_synthetic("er:30000:300000"), false);
  const auto slow = make_pagerank_graph<T>(grid_graph(60), false);
  const std::string note = "the plain steps run them";
  for (const auto& [pull, tol] :
       {std::pair{pagerank_pull::persistent, 1e-6}, std::pair{pagerank_pull::persistent, 1e-5},
        std::pair{pagerank_pull::fused, 1e-6}, std::pair{pagerank_pull::fused, 1e-5}}) {
    pagerank_options o = accel_options(pagerank_accel::automatic, 0.85, tol);
    pagerank_options plain = o;
    plain.accelerate = pagerank_accel::none;
    pagerank_cuda<T> f(fast, std::nullopt, pull);
    const auto ra = f.solve(o), rn = f.solve(plain);
    const std::string at = std::string(name(pull)) + ", tol " + std::to_string(tol);
    ASSERT_EQ(pagerank_cpu(fast, o).extrapolations, 0) << at;  // the graph is one where auto is plain
    ASSERT_LT(ra.iterations, 2 * o.accelerate_every) << at;
    EXPECT_NE(ra.kernel_reason.find(note), std::string::npos) << at << ": " << ra.kernel_reason;
    EXPECT_EQ(ra.extrapolations, 0) << at;
    EXPECT_TRUE(same_result(ra, rn)) << at;
    EXPECT_EQ(ra.accelerate, pagerank_accel::automatic) << at;
    // A second run that builds the layout from the first's record (no layout
    // trial runs) reads the same steps off the record: plain too, the same bits.
    pull_trial_memo first;
    pagerank_cuda<T> recorded(fast, std::nullopt, pull, &first);
    ASSERT_NE(first.record.find("\ntrace "), std::string::npos) << at << ": " << first.record;
    pull_trial_memo again;
    again.remembered = first.record;
    pagerank_cuda<T> cached(fast, std::nullopt, pull, &again);
    EXPECT_EQ(cached.layout(), recorded.layout()) << at;
    EXPECT_TRUE(again.record.empty()) << at << ": " << again.record;  // nothing new to keep
    const auto ca = cached.solve(o);
    EXPECT_NE(ca.kernel_reason.find(note), std::string::npos) << at << ": " << ca.kernel_reason;
    EXPECT_EQ(ca.extrapolations, 0) << at;
    EXPECT_TRUE(same_result(ca, cached.solve(plain))) << at;
    // the record of a graph where an extrapolation is due: the extrapolating kernel again
    pull_trial_memo slow_first;
    pagerank_cuda<T> slow_recorded(slow, std::nullopt, pull, &slow_first);
    pull_trial_memo slow_again;
    slow_again.remembered = slow_first.record;
    pagerank_cuda<T> slow_cached(slow, std::nullopt, pull, &slow_again);
    const auto sc = slow_cached.solve(o);
    EXPECT_EQ(sc.kernel_reason.find(note), std::string::npos) << at;
    EXPECT_GT(sc.extrapolations, 0) << at;
    // batches of the check-every loop: the same
    pagerank_options b = o;
    b.loop = pagerank_loop::check_every;
    b.check_interval = 3;
    EXPECT_TRUE(same_result(f.solve(b), rn)) << at;
    // not the trial's alpha: the extrapolating kernel (no extrapolation due here either)
    pagerank_options other = o;
    other.alpha = 0.8;
    pagerank_options other_plain = other;
    other_plain.accelerate = pagerank_accel::none;
    const auto oa = f.solve(other);
    EXPECT_EQ(oa.kernel_reason.find(note), std::string::npos) << at;
    EXPECT_TRUE(same_result(oa, f.solve(other_plain))) << at;
    // a start of the user's: the same
    pagerank_options start = o;
    start.initial.assign(fast.vertices(), 1.0 / fast.vertices());
    EXPECT_EQ(f.solve(start).kernel_reason.find(note), std::string::npos) << at;
    // an extrapolation due: the extrapolating kernel, which extrapolates
    pagerank_cuda<T> s(slow, std::nullopt, pull);
    const auto sa = s.solve(o);
    EXPECT_EQ(sa.kernel_reason.find(note), std::string::npos) << at;
    EXPECT_GT(sa.extrapolations, 0) << at;
    EXPECT_LT(sa.iterations, s.solve(plain).iterations) << at;
    // an extrapolating solve's count is not reported by the plain one after it
    pagerank_options q = o;
    q.accelerate = pagerank_accel::quadratic;
    q.accelerate_every = 4;
    EXPECT_GT(f.solve(q).extrapolations, 0) << at;
    EXPECT_EQ(f.solve(o).extrapolations, 0) << at;
  }
}

// Every pull extrapolates: the persistent kernel quadratically inside its
// launch, in each of its modes (the same bits in all), and a persistent
// solver runs its fused pull's steps for aitken (and says so), its
// persistent kernel again for a plain solve; pagerank() with auto; a solver
// reused after an accelerated solve gives the plain result again.
TYPED_TEST(gpu_pagerank_accel, PullsAndReuse) {
  using T = TypeParam;
  const auto g = make_pagerank_graph<T>(random_graph(3000, 30000, 89), false);
  const pagerank_options acc = accel_options(pagerank_accel::quadratic, 0.99, 1e-6);
  pagerank_options plain = acc;
  plain.accelerate = pagerank_accel::none;
  pagerank_options aitken = acc;
  aitken.accelerate = pagerank_accel::aitken;
  std::optional<pagerank_result> first;
  for (const char* mode : {"resident", "streamed", "cluster"}) {
    scoped_env env("PERRON_PERSISTENT", mode);
    pagerank_cuda<T> persistent(g, std::nullopt, pagerank_pull::persistent);
    const auto pa = persistent.solve(acc);
    EXPECT_TRUE(pa.converged) << mode;
    EXPECT_EQ(pa.pull, pagerank_pull::persistent) << mode;
    EXPECT_EQ(pa.accelerate, pagerank_accel::quadratic) << mode;
    EXPECT_GT(pa.extrapolations, 0) << mode;
    EXPECT_NE(pa.kernel_reason.find("the persistent kernel extrapolates itself"), std::string::npos)
        << pa.kernel_reason;
    const auto pk = persistent.solve(aitken);
    EXPECT_TRUE(pk.converged) << mode;
    EXPECT_EQ(pk.pull, pagerank_pull::fused) << mode;
    EXPECT_NE(pk.kernel_reason.find("--accelerate aitken: the fused pull's steps"), std::string::npos)
        << pk.kernel_reason;
    const auto pp = persistent.solve(plain);
    EXPECT_EQ(pp.pull, pagerank_pull::persistent) << mode;
    EXPECT_TRUE(pp.converged) << mode;
    EXPECT_LT(pa.iterations, pp.iterations) << mode;
    EXPECT_LE(l1_diff(pa.rank, pp.rank), 2 * accel_l1_bound<T>(0.99, 1e-6)) << mode;
    EXPECT_TRUE(same_result(pa, persistent.solve(acc))) << mode;
    if (first)
      EXPECT_TRUE(same_result(pa, *first)) << mode;
    else
      first = pa;
  }
  pagerank_options via = acc;
  via.device = pagerank_device::cuda;
  const auto d = pagerank(g, via);
  EXPECT_TRUE(d.on_gpu);
  EXPECT_TRUE(d.converged);
  EXPECT_GT(d.extrapolations, 0);

  for (pagerank_pull pull : {pagerank_pull::spmv, pagerank_pull::fused}) {
    pagerank_cuda<T> s(g, std::nullopt, pull);
    const auto p1 = s.solve(plain);
    const auto a1 = s.solve(acc);
    const auto p2 = s.solve(plain);
    pagerank_options other = acc;
    other.accelerate_every = 5;
    s.solve(other);
    const auto a2 = s.solve(acc);
    EXPECT_TRUE(same_result(p1, p2)) << name(pull);
    EXPECT_TRUE(same_result(a1, a2)) << name(pull);
    EXPECT_EQ(p1.extrapolations, 0);
    EXPECT_GT(a1.extrapolations, 0) << name(pull);
    EXPECT_LT(a1.iterations, p1.iterations) << name(pull);
  }
}

// rre on the spmv and fused pulls: every window (--accelerate-every 4, 7, 10
// and 25: W = 3, 6, 8, 8), runs shorter and longer than the fused pull's
// trip and the spmv pull's trips, check-every batches; each solve within a
// few steps of the CPU's rre and as far from it as two solves stopped at tol,
// the same bits when repeated and after other modes on the same solver, and
// fewer steps than auto's quadratic on a slowly mixing graph (the grid at
// alpha 0.99).
TYPED_TEST(gpu_pagerank_accel, RreOnEveryPull) {
  using T = TypeParam;
  const double tol = solve_tolerance<T>::tol;
  const auto mesh = make_pagerank_graph<T>(grid_graph(60), false);
  const auto random = make_pagerank_graph<T>(random_graph(20000, 160000, 97), false);
  for (const auto* g : {&mesh, &random}) {
    const std::string what = g == &mesh ? "grid" : "random";
    for (int every : {4, 7, 10, 25}) {
      pagerank_options o = accel_options(pagerank_accel::rre, 0.85, tol);
      o.accelerate_every = every;
      const auto cpu = pagerank_cpu(*g, o);
      for (pagerank_pull pull : {pagerank_pull::spmv, pagerank_pull::fused}) {
        pagerank_cuda<T> s(*g, std::nullopt, pull);
        for (int batch : {0, 3}) {
          pagerank_options b = o;
          if (batch > 0) {
            b.loop = pagerank_loop::check_every;
            b.check_interval = batch;
          }
          const auto r = s.solve(b);
          const std::string at = what + " " + std::string(name(pull)) + " every " + std::to_string(every) +
                                 " batch " + std::to_string(batch);
          ASSERT_TRUE(r.converged) << at;
          EXPECT_LT(r.residual, tol) << at;
          EXPECT_EQ(r.accelerate, pagerank_accel::rre) << at;
          EXPECT_NEAR(r.iterations, cpu.iterations, 2 + cpu.iterations / 10) << at;
          EXPECT_LE(l1_diff(r.rank, cpu.rank), 2 * accel_l1_bound<T>(0.85, tol)) << at;
          pagerank_options q = b;
          q.accelerate = pagerank_accel::quadratic;
          s.solve(q);
          EXPECT_TRUE(same_result(r, s.solve(b))) << at;
        }
      }
    }
  }
  pagerank_options o =
      accel_options(pagerank_accel::rre, 0.99, tol);  // CPU: 76 / 151 steps against 119 / 299
  pagerank_options a = o;
  a.accelerate = pagerank_accel::automatic;
  for (pagerank_pull pull : {pagerank_pull::spmv, pagerank_pull::fused}) {
    pagerank_cuda<T> s(mesh, std::nullopt, pull);
    const auto r = s.solve(o), q = s.solve(a);
    EXPECT_LT(r.iterations, q.iterations) << name(pull);
    std::cout << "[ note ] grid_graph(60) " << (std::is_same_v<T, float> ? "float" : "double") << ", "
              << name(pull) << " pull: rre " << r.iterations << " steps (" << r.extrapolations
              << " extrapolations), auto " << q.iterations << "\n";
  }
}

// A solve starts from its own parameters whatever the last one left: the
// init kernel writes the whole state (solve_start) and zeroes the
// extrapolation's counters, and the device publishes the state and the ranks
// itself (solve_out: one piece written into mapped host memory below 2^19
// vertices, pieces copied above). After a solve stopped at max_iter and one
// that extrapolated, each pull gives the bits, steps and extrapolations of a
// fresh solver, in both loops and both sizes.
TYPED_TEST(gpu_pagerank_accel, SolvesStartFreshAfterAnyStop) {
  using T = TypeParam;
  // Each solver its own vertex order trial otherwise (the persistent pull's,
  // timed): the in-degree order in all three, so that their bits compare.
  const scoped_env order("PERRON_FUSED_WINDOW", "0");
  for (const auto& [n, links] : {std::pair{3000, 24000}, std::pair{600000, 1800000}}) {
    const auto g = make_pagerank_graph<T>(random_graph(n, links, 97), false);
    for (pagerank_pull pull : {pagerank_pull::spmv, pagerank_pull::fused, pagerank_pull::persistent}) {
      for (pagerank_loop loop : {pagerank_loop::graph_while, pagerank_loop::check_every}) {
        pagerank_options acc = accel_options(pagerank_accel::automatic, 0.99, 1e-6);
        acc.loop = loop;
        pagerank_options plain = acc;
        plain.accelerate = pagerank_accel::none;
        pagerank_options stopped = plain;
        stopped.max_iter = 3;
        // The SpMV pull's kernel comes from a timed trial: where two kernels
        // tie, another solver can pick the other, whose sums round otherwise
        // (sessions 65 and 66: this test failed so, double, 600000 vertices,
        // spmv pull). The first solver's pick is named to the other two.
        pagerank_cuda<T> fresh_plain(g, std::nullopt, pull);
        pagerank_cuda<T> fresh_acc(g, fresh_plain.kernel(), pull);
        const auto p0 = fresh_plain.solve(plain);
        const auto a0 = fresh_acc.solve(acc);
        pagerank_cuda<T> s(g, fresh_plain.kernel(), pull);
        const auto st = s.solve(stopped);
        const std::string what =
            std::to_string(n) + " " + std::string(name(pull)) + " " + std::string(name(loop));
        EXPECT_EQ(st.iterations, 3) << what;
        EXPECT_FALSE(st.converged) << what;
        EXPECT_TRUE(same_result(s.solve(acc), a0)) << what;
        EXPECT_TRUE(same_result(s.solve(plain), p0)) << what;
        // Under an interrupt check that never throws (the persistent pull in
        // launches of interrupt_batch steps, each sending the ranks with the
        // state): the same results and, for the one-wait loop, one sync.
        pagerank_options checked = plain, stopped_checked = stopped;
        checked.interrupt = stopped_checked.interrupt = [] {};
        const auto pc = s.solve(checked);
        EXPECT_TRUE(same_result(pc, p0)) << what << " with an interrupt check";
        if (loop == pagerank_loop::graph_while) {
          EXPECT_EQ(pc.host_syncs, 1u) << what;
        }
        const auto sc = s.solve(stopped_checked);
        EXPECT_EQ(sc.iterations, 3) << what << " with an interrupt check";
        EXPECT_FALSE(sc.converged) << what;
        EXPECT_TRUE(same_result(s.solve(plain), p0)) << what << " after the checked solves";
        EXPECT_EQ(p0.extrapolations, 0) << what;
        EXPECT_TRUE(p0.converged) << what;
      }
    }
  }
}

// auto (the default): on every pull the same decisions as the CPU solver's
// (its gate and idle stop, solvers/pagerank_accel.hpp): chains stop after
// idle_to_stop extrapolations, a slowly mixing grid takes a fraction of
// plain's steps; --pull persistent with auto is accepted.
TYPED_TEST(gpu_pagerank_accel, AutoDecidesAsTheCpu) {
  using T = TypeParam;
  const auto chains = make_pagerank_graph<T>(chains_graph(20, 500), false);
  const auto mesh = make_pagerank_graph<T>(grid_graph(60), false);
  const double tol = std::is_same_v<T, float> ? 1e-6 : 1e-10;
  const pagerank_options o = accel_options(pagerank_accel::automatic, 0.99, tol);
  pagerank_options plain = o;
  plain.accelerate = pagerank_accel::none;
  {
    pagerank_cuda<T> c(chains, std::nullopt, pagerank_pull::fused),
        m(mesh, std::nullopt, pagerank_pull::fused);
    const auto rc = c.solve(o), rm = m.solve(o), pm = m.solve(plain);
    const auto cc = pagerank_cpu(chains, o), cm = pagerank_cpu(mesh, o);
    EXPECT_TRUE(rc.converged && rm.converged);
    EXPECT_EQ(rc.accelerate, pagerank_accel::automatic);
    EXPECT_EQ(rc.extrapolations, accel::idle_to_stop);
    EXPECT_EQ(cc.extrapolations, accel::idle_to_stop);
    EXPECT_LT(rm.iterations, pm.iterations / 2) << "plain " << pm.iterations;
    EXPECT_NEAR(rm.iterations, cm.iterations, 10);
    std::cout << "[ note ] auto, fused pull: chains " << rc.iterations << " steps (CPU " << cc.iterations
              << "), grid " << rm.iterations << " (" << rm.extrapolations << " extrapolations; CPU "
              << cm.iterations << ", plain " << pm.iterations << ")\n";
  }
  {
    // The spmv pull extrapolates in an IF node after its trips (whose length
    // the test sets: every divisor of the run, and one that is not).
    pagerank_cuda<T> c(chains, std::nullopt, pagerank_pull::spmv), m(mesh, std::nullopt, pagerank_pull::spmv);
    const auto cc = pagerank_cpu(chains, o), cm = pagerank_cpu(mesh, o);
    for (int unroll : {0, 1, 2, 3, 5, 10}) {
      pagerank_options u = o;
      u.graph_unroll = unroll;
      const auto rc = c.solve(u), rm = m.solve(u);
      const std::string at = "spmv pull, --graph-unroll " + std::to_string(unroll);
      EXPECT_TRUE(rc.converged && rm.converged) << at;
      EXPECT_EQ(rm.accelerate, pagerank_accel::automatic) << at;
      EXPECT_EQ(rm.loop, pagerank_loop::graph_while) << at;
      EXPECT_EQ(10 % rm.graph_unroll, 0) << at;
      if (unroll == 3) {
        EXPECT_EQ(rm.graph_unroll, 2) << at;
      }
      EXPECT_EQ(rc.extrapolations, accel::idle_to_stop) << at;
      EXPECT_NEAR(rc.iterations, cc.iterations, 10) << at;
      EXPECT_NEAR(rm.iterations, cm.iterations, 10) << at;
      EXPECT_EQ(rm.extrapolations, cm.extrapolations) << at;
    }
  }
  {
    // The persistent kernel, inside its launch, in each mode (the same bits).
    const auto cc = pagerank_cpu(chains, o), cm = pagerank_cpu(mesh, o);
    std::optional<pagerank_result> first;
    for (const char* mode : {"resident", "streamed", "cluster"}) {
      scoped_env env("PERRON_PERSISTENT", mode);
      pagerank_cuda<T> c(chains, std::nullopt, pagerank_pull::persistent),
          m(mesh, std::nullopt, pagerank_pull::persistent);
      const auto rc = c.solve(o), rm = m.solve(o), pm = m.solve(plain);
      const std::string at = std::string("persistent pull, ") + mode;
      EXPECT_TRUE(rc.converged && rm.converged) << at;
      EXPECT_EQ(rm.pull, pagerank_pull::persistent) << at;
      EXPECT_EQ(rm.accelerate, pagerank_accel::automatic) << at;
      EXPECT_EQ(rc.extrapolations, accel::idle_to_stop) << at;
      EXPECT_LT(rm.iterations, pm.iterations / 2) << at << ": plain " << pm.iterations;
      EXPECT_NEAR(rc.iterations, cc.iterations, 10) << at;
      EXPECT_NEAR(rm.iterations, cm.iterations, 10) << at;
      EXPECT_EQ(rm.extrapolations, cm.extrapolations) << at;
      if (first)
        EXPECT_TRUE(same_result(rm, *first)) << at;
      else
        first = rm;
    }
  }
  pagerank_options named = o;
  named.pull = pagerank_pull::persistent;
  EXPECT_NO_THROW(named.validate());
}

// rre personalized to one vertex of wb-cs-stanford at alpha 0.999, on every
// pull and persistent mode as on the CPU. Two things:
// - auto's plain line (solvers/pagerank_accel.hpp): rre ran to max_iter there
//   (1999 extrapolations, each a little worse than the plain steps it
//   replaced); the line ends them and the solve converges within about 1.6x
//   plain's steps.
// - the step after an extrapolation whose iterate holds negative entries
//   (4685 of 9914 after the first): its dangling mass sums them too. The
//   GPU's order-free sums had read a negative term as 0 (core/cuda/reduce.cuh),
//   so the next step's teleport gained 3.2e-3 of mass and every later step
//   differed from the CPU's: 772-2672 steps where the CPU's true steps take
//   12146. The iterates at max_iter 11, 12 and 21 (the second extrapolation's
//   first step) are the CPU's, then the whole solve takes the CPU's steps.
TYPED_TEST(gpu_pagerank_accel, PersonalizedRreStepsAsTheCpu) {
  using T = TypeParam;
  const auto file = find_graph("wb-cs-stanford.mtx");
  if (!file) GTEST_SKIP() << "wb-cs-stanford.mtx not found";
  const auto a = io::load_matrix(*file).matrix;
  const auto g = make_pagerank_graph<T>(a, false);
  pagerank_options o = accel_options(pagerank_accel::rre, 0.999, 1e-6);
  o.personalization.assign(static_cast<std::size_t>(a.rows), 0.0);
  o.personalization[0] = 1;
  // The CPU's and GPU's iterates differ by their sums' rounding alone: in
  // float by the float steps' (1e-6 of the mass at most here), where the
  // lost negative entries made 3.2e-3.
  const double within = std::is_same_v<T, float> ? 1e-4 : 1e-11;
  const std::array<int, 4> steps{11, 12, 21, 20000};
  std::vector<pagerank_options> runs;
  std::vector<pagerank_result> cpu;
  for (int k : steps) {
    runs.push_back(o);
    runs.back().max_iter = k;
    cpu.push_back(pagerank_cpu(g, runs.back()));
  }
  pagerank_options plain = runs.back();
  plain.accelerate = pagerank_accel::none;
  const auto cpu_plain = pagerank_cpu(g, plain);
  ASSERT_GT(std::count_if(cpu[0].rank.begin(), cpu[0].rank.end(), [](double x) { return x < 0; }), 1000)
      << "the case holds negative entries after the first extrapolation";
  ASSERT_TRUE(cpu.back().converged && cpu_plain.converged);
  const auto check = [&](pagerank_cuda<T>& c, const std::string& at) {
    for (std::size_t i = 0; i + 1 < steps.size(); ++i) {
      const auto gpu = c.solve(runs[i]);
      ASSERT_EQ(gpu.iterations, steps[i]) << at;
      EXPECT_EQ(gpu.extrapolations, cpu[i].extrapolations) << at << ", " << steps[i] << " steps";
      EXPECT_LE(l1_diff(gpu.rank, cpu[i].rank), within) << at << ", " << steps[i] << " steps";
    }
    const auto gpu = c.solve(runs.back());
    EXPECT_TRUE(gpu.converged) << at << ": residual " << gpu.residual;
    EXPECT_EQ(gpu.accelerate, pagerank_accel::rre) << at;
    EXPECT_LT(gpu.iterations, 2 * cpu_plain.iterations) << at << ": plain " << cpu_plain.iterations;
    // The same steps up to rounding, which 900 extrapolations amplify a little
    // (the defect made them 6-16 times fewer).
    EXPECT_NEAR(gpu.iterations, cpu.back().iterations, 0.25 * cpu.back().iterations) << at;
    std::cout << "[ note ] " << at << ": " << gpu.iterations << " steps, " << gpu.extrapolations
              << " extrapolations (CPU " << cpu.back().iterations << ", plain " << cpu_plain.iterations
              << ")\n";
  };
  for (pagerank_pull pull : {pagerank_pull::fused, pagerank_pull::spmv}) {
    pagerank_cuda<T> c(g, std::nullopt, pull);
    check(c, pull == pagerank_pull::fused ? "fused pull" : "spmv pull");
  }
  for (const char* mode : {"resident", "streamed", "cluster"}) {
    scoped_env env("PERRON_PERSISTENT", mode);
    pagerank_cuda<T> c(g, std::nullopt, pagerank_pull::persistent);
    check(c, std::string("persistent pull, ") + mode);
  }
}

// The pattern pulls relabel on the device by the keys fused_order_places
// sorts by on the host (the sources and long rows first, then the other
// dangling vertices, each part by in-degree): the same permutation, so the
// locality auto's rule measures is the one the steps see.
class gpu_pagerank_order : public gpu_test {};
TEST_F(gpu_pagerank_order, PatternPullsRelabelAsTheHostSays) {
  // The in-degree order pinned: the persistent pull's order trial may keep
  // the graph's own order (PersistentOwnOrderSolvesAndIsRemembered).
  const scoped_env order("PERRON_FUSED_WINDOW", "0");
  std::vector<std::pair<index_t, index_t>> arcs;  // a dangling hub of 70 in-links, one of 64
  for (index_t j = 2; j < 72; ++j) arcs.push_back({j, 0});
  for (index_t j = 2; j < 66; ++j) arcs.push_back({j, 1});
  for (index_t j = 72; j < 80; ++j) arcs.push_back({j - 70, j});
  std::vector<std::pair<std::string, pagerank_graph<float>>> graphs;
  graphs.emplace_back("hand-made", make_pagerank_graph<float>(graph_from_arcs(80, arcs), false));
  for (const char* spec : {"dangling:3000:10000:0.9", "rmat:12:40000", "hub:5000:3000", "chain:1000:10"})
    graphs.emplace_back(spec, make_pagerank_graph<float>(io::generate_synthetic(spec), false));
  for (const auto& [what, g] : graphs) {
    const std::vector<index_t> place = fused_order_places(g);
    for (pagerank_pull pull : {pagerank_pull::fused, pagerank_pull::persistent}) {
      const pagerank_cuda<float> s(g, std::nullopt, pull);
      const std::vector<index_t> order = s.vertex_order();
      ASSERT_EQ(order.size(), place.size()) << what;
      for (std::size_t k = 0; k < order.size(); ++k)
        ASSERT_EQ(place[static_cast<std::size_t>(order[k])], static_cast<index_t>(k))
            << what << " " << name(pull) << " at " << k;
    }
    const pagerank_cuda<float> spmv(g, spmv_kernel::csr_vector, pagerank_pull::spmv);
    EXPECT_TRUE(spmv.vertex_order().empty()) << what;
  }
}

// The ranks without most vertices no link enters (solvers/pagerank_compact_ranks.hpp:
// one value per out-degree of theirs, the others' in the graph's order): the
// same bits as every rank sent, in both pattern pulls, both loops, plain and
// extrapolating (auto, quadratic, aitken), on graphs whose ranks come in one
// piece and in several (more than 512 K values sent: rmat:21), one vertex
// holding most links (hub) and mostly dangling; personalized and
// warm-started solves, whose vertices without in-links differ, send every rank.
// The in-degree order pinned: the persistent pull's order trial may keep the
// graph's own order in one solver and not the other (other bits).
TYPED_TEST(gpu_pagerank, CompactRanksGiveTheSameBits) {
  using T = TypeParam;
  const scoped_env order("PERRON_FUSED_WINDOW", "0");
  for (const char* spec :
       {"rmat:16:400000", "dangling:150000:150000:0.7", "hub:100000:30000", "rmat:21:8000000"}) {
    const auto g = pagerank_graph_from_pattern<T>(io::generate_graph_transpose<T>(spec));
    const auto n = static_cast<std::size_t>(g.vertices());
    for (pagerank_pull pull : {pagerank_pull::fused, pagerank_pull::persistent}) {
      std::vector<pagerank_result> runs[2];
      for (int on = 0; on < 2; ++on) {
        const scoped_env env("PERRON_COMPACT_RANKS", on ? "on" : "off");
        pagerank_cuda<T> s(g, std::nullopt, pull);
        pagerank_options o;
        o.tol = solve_tolerance<T>::tol;
        for (pagerank_accel mode : {pagerank_accel::none, pagerank_accel::automatic,
                                    pagerank_accel::quadratic, pagerank_accel::aitken})
          for (pagerank_loop loop : {pagerank_loop::graph_while, pagerank_loop::check_every}) {
            o.accelerate = mode;
            o.loop = loop;
            runs[on].push_back(s.solve(o));
            const std::size_t sent = runs[on].back().ranks_sent;
            if (on) {
              EXPECT_LT(sent, n - n / 4) << spec << " " << name(pull);
            } else {
              EXPECT_EQ(sent, n) << spec << " " << name(pull);
            }
          }
        o.accelerate = pagerank_accel::none;
        o.personalization = random_vector(g.vertices(), 181, 0.0, 1.0);
        runs[on].push_back(s.solve(o));
        EXPECT_EQ(runs[on].back().ranks_sent, n) << spec;
        o.personalization.clear();
        o.initial = random_vector(g.vertices(), 191, 0.0, 1.0);
        runs[on].push_back(s.solve(o));
        EXPECT_EQ(runs[on].back().ranks_sent, n) << spec;
      }
      ASSERT_EQ(runs[0].size(), runs[1].size());
      std::vector<index_t> out_degree(n, 0);
      for (const index_t j : g.pt.col_idx) ++out_degree[static_cast<std::size_t>(j)];
      for (std::size_t i = 0; i < runs[0].size(); ++i) {
        EXPECT_TRUE(runs[0][i].converged) << spec << " " << name(pull) << " solve " << i;
        if (same_bits(runs[0][i], runs[1][i])) continue;
        // The first vertices that differ, with their degrees.
        std::ostringstream first;
        int shown = 0;
        std::size_t differ = 0;
        for (std::size_t j = 0; j < n; ++j) {
          if (std::memcmp(&runs[0][i].rank[j], &runs[1][i].rank[j], sizeof(double)) == 0) continue;
          ++differ;
          if (shown++ < 4)
            first << " [" << j << ": " << runs[0][i].rank[j] << " / " << runs[1][i].rank[j] << ", in "
                  << g.pt.row_ptr[j + 1] - g.pt.row_ptr[j] << ", out " << out_degree[j] << "]";
        }
        ADD_FAILURE() << spec << " " << name(pull) << " solve " << i << ": iterations "
                      << runs[0][i].iterations << " / " << runs[1][i].iterations << ", " << differ
                      << " ranks differ:" << first.str();
      }
    }
  }
}

TEST(gpu_pagerank_errors, CpuKernelIsRefused) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const auto g = make_pagerank_graph<float>(cycle_graph(4), false);
  EXPECT_THROW(pagerank_cuda<float>(g, spmv_kernel::cpu), invalid_argument);
}

// pagerank() with device automatic asks the end-to-end model
// (solvers/pagerank_device.hpp): a small graph answers first on the CPU, before
// and after this process's context is up; device cuda runs there and brings
// the context up.
TEST(gpu_pagerank_device, AutomaticAsksTheModel) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const auto g = make_pagerank_graph<float>(cycle_graph(40), false);
  const pagerank_result first = pagerank(g, pagerank_options{});
  EXPECT_FALSE(first.on_gpu);
  EXPECT_EQ(first.device_choice.rfind("auto: predicted cpu", 0), 0u) << first.device_choice;
  pagerank_options cuda_asked;
  cuda_asked.device = pagerank_device::cuda;
  const pagerank_result gpu = pagerank(g, cuda_asked);
  EXPECT_TRUE(gpu.on_gpu);
  EXPECT_EQ(gpu.device_choice, "device cuda");
  EXPECT_TRUE(cuda::context_up());
  const pagerank_result again = pagerank(g, pagerank_options{});
  EXPECT_FALSE(again.on_gpu) << again.device_choice;
  EXPECT_NE(again.device_choice.find("last solve"), std::string::npos) << again.device_choice;
  pagerank_options merge;  // a GPU kernel named: the GPU
  merge.kernel = spmv_kernel::merge;
  EXPECT_TRUE(pagerank(g, merge).on_gpu);
}

TEST(gpu_pagerank_errors, NoDeviceIsACudaError) {
  if (cuda::available()) GTEST_SKIP() << "a device is present";
  const auto g = make_pagerank_graph<float>(cycle_graph(4), false);
  EXPECT_THROW(pagerank_cuda<float>(g, spmv_kernel::automatic), cuda_error);
}

}  // namespace
}  // namespace perron::test
