// Every CUDA and cuSPARSE call and every launch is checked; failures throw
// perron::cuda_error naming the call, the file and the line.
#pragma once

#include <cuda_runtime.h>
#include <cusparse.h>

#include <string>

#include "core/error.hpp"

namespace perron::cuda::detail {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  throw cuda_error(std::string(file) + ":" + std::to_string(line) + ": " + what +
                   " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
[[noreturn]] inline void throw_cusparse(cusparseStatus_t s, const char* what, const char* file, int line) {
  throw cuda_error(std::string(file) + ":" + std::to_string(line) + ": " + what +
                   " failed: " + cusparseGetErrorString(s));
}

}  // namespace perron::cuda::detail

#define PERRON_CUDA_CHECK(call)                                                                             \
  do {                                                                                                      \
    cudaError_t perron_e_ = (call);                                                                         \
    if (perron_e_ != cudaSuccess) ::perron::cuda::detail::throw_cuda(perron_e_, #call, __FILE__, __LINE__); \
  } while (0)

// After every <<<...>>> launch: catches bad configurations immediately (the
// launch itself is asynchronous; execution errors surface at the next checked call).
#define PERRON_CUDA_CHECK_LAUNCH(name)                                                                     \
  do {                                                                                                     \
    cudaError_t perron_e_ = cudaGetLastError();                                                            \
    if (perron_e_ != cudaSuccess) ::perron::cuda::detail::throw_cuda(perron_e_, name, __FILE__, __LINE__); \
  } while (0)

#define PERRON_CUSPARSE_CHECK(call)                                                 \
  do {                                                                              \
    cusparseStatus_t perron_s_ = (call);                                            \
    if (perron_s_ != CUSPARSE_STATUS_SUCCESS)                                       \
      ::perron::cuda::detail::throw_cusparse(perron_s_, #call, __FILE__, __LINE__); \
  } while (0)
