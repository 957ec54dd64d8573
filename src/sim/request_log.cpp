#include "openloop/sim/request_log.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace openloop {

namespace json = boost::json;

sim_request_log::sim_request_log(const std::string& path) {
    if (path.empty()) return;
    out_.open(path, std::ios::out | std::ios::trunc);
    if (!out_) throw std::runtime_error("sim: cannot open log file " + path);
}

void sim_request_log::write(const log_record& r) {
    if (!out_.is_open()) return;
    json::object o{{"request_id", r.request_id},
                   {"endpoint", r.endpoint},
                   {"stream", r.stream},
                   {"first_byte_ns", r.first_byte_ns},
                   {"arrival_ns", r.arrival_ns},
                   {"body_bytes", r.body_bytes},
                   {"first_token_ns", r.first_token_ns},
                   {"first_answer_ns", r.first_answer_ns},
                   {"last_token_ns", r.last_token_ns},
                   {"end_ns", r.end_ns},
                   {"prompt_tokens", r.prompt_tokens},
                   {"completion_tokens", r.completion_tokens},
                   {"cached_tokens", r.cached_tokens},
                   {"reasoning_tokens", r.reasoning_tokens},
                   {"tool_call", r.tool_call},
                   {"status", r.status},
                   {"fault", fault_name(r.injected)},
                   {"outcome", r.outcome}};
    if (r.media.images > 0) {
        o["images"] = r.media.images;
        o["image_tokens"] = r.media.image_tokens;
    }
    if (r.media.audios > 0) {
        o["audios"] = r.media.audios;
        o["audio_tokens"] = r.media.audio_tokens;
    }
    if (!r.model.empty()) o["model"] = r.model;
    if (!r.session_id.empty()) o["session_id"] = r.session_id;
    if (!r.traceparent.empty()) o["traceparent"] = r.traceparent;
    if (r.content) {
        json::error_code ec;
        const json::value body = json::parse(r.body, ec);
        const json::object* request = ec ? nullptr : body.if_object();
        for (const char* key : {"messages", "prompt", "tools"})
            if (const json::value* v = request ? request->if_contains(key) : nullptr) o[key] = *v;
        o["output"] = r.output;
        if (!r.reasoning.empty()) o["reasoning"] = r.reasoning;
        if (r.tool_call) {
            json::array& calls = o["tool_calls"].emplace_array();
            for (const log_record::call& c : r.tool_calls)
                calls.push_back(json::object{{"id", c.id},
                                             {"type", "function"},
                                             {"function", json::object{{"name", c.name}, {"arguments", c.arguments}}}});
        }
    }
    out_ << json::serialize(o) << '\n';
    out_.flush();  // the log is read while the server runs (tests, tail -f)
}

void sim_request_log::flush() {
    if (out_.is_open()) out_.flush();
}

}  // namespace openloop
