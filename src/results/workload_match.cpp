#include "openloop/results/workload_match.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace openloop {

namespace json = boost::json;

namespace {

struct aspect_keys {
    const char* aspect;
    std::vector<std::string_view> keys;  // run.json "config" keys: the flags as recorded
};

// The flags that define the load a run gave; any flag not named here may
// differ between the parts of one run.
const std::vector<aspect_keys>& workload_keys() {
    static const std::vector<aspect_keys> keys{
        {"endpoint", {"endpoint", "no-stream"}},
        {"lengths", {"input-len", "output-len", "prefix-len", "prefix-groups", "ignore-eos"}},
        {"prompts",
         {"prompts", "sharegpt", "conversations", "turns", "think-time", "rag-docs", "rag-k", "rag-doc-len",
          "rag-template-len", "rag-zipf", "trace", "trace-format", "trace-columns", "trace-delimiter", "trace-from",
          "trace-to", "trace-max-requests", "trace-lengths-only", "loop"}},
        {"rate", {"rate", "rate-profile", "concurrency", "max-concurrency"}},
        {"arrival", {"arrival", "burstiness", "trace-speed"}},
        {"sampling", {"temperature", "sampling-seed", "extra-body", "response-format", "reasoning-effort"}},
        {"tools",
         {"tools", "tool-schema-len", "tool-choice", "tool-latency", "tool-result-len", "max-tool-steps"}},
        {"tokenizer", {"tokenizer", "vocab-size"}},
    };
    return keys;
}

// Flags newer than some recorded runs: a run from before them ran as their default does.
const json::value* recorded(const json::object& config, std::string_view key) {
    static const json::object defaults{{"tools", 0},          {"tool-schema-len", 64}, {"tool-choice", "auto"},
                                       {"tool-latency", "0"}, {"tool-result-len", "64"}, {"max-tool-steps", 8},
                                       {"reasoning-parser", "none"}};
    const json::value* v = config.if_contains(key);
    return v ? v : defaults.if_contains(key);
}

std::string value_text(const json::value* v) {
    if (v == nullptr || v->is_null()) return "(not set)";
    if (v->is_string()) return std::string(v->get_string());
    if (v->is_double()) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", v->get_double());
        return text;
    }
    return json::serialize(*v);
}

bool same(const json::value* a, const json::value* b) {
    if (a == nullptr || b == nullptr) return a == b;
    if (a->is_number() && b->is_number()) return a->to_number<double>() == b->to_number<double>();
    return *a == *b;
}

std::string rate_with_unit(double rate) {
    char text[32];
    std::snprintf(text, sizeof text, "%g req/s", rate);
    return text;
}

}  // namespace

std::vector<run_difference> run_differences(const run_context& a, const run_context& b) {
    std::vector<run_difference> out;
    const auto said = [&](const char* aspect, const char* field, const std::string& x, const std::string& y) {
        if (x != y) out.push_back({aspect, field, x, y, false});
    };
    said("target", "target", a.target, b.target);
    said("model", "model", value_text(a.config.if_contains("model")), value_text(b.config.if_contains("model")));
    said("tokenizer", "calibrated", a.tokenizer, b.tokenizer);
    // How thinking inside the content was read moves the time to first answer token, not the load.
    said("reasoning parser", "reasoning-parser", value_text(recorded(a.config, "reasoning-parser")),
         value_text(recorded(b.config, "reasoning-parser")));
    // A mix of models, or the media sent, is the load: the same server given another share of
    // each model, or images of another size, is another workload.
    const auto load = [&](const char* aspect, const char* field, const std::string& x, const std::string& y) {
        if (x != y) out.push_back({aspect, field, x.empty() ? "(not set)" : x, y.empty() ? "(not set)" : y, true});
    };
    load("model mix", "model_mix", a.model_mix, b.model_mix);
    load("media", "media", a.media.empty() ? "" : json::serialize(a.media), b.media.empty() ? "" : json::serialize(b.media));
    bool rate_said = false;
    for (const aspect_keys& group : workload_keys()) {
        for (std::string_view key : group.keys) {
            const json::value *x = recorded(a.config, key), *y = recorded(b.config, key);
            if (same(x, y)) continue;
            out.push_back({group.aspect, std::string(key), value_text(x), value_text(y), true});
            rate_said = rate_said || std::string_view(group.aspect) == "rate";
        }
    }
    // A sweep's stages record the sweep's flags: only their offered rate tells
    // them apart. A shard offers its share, so shards of one run agree; a trace's
    // rate is measured on its part, so it is left to the trace flags above.
    const bool trace = a.config.contains("trace") || b.config.contains("trace");
    const double ra = a.request_rate, rb = b.request_rate;
    if (!rate_said && !trace && std::abs(ra - rb) > 1e-9 * std::max(std::abs(ra), std::abs(rb)))
        out.push_back({"rate", "request_rate", rate_with_unit(ra), rate_with_unit(rb), true});
    return out;
}

bool any_workload_difference(const std::vector<run_difference>& differences) {
    for (const run_difference& d : differences)
        if (d.workload) return true;
    return false;
}

std::string differences_text(const std::vector<run_difference>& differences) {
    std::string text;
    for (const run_difference& d : differences) {
        if (!text.empty()) text += "; ";
        text += d.aspect + ": ";
        if (d.field != d.aspect) text += d.field + " ";
        text += d.first + " vs " + d.second;
    }
    return text;
}

boost::json::array differences_json(const std::vector<run_difference>& differences) {
    json::array out;
    for (const run_difference& d : differences)
        out.push_back(json::object{
            {"aspect", d.aspect}, {"field", d.field}, {"first", d.first}, {"second", d.second}, {"workload", d.workload}});
    return out;
}

}  // namespace openloop
