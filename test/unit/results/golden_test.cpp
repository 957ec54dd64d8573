#include <boost/test/unit_test.hpp>

#include "golden_files.hpp"

// A fixed stream of events through the reporter must give, byte for byte, the
// summary.json, table and requests.jsonl recorded in test/data/golden/. Changing
// how results are computed or rendered shows up here as a diff to review; when
// the change is meant, record again with OPENLOOP_RECORD_GOLDEN=1 and commit it.

#include "openloop/base/json_text.hpp"
#include "openloop/measure/reporter.hpp"
#include "events.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/table.hpp"
#include "test_paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_golden)

using namespace openloop;

namespace {

constexpr std::int64_t ms_ns = 1'000'000;
constexpr std::int64_t base = 7'000'000 * ms_ns;
const std::filesystem::path golden_dir = std::string(openloop_test::source_dir) + "/test/data/golden";

// 40 requests at 20 req/s with every kind of outcome: usage and estimated
// token counts, per-chunk and unknown chunk tokens, warm-up, a retry on a
// fresh connection, refusals, HTTP and stream failures, an own cancellation,
// and one request still open at the end.
std::vector<event> recorded_run() {
    std::vector<event> out;
    for (std::uint64_t i = 0; i < 40; ++i) {
        const std::int64_t t0 = base + static_cast<std::int64_t>(i) * 50 * ms_ns;
        const int input = 64 + static_cast<int>(i % 5) * 400;
        const std::int64_t flags = i < 3 ? std::int64_t{flag_warmup} : 0;
        if (i % 13 == 7) {
            out.push_back(ev(event_kind::refused, i, t0, 0, 0, flags));
            continue;
        }
        out.push_back(ev(event_kind::start, i, t0, input, 32, flags));
        if (i % 9 == 4) out.push_back(ev(event_kind::retry, i, t0 + 1 * ms_ns, static_cast<int>(error_class::stream_truncated)));
        if (i % 4 == 0) out.push_back(ev(event_kind::connect, i, t0 + 2 * ms_ns, 0, 0, 2 * ms_ns));
        const std::int64_t sent = t0 + (i % 4 == 0 ? 2 : 0) * ms_ns + static_cast<std::int64_t>(i % 3) * 100'000;
        out.push_back(ev(event_kind::sent, i, sent));
        if (i == 11) {
            out.push_back(ev(event_kind::headers, i, sent + 3 * ms_ns, 503));
            out.push_back(ev(event_kind::failed, i, sent + 3 * ms_ns, static_cast<int>(error_class::http_5xx), 503));
            continue;
        }
        if (i == 39) continue;  // still in flight when the run ends
        out.push_back(ev(event_kind::headers, i, sent + 4 * ms_ns, 200));
        const int chunks = 3 + static_cast<int>(i % 6);
        std::int64_t t = sent + static_cast<std::int64_t>(30 + i) * ms_ns;
        for (int c = 0; c < chunks; ++c) {
            const int tokens = i % 5 == 2 ? -1 : 1 + c % 3;
            out.push_back(ev(event_kind::chunk, i, t, tokens, 4 * (1 + c % 3)));
            t += static_cast<std::int64_t>(12 + (i * 7 + static_cast<std::uint64_t>(c) * 3) % 11) * ms_ns;
        }
        if (i == 17) {
            out.push_back(ev(event_kind::failed, i, t, static_cast<int>(error_class::stream_truncated)));
        } else if (i == 23) {
            out.push_back(ev(event_kind::failed, i, t, static_cast<int>(error_class::cancelled)));
        } else if (i % 5 == 2) {
            out.push_back(ev(event_kind::done, i, t, -1, -1, -1));
        } else {
            out.push_back(ev(event_kind::done, i, t, 2 * chunks, input, i % 2 == 0 ? 64 : -1));
        }
    }
    return out;
}

run_context recorded_context() {
    run_context c;
    c.target = "http://127.0.0.1:8000/v1/chat/completions";
    c.request_rate = 20;
    c.arrival = "poisson 20 req/s";
    c.tokenizer = "words";
    c.skipped = 2;  // e.g. two bad trace rows
    c.config = boost::json::object{{"rate", 20}, {"api_key", "[redacted]"}};
    c.environment = boost::json::object{{"host", "golden"}, {"cores", 2}};
    return c;
}

void compare_or_record(const std::string& name, const std::string& produced) {
    golden::compare_or_record(golden_dir, name, produced);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_recorded_run_renders_exactly_as_before) {
    const auto out_dir = std::filesystem::temp_directory_path() / ("openloop-golden-" + std::to_string(::getpid()));
    std::filesystem::remove_all(out_dir);
    std::filesystem::create_directories(out_dir);
    reporter_options o;
    o.follow_clock = false;
    o.out_dir = out_dir.string();
    o.steady_throughput = true;
    o.slo.ttft_ms = 60;
    o.slo.e2e_ms = 150;
    spsc_ring<event> ring(64);
    reporter rep(ring, o);
    rep.start();
    for (const event& e : recorded_run()) {
        while (!ring.try_push(e)) std::this_thread::yield();
    }
    rep.finish();
    const run_result result = make_run_result(rep.stats(), recorded_context());
    compare_or_record("summary.json", pretty_json(summary_json(result)));
    compare_or_record("table.txt", format_table(result));
    compare_or_record("requests.jsonl", golden::slurp(out_dir / "requests.jsonl"));
    std::filesystem::remove_all(out_dir);
}

BOOST_AUTO_TEST_SUITE_END()
