#include <boost/test/unit_test.hpp>

#include "openloop/measure/media_stats.hpp"
#include "openloop/measure/request_metrics.hpp"

BOOST_AUTO_TEST_SUITE(unit_media_stats)

using namespace openloop;

namespace {

request_timeline with_media(int images, int bucket, std::int64_t input, std::int64_t prompt) {
    request_timeline r;
    r.input_tokens = static_cast<std::int32_t>(input);
    r.prompt_tokens = prompt;
    r.images = images;
    r.bucket = bucket;
    r.body_bytes = 1000;
    return r;
}

request_metrics ttft_ms(std::int64_t ms) {
    request_metrics m;
    m.ttft = ms * 1'000'000;
    return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(media_tokens_are_the_prompt_less_the_text_only_for_media_with_usage) {
    const media_tokens t = media_tokens_of(with_media(2, 0, 100, 612));
    BOOST_TEST(t.known);
    BOOST_TEST(t.count == 512);
    BOOST_TEST(!media_tokens_of(with_media(2, 0, 100, -1)).known);  // no usage.prompt_tokens
    request_timeline text_only;
    text_only.input_tokens = 100;
    text_only.prompt_tokens = 130;
    BOOST_TEST(!media_tokens_of(text_only).known);  // no media: its 30 are the template's, not media
    const media_tokens short_count = media_tokens_of(with_media(1, 0, 100, 90));
    BOOST_TEST(short_count.known);
    BOOST_TEST(short_count.count == -10);  // told as it is
}

BOOST_AUTO_TEST_CASE(sends_sum_counts_and_bytes) {
    media_stats m({"512x512"});
    m.sent(101'000, 2, 0);
    m.sent(33'000, 0, 1);
    BOOST_TEST(m.requests == 2u);
    BOOST_TEST(m.images == 2);
    BOOST_TEST(m.audios == 1);
    BOOST_TEST(m.body_bytes_total == 134'000);
    BOOST_TEST(m.body_bytes.max() == 101'000);
    BOOST_TEST(m.body_bytes.mean() == 67'000.0);
}

BOOST_AUTO_TEST_CASE(completed_requests_fill_the_token_split_and_the_rows) {
    media_stats m({"512x512", "1024x768"});
    m.completed(with_media(1, 0, 100, 356), ttft_ms(50));   // 256 media tokens
    m.completed(with_media(2, 1, 100, 612), ttft_ms(80));   // 512
    m.completed(with_media(2, -1, 100, 90), ttft_ms(90));   // fewer than its text: 0, flagged
    m.completed(with_media(1, 0, 100, -1), ttft_ms(40));    // no usage: not in the split
    request_timeline text_only;
    text_only.input_tokens = 100;
    m.completed(text_only, ttft_ms(20));
    BOOST_TEST(m.counted == 3u);
    BOOST_TEST(m.text_tokens == 300);
    BOOST_TEST(m.media_tokens == 768);
    BOOST_TEST(m.counted_images == 5);
    BOOST_TEST(m.negative == 1u);
    BOOST_TEST_REQUIRE(m.by_images.size() == 3u);
    BOOST_TEST(m.by_images[0].requests == 1u);
    BOOST_TEST(m.by_images[1].requests == 2u);
    BOOST_TEST(m.by_images[2].requests == 2u);
    BOOST_TEST(m.by_images[1].ttft.max() == 50'000'000);
    // Buckets in the order they came, by label; text-only requests have none.
    BOOST_TEST_REQUIRE(m.by_bucket.size() == 3u);
    BOOST_TEST(m.by_bucket[0].label == "512x512");
    BOOST_TEST(m.by_bucket[0].requests == 2u);
    BOOST_TEST(m.by_bucket[1].label == "1024x768");
    BOOST_TEST(m.by_bucket[2].label == "mixed");
}

BOOST_AUTO_TEST_CASE(many_images_share_the_last_row) {
    media_stats m;
    m.completed(with_media(max_image_rows + 7, 0, 10, -1), ttft_ms(1));
    BOOST_TEST_REQUIRE(m.by_images.size() == static_cast<std::size_t>(max_image_rows + 1));
    BOOST_TEST(m.by_images.back().label == std::to_string(max_image_rows) + "+");
    BOOST_TEST(m.by_bucket.front().label == "?");  // an index past the labels given
}

BOOST_AUTO_TEST_SUITE_END()
