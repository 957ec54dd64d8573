// A soak's windows.jsonl read back and judged, on arbitrary text: what
// `openloop report` meets in a file a killed soak tore, or a user edited.
// Input: a byte whose value mod 4 is the warm-up window count, then the text.
// Invariants: reading never throws; every non-blank line is a row or a bad
// line, and the first bad line is named exactly when there is one; judging
// keeps the counts, one verdict per signal, a headline that opens the text
// and summary.json's "soak" object, written as summary.json is (pretty_json),
// parses back with them. report.html of a soak with those windows draws a
// chart per verdict, and no byte of the input opens a tag in it.

#include "fuzz_input.hpp"

#include "openloop/base/json_text.hpp"
#include "openloop/results/run_html.hpp"
#include "openloop/results/soak_report.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <set>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::input in(data, size);
    const std::size_t warmup = in.byte() % 4;
    const std::string_view text = in.rest();

    const openloop::soak_windows w = openloop::parse_windows_jsonl(text);
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    FUZZ_CHECK(w.rows.size() + w.bad_lines <= lines);
    FUZZ_CHECK((w.bad_lines == 0) == (w.first_bad_line == 0));
    FUZZ_CHECK(w.first_bad_line <= lines);

    const openloop::soak_report r = openloop::judge_soak(w, warmup);
    FUZZ_CHECK(r.windows == w.rows.size());
    FUZZ_CHECK(r.warmup_windows == std::min(warmup, w.rows.size()));
    FUZZ_CHECK(!r.headline.empty());
    std::set<std::string> keys;
    bool changed = false;
    for (const openloop::soak_verdict& v : r.verdicts) {
        FUZZ_CHECK(keys.insert(v.key).second);
        FUZZ_CHECK(!v.label.empty() || v.key == "signals.");  // a signal named "" keeps its empty name
        changed = changed || (v.trend.kind != openloop::series_kind::insufficient &&
                              v.trend.kind != openloop::series_kind::no_change);
    }
    FUZZ_CHECK(changed == r.changed);

    const boost::json::object o = openloop::soak_json(r);
    boost::system::error_code ec;
    const boost::json::value back = boost::json::parse(openloop::pretty_json(o), ec);
    FUZZ_CHECK(!ec);
    FUZZ_CHECK(back.is_object());
    FUZZ_CHECK(back.at("verdicts").as_array().size() == r.verdicts.size());
    FUZZ_CHECK(back.at("headline").as_string() == r.headline);

    const std::string table = openloop::format_soak(r);
    FUZZ_CHECK(table.starts_with(r.headline + "\n"));
    FUZZ_CHECK(static_cast<std::size_t>(std::count(table.begin(), table.end(), '\n')) >= r.verdicts.size() + 1);

    const std::string page = openloop::run_report_html("soak", boost::json::object{{"soak", o}}, "", text);
    FUZZ_CHECK(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
    FUZZ_CHECK(page.find("<script") == std::string::npos);
    std::size_t charts = 0;
    for (std::size_t at = page.find("data-chart=\"soak_"); at != std::string::npos;
         at = page.find("data-chart=\"soak_", at + 1))
        ++charts;
    FUZZ_CHECK(charts == r.verdicts.size());
    return 0;
}
