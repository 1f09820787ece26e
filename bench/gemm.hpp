// The GEMM ladder of the course (lecture-slides-gemm-spmv.txt): fp32 row-major
// C = alpha A B + beta C on the GPU, one kernel per step, plus the references
// the benchmark and the tests hold them to (cuBLAS SGEMM in pure fp32) and the
// timing of GPU calls for programs that cannot include CUDA headers.
//
// Every step is correct for any M, N, K >= 0 (partial tiles are guarded and
// zero-filled; the float4 paths run only when K and N are multiples of 4 and
// the pointers are 16-byte aligned). With beta == 0, C is write-only.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "core/device.hpp"
#include "core/names.hpp"

namespace perron {

enum class gemm_step {
  naive,        // 0: one thread per element of C, operands from global memory
  shared_tile,  // 1: 32 x 32 tiles of A and B staged in shared memory
  coarsened,    // 2: each thread computes 8 elements of a column of C
  wide_loads,   // 3: step 2 with the tiles moved by float4 loads and stores
  rectangular,  // 4: step 3 with 64 x 64 tiles of C and a shorter K tile (BK = 16)
  register_2d,  // 5: 128 x 128 x 8 tiles, 8 x 8 register block per thread, A transposed in shared
  warp_tiled,   // 6: step 5 with 64 x 32 warp tiles and double-buffered shared memory
};

inline constexpr name_table<gemm_step, 7> gemm_step_names{{
    {gemm_step::naive, "naive"},
    {gemm_step::shared_tile, "shared-tile"},
    {gemm_step::coarsened, "coarsened"},
    {gemm_step::wide_loads, "wide-loads"},
    {gemm_step::rectangular, "rectangular"},
    {gemm_step::register_2d, "register-2d"},
    {gemm_step::warp_tiled, "warp-tiled"},
}};

constexpr std::string_view name(gemm_step s) { return name_in(gemm_step_names, s); }
// Every step, in ladder order.
inline std::vector<gemm_step> gemm_steps() {
  std::vector<gemm_step> v;
  for (const auto& entry : gemm_step_names) v.push_back(entry.first);
  return v;
}

// C = alpha A B + beta C, row-major, A m x k, B k x n, C m x n, device
// pointers; enqueued on `stream`, no synchronization.
void gemm(gemm_step step, int m, int n, int k, float alpha, const float* d_a, const float* d_b, float beta,
          float* d_c, cuda::stream_t stream = nullptr);

// cuBLAS SGEMM on the same row-major operands, forced to pure fp32 (default
// math mode: no TF32, no tensor cores), bound to one stream.
class cublas_sgemm {
 public:
  explicit cublas_sgemm(cuda::stream_t stream = nullptr);
  ~cublas_sgemm();
  cublas_sgemm(const cublas_sgemm&) = delete;
  cublas_sgemm& operator=(const cublas_sgemm&) = delete;

  void operator()(int m, int n, int k, float alpha, const float* d_a, const float* d_b, float beta,
                  float* d_c) const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// Median GPU time in microseconds of `runs` calls of launch() on `stream`
// after `warmup` untimed ones (CUDA events, cuda::time_calls).
double median_gpu_us(const std::function<void()>& launch, cuda::stream_t stream, int warmup, int runs);

}  // namespace perron
