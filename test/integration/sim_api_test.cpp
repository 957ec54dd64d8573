#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/measure/resource_usage.hpp"
#include "openloop/media/base64.hpp"
#include "openloop/media/image_codec.hpp"
#include "openloop/sim/engine.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <chrono>
#include <fstream>
#include <thread>

BOOST_AUTO_TEST_SUITE(it_sim_api)

namespace json = boost::json;
using namespace test_http;

namespace {

struct sim {
    openloop::sim_child child;
    explicit sim(std::vector<std::string> args) : child(openloop::start_sim(openloop_test::bin, args)) {}
    unsigned short port() const { return child.port; }
};

std::string prompt_of(int words) {
    std::string p;
    openloop::append_words(p, words, 42);
    return p;
}

// Every data payload but [DONE] parsed as JSON.
std::vector<json::object> chunks(const std::string& body, bool& saw_done) {
    std::vector<json::object> out;
    saw_done = false;
    for (const auto& d : sse_data(body)) {
        BOOST_TEST_REQUIRE(!saw_done, "no event may follow [DONE]");
        if (d == "[DONE]") {
            saw_done = true;
            continue;
        }
        out.push_back(json::parse(d).as_object());
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(health_models_and_errors) {
    sim s({"--preset", "firehose", "--max-model-len", "4096"});
    auto h = get(s.port(), "/health");
    BOOST_TEST(h.status == 200);
    auto m = get(s.port(), "/v1/models");
    BOOST_TEST(m.status == 200);
    auto models = json::parse(m.body).as_object();
    BOOST_TEST(models.at("data").as_array().at(0).as_object().at("id").as_string() == "openloop-sim");

    auto missing = get(s.port(), "/v1/nothing");
    BOOST_TEST(missing.status == 404);
    BOOST_TEST(json::parse(missing.body).as_object().at("detail").as_string() == "Not Found");
    BOOST_TEST(get(s.port(), "/v1/chat/completions").status == 405);

    auto bad = post(s.port(), "/v1/chat/completions", "{not json");
    BOOST_TEST(bad.status == 400);
    auto err = json::parse(bad.body).as_object().at("error").as_object();
    BOOST_TEST(err.at("type").as_string() == "BadRequestError");
    BOOST_TEST(err.at("code").as_int64() == 400);

    auto wrong_model = post(s.port(), "/v1/completions", R"({"model":"gpt-9","prompt":"hi"})");
    BOOST_TEST(wrong_model.status == 404);
    auto too_long = post(s.port(), "/v1/completions", R"({"prompt":"hi there","max_tokens":5000})");
    BOOST_TEST(too_long.status == 400);
    BOOST_TEST(too_long.body.find("maximum context length") != std::string::npos);
    auto n2 = post(s.port(), "/v1/completions", R"({"prompt":"hi","n":2})");
    BOOST_TEST(n2.status == 400);
}

BOOST_AUTO_TEST_CASE(streamed_chat_is_vllm_shaped) {
    sim s({"--preset", "cpu-small"});
    const int prompt_words = 37, max_tokens = 20;
    json::object req{{"model", "openloop-sim"},
                     {"messages", json::array{json::object{{"role", "user"}, {"content", prompt_of(prompt_words)}}}},
                     {"max_tokens", max_tokens}, {"ignore_eos", true}, {"stream", true},
                     {"stream_options", json::object{{"include_usage", true}}}};
    auto r = post(s.port(), "/v1/chat/completions", json::serialize(req), {{"x-request-id", "abc-1"}});
    BOOST_TEST_REQUIRE(r.status == 200);
    BOOST_TEST(!r.error);
    BOOST_TEST(r.headers["Content-Type"] == "text/event-stream");
    BOOST_TEST(r.headers["x-request-id"] == "abc-1");
    bool done = false;
    auto cs = chunks(r.body, done);
    BOOST_TEST(done);
    BOOST_TEST_REQUIRE(cs.size() >= 3u);
    // First: role only. Last: usage only, with empty choices.
    auto first = cs.front().at("choices").as_array().at(0).as_object().at("delta").as_object();
    BOOST_TEST(first.at("role").as_string() == "assistant");
    BOOST_TEST(first.at("content").as_string() == "");
    auto last = cs.back();
    BOOST_TEST(last.at("choices").as_array().empty());
    auto usage = last.at("usage").as_object();
    BOOST_TEST(usage.at("prompt_tokens").as_int64() == prompt_words);
    BOOST_TEST(usage.at("completion_tokens").as_int64() == max_tokens);
    BOOST_TEST(usage.at("total_tokens").as_int64() == prompt_words + max_tokens);

    int words = 0;
    std::string finish;
    for (std::size_t i = 1; i + 1 < cs.size(); ++i) {
        BOOST_TEST(cs[i].at("object").as_string() == "chat.completion.chunk");
        auto c = cs[i].at("choices").as_array().at(0).as_object();
        words += openloop::count_text_tokens(c.at("delta").as_object().at("content").as_string());
        BOOST_TEST(!cs[i].contains("usage"), "usage only on the final chunk unless continuous_usage_stats");
        if (c.at("finish_reason").is_string()) finish = c.at("finish_reason").as_string();
    }
    BOOST_TEST(words == max_tokens);
    BOOST_TEST(finish == "length");
}

BOOST_AUTO_TEST_CASE(streamed_completions_with_token_ids_and_continuous_usage) {
    sim s({"--preset", "cpu-small", "--tokens-per-chunk", "3"});
    json::array ids;
    for (int i = 0; i < 50; ++i) ids.push_back(1000 + i);
    json::object req{{"prompt", ids}, {"max_tokens", 10}, {"ignore_eos", true}, {"stream", true},
                     {"stream_options", json::object{{"include_usage", true}, {"continuous_usage_stats", true}}}};
    auto r = post(s.port(), "/v1/completions", json::serialize(req));
    BOOST_TEST_REQUIRE(r.status == 200);
    bool done = false;
    auto cs = chunks(r.body, done);
    BOOST_TEST(done);
    std::int64_t cumulative = 0;
    std::vector<int> per_chunk;
    for (std::size_t i = 0; i + 1 < cs.size(); ++i) {
        BOOST_TEST(cs[i].at("object").as_string() == "text_completion");
        const int k = openloop::count_text_tokens(cs[i].at("choices").as_array().at(0).as_object().at("text").as_string());
        per_chunk.push_back(k);
        cumulative += k;
        auto u = cs[i].at("usage").as_object();
        BOOST_TEST(u.at("prompt_tokens").as_int64() == 50);
        BOOST_TEST(u.at("completion_tokens").as_int64() == cumulative, "usage is cumulative on every chunk");
    }
    BOOST_TEST(cumulative == 10);
    // Three tokens per decode step go out as one chunk: 1 (prefill step), 3, 3, 3.
    BOOST_TEST(per_chunk == (std::vector<int>{1, 3, 3, 3}), boost::test_tools::per_element());
    BOOST_TEST(cs.back().at("usage").as_object().at("completion_tokens").as_int64() == 10);
}

BOOST_AUTO_TEST_CASE(non_streaming_and_determinism) {
    sim s({"--preset", "firehose"});
    const std::string body = R"({"messages":[{"role":"user","content":"one two three"}],"max_tokens":12,"temperature":0})";
    auto a = post(s.port(), "/v1/chat/completions", body);
    auto b = post(s.port(), "/v1/chat/completions", body);
    BOOST_TEST_REQUIRE(a.status == 200);
    auto oa = json::parse(a.body).as_object();
    auto ob = json::parse(b.body).as_object();
    const auto text = oa.at("choices").as_array().at(0).as_object().at("message").as_object().at("content").as_string();
    BOOST_TEST(text == ob.at("choices").as_array().at(0).as_object().at("message").as_object().at("content").as_string());
    const auto completion = oa.at("usage").as_object().at("completion_tokens").as_int64();
    BOOST_TEST(completion >= 1);
    BOOST_TEST(completion <= 12);
    BOOST_TEST(openloop::count_text_tokens(text) == completion);
    BOOST_TEST(oa.at("usage").as_object().at("prompt_tokens").as_int64() == 3);
}

BOOST_AUTO_TEST_CASE(prefix_cache_reports_cached_tokens) {
    sim s({"--preset", "cpu-small"});
    const std::string p = prompt_of(200);
    json::object req{{"prompt", p}, {"max_tokens", 2}, {"ignore_eos", true}};
    auto first = json::parse(post(s.port(), "/v1/completions", json::serialize(req)).body).as_object();
    BOOST_TEST(!first.at("usage").as_object().contains("prompt_tokens_details"));
    auto second = json::parse(post(s.port(), "/v1/completions", json::serialize(req)).body).as_object();
    const auto& details = second.at("usage").as_object().at("prompt_tokens_details").as_object();
    BOOST_TEST(details.at("cached_tokens").as_int64() >= 176);  // 200 words = 12 full 16-token blocks
}

BOOST_AUTO_TEST_CASE(metrics_parse_as_prometheus_text) {
    sim s({"--preset", "cpu-small"});
    post(s.port(), "/v1/completions", R"({"prompt":"a b c","max_tokens":4,"ignore_eos":true})");
    auto m = get(s.port(), "/metrics");
    BOOST_TEST_REQUIRE(m.status == 200);
    std::map<std::string, double> values;
    std::istringstream in(m.body);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto sp = line.rfind(' ');
        BOOST_TEST_REQUIRE(sp != std::string::npos, line);
        std::string name = line.substr(0, sp);
        name = name.substr(0, name.find('{'));
        std::size_t used = 0;
        const double v = std::stod(line.substr(sp + 1), &used);
        BOOST_TEST(used == line.size() - sp - 1, line);
        values[name] = v;
    }
    for (const char* name : {"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
                             "vllm:generation_tokens_total", "vllm:prompt_tokens_total", "process_resident_memory_bytes"})
        BOOST_TEST(values.count(name) == 1u, name);
    BOOST_TEST(values["vllm:generation_tokens_total"] == 4);
    BOOST_TEST(values["vllm:prompt_tokens_total"] == 3);
    BOOST_TEST(values["process_resident_memory_bytes"] > 1e6);
}

BOOST_AUTO_TEST_CASE(server_log_has_ordered_timestamps) {
    temp_dir dir;
    const auto log = dir.file("sim.jsonl");
    {
        sim s({"--preset", "cpu-small", "--log", log});
        for (int i = 0; i < 3; ++i)
            post(s.port(), "/v1/completions",
                 R"({"prompt":"x y z","max_tokens":5,"ignore_eos":true,"stream":true})", {{"x-request-id", "r" + std::to_string(i)}});
    }
    std::ifstream in(log);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        auto o = json::parse(line).as_object();
        BOOST_TEST(o.at("request_id").as_string() == "r" + std::to_string(n));
        const auto a = o.at("arrival_ns").as_int64(), f = o.at("first_token_ns").as_int64(),
                   l = o.at("last_token_ns").as_int64(), e = o.at("end_ns").as_int64();
        BOOST_TEST(a < f);
        BOOST_TEST(f < l);
        BOOST_TEST(l <= e);
        BOOST_TEST(o.at("completion_tokens").as_int64() == 5);
        BOOST_TEST(o.at("prompt_tokens").as_int64() == 3);
        ++n;
    }
    BOOST_TEST(n == 3);
}

BOOST_AUTO_TEST_CASE(serves_https_with_a_self_signed_certificate) {
    temp_dir dir;
    std::string cert, key;
    BOOST_TEST_REQUIRE(make_self_signed(dir, cert, key));
    sim s({"--preset", "firehose", "--tls-cert", cert, "--tls-key", key});
    BOOST_TEST(s.child.url.rfind("https://", 0) == 0u);
    request_options o;
    o.tls = true;
    o.ca_file = cert;
    o.method = "POST";
    o.target = "/v1/completions";
    o.body = R"({"prompt":"hello","max_tokens":3,"ignore_eos":true,"stream":true})";
    auto ok = request(s.port(), o);
    BOOST_TEST(ok.status == 200);
    BOOST_TEST(ok.body.find("[DONE]") != std::string::npos);
    o.ca_file.clear();  // the system trust store does not know our certificate
    auto refused = request(s.port(), o);
    BOOST_TEST(refused.status == 0);
    BOOST_TEST(refused.error.failed());
}

BOOST_AUTO_TEST_CASE(capacity_prediction_is_printed) {
    temp_dir dir;
    const auto out = dir.file("cap.json");
    const std::string cmd = std::string(openloop_test::bin) +
                            " sim --preset cpu-small --capacity --input-len 128 --output-len 64 --json > " + out;
    BOOST_TEST_REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(out);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    auto o = json::parse(text).as_object();
    const double rate = o.at("max_request_rate").as_double();
    const auto expected = openloop::predict_capacity(*openloop::find_preset("cpu-small"), 128, 64);
    BOOST_TEST(rate == expected.max_request_rate, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(rate > 1.0);
    BOOST_TEST(rate < 10.0);
}

namespace {

// True when the server closes the connection within `within`: a read meets
// EOF or a reset. False when it is still open then, or bytes arrive.
bool closed_by_server(tcp::socket& s, std::chrono::milliseconds within) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    s.non_blocking(true);
    bool closed = false;
    for (;;) {
        char byte;
        boost::system::error_code ec;
        s.read_some(net::buffer(&byte, 1), ec);
        if (ec == net::error::eof || ec == net::error::connection_reset) {
            closed = true;
            break;
        }
        if (ec != net::error::would_block || std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    s.non_blocking(false);
    return closed;
}

request_options health() {
    request_options o;
    o.target = "/health";
    return o;
}

double metric_value(unsigned short port, const std::string& series) {
    const auto body = get(port, "/metrics").body;
    const auto at = body.find("\n" + series + " ");
    BOOST_TEST_REQUIRE(at != std::string::npos, series);
    return std::stod(body.substr(at + series.size() + 2));
}

}  // namespace

BOOST_AUTO_TEST_CASE(idle_keep_alive_connections_are_closed_after_the_timeout) {
    sim s({"--preset", "firehose", "--keep-alive-timeout", "1s"});
    net::io_context io;
    const tcp::endpoint ep(net::ip::make_address("127.0.0.1"), s.port());

    // A second request 0.3 s after the first is served on the same connection.
    beast::tcp_stream reused(io);
    reused.connect(ep);
    BOOST_TEST(exchange(reused, health(), s.port()).status == 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto second = exchange(reused, health(), s.port());
    BOOST_TEST(second.status == 200);
    BOOST_TEST(!second.error);
    reused.close();  // closed by the client: not the server's timeout

    // Idle after a response: closed, and not before its second was up. Timed from before the
    // request, so however late the test or the server ran, the close can come no sooner than
    // 1 s after; the bound after it only ends a test whose server never closes.
    beast::tcp_stream idle(io);
    idle.connect(ep);
    const auto asked = std::chrono::steady_clock::now();
    BOOST_TEST(exchange(idle, health(), s.port()).status == 200);
    BOOST_TEST(closed_by_server(idle.socket(), std::chrono::seconds(20)));
    BOOST_TEST((std::chrono::steady_clock::now() - asked >= std::chrono::seconds(1)));
    // A client that writes anyway gets no response.
    auto late = exchange(idle, health(), s.port());
    BOOST_TEST(late.status == 0);
    BOOST_TEST(late.error.failed());

    // A connection that never sends a request gets the same budget.
    beast::tcp_stream silent(io);
    const auto connected = std::chrono::steady_clock::now();
    silent.connect(ep);
    BOOST_TEST(closed_by_server(silent.socket(), std::chrono::seconds(20)));
    BOOST_TEST((std::chrono::steady_clock::now() - connected >= std::chrono::seconds(1)));
    BOOST_TEST(metric_value(s.port(), "openloop_sim_keepalive_closes_total{reason=\"idle_timeout\"}") == 2);
}

BOOST_AUTO_TEST_CASE(idle_tls_connections_are_closed_too) {
    temp_dir dir;
    std::string cert, key;
    BOOST_TEST_REQUIRE(make_self_signed(dir, cert, key));
    sim s({"--preset", "firehose", "--keep-alive-timeout", "500ms", "--tls-cert", cert, "--tls-key", key});
    net::io_context io;
    ssl::context ctx(ssl::context::tls_client);
    ctx.set_verify_mode(ssl::verify_peer);
    ctx.load_verify_file(cert);
    beast::ssl_stream<beast::tcp_stream> stream(io, ctx);
    beast::get_lowest_layer(stream).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), s.port()));
    stream.handshake(ssl::stream_base::client);
    BOOST_TEST(exchange(stream, health(), s.port()).status == 200);
    // Closed at the TCP level, without a TLS close_notify first, as a server that times out does.
    BOOST_TEST(closed_by_server(beast::get_lowest_layer(stream).socket(), std::chrono::seconds(20)));
}

BOOST_AUTO_TEST_CASE(keep_alive_timeout_zero_keeps_idle_connections) {
    sim s({"--preset", "firehose", "--keep-alive-timeout", "0"});
    net::io_context io;
    beast::tcp_stream stream(io);
    stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), s.port()));
    BOOST_TEST(exchange(stream, health(), s.port()).status == 200);
    BOOST_TEST(!closed_by_server(stream.socket(), std::chrono::milliseconds(1200)));
    BOOST_TEST(exchange(stream, health(), s.port()).status == 200);
}

BOOST_AUTO_TEST_CASE(the_last_request_of_a_connection_gets_connection_close) {
    sim s({"--preset", "firehose", "--keep-alive-max-requests", "2"});
    net::io_context io;
    beast::tcp_stream stream(io);
    stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), s.port()));
    auto first = exchange(stream, health(), s.port());
    BOOST_TEST(first.status == 200);
    BOOST_TEST(first.headers.count("Connection") == 0u);
    request_options o;
    o.method = "POST";
    o.target = "/v1/completions";
    o.body = R"({"prompt":"hello","max_tokens":3,"ignore_eos":true,"stream":true})";
    auto second = exchange(stream, o, s.port());
    BOOST_TEST(second.status == 200);
    BOOST_TEST(!second.error);
    BOOST_TEST(second.headers["Connection"] == "close");
    BOOST_TEST(second.body.find("[DONE]") != std::string::npos);
    BOOST_TEST(closed_by_server(stream.socket(), std::chrono::seconds(20)));
    BOOST_TEST(metric_value(s.port(), "openloop_sim_keepalive_closes_total{reason=\"max_requests\"}") == 1);
}

BOOST_AUTO_TEST_CASE(tokenize_under_words_counts_words) {
    sim s({"--preset", "firehose", "--max-model-len", "4096"});
    auto r = post(s.port(), "/tokenize", R"({"model":"openloop-sim","prompt":"the model outside"})");
    BOOST_TEST_REQUIRE(r.status == 200);
    auto o = json::parse(r.body).as_object();
    BOOST_TEST(o.at("count").as_int64() == 3);
    BOOST_TEST(o.at("max_model_len").as_int64() == 4096);
    BOOST_TEST(o.at("tokens").as_array().size() == 3u);
    auto chat = post(s.port(), "/tokenize", R"({"messages":[{"role":"user","content":"one two"},{"role":"user","content":"three"}]})");
    BOOST_TEST(json::parse(chat.body).as_object().at("count").as_int64() == 3);

    auto wrong_model = post(s.port(), "/tokenize", R"({"model":"gpt-9","prompt":"hi"})");
    BOOST_TEST(wrong_model.status == 404);
    BOOST_TEST(json::parse(wrong_model.body).as_object().at("error").as_object().at("type").as_string() == "NotFoundError");
    BOOST_TEST(post(s.port(), "/tokenize", "{not json").status == 400);
    BOOST_TEST(post(s.port(), "/tokenize", R"({"prompt":[1,2]})").status == 400);
    BOOST_TEST(get(s.port(), "/tokenize").status == 405);
}

BOOST_AUTO_TEST_CASE(subword_tokenize_matches_usage) {
    sim s({"--preset", "cpu-small", "--tokenizer", "subword"});
    const std::string prompt = "internationalization of the outside model servers";
    auto t = post(s.port(), "/tokenize", json::serialize(json::object{{"prompt", prompt}}));
    BOOST_TEST_REQUIRE(t.status == 200);
    auto to = json::parse(t.body).as_object();
    const auto count = to.at("count").as_int64();
    BOOST_TEST(count == 1 + 3 + 1 + 1 + 3 + 2 + 3);  // BOS, then 1-3 tokens a word by its length
    BOOST_TEST(count != openloop::count_text_tokens(prompt));
    BOOST_TEST(to.at("tokens").as_array().size() == std::size_t(count));
    for (const auto& id : to.at("tokens").as_array()) {
        BOOST_TEST(id.is_int64());
        BOOST_TEST(id.to_number<std::int64_t>() >= 0);
        BOOST_TEST(id.to_number<std::int64_t>() < 32000);
    }
    auto c = post(s.port(), "/v1/completions",
                  json::serialize(json::object{{"prompt", prompt}, {"max_tokens", 2}, {"ignore_eos", true}}));
    BOOST_TEST_REQUIRE(c.status == 200);
    BOOST_TEST(json::parse(c.body).as_object().at("usage").as_object().at("prompt_tokens").as_int64() == count);
    // The ids /tokenize shows are the ids the engine saw: sent back as a prompt they hit the prefix cache.
    const std::string long_prompt = prompt_of(60);
    auto lt = json::parse(post(s.port(), "/tokenize", json::serialize(json::object{{"prompt", long_prompt}})).body).as_object();
    const auto long_count = lt.at("count").as_int64();
    BOOST_TEST(long_count > 60);
    post(s.port(), "/v1/completions",
         json::serialize(json::object{{"prompt", long_prompt}, {"max_tokens", 2}, {"ignore_eos", true}}));
    json::object again{{"prompt", lt.at("tokens")}, {"max_tokens", 2}, {"ignore_eos", true}};
    auto ids = json::parse(post(s.port(), "/v1/completions", json::serialize(again)).body).as_object();
    BOOST_TEST(ids.at("usage").as_object().at("prompt_tokens").as_int64() == long_count);
    BOOST_TEST(ids.at("usage").as_object().at("prompt_tokens_details").as_object().at("cached_tokens").as_int64() >=
               long_count / 16 * 16 - 16);

    const json::array messages{json::object{{"role", "system"}, {"content", "answer briefly"}},
                               json::object{{"role", "user"}, {"content", prompt}}};
    auto tc = post(s.port(), "/tokenize", json::serialize(json::object{{"messages", messages}}));
    BOOST_TEST_REQUIRE(tc.status == 200);
    const auto chat_count = json::parse(tc.body).as_object().at("count").as_int64();
    // BOS + 4 per message + 3 for the generation prompt, and the content: 2+3 and the prompt's 13.
    BOOST_TEST(chat_count == 1 + 2 * 4 + 3 + 5 + 13);
    auto cc = post(s.port(), "/v1/chat/completions",
                   json::serialize(json::object{{"messages", messages}, {"max_tokens", 2}, {"ignore_eos", true},
                                                {"stream", true}, {"stream_options", json::object{{"include_usage", true}}}}));
    BOOST_TEST_REQUIRE(cc.status == 200);
    bool done = false;
    auto cs = chunks(cc.body, done);
    BOOST_TEST_REQUIRE(!cs.empty());
    BOOST_TEST(cs.back().at("usage").as_object().at("prompt_tokens").as_int64() == chat_count);
}

namespace {

const json::array agent_tools{json::object{
    {"type", "function"},
    {"function", json::object{{"name", "search"}, {"description", "looks it up"},
                              {"parameters", json::object{{"type", "object"}}}}}}};

json::object agent_request(json::array messages, bool with_tools) {
    json::object req{{"messages", std::move(messages)}, {"max_tokens", 8}, {"ignore_eos", true}, {"stream", true},
                     {"stream_options", json::object{{"include_usage", true}, {"continuous_usage_stats", true}}}};
    if (with_tools) req["tools"] = agent_tools;
    return req;
}

struct agent_stream {
    std::string reasoning, content, arguments, call_id, name, finish;
    std::int64_t reasoning_tokens = -1, completion_tokens = -1, prompt_tokens = -1;
};

// A streamed chat answer read as an agent reads it: thinking first, never after
// the answer began; the call's id and name once, before its argument pieces.
agent_stream read_agent_stream(const response& r) {
    BOOST_TEST_REQUIRE(r.status == 200, r.body);
    bool done = false;
    agent_stream s;
    for (const auto& c : chunks(r.body, done)) {
        const auto& u = c.at("usage").as_object();
        s.completion_tokens = u.at("completion_tokens").as_int64();
        s.prompt_tokens = u.at("prompt_tokens").as_int64();
        BOOST_TEST_REQUIRE(u.contains("completion_tokens_details"));
        s.reasoning_tokens = u.at("completion_tokens_details").at("reasoning_tokens").as_int64();
        if (c.at("choices").as_array().empty()) continue;
        const auto& choice = c.at("choices").at(0).as_object();
        const auto& d = choice.at("delta").as_object();
        if (const auto* t = d.if_contains("reasoning")) {
            BOOST_TEST(s.content.empty());
            BOOST_TEST(s.arguments.empty());
            s.reasoning += t->as_string();
        }
        if (const auto* t = d.if_contains("content")) s.content += t->as_string();
        if (const auto* calls = d.if_contains("tool_calls")) {
            const auto& call = calls->at(0).as_object();
            BOOST_TEST(call.at("index").as_int64() == 0);
            if (const auto* id = call.if_contains("id")) {
                BOOST_TEST(s.call_id.empty());
                s.call_id = id->as_string();
                s.name = call.at("function").at("name").as_string();
                BOOST_TEST(call.at("type").as_string() == "function");
            }
            BOOST_TEST(!s.call_id.empty());
            s.arguments += call.at("function").at("arguments").as_string();
        }
        if (choice.at("finish_reason").is_string()) s.finish = choice.at("finish_reason").as_string();
    }
    BOOST_TEST(done);
    return s;
}

// Three turns of an agent against a thinking model with --tool-chain 1: a
// plain question thinks 3 tokens and answers 5; with tools it calls search;
// sent back with the tool's result it answers in text. Both servers stream alike.
void agent_turns_stream_in_vllm_shapes(unsigned short port, const std::string& model) {
    json::array history{json::object{{"role", "user"}, {"content", "find the answer"}}};
    auto plain = agent_request(history, false);
    plain["model"] = model;
    const auto text = read_agent_stream(post(port, "/v1/chat/completions", json::serialize(plain)));
    BOOST_TEST(openloop::count_text_tokens(text.reasoning) == 3);
    BOOST_TEST(openloop::count_text_tokens(text.content) == 5);
    BOOST_TEST(text.reasoning_tokens == 3);
    BOOST_TEST(text.completion_tokens == 8);
    BOOST_TEST(text.finish == "length");

    auto tooled = agent_request(history, true);
    tooled["model"] = model;
    const auto call = read_agent_stream(post(port, "/v1/chat/completions", json::serialize(tooled)));
    BOOST_TEST(call.content.empty());
    BOOST_TEST(call.name == "search");
    BOOST_TEST(call.call_id.rfind("call_", 0) == 0u);
    BOOST_TEST(call.call_id.size() == 21u);
    BOOST_TEST(call.finish == "tool_calls");
    BOOST_TEST(call.reasoning_tokens == 3);
    BOOST_TEST(call.completion_tokens == 8);
    json::error_code ec;
    const auto arguments = json::parse(call.arguments, ec);
    BOOST_TEST_REQUIRE(!ec, call.arguments);
    BOOST_TEST(arguments.is_object());
    BOOST_TEST(openloop::count_text_tokens(call.arguments) == 5);
    // The tools are counted: 3 words of their JSON, 3 of the question.
    BOOST_TEST(call.prompt_tokens == 3 + 3);

    history.push_back(json::object{
        {"role", "assistant"},
        {"content", nullptr},
        {"tool_calls", json::array{json::object{{"id", call.call_id}, {"type", "function"},
                                                {"function", json::object{{"name", call.name},
                                                                          {"arguments", call.arguments}}}}}}});
    history.push_back(json::object{{"role", "tool"}, {"tool_call_id", call.call_id}, {"content", "two words"}});
    auto result = agent_request(history, true);
    result["model"] = model;
    const auto answer = read_agent_stream(post(port, "/v1/chat/completions", json::serialize(result)));
    BOOST_TEST(answer.call_id.empty());
    BOOST_TEST(openloop::count_text_tokens(answer.content) == 5);
    BOOST_TEST(answer.finish == "length");
    // Tools 3, question 3, the call's name 1 and arguments 5, the result 2.
    BOOST_TEST(answer.prompt_tokens == 3 + 3 + 1 + 5 + 2);
}

}  // namespace

BOOST_AUTO_TEST_CASE(thinking_and_tool_calls_stream_in_vllm_shapes) {
    temp_dir dir;
    const auto log = dir.file("sim.jsonl");
    {
        sim s({"--preset", "cpu-small", "--reasoning-tokens", "3", "--tool-chain", "1", "--log", log, "--log-content"});
        agent_turns_stream_in_vllm_shapes(s.port(), "openloop-sim");
        // The Responses API thinks too: its reasoning item's deltas, then the message's.
        const auto rs = post(s.port(), "/v1/responses",
                             R"({"input":"why","max_output_tokens":5,"ignore_eos":true,"stream":true})");
        BOOST_TEST_REQUIRE(rs.status == 200);
        const auto first_reasoning = rs.body.find("response.reasoning_text.delta");
        BOOST_TEST(first_reasoning < rs.body.find("response.output_text.delta"));
        const auto completed = json::parse(sse_data(rs.body).back()).as_object();
        BOOST_TEST(completed.at("response").at("usage").at("output_tokens_details").at("reasoning_tokens").as_int64() == 3);
        const auto bad = post(s.port(), "/v1/chat/completions",
                              R"({"messages":[{"role":"user","content":"a"},{"role":"tool","content":"r"}]})");
        BOOST_TEST(bad.status == 400);
        BOOST_TEST(bad.body.find("messages[1].tool_call_id") != std::string::npos, bad.body);
    }
    std::vector<json::object> lines;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line).as_object());
    BOOST_TEST_REQUIRE(lines.size() == 5u);
    for (int i = 0; i < 4; ++i) {
        const auto& l = lines[i];
        BOOST_TEST(l.at("reasoning_tokens").as_int64() == 3);
        BOOST_TEST(l.at("first_answer_ns").as_int64() > l.at("first_token_ns").as_int64());
        BOOST_TEST(openloop::count_text_tokens(l.at("reasoning").as_string()) == 3);
        BOOST_TEST(l.at("tool_call").as_bool() == (i == 1));
    }
    BOOST_TEST(!lines[0].contains("tools"));
    BOOST_TEST(lines[1].at("tools").as_array().size() == 1u);
    BOOST_TEST(lines[1].at("output").as_string() == "");
    const auto& logged_call = lines[1].at("tool_calls").at(0).at("function").as_object();
    BOOST_TEST(logged_call.at("name").as_string() == "search");
    // The call as streamed is what the next request carried back, and the log says so.
    const auto& sent_back = lines[2].at("messages").at(1).at("tool_calls").at(0).at("function").as_object();
    BOOST_TEST(sent_back.at("arguments") == logged_call.at("arguments"));
    BOOST_TEST(lines[2].at("messages").at(2).at("role").as_string() == "tool");
    BOOST_TEST(openloop::count_text_tokens(lines[2].at("output").as_string()) == 5);
    BOOST_TEST(lines[4].at("first_answer_ns").as_int64() == -1);
}

// vLLM's FastAPI/uvicorn test server (test/servers/vllm_uvicorn.py) streams the same shapes.
BOOST_AUTO_TEST_CASE(uvicorn_streams_thinking_and_tool_calls_alike) {
    auto server = openloop::start_server({"/usr/bin/python3", std::string(openloop_test::source_dir) + "/test/servers/vllm_uvicorn.py",
                                          "--port", "0", "--reasoning-tokens", "3", "--tool-chain", "1"},
                                         std::chrono::seconds(30));
    agent_turns_stream_in_vllm_shapes(server.port, "vllm-uvicorn");
}

namespace {

std::string to_base64(const std::string& bytes) {
    std::string out;
    openloop::append_base64(out, bytes);
    return out;
}

// A chat body of "a b c" and `images` PNGs of 1024x768 (the header is all a server reads
// for the count), each different (from `first` on: other bodies' images are not in the
// prefix cache); or with one part given as is.
std::string image_chat(int images, const std::string& part = "", char first = 'a') {
    json::array content{json::object{{"type", "text"}, {"text", "a b c"}}};
    for (int i = 0; i < images; ++i) {
        const std::string png = std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x04\0\0\0\x03\0\x08\x02\0\0\0", 29) +
                                std::string(64, static_cast<char>(first + i));
        content.push_back(json::object{{"type", "image_url"},
                                       {"image_url", json::object{{"url", "data:image/png;base64," + to_base64(png)}}}});
    }
    if (!part.empty()) content.push_back(json::parse(part));
    return json::serialize(json::object{{"messages", json::array{json::object{{"role", "user"}, {"content", content}}}},
                                        {"max_tokens", 4}, {"ignore_eos", true}});
}

}  // namespace

// An image part counts by the default rule (1024x768: 27 x 37 cells + 2 = 1001 tokens),
// the log says so, the encoder's cost shows in TTFT, and a part the sim cannot read is a 400.
BOOST_AUTO_TEST_CASE(chat_with_images_counts_and_costs_them) {
    temp_dir dir;
    const auto log = dir.file("sim.jsonl");
    {
        sim s({"--preset", "h100-8b", "--log", log});
        for (int images : {1, 4}) {
            const auto r = post(s.port(), "/v1/chat/completions", image_chat(images, "", images == 1 ? 'a' : 'b'));
            BOOST_TEST_REQUIRE(r.status == 200, r.body);
            BOOST_TEST(json::parse(r.body).at("usage").at("prompt_tokens").as_int64() == 3 + 1001 * images);
        }
        const auto remote = post(s.port(), "/v1/chat/completions",
                                 image_chat(0, R"({"type":"image_url","image_url":{"url":"https://example.com/a.png"}})"));
        BOOST_TEST(remote.status == 400);
        BOOST_TEST(json::parse(remote.body).at("error").at("message").as_string().find("cannot fetch") != std::string::npos);
        const auto unknown = post(s.port(), "/v1/chat/completions", image_chat(1, R"({"type":"hologram"})"));
        BOOST_TEST(unknown.status == 400);
        BOOST_TEST(json::parse(unknown.body).at("error").at("type").as_string() == "BadRequestError");
    }
    std::ifstream in(log);
    std::vector<json::object> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line).as_object());
    BOOST_TEST_REQUIRE(lines.size() == 4u);
    // h100-8b: 6 ms a step + 0.035 ms a prompt token + 4e-5 per KV token read, and the
    // encoder's 1 ms an image + 0.012 ms an image token, in the one prefill step.
    const double predicted[] = {6 + 1004 * (0.035 + 4e-5) + 1 + 1001 * 0.012,
                                6 + 4007 * (0.035 + 4e-5) + 4 * (1 + 1001 * 0.012)};
    for (int i = 0; i < 2; ++i) {
        const json::object& o = lines[static_cast<std::size_t>(i)];
        const int images = i == 0 ? 1 : 4;
        BOOST_TEST(o.at("images").as_int64() == images);
        BOOST_TEST(o.at("image_tokens").as_int64() == 1001 * images);
        BOOST_TEST(!o.contains("audios"));
        BOOST_TEST(o.at("cached_tokens").as_int64() == 0);  // so the whole prompt is prefilled
        const double ttft_ms = static_cast<double>(o.at("first_token_ns").as_int64() - o.at("arrival_ns").as_int64()) / 1e6;
        BOOST_TEST(ttft_ms >= 0.95 * predicted[i], "TTFT " << ttft_ms << " ms, the cost model's " << predicted[i]);
    }
    BOOST_TEST(lines[2].at("status").as_int64() == 400);
    BOOST_TEST(!lines[2].contains("images"));
}

// vLLM's FastAPI/uvicorn test server counts the same images the same way.
BOOST_AUTO_TEST_CASE(uvicorn_counts_images_alike) {
    auto server = openloop::start_server({"/usr/bin/python3", std::string(openloop_test::source_dir) + "/test/servers/vllm_uvicorn.py",
                                          "--port", "0"},
                                         std::chrono::seconds(30));
    const auto r = post(server.port, "/v1/chat/completions", image_chat(2));
    BOOST_TEST_REQUIRE(r.status == 200, r.body);
    BOOST_TEST(json::parse(r.body).at("usage").at("prompt_tokens").as_int64() == 3 + 2 * 1001);
    const auto bad = post(server.port, "/v1/chat/completions", image_chat(0, R"({"type":"hologram"})"));
    BOOST_TEST(bad.status == 400);
}

BOOST_AUTO_TEST_SUITE_END()
