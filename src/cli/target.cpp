#include "openloop/cli/target.hpp"

#include "openloop/cli/signal_options.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/measure/resource_usage.hpp"
#include "openloop/run/stop_signals.hpp"
#include "openloop/sim/engine.hpp"

#include <cstdio>
#include <vector>

namespace openloop {

resolved_target resolve_target(const run_command& cmd) {
    resolved_target r;
    // A URL was parsed with the flags. A run that a signal already ended (during the tokenizer's
    // load) sends nothing: no simulator is started for it.
    if (cmd.target.rfind("sim:", 0) != 0 || cmd.options.interrupted) {
        r.url = cmd.options.target;
        return r;
    }
    const std::string preset = cmd.target.substr(4);
    if (!find_preset(preset)) {
        std::string names;
        for (const auto& n : preset_names()) names += (names.empty() ? "" : ", ") + n;
        throw usage_error("--target " + cmd.target + ": unknown simulator preset (choose one of: " + names + ")");
    }
    // A Ctrl-C while the simulator starts waits for the run, which ends interrupted and stops it.
    hold_stop_signals();
    std::vector<std::string> args{"--preset", preset, "--seed", std::to_string(cmd.seed)};
    args.insert(args.end(), cmd.sim_args.begin(), cmd.sim_args.end());
    r.sim.emplace(start_sim(self_executable(), args));
    r.url = parse_target_url(r.sim->url);
    return r;
}

resolved_target settle_run(const run_command& cmd, run_options& o) {
    if (o.insecure) std::fprintf(stderr, "openloop: warning: --insecure: the server's certificate and host name are NOT verified\n");
    resolved_target target = resolve_target(cmd);
    o.target = target.url;
    start_live_metrics(o);
    raise_fd_limit();
    return target;
}

}  // namespace openloop
