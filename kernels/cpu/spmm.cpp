// CPU SpMM, Y = alpha * A * X + beta * Y (kernels/spmm.hpp), OpenMP over rows.
// Each row of Y is accumulated in double (as the CPU SpMV does) in a
// per-thread buffer of k values and rounded to T once.
#include "kernels/spmm.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/memory.hpp"

namespace perron {

template <class T>
void spmm(const csr_matrix<T>& a, T alpha, const T* x, T beta, T* y, index_t k) {
  if (k < 0) throw invalid_argument("spmm: k (columns of X) must be >= 0");
  if (k == 0 || a.rows == 0) return;
  if (!y || (a.cols > 0 && !x)) throw invalid_argument("spmm: null X or Y");
  const std::size_t kk = static_cast<std::size_t>(k);
  const std::size_t work = (a.nnz() + static_cast<std::size_t>(a.rows)) * kk;
  const int threads = threads_for_work(work);
#pragma omp parallel num_threads(threads)
  {
    std::vector<double> acc(kk);
#pragma omp for schedule(dynamic, 64)
    for (index_t r = 0; r < a.rows; ++r) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (index_t e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) {
        const double v = a.values[e];
        const T* xr = x + static_cast<std::size_t>(a.col_idx[e]) * kk;
        for (std::size_t j = 0; j < kk; ++j) acc[j] += v * static_cast<double>(xr[j]);
      }
      T* yr = y + static_cast<std::size_t>(r) * kk;
      for (std::size_t j = 0; j < kk; ++j)
        yr[j] = beta == T(0) ? static_cast<T>(alpha * acc[j])
                             : static_cast<T>(alpha * acc[j] + static_cast<double>(beta) * yr[j]);
    }
  }
}

template void spmm(const csr_matrix<float>&, float, const float*, float, float*, index_t);
template void spmm(const csr_matrix<double>&, double, const double*, double, double*, index_t);

}  // namespace perron
