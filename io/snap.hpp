// SNAP edge lists (.txt, .txt.gz): '#' comment lines, then "from to" pairs
// separated by tabs or spaces, 0-based ids that need not be contiguous. Ids are
// remapped to 0..n-1 in ascending order of original id (a monotone mapping), and
// the mapping is kept so outputs can name the original ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/matrix_market.hpp"
#include "kernels/formats.hpp"

namespace perron::io {

struct snap_graph {
  coo_matrix<double> matrix;              // arc i -> j is entry (i, j), value 1
  std::vector<std::int64_t> original_id;  // original_id[new id] = id in the file
};

snap_graph read_snap(const std::string& path, const read_options& opt = {});

}  // namespace perron::io
