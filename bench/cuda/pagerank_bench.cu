// The naive cuSPARSE + thrust PageRank that `pagerank --bench` compares
// perron's GPU solver with.
// The baseline is deliberately written the common way (one library call per
// operation, reductions returned to the host): do not "fix" it.
#include <cuda_runtime.h>
#include <cusparse.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "bench/pagerank_bench.hpp"
#include "core/cuda/check.cuh"
#include "core/error.hpp"

namespace perron::bench {
namespace {

template <class T>
constexpr cudaDataType cuda_type() {
  return std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
}

template <class T>
struct add_scalar {
  double c;
  __host__ __device__ T operator()(T a) const { return static_cast<T>(static_cast<double>(a) + c); }
};

template <class T>
struct abs_difference {
  __host__ __device__ double operator()(const thrust::tuple<T, T>& t) const {
    return fabs(static_cast<double>(thrust::get<0>(t)) - static_cast<double>(thrust::get<1>(t)));
  }
};

}  // namespace

template <class T>
struct cusparse_baseline<T>::impl {
  index_t n = 0;
  cusparseHandle_t handle = nullptr;
  cuda::device_buffer<index_t> d_row_ptr, d_col;
  cuda::device_buffer<T> d_val, d_r, d_y, d_mask;
  cuda::device_buffer<unsigned char> d_buffer;
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vec_r = nullptr, vec_y = nullptr;

  ~impl() {
    if (vec_r) cusparseDestroyDnVec(vec_r);
    if (vec_y) cusparseDestroyDnVec(vec_y);
    if (mat) cusparseDestroySpMat(mat);
    if (handle) cusparseDestroy(handle);
  }
};

template <class T>
cusparse_baseline<T>::cusparse_baseline(const pagerank_graph<T>& g)
    : impl_(new impl, [](impl* p) { delete p; }) {
  impl& m = *impl_;
  m.n = g.vertices();
  if (m.n <= 0) throw invalid_argument("the graph is empty (0 vertices)");
  const auto nn = static_cast<std::size_t>(m.n);
  m.d_row_ptr = cuda::device_buffer<index_t>(g.pt.row_ptr);
  m.d_col = cuda::device_buffer<index_t>(std::max<std::size_t>(g.pt.nnz(), 1));
  m.d_val = cuda::device_buffer<T>(std::max<std::size_t>(g.pt.nnz(), 1));
  if (g.pt.nnz()) {
    m.d_col.upload(g.pt.col_idx);
    m.d_val.upload(g.pt.values);
  }
  m.d_r = cuda::device_buffer<T>(nn);
  m.d_y = cuda::device_buffer<T>(nn);
  std::vector<T> mask(nn);
  for (std::size_t j = 0; j < nn; ++j) mask[j] = g.dangling[j] ? T(1) : T(0);
  m.d_mask = cuda::device_buffer<T>(mask);

  PERRON_CUSPARSE_CHECK(cusparseCreate(&m.handle));
  PERRON_CUSPARSE_CHECK(cusparseCreateCsr(
      &m.mat, m.n, m.n, static_cast<std::int64_t>(g.pt.nnz()), m.d_row_ptr.data(), m.d_col.data(),
      m.d_val.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, cuda_type<T>()));
  PERRON_CUSPARSE_CHECK(cusparseCreateDnVec(&m.vec_r, m.n, m.d_r.data(), cuda_type<T>()));
  PERRON_CUSPARSE_CHECK(cusparseCreateDnVec(&m.vec_y, m.n, m.d_y.data(), cuda_type<T>()));
  const T one = 1, zero = 0;
  std::size_t buffer_bytes = 0;
  PERRON_CUSPARSE_CHECK(cusparseSpMV_bufferSize(m.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m.mat,
                                                m.vec_r, &zero, m.vec_y, cuda_type<T>(),
                                                CUSPARSE_SPMV_ALG_DEFAULT, &buffer_bytes));
  m.d_buffer = cuda::device_buffer<unsigned char>(std::max<std::size_t>(buffer_bytes, 1));
  cuda::synchronize();
}

template <class T>
pagerank_result cusparse_baseline<T>::solve(double alpha, double tol, int max_iter) {
  impl& m = *impl_;
  const index_t n = m.n;
  const auto t0 = std::chrono::steady_clock::now();
  T* r = m.d_r.data();
  T* y = m.d_y.data();
  thrust::fill(thrust::device, r, r + n, static_cast<T>(1.0 / n));
  const T alpha_t = static_cast<T>(alpha), zero = 0;
  pagerank_result res;
  for (int k = 1; k <= max_iter; ++k) {
    // dangling mass (to the host)
    const double dangling = thrust::inner_product(thrust::device, r, r + n, m.d_mask.data(), 0.0);
    // y = alpha P^T r
    PERRON_CUSPARSE_CHECK(cusparseDnVecSetValues(m.vec_r, r));
    PERRON_CUSPARSE_CHECK(cusparseDnVecSetValues(m.vec_y, y));
    PERRON_CUSPARSE_CHECK(cusparseSpMV(m.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_t, m.mat, m.vec_r,
                                       &zero, m.vec_y, cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT,
                                       m.d_buffer.data()));
    // y += (alpha * dangling + 1 - alpha) / n
    const double c = (alpha * dangling + (1.0 - alpha)) / n;
    thrust::transform(thrust::device, y, y + n, y, add_scalar<T>{c});
    // ||y - r||_1 (to the host)
    auto first = thrust::make_zip_iterator(thrust::make_tuple(y, r));
    const double l1 = thrust::transform_reduce(thrust::device, first, first + n, abs_difference<T>{}, 0.0,
                                               thrust::plus<double>());
    std::swap(r, y);
    res.iterations = k;
    res.residual = l1;
    if (l1 < tol) {
      res.converged = true;
      break;
    }
  }
  std::vector<T> h(static_cast<std::size_t>(n));
  PERRON_CUDA_CHECK(cudaMemcpy(h.data(), r, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
  res.rank.assign(h.begin(), h.end());
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.on_gpu = true;
  res.kernel = spmv_kernel::cusparse;
  res.loop = pagerank_loop::host;
  res.host_syncs = 2ull * static_cast<unsigned long long>(res.iterations) + 1;
  return res;
}

std::size_t l2_cache_bytes() {
  int device = 0, bytes = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
  return static_cast<std::size_t>(bytes);
}

template class cusparse_baseline<float>;
template class cusparse_baseline<double>;

}  // namespace perron::bench
