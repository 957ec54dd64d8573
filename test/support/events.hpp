#pragma once
// Building the io thread's events by hand, for tests that feed the reporter.

#include "openloop/measure/event.hpp"

#include <cstdint>

inline openloop::event ev(openloop::event_kind kind, std::uint64_t request, std::int64_t t, std::int64_t a = 0,
                          std::int64_t b = 0, std::int64_t v = 0) {
    openloop::event e;
    e.kind = kind;
    e.request = request;
    e.t_ns = t;
    e.a = a;
    e.b = b;
    e.v = v;
    return e;
}
