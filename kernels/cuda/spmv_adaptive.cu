// csr-adaptive (Greathouse & Daga, SC14): rows are grouped once, on the host,
// into row blocks, and each thread block takes one:
//  * stream block: consecutive rows holding at most stream_nnz<T> nonzeros
//    in all (and at most stream_rows rows). The block loads its row offsets
//    and the products a_k * x[col_k] of its nonzeros into shared memory (all
//    loads coalesced and independent: the block's nonzero range is in its
//    descriptor, so nothing waits for row_ptr), then reduces row by row: with
//    R rows, groups of clamp(pow2floor(256 / R), 1, 32) lanes per row and a
//    shuffle reduction in each group; a row of more than wide_row_nnz
//    products among them is left to a whole warp afterwards.
//  * long-row part: a row with more than stream_nnz<T> nonzeros is split into
//    parts of long_part_nnz; each part is reduced by the whole block (warp
//    shuffles, then the block's 8 warp sums). A row of one part writes y
//    directly; otherwise each part stores its sum to a partial slot, and the
//    last part to finish (atomic ticket after __threadfence) adds the parts in
//    order and writes y, then resets the ticket for the next call. Fixed
//    order: the result is the same bits on every call.
// This avoids the seed listing's defects (y written inside the accumulation
// loop, partitioner edge cases, long rows without a block-wide reduction).
//
// Bytes: matrix streams fully coalesced whatever the row lengths, x gathered
// once per nonzero, row_ptr read once; two dependent memory round trips per
// block (streams, then x); balanced to within one row block.
#include <algorithm>

#include "core/cuda/check.cuh"
#include "core/error.hpp"
#include "kernels/adaptive_blocks.hpp"
#include "kernels/cuda/spmv_common.cuh"
#include "kernels/cuda/spmv_engine.cuh"

namespace perron::cuda::spmv {
namespace {

// The row blocks, their limits and the lanes a row gets: kernels/adaptive_blocks.hpp
// (planned on the host).
using adaptive::lanes_per_row;
using adaptive::long_part_nnz;
using adaptive::row_block;
using adaptive::stream_nnz;
using adaptive::stream_rows;
using adaptive::wide_row_nnz;
constexpr unsigned adaptive_block = adaptive::block_threads;
constexpr int long_unroll = 4;  // loads in flight per thread, long rows

template <class T>
__device__ T block_sum(T v, T* warp_sums) {
  v = group_sum<32>(v);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  T total = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < static_cast<int>(adaptive_block / 32); ++w) total += warp_sums[w];
  return total;  // valid in thread 0
}

template <class T, class Values>
__global__ void __launch_bounds__(adaptive_block)
    csr_adaptive_kernel(const row_block* __restrict__ blocks, const index_t* __restrict__ row_ptr,
                        const index_t* __restrict__ col_idx, Values values, const T* __restrict__ x, T alpha,
                        T beta, T* __restrict__ y, T* __restrict__ partials, unsigned* __restrict__ tickets) {
  constexpr int per_thread = stream_nnz<T> / adaptive_block;
  __shared__ T products[stream_nnz<T>];
  __shared__ index_t offsets[stream_rows + 1];  // row starts relative to nnz_begin
  __shared__ T warp_sums[adaptive_block / 32];
  __shared__ bool last_part;
  __shared__ int wide_count;                               // stream block: rows a whole warp sums
  __shared__ int wide_rows[stream_nnz<T> / wide_row_nnz];  // (more than wide_row_nnz products each)
  const row_block b = blocks[blockIdx.x];

  if (b.part < 0) {
    // ---- stream block --------------------------------------------------------
    const int nrows = b.row_end - b.row_begin;
    const int count = b.nnz_end - b.nnz_begin;  // <= stream_nnz<T>
    // Every load of the block is issued before the first one is used.
    constexpr int offset_loads =
        (stream_rows + adaptive_block) / adaptive_block;  // ceil((stream_rows + 1) / 256)
    index_t o[offset_loads];
#pragma unroll
    for (int j = 0; j < offset_loads; ++j) {
      const int i = threadIdx.x + j * adaptive_block;
      o[j] = i <= nrows ? load_stream(row_ptr + b.row_begin + i) : 0;
    }
    // The streams are read from nnz_begin rounded down to 32 entries, so that
    // a warp's 32 indices lie in one 128-byte line: from nnz_begin itself they
    // straddle two, 5 L2 sectors where 4 hold them. An SpMV with random
    // columns is bound by L2 sectors (x's gathers): on 16 M nonzeros the 0.5 M
    // fifth sectors of 19 M cost about 2.5% (ncu, session 66). The planner
    // keeps shift + count <= stream_nnz<T>.
    const index_t base = b.nnz_begin & ~index_t(31);
    const int shift = b.nnz_begin - base;
    index_t c[per_thread];
    T v[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const int i = threadIdx.x + j * adaptive_block;
      const bool mine = i >= shift && i < shift + count;
      c[j] = mine ? load_once(col_idx + base + i) : 0;
      v[j] = mine ? values.once(base + i) : T(0);
    }
#pragma unroll
    for (int j = 0; j < offset_loads; ++j) {
      const int i = threadIdx.x + j * adaptive_block;
      if (i <= nrows) offsets[i] = o[j] - b.nnz_begin;
    }
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const int i = threadIdx.x + j * adaptive_block;
      if (i >= shift && i < shift + count) products[i - shift] = v[j] * load_x(x + c[j]);
    }
    // The planner flags the blocks that hold a row for a warp: the others
    // skip the list and its barrier (a cost on local orders' short rows).
    const bool wide = b.parts != 0;
    if (wide && threadIdx.x == 0) wide_count = 0;
    __syncthreads();
    const int lanes = lanes_per_row(nrows);
    const int groups = adaptive_block / lanes;
    const int group = threadIdx.x / lanes, lane = threadIdx.x % lanes;
    // Uniform trip count for the whole block, so every lane reaches the shuffles.
    for (int base = 0; base < nrows; base += groups) {
      const int local = base + group;
      T sum = 0;
      bool mine = local < nrows;
      if (mine) {
        const int lo = offsets[local], hi = offsets[local + 1];
        if (wide && lanes < 32 && hi - lo > wide_row_nnz) {
          // A long row among short ones: its few lanes would walk it while the
          // rest of the block waits; a whole warp takes it below.
          mine = false;
          if (lane == 0) wide_rows[atomicAdd(&wide_count, 1)] = local;
        } else {
          for (int i = lo + lane; i < hi; i += lanes) sum += products[i];
        }
      }
      sum = group_sum(sum, lanes);
      if (lane == 0 && mine) store_y(y, static_cast<std::size_t>(b.row_begin) + local, alpha, sum, beta);
    }
    if (!wide) return;
    __syncthreads();
    // Each long row's sum by one warp in a fixed order (lane strides, then
    // the shuffle tree), whichever warp takes it: the same bits every call.
    const int warp = threadIdx.x / 32, warp_lane = threadIdx.x % 32;
    for (int w = warp; w < wide_count; w += adaptive_block / 32) {
      const int local = wide_rows[w];
      T sum = 0;
      for (int i = offsets[local] + warp_lane; i < offsets[local + 1]; i += 32) sum += products[i];
      sum = group_sum<32>(sum);
      if (warp_lane == 0) store_y(y, static_cast<std::size_t>(b.row_begin) + local, alpha, sum, beta);
    }
    return;
  }

  // ---- one part of a long row ------------------------------------------------
  T sum = 0;
  // From nnz_begin rounded down to 32 entries, as the stream block.
  for (long long base = b.nnz_begin & ~31LL; base < b.nnz_end; base += long_unroll * adaptive_block) {
    index_t c[long_unroll];
    T v[long_unroll];
#pragma unroll
    for (int u = 0; u < long_unroll; ++u) {
      const long long k = base + threadIdx.x + u * adaptive_block;
      const bool mine = k >= b.nnz_begin && k < b.nnz_end;
      c[u] = mine ? load_once(col_idx + k) : -1;
      v[u] = mine ? values.once(k) : T(0);
    }
#pragma unroll
    for (int u = 0; u < long_unroll; ++u)
      if (c[u] >= 0) sum += v[u] * load_x(x + c[u]);
  }
  const T total = block_sum(sum, warp_sums);
  if (b.parts == 1) {
    if (threadIdx.x == 0) store_y(y, b.row_begin, alpha, total, beta);
    return;
  }
  if (threadIdx.x == 0) {
    partials[b.slot + b.part] = total;
    __threadfence();  // the partial is visible device-wide before the ticket is taken
    last_part = atomicAdd(tickets + b.ticket, 1u) == static_cast<unsigned>(b.parts - 1);
  }
  __syncthreads();
  if (last_part && threadIdx.x == 0) {
    __threadfence();
    T row_sum = 0;
    for (index_t p = 0; p < b.parts; ++p) row_sum += __ldcg(partials + b.slot + p);  // L2, not a stale L1
    store_y(y, b.row_begin, alpha, row_sum, beta);
    tickets[b.ticket] = 0;  // ready for the next call (stream-ordered)
  }
}

template <class T>
class adaptive_engine final : public engine<T> {
 public:
  adaptive_engine(csr_ptr<T> a, const std::vector<row_block>& blocks, index_t slots, index_t tickets,
                  index_t long_rows, cudaStream_t s)
      : a_(std::move(a)),
        blocks_(blocks),
        partials_(static_cast<std::size_t>(slots)),
        tickets_(static_cast<std::size_t>(tickets)),
        long_rows_(long_rows),
        stream_(s) {
    if (tickets > 0) PERRON_CUDA_CHECK(cudaMemsetAsync(tickets_.data(), 0, tickets_.bytes(), stream_));
  }

  void apply(T alpha, const T* d_x, T beta, T* d_y) const override {
    if (blocks_.size() == 0) return;
    const unsigned grid = grid_for(blocks_.size() * adaptive_block, adaptive_block, "csr-adaptive");
    launch_with_values(*a_, alpha, [&](auto values, T scaled) {
      csr_adaptive_kernel<<<grid, adaptive_block, 0, stream_>>>(blocks_.data(), a_->row_ptr.data(),
                                                                a_->col_idx.data(), values, d_x, scaled, beta,
                                                                d_y, partials_.data(), tickets_.data());
    });
    PERRON_CUDA_CHECK_LAUNCH("csr_adaptive_kernel");
  }
  std::size_t extra_bytes() const override { return blocks_.bytes() + partials_.bytes() + tickets_.bytes(); }
  std::string description() const override {
    return "csr-adaptive (" + std::to_string(blocks_.size()) +
           " row blocks of <= " + std::to_string(stream_nnz<T>) + " nonzeros, " + std::to_string(long_rows_) +
           " long rows)";
  }

 private:
  csr_ptr<T> a_;
  device_buffer<row_block> blocks_;
  // Scratch written by apply(): partial sums of split rows and their tickets
  // (each ticket returns to 0 at the end of every call).
  mutable device_buffer<T> partials_;
  mutable device_buffer<unsigned> tickets_;
  index_t long_rows_;
  cudaStream_t stream_;
};

}  // namespace

template <class T>
std::unique_ptr<engine<T>> make_csr_adaptive(const engine_args<T>& x) {
  const csr_matrix<T>& h = x.host();
  const adaptive::plan p = adaptive::plan_blocks(h.row_ptr.data(), h.rows, stream_nnz<T>);
  return std::make_unique<adaptive_engine<T>>(x.csr, p.blocks, p.slots, p.tickets, p.long_rows, x.stream);
}

PERRON_SPMV_INSTANTIATE_MAKE(csr_adaptive)

}  // namespace perron::cuda::spmv
