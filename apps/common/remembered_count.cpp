// Counts kept beside a graph's cache entry (apps/common/remembered_count.hpp).
#include "apps/common/remembered_count.hpp"

#include <cstdlib>
#include <sstream>

namespace perron::app {

std::optional<int> remembered_count(const std::string& graph, const io::cache_options& cache,
                                    const std::string& tag, const std::string& key, int max) {
  const std::optional<std::string> text = io::side_load(graph, cache, tag);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, key.size(), key) == 0) {
      char* end = nullptr;
      const long k = std::strtol(line.c_str() + key.size(), &end, 10);
      if (end != line.c_str() + key.size() && k >= 1 && k <= max) return static_cast<int>(k);
    }
  return std::nullopt;
}

void remember_count(const std::string& graph, const io::cache_options& cache, const std::string& tag,
                    const std::string& key, int count) {
  if (count < 1) return;
  std::string kept = key + std::to_string(count) + "\n";
  std::istringstream in(io::side_load(graph, cache, tag).value_or(""));
  int lines = 1;
  for (std::string line; std::getline(in, line) && lines < 16;)
    if (!line.empty() && line.compare(0, key.size(), key) != 0) {
      kept += line + "\n";
      ++lines;
    }
  io::side_store(graph, cache, tag, kept);
}

}  // namespace perron::app
