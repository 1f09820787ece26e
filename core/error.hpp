// perron's error hierarchy. Library code throws these; only apps/ catch them,
// print one line to stderr and return a distinct exit code (see apps/common.hpp).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace perron {

// Base of everything perron throws on purpose.
struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A file could not be opened / read (missing, directory, I/O failure, truncated .gz).
struct io_error : error {
  // (path, not file: -Wshadow in a user's build warned of the member)
  io_error(const std::string& path, const std::string& what) : error(path + ": " + what), file(path) {}
  std::string file;
};

// Malformed content. line == 0 means "no specific line" (e.g. empty file).
struct parse_error : error {
  parse_error(const std::string& path, std::uint64_t at, const std::string& what)
      : error(path + (at ? ":" + std::to_string(at) : std::string()) + ": " + what),
        file(path),
        line(at),
        reason(what) {}
  std::string file;
  std::uint64_t line;
  std::string reason;
};

// Well-formed but outside what perron handles (complex, hermitian, ...).
struct not_supported : error {
  using error::error;
};

// Shapes that do not fit: mismatched dimensions, sizes beyond the 32-bit index type.
struct dimension_error : error {
  using error::error;
};

// More memory than the host or the GPU has free (core/memory.hpp's checks,
// before anything large is allocated). A dimension_error, so callers and exit
// codes that take shapes beyond what fits take it as before; Python raises
// MemoryError for it.
struct memory_error : dimension_error {
  using dimension_error::dimension_error;
};

// Bad argument values (negative weights, alpha out of range, unknown kernel name, ...).
struct invalid_argument : error {
  using error::error;
};

// A CUDA / cuSPARSE call failed, or CUDA is not available in this build.
struct cuda_error : error {
  using error::error;
};

}  // namespace perron
