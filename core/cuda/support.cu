// The CUDA support layer's out-of-line parts (core/cuda/support.cuh).
#include <algorithm>
#include <atomic>
#include <limits>
#include <string>

#include "core/cuda/support.cuh"
#include "core/error.hpp"

namespace perron::cuda {
namespace {

// Holds the stream until the host has queued the calls to be timed, so that
// they run back to back on the GPU and the host's launch cost stays out of
// their events. The host opens the gate by writing the batch's ticket into a
// mapped word once every call is queued; until then the kernel polls it. It
// gives up after cap_ns whatever the gate says (a gate that never opens costs
// a bounded wait, never a hang); with no gate (gate null) it waits cap_ns.
// (Before, every batch waited a fixed 1 ms + 25 us a call: 1.1-1.8 ms of
// idle GPU for each of the two batches of every candidate of the SpMV plan's
// trial, about 25 ms of a small graph's 44-113 ms trial; the host queues a
// call in a few microseconds.)
__global__ void spin_kernel(const volatile unsigned* gate, unsigned ticket, unsigned long long cap_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    if (gate && *gate == ticket) return;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < cap_ns);
}

// The spin without a gate must outlast the host's enqueueing of the calls
// queued behind it; with one, the cap is ten times that.
constexpr int timing_batch = 100;                       // calls queued behind one spin
constexpr unsigned long long spin_ns_per_call = 25000;  // generous host enqueue cost per call
constexpr unsigned long long spin_ns_base = 1000000;
constexpr unsigned long long gated_cap_factor = 10;

// The gates: a ring of mapped, page-locked words, allocated once a process
// (portable: every device reads them) and never freed. A batch takes the
// next ticket and the word ticket % gate_slots; two batches in flight at once
// share a word only after gate_slots others started between them, and then
// one of them waits its cap. Null where page-locked memory is refused: the
// fixed spin. Unified addressing (every 64-bit CUDA platform) makes the
// words' host address their device address too.
constexpr unsigned gate_slots = 64;
std::atomic<unsigned> next_ticket{1};

unsigned* gate_words() {
  static unsigned* const words = [] {
    void* p = nullptr;
    if (cudaHostAlloc(&p, gate_slots * sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable) !=
        cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: clear it, time with the fixed spin
      return static_cast<unsigned*>(nullptr);
    }
    auto* w = static_cast<unsigned*>(p);
    for (unsigned i = 0; i < gate_slots; ++i) w[i] = 0;
    return w;
  }();
  return words;
}

// Opens a batch's gate when it goes out of scope: after the batch is queued,
// or when a launch throws (the spin then ends at once, not at its cap).
class gate_opener {
 public:
  gate_opener(unsigned* word, unsigned ticket) : word_(word), ticket_(ticket) {}
  ~gate_opener() {
    if (word_) __atomic_store_n(word_, ticket_, __ATOMIC_RELEASE);
  }
  gate_opener(const gate_opener&) = delete;
  gate_opener& operator=(const gate_opener&) = delete;

 private:
  unsigned* word_;
  unsigned ticket_;
};

}  // namespace

unsigned grid_for(std::size_t threads, unsigned block, const char* what) {
  const std::size_t blocks = std::max<std::size_t>(1, (threads + block - 1) / block);
  if (blocks > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw dimension_error(std::string(what) + ": " + std::to_string(blocks) +
                          " thread blocks exceed the CUDA grid limit 2^31 - 1");
  return static_cast<unsigned>(blocks);
}

unsigned grid_for(std::size_t threads, unsigned block, unsigned max_blocks) {
  const std::size_t blocks = std::max<std::size_t>(1, (threads + block - 1) / block);
  return static_cast<unsigned>(std::min<std::size_t>(blocks, std::max(1u, max_blocks)));
}

bool event::done() const {
  const cudaError_t e = cudaEventQuery(e_);
  if (e == cudaErrorNotReady) return false;
  PERRON_CUDA_CHECK(e);
  return true;
}

std::vector<double> time_calls(const std::function<void()>& launch, cudaStream_t s, int warmup,
                               int iterations, void* flush, std::size_t flush_bytes) {
  if (iterations < 1 || warmup < 0)
    throw invalid_argument("time_calls: need iterations >= 1 and warmup >= 0 (got " +
                           std::to_string(iterations) + ", " + std::to_string(warmup) + ")");
  for (int i = 0; i < warmup; ++i) launch();
  PERRON_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(iterations));
  std::vector<event> start(static_cast<std::size_t>(std::min(timing_batch, iterations)));
  std::vector<event> stop(start.size());
  for (int done = 0; done < iterations; done += timing_batch) {
    const int n = std::min(timing_batch, iterations - done);
    const unsigned long long spin_ns = spin_ns_base + spin_ns_per_call * static_cast<unsigned long long>(n);
    unsigned* const words = gate_words();
    const unsigned ticket = next_ticket.fetch_add(1, std::memory_order_relaxed);
    unsigned* const word = words ? words + ticket % gate_slots : nullptr;
    {
      gate_opener open_after_queueing(word, ticket);
      spin_kernel<<<1, 1, 0, s>>>(word, ticket, word ? gated_cap_factor * spin_ns : spin_ns);
      PERRON_CUDA_CHECK_LAUNCH("spin_kernel");
      for (int i = 0; i < n; ++i) {
        if (flush_bytes > 0) PERRON_CUDA_CHECK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, s));
        start[i].record(s);
        launch();
        stop[i].record(s);
      }
      // Hands the queued work to the GPU before the gate opens (a no-op
      // where launches are submitted at once).
      const cudaError_t q = cudaStreamQuery(s);
      if (q != cudaErrorNotReady) PERRON_CUDA_CHECK(q);
    }
    PERRON_CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) us.push_back(1000.0 * stop[i].ms_since(start[i]));
  }
  return us;
}

}  // namespace perron::cuda
