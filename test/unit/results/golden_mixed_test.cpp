#include <boost/test/unit_test.hpp>

#include "golden_files.hpp"

// A mixed-model run with images and audio, as golden_test.cpp pins a text-only one:
// a fixed stream of events through the reporter must give, byte for byte, the
// summary.json, table and requests.jsonl recorded in test/data/golden/mixed/.
// Record again with OPENLOOP_RECORD_GOLDEN=1 when a change is meant.

#include "openloop/base/json_text.hpp"
#include "openloop/measure/reporter.hpp"
#include "events.hpp"
#include "openloop/results/media_report.hpp"
#include "openloop/results/model_report.hpp"
#include "openloop/results/rebuild.hpp"
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

BOOST_AUTO_TEST_SUITE(unit_golden_mixed)

using namespace openloop;

namespace {

constexpr std::int64_t ms_ns = 1'000'000;
constexpr std::int64_t base = 9'000'000 * ms_ns;
const std::filesystem::path golden_dir = std::string(openloop_test::source_dir) + "/test/data/golden/mixed";

int images_of(std::uint64_t i) { return static_cast<int>(i % 3); }
int audios_of(std::uint64_t i) { return i == 9 ? 1 : 0; }

// 12 requests at 10 req/s, models base (even) and sql-lora (odd), 0, 1 or 2 images
// (i % 3; one image from bucket 512x512, two from 1024x768 or, odd ones, of mixed
// sizes) and one audio clip (request 9). Each image adds 30 ms to TTFT and 256
// prompt tokens, the clip 50. Request 5's server counts fewer prompt tokens than its
// text; request 7's gives no usage; request 10 fails with a 500; a 13th is refused.
std::vector<event> mixed_run() {
    std::vector<event> out;
    for (std::uint64_t i = 0; i < 12; ++i) {
        const std::int64_t t0 = base + static_cast<std::int64_t>(i) * 100 * ms_ns;
        const auto model = static_cast<std::uint8_t>(i % 2);
        const int images = images_of(i), audios = audios_of(i);
        out.push_back(event::started(i, t0, 100, 16, 0, model));
        if (images + audios > 0) {
            const int bucket = images == 1 ? 0 : images == 2 ? (i % 2 == 0 ? 1 : -1) : -1;
            out.push_back(event::media_shape(i, t0, 1000 + images * 50'000 + audios * 32'000, images, audios, bucket));
        }
        out.push_back(ev(event_kind::sent, i, t0));
        if (i == 10) {
            out.push_back(ev(event_kind::headers, i, t0 + 5 * ms_ns, 500));
            out.push_back(ev(event_kind::failed, i, t0 + 5 * ms_ns, static_cast<int>(error_class::http_5xx), 500));
            continue;
        }
        out.push_back(ev(event_kind::headers, i, t0 + 5 * ms_ns, 200));
        std::int64_t t = t0 + (20 + 30 * images + 10 * static_cast<std::int64_t>(model)) * ms_ns;
        for (int c = 0; c < 4; ++c, t += 10 * ms_ns) out.push_back(ev(event_kind::chunk, i, t, 1, 4));
        t -= 10 * ms_ns;
        const std::int64_t prompt = i == 7 ? -1 : i == 5 ? 90 : 100 + images * 256 + audios * 50;
        out.push_back(ev(event_kind::done, i, t, 4, prompt, -1));
    }
    out.push_back(event::refusal(12, base + 1200 * ms_ns, 100, 16, 0, 1));
    return out;
}

run_context mixed_context() {
    run_context c;
    c.target = "http://127.0.0.1:8000/v1/chat/completions";
    c.request_rate = 10;
    c.arrival = "constant 10 req/s";
    c.tokenizer = "words";
    c.model_mix = "base=0.5,sql-lora=0.5";
    c.config = boost::json::object{{"rate", 10}, {"model", "base=0.5,sql-lora=0.5"}, {"goodput", "ttft:100"}};
    c.environment = boost::json::object{{"host", "golden"}, {"cores", 2}};
    return c;
}

void compare_or_record(const std::string& name, const std::string& produced) {
    golden::compare_or_record(golden_dir, name, produced);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_mixed_run_with_media_renders_exactly_as_before) {
    const auto out_dir = std::filesystem::temp_directory_path() / ("openloop-golden-mixed-" + std::to_string(::getpid()));
    std::filesystem::remove_all(out_dir);
    std::filesystem::create_directories(out_dir);
    reporter_options o;
    o.follow_clock = false;
    o.out_dir = out_dir.string();
    o.slo.ttft_ms = 100;
    o.model_names = {"base", "sql-lora"};
    o.bucket_labels = {"512x512", "1024x768"};
    o.media = true;
    spsc_ring<event> ring(64);
    reporter rep(ring, o);
    rep.start();
    for (const event& e : mixed_run()) {
        while (!ring.try_push(e)) std::this_thread::yield();
    }
    rep.finish();
    const run_result result = make_run_result(rep.stats(), mixed_context());
    compare_or_record("summary.json", pretty_json(summary_json(result)));
    compare_or_record("table.txt", format_table(result));
    compare_or_record("requests.jsonl", golden::slurp(out_dir / "requests.jsonl"));

    // What `report` and `merge` rebuild from the log: the media as the run had it, and each
    // model's counts and latency (not its ITL, nor refusals, which have no line).
    const rebuilt_stats rebuilt = rebuild_stats(golden::slurp(out_dir / "requests.jsonl"));
    BOOST_TEST_REQUIRE(rebuilt.stats.media.has_value());
    BOOST_TEST(media_json(*rebuilt.stats.media) == media_json(*result.stats.media));
    const boost::json::object ran = by_model_json(result);
    const boost::json::object again = by_model_json(make_run_result(rebuilt.stats, mixed_context()));
    BOOST_TEST_REQUIRE(again.size() == 2u);
    for (const char* model : {"base", "sql-lora"})
        for (const char* key : {"started", "completed", "failed", "request_throughput", "output_throughput", "p50_ttft_ms",
                                "p99_ttft_ms", "mean_tpot_ms", "p90_e2el_ms", "goodput_requests"})
            BOOST_TEST(again.at(model).at(key) == ran.at(model).at(key), model << " " << key);
    std::filesystem::remove_all(out_dir);
}

BOOST_AUTO_TEST_SUITE_END()
