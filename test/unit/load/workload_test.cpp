#include <boost/test/unit_test.hpp>

#include "words.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/load/trace.hpp"
#include "openloop/load/workload.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

BOOST_AUTO_TEST_SUITE(unit_workload)

using namespace openloop;

namespace {

const std::string mooncake_path =
    std::string(openloop_test::source_dir) + "/test/data/traces/mooncake-conversation/conversation_trace.first600s.jsonl";

// A file under the system temp directory, removed at the end of the test.
struct temp_file {
    std::filesystem::path path;
    temp_file(std::string_view name, std::string_view content)
        : path(std::filesystem::temp_directory_path() /
               ("openloop-workload-test-" + std::to_string(::getpid()) + "-" + std::string(name))) {
        std::ofstream(path, std::ios::binary) << content;
    }
    ~temp_file() { std::filesystem::remove(path); }
    std::string str() const { return path.string(); }
};


template <class E, class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return {};
}

bool contains(const std::string& haystack, std::string_view needle) {
    return haystack.find(needle) != std::string::npos;
}

struct moments {
    double mean = 0, median = 0;
    int min = 0, max = 0;
};

moments sample_moments(const length_dist& d, std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    std::vector<int> v(n);
    for (int& x : v) x = d.sample(rng);
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (int x : v) sum += x;
    return {sum / n, double(v[v.size() / 2]), v.front(), v.back()};
}

}  // namespace

BOOST_AUTO_TEST_CASE(length_specs_parse_and_round_trip) {
    const length_dist fixed = length_dist::parse("512");
    BOOST_TEST((fixed.type() == length_dist::kind::fixed));
    BOOST_TEST(fixed.mean() == 512.0);
    BOOST_TEST(fixed.min() == 512);
    BOOST_TEST(fixed.max() == 512);

    const length_dist uniform = length_dist::parse("uniform:64:256");
    BOOST_TEST((uniform.type() == length_dist::kind::uniform));
    BOOST_TEST(uniform.mean() == 160.0);
    BOOST_TEST(uniform.min() == 64);
    BOOST_TEST(uniform.max() == 256);

    const length_dist normal = length_dist::parse("normal:512:128:16:2048");
    BOOST_TEST(normal.min() == 16);
    BOOST_TEST(normal.max() == 2048);
    BOOST_TEST(length_dist::parse("normal:512.5:128").min() == 1);

    for (std::string_view spec : {"512", "uniform:64:256", "normal:512:128", "normal:512.5:0.25:16:2048",
                                  "lognormal:300:0.8", "lognormal:300:0.8:10:4000"})
        BOOST_TEST(length_dist::parse(spec).describe() == spec);
}

BOOST_AUTO_TEST_CASE(length_spec_errors_name_value_and_syntax) {
    for (std::string_view bad : {"", "0", "-3", "abc", "12x", "uniform:5", "uniform:9:3", "uniform:0:3",
                                 "normal:1:-1", "normal:1:2:3", "normal:a:2", "normal:5:1:10:5", "lognormal:0:1",
                                 "gamma:1:2", "normal:inf:1"}) {
        const std::string e = error_of<std::invalid_argument>([&] { length_dist::parse(bad, "input_len"); });
        BOOST_TEST(contains(e, "\"" + std::string(bad) + "\" for input_len"), bad << " -> " << e);
        BOOST_TEST(contains(e, "uniform:MIN:MAX"), e);
    }
}

BOOST_AUTO_TEST_CASE(sampling_matches_the_distributions) {
    const int n = 200'000;
    const length_dist uniform = length_dist::parse("uniform:10:20");
    const moments u = sample_moments(uniform, 1, n);
    BOOST_TEST(u.min == 10);
    BOOST_TEST(u.max == 20);
    BOOST_TEST(std::abs(u.mean - 15.0) < 0.05);

    const length_dist normal = length_dist::parse("normal:512:128");
    const moments m = sample_moments(normal, 2, n);
    BOOST_TEST(std::abs(m.mean - normal.mean()) < 1.5);
    // The implicit clamp at 1 (4 SD below) moves the mean up by about 1e-3.
    BOOST_TEST(normal.mean() > 512.0);
    BOOST_TEST(normal.mean() < 512.01);

    // Heavy clipping moves the mean; mean() accounts for it.
    const length_dist clipped = length_dist::parse("normal:100:100:80:400");
    const moments c = sample_moments(clipped, 3, n);
    BOOST_TEST(c.min == 80);
    BOOST_TEST(c.max <= 400);
    BOOST_TEST(clipped.mean() > 130.0);
    BOOST_TEST(std::abs(c.mean - clipped.mean()) < 0.5);

    const length_dist lognormal = length_dist::parse("lognormal:300:0.8");
    const moments l = sample_moments(lognormal, 4, n);
    BOOST_TEST(std::abs(l.median - 300.0) < 4.0);
    BOOST_TEST(std::abs(lognormal.mean() - 300.0 * std::exp(0.32)) < 0.01);
    BOOST_TEST(std::abs(l.mean - lognormal.mean()) / lognormal.mean() < 0.01);

    const length_dist lclipped = length_dist::parse("lognormal:300:1.5:50:1000");
    const moments lc = sample_moments(lclipped, 5, n);
    BOOST_TEST(lc.min == 50);
    BOOST_TEST(lc.max == 1000);
    BOOST_TEST(std::abs(lc.mean - lclipped.mean()) / lclipped.mean() < 0.01);

    // A far tail is clamped, never overflows.
    const moments wide = sample_moments(length_dist::parse("normal:10:1e12"), 6, 1000);
    BOOST_TEST(wide.min == 1);
    BOOST_TEST(wide.max == 2147483647);
}

BOOST_AUTO_TEST_CASE(sampling_is_a_function_of_the_seed) {
    const length_dist d = length_dist::parse("normal:512:128");
    std::mt19937_64 a(42), b(42), c(43);
    std::vector<int> va, vb, vc;
    for (int i = 0; i < 100; ++i) {
        va.push_back(d.sample(a));
        vb.push_back(d.sample(b));
        vc.push_back(d.sample(c));
    }
    BOOST_TEST(va == vb);
    BOOST_TEST(va != vc);
}

BOOST_AUTO_TEST_CASE(synthetic_prompts_have_exact_lengths) {
    workload_config config;
    config.input_len = length_dist::parse("normal:300:100:20:600");
    config.output_len = length_dist::parse("uniform:5:9");
    config.seed = 11;
    workload w(config);
    BOOST_TEST(w.size() == 0u);
    std::set<std::string> prompts;
    for (int i = 0; i < 300; ++i) {
        const request_spec r = w.next();
        BOOST_TEST(count_text_tokens(r.prompt) == r.input_tokens);
        BOOST_TEST((r.input_tokens >= 20 && r.input_tokens <= 600));
        BOOST_TEST((r.max_tokens >= 5 && r.max_tokens <= 9));
        BOOST_TEST(r.at_ns == -1);
        BOOST_TEST(r.prefix_group == -1);
        prompts.insert(r.prompt);
    }
    BOOST_TEST(prompts.size() == 300u);
    BOOST_TEST(w.describe() == "synthetic input=normal:300:100:20:600 output=uniform:5:9 seed=11");
}

BOOST_AUTO_TEST_CASE(synthetic_workload_is_reproducible) {
    workload_config config;
    config.input_len = length_dist::parse("lognormal:200:0.5");
    config.prefix_len = 16;
    config.prefix_groups = 3;
    config.seed = 5;
    workload a(config), b(config);
    config.seed = 6;
    workload c(config);
    bool differs = false;
    for (int i = 0; i < 50; ++i) {
        const request_spec ra = a.next(), rb = b.next(), rc = c.next();
        BOOST_TEST(ra.prompt == rb.prompt);
        BOOST_TEST(ra.max_tokens == rb.max_tokens);
        differs = differs || ra.prompt != rc.prompt;
    }
    BOOST_TEST(differs);
}

BOOST_AUTO_TEST_CASE(unique_from_gives_fresh_prompts_with_the_same_prefixes_and_lengths) {
    // A sweep's stages share the seed; each starts its unique parts elsewhere.
    workload_config config;
    config.input_len = length_dist::parse("64");
    config.prefix_len = 16;
    config.seed = 5;
    workload first(config);
    config.unique_from = std::uint64_t{1} << 40;
    workload second(config);
    std::set<std::string> seen;
    for (int i = 0; i < 100; ++i) {
        const request_spec a = first.next(), b = second.next();
        BOOST_TEST(a.max_tokens == b.max_tokens);
        BOOST_TEST(a.input_tokens == b.input_tokens);
        const auto wa = words(a.prompt), wb = words(b.prompt);
        BOOST_TEST(std::equal(wa.begin(), wa.begin() + 16, wb.begin()));
        seen.insert(a.prompt);
        seen.insert(b.prompt);
    }
    BOOST_TEST(seen.size() == 200u);  // no prompt sent twice
}

BOOST_AUTO_TEST_CASE(prefix_groups_share_exact_prefixes) {
    workload_config config;
    config.input_len = length_dist::parse("100");
    config.prefix_len = 60;
    config.prefix_groups = 3;
    workload w(config);
    std::vector<request_spec> r;
    for (int i = 0; i < 9; ++i) r.push_back(w.next());
    auto prefix = [](const request_spec& s, std::size_t n) {
        const auto v = words(s.prompt);
        return std::vector<std::string_view>(v.begin(), v.begin() + std::ptrdiff_t(n));
    };
    for (int i = 0; i < 9; ++i) {
        BOOST_TEST(r[i].prefix_group == i % 3);
        BOOST_TEST(r[i].input_tokens == 100);
        BOOST_TEST(count_text_tokens(r[i].prompt) == 100);
    }
    BOOST_TEST(prefix(r[0], 60) == prefix(r[3], 60));
    BOOST_TEST(prefix(r[1], 60) == prefix(r[7], 60));
    BOOST_TEST(prefix(r[0], 60) != prefix(r[1], 60));
    BOOST_TEST(prefix(r[1], 60) != prefix(r[2], 60));
    // The rest is unique per request, even within a group.
    BOOST_TEST(prefix(r[0], 100) != prefix(r[3], 100));
    BOOST_TEST(r[0].prompt != r[3].prompt);

    // A sampled length below the prefix still leaves one unique word.
    config.input_len = length_dist::parse("uniform:1:100");
    workload short_ones(config);
    for (int i = 0; i < 200; ++i) {
        const request_spec s = short_ones.next();
        BOOST_TEST(s.input_tokens >= 61);
        BOOST_TEST(count_text_tokens(s.prompt) == s.input_tokens);
    }

    config.prefix_groups = 0;  // one group
    workload one(config);
    BOOST_TEST(one.next().prefix_group == 0);
    BOOST_TEST(one.next().prefix_group == 0);
}

BOOST_AUTO_TEST_CASE(configuration_errors) {
    workload_config config;
    config.prefix_len = 512;
    std::string e = error_of<std::invalid_argument>([&] { workload{config}; });
    BOOST_TEST(contains(e, "--prefix-len (512)"), e);
    config.prefix_len = -1;
    BOOST_CHECK_THROW(workload{config}, std::invalid_argument);

    config = {};
    config.prompts_file = "a.jsonl";
    config.trace_file = "b.csv";
    BOOST_CHECK_THROW(workload{config}, std::invalid_argument);

    config = {};
    config.trace_file = mooncake_path;
    config.trace_kind = trace_format::mooncake;
    config.trace_speed = 0;
    BOOST_CHECK_THROW(workload{config}, std::invalid_argument);
    config.trace_speed = 1;
    config.trace_start_ns = 700'000'000'000;
    e = error_of<input_error>([&] { workload{config}; });
    BOOST_TEST(contains(e, "no requests"), e);
    config.trace_start_ns = 0;
    config.prefix_len = 8;
    BOOST_CHECK_THROW(workload{config}, std::invalid_argument);

    config = {};
    config.prompts_file = "/nonexistent/openloop/prompts.jsonl";
    e = error_of<input_error>([&] { workload{config}; });
    BOOST_TEST(contains(e, "/nonexistent/openloop/prompts.jsonl: cannot open"), e);
}

BOOST_AUTO_TEST_CASE(prompts_file_cycles_in_seeded_order) {
    const temp_file file("prompts.jsonl",
                         "{\"prompt\": \"one two three\"}\n"
                         "\n"
                         "{\"text\": \"four five\", \"max_tokens\": 7}\r\n"
                         "{\"prompt\": \"six\", \"output_len\": 3, \"extra\": true}\n"
                         "{\"prompt\": \"  seven   eight \\n nine ten \"}");
    workload_config config;
    config.prompts_file = file.str();
    config.output_len = length_dist::parse("42");
    config.seed = 3;
    workload w(config);
    BOOST_REQUIRE_EQUAL(w.size(), 4u);
    std::vector<std::string> lap1, lap2;
    for (int i = 0; i < 4; ++i) {
        const request_spec r = w.next();
        BOOST_TEST(r.input_tokens == count_text_tokens(r.prompt));
        BOOST_TEST(r.at_ns == -1);
        if (r.prompt == "four five") BOOST_TEST(r.max_tokens == 7);
        if (r.prompt == "six") BOOST_TEST(r.max_tokens == 3);
        if (r.prompt == "one two three") BOOST_TEST(r.max_tokens == 42);
        lap1.push_back(r.prompt);
    }
    for (int i = 0; i < 4; ++i) lap2.push_back(w.next().prompt);
    BOOST_TEST(lap1 == lap2);
    std::vector<std::string> sorted = lap1;
    std::sort(sorted.begin(), sorted.end());
    BOOST_TEST(std::set<std::string>(lap1.begin(), lap1.end()).size() == 4u);  // each once per lap

    // Another seed, another order (4! orders; these two seeds differ).
    config.seed = 4;
    workload other(config);
    std::vector<std::string> lap3;
    for (int i = 0; i < 4; ++i) lap3.push_back(other.next().prompt);
    BOOST_TEST(lap3 != lap1);
    std::sort(lap3.begin(), lap3.end());
    BOOST_TEST(lap3 == sorted);
}

BOOST_AUTO_TEST_CASE(prompts_file_errors_name_file_and_line) {
    auto error_for = [](std::string_view content) {
        const temp_file file("bad.jsonl", content);
        workload_config config;
        config.prompts_file = file.str();
        return error_of<input_error>([&] { workload{config}; });
    };
    std::string e = error_for("{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{\"promt\": \"c\"}\n");
    BOOST_TEST(contains(e, "bad.jsonl:3: missing string field \"prompt\""), e);
    e = error_for("{\"prompt\": \"a\"}\n{\"prompt\": 5}\n");
    BOOST_TEST(contains(e, "bad.jsonl:2: missing string field \"prompt\""), e);
    e = error_for("{\"prompt\": \"a\"\n");
    BOOST_TEST(contains(e, "bad.jsonl:1: invalid JSON"), e);
    e = error_for("[1]\n");
    BOOST_TEST(contains(e, "bad.jsonl:1: expected a JSON object"), e);
    e = error_for("{\"prompt\": \"a\", \"max_tokens\": 0}\n");
    BOOST_TEST(contains(e, "bad.jsonl:1: field \"max_tokens\""), e);
    e = error_for("\n{\"prompt\": \"   \"}\n");
    BOOST_TEST(contains(e, "bad.jsonl:2: field \"prompt\" has no words"), e);
    e = error_for("\n\n");
    BOOST_TEST(contains(e, "bad.jsonl: no prompts"), e);
}

BOOST_AUTO_TEST_CASE(sharegpt_takes_first_human_turn_and_reply) {
    const temp_file file("sharegpt.json", R"([
  {"id": "a", "conversations": [
      {"from": "human", "value": "what is a cache"},
      {"from": "gpt", "value": "a cache keeps recent data close"},
      {"from": "human", "value": "ignored"}]},
  {"id": "short", "conversations": [{"from": "human", "value": "alone"}]},
  {"id": "b", "conversations": [
      {"from": "system", "value": "be brief"},
      {"from": "human", "value": "hi there"},
      {"from": "gpt", "value": "hello"}]},
  {"id": "no-reply", "conversations": [
      {"from": "human", "value": "x"}, {"from": "human", "value": "y"}]},
  {"id": "empty", "conversations": [
      {"from": "human", "value": "q"}, {"from": "gpt", "value": "  "}]},
  {"id": "odd"}
])");
    workload_config config;
    config.sharegpt_file = file.str();
    workload w(config);
    BOOST_TEST(w.size() == 2u);
    BOOST_TEST(w.skipped() == 4u);
    std::set<std::pair<std::string, int>> seen;
    for (int i = 0; i < 2; ++i) {
        const request_spec r = w.next();
        BOOST_TEST(r.input_tokens == count_text_tokens(r.prompt));
        seen.emplace(r.prompt, r.max_tokens);
    }
    BOOST_TEST((seen == std::set<std::pair<std::string, int>>{{"what is a cache", 6}, {"hi there", 1}}));

    const temp_file broken("broken.json", "[\n  {\"conversations\": []},\n  {\"conversations\": [}\n]\n");
    config.sharegpt_file = broken.str();
    const std::string e = error_of<input_error>([&] { workload{config}; });
    BOOST_TEST(contains(e, "broken.json:3: invalid JSON"), e);
    const temp_file object("object.json", "{\"conversations\": []}");
    config.sharegpt_file = object.str();
    BOOST_CHECK_THROW(workload{config}, input_error);
}

BOOST_AUTO_TEST_CASE(trace_source_replays_times_lengths_and_loops) {
    workload_config config;
    config.trace_file = mooncake_path;
    config.trace_speed = 2.0;
    config.trace_max_requests = 40;
    config.seed = 9;
    workload w(config);
    BOOST_REQUIRE_EQUAL(w.size(), 40u);
    BOOST_TEST(contains(w.describe(), "format=mooncake requests=40"), w.describe());

    const trace t = load_trace(mooncake_path);
    std::vector<request_spec> lap;
    for (std::size_t i = 0; i < 40; ++i) {
        request_spec r = w.next();
        BOOST_TEST(r.at_ns == t.entries[i].at_ns / 2);
        BOOST_TEST(r.input_tokens == t.entries[i].input_tokens);
        BOOST_TEST(r.max_tokens == t.entries[i].output_tokens);
        BOOST_TEST(count_text_tokens(r.prompt) == r.input_tokens);
        lap.push_back(std::move(r));
    }
    // Second lap: same lengths, times shifted by one period, same shared blocks.
    const request_spec again = w.next();
    BOOST_TEST(again.input_tokens == lap[0].input_tokens);
    const std::int64_t last = lap.back().at_ns;
    BOOST_TEST(again.at_ns == last + last / 39);
    BOOST_TEST(again.prompt.substr(0, 2000) == lap[0].prompt.substr(0, 2000));
}

// A trace shorter than a second, scaled to a rate (as a sweep stage scales it),
// keeps that rate across laps: the gap between laps is its mean gap, not a pause
// until the next whole second.
BOOST_AUTO_TEST_CASE(short_trace_laps_at_the_rate_it_was_scaled_to) {
    std::string rows;
    for (int i = 0; i < 12; ++i)
        rows += "{\"timestamp\": " + std::to_string(i * 90) + ", \"input_length\": 20, \"output_length\": 4}\n";
    const temp_file file("short.jsonl", rows);
    workload_config config;
    config.trace_file = file.str();
    config.trace_rate = 40;
    config.trace_loop = true;
    workload w(config);
    std::int64_t previous = w.next().at_ns;
    for (int i = 1; i < 36; ++i) {
        const std::int64_t at = w.next().at_ns;
        BOOST_TEST(at - previous == 25'000'000, "request " << i);
        previous = at;
    }
}

// Requests that all share one time lap once a second.
BOOST_AUTO_TEST_CASE(one_instant_trace_laps_each_second) {
    const temp_file file("burst.jsonl", "{\"timestamp\": 0, \"input_length\": 20, \"output_length\": 4}\n"
                                         "{\"timestamp\": 0, \"input_length\": 30, \"output_length\": 4}\n");
    workload_config config;
    config.trace_file = file.str();
    config.trace_loop = true;
    workload w(config);
    for (const std::int64_t expected : {0LL, 0LL, 1'000'000'000LL, 1'000'000'000LL, 2'000'000'000LL})
        BOOST_TEST(w.next().at_ns == expected);
}

BOOST_AUTO_TEST_CASE(trace_details_report_mapping_skips_and_selection) {
    std::string csv = "when;prompt len;gen\n";
    for (int i = 0; i < 30; ++i) csv += (i == 3 || i == 9 ? "bad" : std::to_string(i) + ".5") + ";" + std::to_string(10 + i) + ";4\n";
    const temp_file file("mapped.csv", csv);
    workload_config config;
    config.trace_file = file.str();
    config.trace_mapping = parse_trace_columns("time=when,input=prompt len,output=gen");
    config.trace_skip_bad_rows = true;
    config.trace_start_ns = 2'000'000'000;
    config.trace_end_ns = 20'000'000'000;
    config.trace_max_requests = 10;
    config.trace_rate = 4;
    config.trace_loop = true;
    const workload w(config);
    const trace_info& info = w.trace_details();
    BOOST_TEST(info.format == "columns");
    BOOST_TEST(info.columns == "time=when:s,input=prompt len,output=gen");
    BOOST_TEST(info.rows == 12u);  // read up to 13.5 s, where the selection was complete
    BOOST_TEST(info.skipped_rows == 2u);
    BOOST_TEST((info.skipped_lines == std::vector<std::size_t>{5, 11}));
    BOOST_TEST(info.requests == 10u);  // 2.5 .. 12.5 s, without the bad 3.5 and 9.5
    // 10 requests over 11 s of trace at a mean of 4 req/s: 9 / 4 = 2.25 s, speed 11 / 2.25.
    BOOST_TEST(info.speed == 11.0 / 2.25, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(info.span_s == 2.25, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(info.loop);
    BOOST_TEST(w.skipped() == 2u);
    const std::string warning = skipped_rows_warning(info);
    BOOST_TEST(warning == "openloop: trace " + file.str() + ": skipped 2 bad rows (lines 5, 11): first: " + file.str() +
                              ":5: field \"when\": expected a non-negative time in s like 12.5 (a time up to 2262 in "
                              "ns; other units: time=NAME:s|ms|us|ns|iso), got \"bad\"",
               warning);
    const std::string d = w.describe();
    for (const char* part : {"format=columns columns=time=when:s", "requests=10 skipped=2", "from=2s", "to=20s", "max=10",
                             "speed=4.889", "rate=4", " loop"})
        BOOST_TEST(contains(d, part), d);

    trace_info many = info;
    many.skipped_rows = 9;
    many.skipped_lines = {1, 2, 3, 4, 5};
    BOOST_TEST(contains(skipped_rows_warning(many), "skipped 9 bad rows (lines 1, 2, 3, 4, 5, ...): first: "));
    many.skipped_rows = 0;
    BOOST_TEST(skipped_rows_warning(many).empty());

    // A rate needs two requests at different times; it says so, naming --rate.
    config.trace_max_requests = 1;
    const std::string e = error_of<input_error>([&] { workload{config}; });
    BOOST_TEST(contains(e, file.str() + ": --rate: a rate needs at least two requests"), e);
    // Not a trace: no details.
    BOOST_TEST(workload(workload_config{}).trace_details().format.empty());
}

// Issue 41: a length asked below what the server adds around every prompt (a long chat
// template, a system prompt) is named before the run: the first such request, how many.
BOOST_AUTO_TEST_CASE(requests_below_the_builders_floor_are_named) {
    std::array<int, vocab_size_words> first{}, inner{};
    first.fill(30);
    inner.fill(1);
    const prompt_builder templated = prompt_builder::with_costs(first, inner, "templated");
    BOOST_TEST(templated.floor() == 30);
    workload_config config;
    config.input_len = length_dist::parse("uniform:10:200");
    config.seed = 3;
    workload w(config);
    BOOST_TEST(w.below_floor(100) == "");  // words: every length fits
    w.set_prompt_builder(templated);
    const std::string said = w.below_floor(100);
    std::uint64_t first_short = 0, short_ones = 0;
    for (std::uint64_t i = 0; i < 100; ++i) {
        request_spec r;
        w.at(i, r);
        if (r.input_tokens >= 30) continue;
        if (short_ones++ == 0) first_short = i;
    }
    BOOST_TEST_REQUIRE(short_ones > 0u);
    BOOST_TEST(contains(said, "request " + std::to_string(first_short) + " asks for "), said);
    BOOST_TEST(contains(said, "(--input-len uniform:10:200), fewer than the 30 tokens"), said);
    BOOST_TEST(contains(said, std::to_string(short_ones - 1) + " more of the first 100 requests"), said);

    config.input_len = length_dist::parse("uniform:30:200");
    workload fits(config);
    fits.set_prompt_builder(templated);
    BOOST_TEST(fits.below_floor(0) == "");
    config.prefix_len = 12;
    workload prefixed(config);
    prefixed.set_prompt_builder(templated);
    BOOST_TEST(contains(prefixed.below_floor(0), "--prefix-len 12 is fewer than the 30 tokens"), prefixed.below_floor(0));
}

BOOST_AUTO_TEST_SUITE_END()
