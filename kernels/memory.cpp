#include "kernels/memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernels/error.hpp"

namespace perron {

void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  if (data == nullptr || bytes < 2 * huge) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
  const std::uintptr_t last = (begin + bytes) & ~(huge - 1);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

std::size_t host_memory_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  double limit = pages > 0 && page > 0 ? double(pages) * double(page) : 1e300;
  if (const char* env = std::getenv("PERRON_MEMORY_LIMIT"); env && *env) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end != env && v > 0 && v < limit) limit = v;
  }
  return limit >= 1.8e19 ? SIZE_MAX : static_cast<std::size_t>(limit);
}

void check_host_memory(double bytes, const std::string& what) {
  const std::size_t limit = host_memory_limit();
  if (!(bytes > double(limit))) return;
  auto size = [](double b) {
    char out[32];
    if (b >= 1e9)
      std::snprintf(out, sizeof out, "%.1f GB", b / 1e9);
    else if (b >= 1e6)
      std::snprintf(out, sizeof out, "%.1f MB", b / 1e6);
    else
      std::snprintf(out, sizeof out, "%.0f bytes", b);
    return std::string(out);
  };
  const bool by_env = std::getenv("PERRON_MEMORY_LIMIT") != nullptr;
  throw dimension_error(what + " needs about " + size(bytes) + " of memory, more than the " + size(double(limit)) +
                        (by_env ? " that PERRON_MEMORY_LIMIT allows" : " this machine has"));
}

}  // namespace perron
