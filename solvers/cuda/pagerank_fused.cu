// The fused pattern pull (pagerank_fused.cuh gives the math and the layout).
#include "solvers/cuda/pagerank_fused.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "kernels/cuda/check.cuh"
#include "kernels/error.hpp"

namespace perron::pagerank_gpu {

// The kernels' view of a fused_pull (declared in the header).
template <class T>
struct fused_args {
  const index_t* row_ptr;       // n + 1, relabelled P^T
  const index_t* col;           // nnz, relabelled
  const unsigned* tile_start;   // tiles + 1: first item of each tile (tile_start[tiles] = n + nnz < 2^32)
  const index_t* lane_row;      // 32 tiles + 1: the row at lane g's first item
  const index_t* deg;           // n: out-degree, 0 for dangling
  const index_t* parts;         // n: tiles holding items of the row (> 1: cut)
  const index_t* first_tile;    // n: the tile holding the row's first item
  unsigned* count;              // n: partials received this step, for cut rows
  T* tail;                      // per tile: partial of the row still open at its end
  T* head;                      // per tile: partial of the row open at its start that ends in it
  T* x0;                        // x_k for even k
  T* x1;                        // x_k for odd k
  const T* v;                   // personalization in the relabelled order
  index_t tiles;
  index_t n;
  int hub;
};

namespace {


// One block per SM: one copy of the hub per SM. (768 and 512 threads, with
// more registers each and room for a larger hub, measured slower on the H100.)
constexpr int step_threads = 1024;
constexpr int step_warps = step_threads / 32;
constexpr int items = 8;             // merge-path items per lane
constexpr int tile_items = 32 * items;  // per warp
constexpr int setup_threads = 256;

int blocks_for(long long count) {
  return static_cast<int>(std::max<long long>(1, std::min<long long>((count + setup_threads - 1) / setup_threads, 1 << 20)));
}

// Per warp: the sums of the rows a tile closes (at most tile_items), rounded
// to 16 bytes. Everything else of a tile lives in registers.
template <class T>
constexpr std::size_t warp_scratch_bytes() {
  return ((tile_items + 1) * sizeof(T) + 15) / 16 * 16;
}

// ---- setup ------------------------------------------------------------------

__global__ void count_degrees(std::size_t nnz, const index_t* __restrict__ col, index_t* __restrict__ deg) {
  for (std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; q < nnz;
       q += std::size_t(gridDim.x) * blockDim.x)
    atomicAdd(deg + col[q], 1);
}

__global__ void iota(index_t n, index_t* __restrict__ out) {
  for (index_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = i;
}

// new_id[perm[k]] = k; len[k] = length of old row perm[k] (len[n] = 0 for the scan).
__global__ void relabel_rows(index_t n, const index_t* __restrict__ perm, const index_t* __restrict__ row_ptr,
                             index_t* __restrict__ new_id, index_t* __restrict__ len) {
  for (index_t k = blockIdx.x * blockDim.x + threadIdx.x; k <= n; k += gridDim.x * blockDim.x) {
    if (k == n) {
      len[n] = 0;
      continue;
    }
    const index_t j = perm[k];
    new_id[j] = k;
    len[k] = row_ptr[j + 1] - row_ptr[j];
  }
}

// One warp per new row: its links, renamed.
__global__ void relabel_links(index_t n, const index_t* __restrict__ perm, const index_t* __restrict__ row_ptr,
                              const index_t* __restrict__ col, const index_t* __restrict__ new_id,
                              const index_t* __restrict__ new_row_ptr, index_t* __restrict__ new_col) {
  const int lane = threadIdx.x & 31;
  for (long long k = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; k < n;
       k += (gridDim.x * (long long)blockDim.x) >> 5) {
    const index_t src = row_ptr[perm[k]], dst = new_row_ptr[k], len = new_row_ptr[k + 1] - dst;
    for (index_t t = lane; t < len; t += 32) new_col[dst + t] = new_id[col[src + t]];
  }
}

// The tile holding item position p: the last t with tile_start[t] <= p.
__device__ index_t tile_of(const unsigned* __restrict__ tile_start, index_t tiles, unsigned p) {
  index_t lo = 0, hi = tiles - 1;
  while (lo < hi) {
    const index_t mid = lo + (hi - lo + 1) / 2;
    if (tile_start[mid] <= p)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Item positions: row R's end item sits at row_ptr[R + 1] + R, which is below
// 2^32 because row_ptr and R are both index_t.
__device__ __forceinline__ unsigned end_item(const index_t* __restrict__ row_ptr, index_t r) {
  return static_cast<unsigned>(row_ptr[r + 1]) + static_cast<unsigned>(r);
}

// Lane l of tile t starts at item min(tile_start[t] + l items, tile_start[t + 1]);
// lane_row[32 t + l] = the number of rows whose end item lies before it.
__global__ void find_lane_rows(index_t tiles, const unsigned* __restrict__ tile_start, index_t n,
                               const index_t* __restrict__ row_ptr, index_t* __restrict__ lane_row) {
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g <= 32LL * tiles;
       g += gridDim.x * (long long)blockDim.x) {
    const long long t = g / 32;
    const unsigned d =
        t == tiles ? tile_start[tiles] : std::min(tile_start[t] + static_cast<unsigned>(g % 32) * items, tile_start[t + 1]);
    index_t lo = 0, hi = n;
    while (lo < hi) {
      const index_t mid = lo + (hi - lo) / 2;
      if (end_item(row_ptr, mid) < d)
        lo = mid + 1;
      else
        hi = mid;
    }
    lane_row[g] = lo;
  }
}

// parts[R]: tiles from the one holding R's first item (first_tile[R]) to the
// one holding its end.
__global__ void count_parts(index_t n, index_t tiles, const unsigned* __restrict__ tile_start,
                            const index_t* __restrict__ row_ptr, index_t* __restrict__ parts,
                            index_t* __restrict__ first_tile) {
  for (index_t r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
    const index_t t0 = tile_of(tile_start, tiles, static_cast<unsigned>(row_ptr[r]) + static_cast<unsigned>(r));
    const index_t t1 = tile_of(tile_start, tiles, end_item(row_ptr, r));
    parts[r] = t1 - t0 + 1;
    first_tile[r] = t0;
  }
}

// dst[k] = src[perm[k]]
template <class T>
__global__ void gather_by(index_t n, const index_t* __restrict__ perm, const T* __restrict__ src, T* __restrict__ dst) {
  for (index_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) dst[k] = src[perm[k]];
}

// ---- the solve ----------------------------------------------------------------

// x_0 from r_0, and the dangling mass of the stored r~_0.
template <class T>
__global__ void __launch_bounds__(setup_threads)
    init_x(fused_args<T> a, const index_t* __restrict__ perm, const T* __restrict__ r0, int uniform,
           pagerank_state* st) {
  double dangling = 0.0;
  const double r_uniform = 1.0 / static_cast<double>(a.n);
  for (index_t k = blockIdx.x * blockDim.x + threadIdx.x; k < a.n; k += gridDim.x * blockDim.x) {
    const double r = uniform ? r_uniform : static_cast<double>(r0[perm[k]]);
    const index_t d = a.deg[k];
    const T x = static_cast<T>(d > 0 ? r / d : r);
    a.x0[k] = x;
    if (d == 0) dangling += static_cast<double>(x);
  }
  if (accumulate_grid<setup_threads>(make_double2(0.0, dangling), st)) close_init(st);
}

struct step_sums {
  double l1 = 0.0, dangling = 0.0;
};

// What a step reads of row R besides its pull: out-degree, x_k(R), v(R).
template <class T>
struct row_data {
  index_t d;
  T x;
  double v;
};

template <class T>
__device__ __forceinline__ row_data<T> load_row(const fused_args<T>& a, const T* __restrict__ x, index_t R,
                                                bool personalized, double v_uniform) {
  return {__ldg(a.deg + R), __ldg(x + R), personalized ? static_cast<double>(__ldg(a.v + R)) : v_uniform};
}

// Row R's pull is y: writes x_{k+1}(R) and adds to the sums.
template <class T>
__device__ __forceinline__ void finish_row(T* __restrict__ xn, index_t R, T y, row_data<T> rd, double alpha,
                                           double c, step_sums& s) {
  const index_t d = rd.d;
  const double r = alpha * static_cast<double>(y) + c * rd.v;
  const double xo = static_cast<double>(rd.x);
  if (d > 0) {
    const T xs = static_cast<T>(r / d);
    s.l1 += d * fabs(static_cast<double>(xs) - xo);  // |r~_{k+1} - r~_k| = d |x_{k+1} - x_k|
    xn[R] = xs;
  } else {
    const T xs = static_cast<T>(r);
    s.l1 += fabs(static_cast<double>(xs) - xo);
    s.dangling += static_cast<double>(xs);
    xn[R] = xs;
  }
}

// A tile's partial of a cut row (longer than a tile) is in its slot, written
// by lane 0. The last partial to arrive sums the slots in tile order (lanes
// take slots round-robin, then a butterfly: a fixed order) and finishes the
// row. Called by the whole warp.
template <class T>
__device__ void contribute(const fused_args<T>& a, index_t R, const T* __restrict__ x, T* __restrict__ xn,
                           double alpha, double c, bool personalized, double v_uniform, step_sums& s) {
  const int lane = threadIdx.x & 31;
  const index_t parts = __ldg(a.parts + R), t0 = __ldg(a.first_tile + R), t1 = t0 + parts - 1;
  unsigned last = 0;
  if (lane == 0) {  // release: lane 0's slot before the count
    const unsigned arrived =
        ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>(a.count[R]).fetch_add(1u, ::cuda::memory_order_acq_rel);
    last = arrived + 1 == static_cast<unsigned>(parts);
  }
  if (!__shfl_sync(0xffffffffu, last, 0)) return;
  ::cuda::atomic_thread_fence(::cuda::memory_order_acquire, ::cuda::thread_scope_device);  // every slot after the count
  T y = 0;
  for (index_t t = t0 + lane; t < t1; t += 32) y += __ldcg(a.tail + t);
  for (int off = 16; off > 0; off >>= 1) y += __shfl_xor_sync(0xffffffffu, y, off);
  if (lane != 0) return;
  y += __ldcg(a.head + t1);
  a.count[R] = 0;
  finish_row(xn, R, y, load_row(a, x, R, personalized, v_uniform), alpha, c, s);
}

// Tile t as lane `lane` sees it: its items [d0, d1) and the rows r0, r1 at
// their ends; its links are [d0 - r0, d1 - r1).
struct tile_lanes {
  unsigned d0 = 0, d1 = 0;
  index_t r0 = 0, r1 = 0;
  __device__ unsigned k0() const { return d0 - static_cast<unsigned>(r0); }
  __device__ unsigned k1() const { return d1 - static_cast<unsigned>(r1); }
};

template <class T>
__device__ __forceinline__ tile_lanes load_lanes(const fused_args<T>& a, index_t t, int lane) {
  const unsigned tile_d0 = __ldg(a.tile_start + t), tile_d1 = __ldg(a.tile_start + t + 1);
  tile_lanes m;
  m.d0 = min(tile_d0 + lane * items, tile_d1);
  m.d1 = min(m.d0 + items, tile_d1);
  const index_t g = t * 32 + lane;
  m.r0 = __ldg(a.lane_row + g);
  m.r1 = __ldg(a.lane_row + g + 1);
  return m;
}

// This lane's links [k0, k0 + 8) (some past its own end, read but unused),
// as three aligned 16-byte loads shifted by k0 mod 4. The col array is padded
// so that the last window stays inside it. Streamed: read once per step.
template <class T>
__device__ __forceinline__ void load_links(const fused_args<T>& a, unsigned k0, index_t (&c)[items]) {
  const int4* w = reinterpret_cast<const int4*>(a.col + (k0 & ~3u));
  const int4 w0 = __ldcs(w), w1 = __ldcs(w + 1), w2 = __ldcs(w + 2);
  index_t v[12] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w, w2.x, w2.y, w2.z, w2.w};
  const unsigned off = k0 & 3u;
  if (off & 1u) {
#pragma unroll
    for (int i = 0; i < 10; ++i) v[i] = v[i + 1];
  }
  if (off & 2u) {
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = v[i + 2];
  }
#pragma unroll
  for (int i = 0; i < items; ++i) c[i] = v[i];
}

template <class T>
__global__ void __launch_bounds__(step_threads, 1)
    fused_step(fused_args<T> a, pagerank_state* st, pagerank_progress* progress, cudaGraphConditionalHandle handle,
               int set_condition) {
  if (st->done) return;  // written by the previous launch's last block: uniform across this grid
  const int k = st->iteration;
  const T* __restrict__ x = (k & 1) ? a.x1 : a.x0;
  T* __restrict__ xn = (k & 1) ? a.x0 : a.x1;
  const double alpha = st->alpha;
  const double c = alpha * st->dangling + (1.0 - alpha);
  const bool personalized = st->personalized != 0;
  const double v_uniform = 1.0 / static_cast<double>(a.n);

  extern __shared__ __align__(16) unsigned char smem[];
  T* hub = reinterpret_cast<T*>(smem);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  // This warp's scratch: the sums of the rows a tile closes.
  T* row_sum = reinterpret_cast<T*>(smem + a.hub * sizeof(T) + warp * warp_scratch_bytes<T>());
  {
    // The hub: 16-byte loads, up to 8 per thread in flight before any store
    // (a plain copy loop waits on each load in turn: ~20 us for 33K floats).
    using vec = typename std::conditional<sizeof(T) == 4, float4, double2>::type;
    const vec* src = reinterpret_cast<const vec*>(x);
    vec* dst = reinterpret_cast<vec*>(hub);
    const int count = a.hub / static_cast<int>(sizeof(vec) / sizeof(T));
    for (int base = threadIdx.x; base < count; base += 8 * step_threads) {
      vec v[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (base + j * step_threads < count) v[j] = __ldg(src + base + j * step_threads);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (base + j * step_threads < count) dst[base + j * step_threads] = v[j];
    }
  }
  __syncthreads();

  constexpr unsigned full = 0xffffffffu;
  step_sums s;
  const index_t n = a.n;
  // (Loading the next tile's bounds one tile ahead, with its links asked of
  // L2 by cp.async.bulk.prefetch, measured 2-4% slower: the registers it
  // holds cost more than the latency it hides.)
  for (index_t t = static_cast<index_t>(blockIdx.x) * step_warps + warp; t < a.tiles;
       t += static_cast<index_t>(gridDim.x) * step_warps) {
    const tile_lanes m = load_lanes(a, t, lane);
    const unsigned k0 = m.k0(), k1 = m.k1();  // this lane's links [k0, k1): at most 8
    const index_t r0 = m.r0, r1 = m.r1;
    const unsigned tile_d0 = __shfl_sync(full, m.d0, 0), tile_d1 = __shfl_sync(full, m.d1, 31);
    // Rows [first_row, last_row) end in this tile; last_row (< n) is open at its end.
    const index_t first_row = __shfl_sync(full, r0, 0), last_row = __shfl_sync(full, r1, 31);
    const index_t rows = last_row - first_row;
    index_t cj[items];
    load_links(a, k0, cj);
    // The first 32 closed rows' data, loaded now so that it arrives with the links.
    row_data<T> early{};
    if (lane < rows) early = load_row(a, x, first_row + lane, personalized, v_uniform);
    const unsigned links = k1 - k0;
    T gx[items];
    // One generic load per link, from the hub or from x: no divergent branch
    // (1-3% faster on the H100 than a branch with LDS / LDG, or than both
    // loads predicated).
#pragma unroll
    for (int j = 0; j < items; ++j)
      if (j < links) gx[j] = *(cj[j] < a.hub ? hub + cj[j] : x + cj[j]);

    // This lane's walk over its links: row R closes before link row_ptr[R + 1]
    // (rows r0 .. r1 - 1 close here, empty ones included). The first row closed
    // may have begun in earlier lanes (its sum is completed below); the rows
    // after it are whole here.
    T acc = 0, first = 0;
    bool closed = false;
    index_t row = r0;
    auto close = [&] {
      if (!closed) {
        first = acc;
        closed = true;
      } else {
        row_sum[row - first_row] = acc;
      }
      acc = 0;
      ++row;
    };
    unsigned end = r0 < r1 ? static_cast<unsigned>(__ldg(a.row_ptr + r0 + 1)) : UINT_MAX;
#pragma unroll
    for (int j = 0; j < items; ++j) {
      if (j < links) {
        while (k0 + j == end) {
          close();
          end = row < r1 ? static_cast<unsigned>(__ldg(a.row_ptr + row + 1)) : UINT_MAX;
        }
        acc += gx[j];
      }
    }
    while (row < r1) close();

    // Segmented inclusive scan of the lanes' open partials (acc, of row r1):
    // rows are non-decreasing across lanes, so equal keys are contiguous.
    T open = acc;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const T o = __shfl_up_sync(full, open, off);
      const index_t key = __shfl_up_sync(full, r1, off);
      if (lane >= off && key == r1) open += o;
    }
    // Lane l begins in the row lane l - 1 left open (r0 = its r1).
    const T before = __shfl_up_sync(full, open, 1);
    // Tiles end at row ends except inside a row longer than a tile: only such
    // a row can begin before this tile (head_cut) or go on after it.
    const bool head_cut = static_cast<unsigned>(__ldg(a.row_ptr + first_row)) + static_cast<unsigned>(first_row) < tile_d0;
    const T y = (lane > 0 ? before : T(0)) + first;
    const bool head_here = closed && r0 == first_row && head_cut;
    if (closed && !head_here) row_sum[r0 - first_row] = y;
    const unsigned head_lanes = __ballot_sync(full, head_here);
    if (head_lanes) {
      const T h = __shfl_sync(full, y, __ffs(head_lanes) - 1);
      if (lane == 0) a.head[t] = h;
      contribute(a, first_row, x, xn, alpha, c, personalized, v_uniform, s);
    }
    const T tail = __shfl_sync(full, open, 31);
    if (last_row < n && static_cast<unsigned>(__ldg(a.row_ptr + last_row)) + static_cast<unsigned>(last_row) < tile_d1) {
      if (lane == 0) a.tail[t] = tail;  // the row goes on in the next tile
      contribute(a, last_row, x, xn, alpha, c, personalized, v_uniform, s);
    }
    __syncwarp();
    // The closed rows' updates, coalesced.
    for (index_t i = lane; i < rows; i += 32)
      if (i > 0 || !head_cut)
        finish_row(xn, first_row + i, row_sum[i], i < 32 ? early : load_row(a, x, first_row + i, personalized, v_uniform),
                   alpha, c, s);
    __syncwarp();  // the scratch is rewritten by the next tile
  }

  if (!accumulate_grid<step_threads>(make_double2(s.l1, s.dangling), st)) return;
  close_step(st, progress, handle, set_condition);  // last block, thread 0
}

// r~_K(perm[k]) = x_K(k) d_k (x_K(k) itself for a dangling k).
template <class T>
__global__ void ranks_out(fused_args<T> a, const index_t* __restrict__ perm, const pagerank_state* st,
                          T* __restrict__ r) {
  const T* __restrict__ x = (st->iteration & 1) ? a.x1 : a.x0;
  for (index_t k = blockIdx.x * blockDim.x + threadIdx.x; k < a.n; k += gridDim.x * blockDim.x) {
    const index_t d = a.deg[k];
    r[perm[k]] = static_cast<T>(d > 0 ? static_cast<double>(x[k]) * d : static_cast<double>(x[k]));
  }
}

struct temp_bytes {
  cuda::device_buffer<unsigned char> buf;
  void* get(std::size_t bytes) {
    if (buf.size() < bytes) buf = cuda::device_buffer<unsigned char>(bytes);
    return buf.data();
  }
};

int bit_width(unsigned long long v) {
  int b = 0;
  while (v) {
    ++b;
    v >>= 1;
  }
  return std::max(b, 1);
}

std::size_t step_smem(int hub, std::size_t value_bytes) {
  const std::size_t scratch = value_bytes == sizeof(float) ? warp_scratch_bytes<float>() : warp_scratch_bytes<double>();
  return static_cast<std::size_t>(hub) * value_bytes + static_cast<std::size_t>(step_warps) * scratch;
}

}  // namespace

template <class T>
fused_args<T> fused_pull<T>::args() {
  fused_args<T> a;
  a.row_ptr = row_ptr_.data();
  a.col = col_.data();
  a.tile_start = tile_start_.data();
  a.lane_row = lane_row_.data();
  a.deg = deg_.data();
  a.parts = parts_.data();
  a.first_tile = first_tile_.data();
  a.count = count_.data();
  a.tail = tail_.data();
  a.head = head_.data();
  a.x0 = x_[0].data();
  a.x1 = x_[1].data();
  a.v = v_.data();
  a.tiles = tiles_;
  a.n = n_;
  a.hub = hub_;
  return a;
}

template <class T>
fused_pull<T>::fused_pull(const csr_matrix<T>& pt, cudaStream_t stream) : stream_(stream) {
  n_ = pt.rows;
  nnz_ = pt.nnz();
  if (n_ <= 0 || pt.cols != n_) throw dimension_error("fused pull: P^T must be square and non-empty");
  const auto n = static_cast<std::size_t>(n_);
  const long long total = static_cast<long long>(n_) + static_cast<long long>(nnz_);
  if (nnz_ > max_index || total > static_cast<long long>(UINT_MAX) - 16)
    throw dimension_error("fused pull: rows + links must stay below 2^32 (item positions are 32-bit)");

  // Upload the pattern only; values are 1/d_j by construction.
  cuda::device_buffer<index_t> old_ptr(pt.row_ptr), old_col(pt.col_idx);
  deg_ = cuda::device_buffer<index_t>(n);
  perm_ = cuda::device_buffer<index_t>(n);
  cuda::device_buffer<index_t> deg_old(n), ids(n), new_id(n), len(n + 1);
  PERRON_CUDA_CHECK(cudaMemsetAsync(deg_old.data(), 0, deg_old.bytes(), stream_));
  count_degrees<<<blocks_for(static_cast<long long>(nnz_)), setup_threads, 0, stream_>>>(nnz_, old_col.data(),
                                                                                         deg_old.data());
  PERRON_CUDA_CHECK_LAUNCH("count_degrees");
  iota<<<blocks_for(n_), setup_threads, 0, stream_>>>(n_, ids.data());
  PERRON_CUDA_CHECK_LAUNCH("iota");
  // Stable sort by decreasing out-degree: perm[k] = old id of new vertex k.
  temp_bytes temp;
  std::size_t bytes = 0;
  const int end_bit = bit_width(static_cast<unsigned long long>(n_));
  PERRON_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, deg_old.data(), deg_.data(), ids.data(),
                                                              perm_.data(), n_, 0, end_bit, stream_));
  PERRON_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp.get(bytes), bytes, deg_old.data(), deg_.data(),
                                                              ids.data(), perm_.data(), n_, 0, end_bit, stream_));
  relabel_rows<<<blocks_for(n_ + 1LL), setup_threads, 0, stream_>>>(n_, perm_.data(), old_ptr.data(), new_id.data(),
                                                                    len.data());
  PERRON_CUDA_CHECK_LAUNCH("relabel_rows");
  row_ptr_ = cuda::device_buffer<index_t>(n + 1);
  temp_bytes scan_temp;  // its own: freeing the sort's while the sort may still run would not be safe
  PERRON_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, len.data(), row_ptr_.data(), n_ + 1, stream_));
  PERRON_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(scan_temp.get(bytes), bytes, len.data(), row_ptr_.data(), n_ + 1, stream_));
  // Padded: a lane reads its links as three aligned 16-byte windows.
  col_ = cuda::device_buffer<index_t>(nnz_ + 16);
  PERRON_CUDA_CHECK(cudaMemsetAsync(col_.data() + nnz_, 0, 16 * sizeof(index_t), stream_));
  relabel_links<<<blocks_for(32LL * n_), setup_threads, 0, stream_>>>(n_, perm_.data(), old_ptr.data(),
                                                                      old_col.data(), new_id.data(), row_ptr_.data(),
                                                                      col_.data());
  PERRON_CUDA_CHECK_LAUNCH("relabel_links");
  // Tiles of at most tile_items items that end at a row's end, except inside
  // a row longer than a tile (greedy, on the host: one pass over the rows).
  {
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::vector<index_t> rp = row_ptr_.download();
    std::vector<unsigned> start;
    start.reserve(static_cast<std::size_t>(total / (tile_items / 2) + 2));
    long long p = 0;
    index_t r = 0;  // the row holding item p
    while (p < total) {
      start.push_back(static_cast<unsigned>(p));
      const long long limit = p + tile_items;
      if (limit >= total) break;
      index_t next = r;
      while (next < n_ && rp[next + 1] + static_cast<long long>(next) < limit) ++next;
      if (next > r) {
        p = rp[next] + static_cast<long long>(next);  // just after row next - 1's end
        r = next;
      } else {
        p = limit;  // row r is longer than a tile: cut it
      }
    }
    start.push_back(static_cast<unsigned>(total));
    if (start.size() - 1 > max_index / 32) throw dimension_error("fused pull: more tiles than index_t counts");
    tiles_ = static_cast<index_t>(start.size() - 1);
    lanes_ = 32LL * tiles_;
    tile_start_ = cuda::device_buffer<unsigned>(start);
  }
  lane_row_ = cuda::device_buffer<index_t>(static_cast<std::size_t>(lanes_) + 1);
  find_lane_rows<<<blocks_for(lanes_ + 1), setup_threads, 0, stream_>>>(tiles_, tile_start_.data(), n_,
                                                                        row_ptr_.data(), lane_row_.data());
  PERRON_CUDA_CHECK_LAUNCH("find_lane_rows");
  parts_ = cuda::device_buffer<index_t>(n);
  first_tile_ = cuda::device_buffer<index_t>(n);
  count_parts<<<blocks_for(n_), setup_threads, 0, stream_>>>(n_, tiles_, tile_start_.data(), row_ptr_.data(),
                                                             parts_.data(), first_tile_.data());
  PERRON_CUDA_CHECK_LAUNCH("count_parts");
  count_ = cuda::device_buffer<unsigned>(n);
  PERRON_CUDA_CHECK(cudaMemsetAsync(count_.data(), 0, count_.bytes(), stream_));
  tail_ = cuda::device_buffer<T>(static_cast<std::size_t>(tiles_));
  head_ = cuda::device_buffer<T>(static_cast<std::size_t>(tiles_));
  x_[0] = cuda::device_buffer<T>(n);
  x_[1] = cuda::device_buffer<T>(n);
  v_ = cuda::device_buffer<T>(n);

  // The hub: as much of x as shared memory holds next to the warps' row sums.
  int device = 0, optin = 0, sms = 1;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  cudaFuncAttributes fa{};
  PERRON_CUDA_CHECK(cudaFuncGetAttributes(&fa, fused_step<T>));
  const long long room = (static_cast<long long>(optin) - static_cast<long long>(fa.sharedSizeBytes) -
                          static_cast<long long>(step_smem(0, sizeof(T)))) /
                         static_cast<long long>(sizeof(T));
  if (room < 0) throw cuda_error("the device has too little shared memory per block for the fused pull's row sums");
  max_hub_ = static_cast<int>(std::min<long long>(room, n_) / 32 * 32);  // whole 16-byte vectors
  PERRON_CUDA_CHECK(cudaFuncSetAttribute(fused_step<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(step_smem(max_hub_, sizeof(T)))));
  grid_ = sms;  // one block of 1024 threads per SM (__launch_bounds__(1024, 1))
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));
  choose_hub();
}

template <class T>
void fused_pull<T>::choose_hub() {
  // A scratch state that never stops, steps from the uniform start, and the
  // median of 5 timed steps per candidate after 2 untimed.
  pagerank_state h{};
  h.alpha = 0.85;
  h.tol = 0.0;
  h.max_iter = INT_MAX;
  h.residual = 0.0;
  cuda::device_buffer<pagerank_state> st(1);
  PERRON_CUDA_CHECK(cudaMemcpyAsync(st.data(), &h, sizeof h, cudaMemcpyHostToDevice, stream_));
  launch_init(nullptr, 1, st.data());
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  PERRON_CUDA_CHECK(cudaEventCreate(&e0));
  PERRON_CUDA_CHECK(cudaEventCreate(&e1));
  struct events {
    cudaEvent_t a, b;
    ~events() {
      cudaEventDestroy(a);
      cudaEventDestroy(b);
    }
  } guard{e0, e1};
  std::vector<int> candidates{0, max_hub_ / 4 / 32 * 32, max_hub_};
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  float best = 0;
  int best_hub = max_hub_;
  for (int c : candidates) {
    hub_ = c;
    std::vector<float> ms;
    for (int i = 0; i < 7; ++i) {
      PERRON_CUDA_CHECK(cudaEventRecord(e0, stream_));
      launch_step(st.data(), nullptr, 0, 0);
      PERRON_CUDA_CHECK(cudaEventRecord(e1, stream_));
      PERRON_CUDA_CHECK(cudaEventSynchronize(e1));
      float t = 0;
      PERRON_CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
      if (i >= 2) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%d: %.1f us", trial_.empty() ? "" : ", ", c, 1e3 * ms[ms.size() / 2]);
    trial_ += buf;
    if (c == candidates.front() || ms[ms.size() / 2] < best) {
      best = ms[ms.size() / 2];
      best_hub = c;
    }
  }
  hub_ = best_hub;
}

template <class T>
void fused_pull<T>::launch_init(const T* d_r0, int uniform, pagerank_state* st) {
  const fused_args<T> a = args();
  init_x<T><<<std::min(blocks_for(n_), 4096), setup_threads, 0, stream_>>>(a, perm_.data(), d_r0, uniform, st);
  PERRON_CUDA_CHECK_LAUNCH("pagerank init_x");
}

template <class T>
void fused_pull<T>::launch_personalization(const T* d_v) {
  gather_by<T><<<blocks_for(n_), setup_threads, 0, stream_>>>(n_, perm_.data(), d_v, v_.data());
  PERRON_CUDA_CHECK_LAUNCH("pagerank gather_by");
}

template <class T>
void fused_pull<T>::launch_step(pagerank_state* st, pagerank_progress* progress, cudaGraphConditionalHandle handle,
                                int set_condition) {
  const fused_args<T> a = args();
  fused_step<T><<<grid_, step_threads, step_smem(hub_, sizeof(T)), stream_>>>(a, st, progress, handle,
                                                                             set_condition);
  PERRON_CUDA_CHECK_LAUNCH("pagerank fused_step");
}

template <class T>
void fused_pull<T>::launch_ranks(T* d_r, const pagerank_state* st) {
  const fused_args<T> a = args();
  ranks_out<T><<<blocks_for(n_), setup_threads, 0, stream_>>>(a, perm_.data(), st, d_r);
  PERRON_CUDA_CHECK_LAUNCH("pagerank ranks_out");
}

template <class T>
std::size_t fused_pull<T>::device_bytes() const {
  return tile_start_.bytes() + row_ptr_.bytes() + col_.bytes() + lane_row_.bytes() + deg_.bytes() + perm_.bytes() + parts_.bytes() + first_tile_.bytes() +
         count_.bytes() + x_[0].bytes() + x_[1].bytes() + v_.bytes() + tail_.bytes() + head_.bytes();
}

template class fused_pull<float>;
template class fused_pull<double>;

}  // namespace perron::pagerank_gpu
