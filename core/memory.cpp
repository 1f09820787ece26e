#include "core/memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "core/error.hpp"

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

void prefault(const std::vector<byte_span>& spans, unsigned threads) {
#if defined(MADV_POPULATE_WRITE)
  constexpr std::uintptr_t page = 4096, piece = std::uintptr_t(8) << 20;  // 8 MiB: four huge pages
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> pieces;
  for (const byte_span& s : spans) {
    if (s.data == nullptr || s.bytes < piece) continue;  // small arrays: not worth a call
    // Page-aligned outwards: the pages at either end belong to the same mapping.
    const auto begin = reinterpret_cast<std::uintptr_t>(s.data) & ~(page - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(s.data) + s.bytes + page - 1) & ~(page - 1);
    for (std::uintptr_t p = begin; p < end; p += piece) pieces.emplace_back(p, std::min(end, p + piece));
  }
  const auto count = static_cast<std::int64_t>(pieces.size());
  // Failure (an older kernel: EINVAL) only means the fill will fault the pages as before.
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : 1) if (count > 1)
  for (std::int64_t k = 0; k < count; ++k)
    ::madvise(reinterpret_cast<void*>(pieces[k].first), pieces[k].second - pieces[k].first,
              MADV_POPULATE_WRITE);
#else
  (void)spans;
  (void)threads;
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
  throw dimension_error(what + " needs about " + size(bytes) + " of memory, more than the " +
                        size(double(limit)) +
                        (by_env ? " that PERRON_MEMORY_LIMIT allows" : " this machine has"));
}

}  // namespace perron
