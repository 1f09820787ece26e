// The GEMM ladder (bench/gemm.hpp): every step against cuBLAS SGEMM (pure
// fp32) on sizes that are multiples of no tile, on sizes where the float4
// paths run with partial tiles, and on misaligned pointers (the scalar path
// for sizes that would take float4). beta == 0 runs on a NaN-filled C: every
// element must be written and the old contents must not leak.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "bench/compare.hpp"
#include "bench/gemm.hpp"
#include "core/device.hpp"
#include "tests/support/support.hpp"

using namespace perron;

namespace {

struct shape {
  int m, n, k;
  int offset;  // floats added to each device pointer (1: not 16-byte aligned)
};

// v after `offset` zeros: the device copy's data() + offset is v.
std::vector<float> padded(int offset, const std::vector<float>& v) {
  std::vector<float> p(static_cast<std::size_t>(offset), 0.f);
  p.insert(p.end(), v.begin(), v.end());
  return p;
}

// C = alpha A B + beta C0 by `run` on a device copy of c0, downloaded.
template <class F>
std::vector<float> product(const shape& s, const std::vector<float>& c0, F run) {
  cuda::device_buffer<float> c(padded(s.offset, c0));
  run(c.data() + s.offset);
  const std::vector<float> out = c.download();
  return std::vector<float>(out.begin() + s.offset, out.end());
}

class gpu_gemm : public test::gpu_test_with_param<std::tuple<gemm_step, shape>> {};

TEST_P(gpu_gemm, matches_cublas) {
  const auto [step, s] = GetParam();
  const std::size_t na = static_cast<std::size_t>(s.m) * s.k, nb = static_cast<std::size_t>(s.k) * s.n,
                    nc = static_cast<std::size_t>(s.m) * s.n;
  const cuda::device_buffer<float> a(padded(s.offset, random_values<float>(na, 1)));
  const cuda::device_buffer<float> b(padded(s.offset, random_values<float>(nb, 2)));
  const float* pa = a.data() + s.offset;
  const float* pb = b.data() + s.offset;
  const cublas_sgemm cublas;
  const std::vector<float> c0 = random_values<float>(nc, 3), nan(nc, std::numeric_limits<float>::quiet_NaN());
  const std::string what = std::string(name(step)) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) +
                           "x" + std::to_string(s.k) + (s.offset ? " misaligned" : "");
  for (const auto& [alpha, beta] : {std::pair{1.25f, -0.5f}, std::pair{1.f, 0.f}}) {
    const std::vector<float>& start = beta == 0.f ? nan : c0;
    const auto ref = product(s, c0, [&](float* c) { cublas(s.m, s.n, s.k, alpha, pa, pb, beta, c); });
    const auto got = product(s, start, [&](float* c) { gemm(step, s.m, s.n, s.k, alpha, pa, pb, beta, c); });
    EXPECT_LT(max_relative_error(got, ref), 1e-5) << what << " alpha=" << alpha << " beta=" << beta;
  }
}

std::string shape_name(const ::testing::TestParamInfo<std::tuple<gemm_step, shape>>& info) {
  const auto& [step, s] = info.param;
  std::string n(name(step));
  std::replace(n.begin(), n.end(), '-', '_');
  return n + "_" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
         (s.offset ? "_misaligned" : "");
}

INSTANTIATE_TEST_SUITE_P(steps, gpu_gemm,
                         ::testing::Combine(::testing::ValuesIn(gemm_steps()),
                                            ::testing::Values(shape{1, 1, 1, 0}, shape{37, 61, 129, 0},
                                                              shape{257, 255, 33, 0},
                                                              shape{1000, 1001, 999, 0},
                                                              shape{260, 132, 68, 0}, shape{256, 256, 256, 0},
                                                              shape{128, 128, 128, 1}, shape{3, 300, 4, 0})),
                         shape_name);

}  // namespace
