#include "openloop/results/table.hpp"

#include "openloop/results/arrival_shape.hpp"
#include "openloop/results/fidelity.hpp"
#include "openloop/results/headline.hpp"
#include "openloop/results/media_report.hpp"
#include "openloop/results/model_report.hpp"
#include "openloop/results/number_text.hpp"
#include "openloop/results/session_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace openloop {

namespace {

// Row order: TTFT, then a thinking model's TTFA and thinking time, TPOT, ITL (and per phase when it
// thought), ICL, E2E, queue (only when requests waited for a slot), lag, connect.
constexpr std::array<std::string_view, 12> table_rows = {"ttft", "ttfa", "reasoning", "tpot", "itl", "itl_reasoning",
                                                         "itl_answer", "icl", "e2el", "queue", "lag", "connect"};
constexpr std::array<std::string_view, 8> table_columns = {"mean", "p50", "p90", "p95", "p99", "p99.9", "min", "max"};

constexpr std::size_t name_w = 14;
constexpr std::size_t col_w = 10;

std::string count(std::uint64_t n) { return std::to_string(n); }

std::string pad_left(std::string s, std::size_t width) {
    if (s.size() < width) {
        s.insert(0, width - s.size(), ' ');
    }
    return s;
}

std::string pad_right(std::string s, std::size_t width) {
    if (s.size() < width) {
        s.append(width - s.size(), ' ');
    }
    return s;
}

std::string or_dash(std::string_view s) { return s.empty() ? std::string("-") : std::string(s); }

// A row's cells share one precision (its largest value's), so its columns line up.
std::string cells(const histogram& h, const std::vector<std::string_view>& stats, std::size_t width) {
    std::vector<std::optional<double>> values;
    double scale = 0;
    for (const auto stat : stats) {
        values.push_back(latency_ms(h, stat));
        if (std::isfinite(values.back().value_or(0))) scale = std::max(scale, std::fabs(values.back().value_or(0)));
    }
    std::string out;
    for (const auto& v : values) {
        out += pad_left(!v ? std::string("-") : std::isinf(*v) ? std::string("inf") : fmt(ms_format(scale), *v), width);
    }
    return out;
}

void latency_rows(std::string& out, const run_stats& stats, bool streamed) {
    std::string header = pad_right("latency (ms)", name_w);
    for (const auto& c : table_columns) {
        header += pad_left(std::string(c), col_w);
    }
    out += header + '\n';
    const std::vector<std::string_view> columns(table_columns.begin(), table_columns.end());
    for (const std::string_view row : table_rows) {
        if (row == "queue" && stats.queued == 0) continue;
        if (reasoning_metric(row) && stats.reasoning.thinking == 0) continue;
        if (!streamed && stream_metric(row)) continue;
        const auto f = std::find_if(latency_families.begin(), latency_families.end(),
                                    [&](const latency_family& x) { return x.key == row; });
        out += pad_right(std::string(f->label), name_w) + cells(stats.*f->member, columns, col_w);
        // Requests that never answered are infinitely late: said where their infinities show.
        if (row == "ttfa" && never_answered(stats) > 0) out += "  (" + count(never_answered(stats)) + " never answered)";
        out += '\n';
    }
}

void input_rows(std::string& out, const run_stats& stats, bool streamed) {
    std::vector<std::pair<std::string_view, histogram latency_set::*>> families = {
        {"TTFT", &latency_set::ttft}, {"TPOT", &latency_set::tpot}, {"E2E", &latency_set::e2e}};
    if (!streamed) families.erase(families.begin(), families.begin() + 2);
    bool header_done = false;
    for (std::size_t i = 0; i < stats.by_input.size(); ++i) {
        const latency_set& b = stats.by_input[i];
        if (b.completed == 0) {
            continue;
        }
        if (!header_done) {
            std::string h = pad_right("input tokens", name_w) + pad_left("completed", col_w);
            for (const auto& [fam, member] : families) {
                for (const std::string_view stat : {"mean", "p50", "p99"}) {
                    h += pad_left(std::string(fam) + " " + std::string(stat), col_w + 1);
                }
            }
            out += "\n" + h + '\n';
            header_done = true;
        }
        const bool last = i + 1 == input_bucket_lower.size();
        const std::string range = "[" + std::to_string(input_bucket_lower[i]) + ", " +
                                  (last ? std::string("inf") : std::to_string(input_bucket_lower[i + 1])) + ")";
        std::string l = pad_right(range, name_w) + pad_left(count(b.completed), col_w);
        for (const auto& [fam, member] : families) {
            l += cells(b.*member, {"mean", "p50", "p99"}, col_w + 1);
        }
        out += l + '\n';
    }
}

// Under the tally, what the failures said: one line per message, cut to a
// terminal's width.
template <class Line>
void error_message_lines(Line& line, const error_messages& messages) {
    constexpr std::size_t width = 120;
    bool header = false;
    for (const auto& e : messages.entries()) {
        for (const auto& m : e.messages) {
            if (!header) {
                line("");
                line("error messages (first of each kind)");
                header = true;
            }
            std::string kind = std::string(error_class_name(e.cls));
            if (e.status != 0) kind += " " + std::to_string(e.status);
            std::string l = "  " + pad_right(kind, 22) + m;
            if (l.size() > width) l = l.substr(0, width - 3) + "...";
            line(l);
        }
    }
}

}  // namespace

std::string format_table(const run_result& r) {
    const run_stats& s = r.stats;
    const run_context& c = r.context;
    std::string out;
    const auto line = [&](const std::string& l) {
        out += l;
        out += '\n';
    };

    line(r.validity.valid ? "VALID" : "INVALID: " + r.validity.reasons.front());
    if (const std::string headline = headline_line(r); !headline.empty()) line(headline);
    line("error rate     " + fmt("%.2f %%", r.errors.rate * 100) + "  (" + count(r.errors.failed) + " failed, " +
         count(s.completed) + " completed" +
         (r.errors.cancelled > 0 ? "; " + count(r.errors.cancelled) + " cancelled by openloop, not counted" : "") +
         (r.errors.unsent > 0 ? "; " + count(r.errors.unsent) + " never sent (fd_limit), not counted" : "") + ")");
    if (c.partial) {
        line("partial        " + c.partial_reason);
    }
    // A shard's own share of the schedule (request_rate is its share of the rate).
    const std::string shard =
        c.shard.empty() ? "" : ", shard " + c.shard + (c.request_rate > 0 ? " (" + fmt("%g", c.request_rate) + " req/s)" : "");
    line("target         " + c.target + "  (" + c.mode + ", " + c.arrival + shard +
         ", max concurrency " + (c.max_concurrency > 0 ? std::to_string(c.max_concurrency) : std::string("-")) + ")");
    line("requests       completed " + count(s.completed) + "  failed " + count(s.failed) + "  unfinished " +
         count(s.unfinished) + "  refused " + count(s.refused) + "  warm-up " + count(s.warmup_started) +
         "  lost events " + count(s.lost_events) + "  peak in flight " + count(s.max_inflight) + "  retried stale " +
         count(s.retried_stale));
    if (c.skipped > 0) {
        line("skipped        " + count(c.skipped) + " workload items the source dropped (unusable ShareGPT entries or "
             "bad trace rows), never sent");
    }
    line("duration       " + fmt("%.2f", r.duration_s) + " s");
    line("throughput     " + fmt("%.2f", r.request_throughput) + " req/s  goodput " + fmt("%.2f", r.request_goodput) +
         " req/s  output " + fmt("%.1f", r.output_throughput) + " tok/s  total " +
         fmt("%.1f", r.total_token_throughput) + " tok/s");
    line("tokens         input " + std::to_string(s.total_input_tokens) + "  output " +
         std::to_string(s.total_output_tokens) + " (source: " + or_dash(r.output_tokens_source) + ")  cached prompt " +
         std::to_string(s.cached_prompt_tokens) + (c.streamed ? "  ITL from " + or_dash(r.itl_source) : ""));
    if (s.bad_usage > 0) {
        // Only when it happened: the server's usage was not believed for these.
        line("bad usage      " + std::to_string(s.bad_usage) +
             " requests (counted by content chunks; see docs/metrics.md)");
    }
    if (const reasoning_stats& t = s.reasoning; t.thinking > 0 || t.tool_calls > 0) {
        // A thinking model's output is mostly not the answer: say how much was which.
        if (t.thinking > 0)
            line("reasoning      " + count(t.thinking) + " of " + count(s.completed) + " requests thought: " +
                 std::to_string(t.reasoning_tokens) + " reasoning tokens (source: " + or_dash(r.reasoning_tokens_source) +
                 "), " + std::to_string(t.answer_tokens) + " answer tokens" +
                 (t.think_tags > 0 ? "; " + count(t.think_tags) + " thought between <think> tags in the content "
                                     "(--reasoning-parser)"
                                   : ""));
        if (t.ended_thinking > 0)
            line("ended thinking " + count(t.ended_thinking) +
                 " requests spent max_tokens thinking and never answered: raise --output-len or lower "
                 "--reasoning-effort");
        if (t.tool_calls > 0) line("tool calls     " + count(t.tool_calls) + " answers were tool calls");
    }
    if (s.queued > 0) {
        line("queued         " + std::to_string(s.queued) + " requests waited for one of the " +
             std::to_string(c.max_concurrency) + " slots (--max-concurrency): latency counts their wait, lag "
             "counts from the slot freeing, and the arrival-shape test does not apply");
    }
    if (arrival_shape_applies(s, c.mode)) {
        if (const arrival_shape a = judge_arrivals(s.asked_gap, s.sent_gap); a.judged) {
            line("arrivals       gaps under a quarter of the mean (" + fmt_ms(static_cast<double>(a.short_ns) / 1e6) +
                 " ms): asked " + fmt("%.1f", a.asked_short * 100) + " %, sent " + fmt("%.1f", a.sent_short * 100) +
                 " %; KS distance " + fmt("%.3f", a.ks_distance) + (a.smoothed ? " (bursts smoothed)" : ""));
        }
    }
    if (s.media && s.media->requests > 0)
        for (const std::string& l : media_lines(*s.media)) line(l);
    line("lengths        " + describe_length_fidelity(s, c.tokenizer));
    for (const std::string& l : describe_replay_fidelity(s, c)) line("fidelity       " + l);
    line("");
    if (!c.streamed) {
        line("not streamed   each answer was one JSON body: TTFT, TPOT and ITL are not defined; E2E ends with the "
             "body");
    }
    latency_rows(out, s, c.streamed);
    input_rows(out, s, c.streamed);
    if (s.sessions.enabled()) {
        line("");
        for (const std::string& l : session_lines(s.sessions)) line(l);
    }
    if (!s.by_model.empty()) {
        line("");
        for (const std::string& l : model_lines(r)) line(l);
    }

    bool errors_header = false;
    for (int cls = 0; cls < error_class_count; ++cls) {
        const auto n = s.failed_by_class[static_cast<std::size_t>(cls)];
        if (n == 0) continue;
        if (!errors_header) {
            line("");
            line("errors by class");
            errors_header = true;
        }
        line("  " + pad_right(std::string(error_class_name(static_cast<error_class>(cls))), 22) + count(n));
    }
    error_message_lines(line, s.messages);
    if (!s.http_status_counts.empty()) {
        line("");
        line("failures by HTTP status");
        for (const auto& [code, n] : s.http_status_counts) {
            line("  " + pad_right(std::to_string(code), 22) + count(n));
        }
    }
    return out;
}

}  // namespace openloop
