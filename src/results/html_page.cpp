#include "openloop/results/html_page.hpp"

#include "openloop/base/json_text.hpp"
#include "openloop/results/svg_chart.hpp"

namespace openloop {

namespace {

// Light on screen and paper, dark where the reader's system asks for it; the
// charts draw in currentColor, so their axes follow.
constexpr const char* style = R"(
:root{color-scheme:light dark;--fg:#1b1b1b;--bg:#fff;--muted:#5b5b5b;--line:#d0d0d0;--good:#1b7f3b;--bad:#b00020}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#15171a;--muted:#a8a8a8;--line:#3a3d42;--good:#3fb96b;--bad:#ff5c6c}}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 12px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
.verdict{padding:12px 16px;border-radius:6px;color:#fff;font-weight:600}
.verdict.good{background:var(--good)}.verdict.bad{background:var(--bad)}
.verdict ul{margin:6px 0 0;padding-left:20px;font-weight:400}
.headline{font-size:18px;margin:14px 0}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(480px,1fr));gap:16px}
figure.chart{margin:0;border:1px solid var(--line);border-radius:6px;padding:8px}
figure.chart svg{width:100%;height:auto;display:block}figcaption{color:var(--muted);font-size:13px;text-align:center}
.tick,.rule-label{font-size:11px}.axis-label{font-size:12px}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--line);padding:3px 10px;text-align:right}th{font-weight:600}
td:first-child,th:first-child,td.text{text-align:left}
.fields td{text-align:left;font-family:ui-monospace,monospace;font-size:13px}
@media print{body{max-width:none;padding:0}figure.chart,table{break-inside:avoid}.verdict{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
)";

// A cell that is a figure aligns right, in its column's digits.
bool is_figure(const std::string& cell) {
    if (cell.empty() || cell == "-") return true;
    const char c = cell.front();
    return (c >= '0' && c <= '9') || ((c == '-' || c == '+' || c == '.') && cell.size() > 1 && cell[1] >= '0' && cell[1] <= '9');
}

std::string cell_text(const boost::json::value& v) {
    if (v.is_string()) return std::string(v.get_string());
    return compact_json(v);
}

}  // namespace

html_page::html_page(const std::string& title, const std::string& kind) : title_(title), kind_(kind) {
    body_ = "<h1>" + html_escape(title) + "</h1>\n";
}

void html_page::verdict(bool good, const std::string& word, const std::vector<std::string>& reasons) {
    body_ += "<div id=\"verdict\" class=\"verdict " + std::string(good ? "good" : "bad") + "\" data-verdict=\"" +
             html_escape(word) + "\"><span class=\"word\">" + html_escape(word) + "</span>";
    if (!reasons.empty()) {
        body_ += "<ul>";
        for (const auto& r : reasons) body_ += "<li>" + html_escape(r) + "</li>";
        body_ += "</ul>";
    }
    body_ += "</div>\n";
}

void html_page::headline(const std::string& text) {
    body_ += "<p id=\"headline\" class=\"headline\">" + html_escape(text) + "</p>\n";
}

void html_page::section(const std::string& heading) { body_ += "<h2>" + html_escape(heading) + "</h2>\n"; }

void html_page::paragraph(const std::string& text, const std::string& id) {
    body_ += (id.empty() ? "<p>" : "<p id=\"" + html_escape(id) + "\">") + html_escape(text) + "</p>\n";
}

void html_page::charts(const std::vector<std::string>& svg_figures) {
    body_ += "<div class=\"charts\">\n";
    for (const auto& f : svg_figures) body_ += f + "\n";
    body_ += "</div>\n";
}

void html_page::table(const std::string& id, const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows) {
    body_ += "<table data-table=\"" + html_escape(id) + "\"><thead><tr>";
    for (const auto& h : header) body_ += "<th>" + html_escape(h) + "</th>";
    body_ += "</tr></thead><tbody>\n";
    for (const auto& row : rows) {
        body_ += "<tr>";
        for (const auto& c : row) body_ += (is_figure(c) ? "<td>" : "<td class=\"text\">") + html_escape(c) + "</td>";
        body_ += "</tr>\n";
    }
    body_ += "</tbody></table>\n";
}

void html_page::fields(const std::string& id, const boost::json::object& object) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [key, value] : object) rows.push_back({std::string(key), cell_text(value)});
    body_ += "<div class=\"fields\">";
    table(id, {"name", "value"}, rows);
    body_ += "</div>\n";
}

void html_page::how_it_was_run(const boost::json::object& result, std::initializer_list<const char*> keys) {
    section("How it was run");
    boost::json::object run;
    for (const char* key : keys)
        if (const boost::json::value* v = result.if_contains(key)) run[key] = *v;
    fields("run", run);
    for (const char* name : {"config", "environment"})
        if (const boost::json::value* o = result.if_contains(name); o && o->is_object()) fields(name, o->get_object());
}

std::string html_page::str() const {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
           "<meta name=\"generator\" content=\"openloop\"><link rel=\"icon\" href=\"data:,\"><title>" +
           html_escape(title_) + "</title><style>" + style + "</style></head>\n<body data-kind=\"" +
           html_escape(kind_) + "\">\n" + body_ + "</body></html>\n";
}

}  // namespace openloop
