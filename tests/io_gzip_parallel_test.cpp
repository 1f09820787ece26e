// The parallel gzip inflater (io/parallel_inflate.hpp) against zlib, byte for
// byte: every shared .gz, text at levels 1/6/9, stored, fixed-Huffman,
// Huffman-only and RLE blocks, tiny blocks (memLevel 1), long matches across
// chunk boundaries, several members, incompressible bytes, and chunk sizes
// small enough to cut small inputs into hundreds of chunks. Corrupt and
// truncated input must give the sequential inflater's own error (or its own
// success), never a crash or a hang.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/inflate.hpp"
#include "io/matrix_market.hpp"
#include "io/parallel_inflate.hpp"
#include "io/text_input.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

namespace fs = std::filesystem;
using io::detail::parallel_gzip_reader;
using io::detail::parallel_inflate_options;
using io::detail::parallel_inflate_report;

// One gzip member by zlib's deflate; level 0 gives stored blocks.
std::string gzip(const std::string& text, int level, int strategy = Z_DEFAULT_STRATEGY, int mem_level = 8) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, mem_level, strategy), Z_OK);
  std::string out(deflateBound(&zs, text.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// zlib's inflate, member after member: the reference.
std::string zlib_gunzip(const std::string& gz) {
  std::string out;
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  char buf[1 << 16];
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);
      continue;
    }
    EXPECT_EQ(rc, Z_OK);
    if (rc != Z_OK) break;
  }
  inflateEnd(&zs);
  return out;
}

struct result {
  std::string text;
  std::string error;  // empty: no error
  parallel_inflate_report report;
};

// Reads through the parallel reader in pieces of varying size.
result parallel_gunzip(const std::string& gz, unsigned threads, std::size_t chunk) {
  result r;
  parallel_inflate_options opt;
  opt.threads = threads;
  opt.chunk_bytes = chunk;
  opt.min_file_bytes = 1;
  opt.min_threads = 2;
  try {
    parallel_gzip_reader z("t.gz", reinterpret_cast<const unsigned char*>(gz.data()), gz.size(), opt);
    std::size_t piece = 1000;
    for (;;) {
      const std::size_t at = r.text.size();
      r.text.resize(at + piece);
      const std::size_t got = z.read(r.text.data() + at, piece);
      r.text.resize(at + got);
      if (got < piece) break;
      piece = piece * 3 % 300007 + 1;
    }
    r.report = z.report();
  } catch (const io_error& e) {
    r.error = e.what();
  }
  return r;
}

// The sequential inflater's verdict on the same bytes.
result sequential_gunzip(const std::string& gz) {
  result r;
  try {
    r.text = std::string(io::detail::gunzip("t.gz", gz.data(), gz.size()).view());
  } catch (const io_error& e) {
    r.error = e.what();
  }
  return r;
}

// A Matrix Market file of about `bytes` bytes: random entries, some values
// repeated (so deflate finds matches of every length).
std::string matrix_text(std::size_t bytes, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string body;
  std::size_t entries = 0;
  while (body.size() + 64 < bytes) {
    body += std::to_string(rng() % 100000 + 1) + " " + std::to_string(rng() % 100000 + 1) + " " +
            (rng() % 4 == 0 ? std::to_string(static_cast<double>(rng() % 1000000) / 1000.0) : "1") + "\n";
    ++entries;
  }
  return "%%MatrixMarket matrix coordinate real general\n100000 100000 " + std::to_string(entries) + "\n" +
         body;
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

void expect_same(const std::string& gz, const std::string& what, unsigned threads, std::size_t chunk,
                 bool must_be_parallel = true) {
  const std::string want = zlib_gunzip(gz);
  const result got = parallel_gunzip(gz, threads, chunk);
  ASSERT_EQ(got.error, "") << what << " chunk " << chunk;
  ASSERT_EQ(got.text.size(), want.size()) << what << " chunk " << chunk;
  ASSERT_TRUE(got.text == want) << what << " chunk " << chunk;
  if (must_be_parallel) {
    EXPECT_TRUE(got.report.parallel) << what;
    EXPECT_FALSE(got.report.fell_back) << what << " chunk " << chunk << ": " << got.report.why;
  }
}

const std::size_t tiny_chunks[] = {256, 1000, 4096, 65536};

TEST(io_gzip_parallel, TextAtEveryLevel) {
  const std::string text = matrix_text(3 << 20, 1);
  for (int level : {1, 6, 9}) {
    const std::string gz = gzip(text, level);
    for (std::size_t chunk : tiny_chunks) expect_same(gz, "level " + std::to_string(level), 4, chunk);
    expect_same(gz, "level " + std::to_string(level) + " default chunks", 3, 0);
  }
}

TEST(io_gzip_parallel, ChunksKeptNotAllRedone) {
  // Small blocks (memLevel 1: 128 symbols a block) give every chunk a boundary
  // to find, so most chunks must be kept as found.
  const std::string gz = gzip(matrix_text(2 << 20, 2), 6, Z_DEFAULT_STRATEGY, 1);
  const result r = parallel_gunzip(gz, 4, 16384);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.text == zlib_gunzip(gz));
  EXPECT_FALSE(r.report.fell_back);
  EXPECT_GT(r.report.chunks, r.report.redone)
      << "chunks kept " << r.report.chunks << ", redone " << r.report.redone;
  // Large blocks too: level 6 text, 64 KiB chunks.
  const std::string big = gzip(matrix_text(4 << 20, 3), 6);
  const result b = parallel_gunzip(big, 4, 65536);
  ASSERT_EQ(b.error, "");
  EXPECT_TRUE(b.text == zlib_gunzip(big));
  EXPECT_GT(b.report.chunks, 0u);
}

TEST(io_gzip_parallel, EveryBlockKind) {
  const std::string text = matrix_text(1 << 20, 4);
  expect_same(gzip(text, 0), "stored", 4, 4096);
  expect_same(gzip(text, 0), "stored", 3, 100000);
  expect_same(gzip(text, 6, Z_FIXED), "fixed", 4, 4096);
  expect_same(gzip(text, 6, Z_HUFFMAN_ONLY), "huffman only", 4, 4096);
  expect_same(gzip(text, 6, Z_RLE), "rle", 4, 4096);
  expect_same(gzip(text, 6, Z_DEFAULT_STRATEGY, 1), "small blocks", 4, 1000);
  expect_same(gzip(random_bytes(1 << 20, 5), 6), "incompressible", 4, 4096);
  expect_same(gzip(random_bytes(1 << 20, 6), 9, Z_DEFAULT_STRATEGY, 1), "incompressible small blocks", 2,
              1000);
}

TEST(io_gzip_parallel, LongMatchesAcrossChunks) {
  // A 1000-byte pattern repeated: nearly all of it 258-byte matches at
  // distance 1000, so every chunk boundary falls inside one and every chunk
  // refers back into the window before it.
  std::string unit = matrix_text(1000, 7).substr(0, 1000);
  std::string text;
  for (int k = 0; k < 3000; ++k) text += unit;
  text += matrix_text(200000, 8);
  for (int k = 0; k < 3000; ++k) text += unit;
  for (int level : {1, 9}) {
    const std::string gz = gzip(text, level, Z_DEFAULT_STRATEGY, 1);
    // (Not 64 KiB chunks: at about 200:1 those pass the symbol cap and fall back.)
    for (std::size_t chunk : {256, 1000, 4096}) expect_same(gz, "long matches", 4, chunk);
  }
  // A run of one byte: distance-1 matches (a gzip bomb in miniature).
  expect_same(gzip(std::string(5 << 20, 'x') + "\n", 9), "run", 3, 256, false);
}

TEST(io_gzip_parallel, SeveralMembersAndEmptyOnes) {
  const std::string a = matrix_text(600000, 9), b = matrix_text(300000, 10);
  const std::string gz = gzip(a, 6, Z_DEFAULT_STRATEGY, 1) + gzip("", 6) + gzip(b, 1) + gzip(a, 9);
  for (std::size_t chunk : tiny_chunks) expect_same(gz, "members", 4, chunk);
  expect_same(gzip("", 6), "empty", 4, 256, false);
  expect_same(gzip("x", 6), "one byte", 4, 256, false);
}

// Zero bytes after the last member (a file padded to a block) end the stream,
// as gzip -d takes them, in both readers; junk among or after them, or a
// member after them, is refused as junk is ("trailing garbage" to gzip).
TEST(io_gzip_parallel, TrailingZerosEndTheStream) {
  const std::string text = matrix_text(400000, 21);
  const std::string gz = gzip(text, 6, Z_DEFAULT_STRATEGY, 2);
  for (std::size_t zeros : {std::size_t(1), std::size_t(2), std::size_t(3000), std::size_t(1) << 18}) {
    const std::string padded = gz + std::string(zeros, '\0');
    const result seq = sequential_gunzip(padded);
    EXPECT_EQ(seq.error, "") << zeros;
    EXPECT_TRUE(seq.text == text) << zeros;
    for (std::size_t chunk : tiny_chunks) {
      const result par = parallel_gunzip(padded, 3, chunk);
      EXPECT_EQ(par.error, "") << zeros << " chunk " << chunk;
      EXPECT_TRUE(par.text == text) << zeros << " chunk " << chunk;
    }
  }
  for (const std::string& tail : {std::string(5, '\0') + "x", std::string(300000, '\0') + "x",
                                  std::string(2, '\0') + gzip("1 1\n", 6)}) {
    const std::string junk = gz + tail;
    EXPECT_EQ(sequential_gunzip(junk).error, "t.gz: unexpected data after the end of the gzip stream");
    EXPECT_EQ(parallel_gunzip(junk, 3, 1000).error, "t.gz: unexpected data after the end of the gzip stream");
  }
}

TEST(io_gzip_parallel, OneThreadAndSmallInputGoSequential) {
  const std::string gz = gzip(matrix_text(100000, 11), 6);
  const result one = parallel_gunzip(gz, 1, 256);
  EXPECT_FALSE(one.report.parallel);
  EXPECT_TRUE(one.text == zlib_gunzip(gz));
  parallel_inflate_options opt;
  opt.threads = 8;  // default minimum size (1 MiB) not reached
  parallel_gzip_reader z("t.gz", reinterpret_cast<const unsigned char*>(gz.data()), gz.size(), opt);
  EXPECT_FALSE(z.report().parallel);
}

// Corrupt input: the same verdict as the sequential inflater, error message
// included (the parallel reader hands the doubt to it).
TEST(io_gzip_parallel, CorruptAndTruncatedInputAsSequential) {
  const std::string text = matrix_text(400000, 12);
  const std::string good = gzip(text, 6, Z_DEFAULT_STRATEGY, 2) + gzip(text.substr(0, 5000), 6);
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 300; ++trial) {
    std::string gz = good;
    const int kind = trial % 3;
    if (kind == 0) {
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) gz[rng() % gz.size()] ^= static_cast<char>(1 + rng() % 255);
    } else if (kind == 1) {
      gz.resize(rng() % gz.size());
    } else {
      gz[rng() % 64] ^= static_cast<char>(1 << (rng() % 8));       // header and first block
      gz += std::string(1 + rng() % 3, static_cast<char>(rng()));  // trailing garbage
    }
    const result want = sequential_gunzip(gz);
    const result got = parallel_gunzip(gz, 3, 1000 + rng() % 9000);
    EXPECT_EQ(got.error, want.error) << "trial " << trial;
    if (want.error.empty()) {
      EXPECT_TRUE(got.text == want.text) << "trial " << trial;
    }
  }
}

// FHCRC (RFC 1952): the header's CRC-16 follows it. A sound one: the parallel
// reader's bytes; a wrong one: the sequential reader's error (zlib checks it;
// the parallel reader once skipped the two bytes unread, found by fuzz_gzip).
TEST(io_gzip_parallel, HeaderCrcAsSequential) {
  const std::string text = matrix_text(300000, 21);
  const std::string plain = gzip(text, 6);
  std::string header = plain.substr(0, 10);
  header[3] = static_cast<char>(header[3] | 2);
  const auto crc = static_cast<unsigned>(
      crc32(0, reinterpret_cast<const Bytef*>(header.data()), static_cast<uInt>(header.size())));
  const std::string sound =
      header + static_cast<char>(crc & 0xff) + static_cast<char>((crc >> 8) & 0xff) + plain.substr(10);
  expect_same(sound, "FHCRC", 3, 4096);
  std::string wrong = sound;
  wrong[10] = static_cast<char>(wrong[10] ^ 0x5a);
  const result want = sequential_gunzip(wrong);
  ASSERT_NE(want.error, "");
  EXPECT_EQ(parallel_gunzip(wrong, 3, 4096).error, want.error);
}

using io_gzip_parallel_windows = test::scratch_test;

// Writes `parts` as one gzip member, each part `times` times (never all in memory).
void write_gz(const std::string& path, const std::vector<std::pair<std::string, std::size_t>>& parts) {
  gzFile f = gzopen(path.c_str(), "wb6");
  ASSERT_NE(f, nullptr);
  for (const auto& [text, times] : parts)
    for (std::size_t k = 0; k < times; ++k)
      ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

// A gzip bomb and a run of blanks through the parallel path: a chunk past its
// cap hands over to the sequential inflater, so memory stays bounded and the
// answers are those of the sequential path.
TEST_F(io_gzip_parallel_windows, BombAndBlankRunStayBounded) {
  io::detail::gzip_tuning tune;
  tune.min_file_bytes = 1;
  tune.min_threads = 2;
  const std::string bomb = path("bomb.mtx.gz");
  write_gz(bomb, {{std::string(1 << 20, '\0'), 256}});
  const std::string blanks = path("blanks.mtx.gz");
  write_gz(blanks, {{"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n", 1},
                    {std::string(1 << 20, ' ') + "\n", 96},
                    {"3 1\n", 1}});
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const long before = u.ru_maxrss;
  {
    auto w = io::detail::open_gzip_windows(bomb, io::detail::default_window, 2, tune);
    EXPECT_THROW(io::detail::parse_matrix_market_windows(*w, bomb, {}), parse_error);
  }
  auto w = io::detail::open_gzip_windows(blanks, io::detail::default_window, 2, tune);
  EXPECT_EQ(io::detail::parse_matrix_market_windows(*w, blanks, {}).matrix.nnz(), 2u);
  getrusage(RUSAGE_SELF, &u);
  EXPECT_LT(u.ru_maxrss - before, 64 << 10) << "KiB of peak memory for the bomb and the blanks";
}

// Every shared .gz (skipped when the data folder is absent), with default and tiny chunks.
TEST(io_gzip_parallel, SharedFiles) {
  std::vector<std::string> files;
  for (const std::string& dir : {test::data_dir(), test::shared_data_dir()}) {
    if (dir.empty() || !fs::is_directory(dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string p = e.path().string();
      if (p.find("/invalid/") == std::string::npos && p.size() > 3 && p.compare(p.size() - 3, 3, ".gz") == 0)
        files.push_back(p);
    }
  }
  if (files.empty()) GTEST_SKIP() << "no .gz files found";
  for (const std::string& path : files) {
    std::ifstream f(path, std::ios::binary);
    const std::string gz((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    expect_same(gz, path, 4, 0);
    expect_same(gz, path, 3, gz.size() > (4u << 20) ? 65536 : 8192);
  }
}

// The streamed windows use the parallel reader: the same matrix with tiny chunks.
TEST_F(io_gzip_parallel_windows, ParsedMatrixUnchanged) {
  const std::string text = matrix_text(2 << 20, 14);
  const std::string gz = gzip(text, 6);
  const std::string f = write("m.mtx.gz", gz);
  const io::mm_matrix whole = io::parse_matrix_market(text, "m.mtx", {});
  io::detail::gzip_tuning tune;
  tune.chunk_bytes = 4096;
  tune.min_file_bytes = 1;
  tune.min_threads = 2;
  auto w = io::detail::open_gzip_windows(f, 65536, 3, tune);
  const io::mm_matrix streamed = io::detail::parse_matrix_market_windows(*w, f, {});
  EXPECT_EQ(streamed.matrix.row_idx, whole.matrix.row_idx);
  EXPECT_EQ(streamed.matrix.col_idx, whole.matrix.col_idx);
  EXPECT_EQ(streamed.matrix.values, whole.matrix.values);
  EXPECT_EQ(w->stats().text_bytes, text.size());
}

// ---- the pipelined windows: the parallel inflater on its own thread team
// beside the parse (io/text_input.cpp), against the text parsed whole.

io::detail::gzip_tuning pipelined_tuning(std::size_t chunk, unsigned inflate_threads = 2) {
  io::detail::gzip_tuning tune;
  tune.chunk_bytes = chunk;
  tune.min_file_bytes = 1;
  tune.min_threads = 2;
  tune.inflate_threads = inflate_threads;
  tune.pipeline = true;
  return tune;
}

// Odd chunk and window sizes (lines and deflate blocks cut everywhere), one
// or several members, pipelined or taking turns: the same matrix as the text
// parsed whole.
TEST_F(io_gzip_parallel_windows, PipelinedSameMatrixForOddChunksAndWindows) {
  const std::string text = matrix_text(3 << 20, 15);
  const io::mm_matrix whole = io::parse_matrix_market(text, "m.mtx", {});
  const std::size_t cut = text.size() / 3 + 17;
  const std::string one = write("one.mtx.gz", gzip(text, 6));
  const std::string members = write("members.mtx.gz", gzip(text.substr(0, cut), 6) + gzip("", 1) +
                                                          gzip(text.substr(cut), 1, Z_DEFAULT_STRATEGY, 1));
  for (const std::string& f : {one, members})
    for (std::size_t chunk : {std::size_t(1000), std::size_t(4099), std::size_t(33333)})
      for (std::size_t window : {std::size_t(4096), std::size_t(100003), io::detail::auto_window})
        for (bool pipeline : {true, false}) {
          io::detail::gzip_tuning tune = pipelined_tuning(chunk, chunk == 4099 ? 3 : 2);
          tune.pipeline = pipeline;
          auto w = io::detail::open_gzip_windows(f, window, 3, tune);
          // Pipelined: the inflater's team is busy beside the parse.
          EXPECT_EQ(w->busy_threads(), pipeline ? tune.inflate_threads : 0u) << f;
          const io::mm_matrix m = io::detail::parse_matrix_market_windows(*w, f, {});
          const std::string what = f + " chunk " + std::to_string(chunk) + " window " +
                                   std::to_string(window) + (pipeline ? " pipelined" : " taking turns");
          EXPECT_EQ(m.matrix.row_idx, whole.matrix.row_idx) << what;
          EXPECT_EQ(m.matrix.col_idx, whole.matrix.col_idx) << what;
          EXPECT_EQ(m.matrix.values, whole.matrix.values) << what;
          EXPECT_EQ(w->stats().text_bytes, text.size()) << what;
        }
}

// A bad entry near the end (in a late chunk, many windows in): the error names
// its line, as the whole text's parse does.
TEST_F(io_gzip_parallel_windows, PipelinedLateErrorNamesItsLine) {
  std::string text = matrix_text(2 << 20, 16);
  const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  text += "7 x 1\n";
  for (int k = 0; k < 100; ++k) text += "1 1 1\n";
  const std::string f = write("late.mtx.gz", gzip(text, 6));
  std::string want;
  try {
    io::parse_matrix_market(text, f, {});
  } catch (const parse_error& e) {
    want = e.what();
  }
  ASSERT_NE(want.find(":" + std::to_string(lines + 1) + ":"), std::string::npos) << want;
  for (std::size_t window : {std::size_t(4096), std::size_t(65537), io::detail::auto_window}) {
    auto w = io::detail::open_gzip_windows(f, window, 3, pipelined_tuning(3001));
    try {
      io::detail::parse_matrix_market_windows(*w, f, {});
      FAIL() << "no error, window " << window;
    } catch (const parse_error& e) {
      EXPECT_EQ(std::string(e.what()), want) << "window " << window;
    }
  }
}

// A truncated or corrupt member through the pipelined windows: the sequential
// inflater's own error (the parallel one hands it over), raised by next() on
// the parser's thread, never a wrong matrix.
TEST_F(io_gzip_parallel_windows, PipelinedTruncatedAndCorruptMembers) {
  const std::string text = matrix_text(1 << 20, 17);
  const std::string good = gzip(text, 6) + gzip(text.substr(0, 5000), 6);
  std::mt19937_64 rng(18);
  for (int trial = 0; trial < 12; ++trial) {
    std::string gz = good;
    if (trial % 2 == 0)
      gz.resize(gz.size() / 4 + rng() % (gz.size() * 3 / 4));  // truncated, often inside the first member
    else
      gz[200 + rng() % (gz.size() - 200)] ^= static_cast<char>(1 + rng() % 255);
    const std::string f = write("bad" + std::to_string(trial) + ".mtx.gz", gz);
    std::string want, got;
    try {
      io::mm_matrix m =
          io::detail::parse_matrix_market_windows(*io::detail::open_gzip_windows(f, 65536, 1), f, {});
    } catch (const std::exception& e) {
      want = e.what();
    }
    try {
      io::mm_matrix m = io::detail::parse_matrix_market_windows(
          *io::detail::open_gzip_windows(f, 65536, 3, pipelined_tuning(5000)), f, {});
    } catch (const std::exception& e) {
      got = e.what();
    }
    EXPECT_EQ(got, want) << "trial " << trial;
  }
}

// With the automatic window, a line longer than a window is carried into a
// larger one (a long comment is valid); past default_window it is an error.
TEST_F(io_gzip_parallel_windows, LongLinesWithTheAutomaticWindow) {
  std::string text = matrix_text(1 << 20, 19);
  const std::size_t nl = text.find('\n');
  text.insert(nl + 1, "%" + std::string(3 << 20, 'c') + "\n");  // a 3 MiB comment after the banner
  const std::string f = write("comment.mtx.gz", gzip(text, 6));
  const io::mm_matrix whole = io::parse_matrix_market(text, f, {});
  for (unsigned threads : {1u, 3u}) {
    auto w = io::detail::open_gzip_windows(f, io::detail::auto_window, threads, pipelined_tuning(0));
    EXPECT_EQ(io::detail::parse_matrix_market_windows(*w, f, {}).matrix.row_idx, whole.matrix.row_idx);
  }
  std::string longer = matrix_text(1 << 20, 20);
  longer += std::string(9 << 20, '1') + "\n";
  const std::string g = write("long.mtx.gz", gzip(longer, 6));
  for (unsigned threads : {1u, 3u}) {
    auto w = io::detail::open_gzip_windows(g, io::detail::auto_window, threads, pipelined_tuning(0));
    try {
      io::detail::parse_matrix_market_windows(*w, g, {});
      FAIL() << "no error";
    } catch (const io_error& e) {
      EXPECT_NE(std::string(e.what()).find("a line longer than 8 MiB"), std::string::npos) << e.what();
    }
  }
}

// Loads one after another, and two at once (two producer threads, each the
// master of its own inflater team), one of them dropped part way.
TEST_F(io_gzip_parallel_windows, PipelinedLoadsAfterAndBesideEachOther) {
  const std::string text = matrix_text(1 << 20, 21);
  const io::mm_matrix whole = io::parse_matrix_market(text, "m.mtx", {});
  const std::string f = write("a.mtx.gz", gzip(text, 6));
  for (int k = 0; k < 3; ++k) {
    auto a = io::detail::open_gzip_windows(f, 65536, 3, pipelined_tuning(4096));
    auto b = io::detail::open_gzip_windows(f, 70001, 3, pipelined_tuning(5000));
    // Interleaved: each window of a, then all of b, then the rest of a.
    const std::string_view first = a->next();
    ASSERT_FALSE(first.empty());
    EXPECT_EQ(io::detail::parse_matrix_market_windows(*b, f, {}).matrix.col_idx, whole.matrix.col_idx);
    a.reset();  // dropped part way: its producer stops
  }
}

}  // namespace
}  // namespace perron
