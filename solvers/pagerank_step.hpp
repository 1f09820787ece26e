// The CPU power-iteration step, one function for the single-process solve
// (pagerank_cpu) and every rank of the distributed one (solvers/dist): the
// same arithmetic in both by construction, which is what makes their ranks
// the same bits (tests/mpi_pagerank_check.sh compares them with cmp).
#pragma once

#include <cstdint>
#include <vector>

#include "../core/formats.hpp"

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
// count and either split. Threads take whole blocks of about equal links +
// rows, or rows of about equal links + rows, the blocks' sums then in a
// second pass: `split` chooses (a solve decides once with
// pagerank_step_whole_blocks; automatic decides at every call).
enum class step_split { automatic, whole_blocks, rows };
template <class T>
void pagerank_step_rows(const csr_matrix<T>& pt, index_t first, const T* r, T* next, const double* v,
                        double v_uniform, const std::uint8_t* dangling, double alpha, double c,
                        double* block_sums, step_split split = step_split::automatic);

// Whether pagerank_step_rows gives a team of `team` threads whole blocks of
// pagerank_sum_block rows (summed as they are written) rather than rows split
// by links + rows (summed in a second pass): where the busiest thread's
// blocks hold no more links + rows than the busiest thread's rows plus half
// a unit for each row of its share (the second pass). One thread: whole
// blocks.
template <class T>
bool pagerank_step_whole_blocks(const csr_matrix<T>& pt, int team);

// The team pagerank_step_rows takes over pt: solve_team (core/memory.hpp) of
// its links + rows, the same again when asked inside a team_scope of it.
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
