#include <boost/test/unit_test.hpp>

#include "openloop/media/image_codec.hpp"
#include "openloop/media/media_header.hpp"
#include "openloop/media/media_maker.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_image_codec)

using namespace openloop;

BOOST_AUTO_TEST_CASE(encoded_images_declare_the_size_they_were_made_at) {
    const rgb_image im = make_image(33, 17, 1);
    std::string err;
    const std::string jpeg = encode_jpeg(im, 85), png = encode_png(im);
    const auto j = read_image_size(span_source(jpeg), err);
    const auto p = read_image_size(span_source(png), err);
    BOOST_REQUIRE(j);
    BOOST_REQUIRE(p);
    BOOST_TEST(j->width == 33);
    BOOST_TEST(j->height == 17);
    BOOST_TEST((p->format == image_format::png));
    BOOST_TEST(p->width == 33);
    BOOST_TEST(image_mime(j->format) == "image/jpeg");
    BOOST_TEST(image_mime(p->format) == "image/png");
}

BOOST_AUTO_TEST_CASE(made_images_compress_as_photos_do) {
    // A photo at quality 85 takes about 0.1-0.4 bytes per pixel; a flat image
    // under 0.03 and noise over 1.
    const rgb_image im = make_image(512, 384, 42);
    const double jpeg = static_cast<double>(encode_jpeg(im, 85).size()) / (512.0 * 384.0);
    BOOST_TEST_MESSAGE("jpeg q85 bytes/pixel " << jpeg);
    BOOST_TEST(jpeg > 0.1);
    BOOST_TEST(jpeg < 0.4);
    const double png = static_cast<double>(encode_png(im).size()) / (512.0 * 384.0);
    BOOST_TEST(png > 0.8);
    BOOST_TEST(png < 3.0);
    // Lower quality, fewer bytes.
    BOOST_TEST(encode_jpeg(im, 50).size() < encode_jpeg(im, 85).size());
}

BOOST_AUTO_TEST_CASE(made_media_is_a_function_of_its_seed) {
    BOOST_TEST((make_image(64, 48, 7).pixels == make_image(64, 48, 7).pixels));
    BOOST_TEST((make_image(64, 48, 7).pixels != make_image(64, 48, 8).pixels));
    BOOST_TEST(make_speech_wav(0.5, 3) == make_speech_wav(0.5, 3));
}

BOOST_AUTO_TEST_CASE(a_clip_is_a_16_khz_mono_pcm16_wav) {
    const std::string wav = make_speech_wav(1.5, 9);
    // 44 bytes of header, then 1.5 s x 16,000 samples x 2 bytes.
    BOOST_TEST(wav.size() == 44u + 48'000u);
    BOOST_TEST(wav.substr(0, 4) == "RIFF");
    BOOST_TEST(wav.substr(8, 8) == "WAVEfmt ");
    BOOST_TEST(wav.substr(36, 4) == "data");
    const auto u16 = [&wav](std::size_t i) { return static_cast<unsigned char>(wav[i]) | static_cast<unsigned char>(wav[i + 1]) << 8; };
    BOOST_TEST(u16(20) == 1);       // PCM
    BOOST_TEST(u16(22) == 1);       // one channel
    BOOST_TEST(u16(24) == 16'000);  // the rate's low 16 bits (its high ones are 0)
    BOOST_TEST(u16(34) == 16);      // bits per sample
    // Speech is not silence: some samples well away from 0.
    int loud = 0;
    for (std::size_t i = 44; i < wav.size(); i += 2) loud += std::abs(static_cast<std::int16_t>(u16(i))) > 1000;
    BOOST_TEST(loud > 1000);
}

BOOST_AUTO_TEST_SUITE_END()
