// CPU-only builds: the CUDA entry points exist but report no device and throw
// a clear error if called anyway.
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"

namespace perron::cuda {
[[noreturn]] void throw_no_cuda(const char* what) {
  throw cuda_error(std::string("perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)") +
                   (what ? std::string(": ") + what + " unavailable" : std::string()));
}

bool built() noexcept { return false; }
int device_count() noexcept { return 0; }
void initialize() noexcept {}
bool context_up() noexcept { return false; }
std::size_t free_memory() { throw_no_cuda(); }
std::string device_description(int) { throw_no_cuda(); }
std::size_t l2_cache_bytes(int) { throw_no_cuda(); }
std::size_t grid_shared_memory_bytes(int) { throw_no_cuda(); }
void set_device(int) { throw_no_cuda(); }
void* malloc_bytes(std::size_t) { throw_no_cuda(); }
void free_bytes(void*) noexcept {}
void copy_to_device(void*, const void*, std::size_t) { throw_no_cuda(); }
void copy_to_host(void*, const void*, std::size_t) { throw_no_cuda(); }
void copy_device_to_device(void*, const void*, std::size_t) { throw_no_cuda(); }
void synchronize() { throw_no_cuda(); }
void reduction_scratch::reset_counter() { throw_no_cuda(); }

}  // namespace perron::cuda
