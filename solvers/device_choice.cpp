// The end-to-end device model of solvers/device_choice.hpp.
#include "solvers/device_choice.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/context_start.hpp"
#include "core/device.hpp"
#include "core/text.hpp"

namespace perron {

int expected_iterations(double alpha, double tol, int max_iter) {
  max_iter = std::max(max_iter, 1);
  // alpha = 0: r_1 = v, and the second step changes nothing.
  if (!(alpha > 0.0) || !(tol > 0.0)) return std::min(2, max_iter);
  if (tol >= 2.0) return 1;
  const double k = std::ceil(std::log(tol / 2.0) / std::log(alpha));
  return static_cast<int>(std::clamp(k, 1.0, static_cast<double>(max_iter)));
}

namespace {

double ns(double x) { return x * 1e-9; }

// Seconds the host conversion takes (make_pagerank_graph on the CPU).
double cpu_convert_seconds(const device_facts& f, const device_rates& r, double p) {
  return r.cpu_convert_fixed_s +
         ns(double(f.links) * (r.cpu_convert_serial_ns + r.cpu_convert_parallel_ns / p) +
            double(f.vertices) * r.cpu_convert_vertex_ns);
}

// One CPU power iteration: the pull scales with the threads until the memory
// system that all of them share caps it, at a floor that rises with x's
// bytes (gathers that hit the caches, then ones that miss), for the links
// that leave their row's neighbourhood.
double cpu_step_seconds(const device_facts& f, const device_rates& r, double p) {
  const double far = 1.0 - std::clamp(f.local_links, 0.0, 1.0);
  const double spill = (r.cpu_local_spill + (1.0 - r.cpu_local_spill) * far) *
                       std::min(1.0, double(f.vertices) * f.value_bytes / r.cpu_gather_spill_bytes);
  const double floor = r.cpu_link_cached_ns + spill * (r.cpu_link_memory_ns - r.cpu_link_cached_ns);
  const double link = std::max(r.cpu_link_core_ns / p, floor);
  const double vertex = std::max(r.cpu_vertex_core_ns / p, r.cpu_vertex_memory_ns);
  return ns(double(f.links) * link + double(f.vertices) * vertex) + r.cpu_step_thread_s * p;
}

// Bytes one GPU iteration streams: P^T's columns (and values for the SpMV
// pull), row pointers, and about five vectors of n values (x, y, r, v, mask).
double gpu_step_bytes(const device_facts& f) {
  const double per_link = f.pattern ? 4.0 : 4.0 + f.value_bytes;
  return double(f.links) * per_link + double(f.vertices) * (4.0 + 5.0 * f.value_bytes);
}

std::string seconds_text(double s) { return format_g(s, 2) + " s"; }

// Batched personalized PageRank: the seconds of every column's K steps, in
// blocks as the solvers cut them (every column taken to run all K steps: a
// bound, as K is). A CPU block of k columns reads P^T once a step in chunks
// of 64 bytes of R a row; a narrower chunk costs at least a single step.
double cpu_batched_seconds(const device_facts& f, const device_rates& r, double p, double k_steps) {
  const double chunk_bytes = 64.0;
  const double spill = std::min(1.0, double(f.vertices) * chunk_bytes / r.cpu_batched_spill_bytes);
  const auto lerp = [&](double a, double b) { return a + spill * (b - a); };
  // A double chunk holds 8 columns, so a column gathers twice the lines: that
  // costs where the lines come from memory, hardly where they stay in cache.
  const double precision = f.value_bytes == 8 ? 1.0 + spill * (r.cpu_batched_double - 1.0) : 1.0;
  const double link =
      precision * std::max(lerp(r.cpu_batched_link_core_ns, r.cpu_batched_link_core_memory_ns) / p,
                           lerp(r.cpu_batched_link_cached_ns, r.cpu_batched_link_memory_ns));
  const double vertex = precision * std::max(r.cpu_batched_vertex_core_ns / p, r.cpu_batched_vertex_ns);
  const double single_link = cpu_step_seconds(f, r, p) - r.cpu_step_thread_s * p;  // one column's single step
  const std::size_t per_chunk =
      static_cast<std::size_t>(chunk_bytes) / static_cast<std::size_t>(f.value_bytes);
  double step = 0;  // all blocks' steps, one each
  for (std::size_t left = f.columns; left > 0;) {
    const std::size_t k =
        std::min<std::size_t>(left, static_cast<std::size_t>(std::max(r.cpu_batched_block, 1)));
    left -= k;
    double block = r.cpu_step_thread_s * p;
    for (std::size_t c = 0; c < k; c += per_chunk) {
      const double w = double(std::min(per_chunk, k - c));
      block += std::max(single_link, ns(w * (double(f.links) * link + double(f.vertices) * vertex)));
    }
    step += block;
  }
  return k_steps * step;
}

// The GPU's: a block's step is a launch, a read of P^T and per column a row
// of R gathered a link; then every set's ranks come back (widened on the host).
double gpu_batched_seconds(const device_facts& f, const device_rates& r, double k_steps) {
  const double width = std::max(r.gpu_batched_block, 1);
  const double blocks = std::ceil(double(f.columns) / width);
  const double block_bytes = double(f.vertices) * std::min(double(f.columns), width) * f.value_bytes;
  const double spill = std::min(1.0, block_bytes / r.gpu_l2_bytes);
  const double precision = f.value_bytes == 8 ? r.gpu_batched_double : 1.0;
  const double column =
      precision *
      ns(double(f.links) * (r.gpu_batched_link_cached_ns +
                            spill * (r.gpu_batched_link_memory_ns - r.gpu_batched_link_cached_ns)) +
         double(f.vertices) * r.gpu_batched_vertex_ns);
  const double block_step = r.gpu_batched_step_s + ns(double(f.links) * r.gpu_batched_graph_ns);
  return r.gpu_solve_fixed_s + k_steps * (blocks * block_step + double(f.columns) * column) +
         ns(double(f.vertices) * double(f.columns) * r.gpu_batched_result_ns);
}

}  // namespace

device_estimate estimate_devices(const device_facts& f, const device_rates& r) {
  device_estimate e;
  const double p = std::max(f.threads, 1);
  const double k = std::max(f.iterations, 1);
  const double load = std::max(f.load_left, 0.0);
  // A generated graph comes as the CSR of A^T and becomes P^T in place on the
  // host, whichever device solves (apps/pagerank.cpp convert_for).
  e.cpu_convert = f.in_memory && f.converted ? 0.0
                  : f.from_pattern || f.in_memory
                      ? r.cpu_convert_fixed_s + ns(double(f.links) * r.cpu_pattern_convert_ns / p)
                      : cpu_convert_seconds(f, r, p);
  e.cpu_solve = f.columns > 0 ? cpu_batched_seconds(f, r, p, k) : k * cpu_step_seconds(f, r, p);

  // What is left of the context's creation: all of it when not started, the
  // rest of the expected time when under way (at least a little: it has not
  // finished), nothing when ready.
  if (!f.context_started)
    e.context_left = r.context_s;
  else if (!f.context_ready)
    e.context_left = std::max(r.context_s - f.context_elapsed, 0.02 * r.context_s);

  // A started context is paid for either way, unless the exit is detached:
  // the process ends only after the driver's start-up, and then tears the
  // context down.
  e.cpu = load + e.cpu_convert + e.cpu_solve;
  if (f.context_started && !f.exit_detached) e.cpu = std::max(e.cpu, e.context_left) + r.gpu_exit_s;

  // (For a generated graph the GPU run converts on the host too: the same time.)
  const bool on_host = f.from_pattern || f.in_memory;
  e.gpu_convert =
      on_host ? e.cpu_convert : r.gpu_convert_fixed_s + ns(double(f.links) * r.gpu_convert_link_ns);
  e.gpu_setup = r.gpu_setup_fixed_s +
                ns(double(f.vertices) * r.gpu_setup_vertex_ns + double(f.links) * r.gpu_setup_link_ns);
  if (f.layout_trials && f.columns == 0)
    e.gpu_setup += r.gpu_trial_fixed_s + ns(double(f.links) * r.gpu_trial_link_ns);
  e.gpu_solve = f.columns > 0 ? gpu_batched_seconds(f, r, k)
                              : r.gpu_solve_fixed_s + ns(double(f.vertices) * r.gpu_vertex_ns) +
                                    k * std::max(r.gpu_step_s, gpu_step_bytes(f) / r.gpu_bandwidth);
  // The context comes up during the load; the conversion runs on the host
  // meanwhile, or on the device once the context is there: whichever ends first.
  const double slowed = load + r.context_slowdown * std::min(load, e.context_left);
  const double host_first = std::max(slowed + e.cpu_convert, e.context_left);
  const double device_first =
      on_host ? std::numeric_limits<double>::infinity() : std::max(slowed, e.context_left) + e.gpu_convert;
  e.convert_on_gpu = device_first < host_first;
  e.gpu =
      std::min(host_first, device_first) + e.gpu_setup + e.gpu_solve + (f.exit_detached ? 0 : r.gpu_exit_s);

  e.choose_gpu = e.gpu < e.cpu;
  e.reason = "predicted cpu " + seconds_text(e.cpu) + ", cuda " + seconds_text(e.gpu);
  if (e.context_left > 0) e.reason += " (" + seconds_text(e.context_left) + " of it the CUDA context)";
  e.reason += " for " + std::to_string(f.iterations) +
              (f.iterations_known ? " iterations (the last solve's)" : " iterations (the bound)");
  if (f.columns > 0) e.reason += " of " + std::to_string(f.columns) + " source sets";
  // A CUDA build on a machine without an NVIDIA device still predicts (the
  // nodes alone decide nothing: core/context_start.hpp), but says what it sees, so a
  // run that takes the CPU does not read as if a GPU were there.
  if (cuda::built() && !cuda::device_node_present())
    e.reason += "; this machine shows no NVIDIA device (/dev/nvidiactl)";
  return e;
}

std::string auto_would_take(const device_estimate& e, bool context_ready, int devices) {
  if (!cuda::built()) return "cpu: perron was built without CUDA";  // no prediction for a GPU it cannot use
  if (context_ready && devices == 0) return "cpu: no usable CUDA device";
  if (!e.choose_gpu) return "cpu: " + e.reason;
  return std::string(context_ready ? "cuda" : "cuda, if a CUDA device is usable") + ": " + e.reason;
}

input_guess guess_input(input_kind kind, std::uint64_t bytes, std::size_t links, index_t vertices,
                        int threads, const device_rates& r, std::string_view family) {
  input_guess g;
  const double b = double(bytes);
  switch (kind) {
    case input_kind::cache:
      g.links = static_cast<std::size_t>(b / 8.0);
      g.load_seconds = b / r.cache_bytes_per_s;
      break;
    case input_kind::transposed:
      g.links = static_cast<std::size_t>(b / 4.4);
      g.load_seconds = b / r.cache_bytes_per_s;
      break;
    case input_kind::text:
      g.links = static_cast<std::size_t>(b / 12.0);
      g.load_seconds = b / r.text_bytes_per_s;
      break;
    case input_kind::gz:
      g.links = static_cast<std::size_t>(b / 2.5);
      g.load_seconds = b / r.gz_bytes_per_s;
      break;
    case input_kind::synthetic: {
      g.links = links;
      g.vertices = vertices;
      const double draw_ns = family == "ws"         ? r.synthetic_ws_ns
                             : family == "er"       ? r.synthetic_er_ns
                             : family == "cite"     ? r.synthetic_cite_ns
                             : family == "rmat"     ? r.synthetic_rmat_ns
                             : family == "web"      ? r.synthetic_web_ns
                             : family == "powerlaw" ? r.synthetic_powerlaw_ns
                             : family == "sbm"      ? r.synthetic_sbm_ns
                             : family == "bip"      ? r.synthetic_bip_ns
                                                    : r.synthetic_link_ns;
      g.load_seconds = ns(double(links) * draw_ns / std::max(threads, 1));
      return g;
    }
  }
  g.vertices = static_cast<index_t>(std::min<std::size_t>(g.links / 10 + 1, 2'000'000'000));
  return g;
}

}  // namespace perron
