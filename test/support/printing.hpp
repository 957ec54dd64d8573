#pragma once
// How Boost.Test prints the core's values when a check on them fails. In
// namespace openloop, where argument-dependent lookup finds them; one
// definition each, as the test files are compiled several to a unit.

#include "openloop/base/error_class.hpp"
#include "openloop/base/url.hpp"
#include "openloop/load/trace_entry.hpp"
#include "openloop/run/send_queue.hpp"
#include "openloop/watch/prometheus_text.hpp"
#include "openloop/wire/chunk.hpp"
#include "openloop/wire/exchange_fsm.hpp"
#include "openloop/wire/sse.hpp"

#include <ostream>

namespace openloop {

inline std::ostream& operator<<(std::ostream& os, error_class c) { return os << error_class_name(c); }

inline std::ostream& operator<<(std::ostream& os, const trace_entry& e) {
    return os << "{at_ns=" << e.at_ns << " in=" << e.input_tokens << " out=" << e.output_tokens
              << " blocks=" << e.hash_ids.size() << " session=" << e.session << "}";
}

inline std::ostream& operator<<(std::ostream& os, chunk_kind k) {
    constexpr const char* names[] = {"content", "role_only", "usage_only", "empty", "done", "error", "malformed"};
    return os << names[static_cast<int>(k)];
}

inline std::ostream& operator<<(std::ostream& os, send_step s) {
    constexpr const char* names[] = {"send", "prepare", "spin", "wait", "done"};
    return os << names[static_cast<int>(s)];
}

// Enumerations a failure names by number.
inline std::ostream& operator<<(std::ostream& os, prom_type t) { return os << static_cast<int>(t); }
inline std::ostream& operator<<(std::ostream& os, url_fault f) { return os << static_cast<int>(f); }
inline std::ostream& operator<<(std::ostream& os, sse_error e) { return os << static_cast<int>(e); }
inline std::ostream& operator<<(std::ostream& os, exchange_action a) { return os << static_cast<int>(a); }
inline std::ostream& operator<<(std::ostream& os, failure_text t) { return os << static_cast<int>(t); }

}  // namespace openloop
