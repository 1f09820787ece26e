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

// A count the user chose past thread_ceiling() (64 a processor, half the
// process limit) is cut to it, with a note for the user; none below it.
TEST(process_team, CapsACountNoProcessCanStart) {
  const thread_settings_kept kept;
  const int procs = omp_get_num_procs();
  EXPECT_LE(thread_ceiling(), 64 * procs);
  EXPECT_GE(thread_ceiling(), 1);
  ::setenv("OMP_NUM_THREADS", "100000", 1);
  omp_set_num_threads(100000);
  std::string note;
  EXPECT_EQ(process_team(&note), std::min(100000, thread_ceiling()));
  EXPECT_NE(note.find("OMP_NUM_THREADS=100000 is more threads"), std::string::npos) << note;
  omp_set_num_threads(std::min(4, thread_ceiling()));
  note.clear();
  EXPECT_EQ(process_team(&note), std::min(4, thread_ceiling()));
  EXPECT_TRUE(note.empty()) << note;
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

// sqrt(sum x_i^2) in long double, whose exponent range holds every square of a double.
double nrm2_reference(const std::vector<double>& x) {
  long double s = 0;
  for (double v : x) s += (long double)v * (long double)v;
  return double(std::sqrt(s));
}

// A sum of n non-negative terms in double is off by at most (n - 1) u of
// itself (u = 2^-53), its square root by half that, plus u for the root's own
// rounding and u for the scaled squares: (n + 2) u of the norm bounds it.
double nrm2_tolerance(std::size_t n, double norm) { return double(n + 2) * 0x1p-53 * norm; }

// Vectors whose plain sum of squares overflows (1e160: the squares are 1e320)
// or underflows (1e-160: each square is a subnormal 1e-320, a multiple of
// 4.9e-324; 1e-170: every square is 0), and mixes of the three ranges Blue's
// scaling sums apart, on one thread and on several (n past the parallel
// threshold). Before, nrm2 was sqrt(dot(x, x)): inf, a value 6e-6 off, 0.
TEST(vector_ops_cpu, Nrm2NeitherOverflowsNorUnderflows) {
  const std::vector<std::vector<double>> cases = {
      std::vector<double>(1000, 1e160),
      std::vector<double>(1000, -1e-160),
      std::vector<double>(1000, 1e-170),
      {3e200, -4e200},
      {3e-200, 4e-200},
      {1e200, 1.0, 1e-200},
      {1.0, 1e-170, 0.0},
      {3e-154, 4e-155},  // one square of the medium range, one of the small
      {0.0, 5e-324},     // the smallest subnormal
      {1e308, 1e308},    // the norm itself is finite (1.41e308)
  };
  for (const auto& x : cases) {
    SCOPED_TRACE(testing::Message() << x.size() << " entries, x[0] = " << x[0]);
    const double ref = nrm2_reference(x);
    EXPECT_NEAR(nrm2(x.size(), x.data()), ref, nrm2_tolerance(x.size(), ref));
  }
  for (double scale : {1e300, 1e-300, 1.0}) {
    SCOPED_TRACE(testing::Message() << "random x " << scale);
    auto x = test::random_vector(100003, 17);
    for (double& v : x) v *= scale;
    x[5] = 1e-250;  // a small entry beside the others
    const double ref = nrm2_reference(x);
    EXPECT_NEAR(nrm2(x.size(), x.data()), ref, nrm2_tolerance(x.size(), ref));
  }
  EXPECT_EQ(nrm2(0, static_cast<const double*>(nullptr)), 0.0);
  const std::vector<double> zeros(70000, 0.0);
  EXPECT_EQ(nrm2(zeros.size(), zeros.data()), 0.0);
  const std::vector<double> beyond = {1e308, 1e308, 1e308, 1e308, 1e308};  // 2.2e308: past DBL_MAX
  EXPECT_EQ(nrm2(beyond.size(), beyond.data()), INFINITY);
  // float: every square and sum fits in double; the plain sum decides.
  for (float v : {std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()}) {
    const std::vector<float> xf(1000, v);
    const double ref = nrm2_reference(std::vector<double>(xf.begin(), xf.end()));
    EXPECT_NEAR(nrm2(xf.size(), xf.data()), ref, nrm2_tolerance(xf.size(), ref)) << v;
  }
}

// A non-finite entry is never hidden by the scaling: inf gives inf, NaN NaN
// (NaN also beside inf, and beside huge or tiny entries that take Blue's pass).
TEST(vector_ops_cpu, Nrm2PropagatesInfAndNan) {
  for (std::size_t n : {std::size_t(3), std::size_t(50000)}) {
    for (double other : {1.0, 1e200, 1e-200}) {
      SCOPED_TRACE(testing::Message() << "n " << n << ", other entries " << other);
      std::vector<double> x(n, other);
      x[1] = -INFINITY;
      EXPECT_EQ(nrm2(x.size(), x.data()), INFINITY);
      x[n - 1] = std::nan("");
      EXPECT_TRUE(std::isnan(nrm2(x.size(), x.data())));
      x[1] = other;
      EXPECT_TRUE(std::isnan(nrm2(x.size(), x.data())));
    }
  }
  const std::vector<float> f = {1.0f, std::numeric_limits<float>::infinity()};
  EXPECT_EQ(nrm2(f.size(), f.data()), INFINITY);
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
