#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "core/cuda/check.cuh"
#include "core/device.hpp"
#include "core/memory.hpp"

namespace perron::cuda {

bool built() noexcept { return true; }

[[noreturn]] void throw_no_cuda(const char* what) {
  throw cuda_error(std::string("perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)") +
                   (what ? std::string(": ") + what + " unavailable" : std::string()));
}

int device_count() noexcept {
  // On a machine with nvcc but no GPU (or an old driver) this returns an error
  // such as cudaErrorInsufficientDriver or cudaErrorNoDevice: all mean "none".
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky-free error state
      return 0;
    }
    return n;
  }();
  return count;
}

namespace {
std::atomic<bool> context_created{false};
}  // namespace

void initialize() noexcept {
  if (device_count() == 0) return;
  context_created = cudaFree(nullptr) == cudaSuccess;  // the idiomatic way to force context creation
  cudaGetLastError();
}

bool context_up() noexcept { return context_created.load(std::memory_order_relaxed); }

void set_device(int device) { PERRON_CUDA_CHECK(cudaSetDevice(device)); }

std::size_t free_memory() {
  std::size_t free = 0, total = 0;
  PERRON_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

std::string device_description(int device) {
  // cudaGetDeviceProperties reads every property (milliseconds); a device's
  // do not change while the process runs, so each is read once.
  static std::mutex lock;
  static std::map<int, std::string> known;
  const std::lock_guard<std::mutex> hold(lock);
  if (const auto it = known.find(device); it != known.end()) return it->second;
  cudaDeviceProp p{};
  PERRON_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %d SMs, %.0f MB L2)", p.name, p.major, p.minor,
                p.multiProcessorCount, p.l2CacheSize / 1.0e6);
  return known[device] = buf;
}

std::size_t l2_cache_bytes(int device) {
  int bytes = 0;
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
  return static_cast<std::size_t>(bytes);
}

std::size_t grid_shared_memory_bytes(int device) {
  int sms = 0, per_block = 0;
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(sms) * static_cast<std::size_t>(per_block);
}

void reduction_scratch::reset_counter() {
  PERRON_CUDA_CHECK(cudaMemset(counter_.data(), 0, sizeof(unsigned)));
}

void* malloc_bytes(std::size_t bytes) {
  void* p = nullptr;
  PERRON_CUDA_CHECK(cudaMalloc(&p, bytes));
  context_created.store(true, std::memory_order_relaxed);
  return p;
}

void free_bytes(void* p) noexcept {
  if (p) cudaFree(p);
}

// cudaMemcpy from pageable host memory returns once the bytes are staged, not
// once they have landed, and a device-to-device cudaMemcpy returns at once;
// both copies run on the legacy default stream, which the solvers'
// non-blocking streams do not wait for. So each copy is waited for here: a
// kernel launched after the call on any stream sees the data. (Without this
// the fused and persistent pulls computed garbage ranks on graphs with long
// rows whenever other processes shared the GPU: their setup kernels, on the
// solver's stream, read slice tables still in flight. Session 14, H100: 4 of
// 6 concurrent test processes failed before, 0 of 18 after.)
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  PERRON_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  PERRON_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  PERRON_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
void copy_device_to_device(void* dst, const void* src, std::size_t bytes) {
  PERRON_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
  PERRON_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}
void synchronize() { PERRON_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace perron::cuda
