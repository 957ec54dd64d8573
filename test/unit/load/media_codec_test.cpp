#include <boost/test/unit_test.hpp>

#include "openloop/load/media_codec.hpp"
#include "openloop/load/media_maker.hpp"

#include <string>

using namespace openloop;

namespace {

std::string base64(std::string_view s) {
    std::string out;
    append_base64(out, s);
    return out;
}

// A PNG's signature and IHDR chunk for a width x height RGB image (the CRC is not checked).
std::string png_head(std::uint32_t w, std::uint32_t h) {
    std::string b("\x89PNG\r\n\x1a\n", 8);
    b += std::string("\0\0\0\x0dIHDR", 8);
    for (const std::uint32_t v : {w, h})
        for (int shift = 24; shift >= 0; shift -= 8) b.push_back(static_cast<char>((v >> shift) & 0xff));
    b += std::string("\x08\x02\0\0\0", 5);
    return b;
}

}  // namespace

BOOST_AUTO_TEST_CASE(base64_matches_rfc_4648s_test_vectors) {
    BOOST_TEST(base64("") == "");
    BOOST_TEST(base64("f") == "Zg==");
    BOOST_TEST(base64("fo") == "Zm8=");
    BOOST_TEST(base64("foo") == "Zm9v");
    BOOST_TEST(base64("foob") == "Zm9vYg==");
    BOOST_TEST(base64("fooba") == "Zm9vYmE=");
    BOOST_TEST(base64("foobar") == "Zm9vYmFy");
    // The last two letters of the alphabet, and a zero byte.
    BOOST_TEST(base64(std::string("\xfb\xff\x00", 3)) == "+/8A");
}

BOOST_AUTO_TEST_CASE(a_data_url_names_its_type_before_the_base64) {
    BOOST_TEST(data_url("image/png", "foo") == "data:image/png;base64,Zm9v");
    BOOST_TEST(image_mime(image_format::jpeg) == "image/jpeg");
}

BOOST_AUTO_TEST_CASE(a_png_size_comes_from_its_ihdr) {
    const auto h = read_image_header(png_head(640, 480) + "rest");
    BOOST_REQUIRE(h);
    BOOST_TEST((h->format == image_format::png));
    BOOST_TEST(h->width == 640);
    BOOST_TEST(h->height == 480);
    BOOST_TEST(!read_image_header(png_head(640, 480).substr(0, 23)));  // cut inside the height
    BOOST_TEST(!read_image_header(png_head(0, 480)));
}

BOOST_AUTO_TEST_CASE(a_jpeg_size_comes_from_its_frame_header_past_other_segments) {
    // SOI, an APP0 of 16 bytes, a DHT of 5, then SOF2 (progressive): height 0x0102, width 0x0304.
    std::string j("\xff\xd8", 2);
    j += std::string("\xff\xe0\x00\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0", 18);
    j += std::string("\xff\xc4\x00\x05\0\0\0", 7);
    j += std::string("\xff\xc2\x00\x11\x08\x01\x02\x03\x04\x03", 10);
    const auto h = read_image_header(j);
    BOOST_REQUIRE(h);
    BOOST_TEST((h->format == image_format::jpeg));
    BOOST_TEST(h->height == 258);
    BOOST_TEST(h->width == 772);
    BOOST_TEST(!read_image_header(j.substr(0, 28)));  // no frame header yet
    BOOST_TEST(!read_image_header("GIF89a........"));
    BOOST_TEST(!read_image_header(""));
}

BOOST_AUTO_TEST_CASE(encoded_images_declare_the_size_they_were_made_at) {
    const rgb_image im = make_image(33, 17, 1);
    const auto j = read_image_header(encode_jpeg(im, 85));
    const auto p = read_image_header(encode_png(im));
    BOOST_REQUIRE(j);
    BOOST_REQUIRE(p);
    BOOST_TEST(j->width == 33);
    BOOST_TEST(j->height == 17);
    BOOST_TEST((p->format == image_format::png));
    BOOST_TEST(p->width == 33);
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
