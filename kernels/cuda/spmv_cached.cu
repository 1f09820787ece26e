// csr-cached: thread per row with the block's window of x in shared memory
// (Garland's csrmul_cached). Block b handles rows [256b, 256b + 256) and first
// stages x[256b, 256b + 256) (clipped to cols): entries near the diagonal then
// read x from shared memory instead of the cache hierarchy.
//
// Bytes: the same matrix traffic as csr-scalar; it saves only x gathers, and
// only for near-diagonal entries of square-ish matrices (banded, FEM).
#include "core/cuda/check.cuh"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/cuda/spmv_engine.cuh"

namespace perron::cuda::spmv {
namespace {

constexpr unsigned cached_block = 256;

template <class T, class Values>
__global__ void __launch_bounds__(cached_block)
    csr_cached_kernel(index_t rows, index_t cols, const index_t* __restrict__ row_ptr,
                      const index_t* __restrict__ col_idx, Values values, const T* __restrict__ x, T alpha,
                      T beta, T* __restrict__ y) {
  __shared__ T window[cached_block];
  const std::size_t window_begin = static_cast<std::size_t>(blockIdx.x) * cached_block;
  const std::size_t window_end = min(window_begin + cached_block, static_cast<std::size_t>(cols));
  if (window_begin + threadIdx.x < window_end) window[threadIdx.x] = load_x(x + window_begin + threadIdx.x);
  __syncthreads();  // before any early exit: every thread of the block reaches it

  const std::size_t r = window_begin + threadIdx.x;
  if (r >= static_cast<std::size_t>(rows)) return;
  const long long begin = load_stream(row_ptr + r), end = load_stream(row_ptr + r + 1);
  T sum = 0;
  for (long long k = begin; k < end; ++k) {
    const std::size_t c = static_cast<std::size_t>(load_stream(col_idx + k));
    const T xc = (c >= window_begin && c < window_end) ? window[c - window_begin] : load_x(x + c);
    sum += values[k] * xc;
  }
  store_y(y, r, alpha, sum, beta);
}

template <class T>
class cached_engine final : public engine<T> {
 public:
  cached_engine(csr_ptr<T> a, cudaStream_t s) : a_(std::move(a)), stream_(s) {}

  void apply(T alpha, const T* d_x, T beta, T* d_y) const override {
    const unsigned grid = grid_for(static_cast<std::size_t>(a_->rows), cached_block, "csr-cached");
    launch_with_values(*a_, alpha, [&](auto values, T scaled) {
      csr_cached_kernel<<<grid, cached_block, 0, stream_>>>(
          a_->rows, a_->cols, a_->row_ptr.data(), a_->col_idx.data(), values, d_x, scaled, beta, d_y);
    });
    PERRON_CUDA_CHECK_LAUNCH("csr_cached_kernel");
  }
  std::size_t extra_bytes() const override { return 0; }
  std::string description() const override { return "csr-cached (1 thread/row, 256-entry x window)"; }

 private:
  csr_ptr<T> a_;
  cudaStream_t stream_;
};

}  // namespace

template <class T>
std::unique_ptr<engine<T>> make_csr_cached(const engine_args<T>& x) {
  return std::make_unique<cached_engine<T>>(x.csr, x.stream);
}

PERRON_SPMV_INSTANTIATE_MAKE(csr_cached)

}  // namespace perron::cuda::spmv
