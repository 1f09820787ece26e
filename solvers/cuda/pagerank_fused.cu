// The fused pattern pull (pagerank_fused.cuh gives the math and the layout).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda/atomic>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/cuda/support.cuh"
#include "core/error.hpp"
#include "solvers/cuda/pagerank_fused.cuh"
#include "solvers/cuda/pagerank_fused_slices.cuh"
#include "solvers/pagerank_slices.hpp"

namespace perron::pagerank_gpu {

namespace {

constexpr int setup_threads = 256;
// The setup kernels are grid-stride loops of setup_threads: at most this many blocks.
constexpr unsigned max_setup_blocks = 1u << 20;
// init_x's grid cap: every block adds its dangling mass to the state with
// three same-address atomics, which queue: on the H200, 10^6 vertices took
// 14 us in 4096 blocks, 7-8 us in 1024 or 512, 9-13 in 264 (ncu,
// docs/PERFORMANCE.md, session 46).
constexpr unsigned max_init_blocks = 1024;

// The setup kernels' launch shape for `count` items.
unsigned setup_grid(long long count) {
  return cuda::grid_for(static_cast<std::size_t>(count), setup_threads, max_setup_blocks);
}

// ---- setup ------------------------------------------------------------------

__global__ void count_degrees(std::size_t nnz, const index_t* __restrict__ col, index_t* __restrict__ deg) {
  for (std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; q < nnz;
       q += std::size_t(gridDim.x) * blockDim.x)
    atomicAdd(deg + col[q], 1);
}

// ids[j] = j, len[j] = length of row j (its in-degree).
__global__ void ids_and_lengths(index_t n, const index_t* __restrict__ row_ptr, index_t* __restrict__ ids,
                                index_t* __restrict__ len) {
  for (index_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
    ids[j] = j;
    len[j] = row_ptr[j + 1] - row_ptr[j];
  }
}

// The ranks' compact form (solvers/pagerank_compact_ranks.hpp), in the
// graph's order: code[j] = d + 1 for a vertex j of no in-link and out-degree
// d <= max_degree, else 0 (its rank sent); rep[d] = one such vertex of each d
// (any: they publish the same bits), ~0u for none. Read before written, so
// that the 10^5 vertices of one degree do not all store to one word.
__global__ void rank_codes(index_t n, const index_t* __restrict__ len, const index_t* __restrict__ out_degree,
                           std::uint16_t* __restrict__ code, unsigned* __restrict__ rep) {
  for (index_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
    const index_t d = out_degree[j];
    const bool table = len[j] == 0 && d <= compact_ranks::max_degree;
    code[j] = static_cast<std::uint16_t>(table ? d + 1 : 0);
    if (table && rep[d] == ~0u) rep[d] = static_cast<unsigned>(j);
  }
}

// The solver's vertex of each sent value after the table, in the graph's
// order: one block per compact_ranks::block vertices, each thread a run of
// sent_run of them, the runs' counts scanned in the block; base: the sent
// values before each block (compact_ranks::sent_before).
constexpr int sent_threads = 256;
constexpr int sent_run = compact_ranks::block / sent_threads;
static_assert(sent_run * sent_threads == compact_ranks::block, "a block of vertices per block of threads");

__global__ void __launch_bounds__(sent_threads)
    order_sent(index_t n, const std::uint16_t* __restrict__ code, const index_t* __restrict__ order,
               const index_t* __restrict__ base, index_t table, index_t* __restrict__ sent) {
  using scan = cub::BlockScan<index_t, sent_threads>;
  __shared__ typename scan::TempStorage temp;
  const long long j0 = static_cast<long long>(blockIdx.x) * compact_ranks::block + threadIdx.x * sent_run;
  index_t count = 0;
  for (int i = 0; i < sent_run; ++i) count += j0 + i < n && code[j0 + i] == 0;
  index_t at = 0;
  scan(temp).ExclusiveSum(count, at);
  at += table + base[blockIdx.x];
  for (int i = 0; i < sent_run; ++i)
    if (j0 + i < n && code[j0 + i] == 0) sent[at++] = order[j0 + i];
}

// The global order's sort keys, for a descending sort: whether j goes in the
// front part (fused_front_part, solvers/pagerank.hpp) above its in-degree.
__global__ void front_keys(index_t n, int end_bit, const index_t* __restrict__ out_degree,
                           const index_t* __restrict__ len, unsigned* __restrict__ key) {
  for (index_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x)
    key[j] =
        (fused_front_part(out_degree[j] == 0, len[j]) ? 1u << end_bit : 0u) | static_cast<unsigned>(len[j]);
}

// The windowed order's sort keys: window (ascending, stored inverted for the
// descending sort) above the in-degree (descending).
__global__ void window_keys(index_t n, int shift, const index_t* __restrict__ len,
                            unsigned long long* __restrict__ key) {
  const auto last = static_cast<unsigned long long>((n - 1) >> shift);
  for (index_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x)
    key[j] = ((last - static_cast<unsigned long long>(j >> shift)) << 32) | static_cast<unsigned>(len[j]);
}

// new_id[perm[k]] = k; len[k] = length of old row perm[k] (len[n] = 0 for the scan).
__global__ void relabel_rows(index_t n, const index_t* __restrict__ perm, const index_t* __restrict__ row_ptr,
                             index_t* __restrict__ new_id, index_t* __restrict__ len) {
  for (index_t k = blockIdx.x * blockDim.x + threadIdx.x; k <= n; k += gridDim.x * blockDim.x) {
    if (k == n) {
      len[n] = 0;
      continue;
    }
    const index_t j = perm[k];
    new_id[j] = k;
    len[k] = row_ptr[j + 1] - row_ptr[j];
  }
}

// One warp per new row: its links, renamed.
__global__ void relabel_links(index_t n, const index_t* __restrict__ perm,
                              const index_t* __restrict__ row_ptr, const index_t* __restrict__ col,
                              const index_t* __restrict__ new_id, const index_t* __restrict__ new_row_ptr,
                              index_t* __restrict__ new_col) {
  const int lane = threadIdx.x & 31;
  for (long long k = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; k < n;
       k += (gridDim.x * (long long)blockDim.x) >> 5) {
    const index_t src = row_ptr[perm[k]], dst = new_row_ptr[k], len = new_row_ptr[k + 1] - dst;
    for (index_t t = lane; t < len; t += 32) new_col[dst + t] = new_id[col[src + t]];
  }
}

// Virtual row g (lane g % 32 of slice g / 32) stores its links at
// slice_start[g / 32] + 32 j + g % 32, j < vlen[g]: coalesced across a slice.
__global__ void fill_slices(long long vrows, const unsigned* __restrict__ slice_start,
                            const unsigned short* __restrict__ vlen, const index_t* __restrict__ vbegin,
                            const index_t* __restrict__ csr_col, index_t* __restrict__ col) {
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < vrows;
       g += gridDim.x * (long long)blockDim.x) {
    const unsigned p = slice_start[g / 32] + static_cast<unsigned>(g % 32);
    const index_t b = vbegin[g];
    for (unsigned j = 0; j < vlen[g]; ++j) col[p + 32 * j] = csr_col[b + j];
  }
}

// The 16-bit index (fused_args::word): the escaped links of each virtual row,
// into vlen16 (with its links and its first link's base: index16_first) and
// counts (for the scan). A lane's columns ascend (the rows are sorted), each
// difference from the one before it, escaped from 2^15 on.
__device__ bool index16_near(index_t row, index_t first_col) {
  const auto c = static_cast<unsigned>(first_col);
  return c >= index16_limit && c - static_cast<unsigned>(row) + (index16_limit >> 1) < index16_limit;
}

__global__ void count_high(long long vrows, const unsigned short* __restrict__ vlen,
                           const index_t* __restrict__ vbegin, const index_t* __restrict__ vrow,
                           const index_t* __restrict__ csr_col, unsigned short* __restrict__ vlen16,
                           unsigned* __restrict__ counts) {
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < vrows;
       g += gridDim.x * (long long)blockDim.x) {
    const index_t* c = csr_col + vbegin[g];
    const bool near = vlen[g] > 0 && index16_near(vrow[g], c[0]);
    unsigned e = 0;
    unsigned prev = index16_first(vrow[g], near);
    for (unsigned j = 0; j < vlen[g]; ++j) {
      e += static_cast<unsigned>(c[j]) - prev >= index16_limit;
      prev = static_cast<unsigned>(c[j]);
    }
    vlen16[g] = index16_vlen(vlen[g], e, near);
    counts[g] = e;
  }
}

// The words at fill_slices' positions, and each escaped link's high bits at
// off[g] + (escapes before it in its virtual row): off is the exclusive scan
// of count_high's counts, so a slice's high halves follow each other lane by
// lane.
__global__ void fill_slices16(long long vrows, const unsigned* __restrict__ slice_start,
                              const unsigned short* __restrict__ vlen, const index_t* __restrict__ vbegin,
                              const index_t* __restrict__ vrow, const index_t* __restrict__ csr_col,
                              const unsigned* __restrict__ off, unsigned short* __restrict__ word,
                              unsigned short* __restrict__ high) {
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < vrows;
       g += gridDim.x * (long long)blockDim.x) {
    const unsigned p = slice_start[g / 32] + static_cast<unsigned>(g % 32);
    const index_t* c = csr_col + vbegin[g];
    unsigned o = off[g];
    unsigned prev = index16_first(vrow[g], vlen[g] > 0 && index16_near(vrow[g], c[0]));
    for (unsigned j = 0; j < vlen[g]; ++j) {
      const unsigned d = static_cast<unsigned>(c[j]) - prev;
      prev = static_cast<unsigned>(c[j]);
      if (d >= index16_limit) {
        word[p + 32 * j] = static_cast<unsigned short>(index16_limit | (d & (index16_limit - 1)));
        high[o++] = static_cast<unsigned short>(d >> 15);
      } else {
        word[p + 32 * j] = static_cast<unsigned short>(d);
      }
    }
  }
}

// start[q] = off[32 q], q <= slices.
__global__ void every_32nd(index_t slices, const unsigned* __restrict__ off, unsigned* __restrict__ start) {
  for (index_t q = blockIdx.x * blockDim.x + threadIdx.x; q <= slices; q += gridDim.x * blockDim.x)
    start[q] = off[32 * static_cast<std::size_t>(q)];
}

// dst[k] = src[perm[k]]
template <class T>
__global__ void gather_by(index_t n, const index_t* __restrict__ perm, const T* __restrict__ src,
                          T* __restrict__ dst) {
  for (index_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
    dst[k] = src[perm[k]];
}

// ---- the solve ----------------------------------------------------------------

// x_0 from r_0, and the dangling mass of the stored r~_0; the state from `start`.
template <class T>
__global__ void __launch_bounds__(setup_threads)
    init_x(fused_args<T> a, const index_t* __restrict__ perm, const T* __restrict__ r0, int uniform,
           pagerank_state* st, solve_start start) {
  double dangling = 0.0;
  const double r_uniform = 1.0 / static_cast<double>(a.n);
  for (index_t k = blockIdx.x * blockDim.x + threadIdx.x; k < a.n; k += gridDim.x * blockDim.x) {
    const double r = uniform ? r_uniform : static_cast<double>(r0[perm[k]]);
    const index_t d = a.deg[k];
    const T x = x_of_rank<T>(r, d);
    a.x0[k] = x;
    if (d == 0) dangling += static_cast<double>(x);
  }
  double2 totals;
  if (accumulate_grid<setup_threads>(make_double2(0.0, dangling), st, totals)) close_init(st, totals, start);
}

// whole: fused_loop::whole (the 16-bit words' loop has only that form).
template <class T, bool packed, bool whole>
__global__ void __launch_bounds__(step_threads, 1)
    fused_step(fused_args<T> a, pagerank_state* st, pagerank_progress* progress,
               cudaGraphConditionalHandle handle, int set_condition) {
  if (st->done) return;  // written by the previous launch's last block: uniform across this grid
  const int k = st->iteration;
  const T* __restrict__ x = (k & 1) ? a.x1 : a.x0;
  T* __restrict__ xn = (k & 1) ? a.x0 : a.x1;
  const double alpha = st->alpha;
  const double c = alpha * st->dangling + (1.0 - alpha);
  const bool personalized = st->personalized != 0;
  const double v_uniform = 1.0 / static_cast<double>(a.n);

  extern __shared__ __align__(16) unsigned char smem[];
  T* hub = reinterpret_cast<T*>(smem);
  __shared__ unsigned next_slice;                 // this block's next slice (counted in its own sequence)
  if (threadIdx.x == 0) next_slice = step_warps;  // warp w starts with the block's slice w
  load_hub<false>(hub, x, a.hub);
  __syncthreads();

  step_sums s;
  pull_slices<false, T, packed, whole>(a, x, xn, hub, next_slice, alpha, c, personalized, v_uniform, s);
  // The block's sums in thread 0, which closes the grid's sums.
  double2 totals;
  if (!block_sums(s) || !close_grid_sums(s.l1, s.dangling, st, totals)) return;
  close_step(st, totals, progress, handle, set_condition);  // last block, thread 0
}

// r~_K(j) = x_K(k) d_k for k = order[j] (x_K(k) itself for a dangling k),
// j < count, written in j's order (r may be mapped host memory: whole lines,
// never scattered words); and the state to the host (publish_state). order:
// the vertex order's way back (count n), or the compact form's sent values.
template <class T>
__global__ void ranks_out(fused_args<T> a, const index_t* __restrict__ order, index_t count,
                          const pagerank_state* st, T* __restrict__ r, solve_out o) {
  wait_for_prior_grid();  // launched early after the persistent kernel (launch_ranks)
  const T* __restrict__ x = (st->iteration & 1) ? a.x1 : a.x0;
  for (index_t j = blockIdx.x * blockDim.x + threadIdx.x; j < count; j += gridDim.x * blockDim.x) {
    const index_t k = order[j];
    const index_t d = a.deg[k];
    r[j] = static_cast<T>(d > 0 ? static_cast<double>(x[k]) * d : static_cast<double>(x[k]));
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) publish_state(st, o);
}

struct temp_bytes {
  cuda::device_buffer<unsigned char> buf;
  void* get(std::size_t bytes) {
    if (buf.size() < bytes) buf = cuda::device_buffer<unsigned char>(bytes);
    return buf.data();
  }
};

int bit_width(unsigned long long v) {
  int b = 0;
  while (v) {
    ++b;
    v >>= 1;
  }
  return std::max(b, 1);
}

}  // namespace

template <class T>
fused_args<T> fused_pull<T>::args() {
  fused_args<T> a;
  a.col = col_.data();
  a.word = packed_ ? word_.data() : nullptr;
  a.high = high_.data();
  a.high_start = high_start_.data();
  a.vlen16 = vlen16_.data();
  a.slice_start = slice_start_.data();
  a.vrow = vrow_.data();
  a.vlen = vlen_.data();
  a.deg = deg_.data();
  a.parts = parts_.data();
  a.first_slice = first_slice_.data();
  a.count = count_.data();
  a.tail = tail_.data();
  a.head = head_.data();
  a.x0 = x_[0].data();
  a.x1 = x_[1].data();
  a.v = v_.data();
  a.slices = slices_;
  a.n = n_;
  a.hub = hub_;
  return a;
}

// Relabels the vertices by decreasing in-degree on the GPU: perm_, deg_, and
// the relabelled CSR of the pattern (row_ptr, csr_col).
template <class T>
void fused_pull<T>::relabel(const csr_matrix<T>& pt, cuda::device_buffer<index_t>& row_ptr,
                            cuda::device_buffer<index_t>& csr_col) {
  const auto n = static_cast<std::size_t>(n_);
  // Upload the pattern only; values are 1/d_j by construction.
  cuda::device_buffer<index_t> old_ptr(pt.row_ptr), old_col(pt.col_idx);
  perm_ = cuda::device_buffer<index_t>(n);
  deg_ = cuda::device_buffer<index_t>(n);
  order_ = cuda::device_buffer<index_t>(n);  // order_[perm[k]] = k: the ranks' way back (ranks_out)
  cuda::device_buffer<index_t> deg_old(n), ids(n), len_old(n), len(n + 1);
  PERRON_CUDA_CHECK(cudaMemsetAsync(deg_old.data(), 0, deg_old.bytes(), stream_));
  count_degrees<<<setup_grid(static_cast<long long>(nnz_)), setup_threads, 0, stream_>>>(nnz_, old_col.data(),
                                                                                         deg_old.data());
  PERRON_CUDA_CHECK_LAUNCH("count_degrees");
  ids_and_lengths<<<setup_grid(n_), setup_threads, 0, stream_>>>(n_, old_ptr.data(), ids.data(),
                                                                 len_old.data());
  PERRON_CUDA_CHECK_LAUNCH("ids_and_lengths");
  rank_code_ = cuda::device_buffer<std::uint16_t>(n);
  rank_rep_ = cuda::device_buffer<unsigned>(static_cast<std::size_t>(compact_ranks::max_degree) + 1);
  PERRON_CUDA_CHECK(cudaMemsetAsync(rank_rep_.data(), 0xff, rank_rep_.bytes(), stream_));
  rank_codes<<<setup_grid(n_), setup_threads, 0, stream_>>>(n_, len_old.data(), deg_old.data(),
                                                            rank_code_.data(), rank_rep_.data());
  PERRON_CUDA_CHECK_LAUNCH("rank_codes");
  // Stable sort by decreasing in-degree (row length of P^T): perm[k] = old id
  // of new vertex k.
  temp_bytes temp;
  std::size_t bytes = 0;
  const int end_bit = bit_width(static_cast<unsigned long long>(n_));  // an in-degree is at most n
  if (window_ > 0) {
    // Within windows of window_ consecutive ids (a power of two): the graph's
    // own order between windows, decreasing in-degree inside each.
    const int shift = bit_width(static_cast<unsigned long long>(window_)) - 1;
    cuda::device_buffer<unsigned long long> key(n), key_sorted(n);
    window_keys<<<setup_grid(n_), setup_threads, 0, stream_>>>(n_, shift, len_old.data(), key.data());
    PERRON_CUDA_CHECK_LAUNCH("window_keys");
    const int key_bits = 32 + bit_width(static_cast<unsigned long long>((n_ - 1) >> shift));
    PERRON_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        nullptr, bytes, key.data(), key_sorted.data(), ids.data(), perm_.data(), n_, 0, key_bits, stream_));
    PERRON_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp.get(bytes), bytes, key.data(),
                                                                key_sorted.data(), ids.data(), perm_.data(),
                                                                n_, 0, key_bits, stream_));
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before the keys are freed
  } else {
    // Two parts (fused_order_places, solvers/pagerank.hpp, says which and
    // why): the entries of x that rows gather sit together in the front part,
    // so where sources are few or scattered among dangling ids a sector holds
    // only gathered values and the hub in shared memory only those. Rows stay
    // sorted by length in each part: the slices stay nearly rectangular.
    cuda::device_buffer<unsigned> key(n), key_sorted(n);
    front_keys<<<setup_grid(n_), setup_threads, 0, stream_>>>(n_, end_bit, deg_old.data(), len_old.data(),
                                                              key.data());
    PERRON_CUDA_CHECK_LAUNCH("front_keys");
    PERRON_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, key.data(), key_sorted.data(),
                                                                ids.data(), perm_.data(), n_, 0, end_bit + 1,
                                                                stream_));
    PERRON_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp.get(bytes), bytes, key.data(),
                                                                key_sorted.data(), ids.data(), perm_.data(),
                                                                n_, 0, end_bit + 1, stream_));
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before the keys are freed
  }
  gather_by<index_t>
      <<<setup_grid(n_), setup_threads, 0, stream_>>>(n_, perm_.data(), deg_old.data(), deg_.data());
  PERRON_CUDA_CHECK_LAUNCH("gather_by");
  relabel_rows<<<setup_grid(n_ + 1LL), setup_threads, 0, stream_>>>(n_, perm_.data(), old_ptr.data(),
                                                                    order_.data(), len.data());
  PERRON_CUDA_CHECK_LAUNCH("relabel_rows");
  row_ptr = cuda::device_buffer<index_t>(n + 1);
  csr_col = cuda::device_buffer<index_t>(std::max<std::size_t>(nnz_, 1));
  temp_bytes scan_temp;  // its own: freeing the sort's while the sort may still run would not be safe
  PERRON_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, bytes, len.data(), row_ptr.data(), n_ + 1, stream_));
  PERRON_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp.get(bytes), bytes, len.data(), row_ptr.data(),
                                                  n_ + 1, stream_));
  relabel_links<<<setup_grid(32LL * n_), setup_threads, 0, stream_>>>(
      n_, perm_.data(), old_ptr.data(), old_col.data(), order_.data(), row_ptr.data(), csr_col.data());
  PERRON_CUDA_CHECK_LAUNCH("relabel_links");
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before this function's buffers are freed
}

// Virtual rows and slices of the relabelled CSR, and the slice storage col_.
template <class T>
void fused_pull<T>::build_slices(const cuda::device_buffer<index_t>& row_ptr,
                                 const cuda::device_buffer<index_t>& csr_col) {
  // Virtual rows, on the host (in parallel; solvers/pagerank_slices.hpp
  // says how), then the slices, stored 32 x their widest virtual row.
  uninitialized_vector<index_t> rp(row_ptr.size());
  row_ptr.download(rp.data());
  const auto warps = static_cast<std::size_t>(grid_) * step_warps;  // a grid of one block per SM
  virtual_rows lay = lay_virtual_rows(rp.data(), rp.size(), vrow_links_, warps, long_rows_start_slices_);
  auto& vrow = lay.vrow;
  auto& vlen = lay.vlen;
  const auto &vbegin = lay.vbegin, &parts = lay.parts, &first_slice = lay.first_slice;
  const std::size_t vrows = vrow.size();
  slices_ = static_cast<index_t>((vrows + 31) / 32);
  vrow.resize(32 * static_cast<std::size_t>(slices_) + 1, n_);  // n: past the last row
  vlen.resize(vrow.size(), 0);
  std::vector<unsigned> start(static_cast<std::size_t>(slices_) + 1, 0);
  for (index_t q = 0; q < slices_; ++q) {
    unsigned w = 0;
    for (int l = 0; l < 32; ++l) w = std::max<unsigned>(w, vlen[32 * static_cast<std::size_t>(q) + l]);
    const unsigned long long next = static_cast<unsigned long long>(start[q]) + 32ull * w;
    if (next > UINT_MAX) throw dimension_error("fused pull: the stored links must stay below 2^32");
    start[q + 1] = static_cast<unsigned>(next);
  }
  col_ = cuda::device_buffer<index_t>(std::max<std::size_t>(start[slices_], 1));
  PERRON_CUDA_CHECK(cudaMemsetAsync(col_.data(), 0, col_.bytes(), stream_));  // padding: never read
  slice_start_ = cuda::device_buffer<unsigned>(start);
  vrow_ = cuda::device_buffer<index_t>(vrow);
  vlen_ = cuda::device_buffer<unsigned short>(vlen);
  {
    const cuda::device_buffer<index_t> d_vbegin(vbegin);
    fill_slices<<<setup_grid(static_cast<long long>(vrows)), setup_threads, 0, stream_>>>(
        static_cast<long long>(vrows), slice_start_.data(), vlen_.data(), d_vbegin.data(), csr_col.data(),
        col_.data());
    PERRON_CUDA_CHECK_LAUNCH("fill_slices");
    if (index16_) build_index16(csr_col, d_vbegin);
    PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  parts_ = cuda::device_buffer<index_t>(parts);
  first_slice_ = cuda::device_buffer<index_t>(first_slice);
}

// Sorts each row's columns (for the 16-bit index's small differences; the
// 32-bit layout is filled from the same order, so both sum a row alike).
template <class T>
void fused_pull<T>::sort_rows(const cuda::device_buffer<index_t>& row_ptr,
                              cuda::device_buffer<index_t>& csr_col) {
  cuda::device_buffer<index_t> alt(csr_col.size());
  cub::DoubleBuffer<index_t> keys(csr_col.data(), alt.data());
  temp_bytes temp;
  std::size_t bytes = 0;
  PERRON_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, keys, static_cast<long long>(nnz_), n_,
                                                       row_ptr.data(), row_ptr.data() + 1, stream_));
  PERRON_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(temp.get(bytes), bytes, keys,
                                                       static_cast<long long>(nnz_), n_, row_ptr.data(),
                                                       row_ptr.data() + 1, stream_));
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before the buffers are swapped or freed
  if (keys.Current() != csr_col.data()) std::swap(csr_col, alt);
}

// The 16-bit index (fused_args::word) of the sorted rows, beside col_.
template <class T>
void fused_pull<T>::build_index16(const cuda::device_buffer<index_t>& csr_col,
                                  const cuda::device_buffer<index_t>& d_vbegin) {
  const auto vrows = static_cast<long long>(d_vbegin.size());
  const std::size_t padded = 32 * static_cast<std::size_t>(slices_);
  vlen16_ = cuda::device_buffer<unsigned short>(padded + 1);  // as vlen_: 0 past the last
  cuda::device_buffer<unsigned> counts(padded + 1), off(padded + 1);
  PERRON_CUDA_CHECK(cudaMemsetAsync(vlen16_.data(), 0, vlen16_.bytes(), stream_));
  PERRON_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.bytes(), stream_));
  count_high<<<setup_grid(vrows), setup_threads, 0, stream_>>>(
      vrows, vlen_.data(), d_vbegin.data(), vrow_.data(), csr_col.data(), vlen16_.data(), counts.data());
  PERRON_CUDA_CHECK_LAUNCH("count_high");
  temp_bytes temp;
  std::size_t bytes = 0;
  PERRON_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts.data(), off.data(), padded + 1, stream_));
  PERRON_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(temp.get(bytes), bytes, counts.data(), off.data(), padded + 1, stream_));
  unsigned escaped = 0;
  PERRON_CUDA_CHECK(
      cudaMemcpyAsync(&escaped, off.data() + padded, sizeof escaped, cudaMemcpyDeviceToHost, stream_));
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));
  high_ = cuda::device_buffer<unsigned short>(std::max<std::size_t>(escaped, 1));
  high_start_ = cuda::device_buffer<unsigned>(static_cast<std::size_t>(slices_) + 1);
  word_ = cuda::device_buffer<unsigned short>(col_.size());
  PERRON_CUDA_CHECK(cudaMemsetAsync(word_.data(), 0, word_.bytes(), stream_));  // padding: never read
  every_32nd<<<setup_grid(slices_ + 1LL), setup_threads, 0, stream_>>>(slices_, off.data(),
                                                                       high_start_.data());
  PERRON_CUDA_CHECK_LAUNCH("every_32nd");
  fill_slices16<<<setup_grid(vrows), setup_threads, 0, stream_>>>(
      vrows, slice_start_.data(), vlen_.data(), d_vbegin.data(), vrow_.data(), csr_col.data(), off.data(),
      word_.data(), high_.data());
  PERRON_CUDA_CHECK_LAUNCH("fill_slices16");
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <class T>
fused_pull<T>::fused_pull(const csr_matrix<T>& pt, cudaStream_t stream, int vrow_links, bool index16,
                          index_t order_window, int hub, bool long_rows_start_slices,
                          std::optional<fused_loop> loop)
    : stream_(stream),
      vrow_links_(vrow_links),
      window_(order_window),
      remembered_loop_(loop),
      index16_(index16),
      long_rows_start_slices_(long_rows_start_slices) {
  if (order_window < 0 || (order_window & (order_window - 1)) != 0)
    throw invalid_argument("fused pull: the order's window must be 0 or a power of two");
  forced_window(window_);
  if (vrow_links < 1 || vrow_links > 65535)
    throw invalid_argument("fused pull: links per virtual row out of range");
  // A virtual row's links and escapes are counted in 7 bits each (index16_vlen).
  if (vrow_links > static_cast<int>(index16_max_links)) index16_ = false;
  index_ = index16_ ? fused_index_choice() : fused_index::bits32;
  index16_ = index_ != fused_index::bits32;  // rows sorted and the 16-bit index built
  n_ = pt.rows;
  nnz_ = pt.nnz();
  if (n_ <= 0 || pt.cols != n_) throw dimension_error("fused pull: P^T must be square and non-empty");
  if (nnz_ > max_index) throw dimension_error("fused pull: more links than index_t counts");
  if (window_ >= n_) window_ = 0;  // one window: the global order
  // Runs of consecutive slices a block (launch_step) where the windowed
  // order's rows are even: on skewed graphs a run holds a site's long rows
  // (cnr-2000 and web:1048576:16777216 in windows of 32 ids 1.8-3.3x slower
  // than slices across the grid; session 79).
  contiguous_ =
      window_ > 0 && double(longest_row(pt)) <= persistent_even_max_to_mean * double(nnz_) / double(n_);
  const auto n = static_cast<std::size_t>(n_);
  int device = 0, optin = 0, sms = 1;
  PERRON_CUDA_CHECK(cudaGetDevice(&device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  grid_ = sms;  // one block of 1024 threads per SM (__launch_bounds__(1024, 1))
  {
    cuda::device_buffer<index_t> row_ptr, csr_col;
    relabel(pt, row_ptr, csr_col);
    if (index16_) sort_rows(row_ptr, csr_col);
    build_slices(row_ptr, csr_col);
  }
  count_ = cuda::device_buffer<unsigned>(n);
  PERRON_CUDA_CHECK(cudaMemsetAsync(count_.data(), 0, count_.bytes(), stream_));
  tail_ = cuda::device_buffer<double>(static_cast<std::size_t>(slices_));
  head_ = cuda::device_buffer<double>(static_cast<std::size_t>(slices_));
  x_[0] = cuda::device_buffer<T>(n);
  x_[1] = cuda::device_buffer<T>(n);
  v_ = cuda::device_buffer<T>(n);

  // The hub: as much of x as shared memory holds.
  const auto steps = {fused_step<T, false, true>, fused_step<T, false, false>, fused_step<T, true, true>};
  std::size_t static_smem = 0;
  for (const auto k : steps) {
    cudaFuncAttributes fa{};
    PERRON_CUDA_CHECK(cudaFuncGetAttributes(&fa, k));
    static_smem = std::max(static_smem, fa.sharedSizeBytes);
  }
  const long long room = (static_cast<long long>(optin) - static_cast<long long>(static_smem)) /
                         static_cast<long long>(sizeof(T));
  max_hub_ = static_cast<int>(std::max<long long>(0, std::min<long long>(room, n_)) / 32 *
                              32);  // whole 16-byte vectors
  // The kernels' limit is a process-wide attribute: set to all the device
  // allows them, never to this graph's hub, so that a solver built later
  // (on a smaller graph) does not lower it under this one's launches. (It
  // did: a second fused solver's smaller limit left the first one's
  // captured steps above it, and the driver crashed now and then when it
  // destroyed their graph, in double; docs/PERFORMANCE.md.)
  const int kernel_room = static_cast<int>(std::max<long long>(0, room) * static_cast<long long>(sizeof(T)));
  for (const auto k : steps)
    PERRON_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kernel_room));
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));
  choose_layout(hub);
}
bool forced_hub(int max_hub, int& hub, std::string& trial) {
  const char* env = std::getenv("PERRON_FUSED_HUB");
  if (env == nullptr || *env == '\0') return false;
  hub = static_cast<int>(std::clamp<long>(std::strtol(env, nullptr, 10), 0, max_hub) / 32 * 32);
  trial = "fixed by PERRON_FUSED_HUB";
  return true;
}

std::string_view name(fused_loop l) { return l == fused_loop::whole ? "whole" : "tested"; }

std::optional<fused_loop> parse_fused_loop(std::string_view word) {
  if (word == "whole") return fused_loop::whole;
  if (word == "tested") return fused_loop::tested;
  return std::nullopt;
}

std::optional<fused_loop> forced_loop() {
  const char* env = std::getenv("PERRON_FUSED_LOOP");
  if (env == nullptr || *env == '\0') return std::nullopt;
  const std::optional<fused_loop> l = parse_fused_loop(env);
  if (!l) throw invalid_argument("PERRON_FUSED_LOOP must be whole or tested, got '" + std::string(env) + "'");
  return l;
}

bool forced_window(index_t& window) {
  const char* env = std::getenv("PERRON_FUSED_WINDOW");
  if (env == nullptr || *env == '\0') return false;
  char* end = nullptr;
  const long w = std::strtol(env, &end, 10);
  if (*end != '\0' || w < 0 || w > (1L << 30) || (w & (w - 1)) != 0)
    throw invalid_argument("PERRON_FUSED_WINDOW must be 0 or a power of two up to 2^30");
  window = static_cast<index_t>(w);
  return true;
}

pagerank_state trial_state(int max_iter) {
  pagerank_state h{};
  h.alpha = 0.85;
  h.tol = 0.0;
  h.max_iter = max_iter;
  h.residual = 0.0;
  return h;
}

// The hub size by timing steps (the median of 5 after 2 untimed, from a
// scratch state that never stops) with the 32-bit index; then, where the
// 16-bit index was built, the width: the one named, or for `trial` the
// faster at the chosen hub. The width not kept is freed. A remembered hub
// (hub >= 0, a multiple of 32 that fits) skips the hub trial. Between the
// two, where no loop was remembered or pinned, the step's two loops
// (fused_loop) at the chosen hub, the faster kept: 7 steps more.
template <class T>
void fused_pull<T>::choose_layout(int remembered) {
  const scoped_seconds clock(trial_seconds_);
  pagerank_state h = trial_state(INT_MAX);
  trace_ = cuda::device_buffer<pagerank_progress>(trace_records);
  PERRON_CUDA_CHECK(cudaMemsetAsync(trace_.data(), 0, trace_.bytes(), stream_));
  h.report_progress = trace_records;  // each step's residual at trace_[k] (plain_trace)
  cuda::device_buffer<pagerank_state> st(1);
  PERRON_CUDA_CHECK(cudaMemcpyAsync(st.data(), &h, sizeof h, cudaMemcpyHostToDevice, stream_));
  launch_init(nullptr, 1, st.data(), solve_start{h});
  cuda::event e0, e1;
  const auto median_step = [&] {
    std::vector<float> ms;
    traced_ = true;
    for (int i = 0; i < 7; ++i) {
      e0.record(stream_);
      launch_step(st.data(), trace_.data(), 0, 0);
      e1.record(stream_);
      e1.synchronize();
      if (i >= 2) ms.push_back(e1.ms_since(e0));
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  packed_ = false;
  // The loop pinned or remembered, or the whole one for the hub trial.
  const std::optional<fused_loop> pinned = forced_loop();
  const bool loop_known = pinned || remembered_loop_;
  loop_ = pinned ? *pinned : remembered_loop_.value_or(fused_loop::whole);
  float best = 0;
  char buf[160];
  const bool forced = forced_hub(max_hub_, hub_, trial_);
  const bool timed = !forced && !(remembered >= 0 && remembered <= max_hub_ && remembered % 32 == 0);
  if (!forced && !timed) {
    hub_ = remembered;
    trial_ = std::to_string(hub_) + ": an earlier trial's pick";
  } else if (timed) {
    std::vector<int> candidates{0, max_hub_ / 4 / 32 * 32, max_hub_ / 2 / 32 * 32, max_hub_};
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    int best_hub = max_hub_;
    for (int c : candidates) {
      hub_ = c;
      const float t = median_step();
      std::snprintf(buf, sizeof buf, "%s%d: %.1f us", trial_.empty() ? "" : ", ", c, 1e3 * t);
      trial_ += buf;
      if (c == candidates.front() || t < best) {
        best = t;
        best_hub = c;
      }
    }
    hub_ = best_hub;
  }
  if (!loop_known) {
    // Both loops at that hub (the hub trial timed the whole one there).
    const float t_whole = timed ? best : median_step();
    loop_ = fused_loop::tested;
    const float t_tested = median_step();
    loop_ = t_tested < t_whole ? fused_loop::tested : fused_loop::whole;
    best = std::min(t_whole, t_tested);
    std::snprintf(buf, sizeof buf, "; loop whole %.1f us, tested %.1f us", 1e3 * t_whole, 1e3 * t_tested);
    trial_ += buf;
  } else if (!timed && index_ == fused_index::trial) {
    best = median_step();  // the 32-bit time at this hub
  }
  const double b32 = static_cast<double>(col_.bytes()) / static_cast<double>(std::max<std::size_t>(nnz_, 1));
  step_us_ = 1e3 * static_cast<double>(best);  // 0 where nothing was timed
  if (!index16_) {
    index_bytes_ = b32;
    return;
  }
  // The index's bytes a step reads: vlen16 is read in vlen_'s place (its
  // spare byte holds the escape counts), so it is no part of them.
  const double b16 = static_cast<double>(word_.bytes() + high_.bytes() + high_start_.bytes()) /
                     static_cast<double>(std::max<std::size_t>(nnz_, 1));
  if (index_ == fused_index::bits16) {
    packed_ = true;
    std::snprintf(buf, sizeof buf, "; 16-bit index (%.2f bytes per link) named by PERRON_FUSED_INDEX", b16);
  } else {
    packed_ = true;
    const float t16 = median_step();
    packed_ = t16 < best;
    if (packed_) step_us_ = 1e3 * static_cast<double>(t16);
    std::snprintf(buf, sizeof buf, "; index 16-bit (%.2f bytes per link): %.1f us, 32-bit (%.2f): %.1f us",
                  b16, 1e3 * t16, b32, 1e3 * best);
  }
  trial_ += buf;
  index_bytes_ = packed_ ? b16 : b32;
  if (packed_) {
    col_ = cuda::device_buffer<index_t>();
  } else {
    word_ = cuda::device_buffer<unsigned short>();
    high_ = cuda::device_buffer<unsigned short>();
    high_start_ = cuda::device_buffer<unsigned>();
    vlen16_ = cuda::device_buffer<unsigned short>();
  }
}

plain_trace read_trace(const cuda::device_buffer<pagerank_progress>& records, cudaStream_t stream) {
  std::vector<pagerank_progress> t(records.size());
  PERRON_CUDA_CHECK(
      cudaMemcpyAsync(t.data(), records.data(), records.bytes(), cudaMemcpyDeviceToHost, stream));
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream));
  plain_trace out;
  out.alpha = trial_state(1).alpha;
  for (int k = 1; k < static_cast<int>(t.size()) && t[k].iteration == k; ++k)
    out.residuals.push_back(t[k].residual);
  return out;
}

template <class T>
const plain_trace& fused_pull<T>::trial_trace() {
  if (traced_) {
    trace_host_ = read_trace(trace_, stream_);
    traced_ = false;
    trace_ = cuda::device_buffer<pagerank_progress>();
  }
  return trace_host_;
}

template <class T>
void fused_pull<T>::launch_init(const T* d_r0, int uniform, pagerank_state* st, const solve_start& start) {
  const fused_args<T> a = args();
  init_x<T><<<init_grid(), setup_threads, 0, stream_>>>(a, perm_.data(), d_r0, uniform, st, start);
  PERRON_CUDA_CHECK_LAUNCH("pagerank init_x");
}

template <class T>
void fused_pull<T>::launch_personalization(const T* d_v) {
  gather_by<T><<<setup_grid(n_), setup_threads, 0, stream_>>>(n_, perm_.data(), d_v, v_.data());
  PERRON_CUDA_CHECK_LAUNCH("pagerank gather_by");
}

template <class T>
void fused_pull<T>::launch_step(pagerank_state* st, pagerank_progress* progress,
                                cudaGraphConditionalHandle handle, int set_condition) {
  fused_args<T> a = args();
  // In a windowed order of even rows each block takes a run of consecutive
  // slices (their rows' neighbours in its L1: rgg-300000-20 17.4 -> 15.6 us,
  // sbm:3000000:45000000:300 257 -> 140 in float, session 79); otherwise
  // slices across the grid (each block the same mix of lengths).
  a.contiguous = contiguous_;
  const std::size_t hub_bytes = static_cast<std::size_t>(hub_) * sizeof(T);
  if (packed_)
    fused_step<T, true, true>
        <<<grid_, step_threads, hub_bytes, stream_>>>(a, st, progress, handle, set_condition);
  else if (loop_ == fused_loop::whole)
    fused_step<T, false, true>
        <<<grid_, step_threads, hub_bytes, stream_>>>(a, st, progress, handle, set_condition);
  else
    fused_step<T, false, false>
        <<<grid_, step_threads, hub_bytes, stream_>>>(a, st, progress, handle, set_condition);
  PERRON_CUDA_CHECK_LAUNCH("pagerank fused_step");
}

template <class T>
std::optional<compact_ranks> fused_pull<T>::plan_compact_ranks() {
  if (rank_code_.size() != static_cast<std::size_t>(n_)) return std::nullopt;  // planned before
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the codes written (downloads are not on stream_)
  std::optional<compact_ranks> plan(compact_ranks(rank_code_.download()));
  const std::vector<unsigned> rep = rank_rep_.download();
  const cuda::device_buffer<std::uint16_t> code = std::move(rank_code_);  // freed on return
  rank_rep_ = cuda::device_buffer<unsigned>();
  if (!compact_ranks_pay(n_, plan->sent())) return std::nullopt;
  std::vector<index_t> table;  // one vertex (the graph's id) of each table degree
  for (const index_t d : plan->table_degrees()) table.push_back(static_cast<index_t>(rep[d]));
  std::vector<index_t> base(plan->blocks());
  for (std::size_t b = 0; b < base.size(); ++b) base[b] = plan->sent_before(b);
  sent_order_ = cuda::device_buffer<index_t>(plan->sent());
  const cuda::device_buffer<index_t> d_table(table), d_base(base);
  const auto t = static_cast<index_t>(table.size());
  if (t > 0) {
    gather_by<index_t>
        <<<setup_grid(t), setup_threads, 0, stream_>>>(t, d_table.data(), order_.data(), sent_order_.data());
    PERRON_CUDA_CHECK_LAUNCH("gather_by");
  }
  order_sent<<<static_cast<unsigned>(plan->blocks()), sent_threads, 0, stream_>>>(
      n_, code.data(), order_.data(), d_base.data(), t, sent_order_.data());
  PERRON_CUDA_CHECK_LAUNCH("order_sent");
  PERRON_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before this function's buffers are freed
  return plan;
}

template <class T>
void fused_pull<T>::launch_ranks(T* r, const pagerank_state* st, const solve_out& o, bool after_persistent,
                                 bool compact) {
  const fused_args<T> a = args();
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(setup_grid(n_));
  cfg.blockDim = dim3(setup_threads);
  cfg.stream = stream_;
  cfg.attrs = &early;
  cfg.numAttrs = after_persistent ? 1 : 0;
  if (compact && sent_order_.size() == 0)
    throw invalid_argument("fused_pull: compact ranks asked for, none planned (plan_compact_ranks)");
  const index_t count = compact ? static_cast<index_t>(sent_order_.size()) : n_;
  cfg.gridDim = dim3(setup_grid(count));
  PERRON_CUDA_CHECK(cudaLaunchKernelEx(
      &cfg, ranks_out<T>, a, static_cast<const index_t*>(compact ? sent_order_.data() : order_.data()), count,
      st, r, o));
  PERRON_CUDA_CHECK_LAUNCH("pagerank ranks_out");
}

template <class T>
unsigned fused_pull<T>::init_grid() const {
  return cuda::grid_for(static_cast<std::size_t>(n_), setup_threads, max_init_blocks);
}

template <class T>
std::size_t fused_pull<T>::device_bytes() const {
  return col_.bytes() + word_.bytes() + high_.bytes() + high_start_.bytes() + vlen16_.bytes() +
         slice_start_.bytes() + vrow_.bytes() + vlen_.bytes() + deg_.bytes() + perm_.bytes() +
         order_.bytes() + parts_.bytes() + first_slice_.bytes() + count_.bytes() + x_[0].bytes() +
         x_[1].bytes() + v_.bytes() + tail_.bytes() + head_.bytes() + rank_code_.bytes() + rank_rep_.bytes() +
         sent_order_.bytes();
}

template class fused_pull<float>;
template class fused_pull<double>;

}  // namespace perron::pagerank_gpu
