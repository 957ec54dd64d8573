#pragma once
// Multi-turn sessions: how many turns session s has and how long its user
// thinks before each follow-up, as pure functions of the configuration and s
// (so shards and reruns agree); and a conversation's history, the messages
// every later turn's body carries. No sockets, no clocks.

#include "openloop/load/conversations.hpp"
#include "openloop/load/tool_calls.hpp"
#include "openloop/load/trace_sessions.hpp"
#include "openloop/load/workload.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// A distribution of durations, parsed from a flag value (each DURATION as
// base/quantity.hpp reads one: a bare number is seconds):
//   DURATION                        always that
//   uniform:MIN:MAX                 equally likely in [MIN, MAX]
//   exponential:MEAN                memoryless, as a user who may answer at once
//   lognormal:MEDIAN:SIGMA          exp(N(ln MEDIAN, SIGMA²)), capped at 1 hour
class duration_dist {
public:
    enum class kind { fixed, uniform, exponential, lognormal };
    // Throws std::invalid_argument naming what and the accepted syntax.
    static duration_dist parse(std::string_view spec, std::string_view what);
    std::int64_t sample_ns(request_rng& rng) const;
    double mean_s() const;
    std::string describe() const;

private:
    kind kind_ = kind::fixed;
    double a_ = 0, b_ = 0;  // seconds (lognormal: MEDIAN, SIGMA)
};

struct session_config {
    std::string turns;              // --turns, a length_dist; empty: single requests (or recorded turns)
    std::string think_time = "0";   // --think-time, a duration_dist
    std::uint64_t seed = 0;
    // --conversations: session s replays conversation s mod n's user turns (read once, shared).
    std::string conversations_file;
    std::shared_ptr<const conversation_file> conversations;
    // A --trace whose rows carry session ids: session s is the trace's session s, once.
    std::shared_ptr<const trace_sessions> traced;
    // --max-tool-steps with --tools (load/tools.hpp): each user turn may be followed by this many
    // tool-result requests, which take request indexes of their own; 0: no tools.
    int tool_steps = 0;
    bool enabled() const { return !turns.empty() || conversations != nullptr || traced != nullptr; }
};

// The most turns a session may have: request indexes are session * stride +
// request, so the stride (the distribution's maximum, times 1 + the tool steps
// a turn may take) must stay small.
inline constexpr int max_session_turns = 1000;

class session_plan {
public:
    // Throws std::invalid_argument on a bad --turns or --think-time.
    explicit session_plan(const session_config& config);
    bool enabled() const { return stride_ > 0; }
    int turns(std::uint64_t session) const;
    // The recorded conversation session replays; null for synthetic sessions.
    const recorded_conversation* recorded(std::uint64_t session) const;
    // The trace session session replays (session mod their count: --loop laps the trace;
    // null for the others), and how many the trace has.
    const trace_session* traced(std::uint64_t session) const;
    std::size_t traced_count() const { return traced_ ? traced_->sessions.size() : 0; }
    // How long the user waits after turn - 1's answer before sending turn (>= 1).
    std::int64_t think_ns(std::uint64_t session, int turn) const;
    // Request indexes: the k-th request of session s (from 0: its user turns
    // and, with tools, their tool-result requests, in the order sent) is
    // s * stride() + k, so the reporter reads a request's place in its session
    // from its index alone; without tools, k is the turn.
    int stride() const { return stride_; }
    std::uint64_t request_index(std::uint64_t session, int turn) const {
        return session * static_cast<std::uint64_t>(stride_) + static_cast<std::uint64_t>(turn);
    }
    // "turns uniform:2:8, think exponential:5s" (or "conversations FILE (N), think ...", or
    // "the trace's 40 sessions, up to 12 turns").
    std::string describe() const;

private:
    length_dist turns_;
    duration_dist think_;
    std::shared_ptr<const conversation_file> recorded_;
    std::shared_ptr<const trace_sessions> traced_;
    std::uint64_t seed_ = 0;
    int stride_ = 0;
    std::string describe_;  // a recorded source's words
};

// A conversation so far: the messages turn k sends before its own (every
// earlier user message and the assistant's actual answer to it, with an
// agent's tool calls and the tools' results). Cleared between sessions, its
// memory is kept for the next.
struct chat_message {
    std::string_view role;  // "system", "user", "assistant" or "tool"
    std::string text;       // the content; an assistant's tool calls have none (null)
    // An assistant message that called tools: each call's id, function name and arguments as
    // streamed, every one answered by a tool message after it. A tool message answers call_id.
    tool_call_list calls;
    std::string call_id;
};

class conversation {
public:
    void clear() { size_ = 0; }
    // The next message, emptied, to fill in place (its strings' capacity reused).
    chat_message& add_message(std::string_view role);
    // The next message's text, to fill in place.
    std::string& add(std::string_view role) { return add_message(role).text; }
    std::size_t size() const { return size_; }
    const chat_message& operator[](std::size_t i) const { return messages_[i]; }

private:
    std::vector<chat_message> messages_;
    std::size_t size_ = 0;
};

}  // namespace openloop
