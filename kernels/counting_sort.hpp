// A stable counting sort, the conversions' (kernels/convert.cpp: COO -> CSR
// by row) and the PageRank model's (solvers/pagerank.cpp: vertices by
// in-degree), in parallel where it pays.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "../core/formats.hpp"
#include "../core/memory.hpp"

namespace perron {

// Stable counting sort of entries k = 0..n-1 by key(k) in [0, buckets). Fills
// ptr (buckets + 1: the exclusive prefix sum of the bucket sizes) and calls
// place(k, pos) once per entry with its position in bucket order; entries of
// one bucket keep their input order.
//
// Parallel version: thread t counts its contiguous chunk of the input into its
// own histogram; entry k of thread t in bucket b then goes after everything
// earlier threads put into b, which keeps the sort stable. It needs
// threads * buckets counters, so it is used only when that is at most nnz
// (otherwise the serial pass, O(nnz + buckets), is the cheaper one anyway).
template <class Key, class Place>
void stable_bucket(Key key, std::size_t n, std::size_t buckets, std::vector<index_t>& ptr, Place place) {
  const std::size_t b = buckets;
  ptr.assign(b + 1, 0);
  int p = threads_for_work(n);
  while (p > 1 && static_cast<std::size_t>(p) * b > n) --p;
  if (p <= 1) {
    for (std::size_t k = 0; k < n; ++k) ++ptr[key(k) + 1];
    for (std::size_t i = 0; i < b; ++i) ptr[i + 1] += ptr[i];
    std::vector<index_t> next(ptr.begin(), ptr.end() - 1);
    for (std::size_t k = 0; k < n; ++k) place(k, next[key(k)]++);
    return;
  }
  // Thread t's counts at [t * stride, t * stride + b): 64 bytes apart at
  // least, so that few buckets (pull_facts_of's in-degrees) share no cache line.
  const std::size_t stride = b + 64 / sizeof(index_t);
  std::vector<index_t> counts = fresh_vector<index_t>(static_cast<std::size_t>(p) * stride, 0);
#pragma omp parallel num_threads(p)
  {
    const std::size_t team = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t lo = n * t / team, hi = n * (t + 1) / team;
    index_t* mine = counts.data() + t * stride;
    for (std::size_t k = lo; k < hi; ++k) ++mine[key(k)];
#pragma omp barrier
      // Per bucket: turn the threads' counts into offsets within the bucket.
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < b; ++i) {
      index_t s = 0;
      for (std::size_t u = 0; u < team; ++u) {
        const index_t c = counts[u * stride + i];
        counts[u * stride + i] = s;
        s += c;
      }
      ptr[i + 1] = s;
    }
#pragma omp single
    for (std::size_t i = 0; i < b; ++i) ptr[i + 1] += ptr[i];
    // (implicit barrier after single)
    for (std::size_t k = lo; k < hi; ++k) place(k, ptr[key(k)] + mine[key(k)]++);
  }
}

}  // namespace perron
