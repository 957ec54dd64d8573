#include <boost/test/unit_test.hpp>

// Hostile tokenizer files given to the real `openloop run`, and to the
// simulator counting with one: normalizers that multiply the text, a Split
// regex that backtracks catastrophically, a tokenizer that gives no token at
// all, a vocabulary that takes seconds to load. Each is refused (exit 2, the
// message naming the file and the step or pattern), answered 400, or
// interrupted (130, nothing sent), within its time and memory bounds; the same
// records as the hostile servers' cases. The files are made here, small but
// for the vocabulary.

#include "hostile_case.hpp"
#include "hostile_server.hpp"
#include "hostile_tokenizers.hpp"
#include "openloop/cli/child_process.hpp"
#include "test_paths.hpp"

#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_hostile_tokenizer)

using hostile::hostile_case;
using hostile::small_rss_mib;
using hostile::operator+;

namespace {

constexpr const char* suite = "hostile_tokenizer";

// A case whose run's --tokenizer is the file; interrupt_when as case_spec says.
hostile::case_spec tokenizer_case(std::string name, std::string input, std::string expected, std::string limits,
                                  double rss_mib, const std::string& file, std::string interrupt_when = "") {
    hostile::case_spec c{suite, std::move(name), std::move(input), std::move(expected), std::move(limits), 10, rss_mib};
    c.tokenizer = "hf:" + file;
    c.interrupt_when = std::move(interrupt_when);
    return c;
}

}  // namespace

// The issue's file: the run's calibration encodes the vocabulary's words with it, which would grow
// without end; the normalized text is refused at the step that passes 32 times its input.
BOOST_AUTO_TEST_CASE(normalizers_that_multiply_the_text) {
    test_http::temp_dir files;
    const std::string file = hostile::write_file(files.file("tokenizer.json"), hostile::multiplying_normalizer());
    hostile_case k(tokenizer_case("normalizers_that_multiply_the_text",
                                  "tokenizer.json whose normalizer is eight Replace steps of a -> ten a's",
                                  hostile::refused, "a normalized text at most 32 times its input", small_rss_mib, file));
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--served-model-name", "hostile"});
    k.run(sim.url, hostile::five);
    k.expect_refused({file + ": normalizer.normalizers[", "(Replace)", "32 times"});
    sim.process.stop();
}

// The simulator counting prompts with a Split regex that backtracks catastrophically: each request is
// answered 400 naming the file and the pattern (it used to drop the connection without an answer).
BOOST_AUTO_TEST_CASE(simulator_with_a_backtracking_split_regex) {
    hostile_case k({suite, "simulator_with_a_backtracking_split_regex",
                    "sim --tokenizer hf: a Split regex (a+)+$; prompts of 40 a's and a b", "http_4xx",
                    "PCRE2's match limit", 10, small_rss_mib});
    const std::string file = hostile::write_file(k.file("tokenizer.json"), hostile::backtracking_split());
    const std::string prompt = "{\"prompt\": \"" + std::string(40, 'a') + "b\"}\n";
    const std::string prompts = hostile::write_file(k.file("prompts.jsonl"), prompt);
    auto sim = openloop::start_sim(openloop_test::bin,
                                   {"--preset", "firehose", "--served-model-name", "hostile", "--tokenizer", "hf:" + file});
    k.run(sim.url, hostile::five + std::vector<std::string>{"--prompts", prompts});
    k.expect_outcome(5);
    const std::string said = k.first_message("http_4xx");
    k.check(said.find(file + ": pre_tokenizer.pattern.Regex regex /(a+)+$/") != std::string::npos,
            "the 400's message names the file and the pattern: " + said);
    sim.process.stop();
}

// A tokenizer whose vocabulary has no token for any text: no prompt of any length can be built.
BOOST_AUTO_TEST_CASE(a_tokenizer_that_gives_no_token) {
    test_http::temp_dir files;
    const std::string file =
        hostile::write_file(files.file("tokenizer.json"), R"({"model": {"type": "BPE", "vocab": {}, "merges": []}})");
    hostile_case k(tokenizer_case("a_tokenizer_that_gives_no_token", "tokenizer.json with an empty vocabulary",
                                  hostile::refused, "the calibration's first words", small_rss_mib, file));
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--served-model-name", "hostile"});
    k.run(sim.url, hostile::five);
    k.expect_refused({file + " (BPE, 0 tokens): \"the\" is 0 tokens"});
    sim.process.stop();
}

// Loading a large vocabulary takes seconds; a SIGINT then ends the run at once: 130, results written,
// nothing sent. Started as a script's background job is (SIGINT ignored, as sh does for `&`), where
// the signal used to be dropped and the run went on to send everything.
BOOST_AUTO_TEST_CASE(sigint_while_a_large_vocabulary_loads) {
    hostile::server srv([](hostile::connection& c, const hostile::request&) {
        c.send("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        return true;
    });
    test_http::temp_dir files;
    const std::string file = hostile::write_big_vocabulary(files.file("big.json"), 5'000'000);
    hostile_case k(tokenizer_case("sigint_while_a_large_vocabulary_loads",
                                  "tokenizer.json of 5 M tokens (100 MB); SIGINT once openloop says it is loading it",
                                  "interrupted (exit 130)", "the first SIGINT", 1024, file,
                                  "openloop: loading tokenizer " + file));
    k.run(srv.url(), hostile::five);
    const auto& o = k.observed();
    k.check(o.exit_status == 130, "exit status 130, got " + std::to_string(o.exit_status));
    k.check(o.interrupted_at_s >= 0 && o.wall_s - o.interrupted_at_s < hostile::wall_bound(3),
            "ended within 3 s of the signal (" + std::to_string(o.wall_s - o.interrupted_at_s) + " s)");
    k.check(o.summary_written && o.summary.at("partial").as_bool() &&
                o.summary.at("partial_reason").as_string() == "interrupted by a signal",
            "summary.json partial: interrupted by a signal");
    k.check(test_http::read_jsonl(k.file("out/requests.jsonl")).empty(), "requests.jsonl empty");
    k.check(o.log.find("openloop: interrupted while loading tokenizer " + file + ": nothing was sent") != std::string::npos,
            "says it was interrupted while loading the file");
    k.check(srv.connections() == 0, "nothing reached the server (" + std::to_string(srv.connections()) + " connections)");
    k.server_saw(srv);
}

BOOST_AUTO_TEST_SUITE_END()
