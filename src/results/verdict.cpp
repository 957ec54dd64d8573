#include "openloop/results/verdict.hpp"

#include "openloop/results/arrival_shape.hpp"
#include "openloop/results/number_text.hpp"

#include <algorithm>
#include <utility>

namespace openloop {

namespace {

// "error rate 47.06 % exceeds the 1 % bound (8 stream_truncated)"; empty
// when the rate is within the bound.
std::string error_rate_breach(const run_stats& stats, const error_tally& errors, double max_error_rate) {
    if (errors.failed == 0 || errors.rate <= max_error_rate) return {};
    std::vector<std::pair<std::uint64_t, int>> classes;
    for (int c = 0; c < error_class_count; ++c)
        if (const auto n = stats.failed_by_class[static_cast<std::size_t>(c)];
            n > 0 && c != int(error_class::cancelled) && c != int(error_class::cancelled_at_end) &&
            c != int(error_class::fd_limit))
            classes.emplace_back(n, c);
    std::sort(classes.rbegin(), classes.rend());
    std::string why;
    for (const auto& [n, c] : classes) {
        if (!why.empty()) why += ", ";
        why += std::to_string(n) + " " + std::string(error_class_name(static_cast<error_class>(c)));
    }
    return "error rate " + fmt("%.2f", errors.rate * 100) + " % exceeds the " + fmt("%g", max_error_rate * 100) +
           " % bound (" + why + ")";
}

}  // namespace

error_tally count_errors(const run_stats& stats) {
    error_tally t;
    t.cancelled = std::min(stats.failed, stats.failed_by_class[static_cast<std::size_t>(error_class::cancelled)] +
                                             stats.failed_by_class[static_cast<std::size_t>(error_class::cancelled_at_end)]);
    t.unsent = std::min(stats.failed - t.cancelled, stats.failed_by_class[static_cast<std::size_t>(error_class::fd_limit)]);
    t.failed = stats.failed - t.cancelled - t.unsent;
    t.ended = stats.completed + t.failed;
    t.rate = t.ended > 0 ? static_cast<double>(t.failed) / static_cast<double>(t.ended) : 0.0;
    return t;
}

verdict judge(const run_stats& stats, const run_context& context) {
    verdict v;
    const auto add = [&](std::string reason) {
        v.valid = false;
        v.reasons.push_back(std::move(reason));
    };
    // A server that answers 200 with a login page or a plain JSON completion
    // looks healthy by status; the first line says what it sent instead.
    const auto no_content = stats.failed_by_class[static_cast<std::size_t>(error_class::no_content)];
    if (stats.completed == 0 && stats.failed > 0 && no_content == stats.failed) {
        std::string why = "every request ended in no_content";
        if (const auto* e = stats.messages.find(error_class::no_content, 200); e && !e->messages.empty())
            why += ": " + e->messages.front();
        add(std::move(why));
    }
    if (context.partial) {
        add(context.partial_reason.empty() ? "run cut short" : "run cut short: " + context.partial_reason);
    }
    if (context.clock.start_at_ns >= 0 && context.clock.late_ms > context.clock.tolerance_ms) {
        v.generator_ok = false;
        add("started " + fmt_ms(context.clock.late_ms) + " ms after --start-at (more than the " +
            fmt("%g", context.clock.tolerance_ms) + " ms --start-tolerance): its schedule is not the other shards'");
    }
    // Out of file descriptors, openloop could not send what the schedule asked:
    // its own limit under this load, said as such, never the server's fault.
    if (const auto fds = stats.failed_by_class[static_cast<std::size_t>(error_class::fd_limit)]; fds > 0) {
        v.generator_ok = false;
        add(std::to_string(fds) + " requests never reached the server: openloop ran out of file descriptors "
            "(fd_limit: raise its hard limit, ulimit -Hn)");
    }
    if (stats.lost_events > 0) {
        v.generator_ok = false;
        add(std::to_string(stats.lost_events) + " events lost to a full ring");
    }
    std::string breach = error_rate_breach(stats, count_errors(stats), context.max_error_rate);
    v.too_many_errors = !breach.empty();
    // With nothing completed, the reason below says it all.
    if (v.too_many_errors && stats.completed > 0) {
        add(std::move(breach));
    }
    if (stats.completed == 0) {
        add("no request completed (" + std::to_string(stats.failed) + " failed, " + std::to_string(stats.unfinished) +
            " unfinished)");
    }
    // A closed loop sends when a worker frees up; it has no schedule to lag. A session's turn
    // is due at its answer plus think time, and lags that.
    if ((context.mode == "open-loop" || context.mode == "sessions") && stats.lag.count() > 0) {
        const double p99 = static_cast<double>(stats.lag.percentile(99)) / 1e6;
        if (p99 > context.lag_bound_ms) {
            v.generator_ok = false;
            // How long the io thread sat runnable without a CPU tells a machine
            // shared with the server (or anything else) from a generator with too much to do.
            add("schedule lag p99 " + fmt_ms(p99) + " ms exceeds the " + fmt("%g", context.lag_bound_ms) +
                " ms bound: the generator fell behind its schedule" +
                (context.io_cpu_wait_ms >= 0 ? " (its io thread waited " + fmt("%.0f", context.io_cpu_wait_ms) +
                                                   " ms in all for a CPU other threads held)"
                                             : ""));
        }
    }
    if (arrival_shape_applies(stats, context.mode)) {
        if (const arrival_shape a = judge_arrivals(stats.asked_gap, stats.sent_gap); a.smoothed) {
            v.generator_ok = false;
            add("the sends smoothed the schedule's bursts: " + fmt("%.1f", a.sent_short * 100) +
                " % of the gaps between sends were under a quarter of the mean gap (" +
                fmt_ms(static_cast<double>(a.short_ns) / 1e6) + " ms), where the schedule asked for " +
                fmt("%.1f", a.asked_short * 100) + " %");
        }
    }
    return v;
}

}  // namespace openloop
