// GPU backend of the heat solver (solvers/heat1d.hpp): the state u lives on
// the device; steps are SpMVs through an spmv_plan (or the 3-point stencil
// kernel below), the GPU CG / Jacobi solvers, or cuSPARSE gtsv2 (direct).
//
// Per step, n unknowns, s = sizeof(T), "op" = bytes of one operator
// application (CSR: (n + 1) 4 + nnz (4 + s) + 2 n s; stencil: 2 n s):
//   explicit        u' = B u + c                      op
//   cg / jacobi     b = B u + c; x = u; solve(A x = b); swap(u, x)
//                   op + 2 n s + solver
//   direct          x = B u + c; gtsv2(A, x); swap     op + gtsv2
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/error.hpp"
#include "kernels/cuda/vector_ops.cuh"
#include "kernels/vector_ops.hpp"
#include "solvers/cg.hpp"
#include "solvers/heat1d.hpp"
#include "solvers/jacobi.hpp"

namespace perron::heat::detail {

namespace {

using cuda::device_buffer;
using cuda::detail::block_size;
using cuda::detail::grid_for;

// The stencil, passed by value to the kernel. Rows are summed in double also
// for float vectors and rounded once: with r >> 1 the row sum cancels ~log2(4r)
// bits (diag 1 + 2 theta r against two off-diagonals of -theta r).
template <class T>
struct stencil_coefficients {
  double lower, diag, upper;
  double edge[4][3];
  double edge_constant[4];
};

template <class T>
stencil_coefficients<T> to_coefficients(const tridiagonal_stencil& s) {
  stencil_coefficients<T> c{};
  // Rounded to T first: the stencil applies exactly the matrix the CSR path holds.
  c.lower = double(T(s.lower));
  c.diag = double(T(s.diag));
  c.upper = double(T(s.upper));
  for (int e = 0; e < 4; ++e) {
    for (int k = 0; k < 3; ++k) c.edge[e][k] = double(T(s.edge[e][k]));
    c.edge_constant[e] = double(T(s.edge_constant[e]));
  }
  return c;
}

// y = A x + c for the tridiagonal stencil: rows 2 .. n-3 use the constant
// interior coefficients, the four edge rows their own. Each thread writes W
// consecutive rows with 16-byte accesses; the two neighbours outside its pack
// come from L1/L2 (the neighbouring threads load them as part of their packs),
// so DRAM sees x read once and y written once: 2 n s bytes.
template <class T, int W>
__global__ void stencil_kernel(std::size_t n, stencil_coefficients<T> c, const T* __restrict__ x,
                               T* __restrict__ y) {
  auto row = [&](std::size_t i, double xl, double xc, double xr) {
    if (i >= 2 && i + 2 < n) return T(c.lower * xl + c.diag * xc + c.upper * xr);
    const int e = i == 0 ? 0 : (i == 1 ? 1 : (i == n - 2 ? 2 : 3));
    return T(c.edge[e][0] * xl + c.edge[e][1] * xc + c.edge[e][2] * xr + c.edge_constant[e]);
  };
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t packs = n / W;
  for (std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; p < packs; p += stride) {
    const std::size_t i0 = p * W;
    const auto xv = cuda::detail::load_pack<W>(x + i0);
    const T left = i0 > 0 ? x[i0 - 1] : T(0);
    const T right = i0 + W < n ? x[i0 + W] : T(0);
    cuda::detail::pack<T, W> yv;
    const bool interior = i0 >= 2 && i0 + W + 2 <= n;
#pragma unroll
    for (int k = 0; k < W; ++k) {
      const T xl = k == 0 ? left : xv.v[k - 1];
      const T xr = k == W - 1 ? right : xv.v[k + 1];
      yv.v[k] = interior ? T(c.lower * double(xl) + c.diag * double(xv.v[k]) + c.upper * double(xr))
                         : row(i0 + k, xl, xv.v[k], xr);
    }
    cuda::detail::store_pack(y + i0, yv);
  }
  for (std::size_t i = packs * W + std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T xl = i > 0 ? x[i - 1] : T(0);
    const T xr = i + 1 < n ? x[i + 1] : T(0);
    y[i] = row(i, xl, x[i], xr);
  }
}

struct forcing_entries {
  int count = 0;
  index_t index[4] = {};
  double value[4] = {};
};

template <class T>
__global__ void add_forcing_kernel(T* y, forcing_entries f) {
  const int k = threadIdx.x;
  if (k < f.count) y[f.index[k]] += static_cast<T>(f.value[k]);
}

// cuSPARSE tridiagonal solve without pivoting (A is diagonally dominant).
cusparseStatus_t gtsv_buffer(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                             const float* b, std::size_t* bytes) {
  return cusparseSgtsv2_nopivot_bufferSizeExt(h, m, 1, dl, d, du, b, m, bytes);
}
cusparseStatus_t gtsv_buffer(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                             const double* b, std::size_t* bytes) {
  return cusparseDgtsv2_nopivot_bufferSizeExt(h, m, 1, dl, d, du, b, m, bytes);
}
cusparseStatus_t gtsv(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du, float* b,
                      void* buf) {
  return cusparseSgtsv2_nopivot(h, m, 1, dl, d, du, b, m, buf);
}
cusparseStatus_t gtsv(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                      double* b, void* buf) {
  return cusparseDgtsv2_nopivot(h, m, 1, dl, d, du, b, m, buf);
}

class event_timer {
 public:
  event_timer() {
    PERRON_CUDA_CHECK(cudaEventCreate(&start_));
    PERRON_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~event_timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;
  void start(cudaStream_t s) { PERRON_CUDA_CHECK(cudaEventRecord(start_, s)); }
  double stop_ms(cudaStream_t s) {
    PERRON_CUDA_CHECK(cudaEventRecord(stop_, s));
    PERRON_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    PERRON_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

template <class T>
std::size_t csr_bytes(const csr_matrix<T>& a) {
  return (std::size_t(a.rows) + 1) * sizeof(index_t) + a.nnz() * (sizeof(index_t) + sizeof(T));
}

// One operator y = M x (+ forcing): a plan of the CSR, or the stencil kernel.
template <class T>
class device_op {
 public:
  device_op(const csr_matrix<T>& m, const std::vector<std::pair<index_t, double>>& forcing,
            operator_form form, spmv_kernel kernel, cudaStream_t stream)
      : n_(m.rows), form_(form), stream_(stream) {
    if (forcing.size() > 4) throw error("heat: internal error: more than 4 forcing entries");
    for (const auto& [i, v] : forcing) {
      forcing_.index[forcing_.count] = i;
      forcing_.value[forcing_.count] = v;
      ++forcing_.count;
    }
    if (form == operator_form::stencil) {
      coeff_ = to_coefficients<T>(stencil_of(m, forcing));
      bytes_ = 2.0 * double(n_) * sizeof(T);
    } else {
      plan_.emplace(m, kernel, stream);
      bytes_ = double(csr_bytes(m)) + 2.0 * double(n_) * sizeof(T);
    }
  }
  // y = M x, plus the forcing when with_forcing (the stencil folds it in).
  void apply(const T* d_x, T* d_y, bool with_forcing) const {
    if (plan_) {
      plan_->apply(T(1), d_x, T(0), d_y);
      if (with_forcing && forcing_.count) {
        add_forcing_kernel<T><<<1, 32, 0, stream_>>>(d_y, forcing_);
        PERRON_CUDA_CHECK_LAUNCH("add_forcing_kernel");
      }
      return;
    }
    stencil_coefficients<T> c = coeff_;
    if (!with_forcing)
      for (auto& v : c.edge_constant) v = 0.0;
    const bool packed = cuda::detail::aligned16(d_x) && cuda::detail::aligned16(d_y);
    constexpr int w = cuda::detail::pack_width<T>;
    if (packed)
      stencil_kernel<T, w>
          <<<grid_for(std::size_t(n_) / w + 1), block_size, 0, stream_>>>(std::size_t(n_), c, d_x, d_y);
    else
      stencil_kernel<T, 1>
          <<<grid_for(std::size_t(n_)), block_size, 0, stream_>>>(std::size_t(n_), c, d_x, d_y);
    PERRON_CUDA_CHECK_LAUNCH("stencil_kernel");
  }
  spmv_kernel kernel() const { return plan_ ? plan_->kernel() : spmv_kernel::cpu; }
  double bytes() const { return bytes_; }

 private:
  index_t n_;
  operator_form form_;
  cudaStream_t stream_;
  std::optional<spmv_plan<T>> plan_;
  stencil_coefficients<T> coeff_{};
  forcing_entries forcing_;
  double bytes_ = 0;
};

template <class T>
class cuda_backend final : public backend<T> {
 public:
  explicit cuda_backend(setup<T> s) : s_(std::move(s)), n_(s_.problem.n) {
    const auto& o = s_.options;
    const auto& m = s_.mats;
    u_.upload(s_.u0);
    x_ = device_buffer<T>(std::size_t(n_));
    rhs_.emplace(m.rhs, m.forcing, o.form, o.kernel, stream_);
    if (o.scheme == method::explicit_euler) return;
    b_ = device_buffer<T>(std::size_t(n_));
    switch (o.solver) {
      case step_solver::cg:
        if (o.form == operator_form::stencil) {
          lhs_.emplace(m.lhs, std::vector<std::pair<index_t, double>>{}, o.form, o.kernel, stream_);
          const device_op<T>* op = &*lhs_;
          cg_.emplace(
              n_, [op](const T* d_x, T* d_y) { op->apply(d_x, d_y, false); }, stream_);
          lhs_bytes_ = lhs_->bytes();
        } else {
          cg_.emplace(m.lhs, o.kernel, stream_);
          lhs_bytes_ = double(csr_bytes(m.lhs)) + 2.0 * double(n_) * sizeof(T);
        }
        cg_->schedule().min_interval = std::max(1, o.check_interval);
        break;
      case step_solver::jacobi:
        if (o.form == operator_form::stencil) {
          lhs_.emplace(m.lhs, std::vector<std::pair<index_t, double>>{}, o.form, o.kernel, stream_);
          const device_op<T>* op = &*lhs_;
          jacobi_.emplace(
              jacobi_diagonal(m.lhs), [op](const T* d_x, T* d_y) { op->apply(d_x, d_y, false); },
              jacobi_options{o.omega}, stream_);
          lhs_bytes_ = lhs_->bytes();
        } else {
          jacobi_.emplace(m.lhs, o.kernel, jacobi_options{o.omega}, stream_);
          lhs_bytes_ = double(csr_bytes(m.lhs)) + 2.0 * double(n_) * sizeof(T);
        }
        jacobi_->schedule().min_interval = std::max(1, o.check_interval);
        break;
      case step_solver::direct: {
        const tridiagonal<T> t = diagonals_of(m.lhs);
        dl_.upload(t.lower);
        d_.upload(t.diag);
        du_.upload(t.upper);
        PERRON_CUSPARSE_CHECK(cusparseCreate(&sparse_));
        PERRON_CUSPARSE_CHECK(cusparseSetStream(sparse_, stream_));
        std::size_t bytes = 0;
        PERRON_CUSPARSE_CHECK(
            gtsv_buffer(sparse_, int(n_), dl_.data(), d_.data(), du_.data(), x_.data(), &bytes));
        gtsv_buffer_ = device_buffer<char>(std::max<std::size_t>(bytes, 1));
        break;
      }
    }
  }

  ~cuda_backend() override {
    if (sparse_) cusparseDestroy(sparse_);
  }

  step_report step(bool measure_change) override {
    step_report rep;
    const std::size_t n = std::size_t(n_);
    const auto& o = s_.options;
    if (o.scheme == method::explicit_euler) {
      rhs_->apply(u_.data(), x_.data(), true);
    } else if (o.solver == step_solver::direct) {
      rhs_->apply(u_.data(), x_.data(), true);
      PERRON_CUSPARSE_CHECK(
          gtsv(sparse_, int(n_), dl_.data(), d_.data(), du_.data(), x_.data(), gtsv_buffer_.data()));
    } else {
      rhs_->apply(u_.data(), b_.data(), true);
      cuda::copy(n, static_cast<const T*>(u_.data()), x_.data(), stream_);  // warm start from u^n
      const solve_result res =
          cg_ ? cg_->solve(b_.data(), x_.data(), o.stop) : jacobi_->solve(b_.data(), x_.data(), o.stop);
      rep.iterations = res.iterations;
      rep.residual = res.relative_residual();
      rep.converged = res.converged;
      rep.status = res.status;
      rep.host_syncs = res.host_syncs;
      if (!res.converged) return rep;  // u^n stays
    }
    if (measure_change) {
      rep.change = cuda::diff_norm_inf_value(n, static_cast<const T*>(x_.data()),
                                             static_cast<const T*>(u_.data()), scratch_, stream_);
      ++rep.host_syncs;
    }
    std::swap(u_, x_);
    return rep;
  }

  std::vector<T> solution() const override {
    cuda::stream_synchronize(stream_);
    return u_.download();
  }

  spmv_kernel kernel() const override {
    if (s_.options.form == operator_form::stencil) return spmv_kernel::cpu;
    if (cg_) return cg_->kernel();
    if (jacobi_) return jacobi_->kernel();
    return rhs_->kernel();
  }

  bench_report bench(int warmup, int reps) override {
    bench_report r;
    const std::size_t n = std::size_t(n_);
    const double vec = double(n) * sizeof(T);
    event_timer timer;
    // Device copy bandwidth in this process: bytes read + written over time.
    {
      std::vector<double> t;
      for (int i = 0; i < warmup + reps; ++i) {
        timer.start(stream_);
        PERRON_CUDA_CHECK(
            cudaMemcpyAsync(b_or_x(), u_.data(), n * sizeof(T), cudaMemcpyDeviceToDevice, stream_));
        const double ms = timer.stop_ms(stream_);
        if (i >= warmup) t.push_back(ms);
      }
      r.copy_bandwidth_gbs = 2 * vec / (median(t) * 1e-3) / 1e9;
    }
    // Whole steps, one event pair each (host waits inside CG are part of the step).
    {
      std::vector<double> t;
      double iters = 0, syncs = 0;
      for (int i = 0; i < warmup + reps; ++i) {
        timer.start(stream_);
        const step_report rep = step(false);
        const double ms = timer.stop_ms(stream_);
        if (!rep.converged)
          throw invalid_argument("--bench: the linear solver did not converge in step " +
                                 std::to_string(i + 1) + " (residual " + std::to_string(rep.residual) +
                                 "); use a smaller --dt, a larger --max-iter or --rtol");
        if (i >= warmup) {
          t.push_back(ms);
          iters += rep.iterations;
          syncs += rep.host_syncs;
        }
      }
      r.steps_timed = reps;
      r.step_ms_median = median(t);
      r.step_ms_min = t.empty() ? 0 : *std::min_element(t.begin(), t.end());
      r.iterations_per_step = reps ? iters / reps : 0;
      r.host_syncs_per_step = reps ? syncs / reps : 0;
    }
    const auto& o = s_.options;
    r.operator_bytes = o.scheme == method::explicit_euler ? rhs_->bytes() : lhs_bytes_;
    if (o.scheme == method::explicit_euler) {
      r.bytes_per_step = rhs_->bytes();
    } else if (o.solver == step_solver::direct) {
      r.operator_bytes = 5 * vec;  // gtsv2 reads dl, d, du, b and writes x at the least
      r.bytes_per_step = rhs_->bytes() + 5 * vec;
    }
    if (cg_) {
      // One CG iteration, from two blind runs of k1 and k2 iterations (no
      // convergence test can stop them: tolerance 0) on this step's system:
      // (t(k2) - t(k1)) / (k2 - k1) cancels the per-solve overhead.
      r.bytes_per_cg_iteration = lhs_bytes_ + 10 * vec;
      rhs_->apply(u_.data(), b_.data(), true);
      const cuda::check_schedule saved = cg_->schedule();
      bool valid = true;
      auto blind = [&](int k) {
        std::vector<double> t;
        for (int i = 0; i < 1 + std::max(3, reps / 10); ++i) {
          // From x = 0 (not the warm start): k iterations then stay far above
          // underflow, so nothing but the limit can stop the run.
          cuda::fill(n, T(0), x_.data(), stream_);
          cg_->schedule() = cuda::check_schedule{k, 1, 1 << 20, false};
          const stop_criterion stop{k, 0.0, 0.0};
          timer.start(stream_);
          const solve_result res = cg_->solve(b_.data(), x_.data(), stop);
          const double ms = timer.stop_ms(stream_);
          if (res.iterations != k) valid = false;
          if (i > 0) t.push_back(ms);
        }
        return median(t);
      };
      const int k1 = 5, k2 = 45;
      r.cg_iteration_ms = (blind(k2) - blind(k1)) / double(k2 - k1);
      if (!valid) r.cg_iteration_ms = std::nan("");  // a run stopped early: no clean difference
      cg_->schedule() = saved;
      // The blind runs overwrote x; u (the state) is untouched.
    }
    return r;
  }

 private:
  T* b_or_x() { return b_.size() ? b_.data() : x_.data(); }

  setup<T> s_;
  index_t n_;
  cudaStream_t stream_ = nullptr;
  device_buffer<T> u_, x_, b_;
  std::optional<device_op<T>> rhs_, lhs_;
  std::optional<cuda::cg_solver<T>> cg_;
  std::optional<cuda::jacobi_solver<T>> jacobi_;
  double lhs_bytes_ = 0;
  device_buffer<T> dl_, d_, du_;
  device_buffer<char> gtsv_buffer_;
  cusparseHandle_t sparse_ = nullptr;
  cuda::reduction_scratch scratch_;
};

}  // namespace

template <class T>
std::unique_ptr<backend<T>> make_cuda_backend(setup<T> s) {
  if (!cuda::available()) throw cuda_error("no usable CUDA device (use the CPU path: --device cpu)");
  return std::make_unique<cuda_backend<T>>(std::move(s));
}

template std::unique_ptr<backend<float>> make_cuda_backend<float>(setup<float>);
template std::unique_ptr<backend<double>> make_cuda_backend<double>(setup<double>);

}  // namespace perron::heat::detail
