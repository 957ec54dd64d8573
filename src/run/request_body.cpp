#include "openloop/run/request_body.hpp"

#include "openloop/load/session.hpp"
#include "openloop/base/json_text.hpp"

#include <boost/json.hpp>

#include <charconv>
#include <utility>

namespace openloop {

namespace json = boost::json;

namespace {

// Stand-ins serialized into the template, then cut out: with the quotes
// around them for values that are not strings.
constexpr std::string_view prompt_mark = "@@openloop-prompt@@";
constexpr std::string_view ids_mark = "\"@@openloop-ids@@\"";
constexpr std::string_view max_mark = "\"@@openloop-max-tokens@@\"";
// Before the user's message, with the comma that follows it.
constexpr std::string_view history_mark = "\"@@openloop-history@@\",";
// The whole message list of a tool result's request.
constexpr std::string_view all_history_mark = "\"@@openloop-all-history@@\"";
// After the text part of a user message's content, with the comma before it.
constexpr std::string_view media_mark = ",\"@@openloop-media@@\"";

void append_int(std::string& out, std::int64_t v) {
    char digits[24];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
    out.append(digits, end);
}

void append_string(std::string& out, std::string_view s) {
    out.push_back('"');
    append_json_escaped(out, s);
    out.push_back('"');
}

// One message as OpenAI's chat API takes it: text, an assistant's tool calls
// (content null, each call as it streamed), or a tool's result for a call.
void append_message(std::string& out, const chat_message& m) {
    out.append(R"({"role":")").append(m.role);
    if (!m.calls.empty()) {
        out.append(R"(","content":null,"tool_calls":[)");
        for (std::size_t i = 0; i < m.calls.size(); ++i) {
            if (i > 0) out.push_back(',');
            out.append(R"({"id":)");
            append_string(out, m.calls[i].id);
            out.append(R"(,"type":"function","function":{"name":)");
            append_string(out, m.calls[i].name);
            out.append(R"(,"arguments":)");
            append_string(out, m.calls[i].arguments);
            out.append("}}");
        }
        out.append("]}");
        return;
    }
    if (m.role == "tool") {
        out.append(R"(","tool_call_id":)");
        append_string(out, m.call_id);
        out.append(R"(,"content":)");
    } else {
        out.append(R"(","content":)");
    }
    append_string(out, m.text);
    out.push_back('}');
}

}  // namespace

request_body::request_body(body_options o)
    : o_(std::move(o)),
      chat_(o_.endpoint == endpoint_kind::chat),
      responses_(o_.endpoint == endpoint_kind::responses),
      embeddings_(o_.endpoint == endpoint_kind::embeddings),
      transcriptions_(o_.endpoint == endpoint_kind::transcriptions) {}

void request_body::generation_fields(json::object& body) const {
    body[responses_ ? "max_output_tokens" : "max_tokens"] = max_mark.substr(1, max_mark.size() - 2);
    if (!o_.extra_body.contains("temperature")) body["temperature"] = o_.temperature;
    if (o_.sampling_seed >= 0 && !o_.extra_body.contains("seed")) body["seed"] = o_.sampling_seed;
    if (o_.ignore_eos) {
        // min_tokens holds the length where a server honours it but not ignore_eos.
        body["ignore_eos"] = true;
        if (!o_.extra_body.contains("min_tokens")) body["min_tokens"] = max_mark.substr(1, max_mark.size() - 2);
    }
    if (!o_.reasoning_effort.empty()) {
        if (!responses_ && !o_.extra_body.contains("reasoning_effort")) body["reasoning_effort"] = o_.reasoning_effort;
        if (responses_ && !o_.extra_body.contains("reasoning"))
            body["reasoning"] = json::object{{"effort", o_.reasoning_effort}};
    }
    if (!o_.response_format.is_null() && !o_.extra_body.contains("response_format"))
        body["response_format"] = o_.response_format;
    if (!o_.tools.empty() && !o_.extra_body.contains("tools")) {
        body["tools"] = o_.tools;
        if (!o_.tool_choice.is_null() && !o_.extra_body.contains("tool_choice")) body["tool_choice"] = o_.tool_choice;
    }
    // A non-streamed answer carries its usage anyway: stream_options would be refused.
    body["stream"] = o_.stream;
    // A Responses stream always ends with its usage, in response.completed: it has no stream_options for it.
    if (!o_.stream || responses_) return;
    json::object so{{"include_usage", true}};
    if (o_.continuous_usage) so["continuous_usage_stats"] = true;
    if (!o_.extra_body.contains("stream_options")) body["stream_options"] = std::move(so);
}

request_body::body_template request_body::make_template(const std::string& model, shape s) const {
    const bool ids = s == shape::ids;
    json::object body = o_.extra_body;
    body["model"] = model;
    if (embeddings_) {
        // Nothing is generated: no lengths, sampling or stream options to send.
        body["input"] = ids ? ids_mark.substr(1, ids_mark.size() - 2) : prompt_mark;
    } else if (responses_) {
        // The prompt as the one user message's text, which the server renders with the chat template.
        body["input"] = prompt_mark;
    } else if (chat_) {
        json::array messages;
        if (!o_.system_prompt.empty()) messages.push_back(json::object{{"role", "system"}, {"content", o_.system_prompt}});
        if (s == shape::tool_result) {
            messages.emplace_back(all_history_mark.substr(1, all_history_mark.size() - 2));
        } else {
            messages.emplace_back(history_mark.substr(1, history_mark.size() - 3));
            json::value content(prompt_mark);
            if (s == shape::media)
                content = json::array{json::object{{"type", "text"}, {"text", prompt_mark}},
                                      media_mark.substr(2, media_mark.size() - 3)};
            messages.push_back(json::object{{"role", "user"}, {"content", std::move(content)}});
        }
        body["messages"] = std::move(messages);
    } else if (ids) {
        body["prompt"] = ids_mark.substr(1, ids_mark.size() - 2);
    } else {
        body["prompt"] = prompt_mark;
    }
    if (!embeddings_) generation_fields(body);

    const std::string text = json::serialize(body);
    body_template out;
    std::size_t at = 0;
    for (;;) {
        struct mark {
            std::string_view text;
            slot fill;
        };
        const mark marks[] = {{prompt_mark, slot::prompt_text}, {ids_mark, slot::prompt_ids}, {max_mark, slot::max_tokens},
                              {history_mark, slot::history}, {all_history_mark, slot::all_history},
                              {media_mark, slot::media}};
        std::size_t next = std::string::npos;
        const mark* found = nullptr;
        for (const mark& m : marks) {
            const std::size_t p = text.find(m.text, at);
            if (p < next) {
                next = p;
                found = &m;
            }
        }
        if (!found) {
            out.push_back({text.substr(at), slot::end});
            return out;
        }
        out.push_back({text.substr(at, next - at), found->fill});
        at = next + found->text.size();
    }
}

void request_body::append_media(std::string& out, const request_spec& spec, std::vector<body_splice>* splices) const {
    for (const std::uint32_t i : spec.media) {
        const media_item& m = o_.media->item(i);
        const bool image = m.type == media_item::kind::image;
        out.append(image ? R"(,{"type":"image_url","image_url":{"url":")" : R"(,{"type":"input_audio","input_audio":{"data":")");
        if (splices)
            splices->push_back({out.size(), m.payload});
        else
            out.append(m.payload);
        out.append(image ? R"("}})" : R"(","format":"wav"}})");
    }
}

void request_body::append_transcription(std::string& out, const request_spec& spec, const std::string& model,
                                        std::vector<body_splice>* splices) const {
    const auto field = [&out](std::string_view name, std::string_view value) {
        out.append("--").append(multipart_boundary).append("\r\nContent-Disposition: form-data; name=\"");
        out.append(name).append("\"\r\n\r\n").append(value).append("\r\n");
    };
    for (const std::uint32_t i : spec.media) {
        const media_item& m = o_.media->item(i);
        out.append("--").append(multipart_boundary);
        out.append("\r\nContent-Disposition: form-data; name=\"file\"; filename=\"clip.wav\"\r\n"
                   "Content-Type: audio/wav\r\n\r\n");
        if (splices)
            splices->push_back({out.size(), m.payload});
        else
            out.append(m.payload);
        out.append("\r\n");
    }
    field("model", model);
    const std::string_view stream = o_.stream ? "true" : "false";
    field("stream", stream);
    if (o_.stream) {
        field("stream_include_usage", "true");
        field("stream_continuous_usage_stats", o_.continuous_usage ? "true" : "false");
    }
    field("response_format", "json");
    out.append("--").append(multipart_boundary).append("--\r\n");
}

void request_body::append(std::string& out, const request_spec& spec, const std::string& model,
                          std::vector<body_splice>* splices) const {
    if (transcriptions_) {
        append_transcription(out, spec, model, splices);
        return;
    }
    if (spec.model >= per_model_.size()) per_model_.resize(spec.model + 1u);
    model_templates& t = per_model_[spec.model];
    if (t.text.empty() || model != t.model) {
        t.model = model;
        t.text = make_template(model, shape::text);
        t.ids = text_only() ? body_template{} : make_template(model, shape::ids);
        t.tool_result = chat_ ? make_template(model, shape::tool_result) : body_template{};
        t.media = chat_ && o_.media ? make_template(model, shape::media) : body_template{};
    }
    const bool ids = !text_only() && !spec.prompt_ids.empty();
    const bool tool_result = chat_ && spec.tool_result;
    const bool media = !t.media.empty() && !tool_result && !spec.media.empty();
    for (const piece& p : tool_result ? t.tool_result : media ? t.media : ids ? t.ids : t.text) {
        out.append(p.text);
        switch (p.then) {
        case slot::end: break;
        case slot::prompt_text: append_json_escaped(out, spec.prompt); break;
        case slot::prompt_ids:
            out.push_back('[');
            for (std::size_t i = 0; i < spec.prompt_ids.size(); ++i) {
                if (i > 0) out.push_back(',');
                append_int(out, spec.prompt_ids[i]);
            }
            out.push_back(']');
            break;
        case slot::max_tokens: append_int(out, spec.max_tokens); break;
        case slot::history:
            if (!spec.history) break;
            for (std::size_t i = 0; i < spec.history->size(); ++i) {
                append_message(out, (*spec.history)[i]);
                out.push_back(',');
            }
            break;
        case slot::all_history:
            if (!spec.history) break;
            for (std::size_t i = 0; i < spec.history->size(); ++i) {
                if (i > 0) out.push_back(',');
                append_message(out, (*spec.history)[i]);
            }
            break;
        case slot::media: append_media(out, spec, splices); break;
        }
    }
}

std::string request_body::json(const request_spec& spec, const std::string& model) const {
    std::string out;
    out.reserve(spec.prompt.size() + spec.prompt_ids.size() * 7 + 256);
    append(out, spec, model);
    return out;
}

}  // namespace openloop
