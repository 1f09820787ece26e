// Can a pattern pull in the graph's own order, streamed by merge-path tiles
// with the update fused, beat the SpMV pull (cuSPARSE, then the update) on
// graphs whose ids are already local (web crawls: sites of consecutive
// pages)? Those are where auto keeps the SpMV pull and where the whole solve
// stays under 5x the cuSPARSE loop (docs/PERFORMANCE.md, "Where the open
// issues stand": web:1048576:16777216 4.63x, web:4194304:67108864 4.73x).
// Session 27's probe (pattern_pull_probe.cu) read a row's links with a group
// of lanes and kept 2-8 loads in flight a thread: its index-only pass ran at
// 1.1 TB/s, a quarter of the copy. Here the links of a tile are loaded
// coalesced, 8 a thread in flight, their x gathered into shared memory, and
// the rows summed from there by a merge path over (row ends, links) (Merrill
// and Garland, SC 2016): every thread the same number of items whatever the
// rows' lengths. A row cut by a tile's end gets the earlier tiles' partials by
// a look-back over their published carries (tiles are taken in order from a
// counter, so a tile only waits for tiles already running); the tile that
// ends a row updates it:
//   r'(i) = alpha y(i) + c,  x'(i) = r'(i) / d_i (r'(i) for dangling i),
// with the residual and the dangling mass summed per block. One launch a
// step, the sums in the same order every run (deterministic).
// Timed against cusparseSpMV ALG1 on P^T with values 1/d_j followed by the
// same update (the spmv pull's two launches), and against streaming the
// index alone (int4 loads) and the device's copy, all in the same process;
// medians of 21 CUDA-event timings after 3 warm-ups; the streamed pull's
// ranks after 30 steps checked against the CPU's in double.
// Build beside the GPU build (scripts/gpu-prepare.sh .gpu build-gpu pagerank):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Xcompiler -fopenmp scripts/stream_pull_probe.cu \
//     build-gpu/libperron_io.a build-gpu/libperron_core.a -lcusparse -lisal -lz -o stream_pull_probe
//   ./stream_pull_probe web:1048576:16777216 rmat:20:10000000 ...
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cub/block/block_scan.cuh>
#include <string>
#include <vector>

#include "scripts/probe_cuda.cuh"
#include "scripts/probe_graph.hpp"

using namespace perron;
using probe::pattern;

#define CUSPARSE_OK(x)                                                           \
  do {                                                                           \
    cusparseStatus_t s_ = (x);                                                   \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "cusparse error %d at line %d\n", int(s_), __LINE__); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

constexpr int kThreads = 256, kItems = 8, kTile = kThreads * kItems;
constexpr double kAlpha = 0.85;

// The merge path's split of diagonal d between a (row ends, length na) and
// the links b = k0, k0 + 1, ... (length nb): the number of row ends taken.
template <class A>
__host__ __device__ int merge_split(int d, A a, long long k0, int na, int nb) {
  int lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (a(mid) <= k0 + (d - mid - 1))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

struct seg_sum {
  __device__ float2 operator()(float2 a, float2 b) const {
    // (key as float bits, value): b's key wins; values add within a key.
    return __float_as_int(a.x) == __float_as_int(b.x) ? make_float2(b.x, a.y + b.y) : b;
  }
};

struct step_sums {
  double resid, dangling;
};

// One step of the streamed pull. Tiles in merge coordinates: tile t covers
// rows [tile_row[t], tile_row[t + 1]) ending in it and links
// [tile_k[t], tile_k[t + 1]).
__global__ void __launch_bounds__(kThreads)
    stream_step(int n, int tiles, const int* __restrict__ rp, const int* __restrict__ col,
                const int* __restrict__ tile_row, const int* __restrict__ tile_k, const int* __restrict__ deg,
                const float* __restrict__ x, float* __restrict__ xn, unsigned* ticket, unsigned base,
                float* carry, unsigned* carry_flag, unsigned stamp, const step_sums* prev, step_sums* sums) {
  __shared__ float prod[kTile];
  __shared__ int rend[kTile + 1];
  __shared__ float rowsum[kTile];
  __shared__ int s_tile;
  using scan_t = cub::BlockScan<float2, kThreads>;
  __shared__ typename scan_t::TempStorage scan_tmp;
  __shared__ float s_head;
  if (threadIdx.x == 0) s_tile = int(atomicAdd(ticket, 1u) - base);
  __syncthreads();
  const int t = s_tile;
  const int r0 = tile_row[t], r1 = tile_row[t + 1];
  const int k0 = tile_k[t], k1 = tile_k[t + 1];
  const int nr = r1 - r0, nk = k1 - k0;
  // Links: 8 loads of the index in flight a thread, then 8 gathers.
  {
    int c[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int i = threadIdx.x + j * kThreads;
      c[j] = i < nk ? __ldcs(col + k0 + i) : -1;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int i = threadIdx.x + j * kThreads;
      if (c[j] >= 0) prod[i] = __ldg(x + c[j]);
    }
  }
  for (int i = threadIdx.x; i < nr; i += kThreads) rend[i] = rp[r0 + i + 1];
  __syncthreads();
  // This thread's items of the path.
  const int total = nr + nk;
  const int d0 = min(int(threadIdx.x) * kItems, total), d1 = min(d0 + kItems, total);
  int xr = merge_split(
      d0, [&](int i) { return rend[i]; }, k0, nr, nk);
  int yk = d0 - xr;
  float run = 0.f;
  int first = -1;
  for (int d = d0; d < d1; ++d) {
    if (xr < nr && k0 + yk >= rend[xr]) {
      rowsum[xr] = run;
      if (first < 0) first = xr;
      run = 0.f;
      ++xr;
    } else {
      run += prod[yk];
      ++yk;
    }
  }
  float2 carry_in, aggregate;
  scan_t(scan_tmp).ExclusiveScan(make_float2(__int_as_float(xr), run), carry_in, seg_sum(), aggregate);
  if (threadIdx.x > 0 && first >= 0 && __float_as_int(carry_in.x) == first) rowsum[first] += carry_in.y;
  // The tile's carry into row r1 (its part of the row the tile does not end).
  if (threadIdx.x == 0) {
    // thread 0's exclusive value is undefined; the aggregate is the scan of all
    const float out = __float_as_int(aggregate.x) == nr ? aggregate.y : 0.f;
    carry[t] = out;
    __threadfence();
    atomicExch(carry_flag + t, stamp);
    // Look back for the head row's earlier parts (row r0 begun before k0).
    float head = 0.f;
    if (nr > 0 && rp[r0] < k0) {
      for (int u = t - 1; u >= 0; --u) {
        unsigned f;
        do {
          asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(carry_flag + u) : "memory");
        } while (f != stamp);
        head += *(volatile float*)(carry + u);
        if (tile_row[u] < r0 || rp[r0] >= tile_k[u]) break;
      }
    }
    s_head = head;
  }
  __syncthreads();
  if (threadIdx.x == 0 && nr > 0) rowsum[0] += s_head;
  __syncthreads();
  // The update of the rows the tile ends.
  const double dang_prev = prev ? prev->dangling : 1.0 * 0;  // set by the caller's first step
  const double c0 = (1 - kAlpha + kAlpha * dang_prev) / n;
  float res = 0.f, dm = 0.f;
  for (int i = threadIdx.x; i < nr; i += kThreads) {
    const int g = r0 + i;
    const int dg = deg[g];
    const double rn = kAlpha * double(rowsum[i]) + c0;
    const double ro = dg ? double(x[g]) * dg : double(x[g]);
    res += float(fabs(rn - ro));
    if (dg)
      xn[g] = float(rn / dg);
    else {
      xn[g] = float(rn);
      dm += float(rn);
    }
  }
  const float2 s = probe::block_sum2(res, dm);
  if (threadIdx.x == 0) {
    atomicAdd(&sums->resid, double(s.x));
    atomicAdd(&sums->dangling, double(s.y));
  }
}

// The spmv pull's update after cuSPARSE: r' = alpha y + c, the residual and
// the dangling mass (r kept, not x).
__global__ void plain_update(int n, const float* __restrict__ y, const int* __restrict__ deg,
                             const float* __restrict__ r, float* __restrict__ rn, const step_sums* prev,
                             step_sums* sums) {
  const double c0 = (1 - kAlpha + kAlpha * prev->dangling) / n;
  float res = 0.f, dm = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double v = kAlpha * double(y[i]) + c0;
    res += float(fabs(v - double(r[i])));
    rn[i] = float(v);
    if (!deg[i]) dm += float(v);
  }
  const float2 s = probe::block_sum2(res, dm);
  if (threadIdx.x == 0) {
    atomicAdd(&sums->resid, double(s.x));
    atomicAdd(&sums->dangling, double(s.y));
  }
}

// The index streamed alone, 16 bytes a load: the floor of a pattern step's links.
__global__ void index_stream(const int4* __restrict__ col, long long n4, int* out) {
  int s = 0;
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
    const int4 v = __ldcs(col + i);
    s += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (s == 0x7fffffff) *out = s;
}

// The gathers alone in the links' order, 4 in flight a thread (grid-stride,
// coalesced index): what any pull in this order pays for x.
__global__ void gather_floor(const int* __restrict__ col, long long nnz, const float* __restrict__ x,
                             float* out) {
  float s = 0.f;
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (; k + 3 * stride < nnz; k += 4 * stride) {
    const int c0 = __ldcs(col + k), c1 = __ldcs(col + k + stride), c2 = __ldcs(col + k + 2 * stride),
              c3 = __ldcs(col + k + 3 * stride);
    s += __ldg(x + c0) + __ldg(x + c1) + __ldg(x + c2) + __ldg(x + c3);
  }
  for (; k < nnz; k += stride) s += __ldg(x + __ldcs(col + k));
  if (s == -1.f) *out = s;
}

static void run_graph(const std::string& spec) {
  const pattern g = probe::load_pattern(spec);
  const int n = g.n;
  const long long nnz = g.rp[n];
  // Tiles in merge coordinates, found once on the host.
  const long long items = n + nnz;
  const int tiles = int((items + kTile - 1) / kTile);
  std::vector<int> tile_row(tiles + 1), tile_k(tiles + 1);
  for (int t = 0; t <= tiles; ++t) {
    const long long d = std::min<long long>(items, (long long)t * kTile);
    // rows ended before diagonal d: the largest r with rp[r + 1] <= d - r - 1 ... as merge_split over all
    // rows
    long long lo = std::max<long long>(0, d - nnz), hi = std::min<long long>(d, n);
    while (lo < hi) {
      const long long mid = (lo + hi) / 2;
      if (g.rp[mid + 1] <= d - mid - 1)
        lo = mid + 1;
      else
        hi = mid;
    }
    tile_row[t] = int(lo);
    tile_k[t] = int(d - lo);
  }
  std::vector<float> val(nnz), x0(n), r0(n);
  for (long long k = 0; k < nnz; ++k) val[k] = 1.0f / g.deg[g.col[k]];
  for (int i = 0; i < n; ++i) {
    r0[i] = 1.0f / n;
    x0[i] = g.deg[i] ? float(1.0 / n / g.deg[i]) : float(1.0 / n);
  }
  const double dang0 = probe::uniform_dangling_mass<double>(g);
  int *d_rp = probe::upload(g.rp), *d_col = probe::upload(g.col), *d_deg = probe::upload(g.deg);
  int *d_tr = probe::upload(tile_row), *d_tk = probe::upload(tile_k);
  float *d_val = probe::upload(val), *d_x = probe::upload(x0), *d_r = probe::upload(r0);
  float *d_xn = probe::upload(x0), *d_y = probe::upload(r0), *d_rn = probe::upload(r0), *d_carry = nullptr;
  unsigned *d_ticket = nullptr, *d_flag = nullptr;
  int* d_out = nullptr;
  const int max_steps = 4096;
  step_sums* d_sums = nullptr;
  PERRON_CUDA_CHECK(cudaMalloc(&d_carry, tiles * sizeof(float)));
  PERRON_CUDA_CHECK(cudaMalloc(&d_ticket, sizeof(unsigned)));
  PERRON_CUDA_CHECK(cudaMalloc(&d_flag, tiles * sizeof(unsigned)));
  PERRON_CUDA_CHECK(cudaMalloc(&d_out, sizeof(int)));
  PERRON_CUDA_CHECK(cudaMalloc(&d_sums, (max_steps + 1) * sizeof(step_sums)));
  PERRON_CUDA_CHECK(cudaMemset(d_ticket, 0, sizeof(unsigned)));
  PERRON_CUDA_CHECK(cudaMemset(d_flag, 0, tiles * sizeof(unsigned)));
  PERRON_CUDA_CHECK(cudaMemset(d_sums, 0, (max_steps + 1) * sizeof(step_sums)));
  const step_sums s0{0, dang0};
  PERRON_CUDA_CHECK(cudaMemcpy(d_sums, &s0, sizeof s0, cudaMemcpyHostToDevice));

  // The streamed pull: step k reads sums[k] and writes sums[k + 1]; x and xn swap.
  unsigned launches = 0;
  int step = 0;
  auto stream_once = [&] {
    if (step + 1 > max_steps) {
      PERRON_CUDA_CHECK(cudaMemset(d_sums + 1, 0, max_steps * sizeof(step_sums)));
      step = 0;
    }
    stream_step<<<tiles, kThreads>>>(n, tiles, d_rp, d_col, d_tr, d_tk, d_deg, d_x, d_xn, d_ticket,
                                     launches * unsigned(tiles), d_carry, d_flag, launches + 1, d_sums + step,
                                     d_sums + step + 1);
    ++launches;
    ++step;
    std::swap(d_x, d_xn);
  };
  // Correctness first: 30 steps from the uniform start against the CPU.
  const int check_steps = 30;
  for (int k = 0; k < check_steps; ++k) stream_once();
  PERRON_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> xs(n);
  PERRON_CUDA_CHECK(cudaMemcpy(xs.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
  const std::vector<double> ref = probe::reference_ranks(g, kAlpha, check_steps);
  double err = 0, l1 = 0;
  for (int i = 0; i < n; ++i) {
    const double r = g.deg[i] ? double(xs[i]) * g.deg[i] : double(xs[i]);
    err = std::max(err, std::fabs(r - ref[i]) / std::max(ref[i], 1e-300));
    l1 += std::fabs(r - ref[i]);
  }
  // Bit-for-bit the same after the same steps again (determinism).
  PERRON_CUDA_CHECK(cudaMemcpy(d_x, x0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  PERRON_CUDA_CHECK(cudaMemset(d_sums + 1, 0, max_steps * sizeof(step_sums)));
  step = 0;
  for (int k = 0; k < check_steps; ++k) stream_once();
  PERRON_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> xs2(n);
  PERRON_CUDA_CHECK(cudaMemcpy(xs2.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
  const bool same = std::equal(xs.begin(), xs.end(), xs2.begin(),
                               [](float a, float b) { return __builtin_memcmp(&a, &b, 4) == 0; });

  probe::event_timer timer(3, 21);
  const float stream_us = timer.median_us(stream_once);
  PERRON_CUDA_CHECK(cudaGetLastError());

  // cuSPARSE ALG1 on P^T with values, then the update: the spmv pull.
  cusparseHandle_t h;
  CUSPARSE_OK(cusparseCreate(&h));
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vr, vy;
  CUSPARSE_OK(cusparseCreateCsr(&A, n, n, nnz, d_rp, d_col, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CUSPARSE_OK(cusparseCreateDnVec(&vr, n, d_r, CUDA_R_32F));
  CUSPARSE_OK(cusparseCreateDnVec(&vy, n, d_y, CUDA_R_32F));
  const float one = 1.f, zero = 0.f;
  size_t ws = 0;
  CUSPARSE_OK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vr, &zero, vy, CUDA_R_32F,
                                      CUSPARSE_SPMV_CSR_ALG1, &ws));
  void* d_ws = nullptr;
  PERRON_CUDA_CHECK(cudaMalloc(&d_ws, std::max<size_t>(ws, 1)));
  CUSPARSE_OK(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vr, &zero, vy, CUDA_R_32F,
                                      CUSPARSE_SPMV_CSR_ALG1, d_ws));
  auto spmv_once = [&] {
    CUSPARSE_OK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vr, &zero, vy, CUDA_R_32F,
                             CUSPARSE_SPMV_CSR_ALG1, d_ws));
  };
  const float spmv_us = timer.median_us(spmv_once);
  int update_grid = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&update_grid, plain_update, 256, 0);
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  update_grid *= sms;
  const float spmv_pull_us = timer.median_us([&] {
    spmv_once();
    plain_update<<<update_grid, 256>>>(n, d_y, d_deg, d_r, d_rn, d_sums, d_sums + 1);
  });
  const long long n4 = nnz / 4;
  const float index_us = timer.median_us(
      [&] { index_stream<<<sms * 8, 256>>>(reinterpret_cast<const int4*>(d_col), n4, d_out); });
  const float gather_us = timer.median_us(
      [&] { gather_floor<<<sms * 8, 256>>>(d_col, nnz, d_x, reinterpret_cast<float*>(d_out)); });
  const size_t copy_bytes = size_t(256) << 20;
  void *ca = nullptr, *cb = nullptr;
  PERRON_CUDA_CHECK(cudaMalloc(&ca, copy_bytes));
  PERRON_CUDA_CHECK(cudaMalloc(&cb, copy_bytes));
  const float copy_us = timer.median_us([&] { cudaMemcpy(cb, ca, copy_bytes, cudaMemcpyDeviceToDevice); });
  PERRON_CUDA_CHECK(cudaDeviceSynchronize());
  std::printf(
      "%-34s %9d %10lld %6d | stream %8.2f  spmv %8.2f  spmv+update %8.2f  index %7.2f  gathers %7.2f | "
      "stream/spmv-pull %.3f  index GB/s %6.0f  copy GB/s %6.0f | max rel err %.2e  L1 %.2e  %s\n",
      spec.c_str(), n, nnz, tiles, stream_us, spmv_us, spmv_pull_us, index_us, gather_us,
      stream_us / spmv_pull_us, 4.0 * n4 * 4 / index_us / 1e3, 2.0 * copy_bytes / copy_us / 1e3, err, l1,
      same ? "same bits" : "BITS DIFFER");
  std::fflush(stdout);
  cusparseDestroySpMat(A);
  cusparseDestroyDnVec(vr);
  cusparseDestroyDnVec(vy);
  cusparseDestroy(h);
  for (void* p : {(void*)d_rp, (void*)d_col, (void*)d_deg, (void*)d_tr, (void*)d_tk, (void*)d_val, (void*)d_x,
                  (void*)d_r, (void*)d_xn, (void*)d_y, (void*)d_rn, (void*)d_carry, (void*)d_ticket,
                  (void*)d_flag, (void*)d_out, (void*)d_sums, d_ws, ca, cb})
    cudaFree(p);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: stream_pull_probe GRAPH...\n");
    return 64;
  }
  for (int a = 1; a < argc; ++a) run_graph(argv[a]);
  return 0;
}
