#include <boost/test/unit_test.hpp>

// Usage figures a server should never send: the decoder flags them instead of
// casting, and the reader marks the request so its output is counted by chunks.

#include "reader_feed.hpp"

BOOST_AUTO_TEST_SUITE(unit_bad_usage)

using namespace reader_feed;
using openloop::chunk_decoder;
using openloop::chunk_info;
using openloop::done_bad_usage;
using openloop::event_kind;

namespace {

chunk_info decode_usage(std::string_view completion) {
    chunk_decoder d;
    const std::string payload = R"({"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":3,)"
                                R"("completion_tokens":)" + std::string(completion) + "}}";
    return d.decode(payload);
}

std::string chunk_with(std::int64_t completion) {
    return R"(data: {"choices":[{"index":0,"delta":{"content":"ab"}}],"usage":{"prompt_tokens":3,"completion_tokens":)" +
           std::to_string(completion) + "}}\n\n";
}

const openloop::event& done_of(const fed& f) {
    BOOST_REQUIRE(!f.events.empty());
    BOOST_REQUIRE(f.events.back().kind == event_kind::done);
    return f.events.back();
}

}  // namespace

BOOST_AUTO_TEST_CASE(decoder_accepts_integers_and_integral_floats) {
    BOOST_TEST(!decode_usage("12").bad_usage);
    BOOST_TEST(decode_usage("12").completion_tokens == 12);
    BOOST_TEST(!decode_usage("12.0").bad_usage);
    BOOST_TEST(decode_usage("12.0").completion_tokens == 12);
    BOOST_TEST(!decode_usage("null").bad_usage);
    BOOST_TEST(decode_usage("null").completion_tokens == -1);
    // 64-bit: nothing cuts 4294967396 to 100 any more.
    BOOST_TEST(decode_usage("4294967396").completion_tokens == 4294967396);
}

BOOST_AUTO_TEST_CASE(decoder_flags_negative_fractional_huge_and_non_numbers) {
    for (const char* bad : {"-1", "12.5", "9223372036854775808", "18446744073709551615", "1e30", "\"7\"", "true"}) {
        const chunk_info info = decode_usage(bad);
        BOOST_TEST(info.bad_usage, bad);
        BOOST_TEST(info.completion_tokens == -1, bad);
        BOOST_TEST(info.prompt_tokens == 3, bad);
    }
}

BOOST_AUTO_TEST_CASE(decoder_flags_bad_cached_tokens) {
    chunk_decoder d;
    const chunk_info info =
        d.decode(R"({"choices":[],"usage":{"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":-5}}})");
    BOOST_TEST(info.bad_usage);
    BOOST_TEST(info.cached_tokens == -1);
    BOOST_TEST(info.completion_tokens == 2);
}

BOOST_AUTO_TEST_CASE(reader_carries_huge_deltas_in_64_bits) {
    const std::string body = chunk_with(1) + chunk_with(4294967396) + "data: [DONE]\n\n";
    const fed f = feed_whole(200, body);
    BOOST_TEST(f.outcome == none);
    BOOST_REQUIRE(f.events.size() == 4u);  // headers, 2 chunks, done
    BOOST_TEST(f.events[2].a == 4294967395);
    BOOST_TEST(done_of(f).a == 4294967396);
    BOOST_TEST(done_of(f).flags == 0);
}

BOOST_AUTO_TEST_CASE(reader_marks_decreasing_continuous_usage) {
    const std::string body = chunk_with(1) + chunk_with(2147483647) + chunk_with(3) + "data: [DONE]\n\n";
    check_splits(200, body);
    const fed f = feed_whole(200, body);
    BOOST_TEST(f.outcome == none);  // still a completed request
    const auto& done = done_of(f);
    BOOST_TEST(done.flags == done_bad_usage);
    BOOST_TEST(done.a == -1);  // output falls back to chunk counting
    BOOST_TEST(done.b == 3);   // the prompt figure was fine
    BOOST_TEST(f.events[3].a == -1);  // the chunk after the drop carries no count
}

BOOST_AUTO_TEST_CASE(reader_marks_a_final_usage_below_continuous_usage) {
    const std::string body = chunk_with(1) + chunk_with(5) +
                             "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n\n"
                             "data: [DONE]\n\n";
    const fed f = feed_whole(200, body);
    BOOST_TEST(done_of(f).flags == done_bad_usage);
    BOOST_TEST(done_of(f).a == -1);
}

BOOST_AUTO_TEST_CASE(reader_marks_negative_usage) {
    const std::string body = chunk_with(1) +
                             "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ab\"}}],\"usage\":"
                             "{\"completion_tokens\":-2}}\n\ndata: [DONE]\n\n";
    const fed f = feed_whole(200, body);
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(done_of(f).flags == done_bad_usage);
    BOOST_TEST(done_of(f).a == -1);
}

BOOST_AUTO_TEST_SUITE_END()
