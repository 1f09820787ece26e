// Per-vertex vectors from files: the PageRank personalization (--personalize),
// the initial guess (--initial), any one-weight-per-vertex input. The solvers
// take the vectors in memory; reading them is io's job, like every format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../core/formats.hpp"
#include "../core/vertex_naming.hpp"

namespace perron::io {

// Reads one weight per vertex from either a Matrix Market array file (n values
// in vertex order) or text lines "vertex weight" (tab or spaces; '#' and '%'
// comments and blank lines skipped) where vertex is named as in the graph file
// (label; empty label = 1-based Matrix Market numbering); unlisted vertices
// get 0. Errors (io_error for an unreadable file, parse_error with file and
// line, dimension_error for a wrong length): unknown or repeated vertex,
// malformed number, negative / NaN / infinite weight, wrong count. All-zero is
// left to the solver's checks (normalized_distribution).
std::vector<double> read_vertex_weights(const std::string& path, index_t n, const vertex_naming& label);

}  // namespace perron::io
