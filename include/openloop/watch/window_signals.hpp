#pragma once
// What the watches of the server saw most recently, as a soak window's row
// shows it (watch/server_watch fills it, measure/window_log writes it).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace openloop {

struct window_signals {
    std::vector<std::pair<std::string, double>> values;  // selected signals by name
    double server_rss_mib = -1;  // --server-pid, from /proc; < 0: none
    double server_cpu_pct = -1;
    std::uint64_t scrape_failures = 0;  // cumulative over the run
    bool scraping = false;               // --scrape was given
    bool server_pid = false;             // --server-pid was given
};

}  // namespace openloop
