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

struct jacobi_state {
  double rho;
  double bnorm2;
  int iterations;
  int status;
  int max_iterations;
};

__global__ void jacobi_init_kernel(jacobi_state* s, int max_iterations) {
  *s = jacobi_state{};
  s->max_iterations = max_iterations;
  s->status = st_running;
}

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
    if (t[0] <= threshold_squared(t[1], rel_tol, abs_tol))
      s->status = st_converged;
    else if (!isfinite(t[0]))
      s->status = st_diverged;
    else if (s->iterations >= s->max_iterations)
      s->status = st_max_iterations;
    else
      s->iterations += 1;  // x_next becomes the current iterate
  });
}

}  // namespace

template <class T>
struct jacobi_solver<T>::impl {
  index_t n = 0;
  stream_t stream = nullptr;
  std::unique_ptr<spmv_plan<T>> plan;
  device_operator<T> apply;
  spmv_kernel kernel = spmv_kernel::cpu;
  T omega = T(1);
  device_buffer<T> d, x_other, q;
  device_buffer<jacobi_state> state{1};
  reduction_scratch scratch;
  pinned<jacobi_state> h_state;
  check_schedule schedule;
  int previous_iterations = -1;

  impl(const std::vector<T>& diagonal, double w, stream_t s)
      : n(static_cast<index_t>(diagonal.size())),
        stream(s),
        omega(static_cast<T>(w)),
        d(diagonal),
        x_other(diagonal.size()),
        q(diagonal.size()) {}

  template <int W>
  solve_result run(const T* d_b, T* d_x, const stop_criterion& stop) {
    solve_result res;
    jacobi_init_kernel<<<1, 1, 0, stream>>>(state.data(), stop.max_iterations);
    PERRON_CUDA_CHECK_LAUNCH("jacobi_init_kernel");
    T* buf[2] = {d_x, x_other.data()};
    const int grid = grid_for(n / W + 1);
    // Step j checks x_j and, below the limit, makes x_{j+1}: max_iterations + 1 steps at most.
    const int max_steps = stop.max_iterations + 1;
    int enqueued = 0;  // launches: buffer parity follows them; the device counts iterations
    int done = 0;
    for (int checks = 0;; ++checks) {
      int k = next_batch(schedule, checks, done, previous_iterations + 1, max_steps - done);
      if (k == 0) k = 1;
      for (int i = 0; i < k; ++i, ++enqueued) {
        const T* x = buf[enqueued % 2];
        apply(x, q.data());
        jacobi_step_kernel<T, W><<<grid, block_size, 0, stream>>>(
            std::size_t(n), d_b, q.data(), x, buf[(enqueued + 1) % 2], d.data(), omega, state.data(),
            stop.rel_tol, stop.abs_tol, scratch.partials(), scratch.counter());
        PERRON_CUDA_CHECK_LAUNCH("jacobi_step_kernel");
      }
      h_state.read(state.data(), stream);
      ++res.host_syncs;
      if (h_state->status != st_running) break;
      done = h_state->iterations;  // == enqueued while running
      if (done >= max_steps)
        throw cuda_error("jacobi: device state still running after " + std::to_string(done) + " steps");
    }
    res.iterations = h_state->iterations;
    if (res.iterations % 2 == 1) copy(std::size_t(n), static_cast<const T*>(x_other.data()), d_x, stream);
    res.residual = std::sqrt(h_state->rho);
    res.rhs_norm = std::sqrt(h_state->bnorm2);
    res.status = to_status(h_state->status);
    res.converged = res.status == solve_status::converged;
    previous_iterations = res.iterations;
    return res;
  }
};

namespace {
void check_omega(double omega) {
  if (!(omega > 0 && omega < 2))
    throw invalid_argument("jacobi: weight omega must be in (0, 2) (got " + std::to_string(omega) + ")");
}
}  // namespace

template <class T>
jacobi_solver<T>::jacobi_solver(const csr_matrix<T>& a, spmv_kernel kernel, const jacobi_options& opt,
                                stream_t stream) {
  check_omega(opt.omega);
  if (!on_gpu(kernel))
    throw invalid_argument("jacobi on the GPU needs a GPU SpMV kernel (got '" + std::string(name(kernel)) +
                           "')");
  impl_ = std::make_unique<impl>(jacobi_diagonal(a), opt.omega, stream);
  impl_->plan = std::make_unique<spmv_plan<T>>(a, kernel, stream);
  impl_->kernel = impl_->plan->kernel();
  const spmv_plan<T>* plan = impl_->plan.get();
  impl_->apply = [plan](const T* d_x, T* d_y) { plan->apply(T(1), d_x, T(0), d_y); };
}

template <class T>
jacobi_solver<T>::jacobi_solver(const std::vector<T>& diagonal, device_operator<T> apply,
                                const jacobi_options& opt, stream_t stream) {
  check_omega(opt.omega);
  if (!apply) throw invalid_argument("jacobi: empty operator");
  for (std::size_t i = 0; i < diagonal.size(); ++i)
    if (!(diagonal[i] != T(0)) || !std::isfinite(double(diagonal[i])))
      throw invalid_argument("jacobi: diagonal entry " + std::to_string(i + 1) + " is zero or not finite");
  impl_ = std::make_unique<impl>(diagonal, opt.omega, stream);
  impl_->apply = std::move(apply);
}

template <class T>
jacobi_solver<T>::~jacobi_solver() = default;
template <class T>
jacobi_solver<T>::jacobi_solver(jacobi_solver&&) noexcept = default;
template <class T>
jacobi_solver<T>& jacobi_solver<T>::operator=(jacobi_solver&&) noexcept = default;

template <class T>
solve_result jacobi_solver<T>::solve(const T* d_b, T* d_x, const stop_criterion& stop) {
  stop.validate();
  impl& m = *impl_;
  if (m.n == 0) {
    solve_result res;
    res.converged = true;
    res.status = solve_status::converged;
    return res;
  }
  const bool packed = aligned16(d_b) && aligned16(d_x);
  return packed ? m.template run<pack_width<T>>(d_b, d_x, stop) : m.template run<1>(d_b, d_x, stop);
}

template <class T>
check_schedule& jacobi_solver<T>::schedule() {
  return impl_->schedule;
}
template <class T>
index_t jacobi_solver<T>::size() const {
  return impl_->n;
}
template <class T>
spmv_kernel jacobi_solver<T>::kernel() const {
  return impl_->kernel;
}
template <class T>
stream_t jacobi_solver<T>::stream() const {
  return impl_->stream;
}

template class jacobi_solver<float>;
template class jacobi_solver<double>;

}  // namespace perron::cuda
