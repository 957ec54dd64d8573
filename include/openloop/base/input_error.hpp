#pragma once
// Input the user got wrong: a flag's value, or a line of a file they named
// (prompts, traces, scenarios). what() names the flag, or file:line and the
// field, so the one message is enough to fix it; the CLI exits 2 (bad usage)
// on it, as on a bad flag, and 1 only for failures that are not the input's.
// In base/ so that every stage that reads input may throw it.

#include <stdexcept>

namespace openloop {

struct input_error : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

}  // namespace openloop
