// dist::balanced_ranges (solvers/dist/pagerank_dist.hpp): plain arithmetic,
// built with or without MPI (the NCCL solver uses it too).
#include <algorithm>

#include "solvers/dist/pagerank_dist.hpp"

namespace perron::dist {
namespace {

constexpr index_t sum_block = pagerank_sum_block;  // solvers/pagerank.hpp

}  // namespace

std::vector<index_t> balanced_ranges(const std::vector<std::uint64_t>& block_links, index_t n, int parts) {
  const auto blocks = static_cast<index_t>(block_links.size());
  double links = 0;
  for (std::uint64_t c : block_links) links += double(c);
  std::vector<index_t> first(static_cast<std::size_t>(parts) + 1, n);
  first[0] = 0;
  // Rank p starts at the first block boundary with p / parts of the links before it.
  index_t b = 0;
  double before = 0;
  for (int p = 1; p < parts; ++p) {
    while (b < blocks && before < links * p / parts)
      before += double(block_links[static_cast<std::size_t>(b++)]);
    first[static_cast<std::size_t>(p)] = std::min(n, b * sum_block);
  }
  return first;
}

std::vector<index_t> balanced_ranges(const std::vector<index_t>& row_ptr, int parts) {
  const auto n = static_cast<index_t>(row_ptr.size() - 1);
  std::vector<std::uint64_t> block_links(static_cast<std::size_t>((n + sum_block - 1) / sum_block));
  for (std::size_t b = 0; b < block_links.size(); ++b)
    block_links[b] = static_cast<std::uint64_t>(
        row_ptr[std::min<std::size_t>(static_cast<std::size_t>(n), (b + 1) * sum_block)] -
        row_ptr[b * sum_block]);
  return balanced_ranges(block_links, n, parts);
}

}  // namespace perron::dist
