// device automatic for a graph in memory (solvers/pagerank_device.hpp).
#include "solvers/pagerank_device.hpp"

#include <omp.h>

#include <map>
#include <mutex>
#include <tuple>

#include "core/device.hpp"
#include "kernels/reorder.hpp"
#include "solvers/device_choice.hpp"

namespace perron {
namespace {

// The iterations of this process's last solve of a graph of that size and
// setting: the one fact the model cannot see in the size (the bound,
// expected_iterations, is 1.5-8x the count), kept as the command line keeps
// it beside the cache entry. Not for personalized or warm-started solves.
struct iterations_key {
  index_t n;
  std::size_t links;
  double alpha, tol;
  int max_iter, accelerate, value_bytes;
  bool batched;  // pagerank_batched: the mean count a set took
  bool operator<(const iterations_key& o) const {
    return std::tie(n, links, alpha, tol, max_iter, accelerate, value_bytes, batched) <
           std::tie(o.n, o.links, o.alpha, o.tol, o.max_iter, o.accelerate, o.value_bytes, o.batched);
  }
};
std::mutex iterations_mutex;
std::map<iterations_key, int> last_iterations;
constexpr std::size_t most_remembered = 4096;

std::optional<iterations_key> key_of(const pagerank_options& opt, const in_memory_graph& g) {
  if (!opt.personalization.empty() || !opt.initial.empty()) return std::nullopt;
  return iterations_key{g.vertices,          g.links,       opt.alpha,    opt.tol, opt.max_iter,
                        int(opt.accelerate), g.value_bytes, g.columns > 0};
}

}  // namespace

template <class T>
in_memory_graph in_memory_graph_of(const pagerank_graph<T>& g, std::size_t columns, bool locality) {
  in_memory_graph m;
  m.vertices = g.vertices();
  m.links = g.links();
  m.value_bytes = sizeof(T);
  m.pattern = g.pattern;
  if (locality) m.local_links = local_fraction(g.pt);
  m.columns = columns;
  m.converted = true;
  return m;
}

bool device_left_to_model(const pagerank_options& opt) {
  return opt.device == pagerank_device::automatic && opt.kernel != spmv_kernel::cpu &&
         gpu_option_named(opt).empty();
}

device_decision decide_device(const pagerank_options& opt, const in_memory_graph& g) {
  if (!device_left_to_model(opt)) {
    const bool gpu = pagerank_runs_on_gpu(opt);  // throws for a named GPU that is missing
    const std::string named = gpu_option_named(opt);
    return {gpu, opt.device != pagerank_device::automatic ? "device " + std::string(name(opt.device))
                 : !named.empty()                         ? "auto: " + named + " runs on the GPU"
                                                          : "kernel cpu"};
  }
  if (!cuda::built()) return {false, "auto: perron was built without CUDA"};
  device_facts f;
  f.vertices = g.vertices;
  f.links = g.links;
  f.value_bytes = g.value_bytes;
  f.pattern = g.pattern;
  f.threads = omp_get_max_threads();
  f.columns = g.columns;
  f.local_links = g.local_links;
  f.in_memory = true;
  f.converted = g.converted;
  f.layout_trials = true;  // nothing keeps them for a graph in memory
  f.iterations = expected_iterations(opt.alpha, opt.tol, opt.max_iter);
  if (const auto key = key_of(opt, g)) {
    const std::lock_guard<std::mutex> lock(iterations_mutex);
    if (const auto it = last_iterations.find(*key); it != last_iterations.end()) {
      f.iterations = it->second;
      f.iterations_known = true;
    }
  }
  // Where this process has used the GPU its primary context is up (it lives
  // until the process ends), and the choice does not pay for it again.
  f.context_started = f.context_ready = cuda::context_up();
  // A first GPU call in a process costs more than the command line's context
  // (0.24 s, created there beside the load): 0.31-0.33 s over the CPU's call
  // on wiki-Vote (10^5 links) and rmat:18:2500000, fresh processes, H200 host,
  // the driver's start-up, the context and the first launches, with nothing
  // to overlap them.
  device_rates rates;
  rates.context_s = 0.32;
  const device_estimate e = estimate_devices(f, rates);
  if (!e.choose_gpu) return {false, "auto: " + e.reason};
  if (!cuda::available()) return {false, "auto: no usable CUDA device"};
  return {true, "auto: " + e.reason};
}

void remember_solve(const pagerank_options& opt, const in_memory_graph& g, int iterations) {
  const auto key = key_of(opt, g);
  if (!key || iterations <= 0) return;
  const std::lock_guard<std::mutex> lock(iterations_mutex);
  if (last_iterations.size() >= most_remembered) last_iterations.clear();
  last_iterations[*key] = iterations;
}

template in_memory_graph in_memory_graph_of<float>(const pagerank_graph<float>&, std::size_t, bool);
template in_memory_graph in_memory_graph_of<double>(const pagerank_graph<double>&, std::size_t, bool);

}  // namespace perron
