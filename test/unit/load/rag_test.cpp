#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/load/rag.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/load/workload.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_rag)

using namespace openloop;

namespace {

rag_config corpus(int docs, int k, double zipf = 1.0) {
    rag_config c;
    c.docs = docs;
    c.k = k;
    c.doc_tokens = 50;
    c.template_tokens = 30;
    c.zipf = zipf;
    return c;
}

// Words the two prompts share from the start.
std::size_t shared_words(const std::string& a, const std::string& b) {
    std::size_t words = 0, i = 0;
    for (; i < a.size() && i < b.size() && a[i] == b[i]; ++i)
        if (a[i] == ' ') ++words;
    return words;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_request_retrieves_k_distinct_documents_as_a_function_of_its_index) {
    const rag_corpus c(corpus(40, 5));
    std::vector<int> docs, again;
    for (std::uint64_t i = 0; i < 500; ++i) {
        c.retrieve(7, i, docs);
        BOOST_TEST_REQUIRE(docs.size() == 5u);
        BOOST_TEST(std::set<int>(docs.begin(), docs.end()).size() == 5u);
        BOOST_TEST(*std::max_element(docs.begin(), docs.end()) < 40);
        c.retrieve(7, i, again);
        BOOST_TEST(again == docs);  // shards and reruns retrieve alike
    }
    // All of a corpus, however skewed, still ends.
    const rag_corpus all(corpus(6, 6, 4.0));
    all.retrieve(1, 3, docs);
    std::sort(docs.begin(), docs.end());
    BOOST_TEST(docs == (std::vector<int>{0, 1, 2, 3, 4, 5}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(popular_documents_come_back_by_their_zipf_weight) {
    const rag_corpus c(corpus(1000, 1, 1.0));
    std::vector<int> docs, count(1000);
    const int n = 200'000;
    for (std::uint64_t i = 0; i < n; ++i) {
        c.retrieve(3, i, docs);
        ++count[static_cast<std::size_t>(docs[0])];
    }
    // Rank 1 of H(1000) = 7.485: 13.4 %; rank 2 half of it, rank 10 a tenth.
    BOOST_TEST(std::abs(count[0] / double(n) - 1 / 7.4855) < 0.005);
    BOOST_TEST(std::abs(count[0] / double(count[1]) - 2.0) < 0.1);
    BOOST_TEST(std::abs(count[0] / double(count[9]) - 10.0) < 0.8);
    // Zipf 0: all alike.
    const rag_corpus flat(corpus(10, 1, 0.0));
    std::vector<int> flat_count(10);
    for (std::uint64_t i = 0; i < 50'000; ++i) {
        flat.retrieve(3, i, docs);
        ++flat_count[static_cast<std::size_t>(docs[0])];
    }
    for (int k : flat_count) BOOST_TEST(std::abs(k - 5000) < 300);
}

BOOST_AUTO_TEST_CASE(prompts_share_the_template_and_their_leading_documents_token_for_token) {
    const rag_corpus c(corpus(40, 3));
    request_spec a, b, d;
    c.build({4, 9, 1}, 20, 5, 0, prompt_builder{}, a);
    c.build({4, 9, 2}, 20, 5, 1, prompt_builder{}, b);
    c.build({7, 9, 1}, 20, 5, 2, prompt_builder{}, d);
    BOOST_TEST(a.input_tokens == 30 + 3 * 50 + 20);
    BOOST_TEST(count_text_tokens(a.prompt) == a.input_tokens);
    BOOST_TEST(shared_words(a.prompt, b.prompt) == 30u + 2 * 50);  // template, documents 4 and 9
    BOOST_TEST(shared_words(a.prompt, d.prompt) == 30u);           // the template only
    request_spec again;
    c.build({4, 9, 1}, 20, 5, 3, prompt_builder{}, again);
    BOOST_TEST(shared_words(a.prompt, again.prompt) == 30u + 3 * 50);  // only the question differs
    BOOST_TEST(again.prompt != a.prompt);
}

BOOST_AUTO_TEST_CASE(bad_settings_name_their_flag) {
    const auto says = [](rag_config c, const std::string& words) {
        try {
            check_rag(c);
            BOOST_ERROR("no error for " << words);
        } catch (const input_error& e) {
            BOOST_TEST(std::string(e.what()).find(words) != std::string::npos, e.what());
        }
    };
    says(corpus(5, 6), "--rag-k 6 is more than the 5 --rag-docs");
    says(corpus(5, 0), "--rag-k must be 1 to 64");
    auto c = corpus(5, 2);
    c.doc_tokens = 0;
    says(c, "--rag-doc-len");
    c = corpus(5, 2, -1);
    says(c, "--rag-zipf");
}

BOOST_AUTO_TEST_CASE(the_workload_builds_rag_prompts_with_input_len_as_the_question) {
    workload_config wc;
    wc.rag = corpus(20, 2);
    wc.input_len = length_dist::parse("10");
    wc.output_len = length_dist::parse("7");
    wc.seed = 4;
    workload w(wc);
    request_spec s;
    w.at(3, s);
    BOOST_TEST(s.input_tokens == 30 + 2 * 50 + 10);
    BOOST_TEST(s.max_tokens == 7);
    std::vector<int> docs;
    rag_corpus(wc.rag).retrieve(4, 3, docs);
    request_spec expected;
    rag_corpus(wc.rag).build(docs, 10, 4, 3, prompt_builder{}, expected);
    BOOST_TEST(s.prompt == expected.prompt);
    BOOST_TEST(w.describe().starts_with("rag template=30 docs=2x50 of 20 zipf=1 question=10 output=7"), w.describe());
    wc.prefix_len = 5;
    BOOST_CHECK_THROW(workload{wc}, input_error);
}

BOOST_AUTO_TEST_SUITE_END()
