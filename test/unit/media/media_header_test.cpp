#include <boost/test/unit_test.hpp>

#include "openloop/media/base64.hpp"
#include "openloop/media/media_header.hpp"

#include <cstdint>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_media_header)

using namespace openloop;

namespace {

std::string unhex(std::string_view hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    return out;
}

std::string be16(unsigned v) { return {static_cast<char>(v >> 8), static_cast<char>(v & 0xff)}; }
std::string le16(unsigned v) { return {static_cast<char>(v & 0xff), static_cast<char>(v >> 8)}; }
std::string le32(std::uint32_t v) { return le16(v & 0xffff) + le16(v >> 16); }

// A JPEG segment: marker, length (counting itself), payload.
std::string segment(unsigned char marker, const std::string& payload) {
    return std::string{'\xff', static_cast<char>(marker)} + be16(static_cast<unsigned>(payload.size() + 2)) + payload;
}

// A frame header: precision 8, height, width, 3 components.
std::string sof(unsigned char marker, unsigned width, unsigned height) {
    return segment(marker, "\x08" + be16(height) + be16(width) + std::string("\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01", 10));
}

const std::string soi("\xff\xd8", 2);
const std::string jfif = segment(0xe0, std::string("JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00", 14));

image_size size_of(const std::string& bytes) {
    std::string err;
    const auto s = read_image_size(span_source(bytes), err);
    BOOST_TEST_REQUIRE(s.has_value(), err);
    return *s;
}

std::string error_of(const std::string& bytes) {
    std::string err;
    BOOST_TEST(!read_image_size(span_source(bytes), err).has_value());
    return err;
}

// 16 kHz mono 16-bit PCM with `data_bytes` of samples, after a LIST chunk of odd length (padded).
std::string wav(std::uint32_t data_bytes, std::uint32_t declared) {
    std::string fmt = le16(1) + le16(1) + le32(16000) + le32(32000) + le16(2) + le16(16);
    std::string list = "LIST" + le32(5) + "INFOx" + std::string(1, '\0');
    std::string body = "WAVE" + std::string("fmt ") + le32(16) + fmt + list + "data" + le32(declared) +
                       std::string(data_bytes, '\0');
    return "RIFF" + le32(static_cast<std::uint32_t>(body.size())) + body;
}

}  // namespace

// The first 249 bytes of matplotlib's sample grace_hopper.jpg (JFIF, a comment,
// two DQTs, then SOF0): file(1) says "baseline, precision 8, 512x600".
BOOST_AUTO_TEST_CASE(real_baseline_jpeg_and_png_headers) {
    const std::string hopper = unhex(
        "ffd8ffe000104a46494600010101006000600000fffe004646696c6520736f757263653a20687474703a2f2f636f6d6d"
        "6f6e732e77696b696d656469612e6f72672f77696b692f46696c653a47726163655f486f707065722e6a7067ffdb0043"
        "0006040506050406060506070706080a100a0a09090a140e0f0c1017141818171416161a1d251f1a1b231c1616202c20"
        "232627292a29191f2d302d283025282928ffdb0043010707070a080a130a0a13281a161a282828282828282828282828"
        "2828282828282828282828282828282828282828282828282828282828282828282828282828ffc00011080258020003"
        "012200021101031101");
    const image_size s = size_of(hopper);
    BOOST_TEST(s.width == 512);
    BOOST_TEST(s.height == 600);
    BOOST_TEST((s.format == image_format::jpeg));
    // Cut anywhere before the frame header's size: an error, never a size.
    for (std::size_t n : {0u, 1u, 2u, 3u, 4u, 100u, 230u, 236u})
        BOOST_TEST(!error_of(hopper.substr(0, n)).empty(), n);

    // matplotlib's logo2.png: file(1) says "PNG image data, 560 x 120".
    const std::string logo = unhex("89504e470d0a1a0a0000000d4948445200000230000000780806000000ec65c847");
    const image_size p = size_of(logo);
    BOOST_TEST(p.width == 560);
    BOOST_TEST(p.height == 120);
    BOOST_TEST((p.format == image_format::png));
    BOOST_TEST(error_of(logo.substr(0, 20)).find("truncated PNG") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(progressive_and_exif_jpegs) {
    // Progressive (SOF2) after a DQT.
    const std::string dqt = segment(0xdb, std::string(65, '\x01'));
    const image_size prog = size_of(soi + jfif + dqt + sof(0xc2, 1024, 768) + segment(0xc4, std::string(20, '\0')));
    BOOST_TEST(prog.width == 1024);
    BOOST_TEST(prog.height == 768);
    // A 60 KiB EXIF APP1 (its bytes would look like markers if read), fill bytes before a marker.
    const std::string exif = segment(0xe1, "Exif" + std::string(2, '\0') + std::string(61000, '\xff'));
    const image_size big = size_of(soi + exif + "\xff\xff\xff" + sof(0xc0, 4032, 3024).substr(1));
    BOOST_TEST(big.width == 4032);
    BOOST_TEST(big.height == 3024);
    // Cut inside the EXIF block: truncated.
    BOOST_TEST(error_of((soi + exif).substr(0, 30000)).find("truncated JPEG") != std::string::npos);
    // DHT (C4) is not a frame header; the scan before a frame header is an error.
    BOOST_TEST(error_of(soi + segment(0xc4, "xx") + segment(0xda, "yy")).find("no frame header") != std::string::npos);
    BOOST_TEST(error_of(soi + sof(0xc0, 0, 10)).find("unsupported") != std::string::npos);
    BOOST_TEST(error_of(soi + std::string("\xff\xe0\x00\x01", 4)).find("length 1") != std::string::npos);
    BOOST_TEST(error_of("GIF89a....").find("neither PNG nor JPEG") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(wav_length_from_its_chunks) {
    std::string err;
    // 64000 bytes at 32000 bytes/s: 2 s, after an odd-length LIST chunk.
    const auto w = read_wav(span_source(wav(64000, 64000)), err);
    BOOST_TEST_REQUIRE(w.has_value(), err);
    BOOST_TEST(w->channels == 1);
    BOOST_TEST(w->sample_rate == 16000);
    BOOST_TEST(w->seconds == 2.0);
    // A streamed file's placeholder length: what is there counts (1 s).
    const auto s = read_wav(span_source(wav(32000, 0xffffffffu)), err);
    BOOST_TEST_REQUIRE(s.has_value(), err);
    BOOST_TEST(s->seconds == 1.0);
    const std::string whole = wav(100, 100);
    BOOST_TEST(!read_wav(span_source(whole.substr(0, 30)), err).has_value());
    BOOST_TEST(err.find("truncated WAV") != std::string::npos);
    BOOST_TEST(!read_wav(span_source(std::string("ID3\x03....")), err).has_value());
    BOOST_TEST(err.find("not a WAV") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
