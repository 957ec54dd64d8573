#include "openloop/run/runner.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/executor.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/measure/resource_usage.hpp"
#include "openloop/measure/ring.hpp"
#include "openloop/results/number_text.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/run/report_file.hpp"
#include "openloop/run/result_dir.hpp"
#include "openloop/run/run_description.hpp"
#include "openloop/run/run_driver.hpp"
#include "openloop/run/run_plan.hpp"
#include "openloop/run/server_setup.hpp"
#include "openloop/run/start_clock.hpp"
#include "openloop/run/stop_signals.hpp"
#include "openloop/watch/server_watch.hpp"
#include "openloop/wire/client.hpp"

#include <boost/asio.hpp>
#include <boost/json.hpp>

#include <csignal>
#include <cstdio>
#include <filesystem>

namespace openloop {

namespace json = boost::json;
namespace net = boost::asio;

namespace {

// The wall clock's offset from the steady one, read between two steady readings.
std::int64_t wall_minus_steady_ns() {
    const std::int64_t before = to_ns(steady::now());
    const std::int64_t wall = wall_now_ns();
    const std::int64_t after = to_ns(steady::now());
    return wall - (before + (after - before) / 2);
}

// When the schedule starts: a lead-in for the spare connections to open, or --start-at.
start_clock schedule_start(const run_options& o) {
    constexpr std::int64_t lead_in_ns = 200'000'000;
    const start_clock clock = plan_start(o.start_at_ns, wall_minus_steady_ns(), to_ns(steady::now()), lead_in_ns);
    if (clock.start_at_ns < 0) return clock;
    const std::string at = utc_text(clock.start_at_ns);
    const double wait_s = static_cast<double>(clock.origin_steady_ns - to_ns(steady::now())) / 1e9;
    if (clock.late_ns > 0) {
        std::fprintf(stderr, "openloop: ready %.3f s after --start-at %s: the schedule starts now%s\n",
                     static_cast<double>(clock.late_ns) / 1e9, at.c_str(),
                     static_cast<double>(clock.late_ns) / 1e9 > o.start_tolerance_s
                         ? ", later than --start-tolerance (the run will be INVALID)"
                         : "");
    } else if (wait_s > 1) {
        std::fprintf(stderr, "openloop: waiting %.1f s for --start-at %s\n", wait_s, at.c_str());
    }
    return clock;
}

void note_start(run_context& ctx, const start_clock& clock) {
    ctx.clock.wall_minus_steady_ns = clock.wall_minus_steady_ns;
    ctx.clock.origin_steady_ns = clock.origin_steady_ns;
    ctx.clock.late_ms = static_cast<double>(clock.late_ns) / 1e6;
}

}  // namespace

run_outcome run_load(const run_plan& plan) {
    const run_options& o = plan.options();
    // First, so a signal from here on is kept for whoever waits next: the server watch's
    // first sample, or the load's Ctrl-C handling.
    net::io_context io{1};
    net::signal_set signals(io, SIGINT, SIGTERM);
    release_stop_signals();  // one held meanwhile (hold_stop_signals) reaches the set now
    const client_options& co = plan.client();

    server_watch watch(o.watch);  // a bad --scrape URL fails here, before any request
    spsc_ring<event> ring(o.ring_capacity);
    client cl(io, co, ring);
    if (!plan.interrupted()) cl.setup();  // resolves the target: none for a run that sends nothing (no sim: started)
    server_setup setup(io, signals, co.target.display(), setup_call_limit(o.total_timeout), plan.interrupted());
    try {
        if (watch.enabled() && !plan.interrupted())
            setup.run_blocking([&watch] { watch.sample_before(); }, "the server watch's first sample",
                               "--scrape / --server-pid before the run: each URL at most 2 s");
    } catch (const setup_interrupted&) {
        // Said where it happened; the run below sends nothing and writes its results.
    }
    const bool stopped = plan.interrupted() || setup.interrupted();
    run_driver run(plan, io, cl, signals);
    if (stopped) {
        run.stop_before_start();
    } else {
        net::co_spawn(io, cl.open_spare(co.spare_connections), [](std::exception_ptr e) {
            if (e) std::fprintf(stderr, "openloop: opening spare connections failed: %s\n", cancel_group::describe(e).c_str());
        });
    }

    const start_clock clock = schedule_start(o);
    if (!o.out_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(o.out_dir, ec);
        if (ec) throw std::runtime_error("cannot create --out directory " + o.out_dir + ": " + ec.message());
        // Before the first request: what `openloop report` rebuilds a killed run's summary with.
        run_context ctx = describe_run(plan, 0);
        note_start(ctx, clock);
        result_dir(o.out_dir).write_run_json(ctx);
    }
    reporter_options ro = plan.reporter();
    // A --start-at run's windows begin with its schedule, so the shards' windows line up.
    const auto run_start =
        clock.start_at_ns >= 0 ? steady::time_point(std::chrono::nanoseconds(clock.origin_steady_ns)) : steady::now();
    ro.run_start_ns = to_ns(run_start);
    ro.lost_events = [&cl] { return cl.lost_events(); };
    // Its fidelity report holds the sends against the trace's times: not for --trace-lengths-only.
    // A trace's sessions send later turns when their answers allow, not at their rows' times.
    const workload& w = plan.load();
    if (!w.trace_entries().empty() && !o.workload.trace_lengths_only && !plan.sessions())
        ro.trace = &w.trace_entries();
    if (watch.enabled()) ro.signals = [&watch] { return watch.latest(); };
    reporter rep(ring, ro);
    rep.start();
    if (o.soak_window.count() > 0) watch.start(o.soak_window, run_start);
    run.start(clock);
    const std::int64_t cpu_wait_before = thread_cpu_wait_ns();
    io.run();
    const std::int64_t cpu_wait_after = thread_cpu_wait_ns();
    watch.stop();
    rep.finish();
    if (!stopped) watch.sample_after();  // nothing was sent: nothing to compare

    run_outcome out;
    run_stats stats = rep.take_stats();
    stats.lost_events = cl.lost_events();
    stats.messages = cl.messages();
    out.interrupted = run.interrupted();
    out.overloaded = run.overloaded();
    out.stage_undecided = run.stage_undecided();
    out.stage_window_s = run.stage_window_s();
    out.stopped_early = !run.stop_reason().empty();

    run_context ctx = describe_run(plan, run.offered_rate());
    ctx.server_signals = watch.summary();
    ctx.skipped = w.skipped();
    ctx.skipped_lines = w.trace_details().skipped_lines;
    ctx.first_skipped = w.trace_details().first_skipped;
    ctx.drain_s = run.drain_s();
    if (cpu_wait_before >= 0 && cpu_wait_after >= cpu_wait_before)
        ctx.io_cpu_wait_ms = static_cast<double>(cpu_wait_after - cpu_wait_before) / 1e6;
    note_start(ctx, clock);
    ctx.partial = out.interrupted || out.overloaded || out.stopped_early;
    ctx.stopped_early = out.stopped_early;
    if (out.stopped_early) ctx.partial_reason = run.stop_reason();
    if (out.interrupted) ctx.partial_reason = "interrupted by a signal";
    if (out.overloaded)
        ctx.partial_reason = "aborted: more than " + std::to_string(o.overload_inflight) + " requests in flight (overloaded)";
    out.result = make_run_result(std::move(stats), std::move(ctx));
    if (!o.out_dir.empty()) {
        const result_dir dir(o.out_dir);
        dir.write_json(result_file::summary_json, summary_json(out.result));
        try_write_report_html(dir);
    }
    return out;
}

}  // namespace openloop
