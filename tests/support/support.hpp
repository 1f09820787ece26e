// Shared test helpers: where the data lives, seeded random matrices, a dense
// reference, and the GPU fixture that skips without a device but fails under
// PERRON_REQUIRE_GPU=1.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/formats.hpp"

namespace perron::test {

// <repo>/data (bundled with the project; always present).
std::string data_dir();
// <repo>/../shared/data, or "" when absent (a user's clone): tests using it skip.
std::string shared_data_dir();
// Path of a file under shared data, or std::nullopt (then GTEST_SKIP).
std::optional<std::string> shared_file(const std::string& relative);

// True when PERRON_REQUIRE_GPU=1 is set.
bool gpu_required();

// Random m x n COO with about `density` fraction nonzero (seeded), values in
// [-1, 1) never exactly 0, duplicates possible when allow_duplicates.
coo_matrix<double> random_coo(index_t rows, index_t cols, double density, std::uint64_t seed,
                              bool allow_duplicates = false);

// Dense row-major reference built by summing COO triplets.
std::vector<double> dense_from_coo(const coo_matrix<double>& a);
// y = alpha * D * x + beta * y with a dense row-major D (long double accumulation).
std::vector<double> dense_spmv(const std::vector<double>& d, index_t rows, index_t cols, double alpha,
                               const std::vector<double>& x, double beta, const std::vector<double>& y);

std::vector<double> random_vector(std::size_t n, std::uint64_t seed, double lo = -1.0, double hi = 1.0);

// Sets an environment variable for a scope (value nullptr: unset), then
// restores what was there (a pinned mode, a forced rule).
class scoped_env {
 public:
  scoped_env(const char* name, const char* value);
  ~scoped_env();
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace perron::test

// Base fixture for tests that need a GPU. Use GPU_FIXTURE_SETUP() in SetUp of
// parameterized fixtures, or derive from perron::test::gpu_test.
#define PERRON_REQUIRE_DEVICE_OR_SKIP()                                               \
  do {                                                                                \
    if (!::perron::cuda::available()) {                                               \
      if (::perron::test::gpu_required())                                             \
        FAIL() << "PERRON_REQUIRE_GPU=1 but no usable CUDA device (built with CUDA: " \
               << (::perron::cuda::built() ? "yes" : "no") << ")";                    \
      else                                                                            \
        GTEST_SKIP() << "no CUDA device";                                             \
    }                                                                                 \
  } while (0)

#include "core/device.hpp"

namespace perron::test {
class gpu_test : public ::testing::Test {
 protected:
  void SetUp() override { PERRON_REQUIRE_DEVICE_OR_SKIP(); }
};
template <class Param>
class gpu_test_with_param : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override { PERRON_REQUIRE_DEVICE_OR_SKIP(); }
};
}  // namespace perron::test
