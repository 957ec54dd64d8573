#include "openloop/measure/live_json.hpp"

#include "openloop/base/json_text.hpp"

#include <boost/json.hpp>

namespace openloop {

namespace json = boost::json;

namespace {

json::value ms_or_null(std::int64_t ns) { return ns < 0 ? json::value(nullptr) : json::value(static_cast<double>(ns) / 1e6); }

}  // namespace

std::string format_live_json(const live_view& v, std::string_view label, double elapsed_s,
                             const std::deque<timeseries_row>& rows) {
    json::object o;
    o["label"] = label;
    o["elapsed_s"] = elapsed_s;
    o["started"] = v.stats ? v.stats->started : 0;
    o["completed"] = v.stats ? v.stats->completed : 0;
    o["failed"] = v.stats ? v.stats->failed : 0;
    o["in_flight"] = v.in_flight;
    o["lost_events"] = v.lost_events;
    if (v.window.seconds > 0) {
        o["window"] = json::object{{"seconds", v.window.seconds},
                                   {"ttft_p50_ms", ms_or_null(v.window.ttft_p50)},
                                   {"ttft_p99_ms", ms_or_null(v.window.ttft_p99)},
                                   {"e2e_p99_ms", ms_or_null(v.window.e2e_p99)},
                                   {"achieved_rate", v.window.achieved_rate},
                                   {"offered_rate", v.window.offered_rate}};
    } else {
        o["window"] = nullptr;
    }
    json::array t, offered, completed, failed, in_flight, p50, p99;
    for (const timeseries_row& r : rows) {
        t.push_back(r.t_s);
        offered.push_back(r.offered);
        completed.push_back(r.completed);
        failed.push_back(r.failed);
        in_flight.push_back(r.in_flight);
        p50.push_back(r.ttft_p50_ms < 0 ? json::value(nullptr) : json::value(r.ttft_p50_ms));
        p99.push_back(r.ttft_p99_ms < 0 ? json::value(nullptr) : json::value(r.ttft_p99_ms));
    }
    o["series"] = json::object{{"t_s", std::move(t)},           {"offered", std::move(offered)},
                               {"completed", std::move(completed)}, {"failed", std::move(failed)},
                               {"in_flight", std::move(in_flight)}, {"ttft_p50_ms", std::move(p50)},
                               {"ttft_p99_ms", std::move(p99)}};
    return compact_json(o);
}

}  // namespace openloop
