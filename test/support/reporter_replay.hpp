#pragma once
// What the reporter's unit tests share: requests as the io thread's events,
// replayed through a real ring into a running reporter, and the files it
// writes read back.

#include "events.hpp"
#include "openloop/measure/reporter.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace reporter_test {

using namespace openloop;

constexpr std::int64_t ms_ns = 1'000'000;
// Synthetic steady-clock origin: far from 0, like a real CLOCK_MONOTONIC reading.
constexpr std::int64_t base = 1'000'000 * ms_ns;

// One successful request: intended at t0, sent 1 ms late, headers at +5 ms,
// content chunks at the given offsets (ms, with their token counts), done
// 1 ms after the last chunk with usage completion tokens `usage` (-1: none).
inline void add_ok(std::vector<event>& out, std::uint64_t index, std::int64_t t0,
            const std::vector<std::pair<double, int>>& chunks, int usage = -1, int input_tokens = 100,
            bool warmup = false) {
    out.push_back(ev(event_kind::start, index, t0, input_tokens, 256, warmup ? std::int64_t{flag_warmup} : 0));
    out.push_back(ev(event_kind::sent, index, t0 + 1 * ms_ns));
    out.push_back(ev(event_kind::headers, index, t0 + 5 * ms_ns, 200));
    std::int64_t last = t0 + 5 * ms_ns;
    for (const auto& [at_ms, tokens] : chunks) {
        last = t0 + static_cast<std::int64_t>(at_ms * ms_ns);
        out.push_back(ev(event_kind::chunk, index, last, tokens, 4));
    }
    out.push_back(ev(event_kind::done, index, last + 1 * ms_ns, usage, usage >= 0 ? input_tokens : -1, -1));
}

// Pushes the events through a real (small, so it wraps) ring into a running
// reporter, as the io thread would, and returns what it accumulated.
inline run_stats replay(const std::vector<event>& events, reporter_options options = {}) {
    options.follow_clock = false;  // synthetic timestamps: windows follow the events only
    spsc_ring<event> ring(16);
    reporter rep(ring, options);
    rep.start();
    for (const event& e : events) {
        while (!ring.try_push(e)) {
            std::this_thread::yield();
        }
    }
    rep.finish();
    return rep.stats();
}

inline double mean_ms(const histogram& h) { return h.mean() / 1e6; }

struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        path = std::filesystem::temp_directory_path() /
               ("openloop-reporter-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
        std::filesystem::remove_all(path);
    }
    ~temp_dir() { std::filesystem::remove_all(path); }
    static int& counter() {
        static int n = 0;
        return n;
    }
};

inline std::vector<std::string> read_lines(const std::filesystem::path& p) {
    std::ifstream f(p);
    BOOST_TEST_REQUIRE(f.good(), "cannot read " << p);
    std::vector<std::string> lines;
    for (std::string l; std::getline(f, l);) {
        lines.push_back(l);
    }
    return lines;
}

inline std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) {
        cells.push_back(c);
    }
    if (!line.empty() && line.back() == ',') {
        cells.emplace_back();
    }
    return cells;
}

}  // namespace reporter_test
