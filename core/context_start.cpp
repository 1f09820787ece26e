#include "core/context_start.hpp"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/device.hpp"

namespace perron::cuda {

using clock = std::chrono::steady_clock;

struct context_start::state {
  clock::time_point start = clock::now();
  std::mutex m;
  std::condition_variable done_cv;
  std::atomic<bool> done{false};
  double seconds = 0, driver_seconds = 0;
  int devices = 0;
};

namespace {
std::atomic<bool> started_in_process{false};
double since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }
}  // namespace

bool device_node_present() noexcept {
  static const bool present = access("/dev/nvidiactl", F_OK) == 0 || access("/dev/dxg", F_OK) == 0;
  return present;
}

void context_start::start() {
  // A build without CUDA has no start-up to overlap: nothing starts, and the
  // run neither waits for nor reports a context (started() stays false).
  if (state_ || !built()) return;
  state_ = std::make_shared<state>();
  started_in_process.store(true);
  // The thread holds the state too, so it may outlive this object (detached).
  std::thread([s = state_] {
    const int n = device_count();  // the driver's start-up (cuInit)
    const double driver = since(s->start);
    initialize();  // the primary context (cudaFree(nullptr)); errors left for the first real call
    const double total = since(s->start);
    {
      std::lock_guard<std::mutex> lock(s->m);
      s->devices = n;
      s->driver_seconds = driver;
      s->seconds = total;
      s->done.store(true, std::memory_order_release);
    }
    s->done_cv.notify_all();
  }).detach();
}

context_start::~context_start() = default;

bool context_start::any_started() noexcept { return started_in_process.load(); }

bool context_start::ready() const noexcept { return state_ && state_->done.load(std::memory_order_acquire); }

double context_start::elapsed() const noexcept { return state_ ? since(state_->start) : 0.0; }

double context_start::wait() {
  if (!state_) return 0.0;
  const auto t = clock::now();
  std::unique_lock<std::mutex> lock(state_->m);
  state_->done_cv.wait(lock, [&] { return state_->done.load(std::memory_order_acquire); });
  return since(t);
}

double context_start::seconds() const noexcept { return ready() ? state_->seconds : 0.0; }
double context_start::driver_seconds() const noexcept { return ready() ? state_->driver_seconds : 0.0; }
int context_start::devices() const noexcept { return ready() ? state_->devices : 0; }

}  // namespace perron::cuda
