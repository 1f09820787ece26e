// Device vector operations (declared in kernels/vector_ops.hpp). Streaming
// kernels: 16-byte accesses when every pointer is 16-byte aligned (always for
// whole device_buffers), scalar otherwise; reductions in double, finished on
// the device by the last block (kernels/cuda/vector_ops.cuh).
#include <cuda_runtime.h>

#include <cmath>

#include "core/cuda/check.cuh"
#include "kernels/blue_norm.hpp"
#include "kernels/cuda/vector_ops.cuh"
#include "kernels/vector_ops.hpp"

namespace perron::cuda {

using detail::block_size;
using detail::grid_for;
using detail::grid_stride;
using detail::load_pack;
using detail::pack;
using detail::pack_width;
using detail::store_pack;

namespace {

struct store_result {
  double* d_result;
  __device__ void operator()(const double (&t)[1]) const { *d_result = t[0]; }
};

template <class T, int W>
__global__ void dot_kernel(std::size_t n, const T* __restrict__ x, const T* __restrict__ y, double* partials,
                           unsigned* counter, store_result out) {
  double s[1] = {0.0};
  grid_stride<W>(
      n,
      [&](std::size_t i) {
        const auto a = load_pack<W>(x + i);
        const auto b = load_pack<W>(y + i);
#pragma unroll
        for (int k = 0; k < W; ++k) s[0] += double(a.v[k]) * double(b.v[k]);
      },
      [&](std::size_t i) { s[0] += double(x[i]) * double(y[i]); });
  detail::grid_reduce<1, detail::sum_op>(s, partials, counter, out);
}

// nrm2's three sums (kernels/blue_norm.hpp), finished by the grid's last block.
struct store_nrm2 {
  double* d_result;
  __device__ void operator()(const double (&t)[3]) const {
    *d_result = perron::detail::blue::finish(t, [](double v) { return ::sqrt(v); });
  }
};

template <class T, int W>
__global__ void nrm2_kernel(std::size_t n, const T* __restrict__ x, double* partials, unsigned* counter,
                            store_nrm2 out) {
  double s[3] = {0.0, 0.0, 0.0};
  grid_stride<W>(
      n,
      [&](std::size_t i) {
        const auto a = load_pack<W>(x + i);
#pragma unroll
        for (int k = 0; k < W; ++k) perron::detail::blue::add(s, double(a.v[k]));
      },
      [&](std::size_t i) { perron::detail::blue::add(s, double(x[i])); });
  detail::grid_reduce<3, detail::sum_op>(s, partials, counter, out);
}

// max |x - y| (y == nullptr: max |x|).
template <class T, int W>
__global__ void diff_max_kernel(std::size_t n, const T* __restrict__ x, const T* __restrict__ y,
                                double* partials, unsigned* counter, store_result out) {
  double m[1] = {0.0};
  auto take = [&](double d) { m[0] = detail::max_nan_op::apply(m[0], fabs(d)); };
  grid_stride<W>(
      n,
      [&](std::size_t i) {
        const auto a = load_pack<W>(x + i);
        if (y) {
          const auto b = load_pack<W>(y + i);
#pragma unroll
          for (int k = 0; k < W; ++k) take(double(a.v[k]) - double(b.v[k]));
        } else {
#pragma unroll
          for (int k = 0; k < W; ++k) take(double(a.v[k]));
        }
      },
      [&](std::size_t i) { take(y ? double(x[i]) - double(y[i]) : double(x[i])); });
  detail::grid_reduce<1, detail::max_nan_op>(m, partials, counter, out);
}

template <class T, int W>
__global__ void axpby_kernel(std::size_t n, T alpha, const T* __restrict__ x, T beta, T* __restrict__ y) {
  // beta == 0: y is write-only, so a NaN already in y cannot leak into the result.
  const bool read_y = beta != T(0);
  grid_stride<W>(
      n,
      [&](std::size_t i) {
        const auto a = load_pack<W>(x + i);
        pack<T, W> b;
        if (read_y) b = load_pack<W>(y + i);
#pragma unroll
        for (int k = 0; k < W; ++k) b.v[k] = read_y ? alpha * a.v[k] + beta * b.v[k] : alpha * a.v[k];
        store_pack(y + i, b);
      },
      [&](std::size_t i) { y[i] = read_y ? alpha * x[i] + beta * y[i] : alpha * x[i]; });
}

template <class T, int W>
__global__ void fill_kernel(std::size_t n, T value, T* __restrict__ x) {
  pack<T, W> v;
#pragma unroll
  for (int k = 0; k < W; ++k) v.v[k] = value;
  grid_stride<W>(
      n, [&](std::size_t i) { store_pack(x + i, v); }, [&](std::size_t i) { x[i] = value; });
}

template <class T, int W>
__global__ void scale_kernel(std::size_t n, T alpha, T* __restrict__ x) {
  grid_stride<W>(
      n,
      [&](std::size_t i) {
        auto a = load_pack<W>(x + i);
#pragma unroll
        for (int k = 0; k < W; ++k) a.v[k] *= alpha;
        store_pack(x + i, a);
      },
      [&](std::size_t i) { x[i] *= alpha; });
}

template <class T>
int items(std::size_t n, bool packed) {
  return grid_for(packed ? n / pack_width<T> + 1 : n);
}

template <class T>
void launch_dot(std::size_t n, const T* d_x, const T* d_y, double* d_result, reduction_scratch& s,
                stream_t stream) {
  const bool packed = detail::aligned16(d_x) && detail::aligned16(d_y);
  const int grid = items<T>(n, packed);
  const store_result out{d_result};
  if (packed)
    dot_kernel<T, pack_width<T>>
        <<<grid, block_size, 0, stream>>>(n, d_x, d_y, s.partials(), s.counter(), out);
  else
    dot_kernel<T, 1><<<grid, block_size, 0, stream>>>(n, d_x, d_y, s.partials(), s.counter(), out);
  PERRON_CUDA_CHECK_LAUNCH("dot_kernel");
}

template <class T>
void launch_nrm2(std::size_t n, const T* d_x, double* d_result, reduction_scratch& s, stream_t stream) {
  const bool packed = detail::aligned16(d_x);
  const int grid = items<T>(n, packed);
  const store_nrm2 out{d_result};
  if (packed)
    nrm2_kernel<T, pack_width<T>><<<grid, block_size, 0, stream>>>(n, d_x, s.partials(), s.counter(), out);
  else
    nrm2_kernel<T, 1><<<grid, block_size, 0, stream>>>(n, d_x, s.partials(), s.counter(), out);
  PERRON_CUDA_CHECK_LAUNCH("nrm2_kernel");
}

template <class T>
void launch_diff_max(std::size_t n, const T* d_x, const T* d_y, double* d_result, reduction_scratch& s,
                     stream_t stream) {
  const bool packed = detail::aligned16(d_x) && (!d_y || detail::aligned16(d_y));
  const int grid = items<T>(n, packed);
  const store_result out{d_result};
  if (packed)
    diff_max_kernel<T, pack_width<T>>
        <<<grid, block_size, 0, stream>>>(n, d_x, d_y, s.partials(), s.counter(), out);
  else
    diff_max_kernel<T, 1><<<grid, block_size, 0, stream>>>(n, d_x, d_y, s.partials(), s.counter(), out);
  PERRON_CUDA_CHECK_LAUNCH("diff_max_kernel");
}

}  // namespace

template <class T>
void dot(std::size_t n, const T* d_x, const T* d_y, double* d_result, reduction_scratch& scratch,
         stream_t stream) {
  launch_dot(n, d_x, d_y, d_result, scratch, stream);
}
template <class T>
void nrm2(std::size_t n, const T* d_x, double* d_result, reduction_scratch& scratch, stream_t stream) {
  launch_nrm2(n, d_x, d_result, scratch, stream);
}
template <class T>
void norm_inf(std::size_t n, const T* d_x, double* d_result, reduction_scratch& scratch, stream_t stream) {
  launch_diff_max<T>(n, d_x, nullptr, d_result, scratch, stream);
}
template <class T>
void diff_norm_inf(std::size_t n, const T* d_x, const T* d_y, double* d_result, reduction_scratch& scratch,
                   stream_t stream) {
  launch_diff_max(n, d_x, d_y, d_result, scratch, stream);
}

double read_scalar(const double* d_value, stream_t stream) {
  double h = 0;
  PERRON_CUDA_CHECK(cudaMemcpyAsync(&h, d_value, sizeof h, cudaMemcpyDeviceToHost, stream));
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream));
  return h;
}

void stream_synchronize(stream_t stream) { PERRON_CUDA_CHECK(cudaStreamSynchronize(stream)); }

namespace {
// The blocking forms land their value in the last slot of the scratch's last
// partial row: their reductions use rows 0-2 (nrm2's three sums), and the value is read
// back (stream-ordered) before the function returns.
template <class F>
double blocking(reduction_scratch& scratch, stream_t stream, F enqueue) {
  double* d_slot = scratch.partials() + reduction_scratch::max_values * reduction_scratch::max_blocks - 1;
  enqueue(d_slot);
  return read_scalar(d_slot, stream);
}
}  // namespace

template <class T>
double dot_value(std::size_t n, const T* d_x, const T* d_y, reduction_scratch& scratch, stream_t stream) {
  return blocking(scratch, stream, [&](double* d) { dot(n, d_x, d_y, d, scratch, stream); });
}
template <class T>
double nrm2_value(std::size_t n, const T* d_x, reduction_scratch& scratch, stream_t stream) {
  return blocking(scratch, stream, [&](double* d) { nrm2(n, d_x, d, scratch, stream); });
}
template <class T>
double norm_inf_value(std::size_t n, const T* d_x, reduction_scratch& scratch, stream_t stream) {
  return blocking(scratch, stream, [&](double* d) { norm_inf(n, d_x, d, scratch, stream); });
}
template <class T>
double diff_norm_inf_value(std::size_t n, const T* d_x, const T* d_y, reduction_scratch& scratch,
                           stream_t stream) {
  return blocking(scratch, stream, [&](double* d) { diff_norm_inf(n, d_x, d_y, d, scratch, stream); });
}

template <class T>
void axpby(std::size_t n, T alpha, const T* d_x, T beta, T* d_y, stream_t stream) {
  if (n == 0) return;
  const bool packed = detail::aligned16(d_x) && detail::aligned16(d_y);
  const int grid = items<T>(n, packed);
  if (packed)
    axpby_kernel<T, pack_width<T>><<<grid, block_size, 0, stream>>>(n, alpha, d_x, beta, d_y);
  else
    axpby_kernel<T, 1><<<grid, block_size, 0, stream>>>(n, alpha, d_x, beta, d_y);
  PERRON_CUDA_CHECK_LAUNCH("axpby_kernel");
}

template <class T>
void copy(std::size_t n, const T* d_x, T* d_y, stream_t stream) {
  if (n == 0 || d_x == d_y) return;
  PERRON_CUDA_CHECK(cudaMemcpyAsync(d_y, d_x, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
}

template <class T>
void fill(std::size_t n, T value, T* d_x, stream_t stream) {
  if (n == 0) return;
  const bool packed = detail::aligned16(d_x);
  const int grid = items<T>(n, packed);
  if (packed)
    fill_kernel<T, pack_width<T>><<<grid, block_size, 0, stream>>>(n, value, d_x);
  else
    fill_kernel<T, 1><<<grid, block_size, 0, stream>>>(n, value, d_x);
  PERRON_CUDA_CHECK_LAUNCH("fill_kernel");
}

template <class T>
void scale(std::size_t n, T alpha, T* d_x, stream_t stream) {
  if (n == 0) return;
  const bool packed = detail::aligned16(d_x);
  const int grid = items<T>(n, packed);
  if (packed)
    scale_kernel<T, pack_width<T>><<<grid, block_size, 0, stream>>>(n, alpha, d_x);
  else
    scale_kernel<T, 1><<<grid, block_size, 0, stream>>>(n, alpha, d_x);
  PERRON_CUDA_CHECK_LAUNCH("scale_kernel");
}

#include "kernels/cuda/vector_ops_instances.def"

}  // namespace perron::cuda
