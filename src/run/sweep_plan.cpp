#include "openloop/run/sweep_plan.hpp"

#include "openloop/run/result_dir.hpp"
#include "openloop/run/shard_barrier.hpp"
#include "openloop/run/stage_end.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

namespace openloop {

std::uint64_t stage_min_samples(const sweep_options& sweep) {
    if (sweep.min_samples > 0) return sweep.min_samples;
    double top_pct = 0;
    for (const auto& s : sweep.slos)
        if (s.stat.size() > 1 && s.stat[0] == 'p') top_pct = std::max(top_pct, std::stod(s.stat.substr(1)));
    return samples_for_percentile(top_pct == 0 ? 99.0 : top_pct);
}

stage_plan plan_stage(const sweep_options& sweep, std::uint64_t min_samples, const stage_inputs& in) {
    const bool closed = !sweep.concurrency.empty();
    const std::size_t index = in.index;
    stage_plan plan;
    run_options& o = plan.options;
    o = sweep.base;
    o.trace_sessions = false;  // a stage is judged on single requests at its rate
    o.concurrency = in.concurrency;
    o.arrival.rate = closed ? 1.0 : in.rate;
    o.arrival.seed = sweep.base.arrival.seed + index;  // one family: same workload, fresh arrivals
    // Fresh prompts too: stage k resending stage 0's prompts would be served
    // from a prefix cache (vLLM's is on by default) at a capacity no real
    // traffic gets. Shared prefixes (--prefix-len) stay the same.
    o.workload.unique_from = static_cast<std::uint64_t>(index) << 40;
    o.arrival.profile.clear();
    if (!o.workload.trace_file.empty() && !o.workload.trace_lengths_only) {
        // A stage replays the trace's own gaps scaled to the stage's rate, lap
        // after lap until its bounds: sent once at its recorded speed, a short
        // trace ended every stage early at one rate whatever the stage's.
        if (!closed) o.workload.trace_rate = in.rate;
        o.workload.trace_loop = true;
    }
    o.arrival.count_block = sweep.rate_block;
    char label[96];
    if (closed)
        std::snprintf(label, sizeof label, "sweep stage %zu: concurrency %d", index, in.concurrency);
    else
        std::snprintf(label, sizeof label, "sweep stage %zu: %g req/s", index, in.rate);
    o.live_label = label;
    o.warmup_requests = 0;
    o.warmup_s = in.warmup_s;
    // At least stage_s and at least min_samples measured requests.
    o.duration_s = sweep.stage_s;
    o.num_requests = min_samples;
    o.all_bounds = true;
    if (closed) {
        o.duration_s = 0;
        o.num_requests = std::max<std::uint64_t>(min_samples, static_cast<std::uint64_t>(in.concurrency) * 4);
    }
    const shard_spec shard = sweep.base.shard;
    // Every shard's part of the stage ends where the global schedule's window does: a fixed
    // window (the queue's own end rule would end each part at another time).
    if (!closed && !shard.sharded()) {
        stage_end_options se;
        se.min_s = sweep.stage_s;
        se.min_requests = min_samples;
        se.rate = in.rate;
        se.base_e2e_s = in.e2e_base_s;
        se.max_extension = sweep.max_extension;
        o.stage_end = se;
    }
    o.steady_throughput = true;
    if (sweep.base.drain_s == 0) o.drain_s = std::max(30.0, 4 * in.warmup_s);
    o.overload_inflight = sweep.abort_inflight > 0
                              ? sweep.abort_inflight
                              : static_cast<std::size_t>(std::max(
                                    64.0, 30 * (closed ? in.concurrency : in.rate) * std::max(1.0, in.e2e_base_s)));
    if (shard.sharded()) o.overload_inflight = (o.overload_inflight + shard.count - 1) / shard.count;
    o.start_at_ns = in.start_at_ns;
    plan.dir = stage_dir_name(index, in.rate, in.concurrency);
    const std::filesystem::path out(sweep.out_dir);
    if (shard.sharded()) {
        o.out_dir = shard_barrier(out, shard, 0).part_dir(plan.dir).string();
    } else {
        o.out_dir = sweep.out_dir.empty() ? "" : (out / plan.dir).string();
    }
    o.config["sweep_stage"] = index;
    return plan;
}

double next_warmup_s(const sweep_options& sweep, double warmup_s, bool good, double e2e_p90_s) {
    return good ? std::min(60.0, std::max(sweep.warmup_s, 1.5 * e2e_p90_s)) : warmup_s;
}

}  // namespace openloop
