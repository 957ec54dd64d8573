#include "openloop/run/prepare.hpp"

#include "openloop/load/calibration.hpp"
#include "openloop/load/media.hpp"
#include "openloop/load/tokenizer_choice.hpp"
#include "openloop/load/tools.hpp"
#include "openloop/load/usage_probe.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/measure/event.hpp"
#include "openloop/measure/ring.hpp"
#include "openloop/run/layer_options.hpp"
#include "openloop/run/server_setup.hpp"
#include "openloop/run/stop_signals.hpp"
#include "openloop/wire/client.hpp"

#include <boost/asio.hpp>

#include <csignal>
#include <cstdio>

namespace openloop {

namespace net = boost::asio;

namespace {

// How many requests a run will send at most, as far as its bounds tell (0: they do not):
// the media set makes no more fresh images than that, and the floor's check looks no further.
std::uint64_t expected_requests(const run_options& o) {
    if (o.num_requests > 0) return o.num_requests + o.warmup_requests;
    if (o.duration_s > 0 && o.concurrency == 0 && !o.sessions && o.arrival.profile.empty() && o.workload.trace_file.empty())
        return static_cast<std::uint64_t>(o.arrival.rate * (o.duration_s + o.warmup_s) * 1.2) + 16;  // Poisson's excess
    return 0;
}

// What the server is asked before the schedule, through one client and the setup's bounded calls.
class server_questions {
public:
    server_questions(const run_options& o, const client_options& co, net::io_context& io, net::signal_set& signals)
        : o_(o), co_(co), ring_(16), client_(io, co, ring_),
          setup_(io, signals, co.target.display(), setup_call_limit(o.total_timeout), o.interrupted),
          base_(api_base(co.target)) {
        if (!o.interrupted) client_.setup();  // resolves the target: none for a run that sends nothing
    }

    bool interrupted() const { return setup_.interrupted(); }

    std::string model() { return discover_model(setup_, client_, base_); }

    // How lengths in tokens become prompts, asked of the server. A signal during it ends
    // it (interrupted()), whatever the calibration made of the call that failed.
    // The workload's prompts are built by what it finds; those asked below its floor are named.
    calibration_result tokenizer(const std::string& model, workload& w) {
        calibration_result tokenizer;
        if (w.file_prompts() && o_.tokenizer.type != tokenizer_choice::kind::words) {
            // A file's prompts are what they are; their lengths stay word counts.
            tokenizer.label = "words (prompts from a file)";
            return tokenizer;
        }
        if (o_.endpoint == endpoint_kind::transcriptions) {
            tokenizer.label = "none (a transcription sends no prompt)";
            return tokenizer;
        }
        calibration_request cr;
        cr.choice = o_.tokenizer;
        // A Responses input is rendered with the chat template, as a chat message is.
        cr.chat = o_.endpoint == endpoint_kind::chat || o_.endpoint == endpoint_kind::responses;
        cr.model = model;
        cr.root = server_root(co_.target.base_path);
        cr.vocab_size = o_.vocab_size;
        cr.models_path = base_ + "/models";
        cr.cache_dir = o_.tokenizer_cache;
        cr.api_base = base_;
        cr.extra_body = o_.extra_body;
        cr.system_prompt = o_.system_prompt;
        cr.say = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
        cr.local = o_.loaded_tokenizer;
        try {
            tokenizer = calibrate_tokenizer(
                cr,
                [&](const http_call& c) {
                    return setup_.call(client_.post(c.path, c.body), "POST " + c.path,
                                       "the tokenizer's calibration; --tokenizer words skips it");
                },
                [&](const std::string& path) {
                    return setup_.call(client_.get(path), "GET " + path, "the vocabulary size; --vocab-size skips it");
                });
        } catch (const std::exception&) {
            if (!setup_.interrupted()) throw;
        }
        if (setup_.interrupted()) return {};
        if (!tokenizer.note.empty()) std::fprintf(stderr, "%s\n", tokenizer.note.c_str());
        w.set_prompt_builder(tokenizer.builder);
        if (const std::string short_ones = w.below_floor(expected_requests(o_)); !short_ones.empty())
            std::fprintf(stderr, "openloop: WARNING: %s\n", short_ones.c_str());
        return tokenizer;
    }

    // The tools' prompt tokens on this server: one request without them and one with, their
    // usage.prompt_tokens apart. 0 (said on stderr) when the server does not tell.
    int tools_prompt_tokens(const std::string& model) {
        const body_options b = body_options_for(o_, nullptr);
        const tools_probe calls = tools_probe_calls(base_, model, b.tools, b.tool_choice, o_.extra_body);
        const auto count = [&](const http_call& c) {
            const auto [status, body] = setup_.call(client_.post(c.path, c.body), "POST " + c.path,
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
            const std::string why = !without.problem.empty() ? without.problem
                                    : !with.problem.empty()  ? with.problem
                                                             : "fewer with them";
            std::fprintf(stderr, "openloop: --tools: their prompt tokens could not be counted from the server's usage "
                                 "(%s); intended input tokens leave them out\n", why.c_str());
            return 0;
        }
        const int tokens = *with.prompt_tokens - *without.prompt_tokens;
        std::fprintf(stderr, "openloop: --tools %d: %d prompt tokens on this server (two max_tokens 1 requests' usage), "
                             "counted in each request's intended input tokens\n", o_.tools.count, tokens);
        return tokens;
    }

private:
    const run_options& o_;
    const client_options& co_;
    spsc_ring<event> ring_;  // the client's, for its setup calls, which push no events
    client client_;
    server_setup setup_;
    std::string base_;
};

// Whether a signal came while no setup call waited for one: the set holds it, and would
// lose it with the set. Called with the signals held again, so none comes after.
bool signal_came(net::io_context& io, net::signal_set& signals) {
    bool came = false;
    signals.async_wait([&came](const boost::system::error_code& ec, int) { came = !ec; });
    io.restart();
    io.poll();
    signals.cancel();
    io.poll();
    return came;
}

}  // namespace

run_plan prepare_run(const run_options& asked) {
    // First, so a signal during the preparation is kept for the setup call that waits next.
    net::io_context io{1};
    net::signal_set signals(io, SIGINT, SIGTERM);
    release_stop_signals();  // one held meanwhile (hold_stop_signals) reaches the set now

    auto w = std::make_shared<workload>(asked.workload);
    auto sessions = sessions_of(asked, *w);  // a trace's sessions refused before the server is asked
    auto prepared = std::make_shared<preparation>();
    prepared->model = asked.model;
    prepared->models = asked.models;
    if (asked.media.wanted()) {
        // Every image and clip encoded now, on every core: the io thread only points at them.
        prepared->media = std::make_shared<const media_set>(asked.media, asked.workload.seed, expected_requests(asked));
        std::fprintf(stderr, "openloop: %s\n", prepared->media->describe().c_str());
    }
    const client_options co = client_options_for(asked);
    calibration_result tokenizer;
    {
        server_questions server(asked, co, io, signals);
        try {
            if (prepared->model.empty()) {
                prepared->model = server.model();
                prepared->models = model_mix(prepared->model);
            }
            tokenizer = server.tokenizer(prepared->model, *w);
            if (asked.tools.enabled() && !server.interrupted())
                prepared->tools_prompt_tokens = server.tools_prompt_tokens(prepared->model);
        } catch (const setup_interrupted& e) {
            prepared->interrupted = e.what();  // said on stderr where it happened
        }
        if (server.interrupted() && prepared->interrupted.empty()) prepared->interrupted = "interrupted before the schedule";
    }
    // Held until the run's own set takes them: none is lost between the two.
    hold_stop_signals();
    if (prepared->interrupted.empty() && signal_came(io, signals)) {
        prepared->interrupted = "interrupted before the schedule";
        std::fprintf(stderr, "\nopenloop: interrupted before the schedule: nothing was sent; writing the results\n");
    }
    if (!prepared->interrupted.empty() && tokenizer.label.empty())
        tokenizer.label = "not calibrated (interrupted before the schedule)";
    prepared->prompts = tokenizer.builder;
    prepared->tokenizer = tokenizer.label;
    return run_plan(asked, std::move(prepared), std::move(w), std::move(sessions));
}

}  // namespace openloop
