// What the kernel boundaries around a persistent solve cost, and what
// Hopper's programmatic dependent launch (PDL) takes off them. One "solve"
// is the persistent pull's chain: an init kernel (x_0 and a grid sum, its
// last block closing the state), a cooperative kernel of `steps` steps with a
// grid barrier each (one 1024-thread block an SM), and a kernel writing the
// ranks into mapped host memory. Variants:
//   0 plain launches (the memset of the barrier word between init and solve)
//   1 the memset first, then plain launches
//   2 as 1, the solve and the ranks launched with programmatic stream
//     serialization (each waits at griddepcontrol.wait; init lets its
//     dependents launch at its start)
//   3 no init kernel: the solve computes x_0 itself before a grid barrier
//   4 as 3, the ranks kernel launched as in 2
// Wall: host clock from the first call to the stream's end (median of reps).
// nvcc -O3 -arch=sm_90 -o pdl_probe pdl_probe.cu; ./pdl_probe [reps]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

struct state {
  double dangling;
  int iteration;
  int done;
};

__device__ __forceinline__ void wait_primary() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void let_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

__device__ __forceinline__ void barrier(unsigned long long* arrivals, unsigned long long& passed) {
  __syncthreads();
  if (threadIdx.x == 0) {
    passed += 1;
    const unsigned long long target = passed * gridDim.x;
    asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(arrivals) : "memory");
    for (;;) {
      unsigned long long seen;
      asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(seen) : "l"(arrivals) : "memory");
      if (seen >= target) break;
      __nanosleep(32);
    }
  }
  __syncthreads();
}

__global__ void init(int n, const int* deg, float* x, state* st, double* sum, unsigned* ticket, int pdl) {
  if (pdl) let_dependents();
  double d = 0;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    const float v = deg[k] > 0 ? 1.0f / n / deg[k] : 1.0f / n;
    x[k] = v;
    if (deg[k] == 0) d += v;
  }
  for (int o = 16; o > 0; o >>= 1) d += __shfl_down_sync(0xffffffffu, d, o);
  if ((threadIdx.x & 31) == 0 && d != 0) atomicAdd(sum, d);
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    st->dangling = *sum;
    st->iteration = 0;
    st->done = 0;
    *sum = 0;
    *ticket = 0;
  }
}

// Each step: y[i] = 0.85 * (x[i] + x[(i * 7919) % n]) + c; then swap.
__global__ void __launch_bounds__(1024, 1)
    solve(int n, const int* deg, float* x, float* y, state* st, unsigned long long* arrivals, int steps,
          int self_init, int pdl) {
  if (pdl) wait_primary();
  __shared__ unsigned long long passed;
  if (threadIdx.x == 0) passed = 0;
  const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  if (self_init) {
    for (int k = first; k < n; k += stride) x[k] = deg[k] > 0 ? 1.0f / n / deg[k] : 1.0f / n;
    barrier(arrivals, passed);
  }
  for (int s = 0; s < steps; ++s) {
    const float* a = (s & 1) ? y : x;
    float* b = (s & 1) ? x : y;
    for (int k = first; k < n; k += stride)
      b[k] = 0.85f * (a[k] + a[static_cast<int>((static_cast<long long>(k) * 7919) % n)]) + 0.15f / n;
    barrier(arrivals, passed);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) st->iteration = steps;
}

__global__ void ranks(int n, const float* x, const float* y, const state* st, float* out, int pdl) {
  if (pdl) wait_primary();
  const float* r = (st->iteration & 1) ? y : x;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) out[k] = r[k];
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 200;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int sizes[] = {1000, 30000, 100000, 1000000};
  const int step_counts[] = {1, 20};
  std::printf("n steps variant wall_us(median) min_us\n");
  for (int n : sizes) {
    int* deg;
    float *x, *y, *hout;
    state* st;
    double* sum;
    unsigned* ticket;
    unsigned long long* arrivals;
    CK(cudaMalloc(&deg, n * sizeof(int)));
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&y, n * sizeof(float)));
    CK(cudaMalloc(&st, sizeof(state)));
    CK(cudaMalloc(&sum, sizeof(double)));
    CK(cudaMalloc(&ticket, sizeof(unsigned)));
    CK(cudaMalloc(&arrivals, sizeof(unsigned long long)));
    CK(cudaHostAlloc(&hout, n * sizeof(float), cudaHostAllocMapped));
    float* dout;
    CK(cudaHostGetDevicePointer(&dout, hout, 0));
    std::vector<int> hd(n);
    for (int i = 0; i < n; ++i) hd[i] = i % 10;
    CK(cudaMemcpy(deg, hd.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(sum, 0, sizeof(double)));
    CK(cudaMemset(ticket, 0, sizeof(unsigned)));
    const unsigned init_blocks = std::min((n + 255) / 256, 2 * sms);
    const unsigned out_blocks = std::min((n + 255) / 256, 4 * sms);
    for (int steps : step_counts) {
      for (int variant = 0; variant <= 4; ++variant) {
        const int pdl = variant == 2 || variant == 4;
        const int self_init = variant >= 3;
        std::vector<double> wall;
        for (int r = 0; r < reps + 10; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          if (variant != 0) CK(cudaMemsetAsync(arrivals, 0, sizeof(unsigned long long), s));
          if (!self_init) {
            if (variant == 2) {
              cudaLaunchConfig_t c{};
              c.gridDim = dim3(init_blocks);
              c.blockDim = dim3(256);
              c.stream = s;
              CK(cudaLaunchKernelEx(&c, init, n, (const int*)deg, x, st, sum, ticket, pdl));
            } else {
              init<<<init_blocks, 256, 0, s>>>(n, deg, x, st, sum, ticket, 0);
            }
          }
          if (variant == 0) CK(cudaMemsetAsync(arrivals, 0, sizeof(unsigned long long), s));
          {
            cudaLaunchAttribute at[2]{};
            at[0].id = cudaLaunchAttributeCooperative;
            at[0].val.cooperative = 1;
            at[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            at[1].val.programmaticStreamSerializationAllowed = 1;
            cudaLaunchConfig_t c{};
            c.gridDim = dim3(sms);
            c.blockDim = dim3(1024);
            c.stream = s;
            c.attrs = at;
            c.numAttrs = variant == 2 ? 2 : 1;
            CK(cudaLaunchKernelEx(&c, solve, n, (const int*)deg, x, y, st, arrivals, steps, self_init,
                                  variant == 2 ? 1 : 0));
          }
          {
            cudaLaunchAttribute at[1]{};
            at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            at[0].val.programmaticStreamSerializationAllowed = 1;
            cudaLaunchConfig_t c{};
            c.gridDim = dim3(out_blocks);
            c.blockDim = dim3(256);
            c.stream = s;
            c.attrs = at;
            c.numAttrs = pdl ? 1 : 0;
            CK(cudaLaunchKernelEx(&c, ranks, n, (const float*)x, (const float*)y, (const state*)st, dout,
                                  pdl));
          }
          CK(cudaStreamSynchronize(s));
          const auto t1 = std::chrono::steady_clock::now();
          if (r >= 10) wall.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        }
        std::sort(wall.begin(), wall.end());
        std::printf("%d %d %d %.2f %.2f\n", n, steps, variant, wall[wall.size() / 2], wall[0]);
      }
    }
    cudaFree(deg);
    cudaFree(x);
    cudaFree(y);
    cudaFree(st);
    cudaFree(sum);
    cudaFree(ticket);
    cudaFree(arrivals);
    cudaFreeHost(hout);
  }
  return 0;
}
