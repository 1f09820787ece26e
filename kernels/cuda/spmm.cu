// GPU SpMM, Y = alpha * A * X + beta * Y (kernels/spmm.hpp), built from the
// GEMM ladder's ideas applied to a sparse A. A team of W = S * G lanes (a
// power of two, at most a warp) works on one row:
// - coarsening over columns and wide loads: G column lanes span the k
//   columns, each reading V consecutive values of a row of X with one 16-byte
//   load (float4 / double2) when k is a multiple of V and X, Y are 16-byte
//   aligned, so a nonzero's row of X is read coalesced;
// - register blocking of k: R = 2 chunks of V columns per lane when k needs
//   more than a warp of lanes, so a row's indices are read once for up to 256
//   float (128 double) columns;
// - S entry slots: slot s takes the row's entries s, s + S, ... (consecutive
//   slots read consecutive entries, coalesced), four at a time so that four
//   index loads and then 4 R X loads are in flight together; the slots' sums
//   are then combined by a butterfly of shuffles (fixed order: reproducible).
//   S is spmm_team_slots: one slot where the rows fill the device, more where
//   they are too few;
// - load balance: a row longer than split_length is cut into pieces of
//   split_length entries, each its own team; their sums are added to Y
//   atomically after a pass that sets those rows to beta * Y.
// Accumulation is in T. Rows up to split_length entries are bitwise
// reproducible; split rows add their pieces in any order.
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
constexpr int unroll = 4;  // entries of one slot in flight together

template <class T, int V>
struct alignas(sizeof(T) * V) pack {
  T v[V];
};

// The shape of a team: g column lanes times (w / g) entry slots.
struct team {
  int w, g;
};

// acc += value_e * X[col_e][this lane's columns of the pass], for e = first, first + step, ... < end.
template <class T, int V, int R>
__device__ __forceinline__ void slot_sum(T (&acc)[R][V], index_t first, index_t end, index_t step, int c0,
                                         int g, int k, const index_t* __restrict__ col_idx,
                                         const T* __restrict__ values, const T* __restrict__ x) {
  const std::size_t kk = static_cast<std::size_t>(k);
  index_t e = first;
  for (; e + (unroll - 1) * step < end; e += unroll * step) {
    index_t col[unroll];
    T val[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) col[u] = col_idx[e + u * step], val[u] = values[e + u * step];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
#pragma unroll
      for (int j = 0; j < R; ++j) {
        const int c = c0 + g * j * V;
        if (c >= k) continue;
        const pack<T, V> p =
            *reinterpret_cast<const pack<T, V>*>(x + static_cast<std::size_t>(col[u]) * kk + c);
#pragma unroll
        for (int i = 0; i < V; ++i) acc[j][i] += val[u] * p.v[i];
      }
  }
  for (; e < end; e += step) {
    const index_t col = col_idx[e];
    const T val = values[e];
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const int c = c0 + g * j * V;
      if (c >= k) continue;
      const pack<T, V> p = *reinterpret_cast<const pack<T, V>*>(x + static_cast<std::size_t>(col) * kk + c);
#pragma unroll
      for (int i = 0; i < V; ++i) acc[j][i] += val * p.v[i];
    }
  }
}

// The team's part of Y[row] for entries [begin, end): stored by slot 0
// (alpha * sum + beta * Y; Y not read when beta == 0), or with ATOMIC added
// as alpha * sum.
template <class T, int V, int R, bool ATOMIC>
__device__ __forceinline__ void team_row(std::size_t row, index_t begin, index_t end, int k, team tm, T alpha,
                                         const index_t* __restrict__ col_idx, const T* __restrict__ values,
                                         const T* __restrict__ x, T beta, T* __restrict__ y) {
  const int lane = threadIdx.x & 31, t = lane & (tm.w - 1), slot = t / tm.g, gl = t & (tm.g - 1);
  const unsigned mask = tm.w == 32 ? 0xffffffffu : ((1u << tm.w) - 1) << (lane & ~(tm.w - 1));
  const index_t slots = tm.w / tm.g;
  T* yr = y + row * static_cast<std::size_t>(k);
  for (int pass = 0; pass < k; pass += tm.g * V * R) {
    T acc[R][V] = {};
    slot_sum<T, V, R>(acc, begin + slot, end, slots, pass + gl * V, tm.g, k, col_idx, values, x);
    for (int off = tm.g; off < tm.w; off *= 2)
#pragma unroll
      for (int j = 0; j < R; ++j)
#pragma unroll
        for (int i = 0; i < V; ++i) acc[j][i] += __shfl_xor_sync(mask, acc[j][i], off, tm.w);
    if (slot != 0) continue;
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const int c = pass + (gl + tm.g * j) * V;
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

// Rows of at most split_length entries, one team each (longer rows: spmm_pieces).
template <class T, int V, int R>
__global__ void __launch_bounds__(256)
    spmm_rows(index_t rows, int k, team tm, T alpha, const index_t* __restrict__ row_ptr,
              const index_t* __restrict__ col_idx, const T* __restrict__ values, const T* __restrict__ x,
              T beta, T* __restrict__ y) {
  const std::size_t row = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / unsigned(tm.w);
  if (row >= static_cast<std::size_t>(rows)) return;  // the whole team leaves together
  const index_t begin = row_ptr[row], end = row_ptr[row + 1];
  if (end - begin > split_length) return;
  team_row<T, V, R, false>(row, begin, end, k, tm, alpha, col_idx, values, x, beta, y);
}

// The pieces of the long rows: (row, first entry); a piece ends split_length
// entries later or at its row's end.
template <class T, int V, int R>
__global__ void __launch_bounds__(256)
    spmm_pieces(std::size_t pieces, const int2* __restrict__ piece, int k, team tm, T alpha,
                const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y) {
  const std::size_t p = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / unsigned(tm.w);
  if (p >= pieces) return;
  const int2 w = piece[p];
  const index_t end = min(row_ptr[w.x + 1], w.y + split_length);
  team_row<T, V, R, true>(static_cast<std::size_t>(w.x), w.y, end, k, tm, alpha, col_idx, values, x, T(0), y);
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
  long long resident_threads = 0;  // threads the device holds at once (SMs x threads per SM)
  cuda::stream_t stream = nullptr;
  cuda::device_buffer<index_t> row_ptr, col_idx;
  cuda::device_buffer<T> values;
  cuda::device_buffer<index_t> long_rows;  // rows of more than split_length entries
  cuda::device_buffer<int2> pieces;        // (row, first entry) of each piece of those rows
};

namespace {
template <class T, int V, int R>
void launch(const typename spmm_plan<T>::impl& m, team tm, T alpha, const T* x, T beta, T* y, int k) {
  const std::size_t lanes = static_cast<unsigned>(tm.w);
  if (m.pieces.size()) {
    const std::size_t n = m.long_rows.size() * static_cast<std::size_t>(k);
    spmm_scale_rows<<<cuda::grid_for(n, block, "spmm"), block, 0, m.stream>>>(m.long_rows.size(),
                                                                              m.long_rows.data(), k, beta, y);
    // Pieces are long: a full warp of slots for them.
    const team piece_team{32, tm.g};
    spmm_pieces<T, V, R><<<cuda::grid_for(m.pieces.size() * 32, block, "spmm"), block, 0, m.stream>>>(
        m.pieces.size(), m.pieces.data(), k, piece_team, alpha, m.row_ptr.data(), m.col_idx.data(),
        m.values.data(), x, y);
  }
  spmm_rows<T, V, R><<<cuda::grid_for(m.rows * lanes, block, "spmm"), block, 0, m.stream>>>(
      m.rows, k, tm, alpha, m.row_ptr.data(), m.col_idx.data(), m.values.data(), x, beta, y);
  PERRON_CUDA_CHECK_LAUNCH("spmm");
}

// The smallest power of two >= n, at most `cap`.
int pow2_at_least(double n, int cap) {
  int p = 1;
  while (p < n && p < cap) p *= 2;
  return p;
}

// G column lanes cover the chunks (two per lane past a warp), times
// spmm_team_slots entry slots.
template <class T, int V>
void dispatch(const typename spmm_plan<T>::impl& m, int chunks, T alpha, const T* x, T beta, T* y, int k) {
  const bool two = chunks > 32;
  const int g = pow2_at_least(two ? (chunks + 1) / 2 : chunks, 32);
  const team tm{g * spmm_team_slots(m.rows, g, m.resident_threads), g};
  if (two)
    launch<T, V, 2>(m, tm, alpha, x, beta, y, k);
  else
    launch<T, V, 1>(m, tm, alpha, x, beta, y, k);
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
  int device = 0, sms = 0, per_sm = 0;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  m.resident_threads = static_cast<long long>(sms) * per_sm;
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
  if (vec)
    dispatch<T, wide>(m, k / wide, alpha, d_x, beta, d_y, k);
  else
    dispatch<T, 1>(m, k, alpha, d_x, beta, d_y, k);
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
