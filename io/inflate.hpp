// A streaming gzip inflater, internal to io/: Intel ISA-L's igzip where the
// build found it (CMake PERRON_ISAL, about three times zlib's speed), else
// zlib. Concatenated members (pigz, bgzip) are read one after another, as
// gzip -d does; corrupt, truncated or trailing data is an io_error.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace perron::io::detail {

class gzip_inflater {
 public:
  // `pull(buffer, n)` fills up to n compressed bytes and returns how many (0 at
  // the end of the input); `name` is used in errors, which count
  // uncompressed bytes from `already_out` (the members before, read elsewhere).
  using pull_fn = std::function<std::size_t(unsigned char*, std::size_t)>;
  gzip_inflater(std::string name, pull_fn pull, std::size_t already_out = 0);
  ~gzip_inflater();
  gzip_inflater(const gzip_inflater&) = delete;
  gzip_inflater& operator=(const gzip_inflater&) = delete;

  // Inflates into [out, out + room); returns the bytes written, fewer than
  // `room` only at the end of the last member (0 once it has ended).
  std::size_t read(char* out, std::size_t room);
  std::size_t total_out() const { return total_; }  // including already_out

  static const char* backend();  // "isa-l" or "zlib"

 private:
  struct engine;
  std::unique_ptr<engine> engine_;
  std::string name_;
  pull_fn pull_;
  std::unique_ptr<unsigned char[]> in_;
  const unsigned char* next_in_ = nullptr;
  std::size_t avail_in_ = 0;
  bool input_done_ = false;
  bool member_end_ = false;  // the last member read so far has ended
  bool finished_ = false;
  std::size_t total_ = 0;

  void refill();
  bool start_next_member();  // false: no more input
};

}  // namespace perron::io::detail
