#include "openloop/results/sweep_compare.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace openloop {

namespace json = boost::json;

namespace {

std::vector<double> stage_rates(const json::object& sweep) {
    const json::value* stages = sweep.if_contains("stages");
    if (!stages || !stages->is_array()) throw std::invalid_argument("sweep.json has no \"stages\"");
    std::vector<double> rates;
    for (const auto& s : stages->get_array())
        if (const json::value* r = s.is_object() ? s.get_object().if_contains("offered_rate") : nullptr; r && r->is_number())
            rates.push_back(r->to_number<double>());
    std::sort(rates.begin(), rates.end());
    return rates;
}

knee_bracket bracket(const json::object& sweep, const char* key, const std::vector<double>& rates) {
    knee_bracket b;
    const json::value* knees = sweep.if_contains("knees");
    if (!knees || !knees->is_object()) throw std::invalid_argument("sweep.json has no \"knees\"");
    const json::value* k = knees->get_object().if_contains(key);
    if (!k || !k->is_object() || rates.empty()) return b;
    const json::object& o = k->get_object();
    const auto flag = [&](const char* f) { return o.contains(f) && o.at(f).is_bool() && o.at(f).as_bool(); };
    if (std::string(key) == "slo" && o.contains("explanation") && o.at("explanation") == "no --slo given") return b;
    b.known = true;
    if (flag("below_range")) {
        b.low = 0;
        b.high = rates.front();
        return b;
    }
    if (!flag("found")) {
        // Not found: every stage held (or, for the SLO knee, the lowest failed).
        if (std::string(key) == "slo") {
            b.low = 0;
            b.high = rates.front();
        } else {
            b.rate = b.low = rates.back();
        }
        return b;
    }
    b.rate = b.low = o.at("rate").to_number<double>();
    const auto next = std::upper_bound(rates.begin(), rates.end(), b.low);
    if (next != rates.end()) b.high = *next;
    return b;
}

}  // namespace

std::string sweep_rate_text(double v) {
    if (std::isinf(v)) return "above";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::vector<std::string> compared_knee_names() { return {"knee", "slo_knee", "latency_knee"}; }

knee_bracket sweep_knee(const json::object& sweep, std::string_view name) {
    for (const auto& [key, n] : {std::pair{"saturation", "knee"}, std::pair{"slo", "slo_knee"},
                                 std::pair{"latency", "latency_knee"}})
        if (name == n) return bracket(sweep, key, stage_rates(sweep));
    throw std::invalid_argument("no knee '" + std::string(name) + "' (knee, slo_knee or latency_knee)");
}

std::optional<std::string> knee_gate_failure(const gate& g, const std::vector<knee_change>& changes) {
    if (!g.model.empty()) return g.text + ": a sweep's knees are the run's, not a model's: gate a model in a run comparison";
    for (const auto& c : changes) {
        if (c.name != g.metric || (c.verdict != "better" && c.verdict != "worse")) continue;
        const double pct = c.relative() * 100;
        if (g.above ? pct > g.percent : pct < g.percent) {
            char buf[160];
            std::snprintf(buf, sizeof buf, ": %s moved %+.1f %% (%s -> %s req/s), the brackets apart", c.name.c_str(), pct,
                          sweep_rate_text(c.base.rate).c_str(), sweep_rate_text(c.now.rate).c_str());
            return g.text + buf;
        }
    }
    return std::nullopt;
}

std::vector<knee_change> compare_sweeps(const json::object& base, const json::object& now) {
    std::vector<knee_change> out;
    for (const std::string& name : compared_knee_names()) {
        knee_change c{name, sweep_knee(base, name), sweep_knee(now, name), "no data"};
        if (c.base.known && c.now.known) {
            if (c.now.low >= c.base.high) c.verdict = "better";
            else if (c.now.high <= c.base.low) c.verdict = "worse";
            else c.verdict = "within noise";
        }
        out.push_back(std::move(c));
    }
    return out;
}

run_match match_sweeps(const json::object& base, const json::object& now, const std::string& base_name,
                       const std::string& new_name) {
    const auto described = [](const json::object& sweep) {
        std::optional<run_context> c;
        const json::value* config = sweep.if_contains("config");
        const json::value* target = sweep.if_contains("target");
        if (config == nullptr || !config->is_object() || config->get_object().empty()) return c;
        c.emplace();
        c->config = config->get_object();
        if (target != nullptr && target->is_string()) c->target = target->get_string();
        return c;
    };
    const std::optional<run_context> a = described(base), b = described(now);
    run_match m;
    if (!a || !b) {
        m.unchecked = (a ? new_name : base_name) + "'s sweep.json records no config";
        return m;
    }
    m.differences = run_differences(*a, *b);
    return m;
}

std::string sweep_compare_markdown(const std::string& base_name, const std::string& new_name,
                                   const std::vector<knee_change>& changes, const run_match& match,
                                   bool allow_mismatch) {
    std::string s = "# openloop compare (sweeps)\n\n" + run_match_markdown(match, allow_mismatch) + "Base `" +
                    base_name + "`, new `" + new_name +
                    "`. A knee lies between the last stage before the break and the first past it; a change counts "
                    "when the two brackets do not overlap.\n\n"
                    "| knee | base (req/s) | base bracket | new (req/s) | new bracket | relative | verdict |\n"
                    "|---|---:|---|---:|---|---:|---|\n";
    for (const auto& c : changes) {
        const auto cell = [](const knee_bracket& b) {
            return b.known ? sweep_rate_text(b.low) + " .. " + sweep_rate_text(b.high) : std::string("-");
        };
        char rel[32];
        std::snprintf(rel, sizeof rel, "%+.1f %%", c.relative() * 100);
        s += "| " + c.name + " | " + (c.base.known ? sweep_rate_text(c.base.rate) : "-") + " | " + cell(c.base) + " | " +
             (c.now.known ? sweep_rate_text(c.now.rate) : "-") + " | " + cell(c.now) + " | " +
             (c.base.known && c.now.known && c.base.rate != 0 ? rel : "-") + " | " + c.verdict + " |\n";
    }
    return s;
}

json::object sweep_compare_json(const std::string& base_name, const std::string& new_name,
                                const std::vector<knee_change>& changes, const run_match& match, bool allow_mismatch) {
    json::object knees;
    for (const auto& c : changes) {
        const auto side = [](const knee_bracket& b) -> json::value {
            if (!b.known) return nullptr;
            return json::object{{"rate", b.rate}, {"low", b.low},
                                {"high", std::isinf(b.high) ? json::value(nullptr) : json::value(b.high)}};
        };
        knees[c.name] = json::object{{"base", side(c.base)}, {"new", side(c.now)}, {"relative", c.relative()},
                                     {"verdict", c.verdict}};
    }
    json::object out{{"base", base_name}, {"new", new_name}, {"kind", "sweep"}};
    add_run_match_json(out, match, allow_mismatch);
    out["knees"] = std::move(knees);
    return out;
}

}  // namespace openloop
