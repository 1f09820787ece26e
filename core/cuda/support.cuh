// The CUDA support layer every .cu file of perron uses: owned events, streams
// and pinned host buffers (RAII, every call checked), the one launch-shape
// helper, and timing of GPU calls with CUDA events. Only .cu files include
// this header; nothing here is visible to CPU-only code.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/stats.hpp"

namespace perron::cuda {

// ---- launch shape ------------------------------------------------------------
// Blocks of `block` threads covering `threads` threads (at least one block);
// throws dimension_error naming `what` past the CUDA grid limit 2^31 - 1.
unsigned grid_for(std::size_t threads, unsigned block, const char* what);
// The same, capped at max_blocks (grid-stride kernels, whose blocks loop).
unsigned grid_for(std::size_t threads, unsigned block, unsigned max_blocks);

// ---- events and streams ------------------------------------------------------
// An owned CUDA event; timing enabled unless flags says otherwise.
class event {
 public:
  explicit event(unsigned flags = cudaEventDefault) {
    PERRON_CUDA_CHECK(cudaEventCreateWithFlags(&e_, flags));
  }
  ~event() {
    if (e_) cudaEventDestroy(e_);
  }
  event(event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  event& operator=(event&& o) noexcept {
    std::swap(e_, o.e_);
    return *this;
  }
  event(const event&) = delete;
  event& operator=(const event&) = delete;

  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) { PERRON_CUDA_CHECK(cudaEventRecord(e_, s)); }
  void synchronize() const { PERRON_CUDA_CHECK(cudaEventSynchronize(e_)); }
  bool done() const;  // cudaEventQuery: true once the work before record() has run
  // Milliseconds from `start` to this event (both recorded and complete).
  float ms_since(const event& start) const {
    float ms = 0;
    PERRON_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

// GPU time of the work enqueued on a stream between start() and stop().
class event_timer {
 public:
  void start(cudaStream_t s) { begin_.record(s); }
  void stop(cudaStream_t s) { end_.record(s); }
  // Waits for stop()'s event, then returns the milliseconds between the two.
  double ms() const {
    end_.synchronize();
    return end_.ms_since(begin_);
  }

 private:
  event begin_, end_;
};

// An owned non-blocking stream (does not synchronize with the legacy default stream).
class stream {
 public:
  stream() { PERRON_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  stream(stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  stream& operator=(stream&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  cudaStream_t get() const { return s_; }
  void synchronize() const { PERRON_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// ---- pinned host memory ------------------------------------------------------
// Page-locked host array of trivially copyable T (asynchronous copies need it;
// with cudaHostAllocMapped the device can also read and write it directly).
template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t n, unsigned flags = cudaHostAllocDefault) : size_(n) {
    void* p = nullptr;
    PERRON_CUDA_CHECK(cudaHostAlloc(&p, (n ? n : 1) * sizeof(T), flags));
    data_ = static_cast<T*>(p);
  }
  ~pinned_buffer() {
    if (data_) cudaFreeHost(data_);
  }
  pinned_buffer(pinned_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* operator->() const noexcept { return data_; }
  // The device's address of mapped memory (cudaHostAllocMapped).
  T* device_pointer() const {
    void* d = nullptr;
    PERRON_CUDA_CHECK(cudaHostGetDevicePointer(&d, data_, 0));
    return static_cast<T*>(d);
  }
  // Copies `count` elements from d_src after the work queued on s, then waits.
  void read(const T* d_src, cudaStream_t s, std::size_t count = 1) {
    PERRON_CUDA_CHECK(cudaMemcpyAsync(data_, d_src, count * sizeof(T), cudaMemcpyDeviceToHost, s));
    PERRON_CUDA_CHECK(cudaStreamSynchronize(s));
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// ---- CUDA graphs ------------------------------------------------------------
struct graph_deleter {
  void operator()(cudaGraph_t g) const noexcept {
    if (g) cudaGraphDestroy(g);
  }
};
struct graph_exec_deleter {
  void operator()(cudaGraphExec_t g) const noexcept {
    if (g) cudaGraphExecDestroy(g);
  }
};
using graph_ptr = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, graph_deleter>;
using graph_exec_ptr = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, graph_exec_deleter>;

// Ends a capture on s that failed half-way, so the stream is usable again,
// and clears the error it left (capture errors are not sticky). A graph the
// capture made is destroyed; one it captured into (cudaStreamBeginCaptureToGraph:
// a conditional node's body, say) belongs to the caller's graph.
inline void abandon_capture(cudaStream_t s, bool into_callers_graph) noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t g = nullptr;
    cudaStreamEndCapture(s, &g);
    if (g && !into_callers_graph) cudaGraphDestroy(g);
  }
  cudaGetLastError();
}

// Adds to g, after the ndeps nodes deps, a conditional node of `type` (a
// WHILE loop or an IF) on handle, and returns its body: an empty graph that g
// owns, to capture into (cudaStreamBeginCaptureToGraph).
inline cudaGraph_t add_conditional(cudaGraph_t g, cudaGraphConditionalHandle handle,
                                   cudaGraphConditionalNodeType type, const cudaGraphNode_t* deps = nullptr,
                                   std::size_t ndeps = 0) {
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = type;
  params.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  PERRON_CUDA_CHECK(cudaGraphAddNode(&node, g, deps, nullptr, ndeps, &params));
  return params.conditional.phGraph_out[0];
}

// The nodes that the next operation captured on s would follow (the
// capture's current dependencies), copied: a node added to the graph by hand
// after the capture ends (a conditional, say) follows them.
inline std::vector<cudaGraphNode_t> capture_leaves(cudaStream_t s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaGraphNode_t* deps = nullptr;
  std::size_t count = 0;
#if CUDART_VERSION >= 13000
  PERRON_CUDA_CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr, &count));
#else
  PERRON_CUDA_CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, &count));
#endif
  if (status != cudaStreamCaptureStatusActive)
    throw cuda_error("capture_leaves: the stream is not capturing");
  return std::vector<cudaGraphNode_t>(deps, deps + count);
}

// ---- timing of GPU calls -----------------------------------------------------
// `iterations` calls of launch() on stream s after `warmup` untimed ones, each
// between its own pair of events, queued behind a spin kernel so that host-side
// launch cost is not measured. With flush_bytes > 0, that much of `flush` is
// rewritten before each timed call (outside its events), so data come from
// DRAM. Microseconds, in call order.
std::vector<double> time_calls(const std::function<void()>& launch, cudaStream_t s, int warmup,
                               int iterations, void* flush = nullptr, std::size_t flush_bytes = 0);

}  // namespace perron::cuda
