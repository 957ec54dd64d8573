// Whole tokenizer.json files, tiny and written by hand, each id derived by
// hand from the vocabulary and merges: a byte-level BPE (GPT-2's kind), a
// SentencePiece-like BPE with byte fallback (Llama 2's kind), added tokens,
// post-processors, decoding, and the errors a bad file gets.

#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/base/stop_point.hpp"
#include "openloop/tokenize/local_tokenizer.hpp"
#include "test_http.hpp"

#include <filesystem>
#include <fstream>

BOOST_AUTO_TEST_SUITE(unit_hf_tokenizer)

using namespace openloop;
using ids = std::vector<std::int32_t>;

namespace {

struct tokenizer_dir : test_http::temp_dir {
    std::string write(const std::string& json, const std::string& name = "tokenizer.json") const {
        std::ofstream(path / name) << json;
        return file(name);
    }
};

// h e l l o, with merges he, ll, hell, hello, Ġhello (ranks 0..4).
const std::string byte_level_model = R"("model": {"type": "BPE", "vocab": {"h": 0, "e": 1, "l": 2, "o": 3, "Ġ": 4,
    "he": 5, "ll": 6, "hell": 7, "hello": 8, "Ġhello": 9, "s": 15, "w": 16},
  "merges": ["h e", "l l", "he ll", "hell o", "Ġ hello"]})";

std::string byte_level_json(const std::string& added = "[]", const std::string& extra = "") {
    return R"({"added_tokens": )" + added + R"(, "normalizer": null,
      "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
      "decoder": {"type": "ByteLevel"}, )" + extra + byte_level_model + "}";
}

std::unique_ptr<local_tokenizer> load(const tokenizer_dir& dir, const std::string& json) {
    return load_hf_tokenizer(dir.write(json));
}

std::string load_error(const std::string& json) {
    tokenizer_dir dir;
    try {
        load(dir, json);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "(loaded)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(byte_level_bpe_merges_lowest_rank_first) {
    tokenizer_dir dir;
    const auto tok = load(dir, byte_level_json());
    // "hello" -> he (0), ll (1), hell (2), hello (3); " hello" -> Ġ + hello (4).
    BOOST_TEST(tok->encode("hello hello", false) == ids({8, 9}), boost::test_tools::per_element());
    // Two "he" pairs: the leftmost merges first; the second stays "he".
    BOOST_TEST(tok->encode("hellohe", false) == ids({8, 5}), boost::test_tools::per_element());
    BOOST_TEST(tok->decode(ids{8, 9}, false) == "hello hello");
    BOOST_TEST(tok->vocab_size() == 17u);
    BOOST_TEST(tok->description().find("BPE, 17 tokens") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(merges_as_pairs_read_as_strings_do) {
    tokenizer_dir dir;
    std::string json = byte_level_json();
    json.replace(json.find(R"(["h e", "l l", "he ll", "hell o", "Ġ hello"])"),
                 std::string(R"(["h e", "l l", "he ll", "hell o", "Ġ hello"])").size(),
                 R"([["h", "e"], ["l", "l"], ["he", "ll"], ["hell", "o"], ["Ġ", "hello"]])");
    const auto tok = load(dir, json);
    BOOST_TEST(tok->encode("hello hello", false) == ids({8, 9}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(ignore_merges_takes_a_whole_piece_from_the_vocabulary) {
    tokenizer_dir dir;
    // Without merges "hello" is five tokens; with ignore_merges it is one.
    const std::string json = R"({"added_tokens": [], "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false},
      "model": {"type": "BPE", "ignore_merges": IGNORE, "vocab": {"h": 0, "e": 1, "l": 2, "o": 3, "hello": 4}, "merges": []}})";
    auto with = json;
    with.replace(with.find("IGNORE"), 6, "true");
    auto without = json;
    without.replace(without.find("IGNORE"), 6, "false");
    BOOST_TEST(load(dir, with)->encode("hello", false) == ids({4}), boost::test_tools::per_element());
    BOOST_TEST(load(dir, without)->encode("hello", false) == ids({0, 1, 2, 2, 3}), boost::test_tools::per_element());
}

namespace {

// Llama 2's shape: "▁" prepended and for spaces, no pre-tokenizer, byte
// fallback, <unk> fused, <s> added by the template.
const std::string sentencepiece_json = R"({
  "added_tokens": [{"id": 0, "content": "<unk>", "special": true}, {"id": 1, "content": "<s>", "special": true}],
  "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                 {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
  "pre_tokenizer": null,
  "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
  "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
              {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
  "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
    "vocab": {"<unk>": 0, "<s>": 1, "<0xC3>": 3, "<0xA9>": 4, "▁": 5, "a": 6, "b": 7, "▁a": 8},
    "merges": ["▁ a"]}})";

}  // namespace

BOOST_AUTO_TEST_CASE(sentencepiece_shape_with_byte_fallback_and_unknown_tokens) {
    tokenizer_dir dir;
    const auto tok = load(dir, sentencepiece_json);
    // "▁a▁b": ▁a merges; ▁ and b stay.
    BOOST_TEST(tok->encode("a b", false) == ids({8, 5, 7}), boost::test_tools::per_element());
    BOOST_TEST(tok->encode("a b", true) == ids({1, 8, 5, 7}), boost::test_tools::per_element());
    // é is outside the vocabulary: its bytes C3 A9.
    BOOST_TEST(tok->encode("é", false) == ids({5, 3, 4}), boost::test_tools::per_element());
    // € has no byte tokens: <unk>, and the second <unk> fused into the first.
    BOOST_TEST(tok->encode("€€", false) == ids({5, 0}), boost::test_tools::per_element());
    BOOST_TEST(tok->decode(ids{1, 8, 5, 7}, false) == "<s> a b");
    BOOST_TEST(tok->decode(ids{1, 8, 5, 7}, true) == "a b");
    BOOST_TEST(tok->decode(ids{5, 3, 4}, false) == "é");
}

BOOST_AUTO_TEST_CASE(a_long_text_without_a_pre_tokenizer_merges_as_one_word) {
    tokenizer_dir dir;
    const auto tok = load(dir, sentencepiece_json);
    // 93 characters: cut where no token has two characters side by side,
    // the ids are those of the whole: ▁a, ▁, b over and over, then <unk>s fused.
    std::string text;
    ids expected;
    for (int i = 0; i < 30; ++i) {
        text += i ? " a b" : "a b";
        expected.insert(expected.end(), {8, 5, 7});
    }
    text += "€€";
    expected.push_back(0);
    BOOST_TEST(tok->encode(text, false) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(added_tokens_match_longest_first_in_the_raw_text) {
    tokenizer_dir dir;
    const std::string added = R"([{"id": 10, "content": "<|x|>", "special": true}, {"id": 11, "content": "<|x|>y"},
        {"id": 12, "content": "[L]", "lstrip": true}, {"id": 13, "content": "[R]", "rstrip": true},
        {"id": 14, "content": "sw", "single_word": true}])";
    const auto tok = load(dir, byte_level_json(added));
    BOOST_TEST(tok->encode("hello<|x|>hello", false) == ids({8, 10, 8}), boost::test_tools::per_element());
    BOOST_TEST(tok->encode("hello<|x|>yhello", false) == ids({8, 11, 8}), boost::test_tools::per_element());
    // lstrip takes the space before [L], rstrip the one after [R] (else Ġ, Ġhello).
    BOOST_TEST(tok->encode("hello [L]", false) == ids({8, 12}), boost::test_tools::per_element());
    BOOST_TEST(tok->encode("[R] hello", false) == ids({13, 8}), boost::test_tools::per_element());
    // single_word: a word of its own, not inside "hellosw".
    BOOST_TEST(tok->encode("sw hello", false) == ids({14, 9}), boost::test_tools::per_element());
    BOOST_TEST(tok->encode("hellosw", false) == ids({8, 15, 16}), boost::test_tools::per_element());
    // Decoding keeps special tokens unless asked not to.
    BOOST_TEST(tok->decode(ids{8, 10, 8}, false) == "hello<|x|>hello");
    BOOST_TEST(tok->decode(ids{8, 10, 8}, true) == "hellohello");
}

BOOST_AUTO_TEST_CASE(bert_processing_wraps_one_sequence) {
    tokenizer_dir dir;
    const auto tok = load(dir, byte_level_json("[]", R"("post_processor": {"type": "Sequence", "processors": [
        {"type": "ByteLevel"}, {"type": "BertProcessing", "cls": ["s", 15], "sep": ["w", 16]}]}, )"));
    BOOST_TEST(tok->encode("hello", true) == ids({15, 8, 16}), boost::test_tools::per_element());
    BOOST_TEST(tok->encode("hello", false) == ids({8}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(invalid_utf8_reads_as_the_replacement_character) {
    tokenizer_dir dir;
    const auto tok = load(dir, sentencepiece_json);
    // \xC3 alone is U+FFFD (EF BF BD): no byte tokens for it, so <unk>.
    BOOST_TEST(tok->encode("a\xC3", false) == ids({8, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_directory_and_its_config_are_read) {
    tokenizer_dir dir;
    dir.write(byte_level_json(R"([{"id": 10, "content": "<|x|>", "special": false}])"));
    dir.write(R"({"additional_special_tokens": ["<|x|>"], "clean_up_tokenization_spaces": false})", "tokenizer_config.json");
    const auto tok = load_hf_tokenizer(dir.path.string());
    BOOST_TEST(tok->encode("hello<|x|>", false) == ids({8, 10}), boost::test_tools::per_element());
    // additional_special_tokens are skipped as special when decoding.
    BOOST_TEST(tok->decode(ids{8, 10}, true) == "hello");
}

// transformers' Llama and Gemma classes take BOS/EOS from the config, not the
// file's post-processor (DeepSeek V3's file adds nothing; its config asks for BOS).
BOOST_AUTO_TEST_CASE(a_llama_class_config_adds_bos_and_eos_as_it_asks) {
    tokenizer_dir dir;
    dir.write(byte_level_json(R"([{"id": 10, "content": "<s>", "special": true},
                                  {"id": 11, "content": "</s>", "special": true}])"));
    dir.write(R"({"tokenizer_class": "LlamaTokenizerFast", "bos_token": {"content": "<s>"}, "eos_token": "</s>",
                  "add_eos_token": true})", "tokenizer_config.json");
    const auto tok = load_hf_tokenizer(dir.path.string());
    BOOST_TEST(tok->encode("hello", true) == ids({10, 8, 11}), boost::test_tools::per_element());
    BOOST_TEST(tok->encode("hello", false) == ids({8}), boost::test_tools::per_element());

    dir.write(R"({"tokenizer_class": "PreTrainedTokenizerFast", "add_bos_token": true, "bos_token": "<s>"})",
              "tokenizer_config.json");
    BOOST_TEST(load_hf_tokenizer(dir.path.string())->encode("hello", true) == ids({8}), boost::test_tools::per_element());

    dir.write(R"({"tokenizer_class": "LlamaTokenizer", "bos_token": "<nope>"})", "tokenizer_config.json");
    try {
        load_hf_tokenizer(dir.path.string());
        BOOST_FAIL("a BOS without an id must be refused");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).ends_with("tokenizer_config.json: bos_token is asked for but has no id"), e.what());
    }
}

BOOST_AUTO_TEST_CASE(errors_name_the_file_and_the_json_path) {
    std::string json = byte_level_json();
    json.replace(json.find(R"({"type": "ByteLevel", "add_prefix_space")"), 1,
                 R"({"type": "Sequence", "pretokenizers": [{"type": "Digits"}, {"type": "Foo"}]}, "x": {)");
    const std::string e = load_error(json);
    BOOST_TEST(e.ends_with("tokenizer.json: pre_tokenizer.pretokenizers[1].type \"Foo\" is not supported"), e);

    std::string merges = byte_level_json();
    merges.replace(merges.find(R"("l l")"), 5, "7");
    const std::string m = load_error(merges);
    BOOST_TEST(m.ends_with("tokenizer.json: model.merges[1] is neither \"a b\" nor [\"a\", \"b\"]"), m);

    const std::string n = load_error(R"({"normalizer": {"type": "Precompiled"}, )" + byte_level_model + "}");
    BOOST_TEST(n.ends_with("tokenizer.json: normalizer.precompiled_charsmap is missing"), n);
    const std::string u = load_error(R"({"normalizer": {"type": "Nonesuch"}, )" + byte_level_model + "}");
    BOOST_TEST(u.ends_with("tokenizer.json: normalizer.type \"Nonesuch\" is not supported"), u);

    const std::string p = load_error(R"({"model": {"type": "Foo", "vocab": []}})");
    BOOST_TEST(p.ends_with("tokenizer.json: model.type \"Foo\" is not supported"), p);

    const std::string bad = load_error("{\"model\": ");
    BOOST_TEST(bad.find("tokenizer.json: is not valid JSON") != std::string::npos, bad);

    BOOST_CHECK_THROW(load_hf_tokenizer("/nonexistent/tokenizer.json"), std::runtime_error);
}

namespace {

// What a hostile file's encode throws, or "(encoded)".
std::string encode_error(const std::string& json, const std::string& text, std::string& file) {
    static tokenizer_dir dir;
    file = dir.write(json);
    try {
        load_hf_tokenizer(file)->encode(text, false);
    } catch (const input_error& e) {
        return e.what();
    }
    return "(encoded)";
}

}  // namespace

// A normalizer that multiplies the text is refused at the step whose result passes 32 times the
// tokenizer's input (plus 256 bytes), naming the file and the step: 4 steps of a -> ten a's make 1,
// 10, 100, 1000, past 288 at the third. The most a real one makes of a text is left alone: NFKD
// writes U+FDFA as 18 letters, 11 times its bytes.
BOOST_AUTO_TEST_CASE(a_normalizer_that_multiplies_the_text_is_refused_at_its_step) {
    const std::string tenfold = R"({"type": "Replace", "pattern": {"String": "a"}, "content": "aaaaaaaaaa"})";
    std::string file;
    const std::string sequence = R"({"normalizer": {"type": "Sequence", "normalizers": [)" + tenfold + ", " + tenfold +
                                 ", " + tenfold + ", " + tenfold + "]}, " + byte_level_model + "}";
    const std::string e = encode_error(sequence, "a", file);
    BOOST_TEST(e.find(file + ": normalizer.normalizers[2] (Replace) makes the text longer than 288 bytes") == 0u, e);

    const std::string thousandfold = R"({"normalizer": {"type": "Replace", "pattern": {"String": "h"}, "content": ")" +
                                     std::string(1000, 'h') + "\"}, " + byte_level_model + "}";
    const std::string one = encode_error(thousandfold, "hello", file);
    BOOST_TEST(one.find(file + ": normalizer (Replace) makes the text longer than 416 bytes") == 0u, one);

    const std::string nfkd = R"({"normalizer": {"type": "NFKD"}, )" + byte_level_model + "}";
    BOOST_TEST(encode_error(nfkd, "\xEF\xB7\xBA\xEF\xB7\xBA", file) == "(encoded)");
}

// A Split regex that backtracks catastrophically: PCRE2 gives up at its match limit, and the error
// names the file and the pattern.
BOOST_AUTO_TEST_CASE(a_split_regex_that_backtracks_is_named_with_its_file) {
    std::string file;
    const std::string e = encode_error(R"({"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a+)+$"},
        "behavior": "Isolated"}, )" + byte_level_model + "}", std::string(40, 'a') + "b", file);
    BOOST_TEST(e.find(file + ": pre_tokenizer.pattern.Regex regex /(a+)+$/ ") == 0u, e);
    BOOST_TEST(e.find("match limit") != std::string::npos, e);
}

// A load whose stop was asked ends at its first stop point (step_stopped), a tiktoken file's too.
BOOST_AUTO_TEST_CASE(a_load_stops_once_its_stop_is_asked) {
    tokenizer_dir dir;
    std::stop_source stop;
    stop.request_stop();
    BOOST_CHECK_THROW(load_hf_tokenizer(dir.write(byte_level_json()), stop.get_token()), step_stopped);
    BOOST_CHECK_THROW(load_tiktoken(dir.write("aGVsbG8= 0\n", "cl100k_base.tiktoken"), stop.get_token()), step_stopped);
    BOOST_TEST(load_hf_tokenizer(dir.write(byte_level_json()), std::stop_source().get_token())->vocab_size() == 17u);
}

BOOST_AUTO_TEST_SUITE_END()
