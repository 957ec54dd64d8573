#define BOOST_TEST_MODULE response_reader
#include <boost/test/unit_test.hpp>

#include "openloop/wire/response_reader.hpp"

#include <algorithm>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "count_allocations.hpp"

using test_alloc::allocations;
using namespace openloop;

namespace openloop {
std::ostream& operator<<(std::ostream& os, error_class c) { return os << error_class_name(c); }
}  // namespace openloop

namespace {

constexpr error_class none = error_class::none;

// One event as a line, so that a mismatch reads as what it is.
std::string show(const event& e) {
    static constexpr const char* kinds[] = {"start", "refused", "connect", "sent",  "headers",
                                            "chunk", "done",    "failed",  "retry"};
    std::ostringstream os;
    os << kinds[static_cast<int>(e.kind)] << " t=" << e.t_ns << " a=" << e.a << " b=" << e.b << " v=" << e.v
       << " req=" << e.request;
    return os.str();
}

struct fed {
    std::vector<event> events;
    error_class outcome = none;
    bool finished = false;
    bool at_body_end = false;
    int status = 0;
};

std::ostream& operator<<(std::ostream& os, const fed& f) {
    os << "{outcome " << f.outcome << (f.finished ? "" : " unfinished") << (f.at_body_end ? " at body end" : "");
    for (const auto& e : f.events) os << " | " << show(e);
    return os << '}';
}

bool same(const fed& x, const fed& y) {
    if (x.outcome != y.outcome || x.finished != y.finished || x.at_body_end != y.at_body_end || x.status != y.status ||
        x.events.size() != y.events.size())
        return false;
    for (std::size_t i = 0; i < x.events.size(); ++i)
        if (show(x.events[i]) != show(y.events[i])) return false;
    return true;
}

// Feeds body in pieces starting at the given offsets (the first is 0); the
// headers arrive at t = 0 and piece j's read completes at t = j + 1. The last
// piece ends the body, unless the transport fails: then one more read, with
// no bytes, carries the failure.
fed feed(int status, std::string_view body, const std::vector<std::size_t>& starts, error_class transport = none) {
    chunk_decoder decoder;
    response_reader reader(decoder);
    reader.start(7);
    fed out;
    const auto emit = [&](const event& e) { out.events.push_back(e); };
    reader.headers(status, 0, emit);
    for (std::size_t j = 0; j < starts.size(); ++j) {
        const std::size_t end = j + 1 < starts.size() ? starts[j + 1] : body.size();
        read_completion r;
        r.bytes = body.substr(starts[j], end - starts[j]);
        r.t_ns = static_cast<std::int64_t>(j + 1);
        r.body_complete = transport == none && j + 1 == starts.size();
        reader.read(r, emit);
    }
    if (transport != none) {
        read_completion r;
        r.t_ns = static_cast<std::int64_t>(starts.size() + 1);
        r.error = transport;
        reader.read(r, emit);
    }
    out.outcome = reader.outcome();
    out.finished = reader.finished();
    out.at_body_end = reader.ended_at_body_end();
    out.status = reader.status();
    return out;
}

fed feed_whole(int status, std::string_view body, error_class transport = none) {
    return feed(status, body, {0}, transport);
}

std::vector<std::size_t> bytewise(std::size_t n) {
    std::vector<std::size_t> starts(n);
    for (std::size_t i = 0; i < n; ++i) starts[i] = i;
    return starts;
}

// Byte by byte, an event's time says which byte completed it; under any other
// split it must be the read that carried that byte.
fed expected_for(const fed& bytewise_result, const std::vector<std::size_t>& starts, std::size_t size) {
    fed out = bytewise_result;
    for (event& e : out.events) {
        if (e.t_ns == 0) continue;  // the headers
        if (e.t_ns > static_cast<std::int64_t>(size)) {
            e.t_ns = static_cast<std::int64_t>(starts.size() + 1);  // the failing read after the body
            continue;
        }
        const auto byte = static_cast<std::size_t>(e.t_ns - 1);
        e.t_ns = std::upper_bound(starts.begin(), starts.end(), byte) - starts.begin();
    }
    return out;
}

// Every split into two non-empty pieces, a grid of three-way splits, random
// many-way splits (fixed seed) and the whole body at once give the events
// and the outcome that byte-at-a-time gives.
void check_splits(int status, std::string_view body, error_class transport = none) {
    BOOST_TEST_REQUIRE(body.size() >= 2u);
    const fed reference = feed(status, body, bytewise(body.size()), transport);
    BOOST_TEST_REQUIRE(reference.finished);
    std::size_t tried = 0, mismatches = 0;
    std::string first;
    const auto check = [&](const std::vector<std::size_t>& starts) {
        ++tried;
        const fed got = feed(status, body, starts, transport);
        const fed want = expected_for(reference, starts, body.size());
        if (same(got, want) || mismatches++ > 0) return;
        std::ostringstream os;
        os << "split at";
        for (const auto s : starts) os << ' ' << s;
        os << ": " << got << " expected " << want;
        first = os.str();
    };
    check({0});
    for (std::size_t i = 1; i < body.size(); ++i) check({0, i});
    const std::size_t step = std::max<std::size_t>(1, body.size() / 23);
    for (std::size_t i = 1; i < body.size(); i += step)
        for (std::size_t j = i + 1; j < body.size(); j += step) check({0, i, j});
    std::mt19937 rng(20261201);
    for (int round = 0; round < 100; ++round) {
        std::vector<std::size_t> starts{0};
        for (std::size_t pos = 0;;) {
            pos += std::uniform_int_distribution<std::size_t>(1, 64)(rng);
            if (pos >= body.size()) break;
            starts.push_back(pos);
        }
        check(starts);
    }
    BOOST_TEST(mismatches == 0u, mismatches << " of " << tried << " splits differ; first: " << first);
}

std::vector<std::string> lines(const fed& f) {
    std::vector<std::string> out;
    for (const auto& e : f.events) out.push_back(show(e));
    return out;
}

std::string with_crlf(std::string_view s) {
    std::string out;
    for (const char c : s) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

std::string with_cr(std::string_view s) {
    std::string out(s);
    std::replace(out.begin(), out.end(), '\n', '\r');
    return out;
}

// vLLM 0.6+ chat with stream_options {include_usage, continuous_usage_stats}:
// a role-only first delta, usage (cumulative) on every chunk, a usage-only
// final chunk with no choices, then [DONE].
const std::string vllm_chat =
    R"(data: {"id":"chatcmpl-7c1","object":"chat.completion.chunk","created":1733000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":12,"completion_tokens":0}})"
    "\n\n"
    R"(data: {"id":"chatcmpl-7c1","object":"chat.completion.chunk","created":1733000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":13,"completion_tokens":1}})"
    "\n\n"
    R"(data: {"id":"chatcmpl-7c1","object":"chat.completion.chunk","created":1733000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" w\u00f6rld"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":15,"completion_tokens":3}})"
    "\n\n"
    R"(data: {"id":"chatcmpl-7c1","object":"chat.completion.chunk","created":1733000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":"!"},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":16,"completion_tokens":4}})"
    "\n\n"
    R"(data: {"id":"chatcmpl-7c1","object":"chat.completion.chunk","created":1733000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[],"usage":{"prompt_tokens":12,"total_tokens":16,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":8}}})"
    "\n\n"
    "data: [DONE]\n\n";

// vLLM completions with include_usage only: text chunks, then usage.
const std::string vllm_completions =
    R"(data: {"id":"cmpl-2f","object":"text_completion","created":1733000000,"model":"Qwen/Qwen2.5-7B","choices":[{"index":0,"text":" Paris","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null})"
    "\n\n"
    R"(data: {"id":"cmpl-2f","object":"text_completion","created":1733000000,"model":"Qwen/Qwen2.5-7B","choices":[{"index":0,"text":" is","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null})"
    "\n\n"
    R"(data: {"id":"cmpl-2f","object":"text_completion","created":1733000000,"model":"Qwen/Qwen2.5-7B","choices":[{"index":0,"text":" lovely","logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":null})"
    "\n\n"
    R"(data: {"id":"cmpl-2f","object":"text_completion","created":1733000000,"model":"Qwen/Qwen2.5-7B","choices":[],"usage":{"prompt_tokens":6,"total_tokens":9,"completion_tokens":3}})"
    "\n\n"
    "data: [DONE]\n\n";

// llama.cpp's llama-server (OpenAI-compatible chat): a role chunk with null
// content, content chunks, and usage with its own timings in the final chunk,
// which carries finish_reason and an empty delta; usage comes unasked.
const std::string llama_server =
    R"(data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1733000000,"id":"chatcmpl-Qm3","model":"gpt-3.5-turbo","system_fingerprint":"b4273-a1b2c3d","object":"chat.completion.chunk"})"
    "\n\n"
    R"(data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Bonjour"}}],"created":1733000000,"id":"chatcmpl-Qm3","model":"gpt-3.5-turbo","system_fingerprint":"b4273-a1b2c3d","object":"chat.completion.chunk"})"
    "\n\n"
    R"(data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" \u00e0 tous"}}],"created":1733000000,"id":"chatcmpl-Qm3","model":"gpt-3.5-turbo","system_fingerprint":"b4273-a1b2c3d","object":"chat.completion.chunk"})"
    "\n\n"
    R"(data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1733000000,"id":"chatcmpl-Qm3","model":"gpt-3.5-turbo","system_fingerprint":"b4273-a1b2c3d","object":"chat.completion.chunk","usage":{"completion_tokens":3,"prompt_tokens":10,"total_tokens":13},"timings":{"prompt_n":10,"prompt_ms":8.51,"prompt_per_token_ms":0.851,"prompt_per_second":1175.1,"predicted_n":3,"predicted_ms":31.2,"predicted_per_token_ms":10.4,"predicted_per_second":96.2}})"
    "\n\n"
    "data: [DONE]\n\n";

// The simulator's head of every chunk.
#define SIM_HEAD R"({"id":"chatcmpl-88","object":"chat.completion.chunk","created":1733000000,"model":"sim-8b","choices":)"

// --quirk no-role-chunk,usage-in-last-chunk: usage arrives inside the last
// content chunk, with its finish_reason, and no usage-only chunk follows.
const std::string sim_usage_in_last_chunk =
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" alpha beta"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" gamma"},"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":32,"total_tokens":35,"completion_tokens":3}})"
    "\n\n"
    "data: [DONE]\n\n";

// --quirk empty-choices-chunk,keepalive-comments,no-done: a filter-result
// chunk with no choices first, ": keep-alive" comments between chunks, and
// the body ends without [DONE].
const std::string sim_comments_no_done =
    "data: " SIM_HEAD R"([]})"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    ": keep-alive\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" one"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    ": keep-alive\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" two"},"logprobs":null,"finish_reason":"stop"}]})"
    "\n\n"
    "data: " SIM_HEAD R"([],"usage":{"prompt_tokens":16,"total_tokens":18,"completion_tokens":2}})"
    "\n\n";

// The firehose coalesces events of several tokens each into one write, and
// --quirk ignore-stream-options sends no usage at all.
const std::string sim_firehose_no_usage =
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" a b c d"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" e f g h"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" i j"},"logprobs":null,"finish_reason":"length"}]})"
    "\n\n"
    "data: [DONE]\n\n";

// Field lines servers add (event, id, retry) and a comment before the first event.
const std::string with_fields =
    ": stream opened\n"
    "retry: 3000\n\n"
    "event: message\nid: 1\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":4,"total_tokens":6,"completion_tokens":2}})"
    "\n\n"
    "id: 2\ndata: " SIM_HEAD R"([{"index":0,"delta":{"content":"yz"},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"total_tokens":7,"completion_tokens":3}})"
    "\n\n"
    "data: [DONE]\n\n";

// vLLM reports an engine failure mid-stream as an error object, then [DONE].
const std::string vllm_error_mid_stream =
    R"(data: {"id":"chatcmpl-e","object":"chat.completion.chunk","created":1733000000,"model":"m","choices":[{"index":0,"delta":{"content":"Par"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    R"(data: {"error":{"object":"error","message":"The engine died unexpectedly.","type":"InternalServerError","param":null,"code":500}})"
    "\n\n"
    R"(data: {"id":"chatcmpl-e","object":"chat.completion.chunk","created":1733000000,"model":"m","choices":[{"index":0,"delta":{"content":"is"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: [DONE]\n\n";

// --fault-bad-chunk: a chunk cut off mid-object, as a buggy proxy sends.
const std::string sim_bad_chunk =
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" fine"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" tru)"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" more"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: [DONE]\n\n";

const std::string content_chunk = "data: " SIM_HEAD R"([{"index":0,"delta":{"content":"ok"},"finish_reason":null}]})"
                                  "\n\n";

}  // namespace

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

BOOST_AUTO_TEST_CASE(server_error_object) {
    const fed f = feed_whole(200, vllm_error_mid_stream);
    // What came before the error stays; nothing after it counts.
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7", "chunk t=1 a=-1 b=3 v=0 req=7"}),
               boost::test_tools::per_element());
    BOOST_TEST(f.outcome == error_class::server_error);
    BOOST_TEST(!f.at_body_end);
    check_splits(200, vllm_error_mid_stream);
    // TGI's shape.
    BOOST_TEST(feed_whole(200, content_chunk + "data: {\"error\":\"Request failed during generation\"}\n\n").outcome ==
               error_class::server_error);
}

BOOST_AUTO_TEST_CASE(bad_chunk) {
    const fed f = feed_whole(200, sim_bad_chunk);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7", "chunk t=1 a=-1 b=5 v=0 req=7"}),
               boost::test_tools::per_element());
    BOOST_TEST(f.outcome == error_class::bad_chunk);
    check_splits(200, sim_bad_chunk);
    BOOST_TEST(feed_whole(200, "data: not json\n\n").outcome == error_class::bad_chunk);
    BOOST_TEST(feed_whole(200, "data: [1,2]\n\ndata: [DONE]\n\n").outcome == error_class::bad_chunk);
}

BOOST_AUTO_TEST_CASE(an_event_past_the_sse_bound_is_a_bad_chunk) {
    const std::string huge(sse_parser::default_max_event_bytes + 1, 'x');
    BOOST_TEST(feed_whole(200, content_chunk + "data: " + huge).outcome == error_class::bad_chunk);
    // Checked even after [DONE], as before this reader existed.
    BOOST_TEST(feed_whole(200, content_chunk + "data: [DONE]\n\ndata: " + huge).outcome == error_class::bad_chunk);
}

BOOST_AUTO_TEST_CASE(statuses_other_than_200) {
    const std::string json_error = R"({"object":"error","message":"rate limited","type":"RateLimitError","code":429})";
    for (const int status : {400, 401, 404, 413, 429, 201, 204, 302}) {
        const fed f = feed_whole(status, json_error);
        BOOST_TEST(f.outcome == error_class::http_4xx, status);
        BOOST_TEST(f.at_body_end, status);
        BOOST_TEST(f.status == status);
    }
    for (const int status : {500, 502, 503, 504}) BOOST_TEST(feed_whole(status, json_error).outcome == error_class::http_5xx);
    // The body of an error answer is not read as a stream, whatever it holds.
    const fed sse_body = feed_whole(503, vllm_chat);
    BOOST_TEST(sse_body.events.size() == 1u);
    BOOST_TEST(sse_body.outcome == error_class::http_5xx);
    check_splits(429, json_error);
    // Broken before its end, the answer fails as the transport says.
    BOOST_TEST(feed_whole(500, json_error, error_class::stream_truncated).outcome == error_class::stream_truncated);
}

BOOST_AUTO_TEST_CASE(transport_failures_pass_through) {
    // Mid-stream (no [DONE] yet): the read's class is the outcome; chunks already seen stay.
    const std::string partial = vllm_chat.substr(0, vllm_chat.find("data: [DONE]"));
    for (const error_class c : {error_class::stream_truncated, error_class::timeout_first_token, error_class::timeout_idle,
                                error_class::timeout_total, error_class::body_too_large, error_class::cancelled,
                                error_class::io}) {
        const fed f = feed_whole(200, partial, c);
        BOOST_TEST(f.outcome == c);
        BOOST_TEST(f.finished);
        BOOST_TEST(!f.at_body_end);
        BOOST_TEST(f.events.size() == 4u);  // headers and three chunks, no done
    }
    check_splits(200, partial, error_class::stream_truncated);
}

BOOST_AUTO_TEST_CASE(a_failure_before_the_headers) {
    chunk_decoder decoder;
    response_reader reader(decoder);
    reader.start(3);
    int events = 0;
    read_completion r;
    r.error = error_class::timeout_first_token;
    reader.read(r, [&](const event&) { ++events; });
    BOOST_TEST(reader.finished());
    BOOST_TEST(reader.outcome() == error_class::timeout_first_token);
    BOOST_TEST(reader.status() == 0);
    BOOST_TEST(events == 0);
}

BOOST_AUTO_TEST_CASE(done_outranks_a_torn_connection) {
    // After [DONE] the stream has said everything: a reset is not a failure,
    // and the end is [DONE]'s time, not the failing read's.
    const fed f = feed(200, vllm_chat, {0, 10}, error_class::stream_truncated);
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(!f.at_body_end);  // the connection is not reusable
    BOOST_TEST(show(f.events.back()) == "done t=2 a=4 b=12 v=8 req=7");
    check_splits(200, vllm_chat, error_class::cancelled);
    // A stream that failed before it ended at that read: what the transport says later is not heard.
    BOOST_TEST(feed_whole(200, vllm_error_mid_stream, error_class::stream_truncated).outcome ==
               error_class::server_error);
}

BOOST_AUTO_TEST_CASE(nothing_after_done_counts) {
    const fed f = feed_whole(200, sim_firehose_no_usage + content_chunk + "data: {broken\n\n");
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(f.events.size() == 5u);
}

BOOST_AUTO_TEST_CASE(failure_precedence) {
    // The first stream failure decides.
    BOOST_TEST(feed_whole(200, content_chunk + "data: {x\n\ndata: {\"error\":\"e\"}\n\n").outcome == error_class::bad_chunk);
    BOOST_TEST(feed_whole(200, content_chunk + "data: {\"error\":\"e\"}\n\ndata: {x\n\n").outcome ==
               error_class::server_error);
    // A transport failure in the same read as a bad chunk outranks it.
    chunk_decoder decoder;
    response_reader reader(decoder);
    reader.start(1);
    const auto ignore = [](const event&) {};
    reader.headers(200, 0, ignore);
    read_completion r;
    r.bytes = "data: {x\n\n";
    r.t_ns = 1;
    r.error = error_class::stream_truncated;
    reader.read(r, ignore);
    BOOST_TEST(reader.outcome() == error_class::stream_truncated);
    // A stream failure in the read that ended the body outranks the end.
    reader.start(2);
    reader.headers(200, 0, ignore);
    r.error = none;
    r.body_complete = true;
    reader.read(r, ignore);
    BOOST_TEST(reader.outcome() == error_class::bad_chunk);
    BOOST_TEST(!reader.ended_at_body_end());
}

BOOST_AUTO_TEST_CASE(a_body_ending_mid_event_or_empty_completes) {
    // An unterminated last event is never dispatched; the body's end still ends the stream.
    const std::string cut = content_chunk + "data: {\"choices\":[{\"delta\":{\"content\":\"lost\"}}]}";
    const fed f = feed_whole(200, cut);
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7", "chunk t=1 a=-1 b=2 v=0 req=7",
                                                     "done t=1 a=-1 b=-1 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, cut);
    // A 200 with no body at all (Content-Length: 0) ends at the read that says so.
    const fed empty = feed(200, "", {0});
    BOOST_TEST(empty.outcome == none);
    BOOST_TEST(show(empty.events.back()) == "done t=1 a=-1 b=-1 v=-1 req=7");
}

BOOST_AUTO_TEST_CASE(reads_after_the_end_are_ignored_and_start_forgets) {
    chunk_decoder decoder;
    response_reader reader(decoder);
    std::vector<event> events;
    const auto emit = [&](const event& e) { events.push_back(e); };
    reader.start(1);
    reader.headers(200, 0, emit);
    read_completion r;
    r.bytes = vllm_chat;
    r.t_ns = 1;
    r.body_complete = true;
    reader.read(r, emit);
    const std::size_t n = events.size();
    r.bytes = content_chunk;
    r.error = error_class::io;
    reader.read(r, emit);
    BOOST_TEST(events.size() == n);
    BOOST_TEST(reader.outcome() == none);

    events.clear();
    reader.start(9);
    BOOST_TEST(!reader.finished());
    BOOST_TEST(!reader.streaming());
    reader.headers(200, 0, emit);
    r.bytes = vllm_chat;
    r.error = none;
    reader.read(r, emit);
    BOOST_TEST(events.size() == n);
    BOOST_TEST(events.back().request == 9u);
    BOOST_TEST(reader.streaming());
}

BOOST_AUTO_TEST_CASE(steady_state_reading_does_not_allocate) {
    // A long continuous-usage stream, read in 13-byte pieces so that lines
    // straddle reads.
    std::string body = "data: " SIM_HEAD R"([{"index":0,"delta":{"role":"assistant","content":""}}]})" "\n\n";
    for (int i = 1; i <= 400; ++i) {
        body += "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}],)";
        body += R"("usage":{"prompt_tokens":64,"total_tokens":)" + std::to_string(64 + i) +
                R"(,"completion_tokens":)" + std::to_string(i) + "}}\n\n";
    }
    body += "data: [DONE]\n\n";

    chunk_decoder decoder;
    response_reader reader(decoder);
    std::size_t chunks = 0;
    std::int64_t tokens = 0;
    const auto emit = [&](const event& e) {
        if (e.kind == event_kind::chunk) {
            ++chunks;
            tokens += e.a;
        }
    };
    const auto read_all = [&](std::uint64_t request) {
        reader.start(request);
        reader.headers(200, 0, emit);
        for (std::size_t pos = 0; pos < body.size(); pos += 13) {
            read_completion r;
            r.bytes = std::string_view(body).substr(pos, 13);
            r.t_ns = static_cast<std::int64_t>(pos);
            r.body_complete = pos + 13 >= body.size();
            reader.read(r, emit);
        }
    };
    read_all(1);  // warm-up: buffers grow to their working size
    BOOST_TEST_REQUIRE(reader.outcome() == none);
    const std::size_t before = allocations;
    read_all(2);
    BOOST_TEST(allocations - before == 0u);
    BOOST_TEST(reader.outcome() == none);
    BOOST_TEST(chunks == 800u);
    BOOST_TEST(tokens == 800);
}
