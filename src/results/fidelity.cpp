#include "openloop/results/fidelity.hpp"

#include <cstdio>

namespace openloop {
namespace {

boost::json::value ratio(double num, double den) {
    if (den > 0) return num / den;
    return nullptr;
}

double get(const boost::json::object* o, std::string_view key, double fallback = -1) {
    if (o == nullptr) return fallback;
    const auto* v = o->if_contains(key);
    return v != nullptr && v->is_number() ? v->to_number<double>() : fallback;
}

}  // namespace

boost::json::object length_fidelity(const run_stats& stats, std::string_view tokenizer) {
    boost::json::object input;
    input["checked"] = stats.prompt_checked;
    input["exact"] = stats.prompt_exact;
    input["exact_fraction"] = ratio(static_cast<double>(stats.prompt_exact), static_cast<double>(stats.prompt_checked));
    input["intended_tokens"] = stats.prompt_intended_tokens;
    input["server_tokens"] = stats.server_prompt_tokens;
    input["ratio"] = ratio(static_cast<double>(stats.server_prompt_tokens), static_cast<double>(stats.prompt_intended_tokens));

    boost::json::object output;
    output["completed"] = stats.completed;
    output["requested_tokens"] = stats.output_requested_tokens;
    output["received_tokens"] = stats.total_output_tokens;
    output["at_max_tokens"] = stats.output_at_max;
    output["ratio"] = ratio(static_cast<double>(stats.total_output_tokens), static_cast<double>(stats.output_requested_tokens));

    return boost::json::object{{"tokenizer", tokenizer}, {"input", std::move(input)}, {"output", std::move(output)}};
}

std::string describe_length_fidelity(const boost::json::object& f) {
    const auto* in = f.if_contains("input") ? f.at("input").if_object() : nullptr;
    const auto* out = f.if_contains("output") ? f.at("output").if_object() : nullptr;
    std::string tokenizer = "-";
    if (const auto* t = f.if_contains("tokenizer"); t != nullptr && t->is_string()) tokenizer = std::string(t->get_string());
    char buf[320];
    const double checked = get(in, "checked", 0);
    if (checked > 0) {
        std::snprintf(buf, sizeof buf, "input (tokenizer %s): %.1f %% exact as the server counted (%.0f of %.0f), server/intended %.3f",
                      tokenizer.c_str(), 100 * get(in, "exact_fraction", 0), get(in, "exact", 0), checked, get(in, "ratio", 0));
    } else {
        std::snprintf(buf, sizeof buf, "input (tokenizer %s): the server reported no prompt_tokens", tokenizer.c_str());
    }
    std::string line = buf;
    if (get(out, "requested_tokens", 0) > 0) {
        std::snprintf(buf, sizeof buf, "; output %.3f of max_tokens (%.0f of %.0f at max)", get(out, "ratio", 0),
                      get(out, "at_max_tokens", 0), get(out, "completed", 0));
        line += buf;
    }
    return line;
}

}  // namespace openloop
