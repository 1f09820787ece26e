// PageRank: the P^T build, option checks, per-vertex vector input, the CPU
// (OpenMP) power iteration and the CPU/GPU dispatch.
#include "solvers/pagerank.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <unordered_map>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "io/matrix_market.hpp"
#include "kernels/convert.hpp"
#include "kernels/gpu_convert.hpp"

namespace perron {
namespace {

std::string vertex_name(const std::vector<std::int64_t>& label, index_t i) {
  return std::to_string(label.empty() ? std::int64_t(i) + 1 : label[static_cast<std::size_t>(i)]);
}

std::string fmt(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

}  // namespace

// ---- the operator ----------------------------------------------------------

template <class T>
pagerank_graph<T> make_pagerank_graph(const coo_matrix<double>& a, bool weighted,
                                      const std::vector<std::int64_t>& label, bool on_gpu) {
  if (a.rows != a.cols)
    throw dimension_error("PageRank needs a square adjacency matrix (vertices x vertices), got " +
                          std::to_string(a.rows) + " x " + std::to_string(a.cols));
  if (a.rows == 0) throw invalid_argument("the graph is empty (0 vertices)");
  if (!label.empty() && label.size() != static_cast<std::size_t>(a.rows))
    throw dimension_error("vertex labels: " + std::to_string(label.size()) + " labels for " +
                          std::to_string(a.rows) + " vertices");
  // Per vertex: out-degree, dangling flag, the solver's vectors and the ranks
  // (about 48 bytes); per link: P^T in double and in T, and the conversion's
  // scratch (about 32). Checked before anything of that size is allocated.
  check_host_memory(48.0 * double(a.rows) + 32.0 * double(a.nnz()),
                    "PageRank of a graph of " + std::to_string(a.rows) + " vertices and " +
                        std::to_string(a.nnz()) + " links");
  if (weighted) {
    for (std::size_t k = 0; k < a.nnz(); ++k) {
      const double w = a.values[k];
      if (!(w >= 0.0) || !std::isfinite(w))
        throw invalid_argument("arc " + vertex_name(label, a.row_idx[k]) + " -> " +
                               vertex_name(label, a.col_idx[k]) + " has weight " + fmt(w) +
                               ": --weighted needs finite, non-negative weights");
    }
  }

  // CSR of A^T: row i = target, column j = source. Unweighted graphs keep each
  // arc once; weighted ones sum parallel arcs (Matrix Market semantics).
  csr_options opt;
  opt.transpose = true;
  opt.dup = weighted ? duplicates::sum : duplicates::keep_one;
  csr_matrix<double> at = on_gpu ? to_csr_on_gpu(a, opt) : to_csr(a, opt);

  // d_j = out-weight (or out-degree) of j = column sums of A^T.
  const index_t n = a.rows;
  std::vector<double> out(static_cast<std::size_t>(n), 0.0);
  for (std::size_t k = 0; k < at.nnz(); ++k) out[at.col_idx[k]] += weighted ? at.values[k] : 1.0;

  pagerank_graph<T> g;
  g.pattern = !weighted;
  g.dangling.assign(static_cast<std::size_t>(n), 0);
  for (index_t j = 0; j < n; ++j) {
    if (!std::isfinite(out[j]))
      throw invalid_argument("vertex " + vertex_name(label, j) +
                             ": the sum of its out-arc weights overflows a double");
    if (out[j] == 0.0) {
      g.dangling[j] = 1;
      ++g.dangling_count;
    }
  }
  // P^T(i, j) = A(j, i) / d_j. An arc of weight 0 out of a vertex whose every
  // out-arc weighs 0 stays an explicit 0 (that vertex is dangling).
  for (std::size_t k = 0; k < at.nnz(); ++k) {
    const double d = out[at.col_idx[k]];
    at.values[k] = d == 0.0 ? 0.0 : (weighted ? at.values[k] : 1.0) / d;
  }
  if constexpr (std::is_same_v<T, double>) {
    g.pt = std::move(at);
  } else {
    g.pt = value_cast<T>(at);
  }
  return g;
}

// ---- options -----------------------------------------------------------------

std::string_view name(pagerank_loop l) {
  switch (l) {
    case pagerank_loop::automatic:
      return "auto";
    case pagerank_loop::graph_while:
      return "graph-while";
    case pagerank_loop::check_every:
      return "check-every";
    case pagerank_loop::host:
      return "host";
  }
  return "unknown";
}

pagerank_loop parse_pagerank_loop(std::string_view s) {
  for (auto l : {pagerank_loop::automatic, pagerank_loop::graph_while, pagerank_loop::check_every})
    if (name(l) == s) return l;
  throw invalid_argument("unknown loop mode '" + std::string(s) +
                         "' (valid: auto, graph-while, check-every)");
}

pagerank_pull resolve_pull(pagerank_pull p, bool pattern, spmv_kernel kernel) {
  if (p != pagerank_pull::automatic) return p;
  return pattern && kernel == spmv_kernel::automatic ? pagerank_pull::fused : pagerank_pull::spmv;
}

std::string_view name(pagerank_device d) {
  switch (d) {
    case pagerank_device::automatic:
      return "auto";
    case pagerank_device::cpu:
      return "cpu";
    case pagerank_device::cuda:
      return "cuda";
  }
  return "unknown";
}

pagerank_device parse_pagerank_device(std::string_view s) {
  for (auto d : {pagerank_device::automatic, pagerank_device::cpu, pagerank_device::cuda})
    if (name(d) == s) return d;
  throw invalid_argument("unknown device '" + std::string(s) + "' (valid: auto, cpu, cuda)");
}

std::vector<double> normalized_distribution(const std::vector<double>& w, index_t n, const char* what) {
  const auto nn = static_cast<std::size_t>(n);
  if (w.empty()) return std::vector<double>(nn, 1.0 / static_cast<double>(n));
  if (w.size() != nn)
    throw invalid_argument(std::string(what) + ": " + std::to_string(w.size()) + " values for a graph of " +
                           std::to_string(n) + " vertices");
  double sum = 0.0;
  for (std::size_t i = 0; i < nn; ++i) {
    if (!(w[i] >= 0.0) || !std::isfinite(w[i]))
      throw invalid_argument(std::string(what) + ": entry " + std::to_string(i + 1) + " is " + fmt(w[i]) +
                             " (weights must be finite and non-negative)");
    sum += w[i];
  }
  if (!(sum > 0.0) || !std::isfinite(sum))
    throw invalid_argument(std::string(what) + ": " +
                           (sum > 0.0 ? std::string("the weights' sum overflows") : "all weights are zero"));
  std::vector<double> out(nn);
  for (std::size_t i = 0; i < nn; ++i) out[i] = w[i] / sum;
  return out;
}

void validate(const pagerank_options& opt, index_t n) {
  if (!(opt.alpha >= 0.0 && opt.alpha < 1.0))
    throw invalid_argument("alpha must be in [0, 1), got " + fmt(opt.alpha));
  if (!(opt.tol > 0.0) || !std::isfinite(opt.tol))
    throw invalid_argument("tol must be a positive number, got " + fmt(opt.tol));
  if (opt.max_iter < 1) throw invalid_argument("max_iter must be >= 1, got " + std::to_string(opt.max_iter));
  if (opt.check_interval < 1)
    throw invalid_argument("check_interval must be >= 1, got " + std::to_string(opt.check_interval));
  if (opt.graph_unroll < 0)
    throw invalid_argument("graph_unroll must be >= 0 (0: automatic), got " +
                           std::to_string(opt.graph_unroll));
  if (opt.loop == pagerank_loop::host)
    throw invalid_argument(
        "loop mode 'host' is what the CPU solver reports; ask for auto, graph-while or check-every");
  // (empty means uniform: nothing to check, and no n-sized vector to build)
  if (!opt.personalization.empty()) normalized_distribution(opt.personalization, n, "personalization");
  if (!opt.initial.empty()) normalized_distribution(opt.initial, n, "initial vector");
}

// ---- CPU power iteration -----------------------------------------------------

template <class T>
pagerank_result pagerank_cpu(const pagerank_graph<T>& g, const pagerank_options& opt) {
  const index_t n = g.vertices();
  validate(opt, n);
  const auto nn = static_cast<std::size_t>(n);
  const std::vector<double> v = normalized_distribution(opt.personalization, n, "personalization");
  const std::vector<double> r0 = normalized_distribution(opt.initial, n, "initial vector");
  const double alpha = opt.alpha;
  const std::uint8_t* dangling = g.dangling.data();

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<T> r(nn), y(nn);
  double dangling_mass = 0.0;  // sum_{j dangling} r_k(j)
  for (std::size_t i = 0; i < nn; ++i) {
    r[i] = static_cast<T>(r0[i]);
    if (dangling[i]) dangling_mass += static_cast<double>(r[i]);
  }

  pagerank_result res;
  for (int k = 1; k <= opt.max_iter; ++k) {
    // y = P^T r_k
    spmv(g.pt, T(1), r.data(), T(0), y.data());
    // r_{k+1} = alpha y + (alpha * dangling mass + 1 - alpha) v; residual and the
    // next dangling mass from the stored (rounded) values, accumulated in double.
    const double c = alpha * dangling_mass + (1.0 - alpha);
    double l1 = 0.0, next_dangling = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : l1, next_dangling) if (n >= 16384)
    for (index_t i = 0; i < n; ++i) {
      const T rn = static_cast<T>(alpha * static_cast<double>(y[i]) + c * v[i]);
      l1 += std::fabs(static_cast<double>(rn) - static_cast<double>(r[i]));
      r[i] = rn;
      if (dangling[i]) next_dangling += static_cast<double>(rn);
    }
    dangling_mass = next_dangling;
    res.iterations = k;
    res.residual = l1;
    if (opt.progress) opt.progress(k, l1);
    if (l1 < opt.tol) {
      res.converged = true;
      break;
    }
  }
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.rank.assign(r.begin(), r.end());
  res.on_gpu = false;
  res.kernel = spmv_kernel::cpu;
  res.loop = pagerank_loop::host;
  return res;
}

// ---- dispatch --------------------------------------------------------------------

template <class T>
pagerank_result pagerank(const pagerank_graph<T>& g, const pagerank_options& opt, pagerank_device device,
                         spmv_kernel kernel, pagerank_pull pull) {
  if (device == pagerank_device::cuda && kernel == spmv_kernel::cpu)
    throw invalid_argument("device cuda with kernel cpu: the cpu kernel runs on the host");
  bool gpu = false;
  switch (device) {
    case pagerank_device::cpu:
      gpu = false;
      break;
    case pagerank_device::cuda:
      gpu = true;
      break;
    case pagerank_device::automatic:
      gpu = kernel != spmv_kernel::cpu && cuda::available();
      break;
  }
  if (!gpu) return pagerank_cpu(g, opt);
  if (!cuda::available())
    throw cuda_error(cuda::built()
                         ? "device cuda: no usable CUDA device"
                         : "device cuda: perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)");
  validate(opt, g.vertices());
  pagerank_cuda<T> solver(g, kernel, pull);
  return solver.solve(opt);
}

// ---- per-vertex vectors from files ---------------------------------------------------

namespace {

bool starts_like_matrix_market(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[14] = {};
  in.read(head, sizeof head);
  const std::string h(head, static_cast<std::size_t>(in.gcount()));
  // gzip magic: only the Matrix Market reader reads compressed files.
  if (h.size() >= 2 && static_cast<unsigned char>(h[0]) == 0x1f && static_cast<unsigned char>(h[1]) == 0x8b)
    return true;
  return h.rfind("%%MatrixMarket", 0) == 0;
}

}  // namespace

std::vector<double> read_vertex_weights(const std::string& path, index_t n,
                                        const std::vector<std::int64_t>& label) {
  {
    std::ifstream probe(path);
    if (!probe) throw io_error(path, "cannot open");
  }
  const auto nn = static_cast<std::size_t>(n);
  if (starts_like_matrix_market(path)) {
    io::mm_array arr = io::read_matrix_market_array(path);
    const auto rows = arr.header.rows, cols = arr.header.cols;
    if (!((rows == n && cols == 1) || (rows == 1 && cols == n)) || arr.values.size() != nn)
      throw dimension_error(path + ": a vector of " + std::to_string(n) +
                            " values (one per vertex) is needed, got " + std::to_string(rows) + " x " +
                            std::to_string(cols));
    for (std::size_t i = 0; i < nn; ++i)
      if (!(arr.values[i] >= 0.0) || !std::isfinite(arr.values[i]))
        throw parse_error(path, 0,
                          "value " + std::to_string(i + 1) + " (vertex " + vertex_name(label, index_t(i)) +
                              ") is " + fmt(arr.values[i]) + "; weights must be finite and non-negative");
    return std::move(arr.values);
  }

  std::unordered_map<std::int64_t, index_t> index_of;
  if (!label.empty()) {
    index_of.reserve(label.size());
    for (std::size_t i = 0; i < label.size(); ++i) index_of.emplace(label[i], static_cast<index_t>(i));
  }
  std::vector<double> w(nn, 0.0);
  std::vector<std::uint8_t> seen(nn, 0);
  std::ifstream in(path);
  std::string line;
  std::uint64_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#' || line[first] == '%') continue;
    const char* p = line.c_str() + first;
    char* end = nullptr;
    errno = 0;
    const long long id = std::strtoll(p, &end, 10);
    if (end != p && *end == '\0')
      throw parse_error(path, lineno, "expected 'vertex weight', the weight is missing");
    if (end == p || (*end != ' ' && *end != '\t') || errno == ERANGE)
      throw parse_error(path, lineno, "expected 'vertex weight', the vertex is not an integer");
    p = end;
    const double x = std::strtod(p, &end);
    if (end == p)
      throw parse_error(path, lineno, "expected 'vertex weight', the weight is missing or not a number");
    for (p = end; *p == ' ' || *p == '\t'; ++p) {
    }
    if (*p != '\0') throw parse_error(path, lineno, "expected 'vertex weight', found more on the line");
    if (!(x >= 0.0) || !std::isfinite(x))
      throw parse_error(path, lineno, "weight " + fmt(x) + ": weights must be finite and non-negative");
    index_t i = -1;
    if (label.empty()) {
      if (id >= 1 && id <= static_cast<long long>(n)) i = static_cast<index_t>(id - 1);
    } else if (auto it = index_of.find(id); it != index_of.end()) {
      i = it->second;
    }
    if (i < 0)
      throw parse_error(
          path, lineno,
          "vertex " + std::to_string(id) + " is not in the graph" +
              (label.empty() ? " (vertices are numbered 1.." + std::to_string(n) + ")" : std::string()));
    if (seen[i]) throw parse_error(path, lineno, "vertex " + std::to_string(id) + " is listed twice");
    seen[i] = 1;
    w[i] = x;
  }
  if (in.bad()) throw io_error(path, "read error");
  return w;
}

// ---- instantiations --------------------------------------------------------------

template pagerank_graph<float> make_pagerank_graph<float>(const coo_matrix<double>&, bool,
                                                          const std::vector<std::int64_t>&, bool);
template pagerank_graph<double> make_pagerank_graph<double>(const coo_matrix<double>&, bool,
                                                            const std::vector<std::int64_t>&, bool);
template pagerank_result pagerank_cpu<float>(const pagerank_graph<float>&, const pagerank_options&);
template pagerank_result pagerank_cpu<double>(const pagerank_graph<double>&, const pagerank_options&);
template pagerank_result pagerank<float>(const pagerank_graph<float>&, const pagerank_options&,
                                         pagerank_device, spmv_kernel, pagerank_pull);
template pagerank_result pagerank<double>(const pagerank_graph<double>&, const pagerank_options&,
                                          pagerank_device, spmv_kernel, pagerank_pull);

}  // namespace perron
