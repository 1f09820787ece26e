// An independent, deliberately simple Matrix Market / SNAP reader for the io
// tests: zlib's gzgets (which reads plain files too), one std::istringstream
// per line, no chunks, no threads. Slow, but shares no code with io/.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/formats.hpp"

namespace perron::test {

inline std::vector<std::string> reference_lines(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("reference: cannot open " + path);
  std::vector<std::string> lines;
  std::string cur;
  char buf[1 << 16];
  while (gzgets(f, buf, sizeof buf)) {
    cur += buf;
    if (!cur.empty() && cur.back() == '\n') {
      cur.pop_back();
      if (!cur.empty() && cur.back() == '\r') cur.pop_back();
      lines.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  gzclose(f);
  return lines;
}

struct reference_mm {
  std::string field, symmetry;
  std::uint64_t declared = 0;
  coo_matrix<double> matrix;  // expanded like perron's reader: mirrors appended after the file's entries
};

inline reference_mm reference_read_mm(const std::string& path) {
  const auto lines = reference_lines(path);
  reference_mm out;
  std::istringstream banner(lines.at(0));
  std::string mm, object, format;
  banner >> mm >> object >> format >> out.field >> out.symmetry;
  for (auto* s : {&out.field, &out.symmetry})
    std::transform(s->begin(), s->end(), s->begin(), [](unsigned char c) { return char(std::tolower(c)); });
  std::size_t k = 1;
  while (k < lines.size() && (lines[k].empty() || lines[k][0] == '%')) ++k;
  std::istringstream size(lines.at(k++));
  long long rows, cols;
  size >> rows >> cols >> out.declared;
  auto& a = out.matrix;
  a.rows = static_cast<index_t>(rows);
  a.cols = static_cast<index_t>(cols);
  for (; k < lines.size(); ++k) {
    if (lines[k].find_first_not_of(" \t") == std::string::npos) continue;
    std::istringstream ls(lines[k]);
    long long i, j;
    double v = 1.0;
    ls >> i >> j;
    if (out.field != "pattern") ls >> v;
    a.row_idx.push_back(static_cast<index_t>(i - 1));
    a.col_idx.push_back(static_cast<index_t>(j - 1));
    a.values.push_back(v);
  }
  if (out.symmetry != "general") {
    const double sign = out.symmetry == "skew-symmetric" ? -1.0 : 1.0;
    const std::size_t n = a.nnz();
    for (std::size_t e = 0; e < n; ++e)
      if (a.row_idx[e] != a.col_idx[e]) {
        a.row_idx.push_back(a.col_idx[e]);
        a.col_idx.push_back(a.row_idx[e]);
        a.values.push_back(sign * a.values[e]);
      }
  }
  return out;
}

struct reference_snap {
  std::vector<std::int64_t> from, to;  // original ids, in file order
  std::vector<std::int64_t> ids;       // distinct, ascending
};

inline reference_snap reference_read_snap(const std::string& path) {
  reference_snap g;
  std::map<std::int64_t, int> seen;
  for (const auto& line : reference_lines(path)) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#' || line[first] == '%') continue;
    std::istringstream ls(line);
    std::int64_t a, b;
    ls >> a >> b;
    g.from.push_back(a);
    g.to.push_back(b);
    seen[a] = seen[b] = 1;
  }
  for (const auto& [id, unused] : seen) g.ids.push_back(id);
  return g;
}

}  // namespace perron::test
