#include "io/interrupt.hpp"

#include <utility>

namespace perron::io {
namespace {
thread_local std::function<void()> current_check;
}  // namespace

interrupt_scope::interrupt_scope(std::function<void()> check)
    : previous_(std::exchange(current_check, std::move(check))) {}

interrupt_scope::~interrupt_scope() { current_check = std::move(previous_); }

void check_interrupt() {
  if (current_check) current_check();
}

}  // namespace perron::io
