#pragma once
// `openloop sim`: an OpenAI-compatible streaming HTTP/1.1 server in front of
// the simulated engine (engine.hpp). It is the default target, the
// integration-test server and the benchmark target.

#include "openloop/sim/engine.hpp"
#include "openloop/sim/sim_tokenizer.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

// Per-request fault probabilities; at most one fault is drawn per request.
struct fault_config {
    double http_429 = 0;
    double http_500 = 0;
    double http_503 = 0;
    double disconnect = 0;       // connection closed mid-stream, halfway through the output
    double bad_chunk = 0;        // one malformed JSON chunk halfway through the stream
    double stall = 0;            // a pause of stall_ms between two tokens halfway through
    double slow_first_byte = 0;  // a pause of slow_first_byte_ms before the response starts
    int stall_ms = 1000;
    int slow_first_byte_ms = 1000;
    int retry_after_s = 1;       // Retry-After sent with 429

    double total() const;
};

enum class fault { none, http_429, http_500, http_503, disconnect, bad_chunk, stall, slow_first_byte };
std::string_view fault_name(fault f);

// The fault for the request_index-th completion request under seed: a pure
// function, so a run is reproducible and a test can predict every draw.
fault pick_fault(const fault_config& c, std::uint64_t seed, std::uint64_t request_index);

// Ways real servers deviate from the OpenAI stream shape, reproduced on
// demand so the client's handling of each is tested against a real socket.
struct sim_quirks {
    bool no_role_chunk = false;          // no role-only first chunk (TGI, some proxies)
    bool usage_in_last_chunk = false;    // usage rides on the last content chunk, no "choices": [] chunk
    bool always_usage = false;           // usage sent even when not asked for (llama.cpp)
    bool ignore_stream_options = false;  // stream_options not honoured: no usage unless always_usage
    bool no_done = false;                // the stream ends without data: [DONE]
    bool keepalive_comments = false;     // ": keep-alive" SSE comments between chunks
    bool empty_choices_chunk = false;    // an extra chunk with "choices": [] and no usage after the first
    bool error_500 = false;              // bad requests answered 500 instead of 400
    // Connection behaviours of real HTTP stacks:
    bool close_after_completion = false; // closed after every completion answer, Keep-Alive or not (llama.cpp)
    bool close_stale = false;            // a request arriving after > 1 s idle is dropped unanswered: the race
                                         // of a request with the server's idle close
};
// Sets the quirk NAME (as in --quirk NAME); false when unknown.
bool set_quirk(sim_quirks& q, std::string_view name);
std::string_view quirk_names();

struct sim_config {
    cost_model model;
    std::string host = "127.0.0.1";
    std::uint16_t port = 8000;  // 0 picks a free port; the bound one is printed
    std::uint64_t seed = 0;
    std::string served_model_name = "openloop-sim";
    fault_config faults;
    sim_quirks quirks;
    std::string log_path;  // server-side JSONL, one line per completion request
    std::string tls_cert;  // PEM; with tls_key, serve HTTPS only
    std::string tls_key;
    std::size_t max_request_bytes = 64u << 20;
    sim_tokenizer_kind tokenizer = sim_tokenizer_kind::words;
    // An idle connection (no byte of a next request, or of the first one after
    // the handshake) is closed after this long, as uvicorn (vLLM, SGLang) and
    // cpp-httplib (llama.cpp) do after 5 s; 0 never closes it.
    std::chrono::milliseconds keep_alive_timeout{5000};
    // The N-th request of a connection is answered with Connection: close
    // (nginx keepalive_requests, cpp-httplib keep_alive_max_count); 0: no limit.
    int keep_alive_max_requests = 0;
    bool exit_with_parent = false;  // a child of openloop run/tests: never outlive the parent
};

// Serves until SIGINT or SIGTERM. Once listening it prints one line to stdout,
// "openloop-sim listening on http(s)://HOST:PORT", which a parent process reads
// to learn the port. Throws std::runtime_error on setup failures.
void run_sim(const sim_config& cfg);

}  // namespace openloop
