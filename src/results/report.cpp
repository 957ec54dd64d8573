#include "openloop/results/report.hpp"

#include "openloop/results/fidelity.hpp"
#include "openloop/results/metric_aliases.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace openloop {

namespace {

struct family {
    std::string_view key;    // X in mean_X_ms
    std::string_view label;  // row name in the table ("" = not a table row)
    histogram run_stats::*member;
};

// vLLM's four first, then ours. The table shows the rows with a label.
constexpr std::array<family, 10> families = {{
    {"ttft", "TTFT", &run_stats::ttft},
    {"tpot", "TPOT", &run_stats::tpot},
    {"itl", "ITL", &run_stats::itl},
    {"e2el", "E2E", &run_stats::e2e},
    {"icl", "ICL", &run_stats::icl},
    {"lag", "lag", &run_stats::lag},
    {"connect", "connect", &run_stats::connect},
    {"ttfb", "", &run_stats::ttfb},
    {"ttft_from_send", "", &run_stats::ttft_from_send},
    {"e2el_from_send", "", &run_stats::e2e_from_send},
}};

// Table row order: the brief's (TTFT, TPOT, ITL, ICL, E2E, lag, connect).
constexpr std::array<std::string_view, 7> table_rows = {"ttft", "tpot", "itl", "icl", "e2el", "lag", "connect"};

// Table columns; each cell is summary key <column>_<family>_ms.
constexpr std::array<std::string_view, 8> table_columns = {"mean", "p50", "p90", "p95", "p99", "p99.9", "min", "max"};

double to_ms(double ns) { return ns / 1e6; }

std::string key_of(std::string_view prefix, std::string_view fam) {
    std::string k(prefix);
    k += '_';
    k += fam;
    k += "_ms";
    return k;
}

void put_family(boost::json::object& o, std::string_view fam, const histogram& h) {
    const auto put = [&](std::string_view prefix, double ns) {
        if (h.count() == 0) {
            o[key_of(prefix, fam)] = nullptr;  // no sample is not a 0 ms sample
        } else {
            o[key_of(prefix, fam)] = to_ms(ns);
        }
    };
    put("mean", h.mean());
    put("median", static_cast<double>(h.percentile(50)));
    put("std", h.stddev());
    for (const double p : {50.0, 90.0, 95.0, 99.0, 99.9}) {
        std::string prefix = "p";
        char buf[16];
        const auto res = std::to_chars(buf, buf + sizeof buf, p);
        prefix.append(buf, res.ptr);
        put(prefix, static_cast<double>(h.percentile(p)));
    }
    put("min", static_cast<double>(h.min()));
    put("max", static_cast<double>(h.max()));
}

// "usage" / "chunks" / "mixed" from how many items came from each source.
boost::json::value source_name(std::uint64_t exact, std::uint64_t estimated, std::string_view exact_name,
                               std::string_view estimated_name) {
    if (exact > 0 && estimated > 0) {
        return "mixed";
    }
    if (exact > 0) {
        return boost::json::string(exact_name);
    }
    if (estimated > 0) {
        return boost::json::string(estimated_name);
    }
    return nullptr;
}

double per_second(double amount, double duration) { return duration > 0 ? amount / duration : 0.0; }

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// Decimals for about four significant digits at the magnitude of `scale` ms.
const char* ms_format(double scale) {
    const double a = std::fabs(scale);
    if (a < 10) {
        return "%.3f";
    }
    if (a < 100) {
        return "%.2f";
    }
    if (a < 10000) {
        return "%.1f";
    }
    return "%.0f";
}

std::string fmt_ms(double v) { return fmt(ms_format(v), v); }

std::optional<double> number(const boost::json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (v->is_double()) {
        return v->get_double();
    }
    if (v->is_int64()) {
        return static_cast<double>(v->get_int64());
    }
    if (v->is_uint64()) {
        return static_cast<double>(v->get_uint64());
    }
    return std::nullopt;
}

std::string show(const boost::json::object& o, std::string_view key, const char* format = "%.0f") {
    const auto n = number(o, key);
    return n ? fmt(format, *n) : "-";
}

// A row shares one precision (its largest value's), so its columns line up.
std::string show_ms(const boost::json::object& o, std::string_view key, double row_scale) {
    const auto n = number(o, key);
    return n ? fmt(ms_format(row_scale), *n) : "-";
}

double row_scale(const boost::json::object& o, const std::vector<std::string>& keys) {
    double scale = 0;
    for (const auto& k : keys) {
        scale = std::max(scale, std::fabs(number(o, k).value_or(0)));
    }
    return scale;
}

std::string text(const boost::json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    if (v == nullptr || v->is_null()) {
        return "-";
    }
    if (v->is_string()) {
        return std::string(v->get_string());
    }
    return boost::json::serialize(*v);
}

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

}  // namespace

std::string error_rate_breach(const run_stats& stats, double max_error_rate) {
    // Requests openloop cancelled itself (Ctrl-C's grace, the drain or an
    // overload abort ran out) are its own doing, not the server's failures.
    const auto cancelled = stats.failed_by_class[static_cast<std::size_t>(error_class::cancelled)];
    const std::uint64_t failed = stats.failed - std::min(stats.failed, cancelled);
    const std::uint64_t ended = stats.completed + failed;
    if (ended == 0 || failed == 0) return {};
    const double rate = static_cast<double>(failed) / static_cast<double>(ended);
    if (rate <= max_error_rate) return {};
    std::vector<std::pair<std::uint64_t, int>> classes;
    for (int c = 0; c < error_class_count; ++c)
        if (const auto n = stats.failed_by_class[static_cast<std::size_t>(c)]; n > 0 && c != int(error_class::cancelled))
            classes.emplace_back(n, c);
    std::sort(classes.rbegin(), classes.rend());
    std::string why;
    for (const auto& [n, c] : classes) {
        if (!why.empty()) why += ", ";
        why += std::to_string(n) + " " + std::string(error_class_name(static_cast<error_class>(c)));
    }
    return "error rate " + fmt("%.2f", rate * 100) + " % exceeds the " + fmt("%g", max_error_rate * 100) +
           " % bound (" + why + ")";
}

verdict judge(const run_stats& stats, const run_context& context) {
    verdict v;
    const auto add = [&](std::string reason) {
        v.valid = false;
        v.reasons.push_back(std::move(reason));
    };
    if (context.partial) {
        add(context.partial_reason.empty() ? "run cut short" : "run cut short: " + context.partial_reason);
    }
    if (stats.lost_events > 0) {
        add(std::to_string(stats.lost_events) + " events lost to a full ring");
    }
    // With nothing completed, the reason below says it all.
    if (auto breach = error_rate_breach(stats, context.max_error_rate); !breach.empty() && stats.completed > 0) {
        add(std::move(breach));
    }
    if (stats.completed == 0) {
        add("no request completed (" + std::to_string(stats.failed) + " failed, " + std::to_string(stats.unfinished) +
            " unfinished)");
    }
    // A closed loop sends when a worker frees up; it has no schedule to lag.
    if (context.mode == "open-loop" && stats.lag.count() > 0) {
        const double p99 = to_ms(static_cast<double>(stats.lag.percentile(99)));
        if (p99 > context.lag_bound_ms) {
            add("schedule lag p99 " + fmt_ms(p99) + " ms exceeds the " + fmt("%g", context.lag_bound_ms) +
                " ms bound: the generator fell behind its schedule");
        }
    }
    return v;
}

boost::json::object make_summary(const run_stats& stats, const run_context& context) {
    boost::json::object s;
    const double duration = stats.duration_s();
    const verdict v = judge(stats, context);

    boost::json::array reasons;
    for (const auto& r : v.reasons) {
        reasons.emplace_back(r);
    }
    s["validity"] = boost::json::object{{"valid", v.valid}, {"reasons", std::move(reasons)}};
    s["target"] = context.target;
    s["mode"] = context.mode;
    if (stats.steady_window_s > 0) {
        s["steady_request_throughput"] = stats.steady_rate();
    }
    s["arrival"] = context.arrival;
    s["partial"] = context.partial;
    if (context.partial) {
        s["partial_reason"] = context.partial_reason;
    }

    s["duration"] = duration;
    s["completed"] = stats.completed;
    s["failed"] = stats.failed;
    s["total_input_tokens"] = stats.total_input_tokens;
    s["total_output_tokens"] = stats.total_output_tokens;
    s["request_throughput"] = per_second(static_cast<double>(stats.completed), duration);
    s["request_goodput"] = per_second(static_cast<double>(stats.good), duration);
    s["output_throughput"] = per_second(static_cast<double>(stats.total_output_tokens), duration);
    s["total_token_throughput"] =
        per_second(static_cast<double>(stats.total_input_tokens + stats.total_output_tokens), duration);
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

    for (const family& f : families) {
        put_family(s, f.key, stats.*f.member);
    }

    s["started"] = stats.started;
    s["refused"] = stats.refused;
    s["unfinished"] = stats.unfinished;
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
    const std::uint64_t ended = stats.completed + stats.failed;
    s["error_rate"] = ended > 0 ? static_cast<double>(stats.failed) / static_cast<double>(ended) : 0.0;
    s["output_tokens_source"] = source_name(stats.output_from_usage, stats.output_estimated, "usage", "chunks");
    s["itl_source"] = source_name(stats.itl_token_samples, stats.itl_chunk_samples, "tokens", "chunks");
    s["cached_prompt_tokens"] = stats.cached_prompt_tokens;
    s["server_prompt_tokens"] = stats.server_prompt_tokens;
    s["length_fidelity"] = length_fidelity(stats, context.tokenizer);
    s["measured_window"] = boost::json::object{{"first_intended_ns", stats.first_intended_ns},
                                               {"last_end_ns", stats.last_end_ns}};

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
            for (const auto& [prefix, p] : {std::pair<std::string_view, double>{"mean", -1}, {"p50", 50}, {"p99", 99}}) {
                if (h->count() == 0) {
                    o[key_of(prefix, fam)] = nullptr;
                } else {
                    o[key_of(prefix, fam)] = to_ms(p < 0 ? h->mean() : static_cast<double>(h->percentile(p)));
                }
            }
        }
        buckets.emplace_back(std::move(o));
    }
    s["by_input_length"] = std::move(buckets);

    boost::json::object hists;
    for (const family& f : families) {
        hists[f.key] = (stats.*f.member).to_json();
    }
    s["histograms"] = std::move(hists);
    s["aliases"] = metric_aliases();
    s["config"] = context.config;
    s["environment"] = context.environment;
    return s;
}

std::string format_table(const boost::json::object& summary) {
    std::string out;
    const auto line = [&](const std::string& l) {
        out += l;
        out += '\n';
    };

    // The verdict first: a number from an invalid run must not be read alone.
    bool valid = false;
    std::string first_reason = "no verdict in the summary";
    if (const auto* v = summary.if_contains("validity"); v != nullptr && v->is_object()) {
        const auto& o = v->get_object();
        if (const auto* ok = o.if_contains("valid"); ok != nullptr && ok->is_bool()) {
            valid = ok->get_bool();
        }
        if (const auto* r = o.if_contains("reasons"); r != nullptr && r->is_array() && !r->get_array().empty()) {
            const auto& first = r->get_array().front();
            first_reason = first.is_string() ? std::string(first.get_string()) : boost::json::serialize(first);
        }
    }
    line(valid ? "VALID" : "INVALID: " + first_reason);

    const auto error_rate = number(summary, "error_rate");
    line("error rate     " + (error_rate ? fmt("%.2f %%", *error_rate * 100) : std::string("-")) + "  (" +
         show(summary, "failed") + " failed, " + show(summary, "completed") + " completed)");
    if (const auto* p = summary.if_contains("partial"); p != nullptr && p->is_bool() && p->get_bool()) {
        line("partial        " + text(summary, "partial_reason"));
    }
    line("target         " + text(summary, "target") + "  (" + text(summary, "mode") + ", " + text(summary, "arrival") +
         ", max concurrency " + text(summary, "max_concurrency") + ")");
    line("requests       completed " + show(summary, "completed") + "  failed " + show(summary, "failed") +
         "  unfinished " + show(summary, "unfinished") + "  refused " + show(summary, "refused") + "  warm-up " +
         show(summary, "warmup_requests") + "  lost events " + show(summary, "lost_events") + "  peak in flight " +
         show(summary, "peak_inflight") + "  retried stale " + show(summary, "retried_stale"));
    line("duration       " + show(summary, "duration", "%.2f") + " s");
    line("throughput     " + show(summary, "request_throughput", "%.2f") + " req/s  goodput " +
         show(summary, "request_goodput", "%.2f") + " req/s  output " + show(summary, "output_throughput", "%.1f") +
         " tok/s  total " + show(summary, "total_token_throughput", "%.1f") + " tok/s");
    line("tokens         input " + show(summary, "total_input_tokens") + "  output " +
         show(summary, "total_output_tokens") + " (source: " + text(summary, "output_tokens_source") +
         ")  cached prompt " + show(summary, "cached_prompt_tokens") + "  ITL from " + text(summary, "itl_source"));
    if (const auto* f = summary.if_contains("length_fidelity"); f != nullptr && f->is_object()) {
        line("lengths        " + describe_length_fidelity(f->get_object()));
    }
    line("");

    constexpr std::size_t name_w = 14;
    constexpr std::size_t col_w = 10;
    std::string header = pad_right("latency (ms)", name_w);
    for (const auto& c : table_columns) {
        header += pad_left(std::string(c), col_w);
    }
    line(header);
    for (const std::string_view row : table_rows) {
        const auto it = std::find_if(families.begin(), families.end(), [&](const family& f) { return f.key == row; });
        std::string l = pad_right(std::string(it->label), name_w);
        std::vector<std::string> keys;
        for (const auto& c : table_columns) {
            keys.push_back(key_of(c, row));
        }
        const double scale = row_scale(summary, keys);
        for (const auto& k : keys) {
            l += pad_left(show_ms(summary, k, scale), col_w);
        }
        line(l);
    }

    if (const auto* b = summary.if_contains("by_input_length"); b != nullptr && b->is_array()) {
        bool header_done = false;
        for (const auto& entry : b->get_array()) {
            if (!entry.is_object()) {
                continue;
            }
            const auto& o = entry.get_object();
            const auto completed = number(o, "completed");
            if (!completed || *completed <= 0) {
                continue;
            }
            if (!header_done) {
                line("");
                std::string h = pad_right("input tokens", name_w) + pad_left("completed", col_w);
                for (const std::string_view fam : {"TTFT", "TPOT", "E2E"}) {
                    for (const std::string_view stat : {"mean", "p50", "p99"}) {
                        h += pad_left(std::string(fam) + " " + std::string(stat), col_w + 1);
                    }
                }
                line(h);
                header_done = true;
            }
            std::string l = pad_right(text(o, "range"), name_w) + pad_left(show(o, "completed"), col_w);
            for (const std::string_view fam : {"ttft", "tpot", "e2el"}) {
                const std::vector<std::string> keys = {key_of("mean", fam), key_of("p50", fam), key_of("p99", fam)};
                const double scale = row_scale(o, keys);
                for (const auto& k : keys) {
                    l += pad_left(show_ms(o, k, scale), col_w + 1);
                }
            }
            line(l);
        }
    }

    const auto counts = [&](std::string_view key, std::string_view title) {
        const auto* v = summary.if_contains(key);
        if (v == nullptr || !v->is_object() || v->get_object().empty()) {
            return;
        }
        line("");
        line(std::string(title));
        for (const auto& kv : v->get_object()) {
            line("  " + pad_right(std::string(kv.key()), 22) + text(v->get_object(), kv.key()));
        }
    };
    counts("errors", "errors by class");
    counts("http_status", "failures by HTTP status");
    return out;
}

}  // namespace openloop
