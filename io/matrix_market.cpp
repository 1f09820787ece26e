// Matrix Market reader and writer. The body is parsed in line-aligned chunks
// in parallel (io/text_input.hpp): each chunk writes its entries into its own
// slots of the output arrays, sized by the number of lines actually present,
// never by the size line; the size line is checked against the data after.
#include "io/matrix_market.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>

#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/text.hpp"
#include "io/output_file.hpp"
#include "io/text_input.hpp"

namespace perron::io {
namespace {

using detail::line_chunk;

constexpr const char* banner_form =
    "%%MatrixMarket matrix coordinate|array real|integer|pattern general|symmetric|skew-symmetric";

std::string quoted(std::string_view s) { return detail::quote_token(s.data(), s.data() + s.size()); }

// ---- header ---------------------------------------------------------------------

struct parsed_header {
  mm_header h;
  const char* body = nullptr;   // first byte after the size line
  std::uint64_t body_line = 0;  // its line number
  std::uint64_t size_line = 0;
};

// Lines of the header, one at a time, with their 1-based numbers.
struct line_cursor {
  const char* p;
  const char* end;
  std::uint64_t line = 0;

  bool next(const char*& line_begin, const char*& line_end) {
    if (p == end) return false;
    line_begin = p;
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    line_end = nl ? nl : end;
    p = nl ? nl + 1 : end;
    ++line;
    return true;
  }
};

// Why a size line's field is no count: " is not a whole number" for a real
// ("2.0", "1e6": numbers, but no count of rows or entries), else " is not a
// number".
std::string not_a_count(std::string_view token) {
  double x = 0;
  return detail::scan_real(token.data(), token.data() + token.size(), x) == token.data() + token.size()
             ? " is not a whole number"
             : " is not a number";
}

index_t checked_size(std::string_view token, const char* what, const std::string& name, std::uint64_t line) {
  std::uint64_t v = 0;
  const char* b = token.data();
  const char* e = b + token.size();
  if (!token.empty() && token[0] == '-') {
    std::int64_t s = 0;
    const char* q = detail::scan_signed(b, e, s);
    if (q == e)
      throw parse_error(name, line, std::string("size line: ") + what + " " + quoted(token) + " is negative");
  }
  const char* q = detail::scan_unsigned(b, e, v);
  if (q != e) {
    if (q == nullptr && !token.empty() &&
        std::all_of(token.begin() + (token[0] == '+'), token.end(),
                    [](char c) { return c >= '0' && c <= '9'; }) &&
        token.size() > (token[0] == '+' ? 1u : 0u))
      throw parse_error(name, line,
                        std::string("size line: ") + what + " " + quoted(token) +
                            " exceeds perron's 32-bit index limit (" + std::to_string(max_index) + ")");
    throw parse_error(name, line,
                      std::string("size line: ") + what + " " + quoted(token) + not_a_count(token));
  }
  if (v > max_index)
    throw parse_error(name, line,
                      std::string("size line: ") + what + " " + std::to_string(v) +
                          " exceeds perron's 32-bit index limit (" + std::to_string(max_index) + ")");
  return static_cast<index_t>(v);
}

// The banner's words: object, format, field and symmetry, each checked.
mm_header parse_banner(const std::vector<std::string_view>& banner, const std::string& name) {
  if (banner.empty() || banner[0].size() < 2 || banner[0].substr(0, 2) != "%%")
    throw parse_error(
        name, 1, std::string("missing Matrix Market banner: the first line must read '") + banner_form + "'");
  if (!iequals(banner[0], "%%MatrixMarket"))
    throw parse_error(name, 1,
                      "garbled Matrix Market banner: " + quoted(banner[0]) + " (expected '%%MatrixMarket')");
  if (banner.size() != 5)
    throw parse_error(name, 1,
                      "the banner must have 5 words ('" + std::string(banner_form) + "'), found " +
                          std::to_string(banner.size()));
  mm_header h;
  if (!iequals(banner[1], "matrix"))
    throw parse_error(name, 1, "unknown object " + quoted(banner[1]) + " in the banner (expected 'matrix')");
  if (iequals(banner[2], "coordinate"))
    h.coordinate = true;
  else if (iequals(banner[2], "array"))
    h.coordinate = false;
  else
    throw parse_error(
        name, 1, "unknown format " + quoted(banner[2]) + " in the banner (expected 'coordinate' or 'array')");
  if (iequals(banner[3], "real") || iequals(banner[3], "double"))
    h.field = mm_field::real;
  else if (iequals(banner[3], "integer"))
    h.field = mm_field::integer;
  else if (iequals(banner[3], "pattern"))
    h.field = mm_field::pattern;
  else if (iequals(banner[3], "complex"))
    throw not_supported(
        name +
        ":1: complex Matrix Market matrices are not supported (perron reads real, integer and pattern)");
  else
    throw parse_error(
        name, 1,
        "unknown field " + quoted(banner[3]) + " in the banner (expected 'real', 'integer' or 'pattern')");
  if (iequals(banner[4], "general"))
    h.symmetry = mm_symmetry::general;
  else if (iequals(banner[4], "symmetric"))
    h.symmetry = mm_symmetry::symmetric;
  else if (iequals(banner[4], "skew-symmetric"))
    h.symmetry = mm_symmetry::skew_symmetric;
  else if (iequals(banner[4], "hermitian"))
    throw not_supported(name + ":1: hermitian Matrix Market matrices are not supported (they are complex)");
  else
    throw parse_error(name, 1,
                      "unknown symmetry " + quoted(banner[4]) +
                          " in the banner (expected 'general', 'symmetric' or 'skew-symmetric')");
  if (!h.coordinate && h.field == mm_field::pattern)
    throw parse_error(name, 1, "an 'array' file cannot be 'pattern' (a dense array needs values)");
  if (h.field == mm_field::pattern && h.symmetry == mm_symmetry::skew_symmetric)
    throw parse_error(name, 1, "a 'pattern' matrix cannot be 'skew-symmetric' (it has no signs to flip)");
  return h;
}

// The size line's numbers into h: rows, columns and (coordinate) entries.
void parse_size_line(const std::vector<std::string_view>& sizes, mm_header& h, const std::string& name,
                     std::uint64_t line) {
  const std::size_t want = h.coordinate ? 3 : 2;
  if (sizes.size() != want)
    throw parse_error(name, line,
                      std::string("size line: expected ") + std::to_string(want) + " numbers (" +
                          (h.coordinate ? "rows columns entries" : "rows columns") + "), found " +
                          std::to_string(sizes.size()));
  h.rows = checked_size(sizes[0], "rows", name, line);
  h.cols = checked_size(sizes[1], "columns", name, line);
  if (h.coordinate) {
    std::uint64_t e = 0;
    const char* b = sizes[2].data();
    const char* x = b + sizes[2].size();
    std::int64_t s = 0;
    if (sizes[2][0] == '-' && detail::scan_signed(b, x, s) == x)
      throw parse_error(name, line, "size line: entries " + quoted(sizes[2]) + " is negative");
    if (detail::scan_unsigned(b, x, e) != x)
      throw parse_error(name, line, "size line: entries " + quoted(sizes[2]) + not_a_count(sizes[2]));
    h.entries = e;
  } else {
    h.entries = static_cast<std::uint64_t>(h.rows) * static_cast<std::uint64_t>(h.cols);
  }
  if (h.symmetry != mm_symmetry::general && h.rows != h.cols)
    throw parse_error(name, line,
                      "a " +
                          std::string(h.symmetry == mm_symmetry::symmetric ? "symmetric" : "skew-symmetric") +
                          " matrix must be square, the size line says " + std::to_string(h.rows) + " x " +
                          std::to_string(h.cols));
}

parsed_header parse_header(std::string_view text, const std::string& name) {
  if (text.empty()) throw parse_error(name, 0, "empty file");
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (text.size() >= 3 && std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0) begin += 3;  // UTF-8 byte order mark
  line_cursor cur{begin, end};
  const char* lb = nullptr;
  const char* le = nullptr;
  cur.next(lb, le);
  parsed_header out;
  out.h = parse_banner(detail::line_tokens(lb, le), name);

  // Comments and blank lines, then the size line.
  for (;;) {
    if (!cur.next(lb, le))
      throw parse_error(name, cur.line + 1,
                        std::string("missing size line (") +
                            (out.h.coordinate ? "rows columns entries" : "rows columns") +
                            ") after the banner and comments");
    const char* q = detail::skip_blanks(lb, le);
    if (q == le || (*q == '\r' && q + 1 == le)) continue;
    if (*q == '%') continue;
    break;
  }
  out.size_line = cur.line;
  parse_size_line(detail::line_tokens(lb, le), out.h, name, cur.line);
  out.body = cur.p;
  out.body_line = cur.line + 1;
  return out;
}

// ---- body -------------------------------------------------------------------------

bool is_mm_data(const char* p) { return *p != '\n' && *p != '%' && !(*p == '\r' && p[1] == '\n'); }

std::string range_message(const char* what, std::uint64_t v, index_t n) {
  if (n == 0)
    return std::string(what) + " " + std::to_string(v) + " out of range (the matrix has no " +
           (what[0] == 'r' ? "rows" : "columns") + ")";
  return std::string(what) + " " + std::to_string(v) + " out of range 1.." + std::to_string(n);
}

// Why a data line failed the fast path, in words. Slow; runs once per error.
std::string diagnose_entry(const char* line, const char* end, const mm_header& h) {
  const auto tokens = detail::line_tokens(line, end);
  const bool has_value = h.field != mm_field::pattern;
  const std::size_t want = h.coordinate ? (has_value ? 3 : 2) : 1;
  const char* names[3] = {"row index", "column index", "value"};
  const char* const* name = h.coordinate ? names : names + 2;
  const char* fields = h.coordinate ? (has_value ? "(row column value)" : "(row column)") : "(value)";
  // Each field present is checked first (a bad byte can merge two fields),
  // then the count.
  for (std::size_t k = 0; k < std::min(want, tokens.size()); ++k) {
    const char* b = tokens[k].data();
    const char* e = b + tokens[k].size();
    const bool is_index = h.coordinate && k < 2;
    if (is_index) {
      std::uint64_t v = 0;
      std::int64_t s = 0;
      if (*b == '-' && detail::scan_signed(b, e, s) == e)
        return std::string(name[k]) + " " + quoted(tokens[k]) + " is negative";
      const char* q = detail::scan_unsigned(b, e, v);
      if (q == e) continue;
      if (q == nullptr && std::all_of(b + (*b == '+'), e, [](char c) { return c >= '0' && c <= '9'; }) &&
          e - b > (*b == '+'))
        return std::string(name[k]) + " " + quoted(tokens[k]) + " out of range 1.." +
               std::to_string(k == 0 ? h.rows : h.cols);
      return std::string(name[k]) + " " + quoted(tokens[k]) + " is not a positive integer";
    }
    if (h.field == mm_field::integer) {
      std::int64_t v = 0;
      const char* q = detail::scan_signed(b, e, v);
      if (q == e) continue;
      if (q == nullptr &&
          std::all_of(b + (*b == '+' || *b == '-'), e, [](char c) { return c >= '0' && c <= '9'; }) &&
          e - b > (*b == '+' || *b == '-'))
        return std::string(name[k]) + " " + quoted(tokens[k]) + " does not fit a 64-bit integer";
      return std::string(name[k]) + " " + quoted(tokens[k]) +
             " is not an integer (the banner says 'integer')";
    }
    double v = 0;
    const char* q = detail::scan_real(b, e, v);
    if (q == e) continue;
    const std::string why = detail::real_problem(b, e);
    return std::string(name[k]) + " " + quoted(tokens[k]) + " " + (why.empty() ? "is not a number" : why);
  }
  if (tokens.size() < want)
    return "expected " + std::to_string(want) + (want == 1 ? " field " : " fields ") + fields + ", found " +
           std::to_string(tokens.size());
  if (tokens.size() > want)
    return "expected " + std::to_string(want) + (want == 1 ? " field " : " fields ") + fields + ", found " +
           std::to_string(tokens.size()) + " (unexpected " + quoted(tokens[want]) + ")";
  return "malformed entry line";
}

struct chunk_result {
  std::size_t entries = 0;
  std::size_t off_diagonal = 0;
  detail::chunk_error error;
};

// The one parse loop for coordinate lines, used for every chunk.
template <mm_field Field>
void parse_coordinate_chunk(const line_chunk& c, const mm_header& h, const std::string& refuse_negative,
                            index_t* row, index_t* col, double* val, chunk_result& res) {
  const char* p = c.begin;
  const char* const end = c.end;
  const std::uint64_t rows = static_cast<std::uint64_t>(h.rows);
  const std::uint64_t cols = static_cast<std::uint64_t>(h.cols);
  const bool skew = h.symmetry == mm_symmetry::skew_symmetric;
  std::size_t n = 0;
  std::size_t off = 0;
  auto fail = [&](const char* line, std::string why) {
    res.error.line = line;
    res.error.reason = std::move(why);
    res.entries = n;
    res.off_diagonal = off;
  };
  while (p != end) {
    const char* line = p;
    p = detail::skip_blanks(p, end);
    if (p == end) break;
    if (detail::skip_empty_or_comment(p, end, '%')) continue;
    std::uint64_t i = 0, j = 0;
    double v = 1.0;
    const char* q = detail::scan_unsigned(p, end, i);
    if (!q || !detail::at_delimiter(q, end)) return fail(line, diagnose_entry(line, end, h));
    q = detail::scan_unsigned(detail::skip_blanks(q, end), end, j);
    if (!q || !detail::at_delimiter(q, end)) return fail(line, diagnose_entry(line, end, h));
    if constexpr (Field == mm_field::real) {
      q = detail::scan_real(detail::skip_blanks(q, end), end, v);
      if (!q || !detail::at_delimiter(q, end)) return fail(line, diagnose_entry(line, end, h));
    } else if constexpr (Field == mm_field::integer) {
      std::int64_t iv = 0;
      q = detail::scan_signed(detail::skip_blanks(q, end), end, iv);
      if (!q || !detail::at_delimiter(q, end)) return fail(line, diagnose_entry(line, end, h));
      v = static_cast<double>(iv);
    }
    const char* next = detail::end_of_line(q, end);
    if (!next) return fail(line, diagnose_entry(line, end, h));
    // Unsigned wrap makes index 0 fail the same test as index > rows.
    if (i - 1 >= rows) return fail(line, range_message("row index", i, h.rows));
    if (j - 1 >= cols) return fail(line, range_message("column index", j, h.cols));
    if (i != j) {
      ++off;
    } else if (skew && v != 0.0) {
      return fail(line, "entry (" + std::to_string(i) + ", " + std::to_string(j) +
                            ") is nonzero, but the diagonal of a skew-symmetric matrix is zero");
    }
    if constexpr (Field != mm_field::pattern) {
      if (!refuse_negative.empty() && (v < 0.0 || (skew && i != j && v != 0.0)))
        return fail(line, "entry (" + std::to_string(i) + ", " + std::to_string(j) + ") " +
                              (v < 0.0 ? "has value " + format_shortest(v)
                                       : "of a skew-symmetric matrix stands for (" + std::to_string(j) +
                                             ", " + std::to_string(i) + ") = " + format_shortest(-v)) +
                              ": " + refuse_negative);
    }
    row[n] = static_cast<index_t>(i - 1);
    col[n] = static_cast<index_t>(j - 1);
    val[n] = v;  // 1 for pattern
    ++n;
    p = next;
  }
  res.entries = n;
  res.off_diagonal = off;
}

template <mm_field Field>
void parse_array_chunk(const line_chunk& c, const mm_header& h, double* val, chunk_result& res) {
  const char* p = c.begin;
  const char* const end = c.end;
  std::size_t n = 0;
  while (p != end) {
    const char* line = p;
    p = detail::skip_blanks(p, end);
    if (p == end) break;
    if (detail::skip_empty_or_comment(p, end, '%')) continue;
    double v = 0;
    const char* q;
    if constexpr (Field == mm_field::integer) {
      std::int64_t iv = 0;
      q = detail::scan_signed(p, end, iv);
      v = static_cast<double>(iv);
    } else {
      q = detail::scan_real(p, end, v);
    }
    const char* next = q && detail::at_delimiter(q, end) ? detail::end_of_line(q, end) : nullptr;
    if (!next) {
      res.entries = n;
      res.error.line = line;
      res.error.reason = diagnose_entry(line, end, h);
      return;
    }
    val[n++] = v;
    p = next;
  }
  res.entries = n;
}

// Parses one window's chunks into per-line slots and checks them: the first
// error in file order, or an entry past the declared count ("too many").
// `seen` counts the entries of earlier windows and gains this window's.
template <class Run>
std::vector<chunk_result> parse_body(const std::string& name, const parsed_header& ph,
                                     const std::vector<line_chunk>& chunks, unsigned threads,
                                     std::uint64_t& seen, Run run) {
  const auto n = static_cast<std::int64_t>(chunks.size());
  std::vector<chunk_result> res(chunks.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (n > 1)
  for (std::int64_t k = 0; k < n; ++k)
    run(chunks[static_cast<std::size_t>(k)], res[static_cast<std::size_t>(k)]);

  std::vector<detail::chunk_error> errors(res.size());
  bool any = false;
  for (std::size_t k = 0; k < res.size(); ++k)
    if (res[k].error) {
      errors[k] = res[k].error;
      any = true;
      break;  // later chunks cannot hold an earlier line
    }
  // An error after the declared count is really "too many entries": report that.
  const std::uint64_t declared = ph.h.entries;
  for (std::size_t k = 0; k < res.size(); ++k) {
    if (seen + res[k].entries > declared) {
      const char* extra =
          detail::nth_data_line(chunks[k], static_cast<std::size_t>(declared - seen), is_mm_data);
      throw parse_error(name, detail::line_of(chunks[k], extra),
                        "entry " + std::to_string(declared + 1) + " is one more than the " +
                            std::to_string(declared) + " the size line (line " +
                            std::to_string(ph.size_line) + ") declares");
    }
    if (errors[k]) break;
    seen += res[k].entries;
  }
  if (any) detail::throw_first_error(name, chunks, errors);
  return res;
}

// After the whole body: fewer entries than the size line declares.
void check_count(const std::string& name, const parsed_header& ph, std::uint64_t seen,
                 std::uint64_t last_line) {
  const std::uint64_t declared = ph.h.entries;
  if (seen < declared)
    throw parse_error(name, ph.size_line,
                      "the size line declares " + std::to_string(declared) +
                          " entries, but the file ends after " + std::to_string(seen) +
                          (seen == 1 ? " entry" : " entries") + " (line " + std::to_string(last_line) + ")");
}

// One window of coordinate lines appended to `a` (which holds the entries of
// the windows before): parsed into per-line slots past the end, then packed.
// Returns the newlines in [begin, end).
std::uint64_t parse_coordinate_window(const parsed_header& ph, const char* begin, const char* end,
                                      std::uint64_t first_line, const std::string& name,
                                      const read_options& opt, unsigned threads, coo_matrix<double>& a,
                                      std::uint64_t& seen) {
  const mm_header& h = ph.h;
  const auto chunks = detail::split_lines(begin, end, first_line, threads, opt.chunk_bytes);
  const std::size_t slots = chunks.empty() ? 0 : chunks.back().first_slot + chunks.back().lines;
  const std::size_t base = a.row_idx.size();
  // Sized by the lines present (an upper bound on the entries the data can
  // hold), never by the size line; within the memory free.
  detail::check_parse_growth(name, base, slots, 2 * sizeof(index_t) + sizeof(double), a.row_idx.capacity());
  detail::resize_outputs(base + slots, threads, a.row_idx, a.col_idx, a.values);
  index_t* r = a.row_idx.data() + base;
  index_t* c = a.col_idx.data() + base;
  double* v = a.values.data() + base;
  auto res = parse_body(name, ph, chunks, threads, seen, [&](const line_chunk& ch, chunk_result& cr) {
    const std::size_t s = ch.first_slot;
    switch (h.field) {
      case mm_field::real:
        parse_coordinate_chunk<mm_field::real>(ch, h, opt.refuse_negative, r + s, c + s, v + s, cr);
        break;
      case mm_field::integer:
        parse_coordinate_chunk<mm_field::integer>(ch, h, opt.refuse_negative, r + s, c + s, v + s, cr);
        break;
      case mm_field::pattern:
        parse_coordinate_chunk<mm_field::pattern>(ch, h, opt.refuse_negative, r + s, c + s, v + s, cr);
        break;
    }
  });
  std::vector<std::size_t> count(res.size());
  for (std::size_t k = 0; k < res.size(); ++k) count[k] = res[k].entries;
  const std::size_t nnz = base + detail::pack_slots(r, chunks, count);
  detail::pack_slots(c, chunks, count);
  detail::pack_slots(v, chunks, count);
  a.row_idx.resize(nnz);
  a.col_idx.resize(nnz);
  a.values.resize(nnz);
  return detail::newlines_in(chunks);
}

// The body: [body, end) of the first window, then every later window.
mm_matrix parse_coordinate(const parsed_header& ph, const char* end, detail::text_windows& more,
                           const std::string& name, const read_options& opt) {
  const unsigned threads = more.parse_threads(opt.threads);
  mm_matrix out;
  out.header = ph.h;
  coo_matrix<double>& a = out.matrix;
  a.rows = ph.h.rows;
  a.cols = ph.h.cols;
  std::uint64_t seen = 0, line = ph.body_line, last_line = ph.body_line - 1;
  detail::reserve_for_windows(more.size_hint(), ph.body, end, a.row_idx, a.col_idx, a.values);
  for (std::string_view w(ph.body, static_cast<std::size_t>(end - ph.body));; w = more.next()) {
    if (w.empty() && w.data() != ph.body) break;  // the first window's body may be empty
    if (w.empty()) continue;
    const char* b = w.data();
    const char* e = b + w.size();
    const std::uint64_t next = line + parse_coordinate_window(ph, b, e, line, name, opt, threads, a, seen);
    last_line = e[-1] == '\n' ? next - 1 : next;
    line = next;
  }
  check_count(name, ph, seen, last_line);
  if (ph.h.symmetry != mm_symmetry::general)
    detail::mirror_entries(a, ph.h.symmetry == mm_symmetry::skew_symmetric ? -1.0 : 1.0, name, threads);
  return out;
}

std::vector<double> parse_array_values(const parsed_header& ph, const char* end, const std::string& name,
                                       const read_options& opt) {
  const mm_header& h = ph.h;
  const unsigned threads = detail::thread_count(opt.threads);
  const auto chunks = detail::split_lines(ph.body, end, ph.body_line, threads, opt.chunk_bytes);
  const std::size_t slots = chunks.empty() ? 0 : chunks.back().first_slot + chunks.back().lines;
  // Stored values: all of them (general), the lower triangle with the
  // diagonal (symmetric) or without it (skew-symmetric), column by column.
  const auto n = static_cast<std::uint64_t>(h.rows);
  parsed_header declared = ph;
  if (h.symmetry == mm_symmetry::symmetric) declared.h.entries = n * (n + 1) / 2;
  if (h.symmetry == mm_symmetry::skew_symmetric) declared.h.entries = n * (n - 1) / 2;

  detail::check_parse_growth(name, 0, slots, sizeof(double), 0);
  std::vector<double> stored(slots);
  double* v = stored.data();
  std::uint64_t seen = 0;
  auto res = parse_body(name, declared, chunks, threads, seen, [&](const line_chunk& ch, chunk_result& cr) {
    if (h.field == mm_field::integer)
      parse_array_chunk<mm_field::integer>(ch, h, v + ch.first_slot, cr);
    else
      parse_array_chunk<mm_field::real>(ch, h, v + ch.first_slot, cr);
  });
  check_count(name, declared, seen,
              chunks.empty() ? ph.body_line - 1 : chunks.back().first_line + chunks.back().lines - 1);
  std::vector<std::size_t> count(res.size());
  for (std::size_t k = 0; k < res.size(); ++k) count[k] = res[k].entries;
  stored.resize(detail::pack_slots(v, chunks, count));
  if (h.symmetry == mm_symmetry::general) return stored;

  // The count matched the declared triangle, so n * n is confirmed by the data.
  std::vector<double> full(static_cast<std::size_t>(n * n), 0.0);
  const double sign = h.symmetry == mm_symmetry::skew_symmetric ? -1.0 : 1.0;
  std::size_t k = 0;
  for (std::uint64_t j = 0; j < n; ++j)
    for (std::uint64_t i = h.symmetry == mm_symmetry::symmetric ? j : j + 1; i < n; ++i) {
      full[j * n + i] = stored[k];
      full[i * n + j] = i == j ? stored[k] : sign * stored[k];
      ++k;
    }
  return full;
}

// ---- writing ----------------------------------------------------------------------

// Buffered output through io::output_file (a temporary renamed into place at
// close(); "-" is standard output; a .gz name gzip-compressed there); every
// failure is an io_error.
class text_sink {
 public:
  explicit text_sink(const std::string& path) : out_(path) { buf_.reserve(1 << 20); }

  std::string& buffer() { return buf_; }
  void flush_if_full() {
    if (buf_.size() >= (1 << 20)) flush();
  }
  void flush() {
    out_.write(buf_);
    buf_.clear();
  }
  void close() {
    flush();
    out_.commit();
  }

 private:
  output_file out_;
  std::string buf_;
};

const char* field_word(mm_field f) {
  switch (f) {
    case mm_field::integer:
      return "integer";
    case mm_field::pattern:
      return "pattern";
    default:
      return "real";
  }
}

void append_number(std::string& s, std::uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

void append_value(std::string& s, double v, mm_field field, const std::string& path) {
  char buf[40];
  if (field == mm_field::integer) {
    if (!(std::nearbyint(v) == v) || std::fabs(v) > 9.2e18)
      throw invalid_argument(path + ": value " + std::to_string(v) +
                             " cannot be written to an 'integer' Matrix Market file");
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<std::int64_t>(v));
    s.append(buf, r.ptr);
    return;
  }
  if (!std::isfinite(v))
    throw invalid_argument(path + ": value " + std::to_string(v) +
                           " cannot be written (Matrix Market values are finite)");
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest form that reads back exactly
  s.append(buf, r.ptr);
}

template <class Entry>
void write_coordinate(const std::string& path, index_t rows, index_t cols, std::size_t nnz, mm_field field,
                      Entry entry) {
  text_sink out(path);
  std::string& s = out.buffer();
  s += "%%MatrixMarket matrix coordinate ";
  s += field_word(field);
  s += " general\n% written by perron\n";
  append_number(s, static_cast<std::uint64_t>(rows));
  s += ' ';
  append_number(s, static_cast<std::uint64_t>(cols));
  s += ' ';
  append_number(s, nnz);
  s += '\n';
  for (std::size_t k = 0; k < nnz; ++k) {
    index_t i, j;
    double v;
    entry(k, i, j, v);
    append_number(s, static_cast<std::uint64_t>(i) + 1);
    s += ' ';
    append_number(s, static_cast<std::uint64_t>(j) + 1);
    if (field != mm_field::pattern) {
      s += ' ';
      append_value(s, v, field, path);
    }
    s += '\n';
    out.flush_if_full();
  }
  out.close();
}

}  // namespace

mm_matrix parse_matrix_market(std::string_view text, const std::string& name, const read_options& opt) {
  detail::whole_text one(text);
  return detail::parse_matrix_market_windows(one, name, opt);
}

namespace detail {

// In parallel pieces, each piece's mirrors in the order of its entries.
void mirror_entries(coo_matrix<double>& a, double sign, const std::string& name, unsigned threads) {
  const std::size_t nnz = a.row_idx.size();
  const std::size_t pieces = nnz < (std::size_t(1) << 16) ? 1 : std::size_t(threads) * 4;
  std::vector<std::size_t> off_diag(pieces, 0);
  const auto np = static_cast<std::int64_t>(pieces);
  const auto first = [&](std::size_t k) { return nnz / pieces * k + std::min(k, nnz % pieces); };
#pragma omp parallel for schedule(static) num_threads(threads) if (np > 1)
  for (std::int64_t k = 0; k < np; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    std::size_t c = 0;
    for (std::size_t e = first(kk); e < first(kk + 1); ++e) c += a.row_idx[e] != a.col_idx[e];
    off_diag[kk] = c;
  }
  const auto mirror_at = detail::offsets_of(off_diag);
  detail::check_parse_growth(name, nnz, mirror_at.back(), 2 * sizeof(index_t) + sizeof(double),
                             a.row_idx.capacity(), "with their mirrored entries");
  detail::resize_outputs(nnz + mirror_at.back(), threads, a.row_idx, a.col_idx, a.values);
  index_t* r = a.row_idx.data();
  index_t* c = a.col_idx.data();
  double* v = a.values.data();
#pragma omp parallel for schedule(static) num_threads(threads) if (np > 1)
  for (std::int64_t k = 0; k < np; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    std::size_t o = nnz + mirror_at[kk];
    for (std::size_t e = first(kk); e < first(kk + 1); ++e) {
      if (r[e] == c[e]) continue;
      r[o] = c[e];
      c[o] = r[e];
      v[o] = sign * v[e];
      ++o;
    }
  }
}

mm_stream_header parse_mm_stream_header(std::string_view first_window, const std::string& name) {
  const parsed_header ph = parse_header(first_window, name);
  mm_stream_header out;
  out.header = ph.h;
  out.size_line = ph.size_line;
  out.body_line = ph.body_line;
  out.body_offset = static_cast<std::size_t>(ph.body - first_window.data());
  return out;
}

std::uint64_t count_mm_entry_lines(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  std::uint64_t n = 0;
  while (p != end) {
    const char* q = skip_blanks(p, end);
    // is_mm_data, without reading past the end on a last lone '\r'.
    if (q != end && *q != '\n' && *q != '%' && !(*q == '\r' && (q + 1 == end || q[1] == '\n'))) ++n;
    p = next_line(p, end);
  }
  return n;
}

void parse_mm_stream_chunk(const mm_stream_header& h, std::string_view text, std::uint64_t first_line,
                           std::uint64_t entries_before, const std::string& name, const read_options& opt,
                           coo_matrix<double>& a) {
  parsed_header ph;
  ph.h = h.header;
  ph.size_line = h.size_line;
  ph.body_line = first_line;
  a.rows = h.header.rows;
  a.cols = h.header.cols;
  if (text.empty()) return;
  std::uint64_t seen = entries_before;
  parse_coordinate_window(ph, text.data(), text.data() + text.size(), first_line, name, opt,
                          thread_count(opt.threads), a, seen);
}

void check_mm_stream_count(const mm_stream_header& h, std::uint64_t entries, std::uint64_t last_line,
                           const std::string& name) {
  parsed_header ph;
  ph.h = h.header;
  ph.size_line = h.size_line;
  io::check_count(name, ph, entries, last_line);
}

// The header from the first window (so a file that is not Matrix Market
// fails there); a coordinate body window by window; an array (a dense
// vector or matrix, as large as its values) gathered whole.
mm_matrix parse_matrix_market_windows(text_windows& windows, const std::string& name,
                                      const read_options& opt) {
  std::string header;
  const std::string_view text = through_header(windows.next(), windows, header, name, "%", 1);
  const parsed_header ph = parse_header(text, name);
  const char* end = text.data() + text.size();
  if (ph.h.coordinate) return parse_coordinate(ph, end, windows, name, opt);
  // A dense array is parsed from one text. The first window is copied before
  // the next call, which may reuse its buffer: gzip windows refill theirs
  // (a dense array .mtx.gz of more than one window read its first window's
  // bytes overwritten: "value '\x004637' is not a number", session 107).
  // A text read whole is one window that stays valid: parsed in place.
  std::string whole;
  if (!windows.views_persist()) whole.assign(text);
  for (std::string_view w = windows.next(); !w.empty(); w = windows.next()) {
    if (whole.empty()) whole.assign(text);
    whole.append(w);
  }
  if (!whole.empty()) return parse_matrix_market(whole, name, opt);
  // An array read as a sparse matrix: its nonzeros, column by column.
  mm_matrix out;
  out.header = ph.h;
  const auto values = parse_array_values(ph, end, name, opt);
  auto& a = out.matrix;
  a.rows = ph.h.rows;
  a.cols = ph.h.cols;
  const auto rows = static_cast<std::size_t>(ph.h.rows);
  for (std::size_t k = 0; k < values.size(); ++k)
    if (values[k] != 0.0) {
      a.row_idx.push_back(static_cast<index_t>(k % rows));
      a.col_idx.push_back(static_cast<index_t>(k / rows));
      a.values.push_back(values[k]);
    }
  return out;
}

}  // namespace detail

mm_array parse_matrix_market_array(std::string_view text, const std::string& name, const read_options& opt) {
  const parsed_header ph = parse_header(text, name);
  if (ph.h.coordinate)
    throw parse_error(name, 1, "expected a dense 'array' Matrix Market file, found 'coordinate'");
  mm_array out;
  out.header = ph.h;
  out.values = parse_array_values(ph, text.data() + text.size(), name, opt);
  return out;
}

mm_matrix read_matrix_market(const std::string& path, const read_options& opt) {
  if (detail::is_gzip_file(path)) {
    const auto windows = detail::open_gzip_windows(path, detail::auto_window, opt.threads);
    return detail::parse_matrix_market_windows(*windows, path, opt);
  }
  const auto text = detail::read_file(path, detail::thread_count(opt.threads));
  return parse_matrix_market(text.view(), path, opt);
}

mm_array read_matrix_market_array(const std::string& path) {
  const auto text = detail::read_file(path, detail::thread_count(0));
  return parse_matrix_market_array(text.view(), path);
}

// ---- parts of a file (distributed loading) -------------------------------------

struct mm_file_part::text {
  detail::text_buffer bytes;
};
void mm_file_part::text_deleter::operator()(text* t) const { delete t; }

namespace {

// The header from the file's first bytes: a prefix that grows until the
// size line is complete (comment blocks can be long).
parsed_header header_from_prefix(const detail::ranged_file& f, const std::string& path,
                                 detail::text_buffer& prefix) {
  for (std::uint64_t want = std::uint64_t(1) << 16;; want *= 4) {
    const std::uint64_t n = std::min(want, f.size());
    prefix = f.read(0, n);
    const bool whole = n == f.size();
    try {
      const parsed_header ph = parse_header(prefix.view(), path);
      const char* end = prefix.data() + prefix.size();
      // A size line cut off by the prefix's end may have lost digits.
      if (whole || (ph.body != end || end[-1] == '\n')) return ph;
    } catch (const error&) {
      if (whole) throw;
    }
  }
}

}  // namespace

mm_file_part::mm_file_part(const std::string& path, int part, int parts)
    : path_(path), part_(part), parts_(parts), text_(new text) {
  const auto t0 = std::chrono::steady_clock::now();
  if (parts < 1 || part < 0 || part >= parts)
    throw invalid_argument("mm_file_part: part " + std::to_string(part) + " of " + std::to_string(parts));
  if (detail::is_gzip_file(path))
    throw not_supported(path + ": a gzip file cannot be read in parts (each process would inflate it all)");
  const detail::ranged_file f(path);
  file_bytes_ = f.size();
  detail::text_buffer prefix;
  const parsed_header ph = header_from_prefix(f, path, prefix);
  if (!ph.h.coordinate) throw not_supported(path + ": an 'array' Matrix Market file cannot be read in parts");
  header_ = ph.h;
  size_line_ = ph.size_line;
  body_line_ = ph.body_line;
  // Part p holds the lines starting in [B + (S - B) p / P, B + (S - B) (p + 1) / P).
  const auto body = static_cast<std::uint64_t>(ph.body - prefix.data());
  const std::uint64_t span = f.size() - body;
  const auto cut = [&](int p) {
    // floor(span * p / parts) without overflow: (span / parts) p + floor((span % parts) p / parts).
    const auto q = static_cast<std::uint64_t>(p), k = static_cast<std::uint64_t>(parts);
    return f.line_start(body + span / k * q + span % k * q / k, body);
  };
  const std::uint64_t first = cut(part), last = cut(part + 1);
  text_->bytes = f.read(first, last);
  const detail::text_buffer& t = text_->bytes;
  lines_ = detail::count_newlines(t.data(), t.data() + t.size()) +
           (t.size() != 0 && t.data()[t.size() - 1] != '\n' ? 1 : 0);
  read_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::uint64_t mm_file_part::text_bytes() const { return text_->bytes.size(); }

coo_matrix<double> mm_file_part::parse(std::uint64_t first_line, const read_options& opt) const {
  parsed_header ph;
  ph.h = header_;
  ph.h.entries = std::numeric_limits<std::uint64_t>::max();  // counted across parts (check_count)
  ph.size_line = size_line_;
  ph.body_line = first_line;
  coo_matrix<double> a;
  a.rows = header_.rows;
  a.cols = header_.cols;
  const detail::text_buffer& t = text_->bytes;
  if (t.size() == 0) return a;
  std::uint64_t seen = 0;
  parse_coordinate_window(ph, t.data(), t.data() + t.size(), first_line, path_, opt,
                          detail::thread_count(opt.threads), a, seen);
  return a;
}

void mm_file_part::check_count(std::uint64_t entries_before, std::uint64_t mine, std::uint64_t total,
                               std::uint64_t first_line) const {
  const std::uint64_t declared = header_.entries;
  if (entries_before <= declared && declared < entries_before + mine) {
    const detail::text_buffer& t = text_->bytes;
    detail::line_chunk c;
    c.begin = t.data();
    c.end = t.data() + t.size();
    c.first_line = first_line;
    const char* extra =
        detail::nth_data_line(c, static_cast<std::size_t>(declared - entries_before), is_mm_data);
    throw parse_error(path_, detail::line_of(c, extra),
                      "entry " + std::to_string(declared + 1) + " is one more than the " +
                          std::to_string(declared) + " the size line (line " + std::to_string(size_line_) +
                          ") declares");
  }
  if (total < declared && part_ == parts_ - 1) {
    parsed_header ph;
    ph.h = header_;
    ph.size_line = size_line_;
    io::check_count(path_, ph, total, first_line + lines_ - 1);
  }
}

bool mm_file_part::splittable(const std::string& path) {
  try {
    // Not opened unless regular: every rank asks, and opening a named pipe
    // waits for a writer and takes its text from the one process that reads
    // it ('mpirun -np 3 pagerank fifo.mtx' hung, where one process read it).
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    if (detail::is_gzip_file(path)) return false;
    const detail::ranged_file f(path);
    detail::text_buffer prefix;
    return header_from_prefix(f, path, prefix).h.coordinate;
  } catch (const std::exception&) {
    return false;
  }
}

void write_matrix_market(const std::string& path, const coo_matrix<double>& a, mm_field field) {
  if (a.col_idx.size() != a.nnz() || (field != mm_field::pattern && a.values.size() != a.nnz()))
    throw dimension_error(path + ": COO arrays differ in length (row_idx " +
                          std::to_string(a.row_idx.size()) + ", col_idx " + std::to_string(a.col_idx.size()) +
                          ", values " + std::to_string(a.values.size()) + ")");
  // Indices in range before anything is written (a pattern write may come without values).
  for (std::size_t k = 0; k < a.nnz(); ++k)
    if (a.row_idx[k] < 0 || a.row_idx[k] >= a.rows || a.col_idx[k] < 0 || a.col_idx[k] >= a.cols)
      throw dimension_error(path + ": entry " + std::to_string(k) + " (0-based) at (" +
                            std::to_string(a.row_idx[k]) + ", " + std::to_string(a.col_idx[k]) +
                            ") lies outside the " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                            " matrix; nothing written");
  write_coordinate(path, a.rows, a.cols, a.nnz(), field,
                   [&](std::size_t k, index_t& i, index_t& j, double& v) {
                     i = a.row_idx[k];
                     j = a.col_idx[k];
                     v = field == mm_field::pattern ? 1.0 : a.values[k];
                   });
}

void write_matrix_market(const std::string& path, const csr_matrix<double>& a, mm_field field) {
  validate(a, (path + ": CSR to write").c_str());
  index_t row = 0;
  write_coordinate(path, a.rows, a.cols, a.nnz(), field,
                   [&](std::size_t k, index_t& i, index_t& j, double& v) {
                     while (static_cast<std::size_t>(a.row_ptr[static_cast<std::size_t>(row) + 1]) <= k)
                       ++row;
                     i = row;
                     j = a.col_idx[k];
                     v = field == mm_field::pattern ? 1.0 : a.values[k];
                   });
}

void write_matrix_market_array(const std::string& path, const std::vector<double>& values, index_t rows,
                               index_t cols) {
  if (rows < 0 || cols < 0 ||
      values.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    throw dimension_error(path + ": " + std::to_string(values.size()) + " values for a " +
                          std::to_string(rows) + " x " + std::to_string(cols) + " array");
  text_sink out(path);
  std::string& s = out.buffer();
  s += "%%MatrixMarket matrix array real general\n% written by perron\n";
  append_number(s, static_cast<std::uint64_t>(rows));
  s += ' ';
  append_number(s, static_cast<std::uint64_t>(cols));
  s += '\n';
  for (double v : values) {
    append_value(s, v, mm_field::real, path);
    s += '\n';
    out.flush_if_full();
  }
  out.close();
}

}  // namespace perron::io
