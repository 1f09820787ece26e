#include "solvers/linear_solver.hpp"

#include <cmath>

#include "core/error.hpp"

namespace perron {

void stop_criterion::validate() const {
  if (max_iterations < 0)
    throw invalid_argument("maximum number of iterations must be >= 0 (got " +
                           std::to_string(max_iterations) + ")");
  if (!(rel_tol >= 0) || !std::isfinite(rel_tol))
    throw invalid_argument("relative tolerance must be a finite number >= 0 (got " + std::to_string(rel_tol) +
                           ")");
  if (!(abs_tol >= 0) || !std::isfinite(abs_tol))
    throw invalid_argument("absolute tolerance must be a finite number >= 0 (got " + std::to_string(abs_tol) +
                           ")");
}

std::string_view name(solve_status s) {
  switch (s) {
    case solve_status::converged:
      return "converged";
    case solve_status::max_iterations:
      return "max-iterations";
    case solve_status::breakdown:
      return "breakdown";
    case solve_status::diverged:
      return "diverged";
  }
  return "unknown";
}

}  // namespace perron
