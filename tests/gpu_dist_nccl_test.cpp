// pagerank_nccl (--gpus N) against the one-GPU solver and the CPU solve: the
// same ranks up to the order of floating-point sums. Skips without a GPU (fails
// under PERRON_REQUIRE_GPU=1), and without libnccl.so.2 on the library path
// (fails under PERRON_REQUIRE_NCCL=1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "core/error.hpp"
#include "io/synthetic.hpp"
#include "solvers/dist/pagerank_nccl.hpp"
#include "solvers/pagerank.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

// The distributed solve takes plain steps; so do the solves it is compared
// with (--accelerate auto, the default, extrapolates where it pays: another
// vector within tol, another step count).
pagerank_options plain_steps() {
  pagerank_options o;
  o.accelerate = pagerank_accel::none;
  return o;
}

double max_difference(const rank_vector& a, const rank_vector& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// Runs the NCCL solve, or skips when NCCL cannot be loaded.
template <class T>
bool nccl_solve(const pagerank_graph<T>& g, const pagerank_options& opt, int gpus, pagerank_result& out) {
  try {
    out = dist::pagerank_nccl(g, opt, gpus);
    return true;
  } catch (const cuda_error& e) {
    const std::string what = e.what();
    const char* req = std::getenv("PERRON_REQUIRE_NCCL");
    if (what.find("NCCL") == std::string::npos || (req && std::string(req) == "1")) throw;
    return false;
  }
}

TEST(GpuDistNccl, MatchesOneGpuAndTheCpuInDouble) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const pagerank_graph<double> g =
      make_pagerank_graph<double>(io::generate_synthetic("rmat:16:500000"), false);
  pagerank_options opt = plain_steps();
  opt.tol = 1e-12;
  const pagerank_result cpu = pagerank_cpu(g, opt);
  pagerank_cuda<double> one(g);
  const pagerank_result gpu = one.solve(opt);
  for (int gpus : {1, cuda::device_count()}) {
    pagerank_result r;
    if (!nccl_solve(g, opt, gpus, r)) GTEST_SKIP() << "libnccl.so.2 not on the library path";
    EXPECT_TRUE(r.converged);
    // ||r - r*||_1 <= tol alpha / (1 - alpha) after the stop: 1e-12 * 5.7.
    EXPECT_LE(max_difference(r.rank, cpu.rank), 1e-10) << gpus << " GPUs";
    EXPECT_LE(max_difference(r.rank, gpu.rank), 1e-10) << gpus << " GPUs";
    EXPECT_NEAR(r.iterations, cpu.iterations, 1);
  }
}

TEST(GpuDistNccl, FloatDanglingAndPersonalized) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const pagerank_graph<float> g = make_pagerank_graph<float>(io::generate_synthetic("rmat:12:20000"), false);
  pagerank_options opt = plain_steps();
  opt.tol = 1e-6;
  opt.personalization.assign(static_cast<std::size_t>(g.vertices()), 0.0);
  opt.personalization[3] = 1;
  opt.personalization[17] = 2;
  const pagerank_result cpu = pagerank_cpu(g, opt);
  pagerank_result r;
  if (!nccl_solve(g, opt, 1, r)) GTEST_SKIP() << "libnccl.so.2 not on the library path";
  EXPECT_LE(max_difference(r.rank, cpu.rank), 1e-5);
}

// The host checks every check_interval iterations; the stop test runs on the
// GPUs, so the iterate, the residual and the iteration count do not depend on
// the interval, every residual still reaches progress in order, and
// --bench-dist's statistics cover each iteration run.
TEST(GpuDistNccl, CheckIntervalChangesNothingAndStatsCoverEachIteration) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const pagerank_graph<double> g =
      make_pagerank_graph<double>(io::generate_synthetic("rmat:14:100000"), false);
  pagerank_options opt = plain_steps();
  opt.tol = 1e-10;
  opt.check_interval = 1;
  opt.kernel = spmv_kernel::csr_vector;  // named: auto's trial could pick another kernel in the second solve
  pagerank_result every;
  if (!nccl_solve(g, opt, 1, every)) GTEST_SKIP() << "libnccl.so.2 not on the library path";
  std::vector<std::pair<int, double>> seen;
  opt.check_interval = 7;
  opt.progress = [&](int k, double res) { seen.emplace_back(k, res); };
  std::vector<dist::iteration_stats> stats;
  const pagerank_result batched = dist::pagerank_nccl(g, opt, 1, &stats);
  EXPECT_TRUE(batched.converged);
  EXPECT_EQ(batched.iterations, every.iterations);
  EXPECT_EQ(batched.residual, every.residual);
  EXPECT_EQ(batched.rank, every.rank);  // bitwise: iterations queued after the stop change nothing
  EXPECT_EQ(every.host_syncs, static_cast<std::uint64_t>(every.iterations));
  EXPECT_EQ(batched.host_syncs, static_cast<std::uint64_t>((batched.iterations + 6) / 7));
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(batched.iterations));
  for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k].first, static_cast<int>(k) + 1);
  EXPECT_EQ(seen.back().second, batched.residual);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].compute_seconds.size(), static_cast<std::size_t>(batched.iterations));
  EXPECT_EQ(stats[0].comm_seconds.size(), static_cast<std::size_t>(batched.iterations));
  EXPECT_EQ(stats[0].bytes_sent, 0u);  // one GPU sends nothing
  for (double c : stats[0].compute_seconds) EXPECT_GT(c, 0.0);
  // max_iter reached: not converged, the count and residual of the last iteration.
  opt.max_iter = 5;
  opt.progress = nullptr;
  const pagerank_result cut = dist::pagerank_nccl(g, opt, 1);
  EXPECT_FALSE(cut.converged);
  EXPECT_EQ(cut.iterations, 5);
  EXPECT_EQ(cut.host_syncs, 1u);
}

// Each GPU pulls its rows through an SpMV plan: a named kernel runs as named,
// auto's trial picks one per GPU, and the reason names each GPU's kernel.
TEST(GpuDistNccl, NamedAndAutomaticKernelsMatchTheCpu) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const pagerank_graph<double> g =
      make_pagerank_graph<double>(io::generate_synthetic("rmat:13:60000"), false);
  pagerank_options opt = plain_steps();
  opt.tol = 1e-12;
  const pagerank_result cpu = pagerank_cpu(g, opt);
  for (std::optional<spmv_kernel> k :
       {std::optional<spmv_kernel>{}, std::optional{spmv_kernel::csr_vector},
        std::optional{spmv_kernel::merge}, std::optional{spmv_kernel::cusparse}}) {
    opt.kernel = k;
    pagerank_result r;
    if (!nccl_solve(g, opt, cuda::device_count(), r)) GTEST_SKIP() << "libnccl.so.2 not on the library path";
    const std::string what = k ? std::string(name(*k)) : "auto";
    EXPECT_TRUE(r.converged) << what;
    EXPECT_LE(max_difference(r.rank, cpu.rank), 1e-10) << what;
    ASSERT_TRUE(r.kernel.has_value()) << what;
    if (k) {
      EXPECT_EQ(*r.kernel, *k);
    }
    EXPECT_NE(r.kernel_reason.find("GPU 0: "), std::string::npos) << r.kernel_reason;
  }
}

// Chunked, each chunk's exchange beside the next chunk's pull: the pull
// reads one buffer of r and the update writes the other, so the iterate is
// the unchunked one's (up to each chunk's own kernel parameters), whatever
// the chunk count, on every GPU present and on one; the returned ranks are
// the last iteration's buffer also when iterations were queued past the stop.
TEST(GpuDistNccl, ChunkedExchangeMatchesOneChunk) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const pagerank_graph<double> g =
      make_pagerank_graph<double>(io::generate_synthetic("rmat:15:250000"), false);
  pagerank_options opt = plain_steps();
  opt.tol = 1e-12;
  opt.check_interval = 5;
  opt.kernel = spmv_kernel::merge;
  const pagerank_result cpu = pagerank_cpu(g, opt);
  for (int gpus : {1, cuda::device_count()}) {
    pagerank_result one;
    if (!nccl_solve(g, opt, gpus, one)) GTEST_SKIP() << "libnccl.so.2 not on the library path";
    for (int chunks : {2, 3, 8}) {
      std::vector<dist::iteration_stats> stats;
      const pagerank_result r = dist::pagerank_nccl(g, opt, gpus, &stats, {chunks});
      EXPECT_TRUE(r.converged) << gpus << " GPUs, " << chunks << " chunks";
      EXPECT_EQ(r.iterations, one.iterations) << gpus << " GPUs, " << chunks << " chunks";
      EXPECT_LE(max_difference(r.rank, one.rank), 1e-14) << gpus << " GPUs, " << chunks << " chunks";
      EXPECT_LE(max_difference(r.rank, cpu.rank), 1e-10) << gpus << " GPUs, " << chunks << " chunks";
      EXPECT_NE(r.kernel_reason.find(std::to_string(chunks) + " chunks"), std::string::npos)
          << r.kernel_reason;
      ASSERT_EQ(stats.size(), static_cast<std::size_t>(gpus));
      EXPECT_EQ(stats[0].compute_seconds.size(), static_cast<std::size_t>(r.iterations));
    }
  }
  // More chunks than 4096-vertex blocks: the empty chunks are skipped.
  const pagerank_graph<double> small =
      make_pagerank_graph<double>(io::generate_synthetic("rmat:12:30000"), false);
  const pagerank_result ref = pagerank_cpu(small, opt);
  const pagerank_result r = dist::pagerank_nccl(small, opt, cuda::device_count(), nullptr, {8});
  EXPECT_TRUE(r.converged);
  EXPECT_LE(max_difference(r.rank, ref.rank), 1e-10);
  EXPECT_THROW(dist::pagerank_nccl(small, opt, 1, nullptr, {dist::max_exchange_chunks + 1}),
               invalid_argument);
  EXPECT_THROW(dist::pagerank_nccl(small, opt, 1, nullptr, {1, -1.0}), invalid_argument);
  // Any row cost gives the same ranks (the cut moves, the sums per row do not).
  for (double cost : {0.0, 0.5, 7.0}) {
    const pagerank_result c = dist::pagerank_nccl(g, opt, cuda::device_count(), nullptr, {2, cost});
    EXPECT_LE(max_difference(c.rank, cpu.rank), 1e-10) << cost;
  }
}

// The halo exchange (each GPU receives only the entries of r its rows read,
// ncclSend/ncclRecv after the pull) against the broadcast of one chunk: the
// same kernel on the same cut, so the same ranks bit for bit, also with
// iterations queued past the stop (check_interval 7); automatic takes the
// halo on a mesh. One GPU: nothing to exchange, the broadcast path.
template <class T>
void expect_halo_matches_broadcast(const char* spec) {
  const pagerank_graph<T> g = make_pagerank_graph<T>(io::generate_synthetic(spec), false);
  const int gpus = cuda::device_count();
  pagerank_options opt = plain_steps();
  opt.tol = std::is_same_v<T, double> ? 1e-12 : 1e-6;
  opt.check_interval = 7;
  opt.kernel = spmv_kernel::merge;
  dist::nccl_options how;
  how.chunks = 1;
  how.exchange = dist::exchange_kind::all;
  const pagerank_result all = dist::pagerank_nccl(g, opt, gpus, nullptr, how);
  how.exchange = dist::exchange_kind::halo;
  dist::nccl_choice chosen;
  std::vector<dist::iteration_stats> stats;
  const pagerank_result halo = dist::pagerank_nccl(g, opt, gpus, &stats, how, &chosen);
  EXPECT_EQ(chosen.halo, gpus > 1) << spec;
  EXPECT_EQ(chosen.chunks, 1);
  EXPECT_TRUE(halo.converged) << spec;
  EXPECT_EQ(halo.iterations, all.iterations) << spec;
  ASSERT_EQ(halo.rank.size(), all.rank.size());
  for (std::size_t i = 0; i < all.rank.size(); ++i)
    ASSERT_EQ(halo.rank[i], all.rank[i]) << spec << " vertex " << i;
  if (gpus > 1) {
    EXPECT_NE(halo.kernel_reason.find("halo exchange"), std::string::npos) << halo.kernel_reason;
    std::uint64_t received = 0;
    for (const dist::iteration_stats& st : stats) received += st.bytes_received;
    EXPECT_LT(received, chosen.all_values * sizeof(T) + 2 * gpus * (g.vertices() / 4096 + 2) * 8 * gpus);
  }
}

TEST(GpuDistNccl, HaloExchangeMatchesTheBroadcast) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  pagerank_result probe;
  const pagerank_graph<double> mesh =
      make_pagerank_graph<double>(io::generate_synthetic("grid:300:200"), false);
  if (!nccl_solve(mesh, pagerank_options{}, 1, probe)) GTEST_SKIP() << "libnccl.so.2 not on the library path";
  expect_halo_matches_broadcast<double>("grid:300:200");
  expect_halo_matches_broadcast<double>("rmat:15:250000");
  expect_halo_matches_broadcast<double>("web:50000:500000");
  expect_halo_matches_broadcast<float>("grid:300:200");
  // Automatic: the mesh's GPUs read a sliver of each other's rows.
  dist::nccl_choice chosen;
  const pagerank_result r =
      dist::pagerank_nccl(mesh, pagerank_options{}, cuda::device_count(), nullptr, {}, &chosen);
  EXPECT_EQ(chosen.halo, cuda::device_count() > 1);
  EXPECT_LE(max_difference(r.rank, pagerank_cpu(mesh, plain_steps()).rank), 1e-9);
  // The halo goes after the whole pull: not with chunks.
  dist::nccl_options chunked;
  chunked.chunks = 3;
  chunked.exchange = dist::exchange_kind::halo;
  if (cuda::device_count() > 1) {
    EXPECT_THROW(dist::pagerank_nccl(mesh, pagerank_options{}, cuda::device_count(), nullptr, chunked),
                 invalid_argument);
  }
}

// Each GPU's share is checked against its free memory before anything is
// allocated: the refusal names the GPU, its share and the bytes.
TEST(GpuDistNccl, RefusesAShareTheGpuCannotHold) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const pagerank_graph<float> g = make_pagerank_graph<float>(io::generate_synthetic("rmat:12:30000"), false);
  ::setenv("PERRON_GPU_MEMORY_LIMIT", "100000000", 1);  // 100 MB: below the 768 MB kept for NCCL
  try {
    dist::pagerank_nccl(g, pagerank_options{}, cuda::device_count());
    ADD_FAILURE() << "no refusal";
  } catch (const dimension_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("GPU 0's share"), std::string::npos) << what;
    EXPECT_NE(what.find("PERRON_GPU_MEMORY_LIMIT"), std::string::npos) << what;
  }
  ::unsetenv("PERRON_GPU_MEMORY_LIMIT");
  pagerank_result r;
  if (!nccl_solve(g, pagerank_options{}, cuda::device_count(), r))
    GTEST_SKIP() << "libnccl.so.2 not on the library path";
  EXPECT_TRUE(r.converged);
}

// A generated graph in pieces (the path past 2^31 links): the same rows (cut
// by the draws, not the links: the cut may differ), the same ranks up to the
// order of each row's sum.
TEST(GpuDistNccl, PiecesSolveAsTheWholeGraph) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const std::string spec = "rmat:14:120000";
  const pagerank_graph<double> g = make_pagerank_graph<double>(io::generate_synthetic(spec), false);
  pagerank_options opt = plain_steps();
  opt.tol = 1e-12;
  opt.kernel = spmv_kernel::csr_vector;
  const int gpus = cuda::device_count();
  for (int chunks : {1, 3}) {
    pagerank_result whole;
    try {
      whole = dist::pagerank_nccl(g, opt, gpus, nullptr, {chunks});
    } catch (const cuda_error& e) {
      if (std::string(e.what()).find("NCCL") == std::string::npos || std::getenv("PERRON_REQUIRE_NCCL"))
        throw;
      GTEST_SKIP() << "libnccl.so.2 not on the library path";
    }
    io::transpose_pieces p = io::generate_transpose_pieces(spec, [&](const std::vector<std::uint64_t>& b) {
      return dist::nccl_cut(b, g.vertices(), gpus, chunks, dist::nccl_options{}.row_cost);
    });
    const pagerank_result r = dist::pagerank_nccl<double>(std::move(p.at), p.out_degree, opt, gpus, chunks);
    EXPECT_TRUE(r.converged);
    EXPECT_NEAR(r.iterations, whole.iterations, 1);
    EXPECT_LE(max_difference(r.rank, whole.rank), 1e-13) << chunks << " chunks";
  }
}

TEST(GpuDistNccl, RefusesMoreGpusThanPresent) {
  PERRON_REQUIRE_DEVICE_OR_SKIP();
  const pagerank_graph<float> g = make_pagerank_graph<float>(io::generate_synthetic("rmat:8:1000"), false);
  EXPECT_THROW(dist::pagerank_nccl(g, pagerank_options{}, cuda::device_count() + 1), cuda_error);
}

}  // namespace
}  // namespace perron
