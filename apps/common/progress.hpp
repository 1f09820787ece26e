// A single self-overwriting status line on stderr ("\r...\x1b[K"), shown only
// when stderr is a terminal so that piped or redirected output never carries it.
#pragma once

#include <chrono>
#include <string>

namespace perron::app {

class progress_line {
 public:
  // enabled == false: every call is a no-op. Default: on iff stderr is a terminal.
  progress_line();
  explicit progress_line(bool enabled);
  ~progress_line();
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;

  bool enabled() const { return enabled_; }
  // Redraws the line, at most every min_interval (so a solver calling this every
  // iteration costs nothing noticeable); force = true draws regardless.
  void update(const std::string& text, bool force = false);
  // Erases the line (also done by the destructor) so the next output starts clean.
  void clear();

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
  static constexpr std::chrono::milliseconds min_interval{100};
};

}  // namespace perron::app
