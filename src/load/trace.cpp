#include "openloop/load/trace.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/load/tokens.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace openloop {
namespace {

namespace json = boost::json;

// Thrown for one bad row; parse_trace adds file:line and decides whether to skip.
struct row_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

constexpr std::string_view format_names = "auto, mooncake, azure, burstgpt, openloop";

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
               return lower(x) == lower(y);
           });
}

std::string quoted(std::string_view s) {
    constexpr std::size_t limit = 60;
    std::string out = "\"";
    out.append(s.substr(0, limit));
    if (s.size() > limit) out.append("...");
    out.push_back('"');
    return out;
}

// Calls f(line, number) for each line without its terminator (LF or CRLF);
// a final line without a terminator counts.
template <class F>
void for_each_line(std::string_view text, F&& f) {
    std::size_t number = 0;
    while (!text.empty()) {
        ++number;
        std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        f(line, number);
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
}

std::string_view strip_bom(std::string_view text) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    return text;
}

std::string_view first_content_line(std::string_view text) {
    std::string_view found;
    bool done = false;
    for_each_line(text, [&](std::string_view line, std::size_t) {
        if (!done && !trim(line).empty()) {
            found = trim(line);
            done = true;
        }
    });
    return found;
}

// ---- numbers ---------------------------------------------------------------

std::int64_t parse_nonnegative(std::string_view field, std::string_view value, std::int64_t max) {
    std::string_view v = trim(value);
    std::int64_t out = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (v.empty() || ec != std::errc{} || ptr != v.data() + v.size() || out < 0 || out > max)
        throw row_error("field \"" + std::string(field) + "\": expected a non-negative integer up to " +
                        std::to_string(max) + ", got " + quoted(value));
    return out;
}

int parse_tokens(std::string_view field, std::string_view value) {
    return int(parse_nonnegative(field, value, std::numeric_limits<int>::max()));
}

// Up to 9 fractional digits after the point, as ns; exact, no floating point.
std::int64_t parse_fraction_ns(std::string_view digits) {
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw std::invalid_argument("fraction");
    std::int64_t ns = 0;
    for (std::size_t i = 0; i < 9; ++i) ns = ns * 10 + (i < digits.size() ? digits[i] - '0' : 0);
    return ns;
}

// "SECONDS[.FRACTION]" to ns, exactly.
std::int64_t parse_seconds_ns(std::string_view field, std::string_view value) {
    std::string_view v = trim(value);
    std::size_t dot = v.find('.');
    try {
        constexpr std::int64_t max_s = std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1;
        std::int64_t s = parse_nonnegative(field, v.substr(0, dot), max_s);
        std::int64_t frac = dot == std::string_view::npos ? 0 : parse_fraction_ns(v.substr(dot + 1));
        return s * 1'000'000'000 + frac;
    } catch (const std::exception&) {
        throw row_error("field \"" + std::string(field) + "\": expected seconds like 12.5 (at most 9 decimals), got " +
                        quoted(value));
    }
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + std::int64_t(doe) - 719468;
}

// "YYYY-MM-DD HH:MM:SS[.fffffffff]" (no time zone) to ns since the epoch of
// that clock; only differences matter.
std::int64_t parse_wall_clock_ns(std::string_view field, std::string_view value) {
    std::string_view v = trim(value);
    auto fail = [&]() -> row_error {
        return row_error("field \"" + std::string(field) +
                         "\": expected a time like 2023-11-16 18:15:46.6805900, got " + quoted(value));
    };
    auto number = [&](std::size_t pos, std::size_t len) {
        int out = 0;
        for (std::size_t i = pos; i < pos + len; ++i) {
            if (v[i] < '0' || v[i] > '9') throw fail();
            out = out * 10 + (v[i] - '0');
        }
        return out;
    };
    if (v.size() < 19 || v[4] != '-' || v[7] != '-' || (v[10] != ' ' && v[10] != 'T') || v[13] != ':' ||
        v[16] != ':')
        throw fail();
    const int year = number(0, 4), month = number(5, 2), day = number(8, 2);
    const int hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) throw fail();
    std::int64_t frac = 0;
    if (v.size() > 19) {
        if (v[19] != '.') throw fail();
        try {
            frac = parse_fraction_ns(v.substr(20));
        } catch (const std::invalid_argument&) {
            throw fail();
        }
    }
    const std::int64_t s =
        days_from_civil(year, unsigned(month), unsigned(day)) * 86400 + hour * 3600 + minute * 60 + second;
    // Nanoseconds since 1970 fit int64 until 2262; times outside that would
    // overflow, and times within it keep every difference between rows in range.
    constexpr std::int64_t max_s = std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1;
    if (s < 0 || s > max_s) throw fail();
    return s * 1'000'000'000 + frac;
}

// ---- JSON fields -------------------------------------------------------------

const json::value& json_field(const json::object& obj, std::string_view name) {
    const json::value* v = obj.if_contains(name);
    if (!v) throw row_error("missing field \"" + std::string(name) + "\"");
    return *v;
}

std::int64_t json_nonnegative(std::string_view name, const json::value& v, std::int64_t max) {
    std::int64_t out = -1;
    if (v.is_int64()) {
        out = v.get_int64();
    } else if (v.is_uint64()) {
        out = v.get_uint64() > std::uint64_t(max) ? -1 : std::int64_t(v.get_uint64());
    } else if (v.is_double() && v.get_double() == std::floor(v.get_double()) && v.get_double() >= 0 &&
               v.get_double() < double(max) + 1.0) {  // double(INT64_MAX) rounds up to 2^63
        out = std::int64_t(v.get_double());
    }
    if (out < 0 || out > max)
        throw row_error("field \"" + std::string(name) + "\": expected a non-negative integer up to " +
                        std::to_string(max) + ", got " + quoted(json::serialize(v)));
    return out;
}

int json_tokens(const json::object& obj, std::string_view name) {
    return int(json_nonnegative(name, json_field(obj, name), std::numeric_limits<int>::max()));
}

std::vector<std::uint64_t> json_hash_ids(const json::value& v) {
    const json::array* arr = v.if_array();
    if (!arr) throw row_error("field \"hash_ids\": expected an array of integers, got " + quoted(json::serialize(v)));
    std::vector<std::uint64_t> out;
    out.reserve(arr->size());
    for (const json::value& h : *arr) {
        if (h.is_uint64()) {
            out.push_back(h.get_uint64());
        } else if (h.is_int64() && h.get_int64() >= 0) {
            out.push_back(std::uint64_t(h.get_int64()));
        } else {
            throw row_error("field \"hash_ids\": expected non-negative integers, got " + quoted(json::serialize(h)));
        }
    }
    return out;
}

json::object parse_json_object(std::string_view line) {
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec) throw row_error("invalid JSON: " + ec.message());
    if (!v.is_object()) throw row_error("expected a JSON object");
    return std::move(v.get_object());
}

trace_entry mooncake_row(std::string_view line) {
    const json::object obj = parse_json_object(line);
    // Milliseconds; a fractional value is rounded to the ns.
    const json::value& ts = json_field(obj, "timestamp");
    constexpr double max_ms = 9.0e12;
    trace_entry e;
    if (ts.is_double() && ts.get_double() >= 0 && ts.get_double() < max_ms)
        e.at_ns = std::llround(ts.get_double() * 1e6);
    else
        e.at_ns = json_nonnegative("timestamp", ts, std::int64_t(max_ms)) * 1'000'000;
    e.input_tokens = json_tokens(obj, "input_length");
    e.output_tokens = json_tokens(obj, "output_length");
    if (const json::value* h = obj.if_contains("hash_ids")) e.hash_ids = json_hash_ids(*h);
    return e;
}

trace_entry openloop_row(std::string_view line) {
    const json::object obj = parse_json_object(line);
    trace_entry e;
    const char* time_field = obj.contains("intended_ns") ? "intended_ns" : "t_ns";
    if (!obj.contains(time_field)) throw row_error("missing field \"intended_ns\" (or \"t_ns\")");
    e.at_ns = json_nonnegative(time_field, obj.at(time_field), std::numeric_limits<std::int64_t>::max());
    e.input_tokens = json_tokens(obj, "input_tokens");
    if (obj.contains("output_tokens"))
        e.output_tokens = json_tokens(obj, "output_tokens");
    else if (obj.contains("max_tokens"))
        e.output_tokens = json_tokens(obj, "max_tokens");
    else
        throw row_error("missing field \"output_tokens\" (or \"max_tokens\")");
    if (const json::value* h = obj.if_contains("hash_ids")) e.hash_ids = json_hash_ids(*h);
    return e;
}

// ---- CSV -------------------------------------------------------------------

struct csv_layout {
    std::string_view time_column, input_column, output_column;
    bool wall_clock;  // azure: wall-clock time; burstgpt: seconds
};

constexpr csv_layout azure_layout{"TIMESTAMP", "ContextTokens", "GeneratedTokens", true};
constexpr csv_layout burstgpt_layout{"Timestamp", "Request tokens", "Response tokens", false};

void split_csv(std::string_view line, std::vector<std::string_view>& fields) {
    fields.clear();
    for (;;) {
        std::size_t comma = line.find(',');
        fields.push_back(trim(line.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        line.remove_prefix(comma + 1);
    }
}

bool header_has(const std::vector<std::string_view>& header, std::string_view name) {
    return std::any_of(header.begin(), header.end(), [&](std::string_view h) { return iequals(h, name); });
}

std::string error_at(std::string_view name, std::size_t line, std::string_view what) {
    return std::string(name) + ":" + std::to_string(line) + ": " + std::string(what);
}

}  // namespace

trace_format parse_trace_format(std::string_view name) {
    for (trace_format f : {trace_format::auto_detect, trace_format::mooncake, trace_format::azure,
                           trace_format::burstgpt, trace_format::openloop})
        if (name == to_string(f)) return f;
    throw input_error("invalid trace format " + quoted(name) + ": expected one of " +
                                std::string(format_names));
}

std::string_view to_string(trace_format format) {
    switch (format) {
        case trace_format::auto_detect: return "auto";
        case trace_format::mooncake: return "mooncake";
        case trace_format::azure: return "azure";
        case trace_format::burstgpt: return "burstgpt";
        case trace_format::openloop: return "openloop";
    }
    return "unknown";
}

trace_format detect_trace_format(std::string_view text, std::string_view name) {
    const std::string_view first = first_content_line(strip_bom(text));
    auto fail = [&](std::string_view why) {
        return input_error(std::string(name) + ": cannot detect the trace format (" + std::string(why) +
                                  "; first line " + quoted(first) +
                                  "); expected Mooncake or openloop JSONL, or an Azure or BurstGPT CSV header, "
                                  "or give the format explicitly (" +
                                  std::string(format_names) + ")");
    };
    if (first.empty()) throw fail("no content");
    if (first.front() == '{') {
        boost::system::error_code ec;
        json::value v = json::parse(first, ec);
        if (ec || !v.is_object()) throw fail("not a JSON object");
        const json::object& obj = v.get_object();
        if (obj.contains("input_length")) return trace_format::mooncake;
        if (obj.contains("input_tokens")) return trace_format::openloop;
        throw fail("neither \"input_length\" nor \"input_tokens\"");
    }
    std::vector<std::string_view> header;
    split_csv(first, header);
    for (auto [format, layout] : {std::pair{trace_format::azure, azure_layout},
                                  std::pair{trace_format::burstgpt, burstgpt_layout}})
        if (header_has(header, layout.input_column) && header_has(header, layout.output_column)) return format;
    throw fail("unknown header");
}

trace parse_trace(std::string_view text, std::string_view name, const trace_parse_options& options) {
    text = strip_bom(text);
    trace out;
    out.format = options.format == trace_format::auto_detect ? detect_trace_format(text, name) : options.format;

    auto row = [&](std::size_t number, auto&& parse) {
        try {
            out.entries.push_back(parse());
        } catch (const row_error& e) {
            std::string message = error_at(name, number, e.what());
            if (!options.skip_bad_rows) throw input_error(message);
            if (out.skipped_rows++ == 0) out.first_skipped = std::move(message);
        }
    };

    if (out.format == trace_format::mooncake || out.format == trace_format::openloop) {
        const bool mooncake = out.format == trace_format::mooncake;
        for_each_line(text, [&](std::string_view line, std::size_t number) {
            if (trim(line).empty()) return;
            row(number, [&] { return mooncake ? mooncake_row(line) : openloop_row(line); });
        });
    } else {
        const csv_layout& layout = out.format == trace_format::azure ? azure_layout : burstgpt_layout;
        std::vector<std::string_view> fields;
        std::size_t time_i = 0, input_i = 0, output_i = 0, needed = 0;
        bool have_header = false;
        for_each_line(text, [&](std::string_view line, std::size_t number) {
            if (trim(line).empty()) return;
            split_csv(line, fields);
            if (!have_header) {
                auto column = [&](std::string_view col) {
                    auto it = std::find_if(fields.begin(), fields.end(), [&](std::string_view h) { return iequals(h, col); });
                    if (it == fields.end())
                        throw input_error(error_at(name, number,
                                                          "header lacks column \"" + std::string(col) + "\" (" +
                                                              std::string(to_string(out.format)) + " format)"));
                    return std::size_t(it - fields.begin());
                };
                time_i = column(layout.time_column);
                input_i = column(layout.input_column);
                output_i = column(layout.output_column);
                needed = std::max({time_i, input_i, output_i}) + 1;
                have_header = true;
                return;
            }
            row(number, [&] {
                if (fields.size() < needed)
                    throw row_error("expected at least " + std::to_string(needed) + " columns, got " +
                                    std::to_string(fields.size()));
                trace_entry e;
                e.at_ns = layout.wall_clock ? parse_wall_clock_ns(layout.time_column, fields[time_i])
                                            : parse_seconds_ns(layout.time_column, fields[time_i]);
                e.input_tokens = parse_tokens(layout.input_column, fields[input_i]);
                e.output_tokens = parse_tokens(layout.output_column, fields[output_i]);
                return e;
            });
        });
    }

    // openloop's own log is written in completion order, not send order.
    std::stable_sort(out.entries.begin(), out.entries.end(),
                     [](const trace_entry& a, const trace_entry& b) { return a.at_ns < b.at_ns; });
    if (!out.entries.empty()) {
        const std::int64_t origin = out.entries.front().at_ns;
        for (trace_entry& e : out.entries) e.at_ns -= origin;
    }
    return out;
}

trace load_trace(const std::string& path, const trace_parse_options& options) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path + ": cannot open trace file (" + std::strerror(errno) + ")");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) throw std::runtime_error(path + ": read error");
    return parse_trace(buffer.view(), path, options);
}

std::vector<trace_entry> window_trace(std::vector<trace_entry> entries, std::int64_t start_ns, std::int64_t end_ns) {
    if (start_ns < 0) throw std::invalid_argument("trace window start must be >= 0");
    if (end_ns >= 0 && end_ns < start_ns) throw std::invalid_argument("trace window end is before its start");
    std::erase_if(entries, [&](const trace_entry& e) { return e.at_ns < start_ns || (end_ns >= 0 && e.at_ns >= end_ns); });
    for (trace_entry& e : entries) e.at_ns -= start_ns;
    return entries;
}

std::vector<trace_entry> scale_trace(std::vector<trace_entry> entries, double speed) {
    if (!(speed > 0) || !std::isfinite(speed))
        throw std::invalid_argument("trace speed must be a positive number, got " + std::to_string(speed));
    if (speed == 1.0) return entries;
    // Slowed down, a time near the 292-year end of int64 ns would overflow and
    // land before its predecessors: clamped, the order stays (found by fuzzing).
    constexpr auto latest = static_cast<long double>(std::numeric_limits<std::int64_t>::max());
    for (trace_entry& e : entries)
        e.at_ns = std::llround(std::min(static_cast<long double>(e.at_ns) / speed, latest));
    return entries;
}

std::vector<trace_entry> limit_trace(std::vector<trace_entry> entries, std::size_t max_count) {
    if (max_count > 0 && entries.size() > max_count) entries.resize(max_count);
    return entries;
}

std::vector<trace_entry> select_trace(std::vector<trace_entry> entries, const trace_selection& selection) {
    entries = window_trace(std::move(entries), selection.start_ns, selection.end_ns);
    entries = scale_trace(std::move(entries), selection.speed);
    return limit_trace(std::move(entries), selection.max_count);
}

request_spec trace_request(const trace_entry& entry, std::uint64_t seed, std::uint64_t index,
                           const prompt_builder& builder) {
    constexpr std::uint64_t block_salt = 0x6a09e667f3bcc908ULL;
    constexpr std::uint64_t unique_salt = 0xbb67ae8584caa73bULL;
    request_spec spec;
    spec.input_tokens = std::max(1, entry.input_tokens);
    spec.max_tokens = std::max(1, entry.output_tokens);
    spec.at_ns = entry.at_ns;
    // Vocabulary words average under 6 letters plus a space.
    spec.prompt.reserve(std::size_t(spec.input_tokens) * 7);
    int remaining = spec.input_tokens;
    for (std::uint64_t h : entry.hash_ids) {
        if (remaining == 0) break;
        const int n = std::min(remaining, trace_block_tokens);
        builder.append(spec.prompt, spec.prompt_ids, n, mix64(mix64(seed ^ block_salt) ^ h));
        remaining -= n;
    }
    builder.append(spec.prompt, spec.prompt_ids, remaining, mix64(mix64(seed ^ unique_salt) ^ index));
    return spec;
}

}  // namespace openloop
