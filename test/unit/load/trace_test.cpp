#include <boost/test/unit_test.hpp>

#include "words.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/load/trace.hpp"
#include "trace_samples.hpp"
#include "printing.hpp"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <ostream>
#include <sstream>
#include <string>
#include <limits>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_trace)

using namespace openloop;

namespace {

using trace_samples::azure_path;
using trace_samples::mooncake_path;
using trace_samples::slurp;
using trace_samples::traces_dir;

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}


using trace_samples::error_of;

bool contains(const std::string& haystack, std::string_view needle) {
    return haystack.find(needle) != std::string::npos;
}

trace_entry entry(std::int64_t at_ns, int in = 10, int out = 5, std::vector<std::uint64_t> ids = {}) {
    trace_entry e;
    e.at_ns = at_ns;
    e.input_tokens = in;
    e.output_tokens = out;
    e.hash_ids = std::move(ids);
    return e;
}

trace_parse_options options(trace_format format, bool skip) {
    trace_parse_options o;
    o.format = format;
    o.skip_bad_rows = skip;
    return o;
}

std::int64_t sum_input(const trace& t) {
    return std::accumulate(t.entries.begin(), t.entries.end(), std::int64_t{0},
                           [](std::int64_t s, const trace_entry& e) { return s + e.input_tokens; });
}
std::int64_t sum_output(const trace& t) {
    return std::accumulate(t.entries.begin(), t.entries.end(), std::int64_t{0},
                           [](std::int64_t s, const trace_entry& e) { return s + e.output_tokens; });
}

}  // namespace

BOOST_AUTO_TEST_CASE(azure_slice_parses_fully) {
    const trace t = load_trace(azure_path);
    BOOST_TEST(to_string(t.format) == "azure");
    BOOST_REQUIRE_EQUAL(t.entries.size(), 2000u);
    BOOST_TEST(t.skipped_rows == 0u);
    // 2023-11-16 18:15:46.6805900,374,44 (first row)
    BOOST_TEST(t.entries[0] == entry(0, 374, 44));
    // 18:15:50.9951690,396,109: 4.3145790 s later
    BOOST_TEST(t.entries[1] == entry(4'314'579'000, 396, 109));
    // Row 1000, 18:19:22.7079830,309,18
    BOOST_TEST(t.entries[999] == entry(216'027'393'000, 309, 18));
    // Last row 18:22:50.9400470,424,96: 424.2594570 s after the first
    BOOST_TEST(t.entries.back() == entry(424'259'457'000, 424, 96));
    BOOST_TEST(sum_input(t) == 2'209'565);
    BOOST_TEST(sum_output(t) == 529'807);
    BOOST_TEST(std::is_sorted(t.entries.begin(), t.entries.end(),
                              [](const auto& a, const auto& b) { return a.at_ns < b.at_ns; }));
}

BOOST_AUTO_TEST_CASE(mooncake_slice_parses_fully) {
    const trace t = load_trace(mooncake_path);
    BOOST_TEST(to_string(t.format) == "mooncake");
    BOOST_REQUIRE_EQUAL(t.entries.size(), 1750u);
    BOOST_TEST(t.entries.front().at_ns == 0);
    BOOST_TEST(t.entries.back().at_ns == 597'000'000'000);
    BOOST_TEST(t.entries.front().input_tokens == 6758);
    BOOST_TEST(t.entries.front().output_tokens == 500);
    BOOST_TEST((t.entries.front().hash_ids == std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
    BOOST_TEST(t.entries[1000].at_ns == 330'000'000'000);
    BOOST_TEST(t.entries[1000].input_tokens == 74773);
    BOOST_TEST(t.entries[1000].output_tokens == 681);
    BOOST_TEST(t.entries[1000].hash_ids.back() == 21519u);
    BOOST_TEST(sum_input(t) == 24'486'514);
    BOOST_TEST(sum_output(t) == 619'615);
    std::size_t blocks = 0;
    for (const trace_entry& e : t.entries) {
        blocks += e.hash_ids.size();
        BOOST_TEST(e.hash_ids.size() == std::size_t((e.input_tokens + trace_block_tokens - 1) / trace_block_tokens));
    }
    BOOST_TEST(blocks == 48'671u);
}

BOOST_AUTO_TEST_CASE(wall_clock_fraction_is_exact_to_100ns) {
    auto gap = [](std::string_view a, std::string_view b) {
        const std::string csv = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n" + std::string(a) + ",1,1\r\n" +
                                std::string(b) + ",1,1\r\n";
        const trace t = parse_trace(csv, "t.csv");
        BOOST_REQUIRE_EQUAL(t.entries.size(), 2u);
        return t.entries[1].at_ns;
    };
    BOOST_TEST(gap("2023-11-16 18:15:46.6805900", "2023-11-16 18:15:46.6805901") == 100);
    BOOST_TEST(gap("2023-11-16 18:15:46.0000000", "2023-11-16 18:15:46.9999999") == 999'999'900);
    // Up to 9 digits are kept; fewer are scaled, none means whole seconds.
    BOOST_TEST(gap("2023-11-16 18:15:46", "2023-11-16 18:15:46.000000001") == 1);
    BOOST_TEST(gap("2023-11-16 18:15:46.5", "2023-11-16T18:15:47.25") == 750'000'000);
    // Across midnight, a year end and a leap day.
    BOOST_TEST(gap("2023-12-31 23:59:59.9999999", "2024-01-01 00:00:00.0000000") == 100);
    BOOST_TEST(gap("2024-02-28 12:00:00", "2024-03-01 12:00:00") == 2 * 86'400'000'000'000);
    BOOST_TEST(gap("2023-02-28 12:00:00", "2023-03-01 12:00:00") == 86'400'000'000'000);
    // An hour-long trace at 100 ns ticks, no floating point drift.
    BOOST_TEST(gap("2023-11-16 18:15:46.6805900", "2023-11-16 19:14:48.3456789") == 3'541'665'088'900);
}

BOOST_AUTO_TEST_CASE(line_endings_and_missing_final_newline) {
    const std::string azure = slurp(azure_path);
    BOOST_REQUIRE(azure.ends_with("\r\n"));
    const trace reference = parse_trace(azure, "a.csv");

    // The full upstream files end without a terminator.
    const trace unterminated = parse_trace(azure.substr(0, azure.size() - 2), "a.csv");
    BOOST_TEST(unterminated.entries == reference.entries);
    const trace lf = parse_trace(replace_all(azure, "\r\n", "\n"), "a.csv");
    BOOST_TEST(lf.entries == reference.entries);
    const trace bom = parse_trace("\xEF\xBB\xBF" + azure, "a.csv");
    BOOST_TEST(bom.entries == reference.entries);

    const std::string mooncake = slurp(mooncake_path);
    const trace m = parse_trace(mooncake, "m.jsonl");
    BOOST_TEST(parse_trace(replace_all(mooncake, "\n", "\r\n"), "m.jsonl").entries == m.entries);
    BOOST_TEST(parse_trace(mooncake.substr(0, mooncake.size() - 1), "m.jsonl").entries == m.entries);
    BOOST_TEST(parse_trace(replace_all(mooncake, "\n", "\n\n"), "m.jsonl").entries == m.entries);
}

BOOST_AUTO_TEST_CASE(bad_rows_name_file_line_and_field) {
    const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n";
    const std::string good = "2023-11-16 18:15:46.6805900,374,44\r\n";
    std::string e = error_of([&] { parse_trace(header + good + "2023-11-16 18:15:47.0,abc,44\r\n", "x.csv"); });
    BOOST_TEST(contains(e, "x.csv:3: "), e);
    BOOST_TEST(contains(e, "\"ContextTokens\""), e);
    BOOST_TEST(contains(e, "\"abc\""), e);

    e = error_of([&] { parse_trace(header + good + good + "2023-11-16 18:15:47.0,1,-5\r\n", "x.csv"); });
    BOOST_TEST((contains(e, "x.csv:4: ") && contains(e, "\"GeneratedTokens\"")), e);

    e = error_of([&] { parse_trace(header + "2023-13-16 18:15:47.0,1,5\r\n", "x.csv"); });
    BOOST_TEST((contains(e, "x.csv:2: ") && contains(e, "\"TIMESTAMP\"")), e);
    e = error_of([&] { parse_trace(header + "2023-11-16 18:15:47.1234567890x,1,5\r\n", "x.csv"); });
    BOOST_TEST((contains(e, "x.csv:2: ") && contains(e, "\"TIMESTAMP\"")), e);
    e = error_of([&] { parse_trace(header + "2023-11-16 18:15:47.0,1\r\n", "x.csv"); });
    BOOST_TEST((contains(e, "x.csv:2: ") && contains(e, "columns")), e);

    const std::string ok = R"({"timestamp": 0, "input_length": 10, "output_length": 2, "hash_ids": [0]})";
    e = error_of([&] { parse_trace(ok + "\n" + R"({"timestamp": 5, "output_length": 2})" + "\n", "m.jsonl"); });
    BOOST_TEST((contains(e, "m.jsonl:2: ") && contains(e, "\"input_length\"")), e);
    e = error_of([&] { parse_trace(ok + "\n" + ok + "\n{\"timestamp\": 5,\n", "m.jsonl"); });
    BOOST_TEST((contains(e, "m.jsonl:3: ") && contains(e, "invalid JSON")), e);
    e = error_of([&] {
        parse_trace(ok + "\n" + R"({"timestamp": 0, "input_length": 1, "output_length": 2, "hash_ids": [-1]})", "m.jsonl");
    });
    BOOST_TEST((contains(e, "m.jsonl:2: ") && contains(e, "\"hash_ids\"")), e);
    e = error_of([&] { parse_trace(ok + "\n" + R"({"timestamp": "x", "input_length": 1, "output_length": 2})", "m.jsonl"); });
    BOOST_TEST((contains(e, "m.jsonl:2: ") && contains(e, "\"timestamp\"")), e);

    e = error_of([&] { parse_trace("Time,Foo\n1,2\n", "u.csv"); });
    BOOST_TEST(contains(e, "u.csv: cannot detect"), e);
    e = error_of([&] { parse_trace(ok + "\n", "m.jsonl", options(trace_format::azure, false)); });
    BOOST_TEST(contains(e, "m.jsonl:1: header lacks column \"TIMESTAMP\""), e);
    e = error_of([&] { load_trace(traces_dir + "no-such-file.csv"); });
    BOOST_TEST(contains(e, "no-such-file.csv: cannot open"), e);
}

// Found by test/fuzz/trace_fuzz: a wall-clock year past 2262 overflowed the
// nanosecond count (undefined behaviour), and one before 1970 could too.
BOOST_AUTO_TEST_CASE(wall_clock_times_beyond_int64_ns_are_bad_rows) {
    const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n";
    for (const char* when : {"2823-11-16 18:15:51.2224670", "0001-01-01 00:00:00", "1969-12-31 23:59:59"}) {
        const std::string e = error_of([&] { parse_trace(header + when + ",1,5\r\n", "x.csv"); });
        BOOST_TEST((contains(e, "x.csv:2: ") && contains(e, "\"TIMESTAMP\"")), e);
    }
    const trace t = parse_trace(header + "1970-01-01 00:00:00,1,5\r\n2262-04-11 00:00:00,1,5\r\n", "x.csv");
    BOOST_TEST(t.entries.back().at_ns == std::int64_t{106'751} * 86'400 * 1'000'000'000);
}

BOOST_AUTO_TEST_CASE(bad_rows_can_be_skipped_and_counted) {
    const std::string text =
        "TIMESTAMP,ContextTokens,GeneratedTokens\n"
        "2023-11-16 18:15:46.0,1,2\n"
        "garbage\n"
        "2023-11-16 18:15:47.0,3,4\n"
        "2023-11-16 18:15:48.0,x,4\n";
    const trace t = parse_trace(text, "s.csv", options(trace_format::auto_detect, true));
    BOOST_TEST(t.skipped_rows == 2u);
    BOOST_TEST(contains(t.first_skipped, "s.csv:3: "), t.first_skipped);
    BOOST_REQUIRE_EQUAL(t.entries.size(), 2u);
    BOOST_TEST(t.entries[1] == entry(1'000'000'000, 3, 4));
    BOOST_CHECK_THROW(parse_trace(text, "s.csv"), input_error);
}

BOOST_AUTO_TEST_CASE(burstgpt_and_openloop_formats) {
    const std::string burst =
        "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
        "5,ChatGPT,472,18,490,Conversation log\n"
        "5.25,GPT-4,1000,0,1000,API log\n"
        "7.000000001,ChatGPT,3,9,12,Conversation log";
    const trace b = parse_trace(burst, "b.csv");
    BOOST_TEST(to_string(b.format) == "burstgpt");
    BOOST_REQUIRE_EQUAL(b.entries.size(), 3u);
    BOOST_TEST(b.entries[0] == entry(0, 472, 18));
    BOOST_TEST(b.entries[1] == entry(250'000'000, 1000, 0));
    BOOST_TEST(b.entries[2] == entry(2'000'000'001, 3, 9));
    const std::string e = error_of([&] { parse_trace(burst + "\n12:00,GPT-4,1,1,2,API log\n", "b.csv"); });
    BOOST_TEST((contains(e, "b.csv:5: ") && contains(e, "\"Timestamp\"")), e);

    // Written in completion order: sorted back into send order on read.
    const std::string log =
        R"({"id": 2, "intended_ns": 3000, "input_tokens": 7, "output_tokens": 2, "status": "ok"})" "\n"
        R"({"id": 1, "intended_ns": 1000, "input_tokens": 5, "output_tokens": 0, "status": "error"})" "\n"
        R"({"t_ns": 2000, "input_tokens": 6, "max_tokens": 8, "hash_ids": [4, 5]})" "\n";
    const trace o = parse_trace(log, "requests.jsonl");
    BOOST_TEST(to_string(o.format) == "openloop");
    BOOST_REQUIRE_EQUAL(o.entries.size(), 3u);
    BOOST_TEST(o.entries[0] == entry(0, 5, 0));
    BOOST_TEST(o.entries[1] == entry(1000, 6, 8, {4, 5}));
    BOOST_TEST(o.entries[2] == entry(2000, 7, 2));
    const std::string missing =
        error_of([&] { parse_trace(R"({"input_tokens": 1, "output_tokens": 1, "intended_ns": 1})" "\n{\"input_tokens\": 1}", "r.jsonl"); });
    BOOST_TEST(contains(missing, "r.jsonl:2: missing field \"intended_ns\""), missing);
}

BOOST_AUTO_TEST_CASE(format_names) {
    for (trace_format f : {trace_format::auto_detect, trace_format::mooncake, trace_format::azure,
                           trace_format::burstgpt, trace_format::openloop})
        BOOST_TEST((parse_trace_format(to_string(f)) == f));
    BOOST_CHECK_THROW(parse_trace_format("csv"), std::invalid_argument);
    BOOST_TEST((detect_trace_format(slurp(azure_path), "a") == trace_format::azure));
    BOOST_TEST((detect_trace_format("\n{\"intended_ns\": 1, \"input_tokens\": 2}", "r") == trace_format::openloop));
}

BOOST_AUTO_TEST_CASE(shared_hash_ids_give_shared_prompt_prefixes) {
    const trace t = load_trace(mooncake_path);
    // Rows 67 and 134 of the file both start with blocks 0, 1541..1544.
    const trace_entry& a = t.entries[66];
    const trace_entry& b = t.entries[133];
    std::size_t shared = 0;
    while (shared < std::min(a.hash_ids.size(), b.hash_ids.size()) && a.hash_ids[shared] == b.hash_ids[shared]) ++shared;
    BOOST_REQUIRE_GE(shared, 5u);
    BOOST_REQUIRE_LT(shared, std::min(a.hash_ids.size(), b.hash_ids.size()));

    const request_spec ra = trace_request(a, 7, 66);
    const request_spec rb = trace_request(b, 7, 133);
    BOOST_TEST(ra.input_tokens == a.input_tokens);
    BOOST_TEST(count_text_tokens(ra.prompt) == a.input_tokens);
    BOOST_TEST(count_text_tokens(rb.prompt) == b.input_tokens);
    BOOST_TEST(ra.max_tokens == a.output_tokens);
    BOOST_TEST(ra.at_ns == a.at_ns);
    const auto wa = words(ra.prompt), wb = words(rb.prompt);
    const std::size_t n = shared * trace_block_tokens;
    BOOST_TEST(std::equal(wa.begin(), wa.begin() + n, wb.begin()));
    // The next block has different ids, so different words.
    BOOST_TEST(!std::equal(wa.begin() + n, wa.begin() + n + trace_block_tokens, wb.begin() + n));

    // Every request of the slice starts with block 0: one shared system prefix.
    const request_spec rc = trace_request(t.entries[1749], 7, 1749);
    BOOST_TEST(std::equal(wa.begin(), wa.begin() + trace_block_tokens, words(rc.prompt).begin()));

    // The seed changes the content; the same inputs give the same text.
    BOOST_TEST(trace_request(a, 8, 66).prompt != ra.prompt);
    BOOST_TEST(trace_request(a, 7, 66).prompt == ra.prompt);
}

BOOST_AUTO_TEST_CASE(blocks_partial_and_unique_parts) {
    // A partial last block is a prefix of the full block with the same id.
    const request_spec full = trace_request(entry(0, 1024, 3, {9, 10}), 1, 0);
    const request_spec part = trace_request(entry(0, 700, 3, {9, 10}), 1, 1);
    BOOST_TEST(count_text_tokens(part.prompt) == 700);
    BOOST_TEST(full.prompt.starts_with(part.prompt));

    // Tokens beyond the blocks are unique per index; no blocks: all unique.
    const request_spec x = trace_request(entry(0, 600, 3, {9}), 1, 2);
    const request_spec y = trace_request(entry(0, 600, 3, {9}), 1, 3);
    const auto wx = words(x.prompt), wy = words(y.prompt);
    BOOST_TEST(std::equal(wx.begin(), wx.begin() + 512, wy.begin()));
    BOOST_TEST(!std::equal(wx.begin() + 512, wx.end(), wy.begin() + 512));
    BOOST_TEST(trace_request(entry(0, 50), 1, 4).prompt != trace_request(entry(0, 50), 1, 5).prompt);

    // Different ids at the same position give different words.
    const request_spec r1 = trace_request(entry(0, 512, 1, {1}), 1, 0);
    const request_spec r2 = trace_request(entry(0, 512, 1, {2}), 1, 0);
    const auto w1 = words(r1.prompt), w2 = words(r2.prompt);
    std::size_t same = 0;
    for (std::size_t i = 0; i < w1.size(); ++i) same += w1[i] == w2[i];
    BOOST_TEST(same < 40u);  // chance agreement is 1/64 per word

    // Servers reject empty prompts and max_tokens 0.
    const request_spec tiny = trace_request(entry(5, 0, 0), 1, 0);
    BOOST_TEST(tiny.input_tokens == 1);
    BOOST_TEST(count_text_tokens(tiny.prompt) == 1);
    BOOST_TEST(tiny.max_tokens == 1);
    BOOST_TEST(tiny.at_ns == 5);
}

BOOST_AUTO_TEST_CASE(scaling_windowing_and_limits) {
    const std::vector<trace_entry> e = {entry(0), entry(1'000), entry(2'000), entry(3'001), entry(4'000)};

    const auto fast = scale_trace(e, 2.0);
    BOOST_TEST(fast[1].at_ns == 500);
    BOOST_TEST(fast[3].at_ns == 1'501);  // 1500.5 rounds away from zero
    const auto slow = scale_trace(e, 0.5);
    BOOST_TEST(slow[4].at_ns == 8'000);
    BOOST_TEST(scale_trace(e, 3.0)[2].at_ns == 667);
    // Found by fuzzing: slowed down, times near int64's end overflowed and came before their predecessors.
    const auto far = scale_trace({entry(0), entry(2'000'000'000'000'000'000), entry(4'000'000'000'000'000'000)}, 0.25);
    BOOST_TEST(far[1].at_ns == 8'000'000'000'000'000'000);
    BOOST_TEST(far[2].at_ns == std::numeric_limits<std::int64_t>::max());
    BOOST_CHECK_THROW(scale_trace(e, 0.0), std::invalid_argument);
    BOOST_CHECK_THROW(scale_trace(e, -1.0), std::invalid_argument);

    const auto w = window_trace(e, 1'000, 3'001);
    BOOST_REQUIRE_EQUAL(w.size(), 2u);  // end is exclusive
    BOOST_TEST(w[0].at_ns == 0);
    BOOST_TEST(w[1].at_ns == 1'000);
    BOOST_TEST(window_trace(e, 500, -1).size() == 4u);
    BOOST_TEST(window_trace(e, 500, -1)[0].at_ns == 500);  // gap from the window start kept
    BOOST_CHECK_THROW(window_trace(e, 2'000, 1'000), std::invalid_argument);

    BOOST_TEST(limit_trace(e, 2).size() == 2u);
    BOOST_TEST(limit_trace(e, 0).size() == 5u);
    BOOST_TEST(limit_trace(e, 9).size() == 5u);

    // Window in trace time, then speed, then count.
    const auto s = select_trace(e, {1'000, -1, 2.0, 3});
    BOOST_REQUIRE_EQUAL(s.size(), 3u);
    BOOST_TEST(s[1].at_ns == 500);
    BOOST_TEST(s[2].at_ns == 1'001);

    // On the real trace: the second minute at 4x speed lasts 15 s.
    const trace t = load_trace(mooncake_path);
    const auto minute = select_trace(t.entries, {60'000'000'000, 120'000'000'000, 4.0, 0});
    BOOST_REQUIRE(!minute.empty());
    BOOST_TEST(minute.back().at_ns < 15'000'000'000);
    BOOST_TEST(minute.back().at_ns >= 14'000'000'000);
    const auto n = std::count_if(t.entries.begin(), t.entries.end(), [](const trace_entry& x) {
        return x.at_ns >= 60'000'000'000 && x.at_ns < 120'000'000'000;
    });
    BOOST_TEST(minute.size() == std::size_t(n));
}

BOOST_AUTO_TEST_SUITE_END()
