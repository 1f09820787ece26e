// PageRank on several GPUs of one process through NCCL (solvers/dist/pagerank_nccl.hpp).
#include <dlfcn.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/spmv.hpp"
#include "solvers/dist/pagerank_dist.hpp"
#include "solvers/dist/pagerank_nccl.hpp"

namespace perron::dist {
namespace {

constexpr index_t sum_block = pagerank_sum_block;  // solvers/pagerank.hpp
constexpr int update_threads = 256;
constexpr int max_timed_iterations = 1000;  // --bench-dist: events for at most this many iterations
// The GPUs' rows are cut at equal cost, a row costing this many links: on 2
// H200s (session 21) rmat:26's halves of 530 M links each took 4.60 ms with
// 9.4 M rows and 5.41 ms with 57.7 M rows per pull and update: 8.4 ps a link,
// 16.8 ps a row (the row's pointer, y, v, the flag and r read and written;
// a link: its column, value and gather). Cut by links alone, the GPU holding
// R-MAT's many short rows was the slowest of every step.
constexpr std::uint64_t links_per_row = 2;

// The few NCCL entry points used, from libnccl.so.2 opened at run time.
struct nccl_api {
  decltype(&ncclCommInitAll) comm_init_all = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
};

const nccl_api& nccl() {
  static const nccl_api api = [] {
    void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      throw cuda_error(std::string("--gpus: cannot load NCCL (libnccl.so.2): ") + dlerror() +
                       "; put its folder on LD_LIBRARY_PATH");
    nccl_api a;
    const auto get = [&](auto& f, const char* name) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, name));
      if (!f) throw cuda_error(std::string("--gpus: NCCL has no ") + name);
    };
    get(a.comm_init_all, "ncclCommInitAll");
    get(a.comm_destroy, "ncclCommDestroy");
    get(a.all_gather, "ncclAllGather");
    get(a.broadcast, "ncclBroadcast");
    get(a.group_start, "ncclGroupStart");
    get(a.group_end, "ncclGroupEnd");
    get(a.error_string, "ncclGetErrorString");
    return a;
  }();
  return api;
}

void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw cuda_error(std::string(what) + " failed: " + nccl().error_string(r));
}

// The loop's scalars, on every GPU (each computes them from the same gathered
// partials): the dangling mass and residual of the last iteration, and once
// the residual is below tol, done (later launches of the batch return at once,
// so r stays the converged iterate).
struct loop_state {
  double dangling_mass;
  double l1;
  int done;
  int iterations;
};

// r_new = alpha y + c v on the rows, written into this GPU's piece of r, and
// per 4096-vertex block (one CUDA block each) ||r_new - r||_1 and the new
// dangling mass, summed by a fixed shared-memory tree into part[2b], part[2b + 1].
template <class T>
__global__ void update_rows(index_t lo, index_t hi, const T* __restrict__ y, const double* __restrict__ v,
                            const std::uint8_t* __restrict__ dangling, double alpha, double one_minus_alpha,
                            T* piece, double* part, const loop_state* __restrict__ st) {
  __shared__ double l1s[update_threads], dms[update_threads];
  if (st->done) return;  // the same for every thread of the grid
  // c = alpha * dangling mass + (1 - alpha), rounded as the host computes it (no fused multiply-add)
  const double c = __dadd_rn(__dmul_rn(alpha, st->dangling_mass), one_minus_alpha);
  const index_t b0 = lo / sum_block;
  const index_t first = std::max(lo, (b0 + static_cast<index_t>(blockIdx.x)) * sum_block);
  const index_t last = std::min(hi, (b0 + static_cast<index_t>(blockIdx.x) + 1) * sum_block);
  double l1 = 0, dm = 0;
  for (index_t i = first + static_cast<index_t>(threadIdx.x); i < last; i += update_threads) {
    const index_t k = i - lo;
    const T rn = static_cast<T>(alpha * static_cast<double>(y[k]) + c * v[k]);
    l1 += fabs(static_cast<double>(rn) - static_cast<double>(piece[k]));
    piece[k] = rn;
    if (dangling[k]) dm += static_cast<double>(rn);
  }
  l1s[threadIdx.x] = l1;
  dms[threadIdx.x] = dm;
  __syncthreads();
  for (int s = update_threads / 2; s > 0; s /= 2) {
    if (static_cast<int>(threadIdx.x) < s) {
      l1s[threadIdx.x] += l1s[threadIdx.x + s];
      dms[threadIdx.x] += dms[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    part[2 * blockIdx.x] = l1s[0];
    part[2 * blockIdx.x + 1] = dms[0];
  }
}

// The pull's IF node runs only while the loop does: iterations queued past
// the stop (up to --check-every - 1 of them) skip their SpMV, as they skip
// the update and the sums.
__global__ void pull_while_running(cudaGraphConditionalHandle if_running, const loop_state* st) {
  cudaGraphSetConditional(if_running, st->done ? 0u : 1u);
}

// The gathered partials of every GPU added in a fixed order: thread t takes
// blocks t, t + sum_threads, ... of GPU 0, then of GPU 1, ..., then a shared-
// memory tree; the same order every run, whatever the check interval. One
// thread adding them in block order (the host's order) took about 2 n / 4096
// dependent additions, 0.1-0.3 ms per iteration at R-MAT 27, a step's cost
// that does not shrink with more GPUs. Then the stop test, on the device.
constexpr int sum_threads = 1024;
__global__ void __launch_bounds__(sum_threads)
    sum_partials(const double* __restrict__ part, index_t stride, const index_t* __restrict__ nb, int gpus,
                 double tol, int k, loop_state* st, double* residuals) {
  __shared__ double l1s[sum_threads], dms[sum_threads];
  if (st->done) return;  // read by every thread before thread 0 can write it (after the barriers below)
  double l1 = 0, dm = 0;
  for (int d = 0; d < gpus; ++d)
    for (index_t b = static_cast<index_t>(threadIdx.x); b < nb[d]; b += sum_threads) {
      l1 += part[static_cast<std::size_t>(d) * stride + 2 * b];
      dm += part[static_cast<std::size_t>(d) * stride + 2 * b + 1];
    }
  l1s[threadIdx.x] = l1;
  dms[threadIdx.x] = dm;
  __syncthreads();
  for (int h = sum_threads / 2; h > 0; h /= 2) {
    if (static_cast<int>(threadIdx.x) < h) {
      l1s[threadIdx.x] += l1s[threadIdx.x + h];
      dms[threadIdx.x] += dms[threadIdx.x + h];
    }
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  st->l1 = l1s[0];
  st->dangling_mass = dms[0];
  st->iterations = k;
  residuals[k - 1] = l1s[0];
  if (l1s[0] < tol) st->done = 1;
}

using cuda::graph_exec_ptr;  // core/cuda/support.cuh
using cuda::graph_ptr;

// y = P^T_rows r in a graph of two nodes: pull_while_running, then an IF node
// whose body is the plan's SpMV (captured once; apply() allocates nothing and
// does not synchronize). Null where the SpMV cannot be captured there: the
// loop then launches it directly, and iterations past the stop pull in vain.
template <class T>
graph_exec_ptr pull_graph(const spmv_plan<T>& plan, const T* r, T* y, const loop_state* st, cudaStream_t s) {
  try {
    cudaGraph_t raw = nullptr;
    PERRON_CUDA_CHECK(cudaGraphCreate(&raw, 0));
    graph_ptr graph(raw);
    cudaGraphConditionalHandle if_running{};
    PERRON_CUDA_CHECK(cudaGraphConditionalHandleCreate(&if_running, raw, 0, 0));
    PERRON_CUDA_CHECK(
        cudaStreamBeginCaptureToGraph(s, raw, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
    pull_while_running<<<1, 1, 0, s>>>(if_running, st);
    cudaGraph_t same = nullptr;
    PERRON_CUDA_CHECK(cudaStreamEndCapture(s, &same));
    cudaGraphNode_t set = nullptr;
    std::size_t nodes = 1;
    PERRON_CUDA_CHECK(cudaGraphGetNodes(raw, &set, &nodes));
    cudaGraph_t body = cuda::add_conditional(raw, if_running, cudaGraphCondTypeIf, &set, 1);
    PERRON_CUDA_CHECK(
        cudaStreamBeginCaptureToGraph(s, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
    plan.apply(T(1), r, T(0), y);
    PERRON_CUDA_CHECK(cudaStreamEndCapture(s, &same));
    cudaGraphExec_t exec = nullptr;
    PERRON_CUDA_CHECK(cudaGraphInstantiate(&exec, raw, 0));
    return graph_exec_ptr(exec);
  } catch (const error&) {
    cuda::abandon_capture(s, true);  // both captures go into this graph
    return nullptr;
  }
}

// One GPU's share: its rows of P^T in an SpMV plan of the kernels layer
// (--kernel, or auto's trial on this GPU's rows: the pull is y = P^T_rows r,
// an SpMV), the whole r (the graph's vertex order), its y, v, dangling flags
// and block partials.
template <class T>
struct gpu_part {
  int device = 0;
  index_t lo = 0, hi = 0;
  std::unique_ptr<spmv_plan<T>> pull;  // null when the GPU has no rows
  cuda::device_buffer<T> r, y;
  graph_exec_ptr pull_if_running;  // pull_graph(): null where it could not be built
  cuda::device_buffer<double> v, part, residuals;
  cuda::device_buffer<std::uint8_t> dangling;
  cuda::device_buffer<index_t> blocks_of;  // each GPU's count of partial pairs
  cuda::device_buffer<loop_state> state;
  std::vector<cuda::event> marks;  // --bench-dist: 4 per timed iteration
  std::unique_ptr<cuda::stream> stream;
  ncclComm_t comm = nullptr;
  ~gpu_part() {
    cudaSetDevice(device);  // the buffers (destroyed after this body) belong to it
    if (comm) nccl().comm_destroy(comm);
  }
};

template <class T>
ncclDataType_t nccl_type() {
  return std::is_same_v<T, double> ? ncclFloat64 : ncclFloat32;
}

// The GPUs' shares of the graph and of r.
template <class T>
struct nccl_setup {
  std::vector<index_t> first;  // GPU d's rows: first[d] .. first[d + 1]
  index_t blocks = 1;          // partial pairs per GPU, padded to equal counts for their all-gather
  std::vector<gpu_part<T>> parts;
};

// ncclCommInitAll on a thread of its own: NCCL's start (about a second on
// the H100 host, most of what --gpus added to a one-GPU run's start) runs
// beside the host's split of P^T and the uploads. take() joins it and hands
// the communicators over; if set_up fails first, they are destroyed here.
struct comm_start {
  std::vector<ncclComm_t> comms;
  ncclResult_t result = ncclSuccess;
  std::thread worker;
  explicit comm_start(int gpus) : comms(static_cast<std::size_t>(gpus)) {
    worker = std::thread([this, gpus] {
      std::vector<int> devices(static_cast<std::size_t>(gpus));
      std::iota(devices.begin(), devices.end(), 0);
      result = nccl().comm_init_all(comms.data(), gpus, devices.data());
    });
  }
  comm_start(const comm_start&) = delete;
  comm_start& operator=(const comm_start&) = delete;
  std::vector<ncclComm_t> take() {
    worker.join();
    check(result, "ncclCommInitAll");
    return std::exchange(comms, {});
  }
  ~comm_start() {
    if (worker.joinable()) worker.join();
    if (result == ncclSuccess)
      for (ncclComm_t c : comms)
        if (c) nccl().comm_destroy(c);
  }
};

template <class T>
nccl_setup<T> set_up(const pagerank_graph<T>& g, const pagerank_options& opt, int gpus, int timed) {
  const index_t n = g.vertices();
  const std::vector<double> v = normalized_distribution(opt.personalization, n, "personalization");
  const std::vector<double> r0 = normalized_distribution(opt.initial, n, "initial vector");
  comm_start start(gpus);
  nccl_setup<T> x;
  x.first = balanced_ranges(g.pt.row_ptr, gpus, links_per_row);
  const std::vector<index_t>& first = x.first;
  // Equal counts of partial pairs per GPU for their ncclAllGather (r goes by broadcasts of each
  // GPU's own rows, no padding: R-MAT's cut by cost gives one GPU 4-8x another's rows).
  std::vector<index_t> nb(static_cast<std::size_t>(gpus));
  for (int d = 0; d < gpus; ++d) {
    nb[d] = first[d + 1] == first[d] ? 0 : (first[d + 1] + sum_block - 1) / sum_block - first[d] / sum_block;
    x.blocks = std::max(x.blocks, nb[d]);
  }
  std::vector<T> r_host(std::max<std::size_t>(1, static_cast<std::size_t>(n)), T(0));
  loop_state st{0.0, 0.0, 0, 0};  // dangling mass as pagerank_cpu adds it: in vertex order
  for (index_t i = 0; i < n; ++i) {
    r_host[i] = static_cast<T>(r0[i]);
    if (g.dangling[i]) st.dangling_mass += static_cast<double>(static_cast<T>(r0[i]));
  }
  x.parts = std::vector<gpu_part<T>>(static_cast<std::size_t>(gpus));
  for (int d = 0; d < gpus; ++d) {
    gpu_part<T>& p = x.parts[d];
    p.device = d;
    p.lo = first[d];
    p.hi = first[d + 1];
    PERRON_CUDA_CHECK(cudaSetDevice(d));
    p.stream = std::make_unique<cuda::stream>();
    if (p.hi > p.lo)
      p.pull = std::make_unique<spmv_plan<T>>(row_range(g.pt, p.lo, p.hi),
                                              opt.kernel.value_or(spmv_kernel::automatic), p.stream->get());
    p.r = cuda::device_buffer<T>(r_host);
    p.y = cuda::device_buffer<T>(std::max<std::size_t>(1, static_cast<std::size_t>(p.hi - p.lo)));
    p.v = cuda::device_buffer<double>(std::vector<double>(v.begin() + p.lo, v.begin() + p.hi));
    p.dangling = cuda::device_buffer<std::uint8_t>(
        std::vector<std::uint8_t>(g.dangling.begin() + p.lo, g.dangling.begin() + p.hi));
    p.part =
        cuda::device_buffer<double>(std::vector<double>(static_cast<std::size_t>(2 * x.blocks) * gpus, 0.0));
    p.residuals = cuda::device_buffer<double>(static_cast<std::size_t>(opt.max_iter));
    p.blocks_of = cuda::device_buffer<index_t>(nb);
    p.state = cuda::device_buffer<loop_state>(std::vector<loop_state>{st});
    if (p.pull)
      p.pull_if_running = pull_graph(*p.pull, p.r.data(), p.y.data(), p.state.data(), p.stream->get());
    for (int k = 0; k < 4 * timed; ++k) p.marks.emplace_back();
  }
  const std::vector<ncclComm_t> comms = start.take();
  for (int d = 0; d < gpus; ++d) x.parts[d].comm = comms[d];
  return x;
}

// Iteration k on every GPU, queued without waiting: pull and update (events
// 0 -> 1: compute), the exchange of r and the all-gather of the partials
// (1 -> 2: communication, the wait for the other GPUs included), the sums and
// the stop test (2 -> 3: compute). Events only for the first `timed`
// iterations. r is exchanged as an all-gather of unequal pieces: one
// broadcast of its own rows from each GPU, all in one NCCL group (NCCL merges
// them into one launch). Equal padded pieces through ncclAllGather moved P
// times the largest piece: on rmat:26 over 4 H200s 453 MB per GPU and
// iteration where r is 268 MB, 1.4 of the step's 4.2 ms.
template <class T>
void queue_iteration(nccl_setup<T>& x, const pagerank_options& opt, int k, int timed) {
  const int gpus = static_cast<int>(x.parts.size());
  const auto mark = [&](gpu_part<T>& p, int e) {
    if (k <= timed) p.marks[static_cast<std::size_t>(4 * (k - 1) + e)].record(p.stream->get());
  };
  for (gpu_part<T>& p : x.parts) {
    PERRON_CUDA_CHECK(cudaSetDevice(p.device));
    mark(p, 0);
    const index_t rows = p.hi - p.lo;
    const cudaStream_t s = p.stream->get();
    if (rows > 0) {
      if (p.pull_if_running)
        PERRON_CUDA_CHECK(cudaGraphLaunch(p.pull_if_running.get(), s));
      else
        p.pull->apply(T(1), p.r.data(), T(0), p.y.data());
      const auto my_blocks = static_cast<unsigned>((p.hi + sum_block - 1) / sum_block - p.lo / sum_block);
      T* mine = p.r.data() + p.lo;
      update_rows<T><<<my_blocks, update_threads, 0, s>>>(
          p.lo, p.hi, p.y.data(), p.v.data(), p.dangling.data(), opt.alpha, 1.0 - opt.alpha, mine,
          p.part.data() + static_cast<std::size_t>(p.device) * static_cast<std::size_t>(2 * x.blocks),
          p.state.data());
      PERRON_CUDA_CHECK_LAUNCH("update_rows");
    }
    mark(p, 1);
  }
  check(nccl().group_start(), "ncclGroupStart");
  for (gpu_part<T>& p : x.parts) {
    for (int root = 0; root < gpus; ++root) {  // every communicator: the same roots in the same order
      const index_t lo = x.first[static_cast<std::size_t>(root)],
                    hi = x.first[static_cast<std::size_t>(root) + 1];
      if (hi == lo) continue;
      check(nccl().broadcast(p.r.data() + lo, p.r.data() + lo, static_cast<std::size_t>(hi - lo),
                             nccl_type<T>(), root, p.comm, p.stream->get()),
            "ncclBroadcast (ranks)");
    }
    const std::size_t off = static_cast<std::size_t>(p.device);
    check(nccl().all_gather(p.part.data() + off * 2 * x.blocks, p.part.data(),
                            static_cast<std::size_t>(2 * x.blocks), ncclFloat64, p.comm, p.stream->get()),
          "ncclAllGather (partial sums)");
  }
  check(nccl().group_end(), "ncclGroupEnd");
  for (gpu_part<T>& p : x.parts) {
    PERRON_CUDA_CHECK(cudaSetDevice(p.device));
    mark(p, 2);
    sum_partials<<<1, sum_threads, 0, p.stream->get()>>>(p.part.data(), 2 * x.blocks, p.blocks_of.data(),
                                                         gpus, opt.tol, k, p.state.data(),
                                                         p.residuals.data());
    PERRON_CUDA_CHECK_LAUNCH("sum_partials");
    mark(p, 3);
  }
}

// --bench-dist: each GPU's event times of the first `timed` iterations run,
// and the bytes it sends and receives per iteration as a direct exchange
// moves them: its rows of r to each other GPU, the other GPUs' rows from
// them, and its padded partials both ways.
template <class T>
std::vector<iteration_stats> stats_of(const nccl_setup<T>& x, int iterations, int timed) {
  const auto gpus = static_cast<std::uint64_t>(x.parts.size());
  std::vector<iteration_stats> out(x.parts.size());
  const std::uint64_t partials = 2 * std::uint64_t(x.blocks) * sizeof(double) * (gpus - 1);
  const auto n = static_cast<std::uint64_t>(x.first.back());
  for (std::size_t d = 0; d < x.parts.size(); ++d) {
    const std::vector<cuda::event>& m = x.parts[d].marks;
    iteration_stats& st = out[d];
    const auto rows = static_cast<std::uint64_t>(x.parts[d].hi - x.parts[d].lo);
    st.bytes_sent = rows * sizeof(T) * (gpus - 1) + partials;
    st.bytes_received = (n - rows) * sizeof(T) + partials;
    for (int k = 0; k < std::min(iterations, timed); ++k) {
      const auto e = [&](int i) -> const cuda::event& { return m[static_cast<std::size_t>(4 * k + i)]; };
      st.compute_seconds.push_back((e(1).ms_since(e(0)) + e(3).ms_since(e(2))) * 1e-3);
      st.wait_seconds.push_back(0.0);  // inside the all-gather: NCCL does not tell them apart
      st.comm_seconds.push_back(e(2).ms_since(e(1)) * 1e-3);
    }
  }
  return out;
}

}  // namespace

bool nccl_built() { return true; }

template <class T>
pagerank_result pagerank_nccl(const pagerank_graph<T>& g, const pagerank_options& opt, int gpus,
                              std::vector<iteration_stats>* stats) {
  const index_t n = g.vertices();
  opt.validate(n);
  if (gpus < 1) throw invalid_argument("--gpus must be at least 1, got " + std::to_string(gpus));
  if (gpus > cuda::device_count())
    throw cuda_error("--gpus " + std::to_string(gpus) + ": this machine has " +
                     std::to_string(cuda::device_count()) + " usable GPU(s)");
  nccl();  // loads libnccl, or says why it cannot
  const int timed = stats ? std::min(opt.max_iter, max_timed_iterations) : 0;
  nccl_setup<T> x = set_up(g, opt, gpus, timed);
  gpu_part<T>& p0 = x.parts[0];
  // The host looks at GPU 0's loop state every check_interval iterations (a
  // pinned copy of it and of the new residuals): no round trip per iteration.
  cuda::pinned_buffer<loop_state> st(1);
  cuda::pinned_buffer<double> residuals(static_cast<std::size_t>(opt.max_iter));
  PERRON_CUDA_CHECK(cudaSetDevice(0));
  cuda::event start, stop;
  start.record(p0.stream->get());
  const auto t0 = std::chrono::steady_clock::now();
  pagerank_result res;
  int reported = 0;
  for (int k = 1; k <= opt.max_iter; ++k) {
    queue_iteration(x, opt, k, timed);
    if (k % opt.check_interval != 0 && k != opt.max_iter) continue;
    PERRON_CUDA_CHECK(cudaSetDevice(0));
    PERRON_CUDA_CHECK(cudaMemcpyAsync(st.data(), p0.state.data(), sizeof(loop_state), cudaMemcpyDeviceToHost,
                                      p0.stream->get()));
    p0.stream->synchronize();
    ++res.host_syncs;
    const int done = st->iterations;
    if (opt.progress && done > reported) {
      residuals.read(p0.residuals.data() + reported, p0.stream->get(),
                     static_cast<std::size_t>(done - reported));
      for (int i = reported; i < done; ++i)
        opt.progress(i + 1, residuals[static_cast<std::size_t>(i - reported)]);
    }
    reported = done;
    if (st->done) break;
  }
  PERRON_CUDA_CHECK(cudaSetDevice(0));
  stop.record(p0.stream->get());
  for (gpu_part<T>& p : x.parts) {
    PERRON_CUDA_CHECK(cudaSetDevice(p.device));
    p.stream->synchronize();
  }
  res.iterations = st->iterations;
  res.residual = st->l1;
  res.converged = st->done != 0;
  res.device_seconds = stop.ms_since(start) * 1e-3;
  PERRON_CUDA_CHECK(cudaSetDevice(0));
  const std::vector<T> r = p0.r.download();
  res.rank.assign(r.begin(), r.begin() + n);
  if (stats) *stats = stats_of(x, res.iterations, timed);
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.on_gpu = true;
  res.pull = pagerank_pull::spmv;
  // The kernel that pulled: GPU 0's (auto's trial may pick another on another GPU's rows; the reason lists
  // each).
  res.kernel.reset();
  res.kernel_reason =
      "--gpus " + std::to_string(gpus) + ": each GPU's rows in an SpMV plan, r by grouped ncclBroadcast;";
  for (const gpu_part<T>& p : x.parts) {
    if (!p.pull) continue;
    if (!res.kernel) res.kernel = p.pull->kernel();
    res.kernel_reason += " GPU " + std::to_string(p.device) + ": " + p.pull->description() +
                         (p.pull->reason().empty() ? "" : " (" + p.pull->reason() + ")") + ";";
  }
  res.kernel_reason.pop_back();
  res.loop = pagerank_loop::check_every;
  return res;
}

template pagerank_result pagerank_nccl<float>(const pagerank_graph<float>&, const pagerank_options&, int,
                                              std::vector<iteration_stats>*);
template pagerank_result pagerank_nccl<double>(const pagerank_graph<double>&, const pagerank_options&, int,
                                               std::vector<iteration_stats>*);

}  // namespace perron::dist
