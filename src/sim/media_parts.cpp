#include "openloop/sim/media_parts.hpp"

#include "openloop/base/random.hpp"
#include "openloop/media/base64.hpp"
#include "openloop/media/media_header.hpp"
#include "openloop/sim/sim_tokenizer.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <iterator>

namespace openloop {

namespace json = boost::json;

namespace {

// vLLM's part types (chat_utils' MM_PARSER_MAP), for its error message.
constexpr const char* supported_types =
    "audio_embeds, audio_url, image_embeds, image_pil, image_url, input_audio, input_image, input_text, "
    "output_text, prompt_embeds, refusal, text, thinking, tool_reference, video_url";
// Those of them the simulator has no reader for.
constexpr std::string_view unserved_types[] = {"audio_embeds", "audio_url", "image_embeds", "image_pil",
                                               "input_image", "prompt_embeds", "video_url"};

// A hash of the encoded bytes, 8 characters at a time: equal media, equal placeholders.
std::uint64_t content_hash(std::string_view text) {
    std::uint64_t h = 0x6d656469615f6964ULL ^ text.size();
    std::size_t i = 0;
    for (; i + 8 <= text.size(); i += 8) {
        std::uint64_t w = 0;
        for (std::size_t k = 0; k < 8; ++k) w = w << 8 | static_cast<unsigned char>(text[i + k]);
        h = mix64(h ^ w);
    }
    for (; i < text.size(); ++i) h = mix64(h ^ static_cast<unsigned char>(text[i]));
    return h;
}

void place(media_reader& m, std::int64_t tokens, std::uint64_t h, std::vector<std::uint64_t>& ids) {
    for (std::int64_t k = 0; k < tokens; ++k) {
        if (ids.size() >= m.max_ids) {
            m.unplaced += tokens - k;
            return;
        }
        ids.push_back(sim_first_text_id + mix64(h ^ static_cast<std::uint64_t>(k)) % (sim_vocab_size - sim_first_text_id));
    }
    m.count.end = ids.size();
}

const json::value* member(const json::object& o, std::string_view key) { return o.if_contains(key); }

bool read_image(media_reader& m, const json::object& part, std::vector<std::uint64_t>& ids, std::string& err) {
    const json::value* image_url = member(part, "image_url");
    const json::value* url = image_url && image_url->is_object() ? member(image_url->get_object(), "url") : image_url;
    if (!url || !url->is_string()) {
        err = "image_url: an object with a url string is required";
        return false;
    }
    const std::string_view u = url->get_string();
    const auto scheme = u.substr(0, std::min(u.find(':'), u.size()));
    if (scheme == "http" || scheme == "https" || scheme == "file") {
        err = "The simulator cannot fetch " + std::string(scheme) +
              " URLs: send the image inline as a data URL (data:image/jpeg;base64,...)";
        return false;
    }
    if (scheme != "data") {
        err = "The URL must be either a HTTP, data or file URL.";
        return false;
    }
    const auto comma = u.find(',');
    if (comma == std::string_view::npos) {
        err = "Invalid data URL '" + std::string(u.substr(0, 32)) + "': missing ',' separator.";
        return false;
    }
    const std::string_view spec = u.substr(5, comma - 5);
    if (!spec.ends_with(";base64")) {
        err = "Only base64 data URLs are supported for now.";
        return false;
    }
    const std::string_view data = u.substr(comma + 1);
    const auto bytes = base64_view::make(data, err);
    if (!bytes) {
        err = "Failed to load image: " + err;
        return false;
    }
    const auto size = read_image_size(base64_source(*bytes), err);
    if (!size) {
        err = "Failed to load image: " + err;
        return false;
    }
    const auto& rule = m.rule.image;
    const double longer = static_cast<double>(std::max(size->width, size->height));
    const double ratio = longer / static_cast<double>(std::min(size->width, size->height));
    if (rule.rule == image_token_rule::kind::patch && ratio > max_aspect_ratio) {
        err = "absolute aspect ratio must be smaller than 200, got " + std::to_string(ratio);
        return false;
    }
    const std::int64_t tokens = image_tokens(rule, size->width, size->height);
    ++m.count.images;
    m.count.image_tokens += tokens;
    place(m, tokens, content_hash(data), ids);
    return true;
}

void add_audio(media_reader& m, double seconds, std::uint64_t h, std::vector<std::uint64_t>& ids) {
    const std::int64_t tokens = audio_tokens(m.rule, seconds);
    ++m.count.audios;
    m.count.audio_tokens += tokens;
    place(m, tokens, h, ids);
}

bool read_audio(media_reader& m, const json::object& part, std::vector<std::uint64_t>& ids, std::string& err) {
    const json::value* audio = member(part, "input_audio");
    const json::object* a = audio ? audio->if_object() : nullptr;
    const json::value* data = a ? member(*a, "data") : nullptr;
    const json::value* format = a ? member(*a, "format") : nullptr;
    if (!data || !data->is_string() || !format || !format->is_string()) {
        err = "input_audio: an object with data and format strings is required";
        return false;
    }
    if (format->get_string() != "wav") {
        err = "input_audio.format: the simulator reads WAV audio only (\"wav\"), got '" +
              std::string(format->get_string()) + "'";
        return false;
    }
    const auto bytes = base64_view::make(data->get_string(), err);
    if (!bytes) {
        err = "Failed to load audio: " + err;
        return false;
    }
    const auto wav = read_wav(base64_source(*bytes), err);
    if (!wav) {
        err = "Failed to load audio: " + err;
        return false;
    }
    add_audio(m, wav->seconds, content_hash(data->get_string()), ids);
    return true;
}

}  // namespace

bool append_audio_file(media_reader& m, std::string_view wav_bytes, std::vector<std::uint64_t>& ids, double& seconds,
                       std::string& err) {
    const auto wav = read_wav(span_source(wav_bytes), err);
    if (!wav) {
        err = "Invalid or unsupported audio file: " + err;
        return false;
    }
    seconds = wav->seconds;
    add_audio(m, seconds, content_hash(wav_bytes), ids);
    return true;
}

bool append_media_part(media_reader& m, const json::object& part, std::vector<std::uint64_t>& ids, std::string& err) {
    const json::value* type = member(part, "type");
    if (!type) {
        err = "Missing 'type' field in multimodal part.";
        return false;
    }
    if (!type->is_string()) {
        err = "Invalid 'type' field in multimodal part.";
        return false;
    }
    const std::string_view t = type->get_string();
    if (t == "image_url") return read_image(m, part, ids, err);
    if (t == "input_audio") return read_audio(m, part, ids, err);
    // Text without a text field, and parts that are not prompt text to a template.
    if (t == "text" || t == "input_text" || t == "output_text" || t == "refusal" || t == "thinking" ||
        t == "tool_reference")
        return true;
    if (std::find(std::begin(unserved_types), std::end(unserved_types), t) != std::end(unserved_types)) {
        err = "Chat content part type '" + std::string(t) +
              "' is not served by the simulator (it reads text, image_url and input_audio parts)";
        return false;
    }
    err = "Unsupported chat content part type: '" + std::string(t) + "'. Supported types: " + supported_types + ".";
    return false;
}

}  // namespace openloop
