// The virtual rows of the pattern pulls' sliced layout (fused and persistent,
// solvers/cuda/pagerank_fused.cu builds the slices from them): host code,
// tested on the CPU (tests/pagerank_slices_test.cpp).
//
// Row k of the relabelled P^T, of length L > W, becomes ceil(L / W) virtual
// rows of nearly equal length, the others one each; 32 consecutive virtual
// rows make a slice, stored 32 x its widest virtual row. Rows come sorted by
// length, so a slice's lanes have nearly equal work (about 1% padding on
// R-MAT and cnr-2000). A row whose virtual rows span several slices (a cut
// row) is summed from the slices' partials; the layout leaves lanes empty
// (virtual rows of row n, no links) rather than cut a row needlessly.
#pragma once

#include <cstddef>
#include <vector>

#include "../core/formats.hpp"
#include "../core/memory.hpp"

namespace perron {

// (Unwritten until laid out: every entry is written, each thread touching
// the pages of its own rows first.)
struct virtual_rows {
  uninitialized_vector<index_t> vrow;         // each virtual row's row (n: an empty lane)
  uninitialized_vector<index_t> vbegin;       // its first link's position in the CSR
  uninitialized_vector<unsigned short> vlen;  // its links
  uninitialized_vector<index_t> parts;        // per row: the slices its virtual rows span
  uninitialized_vector<index_t> first_slice;  // per row: the first of them
};

// rp: the row pointers of the relabelled CSR (n + 1 entries); W: links per
// virtual row (1-65535); warps: the warps of a grid of one block per SM.
// long_rows_start_slices: a row of more virtual rows than a slice holds
// starts a slice (the persistent pull's layout). dimension_error where the
// virtual rows outnumber what index_t counts.
virtual_rows lay_virtual_rows(const index_t* rp, std::size_t rp_size, int W, std::size_t warps,
                              bool long_rows_start_slices);
inline virtual_rows lay_virtual_rows(const std::vector<index_t>& rp, int W, std::size_t warps,
                                     bool long_rows_start_slices) {
  return lay_virtual_rows(rp.data(), rp.size(), W, warps, long_rows_start_slices);
}

}  // namespace perron
