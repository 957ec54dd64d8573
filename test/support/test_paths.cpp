#include "test_paths.hpp"

#ifndef OPENLOOP_MALLOC_COUNT
#define OPENLOOP_MALLOC_COUNT ""
#endif

namespace openloop_test {

const char* const bin = OPENLOOP_BIN;
const char* const source_dir = OPENLOOP_SOURCE_DIR;
const char* const malloc_count = OPENLOOP_MALLOC_COUNT;

}  // namespace openloop_test
