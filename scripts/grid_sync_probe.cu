// What one step of the persistent pull's loop costs without its work: a loop
// of `steps` grid barriers in one cooperative launch of G blocks of 1024
// threads, alone and with the per-step pieces the persistent kernel adds
// (H100 figures in docs/PERFORMANCE.md, "Persistent pull, resident"):
//   0 cooperative_groups grid sync alone
//   1 + two slot atomics per block before it and the slot read after it
//   2 + one cut-row hand-off per block (a write, a device-scope acq_rel
//     fetch_add, an acquire fence, an L2 read), as contribute() does
//   3 a hand-rolled barrier instead (one red.release.gpu per block on a
//     monotonic counter, thread 0 spinning with ld.acquire.gpu)
//   4 as 3 with 1 + 2's pieces
// nvcc -O3 -std=c++17 -arch=sm_90 -I. -o grid_sync_probe scripts/grid_sync_probe.cu; ./grid_sync_probe
#include <cooperative_groups.h>

#include <cstdio>
#include <cuda/atomic>

#include "scripts/probe_cuda.cuh"

__global__ void __launch_bounds__(1024, 1) probe(int mode, int steps, unsigned long long* slots,
                                                 unsigned* count, double* part, unsigned* bar, double* out) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  double acc = 0;
  for (int k = 0; k < steps; ++k) {
    if (mode == 2 || mode == 4) {
      if (threadIdx.x == 0) {
        part[blockIdx.x] = k;
        ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> c(count[k & 1]);
        c.fetch_add(1u, ::cuda::memory_order_acq_rel);
        ::cuda::atomic_thread_fence(::cuda::memory_order_acquire, ::cuda::thread_scope_device);
        acc += __ldcg(part + (blockIdx.x + 1) % gridDim.x);
      }
    }
    if (mode == 1 || mode == 2 || mode == 4) {
      __syncthreads();
      if (threadIdx.x == 0) {
        atomicAdd(slots + 2 * (k % 3), 1ull);
        atomicAdd(slots + 2 * (k % 3) + 1, 1ull);
      }
    }
    if (mode <= 2)
      grid.sync();
    else
      perron::probe::grid_barrier(bar, static_cast<unsigned>((k + 1) * gridDim.x));
    if (mode == 1 || mode == 2 || mode == 4) acc += static_cast<double>(__ldcg(slots + 2 * (k % 3)));
  }
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

int main() {
  unsigned long long* slots;
  unsigned *count, *bar;
  double *part, *out;
  cudaMalloc(&slots, 6 * 8);
  cudaMalloc(&count, 8);
  cudaMalloc(&part, 1024 * 8);
  cudaMalloc(&bar, 4);
  cudaMalloc(&out, 1024 * 8);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  printf("us per step (median of 5 launches of 2000 steps), blocks of 1024 threads\n");
  printf("%6s %10s %10s %10s %10s %10s\n", "blocks", "cg", "cg+slots", "+cut-row", "own", "own+all");
  for (int g : {1, 4, 16, 33, 66, sms}) {
    printf("%6d", g);
    for (int mode = 0; mode < 5; ++mode) {
      float t[5];
      for (int r = 0; r < 6; ++r) {
        cudaMemset(bar, 0, 4);
        int steps = 2000;
        void* args[] = {&mode, &steps, &slots, &count, &part, &bar, &out};
        cudaEventRecord(e0);
        cudaLaunchCooperativeKernel((const void*)probe, dim3(g), dim3(1024), args, 0, 0);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r > 0) t[r - 1] = ms;
      }
      for (int i = 0; i < 5; ++i)
        for (int j = i + 1; j < 5; ++j)
          if (t[j] < t[i]) {
            float x = t[i];
            t[i] = t[j];
            t[j] = x;
          }
      printf(" %10.3f", 1e3 * t[2] / 2000);
    }
    printf("\n");
  }
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    printf("error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
