#include "openloop/cli/vllm_command.hpp"

#include "openloop/cli/option_groups.hpp"
#include "openloop/cli/run_command.hpp"
#include "openloop/cli/vllm_flags.hpp"
#include "openloop/base/json_text.hpp"
#include "openloop/results/run_result.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/table.hpp"
#include "openloop/run/result_dir.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

namespace openloop {

namespace {

// As vLLM names its results: local time, YYYYMMDD-HHMMSS.
std::string vllm_date() {
    const std::time_t t = std::time(nullptr);
    std::tm local{};
    localtime_r(&t, &local);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &local);
    return buf;
}

// vLLM's peak output throughput: the most output tokens in one second of the
// run, from timeseries.csv (a request's tokens count in the second it ended);
// 0 without the file.
double peak_output_per_s(const std::filesystem::path& timeseries) {
    std::ifstream in(timeseries);
    std::string line;
    if (!std::getline(in, line)) return 0;
    std::size_t column = 0, at = 0;
    bool found = false;
    for (std::size_t from = 0;; ++at) {
        const std::size_t comma = line.find(',', from);
        if (line.substr(from, comma - from) == "output_tokens") {
            column = at;
            found = true;
            break;
        }
        if (comma == std::string::npos) break;
        from = comma + 1;
    }
    if (!found) return 0;
    double peak = 0;
    while (std::getline(in, line)) {
        std::size_t from = 0;
        for (std::size_t i = 0; i < column && from != std::string::npos; ++i) {
            from = line.find(',', from);
            if (from != std::string::npos) ++from;
        }
        if (from == std::string::npos) continue;
        peak = std::max(peak, std::strtod(line.c_str() + from, nullptr));
    }
    return peak;
}

// vLLM's per-request arrays, in request order, from the run's request log:
// warm-up requests left out, times in seconds. errors always (vLLM's list: ""
// for a success, else what failed); the rest with --save-detailed.
void add_detail(boost::json::object& summary, const std::filesystem::path& requests_jsonl, bool detailed) {
    namespace json = boost::json;
    std::vector<json::object> rows;
    std::ifstream in(requests_jsonl);
    for (std::string line; std::getline(in, line);) {
        boost::system::error_code ec;
        json::value v = json::parse(line, ec);
        if (ec || !v.is_object()) continue;
        const json::object& o = v.get_object();
        if (const json::value* w = o.if_contains("warmup"); w && w->is_bool() && w->get_bool()) continue;
        rows.push_back(o);
    }
    const auto index = [](const json::object& o) {
        const json::value* i = o.if_contains("index");
        return i && i->is_number() ? i->to_number<double>() : 0.0;
    };
    std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return index(a) < index(b); });
    const auto ns = [](const json::object& o, const char* key) -> std::optional<double> {
        const json::value* v = o.if_contains(key);
        if (!v || !v->is_number()) return std::nullopt;
        return v->to_number<double>();
    };
    json::array input_lens, output_lens, ttfts, itls, latencies, start_times, errors;
    for (const auto& o : rows) {
        const double intended = ns(o, "intended_ns").value_or(0);
        const bool ok = o.contains("status") && o.at("status") == "ok";
        input_lens.push_back(ns(o, "input_tokens").value_or(0));
        output_lens.push_back(ok ? ns(o, "output_tokens").value_or(0) : 0.0);
        const auto first = ns(o, "first_token_ns"), last = ns(o, "last_token_ns");
        ttfts.push_back(ok && first ? (*first - intended) / 1e9 : 0.0);
        latencies.push_back(ok && last ? (*last - intended) / 1e9 : 0.0);
        json::array gaps;
        if (const json::value* g = o.if_contains("chunk_gaps_ms"); ok && g && g->is_array())
            for (const json::value& ms : g->get_array())
                if (ms.is_number()) gaps.push_back(ms.to_number<double>() / 1e3);
        itls.push_back(std::move(gaps));
        start_times.push_back(intended / 1e9);
        const json::value* e = o.if_contains("error");
        errors.push_back(ok ? json::value("") : json::value(e && e->is_string() ? e->get_string() : "failed"));
    }
    summary["errors"] = std::move(errors);
    if (!detailed) return;
    summary["input_lens"] = std::move(input_lens);
    summary["output_lens"] = std::move(output_lens);
    summary["ttfts"] = std::move(ttfts);
    summary["itls"] = std::move(itls);
    summary["latencies"] = std::move(latencies);
    summary["start_times"] = std::move(start_times);
}

}  // namespace

int vllm_main(const std::vector<std::string>& args) {
    const auto run_flags = run_option_groups();
    const vllm_translation t = translate_vllm_args(args, vllm_date(), [&](const std::string& flag) {
        return run_flags.find_nothrow(flag.substr(2), false) != nullptr;
    });
    std::string line;
    for (const auto& a : t.run_args) line += " " + (a.find(' ') == std::string::npos ? a : "'" + a + "'");
    std::cerr << "openloop: vLLM bench flags, run as: openloop run" << line << "\n";
    for (const auto& n : t.notes) std::cerr << "openloop: note: " << n << "\n";
    std::cerr << "openloop: note: TTFT and E2E are measured from each request's intended send time (vLLM: from when "
                 "it was sent), so a client that falls behind cannot hide the server's queueing\n";
    run_command cmd = parse_run_command(t.run_args);
    const run_outcome outcome = run_parsed(cmd);

    boost::json::object summary = summary_json(outcome.result);
    for (const auto& [key, value] : t.result_keys) summary[key] = value;
    summary["failed"] = outcome.result.stats.failed;
    // The percentiles asked for, named as vLLM names them (p99, p99.9); none without samples.
    for (const auto& metric : t.percentile_metrics)
        for (const auto& f : latency_families)
            if (f.key == metric)
                for (double p : t.percentiles) {
                    char name[48], stat[24];
                    std::snprintf(name, sizeof name, "p%g_%s_ms", p, metric.c_str());
                    std::snprintf(stat, sizeof stat, "p%g", p);
                    if (const auto v = latency_ms(outcome.result.stats.*f.member, stat)) summary[name] = ms_json(*v);
                }
    summary["max_concurrent_requests"] = outcome.result.stats.max_inflight;
    const result_dir out(cmd.options.out_dir);
    const bool written = !cmd.options.out_dir.empty();
    summary["max_output_tokens_per_s"] = written ? peak_output_per_s(out.file(result_file::timeseries_csv)) : 0.0;
    // vLLM's errors is a list, one entry per request; openloop's count by class moves beside it.
    summary["errors_by_class"] = summary["errors"];
    summary["errors"] = boost::json::array{};
    if (written) {
        add_detail(summary, out.file(result_file::requests_jsonl), false);
        out.write_json(result_file::summary_json, summary);
        // The other per-request arrays go into vLLM's result file only, as vLLM writes them.
        if (t.detailed) add_detail(summary, out.file(result_file::requests_jsonl), true);
    }
    if (!t.result_file.empty()) {
        const std::filesystem::path file(t.result_file);
        if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
        write_json_file(t.result_file, summary);
    }
    std::cout << format_table(outcome.result);
    if (written)
        std::cout << "\nresults: " << cmd.options.out_dir << "/ (summary.json, requests.jsonl, timeseries.csv)\n";
    if (!t.result_file.empty()) std::cout << "vLLM-shaped result: " << t.result_file << "\n";
    return finish_run(cmd, outcome);
}

}  // namespace openloop
