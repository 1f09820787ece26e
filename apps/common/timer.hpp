// Wall-clock stopwatch for the apps' "time for load / convert / ..." lines.
#pragma once

#include <chrono>

namespace perron::app {

class stopwatch {
 public:
  stopwatch() : start_(clock::now()) {}
  void restart() { start_ = clock::now(); }
  // Seconds since construction or the last restart().
  double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count(); }
  // Seconds since the last lap() (or start), then starts a new lap.
  double lap() {
    const auto now = clock::now();
    const double s = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    return s;
  }

 private:
  using clock = std::chrono::steady_clock;
  clock::time_point start_;
};

}  // namespace perron::app
