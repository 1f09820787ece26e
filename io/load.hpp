// One entry point for "a matrix or graph file a user gave us": picks the reader
// from the content/extension (.mtx, .mtx.gz, .tar.gz -> Matrix Market;
// .txt, .txt.gz, .el, .tsv -> SNAP edge list) and returns the COO plus the
// labels that outputs use for vertex i.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/matrix_market.hpp"
#include "kernels/formats.hpp"

namespace perron::io {

enum class input_format { matrix_market, snap };

struct loaded_matrix {
  input_format format = input_format::matrix_market;
  coo_matrix<double> matrix;
  bool pattern = false;                // values carry no information (MM pattern, SNAP)
  bool symmetric = false;              // the file was symmetric (already expanded)
  std::vector<std::int64_t> label;     // SNAP: original ids; empty for MM (label = index + 1)
  double read_seconds = 0;             // time to read + parse

  std::int64_t label_of(index_t i) const { return label.empty() ? std::int64_t(i) + 1 : label[i]; }
};

loaded_matrix load_matrix(const std::string& path, const read_options& opt = {});

}  // namespace perron::io
