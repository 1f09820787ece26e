// cuSPARSE SpMM baseline (bench/spmm_baseline.hpp).
#include <cusparse.h>

#include "bench/spmm_baseline.hpp"
#include "core/cuda/check.cuh"

namespace perron {
namespace {
template <class T>
constexpr cudaDataType cuda_type() {
  return sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F;
}

cusparseSpMMAlg_t cusparse_alg(cusparse_spmm_alg a) {
  switch (a) {
    case cusparse_spmm_alg::csr_alg1:
      return CUSPARSE_SPMM_CSR_ALG1;
    case cusparse_spmm_alg::csr_alg2:
      return CUSPARSE_SPMM_CSR_ALG2;
    case cusparse_spmm_alg::csr_alg3:
      return CUSPARSE_SPMM_CSR_ALG3;
    default:
      return CUSPARSE_SPMM_ALG_DEFAULT;
  }
}
}  // namespace

template <class T>
struct cusparse_spmm<T>::impl {
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnMatDescr_t x = nullptr, y = nullptr;
  cusparseSpMMAlg_t alg = CUSPARSE_SPMM_ALG_DEFAULT;
  cuda::device_buffer<char> work;
  ~impl() {
    if (x) cusparseDestroyDnMat(x);
    if (y) cusparseDestroyDnMat(y);
    if (mat) cusparseDestroySpMat(mat);
    if (handle) cusparseDestroy(handle);
  }
};

template <class T>
cusparse_spmm<T>::cusparse_spmm(const spmm_plan<T>& a, index_t k, cusparse_spmm_alg alg, const T* d_x, T* d_y)
    : impl_(std::make_unique<impl>()) {
  impl& m = *impl_;
  m.alg = cusparse_alg(alg);
  PERRON_CUSPARSE_CHECK(cusparseCreate(&m.handle));
  PERRON_CUSPARSE_CHECK(cusparseSetStream(m.handle, a.stream()));
  PERRON_CUSPARSE_CHECK(cusparseCreateCsr(&m.mat, a.rows(), a.cols(), static_cast<std::int64_t>(a.nnz()),
                                          const_cast<index_t*>(a.device_row_ptr()),
                                          const_cast<index_t*>(a.device_col_idx()),
                                          const_cast<T*>(a.device_values()), CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, cuda_type<T>()));
  PERRON_CUSPARSE_CHECK(
      cusparseCreateDnMat(&m.x, a.cols(), k, k, const_cast<T*>(d_x), cuda_type<T>(), CUSPARSE_ORDER_ROW));
  PERRON_CUSPARSE_CHECK(cusparseCreateDnMat(&m.y, a.rows(), k, k, d_y, cuda_type<T>(), CUSPARSE_ORDER_ROW));
  const T one = 1, zero = 0;
  std::size_t bytes = 0;
  PERRON_CUSPARSE_CHECK(cusparseSpMM_bufferSize(m.handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m.mat, m.x, &zero,
                                                m.y, cuda_type<T>(), m.alg, &bytes));
  m.work = cuda::device_buffer<char>(bytes ? bytes : 1);
  if (m.alg == CUSPARSE_SPMM_CSR_ALG3)
    PERRON_CUSPARSE_CHECK(cusparseSpMM_preprocess(m.handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                  CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m.mat, m.x, &zero,
                                                  m.y, cuda_type<T>(), m.alg, m.work.data()));
}

template <class T>
cusparse_spmm<T>::~cusparse_spmm() = default;

template <class T>
void cusparse_spmm<T>::operator()(T alpha, T beta) const {
  const impl& m = *impl_;
  PERRON_CUSPARSE_CHECK(cusparseSpMM(m.handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                     CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, m.mat, m.x, &beta, m.y,
                                     cuda_type<T>(), m.alg, const_cast<char*>(m.work.data())));
}

template class cusparse_spmm<float>;
template class cusparse_spmm<double>;

}  // namespace perron
