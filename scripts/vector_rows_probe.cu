// Probe (session 65): does a CSR-vector group that keeps several rows'
// gathers in flight close the gap between a random-column SpMV and its gather
// floor? Standalone: nvcc -O3 -std=c++17 -arch=sm_90 -I. -o /tmp/vrp scripts/vector_rows_probe.cu
//   /tmp/vrp ROWS MEAN_LEN [uniform]   (Poisson row lengths, or uniform in [0, 2 MEAN])
// Prints, in us (median of 101 calls after 10 warm-ups, CUDA events), the gather
// floor (the column stream and one x gather a nonzero, as spmv-bench --floors)
// and csr-vector with V lanes a row and R rows a group in flight, pattern
// (no value read) and valued, each checked against a CPU sum.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "scripts/probe_cuda.cuh"

using namespace perron;

__global__ void floor_kernel(size_t nnz, const int* __restrict__ col, const float* __restrict__ x,
                             float* __restrict__ sink) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  float sum = 0;
  size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; k + 3 * stride < nnz; k += 4 * stride) {
    const int c0 = __ldg(col + k), c1 = __ldg(col + k + stride), c2 = __ldg(col + k + 2 * stride),
              c3 = __ldg(col + k + 3 * stride);
    sum += __ldg(x + c0) + __ldg(x + c1) + __ldg(x + c2) + __ldg(x + c3);
  }
  for (; k < nnz; k += stride) sum += __ldg(x + __ldg(col + k));
  if (sum == -1.2345e30f) *sink = sum;
}

// V lanes a row, R consecutive rows a group: each lane loads its first entry
// of all R rows before the first gather is used (R gathers in flight), then
// walks what is left of each row V at a time.
template <int V, int R, bool Values>
__global__ void __launch_bounds__(256)
    vec_rows(int rows, const int* __restrict__ rp, const int* __restrict__ col, const float* __restrict__ val,
             const float* __restrict__ x, float* __restrict__ y) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t g = t / V;
  const int lane = int(t % V);
  const size_t r0 = g * R;
  float sum[R];
  int beg[R], end[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const size_t r = r0 + i;
    beg[i] = r < size_t(rows) ? __ldg(rp + r) : 0;
    end[i] = r < size_t(rows) ? __ldg(rp + r + 1) : 0;
  }
  int c[R];
  float v[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int k = beg[i] + lane;
    c[i] = k < end[i] ? __ldg(col + k) : -1;
    v[i] = Values && k < end[i] ? __ldg(val + k) : 1.0f;
  }
#pragma unroll
  for (int i = 0; i < R; ++i) sum[i] = c[i] >= 0 ? v[i] * __ldg(x + c[i]) : 0.0f;
#pragma unroll
  for (int i = 0; i < R; ++i)
    for (int k = beg[i] + lane + V; k < end[i]; k += V)
      sum[i] += (Values ? __ldg(val + k) : 1.0f) * __ldg(x + __ldg(col + k));
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int o = V / 2; o > 0; o /= 2) sum[i] += __shfl_down_sync(0xffffffffu, sum[i], o, V);
  if (lane == 0)
#pragma unroll
    for (int i = 0; i < R; ++i)
      if (r0 + i < size_t(rows)) y[r0 + i] = sum[i];
}

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 1000000;
  const double mean = argc > 2 ? std::atof(argv[2]) : 16;
  const bool uniform = argc > 3;
  std::mt19937_64 gen(7);
  std::vector<int> rp(rows + 1, 0), col;
  std::vector<float> val;
  std::poisson_distribution<int> pois(mean);
  std::uniform_int_distribution<int> uni(0, int(2 * mean)), cd(0, rows - 1);
  std::uniform_real_distribution<float> vd(-1, 1);
  for (int r = 0; r < rows; ++r) {
    const int len = uniform ? uni(gen) : pois(gen);
    for (int j = 0; j < len; ++j) {
      col.push_back(cd(gen));
      val.push_back(vd(gen));
    }
    rp[r + 1] = int(col.size());
  }
  const size_t nnz = col.size();
  std::vector<float> x(rows);
  for (auto& e : x) e = vd(gen);
  std::vector<double> ref(rows, 0), refp(rows, 0);
  for (int r = 0; r < rows; ++r)
    for (int k = rp[r]; k < rp[r + 1]; ++k) {
      ref[r] += double(val[k]) * x[col[k]];
      refp[r] += x[col[k]];
    }
  int* d_rp = probe::upload(rp);
  int* d_col = probe::upload(col);
  float* d_val = probe::upload(val);
  float* d_x = probe::upload(x);
  float* d_y = probe::upload(std::vector<float>(rows));
  float* d_sink = probe::upload(std::vector<float>(1));
  int sms = 0;
  PERRON_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned fgrid = unsigned(std::min<size_t>((nnz + 255) / 256, size_t(sms) * 8));
  probe::event_timer timer(10, 101);
  const double fl = timer.median_us([&] { floor_kernel<<<fgrid, 256>>>(nnz, d_col, d_x, d_sink); });
  std::printf("rows %d nnz %zu mean %.2f %s: floor %.2f us\n", rows, nnz, double(nnz) / rows,
              uniform ? "uniform" : "poisson", fl);
  auto run = [&](auto kernel, int V, int R, bool values, const char* name) {
    const size_t threads = (size_t(rows) + R - 1) / R * V;
    const unsigned grid = unsigned((threads + 255) / 256);
    const double us = timer.median_us([&] { kernel<<<grid, 256>>>(rows, d_rp, d_col, d_val, d_x, d_y); });
    std::vector<float> y(rows);
    PERRON_CUDA_CHECK(cudaMemcpy(y.data(), d_y, rows * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    const std::vector<double>& rr = values ? ref : refp;
    for (int r = 0; r < rows; ++r) worst = std::max(worst, std::abs(y[r] - rr[r]));
    std::printf("  %-22s V %2d R %d %s %8.2f us  /floor %.3f  max err %.1e\n", name, V, R,
                values ? "valued " : "pattern", us, us / fl, worst);
  };
#define RUN(V, R)                                      \
  run(vec_rows<V, R, false>, V, R, false, "vec_rows"); \
  run(vec_rows<V, R, true>, V, R, true, "vec_rows");
  RUN(32, 1)
  RUN(16, 1) RUN(16, 2) RUN(16, 4) RUN(8, 1) RUN(8, 2) RUN(8, 4) RUN(4, 4) RUN(4, 8) RUN(32, 2) return 0;
}
