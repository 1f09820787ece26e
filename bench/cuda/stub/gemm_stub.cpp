// CPU-only builds: the GEMM ladder and its cuBLAS reference exist but throw a clear error.
#include "bench/gemm.hpp"
#include "core/error.hpp"

namespace perron {
namespace {
[[noreturn]] void no_cuda() {
  throw cuda_error("perron was built without CUDA (PERRON_CUDA=OFF or no nvcc)");
}
}  // namespace

void gemm(gemm_step, int, int, int, float, const float*, const float*, float, float*, cuda::stream_t) {
  no_cuda();
}
struct cublas_sgemm::impl {};
cublas_sgemm::cublas_sgemm(cuda::stream_t) { no_cuda(); }
cublas_sgemm::~cublas_sgemm() = default;
void cublas_sgemm::operator()(int, int, int, float, const float*, const float*, float, float*) const {
  no_cuda();
}
double median_gpu_us(const std::function<void()>&, cuda::stream_t, int, int) { no_cuda(); }

}  // namespace perron
