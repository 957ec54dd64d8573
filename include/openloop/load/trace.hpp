#pragma once
// Production request traces: parsing, selection (window, speed, count) and
// conversion of an entry into a request whose prompt reproduces the trace's
// shared prefixes. Pure logic; load_trace only reads the file.
//
// Accepted formats (auto-detected from the first line, or forced):
//   mooncake  JSONL {"timestamp": ms, "input_length", "output_length",
//             "hash_ids": [...]}; hash_ids name 512-token prefix blocks.
//   azure     CSV with header TIMESTAMP,ContextTokens,GeneratedTokens;
//             TIMESTAMP is wall clock "YYYY-MM-DD HH:MM:SS.fffffff" (up to 9
//             fractional digits, parsed exactly to ns; 'T' also accepted).
//   burstgpt  CSV with header Timestamp,Model,Request tokens,Response tokens,
//             Total tokens,Log Type; Timestamp in seconds (decimal, exact to ns).
//   openloop  openloop's own requests.jsonl: time from "intended_ns" (else
//             "t_ns"), "input_tokens", and output from "output_tokens" (else
//             "max_tokens"); optional "hash_ids" as in mooncake. Other
//             fields are ignored, so lines of any status replay.
// CSV columns are found by header name, in any order; LF or CRLF line ends, a
// missing final newline and a UTF-8 BOM are accepted; blank lines are ignored.
// Entries are sorted by time (stable) and at_ns is relative to the earliest,
// so 0 is the first request of a sorted trace.

#include "openloop/load/workload.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// Tokens per hash block in Mooncake traces.
inline constexpr int trace_block_tokens = 512;

enum class trace_format { auto_detect, mooncake, azure, burstgpt, openloop };

// "auto", "mooncake", "azure", "burstgpt", "openloop"; throws
// std::invalid_argument listing them.
trace_format parse_trace_format(std::string_view name);
std::string_view to_string(trace_format format);

struct trace_entry {
    std::int64_t at_ns = 0;
    int input_tokens = 0;
    int output_tokens = 0;
    std::vector<std::uint64_t> hash_ids;  // prefix blocks, empty when unknown

    friend bool operator==(const trace_entry&, const trace_entry&) = default;
};

struct trace_parse_options {
    trace_format format = trace_format::auto_detect;
    // Skip rows that do not parse instead of throwing, and count them.
    bool skip_bad_rows = false;
};

struct trace {
    trace_format format = trace_format::auto_detect;  // the format read
    std::vector<trace_entry> entries;
    std::size_t skipped_rows = 0;
    std::string first_skipped;  // the error of the first skipped row, if any
};

// The format the first line of text implies; throws std::runtime_error naming
// name when it matches none.
trace_format detect_trace_format(std::string_view text, std::string_view name);

// Parses text; name (a file name) prefixes every error: "name:LINE: field
// \"X\": what is wrong". Throws std::runtime_error.
trace parse_trace(std::string_view text, std::string_view name, const trace_parse_options& options = {});
// Reads path and parses it; errors name the path.
trace load_trace(const std::string& path, const trace_parse_options& options = {});

// Entries with start_ns <= at_ns < end_ns (end_ns < 0: no end), rebased so
// start_ns becomes 0 (gaps from the window start are kept).
std::vector<trace_entry> window_trace(std::vector<trace_entry> entries, std::int64_t start_ns,
                                      std::int64_t end_ns);
// at_ns divided by speed (> 0, else std::invalid_argument): 2 replays twice as fast.
std::vector<trace_entry> scale_trace(std::vector<trace_entry> entries, double speed);
// The first max_count entries (0: all).
std::vector<trace_entry> limit_trace(std::vector<trace_entry> entries, std::size_t max_count);

struct trace_selection {
    std::int64_t start_ns = 0;  // window, in trace time (before speed)
    std::int64_t end_ns = -1;
    double speed = 1.0;
    std::size_t max_count = 0;
};
// Window, then speed, then count.
std::vector<trace_entry> select_trace(std::vector<trace_entry> entries, const trace_selection& selection);

// The request for entry: a prompt of exactly input_tokens tokens (as builder
// counts them) in which each hash block id h contributes the content of a
// block derived from (seed, h), so requests sharing leading hash_ids share
// exactly those prefix tokens (a final partial block is a prefix of its full
// block); the rest is unique to index.
// max_tokens = output_tokens; at_ns from the entry. Lengths below 1 become 1,
// since servers reject empty prompts and max_tokens 0.
request_spec trace_request(const trace_entry& entry, std::uint64_t seed, std::uint64_t index,
                           const prompt_builder& builder = {});

}  // namespace openloop
