// perron's Python extension (_perron): the C++ entry points the package
// perron (python/perron/__init__.py) wraps. Arrays cross as numpy arrays;
// perron's errors become ValueError / MemoryError / FileNotFoundError /
// OSError / RuntimeError (their messages name keywords, not flags); solves and reads run with the GIL
// released.
#include <omp.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "io/interrupt.hpp"
#include "io/load.hpp"
#include "kernels/convert.hpp"
#include "kernels/spmv.hpp"
#include "solvers/pagerank.hpp"
#include "solvers/pagerank_batched.hpp"
#include "solvers/pagerank_device.hpp"

namespace py = pybind11;

namespace perron::python {
namespace {

template <class T>
using array = py::array_t<T, py::array::c_style | py::array::forcecast>;

// A daemon thread whose work ends once Python is exiting waits in
// ~gil_released for the process's exit: taking the GIL back in a finalizing
// interpreter ends the thread by pthread_exit, and its unwinding through
// py::gil_scoped_release's destructor (noexcept) aborted the process
// ('terminate called without an active exception'; Python 3.14 waits so
// itself). `exiting` is set by an atexit callback, which Python runs on the
// main thread before it finalizes, so that a daemon thread already waiting for
// the GIL then is rare; it, or a thread that is no daemon (those Python waits
// for before, unless started in an atexit callback), is ended by the same
// pthread_exit, whose unwinding ~gil_released lets through (noexcept(false))
// and pybind11 rethrows.
std::atomic<bool> exiting{false};
unsigned long main_thread = 0;  // PyThread_get_thread_ident() of Python's main thread

class gil_released {
 public:
  gil_released() : daemon_(daemon_thread()), state_(PyEval_SaveThread()) {}
  ~gil_released() noexcept(false) {
    if (daemon_ && (exiting.load() || finalizing()))
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    PyEval_RestoreThread(state_);
  }
  gil_released(const gil_released&) = delete;
  gil_released& operator=(const gil_released&) = delete;

 private:
  static bool daemon_thread() {  // (threads Python did not start are daemons too)
    return PyThread_get_thread_ident() != main_thread &&
           py::module_::import("threading").attr("current_thread")().attr("daemon").cast<bool>();
  }
  static bool finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing() != 0;
#else
    return _Py_IsFinalizing() != 0;
#endif
  }
  bool daemon_;
  PyThreadState* state_;
};

template <class T>
std::vector<T> to_vector(const array<T>& a) {
  return std::vector<T>(a.data(), a.data() + a.size());
}

// A large array copied by the team (fresh pages, each first touched by its copier).
template <class T>
std::vector<T> parallel_copy(const array<T>& a) {
  const auto n = static_cast<std::size_t>(a.size());
  std::vector<T> out = fresh_vector<T>(n);
  const T* from = a.data();
#pragma omp parallel for schedule(static) num_threads(threads_for_work(n))
  for (std::size_t k = 0; k < n; ++k) out[k] = from[k];
  return out;
}

template <class T, class A>
py::array_t<T> to_numpy(std::vector<T, A>&& v) {
  // The vector moves into a capsule that the array keeps alive: no copy.
  using vector = std::vector<T, A>;
  auto* owner = new vector(std::move(v));
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<vector*>(p); });
  return py::array_t<T>({owner->size()}, {sizeof(T)}, owner->data(), free_when_done);
}

// CSR arrays (indptr, indices, data) and a shape as perron's CSR.
csr_matrix<double> csr_from(index_t rows, index_t cols, const array<index_t>& indptr,
                            const array<index_t>& indices, const array<double>& data) {
  csr_matrix<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr = to_vector(indptr);
  a.col_idx = to_vector(indices);
  a.values = to_vector(data);
  validate(a, "the sparse matrix");
  return a;
}

// An edge list's vertex names as a list of str: UTF-8, a byte that is not
// decoded as os.fsdecode does (surrogateescape), so no name is refused.
py::list names_list(const std::vector<std::string>& name) {
  py::list out(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    PyObject* s =
        PyUnicode_DecodeUTF8(name[i].data(), static_cast<Py_ssize_t>(name[i].size()), "surrogateescape");
    if (!s) throw py::error_already_set();
    out[i] = py::reinterpret_steal<py::object>(s);
  }
  return out;
}

// Ctrl-C while a read waits on a pipe or a named pipe (a writer that never
// writes): the read runs check() every 0.1 s (io/interrupt.hpp), which takes
// the GIL and lets Python run its signal handlers; what they raise is kept
// (the error indicator fetched) and the read abandoned by an exception the
// io layer passes on; raise_if_any(), with the GIL back, raises it. Before,
// the read retried its interrupted read() and Ctrl-C waited for the writer.
// Only on the main thread, the one Python runs handlers on.
class raised_in_read {
 public:
  struct abandoned : std::runtime_error {
    abandoned() : std::runtime_error("the read was interrupted") {}
  };
  std::function<void()> check() {
    return [this] {
      if (!type_) {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() == 0) return;
        PyErr_Fetch(&type_, &value_, &trace_);
      }
      throw abandoned();  // again at every later check: a reader that caught the first still ends
    };
  }
  void raise_if_any() {  // with the GIL
    if (!type_) return;
    PyErr_Restore(std::exchange(type_, nullptr), std::exchange(value_, nullptr),
                  std::exchange(trace_, nullptr));
    throw py::error_already_set();
  }
  raised_in_read() = default;
  raised_in_read(const raised_in_read&) = delete;
  raised_in_read& operator=(const raised_in_read&) = delete;
  ~raised_in_read() {  // (with the GIL: raise_if_any ran, or nothing was kept)
    Py_XDECREF(type_);
    Py_XDECREF(value_);
    Py_XDECREF(trace_);
  }

 private:
  PyObject *type_ = nullptr, *value_ = nullptr, *trace_ = nullptr;
};

// Reads a matrix file (Matrix Market, .gz, .tar.gz, SNAP) into CSR arrays,
// duplicates summed; labels: SNAP's original vertex ids (empty for Matrix Market),
// a list of str for an edge list of vertex names;
// undirected: every arc also reversed (io::read_options::undirected);
// bipartite: the two columns as two sets of vertices (io::read_options::bipartite).
py::tuple read_matrix(const std::string& path, bool cache, bool undirected, bool names, bool bipartite) {
  const team_scope team(process_team());  // a core left to the machine's other work
  io::read_options opt;
  opt.cache.enabled =
      cache;  // a reading by name or as two sets keeps entries of its own (io::cache_options_of)
  opt.undirected = undirected;
  opt.all_names = names;
  opt.bipartite = bipartite;
  io::loaded_matrix m;
  csr_matrix<double> a;
  std::exception_ptr failed;
  raised_in_read raised;
  {
    gil_released free;
    try {
      std::optional<io::interrupt_scope> interruptible;
      if (PyThread_get_thread_ident() == main_thread) interruptible.emplace(raised.check());
      m = io::load_matrix(path, opt);
      a = to_csr(m.matrix);
    } catch (...) {
      failed = std::current_exception();
    }
  }
  // What a signal handler raised while the read waited (KeyboardInterrupt)
  // is raised, whatever became of the read; then a read that a signal
  // interrupted otherwise raises it too, not OSError "Interrupted system call"
  // with the KeyboardInterrupt after it, inside the caller's except OSError.
  raised.raise_if_any();
  if (failed) {
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    std::rethrow_exception(failed);
  }
  py::object labels =
      m.name.empty() ? py::object(to_numpy(std::move(m.label))) : py::object(names_list(m.name));
  return py::make_tuple(py::make_tuple(a.rows, a.cols), to_numpy(std::move(a.row_ptr)),
                        to_numpy(std::move(a.col_idx)), to_numpy(std::move(a.values)), labels);
}

// Before the caller's arrays are copied, what make_pagerank_graph checks for
// the command line: about 48 bytes a vertex (out-degrees, dangling flags, the
// solver's vectors, the ranks) and 32 a link (the copies of A^T in double and
// in T, the conversion's scratch). The module's path had no such check, so a
// graph too large for the host went on until an allocation failed.
void check_pagerank_memory(index_t n, std::size_t links) {
  check_host_memory(
      48.0 * double(n) + 32.0 * double(links),
      "PageRank of a graph of " + std::to_string(n) + " vertices and " + std::to_string(links) + " links");
}

struct pagerank_request {
  index_t n = 0;
  bool transposed = false;  // the arrays are CSR of A^T (CSC of A)
  bool weighted = false;
  std::string device = "auto", precision = "float", kernel = "auto", pull = "auto", accelerate = "auto";
};

// The caller's graph as P^T (with the GIL released: the arrays are the
// caller's, borrowed for the call). Unweighted, the values are never read:
// the pattern of A^T alone (A's transposed in parallel, or the CSC's indices
// copied), P^T written over it in place (pagerank_graph_from_pattern). Before,
// every graph went through a copy of A in double and transpose()'s scatter of
// the values: 260 ms of a 300 ms CPU call on er:1000000:10000000 (H200 host,
// session 73), the solve 39. Weighted: A in double, transposed with its
// weights (an arc given twice: their sum), checked and normalized.
template <class T>
pagerank_graph<T> graph_of(const array<index_t>& indptr, const array<index_t>& indices,
                           const array<double>& data, const pagerank_request& req) {
  const auto nnz = static_cast<std::size_t>(indices.size());
  const auto ptr_size = static_cast<std::size_t>(indptr.size());
  gil_released free;
  // The caller's index arrays are copied before they are checked, and only
  // the copies read after: another thread writing A.indices during the call
  // (the GIL is released) made the transpose read a column it had not
  // checked, a write out of bounds. The copy costs 2-3% of a CPU call
  // (er:1000000:10000000, 2 cores).
  // (The weighted path's csr_from copies them too.)
  if (!req.weighted) {
    std::vector<index_t> ptr = to_vector(indptr), col = parallel_copy(indices);
    if (req.transposed) {
      validate_pattern(req.n, req.n, ptr.data(), ptr_size, col.data(), nnz, "the sparse matrix");
      csr_matrix<T> at;
      at.rows = at.cols = req.n;
      at.row_ptr = std::move(ptr);
      at.col_idx = std::move(col);
      at.values = fresh_vector<T>(nnz);  // P^T's values, written by the build
      return pagerank_graph_from_pattern(std::move(at), {}, transpose_rows::check);
    }
    // sorted and merged by the transpose (a column listed twice: one arc)
    return pagerank_graph_from_pattern(
        pattern_transpose<T>(req.n, req.n, ptr.data(), ptr_size, col.data(), nnz, "the sparse matrix"), {},
        transpose_rows::sorted_unique);
  }
  csr_matrix<double> a = csr_from(req.n, req.n, indptr, indices, data);
  if (!req.transposed) a = transpose(a);  // merges an arc given twice (kernels/convert.hpp)
  // The caller's CSR of A^T is checked; transpose()'s has its rows sorted and merged.
  return pagerank_graph_from_transpose<T>(
      std::move(a), true, {}, req.transposed ? transpose_rows::check : transpose_rows::sorted_unique);
}

// Ctrl-C during a solve, single or batched (pagerank_options::interrupt): the
// CPU solvers call it after every step with the GIL released, the GPU solvers
// while they wait on the device (and stop it before the exception goes on); at most
// every 0.1 s this takes the GIL and lets Python run its signal handlers, and
// what they raise (KeyboardInterrupt) ends the solve. Without it Ctrl-C
// waited for the solve's end, max_iter steps where tol is out of reach. Only
// on the main thread, the one Python runs handlers on (on another, a daemon
// thread taking the GIL in a finalizing interpreter is ended: gil_released
// above).
std::function<void()> interrupt_check() {
  if (PyThread_get_thread_ident() != main_thread) return {};
  using clock = std::chrono::steady_clock;
  return [next = clock::now() + std::chrono::milliseconds(100)]() mutable {
    if (clock::now() < next) return;
    next = clock::now() + std::chrono::milliseconds(100);
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
}

// device="auto" (validated options): the device predicted to answer first,
// by the library's decide_device (solvers/pagerank_device.hpp: the model
// `pagerank --device auto` uses, for a graph in memory); opt.device becomes
// cpu or cuda. Returns why. The
// module took the GPU wherever one was usable: on the H200 host a call there
// took 6-21 ms on 13 of the 14 shared graphs, which the CPU solved in 0.1-7.7
// ms (docs/PERFORMANCE.md, "perron against networkx"). columns:
// pagerank_batched's number of source sets (0: one solve).
template <class T>
std::string choose_device(pagerank_options& opt, const pagerank_graph<T>& g, std::size_t columns = 0) {
  if (opt.device == pagerank_device::cpu) return "device='cpu'";
  if (opt.device == pagerank_device::cuda) return "device='cuda'";
  if (opt.kernel == spmv_kernel::cpu) return "kernel='cpu'";
  if (!gpu_option_named(opt).empty()) return "auto: a GPU kernel or pull is named";
  const device_decision d = decide_device(opt, in_memory_graph_of(g, columns));
  opt.device = d.gpu ? pagerank_device::cuda : pagerank_device::cpu;
  return d.reason;
}

template <class T>
py::tuple solve(const array<index_t>& indptr, const array<index_t>& indices, const array<double>& data,
                const pagerank_request& req, pagerank_options opt) {
  opt.validate();  // before pagerank_runs_on_gpu, as pagerank() asks them
  const pagerank_graph<T> g = graph_of<T>(indptr, indices, data, req);
  const std::string why = choose_device(opt, g);
  opt.interrupt = interrupt_check();
  pagerank_result r;
  {
    gil_released free;
    r = pagerank(g, opt);
  }
  py::dict info;
  info["iterations"] = r.iterations;
  info["residual"] = r.residual;
  info["converged"] = r.converged;
  info["device"] = r.on_gpu ? "cuda" : "cpu";
  info["device_choice"] = why;
  info["pull"] = std::string(name(r.pull));
  info["kernel"] = r.on_gpu ? kernel_text(r.pull, r.kernel) : std::string("cpu");
  info["solve_seconds"] = r.solve_seconds;
  info["device_seconds"] = r.device_seconds;
  info["trial_seconds"] = r.trial_seconds;  // GPU: the pull trial's wall time (0: none ran)
  info["host_syncs"] = r.host_syncs;
  info["accelerate"] = std::string(name(r.accelerate));
  info["extrapolations"] = r.extrapolations;
  info["extrapolations_rejected"] = r.extrapolations_rejected;
  return py::make_tuple(to_numpy(std::move(r.rank)), info);
}

py::tuple pagerank_csr(const array<index_t>& indptr, const array<index_t>& indices, const array<double>& data,
                       const pagerank_request& req, const pagerank_options& base) {
  const team_scope team(process_team());  // a core left to the machine's other work
  pagerank_options opt = base;
  opt.device = parse_pagerank_device(req.device);
  opt.pull = parse_pagerank_pull(req.pull);
  opt.accelerate = parse_pagerank_accel(req.accelerate);
  if (req.kernel != "auto") opt.kernel = parse_spmv_kernel(req.kernel);
  check_pagerank_memory(req.n, static_cast<std::size_t>(indices.size()));
  if (req.precision == "double") return solve<double>(indptr, indices, data, req, opt);
  if (req.precision == "float") return solve<float>(indptr, indices, data, req, opt);
  throw invalid_argument("precision must be 'float' or 'double', got '" + req.precision + "'");
}

// Personalized PageRank of many source sets at once (solvers/pagerank_batched.hpp):
// R as an n x s array in column order (column c: the ranks for set c, no copy)
// and per set its iterations, residual and whether it converged.
template <class T>
py::tuple solve_batched(const array<index_t>& indptr, const array<index_t>& indices,
                        const array<double>& data, const pagerank_request& req, pagerank_batched_options opt,
                        const std::vector<source_set>& sources) {
  const pagerank_graph<T> g = graph_of<T>(indptr, indices, data, req);
  const std::string why = choose_device(opt.base, g, sources.size());
  opt.base.interrupt = interrupt_check();  // (validated by the caller)
  pagerank_batched_result r;
  {
    gil_released free;
    r = pagerank_batched(g, sources, opt);
  }
  py::dict info;
  info["device_choice"] = why;
  info["iterations"] = to_numpy(std::vector<int>(r.iterations));
  info["residual"] = to_numpy(std::vector<double>(r.residual));
  info["converged"] = to_numpy(std::vector<std::uint8_t>(r.converged));  // 0 / 1, bool in Python
  info["device"] = r.on_gpu ? "cuda" : "cpu";
  info["solve_seconds"] = r.solve_seconds;
  info["device_seconds"] = r.device_seconds;
  info["column_steps"] = r.column_steps;
  info["compactions"] = r.compactions;
  if (r.on_gpu) info["step"] = r.step_choice;  // which step ran, and its trial's times
  const auto rows = static_cast<std::size_t>(r.vertices), cols = r.sources;
  auto* owner = new rank_block(std::move(r.rank));
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<rank_block*>(p); });
  py::array_t<double> ranks({rows, cols}, {sizeof(double), rows * sizeof(double)}, owner->data(),
                            free_when_done);
  return py::make_tuple(ranks, info);
}

py::tuple pagerank_batched_csr(const array<index_t>& indptr, const array<index_t>& indices,
                               const array<double>& data, const pagerank_request& req,
                               const pagerank_options& base, const std::vector<source_set>& sources) {
  const team_scope team(process_team());  // a core left to the machine's other work
  pagerank_batched_options opt;
  opt.base = base;
  opt.base.device = parse_pagerank_device(req.device);
  opt.validate(req.n, sources);
  check_pagerank_memory(req.n, static_cast<std::size_t>(indices.size()));
  if (req.precision == "double") return solve_batched<double>(indptr, indices, data, req, opt, sources);
  if (req.precision == "float") return solve_batched<float>(indptr, indices, data, req, opt, sources);
  throw invalid_argument("precision must be 'float' or 'double', got '" + req.precision + "'");
}

// y = A x through the named kernel ("cpu", a GPU kernel, or "auto": the GPU's
// automatic choice when a GPU is present, else the CPU).
template <class T>
py::array_t<T> spmv_typed(csr_matrix<double>&& a64, const array<T>& x, const std::string& kernel_name) {
  if (static_cast<std::size_t>(x.size()) != static_cast<std::size_t>(a64.cols))
    throw dimension_error("spmv: x has " + std::to_string(x.size()) + " entries for a matrix of " +
                          std::to_string(a64.cols) + " columns");
  spmv_kernel k = parse_spmv_kernel(kernel_name);
  if (k == spmv_kernel::automatic && !cuda::available()) k = spmv_kernel::cpu;
  if (k != spmv_kernel::cpu && !cuda::available())  // the plan's own error named neither spmv nor the kernel
    throw cuda_error("spmv: kernel '" + kernel_name + "' runs on the GPU: " + cuda::why_unavailable() +
                     " ('cpu' or 'auto' runs on the CPU)");
  csr_matrix<T> a = value_cast<T>(a64);
  std::vector<T> y(static_cast<std::size_t>(a.rows));
  {
    gil_released free;
    if (k == spmv_kernel::cpu) {
      spmv(a, T(1), x.data(), T(0), y.data());
    } else {
      spmv_plan<T> plan(a, k);
      cuda::device_buffer<T> d_x(static_cast<std::size_t>(a.cols)), d_y(y.size());
      d_x.upload(x.data(), static_cast<std::size_t>(x.size()));
      plan.apply(T(1), d_x.data(), T(0), d_y.data());
      d_y.download(y.data());
    }
  }
  return to_numpy(std::move(y));
}

// The copy of A, its copy in the precision of x and y (unchecked before, as
// PageRank's), and `more` bytes the caller needs first (the module's CSR copy
// of a matrix in another format, checked before scipy makes it).
void check_spmv_memory(index_t rows, index_t cols, std::size_t entries, double more) {
  check_host_memory(
      2.0 * (4.0 * (double(rows) + 1) + 12.0 * double(entries)) + 8.0 * double(rows) + more,
      "spmv of a " + dimensions(rows, cols) + " matrix with " + std::to_string(entries) + " entries");
}

py::object spmv_csr(index_t rows, index_t cols, const array<index_t>& indptr, const array<index_t>& indices,
                    const array<double>& data, const py::array& x, const std::string& kernel) {
  const team_scope team(process_team());  // a core left to the machine's other work
  check_spmv_memory(rows, cols, static_cast<std::size_t>(indices.size()), 0.0);
  csr_matrix<double> a = csr_from(rows, cols, indptr, indices, data);
  if (py::isinstance<py::array_t<float>>(x))
    return spmv_typed<float>(std::move(a), x.cast<array<float>>(), kernel);
  return spmv_typed<double>(std::move(a), x.cast<array<double>>(), kernel);
}

// The library names an option as the command line spells it (--max-iter);
// a Python caller gave it as a keyword (max_iter), so the message names that.
// A flag in parentheses after the thing it sets ("initial vector
// (--initial)") is dropped; a flag the Python functions do not take is left
// as it is, and so is anything not a flag in a sentence (a path's "x/--tol").
std::string python_names(const std::string& what) {
  static const std::pair<const char*, const char*> keywords[] = {{"alpha", "alpha"},
                                                                 {"tol", "tol"},
                                                                 {"max-iter", "max_iter"},
                                                                 {"accelerate-every", "accelerate_every"},
                                                                 {"accelerate", "accelerate"},
                                                                 {"device", "device"},
                                                                 {"precision", "precision"},
                                                                 {"kernel", "kernel"},
                                                                 {"pull", "pull"},
                                                                 {"weighted", "weighted"},
                                                                 {"sources", "sources"},
                                                                 {"personalize", "personalization"},
                                                                 {"initial", "nstart"}};
  const auto is_name = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; };
  std::string out;
  for (std::size_t i = 0; i < what.size();) {
    if (what.compare(i, 2, "--") != 0 || (i > 0 && what[i - 1] != ' ' && what[i - 1] != '(')) {
      out += what[i++];
      continue;
    }
    std::size_t end = i + 2;
    while (end < what.size() && is_name(what[end])) ++end;
    const std::string flag = what.substr(i + 2, end - i - 2);
    const char* keyword = nullptr;
    const bool ends = end == what.size() || std::strchr(" ,:;)", what[end]) != nullptr;
    for (const auto& [f, k] : keywords)
      if (ends && flag == f) keyword = k;
    if (keyword == nullptr) {
      out += what.substr(i, end - i);
    } else if (out.size() >= 2 && out.compare(out.size() - 2, 2, " (") == 0 && end < what.size() &&
               what[end] == ')') {
      out.resize(out.size() - 2);  // "thing (--flag)": the thing alone
      ++end;
    } else {
      out += keyword;
    }
    i = end;
  }
  return out;
}

// An error's message as Python text. A path given as bytes that are not UTF-8
// (a name Linux allows) keeps them as \xNN escapes: PyErr_SetString decodes
// strictly, and such a message came out empty.
void set_error(PyObject* type, const char* what) {
  PyObject* text = PyUnicode_DecodeUTF8(what, static_cast<Py_ssize_t>(std::strlen(what)), "backslashreplace");
  if (text == nullptr) return;  // (out of memory: that error is set)
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

void register_errors(py::module_& m) {
  static py::exception<cuda_error> cuda_exc(m, "CudaError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const io_error& e) {
      // Not exists(), which throws where the path loops (ELOOP) or cannot be
      // searched: that escaped the translator as a RuntimeError.
      std::error_code ec;
      if (std::filesystem::status(e.file, ec).type() == std::filesystem::file_type::not_found)
        set_error(PyExc_FileNotFoundError, e.what());
      else
        set_error(PyExc_OSError, e.what());
    } catch (const cuda_error& e) {
      set_error(cuda_exc.ptr(), python_names(e.what()).c_str());
    } catch (const parse_error& e) {  // the file's name and line as they are
      const std::string what = e.what();
      const std::size_t at = what.size() - e.reason.size();
      set_error(PyExc_ValueError, (what.substr(0, at) + python_names(what.substr(at))).c_str());
    } catch (const memory_error& e) {  // more than the host or the GPU has free
      set_error(PyExc_MemoryError, python_names(e.what()).c_str());
    } catch (const error& e) {  // parse, dimension, not_supported, invalid_argument
      set_error(PyExc_ValueError, python_names(e.what()).c_str());
    }
  });
}

}  // namespace
}  // namespace perron::python

PYBIND11_MODULE(_perron, m) {
  using namespace perron;
  using namespace perron::python;
  m.doc() = "perron's C++ core (use the package perron, which wraps it)";
  register_errors(m);
  main_thread = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  py::module_::import("atexit").attr("register")(py::cpp_function([] { exiting = true; }));
  py::class_<pagerank_request>(m, "PageRankRequest")
      .def(py::init<>())
      .def_readwrite("n", &pagerank_request::n)
      .def_readwrite("transposed", &pagerank_request::transposed)
      .def_readwrite("weighted", &pagerank_request::weighted)
      .def_readwrite("device", &pagerank_request::device)
      .def_readwrite("precision", &pagerank_request::precision)
      .def_readwrite("kernel", &pagerank_request::kernel)
      .def_readwrite("pull", &pagerank_request::pull)
      .def_readwrite("accelerate", &pagerank_request::accelerate);
  py::class_<pagerank_options>(m, "PageRankOptions")
      .def(py::init<>())
      .def_readwrite("alpha", &pagerank_options::alpha)
      .def_readwrite("tol", &pagerank_options::tol)
      .def_readwrite("max_iter", &pagerank_options::max_iter)
      .def_readwrite("accelerate_every", &pagerank_options::accelerate_every)
      // Set from a float64 array in one copy: a list went through n Python floats
      // and pybind11's list conversion (n = 10^7: 0.39 s and 0.53 GB at peak, now 0.03 s and 0.08 GB).
      .def_property(
          "personalization", [](const pagerank_options& o) { return o.personalization; },
          [](pagerank_options& o, const array<double>& v) { o.personalization = to_vector(v); })
      .def_property(
          "initial", [](const pagerank_options& o) { return o.initial; },
          [](pagerank_options& o, const array<double>& v) { o.initial = to_vector(v); });
  m.def("read_matrix", &read_matrix, py::arg("path"), py::arg("cache") = true, py::arg("undirected") = false,
        py::arg("names") = false, py::arg("bipartite") = false);
  m.def("pagerank_csr", &pagerank_csr);
  // The solve's memory check on its own: the package runs it before it
  // converts or copies a graph (a COO's tocsr() allocated GBs first).
  m.def("check_pagerank_memory", &check_pagerank_memory, py::arg("n"), py::arg("links"));
  m.def("check_spmv_memory", &check_spmv_memory, py::arg("rows"), py::arg("cols"), py::arg("entries"),
        py::arg("more"));
  m.def("pagerank_batched_csr", &pagerank_batched_csr);
  m.def("spmv_csr", &spmv_csr);
  m.def("gpu_available", [] { return cuda::available(); });
  m.def("kernels", [] {
    std::vector<std::string> names;
    for (spmv_kernel k : spmv_kernels()) names.emplace_back(name(k));
    return names;
  });
}
