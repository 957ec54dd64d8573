#include <boost/test/unit_test.hpp>

// The one-pass scan of a chunk against the full decoder: where the scan
// answers, it answers as the full parse does; where the full parse is
// needed, it gives up; and the shapes real servers send are scanned.

#include "openloop/wire/chunk.hpp"
#include "openloop/wire/chunk_scan.hpp"
#include "recorded_streams.hpp"

#include <random>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_chunk_scan)

using namespace openloop;

namespace {

bool same(const chunk_info& x, const chunk_info& y) {
    return x.kind == y.kind && x.content_chars == y.content_chars && x.reasoning_chars == y.reasoning_chars &&
           x.choices == y.choices && x.finished == y.finished && x.has_usage == y.has_usage &&
           x.prompt_tokens == y.prompt_tokens && x.completion_tokens == y.completion_tokens &&
           x.cached_tokens == y.cached_tokens && x.bad_usage == y.bad_usage && x.error_code == y.error_code;
}

// The data of each event of a recorded body, [DONE] left out.
std::vector<std::string> payloads(const std::string& body) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while ((at = body.find("data: ", at)) != std::string::npos) {
        const std::size_t end = body.find('\n', at);
        std::string p = body.substr(at + 6, end - at - 6);
        if (p != "[DONE]") out.push_back(p);
        at = end;
    }
    return out;
}

// Whether the scan agrees with the full decode, or gave up.
bool agrees(chunk_decoder& d, const std::string& p) {
    const auto scanned = scan_chunk(p);
    return !scanned || same(*scanned, d.decode_full(p));
}

const std::vector<std::string>& real_payloads() {
    static const std::vector<std::string> all = [] {
        std::vector<std::string> v;
        for (const std::string* body : {&recorded::vllm_chat, &recorded::vllm_completions, &recorded::llama_server,
                                        &recorded::sim_usage_in_last_chunk, &recorded::sim_firehose_no_usage,
                                        &recorded::with_fields})
            for (auto& p : payloads(*body)) v.push_back(std::move(p));
        // Reasoning, tool calls, the legacy function call, several choices, cached tokens.
        v.push_back(R"({"choices":[{"index":0,"delta":{"reasoning_content":"think","reasoning":"think"},"finish_reason":null}]})");
        v.push_back(R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get","arguments":"{\"a\":1}"}}]}}]})");
        v.push_back(R"({"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_2"}]}}]})");
        v.push_back(R"({"choices":[{"index":0,"delta":{"function_call":{"name":"f","arguments":"{}"}}}]})");
        v.push_back(R"({"choices":[{"index":0,"text":"a"},{"index":1,"text":"\u00e9\u4f60","finish_reason":"length"}]})");
        v.push_back(R"({"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":8,"prompt_tokens_details":{"cached_tokens":8}}})");
        v.push_back(R"({"usage":{"prompt_tokens":3,"completion_tokens":4}})");
        v.push_back(R"({"choices":[{"delta":{},"finish_reason":"stop","logprobs":{"content":[{"token":"a","logprob":-0.25,"top_logprobs":[]}]}}]})");
        return v;
    }();
    return all;
}

}  // namespace

BOOST_AUTO_TEST_CASE(what_real_servers_send_is_scanned_and_decoded_alike) {
    chunk_decoder d;
    for (const std::string& p : real_payloads()) {
        const auto scanned = scan_chunk(p);
        BOOST_TEST_REQUIRE(scanned.has_value(), p);
        BOOST_TEST(same(*scanned, d.decode_full(p)), p);
    }
}

// Shapes whose meaning the full decoder decides: the scan gives up on them.
BOOST_AUTO_TEST_CASE(left_to_the_full_decoder) {
    const char* cases[] = {
        R"({"error":{"message":"boom","code":400}})",                                   // an error chunk
        R"({"object":"error","message":"boom"})",                                       // older vLLM's error
        R"({"object":"err\u006fr","message":"boom"})",                                  // escaped: cannot compare raw
        R"({"choices":[{"delta":{"con\u0074ent":"x"}}]})",                               // an escaped key
        R"({"choices":[{"delta":{"content":"a","content":"b"}}]})",                      // a key met twice
        R"({"choices":[{"delta":{"content":"\ud83d\ude00"}}]})",                         // a surrogate pair
        R"({"choices":[],"usage":{"prompt_tokens":12.0,"completion_tokens":1}})",        // 12.0 reads 12
        R"({"choices":[],"usage":{"prompt_tokens":-1}})",                                // bad, per the full decoder
        R"({"choices":[],"usage":{"prompt_tokens":1e3}})",                               // an exponent
        R"({"choices":{"index":0}})",                                                    // choices not an array
        R"({"choices":[1]})",                                                            // a choice not an object
        R"({"id":"x"})",                                                                 // malformed: no choices
        R"({"choices":[{"delta":{"content":"x"}}]} trailing)",                           // text after the value
        R"({"choices":[{"delta":{"content":"x"}},]})",                                   // a trailing comma
        R"({"choices":[{"delta":{"content":"tab	inside"}}]})",                           // a raw control character
        R"({"a":1e999,"choices":[]})",                                                   // may overflow a double
        R"({"a":[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]],"choices":[]})",      // deep
        R"({"choices":[{"delta":{"content":"x"})",                                       // cut short
    };
    chunk_decoder d;
    for (const char* p : cases) {
        BOOST_TEST(!scan_chunk(p).has_value(), p);
        d.decode(p);  // and the full decoder takes it from there
    }
}

// What the scan decides in edge cases, equal to the full decode.
BOOST_AUTO_TEST_CASE(edge_cases_decode_alike) {
    const char* cases[] = {
        R"({"choices":[{"delta":{"content":"a\nb\"c\\d\u00e9\u0000"},"finish_reason":null}]})",
        "{\"choices\":[{\"delta\":{\"content\":\"\x80\x80\"},\"finish_reason\":\"\x80\"}]}",  // no code point, yet not empty
        R"({"choices":[{"delta":{"content":""},"finish_reason":""}]})",
        R"({"choices":[{"delta":{"role":null,"content":null},"finish_reason":7}]})",
        R"({"choices":[{"delta":{"role":"assistant"}}],"usage":null})",
        R"({"choices":[],"usage":{"prompt_tokens":"12","completion_tokens":true}})",
        R"({"choices":[],"usage":{"prompt_tokens":123456789012345678,"prompt_tokens_details":null}})",
        R"({"choices":[],"usage":7})",
        R"({"choices":[{"delta":{"tool_calls":[]}}]})",
        R"({"choices":[{"delta":{"tool_calls":[5,{"function":7}]}}]})",
        R"({"choices":[{"text":5,"delta":"x"}]})",
        R"({"error":null,"object":"chat.completion.chunk","choices":[{"delta":{"content":"x"}}]})",
        R"( { "choices" : [ { "delta" : { "content" : "x" } } ] , "n" : -0.5e-3 } )",
        R"({"x":{"error":1,"usage":{"prompt_tokens":1}},"choices":[]})",
    };
    chunk_decoder d;
    for (const char* p : cases) {
        const auto scanned = scan_chunk(p);
        BOOST_TEST_REQUIRE(scanned.has_value(), p);
        BOOST_TEST(same(*scanned, d.decode_full(p)), p);
    }
}

// Real chunks cut short and mutated byte by byte: wherever the scan answers,
// it answers as the full decoder does.
BOOST_AUTO_TEST_CASE(mutations_never_disagree) {
    chunk_decoder d;
    std::mt19937 rng(11);
    std::size_t scanned = 0, tried = 0;
    for (const std::string& p : real_payloads()) {
        for (std::size_t n = 0; n < p.size(); ++n) {
            BOOST_TEST(agrees(d, p.substr(0, n)), p.substr(0, n));
            ++tried;
        }
        for (int round = 0; round < 400; ++round) {
            std::string m = p;
            const int edits = 1 + round % 3;
            for (int e = 0; e < edits; ++e) {
                const std::size_t at = std::uniform_int_distribution<std::size_t>(0, m.size() - 1)(rng);
                const char pool[] = "{}[]\",:\\ 0123456789.-eEtrufalsn\x80\xc3\x01u";
                m[at] = pool[std::uniform_int_distribution<std::size_t>(0, sizeof pool - 2)(rng)];
            }
            const auto s = scan_chunk(m);
            scanned += s.has_value();
            ++tried;
            BOOST_TEST((!s || same(*s, d.decode_full(m))), m);
        }
    }
    BOOST_TEST(scanned > 0u);
    BOOST_TEST_MESSAGE(scanned << " of " << tried << " mutated chunks scanned");
}

BOOST_AUTO_TEST_SUITE_END()
