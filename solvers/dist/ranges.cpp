// dist::balanced_ranges and dist::row_range (solvers/dist/pagerank_dist.hpp):
// plain arithmetic, built with or without MPI (the NCCL solver uses both).
#include <algorithm>
#include <cmath>

#include "solvers/dist/pagerank_dist.hpp"
#include "solvers/dist/pagerank_nccl.hpp"

namespace perron::dist {
namespace {

constexpr index_t sum_block = pagerank_sum_block;  // solvers/pagerank.hpp

}  // namespace

namespace {

// Part p starts at the first block boundary with share(p) of the links before it.
template <class Share>
std::vector<index_t> cut_at_shares(const std::vector<std::uint64_t>& block_links, index_t n, int parts,
                                   Share share) {
  const auto blocks = static_cast<index_t>(block_links.size());
  double links = 0;
  for (std::uint64_t c : block_links) links += double(c);
  std::vector<index_t> first(static_cast<std::size_t>(parts) + 1, n);
  first[0] = 0;
  index_t b = 0;
  double before = 0;
  for (int p = 1; p < parts; ++p) {
    while (b < blocks && before < links * share(p))
      before += double(block_links[static_cast<std::size_t>(b++)]);
    first[static_cast<std::size_t>(p)] = std::min(n, b * sum_block);
  }
  return first;
}

}  // namespace

std::vector<index_t> balanced_ranges(const std::vector<std::uint64_t>& block_links, index_t n, int parts) {
  return cut_at_shares(block_links, n, parts, [&](int p) { return double(p) / parts; });
}

std::vector<std::uint64_t> block_links_of(const std::vector<index_t>& row_ptr) {
  const auto n = static_cast<std::size_t>(row_ptr.size() - 1);
  std::vector<std::uint64_t> links((n + sum_block - 1) / sum_block);
  for (std::size_t b = 0; b < links.size(); ++b)
    links[b] = static_cast<std::uint64_t>(row_ptr[std::min(n, (b + 1) * sum_block)] - row_ptr[b * sum_block]);
  return links;
}

namespace {

// Each block's cost: its links plus links_per_row for each of its rows.
std::vector<std::uint64_t> with_row_cost(const std::vector<std::uint64_t>& block_links, index_t n,
                                         double links_per_row) {
  const auto nn = static_cast<std::size_t>(n);
  std::vector<std::uint64_t> cost(block_links.size());
  for (std::size_t b = 0; b < cost.size(); ++b) {
    const std::size_t rows = std::min(nn, (b + 1) * sum_block) - std::min(nn, b * sum_block);
    cost[b] = block_links[b] + static_cast<std::uint64_t>(std::llround(links_per_row * double(rows)));
  }
  return cost;
}

// Rows [lo, hi) (lo on a block) cut into `parts` ranges of equal cost, the
// last of last_weight times the others' cost.
std::vector<index_t> cut_range(const std::vector<std::uint64_t>& cost, index_t lo, index_t hi, int parts,
                               double last_weight = 1.0) {
  const auto b0 = std::min(cost.size(), static_cast<std::size_t>(lo / sum_block));
  const auto b1 =
      std::min(cost.size(), std::max(b0, static_cast<std::size_t>((hi + sum_block - 1) / sum_block)));
  const double total = parts - 1 + last_weight;  // parts - 1 of weight 1, then the last
  std::vector<index_t> first =
      cut_at_shares(std::vector<std::uint64_t>(cost.begin() + static_cast<std::ptrdiff_t>(b0),
                                               cost.begin() + static_cast<std::ptrdiff_t>(b1)),
                    hi - lo, parts, [&](int p) { return double(p) / total; });
  for (index_t& f : first) f += lo;  // lo is a multiple of sum_block: so are the cuts
  return first;
}

}  // namespace

std::vector<index_t> balanced_ranges(const std::vector<index_t>& row_ptr, int parts, double links_per_row) {
  const auto n = static_cast<index_t>(row_ptr.size() - 1);
  return balanced_ranges(with_row_cost(block_links_of(row_ptr), n, links_per_row), n, parts);
}

std::vector<index_t> balanced_ranges(const std::vector<index_t>& row_ptr, index_t lo, index_t hi, int parts,
                                     double links_per_row) {
  const auto n = static_cast<index_t>(row_ptr.size() - 1);
  return cut_range(with_row_cost(block_links_of(row_ptr), n, links_per_row), lo, hi, parts);
}

// A chunk of r's exchange per 32 MB each GPU receives: a chunk costs a pull
// launch, an update and an NCCL group (tens of us); at ~300 GB/s between
// GPUs 32 MB move in ~0.1 ms, so each chunk's exchange hides behind the next
// chunk's pull and only the last one's stays in the step.
int exchange_chunks(index_t vertices, int gpus, std::size_t value_bytes) {
  if (gpus < 2) return 1;  // nothing to exchange
  const double received = double(vertices) * double(value_bytes) * (1.0 - 1.0 / gpus);
  return static_cast<int>(std::clamp(std::floor(received / 32e6), 1.0, double(max_exchange_chunks)));
}

std::uint64_t largest_chunk(std::uint64_t links, int chunks) {
  if (chunks <= 1) return links;
  return static_cast<std::uint64_t>(std::ceil(double(links) / (chunks - 1 + last_chunk_weight)));
}

int piece_chunks(int chunks, std::uint64_t links_per_gpu, const std::function<bool(int)>& fits) {
  // A tenth to spare: the cut balances links plus rows, so a GPU may hold a
  // little more than the average of links.
  const double limit = 0.9 * double(max_index);
  int k = std::max(chunks, 1);
  const auto too_large = [&](int c) { return double(largest_chunk(links_per_gpu, c)) > limit; };
  while (k < max_exchange_chunks && too_large(k)) ++k;
  if (too_large(k)) return 0;
  while (k < max_exchange_chunks && !fits(k)) ++k;
  return k;
}

double nccl_gpu_bytes(index_t vertices, index_t rows, std::uint64_t links, std::uint64_t largest_chunk_links,
                      int gpus, std::size_t value_bytes, int max_iter) {
  const double b = double(value_bytes), n = double(vertices);
  const double blocks = std::ceil(n / sum_block) + 1;  // a GPU's partial pairs, padded: at most all
  return (4.0 + b) * double(links + largest_chunk_links) + (4.0 + b + 8.0 + 1.0) * double(rows) +
         2.0 * b * n + 16.0 * blocks * gpus + 8.0 * max_iter + 768e6;
}

std::vector<index_t> nccl_cut(const std::vector<std::uint64_t>& block_links, index_t n, int gpus, int chunks,
                              double row_cost) {
  const std::vector<std::uint64_t> cost = with_row_cost(block_links, n, row_cost);
  const std::vector<index_t> first = balanced_ranges(cost, n, gpus);
  std::vector<index_t> cut;
  for (int d = 0; d < gpus; ++d) {
    const std::vector<index_t> c = cut_range(cost, first[d], first[d + 1], chunks, last_chunk_weight);
    cut.insert(cut.end(), c.begin(), c.end() - 1);
  }
  cut.push_back(n);
  return cut;
}

template <class T>
csr_matrix<T> pt_rows(csr_pieces& at, std::size_t k, const std::vector<std::uint32_t>& out_degree) {
  csr_matrix<T> m;
  m.rows = at.first[k + 1] - at.first[k];
  m.cols = at.cols;
  m.row_ptr = std::move(at.row_ptr[k]);
  m.col_idx = std::move(at.col_idx[k]);
  m.values.resize(m.col_idx.size());
  const index_t* col = m.col_idx.data();
  T* value = m.values.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < static_cast<std::int64_t>(m.col_idx.size()); ++e)
    value[e] = static_cast<T>(1.0 / static_cast<double>(out_degree[static_cast<std::size_t>(col[e])]));
  return m;
}

template csr_matrix<float> pt_rows(csr_pieces&, std::size_t, const std::vector<std::uint32_t>&);
template csr_matrix<double> pt_rows(csr_pieces&, std::size_t, const std::vector<std::uint32_t>&);

std::vector<index_t> columns_outside(const index_t* first, const index_t* last, index_t n, index_t lo,
                                     index_t hi) {
  // One flag a column (n bytes, as much as a quarter of r in float): the
  // columns come sorted and unique without sorting the links.
  std::vector<std::uint8_t> read(static_cast<std::size_t>(n), 0);
  for (const index_t* j = first; j != last; ++j)
    if (*j < lo || *j >= hi) read[static_cast<std::size_t>(*j)] = 1;
  std::vector<index_t> out;
  for (index_t j = 0; j < n; ++j)
    if (read[static_cast<std::size_t>(j)]) out.push_back(j);
  return out;
}

template <class T>
std::vector<index_t> columns_outside(const csr_matrix<T>& rows, index_t lo, index_t hi) {
  return columns_outside(rows.col_idx.data(), rows.col_idx.data() + rows.col_idx.size(), rows.cols, lo, hi);
}

template std::vector<index_t> columns_outside(const csr_matrix<float>&, index_t, index_t);
template std::vector<index_t> columns_outside(const csr_matrix<double>&, index_t, index_t);

template <class T>
csr_matrix<T> row_range(const csr_matrix<T>& pt, index_t lo, index_t hi) {
  const index_t b = pt.row_ptr[lo], e = pt.row_ptr[hi];
  csr_matrix<T> rows;
  rows.rows = hi - lo;
  rows.cols = pt.cols;
  rows.row_ptr.resize(static_cast<std::size_t>(rows.rows) + 1);
  rows.col_idx.resize(static_cast<std::size_t>(e - b));
  rows.values.resize(static_cast<std::size_t>(e - b));
  for (index_t i = lo; i <= hi; ++i) rows.row_ptr[i - lo] = pt.row_ptr[i] - b;
    // On every core: a billion links on one thread took seconds of --gpus' start.
#pragma omp parallel for schedule(static)
  for (index_t k = b; k < e; ++k) {
    rows.col_idx[k - b] = pt.col_idx[k];
    rows.values[k - b] = pt.values[k];
  }
  return rows;
}

template csr_matrix<float> row_range(const csr_matrix<float>&, index_t, index_t);
template csr_matrix<double> row_range(const csr_matrix<double>&, index_t, index_t);

}  // namespace perron::dist
