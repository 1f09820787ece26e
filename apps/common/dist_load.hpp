// The input of a distributed PageRank (mpirun -np P pagerank): each rank
// reads its share of the graph and solvers/dist builds its rows of P^T.
//
// A plain coordinate Matrix Market file is read in parts: rank p parses the
// lines starting in the p-th 1/P of the body's bytes (io::mm_file_part), so
// no rank ever holds the whole file or graph. Other inputs (.gz, .tar.gz,
// SNAP edge lists, whose ids are renumbered over the whole file, synthetic
// specs, array files) are read whole by every rank, which then keeps its
// 1/P slice of the arcs: the same graph, with the memory of a single-process
// load on each rank while it lasts. The binary cache serves that fallback
// only.
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
  bool in_parts = false;                       // read by byte ranges (else whole on every rank)
  double load_seconds = 0, build_seconds = 0;  // this rank's: read and parse; exchange and P^T rows
  std::uint64_t text_bytes = 0;                // this rank's bytes of text (in parts)
};

// Collective; errors agreed by every rank ("rank R: ..."), as dist::phase.
template <class T>
dist::local_graph<T> load_distributed(const std::string& path, bool weighted, const io::read_options& opt,
                                      const dist::session& world, dist_input& info);

}  // namespace perron::app
