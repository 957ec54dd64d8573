#pragma once
// What every fuzz target shares: reading control bytes off the front of an
// input, deriving split points from them, and failing loudly. A failed
// invariant aborts, so libFuzzer keeps the input as a crash and CI fails.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string_view>
#include <vector>

namespace fuzz {

// Control bytes first, then the payload; a short input reads zeros.
class input {
public:
    input(const std::uint8_t* data, std::size_t size) : rest_(reinterpret_cast<const char*>(data), size) {}

    std::uint8_t byte() {
        if (rest_.empty()) return 0;
        const auto b = static_cast<std::uint8_t>(rest_.front());
        rest_.remove_prefix(1);
        return b;
    }
    std::string_view rest() const { return rest_; }

private:
    std::string_view rest_;
};

// Where the pieces of an n-byte payload start (the first is 0). seed 0 feeds
// byte by byte; any other seed draws piece lengths of 1..seed bytes, so one
// control byte reaches every split granularity from single bytes up.
inline std::vector<std::size_t> split_starts(std::uint8_t seed, std::size_t n) {
    std::vector<std::size_t> starts{0};
    std::minstd_rand rng(seed + 1u);
    std::uniform_int_distribution<std::size_t> len(1, seed == 0 ? 1 : seed);
    for (std::size_t pos = len(rng); pos < n; pos += len(rng)) starts.push_back(pos);
    return starts;
}

[[noreturn]] inline void fail(const char* what, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: invariant failed: %s\n", file, line, what);
    std::abort();
}

}  // namespace fuzz

// Asserts that stay on in release builds, unlike assert().
#define FUZZ_CHECK(cond) ((cond) ? void(0) : ::fuzz::fail(#cond, __FILE__, __LINE__))
