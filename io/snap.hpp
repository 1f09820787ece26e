// SNAP edge lists (.txt, .txt.gz): '#' comment lines, then "from to" pairs
// separated by tabs or spaces, 0-based ids that need not be contiguous. Ids are
// remapped to 0..n-1 in ascending order of original id (a monotone mapping), and
// the mapping is kept so outputs can name the original ids.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/formats.hpp"
#include "io/matrix_market.hpp"

namespace perron::io {

struct snap_graph {
  coo_matrix<double> matrix;              // arc i -> j is entry (i, j), value 1
  std::vector<std::int64_t> original_id;  // original_id[new id] = id in the file
};

// '%' lines count as comments too (KONECT-style lists); each data line holds
// exactly two non-negative integer ids. Self loops and duplicates are kept.
snap_graph read_snap(const std::string& path, const read_options& opt = {});

// The same over text in memory; `name` is what errors call the input.
snap_graph parse_snap(std::string_view text, const std::string& name, const read_options& opt = {});

namespace detail {
class text_windows;  // io/text_input.hpp
// parse_snap over text given window by window (a .gz file streamed).
snap_graph parse_snap_windows(text_windows& windows, const std::string& name, const read_options& opt);
// The edges of `text` (whole lines of an edge list, the first one numbered
// first_line) appended to src and dst as their original ids, in order: a
// list streamed by one process and parsed chunk by chunk by several
// (apps/common/dist_load.cpp), renumbered by the caller as parse_snap does
// (ascending original id). Errors as read_snap's, with their lines.
void parse_snap_chunk(std::string_view text, std::uint64_t first_line, const std::string& name,
                      const read_options& opt, std::vector<std::int64_t>& src,
                      std::vector<std::int64_t>& dst);
}  // namespace detail

}  // namespace perron::io
