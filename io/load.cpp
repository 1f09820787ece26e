#include "io/load.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/archive.hpp"
#include "io/cache.hpp"
#include "io/graph_files.hpp"
#include "io/snap.hpp"
#include "io/synthetic.hpp"
#include "io/text_input.hpp"

namespace perron::io {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The extension that names the format, ignoring a compression's (.gz, .bz2, .xz, .zst).
std::string format_extension(const std::string& name) {
  std::string n = ascii_lower(name);
  for (const char* packed : {".gz", ".bz2", ".xz", ".zst"})
    if (ends_with(n, packed)) {
      n.resize(n.size() - std::strlen(packed));
      break;
    }
  const auto slash = n.find_last_of('/');
  const auto dot = n.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  return n.substr(dot);
}

bool snap_extension(const std::string& ext) {
  return std::any_of(std::begin(detail::edge_list_extensions), std::end(detail::edge_list_extensions),
                     [&ext](const char* e) { return ext == e; });
}

input_format detect(std::string_view text, const std::string& name, bool names = false) {
  const char* p = text.data();
  const char* end = p + text.size();
  if (text.size() >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
  const std::string ext = format_extension(name);
  // Pajek's comments open with '%' too: its name decides unless the banner is whole.
  const bool banner = end - p >= 14 && iequals(std::string_view(p, 14), "%%MatrixMarket");
  if (!banner) {
    if (ext == ".graphml") return input_format::graphml;
    if (ext == ".gml") return input_format::gml;
    if (ext == ".net" || ext == ".paj") return input_format::pajek;
  }
  if (end - p >= 2 && p[0] == '%' && p[1] == '%') return input_format::matrix_market;
  if (ext == ".mtx" || ext == ".mm")
    return input_format::matrix_market;  // the MM reader names what is missing
  if (snap_extension(ext)) return input_format::snap;
  if (text.empty()) throw parse_error(name, 0, "empty file");
  const std::string_view rest(p, static_cast<std::size_t>(end - p));
  if (detail::looks_like_graphml(rest)) return input_format::graphml;
  if (detail::looks_like_gml(rest)) return input_format::gml;
  if (detail::looks_like_pajek(rest)) return input_format::pajek;
  // Sniff the first line that is not a comment or blank: two ids (and a
  // weight), or a header line before them, make an edge list.
  std::uint64_t line = 1;
  while (p != end) {
    const char* q = detail::skip_blanks(p, end);
    if (q != end && *q != '\n' && *q != '#' && *q != '%' && *q != '\r') {
      const detail::edge_columns c =
          detail::edge_list_columns(std::string_view(q, static_cast<std::size_t>(end - q)));
      // One line of two words is too little to take a file of no edge-list
      // extension for a graph ("hello world"); under such an extension, or
      // read with --names (the user's word that it is an edge list of
      // names: 'echo alice bob | pagerank --names -'), it is one edge.
      if (c.edge_line ||
          (c.names && (!c.lone || names) &&
           detail::names_hold_up(std::string_view(q, static_cast<std::size_t>(end - q)), c, 16)))
        return input_format::snap;
      throw parse_error(
          name, line,
          "unrecognized format: neither a Matrix Market banner (%%MatrixMarket ...), an edge list "
          "('from to', 'from to weight' or 'from to weight time' a line) nor GraphML, GML or Pajek");
    }
    p = detail::next_line(p, end);
    ++line;
  }
  return input_format::snap;  // comments only: an empty edge list
}

// The windows with the first one handed out again (it was read to detect the format).
class first_again final : public detail::text_windows {
 public:
  first_again(detail::text_windows& w, std::string_view first) : w_(w), first_(first) {}
  std::string_view next() override { return given_ ? w_.next() : (given_ = true, first_); }
  const detail::read_stats& stats() const override { return w_.stats(); }
  unsigned busy_threads() const override { return w_.busy_threads(); }
  std::uint64_t size_hint() const override { return w_.size_hint(); }
  bool views_persist() const override { return w_.views_persist(); }

 private:
  detail::text_windows& w_;
  std::string_view first_;
  bool given_ = false;
};

// The format from the first window, then the parse over every window.
loaded_matrix from_windows(detail::text_windows& windows, const std::string& name, const read_options& opt,
                           bool force_mm) {
  const std::string_view first = windows.next();
  first_again all(windows, first);
  loaded_matrix m;
  const input_format f = force_mm ? input_format::matrix_market : detect(first, name, opt.all_names);
  m.format = f;
  if (f == input_format::matrix_market) {
    mm_matrix mm = detail::parse_matrix_market_windows(all, name, opt);
    m.matrix = std::move(mm.matrix);
    m.pattern = mm.header.field == mm_field::pattern;
    m.symmetric = mm.header.symmetry != mm_symmetry::general;
    m.skew = mm.header.symmetry == mm_symmetry::skew_symmetric;
  } else if (f == input_format::graphml || f == input_format::gml || f == input_format::pajek) {
    declared_graph g;
    if (f == input_format::graphml) {
      g = detail::parse_graphml(all, name, opt.refuse_negative);
    } else if (f == input_format::pajek) {
      g = detail::parse_pajek(all, name, opt.refuse_negative);
    } else {
      g = detail::parse_gml(all, name, opt.refuse_negative);
    }
    m.matrix = std::move(g.matrix);
    m.label = std::move(g.original_id);
    m.name = std::move(g.name);
    m.pattern = !g.weighted;
    m.symmetric = g.undirected;
  } else {
    snap_graph g = detail::parse_snap_windows(all, name, opt);
    m.matrix = std::move(g.matrix);
    m.label = std::move(g.original_id);
    m.name = std::move(g.name);
    m.pattern = !g.weighted;
  }
  return m;
}

// A plain regular file whose parse runs window by window on one thread
// (GraphML through expat, GML, Pajek): read so, it is never held whole (a
// 790 MB GraphML file held 790 MB more than its graph). Matrix Market files
// and edge lists are read whole, for their parse on every thread.
bool streamed_plain_file(const std::string& path) {
  // Only a regular file is opened: an open of a named pipe, even one that
  // does not wait (O_NONBLOCK), lets its writer start, and the close loses
  // what it sent: the run then waited on its second open for ever (a FIFO
  // under mpirun, and pagerank_app_test's split test, hung).
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;  // read_file says why
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);    // a swap since: no wait
  if (fd < 0) return false;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(
      ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? ::fdopen(fd, "rb") : nullptr, &std::fclose);
  if (!f) {
    ::close(fd);
    return false;
  }
  std::string head(4096, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), f.get()));
  if (head.empty()) return false;
  try {
    const input_format k = detect(head, path);
    return k == input_format::graphml || k == input_format::gml || k == input_format::pajek;
  } catch (const std::exception&) {
    return false;  // the whole read's parse words it
  }
}

loaded_matrix from_text(std::string_view text, const std::string& name, const read_options& opt,
                        bool force_mm) {
  detail::whole_text one(text);
  return from_windows(one, name, opt, force_mm);
}

}  // namespace

input_format detect_input_format(std::string_view first_window, const std::string& name, bool names) {
  return detect(first_window, name, names);
}

loaded_matrix parse_matrix(std::string_view text, const std::string& name, const read_options& opt) {
  const auto start = clock_type::now();
  loaded_matrix m = from_text(text, name, opt, false);
  m.timings.parse_seconds = seconds_since(start);
  m.timings.text_bytes = text.size();
  m.read_seconds = m.timings.parse_seconds;
  return m;
}

namespace {

// Netzschleuder's csv.zip: edges.csv names its vertices by index 0 .. N - 1,
// and nodes.csv beside it lists all N, those in no edge too. The edge list
// alone held only the vertices its edges name: a graph of 4 nodes and edges
// among 3 ranked 3 vertices, each rank a third (every rank changes with N).
// The vertices nodes.csv lists and no edge names are added, in index order;
// an index past nodes.csv's is an error of the archive.
void add_listed_vertices(loaded_matrix& m, std::string_view nodes, const std::string& nodes_name,
                         const std::string& edges_name) {
  std::uint64_t line = 0, count = 0, last = 0;
  bool header = false;
  std::size_t at = 0;
  while (at < nodes.size()) {
    std::size_t end = nodes.find('\n', at);
    if (end == std::string_view::npos) end = nodes.size();
    ++line;
    std::string_view l = nodes.substr(at, end - at);
    at = end + 1;
    const std::size_t first = l.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || l[first] == '#') continue;
    l = l.substr(first);
    const std::string_view field = l.substr(0, l.find_first_of(", \t\r"));
    std::uint64_t index = 0;
    const char* q = detail::scan_unsigned(field.data(), field.data() + field.size(), index);
    const bool number = q == field.data() + field.size() && !field.empty();
    if (!number && count == 0 && !header) {  // a header without '#' ("index,name")
      header = true;
      continue;
    }
    if (!number)
      throw parse_error(nodes_name, line,
                        "index " + detail::quote_bytes(field.data(), field.data() + field.size()) +
                            " is not a non-negative integer (nodes.csv lists the vertices by index)");
    ++count;
    last = std::max(last, index);
  }
  if (count == 0) return;
  const std::uint64_t n = last + 1;
  if (n > static_cast<std::uint64_t>(std::numeric_limits<index_t>::max()))
    throw dimension_error(nodes_name + ": vertex index " + std::to_string(last) + " is past the " +
                          std::to_string(std::numeric_limits<index_t>::max()) + " vertices perron holds");
  for (const std::int64_t id : m.label)
    if (id < 0 || static_cast<std::uint64_t>(id) >= n)
      throw parse_error(edges_name, 0,
                        "vertex " + std::to_string(id) + " is in no line of nodes.csv (its indices end at " +
                            std::to_string(last) + ")");
  if (static_cast<std::uint64_t>(m.matrix.rows) == n) return;
  // The labels are the ids in increasing order (the edge list's remap): the
  // new index of vertex k is its id.
  for (index_t& r : m.matrix.row_idx) r = static_cast<index_t>(m.label[static_cast<std::size_t>(r)]);
  for (index_t& c : m.matrix.col_idx) c = static_cast<index_t>(m.label[static_cast<std::size_t>(c)]);
  m.matrix.rows = m.matrix.cols = static_cast<index_t>(n);
  m.label.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < m.label.size(); ++i) m.label[i] = static_cast<std::int64_t>(i);
}

loaded_matrix load_as_listed(const std::string& path, const read_options& opt) {
  const auto start = clock_type::now();
  // Checked before the cache: a bipartite reading's entry would serve it.
  if (opt.bipartite && opt.all_names)
    throw not_supported(path +
                        ": --bipartite reads two sets of vertices numbered by integer ids; --names (Python: "
                        "names=True) reads one set of names");
  if (is_synthetic_spec(path)) {
    if (opt.bipartite)
      throw not_supported(
          path +
          ": a generated graph's vertices are one set; --bipartite reads the two columns of a "
          "file as two sets (bip:U:I:M generates users and items apart)");
    loaded_matrix m;
    m.format = input_format::synthetic;
    m.matrix = generate_synthetic(path);
    m.pattern = is_synthetic_graph_spec(path);
    m.read_seconds = m.timings.parse_seconds = seconds_since(start);
    return m;
  }
  const unsigned threads = detail::thread_count(opt.threads);
  const cache_options cache = cache_options_of(opt);
  if (cache.enabled) {
    auto cached = cache_load(path, cache, threads);
    // An entry serves either reading, but its arcs have lost their lines: one
    // with a weight below zero, where the reading refuses it, is read from the
    // file again, whose parse names the line ("1138_bus.mtx:16: entry (5, 1)
    // has value -9.017133"; from the cache the solver said "arc 5 -> 1").
    const auto negative = [](const std::vector<double>& v) {
      return std::any_of(v.begin(), v.end(), [](double w) { return w < 0.0; });
    };
    if (cached && !(opt.refuse_negative.size() && !cached->pattern && negative(cached->matrix.values))) {
      cached->timings.cache_seconds = seconds_since(start);
      cached->read_seconds = cached->timings.cache_seconds;
      return std::move(*cached);
    }
  }
  // Stamped before reading: cache_store refuses a file that changed meanwhile.
  const std::optional<source_stamp> stamp = cache.enabled ? stamp_of(path) : std::nullopt;
  detail::read_stats rs;
  detail::text_buffer text;
  std::string name = path;
  const detail::packing packing = detail::packing_of(path);
  loaded_matrix m;
  if (packing == detail::packing::gzip) {
    // Inflated window by window on a second thread while the parse runs:
    // parse_seconds is the whole pipeline, read_seconds the inflater's share.
    detail::gzip_tuning tuning;
    const std::string ext = format_extension(path);
    tuning.split_lines = ext == ".graphml" || ext == ".gml";
    const auto windows = detail::open_gzip_windows(path, detail::auto_window, threads, tuning);
    const auto parse_start = clock_type::now();
    m = from_windows(*windows, name, opt, false);
    m.timings.parse_seconds = seconds_since(parse_start);
    rs = windows->stats();
  } else if (packing == detail::packing::plain && streamed_plain_file(path)) {
    const auto windows = detail::open_file_windows(path);
    const auto parse_start = clock_type::now();
    m = from_windows(*windows, name, opt, false);
    m.timings.parse_seconds = seconds_since(parse_start);
    rs = windows->stats();
  } else {
    // An archive's member, or the text of a file compressed whole (member "").
    std::string member;
    if (detail::is_archive(packing)) {
      text = detail::read_archive_matrix(path, member, &rs);
    } else if (packing == detail::packing::compressed) {
      text = detail::read_packed(path, member, &rs);
    } else {
      text = detail::read_file(path, threads, &rs);
      // An archive or a compressed stream through a pipe ('cat flickr.tar.gz |
      // pagerank -', inflated where gzip): its first bytes are gone from the
      // pipe, so it is read from memory.
      const std::string_view t = text.view();
      if (detail::is_tar(t) || detail::has_zip_magic(t.data(), t.size()) ||
          detail::has_packed_magic(t.data(), t.size()))
        text = detail::read_archive_matrix_in(text, path, member);
    }
    if (!member.empty()) name = path + ":" + member;
    rs.text_bytes = text.size();
    const auto parse_start = clock_type::now();
    // A member named .mtx is Matrix Market (the reader names what is
    // missing); an edge list, or a file compressed whole, is told as a file is.
    m = from_text(text.view(), name, opt, ends_with(ascii_lower(member), ".mtx"));
    const std::size_t slash = member.rfind('/');
    const std::string folder = slash == std::string::npos ? std::string() : member.substr(0, slash + 1);
    if (detail::is_archive(packing) && member == folder + "edges.csv" && !m.label.empty() && m.name.empty() &&
        !opt.bipartite)
      if (const auto nodes = detail::read_archive_member(path, folder + "nodes.csv"))
        add_listed_vertices(m, nodes->view(), path + ":" + folder + "nodes.csv", name);
    m.timings.parse_seconds = seconds_since(parse_start);
  }
  if (opt.bipartite) {
    // Before the cache keeps it: the entry (its own reading) is the graph as two sets.
    const auto split_start = clock_type::now();
    make_bipartite(m, name, threads);
    m.timings.parse_seconds += seconds_since(split_start);
  }
  m.timings.read_seconds = rs.seconds;
  m.timings.file_bytes = rs.file_bytes;
  m.timings.text_bytes = rs.text_bytes;
  text = detail::text_buffer();  // release the text before the cache copy is written
  if (cache.enabled && stamp) {
    // Only a written cache has a write time: the summary said "cache write
    // 0.000 s" beside the warning that nothing was cached (no HOME, a file
    // where the folder belongs).
    const auto cache_start = clock_type::now();
    if (cache_store(path, *stamp, m, cache, threads)) m.timings.cache_seconds = seconds_since(cache_start);
  }
  m.read_seconds = seconds_since(start);
  return m;
}

}  // namespace

void make_undirected(loaded_matrix& m, const std::string& name, unsigned threads) {
  if (m.undirected) return;
  const auto start = clock_type::now();
  m.undirected = true;
  if (m.symmetric) return;  // expanded already: each edge both ways
  if (m.matrix.rows != m.matrix.cols)
    throw dimension_error(name +
                          ": an undirected graph needs a square matrix (one vertex a row and a column), "
                          "got " +
                          std::to_string(m.matrix.rows) + " x " + std::to_string(m.matrix.cols));
  detail::mirror_entries(m.matrix, 1.0, name, detail::thread_count(threads));
  m.timings.undirected_seconds = seconds_since(start);
  m.read_seconds += m.timings.undirected_seconds;
}

void make_bipartite(loaded_matrix& m, const std::string& name, unsigned threads) {
  const std::string why =
      " --bipartite reads the two columns of an edge list, or a matrix's rows and columns, as "
      "two sets of vertices";
  if (m.format == input_format::graphml || m.format == input_format::gml || m.format == input_format::pajek)
    throw not_supported(name + ": a graph file declares its vertices;" + why);
  if (!m.name.empty())
    throw not_supported(name + ": an edge list of vertex names calls each vertex by one name;" + why);
  if (m.symmetric)
    throw not_supported(name + ": a symmetric matrix's rows and columns are one set of vertices;" + why);
  if (m.first_set > 0) return;  // split already: a second call leaves it as it is
  coo_matrix<double>& a = m.matrix;
  const auto nnz = static_cast<std::int64_t>(a.nnz());
  threads = detail::thread_count(threads);
  if (m.label.empty()) {
    // Rows then columns, as the matrix declares them (empty ones too: each is a vertex).
    if (std::int64_t(a.rows) + a.cols > std::numeric_limits<index_t>::max())
      throw dimension_error(name + ": " + std::to_string(a.rows) + " rows and " + std::to_string(a.cols) +
                            " columns make " + std::to_string(std::int64_t(a.rows) + a.cols) +
                            " vertices, more than a 32-bit index holds");
    const index_t rows = a.rows;
    index_t* col = a.col_idx.data();
#pragma omp parallel for schedule(static) num_threads(threads) if (nnz > 65536)
    for (std::int64_t e = 0; e < nnz; ++e) col[e] += rows;
    m.first_set = rows;
    a.rows = a.cols = rows + a.cols;
    return;
  }
  // An edge list's vertices by id (ascending, io/snap.cpp): those of the first
  // column, then those of the second, each in id order.
  const auto n = static_cast<std::size_t>(a.rows);
  std::vector<std::uint8_t> first(n, 0), second(n, 0);
  const index_t* row = a.row_idx.data();
  const index_t* col = a.col_idx.data();
  for (std::int64_t e = 0; e < nnz; ++e) {
    first[static_cast<std::size_t>(row[e])] = 1;
    second[static_cast<std::size_t>(col[e])] = 1;
  }
  std::vector<index_t> to_first(n, -1), to_second(n, -1);
  index_t n1 = 0, n2 = 0;
  std::int64_t largest_first = std::numeric_limits<std::int64_t>::min();
  std::int64_t smallest_second = std::numeric_limits<std::int64_t>::max();
  for (std::size_t v = 0; v < n; ++v) {
    if (first[v]) {
      to_first[v] = n1++;
      largest_first = std::max(largest_first, m.label[v]);
    }
    if (second[v]) {
      ++n2;
      smallest_second = std::min(smallest_second, m.label[v]);
    }
  }
  if (std::int64_t(n1) + n2 > std::numeric_limits<index_t>::max())
    throw dimension_error(name + ": " + std::to_string(n1) + " + " + std::to_string(n2) +
                          " vertices in two sets, more than a 32-bit index holds");
  // K = max(0, largest_first - smallest_second + 1), the span taken unsigned
  // (two int64 ids may lie further apart than an int64 holds).
  std::int64_t k = 0;
  if (n1 > 0 && n2 > 0 && largest_first >= smallest_second) {
    const auto span = static_cast<std::uint64_t>(largest_first) - static_cast<std::uint64_t>(smallest_second);
    if (span >= std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      throw dimension_error(name + ": the ids of its two columns span more than a 64-bit id holds apart");
    k = static_cast<std::int64_t>(span) + 1;
  }
  std::vector<std::int64_t> label(static_cast<std::size_t>(n1) + static_cast<std::size_t>(n2));
  index_t next = n1;
  for (std::size_t v = 0; v < n; ++v) {
    if (first[v]) label[static_cast<std::size_t>(to_first[v])] = m.label[v];
    if (second[v]) {
      if (m.label[v] > std::numeric_limits<std::int64_t>::max() - k)
        throw dimension_error(name + ": id " + std::to_string(m.label[v]) +
                              " of its second column, moved past " +
                              "the first column's ids, is more than a 64-bit id holds");
      to_second[v] = next;
      label[static_cast<std::size_t>(next++)] = m.label[v] + k;
    }
  }
  index_t* r = a.row_idx.data();
  index_t* c = a.col_idx.data();
#pragma omp parallel for schedule(static) num_threads(threads) if (nnz > 65536)
  for (std::int64_t e = 0; e < nnz; ++e) {
    r[e] = to_first[static_cast<std::size_t>(r[e])];
    c[e] = to_second[static_cast<std::size_t>(c[e])];
  }
  m.label = std::move(label);
  m.first_set = n1;
  a.rows = a.cols = n1 + n2;
}

loaded_matrix load_matrix(const std::string& path, const read_options& opt) {
  loaded_matrix m = load_as_listed(path, opt);
  if (opt.undirected) make_undirected(m, path, opt.threads);
  return m;
}

}  // namespace perron::io
