#pragma once
// Where a test finds the binary under test and the checkout's data. Set in
// test_paths.cpp, the one test source whose compile line holds absolute paths
// (CMake's), so every other test compiles to the same object in any checkout
// and a compiler cache hits across clones in other folders.

namespace openloop_test {

extern const char* const bin;           // this build's openloop binary
extern const char* const source_dir;    // the checkout
extern const char* const malloc_count;  // the counting malloc (test/alloc), "" in sanitized trees

}  // namespace openloop_test
