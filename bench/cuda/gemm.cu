// The GEMM ladder (bench/gemm.hpp): one kernel per step of the lectures, each
// adding one idea to the one before, all row-major with guarded partial tiles.
//
// Per multiply-add, what each step reads and from where:
//   0 naive        2 global loads (cached) per FMA.
//   1 shared-tile  2 shared loads per FMA; global traffic / 32 (each element of
//                  a 32 x 32 tile is loaded once and used 32 times).
//   2 coarsened    (1 + 8) shared loads per 8 FMAs: one B value serves 8 rows.
//   3 wide-loads   step 2 with the tiles moved by 16-byte loads and stores: a
//                  quarter of the global load and shared store instructions.
//   4 rectangular  64 x 64 tiles of C from 64 x 16 and 16 x 64 tiles: half the
//                  global bytes per FLOP of a 32 x 32 tile.
//   5 register-2d  128 x 128 x 8 tiles, an 8 x 8 block of C in registers per
//                  thread: 4 float4 shared loads per 64 FMAs (outer products).
//   6 warp-tiled   step 5 with each warp owning a 64 x 32 tile (conflict-free,
//                  broadcast-friendly shared reads) and the next K tile fetched
//                  into registers and a second shared buffer while this one is used.
#include <cublas_v2.h>

#include <cstdint>
#include <string>

#include "bench/gemm.hpp"
#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"

namespace perron {
namespace {

// ---- shared helpers ------------------------------------------------------------

// c[r][col] = alpha v + beta c[r][col]; with beta == 0, c is not read.
__device__ __forceinline__ void write_c(float* c, int n, int r, int col, float v, float alpha, float beta) {
  float* p = c + static_cast<std::size_t>(r) * n + col;
  *p = beta == 0.f ? alpha * v : alpha * v + beta * *p;
}

__device__ __forceinline__ float4 zero4() { return make_float4(0.f, 0.f, 0.f, 0.f); }

// Elements (r, c .. c+3) of a rows x cols row-major matrix, 0 outside it. VEC:
// one 16-byte load (cols % 4 == 0 and p 16-byte aligned, so the four are all
// inside or all outside).
template <bool VEC>
__device__ __forceinline__ float4 load4(const float* p, int rows, int cols, int r, int c) {
  if (r >= rows) return zero4();
  const float* q = p + static_cast<std::size_t>(r) * cols + c;
  if (VEC) return c < cols ? *reinterpret_cast<const float4*>(q) : zero4();
  return make_float4(c < cols ? q[0] : 0.f, c + 1 < cols ? q[1] : 0.f, c + 2 < cols ? q[2] : 0.f,
                     c + 3 < cols ? q[3] : 0.f);
}

// c[r][col .. col+3] = alpha v + beta c, within the m x n matrix.
template <bool VEC>
__device__ __forceinline__ void store4(float* c, int m, int n, int r, int col, float4 v, float alpha,
                                       float beta) {
  if (r >= m) return;
  if (VEC) {
    if (col >= n) return;
    float4* p = reinterpret_cast<float4*>(c + static_cast<std::size_t>(r) * n + col);
    float4 o = make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
    if (beta != 0.f) {
      const float4 old = *p;
      o = make_float4(o.x + beta * old.x, o.y + beta * old.y, o.z + beta * old.z, o.w + beta * old.w);
    }
    *p = o;
    return;
  }
  const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (col + i < n) write_c(c, n, r, col + i, e[i], alpha, beta);
}

__device__ __forceinline__ void fma4(float4& acc, float a, float4 b) {
  acc.x += a * b.x;
  acc.y += a * b.y;
  acc.z += a * b.z;
  acc.w += a * b.w;
}

// ---- step 0: naive -------------------------------------------------------------------

__global__ void gemm_naive(int m, int n, int k, float alpha, const float* __restrict__ a,
                           const float* __restrict__ b, float beta, float* __restrict__ c) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // consecutive threads: consecutive columns
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float acc = 0.f;
  for (int p = 0; p < k; ++p)
    acc += a[static_cast<std::size_t>(row) * k + p] * b[static_cast<std::size_t>(p) * n + col];
  write_c(c, n, row, col, acc, alpha, beta);
}

// ---- step 1: shared-memory tiles ------------------------------------------------------

constexpr int ts = 32;

__global__ void gemm_shared(int m, int n, int k, float alpha, const float* __restrict__ a,
                            const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ float as[ts][ts], bs[ts][ts];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * ts + ty, col = blockIdx.x * ts + tx;
  float acc = 0.f;
  for (int p0 = 0; p0 < k; p0 += ts) {
    as[ty][tx] = row < m && p0 + tx < k ? a[static_cast<std::size_t>(row) * k + p0 + tx] : 0.f;
    bs[ty][tx] = p0 + ty < k && col < n ? b[static_cast<std::size_t>(p0 + ty) * n + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < ts; ++q) acc += as[ty][q] * bs[q][tx];
    __syncthreads();
  }
  if (row < m && col < n) write_c(c, n, row, col, acc, alpha, beta);
}

// ---- step 2: thread coarsening --------------------------------------------------------

constexpr int wpt = 8;         // elements of C per thread, down a column
constexpr int rts = ts / wpt;  // thread rows per block

__global__ void gemm_coarsened(int m, int n, int k, float alpha, const float* __restrict__ a,
                               const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ float as[ts][ts], bs[ts][ts];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * ts, col = blockIdx.x * ts + tx;
  float acc[wpt] = {};
  for (int p0 = 0; p0 < k; p0 += ts) {
#pragma unroll
    for (int w = 0; w < wpt; ++w) {
      const int r = ty + w * rts, row = row0 + r;
      as[r][tx] = row < m && p0 + tx < k ? a[static_cast<std::size_t>(row) * k + p0 + tx] : 0.f;
      bs[r][tx] = p0 + r < k && col < n ? b[static_cast<std::size_t>(p0 + r) * n + col] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < ts; ++q) {
      const float bv = bs[q][tx];
#pragma unroll
      for (int w = 0; w < wpt; ++w) acc[w] += as[ty + w * rts][q] * bv;
    }
    __syncthreads();
  }
#pragma unroll
  for (int w = 0; w < wpt; ++w) {
    const int row = row0 + ty + w * rts;
    if (row < m && col < n) write_c(c, n, row, col, acc[w], alpha, beta);
  }
}

// ---- steps 3 and 4: wide loads, rectangular tiles -------------------------------------
// Step 2's scheme (thread (tx, ty) owns rows ty + w * BM / 8, w < 8, of
// column tx: each B value read from shared memory serves 8 rows, the A reads
// are warp-wide broadcasts) with the tiles moved by 16-byte loads and
// stores, on a BM x BN tile of C with K in steps of BK; BM * BN / 8 threads.
template <int BM, int BN, int BK, bool VEC>
__global__ void __launch_bounds__(BM* BN / 8)
    gemm_wide(int m, int n, int k, float alpha, const float* __restrict__ a, const float* __restrict__ b,
              float beta, float* __restrict__ c) {
  constexpr int threads = BM * BN / 8, rstep = BM / 8;
  __shared__ __align__(16) float as[BM][BK];
  __shared__ __align__(16) float bs[BK][BN];
  const int tid = threadIdx.x, tx = tid % BN, ty = tid / BN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[8] = {};
  for (int p0 = 0; p0 < k; p0 += BK) {
    for (int l = tid; l < BM * BK / 4; l += threads) {
      const int r = l / (BK / 4), q = (l % (BK / 4)) * 4;
      *reinterpret_cast<float4*>(&as[r][q]) = load4<VEC>(a, m, k, row0 + r, p0 + q);
    }
    for (int l = tid; l < BK * BN / 4; l += threads) {
      const int r = l / (BN / 4), q = (l % (BN / 4)) * 4;
      // rows past K read as zero: k rows, n columns of B
      *reinterpret_cast<float4*>(&bs[r][q]) = p0 + r < k ? load4<VEC>(b, k, n, p0 + r, col0 + q) : zero4();
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < BK; ++q) {
      const float bv = bs[q][tx];
#pragma unroll
      for (int w = 0; w < 8; ++w) acc[w] += as[ty + w * rstep][q] * bv;
    }
    __syncthreads();
  }
#pragma unroll
  for (int w = 0; w < 8; ++w) {
    const int row = row0 + ty + w * rstep, col = col0 + tx;
    if (row < m && col < n) write_c(c, n, row, col, acc[w], alpha, beta);
  }
}

// ---- steps 5 and 6: 2D register blocking, warp tiles ----------------------------------
constexpr int bm = 128, bn = 128, bk = 8, threads_2d = 256;

// The 8 x 8 block of one thread: rows r[0..1] + 0..3, columns c[0..1] + 0..3.
struct block_8x8 {
  float4 acc[2][4][2] = {};  // [row group][row][column group]
};

__device__ __forceinline__ void outer_8x8(block_8x8& t, const float* as_q, const float* bs_q, const int r[2],
                                          const int cl[2]) {
  const float4 a0 = *reinterpret_cast<const float4*>(as_q + r[0]);
  const float4 a1 = *reinterpret_cast<const float4*>(as_q + r[1]);
  const float4 b0 = *reinterpret_cast<const float4*>(bs_q + cl[0]);
  const float4 b1 = *reinterpret_cast<const float4*>(bs_q + cl[1]);
  const float av[2][4] = {{a0.x, a0.y, a0.z, a0.w}, {a1.x, a1.y, a1.z, a1.w}};
#pragma unroll
  for (int g = 0; g < 2; ++g)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      fma4(t.acc[g][i][0], av[g][i], b0);
      fma4(t.acc[g][i][1], av[g][i], b1);
    }
}

template <bool VEC>
__device__ __forceinline__ void store_8x8(const block_8x8& t, float* c, int m, int n, int row0, int col0,
                                          const int r[2], const int cl[2], float alpha, float beta) {
#pragma unroll
  for (int g = 0; g < 2; ++g)
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        store4<VEC>(c, m, n, row0 + r[g] + i, col0 + cl[h], t.acc[g][i][h], alpha, beta);
}

// The global loads of one K tile: one float4 of A (row tid / 2) and one of B
// (row tid / 32) per thread.
template <bool VEC>
__device__ __forceinline__ void fetch_tile(const float* a, const float* b, int m, int n, int k, int row0,
                                           int col0, int p0, int tid, float4& va, float4& vb) {
  va = load4<VEC>(a, m, k, row0 + tid / 2, p0 + (tid % 2) * 4);
  const int br = tid / 32;
  vb = p0 + br < k ? load4<VEC>(b, k, n, p0 + br, col0 + (tid % 32) * 4) : zero4();
}

// A transposed (as[k][m]), B as is (bs[k][n]).
__device__ __forceinline__ void stash_tile(float (*as)[bm], float (*bs)[bn], int tid, float4 va, float4 vb) {
  const int r = tid / 2, q = (tid % 2) * 4;
  as[q][r] = va.x, as[q + 1][r] = va.y, as[q + 2][r] = va.z, as[q + 3][r] = va.w;
  *reinterpret_cast<float4*>(&bs[tid / 32][(tid % 32) * 4]) = vb;
}

// Step 5: the threads form a 16 x 16 grid; thread (ty, tx) owns rows
// {0, 64} + 4 ty + 0..3 and columns {0, 64} + 4 tx + 0..3 (split in two so
// that a warp's float4 reads of B are consecutive: no bank conflicts).
template <bool VEC>
__global__ void __launch_bounds__(threads_2d, 2)
    gemm_register_2d(int m, int n, int k, float alpha, const float* __restrict__ a,
                     const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ __align__(16) float as[bk][bm];
  __shared__ __align__(16) float bs[bk][bn];
  const int tid = threadIdx.x, ty = tid / 16, tx = tid % 16;
  const int row0 = blockIdx.y * bm, col0 = blockIdx.x * bn;
  const int r[2] = {4 * ty, 64 + 4 * ty}, cl[2] = {4 * tx, 64 + 4 * tx};
  block_8x8 t;
  for (int p0 = 0; p0 < k; p0 += bk) {
    float4 va, vb;
    fetch_tile<VEC>(a, b, m, n, k, row0, col0, p0, tid, va, vb);
    stash_tile(as, bs, tid, va, vb);
    __syncthreads();
#pragma unroll
    for (int q = 0; q < bk; ++q) outer_8x8(t, as[q], bs[q], r, cl);
    __syncthreads();
  }
  store_8x8<VEC>(t, c, m, n, row0, col0, r, cl, alpha, beta);
}

// Step 6: 8 warps as 2 x 4 warp tiles of 64 x 32; in a warp, lane (lr, lc) in
// 8 x 4 owns rows {0, 32} + 4 lr and columns {0, 16} + 4 lc of the warp tile:
// a warp reads 8 consecutive float4 of A and 4 of B per k (one wavefront
// each, broadcast). Two shared buffers: tile t+1 is fetched into registers
// before tile t is multiplied and stored after it, one barrier per tile.
template <bool VEC>
__global__ void __launch_bounds__(threads_2d, 2)
    gemm_warp_tiled(int m, int n, int k, float alpha, const float* __restrict__ a,
                    const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ __align__(16) float as[2][bk][bm];
  __shared__ __align__(16) float bs[2][bk][bn];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wr = (warp / 4) * 64, wc = (warp % 4) * 32, lr = lane / 4, lc = lane % 4;
  const int row0 = blockIdx.y * bm, col0 = blockIdx.x * bn;
  const int r[2] = {wr + 4 * lr, wr + 32 + 4 * lr}, cl[2] = {wc + 4 * lc, wc + 16 + 4 * lc};
  block_8x8 t;
  float4 va, vb;
  fetch_tile<VEC>(a, b, m, n, k, row0, col0, 0, tid, va, vb);
  stash_tile(as[0], bs[0], tid, va, vb);
  __syncthreads();
  int cur = 0;
  for (int p0 = 0; p0 < k; p0 += bk) {
    const bool more = p0 + bk < k;
    if (more) fetch_tile<VEC>(a, b, m, n, k, row0, col0, p0 + bk, tid, va, vb);
#pragma unroll
    for (int q = 0; q < bk; ++q) outer_8x8(t, as[cur][q], bs[cur][q], r, cl);
    if (more) stash_tile(as[cur ^ 1], bs[cur ^ 1], tid, va, vb);
    __syncthreads();
    cur ^= 1;
  }
  store_8x8<VEC>(t, c, m, n, row0, col0, r, cl, alpha, beta);
}

// ---- launch ---------------------------------------------------------------------------

dim3 tiles(int m, int n, int tile_m, int tile_n) {
  const unsigned gx = static_cast<unsigned>((n + tile_n - 1) / tile_n);
  const unsigned gy = static_cast<unsigned>((m + tile_m - 1) / tile_m);
  if (gy > 65535u) throw dimension_error("gemm: " + std::to_string(m) + " rows exceed the launch grid");
  return dim3(gx ? gx : 1, gy ? gy : 1);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <bool VEC>
void launch_tiled(gemm_step step, int m, int n, int k, float alpha, const float* a, const float* b,
                  float beta, float* c, cudaStream_t s) {
  switch (step) {
    case gemm_step::wide_loads:
      gemm_wide<32, 32, 32, VEC><<<tiles(m, n, 32, 32), 128, 0, s>>>(m, n, k, alpha, a, b, beta, c);
      break;
    case gemm_step::rectangular:
      gemm_wide<64, 64, 16, VEC><<<tiles(m, n, 64, 64), 512, 0, s>>>(m, n, k, alpha, a, b, beta, c);
      break;
    case gemm_step::register_2d:
      gemm_register_2d<VEC><<<tiles(m, n, bm, bn), threads_2d, 0, s>>>(m, n, k, alpha, a, b, beta, c);
      break;
    default:
      gemm_warp_tiled<VEC><<<tiles(m, n, bm, bn), threads_2d, 0, s>>>(m, n, k, alpha, a, b, beta, c);
      break;
  }
}

}  // namespace

void gemm(gemm_step step, int m, int n, int k, float alpha, const float* d_a, const float* d_b, float beta,
          float* d_c, cuda::stream_t stream) {
  if (m < 0 || n < 0 || k < 0) throw invalid_argument("gemm: negative dimension");
  if (m == 0 || n == 0) return;
  cudaStream_t s = stream;
  switch (step) {
    case gemm_step::naive:
      gemm_naive<<<tiles(m, n, 8, 32), dim3(32, 8), 0, s>>>(m, n, k, alpha, d_a, d_b, beta, d_c);
      break;
    case gemm_step::shared_tile:
      gemm_shared<<<tiles(m, n, ts, ts), dim3(ts, ts), 0, s>>>(m, n, k, alpha, d_a, d_b, beta, d_c);
      break;
    case gemm_step::coarsened:
      gemm_coarsened<<<tiles(m, n, ts, ts), dim3(ts, rts), 0, s>>>(m, n, k, alpha, d_a, d_b, beta, d_c);
      break;
    default:
      if (k % 4 == 0 && n % 4 == 0 && aligned16(d_a) && aligned16(d_b) && aligned16(d_c))
        launch_tiled<true>(step, m, n, k, alpha, d_a, d_b, beta, d_c, s);
      else
        launch_tiled<false>(step, m, n, k, alpha, d_a, d_b, beta, d_c, s);
  }
  PERRON_CUDA_CHECK_LAUNCH("gemm");
}

// ---- cuBLAS reference ------------------------------------------------------------------

namespace {
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw cuda_error(std::string("cuBLAS ") + what + " failed: " + cublasGetStatusString(s));
}
}  // namespace

struct cublas_sgemm::impl {
  cublasHandle_t handle = nullptr;
  ~impl() {
    if (handle) cublasDestroy(handle);
  }
};

cublas_sgemm::cublas_sgemm(cuda::stream_t stream) : impl_(std::make_unique<impl>()) {
  check(cublasCreate(&impl_->handle), "cublasCreate");
  check(cublasSetStream(impl_->handle, stream), "cublasSetStream");
  // Pure fp32: the default math mode (no TF32 tensor-core path), and the
  // computation type below is CUBLAS_COMPUTE_32F, not one of its _FAST_ modes.
  check(cublasSetMathMode(impl_->handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}
cublas_sgemm::~cublas_sgemm() = default;

void cublas_sgemm::operator()(int m, int n, int k, float alpha, const float* d_a, const float* d_b,
                              float beta, float* d_c) const {
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  check(cublasGemmEx(impl_->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, d_b, CUDA_R_32F, n, d_a,
                     CUDA_R_32F, k, &beta, d_c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

double median_gpu_us(const std::function<void()>& launch, cuda::stream_t stream, int warmup, int runs) {
  return median(cuda::time_calls(launch, stream, warmup, runs));
}

}  // namespace perron
