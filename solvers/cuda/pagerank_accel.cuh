// --accelerate on the GPU (the spmv and fused pulls; the persistent kernel's own,
// with these formulas, is in pagerank_persistent.cu): the iterates a run of plain steps
// keeps and the extrapolation that ends the run, as kernels on the solver's
// stream, captured into the same graphs as the steps (solvers/cuda/pagerank.cu),
// so acceleration adds no host synchronization. The formulas are
// solvers/pagerank_accel.hpp's, the same as the CPU solver's.
//
// Every kernel here returns at once when the state says done (converged or
// at max_iter): after the stopping step, neither r nor the state changes, so
// the result is the exact plain iterate of the stopping step.
//
// A run of P = accelerate_every steps (the fused pull: one WHILE trip, or one
// check_every batch; the spmv pull: P / u trips of u steps, the extrapolation in an IF node
// after each, which runs it at the run's end only; solvers/cuda/pagerank.cu):
//   step, ..., step P-3, save x_{k-3}, step P-2, save x_{k-2}, step P-1, save x_{k-1}, step P,
// (on the spmv pull the update kernel of steps P-3..P-1 writes the saves, no kernels of their own)
//   check_kernel (aitken's safeguard, solvers/pagerank_accel.hpp: drops the run
//   when the extrapolation that started it did not lower the residual), then
//         quadratic (auto: behind its gate, from the residuals of steps P-1 and P): dots_kernel (the 2 x 2
//         normal equations' five sums, two deterministic grid reductions) and write_kernel (r = w0 x_{k-2} +
//         w1 x_{k-1} + w2 x_k); aitken: sums_kernel (sum of x* and its dangling part) and write_kernel (r =
//         x* / sum); write_kernel keeps x_k for the safeguard.
// rre (solvers/pagerank_accel.hpp): the run's last W = min(8, P - 1) iterates
// in one buffer of 8 n (its slots written as the quadratic's are, from step
// P - W), then check_kernel (the idle stop), rre_dots_kernel (behind auto's
// gate: the differences' Gram matrix and the masses, up to 44 sums in one
// deterministic reduction), rre_weights_kernel (one thread: the weights) and
// rre_write_kernel (r = the combination of the window's last W iterates):
// W n values written by the saves, W + 1 n read by the sums, W n read and n
// written by the combination.
// The dangling mass of the new r, which the next step needs, comes without a
// pass of its own: for quadratic from the masses saved with the iterates (the
// combination is linear), for aitken from the sums kernel.
// Bytes per run beyond its P steps: 3 n values T written by the saves, 4 n
// (quadratic) or 3 n (aitken) read twice and n (aitken: 2 n) written by the extrapolation
// (and the out-degrees, read twice, for the fused pull).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "core/cuda/check.cuh"
#include "core/cuda/reduce.cuh"
#include "core/cuda/support.cuh"
#include "core/device.hpp"
#include "core/memory.hpp"
#include "solvers/cuda/pagerank_device.cuh"
#include "solvers/pagerank.hpp"
#include "solvers/pagerank_accel.hpp"

namespace perron::pagerank_gpu {

// Device-resident record of the extrapolation, beside pagerank_state.
struct accel_state {
  double dangling[accel::rre_max_window];  // sum_{j dangling} of the saved x_{k-3}, x_{k-2}, x_{k-1}
                                           // (rre: of the window's x_{k-W} .. x_{k-1})
  double w[accel::rre_max_window];         // quadratic: weights of x_{k-2}, x_{k-1}, x_k (rre: of
                                           // x_{k-W+1} .. x_k)
  double first[4];                         // quadratic: the first reduction's totals, for the second
  double rre_sums[accel::rre_sums(accel::rre_max_window) + accel::rre_max_window];  // rre: Gram, masses
  double scale;                                                                     // aitken: 1 / sum_i x*(i)
  double residual_before, dangling_before;  // of x_k, for the safeguard
  double residual_1;                        // auto: the residual when x_{k-1} was saved
  double rate1;                             // auto: residual_k / residual_{k-1} before its extrapolation
  int apply;                                // the last extrapolation was not skipped: write_kernel replaces r
  int check;                                // the run going on started from an extrapolation
  int disabled;                             // the safeguard dropped one: no more in this solve
  int extrapolations;                       // applied and kept in this solve
  int rejected;                             // dropped by the safeguard
  int idle;                                 // auto: idle extrapolations in a row
  double anchor_residual;                   // auto: the first extrapolation's residual and iteration,
  int anchor_step;                          // for accel::behind_plain_line (0: none yet)
  unsigned ticket;                          // check_kernel's block counter, zero between launches
};

namespace accel_detail {

constexpr int threads = cuda::detail::block_size;
// rre's sums: the Gram matrix of W differences and W masses, at most.
constexpr int accel_rre_values = accel::rre_sums(accel::rre_max_window) + accel::rre_max_window;
using cuda::detail::grid_reduce;
using cuda::detail::sum_op;

__device__ __forceinline__ bool dangling_bit(const std::uint32_t* bits, long long i) {
  return (__ldg(bits + (i >> 5)) >> (i & 31)) & 1u;
}

// auto's plain line from its first extrapolation (accel::behind_plain_line),
// by the thread that applies an extrapolation.
__device__ __forceinline__ void anchor_plain_line(const pagerank_state* st, accel_state* ac) {
  accel::anchor_plain_line(ac->anchor_residual, ac->anchor_step, st->residual, st->iteration);
}

}  // namespace accel_detail

// Where a pull keeps its iterate: the spmv pull's r (even == odd), or the
// fused pull's x_k in its own vertex order, x(j) = r(j) / w_j with w_j the
// out-degree (1 for a dangling j), in x0 or x1 by the parity of k
// (pagerank_fused.cuh). The extrapolation is the same one in r for both: the
// normal equations' sums weigh x by w, the quadratic combination is linear
// and Aitken's per-vertex value homogeneous of degree 1, so the new vector
// is written in x directly.
template <class T>
struct accel_vec {
  T* even;
  T* odd;
  const index_t* deg;         // fused: out-degrees (0: dangling); null for the spmv pull
  const std::uint32_t* bits;  // spmv pull: the dangling bits
  __device__ __forceinline__ T* at(const pagerank_state* st) const {
    return (st->iteration & 1) ? odd : even;
  }
  __device__ __forceinline__ double weight(long long i) const {
    if (deg == nullptr) return 1.0;
    const index_t d = __ldg(deg + i);
    return d > 0 ? static_cast<double>(d) : 1.0;
  }
  __device__ __forceinline__ bool dangling(long long i) const {
    return deg != nullptr ? __ldg(deg + i) == 0 : accel_detail::dangling_bit(bits, i);
  }
};

// One vertex's terms of the quadratic extrapolation's sums, from its values
// in x_{k-3}, x_{k-2}, x_{k-1}, x_k (r = w x): the normal equations of
// [y_1 y_2] g = -y_3 (y_j = x_{k-3+j} - x_{k-3}) in s[0..4] (y1.y1, y1.y2,
// y2.y2, y1.y3, y2.y3) and the masses of x_{k-2}, x_{k-1}, x_k in s[5..7]
// (solvers/pagerank_accel.hpp takes the weights from them). Shared by
// dots_kernel and the persistent kernel's extrapolation.
__device__ __forceinline__ void add_quadratic_terms(double* s, double x0, double x1, double x2, double x3) {
  const double y1 = x1 - x0, y2 = x2 - x0, y3 = x3 - x0;
  s[0] += y1 * y1;
  s[1] += y1 * y2;
  s[2] += y2 * y2;
  s[3] += y1 * y3;
  s[4] += y2 * y3;
  s[5] += x1;
  s[6] += x2;
  s[7] += x3;
}

// After the save of x_{k-3+which} (accel::run_slot; rre: x_{k-W+which},
// accel::rre_slot), by the thread that closed its step: its dangling mass,
// and with the last (last: 2, rre W - 1), auto's residual_1.
__device__ __forceinline__ void close_save(accel_state* ac, const pagerank_state* st, int which, int last) {
  ac->dangling[which] = st->dangling;
  if (which == last) ac->residual_1 = st->residual;
}

// rre's window of saved iterates: slot j (x_{k-W+j}) at window + j n.
template <class T>
struct rre_slots {
  T* base = nullptr;
  int w = 0;  // differences W; 0: not rre
  __device__ __forceinline__ T* slot(int which, index_t n) const {
    return base + static_cast<long long>(which) * n;
  }
};

namespace accel_detail {

#define PERRON_ACCEL_FOR(i, n)                                                               \
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<long long>(gridDim.x) * blockDim.x)

// slot = the iterate and its dangling mass (the state's, closed by the step just run).
template <class T>
__global__ void __launch_bounds__(threads)
    save_kernel(accel_vec<T> v, T* __restrict__ slot, index_t n, const pagerank_state* st, accel_state* ac,
                int which, int last) {
  if (st->done || ac->disabled) return;
  const T* __restrict__ r = v.at(st);
  PERRON_ACCEL_FOR(i, n) slot[i] = r[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) close_save(ac, st, which, last);
}

// save_kernel placed after every step of a WHILE trip shorter than the run
// (runs longer than the fused pull's trips): which save, if any, from the
// state's step count (runs start at multiples of every), and the IF node
// after the trip (the extrapolation) turned on at a run's end, as the spmv
// pull's update kernel does.
template <class T>
__global__ void __launch_bounds__(threads)
    run_save_kernel(accel_vec<T> v, T* __restrict__ h0, T* __restrict__ h1, T* __restrict__ h2,
                    rre_slots<T> rre, index_t n, const pagerank_state* st, accel_state* ac, int every,
                    int aitken, cudaGraphConditionalHandle run_end) {
  const bool live = !st->done && !ac->disabled;
  const int s = st->iteration % every;  // steps of the run done; 0: its last
  if (blockIdx.x == 0 && threadIdx.x == 0) cudaGraphSetConditional(run_end, live && s == 0 ? 1u : 0u);
  const int which = !live ? -1 : rre.w ? accel::rre_slot(s, every) : accel::run_slot(s, every, aitken != 0);
  if (which < 0) return;
  T* __restrict__ slot = rre.w ? rre.slot(which, n) : which == 0 ? h0 : which == 1 ? h1 : h2;
  const T* __restrict__ r = v.at(st);
  PERRON_ACCEL_FOR(i, n) slot[i] = r[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) close_save(ac, st, which, rre.w ? rre.w - 1 : 2);
}

// The five sums of the normal equations of [y_1 y_2] g = -y_3 and the three
// masses of x_{k-2}, x_{k-1}, x_k, then the weights from them
// (solvers/pagerank_accel.hpp). grid_reduce holds four sums at most: two
// reductions of four; the block closing the first stores its totals before
// it takes its ticket of the second, so the block closing the second reads them.
// gated (auto): first accel::extrapolation_pays, uniform over the grid; when it
// says no, the run ends without an extrapolation (apply = 0 for write_kernel).
template <class T>
__global__ void __launch_bounds__(threads)
    dots_kernel(const T* __restrict__ h0, const T* __restrict__ h1, const T* __restrict__ h2, accel_vec<T> v,
                index_t n, pagerank_state* st, accel_state* ac, double* partials_a, unsigned* counter_a,
                double* partials_b, unsigned* counter_b, int gated) {
  if (st->done || ac->disabled) return;  // uniform over the grid: no block reaches the reductions
  if (st->residual < accel::rounding_floor<T>() ||
      (gated && !accel::extrapolation_pays(st->residual, ac->residual_1, st->tol))) {
    if (blockIdx.x == 0 && threadIdx.x == 0) ac->apply = 0;
    return;
  }
  const T* __restrict__ r = v.at(st);
  double s[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  PERRON_ACCEL_FOR(i, n) {
    const double w = v.weight(i);  // the iterates in r
    add_quadratic_terms(s, w * static_cast<double>(h0[i]), w * static_cast<double>(h1[i]),
                        w * static_cast<double>(h2[i]), w * static_cast<double>(r[i]));
  }
  double a[4] = {s[0], s[1], s[2], s[3]}, b[4] = {s[4], s[5], s[6], s[7]};
  grid_reduce<4, sum_op, threads>(a, partials_a, counter_a, [=](const double(&t)[4]) {
    for (int k = 0; k < 4; ++k) ac->first[k] = t[k];
    __threadfence();
  });
  grid_reduce<4, sum_op, threads>(b, partials_b, counter_b, [=](const double(&t)[4]) {
    const volatile double* m = ac->first;
    const accel::quadratic_weights q = accel::quadratic_extrapolation(
        m[0], m[1], m[2], m[3], t[0], t[1], t[2], t[3], st->alpha, accel::rounding_floor<T>());
    ac->w[0] = q.w0;
    ac->w[1] = q.w1;
    ac->w[2] = q.w2;
    ac->apply = q.ok ? 1 : 0;
    if (q.ok) {
      // (the safeguard is aitken's alone, the idle stop auto's: solvers/pagerank_accel.hpp)
      if (gated) {
        ac->residual_before = st->residual;
        ac->rate1 = ac->residual_1 > 0.0 ? st->residual / ac->residual_1 : 0.0;
        ac->check = 1;
        anchor_plain_line(st, ac);
      }
      // The new r's dangling mass: the same combination of the iterates' masses.
      st->dangling = q.w0 * ac->dangling[1] + q.w1 * ac->dangling[2] + q.w2 * st->dangling;
      ++ac->extrapolations;
    }
  });
}

constexpr int rre_groups = 4;  // the sums split among warps: k = g, g + 4, ... for warp group g

// Warp group G's running sums over the vertices from `first` by `stride`
// (every index a constant: the factors and sums stay in registers).
template <class T, int W, int G, int... Ts>
__device__ __forceinline__ void rre_group_sums(const T* __restrict__ window, const accel_vec<T>& v,
                                               const T* __restrict__ r, index_t n, long long first,
                                               long long stride, double (&acc)[sizeof...(Ts)],
                                               std::integer_sequence<int, Ts...>) {
  for (long long i = first; i < n; i += stride) {
    const double w = v.weight(i);  // the iterates in r
    double x[W + 1];
#pragma unroll
    for (int j = 0; j < W; ++j) x[j] = w * static_cast<double>(window[static_cast<long long>(j) * n + i]);
    x[W] = w * static_cast<double>(r[i]);
    const auto term = [&](auto k) -> double {
      constexpr accel::rre_factors f = accel::rre_factors_of(decltype(k)::value, W);
      if constexpr (f.p < 0)
        return 0.0;
      else if constexpr (f.q < 0)
        return x[f.p + 1];
      else
        return (x[f.p + 1] - x[f.p]) * (x[f.q + 1] - x[f.q]);
    };
    ((acc[Ts] += term(std::integral_constant<int, G + Ts * rre_groups>{})), ...);
  }
}

// rre (solvers/pagerank_accel.hpp): the Gram matrix of the window's W
// differences u_j = x_{k-W+j+1} - x_{k-W+j} (in r = w x) and the masses of
// x_{k-W+1} .. x_k, then the weights from them, behind auto's gate (uniform
// over the grid). The sums are split among four groups of warps (warp w sums
// k = w % 4, + 4, ...): each warp loads its 32 vertices' W + 1 values
// (coalesced; the other groups' warps of the block read the same lines,
// mostly from L1) and keeps its 11 sums in registers. (One thread holding all
// 44 sums took 165 registers, one block an SM, and 148 us on web:1048576's 9
// vectors of 4 MB, a quarter of the bandwidth; a shared-memory tile a block
// with warps summing its products, 97 us; the quadratic's dots_kernel takes
// 30.) The block's sums then go to `partials` (sum k of block b at k *
// max_blocks + b) and the last block adds them in block order (the same bits
// on every run) into the state's rre_sums, from which rre_weights_kernel
// takes the weights.
template <class T, int W>
__global__ void __launch_bounds__(threads)
    rre_dots_kernel(const T* __restrict__ window, accel_vec<T> v, index_t n, pagerank_state* st,
                    accel_state* ac, double* partials, unsigned* counter) {
  constexpr int S = accel::rre_sums(W) + W;
  constexpr int per_warp = (S + rre_groups - 1) / rre_groups;
  constexpr int warps = threads / 32;
  constexpr int rows = warps / rre_groups;  // warps of a group in a block: each its 32 vertices
  static_assert(S <= threads && warps % rre_groups == 0, "a thread a sum at the end; whole groups");
  if (st->done || ac->disabled) return;  // uniform over the grid: no block reaches the reduction
  if (st->residual < accel::rounding_floor<T>() ||
      !accel::extrapolation_pays(st->residual, ac->residual_1, st->tol)) {
    if (blockIdx.x == 0 && threadIdx.x == 0) ac->apply = 0;
    return;
  }
  __shared__ double warp_sum[warps][per_warp];
  __shared__ bool last;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, group = warp % rre_groups;
  double acc[per_warp];
#pragma unroll
  for (int t = 0; t < per_warp; ++t) acc[t] = 0.0;
  const T* __restrict__ r = v.at(st);
  const long long first = (static_cast<long long>(blockIdx.x) * rows + warp / rre_groups) * 32 + lane;
  const long long stride = static_cast<long long>(gridDim.x) * rows * 32;
  const auto seq = std::make_integer_sequence<int, per_warp>{};
  switch (group) {  // uniform over the warp
    case 0:
      rre_group_sums<T, W, 0>(window, v, r, n, first, stride, acc, seq);
      break;
    case 1:
      rre_group_sums<T, W, 1>(window, v, r, n, first, stride, acc, seq);
      break;
    case 2:
      rre_group_sums<T, W, 2>(window, v, r, n, first, stride, acc, seq);
      break;
    default:
      rre_group_sums<T, W, 3>(window, v, r, n, first, stride, acc, seq);
      break;
  }
#pragma unroll
  for (int t = 0; t < per_warp; ++t) {
    for (int off = 16; off > 0; off >>= 1) acc[t] += __shfl_xor_sync(0xffffffffu, acc[t], off);
    if (lane == 0) warp_sum[warp][t] = acc[t];
  }
  __syncthreads();
  if (threadIdx.x < S) {  // sum k: its group's warps, in order
    const int k = threadIdx.x;
    double t = 0.0;
    for (int g = k % rre_groups; g < warps; g += rre_groups) t += warp_sum[g][k / rre_groups];
    partials[k * cuda::reduction_scratch::max_blocks + blockIdx.x] = t;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();  // partials visible device-wide before the ticket is taken
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  if (threadIdx.x < S) {
    double t = 0.0;
    for (unsigned b = 0; b < gridDim.x; ++b)
      t += __ldcg(partials + threadIdx.x * cuda::reduction_scratch::max_blocks + b);
    ac->rre_sums[threadIdx.x] = t;
  }
  if (threadIdx.x == 0) {
    *counter = 0u;
    ac->apply = 1;  // rre_weights_kernel decides
  }
}

// rre's weights from rre_dots_kernel's sums, one thread (its own launch: in
// rre_dots_kernel the weights' registers, 108 a thread, left two blocks an SM
// for the pass over the window).
template <int W>
__global__ void rre_weights_kernel(pagerank_state* st, accel_state* ac) {
  if (st->done || ac->disabled || !ac->apply) return;
  const accel::rre_weights e =
      accel::rre_extrapolation_of<W>(ac->rre_sums, ac->rre_sums + accel::rre_sums(W), st->alpha);
  for (int j = 0; j < W; ++j) ac->w[j] = e.w[j];
  ac->apply = e.ok ? 1 : 0;
  if (e.ok) {
    ac->residual_before = st->residual;
    ac->rate1 = ac->residual_1 > 0.0 ? st->residual / ac->residual_1 : 0.0;
    ac->check = 1;
    anchor_plain_line(st, ac);
    // The new r's dangling mass: the same combination of the iterates' masses.
    double dangling = e.w[W - 1] * st->dangling;
    for (int j = 0; j + 1 < W; ++j) dangling += e.w[j] * ac->dangling[j + 1];
    st->dangling = dangling;
    ++ac->extrapolations;
  }
}

// r = w_0 x_{k-W+1} + ... + w_{W-1} x_k, rounded to T once.
template <class T, int W>
__global__ void __launch_bounds__(threads)
    rre_write_kernel(const T* __restrict__ window, accel_vec<T> v, index_t n, const pagerank_state* st,
                     const accel_state* ac) {
  if (st->done || ac->disabled || !ac->apply) return;
  T* __restrict__ r = v.at(st);
  double w[W];
#pragma unroll
  for (int j = 0; j < W; ++j) w[j] = ac->w[j];
  PERRON_ACCEL_FOR(i, n) {
    double x = w[W - 1] * static_cast<double>(r[i]);
#pragma unroll
    for (int j = 0; j + 1 < W; ++j)
      x += w[j] * static_cast<double>(window[static_cast<long long>(j + 1) * n + i]);
    r[i] = static_cast<T>(x);
  }
}

// Aitken: sum_i x*(i) and its dangling part, then the scale 1 / sum.
template <class T>
__global__ void __launch_bounds__(threads)
    sums_kernel(const T* __restrict__ h1, const T* __restrict__ h2, accel_vec<T> v, index_t n,
                pagerank_state* st, accel_state* ac, double* partials, unsigned* counter) {
  if (st->done || ac->disabled) return;
  if (st->residual < accel::rounding_floor<T>()) {  // uniform over the grid, as the test above
    if (blockIdx.x == 0 && threadIdx.x == 0) ac->apply = 0;
    return;
  }
  const T* __restrict__ r = v.at(st);
  const double alpha = st->alpha;
  double s[2] = {0.0, 0.0};
  PERRON_ACCEL_FOR(i, n) {
    const double x = v.weight(i) * accel::aitken_value(static_cast<double>(h1[i]), static_cast<double>(h2[i]),
                                                       static_cast<double>(r[i]), alpha);
    s[0] += x;
    if (v.dangling(i)) s[1] += x;
  }
  grid_reduce<2, sum_op, threads>(s, partials, counter, [=](const double(&t)[2]) {
    const bool ok = t[0] > 0.0 && accel::finite(t[0]);
    ac->apply = ok ? 1 : 0;
    if (ok) {
      ac->scale = 1.0 / t[0];
      ac->residual_before = st->residual;
      ac->dangling_before = st->dangling;
      ac->check = 1;
      st->dangling = t[1] / t[0];
      ++ac->extrapolations;
    }
  });
}

// kept = r = x_k (aitken's safeguard alone reads it back), then r = the
// extrapolated vector, rounded to T once.
template <class T>
__global__ void __launch_bounds__(threads)
    write_kernel(const T* __restrict__ h1, const T* __restrict__ h2, accel_vec<T> v, T* __restrict__ kept,
                 index_t n, const pagerank_state* st, const accel_state* ac, int aitken) {
  if (st->done || ac->disabled || !ac->apply) return;
  T* __restrict__ r = v.at(st);
  const double alpha = st->alpha;
  const double w0 = ac->w[0], w1 = ac->w[1], w2 = ac->w[2], scale = ac->scale;
  PERRON_ACCEL_FOR(i, n) {
    const double x0 = static_cast<double>(h1[i]), x1 = static_cast<double>(h2[i]),
                 x2 = static_cast<double>(r[i]);
    if (aitken) kept[i] = r[i];
    r[i] =
        static_cast<T>(aitken ? scale * accel::aitken_value(x0, x1, x2, alpha) : w0 * x0 + w1 * x1 + w2 * x2);
  }
}

// The safeguard at the end of a run that started from an extrapolation: when
// its last residual is not below the one before the extrapolation, r = kept
// (x_k) and no more extrapolations. Every block reads the flags before it
// takes its ticket; the last block alone writes them.
// gated_every > 0 (auto, runs of that many steps): the idle stop instead, one
// thread's bookkeeping, r untouched.
template <class T>
__global__ void __launch_bounds__(threads)
    check_kernel(const T* __restrict__ kept, accel_vec<T> v, index_t n, pagerank_state* st, accel_state* ac,
                 int gated_every) {
  if (st->done || ac->disabled || !ac->check) return;  // uniform over the grid
  if (gated_every > 0) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    ac->check = 0;
    if (accel::gated_stop(ac->idle, st->residual, st->iteration, ac->residual_before, ac->rate1, gated_every,
                          ac->anchor_residual, ac->anchor_step, st->alpha))
      ac->disabled = 1;
    return;
  }
  const bool reject = accel::reject_extrapolation(st->residual, ac->residual_before);
  T* __restrict__ r = v.at(st);
  if (reject) PERRON_ACCEL_FOR(i, n) r[i] = kept[i];
  __syncthreads();
  if (threadIdx.x != 0) return;
  __threadfence();
  if (atomicAdd(&ac->ticket, 1u) != gridDim.x - 1) return;
  ac->ticket = 0;
  ac->check = 0;
  if (reject) {
    ac->disabled = 1;
    st->dangling = ac->dangling_before;
    --ac->extrapolations;
    ++ac->rejected;
  }
}

#undef PERRON_ACCEL_FOR

}  // namespace accel_detail

// The saved iterates and the extrapolation's scratch of one solver, allocated
// once (the graphs capture their addresses).
template <class T>
class accel_buffers {
 public:
  accel_buffers(index_t n, cudaStream_t stream) : n_(n), stream_(stream), state_(1) {
    for (auto& h : hist_) h = cuda::device_buffer<T>(static_cast<std::size_t>(n));
    grid_ = cuda::grid_for(static_cast<std::size_t>(n), 4u * accel_detail::threads,
                           unsigned(cuda::reduction_scratch::max_blocks));
  }

  // rre's window of rre_max_window saved iterates, allocated by the first
  // rre solve (checked against the device's free memory first); returns the
  // bytes it added.
  std::size_t ensure_window() {
    if (window_.size() > 0) return 0;
    const std::size_t values = static_cast<std::size_t>(accel::rre_max_window) * static_cast<std::size_t>(n_);
    check_device_memory(double(values) * sizeof(T) + double(rre_scratch_bytes),
                        "--accelerate rre's " + std::to_string(accel::rre_max_window) +
                            " saved iterates of " + std::to_string(n_) + " vertices");
    window_ = cuda::device_buffer<T>(values);
    rre_scratch_ = std::make_unique<cuda::reduction_scratch>(accel_detail::accel_rre_values);
    return window_.bytes() + rre_scratch_bytes;
  }
  // The window of an rre solve of runs of `every` (accel::rre_window of it).
  rre_slots<T> window(int every) { return {window_.data(), accel::rre_window(every)}; }

  // After step `every` - 3 + which of a run: x_{k-3+which} = the iterate
  // (rre: after step every - W + which, x_{k-W+which} into the window).
  void launch_save(const accel_vec<T>& v, int which, const pagerank_state* st, int rre_w = 0) {
    T* slot = rre_w ? window_.data() + static_cast<std::size_t>(which) * static_cast<std::size_t>(n_)
                    : hist_[which].data();
    accel_detail::save_kernel<T><<<grid_, accel_detail::threads, 0, stream_>>>(v, slot, n_, st, state_.data(),
                                                                               which, rre_w ? rre_w - 1 : 2);
    PERRON_CUDA_CHECK_LAUNCH("pagerank accel save_kernel");
  }

  // After any step of a run of `every` (a WHILE trip shorter than the run):
  // the save that step's place asks for, and run_end on at the run's end.
  void launch_run_save(const accel_vec<T>& v, const pagerank_state* st, int every, pagerank_accel mode,
                       cudaGraphConditionalHandle run_end) {
    const rre_slots<T> rre = mode == pagerank_accel::rre ? window(every) : rre_slots<T>{};
    accel_detail::run_save_kernel<T><<<grid_, accel_detail::threads, 0, stream_>>>(
        v, hist_[0].data(), hist_[1].data(), hist_[2].data(), rre, n_, st, state_.data(), every,
        mode == pagerank_accel::aitken ? 1 : 0, run_end);
    PERRON_CUDA_CHECK_LAUNCH("pagerank accel run_save_kernel");
  }

  // After step `every` of a run: the safeguard (auto: the idle stop), then
  // r = the extrapolation (or r unchanged when skipped).
  void launch_extrapolate(pagerank_accel mode, int every, const accel_vec<T>& v, pagerank_state* st) {
    const bool gated = mode == pagerank_accel::automatic || mode == pagerank_accel::rre;
    accel_detail::check_kernel<T><<<grid_, accel_detail::threads, 0, stream_>>>(
        hist_[3].data(), v, n_, st, state_.data(), gated ? every : 0);
    PERRON_CUDA_CHECK_LAUNCH("pagerank accel check_kernel");
    if (mode == pagerank_accel::rre) {
      switch (accel::rre_window(every)) {
        case 3:
          return launch_rre<3>(v, st);
        case 4:
          return launch_rre<4>(v, st);
        case 5:
          return launch_rre<5>(v, st);
        case 6:
          return launch_rre<6>(v, st);
        case 7:
          return launch_rre<7>(v, st);
        default:
          return launch_rre<8>(v, st);
      }
    }
    const bool aitken = mode == pagerank_accel::aitken;
    if (aitken) {
      accel_detail::sums_kernel<T><<<grid_, accel_detail::threads, 0, stream_>>>(
          hist_[1].data(), hist_[2].data(), v, n_, st, state_.data(), scratch_a_.partials(),
          scratch_a_.counter());
      PERRON_CUDA_CHECK_LAUNCH("pagerank accel sums_kernel");
    } else {  // quadratic, or auto: quadratic behind its gate
      accel_detail::dots_kernel<T><<<grid_, accel_detail::threads, 0, stream_>>>(
          hist_[0].data(), hist_[1].data(), hist_[2].data(), v, n_, st, state_.data(), scratch_a_.partials(),
          scratch_a_.counter(), scratch_b_.partials(), scratch_b_.counter(), gated ? 1 : 0);
      PERRON_CUDA_CHECK_LAUNCH("pagerank accel dots_kernel");
    }
    accel_detail::write_kernel<T><<<grid_, accel_detail::threads, 0, stream_>>>(
        hist_[1].data(), hist_[2].data(), v, hist_[3].data(), n_, st, state_.data(), aitken ? 1 : 0);
    PERRON_CUDA_CHECK_LAUNCH("pagerank accel write_kernel");
  }

  accel_state* state() { return state_.data(); }
  // x_{k-3+which} of the run (the spmv pull's update kernel writes them itself).
  T* history(int which) { return hist_[which].data(); }
  std::size_t device_bytes() const {
    return 4 * hist_[0].bytes() + state_.bytes() + 2 * scratch_bytes + window_.bytes() +
           (rre_scratch_ ? rre_scratch_bytes : 0);
  }

 private:
  static constexpr std::size_t scratch_bytes =
      cuda::reduction_scratch::max_blocks * cuda::reduction_scratch::max_values * sizeof(double);
  static constexpr std::size_t rre_scratch_bytes =
      cuda::reduction_scratch::max_blocks * accel_detail::accel_rre_values * sizeof(double);

  template <int W>
  void launch_rre(const accel_vec<T>& v, pagerank_state* st) {
    accel_detail::rre_dots_kernel<T, W><<<grid_, accel_detail::threads, 0, stream_>>>(
        window_.data(), v, n_, st, state_.data(), rre_scratch_->partials(), rre_scratch_->counter());
    PERRON_CUDA_CHECK_LAUNCH("pagerank accel rre_dots_kernel");
    accel_detail::rre_weights_kernel<W><<<1, 1, 0, stream_>>>(st, state_.data());
    PERRON_CUDA_CHECK_LAUNCH("pagerank accel rre_weights_kernel");
    accel_detail::rre_write_kernel<T, W>
        <<<grid_, accel_detail::threads, 0, stream_>>>(window_.data(), v, n_, st, state_.data());
    PERRON_CUDA_CHECK_LAUNCH("pagerank accel rre_write_kernel");
  }

  index_t n_;
  cudaStream_t stream_;
  unsigned grid_ = 1;
  cuda::device_buffer<T> hist_[4];  // x_{k-3}, x_{k-2}, x_{k-1}; x_k kept by the last extrapolation
  cuda::device_buffer<accel_state> state_;
  cuda::reduction_scratch scratch_a_, scratch_b_;
  cuda::device_buffer<T> window_;                         // rre: x_{k-W} .. x_{k-1}, n apart
  std::unique_ptr<cuda::reduction_scratch> rre_scratch_;  // rre: room for its sums
};

}  // namespace perron::pagerank_gpu
