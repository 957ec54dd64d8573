#include "openloop/measure/metrics_export.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace openloop {

namespace {

// Decimal le labels rather than 1e-05: they read as written in the docs, and
// a label is compared as text, so it must never change between releases.
constexpr bucket_bound lag_bounds[] = {
    {10'000, "0.00001"},        {25'000, "0.000025"},      {50'000, "0.00005"},    {100'000, "0.0001"},
    {250'000, "0.00025"},       {500'000, "0.0005"},       {1'000'000, "0.001"},   {2'500'000, "0.0025"},
    {5'000'000, "0.005"},       {10'000'000, "0.01"},      {25'000'000, "0.025"},  {50'000'000, "0.05"},
    {100'000'000, "0.1"},       {250'000'000, "0.25"},     {500'000'000, "0.5"},   {1'000'000'000, "1"},
};
constexpr bucket_bound request_bounds[] = {
    {1'000'000, "0.001"},         {2'500'000, "0.0025"},       {5'000'000, "0.005"},
    {10'000'000, "0.01"},         {25'000'000, "0.025"},       {50'000'000, "0.05"},
    {100'000'000, "0.1"},         {250'000'000, "0.25"},       {500'000'000, "0.5"},
    {1'000'000'000, "1"},         {2'500'000'000, "2.5"},      {5'000'000'000, "5"},
    {10'000'000'000, "10"},       {25'000'000'000, "25"},      {50'000'000'000, "50"},
    {100'000'000'000, "100"},     {300'000'000'000, "300"},
};
constexpr bucket_bound token_bounds[] = {
    {100'000, "0.0001"},      {250'000, "0.00025"},     {500'000, "0.0005"},     {1'000'000, "0.001"},
    {2'500'000, "0.0025"},    {5'000'000, "0.005"},     {10'000'000, "0.01"},    {25'000'000, "0.025"},
    {50'000'000, "0.05"},     {100'000'000, "0.1"},     {250'000'000, "0.25"},   {500'000'000, "0.5"},
    {1'000'000'000, "1"},     {2'500'000'000, "2.5"},   {5'000'000'000, "5"},    {10'000'000'000, "10"},
};

class writer {
public:
    void family(std::string_view name, std::string_view type, std::string_view help) {
        out_.append("# HELP ").append(name).append(" ").append(help).append("\n");
        out_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
    }
    void sample(std::string_view name, std::string_view labels, std::uint64_t v) {
        head(name, labels);
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        out_.append(buf, r.ptr).append("\n");
    }
    void sample(std::string_view name, std::string_view labels, double v) {
        head(name, labels);
        if (std::isnan(v)) {
            out_.append("NaN\n");
            return;
        }
        if (std::isinf(v)) {
            out_.append(v > 0 ? "+Inf\n" : "-Inf\n");
            return;
        }
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        out_.append(buf, r.ptr).append("\n");
    }
    void one(std::string_view name, std::string_view type, std::string_view help, std::uint64_t v) {
        family(name, type, help);
        sample(name, {}, v);
    }
    void one(std::string_view name, std::string_view type, std::string_view help, double v) {
        family(name, type, help);
        sample(name, {}, v);
    }
    // Prometheus histogram form of one of ours (ns): cumulative buckets,
    // +Inf equal to _count, _sum in seconds.
    void histogram_family(std::string_view name, std::string_view help, const histogram& h,
                          std::span<const bucket_bound> bounds) {
        family(name, "histogram", help);
        const std::string bucket = std::string(name) + "_bucket";
        std::string le;
        for (const auto& b : bounds) {
            le.assign("le=\"").append(b.le).append("\"");
            sample(bucket, le, h.count_at_or_below(b.ns));
        }
        sample(bucket, "le=\"+Inf\"", h.count());
        sample(std::string(name) + "_sum", {}, h.sum() / 1e9);
        sample(std::string(name) + "_count", {}, h.count());
    }
    std::string take() { return std::move(out_); }

private:
    void head(std::string_view name, std::string_view labels) {
        out_.append(name);
        if (!labels.empty()) {
            out_.append("{").append(labels).append("}");
        }
        out_.append(" ");
    }
    std::string out_;
};

std::uint64_t non_negative(std::int64_t v) { return v < 0 ? 0 : static_cast<std::uint64_t>(v); }

}  // namespace

std::span<const bucket_bound> lag_buckets() { return lag_bounds; }
std::span<const bucket_bound> request_buckets() { return request_bounds; }
std::span<const bucket_bound> token_buckets() { return token_bounds; }

std::string format_live_metrics(const live_view& v) {
    if (v.stats == nullptr) {
        throw std::invalid_argument("format_live_metrics: live_view.stats is null");
    }
    const run_stats& s = *v.stats;
    writer w;
    w.one("openloop_requests_started_total", "counter", "Measured requests sent (warm-up excluded).", s.started);
    w.one("openloop_requests_completed_total", "counter", "Measured requests that succeeded.", s.completed);
    w.family("openloop_requests_failed_total", "counter", "Measured requests that failed, by error class.");
    std::string label;
    for (int c = 1; c < error_class_count; ++c) {  // 0 is none: not a failure
        label.assign("class=\"").append(error_class_name(static_cast<error_class>(c))).append("\"");
        w.sample("openloop_requests_failed_total", label, s.failed_by_class[static_cast<std::size_t>(c)]);
    }
    w.one("openloop_requests_refused_total", "counter", "Requests never sent: refused by --max-inflight.", s.refused);
    w.one("openloop_warmup_requests_total", "counter", "Warm-up requests sent (in no other metric).",
          s.warmup_started);
    w.one("openloop_output_tokens_total", "counter", "Output tokens of completed measured requests.",
          non_negative(s.total_output_tokens));
    w.one("openloop_input_tokens_total", "counter",
          "Input tokens (client-side counts) of completed measured requests.", non_negative(s.total_input_tokens));
    w.one("openloop_reasoning_tokens_total", "counter",
          "Output tokens completed measured requests spent thinking (part of openloop_output_tokens_total).",
          non_negative(s.reasoning.reasoning_tokens));
    w.one("openloop_ended_thinking_total", "counter",
          "Completed measured requests that thought and never answered (max_tokens spent thinking).",
          s.reasoning.ended_thinking);
    w.one("openloop_tool_calls_total", "counter", "Completed measured requests answered with a tool call.",
          s.reasoning.tool_calls);
    w.one("openloop_in_flight", "gauge", "Measured requests in flight now.", v.in_flight);
    w.one("openloop_lost_events_total", "counter", "Events dropped by a full ring (any makes the run invalid).",
          v.lost_events);

    w.histogram_family("openloop_schedule_lag_seconds", "Actual send minus intended send time.", s.lag,
                       lag_bounds);
    w.histogram_family("openloop_ttft_seconds", "Time to first token, from the intended send time.", s.ttft,
                       request_bounds);
    w.histogram_family("openloop_ttfa_seconds",
                       "Time to first answer token (not thinking), from the intended send time; a request that "
                       "never answered is in +Inf and _count alone.",
                       s.ttfa,
                       request_bounds);
    w.histogram_family("openloop_itl_seconds", "Inter-token latency (per token where counts are known).", s.itl,
                       token_bounds);
    w.histogram_family("openloop_tpot_seconds", "Time per output token after the first.", s.tpot, token_bounds);
    w.histogram_family("openloop_e2e_seconds", "End-to-end latency, from the intended send time.", s.e2e,
                       request_bounds);

    const live_window& win = v.window;
    if (win.seconds > 0) {
        struct quantile {
            std::string_view name, q;
            std::int64_t ns;
        };
        const std::array<quantile, 6> quantiles = {{
            {"openloop_window_ttft_seconds", "0.5", win.ttft_p50},
            {"openloop_window_ttft_seconds", "0.9", win.ttft_p90},
            {"openloop_window_ttft_seconds", "0.99", win.ttft_p99},
            {"openloop_window_itl_seconds", "0.99", win.itl_p99},
            {"openloop_window_tpot_seconds", "0.99", win.tpot_p99},
            {"openloop_window_e2e_seconds", "0.99", win.e2e_p99},
        }};
        std::string_view family;  // the last one given its header: a family without samples gets none
        for (const auto& q : quantiles) {
            if (q.ns < 0) {
                continue;
            }
            if (q.name != family) {
                family = q.name;
                w.family(family, "gauge", "Percentile of the last closed window's completed requests.");
            }
            label.assign("quantile=\"").append(q.q).append("\"");
            w.sample(q.name, label, static_cast<double>(q.ns) / 1e9);
        }
        w.one("openloop_window_seconds", "gauge", "Length of the last closed window.", win.seconds);
        w.one("openloop_window_achieved_rate", "gauge", "Completions per second in the last closed window.",
              win.achieved_rate);
        w.one("openloop_window_offered_rate", "gauge", "Requests sent per second in the last closed window.",
              win.offered_rate);
    }
    if (v.generator_rss_bytes >= 0) {
        w.one("openloop_generator_resident_memory_bytes", "gauge", "Resident memory of this openloop process.",
              static_cast<std::uint64_t>(v.generator_rss_bytes));
    }
    if (v.generator_cpu_seconds >= 0) {
        w.one("openloop_generator_cpu_seconds_total", "counter", "CPU time (user + system) of this openloop process.",
              v.generator_cpu_seconds);
    }
    return w.take();
}

}  // namespace openloop
