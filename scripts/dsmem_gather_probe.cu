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
// nvcc -O3 -arch=sm_90 -o dsmem_gather_probe dsmem_gather_probe.cu; ./dsmem_gather_probe
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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
      // As many clusters as fit at once (a GPC holds whole clusters: 7 of 16 blocks on the H100).
      cudaLaunchConfig_t cfg{};
      cfg.blockDim = dim3(threads);
      cfg.dynamicSmemBytes = static_cast<size_t>(share) * sizeof(float);
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = c;
      attr.val.clusterDim.y = 1;
      attr.val.clusterDim.z = 1;
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      cfg.gridDim = dim3(c);
      int clusters = 0;
      CHECK(cudaOccupancyMaxActiveClusters(&clusters, gather_dsmem<false>, &cfg));
      cfg.gridDim = dim3(clusters * c);
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
  // The streaming alone: 8 bytes per entry from DRAM at the copy rate, for scale.
  float* d_copy;
  CHECK(cudaMalloc(&d_copy, nnz * sizeof(float)));
  const double tc =
      time([&] { CHECK(cudaMemcpyAsync(d_copy, d_val, nnz * sizeof(float), cudaMemcpyDeviceToDevice)); });
  std::printf("copy of the values (%lld MB read + written): %.1f us, %.0f GB/s\n", nnz * 4 / 1000000, tc,
              2.0 * nnz * 4 / tc * 1e-3);
  return 0;
}
