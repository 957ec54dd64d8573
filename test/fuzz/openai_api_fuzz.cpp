// The simulator's request parsing on arbitrary bodies. Input: a byte choosing
// the endpoint (chat or completions) and the preset, then the body.
// Invariants: a request is accepted, or rejected with a 4xx and an error body
// that is JSON; an accepted one asks for at least one token and fits the
// model (prompt + max_tokens <= max_model_len, without overflow), and its
// output length stays within what it asked for, and its media tokens (images,
// audio) are within its prompt; /tokenize answers JSON. The same bytes as a
// transcription's multipart form (boundary B): accepted with its one clip,
// the answer within the model, or rejected with a 4xx.

#include "fuzz_input.hpp"

#include "openloop/sim/openai_api.hpp"
#include "openloop/sim/transcription_form.hpp"

#include <boost/json/parse.hpp>

#include <string>

namespace {

using openloop::sim_config;

bool is_json(std::string_view text) {
    boost::system::error_code ec;
    boost::json::parse(text, ec);
    return !ec;
}

const sim_config& config(std::uint8_t which) {
    static const auto make = [](const char* preset) {
        sim_config c;
        c.model = *openloop::find_preset(preset);
        return c;
    };
    static const sim_config configs[] = {make("cpu-small"), make("h100-8b"), make("firehose")};
    return configs[which % 3];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::input in(data, size);
    const std::uint8_t control = in.byte();
    const bool chat = (control & 1) != 0;
    const sim_config& cfg = config(control >> 1);
    const std::string_view body = in.rest();

    openloop::completion_request r;
    if (const auto error = openloop::parse_completion(body, chat, cfg, r)) {
        const auto code = static_cast<int>(error->status);
        FUZZ_CHECK(code >= 400 && code < 500);
        FUZZ_CHECK(is_json(openloop::error_body(*error)));
    } else {
        FUZZ_CHECK(r.chat == chat);
        // Media tokens are prompt tokens: never more than the prompt holds, and only in chat.
        FUZZ_CHECK(r.media.tokens() >= 0 && r.media.tokens() <= r.prompt_tokens);
        FUZZ_CHECK(chat || r.media.items() == 0);
        FUZZ_CHECK(r.prompt_tokens >= 0 && r.max_tokens >= 1 && r.min_tokens >= 0);
        FUZZ_CHECK(std::int64_t{r.prompt_tokens} + r.max_tokens <= cfg.model.max_model_len);
        const int n = openloop::output_length(r, 0x9e3779b97f4a7c15u ^ size);
        FUZZ_CHECK(n >= 1 && n <= r.max_tokens);
        if (r.ignore_eos) FUZZ_CHECK(n == r.max_tokens);
    }
    openloop::completion_request t;
    if (const auto error = openloop::parse_transcription("multipart/form-data; boundary=B", body, cfg, t)) {
        const auto code = static_cast<int>(error->status);
        FUZZ_CHECK(code >= 400 && code < 500);
    } else {
        FUZZ_CHECK(t.chat && t.media.audios == 1 && t.media.images == 0);
        FUZZ_CHECK(t.media.tokens() == t.prompt_tokens);
        FUZZ_CHECK(t.max_tokens >= 1 && t.ignore_eos);
        FUZZ_CHECK(std::int64_t{t.prompt_tokens} + t.max_tokens <= cfg.model.max_model_len);
    }
    const auto [status, answer] = openloop::tokenize_response(body, cfg);
    FUZZ_CHECK(is_json(answer));
    (void)status;
    return 0;
}
