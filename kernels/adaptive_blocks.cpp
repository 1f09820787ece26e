#include "kernels/adaptive_blocks.hpp"

#include <algorithm>

#include "core/memory.hpp"

namespace perron::adaptive {

// Walked a row at a time (one thread, two passes over the rows), the rule
// took 4.7-6 ms of a plan of 4 * 10^6 short rows on the 2-core development
// machine, and csr-adaptive's candidate 8-14 ms of chain:4000000:4000000's
// trial on the H200 host (docs/PERFORMANCE.md, session 76). Its stream block
// from row b ends at the last row e <= min(rows, b + stream_rows) with
// row_ptr[e] - first <= stream_nnz (row_ptr is monotone, and row b itself
// fits), so the ends are found by a galloping search over at most
// stream_rows entries, a few steps a block; the wide marks, a walk over each
// block's rows, are taken in parallel afterwards. The same blocks as the
// walk, entry for entry.
plan plan_blocks(const index_t* rp, index_t rows, int stream_nnz) {
  plan out;
  const auto aligned = [](index_t k) { return k & ~index_t(31); };
  long long r = 0;
  while (r < rows) {
    const long long first = aligned(rp[r]);
    const long long len = rp[r + 1] - rp[r];
    if (rp[r + 1] - first > stream_nnz) {
      const auto parts = static_cast<index_t>((len + long_part_nnz - 1) / long_part_nnz);
      const index_t slot = parts > 1 ? out.slots : 0, ticket = parts > 1 ? out.tickets : 0;
      if (parts > 1) {
        out.slots += parts;
        ++out.tickets;
      }
      const auto row = static_cast<index_t>(r);
      for (index_t p = 0; p < parts; ++p) {
        const index_t lo = rp[r] + p * long_part_nnz;
        const index_t hi = p + 1 == parts ? rp[r + 1] : lo + long_part_nnz;
        out.blocks.push_back({row, row + 1, lo, hi, p, parts, slot, ticket});
      }
      ++out.long_rows;
      ++r;
      continue;
    }
    // rp[r + 1] fits; gallop to a row that does not (or the cap), then bisect.
    const long long cap = std::min<long long>(rows, r + stream_rows), limit = first + stream_nnz;
    long long fits = r + 1, step = 1, over = cap + 1;
    while (fits < cap) {
      const long long probe = std::min(cap, fits + step);
      if (rp[probe] > limit) {
        over = probe;
        break;
      }
      fits = probe;
      step *= 2;
    }
    while (over - fits > 1) {  // rp[fits] <= limit < rp[over] (over == cap + 1: past the cap)
      const long long mid = fits + (over - fits) / 2;
      if (rp[mid] <= limit)
        fits = mid;
      else
        over = mid;
    }
    out.blocks.push_back({static_cast<index_t>(r), static_cast<index_t>(fits), rp[r], rp[fits], -1, 0, 0, 0});
    r = fits;
  }
  const std::size_t count = out.blocks.size();
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads_for_work(static_cast <std::size_t>(rows)))
  for (std::size_t i = 0; i < count; ++i) {
    row_block& b = out.blocks[i];
    if (b.part >= 0 || lanes_per_row(b.row_end - b.row_begin) == 32) continue;
    bool wide = false;
    for (index_t k = b.row_begin; k < b.row_end && !wide; ++k) wide = rp[k + 1] - rp[k] > wide_row_nnz;
    b.parts = wide ? 1 : 0;
  }
  return out;
}

}  // namespace perron::adaptive
