// The device layer: detection, RAII buffers, copies, and the no-GPU behaviour.
#include <gtest/gtest.h>

#include <numeric>

#include "core/device.hpp"
#include "core/error.hpp"
#include "tests/support/support.hpp"

using namespace perron;

TEST(DeviceDetection, CountIsNeverNegativeAndAvailableAgrees) {
  const int n = cuda::device_count();
  EXPECT_GE(n, 0);
  EXPECT_EQ(cuda::available(), n > 0);
  if (!cuda::built()) {
    EXPECT_EQ(n, 0);
  }
}

TEST(DeviceDetection, WithoutDeviceAllocationThrowsCudaError) {
  if (cuda::available()) GTEST_SKIP() << "a device is present";
  EXPECT_THROW(cuda::device_buffer<float>(16), cuda_error);
}

class DeviceBuffer : public test::gpu_test {};

TEST_F(DeviceBuffer, RoundTripsAndMoves) {
  std::vector<double> h(100003);
  std::iota(h.begin(), h.end(), -5.5);
  cuda::device_buffer<double> d(h);
  EXPECT_EQ(d.size(), h.size());
  EXPECT_EQ(d.download(), h);
  cuda::device_buffer<double> moved(std::move(d));
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(moved.download(), h);
  cuda::device_buffer<double> copy(h.size());
  cuda::copy_device_to_device(copy.data(), moved.data(), moved.bytes());
  EXPECT_EQ(copy.download(), h);
  EXPECT_FALSE(cuda::device_description().empty());
}

TEST_F(DeviceBuffer, EmptyBufferIsValid) {
  cuda::device_buffer<int> d(0);
  EXPECT_EQ(d.data(), nullptr);
  EXPECT_TRUE(d.download().empty());
}

TEST_F(DeviceBuffer, AbsurdAllocationIsACudaErrorNotACrash) {
  EXPECT_THROW(cuda::device_buffer<double>(std::size_t{1} << 50), cuda_error);
}
