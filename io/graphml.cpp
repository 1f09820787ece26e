// GraphML through expat (the XML itself, entities, encodings and its guard
// against entity expansion attacks are expat's); the graph is read as
// networkx's read_graphml reads it (io/graph_files.hpp).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/graph_files.hpp"
#include "io/text_input.hpp"

#if PERRON_HAVE_EXPAT
#include <expat.h>
#endif

namespace perron::io::detail {

#if PERRON_HAVE_EXPAT

namespace {

// An element's name without a namespace prefix ("g:node" -> "node").
std::string_view local(const XML_Char* name) {
  std::string_view s(name);
  const std::size_t colon = s.rfind(':');
  return colon == std::string_view::npos ? s : s.substr(colon + 1);
}

const XML_Char* attribute(const XML_Char** attrs, const char* wanted) {
  for (const XML_Char** a = attrs; *a; a += 2)
    if (local(a[0]) == wanted) return a[1];
  return nullptr;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The edge being read (between <edge> and </edge>).
struct edge_state {
  index_t source = -1, target = -1;    // -1: an end no <node> has declared yet
  std::string source_key, target_key;  // where an end is -1
  double weight = 1;
  bool weighted = false, undirected = true;
  std::uint64_t line = 0;
};

class graphml_reader {
 public:
  graphml_reader(const std::string& file, const std::string& refuse_negative)
      : file_(file), build_(file, refuse_negative), parser_(XML_ParserCreate(nullptr)) {
    if (!parser_) throw std::bad_alloc();
    XML_SetUserData(parser_, this);
    XML_SetElementHandler(parser_, &graphml_reader::start_thunk, &graphml_reader::end_thunk);
    XML_SetCharacterDataHandler(parser_, &graphml_reader::text_thunk);
  }
  ~graphml_reader() { XML_ParserFree(parser_); }
  graphml_reader(const graphml_reader&) = delete;
  graphml_reader& operator=(const graphml_reader&) = delete;

  void feed(std::string_view text, bool last) {
    // In pieces of 1 MiB: expat (built with XML_CONTEXT_BYTES, as Debian's
    // is) copies what XML_Parse is given into a buffer of its own, which grew
    // to the whole window: a 790 MB file's parse held 1.87 GB, a fifth of its
    // time in that buffer's page faults and copy.
    constexpr std::size_t piece = std::size_t(1) << 20;
    do {
      const std::size_t n = std::min(text.size(), piece);
      const bool final_piece = last && n == text.size();
      if (XML_Parse(parser_, text.data(), static_cast<int>(n), final_piece) != XML_STATUS_OK) fail();
      text.remove_prefix(n);
    } while (!text.empty());
  }

  declared_graph finish() {
    if (!root_seen_) throw parse_error(file_, 0, "empty GraphML document (no <graphml> element)");
    if (graphs_ == 0) throw parse_error(file_, 0, "no <graph> in this GraphML file");
    // A <data> of a key never declared (networkx refuses it too: "no key"):
    // were it the weight, the graph read unweighted without a word.
    const std::pair<const std::string, std::uint64_t>* first = nullptr;  // the first in the file
    for (const auto& used : undeclared_)
      if (!keys_.count(used.first) && (!first || used.second < first->second)) first = &used;
    if (first)
      throw parse_error(file_, first->second,
                        "a <data> of key '" + first->first + "', which no <key> declares");
    return build_.finish();
  }

 private:
  // An error found in a handler: kept, the parser stopped (no C++ exception
  // crosses expat's C frames), thrown by fail().
  void stop(std::string what) {
    if (!error_) error_ = parse_error(file_, XML_GetCurrentLineNumber(parser_), what);
    XML_StopParser(parser_, XML_FALSE);
  }

  [[noreturn]] void fail() {
    if (error_) throw *error_;
    throw parse_error(file_, XML_GetCurrentLineNumber(parser_),
                      std::string("not well-formed XML: ") + XML_ErrorString(XML_GetErrorCode(parser_)));
  }

  static void start_thunk(void* self, const XML_Char* name, const XML_Char** attrs) {
    auto* r = static_cast<graphml_reader*>(self);
    if (!r->error_) r->start(local(name), attrs);
  }
  static void end_thunk(void* self, const XML_Char* name) {
    auto* r = static_cast<graphml_reader*>(self);
    if (!r->error_) r->end(local(name));
  }
  static void text_thunk(void* self, const XML_Char* s, int len) {
    auto* r = static_cast<graphml_reader*>(self);
    if (r->collect_) r->text_.append(s, static_cast<std::size_t>(len));
  }

  void start(std::string_view name, const XML_Char** attrs) {
    ++depth_;
    if (!root_seen_) {
      root_seen_ = true;
      if (name != "graphml")
        return stop("not GraphML: the document's root is <" + std::string(name) + ">, not <graphml>");
      return;
    }
    if (name == "key") {
      const XML_Char* id = attribute(attrs, "id");
      const XML_Char* attr_name = attribute(attrs, "attr.name");
      const XML_Char* domain = attribute(attrs, "for");
      in_weight_key_ = id && attr_name && iequals(attr_name, "weight") &&
                       (!domain || std::strcmp(domain, "edge") == 0 || std::strcmp(domain, "all") == 0);
      if (id) keys_.insert(id);
      if (in_weight_key_) {
        // GraphML declares its keys before the graph; a weight key after
        // edges that gave it values (read as <data> of no key) came too late
        // for them: read unweighted without a word.
        if (const auto used = undeclared_.find(id); used != undeclared_.end())
          return stop("the weight key '" + std::string(id) + "' is declared after edges that use it (line " +
                      std::to_string(used->second) + "): GraphML declares its <key>s before the <graph>");
        weight_key_ = id;
      }
    } else if (name == "default" && in_weight_key_) {
      begin_text();
    } else if (name == "graph") {
      if (graph_depth_.empty() && ++graphs_ > 1)
        return stop("a second <graph>: perron reads one graph a file");
      const XML_Char* d = attribute(attrs, "edgedefault");
      // networkx reads a graph without edgedefault as undirected.
      graph_depth_.push_back(!(d && std::strcmp(d, "directed") == 0));
    } else if (name == "node") {
      if (graph_depth_.empty()) return stop("a <node> outside <graph>");
      const XML_Char* id = attribute(attrs, "id");
      if (!id) return stop("a <node> with no id");
      vertex(id);
    } else if (name == "edge") {
      if (graph_depth_.empty()) return stop("an <edge> outside <graph>");
      const XML_Char* s = attribute(attrs, "source");
      const XML_Char* t = attribute(attrs, "target");
      if (!s || !t) return stop(std::string("an <edge> with no ") + (s ? "target" : "source"));
      edge_.emplace();
      edge_->line = XML_GetCurrentLineNumber(parser_);
      // networkx numbers a graph's <node>s first, then an edge's undeclared
      // end at its edge: such an edge waits for the graph's end.
      edge_->source = build_.find(s);
      edge_->target = build_.find(t);
      if (edge_->source < 0) edge_->source_key = s;
      if (edge_->target < 0) edge_->target_key = t;
      edge_->undirected = graph_depth_.back();
      if (const XML_Char* d = attribute(attrs, "directed")) {
        if (std::strcmp(d, "true") == 0 || std::strcmp(d, "1") == 0)
          edge_->undirected = false;
        else if (std::strcmp(d, "false") == 0 || std::strcmp(d, "0") == 0)
          edge_->undirected = true;
        else
          return stop("an <edge>'s directed is '" + std::string(d) + "' (true or false)");
      }
      edge_->weighted = default_weight_.has_value();
      edge_->weight = default_weight_.value_or(1.0);
    } else if (name == "data") {
      const XML_Char* key = attribute(attrs, "key");
      if (key && !keys_.count(key)) undeclared_.emplace(key, XML_GetCurrentLineNumber(parser_));
      if (key && edge_ && !weight_key_.empty() && weight_key_ == key) begin_text();
    } else if (name == "hyperedge") {
      return stop("a <hyperedge>: perron reads graphs of edges between two vertices");
    }
  }

  void end(std::string_view name) {
    --depth_;
    if (name == "key") {
      in_weight_key_ = false;
    } else if (name == "default" && collect_) {
      double w = 0;
      if (!parse_real(trimmed(text_), w))
        return stop("the weight key's default '" + text_ + "' is not a finite number");
      if (const std::string why = build_.negative_weight(w); !why.empty())
        return stop("the weight key's default: " + why);
      default_weight_ = w;
      collect_ = false;
    } else if (name == "data" && collect_) {
      double w = 0;
      if (!parse_real(trimmed(text_), w)) return stop("edge weight '" + text_ + "' is not a finite number");
      if (const std::string why = build_.negative_weight(w); !why.empty()) return stop("edge " + why);
      edge_->weight = w;
      edge_->weighted = true;
      collect_ = false;
    } else if (name == "edge" && edge_) {
      if (edge_->source < 0 || edge_->target < 0)
        waiting_.push_back(std::move(*edge_));
      else
        build_.arc(edge_->source, edge_->target, edge_->weight, edge_->weighted, edge_->undirected);
      edge_.reset();
    } else if (name == "graph" && !graph_depth_.empty()) {
      graph_depth_.pop_back();
      if (graph_depth_.empty()) {
        for (edge_state& e : waiting_) {
          if (e.source < 0) e.source = vertex(e.source_key.c_str());
          if (e.target < 0) e.target = vertex(e.target_key.c_str());
          build_.arc(e.source, e.target, e.weight, e.weighted, e.undirected);
        }
        waiting_.clear();
      }
    }
  }

  void begin_text() {
    text_.clear();
    collect_ = true;
  }

  index_t vertex(const XML_Char* id) {
    if (build_.vertices() >= max_index && build_.find(id) < 0) {
      stop("more than " + std::to_string(max_index) + " vertices");
      return 0;
    }
    return build_.vertex(id, XML_GetCurrentLineNumber(parser_));
  }

  const std::string& file_;
  graph_builder build_;
  XML_Parser parser_;
  std::optional<parse_error> error_;
  bool root_seen_ = false, in_weight_key_ = false, collect_ = false;
  int depth_ = 0, graphs_ = 0;
  std::vector<bool> graph_depth_;  // each open <graph>'s default: undirected
  std::string weight_key_, text_;
  std::unordered_set<std::string> keys_;  // every <key>'s id declared so far
  std::unordered_map<std::string, std::uint64_t>
      undeclared_;  // a <data>'s key not yet declared: its first line
  std::optional<double> default_weight_;
  std::optional<edge_state> edge_;
  std::vector<edge_state> waiting_;  // edges to an end not yet declared, in the file's order
};

}  // namespace

declared_graph parse_graphml(text_windows& windows, const std::string& name,
                             const std::string& refuse_negative) {
  graphml_reader reader(name, refuse_negative);
  std::uint64_t bytes = 0;
  for (std::string_view w = windows.next(); !w.empty(); w = windows.next()) {
    bytes += w.size();
    reader.feed(w, false);
  }
  if (bytes == 0) throw parse_error(name, 0, "empty GraphML document (no <graphml> element)");
  reader.feed({}, true);
  return reader.finish();
}

#else

declared_graph parse_graphml(text_windows&, const std::string& name, const std::string&) {
  throw not_supported(name +
                      ": reading GraphML needs expat, and this perron was built without it "
                      "(apt-get install libexpat1-dev, then rebuild)");
}

#endif

}  // namespace perron::io::detail
