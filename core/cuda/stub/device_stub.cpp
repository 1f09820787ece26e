// CPU-only builds: the CUDA entry points exist but report no device and throw
// a clear error if called anyway.
#include "core/device.hpp"
#include "core/error.hpp"

namespace perron::cuda {
namespace {
[[noreturn]] void no_cuda() {
  throw cuda_error("perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)");
}
}  // namespace

bool built() noexcept { return false; }
int device_count() noexcept { return 0; }
void initialize() noexcept {}
std::string device_description(int) { no_cuda(); }
void* malloc_bytes(std::size_t) { no_cuda(); }
void free_bytes(void*) noexcept {}
void copy_to_device(void*, const void*, std::size_t) { no_cuda(); }
void copy_to_host(void*, const void*, std::size_t) { no_cuda(); }
void copy_device_to_device(void*, const void*, std::size_t) { no_cuda(); }
void synchronize() { no_cuda(); }
void reduction_scratch::reset_counter() { no_cuda(); }

}  // namespace perron::cuda
