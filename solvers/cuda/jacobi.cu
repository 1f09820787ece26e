// GPU weighted Jacobi (declared in solvers/jacobi.hpp).
//
// Step j (x_j in buffer j % 2): q = A x_j, then one fused kernel
//   r = b - q;  x_{j+1} = x_j + omega r / d  (into the other buffer);  (r, r)
// whose last block decides: (r, r) <= tol^2 -> converged with x_j (still
// intact in its buffer); otherwise j + 1, unless j reached the limit. So the
// returned x always is the iterate whose residual was measured, and
// iterations == j exactly; the buffer holding it is iterations % 2.
// Bytes per step: the operator, then b, q, x_j, d read and x_{j+1} written.
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "core/cuda/check.cuh"
#include "core/error.hpp"
#include "kernels/cuda/vector_ops.cuh"
#include "kernels/vector_ops.hpp"
#include "solvers/cuda/solver_common.cuh"
#include "solvers/jacobi.hpp"

namespace perron::cuda {

namespace {

using namespace detail;

struct jacobi_state : base_state {};

template <class T, int W>
__global__ void jacobi_step_kernel(std::size_t n, const T* __restrict__ b, const T* __restrict__ q,
                                   const T* __restrict__ x, T* __restrict__ x_next, const T* __restrict__ d,
                                   T omega, jacobi_state* s, double rel_tol, double abs_tol, double* partials,
                                   unsigned* counter) {
  if (s->status != st_running) return;
  double acc[2] = {0.0, 0.0};
  grid_stride<W>(
      n,
      [&](std::size_t i) {
        const auto bv = load_pack<W>(b + i);
        const auto qv = load_pack<W>(q + i);
        const auto xv = load_pack<W>(x + i);
        const auto dv = load_pack<W>(d + i);
        pack<T, W> out;
#pragma unroll
        for (int k = 0; k < W; ++k) {
          const T r = bv.v[k] - qv.v[k];
          acc[0] += double(r) * double(r);
          acc[1] += double(bv.v[k]) * double(bv.v[k]);
          out.v[k] = xv.v[k] + omega * r / dv.v[k];
        }
        store_pack(x_next + i, out);
      },
      [&](std::size_t i) {
        const T r = b[i] - q[i];
        acc[0] += double(r) * double(r);
        acc[1] += double(b[i]) * double(b[i]);
        x_next[i] = x[i] + omega * r / d[i];
      });
  grid_reduce<2, sum_op>(acc, partials, counter, [=](const double(&t)[2]) {
    s->rho = t[0];
    s->bnorm2 = t[1];
    const int status = stop_status(t[0], threshold_squared(t[1], rel_tol, abs_tol), s->iterations,
                                   s->max_iterations, s->min_iterations);
    if (status != st_running)
      s->status = status;
    else
      s->iterations += 1;  // x_next becomes the current iterate
  });
}

// Jacobi's step on the shell (solvers/cuda/solver_common.cuh). Step j checks
// x_j and, below the limit, makes x_{j+1}: max_iterations + 1 steps at most
// (lead 1). The buffer parity follows the launches; the device counts the
// iterations.
template <class T>
class jacobi_method final : public shell<T, jacobi_state, jacobi_method<T>> {
 public:
  static constexpr const char* label = "jacobi";
  static constexpr int lead = 1;

  jacobi_method(const std::vector<T>& diagonal, double w, stream_t s)
      : shell<T, jacobi_state, jacobi_method>(static_cast<index_t>(diagonal.size()), s),
        omega(static_cast<T>(w)),
        d(diagonal),
        x_other(diagonal.size()),
        q(diagonal.size()) {}

  template <int W>
  void start(const T*, T* d_x, const stop_criterion&) {
    buf[0] = d_x;
    buf[1] = x_other.data();
    enqueued = 0;
  }

  template <int W>
  void enqueue(const T* d_b, T*, const stop_criterion& stop, int k) {
    const int grid = this->grid(W);
    for (int i = 0; i < k; ++i, ++enqueued) {
      const T* x = buf[enqueued % 2];
      this->apply_(x, q.data());
      jacobi_step_kernel<T, W><<<grid, block_size, 0, this->stream>>>(
          std::size_t(this->n), d_b, q.data(), x, buf[(enqueued + 1) % 2], d.data(), omega,
          this->state.data(), stop.rel_tol, stop.abs_tol, this->scratch.partials(), this->scratch.counter());
      PERRON_CUDA_CHECK_LAUNCH("jacobi_step_kernel");
    }
  }

  template <int W>
  void finish(const T*, T* d_x, const stop_criterion&, solve_result&) {
    if (this->h_state->iterations % 2 == 1)
      copy(std::size_t(this->n), static_cast<const T*>(x_other.data()), d_x, this->stream);
  }

 private:
  T omega = T(1);
  device_buffer<T> d, x_other, q;
  T* buf[2] = {nullptr, nullptr};
  int enqueued = 0;  // launches since start()
};

}  // namespace

template <class T>
jacobi_solver<T>::jacobi_solver(const csr_matrix<T>& a, spmv_kernel kernel, const jacobi_options& opt,
                                stream_t stream) {
  opt.validate();
  require_gpu_kernel(kernel, "jacobi");
  this->m_ = jacobi_method<T>::on_plan(a, kernel, jacobi_diagonal(a), opt.omega, stream);
}

template <class T>
jacobi_solver<T>::jacobi_solver(const std::vector<T>& diagonal, device_operator<T> apply,
                                const jacobi_options& opt, stream_t stream) {
  opt.validate();
  if (!apply) throw invalid_argument("jacobi: empty operator");
  check_jacobi_diagonal(diagonal);
  this->m_ = jacobi_method<T>::on_operator(std::move(apply), diagonal, opt.omega, stream);
}

template class jacobi_solver<float>;
template class jacobi_solver<double>;

}  // namespace perron::cuda
