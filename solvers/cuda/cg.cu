// GPU conjugate gradients (declared in solvers/cg.hpp).
//
// One iteration is the operator q = A p and three streaming kernels, all
// reading their scalars from device memory (cg_state), so the host enqueues
// iterations without waiting:
//
//   pq_kernel        pq = (p, q);  alpha = rho / pq               reads p, q
//   update_r_kernel  r -= alpha q; rho' = (r, r); convergence      reads r, q; writes r
//   update_xp_kernel x += alpha p; p = r + (rho'/rho) p            reads x, p, r; writes x, p
//
// Doing the x update together with the p update (instead of with the r
// update, as textbooks write it) reads p once for both: 17 vector passes per
// iteration instead of 18, on top of the operator. Bytes per iteration, n
// unknowns, s = sizeof(T): (2 + 3 + 5) n s = 10 n s for the vector kernels,
// plus the operator (CSR SpMV: 12 nnz + 4 (n + 1) + 2 n s bytes at least).
//
// Once the device has flagged a stop, every kernel returns at once (uniformly
// across the grid: all blocks read the same flag, written by an earlier
// kernel), so iterations the host enqueued blind change nothing and the
// count stays exact; only the operator itself still runs in those.
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "core/cuda/check.cuh"
#include "core/error.hpp"
#include "kernels/cuda/vector_ops.cuh"
#include "kernels/vector_ops.hpp"
#include "solvers/cg.hpp"
#include "solvers/cuda/solver_common.cuh"

namespace perron::cuda {

namespace {

using namespace detail;

// rho: (r, r) of the current residual.
struct cg_state : base_state {
  double rho_prev;  // (r, r) before the last r update
  double pq;
  double alpha;
  double tol2;  // stop when rho <= tol2
  int update;   // this iteration's r/x/p updates run (set by pq_kernel)
};

enum residual_mode : int {
  mode_restart = 0,  // r = b - q, p = r, decide the status (start of a solve)
  mode_verify = 1,   // only if the recurrence converged: as mode_restart
  mode_measure = 2,  // r = b - q and rho only (final report), status untouched
};

// r = b - q (q = A x), optionally p = r; reduces (r, r) and (b, b).
template <class T, int W>
__global__ void residual_kernel(std::size_t n, const T* __restrict__ b, const T* __restrict__ q,
                                T* __restrict__ r, T* __restrict__ p, cg_state* s, double rel_tol,
                                double abs_tol, int mode, double* partials, unsigned* counter) {
  if (mode == mode_verify && s->status != st_converged_recurrence) return;
  const bool write_p = mode != mode_measure;
  double acc[2] = {0.0, 0.0};
  grid_stride<W>(
      n,
      [&](std::size_t i) {
        const auto bv = load_pack<W>(b + i);
        const auto qv = load_pack<W>(q + i);
        pack<T, W> rv;
#pragma unroll
        for (int k = 0; k < W; ++k) {
          rv.v[k] = bv.v[k] - qv.v[k];
          acc[0] += double(rv.v[k]) * double(rv.v[k]);
          acc[1] += double(bv.v[k]) * double(bv.v[k]);
        }
        store_pack(r + i, rv);
        if (write_p) store_pack(p + i, rv);
      },
      [&](std::size_t i) {
        const T rv = b[i] - q[i];
        r[i] = rv;
        if (write_p) p[i] = rv;
        acc[0] += double(rv) * double(rv);
        acc[1] += double(b[i]) * double(b[i]);
      });
  grid_reduce<2, sum_op>(acc, partials, counter, [=](const double(&t)[2]) {
    s->rho = t[0];
    s->bnorm2 = t[1];
    s->tol2 = threshold_squared(t[1], rel_tol, abs_tol);
    if (mode == mode_measure) return;
    s->status = stop_status(t[0], s->tol2, s->iterations, s->max_iterations, s->min_iterations);
  });
}

template <class T, int W>
__global__ void pq_kernel(std::size_t n, const T* __restrict__ p, const T* __restrict__ q, cg_state* s,
                          double* partials, unsigned* counter) {
  if (s->status != st_running) {
    if (blockIdx.x == 0 && threadIdx.x == 0) s->update = 0;
    return;
  }
  double acc[1] = {0.0};
  grid_stride<W>(
      n,
      [&](std::size_t i) {
        const auto pv = load_pack<W>(p + i);
        const auto qv = load_pack<W>(q + i);
#pragma unroll
        for (int k = 0; k < W; ++k) acc[0] += double(pv.v[k]) * double(qv.v[k]);
      },
      [&](std::size_t i) { acc[0] += double(p[i]) * double(q[i]); });
  grid_reduce<1, sum_op>(acc, partials, counter, [=](const double(&t)[1]) {
    s->pq = t[0];
    const double alpha = s->rho / t[0];
    if (!(t[0] > 0) || !isfinite(alpha)) {  // A not SPD along p
      s->status = st_breakdown;
      s->update = 0;
    } else {
      s->alpha = alpha;
      s->update = 1;
    }
  });
}

template <class T, int W>
__global__ void update_r_kernel(std::size_t n, const T* __restrict__ q, T* __restrict__ r, cg_state* s,
                                double* partials, unsigned* counter) {
  if (!s->update) return;
  const T alpha = static_cast<T>(s->alpha);
  double acc[1] = {0.0};
  grid_stride<W>(
      n,
      [&](std::size_t i) {
        const auto qv = load_pack<W>(q + i);
        auto rv = load_pack<W>(r + i);
#pragma unroll
        for (int k = 0; k < W; ++k) {
          rv.v[k] -= alpha * qv.v[k];
          acc[0] += double(rv.v[k]) * double(rv.v[k]);
        }
        store_pack(r + i, rv);
      },
      [&](std::size_t i) {
        const T rv = r[i] - alpha * q[i];
        r[i] = rv;
        acc[0] += double(rv) * double(rv);
      });
  grid_reduce<1, sum_op>(acc, partials, counter, [=](const double(&t)[1]) {
    s->rho_prev = s->rho;
    s->rho = t[0];
    s->iterations += 1;
    if (!isfinite(t[0]))
      s->status = st_diverged;
    else if (t[0] <= s->tol2)
      s->status = st_converged_recurrence;
    else if (s->iterations >= s->max_iterations)
      s->status = st_max_iterations;
  });
}

template <class T, int W>
__global__ void update_xp_kernel(std::size_t n, T* __restrict__ x, T* __restrict__ p, const T* __restrict__ r,
                                 const cg_state* s) {
  if (!s->update) return;
  const T alpha = static_cast<T>(s->alpha);
  const T beta = static_cast<T>(s->rho / s->rho_prev);
  const bool next_p = s->status == st_running;  // no direction needed after a stop
  grid_stride<W>(
      n,
      [&](std::size_t i) {
        auto pv = load_pack<W>(p + i);
        auto xv = load_pack<W>(x + i);
#pragma unroll
        for (int k = 0; k < W; ++k) xv.v[k] += alpha * pv.v[k];
        store_pack(x + i, xv);
        if (next_p) {
          const auto rv = load_pack<W>(r + i);
#pragma unroll
          for (int k = 0; k < W; ++k) pv.v[k] = rv.v[k] + beta * pv.v[k];
          store_pack(p + i, pv);
        }
      },
      [&](std::size_t i) {
        const T pv = p[i];
        x[i] += alpha * pv;
        if (next_p) p[i] = r[i] + beta * pv;
      });
}

// CG's step on the shell (solvers/cuda/solver_common.cuh).
template <class T>
class cg_method final : public shell<T, cg_state, cg_method<T>> {
 public:
  static constexpr const char* label = "cg";
  static constexpr int lead = 0;

  cg_method(index_t size, stream_t s) : shell<T, cg_state, cg_method>(size, s), r(size), p(size), q(size) {}

  template <int W>
  void start(const T* d_b, T* d_x, const stop_criterion& stop) {
    residual<W>(d_b, d_x, stop, mode_restart);
  }

  template <int W>
  void enqueue(const T* d_b, T* d_x, const stop_criterion& stop, int k) {
    for (int i = 0; i < k; ++i) iteration<W>(d_x);
    // Speculative verification: does nothing unless the recurrence converged
    // in this batch; then b - A x decides (and restarts CG if it says no).
    residual<W>(d_b, d_x, stop, mode_verify);
  }

  template <int W>
  void finish(const T* d_b, T* d_x, const stop_criterion& stop, solve_result& res) {
    if (this->h_state->status == st_converged) return;
    // Report the true residual of the x we return.
    const int status = this->h_state->status;
    residual<W>(d_b, d_x, stop, mode_measure);
    this->read_state(res);
    this->h_state->status = status;
  }

 private:
  template <int W>
  void residual(const T* d_b, const T* d_x, const stop_criterion& stop, int mode) {
    this->apply_(d_x, q.data());
    residual_kernel<T, W><<<this->grid(W), block_size, 0, this->stream>>>(
        std::size_t(this->n), d_b, q.data(), r.data(), p.data(), this->state.data(), stop.rel_tol,
        stop.abs_tol, mode, this->scratch.partials(), this->scratch.counter());
    PERRON_CUDA_CHECK_LAUNCH("cg residual_kernel");
  }

  template <int W>
  void iteration(T* d_x) {
    const std::size_t n = std::size_t(this->n);
    const int grid = this->grid(W);
    cg_state* s = this->state.data();
    double* partials = this->scratch.partials();
    unsigned* counter = this->scratch.counter();
    this->apply_(p.data(), q.data());
    pq_kernel<T, W><<<grid, block_size, 0, this->stream>>>(n, p.data(), q.data(), s, partials, counter);
    PERRON_CUDA_CHECK_LAUNCH("cg pq_kernel");
    update_r_kernel<T, W><<<grid, block_size, 0, this->stream>>>(n, q.data(), r.data(), s, partials, counter);
    PERRON_CUDA_CHECK_LAUNCH("cg update_r_kernel");
    update_xp_kernel<T, W><<<grid, block_size, 0, this->stream>>>(n, d_x, p.data(), r.data(), s);
    PERRON_CUDA_CHECK_LAUNCH("cg update_xp_kernel");
  }

  device_buffer<T> r, p, q;
};

}  // namespace

template <class T>
cg_solver<T>::cg_solver(const csr_matrix<T>& a, spmv_kernel kernel, stream_t stream) {
  if (a.rows != a.cols)
    throw dimension_error("cg: matrix must be square (got " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ")");
  require_gpu_kernel(kernel, "cg");
  this->m_ = cg_method<T>::on_plan(a, kernel, a.rows, stream);
}

template <class T>
cg_solver<T>::cg_solver(index_t n, device_operator<T> apply, stream_t stream) {
  if (n < 0) throw dimension_error("cg: negative size " + std::to_string(n));
  this->m_ = cg_method<T>::on_operator(std::move(apply), n, stream);
}

template class cg_solver<float>;
template class cg_solver<double>;

}  // namespace perron::cuda
