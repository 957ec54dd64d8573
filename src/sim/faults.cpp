#include "openloop/sim/faults.hpp"

#include "openloop/base/random.hpp"

#include <string>
#include <utility>

namespace openloop {

double fault_config::total() const {
    return http_429 + http_500 + http_503 + disconnect + bad_chunk + stall + slow_first_byte;
}

std::string_view fault_name(fault f) {
    switch (f) {
    case fault::none: return "none";
    case fault::http_429: return "http_429";
    case fault::http_500: return "http_500";
    case fault::http_503: return "http_503";
    case fault::disconnect: return "disconnect";
    case fault::bad_chunk: return "bad_chunk";
    case fault::stall: return "stall";
    case fault::slow_first_byte: return "slow_first_byte";
    }
    return "none";
}

fault pick_fault(const fault_config& c, std::uint64_t seed, std::uint64_t request_index) {
    if (c.total() <= 0) return fault::none;
    const double u = static_cast<double>(mix64(seed ^ mix64(request_index ^ 0xfa17ULL)) >> 11) * 0x1.0p-53;
    const std::pair<double, fault> table[] = {
        {c.http_429, fault::http_429},     {c.http_500, fault::http_500},
        {c.http_503, fault::http_503},     {c.disconnect, fault::disconnect},
        {c.bad_chunk, fault::bad_chunk},   {c.stall, fault::stall},
        {c.slow_first_byte, fault::slow_first_byte},
    };
    double acc = 0;
    for (const auto& [p, f] : table) {
        acc += p;
        if (u < acc) return f;
    }
    return fault::none;
}

namespace {

// Each quirk by its --quirk name: the one list set_quirk and quirk_names read.
constexpr std::pair<std::string_view, bool sim_quirks::*> quirk_table[] = {
    {"no-role-chunk", &sim_quirks::no_role_chunk},
    {"usage-in-last-chunk", &sim_quirks::usage_in_last_chunk},
    {"always-usage", &sim_quirks::always_usage},
    {"ignore-stream-options", &sim_quirks::ignore_stream_options},
    {"no-done", &sim_quirks::no_done},
    {"keepalive-comments", &sim_quirks::keepalive_comments},
    {"empty-choices-chunk", &sim_quirks::empty_choices_chunk},
    {"error-500", &sim_quirks::error_500},
    {"absurd-usage", &sim_quirks::absurd_usage},
    {"close-after-completion", &sim_quirks::close_after_completion},
    {"close-stale", &sim_quirks::close_stale},
    {"html-200", &sim_quirks::html_200},
    {"ignore-stream", &sim_quirks::ignore_stream},
    {"no-stream-tools", &sim_quirks::no_stream_tools},
    {"thinking-answer-chunk", &sim_quirks::thinking_answer_chunk},
};

}  // namespace

bool set_quirk(sim_quirks& q, std::string_view name) {
    for (const auto& [n, member] : quirk_table) {
        if (n == name) {
            q.*member = true;
            return true;
        }
    }
    return false;
}

std::string quirk_names() {
    std::string names;
    for (const auto& [n, member] : quirk_table) names.append(names.empty() ? "" : ", ").append(n);
    return names;
}

}  // namespace openloop
