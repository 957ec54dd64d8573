#include "openloop/results/summary_json.hpp"

#include "openloop/measure/histogram.hpp"

#include "openloop/results/arrival_shape.hpp"
#include "openloop/results/fidelity.hpp"
#include "openloop/results/headline.hpp"
#include "openloop/results/media_report.hpp"
#include "openloop/results/metric_aliases.hpp"
#include "openloop/results/model_report.hpp"
#include "openloop/results/session_report.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace openloop {

namespace {

std::string key_of(std::string_view prefix, std::string_view fam) {
    std::string k(prefix);
    k += '_';
    k += fam;
    k += "_ms";
    return k;
}

void put_family(boost::json::object& o, std::string_view fam, const histogram& h) {
    for (const std::string_view stat : {"mean", "median", "std"}) {
        o[key_of(stat, fam)] = latency_ms_json(h, stat);
    }
    for (const double p : {50.0, 90.0, 95.0, 99.0, 99.9}) {
        std::string stat = "p";
        char buf[16];
        const auto res = std::to_chars(buf, buf + sizeof buf, p);
        stat.append(buf, res.ptr);
        o[key_of(stat, fam)] = latency_ms_json(h, stat);
    }
    for (const std::string_view stat : {"min", "max"}) {
        o[key_of(stat, fam)] = latency_ms_json(h, stat);
    }
}

boost::json::value name_or_null(std::string_view name) {
    return name.empty() ? boost::json::value(nullptr) : boost::json::value(boost::json::string(name));
}

boost::json::array input_buckets(const run_stats& stats, bool streamed) {
    boost::json::array buckets;
    for (std::size_t i = 0; i < stats.by_input.size(); ++i) {
        const latency_set& b = stats.by_input[i];
        const int lo = input_bucket_lower[i];
        const bool last = i + 1 == input_bucket_lower.size();
        boost::json::object o;
        o["range"] = "[" + std::to_string(lo) + ", " + (last ? std::string("inf") : std::to_string(input_bucket_lower[i + 1])) + ")";
        o["min_input_tokens"] = lo;
        if (last) {
            o["max_input_tokens"] = nullptr;
        } else {
            o["max_input_tokens"] = input_bucket_lower[i + 1] - 1;
        }
        o["completed"] = b.completed;
        for (const auto& [fam, h] : {std::pair<std::string_view, const histogram*>{"ttft", &b.ttft},
                                     {"tpot", &b.tpot},
                                     {"e2el", &b.e2e}}) {
            if (!streamed && stream_metric(fam)) continue;
            for (const std::string_view stat : {"mean", "p50", "p99"}) {
                o[key_of(stat, fam)] = latency_ms_json(*h, stat);
            }
        }
        buckets.emplace_back(std::move(o));
    }
    return buckets;
}

// A thinking model's split of the output, the answers that never came, and how thinking
// inside the content was read (--reasoning-parser; a run from before the flag read none).
boost::json::object reasoning_json(const run_result& r) {
    const reasoning_stats& t = r.stats.reasoning;
    const boost::json::value* parser = r.context.config.if_contains("reasoning-parser");
    return boost::json::object{{"thinking_requests", t.thinking},
                               {"reasoning_tokens", t.reasoning_tokens},
                               {"answer_tokens", t.answer_tokens},
                               {"reasoning_tokens_source", name_or_null(r.reasoning_tokens_source)},
                               {"ended_thinking", t.ended_thinking},
                               {"tool_calls", t.tool_calls},
                               {"parser", parser && parser->is_string() ? *parser : boost::json::value("none")},
                               {"think_tag_requests", t.think_tags}};
}

}  // namespace

boost::json::object summary_json(const run_result& r) {
    const run_stats& stats = r.stats;
    const run_context& context = r.context;
    boost::json::object s;

    boost::json::array reasons;
    for (const auto& reason : r.validity.reasons) {
        reasons.emplace_back(reason);
    }
    s["validity"] = boost::json::object{{"valid", r.validity.valid}, {"reasons", std::move(reasons)}};
    if (auto headline = headline_json(r)) s["headline"] = std::move(*headline);
    s["target"] = context.target;
    s["mode"] = context.mode;
    if (stats.steady_window_s > 0) {
        s["steady_request_throughput"] = stats.steady_rate();
    }
    s["arrival"] = context.arrival;
    if (arrival_shape_applies(stats, context.mode)) {
        const arrival_shape a = judge_arrivals(stats.asked_gap, stats.sent_gap);
        s["arrival_shape"] = boost::json::object{{"gaps", a.gaps},
                                                 {"short_gap_ms", static_cast<double>(a.short_ns) / 1e6},
                                                 {"asked_short_fraction", a.asked_short},
                                                 {"sent_short_fraction", a.sent_short},
                                                 {"z", a.z},
                                                 {"ks_distance", a.ks_distance},
                                                 {"judged", a.judged},
                                                 {"smoothed", a.smoothed}};
    }
    s["shard"] = context.shard.empty() ? boost::json::value(nullptr) : boost::json::value(context.shard);
    s["start"] = run_clock_json(context.clock);
    s["partial"] = context.partial;
    if (context.partial) {
        s["partial_reason"] = context.partial_reason;
    }
    s["stopped_early"] = context.stopped_early;  // failed fast; partial_reason says with what

    s["duration"] = r.duration_s;
    s["drain_limit"] = context.drain_s;
    s["io_thread_cpu_wait_ms"] = context.io_cpu_wait_ms >= 0 ? boost::json::value(context.io_cpu_wait_ms) : nullptr;
    s["completed"] = stats.completed;
    s["failed"] = stats.failed;
    s["total_input_tokens"] = stats.total_input_tokens;
    s["total_output_tokens"] = stats.total_output_tokens;
    s["request_throughput"] = r.request_throughput;
    s["request_goodput"] = r.request_goodput;
    s["output_throughput"] = r.output_throughput;
    s["total_token_throughput"] = r.total_token_throughput;
    if (context.max_concurrency > 0) {
        s["max_concurrency"] = context.max_concurrency;
    } else {
        s["max_concurrency"] = nullptr;
    }
    if (context.request_rate > 0) {
        s["request_rate"] = context.request_rate;
    } else {
        s["request_rate"] = "inf";  // as vLLM writes an unbounded rate
    }
    s["burstiness"] = context.burstiness;

    // Not streamed: the keys of metrics that need chunks are absent, not null or 0.
    if (!context.streamed) s["streamed"] = false;
    for (const latency_family& f : latency_families) {
        if (context.streamed || !stream_metric(f.key)) put_family(s, f.key, stats.*f.member);
    }

    s["started"] = stats.started;
    s["refused"] = stats.refused;
    s["queued"] = stats.queued;  // waited client-side for a free slot (--max-concurrency)
    s["unfinished"] = stats.unfinished;
    s["skipped"] = context.skipped;
    s["lost_events"] = stats.lost_events;
    s["warmup_requests"] = stats.warmup_started;
    s["goodput_requests"] = stats.good;
    s["peak_inflight"] = stats.max_inflight;
    s["retried_stale"] = stats.retried_stale;
    s["max_error_rate"] = context.max_error_rate;
    boost::json::object errors;
    for (int c = 0; c < error_class_count; ++c) {
        if (const auto n = stats.failed_by_class[static_cast<std::size_t>(c)]; n > 0) {
            errors[error_class_name(static_cast<error_class>(c))] = n;
        }
    }
    s["errors"] = std::move(errors);
    boost::json::object statuses;
    for (const auto& [code, n] : stats.http_status_counts) {
        statuses[std::to_string(code)] = n;
    }
    s["http_status"] = std::move(statuses);
    boost::json::array messages;
    for (const auto& e : stats.messages.entries()) {
        boost::json::array texts;
        for (const auto& m : e.messages) texts.emplace_back(m);
        messages.emplace_back(boost::json::object{{"class", error_class_name(e.cls)},
                                                  {"status", e.status},
                                                  {"count", e.count},
                                                  {"messages", std::move(texts)}});
    }
    s["error_messages"] = std::move(messages);
    s["error_rate"] = r.errors.rate;
    s["output_tokens_source"] = name_or_null(r.output_tokens_source);
    s["bad_usage"] = stats.bad_usage;  // completed requests whose usage was not believed
    if (context.streamed) s["itl_source"] = name_or_null(r.itl_source);
    s["reasoning"] = reasoning_json(r);
    s["cached_prompt_tokens"] = stats.cached_prompt_tokens;
    s["server_prompt_tokens"] = stats.server_prompt_tokens;
    s["length_fidelity"] = length_fidelity(stats, context.tokenizer);
    s["fidelity"] = replay_fidelity_json(stats, context);
    s["measured_window"] = boost::json::object{{"first_intended_ns", stats.first_intended_ns},
                                               {"last_end_ns", stats.last_end_ns}};
    s["by_input_length"] = input_buckets(stats, context.streamed);
    if (stats.sessions.enabled()) s["sessions"] = sessions_json(stats.sessions);
    if (!stats.by_model.empty()) s["by_model"] = by_model_json(r);
    if (stats.media && stats.media->requests > 0) s["media"] = media_json(*stats.media);

    boost::json::object hists;
    for (const latency_family& f : latency_families) {
        if (context.streamed || !stream_metric(f.key)) hists[f.key] = (stats.*f.member).to_json();
    }
    s["histograms"] = std::move(hists);
    s["aliases"] = metric_aliases();
    if (!context.server_signals.empty()) s["server_signals"] = context.server_signals;
    s["config"] = context.config;
    s["environment"] = context.environment;
    return s;
}

std::optional<std::string> summary_problem(std::string_view text) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return "empty";
    boost::json::stream_parser parser;
    boost::system::error_code ec;
    const std::size_t used = parser.write_some(text.data(), text.size(), ec);
    if (!ec) parser.finish(ec);
    if (ec) {
        const std::string_view read = text.substr(0, used);
        const auto line = 1 + std::count(read.begin(), read.end(), '\n');
        return "not JSON: " + ec.message() + " at line " + std::to_string(line);
    }
    const boost::json::value v = parser.release();
    if (!v.is_object()) return std::string("not a JSON object");
    const boost::json::value* validity = v.get_object().if_contains("validity");
    if (validity == nullptr || !validity->is_object() || !validity->get_object().contains("valid"))
        return std::string("no \"validity\": not an openloop summary");
    // What merge and report.html read back: a histogram they cannot take
    // (counts past 2^64, a count that is not their sum) is no summary of ours.
    if (const boost::json::value* all = v.get_object().if_contains("histograms"); all && all->is_object()) {
        for (const auto& [key, h] : all->get_object()) {
            try {
                histogram::from_json(h);
            } catch (const std::invalid_argument& e) {
                return "histograms." + std::string(key) + ": " + e.what();
            }
        }
    }
    return std::nullopt;
}

}  // namespace openloop
