// Batched personalized PageRank on the GPU: per step one SpMM over P^T for
// the whole block (spmm_plan), one fused update kernel that also leaves
// per-block, per-column partial sums, and one small kernel per column that
// adds those partials in block order (deterministic, core/cuda/reduce.cuh)
// into the column's residual and the next step's teleport coefficient.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/reduce.cuh"
#include "core/cuda/support.cuh"
#include "core/device.hpp"
#include "kernels/spmm.hpp"
#include "solvers/pagerank_batched.hpp"

namespace perron {
namespace {

constexpr int threads = cuda::detail::block_size;  // 256: also the widest block (columns)
constexpr unsigned max_blocks = 1024;

// Thread t of a block owns column t % k of rows t / k, t / k + rpp, ... of the
// block's row range (rpp = threads / k rows per pass; the row-major block keeps
// a pass's reads and writes contiguous). Per element:
//   R(i, c) <- T(alpha Y(i, c) + coef_c v_c(i)),
// with |R_new - R| and, for dangling i, R_new summed per thread, then per
// column over the block's threads in thread order into partials
// [l1: c * blocks + b], [dangling: (k + c) * blocks + b].
template <class T>
__global__ void update_kernel(T* __restrict__ r, const T* __restrict__ y, index_t n, int k,
                              index_t rows_per_block, double alpha, const double* __restrict__ coef,
                              const index_t* __restrict__ v_ptr, const index_t* __restrict__ v_slot,
                              const double* __restrict__ v_weight, const std::uint8_t* __restrict__ dangling,
                              double* __restrict__ partials) {
  __shared__ double s_l1[threads], s_d[threads];
  const int rpp = threads / k;
  const int t = static_cast<int>(threadIdx.x);
  const int c = t % k;
  double l1 = 0.0, d = 0.0;
  if (t < rpp * k) {
    const index_t first = static_cast<index_t>(blockIdx.x) * rows_per_block;
    const index_t last = min(n, first + rows_per_block);
    const double cc = coef[c];
    for (index_t i = first + t / k; i < last; i += rpp) {
      const std::size_t at =
          static_cast<std::size_t>(i) * static_cast<std::size_t>(k) + static_cast<std::size_t>(c);
      double x = alpha * static_cast<double>(y[at]);
      for (index_t e = v_ptr[i]; e < v_ptr[i + 1]; ++e)
        if (v_slot[e] == c) x += cc * v_weight[e];
      const T rn = static_cast<T>(x);
      l1 += fabs(static_cast<double>(rn) - static_cast<double>(r[at]));
      r[at] = rn;
      if (dangling[i]) d += static_cast<double>(rn);
    }
  }
  s_l1[t] = l1;
  s_d[t] = d;
  __syncthreads();
  if (t < k) {
    double a = 0.0, b = 0.0;
    for (int j = t; j < rpp * k; j += k) a += s_l1[j], b += s_d[j];
    partials[static_cast<std::size_t>(t) * gridDim.x + blockIdx.x] = a;
    partials[static_cast<std::size_t>(k + t) * gridDim.x + blockIdx.x] = b;
  }
}

// Block c: column c's partials in block order (block_reduce's fixed tree), then
// l1[c] = the residual, coef[c] = alpha * dangling_c + 1 - alpha for the next step.
__global__ void finish_kernel(const double* __restrict__ partials, int k, unsigned blocks, double alpha,
                              double* __restrict__ l1, double* __restrict__ coef) {
  __shared__ double smem[2 * cuda::detail::warps_per_block];
  const unsigned c = blockIdx.x;
  double v[2] = {0.0, 0.0};
  for (unsigned b = threadIdx.x; b < blocks; b += blockDim.x) {
    v[0] += partials[static_cast<std::size_t>(c) * blocks + b];
    v[1] += partials[static_cast<std::size_t>(k + c) * blocks + b];
  }
  cuda::detail::block_reduce<2, cuda::detail::sum_op>(v, smem);
  if (threadIdx.x == 0) {
    l1[c] = v[0];
    coef[c] = alpha * v[1] + (1.0 - alpha);
  }
}

template <class T>
__global__ void fill_kernel(T* r, std::size_t count, T value) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    r[i] = value;
}

// out(i, j) = in(i, keep[j]) for an n x k block into an n x kn one.
template <class T>
__global__ void gather_kernel(const T* __restrict__ in, T* __restrict__ out, index_t n, int k, int kn,
                              const index_t* __restrict__ keep) {
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(kn);
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i = e / static_cast<std::size_t>(kn), j = e % static_cast<std::size_t>(kn);
    out[e] = in[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(keep[j])];
  }
}

template <class T>
__global__ void column_kernel(const T* __restrict__ r, index_t n, int k, int slot, double* __restrict__ out) {
  for (index_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = static_cast<double>(r[static_cast<std::size_t>(i) * static_cast<std::size_t>(k) + slot]);
}

// Everything on the legacy default stream, so the synchronous uploads and
// downloads of device_buffer stay ordered with the kernels.
template <class T>
class gpu_backend final : public detail::batched_backend {
 public:
  gpu_backend(const pagerank_graph<T>& g, double alpha, int width)
      : n_(g.vertices()),
        dangling_count_(g.dangling_count),
        alpha_(alpha),
        plan_(g.pt),
        dangling_(g.dangling),
        r_(static_cast<std::size_t>(n_) * static_cast<std::size_t>(width)),
        y_(r_.size()),
        coef_(static_cast<std::size_t>(width)),
        l1_(static_cast<std::size_t>(width)),
        column_(static_cast<std::size_t>(n_)),
        partials_(2 * static_cast<std::size_t>(width) * max_blocks),
        host_l1_(static_cast<std::size_t>(width)) {}

  void begin(const detail::teleport_rows& v, index_t k) override {
    k_ = static_cast<int>(k);
    upload_teleport(v);
    const T r0 = static_cast<T>(1.0 / static_cast<double>(n_));
    const std::size_t count = static_cast<std::size_t>(n_) * static_cast<std::size_t>(k_);
    fill_kernel<<<cuda::grid_for(count, threads, max_blocks), threads>>>(r_.data(), count, r0);
    PERRON_CUDA_CHECK(cudaGetLastError());
    const double c0 = alpha_ * static_cast<double>(dangling_count_) * double(r0) + (1.0 - alpha_);
    coef_.upload(std::vector<double>(static_cast<std::size_t>(width_capacity()), c0));
  }

  void step(std::vector<double>& l1) override {
    plan_.apply(T(1), r_.data(), T(0), y_.data(), k_);
    const index_t rpp = threads / k_;
    // rows per block: a whole number of passes, at most max_blocks blocks
    const index_t passes = (n_ + rpp - 1) / rpp;
    const index_t per_block = (passes + max_blocks - 1) / max_blocks;
    const index_t rows_per_block = per_block * rpp;
    const auto blocks = static_cast<unsigned>((n_ + rows_per_block - 1) / rows_per_block);
    update_kernel<T><<<blocks, threads>>>(r_.data(), y_.data(), n_, k_, rows_per_block, alpha_, coef_.data(),
                                          v_ptr_.data(), v_slot_.data(), v_weight_.data(), dangling_.data(),
                                          partials_.data());
    PERRON_CUDA_CHECK(cudaGetLastError());
    finish_kernel<<<static_cast<unsigned>(k_), threads>>>(partials_.data(), k_, blocks, alpha_, l1_.data(),
                                                          coef_.data());
    PERRON_CUDA_CHECK(cudaGetLastError());
    host_l1_.read(l1_.data(), nullptr, static_cast<std::size_t>(k_));
    for (int c = 0; c < k_; ++c) l1[static_cast<std::size_t>(c)] = host_l1_[static_cast<std::size_t>(c)];
  }

  void extract(index_t slot, double* out) override {
    column_kernel<T><<<cuda::grid_for(static_cast<std::size_t>(n_), threads, max_blocks), threads>>>(
        r_.data(), n_, k_, static_cast<int>(slot), column_.data());
    PERRON_CUDA_CHECK(cudaGetLastError());
    column_.download(out);
  }

  void compact(const std::vector<index_t>& keep, const detail::teleport_rows& v) override {
    const int kn = static_cast<int>(keep.size());
    cuda::device_buffer<index_t> d_keep(keep);
    const std::size_t count = static_cast<std::size_t>(n_) * static_cast<std::size_t>(kn);
    gather_kernel<T><<<cuda::grid_for(count, threads, max_blocks), threads>>>(r_.data(), y_.data(), n_, k_,
                                                                              kn, d_keep.data());
    PERRON_CUDA_CHECK(cudaGetLastError());
    std::swap(r_, y_);
    std::vector<double> coef = coef_.download(), next(coef.size(), 0.0);
    for (int j = 0; j < kn; ++j) next[static_cast<std::size_t>(j)] = coef[static_cast<std::size_t>(keep[j])];
    coef_.upload(next);
    k_ = kn;
    upload_teleport(v);
  }

 private:
  int width_capacity() const { return static_cast<int>(l1_.size()); }
  void upload_teleport(const detail::teleport_rows& v) {
    v_ptr_.upload(v.row_ptr);
    v_slot_.upload(v.slot.empty() ? std::vector<index_t>(1, -1) : v.slot);
    v_weight_.upload(v.weight.empty() ? std::vector<double>(1, 0.0) : v.weight);
  }

  index_t n_;
  index_t dangling_count_;
  double alpha_;
  int k_ = 0;
  spmm_plan<T> plan_;
  cuda::device_buffer<std::uint8_t> dangling_;
  cuda::device_buffer<T> r_, y_;  // n x width, row-major; y_ also receives compactions
  cuda::device_buffer<double> coef_, l1_, column_, partials_;
  cuda::device_buffer<index_t> v_ptr_, v_slot_;
  cuda::device_buffer<double> v_weight_;
  cuda::pinned_buffer<double> host_l1_;
};

}  // namespace

template <class T>
pagerank_batched_result pagerank_batched_cuda(const pagerank_graph<T>& g,
                                              const std::vector<source_set>& sources,
                                              const pagerank_batched_options& opt) {
  opt.validate(g.vertices(), sources);
  const int width = static_cast<int>(std::min<std::size_t>(sources.size(), std::size_t(opt.block_columns)));
  gpu_backend<T> b(g, opt.base.alpha, width);
  pagerank_batched_result res;
  detail::run_batched(b, g.vertices(), sources, opt, res);
  res.on_gpu = true;
  return res;
}

template pagerank_batched_result pagerank_batched_cuda<float>(const pagerank_graph<float>&,
                                                              const std::vector<source_set>&,
                                                              const pagerank_batched_options&);
template pagerank_batched_result pagerank_batched_cuda<double>(const pagerank_graph<double>&,
                                                               const std::vector<source_set>&,
                                                               const pagerank_batched_options&);

}  // namespace perron
