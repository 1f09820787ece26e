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
#include <random>

#include "apps/common/app.hpp"
#include "apps/common/timer.hpp"
#include "apps/common/usage.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "io/load.hpp"
#include "io/output_file.hpp"
#include "io/sources_file.hpp"
#include "solvers/pagerank_batched.hpp"

namespace perron::app {
namespace {

// The command line's combinations, as usage errors naming the flags.
pagerank_batched_options checked_options(const batched_request& r) {
  if (r.json) throw usage_error("--json is not available with --sources or --bench-sources (TSV output)");
  if (r.bench_sources < 0) throw usage_error("--bench-sources must be at least 1");
  if (r.bench_sources > 0 && !r.output_matrix.empty())
    throw usage_error("--output-matrix writes the ranks of --sources; --bench-sources writes none");
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
  for (std::size_t c = 0; c < res.sources; ++c)
    for (index_t i : top_of(res.column(c), res.vertices, top))
      std::fprintf(f, "%llu\t%lld\t%.*g\n", static_cast<unsigned long long>(sets.line[c]),
                   static_cast<long long>(graph.label_of(i)), digits, res.column(c)[i]);
  out.commit();
}

// Matrix Market array, column-major: column c holds the ranks of set c.
void write_matrix(const std::string& path, const io::source_sets& sets, const pagerank_batched_result& res,
                  int digits) {
  io::output_file out(path);
  std::FILE* f = out.get();
  std::fprintf(f, "%%%%MatrixMarket matrix array real general\n");
  std::fprintf(f, "%% personalized PageRank; columns: the source sets on lines");
  for (std::uint64_t line : sets.line) std::fprintf(f, " %llu", static_cast<unsigned long long>(line));
  std::fprintf(f, " of the sources file\n");
  std::fprintf(f, "%lld %zu\n", static_cast<long long>(res.vertices), res.sources);
  for (std::size_t k = 0; k < res.rank.size(); ++k) std::fprintf(f, "%.*g\n", digits, res.rank[k]);
  out.commit();
}

std::string device_text(bool gpu) {
  return gpu ? "cuda: " + cuda::device_description(0)
             : "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
}

void print_summary(const batched_request& r, const pagerank_batched_result& res, double load_s) {
  const auto [lo, hi] = std::minmax_element(res.iterations.begin(), res.iterations.end());
  const auto conv = std::count(res.converged.begin(), res.converged.end(), std::uint8_t(1));
  std::cerr << "pagerank: " << res.sources << " source sets on " << r.graph << " (" << res.vertices
            << " vertices), " << device_text(res.on_gpu) << "\n"
            << "pagerank: " << conv << " of " << res.sources << " converged, iterations " << *lo << " to "
            << *hi << ", " << res.compactions << " compactions, load " << format_g(load_s, 3) << " s, solve "
            << format_g(res.solve_seconds, 3) << " s\n";
}

template <class T>
int solve_sources(const batched_request& r, const pagerank_batched_options& opt) {
  stopwatch step;
  io::loaded_matrix graph = io::load_matrix(r.graph, read_options_for(r.input));
  const bool gpu = pagerank_runs_on_gpu(opt.base);
  const pagerank_graph<T> g = make_pagerank_graph<T>(graph.matrix, r.weighted, graph.label, gpu);
  const io::source_sets sets = io::read_sources_file(r.sources, g.vertices(), graph.label);
  const double load_s = step.lap();
  const pagerank_batched_result res = pagerank_batched(g, sets.sets, opt);
  constexpr int digits = std::numeric_limits<T>::max_digits10;
  if (!r.output_matrix.empty()) write_matrix(r.output_matrix, sets, res, digits);
  write_top(r.output.empty() ? "-" : r.output, graph, sets, res, r.top, digits);
  print_summary(r, res, load_s);
  if (!res.all_converged()) {
    std::cerr << "pagerank: warning: some source sets did not converge within --max-iter "
              << opt.base.max_iter << "\n";
    return not_converged;
  }
  return ok;
}

// ---- --bench-sources ----------------------------------------------------------------

// S sources: the first S sets of --sources, else S distinct random vertices (seed 1).
std::vector<source_set> bench_set(const batched_request& r, index_t n,
                                  const std::vector<std::int64_t>& label) {
  if (!r.sources.empty()) {
    auto sets = io::read_sources_file(r.sources, n, label).sets;
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

// The S single solves, one after another (GPU: one solver object, built
// before the clock starts; its fastest pull for the graph).
template <class T>
std::vector<pagerank_result> singles(const pagerank_graph<T>& g, const std::vector<source_set>& sets,
                                     const pagerank_options& base, bool gpu, double& seconds) {
  std::unique_ptr<pagerank_cuda<T>> solver;
  if (gpu)
    solver = std::make_unique<pagerank_cuda<T>>(g, base.kernel,
                                                resolve_pull(base.pull, g.pattern, base.kernel, g.links()));
  std::vector<pagerank_result> out;
  stopwatch clock;
  for (const source_set& s : sets) {
    pagerank_options o = base;
    o.personalization = detail::dense_personalization(s, g.vertices());
    out.push_back(gpu ? solver->solve(o) : pagerank_cpu(g, o));
  }
  seconds = clock.seconds();
  return out;
}

template <class T>
int bench_sources(const batched_request& r, const pagerank_batched_options& opt) {
  io::loaded_matrix graph = io::load_matrix(r.graph, read_options_for(r.input));
  const bool gpu = pagerank_runs_on_gpu(opt.base);
  const pagerank_graph<T> g = make_pagerank_graph<T>(graph.matrix, r.weighted, graph.label, gpu);
  const std::vector<source_set> sets = bench_set(r, g.vertices(), graph.label);
  pagerank_batched_options never = opt;
  never.compact_every = std::numeric_limits<int>::max();
  pagerank_batched(g, sets, opt);  // warm-up: kernels loaded, clocks up
  const pagerank_batched_result a = pagerank_batched(g, sets, opt);
  const pagerank_batched_result b = pagerank_batched(g, sets, never);
  double single_s = 0;
  const std::vector<pagerank_result> one = singles(g, sets, opt.base, gpu, single_s);
  double diff = 0;
  long single_steps = 0;
  for (std::size_t c = 0; c < sets.size(); ++c) {
    single_steps += one[c].iterations;
    for (index_t i = 0; i < g.vertices(); ++i)
      diff = std::max(diff, std::fabs(a.column(c)[i] - one[c].rank[static_cast<std::size_t>(i)]));
  }
  std::cout << "graph       " << r.graph << " (" << g.vertices() << " vertices, " << g.links() << " links)\n"
            << "device      " << device_text(gpu) << ", " << (r.double_precision ? "double" : "float") << "\n"
            << "sources     " << sets.size() << ", tol " << format_g(opt.base.tol) << ", alpha "
            << format_g(opt.base.alpha) << "\n"
            << "batched     " << format_g(a.solve_seconds, 4) << " s (" << a.column_steps << " column-steps, "
            << a.compactions << " compactions, compact every " << opt.compact_every << ")\n"
            << "no compact  " << format_g(b.solve_seconds, 4) << " s (" << b.column_steps
            << " column-steps)\n"
            << "singles     " << format_g(single_s, 4) << " s (" << single_steps << " iterations in all)\n"
            << "speedup     " << format_fixed(single_s / a.solve_seconds, 2) << "x (compaction gain "
            << format_fixed(b.solve_seconds / a.solve_seconds, 2) << "x)\n"
            << "max |diff|  " << format_g(diff, 3) << " (batched vs singles)\n";
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
