// GPU COO -> CSR (kernels/gpu_convert.hpp) must be bit-identical to the host
// conversion: same row_ptr, same column order, same values to the last bit
// (duplicates combined in input order), for A and A^T, sum and keep_one,
// float and double, on random matrices of many shapes and on real ones.
//
// GpuConvertTiming.Cnr2000 times GPU against CPU conversion; it runs only when
// PERRON_CONVERT_TIMING=1 (it is a measurement, not a check worth its time in
// every test run):
//   PERRON_CONVERT_TIMING=1 gpu_convert_test --gtest_filter='GpuConvertTiming.*'
#include "kernels/gpu_convert.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/convert.hpp"
#include "tests/convert_reference.hpp"
#include "tests/support/support.hpp"

using namespace perron;

namespace {

enum class value_kind { f32, f64 };
void PrintTo(value_kind k, std::ostream* os) { *os << (k == value_kind::f32 ? "float" : "double"); }

struct matrix_case {
  std::string name;
  std::function<bool(coo_matrix<double>&)> make;  // false: not available (skip)
};
void PrintTo(const matrix_case& m, std::ostream* os) { *os << m.name; }

coo_matrix<double> order_sensitive() {
  // Float sums that depend on the order: (((1e8 + 1) - 1e8) + 1) = 1 in float,
  // and runs of every length 1..40 at distinct positions, shuffled.
  coo_matrix<double> a;
  a.rows = 7;
  a.cols = 9;
  std::vector<std::tuple<index_t, index_t, double>> t = {{0, 0, 1e8}, {0, 0, 1}, {0, 0, -1e8}, {0, 0, 1}};
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> v(-1e4, 1e4);
  for (int len = 1; len <= 40; ++len) {
    const index_t r = 1 + len % 6, c = len % 9;
    for (int i = 0; i < len; ++i) t.emplace_back(r, c, v(gen) * (i % 3 == 0 ? 1e-6 : 1.0));
  }
  std::shuffle(t.begin() + 4, t.end(), gen);
  for (auto [r, c, x] : t) a.row_idx.push_back(r), a.col_idx.push_back(c), a.values.push_back(x);
  return a;
}

coo_matrix<double> huge_row() {
  // Row 2 of 4 x 10^6 holds every column, shuffled, plus 10^4 repeats.
  constexpr index_t n = 1'000'000;
  coo_matrix<double> a;
  a.rows = 4;
  a.cols = n;
  std::vector<index_t> cols(n);
  std::iota(cols.begin(), cols.end(), 0);
  std::mt19937_64 gen(6);
  std::shuffle(cols.begin(), cols.end(), gen);
  std::uniform_real_distribution<double> v(-1.0, 1.0);
  for (index_t j : cols) a.row_idx.push_back(2), a.col_idx.push_back(j), a.values.push_back(v(gen));
  for (index_t j = 0; j < n; j += 100)
    a.row_idx.push_back(2), a.col_idx.push_back(j), a.values.push_back(v(gen));
  a.row_idx.push_back(0), a.col_idx.push_back(n - 1), a.values.push_back(3.0);
  return a;
}

std::vector<matrix_case> matrix_cases() {
  auto random = [](index_t r, index_t c, double d, std::uint64_t seed, bool dups) {
    return [=](coo_matrix<double>& a) {
      a = test::random_coo(r, c, d, seed, dups);
      return true;
    };
  };
  std::vector<matrix_case> out = {
      {"tall", random(3000, 50, 0.05, 41, true)},
      {"wide", random(50, 3000, 0.05, 42, true)},
      {"square", random(1000, 1000, 0.01, 43, true)},
      {"many_dups", random(40, 30, 4.0, 44, true)},
      {"no_dups", random(700, 500, 0.02, 45, false)},
      {"empty_rows_cols", random(5000, 4000, 0.0001, 46, true)},
      {"no_entries", random(30, 20, 0.0, 47, false)},
      {"zero_by_zero", random(0, 0, 0.0, 48, false)},
      {"zero_rows", random(0, 9, 0.0, 49, false)},
      {"one_by_one", random(1, 1, 1.0, 50, false)},
      {"one_by_one_dups", random(1, 1, 7.0, 51, true)},
      {"order_sensitive", [](coo_matrix<double>& a) { return a = order_sensitive(), true; }},
      {"huge_row", [](coo_matrix<double>& a) { return a = huge_row(), true; }},
  };
  for (const auto& m : test::real_matrices())
    out.push_back({m.name, [m](coo_matrix<double>& a) { return test::load_real(m, a); }});
  return out;
}

const coo_matrix<double>* cached(const matrix_case& mc) {
  static std::map<std::string, coo_matrix<double>> cache;
  auto it = cache.find(mc.name);
  if (it == cache.end()) {
    coo_matrix<double> a;
    if (!mc.make(a)) return nullptr;
    it = cache.emplace(mc.name, std::move(a)).first;
  }
  return &it->second;
}

using param = std::tuple<matrix_case, bool, duplicates, value_kind>;
class GpuConvert : public test::gpu_test_with_param<param> {};

template <class T>
void check_identical(const coo_matrix<double>& a64, csr_options opt) {
  const coo_matrix<T> a = value_cast<T>(a64);
  const csr_matrix<T> host = to_csr(a, opt);
  const csr_matrix<T> gpu = to_csr_on_gpu(a, opt);
  EXPECT_TRUE(test::valid_csr(gpu));
  EXPECT_TRUE(test::same_csr(gpu, host));
}

TEST_P(GpuConvert, IdenticalToHostConversion) {
  const auto& [mc, transpose, dup, kind] = GetParam();
  const coo_matrix<double>* a = cached(mc);
  if (!a) GTEST_SKIP() << mc.name << " not present";
  if (kind == value_kind::f32)
    check_identical<float>(*a, {transpose, dup});
  else
    check_identical<double>(*a, {transpose, dup});
}

INSTANTIATE_TEST_SUITE_P(All, GpuConvert,
                         ::testing::Combine(::testing::ValuesIn(matrix_cases()), ::testing::Bool(),
                                            ::testing::Values(duplicates::sum, duplicates::keep_one),
                                            ::testing::Values(value_kind::f32, value_kind::f64)),
                         [](const ::testing::TestParamInfo<param>& i) {
                           return std::get<0>(i.param).name + (std::get<1>(i.param) ? "_T_" : "_") +
                                  (std::get<2>(i.param) == duplicates::sum ? "sum" : "keep_one") + "_" +
                                  (std::get<3>(i.param) == value_kind::f32 ? "float" : "double");
                         });

// ---------------------------------------------------------------------------

class GpuConvertApi : public test::gpu_test {};

TEST_F(GpuConvertApi, OrderSensitiveSumIsTheHostOne) {
  coo_matrix<float> a;
  a.rows = a.cols = 1;
  a.row_idx = {0, 0, 0, 0};
  a.col_idx = {0, 0, 0, 0};
  a.values = {1e8f, 1.f, -1e8f, 1.f};
  const auto c = to_csr_on_gpu(a);
  ASSERT_EQ(c.values.size(), 1u);
  EXPECT_EQ(c.values[0], 1.f);
  EXPECT_EQ(to_csr_on_gpu(a, {false, duplicates::keep_one}).values[0], 1e8f);
}

TEST_F(GpuConvertApi, FromCooAlreadyOnTheDevice) {
  const coo_matrix<double> a = test::random_coo(800, 600, 0.02, 61, true);
  const cuda::device_buffer<index_t> d_row(a.row_idx), d_col(a.col_idx);
  const cuda::device_buffer<double> d_val(a.values);
  for (bool transpose : {false, true}) {
    const cuda::device_csr<double> d = to_device_csr(a.rows, a.cols, a.nnz(), d_row.data(), d_col.data(),
                                                     d_val.data(), {transpose, duplicates::sum});
    EXPECT_EQ(d.rows, transpose ? a.cols : a.rows);
    EXPECT_EQ(d.nnz(), to_csr(a).nnz());
    EXPECT_TRUE(test::same_csr(d.download(), to_csr(a, {transpose, duplicates::sum})));
  }
  // The input is read only.
  EXPECT_EQ(d_row.download(), a.row_idx);
  EXPECT_EQ(d_val.download(), a.values);
}

TEST_F(GpuConvertApi, OutOfRangeEntryIsADimensionErrorNamingIt) {
  coo_matrix<double> a;
  a.rows = 3;
  a.cols = 4;
  a.row_idx = {0, 1, 2, 1, 2, -1};
  a.col_idx = {0, 1, 2, 4, 3, 0};
  a.values = {1, 2, 3, 4, 5, 6};
  for (bool transpose : {false, true}) {
    try {
      to_csr_on_gpu(a, {transpose, duplicates::sum});
      ADD_FAILURE() << "no error";
    } catch (const dimension_error& e) {
      // Entry 3, (1, 4), is the first bad one (entry 5 is bad too).
      EXPECT_NE(std::string(e.what()).find("entry 3 (0-based) at (1, 4)"), std::string::npos) << e.what();
    }
  }
  // The device is still fine afterwards.
  a.col_idx[3] = 3;
  a.row_idx[5] = 0;
  EXPECT_TRUE(test::same_csr(to_csr_on_gpu(a), to_csr(a)));
}

TEST_F(GpuConvertApi, BadShapesAreRefusedBeforeTheDevice) {
  coo_matrix<float> a;
  a.rows = 2;
  a.cols = 2;
  a.row_idx = {0, 1};
  a.col_idx = {0};
  a.values = {1, 2};
  EXPECT_THROW(to_csr_on_gpu(a), dimension_error);
  a.rows = -2;
  a.row_idx.clear(), a.col_idx.clear(), a.values.clear();
  EXPECT_THROW(to_csr_on_gpu(a), dimension_error);
  EXPECT_THROW(to_device_csr<float>(2, 2, 5, nullptr, nullptr, nullptr), invalid_argument);
}

// Without a device (or without CUDA) the GPU conversion is a clear cuda_error.
TEST(GpuConvertNoDevice, IsACudaError) {
  if (cuda::available()) GTEST_SKIP() << "a device is present";
  coo_matrix<double> a;
  a.rows = a.cols = 2;
  a.row_idx = {0, 1};
  a.col_idx = {1, 0};
  a.values = {1, 2};
  EXPECT_THROW(to_csr_on_gpu(a), cuda_error);
}

// ---------------------------------------------------------------------------
// Timing (PERRON_CONVERT_TIMING=1): GPU vs CPU conversion of cnr-2000.

template <class F>
double median_ms(int reps, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < 3; ++i) f();  // warm-up: module load, allocator, page faults
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

class GpuConvertTiming : public test::gpu_test {};

TEST_F(GpuConvertTiming, Cnr2000) {
  const char* on = std::getenv("PERRON_CONVERT_TIMING");
  if (!on || std::string(on) != "1") GTEST_SKIP() << "set PERRON_CONVERT_TIMING=1 to time the conversion";
  const char* reps_env = std::getenv("PERRON_CONVERT_TIMING_REPS");
  const int reps = reps_env ? std::max(1, std::atoi(reps_env)) : 100;
  coo_matrix<double> a64;
  if (!test::load_real({"cnr_2000", "graphs/cnr-2000.mtx.gz", true}, a64)) GTEST_SKIP() << "cnr-2000 absent";
  const coo_matrix<float> a = value_cast<float>(a64);
  const double in_mb = a.nnz() * (2 * sizeof(index_t) + sizeof(float)) / 1e6;

  const cuda::device_buffer<index_t> d_row(a.row_idx), d_col(a.col_idx);
  const cuda::device_buffer<float> d_val(a.values);
  const double upload_ms = median_ms(reps, [&] {
    cuda::device_buffer<index_t> r(a.row_idx), c(a.col_idx);
    cuda::device_buffer<float> v(a.values);
  });

  std::printf(
      "\ncnr-2000: %d x %d, %zu entries (float values; COO %.1f MB); %s; CPU threads %d; median of %d\n",
      a.rows, a.cols, a.nnz(), in_mb, cuda::device_description().c_str(), omp_get_max_threads(), reps);
  std::printf("upload of the COO arrays alone (pageable, 3 cudaMemcpy): %.2f ms (%.1f GB/s)\n", upload_ms,
              in_mb / upload_ms / 1e3);
  std::printf("%-10s %12s %16s %16s %16s %10s\n", "option", "cpu to_csr", "gpu host->host", "gpu host->dev",
              "gpu dev->dev", "cpu/dev");
  for (bool transpose : {false, true}) {
    const csr_options opt{transpose, duplicates::sum};
    const csr_matrix<float> host = to_csr(a, opt);
    ASSERT_TRUE(test::same_csr(to_csr_on_gpu(a, opt), host));
    const double cpu = median_ms(reps, [&] { (void)to_csr(a, opt); });
    const double h2h = median_ms(reps, [&] { (void)to_csr_on_gpu(a, opt); });
    const double h2d = median_ms(reps, [&] { (void)to_device_csr(a, opt); });
    const double d2d = median_ms(reps, [&] {
      (void)to_device_csr(a.rows, a.cols, a.nnz(), d_row.data(), d_col.data(), d_val.data(), opt);
    });
    std::printf("%-10s %9.2f ms %13.2f ms %13.2f ms %13.2f ms %9.1fx\n", transpose ? "A^T" : "A", cpu, h2h,
                h2d, d2d, cpu / d2d);
    RecordProperty(transpose ? "cpu_ms_transpose" : "cpu_ms", std::to_string(cpu));
    RecordProperty(transpose ? "gpu_dev_ms_transpose" : "gpu_dev_ms", std::to_string(d2d));
  }
}

}  // namespace
