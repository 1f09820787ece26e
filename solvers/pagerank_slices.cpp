#include "solvers/pagerank_slices.hpp"

#include <limits>

#include "core/error.hpp"
#include "core/memory.hpp"

namespace perron {

namespace {

// Lanes of a slice left empty rather than cut a row there: at most an eighth
// of a slice, or half of one where the slices so padded still number at most
// one for each warp of a grid of one block per SM: the persistent pull's
// resident mode then has a warp for every slice, so the padding adds no warp
// a second slice and only removes rows cut by slice ends. Measured on 19
// graphs (docs/PERFORMANCE.md, session 35): half a slice everywhere took
// 3-18% off 10^4-10^5-link skewed graphs' steps and added 5-12% on 10^6-link
// ones, whose slices outnumber the warps.
constexpr long long keep_whole = 4, keep_whole_spare = 16;

}  // namespace

// In parallel (a serial pass of push_backs took 67 ms of grid:2000:2000's
// GPU set-up and 26 of er:1000000:10000000's, H200 host, session 74): only
// a row of more than one virtual row can start a slice with empty lanes
// (left >= 1 lane is free, so v > left needs v >= 2), so the place of every
// row follows from a serial pass over those long rows alone; then each
// thread lays its own rows. The same layout as the serial rule, entry for
// entry (tests/pagerank_slices_test.cpp holds it to a serial reference).
virtual_rows lay_virtual_rows(const index_t* rp, std::size_t rp_size, int W, std::size_t warps,
                              bool long_rows_start_slices) {
  if (rp_size == 0 || W < 1 || W > 65535)
    throw invalid_argument("lay_virtual_rows: no rows, or W out of range");
  const auto n_ = static_cast<index_t>(rp_size - 1);
  const auto n = static_cast<std::size_t>(n_);
  const auto virtual_of = [&](index_t k) -> long long {
    const long long L = rp[k + 1] - rp[k];
    return L > W ? (L + W - 1) / W : 1;
  };
  // Empty lanes before a row of v virtual rows starting at `pos`, with at
  // most `keep` empty lanes allowed: a row that would cross into the next
  // slice with at most `keep` lanes of it left in this one starts the next
  // slice instead (the lanes left are empty virtual rows: row n, no links):
  // a row across a slice's end is summed from partials through a
  // device-scope counter, a chain of L2 round trips that every step waits
  // for. For the persistent pull (long_rows_start_slices), a row of more
  // virtual rows than a slice holds, cut whatever its start, starts a slice,
  // so that two such rows never share one. Sharing, the in-degree order's
  // hubs chained into runs of slices joined by cut rows (facebook-combined's
  // first 14, as-caida's 25), which the resident grid deals to one block
  // whole: the slowest slices of a step, all on one SM (docs/PERFORMANCE.md,
  // session 41). The fused pull hands out slices one by one; there the
  // padding only added bytes (rmat:24's thousands of hubs: 7% a step).
  const auto empty_lanes = [long_rows_start_slices](long long v, std::size_t pos,
                                                    long long keep) -> long long {
    const long long left = 32 - static_cast<long long>(pos % 32);
    return (v > left && left <= keep) || (long_rows_start_slices && v > 32 && left < 32) ? left : 0;
  };

  // The long rows, in order: each chunk of rows lists its own.
  const int p = threads_for_work(n);
  std::vector<std::vector<index_t>> longs_of(static_cast<std::size_t>(p));
  const auto chunk = [&](std::size_t c) { return static_cast<index_t>(n * c / static_cast<std::size_t>(p)); };
#pragma omp parallel for schedule(static, 1) num_threads(p)
  for (int c = 0; c < p; ++c)
    for (index_t k = chunk(c); k < chunk(c + 1); ++k)
      if (virtual_of(k) > 1) longs_of[static_cast<std::size_t>(c)].push_back(k);
  std::vector<index_t> longs;
  for (const auto& l : longs_of) longs.insert(longs.end(), l.begin(), l.end());
  longs_of.clear();

  // The virtual rows and empty lanes added before each chunk's first row,
  // beyond one virtual row a row, where at most `keep` empty lanes a row are
  // allowed; false once the total passes max_vrows.
  std::vector<std::size_t> chunk_extra(static_cast<std::size_t>(p) + 1, 0);
  const auto place = [&](long long keep, std::size_t max_vrows) {
    std::size_t extra = 0, next = 0;  // next: the long row to come
    for (std::size_t c = 0; c <= static_cast<std::size_t>(p); ++c) {
      const index_t lo = chunk(c);
      for (; next < longs.size() && longs[next] < lo; ++next) {
        const index_t k = longs[next];
        const long long v = virtual_of(k);
        extra += static_cast<std::size_t>(empty_lanes(v, static_cast<std::size_t>(k) + extra, keep) + v - 1);
      }
      chunk_extra[c] = extra;
    }
    return n + extra <= max_vrows;
  };
  long long keep = keep_whole_spare;
  if (!place(keep, 32 * warps)) place(keep = keep_whole, std::numeric_limits<std::size_t>::max());
  const std::size_t total = n + chunk_extra[static_cast<std::size_t>(p)];
  if (total > static_cast<std::size_t>(max_index / 2))
    throw dimension_error("fused pull: more virtual rows than index_t counts");

  virtual_rows out;
  out.vrow.resize(total);
  out.vbegin.resize(total);
  out.vlen.resize(total);
  out.parts.resize(n);
  out.first_slice.resize(n);
#pragma omp parallel for schedule(static, 1) num_threads(p)
  for (int c = 0; c < p; ++c) {
    std::size_t pos = static_cast<std::size_t>(chunk(c)) + chunk_extra[static_cast<std::size_t>(c)];
    for (index_t k = chunk(c); k < chunk(c + 1); ++k) {
      const long long v = virtual_of(k);
      const long long L = rp[k + 1] - rp[k];
      for (long long i = empty_lanes(v, pos, keep); i > 0; --i, ++pos) {
        out.vrow[pos] = n_;
        out.vlen[pos] = 0;
        out.vbegin[pos] = rp[k];
      }
      const std::size_t first = pos;
      const long long base = L / v, extra = L % v;
      index_t b = rp[k];
      for (long long i = 0; i < v; ++i, ++pos) {
        const auto l = static_cast<index_t>(base + (i < extra ? 1 : 0));
        out.vrow[pos] = k;
        out.vlen[pos] = static_cast<unsigned short>(l);
        out.vbegin[pos] = b;
        b += l;
      }
      out.first_slice[static_cast<std::size_t>(k)] = static_cast<index_t>(first / 32);
      out.parts[static_cast<std::size_t>(k)] = static_cast<index_t>((pos - 1) / 32 - first / 32 + 1);
    }
  }
  return out;
}

}  // namespace perron
