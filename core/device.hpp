// What the rest of perron knows about the GPU: whether there is one, RAII device
// memory and a stream handle. No CUDA header leaks from here: when perron is
// built without CUDA, kernels/cuda/stub.cpp implements these functions by
// throwing cuda_error("built without CUDA") and reporting zero devices.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

struct CUstream_st;

namespace perron::cuda {

using stream_t = CUstream_st*;  // == cudaStream_t; nullptr is the default stream

// True when this binary contains the CUDA backend.
bool built() noexcept;
// Throws cuda_error "perron was built without CUDA (...)[: <what> unavailable]":
// the one body of every CPU-only stand-in (the cuda/stub/ files).
[[noreturn]] void throw_no_cuda(const char* what = nullptr);

// Number of usable devices. Any CUDA error (no driver, insufficient driver,
// no device) counts as zero: the CPU path is then used / GPU tests skip.
int device_count() noexcept;
inline bool available() noexcept { return device_count() > 0; }
// Why no GPU can run here, for messages: no usable device, or a build without CUDA.
inline const char* why_unavailable() noexcept {
  return built() ? "no usable CUDA device" : "perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)";
}

// Creates the device's primary context now (a few hundred ms on a cold
// process), so that a caller can overlap it with host work on another thread.
// Errors are left for the first real call to report.
void initialize() noexcept;
// Whether this process has created its primary context (initialize, or any
// device allocation): a GPU call then no longer pays for its creation
// (solvers/pagerank_device.hpp). False without CUDA.
bool context_up() noexcept;

// Makes `device` the calling thread's current one (cudaSetDevice): the
// device free_memory() and the allocations then speak of.
void set_device(int device);

// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MB L2)"
std::string device_description(int device = 0);
// The device's L2 cache in bytes.
std::size_t l2_cache_bytes(int device = 0);
// The shared memory a grid of one block per SM may hold: the SMs times the
// most a block may opt in to (132 x 227 KB on an H100 or H200).
std::size_t grid_shared_memory_bytes(int device = 0);

// Raw memory; every call is checked and throws cuda_error with file and line.
// The copies to the device have landed when they return (core/cuda/device.cu).
void* malloc_bytes(std::size_t bytes);
void free_bytes(void* p) noexcept;
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void copy_device_to_device(void* dst, const void* src, std::size_t bytes);
void synchronize();

// Owning device array of trivially copyable T.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : size_(n) {
    if (n) data_ = static_cast<T*>(malloc_bytes(n * sizeof(T)));
  }
  // From a host vector of any allocator (uninitialized_vector too).
  template <class A>
  explicit device_buffer(const std::vector<T, A>& h) : device_buffer(h.size()) {
    upload(h.data(), h.size());
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      free_bytes(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~device_buffer() { free_bytes(data_); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }

  template <class A>
  void upload(const std::vector<T, A>& h) {
    upload(h.data(), h.size());
  }
  void upload(const T* h, std::size_t n) {
    if (n != size_) resize_discard(n);
    if (n) copy_to_device(data_, h, n * sizeof(T));
  }
  std::vector<T> download() const {
    std::vector<T> h(size_);
    if (size_) copy_to_host(h.data(), data_, bytes());
    return h;
  }
  void download(T* h) const {
    if (size_) copy_to_host(h, data_, bytes());
  }

 private:
  void resize_discard(std::size_t n) { *this = device_buffer(n); }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// Scratch of the deterministic device reductions (core/cuda/reduce.cuh): room for the per-block partials of
// up to max_values simultaneous sums (or `values`, for grid_reduce's capacity), and a counter the last block
// resets to zero.
class reduction_scratch {
 public:
  static constexpr int max_blocks = 1024;
  static constexpr int max_values = 4;
  explicit reduction_scratch(int values = max_values)
      : partials_(static_cast<std::size_t>(max_blocks) * static_cast<std::size_t>(values)), counter_(1) {
    reset_counter();
  }
  double* partials() noexcept { return partials_.data(); }
  unsigned* counter() noexcept { return counter_.data(); }

 private:
  void reset_counter();
  device_buffer<double> partials_;
  device_buffer<unsigned> counter_;
};

}  // namespace perron::cuda
