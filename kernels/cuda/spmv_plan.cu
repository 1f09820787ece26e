// spmv_plan: validates and uploads the matrix once, builds the engine of the
// requested kernel (or lets the auto trial pick one), and forwards apply().
#include <algorithm>
#include <limits>
#include <string>

#include "core/cuda/check.cuh"
#include "core/error.hpp"
#include "core/text.hpp"
#include "kernels/convert.hpp"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/cuda/spmv_engine.cuh"
#include "kernels/spmv.hpp"

namespace perron {
namespace cuda::spmv {
namespace {

template <class T>
__global__ void scale_kernel(std::size_t n, T beta, T* __restrict__ y) {
  const std::size_t i = global_thread();
  if (i < n) y[i] = beta == T(0) ? T(0) : beta * y[i];  // beta == 0: y not read
}

template <class T>
__global__ void fill_kernel(std::size_t n, T value, T* __restrict__ d) {
  const std::size_t i = global_thread();
  if (i < n) d[i] = value;
}

std::string dims(index_t rows, index_t cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

}  // namespace

template <class T>
void scale_y(index_t rows, T beta, T* d_y, cudaStream_t s) {
  if (rows <= 0) return;
  scale_kernel<T><<<grid_for(static_cast<std::size_t>(rows), 256, "scale"), 256, 0, s>>>(
      static_cast<std::size_t>(rows), beta, d_y);
  PERRON_CUDA_CHECK_LAUNCH("scale_kernel");
}

template <class T>
void fill(T* d, std::size_t n, T value, cudaStream_t s) {
  if (n == 0) return;
  fill_kernel<T><<<grid_for(n, 256, "fill"), 256, 0, s>>>(n, value, d);
  PERRON_CUDA_CHECK_LAUNCH("fill_kernel");
}

template <class T>
void validate_csr(const csr_matrix<T>& a) {
  const std::string what = "spmv_plan: CSR matrix " + dims(a.rows, a.cols);
  if (a.rows < 0 || a.cols < 0) throw dimension_error(what + " has a negative dimension");
  if (a.row_ptr.size() != static_cast<std::size_t>(a.rows) + 1)
    throw dimension_error(
        what + ": row_ptr has " + std::to_string(a.row_ptr.size()) +
        " entries, expected rows + 1 = " + std::to_string(static_cast<std::size_t>(a.rows) + 1));
  if (a.col_idx.size() != a.values.size())
    throw dimension_error(what + ": col_idx has " + std::to_string(a.col_idx.size()) +
                          " entries but values has " + std::to_string(a.values.size()));
  // The O(nnz) checks in parallel (core/formats.cpp): serial here, they took
  // 9-21 ms of web:1048576:16777216's GPU set-up (H200 host, session 74).
  validate_pattern(a.rows, a.cols, a.row_ptr.data(), a.row_ptr.size(), a.col_idx.data(), a.col_idx.size(),
                   what.c_str());
}

template <class T>
std::shared_ptr<const device_csr<T>> upload_csr(const csr_matrix<T>& a) {
  auto d = std::make_shared<device_csr<T>>();
  d->rows = a.rows;
  d->cols = a.cols;
  d->nnz = a.nnz();
  d->row_ptr.upload(a.row_ptr);
  d->col_idx.upload(a.col_idx);
  d->values.upload(a.values);
  // One value only, 1 or -1: the CSR kernels then read none.
  if (runs_as_pattern(a)) {
    d->one_value_only = true;
    d->one_value = a.values.front();
  }
  return d;
}

template <class T>
row_stats stats_of(const csr_matrix<T>& a) {
  row_stats st;
  st.rows = a.rows;
  st.nnz = a.nnz();
  st.max_len = longest_row(a.row_ptr.data(), a.rows);
  st.mean_len = a.rows > 0 ? static_cast<double>(st.nnz) / a.rows : 0.0;
  return st;
}

namespace {
[[noreturn]] void no_engine(spmv_kernel k) {
  throw invalid_argument("spmv_plan: kernel '" + std::string(name(k)) + "' has no GPU engine");
}
}  // namespace

// cpu runs on the host and automatic picks another kernel (spmv_auto.cu): the
// plan handles both before it dispatches.
template <class T>
std::unique_ptr<engine<T>> make_cpu(const engine_args<T>&) {
  no_engine(spmv_kernel::cpu);
}
template <class T>
std::unique_ptr<engine<T>> make_automatic(const engine_args<T>&) {
  no_engine(spmv_kernel::automatic);
}

template <class T>
std::unique_ptr<engine<T>> make_engine(spmv_kernel k, const csr_matrix<T>* h, const csr_ptr<T>& a,
                                       const row_stats& st, cudaStream_t s) {
  const engine_args<T> args{h, a, st, s};
  switch (k) {
#define PERRON_SPMV_KERNEL(id, ...) \
  case spmv_kernel::id:             \
    return make_##id<T>(args);
#include "core/spmv_kernels.def"
#undef PERRON_SPMV_KERNEL
  }
  no_engine(k);
}

#define PERRON_SPMV_ENGINE_INSTANTIATE(T)                                                                  \
  template void scale_y<T>(index_t, T, T*, cudaStream_t);                                                  \
  template void fill<T>(T*, std::size_t, T, cudaStream_t);                                                 \
  template void validate_csr<T>(const csr_matrix<T>&);                                                     \
  template std::shared_ptr<const device_csr<T>> upload_csr<T>(const csr_matrix<T>&);                       \
  template row_stats stats_of<T>(const csr_matrix<T>&);                                                    \
  template std::unique_ptr<engine<T>> make_engine<T>(spmv_kernel, const csr_matrix<T>*, const csr_ptr<T>&, \
                                                     const row_stats&, cudaStream_t);
PERRON_SPMV_ENGINE_INSTANTIATE(float)
PERRON_SPMV_ENGINE_INSTANTIATE(double)
#undef PERRON_SPMV_ENGINE_INSTANTIATE

}  // namespace cuda::spmv

// ---- the plan ------------------------------------------------------------------

template <class T>
struct spmv_plan<T>::impl {
  spmv_kernel kernel = spmv_kernel::csr_scalar;
  index_t rows = 0;
  index_t cols = 0;
  std::size_t nnz = 0;
  cudaStream_t stream = nullptr;
  std::string reason;
  cuda::spmv::csr_ptr<T> csr;  // held only while the engine reads it
  std::unique_ptr<cuda::spmv::engine<T>> engine;
  // Every value this one 1 or -1 and an engine that reads none (0: read).
  T none_read = 0;
};

template <class T>
spmv_plan<T>::spmv_plan(const csr_matrix<T>& a, spmv_kernel kernel, cuda::stream_t stream) {
  namespace sp = cuda::spmv;
  if (!on_gpu(kernel))
    throw invalid_argument(
        "spmv_plan: kernel '" + std::string(name(kernel)) +
        "' runs on the host; call spmv(csr, alpha, x, beta, y) instead of building a GPU plan");
  if (!cuda::available())
    throw cuda_error(cuda::built() ? "spmv_plan: no usable CUDA device"
                                   : "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)");
  sp::validate_csr(a);
  auto p = std::make_unique<impl>();
  p->rows = a.rows;
  p->cols = a.cols;
  p->nnz = a.nnz();
  p->stream = stream;
  const sp::row_stats st = sp::stats_of(a);
  // Every kernel's format is built from the uploaded CSR (ell's on the device
  // too); a kernel that does not read it frees it.
  if (kernel == spmv_kernel::ell) check_ell_fill(st.rows, st.max_len, st.nnz);  // before any upload
  p->csr = sp::upload_csr(a);
  if (kernel == spmv_kernel::automatic) {
    auto choice = sp::choose_automatic(&a, p->csr, st, stream);
    p->kernel = choice.kernel;
    p->engine = std::move(choice.engine);
    p->reason = std::move(choice.reason);
  } else {
    p->engine = sp::make_engine<T>(kernel, &a, p->csr, st, stream);
    p->kernel = kernel;
  }
  if (p->csr && p->csr->one_value_only && !p->engine->reads_every_value()) p->none_read = p->csr->one_value;
  if (!p->engine->uses_csr()) {
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream));  // the format's build read it
    p->csr.reset();
  }
  // Every value 1 (or -1) and a kernel that reads none: their device memory,
  // 4 or 8 bytes a nonzero, goes back (uploaded for the trial's cuSPARSE
  // candidates, which read them). upload_csr made the object non-const.
  if (p->csr && p->none_read != T(0)) {
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream));  // no queued work reads them
    const_cast<sp::device_csr<T>&>(*p->csr).values = cuda::device_buffer<T>();
  }
  // Set-up work (uploads, ticket resets) is queued on `stream`; apply() on the
  // same stream is ordered after it.
  impl_ = std::move(p);
}

// A device CSR: no validation pass, no statistics pass, no upload (the caller
// built the arrays and vouches for the CSR invariants; only the sizes are
// checked here, which costs nothing).
template <class T>
spmv_plan<T>::spmv_plan(device_csr_matrix<T> a, spmv_kernel kernel, cuda::stream_t stream) {
  namespace sp = cuda::spmv;
  if (!on_gpu(kernel))
    throw invalid_argument("spmv_plan: kernel '" + std::string(name(kernel)) +
                           "' runs on the host, and this matrix is on the device");
  if (!cuda::available()) throw cuda_error("spmv_plan: no usable CUDA device");
  const std::string what = "spmv_plan: device CSR matrix " + sp::dims(a.rows, a.cols);
  const std::size_t nnz = a.col_idx.size();
  if (a.rows < 0 || a.cols < 0) throw dimension_error(what + " has a negative dimension");
  if (a.row_ptr.size() != static_cast<std::size_t>(a.rows) + 1 || a.values.size() != nnz)
    throw dimension_error(what + ": " + std::to_string(a.row_ptr.size()) + " row pointers, " +
                          std::to_string(nnz) + " column indices, " + std::to_string(a.values.size()) +
                          " values");
  if (a.max_row_length < 0 || a.max_row_length > a.cols ||
      (a.rows > 0 && nnz > std::size_t(a.rows) * std::size_t(a.max_row_length)))
    throw dimension_error(what + ": longest row " + std::to_string(a.max_row_length) + " cannot hold " +
                          std::to_string(nnz) + " nonzeros");
  auto p = std::make_unique<impl>();
  p->rows = a.rows;
  p->cols = a.cols;
  p->nnz = nnz;
  p->stream = stream;
  auto d = std::make_shared<sp::device_csr<T>>();
  d->rows = a.rows;
  d->cols = a.cols;
  d->nnz = nnz;
  d->row_ptr = std::move(a.row_ptr);
  d->col_idx = std::move(a.col_idx);
  d->values = std::move(a.values);
  p->csr = std::move(d);
  const sp::row_stats st{a.rows, nnz, a.max_row_length, a.rows > 0 ? static_cast<double>(nnz) / a.rows : 0.0};
  if (kernel == spmv_kernel::automatic) {
    auto choice = sp::choose_automatic<T>(nullptr, p->csr, st, stream);
    p->kernel = choice.kernel;
    p->engine = std::move(choice.engine);
    p->reason = std::move(choice.reason);
  } else {
    try {
      p->engine = sp::make_engine<T>(kernel, nullptr, p->csr, st, stream);
    } catch (const dimension_error& e) {
      throw dimension_error("spmv_plan: kernel '" + std::string(name(kernel)) + "': " + e.what());
    }
    p->kernel = kernel;
  }
  impl_ = std::move(p);
}

template <class T>
spmv_plan<T>::~spmv_plan() = default;
template <class T>
spmv_plan<T>::spmv_plan(spmv_plan&&) noexcept = default;
template <class T>
spmv_plan<T>& spmv_plan<T>::operator=(spmv_plan&&) noexcept = default;

namespace {
template <class Impl>
const Impl& checked(const std::unique_ptr<Impl>& p) {
  if (!p) throw invalid_argument("spmv_plan: use of a moved-from plan");
  return *p;
}
}  // namespace

template <class T>
void spmv_plan<T>::apply(T alpha, const T* d_x, T beta, T* d_y) const {
  const impl& p = checked(impl_);
  if (p.rows == 0) return;
  if (d_y == nullptr)
    throw invalid_argument("spmv_plan::apply: y is null for a matrix with " + std::to_string(p.rows) +
                           " rows");
  if (d_x == nullptr && p.nnz > 0)
    throw invalid_argument("spmv_plan::apply: x is null for a matrix with " + std::to_string(p.cols) +
                           " columns");
  p.engine->apply(alpha, d_x, beta, d_y);
}

template <class T>
spmv_kernel spmv_plan<T>::kernel() const {
  return checked(impl_).kernel;
}
template <class T>
index_t spmv_plan<T>::rows() const {
  return checked(impl_).rows;
}
template <class T>
index_t spmv_plan<T>::cols() const {
  return checked(impl_).cols;
}
template <class T>
std::size_t spmv_plan<T>::nnz() const {
  return checked(impl_).nnz;
}
template <class T>
cuda::stream_t spmv_plan<T>::stream() const {
  return checked(impl_).stream;
}
template <class T>
std::size_t spmv_plan<T>::device_bytes() const {
  const impl& p = checked(impl_);
  return (p.csr ? p.csr->bytes() : 0) + p.engine->extra_bytes();
}
template <class T>
const std::string& spmv_plan<T>::reason() const {
  return checked(impl_).reason;
}
template <class T>
std::string spmv_plan<T>::description() const {
  const impl& p = checked(impl_);
  std::string text = p.engine->description();
  if (p.none_read != T(0))
    text += ", every value " + format_g(static_cast<double>(p.none_read)) + ": none read";
  return text;
}

template class spmv_plan<float>;
template class spmv_plan<double>;

}  // namespace perron
