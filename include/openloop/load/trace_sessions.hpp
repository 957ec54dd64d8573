#pragma once
// A trace's sessions: rows that share a session id (--trace-columns
// session=NAME, or the "session" of openloop's own requests.jsonl) are the
// turns of one conversation, in time order. Pure logic.
//
// A session's first turn is due at its row's time; each later turn at that
// row's time or at the end of the answer it follows, whichever is later (a
// slower server than the recorded one pushes the conversation later, never
// a turn before its answer). A row's input= is its whole prompt as the
// server counted it, history included: a later turn sends the conversation
// so far (earlier messages, the actual answers) and a new message of what
// its prompt holds beyond that. A row without an id is a session of one turn.
// --loop (and a soak) replays the sessions lap after lap, a trace period apart.

#include "openloop/load/trace.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace openloop {

struct trace_session {
    std::vector<std::size_t> turns;  // indexes into the trace's entries, in time order
};

struct trace_sessions {
    std::vector<trace_session> sessions;  // in order of their first turn
    int max_turns = 0;
};

// True when some entry carries a session id.
bool has_session_ids(const std::vector<trace_entry>& entries);

// Groups entries (sorted by time, as parse_trace leaves them) by session id.
// Throws input_error naming the id of a session with more than max_turns
// turns, as name (the trace file) says.
trace_sessions group_trace_sessions(const std::vector<trace_entry>& entries, int max_turns, std::string_view name);

// The request of a session's turn: the first turn (history_tokens 0) as
// trace_request builds it, shared prefix blocks and all; a later one a new
// message of entry.input_tokens - history_tokens tokens (at least 1), unique
// to index, its blocks being in the history. A literal prompt= cell is the
// turn's own message either way.
void trace_turn_request(const trace_entry& entry, std::int64_t history_tokens, std::uint64_t seed,
                        std::uint64_t index, const prompt_builder& builder, request_spec& out);

}  // namespace openloop
