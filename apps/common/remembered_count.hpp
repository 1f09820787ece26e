// A count kept beside a graph's cache entry for the next run: how many
// iterations the last solve of a setting took, which the device model cannot
// see in the graph's size (solvers/device_choice.hpp; the bound is 1.5-5x the
// count on real graphs). One side file per tag (io::side_store), a line per
// key ("alpha 0.85 tol 1e-06 ... iterations "), at most 16 lines.
#pragma once

#include <optional>
#include <string>

#include "io/cache.hpp"

namespace perron::app {

// The count stored for key, if any, and within [1, max].
std::optional<int> remembered_count(const std::string& graph, const io::cache_options& cache,
                                    const std::string& tag, const std::string& key, int max);

// Keeps count for key (its line replaced, the others kept). A hint: where it
// cannot be kept, a warning and nothing else.
void remember_count(const std::string& graph, const io::cache_options& cache, const std::string& tag,
                    const std::string& key, int count);

}  // namespace perron::app
