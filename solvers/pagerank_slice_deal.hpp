// Which block of the persistent pull's resident grid takes which slice of the
// fused layout (solvers/cuda/pagerank_persistent.cu; pagerank_fused.cuh gives
// the layout: slices of 32 virtual rows, rows sorted by length, the longest
// first). Host code, tested on the CPU (tests/pagerank_slice_deal_test.cpp).
//
// A row whose virtual rows lie in more than one slice (a cut row) is summed
// from its slices' partials by the slice that arrives last. Where all of them
// are one block's, that happens in the block's shared memory; across blocks
// it takes device-scope atomics and L2 round trips, which were about 2 us of
// a 5.5 us step on skewed 10^5-link graphs (docs/PERFORMANCE.md, session 39).
// So the deal keeps each run of slices joined by cut rows in one block where
// it can, while keeping what the round-robin deal (slice q to block q mod
// grid) kept: every block about the same work and no warp more slices.
#pragma once

#include <cstddef>
#include <vector>

namespace perron {

// slice_start: the slices' first entries (slices + 1; slice q holds
// slice_start[q + 1] - slice_start[q] entries, 32 a position). cut_after[q]:
// a row goes on from slice q into slice q + 1. Returns grid + 1 offsets and
// then the list: block b takes the slices list[deal[b]] .. list[deal[b + 1] -
// 1], ascending, where list = deal + grid + 1. No block takes more than
// `most` slices nor more slices a warp (of `warps`) than the round-robin deal
// gives; empty where the slices do not fit that.
//
// The runs of slices joined by cut rows go, in slice order, to the block with
// the least work so far (a slice's work: its entries and 128 for its rows,
// scan and updates; ties to the lowest block), so a graph without cut rows
// and alike slices gets the round-robin deal itself. grouped: a run stays
// whole up to what a block takes; otherwise it is cut into pieces of at most
// half a block's share of the work (whole runs of the widest slices on a few
// SMs made the 10^6-link graphs' steps up to 40% slower), and the rows cut
// between pieces are summed through L2. The persistent pull times both.
std::vector<unsigned> deal_slices(const std::vector<unsigned>& slice_start,
                                  const std::vector<unsigned char>& cut_after, int grid, int warps, int most,
                                  bool grouped);

}  // namespace perron
