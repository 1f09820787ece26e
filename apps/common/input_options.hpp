// The input options every app that reads a user's matrix shares: the binary
// cache of parsed files (io/cache.hpp) is on by default, --no-cache turns it
// off and --cache-dir moves it; and the text that says where load time went.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>

#include "io/load.hpp"
#include "io/synthetic.hpp"

namespace perron::app {

struct input_settings {
  bool no_cache = false;
  std::string cache_dir;    // empty: $XDG_CACHE_HOME/perron or ~/.cache/perron
  bool undirected = false;  // pagerank --undirected (io::read_options::undirected); no other app offers it
  bool names = false;       // pagerank --names (io::read_options::all_names), likewise
  bool bipartite = false;   // pagerank --bipartite (io::read_options::bipartite), likewise
  bool weighted = false;    // pagerank --weighted: a negative weight refused at its line (refuse_negative)
};

void add_input_options(boost::program_options::options_description& o, input_settings& s);

io::read_options read_options_for(const input_settings& s);

// The notes on standard error that a loaded input may call for: --names
// given for an input that is no edge list (it changes nothing there); an
// edge list whose header says its graph is undirected (SNAP's "# Undirected
// graph", KONECT's "% sym") read without --undirected, or bipartite (KONECT's
// "% bip") read without --bipartite; a first line of words between blanks
// over lines of ids, read as a header ("alice bob": or an edge of names?).
// Said, not guessed: the flags decide.
// Every solve calls it once (under mpirun, rank 0).
void note_input(const input_settings& s, const std::string& graph, io::input_format format);

// "read 0.051 s, parse 0.093 s, cache write 0.012 s" or "from the cache in 0.010 s"
// (", made undirected in 0.004 s" after it where every arc was mirrored).
std::string describe_load(const io::load_timings& t);

// The same as a JSON object: {"read": .., "parse": .., "cache": .., "from_cache": .., "text_bytes": ..}.
std::string load_json(const io::load_timings& t);

// A generated graph's links at most, as the run stores them: its arc draws,
// each both ways where --undirected (io::load_matrix keeps every arc and its
// mirror); what the memory checks made before it is generated count. The
// count saturates at 2^64 - 1 (twice the draws wrapped round, a few links for
// the GPU's check) and the text names it past that. The host check's count
// was the double of its bytes cast back to an integer, undefined past 2^64:
// 'er:1000:18446744073709551615' was refused "up to 0 links".
std::uint64_t spec_links(const io::synthetic_size& size, bool undirected);
std::string spec_links_text(const io::synthetic_size& size, bool undirected);

}  // namespace perron::app
