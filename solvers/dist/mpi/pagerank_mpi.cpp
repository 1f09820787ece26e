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

// Rows [lo, hi) of P^T as a CSR of its own (columns stay global).
template <class T>
csr_matrix<T> local_rows(const csr_matrix<T>& pt, index_t lo, index_t hi) {
  csr_matrix<T> a;
  a.rows = hi - lo;
  a.cols = pt.cols;
  const index_t b = pt.row_ptr[lo], e = pt.row_ptr[hi];
  a.row_ptr.resize(static_cast<std::size_t>(a.rows) + 1);
  for (index_t i = 0; i <= a.rows; ++i) a.row_ptr[i] = pt.row_ptr[lo + i] - b;
  a.col_idx.assign(pt.col_idx.begin() + b, pt.col_idx.begin() + e);
  a.values.assign(pt.values.begin() + b, pt.values.begin() + e);
  return a;
}

template <class T>
MPI_Datatype mpi_type() {
  return sizeof(T) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT;
}

}  // namespace

template <class T>
pagerank_result pagerank_mpi(const pagerank_graph<T>& g, const pagerank_options& opt) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const index_t n = g.vertices();
  opt.validate(n);
  const std::vector<double> v = normalized_distribution(opt.personalization, n, "personalization");
  const std::vector<double> r0 = normalized_distribution(opt.initial, n, "initial vector");
  const std::vector<index_t> first = balanced_ranges(g.pt.row_ptr, size);
  const index_t lo = first[rank], hi = first[rank + 1];
  const csr_matrix<T> a = local_rows(g.pt, lo, hi);

  // Counts and offsets of the rank vector's pieces and of the block partials.
  std::vector<int> cnt(size), off(size), bcnt(size), boff(size);
  for (int p = 0; p < size; ++p) {
    cnt[p] = static_cast<int>(first[p + 1] - first[p]);
    off[p] = static_cast<int>(first[p]);
    boff[p] = static_cast<int>(2 * (first[p] / sum_block));
    // Ranges start on block boundaries (an empty range may sit at n): no block is split.
    bcnt[p] = first[p + 1] == first[p]
                  ? 0
                  : static_cast<int>(2 * ((first[p + 1] + sum_block - 1) / sum_block - first[p] / sum_block));
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto nn = static_cast<std::size_t>(n);
  std::vector<T> r(nn), y(static_cast<std::size_t>(hi - lo));
  double dangling_mass = 0.0;
  for (std::size_t i = 0; i < nn; ++i) {
    r[i] = static_cast<T>(r0[i]);
    if (g.dangling[i]) dangling_mass += static_cast<double>(r[i]);
  }
  std::vector<double> part(static_cast<std::size_t>(2 * ((n + sum_block - 1) / sum_block)));
  std::vector<double> mine(static_cast<std::size_t>(bcnt[rank]));
  std::vector<T> piece(static_cast<std::size_t>(hi - lo));

  pagerank_result res;
  for (int k = 1; k <= opt.max_iter; ++k) {
    if (hi > lo) spmv(a, T(1), r.data(), T(0), y.data());
    const double c = opt.alpha * dangling_mass + (1.0 - opt.alpha);
    for (index_t b = lo / sum_block; 2 * (b - lo / sum_block) < bcnt[rank]; ++b) {
      sums s;
      for (index_t i = std::max(lo, b * sum_block); i < std::min(hi, (b + 1) * sum_block); ++i) {
        const T rn = static_cast<T>(opt.alpha * static_cast<double>(y[i - lo]) + c * v[i]);
        s.l1 += std::fabs(static_cast<double>(rn) - static_cast<double>(r[i]));
        piece[i - lo] = rn;
        if (g.dangling[i]) s.dangling += static_cast<double>(rn);
      }
      mine[2 * (b - lo / sum_block)] = s.l1;
      mine[2 * (b - lo / sum_block) + 1] = s.dangling;
    }
    MPI_Allgatherv(mine.data(), bcnt[rank], MPI_DOUBLE, part.data(), bcnt.data(), boff.data(), MPI_DOUBLE,
                   MPI_COMM_WORLD);
    MPI_Allgatherv(piece.data(), cnt[rank], mpi_type<T>(), r.data(), cnt.data(), off.data(), mpi_type<T>(),
                   MPI_COMM_WORLD);
    sums total;
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
  res.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.rank.assign(r.begin(), r.end());
  res.kernel = spmv_kernel::cpu;
  res.loop = pagerank_loop::host;
  return res;
}

template pagerank_result pagerank_mpi<float>(const pagerank_graph<float>&, const pagerank_options&);
template pagerank_result pagerank_mpi<double>(const pagerank_graph<double>&, const pagerank_options&);

}  // namespace perron::dist
