#include "openloop/sim/transcription_form.hpp"

#include "openloop/base/trim.hpp"
#include "openloop/sim/lora_slots.hpp"
#include "openloop/sim/media_parts.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace openloop {

namespace http = boost::beast::http;

namespace {

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// The value of parameter key in a header value's "; key=value" list, quotes removed.
std::optional<std::string_view> parameter(std::string_view value, std::string_view key) {
    std::size_t at = value.find(';');
    while (at != std::string_view::npos) {
        std::string_view rest = value.substr(at + 1);
        const std::size_t next = rest.find(';');
        const std::string_view item = trim(rest.substr(0, next));
        const std::size_t eq = item.find('=');
        if (eq != std::string_view::npos && iequals(trim(item.substr(0, eq)), key)) {
            std::string_view v = trim(item.substr(eq + 1));
            if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
            return v;
        }
        at = next == std::string_view::npos ? next : at + 1 + next;
    }
    return std::nullopt;
}

struct form_part {
    std::string_view name;
    std::string_view value;
};

// The parts of a multipart body between "--boundary" lines; false with err when it is cut or malformed.
bool split_form(std::string_view body, std::string_view boundary, std::vector<form_part>& parts, std::string& err) {
    const std::string delimiter = "--" + std::string(boundary);
    std::size_t at = body.find(delimiter);
    if (at == std::string_view::npos) {
        err = "the body holds no --" + std::string(boundary) + " line";
        return false;
    }
    const std::string next_delimiter = "\r\n" + delimiter;
    while (true) {
        at += delimiter.size();
        if (body.substr(at, 2) == "--") return true;  // the closing delimiter
        if (body.substr(at, 2) != "\r\n") {
            err = "a boundary line is not followed by CRLF";
            return false;
        }
        at += 2;
        const std::size_t head_end = body.find("\r\n\r\n", at);
        if (head_end == std::string_view::npos) {
            err = "part " + std::to_string(parts.size() + 1) + "'s headers do not end";
            return false;
        }
        form_part p;
        for (std::string_view headers = body.substr(at, head_end - at); !headers.empty();) {
            const std::size_t eol = headers.find("\r\n");
            const std::string_view line = headers.substr(0, eol);
            headers = eol == std::string_view::npos ? std::string_view{} : headers.substr(eol + 2);
            const std::size_t colon = line.find(':');
            if (colon != std::string_view::npos && iequals(trim(line.substr(0, colon)), "content-disposition"))
                p.name = parameter(line.substr(colon + 1), "name").value_or("");
        }
        const std::size_t value_at = head_end + 4;
        const std::size_t end = body.find(next_delimiter, value_at);
        if (end == std::string_view::npos) {
            err = "part " + std::to_string(parts.size() + 1) + " has no closing boundary";
            return false;
        }
        p.value = body.substr(value_at, end - value_at);
        parts.push_back(p);
        at = end + 2;
    }
}

// A form's boolean as FastAPI reads one; nullopt for anything else.
std::optional<bool> form_bool(std::string_view v) {
    for (std::string_view t : {"true", "1", "yes", "on"})
        if (iequals(v, t)) return true;
    for (std::string_view f : {"false", "0", "no", "off"})
        if (iequals(v, f)) return false;
    return std::nullopt;
}

}  // namespace

std::optional<api_error> parse_transcription(std::string_view content_type, std::string_view body,
                                             const sim_config& cfg, completion_request& r) {
    const std::string_view media_type = trim(content_type.substr(0, content_type.find(';')));
    const auto boundary = parameter(content_type, "boundary");
    if (!iequals(media_type, "multipart/form-data") || !boundary || boundary->empty())
        return bad_request("A transcription is sent as multipart/form-data with a boundary, got Content-Type '" +
                           std::string(content_type) + "'");
    std::vector<form_part> parts;
    std::string err;
    if (!split_form(body, *boundary, parts, err)) return bad_request("Invalid multipart form: " + err);

    r.chat = true;  // answered in chat's delta shape, as vLLM's transcription.chunk is
    r.tools.thinking = false;  // a speech model hears, it does not think
    std::optional<std::string_view> file;
    for (const form_part& p : parts) {
        if (p.name == "file") {
            file = p.value;
        } else if (p.name == "model") {
            const std::optional<int> a = adapter_of(p.value, cfg.served_model_name, cfg.lora_modules);
            if (!a)
                return api_error{http::status::not_found, "NotFoundError",
                                 "The model `" + std::string(p.value) + "` does not exist."};
            r.adapter = *a;
        } else if (p.name == "stream" || p.name == "stream_include_usage" || p.name == "stream_continuous_usage_stats") {
            const std::optional<bool> b = form_bool(p.value);
            if (!b) return bad_request(std::string(p.name) + ": a boolean is required, got '" + std::string(p.value) + "'");
            (p.name == "stream" ? r.stream : p.name == "stream_include_usage" ? r.include_usage : r.continuous_usage) = *b;
        } else if (p.name == "response_format") {
            if (p.value != "json")
                return bad_request("response_format: the simulator answers json only, got '" + std::string(p.value) + "'");
        } else if (p.name == "temperature") {
            double t = 0;
            const auto [end, ec] = std::from_chars(p.value.data(), p.value.data() + p.value.size(), t);
            if (ec != std::errc{} || end != p.value.data() + p.value.size() || !std::isfinite(t) || t < 0)
                return bad_request("temperature: a non-negative number is required, got '" + std::string(p.value) + "'");
            r.temperature = t;
        }
    }
    if (!file) return bad_request("file: Field required (the audio clip's part)");

    media_reader media{cfg.media, static_cast<std::size_t>(cfg.model.max_model_len) + 1};
    double seconds = 0;
    if (!append_audio_file(media, *file, r.token_ids, seconds, err)) return bad_request(err);
    r.media = media.count;
    r.audio_seconds = seconds;
    r.prompt_tokens = static_cast<int>(r.token_ids.size());
    const std::int64_t heard = std::max<std::int64_t>(1, std::llround(seconds * transcript_tokens_per_s));
    if (media.unplaced > 0 || r.prompt_tokens + heard > cfg.model.max_model_len)
        return bad_request("This model's maximum context length is " + std::to_string(cfg.model.max_model_len) +
                           " tokens. However, the clip needs " +
                           std::to_string(r.prompt_tokens + media.unplaced + heard) + " tokens.");
    r.max_tokens = static_cast<int>(heard);
    r.ignore_eos = true;  // the transcript ends where the speech does: exactly `heard` tokens
    return std::nullopt;
}

std::string transcription_response(std::string_view text, double seconds) {
    namespace json = boost::json;
    return json::serialize(json::object{
        {"text", text},
        {"usage", json::object{{"type", "duration"}, {"seconds", static_cast<std::int64_t>(std::ceil(seconds))}}}});
}

}  // namespace openloop
