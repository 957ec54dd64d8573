#include <boost/test/unit_test.hpp>

#include "openloop/cli/run_command.hpp"
#include "openloop/cli/usage.hpp"

#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_media_options)

using namespace openloop;

BOOST_AUTO_TEST_CASE(media_flags_fill_the_media_config) {
    const run_options o = parse_run_command({"--images", "uniform:1:3", "--image-size", "512x512=3,1024x768=1",
                                             "--image-quality", "70", "--image-reuse", "25%", "--audios", "2",
                                             "--audio-seconds", "uniform:2:4"})
                              .options;
    BOOST_REQUIRE(o.media.images.has_value());
    BOOST_TEST(o.media.images->min() == 1);
    BOOST_TEST(o.media.images->max() == 3);
    BOOST_REQUIRE(o.media.image_sizes.size() == 2u);
    BOOST_TEST(o.media.image_sizes[0].weight == 3.0);
    BOOST_TEST(o.media.image_sizes[1].label() == "1024x768");
    BOOST_TEST(o.media.quality == 70);
    BOOST_TEST(o.media.reuse == 0.25);
    BOOST_TEST(o.media.audios == 2);
    BOOST_TEST(o.media.audio_seconds.max() == 4);
    BOOST_TEST(o.media.wanted());
    BOOST_TEST(o.config.at("images") == "uniform:1:3");  // summary.json's config
}

BOOST_AUTO_TEST_CASE(a_transcription_run_sends_one_clip_as_its_wav_bytes) {
    const run_options o =
        parse_run_command({"--endpoint", "transcriptions", "--audios", "1", "--audio-seconds", "3"}).options;
    BOOST_TEST(to_string(o.endpoint) == "transcriptions");
    BOOST_TEST(o.media.audios == 1);
    BOOST_TEST(o.media.raw_audio);
    BOOST_TEST(o.media.audio_seconds.max() == 3);
}

BOOST_AUTO_TEST_CASE(without_media_flags_a_run_has_none) {
    const run_options o = parse_run_command({}).options;
    BOOST_TEST(!o.media.wanted());
    BOOST_TEST(o.media.image_sizes.empty());
}

BOOST_AUTO_TEST_CASE(bad_media_flags_are_named) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--images", "0"}, "--images"},
        {{"--images", "300"}, "--images: at most 256"},
        {{"--images", "1", "--image-size", "512"}, "--image-size '512'"},
        {{"--images", "1", "--image-format", "gif"}, "--image-format must be jpeg or png"},
        {{"--images", "1", "--image-quality", "0"}, "--image-quality must be 1-100"},
        {{"--images", "1", "--image-format", "png", "--image-quality", "90"}, "--image-quality is JPEG's"},
        {{"--images", "1", "--image-reuse", "1.5"}, "--image-reuse"},
        {{"--images", "1", "--image-dir", "d", "--image-size", "64x64"}, "--image-size shapes made images"},
        {{"--image-size", "64x64"}, "--image-size needs --images"},
        {{"--image-reuse", "0.5"}, "--image-reuse needs --images or --audios"},
        {{"--audio-seconds", "3"}, "--audio-seconds needs --audios"},
        {{"--audios", "65"}, "--audios must be 0-64"},
        {{"--audios", "1", "--audio-seconds", "601"}, "--audio-seconds: at most 600"},
        {{"--audios", "1", "--endpoint", "responses"}, "--audios: images and audio go in a chat message's content parts"},
        {{"--images", "1", "--endpoint", "embeddings"}, "they need --endpoint chat"},
        {{"--endpoint", "transcriptions"}, "it needs --audios 1"},
        {{"--endpoint", "transcriptions", "--audios", "2"}, "it needs --audios 1"},
        {{"--endpoint", "transcriptions", "--audios", "1", "--images", "1"}, "it needs --audios 1"},
        {{"--endpoint", "transcriptions", "--audios", "1", "--output-len", "9"}, "--output-len: --endpoint transcriptions"},
        {{"--endpoint", "transcriptions", "--audios", "1", "--input-len", "500"}, "--input-len: --endpoint transcriptions"},
    };
    for (const auto& [args, said] : cases) {
        try {
            parse_run_command(args);
            BOOST_ERROR("accepted " << args.at(0) << " " << args.at(1));
        } catch (const usage_error& e) {
            BOOST_TEST(std::string(e.what()).find(said) != std::string::npos, e.what());
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
