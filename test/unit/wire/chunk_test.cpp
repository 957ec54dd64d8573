#include <boost/test/unit_test.hpp>

#include "openloop/wire/chunk.hpp"
#include "openloop/wire/response_reader.hpp"

#include <cstdlib>
#include <new>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "count_allocations.hpp"
#include "printing.hpp"

BOOST_AUTO_TEST_SUITE(unit_chunk)

using test_alloc::allocations;

namespace {

using openloop::chunk_decoder;
using openloop::chunk_info;
using openloop::chunk_kind;

chunk_info decode(std::string_view payload) {
    chunk_decoder d;
    return d.decode(payload);
}

// Checks the fields that every test cares about; usage fields are checked where relevant.
void expect(const chunk_info& c, chunk_kind kind, std::uint32_t chars, bool finished, bool has_usage) {
    BOOST_TEST(c.kind == kind);
    BOOST_TEST(c.content_chars == chars);
    BOOST_TEST(c.finished == finished);
    BOOST_TEST(c.has_usage == has_usage);
}

void expect_usage(const chunk_info& c, std::int64_t prompt, std::int64_t completion, std::int64_t cached) {
    BOOST_TEST(c.has_usage);
    BOOST_TEST(c.prompt_tokens == prompt);
    BOOST_TEST(c.completion_tokens == completion);
    BOOST_TEST(c.cached_tokens == cached);
}

}  // namespace

BOOST_AUTO_TEST_CASE(utf8_length_counts_code_points) {
    using openloop::utf8_length;
    BOOST_TEST(utf8_length("") == 0u);
    BOOST_TEST(utf8_length("abc") == 3u);
    BOOST_TEST(utf8_length("h\xc3\xa9llo") == 5u);                  // é: 2 bytes
    BOOST_TEST(utf8_length("\xe4\xbd\xa0\xe5\xa5\xbd") == 2u);      // 你好: 3 bytes each
    BOOST_TEST(utf8_length("\xf0\x9f\x98\x80!") == 2u);             // 😀: 4 bytes
}

BOOST_AUTO_TEST_CASE(vllm_chat) {
    const auto role = decode(
        R"({"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1718000000,"model":"meta-llama/Llama-3.1-8B-Instruct",)"
        R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})");
    expect(role, chunk_kind::role_only, 0, false, false);
    BOOST_TEST(role.choices == 1u);

    const auto content = decode(
        R"({"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1718000000,"model":"meta-llama/Llama-3.1-8B-Instruct",)"
        R"("choices":[{"index":0,"delta":{"content":" w\u00f6rld"},"logprobs":null,"finish_reason":null}]})");
    expect(content, chunk_kind::content, 6, false, false);
    BOOST_TEST(content.prompt_tokens == -1);

    const auto last = decode(
        R"({"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1718000000,"model":"m",)"
        R"("choices":[{"index":0,"delta":{"content":"!"},"logprobs":null,"finish_reason":"stop","stop_reason":null}]})");
    expect(last, chunk_kind::content, 1, true, false);

    const auto usage = decode(
        R"({"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1718000000,"model":"m","choices":[],)"
        R"("usage":{"prompt_tokens":12,"total_tokens":20,"completion_tokens":8,"prompt_tokens_details":{"cached_tokens":8}}})");
    expect(usage, chunk_kind::usage_only, 0, false, true);
    expect_usage(usage, 12, 8, 8);
    BOOST_TEST(usage.choices == 0u);

    BOOST_TEST(decode("[DONE]").kind == chunk_kind::done);
}

BOOST_AUTO_TEST_CASE(vllm_continuous_usage_stats) {
    // Every chunk carries usage; completion_tokens is cumulative, so the caller
    // can take per-chunk token counts as differences.
    chunk_decoder d;
    const auto role = d.decode(
        R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,)"
        R"("delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],)"
        R"("usage":{"prompt_tokens":7,"total_tokens":7,"completion_tokens":0}})");
    expect(role, chunk_kind::role_only, 0, false, true);
    expect_usage(role, 7, 0, -1);
    const char* chunks[] = {
        R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},)"
        R"("logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":7,"total_tokens":8,"completion_tokens":1}})",
        R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" there, you"},)"
        R"("logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":7,"total_tokens":11,"completion_tokens":4}})",
    };
    const std::int64_t cumulative[] = {1, 4};
    const std::uint32_t chars[] = {2, 11};
    for (int i = 0; i < 2; ++i) {
        const auto c = d.decode(chunks[i]);
        expect(c, chunk_kind::content, chars[i], false, true);
        expect_usage(c, 7, cumulative[i], -1);
    }
}

BOOST_AUTO_TEST_CASE(vllm_reasoning_and_tool_calls) {
    const auto rc = decode(R"({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"Let me think"},"finish_reason":null}]})");
    expect(rc, chunk_kind::content, 12, false, false);
    BOOST_TEST(rc.reasoning_chars == 12u);

    const auto r = decode(R"({"choices":[{"index":0,"delta":{"reasoning":"Hmm"},"finish_reason":null}]})");
    expect(r, chunk_kind::content, 3, false, false);
    BOOST_TEST(r.reasoning_chars == 3u);

    // Both spellings of the same text are counted once.
    const auto both = decode(R"({"choices":[{"index":0,"delta":{"reasoning":"ab","reasoning_content":"ab"}}]})");
    expect(both, chunk_kind::content, 2, false, false);

    const auto answer = decode(R"({"choices":[{"index":0,"delta":{"content":"42","reasoning_content":null}}]})");
    expect(answer, chunk_kind::content, 2, false, false);
    BOOST_TEST(answer.reasoning_chars == 0u);

    const auto tool_start = decode(
        R"({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"id":"chatcmpl-tool-1",)"
        R"("type":"function","index":0,"function":{"name":"get_weather"}}]},"logprobs":null,"finish_reason":null}]})");
    expect(tool_start, chunk_kind::content, 11, false, false);

    const auto tool_args = decode(
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \""}}]},"finish_reason":null}]})");
    expect(tool_args, chunk_kind::content, 10, false, false);

    // A tool call delta with only an id is still generated output.
    expect(decode(R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1"}]}}]})"),
           chunk_kind::content, 0, false, false);
    expect(decode(R"({"choices":[{"index":0,"delta":{"tool_calls":[]}}]})"), chunk_kind::empty, 0, false, false);
    expect(decode(R"({"choices":[{"index":0,"delta":{"function_call":{"arguments":"{}"}}}]})"),
           chunk_kind::content, 2, false, false);

    const auto tool_end = decode(R"({"choices":[{"index":0,"delta":{"content":""},"finish_reason":"tool_calls"}]})");
    expect(tool_end, chunk_kind::empty, 0, true, false);
}

BOOST_AUTO_TEST_CASE(vllm_completions) {
    const auto c = decode(
        R"({"id":"cmpl-3","object":"text_completion","created":1718000000,"model":"m","choices":[{"index":0,"text":" Paris",)"
        R"("logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null})");
    expect(c, chunk_kind::content, 6, false, false);

    const auto last = decode(
        R"({"id":"cmpl-3","object":"text_completion","created":1718000000,"model":"m","choices":[{"index":0,"text":".",)"
        R"("logprobs":null,"finish_reason":"length","stop_reason":null}]})");
    expect(last, chunk_kind::content, 1, true, false);

    const auto usage = decode(
        R"({"id":"cmpl-3","object":"text_completion","created":1718000000,"model":"m","choices":[],)"
        R"("usage":{"prompt_tokens":5,"total_tokens":15,"completion_tokens":10}})");
    expect(usage, chunk_kind::usage_only, 0, false, true);
    expect_usage(usage, 5, 10, -1);
}

BOOST_AUTO_TEST_CASE(vllm_errors) {
    chunk_decoder d;
    const auto e = d.decode(
        R"({"error":{"object":"error","message":"This model's maximum context length is 4096 tokens.",)"
        R"("type":"BadRequestError","param":null,"code":400}})");
    BOOST_TEST(e.kind == chunk_kind::error);
    BOOST_TEST(e.error_code == 400);

    // Older vLLM sent the error object at top level.
    const auto old = d.decode(
        R"({"object":"error","message":"The model `x` does not exist.","type":"NotFoundError","param":null,"code":404})");
    BOOST_TEST(old.kind == chunk_kind::error);
    BOOST_TEST(old.error_code == 404);

    // An error chunk leaves nothing behind: the same decoder goes on decoding content.
    BOOST_TEST(d.decode(R"({"choices":[{"delta":{"content":"x"}}]})").kind == chunk_kind::content);
}

BOOST_AUTO_TEST_CASE(sglang) {
    const auto c = decode(
        R"({"id":"5b1d6f8e","object":"chat.completion.chunk","created":1718000000,"model":"default","choices":[{"index":0,)"
        R"("delta":{"role":null,"content":"Hello","reasoning_content":null,"tool_calls":null},"logprobs":null,)"
        R"("finish_reason":null,"matched_stop":null}],"usage":null})");
    expect(c, chunk_kind::content, 5, false, false);

    const auto fin = decode(
        R"({"id":"5b1d6f8e","object":"chat.completion.chunk","created":1718000000,"model":"default","choices":[{"index":0,)"
        R"("delta":{"role":null,"content":"","reasoning_content":null,"tool_calls":null},"logprobs":null,)"
        R"("finish_reason":"stop","matched_stop":128009}],"usage":null})");
    expect(fin, chunk_kind::empty, 0, true, false);

    const auto usage = decode(
        R"({"id":"5b1d6f8e","object":"chat.completion.chunk","created":1718000000,"model":"default","choices":[],)"
        R"("usage":{"prompt_tokens":10,"total_tokens":30,"completion_tokens":20,"prompt_tokens_details":null}})");
    expect(usage, chunk_kind::usage_only, 0, false, true);
    expect_usage(usage, 10, 20, -1);

    const auto cached = decode(
        R"({"id":"x","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":10,"total_tokens":30,)"
        R"("completion_tokens":20,"prompt_tokens_details":{"cached_tokens":5}}})");
    expect_usage(cached, 10, 20, 5);
}

BOOST_AUTO_TEST_CASE(llama_cpp_server) {
    const auto role = decode(
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1718000000,)"
        R"("id":"chatcmpl-Xy","model":"gpt-3.5-turbo","system_fingerprint":"b4000-abc","object":"chat.completion.chunk"})");
    expect(role, chunk_kind::role_only, 0, false, false);

    const auto c = decode(
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":"\u4f60\u597d"}}],"created":1718000000,)"
        R"("id":"chatcmpl-Xy","model":"gpt-3.5-turbo","system_fingerprint":"b4000-abc","object":"chat.completion.chunk"})");
    expect(c, chunk_kind::content, 2, false, false);

    // The final chunk: empty delta, finish_reason, and usage sent without being asked for.
    const auto fin = decode(
        R"({"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1718000000,"id":"chatcmpl-Xy",)"
        R"("model":"gpt-3.5-turbo","system_fingerprint":"b4000-abc","object":"chat.completion.chunk",)"
        R"("usage":{"completion_tokens":10,"prompt_tokens":5,"total_tokens":15},)"
        R"("timings":{"prompt_n":5,"prompt_ms":12.3,"predicted_n":10,"predicted_ms":100.1}})");
    expect(fin, chunk_kind::usage_only, 0, true, true);
    expect_usage(fin, 5, 10, -1);

    chunk_decoder d;
    const auto e = d.decode(R"({"error":{"code":500,"message":"context shift is disabled","type":"server_error"}})");
    BOOST_TEST(e.kind == chunk_kind::error);
    BOOST_TEST(e.error_code == 500);
}

BOOST_AUTO_TEST_CASE(tgi) {
    // TGI sends no role-only chunk: the role rides along with every content delta.
    const auto first = decode(
        R"({"object":"chat.completion.chunk","id":"","created":1718000000,"model":"tgi","system_fingerprint":"2.0.4-native",)"
        R"("choices":[{"index":0,"delta":{"role":"assistant","content":"Deep"},"logprobs":null,"finish_reason":null}],"usage":null})");
    expect(first, chunk_kind::content, 4, false, false);

    const auto fin = decode(
        R"({"object":"chat.completion.chunk","id":"","created":1718000000,"model":"tgi","system_fingerprint":"2.0.4-native",)"
        R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":"eos_token"}],"usage":null})");
    expect(fin, chunk_kind::role_only, 0, true, false);

    const auto usage = decode(
        R"({"object":"chat.completion.chunk","id":"","created":1718000000,"model":"tgi","system_fingerprint":"2.0.4-native",)"
        R"("choices":[],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}})");
    expect(usage, chunk_kind::usage_only, 0, false, true);
    expect_usage(usage, 10, 20, -1);

    chunk_decoder d;
    const auto e = d.decode(R"({"error":"Request failed during generation: Server error: CUDA out of memory","error_type":"generation"})");
    BOOST_TEST(e.kind == chunk_kind::error);
    BOOST_TEST(e.error_code == 0);
}

BOOST_AUTO_TEST_CASE(openai) {
    const auto role = decode(
        R"({"id":"chatcmpl-AB","object":"chat.completion.chunk","created":1718000000,"model":"gpt-4o-mini-2024-07-18",)"
        R"("service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"role":"assistant",)"
        R"("content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null})");
    expect(role, chunk_kind::role_only, 0, false, false);

    const auto c = decode(
        R"({"id":"chatcmpl-AB","object":"chat.completion.chunk","created":1718000000,"model":"gpt-4o-mini-2024-07-18",)"
        R"("system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":"\ud83d\ude00 ok"},"logprobs":null,)"
        R"("finish_reason":null}],"usage":null})");
    expect(c, chunk_kind::content, 4, false, false);

    const auto fin = decode(
        R"({"id":"chatcmpl-AB","object":"chat.completion.chunk","created":1718000000,"model":"gpt-4o-mini-2024-07-18",)"
        R"("choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null})");
    expect(fin, chunk_kind::empty, 0, true, false);

    const auto usage = decode(
        R"({"id":"chatcmpl-AB","object":"chat.completion.chunk","created":1718000000,"model":"gpt-4o-mini-2024-07-18",)"
        R"("choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21,)"
        R"("prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},)"
        R"("completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0}}})");
    expect(usage, chunk_kind::usage_only, 0, false, true);
    expect_usage(usage, 9, 12, 0);

    const auto legacy = decode(
        R"({"id":"cmpl-8","object":"text_completion","created":1718000000,"choices":[{"text":"\n\n","index":0,)"
        R"("logprobs":null,"finish_reason":null}],"model":"gpt-3.5-turbo-instruct"})");
    expect(legacy, chunk_kind::content, 2, false, false);

    chunk_decoder d;
    const auto e = d.decode(
        R"({"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}})");
    BOOST_TEST(e.kind == chunk_kind::error);
    BOOST_TEST(e.error_code == 0);
}

BOOST_AUTO_TEST_CASE(server_deviations) {
    // Usage inside the last content chunk, together with finish_reason.
    const auto last = decode(
        R"({"choices":[{"index":0,"delta":{"content":"end"},"finish_reason":"stop"}],)"
        R"("usage":{"prompt_tokens":3,"completion_tokens":9,"total_tokens":12}})");
    expect(last, chunk_kind::content, 3, true, true);
    expect_usage(last, 3, 9, -1);

    // Empty choices, with or without a null usage.
    expect(decode(R"({"id":"x","choices":[]})"), chunk_kind::empty, 0, false, false);
    expect(decode(R"({"id":"x","choices":[],"usage":null})"), chunk_kind::empty, 0, false, false);
    // Usage without any choices member.
    expect(decode(R"({"usage":{"prompt_tokens":1,"completion_tokens":2}})"), chunk_kind::usage_only, 0, false, true);

    // choices[0].delta missing, null, or not an object.
    expect(decode(R"({"choices":[{"index":0,"finish_reason":"length"}]})"), chunk_kind::empty, 0, true, false);
    expect(decode(R"({"choices":[{"index":0,"delta":null}]})"), chunk_kind::empty, 0, false, false);
    expect(decode(R"({"choices":[{"index":0,"delta":"x"}]})"), chunk_kind::empty, 0, false, false);

    // null content, without and with a role.
    expect(decode(R"({"choices":[{"index":0,"delta":{"content":null}}]})"), chunk_kind::empty, 0, false, false);
    expect(decode(R"({"choices":[{"index":0,"delta":{"role":"assistant"}}]})"), chunk_kind::role_only, 0, false, false);

    // finish_reason on a chunk with empty content; an empty finish_reason is no finish.
    expect(decode(R"({"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]})"),
           chunk_kind::empty, 0, true, false);
    expect(decode(R"({"choices":[{"index":0,"delta":{"content":""},"finish_reason":""}]})"),
           chunk_kind::empty, 0, false, false);

    // Whitespace is generated text too.
    expect(decode(R"({"choices":[{"delta":{"content":" "}}]})"), chunk_kind::content, 1, false, false);

    // n > 1: content of all choices counts.
    const auto two = decode(R"({"choices":[{"index":0,"delta":{"content":"ab"}},{"index":1,"delta":{"content":"cde"},"finish_reason":"stop"}]})");
    expect(two, chunk_kind::content, 5, true, false);
    BOOST_TEST(two.choices == 2u);

    // A null error member is no error.
    expect(decode(R"({"error":null,"choices":[{"delta":{"content":"x"}}]})"), chunk_kind::content, 1, false, false);

    // Token counts written as floats are accepted when integral; other types are not counts.
    const auto odd = decode(R"({"choices":[],"usage":{"prompt_tokens":12.0,"completion_tokens":"3"}})");
    expect_usage(odd, 12, -1, -1);

    // Whitespace around the payload and around [DONE].
    BOOST_TEST(decode(" [DONE]\r\n").kind == chunk_kind::done);
    BOOST_TEST(decode("\t{\"choices\":[{\"delta\":{\"content\":\"x\"}}]} \n").kind == chunk_kind::content);
}

BOOST_AUTO_TEST_CASE(malformed_payloads) {
    const char* bad[] = {
        "",         " ",           "[DONE",      "[DONE]]",   "DONE",        "[\"DONE\"]", "hello",
        "{",        "{}",          "null",       "42",        "\"text\"",    "[]",         "[{\"choices\":[]}]",
        "{\"choices\":{}}",        "{\"choices\":\"x\"}",      "{\"choices\":[1]}",       "{\"choices\":[null]}",
        "{\"choices\":[]} trailing", "{\"choices\":[]}{\"choices\":[]}", "{\"id\":\"x\",\"object\":\"chat.completion.chunk\"}",
        "{\"choices\":[{\"delta\":{\"content\":\"x\"}}]",
    };
    for (const char* s : bad)
        BOOST_TEST(decode(s).kind == chunk_kind::malformed, "payload: " << s);

    // Nesting deeper than the parser allows is rejected, not a crash.
    BOOST_TEST(decode(std::string(10000, '[') + std::string(10000, ']')).kind == chunk_kind::malformed);
    // A malformed chunk reports nothing else.
    const auto m = decode("{\"choices\":[1],\"usage\":{\"prompt_tokens\":1}}");
    expect(m, chunk_kind::malformed, 0, false, false);
}

BOOST_AUTO_TEST_CASE(content_chars_saturates_and_handles_invalid_utf8) {
    // Invalid UTF-8 must not cost the chunk: it decodes, with an approximate count.
    const auto c = decode("{\"choices\":[{\"delta\":{\"content\":\"a\xff\xc3\"}}]}");
    BOOST_TEST(c.kind == chunk_kind::content);
    BOOST_TEST(c.content_chars == 3u);

    // A long chunk is counted in full (and the arena spills to the heap for it).
    const std::string long_text(100000, 'x');
    const auto l = decode("{\"choices\":[{\"delta\":{\"content\":\"" + long_text + "\"}}]}");
    BOOST_TEST(l.content_chars == 100000u);
}

BOOST_AUTO_TEST_CASE(random_bytes_are_malformed) {
    chunk_decoder d;
    std::mt19937 rng(2024);
    std::string s;
    std::size_t not_malformed = 0;
    for (int i = 0; i < 20000; ++i) {
        s.resize(std::uniform_int_distribution<std::size_t>(0, 80)(rng));
        for (char& c : s)
            c = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
        not_malformed += d.decode(s).kind != chunk_kind::malformed;
    }
    BOOST_TEST(not_malformed == 0u);

    // JSON-ish noise can form valid JSON; it must never crash, and it decodes to a valid kind.
    const std::string alphabet = "{}[]\":,. 0123456789-eE\\ntruefalsnchoicesdeltacontentusageerror";
    std::size_t kinds_ok = 0;
    const int rounds = 20000;
    for (int i = 0; i < rounds; ++i) {
        s.resize(std::uniform_int_distribution<std::size_t>(0, 80)(rng));
        for (char& c : s)
            c = alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
        kinds_ok += d.decode(s).kind <= chunk_kind::malformed;
    }
    BOOST_TEST(kinds_ok == static_cast<std::size_t>(rounds));
}

BOOST_AUTO_TEST_CASE(truncated_and_mutated_real_chunks) {
    const std::string real[] = {
        R"({"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1718000000,"model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]})",
        R"({"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1718000000,"model":"m","choices":[],"usage":{"prompt_tokens":12,"total_tokens":20,"completion_tokens":8}})",
        R"({"error":{"object":"error","message":"boom","type":"BadRequestError","param":null,"code":400}})",
    };
    chunk_decoder d;
    std::size_t truncated_not_malformed = 0;
    for (const auto& p : real) {
        // Every proper prefix is incomplete JSON.
        for (std::size_t n = 0; n < p.size(); ++n)
            truncated_not_malformed += d.decode(std::string_view(p).substr(0, n)).kind != chunk_kind::malformed;
        // Every single-byte change decodes to something without crashing, and the
        // decoder is unaffected for the next chunk.
        std::mt19937 rng(7);
        for (std::size_t i = 0; i < p.size(); ++i) {
            std::string m = p;
            m[i] = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
            BOOST_TEST(d.decode(m).kind <= chunk_kind::malformed);
            BOOST_TEST(d.decode(p).kind != chunk_kind::malformed);
        }
    }
    BOOST_TEST(truncated_not_malformed == 0u);
}

BOOST_AUTO_TEST_CASE(steady_state_does_not_allocate) {
    chunk_decoder d;
    const std::string chunks[] = {
        R"({"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1718000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})",
        R"({"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1718000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" world"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":7,"total_tokens":11,"completion_tokens":4}})",
        R"({"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1718000000,"model":"m","choices":[],"usage":{"prompt_tokens":12,"total_tokens":20,"completion_tokens":8,"prompt_tokens_details":{"cached_tokens":8}}})",
        "[DONE]",
    };
    for (const auto& c : chunks)
        d.decode(c);
    const std::size_t before = allocations;
    std::uint64_t chars = 0;
    for (int i = 0; i < 1000; ++i)
        for (const auto& c : chunks)
            chars += d.decode(c).content_chars;
    BOOST_TEST(allocations - before == 0u);
    BOOST_TEST(chars == 6000u);
}

// Found by test/fuzz/chunk_fuzz: every chunk too large for the decoder's arena
// used to double the heap block the next one got, so a stream of them asked
// for 2 GiB after 17 chunks and failed with bad_alloc soon after.
BOOST_AUTO_TEST_CASE(large_chunks_do_not_grow_the_heap_block) {
    chunk_decoder d;
    const std::string big = R"({"choices":[{"index":0,"delta":{"content":")" + std::string(40000, 'x') +
                            R"("},"finish_reason":null}]})";
    for (int i = 0; i < 64; ++i) {
        const chunk_info info = d.decode(big);
        BOOST_TEST_REQUIRE(info.content_chars == 40000u);
    }
    BOOST_TEST(test_alloc::largest < std::size_t{1} << 20, "largest allocation " << test_alloc::largest << " bytes");
}

namespace {

// vLLM's chat stream of a tool call (its hermes parser): a role delta, the call's id and
// name, its arguments in pieces, finish_reason tool_calls, then usage. A second call
// (index 1) in the last piece: the collector keeps the first only.
#define TOOL_HEAD R"({"id":"chatcmpl-9f2","object":"chat.completion.chunk","created":1733000000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":)"
const std::string vllm_tool_call =
    "data: " TOOL_HEAD R"({"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})" "\n\n"
    "data: " TOOL_HEAD R"({"tool_calls":[{"id":"chatcmpl-tool-5b1c2f9e0a7d4e3f","type":"function","index":0,"function":{"name":"tool_1"}}]},"logprobs":null,"finish_reason":null}]})" "\n\n"
    "data: " TOOL_HEAD R"({"tool_calls":[{"index":0,"function":{"arguments":"{\"query\": \""}}]},"logprobs":null,"finish_reason":null}]})" "\n\n"
    "data: " TOOL_HEAD R"({"tool_calls":[{"index":0,"function":{"arguments":"river st\u00f6ne"}}]},"logprobs":null,"finish_reason":null}]})" "\n\n"
    "data: " TOOL_HEAD R"({"tool_calls":[{"index":0,"function":{"arguments":"\"}"}},{"index":1,"id":"call_2","type":"function","function":{"name":"tool_2","arguments":"{}"}}]},"logprobs":null,"finish_reason":"tool_calls","stop_reason":null}]})" "\n\n"
    R"(data: {"id":"chatcmpl-9f2","object":"chat.completion.chunk","created":1733000000,"model":"Qwen/Qwen3-8B","choices":[],"usage":{"prompt_tokens":30,"total_tokens":38,"completion_tokens":8}})" "\n\n"
    "data: [DONE]\n\n";
#undef TOOL_HEAD

// The answer a session keeps of body, read through the response reader as a run reads it.
openloop::streamed_answer collected(std::string_view body, std::size_t piece) {
    using namespace openloop;
    chunk_decoder decoder;
    response_reader reader(decoder);
    streamed_answer answer;
    answer.text = "left from the last turn";
    reader.start(1, response_mode::stream, &answer);
    const auto ignore = [](const event&) {};
    reader.headers(200, "text/event-stream", 0, ignore);
    for (std::size_t at = 0; at < body.size(); at += piece) {
        read_completion r;
        r.bytes = body.substr(at, piece);
        r.t_ns = static_cast<std::int64_t>(at + 1);
        r.body_complete = at + piece >= body.size();
        reader.read(r, ignore);
    }
    BOOST_TEST((reader.outcome() == error_class::none));
    return answer;
}

}  // namespace

// Both calls of an answer that made two at once (index 0 and 1), each whole: a session
// answers every one.
BOOST_AUTO_TEST_CASE(the_answer_collector_keeps_every_streamed_tool_call) {
    for (const std::size_t piece : {vllm_tool_call.size(), std::size_t{1}, std::size_t{7}}) {
        const openloop::streamed_answer a = collected(vllm_tool_call, piece);
        BOOST_TEST(a.tool_call);
        BOOST_TEST_REQUIRE(a.calls.size() == 2u);
        BOOST_TEST(a.calls[0].id == "chatcmpl-tool-5b1c2f9e0a7d4e3f");
        BOOST_TEST(a.calls[0].name == "tool_1");
        BOOST_TEST(a.calls[0].arguments == "{\"query\": \"river st\xc3\xb6ne\"}");
        BOOST_TEST(a.calls[1].id == "call_2");
        BOOST_TEST(a.calls[1].name == "tool_2");
        BOOST_TEST(a.calls[1].arguments == "{}");
        BOOST_TEST(a.text.empty());
    }
    // A text answer is text, and says it called nothing.
    openloop::streamed_answer text;
    openloop::chunk_decoder d;
    text.tool_call = true;
    text.clear();
    d.append_text(R"({"choices":[{"index":0,"delta":{"content":"4"}}]})", text);
    d.append_text(R"({"choices":[{"index":0,"delta":{"content":"2"}}]})", text);
    BOOST_TEST(text.text == "42");
    BOOST_TEST(!text.tool_call);
    // A server that repeats the call's name in each delta still names one function.
    openloop::streamed_answer repeated;
    d.append_text(R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"tool_0","arguments":"{"}}]}}]})", repeated);
    d.append_text(R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"tool_0","arguments":"}"}}]}}]})", repeated);
    BOOST_TEST_REQUIRE(repeated.calls.size() == 1u);
    BOOST_TEST(repeated.calls[0].name == "tool_0");
    BOOST_TEST(repeated.calls[0].arguments == "{}");
    BOOST_TEST(repeated.calls[0].id == "c1");
    // An index past any server's parallel calls, or not an index, is not kept.
    openloop::streamed_answer hostile;
    d.append_text(R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1000000000,"id":"c9"},{"index":"x","id":"c8"}]}}]})", hostile);
    BOOST_TEST(hostile.calls.empty());
}

BOOST_AUTO_TEST_SUITE_END()
