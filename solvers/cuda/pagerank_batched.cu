// Batched personalized PageRank on the GPU. A block of k columns (padded to a
// multiple of 16 bytes per row so that rows are read with 16-byte loads)
// takes per step, on the solver's stream, either
//  - the two-kernel step:
//    1. Y = P^T R                    (spmm_plan::apply: P^T read once for all k columns)
//    2. update_kernel, for every live column c and vertex i:
//         R(i, c) <- T(alpha Y(i, c) + coef_c v_c(i)),  coef_c = alpha * dangling_c + 1 - alpha,
//  - or the fused step ("the fused step" below): one kernel sweeps the block
//    in column chunks (one chunk by default), computing each row's sums over
//    P^T and the update in one pass into a second buffer. It saves Y's write
//    and read but runs at 75% occupancy where the SpMM runs at 100%.
// The automatic step (the default) times both on the first solve and keeps
// the faster (trial(), docs/PERFORMANCE.md).
// Both keep ||R_new - R||_1 and the next dangling mass per column in per-block
// partials; the last block to finish (a ticket, close_step) adds them in block
// order (deterministic) and closes the step for every column: counts its
// iteration, and freezes it when it converged or reached max_iter. A frozen
// column keeps its value (never written again, or copied unchanged into the
// fused step's second buffer), so it holds its stopping iterate exactly
// however many steps run before the host sees the flag.
// The host waits once per check (every compact_every steps, at most 8): it reads the k
// frozen flags, copies newly frozen columns out (a transposing kernel into a
// column-major stage, then asynchronous copies into pinned memory on a second stream; the host
// widens them to double while the next batch of steps runs), and compacts the
// block on the device (a gather of the live columns and their state) when that
// narrows it. Nothing else crosses the bus during a solve: the teleport is a
// short list over the source vertices, uploaded once per block.
//
// Bytes per two-kernel step (float, k columns, n vertices, m links): the SpMM reads P^T
// once (8 m bytes: index + value) and gathers 4 k bytes per link (R's rows,
// from L2 where they fit) and writes Y (4 n k); the update reads Y and R and
// writes R (12 n k). Per column that is 4 m + 16 n bytes plus 8 m / k, against
// a single solve's 8 m + 12 n (docs/PERFORMANCE.md compares them).
#include <cuda_runtime.h>
#include <math_constants.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "kernels/spmm.hpp"
#include "kernels/vector_ops.hpp"
#include "solvers/pagerank_batched.hpp"

namespace perron {
namespace {

constexpr int threads = 256;  // also the widest block (columns)
constexpr unsigned max_blocks = 1024;
// The column-major stage of copied-out columns holds at most this many bytes
// (at least one column): the whole block on cnr-2000, 64 columns of rmat:20.
constexpr std::size_t stage_bytes = std::size_t(256) << 20;
// The host looks at the flags every min(compact_every, this) steps: without
// compaction a check still copies converged columns out, and a column stops
// at most this many steps after the block's last one.
constexpr int max_check_steps = 8;

// Per column of the block (device arrays of the padded width).
struct columns {
  double* coef;  // alpha * dangling_c + 1 - alpha, for the next step
  int* frozen;   // 1: stopped (converged, max_iter) or padding; R(:, c) is not written
  int* source;   // the column's source, as a slot of the block (-1: padding)
  int* iter;     // steps the column has taken
};

// Per source slot of the block.
struct outcome {
  int* iterations;
  double* residual;
  int* converged;
};

// The block's personalization: row_of[i] = m >= 0 when vertex i carries
// teleport, its entries ptr[m]..ptr[m+1] (slot, weight); -1 elsewhere.
struct teleport {
  const int* row_of;
  const index_t* ptr;
  const index_t* slot;
  const double* weight;
};

// The end of a step's kernel, after every block wrote its partials
// ([l1: c * per + b], [dangling: (k + c) * per + b], b < per for each of the k
// columns): the last block to arrive (the threadFenceReduction pattern) adds
// them in block order and closes the step for every column that is not
// frozen: counts its iteration, sets its next coefficient, and freezes it when
// it converged or reached max_iter.
__device__ void close_step(int k, unsigned per, double alpha, double tol, int max_iter, columns col,
                           outcome out, const double* partials, unsigned* ticket) {
  __shared__ bool closing;
  const int t = static_cast<int>(threadIdx.x);
  __threadfence();
  __syncthreads();
  if (t == 0) closing = atomicAdd(ticket, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!closing) return;
  __threadfence();
  const int lane = t & 31;
  for (int j = t >> 5; j < k; j += static_cast<int>(blockDim.x) / 32) {
    // lane sums blocks lane, lane + 32, ...; then a fixed butterfly: same bits every run
    double a = 0.0, b = 0.0;
    for (unsigned bl = static_cast<unsigned>(lane); bl < per; bl += 32) {
      a += __ldcg(partials + static_cast<std::size_t>(j) * per + bl);
      b += __ldcg(partials + static_cast<std::size_t>(k + j) * per + bl);
    }
    for (int off = 16; off > 0; off >>= 1) {
      a += __shfl_xor_sync(0xffffffffu, a, off);
      b += __shfl_xor_sync(0xffffffffu, b, off);
    }
    if (lane != 0 || col.frozen[j]) continue;
    const int it = ++col.iter[j];
    col.coef[j] = alpha * b + (1.0 - alpha);
    const int s = col.source[j];
    out.iterations[s] = it;
    out.residual[s] = a;
    if (a < tol || it >= max_iter) {
      col.frozen[j] = 1;
      out.converged[s] = a < tol ? 1 : 0;
    }
  }
  if (t == 0) *ticket = 0;
}

// Rows in flight per thread: every load of that many rows is issued before
// any is used (as the single solver's update does with 4 items per thread).
constexpr int rows_in_flight = 4;

// Thread t of block b owns column c = t % k of the rows b rpp + t / k + j S,
// j = 0, 1, ... (rpp = threads / k rows per block pass, S = grid x rpp rows per
// grid pass), so each grid pass sweeps S contiguous rows of the row-major
// block, and a thread loads rows_in_flight rows before it uses any. Per element:
//   R(i, c) <- T(alpha Y(i, c) + coef_c v_c(i)),
// with |R_new - R| and, for dangling i, R_new summed per thread, then per
// column over the block's threads in thread order into partials
// [l1: c * blocks + b], [dangling: (k + c) * blocks + b].
template <class T>
__global__ void __launch_bounds__(threads)
    update_kernel(T* __restrict__ r, const T* __restrict__ y, index_t n, int k, double alpha, double tol,
                  int max_iter, columns col, outcome out, teleport tp,
                  const std::uint8_t* __restrict__ dangling, double* __restrict__ partials,
                  unsigned* __restrict__ ticket) {
  __shared__ double s_l1[threads], s_d[threads];
  const int rpp = threads / k;
  const int t = static_cast<int>(threadIdx.x);
  const int c = t % k;
  double l1 = 0.0, d = 0.0;
  if (t < rpp * k && !col.frozen[c]) {
    const double cc = col.coef[c];
    const int src = col.source[c];
    const std::size_t kk = static_cast<std::size_t>(k);
    const long long stride = static_cast<long long>(gridDim.x) * rpp;
    for (long long i0 = static_cast<long long>(blockIdx.x) * rpp + t / k; i0 < n;
         i0 += rows_in_flight * stride) {
      T yv[rows_in_flight], rv[rows_in_flight];
      int mv[rows_in_flight];
      std::uint8_t dv[rows_in_flight];
#pragma unroll
      for (int u = 0; u < rows_in_flight; ++u) {
        const long long i = i0 + u * stride;
        if (i < n) {
          const std::size_t at = static_cast<std::size_t>(i) * kk + static_cast<std::size_t>(c);
          yv[u] = y[at];
          rv[u] = r[at];
          mv[u] = __ldg(tp.row_of + i);
          dv[u] = __ldg(dangling + i);
        }
      }
#pragma unroll
      for (int u = 0; u < rows_in_flight; ++u) {
        const long long i = i0 + u * stride;
        if (i < n) {
          double x = alpha * static_cast<double>(yv[u]);
          if (mv[u] >= 0)
            for (index_t e = tp.ptr[mv[u]]; e < tp.ptr[mv[u] + 1]; ++e)
              if (tp.slot[e] == src) x += cc * tp.weight[e];
          const T rn = static_cast<T>(x);
          l1 += fabs(static_cast<double>(rn) - static_cast<double>(rv[u]));
          r[static_cast<std::size_t>(i) * kk + static_cast<std::size_t>(c)] = rn;
          if (dv[u]) d += static_cast<double>(rn);
        }
      }
    }
  }
  s_l1[t] = l1;
  s_d[t] = d;
  __syncthreads();
  if (t < k) {
    double a = 0.0, b = 0.0;
    for (int j = t; j < rpp * k; j += k) a += s_l1[j], b += s_d[j];
    partials[static_cast<std::size_t>(t) * gridDim.x + blockIdx.x] = a;
    partials[static_cast<std::size_t>(k + t) * gridDim.x + blockIdx.x] = b;
  }
  close_step(k, gridDim.x, alpha, tol, max_iter, col, out, partials, ticket);
}

// ---- the fused step ----------------------------------------------------------------
//
// The block of k columns is stored chunk-major: chunk q holds columns
// [q C, q C + w_q), w_q = min(C, k - q C), as an n x w_q row-major block at
// R + n q C. (C >= k: one chunk, the row-major n x k block the two-kernel
// step uses.) One launch a step sweeps the chunks in order (block index
// chunk-major, so the resident blocks work on one chunk or two at a time):
// for chunk q, a pass over P^T gathers one w_q-wide row of the chunk per link
// from an n w_q block (cnr-2000, 16 floats: 21 MB, in L2) rather than from the
// n k block (83 MB at k = 64), and each row's sum goes straight into the
// update, into the second buffer R' (other rows still gather R):
//   R'(i, c) = T(alpha sum_{j -> i} P^T(i, j) R(j, c) + coef_c v_c(i))   (R(i, c) if c is frozen)
// with |R' - R| and, for dangling i, R' summed per column as the update kernel
// does. Per column-step that is 4 m bytes gathered (L2) plus 8 m / C of
// pattern and 8 n of R and R' (DRAM), against the two-kernel step's 8 m / k
// + 16 n plus gathers that miss L2 once R outgrows it.
//
// Rows of more than fused_split entries take their sums from pieces of
// fused_split entries computed first by fused_pieces (one warp a piece, its
// sum stored per piece), added per row by fused_long_rows (a block a row, a
// fixed order): no atomics, the same bits every run.

// Where (i, c) of a chunk-major block lives; e <-> (i, c) in storage order.
struct block_layout {
  index_t n;
  int k, chunk;
  __host__ __device__ int width_of(int q) const {
    const int w = k - q * chunk;
    return w < chunk ? w : chunk;
  }
  __host__ __device__ std::size_t at(std::size_t i, int c) const {
    const int q = c / chunk, c0 = q * chunk;
    return static_cast<std::size_t>(n) * static_cast<std::size_t>(c0) +
           i * static_cast<std::size_t>(width_of(q)) + static_cast<std::size_t>(c - c0);
  }
  // The (row, column) stored at offset e.
  __device__ void coords(std::size_t e, std::size_t& i, int& c) const {
    const std::size_t nn = static_cast<std::size_t>(n), per = nn * static_cast<std::size_t>(chunk);
    const int last = (k - 1) / chunk;
    const int q = e / per < static_cast<std::size_t>(last) ? static_cast<int>(e / per) : last;
    const std::size_t local = e - per * static_cast<std::size_t>(q);
    const auto w = static_cast<std::size_t>(width_of(q));
    i = local / w;
    c = q * chunk + static_cast<int>(local % w);
  }
};

constexpr index_t fused_split = 64;
constexpr int fused_unroll = 4;  // entries of one slot in flight together

template <class T, int V>
struct alignas(sizeof(T) * V) pack {
  T v[V];
};

// acc += sum_e P^T(i, col_e) x[col_e * ld + (0..V)] for e = first, first + step, ... < end:
// fused_unroll entries' indices, then their rows of x, in flight together.
template <class T, int V>
__device__ __forceinline__ void gather_sum(T (&acc)[V], index_t first, index_t end, index_t step,
                                           const index_t* __restrict__ col_idx, const T* __restrict__ values,
                                           const T* __restrict__ x, int ld) {
  const auto l = static_cast<std::size_t>(ld);
  index_t e = first;
  for (; e + (fused_unroll - 1) * step < end; e += fused_unroll * step) {
    index_t col[fused_unroll];
    T val[fused_unroll];
#pragma unroll
    for (int u = 0; u < fused_unroll; ++u) col[u] = col_idx[e + u * step], val[u] = values[e + u * step];
    pack<T, V> p[fused_unroll];
#pragma unroll
    for (int u = 0; u < fused_unroll; ++u)
      p[u] = *reinterpret_cast<const pack<T, V>*>(x + static_cast<std::size_t>(col[u]) * l);
#pragma unroll
    for (int u = 0; u < fused_unroll; ++u)
#pragma unroll
      for (int j = 0; j < V; ++j) acc[j] += val[u] * p[u].v[j];
  }
  for (; e < end; e += step) {
    const pack<T, V> p = *reinterpret_cast<const pack<T, V>*>(x + static_cast<std::size_t>(col_idx[e]) * l);
    const T val = values[e];
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] += val * p.v[j];
  }
}

// A team of w lanes (a power of two <= 32) per row: g column lanes of V
// columns each (g V = C) times w / g entry slots; per_chunk blocks per chunk.
struct fused_shape {
  int w, g;
  unsigned per_chunk;
};

// piece_sum[p k + c] = sum over piece p's entries of P^T(i, j) R(j, c), every
// column c of the block; one warp per (chunk, piece), block index chunk-major.
template <class T, int V>
__global__ void __launch_bounds__(threads)
    fused_pieces(const T* __restrict__ r, block_layout lay, int g, unsigned per_chunk,
                 const int2* __restrict__ pieces, std::size_t count, const index_t* __restrict__ row_ptr,
                 const index_t* __restrict__ col_idx, const T* __restrict__ values,
                 T* __restrict__ piece_sum) {
  const int q = static_cast<int>(blockIdx.x / per_chunk);
  const std::size_t p = static_cast<std::size_t>(blockIdx.x % per_chunk) * (threads / 32) + threadIdx.x / 32;
  if (p >= count) return;  // the whole warp leaves together
  const int lane = static_cast<int>(threadIdx.x & 31), slot = lane / g, gl = lane & (g - 1);
  const int c0 = q * lay.chunk, wq = lay.width_of(q);
  const bool active = gl * V < wq;
  const int2 pc = pieces[p];
  const index_t end = min(row_ptr[pc.x + 1], pc.y + fused_split);
  T acc[V] = {};
  if (active)
    gather_sum<T, V>(acc, pc.y + slot, end, 32 / g, col_idx, values,
                     r + static_cast<std::size_t>(lay.n) * static_cast<std::size_t>(c0) + gl * V, wq);
  for (int off = g; off < 32; off *= 2)
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], off);
  if (slot != 0 || !active) return;
  pack<T, V> out;
#pragma unroll
  for (int j = 0; j < V; ++j) out.v[j] = acc[j];
  *reinterpret_cast<pack<T, V>*>(piece_sum + p * static_cast<std::size_t>(lay.k) + c0 + gl * V) = out;
}

// long_sum[l k + c] = the sum of long row l's pieces (long_ptr[l] to
// long_ptr[l + 1]) in column c, in double: a block a long row; thread t takes
// the 16-byte pack t % (k / V) of the pieces t / (k / V), + S, + 2 S, ...
// (S = threads / (k / V) slices), then the S partial sums are added in slice
// order, so the same bits every run. The fused step then reads one sum per
// long row: when its team added the pieces itself, a hub's thousands of
// pieces were one lane's serial chain of loads that every step waited for.
template <class T, int V>
__global__ void __launch_bounds__(threads)
    fused_long_rows(const T* __restrict__ piece_sum, const index_t* __restrict__ long_ptr, int k,
                    double* __restrict__ long_sum) {
  __shared__ double part[threads * V];
  const std::size_t l = blockIdx.x, kk = static_cast<std::size_t>(k);
  const int kv = k / V, t = static_cast<int>(threadIdx.x), slices = threads / kv;
  const int c = (t % kv) * V, s = t / kv;
  if (s < slices) {
    double acc[V] = {};
    for (index_t p = long_ptr[l] + s; p < long_ptr[l + 1]; p += slices) {
      const pack<T, V> v =
          *reinterpret_cast<const pack<T, V>*>(piece_sum + static_cast<std::size_t>(p) * kk + c);
#pragma unroll
      for (int j = 0; j < V; ++j) acc[j] += static_cast<double>(v.v[j]);
    }
#pragma unroll
    for (int j = 0; j < V; ++j) part[s * k + c + j] = acc[j];
  }
  __syncthreads();
  for (int cc = t; cc < k; cc += threads) {
    double a = 0.0;
    for (int s2 = 0; s2 < slices; ++s2) a += part[s2 * k + cc];
    long_sum[l * kk + static_cast<std::size_t>(cc)] = a;
  }
}

// One step of every column (the comment above): block b of chunk q sweeps the
// row groups b, b + per_chunk, ... of threads / w rows, a team per row; per
// column the |R' - R| and dangling sums go per thread, then per block in team
// order into the partials, and close_step ends the step.
// The per-thread sums live in shared memory (each entry owned by one lane, so
// no races): held in registers (2 V doubles) they took the kernel to 64
// registers, half the SM's threads, for a kernel bound by the latency of its
// gathers. At most 40 registers (6 resident blocks, 75%; a few bytes spill):
// on the H100 at 64 columns cnr-2000's steps took 22.4 ms against 26.1 at 32
// registers (more spills), rmat:20's 61.3 against 65.7 (docs/PERFORMANCE.md,
// session 18).
template <class T, int V>
__global__ void __launch_bounds__(threads, 6)
    fused_step(const T* __restrict__ r, T* __restrict__ rn, block_layout lay, fused_shape sh,
               const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
               const T* __restrict__ values, const index_t* __restrict__ long_of,
               const double* __restrict__ long_sum, double alpha, double tol, int max_iter, columns col,
               outcome out, teleport tp, const std::uint8_t* __restrict__ dangling,
               double* __restrict__ partials, unsigned* __restrict__ ticket) {
  __shared__ double s_l1[threads * V], s_d[threads * V];
  const int q = static_cast<int>(blockIdx.x / sh.per_chunk);
  const unsigned b = blockIdx.x % sh.per_chunk;
  const int c0 = q * lay.chunk, wq = lay.width_of(q);
  const int lane = static_cast<int>(threadIdx.x & 31), t = lane & (sh.w - 1), slot = t / sh.g,
            gl = t & (sh.g - 1);
  const unsigned mask = sh.w == 32 ? 0xffffffffu : ((1u << sh.w) - 1) << (lane & ~(sh.w - 1));
  const int teams = threads / sh.w, team = static_cast<int>(threadIdx.x) / sh.w;
  const bool active = gl * V < wq;
  const bool owner = slot == 0 && active;  // this lane updates columns c .. c + V of its team's rows
  const int c = c0 + gl * V;               // this lane's first column
  const std::size_t nn = static_cast<std::size_t>(lay.n), ld = static_cast<std::size_t>(wq);
  const T* rq = r + nn * static_cast<std::size_t>(c0) + gl * V;  // row j of the lane's columns: rq + j ld
  T* rnq = rn + nn * static_cast<std::size_t>(c0) + gl * V;
  // Per column: |R' - R| and the dangling mass of R' over this team's rows,
  // at s_*[team * chunk + column within the chunk]. The columns'
  // coefficients, sources and frozen flags are read per row (L1 hits).
  const int own = team * lay.chunk + gl * V;
  if (owner)
#pragma unroll
    for (int j = 0; j < V; ++j) s_l1[own + j] = s_d[own + j] = 0.0;
  const std::size_t stride = static_cast<std::size_t>(sh.per_chunk) * static_cast<std::size_t>(teams);
  for (std::size_t i = static_cast<std::size_t>(b) * teams + team; i < nn; i += stride) {
    const index_t begin = row_ptr[i], end = row_ptr[i + 1];
    const bool is_long = end - begin > fused_split;
    T acc[V] = {};
    if (active && !is_long) gather_sum<T, V>(acc, begin + slot, end, sh.w / sh.g, col_idx, values, rq, wq);
    for (int off = sh.g; off < sh.w; off *= 2)
#pragma unroll
      for (int j = 0; j < V; ++j) acc[j] += __shfl_xor_sync(mask, acc[j], off, sh.w);
    if (!owner) continue;
    double sum[V];
#pragma unroll
    for (int j = 0; j < V; ++j) sum[j] = static_cast<double>(acc[j]);
    if (is_long) {
      // The row's pieces, added in double by fused_long_rows: a hub's
      // hundreds of pieces summed in float lose about their count times
      // float's epsilon (cnr-2000: 1.3e-6 against the single solves).
      const double* ls =
          long_sum + static_cast<std::size_t>(long_of[i]) * static_cast<std::size_t>(lay.k) + c;
#pragma unroll
      for (int j = 0; j < V; ++j) sum[j] += ls[j];
    }
    const pack<T, V> old = *reinterpret_cast<const pack<T, V>*>(rq + i * ld);
    const int m = __ldg(tp.row_of + i);
    const bool dang = __ldg(dangling + i) != 0;
    pack<T, V> nv;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      double x = alpha * sum[j];
      if (m >= 0) {
        const int src = col.source[c + j];
        for (index_t e = tp.ptr[m]; e < tp.ptr[m + 1]; ++e)
          if (tp.slot[e] == src) x += col.coef[c + j] * tp.weight[e];
      }
      nv.v[j] = col.frozen[c + j] ? old.v[j] : static_cast<T>(x);
      s_l1[own + j] += fabs(static_cast<double>(nv.v[j]) - static_cast<double>(old.v[j]));
      if (dang) s_d[own + j] += static_cast<double>(nv.v[j]);
    }
    *reinterpret_cast<pack<T, V>*>(rnq + i * ld) = nv;
  }
  __syncthreads();
  const int ct = static_cast<int>(threadIdx.x);
  if (ct < wq) {
    double a = 0.0, d = 0.0;
    for (int tm = 0; tm < teams; ++tm) a += s_l1[tm * lay.chunk + ct], d += s_d[tm * lay.chunk + ct];
    partials[static_cast<std::size_t>(c0 + ct) * sh.per_chunk + b] = a;
    partials[static_cast<std::size_t>(lay.k + c0 + ct) * sh.per_chunk + b] = d;
  }
  close_step(lay.k, sh.per_chunk, alpha, tol, max_iter, col, out, partials, ticket);
}

// A fresh block of `live` sources in k >= live columns (the rest padding):
// R = 1/n in the live columns, 0 in the padding; one block of threads.
__global__ void begin_columns(columns col, outcome out, int k, int live, double coef0) {
  for (int j = static_cast<int>(threadIdx.x); j < k; j += blockDim.x) {
    const bool on = j < live;
    col.coef[j] = on ? coef0 : 0.0;
    col.frozen[j] = on ? 0 : 1;
    col.source[j] = on ? j : -1;
    col.iter[j] = 0;
    if (on) {
      out.iterations[j] = 0;
      out.residual[j] = CUDART_INF;
      out.converged[j] = 0;
    }
  }
}

// R = value in the columns below `live`, 0 in the rest (storage order).
template <class T>
__global__ void fill_block(T* __restrict__ r, block_layout lay, int live, T value) {
  const std::size_t count = static_cast<std::size_t>(lay.n) * static_cast<std::size_t>(lay.k);
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x) {
    std::size_t i;
    int c;
    lay.coords(e, i, c);
    r[e] = c < live ? value : T(0);
  }
}

// row_of[vertex[m]] = m (set) or -1 (clear), for the block's teleport vertices.
__global__ void mark_teleport(int* __restrict__ row_of, const index_t* __restrict__ vertex, int count,
                              int set) {
  const int m = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (m < count) row_of[vertex[m]] = set ? m : -1;
}

// stage[job.y * n + i] = R(i, job.x) for each of `count` jobs (column, stage slot).
template <class T>
__global__ void extract_columns(const T* __restrict__ r, block_layout lay, const int2* __restrict__ jobs,
                                int count, T* __restrict__ stage) {
  const std::size_t nn = static_cast<std::size_t>(lay.n), total = nn * static_cast<std::size_t>(count);
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const int2 job = jobs[e / nn];
    const std::size_t i = e % nn;
    stage[static_cast<std::size_t>(job.y) * nn + i] = r[lay.at(i, job.x)];
  }
}

// out(i, j) = in(i, keep[j]) for j < kn, 0 for the padding columns of out
// (out's storage order): the compacted block.
template <class T>
__global__ void gather_block(const T* __restrict__ in, block_layout from, T* __restrict__ out,
                             block_layout to, int kn, const int* __restrict__ keep) {
  const std::size_t count = static_cast<std::size_t>(to.n) * static_cast<std::size_t>(to.k);
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x) {
    std::size_t i;
    int j;
    to.coords(e, i, j);
    out[e] = j < kn ? in[from.at(i, keep[j])] : T(0);
  }
}

// The columns' state follows the gather; one block of `threads` threads (every
// thread reads before any writes).
__global__ void gather_columns(columns col, int kp, int kn, const int* __restrict__ keep) {
  const int j = static_cast<int>(threadIdx.x);
  double coef = 0.0;
  int frozen = 1, source = -1, iter = 0;
  if (j < kn) {
    const int s = keep[j];
    coef = col.coef[s];
    frozen = col.frozen[s];
    source = col.source[s];
    iter = col.iter[s];
  }
  __syncthreads();
  if (j < kp) {
    col.coef[j] = coef;
    col.frozen[j] = frozen;
    col.source[j] = source;
    col.iter[j] = iter;
  }
}

template <class T>
void grow(cuda::device_buffer<T>& b, std::size_t n) {
  if (b.size() < n) b = cuda::device_buffer<T>(n);
}

template <class T>
void upload_async(cuda::device_buffer<T>& d, const std::vector<T>& h, cudaStream_t s) {
  grow(d, std::max<std::size_t>(h.size(), 1));
  // Pageable source: the copy is staged before cudaMemcpyAsync returns.
  if (!h.empty())
    PERRON_CUDA_CHECK(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, s));
}

}  // namespace

template <class T>
struct pagerank_batched_gpu<T>::impl {
  static constexpr int wide = static_cast<int>(16 / sizeof(T));  // V: values a 16-byte load holds

  // Declared first, destroyed last: the plan's work is on it.
  cuda::stream stream;
  // The copies of frozen columns into pinned memory: on their own stream, so
  // that the copy engine can run them beside the next steps rather than
  // between them on the solver's stream (83 MB a block on cnr-2000; the
  // solve's wall time moved within its run-to-run spread, docs/PERFORMANCE.md).
  cuda::stream copy_stream;
  index_t n = 0;
  index_t dangling_count = 0;
  int width = 0;                       // most sources per block
  int padded = 0;                      // width rounded up to whole 16-byte rows
  unsigned fused_blocks = 0;           // resident blocks of fused_step on the device: its blocks per chunk
  std::unique_ptr<spmm_plan<T>> plan;  // P^T on the device, also read by the fused step
  cuda::device_buffer<std::uint8_t> dangling;
  cuda::device_buffer<T> r, y, stage, piece_sum;
  cuda::device_buffer<double> coef, residual, partials, weight, long_sum;
  cuda::device_buffer<int> frozen, source, iter, iterations, converged, row_of, keep;
  cuda::device_buffer<index_t> vertex, ptr, slot, long_of, long_ptr;
  cuda::device_buffer<int2> jobs, pieces;
  cuda::device_buffer<unsigned> ticket;
  cuda::pinned_buffer<int> h_frozen, h_keep, h_iterations, h_converged;
  cuda::pinned_buffer<double> h_residual;
  cuda::pinned_buffer<int2> h_jobs;
  cuda::pinned_buffer<T> h_stage;
  cuda::event ev_check{cudaEventDisableTiming}, ev_staged{cudaEventDisableTiming}, ev_start, ev_stop,
      ev_steps_begin, ev_steps_end;
  std::vector<cuda::event> slot_copied;  // per stage slot: its column's copy has landed

  // The solve's step: fused (chunk columns a chunk) or the two kernels.
  bool fused = true;
  int chunk = 0;
  // The automatic step's trial, run by the first solve that asks for it.
  bool trial_fused = false;
  int trial_chunk = 0;  // the chunk the trial timed the fused step at (0: none yet)
  std::string trial_text;
  // The block being solved: k columns (padded); per column its source (-1:
  // none) and whether it still has to be copied out.
  int k = 0;
  std::vector<std::size_t> source_of;  // global source index per block column (when source >= 0)
  std::vector<std::uint8_t> pending;   // 1: a source column not yet copied out

  // Stage slots of copied-out columns: free, or queued for a copy into pinned
  // memory (in_flight, in queue order) and widened once that copy has landed.
  struct staged {
    int slot;
    std::size_t source;
  };
  std::vector<int> free_slots;
  std::vector<staged> staging;  // staged by extract(), copies not yet issued
  std::vector<staged> in_flight;
  double wait_s = 0, widen_s = 0;  // host time blocked on the device, widening
  double step_s = 0;               // device time of the steps' kernels
  double tail_s = 0;               // host time after a block's last step
  double gap_s = 0;                // device time between a check and the next batch
  cuda::event check_time[2];       // when the last two checks ran (timing events)
  int check_parity = 0;            // check_time[check_parity]: the check queued last
  bool gap_timed = false;          // the batch queued last follows a check of this block
  bool steps_timed = false;        // a batch's step events are recorded and not yet read

  static int pad(int columns) { return (columns + wide - 1) / wide * wide; }
  columns cols() { return {coef.data(), frozen.data(), source.data(), iter.data()}; }
  outcome outs() { return {iterations.data(), residual.data(), converged.data()}; }
  // The layout of a block of kk columns: chunk-major for the fused step (the
  // chunk narrowed to a power of two times V that kk needs), row-major else.
  block_layout layout(int kk) const {
    if (!fused) return {n, kk, kk};
    int c = chunk;
    while (c > wide && c / 2 >= kk) c /= 2;
    return {n, kk, c};
  }

  impl(const pagerank_graph<T>& g, int w);
  void step(const pagerank_batched_options& opt);
  double trial(const pagerank_batched_options& opt, int live);
  void fused_step_launch(const pagerank_batched_options& opt);
  void widen_landed(pagerank_batched_result& res, bool until_check = false);
  void wait_check();
  void extract(pagerank_batched_result& res);
  void issue_copies();
  bool compact();
  void run_block(const std::vector<source_set>& sources, std::size_t begin, std::size_t end,
                 const pagerank_batched_options& opt, pagerank_batched_result& res);
};

template <class T>
pagerank_batched_gpu<T>::impl::impl(const pagerank_graph<T>& g, int w)
    : n(g.vertices()), dangling_count(g.dangling_count), width(w), padded(pad(w)) {
  const auto nn = static_cast<std::size_t>(n), kp = static_cast<std::size_t>(padded);
  const std::size_t stage_columns =
      std::clamp<std::size_t>(stage_bytes / (nn * sizeof(T)), 1, static_cast<std::size_t>(width));
  // Before anything of size n: the plan's CSR of P^T (its long rows' index
  // and pieces at most a row and a piece a fused_split links), the dangling
  // mask, R and Y (n x padded), the long rows' sums, the stage and row_of.
  const double links = static_cast<double>(g.pt.nnz()), vertices = static_cast<double>(nn);
  const double pieces_at_most = links / fused_split + vertices / fused_split + 1;
  check_device_memory(
      (vertices + 1) * sizeof(index_t) + links * double(sizeof(index_t) + sizeof(T)) + vertices +
          2.0 * vertices * double(kp) * sizeof(T) +
          pieces_at_most * (2 * sizeof(int2) + double(kp) * sizeof(T)) +
          vertices * (sizeof(index_t) + sizeof(int)) + vertices * double(stage_columns) * sizeof(T),
      "personalized PageRank on the GPU of " + std::to_string(n) + " vertices and " +
          std::to_string(g.pt.nnz()) + " links, " + std::to_string(w) + " sources a block (--block-columns)");
  plan = std::make_unique<spmm_plan<T>>(g.pt, stream.get());
  dangling = cuda::device_buffer<std::uint8_t>(g.dangling);
  r = cuda::device_buffer<T>(nn * kp);
  y = cuda::device_buffer<T>(nn * kp);
  // The fused step's long rows: their pieces of fused_split entries (row,
  // first entry); per row its index among the long rows, and per long row
  // its first piece.
  std::vector<int2> h_pieces;
  std::vector<index_t> h_long_of(nn, 0), h_long_ptr{0};
  for (index_t i = 0; i < n; ++i) {
    const index_t b = g.pt.row_ptr[static_cast<std::size_t>(i)],
                  e = g.pt.row_ptr[static_cast<std::size_t>(i) + 1];
    if (e - b <= fused_split) continue;
    h_long_of[static_cast<std::size_t>(i)] = static_cast<index_t>(h_long_ptr.size() - 1);
    for (index_t f = b; f < e; f += fused_split) h_pieces.push_back(make_int2(i, f));
    h_long_ptr.push_back(static_cast<index_t>(h_pieces.size()));
  }
  pieces = cuda::device_buffer<int2>(h_pieces);
  long_of = cuda::device_buffer<index_t>(h_long_of);
  long_ptr = cuda::device_buffer<index_t>(h_long_ptr);
  piece_sum = cuda::device_buffer<T>(std::max<std::size_t>(1, h_pieces.size()) * kp);
  long_sum = cuda::device_buffer<double>(std::max<std::size_t>(1, h_long_ptr.size() - 1) * kp);
  int device = 0, sms = 0, per_sm = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PERRON_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fused_step<T, wide>, threads, 0));
  fused_blocks = static_cast<unsigned>(std::max(1, sms * std::max(1, per_sm)));

  stage = cuda::device_buffer<T>(nn * stage_columns);
  h_stage = cuda::pinned_buffer<T>(nn * stage_columns);
  for (int s = static_cast<int>(stage_columns) - 1; s >= 0; --s) free_slots.push_back(s);
  for (std::size_t s = 0; s < stage_columns; ++s) slot_copied.emplace_back(cudaEventDisableTiming);
  coef = cuda::device_buffer<double>(kp);
  partials = cuda::device_buffer<double>(2 * kp * std::max<std::size_t>(max_blocks, fused_blocks));
  for (auto* b : {&frozen, &source, &iter, &keep}) *b = cuda::device_buffer<int>(kp);
  for (auto* b : {&iterations, &converged}) *b = cuda::device_buffer<int>(static_cast<std::size_t>(width));
  residual = cuda::device_buffer<double>(static_cast<std::size_t>(width));
  row_of = cuda::device_buffer<int>(nn);
  jobs = cuda::device_buffer<int2>(kp);
  ticket = cuda::device_buffer<unsigned>(1);
  h_frozen = cuda::pinned_buffer<int>(kp);
  h_keep = cuda::pinned_buffer<int>(kp);
  h_jobs = cuda::pinned_buffer<int2>(kp);
  h_iterations = cuda::pinned_buffer<int>(static_cast<std::size_t>(width));
  h_converged = cuda::pinned_buffer<int>(static_cast<std::size_t>(width));
  h_residual = cuda::pinned_buffer<double>(static_cast<std::size_t>(width));
  PERRON_CUDA_CHECK(cudaMemsetAsync(row_of.data(), 0xff, row_of.bytes(), stream.get()));  // all -1
  PERRON_CUDA_CHECK(cudaMemsetAsync(ticket.data(), 0, ticket.bytes(), stream.get()));
  // One SpMM outside the timed solves (lazy setup, module loading), then wait
  // for everything, the legacy-stream uploads included.
  PERRON_CUDA_CHECK(cudaMemsetAsync(r.data(), 0, r.bytes(), stream.get()));
  plan->apply(T(1), r.data(), T(0), y.data(), padded);
  cuda::synchronize();
}

template <class T>
void pagerank_batched_gpu<T>::impl::step(const pagerank_batched_options& opt) {
  if (fused) return fused_step_launch(opt);
  plan->apply(T(1), r.data(), T(0), y.data(), k);
  // One block pass covers threads / k rows; at most max_blocks blocks.
  const index_t rpp = threads / k;
  const auto blocks = static_cast<unsigned>(std::min<index_t>(max_blocks, (n + rpp - 1) / rpp));
  update_kernel<T><<<blocks, threads, 0, stream.get()>>>(
      r.data(), y.data(), n, k, opt.base.alpha, opt.base.tol, opt.base.max_iter, cols(), outs(),
      teleport{row_of.data(), ptr.data(), slot.data(), weight.data()}, dangling.data(), partials.data(),
      ticket.data());
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank update_kernel");
}

// One fused step (the pieces of the long rows first), R' into y, then the
// buffers swapped: y holds R_k, r R_{k+1}.
template <class T>
void pagerank_batched_gpu<T>::impl::fused_step_launch(const pagerank_batched_options& opt) {
  const block_layout lay = layout(k);
  const int g = lay.chunk / wide;
  const int chunks = (k + lay.chunk - 1) / lay.chunk;
  // Entry slots as the SpMM's teams take them, for the step's resident threads.
  const int w = g * spmm_team_slots(n, g, static_cast<long long>(fused_blocks) * threads);
  const unsigned teams = threads / static_cast<unsigned>(w);
  const auto per = static_cast<unsigned>(
      std::min<std::size_t>(fused_blocks, (static_cast<std::size_t>(n) + teams - 1) / teams));
  const index_t* row_ptr = plan->device_row_ptr();
  const index_t* col_idx = plan->device_col_idx();
  const T* values = plan->device_values();
  if (pieces.size()) {
    const auto piece_blocks = static_cast<unsigned>((pieces.size() + threads / 32 - 1) / (threads / 32));
    fused_pieces<T, wide><<<static_cast<unsigned>(chunks) * piece_blocks, threads, 0, stream.get()>>>(
        r.data(), lay, g, piece_blocks, pieces.data(), pieces.size(), row_ptr, col_idx, values,
        piece_sum.data());
    PERRON_CUDA_CHECK_LAUNCH("batched pagerank fused_pieces");
    fused_long_rows<T, wide><<<static_cast<unsigned>(long_ptr.size() - 1), threads, 0, stream.get()>>>(
        piece_sum.data(), long_ptr.data(), k, long_sum.data());
    PERRON_CUDA_CHECK_LAUNCH("batched pagerank fused_long_rows");
  }
  fused_step<T, wide><<<static_cast<unsigned>(chunks) * per, threads, 0, stream.get()>>>(
      r.data(), y.data(), lay, fused_shape{w, g, per}, row_ptr, col_idx, values, long_of.data(),
      long_sum.data(), opt.base.alpha, opt.base.tol, opt.base.max_iter, cols(), outs(),
      teleport{row_of.data(), ptr.data(), slot.data(), weight.data()}, dangling.data(), partials.data(),
      ticket.data());
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank fused_step");
  std::swap(r, y);
}

// Widens the copied-out columns in queue order once their copies have
// landed: waits for the first, takes with it every later one already landed
// (at most widen_group values), and widens that group in one parallel region
// (one barrier a group: a region per column cost 5 to 45 ms over 64 columns
// of cnr-2000 on 16 cores; one column a group, session 17: tails of 4-9 ms
// against 2-2.7 ms). With until_check it stops as soon as the check
// queued last has landed, so that the host queues the next steps at once
// rather than after widening all that had landed (a batch of 4 steps is
// 1.4 ms on cnr-2000); what is left is widened while the next batch runs.
// (Measured on the H100 it did not shorten cnr-2000's solve by itself:
// about 6.5 ms of device time outside the steps stayed; docs/PERFORMANCE.md.)
// The device then waits for the group in hand (gap_seconds: 0.6-1.1 ms a
// solve on cnr-2000, 3-33 ms on rmat:20, whose columns are 8 MB of doubles).
// A widening thread of its own (session 17) took rmat:20's gaps to 1 ms
// and er:500000's solve from 44 to 21-24 ms, but made cnr-2000's tail 2-3x
// longer (its OpenMP team beside the solving thread's on 16 cores): 33.6-38
// ms against 31-32.6, and cnr-2000 is the graph whose 10x is marginal.
template <class T>
void pagerank_batched_gpu<T>::impl::widen_landed(pagerank_batched_result& res, bool until_check) {
  constexpr std::size_t widen_group = std::size_t(1) << 21;  // 8 MB of floats: ~0.3 ms on 16 threads
  const auto nn = static_cast<std::size_t>(n);
  std::vector<std::pair<const T*, double*>> group;
  std::size_t next = 0;
  while (next < in_flight.size() && !(until_check && ev_check.done())) {
    const auto t0 = std::chrono::steady_clock::now();
    slot_copied[static_cast<std::size_t>(in_flight[next].slot)].synchronize();
    const auto t1 = std::chrono::steady_clock::now();
    std::size_t end = next + 1;
    while (end < in_flight.size() && (end - next + 1) * nn <= widen_group &&
           slot_copied[static_cast<std::size_t>(in_flight[end].slot)].done())
      ++end;
    group.clear();
    for (std::size_t d = next; d < end; ++d) {
      group.emplace_back(h_stage.data() + static_cast<std::size_t>(in_flight[d].slot) * nn,
                         res.rank.data() + in_flight[d].source * nn);
      free_slots.push_back(in_flight[d].slot);
    }
    detail::widen_columns(nn, group);
    wait_s += std::chrono::duration<double>(t1 - t0).count();
    widen_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    next = end;
  }
  in_flight.erase(in_flight.begin(), in_flight.begin() + static_cast<std::ptrdiff_t>(next));
}

// Waits for the check queued last (the frozen flags).
template <class T>
void pagerank_batched_gpu<T>::impl::wait_check() {
  const auto t0 = std::chrono::steady_clock::now();
  ev_check.synchronize();
  wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (steps_timed) step_s += ev_steps_end.ms_since(ev_steps_begin) * 1e-3;
  if (steps_timed && gap_timed) gap_s += ev_steps_begin.ms_since(check_time[check_parity ^ 1]) * 1e-3;
  steps_timed = false;
  gap_timed = true;  // the next batch follows this check
}

// Copies out the frozen columns not yet copied, as far as stage slots allow
// (the rest stay in the block, frozen, for the next check): a transposing
// kernel into the stage here; the copies into pinned memory are issued by
// issue_copies once the next steps are queued (the steps do not wait for the
// host's copy calls); widened at the next check while the device runs.
template <class T>
void pagerank_batched_gpu<T>::impl::extract(pagerank_batched_result& res) {
  std::vector<int> done;
  for (int j = 0; j < k; ++j)
    if (pending[static_cast<std::size_t>(j)] && h_frozen[static_cast<std::size_t>(j)]) done.push_back(j);
  if (done.empty()) return;
  if (free_slots.size() < done.size()) widen_landed(res);  // not overlapped: only with a small stage
  const auto count = std::min(done.size(), free_slots.size());
  for (std::size_t d = 0; d < count; ++d) {
    const int j = done[d];
    h_jobs[d] = make_int2(j, free_slots.back());
    staging.push_back({free_slots.back(), source_of[static_cast<std::size_t>(j)]});
    free_slots.pop_back();
    pending[static_cast<std::size_t>(j)] = 0;
  }
  PERRON_CUDA_CHECK(cudaMemcpyAsync(jobs.data(), h_jobs.data(), count * sizeof(int2), cudaMemcpyHostToDevice,
                                    stream.get()));
  const auto nn = static_cast<std::size_t>(n);
  extract_columns<T><<<cuda::grid_for(nn * count, threads, 4 * max_blocks), threads, 0, stream.get()>>>(
      r.data(), layout(k), jobs.data(), static_cast<int>(count), stage.data());
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank extract_columns");
  // A slot is written only once free: its last copy has landed and been widened.
  ev_staged.record(stream.get());
}

// The copies of the columns extract() staged, on the copy stream after the
// staging kernel: one copy per run of adjacent slots (the free list hands
// them out in order, so a check's columns are mostly one run), each slot's
// event recorded after its run.
template <class T>
void pagerank_batched_gpu<T>::impl::issue_copies() {
  if (staging.empty()) return;
  PERRON_CUDA_CHECK(cudaStreamWaitEvent(copy_stream.get(), ev_staged.get(), 0));
  const auto nn = static_cast<std::size_t>(n);
  for (std::size_t a = 0; a < staging.size();) {
    std::size_t b = a + 1;
    int dir = 0;  // +1 or -1: slots come back to the free list in reverse
    for (; b < staging.size(); ++b) {
      const int step = staging[b].slot - staging[b - 1].slot;
      if ((step != 1 && step != -1) || (dir != 0 && step != dir)) break;
      dir = step;
    }
    const std::size_t off = static_cast<std::size_t>(std::min(staging[a].slot, staging[b - 1].slot)) * nn;
    PERRON_CUDA_CHECK(cudaMemcpyAsync(h_stage.data() + off, stage.data() + off, (b - a) * nn * sizeof(T),
                                      cudaMemcpyDeviceToHost, copy_stream.get()));
    for (std::size_t d = a; d < b; ++d)
      slot_copied[static_cast<std::size_t>(staging[d].slot)].record(copy_stream.get());
    a = b;
  }
  in_flight.insert(in_flight.end(), staging.begin(), staging.end());
  staging.clear();
}

// Drops the copied-out columns when that narrows the padded block: the live
// (and frozen but not yet copied) columns are gathered, in order, into y and
// the buffers swapped; their state follows. True when it compacted.
template <class T>
bool pagerank_batched_gpu<T>::impl::compact() {
  std::vector<int> keep;
  for (int j = 0; j < k; ++j)
    if (pending[static_cast<std::size_t>(j)]) keep.push_back(j);
  const int kn = static_cast<int>(keep.size()), kp = pad(kn);
  if (kn == 0 || kp >= k) return false;
  std::copy(keep.begin(), keep.end(), h_keep.data());
  PERRON_CUDA_CHECK(cudaMemcpyAsync(this->keep.data(), h_keep.data(), keep.size() * sizeof(int),
                                    cudaMemcpyHostToDevice, stream.get()));
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(kp);
  gather_block<T><<<cuda::grid_for(count, threads, 4 * max_blocks), threads, 0, stream.get()>>>(
      r.data(), layout(k), y.data(), layout(kp), kn, this->keep.data());
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank gather_block");
  gather_columns<<<1, threads, 0, stream.get()>>>(cols(), kp, kn, this->keep.data());
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank gather_columns");
  std::swap(r, y);
  std::vector<std::size_t> next_source(static_cast<std::size_t>(kp), 0);
  std::vector<std::uint8_t> next_pending(static_cast<std::size_t>(kp), 0);
  for (int j = 0; j < kn; ++j) {
    next_source[static_cast<std::size_t>(j)] = source_of[static_cast<std::size_t>(keep[j])];
    next_pending[static_cast<std::size_t>(j)] = 1;
  }
  source_of = std::move(next_source);
  pending = std::move(next_pending);
  k = kp;
  return true;
}

// The automatic step: on a block as wide as the solve's first (R = 1/n, no
// teleport, tol 0 so that no column freezes), for each step in its own layout
// (the fused step's at the solve's chunk), one step to warm up, then two
// timed steps (CUDA events); the faster is kept for later solves at that
// chunk. Costs six steps and two fills (about 2 ms on cnr-2000, 6 ms on
// rmat:20 at 64 columns). Returns its host time.
template <class T>
double pagerank_batched_gpu<T>::impl::trial(const pagerank_batched_options& opt, int live) {
  const auto t0 = std::chrono::steady_clock::now();
  pagerank_batched_options o = opt;
  o.base.tol = 0.0;
  o.base.max_iter = std::numeric_limits<int>::max();
  k = pad(live);
  const T r0 = static_cast<T>(1.0 / static_cast<double>(n));
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(k);
  constexpr int timed = 2;
  double ms[2] = {0, 0};  // [0] two kernels, [1] fused
  for (int f = 1; f >= 0; --f) {
    fused = f == 1;
    begin_columns<<<1, threads, 0, stream.get()>>>(cols(), outs(), k, live, 1.0 - opt.base.alpha);
    fill_block<T><<<cuda::grid_for(count, threads, 4 * max_blocks), threads, 0, stream.get()>>>(
        r.data(), layout(k), live, r0);
    PERRON_CUDA_CHECK_LAUNCH("batched pagerank trial");
    step(o);
    ev_steps_begin.record(stream.get());
    for (int i = 0; i < timed; ++i) step(o);
    ev_steps_end.record(stream.get());
    ev_steps_end.synchronize();
    ms[f] = ev_steps_end.ms_since(ev_steps_begin) / timed;
  }
  trial_chunk = chunk;
  trial_fused = ms[1] <= ms[0];
  fused = true;
  const int fc = layout(k).chunk;  // the fused step's chunk at this width
  char text[200];
  std::snprintf(text, sizeof text, "%s: %.3f ms a step against %.3f for %s, timed on %d columns",
                trial_fused ? "fused" : "two kernels", ms[trial_fused ? 1 : 0], ms[trial_fused ? 0 : 1],
                trial_fused ? "two kernels" : "the fused step", live);
  trial_text = text;
  if (fc < k) trial_text += " (the fused step in chunks of " + std::to_string(fc) + ")";
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Sources [begin, end) as one block: start it, then batches of compact_every
// steps, each followed by one wait for the frozen flags, until every column
// is copied out; then the per-source outcome.
template <class T>
void pagerank_batched_gpu<T>::impl::run_block(const std::vector<source_set>& sources, std::size_t begin,
                                              std::size_t end, const pagerank_batched_options& opt,
                                              pagerank_batched_result& res) {
  const int live = static_cast<int>(end - begin);
  k = pad(live);
  source_of.assign(static_cast<std::size_t>(k), 0);
  pending.assign(static_cast<std::size_t>(k), 0);
  for (int j = 0; j < live; ++j) {
    source_of[static_cast<std::size_t>(j)] = begin + static_cast<std::size_t>(j);
    pending[static_cast<std::size_t>(j)] = 1;
  }
  const detail::teleport_list tl = detail::make_teleport_list(sources, begin, end);
  const int tv = static_cast<int>(tl.vertex.size());
  upload_async(vertex, tl.vertex, stream.get());
  upload_async(ptr, tl.ptr, stream.get());
  upload_async(slot, tl.slot, stream.get());
  upload_async(weight, tl.weight, stream.get());
  const auto unmark = [&] {
    mark_teleport<<<cuda::grid_for(static_cast<std::size_t>(tv), threads, "teleport"), threads, 0,
                    stream.get()>>>(row_of.data(), vertex.data(), tv, 0);
  };
  mark_teleport<<<cuda::grid_for(static_cast<std::size_t>(tv), threads, "teleport"), threads, 0,
                  stream.get()>>>(row_of.data(), vertex.data(), tv, 1);
  const T r0 = static_cast<T>(1.0 / static_cast<double>(n));
  // dangling_0 = sum over the dangling vertices of the stored start value, as a single solve takes it
  const double coef0 =
      opt.base.alpha * static_cast<double>(dangling_count) * double(r0) + (1.0 - opt.base.alpha);
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(k);
  try {  // from the marks on, a failure clears them (below)
    begin_columns<<<1, threads, 0, stream.get()>>>(cols(), outs(), k, live, coef0);
    fill_block<T><<<cuda::grid_for(count, threads, 4 * max_blocks), threads, 0, stream.get()>>>(
        r.data(), layout(k), live, r0);
    PERRON_CUDA_CHECK_LAUNCH("batched pagerank start");
  } catch (...) {
    unmark();
    throw;
  }

  int steps = 0, since = 0;                            // steps queued; steps since the last compaction
  auto tail_begin = std::chrono::steady_clock::now();  // the last batch's steps done
  const auto queue_batch = [&] {
    // Past max_iter every column is frozen: no step beyond it is queued.
    const int batch = std::min({opt.compact_every, max_check_steps, opt.base.max_iter - steps});
    ev_steps_begin.record(stream.get());
    for (int s = 0; s < batch; ++s) step(opt);
    ev_steps_end.record(stream.get());
    steps_timed = true;
    steps += batch;
    since += batch;
    res.column_steps += static_cast<std::uint64_t>(batch) * static_cast<std::uint64_t>(k);
    PERRON_CUDA_CHECK(cudaMemcpyAsync(h_frozen.data(), frozen.data(),
                                      static_cast<std::size_t>(k) * sizeof(int), cudaMemcpyDeviceToHost,
                                      stream.get()));
    ev_check.record(stream.get());
    check_parity ^= 1;
    check_time[check_parity].record(stream.get());
  };
  gap_timed = false;  // the first batch follows no check
  // A solve abandoned between its batches (an interrupt check threw; the
  // device is then idle but for the column copies) or by an error: its
  // teleport marks cleared, or the solver's next solve teleports to this
  // one's sources too (its columns were wrong by up to 7e14 on the H100,
  // session 106), and its copies waited for before the exception goes on.
  try {
    queue_batch();
    for (;;) {
      widen_landed(res, true);  // copies queued before the batch: widened while it runs
      wait_check();
      if (opt.base.interrupt) opt.base.interrupt();
      tail_begin = std::chrono::steady_clock::now();
      extract(res);
      if (std::none_of(pending.begin(), pending.end(), [](std::uint8_t p) { return p != 0; })) {
        issue_copies();
        break;
      }
      if (since >= opt.compact_every && compact()) {
        ++res.compactions;
        since = 0;
      }
      queue_batch();
      issue_copies();
    }
  } catch (...) {
    unmark();
    cudaStreamSynchronize(copy_stream.get());
    cudaStreamSynchronize(stream.get());
    throw;
  }
  unmark();
  PERRON_CUDA_CHECK_LAUNCH("batched pagerank mark_teleport");
  const auto w = static_cast<std::size_t>(live);
  PERRON_CUDA_CHECK(cudaMemcpyAsync(h_iterations.data(), iterations.data(), w * sizeof(int),
                                    cudaMemcpyDeviceToHost, stream.get()));
  PERRON_CUDA_CHECK(cudaMemcpyAsync(h_converged.data(), converged.data(), w * sizeof(int),
                                    cudaMemcpyDeviceToHost, stream.get()));
  PERRON_CUDA_CHECK(cudaMemcpyAsync(h_residual.data(), residual.data(), w * sizeof(double),
                                    cudaMemcpyDeviceToHost, stream.get()));
  ev_check.record(stream.get());
  widen_landed(res);  // the last columns, each as its copy lands
  wait_check();
  for (std::size_t j = 0; j < w; ++j) {
    res.iterations[begin + j] = h_iterations[j];
    res.converged[begin + j] = static_cast<std::uint8_t>(h_converged[j] != 0);
    res.residual[begin + j] = h_residual[j];
  }
  tail_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - tail_begin).count();
}

template <class T>
pagerank_batched_gpu<T>::pagerank_batched_gpu(const pagerank_graph<T>& g, int width) {
  if (!cuda::available()) throw cuda_error("no usable CUDA device");
  if (g.vertices() <= 0) throw invalid_argument("the graph is empty (0 vertices)");
  if (width < 1 || width > 256)
    throw invalid_argument("--block-columns must be in [1, 256], got " + std::to_string(width));
  if (g.dangling.size() != static_cast<std::size_t>(g.vertices()))
    throw dimension_error("pagerank_graph: dangling mask of " + std::to_string(g.dangling.size()) +
                          " entries for " + std::to_string(g.vertices()) + " vertices");
  impl_ = std::unique_ptr<impl, void (*)(impl*)>(new impl(g, width), [](impl* p) { delete p; });
}

template <class T>
int pagerank_batched_gpu<T>::width() const {
  return impl_->width;
}

template <class T>
pagerank_batched_result pagerank_batched_gpu<T>::solve(const std::vector<source_set>& sources,
                                                       const pagerank_batched_options& opt) {
  impl& m = *impl_;
  opt.validate(m.n, sources);
  detail::check_result_memory(m.n, sources.size());
  // A fused step's team row is at most a warp of 16-byte loads.
  if (opt.step != pagerank_batched_options::step_kind::two_kernels && opt.chunk_columns > 32 * impl::wide)
    throw invalid_argument("--chunk-columns " + std::to_string(opt.chunk_columns) + ": at most " +
                           std::to_string(32 * impl::wide) + " columns a chunk in " +
                           (sizeof(T) == 8 ? "double" : "float") + " on the GPU");
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t s = sources.size(), nn = static_cast<std::size_t>(m.n);
  pagerank_batched_result res;
  res.on_gpu = true;
  res.vertices = m.n;
  res.sources = s;
  using step_kind = pagerank_batched_options::step_kind;
  const auto block =
      static_cast<std::size_t>(opt.block_columns > 0 ? std::min(m.width, opt.block_columns) : m.width);
  m.chunk = std::max(impl::wide, opt.chunk_columns > 0 ? opt.chunk_columns
                                                       : pagerank_batched_gpu_chunk(m.n, sizeof(T) == 8));
  if (opt.step == step_kind::automatic) {
    if (m.trial_chunk != m.chunk) res.trial_seconds = m.trial(opt, static_cast<int>(std::min(s, block)));
    m.fused = m.trial_fused;
    res.step_choice = m.trial_text;
  } else {
    m.fused = opt.step == step_kind::fused;
    res.step_choice = m.fused ? "fused, asked" : "two kernels, asked";
  }
  res.chunk_columns = m.fused ? m.chunk : 0;
  m.wait_s = m.widen_s = m.step_s = m.tail_s = m.gap_s = 0;
  // A solve that threw (a failed launch, bad_alloc) may have left columns
  // staged or in flight: their slots come back once the copies are done.
  if (!m.staging.empty() || !m.in_flight.empty()) {
    m.stream.synchronize();
    m.copy_stream.synchronize();
    for (const auto* list : {&m.staging, &m.in_flight})
      for (const auto& x : *list) m.free_slots.push_back(x.slot);
    m.staging.clear();
    m.in_flight.clear();
  }
  m.steps_timed = false;
  m.ev_start.record(m.stream.get());
  // Reserved and advised, never zeroed (rank_block), and mapped by a second
  // thread while the device works: first touch costs about 0.25-0.45 ms per MB
  // on the GPU hosts (docs/PERFORMANCE.md), ~200 ms for the 537 MB of 64
  // columns of rmat:20 if the widening paid it; mapped this way on 8 threads it
  // took 17-25 ms there, hidden behind the device.
  res.rank.reserve(s * nn);
  advise_huge_pages(res.rank.data(), s * nn * sizeof(double));
  res.rank.resize(s * nn);
  std::thread mapper([&res, bytes = s * nn * sizeof(double)] {
    const auto begin = std::chrono::steady_clock::now();
    prefault({byte_span{res.rank.data(), bytes}}, std::max(1u, std::thread::hardware_concurrency() / 2));
    res.mapper_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  });
  struct joiner {
    std::thread& t;
    ~joiner() {
      if (t.joinable()) t.join();
    }
  } join_mapper{mapper};
  res.iterations.assign(s, 0);
  res.residual.assign(s, std::numeric_limits<double>::infinity());
  res.converged.assign(s, 0);
  for (std::size_t b = 0; b < s; b += block) m.run_block(sources, b, std::min(s, b + block), opt, res);
  mapper.join();
  m.ev_stop.record(m.stream.get());
  m.ev_stop.synchronize();
  res.device_seconds = m.ev_stop.ms_since(m.ev_start) * 1e-3;
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.wait_seconds = m.wait_s;
  res.widen_seconds = m.widen_s;
  res.step_seconds = m.step_s;
  res.tail_seconds = m.tail_s;
  res.gap_seconds = m.gap_s;
  return res;
}

int pagerank_batched_gpu_width(index_t n, bool double_precision) {
  // 64 columns, fewer when the two n x k buffers (R and Y, or R and R') would
  // pass 4 GB. H100, 64 sources (docs/PERFORMANCE.md): the two-kernel step's
  // steps took 47-48 ms at width 8 and 26.8 ms at 64 on cnr-2000, 106 and 52
  // ms on rmat:20; session 14's rule (R and Y in two thirds of L2, at least 8)
  // chose 8, measured cheapest only while the update kernel ran at 5% of the
  // bandwidth. The fused step's chunks keep its gathers in L2 at any width.
  const double value = double_precision ? 8.0 : 4.0;
  int k = 64;
  while (k > 8 && 2.0 * k * static_cast<double>(n) * value > 4.0 * (1u << 30)) k /= 2;
  return k;
}

int pagerank_batched_gpu_chunk(index_t /*n*/, bool double_precision) {
  // The widest, a warp of 16-byte loads a row: one chunk for the automatic
  // block of 64 columns. H100, 64 sources, steps of the fused step at chunks
  // of 32 / 64 floats (session 18, its sums in shared memory): cnr-2000 25.1 /
  // 22.4 ms, rmat:20 67.1 / 61.3, web:500000:6000000 38.7 / 28.2, a power-law
  // graph 17.7 / 17.0. (Session 15's rule, 128 bytes a row, was measured
  // while the step held its sums in registers at half occupancy.)
  return double_precision ? 64 : 128;
}

template <class T>
pagerank_batched_result pagerank_batched_cuda(const pagerank_graph<T>& g,
                                              const std::vector<source_set>& sources,
                                              const pagerank_batched_options& opt) {
  opt.validate(g.vertices(), sources);
  const int want =
      opt.block_columns > 0 ? opt.block_columns : pagerank_batched_gpu_width(g.vertices(), sizeof(T) == 8);
  const int width = static_cast<int>(std::min<std::size_t>(sources.size(), static_cast<std::size_t>(want)));
  pagerank_batched_gpu<T> solver(g, width);
  return solver.solve(sources, opt);
}

template class pagerank_batched_gpu<float>;
template class pagerank_batched_gpu<double>;
template pagerank_batched_result pagerank_batched_cuda<float>(const pagerank_graph<float>&,
                                                              const std::vector<source_set>&,
                                                              const pagerank_batched_options&);
template pagerank_batched_result pagerank_batched_cuda<double>(const pagerank_graph<double>&,
                                                               const std::vector<source_set>&,
                                                               const pagerank_batched_options&);

}  // namespace perron
