#include "openloop/results/sweep_table.hpp"

#include "openloop/results/number_text.hpp"

#include <array>
#include <functional>
#include <optional>
#include <utility>

namespace openloop {

namespace {

struct table_column {
    std::string title;
    std::function<std::string(const stage_row&)> value;
};

std::string with_ci(std::optional<double> v, const std::optional<std::array<double, 2>>& ci) {
    std::string s = cell(v);
    if (ci) return s + " [" + fmt("%.1f", (*ci)[0]) + ", " + fmt("%.1f", (*ci)[1]) + "]";
    return s + " [too few samples]";
}

std::vector<table_column> columns(bool closed_loop) {
    std::vector<table_column> c;
    // The number the progress line and the stage's directory gave it, in rate order.
    c.push_back({"stage", [](const stage_row& r) { return std::to_string(r.run); }});
    if (closed_loop) {
        c.push_back({"concurrency", [](const stage_row& r) {
                         return cell(r.concurrency ? std::optional<double>(*r.concurrency) : std::nullopt, "%g");
                     }});
    } else {
        c.push_back({"offered req/s", [](const stage_row& r) { return cell(r.offered_rate, "%.3g"); }});
    }
    c.push_back({"achieved req/s", [](const stage_row& r) { return cell(r.achieved_rate, "%.3g"); }});
    c.push_back({"output tok/s", [](const stage_row& r) { return cell(r.output_throughput, "%.0f"); }});
    c.push_back({"TTFT p50 ms", [](const stage_row& r) { return cell(r.ttft.p50); }});
    c.push_back({"TTFT p95 ms [95% CI]", [](const stage_row& r) { return with_ci(r.ttft.p95, r.ttft.p95_ci); }});
    c.push_back({"TTFT p99 ms [95% CI]", [](const stage_row& r) { return with_ci(r.ttft.p99, r.ttft.p99_ci); }});
    c.push_back({"ITL p50 ms", [](const stage_row& r) { return cell(r.itl.p50, "%.2f"); }});
    c.push_back({"ITL p99 ms", [](const stage_row& r) { return cell(r.itl.p99, "%.2f"); }});
    c.push_back({"E2E p99 ms", [](const stage_row& r) { return cell(r.e2e.p99, "%.0f"); }});
    c.push_back({"errors", [](const stage_row& r) { return std::to_string(r.failed); }});
    c.push_back({"goodput req/s", [](const stage_row& r) { return cell(r.goodput, "%.3g"); }});
    c.push_back({"verdict", [](const stage_row& r) {
                     std::string s = r.verdict.empty() ? std::string("-") : r.verdict;
                     if (s == "errors") s += " " + error_breakdown(r);
                     if (!r.generator_ok) s += " (generator lagged)";
                     if (r.queue.judged && (s == "good" || s == "saturated")) s += " (" + r.queue.evidence + ")";
                     return s;
                 }});
    return c;
}

std::string knee_marks(const sweep_knees& knees, const stage_row& row) {
    std::string marks;
    if (knees.slo && knees.slo->point.found && knees.slo->point.stage == row.index) marks = "SLO knee";
    if (knees.saturation.found && knees.saturation.stage == row.index)
        marks += (marks.empty() ? "" : ", ") + std::string("saturation knee");
    if (knees.latency && knees.latency->found && knees.latency->stage == row.index)
        marks += (marks.empty() ? "" : ", ") + std::string("latency bend");
    return marks;
}

}  // namespace

std::string sweep_markdown(const sweep_report& report) {
    const auto cols = columns(report.closed_loop);
    const sweep_analysis& a = report.analysis;
    std::string out = "# openloop sweep: " + report.target + "\n\n";
    if (report.interrupted) out += "**" + interruption_text(report) + "**\n\n";
    out += "| ";
    for (const auto& c : cols) out += c.title + " | ";
    out += "knee |\n|";
    for (std::size_t i = 0; i <= cols.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& r : a.stages) {
        out += "| ";
        for (const auto& c : cols) out += c.value(r) + " | ";
        out += knee_marks(a.knees, r) + " |\n";
    }
    if (report.cut) {
        // Its figures are of a part of a stage: shown as they were, judged by nothing.
        out += "| ";
        for (const auto& c : cols) out += (c.title == "verdict" ? std::string("cut: not judged") : c.value(*report.cut)) + " | ";
        out += " |\n";
    }
    out += "\n";
    out += "- **SLO knee**: " + (a.knees.slo ? a.knees.slo->point.explanation : std::string("no --slo given")) + "\n";
    out += "- **Saturation knee**: " + a.knees.saturation.explanation + "\n";
    if (a.knees.latency) out += "- **Latency bend**: " + a.knees.latency->explanation + "\n";
    if (!report.slos.empty()) {
        out += "- **SLOs**:";
        for (const auto& s : report.slos) out += " `" + s.text + "`";
        out += "\n";
    }
    out += "\n" + a.capacity.text + "\n";
    return out;
}

std::string sweep_csv(const sweep_report& report) {
    const auto cols = columns(report.closed_loop);
    std::string out;
    for (std::size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + std::string("\"") + cols[i].title + "\"";
    out += ",knee\n";
    for (const auto& r : report.analysis.stages) {
        for (std::size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + std::string("\"") + cols[i].value(r) + "\"";
        out += ",\"" + knee_marks(report.analysis.knees, r) + "\"\n";
    }
    if (report.cut) {
        for (std::size_t i = 0; i < cols.size(); ++i)
            out += (i ? "," : "") + std::string("\"") +
                   (cols[i].title == "verdict" ? std::string("cut: not judged") : cols[i].value(*report.cut)) + "\"";
        out += ",\"\"\n";
    }
    return out;
}

}  // namespace openloop
