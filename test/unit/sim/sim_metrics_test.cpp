#include <boost/test/unit_test.hpp>

#include "openloop/sim/metrics.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_sim_metrics)

using namespace openloop;

BOOST_AUTO_TEST_CASE(metrics_text_under_vllm_names) {
    const engine e(*find_preset("cpu-small"));
    sim_counters c;
    c.faults[static_cast<int>(fault::http_503)] = 3;
    c.idle_closes = 2;
    c.success = 9;
    c.leaked_bytes = 52428800;
    const std::string text = metrics_text(c, e, "\"openloop-sim\"");
    for (const char* line : {"vllm:num_requests_running{model_name=\"openloop-sim\"} 0\n",
                             "vllm:request_success_total{model_name=\"openloop-sim\"} 9\n",
                             "openloop_sim_faults_total{kind=\"http_503\"} 3\n",
                             "openloop_sim_keepalive_closes_total{reason=\"idle_timeout\"} 2\n",
                             "# TYPE vllm:num_requests_waiting gauge\n",
                             "openloop_sim_leaked_bytes{model_name=\"openloop-sim\"} 52428800\n",
                             "openloop_sim_leak_refused_total{model_name=\"openloop-sim\"} 0\n"}) {
        BOOST_TEST(text.find(line) != std::string::npos, line);
    }
    BOOST_TEST(text.find("kind=\"none\"") == std::string::npos);  // no fault is not a fault kind
}

BOOST_AUTO_TEST_SUITE_END()
