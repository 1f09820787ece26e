// Distributed PageRank over MPI ranks (docs/ARCHITECTURE.md: distributed =
// local + exchange). Rank p owns a contiguous range of vertices, the rows of
// P^T for them; each step runs the ordinary local pull SpMV on those rows,
// all-gathers the rank vector and adds the per-4096-vertex partial sums of the
// residual and the dangling mass in block order, exactly as pagerank_cpu()
// does, so the ranks are bitwise identical to the single-process CPU solve
// for every number of ranks.
//
// The same API is declared whether or not perron was built with MPI
// (PERRON_MPI); without it, launched() is false and the solver throws.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "core/formats.hpp"
#include "solvers/pagerank.hpp"

namespace perron::dist {

// True when this process was started by mpirun with more than one rank
// (read from the launcher's environment, before MPI_Init).
bool launched();
// True when perron was built with MPI.
bool built();

// MPI_Init on construction (when built with MPI), MPI_Finalize on destruction.
class session {
 public:
  session();
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

// [first[p], first[p + 1]) are the vertices of rank p: block-aligned (4096
// vertices) ranges with about equal in-links. row_ptr: CSR row pointer of P^T.
std::vector<index_t> balanced_ranges(const std::vector<index_t>& row_ptr, int parts);

// Error agreement: every rank calls it after a phase with its own failure
// (null: none). If any rank failed, every rank throws the same error, of the
// failing rank's type (so the app's exit code matches), "rank R: message"
// for the lowest failing rank R. Never hangs: one all-reduce and a broadcast.
void agree(std::exception_ptr failure);

// Runs f, then agree() on what it threw.
template <class F>
void phase(F&& f) {
  std::exception_ptr e;
  try {
    f();
  } catch (...) {
    e = std::current_exception();
  }
  agree(e);
}

// The distributed power iteration; every rank returns the full rank vector
// (gathered in id order). g holds the rows of this rank only when local.
template <class T>
pagerank_result pagerank_mpi(const pagerank_graph<T>& g, const pagerank_options& opt);

}  // namespace perron::dist
