#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/load/trace.hpp"
#include "trace_samples.hpp"
#include "printing.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_trace_mapping)

using namespace openloop;

namespace {

using trace_samples::azure_path;
using trace_samples::mooncake_path;
using trace_samples::slurp;
using trace_samples::traces_dir;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) out.push_back(line);
    }
    return out;
}

trace_parse_options mapped(std::string_view spec, char delimiter = 0, bool skip = false) {
    trace_parse_options o;
    o.columns = parse_trace_columns(spec);
    o.delimiter = delimiter;
    o.skip_bad_rows = skip;
    return o;
}

using trace_samples::error_of;

// ---- the slices read by code of the test's own, not the parser ---------------

struct raw_row {
    std::int64_t at_ns;  // absolute, in the file's own clock
    int input, output;
    std::vector<std::uint64_t> ids;
};

std::vector<raw_row> raw_mooncake() {
    std::vector<raw_row> rows;
    for (const std::string& line : lines_of(slurp(mooncake_path))) {
        const boost::json::object o = boost::json::parse(line).as_object();
        raw_row r{o.at("timestamp").to_number<std::int64_t>() * 1'000'000, int(o.at("input_length").to_number<int>()),
                  int(o.at("output_length").to_number<int>()), {}};
        for (const auto& h : o.at("hash_ids").as_array()) r.ids.push_back(h.to_number<std::uint64_t>());
        rows.push_back(std::move(r));
    }
    return rows;
}

// "2023-11-16 18:15:46.6805900,374,44": one day, so seconds of the day suffice.
std::vector<raw_row> raw_azure() {
    std::vector<raw_row> rows;
    const auto lines = lines_of(slurp(azure_path));
    for (std::size_t i = 1; i < lines.size(); ++i) {
        int y, mo, d, h, mi, s, in, out;
        char frac[16];
        BOOST_REQUIRE(std::sscanf(lines[i].c_str(), "%d-%d-%d %d:%d:%d.%7[0-9],%d,%d", &y, &mo, &d, &h, &mi, &s, frac,
                                  &in, &out) == 9);
        BOOST_REQUIRE(std::string(frac).size() == 7u);
        rows.push_back({((h * 60 + mi) * 60 + s) * 1'000'000'000LL + std::stoll(frac) * 100, in, out, {}});
    }
    return rows;
}

// Nearest-rank percentile.
int percentile(std::vector<int> v, double p) {
    std::sort(v.begin(), v.end());
    const auto rank = std::size_t(std::ceil(p / 100.0 * double(v.size())));
    return v[std::max<std::size_t>(rank, 1) - 1];
}

struct stats {
    std::size_t rows;
    std::int64_t span_ns;
    double rate;
    std::vector<int> input_p, output_p;  // p50, p90, p99
};

stats raw_stats(const std::vector<raw_row>& rows) {
    std::int64_t lo = rows.front().at_ns, hi = lo;
    std::vector<int> in, out;
    for (const raw_row& r : rows) {
        lo = std::min(lo, r.at_ns);
        hi = std::max(hi, r.at_ns);
        in.push_back(r.input);
        out.push_back(r.output);
    }
    stats s{rows.size(), hi - lo, double(rows.size() - 1) / (double(hi - lo) / 1e9), {}, {}};
    for (double p : {50.0, 90.0, 99.0}) {
        s.input_p.push_back(percentile(in, p));
        s.output_p.push_back(percentile(out, p));
    }
    return s;
}

void check_stats(const trace& t, const stats& expected) {
    BOOST_TEST(t.entries.size() == expected.rows);
    BOOST_TEST(t.entries.back().at_ns - t.entries.front().at_ns == expected.span_ns);
    BOOST_TEST(trace_mean_rate(t.entries) == expected.rate, boost::test_tools::tolerance(1e-12));
    std::vector<int> in, out;
    for (const trace_entry& e : t.entries) {
        in.push_back(e.input_tokens);
        out.push_back(e.output_tokens);
    }
    const double ps[] = {50.0, 90.0, 99.0};
    for (std::size_t i = 0; i < 3; ++i) {
        BOOST_TEST(percentile(in, ps[i]) == expected.input_p[i]);
        BOOST_TEST(percentile(out, ps[i]) == expected.output_p[i]);
    }
}

std::string ids_text(const std::vector<std::uint64_t>& ids, const char* sep) {
    std::string s;
    for (std::uint64_t id : ids) s += (s.empty() ? "" : sep) + std::to_string(id);
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(presets_match_the_raw_slices) {
    const trace m = load_trace(mooncake_path);
    const auto mooncake = raw_mooncake();
    check_stats(m, raw_stats(mooncake));
    BOOST_TEST(m.entries[0].hash_ids == mooncake[0].ids);
    const trace a = load_trace(azure_path);
    check_stats(a, raw_stats(raw_azure()));
    // By hand, from the slices' READMEs: 1,750 requests over 597 s; 2,000 over 424.259457 s.
    BOOST_TEST(m.entries.size() == 1750u);
    BOOST_TEST(a.entries.back().at_ns == 424'259'457'000);
}

// The Mooncake slice as a user's CSV: other names, ';', quoted cells with the
// delimiter and doubled quotes inside, float seconds with 17 significant
// digits (some in exponent notation) from an arbitrary origin, '|'-separated
// block ids, CRLF, no final newline.
BOOST_AUTO_TEST_CASE(mooncake_re_encoded_as_csv_parses_to_the_same_requests) {
    const auto rows = raw_mooncake();
    std::string csv = "\"note; free text\";arrival_s;\"Prompt Tokens\";completion;blocks\r\n";
    char buf[64];
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const double seconds = 1000.5 + double(rows[i].at_ns) / 1e9;
        std::snprintf(buf, sizeof buf, i % 7 == 0 ? "%.16e" : "%.17g", seconds);
        csv += "\"row " + std::to_string(i) + "; a \"\"quote\"\"\";" + buf + ";" + std::to_string(rows[i].input) + ";\"" +
               std::to_string(rows[i].output) + "\";\"" + ids_text(rows[i].ids, "|") + "\"";
        if (i + 1 < rows.size()) csv += "\r\n";
    }
    BOOST_REQUIRE(csv.find("e+03") != std::string::npos);
    const trace mapped_trace =
        parse_trace(csv, "m.csv", mapped("time=arrival_s,input=prompt tokens,output=completion,prefix=blocks"));
    const trace preset = load_trace(mooncake_path);
    BOOST_TEST((mapped_trace.format == trace_format::columns));
    BOOST_TEST(mapped_trace.entries == preset.entries, boost::test_tools::per_element());
    check_stats(mapped_trace, raw_stats(rows));

    // The delimiter given instead of detected reads the same.
    BOOST_TEST(parse_trace(csv, "m.csv", mapped("time=arrival_s,input=Prompt Tokens,output=completion,prefix=blocks", ';'))
                   .entries == preset.entries);
    // The preset's own mapping, given as --trace-columns, is the preset.
    BOOST_TEST(load_trace(mooncake_path, mapped("time=timestamp:ms,input=input_length,output=output_length,prefix=hash_ids"))
                   .entries == preset.entries);
}

// The Azure slice as gateway JSONL: ISO-8601 times with a +02:00 offset,
// nested lengths, a session id, keys in another order.
BOOST_AUTO_TEST_CASE(azure_re_encoded_as_jsonl_parses_to_the_same_requests) {
    const auto lines = lines_of(slurp(azure_path));
    std::string jsonl;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        // "2023-11-16 18:15:46.6805900,374,44" -> local time two hours ahead.
        const std::string& l = lines[i];
        const int hour = std::stoi(l.substr(11, 2)) + 2;
        const std::string iso = l.substr(0, 10) + "T" + std::to_string(hour) + l.substr(13, 14) + "+02:00";
        const auto c1 = l.find(','), c2 = l.find(',', c1 + 1);
        jsonl += "{\"usage\": {\"completion_tokens\": " + l.substr(c2 + 1) + ", \"prompt_tokens\": " +
                 l.substr(c1 + 1, c2 - c1 - 1) + "}, \"session\": \"s" + std::to_string(i % 5) + "\", \"ts\": \"" + iso +
                 "\"}\n";
    }
    const trace t = parse_trace(jsonl, "gw.jsonl",
                                mapped("time=ts:iso,input=usage.prompt_tokens,output=usage.completion_tokens,session=session"));
    const trace preset = load_trace(azure_path);
    BOOST_REQUIRE_EQUAL(t.entries.size(), preset.entries.size());
    for (std::size_t i = 0; i < t.entries.size(); ++i) {
        BOOST_TEST(t.entries[i].at_ns == preset.entries[i].at_ns);
        BOOST_TEST(t.entries[i].input_tokens == preset.entries[i].input_tokens);
        BOOST_TEST(t.entries[i].output_tokens == preset.entries[i].output_tokens);
    }
    BOOST_TEST(t.entries[0].session == "s1");
    check_stats(t, raw_stats(raw_azure()));
}

// The other two presets, on the Azure slice written in their formats.
BOOST_AUTO_TEST_CASE(burstgpt_and_openloop_presets_on_a_re_encoded_slice) {
    const auto rows = raw_azure();
    std::string burst = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";
    std::string log;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::int64_t ns = rows[i].at_ns;
        char t[32];
        std::snprintf(t, sizeof t, "%lld.%09lld", (long long)(ns / 1'000'000'000), (long long)(ns % 1'000'000'000));
        burst += std::string(t) + ",ChatGPT," + std::to_string(rows[i].input) + "," + std::to_string(rows[i].output) +
                 ",0,Conversation log\n";
        // requests.jsonl is in completion order: reversed here.
        log = "{\"id\":\"openloop-" + std::to_string(i) + "\",\"intended_ns\":" + std::to_string(ns + 7'000'000'000'000) +
              ",\"input_tokens\":" + std::to_string(rows[i].input) + ",\"max_tokens\":9,\"output_tokens\":" +
              std::to_string(rows[i].output) + ",\"status\":\"ok\"}\n" + log;
    }
    const trace preset = load_trace(azure_path);
    const trace b = parse_trace(burst, "b.csv");
    BOOST_TEST((b.format == trace_format::burstgpt));
    BOOST_TEST(b.entries == preset.entries);
    const trace o = parse_trace(log, "requests.jsonl");
    BOOST_TEST((o.format == trace_format::openloop));
    BOOST_TEST(o.entries == preset.entries);
}

BOOST_AUTO_TEST_CASE(prompts_sessions_and_prefix_cells) {
    const std::string csv =
        "t|text|out|sid|ids\n"
        "0.5|\"hello there, world\"|7|a|[0, 1]\n"
        "0.25|\"two\nlines\"|3|b|\n";
    const trace t = parse_trace(csv, "p.csv", mapped("time=t,prompt=text,output=out,session=sid,prefix=ids"));
    BOOST_REQUIRE_EQUAL(t.entries.size(), 2u);
    BOOST_TEST(t.entries[0].prompt == "two\nlines");  // sorted by time
    BOOST_TEST(t.entries[0].input_tokens == 2);       // no input=: the prompt's words
    BOOST_TEST(t.entries[0].session == "b");
    BOOST_TEST(t.entries[1].at_ns == 250'000'000);
    BOOST_TEST((t.entries[1].hash_ids == std::vector<std::uint64_t>{0, 1}));
    const request_spec r = trace_request(t.entries[1], 1, 0);
    BOOST_TEST(r.prompt == "hello there, world");
    BOOST_TEST(r.input_tokens == 3);
    BOOST_TEST(r.max_tokens == 7);

    const std::string jsonl = R"({"t": 1, "msg": "hi you", "n": 4, "out": 2, "ids": [3, 4]})" "\n"
                              R"({"t": 2, "msg": "x", "n": 9, "out": 2, "ids": "5 6"})" "\n";
    const trace j = parse_trace(jsonl, "p.jsonl", mapped("time=t,prompt=msg,input=n,output=out,prefix=ids"));
    BOOST_TEST(j.entries[0].input_tokens == 4);  // input= wins over the word count
    BOOST_TEST((j.entries[1].hash_ids == std::vector<std::uint64_t>{5, 6}));

    std::string e = error_of([&] { parse_trace("t,text,out\n1,,2\n", "p.csv", mapped("time=t,prompt=text,output=out")); });
    BOOST_TEST(e.find("p.csv:2: field \"text\": empty prompt") != std::string::npos, e);
    e = error_of([&] { parse_trace(R"({"t": 1, "out": 2})", "p.jsonl", mapped("time=t,prompt=msg,output=out")); });
    BOOST_TEST(e.find("p.jsonl:1: missing field \"msg\"") != std::string::npos, e);
    e = error_of([&] { parse_trace(R"({"t": 1, "msg": 5, "out": 2})", "p.jsonl", mapped("time=t,prompt=msg,output=out")); });
    BOOST_TEST(e.find("field \"msg\": expected a string") != std::string::npos, e);
    e = error_of([&] { parse_trace(R"({"t": {"x": 1}, "in": 1, "out": 2})", "p.jsonl", mapped("time=t,input=in,output=out")); });
    BOOST_TEST(e.find("field \"t\": expected a time, got an object") != std::string::npos, e);
    e = error_of([&] { parse_trace("a,b\n1,2\n", "h.csv", mapped("time=a,input=b,output=c")); });
    BOOST_TEST(e.find("h.csv:1: header lacks column \"c\"") != std::string::npos, e);
    e = error_of([&] { parse_trace("a,b,c\n1,2,3\n", "h.csv", mapped("time=a,input=b,output=c,prefix=p")); });
    BOOST_TEST(e.find("header lacks column \"p\"") != std::string::npos, e);  // a user's prefix= is required
}

BOOST_AUTO_TEST_CASE(skipped_rows_are_named_by_line) {
    std::string csv = "t,in,out\n";
    for (int i = 0; i < 20; ++i) csv += (i % 3 == 1 ? "x" : std::to_string(i)) + ",5,6\n";
    // Bad rows are rows 1, 4, 7, 10, 13, 16, 19: lines 3, 6, 9, 12, 15, 18, 21.
    const trace t = parse_trace(csv, "s.csv", mapped("time=t,input=in,output=out", 0, true));
    BOOST_TEST(t.entries.size() == 13u);
    BOOST_TEST(t.skipped_rows == 7u);
    BOOST_TEST((t.skipped_lines == std::vector<std::size_t>{3, 6, 9, 12, 15}));
    BOOST_TEST(t.first_skipped.starts_with("s.csv:3: field \"t\""), t.first_skipped);
    const std::string refused = error_of([&] { parse_trace(csv, "s.csv", mapped("time=t,input=in,output=out")); });
    BOOST_TEST(refused.starts_with("s.csv:3: field \"t\""), refused);

    const std::string jsonl = "{\"t\": 1, \"in\": 1, \"out\": 1}\n{broken\n\n{\"t\": 2, \"in\": -1, \"out\": 1}\n";
    const trace j = parse_trace(jsonl, "s.jsonl", mapped("time=t,input=in,output=out", 0, true));
    BOOST_TEST((j.skipped_lines == std::vector<std::size_t>{2, 4}));
    BOOST_TEST(j.first_skipped.starts_with("s.jsonl:2: invalid JSON"), j.first_skipped);
}

BOOST_AUTO_TEST_CASE(window_count_and_rate_selection) {
    const trace t = load_trace(mooncake_path);
    // The second minute, at most 100 requests, at a mean of 10 req/s.
    trace_selection sel;
    sel.start_ns = 60'000'000'000;
    sel.end_ns = 120'000'000'000;
    sel.max_count = 100;
    sel.rate = 10;
    const trace_pick pick = pick_trace(t.entries, sel);
    BOOST_REQUIRE_EQUAL(pick.entries.size(), 100u);
    BOOST_TEST(trace_mean_rate(pick.entries) == 10.0, boost::test_tools::tolerance(1e-6));
    // The same requests as by hand: the first 100 at or after 60 s.
    std::vector<trace_entry> by_hand;
    for (const trace_entry& e : t.entries)
        if (e.at_ns >= 60'000'000'000 && e.at_ns < 120'000'000'000 && by_hand.size() < 100) by_hand.push_back(e);
    const double span_s = double(by_hand.back().at_ns - by_hand.front().at_ns) / 1e9;
    BOOST_TEST(pick.speed == 10.0 / (99.0 / span_s), boost::test_tools::tolerance(1e-12));
    // The shape is kept: each time is the trace's, rebased and divided by the speed.
    for (std::size_t i = 0; i < by_hand.size(); ++i) {
        BOOST_TEST(pick.entries[i].input_tokens == by_hand[i].input_tokens);
        BOOST_TEST(std::abs(double(pick.entries[i].at_ns) - double(by_hand[i].at_ns - sel.start_ns) / pick.speed) <= 1.0);
    }
    // A speed without a rate is taken as is; a rate needs two times.
    sel.rate = 0;
    sel.speed = 2;
    BOOST_TEST(pick_trace(t.entries, sel).speed == 2.0);
    sel.rate = 5;
    sel.max_count = 1;
    BOOST_CHECK_THROW(pick_trace(t.entries, sel), std::invalid_argument);
    BOOST_TEST(trace_mean_rate({}) == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()
