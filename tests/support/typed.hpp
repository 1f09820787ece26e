// Typed tests over the value types (float and double) without a fixture of
// their own:
//   template <class T>
//   using my_suite = test::typed<T>;
//   TYPED_TEST_SUITE(my_suite, test::value_types);
#pragma once

#include <gtest/gtest.h>

namespace perron::test {

using value_types = ::testing::Types<float, double>;

template <class T>
class typed : public ::testing::Test {};

}  // namespace perron::test
