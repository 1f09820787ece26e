// Can a PageRank step on a big random-column graph move fewer bytes than its
// x gathers (issue 17 item 5 and issue 18 items 3 and 5)? Past 10^6 vertices a
// gathering pull pays a 32-byte L2 sector for every link's 4-byte x value
// (docs/PERFORMANCE.md, "SpMV auto over every shared matrix": the gather
// floor), and er:1000000:10000000's fused step (73 us) sits at it. Sessions
// 19-21 and 49 served x from shared memory by stripes and lost to L2 (every SM
// loading every stripe, or one partial sum per row per stripe). This probe
// tries propagation blocking (Beamer, Asanovic, Patterson, IPDPS 2017): a step
// in two kernels, each streaming, with one value a link written and read back:
//   links laid out by (bin b of consecutive targets, at most E links; chunk c
//   of W sources; target), each with a 16-bit source within its chunk
//   phase 1  a block per (chunk, piece of the bins): the chunk of y = r / d
//            into shared memory, then for each tile (b, c), a contiguous
//            range: contrib[p] = y[c W + src[p]] (2 + 4 bytes a link)
//   phase 2  a block per bin, a thread per row: the row's links in CSR order,
//            each contribution found by a 16-bit offset into the bin's range
//            (which stays in L1), summed in order (deterministic); then
//            r' = alpha sum + c0, y' = r' / d, the residual and the dangling
//            mass (the bins' partials summed in order by the last block)
// so a link costs 12 streamed bytes where a gather costs 32 of L2 plus its
// 4-byte index. Three earlier forms (a cooperative kernel, a grid barrier
// between the phases; bins summed in shared memory, a warp's own rows) were
// no faster. Measured on an H200 in session 50, every form 1.9-3x slower than
// the gather on er:1000000:10000000 and slower on every other graph tried
// (docs/PERFORMANCE.md, "Propagation blocking measured and dropped"): not built.
// PROBE_PERSIST=1 keeps the contributions in L2 (an access policy window);
// the phase times print with phase 1 not run and with phase 2's sums skipped.
// Checked against a CPU run of the same steps in double.
// Build beside the GPU build (scripts/gpu-prepare.sh .gpu build-gpu pagerank):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Xcompiler -fopenmp scripts/binned_pull_probe.cu \
//     build-gpu/libperron_io.a build-gpu/libperron_core.a -lisal -lz -o binned_pull_probe
//   ./binned_pull_probe er:1000000:10000000 powerlaw:1000000:10000000:2.7 ...
// Shapes tried: PROBE_SHAPES="W,E,pieces;..." (default in main).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/formats.hpp"
#include "scripts/probe_cuda.cuh"
#include "scripts/probe_graph.hpp"

namespace {

using perron::probe::upload;

constexpr float kAlpha = 0.85f;

// The block's two sums into slot[0], slot[1] (thread 0 writes them).
__device__ __forceinline__ void block_sums(float a, float b, float* slot) {
  const float2 t = perron::probe::block_sum2(a, b);
  if (threadIdx.x == 0) {
    slot[0] = t.x;
    slot[1] = t.y;
  }
}

// Where a warp's links lie: lane t holds tile t of the warp's (its start and
// the exclusive prefix of the tiles' lengths); j, an index into the tiles
// laid end to end, is in the last tile whose prefix is <= j.
__device__ __forceinline__ long long tile_pos(long long ts, int excl, int j) {
  int t = 0;
#pragma unroll
  for (int step = 16; step; step >>= 1) {
    const int e = __shfl_sync(0xffffffffu, excl, (t + step) & 31);
    if (t + step < 32 && e <= j) t += step;
  }
  return __shfl_sync(0xffffffffu, ts, t) + (j - __shfl_sync(0xffffffffu, excl, t));
}

// Phase 1: a block per (chunk c, a piece of the bins): the chunk of y into
// shared memory, then for each tile (b, c) of its bins (links laid out
// bin-major, so a tile is a contiguous range): contrib[p] = y[c W + src[p]].
// A warp takes every warps-th tile, 32 at a time, as one range.
template <int kThreads>
__global__ void __launch_bounds__(kThreads)
    phase1_kernel(const unsigned short* __restrict__ src, float* __restrict__ contrib,
                  const float* __restrict__ y, int n, int W, int C, int B, const long long* __restrict__ tile,
                  int pieces) {
  extern __shared__ float4 smem4[];
  const float* sm = reinterpret_cast<const float*>(smem4);
  constexpr int kWarps = kThreads / 32, U = 8;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int c = blockIdx.x / pieces, piece = blockIdx.x % pieces;
  const int b0 = static_cast<int>(static_cast<long long>(B) * piece / pieces),
            b1 = static_cast<int>(static_cast<long long>(B) * (piece + 1) / pieces);
  const int v0 = c * W, nq = (min(W, n - v0) + 3) / 4;  // W and v0 multiples of 4; y padded
  const float4* y4 = reinterpret_cast<const float4*>(y + v0);
  for (int j = tid; j < nq; j += kThreads * U) {
    float4 t[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (j + u * kThreads < nq) t[u] = __ldcg(y4 + j + u * kThreads);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (j + u * kThreads < nq) smem4[j + u * kThreads] = t[u];
  }
  __syncthreads();
  for (int tb = b0 + warp; tb < b1; tb += 32 * kWarps) {
    long long ts = 0;
    int len = 0;
    const int bt = tb + lane * kWarps;
    if (bt < b1) {
      const long long* tp = tile + static_cast<long long>(bt) * C + c;
      ts = __ldg(tp);
      len = static_cast<int>(__ldg(tp + 1) - ts);
    }
    int incl = len;
    for (int d = 1; d < 32; d <<= 1) {
      const int v = __shfl_up_sync(0xffffffffu, incl, d);
      if (lane >= d) incl += v;
    }
    const int excl = incl - len, total = __shfl_sync(0xffffffffu, incl, 31);
    for (int j0 = 0; j0 < total; j0 += 32 * U) {
      long long p[U];
      unsigned short s[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int j = j0 + u * 32 + lane;
        p[u] = tile_pos(ts, excl, j);
        if (j < total) s[u] = __ldcs(src + p[u]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (j0 + u * 32 + lane < total) __stcg(contrib + p[u], sm[s[u]]);
    }
  }
}

struct phase2_args {
  int n, B;
  const int* row_first;  // B + 1: a bin's rows
  const int* rp;         // CSR of P^T's pattern: a bin's links are [rp[row_first[b]], rp[row_first[b + 1]])
  const unsigned short* perm;  // CSR order -> the link's place in its bin (bin-major layout)
  const float* contrib;
  float* r;
  const float* inv_d;
  float* y;
  float* part;     // B x 2: a bin's residual and dangling mass
  unsigned* done;  // bins finished this step
  float* slots;    // 3 x (residual, dangling mass)
  int k;           // the step
  int skip;        // 1: no sums, 4: no rows either (attribution; 2: phase 1 not launched)
};

// Phase 2: a block per bin, a thread per row: the row's links in CSR order,
// each contribution read where phase 1 wrote it (the bin's contributions are
// one range that stays in L1), summed in order: deterministic. Then the
// update; the bins' residual and dangling mass summed in bin order by the
// last block to finish.
template <int kThreads>
__global__ void __launch_bounds__(kThreads) phase2_kernel(phase2_args a) {
  const int tid = threadIdx.x, b = blockIdx.x;
  const int r0 = a.row_first[b], r1 = a.row_first[b + 1];
  const long long bs = a.rp[r0];
  const float* cb = a.contrib + bs;
  const float mass = __ldcg(a.slots + 2 * (a.k % 3) + 1);
  const float c0 = (1.f - kAlpha + kAlpha * mass) / a.n;
  float res = 0.f, dang = 0.f;
  for (int v = r0 + tid; !(a.skip & 4) && v < r1; v += kThreads) {
    const int e0 = a.rp[v], e1 = (a.skip & 1) ? e0 : a.rp[v + 1];
    float sum = 0.f;
    int e = e0;
    for (; e + 4 <= e1; e += 4) {
      const unsigned short q0 = __ldg(a.perm + e), q1 = __ldg(a.perm + e + 1), q2 = __ldg(a.perm + e + 2),
                           q3 = __ldg(a.perm + e + 3);
      const float g0 = cb[q0], g1 = cb[q1], g2 = cb[q2], g3 = cb[q3];
      sum += g0;
      sum += g1;
      sum += g2;
      sum += g3;
    }
    for (; e < e1; ++e) sum += cb[__ldg(a.perm + e)];
    const float rn = kAlpha * sum + c0;
    res += fabsf(rn - a.r[v]);
    a.r[v] = rn;
    const float id = a.inv_d[v];
    a.y[v] = rn * id;
    if (id == 0.f) dang += rn;
  }
  block_sums(res, dang, a.part + 2 * b);
  __shared__ bool last;
  if (tid == 0) {
    __threadfence();
    last = atomicAdd(a.done, 1u) == static_cast<unsigned>(a.B - 1);
  }
  __syncthreads();
  if (last) {
    __threadfence();
    float s0 = 0.f, s1 = 0.f;
    for (int i = tid; i < a.B; i += kThreads) {
      s0 += __ldcg(a.part + 2 * i);
      s1 += __ldcg(a.part + 2 * i + 1);
    }
    block_sums(s0, s1, a.slots + 2 * ((a.k + 1) % 3));
    if (tid == 0) {
      a.slots[2 * ((a.k + 2) % 3)] = 0.f;
      a.slots[2 * ((a.k + 2) % 3) + 1] = 0.f;
      *a.done = 0;
    }
  }
}

struct shape {
  int W, H, pieces;  // chunk width, most links a bin, phase 1 blocks a chunk
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  constexpr int kT1 = 256, kT2 = 256;
  std::vector<shape> shapes{
      {16384, 8192, 4}, {16384, 16384, 4}, {16384, 4096, 4}, {8192, 8192, 8}, {32768, 8192, 4}};
  if (const char* e = std::getenv("PROBE_SHAPES")) {
    shapes.clear();
    std::stringstream ss(e);
    std::string t;
    while (std::getline(ss, t, ';')) {
      shape s{};
      if (std::sscanf(t.c_str(), "%d,%d,%d", &s.W, &s.H, &s.pieces) == 3) shapes.push_back(s);
    }
  }
  int sms = 0, smem_max = 0;
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  smem_max -= 1024;
  PERRON_CUDA_CHECK(
      cudaFuncSetAttribute(phase1_kernel<kT1>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
  cudaEvent_t ev[3];
  for (auto& e : ev) PERRON_CUDA_CHECK(cudaEventCreate(&e));
  // PROBE_PERSIST=1: the contributions kept in L2 (an access policy window
  // of persisting lines), so that phase 1's writes need not reach DRAM
  const bool persist = std::getenv("PROBE_PERSIST") != nullptr;
  int max_persist = 0, max_window = 0;
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, 0));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, 0));
  std::printf("L2 persisting at most %d bytes, a window at most %d bytes%s\n", max_persist, max_window,
              persist ? "; contributions persisting" : "");
  if (persist) PERRON_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, max_persist));
  cudaStream_t st;
  PERRON_CUDA_CHECK(cudaStreamCreate(&st));
  const int steps = 30;
  std::printf("us: medians over %d steps of one launch each phase (CUDA events); %d SMs\n", steps, sms);
  std::printf("%-32s %8s %9s %-18s %8s %8s %8s %8s %8s\n", "graph", "n", "links", "W,E,pieces", "phase1",
              "phase2", "step", "-sums", "max err");
  for (int g = 1; g < argc; ++g) {
    const std::string spec = argv[g];
    const perron::probe::pattern pg = perron::probe::load_pattern(spec);
    const int n = pg.n;
    const std::vector<int>&rp = pg.rp, &col = pg.col;
    const long long m = static_cast<long long>(col.size());
    const std::vector<float> inv_d = perron::probe::inverse_degrees(pg);
    const std::vector<double> ref = perron::probe::reference_ranks(pg, kAlpha, steps);
    const float mass0 = perron::probe::uniform_dangling_mass<float>(pg);
    std::vector<float> slots0(6, 0.f);
    slots0[1] = mass0;
    std::vector<float> r0(n, 1.f / n), y0((n + 3) / 4 * 4 + 4, 0.f);
    for (int i = 0; i < n; ++i) y0[i] = r0[i] * inv_d[i];
    float *d_r = upload(r0), *d_inv = upload(inv_d), *d_slots = upload(slots0), *d_y = upload(y0);
    for (const shape& sh : shapes) {
      const int W = sh.W, E = sh.H, C = (n + W - 1) / W;
      if (W % 4 || W > 65536 || E > 65536 || 4LL * W > smem_max) {
        std::printf("%-32s shape %d,%d skipped\n", spec.c_str(), W, E);
        continue;
      }
      // bins: consecutive rows of at most E links (a bin's contributions are
      // addressed by 16 bits) and 4096 rows
      std::vector<int> row_first{0};
      {
        long long w = 0;
        for (int v = 0; v < n; ++v) {
          const long long dv = rp[v + 1] - rp[v];
          if (dv > 65536) break;
          if (v > row_first.back() && (v - row_first.back() >= 4096 || w + dv > E)) {
            row_first.push_back(v);
            w = 0;
          }
          w += dv;
        }
        row_first.push_back(n);
      }
      long long most_in = 0;
      for (int v = 0; v < n; ++v) most_in = std::max<long long>(most_in, rp[v + 1] - rp[v]);
      if (most_in > 65536) {
        std::printf("%-32s shape %d,%d skipped: a row of %lld links\n", spec.c_str(), W, E, most_in);
        continue;
      }
      const int B = static_cast<int>(row_first.size()) - 1;
      std::vector<int> bin_of(n);
      for (int b = 0; b < B; ++b)
        for (int v = row_first[b]; v < row_first[b + 1]; ++v) bin_of[v] = b;
      // links by (bin, chunk, target): counting sort over tiles, targets ascending
      const long long tiles = static_cast<long long>(B) * C;
      std::vector<long long> tile(tiles + 1, 0);
      for (int v = 0; v < n; ++v)
        for (int q = rp[v]; q < rp[v + 1]; ++q)
          ++tile[static_cast<long long>(bin_of[v]) * C + col[q] / W + 1];
      for (long long t = 0; t < tiles; ++t) tile[t + 1] += tile[t];
      std::vector<long long> cur(tile.begin(), tile.end() - 1);
      std::vector<unsigned short> src(m + 8), perm(m + 8);
      for (int v = 0; v < n; ++v) {
        const int b = bin_of[v];
        const long long bs = rp[row_first[b]];
        for (int q = rp[v]; q < rp[v + 1]; ++q) {
          const int c = col[q] / W;
          const long long p = cur[static_cast<long long>(b) * C + c]++;
          src[p] = static_cast<unsigned short>(col[q] - c * W);
          perm[q] = static_cast<unsigned short>(p - bs);
        }
      }
      long long* d_tile = upload(tile);
      int *d_rf = upload(row_first), *d_rp = upload(rp);
      unsigned short *d_src = upload(src), *d_perm = upload(perm);
      float* d_contrib = upload(std::vector<float>(m + 4, 0.f));
      float* d_part = upload(std::vector<float>(2ULL * B, 0.f));
      unsigned* d_done = upload(std::vector<unsigned>(1, 0u));
      const std::size_t smem1 = 4ULL * W;
      if (persist) {
        cudaStreamAttrValue attr{};
        attr.accessPolicyWindow.base_ptr = d_contrib;
        attr.accessPolicyWindow.num_bytes = std::min<std::size_t>(4ULL * m, max_window);
        attr.accessPolicyWindow.hitRatio =
            std::min(1.f, static_cast<float>(max_persist) / attr.accessPolicyWindow.num_bytes);
        attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        PERRON_CUDA_CHECK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &attr));
      }
      double out[6] = {0, 0, 0, 0, 0, 0}, err = 0;
      for (const int skip : {0, 1, 3, 7}) {
        PERRON_CUDA_CHECK(cudaMemcpy(d_r, r0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        PERRON_CUDA_CHECK(cudaMemcpy(d_y, y0.data(), y0.size() * sizeof(float), cudaMemcpyHostToDevice));
        PERRON_CUDA_CHECK(cudaMemcpy(d_slots, slots0.data(), 6 * sizeof(float), cudaMemcpyHostToDevice));
        std::vector<double> t1, t2;
        for (int k = 0; k < steps; ++k) {
          phase2_args pa{n,     B,   d_rf,   d_rp,   d_perm,  d_contrib, d_r,
                         d_inv, d_y, d_part, d_done, d_slots, k,         skip};
          PERRON_CUDA_CHECK(cudaEventRecord(ev[0], st));
          if (!(skip & 2))
            phase1_kernel<kT1>
                <<<C * sh.pieces, kT1, smem1, st>>>(d_src, d_contrib, d_y, n, W, C, B, d_tile, sh.pieces);
          PERRON_CUDA_CHECK(cudaEventRecord(ev[1], st));
          phase2_kernel<kT2><<<B, kT2, 0, st>>>(pa);
          PERRON_CUDA_CHECK(cudaEventRecord(ev[2], st));
          PERRON_CUDA_CHECK(cudaEventSynchronize(ev[2]));
          float ta = 0, tb = 0;
          PERRON_CUDA_CHECK(cudaEventElapsedTime(&ta, ev[0], ev[1]));
          PERRON_CUDA_CHECK(cudaEventElapsedTime(&tb, ev[1], ev[2]));
          if (k >= 2) {
            t1.push_back(1e3 * ta);
            t2.push_back(1e3 * tb);
          }
        }
        PERRON_CUDA_CHECK(cudaGetLastError());
        if (skip == 0) {
          out[0] = median(t1);
          out[1] = median(t2);
          std::vector<float> r(n);
          PERRON_CUDA_CHECK(cudaMemcpy(r.data(), d_r, n * sizeof(float), cudaMemcpyDeviceToHost));
          for (int i = 0; i < n; ++i) err = std::max(err, std::fabs(r[i] - ref[i]) / ref[i]);
        } else {
          out[skip == 1 ? 2 : skip == 3 ? 3 : 4] = median(t2);
        }
      }
      char name[48];
      std::snprintf(name, sizeof name, "%d,%d,%d", W, E, sh.pieces);
      std::printf(
          "%-32s %8d %9lld %-18s %8.2f %8.2f %8.2f %8.2f %8.1e  (no phase 1: %.2f, no rows %.2f; C %d, B %d, "
          "links a tile %.0f)\n",
          spec.c_str(), n, m, name, out[0], out[1], out[0] + out[1], out[2], err, out[3], out[4], C, B,
          static_cast<double>(m) / tiles);
      std::fflush(stdout);
      for (void* p : {(void*)d_tile, (void*)d_rf, (void*)d_rp, (void*)d_src, (void*)d_perm, (void*)d_contrib,
                      (void*)d_part, (void*)d_done})
        PERRON_CUDA_CHECK(cudaFree(p));
    }
    for (void* p : {(void*)d_r, (void*)d_inv, (void*)d_slots, (void*)d_y}) PERRON_CUDA_CHECK(cudaFree(p));
  }
  return 0;
}
