#include <boost/test/unit_test.hpp>

#include "reader_feed.hpp"
#include "recorded_streams.hpp"

BOOST_AUTO_TEST_SUITE(unit_response_reader)

using namespace reader_feed;
using namespace recorded;

// Recorded streams read the same however the body is split.

BOOST_AUTO_TEST_CASE(vllm_chat_with_continuous_usage) {
    const fed f = feed_whole(200, vllm_chat);
    // The role-only delta and the usage-only chunk move no clock; each content
    // chunk carries the growth of completion_tokens; done has the last usage.
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=1 b=5 v=0 req=7", "chunk t=1 a=2 b=6 v=0 req=7",
                                                     "chunk t=1 a=1 b=1 v=0 req=7", "done t=1 a=4 b=12 v=8 req=7"}),
               boost::test_tools::per_element());
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(f.at_body_end);
    check_splits(200, vllm_chat);
}

BOOST_AUTO_TEST_CASE(vllm_completions_with_final_usage) {
    const fed f = feed_whole(200, vllm_completions);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=6 v=0 req=7", "chunk t=1 a=-1 b=3 v=0 req=7",
                                                     "chunk t=1 a=-1 b=7 v=0 req=7", "done t=1 a=3 b=6 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, vllm_completions);
}

BOOST_AUTO_TEST_CASE(llama_server_usage_in_the_finish_chunk) {
    const fed f = feed_whole(200, llama_server);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=7 v=0 req=7", "chunk t=1 a=-1 b=7 v=0 req=7",
                                                     "done t=1 a=3 b=10 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, llama_server);
}

BOOST_AUTO_TEST_CASE(sim_usage_in_the_last_content_chunk) {
    const fed f = feed_whole(200, sim_usage_in_last_chunk);
    // Usage on the last chunk only: the first had none, so no per-chunk counts.
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=11 v=0 req=7", "chunk t=1 a=-1 b=6 v=0 req=7",
                                                     "done t=1 a=3 b=32 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, sim_usage_in_last_chunk);
}

BOOST_AUTO_TEST_CASE(sim_comments_empty_choices_and_no_done) {
    const fed f = feed_whole(200, sim_comments_no_done);
    // Without [DONE] the stream ends with the body: done takes that read's time.
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=4 v=0 req=7", "chunk t=1 a=-1 b=4 v=0 req=7",
                                                     "done t=1 a=2 b=16 v=-1 req=7"}),
               boost::test_tools::per_element());
    BOOST_TEST(f.outcome == none);
    check_splits(200, sim_comments_no_done);

    // Split before the last blank line, the done time is the last read's.
    const std::size_t cut = sim_comments_no_done.size() - 1;
    const fed late = feed(200, sim_comments_no_done, {0, cut});
    BOOST_TEST(show(late.events.back()) == "done t=2 a=2 b=16 v=-1 req=7");
}

BOOST_AUTO_TEST_CASE(sim_firehose_without_usage) {
    const fed f = feed_whole(200, sim_firehose_no_usage);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=8 v=0 req=7", "chunk t=1 a=-1 b=8 v=0 req=7",
                                                     "chunk t=1 a=-1 b=4 v=0 req=7", "done t=1 a=-1 b=-1 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, sim_firehose_no_usage);
}

BOOST_AUTO_TEST_CASE(crlf_and_cr_framing_read_like_lf) {
    const auto lf = lines(feed_whole(200, vllm_chat));
    for (const std::string& body : {with_crlf(vllm_chat), with_cr(vllm_chat)}) {
        BOOST_TEST(lines(feed_whole(200, body)) == lf, boost::test_tools::per_element());
        check_splits(200, body);
    }
    check_splits(200, with_crlf(sim_comments_no_done));
}

BOOST_AUTO_TEST_CASE(comments_and_other_fields_are_skipped) {
    const fed f = feed_whole(200, with_fields);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=2 b=1 v=0 req=7", "chunk t=1 a=1 b=2 v=0 req=7",
                                                     "done t=1 a=3 b=4 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, with_fields);
}

BOOST_AUTO_TEST_CASE(per_chunk_tokens_stop_once_usage_stops_growing) {
    const std::string body =
        "data: " SIM_HEAD R"([{"index":0,"delta":{"content":"a"}}],"usage":{"completion_tokens":2}})" "\n\n"
        "data: " SIM_HEAD R"([{"index":0,"delta":{"content":"b"}}]})" "\n\n"
        "data: " SIM_HEAD R"([{"index":0,"delta":{"content":"c"}}],"usage":{"completion_tokens":4}})" "\n\n"
        "data: [DONE]\n\n";
    // A content chunk without a larger count ends per-chunk counting for good.
    BOOST_TEST(lines(feed_whole(200, body)) ==
                   (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7", "chunk t=1 a=2 b=1 v=0 req=7",
                                             "chunk t=1 a=-1 b=1 v=0 req=7", "chunk t=1 a=-1 b=1 v=0 req=7",
                                             "done t=1 a=4 b=-1 v=-1 req=7"}),
               boost::test_tools::per_element());
    const std::string repeated =
        "data: " SIM_HEAD R"([{"index":0,"delta":{"content":"a"}}],"usage":{"completion_tokens":1}})" "\n\n"
        "data: " SIM_HEAD R"([{"index":0,"delta":{"content":"b"}}],"usage":{"completion_tokens":1}})" "\n\n"
        "data: [DONE]\n\n";
    BOOST_TEST(show(feed_whole(200, repeated).events[2]) == "chunk t=1 a=-1 b=1 v=0 req=7");
}

// A completed answer ends at the read that completed it (its [DONE]), as its done event says,
// not at the body's last bytes a read later: a session's next turn counts from that end.
BOOST_AUTO_TEST_CASE(an_answer_ends_at_the_read_that_completed_it) {
    const fed f = feed(200, vllm_chat, {0, vllm_chat.size()});  // read 2 brings only the body's end
    BOOST_TEST_REQUIRE(f.finished);
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(show(f.events.back()).starts_with("done t=1 "), show(f.events.back()));
    BOOST_TEST(f.answered == 1);
}

BOOST_AUTO_TEST_SUITE_END()
