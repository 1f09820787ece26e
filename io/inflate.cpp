#include "io/inflate.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <new>

#include "core/error.hpp"

#if PERRON_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

namespace perron::io::detail {
namespace {

constexpr std::size_t in_piece = std::size_t(1) << 20;  // compressed bytes per pull

bool gzip_magic(const unsigned char* p, std::size_t n) { return n >= 2 && p[0] == 0x1f && p[1] == 0x8b; }

}  // namespace

// One member's decoder state. step() inflates from (in, in_n) into (out,
// out_n), updating all four, and returns: 1 the member ended, 0 progress
// (or input needed), and throws io_error on corrupt data.
#if PERRON_HAVE_ISAL
struct gzip_inflater::engine {
  inflate_state st;
  engine() { reset(); }
  void reset() {
    isal_inflate_init(&st);
    st.crc_flag = ISAL_GZIP;
  }
  int step(const std::string& name, const unsigned char*& in, std::size_t& in_n, char*& out,
           std::size_t& out_n) {
    st.next_in = const_cast<unsigned char*>(in);
    st.avail_in = static_cast<std::uint32_t>(std::min<std::size_t>(in_n, UINT32_MAX));
    st.next_out = reinterpret_cast<unsigned char*>(out);
    st.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(out_n, UINT32_MAX));
    const std::size_t in0 = st.avail_in, out0 = st.avail_out;
    const int rc = isal_inflate(&st);
    in += in0 - st.avail_in, in_n -= in0 - st.avail_in;
    out += out0 - st.avail_out, out_n -= out0 - st.avail_out;
    if (rc < 0 || rc == ISAL_NEED_DICT)
      throw io_error(name, "corrupt gzip data (" +
                               std::string(rc == ISAL_INCORRECT_CHECKSUM ? "incorrect data check"
                                           : rc == ISAL_INVALID_WRAPPER  ? "incorrect header"
                                                                         : "invalid deflate data") +
                               ")");
    return st.block_state == ISAL_BLOCK_FINISH ? 1 : 0;
  }
};
const char* gzip_inflater::backend() { return "isa-l"; }
#else
struct gzip_inflater::engine {
  z_stream zs{};
  engine() {
    // 15 + 32: the largest window, and zlib detects a gzip or zlib header.
    if (inflateInit2(&zs, 15 + 32) != Z_OK) throw std::bad_alloc();
  }
  ~engine() { inflateEnd(&zs); }
  void reset() { inflateReset(&zs); }
  int step(const std::string& name, const unsigned char*& in, std::size_t& in_n, char*& out,
           std::size_t& out_n) {
    zs.next_in = const_cast<Bytef*>(in);
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(in_n, UINT_MAX));
    zs.next_out = reinterpret_cast<Bytef*>(out);
    zs.avail_out = static_cast<uInt>(std::min<std::size_t>(out_n, UINT_MAX));
    const std::size_t in0 = zs.avail_in, out0 = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    in += in0 - zs.avail_in, in_n -= in0 - zs.avail_in;
    out += out0 - zs.avail_out, out_n -= out0 - zs.avail_out;
    if (rc == Z_STREAM_END) return 1;
    if (rc == Z_OK || rc == Z_BUF_ERROR) return 0;
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    throw io_error(name, std::string("corrupt gzip data (") + (zs.msg ? zs.msg : "inflate failed") + ")");
  }
};
const char* gzip_inflater::backend() { return "zlib"; }
#endif

gzip_inflater::gzip_inflater(std::string name, pull_fn pull, std::size_t already_out)
    : engine_(new engine),
      name_(std::move(name)),
      pull_(std::move(pull)),
      in_(new unsigned char[in_piece]),
      total_(already_out) {}

gzip_inflater::~gzip_inflater() = default;

void gzip_inflater::refill() {
  const std::size_t got = pull_(in_.get(), in_piece);
  if (got == 0) input_done_ = true;
  next_in_ = in_.get();
  avail_in_ = got;
}

// Between members: more input must be another gzip member.
bool gzip_inflater::start_next_member() {
  if (avail_in_ == 0 && !input_done_) refill();
  if (avail_in_ == 0) return false;
  if (avail_in_ < 2 && !input_done_) {
    // Two bytes are needed for the magic: pull more behind the one left.
    in_[0] = *next_in_;
    const std::size_t got = pull_(in_.get() + 1, in_piece - 1);
    if (got == 0) input_done_ = true;
    next_in_ = in_.get();
    avail_in_ = got + 1;
  }
  if (*next_in_ == 0) {
    // Zero bytes after the last member (a file padded to a tape or disk
    // block) end the stream, as gzip -d and gzip -t take them; anything else
    // in them is junk.
    for (;;) {
      for (; avail_in_ > 0; ++next_in_, --avail_in_)
        if (*next_in_ != 0) throw io_error(name_, "unexpected data after the end of the gzip stream");
      if (input_done_) return false;
      refill();
    }
  }
  if (!gzip_magic(next_in_, avail_in_))
    throw io_error(name_, "unexpected data after the end of the gzip stream");
  engine_->reset();
  member_end_ = false;
  return true;
}

std::size_t gzip_inflater::read(char* out, std::size_t room) {
  char* p = out;
  std::size_t left = room;
  while (left > 0 && !finished_) {
    if (member_end_ && !start_next_member()) {
      finished_ = true;
      break;
    }
    if (avail_in_ == 0 && !input_done_) refill();
    const std::size_t before = left;
    const std::size_t in_before = avail_in_;
    if (engine_->step(name_, next_in_, avail_in_, p, left) == 1) {
      member_end_ = true;
      continue;
    }
    // No progress with all the input used: the stream ends early.
    if (left == before && avail_in_ == in_before && avail_in_ == 0 && input_done_)
      throw io_error(name_, "truncated gzip file: the compressed data ends early (after " +
                                std::to_string(total_ + (room - left)) + " uncompressed bytes)");
  }
  total_ += room - left;
  return room - left;
}

}  // namespace perron::io::detail
