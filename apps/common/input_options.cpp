#include "apps/common/input_options.hpp"

#include <cmath>
#include <iostream>
#include <limits>

#include "apps/common/usage.hpp"
#include "core/text.hpp"
#include "io/cache.hpp"
#include "io/snap.hpp"

namespace perron::app {

namespace po = boost::program_options;

namespace {
// "--cache-dir $UNSET" is refused, not taken as left out: the cache went to
// the default folder the user had moved it from, without a word.
void refuse_empty_cache_dir(const std::string& dir) {
  if (dir.empty())
    throw usage_error("--cache-dir needs a folder name, got an empty one (--no-cache turns the cache off)");
}
}  // namespace

void add_input_options(po::options_description& o, input_settings& s) {
  // clang-format off
  o.add_options()
    ("no-cache", po::bool_switch(&s.no_cache),
     "do not read or write the binary cache of parsed input files")
    ("cache-dir", po::value<std::string>(&s.cache_dir)->value_name("DIR")->notifier(refuse_empty_cache_dir),
     "where the binary cache of parsed input files lives (default $XDG_CACHE_HOME/perron, "
     "else ~/.cache/perron); an input's cache is rebuilt whenever the file changes");
  // clang-format on
}

io::read_options read_options_for(const input_settings& s) {
  io::read_options r;
  r.cache.enabled = !s.no_cache;
  r.cache.dir = s.cache_dir;
  r.undirected = s.undirected;
  r.all_names = s.names;
  r.bipartite = s.bipartite;
  // The solver's words (solvers/pagerank.cpp), said by the reader at the line.
  if (s.weighted) r.refuse_negative = "--weighted needs finite, non-negative weights";
  // --names and --bipartite read another graph from a file: entries of their own.
  r.cache = io::cache_options_of(r);
  return r;
}

void note_input(const input_settings& s, const std::string& graph, io::input_format format) {
  if (s.names && format != io::input_format::snap)
    std::cerr << "pagerank: note: --names reads an edge list's vertices by name; " << one_line(graph)
              << " is no edge list, so it changes nothing\n";
  if (format != io::input_format::snap) return;
  // SNAP's undirected sets list each edge once (com-lj.ungraph.txt) or both
  // ways (roadNet-CA.txt): read as arcs, the first are another graph than
  // the user's. KONECT's bipartite sets number users and items each from 1:
  // read as one set of ids, user 3 and item 3 are one vertex.
  // A first line of words between blanks over lines of ids was read as the
  // columns' header: were it an edge of names, it was lost without a word.
  if (!s.names && !s.bipartite) {
    const auto [words, line] = io::header_of_words(graph);
    if (!words.empty())
      std::cerr << "pagerank: note: " << one_line(graph) << ":" << line << ": '" << one_line(words)
                << "' is read as the header of the list's columns, the lines after it giving integer ids; "
                   "were it an edge, --names reads every vertex field as a name, that line's too\n";
  }
  const io::header_graph h = io::graph_in_header(graph);
  if (h == io::header_graph::undirected && !s.undirected)
    std::cerr << "pagerank: note: " << one_line(graph)
              << "'s header says it is an undirected graph; each of its lines is one arc 'from -> to' here, "
                 "--undirected takes every edge both ways\n";
  if (h == io::header_graph::bipartite && !s.bipartite)
    std::cerr << "pagerank: note: " << one_line(graph)
              << "'s header says it is a bipartite graph (KONECT's '% bip'): its two columns number two sets "
                 "of vertices, each from 1, read here as one set (an id in the first column is the vertex of "
                 "that id in the "
                 "second); --bipartite keeps them apart\n";
}

namespace {
std::string seconds(double x) { return format_fixed(x, 3) + " s"; }
std::string describe_undirected(const io::load_timings& t) {
  return t.undirected_seconds > 0 ? ", made undirected in " + seconds(t.undirected_seconds) : "";
}
// A time in the JSON summary ("%.6g"; 0 stands for a time not measured).
std::string real(double x) { return format_g(std::isfinite(x) ? x : 0.0, 6); }
}  // namespace

std::string describe_load(const io::load_timings& t) {
  const std::string kept =
      describe_undirected(t) +
      (!t.transpose_not_kept.empty()  ? ", its CSR of A^T not kept (" + t.transpose_not_kept + ")"
       : t.transpose_kept_seconds > 0 ? ", its CSR of A^T kept in " + seconds(t.transpose_kept_seconds)
                                      : std::string());
  if (t.from_cache)
    return std::string(t.cache_transposed ? "from the cache (CSR of A^T) in " : "from the cache in ") +
           seconds(t.cache_seconds) + kept;
  std::string s = "read " + seconds(t.read_seconds) + ", parse " + seconds(t.parse_seconds);
  if (t.cache_seconds > 0) s += ", cache write " + seconds(t.cache_seconds);
  return s + kept;
}

std::string load_json(const io::load_timings& t) {
  return std::string("{\"read\": ") + real(t.read_seconds) + ", \"parse\": " + real(t.parse_seconds) +
         ", \"cache\": " + real(t.cache_seconds) + ", \"from_cache\": " + (t.from_cache ? "true" : "false") +
         ", \"cache_transposed\": " + (t.cache_transposed ? "true" : "false") +
         ", \"transpose_kept\": " + real(t.transpose_kept_seconds) + ", \"transpose_not_kept\": " +
         (t.transpose_not_kept.empty() ? std::string("null")
                                       : "\"" + json_escape(t.transpose_not_kept) + "\"") +
         ", \"mirror\": " + real(t.undirected_seconds) + ", \"text_bytes\": " + std::to_string(t.text_bytes) +
         "}";
}

std::uint64_t spec_links(const io::synthetic_size& size, bool undirected) {
  const std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
  return !undirected ? size.arcs : size.arcs > most / 2 ? most : 2 * size.arcs;
}

std::string spec_links_text(const io::synthetic_size& size, bool undirected) {
  if (undirected && size.arcs > std::numeric_limits<std::uint64_t>::max() / 2)
    return "2 x " + std::to_string(size.arcs);
  return std::to_string(spec_links(size, undirected));
}

}  // namespace perron::app
