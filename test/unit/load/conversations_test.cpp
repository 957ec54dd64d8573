#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/load/conversations.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_conversations)

using namespace openloop;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
    const auto path = (std::filesystem::temp_directory_path() / ("openloop-conversations-" + name)).string();
    std::ofstream(path) << text;
    return path;
}

std::string error_of(const std::string& path) {
    try {
        read_conversations(path, 1000);
    } catch (const input_error& e) {
        return e.what();
    }
    return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(sharegpt_gives_every_turn_not_only_the_first) {
    const auto path = write_temp("sharegpt.json", R"([
      {"id": "a", "conversations": [
        {"from": "system", "value": "be brief"},
        {"from": "human", "value": "one two three"},
        {"from": "gpt", "value": "four five"},
        {"from": "human", "value": "six"},
        {"from": "human", "value": "seven"},
        {"from": "gpt", "value": "eight nine ten"},
        {"from": "human", "value": "unanswered"}]},
      {"id": "b", "conversations": [{"from": "gpt", "value": "nobody asked"}]},
      {"id": "c", "conversations": [{"from": "human", "value": "hi"}, {"from": "chatgpt", "value": "hello"}]}
    ])");
    const conversation_file f = read_conversations(path, 1000);
    BOOST_TEST_REQUIRE(f.conversations.size() == 2u);
    BOOST_TEST(f.skipped == 1u);
    BOOST_TEST(f.max_turns == 2u);
    const recorded_conversation& a = f.conversations[0];
    BOOST_TEST(a.system == "be brief");
    BOOST_TEST_REQUIRE(a.turns.size() == 2u);  // the unanswered last message is not a turn
    BOOST_TEST(a.turns[0].user == "one two three");
    BOOST_TEST(a.turns[0].input_tokens == 3);
    BOOST_TEST(a.turns[0].answer_tokens == 2);
    BOOST_TEST(a.turns[1].user == "six\nseven");  // consecutive user messages are one turn
    BOOST_TEST(a.turns[1].answer_tokens == 3);
    BOOST_TEST(f.conversations[1].turns[0].answer_tokens == 1);
    // A cap on turns keeps the first ones.
    BOOST_TEST(read_conversations(path, 1).conversations[0].turns.size() == 1u);
    std::remove(path.c_str());
}

BOOST_AUTO_TEST_CASE(jsonl_messages_with_content_parts) {
    const auto path = write_temp("chat.jsonl",
                                 "{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"a b\"}, "
                                 "{\"type\": \"text\", \"text\": \"c\"}]}, {\"role\": \"assistant\", \"content\": \"d e\"}]}\n"
                                 "\n"
                                 "{\"conversations\": [{\"from\": \"human\", \"value\": \"x\"}, {\"from\": \"gpt\", \"value\": \"y\"}]}\n");
    const conversation_file f = read_conversations(path, 1000);
    BOOST_TEST_REQUIRE(f.conversations.size() == 2u);
    BOOST_TEST(f.conversations[0].turns[0].user == "a b c");
    BOOST_TEST(f.conversations[0].turns[0].input_tokens == 3);
    BOOST_TEST(f.conversations[1].turns[0].user == "x");
    std::remove(path.c_str());
}

BOOST_AUTO_TEST_CASE(errors_name_the_file_and_line) {
    const auto bad_line = write_temp("bad.jsonl", "{\"messages\": [{\"role\": \"user\", \"content\": \"q\"}, "
                                                  "{\"role\": \"assistant\", \"content\": \"a\"}]}\n{not json\n");
    BOOST_TEST(error_of(bad_line).find(bad_line + ":2: invalid JSON") != std::string::npos);
    const auto no_messages = write_temp("none.jsonl", "{\"prompt\": \"q\"}\n");
    BOOST_TEST(error_of(no_messages).find(no_messages + ":1: expected an object with \"messages\"") != std::string::npos);
    const auto unanswered = write_temp("unanswered.json", R"([{"conversations": [{"from": "human", "value": "q"}]}])");
    BOOST_TEST(error_of(unanswered).find("no usable conversations") != std::string::npos);
    BOOST_TEST(error_of("/nonexistent/file.jsonl").find("/nonexistent/file.jsonl: cannot open conversations file") !=
               std::string::npos);
    for (const auto& p : {bad_line, no_messages, unanswered}) std::remove(p.c_str());
}

BOOST_AUTO_TEST_SUITE_END()
