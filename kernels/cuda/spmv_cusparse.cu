// cusparse / cusparse-alg2: cuSPARSE's generic SpMV on the plan's CSR arrays,
// CUSPARSE_SPMV_CSR_ALG1 (the baseline spmv-bench compares against) or
// CUSPARSE_SPMV_CSR_ALG2 (deterministic). Handle, descriptors and the external
// buffer are made once with the plan (with cusparseSpMV_preprocess); apply()
// only points the dense-vector descriptors at x and y and calls cusparseSpMV.
#include <cusparse.h>

#include "core/cuda/check.cuh"
#include "kernels/cuda/spmv_engine.cuh"

namespace perron::cuda::spmv {
namespace {

template <class T>
constexpr cudaDataType value_type = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;

template <class T>
class cusparse_engine final : public engine<T> {
 public:
  cusparse_engine(csr_ptr<T> a, bool alg2, cudaStream_t s)
      : a_(std::move(a)),
        alg_(alg2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1),
        alg2_(alg2),
        stream_(s) {
    // cuSPARSE rejects some empty shapes; a matrix without nonzeros is y = beta y.
    if (a_->nnz == 0) return;
    try {
      PERRON_CUSPARSE_CHECK(cusparseCreate(&handle_));
      PERRON_CUSPARSE_CHECK(cusparseSetStream(handle_, stream_));
      PERRON_CUSPARSE_CHECK(cusparseCreateCsr(
          &mat_, a_->rows, a_->cols, static_cast<int64_t>(a_->nnz), const_cast<index_t*>(a_->row_ptr.data()),
          const_cast<index_t*>(a_->col_idx.data()), const_cast<T*>(a_->values.data()), CUSPARSE_INDEX_32I,
          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type<T>));
      // Placeholder vectors for the set-up calls only; apply() points the
      // descriptors at the caller's x and y before every cusparseSpMV.
      device_buffer<T> scratch_x(static_cast<std::size_t>(a_->cols)),
          scratch_y(static_cast<std::size_t>(a_->rows));
      PERRON_CUSPARSE_CHECK(cusparseCreateDnVec(&vec_x_, a_->cols, scratch_x.data(), value_type<T>));
      PERRON_CUSPARSE_CHECK(cusparseCreateDnVec(&vec_y_, a_->rows, scratch_y.data(), value_type<T>));
      const T one = 1, zero = 0;
      std::size_t bytes = 0;
      PERRON_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_,
                                                    vec_x_, &zero, vec_y_, value_type<T>, alg_, &bytes));
      buffer_ = device_buffer<unsigned char>(bytes);
      PERRON_CUSPARSE_CHECK(cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_,
                                                    vec_x_, &zero, vec_y_, value_type<T>, alg_,
                                                    buffer_.data()));
      PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before the placeholders are freed
    } catch (...) {
      release();
      throw;
    }
  }
  ~cusparse_engine() override { release(); }
  cusparse_engine(const cusparse_engine&) = delete;
  cusparse_engine& operator=(const cusparse_engine&) = delete;

  void apply(T alpha, const T* d_x, T beta, T* d_y) const override {
    if (a_->nnz == 0) return scale_y(a_->rows, beta, d_y, stream_);
    PERRON_CUSPARSE_CHECK(cusparseDnVecSetValues(vec_x_, const_cast<T*>(d_x)));
    PERRON_CUSPARSE_CHECK(cusparseDnVecSetValues(vec_y_, d_y));
    PERRON_CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_, vec_x_, &beta,
                                       vec_y_, value_type<T>, alg_, buffer_.data()));
  }
  std::size_t extra_bytes() const override { return buffer_.bytes(); }
  bool reads_every_value() const override { return true; }
  std::string description() const override {
    return alg2_ ? "cusparse-alg2 (cusparseSpMV, CUSPARSE_SPMV_CSR_ALG2)"
                 : "cusparse (cusparseSpMV, CUSPARSE_SPMV_CSR_ALG1)";
  }

 private:
  void release() noexcept {
    if (vec_y_) cusparseDestroyDnVec(vec_y_);
    if (vec_x_) cusparseDestroyDnVec(vec_x_);
    if (mat_) cusparseDestroySpMat(mat_);
    if (handle_) cusparseDestroy(handle_);
    vec_y_ = vec_x_ = nullptr;
    mat_ = nullptr;
    handle_ = nullptr;
  }

  csr_ptr<T> a_;
  cusparseSpMVAlg_t alg_;
  bool alg2_;
  cudaStream_t stream_;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t mat_ = nullptr;
  cusparseDnVecDescr_t vec_x_ = nullptr;  // values pointer set per call
  cusparseDnVecDescr_t vec_y_ = nullptr;
  mutable device_buffer<unsigned char> buffer_;
};

}  // namespace

template <class T>
std::unique_ptr<engine<T>> make_cusparse(const engine_args<T>& x) {
  return std::make_unique<cusparse_engine<T>>(x.csr, false, x.stream);
}
template <class T>
std::unique_ptr<engine<T>> make_cusparse_alg2(const engine_args<T>& x) {
  return std::make_unique<cusparse_engine<T>>(x.csr, true, x.stream);
}

PERRON_SPMV_INSTANTIATE_MAKE(cusparse)
PERRON_SPMV_INSTANTIATE_MAKE(cusparse_alg2)

}  // namespace perron::cuda::spmv
