#include <boost/test/unit_test.hpp>

#include "openloop/results/sweep_compare.hpp"
#include "openloop/results/sweep_threshold.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_sweep_compare)

using namespace openloop;
namespace json = boost::json;

namespace {

// A sweep.json as far as the comparison reads it: stages at rates, a
// saturation knee at `knee` (0: none found), and an SLO knee when slo > 0.
json::object sweep(const std::vector<double>& rates, double knee, double slo = -1) {
    json::array stages;
    for (double r : rates) stages.push_back(json::object{{"offered_rate", r}});
    json::object knees;
    knees["saturation"] = json::object{{"found", knee > 0}, {"rate", knee}, {"below_range", false}};
    knees["slo"] = slo < 0 ? json::object{{"found", false}, {"rate", 0}, {"explanation", "no --slo given"}}
                           : json::object{{"found", slo > 0}, {"rate", slo}, {"explanation", "x"}};
    return json::object{{"stages", std::move(stages)}, {"knees", std::move(knees)}};
}

const knee_change& named(const std::vector<knee_change>& c, const std::string& n) {
    for (const auto& k : c)
        if (k.name == n) return k;
    throw std::out_of_range(n);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_knee_lies_between_its_stage_and_the_next) {
    const auto c = compare_sweeps(sweep({2, 4, 6, 8}, 4), sweep({2, 4, 6, 8}, 6));
    const auto& k = named(c, "knee");
    BOOST_TEST(k.base.low == 4.0);
    BOOST_TEST(k.base.high == 6.0);
    BOOST_TEST(k.now.low == 6.0);
    BOOST_TEST(k.now.high == 8.0);
    BOOST_TEST(k.verdict == "better");  // [6, 8) starts where [4, 6) ends
    BOOST_TEST(k.relative() == 0.5);
    BOOST_TEST(named(c, "slo_knee").verdict == "no data");  // neither sweep had --slo
}

BOOST_AUTO_TEST_CASE(overlapping_brackets_are_within_noise) {
    const auto c = compare_sweeps(sweep({2, 4, 6, 8}, 4), sweep({3, 5, 7}, 5));
    BOOST_TEST(named(c, "knee").verdict == "within noise");  // [4, 6) and [5, 7)
    const auto worse = compare_sweeps(sweep({2, 4, 6, 8}, 6), sweep({1, 2, 3, 4}, 2));
    BOOST_TEST(named(worse, "knee").verdict == "worse");     // [2, 3) below [6, 8)
}

BOOST_AUTO_TEST_CASE(a_knee_not_found_lies_above_the_range) {
    const auto c = compare_sweeps(sweep({2, 4, 6}, 0), sweep({2, 4, 6, 8}, 4));
    const auto& k = named(c, "knee");
    BOOST_TEST(k.base.low == 6.0);
    BOOST_TEST(std::isinf(k.base.high));
    BOOST_TEST(k.verdict == "worse");  // [4, 6) lies below [6, inf)
}

BOOST_AUTO_TEST_CASE(slo_knees_and_gates) {
    const auto c = compare_sweeps(sweep({2, 4, 6, 8}, 8, 6), sweep({2, 4, 6, 8}, 8, 2));
    BOOST_TEST(named(c, "slo_knee").verdict == "worse");
    const gate g = parse_gate("slo_knee<-5%", compared_knee_names());
    BOOST_TEST(knee_gate_failure(g, c).has_value());
    BOOST_TEST(!knee_gate_failure(parse_gate("slo_knee<-90%", compared_knee_names()), c).has_value());
    BOOST_TEST(!knee_gate_failure(parse_gate("knee<-5%", compared_knee_names()), c).has_value());  // unchanged
    BOOST_CHECK_THROW(parse_gate("ttft_p99>+5%", compared_knee_names()), std::invalid_argument);
    BOOST_CHECK_THROW(compare_sweeps(json::object{}, sweep({1}, 1)), std::invalid_argument);
    const std::string md = sweep_compare_markdown("a", "b", c);
    BOOST_TEST(md.find("| slo_knee | 6 | 6 .. 8 | 2 | 2 .. 4 | -66.7 % | worse |") != std::string::npos, md);
}

// sweep --threshold: a gate holds only when the knee's whole bracket is on its side.
BOOST_AUTO_TEST_CASE(sweep_thresholds_need_the_whole_bracket_on_their_side) {
    const json::object s = sweep({2, 4, 6, 8}, 4, 6);  // knee in [4, 6), SLO knee in [6, 8)
    const auto fails = [&](const char* t) { return sweep_threshold_failure(parse_sweep_threshold(t), s); };
    BOOST_TEST(!fails("knee>4"));
    BOOST_TEST(!fails("knee>3.5"));
    const auto why = fails("knee>5");  // it may lie under 5
    BOOST_TEST_REQUIRE(why.has_value());
    BOOST_TEST(*why == "knee>5: the knee lies between 4 and 6 req/s");
    BOOST_TEST(!fails("knee<6"));
    BOOST_TEST(fails("knee<5").has_value());
    BOOST_TEST(!fails("slo_knee>6"));
    BOOST_TEST(fails("slo_knee>7").has_value());
    // Every stage held: the knee is at the top rate or above.
    const json::object held = sweep({2, 4, 6}, 0);
    BOOST_TEST(!sweep_threshold_failure(parse_sweep_threshold("knee>6"), held));
    BOOST_TEST(*sweep_threshold_failure(parse_sweep_threshold("knee>7"), held) ==
               "knee>7: the knee lies at 6 req/s or above");
    // A knee the sweep does not have cannot hold.
    BOOST_TEST(sweep_threshold_failure(parse_sweep_threshold("slo_knee>1"), held)->find("give --slo") != std::string::npos);
    BOOST_CHECK_THROW(parse_sweep_threshold("ttft_p99<1s"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_sweep_threshold("knee>fast"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_sweep_threshold("knee>0"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_sweep_threshold("knee"), std::invalid_argument);
}

// Two sweeps' workloads, from the target and flags their sweep.json records.
BOOST_AUTO_TEST_CASE(sweeps_of_other_workloads_are_told_apart) {
    json::object a = sweep({2, 4}, 4, 4), b = sweep({2, 4}, 2, 2);
    BOOST_TEST(match_sweeps(a, b, "a", "b").unchecked == "a's sweep.json records no config");
    a["target"] = "http://x/v1";
    b["target"] = "http://y/v1";
    a["config"] = json::object{{"input-len", "64"}, {"rates", "2,4"}};
    b["config"] = json::object{{"input-len", "64"}, {"rates", "2,4,8"}};
    run_match m = match_sweeps(a, b, "a", "b");
    BOOST_TEST(m.checked());
    BOOST_TEST(!m.workloads_differ());  // another server, another ladder: one workload
    BOOST_TEST(m.differences.size() == 1u);
    b["config"].as_object()["input-len"] = "512";
    m = match_sweeps(a, b, "a", "b");
    BOOST_TEST(m.workloads_differ());
    const auto c = compare_sweeps(a, b);
    const std::string md = sweep_compare_markdown("a", "b", c, m);
    BOOST_TEST(md.find("**The workloads differ**") < md.find("| knee |"), md);
    const json::object j = sweep_compare_json("a", "b", c, m, true);
    BOOST_TEST(j.at("workloads_differ").as_bool());
    BOOST_TEST(j.at("allow_mismatch").as_bool());
}

BOOST_AUTO_TEST_SUITE_END()
