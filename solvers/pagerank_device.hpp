// device automatic for a graph already in memory: the library's pagerank()
// and pagerank_batched(), and the Python module, ask the end-to-end model of
// solvers/device_choice.hpp which device answers first. (The command line
// asks the same model itself, before and after its load: apps/pagerank.cpp
// plan_device.) Before, automatic took a usable GPU whatever the graph: on the
// H200 host a call there took 6-21 ms on 13 of the 14 shared graphs, which the
// CPU solved in 0.1-7.7 ms, and a process's first GPU call 0.3 s more
// (docs/PERFORMANCE.md, "perron against networkx from Python").
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "../core/formats.hpp"
#include "pagerank.hpp"

namespace perron {

// What the choice reads of the graph: cheap facts, taken before the solve.
struct in_memory_graph {
  index_t vertices = 0;
  std::size_t links = 0;
  int value_bytes = 4;      // sizeof(T)
  bool pattern = true;      // unweighted: a pattern pull may run on the GPU
  double local_links = 0;   // kernels/reorder.hpp local_fraction of P^T (or A^T)
  std::size_t columns = 0;  // pagerank_batched's source sets (0: one solve)
  bool converted = true;    // P^T built (else the host builds it next, for either device)
};
// locality: measure local_links (a sample of P^T, about a millisecond at
// 10^7 links); else 0, for a choice that does not ask the model.
template <class T>
in_memory_graph in_memory_graph_of(const pagerank_graph<T>& g, std::size_t columns = 0, bool locality = true);

struct device_decision {
  bool gpu = false;
  std::string reason;  // "auto: predicted cpu 0.004 s, cuda 0.33 s (...)", "device cuda", ...
};

// Whether automatic is left to the model: device automatic, no GPU kernel or
// pull named, kernel not cpu.
bool device_left_to_model(const pagerank_options& opt);

// The device for opt on g. Automatic (device_left_to_model): the model, with
// this process's CUDA context taken as up where it has used the GPU
// (cuda::context_up) and else as costing its creation and first launches,
// the layout trials run again (nothing keeps them for a graph in memory) and
// the iterations of this process's last solve of a graph of that size and
// setting (remember_solve) or else the bound. The GPU only where the model
// says so and a device is usable (asked only then: the driver's start-up
// alone is 0.1 s). Otherwise as pagerank_runs_on_gpu (cuda_error for a named
// GPU that is missing).
device_decision decide_device(const pagerank_options& opt, const in_memory_graph& g);

// What decide_device learns from a solve of the default start (no
// personalization, no initial vector): the count it took (for
// pagerank_batched, the mean a set took). Kept for the process, at most 4096
// settings.
void remember_solve(const pagerank_options& opt, const in_memory_graph& g, int iterations);

}  // namespace perron
