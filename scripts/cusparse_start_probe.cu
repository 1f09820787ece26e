// Probe: what cuSPARSE's first use costs a process, and whether it can be paid
// on a thread beside the host's other work (issue 17 item 4; docs/PERFORMANCE.md,
// "The SpMV trial without cuSPARSE's ALG2; what the first cuSPARSE candidate
// costs", session 76).
//   nvcc -O2 -arch=sm_90 -o cusparse_start_probe scripts/cusparse_start_probe.cu -lcusparse
//   ./cusparse_start_probe MODE [N] [LINKS]
// MODE: plain   context, then each cuSPARSE step timed on the main thread
//       warm    a thread creates and destroys a handle first (as a start-up
//               thread would); then the plain steps
//       keep    the thread's handle is kept and used by the plain steps
//       overlap the thread creates a handle while the main thread uploads
//               and runs a kernel; both timed
// The matrix is a random one of N rows and LINKS nonzeros (float).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#define CK(x)                                                    \
  do {                                                           \
    auto ck_ = (x);                                              \
    if (static_cast<int>(ck_) != 0) {                            \
      std::printf("%s failed: %d\n", #x, static_cast<int>(ck_)); \
      std::exit(1);                                              \
    }                                                            \
  } while (0)

using clk = std::chrono::steady_clock;
static double ms(clk::time_point a) {
  return std::chrono::duration<double, std::milli>(clk::now() - a).count();
}

__global__ void touch(float* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = p[i] * 0.5f + 1.0f;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "plain";
  const int n = argc > 2 ? std::atoi(argv[2]) : 1000000;
  const long links = argc > 3 ? std::atol(argv[3]) : 10000000;
  auto t = clk::now();
  CK(cudaFree(nullptr));
  std::printf("%s: context %.1f ms\n", mode, ms(t));

  // The matrix on the host, then on the device (an upload as a solve's set-up does).
  std::vector<int> rp(n + 1), ci(links);
  std::vector<float> v(links, 1.0f);
  std::mt19937 rng(7);
  for (int i = 0; i <= n; ++i) rp[i] = static_cast<int>((links * long(i)) / n);
  for (long k = 0; k < links; ++k) ci[k] = static_cast<int>(rng() % n);
  int *drp, *dci;
  float *dv, *dx, *dy;
  CK(cudaMalloc(&drp, sizeof(int) * (n + 1)));
  CK(cudaMalloc(&dci, sizeof(int) * links));
  CK(cudaMalloc(&dv, sizeof(float) * links));
  CK(cudaMalloc(&dx, sizeof(float) * n));
  CK(cudaMalloc(&dy, sizeof(float) * n));
  CK(cudaMemset(dx, 0, sizeof(float) * n));

  cusparseHandle_t h = nullptr, kept = nullptr;
  std::thread side;
  double side_ms = 0;
  if (!std::strcmp(mode, "warm") || !std::strcmp(mode, "keep")) {
    const bool keep = !std::strcmp(mode, "keep");
    t = clk::now();
    std::thread([&] {
      auto s = clk::now();
      CK(cusparseCreate(&kept));
      if (!keep) {
        CK(cusparseDestroy(kept));
        kept = nullptr;
      }
      side_ms = ms(s);
    }).join();
    std::printf("%s: the thread's handle %.1f ms\n", mode, side_ms);
  }
  if (!std::strcmp(mode, "overlap")) {
    side = std::thread([&] {
      auto s = clk::now();
      CK(cusparseCreate(&kept));
      side_ms = ms(s);
    });
  }
  t = clk::now();
  CK(cudaMemcpy(drp, rp.data(), sizeof(int) * (n + 1), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dci, ci.data(), sizeof(int) * links, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, v.data(), sizeof(float) * links, cudaMemcpyHostToDevice));
  touch<<<264, 256>>>(dv, links);
  CK(cudaDeviceSynchronize());
  std::printf("%s: upload + kernel %.1f ms\n", mode, ms(t));
  if (side.joinable()) {
    side.join();
    std::printf("%s: the thread's handle %.1f ms (beside the upload)\n", mode, side_ms);
  }

  t = clk::now();
  if (kept) {
    h = kept;
  } else {
    CK(cusparseCreate(&h));
  }
  std::printf("%s: cusparseCreate %.1f ms%s\n", mode, ms(t), kept ? " (the thread's)" : "");
  t = clk::now();
  cusparseHandle_t h2;
  CK(cusparseCreate(&h2));
  std::printf("%s: a second cusparseCreate %.2f ms\n", mode, ms(t));
  CK(cusparseDestroy(h2));

  t = clk::now();
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t X, Y;
  CK(cusparseCreateCsr(&A, n, n, links, drp, dci, dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseCreateDnVec(&X, n, dx, CUDA_R_32F));
  CK(cusparseCreateDnVec(&Y, n, dy, CUDA_R_32F));
  const float one = 1, zero = 0;
  size_t bytes = 0;
  CK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F,
                             CUSPARSE_SPMV_CSR_ALG1, &bytes));
  std::printf("%s: descriptors + bufferSize %.2f ms\n", mode, ms(t));
  void* buf = nullptr;
  t = clk::now();
  CK(cudaMalloc(&buf, bytes ? bytes : 1));
  CK(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F,
                             CUSPARSE_SPMV_CSR_ALG1, buf));
  CK(cudaDeviceSynchronize());
  std::printf("%s: malloc + preprocess %.2f ms\n", mode, ms(t));
  for (int r = 0; r < 3; ++r) {
    t = clk::now();
    CK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F,
                    CUSPARSE_SPMV_CSR_ALG1, buf));
    CK(cudaDeviceSynchronize());
    std::printf("%s: SpMV %d %.3f ms\n", mode, r, ms(t));
  }
  CK(cusparseDestroy(h));
  return 0;
}
