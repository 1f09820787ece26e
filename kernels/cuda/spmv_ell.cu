// ell: column-major padded ELL, one thread per row (Bell & Garland's ELL
// kernel). Slot n of row r sits at n * rows + r, so a warp's loads of one slot
// are 32 consecutive words: perfectly coalesced, and no row_ptr at all.
// to_ell puts each row's padding after its entries (column ell_padding), so a
// thread stops at its first padding slot, and a warp whose 32 rows are all
// padded from slot n on loads nothing more.
//
// Bytes: rows * width * (index + value) + x + y. For uniform rows (stencils,
// tridiag: width 3) that is the CSR traffic minus row_ptr (4 bytes/row) with
// ideal coalescing; the plan refuses (to_ell's dimension_error, or
// check_ell_fill's for the device build) when padding would exceed 8x the
// nonzeros.
#include "core/cuda/check.cuh"
#include "core/memory.hpp"
#include "kernels/convert.hpp"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/cuda/spmv_engine.cuh"

namespace perron::cuda::spmv {
namespace {

constexpr unsigned ell_block = 256;
constexpr int ell_unroll = 4;  // slots loaded before the first use: 4 loads in flight per array

template <class T>
__global__ void __launch_bounds__(ell_block)
    ell_kernel(index_t rows, index_t width, const index_t* __restrict__ col_idx, const T* __restrict__ values,
               const T* __restrict__ x, T alpha, T beta, T* __restrict__ y) {
  const std::size_t r = global_thread();
  const std::size_t n = static_cast<std::size_t>(rows);
  if (r >= n) return;
  T sum = 0;
  for (index_t slot = 0; slot < width; slot += ell_unroll) {
    index_t c[ell_unroll];
#pragma unroll
    for (int u = 0; u < ell_unroll; ++u)
      c[u] = slot + u < width ? load_once(col_idx + static_cast<std::size_t>(slot + u) * n + r) : ell_padding;
    T v[ell_unroll];
#pragma unroll
    for (int u = 0; u < ell_unroll; ++u)
      v[u] = c[u] != ell_padding ? load_once(values + static_cast<std::size_t>(slot + u) * n + r) : T(0);
#pragma unroll
    for (int u = 0; u < ell_unroll; ++u)
      if (c[u] != ell_padding) sum += v[u] * load_x(x + c[u]);
    if (c[ell_unroll - 1] == ell_padding) break;  // the rest of this row is padding
  }
  store_y(y, r, alpha, sum, beta);
}

// The layout above from an uploaded CSR, a thread per row: slot s of row r
// (s < width) is its s-th entry or padding. Writes are coalesced (a warp's
// rows are consecutive); it costs about a copy of the ELL arrays, where
// to_ell on the host and the upload took 0.3 s on grid:3000:3000 (36 M slots).
template <class T>
__global__ void __launch_bounds__(ell_block)
    csr_to_ell(index_t rows, index_t width, const index_t* __restrict__ row_ptr,
               const index_t* __restrict__ col_idx, const T* __restrict__ values,
               index_t* __restrict__ ell_col, T* __restrict__ ell_values) {
  const std::size_t r = global_thread();
  const std::size_t n = static_cast<std::size_t>(rows);
  if (r >= n) return;
  const index_t lo = row_ptr[r], len = row_ptr[r + 1] - lo;
  for (index_t s = 0; s < width; ++s) {
    const std::size_t at = static_cast<std::size_t>(s) * n + r;
    ell_col[at] = s < len ? col_idx[lo + s] : ell_padding;
    ell_values[at] = s < len ? values[lo + s] : T(0);
  }
}

template <class T>
class ell_engine final : public engine<T> {
 public:
  ell_engine(const ell_matrix<T>& h, cudaStream_t s)
      : rows_(h.rows), width_(h.width), col_idx_(h.col_idx), values_(h.values), stream_(s) {}
  // From the uploaded CSR `a` whose longest row has `width` entries.
  ell_engine(const device_csr<T>& a, index_t width, cudaStream_t s)
      : rows_(a.rows),
        width_(width),
        col_idx_(static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(width)),
        values_(static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(width)),
        stream_(s) {
    if (rows_ == 0 || width_ == 0) return;
    const unsigned grid = grid_for(static_cast<std::size_t>(rows_), ell_block, "csr_to_ell");
    csr_to_ell<T><<<grid, ell_block, 0, stream_>>>(rows_, width_, a.row_ptr.data(), a.col_idx.data(),
                                                   a.values.data(), col_idx_.data(), values_.data());
    PERRON_CUDA_CHECK_LAUNCH("csr_to_ell");
  }

  void apply(T alpha, const T* d_x, T beta, T* d_y) const override {
    const unsigned grid = grid_for(static_cast<std::size_t>(rows_), ell_block, "ell");
    ell_kernel<T><<<grid, ell_block, 0, stream_>>>(rows_, width_, col_idx_.data(), values_.data(), d_x, alpha,
                                                   beta, d_y);
    PERRON_CUDA_CHECK_LAUNCH("ell_kernel");
  }
  std::size_t extra_bytes() const override { return col_idx_.bytes() + values_.bytes(); }
  bool uses_csr() const override { return false; }
  bool reads_every_value() const override { return true; }
  std::string description() const override { return "ell (width " + std::to_string(width_) + ")"; }

 private:
  index_t rows_;
  index_t width_;
  device_buffer<index_t> col_idx_;
  device_buffer<T> values_;
  cudaStream_t stream_;
};

}  // namespace

// On the device where the CSR is uploaded (the plan's usual way), else on
// the host (to_ell); both refuse absurd padding the same way.
template <class T>
std::unique_ptr<engine<T>> make_ell(const engine_args<T>& x) {
  if (!x.csr) return std::make_unique<ell_engine<T>>(to_ell(x.host()), x.stream);
  check_ell_fill(x.stats.rows, x.stats.max_len, x.stats.nnz);
  // Beside the uploaded CSR (freed only once this is built): refused with the
  // bytes it needs, not a failed allocation half-way, where it does not fit.
  const double slots = double(x.stats.rows) * double(x.stats.max_len);
  check_device_memory(slots * double(sizeof(index_t) + sizeof(T)),
                      "the ELL format of a matrix of " + std::to_string(x.stats.rows) + " rows (longest " +
                          std::to_string(x.stats.max_len) + " entries)");
  return std::make_unique<ell_engine<T>>(*x.csr, x.stats.max_len, x.stream);
}

PERRON_SPMV_INSTANTIATE_MAKE(ell)

}  // namespace perron::cuda::spmv
