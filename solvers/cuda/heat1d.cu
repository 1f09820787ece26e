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
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/reduce.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "kernels/cuda/vector_ops.cuh"
#include "kernels/vector_ops.hpp"
#include "solvers/cg.hpp"
#include "solvers/heat1d.hpp"
#include "solvers/jacobi.hpp"

namespace perron::heat::detail {

namespace {

using cuda::device_buffer;
using cuda::detail::block_size;

// Blocks for the grid-stride stencil kernel over `items` work items: one per
// item up to what fills the GPU (the reduction scratch's block count).
unsigned stencil_blocks(std::size_t items) {
  return cuda::grid_for(items, block_size, unsigned(cuda::reduction_scratch::max_blocks));
}

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

// Temporal blocking: `steps` explicit steps u <- B u + c per pass over memory.
// Block b owns the tile [t0, t0 + tile), t0 = b tile, and loads the window
// [t0 - K, t0 + tile + K) (K = steps; cells outside [0, n) are 0 and never
// written) into shared memory. Step s = 1 .. K updates the window cells j in
// [s, width - s): their neighbours j +- 1 were updated by step s - 1, so after
// K steps the tile holds what K one-step passes give, each row summed as
// stencil_kernel sums it. DRAM traffic: 2 n s bytes per K steps (plus the
// 2K halo cells per tile); the steps themselves run in shared memory.
constexpr int blocked_threads = 256;
constexpr int blocked_tile = blocked_threads * 8;
constexpr int max_steps_per_pass = 32;

template <class T>
__device__ T stencil_row_value(std::size_t n, std::size_t i, const stencil_coefficients<T>& c, T xl, T xc,
                               T xr) {
  if (i >= 2 && i + 2 < n) return T(c.lower * double(xl) + c.diag * double(xc) + c.upper * double(xr));
  const int e = i == 0 ? 0 : (i == 1 ? 1 : (i == n - 2 ? 2 : 3));
  return T(c.edge[e][0] * xl + c.edge[e][1] * xc + c.edge[e][2] * xr + c.edge_constant[e]);
}

template <class T>
__global__ void __launch_bounds__(blocked_threads)
    stencil_steps_kernel(std::size_t n, stencil_coefficients<T> c, int steps, const T* __restrict__ x,
                         T* __restrict__ y) {
  __shared__ T buffer[2][blocked_tile + 2 * max_steps_per_pass];
  T* a = buffer[0];
  T* b = buffer[1];
  const int width = blocked_tile + 2 * steps;
  const long long lo = (long long)(blockIdx.x) * blocked_tile - steps;  // global index of window cell 0
  const auto inside = [&](long long g) { return g >= 0 && g < (long long)(n); };
  for (int j = threadIdx.x; j < width; j += blocked_threads) {
    const T v = inside(lo + j) ? x[lo + j] : T(0);
    a[j] = v;
    b[j] = v;
  }
  __syncthreads();
  for (int s = 1; s <= steps; ++s) {
    for (int j = s + threadIdx.x; j < width - s; j += blocked_threads)
      if (inside(lo + j)) b[j] = stencil_row_value(n, std::size_t(lo + j), c, a[j - 1], a[j], a[j + 1]);
    __syncthreads();
    T* t = a;
    a = b;
    b = t;
  }
  for (int j = steps + threadIdx.x; j < steps + blocked_tile; j += blocked_threads)
    if (inside(lo + j)) y[lo + j] = a[j];
}

}  // namespace
}  // namespace perron::heat::detail

#include "solvers/cuda/heat1d_tridiagonal.cuh"

namespace perron::heat::detail {
namespace {

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

// The three diagonals of a stencil, for gtsv2 (lower[0] = upper[n-1] = 0:
// the edge rows hold no entry outside the matrix).
template <class T>
__global__ void diagonals_kernel(std::size_t n, stencil_coefficients<T> c, T* dl, T* d, T* du) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (i >= 2 && i + 2 < n) {
      dl[i] = T(c.lower), d[i] = T(c.diag), du[i] = T(c.upper);
      continue;
    }
    const int e = i == 0 ? 0 : (i == 1 ? 1 : (i == n - 2 ? 2 : 3));
    dl[i] = T(c.edge[e][0]), d[i] = T(c.edge[e][1]), du[i] = T(c.edge[e][2]);
  }
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

// Thomas on a small system (the reduced system below gtsv2's minimum of 3), one thread.
template <class T>
__global__ void small_thomas_kernel(int m, const T* dl, const T* d, const T* du, T* r) {
  double cp[3], dp[3];
  for (int j = 0; j < m; ++j) {
    const double mm = double(d[j]) - (j ? double(dl[j]) * cp[j - 1] : 0.0);
    cp[j] = double(du[j]) / mm;
    dp[j] = (double(r[j]) - (j ? double(dl[j]) * dp[j - 1] : 0.0)) / mm;
  }
  for (int j = m - 1; j >= 0; --j) {
    if (j + 1 < m) dp[j] -= cp[j] * dp[j + 1];
    r[j] = T(dp[j]);
  }
}

// ---- the state's profile and summaries, computed where it lives ----------------

// x_i as grid_problem::x computes it.
__device__ __forceinline__ double grid_x(std::size_t i, std::size_t n, double length) {
  return length * double(i) / double(n - 1);
}

// initial_profile(ic, p) (solvers/heat1d.cpp) with the same expressions:
// sine, gauss or step, then the pinned ends (a sine's zeros, Dirichlet values).
struct profile_params {
  int kind = 0;  // 0 sine, 1 gauss, 2 step
  double mode_pi = 0, x0 = 0, width = 1, length = 1, dx = 1;
  bool pin_left = false, pin_right = false;
  double left = 0, right = 0;
};

template <class T>
__global__ void profile_kernel(std::size_t n, profile_params q, T* u) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double x = grid_x(i, n, q.length);
    double v;
    if (q.kind == 0) {
      v = sin(q.mode_pi * x / q.length);
    } else if (q.kind == 1) {
      const double d = (x - q.x0) / q.width;
      v = exp(-0.5 * d * d);
    } else {
      v = x < q.x0 ? 1.0 : (x > q.x0 ? 0.0 : 0.5);
    }
    if (i == 0 && q.pin_left) v = q.left;
    if (i == n - 1 && q.pin_right) v = q.right;
    u[i] = T(v);
  }
}

struct store_total {
  double* out;
  __device__ void operator()(const double (&t)[1]) const { *out = t[0]; }
};

// sum_i q_i u_i, q the trapezoid weights (dx, halved at both ends).
template <class T>
__global__ void integral_kernel(std::size_t n, double dx, const T* __restrict__ u, double* partials,
                                unsigned* counter, store_total out) {
  double v[1] = {0.0};
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    v[0] += (i == 0 || i == n - 1 ? 0.5 * dx : dx) * double(u[i]);
  cuda::detail::grid_reduce<1, cuda::detail::sum_op>(v, partials, counter, out);
}

// max_i |u_i - f(x_i)| for a closed_form f (its expression in closed_form::at), NaN kept.
struct closed_form_params {
  double amplitude, wave, level, slope, length, dx;
  bool pin_left, pin_right;
  double left, right;
};

template <class T>
__global__ void max_error_kernel(std::size_t n, closed_form_params f, const T* __restrict__ u,
                                 double* partials, unsigned* counter, store_total out) {
  double m[1] = {0.0};
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double x = grid_x(i, n, f.length);
    double e = f.amplitude * sin(f.wave * x) + f.level + f.slope * x;
    if (i == 0 && f.pin_left) e = f.left;
    if (i == n - 1 && f.pin_right) e = f.right;
    m[0] = cuda::detail::max_nan_op::apply(m[0], fabs(double(u[i]) - e));
  }
  cuda::detail::grid_reduce<1, cuda::detail::max_nan_op>(m, partials, counter, out);
}

// The CSR of a stencil with the pattern of assemble_step, in parallel: every
// row but the (at most four distinct) edge rows has 3 entries, so row_ptr[i]
// is 3 i less the entries the edge rows before i lack. Values T(coefficient):
// the bits assemble_step writes.
struct csr_layout {
  index_t rows[4] = {};
  index_t lack[4] = {};  // 0 for a repeated edge row (n < 4)
  bool has[4][3] = {};
};

template <class T>
__global__ void csr_kernel(std::size_t n, stencil_coefficients<T> c, csr_layout l,
                           index_t* __restrict__ row_ptr, index_t* __restrict__ col, T* __restrict__ val) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i <= n; i += stride) {
    std::size_t at = 3 * i;
    for (int e = 0; e < 4; ++e)
      if (std::size_t(l.rows[e]) < i) at -= std::size_t(l.lack[e]);
    row_ptr[i] = index_t(at);
    if (i == n) continue;
    if (i >= 2 && i + 2 < n) {
      const index_t j = index_t(i) - 1;
      col[at] = j, col[at + 1] = j + 1, col[at + 2] = j + 2;
      val[at] = T(c.lower), val[at + 1] = T(c.diag), val[at + 2] = T(c.upper);
      continue;
    }
    const int e = i == 0 ? 0 : (i == 1 ? 1 : (i == n - 2 ? 2 : 3));
    for (int j = 0; j < 3; ++j) {
      if (!l.has[e][j]) continue;
      col[at] = index_t(i) - 1 + j;
      val[at] = T(c.edge[e][j]);
      ++at;
    }
  }
}

// The step's rhs operator B as a device CSR (no host copy), for a plan.
template <class T>
device_csr_matrix<T> device_csr_of(const grid_problem& p, const tridiagonal_stencil& st,
                                   cudaStream_t stream) {
  const index_t n = p.n;
  const edge_pattern pat = step_pattern(p);
  csr_layout l;
  const index_t rows[4] = {0, 1, n - 2, n - 1};
  index_t longest = n >= 5 ? 3 : 0;
  for (int e = 0; e < 4; ++e) {
    l.rows[e] = rows[e];
    const index_t len = index_t(pat.has[e][0]) + index_t(pat.has[e][1]) + index_t(pat.has[e][2]);
    longest = std::max(longest, len);
    if (e == 0 || rows[e] != rows[e - 1]) l.lack[e] = 3 - len;
    for (int j = 0; j < 3; ++j) l.has[e][j] = pat.has[e][j];
  }
  std::size_t nnz = 3 * std::size_t(n);
  for (int e = 0; e < 4; ++e) nnz -= std::size_t(l.lack[e]);
  check_nnz_fits(3 * std::size_t(n), "heat: the step matrices");
  device_csr_matrix<T> m;
  m.rows = m.cols = n;
  m.max_row_length = longest;
  m.row_ptr = device_buffer<index_t>(std::size_t(n) + 1);
  m.col_idx = device_buffer<index_t>(nnz);
  m.values = device_buffer<T>(nnz);
  csr_kernel<T><<<stencil_blocks(std::size_t(n) + 1), block_size, 0, stream>>>(
      std::size_t(n), to_coefficients<T>(st), l, m.row_ptr.data(), m.col_idx.data(), m.values.data());
  PERRON_CUDA_CHECK_LAUNCH("csr_kernel");
  return m;
}

// Bytes of one y = M x through the CSR: row_ptr, col_idx and values once, x and y once each.
double csr_apply_bytes(double rows, double nnz, std::size_t value_bytes) {
  return (rows + 1) * sizeof(index_t) + nnz * (sizeof(index_t) + value_bytes) + 2.0 * rows * value_bytes;
}
template <class T>
double csr_apply_bytes(const csr_matrix<T>& a) {
  return csr_apply_bytes(double(a.rows), double(a.nnz()), sizeof(T));
}

// The forcing as entries: the distinct edge rows' nonzero constants.
forcing_entries forcing_of(const tridiagonal_stencil& st) {
  forcing_entries f;
  const index_t rows[4] = {0, 1, st.n - 2, st.n - 1};
  for (int e = 0; e < 4; ++e) {
    if ((e > 0 && rows[e] == rows[e - 1]) || st.edge_constant[e] == 0) continue;
    f.index[f.count] = rows[e];
    f.value[f.count] = st.edge_constant[e];
    ++f.count;
  }
  return f;
}

// One operator y = M x (+ forcing): a plan of the CSR m (csr form), or the
// stencil kernel on st (its edge constants are the forcing in both forms).
template <class T>
class device_op {
 public:
  device_op(const tridiagonal_stencil& st, const csr_matrix<T>& m, operator_form form, spmv_kernel kernel,
            cudaStream_t stream)
      : n_(st.n), form_(form), stream_(stream), forcing_(forcing_of(st)) {
    if (form == operator_form::stencil) {
      coeff_ = to_coefficients<T>(st);
      bytes_ = 2.0 * double(n_) * sizeof(T);
    } else {
      plan_.emplace(m, kernel, stream);
      bytes_ = csr_apply_bytes(m);
    }
  }
  // The step's B (stencil st, the problem's pattern): csr form from a CSR
  // built on the device; a kernel that plans from the host matrix
  // (spmv_plan's dimension_error) gets assemble_step's host CSR instead.
  device_op(const grid_problem& p, const step_options& o, const tridiagonal_stencil& st, cudaStream_t stream)
      : n_(st.n), form_(o.form), stream_(stream), forcing_(forcing_of(st)) {
    if (o.form == operator_form::stencil) {
      coeff_ = to_coefficients<T>(st);
      bytes_ = 2.0 * double(n_) * sizeof(T);
      return;
    }
    device_csr_matrix<T> m = device_csr_of<T>(p, st, stream);
    const double nnz = double(m.values.size());
    try {
      plan_.emplace(std::move(m), o.kernel, stream);
    } catch (const dimension_error&) {
      plan_.emplace(assemble_step<T>(p, o.scheme, o.dt).rhs, o.kernel, stream);
    }
    bytes_ = csr_apply_bytes(double(n_), nnz, sizeof(T));
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
          <<<stencil_blocks(std::size_t(n_) / w + 1), block_size, 0, stream_>>>(std::size_t(n_), c, d_x, d_y);
    else
      stencil_kernel<T, 1>
          <<<stencil_blocks(std::size_t(n_)), block_size, 0, stream_>>>(std::size_t(n_), c, d_x, d_y);
    PERRON_CUDA_CHECK_LAUNCH("stencil_kernel");
  }
  // x -> y by `steps` explicit steps in one pass (stencil form, 1 <= steps <= max_steps_per_pass).
  void apply_steps(const T* d_x, T* d_y, int steps) const {
    const std::size_t blocks = (std::size_t(n_) + blocked_tile - 1) / blocked_tile;
    stencil_steps_kernel<T>
        <<<unsigned(blocks), blocked_threads, 0, stream_>>>(std::size_t(n_), coeff_, steps, d_x, d_y);
    PERRON_CUDA_CHECK_LAUNCH("stencil_steps_kernel");
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

// Steps per pass of the blocked explicit stencil (heat1d --bench measures 1 .. 32).
constexpr int default_steps_per_pass = 16;

template <class T>
class cuda_backend final : public backend<T>, public device_probe {
 public:
  explicit cuda_backend(setup<T> s) : s_(std::move(s)), n_(s_.problem.n) {
    const auto& o = s_.options;
    check_device_memory(device_bytes(n_, o), "heat1d on the GPU with --N " + std::to_string(n_));
    if (s_.u0) {
      if constexpr (std::is_same_v<T, double>) {
        u_.upload(*s_.u0);
      } else {
        u_.upload(std::vector<T>(s_.u0->begin(), s_.u0->end()));
      }
    } else {
      u_ = device_buffer<T>(std::size_t(n_));
      evaluate_profile(*s_.ic);
    }
    s_.u0 = nullptr;
    s_.ic = nullptr;
    x_ = device_buffer<T>(std::size_t(n_));
    rhs_.emplace(s_.problem, o, s_.stencils.rhs, stream_);
    if (o.scheme == method::explicit_euler) return;
    if (o.solver == step_solver::direct) {
      setup_own_direct();
      return;
    }
    b_ = device_buffer<T>(std::size_t(n_));
    setup_iterative();
    s_.lhs = {};
  }

  // Before anything of size N (--N 1500000000 went to cudaMalloc's bare
  // out-of-memory error): u, x and b; cg's or jacobi's vectors (at most five
  // more); and where --operator csr, each CSR operator (B, and A for cg /
  // jacobi) with as much again for its SpMV plan's layout. The direct
  // solve's reduced system is a vector per chunk_rows points.
  static double device_bytes(index_t n, const step_options& o) {
    const double points = double(n), value = sizeof(T);
    const bool iterative = o.scheme != method::explicit_euler && o.solver != step_solver::direct;
    const double csr = (points + 1) * sizeof(index_t) + 3 * points * (sizeof(index_t) + value);
    const int csr_operators = o.form == operator_form::csr ? 1 + int(iterative) : 0;
    return points * value * (3 + (iterative ? 5 : 0)) + csr_operators * 2 * csr;
  }

  ~cuda_backend() override {
    if (sparse_) cusparseDestroy(sparse_);
  }

  // explicit: u' = B u + c; direct: x = B u + c, gtsv2(A, x);
  // cg / jacobi: b = B u + c, x = u (warm start), solve A x = b. Then swap(u, x).
  step_report step(bool measure_change) override {
    step_report rep;
    const std::size_t n = std::size_t(n_);
    const auto& o = s_.options;
    if (o.scheme == method::explicit_euler) {
      rhs_->apply(u_.data(), x_.data(), true);
    } else if (o.solver == step_solver::direct && !library_direct_) {
      own_direct_step();
    } else if (o.solver == step_solver::direct) {
      rhs_->apply(u_.data(), x_.data(), true);
      PERRON_CUSPARSE_CHECK(
          gtsv(sparse_, int(n_), dl_.data(), d_.data(), du_.data(), x_.data(), gtsv_buffer_.data()));
    } else {
      rhs_->apply(u_.data(), b_.data(), true);
      cuda::copy(n, static_cast<const T*>(u_.data()), x_.data(), stream_);  // warm start from u^n
      const solve_result res = cg_ ? cg_->solve(b_.data(), x_.data(), step_stop(o))
                                   : jacobi_->solve(b_.data(), x_.data(), step_stop(o));
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

  // Explicit stencil steps go default_steps_per_pass at a time (temporal blocking).
  long advance(long k, step_report& last) override {
    if (!can_block()) return backend<T>::advance(k, last);
    advance_blocked(k, default_steps_per_pass);
    last = step_report{};
    return k;
  }

  std::vector<T> solution() const override {
    cuda::stream_synchronize(stream_);
    return u_.download();
  }

  double integral() const override {
    const std::size_t n = std::size_t(n_);
    integral_kernel<T><<<stencil_blocks(n), block_size, 0, stream_>>>(
        n, s_.problem.dx(), u_.data(), scratch_.partials(), scratch_.counter(), store_total{result_.data()});
    PERRON_CUDA_CHECK_LAUNCH("integral_kernel");
    return cuda::read_scalar(result_.data(), stream_);
  }

  double max_error(const closed_form& f) const override {
    const std::size_t n = std::size_t(n_);
    const grid_problem& p = s_.problem;
    const closed_form_params c{f.amplitude, f.wave,     f.level,     f.slope, p.length,
                               p.dx(),      f.pin_left, f.pin_right, f.left,  f.right};
    max_error_kernel<T><<<stencil_blocks(n), block_size, 0, stream_>>>(
        n, c, u_.data(), scratch_.partials(), scratch_.counter(), store_total{result_.data()});
    PERRON_CUDA_CHECK_LAUNCH("max_error_kernel");
    return cuda::read_scalar(result_.data(), stream_);
  }

  spmv_kernel kernel() const override {
    if (s_.options.form == operator_form::stencil) return spmv_kernel::cpu;
    if (cg_) return cg_->kernel();
    if (jacobi_) return jacobi_->kernel();
    return rhs_->kernel();
  }

  // ---- device_probe ----
  device_probe* probe() override { return this; }
  void* stream() const override { return stream_; }
  void copy_state() override {
    if (!b_.size()) b_ = device_buffer<T>(std::size_t(n_));  // explicit / direct: a scratch for benchmarks
    PERRON_CUDA_CHECK(cudaMemcpyAsync(b_.data(), u_.data(), std::size_t(n_) * sizeof(T),
                                      cudaMemcpyDeviceToDevice, stream_));
  }
  void restore_state() override {
    PERRON_CUDA_CHECK(cudaMemcpyAsync(u_.data(), b_.data(), std::size_t(n_) * sizeof(T),
                                      cudaMemcpyDeviceToDevice, stream_));
  }
  step_traffic traffic() const override {
    return step_traffic{double(n_) * sizeof(T), rhs_->bytes(), lhs_bytes_};
  }
  bool can_block() const override {
    return s_.options.scheme == method::explicit_euler && s_.options.form == operator_form::stencil;
  }
  void advance_blocked(long steps, int per_pass) override {
    if (!can_block()) throw invalid_argument("heat: blocked steps need --method explicit --operator stencil");
    per_pass = std::clamp(per_pass, 1, max_steps_per_pass);
    for (long done = 0; done < steps;) {
      const int k = int(std::min<long>(per_pass, steps - done));
      rhs_->apply_steps(u_.data(), x_.data(), k);
      std::swap(u_, x_);
      done += k;
    }
  }
  bool has_direct() const override { return s_.options.solver == step_solver::direct && sparse_; }
  void use_library_direct(bool on) override {
    if (!has_direct()) throw invalid_argument("heat: no direct solve to switch (--solver direct)");
    if (on && !dl_.size()) setup_library_direct();
    library_direct_ = on;
  }
  bool has_cg() const override { return cg_.has_value(); }
  void begin_blind_cg() override {
    rhs_->apply(u_.data(), b_.data(), true);
    saved_schedule_ = cg_->schedule();
  }
  void reset_blind_cg() override { cuda::fill(std::size_t(n_), T(0), x_.data(), stream_); }
  int blind_cg(int k) override {
    cg_->schedule() = cuda::check_schedule{k, 1, 1 << 20, false};  // one look, after k iterations
    return cg_->solve(b_.data(), x_.data(), stop_criterion{k, 0.0, 0.0}).iterations;
  }
  void end_blind_cg() override { cg_->schedule() = saved_schedule_; }

 private:
  // u = initial_profile(ic, p) on the device (ic not a file).
  void evaluate_profile(const initial_condition& ic) {
    const grid_problem& p = s_.problem;
    profile_params q;
    q.kind =
        ic.type == initial_condition::kind::sine ? 0 : (ic.type == initial_condition::kind::gauss ? 1 : 2);
    if (ic.type == initial_condition::kind::file) throw invalid_argument("heat: a file profile is uploaded");
    q.mode_pi = ic.mode * 3.14159265358979323846;
    q.x0 = ic.x0;
    q.width = ic.width;
    q.length = p.length;
    q.dx = p.dx();
    // A sine's ends are exactly zero (sin(K pi) is ~1e-16); Dirichlet values override.
    q.pin_left = q.pin_right = q.kind == 0;
    if (p.left.kind == boundary_kind::dirichlet) q.pin_left = true, q.left = p.left.value;
    if (p.right.kind == boundary_kind::dirichlet) q.pin_right = true, q.right = p.right.value;
    const std::size_t n = std::size_t(n_);
    profile_kernel<T><<<stencil_blocks(n), block_size, 0, stream_>>>(n, q, u_.data());
    PERRON_CUDA_CHECK_LAUNCH("profile_kernel");
  }

  // cg / jacobi on A: through the solver's own plan of the CSR, or the stencil kernel.
  void setup_iterative() {
    const auto& o = s_.options;
    const csr_matrix<T>& a = s_.lhs;
    const bool stencil = o.form == operator_form::stencil;
    device_operator<T> apply;
    if (stencil) {
      tridiagonal_stencil st = s_.stencils.lhs;
      for (double& c : st.edge_constant) c = 0;
      lhs_.emplace(st, a, o.form, o.kernel, stream_);
      apply = [op = &*lhs_](const T* d_x, T* d_y) { op->apply(d_x, d_y, false); };
    }
    lhs_bytes_ = stencil ? lhs_->bytes() : csr_apply_bytes(a);
    const jacobi_options jo{o.omega};
    if (o.solver == step_solver::cg) {
      if (stencil)
        cg_.emplace(n_, apply, stream_);
      else
        cg_.emplace(a, o.kernel, stream_);
      cg_->schedule().min_interval = std::max(1, o.check_interval);
    } else {
      if (stencil)
        jacobi_.emplace(diagonals_of<T>(s_.stencils.lhs).diag, apply, jo, stream_);
      else
        jacobi_.emplace(a, o.kernel, jo, stream_);
      jacobi_->schedule().min_interval = std::max(1, o.check_interval);
    }
  }

  // The partitioned solve (solvers/cuda/heat1d_tridiagonal.cuh): the spikes
  // and the reduced matrix once; gtsv2 for the reduced system (n / M rows).
  void setup_own_direct() {
    const std::size_t n = std::size_t(n_);
    chunks_ = (n + chunk_rows - 1) / chunk_rows;
    a_ = to_coefficients<T>(s_.stencils.lhs);
    b_coeff_ = to_coefficients<T>(s_.stencils.rhs);
    device_buffer<double> spikes(spike_values * chunks_);
    ends_ = device_buffer<double>(3 * chunks_);
    rdl_ = device_buffer<T>(chunks_);
    rd_ = device_buffer<T>(chunks_);
    rdu_ = device_buffer<T>(chunks_);
    sep_ = device_buffer<T>(chunks_);
    const unsigned blocks = cuda::grid_for(chunks_, chunk_threads, "heat: direct solve chunks");
    chunk_spikes_kernel<T><<<blocks, chunk_threads, 0, stream_>>>(n, chunks_, a_, spikes.data());
    PERRON_CUDA_CHECK_LAUNCH("chunk_spikes_kernel");
    reduced_matrix_kernel<T><<<blocks, chunk_threads, 0, stream_>>>(n, chunks_, a_, spikes.data(),
                                                                    rdl_.data(), rd_.data(), rdu_.data());
    PERRON_CUDA_CHECK_LAUNCH("reduced_matrix_kernel");
    PERRON_CUSPARSE_CHECK(cusparseCreate(&sparse_));
    PERRON_CUSPARSE_CHECK(cusparseSetStream(sparse_, stream_));
    std::size_t bytes = 0;
    if (chunks_ >= 3)
      PERRON_CUSPARSE_CHECK(
          gtsv_buffer(sparse_, int(chunks_), rdl_.data(), rd_.data(), rdu_.data(), sep_.data(), &bytes));
    reduced_buffer_ = device_buffer<char>(std::max<std::size_t>(bytes, 1));
    cuda::stream_synchronize(stream_);  // `spikes` is freed on return
  }

  // x = A^{-1} (B u + c): pass 1, the reduced system, pass 2.
  void own_direct_step() {
    const std::size_t n = std::size_t(n_);
    const unsigned blocks = cuda::grid_for(chunks_, chunk_threads, "heat: direct solve chunks");
    chunk_forward_kernel<T>
        <<<blocks, chunk_threads, 0, stream_>>>(n, chunks_, a_, b_coeff_, u_.data(), ends_.data());
    PERRON_CUDA_CHECK_LAUNCH("chunk_forward_kernel");
    reduced_rhs_kernel<T><<<blocks, chunk_threads, 0, stream_>>>(n, chunks_, a_, ends_.data(), sep_.data());
    PERRON_CUDA_CHECK_LAUNCH("reduced_rhs_kernel");
    if (chunks_ >= 3) {
      PERRON_CUSPARSE_CHECK(gtsv(sparse_, int(chunks_), rdl_.data(), rd_.data(), rdu_.data(), sep_.data(),
                                 reduced_buffer_.data()));
    } else {
      small_thomas_kernel<T>
          <<<1, 1, 0, stream_>>>(int(chunks_), rdl_.data(), rd_.data(), rdu_.data(), sep_.data());
      PERRON_CUDA_CHECK_LAUNCH("small_thomas_kernel");
    }
    chunk_back_kernel<T>
        <<<blocks, chunk_threads, 0, stream_>>>(n, chunks_, a_, b_coeff_, u_.data(), sep_.data(), x_.data());
    PERRON_CUDA_CHECK_LAUNCH("chunk_back_kernel");
  }

  // cuSPARSE gtsv2 on the three diagonals of A (the benchmark's baseline),
  // built on the device from its stencil; its buffer sized once.
  void setup_library_direct() {
    const std::size_t n = std::size_t(n_);
    dl_ = device_buffer<T>(n);
    d_ = device_buffer<T>(n);
    du_ = device_buffer<T>(n);
    diagonals_kernel<T><<<stencil_blocks(n), block_size, 0, stream_>>>(n, to_coefficients<T>(s_.stencils.lhs),
                                                                       dl_.data(), d_.data(), du_.data());
    PERRON_CUDA_CHECK_LAUNCH("diagonals_kernel");
    std::size_t bytes = 0;
    PERRON_CUSPARSE_CHECK(
        gtsv_buffer(sparse_, int(n_), dl_.data(), d_.data(), du_.data(), x_.data(), &bytes));
    gtsv_buffer_ = device_buffer<char>(std::max<std::size_t>(bytes, 1));
  }

  setup<T> s_;
  index_t n_;
  cudaStream_t stream_ = nullptr;
  device_buffer<T> u_, x_, b_;
  std::optional<device_op<T>> rhs_, lhs_;
  std::optional<cuda::cg_solver<T>> cg_;
  std::optional<cuda::jacobi_solver<T>> jacobi_;
  cuda::check_schedule saved_schedule_;
  double lhs_bytes_ = 0;
  device_buffer<T> dl_, d_, du_;
  device_buffer<char> gtsv_buffer_;
  bool library_direct_ = false;
  std::size_t chunks_ = 0;
  stencil_coefficients<T> a_{}, b_coeff_{};
  device_buffer<double> ends_;
  device_buffer<T> rdl_, rd_, rdu_, sep_;
  device_buffer<char> reduced_buffer_;
  cusparseHandle_t sparse_ = nullptr;
  mutable cuda::reduction_scratch scratch_;
  mutable device_buffer<double> result_{1};  // integral() / max_error()'s total
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
