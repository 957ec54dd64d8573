#include <boost/test/unit_test.hpp>

#include "openloop/sim/openai_api.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_embeddings_api)

using namespace openloop;
namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

sim_config config(sim_tokenizer_kind kind = sim_tokenizer_kind::words) {
    sim_config c;
    c.model = *find_preset("cpu-small");
    c.model.max_model_len = 100;
    c.tokenizer = kind;
    return c;
}

}  // namespace

// What POST /v1/embeddings counts: every input shape vLLM takes, counted by the sim's tokenizer.
BOOST_AUTO_TEST_CASE(inputs_are_counted_by_the_tokenizer) {
    const auto cfg = config();
    embedding_request r;
    BOOST_TEST(!parse_embedding(R"({"model":"openloop-sim","input":"one two three four"})", cfg, r));
    BOOST_TEST(r.prompt_tokens == 4);
    BOOST_TEST(r.inputs == 1);

    embedding_request ids;
    BOOST_TEST(!parse_embedding(R"({"input":[5,6,7]})", cfg, ids));  // token ids, used as given
    BOOST_TEST(ids.prompt_tokens == 3);
    BOOST_TEST(ids.inputs == 1);

    embedding_request batch;
    BOOST_TEST(!parse_embedding(R"({"input":["a b","c d e",[1,2]]})", cfg, batch));
    BOOST_TEST(batch.prompt_tokens == 2 + 3 + 2);
    BOOST_TEST(batch.inputs == 3);

    // Under subword a text input gets its BOS, as a completion prompt does.
    embedding_request sub;
    BOOST_TEST(!parse_embedding(R"({"input":"the model"})", config(sim_tokenizer_kind::subword), sub));
    BOOST_TEST(sub.prompt_tokens == 1 + 1 + 2);
}

BOOST_AUTO_TEST_CASE(bad_bodies_get_vllm_shaped_errors) {
    const auto cfg = config();
    const auto refused = [&](std::string_view body) {
        embedding_request r;
        return parse_embedding(body, cfg, r);
    };
    const auto missing = refused(R"({"model":"openloop-sim"})");
    BOOST_TEST_REQUIRE(missing.has_value());
    BOOST_TEST((missing->status == http::status::bad_request));
    BOOST_TEST(missing->message == "input: field required");
    const auto e = json::parse(error_body(*missing)).as_object().at("error").as_object();
    BOOST_TEST(e.at("type").as_string() == "BadRequestError");
    BOOST_TEST(e.at("code").as_int64() == 400);

    BOOST_TEST(refused(R"({"input":12})").has_value());
    BOOST_TEST(refused(R"({"input":""})").has_value());
    BOOST_TEST(refused(R"({"input":[]})").has_value());
    BOOST_TEST(refused(R"({"input":[{"text":"x"}]})").has_value());
    BOOST_TEST(refused("{not json").has_value());
    const auto wrong_model = refused(R"({"model":"gpt-9","input":"x"})");
    BOOST_TEST_REQUIRE(wrong_model.has_value());
    BOOST_TEST((wrong_model->status == http::status::not_found));
    std::string long_input;
    for (int i = 0; i < 101; ++i) long_input += "w ";
    const auto too_long = refused(R"({"input":")" + long_input + R"("})");
    BOOST_TEST_REQUIRE(too_long.has_value());
    BOOST_TEST(too_long->message.find("maximum context length is 100 tokens") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_answer_is_a_list_of_unit_vectors_with_usage) {
    embedding_request r;
    BOOST_TEST(!parse_embedding(R"({"input":["a b","c"]})", config(), r));
    const auto body = json::parse(embedding_response("openloop-sim", 1733000000, r)).as_object();
    BOOST_TEST(body.at("object").as_string() == "list");
    BOOST_TEST(body.at("model").as_string() == "openloop-sim");
    const auto& data = body.at("data").as_array();
    BOOST_TEST_REQUIRE(data.size() == 2u);
    for (std::size_t i = 0; i < data.size(); ++i) {
        const auto& item = data[i].as_object();
        BOOST_TEST(item.at("object").as_string() == "embedding");
        BOOST_TEST(item.at("index").as_int64() == static_cast<std::int64_t>(i));
        const auto& v = item.at("embedding").as_array();
        BOOST_TEST(v.size() == static_cast<std::size_t>(sim_embedding_dims));
        double norm = 0;
        for (const auto& x : v) norm += x.as_double() * x.as_double();
        BOOST_TEST(std::abs(norm - 1) < 1e-9);
    }
    const auto& usage = body.at("usage").as_object();
    BOOST_TEST(usage.at("prompt_tokens").as_int64() == 3);
    BOOST_TEST(usage.at("total_tokens").as_int64() == 3);
    BOOST_TEST(usage.at("completion_tokens").as_int64() == 0);
    // The same inputs give the same vectors.
    BOOST_TEST(embedding_response("openloop-sim", 1733000000, r) == embedding_response("openloop-sim", 1733000000, r));
}

BOOST_AUTO_TEST_SUITE_END()
