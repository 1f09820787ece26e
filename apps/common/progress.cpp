#include "apps/common/progress.hpp"

#include <cstdio>

#include "apps/common/app.hpp"

namespace perron::app {

progress_line::progress_line() : progress_line(stderr_is_terminal()) {}
progress_line::progress_line(bool enabled) : enabled_(enabled) {}
progress_line::~progress_line() { clear(); }

void progress_line::update(const std::string& text, bool force) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && shown_ && now - last_ < min_interval) return;
  last_ = now;
  // \r returns to column 0, ESC[K erases the rest of the previous (longer) text.
  std::fprintf(stderr, "\r%s\x1b[K", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void progress_line::clear() {
  if (!enabled_ || !shown_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace perron::app
