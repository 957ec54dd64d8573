#pragma once
// The JSON body every request sends, built ahead of its send time from what
// the workload asked (prompt or token ids, output length, a session's
// conversation so far before the new message) and how the run samples: the
// model, temperature and seed, ignore_eos (with min_tokens), the stream
// options that make servers report usage (or "stream": false), and
// --extra-body, whose fields win over ours. A Responses request sends the
// prompt as "input" text and max_output_tokens, and no stream options (its
// stream ends with its usage anyway). An embeddings request is only the
// model and the prompt as "input" (text, or token ids), and --extra-body.
// A chat request's messages start with the run's system prompt, when it has
// one, before a session's history. An agent's requests carry the run's tools and tool_choice, a session's
// history its tool calls and their results (a tool result's request ends
// with them: no new user message); response_format and reasoning_effort
// (a Responses request's reasoning.effort) are sent as given.
// A chat request with media (load/media.hpp) sends its user message's content
// as parts: the prompt's text, then its images' image_url parts, then its
// clips' input_audio parts; the payloads are the media set's, spliced in
// where they lie (or copied in, without a list of splices).
// A transcription request (vLLM's /v1/audio/transcriptions) is multipart/form-data:
// its one clip's WAV bytes as the part "file" (raw, spliced like chat's payloads),
// then model, the stream fields vLLM takes as form fields, and response_format json;
// it sends no prompt and no output length (the answer is what the model hears).
// Everything but the prompt and the lengths is the same for every request, so
// it is serialized once per model (of a --model mix) into a template and each request only fills
// in its own parts. Pure: no sockets, no clocks.

#include "openloop/load/media.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/run/endpoint.hpp"
#include "openloop/wire/request_writer.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// What of a run shapes its bodies (run/layer_options builds it from the run's options).
struct body_options {
    endpoint_kind endpoint = endpoint_kind::chat;
    bool stream = true;             // false: "stream": false (--no-stream)
    bool ignore_eos = false;        // with min_tokens = max_tokens
    double temperature = 0.0;
    std::int64_t sampling_seed = 0;  // sent as "seed"; < 0: not sent
    bool continuous_usage = true;    // stream_options.continuous_usage_stats
    // --extra-body, checked by cli/ (an object, without openloop's marks); its fields win.
    boost::json::object extra_body;
    std::string system_prompt;           // --system-prompt: a chat request's first message; empty: none
    boost::json::array tools;            // --tools' schemas (load/tools.hpp); empty: none (chat only)
    boost::json::value tool_choice;      // with tools; null: not sent
    boost::json::value response_format;  // null: not sent
    std::string reasoning_effort;        // empty: not sent
    std::shared_ptr<const media_set> media;  // what spec.media points into (chat, transcriptions); null: none
};

// The one boundary every transcription body's parts are split by: a generated
// clip's samples would have to spell it out to break a body.
inline constexpr std::string_view multipart_boundary = "openloop-form-7d1e5c3a9b2f4e60";

class request_body {
public:
    explicit request_body(body_options o);

    // Appends spec's body to out. With splices, its media payloads are not
    // copied: each is listed at the offset into out where it belongs.
    void append(std::string& out, const request_spec& spec, const std::string& model,
                std::vector<body_splice>* splices = nullptr) const;
    std::string json(const request_spec& spec, const std::string& model) const;

private:
    // Serialized text, then what follows it. history: the messages before the
    // user's, each with a comma after it; all_history: the whole list.
    // media: the content parts after the text's, comma first.
    enum class slot { end, prompt_text, prompt_ids, max_tokens, history, all_history, media };
    struct piece {
        std::string text;
        slot then = slot::end;
    };
    using body_template = std::vector<piece>;
    // A prompt as text or token ids, or no prompt: a tool result's request;
    // text with media parts (chat).
    enum class shape { text, ids, tool_result, media };
    body_template make_template(const std::string& model, shape s) const;
    // max_tokens, sampling, reasoning effort, response format, tools and the stream
    // options: all but embeddings.
    void generation_fields(boost::json::object& body) const;
    void append_media(std::string& out, const request_spec& spec, std::vector<body_splice>* splices) const;
    void append_transcription(std::string& out, const request_spec& spec, const std::string& model,
                              std::vector<body_splice>* splices) const;
    // Chat and Responses prompts are text: token ids are for completions and embeddings.
    bool text_only() const { return chat_ || responses_; }

    const body_options o_;
    bool chat_;
    bool responses_;
    bool embeddings_;
    bool transcriptions_;
    // Per model (request_spec::model), made at first use: text prompts, token-id
    // prompts (completions), tool results' requests (chat with tools), text with
    // media (chat).
    struct model_templates {
        std::string model;
        body_template text, ids, tool_result, media;
    };
    mutable std::vector<model_templates> per_model_;
};

}  // namespace openloop
