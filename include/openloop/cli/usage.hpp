#pragma once
// How a command tells its user they got the command line wrong.

#include <stdexcept>

namespace openloop {

// --help lines: wide enough that descriptions read as sentences.
inline constexpr unsigned help_width = 120;

// Thrown for bad flags and values; main prints it and exits with status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace openloop
