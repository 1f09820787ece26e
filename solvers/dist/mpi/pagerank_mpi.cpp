// The distributed power iteration over MPI: local pull + all-gather.
#include <mpi.h>

#include <chrono>
#include <cmath>

#include "kernels/spmv.hpp"
#include "solvers/dist/pagerank_dist.hpp"

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

}  // namespace

template <class T>
pagerank_result pagerank_mpi(const local_graph<T>& g, const pagerank_options& opt, iteration_stats* stats) {
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
  std::vector<double> v, r0, part, mine;
  std::vector<T> r, y, piece;
  phase([&] {
    opt.validate(n);
    v = normalized_distribution(opt.personalization, n, "personalization");
    r0 = normalized_distribution(opt.initial, n, "initial vector");
    r.resize(nn);
    y.resize(static_cast<std::size_t>(hi - lo));
    piece.resize(static_cast<std::size_t>(hi - lo));
    part.resize(static_cast<std::size_t>(2 * ((n + sum_block - 1) / sum_block)));
    mine.resize(static_cast<std::size_t>(bcnt[rank]));
  });
  if (stats) {
    *stats = iteration_stats{};
    const std::uint64_t own =
        std::uint64_t(cnt[rank]) * sizeof(T) + std::uint64_t(bcnt[rank]) * sizeof(double);
    stats->bytes_sent = own * std::uint64_t(size - 1);
    stats->bytes_received =
        std::uint64_t(n - cnt[rank]) * sizeof(T) + (part.size() - mine.size()) * sizeof(double);
  }

  const auto t0 = std::chrono::steady_clock::now();
  double dangling_mass = 0.0;  // as pagerank_cpu: in vertex order
  for (std::size_t i = 0; i < nn; ++i) {
    r[i] = static_cast<T>(r0[i]);
    if (g.rows.dangling[i]) dangling_mass += static_cast<double>(r[i]);
  }
  pagerank_result res;
  for (int k = 1; k <= opt.max_iter; ++k) {
    const auto tc = std::chrono::steady_clock::now();
    // y = (P^T r_k) on this rank's rows
    if (hi > lo) spmv(g.rows.pt, T(1), r.data(), T(0), y.data());
    const double c = opt.alpha * dangling_mass + (1.0 - opt.alpha);
    // r_{k+1} = alpha y + c v on the rows, summed per block as pagerank_cpu does.
    const index_t b0 = lo / sum_block;
#pragma omp parallel for schedule(static) if (hi - lo >= 16384)
    for (index_t b = b0; b < b0 + bcnt[rank] / 2; ++b) {
      sums s;
      for (index_t i = std::max(lo, b * sum_block); i < std::min(hi, (b + 1) * sum_block); ++i) {
        const T rn = static_cast<T>(opt.alpha * static_cast<double>(y[i - lo]) + c * v[i]);
        s.l1 += std::fabs(static_cast<double>(rn) - static_cast<double>(r[i]));
        piece[i - lo] = rn;
        if (g.rows.dangling[i]) s.dangling += static_cast<double>(rn);
      }
      mine[2 * (b - b0)] = s.l1;
      mine[2 * (b - b0) + 1] = s.dangling;
    }
    const auto tw = std::chrono::steady_clock::now();
    if (stats) MPI_Barrier(MPI_COMM_WORLD);  // waiting apart from transfer (benchmark runs only)
    const auto tm = std::chrono::steady_clock::now();
    MPI_Allgatherv(mine.data(), bcnt[rank], MPI_DOUBLE, part.data(), bcnt.data(), boff.data(), MPI_DOUBLE,
                   MPI_COMM_WORLD);
    MPI_Allgatherv(piece.data(), cnt[rank], mpi_type<T>(), r.data(), cnt.data(), off.data(), mpi_type<T>(),
                   MPI_COMM_WORLD);
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
  res.solve_seconds = seconds_since(t0);
  res.rank.assign(r.begin(), r.end());
  res.kernel = spmv_kernel::cpu;
  res.loop = pagerank_loop::host;
  return res;
}

template pagerank_result pagerank_mpi<float>(const local_graph<float>&, const pagerank_options&,
                                             iteration_stats*);
template pagerank_result pagerank_mpi<double>(const local_graph<double>&, const pagerank_options&,
                                              iteration_stats*);

}  // namespace perron::dist
