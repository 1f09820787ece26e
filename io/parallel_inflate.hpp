// Parallel inflation of one gzip member, internal to io/ (after rapidgzip,
// Knespel & Brunst 2023, and pugz): the compressed bytes are cut into chunks;
// the first chunk of each batch is inflated from a known deflate block
// boundary and a known 32 KiB window, every other chunk from the first block
// boundary found at or after its offset (a dynamic-Huffman header whose codes
// are valid and complete, or a stored block's LEN/NLEN), with back-references
// into the unknown window before it kept as markers and replaced once the
// chunk before is known. A chunk is kept only when the chunk before it ends
// exactly where it started; else it is inflated again from the true boundary.
// The result is checked against the gzip trailer (CRC-32 and ISIZE); on any
// doubt (odd header, a chunk inflating past its memory cap, corrupt data) the
// reader falls back to the sequential inflater (io/inflate.hpp) from the start
// of the file, skipping what it has handed out after checking that those bytes
// agree, so corrupt input gives the sequential inflater's own error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace perron::io::detail {

class gzip_inflater;

struct parallel_inflate_options {
  unsigned threads = 0;              // 0: omp_get_max_threads()
  std::size_t chunk_bytes = 0;       // compressed bytes per chunk; 0: chosen from the size and threads
  std::uint64_t min_file_bytes = 0;  // smaller inputs go sequential; 0: the default (1 MiB)
  // Fewer threads go sequential; 0: the default (6). The parallel path spends
  // about 2.3 times ISA-L's CPU time per byte (16-bit symbols, the block
  // finder, the marker pass), and inflating and parsing take turns instead of
  // overlapping, so below about 6 threads ISA-L on its own thread, a window
  // ahead of the parse, is as fast.
  unsigned min_threads = 0;
  // The reader runs on its own thread team beside the parser (the windows
  // are pipelined, io/text_input.cpp): smaller chunks, so that a batch is a
  // few MiB of text and the parse starts after the first small batch instead
  // of after most of the file; and a lower default minimum size (128 KiB).
  bool pipelined = false;
};

// What a reader did, for tests and read-bench.
struct parallel_inflate_report {
  bool parallel = false;     // the parallel path was taken (threads > 1, input large enough)
  bool fell_back = false;    // ... and gave up part way, to the sequential inflater
  const char* why = "";      // ... for this reason
  std::uint64_t chunks = 0;  // chunks inflated in parallel and kept
  std::uint64_t redone = 0;  // chunks inflated again from the true boundary
  std::uint64_t batches = 0;
};

// Reads the inflated bytes of the gzip data [data, data + size) (all members,
// as gzip -d does; trailing garbage, corruption and truncation are io_errors
// with the sequential inflater's messages). `data` must outlive the reader.
class parallel_gzip_reader {
 public:
  parallel_gzip_reader(std::string name, const unsigned char* data, std::size_t size,
                       const parallel_inflate_options& opt);
  ~parallel_gzip_reader();
  parallel_gzip_reader(const parallel_gzip_reader&) = delete;
  parallel_gzip_reader& operator=(const parallel_gzip_reader&) = delete;

  // As gzip_inflater::read: fills [out, out + room), fewer only at the end.
  std::size_t read(char* out, std::size_t room);
  std::uint64_t total_out() const { return total_; }
  const parallel_inflate_report& report() const { return report_; }
  // Called by the memory-mapped file reader: input before this byte is no longer needed.
  std::uint64_t consumed_input() const { return consumed_; }

  struct state;  // the per-chunk buffers and the batch's output

 private:
  std::string name_;
  const unsigned char* data_;
  std::size_t size_;
  unsigned threads_;
  std::size_t chunk_;
  bool fixed_chunk_ = false;  // chunk_bytes given (tests): every later batch uses it
  std::size_t first_chunk_;
  std::size_t min_chunk_;  // later batches' chunks are not cut smaller   // the first batch's chunks
                           // (smaller: the banner check comes sooner)
  parallel_inflate_report report_;
  std::unique_ptr<state> s_;
  std::unique_ptr<gzip_inflater> seq_;  // sequential: small input, fallback, later members
  std::uint64_t skip_ = 0;              // bytes the fallback inflater must drop (already handed out)
  std::uint32_t skip_crc_ = 0;          // ... and their CRC-32, checked when dropped
  std::uint64_t total_ = 0;
  std::uint64_t consumed_ = 0;
  enum class mode { parallel, sequential, done } mode_ = mode::sequential;

  bool run_batch();  // false: fell back
  void hand_out(char* out, std::size_t n);
  void fall_back(const char* why);
  void start_tail(std::size_t member_end);
  std::unique_ptr<gzip_inflater> sequential_from(std::size_t from, std::size_t counted);
  std::size_t read_sequential(char* out, std::size_t room);
};

}  // namespace perron::io::detail
