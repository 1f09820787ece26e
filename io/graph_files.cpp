// GML and Pajek readers and what the three graph-file readers share (the
// vertex table, the arcs, the names); GraphML's is io/graphml.cpp.
#include "io/graph_files.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string_view>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/matrix_market.hpp"
#include "io/text_input.hpp"

namespace perron::io::detail {

// ---- the builder -------------------------------------------------------------

index_t graph_builder::vertex(std::string_view key, std::uint64_t line) {
  const index_t v = keys_.intern(key);
  if (v < 0) throw parse_error(file_, line, "more than " + std::to_string(max_index) + " vertices");
  return v;
}

index_t graph_builder::find(std::string_view key) const { return keys_.find(key); }

index_t graph_builder::vertex_id(std::int64_t id, std::uint64_t line) {
  if (ids_.size() >= static_cast<std::size_t>(max_index))
    throw parse_error(file_, line, "more than " + std::to_string(max_index) + " vertices");
  ids_.push_back(id);
  return static_cast<index_t>(ids_.size() - 1);
}

void graph_builder::declare_numbered(std::size_t count, std::uint64_t line) {
  if (count > max_index)
    throw parse_error(file_, line,
                      std::to_string(count) + " vertices: more than " + std::to_string(max_index));
  numbered_ = count;
}

void graph_builder::label(index_t v, std::string text) {
  if (!text.empty()) labels_.emplace_back(v, std::move(text));
}

void graph_builder::arc(index_t from, index_t to, double weight, bool weighted, bool undirected) {
  if (undirected)
    undirected_.push_back(arcs_.row_idx.size());
  else
    directed_ = true;
  weighted_ = weighted_ || weighted;
  arcs_.row_idx.push_back(from);
  arcs_.col_idx.push_back(to);
  arcs_.values.push_back(weighted ? weight : 1.0);
}

std::string graph_builder::negative_weight(double w) const {
  return w < 0.0 && !refuse_negative_.empty() ? "weight " + format_shortest(w) + ": " + refuse_negative_
                                              : std::string();
}

declared_graph graph_builder::finish() {
  declared_graph g;
  const std::size_t n = vertices();
  g.matrix = std::move(arcs_);
  g.matrix.rows = g.matrix.cols = static_cast<index_t>(n);
  g.weighted = weighted_;
  if (!directed_ && !undirected_.empty()) {
    // Every edge undirected: mirrored as a symmetric Matrix Market file's.
    mirror_entries(g.matrix, 1.0, file_, thread_count(0));
    g.undirected = true;
  } else {
    for (const std::size_t e : undirected_) {
      const index_t r = g.matrix.row_idx[e], c = g.matrix.col_idx[e];
      if (r == c) continue;
      const double v = g.matrix.values[e];
      g.matrix.row_idx.push_back(c);
      g.matrix.col_idx.push_back(r);
      g.matrix.values.push_back(v);
    }
  }
  // Labels name the vertices where every vertex has its own (a later line's
  // over an earlier one's) and no two are equal.
  bool by_labels = n > 0 && labels_.size() >= n;
  std::vector<std::string> named;
  if (by_labels) {
    named.resize(n);
    for (auto& [v, text] : labels_) named[static_cast<std::size_t>(v)] = std::move(text);
    name_table seen;
    for (const std::string& l : named)
      if (const std::size_t before = seen.size(); l.empty() || seen.intern(l) < 0 || seen.size() == before) {
        by_labels = false;
        break;
      }
  }
  if (by_labels) {
    g.name = std::move(named);
  } else if (numbered_ > 0) {
    // Pajek's numbers: vertex v is v + 1, the default naming.
  } else if (!ids_.empty()) {
    g.original_id = std::move(ids_);
  } else {
    g.name = keys_.names();
  }
  return g;
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

// The first line of `s` that is neither blank nor opened by `comment`, without its end.
std::string_view first_data_line(std::string_view s, char comment) {
  s = without_bom(s);
  while (!s.empty()) {
    const std::size_t eol = s.find('\n');
    std::string_view line = s.substr(0, eol);
    std::size_t k = 0;
    while (k < line.size() && is_space(line[k])) ++k;
    line.remove_prefix(k);
    if (!line.empty() && line[0] != comment) return line;
    if (eol == std::string_view::npos) break;
    s.remove_prefix(eol + 1);
  }
  return {};
}

}  // namespace

bool looks_like_graphml(std::string_view head) {
  head = without_bom(head);
  std::size_t k = 0;
  while (k < head.size() && is_space(head[k])) ++k;
  head.remove_prefix(k);
  return head.rfind("<?xml", 0) == 0 || head.rfind("<graphml", 0) == 0;
}

bool looks_like_gml(std::string_view head) {
  const std::string_view line = first_data_line(head, '#');
  for (const char* key : {"graph", "Creator", "Version"}) {
    const std::size_t n = std::strlen(key);
    if (line.rfind(key, 0) != 0 ||
        (line.size() > n && !is_space(line[n]) && line[n] != '[' && line[n] != '"'))
      continue;
    if (std::strcmp(key, "graph") != 0) return true;
    // "graph" then '[' (on its line or a later one): not a one-word edge list.
    std::string_view rest = head.substr(static_cast<std::size_t>(line.data() - head.data()) + n);
    std::size_t k = 0;
    while (k < rest.size() && is_space(rest[k])) ++k;
    return k < rest.size() && rest[k] == '[';
  }
  return false;
}

bool looks_like_pajek(std::string_view head) {
  const std::string_view line = first_data_line(head, '%');
  const std::string l = ascii_lower(line.substr(0, std::min<std::size_t>(line.size(), 16)));
  return l.rfind("*network", 0) == 0 || l.rfind("*vertices", 0) == 0;
}

// ---- GML ---------------------------------------------------------------------
//
// A list of key-value pairs, a value being an integer, a real, a "string"
// (HTML entities as networkx writes them: &quot; &amp; &#233; ...) or a
// [ list ]; '#' starts a comment to the line's end.

namespace {

enum class gml_kind { key, integer, real, string, open, close, end };

struct gml_token {
  gml_kind kind = gml_kind::end;
  std::string_view text;  // as written (a string's without its quotes)
  std::uint64_t line = 1;
};

// GML's tokens, window by window (text_windows: runs of whole lines), so a
// large file is never held whole (a 685 MB file held 1.44 GB at its peak when
// read whole). A token's text is valid until the next call. Keys, numbers
// and brackets end on their line, so only a string (it may hold newlines),
// or a token at the end of a window that does not end a line, crosses
// windows: its text is gathered in carry_.
class gml_lexer {
  // ASCII's letters and digits, as GML's keys spell them (not the locale's).
  static bool is_alpha(char c) { return static_cast<unsigned>((c | 0x20) - 'a') < 26u; }
  static bool is_digit(char c) { return static_cast<unsigned>(c - '0') < 10u; }

 public:
  gml_lexer(text_windows& windows, const std::string& file) : windows_(windows), file_(file) {
    std::string_view w = windows_.next();
    done_ = w.empty();
    // A byte order mark is looked for in a first window of 3 bytes at least.
    if (!done_ && w.size() < 3) {
      head_.assign(w);
      while (head_.size() < 3 && !(w = windows_.next()).empty()) head_.append(w);
      if (w.empty()) done_ = true;
      w = head_;
    }
    w = without_bom(w);  // empty where the mark was all: the next window follows
    p_ = w.data();
    end_ = p_ + w.size();
  }

  gml_token next() {
    gml_token t;
    if (!skip()) {
      t.line = line_;
      return t;
    }
    t.line = line_;
    const char c = *p_;
    if (c == '[' || c == ']') {
      t.kind = c == '[' ? gml_kind::open : gml_kind::close;
      t.text = std::string_view(p_++, 1);
      return t;
    }
    if (c == '"') {
      ++p_;
      t.text = scan([this](char x) {
        line_ += x == '\n';
        return x != '"';
      });
      if (p_ == end_)
        throw parse_error(file_, t.line, "a string opened here is not closed (no '\"' after it)");
      t.kind = gml_kind::string;
      ++p_;
      return t;
    }
    if (is_alpha(c) || c == '_') {
      t.text = scan([](char x) { return is_alpha(x) || is_digit(x) || x == '_'; });
      t.kind = gml_kind::key;
      // networkx writes inf and nan as INF, NAN, -INF: values, not keys.
      if (t.text == "INF" || t.text == "NAN") t.kind = gml_kind::real;
      return t;
    }
    t.text = scan([](char x) { return !is_space(x) && x != '[' && x != ']' && x != '"' && x != '#'; });
    if (is_integer_text(t.text)) {
      t.kind = gml_kind::integer;
    } else {
      double v = 0;
      if (!parse_real(t.text, v) && t.text != "-INF" && t.text != "+INF")
        throw parse_error(file_, t.line,
                          "unexpected " + quote_token(t.text.data(), t.text.data() + t.text.size()) +
                              " (a GML key, number, string or [ ])");
      t.kind = gml_kind::real;
    }
    return t;
  }

 private:
  // The token from p_ on while `more` holds of its characters: a view of the
  // window where it ends in it, else its pieces gathered across windows.
  // p_ is left at the first character past it (end_ at the text's end).
  template <class More>
  std::string_view scan(More more) {
    const char* q = p_;
    while (p_ != end_ && more(*p_)) ++p_;
    if (p_ != end_ || done_) return std::string_view(q, static_cast<std::size_t>(p_ - q));
    carry_.assign(q, p_);
    while (p_ == end_ && refill()) {
      q = p_;
      while (p_ != end_ && more(*p_)) ++p_;
      carry_.append(q, p_);
    }
    return carry_;
  }

  // The next window in p_ .. end_; false after the last.
  bool refill() {
    if (done_) return false;
    const std::string_view w = windows_.next();
    done_ = w.empty();
    p_ = w.data();
    end_ = p_ + w.size();
    return !done_;
  }

  // Past blanks and '#' comments (a comment may run past a window's end);
  // false at the text's end.
  bool skip() {
    for (;;) {
      while (p_ != end_) {
        if (in_comment_) {
          const void* eol = std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_));
          if (!eol) {
            p_ = end_;
            break;
          }
          p_ = static_cast<const char*>(eol);
          in_comment_ = false;
        }
        if (*p_ == '\n') {
          ++line_;
          ++p_;
        } else if (is_space(*p_)) {
          ++p_;
        } else if (*p_ == '#') {
          in_comment_ = true;
          ++p_;
        } else {
          return true;
        }
      }
      if (!refill()) return false;
    }
  }

  text_windows& windows_;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  bool done_ = false, in_comment_ = false;
  std::string carry_;  // a token that crossed windows
  std::string head_;   // a first window too short to hold a byte order mark, with the next ones
  const std::string& file_;
  std::uint64_t line_ = 1;
};

// A GML string's text with its HTML entities decoded (networkx escapes '"',
// '&' and characters outside ASCII so).
std::string gml_unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const std::size_t semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out += s[i];
      continue;
    }
    const std::string_view e = s.substr(i + 1, semi - i - 1);
    std::uint32_t cp = 0;
    bool known = true;
    if (e == "quot")
      cp = '"';
    else if (e == "amp")
      cp = '&';
    else if (e == "lt")
      cp = '<';
    else if (e == "gt")
      cp = '>';
    else if (e == "apos")
      cp = '\'';
    else if (e.size() > 1 && e[0] == '#') {
      const bool hex = e[1] == 'x' || e[1] == 'X';
      const std::string_view digits = e.substr(hex ? 2 : 1);
      const auto [q, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      known = ec == std::errc() && q == digits.data() + digits.size() && !digits.empty() && cp > 0 &&
              cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    } else {
      known = false;
    }
    if (!known) {
      out += s[i];
      continue;
    }
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    i = semi;
  }
  return out;
}

// GML's node ids -> vertices, built once every node is read (an edge may
// come before its nodes). Ids within a range of at most 4 a vertex (networkx
// writes 0..n-1, Newman 1..n) index a table; others are found by binary
// search in (id, vertex) sorted. parse_error at the second node of an id
// declared twice. Integers, not their text interned: the strings' table took
// a quarter of a 10^7-edge file's parse.
class id_lookup {
 public:
  id_lookup(const std::vector<std::int64_t>& ids, const std::vector<std::uint64_t>& lines,
            const std::string& file) {
    if (ids.empty()) return;
    const auto [lo, hi] = std::minmax_element(ids.begin(), ids.end());
    min_ = *lo;
    // The span as unsigned: max - min of two int64 may overflow int64.
    const std::uint64_t span = static_cast<std::uint64_t>(*hi) - static_cast<std::uint64_t>(*lo);
    const auto twice = [&](std::size_t v) {
      throw parse_error(file, lines[v], "node id " + std::to_string(ids[v]) + " is declared twice");
    };
    if (span / 4 < ids.size()) {
      table_.assign(span + 1, -1);
      for (std::size_t v = 0; v < ids.size(); ++v) {
        index_t& slot = table_[static_cast<std::uint64_t>(ids[v]) - static_cast<std::uint64_t>(min_)];
        if (slot >= 0) twice(v);
        slot = static_cast<index_t>(v);
      }
      return;
    }
    sorted_.reserve(ids.size());
    for (std::size_t v = 0; v < ids.size(); ++v) sorted_.emplace_back(ids[v], static_cast<index_t>(v));
    std::sort(sorted_.begin(), sorted_.end());
    std::size_t first_twice = ids.size();  // the earliest node that repeats an id, as the file reads
    for (std::size_t k = 1; k < sorted_.size(); ++k)
      if (sorted_[k].first == sorted_[k - 1].first)
        first_twice = std::min(first_twice, static_cast<std::size_t>(sorted_[k].second));
    if (first_twice < ids.size()) twice(first_twice);
  }

  // The vertex of `id`, else -1.
  index_t find(std::int64_t id) const {
    if (!table_.empty()) {
      const std::uint64_t k = static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(min_);
      return k < table_.size() ? table_[k] : -1;
    }
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::make_pair(id, index_t(-1)));
    return it != sorted_.end() && it->first == id ? it->second : -1;
  }

 private:
  std::int64_t min_ = 0;
  std::vector<index_t> table_;
  std::vector<std::pair<std::int64_t, index_t>> sorted_;
};

// The keys the reader looks for, by number (gml_key_names[k] for key k).
enum class gml_key : unsigned char {
  other,
  graph,
  directed,
  node,
  edge,
  id,
  label,
  source,
  target,
  weight,
  value
};
constexpr std::string_view gml_key_names[] = {"",      "graph",  "directed", "node",   "edge", "id",
                                              "label", "source", "target",   "weight", "value"};

class gml_reader {
 public:
  gml_reader(text_windows& windows, const std::string& file, const std::string& refuse_negative)
      : lex_(windows, file), file_(file), build_(file, refuse_negative) {}

  declared_graph read() {
    bool graphs = false;
    for (gml_token key = lex_.next(); key.kind != gml_kind::end; key = lex_.next()) {
      expect_key(key);
      const gml_token value = value_of(key);
      if (key_ == gml_key::graph && value.kind == gml_kind::open) {
        if (graphs) throw parse_error(file_, key.line, "a second graph: perron reads one graph a file");
        graphs = true;
        graph(value.line);
      } else {
        skip(value);
      }
    }
    if (!graphs) throw parse_error(file_, 0, "no 'graph [ ... ]' in this GML file");
    const id_lookup lookup(build_.ids(), node_lines_, file_);
    node_lines_ = std::vector<std::uint64_t>();
    for (const pending_edge& e : edges_) {
      const index_t s = vertex_of(lookup, e.source, e.line, "source");
      const index_t t = vertex_of(lookup, e.target, e.line, "target");
      build_.arc(s, t, e.weight, e.weighted, !directed_);
    }
    return build_.finish();
  }

 private:
  struct pending_edge {
    std::int64_t source = 0, target = 0;
    double weight = 1;
    bool weighted = false;
    std::uint64_t line = 0;
  };

  void expect_key(const gml_token& t) const {
    if (t.kind != gml_kind::key)
      throw parse_error(file_, t.line,
                        t.kind == gml_kind::close ? "a ']' with no '[' open"
                                                  : "expected a key, found '" + std::string(t.text) + "'");
  }

  // The value after `key`, which is kept in key_ first (a token's text
  // lasts until the lexer's next token): the keys perron reads by name, the
  // text of any other.
  gml_token value_of(const gml_token& key) {
    key_ = gml_key::other;
    for (std::size_t k = 1; k < std::size(gml_key_names); ++k)
      if (key.text == gml_key_names[k]) key_ = static_cast<gml_key>(k);
    if (key_ == gml_key::other) other_key_.assign(key.text);
    const gml_token v = lex_.next();
    if (v.kind == gml_kind::end || v.kind == gml_kind::close || v.kind == gml_kind::key)
      throw parse_error(file_, key.line,
                        "key '" + key_name() + "' has no value" +
                            (v.kind == gml_kind::key ? " (found '" + std::string(v.text) + "')" : ""));
    return v;
  }

  std::string key_name() const {
    return key_ == gml_key::other ? other_key_ : std::string(gml_key_names[static_cast<std::size_t>(key_)]);
  }

  // Past a value: a list to its matching ']', iteratively (no recursion a
  // hostile nesting could overflow).
  void skip(const gml_token& value) {
    if (value.kind != gml_kind::open) return;
    std::uint64_t depth = 1;
    while (depth > 0) {
      const gml_token t = lex_.next();
      if (t.kind == gml_kind::end) throw parse_error(file_, value.line, "the list opened here is not closed");
      depth += t.kind == gml_kind::open;
      depth -= t.kind == gml_kind::close;
    }
  }

  // The value v of the key key_.
  std::int64_t integer(const gml_token& v) const {
    std::int64_t x = 0;
    if (v.kind != gml_kind::integer ||
        scan_signed(v.text.data(), v.text.data() + v.text.size(), x) == nullptr)
      throw parse_error(file_, v.line,
                        "'" + key_name() + "' is '" + std::string(v.text) + "', not an integer");
    return x;
  }

  double real(const gml_token& v) const {
    double x = 0;
    if ((v.kind != gml_kind::integer && v.kind != gml_kind::real) || !parse_real(v.text, x))
      throw parse_error(file_, v.line,
                        "edge " + key_name() + " '" + std::string(v.text) + "' is not a finite number");
    return x;
  }

  // An edge's weight (its `weight` or `value`), refused at its line where negative ones are.
  double weight(const gml_token& v) const {
    const double x = real(v);
    const std::string why = build_.negative_weight(x);
    if (!why.empty()) throw parse_error(file_, v.line, why);
    return x;
  }

  void graph(std::uint64_t open_line) {
    for (;;) {
      const gml_token key = lex_.next();
      if (key.kind == gml_kind::close) return;
      if (key.kind == gml_kind::end)
        throw parse_error(file_, open_line, "the graph's list is not closed (no ']')");
      expect_key(key);
      const gml_token value = value_of(key);
      if (key_ == gml_key::directed && value.kind != gml_kind::open) {
        directed_ = integer(value) != 0;
      } else if (key_ == gml_key::node && value.kind == gml_kind::open) {
        node(value.line);
      } else if (key_ == gml_key::edge && value.kind == gml_kind::open) {
        edge(value.line);
      } else {
        skip(value);
      }
    }
  }

  void node(std::uint64_t open_line) {
    bool has_id = false;
    std::int64_t id = 0;
    std::string label;
    for (;;) {
      const gml_token key = lex_.next();
      if (key.kind == gml_kind::close) break;
      if (key.kind == gml_kind::end)
        throw parse_error(file_, open_line, "the node's list is not closed (no ']')");
      expect_key(key);
      const gml_token value = value_of(key);
      if (key_ == gml_key::id && value.kind != gml_kind::open) {
        id = integer(value);
        has_id = true;
      } else if (key_ == gml_key::label && value.kind != gml_kind::open) {
        label = value.kind == gml_kind::string ? gml_unescape(value.text) : std::string(value.text);
      } else {
        skip(value);
      }
    }
    if (!has_id) throw parse_error(file_, open_line, "a node with no id");
    build_.label(build_.vertex_id(id, open_line), std::move(label));
    node_lines_.push_back(open_line);  // for an id declared twice, found once all are read
  }

  void edge(std::uint64_t open_line) {
    pending_edge e;
    e.line = open_line;
    bool source = false, target = false, by_value = false;
    for (;;) {
      const gml_token key = lex_.next();
      if (key.kind == gml_kind::close) break;
      if (key.kind == gml_kind::end)
        throw parse_error(file_, open_line, "the edge's list is not closed (no ']')");
      expect_key(key);
      const gml_token value = value_of(key);
      if (key_ == gml_key::source && value.kind != gml_kind::open) {
        e.source = integer(value);
        source = true;
      } else if (key_ == gml_key::target && value.kind != gml_kind::open) {
        e.target = integer(value);
        target = true;
      } else if (key_ == gml_key::weight && value.kind != gml_kind::open) {
        e.weight = weight(value);
        e.weighted = true;
        by_value = false;
      } else if (key_ == gml_key::value &&
                 (value.kind == gml_kind::integer || value.kind == gml_kind::real) &&
                 (!e.weighted || by_value)) {
        e.weight = weight(value);  // Newman's files weigh edges by `value`
        e.weighted = by_value = true;
      } else {
        skip(value);
      }
    }
    if (!source || !target)
      throw parse_error(file_, open_line, std::string("an edge with no ") + (source ? "target" : "source"));
    edges_.push_back(e);
  }

  index_t vertex_of(const id_lookup& lookup, std::int64_t id, std::uint64_t line, const char* end) const {
    const index_t v = lookup.find(id);
    if (v < 0)
      throw parse_error(file_, line,
                        std::string("the edge's ") + end + " " + std::to_string(id) + " is no node's id");
    return v;
  }

  gml_lexer lex_;
  gml_key key_ = gml_key::other;  // the key whose value was read last
  std::string other_key_;         // its text, where it is none perron reads
  const std::string& file_;
  graph_builder build_;
  std::vector<pending_edge> edges_;
  std::vector<std::uint64_t> node_lines_;  // where vertex v's node list opens
  bool directed_ = false;                  // GML's default: undirected
};

}  // namespace

declared_graph parse_gml(text_windows& windows, const std::string& name, const std::string& refuse_negative) {
  return gml_reader(windows, name, refuse_negative).read();
}

// ---- Pajek -------------------------------------------------------------------
//
// '%' comments; *Network; *Vertices n (then "k label x y ..." lines, the
// label quoted where it holds blanks); *Arcs / *Edges ("u v [weight]
// [attributes]"), *Arcslist / *Edgeslist ("u v1 v2 ..."), *Matrix (n rows
// of n weights); other sections (*Partition, *Vector of a .paj project) are
// skipped.

namespace {

enum class pajek_section { none, vertices, arcs, edges, arcs_list, edges_list, matrix, other };

// The line's fields into f: blank-separated, a "quoted" one whole (without quotes).
void pajek_fields(std::string_view line, std::vector<std::string_view>& f) {
  f.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) break;
    if (line[i] == '"') {
      const std::size_t close = line.find('"', i + 1);
      const std::size_t stop = close == std::string_view::npos ? line.size() : close;
      f.push_back(line.substr(i + 1, stop - i - 1));
      i = close == std::string_view::npos ? line.size() : close + 1;
    } else {
      const std::size_t start = i;
      while (i < line.size() && !is_space(line[i])) ++i;
      f.push_back(line.substr(start, i - start));
    }
  }
}

class pajek_reader {
 public:
  pajek_reader(const std::string& file, const std::string& refuse_negative)
      : file_(file), build_(file, refuse_negative) {}

  void line(std::string_view l, std::uint64_t number) {
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (number == 1) l = without_bom(l);
    std::size_t k = 0;
    while (k < l.size() && is_space(l[k])) ++k;
    l.remove_prefix(k);
    if (l.empty() || l[0] == '%') return;
    if (l[0] == '*') return header(l, number);
    switch (section_) {
      case pajek_section::none:
        throw parse_error(file_, number, "a line before *Vertices (a Pajek file opens with *Vertices n)");
      case pajek_section::vertices:
        return vertex(l, number);
      case pajek_section::arcs:
      case pajek_section::edges:
        return arc(l, number);
      case pajek_section::arcs_list:
      case pajek_section::edges_list:
        return arc_list(l, number);
      case pajek_section::matrix:
        return matrix_row(l, number);
      case pajek_section::other:
        return;
    }
  }

  declared_graph finish() {
    if (!declared_) throw parse_error(file_, 0, "no *Vertices line: not a Pajek network");
    matrix_whole(0);
    return build_.finish();
  }

 private:
  // A *Matrix section holds its n rows whole: one that ends short (at the
  // next section's line `number`, or at the file's end, 0) is refused; it
  // read as the rows given, the rest no arcs.
  void matrix_whole(std::uint64_t number) const {
    if (section_ == pajek_section::matrix && row_ < n_)
      throw parse_error(file_, number,
                        "*Matrix (line " + std::to_string(matrix_line_) + ") ends after " +
                            std::to_string(row_) + " of the " + std::to_string(n_) +
                            " rows *Vertices declares");
  }

  void header(std::string_view l, std::uint64_t number) {
    matrix_whole(number);
    pajek_fields(l, f_);
    const std::vector<std::string_view>& f = f_;
    const std::string word = ascii_lower(f[0]);
    const auto need_vertices = [&] {
      if (!declared_) throw parse_error(file_, number, std::string(f[0]) + " before *Vertices");
    };
    if (word == "*network") {
      if (++networks_ > 1 || declared_)
        throw parse_error(file_, number, "a second network (a Pajek project): perron reads one graph a file");
      section_ = pajek_section::none;
    } else if (word == "*vertices") {
      if (declared_)
        throw parse_error(file_, number,
                          "a second *Vertices (a Pajek project): perron reads one graph a file");
      std::uint64_t n = 0;
      if (f.size() < 2 ||
          scan_unsigned(f[1].data(), f[1].data() + f[1].size(), n) != f[1].data() + f[1].size())
        throw parse_error(file_, number, "*Vertices needs the number of vertices ('*Vertices 34')");
      build_.declare_numbered(n, number);
      n_ = n;
      declared_ = true;
      section_ = pajek_section::vertices;
    } else if (word == "*arcs") {
      need_vertices();
      section_ = pajek_section::arcs;
    } else if (word == "*edges") {
      need_vertices();
      section_ = pajek_section::edges;
    } else if (word == "*arcslist") {
      need_vertices();
      section_ = pajek_section::arcs_list;
    } else if (word == "*edgeslist") {
      need_vertices();
      section_ = pajek_section::edges_list;
    } else if (word == "*matrix") {
      need_vertices();
      section_ = pajek_section::matrix;
      row_ = 0;
      matrix_line_ = number;
    } else {
      // *Partition, *Vector, *Permutation ... of a project: not the graph.
      if (declared_)
        section_ = pajek_section::other;
      else
        throw parse_error(file_, number, "'" + std::string(f[0]) + "' before *Vertices");
    }
  }

  index_t number_of(std::string_view field, std::uint64_t line, const char* what) const {
    std::uint64_t k = 0;
    if (field.empty() ||
        scan_unsigned(field.data(), field.data() + field.size(), k) != field.data() + field.size())
      throw parse_error(file_, line,
                        std::string(what) + " '" + std::string(field) + "' is not a vertex number (1 to " +
                            std::to_string(n_) + ")");
    if (k < 1 || k > n_)
      throw parse_error(file_, line,
                        std::string(what) + " " + std::to_string(k) + " is beyond the " + std::to_string(n_) +
                            " vertices *Vertices declares (numbered from 1)");
    return static_cast<index_t>(k - 1);
  }

  void vertex(std::string_view l, std::uint64_t number) {
    pajek_fields(l, f_);
    const std::vector<std::string_view>& f = f_;
    const index_t v = number_of(f[0], number, "vertex");
    if (f.size() > 1) build_.label(v, std::string(f[1]));
  }

  void arc(std::string_view l, std::uint64_t number) {
    pajek_fields(l, f_);
    const std::vector<std::string_view>& f = f_;
    if (f.size() < 2)
      throw parse_error(file_, number, "an arc needs two vertex numbers ('1 2' or '1 2 0.5')");
    const index_t u = number_of(f[0], number, "vertex");
    const index_t v = number_of(f[1], number, "vertex");
    double w = 1;
    bool weighted = false;
    if (f.size() > 2) {
      const char c = f[2][0];
      // A weight is a number; words after the ends are Pajek's attributes (c Blue, l "x"),
      // but for the words of a number that is not finite (nan, inf: read as no weight, 1).
      const bool not_finite = iequals(f[2], "nan") || iequals(f[2], "inf") || iequals(f[2], "infinity");
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.' || not_finite) {
        if (!parse_real(f[2], w))
          throw parse_error(file_, number, "weight '" + std::string(f[2]) + "' is not a finite number");
        const std::string why = build_.negative_weight(w);
        if (!why.empty()) throw parse_error(file_, number, why);
        weighted = true;
      }
    }
    build_.arc(u, v, w, weighted, section_ == pajek_section::edges);
  }

  void arc_list(std::string_view l, std::uint64_t number) {
    pajek_fields(l, f_);
    const std::vector<std::string_view>& f = f_;
    const index_t u = number_of(f[0], number, "vertex");
    for (std::size_t k = 1; k < f.size(); ++k)
      build_.arc(u, number_of(f[k], number, "vertex"), 1, false, section_ == pajek_section::edges_list);
  }

  // One row a line, as Pajek writes it: a line of another count shifted
  // every later value into another cell without a word.
  void matrix_row(std::string_view l, std::uint64_t number) {
    pajek_fields(l, f_);
    if (row_ >= n_)
      throw parse_error(file_, number, "more than the " + std::to_string(n_) + " rows *Matrix holds");
    if (f_.size() != n_)
      throw parse_error(file_, number,
                        "row " + std::to_string(row_ + 1) + " of *Matrix holds " + std::to_string(f_.size()) +
                            " values; *Vertices declares " + std::to_string(n_));
    for (std::size_t col = 0; col < f_.size(); ++col) {
      const std::string_view field = f_[col];
      double w = 0;
      if (!parse_real(field, w))
        throw parse_error(file_, number, "matrix entry '" + std::string(field) + "' is not a finite number");
      const std::string why = build_.negative_weight(w);
      if (!why.empty()) throw parse_error(file_, number, why);
      if (w != 0) build_.arc(static_cast<index_t>(row_), static_cast<index_t>(col), w, w != 1, false);
    }
    ++row_;
  }

  const std::string& file_;
  graph_builder build_;
  std::vector<std::string_view> f_;  // the line's fields, kept from line to line
  pajek_section section_ = pajek_section::none;
  std::uint64_t n_ = 0, row_ = 0, matrix_line_ = 0;
  int networks_ = 0;
  bool declared_ = false;
};

}  // namespace

declared_graph parse_pajek(text_windows& windows, const std::string& name,
                           const std::string& refuse_negative) {
  pajek_reader reader(name, refuse_negative);
  std::uint64_t number = 1;
  for (std::string_view w = windows.next(); !w.empty(); w = windows.next()) {
    while (!w.empty()) {
      const std::size_t eol = w.find('\n');
      reader.line(w.substr(0, eol), number++);
      if (eol == std::string_view::npos) break;
      w.remove_prefix(eol + 1);
    }
  }
  return reader.finish();
}

}  // namespace perron::io::detail
