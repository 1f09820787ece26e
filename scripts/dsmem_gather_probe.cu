// Can x come from distributed shared memory instead of L2? A random-column
// SpMV's cost is its gathers: each x[col] from L2 costs a 32-byte sector for
// 4 useful bytes (docs/PERFORMANCE.md, "SpMV auto over every shared matrix").
// This probe times the inner loop of such an SpMV, sum += val[k] * x[col[k]]
// over `nnz` entries streamed from DRAM (columns uniform in [0, S)), with x:
//   global   x in global memory (L2), every block streaming its share of entries
//   dsmem    x split over the shared memory of a thread-block cluster of C
//            blocks (each holds S / C values); a gather reads the owner
//            block's copy through cluster.map_shared_rank (Hopper's SM-to-SM
//            network); the blocks load their shares first (timed with it)
//   local    as dsmem, but every gather reads the block's own shared memory
//            (columns folded into its share): the shared memory bound
//   stripes  x of 1-8 MB (more than one SM holds) in column stripes: each block
//            loads every stripe into its own shared memory and gathers the
//            entries of that stripe from there (entries grouped by stripe)
// H100 figures in docs/PERFORMANCE.md ("A probe: x from distributed shared memory").
//   multicast as stripes, but each stripe crosses L2 once per cluster: TMA
//            multicast into every member's shared memory, double-buffered
// nvcc -O3 -arch=sm_90a -o dsmem_gather_probe dsmem_gather_probe.cu; ./dsmem_gather_probe
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda/ptx>
#include <random>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

constexpr int threads = 1024;

// Each block takes an equal share of the entries; one float per thread out.
__global__ void __launch_bounds__(threads)
    gather_global(long long nnz, const int* __restrict__ col, const float* __restrict__ val,
                  const float* __restrict__ x, float* out) {
  const long long per = (nnz + gridDim.x - 1) / gridDim.x;
  const long long b = per * blockIdx.x, e = b + per < nnz ? b + per : nnz;
  float s = 0;
  for (long long k = b + threadIdx.x; k < e; k += threads) s += val[k] * __ldg(x + col[k]);
  out[blockIdx.x * threads + threadIdx.x] = s;
}

// share: values of x per block (S = share * cluster size); local: gather from
// the block's own shared memory only.
template <bool local>
__global__ void __launch_bounds__(threads)
    gather_dsmem(long long nnz, const int* __restrict__ col, const float* __restrict__ val,
                 const float* __restrict__ x, int share, float* out) {
  extern __shared__ float xs[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned me = cluster.block_rank();
  for (int i = threadIdx.x; i < share; i += threads) xs[i] = x[static_cast<long long>(me) * share + i];
  cluster.sync();
  const long long per = (nnz + gridDim.x - 1) / gridDim.x;
  const long long b = per * blockIdx.x, e = b + per < nnz ? b + per : nnz;
  float s = 0;
  for (long long k = b + threadIdx.x; k < e; k += threads) {
    const int c = col[k];
    const unsigned owner = static_cast<unsigned>(c) / static_cast<unsigned>(share);
    const int off = c - static_cast<int>(owner) * share;
    if (local)
      s += val[k] * xs[off];
    else
      s += val[k] * cluster.map_shared_rank(xs, owner)[off];
  }
  cluster.sync();  // no block leaves while others may read its shared memory
  out[blockIdx.x * threads + threadIdx.x] = s;
}

// x of `n` values in stripes of `width` (the last may be shorter); the block's
// entries come grouped by stripe, `seg` per stripe (columns inside it). For
// each stripe the block loads it into its shared memory (coalesced), then
// gathers from there: x crosses L2 once per block and stripe as whole lines.
__global__ void __launch_bounds__(threads)
    gather_stripes(long long nnz, const int* __restrict__ col, const float* __restrict__ val,
                   const float* __restrict__ x, int n, int width, float* out) {
  extern __shared__ float xs[];
  const int stripes = (n + width - 1) / width;
  const long long per = (nnz + gridDim.x - 1) / gridDim.x;
  const long long b = per * blockIdx.x, e = b + per < nnz ? b + per : nnz;
  const long long seg = (per + stripes - 1) / stripes;
  float s = 0;
  for (int t = 0; t < stripes; ++t) {
    const int first = t * width, w = n - first < width ? n - first : width;
    __syncthreads();  // the last stripe's gathers are done
    for (int i = threadIdx.x; i < w; i += threads) xs[i] = x[first + i];
    __syncthreads();
    const long long sb = b + t * seg, se = sb + seg < e ? sb + seg : e;
    for (long long k = sb + threadIdx.x; k < se; k += threads) s += val[k] * xs[col[k] - first];
  }
  out[blockIdx.x * threads + threadIdx.x] = s;
}

// As gather_stripes, but a cluster of C blocks shares each stripe's trip
// across L2: block r copies the r-th C-th of the stripe into the same place
// in every member's shared memory (cp.async.bulk ... multicast::cluster, one
// mbarrier per buffer counting the bytes that land), two buffers so the next
// stripe flies while this one is gathered; a cluster barrier per stripe keeps
// a buffer from being refilled while any member still reads it. width: a
// multiple of 4 C values (16-byte pieces), as is n.
__global__ void __launch_bounds__(threads)
    gather_multicast(long long nnz, const int* __restrict__ col, const float* __restrict__ val,
                     const float* __restrict__ x, int n, int width, float* out) {
  extern __shared__ __align__(16) float xs[];  // two buffers of width values
  __shared__ __align__(8) std::uint64_t bar[2];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned me = cluster.block_rank(), c = cluster.num_blocks();
  const int stripes = (n + width - 1) / width;
  const auto issue = [&](int t) {  // thread 0: this block's piece of stripe t, to every member
    const int first = t * width, w = n - first < width ? n - first : width;
    const int piece = (w / 4 + static_cast<int>(c) - 1) / static_cast<int>(c) * 4;
    const int lo = static_cast<int>(me) * piece, hi = lo + piece < w ? lo + piece : w;
    std::uint64_t* b = &bar[t & 1];
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                         cuda::ptx::space_shared, b, static_cast<std::uint32_t>(w) * 4u);
    if (hi > lo)
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, xs + (t & 1) * width + lo,
                               x + first + lo, static_cast<std::uint32_t>(hi - lo) * 4u, b,
                               static_cast<std::uint16_t>((1u << c) - 1u));
  };
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar[0], 1);
    cuda::ptx::mbarrier_init(&bar[1], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cluster.sync();  // every member's barriers exist before any copy lands
  if (threadIdx.x == 0) issue(0);
  const long long per = (nnz + gridDim.x - 1) / gridDim.x;
  const long long b = per * blockIdx.x, e = b + per < nnz ? b + per : nnz;
  const long long seg = (per + stripes - 1) / stripes;
  float s = 0;
  for (int t = 0; t < stripes; ++t) {
    if (t + 1 < stripes) {
      cluster.sync();  // buffer (t + 1) & 1 (stripe t - 1) is read by no member any more
      if (threadIdx.x == 0) issue(t + 1);
    }
    while (!cuda::ptx::mbarrier_try_wait_parity(&bar[t & 1], static_cast<std::uint32_t>((t >> 1) & 1))) {
    }
    const float* buf = xs + (t & 1) * width;
    const int first = t * width;
    const long long sb = b + t * seg, se = sb + seg < e ? sb + seg : e;
    for (long long k = sb + threadIdx.x; k < se; k += threads) s += val[k] * buf[col[k] - first];
  }
  cluster.sync();  // no member leaves while copies into it may be in flight
  out[blockIdx.x * threads + threadIdx.x] = s;
}

// A cluster launch of `c` blocks per cluster with `smem` bytes of dynamic
// shared memory, as many clusters as fit at once (a GPC holds whole clusters:
// 7 of 16 blocks on the H100).
struct cluster_launch {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr{};
  int blocks = 0;
  template <class Kernel>
  cluster_launch(Kernel kernel, int c, size_t smem) {
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = c;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(c);
    int clusters = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
    blocks = clusters * c;
    cfg.gridDim = dim3(blocks);
  }
  cluster_launch(const cluster_launch&) = delete;  // cfg points at attr
};

int main(int argc, char** argv) {
  const long long nnz = argc > 1 ? std::atoll(argv[1]) : 16 << 20;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  int max_smem = 0;
  CHECK(cudaDeviceGetAttribute(&max_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  std::printf("%s, %d SMs, %d KB shared memory per block at most, %lld entries\n", prop.name, sms,
              max_smem / 1024, nnz);
  for (auto f : {gather_dsmem<false>, gather_dsmem<true>}) {
    CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
    CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  int* d_col;
  float *d_val, *d_x, *d_out;
  CHECK(cudaMalloc(&d_col, nnz * sizeof(int)));
  CHECK(cudaMalloc(&d_val, nnz * sizeof(float)));
  const int max_share = max_smem / 4;
  CHECK(cudaMalloc(&d_x, static_cast<size_t>(16) * max_share * sizeof(float)));
  CHECK(cudaMalloc(&d_out, static_cast<size_t>(sms) * threads * sizeof(float)));
  std::vector<float> h_x(static_cast<size_t>(16) * max_share);
  std::mt19937_64 rng(7);
  for (float& v : h_x) v = std::uniform_real_distribution<float>(0, 1)(rng);
  CHECK(cudaMemcpy(d_x, h_x.data(), h_x.size() * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<float> h_val(nnz);
  for (float& v : h_val) v = std::uniform_real_distribution<float>(0, 1)(rng);
  CHECK(cudaMemcpy(d_val, h_val.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<int> h_col(nnz);
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  const auto time = [&](auto launch) {
    std::vector<float> ms;
    for (int r = 0; r < 13; ++r) {
      CHECK(cudaEventRecord(e0));
      launch();
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, e0, e1));
      if (r >= 3) ms.push_back(t);
    }
    CHECK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2] * 1e3;  // us
  };
  std::printf("%8s %8s %8s %10s %10s %12s %12s %12s\n", "cluster", "blocks", "share", "S (MB)", "global us",
              "dsmem us", "local us", "dsmem/global");
  for (int c : {4, 8, 16}) {
    for (int share : {max_share / 2, max_share}) {
      const long long S = static_cast<long long>(c) * share;
      for (long long k = 0; k < nnz; ++k) h_col[k] = static_cast<int>(rng() % S);
      CHECK(cudaMemcpy(d_col, h_col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
      cluster_launch L(gather_dsmem<false>, c, static_cast<size_t>(share) * sizeof(float));
      const cudaLaunchConfig_t& cfg = L.cfg;
      const int clusters = L.blocks / c;
      const double tg =
          time([&] { gather_global<<<clusters * c, threads>>>(nnz, d_col, d_val, d_x, d_out); });
      const double td = time([&] {
        CHECK(cudaLaunchKernelEx(&cfg, gather_dsmem<false>, nnz, static_cast<const int*>(d_col),
                                 static_cast<const float*>(d_val), static_cast<const float*>(d_x), share,
                                 d_out));
      });
      const double tl = time([&] {
        CHECK(cudaLaunchKernelEx(&cfg, gather_dsmem<true>, nnz, static_cast<const int*>(d_col),
                                 static_cast<const float*>(d_val), static_cast<const float*>(d_x), share,
                                 d_out));
      });
      std::printf("%8d %8d %8d %10.2f %10.1f %12.1f %12.1f %12.2f\n", c, clusters * c, share, S * 4e-6, tg,
                  td, tl, td / tg);
    }
  }
  // x larger than shared memory: striped through each block's own shared memory, against gathers
  // from L2, one block per SM.
  CHECK(cudaFuncSetAttribute(gather_stripes, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
  std::printf("\n%10s %8s %8s %10s %12s %14s\n", "x (MB)", "stripes", "width", "global us", "stripes us",
              "stripes/global");
  for (int n : {1 << 18, 1 << 20, 1 << 21}) {
    if (static_cast<size_t>(n) > h_x.size()) {
      CHECK(cudaFree(d_x));
      h_x.resize(n);
      for (float& v : h_x) v = std::uniform_real_distribution<float>(0, 1)(rng);
      CHECK(cudaMalloc(&d_x, static_cast<size_t>(n) * sizeof(float)));
      CHECK(cudaMemcpy(d_x, h_x.data(), static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice));
    }
    for (int width : {max_share / 2, max_share}) {
      const int stripes = (n + width - 1) / width, blocks = sms;
      const long long per = (nnz + blocks - 1) / blocks, seg = (per + stripes - 1) / stripes;
      for (long long k = 0; k < nnz; ++k) {  // block k / per, stripe (k % per) / seg
        const long long t = std::min<long long>((k % per) / seg, stripes - 1);
        const long long lo = t * width, hi = std::min<long long>(n, lo + width);
        h_col[k] = static_cast<int>(lo + static_cast<long long>(rng() % (hi - lo)));
      }
      CHECK(cudaMemcpy(d_col, h_col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
      const double tg = time([&] { gather_global<<<blocks, threads>>>(nnz, d_col, d_val, d_x, d_out); });
      const double ts = time([&] {
        gather_stripes<<<blocks, threads, static_cast<size_t>(width) * sizeof(float)>>>(nnz, d_col, d_val,
                                                                                        d_x, n, width, d_out);
      });
      std::printf("%10.2f %8d %8d %10.1f %12.1f %14.2f\n", n * 4e-6, stripes, width, tg, ts, ts / tg);
    }
  }
  // Striped with the cluster's multicast: x crosses L2 once per cluster and stripe.
  CHECK(cudaFuncSetAttribute(gather_multicast, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem - 1024));
  CHECK(cudaFuncSetAttribute(gather_multicast, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  std::printf("\n%10s %8s %8s %8s %8s %10s %14s %16s\n", "x (MB)", "cluster", "blocks", "stripes", "width",
              "global us", "multicast us", "multicast/global");
  for (int n : {1 << 20, 1 << 21}) {
    for (int c : {2, 4, 8, 16}) {
      const int width = (max_smem - 1024) / 8 / (4 * 16) * (4 * 16);  // two buffers, pieces of 16 bytes
      cluster_launch L(gather_multicast, c, static_cast<size_t>(2 * width) * sizeof(float));
      const cudaLaunchConfig_t& cfg = L.cfg;
      const int blocks = L.blocks;
      const int stripes = (n + width - 1) / width;
      const long long per = (nnz + blocks - 1) / blocks, seg = (per + stripes - 1) / stripes;
      for (long long k = 0; k < nnz; ++k) {
        const long long t = std::min<long long>((k % per) / seg, stripes - 1);
        const long long lo = t * width, hi = std::min<long long>(n, lo + width);
        h_col[k] = static_cast<int>(lo + static_cast<long long>(rng() % (hi - lo)));
      }
      CHECK(cudaMemcpy(d_col, h_col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
      const double tg = time([&] { gather_global<<<blocks, threads>>>(nnz, d_col, d_val, d_x, d_out); });
      const double tm = time([&] {
        CHECK(cudaLaunchKernelEx(&cfg, gather_multicast, nnz, static_cast<const int*>(d_col),
                                 static_cast<const float*>(d_val), static_cast<const float*>(d_x), n, width,
                                 d_out));
      });
      // The same total as the global gathers: a check that every stripe landed.
      std::vector<float> a(static_cast<size_t>(blocks) * threads), m(a.size());
      gather_global<<<blocks, threads>>>(nnz, d_col, d_val, d_x, d_out);
      CHECK(cudaMemcpy(a.data(), d_out, a.size() * sizeof(float), cudaMemcpyDeviceToHost));
      CHECK(cudaLaunchKernelEx(&cfg, gather_multicast, nnz, static_cast<const int*>(d_col),
                               static_cast<const float*>(d_val), static_cast<const float*>(d_x), n, width,
                               d_out));
      CHECK(cudaMemcpy(m.data(), d_out, m.size() * sizeof(float), cudaMemcpyDeviceToHost));
      double sa = 0, sm = 0;  // each thread sums other entries in each kernel: compare the totals
      for (size_t i = 0; i < a.size(); ++i) {
        sa += a[i];
        sm += m[i];
      }
      const double worst = std::abs(sa - sm) / std::abs(sa);
      std::printf("%10.2f %8d %8d %8d %8d %10.1f %14.1f %16.2f   (totals differ by %.1e)\n", n * 4e-6, c,
                  blocks, stripes, width, tg, tm, tm / tg, worst);
    }
  }
  // The streaming alone: 8 bytes per entry from DRAM at the copy rate, for scale.
  float* d_copy;
  CHECK(cudaMalloc(&d_copy, nnz * sizeof(float)));
  const double tc =
      time([&] { CHECK(cudaMemcpyAsync(d_copy, d_val, nnz * sizeof(float), cudaMemcpyDeviceToDevice)); });
  std::printf("copy of the values (%lld MB read + written): %.1f us, %.0f GB/s\n", nnz * 4 / 1000000, tc,
              2.0 * nnz * 4 / tc * 1e-3);
  return 0;
}
