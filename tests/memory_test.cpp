// core/memory.hpp: mapping a buffer's pages ahead of its writers.
#include "core/memory.hpp"

#include <gtest/gtest.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace perron {
namespace {

constexpr std::size_t page = 4096;

// Fresh anonymous pages (none mapped until touched); unmapped at scope end.
struct fresh_mapping {
  explicit fresh_mapping(std::size_t pages) : bytes(pages * page) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    data = p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p);
  }
  ~fresh_mapping() {
    if (data) ::munmap(data, bytes);
  }
  fresh_mapping(const fresh_mapping&) = delete;
  fresh_mapping& operator=(const fresh_mapping&) = delete;
  std::size_t resident() const {
    std::vector<unsigned char> v(bytes / page);
    if (::mincore(data, bytes, v.data()) != 0) return 0;
    std::size_t count = 0;
    for (unsigned char c : v) count += c & 1;
    return count;
  }
  unsigned char* data = nullptr;
  std::size_t bytes;
};

// MADV_POPULATE_WRITE is Linux 5.14+; elsewhere map_unmapped leaves the
// pages to their writers, which the tests below cannot see.
bool can_populate() {
#if defined(MADV_POPULATE_WRITE)
  fresh_mapping probe(1);
  return probe.data && ::madvise(probe.data, page, MADV_POPULATE_WRITE) == 0;
#else
  return false;
#endif
}

// A forked child's parallel regions run on its one thread: libgomp's pool,
// made by the parent's regions, is not in the child, whose first region of
// several threads waited on it forever (multiprocessing's pool.map).
TEST(ForkedChild, RunsParallelRegionsOnItsOneThread) {
  int parent = 0;
#pragma omp parallel num_threads(4) reduction(+ : parent)
  parent += 1;
  ASSERT_GE(parent, 1);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(20);  // a hang ends the child (SIGALRM), and the test fails
    int team = 0;
#pragma omp parallel num_threads(4) reduction(+ : team)
    team += 1;
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 1000; ++i) sum += i;
    ::_exit(team == 1 && sum == 499500 && host_threads() == 1 ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_GE(host_threads(), 1u);  // the parent's own count is left alone
}

// A parent of one thread has no pool: its child keeps its teams (the apps
// fork so before any thread exists, apps/common/detached_exit.hpp, and the
// whole run goes on in the child, which the guard above had held to one
// thread). Run in a fresh process of this binary: the test process has a pool.
TEST(ForkedChild, OfAParentOfOneThreadKeepsItsTeams) {
  if (std::getenv("PERRON_FORK_FRESH")) {  // the fresh process: one thread, no region run yet
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::alarm(20);
      int team = 0;
#pragma omp parallel num_threads(2) reduction(+ : team)
      team += 1;
      ::_exit(team == 2 ? 0 : 3);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    return;
  }
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string command =
      "PERRON_FORK_FRESH=1 '" + self +
      "' --gtest_filter=ForkedChild.OfAParentOfOneThreadKeepsItsTeams > /dev/null 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0);
}

TEST(MapUnmapped, MapsEveryPageOfAFreshBuffer) {
  if (!can_populate()) GTEST_SKIP() << "no MADV_POPULATE_WRITE on this kernel";
  fresh_mapping m(800);  // a 3 MB result of 4 x 10^5 doubles
  ASSERT_NE(m.data, nullptr);
  ASSERT_EQ(m.resident(), 0u);
  // Not page-aligned at either end: the pages it touches are mapped whole.
  map_unmapped(m.data + 100, m.bytes - 200, 4);
  EXPECT_EQ(m.resident(), 800u);
  for (std::size_t i = 0; i < m.bytes; i += page) ASSERT_EQ(m.data[i], 0) << i;
}

TEST(MapUnmapped, KeepsWhatMappedPagesHold) {
  if (!can_populate()) GTEST_SKIP() << "no MADV_POPULATE_WRITE on this kernel";
  fresh_mapping m(1100);  // more than one 2 MiB piece: runs cut in pieces for the team
  ASSERT_NE(m.data, nullptr);
  // Every other run of 37 pages written first, with their page numbers.
  for (std::size_t p = 0; p < 1100; ++p)
    if ((p / 37) % 2 == 0) m.data[p * page + 5] = static_cast<unsigned char>(p);
  const std::size_t before = m.resident();
  ASSERT_GT(before, 0u);
  ASSERT_LT(before, 1100u);
  map_unmapped(m.data, m.bytes, 3);
  EXPECT_EQ(m.resident(), 1100u);
  for (std::size_t p = 0; p < 1100; ++p)
    ASSERT_EQ(m.data[p * page + 5], (p / 37) % 2 == 0 ? static_cast<unsigned char>(p) : 0) << p;
  // Mapped already: a no-op that changes nothing.
  map_unmapped(m.data, m.bytes, 1);
  EXPECT_EQ(m.resident(), 1100u);
  EXPECT_EQ(m.data[5], 0);
}

TEST(MapUnmapped, EmptyOrUnmappedRangesAreLeftAlone) {
  map_unmapped(nullptr, 1 << 20, 4);
  fresh_mapping m(16);
  ASSERT_NE(m.data, nullptr);
  map_unmapped(m.data, 0, 4);
  EXPECT_EQ(m.resident(), 0u);
  // An address range no mapping holds: mincore fails, nothing is touched.
  unsigned char* gone = m.data;
  ::munmap(m.data, m.bytes);
  m.data = nullptr;
  map_unmapped(gone, 16 * page, 2);
  SUCCEED();
}

TEST(MapUnmapped, ThePrefaultOfLargeArraysStillMapsThem) {
  if (!can_populate()) GTEST_SKIP() << "no MADV_POPULATE_WRITE on this kernel";
  fresh_mapping m(3000);  // 12 MB, above prefault's 8 MB floor
  ASSERT_NE(m.data, nullptr);
  prefault({byte_span{m.data, m.bytes}}, 2);
  EXPECT_EQ(m.resident(), 3000u);
}

}  // namespace
}  // namespace perron

namespace perron {
namespace {

// PERRON_MEMORY_LIMIT and PERRON_GPU_MEMORY_LIMIT: a byte count with an
// optional K, M, G or T (powers of 1024); anything else is one error naming
// the variable, not a limit silently left out ("abc", "-5") or read as a few
// bytes ("2X" was 2).
// A container's or a batch job's memory cgroup: its limit less what it holds
// but the page cache, the least over the levels, in v1's hierarchy and v2's;
// none where no level sets one (v1's 2^63 and v2's "max").
TEST(MemoryLimit, CgroupsLeaveTheirLimitLessWhatTheyHold) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("perron-cgroup-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const auto put = [&](const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  };
  const fs::path v1 = root / "v1", v2 = root / "v2";
  put(root / "cgroup-v1", "12:cpu,cpuacct:/\n4:memory:/jobs/42\n0::/\n");
  put(v1 / "memory.usage_in_bytes", "500\n");
  put(v1 / "memory.limit_in_bytes", "9223372036854771712\n");
  put(v1 / "memory.stat", "total_inactive_file 0\ntotal_active_file 0\n");
  put(v1 / "jobs/42/memory.usage_in_bytes", "3000\n");
  put(v1 / "jobs/42/memory.limit_in_bytes", "10000\n");
  put(v1 / "jobs/42/memory.stat", "cache 1000\ntotal_inactive_file 600\ntotal_active_file 400\n");
  EXPECT_EQ(detail::cgroup_free_bytes((root / "cgroup-v1").string(), v1.string(), v2.string()), 8000.0);
  put(v1 / "jobs/memory.usage_in_bytes", "5000\n");
  put(v1 / "jobs/memory.limit_in_bytes", "6000\n");
  put(v1 / "jobs/memory.stat", "total_inactive_file 0\ntotal_active_file 0\n");
  EXPECT_EQ(detail::cgroup_free_bytes((root / "cgroup-v1").string(), v1.string(), v2.string()), 1000.0);
  put(root / "cgroup-v2", "0::/user.slice/job\n");
  put(v2 / "user.slice/job/memory.current", "7000\n");
  put(v2 / "user.slice/job/memory.max", "max\n");
  put(v2 / "user.slice/job/memory.stat", "anon 5000\nfile 2000\n");
  EXPECT_EQ(detail::cgroup_free_bytes((root / "cgroup-v2").string(), v1.string(), v2.string()), 0.0);
  put(v2 / "user.slice/memory.current", "7000\n");
  put(v2 / "user.slice/memory.max", "20000\n");
  put(v2 / "user.slice/memory.stat", "anon 5000\nfile 2000\n");
  EXPECT_EQ(detail::cgroup_free_bytes((root / "cgroup-v2").string(), v1.string(), v2.string()), 15000.0);
  // A path the mount does not show (a container without a cgroup namespace): its mount's own files.
  put(root / "cgroup-docker", "0::/docker/abc\n");
  put(v2 / "memory.current", "100\n");
  put(v2 / "memory.max", "1100\n");
  EXPECT_EQ(detail::cgroup_free_bytes((root / "cgroup-docker").string(), v1.string(), v2.string()), 1000.0);
  EXPECT_EQ(detail::cgroup_free_bytes((root / "absent").string(), v1.string(), v2.string()), 0.0);
  fs::remove_all(root);
}

TEST(MemoryLimit, ByteCountsWithUnitsAndClearErrors) {
  const std::pair<const char*, double> ok[] = {
      {"1e6", 1e6},        {"8000", 8000.0},         {"8000B", 8000.0},     {"4K", 4096.0},
      {"2MiB", 2097152.0}, {"3mb", 3.0 * 1048576.0}, {"0.5g", 536870912.0}, {"1GB", 1073741824.0}};
  for (const auto& [text, bytes] : ok) {
    ::setenv("PERRON_MEMORY_LIMIT", text, 1);
    EXPECT_EQ(host_memory_limit(), static_cast<std::size_t>(bytes)) << text;
  }
  for (const char* text : {"abc", "-5", "0", "2X", "1GB2", "inf", "nan", "1 G", "G"}) {
    ::setenv("PERRON_MEMORY_LIMIT", text, 1);
    try {
      (void)host_memory_limit();
      ADD_FAILURE() << text << " was taken";
    } catch (const invalid_argument& e) {
      EXPECT_NE(
          std::string(e.what()).find(std::string("PERRON_MEMORY_LIMIT='") + text + "' is not a byte count"),
          std::string::npos)
          << e.what();
    }
  }
  ::unsetenv("PERRON_MEMORY_LIMIT");
  ::setenv("PERRON_GPU_MEMORY_LIMIT", "junk", 1);
  EXPECT_THROW((void)device_memory_limit(), invalid_argument);
  ::setenv("PERRON_GPU_MEMORY_LIMIT", "1M", 1);
  EXPECT_LE(device_memory_limit(), std::size_t(1) << 20);
  ::unsetenv("PERRON_GPU_MEMORY_LIMIT");
}

}  // namespace
}  // namespace perron
