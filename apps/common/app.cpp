#include "apps/common/app.hpp"

#include <unistd.h>

#include <boost/program_options/errors.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <string>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "io/temporary_files.hpp"

namespace perron::app {

int run(const char* app_name, const std::function<int()>& body) {
  auto fail = [&](int code, const std::string& msg) {
    // The whole line in one insertion (one write for the unbuffered stream):
    // piece by piece, under mpirun another process's banner landed between
    // them. Through std::cerr, which the distributed app silences on ranks > 0.
    std::cerr << (std::string(app_name) + ": error: " + one_line(msg) + "\n") << std::flush;
    return code;
  };
  // A write past the file-size limit (ulimit -f, RLIMIT_FSIZE) fails with
  // EFBIG, which every writer reports (a cache entry not kept: a warning; an
  // output: its error line), instead of SIGXFSZ ending the process: 'ulimit
  // -f 1000; pagerank g.mtx -o r.tsv' was killed writing the graph's cache
  // entry ('File size limit exceeded', exit 153), before its output, leaving
  // the entry's temporary in the cache folder. (Python ignores it likewise.)
  std::signal(SIGXFSZ, SIG_IGN);
  // Ctrl-C or a kill while an output or a cache entry is written removes its
  // temporary (they were left behind, the cache's never removed by a later run).
  io::remove_temporaries_on_signal();
  try {
    std::string note;  // OMP_NUM_THREADS past what the process can start (thread_ceiling)
    const team_scope team(process_team(&note));  // a core left to the machine's other work
    if (!note.empty())
      std::cerr << (std::string(app_name) + ": warning: " + one_line(note) + "\n") << std::flush;
    const int code = body();
    // What went to stdout (a summary, '--json -') must have arrived: on a full
    // disk (/dev/full) the exit flush failed silently and the run exited 0,
    // and a run that did not converge (2: "results still printed") exited 2
    // with its summary lost and no word of it.
    if (code == ok || code == not_converged) flush_standard_output();
    return code;
  } catch (const boost::program_options::error& e) {
    return fail(usage, std::string(e.what()) + " (see --help)");
  } catch (const io_error& e) {
    return fail(no_input, e.what());
  } catch (const parse_error& e) {
    return fail(bad_input, e.what());
  } catch (const invalid_argument& e) {
    return fail(bad_input, e.what());
  } catch (const dimension_error& e) {
    return fail(bad_input, e.what());
  } catch (const not_supported& e) {
    return fail(unsupported, e.what());
  } catch (const cuda_error& e) {
    return fail(cuda_failure, e.what());
  } catch (const std::bad_alloc&) {
    return fail(internal, "out of memory");
  } catch (const std::exception& e) {
    return fail(internal, e.what());
  }
}

void flush_standard_output() {
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout;
  if (flushed) return;
  // errno is the failed write's where this flush made it; a write that failed
  // before (the stream's buffer full mid-summary) left only the error flag.
  const int why = errno;
  throw io_error("standard output",
                 std::string("cannot write: ") + (why ? std::strerror(why) : "a write failed"));
}

bool stdout_is_terminal() { return isatty(fileno(stdout)) != 0; }
bool stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

}  // namespace perron::app
