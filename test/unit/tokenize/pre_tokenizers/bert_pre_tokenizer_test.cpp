#include <boost/test/unit_test.hpp>

#include "openloop/tokenize/pre_tokenizers/bert_pre_tokenizer.hpp"

#include <boost/json.hpp>

#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_bert_pre_tokenizer)

using namespace openloop::hf;

namespace {

// The pieces' texts, a '^' before each that keeps at_start.
std::vector<std::string> split(std::vector<piece> pieces) {
    make_bert_pre_tokenizer({}, "tokenizer.json: pre_tokenizer")->split(pieces);
    std::vector<std::string> out;
    for (const piece& p : pieces) out.push_back((p.at_start ? "^" : "") + p.text);
    return out;
}

using strings = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_CASE(whitespace_is_cut_out_punctuation_stands_alone) {
    BOOST_TEST(split({{"  Hello, world!! it's", true}}) == (strings{"Hello", ",", "world", "!", "!", "it", "'", "s"}),
               boost::test_tools::per_element());
    BOOST_TEST(split({{"Hi there", true}}) == (strings{"^Hi", "there"}), boost::test_tools::per_element());
    // ASCII symbols count as punctuation; other symbols (€, ©) do not;
    // Unicode punctuation (¿, 。, 「) does.
    BOOST_TEST(split({{"a+b=c $5 \u20ac5 \u00a9x \u00bfqu\u00e9? \u4e2d\u3002\u300c", false}}) ==
                   (strings{"a", "+", "b", "=", "c", "$", "5", "\u20ac5", "\u00a9x", "\u00bf", "qu\u00e9", "?",
                            "\u4e2d", "\u3002", "\u300c"}),
               boost::test_tools::per_element());
    // Every White_Space character cuts: no-break, ideographic, em spaces.
    BOOST_TEST(split({{"a\u00a0b\u3000c\u2003d\ne", false}}) == (strings{"a", "b", "c", "d", "e"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(each_piece_is_split_on_its_own) {
    BOOST_TEST(split({{"x.y", true}, {"", false}, {" ", false}, {"z", false}}) == (strings{"^x", ".", "y", "z"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
