#pragma once
// Production request traces: parsing, and conversion of an entry into a
// request whose prompt reproduces the trace's shared prefixes (the selection:
// trace_selection.hpp). Pure logic; load_trace only reads the file.
//
// Every format is a column mapping (trace_columns.hpp) read by one parser:
// the built-in formats are its presets, auto-detected from the first line:
//   mooncake  JSONL {"timestamp": ms, "input_length", "output_length",
//             "hash_ids": [...]}; hash_ids name 512-token prefix blocks.
//   azure     CSV with header TIMESTAMP,ContextTokens,GeneratedTokens;
//             TIMESTAMP is wall clock "YYYY-MM-DD HH:MM:SS.fffffff".
//   burstgpt  CSV with header Timestamp,Model,Request tokens,Response tokens,
//             Total tokens,Log Type; Timestamp in seconds.
//   openloop  openloop's own requests.jsonl: time from "intended_ns" (else
//             "t_ns"), "input_tokens", and output from "output_tokens" (else
//             "max_tokens"); optional "hash_ids" as in mooncake. Other
//             fields are ignored, so lines of any status replay.
// A --trace-columns mapping reads any other CSV or JSONL log (JSONL when the
// first line starts with '{'). CSV (csv_reader.hpp): the delimiter is given
// or detected from the header (, ; tab |), quoted fields, columns found by
// header name in any order. Both: LF or CRLF, a missing final newline and a
// UTF-8 BOM are accepted, blank lines ignored. Numbers are read exactly from
// their text (trace_values.hpp). Entries are sorted by time (stable) and
// at_ns is relative to the earliest, so 0 is the first request.
//
// A long trace costs what its selection keeps, not its length: rows are read
// one by one and only those the selection may need are kept (trace_keeper.hpp);
// rows in time order (Mooncake, Azure and BurstGPT traces are) only as far as
// it needs (its window's end, its count), and the rows after a complete
// selection are taken to be in order; a trace out of order is read twice.
// load_trace maps the file rather than reading it into memory, and hands back
// the pages it has read past.

#include "openloop/load/trace_columns.hpp"
#include "openloop/load/trace_entry.hpp"
#include "openloop/load/trace_request.hpp"
#include "openloop/load/trace_selection.hpp"
#include "openloop/load/workload.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

struct trace_parse_options {
    trace_format format = trace_format::auto_detect;
    // Skip rows that do not parse instead of throwing, and count them.
    bool skip_bad_rows = false;
    // A mapping for any CSV or JSONL log instead of a format (format must
    // then be auto_detect).
    std::optional<trace_columns> columns;
    char delimiter = 0;  // CSV: 0 detects it from the header line
    // What the rows are read for: only its window and count matter here.
    // pick_trace with it selects the same from what is kept as from the
    // whole trace.
    trace_selection selection;
};

// How many skipped rows a trace names by line.
inline constexpr std::size_t trace_skipped_lines_kept = 5;

struct trace {
    trace_format format = trace_format::auto_detect;  // the format read
    std::vector<trace_entry> entries;  // those the selection may need
    std::size_t rows_read = 0;         // rows parsed, kept or not, up to where the selection was complete
    trace_columns columns;  // the mapping read with (a preset's, or the given one)
    std::size_t skipped_rows = 0;
    std::vector<std::size_t> skipped_lines;  // of the first trace_skipped_lines_kept skipped rows
    std::string first_skipped;  // the error of the first skipped row, if any
};

// The format the first line of text implies; throws std::runtime_error naming
// name when it matches none.
trace_format detect_trace_format(std::string_view text, std::string_view name);

// Parses text; name (a file name) prefixes every error: "name:LINE: field
// \"X\": what is wrong". Throws input_error.
trace parse_trace(std::string_view text, std::string_view name, const trace_parse_options& options = {});
// Reads path and parses it; errors name the path.
trace load_trace(const std::string& path, const trace_parse_options& options = {});

}  // namespace openloop
