#include "openloop/cli/trace_options.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/quantity.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/load/trace.hpp"

#include <boost/program_options.hpp>

#include <cmath>
#include <string>

namespace openloop {

namespace po = boost::program_options;

namespace {

bool given(const po::variables_map& vm, const char* name) { return vm.count(name) && !vm[name].defaulted(); }

std::int64_t offset_ns(const po::variables_map& vm, const char* name) {
    // parse_duration_s refuses negatives and anything over 1e9 s.
    return std::llround(parse_duration_s(vm[name].as<std::string>(), std::string("--") + name) * 1e9);
}

char delimiter(const std::string& text) {
    if (text == "tab" || text == "\\t" || text == "\t") return '\t';
    if (text.size() == 1 && text != "\"" && text != "\n" && text != "\r") return text[0];
    throw usage_error("--trace-delimiter must be one character (e.g. ';', '|') or tab, got '" + text + "'");
}

}  // namespace

po::options_description trace_options() {
    po::options_description trace("Trace replay", help_width, help_width / 2);
    trace.add_options()
        ("trace", po::value<std::string>(), "replay a trace: Mooncake JSONL, Azure CSV, BurstGPT CSV, openloop "
                                            "requests.jsonl, or any CSV / JSONL log with --trace-columns (timestamps, "
                                            "lengths, shared prefixes)")
        ("trace-format", po::value<std::string>()->default_value("auto"),
         "auto (detected from the first line), mooncake, azure, burstgpt or openloop")
        ("trace-columns", po::value<std::string>(),
         "map any CSV or JSONL log: time=NAME[:s|ms|us|ns|iso],input=NAME,output=NAME[,prompt=NAME][,session=NAME]"
         "[,prefix=NAME]. NAME is a CSV header cell or a JSONL key (a.b reaches into objects); the unit defaults "
         "to s (exact to the ns, 1.2345678901234567e3 is fine), iso reads 2024-05-01T12:00:00.123Z, +02:00 or no "
         "zone; times are made relative to the earliest row. prompt= sends that text (input= then optional), "
         "prefix= holds hash block ids (a JSON array or ids separated by blanks, ; or |), session= a conversation "
         "id: rows sharing one replay as a session (run, soak; a sweep sends each row alone), each later turn sent "
         "at its row's time or when the answer before it ended, whichever is later, carrying the conversation so far")
        ("trace-delimiter", po::value<std::string>(), "CSV delimiter, e.g. ';' or tab; default: detected from the "
                                                      "header among , ; tab |")
        ("trace-skip-bad-rows", po::bool_switch(), "skip malformed trace rows instead of stopping; they are counted and "
                                                   "the first ones named by line on stderr")
        ("trace-from", po::value<std::string>(), "replay from this offset into the trace, e.g. 90s, 2m (trace time, "
                                                 "before speed); the gap to the first request after it is kept")
        ("trace-to", po::value<std::string>(), "replay up to this offset into the trace (exclusive)")
        ("trace-max-requests", po::value<std::size_t>(), "replay at most this many requests of the window; a "
                                                         "trace in time order is read only as far as the window "
                                                         "and this count need")
        ("trace-speed", po::value<double>()->default_value(1.0), "replay speed factor (2 = twice as fast)")
        ("loop", po::bool_switch(), "replay the selection lap after lap until --duration (default 60s) or "
                                    "--num-requests; without it a trace is sent once, and a longer --duration ends "
                                    "at the trace's end (a soak always loops, and so does a sweep's stage, at its "
                                    "rate)")
        ("trace-lengths-only", po::bool_switch(), "take only the trace's requests (lengths, prompts, prefixes), in "
                                                  "trace order lap after lap, and send them on the --arrival / --rate "
                                                  "schedule instead of the trace's times (vLLM's burstgpt dataset); "
                                                  "rows asking for no output are skipped");
    return trace;
}

void fill_trace(const po::variables_map& vm, run_command& cmd) {
    auto& o = cmd.options;
    auto& w = o.workload;
    if (vm.count("trace")) w.trace_file = vm["trace"].as<std::string>();
    const bool trace = !w.trace_file.empty();
    for (const char* name : {"trace-columns", "trace-delimiter", "trace-from", "trace-to", "trace-max-requests"})
        if (vm.count(name) && !trace) throw usage_error(std::string("--") + name + " applies to a --trace only");
    if (vm["loop"].as<bool>() && !trace)
        throw usage_error("--loop applies to a --trace only (other sources run until --duration or --num-requests)");
    try {
        w.trace_kind = parse_trace_format(vm["trace-format"].as<std::string>());
    } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--trace-format: ") + e.what());
    }
    if (vm.count("trace-columns")) {
        if (given(vm, "trace-format"))
            throw usage_error("give --trace-format or --trace-columns, not both: a format is a preset mapping");
        w.trace_mapping = parse_trace_columns(vm["trace-columns"].as<std::string>());
    }
    if (vm.count("trace-delimiter")) w.trace_delimiter = delimiter(vm["trace-delimiter"].as<std::string>());
    w.trace_speed = vm["trace-speed"].as<double>();
    if (!(w.trace_speed > 0) || !std::isfinite(w.trace_speed)) throw usage_error("--trace-speed must be positive");
    w.trace_skip_bad_rows = vm["trace-skip-bad-rows"].as<bool>();
    if (vm.count("trace-from")) w.trace_start_ns = offset_ns(vm, "trace-from");
    if (vm.count("trace-to")) {
        w.trace_end_ns = offset_ns(vm, "trace-to");
        if (w.trace_end_ns <= w.trace_start_ns) throw usage_error("--trace-to must be after --trace-from");
    }
    if (vm.count("trace-max-requests")) {
        w.trace_max_requests = vm["trace-max-requests"].as<std::size_t>();
        if (w.trace_max_requests < 1) throw usage_error("--trace-max-requests must be at least 1");
    }
    w.trace_loop = vm["loop"].as<bool>();
    w.trace_lengths_only = vm["trace-lengths-only"].as<bool>();
    if (w.trace_lengths_only) {
        if (!trace) throw usage_error("--trace-lengths-only applies to a --trace only");
        for (const char* name : {"trace-speed", "loop"})
            if (given(vm, name))
                throw usage_error(std::string("--") + name + " replays a trace's times; --trace-lengths-only uses "
                                  "the arrival schedule instead");
        w.trace_loop = true;  // the run's bounds end it, as for a synthetic workload
        return;
    }
    if (trace && given(vm, "rate")) {
        if (given(vm, "trace-speed"))
            throw usage_error("--rate and --trace-speed both set how fast a --trace replays; give one");
        w.trace_rate = o.arrival.rate;
    }
    if (trace && vm.count("rate-profile")) throw usage_error("--rate-profile does not apply to a --trace");
}

}  // namespace openloop
