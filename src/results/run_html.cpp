#include "openloop/results/run_html.hpp"

#include "openloop/measure/histogram.hpp"
#include "openloop/results/html_page.hpp"
#include "openloop/results/json_read.hpp"
#include "openloop/results/number_text.hpp"
#include "openloop/results/soak_html.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>

namespace openloop {

namespace json = boost::json;

namespace {

constexpr std::size_t cdf_steps = 200;
constexpr std::size_t max_time_points = 600;

// The latency histograms a report draws and tables, summary.json's names first.
struct latency_metric {
    const char* key;    // histograms.KEY, mean_KEY_ms, ...
    const char* label;  // as the table prints it
    bool per_token;     // TPOT and ITL: a chart of their own, their scale is another
    bool thinking;      // the answer's clocks: the same as TTFT and ITL unless a request thought
};
constexpr latency_metric latency_metrics[] = {
    {"ttft", "TTFT", false, false},         {"ttfa", "TTFA", false, true},
    {"reasoning", "reasoning", false, true}, {"e2el", "E2E", false, false},
    {"tpot", "TPOT", true, false},          {"itl", "ITL", true, false},
    {"itl_answer", "ITL (answer)", true, true}, {"itl_reasoning", "ITL (reasoning)", true, true},
    {"lag", "schedule lag", false, false},  {"connect", "connect", false, false},
};
constexpr const char* latency_stats[] = {"mean", "p50", "p90", "p95", "p99", "p99.9", "min", "max"};

// The run's histograms that hold samples, by key.
std::vector<std::pair<const latency_metric*, histogram>> filled_histograms(const json::object& summary) {
    std::vector<std::pair<const latency_metric*, histogram>> out;
    const json::value* all = summary.if_contains("histograms");
    if (all == nullptr || !all->is_object()) return out;
    double thinking = 0;
    if (const json::value* r = summary.if_contains("reasoning"); r && r->is_object())
        thinking = json_number(r->get_object(), "thinking_requests");
    for (const auto& m : latency_metrics) {
        if (m.thinking && !(thinking > 0)) continue;
        const json::value* h = all->get_object().if_contains(m.key);
        if (h == nullptr) continue;
        histogram read = histogram::from_json(*h);
        if (read.count() > 0) out.emplace_back(&m, std::move(read));
    }
    return out;
}

std::string headline_text(const json::object& s) {
    if (const json::value* h = s.if_contains("headline"); h && h->is_object()) {
        const json::object& o = h->get_object();
        const std::string metric = json_text(o, "metric");
        if (o.contains("p50_ms"))
            return metric + ": p50 " + ms_text(json_number(o, "p50_ms")) + " ms, p90 " + ms_text(json_number(o, "p90_ms")) + " ms, p99 " +
                   ms_text(json_number(o, "p99_ms")) + " ms";
        if (o.contains("requests_per_s"))
            return metric + ": " + figure_text(json_number(o, "requests_per_s")) + " req/s, " +
                   figure_text(json_number(o, "output_tokens_per_s")) + " output tokens/s";
    }
    return figure_text(json_number(s, "request_throughput")) + " req/s achieved (" + json_text(s, "arrival") + " offered), TTFT p99 " +
           ms_text(json_number(s, "p99_ttft_ms")) + " ms, E2E p99 " + ms_text(json_number(s, "p99_e2el_ms")) + " ms, error rate " +
           fmt("%.2f", 100 * json_number(s, "error_rate")) + " %";
}

void verdict_banner(html_page& page, const json::object& s) {
    std::vector<std::string> reasons;
    const json::object& validity = json_object(s, "validity");
    const bool valid = json_true(validity, "valid");
    if (const json::value* r = validity.if_contains("reasons"); r && r->is_array())
        for (const auto& reason : r->get_array())
            if (reason.is_string()) reasons.emplace_back(reason.get_string());
    if (const std::string why = json_text(s, "partial_reason"); !why.empty()) reasons.push_back("partial: " + why);
    page.verdict(valid, valid ? "VALID" : "INVALID", reasons);
}

std::vector<std::string> latency_charts(const std::vector<std::pair<const latency_metric*, histogram>>& filled) {
    chart_spec request{"latency_cdf", "Latency of a request: the share of requests done within x", "latency (ms, log scale)",
                       "fraction of requests", true};
    chart_spec token{"token_latency_cdf", "Time per output token and between chunks", "latency (ms, log scale)",
                     "fraction", true};
    for (const auto& [m, h] : filled) {
        if (std::string_view(m->key) == "lag" || std::string_view(m->key) == "connect") continue;
        (m->per_token ? token : request).series.emplace_back(m->label, cdf_points(h));
    }
    return {svg_chart(request), svg_chart(token)};
}

// A series of the run's seconds, at most max_time_points points: a long run's
// seconds are drawn in groups, each group's mean (its highest for a peak or
// a p99), so a soak of hours stays a page of a few hundred kilobytes.
chart_series time_series(const csv_columns& ts, const std::string& name, std::string_view column, bool peak) {
    chart_series s(name);
    const std::vector<double> t = ts.column("t_s"), v = ts.column(column);
    const std::size_t n = std::min(t.size(), v.size());
    const std::size_t group = (n + max_time_points - 1) / max_time_points;
    for (std::size_t from = 0; from < n; from += std::max<std::size_t>(group, 1)) {
        double sum = 0, high = -INFINITY;
        std::size_t values = 0;
        for (std::size_t i = from; i < std::min(n, from + group); ++i) {
            if (!std::isfinite(v[i])) continue;
            sum += v[i];
            high = std::max(high, v[i]);
            ++values;
        }
        if (values > 0) s.points.push_back({t[from], peak ? high : sum / static_cast<double>(values)});
    }
    return s;
}

std::vector<std::string> time_charts(const csv_columns& ts) {
    const auto series = [&](const std::string& name, std::string_view column, bool peak = false) {
        return time_series(ts, name, column, peak);
    };
    chart_spec rates{"rates", "Requests per second: offered, completed and failed", "time (s)", "requests per second"};
    rates.series = {series("offered", "offered"), series("completed", "completed"), series("failed", "failed")};
    chart_spec in_flight{"in_flight", "Requests in flight at each second's end", "time (s)", "requests"};
    in_flight.series = {series("in flight", "in_flight", true)};
    chart_spec ttft{"ttft_over_time", "TTFT of the requests that ended in each second", "time (s)", "TTFT (ms)"};
    ttft.series = {series("TTFT p50", "ttft_p50_ms"), series("TTFT p99", "ttft_p99_ms", true)};
    return {svg_chart(rates), svg_chart(in_flight), svg_chart(ttft)};
}

void by_input_length(html_page& page, const json::object& s) {
    const json::value* v = s.if_contains("by_input_length");
    if (v == nullptr || !v->is_array() || v->get_array().empty()) return;
    chart_spec chart{"by_input_length", "TTFT by input length: each bucket's requests", "input tokens (bucket's middle, log scale)",
                     "TTFT (ms)", true};
    chart_series p50{"TTFT p50", {}, true, true}, p99{"TTFT p99", {}, true, true};
    std::vector<std::vector<std::string>> rows;
    for (const auto& b : v->get_array()) {
        if (!b.is_object()) continue;
        const json::object& o = b.get_object();
        const double completed = json_number(o, "completed");
        rows.push_back({json_text(o, "range"), figure_text(completed), ms_text(json_number(o, "p50_ttft_ms")), ms_text(json_number(o, "p99_ttft_ms")),
                        ms_text(json_number(o, "p50_tpot_ms")), ms_text(json_number(o, "p50_e2el_ms")), ms_text(json_number(o, "p99_e2el_ms"))});
        if (!(completed > 0)) continue;
        const double middle = (json_number(o, "min_input_tokens") + json_number(o, "max_input_tokens")) / 2;
        p50.points.push_back({std::max(middle, 1.0), json_number(o, "p50_ttft_ms")});
        p99.points.push_back({std::max(middle, 1.0), json_number(o, "p99_ttft_ms")});
    }
    chart.series = {p50, p99};
    page.section("By input length");
    page.charts({svg_chart(chart)});
    page.table("by_input_length", {"input tokens", "completed", "TTFT p50", "TTFT p99", "TPOT p50", "E2E p50", "E2E p99"},
               rows);
}

// A sessions run: TTFT and E2E by turn, the cost of a growing conversation.
void by_turn(html_page& page, const json::object& s) {
    const json::value* turns = json_object(s, "sessions").if_contains("by_turn");
    if (turns == nullptr || !turns->is_array() || turns->get_array().empty()) return;
    chart_spec chart("by_turn", "TTFT and E2E by turn of a session", "turn", "latency (ms)");
    chart_series ttft50("TTFT p50", {}, true, true), ttft99("TTFT p99", {}, true, true), e2e50("E2E p50", {}, true, true);
    std::vector<std::vector<std::string>> rows;
    for (const auto& t : turns->get_array()) {
        if (!t.is_object()) continue;
        const json::object& o = t.get_object();
        const double turn = json_number(o, "turn");
        const json::object &ttft = json_object(o, "ttft_ms"), &e2e = json_object(o, "e2el_ms");
        ttft50.points.push_back({turn, json_number(ttft, "p50")});
        ttft99.points.push_back({turn, json_number(ttft, "p99")});
        e2e50.points.push_back({turn, json_number(e2e, "p50")});
        rows.push_back({figure_text(turn) + (json_true(o, "and_later") ? "+" : ""), figure_text(json_number(o, "completed")),
                        ms_text(json_number(ttft, "p50")), ms_text(json_number(ttft, "p99")),
                        ms_text(json_number(e2e, "p50")), figure_text(json_number(o, "mean_prompt_tokens")),
                        figure_text(json_number(o, "mean_cached_tokens"))});
    }
    chart.series = {ttft50, ttft99, e2e50};
    page.section("By turn");
    page.charts({svg_chart(chart)});
    page.table("by_turn", {"turn", "completed", "TTFT p50", "TTFT p99", "E2E p50", "prompt tokens", "cached tokens"}, rows);
}

void tables(html_page& page, const json::object& s,
            const std::vector<std::pair<const latency_metric*, histogram>>& filled) {
    std::vector<std::string> header{"latency (ms)"};
    header.insert(header.end(), std::begin(latency_stats), std::end(latency_stats));
    std::vector<std::vector<std::string>> rows;
    for (const auto& [m, h] : filled) {
        std::vector<std::string> row{m->label};
        for (const char* stat : latency_stats)
            row.push_back(ms_text(json_number(s, std::string(stat) + "_" + m->key + "_ms")));
        rows.push_back(std::move(row));
    }
    page.section("Latency");
    page.table("latency", header, rows);

    std::vector<std::vector<std::string>> counts;
    for (const char* key : {"completed", "failed", "refused", "unfinished", "warmup_requests", "peak_inflight",
                            "total_input_tokens", "total_output_tokens", "request_throughput", "request_goodput",
                            "output_throughput", "total_token_throughput", "error_rate", "duration"})
        if (s.contains(key)) counts.push_back({key, figure_text(json_number(s, key))});
    page.section("Requests and tokens");
    page.table("requests", {"figure", "value"}, counts);

    if (const json::value* e = s.if_contains("errors"); e && e->is_object() && !e->get_object().empty()) {
        std::vector<std::vector<std::string>> errors;
        for (const auto& [cls, n] : e->get_object())
            errors.push_back({std::string(cls), n.is_number() ? figure_text(n.to_number<double>()) : "-"});
        page.section("Errors by class");
        page.table("errors", {"class", "requests"}, errors);
    }
}

}  // namespace

std::vector<chart_point> cdf_points(const histogram& h) {
    std::vector<chart_point> points;
    if (h.count() == 0) return points;
    const std::size_t n = std::min<std::size_t>(h.count(), cdf_steps);
    points.reserve(n + 1);
    for (std::size_t i = 0; i <= n; ++i) {
        const double p = 100.0 * static_cast<double>(i) / static_cast<double>(n);
        // Past a request that never answered the curve stops short of 1: its share never came.
        if (h.percentile(p) == histogram::infinite) break;
        points.push_back({ns_as_ms(h.percentile(p)), p / 100});
    }
    return points;
}

std::vector<double> csv_columns::column(std::string_view name) const {
    const auto at = std::find(names.begin(), names.end(), name);
    if (at == names.end()) return {};
    const auto c = static_cast<std::size_t>(at - names.begin());
    std::vector<double> out;
    out.reserve(rows.size());
    for (const auto& row : rows) out.push_back(c < row.size() ? row[c] : NAN);
    return out;
}

csv_columns parse_numeric_csv(std::string_view text) {
    csv_columns out;
    bool header = true;
    while (!text.empty()) {
        const std::size_t end = std::min(text.find('\n'), text.size());
        std::string_view line = text.substr(0, end);
        text.remove_prefix(std::min(end + 1, text.size()));
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        std::vector<std::string_view> cells;
        for (std::size_t from = 0;;) {
            const std::size_t comma = line.find(',', from);
            cells.push_back(line.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from));
            if (comma == std::string_view::npos) break;
            from = comma + 1;
        }
        if (header) {
            for (const auto c : cells) out.names.emplace_back(c);
            header = false;
            continue;
        }
        std::vector<double> row;
        bool ok = true;
        for (const auto c : cells) {
            double v = NAN;
            if (!c.empty() && std::from_chars(c.data(), c.data() + c.size(), v).ec != std::errc{}) ok = false;
            row.push_back(v);
        }
        if (ok) out.rows.push_back(std::move(row));
    }
    return out;
}

std::string run_report_html(const std::string& title, const json::object& summary, std::string_view timeseries_csv,
                            std::string_view windows_jsonl) {
    const json::value* soak = summary.if_contains("soak");
    const bool is_soak = soak && soak->is_object();
    const bool merged = summary.contains("merged");
    html_page page("openloop " + std::string(is_soak ? "soak" : merged ? "merge" : "run") + ": " + title,
                   is_soak ? "soak" : merged ? "merge" : "run");
    verdict_banner(page, summary);
    page.headline(headline_text(summary));
    if (is_soak) soak_section(page, soak->get_object(), windows_jsonl);

    const auto filled = filled_histograms(summary);
    page.section("Latency distributions");
    page.charts(latency_charts(filled));
    const csv_columns ts = parse_numeric_csv(timeseries_csv);
    if (!ts.rows.empty()) {
        page.section("Over time");
        page.charts(time_charts(ts));
    }
    by_input_length(page, summary);
    by_turn(page, summary);
    tables(page, summary, filled);

    page.how_it_was_run(summary, {"target", "mode", "arrival", "duration"});
    return page.str();
}

}  // namespace openloop
