// Built-in synthetic matrices, accepted wherever a matrix file name is
// (load_matrix dispatches on the prefix):
//   synthetic:seedSSS:N  N x N, each row 0..32 distinct random columns (uniform), values in [-1,1)
//   rmat:S:E             R-MAT graph, 2^S vertices, E edge draws (a,b,c,d = .57,.19,.19,.05),
//                        duplicates merged, pattern (value 1)
//   tridiag:N            N x N tridiagonal [-1 2 -1] (the 1D Laplacian, SPD)
// Deterministic: the same spec gives the same matrix on every machine.
#pragma once

#include <string>

#include "core/formats.hpp"

namespace perron::io {

bool is_synthetic_spec(const std::string& spec);

// Throws invalid_argument naming the spec and the expected forms when malformed
// or when the size does not fit 32-bit indices.
coo_matrix<double> generate_synthetic(const std::string& spec);

}  // namespace perron::io
