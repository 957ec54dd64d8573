#include <boost/test/unit_test.hpp>

#include "trace_samples.hpp"

// A trace replay's fidelity report, from events through the reporter to
// summary.json's "fidelity" and the table, with hand-computed figures.

#include "events.hpp"
#include "openloop/measure/reporter.hpp"
#include "openloop/results/fidelity.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/table.hpp"
#include "run_fixtures.hpp"

#include <string>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_fidelity)

using namespace openloop;
using namespace run_fixtures;

namespace {

constexpr std::int64_t ms_ns = 1'000'000;
constexpr std::int64_t base = 9'000'000 * ms_ns;

using trace_samples::entry;

void push(spsc_ring<event>& ring, const event& e) {
    while (!ring.try_push(e)) std::this_thread::yield();
}

// Four requests of a replay: 0 and 1 at once (sharing block 1), 2 a minute
// and a half later, late by 2 ms; 3 refused. 1 is told 20 prompt tokens too
// many; 2 gets 496 of its 512 reusable tokens from the cache.
run_stats replay(const std::vector<trace_entry>& trace) {
    spsc_ring<event> ring(64);
    reporter_options o;
    o.follow_clock = false;
    o.trace = &trace;
    reporter rep(ring, o);
    rep.start();
    const std::int64_t t2 = base + 90'000 * ms_ns;
    for (std::uint64_t i = 0; i < 2; ++i) {
        push(ring, ev(event_kind::start, i, base, trace[i].input_tokens, 8));
        push(ring, ev(event_kind::sent, i, base + static_cast<std::int64_t>(i) * ms_ns / 10));
    }
    push(ring, ev(event_kind::chunk, 0, base + 50 * ms_ns, 8));
    push(ring, ev(event_kind::done, 0, base + 60 * ms_ns, 8, 1024, -1));
    push(ring, ev(event_kind::chunk, 1, base + 70 * ms_ns, 8));
    push(ring, ev(event_kind::done, 1, base + 80 * ms_ns, 8, 1520, -1));
    push(ring, ev(event_kind::start, 2, t2, 600, 8));
    push(ring, ev(event_kind::sent, 2, t2 + 2 * ms_ns));
    push(ring, ev(event_kind::chunk, 2, t2 + 30 * ms_ns, 8));
    push(ring, ev(event_kind::done, 2, t2 + 40 * ms_ns, 8, 600, 496));
    push(ring, ev(event_kind::refused, 3, t2 + 1 * ms_ns));
    rep.finish();
    return rep.stats();
}

double n(const boost::json::value& v) { return v.to_number<double>(); }

}  // namespace

BOOST_AUTO_TEST_CASE(a_replay_reports_send_times_minutes_lengths_and_reuse) {
    const std::vector<trace_entry> trace = {entry(1024, {1, 2}), entry(1500, {1, 3, 4}), entry(600, {1, 5}),
                                            entry(100, {})};
    run_context c = open_loop();
    c.skipped = 2;
    const run_result r = make_run_result(replay(trace), c);
    const auto summary = summary_json(r);
    const auto& f = summary.at("fidelity").as_object();
    BOOST_TEST(f.at("replay").as_bool());

    const auto& send = f.at("send_time").as_object();
    BOOST_TEST(n(send.at("count")) == 3);
    BOOST_TEST(n(send.at("max_ms")) == 2.0);  // request 2's lag, exact at the maximum

    // Minute 0: 0 and 1 asked and sent; minute 1: 2 and 3 asked, only 2 sent.
    const auto& minutes = f.at("per_minute").as_object();
    BOOST_TEST(minutes.at("asked") == (boost::json::array{2, 2}));
    BOOST_TEST(minutes.at("delivered") == (boost::json::array{2, 1}));
    const auto& worst_minute = minutes.at("largest_deviation").as_object();
    BOOST_TEST(n(worst_minute.at("minute")) == 1);
    BOOST_TEST(n(worst_minute.at("asked")) == 2);
    BOOST_TEST(n(worst_minute.at("delivered")) == 1);

    const auto& input = f.at("input").as_object();
    BOOST_TEST(n(input.at("checked")) == 3);
    BOOST_TEST(n(input.at("exact")) == 2);
    BOOST_TEST(n(input.at("error_tokens").at("max")) == 20);
    BOOST_TEST(n(input.at("error_percent").at("max")) == 1.33, boost::test_tools::tolerance(1e-9));  // 20 / 1500 in 0.01 %
    const auto& worst = input.at("worst").as_array();
    BOOST_TEST_REQUIRE(worst.size() == 1u);
    BOOST_TEST(n(worst[0].at("request")) == 1);
    BOOST_TEST(n(worst[0].at("intended")) == 1500);
    BOOST_TEST(n(worst[0].at("server")) == 1520);
    BOOST_TEST(n(f.at("output").at("exact_fraction")) == 1.0);

    // The trace: 1 reuses block 1 of 0 (512), 2 reuses block 1 too (512).
    // When sent: 1 went out with 0 in flight (0); 2 after both completed (512).
    const auto& p = f.at("prefix_reuse").as_object();
    BOOST_TEST(n(p.at("implied_tokens")) == 1024);
    BOOST_TEST(n(p.at("reusable_at_send_tokens")) == 512);
    BOOST_TEST(n(p.at("requests_reusing_at_send")) == 1);
    BOOST_TEST(n(p.at("cached_tokens")) == 496);
    BOOST_TEST(n(p.at("cached_reported")) == 1);
    BOOST_TEST(n(p.at("cached_over_implied")) == 496.0 / 1024, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(n(p.at("cached_over_reusable_at_send")) == 496.0 / 512, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(n(f.at("rows_skipped")) == 2);
    BOOST_TEST(n(f.at("server_refusals").at("count")) == 0);

    const std::string table = format_table(r);
    for (const char* want : {"fidelity       per minute: largest deviation in minute 1 of 2: 2 asked, 1 delivered",
                             "fidelity       input: 66.7 % exact of 3;", "worst request 1: 1500 asked, 1520 counted",
                             "the trace implies 1024 tokens (512 reusable when sent), the server cached 496 (0.484 of implied)",
                             "fidelity       rows skipped: 2"}) {
        BOOST_TEST(table.find(want) != std::string::npos, want << "\n" << table);
    }
}

BOOST_AUTO_TEST_CASE(a_run_without_a_trace_keeps_only_the_length_sections) {
    run_stats s = healthy();
    s.fidelity.completed({0, 100, 100, 10, 10, -1, -1});
    s.fidelity.completed({1, 100, 97, 10, 10, -1, -1});
    s.failed_by_class[static_cast<std::size_t>(error_class::http_4xx)] = 2;
    s.messages.note(error_class::http_4xx, 400, "maximum context length is 4096 tokens");
    s.messages.note(error_class::timeout_idle, 0, "");
    const run_result r = make_run_result(s, open_loop());
    const auto f = replay_fidelity_json(r.stats, r.context);
    BOOST_TEST(!f.at("replay").as_bool());
    for (const char* k : {"send_time", "per_minute", "prefix_reuse"}) BOOST_TEST(!f.contains(k), k);
    BOOST_TEST(n(f.at("input").at("exact_fraction")) == 0.5);
    BOOST_TEST(n(f.at("input").at("error_tokens").at("p1")) == -3);
    const auto& refusals = f.at("server_refusals").as_object();
    BOOST_TEST(n(refusals.at("count")) == 2);
    BOOST_TEST_REQUIRE(refusals.at("messages").as_array().size() == 1u);  // the timeout is not a refusal
    BOOST_TEST(refusals.at("messages").at(0).at("messages").at(0).as_string() == "maximum context length is 4096 tokens");
    const std::string table = format_table(r);
    BOOST_TEST(table.find("refused by the server: 2 (400: maximum context length is 4096 tokens)") != std::string::npos, table);
    BOOST_TEST(table.find("prefix reuse") == std::string::npos, table);
}

BOOST_AUTO_TEST_SUITE_END()
