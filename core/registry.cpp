// Names of the registries' enums (core/registry.hpp), through core/names.hpp.
#include "core/registry.hpp"

#include "core/names.hpp"

namespace perron {
namespace {

constexpr name_table<spmv_kernel, 0
#define PERRON_SPMV_KERNEL(id, text, what, ...) +1
#include "core/spmv_kernels.def"
#undef PERRON_SPMV_KERNEL
                     >
    kernel_names{{
#define PERRON_SPMV_KERNEL(id, text, what, ...) {spmv_kernel::id, text},
#include "core/spmv_kernels.def"
#undef PERRON_SPMV_KERNEL
    }};

constexpr std::string_view kernel_descriptions[] = {
#define PERRON_SPMV_KERNEL(id, text, what, ...) what,
#include "core/spmv_kernels.def"
#undef PERRON_SPMV_KERNEL
};

constexpr name_table<pagerank_pull, 4> pull_names{{
    {pagerank_pull::automatic, "auto"},
    {pagerank_pull::spmv, "spmv"},
    {pagerank_pull::fused, "fused"},
    {pagerank_pull::persistent, "persistent"},
}};

}  // namespace

std::string_view name(spmv_kernel k) { return name_in(kernel_names, k); }
spmv_kernel parse_spmv_kernel(std::string_view s) { return parse_in(kernel_names, s, "SpMV kernel"); }
std::string spmv_kernel_names() { return names_in(kernel_names); }
std::string_view description(spmv_kernel k) { return kernel_descriptions[static_cast<int>(k)]; }
bool on_gpu(spmv_kernel k) { return k != spmv_kernel::cpu; }

const std::vector<spmv_kernel>& spmv_kernels() {
  static const std::vector<spmv_kernel> all = [] {
    std::vector<spmv_kernel> v;
    for (const auto& entry : kernel_names) v.push_back(entry.first);
    return v;
  }();
  return all;
}

std::string_view name(pagerank_pull p) { return name_in(pull_names, p); }
pagerank_pull parse_pagerank_pull(std::string_view s) { return parse_in(pull_names, s, "pull"); }
std::string pagerank_pull_names() { return names_in(pull_names); }

}  // namespace perron
