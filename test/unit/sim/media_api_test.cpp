#include <boost/test/unit_test.hpp>

#include "openloop/media/base64.hpp"
#include "openloop/media/image_codec.hpp"
#include "openloop/sim/openai_api.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_media_api)

using namespace openloop;
namespace http = boost::beast::http;

namespace {

sim_config config() {
    sim_config c;
    c.model = *find_preset("cpu-small");  // max_model_len 4096
    return c;
}

std::string base64(const std::string& bytes) {
    std::string out;
    append_base64(out, bytes);
    return out;
}

std::string be32(std::uint32_t v) {
    return {static_cast<char>(v >> 24), static_cast<char>(v >> 16 & 0xff), static_cast<char>(v >> 8 & 0xff),
            static_cast<char>(v & 0xff)};
}
std::string le32(std::uint32_t v) {
    return {static_cast<char>(v & 0xff), static_cast<char>(v >> 8 & 0xff), static_cast<char>(v >> 16 & 0xff),
            static_cast<char>(v >> 24)};
}

// The start of a PNG of that size (its IHDR is all a header reader needs); `salt` changes its bytes.
std::string png(std::uint32_t width, std::uint32_t height, char salt = 0) {
    return std::string("\x89PNG\r\n\x1a\n", 8) + be32(13) + "IHDR" + be32(width) + be32(height) +
           std::string("\x08\x06\x00\x00\x00", 5) + std::string(7, salt);
}

// 16 kHz mono 16-bit PCM of that many seconds.
std::string wav(double seconds) {
    const auto data = static_cast<std::uint32_t>(seconds * 32000);
    const std::string fmt = std::string("\x01\x00\x01\x00", 4) + le32(16000) + le32(32000) + std::string("\x02\x00\x10\x00", 4);
    const std::string body = "WAVEfmt " + le32(16) + fmt + "data" + le32(data) + std::string(data, '\0');
    return "RIFF" + le32(static_cast<std::uint32_t>(body.size())) + body;
}

std::string image_part(const std::string& url) {
    return R"({"type":"image_url","image_url":{"url":")" + url + R"("}})";
}
std::string png_part(std::uint32_t w, std::uint32_t h, char salt = 0) {
    return image_part("data:image/png;base64," + base64(png(w, h, salt)));
}
std::string audio_part(const std::string& data, const std::string& format = "wav") {
    return R"({"type":"input_audio","input_audio":{"data":")" + data + R"(","format":")" + format + R"("}})";
}

std::string chat(const std::string& parts) {
    return std::string(R"({"messages":[{"role":"user","content":[{"type":"text","text":"a b c"})") +
           (parts.empty() ? "" : ",") + parts + R"(]}],"max_tokens":8})";
}

completion_request accepted(const std::string& body, const sim_config& cfg = config()) {
    completion_request r;
    const auto e = parse_completion(body, true, cfg, r);
    BOOST_TEST_REQUIRE(!e.has_value(), (e ? e->message : ""));
    return r;
}

std::string rejected(const std::string& body) {
    completion_request r;
    const auto e = parse_completion(body, true, config(), r);
    BOOST_TEST_REQUIRE(e.has_value());
    BOOST_TEST(static_cast<int>(e->status) == 400);
    BOOST_TEST(boost::json::parse(error_body(*e)).at("error").at("code").as_int64() == 400);
    return e->message;
}

}  // namespace

// usage.prompt_tokens = the text's words + each image's and clip's tokens by the rule.
BOOST_AUTO_TEST_CASE(media_parts_count_by_the_rule) {
    BOOST_TEST(accepted(chat("")).prompt_tokens == 3);
    // 560x120: 120/28 = 4.3 -> 4 cells high, 560/28 = 20 wide: 80 + 2 delimiters.
    const completion_request one = accepted(chat(png_part(560, 120)));
    BOOST_TEST(one.prompt_tokens == 3 + 82);
    BOOST_TEST(one.media.images == 1);
    BOOST_TEST(one.media.image_tokens == 82);
    BOOST_TEST(one.media.end == 85u);
    // 1024x768: 27 x 37 + 2 = 1001 each.
    const completion_request two = accepted(chat(png_part(1024, 768) + "," + png_part(560, 120)));
    BOOST_TEST(two.prompt_tokens == 3 + 1001 + 82);
    BOOST_TEST(two.media.images == 2);
    // 2 s of audio at 25 tokens/s, + 2; 1.5 s: 38 + 2.
    const completion_request sound = accepted(chat(audio_part(base64(wav(2))) + "," + audio_part(base64(wav(1.5)))));
    BOOST_TEST(sound.prompt_tokens == 3 + 52 + 40);
    BOOST_TEST(sound.media.audios == 2);
    BOOST_TEST(sound.media.audio_tokens == 92);
    BOOST_TEST(sound.media.images == 0);

    sim_config llava = config();
    std::string err;
    llava.media.image = *parse_image_token_rule("fixed:576", err);
    BOOST_TEST(accepted(chat(png_part(1024, 768) + "," + png_part(16, 16)), llava).prompt_tokens == 3 + 2 * 576);

    // A JPEG with its data URL's media type wrong is still read by its bytes, as PIL does.
    const std::string jpeg = std::string("\xff\xd8\xff\xc0\x00\x11\x08\x01\x00\x02\x00\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01", 21);
    BOOST_TEST(accepted(chat(image_part("data:image/png;base64," + base64(jpeg)))).media.image_tokens == 9 * 18 + 2);
}

// Equal images are equal placeholder ids (the prefix cache sees them); other images differ.
BOOST_AUTO_TEST_CASE(placeholders_follow_the_bytes) {
    const auto a = accepted(chat(png_part(560, 120, 'a')));
    const auto a2 = accepted(chat(png_part(560, 120, 'a')));
    const auto b = accepted(chat(png_part(560, 120, 'b')));
    BOOST_TEST(a.token_ids == a2.token_ids);
    BOOST_TEST(a.token_ids != b.token_ids);
    BOOST_TEST(std::equal(a.token_ids.begin(), a.token_ids.begin() + 3, b.token_ids.begin()));
    // /tokenize counts what a chat request's usage counts.
    const auto [status, body] = tokenize_response(R"({"messages":[{"role":"user","content":[)" + png_part(560, 120) + "]}]}",
                                                  config());
    BOOST_TEST(static_cast<int>(status) == 200);
    BOOST_TEST(boost::json::parse(body).at("count").as_int64() == 82);
    // /v1/completions has no content parts; a Responses request reads them as chat does.
    completion_request r;
    BOOST_TEST(!parse_responses(R"({"input":[{"role":"user","content":[)" + png_part(560, 120) + "]}]}", config(), r));
    BOOST_TEST(r.prompt_tokens == 82);
}

// vLLM's 400s for parts it cannot load, and the simulator's for what it does not serve.
BOOST_AUTO_TEST_CASE(bad_parts_are_400s) {
    BOOST_TEST(rejected(chat(image_part("https://example.com/cat.jpg"))).find("cannot fetch https URLs") !=
               std::string::npos);
    BOOST_TEST(rejected(chat(image_part("ftp://example.com/cat.jpg"))) == "The URL must be either a HTTP, data or file URL.");
    BOOST_TEST(rejected(chat(image_part("data:image/png,abcd"))) == "Only base64 data URLs are supported for now.");
    BOOST_TEST(rejected(chat(image_part("data:image/png;base64"))).find("missing ','") != std::string::npos);
    BOOST_TEST(rejected(chat(image_part("data:image/png;base64,!!!!"))).find("invalid base64") != std::string::npos);
    BOOST_TEST(rejected(chat(image_part("data:image/gif;base64," + base64("GIF89a\x01\x00\x01\x00")))).find(
                   "neither PNG nor JPEG") != std::string::npos);
    BOOST_TEST(rejected(chat(image_part("data:image/png;base64," + base64(png(560, 120).substr(0, 20))))).find(
                   "truncated PNG") != std::string::npos);
    BOOST_TEST(rejected(chat(png_part(10000, 40))).find("aspect ratio must be smaller than 200") != std::string::npos);
    BOOST_TEST(rejected(chat(R"({"type":"image_url","image_url":{}})")).find("url") != std::string::npos);
    BOOST_TEST(rejected(chat(R"({"type":"hologram"})")).find("Unsupported chat content part type: 'hologram'") !=
               std::string::npos);
    BOOST_TEST(rejected(chat(R"({"foo":1})")) == "Missing 'type' field in multimodal part.");
    BOOST_TEST(rejected(chat(R"({"type":"video_url","video_url":{"url":"data:video/mp4;base64,AAAA"}})")).find(
                   "not served by the simulator") != std::string::npos);
    BOOST_TEST(rejected(chat(audio_part(base64(wav(1)), "mp3"))).find("WAV audio only") != std::string::npos);
    BOOST_TEST(rejected(chat(audio_part(base64("ID3\x03 not a wave")))).find("not a WAV file") != std::string::npos);
    // Images past the context: vLLM's context error, counting them all.
    std::string many;
    for (int i = 0; i < 5; ++i) many += (i ? "," : "") + png_part(1024, 768, static_cast<char>(i));
    BOOST_TEST(rejected(chat(many)).find("However, your request has 5008 input tokens") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
