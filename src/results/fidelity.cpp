#include "openloop/results/fidelity.hpp"

#include <cstdio>

namespace openloop {
namespace {

boost::json::value ratio(double num, double den) {
    if (den > 0) return num / den;
    return nullptr;
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

std::string describe_length_fidelity(const run_stats& stats, std::string_view tokenizer) {
    const std::string name(tokenizer);
    char buf[320];
    if (stats.prompt_checked > 0) {
        std::snprintf(buf, sizeof buf, "input (tokenizer %s): %.1f %% exact as the server counted (%.0f of %.0f), server/intended %.3f",
                      name.c_str(), 100 * (static_cast<double>(stats.prompt_exact) / static_cast<double>(stats.prompt_checked)),
                      static_cast<double>(stats.prompt_exact), static_cast<double>(stats.prompt_checked),
                      stats.prompt_intended_tokens > 0 ? static_cast<double>(stats.server_prompt_tokens) /
                                                             static_cast<double>(stats.prompt_intended_tokens)
                                                       : 0.0);
    } else {
        std::snprintf(buf, sizeof buf, "input (tokenizer %s): the server reported no prompt_tokens", name.c_str());
    }
    std::string line = buf;
    if (stats.output_requested_tokens > 0) {
        std::snprintf(buf, sizeof buf, "; output %.3f of max_tokens (%.0f of %.0f at max)",
                      static_cast<double>(stats.total_output_tokens) / static_cast<double>(stats.output_requested_tokens),
                      static_cast<double>(stats.output_at_max), static_cast<double>(stats.completed));
        line += buf;
    }
    return line;
}

}  // namespace openloop
