#include "apps/common/dist_load.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>

#include "apps/common/timer.hpp"
#include "core/error.hpp"
#include "io/cache.hpp"
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
dist::local_arcs load_in_parts(const std::string& path, bool weighted, const io::read_options& opt,
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
  dist::local_arcs a = dist::exchange_arcs(slice, h.rows, weighted, m);
  info.build_seconds = step.lap();
  return a;
}

// Rank 0 reads the whole input and hands each rank its 1/P of the arcs in
// order (dist::scatter_arcs): the other ranks never hold the whole graph.
// Not through the single-process cache (the per-rank cache serves the next run).
dist::local_arcs load_whole(const std::string& path, bool weighted, io::read_options opt,
                            const dist::session& world, dist_input& info) {
  stopwatch step;
  io::loaded_matrix& m = info.meta;
  opt.cache.enabled = false;
  dist::phase([&] {
    if (world.rank() != 0) return;
    m = io::load_matrix(path, opt);
    check_square(m.matrix.rows, m.matrix.cols);
  });
  // What every rank needs of the input: its size, what the summary shows, the vertex names.
  std::vector<std::int64_t> facts = {m.matrix.rows, static_cast<std::int64_t>(m.format), m.pattern,
                                     m.symmetric};
  dist::broadcast(facts);
  dist::broadcast(m.label);
  const auto n = static_cast<index_t>(facts[0]);
  m.format = static_cast<io::input_format>(facts[1]);
  m.pattern = facts[2] != 0;
  m.symmetric = facts[3] != 0;
  info.load_seconds = step.lap();
  const dist::arc_slice all{m.matrix.row_idx.data(), m.matrix.col_idx.data(), m.matrix.values.data(),
                            m.matrix.nnz()};
  dist::arc_copy mine = dist::scatter_arcs(all, weighted);
  m.matrix = coo_matrix<double>{};  // rank 0's whole graph, gone before the exchange
  m.matrix.rows = m.matrix.cols = n;
  dist::local_arcs a = dist::exchange_arcs(mine.slice(), n, weighted, dist::mirror::none, m.label);
  info.build_seconds = step.lap();
  return a;
}

// Rank 0 prints every rank's warning (the others' stderr is closed), one line each.
void warn_all(const std::string& mine, const dist::session& world) {
  const std::vector<std::string> all = dist::all_strings(mine);
  if (world.rank() != 0) return;
  for (std::size_t p = 0; p < all.size(); ++p)
    if (!all[p].empty()) std::cerr << "perron: warning: rank " << p << ": " << all[p] << '\n';
}

std::uint64_t hash_of(const std::vector<index_t>& first) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the values
  for (index_t x : first) h = (h ^ static_cast<std::uint32_t>(x)) * 0x100000001b3ULL;
  return h;
}

// Collective: every rank's part from the per-rank cache, or nullopt on every
// rank when any rank has none (absent, stale, corrupt, another partition);
// the reasons printed by rank 0.
std::optional<io::rank_part> cached_part(const std::string& path, const io::rank_part_key& key,
                                         const io::read_options& opt, const dist::session& world) {
  std::optional<io::rank_part> part;
  std::string why;
  try {
    part = io::rank_cache_load(path, key, opt.cache, opt.threads, why);
  } catch (const std::exception& x) {  // out of memory, say: the cache is optional
    part.reset();
    why = std::string("cannot read its cached part (") + x.what() + ")";
  }
  const std::uint64_t hits = dist::total_sum(part ? 1 : 0), P = static_cast<std::uint64_t>(world.size());
  const bool same = dist::same_everywhere(part ? hash_of(part->first) : 0);
  if (!why.empty()) why += "; re-reading the input on every rank";
  const std::vector<std::string> all = dist::all_strings(why);
  const bool told = std::any_of(all.begin(), all.end(), [](const std::string& x) { return !x.empty(); });
  if (world.rank() == 0) {
    for (std::size_t p = 0; p < all.size(); ++p)
      if (!all[p].empty()) std::cerr << "perron: warning: rank " << p << ": " << all[p] << '\n';
    // Reasons nobody gave: a part missing (deleted, or another host's cache folder), or parts of two runs.
    if (hits == P && !same)
      std::cerr << "perron: warning: the ranks' cached parts come from different partitions; re-reading the "
                   "input on every rank\n";
    else if (hits > 0 && hits < P && !told)
      std::cerr << "perron: warning: only " << hits << " of " << P
                << " ranks have a cached part; re-reading the input on every rank\n";
  }
  if (hits != P || !same) return std::nullopt;
  return part;
}

// Collective: this rank's arcs into its cache entry (before finish_graph
// turns them into P^T), then, once every rank has written its part, rank 0
// removes the parts kept for another number of ranks.
void store_part(const std::string& path, const io::source_stamp& stamp, const io::rank_part_key& key,
                const io::read_options& opt, const dist::session& world, dist::local_arcs& a,
                dist_input& info) {
  stopwatch w;
  io::rank_part p;
  p.format = info.meta.format;
  p.pattern = info.meta.pattern;
  p.symmetric = info.meta.symmetric;
  p.n = a.n;
  p.first = a.first;
  p.rows = std::move(a.at);
  p.label = std::move(info.meta.label);
  std::string why;
  try {
    why = io::rank_cache_store(path, stamp, key, p, opt.cache, opt.threads);
  } catch (const std::exception& x) {  // e.g. out of memory for the checksum: the cache is optional
    why = x.what();
  }
  a.at = std::move(p.rows);
  info.meta.label = std::move(p.label);
  warn_all(why, world);
  if (dist::total_sum(why.empty() ? 1 : 0) == static_cast<std::uint64_t>(world.size()) && world.rank() == 0)
    io::rank_cache_prune(path, key, opt.cache);
  info.meta.timings.cache_seconds = w.seconds();
}

}  // namespace

template <class T>
dist::local_graph<T> load_distributed(const std::string& path, bool weighted, const io::read_options& opt,
                                      const dist::session& world, dist_input& info) {
  // Every rank must take the same path (they all enter its collectives).
  const io::rank_part_key key{world.size(), world.rank(), weighted};
  const bool cached = opt.cache.enabled && !io::is_synthetic_spec(path);
  std::optional<io::source_stamp> stamp;
  if (cached) {
    stopwatch w;
    stamp = io::stamp_of(path);  // before the read: a file changed meanwhile is not cached
    if (std::optional<io::rank_part> p = cached_part(path, key, opt, world)) {
      info.meta.format = p->format;
      info.meta.pattern = p->pattern;
      info.meta.symmetric = p->symmetric;
      info.meta.label = std::move(p->label);
      info.meta.matrix.rows = info.meta.matrix.cols = p->n;
      info.meta.timings.from_cache = true;
      dist::local_arcs a;
      a.n = p->n;
      a.first = std::move(p->first);
      a.lo = a.first[static_cast<std::size_t>(world.rank())];
      a.hi = a.first[static_cast<std::size_t>(world.rank()) + 1];
      a.at = std::move(p->rows);
      info.from_cache = true;
      info.load_seconds = info.meta.timings.cache_seconds = w.lap();
      dist::local_graph<T> g = dist::finish_graph<T>(std::move(a), weighted, info.meta.label);
      info.build_seconds = w.lap();
      return g;
    }
  }
  const bool mine = !io::is_synthetic_spec(path) && io::mm_file_part::splittable(path);
  info.in_parts = dist::total_sum(mine ? 1 : 0) == static_cast<std::uint64_t>(world.size());
  dist::local_arcs a = info.in_parts ? load_in_parts(path, weighted, opt, world, info)
                                     : load_whole(path, weighted, opt, world, info);
  if (cached && dist::total_sum(stamp ? 1 : 0) == static_cast<std::uint64_t>(world.size()))
    store_part(path, *stamp, key, opt, world, a, info);
  stopwatch w;
  dist::local_graph<T> g = dist::finish_graph<T>(std::move(a), weighted, info.meta.label);
  info.build_seconds += w.seconds();
  return g;
}

template dist::local_graph<float> load_distributed<float>(const std::string&, bool, const io::read_options&,
                                                          const dist::session&, dist_input&);
template dist::local_graph<double> load_distributed<double>(const std::string&, bool, const io::read_options&,
                                                            const dist::session&, dist_input&);

}  // namespace perron::app
