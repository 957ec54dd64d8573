#pragma once
// Replaces the global operator new in a test binary (include it in exactly one
// translation unit) so a test can prove a hot path allocates nothing.

#include <cstddef>
#include <cstdlib>
#include <new>

namespace test_alloc {
inline std::size_t allocations = 0;
inline std::size_t largest = 0;  // bytes of the largest allocation so far
}

[[gnu::noinline]] void* operator new(std::size_t n) {
    ++test_alloc::allocations;
    if (n > test_alloc::largest) test_alloc::largest = n;
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
