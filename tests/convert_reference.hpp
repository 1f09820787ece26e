// Helpers shared by convert_test, cpu_spmv_test and gpu_convert_test: an
// independent COO -> CSR reference (std::stable_sort on (row, col), merge
// left to right), exact CSR comparison, CSR invariants, and the list of real
// matrices the conversion tests read.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "io/matrix_market.hpp"
#include "kernels/convert.hpp"
#include "tests/support/support.hpp"

namespace perron {
inline void PrintTo(duplicates d, std::ostream* os) { *os << (d == duplicates::sum ? "sum" : "keep_one"); }
}  // namespace perron

namespace perron::test {

// Reference COO -> CSR written for obviousness, not speed: sort entry numbers
// stably by (row, col) of the output (A or A^T), then walk them in that order,
// summing (or keeping the first of) equal positions. Because the sort is
// stable, duplicates are combined in input order, ((v1 + v2) + v3) in T.
template <class T>
csr_matrix<T> reference_csr(const coo_matrix<T>& a, bool transpose, duplicates dup) {
  const std::vector<index_t>& major = transpose ? a.col_idx : a.row_idx;
  const std::vector<index_t>& minor = transpose ? a.row_idx : a.col_idx;
  std::vector<std::size_t> order(a.nnz());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return major[x] != major[y] ? major[x] < major[y] : minor[x] < minor[y];
  });
  csr_matrix<T> out;
  out.rows = transpose ? a.cols : a.rows;
  out.cols = transpose ? a.rows : a.cols;
  out.row_ptr.assign(static_cast<std::size_t>(out.rows) + 1, 0);
  for (std::size_t n = 0; n < order.size(); ++n) {
    const std::size_t k = order[n];
    if (n > 0 && major[order[n - 1]] == major[k] && minor[order[n - 1]] == minor[k]) {
      if (dup == duplicates::sum) out.values.back() += a.values[k];
      continue;
    }
    out.col_idx.push_back(minor[k]);
    out.values.push_back(a.values[k]);
    ++out.row_ptr[major[k] + 1];
  }
  for (index_t r = 0; r < out.rows; ++r) out.row_ptr[r + 1] += out.row_ptr[r];
  return out;
}

// Bitwise equality of two values (distinguishes -0 from +0, and compares NaN payloads).
template <class T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

// Identical CSRs: same shape, row_ptr, col_idx and bit-identical values.
template <class T>
::testing::AssertionResult same_csr(const csr_matrix<T>& got, const csr_matrix<T>& want) {
  if (got.rows != want.rows || got.cols != want.cols)
    return ::testing::AssertionFailure()
           << "shape " << got.rows << "x" << got.cols << ", want " << want.rows << "x" << want.cols;
  if (got.row_ptr != want.row_ptr) {
    std::size_t i = 0;
    while (i < std::min(got.row_ptr.size(), want.row_ptr.size()) && got.row_ptr[i] == want.row_ptr[i]) ++i;
    return ::testing::AssertionFailure() << "row_ptr differs first at " << i << " (sizes "
                                         << got.row_ptr.size() << ", " << want.row_ptr.size() << ")";
  }
  if (got.col_idx != want.col_idx) {
    std::size_t i = 0;
    while (i < std::min(got.col_idx.size(), want.col_idx.size()) && got.col_idx[i] == want.col_idx[i]) ++i;
    return ::testing::AssertionFailure() << "col_idx differs first at " << i << " (nnz " << got.col_idx.size()
                                         << ", want " << want.col_idx.size() << ")";
  }
  if (got.values.size() != want.values.size())
    return ::testing::AssertionFailure() << "values: " << got.values.size() << " vs " << want.values.size();
  for (std::size_t i = 0; i < got.values.size(); ++i)
    if (!same_bits(got.values[i], want.values[i]))
      return ::testing::AssertionFailure()
             << "value " << i << " is " << got.values[i] << ", want " << want.values[i];
  return ::testing::AssertionSuccess();
}

// The CSR invariants every producer promises.
template <class T>
::testing::AssertionResult valid_csr(const csr_matrix<T>& a) {
  if (a.row_ptr.size() != static_cast<std::size_t>(a.rows) + 1)
    return ::testing::AssertionFailure()
           << "row_ptr size " << a.row_ptr.size() << " for " << a.rows << " rows";
  if (a.row_ptr.front() != 0 || static_cast<std::size_t>(a.row_ptr.back()) != a.nnz() ||
      a.values.size() != a.nnz())
    return ::testing::AssertionFailure() << "row_ptr ends / array sizes inconsistent";
  for (index_t r = 0; r < a.rows; ++r) {
    if (a.row_ptr[r] > a.row_ptr[r + 1]) return ::testing::AssertionFailure() << "row_ptr decreases at " << r;
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      if (a.col_idx[k] < 0 || a.col_idx[k] >= a.cols)
        return ::testing::AssertionFailure() << "row " << r << ": column " << a.col_idx[k] << " out of range";
      if (k > a.row_ptr[r] && a.col_idx[k - 1] >= a.col_idx[k])
        return ::testing::AssertionFailure() << "row " << r << ": columns not strictly increasing at " << k;
    }
  }
  return ::testing::AssertionSuccess();
}

// A real matrix the tests read: bundled (data/*.mtx, *.mtx.gz coordinate
// files) or from ../shared/data (skipped when absent).
struct real_matrix {
  std::string name;      // gtest-safe
  std::string relative;  // under data_dir() or shared_data_dir()
  bool shared = true;
  std::size_t max_entries = 0;  // informational
};

inline void PrintTo(const real_matrix& m, std::ostream* os) { *os << m.relative; }

inline std::string gtest_safe(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// Bundled coordinate matrices (array files and SNAP lists are not matrices here),
// then the shared ones named. Large ones (> ~1M entries) only when asked.
inline std::vector<real_matrix> real_matrices(bool include_large = false) {
  std::vector<real_matrix> out;
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> bundled;
  for (const auto& e : fs::directory_iterator(data_dir(), ec)) {
    const std::string f = e.path().filename().string();
    const bool mtx = f.size() > 4 && (f.substr(f.size() - 4) == ".mtx" ||
                                      (f.size() > 7 && f.substr(f.size() - 7) == ".mtx.gz"));
    if (!e.is_regular_file() || !mtx) continue;
    if (f.substr(f.size() - 4) == ".mtx") {  // skip dense array files (read by read_matrix_market_array)
      std::ifstream in(e.path());
      std::string banner;
      std::getline(in, banner);
      if (banner.find("array") != std::string::npos) continue;
    }
    bundled.push_back(f);
  }
  std::sort(bundled.begin(), bundled.end());
  for (const auto& f : bundled) out.push_back({"data_" + gtest_safe(f), f, false});
  // Shared ones not already bundled under the same file name.
  for (std::string f : {"matrices/west0067.mtx", "matrices/lp_afiro.mtx", "matrices/bcsstk13.mtx",
                        "matrices/cage11.mtx.gz", "matrices/bcsstk33.mtx.gz", "graphs/wb-cs-stanford.mtx"}) {
    const std::string base = f.substr(f.find('/') + 1);
    if (std::find(bundled.begin(), bundled.end(), base) == bundled.end())
      out.push_back({gtest_safe(f), f, true});
  }
  if (include_large) out.push_back({"graphs_cnr_2000", "graphs/cnr-2000.mtx.gz", true});
  return out;
}

// The matrix as read (cached: several parameterized tests read the same file).
// Returns false (and the test should GTEST_SKIP) when a shared file is absent.
inline bool load_real(const real_matrix& m, coo_matrix<double>& out) {
  static std::map<std::string, coo_matrix<double>> cache;
  const std::string key = (m.shared ? "shared:" : "data:") + m.relative;
  if (auto it = cache.find(key); it != cache.end()) {
    out = it->second;
    return true;
  }
  std::string path;
  if (m.shared) {
    auto p = shared_file(m.relative);
    if (!p) return false;
    path = *p;
  } else {
    path = data_dir() + "/" + m.relative;
  }
  out = io::read_matrix_market(path).matrix;
  // Keep the cache small: the large graph is re-read when needed.
  if (out.nnz() < 2'000'000) cache.emplace(key, out);
  return true;
}

}  // namespace perron::test
