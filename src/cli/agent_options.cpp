#include "openloop/cli/agent_options.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/load/text_file.hpp"

#include <boost/json.hpp>

#include <cctype>
#include <filesystem>
#include <optional>
#include <string>

namespace openloop {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

// Bounds that keep a body and a session's request indexes (turns * (1 + steps)) sane.
constexpr int most_tools = 1024;
constexpr int most_tool_steps = 100;

// --response-format json_schema:FILE: the file is the schema itself, or OpenAI's
// json_schema object ({"name", "schema", "strict"}) as it is.
json::value schema_format(const std::string& file) {
    json::value doc;
    try {
        doc = parse_json_text(read_text_file(file, "--response-format json_schema"), file);
    } catch (const input_error& e) {
        throw usage_error(std::string("--response-format: ") + e.what());
    }
    if (!doc.is_object()) throw usage_error("--response-format: " + file + " is not a JSON object (a JSON schema)");
    if (json::serialize(doc).find("@@openloop-") != std::string::npos)
        throw usage_error("--response-format: " + file + " may not contain \"@@openloop-\": openloop marks its own fields with it");
    json::object spec;
    if (doc.as_object().contains("schema")) {
        spec = doc.as_object();
    } else {
        spec["schema"] = doc;
    }
    if (!spec.contains("name")) {
        // OpenAI takes names of [a-zA-Z0-9_-]: the file's stem, made one.
        std::string name = std::filesystem::path(file).stem().string();
        for (char& ch : name)
            if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-') ch = '_';
        spec["name"] = name.empty() ? "schema" : name;
    }
    return json::object{{"type", "json_schema"}, {"json_schema", std::move(spec)}};
}

void fill_tools(const po::variables_map& vm, run_options& o) {
    const bool sessions = vm.count("turns") || vm.count("conversations") || vm.count("trace");
    const int count = vm["tools"].as<int>();
    if (count == 0) {
        for (const char* flag : {"tool-schema-len", "tool-choice", "tool-latency", "tool-result-len", "max-tool-steps"})
            if (!vm[flag].defaulted()) throw usage_error(std::string("--") + flag + " needs --tools N (the functions sent)");
        return;
    }
    if (count < 0 || count > most_tools)
        throw usage_error("--tools must be 0 to " + std::to_string(most_tools) + " functions, got " + std::to_string(count));
    if (o.endpoint != endpoint_kind::chat)
        throw usage_error("--tools needs --endpoint chat: tools, tool calls and tool results are chat completions' messages");
    tool_config& t = o.tools;
    t.count = count;
    t.schema_len = vm["tool-schema-len"].as<int>();
    if (t.schema_len < 1) throw usage_error("--tool-schema-len must be at least 1 token (each function's description)");
    t.choice = vm["tool-choice"].as<std::string>();
    if (t.choice != "auto" && t.choice != "required" && t.choice != "none") {
        const std::string prefix = "tool_";
        const std::string number = t.choice.rfind(prefix, 0) == 0 ? t.choice.substr(prefix.size()) : "";
        const bool named = !number.empty() && number.find_first_not_of("0123456789") == std::string::npos &&
                           number.size() <= 4 && std::stoi(number) < count && (number == "0" || number[0] != '0');
        if (!named)
            throw usage_error("--tool-choice must be auto, required, none or a function's name (tool_0 to tool_" +
                              std::to_string(count - 1) + " with --tools " + std::to_string(count) + "), got '" +
                              t.choice + "'");
    }
    try {
        t.latency = duration_dist::parse(vm["tool-latency"].as<std::string>(), "--tool-latency");
        t.result_len = length_dist::parse(vm["tool-result-len"].as<std::string>(), "--tool-result-len");
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
    t.max_steps = vm["max-tool-steps"].as<int>();
    if (t.max_steps < 0 || t.max_steps > most_tool_steps)
        throw usage_error("--max-tool-steps must be 0 to " + std::to_string(most_tool_steps) + ", got " +
                          std::to_string(t.max_steps));
    if (!sessions) {
        for (const char* flag : {"tool-latency", "tool-result-len", "max-tool-steps"})
            if (!vm[flag].defaulted())
                throw usage_error(std::string("--") + flag + " shapes a session's tool loop: give --turns or "
                                  "--conversations (without sessions a tool call ends its request)");
    }
}

}  // namespace

po::options_description agent_options() {
    po::options_description a("Agents and reasoning models", help_width, help_width / 2);
    a.add_options()
        ("tools", po::value<int>()->default_value(0),
         "send N function schemas as \"tools\" with every request (chat only): tool_0 ... tool_N-1, each a "
         "description of --tool-schema-len tokens and one string parameter. The server counts them as prompt "
         "tokens (a prefix shared by every request): how many is learned before the run from two max_tokens 1 "
         "requests' usage and counted in each request's intended input tokens. In a "
         "session (--turns, --conversations), an answer that calls a tool is followed, --tool-latency later, by "
         "a request carrying the whole history, the assistant's tool call exactly as streamed and the tool's "
         "result, and no new user message, up to --max-tool-steps times before the next user turn: an agent's "
         "loop, whose chain the session latency times. Without sessions a tool call ends its request")
        ("tool-schema-len", po::value<int>()->default_value(64), "tokens of each function's description")
        ("tool-choice", po::value<std::string>()->default_value("auto"),
         "sent as \"tool_choice\": auto (the model decides), required (always call), none (never) or a "
         "function's name, e.g. tool_0 (always call that one)")
        ("tool-latency", po::value<std::string>()->default_value("0"),
         "a tool's run time in a session: from a tool-call answer's end to the request with its result (not "
         "--think-time): DURATION, uniform:MIN:MAX, exponential:MEAN or lognormal:MEDIAN:SIGMA")
        ("tool-result-len", po::value<std::string>()->default_value("64"),
         "tokens of each tool result (the tool message's content), --input-len's syntax")
        ("max-tool-steps", po::value<int>()->default_value(8),
         "tool results a user turn sends at most; an answer still calling a tool after them ends the turn (its "
         "result kept in the history) and the session goes on; how many did is printed at the end")
        ("response-format", po::value<std::string>(),
         "structured output, sent as \"response_format\" (chat and completions): json_object, or "
         "json_schema:FILE, FILE a JSON schema (or OpenAI's json_schema object with name and schema)")
        ("reasoning-effort", po::value<std::string>(),
         "minimal, low, medium, high or none: sent as \"reasoning_effort\" (a Responses request's "
         "\"reasoning\": {\"effort\"}), for reasoning models (gpt-oss, OpenAI's); see the time to first "
         "answer token (ttfa) in the report. Most open models switch thinking with their chat template "
         "instead: --extra-body '{\"chat_template_kwargs\": {\"enable_thinking\": false}}' (Qwen3, GLM; "
         "docs/reasoning.md has each family's)")
        ("reasoning-parser", po::value<std::string>()->default_value("auto"),
         "how a stream's thinking is told from its answer when the server streams it inside the content (no "
         "reasoning parser: llama.cpp without --reasoning-format, many gateways, older Ollama): auto reads "
         "<think>...</think> in a stream whose first content opens with <think>; think-tags reads every "
         "stream's content as thinking up to </think>, opening tag or not (a chat template that opens it in "
         "the prompt, as DeepSeek-R1's, streams only the closing tag); none reads content as answer. Thinking "
         "in the server's own fields (reasoning, reasoning_content) is read whatever this says");
    return a;
}

void fill_agent(const po::variables_map& vm, run_options& o) {
    fill_tools(vm, o);
    if (vm.count("response-format")) {
        const std::string format = vm["response-format"].as<std::string>();
        if (o.endpoint != endpoint_kind::chat && o.endpoint != endpoint_kind::completions)
            throw usage_error("--response-format is chat and completions' response_format; with --endpoint " +
                              std::string(to_string(o.endpoint)) + " give the field with --extra-body");
        const std::string schema_prefix = "json_schema:";
        if (format == "json_object") {
            o.response_format = json::object{{"type", "json_object"}};
        } else if (format.rfind(schema_prefix, 0) == 0 && format.size() > schema_prefix.size()) {
            o.response_format = schema_format(format.substr(schema_prefix.size()));
        } else {
            throw usage_error("--response-format must be json_object or json_schema:FILE, got '" + format + "'");
        }
    }
    const std::string parser = vm["reasoning-parser"].as<std::string>();
    const std::optional<reasoning_parser> p = reasoning_parser_from(parser);
    if (!p) throw usage_error("--reasoning-parser must be auto, think-tags or none, got '" + parser + "'");
    o.thinking_parser = *p;
    if (vm.count("reasoning-effort")) {
        const std::string effort = vm["reasoning-effort"].as<std::string>();
        if (effort != "minimal" && effort != "low" && effort != "medium" && effort != "high" && effort != "none")
            throw usage_error("--reasoning-effort must be minimal, low, medium, high or none, got '" + effort + "'");
        if (o.endpoint == endpoint_kind::embeddings || o.endpoint == endpoint_kind::transcriptions)
            throw usage_error("--reasoning-effort shapes a model's answer; --endpoint " + std::string(to_string(o.endpoint)) +
                              " sends none");
        o.reasoning_effort = effort;
    }
}

}  // namespace openloop
