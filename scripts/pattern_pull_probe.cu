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
//   rows G      as pattern G, but a row of at most `task` links taken by its id
//               (no task array read), the longer rows' tasks after them
//   cusparse    cusparseSpMV on the CSR with values 1/d_j (ALG1), y = P^T r
//   update      the step's update after either pull (r' = alpha y + c and the
//               residual; the pattern pull also writes x' = r' / d)
// Graphs: generator specs or files (arcs row -> column, duplicates merged).
// Against the device's copy bandwidth (cudaMemcpy device to device) measured
// in the same run; medians of 21 CUDA-event timings after 3 untimed calls;
// every pattern result checked against cuSPARSE's. Written in session 25, run
// in session 27 on an H200: 9-21% slower than cuSPARSE on the web-like graphs
// it was written for, so not built into the solver (docs/PERFORMANCE.md, "A
// pattern pull in the graph's own order, measured and dropped").
// Build beside the GPU build (scripts/gpu-prepare.sh .gpu build-gpu pagerank):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Xcompiler -fopenmp scripts/pattern_pull_probe.cu \
//     build-gpu/libperron_io.a build-gpu/libperron_core.a -lcusparse -lisal -lz -o pattern_pull_probe
//   ./pattern_pull_probe web:1048576:16777216 rmat:20:10000000 ...
// (scripts/gpu-env.sh puts the bundle's libisal on the library path; copy the
// binary into the carried folder after scripts/gpu-prepare.sh, which empties it.)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/formats.hpp"
#include "scripts/probe_cuda.cuh"
#include "scripts/probe_graph.hpp"

using perron::index_t;

// Task t: links [begin[t], end) of row (row[t] & 0x7fffffff); the high bit
// says the row has several tasks (atomicAdd), else the sum is stored.
template <int G, bool gather>
__global__ void pull_tasks(int tasks, const int* __restrict__ trow, const int* __restrict__ tbegin,
                           const int* __restrict__ rp, const int* __restrict__ col,
                           const float* __restrict__ x, float* __restrict__ y, int task) {
  const int lane = threadIdx.x % G;
  const int groups = gridDim.x * blockDim.x / G;
  // The group's lanes alone: the groups of a warp leave the loop at different
  // times, and a group's lanes always move together.
  const unsigned gmask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
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
    for (int off = G / 2; off > 0; off >>= 1) s += __shfl_xor_sync(gmask, s, off, G);
    if (lane == 0) {
      if (rr < 0)
        atomicAdd(y + r, s);
      else
        y[r] = s;
    }
  }
}

// Rows of at most `task` links by row id (group g takes row g), the longer
// rows' tasks (trow/tbegin, every one atomicAdd) after them: no task array
// read for the short rows.
template <int G>
__global__ void pull_rows(int n, int tasks, const int* __restrict__ trow, const int* __restrict__ tbegin,
                          const int* __restrict__ rp, const int* __restrict__ col,
                          const float* __restrict__ x, float* __restrict__ y, int task) {
  const int lane = threadIdx.x % G;
  const int groups = gridDim.x * blockDim.x / G;
  // The group's lanes alone: the groups of a warp leave the loop at different
  // times, and a group's lanes always move together.
  const unsigned gmask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
  for (int t = (blockIdx.x * blockDim.x + threadIdx.x) / G; t < n + tasks; t += groups) {
    int r, b, e;
    if (t < n) {
      r = t;
      b = __ldg(rp + r);
      e = __ldg(rp + r + 1);
      if (e - b > task) continue;  // the group's lanes agree: the same row
    } else {
      r = __ldg(trow + (t - n)) & 0x7fffffff;
      b = __ldg(tbegin + (t - n));
      e = min(__ldg(rp + r + 1), b + task);
    }
    float s = 0;
    for (int k = b + lane; k < e; k += G) s += __ldg(x + __ldcs(col + k));
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) s += __shfl_xor_sync(gmask, s, off, G);
    if (lane == 0) {
      if (t >= n)
        atomicAdd(y + r, s);
      else
        y[r] = s;
    }
  }
}

// The step's update as the pulls would close it: r' = alpha y + c, the
// residual's partial sums (atomicAdd of each warp's: a probe), and for the
// pattern pull x' = r' / d (inv_d: 1/d, 0 for a dangling vertex).
template <bool pattern>
__global__ void update(int n, const float* __restrict__ y, float* __restrict__ r, float* __restrict__ x,
                       const float* __restrict__ inv_d, float* __restrict__ residual) {
  float s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float rn = 0.85f * y[i] + 0.15f / n;
    s += fabsf(rn - r[i]);
    r[i] = rn;
    if constexpr (pattern) x[i] = rn * inv_d[i];
  }
  for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(residual, s);
}

using perron::probe::upload;

int probe(int argc, char** argv) {
  perron::probe::event_timer tm(3, 21);
  {  // the copy bandwidth of this device, this run
    const std::size_t bytes = std::size_t(1) << 30;
    void *p = nullptr, *q = nullptr;
    PERRON_CUDA_CHECK(cudaMalloc(&p, bytes));
    PERRON_CUDA_CHECK(cudaMalloc(&q, bytes));
    const float us =
        tm.median_us([&] { PERRON_CUDA_CHECK(cudaMemcpyAsync(q, p, bytes, cudaMemcpyDeviceToDevice)); });
    std::printf("copy: %.0f GB/s (read + write of 1 GiB)\n", 2.0 * bytes / us * 1e-3);
    PERRON_CUDA_CHECK(cudaFree(p));
    PERRON_CUDA_CHECK(cudaFree(q));
  }
  cusparseHandle_t h;
  PERRON_CUSPARSE_CHECK(cusparseCreate(&h));
  for (int g = 1; g < argc; ++g) {
    const std::string spec = argv[g];
    // A^T's pattern (row i: the sources j of the links j -> i, sorted, distinct)
    const perron::probe::pattern pg = perron::probe::load_pattern(spec);
    const int n = pg.n;
    const std::vector<int>&rp = pg.rp, &col = pg.col, &deg = pg.deg;
    const long long m = static_cast<long long>(col.size());
    std::vector<float> val(m), r(n), x(n), inv_d(n);
    for (long long k = 0; k < m; ++k) val[k] = 1.0f / static_cast<float>(deg[col[k]]);
    for (int i = 0; i < n; ++i) {
      r[i] = static_cast<float>((i * 2654435761u) % 1000003u) / 1000003.0f;
      inv_d[i] = deg[i] ? 1.0f / static_cast<float>(deg[i]) : 0.0f;
      x[i] = r[i] * inv_d[i];
    }
    int *d_rp = upload(rp), *d_col = upload(col);
    float *d_val = upload(val), *d_r = upload(r), *d_x = upload(x), *d_inv = upload(inv_d), *d_y = nullptr,
          *d_z = nullptr, *d_r2 = upload(r), *d_x2 = upload(x), *d_res = nullptr;
    PERRON_CUDA_CHECK(cudaMalloc(&d_res, sizeof(float)));
    PERRON_CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    PERRON_CUDA_CHECK(cudaMalloc(&d_z, n * sizeof(float)));
    // cuSPARSE ALG1
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vr, vy;
    PERRON_CUSPARSE_CHECK(cusparseCreateCsr(&A, n, n, m, d_rp, d_col, d_val, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    PERRON_CUSPARSE_CHECK(cusparseCreateDnVec(&vr, n, d_r, CUDA_R_32F));
    PERRON_CUSPARSE_CHECK(cusparseCreateDnVec(&vy, n, d_y, CUDA_R_32F));
    const float one = 1, zero = 0;
    std::size_t buf = 0;
    PERRON_CUSPARSE_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vr, &zero, vy,
                                                  CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, &buf));
    void* d_buf = nullptr;
    PERRON_CUDA_CHECK(cudaMalloc(&d_buf, std::max<std::size_t>(buf, 1)));
    const float t_cs = tm.median_us([&] {
      PERRON_CUSPARSE_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vr, &zero, vy,
                                         CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, d_buf));
    });
    std::vector<float> ycs(n), yp(n);
    PERRON_CUDA_CHECK(cudaMemcpy(ycs.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    const auto update_us = [&](auto kernel) {
      return tm.median_us([&] { kernel<<<132 * 8, 256>>>(n, d_y, d_r2, d_x2, d_inv, d_res); });
    };
    const float t_up = update_us(update<false>), t_upx = update_us(update<true>);
    std::printf(
        "%s: n %d, links %lld, x %.1f MB; cusparse %.1f us (%.2f ps a link); update %.1f us, "
        "with x' = r'/d %.1f us\n",
        spec.c_str(), n, m, n * 4e-6, t_cs, t_cs * 1e6 / m, t_up, t_upx);
    // One timed pull into d_z, checked against cuSPARSE's y.
    const auto report = [&](int G, const auto& launch) {
      const float t = tm.median_us(launch);
      PERRON_CUDA_CHECK(cudaMemcpy(yp.data(), d_z, n * sizeof(float), cudaMemcpyDeviceToHost));
      double worst = 0;
      for (int i = 0; i < n; ++i)
        worst = std::max(worst, std::abs(double(yp[i]) - ycs[i]) / std::max(1e-30, std::abs(double(ycs[i]))));
      std::printf("; G=%d %.1f us (%.2fx cusparse%s)", G, t, t / t_cs, worst < 1e-3 ? "" : ", WRONG");
    };
    const int threads = 256;
    const auto blocks_for = [&](long long groups, int G) {
      return static_cast<int>(std::clamp<long long>((groups * G + threads - 1) / threads, 1, 132 * 16));
    };
    for (int task : {128, 512}) {
      std::vector<int> trow, tbegin, lrow, lbegin;  // every row's tasks; the long rows' alone
      for (int i = 0; i < n; ++i) {
        const int len = rp[i + 1] - rp[i];
        const int parts = (len + task - 1) / task;
        for (int p = 0; p < parts; ++p) {
          trow.push_back(parts > 1 ? (i | int(0x80000000u)) : i);
          tbegin.push_back(rp[i] + p * task);
          if (parts > 1) {
            lrow.push_back(i);
            lbegin.push_back(rp[i] + p * task);
          }
        }
      }
      const int tasks = static_cast<int>(trow.size()), ltasks = static_cast<int>(lrow.size());
      int *d_trow = upload(trow), *d_tbegin = upload(tbegin), *d_lrow = upload(lrow),
          *d_lbegin = upload(lbegin);
      const auto tasks_of = [&](auto kernel, int G) {
        return [=] {
          PERRON_CUDA_CHECK(cudaMemsetAsync(d_z, 0, n * sizeof(float)));
          kernel<<<blocks_for(tasks, G), threads>>>(tasks, d_trow, d_tbegin, d_rp, d_col, d_x, d_z, task);
        };
      };
      const auto rows_of = [&](auto kernel, int G) {
        return [=] {
          PERRON_CUDA_CHECK(cudaMemsetAsync(d_z, 0, n * sizeof(float)));
          kernel<<<blocks_for(static_cast<long long>(n) + ltasks, G), threads>>>(n, ltasks, d_lrow, d_lbegin,
                                                                                 d_rp, d_col, d_x, d_z, task);
        };
      };
      const float t_idx = tm.median_us(tasks_of(pull_tasks<8, false>, 8));
      std::printf("  tasks of %d links (%d tasks): index only %.1f us (%.0f GB/s of index)", task, tasks,
                  t_idx, 4.0 * m / t_idx * 1e-3);
      report(4, tasks_of(pull_tasks<4, true>, 4));
      report(8, tasks_of(pull_tasks<8, true>, 8));
      report(16, tasks_of(pull_tasks<16, true>, 16));
      report(32, tasks_of(pull_tasks<32, true>, 32));
      std::printf("\n  rows by id, %d long-row tasks", ltasks);
      report(4, rows_of(pull_rows<4>, 4));
      report(8, rows_of(pull_rows<8>, 8));
      report(16, rows_of(pull_rows<16>, 16));
      report(32, rows_of(pull_rows<32>, 32));
      std::printf("\n");
      for (int* p : {d_trow, d_tbegin, d_lrow, d_lbegin}) PERRON_CUDA_CHECK(cudaFree(p));
    }
    PERRON_CUSPARSE_CHECK(cusparseDestroySpMat(A));
    PERRON_CUSPARSE_CHECK(cusparseDestroyDnVec(vr));
    PERRON_CUSPARSE_CHECK(cusparseDestroyDnVec(vy));
    for (void* p : {static_cast<void*>(d_rp), static_cast<void*>(d_col), static_cast<void*>(d_val),
                    static_cast<void*>(d_r), static_cast<void*>(d_x), static_cast<void*>(d_y),
                    static_cast<void*>(d_z), static_cast<void*>(d_inv), static_cast<void*>(d_r2),
                    static_cast<void*>(d_x2), static_cast<void*>(d_res), d_buf})
      PERRON_CUDA_CHECK(cudaFree(p));
  }
  PERRON_CUSPARSE_CHECK(cusparseDestroy(h));
  return 0;
}

int main(int argc, char** argv) {
  try {
    return probe(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pattern_pull_probe: %s\n", e.what());
    return 1;
  }
}
