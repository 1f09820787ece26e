// The input of a distributed PageRank (mpirun -np P pagerank): each rank
// reads its share of the graph and solvers/dist builds its rows of P^T.
//
// A plain coordinate Matrix Market file is read in parts: rank p parses the
// lines starting in the p-th 1/P of the body's bytes (io::mm_file_part), so
// no rank ever holds the whole file or graph. The other inputs are read whole
// by rank 0, which sends rank p its p-th 1/P of the arcs in order (then frees
// its copy, before the all-to-all): the other ranks hold 1/P, rank 0 the
// whole COO (16 bytes per arc, plus 8 per vertex of SNAP names) while it
// reads. Why they are not read in parts:
//   .gz, .tar.gz   a deflate stream decodes only from its start (blocks refer
//                  32 KiB back, and begin at no known byte); io/parallel_inflate
//                  guesses block starts within one process, not across hosts;
//   SNAP (.txt)    ids are renumbered in order of first appearance over the
//                  whole file, so no arc's id is known before the lines before it;
//   specs (rmat:)  duplicates are merged over all draws (io/synthetic);
//   array files    dense, small.
// A second run on the same file and P reads the per-rank cache instead, for
// these inputs too: no rank reads the whole graph then.
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
  double load_seconds = 0, build_seconds = 0;  // this rank's: read and parse; exchange and P^T rows
  std::uint64_t text_bytes = 0;                // this rank's bytes of text (in parts)
};

// Collective; errors agreed by every rank ("rank R: ..."), as dist::phase.
template <class T>
dist::local_graph<T> load_distributed(const std::string& path, bool weighted, const io::read_options& opt,
                                      const dist::session& world, dist_input& info);

}  // namespace perron::app
