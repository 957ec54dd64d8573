#include <boost/test/unit_test.hpp>

// The io thread allocates nothing per request and nothing per chunk once a
// run is in its stride: the real binary, with a malloc preloaded that counts
// its main thread's allocations (test/support/malloc_count.cpp), against the
// firehose simulator. Runs of 1,000 and 3,000 requests differ by the
// requests' marginal allocations. What a run allocates once (setup, the pool
// of connections, the memory later requests reuse) cancels out between two
// runs only when both reach the same peak of requests held. So the open loop
// runs hold at most 16 in flight (--max-concurrency: past it arrivals wait in
// a ring) on 16 connections opened before the schedule (--spare-connections),
// and at most 48 in flight and waiting (--max-inflight: past it an arrival is
// refused, never sent): a stall of the machine piles up requests, and each
// new peak allocates a request's bytes and its splice list. Unbounded, a
// loaded machine's run of 3,000 once peaked at 260 in flight against 29 for
// its run of 1,000 (0.46 allocations a request apart); with the flight held
// but not the wait, beside a busy loop per core, 0.41 with images. Per
// request is then per request sent.
// Per chunk, closed-loop runs of 4 workers (4 connections, whatever the
// timing) of 16 and 64 output tokens (one chunk each) differ by the chunks'
// allocations alone, and their runs of 1,000 and 3,000 requests by their
// requests' allocations alone: once one a request, as run() dropped them.

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

BOOST_AUTO_TEST_SUITE(it_allocations)

using namespace test_http;

namespace {

// The io thread's allocations in a whole run of n requests of `tokens` output
// tokens, open loop at 2,000 req/s or closed loop of 4 workers, on --endpoint endpoint.
struct run_count {
    double allocations = -1;
    double sent = 0;  // requests sent and completed (an open loop refuses past --max-inflight)
};

run_count io_thread_allocations(const std::string& url, temp_dir& dir, int n, int tokens, bool open_loop,
                             const std::string& endpoint = "chat", const std::string& extra = "") {
    const std::string tag = endpoint + (extra.find("--images") == std::string::npos ? "" : "-media") + std::to_string(n) + "x" + std::to_string(tokens) +
                            (open_loop ? "-open" : "-closed");
    const std::string count = dir.file("count-" + tag);
    const std::string cmd = "OPENLOOP_MALLOC_COUNT_FILE=" + count + " LD_PRELOAD=" + openloop_test::malloc_count + " " +
                            openloop_test::bin + " run --lag-bound 250ms --target " + url + " --endpoint " + endpoint +
                            (open_loop ? " --rate 2000" : " --concurrency 4") +
                            " --num-requests " + std::to_string(n) +
                            " --input-len 64 --output-len " + std::to_string(tokens) +
                            " --ignore-eos --tokenizer words --progress off" + extra + " --out " + dir.file("out-" + tag) + " > " +
                            dir.file("log-" + tag) + " 2>&1";
    const int rc = std::system(cmd.c_str());
    BOOST_TEST_REQUIRE((WIFEXITED(rc) && WEXITSTATUS(rc) == 0), slurp(dir.file("log-" + tag)));
    const auto summary = read_json(dir.file("out-" + tag + "/summary.json"));
    const int completed = summary.at("completed").to_number<int>();
    BOOST_TEST_REQUIRE(completed + summary.at("refused").to_number<int>() == n);
    if (!open_loop) BOOST_TEST_REQUIRE(completed == n);
    std::ifstream in(count);
    run_count r;
    in >> r.allocations;
    BOOST_TEST_REQUIRE(r.allocations > 0, "no count in " << count);
    r.sent = completed;
    return r;
}

// Allocations per request sent between a shorter and a longer run.
double marginal(const run_count& shorter, const run_count& longer) {
    BOOST_TEST_REQUIRE(longer.sent > shorter.sent + 1000, "the longer run sent " << longer.sent << ", the shorter " << shorter.sent);
    return (longer.allocations - shorter.allocations) / (longer.sent - shorter.sent);
}

// An open loop's peak in flight and waiting, held whatever the machine's stalls, on connections opened ahead.
const std::string peak_held = " --max-concurrency 16 --spare-connections 16 --max-inflight 48";

}  // namespace

BOOST_AUTO_TEST_CASE(nothing_per_request_nor_per_chunk_on_the_io_thread) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose"});
    const run_count few = io_thread_allocations(sim.url, dir, 1000, 16, true, "chat", peak_held);
    const run_count many = io_thread_allocations(sim.url, dir, 3000, 16, true, "chat", peak_held);
    const run_count closed_few = io_thread_allocations(sim.url, dir, 1000, 16, false);
    const run_count shorter = io_thread_allocations(sim.url, dir, 3000, 16, false);
    const run_count longer = io_thread_allocations(sim.url, dir, 3000, 64, false);
    const double per_request = marginal(few, many);
    const double closed_per_request = marginal(closed_few, shorter);
    const double per_chunk = (longer.allocations - shorter.allocations) / (3000.0 * 48);
    BOOST_TEST_MESSAGE("io thread allocations, open loop: " << few.allocations << " for 1,000 requests, " << many.allocations
                       << " for 3,000: " << per_request << " per request; closed loop: " << closed_few.allocations << " for 1,000, "
                       << shorter.allocations << " for 3,000 of 16 tokens: " << closed_per_request << " per request, " << longer.allocations
                       << " for 3,000 of 64: " << per_chunk << " per chunk");
    // Far from the 9 a request once took.
    BOOST_TEST(per_request < 0.25);
    // A closed loop's requests hand their memory back to the workers that
    // wait on them, and its 4 connections never grow: nothing a request.
    BOOST_TEST(closed_per_request < 0.05);
    BOOST_TEST(per_chunk < 0.001);
}

// A Responses stream's deltas go through the same scan, and its longer
// events (the whole text again in each .done) through the same buffers.
BOOST_AUTO_TEST_CASE(nothing_per_delta_of_a_responses_stream) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose"});
    const run_count shorter = io_thread_allocations(sim.url, dir, 3000, 16, false, "responses");
    const run_count longer = io_thread_allocations(sim.url, dir, 3000, 64, false, "responses");
    const double per_chunk = (longer.allocations - shorter.allocations) / (3000.0 * 48);
    BOOST_TEST_MESSAGE("io thread allocations, /v1/responses, closed loop, 3,000 requests: " << shorter.allocations
                       << " of 16 tokens, " << longer.allocations << " of 64: " << per_chunk << " per delta");
    BOOST_TEST(per_chunk < 0.001);
}

// Thinking between <think> tags in the content (a server without a reasoning parser) is read
// chunk by chunk where it lies: every token here is thinking, so every chunk goes through the
// tag reader, and none allocates.
BOOST_AUTO_TEST_CASE(nothing_per_chunk_of_thinking_between_tags) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin,
                                   {"--preset", "firehose", "--reasoning-tokens", "1000", "--reasoning-shape", "think-tags"});
    const run_count shorter = io_thread_allocations(sim.url, dir, 3000, 16, false);
    const run_count longer = io_thread_allocations(sim.url, dir, 3000, 64, false);
    const double per_chunk = (longer.allocations - shorter.allocations) / (3000.0 * 48);
    BOOST_TEST_MESSAGE("io thread allocations, thinking between tags, closed loop, 3,000 requests: " << shorter.allocations
                       << " of 16 tokens, " << longer.allocations << " of 64: " << per_chunk << " per chunk");
    const auto summary = read_json(dir.file("out-chat3000x64-closed/summary.json"));
    BOOST_TEST(summary.at("reasoning").at("think_tag_requests").to_number<int>() == 3000);
    BOOST_TEST(per_chunk < 0.001);
}

// Requests with images: their lists of splices come back with their bytes,
// and a connection's gather write keeps its buffers (docs/media.md). The pool
// of images is made on other threads. What does allocate is each new peak in
// flight (a connection, a request's bytes and, with media, its splice list),
// held here as without images.
BOOST_AUTO_TEST_CASE(nothing_per_request_with_images) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose"});
    const std::string images = " --images 2 --image-size 64x64" + peak_held;
    const run_count few = io_thread_allocations(sim.url, dir, 1000, 16, true, "chat", images);
    const run_count many = io_thread_allocations(sim.url, dir, 3000, 16, true, "chat", images);
    const double per_request = marginal(few, many);
    const std::string closed_images = " --images 2 --image-size 64x64";
    const run_count closed_few = io_thread_allocations(sim.url, dir, 1000, 16, false, "chat", closed_images);
    const run_count closed_many = io_thread_allocations(sim.url, dir, 3000, 16, false, "chat", closed_images);
    const double closed_per_request = marginal(closed_few, closed_many);
    BOOST_TEST_MESSAGE("io thread allocations with 2 images a request, open loop: " << few.allocations << " for 1,000 requests, "
                       << many.allocations << " for 3,000: " << per_request << " per request; closed loop: " << closed_few.allocations << " for 1,000, "
                       << closed_many.allocations << " for 3,000: " << closed_per_request << " per request");
    BOOST_TEST(per_request < 0.25);         // as without images
    BOOST_TEST(closed_per_request < 0.05);  // as without images
}

BOOST_AUTO_TEST_SUITE_END()
