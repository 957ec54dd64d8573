#include "openloop/load/tools.hpp"

#include "openloop/base/random.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/load/usage_probe.hpp"

#include <boost/json/object.hpp>

namespace openloop {

namespace json = boost::json;

namespace {

constexpr std::uint64_t schema_salt = 0x6a09e667f3bcc908ULL;
constexpr std::uint64_t result_salt = 0x3c6ef372fe94f82bULL;

}  // namespace

json::array tool_schemas(int count, int schema_len, std::uint64_t seed) {
    json::array tools;
    for (int k = 0; k < count; ++k) {
        std::string description;
        append_words(description, schema_len, mix64(seed ^ schema_salt) + static_cast<std::uint64_t>(k));
        json::object query{{"type", "string"}, {"description", "what to look up"}};
        json::object parameters{{"type", "object"},
                                {"properties", json::object{{"query", std::move(query)}}},
                                {"required", json::array{"query"}}};
        tools.push_back(json::object{
            {"type", "function"},
            {"function", json::object{{"name", "tool_" + std::to_string(k)},
                                      {"description", std::move(description)},
                                      {"parameters", std::move(parameters)}}}});
    }
    return tools;
}

json::value tool_choice_value(std::string_view choice) {
    if (choice == "auto" || choice == "required" || choice == "none") return json::string(choice);
    return json::object{{"type", "function"}, {"function", json::object{{"name", choice}}}};
}

tools_probe tools_probe_calls(std::string_view api_base, std::string_view model, const json::array& tools,
                              const json::value& choice, const json::object& extra) {
    constexpr std::string_view text = "the model answer";
    json::object with_tools = extra;
    // --extra-body's tools win in the run's bodies, so in the probe's too.
    if (!extra.contains("tools")) {
        with_tools["tools"] = tools;
        if (!extra.contains("tool_choice")) with_tools["tool_choice"] = choice;
    }
    return {usage_probe_call(api_base, model, text, true, extra), usage_probe_call(api_base, model, text, true, with_tools)};
}

void tool_result_text(std::string& out, int tokens, std::uint64_t seed) {
    out.clear();
    append_words(out, tokens, mix64(seed ^ result_salt));
}

}  // namespace openloop
