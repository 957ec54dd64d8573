#pragma once
// Where a long step before the run (a tokenizer's load: reading, parsing,
// building its vocabulary) may stop: it takes a std::stop_token and checks it
// between its parts, so that the first Ctrl-C ends it within moments
// (run/stop_signals requests the stop) instead of after seconds, or never.
// No signals here: the step only sees the token, and stays pure.

#include <cstddef>
#include <exception>
#include <stop_token>

namespace openloop {

// What a step throws at a stop point once its stop was requested. Not a
// runtime_error, which the steps' callers turn into messages about the input.
struct step_stopped : std::exception {
    const char* what() const noexcept override { return "stopped by a signal"; }
};

inline void stop_point(const std::stop_token& stop) {
    if (stop.stop_requested()) throw step_stopped();
}

// In a loop over a file's entries (a vocabulary's millions): a stop point every
// 65,536th, some milliseconds apart.
inline void stop_point(const std::stop_token& stop, std::size_t entry) {
    if (entry % 65536 == 0) stop_point(stop);
}

}  // namespace openloop
