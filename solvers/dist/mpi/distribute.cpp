// distribute_graph (solvers/dist/pagerank_dist.hpp): every arc to the rank
// owning its target, then that rank's rows of P^T built as make_pagerank_graph
// builds all of them.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <type_traits>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "kernels/convert.hpp"
#include "solvers/dist/pagerank_dist.hpp"

namespace perron::dist {
namespace {

constexpr index_t sum_block = pagerank_sum_block;  // solvers/pagerank.hpp

std::string vertex_name(const vertex_naming& label, index_t i) { return label(i); }

// The check and message of make_pagerank_graph (solvers/pagerank.cpp).
void check_weight(double w, index_t from, index_t to, const vertex_naming& label) {
  if (!(w >= 0.0) || !std::isfinite(w))
    throw invalid_argument("arc " + vertex_name(label, from) + " -> " + vertex_name(label, to) +
                           " has weight " + format_shortest(w) +
                           ": --weighted needs finite, non-negative weights");
}

struct arc {
  index_t source, target;
};

// Arcs and weights bucketed by destination rank (a stable counting sort, so
// each rank receives a sender's arcs in the sender's order), exchanged, and
// appended to (arcs, weights) in sender order.
struct exchange {
  std::vector<arc> arcs;
  std::vector<double> weights;
  std::uint64_t bytes_sent = 0;
};

template <class Make>
void send_to_owners(std::size_t count, const std::vector<int>& owner_of_block, bool weighted, Make make,
                    exchange& out) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto P = static_cast<std::size_t>(size);
  std::vector<arc> send;
  std::vector<double> send_w;
  std::vector<int> scount(P, 0), sdispl(P, 0), rcount(P, 0), rdispl(P, 0);
  phase([&] {
    std::vector<std::size_t> c(P + 1, 0);
    for (std::size_t k = 0; k < count; ++k) {
      arc a;
      double w;
      if (make(k, a, w)) ++c[static_cast<std::size_t>(owner_of_block[a.target / sum_block]) + 1];
    }
    for (std::size_t p = 0; p < P; ++p) {
      if (c[p + 1] > static_cast<std::size_t>(INT_MAX))
        throw dimension_error("more than 2^31 - 1 arcs go from one rank to another; run on more ranks");
      scount[p] = static_cast<int>(c[p + 1]);
      c[p + 1] += c[p];
    }
    if (c[P] > static_cast<std::size_t>(INT_MAX))
      throw dimension_error("more than 2^31 - 1 arcs on one rank; run on more ranks");
    for (std::size_t p = 0; p < P; ++p) sdispl[p] = static_cast<int>(c[p]);
    send.resize(c[P]);
    if (weighted) send_w.resize(c[P]);
    for (std::size_t k = 0; k < count; ++k) {
      arc a;
      double w = 1.0;
      if (!make(k, a, w)) continue;
      const std::size_t at = c[static_cast<std::size_t>(owner_of_block[a.target / sum_block])]++;
      send[at] = a;
      if (weighted) send_w[at] = w;
    }
  });
  MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
  const std::size_t base = out.arcs.size();
  phase([&] {
    std::size_t total = 0;
    for (std::size_t p = 0; p < P; ++p) {
      if (total > static_cast<std::size_t>(INT_MAX))
        throw dimension_error("more than 2^31 - 1 arcs arrive at one rank; run on more ranks");
      rdispl[p] = static_cast<int>(total);
      total += static_cast<std::size_t>(rcount[p]);
    }
    out.arcs.resize(base + total);
    if (weighted) out.weights.resize(base + total);
  });
  MPI_Datatype arc_type;
  MPI_Type_contiguous(2, MPI_INT32_T, &arc_type);
  MPI_Type_commit(&arc_type);
  MPI_Alltoallv(send.data(), scount.data(), sdispl.data(), arc_type, out.arcs.data() + base, rcount.data(),
                rdispl.data(), arc_type, MPI_COMM_WORLD);
  MPI_Type_free(&arc_type);
  if (weighted)
    MPI_Alltoallv(send_w.data(), scount.data(), sdispl.data(), MPI_DOUBLE, out.weights.data() + base,
                  rcount.data(), rdispl.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  for (std::size_t p = 0; p < P; ++p)
    if (static_cast<int>(p) != rank)
      out.bytes_sent +=
          static_cast<std::uint64_t>(scount[p]) * (sizeof(arc) + (weighted ? sizeof(double) : 0));
}

// d_j = sum_i A(j, i) over the targets i in increasing order, as the
// single-process build adds them: counts are exact in any order (an
// all-reduce); weights are added rank after rank (rank p continues the sums
// of ranks 0..p-1 with its own rows), then broadcast.
std::vector<double> out_weights(const csr_matrix<double>& at, index_t n, bool weighted) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> out;
  phase([&] { out.assign(static_cast<std::size_t>(n), 0.0); });
  if (!weighted) {
    for (std::size_t k = 0; k < at.nnz(); ++k) out[static_cast<std::size_t>(at.col_idx[k])] += 1.0;
    MPI_Allreduce(MPI_IN_PLACE, out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out;
  }
  if (rank > 0) MPI_Recv(out.data(), n, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (std::size_t k = 0; k < at.nnz(); ++k) out[static_cast<std::size_t>(at.col_idx[k])] += at.values[k];
  if (rank + 1 < size) MPI_Send(out.data(), n, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD);
  MPI_Bcast(out.data(), n, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
  return out;
}

}  // namespace

local_arcs exchange_arcs(const arc_slice& arcs, index_t n, bool weighted, mirror m,
                         const vertex_naming& label, const std::string& input) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool mirrored = m != mirror::none;
  const double sign = m == mirror::skew ? -1.0 : 1.0;
  const auto blocks = static_cast<std::size_t>((std::max<index_t>(n, 0) + sum_block - 1) / sum_block);
  std::vector<std::uint64_t> block_links(blocks, 0);
  // The arcs checked in order (a bad weight: the first in arc order over all
  // ranks, as make_pagerank_graph reports it), and the links into each block.
  // The arcs' errors name the input first, before the ranks agree on them.
  const auto named = [&](auto&& f) {
    return [&] {
      try {
        f();
      } catch (const invalid_argument& e) {
        if (input.empty()) throw;
        throw invalid_argument(input + ": " + e.what());
      } catch (const dimension_error& e) {
        if (input.empty()) throw;
        throw dimension_error(input + ": " + e.what());
      }
    };
  };
  // The ranks must cut the same graph: one of another size (or symmetry)
  // would put its arcs outside the others' vertices, and its block counts
  // would not match theirs in the all-reduce below.
  const std::string differ = first_difference(std::to_string(n) + " vertices" +
                                              (m == mirror::symmetric ? ", symmetric"
                                               : m == mirror::skew    ? ", skew-symmetric"
                                                                      : ""));
  // This rank's share: the arcs sent and received (16 bytes each, twice
  // with the mirrors) and P^T's rows (about 32 bytes per link while they
  // are built), plus vectors of n (out-weights, ranks, flags: about 48).
  const double links = double(arcs.count) * (mirrored ? 2.0 : 1.0);
  const double share = 48.0 * double(std::max<index_t>(n, 0)) + 64.0 * links;
  // The ranks that share this one's memory, summed: each rank checked its
  // own share against the whole host's free memory, so P ranks on one host
  // passed with P times what it had (4 ranks of a 40 M-vertex graph peaked
  // at 2.4 GB under a 2.2 GB limit, each passing at 1.9 GB). Summed, a rank
  // counts the vectors of n it holds to the end (out-weights, r, the result:
  // about 24 bytes; measured at 40 M vertices, session 108: 13 and 17 on
  // ranks past 0 in float and double, 21 and 29 on rank 0), not the 48 of its peak
  // while building, which the ranks do not all reach at once.
  const double held = 24.0 * double(std::max<index_t>(n, 0)) + 64.0 * links;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_ranks = 1;
  MPI_Comm_size(node, &node_ranks);
  double host_held = held;
  MPI_Allreduce(&held, &host_held, 1, MPI_DOUBLE, MPI_SUM, node);
  MPI_Comm_free(&node);
  phase(named([&] {
    if (!differ.empty())
      throw invalid_argument("the ranks read different graphs (" + differ +
                             "): every rank must read the same input, unchanged while the run reads it");
    if (n <= 0) throw invalid_argument("the graph is empty (0 vertices)");
    check_vertex_count(n);
    const std::string graph = " (" + std::to_string(n) + " vertices, " +
                              std::to_string(static_cast<std::uint64_t>(links)) + " arcs)";
    check_host_memory(share, "its share of the PageRank graph" + graph);
    if (node_ranks > 1)
      check_host_memory(host_held, "the sum of the shares of the " + std::to_string(node_ranks) +
                                       " ranks on this host of the PageRank graph" + graph);
    for (std::size_t k = 0; k < arcs.count; ++k) {
      const index_t s = arcs.source[k], t = arcs.target[k];
      if (s < 0 || s >= n || t < 0 || t >= n)
        throw dimension_error("arc " + std::to_string(s) + " -> " + std::to_string(t) +
                              " (0-based) outside the " + std::to_string(n) + " vertices");
      if (weighted) check_weight(arcs.weight[k], s, t, label);
      ++block_links[static_cast<std::size_t>(t / sum_block)];
      if (mirrored && s != t) ++block_links[static_cast<std::size_t>(s / sum_block)];
    }
  }));
  if (weighted && m == mirror::skew)  // the mirrors come after every rank's arcs
    phase(named([&] {
      for (std::size_t k = 0; k < arcs.count; ++k)
        if (arcs.source[k] != arcs.target[k])
          check_weight(sign * arcs.weight[k], arcs.target[k], arcs.source[k], label);
    }));
  MPI_Allreduce(MPI_IN_PLACE, block_links.data(), static_cast<int>(blocks), MPI_UINT64_T, MPI_SUM,
                MPI_COMM_WORLD);

  local_arcs g;
  g.n = n;
  g.first = balanced_ranges(block_links, n, size);
  g.lo = g.first[static_cast<std::size_t>(rank)];
  g.hi = g.first[static_cast<std::size_t>(rank) + 1];
  std::vector<int> owner_of_block(blocks);
  for (int p = 0; p < size; ++p)
    if (g.first[p] != g.first[p + 1])  // an empty range may sit at n, inside the last block
      for (index_t b = g.first[p] / sum_block; b * sum_block < g.first[p + 1]; ++b)
        owner_of_block[static_cast<std::size_t>(b)] = p;

  // Every rank's arcs, then every rank's mirrors: the single-process order.
  exchange x;
  send_to_owners(
      arcs.count, owner_of_block, weighted,
      [&](std::size_t k, arc& a, double& w) {
        a = {arcs.source[k], arcs.target[k]};
        if (weighted) w = arcs.weight[k];
        return true;
      },
      x);
  if (mirrored)
    send_to_owners(
        arcs.count, owner_of_block, weighted,
        [&](std::size_t k, arc& a, double& w) {
          if (arcs.source[k] == arcs.target[k]) return false;
          a = {arcs.target[k], arcs.source[k]};
          if (weighted) w = sign * arcs.weight[k];
          return true;
        },
        x);
  g.bytes_exchanged = x.bytes_sent;

  // The local CSR of A^T (row i - lo = target i), as make_pagerank_graph
  // converts: a stable sort, so duplicates are merged in arc order.
  phase(named([&] {
    coo_matrix<double> local;
    local.rows = n;
    local.cols = g.hi - g.lo;
    local.row_idx.resize(x.arcs.size());
    local.col_idx.resize(x.arcs.size());
    local.values.resize(x.arcs.size());
    for (std::size_t k = 0; k < x.arcs.size(); ++k) {
      local.row_idx[k] = x.arcs[k].source;
      local.col_idx[k] = x.arcs[k].target - g.lo;
      local.values[k] = weighted ? x.weights[k] : 1.0;
    }
    x = exchange{};
    csr_options opt;
    opt.transpose = true;
    opt.dup = weighted ? duplicates::sum : duplicates::keep_one;
    g.at = to_csr(local, opt);  // rows hi - lo, columns n
  }));
  return g;
}

template <class T>
local_graph<T> finish_graph(local_arcs&& a, bool weighted, const vertex_naming& label) {
  const index_t n = a.n;
  csr_matrix<double> at = std::move(a.at);
  local_graph<T> g;
  g.n = n;
  g.lo = a.lo;
  g.hi = a.hi;
  g.first = std::move(a.first);
  g.bytes_exchanged = a.bytes_exchanged;
  const std::vector<double> out = out_weights(at, n, weighted);
  phase([&] {
    g.rows.pattern = !weighted;
    g.rows.dangling.assign(static_cast<std::size_t>(n), 0);
    for (index_t j = 0; j < n; ++j) {
      if (!std::isfinite(out[j]))
        throw invalid_argument("vertex " + vertex_name(label, j) +
                               ": the sum of its out-arc weights overflows a double");
      if (out[j] == 0.0) {
        g.rows.dangling[j] = 1;
        ++g.dangling_count;
      }
    }
    g.rows.dangling_count = static_cast<index_t>(g.dangling_count);
    // P^T(i, j) = A(j, i) / d_j in double, as graph_from_transpose computes it, then
    // rounded to T; written straight into T storage (an unweighted at has no
    // values to reuse: a cached pattern brings none), no double copy of P^T.
    const bool in_place = std::is_same_v<T, double> && weighted;
    std::vector<T> val = in_place ? std::vector<T>{} : fresh_vector<T>(at.nnz());
    T* to = val.data();
    if constexpr (std::is_same_v<T, double>)
      if (in_place) to = at.values.data();
    for (std::size_t k = 0; k < at.nnz(); ++k) {
      const double d = out[static_cast<std::size_t>(at.col_idx[k])];
      to[k] = static_cast<T>(d == 0.0 ? 0.0 : (weighted ? at.values[k] : 1.0) / d);
    }
    csr_matrix<T>& pt = g.rows.pt;
    pt.rows = at.rows;
    pt.cols = at.cols;
    pt.row_ptr = std::move(at.row_ptr);
    pt.col_idx = std::move(at.col_idx);
    if constexpr (std::is_same_v<T, double>)
      pt.values = in_place ? std::move(at.values) : std::move(val);
    else
      pt.values = std::move(val);
  });
  g.links = total_sum(g.rows.pt.nnz());
  return g;
}

namespace {

// Point to point, in messages of at most 2^30 values (MPI counts are int).
template <class V>
void send_values(const V* x, std::size_t count, MPI_Datatype type, int to) {
  constexpr std::size_t most = std::size_t(1) << 30;
  for (std::size_t at = 0; at < count; at += most)
    MPI_Send(x + at, static_cast<int>(std::min(most, count - at)), type, to, 1, MPI_COMM_WORLD);
}
template <class V>
void receive_values(V* x, std::size_t count, MPI_Datatype type, int from) {
  constexpr std::size_t most = std::size_t(1) << 30;
  for (std::size_t at = 0; at < count; at += most)
    MPI_Recv(x + at, static_cast<int>(std::min(most, count - at)), type, from, 1, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}

}  // namespace

arc_copy scatter_arcs(const arc_slice& all, bool weighted, int root) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::uint64_t total = all.count;
  MPI_Bcast(&total, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  const std::uint64_t P = static_cast<std::uint64_t>(size);
  const auto from = [&](int p) {
    return total / P * std::uint64_t(p) + std::min<std::uint64_t>(p, total % P);
  };
  arc_copy out;
  phase([&] {
    const auto c = static_cast<std::size_t>(from(rank + 1) - from(rank));
    out.source.resize(c);
    out.target.resize(c);
    if (weighted) out.weight.resize(c);
  });
  if (rank == root) {
    for (int p = 0; p < size; ++p) {
      const std::size_t at = from(p), c = from(p + 1) - at;
      if (p == root) {
        std::copy(all.source + at, all.source + at + c, out.source.begin());
        std::copy(all.target + at, all.target + at + c, out.target.begin());
        if (weighted) std::copy(all.weight + at, all.weight + at + c, out.weight.begin());
        continue;
      }
      send_values(all.source + at, c, MPI_INT32_T, p);
      send_values(all.target + at, c, MPI_INT32_T, p);
      if (weighted) send_values(all.weight + at, c, MPI_DOUBLE, p);
    }
  } else {
    receive_values(out.source.data(), out.source.size(), MPI_INT32_T, root);
    receive_values(out.target.data(), out.target.size(), MPI_INT32_T, root);
    if (weighted) receive_values(out.weight.data(), out.weight.size(), MPI_DOUBLE, root);
  }
  return out;
}

void send_numbers(const std::uint64_t* v, std::size_t count, int to) {
  send_values(v, count, MPI_UINT64_T, to);
}
void receive_numbers(std::uint64_t* v, std::size_t count, int from) {
  receive_values(v, count, MPI_UINT64_T, from);
}
void send_bytes(const char* p, std::size_t count, int to) { send_values(p, count, MPI_CHAR, to); }
void receive_bytes(char* p, std::size_t count, int from) { receive_values(p, count, MPI_CHAR, from); }

void broadcast(std::vector<std::int64_t>& values, int root) {
  std::uint64_t count = values.size();
  MPI_Bcast(&count, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  phase([&] { values.resize(static_cast<std::size_t>(count)); });
  constexpr std::size_t most = std::size_t(1) << 30;
  for (std::size_t at = 0; at < values.size(); at += most)
    MPI_Bcast(values.data() + at, static_cast<int>(std::min(most, values.size() - at)), MPI_INT64_T, root,
              MPI_COMM_WORLD);
}

template <class T>
local_graph<T> distribute_graph(const arc_slice& arcs, index_t n, bool weighted, mirror m,
                                const vertex_naming& label) {
  return finish_graph<T>(exchange_arcs(arcs, n, weighted, m, label), weighted, label);
}

template local_graph<float> finish_graph<float>(local_arcs&&, bool, const vertex_naming&);
template local_graph<double> finish_graph<double>(local_arcs&&, bool, const vertex_naming&);
template local_graph<float> distribute_graph<float>(const arc_slice&, index_t, bool, mirror,
                                                    const vertex_naming&);
template local_graph<double> distribute_graph<double>(const arc_slice&, index_t, bool, mirror,
                                                      const vertex_naming&);

}  // namespace perron::dist
