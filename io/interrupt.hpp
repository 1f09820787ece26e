// Reads that wait for their bytes (a pipe, a named pipe, a terminal) give the
// program that asked for them a way to end the wait.
//
// `pagerank` ends on Ctrl-C by SIGINT's default action wherever it waits. A
// host that handles signals itself cannot count on that: Python's handler
// only records the signal, to raise KeyboardInterrupt once control returns to
// the interpreter, and a read from a named pipe whose writer never wrote
// retried the interrupted read() and never returned (perron.read_matrix
// ignored Ctrl-C until the writer wrote, forever if it never did). So such a
// read waits in slices of `interrupt_poll_ms` and, after each slice and after
// each signal that interrupts it, runs the check the calling thread installed
// here; the check throws to abandon the read (python/perron_module.cpp's
// raises what the host's handler raised). The waiting open() of a named pipe
// runs it after a signal too. Without a check installed a read only waits.
#pragma once

#include <functional>

namespace perron::io {

// How long a waiting read sleeps between checks.
inline constexpr int interrupt_poll_ms = 100;

// Installs `check` for the reads made on the current thread while the scope
// lives (the innermost scope's check runs; threads the read starts have none).
class interrupt_scope {
 public:
  explicit interrupt_scope(std::function<void()> check);
  ~interrupt_scope();
  interrupt_scope(const interrupt_scope&) = delete;
  interrupt_scope& operator=(const interrupt_scope&) = delete;

 private:
  std::function<void()> previous_;
};

// Runs the current thread's check, if one is installed (it may throw).
void check_interrupt();

}  // namespace perron::io
