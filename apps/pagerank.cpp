// pagerank: PageRank of a graph file (Matrix Market or SNAP edge list) on the
// GPU or the CPU, with a summary, the top-ranked vertices, optional TSV/JSON
// output, and a benchmark mode (--bench) against a naive cuSPARSE baseline.
#include "solvers/pagerank.hpp"

#include <omp.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "apps/common/app.hpp"
#include "apps/common/batched_pagerank.hpp"
#include "apps/common/input_options.hpp"
#include "apps/common/progress.hpp"
#include "apps/common/svg_plot.hpp"
#include "apps/common/timer.hpp"
#include "apps/common/usage.hpp"
#include "bench/pagerank_suite.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "io/load.hpp"
#include "io/output_file.hpp"
#include "io/vector_file.hpp"
#include "solvers/dist/pagerank_dist.hpp"

namespace po = boost::program_options;

namespace perron::app {
namespace {

// The command line: the solver's options (defaults and checks in
// pagerank_options) and what only the app has.
struct settings {
  std::string graph;
  pagerank_options opt;
  std::string precision = "float";
  bool weighted = false;
  std::string personalize, initial, output, plot;
  std::shared_ptr<dist::session> dist;  // set under mpirun with more than one rank
  int top = 10;
  bool json = false;
  bool bench = false;
  int bench_runs = 100;
  app::input_settings input;
  app::batched_request batched;  // --sources, --output-matrix, --bench-sources (the batched mode)
};

const char* usage_text =
    "Usage: pagerank [options] GRAPH\n"
    "\n"
    "PageRank of the directed graph in GRAPH by power iteration, on the GPU when one\n"
    "is available, else on the CPU (OpenMP). Prints a summary and the top-ranked\n"
    "vertices.\n"
    "\n"
    "GRAPH is a Matrix Market file (.mtx, .mtx.gz; entry (i, j) is the arc i -> j;\n"
    "symmetric files are undirected graphs), a SNAP edge list (.txt, .txt.gz;\n"
    "'from to' pairs, 0-based ids need not be contiguous), or a synthetic spec such\n"
    "as rmat:20:10000000. Arcs are unweighted unless --weighted; self loops count.\n"
    "Vertices are named as in the file: 1-based for Matrix Market, the original ids\n"
    "for SNAP.\n"
    "\n"
    "The iteration is r <- alpha P^T r + (alpha * dangling mass + 1 - alpha) v, with\n"
    "P = D^-1 A and v uniform or --personalize; it stops when ||r_new - r||_1 < tol\n"
    "or after --max-iter steps.\n"
    "\n"
    "Options";

const char* exit_text =
    "\n"
    "Files for --personalize / --initial: a Matrix Market array with one value per\n"
    "vertex, or text lines 'vertex weight' (vertices named as in GRAPH; unlisted\n"
    "vertices get 0). Weights must be non-negative and not all zero; they are\n"
    "normalized to sum 1.\n"
    "\n"
    "Exit codes: 0 converged; 2 not converged within --max-iter (results still\n"
    "printed and written); 64 bad command line; 65 bad input data; 66 missing or\n"
    "unreadable file; 69 unsupported format; 70 CUDA failure or no GPU for\n"
    "--device cuda; 71 internal error.\n";

// ---- command line ------------------------------------------------------------

// The enum options' text, parsed after po::notify.
struct enum_texts {
  std::string device, kernel, pull, loop;
};

void add_solver_options(po::options_description& o, pagerank_options& opt, enum_texts& e) {
  // clang-format off
  o.add_options()
    ("alpha,a", po::value(&opt.alpha)->default_value(opt.alpha, format_g(opt.alpha)), "damping factor, in [0, 1)")
    ("tol,t", po::value(&opt.tol)->default_value(opt.tol, format_g(opt.tol)),
     "stop when the L1 norm of the change of r is below this (not scaled by the vertex count)")
    ("max-iter,m", po::value(&opt.max_iter)->default_value(opt.max_iter), "at most this many iterations (>= 1)")
    ("device,d", po::value(&e.device)->default_value(std::string(name(opt.device))),
     "auto | cpu | cuda; auto: the GPU when one is usable")
    ("kernel,k", po::value(&e.kernel)->default_value("auto"),
     ("SpMV kernel: " + spmv_kernel_names() + "; cpu forces the CPU path").c_str())
    ("pull", po::value(&e.pull)->default_value(std::string(name(opt.pull))),
     ("GPU step: spmv (the --kernel SpMV, then an update kernel) | fused (one kernel per iteration "
      "pulling over the pattern of an unweighted graph with the update fused, vertices relabelled by "
      "in-degree; faster per iteration on power-law graphs, cheaper to set up) | persistent (the "
      "fused pull's iterations in one kernel per solve: no relaunch per iteration) | auto (persistent "
      "up to " +
      std::to_string(persistent_max_links) +
      " links, else fused, for an unweighted graph when no --kernel is named; else spmv)")
         .c_str())
    ("loop", po::value(&e.loop)->default_value(std::string(name(opt.loop))),
     "GPU convergence loop: graph-while (CUDA graph with a conditional WHILE node, one host sync "
     "per solve) | check-every (one host sync every --check-every iterations) | auto (graph-while "
     "when the SpMV captures into it)")
    ("check-every", po::value(&opt.check_interval)->default_value(opt.check_interval),
     "iterations per host check for --loop check-every")
    ("graph-unroll", po::value(&opt.graph_unroll)->default_value(opt.graph_unroll),
     "iterations per trip of the WHILE loop for --loop graph-while (results stay exact); 0: chosen "
     "from the measured SpMV time (1 to 8)");
  // clang-format on
}

po::options_description make_options(settings& s, enum_texts& e) {
  po::options_description o(usage_text);
  o.add_options()("help,h", "print this help and exit");
  add_solver_options(o, s.opt, e);
  // clang-format off
  o.add_options()
    ("precision,p", po::value(&s.precision)->default_value(s.precision),
     "float | double: storage and SpMV arithmetic; reductions are double either way")
    ("weighted,w", po::bool_switch(&s.weighted),
     "use the matrix values as arc weights (duplicates summed); negative or NaN weights are errors")
    ("personalize", po::value(&s.personalize)->value_name("FILE"),
     "teleport (and dangling) distribution v from FILE instead of uniform")
    ("initial", po::value(&s.initial)->value_name("FILE"), "start vector from FILE instead of uniform")
    ("top,n", po::value(&s.top)->default_value(s.top), "print the K highest-ranked vertices (0: none)")
    ("output,o", po::value(&s.output)->value_name("FILE"),
     "write every rank to FILE as TSV 'vertex<TAB>rank', one line per vertex in id order; "
     "'-': standard output, the summary (or --json) then goes to standard error")
    ("plot", po::value(&s.plot)->value_name("FILE.svg"),
     "draw the residual of every iteration (log scale) as an SVG line plot; on the GPU this runs "
     "--loop check-every with --check-every 1 to see each iteration")
    ("json", po::bool_switch(&s.json), "print the summary and the top vertices as JSON on stdout")
    ("bench", po::bool_switch(&s.bench),
     "benchmark on the GPU: every SpMV kernel on P^T, perron's solver and a naive cuSPARSE "
     "baseline on the same graph (uses --alpha, --tol, --max-iter, --precision)")
    ("bench-runs", po::value(&s.bench_runs)->default_value(s.bench_runs),
     "timed repetitions per measurement in --bench")
    ("sources", po::value(&s.batched.sources)->value_name("FILE"),
     "personalized PageRank of every source set in FILE at once (one set per line: vertices as in "
     "GRAPH, each optionally ':weight', e.g. '7 19:0.5'); prints TSV 'source_line<TAB>vertex<TAB>rank' "
     "of the --top vertices per set (to --output FILE if given)")
    ("output-matrix", po::value(&s.batched.output_matrix)->value_name("FILE"),
     "with --sources: every rank as a Matrix Market array, vertices x sets")
    ("bench-sources", po::value(&s.batched.bench_sources)->value_name("S"),
     "time S personalized solves as one batched solve against S single solves (sources: the first "
     "S sets of --sources, else S random vertices)");
  // clang-format on
  app::add_input_options(o, s.input);
  return o;
}

// The enums from their text, then the solver's own checks (pagerank_options::validate),
// both reported as command-line errors.
void parse_solver_options(pagerank_options& opt, const enum_texts& e) {
  try {
    opt.device = parse_pagerank_device(e.device);
    // "auto" names no kernel: the automatic pull may then choose the fused pull.
    opt.kernel = e.kernel == "auto" ? std::nullopt : std::optional(parse_spmv_kernel(e.kernel));
    opt.pull = parse_pagerank_pull(e.pull);
    opt.loop = parse_pagerank_loop(e.loop);
    opt.validate();
  } catch (const invalid_argument& x) {
    throw usage_error(x.what());
  }
}

// Every file written must differ from every file read (the data would be
// lost), and from each other; "-" (standard output) at most once.
void check_outputs(const settings& s) {
  const std::vector<std::string> inputs = {s.graph, s.personalize, s.initial};
  try {
    if (!s.output.empty()) io::check_not_an_input(s.output, inputs, "--output");
    if (!s.plot.empty()) io::check_not_an_input(s.plot, inputs, "--plot");
    if (!s.plot.empty() && !s.output.empty()) io::check_not_an_input(s.plot, {s.output}, "--plot");
  } catch (const invalid_argument& x) {
    throw usage_error(x.what());
  }
  if (!s.plot.empty() && s.plot == s.output) throw usage_error("--plot and --output name the same file");
}

// The app's own options and their combinations with the solver's.
void check_app_options(const settings& s) {
  if (s.top < 0) throw usage_error("--top must be at least 0");
  if (s.bench_runs < 1) throw usage_error("--bench-runs must be at least 1");
  if (s.precision != "float" && s.precision != "double")
    throw usage_error("--precision must be float or double");
  if (pattern_pull(s.opt.pull) && s.weighted)
    throw usage_error("--pull " + std::string(name(s.opt.pull)) +
                      " needs an unweighted graph (values 1/outdeg); --weighted needs --pull spmv");
  if (s.bench && (s.opt.device == pagerank_device::cpu || s.opt.kernel == spmv_kernel::cpu))
    throw usage_error("--bench measures the GPU; it cannot run with --device cpu or --kernel cpu");
  if (s.bench && (!s.output.empty() || !s.plot.empty()))
    throw usage_error("--bench writes no --output or --plot");
  check_outputs(s);
}

// Returns false when --help was asked for (help already printed).
bool parse_command_line(int argc, char** argv, settings& s) {
  enum_texts e;
  po::options_description visible = make_options(s, e);
  po::options_description all;
  all.add(visible);
  all.add_options()("graph", po::value<std::string>(&s.graph));
  po::positional_options_description pos;
  pos.add("graph", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << visible << exit_text;
    return false;
  }
  po::notify(vm);
  if (s.graph.empty()) throw usage_error("missing GRAPH (a .mtx, .mtx.gz, .txt or .txt.gz file)");
  parse_solver_options(s.opt, e);
  check_app_options(s);
  return true;
}

// ---- output helpers ----------------------------------------------------------------

template <class T>
constexpr int rank_digits() {
  return std::numeric_limits<T>::max_digits10;  // every stored bit of the rank
}

// Through io::output_file: a failed or interrupted run leaves any earlier
// file as it was; write errors are caught at commit().
template <class T>
void write_ranks(const std::string& path, const io::loaded_matrix& graph, const std::vector<double>& rank) {
  io::output_file out(path);
  std::FILE* f = out.get();
  for (std::size_t i = 0; i < rank.size(); ++i)
    if (std::fprintf(f, "%lld\t%.*g\n", static_cast<long long>(graph.label_of(static_cast<index_t>(i))),
                     rank_digits<T>(), rank[i]) < 0)
      break;
  out.commit();
}

// The residual after each iteration, log scale.
void write_residual_plot(const std::string& path, const std::string& graph,
                         const std::vector<std::pair<int, double>>& history) {
  plot_series r;
  r.label = "||r_k - r_(k-1)||_1";
  for (const auto& [k, res] : history) {
    r.x.push_back(k);
    r.y.push_back(res);
  }
  plot_options po;
  po.title = "PageRank residual: " + graph;
  po.x_label = "iteration";
  po.y_label = "residual (L1)";
  po.log_y = true;
  write_svg_line_plot(path, {r}, po);
}

struct timings {
  double load = 0, convert = 0, transfer = 0, solve = 0, output = 0, total = 0;
  bool convert_on_gpu = false;  // COO -> CSR of P^T sorted on the GPU
};

std::string format_name(const io::loaded_matrix& g) {
  if (g.format == io::input_format::snap) return "SNAP edge list";
  return std::string("Matrix Market") + (g.pattern ? ", pattern" : "") + (g.symmetric ? ", symmetric" : "");
}

std::string device_text(const pagerank_result& r) {
  if (r.on_gpu) return "cuda: " + cuda::device_description(0);
  return "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
}

template <class T>
void print_summary(std::ostream& o, const settings& s, const io::loaded_matrix& graph,
                   const pagerank_graph<T>& g, const pagerank_result& r, const timings& t) {
  const auto line = [&](const char* key, const std::string& value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%-12s", key);
    o << buf << value << '\n';
  };
  line("graph", s.graph + " (" + format_name(graph) + (s.weighted ? ", weighted" : "") + ")");
  line("vertices", std::to_string(g.vertices()));
  line("links", std::to_string(g.links()));
  line("dangling", std::to_string(g.dangling_count));
  line("device", device_text(r));
  const bool auto_kernel = !s.opt.kernel || *s.opt.kernel == spmv_kernel::automatic;
  line("kernel", pattern_pull(r.pull)
                     ? kernel_text(r.pull, r.kernel) + " (" + std::to_string(r.hub_entries) +
                           " entries of x in shared memory)"
                     : kernel_text(r.pull, r.kernel) + (r.on_gpu && auto_kernel ? " (auto)" : ""));
  line("precision", s.precision);
  line("alpha", format_g(s.opt.alpha));
  line("tol", format_g(s.opt.tol));
  line("iterations", std::to_string(r.iterations));
  line("residual", format_g(r.residual, 4));
  line("converged", r.converged ? "yes" : "no (reached --max-iter " + std::to_string(s.opt.max_iter) + ")");
  if (r.on_gpu) {
    line("loop", std::string(name(r.loop)) +
                     (r.graph_unroll > 0 ? " (" + std::to_string(r.graph_unroll) + " steps per trip)" : "") +
                     ", " + std::to_string(r.host_syncs) + " host sync" + (r.host_syncs == 1 ? "" : "s") +
                     (r.loop_note.empty() ? "" : " (" + r.loop_note + ")"));
  }
  line("load", app::describe_load(graph.timings));
  line("time", "load " + format_g(t.load, 3) + " s, convert " + format_g(t.convert, 3) +
                   (t.convert_on_gpu ? " s (GPU)" : " s") + ", transfer " + format_g(t.transfer, 3) +
                   " s, solve " + format_g(t.solve, 3) + " s" +
                   (s.output.empty() ? "" : ", output " + format_g(t.output, 3) + " s") + ", total " +
                   format_g(t.total, 3) + " s");
  if (!s.output.empty()) line("output", s.output);
  const auto top = top_of(r.rank.data(), static_cast<index_t>(r.rank.size()), s.top);
  if (top.empty()) return;
  o << "\ntop " << top.size() << " vertices\n";
  char buf[128];
  std::snprintf(buf, sizeof buf, "%6s  %12s  %s\n", "#", "vertex", "pagerank");
  o << buf;
  for (std::size_t k = 0; k < top.size(); ++k) {
    std::snprintf(buf, sizeof buf, "%6zu  %12lld  %.*g\n", k + 1,
                  static_cast<long long>(graph.label_of(top[k])), rank_digits<T>(), r.rank[top[k]]);
    o << buf;
  }
}

template <class T>
void print_json(std::ostream& o, const settings& s, const io::loaded_matrix& graph,
                const pagerank_graph<T>& g, const pagerank_result& r, const timings& t) {
  const auto str = [](const std::string& x) { return "\"" + json_escape(x) + "\""; };
  o << "{\n";
  o << "  \"graph\": " << str(s.graph) << ",\n";
  o << "  \"format\": " << str(format_name(graph)) << ",\n";
  o << "  \"weighted\": " << (s.weighted ? "true" : "false") << ",\n";
  o << "  \"vertices\": " << g.vertices() << ",\n";
  o << "  \"links\": " << g.links() << ",\n";
  o << "  \"dangling\": " << g.dangling_count << ",\n";
  o << "  \"device\": " << str(r.on_gpu ? "cuda" : "cpu") << ",\n";
  o << "  \"device_name\": " << str(device_text(r)) << ",\n";
  o << "  \"kernel\": " << str(kernel_text(r.pull, r.kernel)) << ",\n";
  o << "  \"hub_entries\": " << r.hub_entries << ",\n";
  o << "  \"kernel_reason\": " << str(r.kernel_reason) << ",\n";
  o << "  \"precision\": " << str(s.precision) << ",\n";
  o << "  \"alpha\": " << format_g(s.opt.alpha, 15) << ",\n";
  o << "  \"tol\": " << format_g(s.opt.tol, 15) << ",\n";
  o << "  \"max_iter\": " << s.opt.max_iter << ",\n";
  o << "  \"personalized\": " << (s.personalize.empty() ? "false" : "true") << ",\n";
  o << "  \"iterations\": " << r.iterations << ",\n";
  o << "  \"residual\": " << json_number(r.residual) << ",\n";
  o << "  \"converged\": " << (r.converged ? "true" : "false") << ",\n";
  o << "  \"loop\": " << str(std::string(name(r.loop))) << ",\n";
  o << "  \"loop_note\": " << str(r.loop_note) << ",\n";
  o << "  \"graph_unroll\": " << r.graph_unroll << ",\n";
  o << "  \"host_syncs\": " << r.host_syncs << ",\n";
  o << "  \"host_syncs_per_iteration\": "
    << format_g(r.iterations ? static_cast<double>(r.host_syncs) / r.iterations : 0.0, 6) << ",\n";
  o << "  \"load\": " << app::load_json(graph.timings) << ",\n";
  o << "  \"convert_on\": " << str(t.convert_on_gpu ? "cuda" : "cpu") << ",\n";
  o << "  \"seconds\": {\"load\": " << format_g(t.load, 6) << ", \"convert\": " << format_g(t.convert, 6)
    << ", \"transfer\": " << format_g(t.transfer, 6) << ", \"solve\": " << format_g(t.solve, 6)
    << ", \"device\": " << format_g(r.device_seconds, 6) << ", \"output\": " << format_g(t.output, 6)
    << ", \"total\": " << format_g(t.total, 6) << "},\n";
  o << "  \"rank_sum\": " << json_number(std::accumulate(r.rank.begin(), r.rank.end(), 0.0)) << ",\n";
  o << "  \"output\": " << (s.output.empty() ? "null" : str(s.output)) << ",\n";
  o << "  \"top\": [";
  const auto top = top_of(r.rank.data(), static_cast<index_t>(r.rank.size()), s.top);
  for (std::size_t k = 0; k < top.size(); ++k)
    o << (k ? ",\n    " : "\n    ") << "{\"vertex\": " << graph.label_of(top[k]) << ", \"rank\": "
      << (std::isfinite(r.rank[top[k]]) ? format_g(r.rank[top[k]], rank_digits<T>()) : "null") << "}";
  o << (top.empty() ? "]\n" : "\n  ]\n") << "}\n";
}

// ---- the solve ---------------------------------------------------------------------

std::vector<double> vertex_file(const std::string& path, const io::loaded_matrix& graph) {
  if (path.empty()) return {};
  return io::read_vertex_weights(path, graph.matrix.rows, graph.label);
}

// Reads the graph; driver start-up and the CUDA context (a good part of a
// second) come up on a second thread meanwhile when the solve may use the GPU.
io::loaded_matrix load_graph(const settings& s) {
  std::thread context;
  if (s.opt.device != pagerank_device::cpu && s.opt.kernel != spmv_kernel::cpu)
    context = std::thread([] { cuda::initialize(); });
  struct joiner {
    std::thread& t;
    ~joiner() {
      if (t.joinable()) t.join();
    }
  } join_context{context};
  return io::load_matrix(s.graph, app::read_options_for(s.input));
}

template <class T>
pagerank_result run_solver(const pagerank_graph<T>& g, const pagerank_options& opt, bool gpu, timings& t) {
  stopwatch step;
  if (!gpu) {
    pagerank_result r = pagerank_cpu(g, opt);
    t.solve = step.lap();
    return r;
  }
  pagerank_cuda<T> solver(g, opt.kernel, resolve_pull(opt.pull, g.pattern, opt.kernel, g.links()));
  t.transfer = step.lap();
  pagerank_result r = solver.solve(opt);
  t.solve = step.lap();
  return r;
}

template <class T>
int solve(settings& s) {
  stopwatch total, step;
  timings t;
  io::loaded_matrix graph;
  if (s.dist)  // every rank stops with the failing rank's message (no rank left waiting)
    dist::phase([&] { graph = load_graph(s); });
  else
    graph = load_graph(s);
  t.load = step.lap();
  const bool gpu = pagerank_runs_on_gpu(s.opt);
  // A GPU solve gets its P^T sorted on the GPU (the same bits as on the host).
  const pagerank_graph<T> g = make_pagerank_graph<T>(graph.matrix, s.weighted, graph.label, gpu);
  t.convert = step.lap();
  t.convert_on_gpu = gpu;

  pagerank_options& opt = s.opt;
  opt.personalization = vertex_file(s.personalize, graph);
  opt.initial = vertex_file(s.initial, graph);
  graph.matrix = coo_matrix<double>{};  // the labels stay; the triplets are no longer needed
  progress_line progress;
  std::vector<std::pair<int, double>> history;  // for --plot
  if (!s.plot.empty() && gpu) {
    // The GPU reports each batch's last residual: batches of one step.
    opt.loop = pagerank_loop::check_every;
    opt.check_interval = 1;
  }
  if (progress.enabled() || !s.plot.empty())
    opt.progress = [&](int k, double res) {
      if (!s.plot.empty()) history.emplace_back(k, res);
      if (progress.enabled())
        progress.update("pagerank: iteration " + std::to_string(k) + ", residual " + format_g(res, 3));
    };
  // Under mpirun with more than one rank: the distributed CPU solve
  // (solvers/dist), every rank holding the ranks; rank 0 writes them.
  const int mpi_rank = s.dist ? s.dist->rank() : 0;
  const pagerank_result r = s.dist ? dist::pagerank_mpi(g, opt) : run_solver(g, opt, gpu, t);
  progress.clear();

  step.restart();
  if (mpi_rank != 0) return r.converged ? ok : not_converged;  // rank 0 writes and reports
  if (!s.output.empty()) write_ranks<T>(s.output, graph, r.rank);
  if (!s.plot.empty()) write_residual_plot(s.plot, s.graph, history);
  t.output = step.lap();
  t.total = total.seconds();
  // With --output - (or --plot -) standard output holds only that file.
  std::ostream& o = s.output == "-" || s.plot == "-" ? std::cerr : std::cout;
  if (s.json)
    print_json(o, s, graph, g, r, t);
  else
    print_summary(o, s, graph, g, r, t);
  o.flush();
  if (!r.converged) {
    std::cerr << "pagerank: warning: not converged: residual " << format_g(r.residual, 4) << " >= tol "
              << format_g(opt.tol) << " after " << r.iterations << " iterations (--max-iter)\n";
    return not_converged;
  }
  return ok;
}

// ---- the benchmark (bench/pagerank_suite.hpp) ------------------------------------

template <class T>
int bench(const settings& s) {
  bench::require_gpu("--bench");
  stopwatch step;
  io::loaded_matrix graph = io::load_matrix(s.graph, app::read_options_for(s.input));
  bench::pagerank_suite_input in;
  in.load_seconds = step.lap();
  in.graph_name = s.graph;
  in.matrix = std::move(graph.matrix);
  in.label = std::move(graph.label);
  in.weighted = s.weighted;
  in.precision = s.precision;
  in.options = s.opt;
  in.runs = s.bench_runs;
  bench::pagerank_suite<T>(std::move(in), std::cout);
  return ok;
}

// The batched mode's view of the command line (apps/common/batched_pagerank.hpp).
app::batched_request batched_request_of(const settings& s) {
  if (!s.personalize.empty() || !s.initial.empty() || s.bench)
    throw usage_error(
        "--sources and --bench-sources cannot be combined with --personalize, --initial or --bench");
  app::batched_request r = s.batched;
  r.graph = s.graph;
  r.opt = s.opt;
  r.double_precision = s.precision == "double";
  r.weighted = s.weighted;
  r.output = s.output;
  r.top = s.top;
  r.json = s.json;
  r.input = s.input;
  return r;
}

int main_body(int argc, char** argv) {
  settings s;
  if (!parse_command_line(argc, argv, s)) return ok;
  if (app::batched_mode(s.batched)) return app::batched_pagerank(batched_request_of(s));
  if (dist::launched()) {
    s.dist = std::make_shared<dist::session>();
    if (s.dist->size() == 1) s.dist.reset();
  }
  if (s.bench) return s.precision == "double" ? bench<double>(s) : bench<float>(s);
  return s.precision == "double" ? solve<double>(s) : solve<float>(s);
}

}  // namespace
}  // namespace perron::app

int main(int argc, char** argv) {
  return perron::app::run("pagerank", [&] { return perron::app::main_body(argc, argv); });
}
