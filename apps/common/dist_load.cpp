#include "apps/common/dist_load.hpp"

#include <algorithm>
#include <memory>

#include "apps/common/timer.hpp"
#include "core/error.hpp"
#include "io/matrix_market.hpp"
#include "io/synthetic.hpp"

namespace perron::app {
namespace {

void check_square(index_t rows, index_t cols) {
  // The message of make_pagerank_graph.
  if (rows != cols)
    throw dimension_error("PageRank needs a square adjacency matrix (vertices x vertices), got " +
                          std::to_string(rows) + " x " + std::to_string(cols));
}

// Rank p's part of a plain Matrix Market file: read, line numbers from the
// parts before (one exclusive scan), parse, count against the size line.
template <class T>
dist::local_graph<T> load_in_parts(const std::string& path, bool weighted, const io::read_options& opt,
                                   const dist::session& world, dist_input& info) {
  stopwatch step;
  std::unique_ptr<io::mm_file_part> part;
  dist::phase([&] { part = std::make_unique<io::mm_file_part>(path, world.rank(), world.size()); });
  const std::uint64_t first_line = part->body_line() + dist::exclusive_sum(part->lines());
  coo_matrix<double> arcs;
  dist::phase([&] { arcs = part->parse(first_line, opt); });
  const std::uint64_t before = dist::exclusive_sum(arcs.nnz()), total = dist::total_sum(arcs.nnz());
  dist::phase([&] {
    part->check_count(before, arcs.nnz(), total, first_line);
    check_square(part->header().rows, part->header().cols);
  });
  const io::mm_header h = part->header();
  info.text_bytes = part->text_bytes();
  info.meta.format = io::input_format::matrix_market;
  info.meta.pattern = h.field == io::mm_field::pattern;
  info.meta.symmetric = h.symmetry != io::mm_symmetry::general;
  info.meta.timings.file_bytes = part->file_bytes();
  info.meta.timings.text_bytes = part->text_bytes();
  info.meta.timings.read_seconds = part->read_seconds();
  part.reset();
  info.load_seconds = step.lap();
  info.meta.timings.parse_seconds = info.load_seconds - info.meta.timings.read_seconds;
  const dist::mirror m = h.symmetry == io::mm_symmetry::general     ? dist::mirror::none
                         : h.symmetry == io::mm_symmetry::symmetric ? dist::mirror::symmetric
                                                                    : dist::mirror::skew;
  const dist::arc_slice slice{arcs.row_idx.data(), arcs.col_idx.data(), arcs.values.data(), arcs.nnz()};
  dist::local_graph<T> g = dist::distribute_graph<T>(slice, h.rows, weighted, m);
  info.build_seconds = step.lap();
  return g;
}

// Every rank reads the whole input, then keeps its 1/P slice of the arcs.
template <class T>
dist::local_graph<T> load_whole(const std::string& path, bool weighted, const io::read_options& opt,
                                const dist::session& world, dist_input& info) {
  stopwatch step;
  io::loaded_matrix& m = info.meta;
  dist::phase([&] {
    m = io::load_matrix(path, opt);
    check_square(m.matrix.rows, m.matrix.cols);
  });
  info.load_seconds = step.lap();
  const std::size_t nnz = m.matrix.nnz(), P = static_cast<std::size_t>(world.size()),
                    p = static_cast<std::size_t>(world.rank());
  const std::size_t from = nnz / P * p + std::min(p, nnz % P),
                    to = nnz / P * (p + 1) + std::min(p + 1, nnz % P);
  const dist::arc_slice slice{m.matrix.row_idx.data() + from, m.matrix.col_idx.data() + from,
                              m.matrix.values.data() + from, to - from};
  dist::local_graph<T> g =
      dist::distribute_graph<T>(slice, m.matrix.rows, weighted, dist::mirror::none, m.label);
  const index_t n = m.matrix.rows;
  m.matrix = coo_matrix<double>{};
  m.matrix.rows = m.matrix.cols = n;
  info.build_seconds = step.lap();
  return g;
}

}  // namespace

template <class T>
dist::local_graph<T> load_distributed(const std::string& path, bool weighted, const io::read_options& opt,
                                      const dist::session& world, dist_input& info) {
  // Every rank must take the same path (they all enter its collectives).
  const bool mine = !io::is_synthetic_spec(path) && io::mm_file_part::splittable(path);
  info.in_parts = dist::total_sum(mine ? 1 : 0) == static_cast<std::uint64_t>(world.size());
  return info.in_parts ? load_in_parts<T>(path, weighted, opt, world, info)
                       : load_whole<T>(path, weighted, opt, world, info);
}

template dist::local_graph<float> load_distributed<float>(const std::string&, bool, const io::read_options&,
                                                          const dist::session&, dist_input&);
template dist::local_graph<double> load_distributed<double>(const std::string&, bool, const io::read_options&,
                                                            const dist::session&, dist_input&);

}  // namespace perron::app
