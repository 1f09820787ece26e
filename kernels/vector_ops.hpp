// Dense vector operations of the iterative solvers, declared once for every
// backend: dot, nrm2, norm_inf, axpby, copy, fill, scale (and widen, CPU only).
//
// CPU (kernels/cpu/vector_ops.cpp): OpenMP over host pointers; reductions
// accumulate in double whatever T is, and return the value.
//
// GPU (kernels/cuda/vector_ops.cu): device pointers, enqueued on `stream`,
// never synchronizing. Reductions also accumulate in double, on the device, and
// write their result to device memory (d_result), so a solver can feed it to
// the next kernel without the host waiting; the *_value convenience forms
// read it back (one host synchronization each). A reduction needs a
// reduction_scratch (per-block partial sums and a completion counter): one per
// stream, allocated once, reused by every call. Results are deterministic: the
// partial sums are combined in a fixed order, not by atomics.
//
// Fused updates that only pay inside one solver (CG's x/p update that shares
// the read of p, Jacobi's residual + update + norm) live beside that solver in
// solvers/cuda/ and use the device-side reduction helpers of
// kernels/cuda/vector_ops.cuh.
#pragma once

#include <cstddef>

#include "../core/device.hpp"

namespace perron {

// ---- CPU -------------------------------------------------------------------
template <class T>
double dot(std::size_t n, const T* x, const T* y);
template <class T>
double nrm2(std::size_t n, const T* x);
// max_i |x_i|; NaN anywhere gives NaN (a diverged solver must not look converged).
template <class T>
double norm_inf(std::size_t n, const T* x);
// y = alpha * x + beta * y; with beta == 0, y is write-only (old NaN never propagates).
template <class T>
void axpby(std::size_t n, T alpha, const T* x, T beta, T* y);
template <class T>
void copy(std::size_t n, const T* x, T* y);
template <class T>
void fill(std::size_t n, T value, T* x);
template <class T>
void scale(std::size_t n, T alpha, T* x);
// y = x converted to double, on a team of host threads (a solver's result leaving pinned
// memory); team: the threads to use, 0 for threads_for_work(n).
template <class T>
void widen(std::size_t n, const T* x, double* y, int team = 0);

// ---- GPU -------------------------------------------------------------------
namespace cuda {

template <class T>
void dot(std::size_t n, const T* d_x, const T* d_y, double* d_result, reduction_scratch& scratch,
         stream_t stream = nullptr);
template <class T>
void nrm2(std::size_t n, const T* d_x, double* d_result, reduction_scratch& scratch,
          stream_t stream = nullptr);
template <class T>
void norm_inf(std::size_t n, const T* d_x, double* d_result, reduction_scratch& scratch,
              stream_t stream = nullptr);
// max_i |x_i - y_i| (e.g. the change of a time step), without a temporary.
template <class T>
void diff_norm_inf(std::size_t n, const T* d_x, const T* d_y, double* d_result, reduction_scratch& scratch,
                   stream_t stream = nullptr);

// Blocking conveniences: enqueue, then copy the double back (one host sync).
template <class T>
double dot_value(std::size_t n, const T* d_x, const T* d_y, reduction_scratch& scratch,
                 stream_t stream = nullptr);
template <class T>
double nrm2_value(std::size_t n, const T* d_x, reduction_scratch& scratch, stream_t stream = nullptr);
template <class T>
double norm_inf_value(std::size_t n, const T* d_x, reduction_scratch& scratch, stream_t stream = nullptr);
template <class T>
double diff_norm_inf_value(std::size_t n, const T* d_x, const T* d_y, reduction_scratch& scratch,
                           stream_t stream = nullptr);

template <class T>
void axpby(std::size_t n, T alpha, const T* d_x, T beta, T* d_y, stream_t stream = nullptr);
template <class T>
void copy(std::size_t n, const T* d_x, T* d_y, stream_t stream = nullptr);
template <class T>
void fill(std::size_t n, T value, T* d_x, stream_t stream = nullptr);
template <class T>
void scale(std::size_t n, T alpha, T* d_x, stream_t stream = nullptr);

// Waits for everything enqueued on `stream` (counted by callers as a host sync).
void stream_synchronize(stream_t stream);
// Copies one double from device memory after the work on `stream` (a host sync).
double read_scalar(const double* d_value, stream_t stream);

}  // namespace cuda
}  // namespace perron
