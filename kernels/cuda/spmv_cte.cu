// csr-cte: each warp takes 32 consecutive rows and walks their nonzeros 32 at
// a time, one per lane, so every lane has work whatever the row lengths
// (the "CTE" kernel of the seed notes). Per step of 32 nonzeros:
//   1. lane l loads entry k = base + l (coalesced) and forms v = a_k * x[col_k];
//   2. it finds its row among the warp's 32 by a binary search over the row
//      starts, which live one per lane and are read with __shfl_sync;
//   3. a segmented inclusive scan (__shfl_up_sync, lanes of one row are
//      contiguous) sums each row's part of the step;
//   4. lane r pulls the part of row r from that row's last lane in the step.
// Lane r holds row r's running sum, so no shared memory and no volatile
// warp-synchronous tricks (the seed's listing is wrong since Volta).
//
// Bytes: matrix streams fully coalesced; about 12 shuffles per 32 nonzeros.
// A warp with one very long row serialises it (32 nonzeros per step).
#include "core/cuda/check.cuh"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/cuda/spmv_engine.cuh"

namespace perron::cuda::spmv {
namespace {

constexpr unsigned cte_block = 256;

template <class T, class Values>
__global__ void __launch_bounds__(cte_block)
    csr_cte_kernel(index_t rows, const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                   Values values, const T* __restrict__ x, T alpha, T beta, T* __restrict__ y) {
  const std::size_t first_row = global_thread() / 32 * 32;
  if (first_row >= static_cast<std::size_t>(rows)) return;  // uniform across the warp
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::size_t row = first_row + lane;
  const std::size_t n = static_cast<std::size_t>(rows);
  // Lanes past the last row get an empty row at the end of the matrix.
  const long long start = load_stream(row_ptr + min(row, n));
  const long long end = load_stream(row_ptr + min(row + 1, n));
  const long long warp_begin = __shfl_sync(full_mask, start, 0);
  const long long warp_end = __shfl_sync(full_mask, end, 31);

  T acc = 0;
  for (long long base = warp_begin; base < warp_end; base += 32) {
    const long long k = base + lane;
    T v = 0;
    if (k < warp_end) v = values.once(k) * load_x(x + load_once(col_idx + k));

    // The row of entry k: the last lane whose row starts at or before k (an
    // empty row shares its start with the next row, which wins).
    int seg = 0;
#pragma unroll
    for (int step = 16; step > 0; step /= 2) {
      const long long s = __shfl_sync(full_mask, start, seg + step);
      if (s <= k) seg += step;
    }
    // First lane of this row within the step.
    const long long seg_start = __shfl_sync(full_mask, start, seg);
    const int first_lane = seg_start > base ? static_cast<int>(seg_start - base) : 0;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const T u = __shfl_up_sync(full_mask, v, offset);
      if (lane - offset >= first_lane) v += u;
    }
    // Row `lane`'s entries in this step end at lane min(end, base + 32) - 1 - base.
    const long long lo = start > base ? start : base;
    const long long hi = end < base + 32 ? end : base + 32;
    const int last_lane = hi > base ? static_cast<int>(hi - 1 - base) : 0;
    const T part = __shfl_sync(full_mask, v, last_lane);
    if (lo < hi) acc += part;
  }
  if (row < n) store_y(y, row, alpha, acc, beta);
}

template <class T>
class cte_engine final : public engine<T> {
 public:
  cte_engine(csr_ptr<T> a, cudaStream_t s) : a_(std::move(a)), stream_(s) {}

  void apply(T alpha, const T* d_x, T beta, T* d_y) const override {
    const std::size_t warps = (static_cast<std::size_t>(a_->rows) + 31) / 32;
    const unsigned grid = grid_for(warps * 32, cte_block, "csr-cte");
    launch_with_values(*a_, alpha, [&](auto values, T scaled) {
      csr_cte_kernel<<<grid, cte_block, 0, stream_>>>(a_->rows, a_->row_ptr.data(), a_->col_idx.data(),
                                                      values, d_x, scaled, beta, d_y);
    });
    PERRON_CUDA_CHECK_LAUNCH("csr_cte_kernel");
  }
  std::size_t extra_bytes() const override { return 0; }
  std::string description() const override { return "csr-cte (warp per 32 rows, 32 nonzeros per step)"; }

 private:
  csr_ptr<T> a_;
  cudaStream_t stream_;
};

}  // namespace

template <class T>
std::unique_ptr<engine<T>> make_csr_cte(const engine_args<T>& x) {
  return std::make_unique<cte_engine<T>>(x.csr, x.stream);
}

PERRON_SPMV_INSTANTIATE_MAKE(csr_cte)

}  // namespace perron::cuda::spmv
