#include "openloop/run/runner.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/executor.hpp"
#include "openloop/base/input_error.hpp"
#include "openloop/load/calibration.hpp"
#include "openloop/load/media.hpp"
#include "openloop/load/session.hpp"
#include "openloop/load/tokenizer_choice.hpp"
#include "openloop/load/trace.hpp"
#include "openloop/load/usage_probe.hpp"
#include "openloop/measure/resource_usage.hpp"
#include "openloop/measure/ring.hpp"
#include "openloop/results/number_text.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/run/layer_options.hpp"
#include "openloop/run/report_file.hpp"
#include "openloop/run/result_dir.hpp"
#include "openloop/run/run_description.hpp"
#include "openloop/run/run_driver.hpp"
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
#include <iostream>
#include <memory>
#include <thread>

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

// A trace whose rows carry session ids replays its conversations (trace_sessions.hpp): the
// run's options with those sessions, refused where a session cannot go.
run_options with_trace_sessions(const run_options& asked, const workload& w) {
    run_options o = asked;
    const auto& entries = w.trace_entries();
    if (!o.trace_sessions || o.sessions || o.workload.trace_lengths_only || !has_session_ids(entries))
        return o;
    const std::string& file = o.workload.trace_file;
    const auto refuse = [&](const std::string& why) {
        throw input_error(file + ": its rows carry session ids, so they replay as conversations, which " + why);
    };
    if (o.endpoint != endpoint_kind::chat) refuse("need --endpoint chat (a session's history is a list of messages)");
    if (!o.stream) refuse("stream their answers: drop --no-stream");
    if (o.concurrency > 0 || o.max_concurrency > 0)
        refuse("arrive at the trace's times: drop --concurrency / --max-concurrency (bound with --max-inflight)");
    session_config traced;
    traced.seed = o.workload.seed;
    traced.tool_steps = o.tools.enabled() ? o.tools.max_steps : 0;
    traced.traced = std::make_shared<trace_sessions>(group_trace_sessions(entries, max_session_turns, file));
    o.sessions = std::make_shared<const session_plan>(traced);
    return o;
}

// How many requests a run will send at most, as far as its bounds tell (0: they do not):
// the media set makes no more fresh images than that, and the floor's check looks no further.
std::uint64_t expected_requests(const run_options& o) {
    if (o.num_requests > 0) return o.num_requests + o.warmup_requests;
    if (o.duration_s > 0 && o.concurrency == 0 && !o.sessions && o.arrival.profile.empty() && o.workload.trace_file.empty())
        return static_cast<std::uint64_t>(o.arrival.rate * (o.duration_s + o.warmup_s) * 1.2) + 16;  // Poisson's excess
    return 0;
}

// How lengths in tokens become prompts, asked of the server through setup's bounded calls.
// A signal during them ends it (setup.interrupted()), whatever the calibration made of the
// call that failed.
calibration_result choose_tokenizer(const run_options& o, workload& w, const client_options& co,
                                    const std::string& base, const std::string& model, server_setup& setup,
                                    client& cl) {
    calibration_result tokenizer;
    if (w.file_prompts() && o.tokenizer.type != tokenizer_choice::kind::words) {
        // A file's prompts are what they are; their lengths stay word counts.
        tokenizer.label = "words (prompts from a file)";
        return tokenizer;
    }
    if (o.endpoint == endpoint_kind::transcriptions) {
        tokenizer.label = "none (a transcription sends no prompt)";
        return tokenizer;
    }
    calibration_request cr;
    cr.choice = o.tokenizer;
    // A Responses input is rendered with the chat template, as a chat message is.
    cr.chat = o.endpoint == endpoint_kind::chat || o.endpoint == endpoint_kind::responses;
    cr.model = model;
    cr.root = server_root(co.target.base_path);
    cr.vocab_size = o.vocab_size;
    cr.models_path = base + "/models";
    cr.cache_dir = o.tokenizer_cache;
    cr.api_base = base;
    cr.extra_body = o.extra_body;
    cr.system_prompt = o.system_prompt;
    cr.say = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    cr.local = o.loaded_tokenizer;
    try {
        tokenizer = calibrate_tokenizer(
            cr,
            [&](const http_call& c) {
                return setup.call(cl.post(c.path, c.body), "POST " + c.path,
                                  "the tokenizer's calibration; --tokenizer words skips it");
            },
            [&](const std::string& path) {
                return setup.call(cl.get(path), "GET " + path, "the vocabulary size; --vocab-size skips it");
            });
    } catch (const std::exception&) {
        if (!setup.interrupted()) throw;
    }
    if (setup.interrupted()) return {};
    if (!tokenizer.note.empty()) std::fprintf(stderr, "%s\n", tokenizer.note.c_str());
    w.set_prompt_builder(tokenizer.builder);
    if (const std::string short_ones = w.below_floor(expected_requests(o)); !short_ones.empty())
        std::fprintf(stderr, "openloop: WARNING: %s\n", short_ones.c_str());
    return tokenizer;
}

// The tools' prompt tokens on this server: one request without them and one with, their
// usage.prompt_tokens apart. 0 (said on stderr) when the server does not tell.
int tools_prompt_tokens(const run_options& o, const std::string& base, const std::string& model, server_setup& setup,
                        client& cl) {
    const body_options b = body_options_for(o);
    const tools_probe calls = tools_probe_calls(base, model, b.tools, b.tool_choice, o.extra_body);
    const auto count = [&](const http_call& c) {
        const auto [status, body] = setup.call(cl.post(c.path, c.body), "POST " + c.path,
                                               "the tools' prompt tokens (--tools)");
        return read_usage_answer(status, body);
    };
    usage_answer without, with;
    try {
        without = count(calls.without);
        with = count(calls.with);
    } catch (const setup_interrupted&) {
        throw;
    } catch (const std::exception& e) {
        without.problem = e.what();
    }
    if (!without.prompt_tokens || !with.prompt_tokens || *with.prompt_tokens < *without.prompt_tokens) {
        const std::string why = !without.problem.empty() ? without.problem : !with.problem.empty() ? with.problem : "fewer with them";
        std::fprintf(stderr, "openloop: --tools: their prompt tokens could not be counted from the server's usage (%s); "
                             "intended input tokens leave them out\n", why.c_str());
        return 0;
    }
    const int tokens = *with.prompt_tokens - *without.prompt_tokens;
    std::fprintf(stderr, "openloop: --tools %d: %d prompt tokens on this server (two max_tokens 1 requests' usage), "
                         "counted in each request's intended input tokens\n", o.tools.count, tokens);
    return tokens;
}

}  // namespace

run_outcome run_load(const run_options& asked) {
    // First, so a signal during the setup below is kept for whoever waits next: a setup
    // call, or the load's Ctrl-C handling.
    net::io_context io{1};
    net::signal_set signals(io, SIGINT, SIGTERM);
    release_stop_signals();  // one held meanwhile (hold_stop_signals) reaches the set now
    workload w(asked.workload);
    run_options o = with_trace_sessions(asked, w);
    if (o.media.wanted() && !o.media.set) {
        // Every image and clip encoded now, on every core: the io thread only points at them.
        auto set = std::make_shared<const media_set>(o.media, o.workload.seed, expected_requests(o));
        std::fprintf(stderr, "openloop: %s\n", set->describe().c_str());
        o.media.set = std::move(set);
    }
    const client_options co = client_options_for(o);
    const std::string base = api_base(co.target);

    server_watch watch(o.watch);  // a bad --scrape URL fails here, before any request
    spsc_ring<event> ring(o.ring_capacity);
    client cl(io, co, ring);
    if (!o.interrupted) cl.setup();  // resolves the target: none for a run that sends nothing (no sim: started)
    server_setup setup(io, signals, co.target.display(), setup_call_limit(o.total_timeout), o.interrupted);
    std::string model = o.model;
    calibration_result tokenizer;
    try {
        if (model.empty()) {
            model = discover_model(setup, cl, base);
            o.model = model;
            o.models = model_mix(model);
        }
        if (!setup.interrupted()) tokenizer = choose_tokenizer(o, w, co, base, model, setup, cl);
        if (o.tools.enabled() && !setup.interrupted()) o.tools_prompt_tokens = tools_prompt_tokens(o, base, model, setup, cl);
        if (watch.enabled())
            setup.run_blocking([&watch] { watch.sample_before(); }, "the server watch's first sample",
                               "--scrape / --server-pid before the run: each URL at most 2 s");
    } catch (const setup_interrupted&) {
        // Said where it happened; the run below sends nothing and writes its results.
    }
    if (setup.interrupted() && tokenizer.label.empty())
        tokenizer.label = "not calibrated (interrupted before the schedule)";

    run_driver run(o, co, io, cl, w, signals);
    if (setup.interrupted()) {
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
        run_context ctx = describe_run(o, co.target.display(), model, tokenizer.label, 0, w.trace_details().speed);
        note_start(ctx, clock);
        result_dir(o.out_dir).write_run_json(ctx);
    }
    reporter_options ro = reporter_options_for(o);
    // A --start-at run's windows begin with its schedule, so the shards' windows line up.
    const auto run_start =
        clock.start_at_ns >= 0 ? steady::time_point(std::chrono::nanoseconds(clock.origin_steady_ns)) : steady::now();
    ro.run_start_ns = to_ns(run_start);
    ro.lost_events = [&cl] { return cl.lost_events(); };
    // Its fidelity report holds the sends against the trace's times: not for --trace-lengths-only.
    // A trace's sessions send later turns when their answers allow, not at their rows' times.
    if (!w.trace_entries().empty() && !o.workload.trace_lengths_only && !o.sessions)
        ro.trace = &w.trace_entries();
    if (watch.enabled()) ro.signals = [&watch] { return watch.latest(); };
    reporter rep(ring, ro);
    rep.start();
    if (o.soak_window.count() > 0) watch.start(o.soak_window, run_start);
    run.start(model, clock);
    const std::int64_t cpu_wait_before = thread_cpu_wait_ns();
    io.run();
    const std::int64_t cpu_wait_after = thread_cpu_wait_ns();
    watch.stop();
    rep.finish();
    if (!setup.interrupted()) watch.sample_after();  // nothing was sent: nothing to compare

    run_outcome out;
    run_stats stats = rep.take_stats();
    stats.lost_events = cl.lost_events();
    stats.messages = cl.messages();
    out.interrupted = run.interrupted();
    out.overloaded = run.overloaded();
    out.stage_undecided = run.stage_undecided();
    out.stage_window_s = run.stage_window_s();
    out.stopped_early = !run.stop_reason().empty();

    run_context ctx =
        describe_run(o, co.target.display(), model, tokenizer.label, run.offered_rate(), w.trace_details().speed);
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
