#pragma once
// Which column of a trace holds what: the --trace-columns mapping, and the
// built-in formats as presets of it. Pure logic.
//
//   time=NAME[:s|ms|us|ns|iso],input=NAME,output=NAME[,prompt=NAME][,session=NAME][,prefix=NAME]
//
// NAME is a CSV header cell (matched exactly, else ignoring case) or a JSONL
// key; a dotted path (usage.prompt_tokens) reaches into nested objects. The
// time unit defaults to s (a NAME holding ':' needs it: time=a:b:s). With prompt= the request sends that text and
// input= is optional (the prompt's word count then stands for its length).
// prefix= names a cell of hash block ids (a JSON array, or ids separated by
// blanks, ';' or '|') as Mooncake's hash_ids; session= a conversation id.

#include "openloop/load/trace_values.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace openloop {

enum class trace_format { auto_detect, mooncake, azure, burstgpt, openloop, columns };
// The names --trace-format takes, for messages.
inline constexpr std::string_view trace_format_names = "auto, mooncake, azure, burstgpt, openloop";

// "auto", "mooncake", "azure", "burstgpt", "openloop"; throws input_error
// listing them. ("columns", a --trace-columns mapping, is no flag value.)
trace_format parse_trace_format(std::string_view name);
std::string_view to_string(trace_format format);

struct trace_columns {
    // Each column by its names: the first one present is used (a preset may
    // give alternatives, as openloop's logs have intended_ns or else t_ns).
    // An empty list: not mapped.
    std::vector<std::string> time, input, output, prompt, session, prefix;
    time_unit unit = time_unit::s;
    // A preset may read a file whose rows lack prefix (Mooncake, openloop):
    // then a missing prefix cell is no ids. A user's mapping requires it.
    bool prefix_optional = false;
    // Likewise a session cell (openloop's requests.jsonl has one only from sessions runs).
    bool session_optional = false;

    friend bool operator==(const trace_columns&, const trace_columns&) = default;
};

// Parses a --trace-columns value; throws input_error naming --trace-columns
// and what is wrong (unknown or repeated key, missing time or output, no
// input and no prompt, unknown unit).
trace_columns parse_trace_columns(std::string_view spec);

// The canonical spec: parse_trace_columns(to_string(c)) == c for a user's
// mapping (a preset's alternatives are joined with '|').
std::string to_string(const trace_columns& columns);

// The mapping of a built-in format (not auto_detect or columns).
trace_columns preset_columns(trace_format format);

}  // namespace openloop
