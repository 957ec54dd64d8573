#include "openloop/load/trace_columns.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/trim.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

namespace openloop {
namespace {

constexpr std::string_view syntax =
    "time=NAME[:s|ms|us|ns|iso],input=NAME,output=NAME[,prompt=NAME][,session=NAME][,prefix=NAME]";

input_error spec_error(std::string_view spec, const std::string& what) {
    return input_error("--trace-columns " + quoted_value(spec) + ": " + what + " (expected " + std::string(syntax) + ")");
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : "|") + n;
    return out;
}

}  // namespace

trace_format parse_trace_format(std::string_view name) {
    for (trace_format f : {trace_format::auto_detect, trace_format::mooncake, trace_format::azure,
                           trace_format::burstgpt, trace_format::openloop})
        if (name == to_string(f)) return f;
    throw input_error("invalid trace format " + quoted_value(name) + ": expected one of " + std::string(trace_format_names) +
                      ", or --trace-columns for any other CSV or JSONL log");
}

std::string_view to_string(trace_format format) {
    switch (format) {
        case trace_format::auto_detect: return "auto";
        case trace_format::mooncake: return "mooncake";
        case trace_format::azure: return "azure";
        case trace_format::burstgpt: return "burstgpt";
        case trace_format::openloop: return "openloop";
        case trace_format::columns: return "columns";
    }
    return "unknown";
}

trace_columns parse_trace_columns(std::string_view spec) {
    trace_columns c;
    const std::array<std::pair<std::string_view, std::vector<std::string>*>, 6> keys{{
        {"time", &c.time},
        {"input", &c.input},
        {"output", &c.output},
        {"prompt", &c.prompt},
        {"session", &c.session},
        {"prefix", &c.prefix},
    }};
    std::string_view rest = spec;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (item.empty()) throw spec_error(spec, "an empty item");
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) throw spec_error(spec, "item " + quoted_value(item) + " is not KEY=NAME");
        const std::string_view key = trim(item.substr(0, eq));
        std::string_view name = trim(item.substr(eq + 1));
        const auto slot = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == key; });
        if (slot == keys.end())
            throw spec_error(spec, "unknown key " + quoted_value(key) + " (time, input, output, prompt, session, prefix)");
        if (!slot->second->empty()) throw spec_error(spec, "key " + quoted_value(key) + " given twice");
        if (key == "time") {
            // The unit follows the last ':', so a name may hold colons itself.
            if (const std::size_t colon = name.rfind(':'); colon != std::string_view::npos) {
                const std::string_view unit = trim(name.substr(colon + 1));
                bool known = false;
                for (time_unit u : {time_unit::s, time_unit::ms, time_unit::us, time_unit::ns, time_unit::iso}) {
                    if (unit == to_string(u)) {
                        c.unit = u;
                        known = true;
                    }
                }
                if (!known) throw spec_error(spec, "unknown time unit " + quoted_value(unit) + " (s, ms, us, ns, iso)");
                name = trim(name.substr(0, colon));
            }
        }
        if (name.empty()) throw spec_error(spec, "key " + quoted_value(key) + " names no column");
        slot->second->emplace_back(name);
    }
    if (c.time.empty()) throw spec_error(spec, "no time=NAME");
    if (c.output.empty()) throw spec_error(spec, "no output=NAME");
    if (c.input.empty() && c.prompt.empty()) throw spec_error(spec, "neither input=NAME nor prompt=NAME");
    return c;
}

std::string to_string(const trace_columns& c) {
    std::string out = "time=" + joined(c.time) + ":" + std::string(to_string(c.unit));
    for (const auto& [key, names] : {std::pair{"input", &c.input}, std::pair{"output", &c.output},
                                     std::pair{"prompt", &c.prompt}, std::pair{"session", &c.session},
                                     std::pair{"prefix", &c.prefix}})
        if (!names->empty()) out += std::string(",") + key + "=" + joined(*names);
    return out;
}

trace_columns preset_columns(trace_format format) {
    trace_columns c;
    switch (format) {
        case trace_format::mooncake:
            c.time = {"timestamp"};
            c.unit = time_unit::ms;
            c.input = {"input_length"};
            c.output = {"output_length"};
            c.prefix = {"hash_ids"};
            c.prefix_optional = true;
            break;
        case trace_format::azure:
            // Wall clock without a zone, "2023-11-16 18:15:46.6805900".
            c.time = {"TIMESTAMP"};
            c.unit = time_unit::iso;
            c.input = {"ContextTokens"};
            c.output = {"GeneratedTokens"};
            break;
        case trace_format::burstgpt:
            c.time = {"Timestamp"};
            c.input = {"Request tokens"};
            c.output = {"Response tokens"};
            break;
        case trace_format::openloop:
            // requests.jsonl is written at completion: intended_ns is the send
            // time asked for; output_tokens what came back, else max_tokens.
            c.time = {"intended_ns", "t_ns"};
            c.unit = time_unit::ns;
            c.input = {"input_tokens"};
            c.output = {"output_tokens", "max_tokens"};
            c.prefix = {"hash_ids"};
            c.prefix_optional = true;
            c.session = {"session"};
            c.session_optional = true;
            break;
        case trace_format::auto_detect:
        case trace_format::columns:
            throw std::invalid_argument("preset_columns: " + std::string(to_string(format)) + " is no preset");
    }
    return c;
}

}  // namespace openloop
