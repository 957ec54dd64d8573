// vLLM's streamed transcription (test/data/streams/vllm_transcription.sse, what
// --endpoint transcriptions reads): transcription.chunk deltas carry content
// as chat's do, so the reader times each as a chunk and ends with the usage
// of the last, choices-less chunk.

#include <boost/test/unit_test.hpp>

#include "reader_feed.hpp"
#include "test_paths.hpp"

#include <fstream>
#include <sstream>

BOOST_AUTO_TEST_SUITE(unit_transcription_stream)

using namespace reader_feed;

BOOST_AUTO_TEST_CASE(vllm_transcription_chunks_are_content_with_usage) {
    const std::string path = std::string(openloop_test::source_dir) + "/test/data/streams/vllm_transcription.sse";
    std::ifstream in(path, std::ios::binary);
    BOOST_TEST_REQUIRE(in.good(), "cannot read " << path);
    std::ostringstream s;
    s << in.rdbuf();
    const fed f = feed_whole(200, s.str());
    // Each chunk's tokens from the usage's growth (1, 2, 2), its bytes the delta's text
    // (" The", " quick brown", " fox."); done: 5 completion and 77 prompt tokens.
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7", "chunk t=1 a=1 b=4 v=0 req=7",
                                                     "chunk t=1 a=2 b=12 v=0 req=7", "chunk t=1 a=2 b=5 v=0 req=7",
                                                     "done t=1 a=5 b=77 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, s.str());
}

BOOST_AUTO_TEST_SUITE_END()
