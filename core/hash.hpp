// FNV-1a, 64 bits: the one byte hash of the suite, for cache file names
// (io/cache.cpp) and for checking that MPI ranks hold the same thing
// (arguments, files, parts) before the texts travel. Not for security.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace perron {

constexpr std::uint64_t fnv1a_basis = 0xcbf29ce484222325ULL;

// The hash of `bytes` bytes at p, continued from h (fnv1a_basis to start).
inline std::uint64_t fnv1a(const void* p, std::size_t bytes, std::uint64_t h = fnv1a_basis) {
  const auto* c = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ c[i]) * 0x100000001b3ULL;
  return h;
}

inline std::uint64_t fnv1a(std::string_view s) { return fnv1a(s.data(), s.size()); }

}  // namespace perron
