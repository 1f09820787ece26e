// Binary cache of parsed inputs, so that the second load of a large text file
// runs at disk speed. One file per source and reading of it (the default, an
// edge list read by name, a graph read as two sets: cache_options::reading),
// named after the source's absolute path; it records the source's size,
// modification and status-change times, a format version and a checksum of
// everything it holds. A cache file that is corrupt, truncated, from another
// version or stale (the source changed) is reported as a warning on stderr
// and rebuilt, never trusted. Files are written to a temporary name and
// renamed, so readers never see a half-written cache.
//
// Library calls leave the cache off (read_options::cache.enabled = false);
// the apps turn it on and offer --no-cache and --cache-dir.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "load.hpp"

namespace perron::io {

// $XDG_CACHE_HOME/perron, else $HOME/.cache/perron; "" when neither is set.
std::string default_cache_dir();

// The directory the options select (opt.dir, else default_cache_dir()).
std::string cache_dir(const cache_options& opt);

// Where the cache of `source`, read as opt.reading says, lives in
// cache_dir(opt) (the source must exist).
std::string cache_file_for(const std::string& source, const cache_options& opt);

// The cached load of `source`, or nullopt when there is no usable cache
// (a warning on stderr says why when a cache file existed but was refused).
std::optional<loaded_matrix> cache_load(const std::string& source, const cache_options& opt,
                                        unsigned threads);

// The size, modification time and status-change time of `source` (symlinks
// followed), taken before it is read: a file that changes while it is parsed
// must not be cached under its new stamp with its old content. The ctime is
// the one a user cannot set: a file rewritten with the same size and its old
// mtime put back (touch -d/-r, cp -p, tar x, mv of another file) has a new
// one, where size and mtime alone served the old graph's entry.
struct source_stamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
};
std::optional<source_stamp> stamp_of(const std::string& source);

// Writes the cache of `source`, parsed from the file as it was at `before`;
// when the file's stamp has changed since, nothing is written (a warning
// says so). On failure (read-only directory, full disk) a warning on
// stderr, never an exception. Returns true when written.
bool cache_store(const std::string& source, const source_stamp& before, const loaded_matrix& m,
                 const cache_options& opt, unsigned threads);

// ---- the per-rank cache of a distributed load (mpirun -np P pagerank) ----
// Rank r of P keeps its own part: its rows of A^T after the all-to-all (the
// arcs into its vertex range; apps/common/dist_load), so that the next run
// with the same file and P skips the parse and the exchange. One file per
// (source, P, rank, weighted), named <file>.<hash>.np<P>.r<rank>[.w].perron-part
// beside the single-process entries; it records the source's stamp
// (source_stamp), P, the rank, every rank's range (the partition, which
// the app compares across ranks) and a checksum of its payload.
struct rank_part_key {
  int ranks = 1, rank = 0;
  bool weighted = false;    // the values are summed weights (else a pattern: no values stored)
  bool undirected = false;  // every arc was taken both ways (read_options::undirected)
};

struct rank_part {
  input_format format = input_format::matrix_market;
  bool pattern = false, symmetric = false;  // what the summary shows of the input
  bool skew = false;                        // of a symmetric one: skew-symmetric
  index_t first_set = 0;                    // loaded_matrix::first_set
  index_t n = 0;                            // vertices of the whole graph
  std::vector<index_t> first;               // every rank's range: first[p] .. first[p + 1]
  csr_matrix<double> rows;                  // rows first[rank] .. first[rank + 1] of A^T, n columns;
                                            // values only when weighted
  std::vector<std::int64_t> label;          // the input's vertex ids (SNAP), else empty
  std::vector<std::string> name;            // an edge list of vertex names: name[i] (label empty)
};

// Where rank `key.rank`'s part of `source` lives in cache_dir(opt) (the source must exist).
std::string rank_cache_file_for(const std::string& source, const rank_part_key& key,
                                const cache_options& opt);

// The part, or nullopt with `why` set when a file existed but was refused
// (corrupt, truncated, stale, another P or rank) and left empty when there
// was none. Prints nothing: under mpirun only rank 0 prints, so the app
// gathers every rank's reason.
std::optional<rank_part> rank_cache_load(const std::string& source, const rank_part_key& key,
                                         const cache_options& opt, unsigned threads, std::string& why);

// Writes the part of `source` as read at `before` (nothing when the file has
// changed since). Returns "" when written (or the cache is off), else why not.
std::string rank_cache_store(const std::string& source, const source_stamp& before, const rank_part_key& key,
                             const rank_part& part, const cache_options& opt, unsigned threads);

// Removes the parts of `source` written for another number of ranks P > 1
// (the same weighting): a change of P invalidates them. The part of one rank
// of one is the single-process run's kept CSR of A^T and stays. Returns the
// count removed.
int rank_cache_prune(const std::string& source, const rank_part_key& key, const cache_options& opt);
// A small text kept beside a source's cache entry: what a solver learned
// about the graph (the PageRank pull trial, solvers/pagerank_trial.hpp; the
// iterations of the last solve, apps/pagerank.cpp), keyed like the entry
// (cache_file_for(source) + "." + tag) and stamped with the source's
// source_stamp; a generated graph's spec (io/synthetic.hpp: the same
// graph every run) is key and stamp of its own. side_load returns nullopt when the
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
// 2: the source's ctime in the stamp; 3: an edge list's vertex names kept (a
// flag in the header, the names where the integer ids go); 4: the first set
// of a bipartite reading (read_options::bipartite); 5: an edge list of one
// line of names is that edge (it read as a header, an empty graph), a comment
// naming the columns (Netzschleuder's) read as their header; 6: with --names
// a first line of words over ids is an edge, a Pajek *Matrix short of rows
// and a GraphML <data> of an undeclared key are refused (their old entries
// hold the graphs read before); 7: a first line of column words between
// blanks whose words return as vertices is the first edge ('u v' then 'v w'),
// 'A B' then 'B 1' a list of names, and --names takes any field as a name.
// Another reading of a source
// (cache_options::reading) is another file, not another version.
constexpr unsigned cache_format_version = 7;
constexpr unsigned rank_cache_format_version = 7;

namespace detail {
// Removes perron's own cache temporaries in `dir` untouched for an hour by the
// clock that stamped `fresh` (the temporary a write just made; cache.cpp).
void sweep_stale_temporaries(const std::string& dir, const std::string& fresh);
}  // namespace detail

}  // namespace perron::io
