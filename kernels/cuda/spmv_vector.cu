// csr-vector: a group of V lanes per row (V = 2..32, a power of two sized to
// the mean row length, as in CUSP), lanes striding the row, then a shuffle
// reduction (Bell & Garland's CSR vector kernel, without the volatile
// shared-memory reduction that is wrong since Volta).
//
// Bytes: a group reads its row's col_idx/values contiguously, so loads are
// coalesced when rows are about V long; rows much shorter than V waste lanes,
// much longer ones serialise on one group.
#include <algorithm>

#include "core/cuda/check.cuh"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/cuda/spmv_engine.cuh"

namespace perron::cuda::spmv {
namespace {

constexpr unsigned vector_block = 256;

template <int V, class T, class Values>
__global__ void __launch_bounds__(vector_block)
    csr_vector_kernel(index_t rows, const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                      Values values, const T* __restrict__ x, T alpha, T beta, T* __restrict__ y) {
  const std::size_t t = global_thread();
  const std::size_t r = t / V;
  const int lane = static_cast<int>(t % V);
  T sum = 0;
  if (r < static_cast<std::size_t>(rows)) {
    // 64-bit positions: k + 2V must not overflow near nnz = 2^31 - 1.
    const long long end = load_stream(row_ptr + r + 1);
    long long k = load_stream(row_ptr + r) + lane;
    // Two independent gathers in flight per lane and step.
    for (; k + V < end; k += 2 * V) {
      const index_t c0 = load_once(col_idx + k), c1 = load_once(col_idx + k + V);
      const T v0 = values.once(k), v1 = values.once(k + V);
      sum += v0 * load_x(x + c0);
      sum += v1 * load_x(x + c1);
    }
    if (k < end) sum += values.once(k) * load_x(x + load_once(col_idx + k));
  }
  // Every lane of the warp takes part (groups never straddle warps: V | 32).
  sum = group_sum<V>(sum);
  if (lane == 0 && r < static_cast<std::size_t>(rows)) store_y(y, r, alpha, sum, beta);
}

template <class T>
class vector_engine final : public engine<T> {
 public:
  vector_engine(csr_ptr<T> a, int lanes, cudaStream_t s) : a_(std::move(a)), lanes_(lanes), stream_(s) {}

  void apply(T alpha, const T* d_x, T beta, T* d_y) const override {
    switch (lanes_) {
      case 2:
        return launch<2>(alpha, d_x, beta, d_y);
      case 4:
        return launch<4>(alpha, d_x, beta, d_y);
      case 8:
        return launch<8>(alpha, d_x, beta, d_y);
      case 16:
        return launch<16>(alpha, d_x, beta, d_y);
      default:
        return launch<32>(alpha, d_x, beta, d_y);
    }
  }
  std::size_t extra_bytes() const override { return 0; }
  std::string description() const override { return "csr-vector (" + std::to_string(lanes_) + " lanes/row)"; }

 private:
  template <int V>
  void launch(T alpha, const T* d_x, T beta, T* d_y) const {
    const unsigned grid = grid_for(static_cast<std::size_t>(a_->rows) * V, vector_block, "csr-vector");
    launch_with_values(*a_, alpha, [&](auto values, T scaled) {
      csr_vector_kernel<V, T><<<grid, vector_block, 0, stream_>>>(
          a_->rows, a_->row_ptr.data(), a_->col_idx.data(), values, d_x, scaled, beta, d_y);
    });
    PERRON_CUDA_CHECK_LAUNCH("csr_vector_kernel");
  }

  csr_ptr<T> a_;
  int lanes_;
  cudaStream_t stream_;
};

}  // namespace

template <class T>
std::unique_ptr<engine<T>> make_csr_vector(const engine_args<T>& x) {
  // Smallest power of two >= the mean row length, within [2, 32].
  int lanes = 2;
  while (lanes < 32 && lanes < x.stats.mean_len) lanes *= 2;
  return std::make_unique<vector_engine<T>>(x.csr, lanes, x.stream);
}

PERRON_SPMV_INSTANTIATE_MAKE(csr_vector)

}  // namespace perron::cuda::spmv
