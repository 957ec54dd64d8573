#include <boost/test/unit_test.hpp>

// The fidelity report of a Mooncake replay against the simulator in its
// subword tokenizer mode, with --tokenizer server: input lengths exact, and
// the prefix reuse the trace implies against the cached tokens the server
// reported, each side computed again here from the trace file and
// requests.jsonl.
//
// The server caches what the trace implies, request by request, because:
// - the simulator caches a prompt's blocks as they are scheduled, as vLLM's
//   v1 scheduler does, so even the first same-timestamp group (10 requests
//   at t = 0, all with block 0) shares its prefix;
// - the prompt builder lays out each trace block at the same token positions
//   in every prompt (the chat template's trailing tokens, which calibration
//   measures from /tokenize's ids, are taken from the prompt's end), so a
//   shared run of 512-token blocks is a whole number of the server's
//   16-token blocks.
// Only a prompt shared whole is cached one token short: its last token is
// always computed.

#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_mooncake_replay)

namespace json = boost::json;
using namespace test_http;

namespace {

constexpr std::size_t requests = 150;
constexpr std::int64_t block = 512;      // Mooncake's hash block
constexpr std::int64_t sim_block = 16;   // the simulator's KV block (--block-size default)

struct row {
    std::int64_t input = 0;
    std::vector<std::uint64_t> ids;
};

// Prompt tokens of r covered by blocks in seen (id -> most tokens of it sent), as a prefix.
std::int64_t covered(const std::map<std::uint64_t, std::int64_t>& seen, const row& r) {
    std::int64_t n = 0;
    for (std::size_t j = 0; j < r.ids.size(); ++j) {
        const std::int64_t want = std::clamp<std::int64_t>(r.input - static_cast<std::int64_t>(j) * block, 0, block);
        const auto it = seen.find(r.ids[j]);
        if (want == 0 || it == seen.end()) break;
        n += std::min(want, it->second);
        if (it->second < want) break;
    }
    return n;
}

void add(std::map<std::uint64_t, std::int64_t>& seen, const row& r) {
    for (std::size_t j = 0; j < r.ids.size(); ++j) {
        const std::int64_t n = std::clamp<std::int64_t>(r.input - static_cast<std::int64_t>(j) * block, 0, block);
        if (n == 0) break;
        seen[r.ids[j]] = std::max(seen[r.ids[j]], n);
    }
}

// What the simulator caches of a request that could reuse `reusable` of its `input` tokens.
std::int64_t sim_cached(std::int64_t reusable, std::int64_t input) {
    if (reusable == 0) return 0;
    // The whole prompt, template included, is shared; the last token is always computed.
    if (reusable >= input) return std::min(input / sim_block * sim_block, input - 1);
    return reusable / sim_block * sim_block;
}

double num(const json::value& v) { return v.to_number<double>(); }

}  // namespace

BOOST_AUTO_TEST_CASE(a_mooncake_replay_reports_exact_inputs_and_the_reuse_the_server_found) {
    temp_dir dir;
    std::ifstream in(std::string(openloop_test::source_dir) + "/test/data/traces/mooncake-conversation/conversation_trace.first600s.jsonl");
    std::ofstream trimmed(dir.file("trace.jsonl"));
    std::vector<row> trace;
    std::string line;
    while (trace.size() < requests && std::getline(in, line)) {
        trimmed << line << '\n';
        const json::object o = json::parse(line).as_object();
        row r;
        r.input = o.at("input_length").to_number<std::int64_t>();
        for (const auto& h : o.at("hash_ids").as_array()) r.ids.push_back(h.to_number<std::uint64_t>());
        trace.push_back(std::move(r));
    }
    trimmed.close();
    BOOST_TEST_REQUIRE(trace.size() == requests);

    // Fast steps, so each request is done long before the next group (1.5 s
    // apart at 2x); a KV capacity far above the 2.1 M prompt tokens, so the
    // prefix cache evicts nothing.
    const std::vector<std::string> args = {
        "--target", "sim:h100-8b", "--sim-arg=--tokenizer=subword", "--sim-arg=--kv-capacity-tokens=100000000",
        "--sim-arg=--step-base-ms=0.2", "--sim-arg=--prefill-token-ms=0.0005", "--sim-arg=--decode-seq-ms=0.001",
        "--sim-arg=--kv-token-ms=0", "--sim-arg=--max-batched-tokens=1000000", "--sim-arg=--max-model-len=200000",
        "--sim-arg=--max-num-seqs=4096", "--tokenizer", "server", "--tokenizer-cache", dir.file("cache"),
        "--trace", dir.file("trace.jsonl"), "--trace-speed", "2", "--ignore-eos", "--out", dir.file("out")};
    const int rc = run_openloop(args, dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));

    const json::object summary = read_json(dir.file("out/summary.json"));
    const json::object& f = summary.at("fidelity").as_object();
    BOOST_TEST(f.at("replay").as_bool());
    const json::object& input = f.at("input").as_object();
    BOOST_TEST(num(input.at("checked")) == requests);
    BOOST_TEST(num(input.at("exact_fraction")) >= 0.99, slurp(dir.file("run.log")));

    // What the trace implies, counted again from the file.
    std::int64_t implied = 0;
    {
        std::map<std::uint64_t, std::int64_t> seen;
        for (const row& r : trace) {
            implied += covered(seen, r);
            add(seen, r);
        }
    }
    const json::object& p = f.at("prefix_reuse").as_object();
    BOOST_TEST(num(p.at("completed")) == requests);
    BOOST_TEST(num(p.at("implied_tokens")) == implied);

    // Request by request, in the order they were sent (requests.jsonl), what
    // the earlier ones make reusable and what the simulator caches of that.
    auto logged = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST_REQUIRE(logged.size() == requests);
    std::stable_sort(logged.begin(), logged.end(), [](const json::object& x, const json::object& y) {
        return x.at("sent_ns").to_number<std::int64_t>() < y.at("sent_ns").to_number<std::int64_t>();
    });
    std::int64_t expected = 0, cached = 0;
    std::size_t off = 0;
    std::map<std::uint64_t, std::int64_t> seen;
    for (const auto& r : logged) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        const auto index = r.at("index").to_number<std::size_t>();
        const std::int64_t want = sim_cached(covered(seen, trace.at(index)), r.at("input_tokens").to_number<std::int64_t>());
        add(seen, trace.at(index));
        const std::int64_t got = r.at("cached_tokens").is_null() ? 0 : r.at("cached_tokens").to_number<std::int64_t>();
        expected += want;
        cached += got;
        if (got != want) {
            ++off;
            BOOST_TEST_MESSAGE("request " << index << ": expected " << want << " cached, got " << got);
        }
    }
    BOOST_TEST_MESSAGE("implied " << implied << ", the simulator should cache " << expected << ", cached " << cached);
    BOOST_TEST(num(p.at("cached_tokens")) == cached);
    // The report's reusable at send counts only requests whose stream had
    // ended before this one's first byte went out: a floor under the rest.
    std::int64_t at_send = 0;
    for (const auto& r : logged) {
        std::map<std::uint64_t, std::int64_t> ended;
        for (const auto& other : logged)
            if (other.at("end_ns").to_number<std::int64_t>() < r.at("sent_ns").to_number<std::int64_t>())
                add(ended, trace.at(other.at("index").to_number<std::size_t>()));
        at_send += covered(ended, trace.at(r.at("index").to_number<std::size_t>()));
    }
    BOOST_TEST(num(p.at("reusable_at_send_tokens")) == at_send);
    BOOST_TEST(at_send < implied);
    // The bar: the server's cached tokens within 1 % of what the trace implies.
    BOOST_TEST(std::abs(static_cast<double>(cached) / static_cast<double>(implied) - 1) <= 0.01);
    // The words after the shared blocks are drawn from 64, so they now and
    // then repeat those after the same blocks in one of the earlier prompts,
    // extending the shared run by a block: rare, upwards.
    BOOST_TEST(off <= 5u);
    BOOST_TEST(std::abs(static_cast<double>(cached) / static_cast<double>(expected) - 1) <= 0.01);
}

BOOST_AUTO_TEST_SUITE_END()
