// Which device runs a PageRank solve, by predicted end-to-end time.
//
// For a user the question is not which device iterates faster but which one
// answers first. On the H100 machine (16 cores) creating the CUDA context
// takes ~0.24 s and tearing it down at exit ~0.1 s, more than the whole CPU
// run of most graphs; a context that was started and then not used still
// costs that time (the process cannot end while the driver is mid-start-up),
// and its thread slows the CPU's threads meanwhile (docs/PERFORMANCE.md,
// "Device choice"). So the model is asked twice:
//  1. before the load, from estimates of the input's size and load time
//     (input_estimate): start the context only if the GPU may win;
//  2. after the load, from the graph's real size and how far the context
//     has come: which device solves.
// Time each device still needs, from now (K iterations, p OpenMP threads):
//
//   cpu  = load + convert_cpu + K (links t_link(p) + n t_vertex(p) + t_step(p))
//          (a context already under way: max(that, context_left) + exit,
//          unless the exit is detached)
//   cuda = max(load' + convert_cpu, context_left)      the conversion on the host meanwhile,
//          or max(load', context_left) + convert_gpu   or on the device once it is up
//          + setup + t_solve + K max(t_step_gpu, bytes / bandwidth) + exit
//          (exit 0 where the teardown is detached from the user's wait)
//
// with load' the load slowed by the context's thread beside it, and
// t_link(p) = max(t_link_core / p, t_link_memory): the pull scales with
// the cores until the memory bandwidth they share caps it. Every rate is in
// device_rates, with where it was measured.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../core/formats.hpp"

namespace perron {

// Measured rates. The defaults come from the GPU machines' hosts (16 cores):
// the H100's (2026-11-25, nine graphs) and the H200's (session 27, twelve
// graphs, scripts/device-choice-bench.sh: medians of three runs per device;
// docs/PERFORMANCE.md "Device choice, session 27"); for the thread scaling,
// the 2-core development machine.
struct device_rates {
  // ---- CPU (OpenMP): the conversion (P^T from the pattern since session 26,
  // make_pagerank_graph). Mostly serial at 16 threads: 7.9 ns per link on
  // cnr-2000 (3.2 M links), 9.1-9.5 on cage11 and bcsstk33 (0.6 M); 4.4 ns
  // at 2 threads on the development machine.
  double cpu_convert_fixed_s = 0.0008;
  double cpu_convert_serial_ns = 6.5;    // per link
  double cpu_convert_parallel_ns = 5.0;  // per link and thread
  double cpu_convert_vertex_ns = 10.0;   // per vertex (out-degrees, dangling flags, vectors)
  // A generated graph's P^T built in place from the CSR of A^T
  // (pagerank_graph_from_pattern), per link and thread: 16 threads, H200 host,
  // 2.0-2.7 ns per link (rmat:20, er:2000000:20000000, rmat:22, web:4194304).
  double cpu_pattern_convert_ns = 37.0;
  // ---- CPU: one power iteration. The gathers of x decide it: 15 threads
  // (session 47's step, float, H200 host), with 1 ns a vertex, 0.10-0.22 ns
  // per link where x fits in the cores' caches (cnr-2000's 1.3 MB, rmat:18's
  // 1 MB, cage11), 0.33-0.35 at 4 MB (er, powerlaw, rmat:20 of 10^7 links),
  // 0.49 at 8 MB (er:2000000:20000000), 0.44-0.58 at 16 MB (rmat:22, er of
  // 4 * 10^7 links); between them linear in x's bytes (session 27's step:
  // 0.25, 0.47 and 0.68). 2 threads: 0.77 (cnr-2000).
  // A local order gathers nearly as if x were small: of the spill's cost a
  // link within locality_window ids of its row (device_facts::local_links)
  // pays cpu_local_spill, the share that streaming x and the neighbourhood's
  // lines from the outer caches still costs. Session 73, H200 host, 15
  // threads, 34 solves of 2.0 * 10^6 to 2.4 * 10^7 links, 3-100% local
  // (grid, ws, sbm, web, cnr-2000 against er, rmat, cite, powerlaw,
  // dangling, bip): 0.13-0.23 ns a link where 90% or more are local at 4-16
  // MB of x, 0.36-0.71 where under 15% are; least squares on the step's
  // links gave the share 0.25-0.3 (rms error 0.21 in log; 0.41 with no
  // locality, the model before). That lease's random gathers ran 1.2-1.4x
  // this model's floors (leases differ), which were left where they were.
  // The chains of that set (one link a vertex) took 0.62-0.66 ns a vertex
  // with its link: the vertex floor.
  double cpu_link_core_ns = 1.5;           // per link on one thread
  double cpu_link_cached_ns = 0.15;        // per link, the floor of all threads, x in cache
  double cpu_link_memory_ns = 0.55;        // per link, the floor of all threads, x far past it
  double cpu_gather_spill_bytes = 10.0e6;  // x's bytes where gathers reach the memory floor
  double cpu_local_spill = 0.25;           // a local link's share of the spill's cost
  double cpu_vertex_core_ns = 8.0;         // per vertex on one thread (update, residual, dangling mass)
  double cpu_vertex_memory_ns = 0.65;      // per vertex, the floor
  // Per iteration and thread: the parallel region's start and barrier (one a
  // step since session 26, solvers/pagerank_step.hpp): email-Eu-core's 26 k
  // links take 38 us a step at 16 threads.
  double cpu_step_thread_s = 2e-6;

  // ---- GPU: the CUDA context from a cold process: driver start-up 0.105-0.12 s
  // plus the primary context, 0.22-0.26 s together (karate, nothing else running).
  double context_s = 0.24;
  // Tearing the context down when the process ends, where the user waits for
  // it (exit not detached, device_facts::exit_detached): one process against
  // the split run, H200 host, nothing else running, 0.065-0.156 s (median
  // 0.11 over fourteen graphs); earlier, wall time minus the in-process total,
  // 0.12-0.14 s against 0.02 s for CPU runs (H100). The same for a context
  // abandoned half-way.
  double gpu_exit_s = 0.11;
  // The context's thread slows the host work it overlaps (OpenMP's barriers
  // wait for a thread that lost its core to it): loads ran 0.13 s longer on
  // rmat:20 (0.71 s) and 0.025 s on cnr-2000 from the cache (0.02 s) with
  // teams of every core; with a core left to the machine (process_team,
  // session 47) 0.005-0.025 s over 0.07-0.32 s of overlap (cnr-2000 to
  // rmat:22:40000000, H200 host).
  double context_slowdown = 0.15;  // extra seconds per second of overlap
  // ---- GPU: the conversion on the device (upload the COO, sort, download,
  // values on the host): rmat:20 0.25-0.31 s, no faster than the host's.
  double gpu_convert_fixed_s = 0.005;
  double gpu_convert_link_ns = 30.0;
  // ---- GPU: setup (pagerank_cuda: upload P^T or its pattern, relabel or
  // kernel trial; the layout trials remembered), the transfer phase of a run
  // from the binary cache, medians of three (H200 host, session 47): 9.8-18
  // ms for graphs of 156 to 559722 links, cnr-2000 21 ms, 3.3-4.9 ns a link
  // from 10^7 links (rmat:20 37 ms, web:1048576:16777216 49 ms, er and
  // rmat:22 of 4 * 10^7 links 163-165 ms). Session 27's were 4 ms and 4.8 ns.
  // Session 73 (the same host, 34 runs of 17 graphs of 2.5 * 10^5 to 4 *
  // 10^6 vertices): the vertices, not the links, set it past 10^6 of them;
  // a chain of 4 * 10^6 vertices and links took 120-137 ms (the model of
  // session 47: 25), one of 10^6 58-98, a grid of 10^6 vertices and 4 * 10^6
  // links 73-101, er of 10^6 vertices and 10^7 links 43-59, er of 2 * 10^6
  // and 2 * 10^7 98-107; least squares with the small graphs' 12 ms and
  // session 47's 4 * 10^7-link graphs: 27.5 ns a vertex, 1.15 a link.
  double gpu_setup_fixed_s = 0.012;
  double gpu_setup_vertex_ns = 27.5;
  double gpu_setup_link_ns = 1.15;
  // ---- GPU: the layout trials (the fused pull's hub sizes, the persistent
  // pull's modes), where no record of them is kept (device_facts::
  // layout_trials): 0-6 ms on 13 of those 17 graphs, 9-12 on the grid of
  // 10^6 vertices, 20-21 on dangling:1000000:5000000:0.8. (The pull trial of a
  // file's first run, 144-151 ms on cnr-2000, is not modelled: one run pays it.)
  double gpu_trial_fixed_s = 0.002;
  double gpu_trial_link_ns = 0.3;
  // ---- GPU: the solve (graph instantiation, the ranks' download and
  // widening) besides its steps: 0.6-1.9 ns a vertex now (4 * 10^6 vertices
  // in 4.3-5.2 ms with 11 steps, 10^6 in 1.7-2.4 ms; session 47), where the
  // receive took 15 ns a vertex in session 27.
  double gpu_solve_fixed_s = 0.0005;
  double gpu_vertex_ns = 1.5;
  double gpu_step_s = 8e-6;       // per iteration, at least (a small graph's latency)
  double gpu_bandwidth = 1.5e12;  // bytes per second one iteration streams, as achieved

  // ---- Loading, for the estimate before it (input_estimate)
  double cache_bytes_per_s = 2e9;  // binary cache: cnr-2000's 26 MB in 10-26 ms
  double text_bytes_per_s = 1e9;   // Matrix Market / SNAP text, parallel parse
  double gz_bytes_per_s = 5e7;     // .gz: compressed bytes (cnr-2000: 7.8 MB, gunzip + parse 0.19 s)
  // Per draw and thread, generating (io/synthetic.cpp, parallel since issue 18), by
  // generator: H200 host, 15 threads, session 47 (er of 10^7-4 * 10^7 draws 83-85 ns,
  // rmat:20 and rmat:22 132-133, web:1048576:16777216 181, powerlaw:1000000:10000000
  // 238); the others at 160 (rmat:22/24/26 at edge factor 16 took 0.64 / 2.59 / 11.2 s
  // at 16 threads on the H100 host). With one rate of 160 er:2000000:20000000's load
  // was guessed twice too long and its context started for nothing (auto 1.13x the CPU).
  // Session 61, the same host and threads, 4 * 10^7 draws: er 0.224 s (84 ns), ws:N:10:0.05
  // 0.183 s (69), cite:N:M 0.327 s (123; its copies walk back up to 1 / (1 - COPY) draws:
  // COPY 0.8 took 247). Session 62, 4 * 10^7 draws, three runs each, against
  // er's in the same run (0.186-0.193 s, read as 84 ns): sbm:N:M:K[:MU]
  // 0.209-0.230 s (101: one more draw a link, for its block), bip:U:I:M
  // 0.773-0.788 s (345: each end a power-law rank and a shuffle, drawn for
  // both of an interaction's arcs).
  double synthetic_link_ns = 160.0;
  double synthetic_ws_ns = 69.0;
  double synthetic_cite_ns = 123.0;
  double synthetic_er_ns = 84.0;
  double synthetic_rmat_ns = 132.0;
  double synthetic_web_ns = 181.0;
  double synthetic_powerlaw_ns = 238.0;
  double synthetic_sbm_ns = 101.0;
  double synthetic_bip_ns = 345.0;

  // ---- Batched personalized PageRank (device_facts::columns > 0; the step of
  // solvers/pagerank_batched.hpp). H200 host, 15 threads, seven graphs of
  // 3.7 * 10^4 to 10^7 links at 1-256 single-vertex source sets, and the
  // 2-core development machine (scripts/batched-device-bench.sh;
  // docs/PERFORMANCE.md "`pagerank --sources` and `pagerank_batched` by the device model (session 72)").
  // CPU: blocks of 128 columns, each cut into chunks of one 64-byte line of R
  // (16 floats, 8 doubles); a step gathers a line a link from a chunk's n x 64
  // bytes, so the cost of a column a link falls with the chunk's fill and
  // rises as n x 64 bytes outgrow the caches (spill over cpu_batched_spill_bytes):
  // cage11 and ca-AstroPh 0.035-0.041 ns (2.5 and 1.1 MB), cnr-2000 0.042 (21 MB,
  // local), er:1000000:10000000 0.114 (64 MB); one thread 1.46 there (0.37 at
  // cnr-2000 on the 2-core machine), 4 threads 0.45, 8 threads 0.20; a second
  // lease measured 0.05-0.06 on the small graphs (leases differ by up to 50%).
  // Double: a chunk of 8 columns, twice the lines a column: by column-steps
  // 0.167-0.176 ns on er (1.5x float), 1.0-1.2x on cnr-2000, cage11 and
  // ca-AstroPh, whose chunks stay nearer: cpu_batched_double where the chunk
  // spills, 1 where it does not.
  int cpu_batched_block = 128;
  double cpu_batched_link_core_ns = 0.37;         // per column and link, one thread, R's chunk in cache
  double cpu_batched_link_core_memory_ns = 1.46;  // the same, the chunk far past the caches
  double cpu_batched_link_cached_ns = 0.035;      // the floor of all threads, in cache
  double cpu_batched_link_memory_ns = 0.115;      // the floor of all threads, far past
  double cpu_batched_spill_bytes = 64e6;
  double cpu_batched_vertex_core_ns = 1.0;  // per column and vertex (the update, the residual), one thread
  double cpu_batched_vertex_ns = 0.1;       // the floor (wb-cs-stanford at 256 sets: 0.19 with its barriers)
  double cpu_batched_double = 1.5;          // a double column's cost over a float one's, spilled
  // GPU: blocks of 64 columns (pagerank_batched_gpu_width), a step of a block
  // costs a launch and check (karate at 256 sets: 25 us a block-step), one
  // read of P^T (cnr-2000 and er at one set: 19 ps a link), and per column a
  // row of R gathered a link (0.7 ps on cnr-2000's local links, 1.2 on cage11,
  // 2.6 on er:1000000:10000000 whose block of R, 256 MB, is far past L2) and
  // the update's n values; the ranks of every set come back widened to double
  // on the host. Double: 1.6-1.8x a column's float time.
  int gpu_batched_block = 64;
  double gpu_batched_step_s = 25e-6;
  double gpu_batched_graph_ns = 0.019;        // per link and block-step
  double gpu_batched_link_cached_ns = 0.001;  // per column and link, the block of R in L2
  double gpu_batched_link_memory_ns = 0.0026;
  double gpu_l2_bytes = 50e6;
  double gpu_batched_vertex_ns = 0.005;  // per column and vertex
  double gpu_batched_result_ns = 0.4;    // per column and vertex: the ranks' download and widening
  double gpu_batched_double = 1.7;
};

// What the choice is made from.
struct device_facts {
  index_t vertices = 0;
  std::size_t links = 0;          // arcs as loaded (duplicates not yet merged)
  int value_bytes = 4;            // float 4, double 8
  bool pattern = true;            // unweighted: the GPU pulls over the pattern alone (4 bytes per link)
  int threads = 1;                // omp_get_max_threads()
  int iterations = 1;             // expected (expected_iterations, or the last solve's count)
  bool iterations_known = false;  // iterations is the last solve's count
  bool from_pattern = false;      // generated as the CSR of A^T: converted in place on the host
  // The fraction of links (i, j) with |i - j| < locality_window in the order
  // the CPU solves in (kernels/reorder.hpp local_fraction; 0: unknown, taken
  // as random). A CPU step's gathers of those links hit the core's caches
  // whatever x's size.
  double local_links = 0;
  // A graph already in memory (solvers/pagerank_device.hpp): nothing to
  // load; P^T built already (converted) or next, in place on the host, for
  // either device.
  bool in_memory = false;
  bool converted = false;
  // The GPU's set-up times its layouts (the pull trial, the fused pull's hub
  // sizes, the persistent pull's modes): no record of them kept beside the
  // cache entry by an earlier GPU run (a first run, --pull-trial off, a graph
  // in memory).
  bool layout_trials = false;
  // Batched personalized PageRank (pagerank --sources, perron.pagerank_batched):
  // the number of source sets, each a column of the block that iterates (0:
  // one solve). iterations is then each set's count (the bound, as for one).
  std::size_t columns = 0;
  double load_left = 0;  // seconds of loading still ahead (before the load: its estimate)
  // The CUDA context: not started, under way for context_elapsed s, or ready.
  bool context_started = false;
  bool context_ready = false;
  double context_elapsed = 0;
  // The context's teardown runs after the user's wait (the app's detached
  // exit, apps/common/detached_exit.hpp): a GPU run then ends as a CPU run
  // does, and a context started but not used costs nothing at the end.
  bool exit_detached = false;
};

struct device_estimate {
  double cpu_convert = 0, cpu_solve = 0, cpu = 0;  // seconds from now, on the CPU
  double context_left = 0, gpu_convert = 0, gpu_setup = 0, gpu_solve = 0, gpu = 0;  // on the GPU
  bool convert_on_gpu = false;  // for a GPU run: convert there (else on the host, during the wait)
  bool choose_gpu = false;      // gpu < cpu
  std::string reason;           // "predicted cpu 0.021 s, cuda 0.31 s (0.27 s of it the CUDA context)"
};

// Iterations expected to reach tol: the L1 change contracts at least by
// alpha per step from at most 2, so K = log(tol / 2) / log(alpha), within
// [1, max_iter]. An upper bound: the nine graphs measured stopped after 0.18
// to 0.68 of it (rmat:20 18 against 90), which errs towards the device whose
// iterations are cheaper (docs/PERFORMANCE.md, "Device choice").
int expected_iterations(double alpha, double tol, int max_iter);

// The prediction and the choice (one place: --device auto before and after
// the load, and where a GPU run converts, all read it).
device_estimate estimate_devices(const device_facts& f, const device_rates& r = {});

// What --device auto would have done, for a run whose device was named: "cuda: predicted ...",
// or where the context came up with no device "cpu: no usable CUDA device". A
// context not started (--device cpu starts none) leaves it unknown whether a GPU is
// there: "cuda, if a CUDA device is usable: predicted ...".
std::string auto_would_take(const device_estimate& e, bool context_ready, int devices);

// Before the load: the graph's size and load time guessed from what the input
// is, for estimate_devices. kind: what the bytes are (transposed: a kept CSR
// of A^T, about 4.4 bytes a link with its row pointers at 10 links a vertex).
enum class input_kind { cache, transposed, text, gz, synthetic };
struct input_guess {
  std::size_t links = 0;
  index_t vertices = 0;
  double load_seconds = 0;
};
// bytes: the file's size (cache, text, gz); synthetic: links and vertices of
// the spec (bytes unused) and its generator (`family`: rmat, er, web, ...).
// A cache entry holds 8 bytes per link (pattern) or 16; text about 12 bytes
// per link, .gz about a quarter of that: the guesses lean high, so that the
// context is started when in doubt.
input_guess guess_input(input_kind kind, std::uint64_t bytes, std::size_t links, index_t vertices,
                        int threads, const device_rates& r = {}, std::string_view family = {});

}  // namespace perron
