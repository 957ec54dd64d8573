#include "openloop/cli/session_options.hpp"

#include "openloop/cli/usage.hpp"
#include "openloop/load/session.hpp"

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace openloop {

namespace po = boost::program_options;

po::options_description session_options() {
    po::options_description s("Sessions (multi-turn chat, agent chains)");
    s.add_options()
        ("turns", po::value<std::string>(),
         "each arrival starts a session of this many turns (N, uniform:MIN:MAX, normal:MEAN:SD:MIN:MAX or "
         "lognormal:MEDIAN:SIGMA:MIN:MAX; at most 1000): --rate is then sessions per second, and turn k+1 is sent "
         "--think-time after turn k's answer, carrying the whole conversation (every earlier message and the "
         "assistant's actual answers), so the server sees the growing shared prefix. --input-len and --output-len are "
         "per turn; --num-requests and --duration bound the sessions started, and each runs to its end (--drain limits "
         "how long after the last arrival). "
         "Reports per turn (TTFT, cached prompt tokens) and per session (first send to last token)")
        ("conversations", po::value<std::string>(),
         "sessions replay recorded conversations instead of --turns: every user turn of each (a ShareGPT JSON "
         "file, all turns, not only the first; or JSONL, one {\"messages\": [{\"role\", \"content\"}, ...]} "
         "per line), each turn's max_tokens the recorded answer's words, while the server writes the answers sent "
         "back. Session s replays conversation s mod N, in file order")
        ("think-time", po::value<std::string>()->default_value("0"),
         "a session's pause between an answer and the next turn (an agent's tool latency): DURATION, "
         "uniform:MIN:MAX, exponential:MEAN or lognormal:MEDIAN:SIGMA, e.g. exponential:5s");
    return s;
}

void fill_sessions(const po::variables_map& vm, run_command& cmd, bool for_sweep) {
    auto& o = cmd.options;
    const bool recorded = vm.count("conversations") > 0;
    if (!vm.count("turns") && !recorded) {
        if (vm.count("think-time") && !vm["think-time"].defaulted())
            throw usage_error("--think-time needs --turns or --conversations: it is the pause between a session's turns");
        return;
    }
    if (for_sweep) throw usage_error("--turns and --conversations are for run and soak; a sweep's stages send single requests");
    if (recorded && vm.count("turns"))
        throw usage_error("give --turns or --conversations, not both: a recorded conversation has its own turns");
    session_config config;
    config.think_time = vm["think-time"].as<std::string>();
    config.seed = o.workload.seed;
    config.tool_steps = o.tools.enabled() ? o.tools.max_steps : 0;
    if (recorded) {
        config.conversations_file = vm["conversations"].as<std::string>();
        if (!o.workload.prompts_file.empty() || !o.workload.sharegpt_file.empty())
            throw usage_error("--conversations is the sessions' source: drop --prompts / --sharegpt");
        auto file = std::make_shared<conversation_file>(read_conversations(config.conversations_file, max_session_turns));
        if (file->skipped > 0)
            std::fprintf(stderr, "openloop: --conversations %s: skipped %zu entries without an answered user turn\n",
                         config.conversations_file.c_str(), file->skipped);
        config.conversations = std::move(file);
    } else {
        config.turns = vm["turns"].as<std::string>();
    }
    try {
        o.sessions = std::make_shared<const session_plan>(config);
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
    if (o.endpoint != endpoint_kind::chat)
        throw usage_error("sessions (--turns, --conversations) need --endpoint chat: a session's history is a list of messages");
    if (!o.stream) throw usage_error("sessions stream their answers: drop --no-stream (each answer goes back as it streamed)");
    if (o.concurrency > 0)
        throw usage_error("sessions with --concurrency: sessions arrive on the schedule (--rate); inside one, each turn "
                          "already waits for the answer before it");
    if (o.max_concurrency > 0)
        throw usage_error("sessions do not take --max-concurrency; bound what is in flight with --max-inflight");
    if (!o.workload.trace_file.empty())
        throw usage_error("--turns and --conversations do not combine with --trace: a trace's conversations replay as "
                          "sessions from its session column (--trace-columns ...,session=NAME)");
}

}  // namespace openloop
