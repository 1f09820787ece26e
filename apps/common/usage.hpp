// The command lines' one error type for a bad option value or combination:
// apps/common/app.cpp reports it like every other Boost.Program_options error
// (one line, exit 64).
#pragma once

#include <boost/program_options/errors.hpp>

namespace perron::app {

struct usage_error : boost::program_options::error {
  using boost::program_options::error::error;
};

}  // namespace perron::app
