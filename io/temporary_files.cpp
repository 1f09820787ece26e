#include "io/temporary_files.hpp"

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
  // Die of the signal as the default action would (the shell's 130, 143).
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

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
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
    struct sigaction now {};
    if (::sigaction(sig, nullptr, &now) != 0 || now.sa_handler != SIG_DFL) continue;
    struct sigaction act {};
    act.sa_handler = on_signal;
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_RESETHAND;  // a second signal during the unlinks: the default at once
    ::sigaction(sig, &act, nullptr);
  }
}

}  // namespace perron::io
