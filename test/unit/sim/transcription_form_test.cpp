#include <boost/test/unit_test.hpp>

#include "openloop/media/media_maker.hpp"
#include "openloop/sim/transcription_form.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_transcription_form)

using namespace openloop;
namespace http = boost::beast::http;

namespace {

sim_config config() {
    sim_config c;
    c.model = *find_preset("cpu-small");  // max_model_len 4096
    c.lora_modules = {"sql-lora"};
    return c;
}

const std::string type = "multipart/form-data; boundary=XyZ";

// A form of (name, value) parts, the file part with a filename and a type as a client sends it.
std::string form(const std::vector<std::pair<std::string, std::string>>& parts) {
    std::string out = "preamble, ignored\r\n";
    for (const auto& [name, value] : parts) {
        out += "--XyZ\r\nContent-Disposition: form-data; name=\"" + name + "\"";
        if (name == "file") out += "; filename=\"a.wav\"\r\nContent-Type: audio/wav";
        out += "\r\n\r\n" + value + "\r\n";
    }
    return out + "--XyZ--\r\n";
}

completion_request parsed(const std::string& body, const sim_config& cfg = config()) {
    completion_request r;
    const auto e = parse_transcription(type, body, cfg, r);
    BOOST_TEST_REQUIRE(!e, (e ? e->message : ""));
    return r;
}

std::string refusal(std::string_view content_type, const std::string& body, http::status status = http::status::bad_request) {
    completion_request r;
    const auto e = parse_transcription(content_type, body, config(), r);
    BOOST_TEST_REQUIRE(e.has_value());
    BOOST_TEST(static_cast<int>(e->status) == static_cast<int>(status));
    return e->message;
}

}  // namespace

// The clip's tokens by the audio rule (25 a second and its two delimiters),
// the transcript's by the speech rate; the stream fields as sent.
BOOST_AUTO_TEST_CASE(the_clip_is_the_prompt_and_the_speech_the_answer) {
    const std::string wav = make_speech_wav(4, 7);
    const auto r = parsed(form({{"file", wav}, {"model", "openloop-sim"}, {"stream", "true"}, {"stream_include_usage", "true"},
                                {"stream_continuous_usage_stats", "false"}, {"response_format", "json"},
                                {"language", "en"}}));
    BOOST_TEST(r.chat);
    BOOST_TEST(r.stream);
    BOOST_TEST(r.include_usage);
    BOOST_TEST(!r.continuous_usage);
    BOOST_TEST(r.media.audios == 1);
    BOOST_TEST(r.media.audio_tokens == 4 * 25 + 2);
    BOOST_TEST(r.prompt_tokens == 102);
    BOOST_TEST(r.token_ids.size() == 102u);
    BOOST_TEST(r.audio_seconds == 4.0);
    BOOST_TEST(r.max_tokens == std::lround(4 * transcript_tokens_per_s));
    BOOST_TEST(r.ignore_eos);
    BOOST_TEST(r.adapter == -1);

    // The same clip, the same placeholders (a cache hit); an adapter by name; unstreamed by default.
    const auto again = parsed(form({{"file", wav}, {"model", "sql-lora"}}));
    BOOST_TEST(again.token_ids == r.token_ids);
    BOOST_TEST(again.adapter == 0);
    BOOST_TEST(!again.stream);
    BOOST_TEST(parsed(form({{"file", make_speech_wav(4, 8)}})).token_ids != r.token_ids);
}

BOOST_AUTO_TEST_CASE(what_is_not_a_transcription_form_is_named) {
    const std::string wav = make_speech_wav(1, 1);
    BOOST_TEST(refusal("application/json", "{}").find("multipart/form-data") != std::string::npos);
    BOOST_TEST(refusal("multipart/form-data", form({{"file", wav}})).find("boundary") != std::string::npos);
    BOOST_TEST(refusal(type, form({{"model", "openloop-sim"}})).find("file: Field required") != std::string::npos);
    BOOST_TEST(refusal(type, form({{"file", "not a wav file"}})).find("Invalid or unsupported audio file") !=
               std::string::npos);
    BOOST_TEST(refusal(type, form({{"file", wav}, {"stream", "maybe"}})).find("stream: a boolean") != std::string::npos);
    BOOST_TEST(refusal(type, form({{"file", wav}, {"response_format", "srt"}})).find("response_format") !=
               std::string::npos);
    BOOST_TEST(refusal(type, form({{"file", wav}, {"temperature", "-1"}})).find("temperature") != std::string::npos);
    BOOST_TEST(refusal(type, form({{"file", wav}, {"model", "other"}}), http::status::not_found)
                   .find("`other` does not exist") != std::string::npos);
    // Cut short: no closing boundary after a part.
    std::string cut = form({{"file", wav}});
    cut.resize(cut.size() / 2);
    BOOST_TEST(refusal(type, cut).find("no closing boundary") != std::string::npos);
    BOOST_TEST(refusal(type, "no boundary at all").find("holds no --XyZ") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_whole_answer_is_text_and_the_clips_seconds) {
    const auto v = boost::json::parse(transcription_response("the quick fox", 4.2));
    BOOST_TEST(v.at("text").as_string() == "the quick fox");
    BOOST_TEST(v.at("usage").at("type").as_string() == "duration");
    BOOST_TEST(v.at("usage").at("seconds").as_int64() == 5);
}

BOOST_AUTO_TEST_SUITE_END()
