// Profile files: the values of a function on a grid, e.g. heat1d's initial
// temperature u(x_i, 0) (--ic file:PATH), one number per grid point in grid
// order, separated by any whitespace (several on a line, or one a line); '#'
// starts a comment that runs to the end of the line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace perron::io {

// The numbers of the profile file at `path`, in file order. With `expected`
// > 0 the file must hold exactly that many: dimension_error otherwise (raised
// at the first value too many, before the rest is read). Throws io_error
// (unreadable, or a directory) and parse_error with the file and line for a
// token that is not a finite number, or for a device or pipe that starts with
// binary data (/dev/zero: refused at once, not read until memory runs out).
std::vector<double> read_profile(const std::string& path, std::size_t expected = 0);

}  // namespace perron::io
