#include <boost/test/unit_test.hpp>

// Retrieval-augmented prompts against the simulator's prefix cache, one
// request at a time: every request after the first finds the shared template
// cached, and one whose leading documents an earlier request retrieved first
// finds those too, and not the next (the cache works in 16-token blocks).
// The server counts every prompt at the length intended.

#include "openloop/cli/child_process.hpp"
#include "openloop/load/rag.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_rag)

namespace json = boost::json;
using namespace test_http;

BOOST_AUTO_TEST_CASE(documents_retrieved_before_are_found_in_the_cache) {
    temp_dir dir;
    // 3 of 12 documents of 160 tokens behind a 64-token template, Zipf 1.2.
    const openloop::rag_config c{12, 3, 160, 64, 1.2};
    constexpr int requests = 40, question = 24, seed = 3, block = 16;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--prefix-cache", "true"});
    const int rc = run_openloop({"--target", sim.url, "--concurrency", "1", "--num-requests", std::to_string(requests),
                                 "--rag-docs", std::to_string(c.docs), "--rag-k", std::to_string(c.k), "--rag-doc-len",
                                 std::to_string(c.doc_tokens), "--rag-template-len", std::to_string(c.template_tokens),
                                 "--rag-zipf", "1.2", "--input-len", std::to_string(question), "--output-len", "4",
                                 "--ignore-eos", "--seed", std::to_string(seed), "--out", dir.file("out")},
                                dir.file("run.log"));
    sim.process.stop();
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));

    // What each request retrieved, as the run drew it, and the most leading documents it
    // shares with one before it.
    const openloop::rag_corpus corpus(c);
    std::vector<std::vector<int>> retrieved(requests);
    for (int i = 0; i < requests; ++i) corpus.retrieve(seed, static_cast<std::uint64_t>(i), retrieved[i]);
    const auto leading_shared = [&](int i) {
        int best = 0;
        for (int j = 0; j < i; ++j) {
            int n = 0;
            while (n < c.k && retrieved[i][n] == retrieved[j][n]) ++n;
            best = std::max(best, n);
        }
        return best;
    };
    int found_documents = 0;
    for (const auto& r : read_jsonl(dir.file("out/requests.jsonl"))) {
        const int i = static_cast<int>(r.at("index").as_int64());
        BOOST_TEST_CONTEXT("request " << i << " retrieved " << retrieved[i][0] << "," << retrieved[i][1] << ","
                                      << retrieved[i][2]) {
            BOOST_TEST(r.at("prompt_tokens").as_int64() == c.template_tokens + c.k * c.doc_tokens + question);
            const std::int64_t cached = r.at("cached_tokens").is_null() ? 0 : r.at("cached_tokens").as_int64();
            if (i == 0) {
                BOOST_TEST(cached == 0);
                continue;
            }
            const int shared = leading_shared(i);
            found_documents += shared > 0;
            const int prefix = c.template_tokens + shared * c.doc_tokens;
            BOOST_TEST(cached >= prefix / block * block);
            if (shared < c.k) BOOST_TEST(cached < prefix + c.doc_tokens);  // the next document differs
        }
    }
    BOOST_TEST(found_documents >= 10);  // popular documents come first often
}

BOOST_AUTO_TEST_SUITE_END()
