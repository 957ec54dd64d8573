#include "openloop/results/sweep_row.hpp"

#include <cstdio>

namespace openloop::sweep_row {

namespace json = boost::json;

std::optional<double> number(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    if (!v || !v->is_number()) return std::nullopt;
    return v->to_number<double>();
}

std::optional<double> at(const json::object& row, std::string_view family, std::string_view stat) {
    const auto* f = row.if_contains(family);
    if (!f || !f->is_object()) return std::nullopt;
    return number(f->as_object(), stat);
}

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string cell(std::optional<double> v, const char* format) { return v ? fmt(format, *v) : "-"; }

std::string error_breakdown(const json::object& row) {
    const auto rate = number(row, "error_rate");
    std::string out = cell(rate ? std::optional<double>(*rate * 100) : std::nullopt, "%.1f") + " %";
    const auto* e = row.if_contains("errors");
    if (!e || !e->is_object() || e->as_object().empty()) return out;
    std::string classes;
    for (const auto& [name, n] : e->as_object()) {
        if (!classes.empty()) classes += ", ";
        classes += cell(n.is_number() ? std::optional<double>(n.to_number<double>()) : std::nullopt, "%.0f") + " " +
                   std::string(name);
    }
    return out + " (" + classes + ")";
}

}  // namespace openloop::sweep_row
