#pragma once
// A chat message's media content parts, read as vLLM reads them: an
// `image_url` part whose URL is a base64 data URL of a PNG or JPEG, an
// `input_audio` part of base64 WAV (format "wav"). Each becomes its rule's
// count of placeholder token ids in the prompt, a function of its bytes, so
// requests that repeat an image share a prefix in the cache and requests with
// other images do not. What the simulator cannot read (a remote URL, bad
// base64, neither PNG nor JPEG, not WAV, a part type it does not serve) is an
// error in vLLM's words. Pure.

#include "openloop/sim/media_tokens.hpp"

#include <boost/json/fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// What a request's media parts added to its prompt.
struct media_count {
    int images = 0;
    std::int64_t image_tokens = 0;
    int audios = 0;
    std::int64_t audio_tokens = 0;
    std::size_t end = 0;  // prompt ids before the end of the last media item's tokens
    int items() const { return images + audios; }
    std::int64_t tokens() const { return image_tokens + audio_tokens; }
};

struct media_reader {
    media_reader(const media_token_rule& r, std::size_t max) : rule(r), max_ids(max) {}
    media_token_rule rule;
    // Placeholders are appended while the prompt holds fewer ids than this (a
    // model's context): past it they are only counted, in `unplaced`, so a body
    // of many images cannot make the prompt vast.
    std::size_t max_ids = 0;
    media_count count;
    std::int64_t unplaced = 0;
};

// The content part `part` (not a text part) of a chat message: a media item
// read and its placeholders appended to ids; a part that carries no prompt
// (refusal, thinking) does nothing. False with err for anything else.
bool append_media_part(media_reader& m, const boost::json::object& part, std::vector<std::uint64_t>& ids,
                       std::string& err);

// A whole WAV file as a transcription form sends it (its bytes, not base64),
// read and placed as an input_audio part's clip is; seconds := its length.
// False with err when it is not one.
bool append_audio_file(media_reader& m, std::string_view wav_bytes, std::vector<std::uint64_t>& ids, double& seconds,
                       std::string& err);

}  // namespace openloop
