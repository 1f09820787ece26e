// CPU SpMM (kernels/cpu/spmm.cpp) against the plain loop of
// tests/spmm_reference.hpp on odd shapes and k, float and double, with
// beta == 0 on a NaN-filled Y (must not leak) and general alpha, beta.
#include "kernels/spmm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "kernels/convert.hpp"
#include "tests/spmm_reference.hpp"

using namespace perron;

namespace {

template <class T>
void check_cpu(index_t k) {
  for (const auto& [label, shape] : test::spmm_shapes()) {
    const csr_matrix<T> a = value_cast<T>(shape);
    const std::size_t xs = static_cast<std::size_t>(a.cols) * k, ys = static_cast<std::size_t>(a.rows) * k;
    const std::vector<T> x = random_values<T>(xs, 11 + k);
    const std::vector<T> y0 = random_values<T>(ys, 13 + k);
    const std::string what = label + " k=" + std::to_string(k);
    // beta == 0: Y is write-only.
    std::vector<T> y(ys, std::numeric_limits<T>::quiet_NaN());
    spmm(a, T(1), x.data(), T(0), y.data(), k);
    test::expect_spmm_near(a, T(1), x, T(0), y0, y, k, std::numeric_limits<double>::epsilon(),
                           what + " beta=0");
    y = y0;
    spmm(a, T(1.5), x.data(), T(-0.75), y.data(), k);
    test::expect_spmm_near(a, T(1.5), x, T(-0.75), y0, y, k, std::numeric_limits<double>::epsilon(),
                           what + " beta=-0.75");
  }
}

class cpu_spmm : public ::testing::TestWithParam<index_t> {};

TEST_P(cpu_spmm, float_matches_loop) { check_cpu<float>(GetParam()); }
TEST_P(cpu_spmm, double_matches_loop) { check_cpu<double>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(k, cpu_spmm, ::testing::Values(1, 3, 7, 8, 64, 129));

TEST(cpu_spmm_args, k_zero_does_nothing_and_negative_k_throws) {
  const csr_matrix<double> a = test::spmm_shapes().front().second;
  std::vector<double> x(static_cast<std::size_t>(a.cols), 1.0), y(static_cast<std::size_t>(a.rows), 7.0);
  spmm(a, 1.0, x.data(), 0.0, y.data(), 0);
  EXPECT_EQ(y.front(), 7.0);
  EXPECT_THROW(spmm(a, 1.0, x.data(), 0.0, y.data(), -1), invalid_argument);
}

}  // namespace

// The GPU teams' entry slots (kernels/spmm.hpp), with the H100's 132 x 2048
// resident threads: one where rows fill the device, up to a warp where they
// are few, never more lanes than a warp.
TEST(spmm_team_slots, fills_the_device_with_rows_first) {
  constexpr long long h100 = 132LL * 2048;
  EXPECT_EQ(spmm_team_slots(325557, 8, h100), 1);   // cnr-2000, k = 32
  EXPECT_EQ(spmm_team_slots(1048576, 2, h100), 1);  // rmat:20, k = 8
  EXPECT_EQ(spmm_team_slots(65536, 2, h100), 2);    // delaunay_n16, k = 8: 262144 lanes
  EXPECT_EQ(spmm_team_slots(26475, 2, h100), 4);    // as-caida, k = 8
  EXPECT_EQ(spmm_team_slots(26475, 8, h100), 1);    // as-caida, k = 32
  EXPECT_EQ(spmm_team_slots(1005, 2, h100), 16);    // a warp: 32 / g
  EXPECT_EQ(spmm_team_slots(1005, 32, h100), 1);    // g = 32 is a warp already
  EXPECT_EQ(spmm_team_slots(0, 1, h100), 32);       // no rows: no overflow, a warp
  EXPECT_EQ(spmm_team_slots(135, 4, 0), 1);         // nothing resident: one slot
}
