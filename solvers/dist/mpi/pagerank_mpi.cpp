// The distributed power iteration over MPI: local pull + all-gather or halo exchange.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/memory.hpp"
#include "solvers/dist/pagerank_dist.hpp"
#include "solvers/pagerank_step.hpp"

namespace perron::dist {
namespace {

constexpr index_t sum_block = pagerank_sum_block;  // solvers/pagerank.hpp

struct sums {
  double l1 = 0.0, dangling = 0.0;
};

template <class T>
MPI_Datatype mpi_type() {
  return sizeof(T) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

static_assert(std::is_same_v<index_t, std::int32_t>, "the halo's index lists travel as MPI_INT32_T");

}  // namespace

template <class T>
exchange_plan plan_exchange(const local_graph<T>& g, exchange_kind how) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto P = static_cast<std::size_t>(size);
  exchange_plan x;
  x.all_values = std::uint64_t(size - 1) * std::uint64_t(g.n);
  if (size == 1) return x;
  std::vector<index_t> columns;  // sorted: those of rank q are one run
  std::vector<int> recv_count(P), recv_offset(P);
  phase([&] {
    columns = columns_outside(g.rows.pt, g.lo, g.hi);
    for (std::size_t q = 0; q < P; ++q) {
      const auto from = std::lower_bound(columns.begin(), columns.end(), g.first[q]);
      const auto to = std::lower_bound(columns.begin(), columns.end(), g.first[q + 1]);
      recv_offset[q] = static_cast<int>(from - columns.begin());
      recv_count[q] = static_cast<int>(to - from);
    }
  });
  x.halo_values = total_sum(columns.size());
  MPI_Comm node;  // the ranks sharing this one's memory
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size = 1;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  x.one_host = node_size == size;
  x.halo = takes_halo(how, x.halo_values, x.all_values, x.one_host);
  if (!x.halo) return x;
  // Rank q tells each owner which of its entries it reads.
  std::vector<int> send_count(P), send_offset(P, 0);
  MPI_Alltoall(recv_count.data(), 1, MPI_INT, send_count.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (std::size_t q = 1; q < P; ++q) send_offset[q] = send_offset[q - 1] + send_count[q - 1];
  phase([&] { x.send_rows.resize(static_cast<std::size_t>(send_offset[P - 1] + send_count[P - 1])); });
  MPI_Alltoallv(columns.data(), recv_count.data(), recv_offset.data(), MPI_INT32_T, x.send_rows.data(),
                send_count.data(), send_offset.data(), MPI_INT32_T, MPI_COMM_WORLD);
  for (index_t& i : x.send_rows) i -= g.lo;
  x.send_count = std::move(send_count);
  x.send_offset = std::move(send_offset);
  x.recv_count = std::move(recv_count);
  x.recv_offset = std::move(recv_offset);
  x.recv_columns = std::move(columns);
  return x;
}

template <class T>
pagerank_result pagerank_mpi(const local_graph<T>& g, const pagerank_options& opt, iteration_stats* stats) {
  return pagerank_mpi(g, opt, plan_exchange(g, exchange_kind::automatic), stats);
}

template <class T>
pagerank_result pagerank_mpi(const local_graph<T>& g, const pagerank_options& opt, const exchange_plan& x,
                             iteration_stats* stats) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const index_t n = g.n, lo = g.lo, hi = g.hi;
  const auto nn = static_cast<std::size_t>(n);
  // Counts and offsets of the rank vector's pieces and of the block partials
  // (l1, dangling) of each rank: ranges start on block boundaries (an empty
  // one may sit at n), so no block is split.
  std::vector<int> cnt(size), off(size), bcnt(size), boff(size);
  for (int p = 0; p < size; ++p) {
    cnt[p] = static_cast<int>(g.first[p + 1] - g.first[p]);
    off[p] = static_cast<int>(g.first[p]);
    boff[p] = static_cast<int>(2 * (g.first[p] / sum_block));
    bcnt[p] =
        cnt[p] == 0
            ? 0
            : static_cast<int>(2 * ((g.first[p + 1] + sum_block - 1) / sum_block - g.first[p] / sum_block));
  }
  std::vector<double> v, part, mine;
  std::vector<T> r, piece, halo_out, halo_in;
  phase([&] {
    halo_out.resize(x.send_rows.size());
    halo_in.resize(x.recv_columns.size());
    opt.validate(n);
    if (!opt.personalization.empty()) v = normalized_distribution(opt.personalization, n, "personalization");
    r.resize(nn);
    piece.resize(static_cast<std::size_t>(hi - lo));
    part.resize(static_cast<std::size_t>(2 * ((n + sum_block - 1) / sum_block)));
    mine.resize(static_cast<std::size_t>(bcnt[rank]));
  });
  if (stats) {
    *stats = iteration_stats{};
    const std::uint64_t own =
        std::uint64_t(cnt[rank]) * sizeof(T) + std::uint64_t(bcnt[rank]) * sizeof(double);
    const std::uint64_t partials = std::uint64_t(bcnt[rank]) * sizeof(double);
    const std::uint64_t others = (part.size() - mine.size()) * sizeof(double);
    if (x.halo) {
      stats->bytes_sent = std::uint64_t(x.send_rows.size()) * sizeof(T) + partials * std::uint64_t(size - 1);
      stats->bytes_received = std::uint64_t(x.recv_columns.size()) * sizeof(T) + others;
    } else {
      stats->bytes_sent = own * std::uint64_t(size - 1);
      stats->bytes_received = std::uint64_t(n - cnt[rank]) * sizeof(T) + others;
    }
  }

  const auto t0 = std::chrono::steady_clock::now();
  // As pagerank_cpu (opt.validate above has checked the initial weights), the
  // halo's copies on the step's team.
  const int step_team = pagerank_step_team(g.rows.pt);
  const team_scope team(step_team);
  // How the step's threads split this rank's rows, decided once for the solve.
  const step_split split =
      pagerank_step_whole_blocks(g.rows.pt, step_team) ? step_split::whole_blocks : step_split::rows;
  double dangling_mass = start_iterate(opt.initial, n, g.rows.dangling.data(), r.data());
  pagerank_result res;
  const bool uniform = opt.personalization.empty();  // v's one value, not a stream
  const double v_uniform = 1.0 / static_cast<double>(n);
  for (int k = 1; k <= opt.max_iter; ++k) {
    const auto tc = std::chrono::steady_clock::now();
    // r_{k+1} = alpha P^T r_k + c v on this rank's rows, summed per block as
    // pagerank_cpu sums them (the same function: solvers/pagerank_step.hpp).
    const double c = opt.alpha * dangling_mass + (1.0 - opt.alpha);
    pagerank_step_rows(g.rows.pt, lo, r.data(), piece.data(), uniform ? nullptr : v.data(), v_uniform,
                       g.rows.dangling.data(), opt.alpha, c, mine.data(), split);
    const auto tw = std::chrono::steady_clock::now();
    if (stats) MPI_Barrier(MPI_COMM_WORLD);  // waiting apart from transfer (benchmark runs only)
    const auto tm = std::chrono::steady_clock::now();
    MPI_Allgatherv(mine.data(), bcnt[rank], MPI_DOUBLE, part.data(), bcnt.data(), boff.data(), MPI_DOUBLE,
                   MPI_COMM_WORLD);
    if (x.halo) {
      // The entries of r other ranks read of this one's rows, and those this one reads of theirs.
      const auto out = static_cast<std::int64_t>(halo_out.size());
#pragma omp parallel for schedule(static) if (out >= 65536)
      for (std::int64_t k = 0; k < out; ++k) halo_out[k] = piece[x.send_rows[k]];
      MPI_Alltoallv(halo_out.data(), x.send_count.data(), x.send_offset.data(), mpi_type<T>(), halo_in.data(),
                    x.recv_count.data(), x.recv_offset.data(), mpi_type<T>(), MPI_COMM_WORLD);
      std::copy(piece.begin(), piece.end(), r.begin() + lo);
      const auto in = static_cast<std::int64_t>(halo_in.size());
#pragma omp parallel for schedule(static) if (in >= 65536)
      for (std::int64_t k = 0; k < in; ++k) r[x.recv_columns[k]] = halo_in[k];
    } else {
      MPI_Allgatherv(piece.data(), cnt[rank], mpi_type<T>(), r.data(), cnt.data(), off.data(), mpi_type<T>(),
                     MPI_COMM_WORLD);
    }
    if (stats) {
      stats->compute_seconds.push_back(std::chrono::duration<double>(tw - tc).count());
      stats->wait_seconds.push_back(std::chrono::duration<double>(tm - tw).count());
      stats->comm_seconds.push_back(seconds_since(tm));
    }
    sums total;  // the blocks in order, as pagerank_cpu adds them
    for (std::size_t b = 0; b < part.size(); b += 2) {
      total.l1 += part[b];
      total.dangling += part[b + 1];
    }
    dangling_mass = total.dangling;
    res.iterations = k;
    res.residual = total.l1;
    if (opt.progress && rank == 0) opt.progress(k, total.l1);
    if (total.l1 < opt.tol) {
      res.converged = true;
      break;
    }
  }
  // The halo left every rank the entries it read; every rank returns all of r.
  if (x.halo && res.iterations > 0)
    MPI_Allgatherv(piece.data(), cnt[rank], mpi_type<T>(), r.data(), cnt.data(), off.data(), mpi_type<T>(),
                   MPI_COMM_WORLD);
  res.solve_seconds = seconds_since(t0);
  res.rank.assign(r.begin(), r.end());
  res.kernel = spmv_kernel::cpu;
  res.loop = pagerank_loop::host;
  return res;
}

template exchange_plan plan_exchange(const local_graph<float>&, exchange_kind);
template exchange_plan plan_exchange(const local_graph<double>&, exchange_kind);
template pagerank_result pagerank_mpi<float>(const local_graph<float>&, const pagerank_options&,
                                             const exchange_plan&, iteration_stats*);
template pagerank_result pagerank_mpi<double>(const local_graph<double>&, const pagerank_options&,
                                              const exchange_plan&, iteration_stats*);
template pagerank_result pagerank_mpi<float>(const local_graph<float>&, const pagerank_options&,
                                             iteration_stats*);
template pagerank_result pagerank_mpi<double>(const local_graph<double>&, const pagerank_options&,
                                              iteration_stats*);

}  // namespace perron::dist
