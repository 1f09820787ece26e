#include "solvers/pagerank_slices.hpp"

#include <limits>

#include "core/error.hpp"

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

virtual_rows lay_virtual_rows(const std::vector<index_t>& rp, int W, std::size_t warps,
                              bool long_rows_start_slices) {
  if (rp.empty() || W < 1 || W > 65535)
    throw invalid_argument("lay_virtual_rows: no rows, or W out of range");
  const auto n_ = static_cast<index_t>(rp.size() - 1);
  const auto n = static_cast<std::size_t>(n_);
  const auto nnz = static_cast<std::size_t>(rp.back() - rp.front());
  virtual_rows out;
  auto& vrow = out.vrow;
  auto& vbegin = out.vbegin;
  auto& vlen = out.vlen;
  auto& parts = out.parts;
  auto& first_slice = out.first_slice;
  parts.assign(n, 0);
  first_slice.assign(n, 0);
  const std::size_t reserve = n + nnz / static_cast<std::size_t>(W) + 64;
  vrow.reserve(reserve);
  vbegin.reserve(reserve);
  vlen.reserve(reserve);
  // The rows laid out with at most `keep` empty lanes before a row; false
  // (and stopped) once there are more than max_vrows virtual rows.
  const auto lay = [&](long long keep, std::size_t max_vrows) {
    vrow.clear();
    vbegin.clear();
    vlen.clear();
    for (index_t k = 0; k < n_; ++k) {
      const long long L = rp[k + 1] - rp[k];
      const long long v = L > W ? (L + W - 1) / W : 1;
      const long long base = L / v, extra = L % v;
      // A row that would cross into the next slice with at most `keep`
      // lanes of it left in this one starts the next slice instead (the
      // lanes left are empty virtual rows: row n, no links): a row across a
      // slice's end is summed from partials through a device-scope counter,
      // a chain of L2 round trips that every step waits for.
      // For the persistent pull (long_rows_start_slices), a row of more
      // virtual rows than a slice holds, cut whatever its start, starts a
      // slice, so that two such rows never share one. Sharing, the in-degree
      // order's hubs chained into runs of slices joined by cut rows
      // (facebook-combined's first 14, as-caida's 25), which the resident
      // grid deals to one block whole: the slowest slices of a step, all on
      // one SM (docs/PERFORMANCE.md, session 41). The fused pull hands out
      // slices one by one; there the padding only added bytes (rmat:24's
      // thousands of hubs: 7% a step).
      const long long left = 32 - static_cast<long long>(vrow.size() % 32);
      if ((v > left && left <= keep) || (long_rows_start_slices && v > 32 && left < 32))
        for (long long i = 0; i < left; ++i) {
          vrow.push_back(n_);
          vlen.push_back(0);
          vbegin.push_back(rp[k]);
        }
      const std::size_t first = vrow.size();
      index_t b = rp[k];
      for (long long i = 0; i < v; ++i) {
        const auto l = static_cast<index_t>(base + (i < extra ? 1 : 0));
        vrow.push_back(k);
        vlen.push_back(static_cast<unsigned short>(l));
        vbegin.push_back(b);
        b += l;
      }
      if (vrow.size() > max_vrows) return false;
      if (vrow.size() > max_index / 2)
        throw dimension_error("fused pull: more virtual rows than index_t counts");
      first_slice[k] = static_cast<index_t>(first / 32);
      parts[k] = static_cast<index_t>((vrow.size() - 1) / 32 - first / 32 + 1);
    }
    return true;
  };
  if (!lay(keep_whole_spare, 32 * warps)) lay(keep_whole, std::numeric_limits<std::size_t>::max());
  return out;
}

}  // namespace perron
