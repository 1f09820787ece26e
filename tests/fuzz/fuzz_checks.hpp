// What the fuzz targets check on every input, shared with the corpus replay
// test (tests/io_corpus_replay_test.cpp) so CI replays exactly the same
// checks without fuzzing. Each check returns "" when the input was handled
// correctly: parsed into a consistent matrix, or refused with a perron::error.
// Anything else is a bug: a violated invariant (returned as text), a
// different outcome between the one-chunk and the many-chunk parse (they
// share one core and must agree to the byte), or an exception that is not a
// perron::error (it propagates to the caller).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/graph_files.hpp"
#include "io/load.hpp"
#include "io/matrix_market.hpp"
#include "io/snap.hpp"
#include "io/text_input.hpp"
#include "tests/support/text_pieces.hpp"

namespace perron::fuzz {

// A parse result or an error, reduced to something comparable.
template <class Result>
struct outcome {
  bool ok = false;
  Result value{};
  std::string error;  // what() of the perron::error
};

template <class Parse>
auto attempt(Parse parse) -> outcome<decltype(parse())> {
  outcome<decltype(parse())> o;
  try {
    o.value = parse();
    o.ok = true;
  } catch (const error& e) {
    o.error = e.what();
    if (o.error.empty()) o.error = "(empty message)";
  }
  return o;
}

inline std::string check_coo(const coo_matrix<double>& a) {
  if (a.rows < 0 || a.cols < 0) return "negative dimensions";
  if (a.col_idx.size() != a.nnz() || a.values.size() != a.nnz()) return "COO arrays differ in length";
  for (std::size_t k = 0; k < a.nnz(); ++k) {
    if (a.row_idx[k] < 0 || a.row_idx[k] >= a.rows)
      return "row index out of range at entry " + std::to_string(k);
    if (a.col_idx[k] < 0 || a.col_idx[k] >= a.cols)
      return "column index out of range at entry " + std::to_string(k);
    if (!(a.values[k] - a.values[k] == 0.0)) return "non-finite value at entry " + std::to_string(k);
  }
  return "";
}

inline bool same_coo(const coo_matrix<double>& a, const coo_matrix<double>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_idx == b.row_idx && a.col_idx == b.col_idx &&
         std::equal(a.values.begin(), a.values.end(), b.values.begin(), b.values.end(),
                    [](double x, double y) { return x == y || (x != x && y != y); });
}

template <class R, class Same>
std::string compare(const outcome<R>& one, const outcome<R>& many, Same same) {
  if (one.ok != many.ok)
    return "one chunk " + (one.ok ? std::string("parsed") : "failed: " + one.error) + ", many chunks " +
           (many.ok ? std::string("parsed") : "failed: " + many.error);
  if (!one.ok)
    return one.error == many.error ? "" : "errors differ: '" + one.error + "' vs '" + many.error + "'";
  return same(one.value, many.value) ? "" : "one-chunk and many-chunk results differ";
}

inline io::read_options chunked(std::size_t chunk_bytes) {
  io::read_options opt;
  opt.threads = 1;
  opt.chunk_bytes = chunk_bytes;
  return opt;
}

inline std::string check_matrix_market_input(std::string_view text) {
  const auto one = attempt([&] { return io::parse_matrix_market(text, "fuzz.mtx", chunked(0)); });
  for (std::size_t chunk : {std::size_t(1), std::size_t(13)}) {
    const auto many = attempt([&] { return io::parse_matrix_market(text, "fuzz.mtx", chunked(chunk)); });
    const std::string d = compare(one, many, [](const io::mm_matrix& a, const io::mm_matrix& b) {
      return same_coo(a.matrix, b.matrix);
    });
    if (!d.empty()) return "matrix market, chunk " + std::to_string(chunk) + ": " + d;
  }
  if (one.ok) {
    const std::string bad = check_coo(one.value.matrix);
    if (!bad.empty()) return "matrix market: " + bad;
    const auto& h = one.value.header;
    if (h.symmetry == io::mm_symmetry::general && h.coordinate && one.value.matrix.nnz() != h.entries)
      return "general matrix: nnz differs from the size line";
  }
  const auto arr = attempt([&] { return io::parse_matrix_market_array(text, "fuzz.mtx", chunked(0)); });
  if (arr.ok && arr.value.values.size() != static_cast<std::size_t>(arr.value.header.rows) *
                                               static_cast<std::size_t>(arr.value.header.cols))
    return "array: values do not fill rows x columns";
  // The dispatcher's sniffing on a name without an extension.
  attempt([&] { return io::parse_matrix(text, "fuzz", chunked(0)); });
  return "";
}

inline std::string check_snap_input(std::string_view text) {
  const auto one = attempt([&] { return io::parse_snap(text, "fuzz.txt", chunked(0)); });
  for (std::size_t chunk : {std::size_t(1), std::size_t(11)}) {
    const auto many = attempt([&] { return io::parse_snap(text, "fuzz.txt", chunked(chunk)); });
    const std::string d = compare(one, many, [](const io::snap_graph& a, const io::snap_graph& b) {
      return same_coo(a.matrix, b.matrix) && a.original_id == b.original_id && a.name == b.name &&
             a.weighted == b.weighted;
    });
    if (!d.empty()) return "snap, chunk " + std::to_string(chunk) + ": " + d;
  }
  if (one.ok) {
    const auto& g = one.value;
    const std::string bad = check_coo(g.matrix);
    if (!bad.empty()) return "snap: " + bad;
    // Integer ids (ascending, distinct) or names (distinct, not empty, no control byte), never both.
    const std::size_t labels = g.name.empty() ? g.original_id.size() : g.name.size();
    if (g.matrix.rows != g.matrix.cols || static_cast<std::size_t>(g.matrix.rows) != labels)
      return "snap: matrix size differs from the number of ids";
    if (!g.name.empty() && !g.original_id.empty()) return "snap: both ids and names";
    if (!std::is_sorted(g.original_id.begin(), g.original_id.end()) ||
        std::adjacent_find(g.original_id.begin(), g.original_id.end()) != g.original_id.end())
      return "snap: original ids not strictly ascending";
    std::vector<std::string> sorted = g.name;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return "snap: a name twice";
    // A tab is a name's byte where its field was quoted ('0 "a<TAB> b"': a
    // spreadsheet's cell, io/snap.cpp is_name_text); no other control byte is.
    for (const std::string& s : g.name)
      if (s.empty() || std::any_of(s.begin(), s.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x20 && c != '\t'; }))
        return "snap: an empty name, or one with a control byte other than a tab";
  }
  attempt([&] { return io::parse_matrix(text, "fuzz", chunked(0)); });
  return "";
}

// gzip input: the in-memory inflater, then whatever the text holds.
inline std::string check_gzip_input(std::string_view data) {
  const auto text =
      attempt([&] { return std::string(io::detail::gunzip("fuzz.gz", data.data(), data.size()).view()); });
  if (!text.ok) return "";
  attempt([&] { return io::parse_matrix(text.value, "fuzz", chunked(0)); });
  return "";
}

// GraphML, GML and Pajek (io/graph_files.hpp): the bytes as each format
// (by extension) and as a file of no extension (the sniff). A graph read is
// consistent: indices in range, finite values, ids or distinct names of
// every vertex, never both; undirected means the arcs come in mirrored pairs;
// a GML file read in pieces cut anywhere is the same graph.
inline std::string check_graph_file_input(std::string_view text) {
  for (const char* name : {"fuzz.graphml", "fuzz.gml", "fuzz.net", "fuzz"}) {
    const auto r = attempt([&] { return io::parse_matrix(text, name, chunked(0)); });
    if (!r.ok) continue;
    const io::loaded_matrix& m = r.value;
    const std::string where = std::string(name) + ": ";
    const std::string bad = check_coo(m.matrix);
    if (!bad.empty()) return where + bad;
    if (m.matrix.rows != m.matrix.cols) return where + "not square";
    const auto n = static_cast<std::size_t>(m.matrix.rows);
    if (!m.name.empty() && !m.label.empty()) return where + "both ids and names";
    if ((!m.name.empty() && m.name.size() != n) || (!m.label.empty() && m.label.size() != n))
      return where + "names or ids for another number of vertices";
    std::vector<std::string> sorted = m.name;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return where + "a name twice";
    std::vector<std::int64_t> ids = m.label;
    std::sort(ids.begin(), ids.end());
    if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) return where + "an id twice";
    // GML is parsed window by window: in pieces cut anywhere, the graph the
    // whole text gives (the pieces' outcome compared where the whole parsed).
    if (m.format == io::input_format::gml) {
      for (std::size_t size : {1, 7}) {
        const auto p = attempt([&] {
          test::text_pieces pieces(text, size);
          return io::detail::parse_gml(pieces, name);
        });
        if (!p.ok) return where + "refused in pieces of " + std::to_string(size) + ": " + p.error;
        if (p.value.matrix.row_idx != m.matrix.row_idx || p.value.matrix.col_idx != m.matrix.col_idx ||
            p.value.matrix.values != m.matrix.values || p.value.name != m.name ||
            p.value.original_id != m.label)
          return where + "another graph in pieces of " + std::to_string(size);
      }
    }
    if (m.symmetric && m.format != io::input_format::matrix_market) {
      std::vector<std::pair<index_t, index_t>> arcs, mirrored;
      for (std::size_t e = 0; e < m.matrix.nnz(); ++e) {
        arcs.emplace_back(m.matrix.row_idx[e], m.matrix.col_idx[e]);
        mirrored.emplace_back(m.matrix.col_idx[e], m.matrix.row_idx[e]);
      }
      std::sort(arcs.begin(), arcs.end());
      std::sort(mirrored.begin(), mirrored.end());
      if (arcs != mirrored) return where + "undirected, but an arc without its mirror";
    }
  }
  return "";
}

}  // namespace perron::fuzz
