// The input of a distributed PageRank (mpirun -np P pagerank): each rank
// reads its share of the graph and solvers/dist builds its rows of P^T.
//
// Which rank holds what while the input is read (first run, no cache):
//   plain coordinate .mtx   in parts: rank p parses the lines starting in the
//                           p-th 1/P of the body's bytes (io::mm_file_part);
//   .mtx.gz, SNAP .txt and  streamed: rank 0 reads the text window by window
//   .txt.gz (any gzip or    (a gzip file inflated as it goes; windows of
//   plain text that is not  whole lines, a quarter of a rank's share, 1-32
//   splittable .mtx), a     MiB) and sends them out in order, the first 1/P
//   .tar.gz whose main .mtx
//   comes before any other
//                           of the text to itself, the next 1/P to rank 1 and
//                           so on, each with its first line's number (and,
//                           for Matrix Market, the entry lines before it);
//                           every rank parses its windows with the
//                           single-process parse loops (io::detail::
//                           parse_mm_stream_chunk, parse_snap_chunk). Rank 0
//                           holds its own part plus a few windows, never the
//                           whole graph. SNAP ids are renumbered as the single-
//                           process reader does (by ascending original id):
//                           the distinct ids merged rank after rank into a
//                           list of n on every rank (the vertex names, which
//                           every rank holds anyway);
//   generated graphs of     drawn by every rank: rank p makes its p-th 1/P
//   draws (rmat:, er:,      of the draws (io::synthetic_draws), in draw order,
//   powerlaw:, hub:,        duplicates kept for exchange_arcs to merge; no
//   dangling:, web:)        rank generates the whole graph;
//   grid:, chain:, --weighted read whole by rank 0, which sends rank p its p-th
//   specs, `array` files,   1/P of the arcs in order (dist::scatter_arcs)
//   a .tar.gz whose main    and frees its copy before the all-to-all: rank 0
//   .mtx comes after        holds the whole COO (16 bytes per arc) while it
//   another .mtx, what is   reads. Arrays are dense and small; such an
//   not a regular file      archive's member is chosen only after all members
//                           are seen.
// The arcs reach exchange_arcs in file order in every case (rank p's before
// rank p + 1's), so the graph is bitwise the single-process one, and a bad
// line is reported at its true line by the rank that parsed it.
// A second run on the same file and P reads the per-rank cache instead, for
// every input that is a file: no rank reads the whole graph then.
//
// The per-rank cache (io/cache.hpp, rank_part; on unless --no-cache): after
// the all-to-all each rank writes its arcs (rows of A^T), keyed by the file,
// P, its rank and weighting; the next run with the same file and P reads
// them back on every rank and skips the parse and the exchange, for every
// kind of file (not synthetic specs, which are no file). A rank whose part
// is absent, stale, corrupt or of another partition makes every rank read
// the input again (with a warning from rank 0 naming the rank); a change of
// P removes the parts of the old P (on rank 0's cache folder).
#pragma once

#include <cstdint>
#include <string>

#include "io/load.hpp"
#include "solvers/dist/pagerank_dist.hpp"

namespace perron::app {

struct dist_input {
  // What the summary shows of the input (format, pattern, symmetric, labels;
  // the matrix holds only its dimensions).
  io::loaded_matrix meta;
  bool in_parts = false;                       // read by byte ranges
  bool streamed = false;                       // streamed by rank 0 in windows (else whole by rank 0)
  bool from_cache = false;                     // every rank's part from the per-rank cache
  bool generated = false;                      // a generated graph, each rank drawing its share
  double load_seconds = 0, build_seconds = 0;  // this rank's: read and parse; exchange and P^T rows
  std::uint64_t text_bytes = 0;                // this rank's bytes of text (in parts)
};

// Collective; errors agreed by every rank ("rank R: ..."), as dist::phase.
template <class T>
dist::local_graph<T> load_distributed(const std::string& path, bool weighted, const io::read_options& opt,
                                      const dist::session& world, dist_input& info);

}  // namespace perron::app
