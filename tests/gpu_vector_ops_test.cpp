// Device vector operations vs the CPU ones: sizes around the pack width and
// the block count, misaligned pointers (scalar path), NaN poisoning,
// determinism of the device reductions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "kernels/vector_ops.hpp"
#include "tests/support/support.hpp"

namespace perron {
namespace {

template <class T>
class gpu_vector_ops : public test::gpu_test {};
using value_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(gpu_vector_ops, value_types);

TYPED_TEST(gpu_vector_ops, MatchTheCpuOperations) {
  using T = TypeParam;
  cuda::reduction_scratch scratch;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(4), std::size_t(5),
                        std::size_t(1000), std::size_t(262145), std::size_t(3000001)}) {
    for (std::size_t offset : {std::size_t(0), std::size_t(1)}) {  // 1: not 16-byte aligned
      const auto xd = test::random_vector(n + offset, 3 + n), yd = test::random_vector(n + offset, 4 + n);
      const std::vector<T> x(xd.begin(), xd.end()), y(yd.begin(), yd.end());
      cuda::device_buffer<T> dx(x), dy(y);
      const T* px = dx.data() + offset;
      T* py = dy.data() + offset;
      const double tol = 1e-12 * (1 + double(n));
      SCOPED_TRACE(testing::Message() << "n " << n << " offset " << offset);
      EXPECT_NEAR(cuda::dot_value(n, px, static_cast<const T*>(py), scratch),
                  dot(n, x.data() + offset, y.data() + offset), tol);
      EXPECT_NEAR(cuda::nrm2_value(n, px, scratch), nrm2(n, x.data() + offset), tol);
      EXPECT_EQ(cuda::norm_inf_value(n, px, scratch), norm_inf(n, x.data() + offset));
      double diff_ref = 0;
      for (std::size_t i = offset; i < n + offset; ++i)
        diff_ref = std::max(diff_ref, std::abs(double(x[i]) - double(y[i])));
      EXPECT_EQ(cuda::diff_norm_inf_value(n, px, static_cast<const T*>(py), scratch), diff_ref);
      // Determinism: the same reduction twice gives the same bits.
      EXPECT_EQ(cuda::dot_value(n, px, px, scratch), cuda::dot_value(n, px, px, scratch));

      cuda::axpby(n, T(2), px, T(-0.5), py);
      auto got = dy.download();
      for (std::size_t i = offset; i < n + offset; ++i) ASSERT_EQ(got[i], T(2) * x[i] + T(-0.5) * y[i]) << i;
      // beta = 0 with NaN-poisoned y.
      std::vector<T> poison(n + offset, std::numeric_limits<T>::quiet_NaN());
      dy.upload(poison);
      py = dy.data() + offset;
      cuda::axpby(n, T(3), px, T(0), py);
      got = dy.download();
      for (std::size_t i = offset; i < n + offset; ++i) ASSERT_EQ(got[i], T(3) * x[i]) << i;
      if (offset) {
        EXPECT_TRUE(std::isnan(got[0]));  // nothing outside the range was written
      }
      cuda::scale(n, T(-2), py);
      got = dy.download();
      for (std::size_t i = offset; i < n + offset; ++i) ASSERT_EQ(got[i], T(-6) * x[i]) << i;
      cuda::fill(n, T(0.25), py);
      cuda::copy(n, px, py);
      got = dy.download();
      for (std::size_t i = offset; i < n + offset; ++i) ASSERT_EQ(got[i], x[i]) << i;
      cuda::fill(n, T(0.25), py);
      got = dy.download();
      for (std::size_t i = offset; i < n + offset; ++i) ASSERT_EQ(got[i], T(0.25)) << i;
    }
  }
}

// Issue 16: every device reduction is bitwise reproducible run to run (the
// partials are combined in block order, never by atomics). 20 calls of each on
// ~10^6 random values must give the same bits (memcmp, so NaN or -0 would not
// slip through an == comparison).
TYPED_TEST(gpu_vector_ops, ReductionsAreBitwiseReproducible) {
  using T = TypeParam;
  constexpr std::size_t n = 1000003;
  constexpr int calls = 20;
  const auto xd = test::random_vector(n, 41), yd = test::random_vector(n, 42);
  const std::vector<T> x(xd.begin(), xd.end()), y(yd.begin(), yd.end());
  const cuda::device_buffer<T> dx(x), dy(y);
  cuda::reduction_scratch scratch;
  using reduce_fn = double (*)(std::size_t, const T*, const T*, cuda::reduction_scratch&);
  const std::pair<const char*, reduce_fn> reductions[] = {
      {"dot", [](std::size_t m, const T* a, const T* b,
                 cuda::reduction_scratch& s) { return cuda::dot_value(m, a, b, s); }},
      {"nrm2", [](std::size_t m, const T* a, const T*,
                  cuda::reduction_scratch& s) { return cuda::nrm2_value(m, a, s); }},
      {"norm_inf", [](std::size_t m, const T* a, const T*,
                      cuda::reduction_scratch& s) { return cuda::norm_inf_value(m, a, s); }},
      {"diff_norm_inf", [](std::size_t m, const T* a, const T* b,
                           cuda::reduction_scratch& s) { return cuda::diff_norm_inf_value(m, a, b, s); }},
  };
  for (const auto& [name, reduce] : reductions) {
    SCOPED_TRACE(name);
    const double first = reduce(n, dx.data(), dy.data(), scratch);
    EXPECT_TRUE(std::isfinite(first));
    for (int k = 1; k < calls; ++k) {
      const double again = reduce(n, dx.data(), dy.data(), scratch);
      ASSERT_EQ(std::memcmp(&first, &again, sizeof(double)), 0)
          << "call " << k << ": " << again << " vs " << first;
    }
  }
}

class gpu_vector_ops_nan : public test::gpu_test {};

TEST_F(gpu_vector_ops_nan, NormInfPropagatesNan) {
  cuda::reduction_scratch scratch;
  std::vector<double> x(1 << 20, 1.0);
  x[777777] = std::nan("");
  cuda::device_buffer<double> dx(x);
  EXPECT_TRUE(std::isnan(cuda::norm_inf_value(x.size(), dx.data(), scratch)));
  x[777777] = 5.0;
  dx.upload(x);
  EXPECT_EQ(cuda::norm_inf_value(x.size(), dx.data(), scratch), 5.0);
}

// nrm2 of entries whose squares overflow (1e160) or underflow (1e-160,
// 1e-170) in double, and of mixes of the ranges: Blue's three sums on the
// device, the same as the CPU's nrm2 but for the order of the sums, and the
// long double reference; on one block, several, the scalar path (offset 1).
TEST_F(gpu_vector_ops_nan, Nrm2NeitherOverflowsNorUnderflows) {
  cuda::reduction_scratch scratch;
  for (std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(1000), std::size_t(1 << 20)}) {
    for (double scale : {1e160, -1e-160, 1e-170, 1e300, 1e-300, 1.0}) {
      for (std::size_t offset : {std::size_t(0), std::size_t(1)}) {
        SCOPED_TRACE(testing::Message() << "n " << n << " scale " << scale << " offset " << offset);
        auto x = test::random_vector(n + offset, 23 + n);
        for (double& v : x) v *= scale;
        x[n + offset - 1] = 1e-250;    // a small entry beside the others
        if (n > 2) x[offset] = 1e200;  // and a big one
        const cuda::device_buffer<double> dx(x);
        long double ref_sum = 0;
        for (std::size_t i = offset; i < n + offset; ++i) ref_sum += (long double)x[i] * (long double)x[i];
        const double ref = double(std::sqrt(ref_sum));
        const double tol = double(n + 2) * 0x1p-53 * ref;  // (n - 1) u of the sum, halved, plus two roundings
        const double got = cuda::nrm2_value(n, dx.data() + offset, scratch);
        EXPECT_NEAR(got, ref, tol);
        EXPECT_NEAR(got, nrm2(n, x.data() + offset), 2 * tol);
      }
    }
  }
  const std::vector<float> xf(100000, std::numeric_limits<float>::max());
  const cuda::device_buffer<float> dxf(xf);
  EXPECT_NEAR(cuda::nrm2_value(xf.size(), dxf.data(), scratch), nrm2(xf.size(), xf.data()),
              1e-10 * nrm2(xf.size(), xf.data()));
  const cuda::device_buffer<double> zeros(std::vector<double>(5000, 0.0));
  EXPECT_EQ(cuda::nrm2_value(5000, zeros.data(), scratch), 0.0);
  const std::vector<double> beyond(5, 1e308);  // 2.2e308: past DBL_MAX
  const cuda::device_buffer<double> dbeyond(beyond);
  EXPECT_EQ(cuda::nrm2_value(beyond.size(), dbeyond.data(), scratch), INFINITY);
}

// inf gives inf and NaN gives NaN, beside ordinary, huge or tiny entries (the
// CPU's Nrm2PropagatesInfAndNan).
TEST_F(gpu_vector_ops_nan, Nrm2PropagatesInfAndNan) {
  cuda::reduction_scratch scratch;
  for (std::size_t n : {std::size_t(3), std::size_t(1 << 20)}) {
    for (double other : {1.0, 1e200, 1e-200}) {
      SCOPED_TRACE(testing::Message() << "n " << n << ", other entries " << other);
      std::vector<double> x(n, other);
      x[1] = -INFINITY;
      cuda::device_buffer<double> dx(x);
      EXPECT_EQ(cuda::nrm2_value(n, dx.data(), scratch), INFINITY);
      x[n - 1] = std::nan("");
      dx.upload(x);
      EXPECT_TRUE(std::isnan(cuda::nrm2_value(n, dx.data(), scratch)));
      x[1] = other;
      dx.upload(x);
      EXPECT_TRUE(std::isnan(cuda::nrm2_value(n, dx.data(), scratch)));
    }
  }
}

TEST_F(gpu_vector_ops_nan, ResultsStayInDeviceMemoryUntilRead) {
  // The asynchronous forms write into device memory; several queued
  // reductions on one scratch do not disturb each other.
  cuda::reduction_scratch scratch;
  const auto x = test::random_vector(100000, 9);
  cuda::device_buffer<double> dx(x), out(3);
  cuda::dot(x.size(), dx.data(), dx.data(), out.data(), scratch);
  cuda::nrm2(x.size(), dx.data(), out.data() + 1, scratch);
  cuda::norm_inf(x.size(), dx.data(), out.data() + 2, scratch);
  const auto h = out.download();
  EXPECT_NEAR(h[0], dot(x.size(), x.data(), x.data()), 1e-9);
  EXPECT_NEAR(h[1], nrm2(x.size(), x.data()), 1e-12);
  EXPECT_EQ(h[2], norm_inf(x.size(), x.data()));
}

}  // namespace
}  // namespace perron
