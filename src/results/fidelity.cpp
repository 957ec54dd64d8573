#include "openloop/results/fidelity.hpp"

#include <array>
#include <cstdio>

namespace openloop {
namespace {

boost::json::value ratio(double num, double den) {
    if (den > 0) return num / den;
    return nullptr;
}

}  // namespace

boost::json::object length_fidelity(const run_stats& stats, std::string_view tokenizer) {
    boost::json::object input;
    input["checked"] = stats.prompt_checked;
    input["exact"] = stats.prompt_exact;
    input["exact_fraction"] = ratio(static_cast<double>(stats.prompt_exact), static_cast<double>(stats.prompt_checked));
    input["intended_tokens"] = stats.prompt_intended_tokens;
    input["server_tokens"] = stats.server_prompt_tokens;
    input["ratio"] = ratio(static_cast<double>(stats.server_prompt_tokens), static_cast<double>(stats.prompt_intended_tokens));

    boost::json::object output;
    output["completed"] = stats.completed;
    output["requested_tokens"] = stats.output_requested_tokens;
    output["received_tokens"] = stats.total_output_tokens;
    output["at_max_tokens"] = stats.output_at_max;
    output["ratio"] = ratio(static_cast<double>(stats.total_output_tokens), static_cast<double>(stats.output_requested_tokens));

    return boost::json::object{{"tokenizer", tokenizer}, {"input", std::move(input)}, {"output", std::move(output)}};
}

std::string describe_length_fidelity(const run_stats& stats, std::string_view tokenizer) {
    const std::string name(tokenizer);
    char buf[320];
    if (stats.prompt_checked > 0) {
        std::snprintf(buf, sizeof buf, "input (tokenizer %s): %.1f %% exact as the server counted (%.0f of %.0f), server/intended %.3f",
                      name.c_str(), 100 * (static_cast<double>(stats.prompt_exact) / static_cast<double>(stats.prompt_checked)),
                      static_cast<double>(stats.prompt_exact), static_cast<double>(stats.prompt_checked),
                      stats.prompt_intended_tokens > 0 ? static_cast<double>(stats.server_prompt_tokens) /
                                                             static_cast<double>(stats.prompt_intended_tokens)
                                                       : 0.0);
    } else if (stats.media && stats.media->counted > 0) {
        std::snprintf(buf, sizeof buf, "input (tokenizer %s): not checked, every request carried media (the server counts "
                      "text and media as one)", name.c_str());
    } else {
        std::snprintf(buf, sizeof buf, "input (tokenizer %s): the server reported no prompt_tokens", name.c_str());
    }
    std::string line = buf;
    if (stats.output_requested_tokens > 0) {
        std::snprintf(buf, sizeof buf, "; output %.3f of max_tokens (%.0f of %.0f at max)",
                      static_cast<double>(stats.total_output_tokens) / static_cast<double>(stats.output_requested_tokens),
                      static_cast<double>(stats.output_at_max), static_cast<double>(stats.completed));
        line += buf;
    }
    return line;
}

}  // namespace openloop

namespace openloop {
namespace {

constexpr std::array<double, 5> error_percentiles = {1, 5, 50, 95, 99};

bool server_refusal(error_class c) {
    return c == error_class::http_4xx || c == error_class::http_5xx || c == error_class::server_error;
}

std::string percentile_key(double p) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "p%g", p);
    return buf;
}

// {"mean", "min", "p1" ... "p99", "max"} of h, each value times scale.
boost::json::object distribution(const signed_histogram& h, double scale) {
    boost::json::object o;
    if (h.count() == 0) {
        for (const char* k : {"mean", "min", "max"}) o[k] = nullptr;
        for (const double p : error_percentiles) o[percentile_key(p)] = nullptr;
        return o;
    }
    o["mean"] = h.mean() * scale;
    o["min"] = static_cast<double>(h.min()) * scale;
    for (const double p : error_percentiles) o[percentile_key(p)] = static_cast<double>(h.percentile(p)) * scale;
    o["max"] = static_cast<double>(h.max()) * scale;
    return o;
}

boost::json::object lengths_json(const length_fidelity_stats& f) {
    boost::json::object o;
    o["checked"] = f.checked;
    o["exact"] = f.exact;
    o["exact_fraction"] = ratio(static_cast<double>(f.exact), static_cast<double>(f.checked));
    o["error_tokens"] = distribution(f.error_tokens, 1.0);
    o["error_percent"] = distribution(f.error_basis_pts, 0.01);
    boost::json::array worst;
    for (std::size_t i = 0; i < f.worst_count; ++i) {
        const length_miss& m = f.worst[i];
        worst.emplace_back(boost::json::object{
            {"request", m.request}, {"intended", m.intended}, {"server", m.server}, {"error", m.server - m.intended}});
    }
    o["worst"] = std::move(worst);
    return o;
}

boost::json::value ms_value(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

boost::json::object send_time_json(const histogram& lag) {
    boost::json::object o;
    o["what"] = "actual send time - intended send time (the lag histogram); positive is late";
    o["count"] = lag.count();
    if (lag.count() == 0) {
        for (const char* k : {"mean_ms", "p50_ms", "p90_ms", "p99_ms", "p99.9_ms", "max_ms"}) o[k] = nullptr;
        return o;
    }
    o["mean_ms"] = lag.mean() / 1e6;
    o["p50_ms"] = ms_value(lag.percentile(50));
    o["p90_ms"] = ms_value(lag.percentile(90));
    o["p99_ms"] = ms_value(lag.percentile(99));
    o["p99.9_ms"] = ms_value(lag.percentile(99.9));
    o["max_ms"] = ms_value(lag.max());
    return o;
}

boost::json::object per_minute_json(const minute_counts& m) {
    boost::json::array asked, delivered;
    for (const auto n : m.asked) asked.emplace_back(n);
    for (const auto n : m.delivered) delivered.emplace_back(n);
    boost::json::object o{{"asked", std::move(asked)}, {"delivered", std::move(delivered)}};
    const std::int64_t w = m.worst_minute();
    if (w < 0) {
        o["largest_deviation"] = nullptr;
    } else {
        const auto i = static_cast<std::size_t>(w);
        o["largest_deviation"] = boost::json::object{{"minute", w}, {"asked", m.asked[i]}, {"delivered", m.delivered[i]}};
    }
    return o;
}

boost::json::object prefix_json(const prefix_reuse_stats& p) {
    const auto d = [](std::int64_t v) { return static_cast<double>(v); };
    return boost::json::object{
        {"completed", p.completed},
        {"implied_tokens", p.implied_tokens},
        {"reusable_at_send_tokens", p.at_send_tokens},
        {"requests_reusing_at_send", p.reusing_at_send},
        {"cached_tokens", p.cached_tokens},
        {"cached_reported", p.cached_reported},
        {"cached_over_implied", ratio(d(p.cached_tokens), d(p.implied_tokens))},
        {"cached_over_reusable_at_send", ratio(d(p.cached_tokens), d(p.at_send_tokens))},
    };
}

std::uint64_t refusal_count(const run_stats& s) {
    std::uint64_t n = 0;
    for (int c = 0; c < error_class_count; ++c) {
        if (server_refusal(static_cast<error_class>(c))) n += s.failed_by_class[static_cast<std::size_t>(c)];
    }
    return n;
}

boost::json::object refusals_json(const run_stats& s) {
    boost::json::array messages;
    for (const auto& e : s.messages.entries()) {
        if (!server_refusal(e.cls)) continue;
        boost::json::array texts;
        for (const auto& m : e.messages) texts.emplace_back(m);
        messages.emplace_back(boost::json::object{
            {"class", error_class_name(e.cls)}, {"status", e.status}, {"count", e.count}, {"messages", std::move(texts)}});
    }
    return boost::json::object{{"count", refusal_count(s)}, {"messages", std::move(messages)}};
}

// unchecked: why nothing was compared, when nothing was.
std::string lengths_line(const char* what, const length_fidelity_stats& f, const char* unchecked) {
    char buf[320];
    if (f.checked == 0) {
        std::snprintf(buf, sizeof buf, "%s: %s", what, unchecked);
        return buf;
    }
    std::snprintf(buf, sizeof buf, "%s: %.1f %% exact of %llu; server - intended p1 %lld p50 %lld p99 %lld tokens (%.2f %% .. %.2f %%)",
                  what, 100.0 * static_cast<double>(f.exact) / static_cast<double>(f.checked),
                  static_cast<unsigned long long>(f.checked), static_cast<long long>(f.error_tokens.percentile(1)),
                  static_cast<long long>(f.error_tokens.percentile(50)), static_cast<long long>(f.error_tokens.percentile(99)),
                  static_cast<double>(f.error_basis_pts.percentile(1)) / 100,
                  static_cast<double>(f.error_basis_pts.percentile(99)) / 100);
    std::string line = buf;
    if (f.worst_count > 0) {
        const length_miss& m = f.worst[0];
        std::snprintf(buf, sizeof buf, "; worst request %llu: %lld asked, %lld counted",
                      static_cast<unsigned long long>(m.request), static_cast<long long>(m.intended),
                      static_cast<long long>(m.server));
        line += buf;
    }
    return line;
}

}  // namespace

boost::json::object replay_fidelity_json(const run_stats& stats, const run_context& context) {
    const replay_fidelity& f = stats.fidelity;
    boost::json::object o;
    o["replay"] = f.replay();
    if (f.replay()) {
        o["send_time"] = send_time_json(stats.lag);
        o["per_minute"] = per_minute_json(f.minutes());
    }
    o["input"] = lengths_json(f.input());
    o["output"] = lengths_json(f.output());
    if (f.replay()) o["prefix_reuse"] = prefix_json(f.prefix());
    o["rows_skipped"] = context.skipped;
    if (!context.skipped_lines.empty()) {
        boost::json::array lines;
        for (const std::size_t n : context.skipped_lines) lines.push_back(n);
        o["rows_skipped_lines"] = std::move(lines);
        o["first_skipped_row"] = context.first_skipped;
    }
    o["server_refusals"] = refusals_json(stats);
    return o;
}

std::vector<std::string> describe_replay_fidelity(const run_stats& stats, const run_context& context) {
    const replay_fidelity& f = stats.fidelity;
    std::vector<std::string> lines;
    char buf[320];
    if (f.replay()) {
        std::snprintf(buf, sizeof buf, "send time: late by p50 %.3f ms, p99 %.3f ms, max %.3f ms (actual - intended)",
                      static_cast<double>(stats.lag.percentile(50)) / 1e6, static_cast<double>(stats.lag.percentile(99)) / 1e6,
                      static_cast<double>(stats.lag.max()) / 1e6);
        lines.emplace_back(buf);
        const minute_counts& m = f.minutes();
        if (const std::int64_t w = m.worst_minute(); w >= 0) {
            const auto i = static_cast<std::size_t>(w);
            std::snprintf(buf, sizeof buf, "per minute: largest deviation in minute %lld of %zu: %llu asked, %llu delivered",
                          static_cast<long long>(w), m.asked.size(), static_cast<unsigned long long>(m.asked[i]),
                          static_cast<unsigned long long>(m.delivered[i]));
            lines.emplace_back(buf);
        }
    }
    const char* no_counts = "the server gave no counts";
    lines.push_back(lengths_line("input", f.input(),
                                 stats.media && stats.media->counted > 0 ? "not checked, every request carried media" : no_counts));
    // A transcription asks for no length: its answer is as long as what the model hears.
    lines.push_back(lengths_line("output", f.output(),
                                 stats.completed > 0 && stats.output_requested_tokens == 0 ? "not checked, no length was asked"
                                                                                            : no_counts));
    if (f.replay()) {
        const prefix_reuse_stats& p = f.prefix();
        std::snprintf(buf, sizeof buf,
                      "prefix reuse: the trace implies %lld tokens (%lld reusable when sent), the server cached %lld (%.3f of implied)",
                      static_cast<long long>(p.implied_tokens), static_cast<long long>(p.at_send_tokens),
                      static_cast<long long>(p.cached_tokens),
                      p.implied_tokens > 0 ? static_cast<double>(p.cached_tokens) / static_cast<double>(p.implied_tokens) : 0.0);
        lines.emplace_back(buf);
    }
    if (const std::uint64_t n = refusal_count(stats); n > 0) {
        std::string line = "refused by the server: " + std::to_string(n);
        for (const auto& e : stats.messages.entries()) {
            if (server_refusal(e.cls) && !e.messages.empty()) {
                line += " (" + std::to_string(e.status) + ": " + e.messages.front() + ")";
                break;
            }
        }
        lines.push_back(std::move(line));
    }
    if (context.skipped > 0) {
        std::string line = "rows skipped: " + std::to_string(context.skipped);
        for (std::size_t i = 0; i < context.skipped_lines.size(); ++i)
            line += (i == 0 ? " (lines " : ", ") + std::to_string(context.skipped_lines[i]);
        if (!context.skipped_lines.empty()) line += context.skipped > context.skipped_lines.size() ? ", ...)" : ")";
        if (!context.first_skipped.empty()) line += "; first: " + context.first_skipped;
        lines.push_back(std::move(line));
    }
    return lines;
}

}  // namespace openloop
