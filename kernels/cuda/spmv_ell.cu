// ell: column-major padded ELL, a thread per row (Bell & Garland's ELL
// kernel; 4 or 2 rows a thread where rows hold 1 or 2 entries). Slot n of row
// r sits at n * rows + r, so a warp's loads of one slot are 32 consecutive
// words: perfectly coalesced, and no row_ptr at all. to_ell puts each row's
// padding after its entries (column ell_padding), so a thread stops at its
// first padding slot, and a warp whose 32 rows are all padded from slot n on
// loads nothing more.
//
// Bytes: rows * width * (index + value) + x + y (no value where every one is
// the same 1 or -1). For uniform rows (stencils, tridiag: width 3) that is the
// CSR traffic minus row_ptr (4 bytes/row) with ideal coalescing; the plan
// refuses (to_ell's dimension_error, or check_ell_fill's for the device build)
// when padding would exceed 8x the nonzeros.
#include "core/cuda/check.cuh"
#include "core/memory.hpp"
#include "kernels/convert.hpp"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/cuda/spmv_engine.cuh"
#include "kernels/spmv.hpp"

namespace perron::cuda::spmv {
namespace {

constexpr unsigned ell_block = 256;
constexpr int ell_unroll = 4;  // loads in flight per array a thread: slots x rows

// Rows a thread sums side by side, by the matrix's width, so that every
// thread has ell_unroll loads of each array in flight: a row's slots are
// loaded ell_unroll at a time, so one row a thread of one entry (a chain,
// a path) left one column load and then one gather in flight, too few to
// cover DRAM's latency where x lies past L2 (chain:10^7 in float took 1.17x
// csr-adaptive's time, which has 4 in flight; docs/PERFORMANCE.md "ELL's
// narrow rows ...").
constexpr int ell_rows_for(index_t width) { return width <= 1 ? 4 : width == 2 ? 2 : 1; }

// Rows rows a thread, block b's thread t holding rows b * ell_block * Rows +
// j * ell_block + t (j < Rows): a warp's loads of one slot stay 32
// consecutive words. Each row's products are added in slot order, as with one
// row a thread: the same bits whatever Rows is.
template <class T, class Values, int Rows>
__global__ void __launch_bounds__(ell_block)
    ell_kernel(index_t rows, index_t width, const index_t* __restrict__ col_idx, Values values,
               const T* __restrict__ x, T alpha, T beta, T* __restrict__ y) {
  constexpr int slots = ell_unroll / Rows;
  const std::size_t n = static_cast<std::size_t>(rows);
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * (ell_block * Rows) + threadIdx.x;
  if (first >= n) return;
  bool live[Rows];
#pragma unroll
  for (int j = 0; j < Rows; ++j) live[j] = first + static_cast<std::size_t>(j) * ell_block < n;
  T sum[Rows];
#pragma unroll
  for (int j = 0; j < Rows; ++j) sum[j] = T(0);
  for (index_t slot = 0; slot < width; slot += slots) {
    index_t c[Rows][slots];
#pragma unroll
    for (int j = 0; j < Rows; ++j)
#pragma unroll
      for (int u = 0; u < slots; ++u)
        c[j][u] = live[j] && slot + u < width
                      ? load_once(col_idx + static_cast<std::size_t>(slot + u) * n + first + j * ell_block)
                      : ell_padding;
    T v[Rows][slots];
#pragma unroll
    for (int j = 0; j < Rows; ++j)
#pragma unroll
      for (int u = 0; u < slots; ++u)
        v[j][u] = c[j][u] != ell_padding
                      ? values.once(static_cast<std::size_t>(slot + u) * n + first + j * ell_block)
                      : T(0);
    bool more = false;
#pragma unroll
    for (int j = 0; j < Rows; ++j) {
#pragma unroll
      for (int u = 0; u < slots; ++u)
        if (c[j][u] != ell_padding) sum[j] += v[j][u] * load_x(x + c[j][u]);
      more |= c[j][slots - 1] != ell_padding;
    }
    if (!more) break;  // the rest of these rows is padding
  }
#pragma unroll
  for (int j = 0; j < Rows; ++j)
    if (live[j]) store_y(y, first + j * ell_block, alpha, sum[j], beta);
}

// The layout above from an uploaded CSR, a thread per row: slot s of row r
// (s < width) is its s-th entry or padding. Writes are coalesced (a warp's
// rows are consecutive); it costs about a copy of the ELL arrays, where
// to_ell on the host and the upload took 0.3 s on grid:3000:3000 (36 M slots).
// ell_values null: the pattern alone (every value one +-1, read by none).
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
    if (ell_values) ell_values[at] = s < len ? values[lo + s] : T(0);
  }
}

// Where every value is one 1 or -1 (a graph's adjacency: the PageRank SpMV
// pull's matrix), the engine keeps and reads no value array and folds the
// value into alpha, as the CSR kernels do (spmv_common.cuh, matrix_values):
// 4 or 8 bytes a slot fewer, the same bits.
template <class T>
class ell_engine final : public engine<T> {
 public:
  // From the host ELL of a matrix whose values are all `one` (0: read them).
  ell_engine(const ell_matrix<T>& h, T one, cudaStream_t s)
      : rows_(h.rows),
        width_(h.width),
        one_value_(one),
        col_idx_(h.col_idx),
        values_(one == T(0) ? device_buffer<T>(h.values) : device_buffer<T>()),
        stream_(s) {}
  // From the uploaded CSR `a` whose longest row has `width` entries.
  ell_engine(const device_csr<T>& a, index_t width, cudaStream_t s)
      : rows_(a.rows),
        width_(width),
        one_value_(a.one_value_only ? a.one_value : T(0)),
        col_idx_(slots(a.rows, width)),
        values_(a.one_value_only ? 0 : slots(a.rows, width)),
        stream_(s) {
    if (rows_ == 0 || width_ == 0) return;
    const unsigned grid = grid_for(static_cast<std::size_t>(rows_), ell_block, "csr_to_ell");
    csr_to_ell<T><<<grid, ell_block, 0, stream_>>>(rows_, width_, a.row_ptr.data(), a.col_idx.data(),
                                                   a.values.data(), col_idx_.data(),
                                                   a.one_value_only ? nullptr : values_.data());
    PERRON_CUDA_CHECK_LAUNCH("csr_to_ell");
  }

  void apply(T alpha, const T* d_x, T beta, T* d_y) const override {
    switch (ell_rows_for(width_)) {
      case 4:
        launch<4>(alpha, d_x, beta, d_y);
        break;
      case 2:
        launch<2>(alpha, d_x, beta, d_y);
        break;
      default:
        launch<1>(alpha, d_x, beta, d_y);
        break;
    }
    PERRON_CUDA_CHECK_LAUNCH("ell_kernel");
  }
  std::size_t extra_bytes() const override { return col_idx_.bytes() + values_.bytes(); }
  bool uses_csr() const override { return false; }
  bool reads_every_value() const override { return one_value_ == T(0); }
  std::string description() const override {
    const int per_thread = ell_rows_for(width_);
    return "ell (width " + std::to_string(width_) + ", " + std::to_string(per_thread) +
           (per_thread == 1 ? " row" : " rows") + "/thread)";
  }

 private:
  static std::size_t slots(index_t rows, index_t width) {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(width);
  }
  template <int Rows>
  void launch(T alpha, const T* d_x, T beta, T* d_y) const {
    const std::size_t threads = (static_cast<std::size_t>(rows_) + Rows - 1) / Rows;
    const unsigned grid = grid_for(threads, ell_block, "ell");
    if (one_value_ != T(0))
      ell_kernel<T, matrix_values<T, false>, Rows>
          <<<grid, ell_block, 0, stream_>>>(rows_, width_, col_idx_.data(), matrix_values<T, false>{nullptr},
                                            d_x, alpha * one_value_, beta, d_y);
    else
      ell_kernel<T, matrix_values<T, true>, Rows><<<grid, ell_block, 0, stream_>>>(
          rows_, width_, col_idx_.data(), matrix_values<T, true>{values_.data()}, d_x, alpha, beta, d_y);
  }

  index_t rows_;
  index_t width_;
  T one_value_;  // 1 or -1 where every value is that one (none kept), else 0
  device_buffer<index_t> col_idx_;
  device_buffer<T> values_;
  cudaStream_t stream_;
};

}  // namespace

// On the device where the CSR is uploaded (the plan's usual way), else on
// the host (to_ell); both refuse absurd padding the same way.
template <class T>
std::unique_ptr<engine<T>> make_ell(const engine_args<T>& x) {
  if (!x.csr) {
    const csr_matrix<T>& h = x.host();
    return std::make_unique<ell_engine<T>>(to_ell(h), runs_as_pattern(h) ? h.values.front() : T(0), x.stream);
  }
  check_ell_fill(x.stats.rows, x.stats.max_len, x.stats.nnz);
  // Beside the uploaded CSR (freed only once this is built): refused with the
  // bytes it needs, not a failed allocation half-way, where it does not fit.
  const double slots = double(x.stats.rows) * double(x.stats.max_len);
  const std::size_t value_bytes = x.csr->one_value_only ? 0 : sizeof(T);
  check_device_memory(slots * double(sizeof(index_t) + value_bytes),
                      "the ELL format of a matrix of " + std::to_string(x.stats.rows) + " rows (longest " +
                          std::to_string(x.stats.max_len) + " entries)");
  return std::make_unique<ell_engine<T>>(*x.csr, x.stats.max_len, x.stream);
}

PERRON_SPMV_INSTANTIATE_MAKE(ell)

}  // namespace perron::cuda::spmv
