#include <boost/test/unit_test.hpp>

// Hostile tokenizer files given to the real `openloop run`: normalizers that
// multiply the text. Each is refused (exit 2, the message naming the file and
// the step) within its time and memory bounds; the same records as the hostile
// servers' cases. The files are small, made here.

#include "hostile_case.hpp"
#include "hostile_tokenizers.hpp"
#include "openloop/cli/child_process.hpp"
#include "test_paths.hpp"

#include <string>
#include <vector>

using hostile::hostile_case;
using hostile::small_rss_mib;

namespace {

constexpr const char* suite = "hostile_tokenizer";

// A case whose run's --tokenizer is the file.
hostile::case_spec tokenizer_case(std::string name, std::string input, std::string expected, std::string limits,
                                  double rss_mib, const std::string& file) {
    hostile::case_spec c{suite, std::move(name), std::move(input), std::move(expected), std::move(limits), 10, rss_mib};
    c.tokenizer = "hf:" + file;
    return c;
}

}  // namespace

// The file: the run's calibration encodes the vocabulary's words with it, which would grow
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
