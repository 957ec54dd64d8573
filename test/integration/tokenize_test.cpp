#include <boost/test/unit_test.hpp>

// `openloop tokenize` as the reference harness runs it: the real binary on a
// tiny tokenizer.json, its two output shapes, and a bad line or file refused
// with exit 2 naming it, hostile files within a time and memory bound.

#include "hostile_case.hpp"
#include "hostile_tokenizers.hpp"
#include "run_files.hpp"
#include "test_http.hpp"

#include <fstream>

BOOST_AUTO_TEST_SUITE(it_tokenize)

using namespace test_http;

namespace {

// h e l l o with merges he, ll, hell, hello, Ġhello: "hello hello" is 8 9.
const std::string tokenizer_json = R"({"added_tokens": [{"id": 10, "content": "<|x|>", "special": true}],
  "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false}, "decoder": {"type": "ByteLevel"},
  "model": {"type": "BPE", "vocab": {"h": 0, "e": 1, "l": 2, "o": 3, "Ġ": 4, "he": 5, "ll": 6, "hell": 7,
    "hello": 8, "Ġhello": 9}, "merges": ["h e", "l l", "he ll", "hell o", "Ġ hello"]}})";

std::string write(const temp_dir& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name)) << text;
    return dir.file(name);
}

}  // namespace

BOOST_AUTO_TEST_CASE(text_prints_the_count_and_the_ids) {
    temp_dir dir;
    write(dir, "tokenizer.json", tokenizer_json);
    const std::string log = dir.file("out.log");
    BOOST_TEST(openloop_cli({"tokenize", "--tokenizer", "hf:" + dir.path.string(), "hello<|x|>hello hello"}, log) == 0);
    BOOST_TEST(slurp(log) == "4 tokens\n8 10 8 9\n");
}

BOOST_AUTO_TEST_CASE(jsonl_prints_ids_and_decoded_text_per_line) {
    temp_dir dir;
    const std::string tok = write(dir, "tokenizer.json", tokenizer_json);
    const std::string in = write(dir, "in.jsonl", "\"hello hello\"\n\n\"<|x|>hello\\u00e9\"\n");
    const std::string log = dir.file("out.log");
    BOOST_TEST(openloop_cli({"tokenize", "--tokenizer", "hf:" + tok, "--jsonl", in}, log) == 0);
    // é is not in the vocabulary (and there is no unknown token): no id.
    BOOST_TEST(slurp(log) == "{\"ids\":[8,9],\"text\":\"hello hello\"}\n{\"ids\":[10,8],\"text\":\"<|x|>hello\"}\n");
}

BOOST_AUTO_TEST_CASE(bad_input_exits_2_naming_it) {
    temp_dir dir;
    const std::string tok = write(dir, "tokenizer.json", tokenizer_json);
    const std::string in = write(dir, "in.jsonl", "\"hello\"\n42\n");
    const std::string log = dir.file("out.log");
    BOOST_TEST(openloop_cli({"tokenize", "--tokenizer", "hf:" + tok, "--jsonl", in}, log) == 2);
    BOOST_TEST(slurp(log).find(in + ":2: not a JSON string") != std::string::npos, slurp(log));

    const std::string bad = write(dir, "bad.json", R"({"model": {"type": "BPE", "vocab": {}, "merges": []},
        "decoder": {"type": "Sequence", "decoders": [{"type": "Foo"}]}})");
    BOOST_TEST(openloop_cli({"tokenize", "--tokenizer", "hf:" + bad, "x"}, log) == 2);
    BOOST_TEST(slurp(log).find(bad + ": decoder.decoders[0].type \"Foo\" is not supported") != std::string::npos, slurp(log));

    BOOST_TEST(openloop_cli({"tokenize", "--tokenizer", "spm:x", "x"}, log) == 2);
    BOOST_TEST(slurp(log).find("expected hf:PATH") != std::string::npos, slurp(log));
}

// A tokenizer.json whose normalizers multiply the text (eight Replace steps of a -> ten a's): refused at
// the step that passes 32 times the input, naming the file and the step, at once and in little memory
// (64 a's would have become 6.4 GB; it ended in std::bad_alloc, naming nothing).
BOOST_AUTO_TEST_CASE(a_normalizer_that_multiplies_the_text_is_refused) {
    temp_dir dir;
    const std::string tok = hostile::write_file(dir.file("tokenizer.json"), hostile::multiplying_normalizer());
    const auto o = hostile::run_openloop_bounded({"tokenize", "--tokenizer", "hf:" + tok, std::string(64, 'a')},
                                                 dir.file("out.log"), hostile::wall_bound(30), {.rss_kill_mib = 1024});
    BOOST_TEST(o.exit_status == 2, o.log);
    BOOST_TEST(o.wall_s < hostile::wall_bound(5));
    BOOST_TEST(o.peak_rss_mib < hostile::rss_bound(64));
    BOOST_TEST(o.log.find(tok + ": normalizer.normalizers[1] (Replace) makes the text longer than 2304 bytes") !=
                   std::string::npos, o.log);
}

// A Split regex that backtracks catastrophically ((a+)+$ on a's and a b): PCRE2 gives up at its match
// limit, and the error names the file and the pattern (it said "regex match failed: match limit
// exceeded", exit 1).
BOOST_AUTO_TEST_CASE(a_split_regex_that_backtracks_is_named) {
    temp_dir dir;
    const std::string tok = hostile::write_file(dir.file("tokenizer.json"), hostile::backtracking_split());
    const auto o = hostile::run_openloop_bounded({"tokenize", "--tokenizer", "hf:" + tok, std::string(40, 'a') + "b"},
                                                 dir.file("out.log"), hostile::wall_bound(30), {.rss_kill_mib = 1024});
    BOOST_TEST(o.exit_status == 2, o.log);
    BOOST_TEST(o.wall_s < hostile::wall_bound(5));
    BOOST_TEST(o.peak_rss_mib < hostile::rss_bound(64));
    BOOST_TEST(o.log.find(tok + ": pre_tokenizer.pattern.Regex regex /(a+)+$/") != std::string::npos, o.log);
    BOOST_TEST(o.log.find("match limit") != std::string::npos, o.log);
}

BOOST_AUTO_TEST_SUITE_END()
