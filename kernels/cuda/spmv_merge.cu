// merge: merge-path SpMV (Merrill & Garland, SC16). The rows' end offsets
// (row_ptr[1..rows]) and the nonzero indices (0..nnz-1) form two sorted lists;
// walking their merge, each step either consumes a nonzero or ends a row.
// Every thread gets items_per_thread consecutive steps of that merge, so work
// is equal per thread whatever the row lengths (one row of 10^6 entries or
// 10^6 empty rows alike).
//
// Plan: the merge-path coordinates (rows done, nonzeros done) at the start of
// each tile of 256 * items_per_thread steps, found once on the host.
// Kernel, per tile: stage the tile's row ends and products a_k * x[col_k] in
// shared memory (coalesced loads), each thread finds its own start by a
// binary search in shared memory and walks its steps. A row completed inside
// a thread is written at once; a thread's first completed row also collects
// the partial sums that preceding threads of the tile carried into it (a
// block-wide scan segmented by row). The
// row still open at the tile's end is handed to a second, small kernel
// (fix-up) as (row, partial); it adds the partials of every tile that row
// spans, in tile order, to the y value its last tile wrote. Deterministic.
//
// Bytes: matrix streams fully coalesced plus one row_ptr read per row; 8 bytes
// per tile of carry; a second launch.
#include <algorithm>

#include "core/cuda/check.cuh"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/cuda/spmv_engine.cuh"

namespace perron::cuda::spmv {
namespace {

constexpr unsigned merge_block = 256;
constexpr int items_per_thread = 8;
constexpr int merge_tile = merge_block * items_per_thread;
constexpr unsigned fixup_block = 256;
// The tile in shared memory is 27.8 KB a block in double; left to itself the
// driver gives the SM's on-chip memory to shared memory for the most blocks
// (8: 222 KB), leaving L1 about 30 KB for the gathers of x in flight, and the
// kernel ran at half speed where x is large (double er:4000000:40000000 690
// us against csr-cte's 338). Asked for 60% of the largest carveout it keeps
// fewer blocks and a larger L1: 343 us there, 0.50-0.93x the time on 11 of
// 14 matrices, 1.15-1.19x on local short rows (grid, ws), where merge takes
// 2-3x csr-scalar's time anyway. In float (18.5 KB a tile) 40% made R-MAT 5-8%
// faster but local orders 6-13% slower, so float keeps the driver's choice
// (docs/PERFORMANCE.md, "merge's shared memory against L1").
constexpr int merge_carveout_percent_double = 60;

struct merge_coord {
  index_t row;  // rows completed before this tile
  index_t nz;   // nonzeros consumed before this tile
};

template <class T, class Values>
__global__ void __launch_bounds__(merge_block)
    merge_kernel(const merge_coord* __restrict__ coords, const index_t* __restrict__ row_ptr,
                 const index_t* __restrict__ col_idx, Values values, const T* __restrict__ x, T alpha, T beta,
                 T* __restrict__ y, index_t* __restrict__ carry_row, T* __restrict__ carry_val) {
  __shared__ index_t
      row_end[merge_tile];  // end of each row completed in this tile, relative to the tile's first nonzero
  __shared__ T products[merge_tile];
  __shared__ index_t open_row[merge_block];  // the row each thread leaves open, and its scanned partial sum
  __shared__ T open_sum[merge_block];
  __shared__ index_t warp_first[merge_block / 32], warp_last[merge_block / 32];
  __shared__ T warp_scan[merge_block / 32];

  const merge_coord c0 = coords[blockIdx.x], c1 = coords[blockIdx.x + 1];
  const int nrows = c1.row - c0.row;
  const int nnz = c1.nz - c0.nz;
  // Every load of the tile is issued before the first one is used.
  // The column and value streams are read from c0.nz rounded down to 32
  // entries, so that a warp's 32 indices lie in one 128-byte line (from c0.nz
  // itself they straddle two: 5 L2 sectors where 4 hold them, and an SpMV
  // with random columns is bound by L2 sectors; csr-adaptive does the same).
  // shift + nnz can pass the tile by up to 31 entries: one more load, in the
  // first warp.
  const std::size_t base = static_cast<std::size_t>(c0.nz) & ~std::size_t(31);
  const int shift = static_cast<int>(static_cast<std::size_t>(c0.nz) - base);
  constexpr int loads = items_per_thread + 1;
  index_t e[items_per_thread], c[loads];
  T v[loads];
#pragma unroll
  for (int j = 0; j < loads; ++j) {
    const int i = threadIdx.x + j * merge_block;
    if (j < items_per_thread) e[j] = i < nrows ? load_stream(row_ptr + c0.row + i + 1) : 0;
    const bool mine = i >= shift && i < shift + nnz;
    c[j] = mine ? load_once(col_idx + base + i) : 0;
    v[j] = mine ? values.once(base + i) : T(0);
  }
#pragma unroll
  for (int j = 0; j < loads; ++j) {
    const int i = threadIdx.x + j * merge_block;
    if (j < items_per_thread && i < nrows) row_end[i] = e[j] - c0.nz;
    if (i >= shift && i < shift + nnz) products[i - shift] = v[j] * load_x(x + c[j]);
  }
  __syncthreads();

  // This thread's steps [d, d_end) of the tile's merge; r rows and k nonzeros
  // precede step d: the first r whose row end comes after nonzero d - r - 1.
  const int steps = nrows + nnz;
  const int d = min(static_cast<int>(threadIdx.x) * items_per_thread, steps);
  const int d_end = min(d + items_per_thread, steps);
  int lo = max(0, d - nnz), hi = min(d, nrows);
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (row_end[mid] <= d - mid - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  int r = lo, k = d - lo;
  T sum = 0, first_sum = 0;
  int first_row = -1;
  for (int step = d; step < d_end; ++step) {
    if (r < nrows && row_end[r] <= k) {  // row r ends here
      if (first_row < 0) {
        first_row = r;  // may have started in earlier threads: completed below
        first_sum = sum;
      } else {
        store_y(y, static_cast<std::size_t>(c0.row) + r, alpha, sum, beta);
      }
      sum = 0;
      ++r;
    } else {
      sum += products[k++];
    }
  }
  // Each thread leaves row r open with partial `sum`. Rows are non-decreasing
  // over threads, so an inclusive scan segmented by row gives every thread the
  // sum of its open row over itself and the preceding threads of the tile:
  // shuffles within a warp, then the warps' tails through shared memory.
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  T scan = sum;
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const T u = __shfl_up_sync(full_mask, scan, offset);
    const int key = __shfl_up_sync(full_mask, r, offset);
    if (lane >= offset && key == r) scan += u;
  }
  if (lane == 0) warp_first[warp] = r;
  if (lane == 31) {
    warp_last[warp] = r;
    warp_scan[warp] = scan;
  }
  __syncthreads();
  for (int w = warp - 1; w >= 0 && warp_last[w] == r; --w) {
    scan += warp_scan[w];
    if (warp_first[w] != r) break;  // the row starts inside warp w
  }
  open_row[threadIdx.x] = r;
  open_sum[threadIdx.x] = scan;
  __syncthreads();

  if (first_row >= 0) {
    // Preceding threads' parts of this row: the scan of the thread just before.
    if (threadIdx.x > 0 && open_row[threadIdx.x - 1] == first_row) first_sum += open_sum[threadIdx.x - 1];
    store_y(y, static_cast<std::size_t>(c0.row) + first_row, alpha, first_sum, beta);
  }
  if (threadIdx.x == merge_block - 1) {
    carry_row[blockIdx.x] = c0.row + r;
    carry_val[blockIdx.x] = scan;
  }
}

// One thread per tile; the first tile of each run with the same open row adds
// the run's partials (in tile order) to that row.
template <class T>
__global__ void __launch_bounds__(fixup_block)
    merge_fixup_kernel(std::size_t tiles, index_t rows, const index_t* __restrict__ carry_row,
                       const T* __restrict__ carry_val, T alpha, T* __restrict__ y) {
  const std::size_t t = global_thread();
  if (t >= tiles) return;
  const index_t row = carry_row[t];
  if (row >= rows || (t > 0 && carry_row[t - 1] == row)) return;
  T carry = 0;
  for (std::size_t u = t; u < tiles && carry_row[u] == row; ++u) carry += carry_val[u];
  y[row] += alpha * carry;
}

template <class T>
class merge_engine final : public engine<T> {
 public:
  merge_engine(csr_ptr<T> a, const std::vector<merge_coord>& coords, bool needs_fixup, cudaStream_t s)
      : a_(std::move(a)),
        tiles_(coords.size() - 1),
        coords_(coords),
        carry_row_(tiles_),
        carry_val_(tiles_),
        needs_fixup_(needs_fixup),
        stream_(s) {
    // A preference of the kernel (per process), not of this plan.
    if constexpr (sizeof(T) == 8)
      for (const void* f : {reinterpret_cast<const void*>(merge_kernel<T, matrix_values<T, true>>),
                            reinterpret_cast<const void*>(merge_kernel<T, matrix_values<T, false>>)})
        PERRON_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout,
                                               merge_carveout_percent_double));
  }

  void apply(T alpha, const T* d_x, T beta, T* d_y) const override {
    const unsigned grid = grid_for(tiles_ * merge_block, merge_block, "merge");
    // One value only: both kernels take alpha scaled by it (the fix-up adds
    // alpha * carry, carry a sum over the pattern).
    T scaled_alpha = alpha;
    launch_with_values(*a_, alpha, [&](auto values, T scaled) {
      scaled_alpha = scaled;
      merge_kernel<<<grid, merge_block, 0, stream_>>>(coords_.data(), a_->row_ptr.data(), a_->col_idx.data(),
                                                      values, d_x, scaled, beta, d_y, carry_row_.data(),
                                                      carry_val_.data());
    });
    PERRON_CUDA_CHECK_LAUNCH("merge_kernel");
    if (!needs_fixup_) return;
    const unsigned fix_grid = grid_for(tiles_, fixup_block, "merge fix-up");
    merge_fixup_kernel<T><<<fix_grid, fixup_block, 0, stream_>>>(tiles_, a_->rows, carry_row_.data(),
                                                                 carry_val_.data(), scaled_alpha, d_y);
    PERRON_CUDA_CHECK_LAUNCH("merge_fixup_kernel");
  }
  std::size_t extra_bytes() const override {
    return coords_.bytes() + carry_row_.bytes() + carry_val_.bytes();
  }
  std::string description() const override {
    return "merge (" + std::to_string(tiles_) + " tiles of " + std::to_string(merge_tile) + " steps" +
           (needs_fixup_ ? ", fix-up pass)" : ")");
  }

 private:
  csr_ptr<T> a_;
  std::size_t tiles_;
  device_buffer<merge_coord> coords_;
  mutable device_buffer<index_t> carry_row_;  // scratch written by apply()
  mutable device_buffer<T> carry_val_;
  bool needs_fixup_;
  cudaStream_t stream_;
};

}  // namespace

template <class T>
std::unique_ptr<engine<T>> make_merge(const engine_args<T>& x) {
  const csr_matrix<T>& h = x.host();
  const long long rows = h.rows, nnz = static_cast<long long>(h.nnz());
  const long long total = rows + nnz;
  const std::size_t tiles =
      static_cast<std::size_t>(std::max<long long>(1, (total + merge_tile - 1) / merge_tile));
  std::vector<merge_coord> coords(tiles + 1);
  bool needs_fixup = false;
  for (std::size_t t = 0; t <= tiles; ++t) {
    const long long d = std::min<long long>(static_cast<long long>(t) * merge_tile, total);
    // Rows completed before step d: the first r whose end comes after nonzero d - r - 1.
    long long lo = std::max<long long>(0, d - nnz), hi = std::min<long long>(d, rows);
    while (lo < hi) {
      const long long mid = (lo + hi) / 2;
      if (h.row_ptr[static_cast<std::size_t>(mid) + 1] <= d - mid - 1)
        lo = mid + 1;
      else
        hi = mid;
    }
    coords[t] = {static_cast<index_t>(lo), static_cast<index_t>(d - lo)};
    // A tile boundary inside a row leaves a partial sum for the fix-up pass.
    if (t > 0 && t < tiles && lo < rows && d - lo > h.row_ptr[static_cast<std::size_t>(lo)])
      needs_fixup = true;
  }
  return std::make_unique<merge_engine<T>>(x.csr, coords, needs_fixup, x.stream);
}

PERRON_SPMV_INSTANTIATE_MAKE(merge)

}  // namespace perron::cuda::spmv
