// Binary cache of parsed inputs, so that the second load of a large text file
// runs at disk speed. One file per source, named after the source's absolute
// path; it records the source's size and modification time, a format version
// and a checksum of everything it holds. A cache file that is corrupt,
// truncated, from another version or stale (the source changed) is reported
// as a warning on stderr and rebuilt, never trusted. Files are written to a
// temporary name and renamed, so readers never see a half-written cache.
//
// Library calls leave the cache off (read_options::cache.enabled = false);
// the apps turn it on and offer --no-cache and --cache-dir.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "io/load.hpp"

namespace perron::io {

// $XDG_CACHE_HOME/perron, else $HOME/.cache/perron; "" when neither is set.
std::string default_cache_dir();

// The directory the options select (opt.dir, else default_cache_dir()).
std::string cache_dir(const cache_options& opt);

// Where the cache of `source` lives in `dir` (the source must exist).
std::string cache_file_for(const std::string& source, const std::string& dir);

// The cached load of `source`, or nullopt when there is no usable cache
// (a warning on stderr says why when a cache file existed but was refused).
std::optional<loaded_matrix> cache_load(const std::string& source, const cache_options& opt,
                                        unsigned threads);

// The size and modification time of `source` (symlinks followed), taken
// before it is read: a file that changes while it is parsed must not be
// cached under its new stamp with its old content.
struct source_stamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
};
std::optional<source_stamp> stamp_of(const std::string& source);

// Writes the cache of `source`, parsed from the file as it was at `before`;
// when the file's stamp has changed since, nothing is written (a warning
// says so). On failure (read-only directory, full disk) a warning on
// stderr, never an exception. Returns true when written.
bool cache_store(const std::string& source, const source_stamp& before, const loaded_matrix& m,
                 const cache_options& opt, unsigned threads);

// Format version of the cache files (bumped whenever the layout or the
// parser's output changes, so old caches are rebuilt).
constexpr unsigned cache_format_version = 1;

}  // namespace perron::io
