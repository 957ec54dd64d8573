#include "openloop/load/session.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/base/random.hpp"
#include "openloop/load/length_dist.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace openloop {
namespace {

constexpr std::string_view think_syntax =
    "expected DURATION, uniform:MIN:MAX, exponential:MEAN or lognormal:MEDIAN:SIGMA "
    "(durations such as 500ms or 2s, a bare number is seconds; SIGMA >= 0)";
constexpr double longest_think_s = 3600;
constexpr std::uint64_t turns_salt = 0x1f83d9abfb41bd6bULL;
constexpr std::uint64_t think_salt = 0x5be0cd19137e2179ULL;

std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> parts;
    for (std::size_t at = 0;;) {
        const std::size_t colon = s.find(':', at);
        parts.push_back(s.substr(at, colon - at));
        if (colon == std::string_view::npos) return parts;
        at = colon + 1;
    }
}

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%gs", s);
    return buf;
}

}  // namespace

duration_dist duration_dist::parse(std::string_view spec, std::string_view what) {
    const std::string field(what);
    const auto bad = [&](const std::string& why) {
        return std::invalid_argument(field + " " + std::string(spec) + ": " + why + "; " + std::string(think_syntax));
    };
    const auto parts = split(spec);
    const auto seconds = [&](std::string_view text) {
        try {
            return parse_duration_s(text, what);
        } catch (const std::exception&) {
            throw bad("\"" + std::string(text) + "\" is not a duration");
        }
    };
    duration_dist d;
    if (parts.size() == 1) {
        d.a_ = seconds(parts[0]);
    } else if (parts[0] == "uniform" && parts.size() == 3) {
        d.kind_ = kind::uniform;
        d.a_ = seconds(parts[1]);
        d.b_ = seconds(parts[2]);
        if (d.b_ < d.a_) throw bad("MAX is below MIN");
    } else if (parts[0] == "exponential" && parts.size() == 2) {
        d.kind_ = kind::exponential;
        d.a_ = seconds(parts[1]);
    } else if (parts[0] == "lognormal" && parts.size() == 3) {
        d.kind_ = kind::lognormal;
        d.a_ = seconds(parts[1]);
        const auto sigma = as_number(parts[2]);
        if (!sigma || !std::isfinite(*sigma) || *sigma < 0) throw bad("SIGMA must be a number >= 0");
        d.b_ = *sigma;
        if (d.a_ <= 0) throw bad("MEDIAN must be above 0");
    } else {
        throw bad("unknown form");
    }
    if (std::max(d.a_, d.b_) > longest_think_s && d.kind_ != kind::lognormal)
        throw bad("a think time is at most 1h");
    return d;
}

std::int64_t duration_dist::sample_ns(request_rng& rng) const {
    double s = a_;
    switch (kind_) {
    case kind::fixed: break;
    case kind::uniform: s = a_ + (b_ - a_) * unit_open(rng); break;
    case kind::exponential: s = -a_ * std::log(unit_open(rng)); break;
    case kind::lognormal: {
        const double z = std::sqrt(-2.0 * std::log(unit_open(rng))) * std::cos(2.0 * std::numbers::pi * unit_open(rng));
        s = a_ * std::exp(b_ * z);
        break;
    }
    }
    return static_cast<std::int64_t>(std::llround(std::min(s, longest_think_s) * 1e9));
}

double duration_dist::mean_s() const {
    switch (kind_) {
    case kind::fixed: return a_;
    case kind::uniform: return (a_ + b_) / 2;
    case kind::exponential: return a_;
    case kind::lognormal: return std::min(a_ * std::exp(b_ * b_ / 2), longest_think_s);
    }
    return a_;
}

std::string duration_dist::describe() const {
    switch (kind_) {
    case kind::fixed: return seconds_text(a_);
    case kind::uniform: return "uniform:" + seconds_text(a_) + ":" + seconds_text(b_);
    case kind::exponential: return "exponential:" + seconds_text(a_);
    case kind::lognormal: {
        char sigma[32];
        std::snprintf(sigma, sizeof sigma, "%g", b_);
        return "lognormal:" + seconds_text(a_) + ":" + sigma;
    }
    }
    return {};
}

session_plan::session_plan(const session_config& config)
    : recorded_(config.conversations), traced_(config.traced), seed_(config.seed) {
    if (config.tool_steps < 0) throw std::invalid_argument("--max-tool-steps must not be negative");
    // Each user turn's requests: itself and its tool steps.
    const int per_turn = 1 + config.tool_steps;
    if (traced_) {
        stride_ = std::max(1, traced_->max_turns) * per_turn;
        describe_ = "the trace's " + std::to_string(traced_->sessions.size()) + " sessions, up to " +
                    std::to_string(traced_->max_turns) + " turns";
        return;
    }
    if (recorded_) {
        think_ = duration_dist::parse(config.think_time, "--think-time");
        stride_ = static_cast<int>(recorded_->max_turns) * per_turn;
        describe_ = "conversations " + config.conversations_file + " (" + std::to_string(recorded_->conversations.size()) +
                    ")";
        return;
    }
    if (config.turns.empty()) return;
    turns_ = length_dist::parse(config.turns, "--turns");
    if (turns_.max() > max_session_turns)
        throw std::invalid_argument("--turns " + config.turns + ": a session has at most " +
                                    std::to_string(max_session_turns) +
                                    " turns; give the distribution a maximum, e.g. lognormal:4:0.6:1:30");
    think_ = duration_dist::parse(config.think_time, "--think-time");
    stride_ = turns_.max() * per_turn;
}

const recorded_conversation* session_plan::recorded(std::uint64_t session) const {
    if (!recorded_) return nullptr;
    return &recorded_->conversations[session % recorded_->conversations.size()];
}

const trace_session* session_plan::traced(std::uint64_t session) const {
    return traced_ && !traced_->sessions.empty() ? &traced_->sessions[session % traced_->sessions.size()] : nullptr;
}

int session_plan::turns(std::uint64_t session) const {
    if (const trace_session* t = traced(session)) return static_cast<int>(t->turns.size());
    if (const recorded_conversation* c = recorded(session)) return static_cast<int>(c->turns.size());
    request_rng rng(mix64(mix64(seed_ ^ turns_salt) ^ session));
    return turns_.sample(rng);
}

std::int64_t session_plan::think_ns(std::uint64_t session, int turn) const {
    request_rng rng(mix64(mix64(seed_ ^ think_salt) ^ request_index(session, turn)));
    return think_.sample_ns(rng);
}

std::string session_plan::describe() const {
    if (traced_) return describe_;
    return (recorded_ ? describe_ : "turns " + turns_.describe()) + ", think " + think_.describe();
}

chat_message& conversation::add_message(std::string_view role) {
    if (size_ == messages_.size()) messages_.emplace_back();
    chat_message& m = messages_[size_++];
    m.role = role;
    m.text.clear();
    m.calls.clear();
    m.call_id.clear();
    return m;
}

}  // namespace openloop
