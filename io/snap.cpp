// SNAP edge-list reader: the same chunked parallel parse as the Matrix Market
// reader (io/text_input.hpp), then a monotone remap of the original ids.
#include "io/snap.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "io/archive.hpp"
#include "io/inflate.hpp"
#include "io/name_table.hpp"
#include "io/text_input.hpp"

namespace perron::io {
namespace {

using detail::line_chunk;

// An edge line's fields: blanks between them, or a comma with blanks around it.
inline bool at_field_end(const char* p, const char* end) { return detail::at_delimiter(p, end) || *p == ','; }
inline const char* skip_separator(const char* p, const char* end) {
  p = detail::skip_blanks(p, end);
  if (p != end && *p == ',') p = detail::skip_blanks(p + 1, end);
  return p;
}

inline bool at_line_end(const char* p, const char* end) {
  return p == end || *p == '\n' || (*p == '\r' && (p + 1 == end || p[1] == '\n'));
}

// The fields of one line, as the parse separates them (an empty field
// between two commas, or after a trailing one, included), for diagnosis and
// for telling a header from an edge.
std::vector<std::string_view> edge_fields(const char* p, const char* end) {
  std::vector<std::string_view> fields;
  p = detail::skip_blanks(p, end);
  if (at_line_end(p, end)) return fields;
  for (;;) {
    const char* q = p;
    while (q != end && !detail::is_blank(*q) && *q != ',' && !at_line_end(q, end)) ++q;
    fields.emplace_back(p, static_cast<std::size_t>(q - p));
    const char* r = detail::skip_blanks(q, end);
    if (r != end && *r == ',') {
      p = detail::skip_blanks(r + 1, end);
      continue;  // a field follows, if only an empty one
    }
    if (at_line_end(r, end)) return fields;
    p = r;
  }
}

bool is_id(std::string_view f) {
  std::uint64_t v = 0;
  return !f.empty() && detail::scan_unsigned(f.data(), f.data() + f.size(), v) == f.data() + f.size();
}

bool is_number(std::string_view f) {
  double v = 0;
  return !f.empty() &&
         (is_id(f) || detail::scan_real(f.data(), f.data() + f.size(), v) == f.data() + f.size());
}

// A header's field is a column name: text, no control byte (a line of
// binary bytes whose blanks happen to split it in two or three is no header).
bool is_name_text(std::string_view f, bool quoted) {
  return std::none_of(f.begin(), f.end(), [quoted](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && !(quoted && c == '\t')) || u == 0x7f;
  });
}
bool is_name(std::string_view f) { return is_name_text(f, false); }

// Whether a CSV field is in double quotes (a name in them may hold a tab: a
// spreadsheet's cell, a name --output wrote).
bool in_quotes(std::string_view f) { return f.size() >= 2 && f.front() == '"' && f.back() == '"'; }

// A word: a name that starts with a letter, two bytes or more ("alice",
// "u42"; a stray "x" beside an id is a bad id).
bool is_word(std::string_view f) {
  return f.size() >= 2 && std::isalpha(static_cast<unsigned char>(f[0])) && !is_number(f);
}

// An edge line's layouts: "from to", "from to weight", and KONECT's "from to
// weight time" (its temporal networks; the time is read as a number and dropped).
constexpr std::size_t max_fields = 4;
const char* field_names(std::size_t fields) {
  return fields == 4 ? "from to weight time" : fields == 3 ? "from to weight" : "from to";
}

// networkx's write_edgelist (its default, data=True) ends each line with
// the edge's attributes as a Python dict: "1 2 {}", "1 2 {'weight': 2.0}".
// The weight is the 'weight' key's number, 1 where the dict has none (as
// networkx's pagerank takes a missing weight). p at the '{': returns past
// the dict's '}', which ends the line, or nullptr with `why` set.
const char* scan_data_dict(const char* p, const char* end, double& w, const char*& why) {
  const char* close = p;
  while (close != end && *close != '\n') ++close;
  while (close != p && (detail::is_blank(close[-1]) || close[-1] == '\r')) --close;
  if (close == p || close[-1] != '}') {
    why = "expected the edge's data as networkx writes it, a dict {...} that ends the line";
    return nullptr;
  }
  w = 1.0;
  for (const char* key : {"'weight'", "\"weight\""}) {
    const std::string_view inside(p, static_cast<std::size_t>(close - p));
    const std::size_t at = inside.find(key);
    if (at == std::string_view::npos) continue;
    const char* v = detail::skip_blanks(p + at + 8, close);
    if (v == close || *v != ':') break;  // a value named 'weight', not the key
    v = detail::skip_blanks(v + 1, close);
    const char* e = detail::scan_real(v, close, w);
    const char* t = e ? detail::skip_blanks(e, close) : close;
    if (t == close || (*t != ',' && *t != '}')) {
      why = "the 'weight' in the edge's data is not a number";
      return nullptr;
    }
    break;
  }
  return close;
}

// What a name among integer ids gets told: the list's first edge line
// decides whether its vertices are ids or names (parse_names).
constexpr const char* names_hint =
    " (the list's first edge gives integer ids, so every vertex must be one; an edge list of vertex names "
    "is read where its first edge names its vertices, or with --names (Python: names=True) whatever it "
    "gives)";

// What is wrong with an id's field `f` ("" where it is an id); `what` is
// "source id" or "target id".
std::string id_problem(const char* what, std::string_view f) {
  const char* b = f.data();
  const char* e = b + f.size();
  if (b == e) return std::string(what) + " is an empty field";
  std::uint64_t v = 0;
  if (detail::scan_unsigned(b, e, v) == e) return {};
  std::int64_t s = 0;
  const std::string q = detail::quote_bytes(b, e);
  if (*b == '-' && detail::scan_signed(b, e, s) == e) return std::string(what) + " " + q + " is negative";
  const bool digits =
      std::all_of(b + (*b == '+'), e, [](char c) { return c >= '0' && c <= '9'; }) && e - b > (*b == '+');
  if (digits) return std::string(what) + " " + q + " does not fit a 63-bit integer";
  // A name, not a corrupt number ("alice"; a stray "x" is no name).
  return std::string(what) + " " + q + " is not a non-negative integer" + (is_word(f) ? names_hint : "");
}

// Each field is quoted whole (quote_bytes): a line ending "\r\r\n" (a CRLF
// file converted once more) said "target id '1412' is not a non-negative
// integer", its stray CR hidden.
std::string diagnose_edge(const char* line, const char* end, const detail::edge_columns& columns) {
  auto fields = edge_fields(line, end);
  if (columns.index && !fields.empty()) fields.erase(fields.begin());  // pandas' row index
  const char* names[2] = {"source id", "target id"};
  const std::size_t want = columns.fields;
  const bool weights = want >= 3;
  // A control byte in a vertex field: said so, not that the other field is no
  // id ("cd e\x01f" under a line of words read as a header said "source id 'cd'").
  for (std::size_t k = 0; k < std::min<std::size_t>(2, fields.size()); ++k)
    if (std::any_of(fields[k].begin(), fields[k].end(), [](char c) {
          const auto u = static_cast<unsigned char>(c);
          return (u < 0x20 && c != '\r') || u == 0x7f;
        }))
      return std::string(k == 0 ? "source" : "target") + " field " +
             detail::quote_bytes(fields[k].data(), fields[k].data() + fields[k].size()) +
             " holds a control character";
  // One field: too few, whatever it holds ("Source;Target", a semicolon
  // separated file, was told its source id is no integer).
  if (fields.size() == 1) {
    const std::string_view f = fields[0];
    const bool other = f.find_first_of(";|") != std::string_view::npos;
    return "expected 2 fields (from to), 3 (from to weight) or 4 (from to weight time), found 1" +
           std::string(other ? " (fields are separated by blanks, tabs or commas; not by ';' or '|')" : "");
  }
  for (std::size_t k = 0; k < std::min<std::size_t>(2, fields.size()); ++k) {
    std::string why = id_problem(names[k], fields[k]);
    if (!why.empty()) return why;
  }
  if (columns.data && fields.size() >= 2) {
    const char* p = skip_separator(fields[1].data() + fields[1].size(), end);
    double w = 0;
    const char* why = "malformed edge line";
    if (p == end || *p != '{')
      why = "expected the edge's data as networkx writes it, a dict {...} that ends the line";
    else
      scan_data_dict(p, end, w, why);
    return why;
  }
  if (weights && fields.size() >= 3) {
    const char* b = fields[2].data();
    const char* e = b + fields[2].size();
    if (b == e) return "weight is an empty field";
    double w = 0;
    if (detail::scan_real(b, e, w) != e) {
      std::string why = detail::real_problem(b, e);
      if (why.empty()) {
        // real_problem ends a number at a CR (a CRLF line's end): here one stray in the field ("0.5\r").
        const char* c = std::find_if(b, e, [](char x) { return static_cast<unsigned char>(x) < 0x20; });
        why =
            "is not a number" + (c != e ? " (unexpected " + detail::describe_char(*c) + ")" : std::string());
      }
      return "weight " + detail::quote_bytes(b, e) + " " + why;
    }
  }
  if (want == 4 && fields.size() >= 4) {
    const char* b = fields[3].data();
    const char* e = b + fields[3].size();
    double t = 0;
    if (b == e) return "time is an empty field";
    if (detail::scan_real(b, e, t) != e) return "time " + detail::quote_bytes(b, e) + " is not a number";
  }
  if (fields.size() < 2 || fields.size() > max_fields) {
    std::string why = "expected 2 fields (from to), 3 (from to weight) or 4 (from to weight time), found " +
                      std::to_string(fields.size());
    if (fields.size() > max_fields) {
      const std::string_view x = fields[max_fields];
      why += " (unexpected " +
             (x.empty() ? std::string("empty field") : detail::quote_bytes(x.data(), x.data() + x.size())) +
             ")";
    }
    return why;
  }
  if (fields.size() != want)
    return "found " + std::to_string(fields.size()) + " fields where the list's lines have " +
           std::to_string(want) + " (" + field_names(want) + ")";
  return "malformed edge line";
}

// Why a weight is refused where the reading refuses negative ones
// (edge_columns::refuse_negative), or "" for one that is kept.
std::string negative_weight(double w, const detail::edge_columns& columns) {
  return w < 0.0 && !columns.refuse_negative.empty()
             ? "weight " + format_shortest(w) + ": " + columns.refuse_negative
             : std::string();
}

struct chunk_result {
  std::size_t edges = 0;
  std::uint64_t max_id = 0;
  detail::chunk_error error;
};

// Where a chunk's parse puts its edges (original ids; weights where `weight`
// is set, null for a list of "from to" lines), counted in locals the loop
// keeps in registers, then handed to its chunk_result at the chunk's end or
// at its first bad line.
struct chunk_edges {
  std::int64_t* src;
  std::int64_t* dst;
  double* weight;
  std::size_t n = 0;
  std::uint64_t max_id = 0;
  void add(std::uint64_t a, std::uint64_t b, double w) {
    src[n] = static_cast<std::int64_t>(a);
    dst[n] = static_cast<std::int64_t>(b);
    if (weight) weight[n] = w;
    max_id = std::max(max_id, std::max(a, b));
    ++n;
  }
  void end(chunk_result& res) const {
    res.edges = n;
    res.max_id = max_id;
  }
  void fail(chunk_result& res, const char* line, std::string why) const {
    end(res);
    res.error.line = line;
    res.error.reason = std::move(why);
  }
};

// One line's fields as a CSV reader splits them: blanks or a comma between,
// empty fields between commas, a field in double quotes holding commas and
// blanks ("a, b", "" for a quote). Returns the next line's start, or nullptr
// where a quote is not closed or text follows a closing quote.
const char* split_fields(const char* p, const char* end, std::vector<std::string_view>& f) {
  f.clear();
  p = detail::skip_blanks(p, end);
  for (;;) {
    const char* b = p;
    if (p != end && *p == '"') {
      for (++p; p != end && *p != '\n'; ++p)
        if (*p == '"') {
          if (p + 1 != end && p[1] == '"') {
            ++p;
            continue;
          }
          break;
        }
      if (p == end || *p != '"') return nullptr;
      ++p;
    } else {
      while (p != end && !detail::is_blank(*p) && *p != ',' && !at_line_end(p, end)) ++p;
    }
    f.emplace_back(b, static_cast<std::size_t>(p - b));
    const char* r = detail::skip_blanks(p, end);
    if (r != end && *r == ',') {
      p = detail::skip_blanks(r + 1, end);
      continue;
    }
    if (at_line_end(r, end)) return detail::end_of_line(r, end);
    if (r == p) return nullptr;  // text right after a closing quote
    p = r;
  }
}

// Whether a field is one number, whole (an id; a real).
bool whole_id(std::string_view f, std::uint64_t& v) {
  return !f.empty() && detail::scan_unsigned(f.data(), f.data() + f.size(), v) == f.data() + f.size();
}
bool whole_real(std::string_view f, double& v) {
  return !f.empty() && detail::scan_real(f.data(), f.data() + f.size(), v) == f.data() + f.size();
}

// The lines under a header that names its columns (edge_columns::named):
// source, target and weight by their places, the other fields skipped.
void parse_named_chunk(const line_chunk& c, const detail::edge_columns& columns, std::int64_t* src,
                       std::int64_t* dst, double* weight, chunk_result& res) {
  const char* p = c.begin;
  const char* const end = c.end;
  chunk_edges out{src, dst, weight};
  std::vector<std::string_view> f;
  f.reserve(columns.named);
  const auto fail = [&](const char* line, std::string why) { out.fail(res, line, std::move(why)); };
  while (p != end) {
    const char* line = p;
    p = detail::skip_blanks(p, end);
    if (p == end) break;
    if (detail::skip_empty_or_comment(p, end, '#')) continue;
    const char* next = split_fields(p, end, f);
    if (!next) return fail(line, "a field's double quote is not closed, or text follows its closing quote");
    if (f.size() != columns.named)
      return fail(line, "found " + std::to_string(f.size()) + " fields where the header names " +
                            std::to_string(columns.named));
    std::uint64_t a = 0, b = 0;
    double w = 0;
    const std::string_view fa = f[columns.source], fb = f[columns.target];
    if (!whole_id(fa, a)) return fail(line, id_problem("source id", fa));
    if (!whole_id(fb, b)) return fail(line, id_problem("target id", fb));
    if (weight) {
      const std::string_view fw = f[static_cast<std::size_t>(columns.weight_at)];
      if (!whole_real(fw, w) || !std::isfinite(w))
        return fail(line, "weight " + detail::quote_bytes(fw.data(), fw.data() + fw.size()) +
                              " is not a finite number");
      if (w < 0.0 && !columns.refuse_negative.empty()) return fail(line, negative_weight(w, columns));
    }
    out.add(a, b, w);
    p = next;
  }
  out.end(res);
}

// One chunk's lines: the positional layouts in one pass of the scanners,
// a header's named columns by a split of each line.
void parse_edge_chunk(const line_chunk& c, const detail::edge_columns& columns, std::int64_t* src,
                      std::int64_t* dst, double* weight, chunk_result& res) {
  if (columns.named) return parse_named_chunk(c, columns, src, dst, weight, res);
  const std::size_t fields = columns.fields;
  const bool data = columns.data, index = columns.index;
  const char* p = c.begin;
  const char* const end = c.end;
  chunk_edges out{src, dst, weight};
  while (p != end) {
    const char* line = p;
    p = detail::skip_blanks(p, end);
    if (p == end) break;
    if (detail::skip_empty_or_comment(p, end, '#')) continue;
    std::uint64_t a = 0, b = 0;
    double w = 0;
    const char* q = p;
    if (index) {  // pandas' row index: any field, dropped
      while (q != end && !at_field_end(q, end)) ++q;
      q = q != p ? skip_separator(q, end) : nullptr;
    }
    q = q ? detail::scan_unsigned(q, end, a) : nullptr;
    if (q && at_field_end(q, end)) q = detail::scan_unsigned(skip_separator(q, end), end, b);
    if (data && q && at_field_end(q, end)) {
      const char* why = nullptr;
      q = skip_separator(q, end);
      q = q != end && *q == '{' ? scan_data_dict(q, end, w, why) : nullptr;
    } else if (weight && q && at_field_end(q, end)) {
      q = detail::scan_real(skip_separator(q, end), end, w);
    }
    double time = 0;  // KONECT's timestamp: read to check it is a number, then dropped
    if (fields == 4 && q && at_field_end(q, end)) q = detail::scan_real(skip_separator(q, end), end, time);
    const char* next = q && detail::at_delimiter(q, end) ? detail::end_of_line(q, end) : nullptr;
    if (!next) return out.fail(res, line, diagnose_edge(line, end, columns));
    if (w < 0.0 && !columns.refuse_negative.empty()) return out.fail(res, line, negative_weight(w, columns));
    out.add(a, b, w);
    p = next;
  }
  out.end(res);
}

// The edges in file order, as their original 64-bit ids (and weights).
struct edge_list {
  std::vector<std::int64_t> src, dst;
  std::vector<double> weight;  // empty unless the lines give one
  std::uint64_t max_id = 0;
};

// Parses one window's lines in parallel chunks, one slot per line (sized by
// the data, not a header) past the edges of earlier windows, then packs them.
// Returns the newlines in [begin, end).
std::uint64_t parse_edge_window(const char* begin, const char* end, std::uint64_t first_line,
                                const std::string& name, const read_options& opt, unsigned threads,
                                const detail::edge_columns& columns, edge_list& el) {
  const bool weights = columns.weights();
  const auto chunks = detail::split_lines(begin, end, first_line, threads, opt.chunk_bytes);
  const std::size_t slots = chunks.empty() ? 0 : chunks.back().first_slot + chunks.back().lines;
  std::vector<std::int64_t>& src = el.src;
  std::vector<std::int64_t>& dst = el.dst;
  std::vector<double>& weight = el.weight;
  const std::size_t base = src.size();
  detail::check_parse_growth(name, base, slots, 2 * sizeof(std::int64_t) + (weights ? sizeof(double) : 0),
                             src.capacity());
  if (weights)
    detail::resize_outputs(base + slots, threads, src, dst, weight);
  else
    detail::resize_outputs(base + slots, threads, src, dst);
  std::vector<chunk_result> res(chunks.size());
  const auto nchunks = static_cast<std::int64_t>(chunks.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (nchunks > 1)
  for (std::int64_t k = 0; k < nchunks; ++k) {
    const auto& c = chunks[static_cast<std::size_t>(k)];
    parse_edge_chunk(c, columns, src.data() + base + c.first_slot, dst.data() + base + c.first_slot,
                     weights ? weight.data() + base + c.first_slot : nullptr,
                     res[static_cast<std::size_t>(k)]);
  }
  std::vector<detail::chunk_error> errors(res.size());
  std::vector<std::size_t> count(res.size());
  for (std::size_t k = 0; k < res.size(); ++k) {
    errors[k] = res[k].error;
    count[k] = res[k].edges;
    el.max_id = std::max(el.max_id, res[k].max_id);
  }
  detail::throw_first_error(name, chunks, errors);
  const std::size_t edges = base + detail::pack_slots(src.data() + base, chunks, count);
  detail::pack_slots(dst.data() + base, chunks, count);
  src.resize(edges);
  dst.resize(edges);
  if (weights) {
    detail::pack_slots(weight.data() + base, chunks, count);
    weight.resize(edges);
  }
  if (edges > max_index)
    throw dimension_error(name + ": " + std::to_string(edges) +
                          " edges exceed perron's 32-bit index limit (" + std::to_string(max_index) + ")");
  return detail::newlines_in(chunks);
}

// Every window's edges, in file order, the first window from its first edge line's line.
edge_list parse_edges(std::string_view first, std::uint64_t first_line, detail::text_windows& more,
                      const std::string& name, const read_options& opt, unsigned threads,
                      const detail::edge_columns& columns) {
  const bool weights = columns.weights();
  edge_list el;
  if (weights)
    detail::reserve_for_windows(more.size_hint(), first.data(), first.data() + first.size(), el.src, el.dst,
                                el.weight);
  else
    detail::reserve_for_windows(more.size_hint(), first.data(), first.data() + first.size(), el.src, el.dst);
  std::uint64_t line = first_line;
  // The first window's body may be empty (the window ended with the header):
  // the edges are in the windows after it (all were dropped, session 107).
  bool at_first = true;
  for (std::string_view w = first;; w = more.next(), at_first = false) {
    if (w.empty()) {
      if (at_first) continue;
      break;
    }
    line += parse_edge_window(w.data(), w.data() + w.size(), line, name, opt, threads, columns, el);
  }
  return el;
}

// ---- an edge list of vertex names ---------------------------------------------
//
// "alice bob" lines (networkx's write_edgelist of a graph of strings, igraph's
// ncol, a CSV of user names): every token where an id belongs is a name,
// "007" and "7" two of them. Vertices are numbered in the order their names
// first appear (source before target on a line), as networkx's read_edgelist
// adds its nodes; one thread reads the lines, so that order is the file's.

// A name as its field holds it, CSV's quotes removed ("" is one quote);
// `scratch` holds an unescaped copy where it needs one.
std::string_view unquoted(std::string_view f, std::string& scratch) {
  if (!in_quotes(f)) return f;
  f = f.substr(1, f.size() - 2);
  if (f.find('"') == std::string_view::npos) return f;
  scratch.clear();
  for (std::size_t k = 0; k < f.size(); ++k) {
    scratch += f[k];
    if (f[k] == '"' && k + 1 < f.size() && f[k + 1] == '"') ++k;
  }
  return scratch;
}

// Whether the two fields where the ids belong make a list of names: text,
// not empty, and both not numbers ("a b") or one a word ("alice 7"). An id
// that is negative, too large or fractional is still refused as one: "-1 2"
// is a bad id, not two names. all_names (--names): any such text is a name
// ("-1", "1.0", "x" beside a number).
bool names_of_vertices(std::string_view a, std::string_view b, bool all_names = false) {
  std::string s1, s2;
  const bool qa = in_quotes(a), qb = in_quotes(b);
  a = unquoted(a, s1);
  b = unquoted(b, s2);
  return !a.empty() && !b.empty() && is_name_text(a, qa) && is_name_text(b, qb) &&
         (all_names || (!is_number(a) && !is_number(b)) || is_word(a) || is_word(b));
}

struct named_edges {
  std::vector<index_t> src, dst;
  std::vector<double> weight;  // empty unless the lines give one
  detail::name_table names;
};

// One window's lines in order; parse_error with its line for a bad one.
// Returns the newlines in [begin, end).
std::uint64_t parse_name_window(const char* begin, const char* end, std::uint64_t first_line,
                                const std::string& name, const detail::edge_columns& columns,
                                named_edges& out) {
  const bool weights = columns.weights();
  const std::size_t lines = detail::count_newlines(begin, end) + 1;
  detail::check_parse_growth(name, out.src.size(), lines,
                             2 * sizeof(index_t) + (weights ? sizeof(double) : 0), out.src.capacity());
  std::vector<std::string_view> f;
  std::string s1, s2;
  std::uint64_t line = first_line;
  const char* p = begin;
  const auto fail = [&](const std::string& why) { throw parse_error(name, line, why); };
  const auto vertex = [&](const char* what, std::string_view field, std::string& scratch) {
    const std::string_view v = unquoted(field, scratch);
    if (v.empty()) fail(std::string(what) + " is an empty field");
    if (!is_name_text(v, in_quotes(field)))
      fail(std::string(what) + " " + detail::quote_bytes(v.data(), v.data() + v.size()) +
           " holds a control character");
    const index_t id = out.names.intern(v);
    if (id < 0)
      throw dimension_error(name + ": more than " + std::to_string(max_index) +
                            " distinct vertex names exceed perron's 32-bit index limit");
    return id;
  };
  const auto number = [&](const char* what, std::string_view field, double& v) {
    if (!whole_real(field, v) || !std::isfinite(v))
      fail(std::string(what) + " " + detail::quote_bytes(field.data(), field.data() + field.size()) +
           " is not a finite number");
  };
  for (; p != end; ++line) {
    const char* q = detail::skip_blanks(p, end);
    if (q == end) break;
    if (detail::skip_empty_or_comment(q, end, '#')) {
      p = q;
      continue;
    }
    double w = 1.0;
    const char* next = nullptr;
    if (columns.data) {
      // "alice bob {'weight': 2.0}": the names before the dict, the weight from it.
      const char* brace = q;
      while (brace != end && *brace != '{' && *brace != '\n') ++brace;
      if (brace == end || *brace != '{')
        fail("expected the edge's data as networkx writes it, a dict {...} that ends the line");
      if (!split_fields(q, brace, f) || f.size() != 2)
        fail("expected two vertex names before the edge's data, found " + std::to_string(f.size()));
      const char* why = nullptr;
      const char* close = scan_data_dict(brace, end, w, why);
      if (!close) fail(why);
      next = detail::end_of_line(close, end);
    } else {
      next = split_fields(q, end, f);
      if (!next) fail("a field's double quote is not closed, or text follows its closing quote");
    }
    std::size_t source = 0, target = 1;
    if (columns.named) {
      if (f.size() != columns.named)
        fail("found " + std::to_string(f.size()) + " fields where the header names " +
             std::to_string(columns.named));
      source = static_cast<std::size_t>(columns.source);
      target = static_cast<std::size_t>(columns.target);
      if (weights) number("weight", f[static_cast<std::size_t>(columns.weight_at)], w);
    } else if (!columns.data) {
      const std::size_t lead = columns.index ? 1 : 0;  // pandas' row index, dropped
      if (f.size() != columns.fields + lead)
        fail("found " + std::to_string(f.size() - std::min(f.size(), lead)) +
             " fields where the list's lines have " + std::to_string(columns.fields) + " (" +
             field_names(columns.fields) + ")");
      source += lead;
      target += lead;
      if (columns.fields >= 3) number("weight", f[lead + 2], w);
      double time = 0;  // KONECT's timestamp: checked, then dropped
      if (columns.fields == 4) number("time", f[lead + 3], time);
    }
    if (w < 0.0 && !columns.refuse_negative.empty()) fail(negative_weight(w, columns));
    out.src.push_back(vertex("source name", f[source], s1));
    out.dst.push_back(vertex("target name", f[target], s2));
    if (weights) out.weight.push_back(w);
    p = next;
  }
  return line - first_line - (begin != end && end[-1] != '\n' ? 1 : 0);
}

// One window in chunks on `threads` threads, each chunk's names numbered in
// its own order, then merged chunk by chunk: a chunk's names, in its order,
// take the next numbers where they are new. So every name gets the number
// the one-thread parse gives it (its first appearance), and the first bad
// line in the window is the error, as there. Returns the window's newlines.
std::uint64_t parse_name_chunks(std::string_view w, std::uint64_t first_line, const std::string& name,
                                const detail::edge_columns& columns, const read_options& opt,
                                unsigned threads, named_edges& out) {
  // About one chunk a thread: the merge looks up each chunk's distinct names
  // once, on one thread, so more chunks cost more merge.
  const std::size_t chunk_bytes = opt.chunk_bytes ? opt.chunk_bytes : w.size() / threads + 1;
  const auto chunks = detail::split_lines(w.data(), w.data() + w.size(), first_line, threads, chunk_bytes);
  if (chunks.size() <= 1)
    return parse_name_window(w.data(), w.data() + w.size(), first_line, name, columns, out);
  std::vector<named_edges> part(chunks.size());
  std::vector<std::exception_ptr> failed(chunks.size());
  const auto nchunks = static_cast<std::int64_t>(chunks.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::int64_t k = 0; k < nchunks; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    try {
      parse_name_window(chunks[kk].begin, chunks[kk].end, chunks[kk].first_line, name, columns, part[kk]);
    } catch (...) {
      failed[kk] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  // The merge: each chunk's numbers to the whole list's, in order.
  std::vector<std::vector<index_t>> renumber(chunks.size());
  std::vector<std::size_t> at(chunks.size() + 1, out.src.size());
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const detail::name_table& local = part[k].names;
    renumber[k].resize(local.size());
    for (std::size_t j = 0; j < local.size(); ++j) {
      const index_t id = out.names.intern(local[static_cast<index_t>(j)]);
      if (id < 0)
        throw dimension_error(name + ": more than " + std::to_string(max_index) +
                              " distinct vertex names exceed perron's 32-bit index limit");
      renumber[k][j] = id;
    }
    at[k + 1] = at[k] + part[k].src.size();
  }
  const bool weights = columns.weights();
  detail::check_parse_growth(name, out.src.size(), at.back() - out.src.size(),
                             2 * sizeof(index_t) + (weights ? sizeof(double) : 0), out.src.capacity());
  out.src.resize(at.back());
  out.dst.resize(at.back());
  if (weights) out.weight.resize(at.back());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::int64_t k = 0; k < nchunks; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    const std::vector<index_t>& to = renumber[kk];
    const named_edges& p = part[kk];
    for (std::size_t e = 0; e < p.src.size(); ++e) {
      out.src[at[kk] + e] = to[static_cast<std::size_t>(p.src[e])];
      out.dst[at[kk] + e] = to[static_cast<std::size_t>(p.dst[e])];
    }
    if (weights)
      std::copy(p.weight.begin(), p.weight.end(), out.weight.begin() + static_cast<std::ptrdiff_t>(at[kk]));
  }
  return detail::newlines_in(chunks);
}

snap_graph parse_names(std::string_view first, std::uint64_t first_line, detail::text_windows& more,
                       const std::string& name, const detail::edge_columns& columns, const read_options& opt,
                       unsigned threads) {
  named_edges el;
  std::uint64_t line = first_line;
  bool at_first = true;  // (its body may be empty: parse_edges)
  for (std::string_view w = first;; w = more.next(), at_first = false) {
    if (w.empty()) {
      if (at_first) continue;
      break;
    }
    line += threads > 1 || opt.chunk_bytes
                ? parse_name_chunks(w, line, name, columns, opt, threads, el)
                : parse_name_window(w.data(), w.data() + w.size(), line, name, columns, el);
  }
  snap_graph g;
  g.weighted = columns.weights();
  g.name = el.names.names();
  coo_matrix<double>& a = g.matrix;
  a.rows = a.cols = static_cast<index_t>(g.name.size());
  if (el.src.size() > static_cast<std::size_t>(max_index))
    throw dimension_error(name + ": " + std::to_string(el.src.size()) +
                          " edges exceed perron's 32-bit index limit (" + std::to_string(max_index) + ")");
  a.row_idx = std::move(el.src);
  a.col_idx = std::move(el.dst);
  if (g.weighted)
    a.values = std::move(el.weight);
  else
    a.values.assign(a.row_idx.size(), 1.0);
  return g;
}

// The rank of each original id among the distinct ids (the new vertex id),
// and the distinct ids in order (snap_graph::original_id).
//
// Unless the ids are astronomically sparse (hashed 64-bit ids), a bitmap of
// the ids present plus the count of set bits before each 64-bit word give
//   rank(id) = before[id / 64] + popcount(bits[id / 64] & (2^(id % 64) - 1))
// in O(1): max_id / 64 words of 12 bytes, allowed up to 3 bytes per id seen
// (max_id < 16 per endpoint). Otherwise sort the distinct ids and
// binary-search each, which takes several times the time and memory.
struct id_ranks {
  bool bitmap = false;
  std::vector<std::atomic<std::uint64_t>> bits;  // value-initialized: all zero
  std::vector<std::uint64_t> before;             // set bits in the words before this one
};

void rank_by_bitmap(const edge_list& el, const std::string& name, unsigned threads, id_ranks& r,
                    std::vector<std::int64_t>& ids) {
  const std::vector<std::int64_t>& src = el.src;
  const std::vector<std::int64_t>& dst = el.dst;
  const std::size_t words = static_cast<std::size_t>(el.max_id / 64) + 1;
  std::vector<std::atomic<std::uint64_t>>(words).swap(r.bits);
  auto& bits = r.bits;
  const auto ne = static_cast<std::int64_t>(src.size());
#pragma omp parallel for schedule(static) num_threads(threads) if (ne > 65536)
  for (std::int64_t e = 0; e < ne; ++e) {
    for (const std::int64_t id : {src[static_cast<std::size_t>(e)], dst[static_cast<std::size_t>(e)]}) {
      // A locked read-modify-write only for a bit not yet set: most ids repeat.
      std::atomic<std::uint64_t>& word = bits[static_cast<std::size_t>(id) >> 6];
      const std::uint64_t bit = std::uint64_t(1) << (id & 63);
      if (!(word.load(std::memory_order_relaxed) & bit)) word.fetch_or(bit, std::memory_order_relaxed);
    }
  }
  auto& before = r.before;
  before.resize(words);
  std::uint64_t count = 0;
  for (std::size_t w = 0; w < words; ++w) {
    before[w] = count;
    count += static_cast<std::uint64_t>(__builtin_popcountll(bits[w].load(std::memory_order_relaxed)));
  }
  if (count > max_index)
    throw dimension_error(name + ": " + std::to_string(count) +
                          " distinct vertex ids exceed perron's 32-bit index limit");
  ids.resize(static_cast<std::size_t>(count));
  const auto nw = static_cast<std::int64_t>(words);
#pragma omp parallel for schedule(static) num_threads(threads) if (nw > 4096)
  for (std::int64_t w = 0; w < nw; ++w) {
    std::uint64_t word = bits[static_cast<std::size_t>(w)].load(std::memory_order_relaxed);
    std::size_t at = static_cast<std::size_t>(before[static_cast<std::size_t>(w)]);
    while (word) {
      ids[at++] = w * 64 + __builtin_ctzll(word);
      word &= word - 1;
    }
  }
}

void rank_by_sorting(const edge_list& el, const std::string& name, std::vector<std::int64_t>& ids) {
  ids.reserve(2 * el.src.size());
  ids.insert(ids.end(), el.src.begin(), el.src.end());
  ids.insert(ids.end(), el.dst.begin(), el.dst.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  ids.shrink_to_fit();
  if (ids.size() > max_index)
    throw dimension_error(name + ": " + std::to_string(ids.size()) +
                          " distinct vertex ids exceed perron's 32-bit index limit");
}

// to[e] = the rank of from[e].
void remap(const std::vector<std::int64_t>& from, const id_ranks& r, const std::vector<std::int64_t>& ids,
           unsigned threads, std::vector<index_t>& to) {
  const std::size_t edges = from.size();
  detail::resize_outputs(edges, threads, to);
  const bool bitmap = r.bitmap;
  const auto& bits = r.bits;
  const auto& before = r.before;
  const auto ne = static_cast<std::int64_t>(edges);
#pragma omp parallel for schedule(static) num_threads(threads) if (ne > 65536)
  for (std::int64_t e = 0; e < ne; ++e) {
    const std::int64_t id = from[static_cast<std::size_t>(e)];
    if (bitmap) {
      const std::size_t w = static_cast<std::size_t>(id) >> 6;
      const std::uint64_t below = (std::uint64_t(1) << (id & 63)) - 1;
      to[static_cast<std::size_t>(e)] = static_cast<index_t>(
          before[w] +
          static_cast<std::uint64_t>(__builtin_popcountll(bits[w].load(std::memory_order_relaxed) & below)));
    } else {
      to[static_cast<std::size_t>(e)] =
          static_cast<index_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
    }
  }
}

}  // namespace

snap_graph parse_snap(std::string_view text, const std::string& name, const read_options& opt) {
  detail::whole_text one(text);
  return detail::parse_snap_windows(one, name, opt);
}

namespace detail {

namespace {

// A header's column names, as the tools that write edge tables call them
// (pandas and networkx: source, target, weight; Gephi: Source, Target,
// Weight; igraph and others: from, to; u, v): case, blanks and quotes aside.
struct column_roles {
  int source = -1, target = -1, weight = -1;
};
column_roles roles_by_name(const std::vector<std::string_view>& fields) {
  // (SNAP's comment line names them FromNodeId and ToNodeId.)
  static const char* const sources[] = {"source",      "src",       "from",       "u",
                                        "node1",       "source_id", "src_id",     "from_id",
                                        "source_node", "from_node", "fromnodeid", "fromnode"};
  static const char* const targets[] = {"target",    "dst",         "to",       "v",           "node2",
                                        "target_id", "dst_id",      "to_id",    "target_node", "to_node",
                                        "dest",      "destination", "tonodeid", "tonode"};
  static const char* const weights[] = {"weight", "w", "weights", "value"};
  column_roles r;
  for (std::size_t k = 0; k < fields.size(); ++k) {
    std::string scratch;
    const std::string name =
        ascii_lower(unquoted(fields[k], scratch));  // as the names of vertices are unquoted
    const auto is = [&name](const auto& list) {
      return std::any_of(std::begin(list), std::end(list), [&name](const char* x) { return name == x; });
    };
    int* role = is(sources) ? &r.source : is(targets) ? &r.target : is(weights) ? &r.weight : nullptr;
    if (!role) continue;
    if (*role >= 0) return {};  // a name twice: no choice by name
    *role = static_cast<int>(k);
  }
  return r;
}

// Whether columns so named must be read by name: they put source and target
// elsewhere than their places (from to [weight], after `lead` fields of a row
// index) or hold more than those: Gephi's "Source,Target,Type,Id,Label,
// timeset,Weight", "target,source", "from,to,weight,time".
bool by_name_layout(const column_roles& r, std::size_t n, std::size_t lead) {
  const int first = static_cast<int>(lead);
  return r.source >= 0 && r.target >= 0 &&
         (r.source != first || r.target != first + 1 || n - lead > 3 ||
          (n - lead == 3 && r.weight != first + 2));
}

}  // namespace

// A line of words taken for the columns' header (edge_columns::header_*)
// read as the list's first edge instead, the lines from it holding its fields.
static void header_is_first_edge(edge_columns& c) {
  c.body_offset = c.header_offset;
  c.body_line = c.header_line;
  c.index = false;
  c.fields = c.header_fields;
  c.header_words = false;
}

namespace {

// Whether a vertex field of the lines in `text` (their first two fields, as
// blanks split them; the first 64 KB) is one of the words of a first line
// between blanks that named its columns ("node1 node2", "u v"): then those
// words are vertices and that line the list's first edge ("u v / v w / w u"),
// where a header's words ("source target" over "alice bob") name no vertex.
bool header_words_reappear(std::string_view text, std::string_view a, std::string_view b) {
  const char* p = text.data();
  const char* const end = p + std::min(text.size(), std::size_t(1) << 16);
  while (p != end) {
    const char* q = skip_blanks(p, end);
    if (q != end && !skip_empty_or_comment(q, end, '#')) {
      const auto f = edge_fields(q, end);
      for (std::size_t k = 0; k < std::min<std::size_t>(f.size(), 2); ++k)
        if (f[k] == a || f[k] == b) return true;
    }
    p = next_line(p, end);
  }
  return false;
}

edge_columns edge_list_columns(std::string_view text, bool all_names) {
  const auto names_of = [all_names](std::string_view a, std::string_view b) {
    return names_of_vertices(a, b, all_names);
  };
  edge_columns c;
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* p = begin;
  std::uint64_t line = 1;
  bool header = false;
  // Where a first line of names lies, and whether it stays a header once the
  // next line shows names where the ids belong (an edge list of names).
  std::size_t header_offset = 0, header_fields = 0;
  std::uint64_t header_line = 1;
  bool header_kept = true;
  // The last comment before the first data line, split as column names:
  // Netzschleuder's edges.csv names its columns in one ("# source, target,
  // time, weight").
  std::vector<std::string_view> comment_names;
  while (p != end) {
    const char* q = skip_blanks(p, end);
    if (q == end) break;
    if (!header && *q == '#' &&
        (!split_fields(q + 1, end, comment_names) || comment_names.size() < 2 ||
         !std::all_of(comment_names.begin(), comment_names.end(), is_name)))
      comment_names.clear();
    if (!skip_empty_or_comment(q, end, '#')) {
      auto fields = edge_fields(q, end);
      // (networkx's "alice bob {}" is an edge with its data, not a header.)
      const bool dict = fields.size() >= 3 && !fields[2].empty() && fields[2][0] == '{';
      if (!header && !dict && fields.size() >= 2 && std::none_of(fields.begin(), fields.end(), is_number) &&
          std::all_of(fields.begin(), fields.end(), is_name)) {
        std::vector<std::string_view> names;
        if (!split_fields(q, end, names)) names = fields;
        const std::size_t n = names.size();
        // pandas' to_csv with its row index: a header whose first name is
        // empty (",source,target"), and each line's first field that index.
        const bool index = n >= 3 && names[0].empty();
        const std::size_t lead = index ? 1 : 0;
        const column_roles r = roles_by_name(names);
        const bool by_name = by_name_layout(r, n, lead);
        if (by_name || (n >= 2 + lead && n <= max_fields + lead)) {
          // A header: the edges start on the next line.
          header = true;
          header_offset = static_cast<std::size_t>(q - begin);
          header_line = line;
          header_fields = n;
          const std::string_view text_line(q, static_cast<std::size_t>(next_line(q, end) - q));
          const bool commas = text_line.find(',') != std::string_view::npos;
          header_kept = (r.source >= 0 && r.target >= 0) || commas;
          if (!commas && !index && n <= max_fields && r.source >= 0 && r.target >= 0 &&
              header_words_reappear(
                  std::string_view(next_line(q, end), static_cast<std::size_t>(end - next_line(q, end))),
                  names[static_cast<std::size_t>(r.source)], names[static_cast<std::size_t>(r.target)])) {
            // Its words are vertices: the list's first edge, read by name.
            c.names = true;
            c.body_offset = header_offset;
            c.body_line = header_line;
            c.fields = n;
            return c;
          }
          if (by_name) {
            c.named = n;
            c.source = r.source;
            c.target = r.target;
            c.weight_at = r.weight;
          } else {
            c.index = index;
            c.fields = n - index;
          }
          p = next_line(q, end);
          c.body_offset = static_cast<std::size_t>(p - begin);
          c.body_line = ++line;
          continue;
        }
      }
      // A comment naming the columns elsewhere than from to [weight], over a
      // first data line of as many fields: the columns by those names.
      if (!header && !comment_names.empty()) {
        const column_roles r = roles_by_name(comment_names);
        const std::size_t n = comment_names.size();
        std::vector<std::string_view> f;
        if (by_name_layout(r, n, 0) && split_fields(q, end, f) && f.size() == n) {
          c.named = n;
          c.source = r.source;
          c.target = r.target;
          c.weight_at = r.weight;
        }
      }
      if (c.named) {
        std::vector<std::string_view> f;
        std::uint64_t id = 0;
        const bool whole = split_fields(q, end, f) && f.size() == c.named;
        const auto at = [&f](int k) { return f[static_cast<std::size_t>(k)]; };
        c.edge_line = whole && whole_id(at(c.source), id) && whole_id(at(c.target), id);
        c.names = whole && !c.edge_line && names_of(at(c.source), at(c.target));
        return c;
      }
      if (header && !header_kept) {  // undone below where the words turn out to be the first edge
        c.header_words = true;
        c.header_offset = header_offset;
        c.header_line = header_line;
        c.header_fields = header_fields;
      }
      if (c.index && !fields.empty()) fields.erase(fields.begin());
      // networkx's "from to {data}": the data's fields are the dict's, split at its blanks and commas.
      const bool data = !header && fields.size() >= 3 && !fields[2].empty() && fields[2][0] == '{';
      // The vertex fields as CSV splits them (a quoted name may hold blanks or commas).
      std::vector<std::string_view> csv;
      if (!data && split_fields(q, end, csv) && c.index && !csv.empty()) csv.erase(csv.begin());
      if (data || csv.size() < 2) csv = fields;
      if (fields.size() >= 2 && (fields.size() <= max_fields || data) && is_id(fields[0]) &&
          is_id(fields[1])) {
        c.edge_line = true;
        c.data = data;
        if (data) c.fields = 2;
        if (!header && !data) c.fields = fields.size();  // else the header's count binds the lines
      } else if (csv.size() >= 2 && (csv.size() <= max_fields || data) && names_of(csv[0], csv[1])) {
        // "alice bob": every vertex field of the list is a name.
        c.names = true;
        c.data = data;
        if (data) c.fields = 2;
        if (!header && !data) c.fields = csv.size();
        // A first line of names is a header where commas separate it
        // (pandas, Gephi, a spreadsheet) or it names its columns (source,
        // target, ...); two words between blanks (networkx's write_edgelist,
        // igraph's ncol) are the first edge.
        if (header && !header_kept) {
          header_is_first_edge(c);                          // (c.header_* were set above)
          if (header_fields > max_fields) c.names = false;  // neither a header nor an edge: the parse says
        }
      } else if (header && !header_kept && header_fields <= max_fields && csv.size() >= 2 &&
                 csv.size() <= max_fields) {
        // A first line of names between blanks ("A B") over a line that is
        // neither ids nor names by the first-line rule ("B 1": a one-letter
        // name beside a number): the list names its vertices from that line.
        std::vector<std::string_view> h;
        split_fields(begin + header_offset, end, h);
        if (h.size() >= 2 && names_of_vertices(h[0], h[1])) {
          header_is_first_edge(c);
          c.names = true;
        }
      }
      // Else the parse says what is wrong with it (with the header's field count, or 2).
      return c;
    }
    p = next_line(p, end);
    ++line;
  }
  // A first line of names between blanks and no line after it: the list's one
  // edge (networkx's write_edgelist of one edge), as a second line of names
  // would have shown; a header names its columns or is split by commas.
  if (header && !header_kept && !c.named && header_fields <= max_fields) {
    c.names = true;
    c.lone = true;
    c.body_offset = header_offset;
    c.body_line = header_line;
    c.fields = header_fields;
  }
  return c;
}

}  // namespace

edge_columns edge_list_columns(std::string_view text) { return edge_list_columns(text, false); }

edge_columns edge_list_columns(std::string_view text, const read_options& opt) {
  edge_columns c = edge_list_columns(text, opt.all_names);
  if (opt.all_names && c.edge_line) {
    c.names = true;
    // Every field a name: a line of words between blanks over the ids is the
    // first edge, as it is over names ("alice bob\n1 2": three edges).
    if (c.header_words && c.header_fields <= max_fields && !c.named) header_is_first_edge(c);
  }
  c.refuse_negative = opt.refuse_negative;
  return c;
}

bool names_hold_up(std::string_view text, const edge_columns& columns, int lines) {
  const char* p = text.data() + std::min(columns.body_offset, text.size());
  const char* const end = text.data() + text.size();
  const std::size_t want = columns.named ? columns.named : columns.fields + (columns.index ? 1 : 0);
  std::vector<std::string_view> f;
  while (p != end && lines > 0) {
    const char* q = skip_blanks(p, end);
    if (q == end) break;
    if (skip_empty_or_comment(q, end, '#')) {
      p = q;
      continue;
    }
    const char* next = next_line(q, end);
    if (columns.data) {
      if (std::find(q, next, '{') == next) return false;
    } else if (!split_fields(q, end, f) || f.size() != want) {
      return false;
    }
    p = next;
    --lines;
  }
  return true;
}

snap_graph parse_snap_windows(text_windows& windows, const std::string& name, const read_options& opt) {
  std::string header;
  std::string_view text = through_header(windows.next(), windows, header, name, "#%", 2);
  if (text.empty()) throw parse_error(name, 0, "empty file");
  const unsigned threads = windows.parse_threads(opt.threads);
  if (text.size() >= 3 && std::memcmp(text.data(), "\xEF\xBB\xBF", 3) == 0)
    text.remove_prefix(3);  // UTF-8 byte order mark
  const edge_columns columns = edge_list_columns(text, opt);
  text.remove_prefix(columns.body_offset);
  if (columns.names) return parse_names(text, columns.body_line, windows, name, columns, opt, threads);
  edge_list el = parse_edges(text, columns.body_line, windows, name, opt, threads, columns);
  const std::size_t edges = el.src.size();

  // Monotone remap: new id = rank of the original id among the distinct ids.
  snap_graph g;
  g.weighted = columns.weights();
  std::vector<std::int64_t>& ids = g.original_id;
  const std::uint64_t ids_seen = 2 * static_cast<std::uint64_t>(edges);
  id_ranks ranks;
  ranks.bitmap = edges > 0 && el.max_id / 64 < ids_seen / 4 + 1024;
  // The renumbering's arrays beside the edges' 16 bytes an edge (24 with
  // their weights): the distinct ids (up to 16 bytes an edge; sorted, or from
  // a bitmap of 16 bytes per 64 ids of the range) and the first new index
  // array (4) at the peak, then the values (8, unless the weights are
  // they) once the old ids are freed: about 36 bytes an edge in all, checked
  // before any of it is allocated (a file whose parse fitted could still
  // fill the host here).
  const double held = (columns.weights() ? 24.0 : 16.0) * double(edges);
  check_host_memory_holding(
      held + 20.0 * double(edges) + (ranks.bitmap ? 16.0 * double(el.max_id / 64 + 1) : 0.0), held,
      name + ": renumbering the vertex ids of its " + std::to_string(edges) + " edges");
  if (ranks.bitmap)
    rank_by_bitmap(el, name, threads, ranks, ids);
  else if (edges > 0)
    rank_by_sorting(el, name, ids);
  coo_matrix<double>& a = g.matrix;
  // One id array at a time, freed as soon as it is mapped, to keep the peak low.
  remap(el.src, ranks, ids, threads, a.row_idx);
  std::vector<std::int64_t>().swap(el.src);
  remap(el.dst, ranks, ids, threads, a.col_idx);
  std::vector<std::int64_t>().swap(el.dst);
  if (columns.weights()) {
    a.values = std::move(el.weight);
  } else {
    a.values.reserve(edges);
    perron::advise_huge_pages(a.values.data(), edges * sizeof(double));
    a.values.assign(edges, 1.0);
  }
  a.rows = a.cols = static_cast<index_t>(ids.size());
  return g;
}

void parse_snap_chunk(std::string_view text, std::uint64_t first_line, const std::string& name,
                      const read_options& opt, const edge_columns& columns, std::vector<std::int64_t>& src,
                      std::vector<std::int64_t>& dst, std::vector<double>& weight) {
  if (text.empty()) return;
  edge_list el;
  el.src.swap(src);
  el.dst.swap(dst);
  el.weight.swap(weight);
  parse_edge_window(text.data(), text.data() + text.size(), first_line, name, opt, thread_count(opt.threads),
                    columns, el);
  src.swap(el.src);
  dst.swap(el.dst);
  weight.swap(el.weight);
}

}  // namespace detail

snap_graph read_snap(const std::string& path, const read_options& opt) {
  if (detail::is_gzip_file(path)) {
    const auto windows = detail::open_gzip_windows(path, detail::default_window, opt.threads);
    return detail::parse_snap_windows(*windows, path, opt);
  }
  const auto text = detail::read_file(path, detail::thread_count(opt.threads));
  return parse_snap(text.view(), path, opt);
}

namespace {

// The first 16 KB of an edge list's text (SNAP's header is a few lines,
// KONECT's two), inflated by one inflater where it is gzip, through
// libarchive where it is an archive or compressed otherwise: the windowed
// readers set up buffers and threads for a whole file (1.3-2.7 ms the first
// call on a .txt.gz here, against 0.7-1.1 ms for this, most of it the
// inflater's start). "" for anything that cannot be read.
std::string header_text(const std::string& path) {
  constexpr std::size_t head_bytes = std::size_t(16) << 10;
  // A regular file only, opened without waiting: the graph was read from a
  // named pipe (mkfifo g.txt; cat edges > g.txt &) to its end, and fopen
  // waited for a writer that never came, after the load, before the solve.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};  // the load reports what is wrong with the file
  struct stat st {};
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(
      ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? ::fdopen(fd, "rb") : nullptr, &std::fclose);
  if (!f) {
    ::close(fd);
    return {};  // a pipe or a device: what it held is read (no note)
  }
  const detail::packing packing = detail::packing_of(path);
  if (detail::is_archive(packing) || packing == detail::packing::compressed)
    return detail::edge_list_head(path, head_bytes);
  std::string text(head_bytes, '\0');
  std::size_t got = 0;
  try {
    if (packing == detail::packing::gzip) {
      detail::gzip_inflater z(
          path, [&f](unsigned char* out, std::size_t n) { return std::fread(out, 1, n, f.get()); });
      got = z.read(text.data(), head_bytes);
    } else {
      got = std::fread(text.data(), 1, head_bytes, f.get());
    }
  } catch (const std::exception&) {
    return {};  // corrupt data: the load says so
  }
  text.resize(got);
  return text;
}

// KONECT's first line, "% FORMAT WEIGHTS": sym (undirected), asym
// (directed), bip (bipartite: two sets of vertices, each numbered from 1).
header_graph konect_format(std::string_view line) {
  std::size_t k = line.find_first_not_of(" \t%");
  if (k == std::string_view::npos) return header_graph::unknown;
  std::size_t e = line.find_first_of(" \t\r\n", k);
  const std::string_view word = line.substr(k, e == std::string_view::npos ? line.size() - k : e - k);
  if (word == "sym") return header_graph::undirected;
  if (word == "bip") return header_graph::bipartite;
  return header_graph::unknown;
}

}  // namespace

std::pair<std::string, std::uint64_t> header_of_words(const std::string& path) {
  const std::string text = header_text(path);
  if (text.empty()) return {};
  try {
    const std::string_view t = detail::without_bom(text);
    const detail::edge_columns c = detail::edge_list_columns(t);
    if (!c.header_words || !c.edge_line || c.header_offset >= t.size()) return {};
    const char* b = t.data() + c.header_offset;
    const char* e = detail::next_line(b, t.data() + t.size());
    while (e != b && (e[-1] == '\n' || e[-1] == '\r')) --e;
    return {std::string(b, e), c.header_line};
  } catch (const std::exception&) {
    return {};  // the load says what is wrong
  }
}

header_graph graph_in_header(const std::string& path) {
  const std::string text = header_text(path);
  const char* p = text.data();
  const char* end = p + text.size();
  if (end - p >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
  for (bool first = true; p != end; first = false) {
    const char* q = detail::skip_blanks(p, end);
    const char* e = detail::next_line(p, end);
    if (q != e && *q != '\n' && *q != '\r' && *q != '#' && *q != '%')
      return header_graph::unknown;  // a data line: past the header
    if (first && q != e && *q == '%') {
      const header_graph k = konect_format(std::string_view(q, static_cast<std::size_t>(e - q)));
      if (k != header_graph::unknown) return k;
    }
    const std::string line = ascii_lower(std::string_view(q, static_cast<std::size_t>(e - q)));
    if (line.find("undirected graph") != std::string::npos) return header_graph::undirected;
    p = e;
  }
  return header_graph::unknown;
}

}  // namespace perron::io
