// GPU SpMM, Y = alpha * A * X + beta * Y (kernels/spmm.hpp), built from the
// GEMM ladder's ideas applied to a sparse A:
// - a group of G lanes (a power of two, up to a warp) per row, G chosen so
//   that the group spans the k columns of one row of X: each nonzero's row of
//   X is read by consecutive lanes, coalesced;
// - wide loads: each lane reads V consecutive columns in one 16-byte access
//   (float4 / double2) when k is a multiple of V and X, Y are 16-byte aligned;
// - register blocking of k: R column chunks per lane (R * G * V columns per
//   pass), so a row's indices and values are read once for up to 256 columns;
// - staging of A's entries (coarsening over nonzeros): the group reads
//   stage * G consecutive (column, value) pairs with `stage` coalesced loads
//   per lane, the next batch's while this one is used, and broadcasts them
//   lane to lane with shuffles (registers, not shared memory: no barrier);
//   the stage X loads of one step are independent and in flight together;
// - load balance: a row longer than split_length is cut into pieces of
//   split_length entries, each its own group; their sums are added to Y
//   atomically after a pass that sets those rows to beta * Y.
// Accumulation is in T. Rows up to split_length entries are summed in entry
// order (bitwise reproducible); split rows add their pieces in any order.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "kernels/spmm.hpp"

namespace perron {
namespace {

constexpr index_t split_length = spmm_split_length;
constexpr int stage = 4;  // entries per lane per batch

template <class T, int V>
struct alignas(sizeof(T) * V) pack {
  T v[V];
};

// One batch of A's entries of [base, end): stage per lane, lane gl holding
// entries base + gl + g * s.
template <class T>
struct batch {
  index_t col[stage];
  T val[stage];
};

template <class T>
__device__ __forceinline__ void load_batch(batch<T>& b, const index_t* __restrict__ col_idx,
                                           const T* __restrict__ values, index_t base, index_t end, int g,
                                           int gl) {
#pragma unroll
  for (int s = 0; s < stage; ++s) {
    const index_t e = base + gl + g * s;
    b.col[s] = e < end ? col_idx[e] : 0;
    b.val[s] = e < end ? values[e] : T(0);
  }
}

// The group's sum over entries [begin, end) of value * X[col][columns of
// this lane in this pass], into acc.
template <class T, int V, int R>
__device__ __forceinline__ void group_sum(T (&acc)[R][V], index_t begin, index_t end, int pass, int k, int g,
                                          int gl, unsigned mask, const index_t* __restrict__ col_idx,
                                          const T* __restrict__ values, const T* __restrict__ x) {
  const std::size_t kk = static_cast<std::size_t>(k);
  batch<T> next;
  load_batch(next, col_idx, values, begin, end, g, gl);
  for (index_t base = begin; base < end; base += g * stage) {
    const batch<T> cur = next;
    if (base + g * stage < end) load_batch(next, col_idx, values, base + g * stage, end, g, gl);
    for (int u = 0; u < g; ++u) {
#pragma unroll
      for (int s = 0; s < stage; ++s) {
        const index_t col = __shfl_sync(mask, cur.col[s], u, g);
        const T v = __shfl_sync(mask, cur.val[s], u, g);
        if (base + g * s + u >= end) continue;  // uniform across the group
        const T* xr = x + static_cast<std::size_t>(col) * kk;
#pragma unroll
        for (int j = 0; j < R; ++j) {
          const int c = pass + (gl + g * j) * V;
          if (c < k) {
            const pack<T, V> p = *reinterpret_cast<const pack<T, V>*>(xr + c);
#pragma unroll
            for (int i = 0; i < V; ++i) acc[j][i] += v * p.v[i];
          }
        }
      }
    }
  }
}

// The group's part of Y[row] for entries [begin, end): stored (alpha * sum +
// beta * Y, Y not read when beta == 0), or with ATOMIC added as alpha * sum.
template <class T, int V, int R, bool ATOMIC>
__device__ __forceinline__ void group_row(std::size_t row, index_t begin, index_t end, int k, int g, T alpha,
                                          const index_t* __restrict__ col_idx, const T* __restrict__ values,
                                          const T* __restrict__ x, T beta, T* __restrict__ y) {
  const int lane = threadIdx.x & 31, gl = lane & (g - 1);
  const unsigned mask = g == 32 ? 0xffffffffu : ((1u << g) - 1) << (lane & ~(g - 1));
  T* yr = y + row * static_cast<std::size_t>(k);
  for (int pass = 0; pass < k; pass += g * V * R) {
    T acc[R][V] = {};
    group_sum<T, V, R>(acc, begin, end, pass, k, g, gl, mask, col_idx, values, x);
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const int c = pass + (gl + g * j) * V;
      if (c >= k) continue;
      if (ATOMIC) {
#pragma unroll
        for (int i = 0; i < V; ++i) atomicAdd(yr + c + i, alpha * acc[j][i]);
        continue;
      }
      pack<T, V> out;
      if (beta == T(0)) {
#pragma unroll
        for (int i = 0; i < V; ++i) out.v[i] = alpha * acc[j][i];
      } else {
        const pack<T, V> old = *reinterpret_cast<const pack<T, V>*>(yr + c);
#pragma unroll
        for (int i = 0; i < V; ++i) out.v[i] = alpha * acc[j][i] + beta * old.v[i];
      }
      *reinterpret_cast<pack<T, V>*>(yr + c) = out;
    }
  }
}

// Rows of at most split_length entries, one group each (longer rows: spmm_pieces).
template <class T, int V, int R>
__global__ void __launch_bounds__(256)
    spmm_rows(index_t rows, int k, int g, T alpha, const index_t* __restrict__ row_ptr,
              const index_t* __restrict__ col_idx, const T* __restrict__ values, const T* __restrict__ x,
              T beta, T* __restrict__ y) {
  const std::size_t row = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / unsigned(g);
  if (row >= static_cast<std::size_t>(rows)) return;  // the whole group leaves together
  const index_t begin = row_ptr[row], end = row_ptr[row + 1];
  if (end - begin > split_length) return;
  group_row<T, V, R, false>(row, begin, end, k, g, alpha, col_idx, values, x, beta, y);
}

// The pieces of the long rows: (row, first entry); a piece ends split_length
// entries later or at its row's end.
template <class T, int V, int R>
__global__ void __launch_bounds__(256)
    spmm_pieces(std::size_t pieces, const int2* __restrict__ piece, int k, int g, T alpha,
                const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y) {
  const std::size_t p = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / unsigned(g);
  if (p >= pieces) return;
  const int2 w = piece[p];
  const index_t end = min(row_ptr[w.x + 1], w.y + split_length);
  group_row<T, V, R, true>(static_cast<std::size_t>(w.x), w.y, end, k, g, alpha, col_idx, values, x, T(0), y);
}

// Y[row] = beta * Y[row] (0 when beta == 0: Y not read) for the long rows.
template <class T>
__global__ void spmm_scale_rows(std::size_t count, const index_t* __restrict__ long_rows, int k, T beta,
                                T* __restrict__ y) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count * static_cast<std::size_t>(k)) return;
  T* p = y + static_cast<std::size_t>(long_rows[i / k]) * k + i % k;
  *p = beta == T(0) ? T(0) : beta * *p;
}

constexpr unsigned block = 256;

}  // namespace

template <class T>
struct spmm_plan<T>::impl {
  index_t rows = 0, cols = 0;
  std::size_t nnz = 0;
  cuda::stream_t stream = nullptr;
  cuda::device_buffer<index_t> row_ptr, col_idx;
  cuda::device_buffer<T> values;
  cuda::device_buffer<index_t> long_rows;  // rows of more than split_length entries
  cuda::device_buffer<int2> pieces;        // (row, first entry) of each piece of those rows
};

namespace {
template <class T, int V, int R>
void launch(const typename spmm_plan<T>::impl& m, int g, T alpha, const T* x, T beta, T* y, int k) {
  const std::size_t lanes = static_cast<unsigned>(g);
  if (m.pieces.size()) {
    const std::size_t n = m.long_rows.size() * static_cast<std::size_t>(k);
    spmm_scale_rows<<<cuda::grid_for(n, block, "spmm"), block, 0, m.stream>>>(m.long_rows.size(),
                                                                              m.long_rows.data(), k, beta, y);
    spmm_pieces<T, V, R><<<cuda::grid_for(m.pieces.size() * lanes, block, "spmm"), block, 0, m.stream>>>(
        m.pieces.size(), m.pieces.data(), k, g, alpha, m.row_ptr.data(), m.col_idx.data(), m.values.data(), x,
        y);
  }
  spmm_rows<T, V, R><<<cuda::grid_for(m.rows * lanes, block, "spmm"), block, 0, m.stream>>>(
      m.rows, k, g, alpha, m.row_ptr.data(), m.col_idx.data(), m.values.data(), x, beta, y);
  PERRON_CUDA_CHECK_LAUNCH("spmm");
}

// The group width: the smallest power of two whose lanes cover `chunks`, at most a warp.
int group_for(int chunks) {
  int g = 1;
  while (g < chunks && g < 32) g *= 2;
  return g;
}
}  // namespace

template <class T>
spmm_plan<T>::spmm_plan(const csr_matrix<T>& a, cuda::stream_t stream) : impl_(std::make_unique<impl>()) {
  validate(a, "spmm_plan");
  impl& m = *impl_;
  m.rows = a.rows;
  m.cols = a.cols;
  m.nnz = a.nnz();
  m.stream = stream;
  m.row_ptr.upload(a.row_ptr);
  m.col_idx.upload(a.col_idx);
  m.values.upload(a.values);
  std::vector<index_t> long_rows;
  std::vector<int2> pieces;
  for (index_t r = 0; r < a.rows; ++r) {
    if (a.row_ptr[r + 1] - a.row_ptr[r] <= split_length) continue;
    long_rows.push_back(r);
    for (std::int64_t e = a.row_ptr[r]; e < a.row_ptr[r + 1]; e += split_length)
      pieces.push_back(make_int2(r, static_cast<int>(e)));
  }
  m.long_rows.upload(long_rows);
  m.pieces.upload(pieces);
}
template <class T>
spmm_plan<T>::~spmm_plan() = default;
template <class T>
spmm_plan<T>::spmm_plan(spmm_plan&&) noexcept = default;
template <class T>
spmm_plan<T>& spmm_plan<T>::operator=(spmm_plan&&) noexcept = default;

template <class T>
void spmm_plan<T>::apply(T alpha, const T* d_x, T beta, T* d_y, index_t k) const {
  if (k < 0) throw invalid_argument("spmm: k (columns of X) must be >= 0");
  const impl& m = *impl_;
  if (k == 0 || m.rows == 0) return;
  constexpr int wide = 16 / sizeof(T);
  const bool vec = k % wide == 0 && reinterpret_cast<std::uintptr_t>(d_x) % 16 == 0 &&
                   reinterpret_cast<std::uintptr_t>(d_y) % 16 == 0;
  const int chunks = vec ? k / wide : k;
  const int g = group_for(chunks);
  const bool two = chunks > 32;  // two chunks per lane: up to 64 chunks in one pass over the row
  if (vec)
    two ? launch<T, wide, 2>(m, g, alpha, d_x, beta, d_y, k)
        : launch<T, wide, 1>(m, g, alpha, d_x, beta, d_y, k);
  else
    two ? launch<T, 1, 2>(m, g, alpha, d_x, beta, d_y, k) : launch<T, 1, 1>(m, g, alpha, d_x, beta, d_y, k);
}

template <class T>
index_t spmm_plan<T>::rows() const {
  return impl_->rows;
}
template <class T>
index_t spmm_plan<T>::cols() const {
  return impl_->cols;
}
template <class T>
std::size_t spmm_plan<T>::nnz() const {
  return impl_->nnz;
}
template <class T>
cuda::stream_t spmm_plan<T>::stream() const {
  return impl_->stream;
}
template <class T>
const index_t* spmm_plan<T>::device_row_ptr() const {
  return impl_->row_ptr.data();
}
template <class T>
const index_t* spmm_plan<T>::device_col_idx() const {
  return impl_->col_idx.data();
}
template <class T>
const T* spmm_plan<T>::device_values() const {
  return impl_->values.data();
}

template class spmm_plan<float>;
template class spmm_plan<double>;

}  // namespace perron
