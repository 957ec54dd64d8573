#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/load/prompt_builder.hpp"
#include "openloop/tokenize/sentencepiece_counter.hpp"
#include "test_http.hpp"

#include <fstream>

#ifdef OPENLOOP_HAVE_SENTENCEPIECE
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#endif

BOOST_AUTO_TEST_SUITE(unit_sentencepiece_counter)

using namespace openloop;

#ifdef OPENLOOP_HAVE_SENTENCEPIECE

namespace {

// A small SentencePiece model trained here on text of the vocabulary words
// and some others, so that words split into several pieces as in a real one.
std::string train_model(const test_http::temp_dir& dir) {
    const std::string corpus = dir.file("corpus.txt");
    {
        std::ofstream out(corpus);
        std::string line;
        for (std::uint64_t i = 0; i < 3000; ++i) {
            line.clear();
            append_words(line, 12, i);
            out << line << " zebra quantum " << (i % 97) << " lattice\n";
        }
    }
    const auto status = sentencepiece::SentencePieceTrainer::Train(
        "--input=" + corpus + " --model_prefix=" + dir.file("tiny") +
        " --vocab_size=120 --model_type=bpe --character_coverage=1.0 --minloglevel=2");
    BOOST_TEST_REQUIRE(status.ok(), status.ToString());
    return dir.file("tiny.model");
}

}  // namespace

// Prompts built from a local model's costs have exactly the intended count
// under that model: what --tokenizer sentencepiece promises.
BOOST_AUTO_TEST_CASE(calibrated_prompts_are_exact_under_the_model) {
    test_http::temp_dir dir;
    const std::string model = train_model(dir);
    const auto count = sentencepiece_counter(model);
    const auto builder = calibrate(count, "sentencepiece tiny.model");
    bool multi_piece = false;
    for (const int c : builder.inner()) multi_piece = multi_piece || c > 1;
    BOOST_TEST(multi_piece);  // not one word per token, or the test proves nothing

    sentencepiece::SentencePieceProcessor sp;
    BOOST_TEST_REQUIRE(sp.Load(model).ok());
    for (int want = 4; want < 1500; want += 53) {
        std::string text;
        std::vector<std::int32_t> ids;
        BOOST_TEST(builder.append(text, ids, want, static_cast<std::uint64_t>(want)) == want);
        std::vector<int> pieces;
        BOOST_TEST_REQUIRE(sp.Encode(text, &pieces).ok());
        BOOST_TEST(static_cast<int>(pieces.size()) + 1 == want, "want " << want);  // + BOS
    }
}

BOOST_AUTO_TEST_CASE(a_missing_model_is_bad_input_naming_the_file) {
    try {
        sentencepiece_counter("/nonexistent/tokenizer.model");
        BOOST_FAIL("expected an exception");
    } catch (const input_error& e) {  // exit 2, as every bad input file
        BOOST_TEST(std::string(e.what()).find("/nonexistent/tokenizer.model") != std::string::npos, e.what());
    }
}

#else

BOOST_AUTO_TEST_CASE(without_sentencepiece_the_error_says_what_to_install) {
    BOOST_TEST(!sentencepiece_available());
    try {
        sentencepiece_counter("tokenizer.model");
        BOOST_FAIL("expected an exception");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find("libsentencepiece-dev") != std::string::npos, e.what());
    }
}

#endif

BOOST_AUTO_TEST_SUITE_END()
