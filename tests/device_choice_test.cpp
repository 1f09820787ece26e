// The end-to-end device model (solvers/device_choice.hpp): given a graph's
// size, the thread count and the CUDA context's state, which device it picks,
// and the properties that choice rests on. The cases are real runs of
// docs/PERFORMANCE.md ("Device choice"), far enough from the crossover that
// refitting the rates does not flip them.
#include "solvers/device_choice.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "core/context_start.hpp"
#include "core/device.hpp"

namespace perron::test {
namespace {

device_facts graph(index_t n, std::size_t links, int threads) {
  device_facts f;
  f.vertices = n;
  f.links = links;
  f.threads = threads;
  f.iterations = expected_iterations(0.85, 1e-6, 1000);
  return f;
}

// The context under way since the program started, `elapsed` seconds ago.
device_facts under_way(device_facts f, double elapsed) {
  f.context_started = true;
  f.context_elapsed = elapsed;
  return f;
}

device_facts ready(device_facts f) {
  f.context_started = f.context_ready = true;
  return f;
}

TEST(DeviceChoice, ExpectedIterations) {
  // log(tol / 2) / log(alpha) = log(5e-7) / log(0.85) = 89.3
  EXPECT_EQ(expected_iterations(0.85, 1e-6, 1000), 90);
  EXPECT_EQ(expected_iterations(0.85, 1e-6, 50), 50);  // capped by --max-iter
  EXPECT_EQ(expected_iterations(0.85, 3.0, 1000), 1);
  EXPECT_LE(expected_iterations(0.0, 1e-6, 1000), 2);  // alpha 0: r_1 = v
  EXPECT_GE(expected_iterations(0.0, 1e-6, 1), 1);
  EXPECT_LT(expected_iterations(0.5, 1e-6, 1000), expected_iterations(0.85, 1e-6, 1000));
  EXPECT_LT(expected_iterations(0.85, 1e-3, 1000), expected_iterations(0.85, 1e-10, 1000));
  EXPECT_EQ(expected_iterations(0.99, 1e-10, 1000), 1000);
}

// Before the load: the input's guessed size, nothing started yet.
device_facts before_load(input_guess g, int threads) {
  device_facts f = graph(g.vertices, g.links, threads);
  f.load_left = g.load_seconds;
  return f;
}

// cnr-2000 from the binary cache (25.7 MB: 8 bytes per link).
constexpr std::uint64_t cnr_cache_bytes = 25729344;

TEST(DeviceChoice, SmallGraphsNeverStartTheContext) {
  // karate (156 links), wiki-Vote (103689), cage11 (559722): the CPU is done
  // long before a context would exist, with any thread count.
  for (int p : {1, 2, 16, 128})
    for (std::uint64_t bytes : {1376ull, 1095061ull, 8ull * 559722}) {
      const device_estimate e =
          estimate_devices(before_load(guess_input(input_kind::cache, bytes, 0, 0, p), p));
      EXPECT_FALSE(e.choose_gpu) << p << " threads, " << bytes << " bytes: " << e.reason;
    }
}

TEST(DeviceChoice, CnrFromTheCacheDependsOnTheCores) {
  // 16 cores: the CPU run (0.10-0.12 s measured, H200 host) beats the GPU's (0.27-0.29 s).
  const device_estimate e16 =
      estimate_devices(before_load(guess_input(input_kind::cache, cnr_cache_bytes, 0, 0, 16), 16));
  EXPECT_FALSE(e16.choose_gpu) << e16.reason;
  // One core: the CPU needs about 0.5 s (a step of 7 ms); the GPU is worth its context.
  const device_estimate e1 =
      estimate_devices(before_load(guess_input(input_kind::cache, cnr_cache_bytes, 0, 0, 1), 1));
  EXPECT_TRUE(e1.choose_gpu) << e1.reason;
  // Once a context exists (a process that already used the GPU), the GPU wins on 16 too.
  const device_estimate warm = estimate_devices(ready(graph(325557, 3216152, 16)));
  EXPECT_TRUE(warm.choose_gpu) << warm.reason;
  EXPECT_EQ(warm.context_left, 0.0);
}

// A file's kept CSR of A^T (cnr-2000's: 14.2 MB, 4.4 bytes a link with its
// row pointers) guesses the same size as its arcs' cache entry, a shorter
// load, and a conversion in place: a cheaper CPU run, not a costlier GPU one.
TEST(DeviceChoice, AKeptTransposeGuessesTheSameGraph) {
  const input_guess arcs = guess_input(input_kind::cache, cnr_cache_bytes, 0, 0, 16);
  const input_guess kept = guess_input(input_kind::transposed, 14'160'000, 0, 0, 16);
  EXPECT_NEAR(double(kept.links), double(arcs.links), 0.02 * double(arcs.links));
  EXPECT_LT(kept.load_seconds, arcs.load_seconds);
  device_facts f = before_load(kept, 16), g = before_load(arcs, 16);
  f.from_pattern = true;
  const device_estimate e = estimate_devices(f), before = estimate_devices(g);
  EXPECT_FALSE(e.choose_gpu) << e.reason;
  EXPECT_LT(e.cpu, before.cpu);
  EXPECT_LT(e.cpu_convert, before.cpu_convert);
}

TEST(DeviceChoice, LargeGraphsStartTheContext) {
  // 10^8 links: the CPU's conversion alone outlasts the context.
  for (int p : {2, 16}) {
    const device_estimate e =
        estimate_devices(before_load(guess_input(input_kind::cache, 800'000'000, 0, 0, p), p));
    EXPECT_TRUE(e.choose_gpu) << p << ": " << e.reason;
    const device_estimate after = estimate_devices(under_way(graph(10'000'000, 100'000'000, p), 0.3));
    EXPECT_TRUE(after.choose_gpu) << p << ": " << after.reason;
  }
}

TEST(DeviceChoice, TheCpuScalesWithTheThreadCount) {
  const device_facts g = graph(1 << 20, 10'000'000, 1);
  double last = INFINITY;
  for (int p : {1, 2, 4, 8, 16}) {
    device_facts f = g;
    f.threads = p;
    const device_estimate e = estimate_devices(f);
    EXPECT_LE(e.cpu, last) << p;
    last = e.cpu;
  }
  // ... until memory bandwidth caps the solve: 64 threads are not 4x 16.
  device_facts a = g, b = g;
  a.threads = 16;
  b.threads = 64;
  EXPECT_GT(estimate_devices(b).cpu_solve, 0.25 * estimate_devices(a).cpu_solve);
  // A graph the GPU wins on few cores and the CPU on many, never the other way.
  bool cpu_before = false;
  for (int p : {1, 2, 4, 8, 16}) {
    const bool cpu =
        !estimate_devices(before_load(guess_input(input_kind::cache, cnr_cache_bytes, 0, 0, p), p))
             .choose_gpu;
    EXPECT_TRUE(cpu || !cpu_before) << p;
    cpu_before = cpu;
  }
  EXPECT_TRUE(cpu_before);
}

TEST(DeviceChoice, TheContextStateCounts) {
  const device_facts g = graph(1 << 20, 10'000'000, 16);
  const double all = estimate_devices(g).context_left;  // not started: all of it to come
  EXPECT_EQ(all, device_rates{}.context_s);
  double last = all;
  for (double t : {0.0, 0.05, 0.1, 0.2}) {
    const double left = estimate_devices(under_way(g, t)).context_left;
    EXPECT_LE(left, last) << t;
    EXPECT_GT(left, 0.0) << t;  // not finished yet
    last = left;
  }
  // Past the expected time but still under way: a little left, not zero.
  EXPECT_GT(estimate_devices(under_way(g, 10.0)).context_left, 0.0);
  EXPECT_EQ(estimate_devices(ready(g)).context_left, 0.0);
  EXPECT_LT(estimate_devices(ready(g)).gpu, estimate_devices(under_way(g, 0.0)).gpu);
  // A started context is paid for on the CPU too: the process waits for the
  // driver's start-up and tears the context down at exit.
  const device_rates r;
  const device_estimate small = estimate_devices(under_way(graph(34, 156, 16), 0.01));
  EXPECT_GE(small.cpu, small.context_left + r.gpu_exit_s);
  EXPECT_LT(estimate_devices(graph(34, 156, 16)).cpu, r.gpu_exit_s);
}

TEST(DeviceChoice, WhereAGpuRunConverts) {
  // The context still far off: on the host meanwhile.
  const device_estimate waiting = estimate_devices(under_way(graph(325557, 3216152, 16), 0.01));
  EXPECT_FALSE(waiting.convert_on_gpu);
  // Context ready: the device's sort (30 ns per link) against the host's
  // (7.5 ns per link on 16 threads, 9 on 2, since P^T is built from the
  // pattern): the host at any thread count.
  for (int p : {1, 2, 16})
    EXPECT_FALSE(estimate_devices(ready(graph(1 << 20, 10'000'000, p))).convert_on_gpu) << p;
}

// A generated graph becomes P^T in place on the host (about 37 ns per link
// and thread), whichever device solves; R-MAT 21 (19.5 M links), before its
// generation (0.16 s on 16 threads). Measured on the H200 host at that size
// (er:2000000:20000000, 11 iterations): cpu 0.34 s, cuda 0.33 s in-process
// once the context overlaps the generation; few iterations favour the CPU,
// many the GPU.
TEST(DeviceChoice, GeneratedGraphsConvertInPlaceOnTheHost) {
  device_facts f = graph(1 << 21, 19'528'331, 16);
  f.load_left = 0.16;
  f.iterations = 19;
  const device_estimate coo = estimate_devices(f);
  f.from_pattern = true;
  const device_estimate in_place = estimate_devices(f);
  EXPECT_LT(in_place.cpu_convert, coo.cpu_convert / 3);
  EXPECT_NEAR(in_place.cpu_convert, 0.046, 0.01);
  EXPECT_FALSE(in_place.convert_on_gpu);
  EXPECT_EQ(in_place.gpu_convert, in_place.cpu_convert) << "the host converts for the GPU run too";
  f.iterations = 3;
  EXPECT_FALSE(estimate_devices(f).choose_gpu) << estimate_devices(f).reason;
  f.iterations = 400;
  EXPECT_TRUE(estimate_devices(f).choose_gpu);
}

// The detached exit (apps/common/detached_exit.hpp): the teardown leaves the
// GPU's prediction, and a context started but not used costs the CPU run
// nothing at its end.
TEST(DeviceChoice, ADetachedExitCostsNothing) {
  const device_rates r;
  device_facts f = under_way(graph(325557, 3216152, 16), 0.01);
  const device_estimate waited = estimate_devices(f);
  f.exit_detached = true;
  const device_estimate detached = estimate_devices(f);
  EXPECT_NEAR(waited.gpu - detached.gpu, r.gpu_exit_s, 1e-12);
  EXPECT_NEAR(detached.cpu, detached.cpu_convert + detached.cpu_solve, 1e-12);
  EXPECT_GT(waited.cpu, detached.cpu + r.gpu_exit_s - 1e-12);
}

TEST(DeviceChoice, MoreIterationsFavourTheGpu) {
  // cnr-2000 after a cached load on 16 threads, the context just started:
  // enough iterations (a tight tol, alpha near 1) make the GPU's cheaper
  // steps pay for the wait.
  device_facts f = under_way(graph(325557, 3216152, 16), 0.01);
  f.iterations = 10;
  EXPECT_FALSE(estimate_devices(f).choose_gpu);
  f.iterations = 5000;
  EXPECT_TRUE(estimate_devices(f).choose_gpu);
}

TEST(DeviceChoice, GuessesFromTheInput) {
  const input_guess c = guess_input(input_kind::cache, cnr_cache_bytes, 0, 0, 16);
  EXPECT_NEAR(double(c.links), 3216152.0, 0.01 * 3216152);
  EXPECT_GT(c.load_seconds, 0.0);
  EXPECT_LT(c.load_seconds, 0.05);
  // cnr-2000.mtx.gz (7.8 MB): within a factor of two of its 3.2 M links.
  const input_guess z = guess_input(input_kind::gz, 7791692, 0, 0, 16);
  EXPECT_GT(z.links, 1'600'000u);
  EXPECT_LT(z.links, 6'400'000u);
  EXPECT_GT(z.load_seconds, c.load_seconds);
  // A synthetic spec knows its size; generating it scales with the threads.
  const input_guess s16 = guess_input(input_kind::synthetic, 0, 10'000'000, 1 << 20, 16);
  const input_guess s2 = guess_input(input_kind::synthetic, 0, 10'000'000, 1 << 20, 2);
  EXPECT_EQ(s16.links, 10'000'000u);
  EXPECT_EQ(s16.vertices, 1 << 20);
  EXPECT_NEAR(s2.load_seconds, 8 * s16.load_seconds, 1e-9);
  // Each generator at its own rate: ws's draws cheapest, bip's dearest.
  double last = 0;
  for (const char* family : {"ws", "er", "sbm", "cite", "rmat", "web", "powerlaw", "bip"}) {
    const double t = guess_input(input_kind::synthetic, 0, 10'000'000, 1 << 20, 16, {}, family).load_seconds;
    EXPECT_GT(t, last) << family;
    last = t;
  }
}

// er:2000000:20000000 on 15 threads (H200 host, session 47): generated in
// 0.11 s and solved on the CPU in 0.32 s against the GPU's 0.40 (walls); at
// er's own rate the guess before the load leaves the context unstarted,
// where the one rate of 160 ns a draw had started it for nothing.
TEST(DeviceChoice, ErOfTwentyMillionLinksStaysOnTheCpuBeforeTheLoad) {
  device_facts f =
      before_load(guess_input(input_kind::synthetic, 0, 20'000'000, 2'000'000, 15, {}, "er"), 15);
  f.from_pattern = true;
  f.iterations = 11;
  f.exit_detached = true;
  const device_estimate e = estimate_devices(f);
  EXPECT_FALSE(e.choose_gpu) << e.reason;
}

TEST(DeviceChoice, ReasonNamesBothPredictions) {
  const device_rates r;
  const device_estimate e = estimate_devices(graph(34, 156, 2));
  EXPECT_NE(e.reason.find("predicted cpu "), std::string::npos) << e.reason;
  EXPECT_NE(e.reason.find("cuda "), std::string::npos) << e.reason;
  EXPECT_NE(e.reason.find("CUDA context"), std::string::npos) << e.reason;
  EXPECT_NEAR(e.cpu, e.cpu_convert + e.cpu_solve, 1e-12);  // nothing started: the CPU alone
  EXPECT_GE(e.gpu, e.context_left + e.gpu_setup + e.gpu_solve + r.gpu_exit_s - 1e-12);
  // A CUDA build where no NVIDIA device node exists (the CI machine, a laptop
  // without one) still predicts, and says what it sees; the choice is the same.
  const bool note = e.reason.find("this machine shows no NVIDIA device") != std::string::npos;
  EXPECT_EQ(note, cuda::built() && !cuda::device_node_present()) << e.reason;
  const device_estimate big = estimate_devices(graph(10'000'000, 100'000'000, 2));
  EXPECT_TRUE(big.choose_gpu) << big.reason;
}

// A named device reports what auto would have done; with the context never
// started (--device cpu) whether a GPU is there is unknown, and said so.
TEST(DeviceChoice, WhatAutoWouldTakeSaysWhatIsKnown) {
  const device_estimate gpu = estimate_devices(graph(10'000'000, 100'000'000, 2));
  ASSERT_TRUE(gpu.choose_gpu) << gpu.reason;
  if (!cuda::built()) {  // no prediction for a GPU this build cannot use
    EXPECT_EQ(auto_would_take(gpu, false, 0), "cpu: perron was built without CUDA");
    return;
  }
  EXPECT_EQ(auto_would_take(gpu, true, 1), "cuda: " + gpu.reason);
  EXPECT_EQ(auto_would_take(gpu, false, 0), "cuda, if a CUDA device is usable: " + gpu.reason);
  EXPECT_EQ(auto_would_take(gpu, true, 0), "cpu: no usable CUDA device");
  const device_estimate cpu = estimate_devices(graph(34, 156, 2));
  ASSERT_FALSE(cpu.choose_gpu) << cpu.reason;
  EXPECT_EQ(auto_would_take(cpu, false, 0), "cpu: " + cpu.reason);
  EXPECT_EQ(auto_would_take(cpu, true, 0), "cpu: no usable CUDA device");
}

TEST(DeviceChoice, LocalLinksGatherFromTheCaches) {
  // A 4 MB x whose links stay within their row's neighbourhood (a grid, a
  // chain, a web crawl's host order): the CPU's step costs what a small x's
  // does, and a random one's more.
  device_facts random = ready(graph(1000000, 4000000, 15));
  random.iterations = 21;
  device_facts local = random;
  local.local_links = 1.0;
  device_facts half = random;
  half.local_links = 0.5;
  const double r = estimate_devices(random).cpu_solve, l = estimate_devices(local).cpu_solve,
               h = estimate_devices(half).cpu_solve;
  EXPECT_LT(l, 0.75 * r);
  EXPECT_GT(h, l);
  EXPECT_LT(h, r);
  device_facts small = ready(graph(10000, 40000, 15));  // x in cache: locality changes little
  const double before = estimate_devices(small).cpu_solve;
  small.local_links = 1.0;
  EXPECT_NEAR(estimate_devices(small).cpu_solve, before, 0.01 * before);
}

TEST(DeviceChoice, AGraphInMemory) {
  // Nothing to load; built already: no conversion on either side; the GPU's
  // set-up runs its layout trials again (no cache entry keeps them).
  device_facts f = ready(graph(1000000, 4000000, 15));
  const device_estimate file = estimate_devices(f);
  f.in_memory = f.converted = f.layout_trials = true;
  const device_estimate built = estimate_devices(f);
  EXPECT_EQ(built.cpu_convert, 0.0);
  EXPECT_EQ(built.gpu_convert, 0.0);
  EXPECT_GT(built.gpu_setup, file.gpu_setup);
  // Built next, on the host, for either device: the same conversion on both.
  f.converted = false;
  const device_estimate next = estimate_devices(f);
  EXPECT_GT(next.cpu_convert, 0.0);
  EXPECT_EQ(next.gpu_convert, next.cpu_convert);
  EXPECT_FALSE(next.convert_on_gpu);
  EXPECT_NEAR(next.gpu - next.cpu, built.gpu - built.cpu, 1e-9);
}

// ---- batched personalized PageRank (device_facts::columns) -----------------------
// The cases are runs of scripts/batched-device-bench.sh (docs/PERFORMANCE.md,
// "`pagerank --sources` and `pagerank_batched` by the device model (session 72)"), H200 host, 15 threads,
// float, each with one device at least 1.6x the other's wall time.

device_facts sets(device_facts f, std::size_t columns, int iterations) {
  f.columns = columns;
  f.iterations = iterations;
  f.iterations_known = true;
  return f;
}

TEST(DeviceChoice, BatchedSmallGraphsStayOnTheCpu) {
  // karate at 256 sets: cpu 0.012 s, cuda 0.316; ca-AstroPh at 64: 0.085 against 0.364
  EXPECT_FALSE(estimate_devices(sets(graph(34, 156, 15), 256, 38)).choose_gpu);
  EXPECT_FALSE(estimate_devices(sets(graph(17903, 394062, 15), 64, 60)).choose_gpu);
  // cnr-2000 at 8 sets: 0.176 against 0.407
  EXPECT_FALSE(estimate_devices(sets(graph(325557, 3216152, 15), 8, 78)).choose_gpu);
}

TEST(DeviceChoice, BatchedLargeBlocksTakeTheGpu) {
  // cnr-2000 at 256 sets: cpu 2.60 s, cuda 0.687; rmat:20:10000000 at 64: 3.12 against 0.944
  EXPECT_TRUE(estimate_devices(sets(graph(325557, 3216152, 15), 256, 78)).choose_gpu);
  EXPECT_TRUE(estimate_devices(sets(graph(1048576, 10000000, 15), 64, 40)).choose_gpu);
  // er:1000000:10000000 at 256: 5.13 against 1.48
  EXPECT_TRUE(estimate_devices(sets(graph(1000000, 10000000, 15), 256, 17)).choose_gpu);
}

TEST(DeviceChoice, BatchedOneSetCostsOneSolve) {
  // A block of one column runs the single step (its chunk is one column wide).
  const device_facts one = graph(325557, 3216152, 15);
  const device_estimate single = estimate_devices(one);
  const device_estimate batched = estimate_devices(sets(one, 1, one.iterations));
  EXPECT_NEAR(batched.cpu_solve, single.cpu_solve, single.cpu_solve * 0.01);
  // More sets cost more on both devices, and less a set on the CPU.
  const device_estimate sixty_four = estimate_devices(sets(one, 64, one.iterations));
  EXPECT_GT(sixty_four.cpu_solve, batched.cpu_solve);
  EXPECT_LT(sixty_four.cpu_solve, 64 * batched.cpu_solve);
  EXPECT_GT(sixty_four.gpu_solve, batched.gpu_solve);
}

TEST(DeviceChoice, BatchedMoreSetsFavourTheGpu) {
  // Past some number of sets the GPU answers first, and stays ahead.
  const device_facts f = graph(39082, 559722, 15);  // cage11
  bool gpu = false;
  for (std::size_t k = 1; k <= 4096; k *= 2) {
    const device_estimate e = estimate_devices(sets(f, k, 72));
    EXPECT_TRUE(e.choose_gpu || !gpu) << k << " sets: " << e.reason;
    gpu = e.choose_gpu;
  }
  EXPECT_TRUE(gpu);
  EXPECT_FALSE(estimate_devices(sets(f, 1, 72)).choose_gpu);
}

TEST(DeviceChoice, BatchedDoubleCostsMore) {
  // Twice the lines a column: paid where the chunks spill past the caches
  // (er:1000000:10000000, 64 MB a chunk), hardly where they stay (cage11).
  const auto ratio = [](device_facts f) {
    const device_estimate single = estimate_devices(f);
    f.value_bytes = 8;
    const device_estimate twice = estimate_devices(f);
    EXPECT_NE(twice.reason.find("source sets"), std::string::npos) << twice.reason;
    EXPECT_GT(twice.gpu_solve, single.gpu_solve * 1.2);
    return twice.cpu_solve / single.cpu_solve;
  };
  const double spilled = ratio(sets(graph(1000000, 10000000, 15), 64, 17));
  const double cached = ratio(sets(graph(39082, 559722, 15), 64, 72));
  EXPECT_GT(spilled, 1.4);
  EXPECT_GE(cached, 1.0);
  EXPECT_LT(cached, 1.1);
}

}  // namespace
}  // namespace perron::test
