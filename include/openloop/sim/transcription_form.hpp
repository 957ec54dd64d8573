#pragma once
// vLLM's POST /v1/audio/transcriptions as the simulator reads it: a
// multipart/form-data body (RFC 7578) with the clip, a WAV file, as the part
// "file" and the form fields model, stream, stream_include_usage,
// stream_continuous_usage_stats, response_format and temperature (others,
// such as language and prompt, are accepted and ignored). The clip is counted
// by the audio rule and its placeholders are the prompt, as an input_audio
// part's are; the answer is as long as the speech in it. Pure.

#include "openloop/sim/config.hpp"
#include "openloop/sim/openai_api.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// Tokens of heard text per second of clip: speech at about 150 words a
// minute, some 1.3 tokens a word.
inline constexpr double transcript_tokens_per_s = 3.3;

// r := the transcription in body, sent with content_type; a 400 in vLLM's
// shape for a body that is not such a form (naming the part or field), a
// 404 for a model not served.
std::optional<api_error> parse_transcription(std::string_view content_type, std::string_view body,
                                             const sim_config& cfg, completion_request& r);

// A non-streamed transcription's body as vLLM answers it (response_format
// json): {"text", "usage": {"type": "duration", "seconds"}}, seconds rounded up.
std::string transcription_response(std::string_view text, double seconds);

}  // namespace openloop
