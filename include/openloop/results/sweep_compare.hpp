#pragma once
// Two sweeps knee against knee. A sweep locates a knee only between two
// stages: the last rate before the break and the first past it (a knee not
// found lies above the highest rate swept; one below range under the lowest).
// That bracket is the knee's interval, so a change is better or worse only
// when the two brackets do not overlap, and within noise when they do. Pure:
// the sweeps' sweep.json in, figures out.

#include "openloop/results/compare.hpp"

#include <boost/json/object.hpp>

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

struct knee_bracket {
    bool known = false;  // the sweep has this knee at all (an SLO knee needs --slo)
    double rate = 0;     // the knee's rate as the sweep reports it
    double low = 0;      // the knee lies in [low, high)
    double high = std::numeric_limits<double>::infinity();
};

struct knee_change {
    std::string name;  // "knee" (saturation), "slo_knee", "latency_knee"
    knee_bracket base, now;
    std::string verdict;  // "better", "worse", "within noise" or "no data"
    double relative() const { return base.rate != 0 ? (now.rate - base.rate) / base.rate : 0; }
};

// A rate as the sweep tables write it: four significant digits, "above" for
// past the last stage.
std::string sweep_rate_text(double v);

std::vector<std::string> compared_knee_names();  // knee, slo_knee, latency_knee
// One knee of a sweep.json as its bracket between stages. Throws std::invalid_argument
// for an unknown name or a sweep.json without stages or knees.
knee_bracket sweep_knee(const boost::json::object& sweep, std::string_view name);
// Why a --fail-on gate on a knee fails: the change beyond noise and past it; nullopt when it holds.
std::optional<std::string> knee_gate_failure(const gate& g, const std::vector<knee_change>& changes);

// Throws std::invalid_argument naming what a sweep.json lacks.
std::vector<knee_change> compare_sweeps(const boost::json::object& base, const boost::json::object& now);
// What differs between the sweeps' workloads, from their sweep.json's "target" and "config".
run_match match_sweeps(const boost::json::object& base, const boost::json::object& now, const std::string& base_name,
                       const std::string& new_name);
// The match is said before the table, as for runs (compare.hpp).
std::string sweep_compare_markdown(const std::string& base_name, const std::string& new_name,
                                   const std::vector<knee_change>& changes, const run_match& match = {},
                                   bool allow_mismatch = false);
boost::json::object sweep_compare_json(const std::string& base_name, const std::string& new_name,
                                       const std::vector<knee_change>& changes, const run_match& match = {},
                                       bool allow_mismatch = false);

}  // namespace openloop
