// A GPU run's end without the driver's teardown in the user's wait.
//
// The CUDA driver tears a process's context down when the process ends, after
// its last line: about 0.1 s on the H100 host, whatever the code does before
// (std::_Exit included: docs/PERFORMANCE.md, "Device choice"). A run about to
// start a context therefore splits in two first (fork, while it has no other
// thread): the process the shell waits for does nothing but wait for the run's
// exit code and end with it; the run goes on in the child, which closes its
// standard streams when its output is complete (so pipes and $(...) see their
// end), hands the code over and only then ends, the teardown running after the
// shell has its prompt back.
//
// The waiting process passes on the signals that end a run (SIGINT, SIGTERM,
// SIGHUP, SIGQUIT) and ends as the child did, by its code or its signal; the
// child is killed if the waiting process dies (SIGKILL). PERRON_TEARDOWN:
// unset, a split where a context can start (an NVIDIA device node exists) and
// no CUDA tool runs the process (compute-sanitizer, Nsight: their injection
// library follows the process the tool started); background, always; wait,
// never. Never in a build without CUDA (no context), nor when fork fails.
#pragma once

namespace perron::app::detached_exit {

// Splits as above (once; later calls do nothing). Returns in the child, or in
// the one process when it does not split. Call before any thread is started
// (OpenMP's included: a forked child has only the calling thread).
// PERRON_TEARDOWN other than unset, "", background or wait throws
// invalid_argument.
void split();

// Whether split() would split here (the environment and the device nodes; it
// throws as split() does for a bad PERRON_TEARDOWN).
bool possible();

// Whether this process is the child of a split.
bool active();

// In a split's child: flushes and closes the standard streams, hands `code`
// to the waiting process and ends with it. Elsewhere: returns.
void finish(int code);

}  // namespace perron::app::detached_exit
