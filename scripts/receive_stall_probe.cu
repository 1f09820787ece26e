// Where do the GPU solves' occasional receive stalls come from (1.8-35 ms
// where the host's widening of the ranks takes 0.02-0.2; docs/PERFORMANCE.md,
// "A receive stall ..." sessions 46 and 49)? This probe repeats the receive's
// shape without a solver: a kernel that runs `us` microseconds and then
// writes n floats into mapped pinned memory, the widening team started
// (an empty parallel region) while it runs, the event waited for, then the
// n floats widened into doubles by a team of T threads (schedule static);
// the widening timed on the host. Per team: the median, 99th percentile and
// maximum of `iters` receives and how many took over 0.5 and 1 ms. Session 49,
// H200 host: medians 20-44 us, nothing beyond 1.4 ms with any team, wait policy
// or sync mode, where pagerank's receives stalled up to 5.7 ms: the probe lacks
// whatever holds a thread there (docs/PERFORMANCE.md, "A receive's stalls").
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp scripts/receive_stall_probe.cu -o receive_stall_probe
//   ./receive_stall_probe [n=400000] [us=200] [iters=2000] [teams=15,14,12,8,4] [sync=spin|yield|block]
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

__global__ void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

__global__ void publish(float* out, int n, int salt) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = static_cast<float>(i + salt);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 400000;
  const int us = argc > 2 ? std::atoi(argv[2]) : 200;
  const int iters = argc > 3 ? std::atoi(argv[3]) : 2000;
  std::vector<int> teams{15, 14, 12, 8, 4};
  if (argc > 4) {
    teams.clear();
    std::stringstream ss(argv[4]);
    std::string t;
    while (std::getline(ss, t, ',')) teams.push_back(std::stoi(t));
  }
  const std::string sync = argc > 5 ? argv[5] : "auto";
  if (sync == "spin") CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
  if (sync == "yield") CHECK(cudaSetDeviceFlags(cudaDeviceScheduleYield));
  if (sync == "block") CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  float* h = nullptr;
  CHECK(cudaHostAlloc(&h, n * sizeof(float), cudaHostAllocMapped));
  float* dh = nullptr;
  CHECK(cudaHostGetDevicePointer(&dh, h, 0));
  std::vector<double> res(n);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t ev;
  CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  std::printf("n %d, kernel %d us, %d receives, %d processors, OMP_WAIT_POLICY %s, sync %s\n", n, us, iters,
              omp_get_num_procs(), policy ? policy : "(unset)", sync.c_str());
  std::printf("%5s %9s %9s %9s %7s %7s\n", "team", "median us", "p99 us", "max us", ">0.5ms", ">1ms");
  for (const int team : teams) {
    std::vector<double> t(iters);
    for (int k = 0; k < iters; ++k) {
      spin<<<1, 1, 0, s>>>(static_cast<long long>(us) * clock_khz / 1000);
      publish<<<264, 256, 0, s>>>(dh, n, k);
      CHECK(cudaEventRecord(ev, s));
#pragma omp parallel num_threads(team) if (team > 1)
      {}
      CHECK(cudaEventSynchronize(ev));
      const auto a = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
      for (int i = 0; i < n; ++i) res[i] = h[i];
      t[k] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count();
      if (res[n / 2] != static_cast<double>(static_cast<float>(n / 2 + k))) {
        std::fprintf(stderr, "wrong value at receive %d\n", k);
        return 1;
      }
    }
    std::vector<double> sorted = t;
    std::sort(sorted.begin(), sorted.end());
    const auto over = [&](double lim) {
      return std::count_if(t.begin(), t.end(), [&](double x) { return x > lim; });
    };
    std::printf("%5d %9.1f %9.1f %9.1f %7ld %7ld\n", team, sorted[iters / 2], sorted[iters * 99 / 100],
                sorted.back(), static_cast<long>(over(500)), static_cast<long>(over(1000)));
    std::fflush(stdout);
  }
  return 0;
}
