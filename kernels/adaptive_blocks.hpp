// csr-adaptive's row blocks (Greathouse & Daga, SC14), planned on the host
// for the kernel in kernels/cuda/spmv_adaptive.cu, which says what a thread
// block does with each. Host code, so the plan is tested without a GPU
// (tests/adaptive_blocks_test.cpp holds it to the serial greedy rule).
#pragma once

#include <vector>

#include "../core/formats.hpp"

namespace perron::adaptive {

inline constexpr int block_threads = 256;
// A stream block's products take 8 KB of shared memory: 2048 in float (8
// loads in flight a thread), 1024 in double (4). With 2048 doubles (20.5 KB
// a block with the offsets) the driver gave 8 blocks 172 KB and left L1 too
// small for the gathers in flight: 1024 made double 0.90x the time over 14
// generated matrices (er:4000000:40000000 0.88x), 0.85x over the 32 shared;
// in float 1024 was 1.2-1.3x slower on local orders (grid, sbm, ws)
// (docs/PERFORMANCE.md, "csr-adaptive: long rows among short ones by warps").
template <class T>
inline constexpr int stream_nnz = 8192 / static_cast<int>(sizeof(T));
inline constexpr int stream_rows = 1024;         // rows per stream block at most
inline constexpr int long_part_nnz = 16 * 1024;  // nonzeros per block for long rows
inline constexpr int wide_row_nnz = 32;          // a stream block's row longer than this is summed by a warp

// Lanes per row in a stream block of `rows` rows: pow2floor(256 / rows)
// within [1, 32] (the kernel's reduction and the planner's wide rows).
constexpr int lanes_per_row(int rows) {
  int lanes = 1;
  while (lanes < 32 && lanes * 2 * rows <= block_threads) lanes *= 2;
  return lanes;
}

struct row_block {
  index_t row_begin;
  index_t row_end;    // stream block: one past its last row; long-row part: row_begin + 1
  index_t nnz_begin;  // this block's nonzeros [nnz_begin, nnz_end)
  index_t nnz_end;
  index_t part;    // -1: stream block; else this part's index within its row
  index_t parts;   // long row: number of parts; stream block: 1 if a row of it is summed by a warp
  index_t slot;    // long row with parts > 1: first partial-sum slot
  index_t ticket;  // long row with parts > 1: its ticket counter
};

struct plan {
  std::vector<row_block> blocks;
  index_t slots = 0;    // partial sums of the rows cut into parts
  index_t tickets = 0;  // one for each such row
  index_t long_rows = 0;
};

// The greedy rule: from the first row not yet in a block, a row whose
// nonzeros, counted from its first one rounded down to 32 entries (where
// the kernel loads from), number more than `stream_nnz` is a long row, cut
// into parts of long_part_nnz; otherwise a stream block takes it and the rows
// after it while they fit (at most stream_rows rows, their nonzeros counted
// from the block's first rounded down to 32 at most stream_nnz). A stream
// block of rows given fewer than 32 lanes each is marked where one of them
// holds more than wide_row_nnz. row_ptr: rows + 1 entries of a valid CSR.
plan plan_blocks(const index_t* row_ptr, index_t rows, int stream_nnz);

}  // namespace perron::adaptive
