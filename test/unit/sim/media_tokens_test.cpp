#include <boost/test/unit_test.hpp>

#include "openloop/sim/media_tokens.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_media_tokens)

using namespace openloop;

// Expected sizes worked by hand from Qwen's smart_resize: sides rounded to
// multiples of 28 (half to even), the area then clamped into [min, max].
BOOST_AUTO_TEST_CASE(qwen_smart_resize_by_hand) {
    const image_token_rule q;  // patch:28, min 3136, max 12845056
    // 1024x768: 768/28 = 27.4 -> 27 (756), 1024/28 = 36.6 -> 37 (1036); area inside the bounds.
    BOOST_TEST(smart_resize(q, 1024, 768).width == 1036);
    BOOST_TEST(smart_resize(q, 1024, 768).height == 756);
    BOOST_TEST(image_tokens(q, 1024, 768) == 27 * 37 + 2);
    // 512x600 (grace_hopper.jpg): 600/28 = 21.4 -> 21, 512/28 = 18.3 -> 18.
    BOOST_TEST(image_tokens(q, 512, 600) == 21 * 18 + 2);
    // Halves round to even as Python's round: 70/28 = 2.5 -> 2, 98/28 = 3.5 -> 4.
    BOOST_TEST(smart_resize(q, 70, 98).width == 56);
    BOOST_TEST(smart_resize(q, 70, 98).height == 112);
    BOOST_TEST(image_tokens(q, 70, 98) == 4 * 2 + 2);
    // Under min: 20x30 is 28x28 = 784 px < 3136; beta = sqrt(3136 / 600) = 2.286:
    // ceil(30 x 2.286 / 28) = 3 cells high, ceil(20 x 2.286 / 28) = 2 wide.
    BOOST_TEST(smart_resize(q, 20, 30).width == 56);
    BOOST_TEST(smart_resize(q, 20, 30).height == 84);
    BOOST_TEST(image_tokens(q, 20, 30) == 3 * 2 + 2);
    // Over max: 8000x6000 rounds to 8008x5992 = 48.0 M px > 12.8 M; beta = sqrt(48e6 / 12845056)
    // = 1.9331: floor(6000 / 1.9331 / 28) = 110 cells high, floor(8000 / 1.9331 / 28) = 147 wide.
    BOOST_TEST(smart_resize(q, 8000, 6000).width == 147 * 28);
    BOOST_TEST(smart_resize(q, 8000, 6000).height == 110 * 28);
    BOOST_TEST(image_tokens(q, 8000, 6000) == 110 * 147 + 2);
    BOOST_TEST(image_tokens(q, 8000, 6000) - 2 <= q.max_pixels / (28 * 28));
}

BOOST_AUTO_TEST_CASE(rules_parse_and_apply) {
    std::string err;
    const auto tf = parse_image_token_rule("patch:28,min=3136,max=1003520", err);  // transformers' defaults
    BOOST_TEST_REQUIRE(tf.has_value(), err);
    BOOST_TEST(tf->max_pixels == 1003520);
    // 2048x1536 rounds to 2044x1540 = 3.1 M px > 1003520; beta = sqrt(3145728 / 1003520) = 1.7705:
    // floor(1536 / 1.7705 / 28) = 30, floor(2048 / 1.7705 / 28) = 41.
    BOOST_TEST(image_tokens(*tf, 2048, 1536) == 30 * 41 + 2);
    BOOST_TEST(image_tokens(*tf, 1024, 768) == 1001);  // within both maxima: as the default

    const auto llava = parse_image_token_rule("fixed:576", err);
    BOOST_TEST_REQUIRE(llava.has_value(), err);
    BOOST_TEST(image_tokens(*llava, 1024, 768) == 576);
    BOOST_TEST(image_tokens(*llava, 16, 16) == 576);
    BOOST_TEST(to_string(*llava) == "fixed:576");
    BOOST_TEST(to_string(image_token_rule{}) == "patch:28,min=3136,max=12845056");

    const auto p14 = parse_image_token_rule("patch:14", err);
    BOOST_TEST_REQUIRE(p14.has_value(), err);
    BOOST_TEST(image_tokens(*p14, 140, 70) == 10 * 5 + 2);

    for (const char* bad : {"", "patch", "patch:0", "patch:28,min=0", "patch:28,mid=5", "patch:28,min=9,max=8",
                            "fixed:", "fixed:-1", "fixed:12x", "square:3"}) {
        err.clear();
        BOOST_TEST(!parse_image_token_rule(bad, err).has_value(), bad);
        BOOST_TEST(!err.empty(), bad);
    }
}

BOOST_AUTO_TEST_CASE(audio_tokens_per_second) {
    media_token_rule r;  // 25 tokens/s, Qwen2-Audio
    BOOST_TEST(audio_tokens(r, 2.0) == 50 + 2);
    BOOST_TEST(audio_tokens(r, 1.5) == 38 + 2);  // 37.5 rounds up
    BOOST_TEST(audio_tokens(r, 0.0) == 2);
    r.audio_tokens_per_s = 50;
    BOOST_TEST(audio_tokens(r, 0.1) == 5 + 2);
}

BOOST_AUTO_TEST_SUITE_END()
