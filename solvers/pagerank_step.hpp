// The CPU power-iteration step, one function for the single-process solve
// (pagerank_cpu) and every rank of the distributed one (solvers/dist): the
// same arithmetic in both by construction, which is what makes their ranks
// the same bits (tests/mpi_pagerank_check.sh compares them with cmp).
#pragma once

#include <cstdint>
#include <vector>

#include "core/formats.hpp"

namespace perron {

// Rows [0, pt.rows) of P^T are the vertices first, first + 1, ... (first a
// multiple of pagerank_sum_block); r, v and dangling are indexed by vertex,
// next by row. In one pass over each block of pagerank_sum_block rows:
//   y_i = (P^T r)_i, its products summed in row order (in double for float),
//         rounded to T once;
//   next_i = T(alpha y_i + c v_i)            (v null: every v_i is v_uniform);
// and per block b (of the rows), block_sums[2b] = sum |next_i - r_i| and
// block_sums[2b + 1] = sum of next_i over dangling i, in double, in vertex
// order. The caller adds the blocks in order: the same bits for any thread
// count. Threads take whole blocks of about equal links + rows, or, with
// fewer than 8 blocks a thread, rows, the blocks' sums in a second pass.
template <class T>
void pagerank_step_rows(const csr_matrix<T>& pt, index_t first, const T* r, T* next, const double* v,
                        double v_uniform, const std::uint8_t* dangling, double alpha, double c,
                        double* block_sums);

// The team pagerank_step_rows takes over pt: one thread below two grains of
// links + rows (threads_for_work), else a thread per half grain, at most the
// threads allowed and, from 8 processors up, all processors but one. The
// same team again when asked inside a team_scope of it: a solve runs its
// other regions on that team (team_scope, core/memory.hpp).
template <class T>
int pagerank_step_team(const csr_matrix<T>& pt);

// The start vector r_0 written into r[0, n): T(w_i) for the normalized
// initial weights w (1 / n each where `initial` is empty), the writes spread
// over the threads; returns its dangling mass, the sum of double(r_i) over
// dangling i in vertex order (for a uniform start, that many additions of
// the one value in a row: the same bits without reading the mask twice).
// One function for the single-process and distributed solves, as the step.
template <class T>
double start_iterate(const std::vector<double>& initial, index_t n, const std::uint8_t* dangling, T* r);

}  // namespace perron
