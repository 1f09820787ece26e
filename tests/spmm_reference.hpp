// SpMM test support shared by the CPU and GPU tests: the odd shapes, the
// plain-loop reference and the error bound (random blocks: bench/compare.hpp).
//
// Bound, per element (i, j), with n_i the row length and
// S_ij = |alpha| sum_e |a_ie x_(col e, j)| + |beta y0_ij| (in long double):
//   |Y_ij - ref_ij| <= eps_acc (n_i + 2) S_ij + eps_T |ref_ij| + 8 min_T,
// where eps_acc is the unit roundoff of the accumulation under test (T on
// the GPU; double on the CPU, which rounds to T once: the eps_T |ref| term).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/compare.hpp"
#include "core/formats.hpp"
#include "kernels/convert.hpp"
#include "tests/support/support.hpp"

namespace perron::test {

// Rows of the given lengths over `cols` columns (distinct columns, values in [-1, 1) \ {0}).
inline csr_matrix<double> rows_of(const std::vector<index_t>& lengths, index_t cols, unsigned seed) {
  coo_matrix<double> a;
  a.rows = static_cast<index_t>(lengths.size());
  a.cols = cols;
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (index_t r = 0; r < a.rows; ++r) {
    const index_t step = lengths[r] ? std::max<index_t>(1, cols / lengths[r]) : 1;
    for (index_t n = 0; n < lengths[r]; ++n) {
      a.row_idx.push_back(r);
      a.col_idx.push_back((n * step + r) % cols);
      const double v = u(gen);
      a.values.push_back(v == 0 ? 0.5 : v);
    }
  }
  return to_csr(a);
}

// The shapes every SpMM test runs: random, empty rows, no entries, one huge
// row, rows around the GPU's split length (64: one piece, two pieces, ...).
inline std::vector<std::pair<std::string, csr_matrix<double>>> spmm_shapes() {
  std::vector<std::pair<std::string, csr_matrix<double>>> v;
  v.emplace_back("random-37x53", to_csr(random_coo(37, 53, 0.1, 7)));
  std::vector<index_t> some_empty(50);
  for (index_t r = 0; r < 50; ++r) some_empty[r] = r % 3 == 0 ? 0 : r % 7 + 1;
  v.emplace_back("empty-rows", rows_of(some_empty, 41, 8));
  v.emplace_back("no-entries", rows_of(std::vector<index_t>(9, 0), 11, 9));
  v.emplace_back("one-huge-row", rows_of({3, 20000, 0, 5}, 20000, 10));
  v.emplace_back("split-boundaries", rows_of({64, 65, 1, 128, 129, 0, 63}, 300, 11));
  return v;
}

// Checks y (rows x k) against the plain loop from x and y0 (y0 not read when beta == 0).
template <class T>
void expect_spmm_near(const csr_matrix<T>& a, T alpha, const std::vector<T>& x, T beta,
                      const std::vector<T>& y0, const std::vector<T>& y, index_t k, double eps_acc,
                      const std::string& what) {
  const double eps_t = std::numeric_limits<T>::epsilon() / 2, tiny = 8 * std::numeric_limits<T>::min();
  int failures = 0;
  for (index_t i = 0; i < a.rows && failures < 5; ++i) {
    const index_t n = a.row_ptr[i + 1] - a.row_ptr[i];
    for (index_t j = 0; j < k && failures < 5; ++j) {
      long double sum = 0, mag = 0;
      for (index_t e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e) {
        const long double p =
            static_cast<long double>(a.values[e]) * x[static_cast<std::size_t>(a.col_idx[e]) * k + j];
        sum += p;
        mag += std::fabs(p);
      }
      const std::size_t at = static_cast<std::size_t>(i) * k + j;
      long double ref = alpha * sum, s = std::fabs(alpha) * mag;
      if (beta != T(0)) {
        ref += static_cast<long double>(beta) * y0[at];
        s += std::fabs(static_cast<long double>(beta) * y0[at]);
      }
      const double bound =
          eps_acc * (n + 2) * static_cast<double>(s) + eps_t * std::fabs(static_cast<double>(ref)) + tiny;
      const double err = std::fabs(static_cast<double>(y[at]) - static_cast<double>(ref));
      if (!(err <= bound)) {
        ++failures;
        ADD_FAILURE() << what << ": Y(" << i << ", " << j << ") = " << y[at] << ", reference "
                      << static_cast<double>(ref) << " (error " << err << " > bound " << bound << ")";
      }
    }
  }
}

}  // namespace perron::test
