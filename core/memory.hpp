// Large host arrays and the cost of first touch. A fresh std::vector of n
// elements is page-faulted in 4 KiB pages as it is filled; on the virtual
// machines perron runs on (CI, the GPU hosts) each fault costs microseconds,
// and faults were over half of make_pagerank_graph's time on cnr-2000. Asking
// for transparent huge pages before the first touch makes that ~500x fewer
// faults. Advice only: where THP is off nothing changes but the hint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace perron {

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte: an output array
// that a call writes while it still reads an input (spmv's y and x, a
// solver's x and b) gives neither the answer nor an error, so callers refuse it.
inline bool arrays_overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) noexcept {
  const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return a_bytes > 0 && b_bytes > 0 && pa < pb + b_bytes && pb < pa + a_bytes;
}

// madvise(MADV_HUGEPAGE) over the 2 MiB-aligned interior of [data, data + bytes);
// a no-op below 4 MiB or where the platform has no such advice.
void advise_huge_pages(void* data, std::size_t bytes);

// Maps the pages of each [data, data + bytes) now (MADV_POPULATE_WRITE, Linux
// 5.14+; elsewhere a no-op), the spans cut into pieces shared by `threads`
// threads. The kernel zeroes every fresh page it maps; left to first touch,
// that zeroing runs inside whichever single-threaded fill (std::vector::resize)
// reaches the array first, and it was two thirds of a cache reload's time.
struct byte_span {
  void* data;
  std::size_t bytes;
};
void prefault(const std::vector<byte_span>& spans, unsigned threads);

// Maps now only the pages of [data, data + bytes) that are not mapped yet
// (mincore, then MADV_POPULATE_WRITE on each run of them, in pieces shared by
// `threads` threads); a no-op where every page is mapped, which costs the
// mincore call (2-8 us for 3 MB). For arrays below fresh_prefault_bytes that
// the C library may take fresh from the kernel or from its warm heap,
// depending on what the process freed before: the GPU solver maps its result
// while the device runs, where the receive's widening team once took the
// faults of 780 fresh pages at 0.4-0.9 ms against 0.02-0.03 warm (H200 host,
// docs/PERFORMANCE.md, "A receive's stalls ... session 49").
void map_unmapped(void* data, std::size_t bytes, unsigned threads);

// The threads prefault may use: OpenMP's count for a parallel region here.
unsigned host_threads();

// OpenMP threads for a loop over `work` items: one below two `grain`s of
// them (a parallel region's start-up costs about what that much work takes),
// else all host_threads(). Never a team in between: libgomp ends the threads
// a smaller team leaves idle and creates them again when a larger one starts
// (team_scope below), so teams sized to each loop's work cost more, wherever
// regions of different work follow each other, than idle threads in a team
// of all (docs/PERFORMANCE.md, "One team a solve", session 45).
inline constexpr std::size_t parallel_grain = std::size_t(1) << 15;
int threads_for_work(std::size_t work, std::size_t grain = parallel_grain);

// The team of an iterative solve whose step does `work` items (its regions
// all run on it, team_scope below): one below two grains, else a thread per
// half grain, at most the threads allowed and, from 8 processors up, all
// processors but one (unless OMP_NUM_THREADS is set: threads_chosen_by_user
// below). Teams of every core sharing the machine with one busy
// process wait a time slice at each of the step's barriers for a thread that
// shares its core (libgomp's waiting threads spin): cnr-2000's CPU PageRank
// took 527 ms against 44 quiet on 16 threads, 50 on 15 (H200 host,
// docs/PERFORMANCE.md, session 46). The processors, not the threads allowed,
// set the cap, so that the team asked for again inside its own scope is the
// same (a cap of the threads allowed less one shrank it by one each time).
int solve_team(std::size_t work, std::size_t grain = parallel_grain);

// The threads a run's parallel regions may take (a team_scope of it around a
// command or a call from Python): those allowed, and from 8 processors up
// every processor but one, unless the user chose the count (OMP_NUM_THREADS
// set). Beside one busy process, regions of every core wait for the thread
// that shares its core: on the H200 host (16 processors) loading and
// converting facebook-combined took 77 ms against 5 quiet, on 15 threads
// 4.8; cnr-2000 94 -> 23 ms, rmat:20:10000000 178 -> 99; quiet, the 15
// threads cost the largest load 5% (web:1048576:16777216, 179 -> 190 ms;
// docs/PERFORMANCE.md, session 47). Never more than thread_ceiling(); note,
// where given, gets a line for the user when that cut the count asked for.
int process_team(std::string* note = nullptr);
// The most threads a run starts whatever OMP_NUM_THREADS says: 64 a processor
// (no region here gains past a few) and half the user's process limit
// (RLIMIT_NPROC counts threads). libgomp faults where it cannot start a
// team's threads: 'OMP_NUM_THREADS=100000 pagerank wiki-Vote.txt' died of
// SIGSEGV in GOMP_parallel under ulimit -u 96365.
int thread_ceiling();
// Whether the user set the thread count (OMP_NUM_THREADS): then teams are
// not capped for the machine's sake (process_team, dist::session).
bool threads_chosen_by_user();

// A region of `team` threads that does nothing: a later region of that team
// finds them made and awake (libgomp lets them spin a while before they
// sleep). The GPU solver starts its widening team so while the device runs:
// a team larger than the last region's creates threads (40-75 us each on the
// H200 host), which would otherwise start inside the receive
// (docs/PERFORMANCE.md, "One team a solve", session 45).
void start_team(int team);

// While it lives, the calling thread's parallel regions take at most `team`
// threads (OpenMP's nthreads-var, and with it host_threads() and
// threads_for_work): an iterative solve sets it once, from the work of its
// step, so that its other regions (vector updates, sums, extrapolations) run
// on the step's team. libgomp ends the threads a smaller team leaves idle and
// creates them again when a larger team starts, 40-75 us a thread on the H200
// host: CG on 2 x 10^4 unknowns took 19-25 ms a heat1d step on 16 cores, its
// SpMV on 5 threads and its vector updates on 16, and 1.1 ms with every
// region on 4 (docs/PERFORMANCE.md, "One team a solve", session 45).
class team_scope {
 public:
  explicit team_scope(int team);
  ~team_scope();
  team_scope(const team_scope&) = delete;
  team_scope& operator=(const team_scope&) = delete;

 private:
  int saved_;
};

// n copies of `fill` in storage advised for huge pages before it is touched.
// threads > 1: an array of fresh_prefault_bytes or more has its pages mapped
// by that many threads first (prefault), where one thread's fill would fault
// them in with nothing to overlap it: the GPU solver's ranks of 10^7 vertices
// took 13-15 ms of a solve with 4 threads, 6-10 with 16 (H100 host,
// docs/PERFORMANCE.md). Smaller arrays may come from the C library's heap,
// already mapped, where the advice costs more than it saves.
inline constexpr std::size_t fresh_prefault_bytes = std::size_t(32) << 20;  // glibc's largest mmap threshold
// That storage for n elements reserved in the empty vector v.
template <class Vector>
void reserve_fresh(Vector& v, std::size_t n, unsigned threads) {
  using T = typename Vector::value_type;
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
  if (threads > 1 && n * sizeof(T) >= fresh_prefault_bytes)
    prefault({byte_span{v.data(), n * sizeof(T)}}, threads);
}
template <class T>
std::vector<T> fresh_vector(std::size_t n, const T& fill = T(), unsigned threads = 1) {
  std::vector<T> v;
  reserve_fresh(v, n, threads);
  v.resize(n, fill);
  return v;
}

// An allocator whose value-initialization writes nothing: resize() of a
// vector of one (or s) ranks per vertex then maps no page and zeroes nothing;
// each page is first touched by the thread that writes its values. For arrays
// every element of which is written before it is read (the solvers' results).
// A single-threaded zero fill of 80 MB cost 8 ms on the H200 host, 35 times a
// one-step GPU solve of chain:10000000 (docs/PERFORMANCE.md, "The result's
// memory").
template <class T>
struct default_init_allocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = default_init_allocator<U>;
  };
  default_init_allocator() = default;
  template <class U>
  default_init_allocator(const default_init_allocator<U>&) noexcept {}
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0)
      ::new (static_cast<void*>(p)) U;
    else
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T>
using uninitialized_vector = std::vector<T, default_init_allocator<T>>;

// n elements in that storage, not written (below fresh_prefault_bytes the
// writer's first touch maps the pages).
template <class T>
uninitialized_vector<T> fresh_uninitialized(std::size_t n, unsigned threads = 1) {
  uninitialized_vector<T> v;
  reserve_fresh(v, n, threads);
  v.resize(n);
  return v;
}

// The elements of [first, last) (converted to T) in such storage.
template <class T, class Iterator>
std::vector<T> fresh_copy(Iterator first, Iterator last) {
  std::vector<T> v;
  reserve_fresh(v, static_cast<std::size_t>(last - first), 1);
  v.assign(first, last);
  return v;
}

// The memory perron may plan to use on this host: the memory free now
// (MemAvailable of /proc/meminfo: free pages plus the page cache the kernel
// can drop; physical memory where that cannot be read), less where the
// process's memory cgroup or its address-space limit (ulimit -v) leaves
// less, or less when the
// environment variable PERRON_MEMORY_LIMIT gives a byte count (8e9, or with
// K, M, G or T, powers of 1024: 8G); invalid_argument naming the variable
// for anything else.
std::size_t host_memory_limit();

namespace detail {
// What the memory cgroups of the process that `proc_cgroup` describes
// (/proc/self/cgroup) leave free: each level's limit less what it holds but
// its page cache, the least over the cgroup and its parents, in the v1
// hierarchy under v1_root (/sys/fs/cgroup/memory) and v2's under v2_root
// (/sys/fs/cgroup); 0 where none sets a limit. host_memory_limit() counts it.
double cgroup_free_bytes(const std::string& proc_cgroup, const std::string& v1_root,
                         const std::string& v2_root);
}  // namespace detail

// Throws memory_error, a dimension_error ("<what> needs about X GB of memory,
// more than the Y GB free on this host"), when `bytes` exceeds host_memory_limit(): a small
// file that declares 2^31 - 1 vertices must end in a clear error, not in
// the out-of-memory killer half-way through filling arrays.
void check_host_memory(double bytes, const std::string& what);

// check_host_memory for data that grows, `held` of its `bytes` in use already
// (out of the memory free, but not of PERRON_MEMORY_LIMIT's allowance): a
// parse's arrays window by window (io/text_input.hpp check_parse_growth).
void check_host_memory_holding(double bytes, double held, const std::string& what);

namespace cuda {
// Bytes free on the current device now (cudaMemGetInfo; core/cuda/device.cu,
// cuda_error in CPU-only builds); creates the context if there is none yet.
std::size_t free_memory();
}  // namespace cuda

// The GPU memory perron may plan to use: what device 0 has free now
// (cudaMemGetInfo), or less when PERRON_GPU_MEMORY_LIMIT gives a byte count
// (as PERRON_MEMORY_LIMIT's); with no usable GPU, that count alone (SIZE_MAX
// when unset).
std::size_t device_memory_limit();

// The same refusal for the GPU: memory_error ("<what> needs about X GB of
// GPU memory, more than the Y GB free on the GPU") when `bytes` exceeds
// device_memory_limit(). Called before a solve's large device allocations.
void check_device_memory(double bytes, const std::string& what);

// The refusal's text: "<what> needs about X of <kind>, more than the Y <where>"
// ("1.2 GB", "350.0 MB", "512 bytes"); a pure function for tests.
std::string memory_refusal(double bytes, double limit, const std::string& what, const std::string& kind,
                           const std::string& where);

}  // namespace perron
