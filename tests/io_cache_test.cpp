// The binary cache: off unless asked; a second load comes from the cache and
// equals the text parse exactly; corrupt, truncated and foreign-version
// caches are refused with a warning and rebuilt, stale ones (the source
// changed) rebuilt silently; an unwritable cache directory only warns. Every test uses its own temporary
// cache directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io/cache.hpp"
#include "io/load.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

namespace fs = std::filesystem;

class io_cache : public test::scratch_test {
 protected:
  io_cache() : scratch_test("io-cache") {}
  void SetUp() override {
    scratch_test::SetUp();
    fs::create_directories(dir_ / "src");
    opt_.cache.enabled = true;
    opt_.cache.dir = (dir_ / "cache").string();
  }
  std::string source(const std::string& name, const std::string& from) {
    const auto p = dir_ / "src" / name;
    fs::copy_file(from, p, fs::copy_options::overwrite_existing);
    return p.string();
  }
  std::string cache_file(const std::string& src) { return io::cache_file_for(src, opt_.cache); }

  // Loads with stderr captured; returns (matrix, stderr text).
  std::pair<io::loaded_matrix, std::string> load(const std::string& p) {
    ::testing::internal::CaptureStderr();
    try {
      auto m = io::load_matrix(p, opt_);
      return {std::move(m), ::testing::internal::GetCapturedStderr()};
    } catch (...) {
      // Release the capture: gtest aborts the process when a second one
      // starts (seen where .tar.gz is not_supported: built without libarchive).
      ::testing::internal::GetCapturedStderr();
      throw;
    }
  }

  io::read_options opt_;
};

void expect_same(const io::loaded_matrix& a, const io::loaded_matrix& b) {
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.pattern, b.pattern);
  EXPECT_EQ(a.symmetric, b.symmetric);
  EXPECT_EQ(a.label, b.label);
  EXPECT_EQ(a.matrix.rows, b.matrix.rows);
  EXPECT_EQ(a.matrix.cols, b.matrix.cols);
  EXPECT_EQ(a.matrix.row_idx, b.matrix.row_idx);
  EXPECT_EQ(a.matrix.col_idx, b.matrix.col_idx);
  EXPECT_EQ(a.matrix.values, b.matrix.values);
}

TEST_F(io_cache, OffByDefaultInLibraryCalls) {
  // Point the default directory here: a default load must write nothing.
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old ? old : "";
  ::setenv("XDG_CACHE_HOME", (dir_ / "xdg").c_str(), 1);
  EXPECT_EQ(io::default_cache_dir(), (dir_ / "xdg" / "perron").string());
  io::load_matrix(source("karate.mtx", test::data_dir() + "/karate.mtx"));
  EXPECT_FALSE(fs::exists(dir_ / "xdg"));
  io::read_options on;
  on.cache.enabled = true;  // default directory: $XDG_CACHE_HOME/perron
  io::load_matrix(dir_ / "src" / "karate.mtx", on);
  EXPECT_TRUE(fs::exists(dir_ / "xdg" / "perron"));
  if (old)
    ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else
    ::unsetenv("XDG_CACHE_HOME");
}

TEST_F(io_cache, SecondLoadComesFromTheCacheAndIsIdentical) {
  for (const char* f :
       {"wiki-Vote.txt", "bcsstk13.mtx", "netscience.mtx", "email-Eu-core.txt.gz", "karate.tar.gz"}) {
    const std::string p = source(f, test::data_dir() + "/" + f);
    io::loaded_matrix first;
    try {
      first = load(p).first;
    } catch (const not_supported&) {
      continue;  // .tar.gz without libarchive
    }
    EXPECT_FALSE(first.timings.from_cache) << f;
    ASSERT_TRUE(fs::exists(cache_file(p))) << f;
    const auto [second, err] = load(p);
    EXPECT_TRUE(second.timings.from_cache) << f;
    EXPECT_EQ(err, "") << f;
    expect_same(second, first);
    // And both equal a load with the cache off.
    expect_same(second, io::load_matrix(p));
  }
}

// A write killed outright (SIGKILL) leaves "<entry>.tmp.<pid>.<clock>"; the
// next write into the folder removes such a temporary an hour old, and
// neither a fresh one (a writer at work) nor a file not named like one.
TEST_F(io_cache, TemporariesAnHourOldAreSweptByTheNextWrite) {
  const fs::path cache = dir_ / "cache";
  fs::create_directories(cache);
  const auto make = [&](const std::string& name, std::chrono::minutes age) {
    const fs::path p = cache / name;
    std::ofstream(p) << "half an entry";
    fs::last_write_time(p, fs::file_time_type::clock::now() - age);
    return p;
  };
  using std::chrono::minutes;
  const fs::path old_entry = make("karate.mtx.0123456789abcdef.perron-cache.tmp.4242.99887766", minutes(61));
  const fs::path old_part = make("g.mtx.0123456789abcdef.np2.r0.perron-part.tmp.17.5", minutes(600));
  const fs::path fresh = make("wiki.txt.0123456789abcdef.perron-cache.tmp.4243.99887767", minutes(59));
  const fs::path users = make("notes.tmp.4242.1", minutes(600));
  const fs::path odd = make("x.perron-cache.tmp.42x.1", minutes(600));
  load(source("karate.mtx", test::data_dir() + "/karate.mtx"));
  EXPECT_FALSE(fs::exists(old_entry));
  EXPECT_FALSE(fs::exists(old_part));
  EXPECT_TRUE(fs::exists(fresh));
  EXPECT_TRUE(fs::exists(users));
  EXPECT_TRUE(fs::exists(odd));
}

// On a shared (NFS) folder the server stamps every temporary; a client whose
// clock runs hours ahead or behind judges age by the stamp of the temporary it
// just made, never by its own clock: a live writer's temporary, stamped just
// before ours, is kept, one stamped over an hour before ours is removed.
TEST_F(io_cache, TemporariesAreAgedByTheFolderClockNotTheHosts) {
  const fs::path cache = dir_ / "skew";
  fs::create_directories(cache);
  const auto server_now = fs::file_time_type::clock::now() - std::chrono::hours(3);  // ours 3 h ahead
  const auto make = [&](const std::string& name, std::chrono::minutes age) {
    const fs::path p = cache / name;
    std::ofstream(p) << "half an entry";
    fs::last_write_time(p, server_now - age);
    return p.string();
  };
  using std::chrono::minutes;
  const std::string ours = make("a.mtx.0123456789abcdef.perron-cache.tmp.1.1", minutes(0));
  const std::string live = make("b.mtx.0123456789abcdef.perron-cache.tmp.2.2", minutes(5));
  const std::string dead = make("c.mtx.0123456789abcdef.perron-cache.tmp.3.3", minutes(61));
  io::detail::sweep_stale_temporaries(cache.string(), ours);
  EXPECT_TRUE(fs::exists(ours));
  EXPECT_TRUE(fs::exists(live));  // 3 h 5 min old by this host's clock
  EXPECT_FALSE(fs::exists(dead));
}

TEST_F(io_cache, CorruptCacheIsRefusedWithAWarningAndRebuilt) {
  const std::string p = source("cage8.mtx", test::data_dir() + "/cage8.mtx");
  const auto truth = load(p).first;
  const std::string c = cache_file(p);
  const auto size = fs::file_size(c);
  for (std::uint64_t offset : {std::uint64_t(3), std::uint64_t(40), size / 2, size - 1}) {
    {
      std::fstream f(c, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(static_cast<std::streamoff>(offset));
      char b = 0;
      f.read(&b, 1);
      b = static_cast<char>(b ^ 0x10);
      f.seekp(static_cast<std::streamoff>(offset));
      f.write(&b, 1);
    }
    const auto [m, err] = load(p);
    EXPECT_FALSE(m.timings.from_cache) << "byte " << offset;
    EXPECT_NE(err.find("warning"), std::string::npos) << err;
    EXPECT_NE(err.find(c), std::string::npos) << err;
    expect_same(m, truth);
    const auto [again, err2] = load(p);  // rebuilt: clean hit
    EXPECT_TRUE(again.timings.from_cache);
    EXPECT_EQ(err2, "");
  }
}

TEST_F(io_cache, TruncatedOrForeignCacheIsRebuilt) {
  const std::string p = source("bcsstk06.mtx", test::data_dir() + "/bcsstk06.mtx");
  const auto truth = load(p).first;
  const std::string c = cache_file(p);
  for (std::uintmax_t keep :
       {std::uintmax_t(0), std::uintmax_t(10), std::uintmax_t(100), fs::file_size(c) - 8}) {
    fs::resize_file(c, keep);
    const auto [m, err] = load(p);
    EXPECT_FALSE(m.timings.from_cache);
    EXPECT_NE(err.find("truncated"), std::string::npos) << err;
    expect_same(m, truth);
  }
  // A header of this format whose byte-order mark is damaged (bytes 12-15,
  // after the magic and version): said to be "another cache format (version
  // 2, this is 2)".
  (void)load(p);  // rebuilt whole
  {
    std::fstream f(c, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(12);
    f.put('\x55');
  }
  {
    const auto [m, err] = load(p);
    EXPECT_FALSE(m.timings.from_cache);
    EXPECT_NE(err.find("corrupt header (bad byte-order mark)"), std::string::npos) << err;
    EXPECT_EQ(err.find("another cache format"), std::string::npos) << err;
    expect_same(m, truth);
  }
  std::ofstream(c, std::ios::binary)
      << "not a cache at all, but long enough to hold a header......................"
         "..............................";
  const auto [m, err] = load(p);
  EXPECT_NE(err.find("not a perron cache file"), std::string::npos) << err;
  expect_same(m, truth);
}

TEST_F(io_cache, StaleCacheIsRebuiltFromTheChangedSource) {
  const std::string p = (dir_ / "src" / "g.txt").string();
  std::ofstream(p) << "0 1\n1 2\n";
  EXPECT_EQ(load(p).first.matrix.nnz(), 2u);
  EXPECT_TRUE(load(p).first.timings.from_cache);
  // Same size, different content and modification time (set explicitly: a
  // coarse file-system clock could otherwise leave it unchanged).
  const auto written = fs::last_write_time(p);
  std::ofstream(p) << "5 6\n6 5\n";
  fs::last_write_time(p, written + std::chrono::seconds(2));
  const auto [m, err] = load(p);
  EXPECT_FALSE(m.timings.from_cache);
  EXPECT_EQ(err, "");  // the expected case, rebuilt without a warning
  EXPECT_EQ(m.label, (std::vector<std::int64_t>{5, 6}));
  const auto [again, err2] = load(p);
  EXPECT_TRUE(again.timings.from_cache);
  EXPECT_EQ(again.label, (std::vector<std::int64_t>{5, 6}));
}

TEST_F(io_cache, FileChangedWhileReadIsNotCached) {
  const std::string p = source("karate.mtx", test::data_dir() + "/karate.mtx");
  const auto before = io::stamp_of(p);
  ASSERT_TRUE(before);
  const auto m = io::load_matrix(p);  // the content as read, cache off
  // The file changes after it was read and before the cache is written.
  fs::last_write_time(p, fs::last_write_time(p) + std::chrono::seconds(2));
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(io::cache_store(p, *before, m, opt_.cache, 1));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("changed while it was read"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(cache_file(p)));
  // With the stamp it really had, the store goes through and leaves no temporary file.
  EXPECT_TRUE(io::cache_store(p, *io::stamp_of(p), m, opt_.cache, 1));
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(opt_.cache.dir)) {
    ++files;
    EXPECT_EQ(e.path().string(), cache_file(p));
  }
  EXPECT_EQ(files, 1u);
}

TEST_F(io_cache, UnwritableCacheDirectoryOnlyWarns) {
  if (::geteuid() == 0) {
    // root ignores permissions: use a path under a regular file instead.
    std::ofstream(dir_ / "file") << "x";
    opt_.cache.dir = (dir_ / "file" / "cache").string();
  } else {
    fs::create_directories(opt_.cache.dir);
    fs::permissions(opt_.cache.dir, fs::perms::owner_read | fs::perms::owner_exec);
  }
  const std::string p = source("karate.mtx", test::data_dir() + "/karate.mtx");
  const auto [m, err] = load(p);
  EXPECT_EQ(m.matrix.nnz(), 156u);
  EXPECT_NE(err.find("warning"), std::string::npos);
  EXPECT_NE(err.find("not caching"), std::string::npos) << err;
  EXPECT_EQ(m.timings.cache_seconds, 0.0);  // no write to time (the summary's "cache write")
}

TEST_F(io_cache, ErrorsAreNotCachedAndMissingFilesStillSaySo) {
  EXPECT_THROW(io::load_matrix((dir_ / "src" / "nope.mtx").string(), opt_), io_error);
  const std::string bad = source("bad.mtx", test::data_dir() + "/invalid/row-index-zero.mtx");
  EXPECT_THROW(io::load_matrix(bad, opt_), parse_error);
  EXPECT_FALSE(fs::exists(opt_.cache.dir) && !fs::is_empty(opt_.cache.dir));
}

// ---- the per-rank cache of a distributed load (io::rank_part) --------------------

io::rank_part some_part(bool weighted) {
  io::rank_part p;
  p.format = io::input_format::snap;
  p.pattern = true;
  p.n = 10;
  p.first = {0, 4, 10};
  p.rows.rows = 6;  // rank 1: vertices 4..9
  p.rows.cols = 10;
  p.rows.row_ptr = {0, 2, 2, 3, 5, 5, 6};
  p.rows.col_idx = {1, 7, 0, 3, 9, 4};
  if (weighted) p.rows.values = {0.5, 1, 2, 3, 4.25, 1e-3};
  p.label = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
  return p;
}

TEST_F(io_cache, RankPartRoundTripsAndIsKeyedByRanksRankAndWeighting) {
  const std::string src = source("g.txt", test::data_dir() + "/cage8.mtx");
  for (bool weighted : {false, true}) {
    const io::rank_part_key key{2, 1, weighted};
    const io::rank_part p = some_part(weighted);
    std::string why;
    EXPECT_FALSE(io::rank_cache_load(src, key, opt_.cache, 1, why));
    EXPECT_EQ(why, "");  // none yet: nothing to say
    EXPECT_EQ(io::rank_cache_store(src, *io::stamp_of(src), key, p, opt_.cache, 1), "");
    const auto q = io::rank_cache_load(src, key, opt_.cache, 1, why);
    ASSERT_TRUE(q) << why;
    EXPECT_EQ(q->format, p.format);
    EXPECT_EQ(q->pattern, p.pattern);
    EXPECT_EQ(q->n, p.n);
    EXPECT_EQ(q->first, p.first);
    EXPECT_EQ(q->rows.rows, 6);
    EXPECT_EQ(q->rows.cols, 10);
    EXPECT_EQ(q->rows.row_ptr, p.rows.row_ptr);
    EXPECT_EQ(q->rows.col_idx, p.rows.col_idx);
    EXPECT_EQ(q->rows.values, p.rows.values);  // empty for a pattern
    EXPECT_EQ(q->label, p.label);
    // Another rank, another P: other files, none there.
    EXPECT_FALSE(io::rank_cache_load(src, {2, 0, weighted}, opt_.cache, 1, why));
    EXPECT_FALSE(io::rank_cache_load(src, {3, 1, weighted}, opt_.cache, 1, why));
    EXPECT_EQ(why, "");
    // The graph read undirected is another graph: its own file, beside this one.
    EXPECT_FALSE(io::rank_cache_load(src, {2, 1, weighted, true}, opt_.cache, 1, why));
    EXPECT_EQ(why, "");
    io::rank_part u = some_part(weighted);
    u.rows.col_idx[0] = 2;
    EXPECT_EQ(io::rank_cache_store(src, *io::stamp_of(src), {2, 1, weighted, true}, u, opt_.cache, 1), "");
    const auto v = io::rank_cache_load(src, {2, 1, weighted, true}, opt_.cache, 1, why);
    ASSERT_TRUE(v) << why;
    EXPECT_EQ(v->rows.col_idx, u.rows.col_idx);
    EXPECT_EQ(io::rank_cache_load(src, key, opt_.cache, 1, why)->rows.col_idx, p.rows.col_idx);
  }
}

// A column index past the graph, written with a matching checksum (the
// check is the read's own, block by block): refused, never handed to a solver.
TEST_F(io_cache, RankPartWithAColumnOutOfRangeIsRefused) {
  const std::string src = source("g.mtx", test::data_dir() + "/cage8.mtx");
  for (index_t bad : {10, -1}) {
    io::rank_part p = some_part(false);
    p.rows.col_idx[3] = bad;
    const io::rank_part_key key{2, 1, false};
    ASSERT_EQ(io::rank_cache_store(src, *io::stamp_of(src), key, p, opt_.cache, 1), "");
    std::string why;
    EXPECT_FALSE(io::rank_cache_load(src, key, opt_.cache, 2, why));
    EXPECT_NE(why.find("indices out of range"), std::string::npos) << why;
  }
}

TEST_F(io_cache, RankPartCorruptTruncatedOrStaleIsRefusedWithAReason) {
  const std::string src = source("g.mtx", test::data_dir() + "/cage8.mtx");
  const io::rank_part_key key{2, 1, true};
  ASSERT_EQ(io::rank_cache_store(src, *io::stamp_of(src), key, some_part(true), opt_.cache, 1), "");
  const std::string file = io::rank_cache_file_for(src, key, opt_.cache);
  std::string why;
  {  // one payload byte flipped
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-20, std::ios::end);
    f.put('\x7f');
  }
  EXPECT_FALSE(io::rank_cache_load(src, key, opt_.cache, 1, why));
  EXPECT_NE(why.find("checksum mismatch"), std::string::npos) << why;
  ASSERT_EQ(io::rank_cache_store(src, *io::stamp_of(src), key, some_part(true), opt_.cache, 1), "");
  fs::resize_file(file, fs::file_size(file) - 8);
  EXPECT_FALSE(io::rank_cache_load(src, key, opt_.cache, 1, why));
  EXPECT_NE(why.find("truncated"), std::string::npos) << why;
  // The header checks it shares with the single-process cache, each naming
  // the rank cache's own magic and format version.
  const auto patched = [&](std::streamoff at, const std::string& bytes) {
    EXPECT_EQ(io::rank_cache_store(src, *io::stamp_of(src), key, some_part(true), opt_.cache, 1), "");
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(at);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    std::string w;
    EXPECT_FALSE(io::rank_cache_load(src, key, opt_.cache, 1, w));
    return w;
  };
  why = patched(0, "PERRONCA");  // the single-process cache's magic
  EXPECT_NE(why.find("not a perron rank cache file"), std::string::npos) << why;
  why = patched(8, std::string("\x63\0\0\0", 4));  // version 99
  EXPECT_NE(why.find("(version 99, this is " + std::to_string(io::rank_cache_format_version) + ")"),
            std::string::npos)
      << why;
  why = patched(40, std::string("\x03", 1));  // ranks 2 -> 3
  EXPECT_NE(why.find("header checksum mismatch"), std::string::npos) << why;
  ASSERT_EQ(io::rank_cache_store(src, *io::stamp_of(src), key, some_part(true), opt_.cache, 1), "");
  fs::last_write_time(src, fs::last_write_time(src) - std::chrono::hours(1));
  EXPECT_FALSE(io::rank_cache_load(src, key, opt_.cache, 1, why));
  EXPECT_EQ(why, "");  // stale: refused without a word
  // A stamp taken before a change: not written.
  io::source_stamp before = *io::stamp_of(src);
  before.mtime_ns += 1;
  EXPECT_NE(io::rank_cache_store(src, before, key, some_part(true), opt_.cache, 1).find("changed while"),
            std::string::npos);
}

// A source rewritten with its old size and its old modification time put
// back (touch -r/-d, cp -p, tar x, mv of another file): its status-change
// time, which no user can set, is new. Size and mtime alone served the old
// graph's entry, its kept CSR of A^T and its side files: silently wrong ranks.
TEST_F(io_cache, SourceRewrittenWithItsOldSizeAndModificationTimeIsStale) {
  const std::string p = (dir_ / "src" / "g.txt").string();
  std::ofstream(p) << "0 1\n1 2\n";
  EXPECT_EQ(load(p).first.label, (std::vector<std::int64_t>{0, 1, 2}));
  ASSERT_TRUE(load(p).first.timings.from_cache);
  const io::rank_part_key key{2, 1, false};
  io::rank_part part = some_part(false);
  ASSERT_EQ(io::rank_cache_store(p, *io::stamp_of(p), key, part, opt_.cache, 1), "");
  ASSERT_TRUE(io::side_store(p, opt_.cache, "note", "old graph"));
  const auto written = fs::last_write_time(p);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past a coarse file-system clock's tick
  std::ofstream(p) << "5 6\n6 5\n";
  fs::last_write_time(p, written);
  ASSERT_EQ(fs::file_size(p), 8u);
  const auto [m, err] = load(p);
  EXPECT_FALSE(m.timings.from_cache);
  EXPECT_EQ(err, "");  // stale, rebuilt without a warning
  EXPECT_EQ(m.label, (std::vector<std::int64_t>{5, 6}));
  std::string why;
  EXPECT_FALSE(io::rank_cache_load(p, key, opt_.cache, 1, why));
  EXPECT_EQ(why, "");
  EXPECT_FALSE(io::side_load(p, opt_.cache, "note").has_value());
}

TEST_F(io_cache, RankPartPruneRemovesOnlyOtherRankCounts) {
  const std::string src = source("g.mtx", test::data_dir() + "/cage8.mtx");
  const auto stamp = *io::stamp_of(src);
  io::rank_part p = some_part(true);  // its sizes stand for every rank's
  for (int P : {2, 3}) {
    p.first = P == 2 ? std::vector<index_t>{0, 4, 10} : std::vector<index_t>{0, 4, 10, 10};
    for (int r = 0; r < P; ++r)
      ASSERT_EQ(io::rank_cache_store(src, stamp, {P, r, false}, p, opt_.cache, 1), "");
  }
  ASSERT_EQ(io::rank_cache_store(src, stamp, {3, 0, true}, p, opt_.cache, 1), "");  // weighted: kept
  // One rank of one: the single-process run's kept CSR of A^T, not a distributed run's to remove.
  io::rank_part whole = some_part(false);
  whole.first = {0, 10};
  whole.rows.rows = 10;
  whole.rows.row_ptr = {0, 0, 0, 0, 0, 2, 2, 3, 5, 5, 6};
  ASSERT_EQ(io::rank_cache_store(src, stamp, {1, 0, false}, whole, opt_.cache, 1), "");
  // A part whose sizes do not match its key is a caller's bug, not a file to write.
  EXPECT_THROW(io::rank_cache_store(src, stamp, {4, 0, true}, p, opt_.cache, 1), invalid_argument);
  EXPECT_EQ(io::rank_cache_prune(src, {2, 0, false}, opt_.cache), 3);
  std::string why;
  EXPECT_TRUE(io::rank_cache_load(src, {2, 1, false}, opt_.cache, 1, why)) << why;
  EXPECT_FALSE(io::rank_cache_load(src, {3, 1, false}, opt_.cache, 1, why));
  EXPECT_TRUE(fs::exists(io::rank_cache_file_for(src, {3, 0, true}, opt_.cache)));
  EXPECT_TRUE(io::rank_cache_load(src, {1, 0, false}, opt_.cache, 1, why)) << why;
}

// Side files (what a solver learned about a graph, e.g. the PageRank pull
// trial): kept beside the cache entry, read back for the same source only;
// stale after the source changes, refused when foreign or too large; off
// with the cache; never for a path that is not a file.
TEST_F(io_cache, SideFilesRoundTripAndGoStaleWithTheSource) {
  const std::string p = source("karate.mtx", test::data_dir() + "/karate.mtx");
  EXPECT_FALSE(io::side_load(p, opt_.cache, "pull-float").has_value());  // none yet
  ASSERT_TRUE(io::side_store(p, opt_.cache, "pull-float", "line one\nline two\n"));
  const std::string side = cache_file(p) + ".pull-float";
  EXPECT_TRUE(fs::exists(side));
  EXPECT_EQ(io::side_load(p, opt_.cache, "pull-float").value_or("?"), "line one\nline two\n");
  EXPECT_FALSE(io::side_load(p, opt_.cache, "pull-double").has_value());  // another tag
  // Rewritten in place.
  ASSERT_TRUE(io::side_store(p, opt_.cache, "pull-float", "two"));
  EXPECT_EQ(io::side_load(p, opt_.cache, "pull-float").value_or("?"), "two");
  // Off with the cache; never for a missing file.
  io::cache_options off = opt_.cache;
  off.enabled = false;
  EXPECT_FALSE(io::side_load(p, off, "pull-float").has_value());
  EXPECT_FALSE(io::side_store(p, off, "pull-float", "x"));
  EXPECT_FALSE(io::side_store((dir_ / "src" / "missing.mtx").string(), opt_.cache, "pull-float", "x"));
  EXPECT_FALSE(io::side_load((dir_ / "src" / "missing.mtx").string(), opt_.cache, "pull-float").has_value());
  // A generated graph's spec is its own key and stamp (the same graph every run).
  EXPECT_FALSE(io::side_load("rmat:10:1000", opt_.cache, "pull-float").has_value());
  ASSERT_TRUE(io::side_store("rmat:10:1000", opt_.cache, "pull-float", "spec"));
  EXPECT_EQ(io::side_load("rmat:10:1000", opt_.cache, "pull-float").value_or("?"), "spec");
  EXPECT_FALSE(io::side_load("rmat:10:1001", opt_.cache, "pull-float").has_value());
  EXPECT_FALSE(io::side_load("rmat:10:1000", off, "pull-float").has_value());
  EXPECT_FALSE(io::side_store(p, opt_.cache, "pull-float", std::string(io::side_max_bytes + 1, 'x')));
  // Stale once the source changes (silently: a changed source is no error).
  fs::last_write_time(p, fs::last_write_time(p) + std::chrono::seconds(2));
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(io::side_load(p, opt_.cache, "pull-float").has_value());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST_F(io_cache, ForeignSideFilesAreRefusedWithAWarning) {
  const std::string p = source("karate.mtx", test::data_dir() + "/karate.mtx");
  ASSERT_TRUE(io::side_store(p, opt_.cache, "pull-float", "ok"));
  const std::string side = cache_file(p) + ".pull-float";
  std::ofstream(side, std::ios::trunc) << "not a side file";
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(io::side_load(p, opt_.cache, "pull-float").has_value());
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("not a perron side file"), std::string::npos);
  std::ofstream(side, std::ios::trunc) << std::string(io::side_max_bytes + 1024, 'x');
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(io::side_load(p, opt_.cache, "pull-float").has_value());
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("warning"), std::string::npos);
}

// A FIFO where a cache file belongs (in a user's --cache-dir) is refused as
// no regular file, never opened and waited on for a writer: the run hung.
// Labels that hold a tab or line breaks (GML's strings may) are kept by the
// entry and served back: the entry was refused as "corrupt vertex names" and
// rewritten on every run, with a warning each time.
TEST_F(io_cache, NamesWithControlCharactersAreServed) {
  const fs::path p = dir_ / "src" / "labels.gml";
  {
    std::ofstream(p) << "graph [\n directed 1\n node [ id 1 label \"a\tb\" ]\n node [ id 2 label \"c\nd\" ]\n"
                        " node [ id 3 label \"e\r\n\x01f\" ]\n edge [ source 1 target 2 ]\n"
                        " edge [ source 3 target 1 ]\n]\n";
  }
  const auto first = load(p.string());
  EXPECT_FALSE(first.first.timings.from_cache);
  ASSERT_EQ(first.first.name, (std::vector<std::string>{"a\tb", "c\nd", "e\r\n\x01f"}));
  const auto again = load(p.string());
  EXPECT_TRUE(again.first.timings.from_cache);
  EXPECT_EQ(again.second, "");
  EXPECT_EQ(again.first.name, first.first.name);
  expect_same(again.first, first.first);
}

// An empty name (GraphML's <node id=""/>) is a name: the entry was refused as
// "corrupt vertex names" on every run and rewritten, with two warnings each
// time, and read-bench --cache failed with exit 71.
TEST_F(io_cache, EmptyNamesAreServed) {
  const fs::path p = dir_ / "src" / "empty.graphml";
  {
    std::ofstream(p) << "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
                        "<graph edgedefault=\"directed\"><node id=\"\"/><node id=\"a\"/>"
                        "<edge source=\"\" target=\"a\"/></graph></graphml>\n";
  }
  const auto first = load(p.string());
  EXPECT_FALSE(first.first.timings.from_cache);
  ASSERT_EQ(first.first.name, (std::vector<std::string>{"", "a"}));
  const auto again = load(p.string());
  EXPECT_TRUE(again.first.timings.from_cache);
  EXPECT_EQ(again.second, "");
  EXPECT_EQ(again.first.name, first.first.name);
  expect_same(again.first, first.first);
  std::vector<std::string> names;
  EXPECT_TRUE(unpack_names(pack_names({"", "", "xy", ""}), 4, names));
  EXPECT_EQ(names, (std::vector<std::string>{"", "", "xy", ""}));
  EXPECT_FALSE(unpack_names({2, 1, 0}, 2, names)) << "names that end before they start";
}

// An edge list read by name (read_options::all_names, pagerank --names) is
// another graph than the same file read by its ids: each reading has an entry
// and side files of its own, and neither serves the other.
TEST_F(io_cache, AReadingByNameKeepsEntriesOfItsOwn) {
  const fs::path p = dir_ / "src" / "ids.txt";
  { std::ofstream(p) << "30 10\n10 20\n20 30\n"; }
  const std::string src = p.string();
  const auto ids = load(src).first;
  ASSERT_TRUE(ids.name.empty());
  EXPECT_FALSE(ids.timings.from_cache);
  opt_.all_names = true;
  const io::cache_options by_name = io::cache_options_of(opt_);
  EXPECT_EQ(by_name.reading, "names");
  const auto named = load(src).first;
  EXPECT_FALSE(named.timings.from_cache) << "the reading by ids served the reading by name";
  EXPECT_EQ(named.name, (std::vector<std::string>{"30", "10", "20"}));
  const auto named_again = load(src).first;
  EXPECT_TRUE(named_again.timings.from_cache);
  EXPECT_EQ(named_again.name, named.name);
  expect_same(named_again, named);
  opt_.all_names = false;
  const auto ids_again = load(src).first;
  EXPECT_TRUE(ids_again.timings.from_cache);
  EXPECT_TRUE(ids_again.name.empty());
  expect_same(ids_again, ids);
  EXPECT_NE(io::cache_file_for(src, opt_.cache), io::cache_file_for(src, by_name));
  EXPECT_TRUE(fs::exists(io::cache_file_for(src, by_name)));
  // Side files (the pull trial's record, the last solve's count) likewise.
  ASSERT_TRUE(io::side_store(src, opt_.cache, "t", "by ids"));
  EXPECT_FALSE(io::side_load(src, by_name, "t").has_value());
  ASSERT_TRUE(io::side_store(src, by_name, "t", "by name"));
  EXPECT_EQ(io::side_load(src, opt_.cache, "t").value_or(""), "by ids");
  EXPECT_EQ(io::side_load(src, by_name, "t").value_or(""), "by name");
  // And the per-rank parts: another reading's are not another P's to prune.
  const io::rank_part_key key{2, 0, false, false};
  EXPECT_NE(io::rank_cache_file_for(src, key, opt_.cache), io::rank_cache_file_for(src, key, by_name));
}

TEST_F(io_cache, FifosWhereCacheFilesBelongAreRefusedNotWaitedOn) {
  const std::string p = source("karate.mtx", test::data_dir() + "/karate.mtx");
  fs::create_directories(opt_.cache.dir);
  const std::string side = cache_file(p) + ".pull-float";
  ASSERT_EQ(::mkfifo(cache_file(p).c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo(side.c_str(), 0644), 0);
  static std::atomic<bool> done{false};
  std::thread([] {  // a hang fails the suite at once instead of stalling it
    for (int i = 0; i < 200 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!done) {
      std::fprintf(stderr, "io_cache: hung on a FIFO in the cache directory\n");
      std::_Exit(1);
    }
  })
      .detach();
  const auto [m, err] = load(p);
  EXPECT_EQ(m.matrix.rows, 34);
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(io::side_store(p, opt_.cache, "pull-float", "x"));
  EXPECT_FALSE(io::side_load(p, opt_.cache, "pull-float").has_value());
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("is not a regular file"), std::string::npos);
  done = true;
}

}  // namespace
}  // namespace perron
