// CPU vector operations against plain loops in long double.
#include "kernels/vector_ops.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/memory.hpp"
#include "tests/support/support.hpp"
#include "tests/support/typed.hpp"

namespace perron {
namespace {

template <class T>
using vector_ops_cpu = test::typed<T>;
TYPED_TEST_SUITE(vector_ops_cpu, test::value_types);

// widen on any team (the GPU solver sizes its own): every element converted
// exactly once, the ends of uneven shares included.
TYPED_TEST(vector_ops_cpu, WidenOnAnyTeam) {
  using T = TypeParam;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(100003)}) {
    const auto xd = test::random_vector(n, 3);
    const std::vector<T> x(xd.begin(), xd.end());
    for (int team : {0, 1, 3, 16}) {
      std::vector<double> y(n + 1, -7.0);
      widen(n, x.data(), y.data(), team);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], static_cast<double>(x[i])) << n << " " << team;
      EXPECT_EQ(y[n], -7.0) << "past the end, team " << team;
    }
  }
}

// OMP_NUM_THREADS and the threads allowed as they were, when it ends.
class thread_settings_kept {
 public:
  thread_settings_kept() : threads_(omp_get_max_threads()) {
    const char* env = std::getenv("OMP_NUM_THREADS");
    had_ = env != nullptr;
    if (had_) env_ = env;
  }
  ~thread_settings_kept() {
    if (had_)
      ::setenv("OMP_NUM_THREADS", env_.c_str(), 1);
    else
      ::unsetenv("OMP_NUM_THREADS");
    omp_set_num_threads(threads_);
  }
  thread_settings_kept(const thread_settings_kept&) = delete;
  thread_settings_kept& operator=(const thread_settings_kept&) = delete;

 private:
  int threads_;
  bool had_ = false;
  std::string env_;
};

// An iterative solve's team: one thread below two grains, a thread per half
// grain above, at most the threads allowed and every processor but one from
// 8 up; asked again inside its own scope, the same team; any grain.
TEST(solve_team, GrowsWithTheWorkLeavesACoreFromEightAndIsStableInItsScope) {
  const thread_settings_kept kept;
  const int procs = omp_get_num_procs();
  const int cap = threads_chosen_by_user() ? 1 << 30 : procs >= 8 ? procs - 1 : procs;
  for (const int threads : {1, 2, 4, 7, 8, 15, 16, 64}) {
    SCOPED_TRACE(std::to_string(threads) + " threads allowed");
    omp_set_num_threads(threads);
    for (const std::size_t grain : {std::size_t(1) << 14, parallel_grain}) {
      EXPECT_EQ(solve_team(0, grain), 1);
      EXPECT_EQ(solve_team(2 * grain - 1, grain), 1);
      EXPECT_EQ(solve_team(2 * grain, grain), std::min({threads, cap, 4}));
      EXPECT_EQ(solve_team(11 * grain / 2, grain), std::min({threads, cap, 11}));
      EXPECT_EQ(solve_team(std::size_t(1) << 34, grain), std::min(threads, cap));
      for (const std::size_t work : {5 * grain, std::size_t(1) << 34}) {
        const int team = solve_team(work, grain);
        const team_scope scope(team);
        EXPECT_EQ(solve_team(work, grain), team);
      }
    }
    EXPECT_EQ(solve_team(std::size_t(1) << 34, 0), std::min(threads, cap));  // no grain: every thread allowed
  }
  // The user's OMP_NUM_THREADS is taken as it is: no core left.
  ::setenv("OMP_NUM_THREADS", "64", 1);
  for (const int threads : {1, 8, 16, 64}) {
    omp_set_num_threads(threads);
    EXPECT_EQ(solve_team(std::size_t(1) << 34), threads);
  }
}

// A run's team: every processor but one from 8 up, at most the threads
// allowed; the threads allowed as they are where the user set OMP_NUM_THREADS.
TEST(process_team, LeavesACoreFromEightUnlessTheUserChose) {
  const thread_settings_kept kept;
  const int procs = omp_get_num_procs();
  for (const int threads : {1, 4, 7, 8, 15, 16, 64}) {
    SCOPED_TRACE(std::to_string(threads) + " threads allowed");
    omp_set_num_threads(threads);
    ::unsetenv("OMP_NUM_THREADS");
    EXPECT_EQ(process_team(), procs >= 8 ? std::min(threads, procs - 1) : threads);
    ::setenv("OMP_NUM_THREADS", "64", 1);
    EXPECT_EQ(process_team(), threads);
  }
}

// A solve's team: regions inside take at most it (host_threads() and
// threads_for_work follow), clamped to [1, the team outside]; nested scopes
// and exceptions give the outer team back.
TEST(team_scope, BoundsTheRegionsInsideAndRestores) {
  const int outside = omp_get_max_threads();
  {
    const team_scope one(1);
    EXPECT_EQ(omp_get_max_threads(), 1);
    EXPECT_EQ(host_threads(), 1u);
    EXPECT_EQ(threads_for_work(std::size_t(1) << 30), 1);
    int seen = 0;
#pragma omp parallel
    {
#pragma omp single
      seen = omp_get_num_threads();
    }
    EXPECT_EQ(seen, 1);
  }
  EXPECT_EQ(omp_get_max_threads(), outside);
  {
    const team_scope none(0);
    EXPECT_EQ(omp_get_max_threads(), 1);
    const team_scope more(outside + 5);  // inside `none`: bounded by the team around it
    EXPECT_EQ(omp_get_max_threads(), 1);
  }
  EXPECT_EQ(omp_get_max_threads(), outside);
  {
    const team_scope all(outside + 5);
    EXPECT_EQ(omp_get_max_threads(), outside);
    EXPECT_EQ(threads_for_work(std::size_t(1) << 30), outside);
  }
  try {
    const team_scope two(2);
    throw 1;
  } catch (int) {
  }
  EXPECT_EQ(omp_get_max_threads(), outside);
  for (int team : {-1, 0, 1, 3, outside + 1}) start_team(team);  // empty regions, any size
  EXPECT_EQ(omp_get_max_threads(), outside);
}

TYPED_TEST(vector_ops_cpu, MatchLongDoubleReferences) {
  using T = TypeParam;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(100003)}) {
    const auto xd = test::random_vector(n, 1), yd = test::random_vector(n, 2);
    const std::vector<T> x(xd.begin(), xd.end()), y(yd.begin(), yd.end());
    long double dot_ref = 0, inf_ref = 0;
    for (std::size_t i = 0; i < n; ++i) {
      dot_ref += (long double)x[i] * (long double)y[i];
      inf_ref = std::max(inf_ref, std::abs((long double)x[i]));
    }
    // Products of T are exact in double; the sum's rounding is ~n eps_double.
    EXPECT_NEAR(dot(n, x.data(), y.data()), double(dot_ref), 1e-12 * (1 + double(n)));
    EXPECT_NEAR(nrm2(n, x.data()), std::sqrt(double(dot(n, x.data(), x.data()))), 1e-12);
    EXPECT_EQ(norm_inf(n, x.data()), double(inf_ref));
    std::vector<T> z(y);
    axpby(n, T(2), x.data(), T(-0.5), z.data());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(z[i], T(2) * x[i] + T(-0.5) * y[i]);
    z.assign(n, std::numeric_limits<T>::quiet_NaN());
    axpby(n, T(3), x.data(), T(0), z.data());  // beta = 0: old NaNs never leak
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(z[i], T(3) * x[i]);
    fill(n, T(1.5), z.data());
    for (T v : z) ASSERT_EQ(v, T(1.5));
    copy(n, x.data(), z.data());
    EXPECT_EQ(z, x);
    scale(n, T(-2), z.data());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(z[i], T(-2) * x[i]);
  }
}

// Issue 16: the reductions are bitwise reproducible run to run (chunk partials
// added in chunk order, not in the order the threads finish). 20 calls of each
// on ~10^6 random values must give the same bits.
TYPED_TEST(vector_ops_cpu, ReductionsAreBitwiseReproducible) {
  using T = TypeParam;
  constexpr std::size_t n = 1000003;
  constexpr int calls = 20;
  const auto xd = test::random_vector(n, 41), yd = test::random_vector(n, 42);
  const std::vector<T> x(xd.begin(), xd.end()), y(yd.begin(), yd.end());
  using reduce_fn = double (*)(const std::vector<T>&, const std::vector<T>&);
  const std::pair<const char*, reduce_fn> reductions[] = {
      {"dot",
       [](const std::vector<T>& a, const std::vector<T>& b) { return dot(a.size(), a.data(), b.data()); }},
      {"nrm2", [](const std::vector<T>& a, const std::vector<T>&) { return nrm2(a.size(), a.data()); }},
      {"norm_inf",
       [](const std::vector<T>& a, const std::vector<T>&) { return norm_inf(a.size(), a.data()); }},
  };
  for (const auto& [name, reduce] : reductions) {
    SCOPED_TRACE(name);
    const double first = reduce(x, y);
    EXPECT_TRUE(std::isfinite(first));
    for (int k = 1; k < calls; ++k) {
      const double again = reduce(x, y);
      ASSERT_EQ(std::memcmp(&first, &again, sizeof(double)), 0)
          << "call " << k << ": " << again << " vs " << first;
    }
  }
}

TEST(vector_ops_cpu, NormInfPropagatesNan) {
  std::vector<double> x(50000, 1.0);
  x[31337] = std::nan("");
  EXPECT_TRUE(std::isnan(norm_inf(x.size(), x.data())));
  x[31337] = -INFINITY;
  EXPECT_EQ(norm_inf(x.size(), x.data()), INFINITY);
}

}  // namespace
}  // namespace perron
