// PageRank on several GPUs of one process through NCCL (solvers/dist/pagerank_nccl.hpp).
#include <dlfcn.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/device.hpp"
#include "core/error.hpp"
#include "solvers/dist/pagerank_dist.hpp"
#include "solvers/dist/pagerank_nccl.hpp"

namespace perron::dist {
namespace {

constexpr index_t sum_block = pagerank_sum_block;  // solvers/pagerank.hpp
constexpr int update_threads = 256;

// The few NCCL entry points used, from libnccl.so.2 opened at run time.
struct nccl_api {
  decltype(&ncclCommInitAll) comm_init_all = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
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

// y[i] = sum_k P^T(i, k) r[col_k] over rows [0, rows): a warp per row, lanes
// striding its entries, then a fixed shuffle tree (the same order every run).
template <class T>
__global__ void pull_rows(index_t rows, const index_t* __restrict__ row_ptr, const index_t* __restrict__ col,
                          const T* __restrict__ val, const T* __restrict__ r, T* __restrict__ y) {
  const index_t row = static_cast<index_t>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  T s = 0;
  for (index_t k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += 32) s += val[k] * r[col[k]];
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) y[row] = s;
}

// r_new = alpha y + c v on the rows, written into this GPU's piece of r, and
// per 4096-vertex block (one CUDA block each) ||r_new - r||_1 and the new
// dangling mass, summed by a fixed shared-memory tree into part[2b], part[2b + 1].
template <class T>
__global__ void update_rows(index_t lo, index_t hi, const T* __restrict__ y, const double* __restrict__ v,
                            const std::uint8_t* __restrict__ dangling, double alpha, double c, T* piece,
                            double* part) {
  __shared__ double l1s[update_threads], dms[update_threads];
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

// One GPU's share: its rows of P^T (columns into the padded layout), the
// whole padded r, its y, v, dangling flags and block partials.
template <class T>
struct gpu_part {
  int device = 0;
  index_t lo = 0, hi = 0;
  cuda::device_buffer<index_t> row_ptr, col;
  cuda::device_buffer<T> val, r, y;
  cuda::device_buffer<double> v, part;
  cuda::device_buffer<std::uint8_t> dangling;
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

}  // namespace

bool nccl_built() { return true; }

template <class T>
pagerank_result pagerank_nccl(const pagerank_graph<T>& g, const pagerank_options& opt, int gpus) {
  const index_t n = g.vertices();
  opt.validate(n);
  if (gpus < 1) throw invalid_argument("--gpus must be at least 1, got " + std::to_string(gpus));
  if (gpus > cuda::device_count())
    throw cuda_error("--gpus " + std::to_string(gpus) + ": this machine has " +
                     std::to_string(cuda::device_count()) + " usable GPU(s)");
  const nccl_api& api = nccl();
  const std::vector<double> v = normalized_distribution(opt.personalization, n, "personalization");
  const std::vector<double> r0 = normalized_distribution(opt.initial, n, "initial vector");
  const std::vector<index_t> first = balanced_ranges(g.pt.row_ptr, gpus);
  // Equal pieces for ncclAllGather: `piece` vertices and `blocks` partial pairs per GPU.
  index_t piece = 1, blocks = 1;
  for (int d = 0; d < gpus; ++d) {
    piece = std::max(piece, first[d + 1] - first[d]);
    blocks = std::max(blocks, (first[d + 1] - first[d] + sum_block - 1) / sum_block);
  }
  const auto padded = [&](index_t j) {  // vertex j's place in the padded r
    const int d = static_cast<int>(std::upper_bound(first.begin(), first.end(), j) - first.begin()) - 1;
    return static_cast<index_t>(d) * piece + (j - first[d]);
  };
  std::vector<T> r_host(static_cast<std::size_t>(piece) * gpus, T(0));
  double dangling_mass = 0.0;  // as pagerank_cpu: in vertex order
  for (index_t i = 0; i < n; ++i) {
    r_host[padded(i)] = static_cast<T>(r0[i]);
    if (g.dangling[i]) dangling_mass += static_cast<double>(static_cast<T>(r0[i]));
  }

  std::vector<gpu_part<T>> parts(static_cast<std::size_t>(gpus));
  std::vector<int> devices(static_cast<std::size_t>(gpus));
  for (int d = 0; d < gpus; ++d) {
    gpu_part<T>& p = parts[d];
    p.device = devices[d] = d;
    p.lo = first[d];
    p.hi = first[d + 1];
    PERRON_CUDA_CHECK(cudaSetDevice(d));
    p.stream = std::make_unique<cuda::stream>();
    const index_t b = g.pt.row_ptr[p.lo], e = g.pt.row_ptr[p.hi];
    std::vector<index_t> rp(static_cast<std::size_t>(p.hi - p.lo) + 1), col(static_cast<std::size_t>(e - b));
    for (index_t i = p.lo; i <= p.hi; ++i) rp[i - p.lo] = g.pt.row_ptr[i] - b;
    for (index_t k = b; k < e; ++k) col[k - b] = padded(g.pt.col_idx[k]);
    p.row_ptr = cuda::device_buffer<index_t>(rp);
    p.col = cuda::device_buffer<index_t>(col);
    p.val = cuda::device_buffer<T>(std::vector<T>(g.pt.values.begin() + b, g.pt.values.begin() + e));
    p.r = cuda::device_buffer<T>(r_host);
    p.y = cuda::device_buffer<T>(std::max<std::size_t>(1, static_cast<std::size_t>(p.hi - p.lo)));
    p.v = cuda::device_buffer<double>(std::vector<double>(v.begin() + p.lo, v.begin() + p.hi));
    p.dangling = cuda::device_buffer<std::uint8_t>(
        std::vector<std::uint8_t>(g.dangling.begin() + p.lo, g.dangling.begin() + p.hi));
    p.part =
        cuda::device_buffer<double>(std::vector<double>(static_cast<std::size_t>(2 * blocks) * gpus, 0.0));
  }
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(gpus));
  check(api.comm_init_all(comms.data(), gpus, devices.data()), "ncclCommInitAll");
  for (int d = 0; d < gpus; ++d) parts[d].comm = comms[d];

  cuda::pinned_buffer<double> part_host(static_cast<std::size_t>(2 * blocks) * gpus);
  const auto t0 = std::chrono::steady_clock::now();
  pagerank_result res;
  for (int k = 1; k <= opt.max_iter; ++k) {
    const double c = opt.alpha * dangling_mass + (1.0 - opt.alpha);
    for (gpu_part<T>& p : parts) {
      PERRON_CUDA_CHECK(cudaSetDevice(p.device));
      const index_t rows = p.hi - p.lo;
      if (rows == 0) continue;
      const cudaStream_t s = p.stream->get();
      const unsigned grid = static_cast<unsigned>((static_cast<std::size_t>(rows) * 32 + 255) / 256);
      pull_rows<T>
          <<<grid, 256, 0, s>>>(rows, p.row_ptr.data(), p.col.data(), p.val.data(), p.r.data(), p.y.data());
      PERRON_CUDA_CHECK_LAUNCH("pull_rows");
      const auto my_blocks = static_cast<unsigned>((p.hi + sum_block - 1) / sum_block - p.lo / sum_block);
      T* mine = p.r.data() + static_cast<std::size_t>(p.device) * static_cast<std::size_t>(piece);
      update_rows<T><<<my_blocks, update_threads, 0, s>>>(
          p.lo, p.hi, p.y.data(), p.v.data(), p.dangling.data(), opt.alpha, c, mine,
          p.part.data() + static_cast<std::size_t>(p.device) * static_cast<std::size_t>(2 * blocks));
      PERRON_CUDA_CHECK_LAUNCH("update_rows");
    }
    check(api.group_start(), "ncclGroupStart");
    for (gpu_part<T>& p : parts) {
      const std::size_t off = static_cast<std::size_t>(p.device);
      check(api.all_gather(p.r.data() + off * piece, p.r.data(), static_cast<std::size_t>(piece),
                           nccl_type<T>(), p.comm, p.stream->get()),
            "ncclAllGather (ranks)");
      check(api.all_gather(p.part.data() + off * 2 * blocks, p.part.data(),
                           static_cast<std::size_t>(2 * blocks), ncclFloat64, p.comm, p.stream->get()),
            "ncclAllGather (partial sums)");
    }
    check(api.group_end(), "ncclGroupEnd");
    // The partials of every GPU, from GPU 0, added in block order.
    PERRON_CUDA_CHECK(cudaSetDevice(0));
    PERRON_CUDA_CHECK(cudaMemcpyAsync(part_host.data(), parts[0].part.data(),
                                      part_host.size() * sizeof(double), cudaMemcpyDeviceToHost,
                                      parts[0].stream->get()));
    parts[0].stream->synchronize();
    ++res.host_syncs;
    double l1 = 0, dm = 0;
    for (int d = 0; d < gpus; ++d) {
      const index_t nb =
          first[d + 1] == first[d] ? 0 : (first[d + 1] + sum_block - 1) / sum_block - first[d] / sum_block;
      for (index_t b = 0; b < nb; ++b) {
        l1 += part_host[static_cast<std::size_t>(d) * 2 * blocks + 2 * b];
        dm += part_host[static_cast<std::size_t>(d) * 2 * blocks + 2 * b + 1];
      }
    }
    dangling_mass = dm;
    res.iterations = k;
    res.residual = l1;
    if (opt.progress) opt.progress(k, l1);
    if (l1 < opt.tol) {
      res.converged = true;
      break;
    }
  }
  for (gpu_part<T>& p : parts) {
    PERRON_CUDA_CHECK(cudaSetDevice(p.device));
    p.stream->synchronize();
  }
  PERRON_CUDA_CHECK(cudaSetDevice(0));
  const std::vector<T> r = parts[0].r.download();
  res.rank.resize(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) res.rank[i] = static_cast<double>(r[padded(i)]);
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.on_gpu = true;
  res.pull = pagerank_pull::spmv;
  res.kernel.reset();
  res.kernel_reason = "--gpus " + std::to_string(gpus) + ": a warp per row on each GPU's rows, ncclAllGather";
  res.loop = pagerank_loop::check_every;
  return res;
}

template pagerank_result pagerank_nccl<float>(const pagerank_graph<float>&, const pagerank_options&, int);
template pagerank_result pagerank_nccl<double>(const pagerank_graph<double>&, const pagerank_options&, int);

}  // namespace perron::dist
