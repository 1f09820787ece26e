// The fused pull's per-step device work (pagerank_fused.cuh gives the math and
// the layout), shared by the fused step (one launch per step,
// pagerank_fused.cu) and the persistent kernel (the whole solve in one launch,
// pagerank_persistent.cu). `coherent`: x is rewritten by other blocks during
// the launch (persistent), so it is read through L2 rather than the read-only
// path.
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>
#include <type_traits>

#include "core/cuda/reduce.cuh"
#include "core/device.hpp"
#include "solvers/cuda/pagerank_fused.cuh"

namespace perron::pagerank_gpu {

// The kernels' view of a fused_pull (declared in the header).
template <class T>
struct fused_args {
  const index_t* col;  // the links, slice by slice, column-major within a slice
  // The same links in 16 bits (pagerank_fused.cuh, "16-bit index"), at the
  // same positions as col: a lane's columns ascend, and each word holds the
  // low 15 bits of the difference from the lane's previous column (for its
  // first, from its base: index16_first), and in bit 15 whether the
  // difference has more; those high bits (difference >> 15, < 2^16 since ids
  // are below 2^31) follow each other in `high`, a slice's lanes in lane
  // order from high_start[q], a lane finding its first from the escape
  // counts of the lanes before it. vlen16 replaces vlen there: each virtual
  // row's links in its low byte, its escapes and its first base in the high
  // byte (index16_vlen), so the lengths and the counts are one load, with no
  // stream of counts of their own.
  const unsigned short* word;  // null where the pull runs col
  const unsigned short* high;
  const unsigned* high_start;    // slices + 1
  const unsigned short* vlen16;  // 32 slices + 1: links, escapes and base of each virtual row
  const unsigned* slice_start;   // slices + 1: first stored entry of each slice (32 x its width apart)
  const index_t* vrow;           // 32 slices + 1: the row of each virtual row (n past the last)
  const unsigned short* vlen;    // 32 slices + 1: links of each virtual row (0 past the last)
  const index_t* deg;            // n: out-degree, 0 for dangling
  const index_t* parts;          // n: slices holding the row's virtual rows (> 1: cut)
  const index_t* first_slice;    // n: the slice holding the row's first virtual row
  unsigned* count;               // n: partials received this step, for cut rows
  double* tail;                  // per slice: partial of the row that goes on after it
  double* head;                  // per slice: partial of the row that began before it and ends in it
  T* x0;                         // x_k for even k
  T* x1;                         // x_k for odd k
  const T* v;                    // personalization in the relabelled order
  index_t slices;
  index_t n;
  int hub;
  // pull_slices: block b takes the b-th run of ceil(slices / grid) slices
  // (true) or slices b, b + grid, ... (false). The fused step in a windowed
  // order (fused_pull::launch_step) runs the first: neighbouring ids on one
  // SM, whose L1 then holds the x of their common neighbours.
  bool contiguous = false;
};

// One block per SM: one copy of the hub per SM.
constexpr int step_threads = 1024;
constexpr int step_warps = step_threads / 32;
static_assert(step_warps == 32, "the step's block sums take one warp's sum per lane");
// Links a lane loads before it gathers them (all independent: the memory
// level parallelism of a warp).
constexpr int unroll = 8;
// High halves of the 16-bit index a lane asks for with each batch's words
// (fused_args::word): a batch has more than 4 escapes in about 1% of
// batches at R-MAT 26's 20% escaped links.
constexpr int prefetch = 4;

// The 16-bit index's differences: below index16_limit a word holds one whole.
constexpr unsigned index16_limit = 0x8000u;
// A virtual row's first difference is taken from 0 or, where its vlen16 word
// has index16_near_base, from its row's id less 2^14: the builder takes the
// row only where the first column escapes from 0 (it is 2^15 or more) and
// not from the row (it lies in [row - 2^14, row + 2^14)), so that base is
// never negative nor past the first column. In the in-degree order a row's
// first column is a popular source, a small id: from 0. In an order where
// links join near ids (a web graph's sites, the fused pull's own order) it
// lies within 2^14 of its row: from the row. From 0 alone nearly every
// virtual row past 2^15 ids escaped its first link there: 0.12-0.15 escapes a
// link on the web graphs, 0.07-0.10 with the row's base (counted on the CPU,
// docs/PERFORMANCE.md, sessions 85-86).
// vlen16: links (bits 0-7), escapes (bits 8-14: virtual rows of at most
// index16_max_links links) and the base (bit 15).
constexpr unsigned index16_max_links = 0x7fu;
constexpr unsigned index16_near_base = 0x8000u;
__host__ __device__ constexpr unsigned short index16_vlen(unsigned links, unsigned escapes, bool near) {
  return static_cast<unsigned short>(links | escapes << 8 | (near ? index16_near_base : 0u));
}
__host__ __device__ constexpr unsigned index16_len_of(unsigned v) { return v & 0xffu; }
__host__ __device__ constexpr unsigned index16_escapes_of(unsigned v) { return (v >> 8) & index16_max_links; }
__host__ __device__ constexpr unsigned index16_first(index_t row, bool near) {
  return near ? static_cast<unsigned>(row) - (index16_limit >> 1) : 0u;
}

// A thread's shares of ||x_{k+1} - x_k||_1 and of the dangling mass, as
// 64-bit counts of 2^-60 (core/cuda/reduce.cuh): warps take slices in whatever
// order they finish and a cut row is finished by whichever slice arrives
// last, so a thread's terms vary from run to run; integer sums of them do not
// depend on that order, so the totals are the same bits every run.
struct step_sums {
  cuda::detail::fixed60 l1 = 0, dangling = 0;
};

// What a step reads of row R besides its pull: out-degree, x_k(R), v(R).
template <class T>
struct row_data {
  index_t d;
  T x;
  double v;
};

// x_k(j): through the read-only path where x is constant for the launch (the
// fused step); where other blocks rewrite it during the launch (the persistent
// kernel) the read-only path is not coherent with those writes, so a weak load
// cached in L1 (ld.global.ca): every read of x_k follows the grid barrier that
// ordered its writes, whose acquire (ld.acquire.gpu) makes them visible to
// weak loads after it (the PTX memory model; the SM's L1 is invalidated
// there), and repeated gathers of an entry within a step then hit L1 instead
// of paying an L2 round trip each (the first version read through L2, __ldcg).
template <bool coherent, class T>
__device__ __forceinline__ T load_x(const T* p) {
  if constexpr (coherent)
    return __ldca(p);
  else
    return __ldg(p);
}

template <bool coherent, class T>
__device__ __forceinline__ row_data<T> load_row(const fused_args<T>& a, const T* __restrict__ x, index_t R,
                                                bool personalized, double v_uniform) {
  return {__ldg(a.deg + R), load_x<coherent>(x + R),
          personalized ? static_cast<double>(__ldg(a.v + R)) : v_uniform};
}

// Row R's pull is y: writes x_{k+1}(R) and adds to the sums. Every sum of a
// row is in double whatever T is (a lane's links, the lanes' segmented scan,
// a cut row's slice partials), because a float sum of x values that are
// mostly equal rounds the same way at every addition: on hub:1000000:200000
// (10^6 links into one dangling vertex; x(j) = c_k / n / d_j for the 80% of
// vertices with no in-link) each lane's 64-term sum erred by up to ~60 ulps in
// the same direction, so the hub's row carried errors up to ~1e-6 that jump
// with tiny changes of c_k. The float iterate then settles on a 2-cycle
// (even and odd steps at two different fixed points of the rounded two-step
// map hub -> c -> x -> hub) with the residual flat at 1.35e-6 above tol 1e-6,
// to max_iter. An emulation of this arithmetic on the CPU
// (scripts/fused_float_emulation.cpp: eight random graphs of that shape)
// stalled at 1.29-1.44e-6 in four of them with float sums, and also with
// float lanes under a double scan; with every sum in double the residual's
// floor was 0.8-2.4e-7 in all eight (the float rounding of x itself).
// The pulls' iterate of a vertex of rank r and out-degree d: x = r / d, r
// itself for a dangling vertex, rounded to T (init_x and the persistent
// kernel's own start write x_0 with it).
template <class T>
__device__ __forceinline__ T x_of_rank(double r, index_t d) {
  return static_cast<T>(d > 0 ? r / d : r);
}

// update_row() returns x_{k+1}(R); finish_row() stores it (the persistent
// pull's cluster mode stores it into every block's copy of x instead).
template <class T>
__device__ __forceinline__ T update_row(double y, row_data<T> rd, double alpha, double c, step_sums& s) {
  const index_t d = rd.d;
  // The rounding spelled out: left to contract alpha y + c v itself, nvcc
  // fused it one way where contribute() finishes a cut row and the other way
  // in the cluster mode's finish (different bits in double between the
  // persistent pull's modes).
  const double r = __fma_rn(alpha, y, __dmul_rn(c, rd.v));
  const double xo = static_cast<double>(rd.x);
  if (d > 0) {
    const T xs = static_cast<T>(r / d);
    s.l1 += cuda::detail::to_fixed60(d * fabs(static_cast<double>(xs) - xo));  // |r~_{k+1} - r~_k|
    return xs;
  }
  const T xs = static_cast<T>(r);
  s.l1 += cuda::detail::to_fixed60(fabs(static_cast<double>(xs) - xo));
  s.dangling += cuda::detail::to_fixed60_signed(static_cast<double>(xs));  // below 0 after an extrapolation
  return xs;
}

template <class T>
__device__ __forceinline__ void finish_row(T* __restrict__ xn, index_t R, double y, row_data<T> rd,
                                           double alpha, double c, step_sums& s) {
  xn[R] = update_row(y, rd, alpha, c, s);
}

// What finishing a cut row needs besides its partials: its slices
// t0 .. t0 + parts - 1 and its data.
template <class T>
struct cut_facts {
  index_t parts = 1, t0 = 0;
  row_data<T> rd{};
};

// A slice's partial of a cut row (one whose virtual rows lie in more than one
// slice) is in its slot, written by lane 0. The last partial to arrive (a
// per-row counter) sums the slots in slice order (lanes take slots
// round-robin, then a butterfly: a fixed order) and finishes the row. Called
// by the whole warp.
//
// In the persistent kernel (`coherent`) the row's facts come in hand
// (finish_slice() asks for them before the slice's scan), the counter's
// acq_rel in lane 0 and a warp barrier order every lane's loads of the slots
// after the other slices' releases (a barrier orders memory among the
// threads it joins: the PTX memory model), and the head's slot is loaded
// with the tails: the last arrival waits for two L2 round trips, the
// counter and the slots, where it waited for five (the facts, the counter,
// a device fence, the tails, then the head and the row's data); 9-13% off a
// step of skewed 10^5-link graphs. The fused step keeps that older form:
// with the facts ahead it measured 12% slower on rmat:20:10000000 (40.2 ->
// 45.2 us a step), for a reason not found (docs/PERFORMANCE.md, session 35).
template <bool coherent, class T>
__device__ void contribute(const fused_args<T>& a, index_t R, cut_facts<T> f, const T* __restrict__ x,
                           T* __restrict__ xn, double alpha, double c, bool personalized, double v_uniform,
                           step_sums& s) {
  const int lane = threadIdx.x & 31;
  if constexpr (!coherent) {
    f.parts = __ldg(a.parts + R);
    f.t0 = __ldg(a.first_slice + R);
  }
  const index_t t1 = f.t0 + f.parts - 1;
  unsigned last = 0;
  if (lane == 0) {  // release: lane 0's slot before the count; acquire: the others' slots
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> count(a.count[R]);
    const unsigned arrived = count.fetch_add(1u, ::cuda::memory_order_acq_rel);
    last = arrived + 1 == static_cast<unsigned>(f.parts);
  }
  if (!__shfl_sync(0xffffffffu, last, 0)) return;
  if constexpr (coherent)
    __syncwarp();  // every lane's slot loads after lane 0's acquire
  else
    ::cuda::atomic_thread_fence(::cuda::memory_order_acquire, ::cuda::thread_scope_device);
  double y = 0, head = 0;
  if (coherent && lane == 0) head = __ldcg(a.head + t1);
  for (index_t t = f.t0 + lane; t < t1; t += 32) y += __ldcg(a.tail + t);
  for (int off = 16; off > 0; off >>= 1) y += __shfl_xor_sync(0xffffffffu, y, off);
  if (lane != 0) return;
  if constexpr (!coherent) {
    head = __ldcg(a.head + t1);
    f.rd = load_row<coherent>(a, x, R, personalized, v_uniform);
  }
  y += head;
  a.count[R] = 0;
  finish_row(xn, R, y, f.rd, alpha, c, s);
}

// The rows just outside slice q, which tell whether its first row began
// before it and its last row goes on after it: lane 0 gets the row before the
// slice (-1 before slice 0), lane 31 the row after it (n past the last), the
// other lanes their own row R.
__device__ __forceinline__ index_t slice_outside(const index_t* vrow, index_t q, index_t R) {
  const int lane = threadIdx.x & 31;
  if (lane == 0) return q > 0 ? __ldg(vrow + q * 32 - 1) : -1;
  if (lane == 31) return __ldg(vrow + q * 32 + 32);
  return R;
}

// After a slice's sums: a segmented inclusive scan over the lanes joins each
// row's virtual rows (they are consecutive, so equal keys are contiguous; a
// fixed order), and the lane holding a row's sum over the slice updates it,
// or, for a row cut by the slice's ends, hands the partial to contribute().
// The scan adds in double (finish_row says why). `outside` is
// slice_outside()'s. Called by the whole warp.
// What the scan of a slice gives each lane: the sum of its row over the
// slice (its virtual row and the lanes before it of the same row), whether it
// finishes that row here, and the slice's cut rows (warp-uniform).
struct slice_scan {
  double sum;
  bool finishes;       // this lane holds an uncut row's whole sum: update it
  unsigned head_lane;  // ballot: the lane holding the sum of the row that began before the slice
  bool tail_cut;       // lane 31's row goes on in the next slice
  index_t first_row, last_row;
};

__device__ __forceinline__ slice_scan scan_slice(index_t n, index_t R, index_t outside, double acc) {
  constexpr unsigned full = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  slice_scan r;
  r.sum = acc;
  // Where no two lanes share a row (every row of the slice in one virtual
  // row: most slices but those of the longest rows) the scan adds nothing:
  // skipped, 45 of a slice's ~330 instructions on a chain, whose steps are
  // bound by instruction issue (docs/PERFORMANCE.md, session 38). Empty lanes
  // (row n, no links, finishing nothing) may share their row.
  const index_t before = __shfl_up_sync(full, R, 1);
  if (__any_sync(full, lane > 0 && before == R && R < n)) {
    // The first round's key is `before`: one shuffle of R fewer.
    const double o1 = __shfl_up_sync(full, r.sum, 1);
    if (lane >= 1 && before == R) r.sum += o1;
#pragma unroll
    for (int off = 2; off < 32; off <<= 1) {
      const double o = __shfl_up_sync(full, r.sum, off);
      const index_t key = __shfl_up_sync(full, R, off);
      if (lane >= off && key == R) r.sum += o;
    }
  }
  r.first_row = __shfl_sync(full, R, 0);
  r.last_row = __shfl_sync(full, R, 31);
  const bool head_cut = __shfl_sync(full, outside, 0) == r.first_row;
  r.tail_cut = r.last_row < n && __shfl_sync(full, outside, 31) == r.last_row;  // warp-uniform
  const index_t next = __shfl_down_sync(full, R, 1);
  const bool seg_end = lane == 31 || next != R;  // this lane holds its row's sum over the slice
  const bool is_tail = seg_end && r.tail_cut && R == r.last_row;
  const bool is_head = seg_end && head_cut && R == r.first_row && !is_tail;
  r.finishes = seg_end && !is_tail && !is_head && R < n;
  r.head_lane = __ballot_sync(full, is_head);
  return r;
}

// The facts of a row of this lane (0 or 31) that the slice's end cuts
// (`outside` is that row), in the persistent kernel: asked for before the
// scan so that they arrive during it (contribute() says why).
template <bool coherent, class T>
__device__ __forceinline__ cut_facts<T> cut_facts_ahead(const fused_args<T>& a, index_t R, index_t outside,
                                                        row_data<T> rd) {
  const int lane = threadIdx.x & 31;
  cut_facts<T> f;
  if constexpr (coherent) {
    if ((lane == 0 || lane == 31) && R < a.n && outside == R) {
      f.parts = __ldg(a.parts + R);
      f.t0 = __ldg(a.first_slice + R);
    }
    f.rd = rd;
  }
  return f;
}

template <class T>
__device__ __forceinline__ cut_facts<T> shfl_facts(cut_facts<T> f, int from) {
  constexpr unsigned full = 0xffffffffu;
  return {
      __shfl_sync(full, f.parts, from),
      __shfl_sync(full, f.t0, from),
      {__shfl_sync(full, f.rd.d, from), __shfl_sync(full, f.rd.x, from), __shfl_sync(full, f.rd.v, from)}};
}

template <bool coherent, class T>
__device__ __forceinline__ void finish_slice(const fused_args<T>& a, index_t q, index_t R, index_t outside,
                                             double acc, row_data<T> rd, const T* __restrict__ x,
                                             T* __restrict__ xn, double alpha, double c, bool personalized,
                                             double v_uniform, step_sums& s) {
  constexpr unsigned full = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const cut_facts<T> cf = cut_facts_ahead<coherent>(a, R, outside, rd);
  const slice_scan sc = scan_slice(a.n, R, outside, acc);
  if (sc.finishes) finish_row(xn, R, sc.sum, rd, alpha, c, s);
  if (sc.head_lane) {  // the row that began before this slice ends in it: lane 0's row
    const double h = __shfl_sync(full, sc.sum, __ffs(sc.head_lane) - 1);
    if (lane == 0) a.head[q] = h;
    // Lane 0 finishes it: its own facts' rd; the slices to every lane.
    cut_facts<T> f = cf;
    if constexpr (coherent) {
      f.parts = __shfl_sync(full, cf.parts, 0);
      f.t0 = __shfl_sync(full, cf.t0, 0);
    }
    contribute<coherent>(a, sc.first_row, f, x, xn, alpha, c, personalized, v_uniform, s);
  }
  if (sc.tail_cut) {  // the row goes on in the next slice: lane 31's row
    const double t = __shfl_sync(full, sc.sum, 31);
    if (lane == 0) a.tail[q] = t;
    cut_facts<T> f = cf;
    if constexpr (coherent) f = shfl_facts(cf, 31);
    contribute<coherent>(a, sc.last_row, f, x, xn, alpha, c, personalized, v_uniform, s);
  }
}

// The first `count` entries of x into the block's shared hub: 16-byte loads,
// up to 8 per thread in flight before any store (a plain copy loop waits on
// each load in turn). count is a multiple of 32 (whole 16-byte vectors).
template <bool coherent, class T>
__device__ __forceinline__ void load_hub(T* hub, const T* x, int count) {
  using vec = typename std::conditional<sizeof(T) == 4, float4, double2>::type;
  const vec* src = reinterpret_cast<const vec*>(x);
  vec* dst = reinterpret_cast<vec*>(hub);
  const int vecs = count / static_cast<int>(sizeof(vec) / sizeof(T));
  for (int base = threadIdx.x; base < vecs; base += 8 * step_threads) {
    vec v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (base + j * step_threads < vecs) v[j] = load_x<coherent>(src + base + j * step_threads);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (base + j * step_threads < vecs) dst[base + j * step_threads] = v[j];
  }
}

// Adds x over a batch of a lane's links cj[0..unroll) (those of them below
// len from j) to acc in order, each one load from the hub or from x, all in
// flight.
template <bool coherent, class T>
__device__ __forceinline__ void gather_links(const fused_args<T>& a, const T* __restrict__ x, const T* hub,
                                             const index_t (&cj)[unroll], unsigned j, unsigned len,
                                             double& acc) {
#pragma unroll
  for (int u = 0; u < unroll; ++u)
    if (j + u < len) {
      if constexpr (coherent)
        acc += static_cast<double>(cj[u] < a.hub ? hub[cj[u]] : load_x<true>(x + cj[u]));
      else
        acc += static_cast<double>(*(cj[u] < a.hub ? hub + cj[u] : x + cj[u]));  // one generic load
    }
}

// One step's pull over the block's slices, x_k -> x_{k+1}, adding to s. The
// hub (a.hub entries of x_k) is in shared memory and next_slice was set to
// step_warps, both before a __syncthreads. Block b takes slices b, b + grid,
// b + 2 grid, ...: every block gets the same mix of long and short rows (in
// the in-degree order, rows sorted by length), or with a.contiguous the b-th
// run of consecutive slices (a windowed order: neighbouring ids, whose
// gathers then share the SM's L1; lengths mixed within every run). Its
// warps take them in that order from the shared counter, the longest first. `packed`: the links are read from
// the 16-bit words (a.word) instead of a.col. `whole`: the fused step's loop of whole batches
// (fused_loop::whole); otherwise each batch is tested a link.
template <bool coherent, class T, bool packed = false, bool whole = true>
__device__ __forceinline__ void pull_slices(const fused_args<T>& a, const T* __restrict__ x,
                                            T* __restrict__ xn, const T* hub, unsigned& next_slice,
                                            double alpha, double c, bool personalized, double v_uniform,
                                            step_sums& s) {
  constexpr unsigned full = 0xffffffffu;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const index_t n = a.n;
  const index_t grid = static_cast<index_t>(gridDim.x);
  const index_t run = a.contiguous ? (a.slices + grid - 1) / grid : 1;
  const index_t first = static_cast<index_t>(blockIdx.x) * run, stride = a.contiguous ? 1 : grid;
  const index_t end = a.contiguous ? min(first + run, a.slices) : a.slices;
  for (unsigned i = warp;;) {
    const index_t q = first + static_cast<index_t>(i) * stride;
    if (q >= end) break;
    unsigned grab = 0;
    if (lane == 0) grab = atomicAdd(&next_slice, 1u);  // the next one, asked for now
    const unsigned p0 = __ldg(a.slice_start + q), width = (__ldg(a.slice_start + q + 1) - p0) >> 5;
    const index_t R = __ldg(a.vrow + q * 32 + lane);  // this lane's virtual row's row and length
    const unsigned vl = packed ? __ldg(a.vlen16 + q * 32 + lane) : __ldg(a.vlen + q * 32 + lane);
    const unsigned len = packed ? index16_len_of(vl) : vl;
    // The lane's row's data, asked for now so that it arrives with the links.
    row_data<T> rd{};
    if (R < n) rd = load_row<coherent>(a, x, R, personalized, v_uniform);
    // The lane's links: entry j of its virtual row at p0 + 32 j + lane (a warp
    // reads 128 contiguous bytes per j), `unroll` loads in flight before the
    // gathers, each one load from the hub or from x.
    double acc = 0;  // finish_row says why double
    if constexpr (!packed && !coherent && whole) {
      // The fused step's whole loop: the lane's whole batches with no test a
      // link, then its last part batch; the same loads, added in the same
      // order. Tested a link (the loop below), each of the eight re-derived
      // its addresses and the hub's generic window under its predicate,
      // about 30 instructions a link (SASS, sm_90): a step of 1000-link rows
      // streamed its indices at 1.7 TB/s, csr-vector twice the bytes in the
      // same time. Yet on some graphs the tested loop is faster (fused_loop).
      const index_t* __restrict__ cp = a.col + p0 + lane;
      unsigned j = 0;
      for (; j + unroll <= len; j += unroll, cp += unroll * 32) {
        index_t cj[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u) cj[u] = __ldcs(cp + u * 32);
        gather_links<coherent>(a, x, hub, cj, 0u, static_cast<unsigned>(unroll), acc);
      }
      if (j < len) {
        index_t cj[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u)
          if (j + u < len) cj[u] = __ldcs(cp + u * 32);
        gather_links<coherent>(a, x, hub, cj, j, len, acc);
      }
    } else if constexpr (!packed) {
      // The fused step's tested loop and the persistent kernel's streamed
      // mode: the warp's batches together to the slice's width, each link
      // tested. The loop above measured 1-16% slower in the streamed mode
      // (H200, rmat:12:4000000 9.0 -> 10.4 us a step, er:100000:1000000 12.9
      // -> 14.1; docs/PERFORMANCE.md, session 54).
      const index_t* __restrict__ cp = a.col + p0 + lane;
      for (unsigned j = 0; j < width; j += unroll) {
        index_t cj[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u)
          if (j + u < len) cj[u] = __ldcs(cp + (j + u) * 32);
        gather_links<coherent>(a, x, hub, cj, j, len, acc);
      }
    } else {
      // The lane's first high half: the slice's first plus the lanes' before it.
      const unsigned mine = index16_escapes_of(vl);
      unsigned before = mine;
#pragma unroll
      for (int off = 1; off < 32; off <<= 1) {
        const unsigned o = __shfl_up_sync(full, before, off);
        if (lane >= off) before += o;
      }
      const unsigned short* __restrict__ hp = a.high + __ldg(a.high_start + q) + (before - mine);
      const unsigned short* __restrict__ wp = a.word + p0 + lane;
      unsigned col = index16_first(R, vl & index16_near_base);
      unsigned left = mine;  // the lane's high halves not yet used
      // One batch from wp: full_batch (eight words, no test a word, as the 32-bit
      // loop's) or the lane's last part from position j.
      const auto batch = [&](auto full_batch, unsigned j) {
        unsigned w[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u) w[u] = full_batch || j + u < len ? __ldcs(wp + u * 32) : 0u;
        // The batch's high halves are the lane's next ones, in order: the
        // first prefetch of them are asked for with the words (their
        // addresses do not wait for the flags), the rare rest after.
        unsigned hv[prefetch];
#pragma unroll
        for (int t = 0; t < prefetch; ++t) hv[t] = static_cast<unsigned>(t) < left ? __ldg(hp + t) : 0u;
        unsigned flags = 0;
#pragma unroll
        for (int u = 0; u < unroll; ++u) flags |= ((w[u] >> 15) & 1u) << u;
        index_t cj[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
          unsigned hi = 0;
          if (w[u] & 0x8000u) {
            const int r = __popc(flags & ((1u << u) - 1u));  // escapes before it in the batch
#pragma unroll
            for (int t = 0; t < prefetch && t <= u; ++t)
              if (r == t) hi = hv[t];
            if (u >= prefetch && r >= prefetch) hi = __ldg(hp + r);
          }
          col += (w[u] & 0x7fffu) | (hi << 15);
          cj[u] = static_cast<index_t>(col);
        }
        const int h = __popc(flags);
        hp += h;
        left -= static_cast<unsigned>(h);
        if constexpr (decltype(full_batch)::value)
          gather_links<coherent>(a, x, hub, cj, 0u, static_cast<unsigned>(unroll), acc);
        else
          gather_links<coherent>(a, x, hub, cj, j, len, acc);
      };
      unsigned j = 0;
      for (; j + unroll <= len; j += unroll, wp += unroll * 32) batch(std::true_type{}, 0u);
      if (j < len) batch(std::false_type{}, j);
      (void)width;
    }
    finish_slice<coherent>(a, q, R, slice_outside(a.vrow, q, R), acc, rd, x, xn, alpha, c, personalized,
                           v_uniform, s);
    i = __shfl_sync(full, grab, 0);
  }
}

// The block's sums, exactly (integers; then one conversion at the end of the
// grid's sum), in warp 0. Every thread calls it; true in thread 0, whose s
// then holds the block's totals.
__device__ __forceinline__ bool block_sums(step_sums& s) {
  constexpr unsigned full = 0xffffffffu;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  __shared__ cuda::detail::fixed60 warp_l1[step_warps], warp_dangling[step_warps];
  for (int off = 16; off > 0; off >>= 1) {
    s.l1 += __shfl_down_sync(full, s.l1, off);
    s.dangling += __shfl_down_sync(full, s.dangling, off);
  }
  if (lane == 0) {
    warp_l1[warp] = s.l1;
    warp_dangling[warp] = s.dangling;
  }
  __syncthreads();
  if (warp != 0) return false;
  s.l1 = warp_l1[lane];  // step_warps == 32: one per lane
  s.dangling = warp_dangling[lane];
  for (int off = 16; off > 0; off >>= 1) {
    s.l1 += __shfl_down_sync(full, s.l1, off);
    s.dangling += __shfl_down_sync(full, s.dangling, off);
  }
  return lane == 0;
}

}  // namespace perron::pagerank_gpu
