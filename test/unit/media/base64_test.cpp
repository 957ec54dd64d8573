#include <boost/test/unit_test.hpp>

#include "openloop/media/base64.hpp"
#include "openloop/media/media_header.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_base64)

using namespace openloop;

namespace {

std::string base64(std::string_view s) {
    std::string out;
    append_base64(out, s);
    return out;
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
}


BOOST_AUTO_TEST_CASE(base64_read_on_demand) {
    std::string err;
    // "hello world" = aGVsbG8gd29ybGQ=
    const auto v = base64_view::make("aGVsbG8gd29ybGQ=", err);
    BOOST_TEST_REQUIRE(v.has_value(), err);
    BOOST_TEST(v->size() == 11u);
    unsigned char out[5];
    BOOST_TEST(v->read(6, out, 5));
    BOOST_TEST(std::string(reinterpret_cast<char*>(out), 5) == "world");
    BOOST_TEST(!v->read(7, out, 5));
    BOOST_TEST(!base64_view::make("aGVsbG8", err).has_value());
    BOOST_TEST(err.find("multiple of 4") != std::string::npos);
    BOOST_TEST(!base64_view::make("aGV$bG8=", err).has_value());
    BOOST_TEST(err.find("'$' at offset 3") != std::string::npos);
    BOOST_TEST(!base64_view::make("a===", err).has_value());
    // A PNG header read through base64.
    const auto png = base64_view::make("iVBORw0KGgoAAAANSUhEUgAAAjAAAAB4CAYAAADsZchH", err);
    BOOST_TEST_REQUIRE(png.has_value(), err);
    const auto s = read_image_size(base64_source(*png), err);
    BOOST_TEST_REQUIRE(s.has_value(), err);
    BOOST_TEST(s->width == 560);
    BOOST_TEST(s->height == 120);
}

BOOST_AUTO_TEST_SUITE_END()
