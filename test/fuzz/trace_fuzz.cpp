// Every trace reader (Mooncake, Azure, BurstGPT, openloop logs, a
// --trace-columns mapping) on arbitrary text. Input: a format byte
// (auto-detect, one forced preset, or a mapping), a flags byte (skip bad
// rows; a selection to apply), then the file's text; for a mapping, the
// text's first line is the --trace-columns spec and a byte before it the
// CSV delimiter (0: detected).
// Invariants: a bad file throws std::runtime_error whose message names the
// file, nothing else escapes; a parsed trace has a concrete format, entries
// sorted with the first at 0 and no negative lengths, and skipped rows only
// when asked; selecting from it keeps order and the window, count and speed.
// A mapping that parses prints as a spec that parses back to it; a bad one
// throws input_error naming --trace-columns; a literal prompt is never empty.

#include "fuzz_input.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/load/trace.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {

using openloop::trace_entry;
using openloop::trace_format;

constexpr trace_format formats[] = {trace_format::auto_detect, trace_format::mooncake, trace_format::azure,
                                    trace_format::burstgpt, trace_format::openloop, trace_format::columns};
constexpr char delimiters[] = {0, ',', ';', '\t', '|'};

bool sorted(const std::vector<trace_entry>& entries) {
    return std::is_sorted(entries.begin(), entries.end(),
                          [](const trace_entry& x, const trace_entry& y) { return x.at_ns < y.at_ns; });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::input in(data, size);
    openloop::trace_parse_options options;
    options.format = formats[in.byte() % std::size(formats)];
    const std::uint8_t flags = in.byte();
    options.skip_bad_rows = (flags & 1) != 0;
    std::string_view text = in.rest();
    if (options.format == trace_format::columns) {
        options.format = trace_format::auto_detect;
        options.delimiter = delimiters[in.byte() % std::size(delimiters)];
        text = in.rest();
        const std::size_t end = text.find('\n');
        const std::string_view spec = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        try {
            options.columns = openloop::parse_trace_columns(spec);
        } catch (const openloop::input_error& e) {
            FUZZ_CHECK(std::string_view(e.what()).starts_with("--trace-columns "));
            return 0;
        }
        FUZZ_CHECK(openloop::parse_trace_columns(openloop::to_string(*options.columns)) == *options.columns);
    }

    openloop::trace t;
    try {
        t = openloop::parse_trace(text, "fuzz.trace", options);
    } catch (const openloop::input_error& e) {
        // Bad input is the user's (exit 2), and names the file.
        FUZZ_CHECK(std::string_view(e.what()).starts_with("fuzz.trace"));
        return 0;
    }
    FUZZ_CHECK(t.format != trace_format::auto_detect);
    FUZZ_CHECK(options.format == trace_format::auto_detect || t.format == options.format);
    FUZZ_CHECK(!options.columns || t.format == trace_format::columns);
    FUZZ_CHECK(t.skipped_lines.size() == std::min(t.skipped_rows, openloop::trace_skipped_lines_kept));
    FUZZ_CHECK(options.skip_bad_rows || t.skipped_rows == 0);
    FUZZ_CHECK((t.skipped_rows == 0) == t.first_skipped.empty());
    FUZZ_CHECK(sorted(t.entries));
    FUZZ_CHECK(t.entries.empty() || t.entries.front().at_ns == 0);
    for (const trace_entry& e : t.entries) {
        FUZZ_CHECK(e.input_tokens >= 0 && e.output_tokens >= 0);
        FUZZ_CHECK(!options.columns || options.columns->prompt.empty() || !e.prompt.empty());
    }

    if (t.entries.empty() || (flags & 2) == 0) return 0;
    // A selection in the range the flags accept: a window from the middle
    // entry, speeds 0.25..4, a count of 0..7.
    openloop::trace_selection sel;
    sel.start_ns = t.entries[t.entries.size() / 2].at_ns;
    sel.end_ns = (flags & 4) ? -1 : sel.start_ns + (std::int64_t{1} << (flags >> 3));
    sel.speed = 0.25 * (1 + ((flags >> 3) & 15));
    sel.max_count = (flags >> 5) & 7;
    const auto picked = openloop::select_trace(t.entries, sel);
    FUZZ_CHECK(sorted(picked));
    FUZZ_CHECK(sel.max_count == 0 || picked.size() <= sel.max_count);
    FUZZ_CHECK(picked.size() <= t.entries.size());
    for (const trace_entry& e : picked) FUZZ_CHECK(e.at_ns >= 0);
    return 0;
}
