// CUDA start-up on a thread of its own. A cold process spends a few hundred ms
// in the driver's start-up (cuInit, inside cuda::device_count) and the primary
// context's creation (cuda::initialize); started first thing, both overlap the
// host's work (reading the graph) instead of following it. Plain C++ over
// core/device.hpp's calls, so CPU-only builds need no stand-in: there
// start() starts nothing.
#pragma once

#include <chrono>
#include <memory>

namespace perron::cuda {

// Whether this machine shows an NVIDIA device node (Linux's /dev/nvidiactl,
// or WSL's /dev/dxg): without one no context can come up. Not a test of a
// usable GPU (the driver may still refuse, or create the nodes on its first
// call), so it decides no device, only what a run says or skips where it
// would start nothing anyway (apps/common/detached_exit.cpp,
// solvers/device_choice.cpp). The same in every build.
bool device_node_present() noexcept;

class context_start {
 public:
  context_start() = default;  // nothing started
  context_start(const context_start&) = delete;
  context_start& operator=(const context_start&) = delete;
  // Leaves a thread that is still running to finish on its own (it owns its
  // state): an error path or a CPU solve never waits for the GPU. A process
  // that still has it running must end with std::_Exit (see started()).
  ~context_start();

  void start();  // once; the thread begins at once (none in a build without CUDA)
  bool started() const noexcept { return state_ != nullptr; }
  // Whether any context_start of this process was started: then the CUDA
  // runtime's exit handlers may run beside the thread, or tear the context
  // down (~0.1 s), and the process should end with std::_Exit once its
  // output is flushed.
  static bool any_started() noexcept;
  // The thread has finished (the context exists, or there is no device).
  bool ready() const noexcept;
  // Seconds since start() (0 when not started).
  double elapsed() const noexcept;
  // Blocks until the thread finishes; returns the seconds this call waited.
  double wait();

  // After ready(): the thread's own duration from start() to a usable
  // context, and the part of it spent in the driver's start-up (device count).
  double seconds() const noexcept;
  double driver_seconds() const noexcept;
  int devices() const noexcept;  // usable devices it found (0: none, or no CUDA)

  struct state;

 private:
  std::shared_ptr<state> state_;
};

}  // namespace perron::cuda
