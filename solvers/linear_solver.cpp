#include "solvers/linear_solver.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/names.hpp"
#include "core/text.hpp"

namespace perron {

namespace {

// A finite tolerance >= 0; `what` names it and its CLI option.
void check_tolerance(double v, const char* what) {
  if (!(v >= 0) || !std::isfinite(v))
    throw invalid_argument(std::string(what) + " must be a finite number >= 0 (got " + format_g(v) + ")");
}

constexpr name_table<solve_status, 4> status_names{{
    {solve_status::converged, "converged"},
    {solve_status::max_iterations, "max-iterations"},
    {solve_status::breakdown, "breakdown"},
    {solve_status::diverged, "diverged"},
}};

}  // namespace

void stop_criterion::validate() const {
  if (max_iterations < 0)
    throw invalid_argument("maximum number of iterations (--max-iter) must be >= 0 (got " +
                           std::to_string(max_iterations) + ")");
  if (min_iterations < 0)
    throw invalid_argument("minimum number of iterations must be >= 0 (got " +
                           std::to_string(min_iterations) + ")");
  check_tolerance(rel_tol, "relative tolerance (--rtol)");
  check_tolerance(abs_tol, "absolute tolerance (--atol)");
}

std::string_view name(solve_status s) { return name_in(status_names, s); }

}  // namespace perron
