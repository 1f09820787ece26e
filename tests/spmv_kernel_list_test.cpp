// The kernel list is the single source of truth for --kernel, auto, tests and bench.
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "kernels/spmv.hpp"

using namespace perron;

TEST(SpmvKernelList, NamesRoundTripAndAreUnique) {
  std::set<std::string_view> seen;
  for (spmv_kernel k : spmv_kernels()) {
    EXPECT_EQ(parse_spmv_kernel(name(k)), k);
    EXPECT_TRUE(seen.insert(name(k)).second) << name(k);
  }
  EXPECT_EQ(spmv_kernels().front(), spmv_kernel::cpu);
  EXPECT_EQ(spmv_kernels().back(), spmv_kernel::automatic);
}

TEST(SpmvKernelList, UnknownNameListsTheValidOnes) {
  try {
    parse_spmv_kernel("csr-fastest");
    FAIL() << "no exception";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("csr-scalar"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("csr-fastest"), std::string::npos);
  }
}
