#include <boost/test/unit_test.hpp>

#include "openloop/load/session.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/run/layer_options.hpp"
#include "openloop/run/run_plan.hpp"

#include <cstdlib>

BOOST_AUTO_TEST_SUITE(unit_run_plan)

using namespace openloop;

// A run's plan and each layer's options, which the plan makes once from the
// options and what preparation found.

namespace {

std::shared_ptr<preparation> prepared_mix() {
    auto p = std::make_shared<preparation>();
    p->model = "a";
    p->models = model_mix::parse("a=3,b=1");
    p->tokenizer = "words";
    p->tools_prompt_tokens = 42;
    return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_plan_gives_each_layer_what_preparation_found) {
    run_options o;
    o.out_dir = "first";
    const auto p = prepared_mix();
    const run_plan plan(o, p);
    BOOST_TEST(&plan.prepared() == p.get());
    BOOST_TEST(!plan.interrupted());
    BOOST_TEST(plan.sessions() == nullptr);
    BOOST_TEST(plan.reporter().out_dir == "first");
    // The server's model mix reaches the reporter, not the options' (empty here).
    BOOST_TEST(plan.reporter().model_names == (std::vector<std::string>{"a", "b"}));
    BOOST_TEST(plan.api_base() == "/v1");

    // A sweep's stage: its own options and layers, the same preparation, a workload of its own.
    run_options stage = o;
    stage.out_dir = "stage-2";
    stage.sessions = std::make_shared<const session_plan>([] {
        session_config c;
        c.turns = "uniform:2:4";
        return c;
    }());
    const run_plan second = plan.with_options(stage);
    BOOST_TEST(&second.prepared() == p.get());
    BOOST_TEST(second.reporter().out_dir == "stage-2");
    BOOST_TEST(plan.reporter().out_dir == "first");  // the first plan is unchanged
    BOOST_TEST(&second.load() != &plan.load());
    BOOST_TEST_REQUIRE(second.sessions() != nullptr);
    BOOST_TEST(second.reporter().session_stride == 4);
}

BOOST_AUTO_TEST_CASE(a_plan_whose_preparation_was_interrupted_says_so) {
    auto p = prepared_mix();
    p->interrupted = "interrupted before the schedule";
    BOOST_TEST(run_plan(run_options{}, p).interrupted());
}

BOOST_AUTO_TEST_CASE(the_client_sends_to_the_endpoint_with_the_key_as_a_bearer_token) {
    run_options o;
    o.target = parse_target_url("http://127.0.0.1:8000");
    o.endpoint = endpoint_kind::responses;
    o.headers = {{"X-Tenant", "blue"}};
    o.api_key_env = "OPENLOOP_LAYER_OPTIONS_TEST_KEY";
    o.idle_timeout = std::chrono::milliseconds(1500);
    o.max_body = 4096;
    o.spare_connections = 8;
    o.max_inflight = 3;
    ::setenv(o.api_key_env.c_str(), "sk-test", 1);
    const client_options co = client_options_for(o);
    ::unsetenv(o.api_key_env.c_str());
    BOOST_TEST(co.path == "/v1/responses");  // /v1 when the URL gave no path
    BOOST_TEST(co.streamed);
    BOOST_TEST_REQUIRE(co.headers.size() == 2u);
    BOOST_TEST(co.headers[0].first == "X-Tenant");
    BOOST_TEST(co.headers[1].first == "Authorization");
    BOOST_TEST(co.headers[1].second == "Bearer sk-test");
    BOOST_TEST(co.idle_timeout.count() == 1500);
    BOOST_TEST(co.max_body == 4096u);
    BOOST_TEST(co.spare_connections == 3u);  // never more spares than may be in flight
    BOOST_TEST(client_options_for(o).headers.size() == 1u);  // no key set: no Authorization

    o.target = parse_target_url("https://api.example.com/openai/v1");
    o.endpoint = endpoint_kind::embeddings;
    o.concurrency = 4;
    const client_options closed = client_options_for(o);
    BOOST_TEST(closed.path == "/openai/v1/embeddings");
    BOOST_TEST(!closed.streamed);  // embeddings are never streamed
    BOOST_TEST(closed.spare_connections == 0u);  // a closed loop's workers hold their own connections
}

BOOST_AUTO_TEST_CASE(the_reporter_gets_what_the_run_decides) {
    run_options o;
    o.out_dir = "out";
    o.progress = true;
    o.request_id_prefix = "x-";
    o.log_chunk_gaps = true;
    o.slo.ttft_ms = 500;
    o.steady_throughput = true;
    o.soak_window = std::chrono::seconds(60);
    o.window_lines = true;
    reporter_options ro = reporter_options_for(o, model_mix("m"), nullptr);
    BOOST_TEST(ro.out_dir == "out");
    BOOST_TEST(ro.progress);
    BOOST_TEST(ro.request_id_prefix == "x-");
    BOOST_TEST(ro.chunk_gaps);
    BOOST_TEST(ro.slo.ttft_ms == 500.0);
    BOOST_TEST(ro.steady_throughput);
    BOOST_TEST(ro.soak_window.count() == 60'000'000'000);
    BOOST_TEST(ro.window_lines);
    BOOST_TEST(ro.generates);
    BOOST_TEST(ro.session_stride == 0);
    BOOST_TEST(ro.live == nullptr);

    BOOST_TEST(ro.model_names.empty());  // one model: no per-model output

    o.endpoint = endpoint_kind::embeddings;
    session_config sessions;
    sessions.turns = "uniform:2:6";
    const session_plan plan(sessions);
    ro = reporter_options_for(o, model_mix::parse("a=3,b=1"), &plan);
    BOOST_TEST(!ro.generates);  // embeddings generate nothing
    BOOST_TEST(ro.session_stride == 6);  // turn k of session s is request s * 6 + k
    BOOST_TEST(ro.model_names == (std::vector<std::string>{"a", "b"}));
}

BOOST_AUTO_TEST_CASE(the_bodies_get_the_endpoint_sampling_and_extra_body) {
    run_options o;
    o.endpoint = endpoint_kind::completions;
    o.stream = false;
    o.ignore_eos = true;
    o.temperature = 0.7;
    o.sampling_seed = -1;
    o.continuous_usage = false;
    o.extra_body["top_p"] = 0.9;
    const body_options b = body_options_for(o, nullptr);
    BOOST_TEST((b.endpoint == endpoint_kind::completions));
    BOOST_TEST(!b.stream);
    BOOST_TEST(b.ignore_eos);
    BOOST_TEST(b.temperature == 0.7);
    BOOST_TEST(b.sampling_seed == -1);
    BOOST_TEST(!b.continuous_usage);
    BOOST_TEST(b.extra_body.at("top_p") == 0.9);
}

BOOST_AUTO_TEST_SUITE_END()
