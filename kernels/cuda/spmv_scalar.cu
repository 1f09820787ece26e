// csr-scalar: one thread per row (Bell & Garland's CSR scalar kernel).
//
// Bytes: each row's entries are contiguous, but consecutive threads start
// row_len entries apart, so a warp's loads of col_idx/values touch ~32 cache
// lines per step; for short rows (<= ~4) L1 merges them and the kernel streams
// the matrix once; for longer rows it wastes sectors and serialises long rows
// on one thread. Wins only on very short, uniform rows.
#include "core/cuda/check.cuh"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/cuda/spmv_engine.cuh"

namespace perron::cuda::spmv {
namespace {

constexpr unsigned scalar_block = 256;

template <class T, class Values>
__global__ void __launch_bounds__(scalar_block)
    csr_scalar_kernel(index_t rows, const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                      Values values, const T* __restrict__ x, T alpha, T beta, T* __restrict__ y) {
  const std::size_t r = global_thread();
  if (r >= static_cast<std::size_t>(rows)) return;
  // 64-bit positions: k + 4 must not overflow near nnz = 2^31 - 1.
  const long long begin = load_stream(row_ptr + r), end = load_stream(row_ptr + r + 1);
  T sum = 0;
  long long k = begin;
  // Four independent loads in flight per step; the adds stay in row order.
  for (; k + 4 <= end; k += 4) {
    index_t c[4];
    T v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) c[u] = load_stream(col_idx + k + u);
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = values[k + u];
#pragma unroll
    for (int u = 0; u < 4; ++u) sum += v[u] * load_x(x + c[u]);
  }
  for (; k < end; ++k) sum += values[k] * load_x(x + load_stream(col_idx + k));
  store_y(y, r, alpha, sum, beta);
}

template <class T>
class scalar_engine final : public engine<T> {
 public:
  scalar_engine(csr_ptr<T> a, cudaStream_t s) : a_(std::move(a)), stream_(s) {}

  void apply(T alpha, const T* d_x, T beta, T* d_y) const override {
    const unsigned grid = grid_for(static_cast<std::size_t>(a_->rows), scalar_block, "csr-scalar");
    launch_with_values(*a_, alpha, [&](auto values, T scaled) {
      csr_scalar_kernel<<<grid, scalar_block, 0, stream_>>>(a_->rows, a_->row_ptr.data(), a_->col_idx.data(),
                                                            values, d_x, scaled, beta, d_y);
    });
    PERRON_CUDA_CHECK_LAUNCH("csr_scalar_kernel");
  }
  std::size_t extra_bytes() const override { return 0; }
  std::string description() const override { return "csr-scalar (1 thread/row)"; }

 private:
  csr_ptr<T> a_;
  cudaStream_t stream_;
};

}  // namespace

template <class T>
std::unique_ptr<engine<T>> make_csr_scalar(const engine_args<T>& x) {
  return std::make_unique<scalar_engine<T>>(x.csr, x.stream);
}

PERRON_SPMV_INSTANTIATE_MAKE(csr_scalar)

}  // namespace perron::cuda::spmv
