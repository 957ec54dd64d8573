#include "openloop/results/sweep.hpp"

#include "openloop/results/sweep_row.hpp"

#include <boost/json.hpp>

#include <functional>

// sweep.md and sweep.csv: one row per stage, the knees marked.

namespace openloop {

namespace json = boost::json;
using namespace sweep_row;

namespace {

struct table_column {
    std::string title;
    std::function<std::string(const json::object&)> value;
};

std::vector<table_column> columns(bool closed_loop) {
    std::vector<table_column> c;
    c.push_back({"stage", [](const json::object& r) { return cell(number(r, "index"), "%.0f"); }});
    if (closed_loop) {
        c.push_back({"concurrency", [](const json::object& r) { return cell(number(r, "concurrency"), "%g"); }});
    } else {
        c.push_back({"offered req/s", [](const json::object& r) { return cell(number(r, "offered_rate"), "%.3g"); }});
    }
    c.push_back({"achieved req/s", [](const json::object& r) { return cell(number(r, "achieved_rate"), "%.3g"); }});
    c.push_back({"output tok/s", [](const json::object& r) { return cell(number(r, "output_throughput"), "%.0f"); }});
    c.push_back({"TTFT p50 ms", [](const json::object& r) { return cell(at(r, "ttft_ms", "p50")); }});
    c.push_back({"TTFT p95 ms", [](const json::object& r) { return cell(at(r, "ttft_ms", "p95")); }});
    c.push_back({"TTFT p99 ms [95% CI]", [](const json::object& r) {
                     std::string s = cell(at(r, "ttft_ms", "p99"));
                     const auto* f = r.if_contains("ttft_ms");
                     const auto* ci = f && f->is_object() ? f->as_object().if_contains("p99_ci") : nullptr;
                     if (ci && ci->is_array())
                         s += " [" + fmt("%.1f", ci->as_array()[0].to_number<double>()) + ", " +
                              fmt("%.1f", ci->as_array()[1].to_number<double>()) + "]";
                     else
                         s += " [too few samples]";
                     return s;
                 }});
    c.push_back({"ITL p50 ms", [](const json::object& r) { return cell(at(r, "itl_ms", "p50"), "%.2f"); }});
    c.push_back({"ITL p99 ms", [](const json::object& r) { return cell(at(r, "itl_ms", "p99"), "%.2f"); }});
    c.push_back({"E2E p99 ms", [](const json::object& r) { return cell(at(r, "e2e_ms", "p99"), "%.0f"); }});
    c.push_back({"errors", [](const json::object& r) { return cell(number(r, "failed"), "%.0f"); }});
    c.push_back({"goodput req/s", [](const json::object& r) { return cell(number(r, "goodput"), "%.3g"); }});
    c.push_back({"verdict", [](const json::object& r) {
                     const auto* v = r.if_contains("verdict");
                     std::string s = v && v->is_string() ? std::string(v->as_string()) : std::string("-");
                     if (s == "errors") s += " " + error_breakdown(r);
                     const auto* g = r.if_contains("generator_ok");
                     if (g && g->is_bool() && !g->as_bool()) s += " (generator lagged)";
                     return s;
                 }});
    return c;
}

std::string knee_marks(const json::object& report, const json::object& row) {
    std::string marks;
    const auto index = number(row, "index");
    const auto& knees = report.at("knees").as_object();
    for (const auto& [name, label] : {std::pair{"slo", "SLO knee"}, std::pair{"saturation", "saturation knee"}}) {
        const auto* k = knees.if_contains(name);
        if (!k || !k->is_object()) continue;
        const auto& o = k->as_object();
        const auto* found = o.if_contains("found");
        if (found && found->is_bool() && found->as_bool() && number(o, "stage") == index)
            marks += (marks.empty() ? "" : ", ") + std::string(label);
    }
    return marks;
}

}  // namespace

std::string sweep_markdown(const json::object& report) {
    const bool closed = report.contains("mode") && report.at("mode").as_string() == "closed-loop";
    const auto cols = columns(closed);
    std::string out = "# openloop sweep: " + std::string(report.at("target").as_string()) + "\n\n";
    out += "| ";
    for (const auto& c : cols) out += c.title + " | ";
    out += "knee |\n|";
    for (std::size_t i = 0; i <= cols.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& v : report.at("stages").as_array()) {
        const auto& r = v.as_object();
        out += "| ";
        for (const auto& c : cols) out += c.value(r) + " | ";
        out += knee_marks(report, r) + " |\n";
    }
    const auto& knees = report.at("knees").as_object();
    out += "\n";
    for (const auto& [name, label] : {std::pair{"slo", "SLO knee"}, std::pair{"saturation", "Saturation knee"},
                                      std::pair{"latency", "Latency bend (evidence)"}}) {
        const auto* k = knees.if_contains(name);
        if (!k || !k->is_object()) continue;
        const auto* e = k->as_object().if_contains("explanation");
        out += "- **" + std::string(label) + "**: " + (e && e->is_string() ? std::string(e->as_string()) : "-") + "\n";
    }
    if (const auto* slos = report.if_contains("slos"); slos && slos->is_array() && !slos->as_array().empty()) {
        out += "- **SLOs**:";
        for (const auto& s : slos->as_array()) out += " `" + std::string(s.as_object().at("text").as_string()) + "`";
        out += "\n";
    }
    out += "\n" + std::string(report.at("capacity").as_object().at("text").as_string()) + "\n";
    return out;
}

std::string sweep_csv(const json::object& report) {
    const bool closed = report.contains("mode") && report.at("mode").as_string() == "closed-loop";
    const auto cols = columns(closed);
    std::string out;
    for (std::size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + std::string("\"") + cols[i].title + "\"";
    out += ",knee\n";
    for (const auto& v : report.at("stages").as_array()) {
        const auto& r = v.as_object();
        for (std::size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + std::string("\"") + cols[i].value(r) + "\"";
        out += ",\"" + knee_marks(report, r) + "\"\n";
    }
    return out;
}

}  // namespace openloop
