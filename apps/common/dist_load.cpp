#include "apps/common/dist_load.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "apps/common/timer.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "io/archive.hpp"
#include "io/cache.hpp"
#include "io/matrix_market.hpp"
#include "io/snap.hpp"
#include "io/synthetic.hpp"
#include "io/text_input.hpp"

namespace perron::app {
namespace {

void check_square(const std::string& input, index_t rows, index_t cols) {
  // The message of make_pagerank_graph, the input named as naming_input names it there.
  if (rows != cols)
    throw dimension_error(input + ": PageRank needs a square adjacency matrix (vertices x vertices), got " +
                          std::to_string(rows) + " x " + std::to_string(cols) +
                          "; rows and columns as two sets of vertices: --bipartite (Python: "
                          "read_matrix(..., bipartite=True))");
}

// How exchange_arcs makes a file's mirror arcs: a symmetric file's, or every
// arc's where the graph is read undirected (io::read_options::undirected;
// after every rank's arcs, as the single process appends them).
dist::mirror mirror_for(io::mm_symmetry s, bool undirected) {
  return s == io::mm_symmetry::symmetric        ? dist::mirror::symmetric
         : s == io::mm_symmetry::skew_symmetric ? dist::mirror::skew
         : undirected                           ? dist::mirror::symmetric
                                                : dist::mirror::none;
}

// exchange_arcs, after an agreed check that the graph has vertices: the error
// names the file or spec, as the single-process run's does (apps/pagerank.cpp
// require_vertices; the solver's own check cannot name it).
dist::local_arcs exchange(const std::string& name, const dist::arc_slice& arcs, index_t n, bool weighted,
                          dist::mirror m, const vertex_naming& label = {}) {
  dist::phase([&] {
    if (n == 0) throw invalid_argument(name + ": the graph is empty (0 vertices)");
  });
  return dist::exchange_arcs(arcs, n, weighted, m, label, name);
}

// A hash of 32 blocks of 4 KiB spread over the file `bytes` long (the first
// and the last among them), the same blocks on every rank. The ranks read
// disjoint parts, so two copies of one size and header (per-host copies, one
// with other weights) were parsed as one mixed graph and solved without a
// word: now they differ here wherever a sampled block does (an edit between
// the samples is still not seen).
std::string sampled_hash(const std::string& path, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "unreadable";
  constexpr std::uint64_t block = 4096, blocks = 32;
  std::vector<char> buf(block);
  std::uint64_t h = fnv1a_basis;
  const std::uint64_t span = bytes > block ? bytes - block : 0;
  for (std::uint64_t k = 0; k < blocks; ++k) {
    const ::ssize_t got = ::pread(fd, buf.data(), block, static_cast<off_t>(span * k / (blocks - 1)));
    if (got > 0) h = fnv1a(buf.data(), static_cast<std::size_t>(got), h);
  }
  ::close(fd);
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

// Rank p's part of a plain Matrix Market file: read, line numbers from the
// parts before (one exclusive scan), parse, count against the size line.
dist::local_arcs load_in_parts(const std::string& path, bool weighted, const io::read_options& opt,
                               const dist::session& world, dist_input& info) {
  stopwatch step;
  std::unique_ptr<io::mm_file_part> part;
  dist::phase([&] { part = std::make_unique<io::mm_file_part>(path, world.rank(), world.size()); });
  // Each rank read the header and cut the body by the size it saw itself:
  // copies that differ would be cut at different places.
  const io::mm_header& seen = part->header();
  const char* field[] = {"real", "integer", "pattern"};
  const char* symmetry[] = {"general", "symmetric", "skew-symmetric"};
  const std::string differ = dist::first_difference(
      std::to_string(part->file_bytes()) + " bytes, " + std::to_string(seen.rows) + " x " +
      std::to_string(seen.cols) + ", " + std::to_string(seen.entries) + " entries, " +
      field[static_cast<int>(seen.field)] + " " + symmetry[static_cast<int>(seen.symmetry)] +
      ", sampled bytes hashing to " + sampled_hash(path, part->file_bytes()));
  dist::phase([&] {
    if (!differ.empty())
      throw invalid_argument(path + ": the ranks read different files under this name (" + differ +
                             "): every rank must read the same file, unchanged while the run reads it");
  });
  const std::uint64_t first_line = part->body_line() + dist::exclusive_sum(part->lines());
  coo_matrix<double> arcs;
  dist::phase([&] { arcs = part->parse(first_line, opt); });
  const std::uint64_t before = dist::exclusive_sum(arcs.nnz()), total = dist::total_sum(arcs.nnz());
  dist::phase([&] {
    part->check_count(before, arcs.nnz(), total, first_line);
    check_square(path, part->header().rows, part->header().cols);
  });
  const io::mm_header h = part->header();
  info.text_bytes = part->text_bytes();
  info.meta.format = io::input_format::matrix_market;
  info.meta.pattern = h.field == io::mm_field::pattern;
  info.meta.symmetric = h.symmetry != io::mm_symmetry::general;
  // The graph's size, as the other loads set it: --personalize and --initial
  // check their vertices against it (left 0, every vertex was 'not in the
  // graph (vertices are numbered 1..0)').
  info.meta.matrix.rows = h.rows;
  info.meta.matrix.cols = h.cols;
  info.meta.timings.file_bytes = part->file_bytes();
  // The input's text, as one process counts it (the file: it is plain), not
  // rank 0's part of it (--json's text_bytes read 203 for a 1464-byte file).
  info.meta.timings.text_bytes = part->file_bytes();
  info.meta.timings.read_seconds = part->read_seconds();
  part.reset();
  info.load_seconds = step.lap();
  info.meta.timings.parse_seconds = info.load_seconds - info.meta.timings.read_seconds;
  const dist::mirror m = mirror_for(h.symmetry, opt.undirected);
  const dist::arc_slice slice{arcs.row_idx.data(), arcs.col_idx.data(), arcs.values.data(), arcs.nnz()};
  dist::local_arcs a = exchange(path, slice, h.rows, weighted, m);
  info.build_seconds = step.lap();
  return a;
}

// Rank 0 reads the whole input and hands each rank its 1/P of the arcs in
// A generated graph of draws (every family but grid: and chain:):
// each rank draws its own contiguous share of the draws (io::synthetic_draws,
// in draw order, rank p's before rank p + 1's as exchange_arcs expects) and
// exchange_arcs sends each arc to its target's rank, which merges the
// duplicates: the rows the single process builds (bitwise the same ranks),
// while no rank ever holds the whole graph (rank 0 generating it whole and
// sending out slices held 16 bytes a link on one host).
dist::local_arcs load_generated(const std::string& spec, bool undirected, const dist::session& world,
                                dist_input& info) {
  stopwatch step;
  io::loaded_matrix& m = info.meta;
  io::synthetic_size size;
  std::vector<index_t> source, target;
  dist::phase([&] {
    const io::synthetic_size drawn = io::synthetic_graph_size(spec);  // a malformed spec: one agreed error
    if (drawn.vertices == 0)
      throw invalid_argument(spec + ": the graph is empty (0 vertices)");  // before drawing
    size = drawn;
    const auto p = static_cast<std::uint64_t>(world.rank()), P = static_cast<std::uint64_t>(world.size());
    const std::uint64_t e0 = size.arcs / P * p + std::min(p, size.arcs % P);
    const std::uint64_t e1 = e0 + size.arcs / P + (p < size.arcs % P ? 1 : 0);
    if (e1 - e0 > max_index)
      throw invalid_argument("'" + spec + "': " + std::to_string(e1 - e0) + " draws on rank " +
                             std::to_string(p) + ", more than its 32-bit limit: run more ranks");
    io::synthetic_draws(spec, e0, e1, source, target);
  });
  m.format = io::input_format::synthetic;
  m.pattern = true;
  m.matrix.rows = m.matrix.cols = size.vertices;
  info.generated = true;
  info.load_seconds = step.lap();
  const dist::arc_slice mine{source.data(), target.data(), nullptr, source.size()};
  dist::local_arcs a = exchange(spec, mine, size.vertices, false,
                                undirected ? dist::mirror::symmetric : dist::mirror::none, m.naming());
  info.build_seconds = step.lap();
  return a;
}

// order (dist::scatter_arcs): the other ranks never hold the whole graph,
// rank 0 does while it reads. For specs, `array` files, an archive whose
// member is chosen after reading others, what is not a regular file, a
// graph read as two sets (--bipartite).
// Not through the single-process cache (the per-rank cache serves the next run).
dist::local_arcs load_whole(const std::string& path, bool weighted, io::read_options opt,
                            const dist::session& world, dist_input& info) {
  stopwatch step;
  io::loaded_matrix& m = info.meta;
  opt.cache.enabled = false;
  dist::phase([&] {
    if (world.rank() != 0) return;
    m = io::load_matrix(path, opt);
    check_square(path, m.matrix.rows, m.matrix.cols);
  });
  // What every rank needs of the input: its size, what the summary shows, the vertex names.
  std::vector<std::int64_t> facts = {m.matrix.rows, static_cast<std::int64_t>(m.format), m.pattern,
                                     m.symmetric};
  facts.push_back(!m.name.empty());
  facts.push_back(m.first_set);
  dist::broadcast(facts);
  dist::broadcast(m.label);
  const auto n = static_cast<index_t>(facts[0]);
  if (facts[4]) {  // an edge list of vertex names: the names too
    std::vector<std::int64_t> words = world.rank() == 0 ? pack_names(m.name) : std::vector<std::int64_t>{};
    dist::broadcast(words);
    // In a phase: a rank that throws outside one left rank 0 waiting in scatter_arcs.
    dist::phase([&] {
      if (world.rank() != 0 && !unpack_names(words, static_cast<std::size_t>(n), m.name))
        throw invalid_argument(path + ": the vertex names broadcast by rank 0 do not unpack");
    });
  }
  m.format = static_cast<io::input_format>(facts[1]);
  m.pattern = facts[2] != 0;
  m.symmetric = facts[3] != 0;
  m.first_set = static_cast<index_t>(facts[5]);
  info.load_seconds = step.lap();
  const dist::arc_slice all{m.matrix.row_idx.data(), m.matrix.col_idx.data(), m.matrix.values.data(),
                            m.matrix.nnz()};
  dist::arc_copy mine = dist::scatter_arcs(all, weighted);
  m.matrix = coo_matrix<double>{};  // rank 0's whole graph, gone before the exchange
  m.matrix.rows = m.matrix.cols = n;
  dist::local_arcs a = exchange(path, mine.slice(), n, weighted, dist::mirror::none, m.naming());
  info.build_seconds = step.lap();
  return a;
}

// ---- a compressed or SNAP text streamed by rank 0 -------------------------------
//
// Rank 0 reads the text window by window (a gzip file inflated as it goes, a
// plain file read a window at a time; each window whole lines) and hands
// the windows out in order: the first 1/P of the text (by the size the file
// announces: its length, or a gzip trailer's) to itself, the next to rank 1,
// and so on, the last rank taking what is left. So every rank's arcs come in
// file order, rank p's before rank p + 1's, as exchange_arcs expects, and
// the graph is bitwise the one the single-process reader builds (duplicates
// summed in the same order). Each window travels with the number of its
// first line and the entry lines before it (rank 0 counts them), so a rank
// reports a bad line, or the entry past the size line's count, at its true
// line; the lowest failing rank holds the first bad line in file order.
//
// Memory: rank 0 holds its own part, the window being sent and the
// inflater's few windows (io/text_input.hpp); the others their part and one
// window. The window: a quarter of a rank's share, 1-32 MiB (so small files
// still reach every rank); PERRON_DIST_WINDOW=bytes sets it (tests).

enum class stream_mode : std::int64_t { whole = 0, matrix_market = 1, snap = 2 };

// The text size the file announces: a gzip trailer's (mod 2^32: a larger
// text leaves the last rank more than its share), else the file's length.
std::uint64_t announced_text_bytes(const std::string& path, bool gzip) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (!gzip || size < 18) return size;
  std::ifstream f(path, std::ios::binary);
  unsigned char t[4] = {0, 0, 0, 0};
  f.seekg(-4, std::ios::end);
  f.read(reinterpret_cast<char*>(t), 4);
  const std::uint64_t isize =
      std::uint64_t(t[0]) | std::uint64_t(t[1]) << 8 | std::uint64_t(t[2]) << 16 | std::uint64_t(t[3]) << 24;
  return isize < size ? size * 4 : isize;  // wrapped past 4 GiB: a guess
}

std::size_t stream_window(std::uint64_t text_bytes, int ranks) {
  if (const char* e = std::getenv("PERRON_DIST_WINDOW"); e && *e) {
    const long long v = std::atoll(e);
    if (v > 0) return static_cast<std::size_t>(v);
  }
  const std::uint64_t share = text_bytes / (4 * static_cast<std::uint64_t>(ranks));
  return static_cast<std::size_t>(
      std::clamp<std::uint64_t>(share, std::uint64_t(1) << 20, std::uint64_t(32) << 20));
}

// What a rank parses of the stream: Matrix Market entries, or SNAP ids.
struct stream_part {
  io::detail::mm_stream_header mm;
  coo_matrix<double> entries;
  std::vector<std::int64_t> src, dst;
  io::detail::edge_columns columns;  // the edge list's lines' layout
  bool weights() const { return columns.weights(); }
  std::vector<double> w;  // then the weights, in the order of src and dst
  std::uint64_t text_bytes = 0;
};

void parse_window(stream_mode mode, std::string_view text, std::uint64_t first_line, std::uint64_t before,
                  const std::string& path, const io::read_options& opt, stream_part& part) {
  part.text_bytes += text.size();
  if (mode == stream_mode::matrix_market)
    io::detail::parse_mm_stream_chunk(part.mm, text, first_line, before, path, opt, part.entries);
  else
    io::detail::parse_snap_chunk(text, first_line, path, opt, part.columns, part.src, part.dst, part.w);
}

// SNAP: the ids renumbered as parse_snap does (new id = rank among all
// distinct ids), the distinct ids merged rank after rank into a list every
// rank holds (n values: the vertex names, as every rank holds them anyway).
dist::local_arcs snap_arcs(stream_part& part, bool weighted, bool undirected, const std::string& path,
                           const dist::session& world, dist_input& info) {
  const std::uint64_t edges = dist::total_sum(part.src.size());
  dist::phase([&] {
    if (world.rank() == 0 && edges > max_index)
      throw dimension_error(path + ": " + std::to_string(edges) +
                            " edges exceed perron's 32-bit index limit (" + std::to_string(max_index) + ")");
  });
  std::vector<std::int64_t> mine, all;
  dist::phase([&] {
    mine.reserve(2 * part.src.size());
    mine.insert(mine.end(), part.src.begin(), part.src.end());
    mine.insert(mine.end(), part.dst.begin(), part.dst.end());
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  });
  // Every rank then holds all the distinct ids, and a second list while it
  // merges another rank's: up to 16 bytes a distinct id (at most the ranks'
  // lists together) beside its edges and its own list (32 bytes a local
  // edge, 40 with its weight), checked before the merge allocates (a file whose parts parsed
  // within the memory could still fill a host here).
  const std::uint64_t distinct_bound = dist::total_sum(mine.size());
  dist::phase([&] {
    const double held = (part.weights() ? 40.0 : 32.0) * double(part.src.size());
    check_host_memory_holding(held + 16.0 * double(distinct_bound), held,
                              path + ": renumbering the vertex ids of its " + std::to_string(edges) +
                                  " edges (every rank holds the distinct ids)");
  });
  for (int p = 0; p < world.size(); ++p) {
    std::vector<std::int64_t> theirs;
    std::vector<std::int64_t>& v = p == world.rank() ? mine : theirs;
    dist::broadcast(v, p);
    dist::phase([&] {
      std::vector<std::int64_t> merged;
      merged.reserve(all.size() + v.size());
      std::set_union(all.begin(), all.end(), v.begin(), v.end(), std::back_inserter(merged));
      all.swap(merged);
    });
  }
  std::vector<std::int64_t>().swap(mine);
  dist::phase([&] {
    if (world.rank() == 0 && all.size() > max_index)
      throw dimension_error(path + ": " + std::to_string(all.size()) +
                            " distinct vertex ids exceed perron's 32-bit index limit");
  });
  dist::arc_copy a;
  dist::phase([&] {
    const auto map = [&](std::vector<std::int64_t>& from, std::vector<index_t>& to) {
      to.resize(from.size());
      for (std::size_t k = 0; k < from.size(); ++k)
        to[k] = static_cast<index_t>(std::lower_bound(all.begin(), all.end(), from[k]) - all.begin());
      std::vector<std::int64_t>().swap(from);
    };
    map(part.src, a.source);
    map(part.dst, a.target);
    if (weighted && part.weights())
      a.weight.swap(part.w);
    else if (weighted)
      a.weight.assign(a.source.size(), 1.0);
    std::vector<double>().swap(part.w);
  });
  const auto n = static_cast<index_t>(all.size());
  info.meta.label = std::move(all);
  info.meta.matrix.rows = info.meta.matrix.cols = n;
  return exchange(path, a.slice(), n, weighted, undirected ? dist::mirror::symmetric : dist::mirror::none,
                  info.meta.label);
}

// Collective. Rank 0 opens the input and reads its header; an input it
// cannot stream (not a regular file, one whose size reads 0, an `array`
// Matrix Market file) goes to load_whole.
dist::local_arcs load_streamed(const std::string& path, bool weighted, const io::read_options& opt,
                               const dist::session& world, dist_input& info) {
  stopwatch step;
  const int P = world.size(), me = world.rank();
  std::unique_ptr<io::detail::text_windows> windows;
  std::string_view first;   // rank 0: the first window's body
  std::string joined;       // rank 0: the first windows, when the header runs past one
  std::string name = path;  // what errors call the input: an archive's member too
  stream_part part;
  std::vector<std::int64_t> facts(10, 0);
  dist::phase([&] {
    if (me != 0) return;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;  // load_whole words the error
    // A size of 0 may hide content (procfs: /proc/self/status), which the windows, read by the
    // size, would miss: load_whole reads it to its end as a stream (or says it is empty).
    if (st.st_size == 0) return;
    const io::detail::packing packing = io::detail::packing_of(path);
    if (packing == io::detail::packing::compressed) return;  // bzip2, xz, zstd: load_whole decompresses it
    const bool gzip = packing == io::detail::packing::gzip || packing == io::detail::packing::gzip_tar;
    std::uint64_t total = std::max<std::uint64_t>(announced_text_bytes(path, gzip), 1);
    const std::size_t window = stream_window(total, P);
    const bool archive = io::detail::is_archive(packing);
    if (archive) {  // a SuiteSparse .tar.gz: its main .mtx member, when it comes first
      std::string member;
      windows = io::detail::open_archive_windows(path, window, member);
      if (!windows) return;  // read_archive_matrix picks the member (or says why not)
      name = path + ":" + member;
      if (windows->size_hint() > 0) total = windows->size_hint();
    } else {
      windows = gzip ? io::detail::open_gzip_windows(path, window, opt.threads)
                     : io::detail::open_file_windows(path, window);
    }
    first = windows->next();
    const io::input_format format =
        archive ? io::input_format::matrix_market : io::detect_input_format(first, name, opt.all_names);
    // GraphML, GML and Pajek files: read whole by rank 0 (their vertices are declared, not streamed).
    if (format != io::input_format::matrix_market && format != io::input_format::snap) return;
    const bool mm = format == io::input_format::matrix_market;
    // The header whole, however long its comments run (a window is 1 MiB for a
    // small file: under mpirun a .mtx.gz said 'missing size line' in its
    // comments, and an edge list's fields were counted from a comment).
    first = io::detail::through_header(first, *windows, joined, name, mm ? "%" : "#%", mm ? 1 : 2);
    if (mm) {
      part.mm = io::detail::parse_mm_stream_header(first, name);
      if (!part.mm.header.coordinate) return;
      first.remove_prefix(part.mm.body_offset);
      const io::mm_header& h = part.mm.header;
      facts = {static_cast<std::int64_t>(stream_mode::matrix_market),
               static_cast<std::int64_t>(total),
               h.rows,
               h.cols,
               static_cast<std::int64_t>(h.entries),
               static_cast<std::int64_t>(h.field),
               static_cast<std::int64_t>(h.symmetry),
               static_cast<std::int64_t>(part.mm.size_line),
               static_cast<std::int64_t>(part.mm.body_line),
               static_cast<std::int64_t>(window)};
    } else {
      if (first.empty()) throw parse_error(name, 0, "empty file");
      if (first.size() >= 3 && first.compare(0, 3, "\xEF\xBB\xBF") == 0) first.remove_prefix(3);
      // A header line goes with the first window's start; every rank's lines hold the fields of the first
      // edge line.
      const io::detail::edge_columns columns = io::detail::edge_list_columns(first, opt);
      // An edge list of vertex names: numbered in order of first appearance
      // by one reader (rank 0 reads it whole), then the names to every rank.
      if (columns.names) return;
      first.remove_prefix(columns.body_offset);
      part.columns = columns;
      facts = {static_cast<std::int64_t>(stream_mode::snap),
               static_cast<std::int64_t>(total),
               static_cast<std::int64_t>(columns.fields),
               columns.data ? 1 : 0,
               columns.index ? 1 : 0,
               static_cast<std::int64_t>(columns.named),
               columns.source | std::int64_t(columns.target) << 32,
               columns.weight_at,
               static_cast<std::int64_t>(columns.body_line),
               static_cast<std::int64_t>(window)};
    }
    info.meta.timings.file_bytes = static_cast<std::uint64_t>(st.st_size);
  });
  dist::broadcast(facts);
  name = dist::all_strings(name)[0];
  const auto mode = static_cast<stream_mode>(facts[0]);
  if (mode == stream_mode::whole) {
    windows.reset();
    return load_whole(path, weighted, opt, world, info);
  }
  info.streamed = true;
  const std::uint64_t total = static_cast<std::uint64_t>(facts[1]);
  if (mode == stream_mode::matrix_market && me != 0) {
    io::mm_header& h = part.mm.header;
    h.coordinate = true;
    h.rows = static_cast<index_t>(facts[2]);
    h.cols = static_cast<index_t>(facts[3]);
    h.entries = static_cast<std::uint64_t>(facts[4]);
    h.field = static_cast<io::mm_field>(facts[5]);
    h.symmetry = static_cast<io::mm_symmetry>(facts[6]);
    part.mm.size_line = static_cast<std::uint64_t>(facts[7]);
    part.mm.body_line = static_cast<std::uint64_t>(facts[8]);
  }
  if (mode == stream_mode::snap) {
    part.columns.fields = static_cast<std::size_t>(facts[2]);
    part.columns.data = facts[3] != 0;
    part.columns.index = facts[4] != 0;
    part.columns.named = static_cast<std::size_t>(facts[5]);
    part.columns.source = static_cast<int>(facts[6] & 0xffffffff);
    part.columns.target = static_cast<int>(facts[6] >> 32);
    part.columns.weight_at = static_cast<int>(facts[7]);
  }
  const auto window = static_cast<std::size_t>(facts[9]);

  // The stream. Each window: {bytes, first line, entry lines before} then
  // its bytes; {0, 0, 0} ends a rank's part.
  std::exception_ptr parse_failure, stream_failure;
  std::uint64_t last_line = 0;
  if (me == 0) {
    int dest = 0;
    std::uint64_t given = 0, before = 0, line = static_cast<std::uint64_t>(facts[8]);
    last_line = line - 1;
    const auto end_part = [](int p) {
      const std::uint64_t none[3] = {0, 0, 0};
      if (p > 0) dist::send_numbers(none, 3, p);
    };
    try {
      // The first window's body may be empty; an empty window after it ends the text.
      std::string_view w = first;
      for (bool at_first = true; at_first || !w.empty(); at_first = false, w = windows->next()) {
        if (w.empty()) continue;
        while (dest < P - 1 &&
               given >= total / static_cast<std::uint64_t>(P) * static_cast<std::uint64_t>(dest + 1))
          end_part(dest++);
        const std::uint64_t newlines = io::detail::count_newlines(w.data(), w.data() + w.size());
        const std::uint64_t entries =
            mode == stream_mode::matrix_market ? io::detail::count_mm_entry_lines(w) : 0;
        if (dest == 0) {
          try {
            parse_window(mode, w, line, before, name, opt, part);
          } catch (...) {
            parse_failure = std::current_exception();
            break;  // rank 0's lines come first: its error is the one reported
          }
        } else {
          const std::uint64_t head[3] = {w.size(), line, before};
          dist::send_numbers(head, 3, dest);
          dist::send_bytes(w.data(), w.size(), dest);
        }
        given += w.size();
        before += entries;
        last_line = w.back() == '\n' ? line + newlines - 1 : line + newlines;
        line += newlines;
      }
    } catch (...) {
      stream_failure = std::current_exception();  // unreadable: after the parse errors of the lines before
    }
    for (int p = std::max(dest, 1); p < P; ++p) end_part(p);
    info.meta.timings.read_seconds = windows->stats().seconds;
    info.meta.timings.text_bytes = windows->stats().text_bytes;
    windows.reset();
  } else {
    io::detail::text_buffer buf;
    try {
      buf.reserve(window + (std::size_t(1) << 20));
    } catch (...) {
      parse_failure = std::current_exception();
    }
    for (;;) {
      std::uint64_t head[3];
      dist::receive_numbers(head, 3, 0);
      if (head[0] == 0) break;
      buf.reserve(static_cast<std::size_t>(head[0]));  // a window past `window`: a line longer than it
      dist::receive_bytes(buf.mutable_data(), static_cast<std::size_t>(head[0]), 0);
      buf.set_size(static_cast<std::size_t>(head[0]));
      if (parse_failure) continue;  // the rest is received and dropped: rank 0 is not left waiting
      try {
        parse_window(mode, buf.view(), head[1], head[2], name, opt, part);
      } catch (...) {
        parse_failure = std::current_exception();
      }
    }
  }
  dist::agree(parse_failure);
  dist::agree(stream_failure);
  info.text_bytes = part.text_bytes;
  info.meta.format =
      mode == stream_mode::matrix_market ? io::input_format::matrix_market : io::input_format::snap;
  info.load_seconds = step.lap();
  info.meta.timings.parse_seconds = info.load_seconds - info.meta.timings.read_seconds;
  dist::local_arcs a;
  if (mode == stream_mode::snap) {
    info.meta.pattern = !part.weights();
    a = snap_arcs(part, weighted, opt.undirected, name, world, info);
  } else {
    const io::mm_header& h = part.mm.header;
    const std::uint64_t entries = dist::total_sum(part.entries.nnz());
    dist::phase([&] {
      if (me != 0) return;
      if (entries < h.entries) io::detail::check_mm_stream_count(part.mm, entries, last_line, name);
      check_square(name, h.rows, h.cols);
    });
    info.meta.pattern = h.field == io::mm_field::pattern;
    info.meta.symmetric = h.symmetry != io::mm_symmetry::general;
    info.meta.matrix.rows = h.rows;
    info.meta.matrix.cols = h.cols;
    const dist::mirror m = mirror_for(h.symmetry, opt.undirected);
    const coo_matrix<double>& e = part.entries;
    const dist::arc_slice slice{e.row_idx.data(), e.col_idx.data(), e.values.data(), e.nnz()};
    a = exchange(path, slice, h.rows, weighted, m);
  }
  info.build_seconds = step.lap();
  return a;
}

// "rank 3", "ranks 0-4", "ranks 0, 2, 5" (ascending).
std::string rank_list(const std::vector<std::size_t>& ranks) {
  if (ranks.size() == 1) return "rank " + std::to_string(ranks[0]);
  if (ranks.back() - ranks.front() + 1 == ranks.size())
    return "ranks " + std::to_string(ranks.front()) + "-" + std::to_string(ranks.back());
  std::string s = "ranks ";
  for (std::size_t k = 0; k < ranks.size(); ++k) s += (k ? ", " : "") + std::to_string(ranks[k]);
  return s;
}

// Rank 0 prints the ranks' warnings (the others' stderr is closed), one line
// per text with the ranks that gave it: a cause every rank shares (an
// unwritable --cache-dir) was printed once per rank, P lines of one text.
void print_warnings(const std::vector<std::string>& all) {
  for (std::size_t p = 0; p < all.size(); ++p) {
    if (all[p].empty() || std::find(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(p), all[p]) !=
                              all.begin() + static_cast<std::ptrdiff_t>(p))
      continue;  // none, or printed with the first rank that gave it
    std::vector<std::size_t> ranks;
    for (std::size_t q = p; q < all.size(); ++q)
      if (all[q] == all[p]) ranks.push_back(q);
    std::cerr << ("perron: warning: " + rank_list(ranks) + ": " + one_line(all[p]) + "\n");
  }
}

void warn_all(const std::string& mine, const dist::session& world) {
  const std::vector<std::string> all = dist::all_strings(mine);
  if (world.rank() == 0) print_warnings(all);
}

std::uint64_t hash_of(const std::vector<index_t>& first) {
  return fnv1a(first.data(), first.size() * sizeof(index_t));
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
    print_warnings(all);
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
  p.first_set = info.meta.first_set;
  p.n = a.n;
  p.first = a.first;
  p.rows = std::move(a.at);
  p.label = std::move(info.meta.label);
  p.name = std::move(info.meta.name);
  std::string why;
  try {
    why = io::rank_cache_store(path, stamp, key, p, opt.cache, opt.threads);
  } catch (const std::exception& x) {  // e.g. out of memory for the checksum: the cache is optional
    why = x.what();
  }
  a.at = std::move(p.rows);
  info.meta.label = std::move(p.label);
  info.meta.name = std::move(p.name);
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
  const io::rank_part_key key{world.size(), world.rank(), weighted, opt.undirected};
  info.meta.undirected = opt.undirected;  // the summary's; the arcs below are mirrored by the load
  const bool cached = opt.cache.enabled && !io::is_synthetic_spec(path);
  std::optional<io::source_stamp> stamp;
  if (cached) {
    stopwatch w;
    stamp = io::stamp_of(path);  // before the read: a file changed meanwhile is not cached
    if (std::optional<io::rank_part> p = cached_part(path, key, opt, world)) {
      info.meta.format = p->format;
      info.meta.pattern = p->pattern;
      info.meta.symmetric = p->symmetric;
      info.meta.first_set = p->first_set;
      info.meta.label = std::move(p->label);
      info.meta.name = std::move(p->name);
      info.meta.matrix.rows = info.meta.matrix.cols = p->n;
      info.meta.timings.from_cache = info.meta.timings.cache_transposed = true;
      dist::local_arcs a;
      a.n = p->n;
      a.first = std::move(p->first);
      a.lo = a.first[static_cast<std::size_t>(world.rank())];
      a.hi = a.first[static_cast<std::size_t>(world.rank()) + 1];
      a.at = std::move(p->rows);
      info.from_cache = true;
      info.load_seconds = info.meta.timings.cache_seconds = w.lap();
      dist::local_graph<T> g = dist::finish_graph<T>(std::move(a), weighted, info.meta.naming());
      info.build_seconds = w.lap();
      return g;
    }
  }
  // A graph read as two sets (--bipartite) is read whole by rank 0, which
  // splits it as one process does (io::make_bipartite needs every arc).
  const bool mine = !opt.bipartite && !io::is_synthetic_spec(path) && io::mm_file_part::splittable(path);
  info.in_parts = dist::total_sum(mine ? 1 : 0) == static_cast<std::uint64_t>(world.size());
  // A compressed or SNAP text, an archive's .mtx: streamed by rank 0 (not a spec).
  const bool streamable = !opt.bipartite && !io::is_synthetic_spec(path);
  // Generated and drawn (not grid: or chain:, built whole): each rank draws its share.
  const bool drawn = !weighted && io::is_synthetic_graph_spec(path) && path.rfind("grid:", 0) != 0 &&
                     path.rfind("chain:", 0) != 0;
  dist::local_arcs a = info.in_parts ? load_in_parts(path, weighted, opt, world, info)
                       : streamable  ? load_streamed(path, weighted, opt, world, info)
                       : drawn       ? load_generated(path, opt.undirected, world, info)
                                     : load_whole(path, weighted, opt, world, info);
  if (cached && dist::total_sum(stamp ? 1 : 0) == static_cast<std::uint64_t>(world.size()))
    store_part(path, *stamp, key, opt, world, a, info);
  stopwatch w;
  dist::local_graph<T> g = dist::finish_graph<T>(std::move(a), weighted, info.meta.naming());
  info.build_seconds += w.seconds();
  return g;
}

template dist::local_graph<float> load_distributed<float>(const std::string&, bool, const io::read_options&,
                                                          const dist::session&, dist_input&);
template dist::local_graph<double> load_distributed<double>(const std::string&, bool, const io::read_options&,
                                                            const dist::session&, dist_input&);

}  // namespace perron::app
