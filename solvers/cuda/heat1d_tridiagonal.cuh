// The heat solver's own direct tridiagonal solve, A x = B u + c with the
// right-hand side formed on the fly (solvers/cuda/heat1d.cu includes this).
//
// Partition (a Schur complement on separators, the SPIKE idea): rows are cut
// into chunks of M, chunk k = [s_k, e_k); its last row q_k = e_k - 1 is a
// separator, the rows I_k = [s_k, q_k) its interior. With the separators
// known, the interior is an independent tridiagonal system (Thomas, one
// thread per chunk, in registers):
//   x_i = y_i + alpha_i x_{q_{k-1}} + beta_i x_{q_k},  i in I_k,
// y solving T_k y = b (zero interface values), alpha T_k alpha = -l_{s_k} e_1
// and beta T_k beta = -u_{q_k - 1} e_last (alpha, beta depend on A only: set
// up once). Row q_k of A then reads, with the interior's last value
// x_{q-1} = y^k_l + alpha^k_l x_{q_{k-1}} + beta^k_l x_{q_k} and the next
// chunk's first x_{q+1} = y^{k+1}_f + alpha^{k+1}_f x_{q_k} + beta^{k+1}_f x_{q_{k+1}}:
//   (l_q alpha^k_l) x_{q_{k-1}} + (d_q + l_q beta^k_l + u_q alpha^{k+1}_f) x_{q_k}
//     + (u_q beta^{k+1}_f) x_{q_{k+1}} = b_q - l_q y^k_l - u_q y^{k+1}_f,
// a tridiagonal system of n / M unknowns, diagonally dominant when A is (a
// Schur complement of it), solved by gtsv2_nopivot. Its diagonal is formed
// from its row sum, not by the sum above: with r >> 1 that sum cancels to
// ~1/r of its terms and the rounding of alpha, beta would swamp the row sum
// (the identity part that carries the smooth modes). With z = 1 - alpha -
// beta on the interior, T_k z = sigma (the row sums of A there: exact, no
// cancellation), and the reduced row sums to
//   sigma_q - l_q z^k_l - u_q z^{k+1}_f  (all terms >= 0 for an M-matrix),
// so diagonal = that - lower - upper. An empty interior (a last
// chunk of one row) reads x_{q-1} = x_{q_{k-1}} (alpha_l = 1) and
// x_{s_k} = x_{q_k} (beta_f = 1).
//
// Per step: pass 1 reads u (b on the fly) and writes 3 values per chunk;
// the reduced solve; pass 2 reads u again and writes x: 3 n s bytes.
#pragma once

namespace perron::heat::detail {
namespace {

constexpr int chunk_rows = 32;  // M
constexpr int chunk_threads = 128;
constexpr int spike_values = 6;  // per chunk: alpha_f, alpha_l, beta_f, beta_l, z_f, z_l

// Row i of a stencil (lower, diag, upper; the constant apart).
template <class T>
__device__ void stencil_lhs_row(std::size_t n, std::size_t i, const stencil_coefficients<T>& c, double& l,
                                double& d, double& u) {
  if (i >= 2 && i + 2 < n) {
    l = c.lower, d = c.diag, u = c.upper;
    return;
  }
  const int e = i == 0 ? 0 : (i == 1 ? 1 : (i == n - 2 ? 2 : 3));
  l = c.edge[e][0], d = c.edge[e][1], u = c.edge[e][2];
}

// Thomas on rows [s, q) of A with right-hand side rhs(i): forward
// c'_j = u_j / m_j, d'_j = (r_j - l_j d'_{j-1}) / m_j, m_j = d_j - l_j c'_{j-1};
// back x_j = d'_j - c'_j x_{j+1}. Gives the first and last x, and writes all
// of them to out when out is not null. q - s <= M - 1.
template <class T, class Rhs>
__device__ void interior_solve(std::size_t n, const stencil_coefficients<T>& a, std::size_t s, std::size_t q,
                               const Rhs& rhs, double& first, double& last, T* out) {
  double cp[chunk_rows], dp[chunk_rows];
  const int len = int(q - s);
#pragma unroll
  for (int j = 0; j < chunk_rows - 1; ++j) {
    if (j < len) {
      double l, d, u;
      stencil_lhs_row(n, s + j, a, l, d, u);
      const double m = d - (j ? l * cp[j - 1] : 0.0);
      cp[j] = u / m;
      dp[j] = (rhs(s + j) - (j ? l * dp[j - 1] : 0.0)) / m;
    }
  }
  double next = 0;
  first = last = 0;
#pragma unroll
  for (int j = chunk_rows - 2; j >= 0; --j) {
    if (j < len) {
      next = dp[j] - (j + 1 < len ? cp[j] * next : 0.0);
      if (j == len - 1) last = next;
      if (j == 0) first = next;
      if (out) out[s + j] = T(next);
    }
  }
}

struct chunk_span {
  std::size_t s, q;  // interior [s, q), separator q
};
__device__ inline chunk_span chunk_of(std::size_t n, std::size_t k) {
  const std::size_t s = k * chunk_rows;
  const std::size_t e = s + chunk_rows < n ? s + chunk_rows : n;
  return {s, e - 1};
}

// The interior's couplings to the separators: l_{s_k} (to x_{q_{k-1}}) and
// u_{q_k - 1} (to x_{q_k}).
struct coupling_pair {
  double lower_first, upper_last;
};
template <class T>
__device__ coupling_pair couplings(std::size_t n, const stencil_coefficients<T>& a, const chunk_span& c) {
  double l, d, u, unused;
  stencil_lhs_row(n, c.s, a, l, d, unused);
  stencil_lhs_row(n, c.q - 1, a, unused, d, u);
  return {l, u};
}

// Set-up, one thread per chunk: alpha and beta at the interior's ends, then
// the reduced matrix (needs the next chunk's: a second kernel).
template <class T>
__global__ void chunk_spikes_kernel(std::size_t n, std::size_t chunks, stencil_coefficients<T> a,
                                    double* spikes) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= chunks) return;
  const chunk_span c = chunk_of(n, k);
  double af = 0, al = 1, bf = 1, bl = 0, zf = 0, zl = 0;  // empty interior
  if (c.q > c.s) {
    // Named copies, not structured bindings: C++17 lambdas cannot capture those.
    const coupling_pair cp = couplings(n, a, c);
    const double ls = cp.lower_first, uq = cp.upper_last;
    interior_solve<T>(
        n, a, c.s, c.q, [&](std::size_t i) { return i == c.s ? -ls : 0.0; }, af, al, (T*)nullptr);
    interior_solve<T>(
        n, a, c.s, c.q, [&](std::size_t i) { return i == c.q - 1 ? -uq : 0.0; }, bf, bl, (T*)nullptr);
    const auto sigma = [&](std::size_t i) {
      double li, di, ui;
      stencil_lhs_row(n, i, a, li, di, ui);
      return di + (li + ui);
    };
    interior_solve<T>(n, a, c.s, c.q, sigma, zf, zl, (T*)nullptr);
  }
  double* out = spikes + spike_values * k;
  out[0] = af, out[1] = al, out[2] = bf, out[3] = bl, out[4] = zf, out[5] = zl;
}

template <class T>
__global__ void reduced_matrix_kernel(std::size_t n, std::size_t chunks, stencil_coefficients<T> a,
                                      const double* spikes, T* dl, T* d, T* du) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= chunks) return;
  const std::size_t q = chunk_of(n, k).q;
  double lq, dq, uq;
  stencil_lhs_row(n, q, a, lq, dq, uq);
  const bool has_next = k + 1 < chunks;
  const double* own = spikes + spike_values * k;
  const double* next = own + spike_values;
  const double lower = k ? lq * own[1] : 0.0, upper = has_next ? uq * next[2] : 0.0;
  const double row_sum = dq + (lq + uq) - lq * own[5] - (has_next ? uq * next[4] : 0.0);
  dl[k] = T(lower);
  d[k] = T(row_sum - lower - upper);
  du[k] = T(upper);
}

// b_i = (B u)_i + c_i, rounded to T as the step's right-hand side is.
template <class T>
__device__ double rhs_row(std::size_t n, std::size_t i, const stencil_coefficients<T>& b, const T* u) {
  const T xl = i > 0 ? u[i - 1] : T(0), xr = i + 1 < n ? u[i + 1] : T(0);
  return double(stencil_row_value(n, i, b, xl, u[i], xr));
}

// Pass 1: y at the interior's ends and b at the separator, per chunk.
template <class T>
__global__ void chunk_forward_kernel(std::size_t n, std::size_t chunks, stencil_coefficients<T> a,
                                     stencil_coefficients<T> b, const T* __restrict__ u, double* ends) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= chunks) return;
  const chunk_span c = chunk_of(n, k);
  double yf = 0, yl = 0;
  if (c.q > c.s)
    interior_solve<T>(
        n, a, c.s, c.q, [&](std::size_t i) { return rhs_row(n, i, b, u); }, yf, yl, (T*)nullptr);
  ends[3 * k] = yf, ends[3 * k + 1] = yl, ends[3 * k + 2] = rhs_row(n, c.q, b, u);
}

// The reduced right-hand side b_q - l_q y^k_l - u_q y^{k+1}_f.
template <class T>
__global__ void reduced_rhs_kernel(std::size_t n, std::size_t chunks, stencil_coefficients<T> a,
                                   const double* ends, T* r) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= chunks) return;
  double lq, dq, uq;
  stencil_lhs_row(n, chunk_of(n, k).q, a, lq, dq, uq);
  const double next = k + 1 < chunks ? ends[3 * (k + 1)] : 0.0;
  r[k] = T(ends[3 * k + 2] - lq * ends[3 * k + 1] - uq * next);
}

// Pass 2: the interior with the separators' values moved to its right-hand side.
template <class T>
__global__ void chunk_back_kernel(std::size_t n, std::size_t chunks, stencil_coefficients<T> a,
                                  stencil_coefficients<T> b, const T* __restrict__ u,
                                  const T* __restrict__ sep, T* __restrict__ x) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= chunks) return;
  const chunk_span c = chunk_of(n, k);
  const double left = k ? double(sep[k - 1]) : 0.0, right = double(sep[k]);
  if (c.q > c.s) {
    // Named copies, not structured bindings: C++17 lambdas cannot capture those.
    const coupling_pair cp = couplings(n, a, c);
    const double ls = cp.lower_first, uq = cp.upper_last;
    double f, z;
    interior_solve<T>(
        n, a, c.s, c.q,
        [&](std::size_t i) {
          return rhs_row(n, i, b, u) - (i == c.s ? ls * left : 0.0) - (i == c.q - 1 ? uq * right : 0.0);
        },
        f, z, x);
  }
  x[c.q] = T(right);
}

}  // namespace
}  // namespace perron::heat::detail
