// PageRank on several GPUs of one process through NCCL (solvers/dist/pagerank_nccl.hpp).
#include <dlfcn.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "kernels/spmv.hpp"
#include "solvers/dist/pagerank_dist.hpp"
#include "solvers/dist/pagerank_nccl.hpp"

namespace perron::dist {
namespace {

constexpr index_t sum_block = pagerank_sum_block;  // solvers/pagerank.hpp
constexpr int update_threads = 256;
constexpr int max_timed_iterations = 1000;  // --bench-dist: events for at most this many iterations

// The few NCCL entry points used, from libnccl.so.2 opened at run time.
struct nccl_api {
  decltype(&ncclCommInitAll) comm_init_all = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
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
    get(a.send, "ncclSend");
    get(a.recv, "ncclRecv");
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

// r_new = alpha y + c v on the rows [lo, hi), written into `piece` (this
// GPU's rows of r_new; `old` the same rows of r, in the other buffer), and
// per 4096-vertex block (one CUDA block each)
// ||r_new - r||_1 and the new dangling mass, summed by a fixed shared-memory
// tree into part[2b], part[2b + 1]. y, v and dangling start at row lo.
template <class T>
__global__ void update_rows(index_t lo, index_t hi, const T* __restrict__ y, const double* __restrict__ v,
                            const std::uint8_t* __restrict__ dangling, double alpha, double one_minus_alpha,
                            const T* __restrict__ old, T* __restrict__ piece, double* part,
                            const loop_state* __restrict__ st) {
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
    l1 += fabs(static_cast<double>(rn) - static_cast<double>(old[k]));
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

// The halo exchange's two ends: out[k] = r[rows[k]] (the entries other GPUs
// read of this one's rows) and r[columns[k]] = in[k] (those it reads of theirs).
template <class T>
__global__ void pack_halo(const T* __restrict__ r, const index_t* __restrict__ rows, std::size_t count,
                          T* __restrict__ out) {
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < count;
       k += std::size_t(gridDim.x) * blockDim.x)
    out[k] = r[rows[k]];
}

template <class T>
__global__ void unpack_halo(const T* __restrict__ in, const index_t* __restrict__ columns, std::size_t count,
                            T* __restrict__ r) {
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < count;
       k += std::size_t(gridDim.x) * blockDim.x)
    r[columns[k]] = in[k];
}

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

// A piece of one GPU's rows, [lo, hi) in the graph's vertex ids, on
// 4096-vertex block boundaries: its rows of P^T in an SpMV plan of the
// kernels layer (--kernel, or auto's trial on those rows: the pull is
// y = P^T_rows r, an SpMV), one pull graph per r buffer it reads, and the
// event its exchange waits for.
template <class T>
struct row_chunk {
  index_t lo = 0, hi = 0;
  std::unique_ptr<spmv_plan<T>> pull;  // null when the chunk has no rows
  graph_exec_ptr pull_if_running[2];   // pull_graph() reading r buffer 0, 1: null where not built
  cuda::event updated{cudaEventDisableTiming};
};

// One GPU's share: its rows in chunks (one, or --exchange-chunks of them, the
// exchange of each overlapping the next one's pull and update), r whole (the
// graph's vertex order) in two buffers, read by the pull and written by the
// update in turn (the pull of a later chunk must not see rows an earlier
// chunk's update already wrote; and in place, the update's store behind its
// load of the same r entry ran at a tenth of the bandwidth: 1.33 ms against
// 2 x 0.133 ms for grid:6000:6000's 36 M rows on an H100, ncu, session 22),
// its y, v, dangling flags and block partials.
template <class T>
struct gpu_part {
  int device = 0;
  index_t lo = 0, hi = 0;
  std::vector<row_chunk<T>> chunks;
  cuda::device_buffer<T> r0, r1;
  cuda::device_buffer<T> y;
  cuda::device_buffer<double> v, part, residuals;
  cuda::device_buffer<std::uint8_t> dangling;
  cuda::device_buffer<index_t> blocks_of;  // each GPU's count of partial pairs
  cuda::device_buffer<loop_state> state;
  std::vector<cuda::event> marks;        // --bench-dist: 4 per timed iteration
  std::unique_ptr<cuda::stream> stream;  // the pulls, updates and sums
  std::unique_ptr<cuda::stream> comm;    // the exchange, when chunked (else on `stream`)
  cuda::event exchanged{cudaEventDisableTiming};
  ncclComm_t comm_handle = nullptr;
  // The halo exchange (halo_lists): per other GPU e, the values sent to and
  // received from it (counts, offsets into the buffers), the rows packed and
  // the columns unpacked, in r's ids.
  std::vector<std::size_t> send_count, send_offset, recv_count, recv_offset;
  cuda::device_buffer<index_t> send_rows, recv_columns;
  cuda::device_buffer<T> send_values, recv_values;
  // The r that iteration k reads (q = (k - 1) % 2) or writes (q = k % 2).
  T* r(int q) { return q % 2 ? r1.data() : r0.data(); }
  cudaStream_t exchange_stream() const { return comm ? comm->get() : stream->get(); }
  ~gpu_part() {
    cudaSetDevice(device);  // the buffers (destroyed after this body) belong to it
    if (comm_handle) nccl().comm_destroy(comm_handle);
  }
};

template <class T>
ncclDataType_t nccl_type() {
  return std::is_same_v<T, double> ? ncclFloat64 : ncclFloat32;
}

// The GPUs' shares of the graph and of r.
template <class T>
struct nccl_setup {
  bool halo = false;           // r by halo exchange (else every GPU's rows broadcast)
  std::vector<index_t> first;  // GPU d's rows: first[d] .. first[d + 1]
  index_t blocks = 1;          // partial pairs per GPU, padded to equal counts for their all-gather
  int chunks = 1;              // row chunks per GPU (the same count on every GPU, some maybe empty)
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

// What each GPU reads of r outside its rows (dist::columns_outside over its
// links of P^T: sorted, so each owner's columns are one run), for the halo
// exchange; values: their count over all GPUs, per iteration.
struct halo_lists {
  std::vector<std::vector<index_t>> columns;
  std::uint64_t values = 0;
};

template <class T>
halo_lists halo_of(const csr_matrix<T>& pt, const std::vector<index_t>& first) {
  const int gpus = static_cast<int>(first.size()) - 1;
  halo_lists h;
  h.columns.resize(static_cast<std::size_t>(gpus));
#pragma omp parallel for schedule(dynamic)
  for (int d = 0; d < gpus; ++d) {
    const index_t* col = pt.col_idx.data();
    h.columns[d] = columns_outside(col + pt.row_ptr[first[d]], col + pt.row_ptr[first[d + 1]], pt.cols,
                                   first[d], first[d + 1]);
  }
  for (const std::vector<index_t>& c : h.columns) h.values += c.size();
  return h;
}

// The run of a sorted column list owned by rows [lo, hi): offset and count.
std::pair<std::size_t, std::size_t> run_in(const std::vector<index_t>& columns, index_t lo, index_t hi) {
  const auto from = std::lower_bound(columns.begin(), columns.end(), lo);
  const auto to = std::lower_bound(from, columns.end(), hi);
  return {static_cast<std::size_t>(from - columns.begin()), static_cast<std::size_t>(to - from)};
}

// GPU d's halo buffers: what it receives from each other GPU (its column
// list, as is) and what it sends each (the runs of the others' lists in its rows).
template <class T>
void set_up_halo(gpu_part<T>& p, const halo_lists& h, const std::vector<index_t>& first) {
  const std::size_t gpus = h.columns.size(), d = static_cast<std::size_t>(p.device);
  p.send_count.assign(gpus, 0);
  p.send_offset.assign(gpus, 0);
  p.recv_count.assign(gpus, 0);
  p.recv_offset.assign(gpus, 0);
  std::vector<index_t> rows;
  for (std::size_t e = 0; e < gpus; ++e) {
    std::tie(p.recv_offset[e], p.recv_count[e]) = run_in(h.columns[d], first[e], first[e + 1]);
    const auto [off, count] = run_in(h.columns[e], p.lo, p.hi);
    p.send_offset[e] = rows.size();
    p.send_count[e] = count;
    rows.insert(rows.end(), h.columns[e].begin() + static_cast<std::ptrdiff_t>(off),
                h.columns[e].begin() + static_cast<std::ptrdiff_t>(off + count));
  }
  p.send_rows = cuda::device_buffer<index_t>(rows);
  p.recv_columns = cuda::device_buffer<index_t>(h.columns[d]);
  p.send_values = cuda::device_buffer<T>(std::max<std::size_t>(1, rows.size()));
  p.recv_values = cuda::device_buffer<T>(std::max<std::size_t>(1, h.columns[d].size()));
}

unsigned halo_blocks(std::size_t count) {
  return static_cast<unsigned>(
      std::clamp<std::size_t>((count + update_threads - 1) / update_threads, 1, 4096));
}

// Inside an NCCL group: GPU p's part of the all-gather of every GPU's block
// partials (residual, dangling mass), padded to x.blocks pairs each.
template <class T>
void queue_partials(nccl_setup<T>& x, gpu_part<T>& p) {
  const std::size_t off = static_cast<std::size_t>(p.device);
  check(nccl().all_gather(p.part.data() + off * 2 * x.blocks, p.part.data(),
                          static_cast<std::size_t>(2 * x.blocks), ncclFloat64, p.comm_handle,
                          p.exchange_stream()),
        "ncclAllGather (partial sums)");
}

// The halo exchange of r buffer q and the partials' all-gather: each GPU packs
// what the others read of its rows, one NCCL group of sends and receives
// between every pair that reads the other, then each unpacks what it received
// into its r. Rows no other GPU reads are never sent; r outside a GPU's rows
// and its halo is stale there (its own pull never reads it).
template <class T>
void queue_halo(nccl_setup<T>& x, int q) {
  const int gpus = static_cast<int>(x.parts.size());
  for (gpu_part<T>& p : x.parts) {
    const std::size_t count = p.send_rows.size();
    if (count == 0) continue;
    PERRON_CUDA_CHECK(cudaSetDevice(p.device));
    pack_halo<T><<<halo_blocks(count), update_threads, 0, p.exchange_stream()>>>(p.r(q), p.send_rows.data(),
                                                                                 count, p.send_values.data());
    PERRON_CUDA_CHECK_LAUNCH("pack_halo");
  }
  check(nccl().group_start(), "ncclGroupStart");
  for (gpu_part<T>& p : x.parts) {
    for (int e = 0; e < gpus; ++e) {
      if (p.send_count[e])
        check(nccl().send(p.send_values.data() + p.send_offset[e], p.send_count[e], nccl_type<T>(), e,
                          p.comm_handle, p.exchange_stream()),
              "ncclSend (ranks)");
      if (p.recv_count[e])
        check(nccl().recv(p.recv_values.data() + p.recv_offset[e], p.recv_count[e], nccl_type<T>(), e,
                          p.comm_handle, p.exchange_stream()),
              "ncclRecv (ranks)");
    }
    queue_partials(x, p);
  }
  check(nccl().group_end(), "ncclGroupEnd");
  for (gpu_part<T>& p : x.parts) {
    const std::size_t count = p.recv_columns.size();
    if (count == 0) continue;
    PERRON_CUDA_CHECK(cudaSetDevice(p.device));
    unpack_halo<T><<<halo_blocks(count), update_threads, 0, p.exchange_stream()>>>(
        p.recv_values.data(), p.recv_columns.data(), count, p.r(q));
    PERRON_CUDA_CHECK_LAUNCH("unpack_halo");
  }
}

// Queues, on every GPU, the exchange of rows [first[g] + chunk c] of r
// buffer q from each GPU g to all, in one NCCL group (an all-gather of
// unequal pieces; NCCL merges the broadcasts into one launch), and with it,
// when `partials`, the all-gather of the block partials.
template <class T>
void queue_exchange(nccl_setup<T>& x, int c, int q, bool partials) {
  if (x.halo) return queue_halo(x, q);  // one chunk: c = 0, partials
  const int gpus = static_cast<int>(x.parts.size());
  check(nccl().group_start(), "ncclGroupStart");
  for (gpu_part<T>& p : x.parts) {
    for (int root = 0; root < gpus; ++root) {  // every communicator: the same roots in the same order
      const row_chunk<T>& rc = x.parts[static_cast<std::size_t>(root)].chunks[static_cast<std::size_t>(c)];
      if (rc.hi == rc.lo) continue;
      check(nccl().broadcast(p.r(q) + rc.lo, p.r(q) + rc.lo, static_cast<std::size_t>(rc.hi - rc.lo),
                             nccl_type<T>(), root, p.comm_handle, p.exchange_stream()),
            "ncclBroadcast (ranks)");
    }
    if (!partials) continue;
    queue_partials(x, p);
  }
  check(nccl().group_end(), "ncclGroupEnd");
}

// What the set-up takes from a graph, whole (pagerank_graph) or in pieces
// (csr_pieces): n, the dangling flags, the cut (chunk c of GPU d is piece
// d * chunks + c: rows cut[d * chunks + c] .. the next boundary), each piece's
// links, and a piece's rows of P^T (asked once per piece).
template <class T>
struct pt_source {
  index_t n = 0;
  const std::vector<std::uint8_t>* dangling = nullptr;
  std::vector<index_t> cut;
  std::vector<std::uint64_t> piece_links;
  std::function<csr_matrix<T>(std::size_t piece)> rows;
};

// Each GPU's memory checked (nccl_gpu_bytes against what is free on it)
// before NCCL starts or anything is allocated: a graph the GPUs cannot hold
// fails with the bytes it needs, not with an out-of-memory error part-way.
template <class T>
void check_room(const pt_source<T>& src, const pagerank_options& opt, int gpus, int chunks,
                const halo_lists* halo) {
  for (int d = 0; d < gpus; ++d) {
    const std::size_t p0 = static_cast<std::size_t>(d) * chunks;
    const index_t lo = src.cut[p0], hi = src.cut[p0 + chunks];
    std::uint64_t links = 0, largest = 0;
    for (int c = 0; c < chunks; ++c) {
      links += src.piece_links[p0 + c];
      largest = std::max(largest, src.piece_links[p0 + c]);
    }
    double bytes = nccl_gpu_bytes(src.n, hi - lo, links, largest, gpus, sizeof(T), opt.max_iter);
    if (halo) {  // the values received and sent, and their indices: each list at most all of the others'
      double listed = double(halo->columns[static_cast<std::size_t>(d)].size());
      for (int e = 0; e < gpus; ++e)
        if (e != d) listed += double(run_in(halo->columns[static_cast<std::size_t>(e)], lo, hi).second);
      bytes += listed * double(sizeof(T) + sizeof(index_t));
    }
    PERRON_CUDA_CHECK(cudaSetDevice(d));
    check_device_memory(bytes, "--gpus " + std::to_string(gpus) + ": GPU " + std::to_string(d) +
                                   "'s share (" + std::to_string(hi - lo) + " of " + std::to_string(src.n) +
                                   " vertices, " + std::to_string(links) + " links)");
  }
}

template <class T>
nccl_setup<T> set_up(const pt_source<T>& src, const pagerank_options& opt, int gpus, int chunks, int timed,
                     const halo_lists* halo) {
  const index_t n = src.n;
  const std::vector<std::uint8_t>& dangling = *src.dangling;
  const std::vector<double> v = normalized_distribution(opt.personalization, n, "personalization");
  const std::vector<double> r0 = normalized_distribution(opt.initial, n, "initial vector");
  comm_start start(gpus);
  nccl_setup<T> x;
  x.first.resize(static_cast<std::size_t>(gpus) + 1);
  for (int d = 0; d <= gpus; ++d) x.first[d] = src.cut[static_cast<std::size_t>(d) * chunks];
  x.chunks = chunks;
  x.halo = halo != nullptr;
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
    if (dangling[i]) st.dangling_mass += static_cast<double>(static_cast<T>(r0[i]));
  }
  x.parts = std::vector<gpu_part<T>>(static_cast<std::size_t>(gpus));
  for (int d = 0; d < gpus; ++d) {
    gpu_part<T>& p = x.parts[d];
    p.device = d;
    p.lo = first[d];
    p.hi = first[d + 1];
    PERRON_CUDA_CHECK(cudaSetDevice(d));
    p.stream = std::make_unique<cuda::stream>();
    if (chunks > 1) p.comm = std::make_unique<cuda::stream>();
    p.exchanged = cuda::event(cudaEventDisableTiming);  // made on this GPU
    if (halo) set_up_halo(p, *halo, first);
    p.r0 = cuda::device_buffer<T>(r_host);
    p.r1 = cuda::device_buffer<T>(r_host);
    p.y = cuda::device_buffer<T>(std::max<std::size_t>(1, static_cast<std::size_t>(p.hi - p.lo)));
    p.v = cuda::device_buffer<double>(std::vector<double>(v.begin() + p.lo, v.begin() + p.hi));
    p.dangling = cuda::device_buffer<std::uint8_t>(
        std::vector<std::uint8_t>(dangling.begin() + p.lo, dangling.begin() + p.hi));
    p.part =
        cuda::device_buffer<double>(std::vector<double>(static_cast<std::size_t>(2 * x.blocks) * gpus, 0.0));
    p.residuals = cuda::device_buffer<double>(static_cast<std::size_t>(opt.max_iter));
    p.blocks_of = cuda::device_buffer<index_t>(nb);
    p.state = cuda::device_buffer<loop_state>(std::vector<loop_state>{st});
    p.chunks = std::vector<row_chunk<T>>(static_cast<std::size_t>(chunks));
    for (int c = 0; c < chunks; ++c) {
      row_chunk<T>& rc = p.chunks[static_cast<std::size_t>(c)];
      const std::size_t piece = static_cast<std::size_t>(d) * chunks + c;
      rc.lo = src.cut[piece];
      rc.hi = src.cut[piece + 1];
      rc.updated = cuda::event(cudaEventDisableTiming);
      if (rc.hi == rc.lo) continue;
      rc.pull = std::make_unique<spmv_plan<T>>(src.rows(piece), opt.kernel.value_or(spmv_kernel::automatic),
                                               p.stream->get());
      for (int q = 0; q < 2; ++q)
        rc.pull_if_running[q] =
            pull_graph(*rc.pull, p.r(q), p.y.data() + (rc.lo - p.lo), p.state.data(), p.stream->get());
    }
    for (int k = 0; k < 4 * timed; ++k) p.marks.emplace_back();
  }
  const std::vector<ncclComm_t> comms = start.take();
  for (int d = 0; d < gpus; ++d) x.parts[d].comm_handle = comms[d];
  // NCCL connects the GPUs at their first collective (tens of ms): one whole
  // exchange of r (the same r0 on every GPU: it changes nothing) and of the
  // (zero) partials here, so that cost stays in the set-up, not in iteration 1.
  for (int c = 0; c < chunks; ++c) queue_exchange(x, c, 0, c == chunks - 1);
  for (gpu_part<T>& p : x.parts) {
    PERRON_CUDA_CHECK(cudaSetDevice(p.device));
    PERRON_CUDA_CHECK(cudaStreamSynchronize(p.exchange_stream()));
  }
  return x;
}

// Iteration k on every GPU, queued without waiting. Reads r buffer
// q = (k - 1) % 2, writes buffer k % 2.
// Per chunk: its pull and update on the GPU's stream, then (on the exchange
// stream, after the update) the exchange of every GPU's same chunk, so that
// chunk c's exchange runs beside chunk c + 1's pull; the last chunk's group
// carries the partials' all-gather. Then, once the exchange is all done, the
// sums and the stop test. Events (first `timed` iterations): 0 -> 1 the
// pulls and updates, 1 -> 2 the exchange still running after the last update
// (waiting for the other GPUs included), 2 -> 3 the sums. One chunk: no
// overlap, the exchange whole after the update. Unchunked, on rmat:26 over 4
// H200s the exchange was 0.72 of a step's 3.32 ms (session 21).
template <class T>
void queue_iteration(nccl_setup<T>& x, const pagerank_options& opt, int k, int timed) {
  const int gpus = static_cast<int>(x.parts.size());
  const int read = (k - 1) % 2, write = k % 2;
  const auto mark = [&](gpu_part<T>& p, int e) {
    if (k <= timed) p.marks[static_cast<std::size_t>(4 * (k - 1) + e)].record(p.stream->get());
  };
  for (gpu_part<T>& p : x.parts) {
    PERRON_CUDA_CHECK(cudaSetDevice(p.device));
    mark(p, 0);
    const cudaStream_t s = p.stream->get();
    for (row_chunk<T>& rc : p.chunks) {
      if (rc.hi > rc.lo) {
        const graph_exec_ptr& pull = rc.pull_if_running[read];
        T* y = p.y.data() + (rc.lo - p.lo);
        if (pull)
          PERRON_CUDA_CHECK(cudaGraphLaunch(pull.get(), s));
        else
          rc.pull->apply(T(1), p.r(read), T(0), y);
        const index_t first_block = rc.lo / sum_block, my_block = p.lo / sum_block;
        const auto blocks = static_cast<unsigned>((rc.hi + sum_block - 1) / sum_block - first_block);
        update_rows<T><<<blocks, update_threads, 0, s>>>(
            rc.lo, rc.hi, y, p.v.data() + (rc.lo - p.lo), p.dangling.data() + (rc.lo - p.lo), opt.alpha,
            1.0 - opt.alpha, p.r(read) + rc.lo, p.r(write) + rc.lo,
            p.part.data() + static_cast<std::size_t>(p.device) * static_cast<std::size_t>(2 * x.blocks) +
                2 * static_cast<std::size_t>(first_block - my_block),
            p.state.data());
        PERRON_CUDA_CHECK_LAUNCH("update_rows");
      }
      if (p.comm) rc.updated.record(s);
    }
    mark(p, 1);
  }
  for (int c = 0; c < x.chunks; ++c) {
    for (gpu_part<T>& p : x.parts)
      if (p.comm) {
        PERRON_CUDA_CHECK(cudaSetDevice(p.device));
        PERRON_CUDA_CHECK(
            cudaStreamWaitEvent(p.comm->get(), p.chunks[static_cast<std::size_t>(c)].updated.get()));
      }
    queue_exchange(x, c, write, c == x.chunks - 1);
  }
  for (gpu_part<T>& p : x.parts) {
    PERRON_CUDA_CHECK(cudaSetDevice(p.device));
    if (p.comm) {
      p.exchanged.record(p.comm->get());
      PERRON_CUDA_CHECK(cudaStreamWaitEvent(p.stream->get(), p.exchanged.get()));
    }
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
    st.bytes_sent = (x.halo ? x.parts[d].send_rows.size() : rows * (gpus - 1)) * sizeof(T) + partials;
    st.bytes_received = (x.halo ? x.parts[d].recv_columns.size() : n - rows) * sizeof(T) + partials;
    for (int k = 0; k < std::min(iterations, timed); ++k) {
      const auto e = [&](int i) -> const cuda::event& { return m[static_cast<std::size_t>(4 * k + i)]; };
      st.compute_seconds.push_back((e(1).ms_since(e(0)) + e(3).ms_since(e(2))) * 1e-3);
      st.wait_seconds.push_back(0.0);  // inside the all-gather: NCCL does not tell them apart
      st.comm_seconds.push_back(e(2).ms_since(e(1)) * 1e-3);
    }
  }
  return out;
}

// A share as a percentage, three significant digits ("0.0333%").
std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", 100.0 * share);
  return buf;
}

// gpus and chunks checked against their ranges and the machine; NCCL loaded.
void check_gpus(int gpus, int chunks) {
  if (gpus < 1) throw invalid_argument("--gpus must be at least 1, got " + std::to_string(gpus));
  if (chunks < 0 || chunks > max_exchange_chunks)
    throw invalid_argument("--exchange-chunks must be 0 (automatic) to " +
                           std::to_string(max_exchange_chunks) + ", got " + std::to_string(chunks));
  if (gpus > cuda::device_count())
    throw cuda_error("--gpus " + std::to_string(gpus) + ": this machine has " +
                     std::to_string(cuda::device_count()) + " usable GPU(s)");
  nccl();  // loads libnccl, or says why it cannot
}

template <class T>
pagerank_result solve(const pt_source<T>& src, const pagerank_options& opt, int gpus, int chunks,
                      std::vector<iteration_stats>* stats, const halo_lists* halo = nullptr) {
  const index_t n = src.n;
  const int timed = stats ? std::min(opt.max_iter, max_timed_iterations) : 0;
  check_room(src, opt, gpus, chunks, halo);
  nccl_setup<T> x = set_up(src, opt, gpus, chunks, timed, halo);
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
  // Iteration k wrote r buffer k % 2; iterations queued past the stop
  // exchange that buffer's values unchanged (their updates return at once).
  // After a halo exchange each GPU's own rows are the ones it holds whole.
  std::vector<T> r(static_cast<std::size_t>(n));
  if (x.halo) {
    for (gpu_part<T>& p : x.parts) {
      PERRON_CUDA_CHECK(cudaSetDevice(p.device));
      PERRON_CUDA_CHECK(cudaMemcpy(r.data() + p.lo, p.r(res.iterations % 2) + p.lo,
                                   static_cast<std::size_t>(p.hi - p.lo) * sizeof(T),
                                   cudaMemcpyDeviceToHost));
    }
    PERRON_CUDA_CHECK(cudaSetDevice(0));
  } else {
    PERRON_CUDA_CHECK(
        cudaMemcpy(r.data(), p0.r(res.iterations % 2), r.size() * sizeof(T), cudaMemcpyDeviceToHost));
  }
  res.rank.assign(r.begin(), r.end());
  if (stats) *stats = stats_of(x, res.iterations, timed);
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.on_gpu = true;
  res.pull = pagerank_pull::spmv;
  // The kernel that pulled: GPU 0's (auto's trial may pick another on another GPU's rows; the reason lists
  // each).
  res.kernel.reset();
  res.kernel_reason =
      "--gpus " + std::to_string(gpus) + ": each GPU's rows in " +
      (chunks > 1 ? std::to_string(chunks) + " chunks, each an" : std::string("one")) + " SpMV plan, " +
      (x.halo ? "r by halo exchange (ncclSend/ncclRecv of the " + std::to_string(halo->values) +
                    " entries other GPUs' rows read, " +
                    percent(double(halo->values) / (double(gpus - 1) * double(n))) + " of a broadcast's);"
              : std::string("r by grouped ncclBroadcast") +
                    (chunks > 1 ? " of each chunk beside the next one's pull;" : ";"));
  for (const gpu_part<T>& p : x.parts) {
    std::string kernels;  // the chunks' kernels after the first's, when another
    const spmv_plan<T>* lead = nullptr;
    for (const row_chunk<T>& rc : p.chunks) {
      if (!rc.pull) continue;
      if (!lead)
        lead = rc.pull.get();
      else if (rc.pull->kernel() != lead->kernel())
        kernels += " " + std::string(name(rc.pull->kernel()));
    }
    if (!lead) continue;
    if (!res.kernel) res.kernel = lead->kernel();
    res.kernel_reason += " GPU " + std::to_string(p.device) + ": " + lead->description() +
                         (lead->reason().empty() ? "" : " (" + lead->reason() + ")") +
                         (kernels.empty() ? "" : "; its other chunks:" + kernels) + ";";
  }
  res.kernel_reason.pop_back();
  res.loop = pagerank_loop::check_every;
  return res;
}

}  // namespace

bool nccl_built() { return true; }

template <class T>
pagerank_result pagerank_nccl(const pagerank_graph<T>& g, const pagerank_options& opt, int gpus,
                              std::vector<iteration_stats>* stats, const nccl_options& how,
                              nccl_choice* chosen) {
  const index_t n = g.vertices();
  opt.validate(n);
  if (!(how.row_cost >= 0 && how.row_cost <= 1e6))
    throw invalid_argument("--row-cost must be a number of links from 0 to 1e6, got " +
                           std::to_string(how.row_cost));
  check_gpus(gpus, how.chunks);
  const std::vector<index_t>& rp = g.pt.row_ptr;
  const std::vector<std::uint64_t> blocks = block_links_of(rp);
  // The GPUs' ranges (the same for any chunk count), and what a halo exchange would move between them.
  const std::vector<index_t> ranges = nccl_cut(blocks, n, gpus, 1, how.row_cost);
  halo_lists halo;
  bool use_halo = false;
  if (gpus > 1 && how.exchange != exchange_kind::all) {
    halo = halo_of(g.pt, ranges);
    use_halo = takes_halo(how.exchange, halo.values, std::uint64_t(gpus - 1) * std::uint64_t(n), true);
  }
  if (use_halo && how.chunks > 1) {  // the halo goes after the whole pull: one chunk
    if (how.exchange == exchange_kind::halo)
      throw invalid_argument(
          "--exchange halo sends r after each GPU's whole pull, in one chunk: not with "
          "--exchange-chunks " +
          std::to_string(how.chunks));
    use_halo = false;
  }
  const int chunks = use_halo ? 1 : how.chunks ? how.chunks : exchange_chunks(n, gpus, sizeof(T));
  pt_source<T> src;
  src.n = n;
  src.dangling = &g.dangling;
  src.cut = chunks == 1 ? ranges : nccl_cut(blocks, n, gpus, chunks, how.row_cost);
  for (std::size_t k = 0; k + 1 < src.cut.size(); ++k)
    src.piece_links.push_back(static_cast<std::uint64_t>(rp[src.cut[k + 1]] - rp[src.cut[k]]));
  src.rows = [&](std::size_t k) { return row_range(g.pt, src.cut[k], src.cut[k + 1]); };
  if (chosen) *chosen = {chunks, use_halo, halo.values, std::uint64_t(gpus - 1) * std::uint64_t(n)};
  return solve(src, opt, gpus, chunks, stats, use_halo ? &halo : nullptr);
}

template <class T>
pagerank_result pagerank_nccl(csr_pieces&& at, const std::vector<std::uint32_t>& out_degree,
                              const pagerank_options& opt, int gpus, int chunks,
                              std::vector<iteration_stats>* stats) {
  const index_t n = at.rows;
  opt.validate(n);
  check_gpus(gpus, chunks);
  if (chunks < 1 || at.pieces() != static_cast<std::size_t>(gpus) * chunks || at.cols != n ||
      out_degree.size() != static_cast<std::size_t>(n))
    throw invalid_argument("--gpus " + std::to_string(gpus) + ": " + std::to_string(at.pieces()) +
                           " pieces of P^T for " + std::to_string(chunks) + " chunks a GPU");
  std::vector<std::uint8_t> dangling(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < dangling.size(); ++i) dangling[i] = out_degree[i] == 0;
  pt_source<T> src;
  src.n = n;
  src.dangling = &dangling;
  src.cut = at.first;
  for (const std::vector<index_t>& c : at.col_idx) src.piece_links.push_back(c.size());
  src.rows = [&](std::size_t k) { return pt_rows<T>(at, k, out_degree); };
  return solve(src, opt, gpus, chunks, stats);
}

template pagerank_result pagerank_nccl<float>(csr_pieces&&, const std::vector<std::uint32_t>&,
                                              const pagerank_options&, int, int,
                                              std::vector<iteration_stats>*);
template pagerank_result pagerank_nccl<double>(csr_pieces&&, const std::vector<std::uint32_t>&,
                                               const pagerank_options&, int, int,
                                               std::vector<iteration_stats>*);
template pagerank_result pagerank_nccl<float>(const pagerank_graph<float>&, const pagerank_options&, int,
                                              std::vector<iteration_stats>*, const nccl_options&,
                                              nccl_choice*);
template pagerank_result pagerank_nccl<double>(const pagerank_graph<double>&, const pagerank_options&, int,
                                               std::vector<iteration_stats>*, const nccl_options&,
                                               nccl_choice*);

}  // namespace perron::dist
