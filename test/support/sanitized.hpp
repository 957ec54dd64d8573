#pragma once
// Whether this test binary (and so the openloop it runs, from the same tree)
// was built with AddressSanitizer or ThreadSanitizer: such builds run several
// times slower and hold shadow memory, so timing and memory bounds meant for
// the release build are scaled there, and say so.

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OPENLOOP_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OPENLOOP_TEST_SANITIZED 1
#endif
#endif

namespace openloop_test {
#ifdef OPENLOOP_TEST_SANITIZED
inline constexpr bool sanitized = true;
#else
inline constexpr bool sanitized = false;
#endif
}  // namespace openloop_test
