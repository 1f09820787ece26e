// Whether a thread-per-row ELL pattern pull with the PageRank update fused
// would beat the spmv pull (an ELL SpMV over P^T's values, then the update
// kernel) on graphs of short, even rows in a local order: grids, chains.
// One step each, float, in the graph's own order:
//   spmv  y = P^T r (ELL, 4-byte column + 4-byte value a slot), then
//         r' = alpha y + c / n with |r' - r| and the dangling mass summed
//   fused x'(i) = (alpha sum_k x(col_k) + c / n) / d_i (x = r / d, r for a
//         dangling vertex), the same sums, in one kernel over the pattern
// The sums are doubles added once per block of a grid of 8 blocks an SM
// (a probe: not perron's fixed-point sums). Device time by CUDA events, median of 21 after 3.
// nvcc -O3 -arch=sm_90 -o ell_pull_probe ell_pull_probe.cu; ./ell_pull_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

constexpr int threads = 256;

__device__ void block_add(double a, double b, double* sums) {
  __shared__ double wa[threads / 32], wb[threads / 32];
  for (int o = 16; o > 0; o >>= 1) {
    a += __shfl_down_sync(0xffffffffu, a, o);
    b += __shfl_down_sync(0xffffffffu, b, o);
  }
  if ((threadIdx.x & 31) == 0) {
    wa[threadIdx.x / 32] = a;
    wb[threadIdx.x / 32] = b;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double ta = 0, tb = 0;
    for (int w = 0; w < threads / 32; ++w) {
      ta += wa[w];
      tb += wb[w];
    }
    atomicAdd(sums, ta);
    atomicAdd(sums + 1, tb);
  }
}

__global__ void ell_spmv(int n, int width, const int* __restrict__ col, const float* __restrict__ val,
                         const float* __restrict__ x, float* __restrict__ y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0;
  for (int k = 0; k < width; ++k) {
    const int c = col[static_cast<long long>(k) * n + i];
    if (c >= 0) s += val[static_cast<long long>(k) * n + i] * __ldg(x + c);
  }
  y[i] = s;
}

__global__ void update(int n, float alpha, float c, const float* __restrict__ y, const float* __restrict__ r,
                       float* __restrict__ rn, const unsigned char* __restrict__ dangling, double* sums) {
  double l1 = 0, dm = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float v = alpha * y[i] + c / n;
    l1 += fabs(static_cast<double>(v) - r[i]);
    if (dangling[i]) dm += v;
    rn[i] = v;
  }
  block_add(l1, dm, sums);
}

__global__ void ell_fused(int n, int width, const int* __restrict__ col, const int* __restrict__ deg,
                          const float* __restrict__ x, float* __restrict__ xn, float alpha, float c,
                          double* sums) {
  double l1 = 0, dm = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    double s = 0;
    for (int k = 0; k < width; ++k) {
      const int cc = col[static_cast<long long>(k) * n + i];
      if (cc >= 0) s += __ldg(x + cc);
    }
    const int d = deg[i];
    const double r = static_cast<double>(alpha) * s + static_cast<double>(c) / n;
    const float v = static_cast<float>(d > 0 ? r / d : r);
    const double old = x[i];
    l1 += (d > 0 ? d : 1) * fabs(static_cast<double>(v) - old);
    if (d == 0) dm += v;
    xn[i] = v;
  }
  block_add(l1, dm, sums);
}

struct graph {
  std::string name;
  int n = 0, width = 0;
  std::vector<int> col;   // ELL of P^T, column-major, -1 padding
  std::vector<int> outd;  // out-degree
};

graph grid(int side) {
  graph g;
  g.name = "grid " + std::to_string(side) + "x" + std::to_string(side);
  g.n = side * side;
  g.width = 4;
  g.col.assign(static_cast<size_t>(g.width) * g.n, -1);
  g.outd.assign(g.n, 0);
  for (int r = 0; r < side; ++r)
    for (int q = 0; q < side; ++q) {
      const int i = r * side + q;
      int k = 0;
      const int nb[4][2] = {{r - 1, q}, {r + 1, q}, {r, q - 1}, {r, q + 1}};
      for (auto& p : nb)
        if (p[0] >= 0 && p[0] < side && p[1] >= 0 && p[1] < side) {
          g.col[static_cast<size_t>(k++) * g.n + i] = p[0] * side + p[1];
          g.outd[i]++;
        }
    }
  return g;
}

graph chain(int n) {
  graph g;
  g.name = "chain " + std::to_string(n);
  g.n = n;
  g.width = 1;
  g.col.assign(n, -1);
  g.outd.assign(n, 1);
  g.outd[n - 1] = 0;
  for (int i = 1; i < n; ++i) g.col[i] = i - 1;
  return g;
}

graph random_regular(int n, int width, unsigned seed) {
  graph g;
  g.name = "random " + std::to_string(n) + " x" + std::to_string(width);
  g.n = n;
  g.width = width;
  g.col.assign(static_cast<size_t>(width) * n, -1);
  g.outd.assign(n, 0);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(0, n - 1);
  for (int k = 0; k < width; ++k)
    for (int i = 0; i < n; ++i) {
      const int j = u(rng);
      g.col[static_cast<size_t>(k) * n + i] = j;
      g.outd[j]++;
    }
  return g;
}

int main() {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::printf("graph links | spmv pull: ell spmv + update = step us | fused ell pattern pull us | ratio\n");
  for (graph g : {grid(1600), chain(10000000), grid(500), random_regular(1000000, 10, 7)}) {
    const int n = g.n;
    const size_t slots = static_cast<size_t>(g.width) * n;
    std::vector<float> val(slots, 0.f), x(n), r(n, 1.0f / n);
    std::vector<int> deg = g.outd;
    std::vector<unsigned char> dang(n);
    size_t links = 0;
    for (size_t s = 0; s < slots; ++s)
      if (g.col[s] >= 0) {
        val[s] = 1.0f / g.outd[g.col[s]];
        ++links;
      }
    for (int i = 0; i < n; ++i) {
      x[i] = deg[i] > 0 ? r[i] / deg[i] : r[i];
      dang[i] = deg[i] == 0;
    }
    int *dcol, *ddeg;
    float *dval, *dx, *dxn, *dr, *drn, *dy;
    unsigned char* ddang;
    double* dsums;
    CK(cudaMalloc(&dcol, slots * 4));
    CK(cudaMalloc(&dval, slots * 4));
    CK(cudaMalloc(&ddeg, n * 4));
    CK(cudaMalloc(&dx, n * 4));
    CK(cudaMalloc(&dxn, n * 4));
    CK(cudaMalloc(&dr, n * 4));
    CK(cudaMalloc(&drn, n * 4));
    CK(cudaMalloc(&dy, n * 4));
    CK(cudaMalloc(&ddang, n));
    CK(cudaMalloc(&dsums, 16));
    CK(cudaMemcpy(dcol, g.col.data(), slots * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dval, val.data(), slots * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddeg, deg.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dr, r.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddang, dang.data(), n, cudaMemcpyHostToDevice));
    const unsigned blocks = (n + threads - 1) / threads;
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const unsigned sum_blocks = std::min<unsigned>(blocks, 8u * sms);  // few blocks add to the sums
    auto time = [&](auto&& step) -> float {
      std::vector<float> ms;
      for (int i = 0; i < 24; ++i) {
        cudaEventRecord(e0);
        step();
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        if (i >= 3) ms.push_back(t * 1000);
      }
      std::sort(ms.begin(), ms.end());
      return ms[ms.size() / 2];
    };
    const float t_spmv = time([&] { ell_spmv<<<blocks, threads>>>(n, g.width, dcol, dval, dr, dy); });
    const float t_pull = time([&] {
      ell_spmv<<<blocks, threads>>>(n, g.width, dcol, dval, dr, dy);
      update<<<sum_blocks, threads>>>(n, 0.85f, 0.15f, dy, dr, drn, ddang, dsums);
    });
    const float t_fused = time(
        [&] { ell_fused<<<sum_blocks, threads>>>(n, g.width, dcol, ddeg, dx, dxn, 0.85f, 0.15f, dsums); });
    CK(cudaGetLastError());
    // Check: the fused step's x' times d against the spmv pull's r'.
    std::vector<float> rn(n), xn(n);
    CK(cudaMemcpy(rn.data(), drn, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(xn.data(), dxn, n * 4, cudaMemcpyDeviceToHost));
    double diff = 0;
    for (int i = 0; i < n; ++i)
      diff = std::max(diff, std::abs((deg[i] ? xn[i] * deg[i] : xn[i]) - rn[i]) * 1.0 * n);
    std::printf("%s %zu | %.2f + = %.2f | %.2f | %.2f (max |diff| x n %.2e)\n", g.name.c_str(), links, t_spmv,
                t_pull, t_fused, t_pull / t_fused, diff);
    cudaFree(dcol);
    cudaFree(dval);
    cudaFree(ddeg);
    cudaFree(dx);
    cudaFree(dxn);
    cudaFree(dr);
    cudaFree(drn);
    cudaFree(dy);
    cudaFree(ddang);
    cudaFree(dsums);
  }
  return 0;
}
