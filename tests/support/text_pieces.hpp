// A text handed to a windowed parser in pieces of `size` bytes, cut anywhere
// (inside a key, a number, a string, a comment, a CRLF): harder than the
// readers' own windows, which end at line ends. Each piece is a copy, gone
// at the next call, as a reader's buffer is.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "io/text_input.hpp"

namespace perron::test {

class text_pieces final : public io::detail::text_windows {
 public:
  text_pieces(std::string_view text, std::size_t size) : text_(text), size_(size == 0 ? 1 : size) {}
  std::string_view next() override {
    const std::string_view p = text_.substr(0, size_);
    text_.remove_prefix(p.size());
    piece_.assign(p);
    return piece_;
  }
  const io::detail::read_stats& stats() const override { return stats_; }

 private:
  std::string_view text_;
  std::size_t size_;
  std::string piece_;
  io::detail::read_stats stats_;
};

}  // namespace perron::test
