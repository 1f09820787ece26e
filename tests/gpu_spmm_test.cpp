// GPU SpMM (spmm_plan, kernels/cuda/spmm.cu) against the plain loop of
// tests/spmm_reference.hpp (the CPU SpMM's own reference): odd shapes, every
// k path (scalar and 16-byte loads, one and two chunks per lane, several
// passes; rows split into atomically summed pieces), float and double,
// beta == 0 on a NaN-filled Y, general alpha and beta, repeatability (bitwise
// where no row is split), and a real graph from ../shared/data.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "core/device.hpp"
#include "core/error.hpp"
#include "io/load.hpp"
#include "kernels/convert.hpp"
#include "kernels/spmm.hpp"
#include "tests/spmm_reference.hpp"

using namespace perron;

namespace {

template <class T>
void check_gpu(const std::string& label, const csr_matrix<T>& a, index_t k) {
  const std::size_t xs = static_cast<std::size_t>(a.cols) * k, ys = static_cast<std::size_t>(a.rows) * k;
  const std::vector<T> x = random_values<T>(xs, 17 + k);
  const std::vector<T> y0 = random_values<T>(ys, 19 + k);
  const std::string what = label + " k=" + std::to_string(k);
  const double eps = std::numeric_limits<T>::epsilon() / 2;
  const spmm_plan<T> plan(a);
  cuda::device_buffer<T> d_x(x), d_y(std::vector<T>(ys, std::numeric_limits<T>::quiet_NaN()));
  plan.apply(T(1), d_x.data(), T(0), d_y.data(), k);
  const std::vector<T> first = d_y.download();
  test::expect_spmm_near(a, T(1), x, T(0), y0, first, k, eps, what + " beta=0");
  plan.apply(T(1), d_x.data(), T(0), d_y.data(), k);
  index_t longest = 0;
  for (index_t i = 0; i < a.rows; ++i) longest = std::max(longest, a.row_ptr[i + 1] - a.row_ptr[i]);
  if (longest <= spmm_split_length)  // longer rows are summed in pieces, atomically
    EXPECT_TRUE(first == d_y.download()) << what << ": a second apply gave other bits";
  else
    test::expect_spmm_near(a, T(1), x, T(0), y0, d_y.download(), k, eps, what + " beta=0, again");
  d_y.upload(y0);
  plan.apply(T(1.5), d_x.data(), T(-0.75), d_y.data(), k);
  test::expect_spmm_near(a, T(1.5), x, T(-0.75), y0, d_y.download(), k, eps, what + " beta=-0.75");
}

class gpu_spmm : public test::gpu_test_with_param<index_t> {};

TEST_P(gpu_spmm, float_matches_loop) {
  for (const auto& [label, shape] : test::spmm_shapes())
    check_gpu(label, value_cast<float>(shape), GetParam());
}
TEST_P(gpu_spmm, double_matches_loop) {
  for (const auto& [label, shape] : test::spmm_shapes())
    check_gpu(label, value_cast<double>(shape), GetParam());
}

INSTANTIATE_TEST_SUITE_P(k, gpu_spmm, ::testing::Values(1, 2, 3, 4, 7, 8, 32, 64, 128, 129, 256, 300));

class gpu_spmm_real : public test::gpu_test {};

TEST_F(gpu_spmm_real, shared_graph_float_and_double) {
  const auto path = test::shared_file("graphs/wb-cs-stanford.mtx");
  if (!path) GTEST_SKIP() << "../shared/data not present";
  const csr_matrix<double> a = to_csr(io::load_matrix(*path).matrix);
  for (index_t k : {1, 8, 33, 128}) {
    check_gpu("wb-cs-stanford", value_cast<float>(a), k);
    check_gpu("wb-cs-stanford", a, k);
  }
}

TEST_F(gpu_spmm_real, negative_k_throws) {
  const spmm_plan<double> plan(test::spmm_shapes().front().second);
  EXPECT_THROW(plan.apply(1.0, nullptr, 0.0, nullptr, -1), invalid_argument);
  EXPECT_NO_THROW(plan.apply(1.0, nullptr, 0.0, nullptr, 0));
}

}  // namespace
