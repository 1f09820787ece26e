// Can a resident PageRank step beat the L2 gather floor on random-column
// graphs of 10^6-10^7 links (issue 17 items 3 and 5)? There every link's
// gather of x costs a 32-byte L2 sector (docs/PERFORMANCE.md, "Steps bound by
// instruction issue" and "SpMV auto over every shared matrix"), and sessions
// 19-21 found no way to serve x from shared memory that beat L2 when every SM
// loads all of x. This probe tries the 2-D way, in which no SM loads all of x:
// B = R x C blocks, block (r, c) holds the links whose target lies in row
// range r and whose source lies in column stripe c (n / C vertices), loads
// only that stripe of x into shared memory each step, and writes one partial
// sum per row of its range; a grid barrier; then every row's C partials are
// summed in a fixed order by the stripe's R blocks (each a piece of it), which
// write r and x for the next step. Per step, across L2:
//   gathers  links x 32 B (a sector a link) + the index
//   2-D      R x (n x 4 B) of stripe loads + 2 x C x (n x 4 B) of partials
// so it moves fewer bytes where the mean degree is well above (R + 2C) / 8.
// Kernels, each a cooperative launch of `steps` steps of
// r' = alpha P^T r + (1 - alpha + alpha * dangling mass) / n, x = r / d:
//   gather        rows by in-degree in slices of 32 (column-major, padded),
//                 contiguous runs of slices a block (balanced by links), x
//                 gathered from global memory, x double-buffered, one grid
//                 barrier a step: the persistent pull's shape (the index in
//                 shared memory where it fits, "resident")
//   2-D, 2 bars   as above, a grid barrier after the partials and another
//                 after the update
//   2-D, flags    the second barrier replaced by a counter per stripe: the
//                 stripe's R updaters each add one after writing their piece,
//                 and a block loads its stripe once the count is R (k + 1)
// Deterministic (every sum in a fixed order); the ranks of every kernel
// against a CPU run of the same steps in double. Run in session 49 on an H200:
// at best 10% faster than the persistent pull on random 10^6-link graphs,
// slower on skewed ones, 3.1 us a step with no work (two dependent hand-offs),
// so not built (docs/PERFORMANCE.md, "x by column stripes in a 2-D grid").
// Build beside the GPU build (scripts/gpu-prepare.sh .gpu build-gpu pagerank):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Xcompiler -fopenmp scripts/tiled_pull_probe.cu \
//     build-gpu/libperron_io.a build-gpu/libperron_core.a -lisal -lz -o tiled_pull_probe
//   ./tiled_pull_probe er:100000:1000000 powerlaw:100000:1000000:3 ...
// (stripes C tried: PROBE_STRIPES, default "2,4,8,12,16,24").
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

using perron::probe::grid_barrier;
using perron::probe::upload;

constexpr int kThreads = 1024;
constexpr float kAlpha = 0.85f;

__device__ __forceinline__ void wait_count(unsigned* counter, unsigned target) {
  if (threadIdx.x == 0) {
    unsigned v;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
    } while (static_cast<int>(v - target) < 0);
  }
  __syncthreads();
}

// Sums (a, b) over the block; thread 0 adds them to slot[0], slot[1].
__device__ __forceinline__ void block_sums(float a, float b, float* slot) {
  const float2 t = perron::probe::block_sum2(a, b);
  if (threadIdx.x == 0) {
    atomicAdd(slot, t.x);
    atomicAdd(slot + 1, t.y);
  }
}

struct common_args {
  int n;
  float* r;            // ranks, n
  const float* inv_d;  // 1 / out-degree (0: dangling), n
  float* slots;        // 3 x (residual, dangling mass); slot 0's mass set by the host
  unsigned* bar;       // barrier and stripe counters, zeroed by the host
};

// ---- gather: the persistent pull's shape --------------------------------------------
struct gather_args {
  common_args c;
  const int* slice_first;  // B + 1: a block's slices
  const int* slice_len;    // per slice: its longest row
  const long long* slice_base;
  const int* col;   // column-major per slice, padding = n (x[n] = 0)
  const int* perm;  // row of slice position
  float* x0;        // n + 1 each
  float* x1;
  int resident;
  int nlong;            // rows of 64 links or more: a warp each, dealt over the grid
  const int* long_row;  // their rows
  const int* rp;        // CSR of the pattern (for the long rows)
  const int* csr_col;
};

__global__ void __launch_bounds__(kThreads, 1) gather_kernel(gather_args a, int steps) {
  extern __shared__ int smem_col[];
  const int b = blockIdx.x, tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int s0 = a.slice_first[b], s1 = a.slice_first[b + 1];
  const long long base0 = a.slice_base[s0];
  if (a.resident)
    for (long long q = tid; q < a.slice_base[s1] - base0; q += kThreads) smem_col[q] = a.col[base0 + q];
  __syncthreads();
  const int n = a.c.n;
  for (int k = 0; k < steps; ++k) {
    const float* x = (k & 1) ? a.x1 : a.x0;
    float* xn = (k & 1) ? a.x0 : a.x1;
    const float mass = __ldcg(a.c.slots + 2 * (k % 3) + 1);
    const float c0 = (1.f - kAlpha + kAlpha * mass) / n;
    float res = 0.f, dang = 0.f;
    // r' of vertex v from its sum; x' = r' / d; the residual and dangling mass
    const auto update = [&](int v, float acc) {
      const float rn = kAlpha * acc + c0;
      res += fabsf(rn - a.c.r[v]);
      a.c.r[v] = rn;
      const float id = a.c.inv_d[v];
      xn[v] = rn * id;
      if (id == 0.f) dang += rn;
    };
    for (int l = b * (kThreads / 32) + warp; l < a.nlong; l += gridDim.x * (kThreads / 32)) {
      const int v = a.long_row[l];
      float acc = 0.f;
      for (int q = a.rp[v] + lane; q < a.rp[v + 1]; q += 32) acc += x[__ldg(a.csr_col + q)];
      for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
      if (lane == 0) update(v, acc);
    }
    for (int s = s0 + warp; s < s1; s += kThreads / 32) {
      const int len = a.slice_len[s];
      const long long bs = a.slice_base[s];
      float acc = 0.f;
      if (a.resident) {
        const int* cs = smem_col + (bs - base0) + lane;
        int q = 0;
        for (; q + 4 <= len; q += 4) {
          const float g0 = x[cs[32 * q]], g1 = x[cs[32 * q + 32]], g2 = x[cs[32 * q + 64]],
                      g3 = x[cs[32 * q + 96]];
          acc += g0;
          acc += g1;
          acc += g2;
          acc += g3;
        }
        for (; q < len; ++q) acc += x[cs[32 * q]];
      } else {
        const int* cs = a.col + bs + lane;
        for (int q = 0; q < len; ++q) acc += x[__ldg(cs + 32 * q)];
      }
      const int v = a.perm[32 * s + lane];
      if (v < n) update(v, acc);
    }
    if (b == 0 && tid < 2) a.c.slots[2 * ((k + 2) % 3) + tid] = 0.f;
    block_sums(res, dang, a.c.slots + 2 * ((k + 1) % 3));
    grid_barrier(a.c.bar, static_cast<unsigned>((k + 1) * gridDim.x));
  }
}

// ---- 2-D ------------------------------------------------------------------------------
struct tiled_args {
  common_args c;
  int R, C, S, P;              // row ranges, stripes, stripe length (a multiple of 4), piece
  const int* row_first;        // R + 1
  const long long* tile_base;  // B + 1: a tile's links
  const long long* rp_base;    // B + 1: a tile's row offsets (rows + 1 each)
  const long long* long_base;  // B + 1: a tile's long rows
  const unsigned* rp;          // tile-local offsets
  const unsigned short* col;   // stripe-local sources
  const unsigned* longs;       // tile-local rows of 32 links or more
  float* x;                    // C x S
  float* part;                 // 2 x C x n
  int resident, flags;
  int skip;           // for attribution: 1 the stripe's load, 2 the partials, 4 the update
  long long* clocks;  // or null: per block, SM cycles a phase summed over the steps (kPhases)
};

constexpr int kPhases = 6;  // wait for the stripe, load it, partials, barrier, update, end

// kResident: the tile's index read from shared memory (the compiler then
// knows the state space; a pointer that may be either is a generic load).
template <bool kResident>
__global__ void __launch_bounds__(kThreads, 1) tiled_kernel(tiled_args a, int steps) {
  extern __shared__ float4 smem4[];
  float* xs = reinterpret_cast<float*>(smem4);
  const int b = blockIdx.x, tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int r = b / a.C, c = b % a.C, n = a.c.n;
  const int row0 = a.row_first[r], rows = a.row_first[r + 1] - row0;
  const long long lb = a.tile_base[b], links = a.tile_base[b + 1] - lb;
  const long long rb = a.rp_base[b], qb = a.long_base[b];
  const int nlong = static_cast<int>(a.long_base[b + 1] - qb);
  unsigned* srp = reinterpret_cast<unsigned*>(xs + a.S);
  unsigned* slong = srp + rows + 1;
  unsigned short* scol = reinterpret_cast<unsigned short*>(slong + nlong);
  const unsigned* grp = a.rp + rb;
  const unsigned* glg = a.longs + qb;
  const unsigned short* gcol = a.col + lb;
  if (kResident) {
    for (int i = tid; i <= rows; i += kThreads) srp[i] = grp[i];
    for (int i = tid; i < nlong; i += kThreads) slong[i] = glg[i];
    for (long long q = tid; q < links; q += kThreads) scol[q] = gcol[q];
  }
  const unsigned* rp = kResident ? srp : grp;
  const unsigned* lg = kResident ? slong : glg;
  const unsigned short* col = kResident ? scol : gcol;
  long long clk[kPhases] = {}, t_prev = 0;
  auto mark = [&](int phase) {
    if (a.clocks && tid == 0) {
      const long long t = clock64();
      if (phase >= 0) clk[phase] += t - t_prev;
      t_prev = t;
    }
  };
  const int v0 = c * a.S + r * a.P, v1 = min(min(v0 + a.P, (c + 1) * a.S), n);
  const unsigned per_step = a.flags ? gridDim.x : 2u * gridDim.x;
  for (int k = 0; k < steps; ++k) {
    mark(-1);
    if (a.flags && k > 0) wait_count(a.c.bar + 1 + c, static_cast<unsigned>(k * a.R));
    mark(0);
    // the stripe
    // every load of the stripe in flight before the first store (64 KB of
    // the stripe at once; a load-store loop keeps 16 KB in flight)
    const float4* x4 = reinterpret_cast<const float4*>(a.x + static_cast<long long>(c) * a.S);
    constexpr int U = 4;
    for (int j0 = (a.skip & 1) ? a.S : tid; j0 < a.S / 4; j0 += kThreads * U) {
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (j0 + u * kThreads < a.S / 4) v[u] = __ldcg(x4 + j0 + u * kThreads);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (j0 + u * kThreads < a.S / 4) smem4[j0 + u * kThreads] = v[u];
    }
    __syncthreads();
    mark(1);
    float* part = a.part + static_cast<long long>(k & 1) * a.C * n + static_cast<long long>(c) * n + row0;
    for (int i = (a.skip & 2) ? rows : tid; i < rows; i += kThreads) {
      const unsigned s = rp[i], e = rp[i + 1];
      if (e - s >= 32) continue;
      float acc = 0.f;
      for (unsigned q = s; q < e; ++q) acc += xs[col[q]];
      __stcg(part + i, acc);
    }
    for (int l = (a.skip & 2) ? nlong : warp; l < nlong; l += kThreads / 32) {
      const unsigned i = lg[l], s = rp[i], e = rp[i + 1];
      float acc = 0.f;
      for (unsigned q = s + lane; q < e; q += 32) acc += xs[col[q]];
      for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
      if (lane == 0) __stcg(part + i, acc);
    }
    if (a.clocks) __syncthreads();
    mark(2);
    grid_barrier(a.c.bar, static_cast<unsigned>(k * per_step + gridDim.x));
    mark(3);
    // the update of this block's piece of its stripe
    const float mass = __ldcg(a.c.slots + 2 * (k % 3) + 1);
    const float c0 = (1.f - kAlpha + kAlpha * mass) / n;
    const float* pk = a.part + static_cast<long long>(k & 1) * a.C * n;
    float res = 0.f, dang = 0.f;
    for (int v = (a.skip & 4) ? v1 : v0 + tid; v < v1; v += kThreads) {
      // the C partials loaded together, then summed in stripe order
      float y = 0.f;
      for (int c8 = 0; c8 < a.C; c8 += 8) {
        float p[8];
#pragma unroll
        for (int u = 0; u < 8; ++u)
          if (c8 + u < a.C) p[u] = __ldcg(pk + static_cast<long long>(c8 + u) * n + v);
#pragma unroll
        for (int u = 0; u < 8; ++u)
          if (c8 + u < a.C) y += p[u];
      }
      const float rn = kAlpha * y + c0;
      res += fabsf(rn - a.c.r[v]);
      a.c.r[v] = rn;
      const float id = a.c.inv_d[v];
      a.x[v] = rn * id;
      if (id == 0.f) dang += rn;
    }
    if (b == 0 && tid < 2) a.c.slots[2 * ((k + 2) % 3) + tid] = 0.f;
    block_sums(res, dang, a.c.slots + 2 * ((k + 1) % 3));
    mark(4);
    if (a.flags) {
      if (tid == 0) asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(a.c.bar + 1 + c) : "memory");
    } else {
      grid_barrier(a.c.bar, static_cast<unsigned>((k + 1) * per_step));
    }
    mark(5);
  }
  if (a.clocks && tid == 0)
    for (int p = 0; p < kPhases; ++p) a.clocks[b * kPhases + p] = clk[p];
}

// Balanced cut of [0, count) by weight prefix w (size count + 1) into parts.
std::vector<int> cut(const std::vector<long long>& w, int count, int parts) {
  std::vector<int> f(parts + 1, count);
  f[0] = 0;
  int i = 0;
  for (int p = 1; p < parts; ++p) {
    const long long target = w[count] * p / parts;
    while (i < count && w[i] < target) ++i;
    f[p] = i;
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> stripes_list{2, 4, 8, 12, 16, 24};
  if (const char* e = std::getenv("PROBE_STRIPES")) {
    stripes_list.clear();
    std::stringstream ss(e);
    std::string t;
    while (std::getline(ss, t, ',')) stripes_list.push_back(std::stoi(t));
  }
  int sms = 0, smem_max = 0;
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  smem_max -= 1024;  // the kernels' static shared memory (block_sums)
  PERRON_CUDA_CHECK(
      cudaFuncSetAttribute(gather_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
  PERRON_CUDA_CHECK(
      cudaFuncSetAttribute(tiled_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
  PERRON_CUDA_CHECK(
      cudaFuncSetAttribute(tiled_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
  int clock_khz = 0;
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  perron::probe::event_timer tm(1, 5);  // median of 5 after one untimed
  const int s_short = 8, s_long = 108;
  std::printf("us a step: (t(%d steps) - t(%d steps)) / %d, medians of 5 launches; %d SMs\n", s_long, s_short,
              s_long - s_short, sms);
  std::printf("%-34s %9s %9s %-24s %8s %8s %10s %8s\n", "graph", "n", "links", "kernel", "us/step",
              "vs gather", "L2 MB/step", "max err");
  for (int g = 1; g < argc; ++g) {
    const std::string spec = argv[g];
    const perron::probe::pattern pg = perron::probe::load_pattern(spec);
    const int n = pg.n;
    const std::vector<int>&rp = pg.rp, &col = pg.col;
    const long long m = static_cast<long long>(col.size());
    const std::vector<float> inv_d = perron::probe::inverse_degrees(pg);
    const std::vector<double> ref = perron::probe::reference_ranks(pg, kAlpha, s_long);
    const float mass0 = perron::probe::uniform_dangling_mass<float>(pg);
    std::vector<float> slots0(6, 0.f);
    slots0[1] = mass0;
    std::vector<float> r0(n, 1.f / n);
    float *d_r = upload(r0), *d_inv = upload(inv_d), *d_slots = upload(slots0);
    unsigned* d_bar = upload(std::vector<unsigned>(64, 0u));
    auto reset = [&](float* x0) {
      PERRON_CUDA_CHECK(cudaMemcpy(d_r, r0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      PERRON_CUDA_CHECK(cudaMemcpy(d_slots, slots0.data(), 6 * sizeof(float), cudaMemcpyHostToDevice));
      PERRON_CUDA_CHECK(cudaMemset(d_bar, 0, 64 * sizeof(unsigned)));
      std::vector<float> x(n);
      for (int i = 0; i < n; ++i) x[i] = r0[i] * inv_d[i];
      PERRON_CUDA_CHECK(cudaMemcpy(x0, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    };
    auto check = [&]() {
      std::vector<float> r(n);
      PERRON_CUDA_CHECK(cudaMemcpy(r.data(), d_r, n * sizeof(float), cudaMemcpyDeviceToHost));
      double e = 0;
      for (int i = 0; i < n; ++i) e = std::max(e, std::fabs(r[i] - ref[i]) / ref[i]);
      return e;
    };
    const common_args ca{n, d_r, d_inv, d_slots, d_bar};
    double gather_us = 0;
    // ---- gather ----
    {
      std::vector<int> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int a, int b) { return rp[a + 1] - rp[a] > rp[b + 1] - rp[b]; });
      int nlong = 0;
      while (nlong < n && rp[order[nlong] + 1] - rp[order[nlong]] >= 64) ++nlong;
      const std::vector<int> long_row(order.begin(), order.begin() + nlong);
      order.erase(order.begin(), order.begin() + nlong);
      const int rest = n - nlong;
      const int slices = (rest + 31) / 32;
      std::vector<int> len(slices), perm(32LL * slices, n);
      std::vector<long long> base(slices + 1, 0);
      for (int s = 0; s < slices; ++s) {
        len[s] = rp[order[32 * s] + 1] - rp[order[32 * s]];
        base[s + 1] = base[s] + 32LL * len[s];
      }
      std::vector<int> scol(base[slices], n);
      for (int s = 0; s < slices; ++s)
        for (int l = 0; l < 32 && 32 * s + l < rest; ++l) {
          const int v = order[32 * s + l];
          perm[32 * s + l] = v;
          for (int q = 0; q < rp[v + 1] - rp[v]; ++q) scol[base[s] + 32LL * q + l] = col[rp[v] + q];
        }
      const std::vector<int> sf = cut(base, slices, sms);
      long long most = 0;
      for (int b = 0; b < sms; ++b) most = std::max(most, base[sf[b + 1]] - base[sf[b]]);
      const int resident = most * 4 <= smem_max;
      int *d_sf = upload(sf), *d_len = upload(len), *d_col = upload(scol), *d_perm = upload(perm);
      long long* d_base = upload(base);
      float *d_x0 = upload(std::vector<float>(n + 1, 0.f)), *d_x1 = upload(std::vector<float>(n + 1, 0.f));
      int *d_long = upload(long_row), *d_rp = upload(rp), *d_ccol = upload(col);
      gather_args ga{ca,   d_sf,     d_len, d_base, d_col, d_perm, d_x0,
                     d_x1, resident, nlong, d_long, d_rp,  d_ccol};
      const std::size_t smem = resident ? most * 4 : 0;
      auto run = [&](int steps) {
        reset(d_x0);
        void* args[] = {&ga, &steps};
        PERRON_CUDA_CHECK(cudaLaunchCooperativeKernel((const void*)gather_kernel, dim3(sms), dim3(kThreads),
                                                      args, smem, 0));
        PERRON_CUDA_CHECK(cudaGetLastError());
      };
      // the resets' copies are in both timings and cancel in the difference
      const float t1 = tm.median_us([&] { run(s_short); }), t2 = tm.median_us([&] { run(s_long); });
      const double e = check();
      gather_us = (t2 - t1) / (s_long - s_short);
      const double mb = (32.0 * m + 4.0 * base[slices] * (resident ? 0 : 1) + 16.0 * n) / 1e6;
      std::printf("%-34s %9d %9lld %-24s %8.2f %8.2f %10.1f %8.1e\n", spec.c_str(), n, m,
                  resident ? "gather, resident" : "gather", gather_us, 1.0, mb, e);
      for (void* p : {(void*)d_sf, (void*)d_len, (void*)d_col, (void*)d_perm, (void*)d_base, (void*)d_x0,
                      (void*)d_x1, (void*)d_long, (void*)d_rp, (void*)d_ccol})
        PERRON_CUDA_CHECK(cudaFree(p));
    }
    // ---- 2-D ----
    for (const int C : stripes_list) {
      const int R = sms / C;
      if (R < 1) continue;
      const int B = R * C;
      const int S = ((n + C - 1) / C + 3) / 4 * 4;
      if (S > 65536) {
        std::printf("%-34s %9d %9lld 2-D C=%-3d skipped: a stripe of %d > 65536\n", spec.c_str(), n, m, C, S);
        continue;
      }
      const int P = (S + R - 1) / R;
      std::vector<long long> rw(n + 1, 0);
      for (int i = 0; i < n; ++i) rw[i + 1] = rw[i] + (rp[i + 1] - rp[i]) + 4;  // a row's own cost too
      const std::vector<int> rf = cut(rw, n, R);
      std::vector<long long> tb(B + 1, 0), rb(B + 1, 0), qb(B + 1, 0);
      std::vector<unsigned> trp, tlong;
      std::vector<unsigned short> tcol;
      std::vector<std::vector<unsigned short>> bucket(C);
      std::vector<std::vector<unsigned>> brp(C, std::vector<unsigned>(1, 0));
      long long most_smem = 0, most_links = 0;
      for (int r = 0; r < R; ++r) {
        for (int c = 0; c < C; ++c) {
          bucket[c].clear();
          brp[c].assign(1, 0);
        }
        for (int i = rf[r]; i < rf[r + 1]; ++i) {
          for (int q = rp[i]; q < rp[i + 1]; ++q) {
            const int c = col[q] / S;
            bucket[c].push_back(static_cast<unsigned short>(col[q] - c * S));
          }
          for (int c = 0; c < C; ++c) brp[c].push_back(static_cast<unsigned>(bucket[c].size()));
        }
        for (int c = 0; c < C; ++c) {
          const int b = r * C + c;
          const int rows = rf[r + 1] - rf[r];
          long long nl = 0;
          for (int i = 0; i < rows; ++i)
            if (brp[c][i + 1] - brp[c][i] >= 32) {
              tlong.push_back(i);
              ++nl;
            }
          trp.insert(trp.end(), brp[c].begin(), brp[c].end());
          tcol.insert(tcol.end(), bucket[c].begin(), bucket[c].end());
          tb[b + 1] = tb[b] + static_cast<long long>(bucket[c].size());
          rb[b + 1] = rb[b] + rows + 1;
          qb[b + 1] = qb[b] + nl;
          most_links = std::max<long long>(most_links, static_cast<long long>(bucket[c].size()));
          most_smem = std::max<long long>(
              most_smem, 4LL * (rows + 1) + 4 * nl + 2LL * static_cast<long long>(bucket[c].size()) + 16);
        }
      }
      const long long stripe_bytes = 4LL * S;
      const int resident = stripe_bytes + most_smem <= smem_max;
      if (stripe_bytes > smem_max) {
        std::printf("%-34s %9d %9lld 2-D C=%-3d skipped: a stripe of %lld bytes\n", spec.c_str(), n, m, C,
                    stripe_bytes);
        continue;
      }
      int* d_rf = upload(rf);
      long long *d_tb = upload(tb), *d_rb = upload(rb), *d_qb = upload(qb);
      unsigned *d_trp = upload(trp), *d_long = upload(tlong);
      unsigned short* d_tcol = upload(tcol);
      float* d_x = upload(std::vector<float>(static_cast<std::size_t>(C) * S, 0.f));
      float* d_part = upload(std::vector<float>(2ULL * C * n, 0.f));
      const std::size_t smem = stripe_bytes + (resident ? most_smem : 0);
      for (const int variant : {0, 1, 3, 5, 9, 15}) {  // 2 bars, flags, flags without a phase
        const int flags = variant & 1, skip = variant >> 1;
        if (skip && !std::getenv("PROBE_PHASES")) continue;
        tiled_args ta{ca,    R,      C,      S,   P,      d_rf,     d_tb,  d_rb, d_qb,
                      d_trp, d_tcol, d_long, d_x, d_part, resident, flags, skip, nullptr};
        const void* kernel = resident ? (const void*)tiled_kernel<true> : (const void*)tiled_kernel<false>;
        auto run = [&](int steps) {
          reset(d_x);
          void* args[] = {&ta, &steps};
          PERRON_CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, dim3(B), dim3(kThreads), args, smem, 0));
          PERRON_CUDA_CHECK(cudaGetLastError());
        };
        const float t1 = tm.median_us([&] { run(s_short); }), t2 = tm.median_us([&] { run(s_long); });
        const double e = check();
        const double us = (t2 - t1) / (s_long - s_short);
        const double mb =
            (R * 4.0 * C * S + 2.0 * C * 4.0 * n + (resident ? 0 : 2.0 * m + 4.0 * (n + B)) + 12.0 * n) / 1e6;
        char name[64];
        std::snprintf(name, sizeof name, "2-D %dx%d%s%s%s%s%s", R, C, flags ? " flags" : " 2 bars",
                      resident ? " res" : "", skip & 1 ? " -load" : "", skip & 2 ? " -part" : "",
                      skip & 4 ? " -upd" : "");
        std::printf("%-34s %9d %9lld %-24s %8.2f %8.2f %10.1f %8.1e  (tile links max %lld, mean %lld)\n",
                    spec.c_str(), n, m, name, us, us / gather_us, mb, e, most_links, m / B);
        if (flags && !skip) {
          // one more run with each block's phases clocked (an extra block
          // barrier after the partials): us a step, mean and max over blocks
          long long* d_clk = upload(std::vector<long long>(static_cast<std::size_t>(B) * kPhases, 0));
          ta.clocks = d_clk;
          run(s_long);
          PERRON_CUDA_CHECK(cudaDeviceSynchronize());
          std::vector<long long> clk(static_cast<std::size_t>(B) * kPhases);
          PERRON_CUDA_CHECK(
              cudaMemcpy(clk.data(), d_clk, clk.size() * sizeof(long long), cudaMemcpyDeviceToHost));
          ta.clocks = nullptr;
          PERRON_CUDA_CHECK(cudaFree(d_clk));
          static const char* names[kPhases] = {"wait", "load", "partials", "barrier", "update", "signal"};
          std::printf("    phases, us a step (mean / max over blocks, at %d MHz):", clock_khz / 1000);
          for (int p = 0; p < kPhases; ++p) {
            double sum = 0, most = 0;
            for (int b = 0; b < B; ++b) {
              const double u = 1e3 * clk[b * kPhases + p] / clock_khz / s_long;
              sum += u;
              most = std::max(most, u);
            }
            std::printf(" %s %.2f / %.2f", names[p], sum / B, most);
          }
          std::printf("\n");
        }
      }
      for (void* p : {(void*)d_rf, (void*)d_tb, (void*)d_rb, (void*)d_qb, (void*)d_trp, (void*)d_long,
                      (void*)d_tcol, (void*)d_x, (void*)d_part})
        PERRON_CUDA_CHECK(cudaFree(p));
    }
    for (void* p : {(void*)d_r, (void*)d_inv, (void*)d_slots, (void*)d_bar}) PERRON_CUDA_CHECK(cudaFree(p));
    std::fflush(stdout);
  }
  return 0;
}
