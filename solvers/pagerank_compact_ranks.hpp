// The ranks' way back from the GPU without most vertices that no link enters:
// host code (the fused pull builds the codes on the device, the GPU solver
// sends and receives: solvers/cuda/pagerank_fused.cu, pagerank.cu), tested on
// the CPU (tests/pagerank_compact_ranks_test.cpp).
//
// A vertex i with no in-link has r_{k+1}(i) = alpha * 0 + c_k v(i) at every
// step: with a uniform v, one value for all of them. The pattern pulls store
// x(i) = T(r(i) / d_i) and publish T(x(i) d_i) (d_i its out-degree), so every
// such vertex of the same out-degree publishes the same bits, and any
// element-wise extrapolation of three such iterates keeps that. The device
// sends one value per out-degree present among them (the table, in front),
// then the rank of every other vertex in the graph's order; the host writes
// each vertex's value from its code. The bus carries table + (vertices with
// in-links) values instead of n: 45% of n on R-MAT scale 20 with 10^7 links,
// 18-63% on the dangling and hub graphs (docs/PERFORMANCE.md, "Ranks without
// the vertices no link enters", session 48).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../core/formats.hpp"

namespace perron {

class compact_ranks {
 public:
  // Vertices a base entry covers: the host's pieces and threads take whole blocks.
  static constexpr index_t block = 4096;
  // Out-degrees that get a table entry; a vertex without in-links of a larger
  // out-degree is sent like any other (codes fit 16 bits; the table stays small).
  static constexpr index_t max_degree = 4095;

  // code[j], in the graph's order: 0, j's rank is sent; d + 1, j has no
  // in-link and out-degree d <= max_degree (its rank is the table's for d).
  // invalid_argument for a code above max_degree + 1.
  explicit compact_ranks(std::vector<std::uint16_t> code);

  index_t vertices() const { return static_cast<index_t>(code_.size()); }
  // The out-degrees with a table entry, ascending: entry t is degree table_degrees()[t].
  const std::vector<index_t>& table_degrees() const { return degrees_; }
  std::size_t table() const { return degrees_.size(); }
  // Values on the bus: the table, then every vertex with code 0 in order.
  std::size_t sent() const { return degrees_.size() + base_.back(); }
  // Vertices [b * block, ...) of block b: sent values (after the table) before it.
  index_t sent_before(std::size_t b) const { return base_[b]; }
  std::size_t blocks() const { return base_.size() - 1; }

  // Piece p of `pieces` on the bus: vertices [first, last) (whole blocks but
  // the graph's last) and the values [from, to) they need; piece 0 also
  // carries the table (from = 0).
  struct piece {
    index_t first = 0, last = 0;
    std::size_t from = 0, to = 0;
  };
  piece cut(std::size_t p, std::size_t pieces) const;

  // The table's values, widened, from the first values received (before
  // expand). values: at least table() entries.
  template <class T>
  void take_table(const T* values);
  // out[j] for j in [q.first, q.last), from the values received (`values`
  // indexed as on the bus, which must hold at least q.to + 1 readable
  // entries: the scalar loop reads one value ahead without a branch), on a
  // team of host threads (0: by the work); 16 vertices an instruction where
  // the processor has AVX-512 (vector_unit()), unless `scalar` (tests).
  template <class T>
  void expand(const piece& q, const T* values, double* out, int team, bool scalar = false) const;
  static bool vector_unit();

 private:
  std::vector<std::uint16_t> code_;
  std::vector<index_t> base_;     // blocks() + 1 entries
  std::vector<index_t> degrees_;  // present out-degrees, ascending
  std::vector<double> by_code_;   // value of code c (c >= 1); by_code_[0] unused
  std::vector<float> by_code_f_;  // the same in float (the float ranks' table, exact)
};

// Whether a graph of n vertices sends its ranks compact (`sent` values of the
// table and the vertices with in-links, against n): where the host expands
// them with AVX-512 (0.57 ns a vertex on one core of the H200 host against
// 0.53 to widen every rank; the scalar loop's 2.2 ns kept 15 threads behind
// the bus: rmat:20:10000000's float receive 0.11 -> 0.21 ms), on a graph of
// 64 K vertices or more (below, the receive is tens of microseconds either
// way) where it saves an eighth of the bus or more. PERRON_COMPACT_RANKS=
// on|off forces it (on: wherever any value is saved), for tests and
// experiments; auto or unset: the rule; anything else an invalid_argument.
bool compact_ranks_pay(index_t n, std::size_t sent);

}  // namespace perron
