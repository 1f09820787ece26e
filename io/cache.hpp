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

#include <cstddef>
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

// A small text kept beside a source's cache entry: what a solver learned
// about the graph (the PageRank pull trial, solvers/pagerank_trial.hpp), keyed
// like the entry (cache_file_for(source) + "." + tag) and stamped with the
// source's size and modification time. side_load returns nullopt when the
// cache is off, there is none, the source changed since (stale) or the file
// is not one side_store wrote (a warning says so); side_store writes it
// atomically, returns false (a warning) where it cannot, never throws.
// Texts over side_max_bytes are refused.
inline constexpr std::size_t side_max_bytes = 1 << 16;
std::optional<std::string> side_load(const std::string& source, const cache_options& opt,
                                     const std::string& tag);
bool side_store(const std::string& source, const cache_options& opt, const std::string& tag,
                const std::string& text);

// Format version of the cache files (bumped whenever the layout or the
// parser's output changes, so old caches are rebuilt).
constexpr unsigned cache_format_version = 1;

}  // namespace perron::io
