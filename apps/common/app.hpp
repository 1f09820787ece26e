// What every perron command line shares: one catch site that maps perron's
// error hierarchy to one line on stderr and a distinct exit code.
#pragma once

#include <functional>
#include <string>

#include "core/error.hpp"
#include "core/text.hpp"  // json_escape, used by every --json writer

namespace perron::app {

// Exit codes, the same for every app (documented in README.md).
enum exit_code : int {
  ok = 0,
  not_converged = 2,  // the solver stopped at its iteration limit; output still written
  usage = 64,         // bad command line (EX_USAGE)
  bad_input = 65,     // malformed input file or argument value (EX_DATAERR)
  no_input = 66,      // missing / unreadable file (EX_NOINPUT)
  unsupported = 69,   // well-formed but unsupported (complex MM, ...)
  cuda_failure = 70,  // CUDA error or no GPU when one was demanded
  internal = 71,      // anything else
};

// Runs body(), catching everything: prints "<app>: error: <message>" on
// stderr and returns the matching exit code.
int run(const char* app_name, const std::function<int()>& body);

// f(), with the input's file or spec named in front of the invalid_argument
// or dimension_error it throws: the solver's messages about the data ("arc
// 3 -> 2 has weight -1", "needs a square adjacency matrix") cannot know
// where the data came from, and the user then had to guess which input.
template <class F>
decltype(auto) naming_input(const std::string& input, F&& f) {
  try {
    return f();
  } catch (const invalid_argument& x) {
    throw invalid_argument(input + ": " + x.what());
  } catch (const dimension_error& x) {
    throw dimension_error(input + ": " + x.what());
  }
}

// Flushes std::cout and stdout; io_error ("standard output: cannot write:
// No space left on device") when a write to it failed, now or before. An app
// that prints its summary calls it there, where the failed write's reason is
// still known; app::run calls it after the body too.
void flush_standard_output();

// True when stdout / stderr is a terminal (progress lines only then).
bool stdout_is_terminal();
bool stderr_is_terminal();

}  // namespace perron::app
