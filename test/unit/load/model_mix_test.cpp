#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/load/model_mix.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_model_mix)

using namespace openloop;

namespace {

// The message of the input_error that parsing text throws; empty when none is thrown.
std::string refusal(const std::string& text) {
    try {
        model_mix::parse(text);
    } catch (const input_error& e) {
        return e.what();
    }
    return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(weights_are_normalized_and_bare_names_weigh_one) {
    const model_mix m = model_mix::parse("base=0.5,sql-lora=0.3,chat-lora=0.2");
    BOOST_TEST_REQUIRE(m.models().size() == 3u);
    BOOST_TEST(m.mixed());
    BOOST_TEST(m.name(1) == "sql-lora");
    BOOST_TEST(m.models()[0].weight == 0.5, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(m.models()[2].weight == 0.2, boost::test_tools::tolerance(1e-12));

    // 2 + 1 + 1 = 4: halves and quarters; spaces around entries are dropped.
    const model_mix n = model_mix::parse("a=2, b ,c=1");
    BOOST_TEST_REQUIRE(n.models().size() == 3u);
    BOOST_TEST(n.name(1) == "b");
    BOOST_TEST(n.models()[0].weight == 0.5, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(n.models()[1].weight == 0.25, boost::test_tools::tolerance(1e-12));

    const model_mix one = model_mix::parse("llama");
    BOOST_TEST(!one.mixed());
    BOOST_TEST(one.models()[0].weight == 1.0);
    BOOST_TEST(one.pick(12345, 7) == 0);
    BOOST_TEST(model_mix("x").name(0) == "x");
    BOOST_TEST(model_mix("").models().empty());
}

BOOST_AUTO_TEST_CASE(bad_entries_are_named) {
    BOOST_TEST(refusal("a,,b").find("--model: entry ''") == 0u);
    BOOST_TEST(refusal("a,=0.5").find("no model name") != std::string::npos);
    BOOST_TEST(refusal("a=0.5,a=0.2").find("entry 'a=0.2': the model is named twice") != std::string::npos);
    for (const char* w : {"a=0", "a=-1", "a=x", "a=", "a=0.5x", "a=inf", "a=nan"})
        BOOST_TEST(refusal(w).find("not a positive number") != std::string::npos, w);
    std::string many;
    for (int i = 0; i < 256; ++i) many += (i ? ",m" : "m") + std::to_string(i);
    BOOST_TEST(refusal(many).find("entry 'm255': more than 255 models") != std::string::npos);
    many.resize(many.rfind(','));
    BOOST_TEST(refusal(many).empty());  // 255 fit in the start event's byte
}

BOOST_AUTO_TEST_CASE(shares_follow_the_weights) {
    const model_mix m = model_mix::parse("a=0.4,b=0.3,c=0.2,d=0.1");
    const double weights[] = {0.4, 0.3, 0.2, 0.1};
    constexpr int n = 100'000;
    std::vector<int> counts(4);
    for (std::uint64_t i = 0; i < n; ++i) ++counts.at(m.pick(i, 42));
    for (int k = 0; k < 4; ++k) {
        const double expected = n * weights[k];
        const double sigma = std::sqrt(n * weights[k] * (1 - weights[k]));  // binomial
        BOOST_TEST(std::abs(counts[k] - expected) < 4 * sigma, "model " << k << ": " << counts[k]);
    }
}

BOOST_AUTO_TEST_CASE(a_pick_depends_on_index_and_seed_only) {
    const model_mix m = model_mix::parse("a,b,c,d");
    const model_mix again = model_mix::parse("a,b,c,d");
    int differ = 0, other_seed = 0;
    for (std::uint64_t i = 0; i < 1000; ++i) {
        // Asked in another order (a shard, a rerun), the same answer.
        const std::uint64_t j = 999 - i;
        if (m.pick(i, 3) != again.pick(i, 3)) ++differ;
        if (m.pick(j, 3) != m.pick(j, 3)) ++differ;
        if (m.pick(i, 3) != m.pick(i, 4)) ++other_seed;
    }
    BOOST_TEST(differ == 0);
    // Another seed deals the models anew: about 3/4 of the picks change.
    BOOST_TEST(other_seed > 600);
    BOOST_TEST(other_seed < 900);
}

BOOST_AUTO_TEST_SUITE_END()
