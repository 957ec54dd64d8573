#pragma once
// What integration tests read back from a run: its files, and `openloop run`
// itself, started as a user would start it.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <sys/wait.h>
#include "test_paths.hpp"

namespace test_http {

inline std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

inline boost::json::object read_json(const std::string& path) {
    return boost::json::parse(slurp(path)).as_object();
}

inline std::vector<boost::json::object> read_jsonl(const std::string& path) {
    std::vector<boost::json::object> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) out.push_back(boost::json::parse(line).as_object());
    return out;
}

// A count in a JSON line; -1 for null.
inline std::int64_t json_int(const boost::json::value& v) { return v.is_null() ? -1 : v.to_number<std::int64_t>(); }

// The simulator's --log lines by the x-request-id openloop sent (its requests.jsonl "id").
inline std::map<std::string, boost::json::object> sim_log_by_id(const std::string& sim_log) {
    std::map<std::string, boost::json::object> out;
    for (auto& o : read_jsonl(sim_log)) out[std::string(o.at("request_id").as_string())] = o;
    return out;
}

// Runs `openloop run ARGS` to completion, output to log; returns its exit
// status. The lag bound is loose: these tests check accounting on a shared,
// busy machine; the lag itself is the benchmark's business (tools/bench).
inline int run_openloop(const std::vector<std::string>& args, const std::string& log) {
    std::string cmd = std::string(openloop_test::bin) + " run --progress off --lag-bound 250ms";
    for (const auto& a : args) cmd += " '" + a + "'";
    cmd += " > " + log + " 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

// Runs `openloop ARGS` (any command) to completion, output to log; returns
// its exit status.
inline int openloop_cli(const std::vector<std::string>& args, const std::string& log) {
    std::string cmd = std::string(openloop_test::bin);
    for (const auto& a : args) cmd += " '" + a + "'";
    cmd += " > " + log + " 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

// Nearest-rank percentile of raw values, as the histograms report it.
// The middle of v (the upper one of an even count); 0 when empty.
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

inline double nearest_rank(std::vector<std::int64_t> v, double p) {
    std::sort(v.begin(), v.end());
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(v.size())));
    return static_cast<double>(v[std::max<std::size_t>(rank, 1) - 1]);
}

// A loopback port free at the time of asking, for a server a test starts.
inline unsigned short free_port() {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    return a.local_endpoint().port();
}

}  // namespace test_http
