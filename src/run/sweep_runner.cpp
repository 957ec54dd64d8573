#include "openloop/run/sweep_runner.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/clock.hpp"
#include "openloop/results/sweep_json.hpp"
#include "openloop/results/sweep_table.hpp"
#include "openloop/run/report_file.hpp"
#include "openloop/run/result_dir.hpp"
#include "openloop/run/run_plan.hpp"
#include "openloop/run/shard_barrier.hpp"
#include "openloop/run/sweep_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

namespace openloop {

namespace {

// Sleeps between stages with SIGINT/SIGTERM held, so Ctrl-C then ends the
// sweep cleanly instead of killing it; true when one arrived.
bool cool_down(double seconds) {
    const bool got = sleep_unless_signalled(seconds);
    if (got) std::fprintf(stderr, "\nopenloop: interrupted between stages; the report covers the stages so far\n");
    return got;
}

}  // namespace

sweep_result run_sweep(const sweep_options& opt, const run_plan& prepared) {
    const bool closed = !opt.concurrency.empty();
    const std::uint64_t min_samples = stage_min_samples(opt);
    std::filesystem::path out(opt.out_dir);
    if (!opt.out_dir.empty()) std::filesystem::create_directories(out);

    sweep_result result;
    sweep_report& report = result.report;
    report.target = opt.base.target_label;
    report.closed_loop = closed;
    report.slos = opt.slos;
    report.min_samples = min_samples;
    report.precision = opt.precision;
    report.config = opt.base.config;
    std::vector<stage_row> rows;  // in the order they ran

    double warmup = opt.warmup_s;
    double e2e_base_s = 0;  // E2E p50 at the first stage: the low-load latency
    // A sharded sweep's shards take every decision together (shard_barrier.hpp); shard 0 writes the report.
    const shard_spec shard = opt.base.shard;
    shard_barrier barrier(out, shard, opt.barrier_timeout_s);
    std::int64_t next_start_ns = opt.base.start_at_ns;
    if (shard.sharded()) {
        if (opt.out_dir.empty()) throw input_error("sweep --shard: the shards meet in --out, a directory they share");
        // Marks left by an earlier sweep would let this one's barriers pass at once.
        bool used = std::filesystem::exists(out / "stop");
        for (const auto& e : std::filesystem::directory_iterator(out))
            used = used || (e.is_directory() && std::filesystem::exists(e.path() / barrier.part_dir("x").filename()));
        if (used)
            throw input_error("sweep --shard: --out " + out.string() +
                              " already holds a sharded sweep's files; give every shard a new, empty directory");
    }
    auto publish = [&] {
        report.analysis = analyse_sweep(rows, opt.slos, closed, opt.think_time_s);
        report.interrupted = result.interrupted;
        if (report.interrupted) note_interrupted(report.analysis, report.cut);
        if (!opt.out_dir.empty() && shard.index == 0) {
            const result_dir sweep(out);
            sweep.write_json(result_file::sweep_json, to_json(report));
            sweep.write_text(result_file::sweep_md, sweep_markdown(report));
            sweep.write_text(result_file::sweep_csv, sweep_csv(report));
            try_write_report_html(sweep);
        }
    };

    auto run_stage = [&](double rate, int concurrency) -> bool {
        const std::size_t index = rows.size();
        const stage_plan plan = plan_stage(opt, min_samples, {index, rate, concurrency, warmup, e2e_base_s, next_start_ns});
        const run_options& o = plan.options;
        const std::string& dir = plan.dir;
        if (closed) {
            std::fprintf(stderr, "stage %zu: concurrency %d, %llu requests after %.0f s warm-up\n", index, concurrency,
                         static_cast<unsigned long long>(o.num_requests), warmup);
        } else {
            std::fprintf(stderr, "stage %zu: %.3g req/s, at least %.0f s and %llu requests, after %.0f s warm-up\n", index,
                         rate, o.duration_s, static_cast<unsigned long long>(o.num_requests), warmup);
        }
        run_outcome outcome = run_load(prepared.with_options(o));
        std::string row_dir = dir;
        if (shard.sharded()) {
            // The stage is judged on every shard's part merged: the same rows on every shard.
            std::optional<std::vector<stage_mark>> marks;
            try {
                marks = barrier.meet(dir, {shard.index, wall_now_ns(), outcome.interrupted, outcome.overloaded,
                                           outcome.stopped_early ? outcome.result.context.partial_reason : ""});
            } catch (const std::runtime_error& e) {
                // A shard that never comes leaves nothing to judge the stage on: the report holds the stages before.
                result.shards_lost = e.what();
                barrier.stop(result.shards_lost);
                publish();
                return false;
            }
            if (!marks) {
                std::fprintf(stderr, "openloop: %s; the report covers the stages so far\n", barrier.stop_reason().c_str());
                result.interrupted = true;
                return false;
            }
            std::vector<merge_input> parts;
            for (int i = 0; i < shard.count; ++i) parts.push_back(result_dir(barrier.part_dir(dir, i)).read_merge_input());
            const merged_result merged = merge_results(parts);
            if (shard.index == 0) result_dir(out / dir / result_file::merged_stage).write_merged(merged);
            row_dir = dir + "/" + std::string(result_file::merged_stage);
            outcome.result = merged.result;
            std::int64_t last_end = 0;
            for (const stage_mark& m : *marks) {
                outcome.interrupted = outcome.interrupted || m.interrupted;
                outcome.overloaded = outcome.overloaded || m.overloaded;
                if (!m.stopped_early.empty() && !outcome.stopped_early) {
                    outcome.stopped_early = true;
                    outcome.result.context.partial_reason = m.stopped_early;
                }
                last_end = std::max(last_end, m.end_wall_ns);
            }
            // The next stage starts together, a cool-down after the last shard ended this one.
            next_start_ns = last_end + static_cast<std::int64_t>(std::llround(opt.cooldown_s * 1e9));
        } else {
            next_start_ns = -1;  // --start-at is the first stage's; the others follow its cool-down
        }
        stage_row row = make_stage_row(index, rate, concurrency, outcome.result, outcome.overloaded, opt.slos,
                                       opt.follow_ratio, e2e_base_s * 1000);
        row.dir = row_dir;
        row.undecided = outcome.stage_undecided;
        row.warmup_s = warmup;
        if (outcome.interrupted) {
            // Part of a stage says nothing of the rate: shown as cut, kept out of the knees.
            row.verdict = "cut";
            std::fprintf(stderr, "  -> cut by the interrupt after %.1f s: not judged\n", row.duration_s);
            report.cut = std::move(row);
            result.interrupted = true;
            publish();
            return false;
        }
        std::fprintf(stderr, "  -> achieved %.3g req/s, TTFT p99 %s ms, E2E p99 %s ms, %llu errors: %s; %s\n",
                     row.achieved_rate, cell(row.ttft.p99).c_str(), cell(row.e2e.p99, "%.0f").c_str(),
                     static_cast<unsigned long long>(row.failed), row.verdict.c_str(),
                     row.saturation_evidence().c_str());
        if (row.undecided) {
            std::fprintf(stderr, "  (undecided: after %.0f s the queue neither grew beyond doubt nor was shown steady; "
                                 "--stage-extension allows longer)\n", outcome.stage_window_s);
        }
        if (index == 0) e2e_base_s = row.e2e.p50.value_or(0) / 1000.0;
        // The next stage's warm-up should cover this stage's latency, so the
        // measured window starts in steady state.
        const bool good = row.good();
        warmup = next_warmup_s(opt, warmup, good, row.e2e.p90.value_or(0) / 1000.0);
        rows.push_back(std::move(row));
        // Every request refused the same way (fail_fast.hpp): higher rates would only repeat it.
        if (outcome.stopped_early) result.stopped_early = outcome.result.context.partial_reason;
        publish();
        if (!shard.sharded() && !outcome.stopped_early && opt.cooldown_s > 0 &&
            cool_down(opt.cooldown_s))
            result.interrupted = true;
        return good;
    };

    const auto over = [&] { return result.interrupted || !result.stopped_early.empty() || !result.shards_lost.empty(); };
    if (closed) {
        for (int c : opt.concurrency) {
            run_stage(0, c);
            if (over()) break;
        }
    } else if (opt.rates.automatic) {
        planner_options po;
        po.start_rate = opt.start_rate;
        po.factor = opt.factor;
        po.precision = opt.precision;
        po.max_rate = opt.max_rate;
        po.max_stages = opt.max_stages;
        rate_planner planner(po);
        while (auto r = planner.next_rate()) {
            planner.record(run_stage(*r, 0));
            if (over()) break;
        }
        std::fprintf(stderr, "automatic sweep: %s\n", planner.reason().c_str());
    } else {
        int saturated_in_a_row = 0;
        for (double r : opt.rates.rates) {
            run_stage(r, 0);
            if (over()) break;
            const std::string& verdict = rows.back().verdict;
            saturated_in_a_row = (verdict == "saturated" || verdict == "overloaded") ? saturated_in_a_row + 1 : 0;
            if (saturated_in_a_row == 2 && r != opt.rates.rates.back()) {
                std::fprintf(stderr, "two stages in a row saturated: skipping the higher rates\n");
                break;
            }
        }
    }
    publish();
    return result;
}

}  // namespace openloop
