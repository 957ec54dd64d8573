#include "openloop/results/history.hpp"

#include <cstdio>

namespace openloop {

namespace {

constexpr const char* latency_columns[][2] = {{"ttft", "p50"}, {"ttft", "p99"}, {"tpot", "p50"}, {"tpot", "p99"},
                                              {"itl", "p50"},  {"itl", "p99"},  {"e2el", "p50"}, {"e2el", "p99"},
                                              {"lag", "p99"}};

// RFC 4180: quoted when it holds a comma, a quote or a line break.
std::string field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace

std::string history_header() {
    std::string h = "date,label,target,mode,arrival,valid,completed,failed,duration_s,request_throughput,"
                    "request_goodput,output_throughput";
    for (const auto& c : latency_columns) h += std::string(",") + c[1] + "_" + c[0] + "_ms";
    return h + ",out_dir\n";
}

std::string history_row(const run_result& r, const std::string& date, const std::string& label,
                        const std::string& out_dir) {
    std::string row = field(date) + "," + field(label) + "," + field(r.context.target) + "," + field(r.context.mode) +
                      "," + field(r.context.arrival) + "," + (r.validity.valid ? "true" : "false") + "," +
                      std::to_string(r.stats.completed) + "," + std::to_string(r.stats.failed) + "," +
                      number(r.duration_s) + "," + number(r.request_throughput) + "," + number(r.request_goodput) + "," +
                      number(r.output_throughput);
    for (const auto& c : latency_columns) {
        row += ',';
        for (const auto& f : latency_families)
            if (f.key == c[0])
                if (const auto v = latency_ms(r.stats.*f.member, c[1])) row += number(*v);
    }
    return row + "," + field(out_dir) + "\n";
}

}  // namespace openloop
