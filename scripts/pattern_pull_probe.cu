// Can a pattern pull in the graph's own order beat cuSPARSE on graphs whose
// order is already local (web crawls: sites of consecutive pages)? There the
// fused pull's in-degree order scatters the sites, and the SpMV pull
// (cuSPARSE, values of 4-8 bytes a link) is the faster (docs/PERFORMANCE.md,
// "Local graphs"). This probe times, on the CSR of P^T's pattern in the
// given order, y = P^T r computed as
//   pattern G   y_i = sum_{j -> i} x_j with x_j = r_j / d_j (no values): the
//               links of each row cut into tasks of at most `task` links, a
//               group of G lanes per task reading its links consecutively (so
//               a row's sorted, local sources share sectors), a row of several
//               tasks summed by atomicAdd (a probe: not deterministic)
//   index only  the same tasks summing the column indices (no gathers): the
//               floor of streaming the index
//   cusparse    cusparseSpMV on the CSR with values 1/d_j (ALG1), y = P^T r
// against the device's copy bandwidth (cudaMemcpy device to device) measured
// in the same run; medians of 21 CUDA-event timings after 3 untimed calls;
// every pattern result checked against cuSPARSE's. Written in session 25 after
// the windowed order's runs and built then, but NOT yet run: the session's
// device time was spent (docs/PERFORMANCE.md, "The fused pull's windowed order").
// Build beside the GPU build (scripts/gpu-prepare.sh .gpu build-gpu pagerank):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Xcompiler -fopenmp scripts/pattern_pull_probe.cu \
//     build-gpu/libperron_io.a build-gpu/libperron_core.a -lcusparse -lz -o pattern_pull_probe
//   ./pattern_pull_probe web:1048576:16777216 rmat:20:10000000 ...
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/formats.hpp"
#include "io/synthetic.hpp"

using perron::index_t;

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)
#define CS(x)                                                               \
  do {                                                                      \
    cusparseStatus_t s_ = (x);                                              \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                    \
      std::fprintf(stderr, "%s:%d: cusparse %d\n", __FILE__, __LINE__, s_); \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

// Task t: links [begin[t], end) of row (row[t] & 0x7fffffff); the high bit
// says the row has several tasks (atomicAdd), else the sum is stored.
template <int G, bool gather>
__global__ void pull_tasks(int tasks, const int* __restrict__ trow, const int* __restrict__ tbegin,
                           const int* __restrict__ rp, const int* __restrict__ col,
                           const float* __restrict__ x, float* __restrict__ y, int task) {
  const int lane = threadIdx.x % G;
  const int groups = gridDim.x * blockDim.x / G;
  for (int t = (blockIdx.x * blockDim.x + threadIdx.x) / G; t < tasks; t += groups) {
    const int rr = __ldg(trow + t), r = rr & 0x7fffffff, b = __ldg(tbegin + t);
    const int e = min(__ldg(rp + r + 1), b + task);
    float s = 0;
    for (int k = b + lane; k < e; k += G) {
      const int c = __ldcs(col + k);
      if constexpr (gather)
        s += __ldg(x + c);
      else
        s += static_cast<float>(c & 1);
    }
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off, G);
    if (lane == 0) {
      if (rr < 0)
        atomicAdd(y + r, s);
      else
        y[r] = s;
    }
  }
}

struct timer {
  cudaEvent_t a, b;
  timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  template <class F>
  float median_us(F f) {
    for (int i = 0; i < 3; ++i) f();
    std::vector<float> v;
    for (int i = 0; i < 21; ++i) {
      CK(cudaEventRecord(a));
      f();
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      v.push_back(ms * 1e3f);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
};

template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  CK(cudaMalloc(&d, std::max<std::size_t>(h.size(), 1) * sizeof(T)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

int main(int argc, char** argv) {
  timer tm;
  {  // the copy bandwidth of this device, this run
    const std::size_t bytes = std::size_t(1) << 30;
    void *p = nullptr, *q = nullptr;
    CK(cudaMalloc(&p, bytes));
    CK(cudaMalloc(&q, bytes));
    const float us = tm.median_us([&] { CK(cudaMemcpyAsync(q, p, bytes, cudaMemcpyDeviceToDevice)); });
    std::printf("copy: %.0f GB/s (read + write of 1 GiB)\n", 2.0 * bytes / us * 1e-3);
    CK(cudaFree(p));
    CK(cudaFree(q));
  }
  cusparseHandle_t h;
  CS(cusparseCreate(&h));
  for (int g = 1; g < argc; ++g) {
    const std::string spec = argv[g];
    const perron::csr_matrix<float> at = perron::io::generate_graph_transpose<float>(spec);
    const int n = at.rows;
    const long long m = static_cast<long long>(at.nnz());
    std::vector<int> deg(n, 0);
    for (long long k = 0; k < m; ++k) ++deg[at.col_idx[k]];
    std::vector<float> val(m), r(n), x(n);
    for (long long k = 0; k < m; ++k) val[k] = 1.0f / static_cast<float>(deg[at.col_idx[k]]);
    for (int i = 0; i < n; ++i) {
      r[i] = static_cast<float>((i * 2654435761u) % 1000003u) / 1000003.0f;
      x[i] = deg[i] ? r[i] / static_cast<float>(deg[i]) : 0.0f;
    }
    std::vector<int> rp(at.row_ptr.begin(), at.row_ptr.end()), col(at.col_idx.begin(), at.col_idx.end());
    int *d_rp = upload(rp), *d_col = upload(col);
    float *d_val = upload(val), *d_r = upload(r), *d_x = upload(x), *d_y = nullptr, *d_z = nullptr;
    CK(cudaMalloc(&d_y, n * sizeof(float)));
    CK(cudaMalloc(&d_z, n * sizeof(float)));
    // cuSPARSE ALG1
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vr, vy;
    CS(cusparseCreateCsr(&A, n, n, m, d_rp, d_col, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CS(cusparseCreateDnVec(&vr, n, d_r, CUDA_R_32F));
    CS(cusparseCreateDnVec(&vy, n, d_y, CUDA_R_32F));
    const float one = 1, zero = 0;
    std::size_t buf = 0;
    CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vr, &zero, vy, CUDA_R_32F,
                               CUSPARSE_SPMV_CSR_ALG1, &buf));
    void* d_buf = nullptr;
    CK(cudaMalloc(&d_buf, std::max<std::size_t>(buf, 1)));
    const float t_cs = tm.median_us([&] {
      CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vr, &zero, vy, CUDA_R_32F,
                      CUSPARSE_SPMV_CSR_ALG1, d_buf));
    });
    std::vector<float> ycs(n), yp(n);
    CK(cudaMemcpy(ycs.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("%s: n %d, links %lld, x %.1f MB; cusparse %.1f us (%.2f ps a link)\n", spec.c_str(), n, m,
                n * 4e-6, t_cs, t_cs * 1e6 / m);
    for (int task : {128, 512}) {
      std::vector<int> trow, tbegin;
      for (int i = 0; i < n; ++i) {
        const int len = rp[i + 1] - rp[i];
        const int parts = (len + task - 1) / task;
        for (int p = 0; p < parts; ++p) {
          trow.push_back(parts > 1 ? (i | int(0x80000000u)) : i);
          tbegin.push_back(rp[i] + p * task);
        }
      }
      const int tasks = static_cast<int>(trow.size());
      int *d_trow = upload(trow), *d_tbegin = upload(tbegin);
      const auto run = [&](auto kernel, int G, float* out) {
        const int threads = 256;
        const long long want = (static_cast<long long>(tasks) * G + threads - 1) / threads;
        const int blocks = static_cast<int>(std::min<long long>(want, 132 * 16));
        CK(cudaMemsetAsync(out, 0, n * sizeof(float)));
        kernel<<<blocks, threads>>>(tasks, d_trow, d_tbegin, d_rp, d_col, d_x, out, task);
      };
      const float t_idx = tm.median_us([&] { run(pull_tasks<8, false>, 8, d_z); });
      std::printf("  tasks of %d links (%d tasks): index only %.1f us (%.0f GB/s of index)", task, tasks,
                  t_idx, 4.0 * m / t_idx * 1e-3);
#define PROBE(G)                                                                                             \
  {                                                                                                          \
    const float t = tm.median_us([&] { run(pull_tasks<G, true>, G, d_z); });                                 \
    CK(cudaMemcpy(yp.data(), d_z, n * sizeof(float), cudaMemcpyDeviceToHost));                               \
    double worst = 0;                                                                                        \
    for (int i = 0; i < n; ++i)                                                                              \
      worst = std::max(worst, std::abs(double(yp[i]) - ycs[i]) / std::max(1e-30, std::abs(double(ycs[i])))); \
    std::printf("; G=%d %.1f us (%.2fx cusparse%s)", G, t, t / t_cs, worst < 1e-3 ? "" : ", WRONG");         \
  }
      PROBE(4) PROBE(8) PROBE(16) PROBE(32) std::printf("\n");
      CK(cudaFree(d_trow));
      CK(cudaFree(d_tbegin));
    }
    CS(cusparseDestroySpMat(A));
    CS(cusparseDestroyDnVec(vr));
    CS(cusparseDestroyDnVec(vy));
    for (void* p : {static_cast<void*>(d_rp), static_cast<void*>(d_col), static_cast<void*>(d_val),
                    static_cast<void*>(d_r), static_cast<void*>(d_x), static_cast<void*>(d_y),
                    static_cast<void*>(d_z), d_buf})
      CK(cudaFree(p));
  }
  CS(cusparseDestroy(h));
}
