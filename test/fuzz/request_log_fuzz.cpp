// A run's requests.jsonl rebuilt into statistics and a summary, on arbitrary
// text: what `openloop report` meets in the log of a killed run (torn last
// line) or one a user edited. Input: the text, no control bytes.
// Invariants: rebuilding never throws; every non-blank line is a request or a
// bad line, the first bad one named exactly when there is one; the counts
// add up (each measured line is completed, failed or unfinished; failures by
// class sum to the failures); the result and summary.json are built from the
// default run_context, and summary.json as written (pretty_json) parses
// back with the same counts; the stage view keeps those counts and a bounded
// in-flight series, whatever times the lines hold. report.html drawn from
// that summary, with the same text read as its timeseries.csv, is one whole
// page in which no byte of the input opens a tag.

#include "fuzz_input.hpp"

#include "openloop/base/json_text.hpp"
#include "openloop/results/rebuild.hpp"
#include "openloop/results/run_html.hpp"
#include "openloop/results/run_result.hpp"
#include "openloop/results/summary_json.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <numeric>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    openloop::rebuilt_stats r = openloop::rebuild_stats(text);
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    FUZZ_CHECK(r.lines + r.bad_lines <= lines);
    FUZZ_CHECK((r.bad_lines == 0) == (r.first_bad_line == 0));
    FUZZ_CHECK(r.first_bad_line <= lines);
    const openloop::run_stats& s = r.stats;
    FUZZ_CHECK(s.started + s.warmup_started == r.lines);
    FUZZ_CHECK(s.completed + s.failed + s.unfinished == s.started);
    FUZZ_CHECK(std::accumulate(s.failed_by_class.begin(), s.failed_by_class.end(), std::uint64_t{0}) == s.failed);
    FUZZ_CHECK(s.ttft.count() <= s.completed);

    // The stage view (a merged sweep stage): the same counts, a bounded in-flight series.
    const openloop::run_stats staged = openloop::rebuild_stats(text, nullptr, true).stats;
    FUZZ_CHECK(staged.completed == s.completed && staged.good == s.good);
    FUZZ_CHECK(staged.inflight_samples.size() <= 100'001);
    FUZZ_CHECK(staged.steady_completed <= r.lines);

    const std::uint64_t completed = s.completed, failed = s.failed;
    const openloop::run_result result = openloop::make_run_result(std::move(r.stats), openloop::run_context{});
    const boost::json::object summary = openloop::summary_json(result);
    boost::system::error_code ec;
    const boost::json::value back = boost::json::parse(openloop::pretty_json(summary), ec);
    FUZZ_CHECK(!ec);
    FUZZ_CHECK(back.is_object());
    FUZZ_CHECK(back.at("completed").to_number<std::uint64_t>() == completed);
    FUZZ_CHECK(back.at("failed").to_number<std::uint64_t>() == failed);

    const std::string page = openloop::run_report_html("<fuzz>", summary, text, "");
    FUZZ_CHECK(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
    FUZZ_CHECK(page.find("<script") == std::string::npos && page.find("<fuzz>") == std::string::npos);
    return 0;
}
