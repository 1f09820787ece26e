// Probe: how fast n ranks reach the host (issue 17 item 5, issue 18 item 3;
// docs/PERFORMANCE.md, "The ranks' widening team", session 44).
//   nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp,-mavx2,-mclflushopt -o d2h_probe scripts/d2h_probe.cu
//   OMP_NUM_THREADS=16 ./d2h_probe [REPS]
// Modes, by environment: none, device-to-pinned copies of 1-40 MB (one copy,
// four pieces on a stream, two streams) and a kernel writing mapped host
// memory, then whole receives (pieces waited for and widened into fresh or
// touched host memory on 1-16 threads); SKIP_COPIES=1, only the receives;
// TIMELINE=1, when each of four pieces of 10^6 floats is seen and widened
// after a team of 0, 8 or 16 threads ran; FLUSH=1, the same with the pinned
// buffer's lines evicted (clflushopt) in the widening or after the receive,
// or the buffer write-combined.
#include <cuda_runtime.h>
#include <immintrin.h>
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                               \
  do {                                                      \
    cudaError_t ck_ = (x);                                  \
    if (ck_ != cudaSuccess) {                               \
      std::printf("%s: %s\n", #x, cudaGetErrorString(ck_)); \
      std::exit(1);                                         \
    }                                                       \
  } while (0)

__global__ void mapped_write(const float4* __restrict__ a, float4* __restrict__ b, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
    b[i] = a[i];
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
using clk = std::chrono::steady_clock;
static double us(clk::time_point a, clk::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 15;
  const size_t maxb = 64u << 20;
  char *d, *h;
  CK(cudaMalloc(&d, maxb));
  CK(cudaMemset(d, 0x3c, maxb));
  CK(cudaHostAlloc(&h, maxb, cudaHostAllocMapped));
  char* dh;
  CK(cudaHostGetDevicePointer((void**)&dh, h, 0));
  cudaStream_t s[2];
  CK(cudaStreamCreate(&s[0]));
  CK(cudaStreamCreate(&s[1]));
  cudaEvent_t e0, e1, ev[16];
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (auto& e : ev) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  // Timeline of one receive (n = 10^6 floats, 4 pieces): when each piece's
  // event is seen and its widening ends, us after the first enqueue; before
  // it a team of `spin` threads ran a region (its workers spin after it).
  if (std::getenv("TIMELINE")) {
    const size_t n = 1000000;
    const int k = 4;
    double* y = (double*)mmap(nullptr, n * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    std::fill(y, y + n, 0.0);
    std::printf("\nspin_team widen_team | enq ev0 w0 ev1 w1 ev2 w2 ev3 w3 (us, medians)\n");
    for (int spin : {0, 8, 16}) {
      for (int T : {0, 8, 16}) {
        std::vector<std::vector<double>> tl(9);
        for (int r = 0; r < reps; ++r) {
          CK(cudaDeviceSynchronize());
          if (spin) {
            volatile double sink = 0;
#pragma omp parallel num_threads(spin)
            { sink = sink + 1; }
          }
          auto t = clk::now();
          for (int c = 0; c < k; ++c) {
            size_t b0 = n * c / k, e = n * (c + 1) / k;
            CK(cudaMemcpyAsync((float*)h + b0, (float*)d + b0, (e - b0) * 4, cudaMemcpyDeviceToHost, s[0]));
            CK(cudaEventRecord(ev[c], s[0]));
          }
          tl[0].push_back(us(t, clk::now()));
          for (int c = 0; c < k; ++c) {
            CK(cudaEventSynchronize(ev[c]));
            tl[1 + 2 * c].push_back(us(t, clk::now()));
            long b0 = n * c / k, e = n * (c + 1) / k;
            const float* x = (const float*)h;
            if (T) {
#pragma omp parallel for num_threads(T) schedule(static)
              for (long i = b0; i < e; ++i) y[i] = x[i];
            }
            tl[2 + 2 * c].push_back(us(t, clk::now()));
          }
        }
        std::printf("%d %d |", spin, T);
        for (auto& v : tl) std::printf(" %.1f", median(v));
        std::printf("\n");
      }
    }
    return 0;
  }

  // The same receive, the previous solve's widening having read the pinned
  // buffer (its lines in the host's caches, which the next copy's writes must
  // snoop), four ways: plain loads (0), plain loads and each line flushed
  // after it is read (1), the buffer write-combined (uncached) read with
  // streaming loads (2), write-combined read with plain loads (3).
  if (std::getenv("FLUSH")) {
    const size_t n = 1000000;
    char* hw;
    CK(cudaHostAlloc(&hw, n * 4, cudaHostAllocMapped | cudaHostAllocWriteCombined));
    double* y = (double*)mmap(nullptr, n * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    std::fill(y, y + n, 0.0);
    std::printf("\nway team pieces | enq ev0 w0 ev1 w1 ev2 w2 ev3 w3 (us, medians); check\n");
    const int ways[] = {0, 1, 4, 4, 4, 4, 0};
    const int teams[] = {16, 16, 8, 12, 16, 16, 16};
    const int pieces[] = {4, 4, 4, 4, 4, 8, 4};
    for (int q = 0; q < 7; ++q) {
      const int way = ways[q], T = teams[q], k = pieces[q];
      {
        std::vector<std::vector<double>> tl(2 * k + 1);
        double check = 0;
        float* hb = (float*)(way >= 2 ? hw : h);
        for (int r = 0; r < reps; ++r) {
          CK(cudaDeviceSynchronize());
          auto t = clk::now();
          for (int c = 0; c < k; ++c) {
            size_t b0 = n * c / k, e = n * (c + 1) / k;
            CK(cudaMemcpyAsync(hb + b0, (float*)d + b0, (e - b0) * 4, cudaMemcpyDeviceToHost, s[0]));
            CK(cudaEventRecord(ev[c], s[0]));
          }
          tl[0].push_back(us(t, clk::now()));
          for (int c = 0; c < k; ++c) {
            CK(cudaEventSynchronize(ev[c]));
            tl[1 + 2 * c].push_back(us(t, clk::now()));
            const long b0 = n * c / k, e = n * (c + 1) / k;
            // whole 16-float lines inside [b0, e) by the team, the ends by hand
            const long l0 = (b0 + 15) / 16 * 16, l1 = e / 16 * 16;
            for (long i = b0; i < std::min(l0, e); ++i) y[i] = hb[i];
            for (long i = std::max(l1, l0); i < e; ++i) y[i] = hb[i];
#pragma omp parallel for num_threads(T) schedule(static)
            for (long l = l0; l < l1; l += 16) {
              if (way == 2) {
                __m256i a = _mm256_stream_load_si256((__m256i*)(hb + l));
                __m256i b = _mm256_stream_load_si256((__m256i*)(hb + l + 8));
                __m256 fa = _mm256_castsi256_ps(a), fb = _mm256_castsi256_ps(b);
                _mm256_storeu_pd(y + l, _mm256_cvtps_pd(_mm256_castps256_ps128(fa)));
                _mm256_storeu_pd(y + l + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(fa, 1)));
                _mm256_storeu_pd(y + l + 8, _mm256_cvtps_pd(_mm256_castps256_ps128(fb)));
                _mm256_storeu_pd(y + l + 12, _mm256_cvtps_pd(_mm256_extractf128_ps(fb, 1)));
              } else {
                for (int j = 0; j < 16; ++j) y[l + j] = hb[l + j];
                if (way == 1) _mm_clflushopt(hb + l);
              }
            }
            tl[2 + 2 * c].push_back(us(t, clk::now()));
          }
          check = 0;
          for (size_t i = 0; i < n; i += 4099) check += y[i];
          if (way == 4) {  // the lines evicted after the receive, outside its time
#pragma omp parallel for num_threads(T)
            for (long l = 0; l < (long)n; l += 16) _mm_clflushopt(hb + l);
          }
        }
        std::printf("%d %d %d |", way, T, k);
        for (auto& v : tl) std::printf(" %.1f", median(v));
        std::printf("; %.6g\n", check);
      }
    }
    return 0;
  }
  if (std::getenv("SKIP_COPIES")) goto receive;
  std::printf("bytes_MB copy_us copy_GBs pieces4_us two_streams_us mapped_kernel_us mapped_GBs\n");
  for (size_t mb : {1u, 2u, 4u, 8u, 16u, 40u}) {
    const size_t b = mb << 20;
    std::vector<double> c1, c4, c2, mk;
    for (int r = 0; r < reps; ++r) {
      float ms;
      CK(cudaEventRecord(e0, s[0]));
      CK(cudaMemcpyAsync(h, d, b, cudaMemcpyDeviceToHost, s[0]));
      CK(cudaEventRecord(e1, s[0]));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      c1.push_back(ms * 1e3);
      CK(cudaEventRecord(e0, s[0]));
      for (int k = 0; k < 4; ++k)
        CK(cudaMemcpyAsync(h + b / 4 * k, d + b / 4 * k, b / 4, cudaMemcpyDeviceToHost, s[0]));
      CK(cudaEventRecord(e1, s[0]));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      c4.push_back(ms * 1e3);
      CK(cudaDeviceSynchronize());
      auto t = clk::now();
      CK(cudaMemcpyAsync(h, d, b / 2, cudaMemcpyDeviceToHost, s[0]));
      CK(cudaMemcpyAsync(h + b / 2, d + b / 2, b / 2, cudaMemcpyDeviceToHost, s[1]));
      CK(cudaDeviceSynchronize());
      c2.push_back(us(t, clk::now()));
      CK(cudaEventRecord(e0, s[0]));
      mapped_write<<<sms * 4, 256, 0, s[0]>>>((const float4*)d, (float4*)dh, b / 16);
      CK(cudaEventRecord(e1, s[0]));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      mk.push_back(ms * 1e3);
    }
    std::printf("%zu %.1f %.1f %.1f %.1f %.1f %.1f\n", mb, median(c1), b / median(c1) * 1e-3, median(c4),
                median(c2), median(mk), b / median(mk) * 1e-3);
  }
receive:
  // The receive: n floats in k pieces, each waited for and widened on T
  // threads into fresh (never touched) host memory; host wall from the first
  // copy's enqueue to the last widened value.
  const int maxt = omp_get_max_threads();
  std::printf("\nn pieces threads receive_us (fresh) receive_us (touched) copy_only_us\n");
  for (size_t n : {100000ul, 1000000ul}) {
    for (int k : {1, 4, 8}) {
      for (int T : {1, 4, 8, maxt}) {
        std::vector<double> wf, wt, co;
        for (int r = 0; r < reps; ++r) {
          for (int fresh = 0; fresh < 3; ++fresh) {
            double* y =
                (double*)mmap(nullptr, n * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (fresh == 1) std::fill(y, y + n, 0.0);
            CK(cudaDeviceSynchronize());
            auto t = clk::now();
            for (int c = 0; c < k; ++c) {
              size_t b0 = n * c / k, e = n * (c + 1) / k;
              CK(cudaMemcpyAsync((float*)h + b0, (float*)d + b0, (e - b0) * 4, cudaMemcpyDeviceToHost, s[0]));
              CK(cudaEventRecord(ev[c], s[0]));
            }
            for (int c = 0; c < k; ++c) {
              CK(cudaEventSynchronize(ev[c]));
              if (fresh == 2) continue;
              long b0 = n * c / k, e = n * (c + 1) / k;
              const float* x = (const float*)h;
#pragma omp parallel for num_threads(T) schedule(static)
              for (long i = b0; i < e; ++i) y[i] = x[i];
            }
            double w = us(t, clk::now());
            (fresh == 0 ? wf : fresh == 1 ? wt : co).push_back(w);
            munmap(y, n * 8);
          }
        }
        std::printf("%zu %d %d %.1f %.1f %.1f\n", n, k, T, median(wf), median(wt), median(co));
      }
    }
  }
  return 0;
}
