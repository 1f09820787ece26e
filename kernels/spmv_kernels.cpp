// The one list of SpMV kernels and their names.
#include <array>
#include <utility>

#include "core/error.hpp"
#include "kernels/spmv.hpp"

namespace perron {
namespace {
constexpr std::array<std::pair<spmv_kernel, std::string_view>, 11> table{{
    {spmv_kernel::cpu, "cpu"},
    {spmv_kernel::csr_scalar, "csr-scalar"},
    {spmv_kernel::csr_vector, "csr-vector"},
    {spmv_kernel::csr_adaptive, "csr-adaptive"},
    {spmv_kernel::csr_cached, "csr-cached"},
    {spmv_kernel::csr_cte, "csr-cte"},
    {spmv_kernel::ell, "ell"},
    {spmv_kernel::merge, "merge"},
    {spmv_kernel::cusparse, "cusparse"},
    {spmv_kernel::cusparse_alg2, "cusparse-alg2"},
    {spmv_kernel::automatic, "auto"},
}};
}  // namespace

std::string_view name(spmv_kernel k) {
  for (const auto& [kk, n] : table)
    if (kk == k) return n;
  return "unknown";
}

spmv_kernel parse_spmv_kernel(std::string_view s) {
  for (const auto& [k, n] : table)
    if (n == s) return k;
  throw invalid_argument("unknown SpMV kernel '" + std::string(s) + "' (valid: " + spmv_kernel_names() + ")");
}

const std::vector<spmv_kernel>& spmv_kernels() {
  static const std::vector<spmv_kernel> all = [] {
    std::vector<spmv_kernel> v;
    for (const auto& e : table) v.push_back(e.first);
    return v;
  }();
  return all;
}

bool on_gpu(spmv_kernel k) { return k != spmv_kernel::cpu; }

std::string spmv_kernel_names() {
  std::string s;
  for (const auto& [k, n] : table) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

}  // namespace perron
