// pagerank: PageRank of a graph file (Matrix Market or SNAP edge list) on the
// GPU or the CPU, with a summary, the top-ranked vertices, optional TSV/JSON
// output, and a benchmark mode (--bench) against a naive cuSPARSE baseline.
#include "solvers/pagerank.hpp"

#include <omp.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "apps/common/app.hpp"
#include "apps/common/input_options.hpp"
#include "apps/common/progress.hpp"
#include "apps/common/timer.hpp"
#include "bench/pagerank_bench.hpp"
#include "bench/spmv_timing.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"
#include "io/load.hpp"
#include "kernels/spmv.hpp"

namespace po = boost::program_options;

namespace perron::app {
namespace {

// A bad option value: reported like every other command-line error (exit 64).
struct usage_error : po::error {
  using po::error::error;
};

struct settings {
  std::string graph;
  double alpha = 0.85;
  double tol = 1e-6;
  int max_iter = 1000;
  std::string precision = "float";
  pagerank_device device = pagerank_device::automatic;
  spmv_kernel kernel = spmv_kernel::automatic;
  pagerank_pull pull = pagerank_pull::automatic;
  pagerank_loop loop = pagerank_loop::automatic;
  int check_every = 8;
  int graph_unroll = 0;
  bool weighted = false;
  std::string personalize, initial, output;
  int top = 10;
  bool json = false;
  bool bench = false;
  int bench_runs = 100;
  app::input_settings input;
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

po::options_description make_options(settings& s, std::string& precision, std::string& device,
                                     std::string& kernel, std::string& pull, std::string& loop) {
  po::options_description o(usage_text);
  // clang-format off
  o.add_options()
    ("help,h", "print this help and exit")
    ("alpha,a", po::value<double>(&s.alpha)->default_value(0.85, "0.85"), "damping factor, in [0, 1)")
    ("tol,t", po::value<double>(&s.tol)->default_value(1e-6, "1e-6"),
     "stop when the L1 norm of the change of r is below this (not scaled by the vertex count)")
    ("max-iter,m", po::value<int>(&s.max_iter)->default_value(1000), "at most this many iterations (>= 1)")
    ("precision,p", po::value<std::string>(&precision)->default_value("float"),
     "float | double: storage and SpMV arithmetic; reductions are double either way")
    ("device,d", po::value<std::string>(&device)->default_value("auto"),
     "auto | cpu | cuda; auto: the GPU when one is usable")
    ("kernel,k", po::value<std::string>(&kernel)->default_value("auto"),
     ("SpMV kernel: " + spmv_kernel_names() + "; cpu forces the CPU path").c_str())
    ("pull", po::value<std::string>(&pull)->default_value("auto"),
     "GPU step: spmv (the --kernel SpMV, then an update kernel) | fused (one kernel per iteration "
     "pulling over the pattern of an unweighted graph with the update fused, vertices relabelled by "
     "in-degree; faster per iteration on power-law graphs, cheaper to set up) | auto (fused for an "
     "unweighted graph when no --kernel is named, else spmv)")
    ("weighted,w", po::bool_switch(&s.weighted),
     "use the matrix values as arc weights (duplicates summed); negative or NaN weights are errors")
    ("personalize", po::value<std::string>(&s.personalize)->value_name("FILE"),
     "teleport (and dangling) distribution v from FILE instead of uniform")
    ("initial", po::value<std::string>(&s.initial)->value_name("FILE"), "start vector from FILE instead of uniform")
    ("top,n", po::value<int>(&s.top)->default_value(10), "print the K highest-ranked vertices (0: none)")
    ("output,o", po::value<std::string>(&s.output)->value_name("FILE"),
     "write every rank to FILE as TSV 'vertex<TAB>rank', one line per vertex in id order")
    ("json", po::bool_switch(&s.json), "print the summary and the top vertices as JSON on stdout")
    ("loop", po::value<std::string>(&loop)->default_value("auto"),
     "GPU convergence loop: graph-while (CUDA graph with a conditional WHILE node, one host sync "
     "per solve) | check-every (one host sync every --check-every iterations) | auto (graph-while "
     "when the SpMV captures into it)")
    ("check-every", po::value<int>(&s.check_every)->default_value(8), "iterations per host check for --loop check-every")
    ("graph-unroll", po::value<int>(&s.graph_unroll)->default_value(0),
     "iterations per trip of the WHILE loop for --loop graph-while (results stay exact); 0: chosen "
     "from the measured SpMV time (1 to 8)")
    ("bench", po::bool_switch(&s.bench),
     "benchmark on the GPU: every SpMV kernel on P^T, perron's solver and a naive cuSPARSE "
     "baseline on the same graph (uses --alpha, --tol, --max-iter, --precision)")
    ("bench-runs", po::value<int>(&s.bench_runs)->default_value(100), "timed repetitions per measurement in --bench");
  // clang-format on
  app::add_input_options(o, s.input);
  return o;
}

// Returns false when --help was asked for (help already printed).
bool parse_command_line(int argc, char** argv, settings& s) {
  std::string precision, device, kernel, pull, loop;
  po::options_description visible = make_options(s, precision, device, kernel, pull, loop);
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
  if (!(s.alpha >= 0.0 && s.alpha < 1.0)) throw usage_error("--alpha must be in [0, 1)");
  if (!(s.tol > 0.0) || !std::isfinite(s.tol)) throw usage_error("--tol must be a positive number");
  if (s.max_iter < 1) throw usage_error("--max-iter must be at least 1");
  if (s.top < 0) throw usage_error("--top must be at least 0");
  if (s.check_every < 1) throw usage_error("--check-every must be at least 1");
  if (s.graph_unroll < 0) throw usage_error("--graph-unroll must be 0 (automatic) or more");
  if (s.bench_runs < 1) throw usage_error("--bench-runs must be at least 1");
  if (precision != "float" && precision != "double") throw usage_error("--precision must be float or double");
  s.precision = precision;
  try {
    s.device = parse_pagerank_device(device);
    s.kernel = parse_spmv_kernel(kernel);
    s.pull = parse_pagerank_pull(pull);
    s.loop = parse_pagerank_loop(loop);
  } catch (const invalid_argument& e) {
    throw usage_error(e.what());
  }
  if (s.device == pagerank_device::cuda && s.kernel == spmv_kernel::cpu)
    throw usage_error("--device cuda cannot use --kernel cpu");
  if (s.device == pagerank_device::cpu && s.kernel != spmv_kernel::cpu && s.kernel != spmv_kernel::automatic)
    throw usage_error("--device cpu runs the cpu kernel; --kernel " + std::string(name(s.kernel)) +
                      " needs --device cuda or auto");
  if (s.pull == pagerank_pull::fused && s.weighted)
    throw usage_error(
        "--pull fused needs an unweighted graph (values 1/outdeg); --weighted needs --pull spmv");
  if (s.pull == pagerank_pull::fused && s.kernel != spmv_kernel::automatic)
    throw usage_error("--pull fused runs its own kernel; --kernel " + std::string(name(s.kernel)) +
                      " needs --pull spmv");
  if (s.pull == pagerank_pull::fused && s.device == pagerank_device::cpu)
    throw usage_error("--pull fused is a GPU step; it cannot run with --device cpu");
  if (s.bench && (s.device == pagerank_device::cpu || s.kernel == spmv_kernel::cpu))
    throw usage_error("--bench measures the GPU; it cannot run with --device cpu or --kernel cpu");
  return true;
}

// ---- output helpers ----------------------------------------------------------------

template <class T>
constexpr int rank_digits() {
  return std::numeric_limits<T>::max_digits10;  // every stored bit of the rank
}

std::string num(double x, int digits = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return buf;
}

// Indices of the k largest ranks, highest first (ties: lower index first).
std::vector<index_t> top_vertices(const std::vector<double>& rank, int k) {
  std::vector<index_t> idx(rank.size());
  std::iota(idx.begin(), idx.end(), 0);
  const auto kk = std::min<std::size_t>(static_cast<std::size_t>(k), idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(kk), idx.end(),
                    [&](index_t a, index_t b) { return rank[a] > rank[b] || (rank[a] == rank[b] && a < b); });
  idx.resize(kk);
  return idx;
}

template <class T>
void write_ranks(const std::string& path, const io::loaded_matrix& graph, const std::vector<double>& rank) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw io_error(path, "cannot open for writing");
  std::vector<char> buf(1 << 20);
  std::setvbuf(f, buf.data(), _IOFBF, buf.size());
  bool ok = true;
  for (std::size_t i = 0; i < rank.size() && ok; ++i)
    ok = std::fprintf(f, "%lld\t%.*g\n", static_cast<long long>(graph.label_of(static_cast<index_t>(i))),
                      rank_digits<T>(), rank[i]) > 0;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) throw io_error(path, "write failed (disk full?)");
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
void print_summary(const settings& s, const io::loaded_matrix& graph, const pagerank_graph<T>& g,
                   const pagerank_result& r, const timings& t) {
  std::ostream& o = std::cout;
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
  line("kernel",
       r.fused_pull
           ? "pull-fused (" + std::to_string(r.hub_entries) + " entries of x in shared memory)"
           : std::string(name(r.kernel)) + (r.on_gpu && s.kernel == spmv_kernel::automatic ? " (auto)" : ""));
  line("precision", s.precision);
  line("alpha", num(s.alpha));
  line("tol", num(s.tol));
  line("iterations", std::to_string(r.iterations));
  line("residual", num(r.residual, 4));
  line("converged", r.converged ? "yes" : "no (reached --max-iter " + std::to_string(s.max_iter) + ")");
  if (r.on_gpu) {
    line("loop", std::string(name(r.loop)) +
                     (r.graph_unroll > 0 ? " (" + std::to_string(r.graph_unroll) + " steps per trip)" : "") +
                     ", " + std::to_string(r.host_syncs) + " host sync" + (r.host_syncs == 1 ? "" : "s") +
                     (r.loop_note.empty() ? "" : " (" + r.loop_note + ")"));
  }
  line("load", app::describe_load(graph.timings));
  line("time", "load " + num(t.load, 3) + " s, convert " + num(t.convert, 3) +
                   (t.convert_on_gpu ? " s (GPU)" : " s") + ", transfer " + num(t.transfer, 3) +
                   " s, solve " + num(t.solve, 3) + " s" +
                   (s.output.empty() ? "" : ", output " + num(t.output, 3) + " s") + ", total " +
                   num(t.total, 3) + " s");
  if (!s.output.empty()) line("output", s.output);
  const auto top = top_vertices(r.rank, s.top);
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
void print_json(const settings& s, const io::loaded_matrix& graph, const pagerank_graph<T>& g,
                const pagerank_result& r, const timings& t) {
  const auto str = [](const std::string& x) { return "\"" + json_escape(x) + "\""; };
  const auto real = [](double x, int digits = 17) {
    return std::isfinite(x) ? num(x, digits) : std::string("null");  // JSON has no inf/NaN
  };
  std::ostream& o = std::cout;
  o << "{\n";
  o << "  \"graph\": " << str(s.graph) << ",\n";
  o << "  \"format\": " << str(format_name(graph)) << ",\n";
  o << "  \"weighted\": " << (s.weighted ? "true" : "false") << ",\n";
  o << "  \"vertices\": " << g.vertices() << ",\n";
  o << "  \"links\": " << g.links() << ",\n";
  o << "  \"dangling\": " << g.dangling_count << ",\n";
  o << "  \"device\": " << str(r.on_gpu ? "cuda" : "cpu") << ",\n";
  o << "  \"device_name\": " << str(device_text(r)) << ",\n";
  o << "  \"kernel\": " << str(r.fused_pull ? std::string("pull-fused") : std::string(name(r.kernel)))
    << ",\n";
  o << "  \"hub_entries\": " << r.hub_entries << ",\n";
  o << "  \"kernel_reason\": " << str(r.kernel_reason) << ",\n";
  o << "  \"precision\": " << str(s.precision) << ",\n";
  o << "  \"alpha\": " << real(s.alpha, 15) << ",\n";
  o << "  \"tol\": " << real(s.tol, 15) << ",\n";
  o << "  \"max_iter\": " << s.max_iter << ",\n";
  o << "  \"personalized\": " << (s.personalize.empty() ? "false" : "true") << ",\n";
  o << "  \"iterations\": " << r.iterations << ",\n";
  o << "  \"residual\": " << real(r.residual) << ",\n";
  o << "  \"converged\": " << (r.converged ? "true" : "false") << ",\n";
  o << "  \"loop\": " << str(std::string(name(r.loop))) << ",\n";
  o << "  \"loop_note\": " << str(r.loop_note) << ",\n";
  o << "  \"graph_unroll\": " << r.graph_unroll << ",\n";
  o << "  \"host_syncs\": " << r.host_syncs << ",\n";
  o << "  \"host_syncs_per_iteration\": "
    << real(r.iterations ? static_cast<double>(r.host_syncs) / r.iterations : 0.0, 6) << ",\n";
  o << "  \"load\": " << app::load_json(graph.timings) << ",\n";
  o << "  \"convert_on\": " << str(t.convert_on_gpu ? "cuda" : "cpu") << ",\n";
  o << "  \"seconds\": {\"load\": " << real(t.load, 6) << ", \"convert\": " << real(t.convert, 6)
    << ", \"transfer\": " << real(t.transfer, 6) << ", \"solve\": " << real(t.solve, 6)
    << ", \"device\": " << real(r.device_seconds, 6) << ", \"output\": " << real(t.output, 6)
    << ", \"total\": " << real(t.total, 6) << "},\n";
  o << "  \"rank_sum\": " << real(std::accumulate(r.rank.begin(), r.rank.end(), 0.0)) << ",\n";
  o << "  \"output\": " << (s.output.empty() ? "null" : str(s.output)) << ",\n";
  o << "  \"top\": [";
  const auto top = top_vertices(r.rank, s.top);
  for (std::size_t k = 0; k < top.size(); ++k)
    o << (k ? ",\n    " : "\n    ") << "{\"vertex\": " << graph.label_of(top[k])
      << ", \"rank\": " << real(r.rank[top[k]], rank_digits<T>()) << "}";
  o << (top.empty() ? "]\n" : "\n  ]\n") << "}\n";
}

// ---- the solve ---------------------------------------------------------------------

std::vector<double> vertex_file(const std::string& path, const io::loaded_matrix& graph) {
  if (path.empty()) return {};
  return read_vertex_weights(path, graph.matrix.rows, graph.label);
}

template <class T>
int solve(const settings& s) {
  stopwatch total, step;
  timings t;
  // Driver start-up and the CUDA context (~0.2 s together on the H100 host)
  // run on a second thread while this one reads the graph.
  std::thread context;
  if (s.device != pagerank_device::cpu && s.kernel != spmv_kernel::cpu)
    context = std::thread([] { cuda::initialize(); });
  struct joiner {
    std::thread& t;
    ~joiner() {
      if (t.joinable()) t.join();
    }
  } join_context{context};
  io::loaded_matrix graph = io::load_matrix(s.graph, app::read_options_for(s.input));
  t.load = step.lap();
  if (context.joinable()) context.join();
  bool gpu = false;
  switch (s.device) {
    case pagerank_device::cpu:
      gpu = false;
      break;
    case pagerank_device::cuda:
      gpu = true;
      break;
    case pagerank_device::automatic:
      gpu = s.kernel != spmv_kernel::cpu && cuda::available();
      break;
  }
  if (gpu && !cuda::available())
    throw cuda_error(cuda::built()
                         ? "--device cuda: no usable CUDA device"
                         : "--device cuda: perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)");
  // A GPU solve gets its P^T sorted on the GPU (the same bits as on the host).
  const pagerank_graph<T> g = make_pagerank_graph<T>(graph.matrix, s.weighted, graph.label, gpu);
  t.convert = step.lap();
  t.convert_on_gpu = gpu;

  pagerank_options opt;
  opt.alpha = s.alpha;
  opt.tol = s.tol;
  opt.max_iter = s.max_iter;
  opt.loop = s.loop;
  opt.check_interval = s.check_every;
  opt.graph_unroll = s.graph_unroll;
  opt.personalization = vertex_file(s.personalize, graph);
  opt.initial = vertex_file(s.initial, graph);
  validate(opt, g.vertices());
  graph.matrix = coo_matrix<double>{};  // the labels stay; the triplets are no longer needed

  progress_line progress;
  if (progress.enabled())
    opt.progress = [&](int k, double res) {
      progress.update("pagerank: iteration " + std::to_string(k) + ", residual " + num(res, 3));
    };

  step.restart();
  pagerank_result r;
  if (gpu) {
    pagerank_cuda<T> solver(g, s.kernel, s.pull);
    t.transfer = step.lap();
    r = solver.solve(opt);
  } else {
    r = pagerank_cpu(g, opt);
  }
  t.solve = step.lap();
  progress.clear();

  if (!s.output.empty()) write_ranks<T>(s.output, graph, r.rank);
  t.output = step.lap();
  t.total = total.seconds();
  if (s.json)
    print_json(s, graph, g, r, t);
  else
    print_summary(s, graph, g, r, t);
  std::cout.flush();
  if (!r.converged) {
    std::cerr << "pagerank: warning: not converged: residual " << num(r.residual, 4) << " >= tol "
              << num(s.tol) << " after " << r.iterations << " iterations (--max-iter)\n";
    return not_converged;
  }
  return ok;
}

// ---- the benchmark ---------------------------------------------------------------

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

// Median device time of one iteration of a solver: two solves that stop by
// max_iter (tol far below reach), timed by CUDA events, differenced so the
// per-solve fixed costs (init kernel, graph launch) cancel.
template <class T>
double iteration_seconds(pagerank_cuda<T>& solver, pagerank_options opt, int runs) {
  opt.tol = 1e-300;
  std::vector<double> per;
  for (int i = 0; i < runs; ++i) {
    opt.max_iter = 10;
    const pagerank_result a = solver.solve(opt);
    opt.max_iter = 60;
    const pagerank_result b = solver.solve(opt);
    if (b.iterations <= a.iterations) continue;  // reached an exact fixed point: nothing to difference
    per.push_back((b.device_seconds - a.device_seconds) / (b.iterations - a.iterations));
  }
  return median(per);
}

template <class T>
int bench(const settings& s) {
  if (!cuda::available())
    throw cuda_error(cuda::built() ? "--bench: no usable CUDA device"
                                   : "--bench: perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)");
  std::ostream& o = std::cout;
  stopwatch step;
  io::loaded_matrix graph = io::load_matrix(s.graph, app::read_options_for(s.input));
  const double t_load = step.lap();
  // P^T built on the host and on the GPU (the second GPU build timed: the
  // first one pays for the CUDA context); they must agree bit for bit.
  const pagerank_graph<T> g = make_pagerank_graph<T>(graph.matrix, s.weighted, graph.label);
  const double t_convert = step.lap();
  make_pagerank_graph<T>(graph.matrix, s.weighted, graph.label, true);
  step.restart();
  const pagerank_graph<T> g_gpu = make_pagerank_graph<T>(graph.matrix, s.weighted, graph.label, true);
  const double t_convert_gpu = step.lap();
  const bool same =
      g_gpu.pt.row_ptr == g.pt.row_ptr && g_gpu.pt.col_idx == g.pt.col_idx &&
      std::memcmp(g_gpu.pt.values.data(), g.pt.values.data(), g.pt.values.size() * sizeof(T)) == 0 &&
      g_gpu.dangling == g.dangling;
  if (!same) throw error("--bench: P^T built on the GPU differs from the host's");
  graph.matrix = coo_matrix<double>{};
  const int runs = s.bench_runs;
  const double n = g.vertices(), nnz = static_cast<double>(g.links());
  // Fewest bytes one SpMV y = P^T x moves: row_ptr, col_idx, values, x once, y once.
  const double spmv_bytes = (n + 1) * 4 + nnz * (4 + sizeof(T)) + 2 * n * sizeof(T);
  // The fused update adds: read y and r, write r, the dangling bit mask.
  const double update_bytes = 3 * n * sizeof(T) + n / 8;

  o << "pagerank --bench " << s.graph << "\n";
  o << "graph      " << g.vertices() << " vertices, " << g.links() << " links, " << g.dangling_count
    << " dangling (load " << num(t_load, 3) << " s, convert " << num(t_convert, 3) << " s on the CPU, "
    << num(t_convert_gpu, 3) << " s on the GPU, identical)\n";
  o << "device     " << cuda::device_description(0) << "\n";
  const double copy_gbs = copy_bandwidth_gbs(std::size_t(1) << 30, 20);
  o << "copy       " << num(copy_gbs, 4) << " GB/s device-to-device (read + write)\n";
  o << "precision  " << s.precision << ", alpha " << num(s.alpha) << ", tol " << num(s.tol) << ", runs "
    << runs << "\n";
  o << "bytes      SpMV >= " << num(spmv_bytes / 1e6, 4) << " MB (floor "
    << num(spmv_bytes / copy_gbs / 1e3, 3) << " us at copy bandwidth), update " << num(update_bytes / 1e6, 4)
    << " MB\n\n";

  // 1. Every GPU SpMV kernel on P^T.
  o << "SpMV y = P^T x, one launch (median of " << runs << ", CUDA events)\n";
  spmv_kernel best = spmv_kernel::automatic;
  double best_s = std::numeric_limits<double>::infinity();
  {
    std::vector<T> hx(g.pt.cols);
    for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = static_cast<T>((1.0 + double(i % 7)) / (4.0 * n));
    cuda::device_buffer<T> d_x(hx), d_y(static_cast<std::size_t>(g.pt.rows));
    for (spmv_kernel k : spmv_kernels()) {
      if (!on_gpu(k) || k == spmv_kernel::automatic) continue;
      char buf[160];
      try {
        spmv_plan<T> plan(g.pt, k);
        const double us = time_spmv(plan, T(1), d_x.data(), T(0), d_y.data(), 10, runs).median_us();
        std::snprintf(buf, sizeof buf, "  %-14s %10.2f us  %8.1f GB/s\n", std::string(name(k)).c_str(), us,
                      spmv_bytes / (us * 1e-6) / 1e9);
        if (us * 1e-6 < best_s) {
          best_s = us * 1e-6;
          best = k;
        }
        o << buf;
      } catch (const error& e) {
        o << "  " << name(k) << ": skipped (" << e.what() << ")\n";
      }
    }
  }
  if (best == spmv_kernel::automatic) throw cuda_error("--bench: no GPU SpMV kernel could run on this graph");
  o << "  best: " << name(best) << " " << num(best_s * 1e6, 4) << " us\n\n";

  // 2. perron's solver: per-iteration time and whole solves.
  pagerank_options opt;
  opt.alpha = s.alpha;
  opt.tol = s.tol;
  opt.max_iter = s.max_iter;
  struct row {
    std::string what;
    pagerank_result r;
    double wall = 0, device = 0, iter = 0;
  };
  std::vector<row> rows;
  std::string fused_note;
  const auto run_perron = [&](spmv_kernel k, pagerank_loop loop, int unroll,
                              pagerank_pull pull = pagerank_pull::spmv) {
    pagerank_cuda<T> solver(g, k, pull);
    if (solver.fused()) fused_note = solver.kernel_reason();
    opt.loop = loop;
    opt.graph_unroll = unroll;
    opt.check_interval = s.check_every;
    row x;
    x.r = solver.solve(opt);  // warm-up: builds the graphs
    x.what = "perron " + solver.kernel_name() + (k == spmv_kernel::automatic ? " (auto)" : "") + " " +
             std::string(name(x.r.loop)) +
             (x.r.loop == pagerank_loop::check_every
                  ? " " + std::to_string(s.check_every)
                  : " x" + std::to_string(x.r.graph_unroll) + (unroll == 0 ? " (auto)" : ""));
    std::vector<double> wall, dev;
    for (int i = 0; i < runs; ++i) {
      const pagerank_result r = solver.solve(opt);
      wall.push_back(r.solve_seconds);
      dev.push_back(r.device_seconds);
    }
    x.wall = median(wall);
    x.device = median(dev);
    x.iter = iteration_seconds(solver, opt, std::max(5, runs / 10));
    rows.push_back(std::move(x));
  };
  // First perron as the command line asks (by default the automatic pull:
  // fused for an unweighted graph), which the targets judge; then the SpMV
  // pull with the best kernel and each loop, and the other pull.
  const pagerank_pull pull = resolve_pull(s.pull, g.pattern, s.kernel);
  run_perron(s.kernel, pagerank_loop::automatic, s.graph_unroll, pull);
  if (pull != pagerank_pull::spmv)
    run_perron(spmv_kernel::automatic, pagerank_loop::automatic, s.graph_unroll);
  if (rows.back().r.kernel != best) run_perron(best, pagerank_loop::automatic, s.graph_unroll);
  for (int unroll : {1, 2, 4, 8})
    if (unroll != s.graph_unroll) run_perron(best, pagerank_loop::automatic, unroll);
  run_perron(best, pagerank_loop::check_every, 1);
  if (g.pattern && pull != pagerank_pull::fused) {
    try {
      run_perron(spmv_kernel::automatic, pagerank_loop::automatic, s.graph_unroll, pagerank_pull::fused);
    } catch (const error& e) {
      fused_note = std::string("--pull fused could not run: ") + e.what();
    }
  }

  // 3. The naive baseline.
  bench::cusparse_baseline<T> base(g);
  row b;
  b.what = "baseline cusparse + thrust, host check";
  b.r = base.solve(s.alpha, s.tol, s.max_iter);
  {
    std::vector<double> wall;
    for (int i = 0; i < runs; ++i) wall.push_back(base.solve(s.alpha, s.tol, s.max_iter).solve_seconds);
    b.wall = median(wall);
    b.iter = b.wall / std::max(1, b.r.iterations);
  }

  o << "Solves to tol " << num(s.tol) << " (median of " << runs
    << "; wall = start vector to ranks on the host)\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-44s %5s %10s %10s %12s %8s %8s %10s\n", "solver", "iter", "wall ms",
                "device ms", "us/iter", "xSpMV", "syncs", "max|dr|");
  o << buf;
  const auto print_row = [&](const row& x) {
    std::snprintf(buf, sizeof buf, "  %-44s %5d %10.3f %10.3f %12.2f %8.2f %8llu %10.2e\n", x.what.c_str(),
                  x.r.iterations, x.wall * 1e3, x.device * 1e3, x.iter * 1e6, x.iter / best_s,
                  static_cast<unsigned long long>(x.r.host_syncs), max_abs_diff(x.r.rank, b.r.rank));
    o << buf;
  };
  for (const row& x : rows) print_row(x);
  print_row(b);
  o << "  (us/iter: perron = marginal device time per iteration from 10- and 60-iteration solves; baseline = "
       "wall / "
       "iterations. xSpMV = us/iter over the best SpMV. max|dr| vs the baseline's ranks)\n\n";

  const row& p = rows.front();
  const double ratio = p.iter / best_s;
  const double speedup = b.wall / p.wall;
  o << "target  one perron iteration <= 1.2 x best SpMV: " << num(ratio, 3) << " x  -> "
    << (ratio <= 1.2 ? "met" : "MISSED") << "\n";
  o << "target  whole solve >= 5 x faster than the baseline: " << num(speedup, 3) << " x  -> "
    << (speedup >= 5 ? "met" : "MISSED") << "\n";
  if (!p.r.loop_note.empty()) o << "note    " << p.r.loop_note << "\n";
  if (!fused_note.empty()) o << "fused   " << fused_note << "\n";
  return ok;
}

int main_body(int argc, char** argv) {
  settings s;
  if (!parse_command_line(argc, argv, s)) return ok;
  if (s.bench) return s.precision == "double" ? bench<double>(s) : bench<float>(s);
  return s.precision == "double" ? solve<double>(s) : solve<float>(s);
}

}  // namespace
}  // namespace perron::app

int main(int argc, char** argv) {
  return perron::app::run("pagerank", [&] { return perron::app::main_body(argc, argv); });
}
