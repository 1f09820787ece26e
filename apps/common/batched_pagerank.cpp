// pagerank --sources / --bench-sources: read the graph and the source sets,
// solve them as one block, write the top vertices per source and the rank
// matrix; or time the block against one single solve per source.
#include "apps/common/batched_pagerank.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>

#include "apps/common/app.hpp"
#include "apps/common/detached_exit.hpp"
#include "apps/common/remembered_count.hpp"
#include "apps/common/timer.hpp"
#include "apps/common/usage.hpp"
#include "core/context_start.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "io/load.hpp"
#include "io/output_file.hpp"
#include "io/sources_file.hpp"
#include "io/synthetic.hpp"
#include "solvers/pagerank_batched.hpp"

namespace perron::app {
namespace {

// The command line's combinations, as usage errors naming the flags.
pagerank_batched_options checked_options(const batched_request& r) {
  if (r.json) throw usage_error("--json is not available with --sources or --bench-sources (TSV output)");
  if (r.bench_sources < 0) throw usage_error("--bench-sources must be at least 1");
  if (r.bench_sources > 0 && !r.output_matrix.empty())
    throw usage_error("--output-matrix writes the ranks of --sources; --bench-sources writes none");
  if (r.bench_sources > 0 && !r.output.empty())  // was silently left unwritten, exit 0
    throw usage_error("--output writes the top ranks of --sources; --bench-sources writes none");
  pagerank_batched_options o;
  o.base = r.opt;
  try {
    o.validate();
  } catch (const invalid_argument& x) {
    throw usage_error(x.what());
  }
  return o;
}

void write_top(const std::string& path, const io::loaded_matrix& graph, const io::source_sets& sets,
               const pagerank_batched_result& res, int top, int digits) {
  io::output_file out(path);
  std::FILE* f = out.get();
  std::fprintf(f, "source_line\tvertex\trank\n");
  const vertex_naming naming = graph.naming();
  for (std::size_t c = 0; c < res.sources; ++c)
    for (index_t i : top_of(res.column(c), res.vertices, top))
      std::fprintf(f, "%llu\t%s\t%.*g\n", static_cast<unsigned long long>(sets.line[c]),
                   naming.field(i).c_str(), digits, res.column(c)[i]);
  out.commit();
}

// Matrix Market array, column-major: column c holds the ranks of set c.
void write_matrix(const std::string& path, const io::source_sets& sets, const pagerank_batched_result& res,
                  const vertex_naming& naming, int digits) {
  io::output_file out(path);
  std::FILE* f = out.get();
  std::fprintf(f, "%%%%MatrixMarket matrix array real general\n");
  std::fprintf(f, "%% personalized PageRank; columns: the source sets on lines");
  for (std::uint64_t line : sets.line) std::fprintf(f, " %llu", static_cast<unsigned long long>(line));
  std::fprintf(f, " of the sources file\n");
  // The rows' vertices: where the file gave its own ids or names, row i is not
  // vertex i (a SNAP list's ids 3..8297 in 7115 rows), and nothing said so.
  // A name as --output writes it: "Kuperman, M" quoted, not read as two.
  const auto n = static_cast<index_t>(res.vertices);
  if (naming.labelled() && n > 0)
    std::fprintf(
        f, "%% rows: the graph's vertices in --output's order, row 1 vertex %s, row %lld vertex %s\n",
        one_line(naming.field(0)).c_str(), static_cast<long long>(n), one_line(naming.field(n - 1)).c_str());
  else
    std::fprintf(f, "%% rows: vertices 1 to %lld\n", static_cast<long long>(n));
  std::fprintf(f, "%lld %zu\n", static_cast<long long>(res.vertices), res.sources);
  io::write_lines(out, res.rank.size(), [&](std::size_t first, std::size_t last, std::string& text) {
    text.reserve((last - first) * 24);
    for (std::size_t k = first; k < last; ++k) {
      io::append_g(text, res.rank[k], digits);
      text += '\n';
    }
  });
  out.commit();
}

std::string device_text(bool gpu) {
  return gpu ? "cuda: " + cuda::device_description(0)
             : "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
}

void print_summary(const batched_request& r, const pagerank_batched_result& res, double load_s,
                   const std::string& why) {
  const auto [lo, hi] = std::minmax_element(res.iterations.begin(), res.iterations.end());
  const auto conv = std::count(res.converged.begin(), res.converged.end(), std::uint8_t(1));
  std::cerr << "pagerank: " << res.sources << " source sets on " << r.graph << " (" << res.vertices
            << " vertices), " << device_text(res.on_gpu) << "\n";
  std::cerr << "pagerank: device " << why << "\n";
  if (res.on_gpu)
    std::cerr << "pagerank: step " << res.step_choice
              << (res.trial_seconds > 0 ? " (trial " + format_g(res.trial_seconds * 1e3, 3) + " ms)" : "")
              << "\n";
  std::cerr << "pagerank: " << conv << " of " << res.sources << " converged, iterations " << *lo << " to "
            << *hi << ", " << res.column_steps << " column-steps, " << res.compactions
            << " compactions, load " << format_g(load_s, 3) << " s, solve " << format_g(res.solve_seconds, 3)
            << " s\n";
}

// A graph without vertices: one error naming the file or spec.
void require_vertices(const std::string& name, const coo_matrix<double>& a) {
  if (a.rows == 0 && a.cols == 0) throw invalid_argument(name + ": the graph is empty (0 vertices)");
}

// ---- the device of --sources (--device auto: solvers/device_choice.hpp) ------------
// As for one solve (apps/pagerank.cpp): the CUDA context starts on a thread
// before the load where the model, on the guessed size, expects the GPU to
// answer first (with the teardown split from the user's wait), and the
// device is decided after the load on the real size. The iterations: the
// mean count a set took in the last batched solve of this setting, kept
// beside the graph's cache entry, else the bound (which leans to the GPU).

// Whether the model decides: --device auto, no CPU kernel, no GPU option named.
bool model_decides(const pagerank_options& o) {
  return o.device == pagerank_device::automatic && o.kernel != spmv_kernel::cpu &&
         gpu_option_named(o).empty();
}

std::pair<std::string, std::string> batched_iterations_key(const batched_request& r) {
  return {std::string("iterations-batched-") + (r.double_precision ? "double" : "float") +
              (r.weighted ? "-weighted" : "") + (r.input.undirected ? "-undirected" : ""),
          "alpha " + format_g(r.opt.alpha, 17) + " tol " + format_g(r.opt.tol, 17) + " iterations "};
}

device_facts batched_facts(const batched_request& r, std::size_t sets) {
  device_facts f = r.facts;
  f.columns = sets;
  const auto [tag, key] = batched_iterations_key(r);
  if (const auto k = remembered_count(r.graph, read_options_for(r.input).cache, tag, key, r.opt.max_iter)) {
    f.iterations = *k;
    f.iterations_known = true;
  }
  return f;
}

// Before the load: start the context now?
bool start_context_first(const batched_request& r, std::size_t sets) {
  const pagerank_options& o = r.opt;
  if (o.device == pagerank_device::cpu || o.kernel == spmv_kernel::cpu) return false;
  if (!model_decides(o)) return true;  // --device cuda, or a GPU kernel named
  if (!r.guessed) return true;         // nothing to guess from: the load will say what is wrong
  device_facts f = batched_facts(r, sets);
  f.exit_detached = detached_exit::possible();  // the split comes with the context
  return estimate_devices(f).choose_gpu;
}

struct batched_device {
  bool gpu = false;
  bool convert_on_gpu = false;
  std::string reason;
};

// After the load: the device, from the graph's size and the context's state.
batched_device decide_device(const batched_request& r, const io::loaded_matrix& graph, std::size_t sets,
                             cuda::context_start& context) {
  device_facts f = batched_facts(r, sets);
  f.vertices = graph.matrix.rows;
  f.links = graph.matrix.nnz();
  f.load_left = 0;
  f.context_started = context.started();
  f.context_ready = context.ready();
  f.context_elapsed = context.elapsed();
  f.exit_detached = detached_exit::active();
  const device_estimate e = estimate_devices(f);
  batched_device d;
  if (!model_decides(r.opt)) {
    d.gpu = pagerank_runs_on_gpu(r.opt);  // throws where the named GPU is missing
    d.reason = std::string(d.gpu ? "cuda" : "cpu") + " (named; auto would take " +
               auto_would_take(e, f.context_ready, context.devices()) + ")";
  } else if (!cuda::built()) {
    d.reason = "auto: perron was built without CUDA";
  } else if (f.context_ready && context.devices() == 0) {
    d.reason = "auto: no usable CUDA device";
  } else {
    d.gpu = e.choose_gpu;
    d.reason = "auto: " + e.reason + (f.context_started ? "" : ", context not started before the load");
  }
  if (d.gpu && !context.started()) context.start();  // comes up while the host converts
  d.convert_on_gpu = d.gpu && e.convert_on_gpu;
  return d;
}

// The mean count a set took, kept for the next run's model.
void remember_batched_iterations(const batched_request& r, const pagerank_batched_result& res) {
  if (!res.all_converged()) return;  // a set --max-iter stopped: its count is no prediction
  const auto [tag, key] = batched_iterations_key(r);
  remember_count(r.graph, read_options_for(r.input).cache, tag, key, res.mean_iterations());
}

template <class T>
int solve_sources(const batched_request& r, pagerank_batched_options opt) {
  stopwatch step;
  // Read whole, first (a pipe too): the model asks how many sets there are.
  const io::sources_text file = io::read_sources_text(r.sources);
  cuda::context_start context;
  if (start_context_first(r, file.sets)) {
    detached_exit::split();  // the driver's teardown after the user's wait
    context.start();
  }
  // A generated graph's sets are read (its vertices are 1..n, known from the
  // spec) and the whole run's memory checked before it is generated: the
  // graph, PageRank's 48 bytes a vertex and link beside it (as for one solve,
  // apps/pagerank.cpp check_host_room_first), and the solve's ranks (as
  // pagerank_batched checks them). rmat:26:10 was generated (seconds, GBs)
  // before the solve refused it. The links are those stored: under
  // --undirected each draw and its mirror (spec_links); counted once, graphs
  // the single solve refused passed here (er:100000:1000000 at 80 MB).
  std::optional<io::source_sets> early;
  if (io::is_synthetic_spec(r.graph)) {
    const io::synthetic_size size = io::synthetic_spec_size(r.graph);
    if (size.vertices > 0) {
      early = io::parse_sources(file, static_cast<index_t>(size.vertices), {});
      const double n = double(size.vertices), m = double(spec_links(size, r.input.undirected));
      const double sets = double(early->sets.size());
      check_host_memory(48.0 * (n + m) + 8.0 * sets * n + 32.0 * std::min(sets, 128.0) * n,
                        "personalized PageRank of " + std::to_string(early->sets.size()) +
                            " source sets on '" + r.graph + "' (" + std::to_string(size.vertices) +
                            " vertices, up to " + spec_links_text(size, r.input.undirected) + " links" +
                            (r.input.undirected ? ", undirected" : "") + ")");
    }
  }
  io::loaded_matrix graph = io::load_matrix(r.graph, read_options_for(r.input));
  require_vertices(r.graph, graph.matrix);
  note_input(r.input, r.graph, graph.format);
  batched_device device = decide_device(r, graph, file.sets, context);
  const auto wait_for_gpu = [&] {  // where the model's GPU has no device after all, the CPU solves
    context.wait();
    if (context.devices() == 0 && model_decides(r.opt))
      device = {false, false, "auto: no usable CUDA device"};
  };
  if (device.convert_on_gpu) wait_for_gpu();
  const pagerank_graph<T> g = naming_input(r.graph, [&] {
    return make_pagerank_graph<T>(graph.matrix, r.weighted, graph.naming(), device.convert_on_gpu);
  });
  const io::source_sets sets =
      early ? std::move(*early) : io::parse_sources(file, g.vertices(), graph.naming());
  if (device.gpu) wait_for_gpu();
  opt.base.device = device.gpu ? pagerank_device::cuda : pagerank_device::cpu;
  const double load_s = step.lap();
  const pagerank_batched_result res = pagerank_batched(g, sets.sets, opt);
  remember_batched_iterations(r, res);
  constexpr int digits = std::numeric_limits<T>::max_digits10;
  io::commit_together files;  // the matrix and the ranks replace their targets, or neither
  if (!r.output_matrix.empty()) write_matrix(r.output_matrix, sets, res, graph.naming(), digits);
  // Standard output holds the matrix with '--output-matrix -': the top of
  // each set went after it there, and the stream read as no Matrix Market file.
  write_top(!r.output.empty()        ? r.output
            : r.output_matrix == "-" ? "/dev/stderr"
                                     : "-",
            graph, sets, res, r.top, digits);
  files.commit();
  print_summary(r, res, load_s, device.reason);
  if (!res.all_converged()) {
    std::cerr << "pagerank: warning: some source sets did not converge within --max-iter "
              << opt.base.max_iter << "\n";
    return not_converged;
  }
  return ok;
}

// ---- --bench-sources ----------------------------------------------------------------

// S sources: the first S sets of --sources, else S distinct random vertices (seed 1).
std::vector<source_set> bench_set(const batched_request& r, index_t n, const vertex_naming& label) {
  if (!r.sources.empty()) {
    auto sets = io::read_sources_file(r.sources, n, label).sets;
    // Fewer sets than asked for: refused, not timed as fewer (the summary's
    // "sources 3" under --bench-sources 5 was the only sign).
    if (sets.size() < static_cast<std::size_t>(r.bench_sources))
      throw usage_error("--bench-sources " + std::to_string(r.bench_sources) + ": " + r.sources + " holds " +
                        std::to_string(sets.size()) + " source set" + (sets.size() == 1 ? "" : "s") +
                        "; ask for at most that many, or leave out --sources to time random vertices");
    if (sets.size() > static_cast<std::size_t>(r.bench_sources))
      sets.resize(static_cast<std::size_t>(r.bench_sources));
    return sets;
  }
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<index_t> vertex(0, n - 1);
  std::vector<source_set> sets(static_cast<std::size_t>(r.bench_sources));
  for (auto& s : sets) s.emplace_back(vertex(rng), 1.0);
  return sets;
}

// The S single solves, one after another, timed as a whole (each solve's
// own wall time summed too). GPU: one solver object of the given pull, built
// and warmed up by one untimed solve before the clock starts.
template <class T>
struct singles_run {
  std::vector<pagerank_result> results;
  double seconds = 0, device_seconds = 0;
  long iterations = 0;
  std::string pull;
};

template <class T>
singles_run<T> singles(const pagerank_graph<T>& g, const std::vector<source_set>& sets,
                       const pagerank_options& base, bool gpu, pagerank_pull pull) {
  std::unique_ptr<pagerank_cuda<T>> solver;
  singles_run<T> run;
  run.pull = "cpu";
  if (gpu) {
    solver = std::make_unique<pagerank_cuda<T>>(g, base.kernel, pull);
    run.pull = solver->kernel_name();
    pagerank_options o = base;
    o.personalization = detail::dense_personalization(sets.front(), g.vertices());
    solver->solve(o);  // warm-up: the loop's CUDA graph is built by the first solve
  }
  stopwatch clock;
  for (const source_set& s : sets) {
    pagerank_options o = base;
    o.personalization = detail::dense_personalization(s, g.vertices());
    run.results.push_back(gpu ? solver->solve(o) : pagerank_cpu(g, o));
    run.device_seconds += run.results.back().device_seconds;
    run.iterations += run.results.back().iterations;
  }
  run.seconds = clock.seconds();
  return run;
}

// The GPU pulls a single solve can run on this graph: the best one is the baseline.
std::vector<pagerank_pull> single_pulls(bool gpu, bool pattern, const pagerank_options& base) {
  if (!gpu) return {pagerank_pull::spmv};
  if (base.pull != pagerank_pull::automatic) return {base.pull};
  if (pattern && !base.kernel) return {pagerank_pull::fused, pagerank_pull::spmv};
  return {pagerank_pull::spmv};
}

template <class T>
pagerank_batched_result timed_batched(const pagerank_graph<T>& g, const std::vector<source_set>& sets,
                                      const pagerank_batched_options& opt, bool gpu, int runs) {
  // GPU: one solver object, built and warmed up before the clock (as the singles' is).
  std::unique_ptr<pagerank_batched_gpu<T>> solver;
  if (gpu) {
    const int want =
        opt.block_columns > 0 ? opt.block_columns : pagerank_batched_gpu_width(g.vertices(), sizeof(T) == 8);
    solver = std::make_unique<pagerank_batched_gpu<T>>(
        g, static_cast<int>(std::min<std::size_t>(sets.size(), static_cast<std::size_t>(want))));
  }
  const auto once = [&] { return gpu ? solver->solve(sets, opt) : pagerank_batched_cpu(g, sets, opt); };
  // warm-up: kernels loaded, clocks up, pages of the process mapped, the
  // automatic step's trial run (its time reported with the median run)
  const double trial_s = once().trial_seconds;
  std::vector<pagerank_batched_result> all;
  for (int i = 0; i < runs; ++i) all.push_back(once());
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.solve_seconds < b.solve_seconds; });
  pagerank_batched_result median = std::move(all[all.size() / 2]);
  median.trial_seconds = trial_s;
  return median;
}

// The largest |batched - single| over every rank.
template <class T>
double max_diff(const pagerank_batched_result& a, const singles_run<T>& singles) {
  double diff = 0;
  for (std::size_t c = 0; c < a.sources; ++c)
    for (index_t i = 0; i < a.vertices; ++i)
      diff = std::max(diff, std::fabs(a.column(c)[i] - singles.results[c].rank[static_cast<std::size_t>(i)]));
  return diff;
}

std::string host_share(const pagerank_batched_result& x) {
  if (!x.on_gpu) return "";
  return "; steps " + format_g(x.step_seconds * 1e3, 3) + " ms on the device; host waits " +
         format_g(x.wait_seconds * 1e3, 3) + " ms, widens " + format_g(x.widen_seconds * 1e3, 3) +
         " ms; mapping " + format_g(x.mapper_seconds * 1e3, 3) + " ms; tail " +
         format_g(x.tail_seconds * 1e3, 3) + " ms; gaps " + format_g(x.gap_seconds * 1e3, 3) + " ms";
}

template <class T>
int bench_sources(const batched_request& r, const pagerank_batched_options& opt) {
  io::loaded_matrix graph = io::load_matrix(r.graph, read_options_for(r.input));
  require_vertices(r.graph, graph.matrix);
  const bool gpu = pagerank_runs_on_gpu(opt.base);
  // Before the sets are made: --bench-sources 2000000000 ended in a bare "out
  // of memory" building them. Each set keeps a rank vector in the batched
  // solves (two, and two more of the CPU's sweep) and the single solves.
  const double sets_bytes = double(r.bench_sources) * (double(sizeof(source_set)) + 48.0);
  check_host_memory(sets_bytes + 40.0 * double(r.bench_sources) * double(graph.matrix.rows),
                    "--bench-sources " + std::to_string(r.bench_sources) + " on " +
                        std::to_string(graph.matrix.rows) + " vertices (the sets and their ranks)");
  const pagerank_graph<T> g = naming_input(
      r.graph, [&] { return make_pagerank_graph<T>(graph.matrix, r.weighted, graph.naming(), gpu); });
  const std::vector<source_set> sets = bench_set(r, g.vertices(), graph.naming());
  pagerank_batched_options never = opt;
  never.compact_every = std::numeric_limits<int>::max() / 2;
  const int repeat = gpu ? 5 : 3;  // a GPU solve takes 0.03-0.3 s: more runs for the median
  const pagerank_batched_result a = timed_batched(g, sets, opt, gpu, repeat);
  const pagerank_batched_result b = timed_batched(g, sets, never, gpu, 1);
  // GPU: the fused step's chunk widths and the two-kernel step's block widths
  // beside the automatic choice, a median of `repeat` solves each. CPU: the
  // narrower instruction sets than the one chosen, one solve each (the chunk
  // widths 4 / 8 / 32 were slower than 16 on both graphs: docs/PERFORMANCE.md;
  // --chunk-columns still picks one).
  std::vector<std::pair<std::string, pagerank_batched_result>> sweep;
  const std::string isa = gpu ? "" : pagerank_batched_cpu_isa(opt.cpu_isa);
  if (!gpu)
    for (const char* other : {"avx2", "default"}) {
      if (isa == other || (isa == "default" && std::string(other) == "avx2")) continue;
      pagerank_batched_options o = opt;
      o.cpu_isa = other;
      sweep.emplace_back(std::string("isa ") + other, timed_batched(g, sets, o, gpu, 1));
    }
  if (gpu && opt.block_columns == 0 && opt.chunk_columns == 0) {
    for (int c = static_cast<int>(16 / sizeof(T)); c <= 64; c *= 2) {  // 64: the automatic block
      pagerank_batched_options o = opt;
      o.step = pagerank_batched_options::step_kind::fused;
      o.chunk_columns = c;
      sweep.emplace_back("fused, chunk " + std::to_string(c), timed_batched(g, sets, o, gpu, repeat));
    }
    for (int w : {8, 16, 32, 64}) {
      if (static_cast<std::size_t>(w) > sets.size()) continue;
      pagerank_batched_options o = opt;
      o.step = pagerank_batched_options::step_kind::two_kernels;
      o.block_columns = w;
      sweep.emplace_back("two kernels, width " + std::to_string(w), timed_batched(g, sets, o, gpu, repeat));
    }
  }
  std::vector<singles_run<T>> runs;
  for (pagerank_pull p : single_pulls(gpu, g.pattern, opt.base))
    runs.push_back(singles(g, sets, opt.base, gpu, p));
  const auto best = std::min_element(runs.begin(), runs.end(),
                                     [](const auto& x, const auto& y) { return x.seconds < y.seconds; });
  std::cout << "graph       " << r.graph << " (" << g.vertices() << " vertices, " << g.links() << " links)\n"
            << "device      " << device_text(gpu) << ", " << (r.double_precision ? "double" : "float") << "\n"
            << "sources     " << sets.size() << ", tol " << format_g(opt.base.tol) << ", alpha "
            << format_g(opt.base.alpha) << "\n"
            << "batched     " << format_g(a.solve_seconds, 4) << " s, median of " << repeat << " (device "
            << format_g(a.device_seconds, 4) << " s; " << a.column_steps << " column-steps, " << a.compactions
            << " compactions, check and compact every " << opt.compact_every << host_share(a) << ")\n"
            << "no compact  " << format_g(b.solve_seconds, 4) << " s (" << b.column_steps
            << " column-steps)\n";
  if (gpu)
    std::cout << "step        " << a.step_choice
              << (a.trial_seconds > 0
                      ? " (trial " + format_g(a.trial_seconds * 1e3, 3) + " ms, in the warm-up solve)"
                      : "")
              << "; block width "
              << (opt.block_columns > 0 ? opt.block_columns
                                        : pagerank_batched_gpu_width(g.vertices(), sizeof(T) == 8))
              << (opt.block_columns == 0 ? " (automatic)" : "") << "\n";
  if (!gpu)
    std::cout << "chunk       "
              << (opt.chunk_columns > 0 ? opt.chunk_columns : static_cast<int>(64 / sizeof(T))) << " columns"
              << (opt.chunk_columns > 0 ? "" : " (automatic: 64 bytes a row)") << "; loops for " << isa
              << "\n";
  for (const auto& [what, x] : sweep)
    std::cout << "  " << what << ": " << format_g(x.solve_seconds, 4) << " s (device "
              << format_g(x.device_seconds, 4) << " s; " << x.column_steps << " column-steps" << host_share(x)
              << "; max |diff| " << format_g(max_diff(x, *best), 3) << ")\n";
  for (const auto& run : runs)
    std::cout << "singles     " << format_g(run.seconds, 4) << " s, pull " << run.pull << " (device "
              << format_g(run.device_seconds, 4) << " s; " << run.iterations << " iterations in all)"
              << (&run == &*best ? " <- baseline" : "") << "\n";
  std::cout << "speedup     " << format_fixed(best->seconds / a.solve_seconds, 2) << "x (compaction gain "
            << format_fixed(b.solve_seconds / a.solve_seconds, 2) << "x)\n";
  if (gpu)
    std::cout << "device only " << format_fixed(best->device_seconds / a.device_seconds, 2)
              << "x (the singles' summed device time over the batched solve's)\n";
  std::cout << "max |diff|  " << format_g(max_diff(a, *best), 3) << " (batched vs singles)\n";
  return ok;
}

}  // namespace

int batched_pagerank(const batched_request& r) {
  const pagerank_batched_options opt = checked_options(r);
  if (r.bench_sources > 0)
    return r.double_precision ? bench_sources<double>(r, opt) : bench_sources<float>(r, opt);
  return r.double_precision ? solve_sources<double>(r, opt) : solve_sources<float>(r, opt);
}

// Indices of the k largest of x[0..n), highest first (ties: lower index first).
std::vector<index_t> top_of(const double* x, index_t n, int k) {
  std::vector<index_t> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  const auto kk = std::min<std::size_t>(static_cast<std::size_t>(k), idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(kk), idx.end(),
                    [&](index_t a, index_t b) { return x[a] > x[b] || (x[a] == x[b] && a < b); });
  idx.resize(kk);
  return idx;
}

}  // namespace perron::app
