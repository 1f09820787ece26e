#include "io/temporary_files.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace perron::io {
namespace {

// A slot: free (0), being filled (1), or holding a path to unlink (2) or a
// folder to rmdir (3). The handler only reads slots at 2 or 3 and calls
// unlink(2) and rmdir(2), which are async-signal-safe; the paths live in
// static storage, never freed.
constexpr int slots = 64;
constexpr std::size_t path_room = 4096;  // PATH_MAX on Linux
std::atomic<int> state[slots];
char path_of[slots][path_room];

extern "C" void on_signal(int sig) {
  for (int k = 0; k < slots; ++k)
    if (state[k].load(std::memory_order_acquire) == 2) ::unlink(path_of[k]);
  // Folders after every file, so that one holding registered files empties first.
  for (int k = 0; k < slots; ++k)
    if (state[k].load(std::memory_order_acquire) == 3) ::rmdir(path_of[k]);
  // Die of the signal as the default action would (the shell's 130, 143):
  // the default back, the signal raised and let through at once. (Every
  // handled signal is blocked while this runs, act.sa_mask below.)
  std::signal(sig, SIG_DFL);
  sigset_t just;
  sigemptyset(&just);
  sigaddset(&just, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &just, nullptr);
  std::raise(sig);
}

// SIGQUIT too: the detached teardown's waiting parent (apps/common/
// detached_exit.cpp) passes it on, and its default (a core) left the
// temporaries behind.
constexpr int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT};

}  // namespace

temporary_guard::temporary_guard(const std::string& path, temporary_kind kind) {
  if (path.size() >= path_room) return;
  for (int k = 0; k < slots; ++k) {
    int free_slot = 0;
    if (state[k].compare_exchange_strong(free_slot, 1, std::memory_order_acq_rel)) {
      std::memcpy(path_of[k], path.c_str(), path.size() + 1);
      state[k].store(kind == temporary_kind::folder ? 3 : 2, std::memory_order_release);
      slot_ = k;
      return;
    }
  }
}

temporary_guard& temporary_guard::operator=(temporary_guard&& o) noexcept {
  if (this != &o) {
    release();
    slot_ = o.slot_;
    o.slot_ = -1;
  }
  return *this;
}

void temporary_guard::release() {
  if (slot_ >= 0) state[slot_].store(0, std::memory_order_release);
  slot_ = -1;
}

void remove_temporaries_on_signal() {
  for (const int sig : handled) {
    struct sigaction now {};
    if (::sigaction(sig, nullptr, &now) != 0 || now.sa_handler != SIG_DFL) continue;
    struct sigaction act {};
    act.sa_handler = on_signal;
    // Every handled signal waits while the handler runs. SA_RESETHAND (which
    // implies SA_NODEFER) put the default back as the first signal was
    // delivered, so a second one (timeout's to the child and to its group;
    // Ctrl-C passed on by the detached teardown's parent) ended the process
    // before the unlinks: a 200 MB snapshot temporary stayed in 6 runs of 10.
    sigemptyset(&act.sa_mask);
    for (const int other : handled) sigaddset(&act.sa_mask, other);
    act.sa_flags = 0;
    ::sigaction(sig, &act, nullptr);
  }
}

}  // namespace perron::io
