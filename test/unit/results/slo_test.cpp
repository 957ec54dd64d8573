#include <boost/test/unit_test.hpp>

#include "openloop/results/slo.hpp"

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_slo)

using namespace openloop;

namespace {

// The exception's message, or "" when none was thrown.
template <class F>
std::string error_of(F f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

bool mentions(const std::string& message, std::string_view part) { return message.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_CASE(parses_each_form) {
    const auto ttft = parse_slo("ttft_p99=1s");
    BOOST_TEST(ttft.metric == "ttft");
    BOOST_TEST(ttft.stat == "p99");
    BOOST_TEST(ttft.limit == 1000.0);
    BOOST_TEST(ttft.text == "ttft_p99=1s");

    const auto itl = parse_slo("itl_p99=100ms");
    BOOST_TEST(itl.metric == "itl");
    BOOST_TEST(itl.limit == 100.0);

    const auto e2e = parse_slo("e2e_p95=10s");
    BOOST_TEST(e2e.metric == "e2e");
    BOOST_TEST(e2e.stat == "p95");
    BOOST_TEST(e2e.limit == 10000.0);
    BOOST_TEST(parse_slo("e2el_p95=10s").metric == "e2e");

    const auto tpot = parse_slo(" tpot_mean = 50ms ");
    BOOST_TEST(tpot.metric == "tpot");
    BOOST_TEST(tpot.stat == "mean");
    BOOST_TEST(tpot.limit == 50.0);
    BOOST_TEST(tpot.text == "tpot_mean = 50ms");

    BOOST_TEST(parse_slo("lag_p99.9=500us").limit == 0.5, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(parse_slo("lag_p999=500us").stat == "p99.9");
    BOOST_TEST(parse_slo("icl_max=2m").limit == 120000.0);
    BOOST_TEST(parse_slo("icl_max=2m").stat == "max");
    BOOST_TEST(parse_slo("ttft_median=1.5s").stat == "p50");
    BOOST_TEST(parse_slo("ttft_p50=1.5s").limit == 1500.0);
    BOOST_TEST(parse_slo("ttft_p90=250ms").stat == "p90");

    // Limits read as every duration does: a bare number is seconds, h is a unit.
    BOOST_TEST(parse_slo("ttft_p99=0.5").limit == 500.0);
    BOOST_TEST(parse_slo("ttft_p99=1").limit == 1000.0);
    BOOST_TEST(parse_slo("e2e_max=1h").limit == 3600000.0);
    BOOST_TEST(parse_slo("e2e_max=2min").limit == 120000.0);
    BOOST_TEST(parse_slo("itl_p99=50 ms").limit == 50.0);

    const auto err = parse_slo("error_rate=0.1%");
    BOOST_TEST(err.metric == "error_rate");
    BOOST_TEST(err.stat.empty());
    BOOST_TEST(err.limit == 0.001, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(parse_slo("error_rate=0.02").limit == 0.02);
    BOOST_TEST(parse_slo("error_rate=0").limit == 0.0);
    BOOST_TEST(parse_slo("error_rate=0.5 %").limit == 0.005);
}

BOOST_AUTO_TEST_CASE(rejects_bad_specs_naming_them) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"ttft_p99", "missing '='"},
        {"ttft_p99=", "is not a duration"},
        {"ttft_p99=fast", "'fast' is not a duration"},
        {"ttft_p99=1d", "unknown unit 'd'"},
        {"ttft_p98=1s", "unknown statistic 'p98'"},
        {"latency_p99=1s", "unknown metric 'latency'"},
        {"ttft=1s", "missing _<stat>"},
        {"ttft_p99=-1s", "is negative"},
        {"ttft_p99=0ms", "must be positive"},
        {"error_rate=150%", "out of range"},
        {"error_rate=1.5", "out of range"},
        {"error_rate=abc", "'abc' is not a fraction"},
        {"error_rate=1x", "'1x' is not a fraction"},
    };
    for (const auto& c : cases) {
        const std::string& spec = c.first;
        const std::string& why = c.second;
        BOOST_TEST_CONTEXT(spec) {
            const auto message = error_of([&] { parse_slo(spec); });
            BOOST_TEST(mentions(message, "'" + spec + "'"), message);
            BOOST_TEST(mentions(message, why), message);
            BOOST_TEST(mentions(message, "ttft_p99=1s"), message);  // the accepted syntax, by example
        }
    }
}

BOOST_AUTO_TEST_CASE(parses_lists_and_rejects_duplicates) {
    const auto slos = parse_slos({"ttft_p99=1s,itl_p99=50ms", "error_rate=1%"});
    BOOST_TEST(slos.size() == 3u);
    BOOST_TEST(slos[1].metric == "itl");
    BOOST_TEST(slos[2].limit == 0.01);
    BOOST_TEST(parse_slos({}).empty());
    const auto message = error_of([] { parse_slos({"e2e_p99=1s", "e2el_p99=2s"}); });
    BOOST_TEST(mentions(message, "repeats 'e2e_p99=1s'"), message);
}

BOOST_AUTO_TEST_CASE(maps_to_summary_keys) {
    BOOST_TEST(summary_key(parse_slo("ttft_p99=1s")) == "p99_ttft_ms");
    BOOST_TEST(summary_key(parse_slo("ttft_p50=1s")) == "median_ttft_ms");
    BOOST_TEST(summary_key(parse_slo("itl_p999=1s")) == "p99.9_itl_ms");
    BOOST_TEST(summary_key(parse_slo("tpot_mean=1s")) == "mean_tpot_ms");
    BOOST_TEST(summary_key(parse_slo("e2e_p95=1s")) == "p95_e2el_ms");
    BOOST_TEST(summary_key(parse_slo("icl_max=1s")) == "max_icl_ms");
    BOOST_TEST(summary_key(parse_slo("lag_p90=1s")) == "p90_lag_ms");
    // A thinking model is judged by its answer: time to first answer token, and how long it thought.
    BOOST_TEST(summary_key(parse_slo("ttfa_p99=5s")) == "p99_ttfa_ms");
    BOOST_TEST(summary_key(parse_slo("reasoning_p50=5s")) == "median_reasoning_ms");
    BOOST_TEST(summary_key(parse_slo("error_rate=1%")) == "error_rate");
    BOOST_TEST(!error_of([] { summary_key(slo{"ttft", "p42", 1, "x"}); }).empty());
}

BOOST_AUTO_TEST_CASE(checks_against_a_summary) {
    // A stage's numbers by summary key; a key mapped to nullopt is one the
    // summary has no number for (e.g. no TPOT when no request produced two tokens).
    const std::map<std::string, std::optional<double>, std::less<>> summary = {
        {"p99_ttft_ms", 850.5}, {"median_ttft_ms", 120.0}, {"p99.9_itl_ms", 60.0},
        {"mean_tpot_ms", std::nullopt}, {"p95_e2el_ms", 9000.0}, {"error_rate", 0.002},
    };
    std::vector<std::string> asked;
    const auto lookup = [&](std::string_view key) -> std::optional<double> {
        asked.emplace_back(key);
        const auto it = summary.find(key);
        return it == summary.end() ? std::nullopt : it->second;
    };
    const auto check = [&](std::string_view spec) { return check_slo(parse_slo(spec), lookup); };

    const auto ttft = check("ttft_p99=1s");
    BOOST_TEST(ttft.pass);
    BOOST_TEST(ttft.observed.value() == 850.5);
    BOOST_TEST(asked == std::vector<std::string>{"p99_ttft_ms"}, boost::test_tools::per_element());
    BOOST_TEST(!check("ttft_p99=850ms").pass);
    BOOST_TEST(check("ttft_p99=850.5ms").pass);  // at the limit holds
    BOOST_TEST(check("ttft_p50=120ms").observed.value() == 120.0);  // asks for median_ttft_ms
    BOOST_TEST(asked.back() == "median_ttft_ms");
    BOOST_TEST(!check("itl_p99.9=50ms").pass);
    BOOST_TEST(check("e2e_p95=10s").pass);

    const auto tpot = check("tpot_mean=50ms");  // no number: unverifiable, so it fails
    BOOST_TEST(!tpot.pass);
    BOOST_TEST(!tpot.observed.has_value());
    const auto lag = check("lag_p99=1ms");  // absent key: likewise
    BOOST_TEST(!lag.pass);
    BOOST_TEST(!lag.observed.has_value());

    BOOST_TEST(!check("error_rate=0.1%").pass);
    BOOST_TEST(check("error_rate=0.5%").pass);

    // Each SLO of a list is checked on its own key and limit.
    std::vector<int> passes;  // 1: passes
    for (const auto& s : parse_slos({"ttft_p99=1s,itl_p99.9=50ms", "error_rate=1%"})) {
        passes.push_back(check_slo(s, lookup).pass);
    }
    BOOST_TEST(passes == (std::vector<int>{1, 0, 1}), boost::test_tools::per_element());

    const auto e2e = check_slo(parse_slo("e2e_p99=2s"), [](std::string_view) -> std::optional<double> { return 2500.0; });
    BOOST_TEST(!e2e.pass);
    BOOST_TEST(e2e.observed.value() == 2500.0);
}

BOOST_AUTO_TEST_CASE(parses_rate_lists) {
    BOOST_TEST(parse_rates("auto").automatic);
    BOOST_TEST(parse_rates("auto").rates.empty());

    const auto list = parse_rates("1, 2,4,8.5");
    BOOST_TEST(!list.automatic);
    BOOST_TEST(list.rates == (std::vector<double>{1, 2, 4, 8.5}), boost::test_tools::per_element());

    BOOST_TEST(parse_rates("0.5:64:x2").rates == (std::vector<double>{0.5, 1, 2, 4, 8, 16, 32, 64}),
               boost::test_tools::per_element());
    BOOST_TEST(parse_rates("1:10:+1").rates == (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}),
               boost::test_tools::per_element());
    BOOST_TEST(parse_rates("1:50:x2").rates.back() == 32.0);  // end not on the ladder: stop below it
    BOOST_TEST(parse_rates("5:5:x2").rates == (std::vector<double>{5}), boost::test_tools::per_element());

    // 0.1 steps accumulate rounding; the end must still be included, exactly.
    const auto tenths = parse_rates("0.1:1:+0.1").rates;
    BOOST_TEST(tenths.size() == 10u);
    BOOST_TEST(tenths.back() == 1.0);
    const auto thirds = parse_rates("1:9:x3").rates;  // 1, 3, 9 via pow
    BOOST_TEST(thirds.size() == 3u);
    BOOST_TEST(thirds.back() == 9.0);
}

BOOST_AUTO_TEST_CASE(rejects_bad_rate_lists) {
    for (const std::string spec :
         {"", "1,,2", "1,x", "0,1", "-1,2", "2,1", "1,1", "1:10", "1:10:2", "1:10:x1", "1:10:x0.5", "1:10:+0",
          "0:10:+1", "10:1:+1", "1:1000000:+1", "1:10:+1:2", "nan,1"}) {
        BOOST_TEST_CONTEXT(spec) {
            const auto message = error_of([&] { parse_rates(spec); });
            BOOST_TEST(mentions(message, "bad --rates '" + spec + "'"), message);
            BOOST_TEST(mentions(message, "0.5:64:x2"), message);
        }
    }
}

BOOST_AUTO_TEST_CASE(parses_precision_and_concurrency) {
    BOOST_TEST(parse_precision("5%") == 0.05);
    BOOST_TEST(parse_precision("0.02") == 0.02);
    for (const std::string spec : {"0", "0%", "100%", "1", "-5%", "5 percent", ""}) {
        BOOST_TEST_CONTEXT(spec) {
            BOOST_TEST(mentions(error_of([&] { parse_precision(spec); }), "bad --precision '" + spec + "'"));
        }
    }

    BOOST_TEST(parse_concurrency_list("1,2,4,8") == (std::vector<int>{1, 2, 4, 8}), boost::test_tools::per_element());
    BOOST_TEST(parse_concurrency_list(" 16 ") == (std::vector<int>{16}), boost::test_tools::per_element());
    for (const std::string spec : {"", "0", "1,2.5", "4,2", "2,2", "1,-2", "1,,2", "99999999999"}) {
        BOOST_TEST_CONTEXT(spec) {
            BOOST_TEST(mentions(error_of([&] { parse_concurrency_list(spec); }), "bad --concurrency '" + spec + "'"));
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
